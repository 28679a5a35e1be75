"""The workspace: the data table, one tab per analysis (from the catalogue) and the release rule.

It wires the panels to each other (Ranking and Text feed Compare; the registered rule draws its
bars on the charts), hands a new table to every panel, says which tab a new file lands on and
moves on when that panel cannot run, and gathers the panels' options and results for the
session and the report.  Importing it loads pandas, pyqtgraph and the analyses.

Started with files (``workbench RUN QRELS``), the window makes only the panel the files land on
before its answer, and the others once that answer is drawn, one per turn of the event loop
(``defer=True``): making eleven panels while the answer is computed took the computation's share
of the interpreter.  Until then ``panels`` holds the panels made so far; asking for one by name
(``panels["cost"]``, or its tab being clicked) makes it at once, and a panel made late is brought
to where the others are: the reading, the table and its roles, the session's options, the rule's
bars, presentation mode, Compare's sources (:meth:`Workspace._catch_up`).
"""

from __future__ import annotations

from PySide6.QtCore import QTimer, Signal
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QTabWidget, QWidget

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


class _Panels(dict):
    """The panels made so far, by name; one not made yet is made when asked for by name
    (``[]`` and ``get``), while ``in``, ``values()`` and ``items()`` see the made ones only."""

    def __init__(self, make) -> None:
        super().__init__()
        self._make = make

    def __missing__(self, name: str):
        if name in PANELS:
            return self._make(name)
        raise KeyError(name)

    def get(self, name, default=None):
        return self[name] if name in PANELS else default

    def made(self, name: str):
        """The panel if it is made, else None (it is not made by asking)."""
        return dict.get(self, name)

    def put(self, name: str, panel) -> None:
        """Add a panel made, keeping the tabs' order (the report's sheets follow it)."""
        dict.__setitem__(self, name, panel)
        ordered = [(n, dict.__getitem__(self, n)) for n in PANELS if dict.__contains__(self, n)]
        self.clear()
        self.update(ordered)


class Workspace(QTabWidget):
    options_changed = Signal()            # an option or the registered rule changed
    error = Signal(str, str)              # (summary, details) of an unexpected failure
    result_shown = Signal(object)         # a result drawn on every tab of its panel
    answer_shown = Signal(object)         # an answer on screen (its panel's other tabs follow)
    status = Signal(str, int)             # a message for the status bar, and for how long (ms)
    panel_made = Signal(object)           # a panel made after the workspace (the window watches it)

    def __init__(self, session_getter, parent=None, *, defer: bool = False) -> None:
        super().__init__(parent)
        self.setObjectName("workspaceTabs")
        self.data = DataView()
        self.addTab(self.data, "Data")
        self.panels = _Panels(self._make_panel)
        #: the tabs of the panels not made yet (``defer``), by name
        self._slots: dict[str, QWidget] = {}
        #: (panel, table) a new file landed on, until its first run is in (a failure moves on)
        self._landing = None
        self.table = None
        self.roles: dict[str, str] = {}
        #: the reading of the file every panel shares (the scorer, errors), made once
        self.reading = Reading()
        #: what a panel made late is brought to (see _catch_up)
        self._session, self._qrels, self._rule_shown, self._presenting = None, None, False, False
        self._swapping = False
        for name, (title, cls) in PANELS.items():
            if defer:
                slot = self._slots[name] = QWidget()
                slot.setObjectName(f"slot:{name}")
                self.addTab(slot, title)
                self.setTabToolTip(self.indexOf(slot), cls.module.TITLE)
            else:
                self._add_panel(name, title, cls())
                self._wire_compare(name)
        self.rule_panel = RulePanel(session_getter)
        self.rule_panel.setObjectName("panel:rule")
        for shown in (self.result_shown, self.answer_shown):  # the rule draws at once
            self.rule_panel.result_ready.connect(shown)
        self.rule_panel.registered.connect(self.options_changed)
        self.rule_panel.registered.connect(self.apply_rule_to_charts)
        self.rule_panel.error.connect(self.error)
        self.addTab(self.rule_panel, "Release rule")
        self.setUsesScrollButtons(True)
        self.currentChanged.connect(lambda _i: self._run_shown())

    def _add_panel(self, name: str, title: str, panel, at: int | None = None) -> None:
        panel.setObjectName(f"panel:{name}")
        panel.options_changed.connect(self.options_changed)
        # the panel says which rows these are (its rows_label, set as it asks)
        panel.select_rows.connect(lambda rows, p=panel: self.data.show_rows(rows, getattr(p, "rows_label", ""))
                                  or self.setCurrentWidget(self.data))
        panel.error.connect(self.error)
        panel.result_ready.connect(self.result_shown)
        panel.answer_shown.connect(self.answer_shown)
        panel.applicability_changed.connect(lambda reason, p=panel: self.mark_applicable(p, reason))
        panel.runner.failed.connect(lambda err, _d, n=name: self._landing_failed(n, err))
        panel.result_ready.connect(lambda _r, n=name: self._landing_done(n))
        self.panels.put(name, panel)
        if at is None:
            self.addTab(panel, title)
        else:
            self.insertTab(at, panel, title)
        self.setTabToolTip(self.indexOf(panel), panel.module.TITLE)

    def _wire_compare(self, name: str) -> None:
        """The Ranking per-query and Text per-item tables are offered to Compare as its metric
        while those panels have a result of two or more systems on the open file (wired when
        the later of the two is made; a source's result already in is offered at once)."""
        compare = self.panels.made("compare")
        if compare is None or (name != "compare" and name not in SOURCE_PANELS):
            return
        for source_name in SOURCE_PANELS if name == "compare" else (name,):
            source = self.panels.made(source_name)
            if source is None:
                continue
            source.result_ready.connect(
                lambda result, n=source_name, p=source: compare.set_source_result(n, result, p.last_input_sha256))
            source.cleared.connect(lambda n=source_name: compare.set_source_result(n, None))
            source.options_changed.connect(lambda n=source_name: compare.source_options_changed(n))
            source.runner.failed.connect(lambda _e, _d, n=source_name: compare.source_failed(n))
            if source.last_result is not None and source.table is self.table:
                compare.set_source_result(source_name, source.last_result, source.last_input_sha256)

    # -- panels made late ----------------------------------------------------------------------
    def _make_panel(self, name: str):
        """Make the panel ``name`` in its tab's place and bring it to where the others are."""
        title, cls = PANELS[name]
        slot = self._slots.pop(name)
        was_current = self.currentWidget() is slot
        panel = cls()
        self._swapping = True  # the tab changes below are not the user's
        try:
            self._add_panel(name, title, panel, self.indexOf(slot))
            self.removeTab(self.indexOf(slot))
            if was_current:
                self.setCurrentWidget(panel)
        finally:
            self._swapping = False
        slot.deleteLater()
        self._catch_up(name, panel)
        self._wire_compare(name)  # after its table: Compare takes a source of the open file only
        self.panel_made.emit(panel)
        return panel

    def _catch_up(self, name: str, panel) -> None:
        panel.reading = self.reading
        if self._presenting:
            panel.set_presentation(True)
        session = self._session
        if session is not None:
            self._apply_options_to(name, panel, session)
            if name == "compare":
                panel.set_source_setting(session.compare_source)
            elif name == "runs":
                panel.grid_view.set_setting(session.runs_grid)
        elif name == "ranking" and self._qrels and self.table is not None:
            panel.control("qrels").set_path(self._qrels)
        if self._rule_shown and name in ("compare", "cost"):  # the rule's bars drawn on the others
            self.apply_rule_to_charts()
        if self.table is not None and panel.NEEDS_DATA:
            panel.set_data(self.table, self.roles, run=not self.lazy() or panel is self.currentWidget())

    def build_rest(self) -> None:
        """Make the panels not made yet, one per turn of the event loop."""
        if self._slots:
            self.panels[next(iter(self._slots))]
        if self._slots:
            QTimer.singleShot(0, self, self.build_rest)

    # -- which tab -----------------------------------------------------------------------------
    def names(self) -> tuple[str, ...]:
        return (*PANELS, "rule", "data")

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
        """The panel on screen runs if the data changed while it was hidden (made first when
        it was not made yet)."""
        if self._swapping:
            return
        shown = self.currentWidget()
        slot = next((name for name, w in self._slots.items() if w is shown), None)
        if slot is not None:
            shown = self.panels[slot]
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
        return next((name for name, panel in [*self.panels.items(), *self._slots.items()] if panel is shown),
                    "data")

    def title_of(self, name: str) -> str:
        widget = self.panels.made(name) or self._slots[name]
        return self.tabText(self.indexOf(widget)).replace("&&", "&")

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
                      (p in PANELS and self.applies(p))), None)
        first = candidates[0] if candidates else None
        said = ""
        if first in PANELS and first != panel:  # the likeliest cannot run: say why, first
            said = f"{self.title_of(first)} cannot run on this file: {self.panels[first].not_applicable} "
        return panel, said

    def land(self, name: str | None, table) -> None:
        """Show the tab a new file landed on; a failure of its first run moves on."""
        self._landing = (name, table) if name in PANELS else None
        self.show(name)
        landed = self.panels[name] if name in PANELS else None
        if self._slots:  # the other panels once its answer is drawn
            if landed is not None:
                landed.runner.when_idle(lambda: QTimer.singleShot(0, self, self.build_rest))
            else:
                QTimer.singleShot(0, self, self.build_rest)

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
                    if p != name and p in PANELS and self.applies(p)), None)
        self.land(nxt, self.table)
        self.status.emit(f"{self.title_of(name)} cannot run on this file (its tab says why).", 15000)

    # -- the data ------------------------------------------------------------------------------
    def show_preview(self, table) -> None:
        """The first rows of a file being loaded; the panels' numbers were the previous file's."""
        for panel in list(self.panels.values()):
            panel.clear_results()
        self.data.set_table(table)
        self.setCurrentWidget(self.data)

    def set_table(self, table, roles: dict[str, str], session: Session | None, qrels: str | None,
                  *, rule_registered: bool = False) -> None:
        """A new table: the saved session's options (or a fresh start), then every panel runs."""
        close_large(self.table, table)
        self.table, self.roles = table, dict(roles)
        self._session, self._qrels = session, qrels
        self.data.set_table(table)
        if session is not None:
            self.apply_options(session)
        if "compare" in self.panels:  # chosen again once that panel's result on this file is in
            self.panels["compare"].set_source_setting(session.compare_source if session is not None else None)
        if "runs" in self.panels:  # the item grid's filter, once the Runs result is in
            self.panels["runs"].grid_view.set_setting(session.runs_grid if session is not None else None)
        colour_systems(table, roles)
        if session is None:  # another file: nothing chosen on the previous one decides its analyses
            for panel in list(self.panels.values()):
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
        for panel in list(self.panels.values()):
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
        for panel in list(self.panels.values()):
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
        self._session = session
        for name, panel in list(self.panels.items()):
            self._apply_options_to(name, panel, session)

    def _apply_options_to(self, name: str, panel, session: Session) -> None:
        if name in session.panels:
            panel.set_options(session.options_for(name, panel.module.Options))
        if name == "cost":  # display only; older sessions have none: the file's units
            panel.set_currency(session.currency)
        elif name == "judge":
            pairs = reading_from_json(session.reading).label_map
            panel.control("label_map").setText(",".join(f"{a}={b}" for a, b in pairs))

    def fill_session(self, session: Session) -> None:
        """The panels' part of a session being saved: options, currency, Compare's metric."""
        session.panels = {name: options_to_json(panel.options()) for name, panel in self.panels.items()
                          if panel.table is not None or not panel.NEEDS_DATA}
        cost = self.panels.made("cost")
        session.currency = cost.currency() if cost is not None else None
        compare = self.panels.made("compare")
        session.compare_source = compare.source_setting() if compare is not None else None
        runs = self.panels.made("runs")
        session.runs_grid = runs.grid_view.setting() if runs is not None and runs.table is not None else None
        judge = self.panels.made("judge")
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
        self._rule_shown = True
        compare, cost = self.panels.made("compare"), self.panels.made("cost")  # made later: on making
        for cond in rule.conditions:
            if cond.metric == "success" and cond.threshold_key in ("max_drop", "min_gain") and compare:
                _show_setting(compare, "margin", 100.0 * abs(cond.threshold))
            elif cond.metric == "latency_p95" and cond.threshold_key == "max" and cost:
                _show_setting(cost, "latency_threshold", cond.threshold)

    # -- presentation and closing ---------------------------------------------------------------
    def set_presentation(self, on: bool) -> None:
        self._presenting = on
        for panel in list(self.panels.values()):
            panel.set_presentation(on)
        self.rule_panel.set_presentation(on)

    def render_again(self) -> None:
        for panel in list(self.panels.values()):
            if panel.last_result is not None:
                panel.render(panel.last_result)

    def shutdown(self) -> None:
        for panel in list(self.panels.values()):
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
    from .charts.palette import reset_system_colours
    from .models import distinct_texts

    names: list[str] = []
    for col, role in roles.items():
        if role in ("system", "version") and col in table.frame.columns:
            names += distinct_texts(table, col, 50)
        elif role in ("baseline", "candidate"):
            names.append(col)
    reset_system_colours(names)


__all__ = ["Workspace", "colour_systems", "reading_from_json", "reading_to_json"]
