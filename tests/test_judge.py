"""The Judge analysis against statsmodels, scikit-learn, the krippendorff package, irrCAC's
AC1, scipy's binomial test and the published corrected-score example (Lee et al. 2025)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from conftest import table_of
from workbench.analyses import judge
from workbench.core.errors import DataError
from workbench.metrics import agreement as ag
from workbench.report.present import answer

sm_ir = pytest.importorskip("statsmodels.stats.inter_rater")
krippendorff = pytest.importorskip("krippendorff")
sk_metrics = pytest.importorskip("sklearn.metrics")


def run(frame, **kw):
    return judge.run(table_of(frame), judge.Options(**kw))


def test_published_kappa_example():
    """statpsych ci.kappa: table (31, 12, 4, 58) gives kappa 0.676, SE 0.0734, CI [0.532, 0.820]."""
    k = ag.cohens_kappa([[31, 12], [4, 58]])
    assert (round(k.value, 3), round(k.se, 4), round(k.low, 3), round(k.high, 3)) == (0.676, 0.0734, 0.532, 0.82)


@pytest.mark.parametrize("k", [2, 3, 5])
@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
def test_kappa_equals_statsmodels(k, weights):
    rng = np.random.default_rng(k)
    table = rng.integers(0, 25, (k, k)) + 30 * np.eye(k, dtype=int)
    ref = (sm_ir.cohens_kappa(table) if weights is None else
           sm_ir.cohens_kappa(table, weights=np.arange(k), wt=weights))
    ours = ag.cohens_kappa(table, weights=weights)
    assert ours.value == pytest.approx(ref.kappa, rel=1e-12)
    assert ours.se == pytest.approx(ref.std_kappa, rel=1e-10)
    assert (ours.low, ours.high) == pytest.approx((ref.kappa_low, ref.kappa_upp), rel=1e-10)


def test_ordinal_labels_end_to_end_against_sklearn_and_krippendorff():
    rng = np.random.default_rng(3)
    human = rng.integers(1, 6, 120)
    judge_ = np.clip(human + rng.integers(-1, 2, 120), 1, 5)
    human2 = np.clip(human + rng.integers(-1, 2, 120), 1, 5).astype(float)
    human2[rng.random(120) < 0.3] = np.nan
    frame = pd.DataFrame({"id": [f"i{i}" for i in range(120)], "judge": judge_, "human": human,
                          "human2": human2})
    res = run(frame, item="id", judge="judge", human=("human", "human2"))
    assert "level:ordinal" in res.signature
    for w in (None, "linear", "quadratic"):
        metric = "kappa" if w is None else f"kappa_{w}"
        assert res.value(metric) == pytest.approx(sk_metrics.cohen_kappa_score(judge_, human, weights=w), rel=1e-10)
    data = np.vstack([judge_, human, human2]).astype(float)
    assert res.value("alpha", group="judge and people") == pytest.approx(
        krippendorff.alpha(reliability_data=data, level_of_measurement="ordinal"), rel=1e-10)
    assert res.value("alpha", group="people alone") == pytest.approx(
        krippendorff.alpha(reliability_data=data[1:], level_of_measurement="ordinal"), rel=1e-10)
    assert res.value("agreement") == pytest.approx(np.mean(judge_ == human))


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
def test_krippendorff_alpha_with_gaps(level):
    rng = np.random.default_rng(len(level))
    x = rng.integers(1, 5, (4, 40)).astype(float)
    x[rng.random(x.shape) < 0.25] = np.nan
    assert ag.krippendorff_alpha(x, level=level) == pytest.approx(
        krippendorff.alpha(reliability_data=x, level_of_measurement=level), rel=1e-10)


def test_ac1_against_an_independent_computation_and_irrcac():
    t = np.array([[40, 5, 2], [3, 30, 6], [1, 4, 20]], dtype=float)
    n = t.sum()
    p = t / n
    pi = (p.sum(0) + p.sum(1)) / 2
    pe = (pi * (1 - pi)).sum() / 2
    po = np.trace(p)
    assert ag.gwet_ac1(t).value == pytest.approx((po - pe) / (1 - pe), rel=1e-12)
    # irrCAC 0.4.4's gwet() on this table (digits=12): interval 0.60939968 to 0.82940378
    assert (ag.gwet_ac1(t).low, ag.gwet_ac1(t).high) == pytest.approx((0.60939968, 0.82940378), abs=1e-8)
    irr = pytest.importorskip("irrCAC.table")  # it pins scipy 1.12: not a test dependency
    est = irr.CAC(pd.DataFrame(t), digits=12).gwet()["est"]
    ours = ag.gwet_ac1(t)
    assert ours.se == pytest.approx(float(np.ravel(est["se"])[0]), rel=1e-9)
    low, high = est["confidence_interval"]
    assert (ours.low, ours.high) == pytest.approx((float(np.ravel(low)[0]), float(np.ravel(high)[0])), rel=1e-9)


def test_kappa_paradox_note_and_pabak():
    # 90% raw agreement, almost everything PASS
    rows = ([("PASS", "PASS")] * 88 + [("PASS", "FAIL")] * 5 + [("FAIL", "PASS")] * 5 + [("FAIL", "FAIL")] * 2)
    frame = pd.DataFrame(rows, columns=["judge", "human"])
    res = run(frame, judge="judge", human=("human",))
    assert res.value("agreement") == pytest.approx(0.90)
    assert res.value("pabak") == pytest.approx(2 * 0.90 - 1)
    assert res.value("kappa") < 0.4 and res.value("ac1") > 0.8
    assert any("kappa paradox" in n for n in res.notes)


def test_corrected_pass_rate_published_example_and_formula():
    c = ag.corrected_rate(0.4, 0.7, 0.9, 1000, 100, 100)
    assert c.theta == pytest.approx(1 / 6, abs=1e-4)
    # the interval by the formula written out independently (Lee et al. 2025, section 4)
    z = stats.norm.ppf(0.975)
    n, m0, m1 = 1000, 100, 100
    p_, q0_, q1_ = (n * 0.4 + z * z / 2) / (n + z * z), (m0 * 0.7 + 1) / (m0 + 2), (m1 * 0.9 + 1) / (m1 + 2)
    n_, m0_, m1_ = n + z * z, m0 + 2, m1 + 2
    th = (p_ + q0_ - 1) / (q0_ + q1_ - 1)
    bias = 2 * z * z * (th * q1_ * (1 - q1_) / m1_ - (1 - th) * q0_ * (1 - q0_) / m0_)
    se = np.sqrt(p_ * (1 - p_) / n_ + (1 - th) ** 2 * q0_ * (1 - q0_) / m0_ + th ** 2 * q1_ * (1 - q1_) / m1_) \
        / (q0_ + q1_ - 1)
    assert (c.low, c.high) == pytest.approx((max(0, th + bias - z * se), min(1, th + bias + z * se)), rel=1e-12)


def test_corrected_pass_rate_end_to_end_and_no_better_than_chance():
    rng = np.random.default_rng(11)
    truth = rng.random(400) < 0.3
    judged = np.where(truth, rng.random(400) < 0.9, rng.random(400) < 0.25)
    human = np.where(np.arange(400) < 150, np.where(truth, "yes", "no"), "")
    frame = pd.DataFrame({"judge": np.where(judged, "yes", "no"), "human": human})
    res = run(frame, judge="judge", human=("human",))
    lab = np.arange(400) < 150
    q1 = np.mean(judged[lab & truth])
    q0 = np.mean(~judged[lab & ~truth])
    p = judged.mean()
    assert res.value("sensitivity") == pytest.approx(q1) and res.value("specificity") == pytest.approx(q0)
    assert res.value("judge_pass_rate") == pytest.approx(p)
    assert res.value("corrected_pass_rate") == pytest.approx((p + q0 - 1) / (q0 + q1 - 1))
    assert "positive:yes" in res.signature
    text = answer(res).text
    assert "Judge agrees with people on" in text and "corrected for its errors" in text
    # a judge that passes everything tells nothing: q0 = 0, q0 + q1 <= 1
    frame2 = pd.DataFrame({"judge": ["pass"] * 20, "human": ["pass", "fail"] * 10})
    res2 = run(frame2, judge="judge", human=("human",))
    assert res2.value("corrected_pass_rate") is None
    assert any("no better than chance" in n for n in res2.notes)


def test_all_labels_equal_kappa_is_a_sentence():
    frame = pd.DataFrame({"judge": ["PASS"] * 10, "human": ["PASS"] * 10})
    res = run(frame, judge="judge", human=("human",))
    assert res.value("kappa") is None
    assert any("kappa is undefined" in n for n in res.notes)
    assert "kappa undefined" in answer(res).text


def test_labels_are_exact_text_and_near_twins_are_named():
    frame = pd.DataFrame({"judge": ["PASS", "Pass ", "FAIL", "PASS"], "human": ["PASS", "PASS", "FAIL", "FAIL"]})
    res = run(frame, judge="judge", human=("human",))
    assert any("'PASS'" in n and "'Pass '" in n and "line 3" in n for n in res.notes)
    conf = res.table("confusion").frame
    assert "Pass " in conf["judge"].tolist()


def test_position_and_length_bias_against_binomtest():
    rng = np.random.default_rng(5)
    n = 80
    first = np.where(rng.random(n) < 0.6, "A", "B")         # A shown first
    swapped = np.where(rng.random(n) < 0.6, "B", "A")       # B shown first
    la, lb = rng.integers(50, 500, n), rng.integers(50, 500, n)
    frame = pd.DataFrame({"judge": first, "swapped": swapped, "len_a": la, "len_b": lb})
    res = run(frame, judge="judge", swap_judge="swapped", length_a="len_a", length_b="len_b")
    assert res.value("position_flip_share") == pytest.approx(np.mean(first != swapped))
    wins = int((first == "A").sum() + (swapped == "B").sum())
    assert res.value("first_position_win_share") == pytest.approx(wins / (2 * n))
    assert res.value("position_p") == pytest.approx(stats.binomtest(wins, 2 * n).pvalue)
    ok = la != lb
    longer_won = ((first == "A") & (la > lb)) | ((first == "B") & (lb > la))
    k = int((longer_won & ok).sum())
    assert res.value("longer_win_share") == pytest.approx(k / ok.sum())
    assert res.value("length_p") == pytest.approx(stats.binomtest(k, int(ok.sum())).pvalue)
    assert "Swapping the answers" in answer(res).text


def test_bad_verdict_is_one_sentence():
    frame = pd.DataFrame({"judge": ["A", "B", "maybe"], "swapped": ["A", "B", "A"]})
    with pytest.raises(DataError, match=r"column 'judge'.*'maybe'.*line 4"):
        run(frame, judge="judge", swap_judge="swapped")


def test_cli_judge_json(tmp_path, cli):
    path = tmp_path / "j.csv"
    path.write_text("id,judge,human\n1,PASS,PASS\n2,PASS,FAIL\n3,FAIL,FAIL\n4,PASS,PASS\n5,FAIL,PASS\n")
    out = cli("judge", str(path), "--item", "id", "--judge", "judge", "--human", "human", "--positive", "PASS",
              "--json")
    recs = {r["metric"]: r for r in out["results"]}
    table = np.array([[1, 1], [1, 2]])  # rows judge FAIL/PASS, columns human FAIL/PASS
    ref = sm_ir.cohens_kappa(table)
    assert recs["kappa"]["value"] == pytest.approx(ref.kappa) and recs["kappa"]["n"] == 5
    assert recs["kappa"]["ci_low"] == pytest.approx(ref.kappa_low)
    assert "kappa-ci:" in out["signature"]


def test_bundled_example_reproduces_the_published_kappa():
    from pathlib import Path

    from workbench.io import load_table

    path = Path(__file__).resolve().parents[1] / "resources" / "examples" / "judge_labels.csv"
    res = judge.run(load_table(path), judge.Options())
    rec = res.find("kappa")[0]
    assert (round(rec["value"], 3), round(rec["ci_low"], 3), round(rec["ci_high"], 3)) == (0.676, 0.532, 0.82)
    assert rec["n"] == 105 and res.value("judge_pass_rate") == pytest.approx(140 / 400)
    assert res.value("corrected_pass_rate") == pytest.approx((0.35 + 31 / 35 - 1) / (31 / 35 + 58 / 70 - 1))


def test_the_confusion_matrix_and_disagreements_are_in_the_json():
    import json

    frame = pd.DataFrame({"item": [f"i{k}" for k in range(8)],
                          "judge": ["pass", "pass", "fail", "fail", "pass", "fail", "pass", "pass"],
                          "human": ["pass", "fail", "fail", "fail", "pass", "pass", "pass", ""]})
    res = judge.run(table_of(frame), judge.Options(item="item", judge="judge", human="human", positive="pass"))
    shown = json.loads(json.dumps(res.to_json_dict()))["tables"]
    rows = {r["judge"]: r for r in shown["confusion"]}
    # 7 labelled items: judge pass & human pass 3, pass/fail 1, fail/pass 1, fail/fail 2 (by hand)
    assert (rows["pass"]["human: pass"], rows["pass"]["human: fail"]) == (3, 1)
    assert (rows["fail"]["human: pass"], rows["fail"]["human: fail"]) == (1, 2)
    assert sorted(r["item"] for r in shown["disagreements"]) == ["i1", "i5"]


def test_a_positive_label_with_more_than_two_labels_is_said_not_silently_dropped():
    frame = pd.DataFrame({"item": [f"i{k}" for k in range(6)],
                          "judge": ["PASS", "FAIL", "PASS", "partial", "FAIL", "PASS"],
                          "human": ["PASS", "FAIL", "partial", "partial", "PASS", "PASS"]})
    res = judge.run(table_of(frame), judge.Options(item="item", judge="judge", human="human", positive="PASS"))
    assert not res.find("sensitivity")
    assert any("--positive 'PASS' is not used" in n and "3" in n for n in res.notes)


def _half_width(p, q0, q1, n, m0, m1):
    """The delta-method half-width of the corrected pass rate, written out here."""
    d = q0 + q1 - 1
    theta = min(1, max(0, (p + q0 - 1) / d))
    var = p * (1 - p) / n + theta ** 2 * q1 * (1 - q1) / m1 + (1 - theta) ** 2 * q0 * (1 - q0) / m0
    return stats.norm.ppf(0.975) * np.sqrt(var) / d


def test_how_many_more_human_labels_bring_the_corrected_rate_to_five_points():
    p, q0, q1, n, m0, m1 = 0.62, 0.85, 0.9, 2000, 60, 90
    share = ag.label_split(p, q0, q1, m0, m1)
    extra = ag.labels_for_half_width(p, q0, q1, n, m0, m1, share)
    assert extra is not None and extra > 0
    assert _half_width(p, q0, q1, n, m0 + (1 - share) * extra, m1 + share * extra) <= 0.05
    assert _half_width(p, q0, q1, n, m0 + (1 - share) * (extra - 1), m1 + share * (extra - 1)) > 0.05
    # already narrow: none needed; a judge's rate on too few items: no number of labels does it
    assert ag.labels_for_half_width(p, q0, q1, n, 20_000, 20_000, share) == 0
    assert ag.labels_for_half_width(0.5, q0, q1, 300, m0, m1, share) is None
