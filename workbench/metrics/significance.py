"""Paired significance for two systems scored on the same items (binary outcomes).

Notation: ``wins`` (b) = items the candidate passes and the baseline fails, ``losses`` (c) =
the reverse, ``n`` = all paired items.  The difference in success rate is ``(b - c) / n``.

scipy is imported lazily (it costs most of a second at start-up).
"""

from __future__ import annotations

import math

from dataclasses import dataclass

import numpy as np

from ..core.errors import OptionError
from ..core.progress import NULL_PROGRESS
from .intervals import Z95


@dataclass(frozen=True)
class PairedCounts:
    wins: int
    losses: int
    ties: int

    @property
    def n(self) -> int:
        return self.wins + self.losses + self.ties

    @property
    def discordant(self) -> int:
        return self.wins + self.losses

    @property
    def diff(self) -> float:
        return (self.wins - self.losses) / self.n if self.n else float("nan")


def paired_counts(baseline, candidate) -> PairedCounts:
    """Count wins, losses and ties of ``candidate`` over ``baseline`` (0/1 arrays)."""
    a = np.asarray(baseline).astype(bool)
    b = np.asarray(candidate).astype(bool)
    if a.shape != b.shape:
        raise ValueError("baseline and candidate must have the same length")
    wins = int(np.count_nonzero(b & ~a))
    losses = int(np.count_nonzero(a & ~b))
    return PairedCounts(wins, losses, int(a.size) - wins - losses)


def sign_test(wins: int, losses: int) -> tuple[float, float]:
    """Exact two-sided sign test on the discordant pairs, and its mid-p version.

    Under H0 wins ~ Binomial(b + c, 1/2).  With m = min(b, c):
    p = min(1, 2 P(X <= m)) (equal to ``scipy.stats.binomtest(b, b + c).pvalue``);
    mid-p = 2 P(X < m) + P(X = m), which halves the weight of the observed table (summed
    without cancellation, so it never drops below 0 when the tail underflows).
    No discordant pair gives (1.0, 1.0).

    >>> [round(x, 3) for x in sign_test(14, 5)]
    [0.064, 0.041]
    """
    cdf, pmf = _binomial()
    d = wins + losses
    if d == 0:
        return 1.0, 1.0
    m = min(wins, losses)
    point = float(pmf(m, d, 0.5))
    below = float(cdf(m - 1, d, 0.5)) if m > 0 else 0.0
    exact = min(1.0, 2.0 * float(cdf(m, d, 0.5)))
    midp = min(exact, 2.0 * below + point)  # mid-p <= exact p, also where scipy's tail underflows
    return exact, midp


def sign_tests(wins, losses) -> tuple[np.ndarray, np.ndarray]:
    """:func:`sign_test` of many (wins, losses) pairs at once (arrays of the same shape): the
    exact p and the mid-p of each, from one call of each of scipy's binomial functions (equal
    to :func:`sign_test` element by element; a pair without a discordant item gives 1, 1)."""
    from scipy.stats import binom

    b = np.asarray(wins, dtype=np.int64)
    c = np.asarray(losses, dtype=np.int64)
    d = b + c
    m = np.minimum(b, c)
    dd = np.maximum(d, 1)  # d = 0 is answered below; binom wants n >= 1 there
    point = binom.pmf(m, dd, 0.5)
    below = np.where(m > 0, binom.cdf(m - 1, dd, 0.5), 0.0)
    exact = np.minimum(1.0, 2.0 * binom.cdf(m, dd, 0.5))
    midp = np.minimum(exact, 2.0 * below + point)
    none = d == 0
    return np.where(none, 1.0, exact), np.where(none, 1.0, midp)


def mcnemar(wins: int, losses: int, *, correction: bool) -> tuple[float, float]:
    """McNemar chi-square (1 df) on the discordant counts; ``(nan, nan)`` if none.

    Uncorrected: (b - c)^2 / (b + c).  With Edwards' continuity correction:
    max(0, |b - c| - 1)^2 / (b + c) -- the correction never overshoots zero (as in R's
    ``mcnemar.test``; statsmodels would give 1 / (b + c) when b == c).

    >>> [round(x, 3) for x in mcnemar(14, 5, correction=False)]
    [4.263, 0.039]
    """
    from scipy.special import chdtrc  # what scipy.stats.chi2.sf computes (without importing scipy.stats)

    d = wins + losses
    if d == 0:
        return float("nan"), float("nan")
    diff = abs(wins - losses)
    if correction:
        diff = max(0.0, diff - 1.0)
    stat = diff * diff / d
    return float(stat), float(chdtrc(1, stat))


def _binomial():
    """The binomial cdf and pmf exactly as ``scipy.stats.binom`` computes them (the special
    functions it calls), without importing ``scipy.stats`` (half a second of a command's start);
    ``scipy.stats.binom`` itself where those functions are not there (older scipy)."""
    try:
        from scipy.special._ufuncs import _binom_cdf, _binom_pmf

        return (lambda k, n, p: _binom_cdf(float(k), n, p)), (lambda k, n, p: _binom_pmf(float(k), n, p))
    except ImportError:  # pragma: no cover - scipy < 1.12
        from scipy.stats import binom

        return binom.cdf, binom.pmf


def paired_normal_interval(wins: int, losses: int, n: int, *, z: float = Z95):
    """Difference ``(b - c)/n`` with SE = sqrt(b + c - (b - c)^2 / n) / n; returns
    ``(diff, se, low, high)``.  The bounds are clipped to [-1, 1], the range of a difference
    of two rates (only ever active for a handful of items)."""
    if n <= 0:
        nan = float("nan")
        return nan, nan, nan, nan
    diff = (wins - losses) / n
    se = float(np.sqrt(max(0.0, wins + losses - (wins - losses) ** 2 / n))) / n
    return diff, se, max(-1.0, diff - z * se), min(1.0, diff + z * se)


def tango_interval(wins: int, losses: int, n: int, *, z: float = Z95) -> tuple[float, float]:
    """Tango's (1998) asymptotic score interval of the paired difference ``(b - c)/n``: the
    differences d0 whose score statistic (b - c - n d0) / sqrt(n (2 q + d0 (1 - d0))), with q the
    restricted maximum-likelihood estimate of the cell probability of ``losses``, stays within
    +-z.  Unlike the normal (Wald) interval it does not collapse when no item differs.

    >>> [round(x, 6) for x in tango_interval(0, 0, 40)]
    [-0.087622, 0.087622]
    """
    if n <= 0:
        return float("nan"), float("nan")
    from scipy.optimize import brentq

    def score(d0: float) -> float:
        a = 2.0 * n
        bb = -wins - losses + (2.0 * n - wins + losses) * d0
        cc = -losses * d0 * (1.0 - d0)
        q = (math.sqrt(max(0.0, bb * bb - 4.0 * a * cc)) - bb) / (2.0 * a)
        var = n * (2.0 * q + d0 * (1.0 - d0))
        top = wins - losses - n * d0
        if top == 0:
            return 0.0
        return top / math.sqrt(var) if var > 0 else math.copysign(math.inf, top)

    est, tol = (wins - losses) / n, 1e-12
    low = -1.0 if est <= -1.0 else brentq(lambda d: score(d) - z, -1.0 + tol, min(est, 1.0 - tol) if est < 1 else 1.0 - tol,
                                          xtol=1e-12)
    high = 1.0 if est >= 1.0 else brentq(lambda d: score(d) + z, max(est, -1.0 + tol), 1.0 - tol, xtol=1e-12)
    return float(low), float(high)


def bootstrap_paired_counts(wins: int, losses: int, n: int, *, resamples: int, seed: int,
                            progress=NULL_PROGRESS) -> np.ndarray:
    """Paired bootstrap of the difference by resampling the item cells.

    Resampling n items with replacement from a table of (win, loss, tie) items is the same
    as drawing the three cell counts from Multinomial(n, (b/n, c/n, t/n)); so the cost does
    not grow with n.  Returns ``resamples`` differences ``(b* - c*) / n``.
    """
    _check_resamples(resamples)
    if n <= 0:
        return np.full(resamples, np.nan)
    rng = np.random.default_rng(seed)
    probs = np.array([wins, losses, n - wins - losses], dtype=float) / n
    out = np.empty(resamples)
    batch = 100_000
    for start in range(0, resamples, batch):
        progress.check_cancelled()
        size = min(batch, resamples - start)
        cells = rng.multinomial(n, probs, size=size)
        out[start:start + size] = (cells[:, 0] - cells[:, 1]) / n
        progress.advance((start + size) / resamples, "bootstrap")
    return out


def bootstrap_clustered(cluster_net, cluster_size, *, resamples: int, seed: int,
                        progress=NULL_PROGRESS) -> np.ndarray:
    """Cluster bootstrap of the paired difference.

    ``cluster_net[g]`` = wins - losses inside cluster g, ``cluster_size[g]`` = its items.
    Each resample draws G clusters with replacement (as multiplicities from
    Multinomial(G, 1/G)) and returns sum(net) / sum(size) over the drawn clusters.
    Work is O(resamples x G) in vectorised blocks; nothing loops over items.
    """
    _check_resamples(resamples)
    net = np.asarray(cluster_net, dtype=float)
    size = np.asarray(cluster_size, dtype=float)
    g = net.size
    if g == 0:
        return np.full(resamples, np.nan)
    rng = np.random.default_rng(seed)
    out = np.empty(resamples)
    batch = max(1, min(resamples, 4_000_000 // g))
    for start in range(0, resamples, batch):
        progress.check_cancelled()
        rows = min(batch, resamples - start)
        idx = rng.integers(0, g, size=(rows, g))
        out[start:start + rows] = net[idx].sum(axis=1) / size[idx].sum(axis=1)
        progress.advance((start + rows) / resamples, "cluster bootstrap")
    return out


def percentile_interval(samples, level: float = 0.95) -> tuple[float, float]:
    """Percentile interval (numpy's linear interpolation) of bootstrap samples."""
    s = np.asarray(samples, dtype=float)
    s = s[np.isfinite(s)]
    if s.size == 0:
        return float("nan"), float("nan")
    alpha = (1.0 - level) / 2.0
    low, high = np.percentile(s, [100 * alpha, 100 * (1 - alpha)])
    return float(low), float(high)


def _check_resamples(resamples: int) -> None:
    if int(resamples) != resamples or resamples < 1:
        raise OptionError(f"`resamples` must be a whole number >= 1; got resamples={resamples!r}.")
