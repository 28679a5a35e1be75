"""The chart widget every panel chart builds on (pyqtgraph).

A chart is drawn from a result's tables only: ``update(result)`` reads the tables and redraws
in place (same widget, no flicker).  Each chart records what it plotted (:meth:`plotted`) so
tests can compare it with the table, offers hover tooltips with the exact value and its n,
uses a colour-blind-safe palette (Okabe-Ito), follows the light/dark palette and the app font
(presentation mode), and exports PNG at 2x, SVG, or the clipboard from its context menu.
"""

from __future__ import annotations

import math
import os

os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")

import numpy as np  # noqa: E402
import pyqtgraph as pg  # noqa: E402

from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtGui import QFont, QPalette  # noqa: E402
from PySide6.QtWidgets import QApplication, QToolTip  # noqa: E402

from ...core.numbers import localize  # noqa: E402
from .output import ChartOutput  # noqa: E402
from .palette import (GREY, OKABE_ITO, colour, reset_system_colours, system_colour,  # noqa: E402, F401
                      system_index)

pg.setConfigOptions(antialias=True)


class PointsAxis(pg.AxisItem):
    """An axis for differences of rates stored as fractions: ticks in points (+4, 0, -2)."""

    #: a size of a difference (a minimum detectable difference): no sign
    signed = True

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.enableAutoSIPrefix(False)

    def tickStrings(self, values, scale, spacing):  # noqa: N802 - Qt naming
        step = spacing * 100
        decimals = 0 if step >= 1 else (1 if step >= 0.1 else 2)
        out = []
        for v in values:
            text = f"{v * 100:{'+' if self.signed else ''}.{decimals}f}"
            out.append("0" if float(text) == 0 else localize(text))
        return out


def dark_mode() -> bool:
    return QApplication.palette().color(QPalette.ColorRole.Window).lightness() < 128


class MarginAxis(PointsAxis):
    """Sizes of differences in points (2, 5, 10): unsigned, as the policy's ``margin``."""

    signed = False


class PercentAxis(pg.AxisItem):
    """An axis for rates stored as fractions: ticks read 0%, 25%, ... (no SI scaling)."""

    def __init__(self, *args, decimals: int | None = None, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.enableAutoSIPrefix(False)
        self._decimals = decimals

    def tickStrings(self, values, scale, spacing):  # noqa: N802 - Qt naming
        decimals = self._decimals
        if decimals is None:
            step = spacing * 100
            decimals = 0 if step >= 1 else (1 if step >= 0.1 else 2)
        return [localize(f"{v * 100:.{decimals}f}%") for v in values]


class PlainAxis(pg.AxisItem):
    """A numeric axis without SI prefixes (no 'x0.001'), in the numbers' locale."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.enableAutoSIPrefix(False)

    def tickStrings(self, values, scale, spacing):  # noqa: N802 - Qt naming
        return [localize(text) for text in super().tickStrings(values, scale, spacing)]


class IntegerAxis(pg.AxisItem):
    """A count axis (k attempts, cut-offs): ticks only at whole numbers, never "1.5 attempts"."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.enableAutoSIPrefix(False)

    def tickValues(self, minVal, maxVal, size):  # noqa: N802,N803 - Qt naming
        levels = super().tickValues(minVal, maxVal, size)
        out = []
        for spacing, values in levels:
            whole = [v for v in values if abs(v - round(v)) < 1e-9]
            if spacing >= 1 - 1e-9 and whole:
                out.append((spacing, whole))
        if not out:  # a narrow view: every whole number in it
            lo, hi = math.ceil(minVal), math.floor(maxVal)
            out = [(1.0, [float(v) for v in range(int(lo), int(hi) + 1)])]
        return out

    def tickStrings(self, values, scale, spacing):  # noqa: N802 - Qt naming
        return [localize(f"{int(round(v)):,}") for v in values]


def spaced_log_ticks(values, keep=(), min_gap: float = 0.17) -> list[float]:
    """Tick positions among ``values`` (positive numbers on a log axis) whose labels do not
    collide: the ``keep`` values first (the current plan), then the 1-2-5 values, then the
    others, each only if it is at least ``min_gap`` decades from every tick already chosen
    (400 beside 500 is 0.1 decade: "400500")."""
    vals = sorted({float(v) for v in values if v and v > 0})

    def nice(v: float) -> bool:
        lead = v / 10 ** math.floor(math.log10(v))
        return any(abs(lead - d) < 1e-9 for d in (1, 2, 5))

    order = [float(v) for v in keep if v and v > 0] + [v for v in vals if nice(v)] + \
        [v for v in vals if not nice(v)]
    chosen: list[float] = []
    for v in order:
        if all(abs(math.log10(v) - math.log10(c)) >= min_gap for c in chosen):
            chosen.append(v)
    return sorted(chosen)


class LabelAxis(pg.AxisItem):
    """An axis whose integer positions carry text labels (rows of a forest plot, bars)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.enableAutoSIPrefix(False)
        self.labels: list[str] = []

    def set_labels(self, labels) -> None:
        self.labels = [str(x) for x in labels]
        self.setTicks([[(i, lab) for i, lab in enumerate(self.labels)], []])


def chart_min_height() -> int:
    """A chart's least height: 260 px, less on a short screen (a laptop at 200% scale has 540
    px of height in all: the answer, the tabs and a chart must fit in it)."""
    screen = QApplication.primaryScreen()
    height = screen.availableGeometry().height() if screen is not None else 800
    return max(120, min(260, int(height * 0.22)))


class Chart(ChartOutput, pg.PlotWidget):
    """Base class: subclasses implement :meth:`draw` from an AnalysisResult."""

    title = "Chart"
    x_axis: type[pg.AxisItem] = PlainAxis
    y_axis: type[pg.AxisItem] = PlainAxis

    def __init__(self, parent=None) -> None:
        axes = {"bottom": self.x_axis(orientation="bottom"), "left": self.y_axis(orientation="left")}
        super().__init__(parent=parent, axisItems=axes)
        self.setObjectName(f"chart:{type(self).__name__}")
        self.setMinimumHeight(chart_min_height())
        self.plotItem.showGrid(x=True, y=True, alpha=0.18)
        # the legend sits under the plot, outside the data area: it never covers a point
        self.legend = pg.LegendItem(colCount=3)
        self.plotItem.layout.addItem(self.legend, 4, 1)
        self.plotItem.layout.setRowStretchFactor(4, 0)
        self.plotItem.legend = self.legend  # items added with name= join it
        self._plotted: dict[str, dict] = {}
        self._hover: list[tuple] = []  # (xs, ys, row numbers, texts or a function of the row)
        self.scene().sigMouseMoved.connect(self._on_mouse_moved)
        self._add_export_actions()
        self.apply_theme()

    # -- drawing -----------------------------------------------------------------------------
    def update_from(self, result) -> None:
        """Redraw from ``result`` in place."""
        self.apply_theme()
        self.plotItem.clear()
        self.legend.clear()
        self.plotItem.setTitle(None)
        self._note = ""
        self._plotted = {}
        self._hover = []
        self.plotItem.enableAutoRange()
        self.draw(result)
        self.fit_legend()
        self.describe()

    #: the most legend entries a row holds (fewer when the chart is narrow: see resizeEvent)
    legend_max_cols = 3

    def fit_legend(self) -> None:
        """As many legend entries a row as the chart's width holds (at most
        :attr:`legend_max_cols`): a row of three long entries made the plot wider than its tab
        at 1280x800 and cut the right of the axis and the legend."""
        legend = self.__dict__.get("legend")  # resizeEvent comes during pyqtgraph's __init__ too
        if legend is None or not legend.items:
            return
        fm = self.fontMetrics()
        widest = max(fm.horizontalAdvance(str(label.text)) for _sample, label in self.legend.items) + 60
        cols = max(1, min(self.legend_max_cols, int(max(1, self.width() - 40) // max(1, widest))))
        if cols != self.legend.columnCount:
            self.legend.setColumnCount(cols)

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        self.fit_legend()

    def legend_line(self, pen, name: str) -> None:
        """A legend entry for a line that has no item of its own in the legend (medians,
        quartiles, interval bounds, limits)."""
        self.legend.addItem(pg.PlotDataItem([np.nan], [np.nan], pen=pen), name)

    def legend_names(self) -> list[str]:
        return [label.text for _sample, label in self.legend.items]

    def reset(self) -> None:
        """Draw nothing (the panel's result was taken off screen)."""
        self.plotItem.clear()
        self.legend.clear()
        self._plotted = {}
        self._hover = []
        self.describe()

    def applies(self, result) -> bool:
        """Whether this chart has something to show for ``result`` (else its tab hides)."""
        return True

    def draw(self, result) -> None:
        """Subclasses draw ``result``'s tables here; the base chart stays empty."""
        return None

    def record(self, name: str, **arrays) -> None:
        """Remember what was plotted under ``name`` (for tests and for the hover texts)."""
        self._plotted[name] = {k: (np.asarray(v) if not isinstance(v, (str, bool)) else v)
                               for k, v in arrays.items()}

    def plotted(self) -> dict[str, dict]:
        return self._plotted

    def interval_bars(self, x, y, low, high, pen, *, beam: float, horizontal: bool = False,
                      name: str | None = None) -> int:
        """Error bars from ``low`` to ``high`` around (x, y) where the bounds are finite (a
        missing or degenerate interval draws no bar, never a zero-width one); vertical unless
        ``horizontal``.  Recorded under ``name`` (for tests); returns how many were drawn."""
        x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
        low, high = np.asarray(low, dtype=float), np.asarray(high, dtype=float)
        ok = np.isfinite(x) & np.isfinite(y) & np.isfinite(low) & np.isfinite(high) & (high > low)
        if ok.any():
            spread = {"left": x[ok] - low[ok], "right": high[ok] - x[ok]} if horizontal \
                else {"bottom": y[ok] - low[ok], "top": high[ok] - y[ok]}
            self.plotItem.addItem(pg.ErrorBarItem(x=x[ok], y=y[ok], beam=beam, pen=pen, **spread))
        if name is not None:
            self.record(name, x=x, y=y, ci_low=low, ci_high=high)
        return int(ok.sum())

    def mean_with_interval(self, result, metric: str, x: float, values, system, unit: str,
                           units: str | None = None) -> int:
        """Beside a strip of per-unit values at ``x``: the headline mean of ``metric`` (a
        diamond) with its 95% interval from the result's records (a bar), hover naming n."""
        found = [r for r in result.records if r.get("metric") == metric
                 and (system is None or str(r.get("system", system)) == str(system))]
        if len(found) != 1 or found[0].get("value") is None:
            return 0
        rec = found[0]
        mean, (lo, hi) = float(rec["value"]), record_interval(result, metric, system)
        at = x + 0.34
        self.interval_bars([at], [mean], [lo], [hi], pg.mkPen(self._fg, width=1.6), beam=0.08,
                           name=f"{system if system is not None else 'all'} mean interval")
        self.plotItem.addItem(pg.ScatterPlotItem(x=[at], y=[mean], symbol="d", size=11, brush=pg.mkBrush(self._fg),
                                                 pen=pg.mkPen("w", width=0.8)))
        method = rec.get("ci_method") or ("degenerate: every resample equal" if rec.get("degenerate") else "none")
        self.hover([at], [mean], [f"mean {fmt(mean, 'score')}{interval_text(lo, hi, 'score')} over "
                                  f"{rec.get('n', len(values)):,} {unit if rec.get('n') == 1 else units or unit + 's'}"
                                  f"\ninterval: {method}"])
        return 1

    def hover(self, xs, ys, texts) -> None:
        """Points that show a tooltip when the mouse comes near them: ``texts`` is a sequence
        (one text per point) or a function of the point's position, called only for the point
        shown (a chart of 100,000 items does not format 100,000 texts)."""
        xs, ys = np.asarray(xs, dtype=float), np.asarray(ys, dtype=float)
        ok = np.flatnonzero(np.isfinite(xs) & np.isfinite(ys))
        if ok.size:
            self._hover.append((xs[ok], ys[ok], ok, texts))

    def _nearest(self, x: float, y: float, sx: float, sy: float) -> tuple[str | None, float]:
        """The hover text of the point nearest to (x, y), distances scaled by (sx, sy)."""
        best, best_d = None, math.inf
        for xs, ys, rows, texts in self._hover:
            d = np.hypot((xs - x) / sx, (ys - y) / sy)
            j = int(np.argmin(d))
            if d[j] < best_d:
                i = int(rows[j])
                best, best_d = str(texts(i) if callable(texts) else texts[i]), float(d[j])
        return best, best_d

    def set_labels(self, *, bottom: str = "", left: str = "", units_bottom: str = "",
                   units_left: str = "") -> None:
        style = {"color": self._fg.name(), "font-size": f"{self._font_pt:.0f}pt"}
        self.plotItem.setLabel("bottom", bottom, units=units_bottom or None, **style)
        self.plotItem.setLabel("left", left, units=units_left or None, **style)

    def pen(self, i: int, width: float = 2.0, style=Qt.PenStyle.SolidLine):
        return pg.mkPen(colour(i), width=width, style=style)

    def note(self, text: str) -> None:
        """A caption above the plot; a long one on two lines (one line of 80 characters made the
        plot wider than its tab at 1280x800 and cut the right of the axis)."""
        import html

        shown = html.escape(text)
        if len(text) > 56:
            middle = len(text) // 2
            spaces = [i for i, ch in enumerate(text) if ch == " "]
            if spaces:
                cut = min(spaces, key=lambda i: abs(i - middle))
                shown = html.escape(text[:cut]) + "<br>" + html.escape(text[cut + 1:])
        self.plotItem.setTitle(shown, color=self._fg.name(), size=f"{self._font_pt:.0f}pt")
        self._note = text

    def note_text(self) -> str:
        """The caption as written (for tests)."""
        return getattr(self, "_note", "")

    def text(self, x: float, y: float, text: str, *, anchor=(0, 0.5), color=None) -> pg.TextItem:
        item = pg.TextItem(text, color=color or self._fg, anchor=anchor)
        item.setFont(self._font)
        item.setPos(x, y)
        self.plotItem.addItem(item)
        return item

    # -- look ----------------------------------------------------------------------------------
    def apply_theme(self) -> None:
        pal = QApplication.palette()
        bg = pal.color(QPalette.ColorRole.Base)
        self._fg = pal.color(QPalette.ColorRole.Text)
        self.setBackground(bg)
        self._font = QFont(QApplication.font())
        self._font_pt = self._font.pointSizeF() if self._font.pointSizeF() > 0 else 10.0
        for name in ("left", "bottom"):
            axis = self.plotItem.getAxis(name)
            axis.setPen(pg.mkPen(self._fg))
            axis.setTextPen(pg.mkPen(self._fg))
            axis.setStyle(tickFont=self._font)
        self.legend.setLabelTextColor(self._fg)
        self.legend.setLabelTextSize(f"{self._font_pt:.0f}pt")

    # -- hover ---------------------------------------------------------------------------------
    def _on_mouse_moved(self, pos) -> None:
        if not self._hover or not self.plotItem.sceneBoundingRect().contains(pos):
            return
        vb = self.plotItem.vb
        at = vb.mapSceneToView(pos)
        size = vb.viewPixelSize()  # data units per pixel, x and y
        best, d = self._nearest(at.x(), at.y(), size[0] or 1.0, size[1] or 1.0)
        if best is not None and d < 18.0:  # pixels
            QToolTip.showText(self.mapToGlobal(self.mapFromScene(pos)), best, self)
        else:
            QToolTip.hideText()

    def tooltip_at(self, x: float, y: float) -> str | None:
        """The hover text of the point nearest to data coordinates (x, y) (for tests)."""
        if not self._hover:
            return None
        return self._nearest(x, y, 1.0, 1.0)[0]


def record_interval(result, metric: str, system=None) -> tuple[float, float]:
    """The 95% interval (low, high) of the headline record ``metric`` (of ``system`` when the
    records name systems); (nan, nan) when there is none, or it is degenerate."""
    found = [r for r in result.records if r.get("metric") == metric
             and (system is None or str(r.get("system", system)) == str(system))]
    if len(found) != 1 or found[0].get("degenerate"):
        return math.nan, math.nan
    lo, hi = found[0].get("ci_low"), found[0].get("ci_high")
    if lo is None or hi is None:
        return math.nan, math.nan
    return float(lo), float(hi)


def interval_text(low: float, high: float, kind: str) -> str:
    """`` [low, high]`` for a hover text, or nothing when there is no interval."""
    return f" [{fmt(low, kind)}, {fmt(high, kind)}]" if math.isfinite(low) and math.isfinite(high) else ""


def fmt(v, kind: str) -> str:
    """A number on a chart (hover, labels) by the one presentation policy."""
    from ...report import present

    return present.format_value(v, kind)


def fmt_rate(v: float) -> str:
    return fmt(v, "rate")


def fmt_points(v: float) -> str:
    return fmt(v, "points")


def fmt_num(v: float, kind: str = "plain") -> str:
    return fmt(v, kind)
