"""The results side of a panel: the answer card, the headline table (value, n, interval), the
notes, the signature, the charts and one tab per result table; and how a result fills them."""

from __future__ import annotations

from typing import Any

import pandas as pd
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (QFrame, QHBoxLayout, QLabel, QLineEdit, QPushButton, QScrollArea,
                               QTabWidget, QVBoxLayout, QWidget)

from ...core.result import AnalysisResult
from ...metrics.registry import spec_for
from ..charts import CHARTS, chart_class
from ..models import FrameModel
from ..widgets import AnswerCard, BusyBar, TableView
from .conventions_tab import TABLE as CONVENTIONS, add_conventions_tab


def build_results_column(panel) -> QWidget:
    """The right-hand column of ``panel``; its parts become the panel's attributes."""
    right = QWidget()
    rl = QVBoxLayout(right)
    rl.setContentsMargins(4, 0, 0, 0)
    panel.busy = BusyBar()
    panel.busy.cancel_requested.connect(panel.cancel)
    top = QHBoxLayout()
    panel.drawer_button = QPushButton("Options ▸")
    panel.drawer_button.setObjectName("optionsDrawer")
    panel.drawer_button.setCheckable(True)
    panel.drawer_button.setToolTip("Show or hide the options and conventions.")
    panel.drawer_button.setAccessibleName("Options and conventions (show or hide)")
    panel.drawer_button.toggled.connect(lambda on: panel.options_scroll.setVisible(on))
    panel.drawer_button.setVisible(False)
    top.addWidget(panel.drawer_button, 0)
    top.addWidget(panel.busy, 1)
    top.addStretch(0)
    rl.addLayout(top)
    # the message and the answer card: laid out by the panel above both columns (the answer
    # takes the panel's width, so a long one is not cut on a small or 200% screen)
    panel.message = QLabel()
    panel.message.setWordWrap(True)
    panel.message.setObjectName("panelMessage")
    panel.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    panel.card = AnswerCard()
    panel.card.set_sources(signature=lambda: panel.signature.text(), table=lambda: panel.headline,
                           title=lambda: panel.module.TITLE)
    panel.tabs = QTabWidget()
    panel.tabs.setObjectName("resultTabs")
    panel.tabs.currentChanged.connect(lambda _i: draw_late(panel))  # a late tab clicked: drawn now
    panel.tabs.setAccessibleName("Results, charts and tables")
    panel.tabs.setUsesScrollButtons(True)  # many result tabs scroll; their titles are not cut
    panel.tabs.setElideMode(Qt.TextElideMode.ElideNone)
    panel.tabs.setDocumentMode(True)
    rl.addWidget(panel.tabs, 1)
    panel.headline = TableView()
    panel.headline.setObjectName("headline")
    # the measure's name takes the room left by value, n and interval (never the last column)
    panel.headline.horizontalHeader().setStretchLastSection(False)
    panel.headline.frame_model().modelReset.connect(lambda: stretch_measure(panel.headline))
    panel.notes = QLabel()
    panel.notes.setObjectName("notes")
    panel.notes.setWordWrap(True)
    panel.notes.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse
                                        | Qt.TextInteractionFlag.TextSelectableByKeyboard)
    panel.notes.setAccessibleName("Notes on the result")
    panel.notes.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
    summary = QWidget()
    sl = QVBoxLayout(summary)
    sl.setContentsMargins(0, 4, 0, 0)
    sl.addWidget(panel.headline, 3)
    notes_scroll = QScrollArea()
    notes_scroll.setWidgetResizable(True)
    notes_scroll.setFrameShape(QFrame.Shape.NoFrame)
    notes_scroll.setWidget(panel.notes)
    notes_scroll.setVisible(False)  # shown with notes: an empty box takes no room from the table
    panel.notes_scroll = notes_scroll
    sl.addWidget(notes_scroll, 1)
    panel.tabs.addTab(summary, "Results")
    # each chart's tab holds a stand-in until the panel first draws (:func:`ensure_charts`): a
    # plot widget takes tens of milliseconds to make, and a window has thirty of them
    panel.charts = [ChartSlot(cls) for cls in panel.CHARTS]
    for chart in panel.charts:
        panel.tabs.addTab(chart, chart.title)
        panel.tabs.setTabVisible(panel.tabs.indexOf(chart), False)
    add_conventions_tab(panel)
    panel._table_views: dict[str, TableView] = {}
    sig_row = QHBoxLayout()
    sig_row.addWidget(QLabel("Signature:"))
    panel.signature = QLineEdit()
    panel.signature.setReadOnly(True)
    panel.signature.setObjectName("signature")
    panel.signature.setToolTip("Every convention that produced these numbers.")
    panel.signature.setAccessibleName("Signature")
    panel.signature.setAccessibleDescription("Every convention that produced these numbers.")
    sig_row.addWidget(panel.signature, 1)
    rl.addLayout(sig_row)
    return right


class ChartSlot(QWidget):
    """A chart's place in the panel's tabs until the chart is made (:func:`ensure_charts`)."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name
        self.title = CHARTS[name][1]  # (the chart's module, and pyqtgraph, imported when made)

    def make(self):
        return chart_class(self.name)()

    def reset(self) -> None:
        """Nothing drawn yet: nothing to clear."""


def ensure_charts(panel) -> list:
    """The panel's charts, made now where their stand-ins still are (same tab, same place); the
    panel's ``charts_made()`` hook, if any, is called once they are."""
    if not any(isinstance(chart, ChartSlot) for chart in panel.charts):
        return panel.charts
    for i, chart in enumerate(panel.charts):
        if isinstance(chart, ChartSlot):
            made = chart.make()
            at = panel.tabs.indexOf(chart)
            shown = panel.tabs.isTabVisible(at)
            panel.tabs.removeTab(at)
            panel.tabs.insertTab(at, made, made.title)
            panel.tabs.setTabVisible(at, shown)
            chart.deleteLater()
            panel.charts[i] = made
    hook = getattr(panel, "charts_made", None)
    if hook is not None:
        hook()
    return panel.charts


#: the fewest average characters the measure's name is given (narrower: the table scrolls)
MEASURE_CHARS = 24


def stretch_measure(headline) -> None:
    """The measure's name takes the room left by value, n and interval, never less than
    :data:`MEASURE_CHARS` characters (a window half a screen wide showed only "…")."""
    headline.stretch_column(0, MEASURE_CHARS)


def clear_view(panel, message: str = "") -> None:
    """Every number off the results side: the card, the tables, the charts, the signature."""
    panel.headline.frame_model().set_frame(pd.DataFrame())
    panel.notes.setText("")
    panel.notes_scroll.setVisible(False)
    panel.signature.setText("")
    panel.card.clear(message)
    for chart in panel.charts:
        chart.reset()
        panel.tabs.setTabVisible(panel.tabs.indexOf(chart), False)
    for view in panel._table_views.values():
        view.frame_model().set_frame(pd.DataFrame())
        panel.tabs.setTabVisible(panel.tabs.indexOf(view), False)
    panel.tabs.setCurrentIndex(0)


def show_tables(panel, result: AnalysisResult, currency: str | None) -> None:
    """One tab per result table (made on first use, hidden when a result has no such table)."""
    names = set()
    for tab in result.tables:
        if tab.name == CONVENTIONS:
            continue  # shown on the Conventions tab
        names.add(tab.name)
        view = panel._table_views.get(tab.name)
        if view is None:
            view = TableView(FrameModel())
            view.setObjectName(f"table:{tab.name}")
            panel._table_views[tab.name] = view
            label = short_title(tab.title)
            panel.tabs.addTab(view, label.replace("&", "&&"))
        draw_tab(panel, view, lambda v=view, t=tab: _fill_table(panel, v, result, t, currency),
                 in_view=panel.tabs.currentWidget() is view)
        view.setToolTip(tab.title)
        panel.tabs.setTabVisible(panel.tabs.indexOf(view), True)
    for name, view in panel._table_views.items():
        if name not in names:
            panel.tabs.setTabVisible(panel.tabs.indexOf(view), False)


def _fill_table(panel, view, result: AnalysisResult, tab, currency: str | None) -> None:
    kinds, headers = table_formats(result, tab)
    view.frame_model().currency = currency
    view.frame_model().set_frame(present_frame(result, tab), kinds, tab.columns, headers)
    view.fit_columns(max_width=panel._column_cap())


def show_charts(panel, result: AnalysisResult) -> None:
    """Make the panel's charts (their modules and pyqtgraph imported the first time) and draw
    ``result`` on those it applies to (the others' tabs hidden).  While a new answer is put on
    screen (:func:`draw_answer_first`) with no chart in view, both wait until it is."""
    draw_tab(panel, "charts", lambda: _draw_charts(panel, result),
             in_view=panel.tabs.currentWidget() in panel.charts)


def _draw_charts(panel, result: AnalysisResult) -> None:
    ensure_charts(panel)
    panel.configure_charts()
    for chart in panel.charts:
        shown = chart.applies(result)
        panel.tabs.setTabVisible(panel.tabs.indexOf(chart), shown)
        if shown:
            chart.update_from(result)


def draw_tab(panel, key, draw, *, in_view: bool) -> None:
    """Draw a result tab (a table, or the charts; ``key`` names it) now; while a new answer is put on screen
    (:func:`draw_answer_first`), one not ``in_view`` is drawn once the answer is."""
    later = getattr(panel, "_later", None)
    if later is None or in_view:
        draw()
    else:
        later[key] = draw


def draw_answer_first(panel, result: AnalysisResult) -> None:
    """Show a new result: the card, the headline and the tab in view first (``answer_shown``),
    then, at the next turn of the event loop (once that is on screen), the tabs not in view
    (:func:`draw_late`, then ``result_ready``): the answer does not wait for charts and tables
    nobody looks at yet.  A result replaced or cleared meanwhile is not drawn further."""
    panel._later = {}
    try:
        panel.render(result)
    finally:
        later, panel._later = panel._later, None
    panel._late = (result, later)
    panel.answer_shown.emit(result)
    if later:
        QTimer.singleShot(0, panel, lambda: draw_late(panel))
    else:
        draw_late(panel)


def draw_late(panel) -> None:
    """Draw now the tabs the answer on screen left for later (a tab clicked, a chart or a
    table asked for by name, the next turn of the event loop), then say ``result_ready``."""
    pending = getattr(panel, "_late", None)
    if pending is None:
        return
    panel._late = None
    result, later = pending
    if panel.last_result is result and not panel.closed:
        for draw in later.values():
            draw()
        panel.result_ready.emit(result)


def late_pending(panel) -> bool:
    """Whether the panel's answer is on screen with tabs still to draw (``result_ready`` to come)."""
    return getattr(panel, "_late", None) is not None


def present_frame(result: AnalysisResult, tab):
    """A result table as shown: intervals whose bounds read the same left empty."""
    from ...report import present

    return present.shown_frame(tab.frame, present.table_kinds(result, tab))


def short_title(title: str, limit: int = 26) -> str:
    """A result table's tab title: whole up to ``limit`` characters, else cut at a word."""
    if len(title) <= limit:
        return title
    cut = title[:limit - 1].rsplit(" ", 1)[0].rstrip(",;:-–— ")
    return (cut if len(cut) >= limit // 2 else title[:limit - 1]) + "…"


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

    shown = [r for r in result.records if r.get("convention") is None]  # those: the Conventions tab
    rows = [{k: r.get(k) for k in HEADLINE_KEYS} for r in shown]
    for row, r in zip(rows, shown):  # no interval shown as if certain (zero width, degenerate)
        if not present.bounds_shown(r, present.record_kind(result, r)):
            row["ci_low"] = row["ci_high"] = None
    frame = pd.DataFrame(rows, columns=list(HEADLINE_KEYS))
    keep = [c for c in HEADLINE_KEYS if c in ("metric", "value") or frame[c].notna().any()]
    frame = frame[keep].copy()
    pairs = {(r.get("from"), r.get("to")) for r in shown
             if r.get("from") is not None or r.get("to") is not None}
    # Compare is about one pair: it is said once, in the header, not on every row
    common = next(iter(pairs)) if len(pairs) == 1 and result.analysis == "compare" else None
    labels = {"metric": [measure_label(present.record_name(r),
                                       {k: v for k, v in r.items() if common is None or k not in ("from", "to")})
                         for r in shown]}
    kinds, tips = [], []
    for r in shown:
        kinds.append(present.record_kind(result, r))
        try:
            formula = spec_for(r["metric"]).formula
        except KeyError:
            formula = ""
        tips.append(f"{r['metric']}" + (f": {formula}" if formula else ""))
    formats: dict[str, Any] = {"value": kinds, "ci_low": kinds, "ci_high": kinds, "n": "count", "k": "count"}
    # each interval's method on its cells (a rate's Wilson or Clopper-Pearson, a bootstrap...),
    # and the t interval beside a bootstrap one (the table keeps the value, n and interval on screen)
    methods = [(r.get("ci_method") or "the signature's interval")
               + (f"; t interval {present.format_value(r['t_low'], kind)} to "
                  f"{present.format_value(r['t_high'], kind)}" if r.get("t_low") is not None else "")
               + (f"; {present.no_interval_reason(r, present.method_label(r.get('ci_method')))}"
                  if r.get("ci_low") is not None and not present.bounds_shown(r, kind) else "")
               for r, kind in zip(shown, kinds)]
    tooltips = {"metric:cells": tips, "value:cells": tips,
                "n": "the denominator: the items, queries, tasks or requests the value is computed over",
                "ci_low": "95% interval, low", "ci_high": "95% interval, high",
                "ci_low:cells": methods, "ci_high:cells": methods}
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
    headers = {str(col): present.column_name(tab.name, col, frame=tab.frame, description=tab.columns.get(col))
               for col in tab.frame.columns}
    return kinds, headers


def notes_html(notes) -> str:
    if not notes:
        return ""
    items = "".join(f"<li>{_escape(n)}</li>" for n in notes)
    return f"<b>Notes</b><ul style='margin-left:12px'>{items}</ul>"


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
