"""Ranking analysis: P@k, R@k, hit@k, nDCG@k, MRR@k, MRR and MAP from a long run table.

The run has one row per retrieved (query, document) with a score (higher first) or a rank
(1 first), optionally a system column and a relevance grade; a separate qrels file gives the
judgments (judged documents never retrieved count too); a run's relevance column named with
``--relevance`` is pooled with it (the qrels' grade wins), across systems: a document judged
in any row counts as judged for its query.
Queries that are judged (in the qrels) but that a system did not retrieve for score 0 for
that system, as ``trec_eval -c`` does.  Queries that were retrieved but that have no judgment
at all are left out of every mean by default, as trec_eval does (``unjudged='skip'``), or kept
and scored 0 (``unjudged='zero'``); both are counted in a note.  The no-relevant policy then
applies to the judged queries whose judgments are all below the relevance threshold.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..core.errors import OptionError
from ..core.numbers import of_total, plural, verb
from ..core.progress import NULL_PROGRESS
from ..core.result import AnalysisResult, Table, record, signature
from ..engines import ENGINES
from ..io import LoadedTable
from ..metrics import headline_ci as hc
from ..metrics.ranking import GAINS, rank_metrics, ranking_order
from . import _intervals
from ._last_run import LastRun
from ._common import Resolver, base_signature, parse_ks
from ._ranking_read import (_QRELS_CACHE, _Coded, _Columns, _Judgments, _Run, _code_ids,  # noqa: F401
                            _columns, _joint_codes, _judgments, _mean, _member, _one_grade_per_pair,
                            _plural, _qrels_columns, _read_run, _subset, _tie_breaker, load_qrels)

NAME = "ranking"
TITLE = "Ranking metrics"
#: Computes a file read page by page (beyond the memory budget) with an engine.
LARGE_FILES = True
TIES = ("trec_eval", "stable", "pessimistic", "optimistic")
NO_RELEVANT = ("zero", "skip")
UNJUDGED = ("skip", "zero")


@dataclass(frozen=True)
class Options:
    query: str | None = None
    doc: str | None = None
    score: str | None = None
    rank: str | None = None
    relevance: str | None = None
    system: str | None = None
    qrels: str | None = None
    ks: tuple[int, ...] = (1, 3, 5, 10)
    #: nDCG gain: linear (grade; trec_eval) or exponential (2^grade - 1)
    gain: str = "linear"
    #: tie policy: trec_eval (score desc, then doc id desc), stable (score desc, file order),
    #: pessimistic (relevant documents last among equal scores) or optimistic (first)
    ties: str = "trec_eval"
    #: queries with no relevant document: zero (kept, scored 0) or skip (left out, counted)
    no_relevant: str = "zero"
    #: retrieved queries without any judgment: skip (left out, as trec_eval) or zero (scored 0)
    unjudged: str = "skip"
    #: binary metrics count a document relevant when its grade >= this
    relevance_threshold: float = 1.0
    #: bootstrap resamples and seed of the headline intervals (over queries)
    ci_resamples: int = hc.RESAMPLES
    ci_seed: int = hc.SEED
    #: the headline intervals' bootstrap over queries: multinomial (numpy's stream of the seed)
    #: or poisson-hash (weights hashed from the query id, the same in numpy, DuckDB and Spark)
    ci_bootstrap: str = "multinomial"
    #: per-query table: auto (memory within the memory budget, else DuckDB), memory, duckdb
    #: or spark (never chosen by auto)
    engine: str = "auto"
    #: the Spark engine's master: local[N], spark://host:7077, yarn...
    spark_master: str = "local[2]"


def _check(options: Options) -> tuple[int, ...]:
    if options.gain not in GAINS:
        raise OptionError(f"`gain` must be one of {', '.join(GAINS)}; got gain={options.gain!r}.")
    if options.ties not in TIES:
        raise OptionError(f"`ties` must be one of {', '.join(TIES)}; got ties={options.ties!r}.")
    if options.no_relevant not in NO_RELEVANT:
        raise OptionError(f"`no_relevant` must be one of {', '.join(NO_RELEVANT)}; "
                          f"got no_relevant={options.no_relevant!r}.")
    if options.unjudged not in UNJUDGED:
        raise OptionError(f"`unjudged` must be one of {', '.join(UNJUDGED)}; "
                          f"got unjudged={options.unjudged!r}.")
    if options.engine not in ENGINES:
        raise OptionError(f"`engine` must be one of {', '.join(ENGINES)}; "
                          f"got engine={options.engine!r}.")
    if not str(options.spark_master or "").strip():
        raise OptionError("`spark_master` must name a Spark master (local[2], "
                          "spark://host:7077, yarn...); got an empty one.")
    if not np.isfinite(options.relevance_threshold):
        raise OptionError("`relevance_threshold` must be a number.")
    hc.check_resamples(options.ci_resamples, options.ci_seed)
    if options.ci_bootstrap not in _intervals.BOOTSTRAPS:
        raise OptionError(f"`ci_bootstrap` must be one of {', '.join(_intervals.BOOTSTRAPS)}; "
                          f"got ci_bootstrap={options.ci_bootstrap!r}.")
    return parse_ks(options.ks)


check_options = _check  # the command line checks every option before reading the input


def run(table: LoadedTable, options: Options = Options(), progress=NULL_PROGRESS) -> AnalysisResult:
    if getattr(table, "large", None) is not None:  # read page by page: the engine reads it whole
        return _run_large(table, options, progress)
    return _run(table, options, progress)


def _run_large(table: LoadedTable, options: Options, progress) -> AnalysisResult:
    """A file the window reads page by page (:mod:`workbench.engines.paged`): DuckDB (or
    Spark when asked) reads the whole file; ``table`` holds its first rows (the columns)."""
    from . import _engine

    got = _engine.of_large(table, options, TITLE)
    return _run(table, options, progress, source=got.source, choice=got.choice)


def run_unloaded(paths, options: Options, progress=NULL_PROGRESS) -> AnalysisResult | None:
    """The command line's entry before any file is loaded: DuckDB reads a CSV or Parquet run
    itself with ``engine='duckdb'``, or with ``'auto'`` when the file is over the memory budget
    (:mod:`workbench.engines.budget`); Spark with ``engine='spark'``.  ``None``: load the file
    and call :func:`run`."""
    from . import _engine

    _check(options)
    got = _engine.unloaded(paths, options, spark_trec=True)
    if got is None:
        return None  # the loader reads it (and says what is wrong with a path)
    if got.source.kind == "trec":  # the columns of the format, as when the file is loaded
        from ..io.formats import with_roles

        options, _ = with_roles(options, got.preview)
    return _run(got.preview, options, progress, source=got.source, choice=got.choice)


def _run(table: LoadedTable, options: Options, progress, source=None,
         choice=None) -> AnalysisResult:
    """The analysis; with ``source`` (a file DuckDB reads) ``table`` holds its first rows only."""
    ks = _check(options)
    res = Resolver(table)
    cols = _columns(table, options, res)
    notes = list(res.notes)
    if cols.unused_relevance:
        notes.append(f"The run's column '{cols.unused_relevance}' looks like relevance grades "
                     f"and was not used: the qrels file judges, as trec_eval does (name the "
                     f"column with --relevance to pool its grades with the qrels).")
    qcols = _qrels_columns(options, cols, on_file=source is not None)
    if qcols is not None and qcols.note(os.path.basename(options.qrels)):
        notes.append(qcols.note(os.path.basename(options.qrels)))
    if source is not None or options.engine in ("duckdb", "spark"):
        from . import ranking_engines as eng

        engine = "spark" if options.engine == "spark" else "duckdb"
        progress.advance(0.05, "reading the run")
        if source is None:
            ranked, conn = eng.on_table(table, _read_run(table, options, cols), cols, options,
                                        ks, progress, engine)
        else:
            ranked, conn = eng.on_file(source, cols, options, ks, progress, engine, qcols)
        notes.append(eng.engine_note(engine, conn, choice))
    else:
        ranked, engine = _memory_ranked(table, options, cols, ks, progress), "memory"
        if options.engine == "auto":
            notes.append(_auto_memory_note())
    progress.check_cancelled()
    records, per_query, summary_rows = [], [], []
    q_labels = ranked.q_labels
    query_set = ranked.judged_queries | (ranked.any_run if options.unjudged == "zero" else False)
    for label, arr in zip(ranked.sys_labels, ranked.arrays):
        recs, sys_notes, row, frame = _system_result(arr, label, query_set, ks, options, cols,
                                                     q_labels)
        records += recs
        notes += sys_notes
        summary_rows.append(row)
        per_query.append(frame)
    notes += _query_set_notes(options, q_labels, ranked.any_run, ranked.judged_queries, ranked,
                              qrels=bool(options.qrels))
    if options.qrels:  # ids that do not meet come first: they explain a ranking of zeros
        notes[:0] = _id_notes(ranked)
    notes[:0] = _empty_id_notes(ranked, cols, bool(options.qrels))
    sig = _signature(options, ks, cols)
    sig["engine"] = engine
    tables = _tables(summary_rows, per_query)
    if cols.system and len(ranked.sys_labels) > 1:  # paired tests per metric: analyses/paired.py
        from .paired import ranking_systems_compared
        sc_table, sc_records, sc_notes, sig["systems-compared"] = ranking_systems_compared(
            tables[1].frame, ks, options.no_relevant)
        tables, records, notes = tables + (sc_table,), records + sc_records, notes + sc_notes
    return AnalysisResult(NAME, signature(sig), tuple(records), tables, tuple(notes),
                          table.path if source is None else source.path)


@dataclass(frozen=True)
class _Ranked:
    """An engine's answer: the queries and systems, one metric-array set per system, and the
    counts of the query-set notes (the DuckDB engine's is :class:`EngineRanking`)."""
    q_labels: object
    sys_labels: list
    arrays: list
    judged_queries: np.ndarray
    any_run: np.ndarray
    unjudged_rows: int
    qrels_only_docs: int
    negative_grades: int
    fractional_grades: int = 0


def _memory_ranked(table: LoadedTable, options: Options, cols, ks, progress,
                   prepared: "Prepared | None" = None) -> _Ranked:
    """The per-query arrays of every system, in memory (numpy); ``prepared``: the run read and
    coded already (:func:`prepare`), which no convention option changes."""
    progress.advance(0.05, "reading the run")
    if prepared is None:
        prepared = prepare(table, options, cols, progress, keep_orders=True)
        LAST.remember(table, prepared_key(options), prepared)
    run, coded, judg = prepared.run, prepared.coded, prepared.judg
    tie = _tie_breaker(options, coded, judg.grade_for_run)

    progress.check_cancelled()
    progress.advance(0.4, "computing metrics")
    Q = len(coded.q_labels)
    arrays = []
    for code, label in enumerate(run.sys_labels):
        progress.check_cancelled()
        if len(run.sys_labels) == 1:
            m_q, m_val, m_tie, m_grade = coded.rq, run.order_val, tie, judg.grade_for_run
        else:
            m = prepared.system_rows(code)
            m_q, m_val, m_tie, m_grade = (coded.rq[m], run.order_val[m], _subset(tie, m),
                                          judg.grade_for_run[m])
        ordered = prepared.ordered(code, options.ties, lambda: ranking_order(m_q, m_val, m_tie))
        arrays.append(rank_metrics(m_q, m_val, m_tie, m_grade, judg.jq, judg.jgrade,
                                   n_queries=Q, ks=ks, gain=options.gain,
                                   threshold=options.relevance_threshold, ordered=ordered))
    # trec_eval's query set: the judged queries (a judged query a system missed scores 0, as
    # with trec_eval -c); retrieved queries without any judgment are left out ('skip') or
    # kept and scored 0 ('zero')
    return _Ranked(coded.q_labels, run.sys_labels, arrays,
                   judged_queries=np.bincount(judg.jq, minlength=Q) > 0,
                   any_run=np.bincount(coded.rq, minlength=Q) > 0,
                   unjudged_rows=judg.unjudged_rows, qrels_only_docs=judg.qrels_only_docs,
                   negative_grades=int((judg.jgrade < 0).sum()),
                   fractional_grades=int((np.isfinite(judg.jgrade)
                                          & (judg.jgrade != np.floor(judg.jgrade))).sum()))


@dataclass
class Prepared:
    """A run read and coded (queries, documents, judgments): what no convention option (gain,
    ties, relevance threshold, query set) changes, kept to recompute under each."""
    cols: "_Columns"
    run: "_Run"
    coded: "_Coded"
    judg: object
    _rows: dict = field(default_factory=dict)
    #: (system code, tie rule) -> the ranking order; kept only when ``keep_orders``
    _orders: dict = field(default_factory=dict)
    keep_orders: bool = False

    def ordered(self, code: int, ties: str, compute):
        """The ranking order of a system under a tie rule (computed once when kept)."""
        if not self.keep_orders:
            return compute()
        key = (code, ties)
        if key not in self._orders:
            self._orders[key] = compute()
        return self._orders[key]

    def system_rows(self, code: int) -> np.ndarray:
        rows = self._rows.get(code)
        if rows is None:
            rows = self._rows[code] = self.run.sys_codes == code
        return rows


#: The last in-memory run's prepared run (with the ranking orders it computed), for the
#: conventions table that may follow on the same table object.
LAST = LastRun()


def prepared_key(options: Options) -> tuple:
    """The options a :class:`Prepared` run depends on (no convention changes them)."""
    return (options.query, options.doc, options.score, options.rank, options.relevance,
            options.system, options.qrels)


def prepare(table: LoadedTable, options: Options, cols=None, progress=NULL_PROGRESS, *,
            keep_orders: bool = False) -> Prepared:
    """The run of ``table`` read and coded (the columns from ``options``); ``keep_orders``:
    each tie rule's ranking order is kept for the next run on it."""
    if cols is None:
        cols = _columns(table, options, Resolver(table))
    run = _read_run(table, options, cols)
    progress.check_cancelled()
    progress.advance(0.2, "coding queries and documents")
    coded = _code_ids(table, run, cols)
    return Prepared(cols, run, coded, _judgments(table, run, coded, cols), keep_orders=keep_orders)


def per_query_table(table: LoadedTable, options: Options, prepared: Prepared) -> pd.DataFrame:
    """The "queries" table of :func:`run` with these options (the same values: the same
    code), without the records, intervals and paired tests: what the conventions table reads
    under each option."""
    ks = _check(options)
    ranked = _memory_ranked(table, options, prepared.cols, ks, NULL_PROGRESS, prepared)
    universe = ranked.judged_queries | (ranked.any_run if options.unjudged == "zero" else False)
    return pd.concat([_query_frame(arr, label, universe, ks, options, prepared.cols,
                                   ranked.q_labels)
                      for label, arr in zip(ranked.sys_labels, ranked.arrays)], ignore_index=True)


def _system_result(arr, label, universe: np.ndarray, ks, options: Options, cols: _Columns,
                   q_labels):
    """One system's records, notes, summary row and per-query frame from its metric arrays;
    ``universe`` is the query set every system is scored on."""
    in_run = arr.retrieved > 0
    no_rel = universe & (arr.relevant == 0)
    use = universe & ~no_rel if options.no_relevant == "skip" else universe
    n_use = int(use.sum())
    values: dict[str, float] = {}
    for k in ks:
        values[f"p@{k}"] = _mean(arr.precision[k], use)
        values[f"r@{k}"] = _mean(arr.recall[k], use)
        values[f"hit@{k}"] = _mean(arr.hit[k], use)
        values[f"ndcg@{k}"] = _mean(arr.ndcg[k], use)
        values[f"mrr@{k}"] = _mean(arr.rr_at(k), use)
    values["mrr"] = _mean(arr.rr, use)
    values["map"] = _mean(arr.ap, use)
    per_query = {f"{kind}@{k}": getattr(arr, attr)[k][use] for k in ks
                 for kind, attr in (("p", "precision"), ("r", "recall"), ("hit", "hit"), ("ndcg", "ndcg"))}
    per_query.update({f"mrr@{k}": arr.rr_at(k)[use] for k in ks})
    unit_ids = (pd.Index(q_labels).take(np.flatnonzero(use)).astype(str).to_numpy(dtype=object)
                if options.ci_bootstrap == "poisson-hash" else None)
    cis = _intervals.mean_cis({**per_query, "mrr": arr.rr[use], "map": arr.ap[use]},
                              resamples=options.ci_resamples, seed=options.ci_seed,
                              unit_ids=unit_ids)
    records = []
    for metric, value in values.items():
        k = int(metric.split("@")[1]) if "@" in metric else None
        records.append(record(metric, value, system=label, k=k, n=n_use, **_intervals.fields(cis[metric])))
    n_tied = int((arr.tied & in_run).sum())
    notes = _system_notes(arr, label, universe, no_rel, in_run, n_tied, options, cols)
    notes += _intervals.notes([(_intervals.who(m, label), ci) for m, ci in cis.items()], "queries")
    row = {"system": label if label is not None else "(all)", "queries": n_use,
           "no_relevant": int(no_rel.sum()), "tied_queries": n_tied, **values}
    return records, notes, row, _query_frame(arr, label, universe, ks, options, cols, q_labels)


def _query_frame(arr, label, universe: np.ndarray, ks, options: Options, cols: _Columns,
                 q_labels) -> pd.DataFrame:
    """One system's rows of the per-query table (every query of ``universe``)."""
    no_rel = universe & (arr.relevant == 0)
    use = universe & ~no_rel if options.no_relevant == "skip" else universe
    idx = np.flatnonzero(universe)
    return pd.DataFrame({
        **({"system": [label] * idx.size} if cols.system else {}),
        "query": pd.Index(q_labels).take(idx).astype(str).to_numpy(dtype=object),
        "retrieved": arr.retrieved[idx],
        "relevant": arr.relevant[idx].astype(int),
        "counted": use[idx],
        "tied": arr.tied[idx],
        **{f"p@{k}": arr.precision[k][idx] for k in ks},
        **{f"r@{k}": arr.recall[k][idx] for k in ks},
        **{f"hit@{k}": arr.hit[k][idx] for k in ks},
        **{f"ndcg@{k}": arr.ndcg[k][idx] for k in ks},
        **{f"rr@{k}": arr.rr_at(k)[idx] for k in ks},
        "rr": arr.rr[idx],
        "ap": arr.ap[idx],
    })


def _system_notes(arr, label, universe, no_rel, in_run, n_tied: int, options: Options,
                  cols: _Columns) -> list[str]:
    """What a reader of one system's numbers must know: queries without a relevant document,
    judged queries it missed, ties and near-ties."""
    notes = []
    who = f"system '{label}': " if label is not None else ""
    if no_rel.any():
        how_kept = "left out" if options.no_relevant == "skip" else "kept and scored 0"
        notes.append(f"{who}{of_total(int(no_rel.sum()), int(universe.sum()), 'query')} "
                     f"{verb(no_rel.sum(), 'has', 'have')} no relevant "
                     f"document (grade ≥ {options.relevance_threshold:g}); "
                     f"{'it is' if int(no_rel.sum()) == 1 else 'they are'} {how_kept} "
                     f"(no-relevant policy '{options.no_relevant}').")
    missing = universe & ~in_run
    if missing.any():
        notes.append(f"{who}{plural(int(missing.sum()), 'judged query', 'judged queries')} "
                     f"{verb(missing.sum(), 'has', 'have')} no retrieved document and "
                     f"{verb(missing.sum(), 'scores', 'score')} 0 on every metric.")
    if n_tied:
        how = {"trec_eval": "score descending, then document id descending (trec_eval)",
               "stable": "score descending, then file order",
               "pessimistic": "score descending, then relevant documents last (pessimistic)",
               "optimistic": "score descending, then relevant documents first (optimistic)",
               }[options.ties]
        notes.append(f"{who}{plural(n_tied, 'query', 'queries')} {verb(n_tied, 'has', 'have')} "
                     f"tied {'ranks' if cols.rank else 'scores'}; ties are "
                     f"broken by {how}.")
    n_near = int((arr.near_tied & in_run).sum()) if arr.near_tied is not None else 0
    if n_near:
        notes.append(f"{who}{n_near} {_plural(n_near, 'query has', 'queries have')} scores that "
                     f"differ only past single precision; they are ranked by their full value "
                     f"here, while trec_eval (which keeps scores as 32-bit floats) ties them and "
                     f"breaks the tie by document id, so its numbers can differ slightly.")
    return notes


def _id_notes(ranked) -> list[str]:
    """:func:`workbench.analyses.id_match.id_notes` on an engine's answer."""
    from .id_match import id_notes

    unjudged_q = ranked.any_run & ~ranked.judged_queries
    total = sum(int(arr.retrieved.sum()) for arr in ranked.arrays)
    outside = sum(int(arr.retrieved[unjudged_q].sum()) for arr in ranked.arrays)
    return id_notes(ranked.q_labels, ranked.any_run, ranked.judged_queries, total - outside,
                    total - int(ranked.unjudged_rows))


def _empty_id_notes(ranked, cols, qrels: bool) -> list[str]:
    """:func:`workbench.analyses.id_match.empty_id_notes` on an engine's answer."""
    from .id_match import empty_id_notes

    empty = np.asarray(ranked.q_labels, dtype=object) == ""
    if not empty.any():
        return []
    rows = sum(int(arr.retrieved[empty].sum()) for arr in ranked.arrays)
    return empty_id_notes(ranked.q_labels, ranked.any_run, ranked.judged_queries, rows,
                          cols.query, qrels)


def _query_set_notes(options: Options, q_labels, any_run, judged_queries, judg,
                     qrels: bool) -> list[str]:
    """Notes on the whole run: unjudged queries and rows, judged documents never retrieved,
    negative grades."""
    notes = []
    left_out = np.flatnonzero(any_run & ~judged_queries) if options.unjudged == "skip" else None
    if left_out is not None and left_out.size:
        shown = ", ".join(f"'{q_labels[i]}'" for i in left_out[:5])
        more = f" and {left_out.size - 5} more" if left_out.size > 5 else ""
        source = "the qrels" if qrels else "the relevance column"
        notes.append(f"{left_out.size} retrieved {_plural(left_out.size, 'query', 'queries')} "
                     f"({shown}{more}) {_plural(left_out.size, 'has', 'have')} no judgment in {source} "
                     f"and {_plural(left_out.size, 'is', 'are')} left out of every "
                     f"mean, as trec_eval does (unjudged policy 'skip'; 'zero' scores them 0).")
    elif options.unjudged == "zero":
        kept = int((any_run & ~judged_queries).sum())
        if kept:
            notes.append(f"{kept} retrieved {_plural(kept, 'query', 'queries')} without any "
                         f"judgment {_plural(kept, 'is', 'are')} kept and {_plural(kept, 'scores', 'score')} 0 on every metric (unjudged policy 'zero').")
    if judg.unjudged_rows:
        notes.append(f"{judg.unjudged_rows} retrieved rows have no relevance judgment and count as "
                     f"not relevant (gain 0).")
    n_only = judg.qrels_only_docs
    if n_only:
        notes.append(f"{plural(n_only, 'judged document')} in the qrels "
                     f"{verb(n_only, 'was', 'were')} never retrieved; "
                     f"{verb(n_only, 'it counts', 'they count')} in recall, MAP and the ideal DCG.")
    if judg.fractional_grades:
        notes.append(f"{plural(judg.fractional_grades, 'judgment')} "
                     f"{verb(judg.fractional_grades, 'has', 'have')} a fractional grade, used "
                     f"as it is (its gain is the grade; relevant from "
                     f"{options.relevance_threshold:g}); trec_eval reads grades as integers "
                     f"and pytrec_eval refuses them, so their numbers differ here.")
    if judg.negative_grades:
        notes.append(f"{judg.negative_grades} judgments have a negative grade; their gain "
                     f"counts as 0.")
    return notes


def _auto_memory_note() -> str:
    """Why ``auto`` computed in memory: the table was loaded, within the budget."""
    from ..engines import budget

    why = (f"DuckDB computes a CSV or Parquet run over the memory budget of "
           f"{budget.memory_budget() / 1e9:.1f} GB ({budget.MEMORY_SHARE:.0%} of the RAM)"
           if budget.duckdb_available() else "DuckDB is not installed here")
    return f"The per-query table was computed in memory ('auto': the run was loaded; {why})."


def _signature(options: Options, ks, cols: _Columns) -> dict:
    sig = base_signature(NAME)
    sig.update({
        "k": ",".join(map(str, ks)),
        "order": "rank-asc" if cols.rank else "score-desc",
        "ties": options.ties,
        "gain": options.gain,
        "disc": "log2(rank+1)",
        "idcg": "all-judged",
        "rel": f">={options.relevance_threshold:g}",
        "norel": options.no_relevant,
        "unjudged": options.unjudged,
        "judged": ("qrels" if options.qrels and not cols.relevance
                   else "pooled" + ("+qrels" if options.qrels else "")),
        "missing-query": "zero",
        "p@k-denom": "k",
        "rr": "full-list",
        "map": "full-list/R",
        **_intervals.signature(options.ci_resamples, options.ci_seed, unit="queries",
                               bootstrap=options.ci_bootstrap),
    })
    return sig


def _tables(summary_rows: list[dict], per_query: list[pd.DataFrame]) -> tuple[Table, ...]:
    fmt = ({c: "float" for c in summary_rows[0] if "@" in c or c in ("mrr", "map")}
           if summary_rows else {})
    fmt.update({"queries": "int", "no_relevant": "int", "tied_queries": "int"})
    return (
        Table("summary", "Ranking metrics per system", pd.DataFrame(summary_rows), columns={
            "queries": "queries in every mean (the denominator)",
            "no_relevant": "queries with no relevant document",
            "tied_queries": "queries whose ranking had tied scores",
        }, formats=fmt),
        Table("queries", "Per-query metrics", pd.concat(per_query, ignore_index=True), formats=fmt),
    )
