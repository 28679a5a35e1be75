"""A large table runs only the panel on screen; the others run when their tab is shown (through
the View menu's actions); a small table runs every panel that applies at once."""

from __future__ import annotations

import pytest

from tests.conftest import open_example, wait_result

pytestmark = pytest.mark.gui


@pytest.fixture
def small_lazy_limit(monkeypatch):
    import workbench.ui.workspace as ws

    monkeypatch.setattr(ws, "LAZY_ROWS", 10)  # the bundled examples count as large


def _ran(panel) -> bool:
    return panel.last_result is not None or panel.last_error is not None or panel.runner.busy


def test_only_the_panel_on_screen_runs_on_a_large_table(qtbot, window, small_lazy_limit):
    landed = open_example(qtbot, window, "cost_latency.csv")
    assert wait_result(qtbot, landed).records and window.current_panel_name() == "cost"
    waiting = {name: p for name, p in window.panels.items()
               if name not in ("cost", "plan") and not p.not_applicable}
    assert waiting and all(p.stale and not _ran(p) for p in waiting.values())
    name, panel = next(iter(waiting.items()))
    with qtbot.waitSignal(panel.runner.busy_changed, timeout=10000):
        window.view_actions[name].trigger()  # shown: it computes now
    assert not panel.stale
    assert all(not _ran(p) for n, p in waiting.items() if n != name)  # never shown, never run


def test_a_panel_that_cannot_run_says_so_without_running(qtbot, window, small_lazy_limit):
    open_example(qtbot, window, "cost_latency.csv")
    ranking = window.panels["ranking"]
    assert "query" in ranking.not_applicable and not ranking.stale and not _ran(ranking)
    tip = window.tabs.tabToolTip(window.tabs.indexOf(ranking))
    assert "Does not apply" in tip


def test_small_tables_run_every_panel_that_applies_at_once(qtbot, window):
    landed = open_example(qtbot, window, "cost_latency.csv")
    wait_result(qtbot, landed)
    applying = [p for name, p in window.panels.items() if name != "plan" and not p.not_applicable]
    assert len(applying) > 1 and all(not p.stale and _ran(p) for p in applying)
