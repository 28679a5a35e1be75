"""Rows counted by the values of a few columns, on DuckDB or Spark: the reduction behind pass@k
per task and aggregation per group (or per unit) of a file beyond memory.

``tally(conn, source, keys, sums)`` reads the file with the engine and returns one row per
distinct combination of the ``keys`` columns' cells, in order of first appearance, with the
number of rows (``w``), the first row (``first_rn``) and the sum of each ``sums`` column.
Every key cell comes back as exact text (an id rendered as the in-memory path renders it:
``42`` for the number 42 and 42.0, ``''`` for an empty cell), so the analyses decode the few
distinct values themselves (a binary outcome, an error flag) with the very functions the
in-memory path uses: the statistics that follow see the same counts in every engine.

A sum column is a number in every row (a blank cell or one that is not a number is one
sentence naming the file, column, line and cell, as for the ranking kernels).
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from ..core.errors import DataError
from .duck import FileSource, require


@dataclass(frozen=True)
class Tallied:
    """The engine's answer: ``frame`` has the key columns (named as in the file), ``w``,
    ``first_rn`` and one ``sum:<column>`` per sum column, ordered by ``first_rn``;
    ``rows`` is the file's number of rows; ``describe_rows(rns)`` names rows as the file
    counts them (``line 3``, ``rows 2, 4``)."""
    frame: pd.DataFrame
    rows: int
    describe_rows: object
    path: str
    #: per sum column with negative cells: (how many, the first one's row)
    negatives: dict
    #: ``first_rows(column, cells, limit, skip=None)``: the first rows (``rn``, file order)
    #: whose cell of the key column is one of ``cells``, without those whose cell of column
    #: ``skip[0]`` is one of ``skip[1]`` (one more read of the file; the engine must be open)
    first_rows: object = None
    #: ``repeats(texts, numbers, errored=None)``: the rows whose cells of the ``texts`` columns
    #: (exact text) and ``numbers`` columns (as numbers: ``1`` and ``1.0`` are equal) are
    #: those of another row, as ``(how many rows, the first 5 rows' rn)``; ``errored`` =
    #: ``(column, cells, mode, zeroed)``: rows whose cell of that column is one of ``cells``
    #: are left out (``exclude``) or have their ``zeroed`` number columns set to 0
    #: (``failure``), as the in-memory reading treats errored rows.  One more read of the
    #: file (a grouping); the engine must be open.
    repeats: object = None

    def refuse_negative(self, column: str) -> None:
        """The in-memory reading's refusal of a negative number where none may be."""
        if column in self.negatives:
            count, rn = self.negatives[column]
            raise DataError(f"Column '{column}' of file '{self.path}' must hold numbers of at "
                            f"least 0, but {count} {'row does' if count == 1 else 'rows do'} "
                            f"not (the first on {self.describe_rows([rn])}).")

    def lines(self, rns) -> list[str]:
        """Each row's own name (``line 7``), in the order given."""
        return [self.describe_rows([rn]) for rn in rns]


def tally(conn, source: FileSource, keys: list[str], sums: list[str] = ()) -> Tallied:
    """Count the rows of ``source`` per distinct key (DuckDB or Spark by ``conn``'s dialect)."""
    keys, sums = list(dict.fromkeys(keys)), list(dict.fromkeys(sums))
    if conn.dialect.name == "spark":
        return _spark(conn, source, keys, sums)
    return _duckdb(conn, source, keys, sums)


def _names(keys, sums):
    return ([f"k{i}" for i in range(len(keys))], [f"s{j}" for j in range(len(sums))])


def _finish(frame: pd.DataFrame, keys, sums, describe, path: str, first_rows,
            repeats=None) -> Tallied:
    knames, snames = _names(keys, sums)
    frame = frame.sort_values("first_rn", kind="stable").reset_index(drop=True)
    out = pd.DataFrame({key: frame[k].astype(object).to_numpy() for key, k in zip(keys, knames)})
    out["w"] = frame["w"].to_numpy(dtype="int64")
    out["first_rn"] = frame["first_rn"].to_numpy(dtype="int64")
    negatives = {}
    for column, s in zip(sums, snames):
        out[f"sum:{column}"] = frame[s].to_numpy(dtype=float)
        count = int(frame[f"neg_{s}"].sum())
        if count:
            negatives[column] = (count, int(frame[f"negrn_{s}"].min()))
    return Tallied(out, int(out["w"].sum()), describe, path, negatives, first_rows, repeats)


def _duckdb(conn, source: FileSource, keys, sums) -> Tallied:
    from .duck import column_types, id_text, number
    from .ranking_input import _diagnose

    types = column_types(conn, source)
    require(source.path, list(types), keys + sums)
    knames, snames = _names(keys, sums)
    select = [f"{id_text(c, types[c])} AS {k}" for c, k in zip(keys, knames)]
    checks = []
    for c, s in zip(sums, snames):
        value, _bad = number(c, types[c], source.decimal)
        select.append(f"{value} AS {s}")
        checks.append(f"count(*) FILTER (WHERE {s} IS NULL) AS bad_{s}")
        checks.append(f"count(*) FILTER (WHERE {s} < 0) AS neg_{s}")
        checks.append(f"min(CASE WHEN {s} < 0 THEN rn END) AS negrn_{s}")
    group = ", ".join(knames)
    aggregate = ", ".join(["count(*) AS w", "min(rn) AS first_rn"]
                          + [f"sum({s}) AS {s}" for s in snames] + checks)
    frame = conn.frame(f"SELECT {group}{', ' if group else ''}{aggregate} FROM "
                       f"(SELECT rn, {', '.join(select) or '1 AS one'} FROM ({source.scan()})) "
                       + (f"GROUP BY {group}" if group else ""))
    for c, s in zip(sums, snames):
        if int(frame[f"bad_{s}"].sum()):
            _diagnose(conn, source, c, types[c], allow_blank=False)

    def first_rows(column: str, cells, limit: int = 5, skip=None) -> list[int]:
        where, params = f"{id_text(column, types[column])} IN (SELECT unnest(?))", [[str(c) for c in cells]]
        if skip is not None:  # (column, cells): rows left out
            where += f" AND {id_text(skip[0], types[skip[0]])} NOT IN (SELECT unnest(?))"
            params.append([str(c) for c in skip[1]])
        got = conn.rows(f"SELECT rn FROM ({source.scan()}) WHERE {where} ORDER BY rn "
                        f"LIMIT {int(limit)}", params)
        return [int(r[0]) for r in got]

    def repeats(texts, numbers, errored=None) -> tuple[int, list[int]]:
        cols = [f"{id_text(c, types[c])} AS t{i}" for i, c in enumerate(texts)]
        where = ""
        if errored is not None:
            column, cells, mode, zeroed = errored
            conn.run("CREATE OR REPLACE TEMP TABLE errored_cells AS SELECT unnest(?) AS cell",
                     [[str(c) for c in cells]])
            bad = f"{id_text(column, types[column])} IN (SELECT cell FROM errored_cells)"
            if mode == "exclude":
                where = f" WHERE NOT ({bad})"
        for i, c in enumerate(numbers):
            value = number(c, types[c], source.decimal)[0]
            if errored is not None and mode != "exclude" and c in zeroed:
                value = f"CASE WHEN {bad} THEN 0.0 ELSE {value} END"
            cols.append(f"{value} AS n{i}")
        key = ", ".join([f"t{i}" for i in range(len(texts))] + [f"n{i}" for i in range(len(numbers))])
        reading = f"SELECT rn, {', '.join(cols)} FROM ({source.scan()}){where}"
        conn.run(f"CREATE OR REPLACE TEMP TABLE repeated_keys AS SELECT {key}, count(*) AS c "
                 f"FROM ({reading}) GROUP BY {key} HAVING count(*) > 1")
        total = int(conn.rows("SELECT coalesce(sum(c), 0) FROM repeated_keys")[0][0])
        if not total:
            return 0, []
        on = " AND ".join(f"r.{k} IS NOT DISTINCT FROM k.{k}" for k in key.split(", "))
        got = conn.rows(f"SELECT r.rn FROM ({reading}) r JOIN repeated_keys k ON {on} "
                        f"ORDER BY r.rn LIMIT 5")
        return total, [int(r[0]) for r in got]

    return _finish(frame, keys, sums, source.describe_rows, source.path, first_rows, repeats)


def _spark(conn, source: FileSource, keys, sums) -> Tallied:
    from pyspark.sql import functions as F

    from . import spark_input as si

    src = si.read(conn, source)
    require(source.path, [c for c in src.types if c != "rn"], keys + sums)
    knames, snames = _names(keys, sums)
    t = src.types
    cols = [F.col("rn")] + [si.id_text(c, t[c]).alias(k) for c, k in zip(keys, knames)]
    cols += [si.number(c, t[c], source.decimal)[0].alias(s) for c, s in zip(sums, snames)]
    aggs = [F.count(F.lit(1)).alias("w"), F.min("rn").alias("first_rn")]
    aggs += [F.sum(s).alias(s) for s in snames]
    aggs += [F.sum(F.when(F.col(s).isNull(), 1).otherwise(0)).alias(f"bad_{s}") for s in snames]
    aggs += [F.sum(F.when(F.col(s) < 0, 1).otherwise(0)).alias(f"neg_{s}") for s in snames]
    aggs += [F.min(F.when(F.col(s) < 0, F.col("rn"))).alias(f"negrn_{s}") for s in snames]
    reading = src.frame.select(*cols)
    grouped = reading.groupBy(*knames).agg(*aggs) if knames else reading.agg(*aggs)
    frame = grouped.toPandas()
    for c, s in zip(sums, snames):
        if int(frame[f"bad_{s}"].sum()):
            si._diagnose(src, c, allow_blank=False)

    def first_rows(column: str, cells, limit: int = 5, skip=None) -> list[int]:
        rows = src.frame.where(si.id_text(column, t[column]).isin([str(c) for c in cells]))
        if skip is not None:  # (column, cells): rows left out
            rows = rows.where(~si.id_text(skip[0], t[skip[0]]).isin([str(c) for c in skip[1]]))
        got = rows.orderBy("rn").select("rn").limit(int(limit)).collect()
        return [int(r[0]) for r in got]

    def repeats(texts, numbers, errored=None) -> tuple[int, list[int]]:
        from pyspark.sql import Window

        reading = src.frame
        cols = [F.col("rn")] + [si.id_text(c, t[c]).alias(f"t{i}") for i, c in enumerate(texts)]
        bad = None
        if errored is not None:
            column, cells, mode, zeroed = errored
            bad = si.id_text(column, t[column]).isin([str(c) for c in cells])
            if mode == "exclude":
                reading, bad = reading.where(~bad), None
        for i, c in enumerate(numbers):
            value = si.number(c, t[c], source.decimal)[0]
            if bad is not None and c in zeroed:
                value = F.when(bad, F.lit(0.0)).otherwise(value)
            cols.append(value.alias(f"n{i}"))
        key = [f"t{i}" for i in range(len(texts))] + [f"n{i}" for i in range(len(numbers))]
        counted = reading.select(*cols).withColumn("c", F.count(F.lit(1)).over(
            Window.partitionBy(*key)))
        repeated = counted.where(F.col("c") > 1)
        total = int(repeated.count())
        if not total:
            return 0, []
        return total, [int(r[0]) for r in repeated.orderBy("rn").select("rn").limit(5).collect()]

    return _finish(frame, keys, sums, src.describe_rows, source.path, first_rows, repeats)
