"""Load a table from CSV/TSV-like text, an Excel workbook or a Parquet file.

:func:`load_table` is the single entry point: it reads the file's bytes once (the
file is never modified or kept open), picks the reader by extension and returns a
:class:`LoadedTable` holding the data frame together with everything that was detected or
guessed, so that reports can state it, and the file's SHA-256 (computed when asked for).
A large delimited text file that allows it is read without holding its bytes: it is scanned
in pieces and parsed from the file (:func:`workbench.io.fastcsv.parse_file`); what needs the
file again later (the cell text of a number column, the checksum) is read from the file
only if its size and modification time are still the ones loaded.

Every problem the user can fix is raised as :class:`~workbench.core.errors.DataError`
with a one-sentence message naming the file, and where relevant the column, the
line (or sheet row), what was found and what was expected.
"""

from __future__ import annotations

import codecs
import dataclasses
import hashlib
import os
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Sequence

import numpy as np
import pandas as pd
from openpyxl.utils import get_column_letter

from workbench.core.errors import DataError
from workbench.io import delimited, excel, fastcsv, parquet
from workbench.io.cells import (TypedColumn, format_cell, is_blank, text_array,
                                type_cell_column, type_text_column)

#: Extensions read as Excel workbooks.
EXCEL_EXTENSIONS = (".xlsx", ".xlsm")
#: Extensions read as Parquet files; every other extension is read as delimited text.
PARQUET_EXTENSIONS = (".parquet", ".pq")

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
        codes, uniques = pd.factorize(series, use_na_sentinel=False)
        shown = np.array([format_cell(value) for value in uniques], dtype=object)
        return text_array(shown[codes].tolist() if len(shown) else [])

    def take(self, rows: Sequence[int]) -> "LoadedTable":
        """The table of the given rows (in that order), with their lines and cell text."""
        positions = np.asarray(rows, dtype=np.int64)
        lines = np.asarray(self.lines_of(positions), dtype=np.int64)
        source = _TakenText(self.cell_source, positions) if self.cell_source is not None else None
        return dataclasses.replace(
            self, frame=self.frame.iloc[positions].reset_index(drop=True), row_lines=lines,
            cell_source=source,
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
        word = self.line_word if len(indices) == 1 else f"{self.line_word}s"
        text = f"{word} " + ", ".join(str(n) for n in self.lines_of(indices[:limit]))
        more = len(indices) - limit
        return text + (f" and {more} more" if more > 0 else "")


def load_table(
    path: str | os.PathLike[str], *, sheet: str | None = None, progress: Any = None,
    hash_now: bool = False,
) -> LoadedTable:
    """Load a data file into a :class:`LoadedTable`.

    The format follows the extension: ``.xlsx``/``.xlsm`` are Excel workbooks,
    ``.parquet``/``.pq`` are Parquet files and anything else is delimited text whose
    encoding, delimiter and decimal separator are detected.  ``sheet`` selects a
    workbook sheet (default: the first one); for other formats it is ignored, with a
    note saying so.

    ``progress``, if given, is any object with ``advance(fraction, message)`` (an
    absolute fraction between 0 and 1) and ``check_cancelled()`` (which raises to
    stop); it is told about each step.

    The file's SHA-256 (:attr:`LoadedTable.sha256`) is computed when first asked for, or,
    with ``hash_now``, on a thread while the file is parsed (the desktop app, which shows it).

    Raises :class:`DataError` for missing, unreadable, empty, damaged or irregular
    files, with a message naming the file and what to fix.
    """
    absolute = os.path.abspath(os.path.expanduser(os.fspath(path)))
    shown = f"'{absolute}'"
    step = _Steps(progress, os.path.basename(absolute))
    step(0.0, "Reading")
    if os.path.isdir(absolute):  # lm-eval output folders, Inspect log folders, TREC runs
        from workbench.io import formats

        return formats.load_folder(absolute, shown, progress)
    extension = os.path.splitext(absolute)[1].lower()
    limit = None if extension in EXCEL_EXTENSIONS + PARQUET_EXTENSIONS else STREAM_BYTES
    data, state = _read_bytes(absolute, shown, head_over=limit)
    table: LoadedTable | None = None
    if limit is not None and state[0] > limit:  # a large file: only its head was read
        table = _load_streamed(data, absolute, shown, step, state)
        if table is not None:
            digest = Digest(None, background=hash_now, file=(absolute, state, shown))
            size = state[0]
        elif len(data) < state[0]:
            data, state = _read_bytes(absolute, shown)
    if table is None:
        digest = Digest(data, background=hash_now)
        size = len(data)
        step(0.2, "Parsing")
        from workbench.io import formats  # TREC, JSON(L), Inspect, lm-eval, promptfoo; None if not one

        table = formats.detect_and_load(data, absolute, shown)
        if table is None and extension in EXCEL_EXTENSIONS:
            table = _load_excel(data, absolute, shown, sheet, progress)
        elif table is None and extension in PARQUET_EXTENSIONS:
            table = _load_parquet(data, absolute, shown)
        elif table is None:
            table = _load_text(data, absolute, shown, step, state)
    notes = table.notes
    if sheet is not None and table.format != XLSX:
        notes += (f"The sheet '{sheet}' was ignored because file {shown} is not a workbook.",)
    step(1.0, "Loaded")
    return dataclasses.replace(table, digest=digest, size_bytes=size, notes=notes)


#: Text files larger than this get a preview of their first rows while they load (the GUI).
HEAD_BYTES = 1 << 20


def load_head(path: str | os.PathLike[str], max_bytes: int = HEAD_BYTES) -> LoadedTable | None:
    """The first rows of a large delimited text file, for a preview while the whole file loads:
    the first ``max_bytes`` cut at the last line break, read as the loader reads a file.
    ``None`` when the file is small, not delimited text (a workbook, Parquet, JSON, a TREC
    run...), or when its head cannot be read on its own (a quoted line break across the cut,
    a damaged start): the full load then says what it says."""
    absolute = os.path.abspath(os.path.expanduser(os.fspath(path)))
    extension = os.path.splitext(absolute)[1].lower()
    if extension not in (".csv", ".tsv", ".txt", ".tab"):
        return None
    try:
        if os.path.getsize(absolute) <= max_bytes:
            return None
        with open(absolute, "rb") as handle:
            data = handle.read(max_bytes)
    except OSError:
        return None
    end = data.rfind(b"\n")
    if end <= 0:
        return None
    try:
        return _load_text(data[:end + 1], absolute, f"'{absolute}'", _Steps(None, ""))
    except Exception:  # noqa: BLE001 -- a preview only; the full load reports the file's problems
        return None


class Digest:
    """The SHA-256 of a file's bytes, computed once: when first asked for (a report or a
    session needs it; an analysis does not, so loading does not pay for it), or at once on a
    thread (``background``).  Two digests are equal when the hashes are.

    It holds the bytes read until then, or, for a file loaded without holding its bytes,
    ``file`` = (path, (size, mtime_ns) when loaded, name for messages): the file is read again
    in pieces, and a file whose size or time changed since raises :class:`DataError` (its
    hash would not be the hash of the data loaded).
    """

    def __init__(self, data: bytes | None, *, background: bool = False,
                 file: tuple[str, tuple[int, int], str] | None = None) -> None:
        self._data = data
        self._file = file
        self._hex = ""
        self._error: DataError | None = None
        self._lock = threading.Lock()
        if background:  # hashlib releases the GIL, and so does reading the file
            threading.Thread(target=self._quiet, daemon=True).start()

    def _quiet(self) -> None:
        try:
            self.hexdigest()
        except DataError:
            pass  # raised again to whoever asks

    def hexdigest(self) -> str:
        with self._lock:
            if self._error is not None:
                raise self._error
            if self._data is not None:
                self._hex = hashlib.sha256(self._data).hexdigest()
                self._data = None
            elif self._file is not None:
                try:
                    self._hex = _file_sha256(*self._file)
                except DataError as err:
                    self._error = err
                    raise
                self._file = None
            return self._hex

    def _known(self) -> str | None:
        """The hash, or None when the file changed before it could be computed."""
        try:
            return self.hexdigest()
        except DataError:
            return None

    def __eq__(self, other: object) -> bool:
        if other is self:
            return True
        mine = self._known()
        if isinstance(other, Digest):
            return mine is not None and mine == other._known()
        return isinstance(other, str) and mine == other

    def __hash__(self) -> int:
        mine = self._known()
        return hash(mine) if mine is not None else id(self)

    def __repr__(self) -> str:
        mine = self._known()
        return f"Digest({mine[:12]}...)" if mine is not None else "Digest(file changed since loading)"


def _file_sha256(path: str, state: tuple[int, int], shown: str) -> str:
    """The SHA-256 of the file at ``path``, read in pieces, if it is still the file of ``state``."""
    digest = hashlib.sha256()
    fastcsv.unchanged(path, state, shown)
    try:
        with open(path, "rb", buffering=0) as handle:
            buffer = bytearray(fastcsv.STREAM_CHUNK)
            view = memoryview(buffer)
            while got := handle.readinto(view):
                digest.update(view[:got])
    except OSError as err:
        fastcsv.unchanged(path, state, shown)  # a removed or replaced file says so
        reason = err.strerror or type(err).__name__
        raise DataError(f"File {shown} cannot be read again for its SHA-256 ({reason}); check "
                        "its permissions, then open it again.") from None
    fastcsv.unchanged(path, state, shown)
    return digest.hexdigest()


#: Delimited text files larger than this are loaded without holding their bytes when they
#: allow it (:func:`workbench.io.fastcsv.parse_file`).
STREAM_BYTES = 8 << 20


def _load_streamed(head: bytes, path: str, shown: str, step: "_Steps",
                   state: tuple[int, int]) -> LoadedTable | None:
    """Load a large file of delimited text from its ``head`` and the file itself, without
    holding its bytes; None when the file needs the usual way (it may be another format,
    another encoding, have quotes, blank lines...; :func:`fastcsv.parse_file`)."""
    from workbench.io import formats

    if formats.may_claim(head, path) or b"\x00" in head:
        return None
    bom = head.startswith(codecs.BOM_UTF8)  # Excel's "CSV UTF-8"; the C parser skips it
    if any(head.startswith(signature) for signature, _ in delimited._BINARY_SIGNATURES) or \
            (not bom and any(head.startswith(mark) for mark, _ in delimited._BOMS)):
        return None
    complete = head[:head.rfind(b"\n") + 1]
    try:
        text = complete[len(codecs.BOM_UTF8) if bom else 0:].decode("utf-8")
    except UnicodeDecodeError:
        return None
    delimiter = delimited.sniff_delimiter(text)
    header_record = delimited.first_record(delimited.first_lines(text), delimiter)
    if header_record is None or header_record[1] != 1:
        return None
    names = _check_header(header_record[0], f"File {shown}", lambda i: f"field {i + 1} of line 1")
    step(0.3, "Parsing")
    try:
        fast = fastcsv.parse_file(path, state, _longer_head(path, head, state), delimiter, names,
                                  shown)
    except fastcsv.Fallback:
        return None
    step(0.8, "Converting")
    return _text_table(fast.columns, path, shown, delimiter, "utf-8-sig" if bom else "utf-8", (),
                       None, fast.source)


def _longer_head(path: str, head: bytes, state: tuple[int, int], limit: int = 32 << 20) -> bytes:
    """``head`` read on (up to ``limit`` bytes) until it holds the rows of the typing sample
    (long rows: model outputs); as it is when the file is no longer the one of ``state``."""
    lines = head.count(b"\n")
    if lines > fastcsv.SAMPLE_ROWS or len(head) >= state[0]:
        return head
    parts, size = [head], len(head)
    try:
        with open(path, "rb") as handle:
            st = os.fstat(handle.fileno())
            if (st.st_size, st.st_mtime_ns) != state:
                return head
            handle.seek(size)
            while lines <= fastcsv.SAMPLE_ROWS and size < limit:
                more = handle.read(1 << 20)
                if not more:
                    break
                parts.append(more)
                lines += more.count(b"\n")
                size += len(more)
    except OSError:
        return head
    return b"".join(parts)


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


def _read_bytes(path: str, shown: str, head_over: int | None = None) -> tuple[bytes, tuple[int, int]]:
    """Read the whole file, turning every OS problem into a :class:`DataError`; with the
    file's (size, modification time in ns) as they were before the read.  A file larger than
    ``head_over`` bytes has only its first :data:`delimited.SNIFF_CHARS` bytes read."""
    if os.path.isdir(path):
        raise DataError(
            f"The path {shown} is a folder, not a file; choose a CSV, TSV, XLSX or "
            "Parquet file."
        )
    try:
        with open(path, "rb") as handle:
            st = os.fstat(handle.fileno())
            if head_over is not None and st.st_size > head_over:
                return handle.read(delimited.SNIFF_CHARS), (st.st_size, st.st_mtime_ns)
            return handle.read(), (st.st_size, st.st_mtime_ns)
    except FileNotFoundError:
        raise DataError(f"File {shown} does not exist; check the path.") from None
    except PermissionError:
        raise DataError(
            f"File {shown} cannot be read (permission denied); check its permissions "
            "or close the program that locks it."
        ) from None
    except OSError as err:
        reason = err.strerror or type(err).__name__
        raise DataError(f"File {shown} cannot be read ({reason}); check the path.") from None


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


def _row_lines(lines: Sequence[int] | None) -> np.ndarray | None:
    """Keep explicit line numbers only when they differ from the usual ``index + 2``."""
    if lines is None:
        return None
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


class _TakenText:
    """The cell text of some rows of another table's cell source."""

    def __init__(self, source: Any, rows: np.ndarray) -> None:
        self._source = source
        self._rows = rows

    def text(self, column: str, wanted: Sequence[str] = ()) -> Any:
        text = self._source.text(column, wanted)
        return None if text is None else text.take(self._rows)


class _KeptText:
    """Cell text kept from reading (the exact reader, workbooks): a :class:`TextSource` stand-in."""

    def __init__(self, columns: dict[str, Any]) -> None:
        self._columns = columns

    def text(self, column: str, wanted: Sequence[str] = ()) -> Any:
        return self._columns.get(column)


def _load_excel(
    data: bytes, path: str, shown: str, sheet: str | None, progress: Any
) -> LoadedTable:
    """Read a workbook sheet and type its columns."""
    content = excel.read_sheet(data, shown, sheet, progress)
    where = f"Sheet '{content.sheet}' of workbook {shown}"
    names = _check_header(
        content.header,
        where,
        lambda i: f"cell {get_column_letter(i + 1)}{content.header_row}",
    )
    frame = pd.DataFrame(
        {
            name: type_cell_column(values).values
            for name, values in zip(names, content.columns)
        }
    )
    notes: list[str] = []
    text_like = _text_role_names()
    shown_as_text = [name for name, values in zip(names, content.columns)
                     if _normal_name(name) in text_like and _whole_numbers_in(values, frame[name])]
    if shown_as_text:
        listed = ", ".join(f"'{name}'" for name in shown_as_text)
        notes.append(
            f"{where} stores whole numbers in column(s) {listed}; where such a column serves "
            "as ids or text, its cells read as Excel shows them (1, not 1.0)."
        )
    empty = [name for name, values in zip(names, content.columns) if all(map(is_blank, values))]
    if empty:
        listed = ", ".join(f"'{name}'" for name in empty)
        notes.append(
            f"{where} has no values in column(s) {listed}; if they hold formulas, open and "
            "save the workbook in Excel so that their results are stored."
        )
    if sheet is None and len(content.sheets) > 1:
        others = ", ".join(f"'{name}'" for name in content.sheets[1:])
        notes.append(
            f"Workbook {shown} has {len(content.sheets)} sheets; the first one, "
            f"'{content.sheet}', was used (the others are {others})."
        )
    return LoadedTable(
        frame=frame,
        path=path,
        sheet=content.sheet,
        sheets=content.sheets,
        notes=tuple(notes),
        format=XLSX,
        row_lines=_row_lines(content.rows),
    )


#: Roles whose columns are read as text (ids, labels, texts).
_TEXT_ROLES = ("id", "item", "query", "doc", "task", "system", "version", "group", "cluster",
               "unit", "prediction", "reference")


def _normal_name(name: str) -> str:
    return "".join(ch for ch in str(name).casefold() if ch not in " _-\t")


def _text_role_names() -> set[str]:
    """The usual header names of the id and text roles (normalised)."""
    from workbench.io.roles import ROLE_NAMES  # roles imports this module

    return {_normal_name(n) for role in _TEXT_ROLES for n in [role, *ROLE_NAMES.get(role, [])]}


def _whole_numbers_in(values: Any, column: pd.Series) -> bool:
    """True when a workbook column holds whole numbers that ids or text would read as text."""
    if pd.api.types.is_integer_dtype(column.dtype) and not pd.api.types.is_bool_dtype(
        column.dtype
    ):
        return True
    if pd.api.types.is_float_dtype(column.dtype):
        return False  # a score column: fractions
    numbers = [v for v in values if isinstance(v, float) and not isinstance(v, bool)]
    return any(v.is_integer() for v in numbers[:1000])


def _load_parquet(data: bytes, path: str, shown: str) -> LoadedTable:
    """Read a Parquet file, keeping its column types."""
    reader = parquet.engine()
    try:
        frame = parquet.read(data, using=reader)
    except ImportError:
        raise DataError(
            f"File {shown} is a Parquet file, but this installation has no Parquet reader "
            "(pyarrow or fastparquet); save the table as CSV or .xlsx, or install one of them."
        ) from None
    except Exception as err:  # the readers raise several types for damaged files
        text = str(err).strip()
        reason = text.splitlines()[0][:120] if text else type(err).__name__
        if reader == parquet.FASTPARQUET and not isinstance(err, parquet.DamagedFile):
            # a whole file that fastparquet cannot decode (it lacks a few rarer encodings)
            raise DataError(
                f"File {shown} could not be read as a Parquet file by fastparquet, this "
                f"installation's Parquet reader ({reason}); fastparquet does not read every "
                "Parquet file (see README, 'No pyarrow in the bundle'): if the file opens "
                "elsewhere, save the table as CSV or .xlsx."
            ) from None
        raise DataError(
            f"File {shown} could not be read as a Parquet file ({reason}); check that it "
            "is a complete .parquet file."
        ) from None
    notes: list[str] = []
    if not _is_default_index(frame.index):
        named = [name for name in frame.index.names if name is not None]
        try:
            frame = frame.reset_index(drop=not named)
        except ValueError:  # an index name that is also a column name
            frame, named = frame.reset_index(drop=True), []
        if named:
            listed = ", ".join(f"'{name}'" for name in named)
            notes.append(
                f"The index {listed} stored in file {shown} was turned into column(s)."
            )
    if isinstance(frame.columns, pd.MultiIndex):
        raise DataError(
            f"File {shown} has multi-level column names; expected one header row of "
            "simple column names."
        )
    names = _check_header(
        [str(name) for name in frame.columns], f"File {shown}", lambda i: f"column {i + 1}"
    )
    frame.columns = names
    if len(frame) == 0:
        raise DataError(f"File {shown} has no data rows; expected at least one row.")
    return LoadedTable(frame=frame, path=path, notes=tuple(notes), format=PARQUET)


def _is_default_index(index: pd.Index) -> bool:
    """True for an unnamed ``RangeIndex`` 0..n-1."""
    return (
        isinstance(index, pd.RangeIndex)
        and index.start == 0
        and index.step == 1
        and index.name is None
    )
