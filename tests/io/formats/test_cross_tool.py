"""Two runs of the same questions written by two different tools (promptfoo --repeat 3 and an
Inspect log with 2 epochs, tests/fixtures/formats/FINDINGS_43.md): stacked by what each file
declares, items matched by id (promptfoo's test description, Inspect's sample id), compared by
item with a sentence saying how the ids were matched and how many did not; plain tables with
different columns are still refused."""

from __future__ import annotations

import os

import numpy as np
import pandas as pd
import pytest

from workbench.core.errors import DataError
from workbench.io import load_many, load_table

HERE = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "formats"))
PROMPTFOO = os.path.join(HERE, "promptfoo_repeat", "results.json")
INSPECT = os.path.join(HERE, "inspect285_judge", "judge_alpha.eval")


def test_ids_matched_across_tools_and_said():
    table = load_many([PROMPTFOO, INSPECT])
    note = next(n for n in table.notes if n.startswith("Items matched by id"))
    assert "column 'description' of results.json and column 'sample_id' of judge_alpha.eval" in note
    assert "6 items in both" in note and "6 of judge_alpha.eval's 12" in note
    ev = table.evaluation
    assert (ev.item, ev.system, ev.repeat, ev.primary) == ("item", "system", "repeat", "outcome")
    frame = table.frame
    assert set(frame["system"]) == {"steady", "flaky", "mockllm/alpha"}
    # each file's own primary scorer, as its tool decided it
    pf, ins = load_table(PROMPTFOO).frame, load_table(INSPECT).frame
    mine = frame[frame["file"] == "results.json"]
    np.testing.assert_array_equal(mine["outcome"].to_numpy(), pf["success"].to_numpy(dtype=float))
    assert list(mine["item"]) == list(pf["description"]) and list(mine["repeat"]) == list(pf["repeat"])
    theirs = frame[frame["file"] == "judge_alpha.eval"]
    np.testing.assert_array_equal(theirs["outcome"].to_numpy(), ins["model_graded_qa"].to_numpy(dtype=float))
    assert list(theirs["item"]) == list(ins["sample_id"])


def test_compare_pairs_the_matched_items_of_the_two_tools(cli):
    out = cli("compare", PROMPTFOO, INSPECT, "--baseline-system", "steady", "--candidate-system", "mockllm/alpha")
    diff = next(r for r in out["results"] if r["metric"] == "mean_diff")
    table = load_many([PROMPTFOO, INSPECT]).frame
    ok = table[table["error"] == ""].dropna(subset=["outcome"])
    per = ok.groupby(["system", "item"])["outcome"].mean().unstack(0)
    both = per[["steady", "mockllm/alpha"]].dropna()
    assert diff["n"] == len(both)
    assert diff["value"] == pytest.approx((both["mockllm/alpha"] - both["steady"]).mean(), abs=1e-9)
    assert any("Items matched by id" in n for n in out["notes"])
    assert "unit:item(mean of repeats)" in out["signature"]


def test_files_of_different_tools_whose_ids_never_meet_are_one_sentence(tmp_path):
    deepeval = os.path.join(HERE, "deepeval", "test_run.json")
    with pytest.raises(DataError) as err:
        load_many([deepeval, os.path.join(HERE, "swebench", "lookup-agent.fixture46.json")])
    assert "cannot be compared" in str(err.value) and "meets" in str(err.value)


def test_plain_tables_with_different_columns_are_still_refused(tmp_path):
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    pd.DataFrame({"item": ["1", "2"], "correct": [1, 0]}).to_csv(a, index=False)
    pd.DataFrame({"id": ["1", "2"], "score": [0.5, 1.0]}).to_csv(b, index=False)
    with pytest.raises(DataError) as err:
        load_many([str(a), str(b)])
    assert "cannot be stacked" in str(err.value)


def test_each_files_other_scorers_are_kept_under_their_names_for_the_reading(cli):
    """Beside the primary scorers ('outcome'), every scorer of each file is a column of its own
    name, blank on the other file's rows: the reading may choose one, and says what it leaves."""
    table = load_many([PROMPTFOO, INSPECT])
    names = table.evaluation.scorer_names()
    assert names[0] == "outcome" and {"pass", "model_graded_qa", "includes"} <= set(names)
    frame = table.frame
    ins = load_table(INSPECT).frame
    theirs = frame[frame["file"] == "judge_alpha.eval"]
    np.testing.assert_array_equal(theirs["includes"].to_numpy(), ins["includes"].to_numpy(dtype=float))
    assert frame.loc[frame["file"] == "results.json", "includes"].isna().all()
    assert any("other scorers are kept" in n for n in table.notes)
    out = cli("describe", PROMPTFOO, INSPECT, "--scorer", "includes")
    assert "scorer:includes" in out["signature"]
    got = {r["metric"]: r["value"] for r in out["results"] if r["metric"].endswith(":includes")}
    assert got["scored:includes"] == int(ins["includes"].notna().sum())
    assert got["unscored:includes"] == int(frame["includes"].isna().sum()) - int(
        (frame["includes"].isna() & (frame["error"] != "")).sum())  # errored records are counted apart
