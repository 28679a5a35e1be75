"""Intervals of one run's headline numbers (issue 28): a mean over items by the bootstrap with the
t interval beside it, a rate by its proportion interval, a ratio of sums by the ratio bootstrap,
a percentile by its order-statistic interval.

Pure numpy functions.  Every bootstrap draws its resamples from ``numpy.random.default_rng(seed)``
as ``rng.integers(0, n, size=(resamples, n))`` (consecutive row blocks of the same stream, so the
memory stays bounded and the draws are those of one call), which is how
``scipy.stats.bootstrap(..., rng=default_rng(seed))`` draws them: the same seed gives the same
resamples, and the percentile interval agrees with scipy's.
"""

from __future__ import annotations

import functools

import math
from dataclasses import dataclass

import numpy as np

from ..core.blas import single_threaded

#: Bootstrap resamples and seed of a headline interval (written in the signature).
RESAMPLES = 2000
SEED = 12345
#: Draws per block of resamples (rows x items): bounds the memory of the index matrix.
BLOCK_DRAWS = 1 << 20
#: At most this many draws (resamples x items) per headline bootstrap, so that an interval does
#: not slow the first answer on a large file: above it, fewer resamples are drawn, never fewer
#: than MIN_RESAMPLES (2,000 resamples up to 5,000 items, 1,000 at 10,000, 200 from 50,000);
#: each record's ``ci_method`` states the number used.
DRAW_BUDGET = 10_000_000
MIN_RESAMPLES = 200


def effective_resamples(resamples: int, n: int) -> int:
    """The resamples drawn for ``n`` units: ``resamples``, fewer above :data:`DRAW_BUDGET` draws."""
    if n <= 0:
        return int(resamples)
    return int(min(resamples, max(MIN_RESAMPLES, DRAW_BUDGET // n)))


@dataclass(frozen=True)
class MeanCI:
    """One headline mean with its intervals.  ``low``/``high``: the percentile bootstrap (or the
    proportion interval of a 0/1 column); ``t_low``/``t_high``: mean +- t(n-1) SD / sqrt(n).
    ``degenerate``: every resample gave the same value (the interval is NaN, never zero-width)."""

    mean: float
    n: int
    low: float
    high: float
    t_low: float
    t_high: float
    degenerate: bool
    method: str
    #: the bootstrap resamples drawn (None for a non-bootstrap interval)
    resamples: int | None = None


def check_resamples(resamples, seed) -> None:
    from ..core.errors import OptionError

    if isinstance(resamples, bool) or int(resamples) != resamples or not 100 <= resamples <= 1_000_000:
        raise OptionError(f"`ci_resamples` must be a whole number from 100 to 1,000,000; "
                          f"got ci_resamples={resamples!r}.")
    if isinstance(seed, bool) or int(seed) != seed or seed < 0:
        raise OptionError(f"`ci_seed` must be a whole number >= 0; got ci_seed={seed!r}.")


#: the steps of a column's largest magnitude its values are rounded to before the canonical
#: sort of several columns (2**32: far coarser than float noise, far finer than any real
#: difference between two items' metrics)
CANONICAL_STEPS = 2.0**32


def _index_blocks(rng: np.random.Generator, high: int, resamples: int, width: int):
    """Blocks of rows of ``rng.integers(0, high, size=(resamples, width))``, in order."""
    rows = max(1, min(resamples, BLOCK_DRAWS // max(width, 1)))
    for start in range(0, resamples, rows):
        stop = min(resamples, start + rows)
        yield start, stop, rng.integers(0, high, size=(stop - start, width))


#: From this many items on, a column is resampled through a smaller array that fits in the
#: processor's cache: whole numbers as small integers (their sums are exact either way), a column
#: of few distinct values through small integer codes, then its values (the same sums, in the same
#: order).  Bit for bit the floats' sums, two (a float column) to four (a 0/1 column) times faster
#: at a million items.
COMPACT_FROM = 100_000


def _resample_sums(column: np.ndarray, ordered: bool):
    """``sums(idx)`` = ``np.take(column, idx).sum(axis=1)``, from a compact copy of the column
    (``ordered``: the column is sorted, so its distinct values are found in one pass)."""
    n = column.size
    plain = (lambda idx: np.take(column, idx).sum(axis=1))
    if n < COMPACT_FROM or not np.isfinite(column).all():
        return plain
    low, high = float(column.min()), float(column.max())
    if max(-low, high) <= 32767 and (column == np.round(column)).all():
        # whole numbers: an integer sum is exact, and so is the floats' (below 2**53)
        ints = column.astype(np.int8 if max(-low, high) <= 127 else np.int16)
        return lambda idx: np.take(ints, idx).sum(axis=1, dtype=np.int64).astype(float)
    if ordered:
        new = np.empty(n, dtype=bool)
        new[0] = True
        np.not_equal(column[1:], column[:-1], out=new[1:])
        values, codes = column[new], np.cumsum(new) - 1
    else:
        values, codes = np.unique(column, return_inverse=True)
    if values.size > 1 << 16:
        return plain
    codes = codes.astype(np.uint8 if values.size <= 256 else np.uint16)
    return lambda idx: np.take(values, np.take(codes, idx)).sum(axis=1)


@single_threaded
def bootstrap_means(values, *, resamples: int = RESAMPLES, seed=SEED, clusters=None,
                    ordered: bool = False) -> np.ndarray:
    """Bootstrap distribution of the column means of ``values`` (n items x m columns, or n):
    a (resamples x m) array.  Items: n item indices drawn with replacement per resample.
    Clusters (an integer code 0..G-1 per item): G whole clusters drawn with replacement, the
    resample's mean is the sum of their values over their items.

    The rows (items, or clusters with their sums and sizes) are first sorted by their values
    (first column, then the next...), so that the result depends on the data and the seed only,
    never on the order of the rows; on sorted data the resamples are those of
    ``scipy.stats.bootstrap(..., rng=default_rng(seed))``.  ``ordered``: the rows are already
    in that order (:func:`_canonical`), not sorted again."""
    v = np.asarray(values, dtype=float)
    one = v.ndim == 1
    v = v.reshape(v.shape[0], -1)
    n, m = v.shape
    out = np.full((resamples, m), np.nan)
    if n == 0:
        return out[:, 0] if one else out
    rng = np.random.default_rng(seed)
    if clusters is None:
        if not ordered:
            v = v[_canonical(v)]
        # the first column is sorted; the others are not
        sums = ([_resample_sums(np.ascontiguousarray(v[:, j]), j == 0) for j in range(m)]
                if m < 4 else None)
        for start, stop, idx in _index_blocks(rng, n, resamples, n):
            if m < 4:  # gather each column
                for j in range(m):
                    out[start:stop, j] = sums[j](idx) / n
            else:  # how often each item was drawn, times the values: one pass for all columns
                rows = stop - start
                flat = (idx + (np.arange(rows, dtype=np.int64) * n)[:, None]).ravel()
                counts = np.bincount(flat, minlength=rows * n).reshape(rows, n).astype(float)
                out[start:stop] = counts @ v / n
    else:
        codes = np.asarray(clusters, dtype=np.int64)
        g = int(codes.max()) + 1
        net = np.stack([np.bincount(codes, weights=v[:, j], minlength=g) for j in range(m)], axis=1)
        size = np.bincount(codes, minlength=g).astype(float)
        order = _canonical(np.column_stack([net, size]))
        net, size = net[order], size[order]
        for start, stop, idx in _index_blocks(rng, g, resamples, g):
            out[start:stop] = np.take(net, idx, axis=0).sum(axis=1) / size[idx].sum(axis=1)[:, None]
    return out[:, 0] if one else out


def _canonical(rows: np.ndarray) -> np.ndarray:
    """The order of the rows sorted by their first column, then the next...: resampling the
    rows in this order makes a seeded result depend on the data only, never on the row order.

    With several columns each is first rounded to :data:`CANONICAL_STEPS` steps of its largest
    magnitude, and the rows are sorted by these rounded columns, then by the exact values: two
    rows whose first values differ only by the float noise of summing in another order (an
    engine's parallel sums, 1e-16) are then ordered by their next column, as equal rows are,
    instead of by the noise, which would swap their other columns and move an interval in its
    7th digit from one run to the next.  The exact values last keep rows that the rounding
    makes equal but that differ (1e-3 and 2e-3 beside 1e9) in an order of their own, not the
    file's.  One column needs no rounding (swapping two values that differ by noise moves a
    mean by noise)."""
    if rows.shape[1] == 1:
        return np.argsort(rows[:, 0], kind="stable")
    keys = np.empty_like(rows, dtype=float)
    for j in range(rows.shape[1]):
        column = rows[:, j]
        finite = np.isfinite(column)
        scale = float(np.abs(column[finite]).max()) if finite.any() else 0.0
        step = scale / CANONICAL_STEPS
        if step > 0 and math.isfinite(step):
            keys[:, j] = np.where(finite, np.round(column / step), column)
        else:  # all zero (or too small to divide into steps): the values themselves
            keys[:, j] = column
    # np.lexsort sorts by its last key first: the rounded columns, then the exact ones
    return np.lexsort(np.concatenate([rows.T[::-1], keys.T[::-1]]))


def percentile_interval(samples, level: float = 0.95) -> tuple[float, float]:
    """The percentile interval of bootstrap samples (numpy's linear interpolation, as
    ``scipy.stats.bootstrap(method='percentile')``)."""
    s = np.asarray(samples, dtype=float)
    s = s[np.isfinite(s)]
    if s.size == 0:
        return float("nan"), float("nan")
    a = (1.0 - level) / 2.0
    low, high = np.percentile(s, [100 * a, 100 * (1 - a)])
    return float(low), float(high)


def is_degenerate(samples, centre: float) -> bool:
    """Every resample equal, up to the float noise of summing in another order."""
    s = np.asarray(samples, dtype=float)
    s = s[np.isfinite(s)]
    if s.size == 0:
        return True
    scale = max(float(np.abs(s).max()), abs(centre) if math.isfinite(centre) else 0.0, 1e-300)
    return float(np.ptp(s)) <= 1e-12 * scale


def t_interval(values, level: float = 0.95) -> tuple[float, float]:
    """mean +- t(level, n - 1) SD / sqrt(n) (``scipy.stats.t.interval``); NaN below 2 items or
    with SD 0 (a zero-width interval is not an interval)."""
    from scipy.special import stdtrit

    x = np.asarray(values, dtype=float)
    n = x.size
    if n < 2:
        return float("nan"), float("nan")
    sd = float(x.std(ddof=1))
    mean = float(x.mean())
    if not sd > 1e-12 * max(abs(mean), 1e-300):
        return float("nan"), float("nan")
    q = float(stdtrit(n - 1, 0.5 + level / 2.0))
    half = q * sd / math.sqrt(n)
    return mean - half, mean + half


def is_binary(values) -> bool:
    x = np.asarray(values, dtype=float)
    return x.size > 0 and bool(np.all((x == 0) | (x == 1)))


def mean_intervals(columns: dict[str, np.ndarray], *, resamples: int = RESAMPLES, seed: int = SEED,
                   clusters=None, level: float = 0.95, sample_means=None,
                   unit_ids=None, samples=None, rates: bool = True) -> dict[str, MeanCI]:
    """The headline interval of each column's mean (all columns the same n items).

    A 0/1 column is a rate: its interval is the proportion interval
    (:func:`~workbench.metrics.intervals.rate_interval_method`: Wilson, or Clopper-Pearson
    below 30 items and at 0% or 100%), or the cluster bootstrap when clusters are given; any
    other column gets the percentile bootstrap (one set of resamples shared by the columns)
    and its t interval beside it (not clipped to the metric's range; none with clusters, as it
    would treat the items as independent).

    ``sample_means(matrix, resamples)``, if given, makes the bootstrap means of the columns of
    ``matrix`` (items in the canonical order) instead of :func:`bootstrap_means` (shared draws,
    see :func:`resampled_sums`).

    ``unit_ids`` (one id per row): the Poisson bootstrap whose weights are a hash of (unit id,
    replicate, seed) (:mod:`workbench.metrics.poisson_bootstrap`), the same in every engine,
    instead of the multinomial resampling.

    ``samples``: the bootstrap means of the columns that are not 0/1, already drawn (a
    (resamples x columns) array, e.g. the numerator's from :func:`ratio_bootstrap`).

    ``rates=False``: the columns are amounts (costs, steps), never rates, even when every value
    is 0 or 1 (a free system's costs are all 0: a constant, not a 0% rate)."""
    names = list(columns)
    out: dict[str, MeanCI] = {}
    if not names:
        return out
    mat = np.column_stack([np.asarray(columns[k], dtype=float) for k in names])
    n = mat.shape[0]
    binary = {k: rates and clusters is None and is_binary(columns[k]) for k in names}
    boot = [k for k in names if not binary[k]]
    units = n if clusters is None else int(np.unique(np.asarray(clusters)).size)
    drawn = effective_resamples(resamples, units)
    if not (boot and n):
        samples = None
    elif samples is not None:
        samples = np.asarray(samples, dtype=float).reshape(-1, len(boot))
        drawn = samples.shape[0]
    else:
        cols = mat[:, [names.index(k) for k in boot]]
        if unit_ids is not None and clusters is None:
            from .poisson_bootstrap import replicate_means

            samples = replicate_means(cols, unit_ids, resamples=drawn, seed=seed)
            samples = samples[~np.isnan(samples).any(axis=1)]  # a replicate of all-0 weights
        else:
            samples = (sample_means(cols[_canonical(cols)], drawn) if sample_means is not None and clusters is None
                       else bootstrap_means(cols, resamples=drawn, seed=seed, clusters=clusters))
    for j, k in enumerate(names):
        x = mat[:, j]
        mean = float(x.mean()) if n else float("nan")
        # the t interval treats the items as independent: not beside a cluster bootstrap
        t_low, t_high = t_interval(x, level) if clusters is None else (float("nan"), float("nan"))
        if binary[k]:
            out[k] = rate_ci(int(round(float(x.sum()))), n, level=level)
            continue
        s = samples[:, boot.index(k)] if samples is not None else np.full(1, np.nan)
        degenerate = n > 0 and is_degenerate(s, mean)
        low, high = (float("nan"), float("nan")) if degenerate else percentile_interval(s, level)
        method = ("cluster-bootstrap-percentile" if clusters is not None else
                  "poisson-hash-bootstrap-percentile" if unit_ids is not None else "bootstrap-percentile")
        out[k] = MeanCI(mean, n, low, high, t_low, t_high, degenerate, method, drawn)
    return out


@single_threaded
def multinomial_means(values, counts, *, resamples: int = RESAMPLES, seed=SEED) -> np.ndarray:
    """The item bootstrap of the column means when the items fall into a few groups of equal
    rows: ``values`` (groups x m) one row per group, ``counts`` its items.  Resampling the n
    items with replacement draws each group's items from Multinomial(n, counts / n), so a
    resample's means are (drawn counts @ values) / n: the law of resampling the items, at a cost
    independent of n (another random stream than :func:`bootstrap_means`' index draws).
    A (resamples x m) array."""
    v = np.asarray(values, dtype=float).reshape(len(counts), -1)
    c = np.asarray(counts, dtype=np.int64)
    n = int(c.sum())
    out = np.full((resamples, v.shape[1]), np.nan)
    if n == 0:
        return out
    rng = np.random.default_rng(seed)
    rows = max(1, min(resamples, BLOCK_DRAWS // max(len(c), 1)))
    for start in range(0, resamples, rows):
        stop = min(resamples, start + rows)
        out[start:stop] = rng.multinomial(n, c / n, size=stop - start) @ v / n
    return out


def rate_ci(successes: int, n: int, level: float = 0.95) -> MeanCI:
    """A rate's headline interval from its counts: the proportion interval of
    :func:`~workbench.metrics.intervals.rate_interval_method` (what :func:`mean_intervals`
    gives a 0/1 column)."""
    from .intervals import proportion_interval, rate_interval_method

    method = rate_interval_method(successes, n)
    low, high = proportion_interval(successes, n, method, level=level)
    mean = successes / n if n else float("nan")
    return MeanCI(float(mean), n, low, high, float("nan"), float("nan"), False, method)


def ratio_bootstrap(numerator, denominator, *, resamples: int = RESAMPLES, seed: int = SEED,
                    with_numerator: bool = False):
    """Bootstrap of sum(numerator) / sum(denominator) over units (requests), numerator and
    denominator of a unit resampled together; a resample whose denominator sums to 0 is NaN.
    Fewer resamples above :data:`DRAW_BUDGET` draws (the length of the result says how many).

    ``with_numerator``: also the numerator's own bootstrap means, as
    ``bootstrap_means(numerator, resamples=effective_resamples(resamples, n), seed=seed)``
    gives them (the same draws over the same sorted values), or None when the canonical order
    of the pairs does not sort the numerator exactly (two values within float noise of each
    other): ``(ratios, means or None)``."""
    num = np.asarray(numerator, dtype=float)
    den = np.asarray(denominator, dtype=float)
    pairs = np.column_stack([num, den])
    pairs = pairs[_canonical(pairs)]
    sums = bootstrap_means(pairs, resamples=effective_resamples(resamples, num.size), seed=seed,
                           ordered=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = np.where(sums[:, 1] != 0, sums[:, 0] / sums[:, 1], np.nan)
    if not with_numerator:
        return ratio
    sorted_exactly = num.size < 2 or bool((pairs[1:, 0] >= pairs[:-1, 0]).all())
    return ratio, (sums[:, 0].copy() if sorted_exactly and num.size else None)


def quantile_interval(values, quantile: float, level: float = 0.95) -> tuple[float, float]:
    """Distribution-free interval of a population quantile from two order statistics (binomial
    counts of the values below it), as ``scipy.stats.quantile_test(x, p=quantile)
    .confidence_interval(level)``: with B ~ Binomial(n, quantile) and a = (1 - level) / 2, the
    sorted values x[ppf_B(a) - 1] and x[isf_B(a)] (0-based); an end the sample is too small to
    reach is NaN (a 99th percentile of 100 values has no upper bound)."""
    from scipy.stats import binom

    x = np.sort(np.asarray(values, dtype=float))
    n = x.size
    if n == 0:
        return float("nan"), float("nan")
    a = (1.0 - level) / 2.0
    lo_i = int(binom.ppf(a, n, quantile)) - 1
    hi_i = int(binom.isf(a, n, quantile))
    low = float(x[lo_i]) if lo_i >= 0 else float("nan")
    high = float(x[hi_i]) if hi_i < n else float("nan")
    return low, high


@functools.lru_cache(maxsize=128)
def quantile_interval_size(quantile: float, level: float = 0.95, *, limit: int = 100_000) -> int | None:
    """The fewest values whose :func:`quantile_interval` has both ends (None beyond ``limit``).

    Both ends exist when P(B = 0) = (1 - q)^n < a (the lower order statistic is the first or
    later) and P(B = n) = q^n <= a (the upper one is within the sample), so the answer is near
    max(log a / log(1 - q), log a / log q); scipy's own ppf/isf decide in a window around that
    guess (floating point at the boundary), and a scan of every n below ``limit`` is the
    fallback.  (Scanning every n took about a second a call: ten calls per cost run.)"""
    from scipy.stats import binom

    a = (1.0 - level) / 2.0

    def first_ok(ns: np.ndarray) -> int | None:
        ok = (binom.ppf(a, ns, quantile) >= 1) & (binom.isf(a, ns, quantile) < ns)
        return int(ns[np.argmax(ok)]) if ok.any() else None

    if 0.0 < quantile < 1.0 and 0.0 < a < 1.0:
        guess = max(math.log(a) / math.log1p(-quantile), math.log(a) / math.log(quantile), 1.0)
        start = max(1, int(math.floor(guess)) - 3)
        if start + 6 <= limit:
            window = np.arange(start, start + 7)
            found = first_ok(window)
            # the first n of the window that works, and the one before it does not (or is n = 1)
            if found is not None and (found > start or start == 1):
                return found
    return first_ok(np.arange(1, limit + 1))


def stratified_mean_of_means(values, codes, labels, *, resamples: int = RESAMPLES, seed: int = SEED) -> np.ndarray:
    """Bootstrap of the mean of the group means (a macro average), items resampled within each
    group (the groups are fixed): group j (in the order of its label, so the result does not
    depend on the row order) draws from ``default_rng(SeedSequence(seed, spawn_key=(j,)))``; a
    group of 0/1 values draws its resampled rate as Binomial(n_j, rate_j) / n_j, which is the
    law of the mean of n_j draws with replacement.  Returns the macro means of the resamples
    (fewer above :data:`DRAW_BUDGET` draws over all the items)."""
    v = np.asarray(values, dtype=float)
    codes = np.asarray(codes, dtype=np.int64)
    resamples = effective_resamples(resamples, v.size)
    total = np.zeros(resamples)
    present = [g for g in range(len(labels)) if np.any(codes == g)]
    for j, g in enumerate(sorted(present, key=lambda g: str(labels[g]))):
        x = v[codes == g]
        ss = np.random.SeedSequence(seed, spawn_key=(j,))
        if is_binary(x):
            total += _binomial_rates(x.size, int(round(float(x.sum()))), resamples, ss)
        else:
            total += bootstrap_means(x, resamples=resamples, seed=ss)
    return total / max(len(present), 1)


def _binomial_rates(n: int, successes: int, resamples: int, seed_sequence) -> np.ndarray:
    """Resampled rates of a group of n 0/1 values: Binomial(n, rate) / n."""
    rng = np.random.default_rng(seed_sequence)
    return rng.binomial(n, successes / n, size=resamples) / n


def stratified_rates(items, successes, labels, *, resamples: int = RESAMPLES,
                     seed: int = SEED) -> np.ndarray:
    """:func:`stratified_mean_of_means` of 0/1 values from their counts per group (``items``
    and ``successes`` per label; groups without items are left out): the same draws, so the
    same resamples, as from the values themselves."""
    items = np.asarray(items, dtype=np.int64)
    successes = np.asarray(successes, dtype=np.int64)
    resamples = effective_resamples(resamples, int(items.sum()))
    total = np.zeros(resamples)
    present = [g for g in range(len(labels)) if items[g] > 0]
    for j, g in enumerate(sorted(present, key=lambda g: str(labels[g]))):
        ss = np.random.SeedSequence(seed, spawn_key=(j,))
        total += _binomial_rates(int(items[g]), int(successes[g]), resamples, ss)
    return total / max(len(present), 1)


@single_threaded
def resampled_sums(matrices: list[np.ndarray], resamples: list[int], *, seed: int = SEED) -> list[np.ndarray]:
    """Column sums of resampled rows of several matrices of the same n rows, from one set of
    draws: ``rng = default_rng(seed)``, the resamples ``rng.integers(0, n, size=(R, n))`` (which
    is also ``rng.choice(n, size=(R, n))``, sacrebleu's draws, and scipy's), drawn once in blocks
    of rows; matrix i gets the sums of the first ``resamples[i]`` resamples (R = the largest),
    a (resamples[i] x columns) array.  The rows are used in the order given."""
    n = matrices[0].shape[0]
    most = max(resamples)
    outs = [np.empty((r, m.shape[1])) for r, m in zip(resamples, matrices)]
    mats = [np.asarray(m, dtype=np.float64) for m in matrices]
    for start, stop, counts in _resample_counts(n, most, seed):
        counts = counts.astype(np.float64)
        for out, m, r in zip(outs, mats, resamples):
            if start < r:
                take = min(stop, r) - start
                out[start:start + take] = counts[:take] @ m
    return outs


#: The last resamples' counts kept for the next call with the same (n, resamples, seed): the
#: conventions table runs an analysis once per convention on the same items, and each run draws
#: the same resamples (at most this many bytes are kept).
COUNTS_CACHE_BYTES = 64 * 10**6
_COUNTS_CACHE: dict = {}
_COUNTS_LOCK = __import__("threading").Lock()


def _resample_counts(n: int, resamples: int, seed: int):
    """Blocks ``(start, stop, counts)`` of how many times each of the n rows is drawn in each
    resample (``counts[i, j]``: row j in resample start + i), from ``default_rng(seed)``'s
    ``integers(0, n, size=(resamples, n))`` drawn in blocks of rows; the last call's counts are
    reused when they fit in :data:`COUNTS_CACHE_BYTES` (as small integers)."""
    key = (int(n), int(resamples), int(seed))
    with _COUNTS_LOCK:
        cached = _COUNTS_CACHE.get(key)
    if cached is not None:
        yield from cached
        return
    keep = resamples * n <= COUNTS_CACHE_BYTES
    blocks = []
    rng = np.random.default_rng(seed)
    for start, stop, idx in _index_blocks(rng, n, resamples, n):
        rows = stop - start
        flat = (idx + (np.arange(rows, dtype=np.int64) * n)[:, None]).ravel()
        counts = np.bincount(flat, minlength=rows * n).reshape(rows, n)
        if keep:
            small = counts.astype(np.uint8)
            if int(counts.max(initial=0)) > 255:  # never in practice: keep nothing then
                keep = False
            else:
                counts = small
                blocks.append((start, stop, small))
        yield start, stop, counts
    if keep:
        with _COUNTS_LOCK:
            _COUNTS_CACHE.clear()
            _COUNTS_CACHE[key] = blocks
