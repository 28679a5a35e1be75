"""The remaining charts: pass@k curves, bootstrap distribution, ranking curves and per-query
spread, per-segment bars, per-item text scores, the plan's MDE (cost and latency: cost.py)."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt

from .base import (GREY, Chart, IntegerAxis, LabelAxis, MarginAxis, PercentAxis, PlainAxis, PointsAxis, colour, fmt,
                   fmt_points, fmt_rate, interval_text, record_interval, spaced_log_ticks, system_colour)


def _name(metric_id: str) -> str:
    """A metric's display name (``ndcg@k`` -> ``nDCG@k``), never the raw id, on a chart."""
    from ...report import present

    return present.display_name(metric_id)


def _count(n, word: str, many: str | None = None) -> str:
    from ...core.numbers import plural

    return plural(n, word, many)


def _table(result, name):
    try:
        return result.table(name).frame
    except KeyError:
        return None


class PassKChart(Chart):
    """pass@k and pass^k against k: values on the 0-1 scale with the card's and the table's
    decimals (the one format of pass@k), k only at whole numbers."""

    title = "pass@k and pass^k"
    x_axis = IntegerAxis
    y_axis = PlainAxis
    curve_table, counted = "curve", "task"  # the result table drawn, and what its counts count

    def applies(self, result) -> bool:
        return _table(result, self.curve_table) is not None and len(_table(result, self.curve_table)) > 0

    def draw(self, result) -> None:
        curve = _table(result, self.curve_table)
        systems = list(dict.fromkeys(curve["system"])) if "system" in curve else [None]
        bars = 0
        for s_i, system in enumerate(systems):
            sub = curve if system is None else curve[curve["system"] == system]
            k = sub["k"].to_numpy(dtype=float)
            prefix = "" if system in (None, "(all)") else f"{system}: "
            series = (("pass@k", "pass@k (unbiased)", Qt.PenStyle.SolidLine, 2.4),
                      ("pass^k", "pass^k (unbiased)", Qt.PenStyle.SolidLine, 2.4),
                      ("naive_pass@k", "pass@k plug-in", Qt.PenStyle.DashLine, 1.5),
                      ("naive_pass^k", "pass^k plug-in", Qt.PenStyle.DashLine, 1.5))
            for j, (col, label, style, width) in enumerate(s for s in series if s[0] in sub):
                values = sub[col].to_numpy(dtype=float)
                if len(systems) > 1:  # one colour per system; pass^k dash-dotted
                    c = system_colour(system)
                    style = style if "@" in col else (Qt.PenStyle.DashDotLine if j < 2 else Qt.PenStyle.DotLine)
                else:
                    c = colour(0 if "@" in col else 1)
                item = pg.PlotDataItem(k, values, pen=pg.mkPen(c, width=width, style=style),
                                       symbol="o" if j < 2 else None, symbolSize=5,
                                       symbolBrush=c, name=prefix + label)
                self.plotItem.addItem(item)
                counts = sub[f"{self.counted}s"]
                self.record(prefix + col, k=k, value=values, **{f"{self.counted}s": counts.to_numpy(dtype=float)})
                if j < 2:
                    if f"{col}_low" in sub:  # the curve's own intervals (Repeats)
                        bounds = {int(kk): (lo, hi) for kk, lo, hi in
                                  zip(k, sub[f"{col}_low"].to_numpy(float), sub[f"{col}_high"].to_numpy(float))}
                    else:
                        bounds = {int(kk): record_interval(result, col.replace("k", str(int(kk))),
                                                           None if system in (None, "(all)") else system)
                                  for kk in k}
                    self.hover(k, values, [f"{prefix}{col.replace('k', str(int(kk)))} = {fmt(v, 'score')}"
                                           f"{interval_text(*bounds[int(kk)], 'score')} over "
                                           f"{_count(int(t), self.counted)}"
                                           for kk, v, t in zip(k, values, counts)])
                    low, high = np.array([bounds[int(kk)] for kk in k], dtype=float).reshape(-1, 2).T
                    bars += self.interval_bars(k, values, low, high, pg.mkPen(c, width=1.2), beam=0.15,
                                               name=f"{prefix}{col} interval")
        if bars:
            self.legend_line(pg.mkPen(self._fg, width=1.2), f"95% interval over {self.counted}s (at the k asked for)")
        summary = _table(result, "summary")
        if summary is not None and len(summary):
            informative = summary[(summary["pass@k"] < 1) & summary["per_try_p"].notna() & (summary["k"] > 1)]
            if len(informative):
                row = informative.iloc[-1]
                self.note(f"pass@{int(row['k'])} = {fmt(row['pass@k'], 'score')} implies a per-try success "
                          f"rate of {fmt(row['per_try_p'], 'score')} if attempts were independent")
        self.plotItem.setYRange(-0.02, 1.02, padding=0)
        self.set_labels(bottom="k (attempts)", left="probability (0 to 1)")


class BootstrapChart(Chart):
    """The bootstrap distribution of the paired difference, in points.  When the resampled
    differences lie on a lattice (n paired 0/1 outcomes or integer score differences, resampled
    by item or in equal-sized clusters: multiples of 1/n), the analysis gives one bar per
    possible difference (or per group of whole lattice steps), its ``difference`` column: the
    bars are drawn there, as wide as the table says.  Otherwise (clusters of unequal size,
    other scores) the analysis's equal-width bins are drawn as they are."""

    title = "Bootstrap distribution"
    x_axis = PointsAxis

    def applies(self, result) -> bool:
        hist = _table(result, "bootstrap")
        return hist is not None and len(hist) > 0

    def draw(self, result) -> None:
        hist = _table(result, "bootstrap")
        lo, hi, counts = (hist[c].to_numpy(dtype=float) for c in ("bin_low", "bin_high", "resamples"))
        if "difference" in hist:  # the analysis's bars on the lattice of possible differences
            x = hist["difference"].to_numpy(dtype=float)
            bars = pg.BarGraphItem(x=x, height=counts, width=(hi - lo) * 0.9, brush=pg.mkBrush(colour(5)),
                                   pen=pg.mkPen(None))
            self.record("histogram", difference=x, resamples=counts, lattice=True)
            self.hover(x, counts, [f"{fmt_points(v)}: {int(c):,} resamples" for v, c in zip(x, counts)])
        else:
            x = (lo + hi) / 2
            bars = pg.BarGraphItem(x=x, height=counts, width=(hi - lo) * 0.95, brush=pg.mkBrush(colour(5)),
                                   pen=pg.mkPen(None))
            self.record("histogram", bin_low=lo, bin_high=hi, resamples=counts, lattice=False)
            self.hover(x, counts, [f"{fmt_points(a)} to {fmt_points(b)}: {int(c):,} resamples"
                                   for a, b, c in zip(lo, hi, counts)])
        self.plotItem.addItem(bars)
        self.legend.addItem(bars, "resamples")
        intervals = _table(result, "intervals")
        zero = pg.mkPen(GREY, width=1.5, style=Qt.PenStyle.DashLine)
        self.plotItem.addItem(pg.InfiniteLine(pos=0.0, angle=90, pen=zero))
        self.legend_line(zero, "no difference")
        if intervals is not None:
            boot = intervals[intervals["interval"].str.startswith("bootstrap")].iloc[0]
            bound = pg.mkPen(colour(3), width=2)
            for value in (boot["ci_low"], boot["ci_high"]):
                self.plotItem.addItem(pg.InfiniteLine(pos=value, angle=90, pen=bound))
            self.legend_line(bound, f"95% interval {fmt_points(boot['ci_low'])[:-4]} to {fmt_points(boot['ci_high'])}")
            observed = pg.mkPen(colour(0), width=2)
            self.plotItem.addItem(pg.InfiniteLine(pos=boot["diff"], angle=90, pen=observed))
            self.legend_line(observed, f"observed {fmt_points(boot['diff'])}")
            self.record("interval", low=boot["ci_low"], high=boot["ci_high"], diff=boot["diff"])
        self.set_labels(bottom="resampled difference, candidate − baseline (points)", left="resamples")


class RankingCurveChart(Chart):
    title = "Metrics by cut-off"
    y_axis = PlainAxis

    def applies(self, result) -> bool:
        return result.analysis == "ranking" and _table(result, "summary") is not None

    def draw(self, result) -> None:
        summary = _table(result, "summary")
        ks = sorted({int(c.split("@")[1]) for c in summary.columns if c.startswith("ndcg@")})
        # four colours apart (blue, orange, green, purple): R@k and Hit@k were two oranges
        styles = (("ndcg", Qt.PenStyle.SolidLine, 0), ("r", Qt.PenStyle.DashLine, 1),
                  ("p", Qt.PenStyle.DotLine, 2), ("hit", Qt.PenStyle.DashDotLine, 4))
        bars = 0
        for s_i, (_, row) in enumerate(summary.iterrows()):
            for metric, style, c_i in styles:
                values = np.array([row[f"{metric}@{k}"] for k in ks], dtype=float)
                shown = _name(f"{metric}@k")
                name = f"{row['system']}: {shown}" if len(summary) > 1 else shown
                c = system_colour(row["system"]) if len(summary) > 1 else colour(c_i)
                item = pg.PlotDataItem(ks, values, pen=pg.mkPen(c, width=2.2, style=style),
                                       symbol="o", symbolSize=6, symbolBrush=c, name=name)
                self.plotItem.addItem(item)
                bounds = np.array([record_interval(result, f"{metric}@{k}", row["system"]) for k in ks], dtype=float)
                bars += self.interval_bars(ks, values, bounds[:, 0], bounds[:, 1], pg.mkPen(c, width=1.2),
                                           beam=0.12, name=f"{name} interval")
                self.record(name, k=np.array(ks, dtype=float), value=values)
                self.hover(ks, values, [f"{name.replace('@k', f'@{k}')} = {fmt(v, 'score')}"
                                        f"{interval_text(lo, hi, 'score')} over "
                                        f"{_count(int(row['queries']), 'query', 'queries')}"
                                        for k, v, (lo, hi) in zip(ks, values, bounds)])
        if bars:
            self.legend_line(pg.mkPen(self._fg, width=1.2), "95% interval over queries (bars)")
        self.plotItem.getAxis("bottom").setTicks([[(float(k), str(k)) for k in ks], []])
        self.plotItem.setYRange(-0.02, 1.02, padding=0)
        self.set_labels(bottom="cut-off k", left="metric value (mean over queries)")


class RankingSpreadChart(Chart):
    """Per-query nDCG at the largest k: a strip of every query, with median and quartiles."""

    title = "Per-query nDCG"
    x_axis = LabelAxis

    def applies(self, result) -> bool:
        return result.analysis == "ranking" and _table(result, "queries") is not None

    def draw(self, result) -> None:
        queries = _table(result, "queries")
        k = max(int(c.split("@")[1]) for c in queries.columns if c.startswith("ndcg@"))
        col = f"ndcg@{k}"
        queries = queries[queries["counted"].astype(bool)]
        systems = list(dict.fromkeys(queries["system"])) if "system" in queries else ["(all)"]
        self.plotItem.getAxis("bottom").set_labels(systems)
        rng = np.random.default_rng(0)
        means = 0
        for i, system in enumerate(systems):
            sub = queries if "system" not in queries else queries[queries["system"] == system]
            values = sub[col].to_numpy(dtype=float)
            x = i + rng.uniform(-0.18, 0.18, values.size)
            self.plotItem.addItem(pg.ScatterPlotItem(x=x, y=values, size=6, brush=pg.mkBrush(system_colour(system)),
                                                     pen=pg.mkPen(None), name=f"{system}: one dot per query"))
            if values.size:
                q1, med, q3 = np.percentile(values, [25, 50, 75])
                for v, w in ((q1, 1.5), (med, 3.5), (q3, 1.5)):
                    self.plotItem.addItem(pg.PlotDataItem([i - 0.3, i + 0.3], [v, v], pen=pg.mkPen(colour(3), width=w)))
                self.hover([i], [med], [f"{system}: median {_name(col)} {fmt(med, 'score')}, quartiles "
                                        f"{fmt(q1, 'score')}–{fmt(q3, 'score')}, "
                                        f"{_count(values.size, 'query', 'queries')}"])
            names = sub["query"].to_numpy(dtype=object)  # a text formatted for the point hovered only
            self.hover(x, values, lambda i, s=system, q=names, v=values: f"{s} · {q[i]}: {_name(col)} = "
                                                                      f"{fmt(v[i], 'score')}")
            self.record(str(system), query=sub["query"].to_numpy(dtype=object), value=values)
            means += self.mean_with_interval(result, col, i, values, None if "system" not in queries else system,
                                             "query", "queries")
        self.legend_line(pg.mkPen(colour(3), width=3.5), "median")
        self.legend_line(pg.mkPen(colour(3), width=1.5), "quartiles")
        if means:
            self.legend.addItem(pg.ScatterPlotItem(x=[np.nan], y=[np.nan], symbol="d", size=11,
                                                   brush=pg.mkBrush(self._fg)), "mean, 95% interval over queries")
        self.plotItem.setYRange(-0.02, 1.02, padding=0)
        self.plotItem.setXRange(-0.6, len(systems) - 0.4 + 0.15, padding=0)
        self.set_labels(left=f"{_name(col)} per query")


class SegmentBarChart(Chart):
    """Per-segment bars for each version (Simpson's picture), and the overall rates beside, each
    with its 95% interval, named by its method (Wilson, Clopper-Pearson for small groups; the macro
    mean has none); the legend names the versions and the interval (one version: the bar and the
    interval)."""

    title = "Per-segment rates"
    x_axis = LabelAxis
    y_axis = PercentAxis

    def applies(self, result) -> bool:  # a measure's means are no rates: GroupMeanChart draws them
        from .intervals import is_measure

        return _table(result, "groups") is not None and not is_measure(result)

    def draw(self, result) -> None:
        groups = _table(result, "groups")
        overall = _table(result, "overall")
        versions = list(dict.fromkeys(groups["version"])) if "version" in groups else [None]
        segments = list(dict.fromkeys(groups["group"]))
        labels = segments + ["overall (micro)", "overall (macro)"]
        self.plotItem.getAxis("bottom").set_labels(labels)
        width = 0.8 / len(versions)
        for v_i, version in enumerate(versions):
            sub = groups if version is None else groups[groups["version"] == version]
            rates = [float(sub.loc[sub["group"] == s, "rate"].iloc[0]) if (sub["group"] == s).any() else np.nan
                     for s in segments]
            items = [int(sub.loc[sub["group"] == s, "items"].iloc[0]) if (sub["group"] == s).any() else 0
                     for s in segments]
            micro = float(overall.iloc[v_i]["micro"])
            macro = float(overall.iloc[v_i]["macro"]) if "macro" in overall else np.nan
            heights = np.array(rates + [micro, macro], dtype=float)

            def bound(col: str, overall_col: str) -> np.ndarray:
                seg = [float(sub.loc[sub["group"] == s, col].iloc[0]) if col in sub and (sub["group"] == s).any()
                       else np.nan for s in segments]
                tot = float(overall.iloc[v_i][overall_col]) if overall_col in overall else np.nan
                return np.array(seg + [tot, np.nan], dtype=float)

            lows, highs = bound("ci_low", "micro_ci_low"), bound("ci_high", "micro_ci_high")
            x = np.arange(len(labels)) - 0.4 + width * (v_i + 0.5)
            c = system_colour(version) if version is not None else colour(v_i)
            bars = pg.BarGraphItem(x=x, height=np.nan_to_num(heights), width=width * 0.92,
                                   brush=pg.mkBrush(c), pen=pg.mkPen(None))
            self.plotItem.addItem(bars)
            name = str(version) if version is not None else "success rate"
            self.legend.addItem(bars, name)
            ok = np.isfinite(lows) & np.isfinite(highs) & np.isfinite(heights) & (highs > lows)
            if ok.any():
                self.plotItem.addItem(pg.ErrorBarItem(
                    x=x[ok], y=heights[ok], top=highs[ok] - heights[ok], bottom=heights[ok] - lows[ok],
                    beam=width * 0.3, pen=pg.mkPen(self._fg, width=1.4)))
            ns = items + [int(overall.iloc[v_i]["items"]), int(overall.iloc[v_i]["groups"])
                          if "groups" in overall else len(segments)]
            self.hover(x, heights, [
                f"{name} · {lab}: {fmt_rate(h)} of {_count(n, 'group' if 'macro' in lab else 'item')}"
                + (f" [{fmt_rate(lo)}, {fmt_rate(hi)}]" if np.isfinite(lo) and np.isfinite(hi) else "")
                for lab, h, n, lo, hi in zip(labels, heights, ns, lows, highs)])
            self.record(name, label=np.array(labels, dtype=object), rate=heights, items=np.array(ns),
                        ci_low=lows, ci_high=highs)
        if any(np.isfinite(v["ci_low"]).any() for v in self._plotted.values()):
            from ...report import present

            methods = list(groups["ci_method"].dropna()) if "ci_method" in groups else []
            methods += [r.get("ci_method") for r in result.records if r["metric"] == "micro" and r.get("ci_method")]
            self.legend_line(pg.mkPen(self._fg, width=1.4), present.interval_words(methods))
        self.plotItem.setYRange(-0.02, 1.02, padding=0)
        self.set_labels(left="success rate")


class TextScoreChart(Chart):
    """Per-item token F1 per system: every item a dot, the median and quartiles as lines."""

    title = "Token F1 per item"
    x_axis = LabelAxis
    y_axis = PlainAxis
    metric = "token_f1"
    max_dots = 5_000  # per system

    def applies(self, result) -> bool:
        items = _table(result, "items")
        return result.analysis == "text" and items is not None and self.metric in items and len(items) > 0

    def draw(self, result) -> None:
        items = _table(result, "items")
        systems = list(dict.fromkeys(items["system"])) if "system" in items else ["all items"]
        self.plotItem.getAxis("bottom").set_labels(systems)
        rng = np.random.default_rng(0)
        means = 0
        # a sampled strip's longer legend text: two entries a row, so 1280 px holds them
        self.legend_max_cols = 2 if (items.groupby("system").size().max() if "system" in items
                                     else len(items)) > self.max_dots else 3
        for i, system in enumerate(systems):
            sub = items if "system" not in items else items[items["system"] == system]
            values = sub[self.metric].to_numpy(dtype=float)
            x = i + rng.uniform(-0.18, 0.18, values.size)
            c = system_colour(system) if "system" in items else colour(0)
            # a strip of more dots than this is a solid band on screen, and 100,000 of them take
            # the GUI thread a third of a second: a random sample is drawn (the legend says so),
            # the quartile lines and the hover texts use the items drawn / all the items
            shown = np.arange(values.size)
            name = f"{system}: one dot per item"
            if values.size > self.max_dots:
                shown = np.sort(rng.choice(values.size, self.max_dots, replace=False))
                name = f"{system}: one dot per item ({self.max_dots:,} of {values.size:,} at random)"
            self.plotItem.addItem(pg.ScatterPlotItem(x=x[shown], y=values[shown], size=7, brush=pg.mkBrush(c),
                                                     pen=pg.mkPen(None), name=name))
            if values.size:
                q1, med, q3 = np.nanpercentile(values, [25, 50, 75])
                for v, w in ((q1, 1.5), (med, 3.5), (q3, 1.5)):
                    self.plotItem.addItem(pg.PlotDataItem([i - 0.3, i + 0.3], [v, v], pen=pg.mkPen(colour(3), width=w)))
            ids = sub["item"] if "item" in sub else sub["line"] if "line" in sub else None
            self.hover(x[shown], values[shown], lambda j, system=system, ids=ids, values=values, shown=shown:
                       f"{system} · {shown[j] if ids is None else ids.iloc[shown[j]]}: "
                       f"token F1 {fmt(values[shown[j]], 'score')}")
            self.record(str(system), value=values)
            means += self.mean_with_interval(result, self.metric, i, values,
                                             None if "system" not in items else system, "item")
        self.legend_line(pg.mkPen(colour(3), width=3.5), "median")
        self.legend_line(pg.mkPen(colour(3), width=1.5), "quartiles")
        if means:
            self.legend.addItem(pg.ScatterPlotItem(x=[np.nan], y=[np.nan], symbol="d", size=11,
                                                   brush=pg.mkBrush(self._fg)), "mean, 95% interval over items")
        self.plotItem.setYRange(-0.02, 1.02, padding=0)
        self.plotItem.setXRange(-0.6, len(systems) - 0.4 + 0.15, padding=0)
        self.set_labels(left="token F1 per item (0 to 1)")


class PlanMdeChart(Chart):
    """The minimum detectable difference against the number of items, the current n marked."""

    title = "Detectable difference by n"
    x_axis = PlainAxis
    y_axis = MarginAxis

    def applies(self, result) -> bool:
        mde = _table(result, "mde")
        return result.analysis == "plan" and mde is not None and len(mde) > 0

    def draw(self, result) -> None:
        mde = _table(result, "mde")
        n = mde["items"].to_numpy(dtype=float)
        values = mde["mde"].to_numpy(dtype=float)
        # x is log10(items), the ticks read as item counts (pyqtgraph's log mode leaves
        # scatter items unscaled)
        current = [r for r in result.records if r["metric"] == "mde" and r.get("n") is not None]
        ticks = spaced_log_ticks(n, keep=[float(current[0]["n"])] if current else ())
        self.plotItem.getAxis("bottom").setTicks([[(float(np.log10(k)), f"{int(k):,}") for k in ticks], []])
        self.plotItem.addItem(pg.PlotDataItem(np.log10(n), values, pen=self.pen(0, 2.4), symbol="o", symbolSize=6,
                                              symbolBrush=colour(0), name="minimum detectable difference"))
        self.hover(np.log10(n), values, [f"{int(k):,} items: {fmt_points(v).lstrip('+')}" for k, v in zip(n, values)])
        self.record("mde", items=n, mde=values)
        current = [r for r in result.records if r["metric"] == "mde" and r.get("n") is not None]
        if current:
            cn, cv = float(current[0]["n"]), float(current[0]["value"])
            mark = pg.ScatterPlotItem(x=[np.log10(cn)], y=[cv], size=15, symbol="star", brush=pg.mkBrush(colour(3)),
                                      pen=pg.mkPen("w"), name=f"this plan: {int(cn):,} items, "
                                                                f"{fmt_points(cv).lstrip('+')}")
            self.plotItem.addItem(mark)
            self.hover([np.log10(cn)], [cv], [f"this plan: {int(cn):,} items detect {fmt_points(cv).lstrip('+')}"])
            self.record("current", items=np.array([cn]), mde=np.array([cv]))
        self.set_labels(bottom="items (log scale)", left="detectable paired difference (points)")
