"""How the fast path types a delimited file's columns: the C parser reads, the cells rule decides.

Typing follows :mod:`workbench.io.cells`, not pandas: a column is numeric only when every
non-empty cell is a plain decimal number; ``true``/``false``, ``inf``, ``nan``, numbers with
leading zeros and integers beyond int64 stay text.  Either the first rows decide before the
parse how each column is read (:func:`_plan`), or, for a comma-separated file whose head shows
no reason for it (:func:`_needs_sample`), the parse comes first (an empty cell missing in every
column: :data:`_EMPTY_IS_MISSING`, :func:`_text_filled`); either way the C parser's typing is
accepted where it agrees with that rule and corrected (from the cells' text) where it does not
(:func:`_typed`).  Used by :mod:`workbench.io.fastcsv`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
import pandas as pd

from workbench.io.bytescan import _CR, _NL, _QUOTE
from workbench.io.cells import TEXT_DTYPE, TypedColumn, is_text_screened, text_array, type_text_column


#: Rows of the head sample used to decide which columns must be read as text.
SAMPLE_ROWS = 2000


_LEADING_ZERO = re.compile(r"\n[ \t]*[+-]?0[0-9]")


@dataclass(frozen=True)
class _Plan:
    """How the C parser reads the whole file, decided from the typing of its first rows."""

    options: dict[str, Any]  # read_csv options on top of :func:`_kwargs`
    numbers: frozenset[str]  # number columns: their empty cells are read as NaN
    commas: frozenset[str]  # number columns written with a decimal comma
    text: frozenset[str] = frozenset()  # text by the cells rule already in the sample


def _plan(sample: pd.DataFrame, header: Sequence[str], delimiter: str) -> _Plan:
    """Read the file as its first rows (``sample``, all text) are typed by the cells rule.

    A column with a number written with a leading zero ("007") is read as text.  In number
    columns an empty cell is NaN (as the cells rule has it: other columns keep ``""``, and
    no other word is missing); when the sample's numbers are written with a decimal comma,
    the whole file is read with ``decimal=","``.  Cells beyond the sample that do not fit
    make the C parser return text, which :func:`_typed` types from the cells.
    """
    forced, numbers, commas, text = [], [], [], []
    allow_comma = delimiter != ","
    for name in header:
        cells = sample[name].tolist()  # text: every cell as written, no NA words
        joined = "\n".join(cells)
        if cells and is_text_screened(joined, allow_decimal_comma=allow_comma):
            text.append(name)  # what type_text_column says first, without building the column
            continue
        if _LEADING_ZERO.search("\n" + joined):
            forced.append(name)
            continue
        typed = type_text_column(cells, allow_decimal_comma=allow_comma)
        if cells and isinstance(typed.values, np.ndarray) and typed.values.dtype.kind in "if":
            numbers.append(name)
            if typed.decimal_comma:
                commas.append(name)
        elif cells:
            text.append(name)
    options: dict[str, Any] = {}
    if forced:
        options["dtype"] = {name: object for name in forced}
    if numbers:
        options.update(na_filter=True, na_values={name: [""] for name in numbers})
    if commas:
        options["decimal"] = ","
    return _Plan(options, frozenset(numbers), frozenset(commas), frozenset(text))


#: The C parser's options (on top of :func:`_kwargs`) when the parse comes first: an empty
#: cell is missing in every column (number columns get NaN; text columns get it back as "").
_EMPTY_IS_MISSING = dict(na_filter=True, na_values=[""], keep_default_na=False)


_ZERO, _NINE = ord("0"), ord("9")


def _needs_sample(head: bytes, sep: int) -> bool:
    """Whether the first rows must be typed before the parse (:func:`_plan`): a line of the
    head (the sample's rows: :func:`_head_rows`) ends in an empty field (the file is then scanned beside the parse, which is only
    known before it), or a field may start with a leading zero ("007", "-01.5", '"007"': the
    cells rule keeps such a column as text, the C parser would read numbers).  Looked for in
    the head's bytes, at each field's start; a delimiter inside quotes may say yes when no
    sample was needed."""
    raw = np.frombuffer(head, dtype=np.uint8)
    ends = np.flatnonzero((raw == sep) | (raw == _NL))
    if ends.size == 0:
        return False
    before = raw[np.maximum(ends - 1, 0)]
    empty_end = (before == sep) | ((before == _CR) & (raw[np.maximum(ends - 2, 0)] == sep))
    if (empty_end & (raw[ends] == _NL)).any() or \
            ((raw[ends] == _NL) & (before == _QUOTE) & (raw[np.maximum(ends - 2, 0)] == _QUOTE)).any():
        return True  # an empty last field ("", or a quoted one: a false yes at worst)
    padded = np.concatenate((raw, np.zeros(3, np.uint8)))  # the bytes after the head's end
    starts = np.concatenate(([0], ends + 1))
    first, second, third = padded[starts], padded[starts + 1], padded[starts + 2]
    leading = (first == _ZERO) & _digit(second)
    signed = np.isin(first, _SIGNS) & (second == _ZERO) & _digit(third)
    return bool((leading | signed).any())


def _head_rows(data: bytes, rows: int = SAMPLE_ROWS + 2) -> bytes:
    """``data`` up to the end of its first ``rows`` lines (the typing sample's rows, a record
    possibly spanning lines: more), found by one byte search a line."""
    at = -1
    for _ in range(rows):
        at = data.find(b"\n", at + 1)
        if at < 0:
            return data
    return data[:at + 1]


_SIGNS = np.frombuffer(b' \t+-"', dtype=np.uint8)  # what may come before a number's first digit


def _digit(values: np.ndarray) -> np.ndarray:
    return (values >= _ZERO) & (values <= _NINE)


def _text_filled(frame: pd.DataFrame) -> pd.DataFrame:
    """The frame of a parse with :data:`_EMPTY_IS_MISSING` with its text columns' empty cells
    as "" again (a text cell is never missing)."""
    for name in frame.columns:
        column = frame[name]
        if column.dtype.kind in "iufcb" or _no_missing(column):
            continue
        if column.isna().any():
            frame[name] = column.fillna("")
    return frame


def _typed(frame: pd.DataFrame, header: Sequence[str], source: Any,
           delimiter: str, plan: _Plan) -> dict[str, TypedColumn]:
    """Type the C parser's columns as :mod:`workbench.io.cells` would (see the module's text);
    ``source`` gives a column's cells as written (``source.text(name, more)``: the
    :class:`~workbench.io.fastcsv.TextSource` of the file).

    A float column is taken as it is when it has no infinity (``inf`` is text by the cells
    rule) and NaN only where the plan reads empty cells as NaN; with a decimal comma, a
    column is noted as written with one when the sample says so or when it holds a
    fraction (a point would have made the C parser return text)."""
    columns: dict[str, TypedColumn] = {}
    redo: list[str] = []
    allow_comma = delimiter != ","
    for name in header:
        series = frame[name]
        kind = series.dtype.kind
        if kind in "iu" and series.dtype == np.int64:
            columns[name] = TypedColumn(series.to_numpy())
        elif kind == "f" and _plain_floats(series.to_numpy(), name in plan.numbers) \
                and not _all_missing(series.to_numpy()):  # an all-empty column is text
            values = series.to_numpy()
            comma = bool(plan.commas) and (name in plan.commas or _has_fraction(values))
            columns[name] = TypedColumn(values, decimal_comma=comma)
        elif kind in "OUT" or pd.api.types.is_string_dtype(series.dtype):
            if series.dtype == object and pd.api.types.infer_dtype(series, skipna=False) != "string":
                redo.append(name)  # pieces the C parser typed apart ("007" read as 7 in one)
                continue
            if name in plan.text:  # the sample (these rows) is text; no NA in this column
                columns[name] = TypedColumn(_as_text(series))
                continue
            head = series.iloc[:SAMPLE_ROWS].tolist()
            if _no_missing(series) or all(isinstance(v, str) for v in head):
                if is_text_screened("\n".join(head), allow_decimal_comma=allow_comma):
                    columns[name] = TypedColumn(_as_text(series))  # a character no number holds
                    continue
                typed = type_text_column(head, allow_decimal_comma=allow_comma)
                if not isinstance(typed.values, np.ndarray) and typed.leading_zeros is None:
                    columns[name] = TypedColumn(_as_text(series))
                    continue
            values = series.tolist()
            if all(isinstance(v, str) for v in values):
                columns[name] = type_text_column(values, allow_decimal_comma=allow_comma)
                source.preload({name: text_array(values)})
            else:
                redo.append(name)
        else:  # bool, uint64, inf/nan floats: the cell text decides
            redo.append(name)
    for name in redo:
        values = list(source.text(name, redo))
        columns[name] = type_text_column(values, allow_decimal_comma=allow_comma)
    return {name: columns[name] for name in header}


def _plain_floats(values: np.ndarray, blanks_allowed: bool) -> bool:
    """No infinity, and NaN only where empty cells may be (they are read as NaN)."""
    if blanks_allowed:
        return not np.isinf(values).any()
    return bool(np.isfinite(values).all())


def _no_missing(series: pd.Series) -> bool:
    """A column of pandas' str dtype without a missing cell: every value is a str."""
    arrow = getattr(series.array, "_pa_array", None)
    return series.dtype != object and arrow is not None and arrow.null_count == 0


def _all_missing(values: np.ndarray) -> bool:
    return bool(values.size) and bool(np.isnan(values[0])) and bool(np.isnan(values).all())


def _has_fraction(values: np.ndarray) -> bool:
    finite = values[np.isfinite(values)]
    return bool((finite != np.floor(finite)).any())


def _as_text(series: pd.Series) -> Any:
    """A text column in :data:`TEXT_DTYPE` (pandas' own str array is kept as it is)."""
    if TEXT_DTYPE is not object and series.dtype == TEXT_DTYPE:
        return series.array
    return text_array(series.tolist())
