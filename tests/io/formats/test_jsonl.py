"""JSON Lines and JSON arrays of records (HumanEval samples): flattening, raw-text ids,
booleans as outcomes, pass@k from the file equal to the CSV, and almost-JSON sentences."""

from __future__ import annotations

import os

import csv
import json
import time

import numpy as np
import pandas as pd
import pytest

from workbench.analyses import passk
from workbench.cli.main import main as cli_main
from workbench.core.errors import DataError
from workbench.io import load_table
from workbench.io.roles import guess_roles

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "fixtures", "formats")


@pytest.fixture
def fixture_path():
    return lambda *parts: os.path.abspath(os.path.join(FIXTURES, *parts))



def test_humaneval_results_feed_passk_as_the_csv_does(fixture_path, tmp_path):
    path = fixture_path("jsonl", "humaneval_samples.jsonl_results.jsonl")
    table = load_table(path)
    assert table.format == "jsonl"
    assert table.panel == "passk"
    assert guess_roles(table) == {"task_id": "task", "passed": "success", "attempt": "epoch"}
    assert any("HumanEval-style samples file" in n for n in table.notes)
    assert table.frame["passed"].dtype == np.int64
    records = [json.loads(line) for line in open(path)]
    csv_path = tmp_path / "same.csv"
    with open(csv_path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["task_id", "passed"])
        for r in records:
            writer.writerow([r["task_id"], "true" if r["passed"] else "false"])
    ours = passk.run(table, passk.Options(task="task_id", success="passed", ks=(1, 5)))
    theirs = passk.run(load_table(csv_path), passk.Options(task="task_id", success="passed", ks=(1, 5)))
    assert [(r["metric"], r["n"]) for r in ours.records] == [(r["metric"], r["n"]) for r in theirs.records]
    assert [r["value"] for r in ours.records] == pytest.approx([r["value"] for r in theirs.records])
    # hand check: pass@1 is the mean over tasks of c/n
    by_task = {}
    for r in records:
        by_task.setdefault(r["task_id"], []).append(r["passed"])
    (p1,) = ours.find("pass@1")
    assert p1["value"] == pytest.approx(np.mean([np.mean(v) for v in by_task.values()]))


def test_cli_passk_on_jsonl_needs_no_flags(fixture_path, capsys):
    code = cli_main(["passk", fixture_path("jsonl", "humaneval_samples.jsonl_results.jsonl"),
                     "--k", "1,5", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and {r["metric"] for r in out["results"]} >= {"pass@1", "pass@5", "pass^5"}


def test_result_alone_gives_passed(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_text('{"task_id": "T/0", "result": "passed"}\n{"task_id": "T/0", "result": "failed: x"}\n'
                    '{"task_id": "T/1", "result": "timed out"}\n')
    table = load_table(path)
    assert table.frame["passed"].tolist() == [1, 0, 0]
    assert table.roles == {"task_id": "task", "passed": "success", "attempt": "epoch"}


def test_nested_fields_lists_booleans_and_raw_ids(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text(
        '{"id": 1, "doc_id": "007", "meta": {"lang": "fr", "len": 3}, "tags": ["a", "b"], "ok": true, "score": 0.5}\n'
        '\n'
        '{"id": 1.0, "doc_id": 7, "meta": {"lang": "de"}, "tags": [], "ok": false, "score": 1}\n'
        '{"id": "x", "doc_id": null, "meta": null, "ok": null, "score": null, "extra": "NA"}\n')
    table = load_table(path)
    frame = table.frame
    assert list(frame.columns) == ["id", "doc_id", "meta.lang", "meta.len", "tags", "ok", "score", "extra"]
    assert frame["id"].tolist() == ["1", "1.0", "x"]  # 1 and 1.0 stay different ids
    assert frame["doc_id"].tolist() == ["007", "7", ""]
    assert pd.api.types.is_string_dtype(frame["id"])
    assert frame["meta.lang"].tolist() == ["fr", "de", ""]
    assert frame["tags"].tolist() == ['["a", "b"]', "[]", ""]
    assert frame["ok"].tolist()[:2] == [1.0, 0.0] and np.isnan(frame["ok"][2])
    assert frame["score"].dtype == np.float64
    assert frame["extra"].tolist() == ["", "", "NA"]  # literal NA stays text
    assert [table.line_of(i) for i in range(3)] == [1, 3, 4]  # the blank line is counted
    assert "nested fields flattened" in table.notes[0] and "true/false read as 1/0" in table.notes[0]


def test_a_csv_starting_with_a_bracket_stays_a_csv(tmp_path):
    path = tmp_path / "x.csv"
    path.write_text("[tag],passed\na,1\n")
    table = load_table(path)
    assert table.format == "text" and list(table.frame.columns) == ["[tag]", "passed"]


def test_json_array_and_object_with_records(tmp_path):
    path = tmp_path / "a.json"
    path.write_text(json.dumps([{"item": "a", "correct": True}, {"item": "b", "correct": False}], indent=2))
    table = load_table(path)
    assert table.format == "json" and table.frame["correct"].tolist() == [1, 0]
    assert table.describe_rows([1]) == "record 2"
    path = tmp_path / "o.json"
    path.write_text(json.dumps({"meta": {"x": 1}, "rows": [{"item": "a"}, {"item": "b"}]}))
    table = load_table(path)
    assert table.frame["item"].tolist() == ["a", "b"]
    assert "under key 'rows'" in table.notes[0]


@pytest.mark.parametrize("name, content, words", [
    ("x.jsonl", '{"a": 1}\n{"a": 2}\n{"a": 3,}\n', ["line 3", "is not valid JSON", "one JSON object per line"]),
    ("x.jsonl", '{"a": 1}\n[1, 2]\n', ["line 2", "not a JSON object"]),
    ("x.json", '{"a": 1, "b": 2}', ["one JSON object without a list of records"]),
    ("x.json", "task_id,passed\nT/0,true\n", ["line 1", "starts with 'task_id,passed'", "JSON"]),
    ("x.json", '[{"a": 1},\n {"a": 2]\n', ["line 2", "is not valid JSON"]),
])
def test_almost_json_gets_a_sentence(tmp_path, name, content, words):
    path = tmp_path / name
    path.write_text(content)
    with pytest.raises(DataError) as info:
        load_table(path)
    for word in words:
        assert word in str(info.value)
    assert str(path) in str(info.value)


def test_a_million_line_jsonl_loads_within_twice_pandas(tmp_path):
    """Streaming speed: within 2x of pandas.read_json(lines=True) (measured: see resources/docs/performance.md)."""
    rng = np.random.default_rng(3)
    n = 1_000_000
    path = tmp_path / "big.jsonl"
    tasks = rng.integers(0, 164, n)
    passed = rng.random(n) < 0.4
    with open(path, "w") as handle:
        handle.writelines(f'{{"task_id": "HumanEval/{t}", "passed": {"true" if p else "false"}, '
                          f'"score": {s:.3f}}}\n' for t, p, s in zip(tasks, passed, rng.random(n)))
    best_ours = best_pandas = float("inf")
    for _ in range(2):
        start = time.perf_counter()
        pd.read_json(path, lines=True)
        best_pandas = min(best_pandas, time.perf_counter() - start)
        start = time.perf_counter()
        table = load_table(path)
        best_ours = min(best_ours, time.perf_counter() - start)
    assert len(table.frame) == n and table.frame["passed"].sum() == passed.sum()
    assert best_ours < 2 * best_pandas, (best_ours, best_pandas)


def test_evalplus_results_feed_passk_as_the_csv(fixture_path, tmp_path):
    path = fixture_path("jsonl", "evalplus_eval_results.json")
    table = load_table(path)
    assert table.format == "evalplus" and table.panel == "passk"
    assert guess_roles(table) == {"task_id": "task", "passed": "success", "sample": "epoch"}
    evals = json.load(open(path))["eval"]
    csv_path = tmp_path / "same.csv"
    with open(csv_path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["task_id", "base", "both"])
        for task, results in evals.items():
            for r in results:
                writer.writerow([task, int(r["base_status"] == "pass"),
                                 int(r["base_status"] == r["plus_status"] == "pass")])
    same = load_table(csv_path)
    for ours_col, csv_col in (("passed", "both"), ("base_passed", "base")):
        ours = passk.run(table, passk.Options(task="task_id", success=ours_col, ks=(1, 3)))
        theirs = passk.run(same, passk.Options(task="task_id", success=csv_col, ks=(1, 3)))
        assert [r["value"] for r in ours.records] == pytest.approx([r["value"] for r in theirs.records])
    assert table.frame["passed"].sum() < table.frame["base_passed"].sum()  # plus tests fail more


@pytest.mark.parametrize("name", ["humaneval_samples.jsonl_results.jsonl", "evalplus_eval_results.json"])
def test_a_tasks_samples_are_tries_of_one_item_in_every_panel(fixture_path, capsys, name):
    """8 tasks x 5 samples: Aggregation counts 8 items (each the mean of its samples), as pass@1
    and Describe do (before, Aggregation's rate was 'on 40 items')."""
    path = fixture_path("jsonl", name)
    frame = load_table(path).frame
    per_task = frame.groupby("task_id")["passed"].mean()

    def run(*argv):
        assert cli_main([*argv, path, "--json"]) == 0
        return json.loads(capsys.readouterr().out)

    micro = next(r for r in run("aggregate")["results"] if r["metric"] == "micro")
    assert (micro["value"], micro["n"]) == (pytest.approx(per_task.mean(), abs=1e-12), len(per_task))
    p1 = next(r for r in run("passk", "--k", "1")["results"] if r["metric"] == "pass@1")
    assert (p1["value"], p1["n"]) == (pytest.approx(per_task.mean(), abs=1e-12), len(per_task))
    counts = {r["metric"]: r["value"] for r in run("describe")["results"] if "system" not in r}
    assert counts["items"] == len(per_task) and counts["repeats_min"] == counts["repeats_max"] == 5
