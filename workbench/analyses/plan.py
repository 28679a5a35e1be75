"""Planning without data: interval widths, minimum detectable differences, per-try rates."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..core.errors import OptionError
from ..core.numbers import format_value, plural
from ..core.progress import NULL_PROGRESS
from ..core.result import AnalysisResult, Table, record, signature
from ..metrics.intervals import Z95, implied_per_try_rate, items_needed_for_mde, paired_mde, \
    wald_half_width, wilson_interval
from . import _checks
from ._common import base_signature

NAME = "plan"
TITLE = "Planning"
GRID = (50, 100, 200, 400, 500, 1000, 2000, 5000)


@dataclass(frozen=True)
class Options:
    rate: float | None = None
    n: int | None = None
    discordance: float | None = None
    pass_at_k: float | None = None
    k: int | None = None
    #: a paired difference you want to detect (optional; gives the items needed)
    target_difference: float | None = None


#: Upper bound of ``n`` and ``k``: far beyond any evaluation set, and small enough that every
#: number stays exact in floating point.
MAX_COUNT = 10**12
#: Upper bound of the k of pass@k, as in the pass@k analysis (the most attempts of a task).
MAX_K = 1_000_000
#: Rows of the per-try table: k = 1..10 and up to k, thinned on a log scale.
PER_TRY_POINTS = 60


def check_options(options: Options) -> None:
    """Every option's type and range, before any work (an :class:`OptionError` sentence)."""
    _checks.real("rate", options.rate, 0.0, 1.0, allow_none=True,
                 what="a fraction from 0 to 1 (0.8 for 80%)")
    _checks.whole("n", options.n, 1, MAX_COUNT, allow_none=True)
    _checks.real("discordance", options.discordance, 0.0, 1.0, low_open=True, allow_none=True,
                 what="a fraction above 0 and at most 1 (0.1 when the systems disagree on 10% "
                      "of the items)")
    _checks.real("pass_at_k", options.pass_at_k, 0.0, 1.0, allow_none=True,
                 what="a fraction from 0 to 1 (0.9 for 90%)")
    _checks.whole("k", options.k, 1, MAX_K, allow_none=True)
    _checks.real("target_difference", options.target_difference, 0.0, 1.0, low_open=True,
                 allow_none=True, what="a fraction above 0 and at most 1 (0.02 for 2 points)")
    if options.target_difference is not None and options.discordance is None:
        raise OptionError("`target_difference` needs the discordance: give --discordance "
                          "(the fraction of items the two systems disagree on) too.")
    if options.rate is not None and options.n is None:
        raise OptionError("Give the number of items with --n: the interval of a rate needs it.")
    if options.pass_at_k is not None and options.k is None:
        raise OptionError("Give k with --k for the per-try rate implied by pass@k.")
    if options.rate is None and options.discordance is None and options.pass_at_k is None:
        raise OptionError("Nothing to plan: give --rate and --n, --discordance (with --n or "
                          "--target-difference), or --pass-at-k and --k.")


def _pct(x: float) -> str:
    """A fraction as a percent with every digit it was given (0.095 -> 9.5%, 0.07 -> 7%)."""
    return f"{round(float(x) * 100, 10):g}%"


def _pts(x: float) -> str:
    """A difference of rates the analyst gave, in points with every digit given (0.05 -> 5 pts)."""
    return f"{round(float(x) * 100, 10):g} pts"


def _detectable(mde):
    """Where the MDE is above 1, no difference can be detected: NaN and a word instead."""
    mde = np.asarray(mde, dtype=float)
    return np.where(mde > 1, np.nan, mde), np.where(mde > 1, NOT_DETECTABLE, "yes")


NOT_DETECTABLE = "not detectable at this size"


def run(table=None, options: Options = Options(), progress=NULL_PROGRESS) -> AnalysisResult:
    check_options(options)
    records, tables, notes = [], [], []
    n = int(options.n) if options.n is not None else None
    grid = sorted(set(GRID) | ({n} if n else set()))
    if options.rate is not None:
        r = float(options.rate)
        half = float(wald_half_width(r, n))
        low, high = wilson_interval(r * n, n)
        records.append(record("ci_half_width", half, n=n))
        records.append(record("wilson_ci", r, n=n, ci_low=low, ci_high=high, ci_method="wilson-95"))
        w_low, w_high = wilson_interval(r * np.array(grid, dtype=float), np.array(grid, dtype=float))
        tables.append(Table("rate_interval", f"95% interval of a rate of {_pct(r)} by number of items",
                            pd.DataFrame({"items": grid, "wald_half_width": wald_half_width(r, grid),
                                          "wilson_low": w_low, "wilson_high": w_high,
                                          "unpaired_difference_needed":
                                              np.sqrt(2) * wald_half_width(r, grid)}),
                            columns={"wald_half_width": "z sqrt(r(1-r)/n), z = 1.959964",
                                     "unpaired_difference_needed":
                                         "sqrt(2) x half-width: two unpaired systems at this rate"},
                            formats={"items": "int", "wald_half_width": "rate", "wilson_low": "rate",
                                     "wilson_high": "rate", "unpaired_difference_needed": "rate"}))
    if options.discordance is not None:
        d = float(options.discordance)
        mde_grid, shown = _detectable(paired_mde(d, grid))
        tables.append(Table("mde", f"Minimum detectable paired difference at {_pct(d)} discordance",
                            pd.DataFrame({"items": grid, "mde": mde_grid, "detectable": shown}),
                            columns={"mde": "2.8 x sqrt(d / n): alpha 0.05 two-sided, power 0.8 "
                                            "(empty where above 100%)",
                                     "detectable": f"'{NOT_DETECTABLE}' where 2.8 x sqrt(d / n) "
                                                   f"is above 100%"},
                            formats={"items": "int", "mde": "rate", "detectable": "text"}))
        if n is not None:
            mde = float(paired_mde(d, n))
            if mde > 1:
                records.append(record("mde", None, n=n))
                notes.append(f"MDE: {NOT_DETECTABLE}: with {plural(n, 'item')} at {_pct(d)} discordance, "
                             f"2.8 x sqrt(d/n) = {format_value(mde, 'margin')} is above 100 points, so no paired difference "
                             f"can be detected; the MDE is left empty.")
            else:
                records.append(record("mde", mde, n=n))
        t = options.target_difference
        if t is not None and t > d:
            notes.append(f"Items needed: a paired difference of {_pts(t)} cannot occur at "
                         f"{_pct(d)} discordance (the difference is at most the share of items "
                         f"the systems disagree on), so no number of items detects it.")
        elif t is not None:
            t = float(t)
            need = int(items_needed_for_mde(d, t))
            records.append(record("items_needed", need))
            notes.append(f"To detect a paired difference of {_pts(t)} at {_pct(d)} discordance "
                         f"you need {plural(need, 'item')} (the least n with 2.8 x sqrt(d/n) ≤ "
                         f"{_pts(t)}).")
    if options.pass_at_k is not None:
        k = int(options.k)
        p = float(implied_per_try_rate(options.pass_at_k, k))
        records.append(record("per_try_p", p, k=k))
        ks = _per_try_ks(k)
        tables.append(Table("per_try", f"Independent attempts at per-try rate {format_value(p, 'score')}",
                            pd.DataFrame({"k": ks, "pass@k": 1 - (1 - p) ** ks, "pass^k": p ** ks}),
                            formats={"k": "int", "pass@k": "score", "pass^k": "score"}))
        # pass@k and the per-try rate on their 0-1 scale, as the table and the pass@k panel show them
        given = f"{round(float(options.pass_at_k), 10):g}"  # every digit given, on the 0-1 scale
        notes.append(f"pass@{k} = {given} means a per-try success "
                     f"rate near {format_value(p, 'score')} if attempts were independent; three successes in "
                     f"a row would then have a probability of {format_value(p ** 3, 'score')} (pass^3). Real "
                     f"tasks are heterogeneous, so this is a rough guide, and pass@k is a ceiling on "
                     f"capability, not a promise of reliability.")
    sig = base_signature(NAME)
    sig.update({"z": f"{Z95:.6f}", "half-width": "wald", "ci": "wilson-95",
                "mde": "2.8*sqrt(d/n)", "mde>1": "not-detectable",
                "items-needed": "ceil(d*(2.8/t)^2),exact", "per-try": "1-(1-P)^(1/k)"})
    return AnalysisResult(NAME, signature(sig), tuple(records), tuple(tables), tuple(notes), None)


def _per_try_ks(k: int) -> np.ndarray:
    """k = 1..max(k, 10), thinned on a log scale past :data:`PER_TRY_POINTS` values (k kept)."""
    top = max(k, 10)
    if top <= PER_TRY_POINTS:
        return np.arange(1, top + 1)
    grid = np.round(np.geomspace(1, top, PER_TRY_POINTS)).astype(np.int64)
    return np.unique(np.concatenate([np.arange(1, 11), grid, [k]]))
