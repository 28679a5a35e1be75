"""Judge and rubric fields written by the real tools (tests/fixtures/formats/make_fixtures.py
inspect_judge and promptfoo_judge): Inspect's model-graded scorers (grade letters, the grader's
explanation, an unscored sample), a scorer whose value is a dict (one criterion per key) and a
human label in the sample metadata; promptfoo's llm-rubric and model-graded-closedqa
assertions (named metrics with weights, the grader's reasons).  The columns equal what
inspect_ai's own reader wrote (judge_expected.csv) and what is read here from promptfoo's JSON
with the standard library; `workbench rubric` and `workbench judge` on these logs give named,
non-empty answers equal to values computed here by hand and with statsmodels / scipy."""

from __future__ import annotations

import json
import os

import numpy as np
import pandas as pd
import pytest
from scipy.stats import binomtest
from statsmodels.stats.inter_rater import cohens_kappa

from workbench.io import load_table

FORMATS = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "fixtures", "formats"))
INSPECT = os.path.join(FORMATS, "inspect_judge")
PROMPTFOO = os.path.join(FORMATS, "promptfoo_judge", "results.json")
LOGS = ("judge_alpha.eval", "judge_beta.eval")
LETTERS = ("model_graded_qa", "model_graded_fact", "rubric.cites", "rubric.concise")


@pytest.fixture(scope="module")
def expected() -> pd.DataFrame:
    frame = pd.read_csv(os.path.join(INSPECT, "judge_expected.csv"), dtype=str, keep_default_na=False)
    for col in LETTERS:
        frame[f"{col}_value"] = frame[f"{col}_value"].astype(float)  # "nan" for the unscored sample
    frame["epoch"] = frame["epoch"].astype(int)
    frame["item"] = [f"{s} (epoch {e})" for s, e in zip(frame["sample_id"], frame["epoch"])]
    return frame


# ---- Inspect: the reader's columns --------------------------------------------------------------

@pytest.mark.parametrize("log", LOGS)
def test_grades_criteria_explanations_and_labels_equal_inspects_reader(expected, log):
    table = load_table(os.path.join(INSPECT, log))
    frame = table.frame.set_index(["sample_id", "epoch"])
    want = expected[expected["log"] == log]
    assert len(table.frame) == len(want) == 12  # 6 samples x 2 epochs
    for _, row in want.iterrows():
        got = frame.loc[(row["sample_id"], row["epoch"])]
        for col in LETTERS:  # the number as value_to_float reads it, the letter as written
            assert got[col] == row[f"{col}_value"] or (np.isnan(got[col]) and np.isnan(row[f"{col}_value"]))
            assert got[f"{col}.grade"] == row[col]
        assert got["metadata.human"] == row["human"]
        assert got["explanation"] == row["qa_explanation"]  # the grader model's reply
        assert got["explanation.rubric"] == row["rubric_explanation"]
        assert got["explanation.model_graded_fact"].endswith(f"GRADE: {row['model_graded_fact']}")
    assert "metadata.answers" not in frame.columns  # a dict in the metadata is not a column


def test_an_unscored_sample_is_blank_and_named(expected):
    table = load_table(os.path.join(INSPECT, "judge_beta.eval"))
    want = expected[(expected["log"] == "judge_beta.eval") & (expected["model_graded_qa"] == "")]
    assert len(want) == 1  # the grader's reply without a grade
    row = table.frame[(table.frame["sample_id"] == want["sample_id"].item())
                      & (table.frame["epoch"] == want["epoch"].item())]
    assert np.isnan(row["model_graded_qa"].item()) and row["model_graded_qa.grade"].item() == ""
    assert any("1 of 12 samples are unscored by 'model_graded_qa'" in n and "grader_failed" in n
               for n in table.notes)


# ---- Inspect: `workbench rubric` on the two logs ------------------------------------------------

def _by_system(out: dict, metric: str, system: str) -> dict:
    found = [r for r in out["results"] if r["metric"] == metric and r.get("system") == system]
    assert len(found) == 1, (metric, system)
    return found[0]


def _pair(out: dict, metric: str) -> dict:
    found = [r for r in out["results"] if r["metric"] == metric]
    assert len(found) == 1, metric
    return found[0]


def test_rubric_on_inspect_logs_equals_hand_computed_rates_and_scores(cli, expected):
    """The rubric compares samples, each sample's epochs reduced to their mean (issue 43: a repeat
    is never an item): a criterion's value per sample is the share of its epochs that passed."""
    criteria, weights = ["rubric.cites", "rubric.concise", "model_graded_qa"], [1.0, 1.0, 2.0]
    out = cli("rubric", os.path.join(INSPECT, LOGS[0]), os.path.join(INSPECT, LOGS[1]), "--item", "item",
              "--criteria", ",".join(criteria), "--weights", "1,1,2", "--system", "model",
              "--baseline-system", "mockllm/alpha", "--resamples", "1000")
    assert out["analysis"] == "rubric" and out["results"]
    assert "w:1,1,2" in out["signature"] and "missing:skip-renormalise" in out["signature"]
    assert "unit:item(mean of repeats)" in out["signature"]
    cols = [f"{c}_value" for c in criteria]
    per_sample = expected.groupby(["model", "sample_id"])[cols].mean()  # NaN epochs left out
    rates = {}
    for model in ("mockllm/alpha", "mockllm/beta"):
        V = per_sample.loc[model].to_numpy()
        scores = []
        for shares in V:  # a blank criterion: the sample is scored on its other criteria
            keep = ~np.isnan(shares)
            scores.append(np.dot(shares[keep], np.array(weights)[keep]) / np.array(weights)[keep].sum())
        score = _by_system(out, "rubric_score", model)
        assert score["value"] == pytest.approx(np.mean(scores)) and score["n"] == len(V)
        for k, c in enumerate(criteria):
            column = V[:, k][~np.isnan(V[:, k])]
            rate = _by_system(out, f"criterion_rate:{c}", model)
            assert (rate["value"], rate["n"]) == (pytest.approx(column.mean()), len(column))
            assert rate["ci_low"] <= column.mean() <= rate["ci_high"] and 0 <= rate["ci_low"] <= rate["ci_high"] <= 1
            rates[model, c] = column.mean()
    diff = _pair(out, "diff:rubric_score")
    assert diff["value"] == pytest.approx(_by_system(out, "rubric_score", "mockllm/beta")["value"]
                                          - _by_system(out, "rubric_score", "mockllm/alpha")["value"])
    a, b = per_sample.loc["mockllm/alpha"], per_sample.loc["mockllm/beta"]
    for k, c in enumerate(criteria):
        contribution = _pair(out, f"contribution:{c}")["value"]
        assert contribution == pytest.approx(weights[k] * (rates["mockllm/beta", c] - rates["mockllm/alpha", c])
                                             / sum(weights))
        pairs = pd.concat([a[f"{c}_value"], b[f"{c}_value"]], axis=1, keys=["a", "b"]).dropna()
        d = (pairs.b - pairs.a).round(10)
        up, down = int((d > 0).sum()), int((d < 0).sum())
        assert _pair(out, f"criterion_diff:{c}")["value"] == pytest.approx(d.mean())
        assert _pair(out, f"criterion_diff:{c}")["n"] == len(pairs)
        assert _pair(out, f"criterion_sign_p:{c}")["value"] == pytest.approx(binomtest(up, up + down).pvalue)


# ---- Inspect: `workbench judge` (the grader's letter against the person's) -----------------------

@pytest.mark.parametrize("log", LOGS)
def test_judge_on_an_inspect_log_equals_statsmodels(cli, expected, log):
    out = cli("judge", os.path.join(INSPECT, log), "--item", "item", "--judge", "model_graded_qa.grade",
              "--human", "metadata.human", "--positive", "C")
    assert out["analysis"] == "judge" and out["results"] and "positive:C" in out["signature"]
    want = expected[(expected["log"] == log) & (expected["model_graded_qa"] != "")]  # unscored: no label
    judge, human = want["model_graded_qa"].to_numpy(), want["human"].to_numpy()
    n = len(want)
    confusion = np.array([[np.sum((judge == j) & (human == h)) for h in "CI"] for j in "CI"])
    kappa = cohens_kappa(confusion)
    got = {r["metric"]: r for r in out["results"]}
    assert (got["agreement"]["value"], got["agreement"]["n"]) == (pytest.approx(np.mean(judge == human)), n)
    assert got["kappa"]["value"] == pytest.approx(kappa.kappa)
    assert got["kappa_se"]["value"] == pytest.approx(kappa.std_kappa)
    assert (got["kappa"]["ci_low"], got["kappa"]["ci_high"]) == (pytest.approx(kappa.kappa_low),
                                                                   pytest.approx(kappa.kappa_upp))
    q1 = np.mean(judge[human == "C"] == "C")  # sensitivity
    q0 = np.mean(judge[human == "I"] == "I")  # specificity
    p = np.mean(judge == "C")
    assert got["sensitivity"]["value"] == pytest.approx(q1) and got["sensitivity"]["n"] == np.sum(human == "C")
    assert got["specificity"]["value"] == pytest.approx(q0) and got["specificity"]["n"] == np.sum(human == "I")
    assert got["judge_pass_rate"]["value"] == pytest.approx(p)
    assert got["corrected_pass_rate"]["value"] == pytest.approx((p + q0 - 1) / (q0 + q1 - 1))
    assert got["disagreements"]["value"] == int(np.sum(judge != human))
    assert got["judge_pass_human_fail"]["value"] == int(np.sum((judge == "C") & (human == "I")))
    assert sorted(r["item"] for r in out["tables"]["disagreements"]) == sorted(want["item"][judge != human])


# ---- promptfoo: model-graded assertions with named metrics and weights --------------------------

def _promptfoo():
    with open(PROMPTFOO, encoding="utf-8") as fh:
        return json.load(fh)["results"]["results"]


def _component(result: dict, metric: str) -> dict:
    return next(c for c in result["gradingResult"]["componentResults"] if c["assertion"]["metric"] == metric)


METRICS = ("cites", "concise", "correct")


def test_promptfoo_assertions_reasons_and_weights_are_read():
    rows = _promptfoo()
    table = load_table(PROMPTFOO)
    frame = table.frame
    assert len(frame) == len(rows) == 10  # 5 tests x 2 providers
    types = {m: _component(rows[0], m)["assertion"]["type"] for m in METRICS}
    assert types == {"cites": "llm-rubric", "concise": "llm-rubric", "correct": "model-graded-closedqa"}
    for m in METRICS:
        assert list(frame[f"assert.{m}"]) == [float(_component(r, m)["pass"]) for r in rows]
        assert list(frame[f"reason.{m}"]) == [_component(r, m)["reason"] for r in rows]
        assert list(frame[f"named.{m}"]) == [float(r["namedScores"][m]) for r in rows]
    weights = [_component(rows[0], m)["assertion"]["weight"] for m in METRICS]
    assert weights == [rows[0]["gradingResult"]["namedScoreWeights"][m] for m in METRICS]
    assert any(f"--weights {','.join(str(w) for w in weights)}" in n for n in table.notes)
    # promptfoo's own score is the weighted mean of the assertions' scores (not of their passes)
    for r in rows:
        assert r["score"] == pytest.approx(sum(w * _component(r, m)["score"] for w, m in zip(weights, METRICS))
                                           / sum(weights))


def test_rubric_on_promptfoo_equals_the_weighted_passes(cli):
    rows = _promptfoo()
    weights = [_component(rows[0], m)["assertion"]["weight"] for m in METRICS]
    out = cli("rubric", PROMPTFOO, "--item", "item", "--system", "provider", "--baseline-system", "echo",
              "--criteria", ",".join(f"assert.{m}" for m in METRICS), "--weights", ",".join(map(str, weights)),
              "--resamples", "1000")
    assert out["analysis"] == "rubric" and out["results"]
    mean = {}
    for provider in ("echo", "priced"):
        mine = [r for r in rows if r["provider"]["label"] == provider]
        scores = [sum(w * _component(r, m)["pass"] for w, m in zip(weights, METRICS)) / sum(weights) for r in mine]
        got = _by_system(out, "rubric_score", provider)
        assert (got["value"], got["n"]) == (pytest.approx(np.mean(scores)), len(mine))
        mean[provider] = np.mean(scores)
        for m in METRICS:
            rate = _by_system(out, f"criterion_rate:assert.{m}", provider)
            assert rate["value"] == pytest.approx(np.mean([_component(r, m)["pass"] for r in mine]))
    assert _pair(out, "diff:rubric_score")["value"] == pytest.approx(mean["priced"] - mean["echo"])
