"""Charts: what they plot equals the result tables; exports are valid files; axes and tooltips."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import open_example, wait_result

pytestmark = pytest.mark.gui


def _shown(panel, name):
    chart = panel.chart(name)
    assert panel.tabs.isTabVisible(panel.tabs.indexOf(chart)), f"{name} is hidden"
    return chart


def test_compare_interval_and_bootstrap_charts_equal_the_tables(qtbot, window):
    panel = open_example(qtbot, window, "paired_14_to_5.csv")
    result = wait_result(qtbot, panel)
    intervals = result.table("intervals").frame
    plotted = _shown(panel, "CompareIntervalChart").plotted()["intervals"]
    np.testing.assert_allclose(plotted["est"], intervals["diff"])
    np.testing.assert_allclose(plotted["low"], intervals["ci_low"])
    np.testing.assert_allclose(plotted["high"], intervals["ci_high"])
    assert list(plotted["n"]) == [200] * len(intervals) and len(intervals) == 3  # normal, Tango, bootstrap
    hist = result.table("bootstrap").frame
    drawn = _shown(panel, "BootstrapChart").plotted()
    # every populated bin holds one possible difference k/200: the same counts, on the lattice
    assert drawn["histogram"]["lattice"] is True
    counts = hist["resamples"].to_numpy()
    np.testing.assert_array_equal(drawn["histogram"]["resamples"][drawn["histogram"]["resamples"] > 0],
                                  counts[counts > 0])
    assert drawn["interval"]["low"] == pytest.approx(result.find("bootstrap_ci")[0]["ci_low"])
    tip = panel.chart("CompareIntervalChart").tooltip_at(intervals["diff"].iloc[0], 1.0)
    assert "n = 200" in tip and "pts" in tip


def test_bootstrap_bars_sit_on_the_lattice_of_possible_differences(qtbot, window):
    panel = open_example(qtbot, window, "paired_14_to_5.csv")
    wait_result(qtbot, panel)
    with qtbot.waitSignal(panel.result_ready, timeout=30000) as blocker:
        window.roles_table.set_role("conversation", "ignore")  # resample items: n stays 200
    result = blocker.args[0]
    assert "bs-unit:items" in result.signature
    hist = result.table("bootstrap").frame
    drawn = _shown(panel, "BootstrapChart").plotted()
    # on the lattice k/200: the same counts, no empty bar between populated ones
    assert drawn["histogram"]["lattice"] is True
    counts = hist["resamples"].to_numpy()
    np.testing.assert_array_equal(drawn["histogram"]["resamples"][drawn["histogram"]["resamples"] > 0],
                                  counts[counts > 0])
    x = drawn["histogram"]["difference"]
    np.testing.assert_allclose(np.diff(x), 1 / 200)
    populated = np.flatnonzero(drawn["histogram"]["resamples"] > 0)
    assert (drawn["histogram"]["resamples"][populated[0]:populated[-1] + 1] > 0).all()
    np.testing.assert_allclose(x * 200, np.round(x * 200), atol=1e-9)
    assert drawn["interval"]["low"] == pytest.approx(result.find("bootstrap_ci")[0]["ci_low"])


def test_margin_band_is_drawn_from_the_panel_setting(qtbot, window):
    import pyqtgraph as pg

    panel = open_example(qtbot, window, "paired_14_to_5.csv")
    wait_result(qtbot, panel)
    with qtbot.waitSignal(panel.result_ready, timeout=30000):
        panel.control("margin").setValue(1.0)
    chart = panel.chart("CompareIntervalChart")
    bands = [i for i in chart.plotItem.items if isinstance(i, pg.LinearRegionItem)]
    assert len(bands) == 1 and bands[0].getRegion() == pytest.approx((-0.01, 0.01))


def test_cost_charts_equal_the_tables_and_grey_the_dominated(qtbot, window):
    panel = open_example(qtbot, window, "cost_latency.csv")
    result = wait_result(qtbot, panel)
    systems = result.table("systems").frame
    drawn = _shown(panel, "CostPerSuccessChart").plotted()["systems"]
    np.testing.assert_allclose(drawn["cost_per_request"], systems["cost_per_request"])
    np.testing.assert_allclose(drawn["success_rate"], systems["success_rate"])
    assert list(drawn["dominated"]) == [False, False, True]
    rates = _shown(panel, "SystemRateChart").plotted()["intervals"]
    np.testing.assert_allclose(rates["low"], systems["ci_low"])
    latency = _shown(panel, "LatencyChart").plotted()
    ecdf = result.table("latency_ecdf").frame
    a = ecdf[ecdf["system"] == "A"]
    np.testing.assert_allclose(latency["A"]["latency"], a["latency"])
    np.testing.assert_allclose(latency["A percentiles"]["latency"],
                               systems.loc[systems["system"] == "A", ["latency_p50", "latency_p95",
                                                                       "latency_p99"]].to_numpy()[0])


def test_passk_curves_equal_the_curve_table(qtbot, window):
    panel = open_example(qtbot, window, "passk_counts.csv")
    result = wait_result(qtbot, panel)
    curve = result.table("curve").frame
    drawn = _shown(panel, "PassKChart").plotted()
    np.testing.assert_allclose(drawn["pass@k"]["value"], curve["pass@k"])
    np.testing.assert_allclose(drawn["naive_pass^k"]["value"], curve["naive_pass^k"])
    assert list(drawn["pass@k"]["k"]) == list(range(1, 11))
    assert drawn["pass@k"]["value"][2] == pytest.approx(1 - 35 / 120)


def test_ranking_charts_equal_the_tables(qtbot, window):
    panel = open_example(qtbot, window, "ranking_seed.csv")
    result = wait_result(qtbot, panel)
    summary = result.table("summary").frame.iloc[0]
    drawn = _shown(panel, "RankingCurveChart").plotted()
    np.testing.assert_allclose(drawn["nDCG@k"]["value"], [summary[f"ndcg@{k}"] for k in (1, 3, 5, 10)])
    spread = _shown(panel, "RankingSpreadChart").plotted()["(all)"]
    np.testing.assert_allclose(spread["value"], result.table("queries").frame["ndcg@10"])


def test_segment_bars_show_simpson(qtbot, window):
    panel = open_example(qtbot, window, "simpson.csv")
    result = wait_result(qtbot, panel)
    drawn = _shown(panel, "SegmentBarChart").plotted()
    # segments, then micro and macro side by side
    np.testing.assert_allclose(drawn["new"]["rate"], [0.9, 0.1875, 0.33, (0.9 + 0.1875) / 2])
    np.testing.assert_allclose(drawn["old"]["rate"], [0.8, 0.1, 0.66, (0.8 + 0.1) / 2])
    assert list(drawn["new"]["items"]) == [40, 160, 200, 2]
    assert list(drawn["new"]["label"][-2:]) == ["overall (micro)", "overall (macro)"]
    groups = _shown(panel, "GroupRateChart").plotted()["intervals"]
    frame = result.table("groups").frame
    assert set(np.round(groups["est"], 6)) >= set(np.round(frame["rate"], 6))


def test_rate_axes_read_in_percent(qtbot, window):
    panel = open_example(qtbot, window, "simpson.csv")
    wait_result(qtbot, panel)
    axis = panel.chart("SegmentBarChart").plotItem.getAxis("left")
    assert axis.tickStrings([0.0, 0.25, 0.5], 1.0, 0.25) == ["0%", "25%", "50%"]
    assert not axis.autoSIPrefix


def test_exports_are_valid_png_and_svg(qtbot, window, tmp_path):
    from PySide6.QtGui import QGuiApplication, QImage

    panel = open_example(qtbot, window, "cost_latency.csv")
    wait_result(qtbot, panel)
    chart = panel.chart("CostPerSuccessChart")
    chart.resize(800, 500)
    png, svg = tmp_path / "c.png", tmp_path / "c.svg"
    chart.export_png(str(png))
    image = QImage(str(png))
    assert not image.isNull() and image.width() == 1600 and image.height() == 1000
    colours = {image.pixel(x, y) for x in range(0, 1600, 37) for y in range(0, 1000, 37)}
    assert len(colours) > 3  # something was drawn, not a blank canvas
    chart.export_svg(str(svg))
    text = svg.read_text(encoding="utf-8")
    assert text.lstrip().startswith("<?xml") and "<svg" in text and len(text) > 2000
    import xml.dom.minidom

    xml.dom.minidom.parseString(text)  # well-formed
    chart.copy_image()
    assert not QGuiApplication.clipboard().image().isNull()


def test_charts_update_in_place(qtbot, window):
    panel = open_example(qtbot, window, "ranking_graded.csv")
    wait_result(qtbot, panel)
    chart = panel.chart("RankingCurveChart")
    before = chart.plotted()["nDCG@k"]["value"].copy()
    gain = panel.control("gain")
    with qtbot.waitSignal(panel.result_ready, timeout=30000):
        gain.setCurrentIndex(gain.findData("exponential"))
    assert panel.chart("RankingCurveChart") is chart
    after = chart.plotted()["nDCG@k"]["value"]
    assert after[-1] == pytest.approx(0.834, abs=1e-3) and before[-1] == pytest.approx(0.913, abs=1e-3)



def _legend_outside(chart):
    """The legend's box does not overlap the data area."""
    legend = chart.legend.sceneBoundingRect()
    data = chart.plotItem.vb.sceneBoundingRect()
    return not legend.intersects(data)


@pytest.mark.parametrize("file_name, chart_names", [
    ("paired_14_to_5.csv", ["CompareIntervalChart", "BootstrapChart"]),
    ("cost_latency.csv", ["CostPerSuccessChart", "SystemRateChart", "LatencyChart"]),
    ("simpson.csv", ["SegmentBarChart", "GroupRateChart"]),
    ("ranking_graded.csv", ["RankingCurveChart", "RankingSpreadChart"]),
    ("passk_counts.csv", ["PassKChart"]),
    ("repeats_epochs.csv", ["RepeatsPassKChart"]),
    ("text_extraction.csv", ["TextScoreChart"]),
])
def test_legends_sit_outside_the_data(qtbot, window, file_name, chart_names):
    panel = open_example(qtbot, window, file_name)
    wait_result(qtbot, panel)
    for name in chart_names:
        chart = _shown(panel, name)
        panel.tabs.setCurrentWidget(chart)
        qtbot.wait(30)
        assert chart.legend_names(), name
        assert _legend_outside(chart), name


def test_extra_lines_are_in_the_legend(qtbot, window):
    panel = open_example(qtbot, window, "paired_14_to_5.csv")
    wait_result(qtbot, panel)
    names = _shown(panel, "BootstrapChart").legend_names()
    assert any(n.startswith("95% interval") for n in names) and any(n.startswith("observed") for n in names)
    assert "no difference" in names
    panel = open_example(qtbot, window, "ranking_graded.csv")
    wait_result(qtbot, panel)
    assert {"median", "quartiles"} <= set(_shown(panel, "RankingSpreadChart").legend_names())


def test_points_axis_reads_points(qtbot, window):
    from workbench.ui.charts.base import PointsAxis

    panel = open_example(qtbot, window, "paired_14_to_5.csv")
    wait_result(qtbot, panel)
    axis = _shown(panel, "CompareIntervalChart").plotItem.getAxis("bottom")
    assert isinstance(axis, PointsAxis)
    assert axis.tickStrings([-0.02, 0.0, 0.04], 1, 0.02) == ["-2", "0", "+4"]
    assert "points" in axis.labelText


def test_one_colour_per_system_across_charts(qtbot, window):
    panel = open_example(qtbot, window, "cost_latency.csv")
    wait_result(qtbot, panel)
    from workbench.ui.charts.base import system_colour

    systems = list(panel.last_result.table("systems").frame["system"].astype(str))
    latency = _shown(panel, "LatencyChart")
    curves = {item.name(): item.opts["pen"].color().name() for item in latency.plotItem.listDataItems()
              if item.name()}
    for name in systems:
        assert curves[name] == system_colour(name).name()
    rates = _shown(panel, "SystemRateChart")
    scatter = [i for i in rates.plotItem.items if type(i).__name__ == "ScatterPlotItem"]
    brushes = [s.opts["brush"].color().name() for s in scatter]
    assert brushes == [system_colour(n).name() for n in systems]


def test_text_and_planning_have_charts(qtbot, window):
    panel = open_example(qtbot, window, "text_extraction.csv")
    result = wait_result(qtbot, panel)
    chart = _shown(panel, "TextScoreChart")
    drawn = chart.plotted()
    items = result.table("items").frame
    np.testing.assert_allclose(drawn["all items"]["value"], items["token_f1"])
    # the mouse over an item's dot names that item (texts are made for the point shown only)
    from PySide6.QtCore import QPointF
    from PySide6.QtWidgets import QToolTip

    chart.resize(600, 400)
    chart.plotItem.vb.setRange(xRange=(-0.6, 0.4), yRange=(-0.02, 1.02), padding=0)
    x, y, rows, _texts = chart._hover[0]
    j = int(np.argmax(y))
    scene = chart.plotItem.vb.mapViewToScene(QPointF(float(x[j]), float(y[j])))
    chart._on_mouse_moved(scene)
    item = items.iloc[int(rows[j])]
    shown = QToolTip.text() or chart.tooltip_at(float(x[j]), float(y[j]))
    assert str(item["item"]) in shown and "token F1" in shown
    plan = window.panels["plan"]
    window.show_panel("plan")
    result = wait_result(qtbot, plan)
    drawn = _shown(plan, "PlanMdeChart").plotted()
    np.testing.assert_allclose(drawn["mde"]["mde"], result.table("mde").frame["mde"])
    assert drawn["current"]["items"][0] == plan.control("n").value()
    assert drawn["current"]["mde"][0] == pytest.approx(result.value("mde"))


def test_bootstrap_chart_draws_the_lattice_bars_or_the_bins_of_the_table(qtbot):
    import pandas as pd

    from workbench.core.result import AnalysisResult, Table
    from workbench.ui.charts.others import BootstrapChart

    def drawn(frame):
        chart = BootstrapChart()
        qtbot.addWidget(chart)
        chart.draw(AnalysisResult("compare", "sig", (), (Table("bootstrap", "b", frame),), (), None))
        import pyqtgraph as pg

        bars = [i for i in chart.plotItem.items if isinstance(i, pg.BarGraphItem)]
        return chart.plotted()["histogram"], np.asarray(bars[0].opts["width"])

    # merged lattice bars (3 steps of 1/200 each): drawn at the difference, as wide as the bar
    lattice = pd.DataFrame({"difference": [-0.015, 0.0, 0.015], "resamples": [2, 9, 4],
                            "bin_low": [-0.0225, -0.0075, 0.0075], "bin_high": [-0.0075, 0.0075, 0.0225]})
    hist, width = drawn(lattice)
    assert hist["lattice"] is True
    np.testing.assert_allclose(width, 0.015 * 0.9)
    np.testing.assert_allclose(hist["difference"], [-0.015, 0.0, 0.015])
    np.testing.assert_array_equal(hist["resamples"], [2, 9, 4])
    bins = pd.DataFrame({"bin_low": [0.0, 0.012], "bin_high": [0.012, 0.024], "resamples": [5, 7]})
    hist, _ = drawn(bins)
    assert hist["lattice"] is False
    np.testing.assert_allclose(hist["bin_low"], [0.0, 0.012])
    np.testing.assert_array_equal(hist["resamples"], [5, 7])

def test_a_text_chart_of_many_items_draws_a_labelled_sample(qtbot):
    """Above 5,000 items per system the strip shows a random 5,000 dots (the legend says so);
    the quartiles and the recorded values are every item's, and a dot's tooltip names its
    own item."""
    import pandas as pd

    from workbench.analyses import text as text_analysis
    from workbench.io import load_table
    from workbench.ui.charts.others import TextScoreChart

    rng = np.random.default_rng(3)
    n = 12_000
    words = np.array("a b c d e f g".split(), dtype=object)
    refs = [" ".join(words[rng.integers(0, 7, 4)]) for _ in range(n)]
    preds = [r if rng.random() < 0.5 else " ".join(words[rng.integers(0, 7, 4)]) for r in refs]
    import tempfile
    from pathlib import Path

    path = Path(tempfile.mkdtemp()) / "many.csv"
    pd.DataFrame({"id": [f"q{i}" for i in range(n)], "prediction": preds, "reference": refs}).to_csv(path, index=False)
    result = text_analysis.run(load_table(path), text_analysis.Options(prediction="prediction", reference="reference",
                                                                       id="id"))
    items = result.table("items").frame
    chart = TextScoreChart()
    qtbot.addWidget(chart)
    chart.update_from(result)
    dots = [i for i in chart.plotItem.items if type(i).__name__ == "ScatterPlotItem" and len(i.data) > 1]
    assert len(dots) == 1 and len(dots[0].data) == 5_000  # (the other scatter: the mean's diamond)
    assert any("5,000 of 12,000 at random" in name for name in chart.legend_names())
    # the longer text: at most two entries a row, as many as the chart's width holds
    assert chart.legend_max_cols == 2 and chart.legend.columnCount <= 2
    chart.resize(1400, 520)
    chart.fit_legend()  # (a hidden widget gets no resize event)
    assert chart.legend.columnCount == 2
    np.testing.assert_allclose(chart.plotted()["all items"]["value"], items["token_f1"])
    x, y, rows, texts = chart._hover[0]
    j = int(np.argmax(y))
    text = texts(int(rows[j]))
    shown_item = text.split(" · ")[1].split(":")[0]
    row = items[items["item"].astype(str) == shown_item].iloc[0]
    assert row["token_f1"] == y[j] and "token F1" in text


def test_the_effort_frontier_plots_steps_per_request_and_per_success(qtbot, window):
    """Two Inspect agent logs: the frontier with steps on its x axis equals the effort table,
    whose numbers the fixture's expected CSV gives (steps per request and per success)."""
    import os

    import pandas as pd

    from conftest import open_file

    folder = os.path.join(os.path.dirname(__file__), "..", "fixtures", "formats", "inspect_agent")
    open_file(qtbot, window, os.path.join(folder, "agent_alpha.eval"))
    window.dirty = False
    from PySide6.QtWidgets import QFileDialog

    paths = [os.path.abspath(os.path.join(folder, f"agent_{n}.eval")) for n in ("alpha", "beta")]
    QFileDialog.getOpenFileNames = staticmethod(lambda *a, **k: (paths, ""))
    with qtbot.waitSignal(window.table_loaded, timeout=60000):
        window.open_action.trigger()
    panel = window.panels["cost"]
    wait_result(qtbot, panel)
    drawn = _shown(panel, "EffortPerSuccessChart").plotted()["systems"]
    expected = pd.read_csv(os.path.join(folder, "agent_expected.csv"))
    by_model = expected.groupby("model")
    for name, x in zip(drawn["system"], drawn["per_request"]):
        assert x == pytest.approx(by_model.get_group(name)["steps"].mean())


def test_a_measure_in_its_own_unit_is_charted_as_means_not_rates(qtbot, window):
    """An MTEB STS task (correlations, some below 0): the means per split on a plain axis, equal
    to the groups table; no percent bar chart of 'rates'."""
    import os

    from conftest import open_file
    from workbench.ui.charts.base import PlainAxis

    path = os.path.join(os.path.dirname(__file__), "..", "fixtures", "formats", "mteb", "results",
                        "fixture46__hashed-bow", "r46", "Fixture46STS.json")
    open_file(qtbot, window, path)
    panel = window.panels["aggregate"]
    result = wait_result(qtbot, panel)
    assert window.current_panel_name() == "aggregate" and "outcome:measure" in result.signature
    chart = _shown(panel, "GroupMeanChart")
    drawn = chart.plotted()["intervals"]
    frame = result.table("groups").frame
    assert set(np.round(frame["rate"], 9)) <= set(np.round(drawn["est"], 9)) and (frame["ci_low"] < 0).any()
    assert isinstance(chart.plotItem.getAxis("bottom"), PlainAxis)
    assert panel.control("measure").isChecked()  # 'Own unit' shows what the reading decided
    for name in ("SegmentBarChart", "GroupRateChart"):
        other = panel.chart(name)
        assert not panel.tabs.isTabVisible(panel.tabs.indexOf(other)), name
