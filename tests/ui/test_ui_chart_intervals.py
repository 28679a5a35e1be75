"""Error bars on the charts whose headline has an interval (issue 28): the ranking curve, the
pass@k curve, the per-item strips of text and ranking, the latency percentiles and the Repeats
strip draw the 95% intervals of the result's headline records; a degenerate interval draws no
bar.  The intervals themselves are checked against references in test_headline_intervals.py;
here the chart must show exactly those bounds, with the means computed from the data."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from conftest import EXAMPLES, table_of
from workbench.analyses import cost, passk, ranking, repeats, text

pytestmark = pytest.mark.gui


def _chart(qtbot, cls):
    chart = cls()
    qtbot.addWidget(chart)
    return chart


def _rec(result, metric, system=None):
    found = [r for r in result.records if r["metric"] == metric
             and (system is None or r.get("system", system) == system)]
    assert len(found) == 1, (metric, system, found)
    return found[0]


def _ranking_frame(seed=4, queries=30):
    rng = np.random.default_rng(seed)
    rows = []
    for q in range(queries):
        for d in range(12):
            grade = int(rng.random() < 0.3)  # one judgment per (query, document)
            for system in ("bm25", "dense"):
                rows.append([system, f"q{q}", f"d{d}", float(rng.random()), grade])
    return pd.DataFrame(rows, columns=["system", "query", "doc", "score", "relevance"])


def test_ranking_curve_and_spread_draw_the_records_intervals(qtbot):
    from workbench.ui.charts.others import RankingCurveChart, RankingSpreadChart

    frame = _ranking_frame()
    result = ranking.run(table_of(frame), ranking.Options(system="system", ci_resamples=400))
    curve = _chart(qtbot, RankingCurveChart)
    curve.update_from(result)
    drawn = curve.plotted()
    for system in ("bm25", "dense"):
        bars = drawn[f"{system}: nDCG@k interval"]
        for k, y, lo, hi in zip(bars["x"], bars["y"], bars["ci_low"], bars["ci_high"]):
            rec = _rec(result, f"ndcg@{int(k)}", system)
            assert (y, lo, hi) == pytest.approx((rec["value"], rec["ci_low"], rec["ci_high"]))
            assert lo < y < hi
    assert "95% interval over queries (bars)" in curve.legend_names()
    # the hover of a point names its interval
    k10 = _rec(result, "ndcg@10", "bm25")
    assert "[" in curve.tooltip_at(10.0, k10["value"])

    spread = _chart(qtbot, RankingSpreadChart)
    spread.update_from(result)
    k = max(int(m.split("@")[1]) for m in {r["metric"] for r in result.records} if m.startswith("ndcg@"))
    queries = result.table("queries").frame
    for system in ("bm25", "dense"):
        mean = spread.plotted()[f"{system} mean interval"]
        counted = queries[(queries["system"] == system) & queries["counted"].astype(bool)]
        assert mean["y"][0] == pytest.approx(counted[f"ndcg@{k}"].mean())  # the mean, from the per-query table
        rec = _rec(result, f"ndcg@{k}", system)
        assert (mean["ci_low"][0], mean["ci_high"][0]) == pytest.approx((rec["ci_low"], rec["ci_high"]))


def test_passk_curve_has_bars_at_the_k_asked_for(qtbot):
    from workbench.ui.charts.others import PassKChart

    rng = np.random.default_rng(2)
    frame = pd.DataFrame({"task": [f"t{i}" for i in range(40)], "n": 10,
                          "c": rng.integers(0, 11, 40)})
    result = passk.run(table_of(frame), passk.Options(task="task", n="n", correct="c", ks=(1, 5),
                                                       ci_resamples=500))
    chart = _chart(qtbot, PassKChart)
    chart.update_from(result)
    bars = chart.plotted()["pass@k interval"]
    drawn = {int(k): (lo, hi) for k, lo, hi in zip(bars["x"], bars["ci_low"], bars["ci_high"]) if np.isfinite(lo)}
    assert set(drawn) == {1, 5}  # only at the k of the records: the curve's other points have none
    for k in (1, 5):
        rec = _rec(result, f"pass@{k}")
        assert drawn[k] == pytest.approx((rec["ci_low"], rec["ci_high"]))
    # pass@1 is the mean of c/n over tasks: the bar surrounds it
    p1 = float(np.mean(frame["c"] / 10))
    assert drawn[1][0] < p1 < drawn[1][1]


def test_a_degenerate_interval_draws_no_bar(qtbot):
    from workbench.ui.charts.others import PassKChart

    frame = pd.read_csv(EXAMPLES / "passk_counts.csv")  # one task: every resample equal
    result = passk.run(table_of(frame), passk.Options(ks=(1, 3, 5, 10)))
    assert _rec(result, "pass@1").get("degenerate") is True
    chart = _chart(qtbot, PassKChart)
    chart.update_from(result)
    bars = chart.plotted()["pass@k interval"]
    drawn = {int(k) for k, lo in zip(bars["x"], bars["ci_low"]) if np.isfinite(lo)}
    # pass@1..5 of one task: a degenerate bootstrap, no bar; pass@10 = 1 of one task: the exact
    # (Clopper-Pearson) interval of a 0/1 value, drawn
    assert drawn == {k for k in (1, 3, 5, 10) if not _rec(result, f"pass@{k}").get("degenerate")} == {10}


def test_text_strip_shows_the_mean_and_its_interval(qtbot):
    from workbench.ui.charts.others import TextScoreChart

    frame = pd.read_csv(EXAMPLES / "text_extraction.csv")
    result = text.run(table_of(frame), text.Options(ci_resamples=500))
    chart = _chart(qtbot, TextScoreChart)
    chart.update_from(result)
    mean = chart.plotted()["all mean interval"]
    items = result.table("items").frame
    assert mean["y"][0] == pytest.approx(items["token_f1"].mean())
    rec = _rec(result, "token_f1")
    assert (mean["ci_low"][0], mean["ci_high"][0]) == pytest.approx((rec["ci_low"], rec["ci_high"]))
    assert "mean, 95% interval over items" in chart.legend_names()


def test_latency_percentiles_have_horizontal_bars(qtbot):
    from workbench.ui.charts.cost import LatencyChart

    frame = pd.read_csv(EXAMPLES / "cost_latency.csv")
    result = cost.run(table_of(frame), cost.Options(system="system", success="success", cost="cost",
                                                     latency="latency_s"))
    chart = _chart(qtbot, LatencyChart)
    chart.update_from(result)
    for system in frame["system"].unique():
        bars = chart.plotted()[f"{system} percentile intervals"]
        lat = frame.loc[frame["system"] == system, "latency_s"].to_numpy()
        for q, x, lo, hi in zip((50, 95, 99), bars["x"], bars["ci_low"], bars["ci_high"]):
            rec = _rec(result, f"latency_p{q}", system)
            if "ci_low" not in rec:  # p99 of 100 requests: no order-statistic interval exists, no bar
                assert q == 99 and np.isnan(lo) and np.isnan(hi)
                continue
            assert (lo, hi) == pytest.approx((rec["ci_low"], rec["ci_high"]))
            # an order-statistic interval's ends are observed latencies around the percentile
            assert lo <= np.percentile(lat, q) <= hi
            assert lo in lat and hi in lat


def test_repeats_strip_has_each_systems_mean_and_band(qtbot):
    from workbench.ui.charts.runs_repeats import ItemShareChart

    frame = pd.read_csv(EXAMPLES / "repeats_epochs.csv")
    result = repeats.run(table_of(frame), repeats.Options(item="sample_id", outcome="correct", repeat="epoch",
                                                           system="model"))
    chart = _chart(qtbot, ItemShareChart)
    chart.update_from(result)
    for system, part in frame.groupby("model"):
        band = chart.plotted()[f"mean:{system}"]
        assert float(band["mean"]) == pytest.approx(part.groupby("sample_id")["correct"].mean().mean())
        rec = _rec(result, "repeats_rate", system)
        assert (float(band["ci_low"]), float(band["ci_high"])) == pytest.approx((rec["ci_low"], rec["ci_high"]))


def test_repeats_pass_k_curve_has_intervals_over_items(qtbot):
    """The Repeats panel's pass@k curve: 95% intervals over items at k = 1, the powers of two and
    K; at k = K every item's pass@K (any of its K tries) and pass^K (all of them) is 0/1, so
    the interval is the proportion interval, checked against statsmodels."""
    from statsmodels.stats.proportion import proportion_confint

    from workbench.analyses import repeats
    from workbench.ui.charts.runs_repeats import RepeatsPassKChart

    rng = np.random.default_rng(5)
    items, K = 60, 6
    p = rng.beta(2, 2, items)
    frame = pd.DataFrame([{"item": f"i{i}", "epoch": e, "correct": int(rng.random() < p[i])}
                          for i in range(items) for e in range(K)])
    result = repeats.run(table_of(frame), repeats.Options(item="item", outcome="correct", repeat="epoch"))
    curve = result.table("passk").frame.set_index("k")
    assert set(curve.index[curve["pass@k_low"].notna()]) == {1, 2, 4, 6}
    per_item = frame.groupby("item")["correct"].sum()
    for col, hits in (("pass@k", int((per_item > 0).sum())), ("pass^k", int((per_item == K).sum()))):
        low, high = proportion_confint(hits, items, alpha=0.05, method="wilson")
        assert curve.loc[K, col] == pytest.approx(hits / items)
        assert (curve.loc[K, f"{col}_low"], curve.loc[K, f"{col}_high"]) == pytest.approx((low, high), abs=1e-12)
    mean1 = float((per_item / K).mean())  # pass@1: the mean per-try rate
    assert curve.loc[1, "pass@k_low"] < mean1 < curve.loc[1, "pass@k_high"]
    assert "ci:bootstrap-percentile-95" in result.signature.split("passk:")[1]
    chart = _chart(qtbot, RepeatsPassKChart)
    chart.update_from(result)
    bars = chart.plotted()["pass@k interval"]
    drawn = {int(k): (lo, hi) for k, lo, hi in zip(bars["x"], bars["ci_low"], bars["ci_high"]) if np.isfinite(lo)}
    assert set(drawn) == {1, 2, 4, 6}
    assert drawn[K] == pytest.approx((curve.loc[K, "pass@k_low"], curve.loc[K, "pass@k_high"]))
