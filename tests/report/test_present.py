"""The presentation policy (workbench.report.present): kinds, names, text and Excel formats,
and the answer sentences, checked against hand-written expectations."""

from __future__ import annotations

import math

import pandas as pd

import pytest
from report_checks import EXAMPLES, run_example

from workbench.report import present as P
from workbench.report.present import (KINDS, answer, display_name, excel_format, excel_value,
                                      format_interval, format_p, format_value, kind_of)


@pytest.fixture(scope="module")
def example_results():
    from test_report_gate import gate_result

    out = {ident: run_example(analysis, fname, opts)[0] for ident, analysis, fname, opts in EXAMPLES}
    for verdict in ("PASS", "FAIL", "INCONCLUSIVE"):
        out[f"gate_{verdict}"] = gate_result(verdict, changed=False)
    return out


# --- kinds and names ------------------------------------------------------------------------------

@pytest.mark.parametrize("metric,kind", [
    ("exact_match", "rate"), ("success_rate", "rate"), ("micro", "rate"), ("wilson_ci", "rate"),
    ("diff", "points"), ("normal_ci", "points"), ("bootstrap_ci", "points"), ("mde", "margin"),
    ("ci_half_width", "margin"),
    ("mcnemar_cc_p", "p"), ("sign_test_p", "p"), ("sign_test_midp", "p"), ("mcnemar_p", "p"),
    ("wins", "count"), ("losses", "count"), ("ties", "count"), ("items_needed", "count"),
    ("ndcg@10", "score"), ("p@3", "score"), ("r@5", "score"), ("hit@1", "score"), ("mrr", "score"),
    ("map", "score"), ("token_f1", "score"), ("rougeL", "score"), ("pass@3", "score"),
    ("pass^10", "score"), ("naive_pass^9", "score"), ("per_try_p@3", "score"),
    ("bleu", "bleu"), ("chrf", "bleu"),
    ("cost_per_success", "cost"), ("marginal_cost_per_success", "cost"), ("cost_per_request", "cost"),
    ("latency_p95", "latency"), ("latency_p50", "latency"),
    ("mcnemar_chi2", "statistic"), ("mcnemar_cc_chi2", "statistic"), ("welch_t", "statistic"),
    ("dominated", "plain"), ("simpson", "plain"), ("verdict", "plain"), ("something_new", "plain"),
])
def test_kind_of(metric, kind):
    assert kind_of(metric) == kind


@pytest.mark.parametrize("metric,name", [
    ("mcnemar_cc_p", "McNemar, continuity-corrected: p"), ("ndcg@10", "nDCG@10"),
    ("pass^3", "pass^3"), ("hit@5", "Hit@5"), ("bleu", "BLEU (0-100)"), ("chrf", "chrF (0-100)"),
    ("marginal_cost_per_success", "Marginal cost per extra success"), ("rougeL", "ROUGE-L F"),
    ("some_new_metric", "Some new metric"),
])
def test_display_name(metric, name):
    assert display_name(metric) == name


def test_every_registered_metric_has_a_kind_and_a_name():
    from workbench.metrics.registry import METRICS

    for name in METRICS:
        mid = name.replace("@K", "@10").replace("^K", "^10")
        assert kind_of(mid) in KINDS
        if name not in ("simpson", "dominated"):
            assert kind_of(mid) != "plain", name
        assert name in P._NAMES, name  # a name of its own, not the fallback


def test_every_metric_of_every_example_has_a_kind_and_a_name(example_results):
    """Every id any analysis emits on the bundled examples (and the gate) is known to the policy."""
    ids = P.metric_ids(example_results.values())
    assert len(ids) > 60
    plain_ok = {"simpson", "dominated", "verdict", "rule_changed_after_results"}
    for mid in ids:
        assert kind_of(mid) != "plain" or mid in plain_ok, mid
        # a name of its own, not the fallback that turns underscores into spaces
        assert mid in P._NAMES or (P._pattern_key(mid) and P._pattern_key(mid)[0] in P._NAMES) \
            or P._split_paired(mid) is not None or f"{mid.partition(':')[0]}:*" in P._NAMES, mid


def test_every_table_column_of_every_example_has_a_kind(example_results):
    for ident, result in example_results.items():
        for table in result.tables:
            for col in table.frame.columns:
                kind = P.column_kind(result.analysis, table.name, col, table.formats.get(col))
                assert kind in KINDS, (ident, table.name, col)
                numeric = table.frame[col].map(lambda v: isinstance(v, (int, float)) and not isinstance(v, bool)).all()
                if numeric and len(table.frame) and table.formats.get(col) not in (None, "text") \
                        and result.analysis != "gate":
                    assert kind != "plain", (ident, table.name, col)


# --- text formats ---------------------------------------------------------------------------------

@pytest.mark.parametrize("value,kind,text", [
    (0.725, "rate", "72.5%"), (0.7083333333333334, "rate", "70.8%"), (1.0, "rate", "100.0%"),
    (0.0, "rate", "0.0%"), (2.07e-5, "rate", "0.0021%"), (0.00049, "rate", "0.049%"),
    (1e-9, "rate", "< 0.0001%"), (0.0005, "rate", "0.1%"),
    (0.045, "points", "+4.5 pts"), (-0.01, "points", "-1.0 pts"), (0.0, "points", "0.0 pts"),
    (0.002741294751611452, "points", "+0.3 pts"), (-0.00001, "points", "-0.0010 pts"),
    (0.07839855938160216, "margin", "7.8 pts"), (0.061024585209569424, "margin", "6.1 pts"),
    (1.58e-30, "p", "< 0.001"), (0.0, "p", "< 0.001"), (0.063568115234375, "p", "0.0636"),
    (0.03894745574202525, "p", "0.0389"), (0.5, "p", "0.500"), (1.0, "p", "1.00"),
    (0.001, "p", "0.00100"), (0.00999, "p", "0.00999"),
    (165.0, "count", "165"), (1049, "count", "1,049"), (12.5, "count", "12.50"),
    (0.6835501809065484, "score", "0.684"), (1.0, "score", "1.000"), (2.1e-5, "score", "0.000021"),
    (1e-9, "score", "< 0.000001"), (0.0, "score", "0.000"),
    (0.012681892239007442, "score_diff", "+0.013"), (-0.011064970699031895, "relative", "-1.1%"),
    (31.306560659328163, "bleu", "31.3"), (50.16723848781564, "bleu", "50.2"),
    (0.014634146341463414, "cost", "0.0146"), (0.4749999999999999, "cost", "0.475"),
    (0.012, "cost", "0.0120"), (1234.5, "cost", "1,234.50"), (0.0, "cost", "0"),
    (2.4517499999999997, "latency", "2.452"), (1.3568, "latency", "1.357"),
    (4.2631578947368425, "statistic", "4.26"), (3.3684210526315788, "statistic", "3.37"),
    (True, "plain", "yes"), (False, "plain", "no"), ("v2", "plain", "v2"),
    (None, "rate", "-"), (math.nan, "p", "-"), (math.inf, "cost", "-"),
])
def test_format_value(value, kind, text):
    assert format_value(value, kind) == text


def test_numpy_values_format_as_python_values():
    import numpy as np

    assert format_value(np.bool_(True), "count") == "yes"
    assert format_value(np.int64(1049), "count") == "1,049"
    assert format_value(np.float64(0.725), "rate") == "72.5%"
    assert format_value(np.array(0.045), "points") == "+4.5 pts"
    assert format_value(np.float64("nan"), "rate") == "-"


def test_no_raw_floats_and_no_false_zeros():
    for kind in ("rate", "points", "margin", "score", "score_diff", "relative", "bleu", "latency", "statistic"):
        for v in (0.5992539325984954, 5.905e-06, 1.58e-30, 2e-5, -3e-7):
            text = format_value(v, kind)
            assert "e-" not in text and "0.5992539" not in text, (kind, text)
            assert text.strip("+-") not in ("0.0", "0.000", "0.0%", "0.0 pts", "0.00"), (kind, v, text)


def test_currency_only_when_chosen():
    assert format_value(0.4749999999999999, "cost") == "0.475"
    assert format_value(0.4749999999999999, "cost", currency="$") == "$0.475"
    assert format_value(-2.5, "cost", currency="€") == "-€2.50"
    assert format_value(2.5, "cost", currency="EUR") == "2.50 EUR"


def test_rounds_as_excel_displays_the_cell():
    # 2.4517499999999997 is 2.45175 to 15 significant digits: Excel shows 2.4518 at 4 places
    assert str(P.excel_round(2.4517499999999997, 4)) == "2.4518"
    assert str(P.excel_round(0.0455, 3)) == "0.046"       # half away from zero, not to even
    assert str(P.excel_round(-0.0455, 3)) == "-0.046"
    assert format_value(0.00125, "rate") == "0.1%"        # 0.125 -> 0.1 (0.125 is 0.125000000000000)
    assert format_value(0.00135, "points") == "+0.1 pts"  # 0.135 -> 0.1 (one decimal)
    assert format_value(0.0455, "score") == "0.046"      # Python's f"{0.0455:.3f}" gives 0.045


def test_intervals_and_p_clauses():
    assert format_interval(0.002741294751611452, 0.08725870524838855, "points") == "+0.3 to +8.7 pts"
    assert format_interval(0.8477319733455312, 0.8894362253751581, "rate") == "84.8% to 88.9%"
    assert format_p(0.063568115234375) == "p = 0.0636"
    assert format_p(1.58e-30) == "p < 0.001"


# --- Excel formats --------------------------------------------------------------------------------

@pytest.mark.parametrize("kind,value,fmt", [
    ("rate", 0.725, "0.0%"), ("rate", 2.07e-5, "0.0000%"), ("rate", 1e-9, '"< 0.0001%"'),
    ("points", 0.045, '+0.0" pts";-0.0" pts";0.0" pts"'), ("margin", 0.078, '0.0" pts"'),
    ("p", 1.58e-30, '"< 0.001"'), ("p", 0.0636, "0.0000"), ("p", 0.5, "0.000"), ("p", 1.0, "0.00"),
    ("count", 165.0, "#,##0"), ("score", 0.683, "0.000"), ("score", 2.1e-5, "0.000000"),
    ("bleu", 31.3, "#,##0.0"), ("cost", 0.0146, "#,##0.0000"), ("cost", 0.475, "#,##0.000"),
    ("cost", 1234.5, "#,##0.00"), ("latency", 2.45, "#,##0.000"), ("statistic", 4.26, "#,##0.00"),
    ("relative", -0.011, "+0.0%;-0.0%;0.0%"), ("score_diff", 0.0127, "+0.000;-0.000;0.000"),
])
def test_excel_format_of_a_value(kind, value, fmt):
    assert excel_format(kind, value=value) == fmt


def test_excel_format_of_a_kind_and_currency():
    assert excel_format("rate") == "0.0%"
    assert excel_format("p") == '[<0.001]"< 0.001";0.000'
    assert "$" not in excel_format("cost") and "$" not in excel_format("cost", value=0.5)
    assert excel_format("cost", currency="$", value=0.475) == '"$"#,##0.000;-"$"#,##0.000'
    assert excel_value(0.045, "points") == pytest.approx(4.5)
    assert excel_value(0.045, "rate") == 0.045


# --- answers --------------------------------------------------------------------------------------

def test_answer_compare(example_results):
    import pandas as pd

    a = answer(example_results["compare"])
    from pathlib import Path

    folder = Path(__file__).resolve().parents[2] / "resources" / "examples"
    rates = pd.read_csv(folder / "paired_14_to_5.csv")[["baseline", "candidate"]].mean()
    assert a.sentences == (
        "Candidate 'candidate' +4.5 pts (normal 95% CI +0.3 to +8.7 pts) over baseline 'baseline' "
        f"({100 * rates['candidate']:.1f}% against {100 * rates['baseline']:.1f}%) on 200 "
        "items: borderline.",
        "The tests disagree (exact sign test p = 0.0636, McNemar p = 0.0389, McNemar corrected "
        "p = 0.0665); 19 items flipped (14 to the candidate, 5 to the baseline).")
    assert (a.badge, a.tone) == ("borderline", "borderline")


def test_answer_simpson(example_results):
    a = answer(example_results["aggregate_simpson"])
    assert a.sentences[0] == "Simpson's paradox: new is better in every segment and worse overall."
    assert a.sentences[1] == ("Overall new scores 33.0% of 200 items against 66.0% of 250 items for old, "
                              "because the mix of segments differs; compare them per segment.")
    assert a.tone == "bad"


def test_answer_passk(example_results):
    from math import comb

    from scipy.stats import binomtest

    a = answer(example_results["passk"])
    # the example's task: n = 10 attempts, c = 3 pass (the seed's); pass@k is set against pass^k
    # at the same k (one success of k against all k): pass^5 = C(3,5)/C(10,5) = 0
    at5, all5 = 1 - comb(7, 5) / comb(10, 5), comb(3, 5) / comb(10, 5)
    hi = binomtest(0, 1).proportion_ci(method="exact").high
    assert a.sentences[0] == (f"pass@5 = {at5:.3f} but pass^5 = {all5:.3f} (Clopper-Pearson 95% CI 0.000 "
                              f"to {hi:.3f}): not reliable (mean over 1 task).")
    assert (a.badge, a.tone) == ("not reliable", "bad")


def test_answer_cost(example_results):
    a = answer(example_results["cost"])
    cps = example_results["cost"].find("cost_per_success", system="A")[0]
    assert cps["ci_method"] == "ratio-bootstrap-percentile-95,B=2000" and cps["ci_low"] < cps["value"] < cps["ci_high"]
    assert a.sentences == (f"A: 0.0146 per success (ratio bootstrap 95% CI {cps['ci_low']:.4f} to {cps['ci_high']:.4f}; 82.0% of "
                           "100 requests succeed).",
                           "B buys 4.0 pts for 0.475 per extra success. C is dominated.")
    assert a.badge == "C dominated"
    assert answer(example_results["cost"], currency="$").sentences[1].startswith("B buys 4.0 pts for $0.475")


def test_answer_ranking_grammar(example_results):
    one = answer(example_results["ranking_graded"]).sentences[0]
    assert one == "nDCG@10 = 0.913 (MRR 1.000, MAP 1.000, Hit@10 1.000) over 1 query."
    assert answer(example_results["ranking"]).sentences[0].endswith("over 3 queries.")


def test_answer_text_aggregate_plan(example_results):
    from scipy.stats import binomtest
    cp = binomtest(2, 5).proportion_ci(method="exact")  # 2 of 5 items, below 30: Clopper-Pearson
    assert answer(example_results["text"]).sentences[0] == (
        f"Exact match 40.0% of 5 items (Clopper-Pearson 95% CI {100 * cp.low:.1f}% to {100 * cp.high:.1f}%; Token F1 0.679, "
        "BLEU 31.3, chrF 50.2, ROUGE-L F 0.715).")
    assert answer(example_results["aggregate_groups"]).sentences[0] == (
        "Micro 87.0% (Wilson 95% CI 84.8% to 88.9%) on 1,000 items, macro 75.0% over 2 groups.")
    assert answer(example_results["aggregate_ratio"]).sentences[0] == (
        "Pooled ratio 27.3% (denominators summing to 11); mean of ratios 60.0% over 2 units.")
    assert answer(example_results["plan"]).sentences == (
        "With 100 items a rate is known to ±7.8 pts (a rate of 80.0%: Wilson 95% CI 71.1% to 86.7%).",
        "A paired difference smaller than 10.8 pts cannot be told from noise with 100 items.")


def test_answer_gate(example_results):
    for verdict, tone in (("PASS", "good"), ("FAIL", "bad"), ("INCONCLUSIVE", "borderline")):
        a = answer(example_results[f"gate_{verdict}"])
        assert a.badge == verdict and a.tone == tone
        assert a.sentences[0].startswith(verdict)
        assert "registered" in a.sentences[1] or "changed" in a.sentences[1]


def test_every_answer_uses_only_policy_formatted_numbers(example_results):
    import re

    for ident, result in example_results.items():
        a = answer(result)
        assert 1 <= len(a.sentences) <= 2, ident
        assert a.tone in ("good", "bad", "borderline", "neutral")
        for s in a.sentences:
            assert not re.search(r"\d\.\d{5,}", s.replace("0.000021", "")), (ident, s)
            assert "e-0" not in s and "= <" not in s and " 1 queries" not in s, (ident, s)


# --- continuous Compare -------------------------------------------------------------------------

def _compare_scores(shift: float, n: int = 300, seed: int = 3):
    import numpy as np
    import pandas as pd

    from workbench.analyses import compare
    from workbench.io import LoadedTable

    rng = np.random.default_rng(seed)
    base = rng.random(n)
    cand = base + rng.normal(shift, 0.1, n)
    frame = pd.DataFrame({"id": [f"i{i}" for i in range(n)], "base": base, "cand": cand})
    result = compare.run(LoadedTable(frame=frame, path="scores.csv"),
                         compare.Options(baseline="base", candidate="cand", item="id"))
    return result, cand - base


@pytest.mark.parametrize("shift,badge,verdict", [(0.05, "better", "better"), (-0.05, "worse", "worse"),
                                                 (0.0, "no clear difference", "no clear difference")])
def test_answer_compare_on_scores_leads_with_the_difference(shift, badge, verdict):
    from scipy import stats

    result, d = _compare_scores(shift)
    ans = answer(result)
    assert ans.badge == badge
    t = stats.ttest_rel(d, [0.0] * d.size)
    low, high = t.confidence_interval(0.95)
    first = ans.sentences[0]
    assert first.startswith(f"Candidate 'cand' {format_value(d.mean(), 'score_diff')} (paired t 95% CI "
                            f"{format_interval(low, high, 'score_diff')}) over baseline 'base'")
    assert first.endswith(f"on 300 items: {verdict}.")
    second = ans.sentences[1]
    assert second.startswith("Randomization test p ")
    assert f"{int((d > 0).sum())} improved, {int((d < 0).sum())} got worse, 0 tied" in second


def test_answer_compare_names_the_metric_and_the_queries_from_the_signature():
    result, _ = _compare_scores(0.05)
    import dataclasses

    sig = result.signature.replace("analysis:compare|", "analysis:compare|metric:ndcg@10|units:queries-in-both|")
    ans = answer(dataclasses.replace(result, signature=sig + "|source:[workbench:0.1.0|units:items]"))
    assert "in mean nDCG@10 on 300 queries: better." in ans.sentences[0]


def test_changed_items_of_scores_show_scores_and_of_outcomes_counts():
    assert P.column_kind("compare", "discordant", "baseline", "float") == "score"
    assert P.column_kind("compare", "discordant", "candidate", "float") == "score"
    assert P.column_kind("compare", "discordant", "baseline", None) == "count"
    result, _ = _compare_scores(0.05)
    table = result.table("discordant")
    assert P.column_kind("compare", "discordant", "baseline", table.formats.get("baseline")) == "score"


# --- issue 23 ---------------------------------------------------------------------------------------

def test_every_card_names_its_interval_method_when_two_could_be_meant(examples):
    """Item 6: Compare's card (normal interval) and the release rule's card (bootstrap interval)
    show two different 95% CIs of the same +4.5 pts: each names its method."""
    from workbench.analyses import compare
    from workbench.io import load_table
    from workbench.rules import parse_rule
    from workbench.rules.evaluate import evaluate

    table = load_table(examples / "paired_14_to_5.csv")
    cmp = answer(compare.run(table, compare.Options(baseline="baseline", candidate="candidate",
                                                    item="item_id", cluster="conversation")))
    rule_path = examples.parent / "rules" / "seed_14_to_5.toml"
    gate = answer(evaluate(parse_rule(rule_path.read_text(encoding="utf-8"), source=str(rule_path)),
                           [table]))
    assert "+4.5 pts (normal 95% CI +0.3 to +8.7 pts)" in cmp.text
    assert "+4.5 pts (bootstrap 95% CI +0.5 to +9.0 pts)" in gate.text
    for text in (cmp.text, gate.text):  # never an unnamed "(95% CI" beside the other method
        assert "(95% CI" not in text
    assert "≥" in gate.text and ">=" not in gate.text


@pytest.mark.parametrize("basis, method", [
    ("lower bound of the 95% bootstrap interval (10,000 resamples of items, seed 1)", "bootstrap"),
    ("lower bound of the 95% bootstrap interval (2,000 resamples of the 100 clusters of 'c', seed 1)",
     "cluster bootstrap"),
    ("lower bound of the 95% normal interval (SE = ...)", "normal"), ("", "")])
def test_interval_method_from_a_card_basis(basis, method):
    from workbench.report.present import interval_method

    assert interval_method(basis) == method


def _two_runs(tmp_path, lift):
    import numpy as np

    rng = np.random.default_rng(7)
    rows = []
    for system, up in (("bm25", 0.0), ("dense", lift)):
        for q in range(40):
            for d in range(8):
                grade = 1 if d < 2 else 0
                rows.append((system, f"q{q}", f"d{d}", float(rng.random() + up * grade), grade))
    path = tmp_path / "runs.csv"
    pd.DataFrame(rows, columns=["system", "query", "doc", "score", "relevance"]).to_csv(path, index=False)
    return path


@pytest.mark.parametrize("lift, verdict, badge", [
    (0.8, "'dense' beats 'bm25' on nDCG@10 by +", "dense better"),
    (0.0, "No clear difference between 'dense' and 'bm25' on nDCG@10", "no clear difference")])
def test_ranking_with_two_systems_says_whether_one_beats_the_other(tmp_path, lift, verdict, badge):
    """Item 7: the card said both means but never whether B beats A; now its second sentence
    gives the difference with its (named) interval, the queries and the adjusted p."""
    from workbench.analyses import ranking
    from workbench.io import load_table

    res = ranking.run(load_table(_two_runs(tmp_path, lift)), ranking.Options(system="system"))
    a = answer(res)
    assert verdict in a.sentences[1] and a.badge == badge
    d = res.find("diff:ndcg@10")[0]
    assert f"(paired bootstrap 95% CI {format_interval(d['ci_low'], d['ci_high'], 'score_diff')})" in a.sentences[1]
    assert "over 40 queries" in a.sentences[1] and "adjusted)" in a.sentences[1]


def test_the_report_summary_has_the_difference_row(tmp_path):
    from workbench.analyses import ranking
    from workbench.io import load_table
    from workbench.report.headlines import headline_records, unit_of

    res = ranking.run(load_table(_two_runs(tmp_path, 0.8)), ranking.Options(system="system"))
    rows = {r["metric"]: r for r in headline_records(res)}
    assert "diff:ndcg@10" in rows and rows["diff:ndcg@10"]["ci_low"] is not None
    assert unit_of(res, rows["diff:ndcg@10"]) == "queries in both systems"


@pytest.mark.parametrize("value, text, excel", [
    (0.83, "0.830", "#,##0.000"), (2.4517499999999997, "2.452", "#,##0.000"),
    (24.519, "24.52", "#,##0.00"), (245.23, "245.2", "#,##0.0"), (1733.4, "1,733", "#,##0")])
def test_latency_in_ms_is_not_shown_to_three_decimals(value, text, excel):
    """Polish of issue 23: a latency in milliseconds read "1733.412"; at most four significant
    digits now, the same in the workbook."""
    assert format_value(value, "latency") == text
    assert excel_format("latency", value=value) == excel


def test_a_zero_cost_is_0_not_0_00_beside_small_costs():
    assert format_value(0.0, "cost") == "0" and excel_format("cost", value=0.0) == "#,##0"
    assert format_value(0.000144, "cost") == "0.000144"


def test_counts_of_a_whole_and_verbs_agree():
    from workbench.core.numbers import of_total, plural, verb

    assert of_total(61, 10000, "query") == "61 of 10,000 queries"
    assert of_total(1, 1, "task") == "1 of 1 task"
    assert plural(1, "judged query", "judged queries") == "1 judged query"
    assert verb(1, "has", "have") == "has" and verb(2, "has", "have") == "have"


def test_column_names_read_as_words_but_data_named_columns_keep_their_names():
    """Item 14: result tables read 'Token F1', 'BCa 95% CI low'; a column named after the data
    (a version 'old', a system 'bm25' in a pivot) is never renamed ('Old')."""
    from workbench.report.present import column_name

    assert column_name("summary", "token_f1") == "Token F1" and column_name("summary", "rouge1") == "ROUGE-1 F"
    assert column_name("systems_compared", "bca_low") == "BCa 95% CI low"
    assert column_name("systems_compared", "t_ci_low") == "Paired t 95% CI low"
    assert column_name("systems_compared", "ci_low") == "Bootstrap 95% CI low"
    # a rate's interval is named by its rows' methods (issue 44): Wilson when every row is
    import pandas as pd
    assert column_name("groups", "ci_low", frame=pd.DataFrame({"ci_method": ["wilson-95"] * 2})) == "Wilson 95% CI low"
    assert column_name("groups", "ci_low", frame=pd.DataFrame({"ci_method": ["wilson-95", "clopper-pearson-95"]})) \
        == "95% CI low"
    assert column_name("versions", "old") == "old" and column_name("summary", "bm25") == "bm25"
    assert column_name("summary", "ndcg@10") == "nDCG@10"


def test_answer_text_names_chrf_plus_plus_when_it_was_computed(examples):
    """The card names the metric the signature says: chrF++ (word order 2), not chrF."""
    import sacrebleu

    from workbench.analyses import REGISTRY
    from workbench.io import load_table

    table = load_table(str(examples / "text_extraction.csv"))
    plus = REGISTRY["text"].run(table, REGISTRY["text"].Options(chrf_word_order=2))
    sentence = answer(plus).sentences[0]
    frame = table.frame
    want = sacrebleu.metrics.CHRF(word_order=2).corpus_score(
        frame["prediction"].astype(str).tolist(), [frame["reference"].astype(str).tolist()]).score
    assert f"chrF++ {want:.1f}" in sentence
    assert "chrF " not in sentence.replace("chrF++", "")
