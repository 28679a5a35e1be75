"""The report's record blocks: every record of ``--json`` under an analysis, the summary's
headline numbers, and each interval's method as a cell comment."""

from __future__ import annotations

from typing import Sequence

import pandas as pd

from ..core.result import RECORD_KEYS, AnalysisResult
from .headlines import headline_records, unit_of, who
from .present import bounds_shown, record_kind, record_name
from .layout import Block


def _hide_flat_bounds(frame: pd.DataFrame, records: Sequence[dict], kinds: list) -> None:
    """No interval shown as if certain: the bounds of a degenerate or zero-width interval are
    left empty (the record's ``degenerate`` says why; the JSON keeps them)."""
    if "ci_low" not in frame or "ci_high" not in frame:
        return
    for i, (rec, kind) in enumerate(zip(records, kinds)):
        if rec.get("ci_low") is not None and not bounds_shown(rec, kind):
            frame.iat[i, frame.columns.get_loc("ci_low")] = None
            frame.iat[i, frame.columns.get_loc("ci_high")] = None


def _records_frame(records: Sequence[dict]) -> pd.DataFrame:
    present = [k for k in RECORD_KEYS if any(k in r for r in records)]
    return pd.DataFrame([{k: r.get(k) for k in present} for r in records], columns=present, dtype=object)


def _records_block(key: str, result: AnalysisResult, *, filter: bool) -> Block:
    frame = _records_frame(result.records)
    kinds = [record_kind(result, r) for r in result.records]
    _hide_flat_bounds(frame, result.records, kinds)

    def kind(column: str, i: int) -> str | None:
        if column in ("value", "ci_low", "ci_high", "t_low", "t_high"):
            return kinds[i]
        if column in ("n", "k", "df"):
            return "count"
        return None

    legend = ["n: the denominator each value was computed over; ci_low/ci_high: its 95% "
              "interval (its method in ci_method and in the cell's comment); t_low/t_high: the t "
              "interval beside a bootstrap one; df: a t statistic's degrees of freedom; degenerate: "
              "every bootstrap resample gave the same value, so no interval is shown; from/to: the "
              "pair of systems compared."]
    if "points" in kinds or "margin" in kinds:
        legend.append("Differences of rates are shown in percentage points (the cell holds points: "
                      "+4.5 pts is a difference of 0.045 in the JSON).")
    return Block(key, "All results (the records printed by --json)", frame, cell_kind=kind, legend_below=True,
                 legend=legend, filter=filter, comment=interval_comment(result.records))


def _headline_block(results, order, main_of) -> Block:
    rows, kinds, recs = [], [], []
    for i in order:
        r = results[i]
        for rec in headline_records(r):
            recs.append(rec)
            rows.append({"analysis": main_of[i], "metric": rec["metric"], "name": record_name(rec),
                         "about": who(rec), "value": rec.get("value"), "ci_low": rec.get("ci_low"),
                         "ci_high": rec.get("ci_high"), "n": rec.get("n"),
                         "of": unit_of(r, rec) if rec.get("n") is not None else ""})
            kinds.append(record_kind(r, rec))
    frame = pd.DataFrame(rows, columns=["analysis", "metric", "name", "about", "value", "ci_low", "ci_high",
                                        "n", "of"], dtype=object)
    _hide_flat_bounds(frame, recs, kinds)

    def kind(column: str, i: int) -> str | None:
        if column in ("value", "ci_low", "ci_high"):
            return kinds[i]
        return "count" if column == "n" else None

    return Block("summary/headlines", "Headline numbers", frame, cell_kind=kind, filter=True, legend_below=True,
                 comment=interval_comment(recs),
                 legend=["value with its 95% interval (ci_low to ci_high) where there is one; "
                         "n: the denominator, counted in the unit given by 'of'; differences of rates "
                         "in percentage points."])


def interval_comment(records: Sequence[dict]):
    """The comment of an interval's bound cells: its method (the record's ``ci_method``), so the
    bounds stay plain values and the way they were computed is one hover away."""
    def comment(column: str, i: int) -> str | None:
        if column not in ("ci_low", "ci_high") or i >= len(records):
            return None
        method = records[i].get("ci_method")
        return f"95% interval: {method}" if method else None

    return comment
