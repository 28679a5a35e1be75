"""Checks of an analysis' options, run before any work (before a file is even read).

Each analysis module has ``check_options(options)``: its ``run`` calls it first, and the
command line calls it before loading the input, so the GUI, the report and the command line
refuse a bad value with the same sentence (an :class:`OptionError`: the option, the allowed
range and the value found).  The ranges also keep memory bounded by the data, never by an
option (no option sizes an array on its own).
"""

from __future__ import annotations

import math
import numbers

from ..core.errors import OptionError


def _shown(value) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def whole(name: str, value, low: int, high: int | None = None, *, allow_none: bool = False):
    """``value`` as an int in ``[low, high]`` (a whole float such as 3.0 is accepted)."""
    if value is None and allow_none:
        return None
    what = (f"a whole number from {low:,} to {high:,}" if high is not None
            else f"a whole number >= {low:,}")
    ok = isinstance(value, numbers.Integral) and not isinstance(value, bool)
    if not ok and isinstance(value, numbers.Real) and not isinstance(value, bool):
        ok = math.isfinite(value) and float(value).is_integer()
    if ok:
        number = int(value)
        if number >= low and (high is None or number <= high):
            return number
    raise OptionError(f"`{name}` must be {what}; got {name}={_shown(value)}.")


def real(name: str, value, low: float, high: float, *, low_open: bool = False,
         allow_none: bool = False, what: str | None = None):
    """``value`` as a finite float in ``[low, high]`` (``(low, high]`` with ``low_open``)."""
    if value is None and allow_none:
        return None
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool)
    if ok:
        number = float(value)
        ok = math.isfinite(number) and (number > low if low_open else number >= low) and number <= high
        if ok:
            return number
    if what is None:
        what = (f"a number above {low:g} and at most {high:g}" if low_open
                else f"a number from {low:g} to {high:g}")
    raise OptionError(f"`{name}` must be {what}; got {name}={_shown(value)}.")


def choice(name: str, value, choices) -> str:
    if value not in choices:
        raise OptionError(f"`{name}` must be one of {', '.join(choices)}; got {name}={_shown(value)}.")
    return value


def column(name: str, value) -> str | None:
    """A column name: text, or None (guess it); an empty name counts as not given."""
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise OptionError(f"`{name}` must be the name of a column; got {name}={_shown(value)}.")
    return value


def columns(options, names) -> None:
    for name in names:
        column(name, getattr(options, name))
