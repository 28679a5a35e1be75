"""The memory budget and the choice of engine for ``auto``.

The in-memory path loads the whole file into pandas and then sorts and codes it; its peak
memory grows with the number of rows (about :data:`BYTES_PER_ROW` per row of a ranking run
with short ids, measured with ``tests/benchmarks/bench_duckdb.py``).  ``auto`` keeps the
in-memory path while that estimate fits in :data:`MEMORY_SHARE` of the machine's RAM, and
hands larger files to DuckDB, whose own memory limit is the same budget capped at
:data:`DUCKDB_MEMORY_CAP` (it spills to a temporary folder beyond it), and for a ranking run
lowered to :data:`DUCKDB_RANKING_BYTES_PER_ROW` per row of the run (at least
:data:`DUCKDB_MEMORY_FLOOR`): DuckDB's sort spills to disk at little cost (measured 10M rows
from Parquet: 7.1 s and a 0.90 GB peak with a 700 MB limit, 7.1 s and 1.30 GB with 4 GB,
9.5 s and 0.70 GB with 500 MB; the in-memory path 18.5 s and 2.96 GB), so the process stays
near a third of what the in-memory path would take.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

#: Share of the machine's RAM that the in-memory path may use (``auto``'s budget).
MEMORY_SHARE = 0.25
#: DuckDB's memory limit: the budget, at most this many bytes.
DUCKDB_MEMORY_CAP = 4 * 10**9
#: DuckDB's memory limit for a ranking run: this many bytes per row of the run ...
DUCKDB_RANKING_BYTES_PER_ROW = 70
#: ... and never less than this (small runs need no spilling)
DUCKDB_MEMORY_FLOOR = 512 * 10**6
#: Estimated peak bytes per row of the in-memory ranking path (load, coding, sorting).
BYTES_PER_ROW = 300
#: The same in the window, which keeps the loaded table (about 100 bytes per row of a ranking
#: run) while a panel computes: a 20M-row run measured 1.9 GB loaded and a 5.4 GB peak for the
#: in-memory ranking (``/usr/bin/time -v``, 2026-12-04).
WINDOW_BYTES_PER_ROW = 400
#: A table that is not a ranking run (only Ranking computes on DuckDB) is loaded in the window
#: unless its load alone would pass this share of the RAM (about LOAD_BYTES_PER_ROW a row
#: loaded: a 20M-row, 4-column Parquet file measured 1.9 GB in pandas).
LOAD_SHARE = 0.5
LOAD_BYTES_PER_ROW = 100
#: File kinds DuckDB reads itself (others are loaded into memory first).
TEXT_EXTENSIONS = (".csv", ".tsv", ".tab")
PARQUET_EXTENSIONS = (".parquet", ".pq")


def duckdb_available() -> bool:
    """Whether the ``duckdb`` package is installed (the standalone bundle leaves it out).  Found,
    not imported: a note of every in-memory ranking asks, and importing DuckDB costs 0.06 s."""
    import importlib.util

    try:
        return importlib.util.find_spec("duckdb") is not None  # None too when sys.modules says so
    except (ImportError, ValueError):
        return False


def ram_bytes() -> int:
    """The machine's physical memory in bytes (8 GB when it cannot be read)."""
    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):
        try:
            import psutil  # Windows has no sysconf
            return int(psutil.virtual_memory().total)
        except Exception:  # noqa: BLE001 -- a conservative guess
            return 8 * 10**9


def memory_budget() -> int:
    """Bytes the in-memory path may use: :data:`MEMORY_SHARE` of the RAM."""
    return int(ram_bytes() * MEMORY_SHARE)


def duckdb_memory_limit() -> int:
    """DuckDB's memory limit in bytes: the budget, at most :data:`DUCKDB_MEMORY_CAP`."""
    return min(memory_budget(), DUCKDB_MEMORY_CAP)


def fitted_duckdb_limit(rows: int, bytes_per_row: int, limit: int) -> int:
    """``limit`` lowered to ``rows * bytes_per_row``, at least :data:`DUCKDB_MEMORY_FLOOR`
    (and never raised)."""
    return min(int(limit), max(DUCKDB_MEMORY_FLOOR, int(rows) * int(bytes_per_row)))


def file_kind(path: str) -> str | None:
    """``"csv"`` (any delimited text DuckDB reads as text columns), ``"parquet"``, or None."""
    ext = os.path.splitext(str(path))[1].lower()
    if ext in TEXT_EXTENSIONS:
        return "csv"
    if ext in PARQUET_EXTENSIONS:
        return "parquet"
    return None


def estimated_rows(path: str, kind: str) -> int:
    """Rows of the file: Parquet's footer count, or a CSV's size over its first lines' mean
    length."""
    if kind == "parquet":
        import duckdb

        con = duckdb.connect()
        try:
            rows = con.execute("SELECT sum(num_rows) FROM parquet_file_metadata(?)",
                               [str(path)]).fetchall()[0][0]
        finally:
            con.close()
        return int(rows or 0)
    size = os.path.getsize(path)
    with open(path, "rb") as handle:
        head = handle.read(1 << 20)
    lines = head.count(b"\n")
    if lines <= 1 or size <= len(head):
        return max(lines - 1, 0)
    return int(size / (len(head) / lines))


@dataclass(frozen=True)
class Choice:
    """The engine ``auto`` chose and why (one sentence for the result's notes)."""
    engine: str
    estimate: int
    budget: int
    reason: str


def choose_for_file(path: str, kind: str, bytes_per_row: int | None = None) -> Choice:
    """``auto``'s choice for one file: memory within the budget, DuckDB above it
    (``bytes_per_row``: the estimate per row, :data:`BYTES_PER_ROW` by default)."""
    budget = memory_budget()
    if not duckdb_available():
        return Choice("memory", 0, budget, "DuckDB is not installed here")
    try:
        rows = estimated_rows(path, kind)
    except Exception:  # noqa: BLE001 -- unreadable, damaged: the loader says what is wrong
        return Choice("memory", 0, budget, "the file's size could not be estimated")
    estimate = rows * (BYTES_PER_ROW if bytes_per_row is None else bytes_per_row)
    gb = 1e9
    if estimate <= budget:
        return Choice("memory", estimate, budget,
                      f"about {rows:,} rows, an estimated {estimate / gb:.1f} GB in memory, "
                      f"within the budget of {budget / gb:.1f} GB ({MEMORY_SHARE:.0%} of the "
                      f"RAM)")
    return Choice("duckdb", estimate, budget,
                  f"about {rows:,} rows, an estimated {estimate / gb:.1f} GB in memory, over "
                  f"the budget of {budget / gb:.1f} GB ({MEMORY_SHARE:.0%} of the RAM)")
