"""The Compare panel on continuous per-item scores and on a chosen score column."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from conftest import open_file, wait_result

pytestmark = pytest.mark.gui


def test_compare_panel_runs_the_continuous_family(qtbot, window, tmp_path):
    rng = np.random.default_rng(1)
    base = rng.random(120)
    frame = pd.DataFrame({"item_id": [f"q{i}" for i in range(120)], "baseline": base.round(4),
                          "candidate": np.clip(base + rng.normal(0.05, 0.1, 120), 0, 1).round(4)})
    path = tmp_path / "scores.csv"
    frame.to_csv(path, index=False)
    open_file(qtbot, window, path)
    panel = window.panels["compare"]
    window.show_panel("compare")
    result = wait_result(qtbot, panel, timeout=60000)
    assert "family:continuous" in result.signature
    assert panel.signature.text() == result.signature
    assert [r for r in result.records if r["metric"] == "randomization_p"]
    assert panel.result_table("tests").frame_model().rowCount() == 3
    # forcing the binary family on scores is refused with a sentence, not a crash
    combo = panel.control("scores")
    combo.setCurrentIndex(combo.findData("binary"))
    with qtbot.waitSignal(panel.runner.failed, timeout=30000):
        panel.run_now()
    assert "binary" in panel.message.text()
