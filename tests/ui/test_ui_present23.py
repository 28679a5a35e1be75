"""Issue 23 (items 6, 7, 11-14 and the number parts of its Polish): what the analyst reads on the
screen, driven as a user does (the start page's examples, File > Open, the View menu, the form's
boxes), at 1280x800 and 1920x1080."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from conftest import open_example, open_file, wait_result

pytestmark = pytest.mark.gui


def _answer_card(panel):
    """The panel's answer card (the release rule panel calls it ``answer``)."""
    card = getattr(panel, "answer", None)
    return card if hasattr(card, "sentences") else panel.card


def _card(panel) -> str:
    return " ".join(_answer_card(panel).sentences)


def _sized(qtbot, window, size):
    window.showNormal()
    window.resize(*size)
    qtbot.waitUntil(lambda: window.width() == size[0], timeout=5000)


def _two_runs(tmp_path, lift=0.8):
    rng = np.random.default_rng(11)
    rows = []
    for system, up in (("bm25", 0.0), ("dense", lift)):
        for q in range(40):
            for d in range(8):
                grade = 1 if d < 2 else 0
                rows.append((system, f"q{q}", f"q{q}-d{d}", round(float(rng.random() + up * grade), 4), grade))
    path = tmp_path / "two_runs.csv"
    pd.DataFrame(rows, columns=["system", "query", "doc", "score", "relevance"]).to_csv(path, index=False)
    return path


# --- item 6 ---------------------------------------------------------------------------------------

def test_compare_and_rule_cards_name_their_interval_method(qtbot, window):
    """The same +4.5 pts has two 95% CIs: Compare's card says 'normal', the release rule's card
    (the example session, through the start page) says 'bootstrap'."""
    compare = open_example(qtbot, window, "paired_14_to_5.csv")
    wait_result(qtbot, compare)
    assert "+4.5 pts (normal 95% CI +0.3 to +8.7 pts)" in _card(compare)
    from workbench.ui.examples import EXAMPLE_SESSIONS

    session = next(e for e in EXAMPLE_SESSIONS if e.panel == "rule")
    with qtbot.waitSignal(window.table_loaded, timeout=30000):
        window.open_example(session)
    rule = window.rule_panel
    qtbot.waitUntil(lambda: bool(_answer_card(rule).sentences), timeout=30000)
    text = _card(rule)
    assert "(bootstrap 95% CI +0.5 to +9.0 pts)" in text and "(95% CI" not in text
    assert "≥" in text and ">=" not in text


# --- item 7 ---------------------------------------------------------------------------------------

def test_ranking_with_two_systems_says_which_one_is_better(qtbot, window, tmp_path):
    open_file(qtbot, window, _two_runs(tmp_path))
    window.view_actions["ranking"].trigger()
    panel = window.panels["ranking"]
    result = wait_result(qtbot, panel)
    d = result.find("diff:ndcg@10")[0]
    text = _card(panel)
    assert "'dense' beats 'bm25' on nDCG@10 by +" in text
    assert "bootstrap 95% CI" in text and "over 40 queries" in text
    assert panel.card.badge.text() == "dense better"
    from workbench.report.present import format_interval

    assert format_interval(d["ci_low"], d["ci_high"], "score_diff") in text


# --- item 11 --------------------------------------------------------------------------------------

def test_pass_at_k_reads_on_one_scale_on_the_card_the_table_and_the_chart(qtbot, window):
    panel = open_example(qtbot, window, "passk_counts.csv")
    wait_result(qtbot, panel)
    chart = panel.chart("PassKChart")
    panel.tabs.setCurrentWidget(chart)
    left = chart.plotItem.getAxis("left")
    ticks = left.tickStrings([0.0, 0.5, 1.0], 1.0, 0.5)
    assert ticks[1:] == ["0.5", "1.0"] and not any("%" in t for t in ticks)
    # the note reads the largest k the data supports on the same scale (0 to 1, never %): the
    # per-try rate that pass@k would imply if attempts were independent, 1 - (1 - pass@k)^(1/k)
    import re

    note = chart.note_text()
    k = int(re.match(r"pass@(\d+) = ", note).group(1))
    value = next(float(r["value"]) for r in panel.last_result.records if r["metric"] == f"pass@{k}")
    per_try = 1 - (1 - value) ** (1 / k)
    assert f"{per_try:.3f}" in chart.note_text() and "%" not in chart.note_text(), chart.note_text()
    assert f"pass@{k} = {value:.3f}" in chart.note_text()


def test_planning_reads_rates_in_percent_and_the_difference_in_points(qtbot, window):
    window.view_actions["plan"].trigger()
    panel = window.panels["plan"]
    wait_result(qtbot, panel)
    box = panel.control("target_difference_pts")
    assert "(pts)" in panel._controls["target_difference_pts"].row_label.text()
    with qtbot.waitSignal(panel.result_ready, timeout=30000) as blocker:
        box.setValue(3.0)  # 3 points, as Compare's "difference that matters"
    result = blocker.args[0]
    assert panel.options().target_difference == pytest.approx(0.03)
    assert any("difference of 3 pts" in n for n in result.notes)
    per_try = result.find("per_try_p")[0]["value"]
    note = next(n for n in result.notes if n.startswith("pass@"))
    from workbench.report.present import format_value

    assert format_value(per_try, "score") in note and "%" not in note.split("(pass^3)")[0]
    table = result.table("per_try")
    assert table.formats["pass@k"] == "score"
    with qtbot.waitSignal(panel.result_ready, timeout=30000) as blocker:
        panel.control("rate_pct").setValue(90.0)
    assert "a rate of 90.0%" in " ".join(panel.card.sentences)


# --- item 12 --------------------------------------------------------------------------------------

def _fits(view, row, col) -> bool:
    from PySide6.QtCore import QRect, Qt

    text = str(view.model().data(view.model().index(row, col)) or "")
    fm = view.fontMetrics()
    width = view.columnWidth(col) - 6  # the delegate's text margins
    need = fm.boundingRect(QRect(0, 0, max(1, width), 10_000), int(Qt.TextFlag.TextWordWrap), text)
    return need.width() <= width + 1 and need.height() <= view.rowHeight(row)


@pytest.mark.parametrize("size", [(1280, 800), (1920, 1080)])
def test_measure_names_are_whole_on_the_rows_people_point_at(qtbot, window, size):
    _sized(qtbot, window, size)
    panel = open_example(qtbot, window, "paired_14_to_5.csv")
    wait_result(qtbot, panel)
    qtbot.wait(50)
    view = panel.headline
    labels = [str(view.model().data(view.model().index(r, 0))) for r in range(view.model().rowCount())]
    assert any(lab.startswith("McNemar, continuity-corrected") for lab in labels)
    assert any(lab.startswith("Wins (candidate only)") for lab in labels)
    for r in range(view.model().rowCount()):
        assert _fits(view, r, 0), (labels[r], view.columnWidth(0), view.rowHeight(r))
    header = str(view.model().headerData(0, __import__("PySide6.QtCore").QtCore.Qt.Orientation.Horizontal))
    assert header == "Measure (baseline → candidate)"


def test_option_combos_show_their_whole_text_at_1920_and_the_column_name_at_1280(qtbot, window, tmp_path):
    from PySide6.QtWidgets import QComboBox

    open_file(qtbot, window, _two_runs(tmp_path))
    window.view_actions["ranking"].trigger()
    panel = window.panels["ranking"]
    wait_result(qtbot, panel)
    for size in ((1920, 1080), (1280, 800)):
        _sized(qtbot, window, size)
        qtbot.wait(100)
        for name, ctl in panel._controls.items():
            combo = ctl.widget
            if not isinstance(combo, QComboBox) or not combo.isVisible():
                continue
            text = combo.currentText()
            room = combo.width() - 34  # frame and arrow
            if size == (1920, 1080):
                assert combo.fontMetrics().horizontalAdvance(text) <= room, (name, text, room)
            elif text.endswith("(automatic)"):  # the column's name comes first and is whole
                column = text[: -len(" (automatic)")]
                assert combo.fontMetrics().horizontalAdvance(column) <= room, (name, text, room)


# --- item 13 --------------------------------------------------------------------------------------

def test_cost_charts_hold_their_intervals_labels_and_legends_at_1280(qtbot, window):
    _sized(qtbot, window, (1280, 800))
    panel = open_example(qtbot, window, "cost_latency.csv")
    result = wait_result(qtbot, panel)
    systems = result.table("systems").frame
    rates = panel.chart("SystemRateChart")
    panel.tabs.setCurrentWidget(rates)
    (x0, x1), _ = rates.plotItem.vb.viewRange()
    assert x0 <= systems["ci_low"].min() and x1 >= systems["ci_high"].max()
    assert rates.legend_names() == list(systems["system"].astype(str))
    assert rates.plotItem.sceneBoundingRect().width() <= rates.width() + 1
    cps = panel.chart("CostPerSuccessChart")
    panel.tabs.setCurrentWidget(cps)
    qtbot.wait(50)
    _, (y0, y1) = cps.plotItem.vb.viewRange()
    labels = [i for i in cps.plotItem.items if type(i).__name__ == "TextItem" and "per success" in i.toPlainText()]
    assert len(labels) == 3
    for label in labels:  # every label inside the view (it was cut at the top)
        rect = label.mapRectToView(label.boundingRect())
        assert y0 <= rect.top() <= y1 and y0 <= rect.bottom() <= y1, label.toPlainText()


def test_pass_at_k_axis_has_whole_attempts_and_planning_ticks_do_not_collide(qtbot, window):
    panel = open_example(qtbot, window, "passk_counts.csv")
    wait_result(qtbot, panel)
    axis = panel.chart("PassKChart").plotItem.getAxis("bottom")
    for lo, hi, px in ((1, 10, 500), (1, 3, 500), (1, 2, 800)):
        for _spacing, values in axis.tickValues(lo, hi, px):
            assert all(float(v).is_integer() for v in values), values
    window.view_actions["plan"].trigger()
    plan = window.panels["plan"]
    wait_result(qtbot, plan)
    ticks = plan.chart("PlanMdeChart").plotItem.getAxis("bottom")._tickLevels[0]
    positions = sorted(p for p, _label in ticks)
    assert all(b - a >= 0.17 - 1e-9 for a, b in zip(positions, positions[1:])), ticks
    assert "200" in [label for _p, label in ticks]  # the plan's own n is marked


# --- item 14 --------------------------------------------------------------------------------------

def test_charts_and_tables_read_display_names(qtbot, window, tmp_path):
    open_file(qtbot, window, _two_runs(tmp_path))
    window.view_actions["ranking"].trigger()
    panel = window.panels["ranking"]
    wait_result(qtbot, panel)
    names = panel.chart("RankingCurveChart").legend_names()
    assert any(n.endswith("nDCG@k") for n in names) and any(n.endswith("R@k") for n in names)
    assert not any(re.search(r"\b(ndcg|r|p|hit)@k\b", n) for n in names)
    view = panel.result_table("systems_compared")
    from PySide6.QtCore import Qt

    headers = [str(view.model().headerData(c, Qt.Orientation.Horizontal)) for c in range(view.model().columnCount())]
    assert "BCa 95% CI low" in headers and "Paired t 95% CI low" in headers
    assert "Bootstrap 95% CI low" in headers
    assert not any(h in ("Bca low", "T ci low") for h in headers)


def test_the_report_tables_read_display_names(tmp_path, examples):
    import openpyxl

    from workbench.cli.main import main as cli

    out = tmp_path / "text.xlsx"
    assert cli(["text", str(examples / "text_extraction.csv"), "--xlsx", str(out)]) == 0
    wb = openpyxl.load_workbook(out)
    cells = {str(c.value) for ws in wb.worksheets for row in ws.iter_rows() for c in row if c.value is not None}
    assert "Token F1" in cells and "ROUGE-1 F" in cells
    assert "token_f1" not in cells and "rouge1" not in cells or any(
        "(token_f1)" in c for c in cells)  # the id only beside its name, in the legend


# --- Polish (number formats) ----------------------------------------------------------------------

def test_seed_limit_and_margin_read_as_people_write_them(qtbot, window):
    compare = open_example(qtbot, window, "paired_14_to_5.csv")
    wait_result(qtbot, compare)
    assert compare.control("seed").text() == "12345"
    assert compare.control("margin").text() == "none"
    cost = open_example(qtbot, window, "cost_latency.csv")
    wait_result(qtbot, cost)
    assert cost.control("latency_threshold").text() == "none"


def test_segment_bars_carry_their_intervals_and_micro_macro_keep_the_version_colour(qtbot, window):
    panel = open_example(qtbot, window, "simpson.csv")
    wait_result(qtbot, panel)
    bars = panel.chart("SegmentBarChart")
    assert any(type(i).__name__ == "ErrorBarItem" for i in bars.plotItem.items)
    assert "Wilson 95% interval" in bars.legend_names() and len(bars.legend_names()) >= 3
    groups = panel.chart("GroupRateChart")
    from workbench.ui.charts.base import system_colour

    scatters = [i for i in groups.plotItem.items if type(i).__name__ == "ScatterPlotItem"]
    for version in ("old", "new"):
        want = system_colour(version).name()
        shapes = {s.opts["symbol"] for s in scatters if s.opts["brush"].color().name() == want}
        assert {"d", "s"} <= shapes, (version, shapes)  # its micro and macro in its colour


def test_ranking_curves_use_four_distinct_colours(qtbot, window):
    panel = open_example(qtbot, window, "ranking_seed.csv")
    wait_result(qtbot, panel)
    chart = panel.chart("RankingCurveChart")
    colours = {}
    for item in chart.plotItem.items:
        if type(item).__name__ == "PlotDataItem" and item.name():
            colours[item.name()] = item.opts["pen"].color()
    assert set(colours) == {"nDCG@k", "R@k", "P@k", "Hit@k"}
    r, hit = colours["R@k"], colours["Hit@k"]
    assert abs(r.hue() - hit.hue()) > 60  # no longer two oranges


def test_example_blurbs_promise_the_headline_the_panel_leads_with(qtbot, window):
    """The first number of every example's blurb on the start page is in the answer its panel
    leads with (the blurbs promised pass@1 0.30 while the card led with pass@10, nDCG@3 0.92
    while it led with nDCG@10 0.684...)."""
    from workbench.ui.examples import EXAMPLE_SESSIONS, EXAMPLES

    number = re.compile(r"[+-]?\d[\d,]*\.\d+%?|[+-]?\d+\.\d+")
    for example in (*EXAMPLES, *EXAMPLE_SESSIONS):
        with qtbot.waitSignal(window.table_loaded, timeout=30000):
            window.open_example(example)
        panel = window.panels.get(example.panel) or window.rule_panel
        if example.panel != "rule":
            wait_result(qtbot, panel)
        qtbot.waitUntil(lambda: bool(_answer_card(panel).sentences), timeout=30000)
        first = number.search(example.description).group(0)
        assert first in _card(panel), (example.file, first, _card(panel))


def test_the_rule_card_shows_observed_value_and_interval_at_1280(qtbot, window):
    """The release rule's decision table at 1280x800: the condition's words wrap, so its
    observed value and its interval (with the interval's method) are on screen."""
    from PySide6.QtCore import Qt

    from workbench.ui.examples import EXAMPLE_SESSIONS

    _sized(qtbot, window, (1280, 800))
    session = next(e for e in EXAMPLE_SESSIONS if e.panel == "rule")
    with qtbot.waitSignal(window.table_loaded, timeout=30000):
        window.open_example(session)
    rule = window.rule_panel
    qtbot.waitUntil(lambda: rule.card.model().rowCount() > 0, timeout=30000)
    qtbot.wait(100)
    view = rule.card
    headers = [str(view.model().headerData(c, Qt.Orientation.Horizontal)) for c in range(view.model().columnCount())]
    col = headers.index("95% interval")
    assert view.columnViewportPosition(col) + view.columnWidth(col) <= view.viewport().width()
    assert str(view.model().data(view.model().index(0, col))).endswith("(bootstrap)")
    assert _fits(view, 0, headers.index("Condition"))


def test_planning_percent_boxes_restore_a_saved_sessions_fractions(qtbot, window):
    """A session stores Planning's options as the analysis takes them (fractions); reopened, the
    boxes show them in percent and points again."""
    from workbench.analyses import plan

    window.view_actions["plan"].trigger()
    panel = window.panels["plan"]
    wait_result(qtbot, panel)
    panel.set_options(plan.Options(rate=0.9, n=300, discordance=0.2, target_difference=0.05,
                                   pass_at_k=0.8, k=5))
    assert panel.control("rate_pct").value() == pytest.approx(90.0)
    assert panel.control("discordance_pct").value() == pytest.approx(20.0)
    assert panel.control("target_difference_pts").value() == pytest.approx(5.0)
    opts = panel.options()
    assert (opts.rate, opts.discordance, opts.target_difference) == pytest.approx((0.9, 0.2, 0.05))


@pytest.mark.parametrize("file_name", ["paired_14_to_5.csv", "simpson.csv", "cost_latency.csv",
                                       "passk_counts.csv", "text_extraction.csv", "claims.csv"])
def test_every_option_combo_is_whole_at_1920(qtbot, window, file_name):
    """Item 12: the options column had a fixed width, so combos were cut at every size."""
    from PySide6.QtWidgets import QComboBox

    _sized(qtbot, window, (1920, 1080))
    panel = open_example(qtbot, window, file_name)
    wait_result(qtbot, panel)
    qtbot.wait(100)
    for name, ctl in panel._controls.items():
        combo = ctl.widget
        if isinstance(combo, QComboBox) and combo.isVisible():
            text = combo.currentText()
            assert combo.fontMetrics().horizontalAdvance(text) <= combo.width() - 34, (name, text)
