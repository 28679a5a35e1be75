"""Aggregation of a measure in its own unit (a 1-5 rating, a correlation, a log-probability):
means per group, the mean over every row and the mean of group means, bootstrap intervals,
shown in the measure's unit (never a percentage), equal to pandas' groupby."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from workbench.analyses import aggregate, reading
from workbench.io import load_table
from workbench.report.present import answer


@pytest.fixture
def ratings(tmp_path):
    rng = np.random.default_rng(7)
    frame = pd.DataFrame({"item": [f"i{k}" for k in range(60)],
                          "segment": ["a"] * 10 + ["b"] * 20 + ["c"] * 30,
                          "rating": rng.integers(1, 6, 60).astype(float)})
    frame.loc[5, "rating"] = -2.5  # a signed value too
    path = tmp_path / "ratings.csv"
    frame.to_csv(path, index=False)
    return str(path), frame


def test_means_equal_a_groupby_and_are_shown_in_the_unit(ratings):
    path, frame = ratings
    table = load_table(path)
    result = aggregate.run(table, aggregate.Options(outcome="rating", group="segment"))
    by = frame.groupby("segment")["rating"].mean()
    for rec in result.find("rate"):
        assert rec["value"] == pytest.approx(by[rec["group"]], abs=1e-12) and rec["kind"] == "score"
        assert rec["ci_low"] < rec["value"] < rec["ci_high"]  # a bootstrap interval, in the unit
    micro = result.find("micro")[0]
    macro = result.find("macro")[0]
    assert micro["value"] == pytest.approx(frame["rating"].mean(), abs=1e-12) and micro["n"] == 60
    assert macro["value"] == pytest.approx(by.mean(), abs=1e-12) and macro["n"] == 3
    assert "outcome:measure(own-unit)" in result.signature
    text = " ".join(answer(result).sentences)
    assert f"{frame['rating'].mean():.3f}" in text and "%" not in text.replace("95% CI", ""), text
    assert any("measure in its own unit" in n for n in result.notes)


def test_the_reading_declares_a_plain_column_outside_0_1_a_measure(ratings):
    path, _ = ratings
    table = load_table(path)
    ev = reading.evaluation_of(table, {"item": "item", "segment": "group", "rating": "score"})
    assert next(s for s in ev.scorers if s.column == "rating").scale == "measure"


def test_a_measure_of_zeros_is_no_rate(tmp_path):
    """Set as a measure, 0/1-looking values are means (no Clopper-Pearson, no percentage)."""
    path = tmp_path / "zeros.csv"
    pd.DataFrame({"item": ["a", "b", "c", "d"], "logprob": [0.0, 0.0, 0.0, 0.0]}).to_csv(path, index=False)
    result = aggregate.run(load_table(str(path)), aggregate.Options(outcome="logprob", measure=True))
    micro = result.find("micro")[0]
    assert micro["value"] == 0 and micro["kind"] == "score" and micro.get("ci_method") != "Clopper-Pearson"
    assert "outcome:measure" in result.signature
    binary = aggregate.run(load_table(str(path)), aggregate.Options(outcome="logprob"))
    assert "outcome:binary" in binary.signature  # without the declaration: 0/1 outcomes, as before


def test_the_unit_form_of_a_measure_gives_means_per_unit_in_the_unit(ratings):
    """Outcome + unit on a measure: the mean over every row and the mean of the units' means,
    equal to pandas, shown in the unit."""
    path, frame = ratings
    result = aggregate.run(load_table(path), aggregate.Options(outcome="rating", unit="segment"))
    pooled, mean = result.find("pooled_ratio")[0], result.find("mean_of_ratios")[0]
    assert pooled["value"] == pytest.approx(frame["rating"].mean(), abs=1e-12) and pooled["kind"] == "score"
    assert mean["value"] == pytest.approx(frame.groupby("segment")["rating"].mean().mean(), abs=1e-12)
    assert mean["n"] == 3 and "outcome:measure(own-unit)" in result.signature
    text = " ".join(answer(result).sentences)
    assert "Mean" in text and "%" not in text.replace("95% CI", ""), text
