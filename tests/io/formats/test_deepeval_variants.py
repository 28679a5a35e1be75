"""DeepEval test runs of other shapes (tests/fixtures/formats/deepeval_variants/, written by
deepeval itself: make_deepeval_variants.py for 4.3.1, README.md for 0.21.19): conversational test
cases, a metric skipped on a case, and the 0.x layout (metricsMetadata). Every pass count, score
and error count is checked against what DeepEval wrote (testPassed/testFailed, metricsScores)."""

from __future__ import annotations

import json
import math
import os

import numpy as np
import pytest

from workbench.io import load_table

HERE = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "formats", "deepeval_variants"))
FILES = ["conversational_run.json", "skipped_run.json"]


def _run(name):
    with open(os.path.join(HERE, name), encoding="utf-8") as fh:
        value = json.load(fh)
    return value.get("testRunData", value)


def _expected(name):
    with open(os.path.join(HERE, "expected.json"), encoding="utf-8") as fh:
        return json.load(fh)["runs"][name]


@pytest.mark.parametrize("name", FILES)
def test_case_and_metric_counts_are_deepevals(name):
    table = load_table(os.path.join(HERE, name))
    frame = table.frame
    run, want = _run(name), _expected(name)
    assert int(frame["success"].sum()) == want["testPassed"] == run["testPassed"]
    assert int((frame["success"] == 0).sum()) == want["testFailed"]
    for ms in want["metricsScores"]:
        m = ms["metric"]
        ok = frame[f"{m}.success"].to_numpy(float)
        assert int(np.nansum(ok)) == ms["passes"]
        assert int(np.nansum(1 - ok)) == ms["fails"]  # errored and skipped cases are blank, not fails
        assert int((frame[f"{m}.error"] != "").sum()) == ms["errors"]
        scores = frame[f"{m}.score"].to_numpy(float)
        assert sorted(scores[~np.isnan(scores)]) == pytest.approx(sorted(ms["scores"]), abs=1e-12)
    # per case, per metric: the scores EvaluationResult returned
    by_name = {n: i for i, n in enumerate(frame["test_case"])}
    for case in want["test_results"]:
        i = by_name[case["name"]]
        assert bool(frame["success"][i]) == case["success"]
        for m in case["metrics"]:
            got = frame[f"{m['name']}.score"][i]
            if m["error"]:
                assert math.isnan(got) and frame[f"{m['name']}.error"][i] == m["error"]
            else:
                assert got == pytest.approx(m["score"], abs=1e-12)
                assert frame[f"{m['name']}.success"][i] == float(m["success"])


def test_conversational_cases_keep_their_turns_and_names():
    frame = load_table(os.path.join(HERE, "conversational_run.json")).frame
    assert list(frame["test_case"]) == ["greet", "refund", "silent", "terse"]
    turns = json.loads(frame["turns"][1])
    assert [t["role"] for t in turns] == ["user", "assistant", "user", "assistant"]
    assert frame["metadata.channel"][3] == "sms"


def test_a_skipped_metric_is_no_failure():
    table = load_table(os.path.join(HERE, "skipped_run.json"))
    frame = table.frame
    i = list(frame["test_case"]).index("no-context")
    assert math.isnan(frame["NeedsContext.success"][i]) and math.isnan(frame["NeedsContext.score"][i])
    assert frame["NeedsContext.error"][i] == ""
    assert any("has no result on 1 test case" in n for n in table.notes)
    assert not any("returned no score (NaN)" in n for n in table.notes)


@pytest.mark.parametrize("name", FILES)
def test_describe_and_passk_on_the_command_line(cli, name):
    run = _run(name)
    out = cli("passk", os.path.join(HERE, name))
    rate = next(r for r in out["results"] if r["metric"].startswith("pass@1"))
    n = run["testPassed"] + run["testFailed"]
    assert rate["value"] == pytest.approx(run["testPassed"] / n, abs=1e-9)
    desc = cli("describe", os.path.join(HERE, name))
    assert any(r["metric"] == "items" and r["value"] == n for r in desc["results"])


def test_the_0_21_layout_reads_what_deepeval_returned(cli):
    with open(os.path.join(HERE, "expected_0_21.json"), encoding="utf-8") as fh:
        want = json.load(fh)
    path = os.path.join(HERE, "test_run_0_21.json")
    table = load_table(path)
    frame = table.frame
    assert list(frame["test_case"]) == [f"test_case_{i}" for i in range(len(want["returned"]))]
    for i, case in enumerate(want["returned"]):
        assert bool(frame["success"][i]) == case["success"]
        for m in case["metrics"]:
            name = m["metric"]
            if m["error"]:
                assert frame[f"{name}.error"][i] == m["error"] and math.isnan(frame[f"{name}.success"][i])
                continue
            assert frame[f"{name}.success"][i] == float(m["success"])
            got = frame[f"{name}.score"][i]
            assert math.isnan(got) if m["score"] is None else got == pytest.approx(m["score"], abs=1e-12)
    run = _run("test_run_0_21.json")
    assert frame["token_cost"].tolist() == pytest.approx([c["cost"] for c in run["testCases"]], abs=1e-15)
    assert frame["completion_time"].tolist() == pytest.approx([c["latency"] for c in run["testCases"]], abs=1e-15)
    assert "0.x" in table.notes[0]
    passed = sum(c["success"] for c in want["returned"])
    out = cli("passk", path)
    rate = next(r for r in out["results"] if r["metric"].startswith("pass@1"))
    assert rate["value"] == pytest.approx(passed / len(want["returned"]), abs=1e-9)


def test_an_unknown_deepeval_layout_is_one_sentence(tmp_path, cli):
    run = _run("skipped_run.json")
    for case in run["testCases"]:
        case["results"] = case.pop("metricsData")  # a layout no deepeval wrote: no metric list
    path = tmp_path / "test_run_future.json"
    path.write_text(json.dumps(run), encoding="utf-8")
    err = cli("describe", str(path), expect=2)
    assert "Traceback" not in err and err.strip().count("\n") == 0 and "test_run_future.json" in err
