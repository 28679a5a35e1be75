"""The Rubric analysis: weighted yes/no criteria, hand-computed and against scipy/statsmodels."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from conftest import table_of
from workbench.analyses import rubric
from workbench.core.errors import DataError, OptionError
from workbench.report.present import answer

multipletests = pytest.importorskip("statsmodels.stats.multitest").multipletests


def run(frame, **kw):
    kw.setdefault("resamples", 2000)
    return rubric.run(table_of(frame), rubric.Options(**kw))


HAND = pd.DataFrame({"item": ["1", "2", "3"], "correct": ["yes", "no", "YES"], "cites": ["no", "no", "yes"],
                     "concise": ["1", "1", ""]})


def test_weighted_item_scores_by_hand_with_both_missing_policies():
    # weights 3, 2, 1: item 1 = 3/6 + 1/6 = 4/6; item 2 = 1/6; item 3 (concise blank) skip: 5/5,
    # fail: 5/6
    skip = run(HAND, item="item", criteria="correct,cites,concise", weights="3,2,1")
    assert skip.value("rubric_score") == pytest.approx((4 / 6 + 1 / 6 + 1.0) / 3)
    fail = run(HAND, item="item", criteria="correct,cites,concise", weights="3,2,1", missing="fail")
    assert fail.value("rubric_score") == pytest.approx((4 / 6 + 1 / 6 + 5 / 6) / 3)
    assert "missing:skip-renormalise" in skip.signature and "missing:fail" in fail.signature
    crit = skip.table("criteria").frame.set_index("criterion")
    assert crit.loc["concise", "blank"] == 1 and crit.loc["concise", "items"] == 2
    assert skip.value("criterion_rate:correct") == pytest.approx(2 / 3)
    assert crit.index.tolist() == ["correct", "cites", "concise"]  # the rubric's order


def test_equal_weights_by_default_and_t_interval():
    res = run(HAND, item="item", criteria="correct,cites,concise")
    x = np.array([2 / 3, 1 / 3, 1.0])
    assert res.value("rubric_score") == pytest.approx(x.mean())
    ref = stats.ttest_1samp(x, 0).confidence_interval()
    rec = res.find("rubric_score")[0]
    assert (rec["t_low"], rec["t_high"]) == pytest.approx((ref.low, ref.high))   # the t interval, beside
    boot = stats.bootstrap((np.sort(x),), np.mean, n_resamples=2000, method="percentile",
                           rng=np.random.default_rng(12345)).confidence_interval
    assert (rec["ci_low"], rec["ci_high"]) == pytest.approx((boot.low, boot.high))
    assert rec["ci_method"] == "bootstrap-percentile-95,B=2000"
    assert "weights:equal" in res.signature and "Rubric score" in answer(res).text


def paired_frame(n=60, seed=2):
    rng = np.random.default_rng(seed)
    rows = []
    base = rng.random((n, 3)) < [0.7, 0.3, 0.6]
    lift = rng.random((n, 3)) < [0.05, 0.35, 0.05]
    cand = base | lift
    cand[:, 2] &= rng.random(n) > 0.1
    for name, v in (("old", base), ("new", cand)):
        for i in range(n):
            rows.append({"system": name, "item": f"q{i}", **{c: "pass" if v[i, j] else "fail"
                                                                for j, c in enumerate(["correct", "cites", "tone"])}})
    return pd.DataFrame(rows), base.astype(float), cand.astype(float)


def test_paired_comparison_against_references():
    frame, base, cand = paired_frame()
    w = np.array([3.0, 2.0, 1.0])
    res = run(frame, item="item", criteria="correct,cites,tone", weights="3,2,1", system="system",
              baseline_system="old")
    sb, sc = base @ w / w.sum(), cand @ w / w.sum()
    assert res.value("diff:rubric_score", from_="old", to="new") == pytest.approx((sc - sb).mean())
    assert res.value("t_test_p:rubric_score", from_="old", to="new") == pytest.approx(stats.ttest_rel(sc, sb).pvalue)
    ps = []
    for j, c in enumerate(["correct", "cites", "tone"]):
        wins = int(((cand[:, j] == 1) & (base[:, j] == 0)).sum())
        losses = int(((cand[:, j] == 0) & (base[:, j] == 1)).sum())
        p = stats.binomtest(wins, wins + losses).pvalue if wins + losses else 1.0
        ps.append(p)
        assert res.value(f"criterion_diff:{c}", from_="old", to="new") == pytest.approx((wins - losses) / 60)
        assert res.value(f"contribution:{c}", from_="old", to="new") == pytest.approx(
            w[j] / w.sum() * (cand[:, j].mean() - base[:, j].mean()))
    holm = multipletests(ps, method="holm")[1]
    for c, p in zip(["correct", "cites", "tone"], holm):
        assert res.value(f"criterion_p_holm:{c}", from_="old", to="new") == pytest.approx(p)
    # no blank verdict: the contributions add up to the score difference
    total = sum(res.value(f"contribution:{c}", from_="old", to="new") for c in ["correct", "cites", "tone"])
    assert total == pytest.approx(res.value("diff:rubric_score", from_="old", to="new"))
    text = answer(res).text
    assert "'new' vs 'old'" in text and "mostly 'cites'" in text and "paired bootstrap" in text


def test_long_form_equals_wide_form_and_rubric_file(tmp_path):
    frame, _, _ = paired_frame(30, 4)
    long = frame.melt(id_vars=["system", "item"], var_name="criterion", value_name="verdict")
    spec = tmp_path / "rubric.csv"
    spec.write_text("criterion,weight,description\ncorrect,3,the answer is right\ncites,2,cites a source\n"
                    "tone,1,polite\n")
    wide = run(frame, item="item", criteria="correct,cites,tone", weights="3,2,1", system="system")
    lng = run(long, item="item", criterion="criterion", verdict="verdict", rubric=str(spec), system="system")
    for s in ("old", "new"):
        assert lng.value("rubric_score", system=s) == pytest.approx(wide.value("rubric_score", system=s))
    assert "weights:file:rubric.csv" in lng.signature
    assert lng.table("criteria").frame["description"].tolist()[:3] == ["the answer is right", "cites a source", "polite"]


def test_bad_inputs_are_one_sentence():
    with pytest.raises(OptionError, match="3 weights for 2 criteria"):
        run(HAND, item="item", criteria="correct,cites", weights="3,2,1")
    bad = HAND.assign(cites=["no", "maybe", "yes"])
    with pytest.raises(DataError, match=r"column 'cites'.*'maybe' \(line 3\)"):
        run(bad, item="item", criteria="correct,cites")
    with pytest.raises(OptionError, match="weight of 'cites' must be a number"):
        run(HAND, item="item", criteria="correct,cites", weights="1,x")


def test_cli_rubric_json(tmp_path, cli):
    frame, _, _ = paired_frame(20, 7)
    path = tmp_path / "r.csv"
    frame.to_csv(path, index=False)
    out = cli("rubric", str(path), "--item", "item", "--criteria", "correct,cites,tone", "--weights", "3,2,1",
              "--system", "system", "--baseline-system", "old", "--resamples", "1000")
    recs = [r for r in out["results"] if r["metric"] == "diff:rubric_score"]
    assert len(recs) == 1 and recs[0]["n"] == 20 and recs[0]["ci_low"] is not None
    assert "missing:skip-renormalise" in out["signature"] and "w:3,2,1" in out["signature"]


def test_criteria_guessed_from_the_verdict_columns():
    frame, _, _ = paired_frame(20, 3)
    res = run(frame, item="item", system="system")
    assert any("criteria are the columns that hold only yes/no verdicts" in n for n in res.notes)
    assert res.table("criteria").frame["criterion"].unique().tolist() == ["correct", "cites", "tone"]


def _long(frame, criteria):
    """The wide HAND-style frame as a long table (item, criterion, verdict), criteria shuffled."""
    rows = [{"item": r["item"], "criterion": c, "verdict": r[c]} for _, r in frame.iterrows() for c in criteria]
    return pd.DataFrame(rows).sample(frac=1.0, random_state=3).reset_index(drop=True)


def test_long_form_takes_the_criteria_and_their_weights_in_the_order_given():
    long = _long(HAND, ["concise", "cites", "correct"])  # the file's first appearance is not the rubric's order
    res = run(long, item="item", criterion="criterion", verdict="verdict",
              criteria="correct,cites,concise", weights="3,2,1")
    # the same hand numbers as the wide form: weights 3, 2, 1 on correct, cites, concise
    assert res.value("rubric_score") == pytest.approx((4 / 6 + 1 / 6 + 1.0) / 3)
    assert res.table("criteria").frame["criterion"].tolist() == ["correct", "cites", "concise"]
    two = run(long, item="item", criterion="criterion", verdict="verdict", criteria="cites,correct", weights="1,1")
    assert two.value("rubric_score") == pytest.approx(np.mean([0.5, 0.0, 1.0]))
    assert any("'concise'" in n and "left out" in n for n in two.notes)
    with pytest.raises(DataError, match="no criterion 'tone'.*its criteria are"):
        run(long, item="item", criterion="criterion", verdict="verdict", criteria="correct,tone")


def test_each_item_has_its_weighted_score_in_a_table_and_in_json():
    import json

    res = run(HAND, item="item", criteria="correct,cites,concise", weights="3,2,1")
    items = res.table("items").frame.set_index("item")
    assert items["score"].tolist() == pytest.approx([4 / 6, 1 / 6, 1.0])
    assert items["passed"].tolist() == [2, 1, 2] and items["verdicts"].tolist() == [3, 3, 2]
    shown = json.loads(json.dumps(res.to_json_dict()))
    assert [row["score"] for row in shown["tables"]["items"]] == pytest.approx([4 / 6, 1 / 6, 1.0])


def test_each_criterion_reports_its_raw_sign_and_mcnemar_p():
    frame, _, _ = paired_frame()
    res = run(frame, item="item", system="system", baseline_system="old", criteria="correct,cites,tone")
    wide = frame.pivot(index="item", columns="system")
    for c in ("correct", "cites", "tone"):
        old, new = wide[(c, "old")] == "pass", wide[(c, "new")] == "pass"
        wins, losses = int((new & ~old).sum()), int((old & ~new).sum())
        sign = stats.binomtest(wins, wins + losses, 0.5).pvalue if wins + losses else 1.0
        assert res.value(f"criterion_sign_p:{c}", from_="old", to="new") == pytest.approx(sign)
        if wins + losses:
            chi2 = (wins - losses) ** 2 / (wins + losses)
            assert res.value(f"criterion_mcnemar_p:{c}", from_="old", to="new") == \
                pytest.approx(stats.chi2.sf(chi2, 1))


def test_repeated_item_ids_take_the_version_column_as_the_system(cli):
    from conftest import EXAMPLES

    path = EXAMPLES / "rubric_answers.csv"
    guessed = cli("rubric", path)
    named = cli("rubric", path, "--system", "version")
    assert guessed["results"] == named["results"]
    assert any("column 'version' was taken as the system column" in n for n in guessed["notes"])
    # the pass rates per version, counted with pandas
    raw = pd.read_csv(path)
    for rec in (r for r in guessed["results"] if r["metric"] == "criterion_rate:cites_source"):
        part = raw.loc[raw["version"] == rec["system"], "cites_source"]
        assert rec["value"] == pytest.approx((part == "yes").mean())


def test_repeated_item_ids_without_a_system_like_column_are_refused(cli, tmp_path):
    path = tmp_path / "dup.csv"
    pd.DataFrame({"item": ["a", "a", "b"], "ok": ["yes", "no", "yes"]}).to_csv(path, index=False)
    err = cli("rubric", path, "--criteria", "ok", expect=2)
    assert "repeat an item id" in err and "dup.csv" in err and "lines 2, 3" in err
