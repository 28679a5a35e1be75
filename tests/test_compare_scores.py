"""The Compare analysis on continuous per-item scores, several systems, and degenerate cases.

References: scipy.stats (ttest_rel, wilcoxon, permutation_test exact, bootstrap BCa within
Monte Carlo error), statsmodels' multipletests for Holm/Bonferroni, hand-computed notes.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from workbench.analyses import compare
from workbench.cli.main import main as cli_main
from workbench.io import LoadedTable
from workbench.metrics import paired as pm


def table(frame: pd.DataFrame) -> LoadedTable:
    return LoadedTable(frame=frame.reset_index(drop=True), path="<memory>")


def scores(n, seed, shift=0.03):
    rng = np.random.default_rng(seed)
    base = rng.random(n).round(4)
    cand = np.clip(base + rng.normal(shift, 0.12, n), 0, 1).round(4)
    return base, cand


def wide(n, seed, shift=0.03):
    base, cand = scores(n, seed, shift)
    return pd.DataFrame({"id": [f"q{i}" for i in range(n)], "old": base, "new": cand})


def run_wide(frame, **kw):
    return compare.run(table(frame), compare.Options(baseline="old", candidate="new", item="id", **kw))


def test_continuous_scores_match_scipy():
    frame = wide(300, 1)
    res = run_wide(frame, resamples=20_000, seed=3)
    assert "family:continuous" in res.signature
    b, c = frame["old"].to_numpy(), frame["new"].to_numpy()
    t = stats.ttest_rel(c, b)
    ci = t.confidence_interval()
    rec = res.find("mean_diff")[0]
    assert rec["value"] == pytest.approx((c - b).mean(), rel=1e-12)
    assert (rec["ci_low"], rec["ci_high"]) == pytest.approx((ci.low, ci.high), rel=1e-9)
    assert res.value("t_test_p") == pytest.approx(t.pvalue, rel=1e-9)
    # the scores are on a 0.0001 grid: scipy on the integer-scaled copy is the tie-aware reference
    w = stats.wilcoxon(np.rint((c - b) * 1e4), zero_method="wilcox", correction=False)
    assert res.value("wilcoxon_p") == pytest.approx(w.pvalue, rel=1e-9)
    d = c - b
    assert res.value("improved") == int((d > 0).sum()) and res.value("worse") == int((d < 0).sum())
    assert res.value("tied") == int((d == 0).sum())
    assert res.value("effect_size") == pytest.approx(d.mean() / d.std(ddof=1), rel=1e-12)
    assert res.value("mde_score") == pytest.approx(2.8 * d.std(ddof=1) / np.sqrt(d.size), rel=1e-12)
    ref = stats.bootstrap((b, c), lambda x, y, axis=-1: np.mean(y - x, axis=axis), paired=True,
                          vectorized=True, n_resamples=20_000, method="BCa", rng=np.random.default_rng(9))
    se = d.std() / np.sqrt(d.size)
    bca = res.find("bootstrap_bca_ci")[0]
    assert (bca["ci_low"], bca["ci_high"]) == pytest.approx(
        (ref.confidence_interval.low, ref.confidence_interval.high), abs=0.08 * se)
    # the randomization p is a Monte Carlo estimate of scipy's permutation p
    perm = stats.permutation_test((c, b), lambda x, y, axis=-1: np.mean(x - y, axis=axis),
                                  permutation_type="samples", n_resamples=20_000, vectorized=True,
                                  rng=np.random.default_rng(4))
    p = res.value("randomization_p")
    assert abs(p - perm.pvalue) < 4 * np.sqrt(p * (1 - p) * (1 / 10_000 + 1 / 20_000)) + 3e-4
    names = [t["test"] for _, t in res.table("tests").frame.iterrows()]
    assert any("randomization" in x for x in names) and any("Wilcoxon" in x for x in names)
    # every test has a plain-language reading
    text = " ".join(res.notes)
    for word in ("randomization test", "paired t-test", "Wilcoxon", "paired bootstrap", "effect size"):
        assert word in text


def test_small_sets_are_exact_randomization():
    frame = wide(14, 2, shift=0.1)
    res = run_wide(frame)
    b, c = frame["old"].to_numpy(), frame["new"].to_numpy()
    exact = stats.permutation_test((c, b), lambda x, y, axis=-1: np.mean(x - y, axis=axis),
                                   permutation_type="samples", n_resamples=np.inf, vectorized=True)
    assert res.value("randomization_p") == pytest.approx(exact.pvalue, rel=1e-12)
    assert "exact" in res.table("tests").frame.loc[0, "basis"]


def test_long_form_with_score_equals_wide_form_and_row_order():
    frame = wide(120, 3)
    long = pd.concat([pd.DataFrame({"system": "old", "item": frame["id"], "ndcg": frame["old"]}),
                      pd.DataFrame({"system": "new", "item": frame["id"], "ndcg": frame["new"]})])
    a = run_wide(frame, resamples=3000)
    for shuffled in (long, long.sample(frac=1.0, random_state=5)):
        b = compare.run(table(shuffled), compare.Options(system="system", item="item", score="ndcg",
                                                          baseline_system="old", resamples=3000))
        for metric in ("mean_diff", "t_test_p", "wilcoxon_p", "randomization_p", "bootstrap_pct_ci",
                       "bootstrap_bca_ci"):
            ra, rb = a.find(metric)[0], b.find(metric)[0]
            for key in ("value", "ci_low", "ci_high", "n"):
                if ra.get(key) is None:
                    assert rb.get(key) is None, (metric, key)
                else:
                    assert ra.get(key) == pytest.approx(rb.get(key), rel=1e-12), (metric, key)


def test_binary_data_keeps_the_exact_family_and_continuous_can_be_forced():
    rng = np.random.default_rng(4)
    frame = pd.DataFrame({"id": range(200), "old": (rng.random(200) < 0.6).astype(int),
                          "new": (rng.random(200) < 0.7).astype(int)})
    res = run_wide(frame)
    assert "family:binary" in res.signature and res.find("sign_test_p")
    forced = run_wide(frame, scores="continuous")
    assert "family:continuous" in forced.signature and forced.find("randomization_p")
    d = frame["new"].to_numpy() - frame["old"].to_numpy()
    assert forced.value("mean_diff") == pytest.approx(res.value("diff"), rel=1e-12) == pytest.approx(d.mean())


def test_several_candidates_holm_and_which_beat_the_baseline():
    rng = np.random.default_rng(7)
    n = 250
    base = rng.random(n)
    frame = pd.DataFrame({"id": range(n), "old": base})
    for name, shift in (("good", 0.06), ("same", 0.0), ("bad", -0.06)):
        frame[name] = base + rng.normal(shift, 0.15, n)
    res = compare.run(table(frame), compare.Options(baseline="old", candidate="good,same,bad", item="id",
                                                    resamples=2000))
    multitest = pytest.importorskip("statsmodels.stats.multitest")
    raw = [res.value("randomization_p", from_="old", to=c) for c in ("good", "same", "bad")]
    adj = [res.value("p_adjusted", from_="old", to=c, group="vs baseline") for c in ("good", "same", "bad")]
    np.testing.assert_allclose(adj, multitest.multipletests(raw, method="holm")[1], rtol=1e-12)
    pairs = res.find("p_adjusted", group="all pairs")
    assert len(pairs) == 6  # 4 systems, every pair
    raw_all = [res.value("randomization_p", from_=r["from"], to=r["to"]) for r in pairs]
    np.testing.assert_allclose([r["value"] for r in pairs], multitest.multipletests(raw_all, method="holm")[1],
                               rtol=1e-12)
    assert res.value("beats_baseline", to="good") is True
    assert res.value("beats_baseline", to="same") is False and res.value("beats_baseline", to="bad") is False
    assert res.notes[0].startswith("Which beat the baseline 'old'") and "'good'" in res.notes[0]
    assert "significantly worse: 'bad'" in res.notes[0]
    assert "correction:holm" in res.signature
    bonf = compare.run(table(frame), compare.Options(baseline="old", candidate="good,same,bad", item="id",
                                                     resamples=2000, correction="bonferroni"))
    np.testing.assert_allclose(
        [bonf.value("p_adjusted", from_="old", to=c, group="vs baseline") for c in ("good", "same", "bad")],
        np.minimum(1, 3 * np.array(raw)), rtol=1e-12)
    # lower is better (latency): the answer flips
    low = compare.run(table(frame), compare.Options(baseline="old", candidate="good,same,bad", item="id",
                                                    resamples=2000, better="lower"))
    assert low.value("beats_baseline", to="bad") is True and low.value("beats_baseline", to="good") is False


def test_several_systems_long_form_binary():
    rng = np.random.default_rng(8)
    rows = [(s, f"i{i}", int(rng.random() < p)) for s, p in (("a", 0.5), ("b", 0.7), ("c", 0.5))
            for i in range(300)]
    frame = pd.DataFrame(rows, columns=["system", "item", "ok"])
    res = compare.run(table(frame), compare.Options(system="system", item="item", outcome="ok",
                                                    baseline_system="a"))
    assert "family:binary" in res.signature and "systems:3" in res.signature
    for c in ("b", "c"):
        x = frame[frame.system == "a"]["ok"].to_numpy()
        y = frame[frame.system == c]["ok"].to_numpy()
        wins, losses = int(((y == 1) & (x == 0)).sum()), int(((y == 0) & (x == 1)).sum())
        assert res.value("sign_test_p", from_="a", to=c) == pytest.approx(
            stats.binomtest(wins, wins + losses).pvalue, rel=1e-9)
    assert res.value("beats_baseline", to="b") is True


# ------------------------------------------------------------------------------ degenerate cases


def notes_of(frame, **kw):
    return " ".join(compare.run(table(frame), compare.Options(baseline="a", candidate="b", item="id",
                                                              **kw)).notes)


def test_degenerate_all_wins_all_ties_one_item():
    ids = [f"i{i}" for i in range(10)]
    assert "All 10 items are wins (10/10)" in notes_of(pd.DataFrame({"id": ids, "a": 0, "b": 1}))
    assert "All 10 items are losses (10/10)" in notes_of(pd.DataFrame({"id": ids, "a": 1, "b": 0}))
    ties = notes_of(pd.DataFrame({"id": [f"i{i}" for i in range(100)], "a": 1, "b": 1}))
    assert "All 100 items tie: the interval has zero width and says nothing about the difference" in ties
    assert "minimum detectable difference is 0" in ties
    one = notes_of(pd.DataFrame({"id": ["x"], "a": [0], "b": [1]}))
    assert "Only 1 item is paired" in one
    assert "not detectable at this size" in one  # MDE 2.8 > 100%
    # continuous scores too
    cont = notes_of(pd.DataFrame({"id": ids, "a": 0.25, "b": 0.75}))
    assert "All 10 items differ by exactly +0.5" in cont
    cties = notes_of(pd.DataFrame({"id": ids, "a": 0.4, "b": 0.4}))
    assert "All 10 items tie" in cties
    cone = notes_of(pd.DataFrame({"id": ["x"], "a": [0.2], "b": [0.5]}))
    assert "Only 1 item is paired" in cone and "excludes 0" not in cone


def test_mde_above_one_for_bounded_scores_is_not_detectable():
    rng = np.random.default_rng(1)
    frame = pd.DataFrame({"id": range(3), "a": rng.random(3), "b": rng.random(3)})
    frame.loc[0, "a"], frame.loc[0, "b"] = 0.0, 1.0
    frame.loc[1, "a"], frame.loc[1, "b"] = 1.0, 0.0
    res = compare.run(table(frame), compare.Options(baseline="a", candidate="b", item="id"))
    assert res.value("mde_score") > 1
    assert "not detectable at this size" in " ".join(res.notes)


def test_options_are_validated():
    frame = wide(20, 1)
    for kw in ({"scores": "maybe"}, {"correction": "sidak"}, {"rounds": 0}, {"zero_method": "x"},
               {"better": "up"}):
        with pytest.raises(compare.OptionError):
            run_wide(frame, **kw)


# ------------------------------------------------------------------------------ command line


def test_cli_long_form_score_and_several_candidates(tmp_path, capsys):
    frame = wide(80, 6)
    frame["other"] = (frame["old"] + 0.05).clip(0, 1)
    path = tmp_path / "w.csv"
    frame.to_csv(path, index=False)
    code = cli_main(["compare", str(path), "--baseline", "old", "--candidate", "new,other", "--item", "id",
                     "--resamples", "2000", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    payload = json.loads(out)
    assert "family:continuous" in payload["signature"]
    got = [r for r in payload["results"] if r["metric"] == "beats_baseline"]
    assert {r["to"] for r in got} == {"new", "other"}
    long = pd.concat([pd.DataFrame({"sys": s, "q": frame["id"], "ndcg": frame[s]}) for s in ("old", "new")])
    lpath = tmp_path / "l.csv"
    long.to_csv(lpath, index=False)
    code = cli_main(["compare", str(lpath), "--system", "sys", "--item", "q", "--score", "ndcg",
                     "--baseline-system", "old", "--zero-method", "pratt", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    payload = json.loads(out)
    assert "zero:pratt" in payload["signature"]
    d = frame["new"].to_numpy() - frame["old"].to_numpy()
    rec = [r for r in payload["results"] if r["metric"] == "wilcoxon_p"][0]
    assert rec["value"] == pytest.approx(stats.wilcoxon(d, zero_method="pratt", correction=False).pvalue,
                                         rel=1e-9)


def test_ranx_compare_agrees_on_per_query_scores():
    paired_student_t_test = pytest.importorskip("ranx.statistical_tests.paired_student_t_test")

    frame = wide(200, 11)
    res = run_wide(frame)
    p, _ = paired_student_t_test.paired_student_t_test(frame["old"].to_numpy(), frame["new"].to_numpy())
    assert res.value("t_test_p") == pytest.approx(p, rel=1e-9)
    assert pm.paired_t(frame["new"] - frame["old"]).p == pytest.approx(p, rel=1e-9)


def test_mixed_binary_and_other_numbers_is_refused_with_the_way_out():
    frame = pd.DataFrame({"id": ["a", "b", "c"], "a": [1, 0, 1], "b": [1, 2, 0]})
    with pytest.raises(compare.DataError, match="--scores continuous"):
        compare.run(table(frame), compare.Options(baseline="a", candidate="b", item="id"))
    res = compare.run(table(frame), compare.Options(baseline="a", candidate="b", item="id", scores="continuous"))
    assert res.value("mean_diff") == pytest.approx(1 / 3)


def test_tukey_hsd_matches_statsmodels_and_ranx_convention():
    multicomp = pytest.importorskip("statsmodels.stats.multicomp")
    rng = np.random.default_rng(12)
    n = 150
    base = rng.random(n)
    frame = pd.DataFrame({"id": range(n), "old": base, "a": base + rng.normal(0.05, 0.2, n),
                          "b": base + rng.normal(0.0, 0.2, n)})
    res = compare.run(table(frame), compare.Options(baseline="old", candidate="a,b", item="id", resamples=1000))
    long = pd.concat([pd.DataFrame({"g": c, "y": frame[c]}) for c in ("old", "a", "b")])
    ref = multicomp.pairwise_tukeyhsd(long["y"], long["g"])
    table_ = pd.DataFrame(ref._results_table.data[1:], columns=ref._results_table.data[0])
    for _, row in table_.iterrows():
        ours = res.find("tukey_hsd_p", from_=row["group1"], to=row["group2"]) or \
            res.find("tukey_hsd_p", from_=row["group2"], to=row["group1"])
        assert ours[0]["value"] == pytest.approx(float(row["p-adj"]), abs=1e-3)  # statsmodels rounds to 4 places
    assert any("Tukey's HSD" in note for note in res.notes)
    ranx_tukey = pytest.importorskip("ranx.statistical_tests.tukey_hsd_test")
    for r in ranx_tukey.tukey_hsd_test(["old", "a", "b"], [frame[c].to_numpy() for c in ("old", "a", "b")], 0.05):
        if r["control"] != r["treatment"]:
            found = res.find("tukey_hsd_p", from_=r["control"], to=r["treatment"])
            if found:
                assert found[0]["value"] == pytest.approx(r["p-value"], rel=1e-9)


def test_a_long_bootstrap_on_scores_can_be_cancelled():
    from workbench.core.errors import Cancelled
    from workbench.core.progress import Progress

    class CancelInBootstrap(Progress):
        def advance(self, fraction, message=""):
            if "bootstrap" in message:
                self.cancel()

    rng = np.random.default_rng(2)
    frame = pd.DataFrame({"id": range(5000), "old": rng.random(5000), "new": rng.random(5000)})
    with pytest.raises(Cancelled):
        run_wide_progress = compare.run(table(frame), compare.Options(baseline="old", candidate="new", item="id",
                                                                      resamples=200_000), CancelInBootstrap())
        assert run_wide_progress is None
