"""Writing a planned sheet, top to bottom (each row once: constant memory mode needs it).

Cells are typed: numbers are numbers with a number format, booleans booleans, dates dates,
blanks blank; text always goes through ``write_string`` (never a formula, never a link), with
Excel's quote prefix when it looks like a formula.  Derived numbers are formulas with the
workbench's value stored beside them.
"""

from __future__ import annotations

import datetime as dt
import math
from decimal import Decimal
from typing import Any

import numpy as np
import pandas as pd
from xlsxwriter.utility import xl_rowcol_to_cell

from .layout import (CHART_GAP, CHART_W, ROW_PX, Block, Gap, Heading, Line, NoFormula,
                     Refs, SheetPlan, band_chars, chart_rows, text_lines, width_px)
from ..core.numbers import _SCALE, DECIMALS
from .fastrows import excel_number, write_rows_xml
from .safety import cell_text, looks_like_formula, quote_sheet
from .styles import LEGACY_KINDS, LINE_HEIGHT, Styles

#: The frozen rows (header and what is above it) must leave room for the data: no freeze when
#: they would be taller than this (pixels; about a third of a laptop's spreadsheet window).
MAX_FROZEN_PX = 360
#: The rule file's text (LibreOffice shows Courier New as the metric-compatible Liberation Mono).
CODE_FONT = "Courier New"
#: Rows converted to Python values at a time.
CHUNK_ROWS = 10_000
_INT_LIMIT = 2 ** 53
#: Long tables in constant memory mode are written as sheet XML a column at a time
#: (:mod:`.fastrows`); False writes every cell through XlsxWriter (the tests compare the two).
FAST_ROWS = True
#: The smallest magnitude (in the kind's displayed unit) that shows a nonzero digit at the
#: kind's decimals: from there up, a decimal kind has one format.
_VISIBLE = {k: 10.0 ** -d for k, d in DECIMALS.items()}


def plain_value(value: Any) -> tuple[str, Any] | None:
    """What a cell holding ``value`` is: ``("n", number)``, ``("s", text)``, ``("b", bool)``,
    ``("d", naive UTC datetime)``, or ``None`` (left blank: None, NaN, NA, NaT).

    inf and -inf are the text ``inf``/``-inf``; integers beyond a double's 53 bits keep all their
    digits as text; numpy scalars, ``Decimal`` and float subclasses are their Python numbers;
    anything else is its ``str``."""
    t = type(value)
    if t is float:
        if value != value:
            return None
        if value in (math.inf, -math.inf):
            return ("s", "inf" if value > 0 else "-inf")
        return ("n", value)
    if t is int:
        if -_INT_LIMIT < value < _INT_LIMIT:
            return ("n", value)
        return ("s", str(value))  # more digits than a double holds: keep them all, as text
    if t is str:
        return ("s", value)
    if value is None or value is pd.NA or value is pd.NaT:
        return None
    if isinstance(value, (bool, np.bool_)):
        return ("b", bool(value))
    if isinstance(value, (np.generic, np.ndarray)) and np.ndim(value) == 0:  # numpy scalars
        return plain_value(value.item())
    if isinstance(value, Decimal):
        return plain_value(float(value))
    if isinstance(value, (dt.datetime, dt.date)):
        if isinstance(value, pd.Timestamp):
            value = value.to_pydatetime()
        if isinstance(value, dt.datetime) and value.tzinfo is not None:
            value = value.astimezone(dt.timezone.utc).replace(tzinfo=None)
        return ("d", value)
    if isinstance(value, float):  # float subclasses
        return plain_value(float(value))
    return ("s", str(value))


#: A cell as decided before it is written: (type, payload, format) with type ``n`` (number),
#: ``s`` (text, already cut to a cell's size), ``b`` (boolean), ``d`` (datetime) or ``f``
#: (payload: the formula without "=" and its stored value).
Cell = tuple[str, Any, Any]


class CellWriter:
    """Writes one Python value into a cell with the right XlsxWriter call."""

    def __init__(self, ws, styles: Styles) -> None:
        self.ws = ws
        self.styles = styles

    def text_cell(self, text: str, fmt=None, guard_fmt=None) -> Cell:
        text = cell_text(text)
        if looks_like_formula(text):
            fmt = guard_fmt if guard_fmt is not None else self.styles.cell("text", guard=True)
        return ("s", text, fmt)

    def text(self, row: int, col: int, text: str, fmt=None, guard_fmt=None) -> None:
        self.emit(row, col, self.text_cell(text, fmt, guard_fmt))

    def cell(self, value: Any, fmt, text_fmt=None, guard_fmt=None) -> Cell | None:
        """``fmt`` for numbers, ``text_fmt``/``guard_fmt`` for text; ``None``: left blank."""
        p = plain_value(value)
        if p is None:
            return None
        t, v = p
        if t == "n":
            return ("n", v, fmt)
        if t == "s":
            return self.text_cell(v, text_fmt, guard_fmt)
        if t == "b":
            return ("b", v, self.styles.boolean())
        return ("d", v, self.styles.datetime())

    def value(self, row: int, col: int, value: Any, fmt, text_fmt=None, guard_fmt=None) -> None:
        """``fmt`` for numbers, ``text_fmt``/``guard_fmt`` for text; blanks stay blank."""
        cell = self.cell(value, fmt, text_fmt, guard_fmt)
        if cell is not None:
            self.emit(row, col, cell)

    def emit(self, row: int, col: int, cell: Cell) -> None:
        ws = self.ws
        t, v, fmt = cell
        if t == "n":
            code = ws.write_number(row, col, excel_number(v), fmt)
        elif t == "s":
            if v.startswith("<r>") and v.endswith("</r>"):
                # XlsxWriter would write such text as raw rich-text XML (a broken file, or
                # hidden text): two runs of the same text, in the cell's font, keep it text
                run = fmt if fmt is not None else self.styles.get()
                code = ws.write_rich_string(row, col, run, v[:3], run, v[3:], run)
            else:
                code = ws.write_string(row, col, v, fmt)
        elif t == "b":
            code = ws.write_boolean(row, col, v, fmt)
        elif t == "d":
            code = ws.write_datetime(row, col, v, fmt)
        else:
            code = ws.write_formula(row, col, "=" + v[0], fmt, excel_number(v[1]))
        _check(code, row, col)


def _check(code: int | None, row: int, col: int) -> None:
    """XlsxWriter reports a cell it did not write (out of the sheet, or an earlier row in
    constant memory mode) by a negative code: that would be a silent loss, so it is a bug."""
    if code:
        raise RuntimeError(f"XlsxWriter refused cell {xl_rowcol_to_cell(row, col)} (code {code})")


def _finite_number(value: Any) -> bool:
    if isinstance(value, (bool, np.bool_)):
        return False
    if isinstance(value, (int, float, np.integer, np.floating)):
        try:
            return math.isfinite(float(value))
        except OverflowError:  # an integer beyond a double's range: written as text
            return False
    return False


def render_sheet(wb, ws, plan: SheetPlan, styles: Styles, refs: Refs) -> None:
    refs.current = plan.name
    cells = CellWriter(ws, styles)
    for c, w in enumerate(plan.widths):
        ws.set_column(c, c, w)
    for item in plan.items:
        if isinstance(item, Heading):
            fmt = styles.heading if item.size == "sheet" else styles.block_title
            _set_height(ws, plan, item.row, 21 if item.size == "sheet" else 16)
            cells.text(item.row, 0, item.text, fmt, fmt)
        elif isinstance(item, Line):
            _line(ws, cells, plan, item, styles)
        elif isinstance(item, Block):
            _block(ws, cells, plan, item, styles, refs)
        elif isinstance(item, Gap):
            pass
    _filter_and_freeze(ws, plan)
    _print_setup(ws, plan, _charts(wb, ws, plan, refs))


def _line(ws, cells: CellWriter, plan: SheetPlan, it: Line, styles: Styles) -> None:
    r = it.row
    value = it.value
    if isinstance(value, str):
        style = {"note": styles.text(), "signature": styles.text(grey=True, small=True),
                 "legend": styles.text(grey=True, small=True, italic=True),
                 "answer": styles.get(text_wrap=True, align="left", font_size=11),
                 "warning": styles.get(text_wrap=True, align="left", bold=True, font_color="#9C1C1C"),
                 "code": styles.get(text_wrap=False, align="left", font_name=CODE_FONT, font_size=9,
                                    bg_color="#F4F6F8")}.get(it.style, styles.text())
        guard = styles.text(grey=it.style in ("signature", "legend"), small=it.style in ("signature", "legend"),
                            italic=it.style == "legend", guard=True)
        if it.style == "code":
            guard = styles.get(text_wrap=False, align="left", font_name=CODE_FONT, font_size=9,
                               bg_color="#F4F6F8", quote_prefix=True)
        if it.style == "verdict":
            style = guard = styles.status(value, big=True)
            _set_height(ws, plan, r, 21)
        elif it.style != "code":
            lines = text_lines(value, band_chars(plan) / (1.05 if it.style == "answer" else 1.0))
            if lines > 1:
                _set_height(ws, plan, r, lines * (LINE_HEIGHT + (1.5 if it.style == "answer" else 0)) + 3)
            elif it.style == "answer":
                _set_height(ws, plan, r, LINE_HEIGHT + 3)
    _label(ws, cells, it, styles)
    if value is None:
        return
    if isinstance(value, str):
        last = min(plan.band, 3) if it.style == "verdict" else plan.band
        if last > 1:
            ws.merge_range(r, 1, r, last, "", style)
        cells.text(r, 1, value, style, guard)
    else:
        kind = _kind(it.kind)
        number = _finite_number(value)
        fmt = styles.get(num_format='#,##0 "bytes"', align="left") if it.style == "bytes" else \
            styles.get(num_format=(styles.number_format(kind, float(value)) if number else None) or "General",
                       align="left")
        if number and kind in ("points", "margin"):
            value = float(value) * 100.0
        cells.value(r, 1, value, fmt, styles.text(wrap=False))


def _label(ws, cells: CellWriter, it: Line, styles: Styles) -> None:
    if not it.label:
        return
    if it.link:
        url = f"internal:{quote_sheet(it.link)}!A1"
        ws.write_url(it.row, 0, url, styles.link, string=cell_text(it.label),
                     tip=f"Go to sheet {it.link}")
    else:
        cells.text(it.row, 0, it.label, styles.label)


def _block(ws, cells: CellWriter, plan: SheetPlan, b: Block, styles: Styles, refs: Refs) -> None:
    title = b.title + (f" (part {b.part} of {b.parts})" if b.parts > 1 else "")
    cells.text(b.row, 0, title, styles.block_title)
    if not b.legend_below:
        _legend(ws, cells, plan, b, styles)
    columns = b.columns
    for c, name in enumerate(columns):
        align = "center" if name == b.status_column else "right" if numeric_column(b, name) else None
        cells.text(b.header_row, c, b.header_text(name), styles.header_cell(align=align),
                   styles.header_cell(align=align, guard=True))

    deciders = [ColumnCells(cells, b, name, styles, refs) for name in columns]
    wrap_widths = [plan.widths[c] if name in b.wrap else 0.0 for c, name in enumerate(columns)]
    if not (FAST_ROWS and write_rows_xml(ws, plan, b, deciders, wrap_widths)):
        _rows(ws, cells, plan, b, deciders, wrap_widths)
    if b.legend_below:
        _legend(ws, cells, plan, b, styles)


def _legend(ws, cells: CellWriter, plan: SheetPlan, b: Block, styles: Styles) -> None:
    legend_fmt = styles.text(grey=True, small=True, italic=True)
    for j, text in enumerate(b.legend):
        r = b.legend_row + j
        lines = text_lines(text, band_chars(plan))
        if lines > 1:
            _set_height(ws, plan, r, lines * LINE_HEIGHT + 3)
        if plan.band > 1:
            ws.merge_range(r, 1, r, plan.band, "", legend_fmt)
        cells.text(r, 1, text, legend_fmt, styles.text(grey=True, small=True, italic=True, guard=True))


def _set_height(ws, plan: SheetPlan, row: int, points: float) -> None:
    ws.set_row(row, points)
    plan.heights[row] = points


def _kind(kind: str | None) -> str | None:
    return LEGACY_KINDS.get(kind, kind) if kind else kind


def numeric_column(b: Block, name: str) -> bool:
    """Whether a column holds numbers (its header is then right-aligned over them)."""
    kind = _kind(b.formats.get(name))
    if kind and kind not in ("plain", "text"):
        return True
    col = b.frame[name].iloc[b.start:b.stop]
    if pd.api.types.is_bool_dtype(col.dtype):
        return False
    if pd.api.types.is_numeric_dtype(col.dtype):
        return True
    sample = [v for v in col.head(200).tolist() if plain_value(v) is not None]  # not blank
    return bool(sample) and all(_finite_number(v) for v in sample)


def _rows(ws, cells: CellWriter, plan: SheetPlan, b: Block, deciders: list["ColumnCells"],
          wrap_widths: list[float]) -> None:
    """The table's rows, cell by cell through XlsxWriter."""
    wraps = any(wrap_widths)
    emit = cells.emit
    row = b.first_row
    # a chunk of rows at a time becomes Python values: memory stays bounded on long tables
    for lo in range(b.start, b.stop, CHUNK_ROWS):
        hi = min(b.stop, lo + CHUNK_ROWS)
        chunk = b.frame.iloc[lo:hi]
        columns_values = [chunk[name].tolist() for name in b.columns]
        for j, i in enumerate(range(lo, hi)):
            values = [vals[j] for vals in columns_values]
            if wraps:
                # rows with wrapped text get their height (Excel and LibreOffice do not fit it)
                lines = max(text_lines(v, w) if w and isinstance(v, str) else 1
                            for v, w in zip(values, wrap_widths))
                if lines > 1:
                    _set_height(ws, plan, row, lines * LINE_HEIGHT + 2)
            for c, (decide, v) in enumerate(zip(deciders, values)):
                cell = decide(i, v)
                if cell is not None:
                    emit(row, c, cell)
                    if b.comment is not None:
                        note = b.comment(b.columns[c], i)
                        if note:
                            ws.write_comment(row, c, note)
            row += 1


class ColumnCells:
    """Decides the cells of one column of a table: ``decider(frame row, value)`` gives the
    :data:`Cell` to write (or ``None``: blank).

    A number gets the format :mod:`.present` gives its kind and value (so the cell shows what
    the sentences say); a ``points`` cell holds the value in points (x 100).  What does not
    change along the column (its kind, its text formats, its formula) is decided once."""

    def __init__(self, cells: CellWriter, b: Block, name: str, styles: Styles, refs: Refs) -> None:
        self.cells = cells
        self.styles = styles
        self.refs = refs
        self.name = name
        self.kind = column_kind = _kind(b.formats.get(name))
        if name in b.wrap:
            self.text_fmt, self.guard_fmt = styles.wrapped("text"), styles.wrapped("text", guard=True)
        elif column_kind not in (None, "plain", "text"):  # a word among numbers ("dominated"): aligned as they are
            self.text_fmt = styles.cell(None, align="right")
            self.guard_fmt = styles.cell("text", guard=True, align="right")
        else:
            self.text_fmt = styles.cell("text" if column_kind == "text" else None)
            self.guard_fmt = styles.cell("text", guard=True)
        self.formula = b.formulas.get(name)
        self.cell_kind = b.cell_kind
        self.status = b.status_column == name
        #: formats of numbers by class (see number_fmt)
        self._formats: dict[Any, Any] = {}

    @property
    def uniform(self) -> bool:
        """Every cell's decision depends on its value alone (no formula, status or per-row kind)."""
        return self.formula is None and self.cell_kind is None and not self.status

    def kind_at(self, i: int) -> str | None:
        if self.cell_kind is not None:
            k = _kind(self.cell_kind(self.name, i))
            if k:
                return k
        return self.kind

    def number_fmt(self, k: str | None, v: Any):
        """``styles.cell(k, value=v)`` for a finite number ``v`` (``text`` as no kind), decided
        once per class of values that share a format: every value of a plain column; every
        integer (and every fraction) of a count; every value of a decimal kind that does not
        round to zero (those that do keep two significant digits, each its own format)."""
        x = float(v)
        if k in DECIMALS and k != "latency":  # a latency's decimals follow the value (four significant digits)
            shown = x * _SCALE.get(k, 1.0)
            key = k if shown == 0 or abs(shown) >= _VISIBLE[k] else None
        elif k == "count":
            key = ("count", x != int(x))
        elif k in (None, "plain", "text"):
            key = "plain"
        else:  # p-values, costs, latencies: decimals follow the value
            key = None
        if key is None:
            return self.styles.cell(k if k != "text" else None, value=x)
        fmt = self._formats.get(key)
        if fmt is None:
            fmt = self._formats[key] = self.styles.cell(k if k != "text" else None, value=x)
        return fmt

    def __call__(self, i: int, v: Any) -> Cell | None:
        if self.status:
            if v is None or (isinstance(v, float) and math.isnan(v)):
                return None
            fmt = self.styles.status(str(v))
            return self.cells.text_cell(str(v), fmt, fmt)
        if isinstance(v, np.ndarray) and v.ndim == 0:
            v = v.item()
        k = self.kind_at(i)
        if not _finite_number(v):
            p = plain_value(v)
            if p is not None and p[0] == "n":  # a Decimal: a number of no kind
                return ("n", p[1], self.styles.cell(k if k == "text" else None))
            return None if p is None else self.cells.cell(v, None, self.text_fmt, self.guard_fmt)
        fmt = self.number_fmt(k, v)
        stored = float(v) * 100.0 if k in ("points", "margin") else v  # differences of rates: in points
        if self.formula is not None:
            try:
                text = self.formula(self.refs, i)
            except (NoFormula, KeyError, IndexError, ValueError):
                text = None
            if text:
                return ("f", (text, float(stored)), fmt)
        return self.cells.cell(stored, fmt, self.text_fmt, self.guard_fmt)


def _filter_and_freeze(ws, plan: SheetPlan) -> None:
    block = next((b for b in plan.blocks() if b.filter), None)
    if block is None:
        return
    last_col = max(0, len(block.columns) - 1)
    ws.autofilter(block.header_row, 0, max(block.last_row, block.header_row), last_col)
    frozen = sum(plan.heights.get(r, LINE_HEIGHT) for r in range(block.header_row + 1)) * 96 / 72
    if plan.freeze and frozen <= MAX_FROZEN_PX:
        ws.freeze_panes(block.header_row + 1, 0)
    if plan.repeat_header:
        ws.repeat_rows(block.header_row)


def _charts(wb, ws, plan: SheetPlan, refs: Refs) -> int:
    """Insert the charts under the last table, two side by side; returns how many."""
    if not plan.charts:
        return 0
    anchor = plan.end_row + 1
    placed = 0
    per_row = chart_rows(2)
    for build in plan.charts:
        try:
            chart = build(wb, refs, plan.name)
        except (NoFormula, KeyError, IndexError, ValueError):
            chart = None
        if chart is None:
            continue
        ws.insert_chart(anchor + (placed // 2) * per_row, 0, chart,
                        {"x_offset": 4 + (placed % 2) * (CHART_W + CHART_GAP), "y_offset": 4,
                         "object_position": 2})
        placed += 1
    return placed


#: Printable area of a landscape page with the margins below, in pixels at 100%: A4 is the
#: narrower in height (40 default rows of 17 px print on an A4 page in LibreOffice: 680 px), Letter
#: the narrower in width (10.2 in); a little is kept in reserve so that the planned page breaks
#: come before any automatic one.
PAGE_W_PX, PAGE_H_PX = 960, 650
#: A page (other than a sheet's only one) filled less than this is "near-blank": the print
#: scale is lowered (to no less than MIN_SCALE_SHARE of the width's scale) to pull its rows back.
ORPHAN_SHARE = 0.3
MIN_SCALE_SHARE = 0.72
#: Below this print scale (percent) type is too small to read: a wider sheet prints on pages
#: side by side instead of being shrunk to one page's width.
MIN_PRINT_SCALE = 70


def _row_px(plan: SheetPlan, row: int) -> float:
    return plan.heights.get(row, LINE_HEIGHT) * 96 / 72


def paginate(plan: SheetPlan, scale: int, charts: int) -> tuple[list[float], list[int]]:
    """The pages (their filled height as a share of the page) and the rows that start a new
    page, when the sheet is printed at ``scale`` percent: rows are packed onto a page until
    the next does not fit; the charts' heading goes with the first row of charts, and a row
    of charts is never cut across pages."""
    page = PAGE_H_PX * 100.0 / scale
    fills: list[float] = [0.0]
    breaks: list[int] = []
    heading = plan.end_row - 1 if charts else plan.end_row
    # a heading (of a section or a table) stays with the two rows under it
    keep = {it.row: 3 for it in plan.items if isinstance(it, Heading)}
    keep.update({b.row: 3 for b in plan.blocks()})
    px = (plan.heights.dense(max(0, heading), LINE_HEIGHT) * 96 / 72).tolist()  # _row_px of each row
    fill = 0.0
    for row, h in enumerate(px):
        k = keep.get(row, 1)
        if k > 1:
            h = sum(px[row:min(heading, row + k)])
        if fill + h > page and fill > 0:
            breaks.append(row)
            fills[-1] = fill
            fills.append(0.0)
            fill = 0.0
        fill += px[row]
    fills[-1] = fill
    if charts:
        per_row = chart_rows(2) * ROW_PX
        first = _row_px(plan, heading) + ROW_PX + per_row  # heading, gap row, first row of charts
        if fills[-1] + first > page and fills[-1] > 0:
            breaks.append(heading)
            fills.append(0.0)
        fills[-1] += _row_px(plan, heading) + ROW_PX
        for k in range(math.ceil(charts / 2)):
            if fills[-1] + per_row > page and fills[-1] > 0:
                breaks.append(plan.end_row + 1 + k * chart_rows(2))
                fills.append(0.0)
            fills[-1] += per_row
    return [f / page for f in fills], breaks


def choose_scale(plan: SheetPlan, width_scale: int, charts: int) -> tuple[int, list[int]]:
    """The print scale (at most the one that fits the width) with no near-blank page, and the
    page breaks at that scale; fewer pages, then a larger scale, are preferred."""
    best = None
    for scale in range(width_scale, max(10, int(width_scale * MIN_SCALE_SHARE)) - 1, -1):
        fills, breaks = paginate(plan, scale, charts)
        orphans = sum(1 for f in fills if f < ORPHAN_SHARE) if len(fills) > 1 else 0
        key = (orphans, len(fills), -scale)
        if best is None or key < best[0]:
            best = (key, scale, breaks)
        if orphans == 0 and scale < width_scale and len(fills) <= best[0][1]:
            break
    return best[1], best[2]


def column_breaks(plan: SheetPlan, last_col: int, scale: int) -> list[int]:
    """The columns that start a new page across, at ``scale`` percent, the first column
    (repeated on every page) counted on each."""
    page = PAGE_W_PX * 100.0 / scale
    widths = [width_px(plan.widths[c] if c < len(plan.widths) else 9.0) for c in range(last_col + 1)]
    breaks, fill = [], widths[0] if widths else 0
    for c in range(1, len(widths)):
        if fill + widths[c] > page and fill > widths[0]:
            breaks.append(c)
            fill = widths[0]
        fill += widths[c]
    return breaks


def _print_setup(ws, plan: SheetPlan, charts: int) -> None:
    """Landscape, readable on A4 and Letter: the scale that fits the sheet's width (never
    above 100%), lowered a little where that saves a near-blank page; every page break is
    set (LibreOffice and Excel keep manual breaks), a row of charts is never cut, and the
    charts' heading stays with them."""
    ws.set_landscape()
    ws.set_paper(9)
    ws.set_margins(left=0.4, right=0.4, top=0.5, bottom=0.6)
    ws.set_footer("&L&8&A&R&8Page &P of &N")
    last_col = max(plan.band, len(plan.widths) - 1)
    last_row = plan.end_row - 1
    if charts:
        need = 2 * CHART_W + CHART_GAP + 10 if charts > 1 else CHART_W + 10
        px, col = 0, 0
        while px < need:
            px += width_px(plan.widths[col] if col < len(plan.widths) else 9.0)
            col += 1
        last_col = max(last_col, col - 1)
        last_row = plan.end_row + chart_rows(charts)
    width = sum(width_px(plan.widths[c] if c < len(plan.widths) else 9.0) for c in range(last_col + 1))
    width_scale = max(10, min(100, int(PAGE_W_PX * 100 / width)))
    wide = width_scale < MIN_PRINT_SCALE
    if wide:
        # a wide sheet (Ranking's k columns) is not shrunk to unreadable type: it prints at a
        # readable scale on pages side by side, its first column (the row labels) on each
        width_scale = MIN_PRINT_SCALE
        ws.repeat_columns(0)
    scale, breaks = choose_scale(plan, width_scale, charts)
    if wide:
        ws.set_v_pagebreaks(column_breaks(plan, last_col, scale))
    ws.set_print_scale(scale)
    if breaks:
        ws.set_h_pagebreaks(breaks)
    ws.print_area(0, 0, max(0, last_row), last_col)
