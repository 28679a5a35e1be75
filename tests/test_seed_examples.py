"""Every worked number of the domain reference, through the public functions and the CLI.

The expected values are the reference's own figures (rounded as it rounds them), or the exact
fractions they come from, never values copied from the code under test.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from conftest import table_of, value
from workbench.analyses import aggregate, compare, cost, passk, plan, ranking, text
from workbench.metrics import intervals, passk as pk, significance as sg
from workbench.metrics.aggregate import micro_macro, pooled_and_mean_ratio
from workbench.metrics.cost import cost_per_success, marginal_cost
from workbench.metrics.text import exact_match, token_f1_one


# --- text: "refund within 7 days" vs "refund in 7 working days" ---------------------------

def test_token_f1_refund_window():
    pred, ref = "refund within 7 days", "refund in 7 working days"
    precision, recall = 3 / 4, 3 / 5
    assert token_f1_one(pred, ref, "case_ws") == pytest.approx(2 * precision * recall / (precision + recall))
    assert round(token_f1_one(pred, ref, "case_ws"), 3) == 0.667
    assert exact_match([pred], [ref], "case_ws")[0] == 0.0


def test_token_f1_refund_window_cli(cli, write_csv):
    path = write_csv("t.csv", pd.DataFrame({"prediction": ["refund within 7 days"],
                                            "reference": ["refund in 7 working days"]}))
    out = cli("text", path, "--prediction", "prediction", "--reference", "reference")
    assert round(value(out, "token_f1")["value"], 3) == 0.667
    assert value(out, "exact_match")["value"] == 0.0
    assert value(out, "token_f1")["n"] == 1


# --- ranking: [R, N, R, N, N], two relevant in the collection --------------------------------

def _seed_run():
    return pd.DataFrame({"query": ["q"] * 5, "doc": list("abcde"), "score": [5, 4, 3, 2, 1],
                         "relevance": [1, 0, 1, 0, 0]})


def test_precision_recall_ndcg_of_the_seed_ranking():
    res = ranking.run(table_of(_seed_run()), ranking.Options(ks=(3, 5)))
    assert res.value("p@3") == pytest.approx(2 / 3)
    assert res.value("p@5") == pytest.approx(2 / 5)
    assert res.value("r@3") == pytest.approx(1.0)
    dcg = 1 / math.log2(2) + 0 + 1 / math.log2(4)
    idcg = 1 + 1 / math.log2(3)
    assert dcg == pytest.approx(1.5) and round(idcg, 3) == 1.631
    assert res.value("ndcg@3") == pytest.approx(dcg / idcg)
    assert round(res.value("ndcg@3"), 2) == 0.92


def test_both_relevant_first_scores_one_and_late_relevant_scores_less():
    perfect = _seed_run().assign(relevance=[1, 1, 0, 0, 0])
    late = _seed_run().assign(relevance=[0, 0, 1, 1, 0])
    assert ranking.run(table_of(perfect), ranking.Options(ks=(3,))).value("ndcg@3") == pytest.approx(1.0)
    assert ranking.run(table_of(late), ranking.Options(ks=(3,))).value("ndcg@3") < 0.92


def test_mrr_first_relevant_at_1_3_2(cli, examples):
    out = cli("ranking", examples / "ranking_seed.csv", "--k", "3,5")
    assert value(out, "mrr")["value"] == pytest.approx((1 + 1 / 3 + 1 / 2) / 3)
    assert round(value(out, "mrr")["value"], 3) == 0.611
    assert value(out, "mrr")["n"] == 3


def test_seed_ranking_cli_query_q1(cli, write_csv):
    out = cli("ranking", write_csv("r.csv", _seed_run()), "--k", "3,5")
    assert value(out, "p@3")["value"] == pytest.approx(2 / 3)
    assert value(out, "p@5")["value"] == pytest.approx(0.4)
    assert value(out, "r@3")["value"] == pytest.approx(1.0)
    assert round(value(out, "ndcg@3")["value"], 2) == 0.92
    assert "gain:linear" in out["signature"] and "ties:trec_eval" in out["signature"]


def test_graded_ndcg_linear_and_exponential(cli, examples):
    lin = cli("ranking", examples / "ranking_graded.csv", "--k", "3", "--gain", "linear")
    dcg = 2 + 3 / math.log2(3)
    idcg = 3 + 2 / math.log2(3)
    assert round(dcg, 3) == 3.893 and round(idcg, 3) == 4.262
    assert value(lin, "ndcg@3")["value"] == pytest.approx(dcg / idcg)
    assert round(value(lin, "ndcg@3")["value"], 3) == 0.913
    exp = cli("ranking", examples / "ranking_graded.csv", "--k", "3", "--gain", "exponential")
    e_dcg = 3 + 7 / math.log2(3)
    e_idcg = 7 + 3 / math.log2(3)
    assert value(exp, "ndcg@3")["value"] == pytest.approx(e_dcg / e_idcg)
    assert round(value(exp, "ndcg@3")["value"], 3) == 0.834
    assert "gain:exponential" in exp["signature"]


# --- pass@k: n = 10, c = 3 ----------------------------------------------------------------------

@pytest.mark.parametrize("k, expected", [(1, 1 - 7 / 10), (3, 1 - 35 / 120), (5, 1 - 21 / 252)])
def test_unbiased_pass_at_k(k, expected):
    assert pk.pass_at_k([10], [3], k)[0] == pytest.approx(expected)


def test_seed_pass_values_rounded():
    assert round(pk.pass_at_k([10], [3], 1)[0], 2) == 0.30
    assert round(pk.pass_at_k([10], [3], 3)[0], 3) == 0.708
    assert round(pk.pass_at_k([10], [3], 5)[0], 3) == 0.917
    assert pk.pass_hat_k([10], [3], 3)[0] == pytest.approx(1 / 120)
    assert round(pk.pass_hat_k([10], [3], 3)[0], 3) == 0.008
    assert round(pk.naive_pass_at_k([10], [3], 3)[0], 3) == 0.657
    assert round(pk.naive_pass_hat_k([10], [3], 3)[0], 3) == 0.027
    # plug-in pass@3 is about 5 points low, plug-in pass^3 more than three times too high
    assert 0.04 < pk.pass_at_k([10], [3], 3)[0] - pk.naive_pass_at_k([10], [3], 3)[0] < 0.06
    assert pk.naive_pass_hat_k([10], [3], 3)[0] > 3 * pk.pass_hat_k([10], [3], 3)[0]


@pytest.mark.parametrize("name", ["passk_counts.csv", "passk_attempts.csv"])
def test_passk_cli_counts_and_attempts(cli, examples, name):
    extra = ["--n", "n", "--correct", "c"] if "counts" in name else ["--success", "success"]
    out = cli("passk", examples / name, "--task", "task", *extra, "--k", "1,3,5")
    assert value(out, "pass@1")["value"] == pytest.approx(0.3)
    assert value(out, "pass@3")["value"] == pytest.approx(1 - 35 / 120)
    assert value(out, "pass@5")["value"] == pytest.approx(1 - 21 / 252)
    assert value(out, "pass^3")["value"] == pytest.approx(1 / 120)
    assert value(out, "naive_pass@3")["value"] == pytest.approx(1 - 0.7 ** 3)
    assert value(out, "naive_pass^3")["value"] == pytest.approx(0.3 ** 3)
    assert value(out, "pass@3")["n"] == 1


def test_three_in_a_row_at_75_percent():
    assert round(pk.naive_pass_hat_k([4], [3], 3)[0], 2) == 0.42  # 0.75^3


def test_pass_at_10_of_90_percent_implies_a_fifth_per_try(cli):
    p = intervals.implied_per_try_rate(0.9, 10)
    assert p == pytest.approx(1 - 0.1 ** (1 / 10))
    assert round(float(p), 3) == 0.206
    assert round(float(p) ** 3, 3) == 0.009
    out = cli("plan", "--pass-at-k", "0.9", "--k", "10")
    assert round(value(out, "per_try_p")["value"], 3) == 0.206


# --- aggregation --------------------------------------------------------------------------------

def test_micro_macro_multilingual(cli, examples):
    assert micro_macro([900, 100], [810, 60]) == pytest.approx((0.87, 0.75))
    out = cli("aggregate", examples / "multilingual.csv", "--outcome", "correct", "--group", "language")
    assert value(out, "micro")["value"] == pytest.approx(0.87)
    assert value(out, "micro")["n"] == 1000
    assert value(out, "macro")["value"] == pytest.approx(0.75)
    assert value(out, "macro")["n"] == 2
    assert value(out, "rate", group="English")["value"] == pytest.approx(0.9)
    assert value(out, "rate", group="English")["n"] == 900
    assert value(out, "rate", group="Hindi")["value"] == pytest.approx(0.6)
    assert value(out, "rate", group="Hindi")["n"] == 100


def test_pooled_vs_mean_of_ratios(cli, examples):
    pooled, mean, used, zero = pooled_and_mean_ratio([1, 2], [1, 10])
    assert (pooled, mean, used, zero) == (pytest.approx(3 / 11), pytest.approx(0.6), 2, 0)
    out = cli("aggregate", examples / "claims.csv", "--numerator", "correct_claims",
              "--denominator", "claims", "--unit", "conversation")
    assert round(value(out, "pooled_ratio")["value"], 2) == 0.27
    assert value(out, "pooled_ratio")["n"] == 11
    assert value(out, "mean_of_ratios")["value"] == pytest.approx(0.6)
    assert value(out, "mean_of_ratios")["n"] == 2


def test_simpson_paradox(cli, examples):
    out = cli("aggregate", examples / "simpson.csv", "--outcome", "correct", "--group", "segment",
              "--version", "version")
    assert value(out, "rate", version="old", group="easy")["value"] == pytest.approx(0.80)
    assert value(out, "rate", version="old", group="hard")["value"] == pytest.approx(0.10)
    assert value(out, "rate", version="new", group="easy")["value"] == pytest.approx(0.90)
    assert value(out, "rate", version="new", group="hard")["value"] == pytest.approx(0.1875)
    old, new = value(out, "micro", version="old")["value"], value(out, "micro", version="new")["value"]
    assert old == pytest.approx(165 / 250) and new == pytest.approx(66 / 200)
    assert new == pytest.approx(old / 2)  # "the overall score halves"
    flag = value(out, "simpson")
    assert flag["value"] is True and flag["from"] == "new" and flag["to"] == "old"


# --- the 14-to-5 split --------------------------------------------------------------------------

def test_fourteen_to_five_functions():
    assert sg.paired_counts([0] * 14 + [1] * 5 + [1] * 181, [1] * 14 + [0] * 5 + [1] * 181).diff == \
        pytest.approx(9 / 200)
    exact, _ = sg.sign_test(14, 5)
    assert round(exact, 3) == 0.064
    assert round(exact / 2, 3) == 0.032  # the one-sided value the reference warns about
    stat, p = sg.mcnemar(14, 5, correction=False)
    assert round(stat, 2) == 4.26 and round(p, 3) == 0.039
    stat, p = sg.mcnemar(14, 5, correction=True)
    assert stat == pytest.approx(64 / 19) and round(stat, 2) == 3.37 and round(p, 3) == 0.066
    diff, se, low, high = sg.paired_normal_interval(14, 5, 200)
    assert round(se * 100, 2) == 2.16
    assert round(low * 100, 1) == 0.3 and round(high * 100, 1) == 8.7
    boot = sg.bootstrap_paired_counts(14, 5, 200, resamples=10_000, seed=12345)
    b_low, b_high = sg.percentile_interval(boot)
    assert 0.0 < b_low <= 0.01 and 0.085 <= b_high <= 0.095  # "roughly 0.5 to 9.0 points"
    assert round(sg.sign_test(15, 4)[0], 3) == 0.019


def test_fourteen_to_five_cli(cli, examples):
    out = cli("compare", examples / "paired_14_to_5.csv", "--baseline", "baseline",
              "--candidate", "candidate", "--item", "item_id")
    assert value(out, "wins")["value"] == 14
    assert value(out, "losses")["value"] == 5
    assert value(out, "ties")["value"] == 181
    assert value(out, "diff")["value"] == pytest.approx(0.045) and value(out, "diff")["n"] == 200
    assert round(value(out, "sign_test_p")["value"], 3) == 0.064
    assert value(out, "sign_test_p")["n"] == 19
    assert round(value(out, "mcnemar_chi2")["value"], 2) == 4.26
    assert round(value(out, "mcnemar_p")["value"], 3) == 0.039
    assert round(value(out, "mcnemar_cc_chi2")["value"], 2) == 3.37
    assert round(value(out, "mcnemar_cc_p")["value"], 3) == 0.066
    normal = value(out, "normal_ci")
    assert round(normal["ci_low"], 3) == 0.003 and round(normal["ci_high"], 3) == 0.087
    boot = value(out, "bootstrap_ci")
    assert 0.0 < boot["ci_low"] <= 0.01 and 0.085 <= boot["ci_high"] <= 0.095
    assert "bs:10000" in out["signature"] and "seed:12345" in out["signature"]
    assert any("borderline" in n for n in out["notes"])


def test_cluster_bootstrap_is_wider_or_equal_and_recorded(cli, examples):
    out = cli("compare", examples / "paired_14_to_5.csv", "--baseline", "baseline",
              "--candidate", "candidate", "--item", "item_id", "--cluster", "conversation")
    boot = value(out, "bootstrap_ci")
    assert boot["ci_low"] < 0.045 < boot["ci_high"]
    assert "bs-unit:clusters:conversation" in out["signature"]


# --- interval and MDE tables ---------------------------------------------------------------------

@pytest.mark.parametrize("n, points", [(100, 7.8), (200, 5.5), (400, 3.9), (1000, 2.5)])
def test_interval_half_width_at_80_percent(cli, n, points):
    assert round(float(intervals.wald_half_width(0.8, n)) * 100, 1) == points
    out = cli("plan", "--rate", "0.8", "--n", str(n))
    assert round(value(out, "ci_half_width")["value"] * 100, 1) == points
    assert value(out, "ci_half_width")["n"] == n


def test_unpaired_difference_needed_at_100():
    assert round(math.sqrt(2) * float(intervals.wald_half_width(0.8, 100)) * 100) == 11


@pytest.mark.parametrize("n, points", [(100, 10.8), (500, 4.8), (1000, 3.4)])
def test_mde_at_15_percent_discordance(cli, n, points):
    assert round(float(intervals.paired_mde(0.15, n)) * 100, 1) == points
    out = cli("plan", "--discordance", "0.15", "--n", str(n))
    assert round(value(out, "mde")["value"] * 100, 1) == points


def test_two_points_on_150_items_is_not_detectable():
    # 71 -> 73 on 150 items is a net of 3 items; even the least discordance that allows it
    # (3 flips of 150) gives an MDE above the 2-point gain.
    assert float(intervals.paired_mde(3 / 150, 150)) > 0.02


# --- cost ---------------------------------------------------------------------------------------

def test_cost_per_success_and_marginal_cost(cli, examples):
    assert round(cost_per_success(0.012 * 100, 82), 4) == 0.0146
    price, dominated = marginal_cost(0.012, 0.82, 0.031, 0.86)
    assert price == pytest.approx(0.019 / 0.04) and not dominated
    out = cli("cost", examples / "cost_latency.csv", "--system", "system", "--success", "success",
              "--cost", "cost", "--latency", "latency_s")
    assert round(value(out, "cost_per_success", system="A")["value"], 4) == 0.0146
    assert value(out, "cost_per_success", system="A")["n"] == 82
    ab = value(out, "marginal_cost_per_success", from_="A", to="B")
    assert ab["value"] == pytest.approx(0.475)
    assert value(out, "dominated", from_="A", to="B")["value"] is False
    assert value(out, "marginal_cost_per_success", from_="B", to="C")["value"] is None
    assert value(out, "dominated", from_="B", to="C")["value"] is True
