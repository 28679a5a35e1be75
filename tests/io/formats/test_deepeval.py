"""DeepEval test runs written by deepeval 4.3.1 and 1.4.7 (tests/fixtures/formats/make_fixtures_46.py
deepeval, deepeval_old; FINDINGS_46.md): every number DeepEval reports (each case's success,
each metric's score, success and error, metricsScores' passes/fails/errors, testPassed, the
evaluation cost) read back through load_table and the command line."""

from __future__ import annotations

import json
import math
import os

import numpy as np
import pytest

from workbench.core.errors import DataError
from workbench.io import load_table

HERE = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "formats")
NEW = os.path.abspath(os.path.join(HERE, "deepeval", "test_run.json"))
LATEST = os.path.abspath(os.path.join(HERE, "deepeval", "latest_test_run.json"))
OLD = os.path.abspath(os.path.join(HERE, "deepeval_old", "test_run_old.json"))


def _expected(folder):
    with open(os.path.join(HERE, folder, "expected.json"), encoding="utf-8") as fh:
        return json.load(fh)


CASES = [(NEW, "deepeval"), (LATEST, "deepeval"), (OLD, "deepeval_old")]


@pytest.mark.parametrize("path,folder", CASES)
def test_every_case_and_metric_as_deepeval_recorded_it(path, folder):
    want = _expected(folder)["test_cases"]
    table = load_table(path)
    frame = table.frame
    assert list(frame["test_case"]) == list(want)  # "1.0" and "1" stay two ids
    for i, (name, case) in enumerate(want.items()):
        assert frame["success"][i] == int(case["success"])
        for metric, m in case["metrics"].items():
            ok, score = frame[f"{metric}.success"][i], frame[f"{metric}.score"][i]
            if m["error"]:  # an errored metric: no measurement, its error kept
                assert math.isnan(ok) and math.isnan(score)
                assert frame[f"{metric}.error"][i] == m["error"]
                continue
            assert frame[f"{metric}.error"][i] == ""
            assert ok == float(m["success"])  # DeepEval's own decision, never recomputed
            if case["score_is_nan"][metric]:
                assert math.isnan(score)
            else:
                assert score == pytest.approx(m["score"], abs=1e-12)
            if m["evaluationCost"] is not None:
                assert frame[f"{metric}.evaluation_cost"][i] == pytest.approx(m["evaluationCost"], abs=1e-15)
        if case["tokenCost"] is not None:  # the evaluated model's cost, apart from the judge's
            assert frame["token_cost"][i] == pytest.approx(case["tokenCost"], abs=1e-15)
    total = _expected(folder)["evaluationCost"]
    assert frame["evaluation_cost"].sum() == pytest.approx(total, abs=1e-12)


@pytest.mark.parametrize("path,folder", CASES)
def test_the_evaluation_declared(path, folder):
    ev = load_table(path).evaluation
    assert ev.tool == "deepeval" and ev.item == "test_case" and ev.primary == "success"
    brevity = ev.scorer("Brevity")
    assert (brevity.column, brevity.scale, brevity.threshold) == ("Brevity.success", "binary", 0.3)
    assert brevity.higher_is_better is False  # read from DeepEval's own successes
    assert brevity.passed == "Brevity.success" and brevity.error == "Brevity.error"
    overlap = ev.scorer("TokenOverlap")
    assert overlap.higher_is_better is True and overlap.threshold == 0.5
    assert overlap.kind == "judge" and overlap.models == ("lookup-judge",)  # its evaluationModel
    assert brevity.kind == "code"  # no evaluation model recorded
    assert ev.scorer("Brevity.score").scale == "score"
    assert ev.runs[0].config["prompt template"] == "Q: {input}"
    assert ev.usage.get("grader_cost") == "evaluation_cost"
    if folder == "deepeval":
        assert ev.usage["cost"] == "token_cost"
    assert "metadata.topic" in ev.metadata


@pytest.mark.parametrize("path", [NEW, OLD])
def test_metric_passes_fails_and_errors_through_the_command_line(cli, path):
    reported = {m["metric"]: m for m in _expected("deepeval")["metricsScores"]}
    for metric, rep in reported.items():
        desc = cli("describe", path, "--scorer", metric)
        counts = {r["metric"]: r["value"] for r in desc["results"] if r.get("system") is None}
        assert counts[f"errors:{metric}"] == rep["errors"]
        assert counts[f"scored:{metric}"] == rep["passes"] + rep["fails"]
        out = cli("cost", path, "--scorer", metric, "--cost", "evaluation_cost")
        rate = next(r for r in out["results"] if r["metric"] == "success_rate")
        assert rate["n"] == rep["passes"] + rep["fails"]  # errors left out and counted
        assert rate["value"] == pytest.approx(rep["passes"] / (rep["passes"] + rep["fails"]), abs=1e-9)
        out = cli("cost", path, "--scorer", metric, "--errors", "fail", "--cost", "evaluation_cost")
        rate = next(r for r in out["results"] if r["metric"] == "success_rate")
        n = rep["passes"] + rep["fails"] + rep["errors"]
        assert (rate["n"], rate["value"]) == (n, pytest.approx(rep["passes"] / n, abs=1e-9))


def test_the_test_case_pass_rate_is_deepevals(cli):
    want = _expected("deepeval")
    out = cli("cost", NEW)
    rate = next(r for r in out["results"] if r["metric"] == "success_rate")
    total = want["testPassed"] + want["testFailed"]
    assert (rate["n"], rate["value"]) == (total, pytest.approx(want["testPassed"] / total, abs=1e-9))
    assert "scorer:success(code)" in out["signature"]
    by_topic = cli("aggregate", NEW, "--scorer", "TokenOverlap.score", "--group", "metadata.topic")
    scores = ("geo", "misc")
    frame = load_table(NEW).frame
    for topic in scores:
        values = frame.loc[frame["metadata.topic"] == topic, "TokenOverlap.score"].dropna()
        got = next(r for r in by_topic["results"] if r["metric"] == "rate" and r["group"] == topic)
        assert got["n"] == len(values) and got["value"] == pytest.approx(values.mean(), abs=1e-9)


def test_the_two_layouts_give_the_same_table_of_scores():
    new, old = load_table(NEW).frame, load_table(OLD).frame
    for col in ("success", "TokenOverlap.success", "TokenOverlap.score", "Brevity.success", "Brevity.score"):
        np.testing.assert_array_equal(new[col].to_numpy(dtype=float), old[col].to_numpy(dtype=float))


@pytest.mark.parametrize("text,words", [
    ('{"testRunData": {"runs": []}}', "without a DeepEval test run"),
    ('{"testCases": [{"name": "a", "metrics": []}], "metricsScores": []}', "test case 1 has no 'metricsData'"),
    ('{"testCases": [], "metricsScores": [], "testPassed": 0}', "no test cases"),
])
def test_a_deepeval_file_of_an_unknown_layout_is_one_sentence(tmp_path, text, words):
    path = tmp_path / "test_run.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(DataError) as err:
        load_table(path)
    message = str(err.value)
    assert str(path) in message and words in message and "expected a DeepEval test run" in message


def test_a_truncated_test_run_says_it_is_cut_short(tmp_path, cli):
    with open(NEW, "rb") as fh:
        data = fh.read()
    path = tmp_path / "cut.json"
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(DataError) as err:
        load_table(path)
    assert str(path) in str(err.value) and "cut short" in str(err.value)
    message = cli("describe", path, expect=2)
    assert message.startswith("workbench: File") and "Traceback" not in message


def test_a_snake_case_layout_reads_the_same(tmp_path):
    """A DeepEval run dumped without aliases (snake_case keys, as pydantic's model_dump() gives)."""
    import re

    def snake(value):
        if isinstance(value, dict):
            return {re.sub(r"(?<!^)([A-Z])", r"_\1", k).lower(): snake(v) for k, v in value.items()}
        if isinstance(value, list):
            return [snake(v) for v in value]
        return value

    with open(NEW, encoding="utf-8") as fh:
        run = json.load(fh)
    path = tmp_path / "test_run_snake.json"
    path.write_text(json.dumps(snake(run)), encoding="utf-8")
    new, snaked = load_table(NEW).frame, load_table(path).frame
    for col in ("success", "TokenOverlap.success", "TokenOverlap.score", "Brevity.success", "Brevity.error",
                "token_cost", "evaluation_cost"):
        assert list(new[col].astype(str)) == list(snaked[col].astype(str)), col
