"""Planning without data: interval widths, minimum detectable differences, per-try rates."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..core.errors import OptionError
from ..core.progress import NULL_PROGRESS
from ..core.result import AnalysisResult, Table, record, signature
from ..metrics.intervals import Z95, implied_per_try_rate, items_needed_for_mde, paired_mde, \
    wald_half_width, wilson_interval
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


def run(table=None, options: Options = Options(), progress=NULL_PROGRESS) -> AnalysisResult:
    records, tables, notes = [], [], []
    asked = False
    if options.rate is not None or options.discordance is not None:
        if options.n is None:
            raise OptionError("Give the number of items with --n (the rate interval and the MDE need it).")
        if int(options.n) != options.n or options.n < 1:
            raise OptionError(f"`n` must be a whole number >= 1; got n={options.n!r}.")
    grid = sorted(set(GRID) | ({int(options.n)} if options.n else set()))
    if options.rate is not None:
        asked = True
        r, n = float(options.rate), int(options.n)
        half = float(wald_half_width(r, n))
        low, high = wilson_interval(r * n, n)
        records.append(record("ci_half_width", half, n=n))
        records.append(record("wilson_ci", r, n=n, ci_low=low, ci_high=high))
        w_low, w_high = wilson_interval(r * np.array(grid), np.array(grid))
        tables.append(Table("rate_interval", f"95% interval of a rate of {r:.1%} by number of items",
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
        asked = True
        d, n = float(options.discordance), int(options.n)
        mde = float(paired_mde(d, n))
        records.append(record("mde", mde, n=n))
        tables.append(Table("mde", f"Minimum detectable paired difference at {d:.0%} discordance",
                            pd.DataFrame({"items": grid, "mde": paired_mde(d, grid)}),
                            columns={"mde": "2.8 x sqrt(d / n): alpha 0.05 two-sided, power 0.8"},
                            formats={"items": "int", "mde": "rate"}))
        if options.target_difference is not None:
            need = int(items_needed_for_mde(d, options.target_difference))
            records.append(record("items_needed", need, n=n))
            notes.append(f"To detect a paired difference of {options.target_difference:.1%} at "
                         f"{d:.0%} discordance you need about {need} items.")
    if options.pass_at_k is not None:
        asked = True
        if options.k is None:
            raise OptionError("Give k with --k for the per-try rate implied by pass@k.")
        p = float(implied_per_try_rate(options.pass_at_k, options.k))
        records.append(record("per_try_p", p, k=int(options.k)))
        ks = np.arange(1, max(int(options.k), 10) + 1)
        tables.append(Table("per_try", f"Independent attempts at per-try rate {p:.3f}",
                            pd.DataFrame({"k": ks, "pass@k": 1 - (1 - p) ** ks, "pass^k": p ** ks}),
                            formats={"k": "int", "pass@k": "rate", "pass^k": "rate"}))
        notes.append(f"pass@{options.k} = {options.pass_at_k:.0%} means a per-try rate near {p:.1%} if "
                     f"attempts were independent; three successes in a row would then happen "
                     f"{p ** 3:.1%} of the time. Real tasks are heterogeneous, so this is a rough "
                     f"guide, and pass@k is a ceiling on capability, not a promise of reliability.")
    if not asked:
        raise OptionError("Nothing to plan: give --rate and --n, --discordance and --n, or "
                          "--pass-at-k and --k.")
    sig = base_signature(NAME)
    sig.update({"z": f"{Z95:.6f}", "half-width": "wald", "ci": "wilson-95",
                "mde": "2.8*sqrt(d/n)", "per-try": "1-(1-P)^(1/k)"})
    return AnalysisResult(NAME, signature(sig), tuple(records), tuple(tables), tuple(notes), None)
