"""Runs and Repeats: the item grid's filters and heat map, the tie-group chart, the strip of
items that flip and the noise split equal the result tables (and counts taken from the example
files with pandas); clicks select the items' rows in the data table."""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
import pytest
from PySide6.QtCore import Qt

from conftest import EXAMPLES, open_example, open_file, wait_result

pytestmark = pytest.mark.gui


def _data_rows(window):
    model = window.data.model
    return model.frame.iloc[[model.source_row(r) for r in range(model.rowCount())]]


def _choose(combo, data=None, text=None):
    combo.setCurrentIndex(combo.findData(data) if data is not None else combo.findText(text))


def _nightly():
    raw = pd.read_csv(EXAMPLES / "runs_nightly.csv")
    return raw, raw.pivot(index="question", columns="run", values="correct")


def test_runs_heat_map_and_tie_groups_equal_the_tables(qtbot, window):
    panel = open_example(qtbot, window, "runs_nightly.csv")
    result = wait_result(qtbot, panel)
    grid = result.table("grid").frame
    runs = result.table("runs").frame
    assert panel.tabs.isTabVisible(panel.tabs.indexOf(panel.grid_view))
    cells = panel.grid_view.heatmap.plotted()["cells"]
    np.testing.assert_array_equal(cells["values"], grid[list(runs["run"])].to_numpy(dtype=float))
    raw, pivot = _nightly()
    assert np.isnan(cells["values"]).sum() == pivot.isna().to_numpy().sum()
    # hover on the top row: its item and its value in each run (runs named without their shared prefix)
    heat = panel.grid_view.heatmap
    top = heat.tooltip_row(len(grid) - 1)
    first = grid.iloc[0]
    assert top.startswith(f"item {first['item']}:")
    assert top.count(":") == 1 + len(runs)
    assert all(f"{run[-2:]}: {'–' if np.isnan(first[run]) else int(first[run])}" in top for run in runs["run"])
    chart = panel.chart("RunGroupsChart")
    assert panel.tabs.isTabVisible(panel.tabs.indexOf(chart))
    drawn = chart.plotted()["intervals"]
    by_run = runs.set_index("run")
    for label, est, groups in zip(drawn["label"], drawn["est"], drawn["groups"]):
        assert est == pytest.approx(by_run.loc[label, "value"])
        assert est == pytest.approx(pivot[label].mean())
        assert groups == by_run.loc[label, "groups"]
    assert list(drawn["est"]) == sorted(drawn["est"], reverse=True)  # best first


def test_runs_grid_filters_count_what_pandas_counts(qtbot, window):
    panel = open_example(qtbot, window, "runs_nightly.csv")
    wait_result(qtbot, panel)
    view = panel.grid_view
    raw, pivot = _nightly()
    first, last = pivot.columns[0], pivot.columns[-1]
    _choose(view.filter, "a_not_b")
    _choose(view.run_a, text=first)
    _choose(view.run_b, text=last)
    want = set(pivot.index[(pivot[first] == 1) & (pivot[last] == 0)])
    assert set(view.table.frame_model().frame["item"]) == want
    assert view.count.text() == f"{len(want)} of {len(pivot)}"
    assert len(view.heatmap.plotted()["cells"]["item"]) == len(want)
    _choose(view.filter, "wrong_everywhere")
    wrong = pivot.fillna(0).eq(0).all(axis=1)
    assert set(view.table.frame_model().frame["item"]) == set(pivot.index[wrong])
    _choose(view.filter, "missing")
    assert set(view.table.frame_model().frame["item"]) == set(pivot.index[pivot.isna().any(axis=1)])
    _choose(view.filter, "changed")
    values = pivot.to_numpy()
    changed = np.zeros(len(pivot), dtype=bool)
    for j in range(1, values.shape[1]):
        a, b = values[:, j - 1], values[:, j]
        changed |= np.isfinite(a) & np.isfinite(b) & (a != b)
    assert set(view.table.frame_model().frame["item"]) == set(pivot.index[changed])
    assert not view.run_a.isEnabled()


def test_a_click_on_the_grid_or_the_heat_map_selects_the_items_rows(qtbot, window):
    panel = open_example(qtbot, window, "runs_nightly.csv")
    wait_result(qtbot, panel)
    view = panel.grid_view
    raw, pivot = _nightly()
    panel.tabs.setCurrentWidget(view)
    _choose(view.filter, "missing")
    model = view.table.frame_model()
    item = model.frame["item"].iloc[model.source_row(0)]
    rect = view.table.visualRect(model.index(0, 1))
    qtbot.mouseClick(view.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert window.tabs.currentWidget() is window.data
    shown = _data_rows(window)
    assert set(shown["question"]) == {item}
    assert len(shown) == int((raw["question"] == item).sum()) == pivot.loc[item].notna().sum()
    window.data.show_all.click()
    window.tabs.setCurrentWidget(panel)
    panel.tabs.setCurrentWidget(view)
    heat = view.heatmap
    qtbot.waitUntil(lambda: heat.width() > 50)
    target = heat.plotted()["cells"]["item"][2]
    qtbot.mouseClick(heat.viewport(), Qt.MouseButton.LeftButton, pos=heat.row_position(2))
    assert window.tabs.currentWidget() is window.data
    assert set(_data_rows(window)["question"]) == {target}


def test_ten_runs_of_two_thousand_items_stay_responsive(qtbot, window, tmp_path):
    rng = np.random.default_rng(7)
    rows = [(f"run{r:02d}", f"i{i:05d}", int(rng.random() < 0.5 + 0.02 * r))
            for r in range(10) for i in range(2000)]
    path = tmp_path / "ten_runs.csv"
    pd.DataFrame(rows, columns=["run", "item", "correct"]).to_csv(path, index=False)
    panel = window.panels["runs"]
    panel.control("rounds").setValue(1000)
    panel.control("resamples").setValue(1000)
    open_file(qtbot, window, path)
    window.view_actions["runs"].trigger()
    result = wait_result(qtbot, panel, timeout=120000)
    view = panel.grid_view
    assert view.heatmap.plotted()["cells"]["values"].shape == (2000, 10)
    started = time.perf_counter()
    for key in ("a_not_b", "wrong_everywhere", "changed", "missing", "all"):
        _choose(view.filter, key)
    assert time.perf_counter() - started < 2.0
    assert view.table.frame_model().rowCount() == 2000
    assert len(result.table("runs").frame) == 10


def test_items_that_flip_and_the_noise_split(qtbot, window):
    panel = open_example(qtbot, window, "repeats_epochs.csv")
    result = wait_result(qtbot, panel)
    raw = pd.read_csv(EXAMPLES / "repeats_epochs.csv")
    per = raw.groupby(["model", "sample_id"])["correct"].agg(["min", "max", "mean", "size"])
    chart = panel.chart("ItemShareChart")
    assert panel.tabs.isTabVisible(panel.tabs.indexOf(chart))
    for system in ("model-a", "model-b"):
        drawn = chart.plotted()[f"items:{system}"]
        mine = per.loc[system]
        assert drawn["flips"].sum() == int((mine["min"] < mine["max"]).sum())
        np.testing.assert_allclose(drawn["share"], mine.loc[list(drawn["item"]), "mean"])
        first_steady = int(np.argmin(drawn["flips"]))
        assert drawn["flips"][:first_steady].all() and not drawn["flips"][first_steady:].any()
    split = result.table("split").frame
    drawn = panel.chart("NoiseSplitChart").plotted()["split"]
    np.testing.assert_allclose(drawn["var_data"][:2], split["var_data"])
    np.testing.assert_allclose(drawn["var_within"][:2], split["var_within"])
    np.testing.assert_allclose(drawn["var_data"][2:], result.table("paired").frame["var_data"])


def test_clicks_select_the_tries_of_the_items_that_flip(qtbot, window):
    panel = open_example(qtbot, window, "repeats_epochs.csv")
    wait_result(qtbot, panel)
    raw = pd.read_csv(EXAMPLES / "repeats_epochs.csv")
    per = raw.groupby(["model", "sample_id"])["correct"].agg(["min", "max"])
    flipping = per[per["min"] < per["max"]]
    assert panel.show_flipping.isEnabled()
    panel.show_flipping.click()
    assert window.tabs.currentWidget() is window.data
    shown = _data_rows(window)
    assert set(zip(shown["model"], shown["sample_id"])) == set(flipping.index)
    assert len(shown) == raw.set_index(["model", "sample_id"]).index.isin(flipping.index).sum()
    window.data.show_all.click()
    # a point of the strip: that item's tries of that model
    window.tabs.setCurrentWidget(panel)
    chart = panel.chart("ItemShareChart")
    panel.tabs.setCurrentWidget(chart)
    qtbot.waitUntil(lambda: chart.width() > 100)
    drawn = chart.plotted()["items:model-b"]
    x, y, item = float(drawn["x"][0]), float(drawn["share"][0]), drawn["item"][0]
    pos = chart.mapFromScene(chart.plotItem.vb.mapViewToScene(__import__("pyqtgraph").Point(x, y)))
    qtbot.mouseClick(chart.viewport(), Qt.MouseButton.LeftButton, pos=pos)
    assert window.tabs.currentWidget() is window.data
    shown = _data_rows(window)
    assert set(zip(shown["model"], shown["sample_id"])) == {("model-b", item)}
    assert len(shown) == 5


def test_scores_where_lower_is_better(qtbot, window, tmp_path):
    rng = np.random.default_rng(3)
    frame = pd.DataFrame([(f"r{j}", f"i{i:03d}", round(float(rng.random()), 3)) for j in range(3) for i in range(60)],
                         columns=["run", "item", "score"])
    path = tmp_path / "latency_runs.csv"
    frame.to_csv(path, index=False)
    panel = window.panels["runs"]
    open_file(qtbot, window, path)
    window.view_actions["runs"].trigger()
    wait_result(qtbot, panel, timeout=60000)
    with qtbot.waitSignal(panel.result_ready, timeout=60000):
        _choose(panel.control("better"), "lower")
    view = panel.grid_view
    assert not view.filter.model().item(view.filter.findData("wrong_everywhere")).isEnabled()
    _choose(view.filter, "a_not_b")
    assert view.filter.currentText() == "better in A than in B"
    _choose(view.run_a, text="r0")
    _choose(view.run_b, text="r2")
    pivot = frame.pivot(index="item", columns="run", values="score")
    assert set(view.table.frame_model().frame["item"]) == set(pivot.index[pivot["r0"] < pivot["r2"]])
    chart = panel.chart("RunGroupsChart")
    assert chart.plotItem.getAxis("bottom").percent is False
    drawn = chart.plotted()["intervals"]
    assert list(drawn["est"]) == sorted(drawn["est"])  # lower is better: best (lowest) first
    np.testing.assert_allclose(sorted(drawn["est"]), sorted(pivot.mean()))


def test_seed_spread_passk_and_items_or_repeats_on_the_panel(qtbot, window):
    """The seeds and pass@k tables shown on the panel equal pandas' counts of the example; the
    card says whether more items or more repeats narrow the difference's interval more."""
    from math import comb

    panel = open_example(qtbot, window, "repeats_epochs.csv")
    result = wait_result(qtbot, panel)
    raw = pd.read_csv(EXAMPLES / "repeats_epochs.csv")
    runs = raw.groupby(["model", "epoch"])["correct"].mean()
    seeds = panel.result_table("seeds").frame_model().frame
    assert len(seeds) == 2
    for system in ("model-a", "model-b"):
        row = seeds[seeds["system"] == system].iloc[0]
        assert row["seed_sd"] == pytest.approx(runs.loc[system].std(ddof=1))
        assert (row["seed_min"], row["seed_max"]) == pytest.approx((runs.loc[system].min(), runs.loc[system].max()))
    curve = panel.result_table("passk").frame_model().frame
    counts = raw.groupby(["model", "sample_id"])["correct"].agg(["size", "sum"])
    k_min = int(counts["size"].min())
    assert len(curve) == 2 * k_min
    for (system, k), row in curve.set_index(["system", "k"]).iterrows():
        mine = counts.loc[system]
        expected = np.mean([1 - comb(n - c, k) / comb(n, k) for n, c in zip(mine["size"], mine["sum"])])
        assert row["pass@k"] == pytest.approx(expected)
    assert any("narrow" in s and "interval of the difference" in s for s in panel.card.sentences)
    chart = panel.chart("RepeatsPassKChart")
    assert panel.tabs.isTabVisible(panel.tabs.indexOf(chart))
    for system in ("model-a", "model-b"):
        drawn = chart.plotted()[f"{system}: pass^k"]
        mine = curve[curve["system"] == system]
        np.testing.assert_allclose(drawn["value"], mine["pass^k"])
        np.testing.assert_array_equal(drawn["items"], mine["items"])
