"""The few columns an analysis needs, read by DuckDB (or Spark) from a file beyond memory: the
other columns (a log's prompts and responses, its long texts) are never read into memory.

``project(conn, source, columns)`` returns a pandas frame of the file's rows in file order with
only ``columns`` (name -> kind):

* ``"text"``: each cell as its exact text (an id rendered as the in-memory path renders it,
  ``''`` for an empty cell), as a pandas ``Categorical`` (categories in order of first
  appearance): a system, an outcome word, an error message take a small code per row;
* ``"number"``: the cell as a float (NaN for an empty cell; a cell that is not a number is one
  sentence naming the file, column, line and cell, as for the ranking kernels).

The analysis then computes on that frame as it does on a loaded file (the same numbers): the
statistics that need each row (a bootstrap over requests, exact percentiles) keep each row, in
a few bytes per column.
"""

from __future__ import annotations

import pandas as pd

from .duck import FileSource, require


def project(conn, source: FileSource, columns: dict[str, str]) -> pd.DataFrame:
    """The file's ``columns`` (name -> ``"text"`` or ``"number"``), every row, in file order."""
    if conn.dialect.name == "spark":
        return _spark(conn, source, columns)
    return _duckdb(conn, source, columns)


def _duckdb(conn, source: FileSource, columns: dict[str, str]) -> pd.DataFrame:
    from .duck import column_types, id_text, number, quote_ident
    from .ranking_input import _diagnose

    types = column_types(conn, source)
    require(source.path, list(types), list(columns))
    select, bad_cells = [], {}
    for i, (name, kind) in enumerate(columns.items()):
        if kind == "text":
            text = id_text(name, types[name])
            # an ENUM of the distinct texts in order of first appearance: a Categorical
            conn.run(f"DROP TYPE IF EXISTS workbench_e{i}")
            conn.run(f"CREATE TYPE workbench_e{i} AS ENUM (SELECT v FROM (SELECT {text} AS v, "
                     f"min(rn) AS first FROM ({source.scan()}) GROUP BY 1) ORDER BY first)")
            select.append(f"CAST({text} AS workbench_e{i}) AS {quote_ident(name)}")
        else:
            value, bad_cells[name] = number(name, types[name], source.decimal)
            select.append(f"CAST({value} AS DOUBLE) AS {quote_ident(name)}")
    if bad_cells:  # every number column checked in one read
        counts = conn.rows("SELECT " + ", ".join(f"count(*) FILTER (WHERE {bad})"
                                                 for bad in bad_cells.values())
                           + f" FROM ({source.scan()})")[0]
        for name, count in zip(bad_cells, counts):
            if count:
                _diagnose(conn, source, name, types[name], allow_blank=True)
    # a plain scan keeps the file's order (DuckDB's preserve_insertion_order)
    frame = conn.frame(f"SELECT {', '.join(select)} FROM ({source.scan()})")
    for name, kind in columns.items():
        if kind == "text" and not isinstance(frame[name].dtype, pd.CategoricalDtype):
            frame[name] = frame[name].astype("category")  # an empty file
    return frame


def _spark(conn, source: FileSource, columns: dict[str, str]) -> pd.DataFrame:
    """Spark: the columns collected in file order (texts made categorical in pandas)."""
    from pyspark.sql import functions as F

    from . import spark_input as si

    src = si.read(conn, source)
    require(source.path, [c for c in src.types if c != "rn"], list(columns))
    t = src.types
    cols, bad_cells = [F.col("rn")], {}
    for name, kind in columns.items():
        if kind == "text":
            cols.append(si.id_text(name, t[name]).alias(name))
        else:
            value, bad_cells[name] = si.number(name, t[name], source.decimal)
            cols.append(value.alias(name))
    if bad_cells:  # every number column checked in one read
        counts = src.frame.select(*[F.sum(bad.cast("long")) for bad in bad_cells.values()]
                                  ).collect()[0]
        for name, count in zip(bad_cells, counts):
            if count:
                si._diagnose(src, name, allow_blank=True)
    frame = src.frame.select(*cols).orderBy("rn").drop("rn").toPandas()
    for name, kind in columns.items():
        if kind == "text":
            values = frame[name].astype(object)
            frame[name] = pd.Categorical(values, categories=pd.unique(values))
        else:
            frame[name] = frame[name].astype(float)
    return frame
