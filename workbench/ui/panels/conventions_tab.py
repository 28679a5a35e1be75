"""A panel's "Conventions" tab: the headline and its verdict under each alternative convention.

Computed lazily: only when the tab is shown, once per result, on a runner of its own (never on
the GUI thread, with progress and Cancel), from the panel's loaded table and the options of the
result shown.  The table lists every convention; the specification curve draws the headline with
its interval per convention, sorted.  When done, the panel's result carries the conventions
table (the report then gets its Conventions sheet) and the answer card its verdict line.
"""

from __future__ import annotations

import pandas as pd
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from ...analyses.conventions import ANALYSES, TABLE, with_conventions
from ..models import FrameModel
from ..tasks import TaskRunner
from ..widgets import BusyBar, TableView

class ConventionsTab(QWidget):
    """The tab's widget; ``panel`` is the AnalysisPanel it belongs to."""

    def __init__(self, panel) -> None:
        super().__init__()
        self.setObjectName("conventionsTab")
        self.panel = panel
        self.result = None       # the panel's result with its conventions table
        self._source = None      # the panel result it was (or is being) computed from
        self.runner = TaskRunner(self)
        self.busy = BusyBar()
        self.busy.cancel_requested.connect(self.cancel)
        self.runner.progressed.connect(self.busy.advance)
        self.runner.finished.connect(self._on_done)
        self.runner.failed.connect(self._on_failed)
        self.runner.busy_changed.connect(lambda b: None if b else self.busy.stop())
        self.status = QLabel("The conventions are computed when this tab is shown.")
        self.status.setWordWrap(True)
        self.status.setObjectName("conventionsStatus")
        self.view = TableView(FrameModel())
        self.view.setObjectName("table:conventions")
        self.metric_box = QComboBox()
        self.metric_box.currentIndexChanged.connect(self._redraw)
        self._chart = None       # the specification curve: made when first drawn (pyqtgraph is slow to build)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 0)
        layout.addWidget(self.busy)
        layout.addWidget(self.status)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.view)
        chart_box = QWidget()
        cl = QVBoxLayout(chart_box)
        cl.setContentsMargins(0, 0, 0, 0)
        row = QHBoxLayout()
        head = QLabel("Headline:")
        head.setBuddy(self.metric_box)  # its accessible name
        row.addWidget(head)
        row.addWidget(self.metric_box, 1)
        cl.addLayout(row)
        self._chart_layout = cl
        split.addWidget(chart_box)
        split.setSizes([240, 260])
        layout.addWidget(split, 1)

    @property
    def chart(self):
        """The specification curve (:mod:`workbench.ui.charts.specification`), made when first
        drawn (pyqtgraph is imported then, not with the panels)."""
        if self._chart is None:
            from ..charts.specification import SpecificationCurve

            self._chart = SpecificationCurve()
            self._chart_layout.addWidget(self._chart, 1)
        return self._chart

    # -- lazily, once per result ------------------------------------------------------------
    def ensure(self) -> None:
        """Start the computation for the panel's current result unless done or under way."""
        panel = self.panel
        source = panel.last_result
        if source is None or panel.table is None or source is self._source or source is self.result:
            return
        options = getattr(panel, "last_options", None)
        if getattr(panel, "shown_source", None) is not None:  # Compare on another panel's metric
            self.status.setText("The conventions are computed for a comparison read from the file; "
                                "this one compares another panel's per-unit metric: see that "
                                "panel's Conventions tab.")
            return
        if options is None:
            return
        self._source = source
        table = panel.table
        self.busy.start("Recomputing under each convention…")
        self.status.setText("Recomputing the headline under each convention…")
        self.runner.start(lambda progress: with_conventions(source, table, options, progress))

    def invalidate(self) -> None:
        """The panel shows another result (or none): what was computed is no longer about it."""
        self.runner.cancel()
        self.result, self._source = None, None
        self.view.frame_model().set_frame(pd.DataFrame())
        if self._chart is not None:
            self._chart.reset()
        self.metric_box.clear()
        self.status.setText("The conventions are computed when this tab is shown.")

    def cancel(self) -> None:
        self.runner.cancel()
        self._source = None
        self.status.setText("Cancelled; show the tab again to recompute.")

    def shutdown(self) -> None:
        self.runner.detach()

    def _on_done(self, result) -> None:
        panel = self.panel
        if panel.last_result is not self._source:
            return  # the panel moved on meanwhile
        self.result = result
        frame = result.table(TABLE).frame
        tab = result.table(TABLE)
        self.view.frame_model().set_frame(frame, dict(tab.formats), tab.columns)
        for c, name in enumerate(frame.columns):  # the convention's name says both
            self.view.setColumnHidden(c, name in ("changed", "setting", "default"))
        self.view.fit_columns(max_width=panel._column_cap())
        self.metric_box.blockSignals(True)
        self.metric_box.clear()
        self.metric_box.addItems(list(dict.fromkeys(frame["metric"].astype(str))))
        self.metric_box.blockSignals(False)
        self._redraw()
        extra = [n for n in result.notes if n.startswith("Conventions")]
        count = frame["convention"].nunique()
        judged = frame["holds"].notna().any()
        self.status.setText(f"{count} conventions, one changed at a time; "
                            + ("the answer card says under how many the verdict holds."
                               if judged else "one system: no verdict, the value and its interval."))
        self.status.setToolTip("\n".join(extra))
        _adopt(panel, result)

    def _on_failed(self, error, details: str) -> None:
        self._source = None
        self.status.setText(f"The conventions could not be computed: {error}")

    def _redraw(self, *_args) -> None:
        if self.result is None:
            return
        self.chart.metric = self.metric_box.currentText() or None
        self.chart.update_from(self.result)


def _adopt(panel, result) -> None:
    """The panel's result becomes the one with its conventions (the report's Conventions sheet)
    and the answer card gets the verdict line."""
    from .. import presenting

    panel.last_result = result
    ans = presenting.answer(result, panel.currency())
    if ans is not None:
        panel.card.set_answer(*panel.answer_for_card(result, tuple(ans.sentences), ans.badge, ans.tone))


def on_render(panel, result) -> None:
    """The panel shows ``result`` (None: nothing): the tab is shown for a result, invalidated
    for another one, and computed at once when it is the tab in view."""
    tab = getattr(panel, "conventions_tab", None)
    if tab is None:
        return
    if result is None or (result is not tab.result and result is not tab._source):
        tab.invalidate()
    panel.tabs.setTabVisible(panel.tabs.indexOf(tab), result is not None)
    if result is not None and panel.tabs.currentWidget() is tab:
        tab.ensure()


def add_conventions_tab(panel) -> None:
    """Give ``panel`` its Conventions tab when its analysis has a conventions table."""
    panel.conventions_tab = None
    name = getattr(panel.module, "NAME", None)
    if name not in ANALYSES:
        return
    tab = ConventionsTab(panel)
    panel.conventions_tab = tab
    panel.tabs.addTab(tab, "Conventions")
    panel.tabs.setTabVisible(panel.tabs.indexOf(tab), False)
    panel.tabs.currentChanged.connect(
        lambda i: tab.ensure() if panel.tabs.widget(i) is tab else None)
