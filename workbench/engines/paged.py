"""A Parquet or delimited text file beyond the memory budget, read a page at a time by DuckDB.

The desktop workbench does not load such a file when it is a ranking run (or too large to load
at all): its data view shows the file's rows page by page (a Parquet file: DuckDB reads only
the row groups of the page, found by ``file_row_number``; a CSV: DuckDB copies it once into a
table of its own, :class:`PagedCSV`), the first rows stand in for the table where only the
columns are needed (names, roles, the column checks), and the analyses that have an engine
(Ranking, pass@k, Aggregation, Cost and latency) read the whole file with DuckDB.  The
others say that they need the rows in memory (:func:`refusal`) instead of computing on the
first rows.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
from dataclasses import dataclass

from ..core.errors import Cancelled, DataError
from . import budget
from .cancel import cancelled, watch_cancel
from .duck import FileSource, quote_text

#: Rows of the file that stand in for the table (its columns, roles, the first checks).
HEAD_ROWS = 1000
#: DuckDB's memory limit for paging (a page is a few hundred rows).
PAGING_MEMORY = 256 * 10**6


class _Pages:
    """Rows by position from a DuckDB connection, one page at a time (thread-safe); a
    subclass sets ``_page_sql`` (the page's statement, whose two parameters are the first
    and the last row), ``path``, ``rows`` and ``columns``, and frees what it holds in
    :meth:`_release`."""

    path: str
    rows: int
    _page_sql: str
    closed: bool = True

    def _release(self) -> None:
        self._con.close()

    def close(self) -> None:
        with self._lock:
            if not self.closed:
                self.closed = True
                self._release()

    def _shown(self, frame):
        """The page as the data view shows it (a subclass may convert columns)."""
        return frame

    def page(self, start: int, stop: int):
        """Rows ``start`` to ``stop - 1`` (0-based, file order) as a pandas frame."""
        with self._lock:
            if self.closed:
                raise DataError(f"File '{self.path}' is no longer open.")
            frame = self._con.execute(self._page_sql, [int(start), int(stop)]).df()
        return self._shown(frame)

    def head(self, n: int = HEAD_ROWS):
        return self.page(0, min(n, self.rows))


class PagedParquet(_Pages):
    """A Parquet file's rows by position, read by DuckDB on demand (thread-safe: one page at a
    time).  ``rows`` is the footer's count; ``columns`` the file's column names in order."""

    def __init__(self, path: str) -> None:
        import duckdb

        self.path = os.path.abspath(path)
        self._lock = threading.Lock()
        self._con = duckdb.connect(config={"memory_limit": f"{PAGING_MEMORY // 10**6}MB",
                                           "threads": 1})
        self._scan = f"read_parquet({quote_text(self.path)}, file_row_number = true)"
        self._page_sql = (f"SELECT * EXCLUDE (file_row_number) FROM {self._scan} WHERE "
                          f"file_row_number >= ? AND file_row_number < ? ORDER BY file_row_number")
        try:
            self.rows = int(self._con.execute(
                "SELECT coalesce(sum(num_rows), 0) FROM parquet_file_metadata(?)",
                [self.path]).fetchall()[0][0])
            described = self._con.execute(
                f"DESCRIBE SELECT * FROM read_parquet({quote_text(self.path)})").fetchall()
        except duckdb.Error as err:
            self._con.close()
            raise DataError(f"File '{self.path}' could not be read as Parquet by DuckDB: "
                            f"{str(err).splitlines()[0]}") from None
        self.columns = tuple(str(r[0]) for r in described)
        self.closed = False



class PagedCSV(_Pages):
    """A delimited text file's rows by position: DuckDB copies the file once, every cell as
    its text, into a table of its own in a temporary folder (10M rows, 276 MB: about 5 s, a
    90 MB table), which a page then reads by row number (a few milliseconds).  The rows are
    the records DuckDB reads with the dialect of ``source`` (quoted fields may span lines),
    the same rows the engines compute on.  Columns whose first rows the workbench read as
    numbers (``numeric``) are shown as numbers where every cell of the page is one.  The
    folder is removed on :meth:`close`."""

    _page_sql = "SELECT * EXCLUDE (rn) FROM pages WHERE rn > ? AND rn <= ? ORDER BY rn"

    def __init__(self, source: FileSource, numeric=(), progress=None) -> None:
        import duckdb

        self.path, self.columns = source.path, tuple(source.columns)
        self._numeric = tuple(c for c in numeric if c in self.columns)
        self._decimal = source.decimal
        self._lock = threading.Lock()
        if progress is not None:
            progress.check_cancelled()
        self._folder = tempfile.mkdtemp(prefix="workbench-pages-")
        self._con = None
        self.closed = True
        try:
            self._con = duckdb.connect(os.path.join(self._folder, "pages.duckdb"), config={
                "memory_limit": f"{PAGING_MEMORY // 10**6}MB", "temp_directory": self._folder})
            done = watch_cancel(self._con, progress)
            try:
                self._con.execute(f"CREATE TABLE pages AS {source.scan()}")
            finally:
                done.set()
            if progress is not None:
                progress.check_cancelled()
            self.rows = int(self._con.execute("SELECT count(*) FROM pages").fetchall()[0][0])
            self._con.execute("SET threads = 1")
        except duckdb.Error as err:
            self._release()
            if progress is not None and cancelled(progress):
                raise Cancelled("the run was cancelled") from None
            raise DataError(f"File '{self.path}' could not be read by DuckDB page by page: "
                            f"{(str(err).strip().splitlines() or ['unreadable'])[0]}") from None
        except BaseException:
            self._release()
            raise
        self.closed = False

    def _shown(self, frame):
        import pandas as pd

        for name in self._numeric:
            text = frame[name]
            if self._decimal != ".":
                text = text.str.replace(self._decimal, ".", regex=False)
            values = pd.to_numeric(text.str.strip(), errors="coerce")
            if (values.isna() == frame[name].isna()).all():  # every cell a number: shown as one
                frame[name] = values
        return frame

    def _release(self) -> None:
        if self._con is not None:
            try:
                self._con.close()
            except Exception:  # noqa: BLE001 - closing after a failure: the folder goes anyway
                pass
            self._con = None
        shutil.rmtree(self._folder, ignore_errors=True)


@dataclass
class LargeFile:
    """A file opened without being loaded: its rows read page by page (``paged``), the source
    the engines read whole (``source``), ``auto``'s choice that sent it there, and for a CSV
    the table of its first rows as the workbench reads them (``preview``)."""

    paged: "PagedParquet | PagedCSV"
    source: FileSource
    choice: budget.Choice
    preview: object = None

    @property
    def rows(self) -> int:
        return self.paged.rows

    @property
    def head_rows(self) -> int:
        """Rows of the table that stands in for the file (its first rows)."""
        if self.preview is not None:
            return min(len(self.preview.frame), self.rows)
        return min(HEAD_ROWS, self.rows)

    def sentence(self) -> str:
        """What the window says of such a file."""
        return (f"This file has {self.rows:,} rows, more than the memory budget allows "
                f"({self.choice.reason}), so it is read by DuckDB page by page instead of "
                f"being loaded: the data view pages through it, the columns are named and "
                f"checked from its first {self.head_rows:,} rows, and Ranking, "
                f"pass@k, Aggregation and Cost and latency compute on the whole file with "
                f"DuckDB.")


def open_if_large(path: str, progress=None) -> LargeFile | None:
    """A Parquet or delimited text file over the memory budget (``auto``'s choice is DuckDB),
    opened for paging; None for any other file (loaded into memory as before).  ``progress``:
    a CSV's copy for paging can be cancelled.

    Only Ranking, pass@k, Aggregation and Cost compute on DuckDB, so a table over the budget
    whose columns are not a ranking run (no query and document columns with a score or rank)
    is still loaded, and its panels compute in memory (only the one on screen), unless loading
    it alone would pass :data:`budget.LOAD_SHARE` of the RAM: then it is read page by page
    too, and its panels say that they need the rows in memory."""
    kind = budget.file_kind(path)
    if kind not in ("parquet", "csv") or not os.path.isfile(path):
        return None
    choice = budget.choose_for_file(path, kind, budget.WINDOW_BYTES_PER_ROW)
    if choice.engine != "duckdb":
        return None
    if kind == "parquet":
        paged = PagedParquet(path)
        if not _ranking_run(_head_table(paged)) and _loadable(paged.rows):
            paged.close()
            return None
        return LargeFile(paged, FileSource(paged.path, "parquet", paged.columns), choice)
    from ..core.errors import OptionError
    from .duck import csv_source

    try:
        source, preview = csv_source(path)
    except (DataError, OptionError):  # not a CSV DuckDB reads: the loader says what it is
        return None
    if not _ranking_run(preview) and _loadable(choice.estimate // budget.WINDOW_BYTES_PER_ROW):
        return None
    frame = preview.frame
    numeric = [c for c in frame.columns if frame[c].dtype.kind in "iuf"]
    if progress is not None:
        progress.advance(0.1, f"copying its rows for the data view (DuckDB; about "
                              f"{choice.estimate // budget.WINDOW_BYTES_PER_ROW:,} rows)")
    return LargeFile(PagedCSV(source, numeric, progress), source, choice, preview)


def _loadable(rows: int) -> bool:
    """Whether a table of ``rows`` rows may be loaded in the window (within the load share)."""
    return rows * budget.LOAD_BYTES_PER_ROW <= budget.ram_bytes() * budget.LOAD_SHARE


def _head_table(paged: PagedParquet):
    from ..io.table import PARQUET, LoadedTable

    return LoadedTable(frame=paged.head(), path=paged.path, format=PARQUET)


def _ranking_run(head) -> bool:
    """Whether the file's columns are a ranking run by their names (the roles the window
    would guess from its first rows, ``head``): a query, a document, and a score or a rank."""
    from ..io.roles import guess_roles

    roles = set(guess_roles(head).values())
    return {"query", "doc"} <= roles and bool({"score", "rank"} & roles)


def refusal(title: str, large: LargeFile | None) -> str:
    """The sentence of an analysis without an engine on a file read page by page ("" when the
    file is loaded)."""
    if large is None:
        return ""
    return (f"{title} needs the rows in memory, and file '{os.path.basename(large.source.path)}' "
            f"({large.rows:,} rows, {large.choice.reason}) is read by DuckDB page by page; "
            f"computing on its first rows would give a wrong number. Ranking, pass@k, "
            f"Aggregation and Cost and latency compute such a file with DuckDB; for {title}, "
            f"open an extract of the rows it needs.")
