"""Read a Parquet file's bytes into a DataFrame with pyarrow, or with fastparquet without it.

pyarrow is a dependency of the Python package (pandas also stores text with it, which makes
large tables faster).  The standalone bundle leaves pyarrow out to stay small (about 100 MiB;
see packaging/workbench.spec) and reads Parquet with fastparquet instead, through
fastparquet's own API (pandas' ``engine="fastparquet"`` is deprecated), in a child process
(see :func:`_read_fastparquet`).  Both give the same frame: :func:`_plain` brings what they
return differently (text, categoricals, nullable and decimal numbers, dates) to one form.
"""

from __future__ import annotations

import contextlib
import io
import warnings

import numpy as np
import pandas as pd

from workbench.io.cells import TEXT_DTYPE

#: Values of :func:`engine`.
PYARROW, FASTPARQUET = "pyarrow", "fastparquet"


def engine() -> str | None:
    """The Parquet reader available here: ``"pyarrow"``, ``"fastparquet"`` or ``None``."""
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        pass
    else:
        return PYARROW
    try:
        _fastparquet()
    except ImportError:
        return None
    return FASTPARQUET


def read(data: bytes, using: str | None = None) -> pd.DataFrame:
    """The table in Parquet ``data`` (its stored index kept as the frame's index).

    ``using`` picks the reader (default: :func:`engine`).  Raises :class:`ImportError` when
    no reader is installed and the reader's own exceptions for damaged files.
    """
    using = using or engine()
    if using in (PYARROW, FASTPARQUET):
        check_frame(data)
    if using == PYARROW:
        import pyarrow.parquet as pq

        schema = pq.read_schema(io.BytesIO(data))
        hints = {f.name: _arrow_kind(f.type) for f in schema}
        return _plain(pd.read_parquet(io.BytesIO(data), engine="pyarrow"), hints)
    if using == FASTPARQUET:
        return _plain(*_read_fastparquet(data))
    raise ImportError("reading Parquet needs pyarrow or fastparquet; neither is installed")


MAGIC = b"PAR1"


class DamagedFile(ValueError):
    """The bytes are not a whole Parquet file (too short, no end marker, bad footer length)."""


def check_frame(data: bytes) -> None:
    """Raise :class:`DamagedFile` unless ``data`` has a Parquet file's frame: the marker PAR1
    at both ends and a footer length that fits.  Checked before either reader sees the bytes:
    fastparquet's C metadata parser can read past the end of a truncated or damaged file
    (and crash the process) instead of raising."""
    if len(data) < 12:
        raise DamagedFile(f"only {len(data)} bytes")
    if data[:4] != MAGIC or data[-4:] != MAGIC:
        raise DamagedFile("it does not start and end with the Parquet marker PAR1; "
                          "is it truncated?")
    footer = int.from_bytes(data[-8:-4], "little")
    if not 0 < footer <= len(data) - 12:
        raise DamagedFile(f"its footer length ({footer:,} bytes) does not fit in the "
                          f"{len(data):,}-byte file")


def write(frame: pd.DataFrame, path, index: bool | None = None, using: str | None = None) -> None:
    """Write ``frame`` to a Parquet file at ``path`` (used by the self-test and the tests)."""
    using = using or engine()
    if using == PYARROW:
        frame.to_parquet(path, engine="pyarrow", index=index)
    elif using == FASTPARQUET:
        with _quiet():
            _fastparquet().write(str(path), frame, write_index=index)
    else:
        raise ImportError("writing Parquet needs pyarrow or fastparquet; neither is installed")


def column_names(path: str) -> list[str] | None:
    """A Parquet file's column names from its schema (the data not read), by the reader of
    :func:`engine`; None without a reader or for a file it cannot read."""
    using = engine()
    try:
        if using == PYARROW:
            import pyarrow.parquet as pq

            return [str(n) for n in pq.read_schema(path).names]
        if using == FASTPARQUET:
            with _quiet():
                return [str(n) for n in _fastparquet().ParquetFile(path).columns]
    except Exception:  # noqa: BLE001 -- not a readable Parquet file: no names
        return None
    return None


@contextlib.contextmanager
def _quiet():
    """fastparquet reads a pandas option that pandas 3 deprecates (on import and on first use
    of its encoders): not the user's concern."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*future.infer_string")
        yield


def _fastparquet():
    with _quiet():
        import fastparquet
    return fastparquet


class ReaderCrashed(RuntimeError):
    """The reader's process died while decoding the file (fastparquet on a damaged file)."""


def _read_fastparquet(data: bytes, target=None) -> pd.DataFrame:
    """fastparquet in a child process: its C decoders can crash the process on a damaged file
    (a few hundred random byte changes in a footer are enough; pyarrow raises instead), which
    would take the whole window and any unsaved work with it.  Costs a process start, about a
    second.  Where no process pool can be made (no POSIX semaphores), it reads in-process."""
    import concurrent.futures as cf
    import multiprocessing as mp

    read = target or _read_fastparquet_here
    try:
        pool = cf.ProcessPoolExecutor(max_workers=1, mp_context=mp.get_context("spawn"))
    except OSError:  # no POSIX semaphores (/dev/shm missing or read-only, as in some chroots)
        return read(data)
    with pool:
        try:
            return pool.submit(read, data).result()
        except cf.process.BrokenProcessPool:
            raise ReaderCrashed("fastparquet crashed while decoding it; the file is damaged "
                                "or uses an encoding fastparquet cannot decode") from None


def _read_fastparquet_here(data: bytes) -> tuple[pd.DataFrame, dict[str, str | None]]:
    """The frame and the columns' kinds from the schema (in the child process)."""
    fastparquet = _fastparquet()

    # fastparquet prints thrift decoding errors to stdout: keep them out of --json output
    with contextlib.redirect_stdout(io.StringIO()), _quiet():
        pf = fastparquet.ParquetFile(io.BytesIO(data))
        frame = pf.to_pandas()
    hints = {}
    for name in frame.columns:
        try:
            element = pf.schema.schema_element(str(name))
        except Exception:  # noqa: BLE001 - nested or renamed: no hint
            continue
        logical = getattr(element, "logicalType", None)
        if element.converted_type == 0 or getattr(logical, "STRING", None) is not None:
            hints[str(name)] = "text"       # UTF8 / STRING
        elif element.converted_type == 6 or getattr(logical, "DATE", None) is not None:
            hints[str(name)] = "date"
    return frame, hints


def _arrow_kind(arrow_type) -> str | None:
    import pyarrow as pa

    if isinstance(arrow_type, pa.DictionaryType):
        arrow_type = arrow_type.value_type
    if pa.types.is_string(arrow_type) or pa.types.is_large_string(arrow_type):
        return "text"
    if pa.types.is_date(arrow_type):
        return "date"
    return None


def _plain(frame: pd.DataFrame, hints: dict[str, str | None] | None = None) -> pd.DataFrame:
    """One form for what the two readers (and the files' pandas metadata) return differently:
    categorical (dictionary-encoded) columns become plain columns of their values; text
    becomes pandas' ``str`` dtype; pandas' nullable integers and floats become float64 with
    NaN where values are missing (int64 when none are); nullable booleans become True/False
    with None for missing; decimals become float64; columns with no value at all become float64
    NaN.  ``hints`` (column -> "text" or "date", from the file's schema) make string columns
    ``str`` even when empty, and dates datetime64[s] (years 1 to 9999; fastparquet itself
    wraps dates outside 1677-2262 around, a known limit)."""
    hints = hints or {}
    for position, name in enumerate(list(frame.columns)):
        column = frame.iloc[:, position]
        plain = _plain_values(column, hints.get(str(name)))
        if plain is not column:
            frame.isetitem(position, plain)
    if not isinstance(frame.index, pd.MultiIndex):
        index = frame.index
        if isinstance(index.dtype, pd.CategoricalDtype):
            index = pd.Index(index.astype(object), name=index.name)
        if index.dtype == object and pd.api.types.infer_dtype(index, skipna=True) == "string":
            index = index.astype(TEXT_DTYPE)
        frame.index = index
    return frame


def _plain_values(column: pd.Series, hint: str | None = None) -> pd.Series:
    if hint == "text" and column.dtype != TEXT_DTYPE:
        return column.astype(object).astype(TEXT_DTYPE)
    if hint == "date":
        if column.dtype == object:  # pyarrow: datetime.date objects
            return pd.Series(np.array(column.tolist(), dtype="datetime64[D]").astype("datetime64[s]"),
                             index=column.index, name=column.name)
        return column.astype("datetime64[s]")
    dtype = column.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        column = column.astype(object)
        kind = pd.api.types.infer_dtype(column, skipna=True)
        if kind in ("integer", "floating", "mixed-integer-float"):
            return pd.to_numeric(column)
        dtype = column.dtype
    if isinstance(dtype, pd.BooleanDtype):
        if column.isna().any():
            return column.astype(object).where(column.notna(), None)
        return column.astype(bool)
    if isinstance(dtype, pd.api.extensions.ExtensionDtype) and \
            pd.api.types.is_numeric_dtype(dtype):  # Int64, UInt8, Float64...
        if column.isna().any():
            return pd.Series(column.to_numpy(dtype=float, na_value=np.nan), index=column.index,
                             name=column.name)
        return column.astype(dtype.numpy_dtype)
    if dtype == object:
        kind = pd.api.types.infer_dtype(column, skipna=True)
        if kind == "string":
            return column.astype(TEXT_DTYPE)
        if kind == "decimal":
            return pd.to_numeric(column).astype(float)
        if kind == "empty" and len(column):
            return pd.Series(np.full(len(column), np.nan), index=column.index, name=column.name)
        if kind == "mixed" and any(isinstance(v, (np.ndarray, list, tuple, dict)) for v in column):
            # list and struct columns (ragas' retrieved_contexts): one JSON text per cell, as the
            # JSON readers render nested values; a missing cell stays missing
            return pd.Series([None if v is None else _json_text(v) for v in column], index=column.index,
                             name=column.name, dtype=object).astype(TEXT_DTYPE)
    return column


def _json_text(value) -> str:
    import json

    def plain(v):
        if isinstance(v, np.ndarray):
            return [plain(x) for x in v.tolist()]
        if isinstance(v, (list, tuple)):
            return [plain(x) for x in v]
        if isinstance(v, dict):
            return {str(k): plain(x) for k, x in v.items()}
        if isinstance(v, np.generic):
            return v.item()
        return v

    if isinstance(value, float) and np.isnan(value):
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(plain(value), ensure_ascii=False, default=str)
