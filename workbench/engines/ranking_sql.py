"""The ranking kernels as SQL, written once and rendered for DuckDB and for Spark SQL
(:class:`Dialect`): the per-query table of :func:`workbench.metrics.ranking.rank_metrics`
with the same conventions.

Input relations (temporary tables or views made by :mod:`workbench.engines.ranking_input`
for DuckDB, :mod:`workbench.engines.spark_input` for Spark):

* ``run_in(rn, sys, q, d, o, g)``: one row per retrieved document; ``rn`` the row's number in
  the file (file order: the stable tie policy and the order in which queries are listed),
  ``sys`` the system (``''`` for one), ``q``/``d`` the ids as exact text, ``o`` the ordering
  value (the score, or minus the rank: higher first), ``g`` the run's own grade (NULL when
  unjudged);
* ``qrels_in(rn, q, d, g)`` when a qrels file is given.

Conventions (as the in-memory path, trec_eval's unless stated): judgments are pooled (the
run's grades, one per (query, document), then the qrels override them); a retrieved row
without a judgment has grade 0; the order is ``o`` descending then the document id descending
compared as binary strings (trec_eval; ``stable``: file order; ``pessimistic`` and
``optimistic``: the grade ascending or descending, then file order); binary relevance is
``grade >= threshold``; the gain is the grade (linear) or 2^grade - 1 (exponential), 0 for a
grade <= 0; the discount 1 / log2(rank + 1); the ideal DCG comes from every judged document;
P@k's denominator is k; MRR and MAP use the whole ranking, MAP divided by R.

The two dialects differ only where :class:`Dialect` says: a number literal is a DOUBLE in
both (Spark reads ``1.0`` as a DECIMAL, whose division rounds to 6 places), an anti join's
keyword, the list of distinct values, and a step's result kept as a table (DuckDB) or as a
cached temporary view (Spark).  ``count(*) FILTER (WHERE ...)``, ``bool_or``, ``TRY_CAST``,
``any_value`` (Spark 3.4+), ``log2``, ``pow`` and the window functions are written the same.
A connection (:class:`workbench.engines.duck.Connection`,
:class:`workbench.engines.spark.SparkConnection`) has ``dialect``, ``run(sql)``,
``rows(sql, params)`` (tuples; ``?`` parameters) and ``frame(sql)`` (pandas).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..core.errors import DataError
from ..metrics.ranking import RankingArrays


@dataclass(frozen=True)
class Dialect:
    """What differs between the SQL of DuckDB and of Spark."""
    name: str
    anti_join: str
    distinct_list: str
    #: the number of distinct values in a group (Spark plans ``count(DISTINCT)`` beside other
    #: aggregates with an expand step; the size of the set is one aggregation)
    distinct_count: str
    #: the statements that keep a step's result, ``{name}`` and ``{sql}`` filled in
    create: tuple[str, ...]
    #: a relation read hash-partitioned by ``{key}`` (Spark: both sides of the judgments' join
    #: by query, so that the join, the window and the grouping by query share one shuffle
    #: instead of shuffling by (query, document) and then by query; DuckDB: the table itself)
    clustered: str = "{table}"
    #: the statement that names a step read once (a view), ``{name}`` and ``{sql}`` filled in
    create_view: str = "CREATE OR REPLACE VIEW {name} AS {sql}"
    #: a document retrieved twice found by comparing each row's id with the one before it in
    #: id order, where the join to the judgments already sorts by (query, document) (Spark's
    #: sort-merge join: the comparison costs no sort, where the set of each query's ids cost
    #: 17.7 -> 14.1 s of the kernel on 10M rows, cold, ``local[2]``); else the number of
    #: distinct ids (DuckDB's hash join sorts nothing)
    dup_in_join_order: bool = False
    #: each query's first row number carried through the window's sort (Spark: a run that is
    #: not cached would otherwise be read and parsed a second time for it; 10M rows from a
    #: CSV, cold: 18.7 -> 15.8 s) rather than taken from a grouping of its own joined to the
    #: sums (DuckDB: a hash aggregate is cheaper than a wider sort)
    first_in_window: bool = False

    def num(self, value: float) -> str:
        """A DOUBLE literal (a bare ``1.0`` is a DECIMAL in both engines)."""
        return f"CAST({float(value)!r} AS DOUBLE)"

    def table(self, name: str, sql: str) -> list[str]:
        return [c.format(name=name, sql=sql) for c in self.create]

    def view(self, name: str, sql: str) -> str:
        """A step read once: a view, computed where it is read."""
        return self.create_view.format(name=name, sql=sql)


DUCKDB = Dialect("duckdb", anti_join="ANTI JOIN", distinct_list="list(DISTINCT {})",
                 distinct_count="count(DISTINCT {})", create=("CREATE OR REPLACE TABLE {name} AS {sql}",))
#: Spark: a temporary view, cached (computed once, read by the two kernels that follow)
SPARK = Dialect("spark", anti_join="LEFT ANTI JOIN", distinct_list="collect_set({})",
                distinct_count="size(collect_set({}))", create=("CREATE OR REPLACE TEMP VIEW {name} AS {sql}", "CACHE TABLE {name}"),
                clustered="(SELECT /*+ REPARTITION({key}) */ * FROM {table})",
                create_view="CREATE OR REPLACE TEMP VIEW {name} AS {sql}",
                dup_in_join_order=True, first_in_window=True)


@dataclass(frozen=True)
class EngineRanking:
    """What the analysis needs from an engine: the queries (first appearance: the run, then
    queries only in the qrels), the systems, one :class:`RankingArrays` per system over those
    queries, and the counts of the query-set notes."""
    q_labels: np.ndarray
    sys_labels: list
    arrays: list
    judged_queries: np.ndarray
    any_run: np.ndarray
    unjudged_rows: int
    qrels_only_docs: int
    negative_grades: int
    fractional_grades: int = 0


def _gain(expr: str, gain: str, sql: Dialect) -> str:
    one, zero = sql.num(1), sql.num(0)
    if gain == "exponential":
        return f"(CASE WHEN {expr} > 0 THEN pow({sql.num(2)}, {expr}) - {one} ELSE {zero} END)"
    return f"(CASE WHEN {expr} > 0 THEN {expr} ELSE {zero} END)"


def check_duplicates(conn, describe, *, has_system: bool, has_qrels: bool,
                     run: bool = True) -> None:
    """A (system, query, document) twice in the run, or a (query, document) twice in the
    qrels: one sentence naming the value and its rows (``describe(which, row)``, the row being
    the key's values, the count and the first row numbers).  ``run=False``: the qrels only
    (:func:`rank_sql` finds a repeated run row with the per-query sums, and then calls this)."""
    keys = "sys, q, d" if has_system else "q, d"
    tables = ([("run", "run_in", keys)] if run else []) + \
        ([("qrels", "qrels_in", "q, d")] if has_qrels else [])
    for which, table, key in tables:
        row = conn.rows(f"SELECT {key}, count(*) FROM {table} GROUP BY {key} "
                        f"HAVING count(*) > 1 LIMIT 1")
        row = row[0] if row else None
        if row is not None:  # the error path: the rows of that key
            names = [k.strip() for k in key.split(",")]
            rns = conn.rows(f"SELECT rn FROM {table} WHERE "
                            + " AND ".join(f"{n} = ?" for n in names) + " ORDER BY rn LIMIT 5",
                            list(row[:-1]))
            describe(which, (*row, [r[0] for r in rns]))


def _judgments(conn, *, has_system: bool, has_qrels: bool, has_grade: bool) -> None:
    """``judg(q, d, g, from_qrels[, rn])``: the pooled judgments (``rn``: a qrels row's number,
    with a qrels file); kept as a table when the ranking
    joins them too (a qrels file, or grades pooled over systems), else a view read once by
    the ideal rankings (at 100M rows, writing the run's graded rows to a table took 3 s)."""
    sql = conn.dialect
    run_j = "SELECT q, d, g FROM run_in WHERE false"
    if has_grade:
        if has_system:
            clash = conn.rows(
                f"SELECT q, d, {sql.distinct_list.format('g')}, min(rn) FROM run_in "
                f"WHERE g IS NOT NULL GROUP BY q, d HAVING count(DISTINCT g) > 1 LIMIT 1")
            clash = clash[0] if clash else None
            if clash is not None:
                raise DataError(
                    f"The run gives document '{clash[1]}' of query '{clash[0]}' different "
                    f"relevance grades ({', '.join(f'{g:g}' for g in sorted(clash[2]))}); a "
                    f"judgment must be the same in every row (or give the grades in a qrels "
                    f"file).")
            run_j = "SELECT q, d, any_value(g) AS g FROM run_in WHERE g IS NOT NULL GROUP BY q, d"
        else:
            run_j = "SELECT q, d, g FROM run_in WHERE g IS NOT NULL"
    if has_qrels:
        select = (f"SELECT q, d, g, true AS from_qrels, rn FROM qrels_in UNION ALL "
                  f"SELECT r.q, r.d, r.g, false, CAST(NULL AS BIGINT) FROM ({run_j}) r "
                  f"{sql.anti_join} qrels_in j ON r.q = j.q AND r.d = j.d")
    else:
        select = f"SELECT q, d, g, false AS from_qrels FROM ({run_j}) r"
    if not (has_qrels or has_system):
        conn.run(sql.view("judg", select))
        return
    for statement in sql.table("judg", select):
        conn.run(statement)


def _per_query_sql(sql: Dialect, ks, gain: str, threshold: float, ties: str, *,
                   has_system: bool, has_qrels: bool) -> str:
    """One row per (system, query) of the run: the sums every metric needs.

    The window's sort is most of the work, so only what the sums need goes through it: the
    system only when there are several (a constant partition key costs a sort key), whether a
    judgment came from the qrels only when there is a qrels file, and the row number only when
    the order uses it or the dialect carries it (:attr:`Dialect.first_in_window`; else the first
    row of each query comes from a grouping of its own, joined to the sums: a hash aggregate
    instead of a sort payload)."""
    t, one, zero = sql.num(threshold), sql.num(1), sql.num(0)
    sys_col = "r.sys, " if has_system else ""
    # one system joined to the judgments: the rows come out of Spark's join in (query, document)
    # order, so a repeated document is the row after its twin (several systems: their rows of
    # a (query, document) interleave, and the set of ids is counted)
    dup_lag = sql.dup_in_join_order and has_qrels and not has_system
    if has_qrels or has_system:
        qrels_col = ", coalesce(j.from_qrels, false) AS from_qrels" if has_qrels else ""
        dup_col = (", coalesce(r.d = lag(r.d) OVER (PARTITION BY r.q ORDER BY r.d), false) AS dup"
                   if dup_lag else "")
        graded = (f"SELECT r.rn, {sys_col}r.q, r.d, r.o, coalesce(j.g, {zero}) AS gr, "
                  f"j.g IS NOT NULL AS judged{qrels_col}{dup_col} "
                  f"FROM {sql.clustered.format(table='run_in', key='q')} r LEFT JOIN "
                  f"{sql.clustered.format(table='judg', key='q')} j ON r.q = j.q AND r.d = j.d")
    else:
        graded = (f"SELECT rn, q, d, o, coalesce(g, {zero}) AS gr, g IS NOT NULL AS judged "
                  "FROM run_in")
    order = {"trec_eval": "o DESC, d DESC",
             "pessimistic": "o DESC, gr ASC, rn ASC",   # relevant documents last among ties
             "optimistic": "o DESC, gr DESC, rn ASC",   # first
             }.get(ties, "o DESC, rn ASC")               # stable: file order
    rn_carried = "rn" in order or sql.first_in_window
    key = "sys, q" if has_system else "q"
    window = f"PARTITION BY {key} ORDER BY {order}"
    rel = f"(gr >= {t})"
    cut = ",\n  ".join(
        f"count(*) FILTER (WHERE {rel} AND r <= {k}) AS hits_{k}, "
        f"coalesce(sum({_gain('gr', gain, sql)} / log2(r + {one})) FILTER (WHERE r <= {k}), "
        f"{zero}) AS dcg_{k}" for k in ks)
    payload = ", ".join((["sys"] if has_system else []) + ["q", "d"] + (["rn"] if rn_carried else [])
                        + ["gr", "judged"] + (["from_qrels"] if has_qrels else [])
                        + (["dup"] if dup_lag else []) + ["o"])
    from_qrels = ("count(*) FILTER (WHERE from_qrels)" if has_qrels
                  else "CAST(0 AS BIGINT)")
    first = "min(rn) AS first_rn, " if rn_carried else ""
    sys_out = "sys" if has_system else "'' AS sys"
    docs = ("count(*) - count(*) FILTER (WHERE dup)" if dup_lag
            else sql.distinct_count.format("d"))
    sums = f"""
WITH graded AS ({graded}),
ranked AS (
  SELECT {payload}, row_number() OVER ({window}) AS r,
    lag(o) OVER ({window}) AS prev,
    sum(CASE WHEN {rel} THEN 1 ELSE 0 END) OVER ({window} ROWS BETWEEN UNBOUNDED PRECEDING
                                                AND CURRENT ROW) AS nrel
  FROM graded
)
SELECT {sys_out}, q, {first}count(*) AS retrieved,
  {docs} AS docs,
  coalesce(bool_or(o = prev), false) AS tied,
  coalesce(bool_or(o <> prev AND TRY_CAST(o AS FLOAT) = TRY_CAST(prev AS FLOAT)), false)
    AS near_tied, count(*) FILTER (WHERE NOT judged) AS unjudged,
  {from_qrels} AS from_qrels,
  {cut},
  coalesce(max({one} / r) FILTER (WHERE {rel}), {zero}) AS rr,
  coalesce(sum(nrel / r) FILTER (WHERE {rel}), {zero}) AS ap_sum
FROM ranked GROUP BY {key}"""
    if rn_carried:
        return sums
    return (f"SELECT p.*, f.first_rn FROM ({sums}) p JOIN (SELECT {key}, min(rn) AS first_rn "
            f"FROM run_in GROUP BY {key}) f USING ({key})")


def _ideal_sql(sql: Dialect, ks, gain: str, threshold: float, has_qrels: bool = False) -> str:
    """One row per judged query: R, the negative grades, the ideal DCG at each k (only
    judgments with a positive gain add to it); with a qrels file, also the query's first row
    in the qrels and its number of rows there (``n`` 0: judged by the run's grades only)."""
    t, one, zero = sql.num(threshold), sql.num(1), sql.num(0)
    cut = ",\n  ".join(
        f"coalesce(sum(ig / log2(jr + {one})) FILTER (WHERE jr <= {k} AND ig > 0), {zero}) "
        f"AS idcg_{k}" for k in ks)
    qrels = (", min(rn) FILTER (WHERE from_qrels) AS first_rn, "
             "count(*) FILTER (WHERE from_qrels) AS n" if has_qrels else "")
    return f"""
SELECT q, count(*) FILTER (WHERE g >= {t}) AS relevant,
  count(*) FILTER (WHERE g < 0) AS negative,
  count(*) FILTER (WHERE g <> floor(g)) AS fractional, {cut}{qrels}
FROM (SELECT q, g, {_gain('g', gain, sql)} AS ig,{" rn, from_qrels," if has_qrels else ""}
             row_number() OVER (PARTITION BY q ORDER BY {_gain('g', gain, sql)} DESC) AS jr
      FROM judg) j
GROUP BY q"""


def rank_sql(conn, *, ks, gain: str, threshold: float, ties: str, has_system: bool,
             has_qrels: bool, has_grade: bool, progress=None, duplicate=None) -> EngineRanking:
    """Run the kernels on ``run_in`` (and ``qrels_in``) and gather the per-query arrays.  A
    document retrieved twice for a query (fewer distinct documents than rows) is the sentence
    of :func:`check_duplicates` (``duplicate``: its ``describe``)."""
    def step(fraction: float, text: str) -> None:
        if progress is not None:
            progress.check_cancelled()
            progress.advance(fraction, text)

    step(0.45, "pooling the judgments")
    _judgments(conn, has_system=has_system, has_qrels=has_qrels, has_grade=has_grade)
    step(0.55, "ranking every query")
    per = conn.frame(_per_query_sql(conn.dialect, ks, gain, threshold, ties,
                                    has_system=has_system, has_qrels=has_qrels))
    if duplicate is not None and (per["retrieved"].to_numpy() != per["docs"].to_numpy()).any():
        check_duplicates(conn, duplicate, has_system=has_system, has_qrels=False)
    step(0.8, "the ideal rankings")
    ideal = conn.frame(_ideal_sql(conn.dialect, ks, gain, threshold, has_qrels))
    qrels_only, qrels_first = 0, None
    if has_qrels:  # the queries of the qrels, from the grouping of the ideal rankings
        qrels_first = ideal.loc[ideal["n"].to_numpy() > 0, ["q", "first_rn", "n"]]
        if has_system:  # a judged document retrieved by several systems counts once
            qrels_only = int(conn.rows(
                f"SELECT count(*) FROM qrels_in j {conn.dialect.anti_join} "
                f"(SELECT DISTINCT q, d FROM run_in) r ON j.q = r.q AND j.d = r.d")[0][0])
        else:  # each (query, document) is retrieved at most once (duplicates are refused)
            qrels_only = int(qrels_first["n"].sum() - per["from_qrels"].sum())
    step(0.9, "gathering the per-query table")
    return _gather(per, ideal, qrels_first, ks, has_system, qrels_only)


def _gather(per: pd.DataFrame, ideal: pd.DataFrame, qrels_first: pd.DataFrame | None, ks,
            has_system: bool, qrels_only: int) -> EngineRanking:
    """The engine's rows as the in-memory path's arrays (queries in order of first
    appearance in the run, then the qrels-only queries in the qrels' order)."""
    run_first = per.groupby("q", sort=False)["first_rn"].min().sort_values(kind="stable")
    q_labels = run_first.index.to_numpy(dtype=object)
    if qrels_first is not None:
        only = qrels_first[~qrels_first["q"].isin(run_first.index)]
        only = only.sort_values("first_rn", kind="stable")["q"].to_numpy(dtype=object)
        q_labels = np.concatenate([q_labels, only])
    Q = q_labels.size
    index = pd.Index(q_labels)
    jpos = index.get_indexer(ideal["q"])
    relevant = np.zeros(Q)
    relevant[jpos] = ideal["relevant"].to_numpy(dtype=float)
    judged_queries = np.zeros(Q, dtype=bool)
    judged_queries[jpos] = True
    idcg = {}
    for k in ks:
        idcg[k] = np.zeros(Q)
        idcg[k][jpos] = ideal[f"idcg_{k}"].to_numpy(dtype=float)
    if has_system:
        sys_first = per.groupby("sys", sort=False)["first_rn"].min().sort_values(kind="stable")
        sys_labels = [str(s) for s in sys_first.index]
    else:
        sys_labels = [None]
    any_run = np.zeros(Q, dtype=bool)
    any_run[index.get_indexer(run_first.index)] = True
    arrays = []
    for label in sys_labels:
        part = per[per["sys"] == label] if has_system else per
        arrays.append(_arrays(part, index, Q, ks, relevant, idcg))
    return EngineRanking(q_labels=q_labels, sys_labels=sys_labels, arrays=arrays,
                         judged_queries=judged_queries, any_run=any_run,
                         unjudged_rows=int(per["unjudged"].sum()), qrels_only_docs=qrels_only,
                         negative_grades=int(ideal["negative"].sum()),
                         fractional_grades=int(ideal["fractional"].sum()))


def _arrays(part: pd.DataFrame, index: pd.Index, Q: int, ks, relevant: np.ndarray,
            idcg: dict) -> RankingArrays:
    """One system's rows as :class:`RankingArrays` over every query (0 where not retrieved)."""
    pos = index.get_indexer(part["q"])

    def spread(column: str, dtype=float) -> np.ndarray:
        out = np.zeros(Q, dtype=dtype)
        out[pos] = part[column].to_numpy(dtype=dtype)
        return out

    R = relevant
    precision, recall, hit, ndcg = {}, {}, {}, {}
    with np.errstate(invalid="ignore", divide="ignore"):
        for k in ks:
            hits = spread(f"hits_{k}")
            precision[k] = hits / k
            recall[k] = np.where(R > 0, hits / R, 0.0)
            hit[k] = (hits > 0).astype(float)
            ndcg[k] = np.where(idcg[k] > 0, spread(f"dcg_{k}") / idcg[k], 0.0)
        ap = np.where(R > 0, spread("ap_sum") / R, 0.0)
    return RankingArrays(relevant=R, retrieved=spread("retrieved", np.int64),
                         precision=precision, recall=recall, hit=hit, ndcg=ndcg,
                         rr=spread("rr"), ap=ap, tied=spread("tied", bool),
                         near_tied=spread("near_tied", bool))
