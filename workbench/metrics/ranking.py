"""Rank metrics over many queries at once, vectorised with numpy (no Python loop over rows).

Inputs are integer-coded arrays prepared by :mod:`workbench.analyses.ranking`:

* the run: one row per retrieved (query, document) with ``q`` (query code 0..Q-1), ``score``
  (higher ranks first), ``tie`` (secondary ascending sort key that breaks score ties, or a
  function of row numbers returning it for those rows, called only for the queries whose
  scores tie; ``None`` keeps input order) and
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

import functools
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
    #: bool: two of the query's scores differ only past single precision (trec_eval keeps
    #: scores as 32-bit floats, so it ties them and may order them otherwise)
    near_tied: np.ndarray | None = None

    def rr_at(self, k: int) -> np.ndarray:
        """The reciprocal rank cut at ``k`` (its mean is MRR@k, MS MARCO's and ranx's
        ``mrr@k``): 1 / rank of the first relevant document when that rank is at most ``k``,
        else 0.  From :attr:`rr` (1/r >= 1/k exactly when r <= k: a correctly rounded
        division keeps the order), so every engine's cut is the same."""
        return np.where(self.rr >= 1.0 / k, self.rr, 0.0)


def gain_of(grade, gain: str) -> np.ndarray:
    g = np.asarray(grade, dtype=float)
    g = np.where(g > 0, g, 0.0)  # missing (NaN) and negative grades gain nothing
    if np.isinf(g).any():
        g = np.nan_to_num(g)  # an infinite grade counts as the largest float, as before
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


#: The per-query table (one row per query, as wide as the longest ranking) is used while it
#: holds at most this many cells per retrieved row; a query far longer than the others makes
#: the two global sorts cheaper.
PAD_LIMIT = 2.0


class _Groups:
    """The rows put in query order by a stable permutation (``perm``, ``None`` when the rows
    already list each query together, as run files do), with each query's start and length
    in that order, and a padded table of one row per query when it is not much larger than
    the data (``padded``)."""

    def __init__(self, q: np.ndarray) -> None:
        n = self.n = q.size
        if np.all(q[1:] >= q[:-1]):
            self.perm, self.qs = None, q
        else:
            small = int(q.max()) < 65536  # numpy's stable sort is a radix sort for 16 bits
            self.perm = np.argsort(q.astype(np.uint16) if small else q, kind="stable")
            self.qs = q[self.perm]
        qs = self.qs
        self.starts = np.flatnonzero(np.r_[True, qs[1:] != qs[:-1]])
        self.counts = np.diff(np.r_[self.starts, n])
        self.width = int(self.counts.max())
        self.uniform = self.starts.size * self.width == n
        self.padded = self.starts.size * self.width <= PAD_LIMIT * n + 4096
        if not self.uniform:
            self.rows = np.repeat(np.arange(self.starts.size), self.counts)
            self.offsets = self.starts[self.rows]

    @functools.cached_property
    def rank(self) -> np.ndarray:
        """Each position's 0-based rank within its query, in query order."""
        if self.uniform:
            return np.tile(np.arange(self.width, dtype=np.int64), self.starts.size)
        return np.arange(self.n, dtype=np.int64) - self.offsets

    def table(self, values: np.ndarray, fill) -> np.ndarray:
        """``values`` (in the input's row order) as the padded table, ``fill`` past each end."""
        v = values if self.perm is None else values[self.perm]
        if self.uniform:
            return v.reshape(self.starts.size, self.width)  # a view: callers never write to it
        out = np.full((self.starts.size, self.width), fill, dtype=v.dtype)
        out[self.rows, self.rank] = v
        return out

    def flat(self, table: np.ndarray) -> np.ndarray:
        """A padded table of column positions back to row numbers of the input."""
        if self.uniform:
            pos = (table + (np.arange(self.starts.size) * self.width)[:, None]).ravel()
        else:
            pos = table[np.arange(self.width) < self.counts[:, None]] + self.offsets
        return pos if self.perm is None else self.perm[pos]


def repeated_pairs(q: np.ndarray, d: np.ndarray) -> bool:
    """Whether some (query, document) code pair occurs twice (codes are int64 >= 0)."""
    if q.size < 2:
        return False
    groups = _Groups(q)
    if not groups.padded:
        key = q * (int(d.max()) + 1) + d
        key.sort()
        return bool(np.any(key[1:] == key[:-1]))
    table = np.sort(groups.table(d, -1), axis=1)
    return bool(np.any((table[:, 1:] == table[:, :-1]) & (table[:, 1:] >= 0)))


def _order(q: np.ndarray, score: np.ndarray, tie):
    """Row order (query ascending, score descending, ties by ``tie`` or input order) and each
    ordered row's 0-based rank within its query.

    Usual path: the rows grouped by query (a stable radix sort, or nothing when the file
    already lists each query's rows together, as run files do), then every query's scores
    sorted at once in a padded table with one row per query (a stable sort, so ties keep the
    input order).  A very uneven file (one ranking far longer than the others) takes two
    global sorts on an exact integer key (query x n + score rank) instead.  When scores tie,
    only the queries with ties are re-sorted (score descending, then ``tie``, or the input
    order after the global sorts, which are not stable).
    """
    n = q.size
    if n == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    groups = _Groups(q)
    qs, rank = groups.qs, groups.rank
    if groups.padded:
        table = groups.table(-score, np.nan)
        order = groups.flat(np.argsort(table, axis=1, kind="stable"))  # NaN (padding) last
        del table
        stable = True
    else:
        by_score = np.argsort(-score)
        score_rank = np.empty(n, dtype=np.int64)
        score_rank[by_score] = np.arange(n)
        order = np.argsort(q * n + score_rank)
        stable = False
    ss = score[order]
    tied_at = np.flatnonzero((qs[1:] == qs[:-1]) & (ss[1:] == ss[:-1]))
    if tied_at.size == 0 or (tie is None and stable):
        return order, rank
    # re-sort only the queries with tied scores, on (score descending, tie key)
    tied_query = np.zeros(int(qs[-1]) + 1, dtype=bool)
    tied_query[qs[tied_at]] = True
    where = np.flatnonzero(tied_query[qs])
    rows = order[where]
    if tie is None:
        key = rows  # the file order
    else:
        key = np.asarray(tie(rows) if callable(tie) else np.asarray(tie)[rows])
    order[where] = rows[np.lexsort((key, -score[rows], q[rows]))]
    return order, rank


def ranking_order(q, score, tie) -> tuple[np.ndarray, np.ndarray]:
    """(the rows in ranking order, each sorted row's 0-based rank in its query): the order
    :func:`rank_metrics` ranks by (``tie`` as there)."""
    return _order(np.asarray(q, dtype=np.int64), np.asarray(score, dtype=float), tie)


def rank_metrics(q, score, tie, grade, jq, jgrade, *, n_queries: int, ks,
                 gain: str = "linear", threshold: float = 1.0, ordered=None) -> RankingArrays:
    """Compute every rank metric for every query (see module docstring); ``ordered``: the
    ``(order, rank)`` of :func:`ranking_order` for these rows and tie rule, when already known
    (it depends on neither the gain nor the threshold)."""
    ks = [int(k) for k in ks]
    if not ks or any(k < 1 for k in ks):
        raise OptionError(f"Every `k` must be >= 1; got k={ks}.")
    q = np.asarray(q, dtype=np.int64)
    score = np.asarray(score, dtype=float)
    Q = int(n_queries)

    order, rank = _order(q, score, tie) if ordered is None else ordered
    qs = q[order]
    ss = score[order]
    gs = np.asarray(grade, dtype=float)[order]
    if np.isnan(gs).any():
        gs = np.nan_to_num(gs, nan=0.0)
    retrieved = np.bincount(q, minlength=Q).astype(np.int64)

    same_q = qs[1:] == qs[:-1]
    tied_rows = np.flatnonzero(same_q & (ss[1:] == ss[:-1])) + 1
    tied = np.zeros(Q, dtype=bool)
    tied[qs[tied_rows]] = True
    with np.errstate(over="ignore"):
        s32 = ss.astype(np.float32)
    near_rows = np.flatnonzero(same_q & (s32[1:] == s32[:-1]) & (ss[1:] != ss[:-1])) + 1
    near_tied = np.zeros(Q, dtype=bool)
    near_tied[qs[near_rows]] = True

    jq = np.asarray(jq, dtype=np.int64)
    jg = np.asarray(jgrade, dtype=float)
    if np.isnan(jg).any():
        jg = np.nan_to_num(jg, nan=0.0)
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

        # the ideal ranking: only judgments with a positive gain add to it
        jgain = gain_of(jg, gain)
        positive = np.flatnonzero(jgain > 0)
        jq_pos, jgain_pos = jq[positive], jgain[positive]
        jorder = np.lexsort((-jgain_pos, jq_pos))
        jqs = jq_pos[jorder]
        jrank, _ = _group_ranks(jqs)
        keep = jrank < kmax
        jq_top, jrank_top = jqs[keep], jrank[keep]
        ideal_top = jgain_pos[jorder][keep] / np.log2(jrank_top + 2.0)

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
                         hit=hit, ndcg=ndcg, rr=rr, ap=ap, tied=tied,
                         near_tied=near_tied)


@dataclass(frozen=True)
class TieExpected:
    """Per-query expectations over every order of the tied documents (McSherry and Najork
    2008), each an array of length Q: nDCG@k, P@k and recall@k for each k, and the reciprocal
    rank (MRR's per-query value)."""

    ndcg: dict[int, np.ndarray]
    precision: dict[int, np.ndarray]
    recall: dict[int, np.ndarray]
    rr: np.ndarray
    #: average precision (MAP's per-query value)
    ap: np.ndarray


def tie_expected(q, score, grade, jq, jgrade, *, n_queries: int, ks, gain: str = "linear",
                 threshold: float = 1.0) -> TieExpected:
    """nDCG@k and P@k averaged over all orders of the documents whose scores tie.

    Every order of a tie group (the documents of one query sharing one score) is equally
    likely, so each position the group spans holds, in expectation, the group's mean gain:
    a document of a group of m spanning 0-based ranks [s, e) adds gain / m times the sum of
    the discounts 1 / log2(rank + 2) over [s, min(e, k)), and relevance / m times the number of
    those ranks to the hits of P@k (recall@k: those hits over the query's relevant count R).
    The ideal DCG is the one of :func:`rank_metrics` (all judged documents; it does not depend
    on the order).  The reciprocal rank depends only on the first tie group holding a relevant
    document: starting at 0-based rank s, of m documents of which r are relevant, the first
    relevant one is the group's j-th with probability C(m-j, r-1) / C(m, r), so the expectation is
    the sum over j of that probability times 1 / (s + j); average precision in
    :func:`_expected_ap`.  Without ties this is :func:`rank_metrics`' nDCG@k, P@k, recall@k,
    reciprocal rank and average precision.
    """
    ks = [int(k) for k in ks]
    if not ks or any(k < 1 for k in ks):
        raise OptionError(f"Every `k` must be >= 1; got k={ks}.")
    q = np.asarray(q, dtype=np.int64)
    score = np.asarray(score, dtype=float)
    grade = np.nan_to_num(np.asarray(grade, dtype=float), nan=0.0)
    Q = int(n_queries)
    order = np.lexsort((-score, q))
    qs, ss, gs = q[order], score[order], grade[order]
    n = qs.size
    rank, _ = _group_ranks(qs)
    new_group = np.r_[True, (qs[1:] != qs[:-1]) | (ss[1:] != ss[:-1])] if n else np.zeros(0, bool)
    g_start = np.flatnonzero(new_group)
    g_size = np.diff(np.r_[g_start, n])
    size = np.repeat(g_size, g_size).astype(float)
    start = np.repeat(rank[g_start], g_size)
    end = start + size.astype(np.int64)
    kmax = max(ks)
    disc_cum = np.r_[0.0, np.cumsum(1.0 / np.log2(np.arange(kmax) + 2.0))]
    gains = gain_of(gs, gain)
    rel = (gs >= threshold).astype(float)
    ideal = ideal_dcg(jq, jgrade, Q, ks, gain)
    jg = np.nan_to_num(np.asarray(jgrade, dtype=float), nan=0.0)
    R = np.bincount(np.asarray(jq, dtype=np.int64), weights=(jg >= threshold), minlength=Q)
    ndcg, precision, recall = {}, {}, {}
    for k in ks:
        lo, hi = np.minimum(start, k), np.minimum(end, k)
        dcg = np.bincount(qs, weights=gains * (disc_cum[hi] - disc_cum[lo]) / size, minlength=Q)
        hits = np.bincount(qs, weights=rel * (hi - lo) / size, minlength=Q)
        with np.errstate(invalid="ignore", divide="ignore"):
            ndcg[k] = np.where(ideal[k] > 0, dcg / ideal[k], 0.0)
            recall[k] = np.where(R > 0, hits / R, 0.0)
        precision[k] = hits / k
    rr = _expected_rr(qs, rel, g_start, g_size, rank, Q)
    ap = _expected_ap(qs, rel, g_start, g_size, rank, R, Q)
    return TieExpected(ndcg=ndcg, precision=precision, recall=recall, rr=rr, ap=ap)


def _expected_ap(qs, rel, g_start, g_size, rank, R, n_queries: int) -> np.ndarray:
    """Each query's average precision averaged over the orders of its tied documents.

    AP = (1/R) * sum over relevant retrieved documents of (relevant at or above it) / its rank.
    A relevant document of a tie group starting at 0-based rank s, of m documents of which r are
    relevant, after c relevant documents of earlier groups, is the group's j-th with probability
    1/m, and then has in expectation (j - 1)(r - 1)/(m - 1) relevant group mates above it (a
    hypergeometric draw), so its expected precision is the mean over j of
    (c + 1 + (j - 1)(r - 1)/(m - 1)) / (s + j).  With H the harmonic numbers and
    D = H(s + m) - H(s): the sum over j of 1/(s + j) is D and of (j - 1)/(s + j) is
    m - (s + 1) D; the group adds r/m times (c + 1) D + (r - 1)/(m - 1) (m - (s + 1) D)."""
    ap = np.zeros(n_queries)
    if g_start.size == 0:
        return ap
    r_in = np.add.reduceat(rel, g_start)
    gq = qs[g_start]
    # relevant documents of the query's earlier groups
    before = np.cumsum(r_in) - r_in
    first_of_query = np.r_[True, gq[1:] != gq[:-1]]
    query_base = np.maximum.accumulate(np.where(first_of_query, np.arange(gq.size), 0))
    c = before - before[query_base]
    s = rank[g_start].astype(np.int64)
    m = g_size.astype(np.int64)
    harmonic = np.r_[0.0, np.cumsum(1.0 / np.arange(1, int((s + m).max()) + 1))]
    d = harmonic[s + m] - harmonic[s]
    with np.errstate(invalid="ignore", divide="ignore"):
        mates = np.where(m > 1, (r_in - 1) / np.maximum(m - 1, 1) * (m - (s + 1) * d), 0.0)
        contrib = np.where(r_in > 0, r_in / m * ((c + 1) * d + mates), 0.0)
    sums = np.bincount(gq, weights=contrib, minlength=n_queries)
    with np.errstate(invalid="ignore", divide="ignore"):
        ap = np.where(R > 0, sums / np.where(R > 0, R, 1), 0.0)
    return ap


def _expected_rr(qs, rel, g_start, g_size, rank, n_queries: int) -> np.ndarray:
    """Each query's reciprocal rank averaged over the orders of its tied documents (see
    :func:`tie_expected`); 0 for a query without a relevant retrieved document."""
    rr = np.zeros(n_queries)
    if g_start.size == 0:
        return rr
    r_in = np.add.reduceat(rel, g_start)
    with_rel = np.flatnonzero(r_in > 0)
    if with_rel.size == 0:
        return rr
    gq = qs[g_start[with_rel]]
    _, first = np.unique(gq, return_index=True)  # the groups are in ranking order
    groups = with_rel[first]
    s = rank[g_start[groups]].astype(float)
    m, r = g_size[groups], r_in[groups].astype(np.int64)
    single = m == 1
    rr[gq[first][single]] = 1.0 / (s[single] + 1.0)
    for g, q_, s0, mm, rcount in zip(groups[~single], gq[first][~single], s[~single],
                                     m[~single], r[~single]):
        j = np.arange(1, mm - rcount + 2)
        # P(J = 1) = r / m, P(J = j + 1) = P(J = j) (m - j - r + 1) / (m - j)
        ratios = np.r_[rcount / mm, (mm - j[:-1] - rcount + 1) / (mm - j[:-1])]
        rr[q_] = float(np.sum(np.cumprod(ratios) / (s0 + j)))
    return rr


def ideal_dcg(jq, jgrade, n_queries: int, ks, gain: str) -> dict[int, np.ndarray]:
    """Each query's ideal DCG@k from all its judged documents (gains sorted descending)."""
    jq = np.asarray(jq, dtype=np.int64)
    jgain = gain_of(np.nan_to_num(np.asarray(jgrade, dtype=float), nan=0.0), gain)
    positive = np.flatnonzero(jgain > 0)
    jq_pos, jgain_pos = jq[positive], jgain[positive]
    jorder = np.lexsort((-jgain_pos, jq_pos))
    jrank, _ = _group_ranks(jq_pos[jorder])
    disc = jgain_pos[jorder] / np.log2(jrank + 2.0)
    return {k: np.bincount(jq_pos[jorder], weights=np.where(jrank < k, disc, 0.0),
                           minlength=n_queries) for k in ks}
