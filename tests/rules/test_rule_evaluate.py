"""The decision card: every condition type, every verdict, the seed's 14-to-5 case, rule changes,
changed item sets, multiplicity, and agreement with the analyses the card is built on."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from conftest import table_of
from workbench.analyses import compare, cost, ranking
from workbench.core.errors import DataError
from workbench.io import load_table
from workbench.metrics import significance as sg
from workbench.metrics.intervals import items_needed_for_mde
from workbench.rules import (CHANGED_NOTE, FAIL, INCONCLUSIVE, PASS, RuleError, card_rows, evaluate,
                             exit_code, holm, load_rule, overall, parse_rule, render_text, to_json_dict,
                             verdict_of)

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "resources" / "examples"
RULES = ROOT / "resources" / "rules"


# --- builders -----------------------------------------------------------------------------------

def wide(wins: int, losses: int, ties_pass: int, ties_fail: int = 0) -> pd.DataFrame:
    """One row per item: baseline and candidate 0/1 (wins = candidate passes, baseline fails)."""
    pairs = [(0, 1)] * wins + [(1, 0)] * losses + [(1, 1)] * ties_pass + [(0, 0)] * ties_fail
    return pd.DataFrame({"item_id": [f"i{i:05d}" for i in range(len(pairs))],
                         "baseline": [p[0] for p in pairs], "candidate": [p[1] for p in pairs]})


def long_of(frame: pd.DataFrame, base: str = "v1", cand: str = "v2") -> pd.DataFrame:
    a = pd.DataFrame({"system": base, "item_id": frame["item_id"], "success": frame["baseline"]})
    b = pd.DataFrame({"system": cand, "item_id": frame["item_id"], "success": frame["candidate"]})
    return pd.concat([a, b], ignore_index=True)


def rule_text(conditions: str, baseline: str = "baseline", candidate: str = "candidate",
              rule_extra: str = "", data: str = "") -> str:
    return (f'[rule]\nname = "test"\nbaseline = "{baseline}"\ncandidate = "{candidate}"\n{rule_extra}\n'
            + (f"[data]\n{data}\n" if data else "") + conditions)


def gate(text: str, *frames: pd.DataFrame, **kw):
    rule = parse_rule(text, source="rule.toml")
    tables = [table_of(f, name=f"input{i + 1}.csv") for i, f in enumerate(frames)]
    return evaluate(rule, tables, **kw)


def row(result, index: int = 1) -> dict:
    frame = result.table("card").frame
    return frame[frame["index"] == index].iloc[0].to_dict()


SUCCESS_NO_DROP = '[[condition]]\nmetric = "success"\nmax_drop = 0.01\ntest = "sign"\n'


# --- the seed's 14-to-5 case -----------------------------------------------------------------------

def test_seed_14_to_5_no_drop_beyond_one_point_exact_sign_test_passes_with_the_counts():
    """Rule: "success must not drop by more than 1 point, exact sign test".  The interval (about
    +0.5 to +9.0 points) rules out any drop, so the rule is met: PASS.  The seed's "borderline"
    is about claiming a gain (p = 0.064), and the card says that too."""
    rule = load_rule(RULES / "seed_14_to_5.toml")
    result = evaluate(rule, [load_table(EX / "paired_14_to_5.csv")])
    assert verdict_of(result) == PASS and exit_code(result) == 0
    r = row(result)
    assert r["status"] == PASS
    assert r["counts"] == "14 wins / 5 losses / 181 ties of 200 items"
    assert r["n"] == 200
    assert r["observed"] == pytest.approx(0.045)
    assert r["p_value"] == pytest.approx(0.0636, abs=5e-4)
    assert 0.0 < r["ci_low"] < 0.01 and 0.085 < r["ci_high"] < 0.095  # seed: roughly 0.5 to 9.0
    assert r["threshold"] == pytest.approx(-0.01)
    assert "not significant by the exact sign test (p = 0.0636, borderline)" in r["notes"]
    assert "do not report the gain as an improvement" in r["notes"]
    assert "19 items that differ" in r["notes"]
    # the same numbers as the compare analysis (same resamples and seed)
    cmp = compare.run(load_table(EX / "paired_14_to_5.csv"),
                      compare.Options(baseline="baseline", candidate="candidate", item="item_id"))
    boot = cmp.find("bootstrap_ci")[0]
    assert (r["ci_low"], r["ci_high"]) == (boot["ci_low"], boot["ci_high"])
    shown = card_rows(result)[0]
    assert shown["observed"] == "+4.5 pts" and shown["interval"] == "+0.5 to +9.0 pts (bootstrap)"
    assert "14 wins / 5 losses / 181 ties" in render_text(result)


def test_seed_14_to_5_normal_interval_is_the_seeds_0_3_to_8_7():
    result = gate(rule_text(SUCCESS_NO_DROP + 'interval = "normal"\n'), wide(14, 5, 181))
    r = row(result)
    assert r["ci_low"] == pytest.approx(0.0027, abs=5e-4) and r["ci_high"] == pytest.approx(0.0873, abs=5e-4)
    assert r["status"] == PASS


def test_seed_14_to_5_under_a_required_gain_is_inconclusive_borderline():
    text = rule_text('[[condition]]\nmetric = "success"\nmin_gain = 0\ntest = "sign"\n')
    result = gate(text, wide(14, 5, 181))
    r = row(result)
    assert verdict_of(result) == INCONCLUSIVE and exit_code(result) == 3
    assert "borderline" in r["reason"] and "p = 0.0636" in r["reason"]
    assert r["counts"] == "14 wins / 5 losses / 181 ties of 200 items"
    # the observed 4.5 points would need about this many items at 9.5% discordance
    assert r["more_items"] == items_needed_for_mde(19 / 200, 0.045) - 200
    # McNemar, chosen in advance instead, would have called it (the three tests disagree)
    mc = gate(text.replace('"sign"', '"mcnemar"'), wide(14, 5, 181))
    assert verdict_of(mc) == PASS and row(mc)["p_value"] == pytest.approx(0.039, abs=5e-4)


def test_reversed_14_to_5_is_inconclusive_with_the_items_needed():
    result = gate(rule_text(SUCCESS_NO_DROP), wide(5, 14, 181))
    r = row(result)
    assert r["status"] == INCONCLUSIVE
    needed = int(items_needed_for_mde(19 / 200, 0.01))  # d (2.8 / mde)^2 = 7448
    assert needed == 7448
    assert r["more_items"] == needed - 200
    assert "About 7,248 more items (7,448 in all)" in r["notes"]
    assert "margin of 1 point" in r["notes"]


def test_significant_drop_beyond_the_margin_fails():
    # 5 wins / 14 losses: McNemar p = 0.039 < 0.05 and the drop (-4.5) is beyond -1 point
    result = gate(rule_text(SUCCESS_NO_DROP.replace('"sign"', '"mcnemar"')), wide(5, 14, 181))
    assert verdict_of(result) == FAIL and exit_code(result) == 1
    assert "significant drop" in row(result)["reason"]
    # 4 wins / 15 losses: the exact sign test is significant too (p = 0.019)
    result = gate(rule_text(SUCCESS_NO_DROP), wide(4, 15, 181))
    assert row(result)["p_value"] == pytest.approx(0.019, abs=5e-4)
    assert row(result)["status"] == FAIL


def test_surely_worse_than_allowed_fails_on_the_interval():
    result = gate(rule_text(SUCCESS_NO_DROP), wide(2, 40, 158))
    r = row(result)
    assert r["status"] == FAIL and r["ci_high"] < -0.01 and "whole interval" in r["reason"]


def test_a_significant_drop_within_the_margin_passes():
    # 40 losses in 20000 items: -0.2 points, clearly real, and allowed by a 1-point rule
    result = gate(rule_text(SUCCESS_NO_DROP), wide(0, 40, 19960))
    r = row(result)
    assert r["p_value"] < 1e-6 and r["observed"] == pytest.approx(-0.002)
    assert r["status"] == PASS and r["ci_low"] >= -0.01


def test_required_gain_surely_missed_fails_and_clear_gain_passes():
    gain = '[[condition]]\nmetric = "success"\nmin_gain = 0.10\n'
    r = row(gate(rule_text(gain), wide(30, 5, 165)))  # +12.5 points, but not surely above 10
    assert r["status"] == INCONCLUSIVE
    r = row(gate(rule_text(gain), wide(10, 0, 190)))  # +5 points, surely below 10
    assert r["status"] == FAIL and "short of the required gain" in r["reason"]
    r = row(gate(rule_text('[[condition]]\nmetric = "success"\nmin_gain = 0\n'), wide(40, 5, 155)))
    assert r["status"] == PASS and "significant" in r["reason"]


def test_point_bound_never_inconclusive():
    text = rule_text(SUCCESS_NO_DROP + 'bound = "point"\n')
    assert row(gate(text, wide(5, 14, 181)))["status"] == FAIL
    assert row(gate(text, wide(5, 6, 189)))["status"] == PASS


def test_alpha_sets_the_interval_level():
    from scipy.stats import norm

    text = rule_text(SUCCESS_NO_DROP + 'interval = "normal"\n', rule_extra="alpha = 0.10")
    r = row(gate(text, wide(14, 5, 181)))
    diff, se, _, _ = sg.paired_normal_interval(14, 5, 200)
    assert r["ci_low"] == pytest.approx(diff - norm.ppf(0.95) * se)
    assert "90% normal interval" in r["basis"]


def test_cluster_bootstrap_matches_the_compare_analysis():
    table = load_table(EX / "paired_14_to_5.csv")
    text = rule_text(SUCCESS_NO_DROP, data='item = "item_id"\ncluster = "conversation"')
    result = evaluate(parse_rule(text), [table])
    cmp = compare.run(table, compare.Options(baseline="baseline", candidate="candidate", item="item_id",
                                             cluster="conversation"))
    boot = cmp.find("bootstrap_ci")[0]
    r = row(result)
    assert (r["ci_low"], r["ci_high"]) == (boot["ci_low"], boot["ci_high"])
    assert "clusters of 'conversation'" in r["basis"]


# --- the eval-set check --------------------------------------------------------------------------

def test_changed_item_set_long_form_counts_and_common_items_only():
    frame = long_of(wide(14, 5, 181))
    # the candidate was not run on 3 items and was run on 2 new ones
    dropped = ["i00000", "i00010", "i00150"]
    frame = frame[~((frame["system"] == "v2") & frame["item_id"].isin(dropped))]
    added = pd.DataFrame({"system": "v2", "item_id": ["new1", "new2"], "success": [1, 1]})
    frame = pd.concat([frame, added], ignore_index=True)
    result = gate(rule_text(SUCCESS_NO_DROP, baseline="v1", candidate="v2"), frame)
    r = row(result)
    items = result.table("items").frame.iloc[0]
    assert (items["baseline_items"], items["candidate_items"], items["common"], items["missing"],
            items["added"]) == (200, 199, 197, 3, 2)
    assert "i00000" in items["examples_missing"] and "new1" in items["examples_added"]
    assert "3 items scored for the baseline are missing for the candidate" in r["notes"]
    assert "2 items were added for the candidate" in r["notes"]
    assert "uses the 197 common items only" in r["notes"]
    # i00000 and i00010 were wins, i00150 a tie: 12 / 5 / 180 on the common items
    assert r["n"] == 197 and r["counts"] == "12 wins / 5 losses / 180 ties of 197 items"
    assert r["observed"] == pytest.approx(7 / 197)
    # the compare analysis on the same file pairs the same 197 items
    cmp = compare.run(table_of(frame), compare.Options(system="system", item="item_id", outcome="success",
                                                       baseline_system="v1", candidate_system="v2",
                                                       resamples=10_000))
    assert cmp.value("diff") == pytest.approx(r["observed"])
    boot = cmp.find("bootstrap_ci")[0]
    assert (r["ci_low"], r["ci_high"]) == (boot["ci_low"], boot["ci_high"])


def test_changed_item_set_wide_form_blank_cells():
    frame = wide(14, 5, 181).astype({"baseline": object, "candidate": object})
    frame.loc[[0, 1, 2], "candidate"] = None    # scored for the baseline only
    frame.loc[[190, 191], "baseline"] = ""      # scored for the candidate only
    result = gate(rule_text(SUCCESS_NO_DROP), frame)
    items = result.table("items").frame.iloc[0]
    assert (items["missing"], items["added"], items["common"]) == (3, 2, 195)
    assert row(result)["n"] == 195


def test_same_item_set_says_nothing():
    result = gate(rule_text(SUCCESS_NO_DROP), wide(14, 5, 181))
    assert not any("Eval-set" in n for n in result.notes)
    items = result.table("items").frame.iloc[0]
    assert (items["missing"], items["added"], items["common"]) == (0, 0, 200)


def test_systems_that_share_no_item_is_a_data_error():
    frame = pd.DataFrame({"system": ["v1", "v2"], "item_id": ["a", "b"], "success": [1, 0]})
    with pytest.raises(DataError, match="share no scored item"):
        gate(rule_text(SUCCESS_NO_DROP, baseline="v1", candidate="v2"), frame)


def test_unknown_system_is_a_data_error():
    frame = long_of(wide(3, 1, 10))
    with pytest.raises(DataError, match="no system 'v3'"):
        gate(rule_text(SUCCESS_NO_DROP, baseline="v1", candidate="v3"), frame)


# --- cost and latency -------------------------------------------------------------------------------

def outcomes(n: int = 400, seed: int = 7, cand_cost: float = 0.010, cand_lat: float = 1.0,
             cand_flip: float = 0.0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    base_ok = (rng.random(n) < 0.8).astype(int)
    cand_ok = np.where(rng.random(n) < cand_flip, 1 - base_ok, base_ok)
    lat = rng.lognormal(0.0, 0.3, size=n)
    frames = []
    for system, ok, c, scale in (("v1", base_ok, 0.010, 1.0), ("v2", cand_ok, cand_cost, cand_lat)):
        frames.append(pd.DataFrame({
            "system": system, "item_id": [f"i{i:04d}" for i in range(n)], "success": ok,
            "cost": c * (0.8 + 0.4 * rng.random(n)), "latency_s": lat * scale * (0.9 + 0.2 * rng.random(n))}))
    return pd.concat(frames, ignore_index=True)


COST_RULE = '[[condition]]\nmetric = "cost_per_success"\nmax_increase = 0.10\nresamples = 2000\n'
LAT_RULE = '[[condition]]\nmetric = "latency_p95"\nmax = {max}\nresamples = 2000\n'


def test_cost_per_success_pass_fail_inconclusive_and_agrees_with_the_cost_analysis():
    frame = outcomes(cand_flip=0.05)
    result = gate(rule_text(COST_RULE, baseline="v1", candidate="v2"), frame)
    r = row(result)
    ca = cost.run(table_of(frame), cost.Options(system="system", success="success", cost="cost"))
    expected = ca.value("cost_per_success", system="v2") / ca.value("cost_per_success", system="v1") - 1
    assert r["observed"] == pytest.approx(expected)
    assert r["status"] == PASS and r["ci_high"] <= 0.10 and r["threshold"] == 0.10
    assert "paired" in r["basis"] and r["unit"] == "relative"
    dear = outcomes(cand_cost=0.013)
    assert row(gate(rule_text(COST_RULE, baseline="v1", candidate="v2"), dear))["status"] == FAIL
    near = outcomes(n=150, cand_cost=0.0105, cand_flip=0.1)
    r = row(gate(rule_text(COST_RULE, baseline="v1", candidate="v2"), near))
    assert r["status"] == INCONCLUSIVE and r["ci_low"] <= 0.10 < r["ci_high"]
    assert r["more_items"] is None or math.isnan(r["more_items"])


def test_cost_absolute_ceiling_and_cost_per_request():
    frame = outcomes()
    text = rule_text('[[condition]]\nmetric = "cost_per_request"\nmax = 0.02\nresamples = 1000\n'
                     '[[condition]]\nmetric = "cost_per_request"\nmax = 0.005\nresamples = 1000\n',
                     baseline="v1", candidate="v2")
    result = gate(text, frame)
    ca = cost.run(table_of(frame), cost.Options(system="system", success="success", cost="cost"))
    assert row(result, 1)["observed"] == pytest.approx(ca.value("cost_per_request", system="v2"))
    assert (row(result, 1)["status"], row(result, 2)["status"]) == (PASS, FAIL)
    assert verdict_of(result) == FAIL
    assert result.find("cost_per_request")[0]["system"] == "v2"


def test_cost_per_success_undefined_is_inconclusive():
    frame = outcomes()
    frame.loc[frame["system"] == "v1", "success"] = 0
    r = row(gate(rule_text(COST_RULE, baseline="v1", candidate="v2"), frame))
    assert r["status"] == INCONCLUSIVE and "cannot be computed" in r["reason"]
    assert "undefined" in r["notes"]


def test_latency_p95_ceiling_each_verdict_and_agrees_with_the_cost_analysis():
    frame = outcomes()
    ca = cost.run(table_of(frame), cost.Options(system="system", success="success", cost="cost",
                                                latency="latency_s"))
    p95 = ca.value("latency_p95", system="v2")
    result = gate(rule_text(LAT_RULE.format(max=5.0), baseline="v1", candidate="v2"), frame)
    r = row(result)
    assert r["observed"] == pytest.approx(p95) and r["status"] == PASS and r["n"] == 400
    assert row(gate(rule_text(LAT_RULE.format(max=1.0), baseline="v1", candidate="v2"), frame))["status"] == FAIL
    r = row(gate(rule_text(LAT_RULE.format(max=round(p95, 3)), baseline="v1", candidate="v2"), frame))
    assert r["status"] == INCONCLUSIVE
    r = row(gate(rule_text(LAT_RULE.format(max=round(p95, 3)) + 'bound = "point"\n', baseline="v1",
                           candidate="v2"), frame))
    assert r["status"] in (PASS, FAIL) and "point estimate" in r["reason"]


def test_latency_relative_increase():
    frame = outcomes(cand_lat=1.5)
    text = rule_text('[[condition]]\nmetric = "latency_p95"\nmax_increase = 0.2\nresamples = 2000\n',
                     baseline="v1", candidate="v2")
    r = row(gate(text, frame))
    assert r["observed"] == pytest.approx(0.5, abs=0.1) and r["status"] == FAIL


def test_latency_without_a_system_column_is_the_candidate():
    frame = pd.DataFrame({"latency_s": np.linspace(0.5, 2.0, 101)})
    result = gate(rule_text(LAT_RULE.format(max=2.5), baseline="v1", candidate="v2"), frame)
    r = row(result)
    assert r["observed"] == pytest.approx(np.percentile(frame["latency_s"], 95)) and r["status"] == PASS
    assert "all its 101 rows are taken as the candidate" in r["notes"]


# --- ranking ----------------------------------------------------------------------------------

def run_frame(n_queries: int = 40, cand: str = "same", seed: int = 3) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for q in range(n_queries):
        grades = rng.choice([0, 0, 1, 2], size=8)
        base_scores = grades + rng.normal(0, 1.0, size=8)
        if cand == "same":
            cand_scores = base_scores
        elif cand == "reversed":
            cand_scores = -base_scores
        else:
            cand_scores = grades + rng.normal(0, 1.0, size=8)
        for system, scores in (("bm25", base_scores), ("dense", cand_scores)):
            for d in range(8):
                rows.append({"system": system, "query": f"q{q:03d}", "doc": f"q{q:03d}-d{d}",
                             "score": float(scores[d]), "relevance": int(grades[d])})
    return pd.DataFrame(rows)


NDCG = '[[condition]]\nmetric = "ndcg@5"\nmax_drop = 0.01\nresamples = 2000\n'


def test_ndcg_no_drop_pass_fail_inconclusive_and_agrees_with_the_ranking_analysis():
    text = rule_text(NDCG, baseline="bm25", candidate="dense")
    r = row(gate(text, run_frame(cand="same")))
    assert r["status"] == PASS and r["observed"] == 0 and r["counts"].startswith("better on 0 / worse on 0")
    frame = run_frame(cand="reversed")
    result = gate(text, frame)
    r = row(result)
    ra = ranking.run(table_of(frame), ranking.Options(system="system", ks=(5,)))
    assert r["observed"] == pytest.approx(ra.value("ndcg@5", system="dense") - ra.value("ndcg@5", system="bm25"))
    assert r["status"] == FAIL and r["n"] == 40 and r["unit"] == "score_diff"
    assert result.find("ndcg@5")[0]["k"] == 5
    r = row(gate(text, run_frame(n_queries=12, cand="other")))
    assert r["status"] == INCONCLUSIVE and r["more_items"] > 0
    assert "more queries" in r["notes"] and "2.8 sd / mde" in r["notes"]


def test_mrr_required_gain_with_the_t_test():
    text = rule_text('[[condition]]\nmetric = "mrr"\nmin_gain = 0\ntest = "t"\ninterval = "normal"\n',
                     baseline="dense", candidate="bm25")
    r = row(gate(text, run_frame(cand="reversed")))
    assert r["status"] == PASS and r["p_value"] < 0.05 and "paired t-test" in r["basis"]


def test_mrr_at_k_rule_observes_the_ranking_analysis_difference():
    """MS MARCO's headline as a release rule: ``mrr@3``, the paired difference of the
    per-query reciprocal ranks cut at 3, equal to the Ranking analysis's means."""
    text = rule_text('[[condition]]\nmetric = "mrr@3"\nmax_drop = 0.01\nresamples = 2000\n',
                     baseline="bm25", candidate="dense")
    frame = run_frame(cand="other")
    result = gate(text, frame)
    r = row(result)
    ra = ranking.run(table_of(frame), ranking.Options(system="system", ks=(3,)))
    observed = ra.value("mrr@3", system="dense") - ra.value("mrr@3", system="bm25")
    assert observed != 0 and r["observed"] == pytest.approx(observed) and r["n"] == 40
    assert ra.value("mrr@3", system="dense") <= ra.value("mrr", system="dense")
    assert result.find("mrr@3")[0]["k"] == 3


def test_queries_one_system_did_not_run_are_reported_and_left_out():
    frame = run_frame(cand="same")
    frame = frame[~((frame["system"] == "dense") & frame["query"].isin(["q000", "q001"]))]
    result = gate(rule_text(NDCG, baseline="bm25", candidate="dense"), frame)
    items = result.table("items").frame.iloc[0]
    assert (items["missing"], items["added"], items["common"]) == (2, 0, 38)
    r = row(result)
    assert r["n"] == 38 and "2 queries scored for the baseline are missing" in r["notes"]


# --- several conditions: verdict, multiplicity, inputs ---------------------------------------------

def test_overall_verdict_order():
    assert overall([PASS, PASS]) == PASS
    assert overall([PASS, INCONCLUSIVE]) == INCONCLUSIVE
    assert overall([INCONCLUSIVE, FAIL, PASS]) == FAIL


def test_holm_matches_statsmodels(no_gc_collect):
    from statsmodels.stats.multitest import multipletests

    rng = np.random.default_rng(0)
    for m in (1, 2, 3, 5, 10):
        for _ in range(20):
            p = rng.random(m) ** 3
            assert holm(p) == pytest.approx(multipletests(p, method="holm")[1])
    p = [0.01, 0.01, 0.04, 0.5]  # ties
    assert holm(p) == pytest.approx(multipletests(p, method="holm")[1])


def test_card_p_values_are_holm_adjusted_and_the_sentence_is_there():
    from statsmodels.stats.multitest import multipletests

    conds = "".join(f'[[condition]]\nmetric = "success"\nmax_drop = 0.01\ntest = "{t}"\n'
                    for t in ("sign", "mcnemar", "mcnemar_cc"))
    result = gate(rule_text(conds), wide(14, 5, 181))
    card = result.table("card").frame
    assert list(card["p_holm"]) == pytest.approx(list(multipletests(card["p_value"], method="holm")[1]))
    assert any("With 3 comparisons expect about 3 x 0.05 = 0.15 false positives" in n for n in result.notes)
    assert any("Holm-adjusted" in n for n in result.notes)


def test_holm_adjustment_changes_a_verdict_and_multiplicity_none_does_not():
    conds = ('[[condition]]\nmetric = "success"\nmin_gain = 0\ntest = "mcnemar"\n'
             '[[condition]]\nmetric = "success"\nmax_drop = 0.01\ntest = "sign"\n')
    result = gate(rule_text(conds), wide(14, 5, 181))
    r = row(result, 1)
    assert r["p_value"] == pytest.approx(0.039, abs=5e-4) and r["p_holm"] == pytest.approx(2 * r["p_value"])
    assert r["status"] == INCONCLUSIVE
    unadjusted = gate(rule_text(conds, rule_extra='multiplicity = "none"'), wide(14, 5, 181))
    assert row(unadjusted, 1)["status"] == PASS and row(unadjusted, 1)["p_holm"] == row(unadjusted, 1)["p_value"]
    assert any("not adjusted" in n for n in unadjusted.notes)


def test_one_condition_has_no_multiplicity_sentence():
    result = gate(rule_text(SUCCESS_NO_DROP), wide(14, 5, 181))
    assert not any("comparisons expect" in n for n in result.notes)


def test_conditions_find_their_input_by_columns():
    text = rule_text(SUCCESS_NO_DROP + NDCG.replace("max_drop", 'baseline = "bm25"\ncandidate = "dense"\nmax_drop'),
                     baseline="v1", candidate="v2")
    result = gate(text, run_frame(), long_of(wide(14, 5, 181)))
    assert (row(result, 1)["input"], row(result, 2)["input"]) == (2, 1)
    assert "Read from input 2 'input2.csv'" in row(result, 1)["notes"]


def test_explicit_input_and_its_errors():
    frame = long_of(wide(14, 5, 181))
    text = rule_text(SUCCESS_NO_DROP, baseline="v1", candidate="v2")
    with pytest.raises(RuleError, match="choose one with input = 1"):
        gate(text, frame, frame)
    result = gate(text.replace('test = "sign"', 'test = "sign"\ninput = 2'), frame, frame)
    assert row(result)["input"] == 2
    with pytest.raises(RuleError, match="asks for input 3, but 2 input files were given"):
        gate(text.replace('test = "sign"', 'test = "sign"\ninput = 3'), frame, frame)
    with pytest.raises(DataError, match="None of the 2 inputs"):
        gate(text, run_frame(), run_frame())


def test_missing_column_names_the_rule_data_key():
    frame = pd.DataFrame({"who": ["v1", "v2"], "what": ["a", "a"], "ok": [1, 1]})
    with pytest.raises(DataError, match=r"\[data\] table"):
        gate(rule_text(SUCCESS_NO_DROP, baseline="v1", candidate="v2"), frame)


# --- rule changed after the results were seen --------------------------------------------------------

def test_rule_changed_after_results_is_on_the_card():
    frame = wide(14, 5, 181)
    text = rule_text(SUCCESS_NO_DROP + '[[condition]]\nmetric = "success"\nmin_gain = 0\n')
    result = gate(text, frame, rule_changed_after_results=True)
    card = result.table("card").frame
    assert all(n.startswith(CHANGED_NOTE) for n in card["notes"])
    assert CHANGED_NOTE in result.notes[0].lower()
    assert result.value("rule_changed_after_results") is True
    rule_table = dict(result.table("rule").frame[["field", "value"]].values)
    assert rule_table["changed after results were seen"] == "yes"
    assert "rule-changed:yes" in result.signature
    assert CHANGED_NOTE.upper() in render_text(result)
    assert to_json_dict(result)["rule_changed_after_results"] is True
    clean = gate(text, frame)
    assert clean.value("rule_changed_after_results") is False
    assert not any(CHANGED_NOTE in n for n in clean.table("card").frame["notes"])
    assert "rule-changed:no" in clean.signature


# --- the result's shape --------------------------------------------------------------------------

def test_card_shape_records_and_signature():
    text = rule_text(SUCCESS_NO_DROP)
    result = gate(text, wide(14, 5, 181))
    assert result.analysis == "gate"
    assert result.records[0] == {"metric": "verdict", "value": PASS}
    rec = result.find("success")[0]
    assert rec["from"] == "baseline" and rec["to"] == "candidate" and rec["n"] == 200
    assert rec["ci_low"] < rec["value"] < rec["ci_high"]
    card = result.table("card").frame
    for col in ("condition", "observed", "ci_low", "ci_high", "threshold", "status", "basis", "n", "notes"):
        assert col in card.columns
    from workbench.core.session import sha256_text

    assert f"rule-sha256:{sha256_text(text)}" in result.signature
    assert result.signature.startswith("workbench:")
    payload = to_json_dict(result)
    assert payload["verdict"] == PASS and payload["card"][0]["status"] == PASS
    assert set(payload) >= {"analysis", "input", "signature", "notes", "results", "verdict", "card"}


def test_example_rule_with_all_four_conditions_on_the_example_files():
    rule = load_rule(RULES / "release_all_conditions.toml")
    tables = [load_table(RULES / "example_outcomes.csv"), load_table(RULES / "example_ranking.csv")]
    result = evaluate(rule, tables)
    card = result.table("card").frame
    assert list(card["metric"]) == ["success", "cost_per_success", "latency_p95", "ndcg@10"]
    assert list(card["input"]) == [1, 1, 1, 2]
    assert list(card["status"]) == [PASS, PASS, PASS, INCONCLUSIVE]
    assert verdict_of(result) == INCONCLUSIVE
    assert card.iloc[3]["more_items"] > 0
    items = result.table("items").frame
    assert (items.iloc[0]["missing"], items.iloc[0]["added"]) == (3, 2)


def test_rules_package_does_not_load_qt():
    code = ("import sys, workbench.rules, workbench.cli.gate_cmd\n"
            "bad = [m for m in sys.modules if m.split('.')[0] in ('PySide6', 'pyqtgraph') "
            "or m.startswith('workbench.ui')]\n"
            "sys.exit(1 if bad else 0)\n")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_a_value_exactly_on_the_limit_up_to_float_noise_is_on_it():
    """p95 latency up by exactly 10% computes as 0.10000000000000009: the rule's 'at most +10%'
    holds (issue 22: no decision by float noise)."""
    frame = pd.DataFrame({"system": ["v1"] * 50 + ["v2"] * 50, "latency_s": [1.0] * 50 + [1.1] * 50})
    assert 1.1 / 1.0 - 1 > 0.1  # the noise this test is about
    text = rule_text('[[condition]]\nmetric = "latency_p95"\nmax_increase = 0.1\nresamples = 2000\n',
                     baseline="v1", candidate="v2")
    result = gate(text, frame)
    r = row(result)
    assert r["status"] == PASS, r["reason"]
    assert "at-limit:rel-tol-10^-9" in result.signature and "ties:d-rounded-1e-10xscale" in result.signature
