"""A red error replaces the panel's result: the numbers computed with the previous settings are
taken off (and out of the report), never left on screen looking current beside the error."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from tests.conftest import open_example, open_file, wait_result

pytestmark = pytest.mark.gui


def _nothing_shown(panel) -> None:
    assert panel.last_result is None
    assert not panel.card.sentences and not panel.card.copy_button.isVisible()
    assert panel.headline.model().rowCount() == 0
    assert panel.signature.text() == ""
    for chart in panel.charts:
        assert not panel.tabs.isTabVisible(panel.tabs.indexOf(chart))
    for view in panel._table_views.values():
        assert view.model().rowCount() == 0


def _red(panel) -> bool:
    return panel.message.isVisible() and "#b3261e" in panel.message.styleSheet()


def test_an_option_error_takes_the_previous_result_off(qtbot, window):
    panel = open_example(qtbot, window, "ranking_graded.csv")
    wait_result(qtbot, panel)
    assert panel.card.sentences
    field = panel.control("ks")
    field.setFocus()
    field.selectAll()
    QTest.keyClicks(field, "0,x")
    QTest.keyClick(field, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: _red(panel), timeout=30000)
    _nothing_shown(panel)
    assert panel not in [p for p in window.panels.values() if p.last_result is not None]
    assert all(r.analysis != "ranking" for r in window.results())  # nor in the report
    with qtbot.waitSignal(panel.result_ready, timeout=60000):
        field.selectAll()
        QTest.keyClicks(field, "1,3")
        QTest.keyClick(field, Qt.Key.Key_Return)
    assert panel.card.sentences and not panel.message.isVisible()


def test_an_error_of_the_analysis_takes_the_previous_result_off(qtbot, window, tmp_path):
    import pandas as pd

    path = tmp_path / "pair.csv"
    pd.DataFrame({"item_id": list("abcdef"), "baseline": [1, 0, 1, 1, 0, 1], "candidate": [1, 1, 1, 0, 0, 1],
                  "other": [1, 0, 7, 1, 0, 1]}).to_csv(path, index=False)
    open_file(qtbot, window, path)
    window.show_panel("compare")
    panel = window.panels["compare"]
    wait_result(qtbot, panel)
    assert panel.card.sentences
    combo = panel.control("candidate")
    with qtbot.waitSignal(panel.runner.failed, timeout=60000):
        combo.setCurrentIndex(combo.findData("other"))  # a 7 among 0/1 outcomes
    assert _red(panel) and "7" in panel.message.text()
    _nothing_shown(panel)


def test_a_broken_rule_takes_the_previous_decision_off(qtbot, window):
    panel = open_example(qtbot, window, "paired_14_to_5.csv")
    wait_result(qtbot, panel)
    rule = window.rule_panel
    window.show_panel("rule")
    rule.new_button.click()
    with qtbot.waitSignal(rule.result_ready, timeout=60000):
        rule.evaluate_now()
    assert rule.last_result is not None and rule.answer.sentences
    rule.editor.setPlainText(rule.editor.toPlainText() + "\n[[condition]]\nmetric = 3\n")
    rule.evaluate_button.click()
    assert rule.last_error and "#b3261e" in rule.message.styleSheet()
    assert rule.last_result is None and not rule.answer.sentences
    assert rule.card.model().rowCount() == 0 and rule.verdict.text() == "No decision yet"
