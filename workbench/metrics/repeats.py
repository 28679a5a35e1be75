"""Repeated runs of the same items (epochs, seeds, ``--repeat``): how much of the noise is the
model's own.

Miller (2024, "Adding Error Bars to Evals", arXiv 2411.00640): an eval's score is a mean over
N items of each item's mean over its K tries.  Its variance splits into the spread of the items'
true success rates (``var_data``, the data) and the mean spread within an item across tries
(``var_within``, the model's own randomness): Var(score) = (var_data + var_within / K) / N.  The
plug-in parts are biased for small K; the unbiased ones (eval-arena's ``unbiasedK``) move
mean(s_i^2 / (K_i - 1)) from the data part to the within part.  Everything here is per item from
its own tries, so items may have different K (the K in the standard error is then the
harmonic mean of the K_i).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

Z95 = 1.959963984540054


@dataclass(frozen=True)
class NoiseSplit:
    n_items: int
    k_min: int
    k_max: int
    k_harmonic: float
    mean: float               # mean over items of the item means
    var_data: float           # variance of the item means, corrected for K (may be clipped at 0)
    var_within: float         # mean within-item variance, corrected for K
    var_data_plugin: float    # the plug-in (biased) parts, divisor N over items and K within
    var_within_plugin: float
    se: float                 # sqrt((var_data + var_within / K) / N), K the harmonic mean
    se_one_repeat: float      # the same with K = 1
    clustered_se: float       # items as clusters, over every try (Inspect's stderr(cluster=...))
    clipped: bool             # the corrected data part came out below 0 and is shown as 0
    single_try_items: int     # items with one try: no within-item spread, left out of it


def _item_moments(codes: np.ndarray, values: np.ndarray, n_items: int):
    k = np.bincount(codes, minlength=n_items).astype(float)
    s1 = np.bincount(codes, weights=values, minlength=n_items)
    mean = s1 / np.where(k > 0, k, 1)
    dev = values - mean[codes]
    s2 = np.bincount(codes, weights=dev * dev, minlength=n_items) / np.where(k > 0, k, 1)  # ddof 0
    return k, mean, s2


def noise_split(codes, values) -> NoiseSplit:
    """The split for one system: ``codes`` the item of each try (0..N-1), ``values`` its
    outcome or score.  Variances over items use divisor N (as eval-arena); within an item the
    plug-in variance uses divisor K_i and the correction adds s_i^2 / (K_i - 1)."""
    codes = np.asarray(codes, dtype=np.int64)
    values = np.asarray(values, dtype=float)
    n = int(codes.max()) + 1 if codes.size else 0
    k, mean, s2 = _item_moments(codes, values, n)
    multi = k >= 2
    bias = float(np.mean(s2[multi] / (k[multi] - 1))) if multi.any() else float("nan")
    within_plugin = float(np.mean(s2[multi])) if multi.any() else float("nan")
    data_plugin = float(np.var(mean)) if n else float("nan")
    var_data = data_plugin - bias if multi.any() else float("nan")
    var_within = within_plugin + bias if multi.any() else float("nan")
    clipped = bool(var_data < 0) if multi.any() else False
    if clipped:
        var_data = 0.0
    kh = float(n / np.sum(1.0 / k)) if n else float("nan")
    se = math.sqrt((var_data + var_within / kh) / n) if n and multi.any() else float("nan")
    se1 = math.sqrt((var_data + var_within) / n) if n and multi.any() else float("nan")
    return NoiseSplit(n, int(k.min()) if n else 0, int(k.max()) if n else 0, kh,
                      float(mean.mean()) if n else float("nan"), var_data, var_within, data_plugin,
                      within_plugin, se, se1, clustered_se(values, codes), clipped, int((~multi).sum()))


def paired_noise_split(codes_a, values_a, codes_b, values_b, n_items: int) -> NoiseSplit:
    """The split of the per-item difference B - A (items 0..n_items-1 in both): var_data =
    var(mean_B - mean_A) - bias, var_within = mean(s_A^2) + mean(s_B^2) + bias, bias =
    mean(s_A^2 / (K_A - 1)) + mean(s_B^2 / (K_B - 1)) (eval-arena's
    ``Paired.from_samples_unbiasedK`` for equal K)."""
    ka, ma, sa = _item_moments(np.asarray(codes_a, dtype=np.int64), np.asarray(values_a, float), n_items)
    kb, mb, sb = _item_moments(np.asarray(codes_b, dtype=np.int64), np.asarray(values_b, float), n_items)
    ok = (ka >= 2) & (kb >= 2)
    d = mb - ma
    data_plugin = float(np.var(d))
    if ok.any():
        bias = float(np.mean(sa[ok] / (ka[ok] - 1)) + np.mean(sb[ok] / (kb[ok] - 1)))
        within_plugin = float(np.mean(sa[ok]) + np.mean(sb[ok]))
    else:
        bias = within_plugin = float("nan")
    var_data = data_plugin - bias
    var_within = within_plugin + bias
    clipped = bool(var_data < 0)
    if clipped:
        var_data = 0.0
    kh = float(n_items / np.sum(1.0 / ((ka + kb) / 2)))  # the mean tries per side, harmonic over items
    se = math.sqrt((var_data + var_within / kh) / n_items) if ok.any() else float("nan")
    se1 = math.sqrt((var_data + var_within) / n_items) if ok.any() else float("nan")
    return NoiseSplit(n_items, int(min(ka.min(), kb.min())), int(max(ka.max(), kb.max())), kh, float(d.mean()),
                      var_data, var_within, data_plugin, within_plugin, se, se1, float("nan"), clipped,
                      int((~ok).sum()))


def se_population(split: NoiseSplit) -> float:
    """The standard error of the mean over items in its population form, sqrt(var_pop / N) with
    var_pop the variance of the item means with divisor N (numpy's ``var``): Miller's CLT standard
    error of the item means as they are, whatever each item's number of tries.  With equal
    repeats it equals ``se``; with unequal repeats ``se`` weighs the within-item part by the
    harmonic mean of the tries instead."""
    if not split.n_items or not math.isfinite(split.var_data_plugin):
        return float("nan")
    return math.sqrt(split.var_data_plugin / split.n_items)


def clustered_se(values, clusters) -> float:
    """Standard error of the mean of ``values`` with whole clusters as the units: sqrt(C/(C-1)
    sum_c (sum_{i in c} (y_i - mean))^2) / n, C clusters -- the cluster-robust standard error of an
    intercept-only regression (statsmodels' OLS ``cov_type='cluster'``; Inspect's
    ``stderr(cluster=...)``)."""
    y = np.asarray(values, dtype=float)
    c = np.asarray(clusters, dtype=np.int64)
    n = y.size
    groups = int(np.count_nonzero(np.bincount(c))) if n else 0  # codes are >= 0
    if n == 0 or groups < 2:
        return float("nan")
    resid = np.bincount(c, weights=y - y.mean())
    return float(math.sqrt(groups / (groups - 1) * float(np.sum(resid ** 2))) / n)


def items_needed(split: NoiseSplit, half_width: float, repeats: float) -> float:
    """Items for a 95% interval of +- ``half_width`` with ``repeats`` tries per item."""
    v = split.var_data + split.var_within / repeats
    return math.ceil(Z95 ** 2 * v / half_width ** 2) if v > 0 else 1


def repeats_needed(split: NoiseSplit, half_width: float) -> float:
    """Tries per item for a 95% interval of +- ``half_width`` with the items in hand; inf when
    more tries alone cannot reach it (the data part alone is wider)."""
    room = split.n_items * half_width ** 2 / Z95 ** 2 - split.var_data
    if room <= 0:  # the data part alone is wider than the target, whatever the repeats
        return math.inf
    if split.var_within <= 0:
        return 1
    return math.ceil(split.var_within / room)


@dataclass(frozen=True)
class SeedSpread:
    """Whole runs (seeds) over the same items: each run's mean and their spread."""
    n_seeds: int
    n_items: int
    means: np.ndarray  # per run, the mean over its items (runs in the order of their codes)
    sd: float          # standard deviation of the run means, ddof 1 (NaN with one run)
    low: float
    high: float


def seed_spread(seed_codes, values, n_seeds: int) -> SeedSpread:
    """Each run's mean over its tries and the spread of those means (SD with divisor R - 1).
    The caller checks that every run covers the same items once."""
    seed_codes = np.asarray(seed_codes, dtype=np.int64)
    values = np.asarray(values, dtype=float)
    counts = np.bincount(seed_codes, minlength=n_seeds).astype(float)
    means = np.bincount(seed_codes, weights=values, minlength=n_seeds) / np.where(counts > 0, counts, 1)
    sd = float(np.std(means, ddof=1)) if n_seeds >= 2 else float("nan")
    return SeedSpread(n_seeds, int(counts[0]) if n_seeds else 0, means, sd,
                      float(means.min()) if n_seeds else float("nan"), float(means.max()) if n_seeds else float("nan"))
