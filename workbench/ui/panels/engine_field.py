"""The 'Computed by' option of the panels whose engines count a file read page by page
(pass@k, Aggregation, Cost and latency); Ranking has its own (its engines also take a loaded
table)."""

from __future__ import annotations

from .base import Field

ENGINE_CHOICES = (("auto", "automatic"), ("memory", "in memory"), ("duckdb", "DuckDB"),
                  ("spark", "Spark (local)"))


def engine_field(what: str) -> Field:
    """``Field("engine", ...)`` for a panel that computes ``what``."""
    return Field(
        "engine", "Computed by", "choice",
        f"What computes {what} of a Parquet file over the memory budget, which the window "
        "reads page by page without loading it (the numbers are the same).\n"
        "automatic: DuckDB for such a file, in memory for a loaded one\n"
        "DuckDB: DuckDB reads the whole file\n"
        "Spark: the same on a local Spark session (local[2]; needs pyspark and Java 17; it "
        "takes a while to start)\n"
        "in memory: refused for such a file (it would load it all)\n"
        "A loaded file is computed in memory whatever the choice (a note says so when an "
        "engine was chosen); the command line's --engine lets an engine read a CSV or Parquet "
        "file of any size.",
        choices=ENGINE_CHOICES)
