"""Cross-checks of the statistics against scipy, statsmodels and plain reference code.

* sign test (exact and mid-p) vs ``scipy.stats.binomtest`` and sums of ``scipy.stats.binom``;
* McNemar vs ``statsmodels.stats.contingency_tables.mcnemar`` (and its exact form vs the sign test);
* Wilson vs ``statsmodels.stats.proportion.proportion_confint(method="wilson")``; Z95 vs scipy;
* the paired normal interval vs the textbook SE of the per-item differences;
* the cell-count paired bootstrap vs an item-resampling bootstrap and ``scipy.stats.bootstrap``;
* the cluster bootstrap vs the item bootstrap (clusters of one) and a naive Python-loop one;
* cost percentiles vs ``numpy.percentile`` and the nearest-rank definition by hand;
* pass@k / pass^k vs the Codex numpy reference and exact fractions (``math.comb``).

Bootstrap comparisons are between two independent Monte Carlo estimates, so they use
tolerances of several Monte Carlo standard errors; all generators are seeded.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

sm_tables = pytest.importorskip("statsmodels.stats.contingency_tables")
sm_prop = pytest.importorskip("statsmodels.stats.proportion")

from workbench.analyses import compare as compare_analysis  # noqa: E402
from workbench.analyses import cost as cost_analysis  # noqa: E402
from workbench.analyses import passk as passk_analysis  # noqa: E402
from workbench.cli.main import main as cli_main  # noqa: E402
from workbench.io import LoadedTable  # noqa: E402
from workbench.metrics import cost as cost_metrics  # noqa: E402
from workbench.metrics import passk as pk  # noqa: E402
from workbench.metrics import significance as sg  # noqa: E402
from workbench.metrics.intervals import Z95, wilson_interval  # noqa: E402

HYPO = settings(max_examples=150, deadline=None, database=None, derandomize=True)


def table(frame: pd.DataFrame) -> LoadedTable:
    return LoadedTable(frame=frame.reset_index(drop=True), path="<memory>")


def cli_json(capsys, *argv) -> dict:
    code = cli_main([str(a) for a in argv] + ["--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


def json_value(payload: dict, metric: str, **match) -> dict:
    found = [r for r in payload["results"]
             if r["metric"] == metric and all(r.get(k) == v for k, v in match.items())]
    assert len(found) == 1, (metric, match, found)
    return found[0]


# =========================================================================== sign test

GRID = [(b, c) for b in range(0, 41) for c in range(0, 41) if b + c > 0]
GRID += [(14, 5), (15, 4), (100, 130), (512, 488), (1000, 1100), (3000, 2890), (0, 2500)]


def test_sign_test_exact_equals_binomtest_on_a_grid():
    ours = np.array([sg.sign_test(b, c)[0] for b, c in GRID])
    ref = np.array([stats.binomtest(b, b + c, 0.5).pvalue for b, c in GRID])
    np.testing.assert_allclose(ours, ref, rtol=1e-9, atol=1e-15)


@HYPO
@given(b=st.integers(0, 5000), c=st.integers(0, 5000))
def test_sign_test_exact_equals_binomtest(b, c):
    exact, midp = sg.sign_test(b, c)
    if b + c == 0:
        assert (exact, midp) == (1.0, 1.0)
        return
    assert exact == pytest.approx(stats.binomtest(b, b + c, 0.5).pvalue, rel=1e-9, abs=1e-300)
    assert midp <= exact <= 1.0  # midp >= 0: see test_sign_test_midp_is_never_negative
    # symmetric in which system wins
    assert sg.sign_test(c, b) == (exact, midp)


def midp_reference(b: int, c: int) -> float:
    """Two-sided mid-p = 2 x one-sided mid-p, from the binomial pmf summed directly:
    2 * (P(X < m) + P(X = m) / 2), m = min(b, c), X ~ Binomial(b + c, 1/2), capped at 1."""
    d = b + c
    m = min(b, c)
    pmf = stats.binom.pmf(np.arange(d + 1), d, 0.5)
    return min(1.0, 2.0 * (float(pmf[:m].sum()) + 0.5 * float(pmf[m])))


def test_sign_test_midp_equals_direct_binomial_sum():
    for b, c in GRID[:1600:7] + [(14, 5), (15, 4), (20, 20), (0, 9), (9, 0), (700, 650)]:
        assert sg.sign_test(b, c)[1] == pytest.approx(midp_reference(b, c), rel=1e-9, abs=1e-15), (b, c)
    # the seed's worked number
    assert sg.sign_test(14, 5)[1] == pytest.approx(0.0414, abs=5e-4)


def test_sign_test_midp_is_never_negative():
    cases = [(1, 1074), (1, 1075), (1074, 1), (2, 1100), (1, 1083)]
    for b, c in cases:
        exact, midp = sg.sign_test(b, c)
        assert 0.0 <= midp <= exact <= 1.0, (b, c, exact, midp)
        # the direct sum never goes negative
        assert midp_reference(b, c) >= 0.0


def test_sign_test_no_discordant_pair():
    assert sg.sign_test(0, 0) == (1.0, 1.0)


# =========================================================================== McNemar


def sm_mcnemar(b, c, **kw):
    # statsmodels uses the off-diagonal cells [0, 1] and [1, 0]; the diagonal is irrelevant
    return sm_tables.mcnemar(np.array([[37, b], [c, 211]]), **kw)


@pytest.mark.parametrize("correction", [False, True])
def test_mcnemar_matches_statsmodels_when_b_differs_from_c(correction):
    rng = np.random.default_rng(7)
    pairs = [(b, c) for b in range(0, 31) for c in range(0, 31) if b != c]
    pairs += [tuple(int(x) for x in rng.integers(0, 5000, 2)) for _ in range(200)]
    checked = 0
    for b, c in pairs:
        if b == c:
            continue
        stat, p = sg.mcnemar(b, c, correction=correction)
        ref = sm_mcnemar(b, c, exact=False, correction=correction)
        assert stat == pytest.approx(ref.statistic, rel=1e-12, abs=1e-12), (b, c)
        assert p == pytest.approx(ref.pvalue, rel=1e-9, abs=1e-300), (b, c)
        checked += 1
    assert checked > 1000
    assert sg.mcnemar(14, 5, correction=False)[0] == pytest.approx(81 / 19)
    assert sg.mcnemar(14, 5, correction=True)[0] == pytest.approx(64 / 19)


@pytest.mark.parametrize("b", [1, 2, 7, 50, 1234])
def test_mcnemar_correction_is_clamped_when_b_equals_c(b):
    """Deliberate difference: statsmodels gives 1/(b+c) here, the workbench 0 (as R does)."""
    assert sg.mcnemar(b, b, correction=True) == (0.0, 1.0)
    assert sg.mcnemar(b, b, correction=False) == (0.0, 1.0)
    ref = sm_mcnemar(b, b, exact=False, correction=True)
    assert ref.statistic == pytest.approx(1 / (2 * b))  # what the clamp avoids
    # |b - c| = 1: both agree on exactly 0
    assert sg.mcnemar(b, b + 1, correction=True)[0] == 0.0
    assert sm_mcnemar(b, b + 1, exact=False, correction=True).statistic == pytest.approx(0.0)


def test_mcnemar_no_discordant_pair_is_undefined():
    stat, p = sg.mcnemar(0, 0, correction=False)
    assert math.isnan(stat) and math.isnan(p)


@HYPO
@given(b=st.integers(0, 3000), c=st.integers(0, 3000))
def test_statsmodels_exact_mcnemar_equals_sign_test(b, c):
    if b + c == 0:
        return
    ref = sm_mcnemar(b, c, exact=True)
    assert sg.sign_test(b, c)[0] == pytest.approx(ref.pvalue, rel=1e-9, abs=1e-300)


# =========================================================================== Wilson, Z95


def test_z95_is_scipy_normal_quantile():
    assert Z95 == pytest.approx(stats.norm.ppf(0.975), rel=1e-15)
    assert Z95 != 1.96


def test_wilson_matches_statsmodels_vectorised():
    rng = np.random.default_rng(11)
    n = np.concatenate([np.arange(1, 60), rng.integers(60, 100_000, 300)])
    s = np.array([int(rng.integers(0, k + 1)) for k in n])
    s[:5], n[:5] = 0, [1, 2, 3, 10, 1000]
    s[5:10] = n[5:10]
    low, high = wilson_interval(s, n)
    ref_low, ref_high = sm_prop.proportion_confint(s, n, alpha=0.05, method="wilson")
    np.testing.assert_allclose(low, ref_low, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(high, ref_high, rtol=1e-12, atol=1e-12)


@HYPO
@given(n=st.integers(1, 10**6), frac=st.floats(0, 1))
def test_wilson_matches_statsmodels(n, frac):
    s = int(round(frac * n))
    low, high = wilson_interval(s, n)
    ref_low, ref_high = sm_prop.proportion_confint(s, n, alpha=0.05, method="wilson")
    assert float(low) == pytest.approx(ref_low, rel=1e-10, abs=1e-12)
    assert float(high) == pytest.approx(ref_high, rel=1e-10, abs=1e-12)
    if 0 < s < n:  # s = 0 and s = n: see test_wilson_bounds_are_exact_at_zero_and_all
        assert 0.0 < low < s / n < high < 1.0


def test_wilson_bounds_are_exact_at_zero_and_all():
    n = np.arange(1, 2001)
    low, _ = wilson_interval(np.zeros_like(n), n)
    _, high = wilson_interval(n, n)
    # statsmodels' scalar path gives exactly 0 for the lower bound at 0 successes
    assert sm_prop.proportion_confint(0, 12, alpha=0.05, method="wilson")[0] == 0.0
    assert np.all(low == 0.0), f"{int((low > 0).sum())} of 2000 n give ci_low > 0 at 0 successes"
    assert np.all(high == 1.0), f"{int((high < 1).sum())} of 2000 n give ci_high < 1 at n successes"


# =========================================================================== paired data


def paired_outcomes(n: int, p_base: float, p_cand: float, rho: float, seed: int):
    """Correlated 0/1 outcomes of two systems on the same n items."""
    rng = np.random.default_rng(seed)
    u = rng.random(n)
    base = (u < p_base).astype(int)
    v = np.where(rng.random(n) < rho, u, rng.random(n))
    cand = (v < p_cand).astype(int)
    return base, cand


def test_paired_normal_interval_is_the_textbook_se_of_differences():
    for seed in range(20):
        base, cand = paired_outcomes(int(50 + 37 * seed), 0.7, 0.74, 0.8, seed)
        counts = sg.paired_counts(base, cand)
        diff, se, low, high = sg.paired_normal_interval(counts.wins, counts.losses, counts.n)
        d = cand - base
        assert diff == pytest.approx(d.mean(), abs=1e-15)
        assert se == pytest.approx(d.std(ddof=0) / np.sqrt(d.size), rel=1e-9, abs=1e-15)
        assert (low, high) == pytest.approx((d.mean() - stats.norm.ppf(0.975) * se,
                                             d.mean() + stats.norm.ppf(0.975) * se), rel=1e-12)


def item_bootstrap(base, cand, resamples: int, seed: int) -> np.ndarray:
    """Plain item resampling: draw n item indices with replacement, mean of cand - base."""
    d = (np.asarray(cand) - np.asarray(base)).astype(float)
    rng = np.random.default_rng(seed)
    out = np.empty(resamples)
    for start in range(0, resamples, 2000):
        rows = min(2000, resamples - start)
        idx = rng.integers(0, d.size, size=(rows, d.size))
        out[start:start + rows] = d[idx].mean(axis=1)
    return out


@pytest.fixture(scope="module")
def paired500():
    base, cand = paired_outcomes(500, 0.70, 0.75, 0.6, 2024)
    counts = sg.paired_counts(base, cand)
    assert counts.wins > 40 and counts.losses > 20  # a real mix of discordant items
    return base, cand, counts


def test_count_bootstrap_matches_item_bootstrap(paired500):
    base, cand, counts = paired500
    ours = sg.bootstrap_paired_counts(counts.wins, counts.losses, counts.n, resamples=20_000, seed=1)
    ref = item_bootstrap(base, cand, 20_000, seed=2)
    n = counts.n
    # the distribution: mean = observed diff, variance = ((b + c)/n - diff^2) / n
    var = ((counts.wins + counts.losses) / n - counts.diff ** 2) / n
    assert ours.mean() == pytest.approx(counts.diff, abs=4 * np.sqrt(var / 20_000))
    assert ours.std() == pytest.approx(np.sqrt(var), rel=0.03)
    assert ours.std() == pytest.approx(ref.std(), rel=0.04)
    for q in (2.5, 5, 50, 95, 97.5):
        assert np.percentile(ours, q) == pytest.approx(np.percentile(ref, q), abs=0.005), q
    low, high = sg.percentile_interval(ours)
    assert (low, high) == pytest.approx(tuple(np.percentile(ref, [2.5, 97.5])), abs=0.005)
    # every resample is (b* - c*)/n: a multiple of 1/n
    assert np.allclose(ours * n, np.round(ours * n))


def test_count_bootstrap_is_seeded_and_cost_free_in_n():
    a = sg.bootstrap_paired_counts(14, 5, 200, resamples=5000, seed=3)
    b = sg.bootstrap_paired_counts(14, 5, 200, resamples=5000, seed=3)
    assert np.array_equal(a, b)
    # a million items: same cost, and the interval is as wide as the normal one
    big = sg.bootstrap_paired_counts(140_000, 50_000, 1_000_000, resamples=10_000, seed=4)
    _, se, _, _ = sg.paired_normal_interval(140_000, 50_000, 1_000_000)
    assert big.std() == pytest.approx(se, rel=0.05)


def test_count_bootstrap_matches_scipy_bootstrap_loosely(paired500):
    base, cand, counts = paired500
    ours = sg.percentile_interval(sg.bootstrap_paired_counts(
        counts.wins, counts.losses, counts.n, resamples=20_000, seed=5))

    def mean_diff(x, y, axis=-1):
        return np.mean(y - x, axis=axis)

    ref = stats.bootstrap((base.astype(float), cand.astype(float)), mean_diff, paired=True,
                          vectorized=True, n_resamples=9999, method="percentile",
                          rng=np.random.default_rng(6))
    ci = ref.confidence_interval
    assert ours == pytest.approx((ci.low, ci.high), abs=0.008)


def test_cluster_bootstrap_with_singleton_clusters_is_the_item_bootstrap(paired500):
    base, cand, counts = paired500
    net = (cand - base).astype(float)
    ours = sg.bootstrap_clustered(net, np.ones_like(net), resamples=20_000, seed=7)
    ref = item_bootstrap(base, cand, 20_000, seed=8)
    assert ours.std() == pytest.approx(ref.std(), rel=0.04)
    for q in (2.5, 50, 97.5):
        assert np.percentile(ours, q) == pytest.approx(np.percentile(ref, q), abs=0.005), q


def test_compare_analysis_cluster_of_one_equals_items_loosely(paired500):
    base, cand, counts = paired500
    frame = pd.DataFrame({"item": [f"i{j}" for j in range(base.size)], "baseline": base,
                          "candidate": cand})
    frame["cluster"] = frame["item"]
    opts = dict(baseline="baseline", candidate="candidate", item="item", resamples=20_000)
    plain = compare_analysis.run(table(frame), compare_analysis.Options(**opts, seed=1))
    clustered = compare_analysis.run(table(frame), compare_analysis.Options(**opts, seed=2,
                                                                           cluster="cluster"))
    p = plain.find("bootstrap_ci")[0]
    c = clustered.find("bootstrap_ci")[0]
    assert "bs-unit:items" in plain.signature and "bs-unit:clusters:cluster" in clustered.signature
    assert (c["ci_low"], c["ci_high"]) == pytest.approx((p["ci_low"], p["ci_high"]), abs=0.005)
    assert p["value"] == c["value"] == pytest.approx(counts.diff)


@pytest.fixture(scope="module")
def clustered_items():
    """60 conversations of 1-20 turns whose difficulty is shared inside the conversation."""
    rng = np.random.default_rng(99)
    sizes = rng.integers(1, 21, 60)
    rows = []
    for g, size in enumerate(sizes):
        p_base = rng.beta(2, 1.5)
        lift = rng.normal(0.05, 0.15)
        for t in range(size):
            b = int(rng.random() < p_base)
            c = int(rng.random() < np.clip(p_base + lift, 0, 1))
            rows.append((f"conv{g}", f"conv{g}-t{t}", b, c))
    return pd.DataFrame(rows, columns=["conversation", "item", "baseline", "candidate"])


def naive_cluster_bootstrap(frame: pd.DataFrame, resamples: int, seed: int) -> np.ndarray:
    """The obvious loop: draw G conversations with replacement, pool their turns, take the mean."""
    groups = [(g["candidate"] - g["baseline"]).to_numpy(dtype=float)
              for _, g in frame.groupby("conversation", sort=False)]
    rng = np.random.default_rng(seed)
    out = np.empty(resamples)
    for r in range(resamples):
        picked = rng.integers(0, len(groups), len(groups))
        out[r] = np.concatenate([groups[i] for i in picked]).mean()
    return out


def test_cluster_bootstrap_matches_naive_loop(clustered_items):
    frame = clustered_items
    ref = naive_cluster_bootstrap(frame, 10_000, seed=10)
    g = frame.groupby("conversation", sort=False)
    net = (g["candidate"].sum() - g["baseline"].sum()).to_numpy(dtype=float)
    size = g.size().to_numpy(dtype=float)
    ours = sg.bootstrap_clustered(net, size, resamples=10_000, seed=11)
    sd = ref.std()
    assert ours.std() == pytest.approx(sd, rel=0.05)
    for q in (2.5, 25, 50, 75, 97.5):
        assert np.percentile(ours, q) == pytest.approx(np.percentile(ref, q), abs=0.15 * sd), q

    # through the analysis, long form, clusters given by a column
    result = compare_analysis.run(table(frame), compare_analysis.Options(
        baseline="baseline", candidate="candidate", item="item", cluster="conversation",
        resamples=10_000, seed=12))
    rec = result.find("bootstrap_ci")[0]
    assert rec["ci_low"] == pytest.approx(np.percentile(ref, 2.5), abs=0.15 * sd)
    assert rec["ci_high"] == pytest.approx(np.percentile(ref, 97.5), abs=0.15 * sd)
    # clustering matters in this data: the item bootstrap is clearly narrower
    items = item_bootstrap(frame["baseline"].to_numpy(), frame["candidate"].to_numpy(), 10_000, 13)
    assert items.std() < 0.85 * sd


# =========================================================================== compare analysis / CLI


def check_compare_records(get, base, cand):
    counts = sg.paired_counts(base, cand)
    b, c, n = counts.wins, counts.losses, counts.n
    assert get("wins")["value"] == int(np.sum((cand == 1) & (base == 0)))
    assert get("losses")["value"] == int(np.sum((cand == 0) & (base == 1)))
    assert get("ties")["value"] == n - b - c
    assert get("sign_test_p")["value"] == pytest.approx(stats.binomtest(b, b + c).pvalue, rel=1e-9)
    assert get("sign_test_p")["n"] == b + c
    ref = sm_mcnemar(b, c, exact=False, correction=False)
    assert get("mcnemar_chi2")["value"] == pytest.approx(ref.statistic, rel=1e-12)
    assert get("mcnemar_p")["value"] == pytest.approx(ref.pvalue, rel=1e-9)
    ref = sm_mcnemar(b, c, exact=False, correction=True)
    assert get("mcnemar_cc_chi2")["value"] == pytest.approx(ref.statistic, rel=1e-12)
    assert get("mcnemar_cc_p")["value"] == pytest.approx(ref.pvalue, rel=1e-9)
    d = (cand - base).astype(float)
    se = d.std() / np.sqrt(n)
    normal = get("normal_ci")
    assert normal["value"] == pytest.approx(d.mean())
    assert (normal["ci_low"], normal["ci_high"]) == pytest.approx(
        (d.mean() - stats.norm.ppf(0.975) * se, d.mean() + stats.norm.ppf(0.975) * se), rel=1e-9)
    boot = get("bootstrap_ci")
    ref_ci = np.percentile(item_bootstrap(base, cand, 20_000, seed=77), [2.5, 97.5])
    assert (boot["ci_low"], boot["ci_high"]) == pytest.approx(tuple(ref_ci), abs=0.006)
    assert get("mde")["value"] == pytest.approx(2.8 * np.sqrt((b + c) / n / n))


def test_compare_analysis_matches_references(paired500):
    base, cand, _ = paired500
    frame = pd.DataFrame({"item": [f"x{j}" for j in range(base.size)], "baseline": base,
                          "candidate": cand}).sample(frac=1.0, random_state=3)
    result = compare_analysis.run(table(frame), compare_analysis.Options(
        baseline="baseline", candidate="candidate", item="item", resamples=20_000, seed=9))
    check_compare_records(lambda m: result.find(m)[0], frame["baseline"].to_numpy(),
                          frame["candidate"].to_numpy())


def test_cli_compare_long_form_matches_references(tmp_path, capsys, paired500):
    base, cand, _ = paired500
    items = [f"x{j}" for j in range(base.size)]
    long = pd.concat([
        pd.DataFrame({"system": "old", "item": items, "outcome": base}),
        pd.DataFrame({"system": "new", "item": items, "outcome": cand}),
    ]).sample(frac=1.0, random_state=4)
    path = tmp_path / "long.csv"
    long.to_csv(path, index=False)
    payload = cli_json(capsys, "compare", path, "--system", "system", "--item", "item",
                       "--outcome", "outcome", "--baseline-system", "old",
                       "--candidate-system", "new", "--resamples", "20000", "--seed", "21")
    check_compare_records(lambda m: json_value(payload, m), base, cand)
    assert json_value(payload, "diff", **{"from": "old", "to": "new"})["n"] == base.size


# =========================================================================== cost percentiles


def nearest_rank(values, p) -> float:
    """The p-th percentile by nearest rank: the ceil(p/100 * N)-th smallest (exact integers)."""
    xs = sorted(values)
    n = len(xs)
    rank = max(1, -(-int(p) * n // 100))
    return xs[rank - 1]


latencies = st.lists(st.floats(0.001, 1e4, allow_nan=False, allow_infinity=False),
                     min_size=1, max_size=400)


@HYPO
@given(values=latencies)
def test_percentiles_linear_is_numpy_default(values):
    ours = cost_metrics.percentiles(values, (50, 95, 99), method="linear")
    np.testing.assert_array_equal(ours, np.percentile(np.array(values), [50, 95, 99]))


@HYPO
@given(values=latencies)
def test_percentiles_nearest_rank_by_hand(values):
    ours = cost_metrics.percentiles(values, (50, 95, 99), method="nearest_rank")
    assert list(ours) == [nearest_rank(values, p) for p in (50, 95, 99)]


@pytest.mark.parametrize("n", [1, 2, 19, 20, 21, 99, 100, 101, 200, 1000, 2000])
def test_percentiles_nearest_rank_at_exact_boundaries(n):
    """p * N / 100 a whole number is where floating point could pick the neighbour."""
    values = list(np.random.default_rng(n).permutation(n).astype(float) + 1.0)
    ours = cost_metrics.percentiles(values, (50, 95, 99), method="nearest_rank")
    assert list(ours) == [nearest_rank(values, p) for p in (50, 95, 99)]


@pytest.fixture(scope="module")
def cost_frame():
    rng = np.random.default_rng(5)
    frames = []
    for name, n, p, price in (("small", 137, 0.62, 0.004), ("mid", 250, 0.81, 0.012),
                              ("large", 93, 0.86, 0.031)):
        frames.append(pd.DataFrame({
            "system": name,
            "success": (rng.random(n) < p).astype(int),
            "cost": np.round(rng.gamma(4, price / 4, n), 6),
            "latency": np.round(rng.lognormal(0, 0.6, n), 4),
        }))
    return pd.concat(frames, ignore_index=True)


@pytest.mark.parametrize("method", ["linear", "nearest_rank"])
def test_cost_analysis_matches_references(cost_frame, method):
    result = cost_analysis.run(table(cost_frame), cost_analysis.Options(
        system="system", success="success", cost="cost", latency="latency", percentile_method=method))
    for name, g in cost_frame.groupby("system"):
        n, s = len(g), int(g["success"].sum())
        rec = result.find("success_rate", system=name)[0]
        low, high = sm_prop.proportion_confint(s, n, alpha=0.05, method="wilson")
        assert rec["value"] == pytest.approx(s / n) and rec["n"] == n
        assert (rec["ci_low"], rec["ci_high"]) == pytest.approx((low, high), rel=1e-12)
        assert result.value("cost_per_success", system=name) == pytest.approx(g["cost"].sum() / s)
        assert result.value("cost_per_request", system=name) == pytest.approx(g["cost"].mean())
        lat = g["latency"].to_list()
        for p in (50, 95, 99):
            expected = (np.percentile(lat, p) if method == "linear" else nearest_rank(lat, p))
            assert result.value(f"latency_p{p}", system=name) == pytest.approx(expected, rel=1e-12)


def test_cli_cost_nearest_rank_and_wilson(tmp_path, capsys, cost_frame):
    path = tmp_path / "cost.csv"
    cost_frame.to_csv(path, index=False)
    payload = cli_json(capsys, "cost", path, "--system", "system", "--success", "success",
                       "--cost", "cost", "--latency", "latency", "--percentile-method", "nearest_rank")
    for name, g in cost_frame.groupby("system"):
        lat = g["latency"].to_list()
        assert json_value(payload, "latency_p95", system=name)["value"] == pytest.approx(
            nearest_rank(lat, 95), rel=1e-12)
        low, high = sm_prop.proportion_confint(int(g["success"].sum()), len(g), method="wilson")
        rec = json_value(payload, "success_rate", system=name)
        assert (rec["ci_low"], rec["ci_high"]) == pytest.approx((low, high), rel=1e-12)


# =========================================================================== pass@k


def codex_pass_at_k(n: int, c: int, k: int) -> float:
    """The numpy reference from the Codex paper (Chen et al. 2021)."""
    if n - c < k:
        return 1.0
    return 1.0 - np.prod(1.0 - k / np.arange(n - c + 1, n + 1))


def exact_pass_at_k(n: int, c: int, k: int) -> Fraction:
    return 1 - Fraction(math.comb(n - c, k), math.comb(n, k))


def exact_pass_hat_k(n: int, c: int, k: int) -> Fraction:
    return Fraction(math.comb(c, k), math.comb(n, k))


@st.composite
def nck(draw, max_n=3000):
    n = draw(st.integers(1, max_n))
    c = draw(st.integers(0, n))
    k = draw(st.one_of(st.integers(1, min(n, 20)), st.integers(1, n)))
    return n, c, k


@settings(max_examples=200, deadline=None, database=None, derandomize=True)
@given(case=nck())
def test_pass_at_k_matches_codex_reference_and_exact_fractions(case):
    n, c, k = case
    ours = float(pk.pass_at_k([n], [c], k)[0])
    assert ours == pytest.approx(codex_pass_at_k(n, c, k), rel=1e-9, abs=1e-12)
    assert ours == pytest.approx(float(exact_pass_at_k(n, c, k)), rel=1e-9, abs=1e-12)
    assert 0.0 <= ours <= 1.0


@settings(max_examples=200, deadline=None, database=None, derandomize=True)
@given(case=nck())
def test_pass_hat_k_matches_exact_fractions(case):
    n, c, k = case
    ours = float(pk.pass_hat_k([n], [c], k)[0])
    exact = exact_pass_hat_k(n, c, k)
    assert ours == pytest.approx(float(exact), rel=1e-9, abs=1e-290)
    assert (ours == 0.0) == (exact == 0) or float(exact) < 1e-290


def test_pass_at_k_vectorised_grid_and_large_n():
    rows = [(n, c) for n in (1, 2, 5, 10, 17, 100) for c in range(0, n + 1)]
    rows += [(3000, c) for c in (0, 1, 2, 10, 150, 1500, 2990, 2999, 3000)]
    rows += [(2500, 7), (1999, 1000)]
    n = np.array([r[0] for r in rows])
    c = np.array([r[1] for r in rows])
    for k in (1, 2, 3, 5, 10, 100, 1000):
        at = pk.pass_at_k(n, c, k)
        hat = pk.pass_hat_k(n, c, k)
        for i, (ni, ci) in enumerate(rows):
            if ni < k:
                assert math.isnan(at[i]) and math.isnan(hat[i])  # never 1.0
                continue
            assert at[i] == pytest.approx(codex_pass_at_k(ni, ci, k), rel=1e-9, abs=1e-12)
            assert at[i] == pytest.approx(float(exact_pass_at_k(ni, ci, k)), rel=1e-9, abs=1e-12)
            assert hat[i] == pytest.approx(float(exact_pass_hat_k(ni, ci, k)), rel=1e-9, abs=1e-290)
    # the seed's worked numbers
    assert pk.pass_at_k([10], [3], 3)[0] == pytest.approx(1 - 35 / 120)
    assert pk.pass_hat_k([10], [3], 3)[0] == pytest.approx(1 / 120)


def test_pass_at_k_many_tasks_in_chunks_match_codex_reference():
    """Enough tasks x k factors to cross the vectorised implementation's block boundary."""
    rng = np.random.default_rng(21)
    n = rng.integers(1000, 3001, 2500)
    c = np.array([int(rng.integers(0, x + 1)) for x in n])
    c[:50] = 0
    c[50:100] = n[50:100]
    for k in (1, 7, 1000):
        at = pk.pass_at_k(n, c, k)
        hat = pk.pass_hat_k(n, c, k)
        ref = np.array([codex_pass_at_k(int(a), int(b), k) for a, b in zip(n, c)])
        np.testing.assert_allclose(at, ref, rtol=1e-9, atol=1e-12)
        for i in range(0, n.size, 97):
            exact = float(exact_pass_hat_k(int(n[i]), int(c[i]), k))
            assert hat[i] == pytest.approx(exact, rel=1e-9, abs=1e-290), (n[i], c[i], k)
        assert np.all(at[:50] == 0.0) and np.all(at[50:100] == 1.0)
        assert np.all(hat[50:100] == 1.0) and np.all(hat[:50] == 0.0)


def test_passk_analysis_means_match_references(tmp_path, capsys):
    rng = np.random.default_rng(8)
    n = rng.integers(1, 60, 80)
    n[:3] = [3000, 1200, 2]
    c = np.array([int(rng.binomial(x, rng.beta(0.7, 1.5))) for x in n])
    frame = pd.DataFrame({"task": [f"t{i}" for i in range(n.size)], "n": n, "c": c})
    ks = (1, 5, 10)
    result = passk_analysis.run(table(frame), passk_analysis.Options(task="task", n="n",
                                                                     correct="c", ks=ks))
    # the same data as one row per attempt
    attempts = pd.DataFrame({
        "task": np.repeat(frame["task"], frame["n"]),
        "success": np.concatenate([np.r_[np.ones(ci), np.zeros(ni - ci)].astype(int)
                                   for ni, ci in zip(n, c)]),
    }).sample(frac=1.0, random_state=1)
    path = tmp_path / "attempts.csv"
    attempts.to_csv(path, index=False)
    payload = cli_json(capsys, "passk", path, "--task", "task", "--success", "success",
                       "--k", "1,5,10")
    for k in ks:
        ok = n >= k
        at = np.mean([float(exact_pass_at_k(int(a), int(b), k)) for a, b in zip(n[ok], c[ok])])
        hat = np.mean([float(exact_pass_hat_k(int(a), int(b), k)) for a, b in zip(n[ok], c[ok])])
        codex = np.mean([codex_pass_at_k(int(a), int(b), k) for a, b in zip(n[ok], c[ok])])
        for got in (result.find(f"pass@{k}")[0], json_value(payload, f"pass@{k}")):
            assert got["value"] == pytest.approx(at, rel=1e-9)
            assert got["value"] == pytest.approx(codex, rel=1e-9)
            assert got["n"] == int(ok.sum())
        for got in (result.find(f"pass^{k}")[0], json_value(payload, f"pass^{k}")):
            assert got["value"] == pytest.approx(hat, rel=1e-9, abs=1e-15)
        naive = np.mean(1 - (1 - c[ok] / n[ok]) ** k)
        assert result.value(f"naive_pass@{k}") == pytest.approx(naive, rel=1e-12)
    assert int((n < 10).sum()) > 0  # some tasks were really left out at k = 10
