"""Checking and converting the columns of a :class:`~workbench.io.loader.LoadedTable`.

Analyses call these helpers instead of touching raw cells, so that every bad value is
reported the same way: one sentence naming the file, the column, the offending
values with their line numbers, how many rows are affected and what was expected.
Conversions work on the distinct values of a column (``pandas.factorize``), which
keeps them fast on million-row tables.
"""

from __future__ import annotations

import math
import numbers
import re
from typing import Any, Iterable, Sequence

import numpy as np
import pandas as pd

from workbench.core.errors import DataError
from workbench.io.cells import format_cell, is_blank, is_missing, parse_number
from workbench.io.table import LoadedTable

#: Words (lower case, stripped) read as 1 and 0 by :func:`to_binary`.
TRUE_WORDS = frozenset({"1", "1.0", "true", "yes", "pass", "correct", "y", "t"})
FALSE_WORDS = frozenset({"0", "0.0", "false", "no", "fail", "incorrect", "n", "f"})
BINARY_EXPECTED = "1/0, true/false, yes/no, pass/fail, correct/incorrect, y/n or t/f"

# How many distinct bad values, and how many lines per value, a message shows.
_SHOWN_VALUES = 5
_SHOWN_LINES = 3
# How many column names "its columns are: ..." lists.
_SHOWN_COLUMNS = 30

_OK, _MISSING, _INVALID = 0, 1, 2
_NAME_NOISE = re.compile(r"[\s_\-]+")


def require_columns(table: LoadedTable, names: Iterable[str]) -> None:
    """Raise :class:`DataError` unless the table has every column in ``names``.

    The message lists the table's columns and suggests a column whose name differs
    only in case, spaces, underscores or hyphens.
    """
    present = [str(name) for name in table.frame.columns]
    missing = [name for name in names if name not in table.frame.columns]
    if not missing:
        return
    listed = ", ".join(present[:_SHOWN_COLUMNS])
    if len(present) > _SHOWN_COLUMNS:
        listed += f" and {len(present) - _SHOWN_COLUMNS} more"
    quoted = ", ".join(f"'{name}'" for name in missing)
    what = f"column {quoted}" if len(missing) == 1 else f"columns {quoted}"
    hints = []
    for name in missing:
        similar = _match_name(present, name)
        if similar is not None:
            hints.append(f"'{similar}'" if len(missing) == 1 else f"'{similar}' for '{name}'")
    hint = f" (did you mean {' or '.join(hints)}?)" if hints else ""
    others = [name for name in table.sheets if name != table.sheet]
    sheets = ""
    if others:
        shown = ", ".join(f"'{name}'" for name in others[:10])
        sheets = (f"; the workbook's other sheets are {shown}: choose one with --sheet (or in "
                  "the sheet list when opening)")
    raise DataError(
        f"{_capitalized(table.describe())} has no {what}{hint}; its columns are: {listed}"
        f"{sheets}."
    )


def to_binary(table: LoadedTable, column: str) -> np.ndarray:
    """Return the column as an int8 array of 0/1.

    Accepted: the numbers 0 and 1 (int or float), booleans, and the words true/false,
    yes/no, pass/fail, correct/incorrect, y/n, t/f (any case, surrounding spaces
    ignored).  Anything else, including empty cells, raises :class:`DataError`
    listing up to five offending values with their lines and the number of bad rows.
    """
    series = _column(table, column)
    codes, uniques = pd.factorize(series, use_na_sentinel=False)
    lookup = np.array([_binary_value(value) for value in uniques], dtype=np.int8)
    result = lookup[codes] if len(lookup) else np.zeros(0, dtype=np.int8)
    bad = result < 0
    if bad.any():
        count, shown = _offenders(table, series, bad)
        raise DataError(
            f"Column '{column}' of {table.describe()} must hold binary values "
            f"({BINARY_EXPECTED}), but {_rows(count)} not: {shown}."
        )
    return result


def holds_binary_words(table: LoadedTable, column: str) -> bool:
    """Whether some cell of the column is a binary word that is not a number (``yes``, ``pass``,
    ``true``...): a column meant as outcomes, so a bad cell in it is reported against the
    binary words (``maybe`` alone), not against numbers (which would list ``yes`` and ``no``)."""
    series = _column(table, column)
    if pd.api.types.is_numeric_dtype(series.dtype) and not pd.api.types.is_bool_dtype(series.dtype):
        return False
    uniques = pd.unique(series)
    return any(isinstance(v, (bool, np.bool_)) or (isinstance(v, str) and _binary_value(v) >= 0
                                                   and parse_number(v) is None)
               for v in uniques)


def to_float(
    table: LoadedTable,
    column: str,
    *,
    allow_missing: bool = False,
    min_value: float | None = None,
) -> np.ndarray:
    """Return the column as a float64 array.

    Numeric columns are used as they are; text cells must be plain numbers such as
    ``3``, ``-0.25`` or ``1e-3`` (``0,5`` too when the file uses a decimal comma).
    Empty cells become NaN when ``allow_missing`` is true and are refused otherwise;
    with ``min_value`` smaller values are refused.  Booleans, infinities and other
    text raise :class:`DataError` with the offending values and their lines.
    """
    series = _column(table, column)
    if pd.api.types.is_numeric_dtype(series.dtype) and not pd.api.types.is_bool_dtype(
        series.dtype
    ):
        values = series.to_numpy(dtype=np.float64, na_value=np.nan)
        status = np.where(
            np.isnan(values), _MISSING, np.where(np.isinf(values), _INVALID, _OK)
        )
    else:
        decimal_comma = table.decimal == ","
        codes, uniques = pd.factorize(series, use_na_sentinel=False)
        parsed = [_float_value(value, decimal_comma) for value in uniques]
        values = np.array([number for number, _ in parsed], dtype=np.float64)[codes]
        status = np.array([state for _, state in parsed], dtype=np.int8)[codes]

    where = f"Column '{column}' of {table.describe()}"
    invalid = status == _INVALID
    if invalid.any():
        count, shown = _offenders(table, series, invalid)
        raise DataError(
            f"{where} must hold numbers (like 3, 0.25 or 1e-3), but {_rows(count)} not: "
            f"{shown}."
        )
    missing = status == _MISSING
    if not allow_missing and missing.any():
        positions = np.flatnonzero(missing)
        cells = "an empty cell" if len(positions) == 1 else f"{len(positions)} empty cells"
        raise DataError(
            f"{where} has {cells} ({table.describe_rows(positions)}); expected a number "
            "in every row."
        )
    if min_value is not None:
        below = ~missing & (values < min_value)
        if below.any():
            count, shown = _offenders(table, pd.Series(values), below)
            raise DataError(
                f"{where} must not be below {format_cell(min_value)}, but {_rows(count)}: "
                f"{shown}."
            )
    return values


def to_text(table: LoadedTable, column: str) -> list[str]:
    """Return every cell of the column as ``str``: the exact text of the file.

    Missing values become ``""``.  A column that was typed as numbers keeps the text the
    file holds (``7.50`` stays ``7.50``; see :meth:`LoadedTable.cell_text`), so ids, answers
    and labels are never rewritten.
    """
    require_columns(table, [column])
    text = table.cell_text(column)
    if isinstance(text, np.ndarray):
        return text.tolist()
    return text.to_numpy(dtype=object).tolist()  # pandas' text arrays: 6x faster than list()


def text_codes(table: LoadedTable, column: str) -> tuple[np.ndarray, np.ndarray]:
    """The column as integer codes and their text labels (``labels[codes]`` == :func:`to_text`).

    Two cells get the same code exactly when their text is the same (``1`` and ``1.0`` are
    different ids).  Vectorised, so that a million ids cost a few hundredths of a second;
    codes follow the order of first appearance.  ``labels`` is an array-like of distinct
    ``str``.
    """
    require_columns(table, [column])
    rendered = table.cell_codes(column)  # no text per row when the values render their text
    if rendered is not None:
        return rendered
    text = table.cell_text(column)
    codes, uniques = pd.factorize(text, use_na_sentinel=False)
    return codes.astype(np.int64, copy=False), uniques


#: Roles whose column splits the rows into systems (:func:`guess_column`).
SPLITTING = ("system", "version")


def guess_column(table: LoadedTable, role: str, candidates: Sequence[str]) -> str | None:
    """Find the column playing ``role`` (e.g. ``"label"``) among likely header names.

    Each candidate, then ``role`` itself, is compared with the header names ignoring
    case, spaces, underscores and hyphens; the first candidate that matches wins and
    the table's actual column name is returned.  Returns None when nothing matches.
    """
    present = [str(name) for name in table.frame.columns]
    found = []
    for candidate in [*candidates, role]:
        match = _match_name(present, candidate)
        if match is not None and match not in found:
            if role not in SPLITTING:
                return match
            found.append(match)
    return first_varying(table.frame, found)


def first_varying(frame: pd.DataFrame, columns: Sequence[str]) -> str | None:
    """Of several columns named for the system, the first with more than one value (a constant
    'model' beside the 'run' or 'variant' that varies); the first when none varies."""
    if len(columns) < 2:
        return columns[0] if columns else None
    return next((c for c in columns if frame[c].nunique(dropna=False) > 1), columns[0])


def _column(table: LoadedTable, column: str) -> pd.Series:
    """The column as a Series, after :func:`require_columns`."""
    require_columns(table, [column])
    return table.frame[column]


def _normalized(name: str) -> str:
    """Header name for loose comparison: no spaces, underscores or hyphens, case-folded."""
    return _NAME_NOISE.sub("", str(name)).casefold()


def _match_name(present: Sequence[str], wanted: str) -> str | None:
    """The column in ``present`` equal to ``wanted``, exactly or else loosely."""
    if wanted in present:
        return wanted
    key = _normalized(wanted)
    return next((name for name in present if _normalized(name) == key), None)


def _capitalized(text: str) -> str:
    """``text`` with its first letter in upper case (the rest untouched)."""
    return text[:1].upper() + text[1:]


def _rows(count: int) -> str:
    """``"1 row does"`` / ``"3 rows do"``: the subject of an error sentence."""
    return "1 row does" if count == 1 else f"{count} rows do"


def _binary_value(value: Any) -> int:
    """1 or 0 for an accepted binary value, -1 for anything else."""
    if isinstance(value, (bool, np.bool_)):
        return int(bool(value))
    if isinstance(value, str):
        word = value.strip().lower()
        if word in TRUE_WORDS:
            return 1
        if word in FALSE_WORDS:
            return 0
        return -1
    if isinstance(value, numbers.Real) and not is_missing(value):
        if value == 1:
            return 1
        if value == 0:
            return 0
    return -1


def _float_value(value: Any, decimal_comma: bool) -> tuple[float, int]:
    """Classify one distinct cell value as (number, OK), (NaN, MISSING) or (NaN, INVALID)."""
    if is_blank(value):
        return math.nan, _MISSING
    if isinstance(value, (bool, np.bool_)):
        return math.nan, _INVALID
    if isinstance(value, numbers.Real):
        number = float(value)
    elif isinstance(value, str):
        parsed = parse_number(value, decimal_comma=decimal_comma)
        if parsed is None:
            return math.nan, _INVALID
        number = parsed
    else:
        return math.nan, _INVALID
    if math.isinf(number):
        return math.nan, _INVALID
    return number, _OK


def _offenders(table: LoadedTable, series: pd.Series, bad: np.ndarray) -> tuple[int, str]:
    """Count the bad rows and describe up to five distinct bad values with their lines."""
    positions = np.flatnonzero(bad)
    values = series.to_numpy(dtype=object)[positions]
    codes, uniques = pd.factorize(values, use_na_sentinel=False)
    pieces = []
    for code in range(min(len(uniques), _SHOWN_VALUES)):
        where = positions[codes == code]
        rows = table.describe_rows(where, _SHOWN_LINES)
        pieces.append(f"{_shown_value(uniques[code])} ({rows})")
    if len(uniques) > _SHOWN_VALUES:
        pieces.append(f"and {len(uniques) - _SHOWN_VALUES} other values")
    return len(positions), ", ".join(pieces)


def _shown_value(value: Any) -> str:
    """A cell value as it should appear in a message."""
    if isinstance(value, str):
        if not value:
            return "an empty cell"
        if not value.strip():
            return "a cell with only spaces"
        text = value if len(value) <= 40 else value[:37] + "..."
        return "'" + text.replace("\n", "\\n") + "'"
    if is_missing(value):
        return "an empty cell"
    return format_cell(value)
