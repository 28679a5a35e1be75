"""The paired bootstrap of :mod:`workbench.metrics.paired`: the mean difference resampled over
items (blocked, seeded per block, on two threads) or whole clusters, the jackknife and the BCa
interval, and the bootstrap of one sample's quantiles."""

from __future__ import annotations

import numpy as np

from ..core.blas import single_threaded
from ..core.errors import OptionError
from ..core.progress import NULL_PROGRESS
from .significance import bootstrap_clustered
from ._blocked import by_value_means


@single_threaded
def bootstrap_means(d, *, resamples: int, seed: int, clusters=None, by_value: bool = False,
                    progress=NULL_PROGRESS) -> np.ndarray:
    """Paired bootstrap distribution of the mean difference.

    Items: each resample draws n item indices with replacement (numpy PCG64 streams spawned
    from ``seed``, see ``BLOCK_DRAWS``) and takes the mean of their differences.  When the
    differences take few distinct values (at most n / 32, e.g. binary outcomes or graded
    scores), the equivalent draw of how often each value is drawn, from a multinomial, is
    used instead: the same distribution, at a cost independent of n.

    Clusters (``clusters`` = an integer code per item): each resample draws G whole clusters
    with replacement and returns sum of their differences / their items.

    ``by_value``: the counts of every value at least 16 items share, and index draws for the
    rest only (:func:`~workbench.metrics._blocked.by_value_means`; the same law, another
    stream: callers say so in their signature).
    """
    _check_rounds(resamples, "resamples")
    d = np.asarray(d, dtype=float)
    n = d.size
    if n == 0:
        return np.full(resamples, np.nan)
    rng = np.random.default_rng(seed)
    out = np.empty(resamples)
    if clusters is not None:  # the binary analysis's cluster bootstrap, on any differences
        codes = np.asarray(clusters, dtype=np.int64)
        g = int(codes.max()) + 1
        net = np.bincount(codes, weights=d, minlength=g)
        size = np.bincount(codes, minlength=g).astype(float)
        return bootstrap_clustered(net, size, resamples=resamples, seed=seed, progress=progress)
    if by_value:
        return by_value_means(d, resamples=resamples, seed=seed, progress=progress)
    values, counts = np.unique(d, return_counts=True)
    if values.size * 32 <= n:
        probs = counts / n
        batch = max(1, min(resamples, 2_000_000 // values.size))
        for start in range(0, resamples, batch):
            progress.check_cancelled()
            rows = min(batch, resamples - start)
            draws = rng.multinomial(n, probs, size=rows)
            out[start:start + rows] = (draws @ values) / n
            progress.advance((start + rows) / resamples, "bootstrap")
        return out
    return _item_bootstrap(d, resamples, seed, progress, out)


#: Item bootstrap work is cut into blocks of about this many draws; block k draws from its own
#: stream ``default_rng(SeedSequence(seed, spawn_key=(k,)))``, so the result depends on the
#: seed only (not on the number of threads), and blocks run on two threads (numpy releases
#: the GIL while drawing, gathering and summing).
BLOCK_DRAWS = 1_000_000
THREADS = 2
#: Inside a block the draws are made, gathered and summed in pieces of about this many draws
#: from the block's one stream (consecutive ``integers`` calls continue the same stream, so
#: the values are the same as one call's), with the gather written into a reused buffer
#: (``np.take(..., mode="wrap")``: no bounds check, the indices are in range): the pieces
#: stay in the CPU cache instead of streaming 16 MB of fresh memory per block (measured:
#: about a third less CPU; same bits).
PIECE_DRAWS = 1 << 17


def _item_bootstrap(d: np.ndarray, resamples: int, seed: int, progress, out: np.ndarray) -> np.ndarray:
    n = d.size
    rows = max(1, min(resamples, BLOCK_DRAWS // n))
    starts = list(range(0, resamples, rows))

    def block(k: int) -> None:
        progress.check_cancelled()
        start = starts[k]
        size = min(rows, resamples - start)
        rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(k,)))
        piece = max(1, min(size, PIECE_DRAWS // n))
        buf = np.empty((piece, n))
        for at in range(0, size, piece):
            r = min(piece, size - at)
            idx = rng.integers(0, n, size=(r, n))  # intp: numpy gathers fastest with it (measured)
            # sum / n is what ndarray.mean does (same pairwise sum along each row)
            out[start + at:start + at + r] = np.add.reduce(np.take(d, idx, out=buf[:r], mode="wrap"),
                                                           axis=1) / n

    if len(starts) == 1:
        block(0)
        return out
    from concurrent.futures import ThreadPoolExecutor

    done = 0
    with ThreadPoolExecutor(max_workers=THREADS) as pool:
        for _ in pool.map(block, range(len(starts))):
            done += 1
            progress.advance(done / len(starts), "bootstrap")
    return out


def jackknife_means(d, clusters=None) -> np.ndarray:
    """Leave-one-out means (items), or leave-one-cluster-out ratios sum(d) / items."""
    d = np.asarray(d, dtype=float)
    if clusters is None:
        n = d.size
        if n < 2:
            return np.full(n, np.nan)
        return (d.sum() - d) / (n - 1)
    codes = np.asarray(clusters, dtype=np.int64)
    g = int(codes.max()) + 1
    net = np.bincount(codes, weights=d, minlength=g)
    size = np.bincount(codes, minlength=g).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (net.sum() - net) / (size.sum() - size)


def bca_interval(samples, theta_hat: float, jackknife, level: float = 0.95) -> tuple[float, float]:
    """Bias-corrected and accelerated interval (Efron and Tibshirani 1993, 14.3), computed as
    ``scipy.stats.bootstrap(method='BCa')`` does: z0 = Phi^-1(mid-rank share of resamples below
    theta_hat, a resample within 1e-10 of the scale of theta_hat counting as equal to it), acceleration a from the jackknife values, the adjusted levels
    Phi(z0 + (z0 + z) / (1 - a (z0 + z))) read from the samples by linear interpolation.
    NaN when the distribution is degenerate (every resample equal).
    """
    from scipy.special import ndtr, ndtri

    s = np.asarray(samples, dtype=float)
    jk = np.asarray(jackknife, dtype=float)
    if s.size == 0 or not np.isfinite(theta_hat) or not np.all(np.isfinite(s)):
        return float("nan"), float("nan")
    # resamples equal to theta_hat in exact arithmetic (common for scores on a grid) differ from
    # it by the float noise of summing in another order: they count as equal (half below)
    tol = 1e-10 * max(float(np.abs(s).max()), abs(theta_hat))
    share = (np.count_nonzero(s < theta_hat - tol) + np.count_nonzero(s <= theta_hat + tol)) / (2 * s.size)
    z0 = float(ndtri(share))
    u = (jk.size - 1) * (jk.mean() - jk) if jk.size else np.zeros(0)
    den = float(np.sum(u ** 2) / jk.size ** 2) if jk.size else 0.0
    num = float(np.sum(u ** 3) / jk.size ** 3) if jk.size else 0.0
    with np.errstate(invalid="ignore", divide="ignore"):
        a = num / den ** 1.5 / 6.0 if den > 0 else float("nan")
    alpha = (1.0 - level) / 2.0
    z = float(ndtri(alpha))
    levels = []
    for zz in (z, -z):
        nm = z0 + zz
        levels.append(float(ndtr(z0 + nm / (1 - a * nm))))
    if not all(np.isfinite(levels)):
        return float("nan"), float("nan")
    low, high = np.quantile(s, levels)
    return float(low), float(high)


def _check_rounds(value, name: str) -> None:
    if isinstance(value, bool) or int(value) != value or value < 1:
        raise OptionError(f"`{name}` must be a whole number >= 1; got {name}={value!r}.")


# ---------------------------------------------------------------------------- unpaired statistics


def bootstrap_quantiles(values, quantiles, *, method: str = "linear", resamples: int = 2000,
                        seed: int = 12345) -> np.ndarray:
    """Bootstrap of one sample's quantiles (percent, numpy ``method``): a (resamples x
    len(quantiles)) array with the law of ``np.percentile(x[idx], q, method=method)`` for
    ``idx`` n indices drawn uniformly with replacement, at a cost independent of n.

    With x sorted, a resample's k-th smallest value is ``x[J_k]``, J_k the k-th smallest of
    the n drawn indices; J_k = floor(n U_(k)) for U_(k) the k-th order statistic of n uniforms
    on [0, 1), and the order statistics a quantile needs are drawn jointly and exactly from
    their spacings: U_(k) ~ Beta(k, n - k + 1), then U_(k') = U_(k) + (1 - U_(k)) Beta(k' - k,
    n - k' + 1) for k' > k.  numpy's quantile of a sample of n values sits at a virtual
    position between two adjacent order statistics that depends only on n, q and the method
    (read off ``np.percentile(arange(n), q, method)``); the resample's quantile is the same
    interpolation between the two drawn order statistics."""
    _check_rounds(resamples, "resamples")
    x = np.sort(np.asarray(values, dtype=float))
    n = x.size
    qs = list(quantiles)
    out = np.full((resamples, len(qs)), np.nan)
    if n == 0 or not qs:
        return out
    pos = np.atleast_1d(np.percentile(np.arange(n, dtype=float), qs, method=method))
    low = np.floor(pos).astype(np.int64)
    frac = pos - low
    # 1-based ranks of the order statistics needed, increasing
    ranks = np.unique(np.concatenate([low + 1, np.minimum(low + 2, n)]))
    rng = np.random.default_rng(seed)
    u = np.empty((resamples, ranks.size))
    prev, prev_u = 0, np.zeros(resamples)
    for j, k in enumerate(ranks):
        gap = rng.beta(k - prev, n - k + 1, size=resamples)
        prev_u = prev_u + (1.0 - prev_u) * gap
        u[:, j] = prev_u
        prev = k
    value = x[np.minimum((u * n).astype(np.int64), n - 1)]   # (resamples, ranks)
    col = {int(k): j for j, k in enumerate(ranks)}
    for i in range(len(qs)):
        a = value[:, col[int(low[i]) + 1]]
        if frac[i] == 0:
            out[:, i] = a
        else:
            b = value[:, col[int(min(low[i] + 2, n))]]
            out[:, i] = a + frac[i] * (b - a)
    return out
