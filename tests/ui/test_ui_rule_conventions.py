"""The Rule panel's "Conventions" button (issue 28): the rule judged again under each convention
its conditions state, the verdict per convention in a table and the sentence above it, through
the button as a user clicks it.  The expected verdicts are worked by hand (the seed-style latency
rule of tests/test_conventions_rule.py: linear p95 of 1..20 is 19.05, nearest rank 19)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import open_file
from test_conventions_rule import RULE, _files

pytestmark = pytest.mark.gui

def test_conventions_button_shows_the_verdict_under_each_convention(qtbot, window, tmp_path):
    _rule_path, data = _files(tmp_path)  # latencies 5 (old) and 1..20 (new)
    assert np.percentile(np.arange(1, 21), 95) == 19.05  # linear: over 19.02, FAIL
    open_file(qtbot, window, data)
    window.view_actions["rule"].trigger()
    panel = window.rule_panel
    panel.set_rule_text(RULE)
    assert not panel.conventions_view.isVisible()
    with qtbot.waitSignal(panel.result_ready, timeout=60000) as blocker:
        panel.conventions_button.click()
    result = blocker.args[0]
    assert result.value("verdict") == "FAIL"  # the rule as written
    view = panel.conventions_view
    assert view.isVisible()
    model = view.model()
    cells = [[model.data(model.index(r, c)) for c in range(model.columnCount())]
             for r in range(model.rowCount())]
    assert cells == [["rule as written", "FAIL", "yes"],
                     ["percentile_method: nearest_rank", "PASS", "NO"]]  # 19 <= 19.02
    assert "holds under 1 of 2 conventions" in panel.message.text()
    assert "nearest_rank it is PASS" in panel.message.text()
    assert "draft" in panel.message.text()  # not registered
    assert "FAIL" in panel.verdict.text()
    # Evaluate again without conventions: the table goes away
    with qtbot.waitSignal(panel.result_ready, timeout=60000):
        panel.evaluate_button.click()
    assert not panel.conventions_view.isVisible()
