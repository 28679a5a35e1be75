"""The analysis panel: options on the left, results on the right.

A panel declares its form as a list of fields; the base class builds the widgets, turns them
into the analysis's frozen ``Options``, runs the analysis in the background (debounced, a new
run cancels the old one) and renders the :class:`AnalysisResult`: the headline records, the
notes, the signature, every result table, and the charts the panel draws.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import QComboBox, QSplitter, QVBoxLayout, QWidget

from ...analyses.reading import Reading, run_read
from ...core.errors import WorkbenchError
from ...core.result import AnalysisResult
from .. import accessibility, preload, presenting
from ..loading import large_file_reason
from .reading_columns import reading_column
from ..tasks import TaskRunner
from ..widgets import TableView
from .fields import AUTO, NONE, Control, Field, fit_options_width, set_value, value_of
from .conventions_tab import on_render
from .options_column import build_options_column
from .messages import PanelMessages
from .keyboard import KeyboardPanel
from .undoable import FormHistory
from .results_view import (QUALIFIERS, build_results_column, clear_view, draw_answer_first, draw_late,
                           ensure_charts, show_charts, headline_frame, notes_html, show_tables)

class AnalysisPanel(FormHistory, KeyboardPanel, PanelMessages, QWidget):
    """Base class: subclasses set ``module`` (the analysis), ``FIELDS`` and ``CHARTS``, and may
    override :meth:`form_for_roles`, :meth:`configure_charts` and :meth:`extra_actions`."""

    module: Any = None
    FIELDS: tuple[Field, ...] = ()
    #: names of chart classes (workbench.ui.charts.CHARTS), each a tab drawn from the result's tables
    CHARTS: tuple[str, ...] = ()
    NEEDS_DATA = True
    DEBOUNCE_MS = 350

    result_ready = Signal(object)  # the result drawn on every tab
    #: the answer on screen: the card, the headline and the tab in view (the others follow)
    answer_shown = Signal(object)
    #: "" when the panel can run on the loaded data, else the sentence saying why not
    applicability_changed = Signal(str)
    options_changed = Signal()
    #: every number was taken off the panel (another file, or it cannot run on the data)
    cleared = Signal()
    select_rows = Signal(object)   # source rows of the loaded table to show
    error = Signal(str, str)       # summary, details of an unexpected exception
    #: a change the user made to the form: a :class:`~.undoable.FormStep` for the window's history
    edit_made = Signal(object)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.table = None
        self.roles: dict[str, str] = {}
        #: the reading of the file every panel shares (scorer, errors), set by the workspace
        self.reading = Reading()
        self.last_result: AnalysisResult | None = None
        #: SHA-256 of the file the shown result was computed from (None: no file, or no result)
        self.last_input_sha256: str | None = None
        self._running_sha256: str | None = None
        self.not_applicable = ""
        self.last_error: str | None = None
        #: the data changed while the panel was not on screen (a large table): it runs when shown
        self.stale = False
        self._controls: dict[str, Control] = {}
        self._loading = False
        #: shut down (its window closes): no timer, no run, nothing reported any more
        self.closed = False
        self.runner = TaskRunner(self)
        self.runner.progressed.connect(lambda f, m: self.busy.advance(f, m))
        self.runner.finished.connect(self._on_result)
        self.runner.failed.connect(self._on_failed)
        self.runner.busy_changed.connect(lambda b: None if b else self.busy.stop())
        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(self.DEBOUNCE_MS)
        self._debounce.timeout.connect(self._record_typing)  # typed text that runs is a step
        self._debounce.timeout.connect(self.run_now)
        self._build()

    # -- layout --------------------------------------------------------------------------------
    def _build(self) -> None:
        outer = QVBoxLayout(self)
        outer.setContentsMargins(6, 6, 6, 6)
        split = QSplitter(Qt.Orientation.Horizontal)

        scroll = build_options_column(self)
        split.addWidget(scroll)

        split.addWidget(build_results_column(self))
        outer.addWidget(self.message)
        outer.addWidget(self.card)  # the answer first, the panel's whole width
        outer.addWidget(split, 1)
        split.setStretchFactor(0, 0)
        split.setStretchFactor(1, 1)
        split.setSizes([360, 900])
        split.setChildrenCollapsible(True)
        split.setMinimumHeight(160)  # a tall answer keeps its room on a short screen; the results scroll
        self.splitter = split
        self._show_message("Open a results file or an example to see results." if self.NEEDS_DATA else "")
        self.setAccessibleName(f"{self.module.TITLE} panel")
        accessibility.no_tab_traps(self)
        self.set_options(self.module.Options())
        self._loading = True
        for ctl in self._controls.values():
            if ctl.spec.default is not None:
                set_value(ctl, ctl.spec.default)
        self._loading = False
        self._update_visibility()
        accessibility.name_all(self)

    def extra_actions(self) -> list[QWidget]:
        """Widgets added under the Run button (e.g. Compare's 'show discordant items')."""
        return []

    def control(self, name: str) -> QWidget:
        return self._controls[name].widget

    def value(self, name: str):
        """The value of field ``name`` as the analysis gets it (a column left automatic: the
        column its role names)."""
        return value_of(self._controls[name], self._auto_column)

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

    def set_data(self, table, roles: dict[str, str], *, run: bool = True) -> None:
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
            self.run_now() if run else self.defer_run()

    def refresh_dependent_choices(self) -> None:
        """Hook for choices that depend on the data (e.g. system names)."""

    def _auto_column(self, spec: Field) -> str | None:
        found = reading_column(self.module.NAME, spec, self.table, self.roles)
        if found is not None:
            return found
        for role in spec.roles:
            for col, r in self.roles.items():
                if r == role:
                    return col
        # a log's chosen scorer of scores is the outcome of an analysis that reads scores only
        # there (Aggregation), as on the command line: never a column guessed by its name
        if spec.name == "outcome" and "success" in spec.roles and self.table is not None \
                and getattr(self.table, "evaluation", None) is not None \
                and "score" not in {f.name for f in fields(self.module.Options)}:
            return next((col for col, r in self.roles.items() if r == "score"), None)
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
            kwargs[name] = value_of(ctl, self._auto_column)
        return self.module.Options(**kwargs)

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
                    set_value(ctl, ctl.spec.default)
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
                set_value(ctl, getattr(options, name))
            if "form" in self._controls:
                set_value(self._controls["form"], self.form_of(options))
        finally:
            self._loading = False
        self._update_visibility()

    def form_of(self, options) -> str | None:
        """Which form (for panels with several input shapes) these options use."""
        return None

    def _changed(self, *_args) -> None:
        if self._loading or self.closed:
            return
        self._record_edit()
        self.options_changed.emit()
        if self.table is not None or not self.NEEDS_DATA:
            self._debounce.start()

    # -- running ---------------------------------------------------------------------------------
    def run_now(self) -> None:
        self._debounce.stop()
        self.stale = False
        if not self._can_run():
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
        self._running_options = options  # the result's options (its Conventions tab reruns them)
        reading, roles = self.current_reading(), dict(self.roles)
        ahead = preload.claim(module, table, options, reading, roles) if table is not None else None
        if ahead is not None:  # the same run, computed while the window was built: its answer
            self.runner.start(ahead.result)
            return
        self.runner.start(lambda progress: run_read(module, table, options, reading, roles, progress))

    def current_reading(self):
        """The reading this panel runs with: the workspace's (a panel may add its own part)."""
        return self.reading

    def _can_run(self) -> bool:
        """The quick checks before a run (columns there, the data fit for it); what stops the
        run is said in the panel and its tab."""
        if self.closed or (self.NEEDS_DATA and self.table is None):
            return False
        if self.NEEDS_DATA and large_file_reason(self.table, self.module):
            return self._cannot_run(large_file_reason(self.table, self.module))
        missing = self.missing_columns()
        self._set_applicable(self.reason_not_applicable(missing))
        if missing:
            self.runner.cancel()
            self.clear_results()
            self._show_message(self.not_applicable + " Choose the column on the left, or set its "
                               "role in the Columns list.")
            return False
        reason = self.precheck()
        if reason:  # the data cannot give this analysis (one system to compare): said, not red
            return self._cannot_run(reason)
        return True

    def _cannot_run(self, reason: str) -> bool:
        """Said in the panel and its tab (not red); nothing computes."""
        self._set_applicable(reason)
        self.runner.cancel()
        self.clear_results()
        self._show_message(reason)
        return False

    def defer_run(self) -> None:
        """A large table: only the quick checks now (the tab says whether the panel applies);
        the analysis runs when the panel is shown (:meth:`run_if_stale`)."""
        self._debounce.stop()
        self.runner.cancel()
        if self._can_run():
            self.stale = True
            self._show_message("This panel computes when it is shown (a large table: only the "
                               "panel on screen runs).")

    def run_if_stale(self) -> None:
        if self.stale:
            self.run_now()

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
            if value_of(ctl, self._auto_column) is None:
                out.append(spec.label.lower())
        return out

    def shutdown(self) -> None:
        """The panel goes (its window closes): its debounce timer stops, its run is cancelled
        and detached (a worker still running reports nothing), and nothing starts again."""
        self.closed = True
        self._debounce.stop()
        self.runner.detach()
        if getattr(self, "conventions_tab", None) is not None:
            self.conventions_tab.shutdown()

    def cancel(self) -> None:
        self.runner.cancel()
        self._show_message("Cancelled; the results shown are from the previous run."
                           if self.last_result else "Cancelled.")

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
        clear_view(self, message)
        on_render(self, None)
        self._show_message("")  # the card says what there is to say
        self.on_cleared()
        self.cleared.emit()

    def results_superseded(self) -> None:
        """An error replaces the result on screen (the report no longer holds it either)."""
        if self.last_result is not None:
            self.clear_results()

    def on_cleared(self) -> None:
        """Hook: panel-specific widgets that show a result (Compare's discordant button)."""

    def _on_failed(self, error: object, details: str) -> None:
        if self.last_input_sha256 != self._running_sha256:
            self.clear_results()  # a failed run on another file: no numbers from the old one
        super()._on_failed(error, details)

    def _on_result(self, result: AnalysisResult) -> None:
        self.last_result = result
        self.last_input_sha256 = self._running_sha256
        self.last_options = getattr(self, "_running_options", None)
        self.last_error = None
        self._show_message("")
        draw_answer_first(self, result)

    # -- rendering -------------------------------------------------------------------------------
    def render(self, result: AnalysisResult) -> None:
        currency = self.currency()
        ans = presenting.answer(result, currency)
        if ans is not None:
            self.card.set_answer(*self.answer_for_card(result, tuple(ans.sentences), ans.badge, ans.tone))
        else:
            self.card.clear()
        frame, formats, tips, headers, labels = headline_frame(result)
        with self.headline.one_rewrap():  # the rows' heights once, for the final widths
            self.headline.frame_model().currency = currency
            self.headline.frame_model().set_frame(frame, formats, tips, headers, labels)
            for c, name in enumerate(frame.columns):  # in the measure's label (and in a copy)
                self.headline.setColumnHidden(c, name in QUALIFIERS)
            self.headline.fit_columns(max_width=self._column_cap())
            self.headline.apply_stretch()  # the measure's room, now the others are fitted
            self.headline.wrap_text()  # a long measure name wraps, never "Wins (candidat...)"
        self.notes.setText(notes_html([self._gui_words(n) for n in result.notes]))
        self.notes_scroll.setVisible(bool(result.notes))
        self.signature.setText(result.signature)
        self.signature.setCursorPosition(0)
        show_charts(self, result)  # made with the first result to draw (after the answer)
        show_tables(self, result, currency)
        on_render(self, result)
        accessibility.no_tab_traps(self)  # result tables made on first use
        accessibility.name_all(self)

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

    def currency(self) -> str | None:
        """Hook: a currency symbol chosen for costs (None: the file's units)."""
        return None

    def fit_options_width(self) -> None:
        fit_options_width(self)

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        self.fit_options_width()

    def _column_cap(self) -> int:
        """The widest a result column gets (text is elided in the middle beyond it)."""
        return max(160, min(420, self.fontMetrics().averageCharWidth() * 36))

    def configure_charts(self) -> None:
        """Hook: pass panel-only settings (a release margin, a latency limit) to the charts."""

    def chart(self, cls_name: str):
        """The chart of this class name (for tests), drawn."""
        draw_late(self)
        for chart in ensure_charts(self):
            if type(chart).__name__ == cls_name:
                return chart
        raise KeyError(cls_name)

    def result_table(self, name: str) -> TableView:
        """The view showing result table ``name`` (for tests and actions), drawn."""
        draw_late(self)
        view = self.findChild(TableView, f"table:{name}")
        if view is None:
            raise KeyError(name)
        return view


__all__ = ["AnalysisPanel", "Field", "PanelMessages", "headline_frame", "notes_html"]
