"""Runs and repeats charts: the item grid as a heat map (an image: thousands of items stay
fast), each run's mean with its interval and tie-group letters, the per-item share of
successful tries (the items that flip first) and the noise split.  Drawn from the result's
tables only."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyqtgraph as pg
from PySide6.QtCore import QPoint, QRectF, Qt, Signal
from PySide6.QtGui import QColor

from ...core.numbers import localize
from .base import (GREY, Chart, IntegerAxis, LabelAxis, PercentAxis, PlainAxis, colour, fmt, interval_text,
                   record_interval, system_colour)
from .intervals import IntervalChart
from .others import PassKChart


def _table(result, name):
    try:
        return result.table(name).frame
    except KeyError:
        return None


def _binary(result) -> bool:
    return "value:binary" in result.signature


class RateOrScoreAxis(PercentAxis):
    """Percent ticks for rates, plain numbers for scores (set :attr:`percent`)."""

    percent = True

    def tickStrings(self, values, scale, spacing):  # noqa: N802 - Qt naming
        if self.percent:
            return super().tickStrings(values, scale, spacing)
        return [localize(t) for t in pg.AxisItem.tickStrings(self, values, scale, spacing)]


# -- Runs ---------------------------------------------------------------------------------------
class RunGroupsChart(IntervalChart):
    """Each run's success rate (or mean score) with its interval, best first, and its tie
    groups (compact letter display): runs that share a letter are not significantly different."""

    title = "Runs and tie groups"
    x_axis = RateOrScoreAxis

    def rows(self, result):
        frame = _table(result, "runs")
        if frame is None or not len(frame) or result.analysis != "runs":
            return []
        lower = "better:lower" in result.signature
        frame = frame.sort_values("value", ascending=lower, kind="stable")
        return [{"run": str(r["run"]), "label": str(r["run"]), "est": r["value"], "low": r["ci_low"],
                 "high": r["ci_high"], "n": r["items"], "group": i, "colour": system_colour(r["run"]),
                 "groups": r["groups"], "basis": f"tie groups: {r['groups'] or 'none'}"}
                for i, (_, r) in enumerate(frame.iterrows())]

    def draw(self, result) -> None:
        binary = _binary(result)
        self.kind = "rate" if binary else "score"
        self.plotItem.getAxis("bottom").percent = binary
        super().draw(result)
        rows = self.rows(result)
        ys = np.arange(len(rows))[::-1].astype(float)
        for r, y in zip(rows, ys):
            end = r["high"] if np.isfinite(r["high"]) else r["est"]
            self.text(end, y, f"  {r['groups'] or '–'}", anchor=(0, 0.5), color=system_colour(r["run"]))
        self._plotted["intervals"]["groups"] = np.array([r["groups"] for r in rows], dtype=object)
        # room on the right for the letters
        lo, hi = self.plotItem.vb.viewRange()[0]
        self.plotItem.setXRange(lo, hi + (hi - lo) * 0.12, padding=0)
        method = "randomised Tukey HSD" if "tukey" in result.signature else "Holm-adjusted paired tests"
        self.note(f"Runs sharing a letter are not significantly different ({method}, alpha 0.05)")
        from ...report import present

        try:
            methods = result.table("runs").frame.get("ci_method", pd.Series(dtype=object)).dropna()
        except KeyError:
            methods = []
        what = f"{'success rate' if binary else 'mean score'} ({present.interval_words(methods)})"
        self.set_labels(bottom=what)


class ItemAxis(IntegerAxis):
    """Rows of the heat map: whole positions named by their item (top row first)."""

    names: list[str] = []

    def tickStrings(self, values, scale, spacing):  # noqa: N802 - Qt naming
        n = len(self.names)
        out = []
        for v in values:
            i = n - 1 - int(round(v))
            out.append(self.names[i] if 0 <= i < n else "")
        return out


class RunsHeatmap(Chart):
    """The item grid as an image: rows items (in the order given by :meth:`show_rows`, the
    grid's order by default), columns runs; right in blue, wrong in vermillion (scores: from
    vermillion, lowest, to blue, highest), missing in light grey.  A click on a row emits
    :attr:`item_clicked` (the row's position in the grid table)."""

    title = "Heat map"
    x_axis = LabelAxis
    y_axis = ItemAxis
    item_clicked = Signal(int)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.plotItem.getAxis("left").names = []
        self.plotItem.setMouseEnabled(x=False, y=True)
        self.plotItem.showGrid(x=False, y=False)
        self.scene().sigMouseClicked.connect(self._on_click)
        self.image = pg.ImageItem(axisOrder="row-major")
        self._result = None
        self._rows = np.zeros(0, dtype=np.int64)
        self.runs: list[str] = []

    def applies(self, result) -> bool:
        return _table(result, "grid") is not None and _table(result, "runs") is not None

    def draw(self, result) -> None:
        self._result = result
        grid = _table(result, "grid")
        self.runs = _table(result, "runs")["run"].astype(str).tolist()
        self._values = grid[self.runs].to_numpy(dtype=float)
        self._items = grid["item"].astype(str).to_numpy()
        self._binary = _binary(result)
        # the cost, steps, tool calls and latency of each item in each run, when the file has them
        details = _table(result, "grid_details")
        self._details = {} if details is None else {c: details[c].to_numpy(dtype=float)
                                                     for c in details.columns if c != "item"}
        self.show_rows(np.arange(len(grid)) if not len(self._rows) or self._rows.max() >= len(grid) else self._rows,
                       redraw=False)
        self._paint()

    def show_rows(self, rows, redraw: bool = True) -> None:
        """Show these rows of the grid table, in this order (a filter)."""
        self._rows = np.asarray(rows, dtype=np.int64)
        if redraw and self._result is not None:
            self.plotItem.clear()
            self.legend.clear()
            self._hover = []
            self._paint()

    def colours(self, values: np.ndarray) -> np.ndarray:
        """RGBA (uint8) of each cell."""
        out = np.empty(values.shape + (4,), dtype=np.uint8)
        out[...] = (225, 225, 225, 255)
        ok = np.isfinite(values)
        bad, good = np.array(pg.mkColor(colour(3)).getRgb()), np.array(pg.mkColor(colour(0)).getRgb())
        if self._binary:
            out[ok & (values == 1)] = good
            out[ok & (values == 0)] = bad
        elif ok.any():
            lo, hi = float(np.nanmin(self._values)), float(np.nanmax(self._values))
            t = (values[ok] - lo) / ((hi - lo) or 1.0)
            white = np.array([255, 255, 255, 255])
            mix = np.where(t[:, None] < 0.5, bad + (white - bad) * (t[:, None] * 2),
                           white + (good - white) * ((t[:, None] - 0.5) * 2))
            out[ok] = mix.astype(np.uint8)
        return out

    def _paint(self) -> None:
        values = self._values[self._rows]
        n, k = values.shape
        self.image = pg.ImageItem(axisOrder="row-major")
        if n:
            self.image.setImage(self.colours(values[::-1]), autoLevels=False, levels=(0, 255))
            self.image.setRect(QRectF(-0.5, -0.5, k, n))
            self.plotItem.addItem(self.image)
        else:
            self.text((k - 1) / 2, 0.0, "no item matches the filter", anchor=(0.5, 0.5))
        self.plotItem.getAxis("left").names = list(self._items[self._rows])
        self.plotItem.getAxis("bottom").setTicks([[(float(j), r) for j, r in enumerate(self._short(self.runs))], []])
        self.plotItem.setXRange(-0.5, k - 0.5, padding=0)
        self.plotItem.setYRange(-0.5, max(n, 1) - 0.5, padding=0)
        self.plotItem.vb.setLimits(yMin=-0.5, yMax=max(n, 1) - 0.5)
        names = ("right", "wrong", "missing") if self._binary else ("highest", "lowest", "missing")
        for c, name in zip((colour(0), colour(3), pg.mkColor(225, 225, 225)), names):
            self.legend.addItem(pg.BarGraphItem(x=[0], height=[0], width=0, brush=pg.mkBrush(c)), name)
        self.record("cells", item=self._items[self._rows], runs=np.array(self.runs, dtype=object), values=values)
        self.set_labels(bottom="run", left="item (click: its rows)")

    def _short(self, names: list[str]) -> list[str]:
        """Run names without the prefix they all share (nightly-2026-11-25 -> 25)."""
        if len(names) < 2:
            return names
        import os

        prefix = os.path.commonprefix(names)
        cut = max(prefix.rfind(ch) for ch in "-_ /.") + 1 if prefix else 0
        return [n[cut:] or n for n in names] if cut >= 4 else names

    def row_position(self, shown_row: int) -> QPoint:
        """Where on the widget the ``shown_row``-th shown row is (to click it)."""
        n = len(self._rows)
        scene = self.plotItem.vb.mapViewToScene(pg.Point(0.0, float(n - 1 - shown_row)))
        return self.mapFromScene(scene)

    def tooltip_row(self, y: float) -> str:
        n = len(self._rows)
        i = n - 1 - int(round(y))
        if not 0 <= i < n:
            return ""
        row = self._rows[i]
        vals = self._values[row]
        cells = ", ".join(f"{r}: {'–' if not np.isfinite(v) else fmt(v, 'count' if self._binary else 'score')}"
                          f"{self._detail_text(run, row)}"
                          for run, r, v in zip(self.runs, self._short(self.runs), vals))
        return f"item {self._items[row]}: {cells}"

    def _detail_text(self, run: str, row: int) -> str:
        """`` (cost 0.012, steps 5, latency 1.2)`` of the item in this run, when known."""
        parts = []
        for key, values in getattr(self, "_details", {}).items():
            measure, _, of_run = key.partition(": ")
            if of_run == run and np.isfinite(values[row]):
                parts.append(f"{measure} {fmt(values[row], 'plain')}")
        return f" ({', '.join(parts)})" if parts else ""

    def _on_mouse_moved(self, pos) -> None:
        if not len(self._rows) or not self.plotItem.sceneBoundingRect().contains(pos):
            return
        from PySide6.QtWidgets import QToolTip

        at = self.plotItem.vb.mapSceneToView(pos)
        text = self.tooltip_row(at.y())
        if text:
            QToolTip.showText(self.mapToGlobal(self.mapFromScene(pos)), text, self)

    def _on_click(self, event) -> None:
        if event.button() != Qt.MouseButton.LeftButton or not len(self._rows):
            return
        at = self.plotItem.vb.mapSceneToView(event.scenePos())
        n = len(self._rows)
        i = n - 1 - int(round(at.y()))
        if 0 <= i < n and -0.5 <= at.x() <= len(self.runs) - 0.5:
            self.item_clicked.emit(int(self._rows[i]))


# -- Repeats ------------------------------------------------------------------------------------
class ItemShareChart(Chart):
    """Per item the share of its tries that succeeded (k/K; a score's mean), items sorted with
    those that flip (neither always right nor always wrong) first; one series per system.
    A click on a point emits :attr:`item_clicked` (system, item)."""

    title = "Items that flip"
    x_axis = IntegerAxis
    y_axis = PercentAxis
    item_clicked = Signal(str, str)

    def applies(self, result) -> bool:
        frame = _table(result, "items")
        return result.analysis == "repeats" and frame is not None and len(frame) > 0

    def draw(self, result) -> None:
        frame = _table(result, "items")
        value = "share" if "share" in frame else "mean"
        systems = list(dict.fromkeys(frame["system"].astype(str))) if "system" in frame else [""]
        ticks: list = []
        start = 0.0  # each system's items in a block of their own, side by side
        for system in systems:
            sub = frame if not system else frame[frame["system"].astype(str) == system]
            flips = sub["flips"].to_numpy(dtype=bool)
            share = sub[value].to_numpy(dtype=float)
            # flipping items first (by their share), then the steady ones
            order = np.lexsort((share, ~flips))
            sub = sub.iloc[order]
            x = start + np.arange(1, len(sub) + 1, dtype=float)
            if len(x):  # "1" once, then each block's last item (its count): never "1201"
                ticks += ([(float(x[0]), "1")] if not ticks else []) + [(float(x[-1]), f"{len(sub):,}")]
            if system and len(systems) > 1:
                self.text(start + 1, 1.04, system, anchor=(0, 1), color=system_colour(system))
            start += len(sub) + max(3.0, 0.06 * len(sub))
            y = sub[value].to_numpy(dtype=float)
            fl = sub["flips"].to_numpy(dtype=bool)
            col = system_colour(system) if system else colour(0)
            on, off = (pg.mkBrush(col), pg.mkPen("w", width=0.6)), (pg.mkBrush(None), pg.mkPen(GREY, width=1.2))
            brushes = [on[0] if f else off[0] for f in fl]   # two brushes shared, not one per item
            pens = [on[1] if f else off[1] for f in fl]
            dots = pg.ScatterPlotItem(x=x, y=y, size=8, brush=brushes, pen=pens,
                                      data=[(system, str(it)) for it in sub["item"]])
            dots.sigClicked.connect(self._clicked)
            self.plotItem.addItem(dots)
            n_flip = int(fl.sum())
            self.legend.addItem(pg.ScatterPlotItem(x=[np.nan], y=[np.nan], size=8, brush=pg.mkBrush(col)),
                                f"{system + ': ' if system else ''}{n_flip:,} of {len(sub):,} items flip")
            tries = sub["tries"].to_numpy(dtype=int)
            hits = sub["successes"].to_numpy(dtype=float) if "successes" in sub else None
            items = sub["item"].astype(str).tolist()
            # the text of the item hovered only (200,000 items: no 200,000 texts up front)
            self.hover(x, y, lambda i, s=system, it=items, t=tries, v=y, h=hits:
                       f"{s + ' · ' if s else ''}{it[i]}: "
                       + (f"{int(h[i])} of {t[i]} tries" if h is not None
                          else f"mean {fmt(v[i], 'score')} over {t[i]} tries"))
            self.record(f"items:{system}", x=x, item=np.array(items, dtype=object), share=y, flips=fl, tries=tries)
            if len(x):
                self._mean_band(result, x, col, system or None, value == "share")
        self.legend.addItem(pg.ScatterPlotItem(x=[np.nan], y=[np.nan], size=8, brush=pg.mkBrush(None),
                                               pen=pg.mkPen(GREY, width=1.2)), "always right or always wrong")
        self.plotItem.setYRange(-0.04, 1.12, padding=0)
        self.plotItem.getAxis("left").setTicks([[(v / 100, f"{v}%") for v in range(0, 101, 20)], []])
        self.plotItem.getAxis("bottom").setTicks([ticks, []])
        self.set_labels(bottom="items, those that flip first (click: its tries)",
                        left="share of tries right" if value == "share" else "mean score of the tries")

    def _mean_band(self, result, x, col, system, binary: bool) -> None:
        """The system's mean over items as a line across its block, its 95% interval (the
        standard error with the repeats, Miller 2024) as a band."""
        metric = "repeats_rate" if binary else "repeats_mean"
        found = result.find(metric, **({"system": system} if system else {}))
        if len(found) != 1 or found[0].get("value") is None:
            return
        mean = float(found[0]["value"])
        lo, hi = record_interval(result, metric, system)
        ends = [float(x[0]) - 0.5, float(x[-1]) + 0.5]
        line = pg.mkPen(col, width=1.6, style=Qt.PenStyle.DashLine)
        self.plotItem.addItem(pg.PlotDataItem(ends, [mean, mean], pen=line))
        if np.isfinite(lo) and np.isfinite(hi):
            band = QColor(col)
            band.setAlpha(50)
            low = pg.PlotDataItem(ends, [lo, lo], pen=pg.mkPen(None))
            high = pg.PlotDataItem(ends, [hi, hi], pen=pg.mkPen(None))
            self.plotItem.addItem(low)
            self.plotItem.addItem(high)
            self.plotItem.addItem(pg.FillBetweenItem(low, high, brush=pg.mkBrush(band)))
        self.legend_line(line, f"{system + ': ' if system else ''}mean {fmt(mean, 'rate' if binary else 'score')}"
                               f"{interval_text(lo, hi, 'rate' if binary else 'score')} (band: 95% interval)")
        self.record(f"mean:{system or ''}", mean=mean, ci_low=lo, ci_high=hi)

    def _clicked(self, _item, points, event=None) -> None:
        """The point nearest the click (neighbours overlap where items are many)."""
        if not len(points):
            return
        point = points[0]
        if event is not None:
            at = event.pos()
            point = min(points, key=lambda p: (p.pos().x() - at.x()) ** 2 + (p.pos().y() - at.y()) ** 2)
        system, item = point.data()
        self.item_clicked.emit(system, item)


class NoiseSplitChart(Chart):
    """The variance split of Miller (2024) per system (and per pair): between items (the data)
    and within items (the model's own randomness across tries), as a stacked bar."""

    title = "Variance split"
    x_axis = PlainAxis
    y_axis = LabelAxis

    def applies(self, result) -> bool:
        frame = _table(result, "split")
        return result.analysis == "repeats" and frame is not None and len(frame) > 0

    def draw(self, result) -> None:
        split = _table(result, "split")
        rows = [(str(r["system"]) if "system" in split else "all items", r) for _, r in split.iterrows()]
        paired = _table(result, "paired")
        if paired is not None:
            rows += [(f"{r['to']} − {r['from']} (paired)", r) for _, r in paired.iterrows()]
        labels = [lab for lab, _ in rows]
        data = np.array([float(r["var_data"]) for _, r in rows])
        within = np.array([float(r["var_within"]) for _, r in rows])
        y = np.arange(len(rows))[::-1].astype(float)
        parts = ((np.zeros_like(data), data, 0, "between items (the data)"),
                 (data, within, 1, "within items (the model's own noise)"))
        for start, width, c, name in parts:
            bars = pg.BarGraphItem(x0=start, y=y, width=width, height=0.55, brush=pg.mkBrush(colour(c)),
                                   pen=pg.mkPen(None))
            self.plotItem.addItem(bars)
            self.legend.addItem(bars, name)
        total = data + within
        for yy, d, w, t in zip(y, data, within, total):
            share = w / t if t > 0 else float("nan")
            self.text(t, yy, f"  {fmt(share, 'rate')} within", anchor=(0, 0.5))
        self.hover(total, y, [f"{lab}: between items {d:.4f}, within items {w:.4f} "
                              f"({fmt(w / t if t > 0 else float('nan'), 'rate')} of the total)"
                              for lab, d, w, t in zip(labels, data, within, total)])
        self.plotItem.getAxis("left").setTicks([[(float(yy), lab) for yy, lab in zip(y, labels)], []])
        finite = total[np.isfinite(total)]
        top = float(finite.max()) if finite.size else 1.0
        self.plotItem.setXRange(0, top * 1.45 or 1.0, padding=0)
        self.plotItem.setYRange(-0.7, len(rows) - 0.3, padding=0)
        self.record("split", label=np.array(labels, dtype=object), var_data=data, var_within=within)
        self.set_labels(bottom="variance of one try's outcome (corrected for K)")


class RepeatsPassKChart(PassKChart):
    """The pass@k and pass^k curve of the Repeats analysis: the same per-item k of K tries."""

    curve_table, counted = "passk", "item"

    def applies(self, result) -> bool:
        return result.analysis == "repeats" and super().applies(result)
