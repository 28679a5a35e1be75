"""The Slices forest plot: each slice's difference (candidate − baseline) with its 95% interval and,
for the slices called out, the false-coverage-rate adjusted interval; the shrunken estimate as a
second marker; the overall difference as a line.  Sorted, worst first, each row naming its slice
and its items.  Drawn from the result's ``slices`` and ``overall`` tables only.

With more rows than fit at a readable height, the plot shows the first ones (the worst) and the
wheel or a drag scrolls through the rest; a click on a row emits :attr:`ForestChart.slice_clicked`
(the slice column and the slice) so the panel can show its items in the data table."""

from __future__ import annotations

from typing import ClassVar

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPoint, Qt, Signal

from .base import GREY, Chart, LabelAxis, PlainAxis, PointsAxis, colour, fmt

#: the least height of a row on screen, in multiples of the font's line height
ROW_LINES = 1.45


class RowAxis(LabelAxis):
    """Rows named top to bottom; only whole positions get a label."""

    names: ClassVar[list[str]] = []  # set on each instance by the chart

    def tickValues(self, minVal, maxVal, size):  # noqa: N802,N803 - Qt naming
        n = len(self.names)
        lo, hi = max(0, int(np.ceil(minVal))), min(n - 1, int(np.floor(maxVal)))
        return [(1.0, [float(v) for v in range(lo, hi + 1)])]

    def tickStrings(self, values, scale, spacing):  # noqa: N802 - Qt naming
        n = len(self.names)
        return [self.names[n - 1 - int(round(v))] if 0 <= n - 1 - int(round(v)) < n else "" for v in values]


def _interval(low: float, high: float, kind: str) -> str:
    from ...report import present

    return present.format_interval(low, high, kind)


def _table(result, name):
    try:
        return result.table(name).frame
    except KeyError:
        return None


class ForestChart(Chart):
    title = "Forest plot"
    x_axis = PointsAxis
    y_axis = RowAxis
    slice_clicked = Signal(str, str)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.plotItem.getAxis("left").names = []
        self.plotItem.setMouseEnabled(x=False, y=True)
        self.plotItem.hideButtons()
        self.scene().sigMouseClicked.connect(self._on_click)
        self.rows: list[dict] = []
        self._binary = True

    def applies(self, result) -> bool:
        frame = _table(result, "slices")
        return frame is not None and len(frame) > 0

    def set_binary(self, binary: bool) -> None:
        """Points for 0/1 outcomes, the scores' own unit otherwise."""
        if binary == self._binary:
            return
        self._binary = binary
        old = self.plotItem.getAxis("bottom")
        axis = (PointsAxis if binary else PlainAxis)(orientation="bottom")
        self.plotItem.setAxisItems({"bottom": axis})
        if old is not axis:
            self.apply_theme()

    def draw(self, result) -> None:
        frame = _table(result, "slices")
        binary = "diff" in frame.columns
        self.set_binary(binary)
        kind = "points" if binary else "score_diff"
        diff_col = "diff" if binary else "mean_diff"
        many = frame["by"].nunique() > 1
        rows = []
        for by, part in frame.groupby("by", sort=False):
            part = part.sort_values(diff_col, kind="stable", na_position="last")
            for _, r in part.iterrows():
                n = int(r["items"])
                name = f"{by} = {r['slice']}" if many else str(r["slice"])
                tested = r["status"] == "tested"
                rows.append({"by": str(by), "slice": str(r["slice"]), "n": n, "est": float(r[diff_col]),
                             "low": float(r["ci_low"]), "high": float(r["ci_high"]),
                             "fcr_low": float(r["fcr_low"]), "fcr_high": float(r["fcr_high"]),
                             "shrunk": float(r["shrunk_diff"]), "tested": tested, "status": str(r["status"]),
                             "label": f"{name}  ({n:,}{'' if tested else ', not tested'})",
                             "p_adj": float(r["p_adjusted"])})
        self.rows = rows
        k = len(rows)
        y = np.arange(k)[::-1].astype(float)  # first row on top
        self.plotItem.getAxis("left").names = [r["label"] for r in rows]
        est = np.array([r["est"] for r in rows])
        tested = np.array([r["tested"] for r in rows])
        low, high = np.array([r["low"] for r in rows]), np.array([r["high"] for r in rows])
        flow, fhigh = np.array([r["fcr_low"] for r in rows]), np.array([r["fcr_high"] for r in rows])
        shrunk = np.array([r["shrunk"] for r in rows])
        zero = pg.mkPen(GREY, width=1.2)
        self.plotItem.addItem(pg.InfiniteLine(pos=0.0, angle=90, pen=zero))
        overall = _table(result, "overall")
        o = float(overall[diff_col].iloc[0]) if overall is not None and len(overall) else np.nan
        if np.isfinite(o):
            pen = pg.mkPen(colour(2), width=1.8, style=Qt.PenStyle.DashLine)
            self.plotItem.addItem(pg.InfiniteLine(pos=o, angle=90, pen=pen))
            self.legend_line(pen, f"all items {fmt(o, kind)}")
        fcr_pen = pg.mkPen(colour(3), width=5.0)
        drawn = self.interval_bars(est, y, flow, fhigh, fcr_pen, beam=0.0, horizontal=True, name="fcr")
        raw_pen = pg.mkPen(self._fg, width=1.4)  # over the adjusted one: both stay visible
        self.interval_bars(est, y, low, high, raw_pen, beam=0.0, horizontal=True, name="raw")
        self.legend_line(raw_pen, "95% CI")
        if drawn:
            self.legend_line(fcr_pen, "FCR-adjusted CI")
        sizes = 7 + 9 * np.sqrt(np.array([r["n"] for r in rows], dtype=float) / max(1, max(r["n"] for r in rows)))
        brushes = [pg.mkBrush(colour(0)) if t else pg.mkBrush(None) for t in tested]
        pens = [pg.mkPen("w", width=0.8) if t else pg.mkPen(GREY, width=1.5) for t in tested]
        dots = pg.ScatterPlotItem(x=est, y=y, size=sizes, symbol="o", brush=brushes, pen=pens)
        self.plotItem.addItem(dots)
        self.legend.addItem(pg.ScatterPlotItem(x=[np.nan], y=[np.nan], size=10, brush=pg.mkBrush(colour(0)),
                                               pen=pg.mkPen("w")), "slice (size: n)")
        ok = np.isfinite(shrunk)
        if ok.any():
            marks = pg.ScatterPlotItem(x=shrunk[ok], y=y[ok], size=10, symbol="d", brush=pg.mkBrush(colour(1)),
                                       pen=pg.mkPen("w", width=0.6))
            self.plotItem.addItem(marks)
            self.legend.addItem(marks, "shrunken")
        if not tested.all():
            self.legend.addItem(pg.ScatterPlotItem(x=[np.nan], y=[np.nan], size=10, brush=pg.mkBrush(None),
                                                   pen=pg.mkPen(GREY, width=1.5)), "not tested")
        self.hover(est, y, [self._tip(r, kind) for r in rows])
        self.record("slices", label=np.array([r["label"] for r in rows], dtype=object),
                    by=np.array([r["by"] for r in rows], dtype=object),
                    slice=np.array([r["slice"] for r in rows], dtype=object), est=est, low=low, high=high,
                    fcr_low=flow, fcr_high=fhigh, shrunk=shrunk, n=np.array([r["n"] for r in rows]), overall=o)
        ends = np.concatenate([est, low, high, flow, fhigh, shrunk, [0.0, o]])
        ends = ends[np.isfinite(ends)]
        if ends.size:
            lo_x, hi_x = float(ends.min()), float(ends.max())
            pad = (hi_x - lo_x) * 0.05 or 0.01
            self.plotItem.setXRange(lo_x - pad, hi_x + pad, padding=0)
        self.plotItem.vb.setLimits(yMin=-0.6, yMax=max(k, 1) - 0.4)
        self.fit_rows()
        self.set_labels(bottom=f"candidate − baseline ({'points' if binary else 'score'}), worst first",
                        left="")

    def visible_rows(self) -> int:
        """How many rows fit at a readable height."""
        line = max(12.0, self.fontMetrics().height() * ROW_LINES)
        height = max(120.0, self.plotItem.vb.height() or (self.height() - 140))
        return max(4, int(height // line))

    def fit_rows(self) -> None:
        """Show the first rows that fit (the worst), the rest a scroll away; a caption says so."""
        k = len(self.rows)
        if not k:
            return
        shown = min(k, self.visible_rows())
        self.plotItem.setYRange(k - shown - 0.5, k - 0.5, padding=0)
        if shown < k:
            self.note(f"{shown} of {k} slices, worst first; scroll for more")
        else:
            self.note("Click a slice to see its items")

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        if getattr(self, "rows", None):
            self.fit_rows()

    def wheelEvent(self, event) -> None:  # noqa: N802 - Qt's name
        """The wheel scrolls the rows (it does not zoom)."""
        if not getattr(self, "rows", None):
            return super().wheelEvent(event)
        (y0, y1) = self.plotItem.vb.viewRange()[1]
        step = -np.sign(event.angleDelta().y()) * 3
        k = len(self.rows)
        span = y1 - y0
        top = min(k - 0.5, max(span - 0.5, y1 + step))
        self.plotItem.setYRange(top - span, top, padding=0)
        event.accept()

    def _tip(self, r: dict, kind: str) -> str:
        text = f"{r['label']}\ndifference {fmt(r['est'], kind)}"
        if np.isfinite(r["low"]):
            text += f", 95% interval {_interval(r['low'], r['high'], kind)}"
        if np.isfinite(r["fcr_low"]):
            text += f"\nFCR-adjusted interval {_interval(r['fcr_low'], r['fcr_high'], kind)}"
        if np.isfinite(r["p_adj"]):
            text += f"\nadjusted p {fmt(r['p_adj'], 'p')}"
        if np.isfinite(r["shrunk"]):
            text += f"\nshrunken estimate {fmt(r['shrunk'], kind)}"
        if not r["tested"]:
            text += f"\n{r['status']}: not tested"
        return text + "\nclick: show these items in the data table"

    def row_at(self, y: float) -> dict | None:
        k = len(self.rows)
        i = k - 1 - int(round(y))
        return self.rows[i] if 0 <= i < k and abs(y - round(y)) <= 0.5 else None

    def row_position(self, i: int) -> QPoint:
        """Where on the widget the ``i``-th row (from the top) is, at its difference (to click it)."""
        r = self.rows[i]
        scene = self.plotItem.vb.mapViewToScene(pg.Point(r["est"], float(len(self.rows) - 1 - i)))
        return self.mapFromScene(scene)

    def _on_click(self, event) -> None:
        if event.button() != Qt.MouseButton.LeftButton or not self.rows:
            return
        at = self.plotItem.vb.mapSceneToView(event.scenePos())
        row = self.row_at(at.y())
        if row is not None:
            self.slice_clicked.emit(row["by"], row["slice"])
