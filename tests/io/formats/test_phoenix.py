"""Arize Phoenix experiment exports written by Phoenix 20.26.1's own server (tests/fixtures/formats/
make_fixtures_46.py phoenix; FINDINGS_46.md): the JSON and the CSV export of one experiment with
3 repetitions, a failed task run, CODE, LLM and HUMAN annotations and an evaluator that raised.
Phoenix's own annotation summaries (meanScore: the mean over examples of each example's mean
over its repetitions; errorCount, scoreCount) are what the workbench reads from either file."""

from __future__ import annotations

import json
import os

import pytest

from workbench.core.errors import DataError
from workbench.io import load_table

HERE = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "formats", "phoenix"))
FILES = ["experiment.json", "experiment.csv"]


def _summaries():
    with open(os.path.join(HERE, "expected.json"), encoding="utf-8") as fh:
        want = json.load(fh)
    node = want["graphql_summaries"][want["experiment_id"]]["data"]["node"]
    return node, {s["annotationName"]: s for s in node["annotationSummaries"]}


@pytest.mark.parametrize("name", FILES)
def test_runs_repetitions_and_annotator_kinds(name):
    node, by_name = _summaries()
    table = load_table(os.path.join(HERE, name))
    ev, frame = table.evaluation, table.frame
    assert len(frame) == node["runCount"] and int(frame["repetition"].max()) == node["repetitions"]
    assert (ev.item, ev.repeat, ev.tool) == ("example_id", "repetition", "phoenix")
    kinds = {s.name: s.kind for s in ev.scorers}
    assert kinds == {"contains": "code", "exact": "code", "judge": "judge", "reviewer": "human",
                     "strict_number": "code"}
    assert set(kinds) == set(by_name)
    failed = (frame["error"] != "").sum()
    assert failed / len(frame) == pytest.approx(node["errorRate"], abs=1e-12)
    assert frame["example_id"][0] == "RGF0YXNldEV4YW1wbGU6MQ=="  # Phoenix's id, exact text


@pytest.mark.parametrize("name", FILES)
def test_phoenix_summaries_through_describe(cli, name):
    _, by_name = _summaries()
    out = cli("describe", os.path.join(HERE, name))
    got = {r["metric"]: r for r in out["results"] if r.get("system") is None}
    for evaluator, s in by_name.items():
        assert got[f"reported:{evaluator}"]["value"] == pytest.approx(s["meanScore"], abs=1e-9)
        assert got[f"scored:{evaluator}"]["value"] == s["scoreCount"]
    # an evaluator's errors: its own, and the failed task's run (Phoenix has no reviewer annotation there)
    for evaluator in ("contains", "exact", "judge", "strict_number"):
        assert got[f"errors:{evaluator}"]["value"] == by_name[evaluator]["errorCount"]


@pytest.mark.parametrize("name", FILES)
@pytest.mark.parametrize("evaluator", ["contains", "exact", "judge", "reviewer"])
def test_the_mean_over_examples_of_their_repetitions_is_phoenixs(cli, name, evaluator):
    """Aggregation and Repeats reduce an example's repetitions to their mean, errors left out,
    then average over examples: Phoenix's meanScore."""
    _, by_name = _summaries()
    path = os.path.join(HERE, name)
    out = cli("aggregate", path, "--scorer", evaluator)
    micro = next(r for r in out["results"] if r["metric"] == "micro")
    assert micro["value"] == pytest.approx(by_name[evaluator]["meanScore"], abs=1e-9)
    if evaluator != "reviewer":  # the people annotated one run of an example at most
        assert "unit:item(mean of repeats)" in out["signature"]
    out = cli("repeats", path, "--scorer", evaluator)
    rate = next(r for r in out["results"] if r["metric"] == "repeats_rate")
    assert rate["value"] == pytest.approx(by_name[evaluator]["meanScore"], abs=1e-9)


def test_the_failed_task_run_is_an_error_not_a_failure(cli):
    path = os.path.join(HERE, "experiment.json")
    kept = cli("passk", path)
    failed = cli("passk", path, "--errors", "fail")
    assert next(r for r in kept["results"] if r["metric"] == "pass@1")["value"] == pytest.approx(0.7222222222222222)
    # counted as a failure only when asked: example 3 then scores 2 of 3
    want = (1 + 2 / 3 + 2 / 3 + 1 / 3 + 2 / 3 + 2 / 3) / 6
    assert next(r for r in failed["results"] if r["metric"] == "pass@1")["value"] == pytest.approx(want, abs=1e-9)


@pytest.mark.parametrize("name", FILES)
def test_human_labels_land_on_the_judge_panel_beside_the_llm(cli, name):
    table = load_table(os.path.join(HERE, name))
    assert table.panel == "judge"
    assert table.roles["judge"] == "judge" and table.roles["reviewer"] == "human"
    out = cli("judge", os.path.join(HERE, name))
    agreement = next(r for r in out["results"] if r["metric"] == "agreement")
    # the runs both annotated with a score: Paris 1/1, Marlowe 0/0, Jupiter 1/1
    assert (agreement["n"], agreement["value"]) == (3, 1.0)


@pytest.mark.parametrize("name", ["experiment_no_evaluator.json", "experiment_no_evaluator.csv"])
def test_an_export_with_no_evaluator_is_one_sentence(cli, name):
    path = os.path.join(HERE, name)
    with pytest.raises(DataError) as err:
        load_table(path)
    assert path in str(err.value) and "no evaluator" in str(err.value) and "expected" in str(err.value)
    message = cli("describe", path, expect=2)
    assert "Traceback" not in message and "no evaluator" in message
