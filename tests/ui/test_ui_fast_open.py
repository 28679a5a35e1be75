"""Issue 47's window: the program started with files says so on its first paint and loads them
while the workspace is built; a large table's columns are checked only once the panel it lands
on has its answer; the busy bar has a moving state until the first progress."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.conftest import open_example, wait_result

pytestmark = pytest.mark.gui

FIXTURES = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "fixtures", "formats"))


def test_the_program_started_with_files_shows_loading_at_its_first_paint_then_answers(tmp_path):
    trec = os.path.join(FIXTURES, "trec")
    args = [os.path.join(trec, n) for n in ("runA.run", "qrels.test.txt")]
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", HOME=str(tmp_path), XDG_CONFIG_HOME=str(tmp_path),
               WORKBENCH_SMOKE="answer", WORKBENCH_STARTUP_TIMING="1")
    out = subprocess.run([sys.executable, "-m", "workbench", *args], capture_output=True, text=True, env=env,
                         timeout=180)
    assert out.returncode == 0, out.stderr
    assert "panel: ranking" in out.stdout
    lines = out.stderr.splitlines()

    def at(word: str) -> float:
        line = next(line for line in lines if line.startswith(word + " at "))
        return float(line[len(word) + 4:].split()[0])

    assert at("loading shown") == at("window painted")  # the busy bar is on screen with the first paint
    assert at("window painted") <= at("table loaded") <= at("answer")


def test_a_busy_bar_moves_until_the_first_progress(qtbot):
    from workbench.ui.app import create_app
    from workbench.ui.widgets import BusyBar

    create_app()
    bar = BusyBar()
    qtbot.addWidget(bar)
    bar.start("Opening a.csv…", indeterminate=True)
    assert bar.isVisibleTo(None) or not bar.isHidden()
    assert bar.bar.maximum() == 0 and bar.label.text() == "Opening a.csv…"  # Qt's busy animation
    bar.advance(0.25, "Loading a.csv…")
    assert bar.bar.maximum() == 1000 and bar.bar.value() == 250
    bar.start("Working…")
    assert bar.bar.maximum() == 1000 and bar.bar.value() == 0


def test_a_large_tables_columns_are_checked_after_the_landing_panels_answer(qtbot, window, monkeypatch):
    import workbench.ui.loading as loading
    import workbench.ui.workspace as ws

    monkeypatch.setattr(loading, "CHECK_BEFORE_SHOWING_ROWS", 10)  # the example counts as large
    monkeypatch.setattr(ws, "LAZY_ROWS", 10)
    events: list[str] = []
    window.controller.problems_checking.connect(lambda: events.append("check"))
    landed = window.panels["cost"]
    landed.result_ready.connect(lambda _r: events.append("answer"))
    with qtbot.waitSignal(window.controller.problems_found, timeout=30000):
        panel = open_example(qtbot, window, "cost_latency.csv")
        assert panel is landed and events == []  # loaded: the panel computes, nothing else yet
        wait_result(qtbot, landed)
    assert events == ["answer", "check"]
    assert window.problems_dock.isVisibleTo(window)


def test_a_small_tables_columns_are_checked_before_it_is_shown(qtbot, window):
    checks: list[int] = []
    window.controller.problems_checking.connect(lambda: checks.append(1))
    open_example(qtbot, window, "cost_latency.csv")
    assert checks == [] and not window.controller.problems_pending  # checked on the loading worker


def test_the_spread_charts_hover_text_is_made_for_the_point_shown(qtbot):
    """A per-query strip of 10,000 queries formats no text until one is hovered."""
    import numpy as np
    import pandas as pd

    from tests.conftest import table_of
    from workbench.analyses import ranking
    from workbench.ui.app import create_app
    from workbench.ui.charts.others import RankingSpreadChart

    create_app()
    rng = np.random.default_rng(1)
    frame = pd.DataFrame({"query": np.repeat([f"q{i}" for i in range(40)], 5), "doc": [f"d{j}" for j in range(200)],
                          "score": rng.random(200), "relevance": rng.integers(0, 2, 200)})
    result = ranking.run(table_of(frame), ranking.Options(ci_resamples=200))
    chart = RankingSpreadChart()
    qtbot.addWidget(chart)
    chart.update_from(result)
    xs, ys, rows, texts = next(h for h in chart._hover if len(h[0]) > 1)
    assert callable(texts)
    queries = result.table("queries").frame
    queries = queries[queries["counted"].astype(bool)]
    k = int(rows[3])
    head, shown = texts(k).rsplit(" = ", 1)
    col = next(c for c in queries.columns if c.startswith("ndcg@") and c.endswith("10"))
    assert head == f"(all) · {queries['query'].iloc[k]}: nDCG@10"
    assert float(shown) == pytest.approx(queries[col].iloc[k], abs=1e-3) and ys[3] == queries[col].iloc[k]


def test_a_panels_charts_are_made_when_it_first_draws(qtbot, window, monkeypatch):
    """A new window makes no plot widget for the panels' charts; a panel's are made with its
    first result, in their tabs' places, and drawn."""
    import workbench.ui.workspace as ws
    from workbench.ui.charts import chart_class
    from workbench.ui.charts.base import Chart
    from workbench.ui.panels.results_view import ChartSlot

    monkeypatch.setattr(ws, "LAZY_ROWS", 10)  # only the landing panel runs
    drawn = [name for name, p in window.panels.items() if p.last_result is not None]
    assert set(drawn) <= {"plan"}  # the plan needs no data: it may have drawn already
    for name, panel in window.panels.items():
        if name not in drawn:
            assert all(isinstance(c, ChartSlot) for c in panel.charts), name
    landed = open_example(qtbot, window, "cost_latency.csv")
    wait_result(qtbot, landed)
    assert all(isinstance(c, Chart) for c in landed.charts)
    titles = [landed.tabs.tabText(landed.tabs.indexOf(c)) for c in landed.charts]
    assert titles == [chart_class(name).title for name in landed.CHARTS]
    assert any(landed.tabs.isTabVisible(landed.tabs.indexOf(c)) for c in landed.charts)
    idle = window.panels["ranking"]  # never drew: still stand-ins
    assert all(isinstance(c, ChartSlot) for c in idle.charts)


@pytest.mark.parametrize("example, chart, signal, args, slot", [
    ("repeats_epochs.csv", "ItemShareChart", "item_clicked", ("m", "q1"), "select_items"),
    ("judge_labels.csv", "ConfusionChart", "cell_clicked", ("pass", "fail"), "select_cell"),
])
def test_a_charts_clicks_reach_its_panel_once_made(qtbot, window, example, chart, signal, args, slot):
    """The panels that listen to a chart (a dot or a cell opens its items) connect when their
    charts are made: once, with the first result."""
    calls = []
    panel = window.panels["repeats" if "repeats" in example else "judge"]
    setattr(panel, slot, lambda *a: calls.append(a))  # connected when the charts are made
    landed = open_example(qtbot, window, example)
    assert landed is panel
    wait_result(qtbot, panel)
    getattr(panel.chart(chart), signal).emit(*args)
    panel.render(panel.last_result)  # a second drawing connects nothing more
    getattr(panel.chart(chart), signal).emit(*args)
    assert len(calls) == 2
