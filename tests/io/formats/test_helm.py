"""HELM run folders written by helm-run 0.5.16 with its simple scenario and model
(tests/fixtures/formats/make_fixtures_46.py helm; FINDINGS_46.md): every per-instance stat as
HELM names it, train trials as repeats, the robustness perturbation as a slice of the same
instance, and HELM's own stats.json means (over trials of each trial's mean over instances)
reproduced per slice through load_table and the command line."""

from __future__ import annotations

import json
import math
import os
import shutil

import pytest

from workbench.core.errors import DataError
from workbench.io import load_table

HERE = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "formats", "helm"))
RUNS = ["simple1", "simple1_em_robustness"]


def _expected(run):
    with open(os.path.join(HERE, "expected.json"), encoding="utf-8") as fh:
        return json.load(fh)["runs"][run]


def _key(name, perturbation):
    return f"{name}|test" + (f"|perturbation={perturbation}/perturbed" if perturbation != "original" else "")


@pytest.mark.parametrize("run", RUNS)
def test_every_per_instance_stat_as_helm_recorded_it(run):
    want = _expected(run)
    table = load_table(os.path.join(HERE, run))
    frame = table.frame
    assert len(frame) == len(want["per_instance"])
    for i, entry in enumerate(want["per_instance"]):
        assert frame["instance_id"][i] == entry["instance_id"]
        assert frame["train_trial"][i] == entry["train_trial_index"]
        pert = entry["perturbation"] or "original"
        assert frame["perturbation"][i] == pert
        for key, value in entry["values"].items():
            name = key.split("|")[0]
            got = frame[name][i]
            assert (value is None and math.isnan(got)) or got == pytest.approx(value, abs=1e-12)
    ev = table.evaluation
    assert ev.tool == "helm" and ev.repeat == "train_trial" and ev.item == "item"
    assert "perturbation" in ev.metadata and table.roles["perturbation"] == "group"
    assert ev.runs[0].config["model"] == "simple/model1"


@pytest.mark.parametrize("run", RUNS)
def test_stats_json_means_are_the_mean_over_trials_of_the_slice(run):
    """HELM's stats.json mean of each stat, for the original instances and for each
    perturbation's copies: the mean over items of each item's mean over its train trials."""
    want = _expected(run)
    frame = load_table(os.path.join(HERE, run)).frame
    checked = 0
    for pert in frame["perturbation"].unique():
        part = frame[frame["perturbation"] == pert]
        for name in frame.columns:
            key = _key(name, pert)
            if key not in want["stats_mean"] or want["stats_mean"][key] is None:
                continue
            per_item = part.groupby("item")[name].mean()
            assert per_item.mean() == pytest.approx(want["stats_mean"][key], abs=1e-9), key
            checked += 1
    assert checked >= 15


def test_the_perturbation_slices_through_the_command_line(cli):
    want = _expected("simple1_em_robustness")
    path = os.path.join(HERE, "simple1_em_robustness")
    for metric in ("exact_match", "exact_match@3", "quasi_exact_match@3", "prefix_exact_match@3"):
        out = cli("aggregate", path, "--scorer", metric)
        assert "unit:item(mean of repeats)" in out["signature"]
        for pert in ("original", "mild_mix"):
            rate = next(r for r in out["results"] if r["metric"] == "rate" and r["group"] == pert)
            assert rate["value"] == pytest.approx(want["stats_mean"][_key(metric, pert)], abs=1e-9)
            assert rate["n"] == 3  # instances, never instance x trial
    desc = cli("describe", path)
    got = {r["metric"]: r for r in desc["results"] if r.get("system") is None}
    for metric in ("exact_match@3", "max_prob", "logprob"):
        assert got[f"reported:{metric}"]["value"] == pytest.approx(want["stats_mean"][f"{metric}|test"], abs=1e-9)
        assert got[f"reported:{metric}"]["n"] == want["stats_count"][f"{metric}|test"]
    assert "reported:num_references" not in got  # HELM's bookkeeping: a column, not a scorer
    assert got["repeats_max"]["value"] == 3


def test_the_stock_run_names_its_primary_and_its_usage(cli):
    want = _expected("simple1")
    table = load_table(os.path.join(HERE, "simple1"))
    assert table.evaluation.primary == "logprob"  # no accuracy metric in the stock run
    assert table.evaluation.usage["input_tokens"] == "num_prompt_tokens"
    out = cli("describe", os.path.join(HERE, "simple1"))
    got = {r["metric"]: r["value"] for r in out["results"] if r.get("system") is None}
    trials = want["stats_count"]["num_prompt_tokens|test"]
    # HELM's count is the trials; its sum is the sum of the per-trial means
    per_trial = table.frame.groupby("train_trial")["num_prompt_tokens"].mean()
    assert per_trial.mean() == pytest.approx(want["stats_mean"]["num_prompt_tokens|test"], abs=1e-9)
    assert got["total:input_tokens"] == table.frame["num_prompt_tokens"].sum() and len(per_trial) == trials


def test_the_per_instance_stats_file_opens_its_run(tmp_path):
    table = load_table(os.path.join(HERE, "simple1", "per_instance_stats.json"))
    assert table.evaluation.tool == "helm" and len(table.frame) == 30


def test_a_helm_folder_without_its_stats_is_one_sentence(tmp_path, cli):
    folder = tmp_path / "simple1"
    shutil.copytree(os.path.join(HERE, "simple1"), folder)
    os.remove(folder / "per_instance_stats.json")
    with pytest.raises(DataError) as err:
        load_table(folder)
    assert str(folder) in str(err.value) and "per_instance_stats.json" in str(err.value)
    assert "expected" in str(err.value)
    message = cli("describe", folder, expect=2)
    assert "Traceback" not in message and "per_instance_stats.json" in message


def test_a_run_without_an_accuracy_metric_lands_on_the_mean_of_its_measure(cli):
    """The stock run's primary stat is a log-probability (every value 0 here): a measure in its
    own unit, its mean over instances (train trials reduced by their mean), never 0/1 outcomes
    read as a 0% rate."""
    want = _expected("simple1")
    table = load_table(os.path.join(HERE, "simple1"))
    assert table.panel == "aggregate"
    scorer = table.evaluation.scorer()
    assert scorer.name == "logprob" and scorer.scale == "measure"
    out = cli("aggregate", os.path.join(HERE, "simple1"))
    micro = next(r for r in out["results"] if r["metric"] == "micro")
    per_instance = table.frame.groupby("instance_id")["logprob"].mean()
    assert micro["n"] == len(per_instance) == table.frame["instance_id"].nunique()
    assert micro["value"] == pytest.approx(per_instance.mean(), abs=1e-12)
    assert micro["value"] == pytest.approx(want["stats_mean"]["logprob|test"], abs=1e-9)
    assert micro["kind"] == "score" and "ci_method" not in micro or micro["ci_method"] != "Clopper-Pearson"
    assert "outcome:measure(own-unit)" in out["signature"] and "outcome:binary" not in out["signature"]
