"""One reading of a file in the window (issue 43): logs the real tools wrote land on a panel
whose answer names the scorer and gives the tool's own number; the "What this file holds" card
describes the file and takes the scorer and error decisions once, for every panel; one system's
rate is the same on every panel and in the exported workbook."""

from __future__ import annotations

import json
import os

import pytest

from conftest import open_file, wait_result

pytestmark = pytest.mark.gui

FIX = os.path.join(os.path.dirname(__file__), "..", "fixtures", "formats")


def fx(*parts: str) -> str:
    return os.path.abspath(os.path.join(FIX, *parts))


def expected(folder: str) -> dict:
    with open(fx(folder, "expected.json"), encoding="utf-8") as handle:
        return json.load(handle)


def _result(qtbot, panel):
    """The panel's result once it is in (a run's 'busy' ends a moment before its result)."""
    qtbot.waitUntil(lambda: panel.last_result is not None and not panel.runner.busy, timeout=30000)
    return panel.last_result


def _open(qtbot, window, path):
    open_file(qtbot, window, path)
    panel = window.tabs.currentWidget()
    return panel, _result(qtbot, panel)


def _described(qtbot, window):
    card = window.reading_card
    if card.runner.busy:
        with qtbot.waitSignal(card.described, timeout=30000):
            pass
    return card.last_result


def test_an_inspect_judge_log_lands_on_the_judges_own_accuracy(qtbot, window):
    want = expected("inspect285_judge")["logs"]["judge_alpha.eval"]
    panel, result = _open(qtbot, window, fx("inspect285_judge", "judge_alpha.eval"))
    assert panel is window.panels["judge"]
    accuracy = next(s for s in want["scores"] if s["name"] == "model_graded_qa")["metrics"]["accuracy"]
    assert result.value("judge_score", system="mockllm/alpha") == pytest.approx(accuracy, abs=1e-9)
    text = " ".join(panel.card.sentences)
    assert "'model_graded_qa'" in text and "0.727" in text
    desc = _described(qtbot, window)
    scorers = {r["scorer"]: r for _, r in desc.table("scorers").frame.iterrows()}
    assert scorers["model_graded_qa"]["kind"] == "judge" and scorers["model_graded_qa"]["unscored"] == 2
    assert "inspect 0.3.285" in window.reading_card.summary.text()


def test_the_scorer_and_errors_are_chosen_once_for_every_panel(qtbot, window):
    landed, _ = _open(qtbot, window, fx("lmeval_mc", "runs"))
    assert "'acc'" in " ".join(landed.card.sentences)  # two runs: Compare, naming the metric
    window.workspace.show("aggregate")
    panel = window.panels["aggregate"]
    runs = {f"dummy {r['num_fewshot']}-shot seed {r['seeds']['random_seed']}": r for r in expected("lmeval_mc")["runs"]}
    result = _result(qtbot, panel)
    assert {r["version"]: r["value"] for r in result.find("micro")} == \
        {name: pytest.approx(r["acc"]) for name, r in runs.items()}
    assert "'acc'" in " ".join(panel.card.sentences)
    card = window.reading_card
    _described(qtbot, window)
    with qtbot.waitSignal(panel.result_ready, timeout=30000):
        card.scorer.setCurrentIndex(card.scorer.findData("acc_norm"))
    result = panel.last_result
    assert {r["version"]: r["value"] for r in result.find("micro")} == \
        {name: pytest.approx(r["acc_norm"]) for name, r in runs.items()}
    assert "scorer:acc_norm(recorded metric)" in result.signature
    assert window.roles["acc_norm"] == "success" and window.roles.get("acc") != "success"
    compare = window.panels["compare"]
    window.workspace.show("compare")
    other = wait_result(qtbot, compare)
    if "acc_norm" not in other.signature:  # its run with the new reading may still be coming
        other = wait_result(qtbot, compare)
    assert "scorer:acc_norm" in other.signature  # the same decision on another panel
    session = window.current_session()
    assert session.reading == {"scorer": "acc_norm", "errors": "exclude", "label_map": []}
    # the decision is one step of Edit > Undo, named; undone, every panel reads 'acc' again
    assert window.undo_action.text() == "&Undo: Scorer the file's primary -> 'acc_norm'"
    window.workspace.show("aggregate")
    with qtbot.waitSignal(panel.result_ready, timeout=30000):
        window.undo_action.trigger()
    assert {r["version"]: r["value"] for r in panel.last_result.find("micro")} == \
        {name: pytest.approx(r["acc"]) for name, r in runs.items()}
    assert card.scorer.currentData() is None and window.current_session().reading is None
    with qtbot.waitSignal(panel.result_ready, timeout=30000):
        window.redo_action.trigger()
    assert "scorer:acc_norm(recorded metric)" in panel.last_result.signature
    assert card.scorer.currentData() == "acc_norm"


def test_promptfoo_repeats_one_rate_on_every_panel_and_in_the_workbook(qtbot, window, tmp_path, monkeypatch):
    from openpyxl import load_workbook
    from PySide6.QtWidgets import QFileDialog

    panel, _ = _open(qtbot, window, fx("promptfoo_repeat", "results.json"))
    rates = {}
    for name, metric, key in (("repeats", "repeats_rate", "system"), ("aggregate", "micro", "version"),
                              ("passk", "pass@1", "system")):
        window.workspace.show(name)
        result = _result(qtbot, window.panels[name])
        rates[name] = {r[key]: r["value"] for r in result.find(metric) if r.get(key)}
    for system in ("steady", "flaky"):
        assert len({round(r[system], 12) for r in rates.values()}) == 1, rates
    card = window.reading_card
    with qtbot.waitSignal(window.panels["passk"].result_ready, timeout=30000):
        card.errors.setCurrentIndex(card.errors.findData("fail"))
    flaky = window.panels["passk"].last_result.value("pass@1", system="flaky")
    assert flaky == pytest.approx(expected("promptfoo_repeat")["systems"]["flaky"]["pass_rate"], abs=1e-9)
    target = tmp_path / "report.xlsx"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: (str(target), "")))
    for name in ("repeats", "aggregate"):
        window.workspace.show(name)
        _result(qtbot, window.panels[name])
    with qtbot.waitSignal(window.report_written, timeout=60000):
        window.export_action.trigger()
    book = load_workbook(target, read_only=True, data_only=True)
    values = [c for ws in book.worksheets for row in ws.iter_rows(values_only=True) for c in row
              if isinstance(c, float)]
    assert any(abs(v - flaky) < 1e-9 or abs(v - 100 * flaky) < 1e-7 for v in values)


def test_a_log_and_its_label_export_opened_together_land_on_the_judge(qtbot, window):
    with qtbot.waitSignal(window.table_loaded, timeout=30000):
        window.open_paths([fx("inspect285_judge", "judge_alpha.eval"), fx("labelstudio", "export.csv")])
    panel = window.panels["judge"]
    assert window.tabs.currentWidget() is panel
    qtbot.waitUntil(lambda: not panel.runner.busy and (panel.last_result is not None or bool(panel.last_error)),
                    timeout=30000)
    # the judge's C/P/I and the people's words never meet: a sentence shows both sets, no number
    assert panel.last_result is None
    assert "never meet" in panel.last_error and "correct, incorrect, partial" in panel.last_error
    assert "Judge's labels in people's words" in panel.last_error  # the field to fill, by its label
    with qtbot.waitSignal(panel.result_ready, timeout=30000):
        panel.control("label_map").setText("C=correct,P=partial,I=incorrect")
        panel.control("label_map").editingFinished.emit()
    result = panel.last_result
    assert result.value("agreement") == pytest.approx(10 / 11)
    assert "label-map:C=correct,P=partial,I=incorrect" in result.signature
    session = window.current_session()
    assert session.reading["label_map"] == [["C", "correct"], ["P", "partial"], ["I", "incorrect"]]


def test_a_plain_runs_table_counts_the_items_the_runs_panel_uses(qtbot, window):
    """runs_nightly.csv names its items 'question': the file's reading, the Columns dock and the
    Runs panel take that one column (before, the card left the items blank while the panel
    guessed 'question' on its own)."""
    import csv

    path = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "resources", "examples",
                                        "runs_nightly.csv"))
    with open(path, newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    questions = {r["question"] for r in rows}
    panel, result = _open(qtbot, window, path)
    assert panel is window.panels["runs"]
    assert window.roles.get("question") == "item"
    assert panel.options().item == "question"
    assert not any("taken as the item column" in n and "guessed" in n for n in result.notes)
    _described(qtbot, window)
    assert f"{len(questions):,} items" in window.reading_card.summary.text()
    assert len(result.table("grid").frame) == len(questions)  # one row of the item grid per question


def test_a_model_run_three_times_is_one_rate_per_model_on_every_panel(qtbot, window, tmp_path):
    """'model, run, item_id, correct' (each model run three times over the same items): the
    Columns dock takes 'run' as the repeat, the Problems dock finds no repeated id, and pass@k,
    Aggregation and Repeats give each model the mean over its items of the item's share of
    successful runs (pandas), on the items, never on the 3 x 40 rows."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(8)
    rows = [(m, r, f"q{i:02d}", int(rng.random() < p)) for m, p in (("m-a", 0.5), ("m-b", 0.7))
            for r in (1, 2, 3) for i in range(40)]
    frame = pd.DataFrame(rows, columns=["model", "run", "item_id", "correct"])
    path = tmp_path / "model_run.csv"
    frame.to_csv(path, index=False)
    want = frame.groupby(["model", "item_id"])["correct"].mean().groupby("model").mean()
    open_file(qtbot, window, path)
    assert window.roles.get("run") == "epoch" and window.roles.get("model") == "system"
    qtbot.waitUntil(lambda: "checking" not in window.problems_dock.windowTitle(), timeout=30000)
    assert not [p for p in window.problems if "repeats ids" in p.message]
    for name, metric, key in (("passk", "pass@1", "system"), ("aggregate", "micro", "version"),
                              ("repeats", "repeats_rate", "system")):
        window.workspace.show(name)
        assert not window.panels[name].not_applicable, (name, window.panels[name].not_applicable)
        result = _result(qtbot, window.panels[name])
        got = {r[key]: (r["value"], r["n"]) for r in result.find(metric) if r.get(key)}
        assert got == {m: (pytest.approx(want[m], abs=1e-12), 40) for m in ("m-a", "m-b")}, (name, got)


def test_the_item_field_shows_the_item_the_reading_reduces_repeats_by(qtbot, window):
    """An Inspect log of samples x epochs: its 'item' column names each output ('1 (epoch 2)'),
    its sample id the item.  The Item id fields of Text and Compare show the sample id (before,
    'item (automatic)' while Text reduced by the sample id), and Text counts the samples."""
    import pandas as pd

    from workbench.io import load_table

    path = fx("inspect", "arith_alpha.eval")
    table = load_table(path)
    samples = pd.Series([str(x) for x in table.frame["sample_id"]]).nunique()
    assert samples < len(table.frame)  # epochs: several outputs per sample
    open_file(qtbot, window, path)
    for name, field in (("text", "id"), ("compare", "item"), ("runs", "item")):
        panel = window.panels[name]
        assert getattr(panel.options(), field) == "sample_id", name
    window.workspace.show("text")
    result = _result(qtbot, window.panels["text"])
    assert {r["n"] for r in result.find("exact_match")} == {samples}
