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


def test_a_dropped_lmeval_folder_lands_on_text_per_task(qtbot, window):
    """Two models, a generation task (exact_match) and a multiple-choice task (acc): no pooled
    outcome to compare (issue 22), so the folder lands on Text, which scores the generation
    task alone, per model, and compares the models on it."""
    with qtbot.waitSignal(window.table_loaded, timeout=30000):
        _drop(window, _fixture("lmeval"))
    panel = window.panels["text"]
    assert window.tabs.currentWidget() is panel
    result = wait_result(qtbot, panel)
    em = result.find("exact_match")
    assert {(r["system"], r["group"], r["n"]) for r in em} == {
        ("dummy-seed1", "arith_gen", 6), ("dummy-seed2", "arith_gen", 6)}
    assert "rows:generated-text-only" in result.signature


@pytest.mark.parametrize("parts,name,metric,want", [
    (("inspect_errors", "errors_alpha.eval"), "passk", "pass@1", 0.625),  # Inspect's accuracy
    (("promptfoo_errors", "results.json"), "cost", "latency_p50", 43.0),  # never the 1 ms errors
])
def test_a_dropped_log_with_errors_leaves_them_out_in_the_window(qtbot, window, parts, name, metric,
                                                                  want):
    """Issue 22: the panels (which have no control for it) use the default, errored rows left
    out, from the reader's 'error' column; the card and the signature say so."""
    from workbench.report.present import answer

    with qtbot.waitSignal(window.table_loaded, timeout=30000):
        _drop(window, _fixture(*parts))
    panel = window.panels[name]
    assert window.tabs.currentWidget() is panel
    result = wait_result(qtbot, panel)
    values = [r["value"] for r in result.find(metric)]
    assert values[-1 if name == "cost" else 0] == pytest.approx(want)
    assert "errored:excluded" in result.signature
    assert any("ended with an error and are left out" in s for s in answer(result).sentences)
