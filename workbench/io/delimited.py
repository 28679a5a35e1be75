"""Reading delimited text (CSV, TSV, semicolon- and pipe-separated files).

The file's bytes are decoded in memory (see :func:`decode`), the delimiter is sniffed
from the first lines (:func:`sniff_delimiter`) and the records are split with the
standard :mod:`csv` module (:func:`split_records`), which understands quoted fields
containing delimiters, quotes and line breaks, and tells us the line every record
starts on.  Every cell is a string at that point; typing happens in
:mod:`workbench.io.cells`.
"""

from __future__ import annotations

import codecs
import contextlib
import csv
import gc
import io
from dataclasses import dataclass
from typing import Any, Iterator

import numpy as np

from workbench.core.errors import DataError

#: Candidate delimiters, in order of preference when several fit equally well.
DELIMITERS = (",", ";", "\t", "|")
#: How many lines the delimiter sniffer looks at.
SNIFF_LINES = 50
#: At most this many characters are sniffed (for files without "\n" line breaks).
SNIFF_CHARS = 1_000_000
# Largest field the csv module accepts (its default of 128 KiB is too small for long
# model outputs); 2**31 - 1 fits a C long on every platform.
_FIELD_SIZE_LIMIT = 2**31 - 1

_DELIMITER_NAMES = {",": "comma", ";": "semicolon", "\t": "tab", "|": "pipe"}

# Signatures of binary formats people sometimes save with a text extension.
_BINARY_SIGNATURES = (
    (b"PK\x03\x04", "a ZIP archive (an Excel .xlsx workbook?); give it the extension .xlsx"),
    (b"PAR1", "a Parquet file; give it the extension .parquet"),
    (
        b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1",
        "an old-style Excel .xls workbook; save it as .xlsx or CSV in Excel",
    ),
    # gzip, bzip2 and xz are decompressed by the loader (workbench.io.loader.COMPRESSIONS)
    (b"\x28\xb5\x2f\xfd", "a zstd-compressed file (decompress it first, e.g. zstd -d FILE)"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive (extract it first)"),
)

_BOMS = (
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF32_LE, "utf-32"),  # must precede UTF-16 LE, whose BOM is its prefix
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


def delimiter_name(delimiter: str) -> str:
    """Human name of a delimiter: ``"semicolon (;)"``."""
    shown = "\\t" if delimiter == "\t" else delimiter
    return f"{_DELIMITER_NAMES.get(delimiter, 'character')} ({shown})"


class Decoded:
    """Text decoded from a file's bytes, with the encoding used and notes about guesses.

    ``text`` is decoded on first use when the file is plain ASCII (see ``decode(lazy=True)``);
    ``utf8`` is the file as UTF-8 bytes without a byte-order mark and ``head`` its first
    lines as text, for sniffing.
    """

    def __init__(self, text: str | None, encoding: str, notes: tuple[str, ...] = (),
                 utf8: bytes | None = None) -> None:
        self._text = text
        self.encoding = encoding
        self.notes = notes
        self._utf8 = utf8

    @property
    def text(self) -> str:
        if self._text is None:
            self._text = (self._utf8 or b"").decode("utf-8")
        return self._text

    @property
    def utf8(self) -> bytes:
        if self._utf8 is None:
            self._utf8 = self.text.encode("utf-8")
        return self._utf8

    @property
    def head(self) -> str:
        """At most :data:`SNIFF_CHARS` characters from the start (whole lines where possible)."""
        if self._text is not None:
            return self._text[:SNIFF_CHARS]
        return self.utf8[:SNIFF_CHARS].decode("utf-8", errors="ignore")


@dataclass(frozen=True)
class Records:
    """The records of a delimited file, split but not yet typed."""

    header: list[str]
    header_line: int
    columns: list[tuple[str, ...]]  # one tuple of cell strings per header field
    lines: np.ndarray | None  # line of each data row; None means row i is on line i + 2


def decode(data: bytes, shown: str, *, lazy: bool = False) -> Decoded:
    """Decode file bytes: BOM first, then strict UTF-8, then cp1252, then latin-1.

    ``shown`` is the file name used in messages.  Binary files (Excel, ZIP, Parquet
    or anything containing NUL characters) are refused with a :class:`DataError`.
    With ``lazy`` a plain ASCII file is not decoded until its ``text`` is asked for.
    """
    for signature, what in _BINARY_SIGNATURES:
        if data.startswith(signature):
            raise DataError(f"File {shown} is {what}, not delimited text.")
    if lazy and data.isascii():
        position = data.find(b"\x00")
        if position < 0:
            return Decoded(None, "utf-8", (), utf8=data)

    for bom, encoding in _BOMS:
        if data.startswith(bom):
            try:
                utf8 = data[len(bom):] if encoding == "utf-8-sig" else None
                return _checked(data.decode(encoding), encoding, shown, utf8=utf8)
            except UnicodeDecodeError as err:
                label = "UTF-8" if encoding == "utf-8-sig" else encoding.upper()
                raise DataError(
                    f"File {shown} starts with a {label} byte-order mark but is not valid "
                    f"{label} (bad bytes on line {_line_of_byte(data, err.start)}); "
                    "re-save it as UTF-8."
                ) from None

    guessed = _utf16_without_bom(data)
    if guessed is not None:
        try:
            text = data.decode(guessed)
        except UnicodeDecodeError:
            pass
        else:
            note = (
                f"File {shown} has no byte-order mark but looks like {guessed.upper()}; "
                f"it was read as {guessed.upper()}."
            )
            return _checked(text, guessed, shown, (note,))

    try:
        return _checked(data.decode("utf-8"), "utf-8", shown, utf8=data)
    except UnicodeDecodeError as err:
        bad = err.start
    for encoding, label in (("cp1252", "Windows-1252 (cp1252)"), ("latin-1", "Latin-1")):
        try:
            text = data.decode(encoding)
        except UnicodeDecodeError:
            continue
        note = (
            f"File {shown} is not valid UTF-8 (line {_line_of_byte(data, bad)} contains "
            f"byte 0x{data[bad]:02X}), so it was read as {label}; check accented characters."
        )
        return _checked(text, encoding, shown, (note,))
    raise AssertionError("latin-1 decodes every byte string")  # pragma: no cover


def _line_of_byte(data: bytes, offset: int) -> int:
    """1-based line number of byte ``offset`` (counting LF line breaks)."""
    return data.count(b"\n", 0, offset) + 1


def _utf16_without_bom(data: bytes) -> str | None:
    """Guess UTF-16 LE/BE for BOM-less files whose ASCII characters alternate with NULs."""
    sample = data[:4096]
    if len(sample) < 4 or b"\x00" not in sample:
        return None
    even_nuls = sample[0::2].count(0)
    odd_nuls = sample[1::2].count(0)
    half = len(sample) // 2
    if odd_nuls > 0.4 * half and even_nuls < 0.05 * half:
        return "utf-16-le"
    if even_nuls > 0.4 * half and odd_nuls < 0.05 * half:
        return "utf-16-be"
    return None


def _checked(text: str, encoding: str, shown: str, notes: tuple[str, ...] = (),
             utf8: bytes | None = None) -> Decoded:
    """Refuse decoded text that contains NUL characters (a binary file); looked for in the
    UTF-8 bytes when there are some (a byte search: several times faster than in the text)."""
    position = text.find("\x00") if utf8 is None or b"\x00" in utf8 else -1
    if position >= 0:
        line = text.count("\n", 0, position) + 1
        raise DataError(
            f"File {shown} contains binary data (a NUL character on line {line}); "
            "expected delimited text such as CSV, or an .xlsx or .parquet file."
        )
    return Decoded(text, encoding, notes, utf8=utf8)


def _head(text: str, lines: int) -> tuple[str, bool]:
    """Return the first ``lines`` lines of ``text`` (at most :data:`SNIFF_CHARS`
    characters) and whether that is all of it."""
    end = -1
    for _ in range(lines):
        end = text.find("\n", end + 1, SNIFF_CHARS)
        if end < 0:
            return text[:SNIFF_CHARS], len(text) <= SNIFF_CHARS
    return text[: end + 1], end + 1 >= len(text)


def first_lines(text: str, lines: int = SNIFF_LINES) -> str:
    """The first ``lines`` lines of ``text`` (at most :data:`SNIFF_CHARS` characters)."""
    return _head(text, lines)[0]


def sniff_delimiter(text: str) -> str:
    """Pick the delimiter among ``, ; tab |`` from the first :data:`SNIFF_LINES` lines.

    Each candidate splits the sample with the csv module (so delimiters inside quotes
    do not count).  A candidate qualifies when the header has more than one field;
    the winner is the one for which every record has the header's field count, then
    the one with the most such records, then the one with more fields, then the
    earlier candidate.  With no qualifying candidate the file is a single column:
    the first candidate that does not occur in the sample is returned (so that free
    text with commas stays in one field), or ``","`` if they all occur.
    """
    sample, complete = _head(text, SNIFF_LINES)
    best: tuple[tuple[bool, int, int], str] | None = None
    single_column: str | None = None
    for delimiter in DELIMITERS:
        reader = csv.reader(io.StringIO(sample, newline=""), delimiter=delimiter)
        try:
            counts = [len(record) for record in reader if record and _has_text(record)]
        except csv.Error:
            continue
        if not complete and len(counts) > 1:
            counts.pop()  # the last record may have been cut in the middle
        if not counts:
            continue
        if counts[0] < 2:
            if single_column is None and max(counts) == 1:
                single_column = delimiter
            continue
        matching = sum(1 for count in counts if count == counts[0])
        score = (matching == len(counts), matching, counts[0])
        if best is None or score > best[0]:
            best = (score, delimiter)
    if best is not None:
        return best[1]
    return single_column or ","


def first_record(head: str, delimiter: str) -> tuple[list[str], int] | None:
    """The first non-blank record of ``head`` (the header) and the line it starts on.

    None when ``head`` has no complete record or cannot be split (the exact reader then
    reads the whole file and explains).
    """
    text = head[:_FIRST_RECORD_CHARS] if len(head) > 2 * _FIRST_RECORD_CHARS else head
    reader = _reader(text, delimiter)
    previous = 0
    try:
        for record in reader:
            if record and _has_text(record):
                if not _lines_after(text, reader.line_num) and not (text is head and head.endswith("\n")):
                    return None  # the record may continue beyond what was read
                return record, previous + 1
            previous = reader.line_num
    except csv.Error:
        return None
    return None


#: Characters of the head in which the header record is looked for (a header spanning more
#: ends the search: the exact reader then reads the whole file and finds it).
_FIRST_RECORD_CHARS = 1 << 16


def _lines_after(text: str, lines: int) -> bool:
    """Whether ``text`` goes on after its first ``lines`` lines (ended by LF, CR or CRLF, as the
    csv module's reader counts them)."""
    at = 0
    for _ in range(lines):
        ends = [e for e in (text.find("\n", at), text.find("\r", at)) if e >= 0]
        if not ends:
            return False
        end = min(ends)
        at = end + (2 if text.startswith("\r\n", end) else 1)
    return at < len(text)


@contextlib.contextmanager
def _gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while building millions of small lists.

    Without this, CPython runs many useless collections during ``list(reader)``,
    which makes large files several times slower.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _reader(text: str, delimiter: str) -> Any:
    """A strict csv reader over ``text`` that keeps line breaks inside quoted fields."""
    if csv.field_size_limit() < _FIELD_SIZE_LIMIT:
        csv.field_size_limit(_FIELD_SIZE_LIMIT)
    return csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)


def split_records(text: str, delimiter: str, shown: str) -> Records:
    """Split ``text`` into a header and data columns, checking every row's field count.

    Blank lines (and, in multi-column files, lines holding only spaces) are skipped.
    Rows with more or fewer fields than the header, badly quoted fields, a file
    without a header or a header without data rows raise :class:`DataError` with
    the line numbers involved.
    """
    with _gc_paused():
        reader = _reader(text, delimiter)
        try:
            records = list(reader)
        except csv.Error:
            raise DataError(_quoting_message(text, delimiter, shown)) from None
        widths = np.fromiter(map(len, records), dtype=np.int64, count=len(records))
        first = next(
            (int(i) for i in np.flatnonzero(widths > 0) if _has_text(records[i])), None
        )
        if first is None:
            raise DataError(
                f"File {shown} is empty; expected a header line with column names "
                "followed by data rows."
            )
        header = records[first]
        width = len(header)
        blank = widths == 0
        if width > 1:
            for i in np.flatnonzero(widths == 1):
                blank[i] = not records[i][0].strip()
        blank[: first + 1] = True  # the header and what precedes it are not data
        data_rows = np.flatnonzero(~blank)

        if reader.line_num == len(records):
            starts = np.arange(1, len(records) + 1)  # one line per record
        else:
            starts = _record_starts(text, delimiter)  # some quoted field spans lines
        ragged = data_rows[widths[data_rows] != width]
        if len(ragged):
            found = [(int(starts[i]), int(widths[i])) for i in ragged[:5]]
            raise DataError(_ragged_message(shown, delimiter, width, found, len(ragged)))
        if len(data_rows) == 0:
            raise DataError(
                f"File {shown} has a header line but no data rows; expected at least one "
                "row below the header."
            )
        if len(data_rows) == len(records) - 1:
            columns = list(zip(*records[1:]))
        else:
            columns = list(zip(*(records[i] for i in data_rows)))
        del records
        lines = starts[data_rows]
        plain = len(lines) == 0 or (lines[0] == 2 and lines[-1] == len(lines) + 1)
    return Records(header, int(starts[first]), columns, None if plain else lines)


def _has_text(record: list[str]) -> bool:
    """False for a record that is a single blank field (a line of spaces)."""
    return len(record) > 1 or bool(record[0].strip())


def _record_starts(text: str, delimiter: str) -> np.ndarray:
    """The line on which each record of ``text`` starts (for quoted multi-line fields)."""
    reader = _reader(text, delimiter)
    starts: list[int] = []
    previous = 0
    for _ in reader:
        starts.append(previous + 1)
        previous = reader.line_num
    return np.asarray(starts, dtype=np.int64)


def _quoting_message(text: str, delimiter: str, shown: str) -> str:
    """Describe the first quoting error in ``text``, naming the line its record starts on."""
    reader = _reader(text, delimiter)
    previous = 0
    try:
        for _ in reader:
            previous = reader.line_num
    except csv.Error as err:
        reason = str(err)
    else:  # pragma: no cover - only called after the same reader failed
        reason = "unreadable quoting"
    return (
        f"File {shown} has a badly quoted field in the row starting on line "
        f"{previous + 1} ({reason}); a field that starts with a double quote must end "
        "with one right before the delimiter or line end, and quotes inside it must be "
        "doubled."
    )


def _ragged_message(
    shown: str, delimiter: str, width: int, found: list[tuple[int, int]], count: int
) -> str:
    """One sentence naming the rows whose field count differs from the header's.

    ``found`` holds (line, field count) of the first few such rows, ``count`` their
    total number.
    """
    listed = ", ".join(f"line {line} has {fields}" for line, fields in found)
    if count > len(found):
        listed += f", and {count - len(found)} more"
    rows = "row has" if count == 1 else "rows have"
    return (
        f"File {shown} is not a regular table: {count} {rows} a different number "
        f"of fields than the header's {width} ({listed}); expected {width} fields "
        f"separated by {delimiter_name(delimiter)} on every row, with fields that contain "
        "the delimiter in double quotes."
    )
