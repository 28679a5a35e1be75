"""Unbiased pass@k and pass^k (Chen et al. 2021; Yao et al. 2024) and their plug-in versions.

For a task with ``n`` attempts of which ``c`` passed:

* pass@k = 1 - C(n - c, k) / C(n, k): a random k-subset of the attempts contains a pass;
* pass^k = C(c, k) / C(n, k): a random k-subset is all passes.

Both ratios are evaluated as a product of ``k`` factors,
``C(n-c,k)/C(n,k) = prod_{i<k} (n-c-i)/(n-i)`` and ``C(c,k)/C(n,k) = prod_{i<k} (c-i)/(n-i)``,
which never forms a binomial coefficient and so is exact to rounding for n in the thousands.
A task with ``n < k`` has no unbiased estimate: it gets NaN (never 1.0) and callers count it.
"""

from __future__ import annotations

import numpy as np

from ..core.errors import OptionError

_CHUNK = 1_000_000  # tasks * k factors per block, to bound memory


def _validate(n, c, k):
    n = np.asarray(n, dtype=np.int64)
    c = np.asarray(c, dtype=np.int64)
    if int(k) != k or k < 1:
        raise OptionError(f"`k` must be a whole number >= 1; got k={k!r}.")
    if n.shape != c.shape:
        raise ValueError("n and c must have the same shape")
    if np.any(n < 0) or np.any(c < 0) or np.any(c > n):
        raise OptionError("Each task needs 0 <= c <= n; some task has c > n or a negative count.")
    return n, c, int(k)


def _ratio(top, n, k):
    """prod_{i<k} (top - i) / (n - i), with factors <= 0 giving 0; only for n >= k."""
    out = np.empty(top.shape, dtype=float)
    step = max(1, _CHUNK // max(k, 1))
    i = np.arange(k, dtype=float)
    for start in range(0, top.size, step):
        t = top[start:start + step, None].astype(float)
        m = n[start:start + step, None].astype(float)
        factors = np.clip((t - i) / (m - i), 0.0, None)
        out[start:start + step] = np.prod(factors, axis=1)
    return out


def pass_at_k(n, c, k: int):
    """Unbiased pass@k per task; NaN where ``n < k``.

    >>> [round(float(pass_at_k([10], [3], k)[0]), 3) for k in (1, 3, 5)]
    [0.3, 0.708, 0.917]
    """
    n, c, k = _validate(n, c, k)
    n1, c1 = np.atleast_1d(n), np.atleast_1d(c)
    out = np.full(n1.shape, np.nan)
    ok = n1 >= k
    out[ok] = 1.0 - _ratio(n1[ok] - c1[ok], n1[ok], k)
    return out.reshape(n.shape)


def pass_hat_k(n, c, k: int):
    """Unbiased pass^k per task (all k of a random k-subset pass); NaN where ``n < k``.

    >>> round(float(pass_hat_k([10], [3], 3)[0]), 4)
    0.0083
    """
    n, c, k = _validate(n, c, k)
    n1, c1 = np.atleast_1d(n), np.atleast_1d(c)
    out = np.full(n1.shape, np.nan)
    ok = n1 >= k
    out[ok] = _ratio(c1[ok], n1[ok], k)
    return out.reshape(n.shape)


def naive_pass_at_k(n, c, k: int):
    """Plug-in ``1 - (1 - c/n)^k`` (biased low); NaN where ``n == 0``."""
    n, c, k = _validate(n, c, k)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = c / n.astype(float)
    return 1.0 - (1.0 - p) ** k


def naive_pass_hat_k(n, c, k: int):
    """Plug-in ``(c/n)^k`` (biased high); NaN where ``n == 0``."""
    n, c, k = _validate(n, c, k)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = c / n.astype(float)
    return p ** k
