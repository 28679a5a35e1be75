"""Issue 44, Judge: the further human labels follow Lee et al.'s (2025) published allocation
(``allocate_calibration_sample`` of UW-Madison-Lee-Lab/LLM-judge-reporting, re-derived here from
its formula, not copied); every cell of the confusion matrix, the people's pass rate and
Krippendorff's alpha are records; grades read as nominal because of a text label say so."""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import krippendorff
import numpy as np
import pandas as pd
import pytest

from workbench.analyses import judge
from workbench.io import load_table
from workbench.metrics import agreement as ag
from workbench.report.present import answer

ROOT = Path(__file__).resolve().parents[1]
EX = ROOT / "resources" / "examples"
CARDS = ROOT / "tests" / "fixtures" / "cards"


def published(m, p, q0, q1, m_pilot):
    """Lee et al.'s allocation as their paper and README state it: with m_pilot labels on each
    side, kappa = (m_pilot (1 - q0) + 1) / (m_pilot (1 - q1) + 1), m1 = m / (1 + (1/p - 1)
    sqrt(kappa)), rounded (Python's round) and kept within [m_pilot, m - m_pilot]; p ~ 0 puts
    all but the pilot on passes."""
    if p < 1e-6:
        m1 = m - m_pilot
    else:
        kappa = (m_pilot * (1 - q0) + 1) / (m_pilot * (1 - q1) + 1)
        m1 = max(m_pilot, round(min(m - m_pilot, m / (1 + (1 / p - 1) * math.sqrt(kappa)))))
    return m - m1, m1


def test_their_readme_example():
    """allocate_calibration_sample(200, 0.4, q0_pilot=0.7, q1_pilot=0.9, m_pilot=10) = (136, 64)."""
    assert ag.lee_allocation(200, 0.4, 0.7, 0.9, 10, 10) == published(200, 0.4, 0.7, 0.9, 10) == (136, 64)


@pytest.mark.parametrize("m,p,q0,q1,pilot", list(itertools.product(
    (40, 101, 250, 1000), (0.0, 0.05, 0.35, 0.5, 0.8, 0.97), (0.6, 0.85, 0.99), (0.55, 0.9, 1.0), (5, 20))))
def test_the_allocation_is_theirs_with_equal_pilots(m, p, q0, q1, pilot):
    if m < 2 * pilot:
        return
    assert ag.lee_allocation(m, p, q0, q1, pilot, pilot) == published(m, p, q0, q1, pilot)


def test_unequal_labels_in_hand_smooth_each_side_by_its_own():
    """35 labels on fails, 70 on passes: kappa is the ratio of the error rates each smoothed by
    one error over its own side, ((1-q0) + 1/35) / ((1-q1) + 1/70)."""
    p, q0, q1 = 0.35, 31 / 35, 58 / 70
    kappa = ((1 - q0) + 1 / 35) / ((1 - q1) + 1 / 70)
    m = 400
    want1 = max(70, round(min(m - 35, m / (1 + (1 / p - 1) * math.sqrt(kappa)))))
    assert ag.lee_allocation(m, p, q0, q1, 35, 70) == (m - want1, want1)


def _hw(p, q0, q1, n, m0, m1):
    theta = min(1, max(0, (p + q0 - 1) / (q0 + q1 - 1)))
    var = p * (1 - p) / n + theta ** 2 * q1 * (1 - q1) / m1 + (1 - theta) ** 2 * q0 * (1 - q0) / m0
    return 1.959963984540054 * math.sqrt(var) / (q0 + q1 - 1)


@pytest.mark.parametrize("p,q0,q1,n,m0,m1", [(0.4, 0.7, 0.9, 5000, 30, 30), (0.6, 0.8, 0.85, 20000, 40, 90),
                                            (0.2, 0.95, 0.7, 8000, 100, 25), (0.5, 0.9, 0.9, 3000, 400, 400)])
def test_the_labels_needed_are_the_fewest_that_reach_five_points(p, q0, q1, n, m0, m1):
    """The fewest further labels E such that the budget m0 + m1 + E, split by their allocation,
    gives a delta-method half-width of 5 points; the records split E as the allocation does."""
    extra, more0, more1 = ag.lee_labels_needed(p, q0, q1, n, m0, m1)
    def width(e):
        a0, a1 = published(m0 + m1 + e, p, q0, q1, min(m0, m1)) if m0 == m1 else ag.lee_allocation(
            m0 + m1 + e, p, q0, q1, m0, m1)
        return _hw(p, q0, q1, n, a0, a1)
    if extra == 0:
        assert width(0) <= 0.05
        return
    assert width(extra) <= 0.05 < width(extra - 1)
    a0, a1 = ag.lee_allocation(m0 + m1 + extra, p, q0, q1, m0, m1)
    assert (more0, more1) == (a0 - m0, a1 - m1) and more0 + more1 == extra


def test_judge_records_the_labels_to_collect_by_side(tmp_path):
    rng = np.random.default_rng(4)
    n = 3000
    truth = rng.random(n) < 0.45
    said = np.where(rng.random(n) < 0.88, truth, ~truth)
    human = np.where(np.arange(n) < 80, np.where(truth, "PASS", "FAIL"), "")
    path = tmp_path / "j.csv"
    pd.DataFrame({"item": [f"i{i}" for i in range(n)], "judge": np.where(said, "PASS", "FAIL"),
                  "human": human}).to_csv(path, index=False)
    res = judge.run(load_table(path), judge.Options(judge="judge", human=("human",), item="item"))
    m0, m1 = res.find("specificity")[0]["n"], res.find("sensitivity")[0]["n"]
    p = res.value("judge_pass_rate")
    q0, q1 = res.value("specificity"), res.value("sensitivity")
    extra = res.value("human_labels_needed")
    a0, a1 = ag.lee_allocation(m0 + m1 + extra, p, q0, q1, m0, m1)
    assert res.value("human_labels_needed_fail") == a0 - m0 and res.value("human_labels_needed_pass") == a1 - m1
    assert _hw(p, q0, q1, n, a0, a1) <= 0.05
    text = answer(res).text
    assert f"about {extra:,} more human labels, {a0 - m0:,} on items people fail and {a1 - m1:,} on items they pass (Lee et al.'s allocation)" in text


def test_the_confusion_matrix_the_peoples_pass_rate_and_alpha_are_records():
    res = judge.run(load_table(EX / "judge_labels.csv"), judge.Options())
    frame = load_table(EX / "judge_labels.csv").frame
    lab = frame[frame["human"].astype(str).str.len() > 0]
    for (j, h), count in pd.crosstab(lab["judge"], lab["human"]).stack().items():
        assert res.value("confusion", from_=j, to=h) == count
    assert sum(r["value"] for r in res.find("confusion")) == len(lab)
    assert res.value("human_pass_rate") == pytest.approx((lab["human"] == "PASS").mean(), abs=1e-12)


def test_alpha_is_beside_kappa_with_one_person_and_no_gap():
    """Five items, one person, no blank: alpha was left out (only with several people or gaps)."""
    res = judge.run(load_table(CARDS / "judge_five_items.csv"), judge.Options())
    frame = load_table(CARDS / "judge_five_items.csv").frame
    codes = {"FAIL": 0, "PASS": 1}
    data = np.array([[codes[x] for x in frame["judge"]], [codes[x] for x in frame["human"]]], dtype=float)
    assert res.value("alpha", group="judge and people") == pytest.approx(
        krippendorff.alpha(reliability_data=data, level_of_measurement="nominal"), abs=1e-12)
    assert "Krippendorff's alpha" in answer(res).text


def test_grades_read_as_nominal_because_of_a_text_label_say_so(tmp_path):
    """1-5 grades with one 'n/a': --level auto reads them nominal (no weighted kappa); a note
    names the label and its line."""
    rows = ["item,judge,human"] + [f"i{i},{1 + i % 5},{1 + (i + (i % 3 == 0)) % 5}" for i in range(40)]
    rows[8] = "i7,n/a,3"
    path = tmp_path / "grades.csv"
    path.write_text("\n".join(rows) + "\n")
    res = judge.run(load_table(path), judge.Options(judge="judge", human=("human",), item="item"))
    assert not res.find("kappa_linear")
    note = next(n for n in res.notes if "nominal categories, not ordinal grades" in n)
    assert "'n/a'" in note and "line 9" in note
