"""The remaining charts: cost per success, pass@k curves, bootstrap distribution, ranking
curves and per-query spread, per-segment bars, latency ECDF."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt

from .base import GREY, Chart, LabelAxis, PercentAxis, PlainAxis, colour, fmt_num, fmt_rate


def _table(result, name):
    try:
        return result.table(name).frame
    except KeyError:
        return None


class CostPerSuccessChart(Chart):
    """Success rate (with interval) against cost per request; iso cost-per-success lines."""

    title = "Cost per success"
    x_axis = PlainAxis
    y_axis = PercentAxis

    def applies(self, result) -> bool:
        return _table(result, "systems") is not None and result.analysis == "cost"

    def draw(self, result) -> None:
        systems = _table(result, "systems")
        marginal = _table(result, "marginal")
        dominated = set()
        if marginal is not None:
            dominated = set(marginal.loc[marginal["dominated"].astype(bool), "to"])
        x = systems["cost_per_request"].to_numpy(dtype=float)
        y = systems["success_rate"].to_numpy(dtype=float)
        low = systems["ci_low"].to_numpy(dtype=float)
        high = systems["ci_high"].to_numpy(dtype=float)
        cps = systems["cost_per_success"].to_numpy(dtype=float)
        names = systems["system"].astype(str).tolist()
        # iso cost-per-success lines through each system: every point on a line has the same
        # cost per success (rate = cost per request / cost per success)
        x_max = float(np.nanmax(x)) * 1.3 if np.isfinite(x).any() and np.nanmax(x) > 0 else 1.0
        for i, level in enumerate(cps):
            if not np.isfinite(level) or level <= 0:
                continue
            x_end = min(x_max, level * 1.0)
            self.plotItem.addItem(pg.PlotDataItem([0, x_end], [0, x_end / level],
                                                  pen=pg.mkPen(GREY if names[i] in dominated else colour(i),
                                                               width=1, style=Qt.PenStyle.DotLine)))
            self.text(x_end, x_end / level, f"{fmt_num(level, 3)} per success ", anchor=(1, 1.1),
                      color=GREY if names[i] in dominated else colour(i))
        for i, name in enumerate(names):
            grey = name in dominated
            pen = pg.mkPen(GREY if grey else colour(i), width=2)
            if np.isfinite(low[i]):
                self.plotItem.addItem(pg.ErrorBarItem(x=x[i:i + 1], y=y[i:i + 1], top=high[i:i + 1] - y[i:i + 1],
                                                      bottom=y[i:i + 1] - low[i:i + 1], beam=x_max * 0.015, pen=pen))
            point = pg.ScatterPlotItem(x=x[i:i + 1], y=y[i:i + 1], size=13,
                                       brush=pg.mkBrush(GREY if grey else colour(i)), pen=pg.mkPen("w"))
            self.plotItem.addItem(point)
            self.legend.addItem(point, f"{name}{' (dominated)' if grey else ''}")
            self.text(x[i], y[i], f"  {name}", anchor=(0, 0.5), color=GREY if grey else colour(i))
        self.hover(x, y, [f"{n}: success {fmt_rate(r)} [{fmt_rate(lo)}, {fmt_rate(hi)}] of {int(req):,} "
                          f"requests\ncost/request {fmt_num(c)}, cost/success {fmt_num(s)}"
                          f"{' — dominated' if n in dominated else ''}"
                          for n, r, lo, hi, req, c, s in zip(names, y, low, high, systems["requests"], x, cps)])
        self.record("systems", system=np.array(names, dtype=object), cost_per_request=x, success_rate=y,
                    ci_low=low, ci_high=high, dominated=np.array([n in dominated for n in names]))
        self.plotItem.setXRange(0, x_max)
        self.set_labels(bottom="cost per request", left="success rate")


class PassKChart(Chart):
    title = "pass@k and pass^k"
    y_axis = PercentAxis

    def applies(self, result) -> bool:
        return _table(result, "curve") is not None and len(_table(result, "curve")) > 0

    def draw(self, result) -> None:
        curve = _table(result, "curve")
        systems = list(dict.fromkeys(curve["system"])) if "system" in curve else [None]
        for s_i, system in enumerate(systems):
            sub = curve if system is None else curve[curve["system"] == system]
            k = sub["k"].to_numpy(dtype=float)
            prefix = "" if system in (None, "(all)") else f"{system}: "
            series = (("pass@k", "pass@k (unbiased)", Qt.PenStyle.SolidLine, 2.4),
                      ("pass^k", "pass^k (unbiased)", Qt.PenStyle.SolidLine, 2.4),
                      ("naive_pass@k", "pass@k plug-in", Qt.PenStyle.DashLine, 1.5),
                      ("naive_pass^k", "pass^k plug-in", Qt.PenStyle.DashLine, 1.5))
            for j, (col, label, style, width) in enumerate(series):
                values = sub[col].to_numpy(dtype=float)
                idx = s_i * 2 + (0 if "@" in col else 1)
                item = pg.PlotDataItem(k, values, pen=self.pen(idx, width, style),
                                       symbol="o" if j < 2 else None, symbolSize=5,
                                       symbolBrush=colour(idx), name=prefix + label)
                self.plotItem.addItem(item)
                self.record(prefix + col, k=k, value=values, tasks=sub["tasks"].to_numpy(dtype=float))
                if j < 2:
                    self.hover(k, values, [f"{prefix}{col.replace('k', str(int(kk)))} = {fmt_num(v)} "
                                           f"over {int(t)} tasks" for kk, v, t in zip(k, values, sub["tasks"])])
        summary = _table(result, "summary")
        if summary is not None and len(summary):
            informative = summary[(summary["pass@k"] < 1) & summary["per_try_p"].notna() & (summary["k"] > 1)]
            if len(informative):
                row = informative.iloc[-1]
                self.note(f"pass@{int(row['k'])} = {fmt_num(row['pass@k'], 3)} implies a per-try rate of "
                          f"{fmt_rate(row['per_try_p'])} if attempts were independent")
        self.legend.anchor((1, 0.5), (1, 0.5), offset=(-10, 0))
        self.plotItem.setYRange(-0.02, 1.02, padding=0)
        self.set_labels(bottom="k (attempts)", left="probability")


class BootstrapChart(Chart):
    title = "Bootstrap distribution"
    x_axis = PercentAxis

    def applies(self, result) -> bool:
        hist = _table(result, "bootstrap")
        return hist is not None and len(hist) > 0

    def draw(self, result) -> None:
        hist = _table(result, "bootstrap")
        lo, hi, counts = (hist[c].to_numpy(dtype=float) for c in ("bin_low", "bin_high", "resamples"))
        centre = (lo + hi) / 2
        bars = pg.BarGraphItem(x=centre, height=counts, width=(hi - lo) * 0.95, brush=pg.mkBrush(colour(5)),
                               pen=pg.mkPen(None))
        self.plotItem.addItem(bars)
        self.record("histogram", bin_low=lo, bin_high=hi, resamples=counts)
        self.hover(centre, counts, [f"{fmt_rate(a)} to {fmt_rate(b)}: {int(c):,} resamples"
                                    for a, b, c in zip(lo, hi, counts)])
        intervals = _table(result, "intervals")
        top = float(counts.max()) if counts.size else 1.0
        self.plotItem.addItem(pg.InfiniteLine(pos=0.0, angle=90, pen=pg.mkPen(GREY, width=1.5,
                                                                             style=Qt.PenStyle.DashLine)))
        if intervals is not None:
            boot = intervals[intervals["interval"].str.startswith("bootstrap")].iloc[0]
            for value, label in ((boot["ci_low"], "2.5%"), (boot["ci_high"], "97.5%")):
                self.plotItem.addItem(pg.InfiniteLine(pos=value, angle=90, pen=pg.mkPen(colour(3), width=2)))
                self.text(value, top, f" {label}: {fmt_rate(value)}", anchor=(0, 0), color=colour(3))
            self.plotItem.addItem(pg.InfiniteLine(pos=boot["diff"], angle=90, pen=pg.mkPen(colour(0), width=2)))
            self.text(boot["diff"], top * 0.9, f" observed {fmt_rate(boot['diff'])}", anchor=(0, 0), color=colour(0))
            self.record("interval", low=boot["ci_low"], high=boot["ci_high"], diff=boot["diff"])
        self.set_labels(bottom="resampled difference (candidate − baseline)", left="resamples")


class RankingCurveChart(Chart):
    title = "Metrics by cut-off"
    y_axis = PlainAxis

    def applies(self, result) -> bool:
        return result.analysis == "ranking" and _table(result, "summary") is not None

    def draw(self, result) -> None:
        summary = _table(result, "summary")
        ks = sorted({int(c.split("@")[1]) for c in summary.columns if c.startswith("ndcg@")})
        styles = (("ndcg", Qt.PenStyle.SolidLine), ("r", Qt.PenStyle.DashLine), ("p", Qt.PenStyle.DotLine),
                  ("hit", Qt.PenStyle.DashDotLine))
        for s_i, (_, row) in enumerate(summary.iterrows()):
            for metric, style in styles:
                values = np.array([row[f"{metric}@{k}"] for k in ks], dtype=float)
                name = f"{row['system']}: {metric}@k" if len(summary) > 1 else f"{metric}@k"
                item = pg.PlotDataItem(ks, values, pen=self.pen(s_i if len(summary) > 1 else styles.index((metric, style)),
                                                                2.2, style),
                                       symbol="o", symbolSize=6, name=name)
                self.plotItem.addItem(item)
                self.record(name, k=np.array(ks, dtype=float), value=values)
                self.hover(ks, values, [f"{name.replace('@k', f'@{k}')} = {fmt_num(v)} over "
                                        f"{int(row['queries'])} queries" for k, v in zip(ks, values)])
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
        for i, system in enumerate(systems):
            sub = queries if "system" not in queries else queries[queries["system"] == system]
            values = sub[col].to_numpy(dtype=float)
            x = i + rng.uniform(-0.18, 0.18, values.size)
            self.plotItem.addItem(pg.ScatterPlotItem(x=x, y=values, size=6, brush=pg.mkBrush(colour(i)),
                                                     pen=pg.mkPen(None)))
            if values.size:
                q1, med, q3 = np.percentile(values, [25, 50, 75])
                for v, w in ((q1, 1.5), (med, 3.5), (q3, 1.5)):
                    self.plotItem.addItem(pg.PlotDataItem([i - 0.3, i + 0.3], [v, v], pen=pg.mkPen(colour(3), width=w)))
                self.hover([i], [med], [f"{system}: median {col} {fmt_num(med)}, quartiles {fmt_num(q1)}–"
                                        f"{fmt_num(q3)}, {values.size} queries"])
            self.hover(x, values, [f"{system} · {q}: {col} = {fmt_num(v)}" for q, v in zip(sub["query"], values)])
            self.record(str(system), query=sub["query"].to_numpy(dtype=object), value=values)
        self.plotItem.setYRange(-0.02, 1.02, padding=0)
        self.set_labels(left=f"{col} per query")


class SegmentBarChart(Chart):
    """Per-segment bars for each version (Simpson's picture), and the overall rates beside."""

    title = "Per-segment rates"
    x_axis = LabelAxis
    y_axis = PercentAxis

    def applies(self, result) -> bool:
        return _table(result, "groups") is not None

    def draw(self, result) -> None:
        groups = _table(result, "groups")
        overall = _table(result, "overall")
        versions = list(dict.fromkeys(groups["version"])) if "version" in groups else [None]
        segments = list(dict.fromkeys(groups["group"]))
        labels = segments + ["overall (micro)"]
        self.plotItem.getAxis("bottom").set_labels(labels)
        width = 0.8 / len(versions)
        for v_i, version in enumerate(versions):
            sub = groups if version is None else groups[groups["version"] == version]
            rates = [float(sub.loc[sub["group"] == s, "rate"].iloc[0]) if (sub["group"] == s).any() else np.nan
                     for s in segments]
            items = [int(sub.loc[sub["group"] == s, "items"].iloc[0]) if (sub["group"] == s).any() else 0
                     for s in segments]
            micro = float(overall.iloc[v_i]["micro"])
            heights = np.array(rates + [micro], dtype=float)
            x = np.arange(len(labels)) - 0.4 + width * (v_i + 0.5)
            bars = pg.BarGraphItem(x=x, height=np.nan_to_num(heights), width=width * 0.92,
                                   brush=pg.mkBrush(colour(v_i)), pen=pg.mkPen(None))
            self.plotItem.addItem(bars)
            name = str(version) if version is not None else "rate"
            self.legend.addItem(bars, name)
            ns = items + [int(overall.iloc[v_i]["items"])]
            self.hover(x, heights, [f"{name} · {lab}: {fmt_rate(h)} of {n:,} items"
                                    for lab, h, n in zip(labels, heights, ns)])
            self.record(name, label=np.array(labels, dtype=object), rate=heights, items=np.array(ns))
        self.plotItem.setYRange(-0.02, 1.02, padding=0)
        self.set_labels(left="success rate")


class LatencyChart(Chart):
    """Empirical CDF of latency per system with p50/p95/p99 marked."""

    title = "Latency"
    x_axis = PlainAxis
    y_axis = PercentAxis
    #: a release rule's p95 threshold, drawn when > 0
    threshold: float = 0.0

    def applies(self, result) -> bool:
        return _table(result, "latency_ecdf") is not None

    def draw(self, result) -> None:
        ecdf = _table(result, "latency_ecdf")
        systems = _table(result, "systems")
        for i, system in enumerate(dict.fromkeys(ecdf["system"])):
            sub = ecdf[ecdf["system"] == system]
            x = sub["latency"].to_numpy(dtype=float)
            y = sub["fraction"].to_numpy(dtype=float)
            self.plotItem.addItem(pg.PlotDataItem(x, y, pen=self.pen(i, 2.2), stepMode=None, name=str(system)))
            self.record(str(system), latency=x, fraction=y)
            row = systems[systems["system"].astype(str) == str(system)].iloc[0]
            marks = [(row.get(f"latency_p{q}"), q / 100) for q in (50, 95, 99)]
            mx = np.array([m[0] for m in marks], dtype=float)
            my = np.array([m[1] for m in marks], dtype=float)
            self.plotItem.addItem(pg.ScatterPlotItem(x=mx, y=my, size=10, symbol="t", brush=pg.mkBrush(colour(i))))
            self.hover(mx, my, [f"{system}: p{int(q * 100)} = {fmt_num(v)} of {int(row['requests']):,} requests"
                                for v, q in marks])
            self.record(f"{system} percentiles", latency=mx, fraction=my)
        if self.threshold > 0:
            self.plotItem.addItem(pg.InfiniteLine(pos=self.threshold, angle=90,
                                                  pen=pg.mkPen(colour(3), width=2, style=Qt.PenStyle.DashLine)))
            self.text(self.threshold, 0.05, f" p95 limit {fmt_num(self.threshold)}", anchor=(0, 1), color=colour(3))
        self.plotItem.setYRange(-0.02, 1.02, padding=0)
        self.set_labels(bottom="latency (units of the file)", left="share of requests at or below")
