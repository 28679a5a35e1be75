"""Issue 47: a new result puts the answer on screen first (the card, the headline and the tab in
view: ``answer_shown``), then, at the next turn of the event loop, the tabs nobody is looking at
(``result_ready``).  What is drawn late must equal what an at-once drawing gives; a tab in view is
never late; a result replaced before its late tabs are drawn leaves them to the new one."""

from __future__ import annotations

import os

import numpy as np
import pytest
from PySide6.QtCore import QSettings

from tests.conftest import wait_result

pytestmark = pytest.mark.gui

TREC = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "fixtures", "formats", "trec"))
FILES = [os.path.join(TREC, "runA.run"), os.path.join(TREC, "runB.run"), os.path.join(TREC, "qrels.test.txt")]


@pytest.fixture
def window(qtbot, tmp_path):
    from workbench.ui.app import create_app
    from workbench.ui.main_window import MainWindow

    create_app()
    win = MainWindow(QSettings(str(tmp_path / "w.ini"), QSettings.Format.IniFormat), lazy=True)
    win.warn = win.inform = lambda *_a: None
    win.ask_unsaved = lambda: "discard"
    qtbot.addWidget(win)
    win.show()
    yield win
    win.dirty = False
    win.shutdown()


def _table_rows(panel) -> dict[str, int]:
    return {name: view.model().rowCount() for name, view in panel._table_views.items()}


def _state(panel) -> dict:
    """What the panel shows now: the card's text, the headline's rows, each chart's plotted
    arrays (as lists) and each result table's cells as displayed."""
    from PySide6.QtCore import Qt

    def cells(view):
        model = view.model()
        return [[model.data(model.index(r, c), Qt.ItemDataRole.DisplayRole) for c in range(model.columnCount())]
                for r in range(model.rowCount())]

    plotted = {type(c).__name__: {k: {a: (np.asarray(v).tolist() if not isinstance(v, (str, bool)) else v)
                                      for a, v in arrays.items()}
                                  for k, arrays in c.plotted().items()}
               for c in panel.charts if hasattr(c, "plotted")}
    return {"card": panel.card.plain_text(),
            "headline": panel.headline.model().rowCount(), "charts": plotted,
            "tables": {name: cells(view) for name, view in panel._table_views.items()}}


def test_the_answer_is_shown_before_the_tabs_not_in_view_and_they_follow_equal(qtbot, window):
    with qtbot.waitSignal(window.table_loaded, timeout=30000):
        window.open_paths(FILES)
    panel = window.panels["ranking"]
    assert window.current_panel_name() == "ranking"
    seen = {}

    def at_answer(result):
        seen["result"] = result
        seen["current"] = panel.tabs.currentWidget()
        seen["headline"] = panel.headline.model().rowCount()
        seen["drawn"] = [c for c in panel.charts if hasattr(c, "plotted") and c.plotted()]
        seen["slots"] = sum(type(c).__name__ == "ChartSlot" for c in panel.charts)
        seen["tables"] = _table_rows(panel)

    panel.answer_shown.connect(at_answer)
    ready = qtbot.waitSignal(panel.result_ready, timeout=60000)
    ready.wait()
    result = ready.args[0]
    assert seen["result"] is result  # the answer came first, for the same result
    assert seen["headline"] > 0  # the headline was on screen with the answer
    assert all(c is not seen["current"] for c in panel.charts)  # the Results tab was in view
    assert seen["drawn"] == [] and seen["slots"] == len(panel.CHARTS)  # no chart made yet then
    assert seen["tables"] and not any(seen["tables"].values())  # nor any result table
    assert any(c.plotted() for c in panel.charts)  # then every tab drawn, before result_ready
    assert all(rows > 0 for rows in _table_rows(panel).values())

    late = _state(panel)
    panel.render(result)  # drawn at once, as a direct render does
    assert _state(panel) == late


def test_a_chart_in_view_is_drawn_with_the_answer(qtbot, window):
    with qtbot.waitSignal(window.table_loaded, timeout=30000):
        window.open_paths(FILES)
    panel = window.panels["ranking"]
    wait_result(qtbot, panel)
    curve = next(c for c in panel.charts if type(c).__name__ == "RankingCurveChart")
    panel.tabs.setCurrentWidget(curve)
    seen = {}
    panel.answer_shown.connect(lambda _r: seen.setdefault("curve", dict(curve.plotted())))
    with qtbot.waitSignal(panel.result_ready, timeout=60000):
        panel.control("ks").setText("1,5")  # another run, the curve's tab in view
        panel.control("ks").editingFinished.emit()
    assert seen["curve"]  # drawn for this result before the answer was said to be on screen
    assert {tuple(arrays["k"].tolist()) for arrays in seen["curve"].values() if "k" in arrays} == {(1.0, 5.0)}


def test_a_result_cleared_before_its_late_tabs_leaves_them_undrawn(qtbot, window):
    with qtbot.waitSignal(window.table_loaded, timeout=30000):
        window.open_paths(FILES)
    panel = window.panels["ranking"]
    ready = []
    panel.result_ready.connect(ready.append)
    qtbot.waitSignal(panel.answer_shown, timeout=60000).wait()
    panel.clear_results()  # before the next turn of the event loop
    qtbot.wait(200)
    assert ready == []  # the cleared result is never said to be drawn
    assert not any(_table_rows(panel).values())
    assert not any(c.plotted() for c in panel.charts if hasattr(c, "plotted"))


def test_the_chart_catalogue_names_each_chart_its_module_and_title():
    """Panels name their charts; the catalogue's module and tab title of each are the class's own
    (its title is the tab's text before the chart, and pyqtgraph, are loaded)."""
    import inspect

    from workbench.ui import charts
    from workbench.ui.charts.base import Chart
    from workbench.ui.panels import PANELS

    named = {name for _title, cls in PANELS.values() for name in cls.CHARTS}
    assert named and named <= set(charts.CHARTS)
    for name, (module, title) in charts.CHARTS.items():
        cls = charts.chart_class(name)
        assert inspect.isclass(cls) and issubclass(cls, Chart), name
        assert cls.__module__ == f"workbench.ui.charts.{module}" and cls.title == title, name
    made = {name for module in ("others", "intervals", "cost", "judge_rubric", "runs_repeats", "slices")
            for name, obj in vars(__import__(f"workbench.ui.charts.{module}", fromlist=["x"])).items()
            if inspect.isclass(obj) and issubclass(obj, Chart) and obj.__module__.endswith(module)
            and "title" in vars(obj)}
    assert made - {"IntervalChart"} <= set(charts.CHARTS)  # every titled chart is in the catalogue


def test_the_panels_are_imported_without_pyqtgraph():
    """pyqtgraph (0.2 s) is imported when a chart is first made, not with the window's panels."""
    import subprocess
    import sys

    code = ("import sys; import workbench.ui.workspace, workbench.ui.panels; "
            "print('pyqtgraph' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={**os.environ, "QT_QPA_PLATFORM": "offscreen"}, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


@pytest.mark.parametrize("imports_late", [False, True])
def test_a_cold_start_shows_the_answer_before_pyqtgraph_is_imported(imports_late):
    """`workbench RUN RUN QRELS` as a user starts it: from the launch to the Ranking answer on
    screen (its Results tab in view) nothing imports pyqtgraph, whose 0.2-0.3 s on the GUI
    thread would stand beside the answer being computed (the systems' colours were set through
    the charts' base module).  ``imports_late``: the background imports held back 3 s, so the
    file is read before them (a busy machine): the workspace made then defers its other panels
    too (it was made with every panel, and the Runs grid imported pyqtgraph)."""
    import subprocess
    import sys

    late = ("import time, workbench.ui.background_imports as bi\n"
            "work = bi.BackgroundImports._work\n"
            "bi.BackgroundImports._work = lambda self: (time.sleep(3), work(self))\n") if imports_late else ""
    code = ("import runpy, sys, threading, traceback\n" + late +
            "class Who:\n"  # the stack that first imports pyqtgraph, said if it came too early
            "    def find_spec(self, name, path=None, target=None):\n"
            "        if name == 'pyqtgraph' and not hasattr(self, 'stack'):\n"
            "            self.stack = threading.current_thread().name + ''.join(traceback.format_stack(limit=25))\n"
            "        return None\n"
            "who = Who(); sys.meta_path.insert(0, who)\n"
            "import workbench.ui.app as app\n"
            "report = app._report_times\n"
            "def times(window, timing):\n"
            "    def loaded(_table):\n"
            "        window.workspace.answer_shown.connect(\n"
            "            lambda _r: print('pyqtgraph at the answer:', 'pyqtgraph' in sys.modules,\n"
            "                             getattr(who, 'stack', ''), flush=True))\n"
            "    window.table_loaded.connect(loaded)\n"
            "    report(window, timing)\n"
            "app._report_times = times\n"
            f"sys.argv = ['workbench', *{FILES!r}]\n"
            "runpy.run_module('workbench', run_name='__main__')\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=180,
                         env={**os.environ, "QT_QPA_PLATFORM": "offscreen", "WORKBENCH_SMOKE": "answer"})
    assert out.returncode == 0, out.stderr[-3000:]
    assert "panel: ranking" in out.stdout, out.stdout
    assert "pyqtgraph at the answer: False" in out.stdout, out.stdout


def test_copy_chart_right_after_the_answer_copies_the_drawn_chart(qtbot, window):
    """Edit > Copy chart as image, triggered as soon as the answer is on screen (the charts not
    made yet): the panel's first chart is made and drawn for this result, then copied."""
    from PySide6.QtGui import QGuiApplication

    with qtbot.waitSignal(window.table_loaded, timeout=30000):
        window.open_paths(FILES)
    panel = window.panels["ranking"]
    qtbot.waitSignal(panel.answer_shown, timeout=60000).wait()
    window.copy_chart_action.trigger()  # before the next turn of the event loop
    chart = next(c for c in panel.charts if panel.tabs.isTabVisible(panel.tabs.indexOf(c)))
    assert chart.plotted()  # drawn for the result before it was copied
    clip = QGuiApplication.clipboard()
    assert clip.image().width() == 2 * chart.width() and chart.title in clip.text()
