"""Cost and latency: cost per success, marginal cost per extra success, tail percentiles."""

from __future__ import annotations

import numpy as np

from ..core.errors import OptionError

#: percentile methods: numpy's default linear interpolation (Hyndman-Fan type 7), or the
#: nearest-rank definition (the ceil(p N)-th smallest value; numpy's "inverted_cdf").
#: the percentile definitions: linear (numpy's default, Hyndman and Fan's type 7), nearest rank
#: (type 1, numpy's ``inverted_cdf``) and numpy's other ``method``s, by their numpy names
PERCENTILE_METHODS = {"linear": "linear", "nearest_rank": "inverted_cdf",
                      **{m: m for m in ("averaged_inverted_cdf", "closest_observation",
                                        "interpolated_inverted_cdf", "hazen", "weibull", "median_unbiased",
                                        "normal_unbiased", "lower", "higher", "midpoint", "nearest")}}


def percentiles(values, qs=(50, 95, 99), *, method: str = "linear") -> np.ndarray:
    """Latency percentiles of ``values`` (NaN for no value)."""
    if method not in PERCENTILE_METHODS:
        raise OptionError(
            f"`percentile_method` must be one of {', '.join(PERCENTILE_METHODS)}; got {method!r}.")
    v = np.asarray(values, dtype=float)
    if v.size == 0:
        return np.full(len(qs), np.nan)
    return np.percentile(v, list(qs), method=PERCENTILE_METHODS[method])


def cost_per_success(total_cost: float, successes: float) -> float:
    """Total cost / successes: failures are charged to the successes that pay for them.

    >>> round(cost_per_success(0.012 * 100, 82), 4)
    0.0146
    """
    return float(total_cost / successes) if successes > 0 else float("nan")


def marginal_cost(cheap_cost: float, cheap_rate: float, dear_cost: float, dear_rate: float):
    """(price per extra success, dominated).  Moving from the cheaper to the dearer system
    costs ``dear_cost - cheap_cost`` per request and buys ``dear_rate - cheap_rate`` successes
    per request.  If the dearer one succeeds no more often it is dominated: no price.

    >>> p, d = marginal_cost(0.012, 0.82, 0.031, 0.86)
    >>> round(p, 3), d
    (0.475, False)
    """
    gain = dear_rate - cheap_rate
    if not gain > 0:
        return float("nan"), True
    return float((dear_cost - cheap_cost) / gain), False
