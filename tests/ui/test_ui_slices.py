"""The Slices panel offscreen: the example opens on it with its card, the forest plot draws the
result's table (sorted, sizes, raw and adjusted intervals, shrunken marker, overall line), a click
on a slice selects its items in the data table, 40 slices scroll, and a second column and bins
from the form reach the analysis."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import EXAMPLES, open_example, open_file, wait_result
from PySide6.QtCore import Qt

pytestmark = pytest.mark.gui


def _chart(panel):
    chart = panel.chart("ForestChart")
    assert panel.tabs.isTabVisible(panel.tabs.indexOf(chart))
    panel.tabs.setCurrentWidget(chart)
    return chart


def _data_rows(window):
    model = window.data.model
    return model.frame.iloc[[model.source_row(r) for r in range(model.rowCount())]]


def test_the_example_card_chart_and_a_click_on_hindi(qtbot, window):
    panel = open_example(qtbot, window, "slices_languages.csv")
    result = wait_result(qtbot, panel)
    assert window.tabs.currentWidget() is panel
    card = panel.card.text.text()
    assert "+4.1 pts overall" in card and "loses on language = hi: -9.0 pts" in card
    assert "FCR-adjusted normal 95% CI -15.0 to -3.1 pts" in card
    chart = _chart(panel)
    drawn = chart.plotted()["slices"]
    table = result.table("slices").frame.sort_values("diff", kind="stable")
    assert list(drawn["slice"]) == list(table["slice"])          # worst first
    np.testing.assert_allclose(drawn["est"], table["diff"])
    np.testing.assert_allclose(drawn["low"], table["ci_low"])
    np.testing.assert_allclose(drawn["fcr_low"], table["fcr_low"].astype(float))
    np.testing.assert_allclose(drawn["shrunk"], table["shrunk_diff"].astype(float))
    np.testing.assert_array_equal(drawn["n"], table["items"])
    assert drawn["overall"] == pytest.approx(0.041)
    assert drawn["label"][0] == "hi  (210)"
    assert {"95% CI", "FCR-adjusted CI", "shrunken"} <= set(chart.legend_names())
    assert "FCR-adjusted interval -15.0 to -3.1 pts" in chart.tooltip_at(drawn["est"][0], len(drawn["est"]) - 1)
    qtbot.waitUntil(lambda: chart.width() > 100)
    qtbot.mouseClick(chart.viewport(), Qt.MouseButton.LeftButton, pos=chart.row_position(0))
    assert window.tabs.currentWidget() is window.data
    shown = _data_rows(window)
    raw = pd.read_csv(EXAMPLES / "slices_languages.csv", keep_default_na=False)
    assert sorted(shown["item_id"]) == sorted(raw.loc[raw["language"] == "hi", "item_id"])


def test_forty_slices_scroll_and_the_form_reaches_the_analysis(qtbot, window, tmp_path):
    rng = np.random.default_rng(5)
    rows = []
    for k in range(40):
        n = int(rng.integers(15, 120))
        rows += [{"item_id": f"s{k}-{i}", "language": f"lang{k:02d}", "length": int(rng.integers(1, 900)),
                  "baseline": int(rng.random() < 0.6), "candidate": int(rng.random() < 0.65)} for i in range(n)]
    path = tmp_path / "forty.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    open_file(qtbot, window, path)
    panel = window.panels["slices"]
    window.tabs.show("slices")
    wait_result(qtbot, panel)
    chart = _chart(panel)
    window.resize(1280, 800)
    qtbot.waitUntil(lambda: chart.height() > 200)
    chart.fit_rows()
    shown = chart.visible_rows()
    assert shown < 40 and chart.note_text().startswith(f"{shown} of 40 slices")
    y0, y1 = chart.plotItem.vb.viewRange()[1]
    assert y1 == pytest.approx(39.5) and y1 - y0 == pytest.approx(shown)
    # the form: a second column in quantile bins
    panel.control("by2").setCurrentIndex(panel.control("by2").findData("length"))
    panel.control("bins").setValue(4)
    result = wait_result(qtbot, panel)
    assert result.table("bins").frame["by"].eq("length").all()
    assert {r.get("by") for r in result.find("q")} == {"language", "length"}
    assert "bins:4" in result.signature
