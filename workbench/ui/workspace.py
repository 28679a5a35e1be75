"""The workspace: the data table, one tab per analysis (from the catalogue) and the release rule.

It wires the panels to each other (Ranking and Text feed Compare; the registered rule draws its
bars on the charts), hands a new table to every panel, says which tab a new file lands on and
moves on when that panel cannot run, and gathers the panels' options and results for the
session and the report.  Importing it loads pandas, pyqtgraph and the analyses.
"""

from __future__ import annotations

from PySide6.QtCore import QTimer, Signal
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QTabWidget

from ..analyses.reading import Reading, roles_for
from ..core.errors import WorkbenchError
from ..core.session import Session, options_to_json
from .dataview import DataView
from .landing import FORMAT_PANELS, content_panels, evaluation_panels, panels_for_roles
from .panels import PANELS
from .panels.compare import SOURCE_PANELS
from .panels.rule import RulePanel


#: Above this many rows a new table (or new roles) runs only the panel on screen; the others run
#: when their tab is shown (every panel at once on 1M rows is close to a minute of work).
LAZY_ROWS = 200_000


class Workspace(QTabWidget):
    options_changed = Signal()            # an option or the registered rule changed
    error = Signal(str, str)              # (summary, details) of an unexpected failure
    result_shown = Signal(object)
    status = Signal(str, int)             # a message for the status bar, and for how long (ms)

    def __init__(self, session_getter, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("workspaceTabs")
        self.data = DataView()
        self.addTab(self.data, "Data")
        self.panels: dict = {}
        #: (panel, table) a new file landed on, until its first run is in (a failure moves on)
        self._landing = None
        self.table = None
        self.roles: dict[str, str] = {}
        #: the reading of the file every panel shares (the scorer, errors), made once
        self.reading = Reading()
        for name, (title, cls) in PANELS.items():
            self._add_panel(name, title, cls())
        self._connect_compare_sources()
        self.rule_panel = RulePanel(session_getter)
        self.rule_panel.setObjectName("panel:rule")
        self.rule_panel.result_ready.connect(self.result_shown)
        self.rule_panel.registered.connect(self.options_changed)
        self.rule_panel.registered.connect(self.apply_rule_to_charts)
        self.rule_panel.error.connect(self.error)
        self.addTab(self.rule_panel, "Release rule")
        self.setUsesScrollButtons(True)
        self.currentChanged.connect(lambda _i: self._run_shown())

    def _add_panel(self, name: str, title: str, panel) -> None:
        panel.setObjectName(f"panel:{name}")
        panel.options_changed.connect(self.options_changed)
        # the panel says which rows these are (its rows_label, set as it asks)
        panel.select_rows.connect(lambda rows, p=panel: self.data.show_rows(rows, getattr(p, "rows_label", ""))
                                  or self.setCurrentWidget(self.data))
        panel.error.connect(self.error)
        panel.result_ready.connect(self.result_shown)
        panel.applicability_changed.connect(lambda reason, p=panel: self.mark_applicable(p, reason))
        panel.runner.failed.connect(lambda err, _d, n=name: self._landing_failed(n, err))
        panel.result_ready.connect(lambda _r, n=name: self._landing_done(n))
        self.panels[name] = panel
        self.addTab(panel, title)
        self.setTabToolTip(self.indexOf(panel), panel.module.TITLE)

    def _connect_compare_sources(self) -> None:
        """The Ranking per-query and Text per-item tables are offered to Compare as its metric
        while those panels have a result of two or more systems on the open file."""
        compare = self.panels.get("compare")
        if compare is None:
            return
        for name in SOURCE_PANELS:
            source = self.panels.get(name)
            if source is None:
                continue
            source.result_ready.connect(
                lambda result, n=name, p=source: compare.set_source_result(n, result, p.last_input_sha256))
            source.cleared.connect(lambda n=name: compare.set_source_result(n, None))
            source.options_changed.connect(lambda n=name: compare.source_options_changed(n))
            source.runner.failed.connect(lambda _e, _d, n=name: compare.source_failed(n))

    # -- which tab -----------------------------------------------------------------------------
    def names(self) -> tuple[str, ...]:
        return (*self.panels, "rule", "data")

    def show(self, name: str | None) -> None:  # noqa: A003 - the tab of this name
        if name == "rule":
            self.setCurrentWidget(self.rule_panel)
            return
        name = None if name == "data" else name
        self.setCurrentWidget(self.panels[name] if name else self.data)
        self._run_shown()
        if name == "plan" and self.panels["plan"].last_result is None:
            self.panels["plan"].run_now()

    def _run_shown(self) -> None:
        """The panel on screen runs if the data changed while it was hidden."""
        shown = self.currentWidget()
        if shown in self.panels.values():
            shown.run_if_stale()

    def lazy(self) -> bool:
        """Only the panel on screen computes (a table of more than :data:`LAZY_ROWS` rows, or a
        file read page by page)."""
        return self.table is not None and (len(self.table.frame) > LAZY_ROWS
                                           or getattr(self.table, "large", None) is not None)

    def current_name(self) -> str:
        shown = self.currentWidget()
        if shown is self.rule_panel:
            return "rule"
        return next((name for name, panel in self.panels.items() if panel is shown), "data")

    def title_of(self, name: str) -> str:
        return self.tabText(self.indexOf(self.panels[name])).replace("&&", "&")

    def mark_applicable(self, panel, reason: str) -> None:
        """A panel that cannot run on the data's columns is greyed in the tab bar, the reason
        in its tooltip (it stays clickable: choosing a column by hand may make it run)."""
        index = self.indexOf(panel)
        bar = self.tabBar()
        if reason:
            bar.setTabTextColor(index, self.palette().color(QPalette.ColorGroup.Disabled,
                                                            QPalette.ColorRole.WindowText))
            self.setTabToolTip(index, f"Does not apply to this data: {reason}")
        else:
            bar.setTabTextColor(index, QColor())
            self.setTabToolTip(index, panel.module.TITLE)

    def applies(self, name: str) -> bool:
        """False when the panel said it cannot run on the loaded data's columns."""
        return not self.panels[name].not_applicable

    def landing_panel(self, table, roles: dict[str, str], asked: str | None) -> tuple[str | None, str]:
        """(the tab a file opened by name lands on, a sentence when the likeliest panel cannot
        run on it): the panel asked for, the format's, the content's, the roles'."""
        candidates = ([asked] if asked is not None and asked != table.panel else []) + \
            evaluation_panels(table) + ([asked] if asked is not None and asked == table.panel else []) + \
            [p for p in (FORMAT_PANELS.get(table.format),) if p] + content_panels(table, roles) + \
            panels_for_roles(roles)
        panel = next((p for p in candidates if p in ("rule", "plan") or
                      (p in self.panels and self.applies(p))), None)
        first = candidates[0] if candidates else None
        said = ""
        if first in self.panels and first != panel:  # the likeliest cannot run: say why, first
            said = f"{self.title_of(first)} cannot run on this file: {self.panels[first].not_applicable} "
        return panel, said

    def land(self, name: str | None, table) -> None:
        """Show the tab a new file landed on; a failure of its first run moves on."""
        self._landing = (name, table) if name in self.panels else None
        self.show(name)
        if name in self.panels:  # its charts made while its first answer is computed
            QTimer.singleShot(0, self.panels[name], self.panels[name].prepare_charts)

    def _landing_done(self, name: str) -> None:
        if self._landing is not None and self._landing[0] == name:
            self._landing = None

    def _landing_failed(self, name: str, error) -> None:
        """The panel a new file landed on could not run on it (a user error, e.g. a run with
        no judgments): the first thing seen is not a red error.  The tab is greyed with the
        reason in its tooltip, and the workspace goes to the next panel that fits (else the data)."""
        landing, self._landing = self._landing, None
        if landing is None or landing[0] != name or landing[1] is not self.table \
                or not isinstance(error, WorkbenchError) or self.current_name() != name:
            return
        panel = self.panels[name]
        reason = panel._gui_words(str(error))
        panel._set_applicable(reason)
        panel._show_message(reason)  # the reason, in the panel's plain text (not red)
        nxt = next((p for p in panels_for_roles(self.roles)
                    if p != name and p in self.panels and self.applies(p)), None)
        self.land(nxt, self.table)
        self.status.emit(f"{self.title_of(name)} cannot run on this file (its tab says why).", 15000)

    # -- the data ------------------------------------------------------------------------------
    def show_preview(self, table) -> None:
        """The first rows of a file being loaded; the panels' numbers were the previous file's."""
        for panel in self.panels.values():
            panel.clear_results()
        self.data.set_table(table)
        self.setCurrentWidget(self.data)

    def set_table(self, table, roles: dict[str, str], session: Session | None, qrels: str | None,
                  *, rule_registered: bool = False) -> None:
        """A new table: the saved session's options (or a fresh start), then every panel runs."""
        close_large(self.table, table)
        self.table, self.roles = table, dict(roles)
        self.data.set_table(table)
        if session is not None:
            self.apply_options(session)
        if "compare" in self.panels:  # chosen again once that panel's result on this file is in
            self.panels["compare"].set_source_setting(session.compare_source if session is not None else None)
        if "runs" in self.panels:  # the item grid's filter, once the Runs result is in
            self.panels["runs"].grid_view.set_setting(session.runs_grid if session is not None else None)
        colour_systems(table, roles)
        if session is None:  # another file: nothing chosen on the previous one decides its analyses
            for panel in self.panels.values():
                panel.reset_for_new_file()
            if rule_registered:  # the registered rule's bars, said by the rule
                self.apply_rule_to_charts()
            if qrels and "ranking" in self.panels:
                self.panels["ranking"].control("qrels").set_path(qrels)
        self.set_roles(roles)
        self.rule_panel.set_data(table, roles)

    def set_reading(self, reading, *, run: bool = True) -> dict[str, str]:
        """The scorer or the error decision changed: every panel reads the file so (the chosen
        scorer's column takes the outcome or score role) and runs again; returns the roles."""
        self.reading = reading
        for panel in self.panels.values():
            panel.reading = reading
        self.rule_panel.reading = reading
        if self.table is None:
            return dict(self.roles)
        roles = roles_for(self.table, self.roles, reading)
        if run:
            self.set_roles(roles)
        else:
            self.roles = roles
        return roles

    def set_roles(self, roles: dict[str, str]) -> None:
        """The columns' roles changed: every panel that reads the data runs again."""
        self.roles = dict(roles)
        self.rule_panel.roles = dict(roles)
        if self.table is None:
            return
        lazy = self.lazy()
        for panel in self.panels.values():
            if panel.NEEDS_DATA:
                panel.set_data(self.table, roles, run=not lazy or panel is self.currentWidget())

    def back_to_table(self) -> None:
        """After a failed load whose preview replaced the data view: the file still open."""
        if self.table is not None:
            self.data.set_table(self.table)
            self.set_roles(self.roles)
        else:
            self.data.clear()

    # -- the session and the report -------------------------------------------------------------
    def apply_options(self, session: Session) -> None:
        for name, panel in self.panels.items():
            if name in session.panels:
                panel.set_options(session.options_for(name, panel.module.Options))
        if "cost" in self.panels:  # display only; older sessions have none: the file's units
            self.panels["cost"].set_currency(session.currency)
        judge = self.panels.get("judge")
        pairs = reading_from_json(session.reading).label_map
        if judge is not None:
            judge.control("label_map").setText(",".join(f"{a}={b}" for a, b in pairs))

    def fill_session(self, session: Session) -> None:
        """The panels' part of a session being saved: options, currency, Compare's metric."""
        session.panels = {name: options_to_json(panel.options()) for name, panel in self.panels.items()
                          if panel.table is not None or not panel.NEEDS_DATA}
        cost = self.panels.get("cost")
        session.currency = cost.currency() if cost is not None else None
        compare = self.panels.get("compare")
        session.compare_source = compare.source_setting() if compare is not None else None
        runs = self.panels.get("runs")
        session.runs_grid = runs.grid_view.setting() if runs is not None and runs.table is not None else None
        judge = self.panels.get("judge")
        session.reading = reading_to_json(judge.current_reading() if judge is not None else self.reading)

    def results(self) -> list:
        """Every result on screen, the decision card first (the report's summary leads with it)."""
        shown = [p.last_result for p in self.panels.values() if p.last_result is not None]
        if self.rule_panel.last_result is not None and self.rule_panel.last_result_registered:
            shown.insert(0, self.rule_panel.last_result)  # a draft (unregistered rule) is not reported
        return shown

    def apply_rule_to_charts(self) -> None:
        """Draw the registered rule's bars on the charts: the paired success margin as the
        band around zero, the p95 latency limit on the latency chart."""
        from ..rules import parse_rule

        try:
            rule = parse_rule(self.rule_panel.rule_text(), source="the rule editor")
        except WorkbenchError:
            return
        for cond in rule.conditions:
            if cond.metric == "success" and cond.threshold_key in ("max_drop", "min_gain"):
                _show_setting(self.panels["compare"], "margin", 100.0 * abs(cond.threshold))
            elif cond.metric == "latency_p95" and cond.threshold_key == "max":
                _show_setting(self.panels["cost"], "latency_threshold", cond.threshold)

    # -- presentation and closing ---------------------------------------------------------------
    def set_presentation(self, on: bool) -> None:
        for panel in self.panels.values():
            panel.set_presentation(on)
        self.rule_panel.set_presentation(on)

    def render_again(self) -> None:
        for panel in self.panels.values():
            if panel.last_result is not None:
                panel.render(panel.last_result)

    def shutdown(self) -> None:
        for panel in self.panels.values():
            panel.shutdown()  # its debounce timer too: it would start a run after this
        self.rule_panel.shutdown()
        self.data.shutdown()
        close_large(self.table, None)

    def wait(self) -> None:
        self.data.model.wait(30000)


def reading_to_json(reading) -> dict | None:
    """A reading as a session keeps it (None: the defaults)."""
    if reading.scorer is None and reading.errors == "exclude" and not reading.label_map:
        return None
    return {"scorer": reading.scorer, "errors": reading.errors,
            "label_map": [list(pair) for pair in reading.label_map]}


def reading_from_json(data) -> Reading:
    """A session's reading (older sessions, and a damaged entry: the defaults)."""
    if not isinstance(data, dict):
        return Reading()
    scorer = data.get("scorer") if isinstance(data.get("scorer"), str) else None
    errors = data.get("errors") if data.get("errors") in ("exclude", "fail") else "exclude"
    pairs = data.get("label_map") if isinstance(data.get("label_map"), list) else []
    label_map = tuple((str(p[0]), str(p[1])) for p in pairs if isinstance(p, (list, tuple)) and len(p) == 2)
    return Reading(scorer=scorer, errors=errors, label_map=label_map)


def _show_setting(panel, name: str, value) -> None:
    """A chart setting the registered rule decides (not saved, not an analysis option): set
    as the program sets a field (no undo step, no unsaved change), the charts drawn again."""
    panel._loading = True
    try:
        panel.control(name).setValue(value)
    finally:
        panel._loading = False
    if panel.last_result is not None:
        panel.render(panel.last_result)


def close_large(old, new) -> None:
    """The file read page by page of the table no longer open is closed (its DuckDB reader)."""
    large = getattr(old, "large", None)
    if large is not None and old is not new:
        large.paged.close()


def colour_systems(table, roles: dict[str, str]) -> None:
    """Each system (or version) of the new file gets its colour, in the file's order, for
    every chart of the session."""
    from .charts.base import reset_system_colours
    from .models import distinct_texts

    names: list[str] = []
    for col, role in roles.items():
        if role in ("system", "version") and col in table.frame.columns:
            names += distinct_texts(table, col, 50)
        elif role in ("baseline", "candidate"):
            names.append(col)
    reset_system_colours(names)


__all__ = ["Workspace", "colour_systems", "reading_from_json", "reading_to_json"]
