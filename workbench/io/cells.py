"""Cell-level helpers shared by the readers: number detection, column typing, formatting.

The rule for every format is the same: a column becomes numeric only when *every*
non-empty cell in it is a number.  Anything else stays text, cell for cell, so that
literal values such as ``"None"``, ``"NA"``, ``"null"``, ``"nan"`` or ``""`` are kept as
the user wrote them.
"""

from __future__ import annotations

import datetime as _dt
import math
import numbers
import re
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
import pandas as pd


def _text_dtype() -> Any:
    """The pandas ``str`` dtype (pandas >= 2.3), else plain ``object`` columns."""
    try:
        return pd.StringDtype(na_value=np.nan)
    except TypeError:  # pandas < 2.3 has no NaN-variant string dtype
        return object


#: pandas dtype used for text columns: Python ``str`` values, ``""`` stays ``""``.
TEXT_DTYPE = _text_dtype()

# A plain decimal number: optional sign, digits with an optional fraction (or a bare
# fraction such as ".5") and an optional exponent.  ``inf``, ``nan``, ``1_000`` and
# thousands separators are deliberately *not* numbers.
NUMBER_RE = re.compile(
    r"[ \t]*[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?[ \t]*"
)

# The patterns below run on "\n" + column joined with "\n" + "\n", so every cell is
# preceded and followed by a line break; they use plain "\n" anchors, which re scans
# far faster than (?m)^ anchors.
_BLANK_CELL = re.compile(r"\n[ \t]*\n")
# "007", "-01.5": written with a leading zero, which suggests an identifier, not a number.
_LEADING_ZERO_CELL = re.compile(r"\n[ \t]*[+-]?0[0-9]")

_NUMERIC_CHARS = "0123456789+-.eE \t\n"
_NUMERIC_BYTES = _NUMERIC_CHARS.encode("ascii")
# A character that no number holds (a regular expression stops at the first one, where
# str.translate with a table of characters to drop went through the whole text).
_NOT_NUMERIC = re.compile("[^" + re.escape(_NUMERIC_CHARS) + "]")
_NOT_NUMERIC_OR_COMMA = re.compile("[^" + re.escape(_NUMERIC_CHARS + ",") + "]")

# Integral floats below this magnitude are printed as integers ("3" rather than "3.0").
_INTEGRAL_FLOAT_LIMIT = 1e16


@dataclass(frozen=True)
class TypedColumn:
    """The result of typing one column: the values and what was decided about them."""

    values: Any  # numpy array (int64/float64/bool/datetime64) or a pandas text array
    decimal_comma: bool = False  # numbers were written with "," as decimal separator
    leading_zeros: str | None = None  # example value that kept a number-like column as text
    too_large: bool = False  # integers too large for int64; kept as text


def is_missing(value: Any) -> bool:
    """Return True for ``None``, ``NaN``, ``pd.NA`` and ``NaT`` (not for ``""``)."""
    if value is None or value is pd.NA or value is pd.NaT:
        return True
    if isinstance(value, float) or isinstance(value, np.floating):
        return math.isnan(value)
    if isinstance(value, np.datetime64):
        return bool(np.isnat(value))
    return False


def is_blank(value: Any) -> bool:
    """Return True for missing values and for strings that are empty or only whitespace."""
    if isinstance(value, str):
        return not value.strip()
    return is_missing(value)


def format_cell(value: Any) -> str:
    """Render one cell as text: ``""`` for missing, ``"3"`` for 3.0, ISO dates, ``"True"``."""
    if isinstance(value, str):
        return value
    if is_missing(value):
        return ""
    if isinstance(value, (bool, np.bool_)):
        return "True" if value else "False"
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        number = float(value)
        if number.is_integer() and abs(number) < _INTEGRAL_FLOAT_LIMIT:
            return str(int(number))
        return repr(number)
    if isinstance(value, (pd.Timestamp, _dt.datetime)):
        if (value.hour, value.minute, value.second, value.microsecond) == (0, 0, 0, 0):
            return value.date().isoformat()
        return value.isoformat()
    if isinstance(value, (_dt.date, _dt.time)):
        return value.isoformat()
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    return str(value)


#: Significant digits Excel shows of a number (its formula bar and the General format).
EXCEL_DIGITS = 15


def format_excel_cell(value: Any) -> str:
    """Render a workbook cell as Excel shows it: ``TRUE``/``FALSE`` for booleans, numbers to
    15 significant digits (``1/3`` as ``0.333333333333333``, ``1E+20``), integers as
    integers; anything else as :func:`format_cell`."""
    if isinstance(value, (bool, np.bool_)):
        return "TRUE" if value else "FALSE"
    if isinstance(value, numbers.Real) and not isinstance(value, numbers.Integral) \
            and not is_missing(value):
        number = float(value)
        if number.is_integer() and abs(number) < 10.0 ** EXCEL_DIGITS:
            return str(int(number))
        text = f"{number:.{EXCEL_DIGITS}g}"
        if "e" in text:
            mantissa, exponent = text.split("e")
            text = f"{mantissa}E{exponent[0]}{int(exponent[1:]):02d}"
        return text
    if isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_)) \
            and abs(int(value)) >= 10 ** EXCEL_DIGITS:
        return format_excel_cell(float(value))
    return format_cell(value)


def parse_number(text: str, *, decimal_comma: bool = False) -> float | None:
    """Parse a plain decimal number (surrounding spaces allowed); None if it is not one.

    With ``decimal_comma`` a single ``,`` is accepted as decimal separator ("0,5"),
    provided the text contains no ``.``.
    """
    if decimal_comma and "," in text and "." not in text:
        text = text.replace(",", ".", 1)
    if NUMBER_RE.fullmatch(text) is None:
        return None
    return float(text)


def text_array(values: Sequence[str]) -> Any:
    """Build the array used for text columns (see :data:`TEXT_DTYPE`)."""
    if TEXT_DTYPE is object:
        array = np.empty(len(values), dtype=object)
        array[:] = list(values)
        return array
    return pd.array(list(values), dtype=TEXT_DTYPE)


def _screen(joined: str, allow_decimal_comma: bool) -> str:
    """``"text"``, ``"comma"`` or ``"number"``: what the characters of a column (its cells
    joined with line breaks) allow: a character that no number holds, or a comma where no
    decimal comma may be, makes text; commas and no point, numbers with a decimal comma."""
    if not _has_other(joined, _NOT_NUMERIC, _NUMERIC_BYTES):
        return "number"
    if allow_decimal_comma and "." not in joined and \
            not _has_other(joined, _NOT_NUMERIC_OR_COMMA, _NUMERIC_BYTES + b","):
        return "comma"
    return "text"


def _has_other(joined: str, other: re.Pattern[str], allowed: bytes) -> bool:
    """Whether ``joined`` holds a character not in ``allowed`` (``other`` matches one): looked
    for in the first cells, then, for ASCII text, by deleting the allowed bytes (twice as fast
    as str.translate)."""
    if other.search(joined, 0, 4096) is not None:
        return True
    if not joined.isascii():
        return True  # every allowed character is ASCII
    return bool(joined.encode("ascii").translate(None, allowed))


def is_text_screened(joined: str, *, allow_decimal_comma: bool) -> bool:
    """Whether the column whose cells joined with ``"\\n"`` are ``joined`` is text by its
    characters alone: the first test of :func:`type_text_column`, without building the column."""
    return _screen(joined, allow_decimal_comma) == "text"


def type_text_column(values: Sequence[str], *, allow_decimal_comma: bool) -> TypedColumn:
    """Type a column of strings read from a delimited file.

    The column becomes int64 when every cell is an integer, float64 when every
    non-empty cell is a number (blank cells become NaN), and stays text otherwise.
    With ``allow_decimal_comma`` a column whose numbers use ``,`` as decimal separator
    (and never ``.``) is read as numbers too.  Number-like columns with leading zeros
    ("007") or integers too large for int64 stay text so that no digits are lost.

    To stay fast on million-row files the column is screened as one joined string:
    only cells made of digits, signs, points, exponents and spaces can be numbers,
    and within that alphabet Python's own number syntax (used by numpy to convert)
    is exactly the plain decimal syntax of :data:`NUMBER_RE`.
    """
    joined = "\n".join(values)
    decimal_comma = False
    numeric_values: Sequence[str] = values
    screened = _screen(joined, allow_decimal_comma)
    if screened == "text":
        return TypedColumn(text_array(values))
    if screened == "comma":
        joined = joined.replace(",", ".")
        numeric_values = [value.replace(",", ".") for value in values]
        decimal_comma = True

    if not joined.strip(" \t\n"):
        return TypedColumn(text_array(values))  # every cell is blank
    framed = f"\n{joined}\n"
    zero = _LEADING_ZERO_CELL.search(framed)
    if zero is not None:
        example = framed[zero.start() + 1:].split("\n", 1)[0].strip()
        return TypedColumn(text_array(values), leading_zeros=example)

    has_blanks = _BLANK_CELL.search(framed) is not None
    integral = "." not in joined and "e" not in joined and "E" not in joined
    try:
        if integral and not has_blanks:
            return TypedColumn(np.array(numeric_values, dtype=np.int64))
        if has_blanks:
            numeric_values = [v if v.strip() else "nan" for v in numeric_values]
        return TypedColumn(np.array(numeric_values, dtype=np.float64), decimal_comma=decimal_comma)
    except OverflowError:
        return TypedColumn(text_array(values), too_large=True)
    except ValueError:  # e.g. "1-2", "e5", "1.2.3": made of number characters only
        return TypedColumn(text_array(values))


def type_cell_column(values: Sequence[Any], formatter: Any = None) -> TypedColumn:
    """Type a column of spreadsheet cell values (``None``, str, int, float, bool, dates).

    Cells keep their types: a column whose non-empty cells are all numbers becomes
    int64 (all integers, no blanks) or float64 (blanks become NaN); all booleans
    without blanks become bool; all dates/datetimes become datetime64 (blanks NaT).
    Every other column becomes text, with each cell rendered by ``formatter`` (default
    :func:`format_cell`; a workbook's :func:`format_excel_cell`) and empty cells as ``""``.  Integral floats (as calamine returns every number) count as
    integers, as Excel stores ``1`` and ``1.0`` alike.
    """
    fast = _type_cells_vectorised(values)
    if fast is not None:
        return fast
    kinds: set[str] = set()
    has_blanks = False
    for value in values:
        if is_blank(value):
            has_blanks = True
        elif isinstance(value, (bool, np.bool_)):
            kinds.add("bool")
        elif isinstance(value, numbers.Integral):
            kinds.add("int")
        elif isinstance(value, numbers.Real):
            kinds.add("float")
        elif isinstance(value, (_dt.datetime, _dt.date)) and not isinstance(value, _dt.time):
            kinds.add("date")
        else:
            kinds.add("text")
            break

    if kinds and kinds <= {"int", "float"}:
        if kinds == {"int"} and not has_blanks:
            try:
                return TypedColumn(np.array(values, dtype=np.int64))
            except OverflowError:
                pass
        return TypedColumn(
            np.array([np.nan if is_blank(v) else float(v) for v in values], dtype=np.float64)
        )
    if kinds == {"bool"} and not has_blanks:
        return TypedColumn(np.array(values, dtype=bool))
    if kinds == {"date"}:
        stamps = pd.to_datetime([None if is_blank(v) else v for v in values])
        return TypedColumn(stamps.to_numpy())
    render = formatter or format_cell
    return TypedColumn(text_array([render(v) for v in values]))


def _type_cells_vectorised(values: Sequence[Any]) -> TypedColumn | None:
    """:func:`type_cell_column` for the common kinds without a loop per cell; None otherwise."""
    array = values if isinstance(values, np.ndarray) and values.dtype == object else None
    if array is None:
        array = np.empty(len(values), dtype=object)
        array[:] = list(values)
    if array.size == 0:
        return TypedColumn(text_array([]))
    blank = (array == "") | pd.isna(array)
    filled = array[~blank]
    if filled.size == 0:
        return TypedColumn(text_array(["" if b else v for v, b in zip(array.tolist(), blank)]))
    kind = pd.api.types.infer_dtype(filled, skipna=False)
    has_blanks = bool(blank.any())
    if kind in ("integer", "floating", "mixed-integer-float"):
        try:
            numbers = np.asarray(filled, dtype=np.float64)
        except (OverflowError, ValueError):
            return None
        if not np.isfinite(numbers).all():
            return None
        if not has_blanks and (numbers == np.round(numbers)).all() and \
                (np.abs(numbers) < 2.0**53).all():
            return TypedColumn(numbers.astype(np.int64))
        out = np.full(array.size, np.nan)
        out[~blank] = numbers
        return TypedColumn(out)
    if kind == "boolean" and not has_blanks:
        return TypedColumn(filled.astype(bool))
    if kind == "string":
        out = array.copy()
        out[blank] = ""
        return TypedColumn(text_array(out.tolist()))
    return None
