"""The plan of a workbook before a cell is written: sheets, their lines and tables, and where
every table lands.

Planning first lets a formula point at a cell of a table that is written later (or on
another sheet), lets the column widths be known before the first row is written (constant
memory mode writes each row once, top to bottom), and lets a table longer than an Excel
sheet be split across sheets.
"""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
import pandas as pd
from xlsxwriter.utility import xl_col_to_name, xl_rowcol_to_cell

from .safety import quote_sheet

#: Excel's sheet size.
EXCEL_MAX_ROWS = 1_048_576
EXCEL_MAX_COLS = 16_384
#: Width (in characters of the default font) that long text lines are wrapped to.
TEXT_BAND = 100
#: Rows sampled to size a column.
WIDTH_SAMPLE = 2_000
MIN_WIDTH, MAX_WIDTH, MAX_HEADER_WIDTH = 7.0, 60.0, 36.0
#: Long text wraps at this width: narrower on a sheet of stacked tables (they share columns).
STACKED_TEXT_WIDTH, ITEM_TEXT_WIDTH = 32.0, 36.0
DEFAULT_WIDTH = 9.0
#: A default row of the sheet: 12.75 points (Arial 10) = 17 pixels.
ROW_PX = 17
CHART_W, CHART_H, CHART_GAP = 470, 300, 14


class NoFormula(Exception):
    """A formula cannot be written (its source table is split or absent): write the value."""


@dataclass
class Line:
    """One row: a bold label in column A and a value to its right.  Text is wrapped across the
    text band (merged cells); a number or date is one cell with its format."""

    label: str = ""
    value: Any = None
    kind: str | None = None          # number-format kind of a non-text value
    style: str = "text"              # text | note | signature | legend | verdict | bytes
    link: str | None = None          # sheet to link the label to
    row: int = -1


@dataclass
class Heading:
    text: str
    size: str = "sheet"              # sheet | section
    row: int = -1


@dataclass
class Gap:
    row: int = -1


Formula = Callable[["Refs", int], "str | None"]


@dataclass
class Block:
    """A table (or one part of a table split across sheets) placed on a sheet."""

    key: str
    title: str
    frame: pd.DataFrame
    formats: dict[str, str] = field(default_factory=dict)
    legend: list[str] = field(default_factory=list)
    formulas: dict[str, Formula] = field(default_factory=dict)
    #: per-cell number-format kind (column, frame row) -> kind, overriding ``formats``
    cell_kind: Callable[[str, int], "str | None"] | None = None
    #: a cell comment (column, frame row) -> text or None: the method of an interval's bounds
    comment: Callable[[str, int], "str | None"] | None = None
    #: a column whose cells are coloured by their value (PASS / FAIL / INCONCLUSIVE)
    status_column: str | None = None
    hidden: tuple[str, ...] = ()
    filter: bool = False
    #: the column meanings go under the table (stacked tables) instead of above it
    legend_below: bool = False
    #: columns whose long text wraps (set by size_columns)
    wrap: set[str] = field(default_factory=set)
    start: int = 0
    stop: int | None = None
    part: int = 1
    parts: int = 1
    #: the analysis table this block shows: its headers are then the reader's names of the
    #: columns (``Token F1``, not ``token_f1``; item 14 of issue 23), the ids stay in the legend
    table_name: str | None = None
    #: the analysis table's column descriptions (an interval's header names the method they name)
    descriptions: dict[str, str] | None = None
    # placement, set by assign_rows
    sheet: str = ""
    row: int = -1

    def __post_init__(self) -> None:
        if self.stop is None:
            self.stop = len(self.frame)

    def header_text(self, name: str) -> str:
        """The header of a column: the reader's name for an analysis table's column (its id is in
        the legend and the JSON), else its name as in the JSON (records, chart data)."""
        if self.table_name is not None:
            from .present import column_name

            return column_name(self.table_name, name, frame=self.frame,
                               description=(self.descriptions or {}).get(name))
        return str(name)

    @property
    def columns(self) -> list[str]:
        return [c for c in self.frame.columns if c not in self.hidden][:EXCEL_MAX_COLS]

    @property
    def nrows(self) -> int:
        return int(self.stop - self.start)

    @property
    def height(self) -> int:
        return 1 + len(self.legend) + 1 + self.nrows

    @property
    def header_row(self) -> int:
        return self.row + 1 + (0 if self.legend_below else len(self.legend))

    @property
    def legend_row(self) -> int:
        return self.last_row + 1 if self.legend_below else self.row + 1

    @property
    def first_row(self) -> int:
        return self.header_row + 1

    @property
    def last_row(self) -> int:
        return self.header_row + self.nrows

    def col(self, name: str) -> int:
        try:
            return self.columns.index(name)
        except ValueError:
            raise NoFormula(f"no column {name!r}") from None

    def sheet_row(self, i: int) -> int:
        """The sheet row (0-based) of frame row ``i``."""
        if not self.start <= i < self.stop:
            raise NoFormula(f"row {i} is on another part")
        return self.first_row + (i - self.start)


Item = Line | Heading | Gap | Block
Chart = Callable[[Any, "Refs", str], Any]


class RowHeights:
    """The heights (points) given to rows while a sheet is written: single rows in a dict, the
    rows of a long table in one array (NaN: the default height), so that 100,000 wrapped rows
    take 0.8 MB, not a dict entry each."""

    def __init__(self) -> None:
        self._rows: dict[int, float] = {}
        self._runs: list[tuple[int, np.ndarray]] = []

    def __setitem__(self, row: int, points: float) -> None:
        self._rows[row] = points

    def run(self, first_row: int, count: int) -> np.ndarray:
        """An array for rows ``first_row`` to ``first_row + count - 1`` (NaN until set)."""
        heights = np.full(count, np.nan)
        self._runs.append((first_row, heights))
        return heights

    def get(self, row: int, default: float | None = None) -> float | None:
        points = self._rows.get(row)
        if points is not None:
            return points
        for first, heights in self._runs:
            if first <= row < first + len(heights):
                value = float(heights[row - first])
                return default if value != value else value
        return default

    def dense(self, count: int, default: float) -> np.ndarray:
        """The heights of rows 0 to ``count - 1`` (``default`` where none was given)."""
        out = np.full(count, float(default))
        for first, heights in self._runs:
            part = heights[: max(0, count - first)]
            if first < count and len(part):
                mine = out[first:first + len(part)]
                np.copyto(mine, part, where=~np.isnan(part))
        for row, points in self._rows.items():
            if row < count:
                out[row] = points
        return out


@dataclass
class SheetPlan:
    name: str
    items: list[Item] = field(default_factory=list)
    charts: list[Chart] = field(default_factory=list)
    freeze: bool = True
    repeat_header: bool = False
    text_width: float = STACKED_TEXT_WIDTH
    end_row: int = 0
    widths: list[float] = field(default_factory=list)
    #: rows given a height (points) while writing
    heights: "RowHeights" = field(default_factory=lambda: RowHeights())
    band: int = 1                    # last column of the text band

    def blocks(self) -> list[Block]:
        return [it for it in self.items if isinstance(it, Block)]

    def preamble_rows(self) -> int:
        n = 0
        for it in self.items:
            if isinstance(it, Block):
                break
            n += 1
        return n


def assign_rows(plan: SheetPlan) -> None:
    row = 0
    for it in plan.items:
        it.row = row
        if isinstance(it, Block):
            it.sheet = plan.name
            row += it.height
        else:
            row += 1
    plan.end_row = row


class Refs:
    """Cell references for formulas: ``refs.cell("0/systems", "total_cost", 2)`` -> ``E9`` on
    the same sheet, ``'cost'!E9`` from another."""

    def __init__(self) -> None:
        self.parts: dict[str, list[Block]] = {}
        self.current: str = ""

    def add(self, block: Block) -> None:
        self.parts.setdefault(block.key, []).append(block)

    def block(self, key: str) -> Block:
        parts = self.parts.get(key)
        if not parts or len(parts) != 1:
            raise NoFormula(f"table {key!r} is absent or split")
        return parts[0]

    def _prefix(self, block: Block) -> str:
        return "" if block.sheet == self.current else quote_sheet(block.sheet) + "!"

    def cell(self, key: str, column: str, i: int, absolute: bool = False) -> str:
        b = self.block(key)
        ref = xl_rowcol_to_cell(b.sheet_row(i), b.col(column), row_abs=absolute, col_abs=absolute)
        return self._prefix(b) + ref

    def column(self, key: str, column: str, start: int = 0, stop: int | None = None) -> str:
        """An absolute range over frame rows ``start:stop`` of one column."""
        b = self.block(key)
        stop = b.stop if stop is None else stop
        if stop <= start:
            raise NoFormula("empty range")
        c = xl_col_to_name(b.col(column), col_abs=True)
        return f"{self._prefix(b)}{c}${b.sheet_row(start) + 1}:{c}${b.sheet_row(stop - 1) + 1}"

    def chart_range(self, key: str, column: str, start: int = 0, stop: int | None = None) -> list:
        """``[sheet, first_row, col, last_row, col]`` for XlsxWriter's chart series."""
        b = self.block(key)
        stop = b.stop if stop is None else stop
        c = b.col(column)
        return [b.sheet, b.sheet_row(start), c, b.sheet_row(stop - 1), c]

    def chart_formula(self, key: str, column: str, start: int = 0, stop: int | None = None) -> str:
        b = self.block(key)
        stop = b.stop if stop is None else stop
        c = xl_col_to_name(b.col(column), col_abs=True)
        return f"={quote_sheet(b.sheet)}!{c}${b.sheet_row(start) + 1}:{c}${b.sheet_row(stop - 1) + 1}"

    def header_cell(self, key: str, column: str) -> list:
        b = self.block(key)
        return [b.sheet, b.header_row, b.col(column)]


# -- column widths -------------------------------------------------------------------------

def _display_len(value: Any, kind: str | None) -> int:
    if value is None:
        return 0
    if isinstance(value, (dt.date, dt.datetime)):
        return 19
    if isinstance(value, (bool, np.bool_)):
        return 5
    if isinstance(value, (int, float, np.integer, np.floating)):
        try:
            v = float(value)
        except OverflowError:  # an integer beyond a double's range: written as its digits
            return len(str(value))
        if not math.isfinite(v):
            return 0
        from .present import format_value
        from .styles import LEGACY_KINDS

        k = LEGACY_KINDS.get(kind, kind) if kind else None
        if k in (None, "plain", "text"):
            return len(format_value(v, "count" if v == int(v) else "plain"))
        return len(format_value(v, k)) + (2 if k == "cost" else 0)
    if isinstance(value, float) and math.isnan(value):
        return 0
    text = str(value)
    return text_width(max(text.split("\n"), key=len))


def text_width(text: str) -> int:
    """Width of text in digit widths: letters of Arial are about 0.85 of a digit wide."""
    digits = sum(ch.isdigit() or ch.isupper() or ch in "%$@#&mwMW" for ch in text)
    return math.ceil(digits + 0.85 * (len(text) - digits))


def block_widths(block: Block, wrap_at: float = MAX_WIDTH) -> list[float]:
    """The width each column needs; text longer than ``wrap_at`` wraps (``block.wrap``)."""
    frame = block.frame.iloc[block.start:block.stop]
    if len(frame) > WIDTH_SAMPLE:
        frame = pd.concat([frame.iloc[: WIDTH_SAMPLE // 2], frame.iloc[-WIDTH_SAMPLE // 2:]])
    widths = []
    for name in block.columns:
        kind = block.formats.get(name)
        values = frame[name].tolist()
        longest = max((_display_len(v, kind) for v in values), default=0)
        header = min(text_width(block.header_text(name)) * 1.08 + 2, MAX_HEADER_WIDTH)  # bold
        width = max(MIN_WIDTH, header, longest + 2)
        if width > wrap_at and any(isinstance(v, str) and _display_len(v, kind) + 2 > wrap_at for v in values):
            block.wrap.add(name)
            width = max(wrap_at, header)
        widths.append(float(min(MAX_WIDTH, width)))
    return widths


def size_columns(plan: SheetPlan) -> None:
    widths: list[float] = []
    for block in plan.blocks():
        for c, w in enumerate(block_widths(block, plan.text_width)):
            if c < len(widths):
                widths[c] = max(widths[c], w)
            else:
                widths.append(w)
    labels = [len(it.label) + 2 for it in plan.items if isinstance(it, Line) and it.label]
    values = [_display_len(it.value, it.kind) + (8 if it.style == "bytes" else 2) for it in plan.items
              if isinstance(it, Line) and it.value is not None and not isinstance(it.value, str)]
    if not widths:
        widths = [DEFAULT_WIDTH]
    widths[0] = max(widths[0], min(max(labels, default=0), 24), 11)
    if len(widths) < 2:
        widths.append(DEFAULT_WIDTH)
    widths[1] = max(widths[1], max(values, default=0))
    band = 1
    total = 0.0
    for c in range(1, EXCEL_MAX_COLS):
        if c >= len(widths):
            widths.append(DEFAULT_WIDTH)
        total += widths[c]
        band = c
        if total >= TEXT_BAND:
            break
    plan.widths = widths
    plan.band = band


def band_chars(plan: SheetPlan) -> float:
    return sum(plan.widths[1: plan.band + 1])


def text_lines(text: str, chars: float) -> int:
    """About how many lines ``text`` takes wrapped at ``chars`` characters (errs high)."""
    per_line = max(10.0, chars * 1.1)
    return sum(max(1, math.ceil(len(part) / per_line)) for part in str(text).split("\n"))


def chart_rows(count: int) -> int:
    per_row = math.ceil((CHART_H + CHART_GAP) / ROW_PX)
    return math.ceil(count / 2) * per_row


def width_px(chars: float) -> int:
    return int(chars * 7 + 5)
