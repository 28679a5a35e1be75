"""The ranking kernels' input relations ``run_in`` and ``qrels_in`` (see
:mod:`workbench.engines.ranking_sql`), from a file DuckDB reads itself or from arrays already
in memory.  Numbers are cast here, with one sentence naming the file, column, line and cell
for a cell that is not a number (or is empty where a number is needed)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..core.errors import DataError
from .duck import Connection, FileSource, blank, column_types, id_text, number, quote_ident

NAN = "'NaN'::DOUBLE"


@dataclass(frozen=True)
class RunColumns:
    """The run's columns: ``order`` is the score column, or the rank column when ``rank``."""
    query: str
    doc: str
    order: str
    rank: bool = False
    relevance: str | None = None
    system: str | None = None


def _require(source: FileSource, types: dict, names) -> None:
    missing = [n for n in names if n and n not in types]
    if missing:
        raise DataError(f"File '{source.name}' has no column {', '.join(map(repr, missing))} "
                        f"(its columns are: {', '.join(types)}).")


def _value(column: str, dtype: str, decimal: str, *, negate: bool = False) -> str:
    """SQL: the number; NULL for an empty cell, NaN for a cell that is not a number."""
    value, bad = number(column, dtype, decimal)
    sign = "-" if negate else ""
    return f"CASE WHEN {bad} THEN {NAN} ELSE {sign}({value}) END"


def run_from_file(conn: Connection, source: FileSource, cols: RunColumns) -> None:
    """``run_in`` from the file, the cells checked."""
    types = column_types(conn, source)
    _require(source, types, [cols.query, cols.doc, cols.order, cols.relevance, cols.system])
    sys_expr = id_text(cols.system, types[cols.system]) if cols.system else "''"
    g_expr = (_value(cols.relevance, types[cols.relevance], source.decimal)
              if cols.relevance else "NULL::DOUBLE")
    # Parquet is read again by each step (a column scan is cheap); CSV is parsed once into a
    # table of the database file in the spill folder (compressed, paged within the limit)
    what = "TABLE" if source.kind == "csv" else "VIEW"
    conn.run(f"""CREATE OR REPLACE {what} run_in AS
SELECT rn, {sys_expr} AS sys, {id_text(cols.query, types[cols.query])} AS q,
  {id_text(cols.doc, types[cols.doc])} AS d,
  {_value(cols.order, types[cols.order], source.decimal, negate=cols.rank)} AS o,
  {g_expr} AS g
FROM ({source.scan()})""")
    bad_o, bad_g = conn.execute(
        "SELECT count(*) FILTER (WHERE o IS NULL OR isnan(o)), "
        "count(*) FILTER (WHERE isnan(g)) FROM run_in").fetchall()[0]
    if bad_o:
        _diagnose(conn, source, cols.order, types[cols.order], allow_blank=False)
    if bad_g:
        _diagnose(conn, source, cols.relevance, types[cols.relevance], allow_blank=True)


def qrels_from_file(conn: Connection, source: FileSource, query: str, doc: str,
                    relevance: str) -> None:
    """``qrels_in`` from the file, the grades checked (none may be empty)."""
    types = column_types(conn, source)
    _require(source, types, [query, doc, relevance])
    what = "TABLE" if source.kind == "csv" else "VIEW"
    conn.run(f"""CREATE OR REPLACE {what} qrels_in AS
SELECT rn, {id_text(query, types[query])} AS q, {id_text(doc, types[doc])} AS d,
  {_value(relevance, types[relevance], source.decimal)} AS g
FROM ({source.scan()})""")
    bad = conn.execute("SELECT count(*) FILTER (WHERE g IS NULL OR isnan(g)) FROM qrels_in"
                       ).fetchall()[0][0]
    if bad:
        _diagnose(conn, source, relevance, types[relevance], allow_blank=False)


def _diagnose(conn: Connection, source: FileSource, column: str, dtype: str, *,
              allow_blank: bool) -> None:
    """Raise the sentence for the column's bad cells (a second read, on the error path only)."""
    c = quote_ident(column)
    _, bad = number(column, dtype, source.decimal)
    where = f"Column '{column}' of file '{source.path}'"
    rows = conn.execute(f"SELECT rn, CAST({c} AS VARCHAR) FROM ({source.scan()}) WHERE {bad} "
                        f"ORDER BY rn LIMIT 5").fetchall()
    if rows:
        count = conn.execute(f"SELECT count(*) FROM ({source.scan()}) WHERE {bad}").fetchall()[0][0]
        shown = ", ".join(f"'{text}' ({source.describe_rows([rn])})" for rn, text in rows)
        more = f" and {count - len(rows)} more" if count > len(rows) else ""
        raise DataError(f"{where} must hold numbers (like 3, 0.25 or 1e-3), but "
                        f"{count} {'row does' if count == 1 else 'rows do'} not: {shown}{more}.")
    if not allow_blank:
        empty = conn.execute(f"SELECT rn FROM ({source.scan()}) WHERE {blank(column, dtype)} "
                             f"ORDER BY rn").fetchnumpy()["rn"]
        cells = "an empty cell" if empty.size == 1 else f"{empty.size} empty cells"
        raise DataError(f"{where} has {cells} ({source.describe_rows(empty)}); expected a "
                        f"number in every row.")


def run_from_arrays(conn: Connection, q, d, order, grade, system=None) -> None:
    """``run_in`` from arrays already checked (ids as text, the ordering value, grades with
    NaN where unjudged)."""
    n = len(order)
    frame = pd.DataFrame({
        "rn": np.arange(1, n + 1, dtype=np.int64),
        "sys": np.asarray(system, dtype=object) if system is not None else np.full(n, "", object),
        "q": np.asarray(q, dtype=object), "d": np.asarray(d, dtype=object),
        "o": np.asarray(order, dtype=float), "g": np.asarray(grade, dtype=float)})
    conn.con.register("run_frame", frame)
    conn.run("CREATE OR REPLACE TABLE run_in AS SELECT rn, sys::VARCHAR AS sys, "
                 "q::VARCHAR AS q, d::VARCHAR AS d, o, CASE WHEN isnan(g) THEN NULL ELSE g END "
                 "AS g FROM run_frame")
    conn.con.unregister("run_frame")


def qrels_from_arrays(conn: Connection, q, d, grade) -> None:
    """``qrels_in`` from arrays already checked."""
    frame = pd.DataFrame({"rn": np.arange(1, len(grade) + 1, dtype=np.int64),
                          "q": np.asarray(q, dtype=object), "d": np.asarray(d, dtype=object),
                          "g": np.asarray(grade, dtype=float)})
    conn.con.register("qrels_frame", frame)
    conn.run("CREATE OR REPLACE TABLE qrels_in AS SELECT rn, q::VARCHAR AS q, "
                 "d::VARCHAR AS d, g FROM qrels_frame")
    conn.con.unregister("qrels_frame")
