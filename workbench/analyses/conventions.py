"""What changes the number: a panel's headline and its verdict under each alternative convention.

For an analysis, its options and the loaded table, :func:`alternatives` lists the conventions a
reasonable team might use instead, one changed at a time (the current options first), and
:func:`evaluate` recomputes the headline under each by running the analysis itself with the
changed :class:`Options` (so every value equals running the analysis with that option), or, for
a convention the analysis reports side by side (pass@k's plug-in estimator, aggregation's macro
mean, each test of Compare), by reading that record of the same result.  Runs are reused when
two conventions need the same options.  Nothing here runs unless asked (``--conventions``, the
Conventions tab).

The decision: with two or more systems, "the candidate (the second system) is better than the
baseline (the first) and the 95% paired bootstrap interval of the difference excludes 0"
(Compare: each test's p < 0.05, or its interval excluding 0); with one system there is no
verdict, only the value and its interval under each convention.
"""

from __future__ import annotations

import math  # noqa: F401
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from ..core.progress import NULL_PROGRESS, Scaled
from ..core.result import AnalysisResult, Table, record
from ..metrics import headline_ci as hc  # noqa: F401
from ..metrics import paired as pm  # noqa: F401
from ..metrics.significance import percentile_interval  # noqa: F401
# the parts, re-exported here: what was importable from this module stays importable from it
from ._conventions_alternatives import (  # noqa: F401
    ALPHA, ANALYSES, BOOTSTRAP, Convention, LEVEL, NOT_AVAILABLE, RESAMPLES, SEED, TABLE, _ALTERNATIVES,
    _aggregate_alternatives, _compare_alternatives, _cost_alternatives, _others, _passk_alternatives,
    _ranking_alternatives, _text_alternatives, alternatives)
from ._conventions_read import (  # noqa: F401
    DEGENERATE, _EXPECTED, _FAST, _INTERVALS, _READERS, _REUSING, _TEXT_CORPUS, _aggregate_metrics,
    _aggregate_read, _coded_run, _compare_metrics, _compare_read, _cost_metrics, _cost_read, _holds,
    _interval, _named, _passk_metrics, _passk_read, _prepared, _ranking_fast, _ranking_metrics,
    _ranking_read, _ranking_units, _replace_per_query, _row, _text_corpus_read, _text_metrics, _text_read,
    _text_reusing, _units_reading, _versions_read, _with_retrieved_ideal, _with_tie_expectation,
    mean_interval, paired_interval)


@dataclass(frozen=True)
class Conventions:
    """The conventions table of one result: one row per (headline metric, convention)."""

    analysis: str
    frame: pd.DataFrame
    not_available: tuple[str, ...]
    has_verdict: bool

    def sentences(self) -> list[str]:
        return verdict_sentences(self.frame) if self.has_verdict else []


# -- evaluation ---------------------------------------------------------------------------

def evaluate(analysis: str, table, options, *, result: AnalysisResult | None = None,
             progress=NULL_PROGRESS) -> Conventions:
    """Recompute the headline under every alternative convention (``result``: the analysis's
    result with ``options``, reused when given)."""
    from . import REGISTRY

    large = getattr(table, "large", None)
    if large is not None:
        from ..core.errors import DataError

        raise DataError(f"The conventions table recomputes the analysis a dozen times and reads "
                        f"the rows in memory; file '{table.name}' ({large.rows:,} rows) is read "
                        f"by DuckDB page by page. Open an extract of it to see the conventions.")
    module = REGISTRY[analysis]
    _EXPECTED.clear()  # a cache of this evaluation only
    runs: dict[tuple, AnalysisResult] = {}
    if result is not None:
        runs[()] = result
    else:
        runs[()] = module.run(table, options)
    convs = alternatives(analysis, options, runs[()])
    try:
        with _REUSING.get(analysis, nullcontext)():
            rows = _evaluate_each(analysis, module, table, options, convs, runs, progress)
    finally:
        _EXPECTED.clear()  # (the prepared run and the orders: not held after the table)
    progress.advance(1.0, "conventions")
    frame = pd.DataFrame(rows, columns=list(dict.fromkeys(k for r in rows for k in r)) if rows else list(EMPTY_COLUMNS))
    has_verdict = bool(len(frame)) and frame["holds"].notna().any()
    return Conventions(analysis, frame, NOT_AVAILABLE.get(analysis, ()), has_verdict)


def _evaluate_each(analysis, module, table, options, convs, runs, progress) -> list[dict]:
    metrics_of, read = _READERS[analysis]
    rows = []
    for i, conv in enumerate(convs):
        progress.check_cancelled()
        progress.advance(i / len(convs), f"convention {conv.name}")
        if conv.changes not in runs:
            changed = replace(options, **dict(conv.changes))
            fast = _FAST.get(analysis)
            res = fast(table, changed) if fast is not None else None
            runs[conv.changes] = res if res is not None else module.run(
                table, changed, Scaled(progress, i / len(convs), (i + 1) / len(convs)))
        res = runs[conv.changes]
        for metric in metrics_of(options, runs[()]):
            rows.append(read(metric, conv, res, options, table))
    return rows


#: The columns of a conventions table without a row (an analysis without its headline, such
#: as Cost without a latency column).
EMPTY_COLUMNS = ("metric", "convention", "changed", "setting", "default", "value", "ci_low",
                 "ci_high", "interval", "p", "n", "holds")


def verdict_sentences(frame: pd.DataFrame, fmt: Callable[[str, Any], str] | None = None) -> list[str]:
    """Per headline metric: "The verdict holds under N of M conventions; with X it does not
    (value, CI)"; ``fmt(metric, number)`` formats a number (default: 4 significant digits)."""
    num = (lambda metric, x: _num(x)) if fmt is None else (
        lambda metric, x: fmt(metric, x) if _finite(x) else "n/a")
    out = []
    for metric, rows in frame.groupby("metric", sort=False):
        judged = rows[rows["holds"].notna()]
        if judged.empty:
            continue
        holds = judged["holds"].astype(bool)
        as_set = judged[judged["default"].astype(bool)] if "default" in judged else judged.iloc[:0]
        if len(as_set) and not bool(as_set["holds"].astype(bool).iloc[0]):
            # the candidate is not better as set: say so first, then where it would be
            better = judged[holds]
            sentence = (f"On {metric} the candidate is not better (interval excluding 0) under the conventions "
                        f"as set, and is under {int(holds.sum())} of the {len(judged)} conventions")
            if len(better):
                sentence += "; " + "; ".join(
                    f"with {r['convention']} it is ({num(metric, r['value'])}"
                    + (f", CI {num(metric, r['ci_low'])} to {num(metric, r['ci_high'])}" if _finite(r["ci_low"]) else "")
                    + ")" for _, r in better.head(3).iterrows())
            out.append(sentence + ".")
            continue
        sentence = (f"The verdict on {metric} (candidate better, interval excluding 0) holds under "
                    f"{int(holds.sum())} of {len(judged)} conventions")
        failing = judged[~holds]
        if len(failing) and len(failing) < len(judged):
            parts = [f"with {r['convention']} it does not ({num(metric, r['value'])}"
                     + (f", CI {num(metric, r['ci_low'])} to {num(metric, r['ci_high'])}"
                        if _finite(r["ci_low"]) else "")
                     + (f", p {float(r['p']):.3g}" if _finite(r.get("p")) else "") + ")"
                     for _, r in failing.head(3).iterrows()]
            more = f"; and {len(failing) - 3} more" if len(failing) > 3 else ""
            sentence += "; " + "; ".join(parts) + more
        out.append(sentence + ".")
    return out


def _finite(x) -> bool:
    try:
        return x is not None and bool(np.isfinite(float(x)))
    except (TypeError, ValueError):
        return False


def _num(x) -> str:
    return f"{float(x):+.4g}" if _finite(x) else "n/a"


# -- the result with its conventions ------------------------------------------------------

COLUMNS = {
    "metric": "the headline metric (diff: = candidate minus baseline)",
    "convention": "the convention changed (one at a time; 'as set' = the options used)",
    "value": "the headline under that convention",
    "ci_low": "lower end of the 95% interval", "ci_high": "upper end of the 95% interval",
    "interval": "how the interval is computed",
    "p": "the test's p-value (Compare)",
    "n": "the denominator",
    "holds": "whether the verdict holds (candidate better, interval excluding 0 or p < 0.05)",
}


def with_conventions(result: AnalysisResult, table, options, progress=NULL_PROGRESS) -> AnalysisResult:
    """``result`` with the conventions table, one record per convention and headline metric
    (the convention in the record's group and its ``convention`` field), one
    ``verdict_holds:METRIC`` record per headline metric (value N, n = M conventions), and a
    note per headline naming the conventions that change the verdict."""
    conv = evaluate(result.analysis, table, options, result=result, progress=progress)
    frame = conv.frame
    records = []
    for _, r in frame.iterrows():
        who = {k: r[k] for k in ("system", "from", "to", "version") if k in r and _present(r[k])}
        records.append(record(r["metric"], r["value"], n=r["n"], ci_low=_opt(r["ci_low"]),
                              ci_high=_opt(r["ci_high"]), group=f"convention: {r['convention']}",
                              convention=r["convention"], holds=_opt(r["holds"]),
                              **({"degenerate": True} if r.get("interval") == DEGENERATE else {}),
                              **{("from_" if k == "from" else k): v for k, v in who.items()}))
    for metric, rows in frame.groupby("metric", sort=False):
        judged = rows[rows["holds"].notna()]
        if len(judged):
            records.append(record(f"verdict_holds:{metric}", int(judged["holds"].astype(bool).sum()),
                                  n=len(judged), group="conventions"))
    notes = []
    if conv.not_available:
        notes.append("Conventions not available in this analysis: " + "; ".join(conv.not_available) + ".")
    if not len(frame):
        notes.append("Conventions: this result has no single headline that a convention changes "
                     "(Cost: the latency percentiles need a latency column; Text: with a group "
                     "column the metrics are per group and are not varied).")
    elif not conv.has_verdict:
        notes.append("Conventions: with one system there is no verdict to hold; the table gives the "
                     "headline and its interval under each convention.")
    flat = frame[frame["interval"] == DEGENERATE]
    if len(flat):
        names = ", ".join(dict.fromkeys(flat["metric"]))
        notes.append(f"Conventions: no interval in {len(flat)} of {len(frame)} rows ({names}): "
                     "every bootstrap resample gives the same value (all the units have the same "
                     "value, or there is only one), and a zero-width interval would claim a "
                     "certainty the data do not give.")
    fmt = {"value": "float", "ci_low": "float", "ci_high": "float", "p": "p", "n": "int", "holds": "text"}
    tab = Table(TABLE, "What changes the number: the headline under each convention", frame,
                columns={k: v for k, v in COLUMNS.items() if k in frame}, formats=fmt)
    return replace(result, records=result.records + tuple(records), tables=result.tables + (tab,),
                   notes=result.notes + tuple(notes))


def _present(x) -> bool:
    return x is not None and not (isinstance(x, float) and np.isnan(x))


def _opt(x):
    return x if _present(x) else None
