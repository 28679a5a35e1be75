"""Engines that compute an analysis's per-query (per-item) table: the in-memory numpy path of
:mod:`workbench.metrics`, or DuckDB (out of core) or Spark (a cluster) running the same
definitions as SQL.

The statistics stay the workbench's: an engine returns the per-query values, and the means,
paired tests, notes and report are computed from them as for the in-memory path.

* ``memory``: the file is loaded into pandas and the numpy kernels run (the default below the
  memory budget);
* ``duckdb``: DuckDB reads the file itself (CSV/TSV with every column as text, or Parquet)
  with a memory limit and a spill folder, and runs the SQL kernels of
  :mod:`workbench.engines.ranking_sql` (ranking), the counts of
  :mod:`workbench.engines.tally` (pass@k per task, aggregation per group or unit) or reads only
  the columns an analysis uses (:mod:`workbench.engines.project`: cost and latency);
* ``spark``: a Spark session (``local[2]`` or a cluster's master) reads the file itself and
  runs the same SQL kernels and counts (:mod:`workbench.engines.spark`, an optional extra: pyspark and
  Java 17; never imported unless asked for);
* ``auto``: ``memory`` when the estimated in-memory size of the file is within the budget
  (:data:`MEMORY_SHARE` of the machine's RAM), ``duckdb`` above it (when DuckDB is installed);
  never ``spark``.

No Qt here (pure).
"""

from __future__ import annotations

from .budget import (DUCKDB_MEMORY_CAP, MEMORY_SHARE, Choice, choose_for_file, duckdb_available,
                     file_kind, memory_budget, ram_bytes)

ENGINES = ("auto", "memory", "duckdb", "spark")

__all__ = ["ENGINES", "MEMORY_SHARE", "DUCKDB_MEMORY_CAP", "Choice", "choose_for_file",
           "duckdb_available", "file_kind", "memory_budget", "ram_bytes"]
