"""Intervals of one run's headline numbers (issue 28): the bootstrap against scipy's with the same
resamples, the t interval against scipy, corpus BLEU/chrF against sacrebleu's own bootstrap, the
order-statistic interval of a percentile against scipy's quantile test, small hand cases."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from workbench.metrics import headline_ci as hc


@pytest.mark.parametrize("n,seed", [(5, 1), (37, 7), (400, 12345)])
def test_bootstrap_is_scipys_with_the_same_resamples(n, seed):
    x = np.sort(np.random.default_rng(n).gamma(2.0, size=n))  # the canonical order: sorted
    ref = stats.bootstrap((x,), np.mean, n_resamples=2000, method="percentile", vectorized=True,
                          rng=np.random.default_rng(seed)).confidence_interval
    got = hc.percentile_interval(hc.bootstrap_means(x, resamples=2000, seed=seed))
    assert got == pytest.approx((ref.low, ref.high), rel=1e-12)


def test_columns_share_the_resamples_and_blocks_do_not_change_them(monkeypatch):
    rng = np.random.default_rng(3)
    v = rng.random((300, 5))
    v = v[np.argsort(v[:, 0])]  # the canonical order (rows sorted by the first column)
    whole = hc.bootstrap_means(v, resamples=500, seed=9)          # 5 columns: the counts path
    monkeypatch.setattr(hc, "BLOCK_DRAWS", 1000)                   # 3 rows per block
    blocks = hc.bootstrap_means(v, resamples=500, seed=9)
    assert blocks == pytest.approx(whole, rel=1e-12)
    # one column, in the same order: the gather path, the same resamples
    assert hc.bootstrap_means(v[:, 0], resamples=500, seed=9) == pytest.approx(whole[:, 0], rel=1e-12)
    assert hc.bootstrap_means(v[:, :2], resamples=500, seed=9) == pytest.approx(whole[:, :2], rel=1e-12)


def test_row_order_does_not_change_a_seeded_interval():
    v = np.random.default_rng(8).random((101, 3))
    perm = np.random.default_rng(1).permutation(101)
    assert hc.bootstrap_means(v[perm], resamples=300, seed=3) == pytest.approx(
        hc.bootstrap_means(v, resamples=300, seed=3), rel=1e-12)
    codes = np.random.default_rng(2).integers(0, 9, size=101)
    relabel = np.random.default_rng(3).permutation(9)
    assert hc.bootstrap_means(v[perm], resamples=300, seed=3, clusters=relabel[codes[perm]]) == pytest.approx(
        hc.bootstrap_means(v, resamples=300, seed=3, clusters=codes), rel=1e-12)



def test_float_noise_in_a_column_does_not_reorder_the_others():
    # an engine sums a query's terms in a thread-dependent order: 0.5 comes back as
    # 0.49999999999999994 in one run and 0.5 in the next.  Ties of the first column then must
    # not be broken by the noise (which would swap the rows' other columns and move the
    # second column's interval far beyond noise).
    rng = np.random.default_rng(11)
    n = 400
    first = rng.choice([0.0, 1 / 3, 0.5, 1.0], size=n)
    second = rng.random(n)
    noisy = first.copy()
    flip = rng.random(n) < 0.5
    noisy[flip] = np.nextafter(first[flip], np.where(rng.random(flip.sum()) < 0.5, -1.0, 2.0))
    assert (noisy != first).sum() > 100
    clean = hc.mean_intervals({"a": first, "b": second}, resamples=500, seed=4)
    other = hc.mean_intervals({"a": noisy, "b": second}, resamples=500, seed=4)
    for k in ("a", "b"):
        assert (other[k].low, other[k].high) == pytest.approx((clean[k].low, clean[k].high),
                                                              abs=1e-12)
    # the same through bootstrap_means' own ordering, and with the rows shuffled
    perm = rng.permutation(n)
    a = hc.bootstrap_means(np.column_stack([first, second]), resamples=300, seed=5)
    b = hc.bootstrap_means(np.column_stack([noisy, second])[perm], resamples=300, seed=5)
    assert b == pytest.approx(a, abs=1e-12)
    # a real difference still orders the rows: the canonical order of distinct values is sorted
    v = np.column_stack([np.linspace(1, 0, 50), rng.random(50)])
    assert np.array_equal(hc._canonical(v), np.arange(50)[::-1])


def test_values_the_rounding_makes_equal_keep_an_order_of_their_own():
    # beside 1e9, 1e-3 and 2e-3 round to the same step: their exact values still order them,
    # so the row order of the file never decides (items, and clusters of equal size)
    v = np.array([[1e9, 1.0], [1e-3, 5.0], [2e-3, 5.0], [3.0, 2.0]])
    assert hc.bootstrap_means(v[[0, 2, 1, 3]], resamples=200, seed=1) == pytest.approx(
        hc.bootstrap_means(v, resamples=200, seed=1), rel=1e-15, abs=0)
    nets = np.array([1e9, 1e-3, 2e-3])
    a = hc.bootstrap_means(nets, resamples=200, seed=1, clusters=np.array([0, 1, 2]))
    b = hc.bootstrap_means(nets[[0, 2, 1]], resamples=200, seed=1, clusters=np.array([0, 1, 2]))
    assert np.array_equal(a, b)
    # a column of zeros, or of values too small to divide into steps, is sorted as it is
    tiny = np.column_stack([np.array([3e-320, 1e-320, 2e-320]), np.zeros(3)])
    assert list(hc._canonical(tiny)) == [1, 2, 0]

def test_hand_computed_resamples():
    # two items: each resample is one of (a, a), (a, b), (b, a), (b, b); the draws are the seed's
    x = np.array([0.2, 0.6])  # sorted: the canonical order
    idx = np.random.default_rng(5).integers(0, 2, size=(50, 2))
    assert hc.bootstrap_means(x, resamples=50, seed=5) == pytest.approx(x[idx].mean(axis=1))


def test_cluster_bootstrap_draws_whole_clusters():
    # clusters {0: [0], 1: [1, 1, 1]} (sorted by sum): a resample is 0 / 2, (0 + 3) / 4 or 6 / 6
    values = np.array([1.0, 1.0, 1.0, 0.0])
    codes = np.array([1, 1, 1, 0])
    s = hc.bootstrap_means(values, resamples=400, seed=2, clusters=codes)
    assert set(np.round(s, 12)) <= {1.0, 0.75, 0.0}
    idx = np.random.default_rng(2).integers(0, 2, size=(400, 2))
    net, size = np.array([0.0, 3.0]), np.array([1.0, 3.0])
    assert s == pytest.approx(net[idx].sum(1) / size[idx].sum(1))


def test_t_interval_is_scipys():
    x = np.array([0.61, 0.42, 0.93, 0.55, 0.70, 0.38, 0.81])
    ref = stats.t.interval(0.95, x.size - 1, loc=x.mean(), scale=stats.sem(x))
    assert hc.t_interval(x) == pytest.approx(ref, rel=1e-12)
    assert all(math.isnan(v) for v in hc.t_interval([0.5]))
    assert all(math.isnan(v) for v in hc.t_interval([0.5, 0.5, 0.5]))   # SD 0: no zero-width interval


def test_degenerate_bootstrap_is_named_not_zero_width():
    ci = hc.mean_intervals({"f1": np.full(12, 0.75)})["f1"]
    assert ci.degenerate and math.isnan(ci.low) and math.isnan(ci.high)
    from workbench.analyses import _intervals
    fields = _intervals.fields(ci)
    assert fields["degenerate"] is True and "ci_low" not in fields and "ci_high" not in fields


def test_a_zero_one_column_is_a_rate_with_the_small_n_interval():
    ci = hc.mean_intervals({"em": np.array([1, 0, 1, 1, 0], float)})["em"]
    cp = stats.binomtest(3, 5).proportion_ci(method="exact")
    assert ci.method == "clopper-pearson" and (ci.low, ci.high) == pytest.approx((cp.low, cp.high), abs=1e-12)
    every = hc.mean_intervals({"em": np.ones(200)})["em"]              # 100%: exact, not degenerate
    assert every.method == "clopper-pearson" and not every.degenerate and every.low < 1.0
    ci = hc.mean_intervals({"em": np.r_[np.ones(120), np.zeros(80)]})["em"]
    assert ci.method == "wilson"
    w = stats.binomtest(120, 200).proportion_ci(method="wilson")
    assert (ci.low, ci.high) == pytest.approx((w.low, w.high), abs=1e-12)


@pytest.mark.parametrize("n", [5, 19, 100, 373, 1000])
@pytest.mark.parametrize("q", [0.5, 0.95, 0.99])
def test_percentile_interval_is_scipys_quantile_test(n, q):
    x = np.random.default_rng(n).lognormal(size=n)
    ref = stats.quantile_test(x, q=1.0, p=q).confidence_interval(0.95)
    got = hc.quantile_interval(x, q)
    np.testing.assert_array_equal(np.array(got), np.array([ref.low, ref.high]))


@pytest.mark.parametrize("q,level", [(0.99, 0.95), (0.5, 0.95), (0.95, 0.95), (0.9, 0.9), (0.01, 0.95),
                                     (0.25, 0.99), (0.999, 0.95), (0.75, 0.5)])
def test_quantile_interval_size(q, level):
    n = hc.quantile_interval_size(q, level)
    # the fewest values with both ends of scipy's quantile test: n has both, n - 1 misses one
    both = stats.quantile_test(np.arange(n, dtype=float), q=0.0, p=q).confidence_interval(level)
    assert np.isfinite([both.low, both.high]).all()
    if n > 1:
        fewer = stats.quantile_test(np.arange(n - 1, dtype=float), q=0.0, p=q).confidence_interval(level)
        assert not np.isfinite([fewer.low, fewer.high]).all()
    assert not any(math.isnan(v) for v in hc.quantile_interval(np.arange(n, dtype=float), q, level))


def test_ratio_bootstrap_resamples_numerator_and_denominator_together():
    cost = np.array([1.0, 2.0, 4.0, 8.0])
    succ = np.array([1.0, 0.0, 1.0, 1.0])
    s = hc.ratio_bootstrap(cost, succ, resamples=300, seed=4)
    idx = np.random.default_rng(4).integers(0, 4, size=(300, 4))
    den = succ[idx].sum(1)
    ref = np.where(den > 0, cost[idx].sum(1) / np.where(den > 0, den, 1), np.nan)
    np.testing.assert_allclose(s, ref, rtol=1e-12)


@pytest.mark.parametrize("name", ["bleu", "chrf"])
def test_corpus_interval_is_sacrebleus(name):
    from sacrebleu.metrics import BLEU, CHRF

    from workbench.metrics import corpus_paired as cp
    rng = np.random.default_rng(11)
    words = "the a cat dog sat ran on under mat sofa quickly slowly today".split()
    refs = [" ".join(rng.choice(words, size=rng.integers(3, 12))) for _ in range(60)]
    hyps = [" ".join(w for w in r.split() if rng.random() > 0.3) or "x" for r in refs]
    metric = (BLEU if name == "bleu" else CHRF)()
    ref = metric.corpus_score(hyps, [refs], n_bootstrap=1000)
    _, st = cp.sentence_statistics(name, hyps, refs)
    mean, half, _ = cp.corpus_bootstrap(name, st)
    assert (mean, half) == pytest.approx((ref._mean, ref._ci), rel=1e-6)


# ------------------------------------------------------------------ through the analyses

from conftest import table_of  # noqa: E402


def _frame_scores(n=200, seed=0):
    import pandas as pd

    rng = np.random.default_rng(seed)
    b = rng.random(n)
    return pd.DataFrame({"item": range(n), "base": b, "cand": b + rng.normal(0.03, 0.2, n)})


def test_compare_reports_t_with_its_df_as_scipy(cli, tmp_path):
    frame = _frame_scores()
    path = tmp_path / "scores.csv"
    frame.to_csv(path, index=False)
    out = cli("compare", path, "--baseline", "base", "--candidate", "cand", "--item", "item",
              "--resamples", "1000")
    ref = stats.ttest_rel(frame["cand"], frame["base"])
    t = next(r for r in out["results"] if r["metric"] == "t")
    assert t["value"] == pytest.approx(ref.statistic, rel=1e-9) and t["df"] == ref.df == 199
    d = frame["cand"] - frame["base"]
    dz = next(r for r in out["results"] if r["metric"] == "effect_size")
    assert dz["value"] == pytest.approx(d.mean() / d.std(ddof=1), rel=1e-9)


def test_the_answer_states_t_as_a_statistics_package():
    from workbench.analyses import compare
    from workbench.report.present import answer

    frame = _frame_scores(seed=3)
    res = compare.run(table_of(frame), compare.Options(baseline="base", candidate="cand", item="item",
                                                       resamples=1000))
    ref = stats.ttest_rel(frame["cand"], frame["base"])
    p = f"{ref.pvalue:.3g}"  # the p-value policy: three significant digits
    assert f"t(199) = {ref.statistic:.2f}, p = {p}" in answer(res).text


def test_systems_compared_has_t_and_dz_per_metric():
    import pandas as pd
    from workbench.analyses import text

    rng = np.random.default_rng(5)
    words = "alpha beta gamma delta eps zeta eta theta".split()
    refs = [" ".join(rng.choice(words, size=5)) for _ in range(40)]
    a = [" ".join(w for w in r.split() if rng.random() > 0.3) for r in refs]
    b = [" ".join(w for w in r.split() if rng.random() > 0.2) for r in refs]
    frame = pd.DataFrame({"id": list(range(40)) * 2, "system": ["A"] * 40 + ["B"] * 40,
                          "prediction": a + b, "reference": refs * 2})
    res = text.run(table_of(frame), text.Options(id="id", system="system"))
    items = res.table("items").frame
    fa = items[items.system == "A"].set_index("item")["token_f1"]
    fb = items[items.system == "B"].set_index("item")["token_f1"]
    ref = stats.ttest_rel(fb.loc[fa.index], fa)
    rec = res.find("t:token_f1")[0]
    assert rec["value"] == pytest.approx(ref.statistic, rel=1e-9) and rec["df"] == 39
    assert res.find("effect_size:token_f1")[0]["value"] == pytest.approx(
        (fb.loc[fa.index] - fa).mean() / (fb.loc[fa.index] - fa).std(ddof=1), rel=1e-9)


def test_text_headlines_carry_their_intervals():
    import pandas as pd
    from workbench.analyses import text
    from sacrebleu.metrics import BLEU

    rng = np.random.default_rng(9)
    words = "one two three four five six seven eight nine ten".split()
    refs = [" ".join(rng.choice(words, size=rng.integers(4, 9))) for _ in range(50)]
    preds = [" ".join(w for w in r.split() if rng.random() > 0.25) for r in refs]
    res = text.run(table_of(pd.DataFrame({"prediction": preds, "reference": refs})))
    f1 = res.table("items").frame["token_f1"].to_numpy()
    rec = res.find("token_f1")[0]
    boot = stats.bootstrap((np.sort(f1),), np.mean, n_resamples=2000, method="percentile",
                           rng=np.random.default_rng(12345)).confidence_interval
    assert (rec["ci_low"], rec["ci_high"]) == pytest.approx((boot.low, boot.high), rel=1e-12)
    assert (rec["t_low"], rec["t_high"]) == pytest.approx(
        stats.t.interval(0.95, 49, loc=f1.mean(), scale=stats.sem(f1)), rel=1e-12)
    assert "ci:bootstrap-percentile-95,B=2000,seed=12345" in res.signature
    # BLEU: sacrebleu --confidence on the sentences in the canonical order (sorted by statistics)
    from workbench.metrics import corpus_paired as cp
    _, st = cp.sentence_statistics("bleu", preds, refs)
    order = np.lexsort(st.T[::-1])
    ref = BLEU().corpus_score([preds[i] for i in order], [[refs[i] for i in order]], n_bootstrap=1000)
    bleu = res.find("bleu")[0]
    assert (bleu["ci_low"], bleu["ci_high"]) == pytest.approx(
        (max(0, ref._mean - ref._ci), min(100, ref._mean + ref._ci)), rel=1e-6)


def test_macro_interval_resamples_within_groups():
    # two groups of 0/1 outcomes: each group's resampled rate is Binomial(n_g, p_g) / n_g
    codes = np.r_[np.zeros(50, int), np.ones(20, int)]
    y = np.r_[np.ones(40), np.zeros(10), np.ones(5), np.zeros(15)]
    s = hc.stratified_mean_of_means(y, codes, ["a", "b"], resamples=4000, seed=1)
    ref = np.zeros(4000)
    for j, (n, p) in enumerate(((50, 0.8), (20, 0.25))):
        ref += np.random.default_rng(np.random.SeedSequence(1, spawn_key=(j,))).binomial(n, p, 4000) / n
    np.testing.assert_allclose(s, ref / 2, rtol=1e-12)
    # scores: each group's own bootstrap of its mean
    z = np.linspace(0, 1, 70) ** 2
    s = hc.stratified_mean_of_means(z, codes, ["b", "a"], resamples=500, seed=2)   # label order: 'a' is 1
    ref = (hc.bootstrap_means(z[codes == 1], resamples=500, seed=np.random.SeedSequence(2, spawn_key=(0,)))
           + hc.bootstrap_means(z[codes == 0], resamples=500, seed=np.random.SeedSequence(2, spawn_key=(1,)))) / 2
    np.testing.assert_allclose(s, ref, rtol=1e-12)


def test_every_headline_of_the_examples_has_an_interval_or_says_why(cli):
    from pathlib import Path
    ex = Path(__file__).resolve().parents[1] / "resources" / "examples"
    cases = {
        "text": [ex / "text_extraction.csv"],
        "ranking": [ex / "ranking_seed.csv"],
        "passk": [ex / "passk_counts.csv"],
        "aggregate": [ex / "multilingual.csv"],
        "cost": [ex / "cost_latency.csv"],
    }
    headline = {"text": {"exact_match", "token_f1", "bleu", "chrf", "rouge1", "rouge2", "rougeL"},
                "ranking": {"p@10", "r@10", "ndcg@10", "mrr", "map"},
                "passk": {"pass@1", "pass@10", "pass^3"},
                "aggregate": {"rate", "micro", "macro"},
                "cost": {"success_rate", "cost_per_request", "cost_per_success", "latency_p50",
                         "latency_p95", "latency_p99"}}
    for analysis, argv in cases.items():
        out = cli(analysis, *argv)
        for rec in out["results"]:
            if rec["metric"] not in headline[analysis]:
                continue
            has = rec.get("ci_low") is not None and rec.get("ci_high") is not None
            assert has or rec.get("degenerate") or any(
                rec["metric"].replace("_", " ") in note for note in out["notes"]), (analysis, rec)
            assert rec.get("ci_method"), rec
            if has:
                assert rec["ci_low"] < rec["ci_high"], rec   # never a zero-width interval


def test_report_gives_the_bounds_as_values_with_the_method_in_a_comment(tmp_path):
    import pandas as pd
    from openpyxl import load_workbook

    from workbench.analyses import text
    from workbench.report.xlsx import write_report

    refs = ["the cat sat", "a dog ran home", "hello world", "green eggs and ham", "it rains"] * 4
    preds = ["the cat sat down", "a dog ran", "hello", "green eggs", "it rains today"] * 4
    res = text.run(table_of(pd.DataFrame({"prediction": preds, "reference": refs})))
    path = tmp_path / "r.xlsx"
    write_report(path, [res])
    wb = load_workbook(path)
    rec = res.find("token_f1")[0]
    found = []
    for ws in wb.worksheets:
        for row in ws.iter_rows():
            for cell in row:
                if cell.comment is not None and "bootstrap-percentile-95" in cell.comment.text:
                    found.append(cell.value)
    assert any(v == pytest.approx(rec["ci_low"]) for v in found if isinstance(v, float))
    assert any(v == pytest.approx(rec["ci_high"]) for v in found if isinstance(v, float))


def test_large_files_draw_fewer_resamples_and_say_so():
    assert hc.effective_resamples(2000, 4000) == 2000
    assert hc.effective_resamples(2000, 10_000) == hc.DRAW_BUDGET // 10_000
    assert hc.effective_resamples(2000, 10_000_000) == hc.MIN_RESAMPLES
    x = np.random.default_rng(0).random(60_000)
    ci = hc.mean_intervals({"x": x})["x"]
    assert ci.resamples == hc.MIN_RESAMPLES
    from workbench.analyses import _intervals
    assert _intervals.fields(ci)["ci_method"] == f"bootstrap-percentile-95,B={hc.MIN_RESAMPLES}"


def test_shared_draws_are_the_separate_ones():
    # one set of draws for several matrices: each gets what its own bootstrap would give
    rng = np.random.default_rng(4)
    a, b = np.sort(rng.random(80)), rng.integers(0, 9, size=(80, 3)).astype(float)
    sa, sb = hc.resampled_sums([a[:, None], b], [300, 120], seed=6)
    np.testing.assert_allclose(sa[:, 0] / 80, hc.bootstrap_means(a, resamples=300, seed=6), rtol=1e-12)
    idx = np.random.default_rng(6).choice(80, size=(120, 80))   # sacrebleu's draws
    np.testing.assert_allclose(sb, b[idx].sum(axis=1), rtol=1e-12)


def test_resampled_sums_reuse_the_last_draws_exactly():
    """The conventions table runs an analysis once per convention on the same items: the
    resamples' counts are drawn once and reused, giving the very sums of the documented draws
    (``default_rng(seed).integers(0, n, size=(R, n))``)."""
    from workbench.metrics import headline_ci as hc_

    rng = np.random.default_rng(0)
    m = rng.random((500, 3))
    hc_._COUNTS_CACHE.clear()
    first = hc_.resampled_sums([m], [300], seed=7)[0]
    assert hc_._COUNTS_CACHE  # kept for the next call
    second = hc_.resampled_sums([m[:, ::-1], m[:, :1]], [300, 120], seed=7)
    # (the same counts; a matrix product of other columns may round in another order)
    assert np.allclose(first[:, ::-1], second[0], rtol=1e-13, atol=0)
    assert np.allclose(first[:120, :1], second[1], rtol=1e-13, atol=0)
    idx = np.random.default_rng(7).integers(0, 500, size=(300, 500))
    assert np.allclose(first, m[idx].sum(axis=1), rtol=1e-12, atol=0)
    other = hc_.resampled_sums([m], [300], seed=8)[0]  # another seed: other draws
    assert not np.allclose(other, first)


def _plain_means(v, resamples, seed):
    """The documented draws, gathered from the float values themselves (no codes)."""
    n = v.shape[0]
    idx = np.random.default_rng(seed).integers(0, n, size=(resamples, n))
    return np.stack([v[:, j][idx].sum(axis=1) / n for j in range(v.shape[1])], axis=1)


@pytest.mark.parametrize("kind", ["few-floats", "zero-one", "many-floats", "with-nan", "counts"])
def test_large_columns_resampled_through_codes_give_the_very_same_means(kind):
    """From COMPACT_FROM items a column of whole numbers is summed as small integers, one of few
    distinct values gathered through small codes: every resample's mean is bit for bit the one
    of gathering the floats."""
    rng = np.random.default_rng(11)
    n = hc.COMPACT_FROM + 7
    cost = np.round(rng.gamma(2.0, 0.001, n), 5 if kind != "many-floats" else 12)
    flag = (rng.random(n) < 0.6).astype(float)
    if kind == "with-nan":
        cost[::1000] = np.nan
    if kind == "counts":  # whole numbers, some large: summed as integers
        cost = rng.integers(-300, 30_000, n).astype(float)
    v = np.column_stack([cost, flag])
    if kind == "zero-one":
        v = v[:, ::-1]
    v = v[hc._canonical(v)]
    got = hc.bootstrap_means(v, resamples=3, seed=5, ordered=True)
    ref = _plain_means(v, 3, 5)
    assert np.array_equal(got, ref, equal_nan=True)


def test_ratio_bootstrap_gives_the_numerators_own_bootstrap():
    rng = np.random.default_rng(2)
    cost = np.round(rng.gamma(2.0, 0.01, 500), 4)
    cost[:40] = cost[40:80]                     # ties, broken by the success column
    succ = (rng.random(500) < 0.5).astype(float)
    ratio, means = hc.ratio_bootstrap(cost, succ, resamples=400, seed=3, with_numerator=True)
    assert np.array_equal(ratio, hc.ratio_bootstrap(cost, succ, resamples=400, seed=3))
    assert np.array_equal(means, hc.bootstrap_means(cost, resamples=400, seed=3))
    # costs within float noise of each other: the pairs' order no longer sorts the costs
    # exactly, so the numerator's means are not offered (the caller draws them itself)
    noisy = np.array([0.3, 0.1 + 0.2, 0.3, 0.1 + 0.2, 0.5])
    _, none = hc.ratio_bootstrap(noisy, np.array([1.0, 0.0, 0.0, 1.0, 1.0]), resamples=200, seed=1,
                                 with_numerator=True)
    assert none is None


def test_cost_per_request_interval_is_its_own_bootstrap_when_shared():
    """The cost analysis draws one bootstrap for the cost per request and per success when every
    request is measured: the cost per request's interval is still the one of bootstrapping the
    costs alone (and scipy's, on the sorted costs)."""
    import pandas as pd

    from workbench.analyses import cost as cost_analysis
    from workbench.io import LoadedTable

    rng = np.random.default_rng(6)
    n = 300
    frame = pd.DataFrame({"system": ["a"] * n, "ok": rng.integers(0, 2, n),
                          "cost": np.round(rng.gamma(2.0, 0.01, n), 3)})
    table = LoadedTable(frame=frame, path="t.csv")
    res = cost_analysis.run(table, cost_analysis.Options(system="system", success="ok", cost="cost",
                                                         ci_resamples=1000, ci_seed=4))
    rec = next(r for r in res.records if r["metric"] == "cost_per_request")
    x = np.sort(frame["cost"].to_numpy(dtype=float))
    ref = stats.bootstrap((x,), np.mean, n_resamples=1000, method="percentile", vectorized=True,
                          rng=np.random.default_rng(4)).confidence_interval
    assert (rec["ci_low"], rec["ci_high"]) == pytest.approx((ref.low, ref.high), rel=1e-12)
