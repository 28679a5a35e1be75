"""The one result type every analysis returns.

The GUI panel, the Excel report and the command line are three renderings of the same
:class:`AnalysisResult`, so a number cannot differ between them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

#: Keys a result record may carry.  ``k`` is kept for renderers (charts, tables) only: in the
#: JSON output the cut-off is part of the metric's name (``ndcg@10``).
#: ``ci_method`` names the interval of ``ci_low``/``ci_high`` when it is not the signature's
#: one for every record (a rate's Wilson or Clopper-Pearson, a bootstrap); ``t_low``/``t_high``:
#: the t interval beside a bootstrap one; ``df``: a t statistic's degrees of freedom;
#: ``degenerate``: true when every bootstrap resample gave the same value, or the interval's two
#: bounds are equal (a standard error of 0, a constant): no interval is shown for it;
#: ``by``: the slice column of a ``group`` that is a slice (Slices); ``kind``: the number kind
#: of the value and its interval when it is not the metric's own (an Aggregation mean of a
#: measure in its own unit is a ``score``, not a ``rate``); ``unit``: what ``n`` counts when it
#: is not items (an MTEB file's subsets).
RECORD_KEYS = ("metric", "value", "system", "group", "by", "version", "k", "n",
               "ci_low", "ci_high", "ci_method", "t_low", "t_high", "df", "degenerate",
               "from", "to", "groups", "convention", "holds", "kind", "unit")
#: Keys of a record in the ``--json`` output, in order.
JSON_KEYS = tuple(k for k in RECORD_KEYS if k != "k")


def record(metric: str, value: Any, **extra: Any) -> dict:
    """Build one headline record; ``None`` extras are dropped, ``from_`` becomes ``from``."""
    rec: dict[str, Any] = {"metric": metric, "value": _clean(value)}
    for key, val in extra.items():
        key = key.rstrip("_")
        if key not in RECORD_KEYS:
            raise ValueError(f"unknown record key {key!r}")
        if val is None:
            continue
        if key == "n":
            val = _as_int(val)
        rec[key] = _clean(val)
    lo, hi = rec.get("ci_low"), rec.get("ci_high")
    if isinstance(lo, (int, float)) and isinstance(hi, (int, float)) and abs(hi - lo) <= 1e-12 * max(1.0, abs(lo)):
        rec["degenerate"] = True  # a zero-width interval claims a certainty no data give: never shown
    return rec


def _as_int(val: Any) -> Any:
    fval = float(val)
    if math.isfinite(fval) and fval == int(fval):
        return int(fval)
    return fval


def _clean(val: Any) -> Any:
    """numpy scalars -> Python scalars; NaN/inf -> None (JSON has no NaN)."""
    if val is None:
        return None
    if hasattr(val, "item") and not isinstance(val, (str, bytes)):
        val = val.item()
    if isinstance(val, float) and not math.isfinite(val):
        return None
    return val


@dataclass(frozen=True)
class Table:
    """A result table: a DataFrame with a title and a description of every column."""

    name: str
    title: str
    frame: pd.DataFrame
    columns: dict[str, str] = field(default_factory=dict)  # column -> meaning / formula
    #: column -> number format hint: "rate" (fraction shown as percent), "p" (p-value),
    #: "money", "int", "float", "text"
    formats: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class AnalysisResult:
    """Headline records + tables + notes + the signature of the conventions used."""

    analysis: str
    signature: str
    records: tuple[dict, ...]
    tables: tuple[Table, ...] = ()
    notes: tuple[str, ...] = ()
    input: str | None = None
    #: tables also given in full in the ``--json`` output (under ``"tables"``), e.g. the runs'
    #: item grid; the others are in the Excel report only
    json_tables: tuple[str, ...] = ()

    def table(self, name: str) -> Table:
        for tab in self.tables:
            if tab.name == name:
                return tab
        raise KeyError(name)

    def find(self, metric: str, **match: Any) -> list[dict]:
        """Records with this metric whose keys equal ``match`` (``from_`` for ``from``)."""
        match = {k.rstrip("_"): v for k, v in match.items()}
        return [r for r in self.records
                if r["metric"] == metric and all(r.get(k) == v for k, v in match.items())]

    def value(self, metric: str, **match: Any) -> Any:
        """The value of the single record matching; error if none or several match."""
        found = self.find(metric, **match)
        if len(found) != 1:
            raise KeyError(f"{len(found)} records match {metric} {match}")
        return found[0]["value"]

    def to_json_dict(self) -> dict:
        return {
            "analysis": self.analysis,
            "input": self.input,
            "signature": self.signature,
            "notes": list(self.notes),
            "results": [
                {k: r[k] for k in JSON_KEYS if k in r} for r in self.records
            ],
            **({"tables": {name: _json_rows(self.table(name).frame) for name in self.json_tables}}
               if self.json_tables else {}),
        }


def _json_rows(frame: pd.DataFrame) -> list[dict]:
    """A table's rows as JSON objects (NaN -> null, numpy scalars -> Python); column by column,
    so that a table of a few hundred thousand rows takes well under a second."""
    keys = [str(k) for k in frame.columns]
    columns = [_json_column(frame.iloc[:, j]) for j in range(frame.shape[1])]
    return [dict(zip(keys, values)) for values in zip(*columns)] if keys else [{} for _ in range(len(frame))]


def _json_column(column: pd.Series) -> list:
    values = column.to_numpy() if isinstance(column.dtype, np.dtype) else None
    if values is None or values.dtype.kind not in "biuf":  # as pandas' to_dict boxes them, value by value
        return [_clean(v) for v in pd.DataFrame({0: column}).to_dict("list")[0]]
    out = values.tolist()
    if values.dtype.kind == "f":
        for i in np.flatnonzero(~np.isfinite(values)).tolist():
            out[i] = None
    return out


def signature(parts: dict[str, Any]) -> str:
    """``{"gain": "linear", "k": "1,3"}`` -> ``"gain:linear|k:1,3"`` (order kept)."""
    return "|".join(f"{k}:{v}" for k, v in parts.items())
