"""Issue 44, Rubric: huge weights do not overflow, the contribution's change is the one its
table shows and its signature names, the paired t is named in the signature."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from workbench.analyses import rubric
from workbench.io import load_table

ROOT = Path(__file__).resolve().parents[1]
EX = ROOT / "resources" / "examples"


def test_weights_of_1e308_give_the_equal_weights_score():
    """sum(w) of two 1e308 weights overflowed: every score became NaN, the rubric score 0.0% with
    a false 'items have no verdict'."""
    opts = dict(item="question", system="version", criteria="correct,cites_source,complete,concise")
    big = rubric.run(load_table(EX / "rubric_answers.csv"), rubric.Options(weights="1e308,1e308,1e308,1e308", **opts))
    one = rubric.run(load_table(EX / "rubric_answers.csv"), rubric.Options(**opts))
    for a, b in zip(big.find("rubric_score"), one.find("rubric_score")):
        assert a["value"] == pytest.approx(b["value"], abs=1e-12) and a["n"] == b["n"]
    assert not any("no verdict at all" in n for n in big.notes)
    for a, b in zip(big.find("diff:rubric_score"), one.find("diff:rubric_score")):
        assert a["value"] == pytest.approx(b["value"], abs=1e-12)
    got = {r["metric"]: r["value"] for r in big.records if r["metric"].startswith("contribution:")}
    want = {r["metric"]: r["value"] for r in one.records if r["metric"].startswith("contribution:")}
    assert got == pytest.approx(want, abs=1e-12)


def test_the_contributions_change_is_shown_and_named():
    """With blank verdicts the contribution's change (each side's pass rate on the common items,
    over its own verdicts) differs from the table's paired change; both are shown, each named."""
    res = rubric.run(load_table(EX / "rubric_answers.csv"), rubric.Options(item="question", system="version"))
    table = res.table("criteria_compared").frame
    w = table["weight"].to_numpy() / table["weight"].sum()
    assert table["contribution"].to_numpy() == pytest.approx(w * table["rate_change"].to_numpy(), abs=1e-12)
    differs = table[(table["rate_change"] - table["diff"]).abs() > 1e-9]
    assert len(differs)  # blank verdicts make the two changes differ in this example
    for row in table.to_dict("records"):
        assert res.value(f"criterion_rate_change:{row['criterion']}", from_=row["from"], to=row["to"]) == row["rate_change"]
    assert "delta_rate:rate_to-rate_from(common-items,own-verdicts)" in res.signature
    assert "criterion-diff:paired(items-with-both-verdicts)" in res.signature
    assert "|t:paired,two-sided,df:n-1" in res.signature and "diff-tests:paired-t,randomization" in res.signature
