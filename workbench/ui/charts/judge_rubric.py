"""Judge and rubric charts: the confusion matrix (cells clickable), the label shares of the
judge and of the people, the criteria's pass rates per system, and each criterion's
contribution to the score difference.  Drawn from the result's tables only."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPoint, Qt, Signal

from .base import GREY, Chart, LabelAxis, PercentAxis, PointsAxis, colour, fmt, fmt_points, fmt_rate, system_colour


def _table(result, name):
    try:
        return result.table(name).frame
    except KeyError:
        return None


def _blend(a: str, t: float) -> pg.QtGui.QColor:
    """Colour ``a`` mixed with white (t = 0) up to itself (t = 1)."""
    c = pg.mkColor(a)
    t = float(min(1.0, max(0.0, t)))
    return pg.QtGui.QColor(int(255 + (c.red() - 255) * t), int(255 + (c.green() - 255) * t),
                           int(255 + (c.blue() - 255) * t))


class ConfusionChart(Chart):
    """Judge (rows) x people (columns): each cell its count and share of the labelled items;
    agreeing cells blue, disagreeing ones vermillion, darker with more items.  A click on a
    disagreeing cell emits :attr:`cell_clicked` (judge label, people's label)."""

    title = "Confusion matrix"
    x_axis = LabelAxis
    y_axis = LabelAxis
    cell_clicked = Signal(str, str)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.judge_labels: list[str] = []
        self.human_labels: list[str] = []
        self.plotItem.setMouseEnabled(x=False, y=False)
        self.plotItem.hideButtons()
        self.scene().sigMouseClicked.connect(self._on_click)

    def applies(self, result) -> bool:
        frame = _table(result, "confusion")
        return frame is not None and len(frame) > 0

    def draw(self, result) -> None:
        frame = _table(result, "confusion")
        cols = [c for c in frame.columns if c != "judge"]
        self.judge_labels = frame["judge"].astype(str).tolist()
        self.human_labels = [c[len("human: "):] if c.startswith("human: ") else c for c in cols]
        counts = frame[cols].to_numpy(dtype=float)
        k_r, k_c = counts.shape
        total = counts.sum() or 1.0
        top = counts.max() or 1.0
        xs, ys, brushes, tips = [], [], [], []
        for i in range(k_r):
            for j in range(k_c):
                x, y = float(j), float(k_r - 1 - i)  # the first judge label on top
                agree = self.judge_labels[i] == self.human_labels[j]
                shade = 0.15 + 0.85 * counts[i, j] / top
                brushes.append(pg.mkBrush(_blend(colour(0 if agree else 3).name(), shade)))
                xs.append(x)
                ys.append(y)
                n = int(counts[i, j])
                tips.append(f"judge {self.judge_labels[i]}, people {self.human_labels[j]}: {n:,} items "
                            f"({fmt_rate(n / total)} of {int(total):,})"
                            + ("" if agree or not n else "\nclick: show these items in the data table"))
                dark = shade > 0.6
                self.text(x, y, f"{n:,}\n{fmt_rate(n / total)}", anchor=(0.5, 0.5),
                          color="#ffffff" if dark else "#202020")
        bars = pg.BarGraphItem(x=xs, y=ys, width=0.96, height=0.96, brushes=brushes, pen=pg.mkPen(None))
        bars.setZValue(-1)
        self.plotItem.addItem(bars)
        self.plotItem.getAxis("bottom").setTicks([[(float(j), lab) for j, lab in enumerate(self.human_labels)], []])
        self.plotItem.getAxis("left").setTicks([[(float(k_r - 1 - i), lab)
                                                 for i, lab in enumerate(self.judge_labels)], []])
        self.plotItem.setXRange(-0.5, k_c - 0.5, padding=0.02)
        self.plotItem.setYRange(-0.5, k_r - 0.5, padding=0.02)
        self.plotItem.showGrid(x=False, y=False)
        self.hover(xs, ys, tips)
        self.legend.addItem(pg.BarGraphItem(x=[0], height=[0], width=0, brush=pg.mkBrush(colour(0))),
                            "judge and people agree")
        self.legend.addItem(pg.BarGraphItem(x=[0], height=[0], width=0, brush=pg.mkBrush(colour(3))),
                            "disagree (click a cell: its items)")
        self.record("cells", judge=np.array(self.judge_labels, dtype=object),
                    human=np.array(self.human_labels, dtype=object), counts=counts)
        self.set_labels(bottom="people's label", left="judge's label")

    def cell_at(self, x: float, y: float) -> tuple[str, str] | None:
        """The (judge, people) labels of the cell at data coordinates (x, y)."""
        j, i = int(round(x)), len(self.judge_labels) - 1 - int(round(y))
        if 0 <= i < len(self.judge_labels) and 0 <= j < len(self.human_labels) \
                and abs(x - round(x)) <= 0.48 and abs(y - round(y)) <= 0.48:
            return self.judge_labels[i], self.human_labels[j]
        return None

    def cell_position(self, judge: str, human: str) -> QPoint:
        """Where on the widget the cell (judge, human) is (to click it)."""
        i, j = self.judge_labels.index(judge), self.human_labels.index(human)
        scene = self.plotItem.vb.mapViewToScene(pg.Point(float(j), float(len(self.judge_labels) - 1 - i)))
        return self.mapFromScene(scene)

    def _on_click(self, event) -> None:
        if event.button() != Qt.MouseButton.LeftButton or not self.judge_labels:
            return
        at = self.plotItem.vb.mapSceneToView(event.scenePos())
        cell = self.cell_at(at.x(), at.y())
        if cell is not None and cell[0] != cell[1]:
            self.cell_clicked.emit(*cell)


class LabelShareChart(Chart):
    """Each label's share among the labelled items, as the judge gives it and as people do:
    a bar higher for the judge is a label the judge over-uses."""

    title = "Judge vs people per label"
    x_axis = LabelAxis
    y_axis = PercentAxis

    def applies(self, result) -> bool:
        frame = _table(result, "confusion")
        return frame is not None and len(frame) > 0

    def draw(self, result) -> None:
        frame = _table(result, "confusion")
        cols = [c for c in frame.columns if c != "judge"]
        labels = frame["judge"].astype(str).tolist()
        counts = frame[cols].to_numpy(dtype=float)
        n = counts.sum()
        judge = counts.sum(axis=1) / n
        people = counts.sum(axis=0) / n
        x = np.arange(len(labels), dtype=float)
        for off, values, name, c in ((-0.2, judge, "judge", 0), (0.2, people, "people", 1)):
            bars = pg.BarGraphItem(x=x + off, height=values, width=0.38, brush=pg.mkBrush(colour(c)),
                                   pen=pg.mkPen(None))
            self.plotItem.addItem(bars)
            self.legend.addItem(bars, f"{name}'s labels")
            self.hover(x + off, values, [f"{name}: '{lab}' on {fmt_rate(v)} of {int(n):,} items"
                                         for lab, v in zip(labels, values)])
            for xx, v in zip(x + off, values):
                self.text(xx, v, fmt_rate(v), anchor=(0.5, 1.05))
        self.plotItem.getAxis("bottom").setTicks([[(float(i), lab) for i, lab in enumerate(labels)], []])
        self.plotItem.setYRange(0, min(1.0, float(max(judge.max(), people.max())) * 1.18), padding=0)
        self.record("shares", label=np.array(labels, dtype=object), judge=judge, people=people, n=n)
        self.set_labels(bottom="label", left=f"share of the {int(n):,} labelled items")


class CriterionRateChart(Chart):
    """Per criterion (rows, rubric order) its pass rate with its 95% interval (named by its method), one marker per
    system side by side."""

    title = "Pass rate per criterion"
    x_axis = PercentAxis
    y_axis = LabelAxis

    def applies(self, result) -> bool:
        frame = _table(result, "criteria")
        return frame is not None and len(frame) > 0

    def draw(self, result) -> None:
        frame = _table(result, "criteria")
        from ...report import present

        words = present.interval_words(frame["ci_method"].dropna() if "ci_method" in frame else [])
        crit = list(dict.fromkeys(frame["criterion"].astype(str)))
        systems = list(dict.fromkeys(frame["system"].astype(str))) if "system" in frame else [None]
        step = 0.6 / max(1, len(systems))
        ys_all, labels_all = [], []
        for s_i, system in enumerate(systems):
            sub = frame if system is None else frame[frame["system"].astype(str) == system]
            ci = [crit.index(c) for c in sub["criterion"].astype(str)]
            y = np.array([len(crit) - 1 - c for c in ci], dtype=float) + (
                0.0 if len(systems) == 1 else 0.3 - step / 2 - s_i * step)
            est, lo, hi = (sub[c].to_numpy(dtype=float) for c in ("rate", "ci_low", "ci_high"))
            col = colour(0) if system is None else system_colour(system)
            ok = np.isfinite(lo) & np.isfinite(hi) & (hi > lo)
            self.plotItem.addItem(pg.ErrorBarItem(x=est[ok], y=y[ok], left=(est - lo)[ok], right=(hi - est)[ok],
                                                  beam=min(0.12, step * 0.4), pen=pg.mkPen(col, width=2.2)))
            dots = pg.ScatterPlotItem(x=est, y=y, size=10, brush=pg.mkBrush(col), pen=pg.mkPen("w", width=0.8))
            self.plotItem.addItem(dots)
            self.legend.addItem(dots, f"pass rate ({words})" if system is None else str(system))
            who = "" if system is None else f"{system} · "
            self.hover(est, y, [f"{who}{c}: {fmt_rate(e)} [{fmt_rate(a)}, {fmt_rate(b)}]  n = {int(m):,}"
                                for c, e, a, b, m in zip(sub["criterion"], est, lo, hi, sub["items"])])
            ys_all.append(y)
            labels_all += [f"{who}{c}" for c in sub["criterion"]]
        self.plotItem.getAxis("left").setTicks([[(float(len(crit) - 1 - i), c) for i, c in enumerate(crit)], []])
        self.record("rates", label=np.array(labels_all, dtype=object), y=np.concatenate(ys_all),
                    est=frame["rate"].to_numpy(dtype=float), low=frame["ci_low"].to_numpy(dtype=float),
                    high=frame["ci_high"].to_numpy(dtype=float), n=frame["items"].to_numpy(dtype=float))
        ends = np.concatenate([frame[c].to_numpy(dtype=float) for c in ("rate", "ci_low", "ci_high")])
        ends = ends[np.isfinite(ends)]
        lo_x, hi_x = (float(ends.min()), float(ends.max())) if ends.size else (0.0, 1.0)
        pad = max(0.02, (hi_x - lo_x) * 0.06)
        self.plotItem.setXRange(max(0.0, lo_x - pad), min(1.0, hi_x + pad), padding=0)
        self.plotItem.setYRange(-0.6, len(crit) - 0.4, padding=0)
        self.set_labels(bottom=f"pass rate ({words})")


class ContributionChart(Chart):
    """What moved the score: each criterion's contribution to the score difference
    (weight / sum of weights x change of its pass rate), bars left (lost) or right (gained) of
    zero, and the score difference itself with its paired bootstrap interval."""

    title = "What moved the score"
    x_axis = PointsAxis
    y_axis = LabelAxis

    def applies(self, result) -> bool:
        frame = _table(result, "criteria_compared")
        return frame is not None and len(frame) > 0

    def draw(self, result) -> None:
        frame = _table(result, "criteria_compared")
        compared = _table(result, "compared")
        pairs = list(dict.fromkeys(zip(frame["from"].astype(str), frame["to"].astype(str))))
        labels, values, ys = [], [], []
        y = 0.0
        ticks = []
        totals = []
        for p_i, (a, b) in enumerate(pairs):
            sub = frame[(frame["from"].astype(str) == a) & (frame["to"].astype(str) == b)]
            suffix = "" if len(pairs) == 1 else f" · {b}"
            if compared is not None:
                row = compared[(compared["from"].astype(str) == a) & (compared["to"].astype(str) == b)]
                if len(row):
                    totals.append((y, row.iloc[0], f"score difference{suffix}"))
                    ticks.append((y, f"score difference{suffix}"))
                    y -= 1.0
            for _, r in sub.iterrows():
                labels.append(f"{r['criterion']}{suffix}")
                values.append(float(r["contribution"]))
                ys.append(y)
                ticks.append((y, f"{r['criterion']}{suffix}"))
                y -= 1.0
            y -= 0.5
        values_a, ys_a = np.array(values), np.array(ys)
        brushes = [pg.mkBrush(colour(0) if v >= 0 else colour(3)) for v in values_a]
        bars = pg.BarGraphItem(x0=np.minimum(values_a, 0), y=ys_a, width=np.abs(values_a), height=0.6,
                               brushes=brushes, pen=pg.mkPen(None))
        self.plotItem.addItem(bars)
        for v, yy in zip(values_a, ys_a):  # right of the bar, or of zero for a loss (never over the axis)
            self.text(max(v, 0.0), yy, f" {fmt_points(v)}", anchor=(0, 0.5))
        self.legend.addItem(pg.BarGraphItem(x=[0], height=[0], width=0, brush=pg.mkBrush(colour(0))),
                            "raised the score")
        self.legend.addItem(pg.BarGraphItem(x=[0], height=[0], width=0, brush=pg.mkBrush(colour(3))),
                            "lowered the score")
        self.hover(values_a, ys_a, [f"{lab}: {fmt_points(v)} of the score" for lab, v in zip(labels, values_a)])
        ends = list(values_a) + [0.0]
        for yy, row, lab in totals:
            d, lo, hi = float(row["diff"]), float(row["ci_low"]), float(row["ci_high"])
            pen = pg.mkPen(self._fg, width=2.2)
            self.plotItem.addItem(pg.ErrorBarItem(x=np.array([d]), y=np.array([yy]), left=np.array([d - lo]),
                                                  right=np.array([hi - d]), beam=0.2, pen=pen))
            self.plotItem.addItem(pg.ScatterPlotItem(x=[d], y=[yy], size=11, symbol="d", brush=pg.mkBrush(self._fg)))
            self.text(d, yy - 0.1, f"{fmt_points(d)} [{fmt_points(lo)}, {fmt_points(hi)}]", anchor=(0.5, 0))
            self.hover([d], [yy], [f"{lab}: {fmt_points(d)} [{fmt_points(lo)}, {fmt_points(hi)}] "
                                   f"n = {int(row['items']):,} (paired bootstrap 95%)"])
            ends += [lo, hi]
        self.legend.addItem(pg.ScatterPlotItem(x=[np.nan], y=[np.nan], symbol="d", size=11,
                                               brush=pg.mkBrush(self._fg)),
                            "score difference (paired bootstrap 95% interval)")
        zero = pg.mkPen(GREY, width=1.5, style=Qt.PenStyle.DashLine)
        self.plotItem.addItem(pg.InfiniteLine(pos=0.0, angle=90, pen=zero))
        self.plotItem.getAxis("left").setTicks([ticks, []])
        ends = np.array([e for e in ends if np.isfinite(e)])
        span = float(ends.max() - ends.min()) or 0.01
        # room on the right for the value labels
        self.plotItem.setXRange(float(ends.min()) - 0.08 * span, float(ends.max()) + 0.3 * span, padding=0)
        self.plotItem.setYRange(y + 0.9, 0.6, padding=0)
        self.record("contributions", label=np.array(labels, dtype=object), contribution=values_a,
                    total=np.array([float(t[1]["diff"]) for t in totals]))
        self.set_labels(bottom="contribution to the score difference (points)")


__all__ = ["ConfusionChart", "ContributionChart", "CriterionRateChart", "LabelShareChart", "fmt"]
