"""Paired significance of corpus BLEU and chrF, as sacrebleu's ``--paired-bs`` / ``--paired-ar``.

A corpus metric is not a mean of per-sentence scores, so an item-level test is wrong for it:
these tests resample (or swap) whole **sentences** and recompute the corpus score from the
summed per-sentence sufficient statistics (n-gram matches and totals, lengths), which are
extracted once by sacrebleu's own code (``Metric._extract_corpus_statistics``) and never
re-tokenised.  The definitions are sacrebleu 2.x's (``sacrebleu/significance.py``):

* **paired bootstrap** (``bs``, Koehn 2004; Moses' ``bootstrap-hypothesis-difference-
  significance.pl``): ``rng = numpy.random.default_rng(seed)``; the resample indices are
  ``rng.choice(N, size=(resamples, N))``, shared by both systems; the statistic of a resample is
  ``|score_cand - score_base|``; centred by its mean; p = (1 + #{centred > |observed diff|}) /
  (1 + resamples).  The candidate's 95% interval is sacrebleu's ``estimate_ci``: the mean of
  the resampled scores +- half the distance between the sorted resamples at ``R // 40`` and
  ``R - R // 40 - 1``.  Resampled scores are computed from float32 sums, as sacrebleu does.
* **approximate randomization** (``ar``, Riezler and Maxwell 2005; Clark et al.'s MultEval):
  ``rng.integers(2, size=(trials, N), dtype=bool)`` decides per sentence whether the two
  systems' outputs swap; p = (1 + #{|score_a - score_b| > |observed diff|}) / (1 + trials).

With the same data and seed the draws are sacrebleu's, so the p-values are the same, except
where the two corpus scores are exactly equal: then every resample is at least as extreme as
the observed difference of 0 and p = 1 (:func:`compare_corpus`), where sacrebleu's strict ">"
gives 1 / (R + 1) (0.001 for two identical systems); ``CorpusPaired.zero_diff`` says so.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core.blas import single_threaded
from ..core.progress import NULL_PROGRESS
from .paired import _check_rounds

CORPUS_METRICS = ("bleu", "chrf")


def sentence_statistics(metric_name: str, hypotheses, references, metric=None):
    """(sacrebleu metric object, per-sentence statistics as an int64 N x S array); ``metric``:
    the sacrebleu metric object to use (default: the metric's defaults)."""
    metric = metric if metric is not None else _metric(metric_name)
    stats = metric._extract_corpus_statistics(list(hypotheses), [list(references)])
    return metric, np.asarray(stats, dtype=np.int64).reshape(len(hypotheses), -1)


def _metric(name: str):
    if name == "bleu":
        from sacrebleu.metrics import BLEU

        return BLEU()
    if name == "chrf":
        from sacrebleu.metrics import CHRF

        return CHRF()
    raise ValueError(f"unknown corpus metric {name!r}")


def corpus_score(metric, stats: np.ndarray) -> float:
    """The corpus score from the per-sentence statistics (sacrebleu's own computation)."""
    return float(metric._aggregate_and_compute(np.asarray(stats).tolist()).score)


# -------------------------------------------------------------------- vectorised scores


def scores_from_sums(metric, sums: np.ndarray) -> np.ndarray:
    """Corpus scores of many rows of summed statistics at once (R x S -> R).

    Follows sacrebleu's ``compute_bleu`` (default smoothing ``exp``, no effective order) and
    ``CHRF._compute_f_score`` (beta 2, no eps smoothing; any word order) operation by operation,
    in the dtype of ``sums`` (float32 sums reproduce sacrebleu's bootstrap, int/float64 its
    randomization).  BLEU with another smoothing is sacrebleu's own
    ``_compute_score_from_stats`` on each row (a copy: add-k adds to the row it is given).
    """
    name = type(metric).__name__
    if name == "BLEU":
        return _bleu_scores(metric, sums)
    if name == "CHRF":
        return _chrf_scores(metric, sums)
    raise ValueError(f"unsupported metric {name}")


def _bleu_scores(metric, sums: np.ndarray) -> np.ndarray:
    if metric.smooth_method != "exp" or metric.effective_order:
        return np.array([metric._compute_score_from_stats(row.copy()).score for row in sums],
                        dtype=float)
    order = metric.max_ngram_order
    dt = np.float32 if sums.dtype == np.float32 else np.float64
    s = sums.astype(dt, copy=False)
    sys_len = s[:, 0].astype(np.int64).astype(float)
    ref_len = s[:, 1].astype(np.int64).astype(float)
    correct = s[:, 2:2 + order]
    total = s[:, 2 + order:2 + 2 * order]
    r = s.shape[0]
    with np.errstate(divide="ignore", invalid="ignore"):
        bp = np.where(sys_len < ref_len,
                      np.where(sys_len > 0, np.exp(1.0 - ref_len / np.where(sys_len > 0, sys_len, 1.0)), 0.0),
                      1.0)
        precisions = np.zeros((r, order), dtype=dt)
        alive = np.ones(r, dtype=bool)           # no order with total 0 met yet (sacrebleu breaks)
        smooth = np.ones(r, dtype=float)
        hundred = dt(100.0)
        for k in range(order):
            alive &= total[:, k] != 0
            zero = correct[:, k] == 0
            smooth = np.where(alive & zero, smooth * 2.0, smooth)
            smoothed = hundred / (smooth.astype(dt) * total[:, k])
            plain = hundred * correct[:, k] / total[:, k]
            precisions[:, k] = np.where(alive, np.where(zero, smoothed, plain), dt(0.0))
        p64 = precisions.astype(float)
        logs = np.where(p64 > 0, np.log(np.where(p64 > 0, p64, 1.0)), -9999999999.0)
        acc = logs[:, 0].copy()
        for k in range(1, order):
            acc = acc + logs[:, k]
        score = bp * np.exp(acc / order)
    no_match = ~(correct != 0).any(axis=1)
    return np.where(no_match, 0.0, score)


def _chrf_scores(metric, sums: np.ndarray) -> np.ndarray:
    if metric.eps_smoothing:
        raise ValueError("chrF with eps smoothing is not vectorised")
    dt = np.float32 if sums.dtype == np.float32 else np.float64
    s = sums.astype(dt, copy=False)
    factor = dt(metric.beta ** 2)
    r = s.shape[0]
    avg_prec = np.zeros(r, dtype=dt)
    avg_rec = np.zeros(r, dtype=dt)
    eff = np.zeros(r, dtype=np.int64)
    with np.errstate(divide="ignore", invalid="ignore"):
        for i in range(metric.order):
            n_hyp, n_ref, n_match = s[:, 3 * i], s[:, 3 * i + 1], s[:, 3 * i + 2]
            ok = (n_hyp > 0) & (n_ref > 0)
            prec = n_match / np.where(n_hyp > 0, n_hyp, 1)
            rec = n_match / np.where(n_ref > 0, n_ref, 1)
            avg_prec = np.where(ok, avg_prec + prec, avg_prec)
            avg_rec = np.where(ok, avg_rec + rec, avg_rec)
            eff += ok
        effd = np.where(eff > 0, eff, 1).astype(dt)
        avg_prec = np.where(eff > 0, avg_prec / effd, dt(0.0))
        avg_rec = np.where(eff > 0, avg_rec / effd, dt(0.0))
        one = dt(1.0)
        score = (one + factor) * avg_prec * avg_rec
        score = score / ((factor * avg_prec) + avg_rec)
        score = dt(100.0) * score
    return np.where(avg_prec + avg_rec != 0, score.astype(float), 0.0)


# -------------------------------------------------------------------- the tests


@dataclass(frozen=True)
class CorpusPaired:
    metric: str
    n: int
    base_score: float
    cand_score: float
    diff: float
    bs_p: float
    bs_resamples: int
    cand_mean: float          # sacrebleu's bootstrap mean of the candidate's score
    cand_ci: float            # sacrebleu's half-width of its 95% interval
    diff_low: float           # percentile 95% interval of the resampled difference
    diff_high: float
    ar_p: float
    ar_trials: int
    seed: int
    #: the corpus scores are equal: both p-values are 1 (sacrebleu's would be 1 / (R + 1))
    zero_diff: bool = False


def estimate_ci(scores: np.ndarray) -> tuple[float, float]:
    """sacrebleu's ``estimate_ci``: (mean, half-width between the R//40-th smallest and largest)."""
    s = np.sort(scores)
    n = s.size
    lower = n // 40
    upper = n - lower - 1
    return float(s.mean()), float(0.5 * (s[upper] - s[lower]))


def _counts_matrix(idx: np.ndarray, n: int) -> np.ndarray:
    rows = idx.shape[0]
    flat = (idx + (np.arange(rows, dtype=np.int64) * n)[:, None]).ravel()
    return np.bincount(flat, minlength=rows * n).reshape(rows, n)


@single_threaded
def paired_bootstrap(metric, base_stats: np.ndarray, cand_stats: np.ndarray, *,
                     resamples: int = 1000, seed: int = 12345, progress=NULL_PROGRESS):
    """sacrebleu's paired bootstrap test; returns (p, cand_mean, cand_ci_half, diff_low, diff_high,
    the resampled differences cand - base)."""
    _check_rounds(resamples, "resamples")
    n = base_stats.shape[0]
    both = np.hstack([base_stats, cand_stats]).astype(np.float64)
    width = base_stats.shape[1]
    rng = np.random.default_rng(seed)
    idx = rng.choice(n, size=(resamples, n), replace=True)
    sums = np.empty((resamples, 2 * width))
    batch = max(1, min(resamples, 4_000_000 // max(n, 1)))
    for start in range(0, resamples, batch):
        progress.check_cancelled()
        stop = min(resamples, start + batch)
        sums[start:stop] = _counts_matrix(idx[start:stop], n) @ both
        progress.advance(stop / resamples, "paired bootstrap")
    sums32 = sums.astype(np.float32)  # exact: integer sums far below 2^24 per row
    scores_bl = scores_from_sums(metric, sums32[:, :width])
    scores_sys = scores_from_sums(metric, sums32[:, width:])
    bl = corpus_score(metric, base_stats)
    sy = corpus_score(metric, cand_stats)
    real = abs(bl - sy)
    sample = np.abs(scores_sys - scores_bl)
    centred = sample - sample.mean()
    p = (int(np.count_nonzero(centred > real)) + 1) / (resamples + 1)
    mean, half = estimate_ci(scores_sys)
    delta = scores_sys - scores_bl
    low, high = np.percentile(delta, [2.5, 97.5])
    return p, mean, half, float(low), float(high), delta


@single_threaded
def approximate_randomization(metric, base_stats: np.ndarray, cand_stats: np.ndarray, *,
                              trials: int = 10_000, seed: int = 12345, progress=NULL_PROGRESS) -> float:
    """sacrebleu's paired approximate randomization test; returns p."""
    _check_rounds(trials, "trials")
    n = base_stats.shape[0]
    bl = base_stats.astype(np.float64)
    sy = cand_stats.astype(np.float64)
    real = abs(corpus_score(metric, base_stats) - corpus_score(metric, cand_stats))
    rng = np.random.default_rng(seed)
    delta = bl - sy
    bl_total, sy_total = bl.sum(0), sy.sum(0)
    # rows per batch: a multiple of 32 so that batched boolean draws are the one-call stream
    batch = max(32, (2_000_000 // max(n, 1)) // 32 * 32)
    hits = 0
    for start in range(0, trials, batch):
        progress.check_cancelled()
        rows = min(batch, trials - start)
        pos = rng.integers(2, size=(rows, n), dtype=bool)
        moved = pos.astype(np.float64) @ delta          # pos @ bl + neg @ sy = sy_total + pos @ (bl - sy)
        shuf_a = sy_total + moved
        shuf_b = bl_total - moved
        a = scores_from_sums(metric, np.rint(shuf_a))
        b = scores_from_sums(metric, np.rint(shuf_b))
        hits += int(np.count_nonzero(np.abs(a - b) > real))
        progress.advance((start + rows) / trials, "approximate randomization")
    return (hits + 1) / (trials + 1)


def compare_corpus(metric_name: str, base_hyps, cand_hyps, refs, *, resamples: int = 1000,
                   trials: int = 10_000, seed: int = 12345, progress=NULL_PROGRESS,
                   stats=None) -> CorpusPaired:
    """Both tests for one metric and one pair of systems on the same sentences.

    ``stats``: optional (metric, base_stats, cand_stats) already extracted."""
    if stats is None:
        metric, bstats = sentence_statistics(metric_name, base_hyps, refs)
        _, cstats = sentence_statistics(metric_name, cand_hyps, refs)
    else:
        metric, bstats, cstats = stats
    n = bstats.shape[0]
    bl = corpus_score(metric, bstats)
    sy = corpus_score(metric, cstats)
    p_bs, mean, half, low, high, _ = paired_bootstrap(metric, bstats, cstats, resamples=resamples,
                                                      seed=seed, progress=progress)
    zero = bl == sy
    if zero:  # no difference: nothing can be more extreme than it, p = 1 (not sacrebleu's 1/(R+1))
        p_bs, p_ar = 1.0, 1.0
    else:
        p_ar = approximate_randomization(metric, bstats, cstats, trials=trials, seed=seed, progress=progress)
    return CorpusPaired(metric_name, n, bl, sy, sy - bl, p_bs, resamples, mean, half, low, high,
                        p_ar, trials, seed, zero)


# -------------------------------------------------------------------- one system's interval

#: sacrebleu's ``--confidence-n`` default: resamples of one system's corpus-score interval.
CONFIDENCE_RESAMPLES = 1000


def corpus_bootstrap(metric_name: str, stats: np.ndarray, *, resamples: int = CONFIDENCE_RESAMPLES,
                     seed: int = 12345, metric=None) -> tuple[float, float, np.ndarray]:
    """One system's corpus-score interval as ``sacrebleu --confidence`` (``Metric.corpus_score(...,
    n_bootstrap=R)``, ``significance._bootstrap_resample``): ``rng = default_rng(seed)``, the
    resamples ``rng.choice(N, size=(R, N))`` of whole sentences (drawn here in blocks of rows of
    the same stream), each resample's score from its float32-summed statistics; returns
    (mean of the resampled scores, half-width, the resampled scores): the interval is mean +-
    half, the half-width half the distance between the sorted resamples at ``R // 40`` and
    ``R - R // 40 - 1`` (sacrebleu's ``estimate_ci``)."""
    _check_rounds(resamples, "resamples")
    stats = np.asarray(stats, dtype=np.float64)
    n = stats.shape[0]
    if n == 0:
        return float("nan"), float("nan"), np.full(resamples, np.nan)
    from .headline_ci import resampled_sums

    return corpus_interval_from_sums(metric_name, resampled_sums([stats], [resamples], seed=seed)[0],
                                     metric)


def corpus_interval_from_sums(metric_name: str, sums: np.ndarray,
                              metric=None) -> tuple[float, float, np.ndarray]:
    """sacrebleu's interval from the summed statistics of each resample (float32, as sacrebleu);
    ``metric``: the sacrebleu metric object (default: the metric's defaults)."""
    metric = metric if metric is not None else _metric(metric_name)
    scores = scores_from_sums(metric, np.asarray(sums).astype(np.float32))
    mean, half = estimate_ci(scores)
    return mean, half, scores
