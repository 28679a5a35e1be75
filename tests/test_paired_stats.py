"""Paired tests for any per-item score, cross-checked against independent references.

* paired t (statistic, p, interval) vs ``scipy.stats.ttest_rel`` and ranx's Student test: 1e-9;
* Wilcoxon signed-rank vs ``scipy.stats.wilcoxon`` and the normal approximation by hand;
* the sign-flip randomization test: exact enumeration vs ``scipy.stats.permutation_test``
  (exact, 1e-12); Monte Carlo vs the exact p and vs ranx's Fisher randomization test within
  4 Monte Carlo standard errors (sqrt(p (1 - p) / rounds) of each estimate, combined);
* BCa: our interval from scipy's own bootstrap distribution equals scipy's interval (1e-9);
  our bootstrap distribution vs scipy's within Monte Carlo error (quantiles within a few
  bootstrap-SE / sqrt(resamples)); the multinomial shortcut vs item resampling;
* Holm and Bonferroni vs ``statsmodels.stats.multitest.multipletests`` (1e-12);
* corpus BLEU/chrF paired bootstrap and approximate randomization vs sacrebleu's own
  ``significance`` module with the same data and seed: the same p-values (1e-12).
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from scipy import stats

from workbench.metrics import corpus_paired as cp
from workbench.metrics import paired as pm


def data(n, seed, shift=0.03, ties=False, zeros=0):
    rng = np.random.default_rng(seed)
    base = rng.random(n)
    cand = base + rng.normal(shift, 0.2, n)
    if ties:
        base, cand = np.round(base, 1), np.round(cand, 1)
    if zeros:
        cand[:zeros] = base[:zeros]
    return base, cand


# ------------------------------------------------------------------------------ t-test


@pytest.mark.parametrize("n,seed,ties", [(2, 1, False), (3, 2, False), (10, 3, True), (57, 4, False),
                                          (500, 5, True), (5000, 6, False)])
def test_paired_t_matches_scipy_ttest_rel(n, seed, ties):
    base, cand = data(n, seed, ties=ties)
    ours = pm.paired_t(cand - base)
    ref = stats.ttest_rel(cand, base)
    ci = ref.confidence_interval(0.95)
    assert ours.t == pytest.approx(ref.statistic, rel=1e-9, abs=1e-12)
    assert ours.p == pytest.approx(ref.pvalue, rel=1e-9, abs=1e-300)
    assert (ours.ci_low, ours.ci_high) == pytest.approx((ci.low, ci.high), rel=1e-9, abs=1e-12)
    assert ours.df == ref.df == n - 1


def test_paired_t_matches_ranx_student():
    ranx_t = pytest.importorskip("ranx.statistical_tests.paired_student_t_test")
    for seed in range(5):
        base, cand = data(300, seed)
        p, _ = ranx_t.paired_student_t_test(base, cand)
        assert pm.paired_t(cand - base).p == pytest.approx(p, rel=1e-9)


def test_paired_t_degenerate():
    one = pm.paired_t([0.5])
    assert one.mean == 0.5 and np.isnan(one.p) and np.isnan(one.ci_low)
    ties = pm.paired_t(np.zeros(20))
    assert np.isnan(ties.t) and np.isnan(ties.p) and ties.ci_low == ties.ci_high == 0.0
    const = pm.paired_t(np.ones(5))
    ref = stats.ttest_rel(np.ones(5), np.zeros(5))
    assert const.t == ref.statistic == np.inf and const.p == ref.pvalue == 0.0


# ------------------------------------------------------------------------------ Wilcoxon


@pytest.mark.parametrize("zero_method", pm.ZERO_METHODS)
@pytest.mark.parametrize("n,seed,ties,zeros", [(8, 1, False, 0), (12, 2, True, 2), (30, 3, False, 0),
                                                (40, 4, True, 5), (400, 5, True, 30), (3000, 6, False, 0)])
def test_wilcoxon_matches_scipy(zero_method, n, seed, ties, zeros):
    base, cand = data(n, seed, ties=ties, zeros=zeros)
    d = cand - base
    if zero_method == "wilcox" and not np.any(d):
        return
    ours = pm.wilcoxon(d, zero_method=zero_method)
    # on a 0.1 grid the reference is scipy on the integer-scaled copy (scipy on the float
    # differences splits ties such as 0.3 - 0.2 and 0.4 - 0.3: issue 22)
    ref = stats.wilcoxon(np.rint(d * 10) if ties else d, zero_method=zero_method, correction=False,
                         method="auto")
    assert ours.statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert ours.p == pytest.approx(ref.pvalue, rel=1e-9, abs=1e-300)
    assert ours.method == ("normal" if n > 50 else ours.method)


@pytest.mark.parametrize("zero_method", pm.ZERO_METHODS)
@pytest.mark.parametrize("d", [
    [0.1, 0.1, -0.2, 0.3, 0.0, 0.5, 0.1, -0.1, 0.2, 0.2, 0.4, -0.3, 0.1],   # n = 13, ties and a zero
    [0.2, -0.2, 0.2, 0.0, 0.0, 0.7],                                         # several zeros
    [1.0, 1.0, 1.0, 1.0],                                                     # all tied, one sign
    [0.0, 0.3],                                                               # one non-zero
])
def test_wilcoxon_sign_enumeration_equals_scipys_permutation_test(zero_method, d):
    """Ties or zeros at n <= 13: scipy runs permutation_test over every sign pattern (about a
    second a call); the workbench enumerates the same patterns itself."""
    import warnings

    d = np.array(d)
    ours = pm.wilcoxon(d, zero_method=zero_method)
    assert ours.method == "permutation"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = stats.wilcoxon(d, zero_method=zero_method, correction=False, method="auto")
    assert ours.statistic == pytest.approx(float(ref.statistic), rel=1e-12, abs=1e-12)
    assert ours.p == pytest.approx(float(ref.pvalue), rel=1e-12)


def test_wilcoxon_normal_approximation_by_hand():
    base, cand = data(400, 9)
    d = cand - base
    r = stats.rankdata(np.abs(d))
    w_plus = r[d > 0].sum()
    n = d.size
    mean, sd = n * (n + 1) / 4, np.sqrt(n * (n + 1) * (2 * n + 1) / 24)
    p = 2 * stats.norm.sf(abs(w_plus - mean) / sd)
    ours = pm.wilcoxon(d)
    assert ours.method == "normal" and ours.n_used == n
    assert ours.p == pytest.approx(p, rel=1e-9)


def test_wilcoxon_zero_handling_differs_and_all_zero_is_p1():
    d = np.r_[np.zeros(10), np.linspace(0.1, 2.0, 60)]
    assert pm.wilcoxon(d, zero_method="wilcox").n_used == 60
    assert pm.wilcoxon(d, zero_method="pratt").n_used == 70
    assert pm.wilcoxon(d, zero_method="wilcox").p != pm.wilcoxon(d, zero_method="pratt").p
    none = pm.wilcoxon(np.zeros(5))
    assert none.p == 1.0 and none.method == "none"


# ------------------------------------------------------------------------------ sign flips


def scipy_exact_permutation(d):
    res = stats.permutation_test((d, np.zeros_like(d)), lambda a, b, axis=-1: np.mean(a - b, axis=axis),
                                 permutation_type="samples", n_resamples=np.inf, vectorized=True)
    return res.pvalue


@pytest.mark.parametrize("n,seed,ties,zeros", [(2, 1, False, 0), (4, 2, False, 0), (9, 3, True, 2),
                                                (12, 4, False, 0), (14, 5, True, 3), (16, 6, False, 1)])
def test_sign_flip_exact_equals_scipy_permutation_test(n, seed, ties, zeros):
    base, cand = data(n, seed, shift=0.1, ties=ties, zeros=zeros)
    d = cand - base
    ours = pm.sign_flip_test(d)
    assert ours.method == "exact" and ours.rounds == 2 ** int(np.count_nonzero(d))
    assert ours.p == pytest.approx(scipy_exact_permutation(d), rel=1e-12, abs=1e-15)


def test_sign_flip_one_item_is_p1():
    assert pm.sign_flip_test([0.3]).p == 1.0  # both sign patterns are as extreme


def test_sign_flip_exact_on_integer_differences_with_many_ties():
    d = np.array([1, -1, 1, 1, 0, 2, -2, 1, 1, -1, 1, 1, 3], dtype=float)
    assert pm.sign_flip_test(d).p == pytest.approx(scipy_exact_permutation(d), rel=1e-12)
    # symmetric: flipping every sign gives the same p
    assert pm.sign_flip_test(-d).p == pm.sign_flip_test(d).p


def test_sign_flip_monte_carlo_within_error_of_exact():
    base, cand = data(20, 11, shift=0.08)
    d = cand - base
    exact = pm.sign_flip_test(d).p
    mc = pm.sign_flip_test(d, rounds=40_000, seed=3, exact_max=10)
    assert mc.method == "monte-carlo" and mc.rounds == 40_000
    se = np.sqrt(exact * (1 - exact) / 40_000)
    assert abs(mc.p - exact) < 4 * se + 1 / 40_001
    assert mc.mc_se == pytest.approx(se, rel=0.1)


def test_sign_flip_monte_carlo_matches_scipy_and_ranx_within_error():
    base, cand = data(400, 12, shift=0.02)
    d = cand - base
    ours = pm.sign_flip_test(d, rounds=20_000, seed=5)
    ref = stats.permutation_test((cand, base), lambda a, b, axis=-1: np.mean(a - b, axis=axis),
                                 permutation_type="samples", n_resamples=20_000, vectorized=True,
                                 rng=np.random.default_rng(6))
    se = np.sqrt(2 * ours.p * (1 - ours.p) / 20_000)
    assert 0.01 < ours.p < 0.5  # a p-value where the comparison means something
    assert abs(ours.p - ref.pvalue) < 4 * se + 2e-4
    fisher = pytest.importorskip("ranx.statistical_tests.fisher_randomization_test")
    p_ranx, _ = fisher.fisher_randomization_test(base, cand, n_permutations=5000, random_seed=7)
    se = np.sqrt(ours.p * (1 - ours.p) * (1 / 20_000 + 1 / 5000))
    assert abs(ours.p - p_ranx) < 4 * se + 2e-4


def test_sign_flip_seeded_and_order_free_through_summarize():
    base, cand = data(300, 13)
    a = pm.summarize(base, cand, resamples=2000, seed=1)
    perm = np.random.default_rng(0).permutation(300)
    b = pm.summarize(base[perm], cand[perm], resamples=2000, seed=1)
    assert a.randomization.p == b.randomization.p
    assert (a.boot_low, a.boot_high, a.bca_low, a.bca_high) == (b.boot_low, b.boot_high, b.bca_low, b.bca_high)


# ------------------------------------------------------------------------------ bootstrap


def mean_diff(x, y, axis=-1):
    return np.mean(y - x, axis=axis)


@pytest.mark.parametrize("n,seed", [(15, 1), (80, 2), (400, 3)])
def test_bca_interval_equals_scipy_on_scipys_distribution(n, seed):
    base, cand = data(n, seed)
    d = cand - base
    ref = stats.bootstrap((base, cand), mean_diff, paired=True, vectorized=True, n_resamples=4999,
                          method="BCa", rng=np.random.default_rng(seed))
    low, high = pm.bca_interval(ref.bootstrap_distribution, float(d.mean()), pm.jackknife_means(d))
    assert (low, high) == pytest.approx((ref.confidence_interval.low, ref.confidence_interval.high),
                                        rel=1e-9, abs=1e-12)
    p = stats.bootstrap((base, cand), mean_diff, paired=True, vectorized=True, n_resamples=4999,
                        method="percentile", rng=np.random.default_rng(seed))
    assert pm.percentile_interval(p.bootstrap_distribution) == pytest.approx(
        (p.confidence_interval.low, p.confidence_interval.high), rel=1e-9, abs=1e-12)


def test_item_bootstrap_matches_scipy_within_monte_carlo_error():
    base, cand = data(2000, 21)
    d = cand - base
    ours = pm.bootstrap_means(d, resamples=20_000, seed=4)
    ref = stats.bootstrap((base, cand), mean_diff, paired=True, vectorized=True, n_resamples=20_000,
                          method="BCa", rng=np.random.default_rng(5))
    se = d.std() / np.sqrt(d.size)
    assert ours.std() == pytest.approx(se, rel=0.03)
    for q in (2.5, 50, 97.5):
        assert np.percentile(ours, q) == pytest.approx(np.percentile(ref.bootstrap_distribution, q),
                                                       abs=0.06 * se)
    low, high = pm.bca_interval(ours, float(d.mean()), pm.jackknife_means(d))
    assert (low, high) == pytest.approx((ref.confidence_interval.low, ref.confidence_interval.high),
                                        abs=0.08 * se)
    # seeded and reproducible
    assert np.array_equal(ours, pm.bootstrap_means(d, resamples=20_000, seed=4))


@pytest.mark.parametrize("n, resamples", [(1000, 2500), (700, 3), (130_000, 9)])
def test_item_bootstrap_pieces_equal_one_draw_per_block(n, resamples):
    # the documented stream: block k (BLOCK_DRAWS // n resamples) draws all its indices from
    # default_rng(SeedSequence(seed, spawn_key=(k,))) and takes the mean; the pieces must give the same bits
    d = np.random.default_rng(n).normal(0.1, 1.0, n)
    rows = max(1, min(resamples, pm.BLOCK_DRAWS // n))
    expected = []
    for k, start in enumerate(range(0, resamples, rows)):
        rng = np.random.default_rng(np.random.SeedSequence(9, spawn_key=(k,)))
        idx = rng.integers(0, n, size=(min(rows, resamples - start), n))
        expected.append(d[idx].mean(axis=1))
    assert np.array_equal(pm.bootstrap_means(d, resamples=resamples, seed=9), np.concatenate(expected))


def test_multinomial_shortcut_is_item_resampling_in_law():
    rng = np.random.default_rng(8)
    d = rng.choice([-1.0, 0.0, 0.0, 0.5, 1.0], size=4000)   # 4 distinct values: the shortcut
    ours = pm.bootstrap_means(d, resamples=20_000, seed=1)
    idx = rng.integers(0, d.size, size=(5000, d.size))
    ref = d[idx].mean(axis=1)
    se = d.std() / np.sqrt(d.size)
    assert ours.std() == pytest.approx(se, rel=0.03) and ref.std() == pytest.approx(se, rel=0.04)
    for q in (2.5, 50, 97.5):
        assert np.percentile(ours, q) == pytest.approx(np.percentile(ref, q), abs=0.1 * se)


def test_cluster_bootstrap_of_singletons_is_the_item_bootstrap():
    base, cand = data(600, 31)
    d = cand - base
    items = pm.bootstrap_means(d, resamples=20_000, seed=1)
    clusters = pm.bootstrap_means(d, resamples=20_000, seed=2, clusters=np.arange(600))
    assert clusters.std() == pytest.approx(items.std(), rel=0.04)
    jk = pm.jackknife_means(d, np.arange(600))
    np.testing.assert_allclose(jk, pm.jackknife_means(d), rtol=1e-12)


def test_cluster_bootstrap_is_wider_when_clusters_matter():
    rng = np.random.default_rng(3)
    codes = np.repeat(np.arange(50), 20)
    d = rng.normal(0, 1, 50)[codes] + rng.normal(0, 0.2, 1000)
    s_items = pm.summarize(np.zeros(1000), d, resamples=4000, seed=1)
    s_cl = pm.summarize(np.zeros(1000), d, resamples=4000, seed=1, clusters=codes)
    assert (s_cl.boot_high - s_cl.boot_low) > 2.5 * (s_items.boot_high - s_items.boot_low)


# ------------------------------------------------------------------------------ the rest


def test_effect_size_directions_and_mde_by_hand():
    d = np.array([0.2, -0.1, 0.0, 0.3, 0.0, 0.1])
    sd = np.std(d, ddof=1)
    assert pm.effect_size(d) == pytest.approx(d.mean() / sd)
    assert pm.direction_counts(d) == pm.Directions(3, 1, 2)
    assert pm.mde_continuous(sd, 6) == pytest.approx(2.8 * sd / np.sqrt(6))
    assert np.isnan(pm.effect_size(np.zeros(4))) and np.isnan(pm.effect_size([1.0]))


def test_holm_and_bonferroni_match_statsmodels(no_gc_collect):
    multitest = pytest.importorskip("statsmodels.stats.multitest")
    rng = np.random.default_rng(2)
    for m in (1, 2, 3, 7, 20):
        p = rng.random(m) ** 3
        p[: m // 3] = p[0]  # ties
        for method, ours in (("holm", pm.holm), ("bonferroni", pm.bonferroni)):
            ref = multitest.multipletests(p, method=method)[1]
            np.testing.assert_allclose(ours(p), ref, rtol=1e-12, atol=1e-15)
    # NaN (an undefined test) stays NaN and does not count in m
    out = pm.holm([0.01, float("nan"), 0.04])
    assert np.isnan(out[1]) and out[0] == pytest.approx(0.02) and out[2] == pytest.approx(0.04)


# ------------------------------------------------------------------------------ corpus BLEU / chrF


WORDS = "the cat sat on a mat dog ran fast slow red blue green house tree car".split()


def corpus(n, seed, p_a=0.4, p_b=0.38):
    rnd = random.Random(seed)
    refs = [" ".join(rnd.choices(WORDS, k=rnd.randint(2, 15))) for _ in range(n)]

    def noisy(r, p):
        return " ".join(w if rnd.random() > p else rnd.choice(WORDS) for w in r.split())

    return [noisy(r, p_a) for r in refs], [noisy(r, p_b) for r in refs], refs


def sacrebleu_paired(name, base, cand, refs, kind, samples, seed):
    from sacrebleu import significance as sig
    from sacrebleu.metrics import BLEU, CHRF

    cls = {"bleu": BLEU, "chrf": CHRF}[name]
    m = cls()
    bl_stats = m._extract_corpus_statistics(base, [refs])
    info = {name: (bl_stats, sig.Result(m._aggregate_and_compute(bl_stats).score))}
    fn = sig._paired_bs_test if kind == "bs" else sig._paired_ar_test
    return fn(info, "cand", cand, [refs], {name: cls()}, n_samples=samples, seed=seed)[1][name]


@pytest.mark.parametrize("name", cp.CORPUS_METRICS)
@pytest.mark.parametrize("seed", [1, 2, 12345])
def test_corpus_tests_equal_sacrebleu_paired_mode(name, seed):
    base, cand, refs = corpus(250, seed)
    ours = cp.compare_corpus(name, base, cand, refs, resamples=1000, trials=3000, seed=seed)
    bs = sacrebleu_paired(name, base, cand, refs, "bs", 1000, seed)
    ar = sacrebleu_paired(name, base, cand, refs, "ar", 3000, seed)
    assert ours.cand_score == pytest.approx(bs.score, rel=1e-12)
    assert ours.bs_p == pytest.approx(bs.p_value, rel=1e-12)
    assert ours.ar_p == pytest.approx(ar.p_value, rel=1e-12)
    assert ours.cand_mean == pytest.approx(bs.mean, rel=1e-6)
    assert ours.cand_ci == pytest.approx(bs.ci, rel=1e-5)


@pytest.mark.parametrize("name", cp.CORPUS_METRICS)
def test_vectorised_corpus_scores_equal_sacrebleu_from_stats(name):
    base, _, refs = corpus(400, 5)
    metric, stats_ = cp.sentence_statistics(name, base, refs)
    rng = np.random.default_rng(1)
    rows = np.array([stats_[rng.integers(0, 400, rng.integers(1, 30))].sum(0) for _ in range(300)])
    rows[:5] = stats_[:5]  # single sentences: zero matches at high orders (smoothing paths)
    for dtype in (np.float64, np.float32):
        ours = cp.scores_from_sums(metric, rows.astype(dtype))
        ref = [metric._compute_score_from_stats(r).score for r in rows.astype(dtype)]
        np.testing.assert_allclose(ours, ref, rtol=1e-9, atol=1e-9)


# ------------------------------------------------------------------- bootstrap of quantiles

@pytest.mark.parametrize("method", ["linear", "inverted_cdf", "hazen", "nearest"])
@pytest.mark.parametrize("q", [50, 95])
def test_bootstrap_quantiles_has_the_law_of_resampling(method, q):
    """n = 4: all 4^4 index tuples are equally likely, which gives the exact law of a resample's
    percentile; the order-statistic draws must reproduce it (within Monte Carlo error)."""
    import itertools

    x = np.array([0.3, 1.0, 1.0, 7.5])  # a tie too
    exact: dict[float, float] = {}
    for idx in itertools.product(range(4), repeat=4):
        v = float(np.percentile(x[list(idx)], q, method=method))
        exact[round(v, 12)] = exact.get(round(v, 12), 0.0) + 1 / 256
    draws = pm.bootstrap_quantiles(x, [q], method=method, resamples=200_000, seed=7)[:, 0]
    values, counts = np.unique(np.round(draws, 12), return_counts=True)
    got = dict(zip(values.tolist(), (counts / draws.size).tolist()))
    assert set(got) <= set(exact)
    for v, p in exact.items():
        se = np.sqrt(p * (1 - p) / draws.size)
        assert got.get(v, 0.0) == pytest.approx(p, abs=5 * se + 1e-12), (v, p)


def test_bootstrap_quantiles_joint_law_of_two_percentiles():
    """p50 and p95 of the same resample are drawn jointly: their correlation equals the
    naive bootstrap's."""
    rng = np.random.default_rng(12)
    x = rng.lognormal(0, 1, 300)
    ours = pm.bootstrap_quantiles(x, [50, 95], resamples=20_000, seed=3)
    naive = np.percentile(x[rng.integers(0, x.size, (20_000, x.size))], [50, 95], axis=1).T
    for i in range(2):
        assert ours[:, i].mean() == pytest.approx(naive[:, i].mean(), abs=4 * naive[:, i].std() / np.sqrt(20_000) * 1.5)
        assert ours[:, i].std() == pytest.approx(naive[:, i].std(), rel=0.05)
    assert np.corrcoef(ours.T)[0, 1] == pytest.approx(np.corrcoef(naive.T)[0, 1], abs=0.03)
    assert np.all(ours[:, 0] <= ours[:, 1])
    one = pm.bootstrap_quantiles([2.5], [50, 99], resamples=10, seed=1)
    assert np.all(one == 2.5)
    assert np.isnan(pm.bootstrap_quantiles([], [50], resamples=3, seed=1)).all()


def test_sign_flip_on_a_grid_draws_by_value_within_error_of_exact(monkeypatch):
    # a rubric-like score on a grid of tenths: few distinct |d|, so the Monte Carlo rounds draw
    # one binomial count per size; with exact_max=10 the rounds run, the exact p is the reference
    rng = np.random.default_rng(21)
    d = np.round(rng.integers(-3, 5, 20) / 10, 1)
    exact = pm.sign_flip_test(d).p
    assert np.unique(np.abs(d[d != 0])).size <= pm.BY_VALUE_MAX
    mc = pm.sign_flip_test(d, rounds=40_000, seed=3, exact_max=10)
    se = np.sqrt(exact * (1 - exact) / 40_000)
    assert mc.method == "monte-carlo" and abs(mc.p - exact) < 4 * se + 1 / 40_001
    # the item-by-item path (every sign drawn) agrees within the error of both
    monkeypatch.setattr(pm, "BY_VALUE_MAX", 0)
    each = pm.sign_flip_test(d, rounds=40_000, seed=3, exact_max=10)
    assert abs(each.p - exact) < 4 * se + 1 / 40_001


def test_sign_flip_by_value_on_many_items_against_the_normal_law():
    # 60,000 0/1-like differences of three sizes: the null sum is a sum of many independent
    # signs, so p is close to the normal approximation's two-sided p
    rng = np.random.default_rng(5)
    d = rng.choice([-2, -1, 0, 1, 2], size=60_000, p=[0.1, 0.25, 0.3, 0.2, 0.15]).astype(float)
    r = pm.sign_flip_test(d, rounds=20_000, seed=1)
    z = abs(d.sum()) / np.sqrt((d ** 2).sum())
    normal = 2 * stats.norm.sf(z)
    assert r.p == pytest.approx(normal, abs=4 * np.sqrt(normal * (1 - normal) / 20_000) + 0.002)


# --- Tango's score interval of a paired difference ---------------------------------------------------

@pytest.mark.parametrize("n", [5, 40, 1000])
def test_tango_interval_with_no_discordant_item_is_the_closed_form(n):
    """b = c = 0: the score statistic is sqrt(n d / (1 - d)), so the bound is z^2 / (n + z^2)."""
    from scipy.stats import norm

    from workbench.metrics.significance import tango_interval

    z = norm.ppf(0.975)
    low, high = tango_interval(0, 0, n)
    assert high == pytest.approx(z * z / (n + z * z), rel=1e-9) and low == pytest.approx(-high, rel=1e-9)


def test_tango_interval_inverts_the_score_test():
    """Each bound is where the score test of d0 is exactly at z (checked on a grid independently)."""
    from scipy.stats import norm

    from workbench.metrics.significance import tango_interval

    b, c, n, z = 23, 9, 120, norm.ppf(0.975)

    def stat(d0):
        a, bb, cc = 2 * n, -b - c + (2 * n - b + c) * d0, -c * d0 * (1 - d0)
        q = (np.sqrt(bb * bb - 4 * a * cc) - bb) / (2 * a)
        return (b - c - n * d0) / np.sqrt(n * (2 * q + d0 * (1 - d0)))

    grid = np.linspace(-0.999, 0.999, 400001)
    inside = grid[np.abs(stat(grid)) <= z]
    low, high = tango_interval(b, c, n)
    assert low == pytest.approx(inside.min(), abs=1e-5) and high == pytest.approx(inside.max(), abs=1e-5)


def test_compare_card_gives_tangos_interval_when_no_item_differs(tmp_path):
    from workbench.analyses import compare
    from workbench.io import load_table
    from workbench.report.present import answer

    path = tmp_path / "ties.csv"
    path.write_text("item,baseline,candidate\n" + "".join(f"{i},{i % 2},{i % 2}\n" for i in range(40)))
    from workbench.analyses.reading import Reading, run

    result = run("compare", load_table(str(path)), compare.Options(), Reading())
    rec = result.find("score_ci")[0]
    assert rec["ci_method"] == "tango-score-95" and rec["ci_low"] < 0 < rec["ci_high"]
    card = answer(result).sentences[0]
    assert "Tango score 95% CI -8.8 to +8.8 pts" in card and "no interval" not in card, card
