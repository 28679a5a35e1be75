"""Issue 44, the conventions table: latency percentiles under every numpy percentile method in
Cost's conventions; the verdict between versions in Aggregation's (so "the verdict holds under
k of m" is a record there too, as for Text); the card's sentence agrees with the card."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from statsmodels.stats.proportion import proportion_confint

from workbench.analyses import REGISTRY
from workbench.analyses.conventions import with_conventions
from workbench.io import load_table
from workbench.metrics.cost import PERCENTILE_METHODS
from workbench.report.present import answer

ROOT = Path(__file__).resolve().parents[1]
EX = ROOT / "resources" / "examples"
CARDS = ROOT / "tests" / "fixtures" / "cards"


def conventions(analysis, path, **options):
    module = REGISTRY[analysis]
    table = load_table(path)
    opts = module.Options(**options)
    return with_conventions(module.run(table, opts), table, opts), table


NUMPY_METHODS = ("inverted_cdf", "averaged_inverted_cdf", "closest_observation", "interpolated_inverted_cdf",
                 "hazen", "weibull", "linear", "median_unbiased", "normal_unbiased", "lower", "higher",
                 "midpoint", "nearest")


def test_latency_percentiles_under_every_numpy_method():
    res, table = conventions("cost", EX / "cost_latency.csv", system="system", success="success", cost="cost",
                             latency="latency_s")
    assert set(PERCENTILE_METHODS.values()) == set(NUMPY_METHODS)
    frame = table.frame
    rows = {r["convention"]: r for r in res.records if r.get("convention")}
    assert len(rows) == len(NUMPY_METHODS)
    for name, method in PERCENTILE_METHODS.items():
        key = next(k for k in rows if k.startswith(f"percentile_method: {name}"))
        a = np.percentile(frame.loc[frame["system"] == "A", "latency_s"], 95, method=method)
        b = np.percentile(frame.loc[frame["system"] == "B", "latency_s"], 95, method=method)
        assert rows[key]["value"] == pytest.approx(b - a, abs=1e-12), name
    assert res.value("verdict_holds:diff:latency_p95") == 0 and res.find("verdict_holds:diff:latency_p95")[0]["n"] == 13
    assert not any("percentile methods other than" in n for n in res.notes)


def test_aggregation_between_versions_has_a_verdict_and_its_count():
    """Simpson's paradox: the later version is worse pooled (micro) and better per segment
    (macro); the conventions table says it, with Newcombe's interval of the difference of the
    micro rates (MOVER on the two Wilson intervals)."""
    res, table = conventions("aggregate", EX / "simpson.csv", outcome="correct", group="segment",
                             version="version")
    micro = {r["version"]: r for r in res.find("micro")}
    old, new = micro["old"], micro["new"]
    lo1, hi1 = proportion_confint(round(old["value"] * old["n"]), old["n"], method="wilson")
    lo2, hi2 = proportion_confint(round(new["value"] * new["n"]), new["n"], method="wilson")
    d = new["value"] - old["value"]
    row = next(r for r in res.records if r["metric"] == "diff:rate" and "micro" in r["convention"])
    assert row["value"] == pytest.approx(d, abs=1e-12)
    assert row["ci_low"] == pytest.approx(d - np.hypot(new["value"] - lo2, hi1 - old["value"]), abs=1e-12)
    assert row["ci_high"] == pytest.approx(d + np.hypot(hi2 - new["value"], old["value"] - lo1), abs=1e-12)
    assert row["holds"] is False and row["from"] == "old" and row["to"] == "new"
    macro = next(r for r in res.records if r["metric"] == "diff:rate" and "macro" in r["convention"])
    assert macro["holds"] is True
    assert res.value("verdict_holds:diff:rate") == 1 and res.find("verdict_holds:diff:rate")[0]["n"] == 2
    text = answer(res).text
    assert "the candidate is not better (interval excluding 0) under the conventions as set, and is under 1 of the 2" in text


def test_text_conventions_count_the_verdict_per_metric():
    res, _ = conventions("text", CARDS / "text_baseline_wins.csv", system="system")
    for metric in ("exact_match", "token_f1", "rougeL", "bleu", "chrf"):
        rec = res.find(f"verdict_holds:diff:{metric}")[0]
        assert rec["n"] == len([r for r in res.records if r["metric"] == f"diff:{metric}" and r.get("convention")])
    text = answer(res).text
    assert "'v1' beats 'v2'" in text and "holds under 0 of" not in text
