"""The files of DeepEval, Ragas, Phoenix, HELM, SWE-bench and MTEB (tests/fixtures/formats,
FINDINGS_46.md) opened in the window as a user would: each lands on a panel whose answer is
named and carries the tool's own number; File > Export items writes the flat table, and the
window opens it again to the same answer."""

from __future__ import annotations

import json
import os

import pytest
from conftest import wait_result

pytestmark = pytest.mark.gui

HERE = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "fixtures", "formats"))


def _expected(folder):
    with open(os.path.join(HERE, folder, "expected.json"), encoding="utf-8") as fh:
        return json.load(fh)


def _mteb_means(folder):
    means = {}
    for w in _expected(folder)["results"]:
        means.setdefault(w["model_folder"].replace("__", "/"), []).append(w["main_score"])
    return {m: sum(v) / len(v) for m, v in means.items()}


def _cases():
    deepeval = _expected("deepeval")
    swe = _expected("swebench")["counts"]
    ragas = _expected("ragas")["means_as_ragas_reports"]["exact_match"]
    helm = _expected("helm")["runs"]["simple1_em_robustness"]["stats_mean"]
    return [
        # (path, panel, metric, match, the tool's number)
        ("deepeval/test_run.json", "cost", "success_rate", {},
         deepeval["testPassed"] / (deepeval["testPassed"] + deepeval["testFailed"])),
        ("deepeval_old/test_run_old.json", "passk", "pass@1", {}, 0.5),  # its cases' own success: 4 of 8
        ("ragas/ragas_result.csv", "passk", "pass@1", {}, ragas),
        ("ragas/ragas_result.parquet", "passk", "pass@1", {}, ragas),
        ("phoenix/experiment.json", "judge", "agreement", {}, 1.0),
        ("phoenix/experiment.csv", "judge", "agreement", {}, 1.0),  # the 3 runs both annotated agree
        ("helm/simple1_em_robustness", "aggregate", "rate", {"group": "original"}, helm["exact_match|test"]),
        ("swebench", "passk", "pass@1", {}, swe["resolved_instances"] / swe["completed_instances"]),
        ("mteb", "runs", "run_mean", {"system": "fixture46/hashed-bow"}, _mteb_means("mteb")["fixture46/hashed-bow"]),
        ("mteb_old", "runs", "run_mean", {"system": "fixture46/random-hash"},
         _mteb_means("mteb_old")["fixture46/random-hash"]),
    ]


@pytest.mark.parametrize("rel,panel_name,metric,match,want", _cases(), ids=lambda x: x if isinstance(x, str) else "")
def test_each_tool_lands_on_a_named_answer(qtbot, window, rel, panel_name, metric, match, want):
    from PySide6.QtWidgets import QFileDialog

    from workbench.report.present import answer

    path = os.path.join(HERE, rel)
    if os.path.isdir(path):
        with qtbot.waitSignal(window.table_loaded, timeout=30000):
            window.open_path(path)
    else:
        QFileDialog.getOpenFileNames = staticmethod(lambda *a, **k: ([path], ""))
        with qtbot.waitSignal(window.table_loaded, timeout=30000):
            window.open_action.trigger()
    window.resize(1280, 800)
    panel = window.panels[panel_name]
    assert window.tabs.currentWidget() is panel, window.current_panel_name()
    result = wait_result(qtbot, panel)
    sentences = answer(result).sentences
    assert sentences and sentences[0].strip()
    found = [r for r in result.find(metric) if all(r.get(k) == v for k, v in match.items())]
    assert found and found[0]["value"] == pytest.approx(want, abs=1e-9)


def test_file_export_items_writes_the_table_the_window_opens_again(qtbot, window, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QFileDialog

    source = os.path.join(HERE, "deepeval", "test_run.json")
    with qtbot.waitSignal(window.table_loaded, timeout=30000):
        window.open_path(source)
    first = wait_result(qtbot, window.panels["cost"])
    out = tmp_path / "items.xlsx"
    asked = {}

    def fake_save(parent, caption, name, filters):
        asked["filters"], asked["name"] = filters, name
        return str(out), "Items, one column per scorer (*.csv *.parquet *.xlsx)"

    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(fake_save))
    window.export_items_action.trigger()
    qtbot.waitUntil(lambda: out.exists() and "Wrote" in window.statusBar().currentMessage(), timeout=30000)
    assert "one row per scorer" in asked["filters"] and asked["name"] == "test_run-items.csv"
    assert "8 records x 5 scorers, wide" in window.statusBar().currentMessage()
    assert not window.warnings and not window.exceptions
    with qtbot.waitSignal(window.table_loaded, timeout=30000):
        window.open_path(str(out))
    again = wait_result(qtbot, window.panels["cost"])
    assert window.tabs.currentWidget() is window.panels["cost"]
    assert [r["value"] for r in again.records] == pytest.approx([r["value"] for r in first.records])


def test_export_items_with_no_file_open_says_so(qtbot, window):
    window.export_items_action.trigger()
    assert window.warnings and "Open a results file first" in window.warnings[-1][1]
