"""Issue 47: started with files, the window makes the panel they land on first and the other
panels once its answer is drawn (or when their tab is clicked first).  A panel made late must be
where it would have been had it been made with the window: same tab, same table, roles and
reading, the same "does not apply" greying, Compare offered Ranking's per-query table, the
window's undo history and presentation mode reaching it, a session's options applied."""

from __future__ import annotations

import os

import pytest
from PySide6.QtCore import QSettings, Qt

from tests.conftest import wait_result

pytestmark = pytest.mark.gui

TREC = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "fixtures", "formats", "trec"))
FILES = [os.path.join(TREC, "runA.run"), os.path.join(TREC, "runB.run"), os.path.join(TREC, "qrels.test.txt")]


def _window(qtbot, tmp_path, name: str, *, defer: bool):
    from workbench.ui.app import create_app
    from workbench.ui.main_window import MainWindow

    create_app()
    win = MainWindow(QSettings(str(tmp_path / f"{name}.ini"), QSettings.Format.IniFormat), lazy=True)
    win.defer_panels = defer  # as app.run sets it when the program is started with files
    win.warn = win.inform = lambda *_a: None
    win.ask_unsaved = lambda: "discard"
    qtbot.addWidget(win)
    win.show()
    return win


def _open(qtbot, win, files):
    with qtbot.waitSignal(win.table_loaded, timeout=30000):
        win.open_paths(files)


def _all_made(win) -> bool:
    return not win.workspace._slots


@pytest.fixture
def windows(qtbot, tmp_path):
    made = []

    def make(name: str, defer: bool):
        win = _window(qtbot, tmp_path, name, defer=defer)
        made.append(win)
        return win

    yield make
    for win in made:
        win.dirty = False
        win.shutdown()


def test_only_the_landing_panel_is_made_before_its_answer_then_every_other(qtbot, windows):
    from workbench.ui.panels import PANELS

    win = windows("deferred", True)
    _open(qtbot, win, FILES)
    ws = win.workspace
    assert win.current_panel_name() == "ranking"
    assert ws.panels.made("ranking") is not None
    assert ws.panels.made("cost") is None and ws.panels.made("runs") is None  # not made yet
    titles = [ws.tabText(i) for i in range(ws.count())]
    wait_result(qtbot, win.panels["ranking"])
    qtbot.waitUntil(lambda: _all_made(win), timeout=20000)
    assert [ws.tabText(i) for i in range(ws.count())] == titles  # each in its tab's place
    assert list(ws.panels) == list(PANELS) and ws.names()[:len(PANELS)] == tuple(PANELS)
    assert win.current_panel_name() == "ranking"

    eager = windows("eager", False)
    _open(qtbot, eager, FILES)
    wait_result(qtbot, eager.panels["ranking"])
    for name in PANELS:
        late, made = win.panels[name], eager.panels[name]
        assert ws.indexOf(late) == eager.workspace.indexOf(made), name
        assert late.table is ws.table or not late.NEEDS_DATA, name
        assert late.roles == made.roles and late.reading == made.reading, name
        assert late.not_applicable == made.not_applicable, name  # the tab greyed alike
        assert ws.tabToolTip(ws.indexOf(late)) == eager.workspace.tabToolTip(eager.workspace.indexOf(made)), name


def test_compare_made_after_ranking_is_offered_its_per_query_table(qtbot, windows):
    win = windows("deferred", True)
    _open(qtbot, win, FILES)
    ranking = win.panels["ranking"]
    wait_result(qtbot, ranking)
    qtbot.waitUntil(lambda: _all_made(win), timeout=20000)
    compare = win.panels["compare"]
    assert "ranking" in compare._sources  # two systems, paired by query: Ranking is a source
    assert compare._sources["ranking"] is ranking.last_result


def test_a_tab_clicked_before_its_panel_is_made_makes_it_and_shows_it(qtbot, windows):
    win = windows("deferred", True)
    _open(qtbot, win, FILES)
    ws = win.workspace
    slot = ws._slots.get("plan")
    assert slot is not None
    bar = ws.tabBar()
    qtbot.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(ws.indexOf(slot)).center())
    plan = ws.panels.made("plan")
    assert plan is not None and ws.currentWidget() is plan
    assert win.current_panel_name() == "plan"
    win.show_panel("cost")  # the View menu's way: made, shown, and it runs on the open file
    cost = ws.panels.made("cost")
    assert cost is not None and ws.currentWidget() is cost and cost.table is ws.table
    assert cost.not_applicable or cost.last_error or wait_result(qtbot, cost) is not None


def test_undo_history_and_presentation_reach_a_panel_made_late(qtbot, windows):
    from PySide6.QtGui import QUndoCommand

    win = windows("deferred", True)
    _open(qtbot, win, FILES)
    win.workspace.set_presentation(True)
    cost = win.panels["cost"]  # made now, by name
    assert cost.presentation is True
    before = win.history.stack.count()
    cost.edit_made.emit(QUndoCommand("a change on the late panel"))
    assert win.history.stack.count() == before + 1
    win.workspace.set_presentation(False)


def test_a_session_applied_before_a_panel_is_made_reaches_it(qtbot, tmp_path):
    from workbench.analyses import cost as cost_analysis
    from workbench.core.session import Session
    from workbench.io import load_table
    from workbench.io.roles import guess_roles
    from workbench.ui.workspace import Workspace

    from workbench.resources_path import resources_dir

    table = load_table(str(resources_dir() / "examples" / "cost_latency.csv"))
    roles = guess_roles(table)
    session = Session()
    session.set_options("cost", cost_analysis.Options(percentile_method="nearest_rank"))
    session.currency = "€"
    ws = Workspace(lambda: session, defer=True)
    qtbot.addWidget(ws)
    ws.set_table(table, roles, session, None)
    assert ws.panels.made("cost") is None
    cost = ws.panels["cost"]
    assert cost.options().percentile_method == "nearest_rank"
    assert cost.currency() == "€"
    assert cost.table is table
    ws.shutdown()
