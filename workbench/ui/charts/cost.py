"""The cost and latency charts: success rate against cost (or an agent's effort) per request
with lines of equal cost per success, and the latency ECDF with its percentiles and their
intervals."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt

from .base import (GREY, Chart, PercentAxis, PlainAxis, colour, fmt, fmt_rate, interval_text, record_interval,
                   system_colour)
from .others import _count, _table


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
        self.frontier(systems, systems["cost_per_request"].to_numpy(dtype=float),
                      systems["cost_per_success"].to_numpy(dtype=float), dominated, "cost", "cost",
                      x_key="cost_per_request")

    def frontier(self, systems, x, cps, dominated, kind: str, word: str, x_key: str = "per_request") -> None:
        """Success rate (with interval) against ``x`` per request, with a line of equal ``x``
        per success through each system."""
        y = systems["success_rate"].to_numpy(dtype=float)
        low = systems["ci_low"].to_numpy(dtype=float)
        high = systems["ci_high"].to_numpy(dtype=float)
        names = systems["system"].astype(str).tolist()
        # iso cost-per-success lines through each system: every point on a line has the same
        # cost per success (rate = cost per request / cost per success)
        x_max = float(np.nanmax(x)) * 1.3 if np.isfinite(x).any() and np.nanmax(x) > 0 else 1.0
        # labels above 100% in two alternating rows (neighbours never overlap), in the order of
        # their lines' ends
        order = [i for i in np.argsort(np.where(np.isfinite(cps), cps, np.inf)) if np.isfinite(cps[i])]
        row_of = {int(i): r % 2 for r, i in enumerate(order)}
        for i, level in enumerate(cps):
            if not np.isfinite(level) or level <= 0:
                continue
            x_end = min(x_max, level * 1.0)
            col = GREY if names[i] in dominated else system_colour(names[i])
            self.plotItem.addItem(pg.PlotDataItem([0, x_end], [0, x_end / level],
                                                  pen=pg.mkPen(col, width=1, style=Qt.PenStyle.DotLine)))
            # the label sits above the line's end, inside the plot (the y range keeps room above
            # 100% for two rows): left-aligned, right-aligned near the right edge
            near_right = x_end > x_max * 0.72
            self.text(x_end, x_end / level + 0.055 * row_of.get(i, 0), f" {fmt(level, kind)} per success ",
                      anchor=(1 if near_right else 0, 1.0), color=col)
        for i, name in enumerate(names):
            grey = name in dominated
            pen = pg.mkPen(GREY if grey else system_colour(name), width=2)
            if np.isfinite(low[i]):
                self.plotItem.addItem(pg.ErrorBarItem(x=x[i:i + 1], y=y[i:i + 1], top=high[i:i + 1] - y[i:i + 1],
                                                      bottom=y[i:i + 1] - low[i:i + 1], beam=x_max * 0.015, pen=pen))
            point = pg.ScatterPlotItem(x=x[i:i + 1], y=y[i:i + 1], size=13,
                                       brush=pg.mkBrush(GREY if grey else system_colour(name)), pen=pg.mkPen("w"))
            self.plotItem.addItem(point)
            self.legend.addItem(point, f"{name}{' (dominated)' if grey else ''}")
            self.text(x[i], y[i], f"  {name}", anchor=(0, 0.5), color=GREY if grey else system_colour(name))
        self.legend_line(pg.mkPen(GREY, width=1, style=Qt.PenStyle.DotLine), f"same {word} per success")
        self.hover(x, y, [f"{n}: success {fmt_rate(r)} [{fmt_rate(lo)}, {fmt_rate(hi)}] of {int(req):,} "
                          f"requests\n{word}/request {fmt(c, kind)}, {word}/success {fmt(s, kind)}"
                          f"{' — dominated' if n in dominated else ''}"
                          for n, r, lo, hi, req, c, s in zip(names, y, low, high, systems["requests"], x, cps)])
        self.record("systems", system=np.array(names, dtype=object), **{x_key: x}, success_rate=y,
                    ci_low=low, ci_high=high, dominated=np.array([n in dominated for n in names]))
        self.plotItem.setXRange(0, x_max)
        self.plotItem.setYRange(-0.02, 1.17, padding=0)
        self.plotItem.getAxis("left").setTicks([[(v / 100, f"{v}%") for v in range(0, 101, 20)], []])
        self.set_labels(bottom="cost per request", left="success rate")



class EffortPerSuccessChart(CostPerSuccessChart):
    """The cost frontier with an agent's effort on the x axis: success rate against steps (else
    tool calls, else tokens) per request, with lines of equal effort per success."""

    title = "Effort per success"
    MEASURES = (("steps", "steps"), ("tool_calls", "tool calls"), ("tokens", "tokens"))

    def applies(self, result) -> bool:
        return result.analysis == "cost" and self._measure(result) is not None

    def _measure(self, result):
        effort = _table(result, "effort")
        if effort is None or _table(result, "systems") is None or effort["system"].nunique() < 2:
            return None
        return next(((m, w) for m, w in self.MEASURES if (effort["measure"] == m).any()), None)

    def draw(self, result) -> None:
        measure, word = self._measure(result)
        effort = _table(result, "effort")
        rows = effort[effort["measure"] == measure].set_index("system")
        systems = _table(result, "systems")
        systems = systems[systems["system"].isin(rows.index)].reset_index(drop=True)
        x = rows.loc[systems["system"], "mean"].to_numpy(dtype=float)
        per_success = rows.loc[systems["system"], "per_success"].to_numpy(dtype=float)
        self.plotItem.setLabel("bottom", f"{word} per request (mean)")
        self.frontier(systems, x, per_success, set(), "statistic", word)


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
        bars = 0
        for i, system in enumerate(dict.fromkeys(ecdf["system"])):
            sub = ecdf[ecdf["system"] == system]
            x = sub["latency"].to_numpy(dtype=float)
            y = sub["fraction"].to_numpy(dtype=float)
            self.plotItem.addItem(pg.PlotDataItem(x, y, pen=pg.mkPen(system_colour(system), width=2.2), stepMode=None,
                                                  name=str(system)))
            self.record(str(system), latency=x, fraction=y)
            row = systems[systems["system"].astype(str) == str(system)].iloc[0]
            marks = [(row.get(f"latency_p{q}"), q / 100) for q in (50, 95, 99)]
            mx = np.array([m[0] for m in marks], dtype=float)
            my = np.array([m[1] for m in marks], dtype=float)
            self.plotItem.addItem(pg.ScatterPlotItem(x=mx, y=my, size=10, symbol="t",
                                                     brush=pg.mkBrush(system_colour(system))))
            bounds = np.array([record_interval(result, f"latency_p{q}", system) for q in (50, 95, 99)], dtype=float)
            bars += self.interval_bars(mx, my, bounds[:, 0], bounds[:, 1], pg.mkPen(system_colour(system), width=1.4),
                                       beam=0.025, horizontal=True, name=f"{system} percentile intervals")
            self.hover(mx, my, [f"{system}: p{int(q * 100)} = {fmt(v, 'latency')}{interval_text(lo, hi, 'latency')} of "
                                f"{_count(int(row['requests']), 'request')}" for v, q, (lo, hi) in zip(mx, (50, 95, 99), bounds)])
            self.record(f"{system} percentiles", latency=mx, fraction=my)
        self.legend.addItem(pg.ScatterPlotItem(x=[np.nan], y=[np.nan], size=10, symbol="t", brush=pg.mkBrush(GREY)),
                            "p50, p95, p99")
        if bars:
            self.legend_line(pg.mkPen(self._fg, width=1.4), "95% interval of each percentile (bars)")
        if self.threshold > 0:
            limit = pg.mkPen(colour(3), width=2, style=Qt.PenStyle.DashLine)
            self.plotItem.addItem(pg.InfiniteLine(pos=self.threshold, angle=90, pen=limit))
            self.legend_line(limit, f"p95 limit {fmt(self.threshold, 'latency')}")
        self.plotItem.setYRange(-0.02, 1.02, padding=0)
        self.set_labels(bottom="latency (units of the file)", left="share of requests at or below")
