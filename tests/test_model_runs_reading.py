"""A model run several times over the same items: a 'run' column numbering the runs beside the
model column is the items' repeats, in every panel (one reading of the file).

Before, the same file read as 150 items per model in Aggregation (n counted every run's row),
was refused by Compare and pass@k, and its ids were flagged as repeated in the Problems dock,
while Runs and Repeats read the runs.  The expected values are computed here with pandas and
math.comb from the rows, independently of the workbench.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from workbench.analyses import reading
from workbench.io import load_table
from workbench.io.roles import find_problems, guess_roles

MODELS = {"gpt-a": 0.55, "gpt-b": 0.72}


@pytest.fixture(scope="module")
def runs_csv(tmp_path_factory) -> str:
    rng = np.random.default_rng(21)
    rows = []
    for model, p in MODELS.items():
        for run in (1, 2, 3):
            for i in range(40):
                rows.append((model, run, f"q{i:03d}", int(rng.random() < p)))
    path = tmp_path_factory.mktemp("runs") / "model_run.csv"
    pd.DataFrame(rows, columns=["model", "run", "item_id", "correct"]).to_csv(path, index=False)
    return str(path)


def test_the_run_column_is_the_repeat_and_no_id_is_reported_repeated(runs_csv):
    table = load_table(runs_csv)
    roles = guess_roles(table)
    assert roles["model"] == "system" and roles["run"] == "epoch" and roles["item_id"] == "item"
    assert not [p for p in find_problems(table, roles) if "repeats ids" in p.message]
    evaluation = reading.evaluation_of(table, roles)
    assert (evaluation.system, evaluation.item, evaluation.repeat) == ("model", "item_id", "run")


def test_named_runs_are_not_repeats(tmp_path):
    frame = pd.DataFrame({"model": ["m"] * 4, "run": ["baseline", "baseline", "tuned", "tuned"],
                          "item_id": ["a", "b", "a", "b"], "correct": [1, 0, 1, 1]})
    path = tmp_path / "named.csv"
    frame.to_csv(path, index=False)
    assert guess_roles(load_table(str(path))).get("run") != "epoch"


def test_describe_counts_items_and_their_tries(cli, runs_csv):
    described = cli("describe", runs_csv)
    counts = {r["metric"]: r["value"] for r in described["results"] if "system" not in r}
    assert counts["items"] == 40 and counts["repeats_min"] == counts["repeats_max"] == 3
    per_system = {r["system"]: r["value"] for r in described["results"]
                  if r.get("system") and r["metric"] == "items"}
    assert per_system == {"gpt-a": 40, "gpt-b": 40}


def test_aggregation_compare_and_runs_count_items_not_tries(cli, runs_csv):
    frame = pd.read_csv(runs_csv)
    per_item = frame.groupby(["model", "item_id"])["correct"].mean()
    aggregated = cli("aggregate", runs_csv)
    assert "unit:item(mean of repeats)" in aggregated["signature"]
    for model in MODELS:
        rate = next(r for r in aggregated["results"] if r["metric"] == "rate" and r.get("version") == model)
        assert rate["n"] == 40
        assert rate["value"] == pytest.approx(per_item[model].mean(), abs=1e-12)
    compared = cli("compare", runs_csv)
    diff = next(r for r in compared["results"] if r["metric"] == "mean_diff")
    assert diff["n"] == 40
    assert diff["value"] == pytest.approx(per_item["gpt-b"].mean() - per_item["gpt-a"].mean(), abs=1e-12)

def test_runs_sets_each_models_runs_side_by_side(cli, runs_csv):
    """The Runs panel's runs are the repeats themselves: each (model, run) is a run of 40 items."""
    frame = pd.read_csv(runs_csv)
    run_means = frame.groupby(["model", "run"])["correct"].mean()
    ran = cli("runs", runs_csv)
    rates = {r["system"]: (r["value"], r["n"]) for r in ran["results"] if r["metric"] == "run_rate"}
    assert rates == {f"{m} / {k}": (pytest.approx(v, abs=1e-12), 40) for (m, k), v in run_means.items()}


def test_pass_at_k_takes_each_items_tries_as_its_attempts(cli, runs_csv):
    frame = pd.read_csv(runs_csv)
    passed = cli("passk", runs_csv)
    for model in MODELS:
        counts = frame[frame["model"] == model].groupby("item_id")["correct"].agg(["size", "sum"])
        for k in (1, 2, 3):
            expected = np.mean([1 - math.comb(n - c, k) / math.comb(n, k) for n, c in counts.itertuples(index=False)])
            got = next(r for r in passed["results"] if r["metric"] == f"pass@{k}" and r["system"] == model)
            assert got["n"] == 40 and got["value"] == pytest.approx(expected, abs=1e-12)


def test_repeats_spread_is_the_spread_of_the_runs(cli, runs_csv):
    frame = pd.read_csv(runs_csv)
    run_means = frame.groupby(["model", "run"])["correct"].mean()
    result = cli("repeats", runs_csv)
    assert any("'run' was taken as the repeat column" in n for n in result["notes"])
    for model in MODELS:
        got = {r["metric"]: r["value"] for r in result["results"] if r.get("system") == model}
        assert got["seed_min"] == pytest.approx(run_means[model].min(), abs=1e-12)
        assert got["seed_max"] == pytest.approx(run_means[model].max(), abs=1e-12)
        assert got["seed_sd"] == pytest.approx(run_means[model].std(ddof=1), abs=1e-12)


def test_pass_at_one_of_a_file_with_one_try_per_item_is_its_rate(cli, tmp_path):
    """No task column, one row per item: the reading's item is the task (pass@1 = the rate),
    where pass@k used to refuse the file for want of a task column."""
    frame = pd.DataFrame({"item_id": [f"q{i}" for i in range(30)], "correct": [i % 3 == 0 for i in range(30)]})
    path = tmp_path / "one_try.csv"
    frame.assign(correct=frame["correct"].astype(int)).to_csv(path, index=False)
    passed = cli("passk", str(path))
    p1 = next(r for r in passed["results"] if r["metric"] == "pass@1")
    assert (p1["value"], p1["n"]) == (pytest.approx(10 / 30, abs=1e-12), 30)
    assert any("is the task" in n and "pass@1 is the success rate" in n for n in passed["notes"])


def test_a_column_named_for_tasks_stays_pass_at_ks_task(cli, tmp_path):
    """task_id beside a per-sample id: the samples are the task's attempts (not tasks each)."""
    frame = pd.DataFrame({"task_id": ["T/0", "T/0", "T/1", "T/1"], "sample_id": ["s1", "s2", "s3", "s4"],
                          "passed": [1, 0, 1, 1]})
    path = tmp_path / "task_sample.csv"
    frame.to_csv(path, index=False)
    passed = cli("passk", str(path))
    p2 = next(r for r in passed["results"] if r["metric"] == "pass@2")
    assert (p2["value"], p2["n"]) == (pytest.approx(1.0), 2)
