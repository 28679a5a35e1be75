"""Interval (forest) plots: an estimate with its 95% interval per row."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt

from .base import (GREY, Chart, LabelAxis, PercentAxis, PlainAxis, PointsAxis, colour, fmt, fmt_points, system_colour)


class IntervalChart(Chart):
    """Rows top to bottom; x is the estimate (a rate or a difference, in percent)."""

    x_axis = PercentAxis
    y_axis = LabelAxis
    zero_line = False
    #: half-width of the "difference that matters" band around 0 (from a release rule)
    margin: float = 0.0
    #: the presentation kind of the estimates (hover texts)
    kind = "rate"

    def rows(self, result) -> list[dict]:
        """Each row: label, est, low, high, n, group (colour index), marker."""
        return []

    def applies(self, result) -> bool:
        return bool(self.rows(result))

    def draw(self, result) -> None:
        rows = self.rows(result)
        if not rows:
            return
        labels = [r["label"] for r in rows]
        y = np.arange(len(rows))[::-1].astype(float)  # first row on top
        est = np.array([r["est"] for r in rows], dtype=float)
        low = np.array([r.get("low", np.nan) for r in rows], dtype=float)
        high = np.array([r.get("high", np.nan) for r in rows], dtype=float)
        axis: LabelAxis = self.plotItem.getAxis("left")
        axis.setTicks([[(float(yy), lab) for yy, lab in zip(y, labels)], []])
        if self.margin > 0:
            band = pg.LinearRegionItem(values=(-self.margin, self.margin), orientation="vertical",
                                       movable=False, brush=pg.mkBrush(0, 158, 115, 40), pen=pg.mkPen(None))
            band.setZValue(-10)
            self.plotItem.addItem(band)
            self.legend.addItem(pg.BarGraphItem(x=[0], height=[0], width=0, brush=pg.mkBrush(0, 158, 115, 90)),
                                f"difference that matters (±{fmt_points(self.margin).lstrip('+')})")
        if self.zero_line:
            pen = pg.mkPen(GREY, width=1.5, style=Qt.PenStyle.DashLine)
            self.plotItem.addItem(pg.InfiniteLine(pos=0.0, angle=90, pen=pen))
            self.legend_line(pen, "no difference")
        groups = sorted({r.get("group", 0) for r in rows})
        for g in groups:
            idx = [i for i, r in enumerate(rows) if r.get("group", 0) == g]
            ok = [i for i in idx if np.isfinite(low[i]) and np.isfinite(high[i]) and high[i] > low[i]]
            col = rows[idx[0]].get("colour")
            col = colour(g) if col is None else col
            if ok:
                err = pg.ErrorBarItem(x=est[ok], y=y[ok], left=est[ok] - low[ok], right=high[ok] - est[ok],
                                      beam=0.18, pen=pg.mkPen(col, width=2.2))
                self.plotItem.addItem(err)
            name = rows[idx[0]].get("legend")
            scatter = pg.ScatterPlotItem(x=est[idx], y=y[idx], size=11, symbol=rows[idx[0]].get("marker", "o"),
                                         brush=pg.mkBrush(col), pen=pg.mkPen("w", width=0.8))
            self.plotItem.addItem(scatter)
            if name:
                self.legend.addItem(scatter, name)
        self.hover(est, y, [self._tip(r) for r in rows])
        self.record("intervals", label=np.array(labels, dtype=object), est=est, low=low, high=high,
                    n=np.array([r.get("n", np.nan) for r in rows], dtype=float))
        self.plotItem.setYRange(-0.8, len(rows) - 0.2, padding=0)
        # every interval whole on screen (the error bars are not in pyqtgraph's auto range)
        ends = np.concatenate([est, low, high, [0.0] if self.zero_line else [],
                               [-self.margin, self.margin] if self.margin > 0 else []])
        ends = ends[np.isfinite(ends)]
        if ends.size:
            lo_x, hi_x = float(ends.min()), float(ends.max())
            pad = (hi_x - lo_x) * 0.06 or 0.01
            self.plotItem.setXRange(lo_x - pad, hi_x + pad, padding=0)

    def _tip(self, r: dict) -> str:
        text = f"{r['label']}: {fmt(r['est'], self.kind)}"
        if np.isfinite(r.get("low", np.nan)):
            text += f"  [{fmt(r['low'], self.kind)}, {fmt(r['high'], self.kind)}]"
        if r.get("n") is not None and np.isfinite(r.get("n", np.nan)):
            text += f"  n = {int(r['n']):,}"
        if r.get("basis"):
            text += f"\n{r['basis']}"
        return text


class CompareIntervalChart(IntervalChart):
    title = "Difference with its intervals"
    zero_line = True
    x_axis = PointsAxis
    kind = "points"

    def rows(self, result):
        try:
            frame = result.table("intervals").frame
            n = result.table("summary").frame["items"].iloc[0]
        except KeyError:
            return []
        return [{"label": r["interval"], "est": r["diff"], "low": r["ci_low"], "high": r["ci_high"], "n": n,
                 "group": i, "basis": r["basis"]} for i, (_, r) in enumerate(frame.iterrows())]

    def draw(self, result) -> None:
        super().draw(result)
        self.set_labels(bottom="candidate − baseline (points)")


def is_measure(result) -> bool:
    from ...report import present

    return present.is_measure(result)


class GroupRateChart(IntervalChart):
    """Per-group rates with their 95% intervals (named by their methods); micro and macro marked."""

    title = "Rates per group"
    #: the rates of 0/1 outcomes or scores of 0..1; a measure's means are GroupMeanChart's
    measure = False
    what = "success rate"

    def rows(self, result):
        if is_measure(result) != self.measure:
            return []
        try:
            groups = result.table("groups").frame
            overall = result.table("overall").frame
        except KeyError:
            return []
        rows = []
        versions = list(dict.fromkeys(groups["version"])) if "version" in groups else [None]
        for v_i, version in enumerate(versions):
            sub = groups if version is None else groups[groups["version"] == version]
            prefix = "" if version is None else f"{version} · "
            for _, r in sub.iterrows():
                rows.append({"label": f"{prefix}{r['group']}", "est": r["rate"], "low": r["ci_low"],
                             "high": r["ci_high"], "n": r["items"], "group": v_i,
                             "colour": system_colour(version) if version is not None else None,
                             "legend": f"{version}" if version is not None else "group rate"})
            o = overall.iloc[v_i] if version is not None else overall.iloc[0]
            # a version's micro and macro keep its colour (their shape says which is which; the
            # legend's grey shapes name them once)
            vc = system_colour(version) if version is not None else None
            rows.append({"label": f"{prefix}micro (pooled)", "est": o["micro"], "low": o["micro_ci_low"],
                         "high": o["micro_ci_high"], "n": o["items"], "group": 100 + v_i, "marker": "d",
                         "colour": vc if vc is not None else colour(5),
                         "legend": None if version is not None else "micro"})
            rows.append({"label": f"{prefix}macro (mean of groups)", "est": o["macro"], "n": o["groups"],
                         "group": 200 + v_i, "marker": "s", "colour": vc if vc is not None else colour(3),
                         "legend": None if version is not None else "macro"})
        return rows

    def draw(self, result) -> None:
        super().draw(result)
        rows = self.rows(result)
        if any(r.get("legend") is None and r.get("marker") for r in rows):  # versions: the shapes
            for marker, name in (("d", "micro (pooled)"), ("s", "macro (mean of groups)")):
                self.legend.addItem(pg.ScatterPlotItem(x=[np.nan], y=[np.nan], size=11, symbol=marker,
                                                       brush=pg.mkBrush(GREY), pen=pg.mkPen("w")), name)
        groups = _table_of(result, "groups")
        methods = list(groups["ci_method"].dropna()) if groups is not None and "ci_method" in groups else []
        methods += [r.get("ci_method") for r in result.records if r["metric"] == "micro" and r.get("ci_method")]
        self.set_labels(bottom=f"{self.what} ({interval_words(methods)})")


class GroupMeanChart(GroupRateChart):
    """A measure's mean per group in its own unit (a correlation, a log-probability) with its
    bootstrap interval; the mean over every row and the mean of the group means marked."""

    title = "Means per group"
    x_axis = PlainAxis
    kind = "score"
    measure = True
    what = "mean, in the measure's own unit"


class SystemRateChart(IntervalChart):
    title = "Success rate per system"

    def rows(self, result):
        try:
            frame = result.table("systems").frame
        except KeyError:
            return []
        return [{"label": r["system"], "est": r["success_rate"], "low": r["ci_low"], "high": r["ci_high"],
                 "n": r["requests"], "group": i, "colour": system_colour(r["system"]),
                 "legend": str(r["system"])}
                for i, (_, r) in enumerate(frame.iterrows())]

    def draw(self, result) -> None:
        super().draw(result)
        frame = _table_of(result, "systems")
        methods = list(frame["ci_method"].dropna()) if frame is not None and "ci_method" in frame else []
        self.set_labels(bottom=f"success rate ({interval_words(methods)})")


def _table_of(result, name: str):
    try:
        return result.table(name).frame
    except KeyError:
        return None


def interval_words(methods) -> str:
    from ...report import present

    return present.interval_words(methods)


def diff_kind(metric: str) -> str:
    """The presentation kind of a difference of ``metric`` (a rate's difference is in points,
    a 0-1 score's is a score difference, BLEU/chrF stay on their 0-100 scale)."""
    from ...report import present

    mid = str(metric)
    if mid.startswith("sentence_"):
        mid = mid[len("sentence_"):]
    base = present.kind_of(mid)
    return {"rate": "points", "bleu": "bleu"}.get(base, "score_diff")


def fmt_diff(v, kind: str) -> str:
    """A difference by the presentation policy (signed also on the BLEU scale)."""
    text = fmt(v, kind)
    if kind == "bleu" and text[:1].isdigit() and np.isfinite(v) and v > 0:
        text = "+" + text
    return text


class SystemsDiffChart(IntervalChart):
    """"Systems compared": the mean difference (candidate − baseline) of each metric with its
    paired bootstrap 95% interval, one row per metric (and pair), a line at zero.  Drawn from
    the result's ``systems_compared`` table only.  Metrics on the 0-1 scale here; BLEU/chrF
    (0-100) in :class:`CorpusDiffChart`."""

    title = "Differences per metric"
    zero_line = True
    x_axis = PlainAxis
    #: which metrics this chart shows: the 0-1 ones
    bleu_scale = False

    def rows(self, result):
        try:
            frame = result.table("systems_compared").frame
        except KeyError:
            return []
        if frame is None or not len(frame):
            return []
        from ...report import present

        unit = "queries" if "queries" in frame.columns else "items"
        pairs = list(dict.fromkeys(zip(frame["from"].astype(str), frame["to"].astype(str))))
        out = []
        for _, r in frame.iterrows():
            kind = diff_kind(r["metric"])
            if (kind == "bleu") != self.bleu_scale:
                continue
            pair = (str(r["from"]), str(r["to"]))
            name = present.display_name(str(r["metric"]))
            label = name if len(pairs) == 1 else f"{name} · {pair[0]} → {pair[1]}"
            out.append({"label": label, "est": r["diff"], "low": r["ci_low"], "high": r["ci_high"],
                        "n": r.get(unit), "group": pairs.index(pair), "kind": kind,
                        "metric": str(r["metric"]), "from": pair[0], "to": pair[1],
                        "legend": f"{pair[1]} − {pair[0]} (paired bootstrap 95% interval)"})
        return out

    def draw(self, result) -> None:
        rows = self.rows(result)
        super().draw(result)
        if not rows:
            return
        got = self._plotted["intervals"]
        got["metric"] = np.array([r["metric"] for r in rows], dtype=object)
        got["from"] = np.array([r["from"] for r in rows], dtype=object)
        got["to"] = np.array([r["to"] for r in rows], dtype=object)
        got["text"] = np.array([self._tip(r) for r in rows], dtype=object)
        scale = "BLEU/chrF points, 0-100 scale" if self.bleu_scale else "0-1 scale"
        self.set_labels(bottom=f"candidate − baseline ({scale})")

    def _tip(self, r: dict) -> str:
        kind = r.get("kind", "score_diff")
        text = f"{r['label']}: {fmt_diff(r['est'], kind)}"
        if np.isfinite(r.get("low", np.nan)):
            text += f"  [{fmt_diff(r['low'], kind)}, {fmt_diff(r['high'], kind)}]"
        n = r.get("n")
        if n is not None and np.isfinite(float(n)):
            text += f"  n = {fmt(n, 'count')}"
        return text


class CorpusDiffChart(SystemsDiffChart):
    """The BLEU/chrF rows of "Systems compared" (corpus and sentence level, 0-100 scale)."""

    title = "BLEU/chrF differences"
    bleu_scale = True
