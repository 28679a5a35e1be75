"""One BLAS thread for the matrix products of the resampling code.

numpy's OpenBLAS splits a product over every core and has its threads wait for each other by
spinning.  On a machine whose cores are busy with other work (two cores shared with other
programs, the usual laptop or CI runner), a thread that loses its core stalls the others: the
resampled sums of a 100,000-item text analysis (products of 10 x 100,000 count blocks with
100,000 x 40 statistics) took 5-17 s instead of 0.6 s (measured 2026-12-06, load average 8 on
2 cores).  The products here are thin (few rows), so one thread loses little when the machine
is idle.  :func:`one_thread` limits BLAS to one thread for the duration of a ``with`` block,
through threadpoolctl (the library scikit-learn and joblib use for this); without it, nothing
changes.
"""

from __future__ import annotations

import contextlib
import functools


@functools.lru_cache(maxsize=1)
def _controller():
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:  # pragma: no cover - threadpoolctl is a dependency
        return None
    return ThreadpoolController()  # the BLAS libraries loaded now (numpy's, imported by the caller)


def one_thread():
    """A context manager: BLAS runs on one thread inside it (the previous limit restored after)."""
    ctl = _controller()
    if ctl is None:
        return contextlib.nullcontext()
    return ctl.limit(limits=1, user_api="blas")


def single_threaded(fn):
    """Decorate a function whose matrix products should run on one BLAS thread."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        with one_thread():
            return fn(*args, **kwargs)

    return wrapper
