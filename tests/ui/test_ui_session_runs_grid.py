"""The Runs panel's item-grid filter (which items, runs A and B) is part of the session (File >
Save session / Open session through their actions); a damaged value gets one sentence."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from conftest import EXAMPLES, open_example, wait_result

pytestmark = pytest.mark.gui


def _patch(monkeypatch, save=None, open_=None):
    from PySide6.QtWidgets import QFileDialog

    if save is not None:
        monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: (str(save), "")))
    if open_ is not None:
        monkeypatch.setattr(QFileDialog, "getOpenFileName", staticmethod(lambda *a, **k: (str(open_), "")))


def test_the_grid_filter_is_saved_and_restored_with_the_session(qtbot, window, monkeypatch, tmp_path):
    panel = open_example(qtbot, window, "runs_nightly.csv")
    wait_result(qtbot, panel)
    grid = panel.grid_view
    runs = grid.runs
    grid.filter.setCurrentIndex(grid.filter.findData("a_not_b"))
    grid.run_a.setCurrentText(runs[1])
    grid.run_b.setCurrentText(runs[2])
    # right in the second run, wrong in the third: counted from the example with pandas
    raw = pd.read_csv(EXAMPLES / "runs_nightly.csv")
    pivot = raw.pivot(index="question", columns="run", values="correct")
    want = int(((pivot[runs[1]] == 1) & (pivot[runs[2]] == 0)).sum())
    assert len(grid.positions) == want
    path = tmp_path / "nightly.wbsession.json"
    _patch(monkeypatch, save=path)
    window.save_action.trigger()
    saved = json.loads(path.read_text(encoding="utf-8"))
    assert saved["runs_grid"] == {"filter": "a_not_b", "run_a": runs[1], "run_b": runs[2]}
    # another file, then the session again: the filter and its two runs come back
    with qtbot.waitSignal(window.table_loaded, timeout=30000):
        window.open_path(str(EXAMPLES / "simpson.csv"), confirm=False)
    _patch(monkeypatch, open_=path)
    with qtbot.waitSignal(window.table_loaded, timeout=30000):
        window.open_session_action.trigger()
    wait_result(qtbot, panel)
    qtbot.waitUntil(lambda: grid.result is not None and grid.filter.currentData() == "a_not_b", timeout=30000)
    assert (grid.run_a.currentText(), grid.run_b.currentText()) == (runs[1], runs[2])
    assert len(grid.positions) == want
    shown = grid.grid.iloc[grid.positions]
    assert np.all(shown[runs[1]] == 1) and np.all(shown[runs[2]] == 0)


def test_a_damaged_grid_setting_is_one_sentence(tmp_path):
    from workbench.core.errors import DataError
    from workbench.core.session import load_session

    path = tmp_path / "bad.wbsession.json"
    path.write_text(json.dumps({"input_path": "x.csv", "runs_grid": {"filter": 3}, "schema": 1}), encoding="utf-8")
    with pytest.raises(DataError, match="'runs_grid' must be an object of text values"):
        load_session(path)
