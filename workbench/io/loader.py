"""The opener: a path (a file, a folder, several files) to one :class:`LoadedTable`.

The layers of :mod:`workbench.io`, each importing only the ones below it (an import-linter
contract in pyproject.toml keeps it so): this opener; the evaluation tools' readers
(:mod:`workbench.io.formats`) and the role guesses (:mod:`.roles`); the delimited-text reader
(:mod:`.textfile`) and the column helpers (:mod:`.columns`); the parsers (:mod:`.delimited`,
:mod:`.excel`, :mod:`.fastcsv`, :mod:`.parquet`); the table type (:mod:`.table`); cell text
(:mod:`.cells`).

:func:`load_table` is the single entry point for one path: it reads the file's bytes once (the
file is never modified or kept open), sniffs the evaluation tools' formats, else picks the
reader by extension, and returns a :class:`LoadedTable` holding the data frame together with
everything that was detected or guessed, so that reports can state it, and the file's SHA-256
(computed when asked for); :func:`load_many` stacks several.
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
import io
import os
import threading
from typing import Any, Sequence

import pandas as pd

from workbench.core.errors import DataError
from workbench.io import delimited, excel, fastcsv, formats, parquet
from workbench.io.excel import get_column_letter
from workbench.io.cells import format_excel_cell, is_blank, type_cell_column
from workbench.io.formats.combine import combine, load_folder
from workbench.core.role_names import ROLE_NAMES
from workbench.io.table import PARQUET, TEXT, XLSX, LoadedTable  # noqa: F401  (TEXT, the readers' API)
from workbench.io.textfile import _check_header, _load_text, _row_lines, _Steps, _text_table

#: Extensions read as Excel workbooks.
EXCEL_EXTENSIONS = (".xlsx", ".xlsm")
#: Extensions read as Parquet files; every other extension is read as delimited text.
PARQUET_EXTENSIONS = (".parquet", ".pq")

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
        return load_folder(absolute, shown, progress, load=load_table)
    extension = os.path.splitext(absolute)[1].lower()
    limit = None if extension in EXCEL_EXTENSIONS + PARQUET_EXTENSIONS else STREAM_BYTES
    data, state = _read_bytes(absolute, shown, head_over=limit)
    compressed = compression(data)
    if compressed is not None:  # a .gz/.bz2/.xz file: read whole, its inner name's format
        if len(data) < state[0]:
            data, state = _read_bytes(absolute, shown)
        raw, data = data, _decompressed(data, compressed, shown)
        extension = os.path.splitext(_inner_name(absolute))[1].lower()
        limit = None
    table: LoadedTable | None = None
    if limit is not None and state[0] > limit:  # a large file: only its head was read
        table = _load_streamed(data, absolute, shown, step, state)
        if table is not None:
            digest = Digest(None, background=hash_now, file=(absolute, state, shown))
            size = state[0]
        elif len(data) < state[0]:
            data, state = _read_bytes(absolute, shown)
    if table is None:
        digest = Digest(data if compressed is None else raw, background=hash_now)
        size = len(data) if compressed is None else len(raw)
        step(0.2, "Parsing")
        # TREC, JSON(L), Inspect, lm-eval, promptfoo; None if not one
        table = formats.detect_and_load(data, absolute, shown)
        if table is None and extension in EXCEL_EXTENSIONS:
            table = _load_excel(data, absolute, shown, sheet, progress)
        elif table is None and extension in PARQUET_EXTENSIONS:
            table = _load_parquet(data, absolute, shown)
        elif table is None:
            table = _load_text(data, absolute, shown, step, state)
    if table.evaluation is None and table.format in (TEXT, XLSX, PARQUET):
        table = formats.declare_plain(table)  # a tool's layout in a plain table (ragas' to_pandas())
    notes = table.notes
    if compressed is not None:
        notes = (f"File {shown} was decompressed ({compressed}, {len(raw):,} bytes to "
                 f"{len(data):,}) on reading; lines are counted in the decompressed text, and "
                 f"the file's SHA-256 is that of the compressed file.",) + notes
    if sheet is not None and table.format != XLSX:
        notes += (f"The sheet '{sheet}' was ignored because file {shown} is not a workbook.",)
    step(1.0, "Loaded")
    return dataclasses.replace(table, digest=digest, size_bytes=size, notes=notes)


def load_many(paths: Sequence[str], *, sheet: str | None = None, progress: Any = None) -> LoadedTable:
    """Load each file with :func:`load_table` and stack them
    (:func:`workbench.io.formats.combine.combine`: each file's rows with its system); one file
    is that file's table."""
    tables = [load_table(p, sheet=sheet, progress=progress) for p in paths]
    if len(tables) == 1:
        return tables[0]
    return combine(tables)


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
    holding its bytes; None when the file needs the usual way (it may be another format or
    encoding, have a quote inside a field...; :func:`fastcsv.parse_file`)."""
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
                       fast.lines, fast.source)


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


#: the compressions the loader undoes: (magic bytes, name, the file's usual suffixes)
COMPRESSIONS = ((b"\x1f\x8b", "gzip", (".gz", ".gzip")),
                (b"BZh", "bzip2", (".bz2",)),
                (b"\xfd7zXZ\x00", "xz", (".xz",)))

#: a compressed file may hold at most this many bytes once decompressed (it is read into memory)
DECOMPRESSED_LIMIT = 4 << 30


def compression(data: bytes) -> str | None:
    """The compression of a file's first bytes (``gzip``, ``bzip2``, ``xz``) or None."""
    for magic, name, _ in COMPRESSIONS:
        if data.startswith(magic) and (name != "bzip2" or data[3:4].isdigit()
                                       and data[4:10] == b"1AY&SY"):
            return name
    return None


def _open_compressed(name: str, source):
    """A reader of the decompressed bytes of ``source`` (a path or a binary file object)."""
    import bz2
    import gzip
    import lzma

    return {"gzip": gzip.open, "bzip2": bz2.open, "xz": lzma.open}[name](source, "rb")


def _decompress_errors() -> tuple[type[BaseException], ...]:
    import lzma

    return (OSError, EOFError, lzma.LZMAError)


def head_bytes(path: str, n: int = 4096) -> bytes:
    """The first ``n`` bytes of a file, decompressed when it is compressed (gzip, bzip2, xz):
    what a sniffer of the format inside looks at.  Raises ``OSError`` as ``open`` does."""
    with open(path, "rb") as handle:
        head = handle.read(n)
    name = compression(head)
    if name is None:
        return head
    try:
        with _open_compressed(name, path) as stream:
            return stream.read(n)
    except _decompress_errors() as err:
        raise OSError(str(err)) from None


def _inner_name(path: str) -> str:
    """``run.csv.gz`` -> ``run.csv``: the name whose extension says the format inside."""
    for _, _, suffixes in COMPRESSIONS:
        for suffix in suffixes:
            if path.lower().endswith(suffix):
                return path[: -len(suffix)]
    return path


def _decompressed(data: bytes, name: str, shown: str) -> bytes:
    """The decompressed bytes, or one sentence for a damaged or too large file."""
    try:
        with _open_compressed(name, io.BytesIO(data)) as stream:
            out = stream.read(DECOMPRESSED_LIMIT + 1)
    except _decompress_errors() as err:
        raise DataError(f"File {shown} is {name}-compressed but could not be decompressed "
                        f"({err}); it may be cut short or damaged.") from None
    if len(out) > DECOMPRESSED_LIMIT:
        raise DataError(f"File {shown} decompresses ({name}) to more than "
                        f"{DECOMPRESSED_LIMIT >> 30} GB, which the workbench would hold in "
                        f"memory; decompress it first and open the decompressed file.")
    return out


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
            name: type_cell_column(values, format_excel_cell).values
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
