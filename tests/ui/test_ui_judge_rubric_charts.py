"""Judge and Rubric charts: what they draw equals the result tables (and counts taken from the
example file with pandas); a click on a disagreeing confusion cell selects its items' rows."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from PySide6.QtCore import Qt

from conftest import EXAMPLES, open_example, wait_result

pytestmark = pytest.mark.gui


def _shown(panel, name):
    chart = panel.chart(name)
    assert panel.tabs.isTabVisible(panel.tabs.indexOf(chart)), f"{name} is hidden"
    panel.tabs.setCurrentWidget(chart)
    return chart


def _data_rows(window):
    model = window.data.model
    return model.frame.iloc[[model.source_row(r) for r in range(model.rowCount())]]


def test_confusion_matrix_counts_and_a_click_selects_the_disagreeing_items(qtbot, window):
    panel = open_example(qtbot, window, "judge_labels.csv")
    result = wait_result(qtbot, panel)
    chart = _shown(panel, "ConfusionChart")
    raw = pd.read_csv(EXAMPLES / "judge_labels.csv", keep_default_na=False)
    labelled = raw[raw["human"] != ""]
    drawn = chart.plotted()["cells"]
    for i, j_label in enumerate(drawn["judge"]):
        for j, h_label in enumerate(drawn["human"]):
            expected = int(((labelled["judge"] == j_label) & (labelled["human"] == h_label)).sum())
            assert drawn["counts"][i, j] == expected
    confusion = result.table("confusion").frame
    np.testing.assert_array_equal(drawn["counts"], confusion.drop(columns="judge").to_numpy(dtype=float))
    tip = chart.tooltip_at(0.0, 0.0)  # bottom left: judge PASS, people FAIL
    assert tip.startswith("judge PASS, people FAIL: 4 items") and "of 105" in tip and "click" in tip
    qtbot.waitUntil(lambda: chart.width() > 100)
    # an agreeing cell opens nothing
    qtbot.mouseClick(chart.viewport(), Qt.MouseButton.LeftButton, pos=chart.cell_position("PASS", "PASS"))
    assert window.tabs.currentWidget() is not window.data
    # judge PASS, people FAIL: exactly those answers in the data table
    qtbot.mouseClick(chart.viewport(), Qt.MouseButton.LeftButton, pos=chart.cell_position("PASS", "FAIL"))
    assert window.tabs.currentWidget() is window.data
    shown = _data_rows(window)
    want = labelled[(labelled["judge"] == "PASS") & (labelled["human"] == "FAIL")]
    assert sorted(shown["answer_id"].astype(str)) == sorted(want["answer_id"])
    assert len(shown) == 4
    window.data.show_all.click()
    assert window.data.model.rowCount() == len(raw)


def test_label_shares_are_the_margins_of_the_labelled_items(qtbot, window):
    panel = open_example(qtbot, window, "judge_labels.csv")
    wait_result(qtbot, panel)
    shares = _shown(panel, "LabelShareChart").plotted()["shares"]
    raw = pd.read_csv(EXAMPLES / "judge_labels.csv", keep_default_na=False)
    labelled = raw[raw["human"] != ""]
    for lab, judge, people in zip(shares["label"], shares["judge"], shares["people"]):
        assert judge == pytest.approx((labelled["judge"] == lab).mean())
        assert people == pytest.approx((labelled["human"] == lab).mean())
    assert shares["n"] == len(labelled)


def test_rubric_charts_equal_the_tables(qtbot, window):
    panel = open_example(qtbot, window, "rubric_answers.csv")
    result = wait_result(qtbot, panel)
    criteria = result.table("criteria").frame
    rates = _shown(panel, "CriterionRateChart").plotted()["rates"]
    np.testing.assert_allclose(rates["est"], criteria["rate"])
    np.testing.assert_allclose(rates["low"], criteria["ci_low"].astype(float))
    np.testing.assert_allclose(rates["high"], criteria["ci_high"].astype(float))
    np.testing.assert_array_equal(rates["n"], criteria["items"])
    # the pass rate of 'cites_source' for v2, counted from the file
    raw = pd.read_csv(EXAMPLES / "rubric_answers.csv", keep_default_na=False)
    v2 = raw[raw["version"] == "v2"]["cites_source"]
    i = list(rates["label"]).index("v2 · cites_source")
    assert rates["est"][i] == pytest.approx((v2 == "yes").sum() / (v2 != "").sum())
    moved = _shown(panel, "ContributionChart").plotted()["contributions"]
    compared = result.table("criteria_compared").frame
    np.testing.assert_allclose(moved["contribution"], compared["contribution"])
    assert list(moved["label"]) == list(compared["criterion"])
    assert moved["total"][0] == pytest.approx(result.table("compared").frame["diff"].iloc[0])


def test_a_plain_table_of_annotators_without_a_judge_is_their_agreement(qtbot, window, tmp_path):
    """item_id, annotator, label and no judge: the Judge panel (through the View menu) measures
    how far the annotators agree, as the command line does, instead of asking for a judge."""
    from conftest import open_file

    rng = np.random.default_rng(3)
    rows = [{"item_id": f"q{i}", "annotator": who,
             "label": "pass" if (rng.random() < 0.8) == (i % 3 > 0) else "fail"}
            for i in range(30) for who in ("ann", "bo", "cy")]
    path = tmp_path / "annotations.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    open_file(qtbot, window, path)
    window.view_actions["judge"].trigger()
    panel = window.panels["judge"]
    result = wait_result(qtbot, panel)
    assert "judge:none" in result.signature and "annotators(annotator)" in result.signature
    import krippendorff

    wide = pd.DataFrame(rows).pivot(index="annotator", columns="item_id", values="label")
    codes = wide.replace({"pass": 1.0, "fail": 0.0}).to_numpy(dtype=float)
    expected = krippendorff.alpha(reliability_data=codes, level_of_measurement="nominal")
    alpha = next(r for r in result.records if r["metric"] == "alpha")
    assert alpha["value"] == pytest.approx(expected)
