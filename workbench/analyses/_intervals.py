"""The intervals of one run's headline numbers, as record fields, notes and signature entries
(issue 28); the computations are in :mod:`workbench.metrics.headline_ci`."""

from __future__ import annotations

import math

import numpy as np

from ..metrics import headline_ci as hc
from ..metrics.intervals import SMALL_N

#: signature words of each interval method
METHOD_WORDS = {
    "bootstrap-percentile": "bootstrap-percentile-95",
    "cluster-bootstrap-percentile": "cluster-bootstrap-percentile-95",
    "poisson-hash-bootstrap-percentile": "poisson-hash-bootstrap-percentile-95",
    "wilson": "wilson-95",
    "clopper-pearson": "clopper-pearson-95",
}


def fields(ci: hc.MeanCI) -> dict:
    """The record fields of one interval: ci_low/ci_high (absent when degenerate), the method,
    the t interval beside it, and ``degenerate`` when every resample was equal."""
    method = METHOD_WORDS.get(ci.method, ci.method)
    out: dict = {"ci_method": f"{method},B={ci.resamples}" if ci.resamples else method}
    if not ci.degenerate:
        out.update(ci_low=_num(ci.low), ci_high=_num(ci.high))
    else:
        out["degenerate"] = True
    out.update(t_low=_num(ci.t_low), t_high=_num(ci.t_high))
    return out


def _num(x: float) -> float | None:
    return float(x) if x is not None and math.isfinite(x) else None


#: the draw budget in a signature: fewer resamples on large files (each record's ci_method says how many)
BUDGET = f",max-draws:{hc.DRAW_BUDGET:.0e}".replace("e+0", "e")
#: a rate's interval and the t interval beside a bootstrap, in a signature
RATE_WORDS = f"wilson-95,clopper-pearson(n<{SMALL_N},0%,100%)"
T_WORDS = "t-beside"


#: the headline bootstraps: multinomial resampling (numpy's stream of the seed) or the Poisson
#: bootstrap of hashed weights (the same in numpy, DuckDB and Spark)
BOOTSTRAPS = ("multinomial", "poisson-hash")


def signature(resamples: int, seed: int, *, unit: str = "items", clusters: str | None = None,
              bootstrap: str = "multinomial") -> dict:
    """The signature entries of the headline intervals."""
    if bootstrap == "poisson-hash" and not clusters:
        from ..metrics.poisson_bootstrap import SIGNATURE

        boot = (f"poisson-hash-bootstrap-percentile-95,B={resamples},seed={seed},over:{unit},"
                f"weights:{SIGNATURE}") + BUDGET
        return {"ci": boot + "," + T_WORDS, "ci-rate": RATE_WORDS}
    boot = (f"cluster-bootstrap-percentile-95,B={resamples},seed={seed},clusters:{clusters}" if clusters
            else f"bootstrap-percentile-95,B={resamples},seed={seed}" + (f",over:{unit}" if unit != "items" else "")
            ) + BUDGET
    return {"ci": boot + ("" if clusters else "," + T_WORDS), "ci-rate": RATE_WORDS}


def notes(entries: list[tuple[str, hc.MeanCI]], unit: str = "items") -> list[str]:
    """One sentence for the degenerate bootstraps and one for the rates shown with the exact
    interval, each naming its records (``entries``: (label, interval))."""
    out = []
    flat = [label for label, ci in entries if ci.degenerate]
    if flat:
        out.append(f"No interval for {_list(flat)}: every bootstrap resample gives the same value (all "
                   f"the {unit} have the same value, or there is only one), so the bootstrap has no spread, and a zero-width "
                   "interval would claim a certainty the data do not give.")
    exact = [label for label, ci in entries if ci.method == "clopper-pearson"]
    if exact:
        out.append(f"{_list(exact)}: rates of fewer than {SMALL_N} {unit} or at 0% or 100%, shown with the "
                   "exact Clopper-Pearson interval; the normal one would be wrong there.")
    return out


def _list(labels: list[str], most: int = 8) -> str:
    shown = ", ".join(labels[:most])
    return shown + (f" and {len(labels) - most} more" if len(labels) > most else "")


def mean_cis(columns: dict[str, np.ndarray], *, resamples: int, seed: int, clusters=None, sample_means=None,
             unit_ids=None):
    """:func:`workbench.metrics.headline_ci.mean_intervals`, with the options' names."""
    return hc.mean_intervals(columns, resamples=resamples, seed=seed, clusters=clusters,
                             sample_means=sample_means, unit_ids=unit_ids)


def who(metric: str, system=None, group=None) -> str:
    """``token_f1 (system A, group x)``: a record named in a note."""
    parts = [f"system {system}" if system is not None else "", f"group {group}" if group is not None else ""]
    parts = [p for p in parts if p]
    return f"{metric}{' (' + ', '.join(parts) + ')' if parts else ''}"
