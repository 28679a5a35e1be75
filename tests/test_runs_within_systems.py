"""Runs on a file whose system column holds several runs of each system: the runs are told apart
by the column that names them (a model's run ids, or each (model, run) pair), never refused as
repeated (run, item) pairs nor pooled.  Expected rates come from pandas on the written file."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from workbench.analyses import runs
from workbench.core.errors import DataError
from workbench.io import load_table


def _write(tmp_path, frame: pd.DataFrame, name: str) -> str:
    path = tmp_path / name
    frame.to_csv(path, index=False)
    return str(path)


def _rates(result) -> dict:
    return {r["system"]: r for r in result.records if r["metric"] == "run_rate"}


def _frame(run_name: str, rng) -> pd.DataFrame:
    rows = []
    for model, p in (("gpt-a", 0.5), ("gpt-b", 0.75)):
        for run in (1, 2, 3):
            label = run if run_name == "run" else f"{model}-r{run}"
            rows += [{"model": model, run_name: label, "item_id": f"q{i:03d}", "correct": int(rng.random() < p)}
                     for i in range(30)]
    return pd.DataFrame(rows)


def test_a_models_runs_numbered_1_2_3_are_each_a_model_and_run_pair(tmp_path):
    frame = _frame("run", np.random.default_rng(5))
    result = runs.run(load_table(_write(tmp_path, frame, "runs.csv")), runs.Options())
    got = _rates(result)
    expected = frame.groupby(["model", "run"])["correct"].mean()
    assert set(got) == {f"{m} / {r}" for m, r in expected.index}
    for (model, run), value in expected.items():
        assert got[f"{model} / {run}"]["value"] == pytest.approx(value)
        assert got[f"{model} / {run}"]["n"] == 30
    assert any("Each run is a ('model', 'run') pair" in n for n in result.notes)


def test_run_ids_within_a_model_are_the_runs(tmp_path):
    frame = _frame("run_id", np.random.default_rng(6))
    result = runs.run(load_table(_write(tmp_path, frame, "run_ids.csv")), runs.Options())
    got = _rates(result)
    expected = frame.groupby("run_id")["correct"].mean()
    assert set(got) == set(expected.index)
    for run_id, value in expected.items():
        assert got[run_id]["value"] == pytest.approx(value)
    assert any("Column 'run_id' names the runs" in n for n in result.notes)


@pytest.mark.parametrize("run_name", ["run", "run_id"])
def test_a_run_column_given_keeps_its_name_in_each_run(tmp_path, run_name):
    """The window passes the reading's system ('model') as the run column: its runs are then
    (model, run) pairs, the model's name in each, not a refusal of repeated pairs."""
    frame = _frame(run_name, np.random.default_rng(7))
    result = runs.run(load_table(_write(tmp_path, frame, "given.csv")), runs.Options(system="model"))
    got = _rates(result)
    expected = frame.groupby(["model", run_name])["correct"].mean()
    assert set(got) == {f"{m} / {r}" for m, r in expected.index}
    for (model, run), value in expected.items():
        assert got[f"{model} / {run}"]["value"] == pytest.approx(value)


def test_pairs_no_column_tells_apart_are_still_refused(tmp_path):
    frame = _frame("run", np.random.default_rng(8))
    frame = pd.concat([frame, frame.iloc[:5]], ignore_index=True)  # the same (model, run, item) twice
    with pytest.raises(DataError, match=r"repeat a \(run, item\) pair"):
        runs.run(load_table(_write(tmp_path, frame, "twice.csv")), runs.Options())
