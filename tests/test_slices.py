"""The Slices analysis against independent references: scipy (binomtest, ttest_rel, t), statsmodels
(proportion_confint, mcnemar, multipletests, combine_effects), exact enumeration and a
randomization test written here, on generated data (0/1 outcomes and scores, 2 to 60 slices,
slices of 1 to 5,000 items) and the degenerate cases."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from conftest import table_of
from scipy import stats
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.meta_analysis import combine_effects
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import proportion_confint

from workbench.analyses import slices
from workbench.metrics import slices as ms

Z = stats.norm.ppf(0.975)
TOL = 1e-9


def _binary_frame(sizes, seed, shift=None):
    rng = np.random.default_rng(seed)
    rows = []
    for k, size in enumerate(sizes):
        pb = rng.uniform(0.3, 0.8)
        pc = min(0.97, max(0.03, pb + (shift[k] if shift is not None else rng.normal(0, 0.08))))
        b = (rng.random(size) < pb).astype(int)
        c = (rng.random(size) < pc).astype(int)
        rows += [{"item": f"s{k}-{i}", "lang": f"L{k:02d}", "a": int(x), "b": int(y)} for i, (x, y) in enumerate(zip(b, c))]
    return pd.DataFrame(rows)


def _by(result, metric, group, by="lang"):
    found = result.find(metric, group=group, by=by)
    assert len(found) == 1, (metric, group, found)
    return found[0]


def _expected_binary(frame, min_size, correction):
    """Every slice's numbers, computed here with scipy and statsmodels."""
    out = {}
    for lang, g in frame.groupby("lang", sort=True):
        a, b = g["a"].to_numpy(), g["b"].to_numpy()
        n = len(g)
        wins, losses = int(((b == 1) & (a == 0)).sum()), int(((a == 1) & (b == 0)).sum())
        d = (b - a).astype(float)
        out[lang] = {"n": n, "wins": wins, "losses": losses, "a": a, "b": b, "d": d,
                     "tested": n >= min_size and wins + losses > 0,
                     "p": stats.binomtest(wins, wins + losses, 0.5).pvalue if wins + losses else None,
                     "mcnemar": (mcnemar([[0, wins], [losses, 0]], exact=False, correction=False).pvalue
                                 if wins + losses else None),
                     "se": d.std(ddof=1) / math.sqrt(n) if n > 1 else float("nan")}
    tested = [k for k, v in out.items() if v["tested"]]
    if tested:
        adj = multipletests([out[k]["p"] for k in tested], method={"holm": "holm", "bh": "fdr_bh"}.get(
            correction, "holm"))[1] if correction != "none" else [out[k]["p"] for k in tested]
        for k, p in zip(tested, adj):
            out[k]["p_adjusted"] = p
    return out, tested


def _rate_interval(k, n):
    if n < 30 or k in (0, n):
        ci = stats.binomtest(k, n).proportion_ci(method="exact")
        return ci.low, ci.high
    return proportion_confint(k, n, method="wilson")


@pytest.mark.parametrize("sizes,seed,correction", [
    ([400, 250], 1, "holm"),
    ([1, 3, 19, 20, 25, 60, 200, 5000], 2, "holm"),
    ([30 + 7 * i for i in range(60)], 3, "bh"),
    ([50, 80, 120, 2000, 35], 4, "none"),
])
def test_binary_slices_match_the_references(sizes, seed, correction):
    frame = _binary_frame(sizes, seed)
    res = slices.run(table_of(frame), slices.Options(by="lang", item="item", baseline="a", candidate="b",
                                                     correction=correction))
    exp, tested = _expected_binary(frame, 20, correction)
    assert res.value("tested_slices", by="lang") == len(tested)
    for lang, e in exp.items():
        n = e["n"]
        assert _by(res, "diff", lang)["n"] == n
        for metric, x in (("baseline_rate", e["a"]), ("candidate_rate", e["b"])):
            rec = _by(res, metric, lang)
            lo, hi = _rate_interval(int(x.sum()), n)
            assert rec["value"] == pytest.approx(x.mean(), abs=TOL)
            assert rec["ci_low"] == pytest.approx(lo, abs=TOL) and rec["ci_high"] == pytest.approx(hi, abs=TOL)
        diff = _by(res, "diff", lang)
        b, c = e["wins"], e["losses"]
        se = math.sqrt(max(0.0, b + c - (b - c) ** 2 / n)) / n
        assert diff["value"] == pytest.approx((b - c) / n, abs=TOL)
        assert diff["ci_low"] == pytest.approx(max(-1, (b - c) / n - Z * se), abs=TOL)
        assert diff["ci_high"] == pytest.approx(min(1, (b - c) / n + Z * se), abs=TOL)
        se_rec = _by(res, "se", lang)["value"]
        assert (se_rec is None and n < 2) or se_rec == pytest.approx(e["se"], abs=TOL)
        assert _by(res, "tested", lang)["value"] is e["tested"]
        if e["tested"]:
            assert _by(res, "p", lang)["value"] == pytest.approx(e["p"], abs=TOL)
            assert _by(res, "sign_test_p", lang)["value"] == pytest.approx(e["p"], abs=TOL)
            assert _by(res, "mcnemar_p", lang)["value"] == pytest.approx(e["mcnemar"], abs=TOL)
            assert _by(res, "p_adjusted", lang)["value"] == pytest.approx(e["p_adjusted"], abs=TOL)
            assert _by(res, "p_adjusted", lang)["n"] == n
        else:
            assert not res.find("p", group=lang, by="lang")
    _check_pooling(res, exp, tested, lambda e, level: _normal_ci(e, level))


def _normal_ci(e, level):
    b, c, n = e["wins"], e["losses"], e["n"]
    z = stats.norm.ppf(1 - (1 - level) / 2)
    se = math.sqrt(max(0.0, b + c - (b - c) ** 2 / n)) / n
    return max(-1, (b - c) / n - z * se), min(1, (b - c) / n + z * se)


def _check_pooling(res, exp, tested, interval):
    """Q, I², tau² and the random-effects mean against statsmodels; the FCR intervals; shrinkage."""
    pooled = [k for k in tested if exp[k]["se"] > 0]
    eff = np.array([exp[k]["d"].mean() for k in pooled])
    var = np.array([exp[k]["se"] ** 2 for k in pooled])
    if len(pooled) >= 2:
        ce = combine_effects(eff, var, method_re="chi2")
        hom = ce.test_homogeneity()
        assert res.value("q", by="lang") == pytest.approx(ce.q, abs=1e-9 * max(1, ce.q))
        assert res.value("q_df", by="lang") == ce.df_resid == len(pooled) - 1
        assert res.value("q_p", by="lang") == pytest.approx(hom.pvalue, abs=TOL)
        if ce.q >= ce.df_resid:  # statsmodels leaves I² and tau² negative below; DerSimonian-Laird truncates
            tau2, i2, re, (lo, hi) = ce.tau2, ce.i2, ce.mean_effect_re, ce.conf_int()[1]
        else:
            w = 1 / var
            tau2, i2, re = 0.0, 0.0, float((w * eff).sum() / w.sum())
            lo, hi = re - Z / math.sqrt(w.sum()), re + Z / math.sqrt(w.sum())
        assert res.value("tau2", by="lang") == pytest.approx(tau2, abs=TOL)
        assert res.value("i2", by="lang") == pytest.approx(i2, abs=TOL)
        rec = res.find("re_diff", by="lang")[0]
        assert rec["value"] == pytest.approx(re, abs=TOL)
        assert rec["ci_low"] == pytest.approx(lo, abs=TOL) and rec["ci_high"] == pytest.approx(hi, abs=TOL)
        for k, d, v in zip(pooled, eff, var):
            want = re + tau2 / (tau2 + v) * (d - re) if tau2 > 0 else re
            assert _by(res, "shrunk_diff", k)["value"] == pytest.approx(want, abs=TOL)
    else:
        assert res.value("q", by="lang") is None
    called = [k for k in tested if exp[k]["p_adjusted"] < 0.05]
    assert res.value("called_out", by="lang") == len(called)
    level = 1 - len(called) * 0.05 / len(tested) if called else None
    for k in tested:
        found = res.find("fcr_ci", group=k, by="lang")
        if k in called:
            lo, hi = interval(exp[k], level)
            assert found[0]["ci_low"] == pytest.approx(lo, abs=TOL)
            assert found[0]["ci_high"] == pytest.approx(hi, abs=TOL)
        else:
            assert not found
    if not called and tested:
        assert any("R = 0" in n for n in res.notes)


def _score_frame(sizes, seed, grid=False):
    rng = np.random.default_rng(seed)
    rows = []
    for k, size in enumerate(sizes):
        a = rng.random(size)
        b = np.clip(a + rng.normal(rng.normal(0, 0.05), 0.15, size), 0, 1)
        if grid:
            a, b = np.round(a, 1), np.round(b, 1)
        rows += [{"item": f"i{k}-{j}", "lang": f"L{k:02d}", "a": x, "b": y} for j, (x, y) in enumerate(zip(a, b))]
    return pd.DataFrame(rows)


def _randomization_p(d):
    """Exact two-sided sign-flip p by enumerating every sign pattern of the non-zero differences."""
    nz = d[np.abs(d) > 1e-12]
    obs = abs(nz.sum())
    hits = sum(abs(np.dot(signs, np.abs(nz))) >= obs - 1e-9 for signs in itertools.product((-1, 1), repeat=nz.size))
    return hits / 2 ** nz.size


@pytest.mark.parametrize("sizes,seed,grid", [([20, 25, 400], 5, False), ([12, 30, 5000, 1, 2], 6, True)])
def test_score_slices_match_scipy_and_a_randomization_test(sizes, seed, grid):
    frame = _score_frame(sizes, seed, grid)
    res = slices.run(table_of(frame), slices.Options(by="lang", item="item", baseline="a", candidate="b",
                                                     min_size=10, scores="continuous"))
    assert "family:continuous" in res.signature and "adjusted:paired-t" in res.signature
    exp = {}
    for lang, g in frame.groupby("lang"):
        a, b = g["a"].to_numpy(), g["b"].to_numpy()
        d = b - a
        n = len(g)
        e = {"n": n, "d": d, "se": d.std(ddof=1) / math.sqrt(n) if n > 1 else float("nan"),
             "tested": n >= 10 and n > 1 and d.std() > 0}
        for metric, x in (("baseline_mean", a), ("candidate_mean", b)):
            rec = _by(res, metric, lang)
            assert rec["value"] == pytest.approx(x.mean(), abs=TOL)
            if n > 1:
                lo, hi = stats.t.interval(0.95, n - 1, loc=x.mean(), scale=x.std(ddof=1) / math.sqrt(n))
                assert rec["ci_low"] == pytest.approx(lo, abs=TOL) and rec["ci_high"] == pytest.approx(hi, abs=TOL)
        if e["tested"]:
            tt = stats.ttest_rel(b, a)
            ci = tt.confidence_interval(0.95)
            diff = _by(res, "diff", lang)
            assert diff["value"] == pytest.approx(d.mean(), abs=TOL)
            assert diff["ci_low"] == pytest.approx(ci.low, abs=TOL) and diff["ci_high"] == pytest.approx(ci.high, abs=TOL)
            assert diff["df"] == n - 1
            assert _by(res, "t", lang)["value"] == pytest.approx(tt.statistic, abs=1e-9 * max(1, abs(tt.statistic)))
            assert _by(res, "p", lang)["value"] == pytest.approx(tt.pvalue, abs=TOL)
            assert _by(res, "p", lang)["df"] == n - 1
            rand = _by(res, "randomization_p", lang)["value"]
            nonzero = int((np.abs(d) > 1e-12).sum())
            if nonzero <= 12:
                assert rand == pytest.approx(_randomization_p(d), abs=TOL)
            else:  # Monte Carlo (10,000 rounds) against an independent one of 20,000: within 4 SE
                rng = np.random.default_rng(99)
                flips = rng.choice((-1.0, 1.0), size=(20_000, d.size)) @ np.abs(d)
                ref = (1 + np.count_nonzero(np.abs(flips) >= abs(d.sum()) - 1e-9)) / 20_001
                se = math.sqrt(ref * (1 - ref) * (1 / 10_000 + 1 / 20_000))
                assert abs(rand - ref) <= 4 * se + 1e-4
        exp[lang] = e
    tested = [k for k, e in exp.items() if e["tested"]]
    adj = multipletests([stats.ttest_rel(frame[frame.lang == k]["b"], frame[frame.lang == k]["a"]).pvalue
                         for k in tested], method="holm")[1]
    for k, p in zip(tested, adj):
        exp[k]["p_adjusted"] = p
        assert _by(res, "p_adjusted", k)["value"] == pytest.approx(p, abs=TOL)
    _check_pooling(res, exp, tested, lambda e, level: stats.t.interval(
        level, e["n"] - 1, loc=e["d"].mean(), scale=e["d"].std(ddof=1) / math.sqrt(e["n"])))


def test_a_slice_where_both_systems_are_always_right_is_listed_with_a_sentence():
    frame = _binary_frame([60, 80], 7)
    extra = pd.DataFrame({"item": [f"x{i}" for i in range(30)], "lang": "all-right", "a": 1, "b": 1})
    frame = pd.concat([frame, extra], ignore_index=True)
    res = slices.run(table_of(frame), slices.Options(by="lang", item="item", baseline="a", candidate="b"))
    assert _by(res, "tested", "all-right")["value"] is False
    assert _by(res, "diff", "all-right")["value"] == 0.0
    assert not res.find("p", group="all-right", by="lang")
    assert res.value("tested_slices", by="lang") == 2
    assert any("no test is possible" in n and "'all-right' (30 items)" in n for n in res.notes)
    table = res.table("slices").frame
    assert table.loc[table["slice"] == "all-right", "status"].item() == "no test possible"


def test_labels_are_exact_text_blank_cells_are_a_slice_of_their_own():
    rng = np.random.default_rng(8)
    labels = ["HI"] * 40 + ["hi "] * 40 + ["hi"] * 40 + [""] * 40
    frame = pd.DataFrame({"item": [f"q{i}" for i in range(160)], "lang": labels,
                          "a": rng.integers(0, 2, 160), "b": rng.integers(0, 2, 160)})
    res = slices.run(table_of(frame), slices.Options(by="lang", item="item", baseline="a", candidate="b"))
    groups = {r["group"] for r in res.find("diff") if r.get("by") == "lang"}
    assert groups == {"HI", "hi ", "hi", "(blank)"}
    assert all(_by(res, "diff", g)["n"] == 40 for g in groups)
    assert any("differ only in case or surrounding spaces" in n and "'hi '" in n for n in res.notes)


def test_numeric_column_in_quantile_bins_as_pandas_qcut():
    rng = np.random.default_rng(9)
    n = 1000
    length = rng.gamma(2.0, 300.0, n).round(1)
    frame = pd.DataFrame({"item": [f"q{i}" for i in range(n)], "length": length,
                          "a": rng.integers(0, 2, n), "b": rng.integers(0, 2, n)})
    frame.loc[:9, "length"] = np.nan  # blank cells
    res = slices.run(table_of(frame), slices.Options(by="length", item="item", baseline="a", candidate="b", bins=4))
    cut, edges = pd.qcut(frame["length"], 4, retbins=True, duplicates="drop")
    bins = res.table("bins").frame
    assert np.allclose(np.r_[bins["low"].to_numpy(), bins["high"].iloc[-1]], edges, atol=0, rtol=0)
    ours = res.table("slices").frame.set_index("slice")["items"]
    assert ours.iloc[:4].tolist() == cut.value_counts(sort=False).tolist()
    assert ours["(blank)"] == 10
    assert any("quantile bins" in n and "edges" in n for n in res.notes)
    assert ms.bin_codes([edges[0]], edges)[0] == 0 and ms.bin_codes([edges[1]], edges)[0] == 0


def test_small_slices_are_listed_not_tested_and_not_in_m():
    frame = _binary_frame([300, 300, 5, 19], 10)
    res = slices.run(table_of(frame), slices.Options(by="lang", item="item", baseline="a", candidate="b"))
    assert res.value("tested_slices", by="lang") == 2
    assert [_by(res, "tested", g)["value"] for g in ("L02", "L03")] == [False, False]
    assert any("fewer than 20 items" in n and "'L02' (5 items)" in n for n in res.notes)
    res = slices.run(table_of(frame), slices.Options(by="lang", item="item", baseline="a", candidate="b", min_size=5))
    assert res.value("tested_slices", by="lang") == 4


def test_dersimonian_laird_truncates_below_df_and_matches_statsmodels_above():
    eff, var = np.array([0.1, 0.11, 0.09]), np.array([0.01, 0.02, 0.015])
    het = ms.dersimonian_laird(eff, var)
    ce = combine_effects(eff, var, method_re="chi2")
    assert het.q == pytest.approx(ce.q, abs=TOL) and ce.q < 2
    assert het.tau2 == 0.0 and het.i2 == 0.0 and ce.tau2 < 0
    assert het.re == pytest.approx(ce.mean_effect_fe, abs=TOL)
    eff = np.array([0.3, -0.2, 0.05, 0.4])
    het = ms.dersimonian_laird(eff, var[[0, 1, 2, 0]])
    ce = combine_effects(eff, var[[0, 1, 2, 0]], method_re="chi2")
    assert (het.q, het.tau2, het.i2, het.re) == pytest.approx((ce.q, ce.tau2, ce.i2, ce.mean_effect_re), abs=TOL)
    assert (het.re_low, het.re_high) == pytest.approx(tuple(ce.conf_int()[1]), abs=TOL)


def test_benjamini_hochberg_matches_statsmodels():
    p = np.random.default_rng(11).random(40) ** 3
    p[[3, 9]] = np.nan
    ok = np.isfinite(p)
    want = multipletests(p[ok], method="fdr_bh")[1]
    assert np.allclose(ms.benjamini_hochberg(p)[ok], want, atol=TOL)
    assert np.isnan(ms.benjamini_hochberg(p)[3])


def test_clean_items_come_first():
    frame = _binary_frame([300, 300], 12)
    frame["seen"] = np.where(np.arange(len(frame)) % 5 == 0, "yes", np.where(np.arange(len(frame)) % 7 == 0, "", "0"))
    res = slices.run(table_of(frame), slices.Options(by="lang", item="item", baseline="a", candidate="b", clean="seen"))
    clean = frame[frame["seen"] != "yes"]
    d = clean["b"] - clean["a"]
    rec = res.find("clean_diff")[0]
    assert rec["value"] == pytest.approx(d.mean(), abs=TOL) and rec["n"] == len(clean)
    assert res.value("contaminated_diff") == pytest.approx((frame["b"] - frame["a"])[frame["seen"] == "yes"].mean(),
                                                           abs=TOL)
    assert res.notes[0].startswith("Contamination flag 'seen'")
    from workbench.report.present import answer

    assert answer(res).sentences[0].startswith("On the clean items")


def test_discovery_reestimates_the_worst_slices_on_the_other_half():
    frame = _binary_frame([400, 400, 400], 13, shift=[0.1, -0.25, 0.05])
    frame["source"] = np.where(np.arange(len(frame)) % 2 == 0, "web", "book")
    res = slices.run(table_of(frame), slices.Options(by="lang,source", item="item", baseline="a", candidate="b",
                                                     discover=True, top=3, seed=7))
    disc = res.table("discovery").frame
    assert len(disc) == 3
    assert res.value("slices_searched") == 3 + 2 + 6
    assert disc["holdout_items"].sum() + disc["search_items"].sum() <= 3 * 1200
    worst = disc.iloc[0]
    assert "L01" in worst["slice"]
    # the hold-out estimate is the plain difference on the items outside the search half
    ids = np.sort(frame["item"].to_numpy(dtype=object), kind="stable")
    perm = np.random.default_rng(7).permutation(len(ids))
    search = set(ids[perm[: len(ids) // 2]])
    by = worst["by"].split(" & ")
    labels = worst["slice"].split(" & ")
    mask = ~frame["item"].isin(search)
    for b, lab in zip(by, labels):
        mask &= frame[b] == lab
    assert worst["holdout_items"] == mask.sum()
    assert worst["holdout_diff"] == pytest.approx((frame["b"] - frame["a"])[mask].mean(), abs=TOL)
    assert any(n.startswith("Discovery searched 11 slices") for n in res.notes)
    assert "discover:depth:2,top:3" in res.signature and "seed:7" in res.signature


def test_options_are_checked_before_the_input():
    from workbench.core.errors import OptionError

    for bad in (dict(correction="bonferroni"), dict(bins=1), dict(min_size=0), dict(depth=3)):
        with pytest.raises(OptionError):
            slices.check_options(slices.Options(**bad))
