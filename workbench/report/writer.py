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


class CellWriter:
    """Writes one Python value into a cell with the right XlsxWriter call."""

    def __init__(self, ws, styles: Styles) -> None:
        self.ws = ws
        self.styles = styles

    def text(self, row: int, col: int, text: str, fmt=None, guard_fmt=None) -> None:
        text = cell_text(text)
        if looks_like_formula(text):
            fmt = guard_fmt if guard_fmt is not None else self.styles.cell("text", guard=True)
        _check(self.ws.write_string(row, col, text, fmt), row, col)

    def value(self, row: int, col: int, value: Any, fmt, text_fmt=None, guard_fmt=None) -> None:
        """``fmt`` for numbers, ``text_fmt``/``guard_fmt`` for text; blanks stay blank."""
        ws = self.ws
        t = type(value)
        if t is float:
            if value == value:
                if value in (math.inf, -math.inf):
                    self.text(row, col, "inf" if value > 0 else "-inf", text_fmt, guard_fmt)
                else:
                    _check(ws.write_number(row, col, value, fmt), row, col)
            return
        if t is int:
            if -_INT_LIMIT < value < _INT_LIMIT:
                _check(ws.write_number(row, col, value, fmt), row, col)
            else:  # more digits than a double holds: keep them all, as text
                self.text(row, col, str(value), text_fmt, guard_fmt)
            return
        if t is str:
            self.text(row, col, value, text_fmt, guard_fmt)
            return
        if value is None or value is pd.NA or value is pd.NaT:
            return
        if isinstance(value, (bool, np.bool_)):
            _check(ws.write_boolean(row, col, bool(value), self.styles.boolean()), row, col)
            return
        if isinstance(value, (np.generic, np.ndarray)) and np.ndim(value) == 0:  # numpy scalars
            self.value(row, col, value.item(), fmt, text_fmt, guard_fmt)
            return
        if isinstance(value, Decimal):
            self.value(row, col, float(value), fmt, text_fmt, guard_fmt)
            return
        if isinstance(value, (dt.datetime, dt.date)):
            if isinstance(value, pd.Timestamp):
                value = value.to_pydatetime()
            if isinstance(value, dt.datetime) and value.tzinfo is not None:
                value = value.astimezone(dt.timezone.utc).replace(tzinfo=None)
            _check(ws.write_datetime(row, col, value, self.styles.datetime()), row, col)
            return
        if isinstance(value, float):  # float subclasses
            self.value(row, col, float(value), fmt, text_fmt, guard_fmt)
            return
        self.text(row, col, str(value), text_fmt, guard_fmt)


def _check(code: int | None, row: int, col: int) -> None:
    """XlsxWriter reports a cell it did not write (out of the sheet, or an earlier row in
    constant memory mode) by a negative code: that would be a silent loss, so it is a bug."""
    if code:
        raise RuntimeError(f"XlsxWriter refused cell {xl_rowcol_to_cell(row, col)} (code {code})")


def _finite_number(value: Any) -> bool:
    if isinstance(value, (bool, np.bool_)):
        return False
    if isinstance(value, (int, float, np.integer, np.floating)):
        return math.isfinite(float(value))
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

    writers = [_column_writer(cells, b, name, c, styles, refs) for c, name in enumerate(columns)]
    wrap_widths = [plan.widths[c] if name in b.wrap else 0.0 for c, name in enumerate(columns)]
    wraps = any(wrap_widths)
    row = b.first_row
    # a chunk of rows at a time becomes Python values: memory stays bounded on long tables
    for lo in range(b.start, b.stop, CHUNK_ROWS):
        hi = min(b.stop, lo + CHUNK_ROWS)
        chunk = b.frame.iloc[lo:hi]
        columns_values = [chunk[name].tolist() for name in columns]
        for j, i in enumerate(range(lo, hi)):
            values = [vals[j] for vals in columns_values]
            if wraps:
                # rows with wrapped text get their height (Excel and LibreOffice do not fit it)
                lines = max(text_lines(v, w) if w and isinstance(v, str) else 1
                            for v, w in zip(values, wrap_widths))
                if lines > 1:
                    _set_height(ws, plan, row, lines * LINE_HEIGHT + 2)
            for write, v in zip(writers, values):
                write(row, i, v)
            row += 1
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
    sample = [v for v in col.head(200).tolist() if v is not None and v == v]
    return bool(sample) and all(_finite_number(v) for v in sample)


def _column_writer(cells: CellWriter, b: Block, name: str, c: int, styles: Styles, refs: Refs):
    """A function ``(sheet row, frame row, value)`` that writes one cell of column ``name``.

    A number gets the format :mod:`.present` gives its kind and value (so the cell shows what
    the sentences say); a ``points`` cell holds the value in points (x 100)."""
    column_kind = _kind(b.formats.get(name))
    if name in b.wrap:
        text_fmt, guard_fmt = styles.wrapped("text"), styles.wrapped("text", guard=True)
    elif column_kind not in (None, "plain", "text"):  # a word among numbers ("dominated"): aligned as they are
        text_fmt = styles.cell(None, align="right")
        guard_fmt = styles.cell("text", guard=True, align="right")
    else:
        text_fmt = styles.cell("text" if column_kind == "text" else None)
        guard_fmt = styles.cell("text", guard=True)
    formula = b.formulas.get(name)
    ws = cells.ws
    value = cells.value
    cell_kind = b.cell_kind

    if b.status_column == name:
        def write_status(row: int, i: int, v: Any) -> None:
            if v is None or (isinstance(v, float) and math.isnan(v)):
                return
            fmt = styles.status(str(v))
            cells.text(row, c, str(v), fmt, fmt)
        return write_status

    def kind_at(i: int) -> str | None:
        if cell_kind is not None:
            k = _kind(cell_kind(name, i))
            if k:
                return k
        return column_kind

    def write(row: int, i: int, v: Any) -> None:
        if isinstance(v, np.ndarray) and v.ndim == 0:
            v = v.item()
        k = kind_at(i)
        if not _finite_number(v):
            value(row, c, v, styles.cell(k if k == "text" else None), text_fmt, guard_fmt)
            return
        fmt = styles.cell(k if k != "text" else None, value=float(v))
        stored = float(v) * 100.0 if k in ("points", "margin") else v  # differences of rates: in points
        if formula is not None:
            try:
                text = formula(refs, i)
            except (NoFormula, KeyError, IndexError, ValueError):
                text = None
            if text:
                _check(ws.write_formula(row, c, "=" + text, fmt, float(stored)), row, c)
                return
        value(row, c, stored, fmt, text_fmt, guard_fmt)
    return write


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
    for row in range(heading):
        h = sum(_row_px(plan, r) for r in range(row, min(heading, row + keep.get(row, 1))))
        if fills[-1] + h > page and fills[-1] > 0:
            breaks.append(row)
            fills.append(0.0)
        fills[-1] += _row_px(plan, row)
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
    scale, breaks = choose_scale(plan, width_scale, charts)
    ws.set_print_scale(scale)
    if breaks:
        ws.set_h_pagebreaks(breaks)
    ws.print_area(0, 0, max(0, last_row), last_col)
