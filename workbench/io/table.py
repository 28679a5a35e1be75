"""The table type of every reader: a loaded table plus what is known about the file it came
from (its lines, the exact text of its cells, the roles and panel a format suggested).

Every reader (delimited text, workbooks, Parquet, the evaluation tools' logs) produces a
:class:`LoadedTable`; this module imports none of them.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

import numpy as np
import pandas as pd

from workbench.io.cells import format_cell, format_excel_cell, text_array

#: Values of :attr:`LoadedTable.format`.
TEXT, XLSX, PARQUET = "text", "xlsx", "parquet"


@dataclass(frozen=True)
class LoadedTable:
    """A loaded table plus what is known about the file it came from.

    ``frame`` has a default index ``0..n-1``.  Use :meth:`line_of` to turn a row
    index into the line number (text files) or sheet row number (workbooks) that
    the user sees in their editor.  Two tables compare equal when they describe
    the same file contents and options (the frames themselves are not compared).
    """

    frame: pd.DataFrame = field(compare=False, repr=False)
    path: str
    #: The file's SHA-256 as hex text, or a :class:`Digest` that computes it on first use
    #: (read it through :attr:`sha256`).
    digest: Any = field(default="", repr=False)
    size_bytes: int = 0
    sheet: str | None = None
    sheets: tuple[str, ...] = ()
    encoding: str | None = None
    delimiter: str | None = None
    decimal: str | None = None
    notes: tuple[str, ...] = ()
    format: str = TEXT
    #: Line (or sheet row) of each data row when it is not simply ``index + 2``.
    row_lines: np.ndarray | None = field(default=None, repr=False, compare=False)
    #: Where the exact text of cells typed as numbers comes from (``text(column)``).
    cell_source: Any = field(default=None, repr=False, compare=False)
    #: Column roles and the panel suggested by the format's reader (workbench/io/formats), if any.
    roles: dict[str, str] = field(default_factory=dict, repr=False, compare=False)
    panel: str | None = None
    #: What a data row is called in messages when it is not a line or a sheet row ("record").
    row_word: str | None = None
    #: A name per data row for messages, where the file's own id says more than a row number
    #: (an Inspect log's "sample q3 (epoch 2)"); None: rows are named by their line.
    row_names: Any = field(default=None, repr=False, compare=False)
    #: Files stacked into this table: (path, SHA-256) of each, in order; () for one file.
    parts: tuple[tuple[str, str], ...] = field(default=(), repr=False, compare=False)
    #: A file beyond the memory budget read page by page by DuckDB
    #: (:class:`workbench.engines.paged.LargeFile`): ``frame`` then holds its first rows only,
    #: and only analyses with an engine compute on it.
    large: Any = field(default=None, repr=False, compare=False)
    #: What the file holds, as its reader declared it (:class:`workbench.io.evaluation.
    #: Evaluation`: items, repeats, runs, scorers, statuses, usage); None: a plain table,
    #: whose evaluation the analyses infer from the column roles.
    evaluation: Any = field(default=None, repr=False, compare=False)

    @property
    def sha256(self) -> str:
        """The SHA-256 of the file's bytes (hex), computed the first time it is asked for."""
        d = self.digest
        return d if isinstance(d, str) else d.hexdigest()

    @property
    def name(self) -> str:
        """The file's base name, e.g. ``"results.csv"``; for files stacked into one table
        (``"/x/a.run + /x/b.run"``) each file's, ``"a.run + b.run"``."""
        if " + " in self.path and not os.path.exists(self.path):
            return " + ".join(os.path.basename(p) for p in self.path.split(" + "))
        return os.path.basename(self.path)

    @property
    def line_word(self) -> str:
        """``"line"`` for text files, ``"row"`` for workbook sheets and Parquet files."""
        if self.row_word:
            return self.row_word
        return "line" if self.format == TEXT else "row"

    def cell_text(self, column: str) -> Any:
        """Every cell of ``column`` as the exact text the file holds (a text array).

        Text columns are returned as they are (missing values as ``""``).  For a column
        typed as numbers, the text comes from the file (``7.50`` stays ``7.50``, ``1e3``
        stays ``1e3``); workbook cells stored as numbers read as Excel shows them in the
        General format (``1``, not ``1.0``); Parquet values as their shortest text.
        """
        series = self.frame[column]
        if pd.api.types.is_string_dtype(series.dtype) and not pd.api.types.is_object_dtype(
            series.dtype
        ):
            if series.hasnans:
                return text_array(series.fillna("").tolist())
            return series.array
        if self.cell_source is not None:
            text = self.cell_source.text(column)
            if text is not None:
                return text
        codes, shown = self._rendered(series)
        return text_array(shown[codes].tolist() if len(shown) else [])

    def cell_codes(self, column: str) -> tuple[np.ndarray, Any] | None:
        """``(codes, texts)`` with ``texts[codes]`` == :meth:`cell_text` (distinct texts, in
        order of first appearance), without building a text per row: for a column whose text
        is rendered from its values (a categorical or number column with no text of its own
        from the file); None for the other columns."""
        series = self.frame[column]
        if pd.api.types.is_string_dtype(series.dtype) and not pd.api.types.is_object_dtype(
            series.dtype
        ):
            return None
        if self.cell_source is not None and self.cell_source.text(column) is not None:
            return None
        codes, shown = self._rendered(series)
        merged, texts = pd.factorize(shown, use_na_sentinel=False)  # two values, one text
        return merged[codes].astype(np.int64, copy=False), texts

    def _rendered(self, series: pd.Series) -> tuple[np.ndarray, np.ndarray]:
        """The column's codes (order of first appearance) and each distinct value's text."""
        codes, uniques = pd.factorize(series, use_na_sentinel=False)
        render = format_excel_cell if self.format == XLSX else format_cell  # as Excel shows it
        return codes, np.array([render(value) for value in uniques], dtype=object)

    def take(self, rows: Sequence[int]) -> "LoadedTable":
        """The table of the given rows (in that order), with their lines and cell text."""
        positions = np.asarray(rows, dtype=np.int64)
        lines = np.asarray(self.lines_of(positions), dtype=np.int64)
        source = _TakenText(self.cell_source, positions) if self.cell_source is not None else None
        names = None if self.row_names is None else [self.row_names[int(i)] for i in positions]
        return dataclasses.replace(
            self, frame=self.frame.iloc[positions].reset_index(drop=True), row_lines=lines,
            cell_source=source, row_names=names,
        )

    def describe(self) -> str:
        """Where the data came from, for messages: ``file '/data/x.csv'`` or
        ``sheet 'Results' of file '/data/x.xlsx'``."""
        if self.sheet is not None:
            return f"sheet '{self.sheet}' of file '{self.path}'"
        return f"file '{self.path}'"

    def line_of(self, index: int) -> int:
        """1-based line in the file (or sheet row) of data-frame row ``index``.

        The header is line 1, so this is normally ``index + 2``; blank lines, fields
        spanning several lines and empty sheet rows are accounted for.  Parquet files
        have no header line: their row ``index`` is reported as ``index + 1``.
        """
        position = int(index)
        if not 0 <= position < len(self.frame.index):
            raise IndexError(
                f"row index {position} is outside 0..{len(self.frame.index) - 1}"
            )
        if self.row_lines is not None:
            return int(self.row_lines[position])
        return position + (1 if self.format == PARQUET else 2)

    def lines_of(self, indices: Iterable[int]) -> list[int]:
        """:meth:`line_of` for several row indices at once (vectorised)."""
        positions = np.asarray(list(indices), dtype=np.int64)
        size = len(self.frame.index)
        if positions.size and (positions.min() < 0 or positions.max() >= size):
            raise IndexError(f"row indices must be within 0..{size - 1}")
        if self.row_lines is not None:
            return self.row_lines[positions].tolist()
        return (positions + (1 if self.format == PARQUET else 2)).tolist()

    def describe_rows(self, indices: Sequence[int], limit: int = 5) -> str:
        """Render row indices as ``"lines 3, 7 and 2 more"`` (``"rows ..."`` for sheets)."""
        indices = list(indices)
        if not indices:
            return f"no {self.line_word}"
        if self.row_names is not None:
            text = ", ".join(str(self.row_names[int(i)]) for i in indices[:limit])
            more = len(indices) - limit
            return text + (f" and {more} more" if more > 0 else "")
        word = self.line_word if len(indices) == 1 else f"{self.line_word}s"
        text = f"{word} " + ", ".join(str(n) for n in self.lines_of(indices[:limit]))
        more = len(indices) - limit
        return text + (f" and {more} more" if more > 0 else "")


class _TakenText:
    """The cell text of some rows of another table's cell source."""

    def __init__(self, source: Any, rows: np.ndarray) -> None:
        self._source = source
        self._rows = rows

    def text(self, column: str, wanted: Sequence[str] = ()) -> Any:
        text = self._source.text(column, wanted)
        return None if text is None else text.take(self._rows)


class StackedText:
    """The cell text of tables stacked one under the other (:func:`workbench.io.formats.combine`):
    each part's exact text (``1.0`` stays ``1.0`` beside another file's ``1``), ``""`` for the
    rows of a part without the column."""

    def __init__(self, parts: Sequence["LoadedTable"]) -> None:
        self._parts = list(parts)
        self._cache: dict[str, Any] = {}

    def text(self, column: str, wanted: Sequence[str] = ()) -> Any:
        if column not in self._cache:
            pieces = []
            for part in self._parts:
                if column in part.frame.columns:
                    pieces.append(np.asarray(part.cell_text(column), dtype=object))
                else:
                    pieces.append(np.full(len(part.frame), "", dtype=object))
            joined = np.concatenate(pieces) if pieces else np.zeros(0, dtype=object)
            self._cache[column] = text_array(joined.tolist())
        return self._cache[column]


class _KeptText:
    """Cell text kept from reading (the exact reader, workbooks): a :class:`TextSource` stand-in."""

    def __init__(self, columns: dict[str, Any]) -> None:
        self._columns = columns

    def text(self, column: str, wanted: Sequence[str] = ()) -> Any:
        return self._columns.get(column)
