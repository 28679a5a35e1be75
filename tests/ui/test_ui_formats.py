"""Results files in their tools' formats, opened in the window as a user would (File > Open
with the dialog patched, drag and drop): they land on the panel that fits, roles filled,
with the engine's numbers."""

from __future__ import annotations

import os

import pytest

from conftest import wait_result
from workbench.analyses import REGISTRY
from workbench.io import load_table

pytestmark = pytest.mark.gui

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "fixtures", "formats")


def _fixture(*parts):
    return os.path.abspath(os.path.join(FIXTURES, *parts))


def _drop(window, path):
    from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
    from PySide6.QtGui import QDropEvent

    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(path)])
    event = QDropEvent(QPointF(10, 10), Qt.DropAction.CopyAction, mime,
                       Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    window.dropEvent(event)


def test_open_dialog_lists_the_formats_and_promptfoo_lands_on_cost(qtbot, window, monkeypatch):
    from PySide6.QtWidgets import QFileDialog

    asked = {}

    def fake_open(parent, caption, folder, filters):
        asked["filters"] = filters
        return [_fixture("promptfoo", "results.json")], ""

    monkeypatch.setattr(QFileDialog, "getOpenFileNames", staticmethod(fake_open))
    with qtbot.waitSignal(window.table_loaded, timeout=30000):
        window.open_action.trigger()
    for pattern in ("*.jsonl", "*.eval", "*.run", "*.qrels", "*.json", "*.csv", "*.xlsx"):
        assert pattern in asked["filters"]
    panel = window.panels["cost"]
    assert window.tabs.currentWidget() is panel  # a results .json is not taken for a session
    assert window.roles["provider"] == "system" and window.roles["latency_ms"] == "latency"
    options = panel.options()
    assert (options.system, options.success, options.cost, options.latency) == \
        ("provider", "success", "cost", "latency_ms")
    result = wait_result(qtbot, panel)
    engine = REGISTRY["cost"].run(load_table(_fixture("promptfoo", "results.json")), options)
    assert [r["value"] for r in result.records] == pytest.approx([r["value"] for r in engine.records])


def test_a_dropped_inspect_log_lands_on_passk(qtbot, window):
    path = _fixture("inspect", "arith_alpha.eval")
    with qtbot.waitSignal(window.table_loaded, timeout=30000):
        _drop(window, path)
    panel = window.panels["passk"]
    assert window.tabs.currentWidget() is panel
    options = panel.options()
    assert (options.task, options.success, options.system) == ("sample_id", "match", "model")
    result = wait_result(qtbot, panel)
    engine = REGISTRY["passk"].run(load_table(path), options)
    assert [r["value"] for r in result.records] == pytest.approx([r["value"] for r in engine.records])
    assert any(r["metric"] == "pass@3" for r in result.records)


def test_a_dropped_trec_run_fills_ranking_with_its_columns(qtbot, window):
    """A run alone has no judgments: Ranking cannot run, so the window does not land on it
    (issue 23, items 4 and 8); its tab is greyed and says, in the window's words, how to give
    the qrels; the columns are filled for when they are given."""
    with qtbot.waitSignal(window.table_loaded, timeout=30000):
        _drop(window, _fixture("trec", "runA.run"))
    panel = window.panels["ranking"]
    assert window.tabs.currentWidget() is not panel
    tip = window.tabs.tabToolTip(window.tabs.indexOf(panel))
    assert "qrels" in tip and "--" not in tip, tip
    assert "Ranking cannot run on this file" in window.statusBar().currentMessage()
    assert not panel.last_error and "--" not in panel.message.text()
    options = panel.options()
    assert (options.query, options.doc, options.score, options.system) == \
        ("query", "doc", "score", "system")
    assert options.rank is None  # trec_eval orders by score, never by the rank field


def test_a_dropped_lmeval_folder_lands_on_compare(qtbot, window):
    with qtbot.waitSignal(window.table_loaded, timeout=30000):
        _drop(window, _fixture("lmeval"))
    panel = window.panels["compare"]
    assert window.tabs.currentWidget() is panel
    result = wait_result(qtbot, panel)
    assert result.find("diff")[0]["n"] == 12
