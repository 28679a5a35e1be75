"""Formulas for derived numbers, so that a reviewer can audit them in the workbook.

Where a number of a result table is a simple function of other cells of the workbook (cost
per success = total cost / successes, difference = (wins - losses) / items, pooled ratio =
sum of numerators / sum of denominators, a group's rate = successes / items...), the cell
holds that Excel formula *and* the value the workbench computed (XlsxWriter stores both), so
viewers that do not recalculate still show the workbench's number, and Excel shows the same.
A difference of rates is held in percentage points (the policy of :mod:`.present`), so its
formula is 100 x the difference, and a formula dividing by one divides by points / 100.

Each entry maps ``table name -> column -> f(refs, row) -> formula | None``; ``None`` (or a
:class:`~workbench.report.layout.NoFormula` from ``refs``) means "write the plain value".
A formula is only written where the workbench's value is a finite number.
"""

from __future__ import annotations

from typing import Callable

import pandas as pd

from ..core.result import AnalysisResult
from ..metrics.intervals import MDE_MULTIPLIER
from .layout import Formula, NoFormula, Refs

Key = Callable[[str], str]
Formulas = dict[str, dict[str, Formula]]


def _has(result: AnalysisResult, name: str) -> pd.DataFrame | None:
    try:
        return result.table(name).frame
    except KeyError:
        return None


def _ratio(key: str, num: str, den: str) -> Formula:
    return lambda R, i: f"{R.cell(key, num, i)}/{R.cell(key, den, i)}"


def _runs(values: list) -> dict:
    """value -> (start, stop) of its contiguous run (the tables list one version after another)."""
    runs: dict = {}
    for i, v in enumerate(values):
        start, _ = runs.get(v, (i, i))
        if v in runs and runs[v][1] != i:
            raise NoFormula("rows of a version are not contiguous")
        runs[v] = (start, i + 1)
    return runs


def _cost(result: AnalysisResult, key: Key) -> Formulas:
    systems = _has(result, "systems")
    if systems is None:
        return {}
    sk = key("systems")
    out: Formulas = {"systems": {
        "success_rate": _ratio(sk, "successes", "requests"),
        "cost_per_request": _ratio(sk, "total_cost", "requests"),
        "cost_per_success": _ratio(sk, "total_cost", "successes"),
    }}
    marginal = _has(result, "marginal")
    if marginal is not None:
        mk = key("marginal")
        pos = {str(s): i for i, s in enumerate(systems["system"])}
        frm, to = [str(x) for x in marginal["from"]], [str(x) for x in marginal["to"]]

        def diff(column: str) -> Formula:
            return lambda R, i: (f"{R.cell(sk, column, pos[to[i]], True)}"
                                 f"-{R.cell(sk, column, pos[frm[i]], True)}")

        out["marginal"] = {
            "extra_cost_per_request": diff("cost_per_request"),
            # a difference of rates is shown (and held) in points: 100 x the difference
            "extra_success_rate": lambda R, i: f"100*({diff('success_rate')(R, i)})",
            "marginal_cost_per_success": lambda R, i: (f"100*{R.cell(mk, 'extra_cost_per_request', i)}"
                                                       f"/{R.cell(mk, 'extra_success_rate', i)}"),
        }
    return out


def _compare(result: AnalysisResult, key: Key) -> Formulas:
    if _has(result, "summary") is None:
        return {}
    k = key("summary")
    out: Formulas = {"summary": {
        "discordance": lambda R, i: f"({R.cell(k, 'wins', i)}+{R.cell(k, 'losses', i)})/{R.cell(k, 'items', i)}",
        # differences of rates are held in points (100 x): see present.excel_value
        "diff": lambda R, i: f"100*({R.cell(k, 'wins', i)}-{R.cell(k, 'losses', i)})/{R.cell(k, 'items', i)}",
        "mde": lambda R, i: f"100*{MDE_MULTIPLIER:g}*SQRT({R.cell(k, 'discordance', i)}/{R.cell(k, 'items', i)})",
    }}
    if _has(result, "intervals") is not None:
        out["intervals"] = {"diff": lambda R, i: R.cell(k, "diff", 0, True)}
    return out


def _aggregate(result: AnalysisResult, key: Key) -> Formulas:
    out: Formulas = {}
    groups, overall, pivot = _has(result, "groups"), _has(result, "overall"), _has(result, "versions")
    if groups is not None:
        gk = key("groups")
        versions = list(groups["version"]) if "version" in groups else [None] * len(groups)
        runs = _runs(versions)

        def share(R: Refs, i: int) -> str:
            start, stop = runs[versions[i]]
            return f"{R.cell(gk, 'items', i)}/SUM({R.column(gk, 'items', start, stop)})"

        out["groups"] = {"rate": _ratio(gk, "successes", "items"), "share_of_items": share}
        if overall is not None:
            ok = key("overall")
            o_versions = list(overall["version"]) if "version" in overall else [None] * len(overall)

            def over(func: str, column: str) -> Formula:
                def f(R: Refs, i: int) -> str:
                    start, stop = runs[o_versions[i]]
                    return f"{func}({R.column(gk, column, start, stop)})"
                return f

            out["overall"] = {
                "items": over("SUM", "items"), "successes": over("SUM", "successes"),
                "groups": over("COUNT", "items"),
                "micro": _ratio(ok, "successes", "items"), "macro": over("AVERAGE", "rate"),
                "gap_micro_minus_macro": lambda R, i: f"100*({R.cell(ok, 'micro', i)}-{R.cell(ok, 'macro', i)})",
            }
        if pivot is not None and "version" in groups:
            where = {(str(v), str(g)): i for i, (v, g) in enumerate(zip(groups["version"], groups["group"]))}
            labels = [str(g) for g in pivot["group"]]
            last = len(pivot) - 1

            def cell_of(version: str) -> Formula:
                def f(R: Refs, i: int) -> str | None:
                    if i == last and overall is not None and labels[i].startswith("(overall"):
                        j = [str(v) for v in overall["version"]].index(version)
                        return R.cell(key("overall"), "micro", j, True)
                    j = where.get((version, labels[i]))
                    return None if j is None else R.cell(gk, "rate", j, True)
                return f

            out["versions"] = {str(v): cell_of(str(v)) for v in pivot.columns if v != "group"}
    summary, units = _has(result, "summary"), _has(result, "units")
    if summary is not None and units is not None and "measure" in summary:
        sk, uk = key("summary"), key("units")
        measures = [str(m) for m in summary["measure"]]

        def by_measure(**cases: Formula) -> Formula:
            def f(R: Refs, i: int) -> str | None:
                case = cases.get(measures[i].replace(" ", "_"))
                return case(R, i) if case else None
            return f

        out["summary"] = {
            "value": by_measure(pooled_ratio=_ratio(sk, "numerator", "denominator"),
                                mean_of_ratios=lambda R, i: f"AVERAGE({R.column(uk, 'ratio')})"),
            "numerator": by_measure(pooled_ratio=lambda R, i: f"SUM({R.column(uk, 'numerator')})"),
            "denominator": by_measure(pooled_ratio=lambda R, i: f"SUM({R.column(uk, 'denominator')})"),
            "units": by_measure(mean_of_ratios=lambda R, i: f"COUNT({R.column(uk, 'ratio')})"),
        }
        out["units"] = {"ratio": _ratio(uk, "numerator", "denominator")}
    return out


def _text(result: AnalysisResult, key: Key) -> Formulas:
    if _has(result, "summary") is None:
        return {}
    return {"summary": {"exact_match": _ratio(key("summary"), "exact_matches", "items")}}


def _passk(result: AnalysisResult, key: Key) -> Formulas:
    if _has(result, "summary") is None:
        return {}
    k = key("summary")
    return {"summary": {
        "per_try_p": lambda R, i: f"1-(1-{R.cell(k, 'pass@k', i)})^(1/{R.cell(k, 'k', i)})",
    }}


def _plan(result: AnalysisResult, key: Key) -> Formulas:
    if _has(result, "rate_interval") is None:
        return {}
    k = key("rate_interval")
    return {"rate_interval": {
        "unpaired_difference_needed": lambda R, i: f"SQRT(2)*{R.cell(k, 'wald_half_width', i)}",
    }}


RECIPES: dict[str, Callable[[AnalysisResult, Key], Formulas]] = {
    "cost": _cost, "compare": _compare, "aggregate": _aggregate, "text": _text,
    "passk": _passk, "plan": _plan,
}


def formulas_for(result: AnalysisResult, key: Key) -> Formulas:
    recipe = RECIPES.get(result.analysis)
    if recipe is None:
        return {}
    try:
        return recipe(result, key)
    except (KeyError, NoFormula):  # a table shaped unlike the analysis's own: plain values
        return {}
