"""Results as the report shows them: a lattice bootstrap's histogram and text columns made
readable before the sheets are planned."""

from __future__ import annotations

import math

import pandas as pd

from ..core.result import AnalysisResult, Table


def prepared(result: AnalysisResult) -> AnalysisResult:
    """The result with its tables as the report shows them: the bootstrap histogram on the
    lattice of possible differences, dominated systems saying "dominated"."""
    from dataclasses import replace

    tables = []
    changed = False
    for table in result.tables:
        new = table
        if result.analysis == "compare" and table.name == "bootstrap":
            new = _lattice_histogram(result, table) or table
        elif result.analysis == "cost" and table.name == "marginal":
            new = _dominated_text(table)
        changed |= new is not table
        tables.append(new)
    return replace(result, tables=tuple(tables)) if changed else result


def _lattice_histogram(result: AnalysisResult, table: Table) -> Table | None:
    """Re-bin the analysis's bootstrap histogram onto the lattice of possible differences.

    A paired bootstrap over ``n`` items resamples differences ``(b* - c*) / n``: multiples of
    ``1/n``.  Bins narrower than ``1/n`` hold at most one of them each, so every bin's count
    belongs to one lattice value and the lattice histogram is exact; bins wider than that are
    kept (they hold one or more values each, no bin is empty for want of a value).  A cluster
    bootstrap does not resample on a lattice: its bins are kept."""
    import numpy as np

    if "bs-unit:items" not in result.signature or "difference" in table.frame:
        return None  # not on a lattice, or already on it (the analysis's own lattice bars)
    frame = table.frame
    recs = result.find("diff") or result.find("normal_ci")
    if not recs or not recs[0].get("n") or len(frame) == 0:
        return None
    n = int(recs[0]["n"])
    step = 1.0 / n
    low = frame["bin_low"].to_numpy(float)
    high = frame["bin_high"].to_numpy(float)
    counts = frame["resamples"].to_numpy(float)
    if not (np.all(np.isfinite(low)) and np.all(np.isfinite(high))) or np.max(high - low) >= step:
        return None
    eps = step * 1e-6
    lattice: dict[int, float] = {}
    for lo, hi, count in zip(low, high, counts):
        if count == 0:
            continue
        ks = [k for k in range(math.floor((lo - eps) * n), math.ceil((hi + eps) * n) + 1)
              if lo - eps <= k * step <= hi + eps]
        if not ks:
            return None
        k = min(ks, key=lambda k: abs(k * step - (lo + hi) / 2))
        lattice[k] = lattice.get(k, 0.0) + count
    if not lattice:
        return None
    ks = range(min(lattice), max(lattice) + 1)
    out = pd.DataFrame({"difference": [k / n for k in ks],
                        "resamples": [int(lattice.get(k, 0)) for k in ks]})
    return Table(table.name, table.title, out,
                 columns={"difference": f"a possible difference (a multiple of 1/{n})",
                          "resamples": "bootstrap resamples with this difference"},
                 formats={"difference": "points", "resamples": "int"})


def _dominated_text(table: Table) -> Table:
    frame = table.frame
    if "dominated" not in frame or "marginal_cost_per_success" not in frame:
        return table
    frame = frame.copy()
    col = frame["marginal_cost_per_success"].astype(object)
    dominated = frame["dominated"].map(lambda v: v is True or v == 1 or str(v).lower() == "true")
    col[dominated.to_numpy()] = "dominated"
    frame["marginal_cost_per_success"] = col
    return Table(table.name, table.title, frame, dict(table.columns), dict(table.formats))
