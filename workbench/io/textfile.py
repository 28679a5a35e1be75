"""The delimited-text reader: bytes of a CSV/TSV-like file to a :class:`LoadedTable` (the
encoding and the delimiter sniffed, the header checked, every column typed with the exact text
of its cells kept), the way :func:`workbench.io.loader.load_table` reads a file whole.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np
import pandas as pd

from workbench.core.errors import DataError
from workbench.io import delimited, fastcsv
from workbench.io.cells import TypedColumn, text_array, type_text_column
from workbench.io.lazylines import LazyLines
from workbench.io.table import TEXT, LoadedTable, _KeptText


class _Steps:
    """Reports a step to the optional progress object: check for cancel, then advance."""

    def __init__(self, progress: Any, name: str) -> None:
        self._progress = progress
        self._name = name

    def __call__(self, fraction: float, verb: str) -> None:
        if self._progress is None:
            return
        self._progress.check_cancelled()
        self._progress.advance(fraction, f"{verb} {self._name}")


def _check_header(
    names: Sequence[str], where: str, position: Callable[[int], str]
) -> list[str]:
    """Strip header names and refuse empty or duplicate ones.

    ``where`` starts the message ("File '/x.csv'") and ``position(i)`` names the
    place of header field ``i`` ("field 3 of line 1", "cell C1").
    """
    stripped = [str(name).strip() for name in names]
    empty = [i for i, name in enumerate(stripped) if not name]
    if empty:
        places = ", ".join(position(i) for i in empty[:5])
        raise DataError(
            f"{where} has a column without a name ({places}); give every column a "
            "unique name in the header."
        )
    seen: dict[str, int] = {}
    for i, name in enumerate(stripped):
        if name in seen:
            raise DataError(
                f"{where} has the column name '{name}' twice ({position(seen[name])} and "
                f"{position(i)}); column names must be unique."
            )
        seen[name] = i
    return stripped


def _row_lines(lines: "Sequence[int] | LazyLines | None") -> "np.ndarray | LazyLines | None":
    """Keep explicit line numbers only when they differ from the usual ``index + 2``."""
    if lines is None or isinstance(lines, LazyLines):
        return lines  # lazy: found from the file when first asked for
    array = np.asarray(lines, dtype=np.int64)
    if np.array_equal(array, np.arange(2, 2 + len(array))):
        return None
    return array


def _load_text(data: bytes, path: str, shown: str, step: _Steps,
               state: tuple[int, int] | None = None) -> LoadedTable:
    """Decode, split and type a delimited text file.

    The fast path (:mod:`workbench.io.fastcsv`, pandas' C parser) reads the file when it can
    prove that its table is the one the exact reader (:mod:`workbench.io.delimited`, the csv
    module) would see; otherwise the exact reader reads it and names what is wrong.
    """
    decoded = delimited.decode(data, shown, lazy=True)
    head = decoded.head
    delimiter = delimited.sniff_delimiter(head)
    header_record = delimited.first_record(head, delimiter)
    typed: dict[str, TypedColumn] | None = None
    source: Any = None
    lines: np.ndarray | None = None
    names: list[str] = []
    if header_record is not None:
        header, header_line = header_record
        names = _check_header(header, f"File {shown}",
                              lambda i: f"field {i + 1} of line {header_line}")
        step(0.3, "Parsing")
        try:
            utf8 = decoded.utf8
            # the file's own bytes (UTF-8, no byte-order mark): the C parser may read the file
            file = (path, state) if state is not None and utf8 is data and state[0] == len(data) else None
            fast = fastcsv.parse(utf8, delimiter, names, header_line, file)
        except fastcsv.Fallback:
            pass
        else:
            typed, source, lines = fast.columns, fast.source, fast.lines
    if typed is None:
        records = delimited.split_records(decoded.text, delimiter, shown)
        step(0.6, "Converting")
        header_line = records.header_line
        names = _check_header(
            records.header,
            f"File {shown}",
            lambda i: f"field {i + 1} of line {header_line}",
        )
        allow_comma = delimiter != ","
        typed = {}
        raw: dict[str, Any] = {}
        for name, cells in zip(names, records.columns):
            typed[name] = type_text_column(cells, allow_decimal_comma=allow_comma)
            if isinstance(typed[name].values, np.ndarray):
                raw[name] = text_array(cells)
        source = _KeptText(raw)
        lines = records.lines
    step(0.8, "Converting")
    return _text_table(typed, path, shown, delimiter, decoded.encoding, decoded.notes, lines, source)


def _text_table(typed: dict[str, TypedColumn], path: str, shown: str, delimiter: str,
                encoding: str, decoding_notes: Sequence[str], lines: np.ndarray | None,
                source: Any) -> LoadedTable:
    """The :class:`LoadedTable` of a delimited text file's typed columns, with its notes."""
    # the arrays are this table's own (the parse that made them is discarded): no copy
    frame = pd.DataFrame({name: column.values for name, column in typed.items()}, copy=False)

    notes = list(decoding_notes)
    comma_columns = [name for name, column in typed.items() if column.decimal_comma]
    if comma_columns:
        listed = ", ".join(f"'{name}'" for name in comma_columns)
        notes.append(
            f"File {shown} writes numbers with a decimal comma (like 0,5) in column(s) "
            f"{listed}; they were read as numbers."
        )
    for name, column in typed.items():
        if column.leading_zeros is not None:
            notes.append(
                f"Column '{name}' of file {shown} was kept as text because values such as "
                f"'{column.leading_zeros}' have leading zeros."
            )
        if column.too_large:
            notes.append(
                f"Column '{name}' of file {shown} was kept as text because its integers "
                "are too large to store exactly."
            )
    return LoadedTable(
        frame=frame,
        path=path,
        encoding=encoding,
        delimiter=delimiter,
        decimal="," if comma_columns else ".",
        notes=tuple(notes),
        format=TEXT,
        row_lines=_row_lines(lines),
        cell_source=source,
    )
