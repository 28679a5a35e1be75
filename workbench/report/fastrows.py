"""A long table's rows written as sheet XML, a column at a time (constant memory mode).

Writing a cell through XlsxWriter costs 6-8 microseconds of Python (argument checks, a cell
tuple, then its XML element when the row is flushed): 100,000 items of 13 columns took longer
than the rest of the report together.  In constant memory mode XlsxWriter streams
each finished row's ``<row>`` element to a temporary file and copies that file into the
worksheet's ``<sheetData>`` when the workbook is closed.  For a table whose cells depend on
their values alone (no formulas, no status colours, no per-row number kinds) the rows are
written here instead, straight into that file, with the same elements XlsxWriter writes for
the same calls:

* the decisions that do not change along a column (its number kind, its text and quote-prefix
  formats, its number formats by class of value) are made once per column
  (:class:`~workbench.report.writer.ColumnCells`); floats, integers and text are encoded
  inline, any other value (booleans, dates, NaN, inf, huge integers, numpy and pandas scalars)
  goes through the decider the cell-by-cell path uses;
* each ``<row>`` start tag is XlsxWriter's own, produced once per distinct row height by its
  ``_write_row`` and reused with the row number changed;
* a wrapped row's height is in its tag, and in one array of the plan (for the page breaks);
  XlsxWriter is told of it (``set_row``) only on a sheet with charts, which it places by the
  rows' heights (it would keep two records a row);
* formats are numbered in the order the rows first use them, as XlsxWriter numbers them;
* the sheet's dimensions are updated through XlsxWriter, which is then told the rows are
  written.

Text is escaped as XlsxWriter escapes an inline string (control characters as ``_xHHHH_``,
``xml:space="preserve"`` for leading or trailing whitespace, ``& < >``); text of the form
``<r>...</r>``, which XlsxWriter would copy into the file as rich-text XML, is an escaped inline
string here (the cell-by-cell path writes it as two runs of the same text).
``tests/report/test_report_fastrows.py`` writes tricky tables both ways and compares the
sheets' XML byte for byte (their values, where the two differ in form).  Anything unexpected (not constant memory mode, a row already
pending, an XlsxWriter without these internals) returns False before a byte is written, and
the caller writes the table cell by cell.
"""

from __future__ import annotations

import io
import re
from typing import TYPE_CHECKING, Any

import numpy as np
from xlsxwriter.utility import xl_col_to_name

from ..core.numbers import _SCALE, DECIMALS
from .layout import text_lines
from .safety import FORMULA_TRIGGERS, MAX_CELL_TEXT, cell_text
from .styles import LINE_HEIGHT

if TYPE_CHECKING:  # pragma: no cover
    from .layout import Block, SheetPlan

#: Rows turned into Python values and XML at a time (memory stays bounded).
CHUNK_ROWS = 2_000
_INT_LIMIT = 2 ** 53
#: Text up to this length needs no check of its UTF-16 length (see safety.cell_text).
_SHORT = MAX_CELL_TEXT // 2

# XlsxWriter's escapes of an inline string (xmlwriter.py): "_xHHHH_" itself is escaped first,
# then the control characters other than tab and newline, then U+FFFE and U+FFFF.
_ESCAPE_ESCAPE = re.compile("(_x[0-9a-fA-F]{4}_)")
_CONTROL = re.compile(r"([\x00-\x08\x0b-\x1f])")
#: Anything that any of the escapes would change.
_SPECIAL = re.compile("[\x00-\x08\x0b-\x1f&<>\ufffe\uffff]|_x[0-9a-fA-F]{4}_")
_PRESERVE = ' xml:space="preserve"'
_PLACEHOLDER = re.compile("\x00([0-9]+)\x00")
#: The characters below U+0080 that an escape changes (as UTF-8 bytes).
_ESCAPED_BYTES = bytes(range(0, 9)) + bytes(range(11, 32)) + b"&<>"


def excel_number(v):
    """The number a cell stores: a fraction to 15 significant digits, as Excel keeps and shows
    it (0.43749999999999994 is stored as 0.4375, so that a reader rounding the stored digits
    shows one value one way: 0.438 beside pass@1's 0.4375, never 0.437); whole numbers as they
    are."""
    if type(v) is float and v - v == 0.0 and v != int(v):
        return float(f"{v:.15G}")
    return v


def _escaped(text: str) -> str:
    text = _ESCAPE_ESCAPE.sub(r"_x005F\1", text)
    text = _CONTROL.sub(lambda m: f"_x{ord(m.group(1)):04X}_", text)
    return text.replace("\ufffe", "_xFFFE_").replace("\uffff", "_xFFFF_")


def inline_string(ref: str, xf: str, text: str) -> str:
    """The ``<c>`` element of an inline string cell (``xf``: the format's index, "" for none)."""
    if _SPECIAL.search(text) is not None:
        text = _escaped(text)
        pre = _PRESERVE if text[:1].isspace() or text[-1:].isspace() else ""
        text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    else:
        pre = _PRESERVE if text[:1].isspace() or text[-1:].isspace() else ""
    return f'<c r="{ref}"{xf} t="inlineStr"><is><t{pre}>{text}</t></is></c>'


class _Xf:
    """A format's ``s="N"`` attribute, once per format.

    XlsxWriter numbers formats in the order cells first use them, row by row; the columns of a
    chunk are made one after the other, so a format not numbered yet gets a placeholder that
    :meth:`resolve` replaces, in the order the rows show them, by its number."""

    def __init__(self) -> None:
        self._seen: dict[int, tuple[Any, str]] = {}
        self._pending: dict[int, Any] = {}

    def __call__(self, fmt) -> str:
        if fmt is None:
            return ""
        hit = self._seen.get(id(fmt))
        if hit is None:
            if fmt.xf_index is not None or fmt._get_format_key() in fmt.xf_format_indices:
                hit = (fmt, f' s="{fmt._get_xf_index()}"')
            else:
                k = len(self._pending)
                self._pending[k] = fmt
                hit = (fmt, f"\x00{k}\x00")  # no text written here holds a NUL (escaped: _x0000_)
            self._seen[id(fmt)] = hit
        return hit[1]

    def resolve(self, xml: str) -> str:
        if not self._pending:
            return xml
        pending = self._pending
        xml = _PLACEHOLDER.sub(lambda m: f' s="{pending[int(m.group(1))]._get_xf_index()}"', xml)
        for fmt in pending.values():  # numbered now, or not used yet (placeholders again later)
            del self._seen[id(fmt)]
        self._pending = {}
        return xml


def _cell_xml(ws, ref: str, cell, xf: _Xf) -> str:
    """The XML of a decided cell (as XlsxWriter's ``_write_cell`` writes it)."""
    if cell is None:
        return ""
    t, v, fmt = cell
    if t == "n":
        return f'<c r="{ref}"{xf(fmt)}><v>{excel_number(v):.16G}</v></c>'
    if t == "s":
        return inline_string(ref, xf(fmt), v)
    if t == "b":
        return f'<c r="{ref}"{xf(fmt)} t="b"><v>{1 if v else 0}</v></c>'
    if t == "d":
        return f'<c r="{ref}"{xf(fmt)}><v>{ws._convert_date_time(v):.16G}</v></c>'
    raise ValueError(f"no fast path for a cell of type {t!r}")  # formulas: not on this path


class _Column:
    """One column of a chunk: its values as Python objects (made once), and whether they are
    all text without anything to escape, cut or break."""

    def __init__(self, series) -> None:
        self.series = series
        self._values: list | None = None
        self._kind: tuple[bool, bool] | None = None

    @property
    def values(self) -> list:
        if self._values is None:
            self._values = self.series.tolist()
        return self._values

    def _texts(self) -> tuple[bool, bool]:
        if self._kind is None:
            values = self.values
            if values and all(type(v) is str for v in values):
                joined = "".join(values)
                self._kind = (max(map(len, values)) <= _SHORT and _plain_text(joined), "\n" not in joined)
            else:
                self._kind = (False, False)
        return self._kind

    @property
    def plain_texts(self) -> bool:
        """Only text, none with anything to escape or cut."""
        return self._texts()[0]

    @property
    def one_line_texts(self) -> bool:
        """Only text, none with a line break."""
        values = self.values
        return bool(values) and all(type(v) is str for v in values) and self._texts()[1]


def _column_xml(ws, decide, column: _Column, first_i: int, rows: list[str], letter: str, xf: _Xf) -> list[str]:
    """The cells of one column over a chunk of rows ("" for a blank)."""
    series = column.series
    dtype = series.dtype
    if isinstance(dtype, np.dtype) and dtype.kind in "fiu" and len(series):
        arr = series.to_numpy()
        if dtype.kind == "f":
            ok = bool(np.isfinite(arr).all())
        else:
            ok = bool(arr.min() > -_INT_LIMIT) and bool(arr.max() < _INT_LIMIT)
        if ok:
            return _numbers_xml(decide, arr, rows, letter, xf)
    values = column.values
    text_xf, guard_xf = xf(decide.text_fmt), xf(decide.guard_fmt)
    if column.plain_texts:
        # plain text (the usual case): only the quote prefix and the whitespace to decide
        return [f'<c r="{letter}{r}"{guard_xf if v.startswith(FORMULA_TRIGGERS) else text_xf} '
                f't="inlineStr"><is><t{_PRESERVE if v[:1].isspace() or v[-1:].isspace() else ""}>'
                f'{v}</t></is></c>' for r, v in zip(rows, values)]
    kind = decide.kind
    points = kind in ("points", "margin")
    number_fmt = decide.number_fmt
    out: list[str] = []
    append = out.append
    for j, v in enumerate(values):
        t = type(v)
        if t is float:
            if v - v == 0.0:  # finite
                append(f'<c r="{letter}{rows[j]}"{xf(number_fmt(kind, v))}><v>'
                       f'{excel_number(v * 100.0 if points else v):.16G}</v></c>')
                continue
            if v != v:  # NaN: blank
                append("")
                continue
        elif t is str:
            if len(v) > _SHORT:
                v = cell_text(v)
            append(inline_string(f"{letter}{rows[j]}", guard_xf if v.startswith(FORMULA_TRIGGERS) else text_xf, v))
            continue
        elif t is int and -_INT_LIMIT < v < _INT_LIMIT:
            append(f'<c r="{letter}{rows[j]}"{xf(number_fmt(kind, v))}><v>'
                   f'{(float(v) * 100.0 if points else v):.16G}</v></c>')
            continue
        append(_cell_xml(ws, f"{letter}{rows[j]}", decide(first_i + j, v), xf))
    return out


def _numbers_xml(decide, arr: np.ndarray, rows: list[str], letter: str, xf: _Xf) -> list[str]:
    """A column of finite numbers (floats, or integers within a double's 53 bits)."""
    kind = decide.kind
    x = arr.astype(np.float64)
    if kind in DECIMALS and kind != "latency":  # a latency's decimals follow the value
        shown = x * _SCALE.get(kind, 1.0)
        one = bool(((shown == 0) | (np.abs(shown) >= 10.0 ** -DECIMALS[kind])).all())
    elif kind == "count":
        whole = x == np.trunc(x)
        one = bool(whole.all()) or not bool(whole.any())
    else:
        one = kind in (None, "plain", "text")
    if kind in ("points", "margin"):
        values = (x * 100.0).tolist()
    else:
        values = arr.tolist()  # Python floats, or Python ints as the cell-by-cell path has them
    if one:  # every value has the format of the first
        s = xf(decide.number_fmt(kind, float(x[0])))
        return [f'<c r="{letter}{r}"{s}><v>{excel_number(v):.16G}</v></c>' for r, v in zip(rows, values)]
    number_fmt = decide.number_fmt
    return [f'<c r="{letter}{r}"{xf(number_fmt(kind, a))}><v>{excel_number(v):.16G}</v></c>'
            for r, a, v in zip(rows, x.tolist(), values)]


def _plain_text(joined: str) -> bool:
    """Whether no escape changes any character of ``joined`` (texts of a column, joined)."""
    if "_x" in joined or "\ufffe" in joined or "\uffff" in joined:
        return _SPECIAL.search(joined) is None
    raw = joined.encode("utf-8", "surrogatepass")
    return len(raw.translate(None, _ESCAPED_BYTES)) == len(raw)


def _lines(values: list, width: float, texts: bool) -> np.ndarray:
    """:func:`~workbench.report.layout.text_lines` of each text (1 for anything else);
    ``texts``: every value is a text without a line break."""
    per_line = max(10.0, width * 1.1)
    if texts:
        lengths = np.fromiter(map(len, values), dtype=np.int64, count=len(values))
        return np.maximum(np.ceil(lengths / per_line), 1).astype(np.int64)
    out = np.ones(len(values), dtype=np.int64)
    for j, v in enumerate(values):
        if isinstance(v, str):
            out[j] = text_lines(v, width)
    return out


class _RowTags:
    """XlsxWriter's ``<row ...>`` start tag of a row (made by its own ``_write_row`` once per
    height and reused with the row number changed)."""

    def __init__(self, ws) -> None:
        self.ws = ws
        self._rest: dict[tuple[float | None, bool], str] = {}

    def probe(self, row: int) -> bool:
        try:
            self.tag(row, None, False)
            self.tag(row, None, True)
        except (AttributeError, TypeError, ValueError):
            return False
        return True

    def tag(self, row: int, height: float | None, empty: bool) -> str:
        """The start tag (``<row r="N" ...>``, or ``<row .../>`` when ``empty``) of sheet row
        ``row`` (0-based) with ``height`` points (None: the default height)."""
        key = (height, empty)
        rest = self._rest.get(key)
        if rest is None:
            rest = self._rest[key] = self._capture(row, height, empty)
        return f'<row r="{row + 1}"{rest}'

    def _capture(self, row: int, height: float | None, empty: bool) -> str:
        ws = self.ws
        borrowed = height is not None and row not in ws.row_info
        if borrowed:  # XlsxWriter's record of the height, for as long as its tag is made
            ws.set_row(row, height)
        buf = io.StringIO()
        saved = ws.fh
        ws.fh = buf
        try:
            info = ws.row_info.get(row) if height is not None else None
            if empty:
                ws._write_row(row, None, info, empty_row=True)
            else:
                ws._write_row(row, None, info)
        finally:
            ws.fh = saved
            if borrowed:
                ws.row_info.pop(row, None)
                getattr(ws, "row_sizes", {}).pop(row, None)
        text = buf.getvalue()
        head = f'<row r="{row + 1}"'
        if not text.startswith(head):
            raise ValueError(f"unexpected row tag {text[:40]!r}")
        return text[len(head):]


def _ready(ws, b: Block, deciders: list) -> bool:
    """Whether this table can be written here (checked before anything is written)."""
    if not getattr(ws, "constant_memory", False) or b.nrows <= 0:
        return False
    if not all(d.uniform for d in deciders):
        return False
    needed = ("row_data_fh", "fh", "previous_row", "table", "row_info", "_write_single_row",
              "_write_row", "_check_dimensions", "_convert_date_time")
    if not all(hasattr(ws, name) for name in needed) or ws.fh is not ws.row_data_fh:
        return False
    if ws.previous_row != b.header_row or b.first_row in ws.row_info or b.first_row in ws.table:
        return False
    return True


def write_rows_xml(ws, plan: SheetPlan, b: Block, deciders: list, wrap_widths: list[float]) -> bool:
    """Write the rows of ``b`` as XML into the worksheet's row file; False (nothing written)
    when this path does not apply."""
    if not _ready(ws, b, deciders):
        return False
    tags = _RowTags(ws)
    if not tags.probe(b.first_row):
        return False
    ws._write_single_row(b.first_row)  # the header row goes out; the table's rows are next
    xf = _Xf()
    letters = [xl_col_to_name(c) for c in range(len(deciders))]
    wrapped = [(c, w) for c, w in enumerate(wrap_widths) if w]
    columns = b.columns
    row = b.first_row
    last_with_cells = -1
    fh = ws.fh
    heights_of: dict[int, float] = {}
    # XlsxWriter places charts and images by the rows' heights: with none on the sheet, a row's
    # height need only be in its <row> tag (XlsxWriter would otherwise keep two records a row)
    keep_sizes = bool(plan.charts)
    planned = plan.heights.run(b.first_row, b.nrows) if wrapped else None  # for the page breaks
    for lo in range(b.start, b.stop, CHUNK_ROWS):
        hi = min(b.stop, lo + CHUNK_ROWS)
        chunk = b.frame.iloc[lo:hi]
        cols = [_Column(chunk[name]) for name in columns]
        n = hi - lo
        heights: list[float | None] = [None] * n
        if wrapped:
            # rows with wrapped text get their height (Excel and LibreOffice do not fit it)
            lines = np.maximum.reduce([_lines(cols[c].values, w, cols[c].one_line_texts) for c, w in wrapped])
            for j in np.flatnonzero(lines > 1).tolist():
                points = heights_of.get(int(lines[j]))
                if points is None:
                    points = heights_of[int(lines[j])] = int(lines[j]) * LINE_HEIGHT + 2
                heights[j] = points
                planned[row + j - b.first_row] = points
                if keep_sizes:
                    ws.set_row(row + j, points)
        rows = [str(r + 1) for r in range(row, row + n)]
        cells = [_column_xml(ws, d, col, lo, rows, letter, xf)
                 for d, col, letter in zip(deciders, cols, letters)]
        out: list[str] = []
        for j, parts in enumerate(zip(*cells)):
            body = "".join(parts)
            h = heights[j]
            if body:
                out.append(tags.tag(row + j, h, False) + body + "</row>")
                last_with_cells = row + j
            elif h is not None:
                out.append(tags.tag(row + j, h, True))
        fh.write(xf.resolve("".join(out)))
        row += n
    if last_with_cells >= 0:
        ws._check_dimensions(last_with_cells, 0)
    # XlsxWriter's next row is the one after the table (nothing of the table is pending)
    ws.previous_row = b.last_row + 1
    return True
