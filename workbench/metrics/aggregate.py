"""Roll-ups: micro vs macro, pooled ratio vs mean of ratios, Simpson's paradox.

* micro = sum(successes) / sum(items): "how does an average item go";
* macro = mean over groups of each group's rate: "how well is each group served";
* pooled ratio = sum(numerators) / sum(denominators) (weights units by volume);
* mean of ratios = mean over units of numerator / denominator (each unit counts once);
  units with a zero denominator have no ratio and are left out (and counted by the caller).
"""

from __future__ import annotations

import numpy as np


def group_rates(successes, codes, n_groups: int):
    """Per-group (items, successes, rate) for integer group codes 0..G-1."""
    codes = np.asarray(codes, dtype=np.int64)
    s = np.asarray(successes, dtype=float)
    items = np.bincount(codes, minlength=n_groups).astype(float)
    succ = np.bincount(codes, weights=s, minlength=n_groups)
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = succ / items
    return items, succ, rate


def micro_macro(items, successes) -> tuple[float, float]:
    """(micro, macro) from per-group item and success counts (empty groups ignored).

    >>> micro_macro([900, 100], [810, 60])
    (0.87, 0.75)
    """
    items = np.asarray(items, dtype=float)
    succ = np.asarray(successes, dtype=float)
    keep = items > 0
    micro = float(succ[keep].sum() / items[keep].sum()) if keep.any() else float("nan")
    macro = float(np.mean(succ[keep] / items[keep])) if keep.any() else float("nan")
    return micro, macro


def pooled_and_mean_ratio(numerators, denominators):
    """(pooled ratio, mean of ratios, units used for the mean, zero-denominator units).

    >>> p, m, used, zero = pooled_and_mean_ratio([1, 2], [1, 10])
    >>> round(p, 3), round(m, 3), used, zero
    (0.273, 0.6, 2, 0)
    """
    num = np.asarray(numerators, dtype=float)
    den = np.asarray(denominators, dtype=float)
    keep = den != 0
    total = den.sum()
    pooled = float(num.sum() / total) if total != 0 else float("nan")
    mean = float(np.mean(num[keep] / den[keep])) if keep.any() else float("nan")
    return pooled, mean, int(keep.sum()), int((~keep).sum())


def simpson_pairs(segment_rates: np.ndarray, overall: np.ndarray, labels):
    """Pairs (better_in_every_segment, better_overall) that show Simpson's paradox.

    ``segment_rates[v, s]`` is version v's rate in segment s (NaN where v has no item in s);
    ``overall[v]`` its overall rate.  Version a "reverses" b when a > b in every segment both
    have and a < b overall; rates within 1e-9 (relative) of each other are equal (sums of scores
    in [0, 1] carry float noise: 0.1 + 0.2 is not 0.3).  Returns a list of (a, b) label pairs.
    """
    def above(x, y):
        return x - y > 1e-9 * np.maximum(np.abs(x), np.abs(y))

    out = []
    V = len(labels)
    for a in range(V):
        for b in range(V):
            if a == b:
                continue
            both = np.isfinite(segment_rates[a]) & np.isfinite(segment_rates[b])
            if not both.any():
                continue
            if np.all(above(segment_rates[a][both], segment_rates[b][both])) and above(overall[b], overall[a]):
                out.append((labels[a], labels[b]))
    return out
