"""A Parquet file beyond the memory budget, read a page at a time by DuckDB.

The desktop workbench does not load such a file when it is a ranking run (or too large to load
at all): its data view shows the file's rows page by
page (DuckDB reads only the row groups of the page, found by ``file_row_number``), the first
rows stand in for the table where only the columns are needed (names, roles, the column
checks), and the analyses that have an engine (Ranking) read the whole file with DuckDB.  The
others say that they need the rows in memory (:func:`refusal`) instead of computing on the
first rows.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass

from ..core.errors import DataError
from . import budget
from .duck import FileSource, quote_text

#: Rows of the file that stand in for the table (its columns, roles, the first checks).
HEAD_ROWS = 1000
#: DuckDB's memory limit for paging (a page is a few hundred rows).
PAGING_MEMORY = 256 * 10**6


class PagedParquet:
    """A Parquet file's rows by position, read by DuckDB on demand (thread-safe: one page at a
    time).  ``rows`` is the footer's count; ``columns`` the file's column names in order."""

    def __init__(self, path: str) -> None:
        import duckdb

        self.path = os.path.abspath(path)
        self._lock = threading.Lock()
        self._con = duckdb.connect(config={"memory_limit": f"{PAGING_MEMORY // 10**6}MB",
                                           "threads": 1})
        self._scan = f"read_parquet({quote_text(self.path)}, file_row_number = true)"
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

    def page(self, start: int, stop: int):
        """Rows ``start`` to ``stop - 1`` (0-based, file order) as a pandas frame."""
        with self._lock:
            if self.closed:
                raise DataError(f"File '{self.path}' is no longer open.")
            frame = self._con.execute(
                f"SELECT * EXCLUDE (file_row_number) FROM {self._scan} "
                f"WHERE file_row_number >= ? AND file_row_number < ? ORDER BY file_row_number",
                [int(start), int(stop)]).df()
        return frame

    def head(self, n: int = HEAD_ROWS):
        return self.page(0, min(n, self.rows))

    def close(self) -> None:
        with self._lock:
            if not self.closed:
                self.closed = True
                self._con.close()


@dataclass
class LargeFile:
    """A file opened without being loaded: its rows read page by page (``paged``), the source
    the engines read whole (``source``), and ``auto``'s choice that sent it there."""

    paged: PagedParquet
    source: FileSource
    choice: budget.Choice

    @property
    def rows(self) -> int:
        return self.paged.rows

    def sentence(self) -> str:
        """What the window says of such a file."""
        return (f"This file has {self.rows:,} rows, more than the memory budget allows "
                f"({self.choice.reason}), so it is read by DuckDB page by page instead of "
                f"being loaded: the data view pages through it, the columns are named and "
                f"checked from its first {min(HEAD_ROWS, self.rows):,} rows, and Ranking, "
                f"pass@k, Aggregation and Cost and latency compute on the whole file with "
                f"DuckDB.")


def open_if_large(path: str) -> LargeFile | None:
    """A Parquet file over the memory budget (``auto``'s choice is DuckDB), opened for paging;
    None for any other file (loaded into memory as before).

    Only Ranking, pass@k, Aggregation and Cost compute on DuckDB, so a table over the budget whose
    columns are not a ranking run (no query and document columns with a score or rank) is still loaded, and its panels
    compute in memory (only the one on screen), unless loading it alone would pass
    :data:`budget.LOAD_SHARE` of the RAM: then it is read page by page too, and its panels say
    that they need the rows in memory."""
    if budget.file_kind(path) != "parquet" or not os.path.isfile(path):
        return None
    choice = budget.choose_for_file(path, "parquet", budget.WINDOW_BYTES_PER_ROW)
    if choice.engine != "duckdb":
        return None
    paged = PagedParquet(path)
    if not _ranking_run(paged) and \
            paged.rows * budget.LOAD_BYTES_PER_ROW <= budget.ram_bytes() * budget.LOAD_SHARE:
        paged.close()
        return None
    return LargeFile(paged, FileSource(paged.path, "parquet", paged.columns), choice)


def _ranking_run(paged: PagedParquet) -> bool:
    """Whether the file's columns are a ranking run by their names (the roles the window
    would guess from its first rows): a query, a document, and a score or a rank."""
    from ..io.roles import guess_roles
    from ..io.table import PARQUET, LoadedTable

    roles = set(guess_roles(LoadedTable(frame=paged.head(), path=paged.path, format=PARQUET)).values())
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
