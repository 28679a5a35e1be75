"""The reading of a ranking run and its judgments (split from :mod:`workbench.analyses.ranking`):
the run's columns resolved, its rows read and coded (queries and documents as exact text, in one
code space with the qrels), the judgments matched to the run (one grade per pair), the tie
breaker of the tie policy, and the qrels cache."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..core.errors import DataError, OptionError
from ..io import LoadedTable, guess_column, load_table, require_columns, text_codes, to_float
from ..io.roles import ROLE_NAMES
from ..metrics.ranking import repeated_pairs
from ._common import Resolver, check_unique
from .qrels_columns import QrelsColumns, qrels_columns

@dataclass(frozen=True)
class _Columns:
    """The run's columns, resolved from the options and the table's roles."""
    query: str
    doc: str
    score: str | None
    rank: str | None
    system: str | None
    relevance: str | None
    unused_relevance: str | None = None  # a run column that looks like grades, left to the qrels


def _columns(table: LoadedTable, options, res: Resolver) -> _Columns:
    q_col = res.required(options.query, "query", "--query")
    d_col = res.required(options.doc, "doc", "--doc")
    if options.score and options.rank:
        raise OptionError("Give either a score column or a rank column, not both.")
    s_col = options.score or (None if options.rank else res.optional(None, "score", "--score"))
    r_col = options.rank or (None if s_col else res.optional(None, "rank", "--rank"))
    if s_col is None and r_col is None:
        raise DataError(f"File '{table.name}' needs a score or a rank column to order the "
                        f"documents; name one with --score or --rank (its columns are: "
                        f"{', '.join(map(str, table.frame.columns))}).")
    if s_col:
        require_columns(table, [s_col])
    if r_col:
        require_columns(table, [r_col])
    sys_col = options.system
    if sys_col:
        require_columns(table, [sys_col])
    rel_col = options.relevance
    if rel_col and options.qrels and rel_col not in table.frame.columns:
        rel_col = None  # the qrels' grade column only (checked with the qrels)
    elif rel_col:
        require_columns(table, [rel_col])
    elif options.qrels is None:
        rel_col = res.required(None, "relevance", "--relevance")
    else:  # the qrels judge; a run column is pooled with them only when named (trec_eval's rule)
        rel_col = None
        unused = guess_column(table, "relevance", ROLE_NAMES.get("relevance", ["relevance"]))
        if unused and unused not in (q_col, d_col, s_col, r_col, sys_col):
            return _Columns(q_col, d_col, s_col, r_col, sys_col, None, unused)
    return _Columns(q_col, d_col, s_col, r_col, sys_col, rel_col)


@dataclass(frozen=True)
class _Run:
    """The run as arrays: the ordering value (higher first), the run's own grades (NaN where
    unjudged), the systems' codes and names, and the qrels (table, grades) when given."""
    order_val: np.ndarray
    run_grade: np.ndarray
    sys_codes: np.ndarray
    sys_labels: list
    qrels: tuple[LoadedTable, np.ndarray] | None
    qrels_cols: QrelsColumns | None


def _read_run(table: LoadedTable, options, cols: _Columns) -> _Run:
    order_val = -to_float(table, cols.rank) if cols.rank else to_float(table, cols.score)
    n_run = order_val.size
    run_grade = (to_float(table, cols.relevance, allow_missing=True) if cols.relevance
                 else np.full(n_run, np.nan))
    if cols.system:
        sys_codes, sys_labels = text_codes(table, cols.system)
        sys_labels = [str(x) for x in sys_labels]
    else:
        sys_codes, sys_labels = np.zeros(n_run, dtype=np.int64), [None]
    qrels = qcols = None
    if options.qrels:
        qt = load_qrels(options.qrels)
        qcols = _qrels_columns(options, cols, names=qt.frame.columns)
        qrels = (qt, to_float(qt, qcols.relevance))
    return _Run(order_val, run_grade, sys_codes, sys_labels, qrels, qcols)


def _qrels_columns(options, cols: _Columns, *, names=None,
                   on_file: bool = False) -> QrelsColumns | None:
    """The qrels' query, document and grade columns (:mod:`.qrels_columns`), from ``names``
    or the file's header (read by the engine's preview when the engine reads the file)."""
    if not options.qrels:
        return None
    if names is None:
        if on_file:
            from .ranking_engines import qrels_names
            names = qrels_names(options.qrels)
        else:
            names = load_qrels(options.qrels).frame.columns
    return qrels_columns(names, options.qrels, query=cols.query, doc=cols.doc,
                         relevance=cols.relevance or options.relevance,
                         relevance_given=bool(options.relevance) and cols.relevance is None)


@dataclass(frozen=True)
class _Coded:
    """Queries and documents coded in one code space shared by the run and the qrels (the
    cells' exact text), and the run's (query, document) keys sorted when a lookup needs them."""
    rq: np.ndarray
    rd: np.ndarray
    qq: np.ndarray | None
    qd: np.ndarray | None
    q_labels: object
    d_labels: object
    run_key: np.ndarray
    by_key: np.ndarray | None
    sorted_key: np.ndarray | None

    @property
    def n_docs(self) -> int:
        return max(len(self.d_labels), 1)


def _code_ids(table: LoadedTable, run: _Run, cols: _Columns) -> _Coded:
    q_parts, d_parts = [(table, cols.query)], [(table, cols.doc)]
    if run.qrels:
        q_parts.append((run.qrels[0], run.qrels_cols.query))
        d_parts.append((run.qrels[0], run.qrels_cols.doc))
    (rq, qq), q_labels = _joint_codes(q_parts)
    (rd, qd), d_labels = _joint_codes(d_parts)
    D = max(len(d_labels), 1)
    run_key = rq * D + rd
    by_key = sorted_key = None
    if run.qrels or cols.system:
        by_key = np.argsort(run_key)
        sorted_key = run_key[by_key]
    if cols.system:
        dup_sorted = np.sort(run_key * len(run.sys_labels) + run.sys_codes)
        repeated = bool(np.any(dup_sorted[1:] == dup_sorted[:-1]))
    elif run.qrels:
        repeated = bool(np.any(sorted_key[1:] == sorted_key[:-1]))
    else:
        repeated = repeated_pairs(rq, rd)
    if repeated:
        check_unique(table, ([cols.system] if cols.system else []) + [cols.query, cols.doc],
                     "(query, document) pair" + (" of a system" if cols.system else ""))
    return _Coded(rq, rd, qq, qd, q_labels, d_labels, run_key, by_key, sorted_key)


@dataclass(frozen=True)
class _Judgments:
    """The pooled judgments (query code, key, grade) and each run row's grade (0 unjudged)."""
    jq: np.ndarray
    jgrade: np.ndarray
    grade_for_run: np.ndarray
    unjudged_rows: int
    qrels_only_docs: int


def _judgments(table: LoadedTable, run: _Run, coded: _Coded, cols: _Columns) -> _Judgments:
    """Pooled judgments: the run's grades (the same across systems), then the qrels override."""
    D = coded.n_docs
    judged = ~np.isnan(run.run_grade)
    jkeys, jgrade = coded.run_key[judged], run.run_grade[judged]
    if cols.system and jkeys.size:
        jkeys, jgrade = _one_grade_per_pair(table, coded, jkeys, jgrade)
    n_qrels_only_docs = 0
    if run.qrels:
        qt, q_grade = run.qrels
        qk = coded.qq * D + coded.qd
        q_sorted = np.sort(qk)
        if np.any(q_sorted[1:] == q_sorted[:-1]):
            check_unique(qt, [run.qrels_cols.query, run.qrels_cols.doc],
                         "(query, document) judgment")
        n_qrels_only_docs = int((~_member(qk, coded.sorted_key)).sum())
        keep = ~_member(jkeys, q_sorted)  # the qrels override the run's grades
        jkeys = np.concatenate([jkeys[keep], qk])
        jgrade = np.concatenate([jgrade[keep], q_grade])
    if run.qrels or cols.system:
        j_order = np.argsort(jkeys)
        j_sorted = jkeys[j_order]
        pos = np.minimum(np.searchsorted(j_sorted, coded.sorted_key), max(j_sorted.size - 1, 0))
        found = ((j_sorted[pos] == coded.sorted_key) if j_sorted.size
                 else np.zeros(coded.sorted_key.size, bool))
        grade_for_run = np.zeros(coded.run_key.size)
        grade_for_run[coded.by_key[found]] = jgrade[j_order[pos[found]]]
        unjudged = int((~found).sum())
    else:
        grade_for_run = np.where(judged, run.run_grade, 0.0)
        unjudged = int((~judged).sum())
    return _Judgments(jkeys // D, jgrade, grade_for_run, unjudged, n_qrels_only_docs)


def _one_grade_per_pair(table: LoadedTable, coded: _Coded, jkeys: np.ndarray, jgrade: np.ndarray):
    """Several systems' rows judge the same (query, document): one grade each, or a sentence."""
    order = np.lexsort((jgrade, jkeys))
    k_sorted, g_sorted = jkeys[order], jgrade[order]
    clash = (k_sorted[1:] == k_sorted[:-1]) & (g_sorted[1:] != g_sorted[:-1])
    if clash.any():
        rows = np.flatnonzero(coded.run_key == k_sorted[1:][clash][0])
        raise DataError(
            f"File '{table.name}' gives document '{coded.d_labels[coded.rd[rows[0]]]}' of query "
            f"'{coded.q_labels[coded.rq[rows[0]]]}' different relevance grades on "
            f"{table.describe_rows(rows)}; a judgment must be the same in every row (or give "
            f"the grades in a qrels file).")
    first = np.r_[True, k_sorted[1:] != k_sorted[:-1]]
    return k_sorted[first], g_sorted[first]


def _tie_breaker(options, coded: _Coded, grade: np.ndarray):
    """trec_eval's tie order (document id descending) as a function of rows, the grade
    (pessimistic: lowest grade first; optimistic: highest first), or None (file order)."""
    if options.ties in ("pessimistic", "optimistic"):
        key = np.nan_to_num(grade) * (1.0 if options.ties == "pessimistic" else -1.0)
        return lambda rows: key[rows]
    if options.ties != "trec_eval":
        return None
    rd, d_labels = coded.rd, coded.d_labels

    def tie(rows: np.ndarray) -> np.ndarray:
        """Document id descending among these rows' documents (only rows of queries whose
        scores tie are asked for, so few labels are sorted)."""
        docs, inverse = np.unique(rd[rows], return_inverse=True)
        by_id = np.argsort(np.asarray(d_labels[docs], dtype=object), kind="stable")
        rank_of = np.empty(docs.size, dtype=np.int64)
        rank_of[by_id] = np.arange(docs.size)
        return -rank_of[inverse]
    return tie


def _joint_codes(parts: list[tuple[LoadedTable, str]]):
    """Codes of each (table, column)'s cell text, in one code space, and the labels.

    Two cells share a code exactly when their text is the same (``1`` and ``1.0`` are
    different documents, as in trec_eval).  Returns ``([codes of each table, ...], labels)``
    with ``None`` for a missing second table.
    """
    texts = [pd.Series(t.cell_text(column), copy=False) for t, column in parts]
    joined = texts[0] if len(texts) == 1 else pd.concat(texts, ignore_index=True)
    codes, labels = pd.factorize(joined, use_na_sentinel=False)
    codes = codes.astype(np.int64, copy=False)
    split = np.split(codes, np.cumsum([len(t) for t in texts])[:-1])
    return (split + [None])[:2], labels


#: Qrels files read in this session: (path, size, modification time) -> table.
_QRELS_CACHE: dict[tuple[str, int, int], LoadedTable] = {}


def load_qrels(path: str) -> LoadedTable:
    """The qrels table at ``path``, read once per session while the file is unchanged."""
    import os

    absolute = os.path.abspath(os.path.expanduser(path))
    try:
        stat = os.stat(absolute)
        key = (absolute, stat.st_size, stat.st_mtime_ns)
    except OSError:
        return load_table(path)  # load_table says what is wrong with the path
    table = _QRELS_CACHE.get(key)
    if table is None:
        table = load_table(path)
        if len(_QRELS_CACHE) >= 4:
            _QRELS_CACHE.pop(next(iter(_QRELS_CACHE)))
        _QRELS_CACHE[key] = table
    return table


def _member(values: np.ndarray, sorted_pool: np.ndarray) -> np.ndarray:
    """Boolean: which ``values`` occur in the sorted array ``sorted_pool``."""
    if sorted_pool.size == 0:
        return np.zeros(values.size, dtype=bool)
    pos = np.minimum(np.searchsorted(sorted_pool, values), sorted_pool.size - 1)
    return sorted_pool[pos] == values


def _subset(tie, mask):
    """The tie key of one system's rows (numbered within the system), still lazily."""
    if tie is None or mask.all():
        return tie
    rows_of = np.flatnonzero(mask)
    return lambda rows: tie(rows_of[rows])


def _plural(count: int, one: str, many: str) -> str:
    return one if count == 1 else many


def _mean(values: np.ndarray, use: np.ndarray) -> float:
    return float(values[use].mean()) if use.any() else float("nan")
