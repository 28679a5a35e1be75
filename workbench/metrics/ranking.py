"""Rank metrics over many queries at once, vectorised with numpy (no Python loop over rows).

Inputs are integer-coded arrays prepared by :mod:`workbench.analyses.ranking`:

* the run: one row per retrieved (query, document) with ``q`` (query code 0..Q-1), ``score``
  (higher ranks first), ``tie`` (secondary ascending sort key that breaks score ties, or a
  function returning it, called only when some scores tie; ``None`` keeps input order) and
  ``grade`` (relevance grade of that document, 0 when unjudged);
* the judgments: ``jq``/``jgrade`` for every judged document of every query, retrieved or not,
  which give each query's number of relevant documents R and its ideal DCG.

Conventions (trec_eval's unless stated):

* binary relevance: ``grade >= threshold``;
* P@k = relevant in the top k / k (k, not the number retrieved, is the denominator);
  R@k = relevant in the top k / R; hit@k = 1 if any relevant document is in the top k;
* MRR: 1 / rank of the first relevant document in the whole ranking, 0 if none;
* MAP: sum over relevant retrieved documents of precision at their rank, divided by R;
* nDCG@k: DCG@k / IDCG@k with discount 1 / log2(rank + 1); gain ``linear`` = grade (trec_eval,
  ranx ``ndcg``) or ``exponential`` = 2^grade - 1 (ranx ``ndcg_burges``); negative grades
  count as 0; the ideal ranking is built from all judged documents; IDCG = 0 gives 0.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core.errors import OptionError

GAINS = ("linear", "exponential")


@dataclass(frozen=True)
class RankingArrays:
    """Per-query metric values, each an array of length Q."""

    relevant: np.ndarray          # R: judged documents with grade >= threshold
    retrieved: np.ndarray         # documents retrieved
    precision: dict[int, np.ndarray]
    recall: dict[int, np.ndarray]
    hit: dict[int, np.ndarray]
    ndcg: dict[int, np.ndarray]
    rr: np.ndarray                # reciprocal rank
    ap: np.ndarray                # average precision
    tied: np.ndarray              # bool: the query's ranking had tied scores


def gain_of(grade, gain: str) -> np.ndarray:
    g = np.clip(np.nan_to_num(np.asarray(grade, dtype=float), nan=0.0), 0.0, None)
    if gain == "linear":
        return g
    if gain == "exponential":
        return np.exp2(g) - 1.0
    raise OptionError(f"`gain` must be one of {', '.join(GAINS)}; got gain={gain!r}.")


def _group_ranks(sorted_codes: np.ndarray):
    """For codes sorted ascending: 0-based position of each row within its run of codes."""
    n = sorted_codes.size
    if n == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    starts = np.flatnonzero(np.r_[True, sorted_codes[1:] != sorted_codes[:-1]])
    counts = np.diff(np.r_[starts, n])
    rank = np.arange(n, dtype=np.int64) - np.repeat(starts, counts)
    return rank, starts


def _order(q: np.ndarray, score: np.ndarray, tie) -> np.ndarray:
    """Row order: query ascending, score descending, ties by ``tie`` (or input order).

    Fast path: two unstable (SIMD) sorts on an exact integer key (query x n + score rank),
    which fully determine the order when no two rows of a query share a score.  Only when
    scores tie is the order rebuilt with a stable lexicographic sort on the tie key.
    """
    n = q.size
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    by_score = np.argsort(-score)
    score_rank = np.empty(n, dtype=np.int64)
    score_rank[by_score] = np.arange(n)
    order = np.argsort(q * n + score_rank)
    qs, ss = q[order], score[order]
    if not np.any((qs[1:] == qs[:-1]) & (ss[1:] == ss[:-1])):
        return order
    if tie is None:
        return np.lexsort((np.arange(n), -score, q))
    return np.lexsort((np.asarray(tie() if callable(tie) else tie), -score, q))


def rank_metrics(q, score, tie, grade, jq, jgrade, *, n_queries: int, ks,
                 gain: str = "linear", threshold: float = 1.0) -> RankingArrays:
    """Compute every rank metric for every query (see module docstring)."""
    ks = [int(k) for k in ks]
    if not ks or any(k < 1 for k in ks):
        raise OptionError(f"Every `k` must be >= 1; got k={ks}.")
    q = np.asarray(q, dtype=np.int64)
    score = np.asarray(score, dtype=float)
    Q = int(n_queries)

    order = _order(q, score, tie)
    qs = q[order]
    ss = score[order]
    gs = np.asarray(grade, dtype=float)[order]
    if np.isnan(gs).any():
        gs = np.nan_to_num(gs, nan=0.0)
    rank, starts = _group_ranks(qs)
    counts = np.diff(np.r_[starts, qs.size])
    retrieved = np.zeros(Q, dtype=np.int64)
    retrieved[qs[starts]] = counts

    tied_rows = np.flatnonzero((qs[1:] == qs[:-1]) & (ss[1:] == ss[:-1])) + 1
    tied = np.zeros(Q, dtype=bool)
    tied[qs[tied_rows]] = True

    jq = np.asarray(jq, dtype=np.int64)
    jg = np.nan_to_num(np.asarray(jgrade, dtype=float), nan=0.0)
    R = np.bincount(jq, weights=(jg >= threshold), minlength=Q)

    with np.errstate(invalid="ignore", divide="ignore"):
        # relevant retrieved rows, in ranking order: MRR and AP need only these
        rel_idx = np.flatnonzero(gs >= threshold)
        rq_rel = qs[rel_idx]
        rank_rel = rank[rel_idx]
        nth_rel, _ = _group_ranks(rq_rel)          # 0 for the first relevant of its query
        rr = np.zeros(Q)
        first = nth_rel == 0
        rr[rq_rel[first]] = 1.0 / (rank_rel[first] + 1.0)
        ap_sum = np.bincount(rq_rel, weights=(nth_rel + 1.0) / (rank_rel + 1.0), minlength=Q)
        ap = np.where(R > 0, ap_sum / R, 0.0)

        # the cut-off metrics need only the rows ranked above the largest k
        kmax = max(ks)
        top_idx = np.flatnonzero(rank < kmax)
        q_top, rank_top = qs[top_idx], rank[top_idx]
        g_top = gs[top_idx]
        rel_top = g_top >= threshold
        dcg_top = gain_of(g_top, gain) / np.log2(rank_top + 2.0)

        jgain = gain_of(jg, gain)
        jorder = np.lexsort((-jgain, jq))
        jqs = jq[jorder]
        jrank, _ = _group_ranks(jqs)
        keep = jrank < kmax
        jq_top, jrank_top = jqs[keep], jrank[keep]
        ideal_top = jgain[jorder][keep] / np.log2(jrank_top + 2.0)

        precision, recall, hit, ndcg = {}, {}, {}, {}
        for k in ks:
            in_k = rank_top < k
            hits = np.bincount(q_top, weights=rel_top & in_k, minlength=Q)
            precision[k] = hits / k
            recall[k] = np.where(R > 0, hits / R, 0.0)
            hit[k] = (hits > 0).astype(float)
            dcg = np.bincount(q_top, weights=np.where(in_k, dcg_top, 0.0), minlength=Q)
            idcg = np.bincount(jq_top, weights=np.where(jrank_top < k, ideal_top, 0.0), minlength=Q)
            ndcg[k] = np.where(idcg > 0, dcg / idcg, 0.0)
    return RankingArrays(relevant=R, retrieved=retrieved, precision=precision, recall=recall,
                         hit=hit, ndcg=ndcg, rr=rr, ap=ap, tied=tied)
