"""HELM run folders of other scenarios written by helm-run 0.5.16 (tests/fixtures/formats/
helm_variants/README.md): a multiple-choice run with exact_match@5 and a classification run whose
macro/micro F1 exist only in stats.json. The numbers are checked against HELM's own stats.json."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

from workbench.io import load_table

HERE = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "formats", "helm_variants"))
RUNS = ["simple_classification", "simple_mcqa"]


def _stats(run):
    with open(os.path.join(HERE, run, "stats.json"), encoding="utf-8") as fh:
        return [s for s in json.load(fh) if "perturbation" not in s["name"] and "sub_split" not in s["name"]]


def _per_instance_names(run):
    with open(os.path.join(HERE, run, "per_instance_stats.json"), encoding="utf-8") as fh:
        return {s["name"]["name"] for e in json.load(fh) for s in e["stats"]}


@pytest.mark.parametrize("run", RUNS)
def test_every_per_instance_metric_averages_to_helms_own_mean(run):
    table = load_table(os.path.join(HERE, run))
    frame = table.frame
    names = _per_instance_names(run)
    checked = 0
    for s in _stats(run):
        name = s["name"]["name"]
        if name not in names or "mean" not in s:
            continue  # count 0 (training_co2_cost): HELM writes no mean
        assert s["count"] == 1  # one train trial: HELM's mean is the mean over instances
        assert np.nanmean(frame[name].to_numpy(float)) == pytest.approx(s["mean"], abs=1e-9), name
        checked += 1
    assert checked >= 15
    reported = {sc.name: sc.reported for sc in table.evaluation.scorers}
    for s in _stats(run):
        if s["name"]["name"] in reported and "mean" in s:
            assert reported[s["name"]["name"]] == pytest.approx(s["mean"], abs=1e-12)
    assert len(frame) == 6 and frame["instance_id"].nunique() == 6


def test_stats_only_metrics_are_named_with_helms_values():
    table = load_table(os.path.join(HERE, "simple_classification"))
    note = next(n for n in table.notes if n.startswith("stats.json also reports"))
    names = _per_instance_names("simple_classification")
    only = [s for s in _stats("simple_classification") if s["name"]["name"] not in names and "mean" in s
            and s["name"]["name"] not in ("num_instances",)]
    assert {s["name"]["name"] for s in only} >= {"classification_macro_f1", "classification_micro_f1"}
    for s in only:
        assert f"{s['name']['name']} {s['mean']:.10g} (test, count {s['count']})" in note


def test_mcqa_primary_is_exact_match_and_the_cli_agrees(cli):
    path = os.path.join(HERE, "simple_mcqa")
    table = load_table(path)
    assert table.evaluation.primary == "exact_match" and "exact_match@5" in table.frame.columns
    want = next(s["mean"] for s in _stats("simple_mcqa") if s["name"]["name"] == "exact_match")
    out = cli("aggregate", path)
    micro = next(r for r in out["results"] if r["metric"] == "micro")
    assert micro["n"] == 6 and micro["value"] == pytest.approx(want, abs=1e-9)
    desc = cli("describe", path)
    assert any(r["metric"] == "items" for r in desc["results"])
