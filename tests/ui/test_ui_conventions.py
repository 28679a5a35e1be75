"""The Conventions tab: computed only when shown (on its own runner, off the GUI thread), the
table and the specification curve; the answer card and the report get the verdict."""

from __future__ import annotations

import pytest
from conftest import open_example, wait_result
from PySide6.QtCore import Qt

pytestmark = pytest.mark.gui


def _click_tab(qtbot, panel, widget):
    bar = panel.tabs.tabBar()
    index = panel.tabs.indexOf(widget)
    assert panel.tabs.isTabVisible(index)
    panel.tabs.setUsesScrollButtons(False)  # every tab on screen to be clicked
    qtbot.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(index).center())


def test_compare_conventions_tab_computes_lazily_and_shows_the_table(qtbot, window):
    panel = open_example(qtbot, window, "paired_14_to_5.csv")
    result = wait_result(qtbot, panel)
    tab = panel.conventions_tab
    assert tab is not None and tab.result is None  # not computed with the panel's answer
    assert not tab.runner.busy
    with qtbot.waitSignal(tab.runner.finished, timeout=60000):
        _click_tab(qtbot, panel, tab)
    assert panel.tabs.currentWidget() is tab
    model = tab.view.frame_model()
    frame = model.frame
    row = frame[frame["convention"] == "test: sign_test_p"].iloc[0]
    assert row["p"] == pytest.approx(result.value("sign_test_p"), abs=1e-12)
    assert bool(row["holds"]) is False
    assert "6 conventions" in tab.status.text()
    assert "holds under 4 of 6 conventions" in panel.card.text.text()
    plotted = tab.chart.plotted()["intervals"]
    assert len(plotted["label"]) == 6
    assert list(plotted["est"]) == sorted(plotted["est"], reverse=True)
    # the panel's result now carries the table: the report gets its Conventions sheet
    assert any(t.name == "conventions" for t in panel.last_result.tables)


def test_ranking_tab_is_recomputed_for_a_new_result(qtbot, window):
    panel = open_example(qtbot, window, "ranking_graded.csv")
    wait_result(qtbot, panel)
    tab = panel.conventions_tab
    with qtbot.waitSignal(tab.runner.finished, timeout=60000):
        _click_tab(qtbot, panel, tab)
    frame = tab.view.frame_model().frame
    values = frame[frame["metric"] == "ndcg@10"].set_index("convention")["value"]
    # the example's own sentence: nDCG = 0.913 with linear gain; exponential gain gives 0.834
    assert values["ties: trec_eval (as set)"] == pytest.approx(0.913, abs=5e-4)
    assert values["gain: exponential"] == pytest.approx(0.834, abs=5e-4)
    # another option: a new result, the tab (in view) computes again for it
    combo = panel.control("gain")
    with qtbot.waitSignal(tab.runner.finished, timeout=60000):
        combo.setCurrentIndex(combo.findData("exponential"))
    frame = tab.view.frame_model().frame
    values = frame[frame["metric"] == "ndcg@10"].set_index("convention")["value"]
    assert values["ties: trec_eval (as set)"] == pytest.approx(0.834, abs=5e-4)
    assert values["gain: linear"] == pytest.approx(0.913, abs=5e-4)
