"""Agreement between a judge and people, and a pass rate corrected for the judge's errors.

Pure functions on label codes and count tables (numpy; scipy imported lazily).

* :func:`cohens_kappa` -- Cohen's kappa (plain, linear or quadratic weights) with the
  asymptotic standard error of Fleiss, Cohen and Everitt (1969) and a normal interval, as
  ``statsmodels.stats.inter_rater.cohens_kappa`` computes them.
* :func:`gwet_ac1` -- Gwet's AC1 (2008) for two raters with Gwet's variance and a t interval
  on n - 1 degrees of freedom, the upper end capped at 1 (as irrCAC).
* :func:`pabak` -- prevalence- and bias-adjusted kappa (K po - 1) / (K - 1) (2 po - 1 for two
  categories).
* :func:`krippendorff_alpha` -- Krippendorff's alpha for any number of raters with missing
  values, nominal, ordinal or interval (coincidence matrix; Krippendorff 2004, ch. 11).
* :func:`corrected_rate` -- the Rogan-Gladen (1978) correction theta = (p + q0 - 1) /
  (q0 + q1 - 1) and the interval of Lee et al. (2025, "How to Correctly Report LLM-as-a-Judge
  Evaluations"), which carries the uncertainty of the specificity q0 and sensitivity q1
  measured on the items people labelled.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..core.errors import OptionError

LEVELS = ("nominal", "ordinal", "interval")
WEIGHTS = (None, "linear", "quadratic")


@dataclass(frozen=True)
class Coefficient:
    """An agreement coefficient with its standard error and two-sided interval; ``value`` is NaN
    when it is undefined (``why`` then says why)."""

    value: float
    se: float
    low: float
    high: float
    observed: float       # observed agreement (weighted agreement for weighted kappa)
    expected: float       # agreement expected by chance
    n: int
    why: str = ""


def _z(level: float) -> float:
    from scipy.special import ndtri

    return float(ndtri(0.5 + level / 2.0))


def confusion_table(a, b, k: int) -> np.ndarray:
    """``k x k`` counts of (a, b) code pairs (codes 0..k-1): rows ``a``, columns ``b``."""
    a = np.asarray(a, dtype=np.int64)
    b = np.asarray(b, dtype=np.int64)
    return np.bincount(a * k + b, minlength=k * k).reshape(k, k)


def _weight_matrix(k: int, weights) -> np.ndarray:
    """Disagreement weights on category positions 0..k-1, scaled to [0, 1] (statsmodels'
    ``wt='linear'|'quadratic'``; sklearn's unscaled ones give the same kappa)."""
    pos = np.arange(k, dtype=float)
    span = max(k - 1, 1)
    if weights == "linear":
        return np.abs(pos[:, None] - pos) / span
    if weights == "quadratic":
        return (pos[:, None] - pos) ** 2 / span ** 2
    raise OptionError(f"`weights` must be one of none, linear, quadratic; got weights={weights!r}.")


def cohens_kappa(table, *, weights=None, level: float = 0.95) -> Coefficient:
    """Cohen's kappa of a square table of counts (rows one rater, columns the other).

    Plain: kappa = (po - pe) / (1 - pe), SE from Fleiss, Cohen and Everitt's asymptotic
    variance.  Weighted (``linear`` or ``quadratic`` on the category order): kappa = 1 -
    sum(w o) / sum(w e) with the SAS/statsmodels variance.  The interval is kappa +- z SE.
    Undefined (NaN, with ``why``) when chance agreement is 1: both raters used one category.

    >>> k = cohens_kappa([[31, 12], [4, 58]])
    >>> round(k.value, 3), round(k.se, 4), round(k.low, 3), round(k.high, 3)
    (0.676, 0.0734, 0.532, 0.82)
    """
    t = np.asarray(table, dtype=float)
    n = float(t.sum())
    nan = float("nan")
    if t.ndim != 2 or t.shape[0] != t.shape[1] or n <= 0:
        return Coefficient(nan, nan, nan, nan, nan, nan, int(n), "no item carries both labels")
    p = t / n
    row, col = p.sum(1), p.sum(0)
    expected = np.outer(row, col)
    if weights is None:
        po, pe = float(np.trace(p)), float(np.trace(expected))
        if pe >= 1.0 - 1e-12:
            return Coefficient(nan, nan, nan, nan, po, pe, int(n),
                               "both raters gave every item the same label, so chance agreement is "
                               "100% and kappa is undefined")
        kappa = (po - pe) / (1 - pe)
        a = float(np.sum(np.diag(p) * (1 - (row + col) * (1 - kappa)) ** 2))
        off = p * (col[:, None] + row[None, :]) ** 2
        np.fill_diagonal(off, 0.0)
        b = (1 - kappa) ** 2 * float(off.sum())
        c = (kappa - pe * (1 - kappa)) ** 2
        var = (a + b - c) / (1 - pe) ** 2 / n
    else:
        w = _weight_matrix(t.shape[0], weights)
        dis_o, dis_e = float((w * p).sum()), float((w * expected).sum())
        if dis_e <= 1e-12:
            return Coefficient(nan, nan, nan, nan, 1 - dis_o, 1 - dis_e, int(n),
                               "both raters gave every item the same label, so chance agreement is "
                               "100% and kappa is undefined")
        kappa = 1.0 - dis_o / dis_e
        agree = 1.0 - w
        po, pe = float((agree * p).sum()), float((agree * expected).sum())
        w_row = (col[None, :] * agree).sum(1)
        w_col = (row[:, None] * agree).sum(0)
        var = (float((p * (agree - (w_col[None, :] + w_row[:, None]) * (1 - kappa)) ** 2).sum())
               - (kappa - pe * (1 - kappa)) ** 2) / ((1 - pe) ** 2 * n)
    se = math.sqrt(max(var, 0.0))
    z = _z(level)
    return Coefficient(float(kappa), se, float(kappa - z * se), float(kappa + z * se), po, pe, int(n))


def gwet_ac1(table, *, level: float = 0.95) -> Coefficient:
    """Gwet's AC1 for two raters: (po - pe) / (1 - pe), pe = sum pi_k (1 - pi_k) / (K - 1),
    pi_k the mean of the two raters' shares of category k; Gwet's (2008) variance without a
    finite-population correction, interval AC1 +- t(n - 1) SE with the upper end at most 1
    (irrCAC's ``gwet``).  Undefined for one category."""
    from scipy.stats import t as t_dist

    t = np.asarray(table, dtype=float)
    n = float(t.sum())
    k = t.shape[0]
    nan = float("nan")
    if n <= 0 or k < 2:
        return Coefficient(nan, nan, nan, nan, nan, nan, int(n),
                           "AC1 needs two or more categories and a labelled item")
    p = t / n
    pi = (p.sum(1) + p.sum(0)) / 2.0
    po = float(np.trace(p))
    pe = float(np.sum(pi * (1 - pi)) / (k - 1))
    ac1 = (po - pe) / (1 - pe)
    term = np.eye(k) - 2 * (1 - ac1) * (1 - (pi[:, None] + pi[None, :]) / 2) / (k - 1)
    var = (float(np.sum(p * term ** 2)) - (po - 2 * (1 - ac1) * pe) ** 2) / (n * (1 - pe) ** 2)
    se = math.sqrt(max(var, 0.0))
    if n < 2:
        return Coefficient(float(ac1), nan, nan, nan, po, pe, int(n))
    q = float(t_dist.ppf(0.5 + level / 2.0, n - 1))
    return Coefficient(float(ac1), se, float(ac1 - q * se), float(min(1.0, ac1 + q * se)), po, pe, int(n))


def pabak(table) -> float:
    """Prevalence- and bias-adjusted kappa: (K po - 1) / (K - 1), K categories (2 po - 1 for
    pass/fail; Byrt, Bishop and Carlin 1993)."""
    t = np.asarray(table, dtype=float)
    n, k = float(t.sum()), t.shape[0]
    if n <= 0 or k < 2:
        return float("nan")
    po = float(np.trace(t)) / n
    return (k * po - 1) / (k - 1)


def krippendorff_alpha(data, *, level: str = "nominal") -> float:
    """Krippendorff's alpha of ``data`` (raters x units; NaN = no label), values numbers.

    From the coincidence matrix o (pairable values of each unit with two or more labels, each
    pair weighted 1 / (m_u - 1)): alpha = 1 - (n - 1) sum o_ck d_ck / sum n_c n_k d_ck, with
    d the nominal (0/1), ordinal (cumulative frequencies between c and k, minus half of each
    end) or interval ((c - k)^2) difference.  NaN when fewer than two values are pairable or
    there is no variation.
    """
    if level not in LEVELS:
        raise OptionError(f"`level` must be one of {', '.join(LEVELS)}; got level={level!r}.")
    x = np.asarray(data, dtype=float)
    if x.ndim != 2:
        raise ValueError("data must be raters x units")
    values = np.unique(x[np.isfinite(x)])
    v = values.size
    if v < 2:
        return float("nan")
    codes = np.full(x.shape, -1, dtype=np.int64)
    ok = np.isfinite(x)
    codes[ok] = np.searchsorted(values, x[ok])
    m = ok.sum(0)
    pairable = m >= 2
    if not pairable.any():
        return float("nan")
    counts = np.zeros((x.shape[1], v))
    units = np.nonzero(ok)[1]
    np.add.at(counts, (units, codes[ok]), 1.0)
    counts = counts[pairable]
    mu = m[pairable].astype(float)
    o = (counts[:, :, None] * counts[:, None, :]
         - np.einsum("uc,ck->uck", counts, np.eye(v))) / (mu - 1)[:, None, None]
    o = o.sum(0)
    nc = o.sum(1)
    n = nc.sum()
    if level == "nominal":
        d = 1.0 - np.eye(v)
    elif level == "interval":
        d = (values[:, None] - values[None, :]) ** 2
    else:
        cum = np.concatenate([[0.0], np.cumsum(nc)])
        lo = np.minimum.outer(np.arange(v), np.arange(v))
        hi = np.maximum.outer(np.arange(v), np.arange(v))
        d = (cum[hi + 1] - cum[lo] - (nc[lo] + nc[hi]) / 2.0) ** 2
    expected = float(np.sum(np.outer(nc, nc) * d))
    if expected <= 0:
        return float("nan")
    return float(1.0 - (n - 1) * float(np.sum(o * d)) / expected)


@dataclass(frozen=True)
class Corrected:
    """The judge's pass rate corrected for its errors (Rogan-Gladen), with Lee et al.'s interval."""

    theta: float          # corrected pass rate, clipped to [0, 1]
    raw: float            # unclipped (p + q0 - 1) / (q0 + q1 - 1)
    low: float
    high: float
    p: float              # the judge's pass rate on all n items
    q0: float             # specificity on the m0 items people failed
    q1: float             # sensitivity on the m1 items people passed
    n: int
    m0: int
    m1: int
    why: str = ""         # set when nothing can be corrected


def corrected_rate(p: float, q0: float, q1: float, n: int, m0: int, m1: int, *,
                   level: float = 0.95) -> Corrected:
    """Rogan-Gladen: theta = (p + q0 - 1) / (q0 + q1 - 1), clipped to [0, 1].

    The interval is Lee et al.'s (2025) plug-in interval with smoothing: p, q0, q1 are replaced
    by (n p + z^2/2) / (n + z^2), (m0 q0 + 1) / (m0 + 2) and (m1 q1 + 1) / (m1 + 2) (n, m0 and
    m1 grow by z^2, 2 and 2), the centre is shifted by
    2 z^2 (th q1 (1 - q1) / m1 - (1 - th) q0 (1 - q0) / m0) and the standard error is
    sqrt(p (1 - p) / n + (1 - th)^2 q0 (1 - q0) / m0 + th^2 q1 (1 - q1) / m1) / (q0 + q1 - 1);
    both ends are clipped to [0, 1].  q0 + q1 <= 1 (a judge no better than chance): NaN with
    ``why``.

    >>> round(corrected_rate(0.4, 0.7, 0.9, 1000, 100, 100).theta, 4)
    0.1667
    """
    nan = float("nan")
    if m0 <= 0 or m1 <= 0 or n <= 0:
        return Corrected(nan, nan, nan, nan, p, q0, q1, n, m0, m1,
                         "people must have labelled at least one passing and one failing item")
    if q0 + q1 <= 1.0:
        return Corrected(nan, nan, nan, nan, p, q0, q1, n, m0, m1,
                         "the judge's specificity plus sensitivity is not above 1: it is no better "
                         "than chance, so its pass rate cannot be corrected")
    raw = (p + q0 - 1) / (q0 + q1 - 1)
    z = _z(level)
    z2 = z * z
    ps = (n * p + z2 / 2) / (n + z2)
    q0s = (m0 * q0 + 1) / (m0 + 2)
    q1s = (m1 * q1 + 1) / (m1 + 2)
    ns, m0s, m1s = n + z2, m0 + 2, m1 + 2
    th = (ps + q0s - 1) / (q0s + q1s - 1)
    shift = 2 * z2 * (th * q1s * (1 - q1s) / m1s - (1 - th) * q0s * (1 - q0s) / m0s)
    se = math.sqrt(ps * (1 - ps) / ns + (1 - th) ** 2 * q0s * (1 - q0s) / m0s
                   + th ** 2 * q1s * (1 - q1s) / m1s) / (q0s + q1s - 1)
    clip = lambda v: min(1.0, max(0.0, v))  # noqa: E731
    return Corrected(clip(raw), raw, clip(th + shift - z * se), clip(th + shift + z * se), p, q0, q1,
                     n, m0, m1)


def labels_for_half_width(p: float, q0: float, q1: float, n: int, m0: int, m1: int, share: float,
                          half_width: float = 0.05, z: float = 1.959963984540054) -> int | None:
    """How many more human labels (``share`` of them on items people pass) bring the corrected
    pass rate's interval to +-``half_width``, by the delta method with the rates as measured:
    Var = (p(1-p)/n + theta^2 q1(1-q1)/m1 + (1-theta)^2 q0(1-q0)/m0) / (q0 + q1 - 1)^2.
    0 when it is already that narrow; None when no number of labels can (the judge's own pass
    rate on the n items already spreads it wider)."""
    d = q0 + q1 - 1
    if d <= 0 or n <= 0:
        return None
    theta = min(1.0, max(0.0, (p + q0 - 1) / d))

    def width(extra: float) -> float:
        a1, a0 = m1 + share * extra, m0 + (1 - share) * extra
        var = p * (1 - p) / n
        var += theta ** 2 * q1 * (1 - q1) / a1 if a1 > 0 else float("inf")
        var += (1 - theta) ** 2 * q0 * (1 - q0) / a0 if a0 > 0 else float("inf")
        return z * math.sqrt(var) / d

    if width(0) <= half_width:
        return 0
    if z * math.sqrt(p * (1 - p) / n) / d >= half_width:
        return None
    hi = 1
    while width(hi) > half_width:
        hi *= 2
        if hi > 10 ** 9:
            return None
    lo = hi // 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if width(mid) <= half_width else (mid, hi)
    return hi


def label_split(p: float, q0: float, q1: float, m0: int, m1: int) -> float:
    """The share of further human labels best spent on items people pass (the rest on items
    they fail): Lee et al.'s (2025) allocation m1 / m = 1 / (1 + (1/p - 1) sqrt(r)), with r
    the ratio of the judge's smoothed error rates on the labels in hand,
    ((m0 (1 - q0) + 1) / (m0 + 2)) / ((m1 (1 - q1) + 1) / (m1 + 2))."""
    if p <= 0:
        return 1.0
    if p >= 1:
        return 0.0
    r = ((m0 * (1 - q0) + 1) / (m0 + 2)) / ((m1 * (1 - q1) + 1) / (m1 + 2))
    return 1.0 / (1.0 + (1.0 / p - 1.0) * math.sqrt(r))


def lee_allocation(m: int, p: float, q0: float, q1: float, m0_have: int, m1_have: int) -> tuple[int, int]:
    """Lee et al.'s (2025) allocation of a calibration budget of ``m`` human labels in all
    between items people fail (m0) and pass (m1), the labels in hand as the pilot
    (``allocate_calibration_sample`` of UW-Madison-Lee-Lab/LLM-judge-reporting):
    m1 = m / (1 + (1/p - 1) sqrt(kappa)), rounded half to even, kept between the labels in hand
    on each side (m1 >= m1_have, m0 >= m0_have); kappa the ratio of the judge's error rates,
    each smoothed by one error over its side's pilot, ((1 - q0) + 1/m0_have) / ((1 - q1) +
    1/m1_have): with as many labels on each side (m_pilot each) this is their
    (m_pilot (1 - q0) + 1) / (m_pilot (1 - q1) + 1).  p = 0 puts every further label on passes;
    returns (m0, m1), summing to ``m``."""
    m, m0_have, m1_have = int(m), int(m0_have), int(m1_have)
    if p < 1e-6:
        m1 = m - m0_have
    else:
        kappa = ((1 - q0) + 1 / max(m0_have, 1)) / ((1 - q1) + 1 / max(m1_have, 1))
        m1 = max(m1_have, round(min(m - m0_have, m / (1 + (1 / p - 1) * math.sqrt(kappa)))))
    return m - m1, m1


def corrected_half_width(p: float, q0: float, q1: float, n: int, m0: int, m1: int,
                         z: float = 1.959963984540054) -> float:
    """The delta-method 95% half-width of the corrected pass rate with m0 and m1 labels:
    z sqrt(p(1-p)/n + theta^2 q1(1-q1)/m1 + (1-theta)^2 q0(1-q0)/m0) / (q0 + q1 - 1)."""
    d = q0 + q1 - 1
    if d <= 0 or n <= 0 or m0 <= 0 or m1 <= 0:
        return float("inf")
    theta = min(1.0, max(0.0, (p + q0 - 1) / d))
    var = p * (1 - p) / n + theta ** 2 * q1 * (1 - q1) / m1 + (1 - theta) ** 2 * q0 * (1 - q0) / m0
    return z * math.sqrt(var) / d


def lee_labels_needed(p: float, q0: float, q1: float, n: int, m0: int, m1: int,
                      half_width: float = 0.05) -> tuple[int, int, int] | None:
    """The fewest further human labels E, split as :func:`lee_allocation` splits the budget
    m0 + m1 + E, that bring the corrected pass rate's delta-method interval to +-``half_width``:
    (E, further labels on items people fail, further on items they pass); (0, 0, 0) when it is
    already that narrow; None when no number of labels can (the judge's own pass rate on the n
    items spreads it wider, or the judge is no better than chance)."""
    d = q0 + q1 - 1
    if d <= 0 or n <= 0:
        return None

    def width(extra: int) -> float:
        a0, a1 = lee_allocation(m0 + m1 + extra, p, q0, q1, m0, m1)
        return corrected_half_width(p, q0, q1, n, a0, a1)

    if width(0) <= half_width:
        return 0, 0, 0
    if 1.959963984540054 * math.sqrt(p * (1 - p) / n) / d >= half_width:
        return None
    hi = 1
    while width(hi) > half_width:
        hi *= 2
        if hi > 10 ** 9:
            return None
    lo = hi // 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if width(mid) <= half_width else (mid, hi)
    a0, a1 = lee_allocation(m0 + m1 + hi, p, q0, q1, m0, m1)
    return hi, a0 - m0, a1 - m1
