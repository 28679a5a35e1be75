"""What the Cost & latency panel adds about an evaluation's spend and its repeated items.

- **Spend counts every request.** A request that ended with an error is no measurement of
  success, but its tokens and cost were spent (an Inspect sample that crashed after the agent
  ran): the spend of each system (cost, tokens, steps, model calls, tool calls, each tool's calls)
  is summed over every record, errored ones included, beside the per-success figures.
- **Limits are counted.** Records that hit a limit (Inspect's message, token, time or working
  limit) are counted per system and kind: they are scored, and their spend counts.
- **A repeated item is one item.** When the reading names the items of a file whose items were
  tried several times, the success rate is the mean over items of each item's share of successful
  requests, as every other panel gives it (a bootstrap interval over the items).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..core.numbers import format_value, plural
from ..core.result import Table, record
from ..io import LoadedTable, to_text
from ..metrics import headline_ci as hc

#: usage columns summed into the spend, with their words
SPEND = (("cost", "cost"), ("input_tokens", "input tokens"), ("output_tokens", "output tokens"),
         ("total_tokens", "tokens"), ("steps", "steps"), ("model_calls", "model calls"),
         ("tool_calls", "tool calls"))


def item_rate(y: np.ndarray, items: np.ndarray, options) -> tuple[float, int, float, float, str | None]:
    """The mean over items of each item's share of successful requests, its item count, and a
    percentile bootstrap interval over the items (None bounds when every item agrees)."""
    codes, _ = pd.factorize(pd.Series(items, dtype=object))
    if not len(codes):
        return float("nan"), 0, float("nan"), float("nan"), None
    sums = np.bincount(codes, weights=y.astype(float))
    counts = np.bincount(codes)
    shares = sums / counts
    rate = float(shares.mean())
    if len(shares) > 1 and np.ptp(shares) > 0:
        lo, hi = hc.percentile_interval(hc.bootstrap_means(shares, resamples=options.ci_resamples,
                                                           seed=options.ci_seed))
        how = f"bootstrap-percentile-95,B={options.ci_resamples},seed={options.ci_seed},over:items"
        return rate, len(shares), float(lo), float(hi), how
    return rate, len(shares), float("nan"), float("nan"), None


def spend(table: LoadedTable, options, sys_col: str | None, labels: list[str], errored: np.ndarray):
    """Records, a table and notes of the spend over every request (errored ones included) and
    of the limits hit, per system."""
    frame = table.frame
    columns = [(c, key, word) for key, word in SPEND
               if (c := _column(table, options, key)) is not None]
    tools = [c for c in frame.columns if str(c).startswith("tool_calls.")]
    limit = "limit" if "limit" in frame.columns else None
    if not columns and not tools and limit is None:
        return [], [], []
    systems = (np.asarray(to_text(table, sys_col), dtype=object) if sys_col
               else np.full(len(frame), labels[0] if labels else "(all)", dtype=object))
    limits = np.asarray(to_text(table, limit), dtype=object) if limit else None
    records, rows, notes = [], [], []
    for label in labels:
        m = systems == label
        who = {"system": label} if sys_col else {}
        row = {"system": label, "requests": int(m.sum()), "errored": int((m & errored).sum())}
        for col, key, _word in columns:
            values = pd.to_numeric(frame[col][m], errors="coerce").to_numpy(dtype=float)
            total = float(np.nansum(values))
            row[key] = total
            records.append(record(f"spend:{key}", total, n=int(np.isfinite(values).sum()), **who))
        for col in tools:
            total = float(pd.to_numeric(frame[col][m], errors="coerce").sum())
            row[str(col)] = total
            records.append(record(f"spend:{col}", total, n=int(m.sum()), **who))
        if limits is not None:
            for kind, count in pd.Series(limits[m])[lambda s: s != ""].value_counts().items():
                row[f"limit:{kind}"] = int(count)
                records.append(record(f"limited:{kind}", int(count), n=int(m.sum()), **who))
        rows.append(row)
        if row["errored"] and columns:
            parts = []
            for col, key, word in columns:
                values = pd.to_numeric(frame[col][m & errored], errors="coerce")
                if values.notna().any() and float(values.sum()) > 0:
                    parts.append(f"{format_value(float(values.sum()), 'cost' if key == 'cost' else 'count')} {word}")
            if parts:
                notes.append(f"'{label}': the spend counts its {plural(row['errored'], 'errored request')} "
                             f"({', '.join(parts)} spent), which stay out of the success rate.")
        hit = {k[6:]: v for k, v in row.items() if k.startswith("limit:")}
        if hit:
            notes.append(f"'{label}': {sum(hit.values())} of {plural(row['requests'], 'request')} hit a limit ("
                         + ", ".join(f"{k} {v}" for k, v in hit.items()) + "); they are scored and their spend "
                         "counts.")
    frame_out = pd.DataFrame(rows)
    formats = {c: ("money" if c == "cost" else "int") for c in frame_out.columns if c != "system"}
    formats["system"] = "text"
    table_out = Table("spend", "Spend over every request (errored ones included) and limits hit", frame_out,
                      {"errored": "requests that ended with an error (no measurement, but their spend is real)",
                       **{key: f"total {word} over every request" for _c, key, word in columns}},
                      formats)
    return records, [table_out], notes


def _column(table: LoadedTable, options, key: str) -> str | None:
    """The usage column of ``key``: the option naming it, else the file's own column of that name."""
    given = getattr(options, "tokens" if key == "total_tokens" else key, None)
    if isinstance(given, str) and given in table.frame.columns:
        return given
    return key if key in table.frame.columns else None


__all__ = ["SPEND", "item_rate", "spend"]
