"""Intervals for one rate, the paired minimum detectable difference, implied per-try rates.

All functions are pure and vectorise over numpy arrays.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

#: Two-sided 95% normal quantile, ``scipy.stats.norm.ppf(0.975)`` (not 1.96).
Z95 = 1.959963984540054

#: The multiplier of the paired minimum detectable difference, ``2.8 * sqrt(d / n)``:
#: z(0.975) + z(0.80) = 1.96 + 0.84, rounded as in the usual rule of thumb.
MDE_MULTIPLIER = 2.8


def wald_half_width(rate, n, *, z: float = Z95):
    """Half-width of the normal (Wald) interval of a rate: ``z * sqrt(r (1 - r) / n)``.

    >>> round(float(wald_half_width(0.8, 100)), 4)
    0.0784
    """
    rate = np.asarray(rate, dtype=float)
    n = np.asarray(n, dtype=float)
    _check_rate(rate, "rate")
    _check_positive(n, "n")
    return z * np.sqrt(rate * (1.0 - rate) / n)


def wilson_interval(successes, n, *, z: float = Z95):
    """Wilson score interval ``(low, high)`` for ``successes`` out of ``n``.

    centre = (p + z^2 / 2n) / (1 + z^2 / n),
    half = z / (1 + z^2 / n) * sqrt(p (1 - p) / n + z^2 / 4n^2).
    Same as ``statsmodels.stats.proportion.proportion_confint(method="wilson")``.
    ``n == 0`` gives ``(nan, nan)``.
    """
    s = np.asarray(successes, dtype=float)
    n = np.asarray(n, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = s / n
        z2 = z * z
        denom = 1.0 + z2 / n
        centre = (p + z2 / (2.0 * n)) / denom
        half = z / denom * np.sqrt(p * (1.0 - p) / n + z2 / (4.0 * n * n))
        low = np.clip(centre - half, 0.0, 1.0)
        high = np.clip(centre + half, 0.0, 1.0)
        # exact at the extremes: no success -> low = 0, all successes -> high = 1
        low = np.where(s == 0, 0.0, low)
        high = np.where(s == n, 1.0, high)
    return low, high


#: Proportion intervals by name (the signature's words).
PROPORTION_METHODS = ("wilson", "clopper-pearson", "jeffreys", "beta11", "wald")
#: Below this many items a rate's interval is an exact or Bayesian one, not a large-sample one
#: (Bowyer et al. 2025, "Don't use the CLT in LLM evals with fewer than a few hundred datapoints").
SMALL_N = 30


def proportion_interval(successes: int, n: int, method: str = "wilson", *, level: float = 0.95):
    """A two-sided interval ``(low, high)`` for ``successes`` of ``n``.

    * ``wilson``: the Wilson score interval (:func:`wilson_interval`);
    * ``clopper-pearson``: the exact interval from the binomial, Beta(k, n - k + 1) and
      Beta(k + 1, n - k) quantiles, 0 and 1 at the ends (``scipy.stats.binomtest(k, n)
      .proportion_ci(method='exact')``);
    * ``jeffreys``: the equal-tailed Beta(k + 1/2, n - k + 1/2) interval, with 0 (1) as the
      end when k = 0 (k = n) (``statsmodels ... proportion_confint(method='jeffreys')``);
    * ``beta11``: the equal-tailed posterior interval under a uniform prior, Beta(k + 1, n - k + 1);
    * ``wald``: p +- z sqrt(p (1 - p) / n), not clipped (zero width at 0 and n: only to show why
      it is not used).

    >>> [round(x, 3) for x in proportion_interval(20, 20, "beta11")]
    [0.839, 0.999]
    """
    from scipy.special import betaincinv, ndtri

    k, n = int(successes), int(n)
    if n <= 0:
        return float("nan"), float("nan")
    a = (1.0 - level) / 2.0
    if method == "wilson":
        z = float(ndtri(1 - a))
        lo, hi = wilson_interval(k, n, z=z)
        return float(lo), float(hi)
    if method == "clopper-pearson":
        lo = 0.0 if k == 0 else float(betaincinv(k, n - k + 1, a))
        hi = 1.0 if k == n else float(betaincinv(k + 1, n - k, 1 - a))
        return lo, hi
    if method == "jeffreys":
        lo = 0.0 if k == 0 else float(betaincinv(k + 0.5, n - k + 0.5, a))
        hi = 1.0 if k == n else float(betaincinv(k + 0.5, n - k + 0.5, 1 - a))
        return lo, hi
    if method == "beta11":
        return float(betaincinv(k + 1, n - k + 1, a)), float(betaincinv(k + 1, n - k + 1, 1 - a))
    if method == "wald":
        z = float(ndtri(1 - a))
        p = k / n
        half = z * math.sqrt(p * (1 - p) / n)
        return p - half, p + half
    raise ValueError(f"unknown proportion interval {method!r}; one of {', '.join(PROPORTION_METHODS)}")


def rate_interval_method(successes: int, n: int) -> str:
    """The interval a rate is shown with: Wilson, except below :data:`SMALL_N` items or at 0% or
    100%, where the exact Clopper-Pearson interval is (a normal interval would have zero width
    there, or pass the 0-1 range)."""
    return "clopper-pearson" if n < SMALL_N or successes in (0, n) else "wilson"


def paired_mde(discordance, n, *, multiplier: float = MDE_MULTIPLIER):
    """Minimum detectable paired difference ``2.8 * sqrt(d / n)`` (alpha 0.05, power 0.8).

    ``d`` is the fraction of items on which the two systems disagree.

    >>> round(float(paired_mde(0.15, 100)), 4)
    0.1084
    """
    d = np.asarray(discordance, dtype=float)
    n = np.asarray(n, dtype=float)
    _check_rate(d, "discordance")
    _check_positive(n, "n")
    return multiplier * np.sqrt(d / n)


def items_needed_for_mde(discordance, mde, *, multiplier: float = MDE_MULTIPLIER):
    """The MDE relation turned around: the least n with ``2.8 sqrt(d / n) <= mde``, i.e.
    ``n = ceil(d (2.8 / mde)^2)``.

    The ceiling is taken exactly, in rational arithmetic on the decimal values the numbers
    were written as (``repr`` of the float: 0.07 is 7/100, not the binary float near it), so
    an exact integer is not pushed one up by rounding:

    >>> int(items_needed_for_mde(0.07, 0.01))
    5488
    """
    d = np.asarray(discordance, dtype=float)
    t = np.asarray(mde, dtype=float)
    _check_rate(d, "discordance")
    _check_positive(t, "mde")
    d, t = np.broadcast_arrays(d, t)
    m = _exact(multiplier)
    out = np.empty(d.shape, dtype=float)
    for idx in np.ndindex(d.shape):
        out[idx] = float(math.ceil(_exact(d[idx]) * m * m / (_exact(t[idx]) ** 2)))
    return out


def _exact(x) -> Fraction:
    """The decimal a float was written as (its shortest repr), as an exact fraction."""
    return Fraction(repr(float(x)))


def implied_per_try_rate(pass_at_k, k):
    """Per-try success rate ``p`` with ``1 - (1 - p)^k = pass@k`` (independent attempts).

    >>> round(float(implied_per_try_rate(0.9, 10)), 3)
    0.206
    """
    pk = np.asarray(pass_at_k, dtype=float)
    k = np.asarray(k, dtype=float)
    _check_rate(pk, "pass@k")
    _check_positive(k, "k")
    return 1.0 - (1.0 - pk) ** (1.0 / k)


def _check_rate(x, name: str) -> None:
    from ..core.errors import OptionError

    if np.any(~np.isfinite(x)) or np.any((x < 0) | (x > 1)):
        raise OptionError(f"`{name}` must be a fraction between 0 and 1; got {name}={_show(x)}.")


def _check_positive(x, name: str) -> None:
    from ..core.errors import OptionError

    if np.any(~np.isfinite(x)) or np.any(x <= 0):
        raise OptionError(f"`{name}` must be > 0; got {name}={_show(x)}.")


def _show(x) -> str:
    x = np.asarray(x)
    return repr(x.item()) if x.ndim == 0 else repr(x.tolist())
