"""The analysis panel: options on the left, results on the right.

A panel declares its form as a list of fields; the base class builds the widgets, turns them
into the analysis's frozen ``Options``, runs the analysis in the background (debounced, a new
run cancels the old one) and renders the :class:`AnalysisResult`: the headline records, the
notes, the signature, every result table, and the charts the panel draws.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

import pandas as pd
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (QCheckBox, QComboBox, QDoubleSpinBox, QFileDialog, QFormLayout,
                               QFrame, QGroupBox, QHBoxLayout, QLabel, QLineEdit, QPushButton,
                               QScrollArea, QSpinBox, QSplitter, QTabWidget, QVBoxLayout, QWidget)

from ...core.errors import WorkbenchError
from ...core.result import AnalysisResult
from ...metrics.registry import spec_for
from ..models import FrameModel
from ..tasks import TaskRunner
from ..widgets import AnswerCard, BusyBar, TableView
from .. import presenting

AUTO = "(automatic)"
NONE = "(none)"


@dataclass(frozen=True)
class Field:
    """One control of a panel's form."""

    name: str                      # the Options field it sets (or a panel-only setting)
    label: str
    kind: str                      # column | choice | bool | int | float | cutoffs | file | text
    tooltip: str = ""
    roles: tuple[str, ...] = ()    # column: roles that fill it automatically
    choices: tuple[tuple[str, str], ...] = ()  # choice: (value, label)
    minimum: float = 0
    maximum: float = 1_000_000
    decimals: int = 3
    step: float = 1
    forms: tuple[str, ...] = ()    # shown only when the panel's "form" is one of these
    optional: bool = True          # column: may be left empty
    default: Any = None            # panel-only settings


@dataclass
class _Control:
    spec: Field
    widget: QWidget
    row_label: QLabel


def gui_words(text: str, labels: dict[str, str]) -> str:
    """A sentence of the engine (shared with the command line) in the window's words: a
    command-line flag (``--relevance``) becomes the option on the left that sets it."""
    import re

    def option(match) -> str:
        label = labels.get(match.group(1).replace("-", "_"))
        return f"the '{label}' option on the left" if label else match.group(0)

    return re.sub(r"(?<![\w-])--([a-z][a-z0-9-]*)", option, text) if "--" in text else text


class PanelMessages:
    """The message line of a panel (a ``message`` QLabel, ``last_error``, an ``error`` signal):
    user errors in red, unexpected ones also to the exception dialog."""

    def _gui_words(self, text: str) -> str:
        controls = getattr(self, "_controls", {})
        return gui_words(text, {name: ctl.spec.label for name, ctl in controls.items()})

    def _on_failed(self, error: object, details: str) -> None:
        if isinstance(error, WorkbenchError):
            self._show_error(str(error))
        else:
            self._show_error(f"Unexpected error: {error!r}")
            self.error.emit(f"{type(error).__name__}: {error}", details)

    def _show_error(self, text: str) -> None:
        text = self._gui_words(text)
        self.last_error = text
        self.message.setStyleSheet("color: #b3261e; font-weight: bold;")
        self.message.setText(text)
        self.message.setVisible(True)

    def _show_message(self, text: str) -> None:
        text = self._gui_words(text)
        self.message.setStyleSheet("")
        self.message.setText(text)
        self.message.setVisible(bool(text))


class AnalysisPanel(PanelMessages, QWidget):
    """Base class: subclasses set ``module`` (the analysis), ``FIELDS`` and ``CHARTS``, and may
    override :meth:`form_for_roles`, :meth:`configure_charts` and :meth:`extra_actions`."""

    module: Any = None
    FIELDS: tuple[Field, ...] = ()
    #: chart classes (workbench.ui.charts), each a tab drawn from the result's tables
    CHARTS: tuple[type, ...] = ()
    NEEDS_DATA = True
    DEBOUNCE_MS = 350

    result_ready = Signal(object)
    #: "" when the panel can run on the loaded data, else the sentence saying why not
    applicability_changed = Signal(str)
    options_changed = Signal()
    #: every number was taken off the panel (another file, or it cannot run on the data)
    cleared = Signal()
    select_rows = Signal(object)   # source rows of the loaded table to show
    error = Signal(str, str)       # summary, details of an unexpected exception

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.table = None
        self.roles: dict[str, str] = {}
        self.last_result: AnalysisResult | None = None
        #: SHA-256 of the file the shown result was computed from (None: no file, or no result)
        self.last_input_sha256: str | None = None
        self._running_sha256: str | None = None
        self.not_applicable = ""
        self.last_error: str | None = None
        self._controls: dict[str, _Control] = {}
        self._loading = False
        #: shut down (its window closes): no timer, no run, nothing reported any more
        self.closed = False
        self.runner = TaskRunner(self)
        self.runner.progressed.connect(lambda f, m: self.busy.advance(f, m))
        self.runner.finished.connect(self._on_result)
        self.runner.failed.connect(self._on_failed)
        self.runner.busy_changed.connect(self._on_busy)
        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(self.DEBOUNCE_MS)
        self._debounce.timeout.connect(self.run_now)
        self._build()

    # -- layout --------------------------------------------------------------------------------
    def _build(self) -> None:
        outer = QHBoxLayout(self)
        outer.setContentsMargins(6, 6, 6, 6)
        split = QSplitter(Qt.Orientation.Horizontal)
        outer.addWidget(split)

        form_box = QWidget()
        form_layout = QVBoxLayout(form_box)
        title = QLabel(f"<b>{self.module.TITLE}</b>")
        form_layout.addWidget(title)
        group = QGroupBox("Options and conventions")
        self.form = QFormLayout(group)
        self.form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        # a narrow options column puts each field under its label instead of widening the window
        self.form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        for spec in self.FIELDS:
            self._add_control(spec)
        form_layout.addWidget(group)
        self.run_button = QPushButton("Run now")
        self.run_button.setToolTip("Results update by themselves when an option changes.")
        self.run_button.clicked.connect(self.run_now)
        form_layout.addWidget(self.run_button)
        for widget in self.extra_actions():
            form_layout.addWidget(widget)
        form_layout.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidget(form_box)
        scroll.setMinimumWidth(300)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.options_scroll = scroll
        split.addWidget(scroll)

        right = QWidget()
        rl = QVBoxLayout(right)
        rl.setContentsMargins(4, 0, 0, 0)
        self.busy = BusyBar()
        self.busy.cancel_requested.connect(self.cancel)
        top = QHBoxLayout()
        self.drawer_button = QPushButton("Options ▸")
        self.drawer_button.setObjectName("optionsDrawer")
        self.drawer_button.setCheckable(True)
        self.drawer_button.setToolTip("Show or hide the options and conventions.")
        self.drawer_button.toggled.connect(lambda on: self.options_scroll.setVisible(on))
        self.drawer_button.setVisible(False)
        top.addWidget(self.drawer_button, 0)
        top.addWidget(self.busy, 1)
        top.addStretch(0)
        rl.addLayout(top)
        self.message = QLabel()
        self.message.setWordWrap(True)
        self.message.setObjectName("panelMessage")
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        rl.addWidget(self.message)
        self.card = AnswerCard()
        rl.addWidget(self.card)
        self.tabs = QTabWidget()
        self.tabs.setUsesScrollButtons(True)  # many result tabs scroll; their titles are not cut
        self.tabs.setElideMode(Qt.TextElideMode.ElideNone)
        self.tabs.setDocumentMode(True)
        rl.addWidget(self.tabs, 1)
        self.headline = TableView()
        self.headline.setObjectName("headline")
        # the measure's name takes the room left by value, n and interval (never the last column)
        self.headline.horizontalHeader().setStretchLastSection(False)
        self.headline.frame_model().modelReset.connect(self._stretch_measure)
        self.notes = QLabel()
        self.notes.setWordWrap(True)
        self.notes.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.notes.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        summary = QWidget()
        sl = QVBoxLayout(summary)
        sl.setContentsMargins(0, 4, 0, 0)
        sl.addWidget(self.headline, 3)
        notes_scroll = QScrollArea()
        notes_scroll.setWidgetResizable(True)
        notes_scroll.setFrameShape(QFrame.Shape.NoFrame)
        notes_scroll.setWidget(self.notes)
        notes_scroll.setVisible(False)  # shown with notes: an empty box takes no room from the table
        self.notes_scroll = notes_scroll
        sl.addWidget(notes_scroll, 1)
        self.tabs.addTab(summary, "Results")
        self.charts = [cls() for cls in self.CHARTS]
        for chart in self.charts:
            self.tabs.addTab(chart, chart.title)
            self.tabs.setTabVisible(self.tabs.indexOf(chart), False)
        self._table_views: dict[str, TableView] = {}
        sig_row = QHBoxLayout()
        sig_row.addWidget(QLabel("Signature:"))
        self.signature = QLineEdit()
        self.signature.setReadOnly(True)
        self.signature.setObjectName("signature")
        self.signature.setToolTip("Every convention that produced these numbers.")
        sig_row.addWidget(self.signature, 1)
        rl.addLayout(sig_row)
        split.addWidget(right)
        split.setStretchFactor(0, 0)
        split.setStretchFactor(1, 1)
        split.setSizes([360, 900])
        split.setChildrenCollapsible(True)
        self.splitter = split
        self._show_message("Open a results file or an example to see results." if self.NEEDS_DATA else "")
        self.set_options(self.module.Options())
        self._loading = True
        for ctl in self._controls.values():
            if ctl.spec.default is not None:
                self._set_value(ctl, ctl.spec.default)
        self._loading = False
        self._update_visibility()

    def extra_actions(self) -> list[QWidget]:
        """Widgets added under the Run button (e.g. Compare's 'show discordant items')."""
        return []

    def _add_control(self, spec: Field) -> None:
        tip = spec.tooltip
        if spec.kind == "column":
            w = _combo()
            w.currentIndexChanged.connect(self._changed)
        elif spec.kind == "choice":
            w = _combo()
            for value, label in spec.choices:
                w.addItem(label, value)
            if spec.default is not None:
                w.setCurrentIndex(max(0, w.findData(spec.default)))
            w.currentIndexChanged.connect(self._changed)
            w.currentIndexChanged.connect(self._update_visibility)
        elif spec.kind == "bool":
            w = QCheckBox()
            w.toggled.connect(self._changed)
        elif spec.kind == "int":
            w = QSpinBox()
            w.setRange(int(spec.minimum), int(spec.maximum))
            w.setSingleStep(int(spec.step))
            w.setGroupSeparatorShown(True)
            w.valueChanged.connect(self._changed)
        elif spec.kind == "float":
            w = QDoubleSpinBox()
            w.setRange(spec.minimum, spec.maximum)
            w.setDecimals(spec.decimals)
            w.setSingleStep(spec.step)
            w.valueChanged.connect(self._changed)
        elif spec.kind in ("cutoffs", "text"):
            w = QLineEdit()
            w.editingFinished.connect(self._changed)
            w.textEdited.connect(lambda _t: self._debounce.start())
        elif spec.kind == "file":
            w = _FileField()
            w.changed.connect(self._changed)
        else:  # pragma: no cover - a programming error in a panel
            raise ValueError(spec.kind)
        w.setToolTip(tip)
        w.setObjectName(spec.name)
        label = QLabel(spec.label)
        label.setToolTip(tip)
        self.form.addRow(label, w)
        self._controls[spec.name] = _Control(spec, w, label)

    def control(self, name: str) -> QWidget:
        return self._controls[name].widget

    def _current_form(self) -> str | None:
        if "form" in self._controls:
            return self._controls["form"].widget.currentData()
        return None

    def _update_visibility(self) -> None:
        form = self._current_form()
        for ctl in self._controls.values():
            visible = not ctl.spec.forms or form in ctl.spec.forms
            ctl.widget.setVisible(visible)
            ctl.row_label.setVisible(visible)

    # -- data and options ------------------------------------------------------------------------
    def form_for_roles(self, roles: dict[str, str]) -> str | None:
        """Hook: the input form (for panels with several) that these column roles suggest."""
        return None

    def set_data(self, table, roles: dict[str, str]) -> None:
        """A new table (or new roles): pick the form, refill the column choices and run."""
        wanted = self.form_for_roles(roles)
        if wanted is not None and "form" in self._controls:
            combo = self._controls["form"].widget
            self._loading = True
            combo.setCurrentIndex(combo.findData(wanted))
            self._loading = False
            self._update_visibility()
        if table is not self.table:  # another file: nothing of the previous one stays on screen
            self.clear_results()
        self.table = table
        self.roles = dict(roles)
        columns = [str(c) for c in table.frame.columns] if table is not None else []
        self._loading = True
        try:
            for ctl in self._controls.values():
                if ctl.spec.kind != "column":
                    continue
                combo: QComboBox = ctl.widget  # type: ignore[assignment]
                previous = combo.currentData()
                combo.clear()
                auto = self._auto_column(ctl.spec)
                # the column's name first: where a narrow column cuts the text, "(automatic)" goes
                combo.addItem(f"{auto} {AUTO}" if auto else (AUTO if not ctl.spec.optional else NONE), None)
                for col in columns:
                    combo.addItem(col, col)
                if previous in columns:
                    combo.setCurrentIndex(combo.findData(previous))
        finally:
            self._loading = False
        self.refresh_dependent_choices()
        self.fit_options_width()
        if self.table is not None or not self.NEEDS_DATA:
            self.run_now()

    def refresh_dependent_choices(self) -> None:
        """Hook for choices that depend on the data (e.g. system names)."""

    def _auto_column(self, spec: Field) -> str | None:
        for role in spec.roles:
            for col, r in self.roles.items():
                if r == role:
                    return col
        return None

    def options(self):
        """The analysis's Options from the form's current state."""
        form = self._current_form()
        names = {f.name for f in fields(self.module.Options)}
        kwargs: dict[str, Any] = {}
        for name, ctl in self._controls.items():
            spec = ctl.spec
            if name not in names or (spec.forms and form not in spec.forms):
                continue
            kwargs[name] = self._value_of(ctl)
        return self.module.Options(**kwargs)

    def _value_of(self, ctl: _Control):
        spec, w = ctl.spec, ctl.widget
        if spec.kind == "column":
            chosen = w.currentData()
            return chosen if chosen is not None else self._auto_column(spec)
        if spec.kind == "choice":
            return w.currentData()
        if spec.kind == "bool":
            return w.isChecked()
        if spec.kind == "int":
            return int(w.value())
        if spec.kind == "float":
            return float(w.value())
        if spec.kind == "cutoffs":
            return w.text().strip()
        if spec.kind == "text":
            text = w.text().strip()
            return text or None
        if spec.kind == "file":
            return w.path() or None
        raise ValueError(spec.kind)  # pragma: no cover

    def reset_for_new_file(self) -> None:
        """Another file is opened (not a session): no choice made on the previous file decides
        the analysis of this one.  Column choices go back to automatic (the new file's roles),
        a judgments (qrels) file to none, and the panel-only settings (a difference that
        matters, a latency limit, a currency symbol) to their defaults.  The conventions (k, seeds, resamples)
        stay: they are stated in every result's signature."""
        if not self.NEEDS_DATA:
            return
        options_fields = {f.name for f in fields(self.module.Options)}
        self._loading = True
        try:
            for name, ctl in self._controls.items():
                kind, w = ctl.spec.kind, ctl.widget
                if kind == "column":
                    if w.count():
                        w.setCurrentIndex(0)
                elif kind == "file":
                    w.set_path("")
                elif name not in options_fields and ctl.spec.default is not None:
                    self._set_value(ctl, ctl.spec.default)
                elif name not in options_fields and kind == "text":  # a currency symbol
                    w.setText("")
        finally:
            self._loading = False
        self.on_new_file()

    def on_new_file(self) -> None:
        """Hook: panel-specific choices of the previous file (Compare's systems)."""

    def set_options(self, options) -> None:
        """Show saved options in the form (session restore)."""
        self._loading = True
        try:
            for name, ctl in self._controls.items():
                if not hasattr(options, name):
                    continue
                self._set_value(ctl, getattr(options, name))
            if "form" in self._controls:
                self._set_value(self._controls["form"], self.form_of(options))
        finally:
            self._loading = False
        self._update_visibility()

    def form_of(self, options) -> str | None:
        """Which form (for panels with several input shapes) these options use."""
        return None

    def _set_value(self, ctl: _Control, value) -> None:
        spec, w = ctl.spec, ctl.widget
        if spec.kind in ("column", "choice"):
            idx = w.findData(value)
            if idx < 0 and spec.kind == "column" and value is not None:
                w.addItem(str(value), value)
                idx = w.count() - 1
            w.setCurrentIndex(max(idx, 0))
        elif spec.kind == "bool":
            w.setChecked(bool(value))
        elif spec.kind in ("int", "float"):
            if value is not None:
                w.setValue(value)
        elif spec.kind == "cutoffs":
            w.setText(",".join(map(str, value)) if isinstance(value, (list, tuple)) else str(value))
        elif spec.kind == "text":
            w.setText("" if value is None else str(value))
        elif spec.kind == "file":
            w.set_path(value or "")

    def _changed(self, *_args) -> None:
        if self._loading or self.closed:
            return
        self.options_changed.emit()
        if self.table is not None or not self.NEEDS_DATA:
            self._debounce.start()

    # -- running ---------------------------------------------------------------------------------
    def run_now(self) -> None:
        self._debounce.stop()
        if self.closed or (self.NEEDS_DATA and self.table is None):
            return
        missing = self.missing_columns()
        self._set_applicable(self.reason_not_applicable(missing))
        if missing:
            self.runner.cancel()
            self.clear_results()
            self._show_message(self.not_applicable + " Choose the column on the left, or set its "
                               "role in the Columns list.")
            return
        reason = self.precheck()
        if reason:  # the data cannot give this analysis (one system to compare): said, not red
            self._set_applicable(reason)
            self.runner.cancel()
            self.clear_results()
            self._show_message(reason)
            return
        try:
            options = self.options()
        except WorkbenchError as err:
            self._show_error(str(err))
            return
        table, module = self.table, self.module
        self._running_sha256 = getattr(table, "sha256", None) if table is not None else None
        self._show_message("")  # what was said of other data or options is not about this run
        self.busy.start(f"Computing {module.TITLE.lower()}…")
        self.runner.start(lambda progress: module.run(table, options, progress))

    def precheck(self) -> str:
        """Hook: "" when the analysis can run on the data with these options, else the
        sentence saying why not (a quick look, on the GUI thread; not the analysis's checks)."""
        return ""

    def missing_columns(self) -> list[str]:
        """Labels of the required column fields (of the current form) that resolve to nothing."""
        if not self.NEEDS_DATA or self.table is None:
            return []
        form = self._current_form()
        out = []
        for ctl in self._controls.values():
            spec = ctl.spec
            if spec.kind != "column" or spec.optional or (spec.forms and form not in spec.forms):
                continue
            if self._value_of(ctl) is None:
                out.append(spec.label.lower())
        return out

    def shutdown(self) -> None:
        """The panel goes (its window closes): its debounce timer stops, its run is cancelled
        and detached (a worker still running reports nothing), and nothing starts again."""
        self.closed = True
        self._debounce.stop()
        self.runner.detach()

    def cancel(self) -> None:
        self.runner.cancel()
        self._show_message("Cancelled; the results shown are from the previous run."
                           if self.last_result else "Cancelled.")

    def _on_busy(self, busy: bool) -> None:
        if not busy:
            self.busy.stop()

    def reason_not_applicable(self, missing: list[str]) -> str:
        if not missing:
            return ""
        return f"This analysis needs a column for: {', '.join(missing)}; the data has none with that role."

    def _set_applicable(self, reason: str) -> None:
        if reason != self.not_applicable:
            self.not_applicable = reason
            self.applicability_changed.emit(reason)

    def clear_results(self, message: str = "") -> None:
        """Take every number off the panel (another file, or the panel cannot run on it)."""
        self.last_result = None
        self.last_input_sha256 = None
        self.headline.frame_model().set_frame(pd.DataFrame())
        self.notes.setText("")
        self.notes_scroll.setVisible(False)
        self.signature.setText("")
        self.card.clear(message)
        for chart in self.charts:
            chart.reset()
            self.tabs.setTabVisible(self.tabs.indexOf(chart), False)
        for view in self._table_views.values():
            view.frame_model().set_frame(pd.DataFrame())
            self.tabs.setTabVisible(self.tabs.indexOf(view), False)
        self.tabs.setCurrentIndex(0)
        self._show_message("")  # the card says what there is to say
        self.on_cleared()
        self.cleared.emit()

    def on_cleared(self) -> None:
        """Hook: panel-specific widgets that show a result (Compare's discordant button)."""

    def _on_failed(self, error: object, details: str) -> None:
        if self.last_input_sha256 != self._running_sha256:
            self.clear_results()  # a failed run on another file: no numbers from the old one
        super()._on_failed(error, details)

    def _on_result(self, result: AnalysisResult) -> None:
        self.last_result = result
        self.last_input_sha256 = self._running_sha256
        self.last_error = None
        self._show_message("")
        self.render(result)
        self.result_ready.emit(result)

    # -- rendering -------------------------------------------------------------------------------
    def render(self, result: AnalysisResult) -> None:
        currency = self.currency()
        ans = presenting.answer(result, currency)
        if ans is not None:
            self.card.set_answer(*self.answer_for_card(result, tuple(ans.sentences), ans.badge, ans.tone))
        else:
            self.card.clear()
        frame, formats, tips, headers, labels = headline_frame(result)
        self.headline.frame_model().currency = currency
        self.headline.frame_model().set_frame(frame, formats, tips, headers, labels)
        for c, name in enumerate(frame.columns):  # in the measure's label (and in a copy)
            self.headline.setColumnHidden(c, name in QUALIFIERS)
        self.headline.fit_columns(max_width=self._column_cap())
        self.headline.wrap_text()  # a long measure name wraps, never "Wins (candidat...)"
        self.notes.setText(notes_html([self._gui_words(n) for n in result.notes]))
        self.notes_scroll.setVisible(bool(result.notes))
        self.signature.setText(result.signature)
        self.signature.setCursorPosition(0)
        self.configure_charts()
        for chart in self.charts:
            shown = chart.applies(result)
            self.tabs.setTabVisible(self.tabs.indexOf(chart), shown)
            if shown:
                chart.update_from(result)
        names = set()
        for tab in result.tables:
            names.add(tab.name)
            view = self._table_views.get(tab.name)
            if view is None:
                view = TableView(FrameModel())
                view.setObjectName(f"table:{tab.name}")
                self._table_views[tab.name] = view
                label = short_title(tab.title)
                self.tabs.addTab(view, label.replace("&", "&&"))
            kinds, headers = table_formats(result, tab)
            view.frame_model().currency = currency
            view.frame_model().set_frame(tab.frame, kinds, tab.columns, headers)
            view.fit_columns(max_width=self._column_cap())
            view.setToolTip(tab.title)
            self.tabs.setTabVisible(self.tabs.indexOf(view), True)
        for name, view in self._table_views.items():
            if name not in names:
                self.tabs.setTabVisible(self.tabs.indexOf(view), False)

    def answer_for_card(self, result, sentences: tuple, badge: str, tone: str):
        """Hook: what only the panel knows added to the answer (the measure an outcome column
        holds); returns (sentences, badge, tone)."""
        return sentences, badge, tone

    def set_presentation(self, on: bool) -> None:
        """Presentation mode: the options column folds into a drawer, the answer shows largest."""
        self.presentation = on
        self.drawer_button.blockSignals(True)
        self.drawer_button.setChecked(False)
        self.drawer_button.blockSignals(False)
        self.drawer_button.setVisible(on)
        self.options_scroll.setVisible(not on)
        self.card.set_scale(1.5 if on else 1.0)

    def _stretch_measure(self) -> None:
        from PySide6.QtWidgets import QHeaderView

        header = self.headline.horizontalHeader()
        for c in range(header.count()):
            header.setSectionResizeMode(c, QHeaderView.ResizeMode.Stretch if c == 0
                                        else QHeaderView.ResizeMode.Interactive)

    def currency(self) -> str | None:
        """Hook: a currency symbol chosen for costs (None: the file's units)."""
        return None

    def fit_options_width(self) -> None:
        """The options column as wide as its labels and its widest choice (a combo's closed
        text is never cut: "(automatic): quer"), up to a third of the window; the splitter gives it
        that room and the results the rest."""
        from PySide6.QtWidgets import QAbstractSpinBox, QComboBox

        fm = self.fontMetrics()
        label_w = label_short = field_w = 0
        for ctl in self._controls.values():
            label_w = max(label_w, fm.horizontalAdvance(ctl.row_label.text()))
            # where room is short a long label goes above its field (the form wraps long rows)
            label_short = max(label_short, min(fm.horizontalAdvance(ctl.row_label.text()),
                                               fm.averageCharWidth() * 22))
            w = ctl.widget
            if isinstance(w, QComboBox):
                texts = [w.itemText(i) for i in range(w.count())] or [""]
                need = max(fm.horizontalAdvance(t) for t in texts) + 52  # frame and arrow
            elif isinstance(w, QAbstractSpinBox):
                need = w.sizeHint().width()
            else:
                need = 0
            field_w = max(field_w, need)
        window = self.window().width() if self.window() is not None else 0
        cap = max(320, int(window * 0.34)) if window > 400 else 440
        want = label_w + field_w + 70  # form spacing, group box and scroll margins
        if want > cap:
            want = label_short + field_w + 70
        width = max(300, min(want, cap))
        self.options_scroll.setMinimumWidth(width)
        sizes = self.splitter.sizes()
        if len(sizes) == 2 and sum(sizes) > 0 and sizes[0] < width:
            self.splitter.setSizes([width, max(200, sum(sizes) - width)])

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        self.fit_options_width()

    def _column_cap(self) -> int:
        """The widest a result column gets (text is elided in the middle beyond it)."""
        return max(160, min(420, self.fontMetrics().averageCharWidth() * 36))

    def configure_charts(self) -> None:
        """Hook: pass panel-only settings (a release margin, a latency limit) to the charts."""

    def chart(self, cls_name: str):
        """The chart of this class name (for tests)."""
        for chart in self.charts:
            if type(chart).__name__ == cls_name:
                return chart
        raise KeyError(cls_name)

    def result_table(self, name: str) -> TableView:
        """The view showing result table ``name`` (for tests and actions)."""
        view = self.findChild(TableView, f"table:{name}")
        if view is None:
            raise KeyError(name)
        return view


def short_title(title: str, limit: int = 26) -> str:
    """A result table's tab title: whole up to ``limit`` characters, else cut at a word."""
    if len(title) <= limit:
        return title
    cut = title[:limit - 1].rsplit(" ", 1)[0].rstrip(",;:-–— ")
    return (cut if len(cut) >= limit // 2 else title[:limit - 1]) + "…"


def _combo() -> QComboBox:
    combo = QComboBox()
    combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
    combo.setMinimumContentsLength(10)
    return combo


class _FileField(QWidget):
    changed = Signal()

    def __init__(self) -> None:
        super().__init__()
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.edit = QLineEdit()
        self.edit.setPlaceholderText("none")
        self.edit.editingFinished.connect(self.changed)
        browse = QPushButton("…")
        browse.setFixedWidth(32)
        browse.clicked.connect(self._browse)
        clear = QPushButton("×")
        clear.setFixedWidth(28)
        clear.clicked.connect(lambda: (self.edit.clear(), self.changed.emit()))
        layout.addWidget(self.edit, 1)
        layout.addWidget(browse)
        layout.addWidget(clear)

    def _browse(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Judgments (qrels) file", "",
                                              "Tables (*.csv *.tsv *.txt *.xlsx *.parquet);;All files (*)")
        if path:
            self.edit.setText(path)
            self.changed.emit()

    def path(self) -> str:
        return self.edit.text().strip()

    def set_path(self, path: str) -> None:
        self.edit.setText(path)


#: the answer's columns first (value, n, interval), so n is on screen without scrolling
HEADLINE_KEYS = ("metric", "value", "n", "ci_low", "ci_high", "system", "group", "version", "k", "from", "to")
HEADLINE_HEADERS = {"metric": "Measure", "system": "System", "group": "Group", "version": "Version",
                    "k": "k", "from": "From", "to": "To", "value": "Value", "n": "n",
                    "ci_low": "95% CI low", "ci_high": "95% CI high"}


def headline_frame(result: AnalysisResult):
    """The result's records as a table: display names (the metric id in the tooltip and in a
    copy), the value, its n right after it, its interval; each row's number kind from the
    presentation policy.  Returns (frame, formats, tooltips, headers, labels)."""
    from ...report import present

    rows = [{k: r.get(k) for k in HEADLINE_KEYS} for r in result.records]
    frame = pd.DataFrame(rows, columns=list(HEADLINE_KEYS))
    keep = [c for c in HEADLINE_KEYS if c in ("metric", "value") or frame[c].notna().any()]
    frame = frame[keep].copy()
    pairs = {(r.get("from"), r.get("to")) for r in result.records
             if r.get("from") is not None or r.get("to") is not None}
    # Compare is about one pair: it is said once, in the header, not on every row
    common = next(iter(pairs)) if len(pairs) == 1 and result.analysis == "compare" else None
    labels = {"metric": [measure_label(present.display_name(r["metric"]),
                                       {k: v for k, v in r.items() if common is None or k not in ("from", "to")})
                         for r in result.records]}
    kinds, tips = [], []
    for r in result.records:
        kinds.append(present.record_kind(result, r))
        try:
            formula = spec_for(r["metric"]).formula
        except KeyError:
            formula = ""
        tips.append(f"{r['metric']}" + (f": {formula}" if formula else ""))
    formats: dict[str, Any] = {"value": kinds, "ci_low": kinds, "ci_high": kinds, "n": "count", "k": "count"}
    tooltips = {"metric:cells": tips, "value:cells": tips,
                "n": "the denominator: the items, queries, tasks or requests the value is computed over",
                "ci_low": "95% interval, low", "ci_high": "95% interval, high"}
    headers = dict(HEADLINE_HEADERS)
    if common is not None:
        headers["metric"] = f"Measure ({common[0]} → {common[1]})"
    return frame, formats, tooltips, headers, labels


#: record keys that qualify a measure: shown in its label (their columns stay in a copy)
QUALIFIERS = ("system", "group", "version", "k", "from", "to")


def measure_label(name: str, rec: dict) -> str:
    """``Success rate — A``, ``Wins (candidate only) — baseline → candidate``: the qualifiers
    in the label, so the value, its n and its interval are the next columns on screen."""
    parts = [str(rec[k]) for k in ("system", "group", "version") if rec.get(k) is not None]
    if rec.get("from") is not None or rec.get("to") is not None:
        parts.append(f"{rec.get('from', '')} → {rec.get('to', '')}")
    return f"{name} — {' · '.join(parts)}" if parts else name


def table_formats(result: AnalysisResult, tab) -> tuple[dict, dict]:
    """A result table's column kinds and display names, by the presentation policy."""
    from ...report import present

    kinds = {str(col): kind for col, kind in present.table_kinds(result, tab).items()}
    headers = {str(col): present.column_name(tab.name, col) for col in tab.frame.columns}
    return kinds, headers


def notes_html(notes) -> str:
    if not notes:
        return ""
    items = "".join(f"<li>{_escape(n)}</li>" for n in notes)
    return f"<b>Notes</b><ul style='margin-left:12px'>{items}</ul>"


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


__all__ = ["AnalysisPanel", "Field", "headline_frame", "notes_html"]
