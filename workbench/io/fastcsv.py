"""The fast path for delimited text: pandas' C parser plus a vectorised structure check.

:mod:`workbench.io.delimited` splits records with the :mod:`csv` module, which is exact but
builds a Python list per row (seconds per million rows).  This module parses the same
files with ``pandas.read_csv`` (C engine) and then proves, with numpy over the file's bytes,
that the C parser saw the same table the exact reader would: every record has the header's
field count, blank lines are where we think they are, and the line each row starts on is
known.  Whenever that proof fails (a ragged row, a quote in the middle of a field, a line of
spaces that pandas would keep) it raises :class:`Fallback` and the loader uses the exact
reader, which also produces the user-facing sentence for the problem.

Typing follows :mod:`workbench.io.cells`, not pandas (:mod:`workbench.io.csvtyping`): the C
parser's own typing is accepted where it agrees with that rule and corrected (from the cells'
text) where it does not.

The cell text of a column that became numeric is not kept in memory: :class:`TextSource`
re-reads it on demand (one more pass of the C tokenizer, only over the columns asked for),
so that an id or text column always reads as the file wrote it (``7.50`` stays ``7.50``).

A large file (:func:`parse_file`) is not held in memory at all.  When the parse itself proves
every row whole (the last column has no empty cell: the C parser pads a short row with empty
cells and refuses a long one), its bytes are not read again: its rows' lines are found when a
message first needs one (:class:`workbench.io.lazylines.LazyLines`), a NUL byte is looked for
in its first and last megabyte only, and a quote that closes a field before its end is read as
the csv module's default dialect (and pandas) read it, the text after it joining the field.  A
comma-separated file is then parsed first and typed after (its head's bytes say whether the
first rows must be typed before: an empty last field, a leading zero).  Otherwise the file is
scanned in pieces for the proof above (quoted regions found with bit operations on 64-bit
words, :class:`workbench.io.bytescan._Scanner`), beside the C parser's own read of the file or,
when only the parse shows an empty last cell, after it.
"""

from __future__ import annotations

import io
import os
import threading
import warnings
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
import pandas as pd

from workbench.core.errors import DataError
from workbench.io.bytescan import _CR, _NL, _QUOTE, _Scan, _Scanner, _popcount  # noqa: F401
from workbench.io.cells import TypedColumn, text_array
from workbench.io.csvtyping import (  # noqa: F401  (SAMPLE_ROWS, _needs_sample, _head_rows: read here too)
    _EMPTY_IS_MISSING, SAMPLE_ROWS, _head_rows, _needs_sample, _Plan, _plan, _text_filled, _typed,
)
from workbench.io.lazylines import LazyLines


class Fallback(Exception):
    """The fast path cannot vouch for this file; use the exact reader."""


@dataclass(frozen=True)
class FastTable:
    """What the fast path read: typed columns, their lines and how to re-read cell text."""

    columns: dict[str, TypedColumn]
    lines: np.ndarray | None  # line of each data row; None when row i is on line i + 2
    source: "TextSource"


class TextSource:
    """Re-reads the exact cell text of columns that were typed as numbers (cached, thread-safe).

    It reads ``data`` (the file's bytes as loaded) or, for a file loaded without holding its
    bytes (:func:`parse_file`), the file itself: ``file`` = (path, (size, mtime_ns) when it
    was loaded, name for messages).  A file whose size or time changed since is not read:
    :class:`~workbench.core.errors.DataError` says to open it again.
    """

    def __init__(self, data: bytes | None, kwargs: dict[str, Any], names: Sequence[str],
                 file: tuple[str, tuple[int, int], str] | None = None) -> None:
        self._data = data
        self._file = file
        self._kwargs = kwargs
        self._names = list(names)
        self._cache: dict[str, Any] = {}
        self._lock = threading.Lock()

    def text(self, column: str, wanted: Sequence[str] = ()) -> Any:
        """The cells of ``column`` as the file wrote them (a text array).

        ``wanted`` names more columns likely to be asked for next; they are read in the same
        pass of the parser.
        """
        with self._lock:
            if column not in self._cache:
                todo = [name for name in dict.fromkeys([column, *wanted])
                        if name in self._names and name not in self._cache]
                self._cache.update(self._read(todo))
            return self._cache[column]

    def preload(self, columns: dict[str, Any]) -> None:
        """Remember cell text that is already at hand."""
        with self._lock:
            self._cache.update(columns)

    def _read(self, columns: list[str]) -> dict[str, Any]:
        positions = [self._names.index(name) for name in columns]
        if self._data is not None:
            frame = _read_csv(self._data, self._kwargs, usecols=positions, dtype=object)
        else:
            assert self._file is not None
            path, state, shown = self._file
            unchanged(path, state, shown)
            frame = _read_csv_path(path, self._kwargs, usecols=positions, dtype=object)
            unchanged(path, state, shown)
        return {self._names[p]: text_array(frame.iloc[:, i].tolist())
                for i, p in enumerate(sorted(positions))}


def unchanged(path: str, state: tuple[int, int], shown: str) -> None:
    """Raise :class:`DataError` when the file at ``path`` is no longer the one loaded (its
    size or modification time differ from ``state``)."""
    if _state(path) != state:
        raise DataError(
            f"File {shown} changed on disk (or was removed) after it was loaded, so its cells "
            "can no longer be read as they were; open the file again."
        )


def _read_csv(data: bytes, kwargs: dict[str, Any], **more: Any) -> pd.DataFrame:
    return _quiet_read_csv(io.BytesIO(data), kwargs, **more)


#: The C parser's warning when the first data row has more fields than the names given: it
#: drops the extra fields (``index_col=False``) instead of refusing the row as it does later on.
_CUT_FIRST_ROW = "Length of header or names does not match length of data"


def _quiet_read_csv(source: Any, kwargs: dict[str, Any], **more: Any) -> pd.DataFrame:
    """``pandas.read_csv`` without its warnings, but :class:`Fallback` when it cut the first
    data row to the header's width (that row's extra delimiters could make up for a short
    row's missing ones in the counts that prove the table)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        frame = pd.read_csv(source, **kwargs, **more)
    if any(str(w.message).startswith(_CUT_FIRST_ROW) for w in caught):
        raise Fallback("the first row has more fields than the header")
    return frame


def _state(path: str) -> tuple[int, int] | None:
    """A file's (size, modification time in ns), ``None`` when it cannot be read."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns


def _read_csv_path(path: str, kwargs: dict[str, Any], **more: Any) -> pd.DataFrame:
    return _quiet_read_csv(path, kwargs, **more)


def _kwargs(delimiter: str, header: Sequence[str]) -> dict[str, Any]:
    """The C parser's options: every cell as written (no NA words), blank lines skipped."""
    return dict(
        sep=delimiter, header=0, names=list(header),
        na_filter=False, keep_default_na=False, skip_blank_lines=True, engine="c",
        encoding="utf-8", quotechar='"', doublequote=True, index_col=False,
    )


def _sample(data: bytes, kwargs: dict[str, Any], rows: int) -> pd.DataFrame:
    """The first ``rows`` records of ``data``, every cell as written (text).

    Read without a dtype first: pandas keeps text columns in its own str arrays (no Python
    object per cell: model outputs of a few KB each made an all-object read 3-4 times slower);
    the columns it typed (numbers, booleans) are read again as text."""
    frame = _read_csv(data, kwargs, nrows=rows)
    typed = [i for i, dtype in enumerate(frame.dtypes)
             if not (dtype == object or pd.api.types.is_string_dtype(dtype))]
    if typed:
        again = _read_csv(data, kwargs, nrows=rows, usecols=typed, dtype=object)
        for name in again.columns:
            frame[name] = again[name]
    return frame


def parse(data: bytes, delimiter: str, header: Sequence[str], header_line: int,
          file: tuple[str, tuple[int, int]] | None = None) -> FastTable:
    """Parse UTF-8 ``data`` whose header (already checked) has the names ``header``.

    ``file`` = (path, (size, mtime_ns) when ``data`` was read): ``data`` is that file's bytes
    as they are, so the C parser may read the file itself (its own buffered reads are faster
    than a Python file object's); when the file's size or time changed since, the parse
    falls back to ``data``.

    Raises :class:`Fallback` whenever the result could differ from the exact reader's.
    """
    width = len(header)
    sep = delimiter.encode("ascii")
    kwargs = _kwargs(delimiter, header)
    first = delimiter == "," and width > 1 and not _needs_sample(_head_rows(data), sep[0])
    if first:  # parsed first, typed after (as :func:`parse_file` does)
        plan = _Plan({}, frozenset(header), frozenset())
        options = {**kwargs, **_EMPTY_IS_MISSING}
    else:
        try:
            sample = _sample(data, kwargs, SAMPLE_ROWS)
        except Exception as err:  # the C parser raises several types; the exact reader explains
            raise Fallback(str(err)) from None
        plan = _plan(sample, header, delimiter)
        options = {**kwargs, **plan.options}
    try:
        frame = None
        if file is not None and _state(file[0]) == file[1]:
            frame = _read_csv_path(file[0], options)
            if _state(file[0]) != file[1]:
                frame = None  # changed while being read: the bytes already read decide
        if frame is None:
            frame = _read_csv(data, options)
    except Exception as err:
        raise Fallback(str(err)) from None
    if len(frame) == 0:
        raise Fallback("no data rows")  # the exact reader says so
    if first:
        frame = _text_filled(frame)
    if header_line == 1 and _one_record_per_line(data, sep[0], width, len(frame)):
        lines = None  # row i is on line i + 2
    else:  # blank lines, line breaks inside quotes...: each row's line
        lines = _record_lines(data, sep, width, header_line, len(frame))
        if lines is not None and header_line == 1 and lines[-1] == len(lines) + 1:
            lines = None
    source = TextSource(data, kwargs, header)
    return FastTable(_typed(frame, header, source, delimiter, plan), lines, source)


#: Bytes read at a time when a file is scanned without being held (:func:`parse_file`).
STREAM_CHUNK = 1 << 22
#: Bytes of the head scanned before the parse of a large file starts, to refuse it early.
EARLY_SCAN = 1 << 18


def _scan(path: str, state: tuple[int, int], sep: int) -> _Scan:
    """Scan the file a piece at a time (it is never held whole); :class:`Fallback` when it is
    not the file of ``state``."""
    raw = bytearray(STREAM_CHUNK)  # bytearray.find is memchr: far faster than a compare
    buffer = np.frombuffer(raw, dtype=np.uint8)
    view = memoryview(raw)
    scanner = _Scanner(sep, newlines_in_quotes=True)
    try:
        with open(path, "rb", buffering=0) as handle:
            st = os.fstat(handle.fileno())
            if (st.st_size, st.st_mtime_ns) != state:
                raise Fallback("the file changed since its head was read")
            while not scanner.refused:
                got = handle.readinto(view)
                if not got:
                    break
                scanner.feed(raw, buffer[:got])
    except OSError as err:
        raise Fallback(str(err)) from None
    return scanner.result()


def _scanned(path: str, state: tuple[int, int], sep: int) -> "_Scan | Fallback":
    try:
        return _scan(path, state, sep)
    except Exception as err:  # noqa: BLE001 -- any failure of the scan: the usual way
        return err if isinstance(err, Fallback) else Fallback(repr(err))


def parse_file(path: str, state: tuple[int, int], head: bytes, delimiter: str,
               header: Sequence[str], shown: str) -> FastTable:
    """Parse the UTF-8 text file at ``path`` without holding its bytes in memory.

    ``head`` is the start of the file (read when its size and time were ``state``), whose
    first line is the header (already checked) with the names ``header``.  A file whose last
    column has no empty cell is not scanned (:func:`_whole_rows`; see the module's text).
    Otherwise it is scanned in pieces (:class:`_Scanner`) for the proof of :func:`parse`: no
    NUL byte, quotes only around whole fields, and the delimiters outside quotes the header's
    count per record.  A file with blank lines or line breaks inside quotes has its records'
    lines found as :func:`parse` finds them (:func:`_record_lines`, over the file's bytes read
    once more).  Cell text of number columns is re-read from the file when asked for
    (:class:`TextSource`).

    Raises :class:`Fallback` for every other file, for a head that does not hold the sample
    of :func:`parse`, and when the file changes while it is read; the loader then reads the
    file's bytes and takes the usual way.
    """
    width = len(header)
    sep = delimiter.encode("ascii")
    kwargs = _kwargs(delimiter, header)
    complete = head[:head.rfind(b"\n") + 1]
    if complete.count(b"\n") <= SAMPLE_ROWS and len(head) < state[0]:
        raise Fallback("the head does not hold the sample")
    if delimiter == "," and width > 1 and not _needs_sample(_head_rows(complete), sep[0]):
        # the file's own typing can be checked after the parse (no sample, no plan before it)
        try:
            frame = _read_csv_path(path, {**kwargs, **_EMPTY_IS_MISSING})
        except Exception as err:
            raise Fallback(str(err)) from None
        plan = _Plan({}, frozenset(header), frozenset())  # an empty cell is missing anywhere
        # a short row would look like an empty last cell: then its fields are counted
        scan = _scanned(path, state, sep[0]) if _empty_cells(frame.iloc[:, -1]) else None
        frame = _text_filled(frame)
    else:
        frame, plan, scan = _parse_planned(path, state, head, complete, sep, header, shown, delimiter)
    if scan is None:  # every row whole: no other pass over the file's bytes
        return _whole_rows(frame, path, state, sep, header, shown, plan, delimiter)
    if isinstance(scan, Fallback):
        raise scan
    if scan.refused or scan.size != state[0]:
        raise Fallback(scan.refused or "the file changed while it was read")
    if _state(path) != state:
        raise Fallback("the file changed while it was read")
    rows = len(frame)
    if rows == 0:
        raise Fallback("no data rows")  # the exact reader says so
    lines = None  # row i on line i + 2
    if scan.quoted_newlines or scan.newlines != rows + (scan.last == _NL):
        lines = _file_record_lines(path, state, sep, width, rows, scan)  # blank lines, quoted breaks
    elif scan.delimiters is not None and scan.delimiters != (width - 1) * (rows + 1):
        raise Fallback("a record with another number of fields")  # the header's, then each row's
    source = TextSource(None, kwargs, header, file=(path, state, shown))
    return FastTable(_typed(frame, header, source, delimiter, plan), lines, source)


#: Bytes at each end of a large file looked at for a NUL byte (a binary file, or the zeros a
#: crash leaves at the end of a file being written).
END_BYTES = 1 << 20


def _whole_rows(frame: pd.DataFrame, path: str, state: tuple[int, int], sep: bytes,
                header: Sequence[str], shown: str, plan: _Plan, delimiter: str) -> FastTable:
    """The table of a large file whose parse proves every row whole (its last column has no
    empty cell), without another pass over the file's bytes: its rows' lines are found when a
    message first needs one (:class:`LazyLines`), and only its ends are looked at for a NUL byte."""
    if _state(path) != state:
        raise Fallback("the file changed while it was read")
    if len(frame) == 0:
        raise Fallback("no data rows")  # the exact reader says so
    if _nul_at_the_end(path, state):
        raise Fallback("a NUL byte")  # the exact reader names its line
    kwargs = _kwargs(delimiter, header)
    source = TextSource(None, kwargs, header, file=(path, state, shown))
    rows = len(frame)
    lines = LazyLines(rows, lambda: _lines_of_file(path, state, sep, len(header), rows, shown))
    return FastTable(_typed(frame, header, source, delimiter, plan), lines, source)


def _nul_at_the_end(path: str, state: tuple[int, int]) -> bool:
    """Whether the last :data:`END_BYTES` of the file hold a NUL byte (its head was looked at
    by the loader); True when the file is no longer the one of ``state``."""
    try:
        with open(path, "rb") as handle:
            st = os.fstat(handle.fileno())
            if (st.st_size, st.st_mtime_ns) != state:
                return True
            handle.seek(max(0, st.st_size - END_BYTES))
            return b"\x00" in handle.read()
    except OSError:
        return True


def _lines_of_file(path: str, state: tuple[int, int], sep: bytes, width: int, rows: int,
                   shown: str) -> np.ndarray:
    """The line each of the ``rows`` rows of the file at ``path`` starts on (header on line 1).

    A count of the line breaks (read a piece at a time) shows the usual case, each row on the
    line after the one before; otherwise the records are found over the file's bytes
    (:func:`_record_lines`) or, where a quote keeps that from vouching for them, by the csv
    module.  :class:`~workbench.core.errors.DataError` when the file changed since it was
    loaded, or when its records are not its rows."""
    unchanged(path, state, shown)
    newlines, last = _count_newlines(path, state, shown)
    if newlines == rows + (last == _NL):
        return np.arange(2, rows + 2, dtype=np.int64)
    try:
        lines = _file_record_lines(path, state, sep, width, rows, None)
    except Fallback:
        lines = _csv_record_lines(path, state, sep.decode("ascii"), width, rows, shown)
    return np.arange(2, rows + 2, dtype=np.int64) if lines is None else lines


def _count_newlines(path: str, state: tuple[int, int], shown: str) -> tuple[int, int]:
    """The file's line breaks and its last byte (-1 when empty), read a piece at a time."""
    raw = bytearray(STREAM_CHUNK)
    buffer = np.frombuffer(raw, dtype=np.uint8)
    view = memoryview(raw)
    count, last = 0, -1
    with open(path, "rb", buffering=0) as handle:
        while got := handle.readinto(view):
            count += _count_byte(buffer[:got], _NL)
            last = raw[got - 1]
    unchanged(path, state, shown)
    return count, last


def _csv_record_lines(path: str, state: tuple[int, int], delimiter: str, width: int, rows: int,
                      shown: str) -> np.ndarray:
    """The lines of the file's records as the csv module finds them (its default, lenient
    quoting: a quote closing a field before its end is read as pandas reads it), skipping blank
    records as :func:`workbench.io.delimited.split_records` does."""
    import csv

    with open(path, "rb") as handle:
        data = handle.read()
    unchanged(path, state, shown)
    text = data.decode("utf-8-sig")
    del data
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    starts: list[int] = []
    previous = 0
    for record in reader:
        if record and (width <= 1 or len(record) > 1 or record[0].strip()):
            starts.append(previous + 1)
        previous = reader.line_num
    if len(starts) != rows + 1:
        raise DataError(f"File {shown} holds {len(starts) - 1} records where {rows} rows were "
                        "read, so the lines of its rows cannot be named; open it again.")
    return np.asarray(starts[1:], dtype=np.int64)


def _parse_planned(path: str, state: tuple[int, int], head: bytes, complete: bytes, sep: bytes,
                   header: Sequence[str], shown: str, delimiter: str) -> tuple[pd.DataFrame, _Plan, Any]:
    """The parse of :func:`parse_file` typed by the plan of its first rows (:func:`_plan`): the
    frame, the plan and the scan of the file's bytes (beside the parse when the sample has an
    empty last cell, after it when only the parse has one; None when the parse proves every
    row whole)."""
    width = len(header)
    kwargs = _kwargs(delimiter, header)
    try:
        whole = len(head) == state[0]
        # one row more than the sample: the sample's last record ends in the head (a record
        # may span lines)
        sample = _sample(head if whole else complete, kwargs, SAMPLE_ROWS + 1)
        if len(sample) <= SAMPLE_ROWS and not whole:
            raise Fallback("the head does not hold the sample")
        plan = _plan(sample.iloc[:SAMPLE_ROWS], header, delimiter)
    except Exception as err:
        raise Fallback(str(err)) from None
    # The C parser pads a short row with empty cells: when the last column has none, every row
    # is whole, and no pass over the file's bytes is needed beside the parse (see the module's
    # text).  The sample decides; an empty last cell found by the parse has the delimiters
    # counted after it.
    if width > 1 and not _empty_cells(sample.iloc[:, -1]):
        try:
            frame = _read_csv_path(path, {**kwargs, **plan.options})
        except Exception as err:
            raise Fallback(str(err)) from None
        scan = _scanned(path, state, sep[0]) if _empty_cells(frame.iloc[:, -1]) else None
    else:
        first = _Scanner(sep[0], newlines_in_quotes=True)  # the file's start, before the parse
        early = complete[:EARLY_SCAN]  # (the scan of the whole file, beside the parse, sees it again)
        first.feed(early, np.frombuffer(early, dtype=np.uint8))
        if first.refused:
            raise Fallback(first.refused)
        # The scan starts with the parse, not before: beside the sample's and the plan's Python
        # work, the two threads would wait on each other for the GIL.
        scanned: list[Any] = []
        scanner = threading.Thread(target=lambda: scanned.append(_scanned(path, state, sep[0])))
        scanner.start()  # numpy and reading release the GIL: the scan runs beside the parse
        try:
            frame = _read_csv_path(path, {**kwargs, **plan.options})
        except Exception as err:
            raise Fallback(str(err)) from None
        finally:
            scanner.join()
        scan = scanned[0]
    return frame, plan, scan


def _empty_cells(column: pd.Series) -> bool:
    """Whether a parsed column has an empty cell (NaN in a number column, ``""`` in text)."""
    if column.dtype.kind in "iub":
        return False
    if column.dtype.kind in "fc":
        return bool(column.isna().any())
    if column.isna().any():
        return True
    arrow = getattr(column.array, "_pa_array", None)  # pandas' str columns: the lengths, no compare
    if arrow is not None and len(column):
        import pyarrow.compute as pc

        return pc.min(pc.binary_length(arrow)).as_py() == 0
    return bool((column == "").any())


def _file_record_lines(path: str, state: tuple[int, int], sep: bytes, width: int,
                       rows: int, scanned: _Scan | None) -> np.ndarray | None:
    """:func:`_record_lines` of the file at ``path`` (header on line 1), for a file whose
    records are not one per line: its bytes are read for it (and let go), if it is still the
    file of ``state`` (``scanned``: the scan of it, which found nothing to refuse)."""
    try:
        with open(path, "rb") as handle:
            st = os.fstat(handle.fileno())
            if (st.st_size, st.st_mtime_ns) != state:
                raise Fallback("the file changed while it was read")
            data = handle.read()
    except OSError as err:
        raise Fallback(str(err)) from None
    if len(data) != state[0] or _state(path) != state:
        raise Fallback("the file changed while it was read")
    lines = _record_lines(data, sep, width, 1, rows, scanned)
    if lines is not None and lines.size and lines[-1] == lines.size + 1:
        return None  # every row on the line after the previous one
    return lines


def _one_record_per_line(data: bytes, sep: int, width: int, rows: int) -> bool:
    """The proof of :func:`parse_file` over bytes in memory (:class:`_Scanner`, a piece at a
    time): the header on line 1 and each of the ``rows`` records on the next line, each with
    the header's ``width`` fields.  False when that cannot be shown this way."""
    scanner = _Scanner(sep)
    raw = np.frombuffer(data, dtype=np.uint8)
    for at in range(0, raw.size, STREAM_CHUNK):
        scanner.feed(data, raw[at:at + STREAM_CHUNK], at)
    scan = scanner.result()
    return (not scan.refused and scan.newlines == rows + (scan.last == _NL)
            and scan.delimiters == (width - 1) * (rows + 1))


def _record_lines(
    data: bytes, sep: bytes, width: int, header_line: int, rows: int,
    scanned: _Scan | None = None,
) -> np.ndarray | None:
    """The line each of the ``rows`` data records starts on, proving each has ``width`` fields.

    Records end at line breaks outside double quotes; empty records (blank lines) are
    skipped, as both readers do.  The C parser refuses a row with too many fields, so the
    rows all have exactly ``width`` fields when the delimiters outside quotes number
    ``width - 1`` per record.  Raises :class:`Fallback` when the records found are not the
    ``rows`` the C parser returned (a line of spaces, say), for another field count, and for
    a quote that does not start or end a field.  ``scanned``: what a scan of these bytes
    allowing line breaks inside quotes found, when it is known (it is not done again).
    """
    raw = np.frombuffer(data, dtype=np.uint8)
    size = raw.size
    quote_at: np.ndarray | None = None
    has_quotes = data.find(b'"') >= 0
    if not has_quotes and header_line == 1 and _one_line_per_row(raw, rows):
        _check_width(raw, sep, width, rows, _line_end(data) + 1)
        return None
    newline_at = _positions(raw, _NL)
    quoted: _Scan | None = None
    if has_quotes:  # the quotes checked and the delimiters outside them counted, a piece at a time
        quoted = scanned
        if quoted is None:
            scanner = _Scanner(sep[0], newlines_in_quotes=True)
            for at in range(0, size, STREAM_CHUNK):
                scanner.feed(data, raw[at:at + STREAM_CHUNK], at)
            quoted = scanner.result()
        if quoted.refused:
            raise Fallback(quoted.refused)
        quote_at = _positions(raw, _QUOTE)
        end_index = np.flatnonzero(np.searchsorted(quote_at, newline_at) % 2 == 0)
        ends = newline_at[end_index]
    else:
        end_index = np.arange(newline_at.size)
        ends = newline_at
    if size and (ends.size == 0 or ends[-1] != size - 1):
        ends = np.append(ends, size)  # the last record has no line break
    starts = np.concatenate(([0], ends[:-1] + 1)).astype(np.int64)
    length = ends - starts
    last = raw[np.clip(ends - 1, 0, max(size - 1, 0))] if size else np.zeros(0, np.uint8)
    blank = (length - ((length > 0) & (last == _CR))) <= 0
    # a record starts on the line after the line break that ends the record before it
    line_of_start = np.concatenate(([1], end_index[:starts.size - 1] + 2)).astype(np.int64)
    records = np.flatnonzero(~blank)
    if records.size == 0 or line_of_start[records[0]] != header_line:
        raise Fallback("header record not where the exact reader has it")
    data_rows = records[1:]
    if data_rows.size != rows:
        raise Fallback(f"{rows} rows parsed, {data_rows.size} records found")
    if rows and quoted is None:
        _check_width(raw, sep, width, rows, int(starts[data_rows[0]]))
    elif rows and width > 1 and quoted is not None and quoted.delimiters is not None \
            and quoted.delimiters != (width - 1) * (rows + 1):
        # the header's and each row's (before the header: blank lines, no delimiter)
        raise Fallback("a record with another number of fields")
    return line_of_start[data_rows].astype(np.int64)


def _line_end(data: bytes) -> int:
    """Position of the first line break (the end of the header line)."""
    end = data.find(b"\n")
    return len(data) if end < 0 else end


#: Bytes compared at a time by :func:`_count_byte` and :func:`_positions` (they stay in the
#: CPU's cache).
COUNT_CHUNK = 1 << 20


def _count_byte(raw: np.ndarray, value: int, begin: int = 0) -> int:
    """How many bytes of ``raw[begin:]`` equal ``value``: numpy's vectorised compare and
    count over cache-sized pieces (several times faster than ``bytes.count`` here)."""
    total = 0
    for at in range(begin, raw.size, COUNT_CHUNK):
        total += int(np.count_nonzero(raw[at:at + COUNT_CHUNK] == value))
    return total


def _positions(raw: np.ndarray, value: int) -> np.ndarray:
    """Where the bytes of ``raw`` equal ``value`` (int64), found over cache-sized pieces."""
    found = [np.flatnonzero(raw[at:at + COUNT_CHUNK] == value) + at
             for at in range(0, raw.size, COUNT_CHUNK)]
    return np.concatenate(found) if found else np.zeros(0, np.int64)


def _one_line_per_row(raw: np.ndarray, rows: int) -> bool:
    """True when the header is line 1 and each of the ``rows`` rows is the next line."""
    breaks = _count_byte(raw, _NL)  # a blank line would make one more line than records
    return breaks == rows + (1 if raw.size and raw[-1] == _NL else 0)


def _check_width(raw: np.ndarray, sep: bytes, width: int, rows: int, begin: int) -> None:
    """Prove that the rows from byte ``begin`` on (a file without quotes) hold ``width - 1``
    delimiters each.

    The C parser refuses a row with too many fields, so no row has fewer either when the
    delimiters add up to ``(width - 1) * rows``.
    """
    if width == 1:
        return
    # counted in cache-sized pieces, no array of the file's size
    if _count_byte(raw, sep[0], begin) != (width - 1) * rows:
        raise Fallback("a record with another number of fields")
