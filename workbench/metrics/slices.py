"""Pure functions of the Slices analysis: how two systems' paired difference varies across the
slices of the items (languages, sources, length bins...).

* :func:`benjamini_hochberg`, :func:`adjust` -- p-values adjusted over the tested slices (Holm,
  Benjamini-Hochberg, none), as ``statsmodels.stats.multitest.multipletests`` (``holm``,
  ``fdr_bh``).
* :func:`fcr_level` -- the level of the false-coverage-rate adjusted intervals of the R slices
  selected of m (Benjamini and Yekutieli 2005, JASA 100:71-81): 1 - R q / m.
* :func:`dersimonian_laird` -- Cochran's Q, its df and p, I^2, the between-slice variance tau^2
  (DerSimonian and Laird 1986), the fixed- and random-effects pooled differences, as
  ``statsmodels.stats.meta_analysis.combine_effects(eff, var, method_re="chi2")`` computes
  them, with tau^2 and I^2 truncated at 0 as DerSimonian and Laird (and R's metafor) do
  (statsmodels leaves them negative when Q < df).
* :func:`shrunken` -- each slice's random-effects (empirical Bayes) estimate, d_RE +
  tau^2 / (tau^2 + se_i^2) (d_i - d_RE) (Efron and Morris 1975).
* :func:`binary_paired_se` -- the paired standard error sd(d, ddof=1) / sqrt(n) of 0/1
  outcomes from their counts.
* :func:`quantile_edges`, :func:`bin_codes` -- quantile bins of a numeric column as
  ``pandas.qcut(x, q, duplicates="drop")`` cuts them (numpy's linear quantiles; right-closed,
  the first bin holding its lower edge).

scipy is imported lazily.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..core.errors import OptionError
from .paired import holm

#: the multiple-comparison corrections over slices (the signature's words)
CORRECTIONS = ("holm", "bh", "none")


def benjamini_hochberg(pvalues) -> np.ndarray:
    """Benjamini-Hochberg step-up adjusted p-values: sorted ascending, p_(i) m / i, made
    monotone from the largest down, capped at 1 (``multipletests(method="fdr_bh")``).  NaN stays
    NaN and does not count in m.

    >>> benjamini_hochberg([0.01, 0.04, 0.03]).round(3).tolist()
    [0.03, 0.04, 0.04]
    """
    p = np.asarray(pvalues, dtype=float)
    out = np.full(p.shape, np.nan)
    ok = np.flatnonzero(np.isfinite(p))
    m = ok.size
    if m == 0:
        return out
    order = ok[np.argsort(p[ok], kind="stable")]
    scaled = p[order] * m / np.arange(1, m + 1)
    adj = np.minimum.accumulate(scaled[::-1])[::-1]
    out[order] = np.minimum(1.0, adj)
    return out


def adjust(pvalues, method: str) -> np.ndarray:
    """``holm`` (step-down, family-wise), ``bh`` (Benjamini-Hochberg, false discovery rate) or
    ``none``; NaN p-values stay NaN and are not counted."""
    if method == "holm":
        return holm(pvalues)
    if method == "bh":
        return benjamini_hochberg(pvalues)
    if method == "none":
        return np.asarray(pvalues, dtype=float).copy()
    raise OptionError(f"`correction` must be one of {', '.join(CORRECTIONS)}; got correction={method!r}.")


def fcr_level(selected: int, m: int, q: float = 0.05) -> float:
    """The coverage of each of the ``selected`` (R) intervals chosen among ``m`` so that the
    false coverage rate is at most ``q``: 1 - R q / m (Benjamini and Yekutieli 2005, Definition 1;
    FCR <= q for any selection rule when the m estimates are independent, as disjoint slices'
    are).  NaN when nothing is selected (R = 0: no interval to adjust).

    >>> fcr_level(2, 10)
    0.99
    """
    if selected <= 0 or m <= 0:
        return float("nan")
    return 1.0 - selected * q / m


@dataclass(frozen=True)
class Heterogeneity:
    """Cochran's Q and the random-effects summary of k slice differences."""

    k: int
    q: float
    df: int
    p: float
    i2: float
    tau2: float
    fe: float
    fe_se: float
    re: float
    re_se: float
    re_low: float
    re_high: float


def dersimonian_laird(effects, variances, *, level: float = 0.95) -> Heterogeneity:
    """Cochran's Q = sum w_i (d_i - d_FE)^2 with w_i = 1 / v_i, df = k - 1, its chi-square p;
    I^2 = max(0, (Q - df) / Q); tau^2 = max(0, (Q - df) / (sum w - sum w^2 / sum w))
    (DerSimonian and Laird 1986); the random-effects pooled difference sum w*_i d_i / sum w*_i
    with w*_i = 1 / (v_i + tau^2) and its normal interval +- z sqrt(1 / sum w*).

    Equal to ``combine_effects(eff, var, method_re="chi2")``'s ``q``, ``df_resid``,
    ``test_homogeneity().pvalue``, ``i2``, ``tau2``, ``mean_effect_re`` and ``conf_int()[1]``
    whenever Q >= df; when Q < df statsmodels keeps the negative I^2 and tau^2 (and so another
    random-effects mean), here they are 0 and the random-effects mean is the fixed-effect one.
    Fewer than two slices: Q, p, I^2 and tau^2 are NaN (nothing to compare).  Every variance
    must be > 0.
    """
    from scipy.special import chdtrc, ndtri  # chi2.sf and norm.isf without importing scipy.stats

    d = np.asarray(effects, dtype=float)
    v = np.asarray(variances, dtype=float)
    if d.shape != v.shape or d.ndim != 1:
        raise ValueError("effects and variances must be 1-d arrays of the same length")
    if np.any(~(v > 0)) or np.any(~np.isfinite(d)):
        raise ValueError("every variance must be > 0 and every effect finite")
    k = int(d.size)
    nan = float("nan")
    if k == 0:
        return Heterogeneity(0, nan, 0, nan, nan, nan, nan, nan, nan, nan, nan, nan)
    w = 1.0 / v
    sw = float(w.sum())
    fe = float((w * d).sum() / sw)
    fe_se = math.sqrt(1.0 / sw)
    z = -float(ndtri((1.0 - level) / 2.0))  # norm.isf((1 - level) / 2), as statsmodels
    if k < 2:
        return Heterogeneity(k, nan, 0, nan, nan, nan, fe, fe_se, fe, fe_se, fe - z * fe_se, fe + z * fe_se)
    # Q as statsmodels sums it (sum w d^2 - (sum w d)^2 / sum w): the same to rounding
    q = float((w * d ** 2).sum() - (w * d).sum() ** 2 / sw)
    q = max(q, 0.0)
    df = k - 1
    p = float(chdtrc(df, q))
    i2 = max(0.0, 1.0 - df / q) if q > 0 else 0.0
    c = sw - float((w ** 2).sum()) / sw
    tau2 = max(0.0, (q - df) / c) if c > 0 else 0.0
    wr = 1.0 / (v + tau2)
    swr = float(wr.sum())
    re = float((wr / swr * d).sum())
    re_se = math.sqrt(1.0 / swr)
    return Heterogeneity(k, q, df, p, i2, tau2, fe, fe_se, re, re_se, re - z * re_se, re + z * re_se)


def shrunken(effects, variances, pooled: float, tau2: float) -> np.ndarray:
    """Each effect pulled toward ``pooled`` by its reliability tau^2 / (tau^2 + v_i):
    pooled + tau^2 / (tau^2 + v_i) (d_i - pooled).  With tau^2 = 0 every slice is the pooled
    difference (the slices do not differ beyond chance)."""
    d = np.asarray(effects, dtype=float)
    v = np.asarray(variances, dtype=float)
    if not (tau2 > 0):
        return np.full(d.shape, float(pooled))
    return pooled + tau2 / (tau2 + v) * (d - pooled)


def binary_paired_se(wins: int, losses: int, n: int) -> float:
    """sd(d, ddof=1) / sqrt(n) for d in {-1, 0, +1} with ``wins`` +1s and ``losses`` -1s among
    ``n``: sum d = b - c and sum d^2 = b + c, so var = (b + c - (b - c)^2 / n) / (n - 1).
    NaN below two items.

    >>> round(binary_paired_se(14, 5, 200), 6)
    0.021615
    """
    if n < 2:
        return float("nan")
    var = max(0.0, wins + losses - (wins - losses) ** 2 / n) / (n - 1)
    return math.sqrt(var / n)


def quantile_edges(values, bins: int) -> np.ndarray:
    """The distinct edges of ``bins`` quantile bins of the finite ``values`` (numpy's linear
    quantiles at 0, 1/bins, ..., 1; equal edges merged, so ties may give fewer bins)."""
    x = np.asarray(values, dtype=float)
    x = x[np.isfinite(x)]
    if x.size == 0:
        return np.zeros(0)
    edges = np.quantile(x, np.linspace(0.0, 1.0, int(bins) + 1))
    return np.unique(edges)


def bin_codes(values, edges) -> np.ndarray:
    """The bin of each value (0-based): (e_j, e_j+1], the first bin [e_0, e_1]; -1 for a
    missing value or one outside the edges.  A single edge (every value equal) is one bin."""
    x = np.asarray(values, dtype=float)
    e = np.asarray(edges, dtype=float)
    out = np.full(x.shape, -1, dtype=np.int64)
    if e.size == 0:
        return out
    if e.size == 1:
        out[x == e[0]] = 0
        return out
    ok = np.isfinite(x) & (x >= e[0]) & (x <= e[-1])
    ids = np.searchsorted(e, x[ok], side="left")
    ids[x[ok] == e[0]] = 1
    out[ok] = ids - 1
    return out
