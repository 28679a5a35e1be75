"""DuckDB connections and the inputs the SQL kernels read.

A connection gets a memory limit and a spill folder (``temp_directory``) that is removed when
it closes.  Inputs become relations of fixed columns, ids always exact text:

* a file DuckDB reads itself: CSV/TSV with ``all_varchar`` (every column text, so ``00042`` or
  ``42.0`` is never sniffed into the number 42; the numbers are cast by the kernels' reading
  step with a sentence for a bad cell), or Parquet with ``read_parquet`` (a number-typed id
  column rendered as the in-memory path renders it: ``42`` for 42 and 42.0);
* a pandas frame already in memory (the GUI, the tests), registered as it is.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass

from ..core.errors import DataError, OptionError
from .budget import duckdb_memory_limit, fitted_duckdb_limit
from .ranking_sql import DUCKDB


#: The sentence when the DuckDB engine is asked for and the package is missing.
MISSING = ("The DuckDB engine needs the duckdb package, which is not installed here (the "
           "standalone installer leaves it out; pip install duckdb); compute in memory instead "
           "(--engine memory).")


class Connection:
    """A DuckDB connection with a memory limit and its own spill folder (a context manager)."""

    def __init__(self, memory_limit: int | None = None, threads: int | None = None) -> None:
        try:
            import duckdb
        except ImportError:
            raise OptionError(MISSING) from None
        self.memory_limit = int(memory_limit or duckdb_memory_limit())
        self.spill = tempfile.mkdtemp(prefix="workbench-duckdb-")
        # a database file in the spill folder, not an in-memory one: the run's table is kept
        # compressed on disk (and in the buffer pool within the limit), not all in memory
        try:
            self.con = duckdb.connect(os.path.join(self.spill, "work.duckdb"), config={
                "memory_limit": f"{self.memory_limit // 10**6}MB",
                "temp_directory": self.spill,
                "threads": int(threads or os.cpu_count() or 1),
            })
            self.con.execute("SET enable_progress_bar = false")  # never DuckDB's bar on a terminal
        except BaseException:
            shutil.rmtree(self.spill, ignore_errors=True)  # no spill folder left behind
            raise
        self.error = duckdb.Error
        self.dialect = DUCKDB

    def execute(self, sql: str, params=None):
        return self.con.execute(sql, params or [])

    def rows(self, sql: str, params=None) -> list[tuple]:
        """The answer's rows as tuples (``?`` parameters)."""
        return self.con.execute(sql, params or []).fetchall()

    def frame(self, sql: str):
        """The answer as a pandas frame."""
        return self.con.execute(sql).df()

    def run(self, sql: str, params=None) -> None:
        """A statement without an answer (CREATE ...), finished before the next one (an
        unfinished result blocks registering a frame on this connection)."""
        self.con.execute(sql, params or []).fetchall()

    def fit_memory(self, rows: int, bytes_per_row: int) -> None:
        """Lower the memory limit to ``rows * bytes_per_row`` (at least
        :data:`~workbench.engines.budget.DUCKDB_MEMORY_FLOOR`; never above the limit set):
        DuckDB then spills its sort to the folder sooner, for a process that uses a fraction
        of what the file would take in memory."""
        limit = fitted_duckdb_limit(rows, bytes_per_row, self.memory_limit)
        if limit < self.memory_limit:
            self.con.execute(f"SET memory_limit = '{limit // 10**6}MB'")
            self.memory_limit = limit

    def interrupt(self) -> None:
        """Stop the query running on another thread (it raises DuckDB's interrupt error)."""
        self.con.interrupt()

    def close(self) -> None:
        try:
            self.con.close()
        finally:
            shutil.rmtree(self.spill, ignore_errors=True)

    def __enter__(self) -> "Connection":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def quote_ident(name: str) -> str:
    """A column name as a DuckDB identifier (double quotes, inner quotes doubled)."""
    return '"' + str(name).replace('"', '""') + '"'


def quote_text(text: str) -> str:
    """A string literal."""
    return "'" + str(text).replace("'", "''") + "'"


#: A CSV's rows are located by counting its lines up to this data row (on the error path only);
#: beyond it a sentence names the data row instead of the line.
COUNT_LINES_UPTO = 5_000_000


@dataclass(frozen=True)
class FileSource:
    """A run or qrels file that DuckDB reads itself.

    ``kind`` is ``"csv"`` or ``"parquet"`` (or ``"trec"``, a TREC run only Spark reads
    itself: :mod:`workbench.engines.spark_input`); for CSV the dialect read by the workbench's own
    sniffing (``delimiter``, ``columns`` in file order, ``decimal``), so DuckDB sniffs nothing.
    """
    path: str
    kind: str
    columns: tuple[str, ...]
    delimiter: str = ","
    decimal: str = "."
    encoding: str = "utf-8"

    @property
    def name(self) -> str:
        return os.path.basename(self.path)

    @property
    def first_line(self) -> int:
        """The file line of data row 1 (rows are numbered from 1 in ``rn``)."""
        return 2 if self.kind == "csv" else 1

    def scan(self) -> str:
        """A SELECT of every column plus ``rn`` (1-based row number in file order)."""
        if self.kind == "parquet":
            return (f"SELECT file_row_number + 1 AS rn, * EXCLUDE (file_row_number) FROM "
                    f"read_parquet({quote_text(self.path)}, file_row_number = true)")
        cols = ", ".join(f"{quote_text(c)}: 'VARCHAR'" for c in self.columns)
        delim = quote_text(self.delimiter)
        encoding = "" if self.encoding in ("utf-8", "utf-8-sig", "ascii") else \
            f", encoding = {quote_text(self.encoding)}"
        return (f"SELECT row_number() OVER () AS rn, * FROM read_csv({quote_text(self.path)}, "
                f"header = true, auto_detect = false, all_varchar = true, delim = {delim}, "
                f"quote = '\"', escape = '\"', columns = {{{cols}}}{encoding})")

    def describe_rows(self, rns) -> str:
        rns = [int(r) for r in rns]
        word = "row" if self.kind == "parquet" else "line"  # a CSV's or a TREC file's lines
        if self.kind == "csv":
            lines = self.csv_lines(rns[:5])
            if lines is None:  # too far into the file to count its lines: the data row
                shown = ", ".join(str(r) for r in rns[:5])
                return f"data row{'s' if len(rns) > 1 else ''} {shown}"
        else:
            lines = [r + self.first_line - 1 for r in rns[:5]]
        shown = ", ".join(str(n) for n in lines)
        return f"{word}{'s' if len(rns) > 1 else ''} {shown}"

    def csv_lines(self, rns) -> list[int] | None:
        """The file line where each data row ``rn`` (1-based, as DuckDB numbers the records:
        blank lines skipped) starts, counted by reading the file with Python's csv module
        (quoted fields may span lines); None beyond :data:`COUNT_LINES_UPTO` rows."""
        import csv

        if not rns or max(rns) > COUNT_LINES_UPTO:
            return None if rns else []
        wanted = set(rns)
        found: dict[int, int] = {}
        encoding = "utf-8-sig" if self.encoding in ("utf-8", "utf-8-sig", "ascii") else self.encoding
        try:
            with open(self.path, newline="", encoding=encoding, errors="replace") as handle:
                reader = csv.reader(handle, delimiter=self.delimiter, quotechar='"',
                                    doublequote=True)
                record, before = -1, 0
                for row in reader:
                    start, before = before + 1, reader.line_num
                    if not row:  # a blank line: not a record
                        continue
                    record += 1  # the header is record 0
                    if record in wanted:
                        found[record] = start
                        if len(found) == len(wanted):
                            break
        except (OSError, csv.Error, UnicodeError):
            return None
        if len(found) < len(wanted):
            return None
        return [found[r] for r in rns]


def csv_source(path: str, engine: str = "duckdb"):
    """A delimited text file as DuckDB (or Spark: ``engine='spark'``, which also reads the
    Windows cp1252 encoding) reads it (the dialect found by the workbench's own sniffing of
    its first lines: delimiter, columns, decimal mark, encoding), and the table of those
    first rows as the workbench reads them."""
    from ..io import load_table
    from ..io.loader import load_head

    preview = load_head(path, 1 << 20) or load_head(path, 1 << 23)
    if preview is None:
        if os.path.getsize(path) > 64 << 20:  # never the whole large file into memory
            raise DataError(f"The first lines of file '{path}' could not be read on their own "
                            f"(a quoted field spanning lines at the cut?); DuckDB needs its "
                            f"columns and delimiter from them: use --engine memory.")
        preview = load_table(path)  # a small file: its own messages
    if preview.format != "text" or preview.delimiter is None:
        raise OptionError(f"File '{path}' is not delimited text that DuckDB can read; use "
                          f"--engine memory.")
    encoding = (preview.encoding or "utf-8").lower().replace("_", "-")
    readable = ("utf-8", "utf-8-sig", "ascii", "utf-16", "latin-1", "iso-8859-1")
    if encoding not in readable + (("cp1252",) if engine == "spark" else ()):
        raise OptionError(f"File '{path}' is in the {preview.encoding} encoding, which DuckDB "
                          f"does not read; save it as UTF-8 or use --engine memory.")
    source = FileSource(os.path.abspath(path), "csv", tuple(map(str, preview.frame.columns)),
                        delimiter=preview.delimiter, decimal=preview.decimal or ".",
                        encoding=encoding)
    return source, preview


def require(path: str, present, names) -> None:
    """One sentence for the columns of ``names`` the file does not have."""
    missing = [n for n in names if n not in present]
    if missing:
        raise DataError(f"File '{path}' has no column {', '.join(map(repr, missing))} (its "
                        f"columns are: {', '.join(map(str, present))}).")


def column_types(conn: Connection, source: FileSource) -> dict[str, str]:
    """Each column's DuckDB type (CSV: all VARCHAR)."""
    if source.kind == "csv":
        return {c: "VARCHAR" for c in source.columns}
    try:
        rows = conn.execute(f"DESCRIBE SELECT * FROM read_parquet({quote_text(source.path)})"
                            ).fetchall()
    except conn.error as err:
        if "out of memory" in str(err).lower():  # the limit, not the file
            raise DataError(f"DuckDB ran out of its memory limit of {conn.memory_limit / 1e9:.2f} GB "
                            f"reading file '{source.path}' (the limit is {budget_words()}); free "
                            f"memory on this machine, or compute on a larger one.") from None
        raise DataError(f"File '{source.path}' could not be read as Parquet by DuckDB: "
                        f"{str(err).splitlines()[0]}") from None
    return {str(r[0]): str(r[1]).upper() for r in rows}


def budget_words() -> str:
    """How DuckDB's memory limit is set, in words."""
    from .budget import DUCKDB_MEMORY_CAP, MEMORY_SHARE

    return (f"{MEMORY_SHARE:.0%} of the RAM, at most {DUCKDB_MEMORY_CAP / 1e9:.0f} GB")


def id_text(column: str, dtype: str) -> str:
    """SQL: the column's cells as the exact text the in-memory path uses for ids (missing as
    ``''``; whole floats below 1e16 as integers, as :func:`workbench.io.cells.format_cell`)."""
    c = quote_ident(column)
    if dtype == "VARCHAR":
        return f"coalesce({c}, '')"
    if dtype in ("FLOAT", "DOUBLE") or dtype.startswith("DECIMAL"):
        return (f"coalesce(CASE WHEN {c} = trunc({c}) AND abs({c}) < 1e16 "
                f"THEN CAST(CAST({c} AS HUGEINT) AS VARCHAR) ELSE CAST(CAST({c} AS DOUBLE) AS VARCHAR) END, '')")
    if dtype == "BOOLEAN":
        return f"coalesce(CASE WHEN {c} THEN 'True' ELSE 'False' END, '')"
    return f"coalesce(CAST({c} AS VARCHAR), '')"


def number(column: str, dtype: str, decimal: str = ".") -> tuple[str, str]:
    """SQL: (the column as DOUBLE or NULL when blank or not a number, a condition true for a
    cell that is neither blank nor a finite plain number)."""
    c = quote_ident(column)
    if dtype != "VARCHAR":
        value = f"CAST({c} AS DOUBLE)"
        return (f"CASE WHEN isfinite({value}) THEN {value} END",
                f"({c} IS NOT NULL AND NOT isfinite({value}))")
    text = f"replace({c}, ',', '.')" if decimal == "," else c
    parsed = f"TRY_CAST({text} AS DOUBLE)"
    blank = f"({c} IS NULL OR trim({c}) = '')"
    ok = f"(NOT {blank} AND isfinite({parsed}) AND strpos({c}, '_') = 0)"
    return f"CASE WHEN {ok} THEN {parsed} END", f"(NOT {blank} AND NOT coalesce({ok}, false))"


def blank(column: str, dtype: str) -> str:
    c = quote_ident(column)
    return f"({c} IS NULL OR trim({c}) = '')" if dtype == "VARCHAR" else f"({c} IS NULL)"
