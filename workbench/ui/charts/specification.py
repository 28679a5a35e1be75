"""The Conventions tab's specification curve: the headline with its interval under each
alternative convention, sorted (made when the tab first draws it)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...analyses.conventions import TABLE
from .base import GREY, PlainAxis, fmt
from .intervals import IntervalChart

HOLDS, FAILS, NO_VERDICT = "#009E73", "#D55E00", GREY


class SpecificationCurve(IntervalChart):
    """The headline with its 95% interval per convention, sorted by value (one metric)."""

    title = "Specification curve"
    x_axis = PlainAxis
    kind = "plain"
    metric: str | None = None

    def rows(self, result) -> list[dict]:
        try:
            frame = result.table(TABLE).frame
        except KeyError:
            return []
        metric = self.metric or (frame["metric"].iloc[0] if len(frame) else None)
        sub = frame[frame["metric"] == metric].sort_values("value", ascending=False, kind="stable")
        self.zero_line = bool(sub["holds"].notna().any())
        rows = []
        for _, r in sub.iterrows():
            holds = r["holds"]
            group, col, legend = ((2, NO_VERDICT, "no verdict (one system)") if holds is None or pd.isna(holds)
                                  else (0, HOLDS, "verdict holds") if holds else (1, FAILS, "verdict does not hold"))
            rows.append({"label": r["convention"], "est": _num(r["value"]), "low": _num(r["ci_low"]),
                         "high": _num(r["ci_high"]), "n": _num(r["n"]), "group": group, "colour": col,
                         "legend": legend,
                         "basis": r.get("interval") or ""})
        return rows

    def draw(self, result) -> None:
        super().draw(result)
        self.set_labels(bottom=str(self.metric or ""))

    def _tip(self, r: dict) -> str:
        text = f"{r['label']}: {fmt(r['est'], self.kind)}"
        if np.isfinite(r.get("low", np.nan)):
            text += f"  [{fmt(r['low'], self.kind)}, {fmt(r['high'], self.kind)}]"
        return text


def _num(x) -> float:
    try:
        return float(x)
    except (TypeError, ValueError):
        return float("nan")
