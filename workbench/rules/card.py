"""Renderings of a decision card (a gate ``AnalysisResult``) that need no GUI toolkit.

:func:`card_rows` gives display strings a GUI panel or a report can show as they are;
:func:`render_text` is the command line's table; :func:`to_json_dict` its ``--json``.
"""

from __future__ import annotations

import math
from typing import Any

from ..core import numbers
from ..core.result import AnalysisResult, _clean
from .evaluate import CHANGED_NOTE, EXIT_CODES, NAME
from .spec import format_interval, format_value

#: The columns :func:`card_rows` returns, in display order, with their headings.
DISPLAY_COLUMNS = {
    "index": "#",
    "condition": "condition",
    "n": "n",
    "observed": "observed",
    "interval": "interval",
    "requirement": "PASS needs",
    "status": "status",
}


def verdict_of(result: AnalysisResult) -> str:
    """``"PASS"``, ``"FAIL"`` or ``"INCONCLUSIVE"``."""
    _check(result)
    return result.value("verdict")


def exit_code(result: AnalysisResult) -> int:
    """0 for PASS, 1 for FAIL, 3 for INCONCLUSIVE."""
    return EXIT_CODES[verdict_of(result)]


def rule_changed(result: AnalysisResult) -> bool:
    _check(result)
    return bool(result.value("rule_changed_after_results"))


def card_rows(result: AnalysisResult) -> list[dict[str, str]]:
    """One dict of display strings per condition.

    Keys: index, condition, metric, input, n, observed, interval, threshold, requirement,
    status, reason, basis, counts, p_value, p_holm, more_items, notes.  Every number follows the
    policy of :mod:`workbench.core.numbers`: differences of rates in points (``+4.5 pts``, interval
    ``+0.5 to +9.0 pts``), relative changes in percent, costs and latencies in the file's units,
    p-values to 3 significant digits (``< 0.001``), counts as integers.
    """
    _check(result)
    out = []
    for row in result.table("card").frame.to_dict("records"):
        unit, metric = row["unit"], str(row["metric"])
        lo, hi = _num(row["ci_low"]), _num(row["ci_high"])
        out.append({
            "index": str(row["index"]),
            "condition": row["condition"],
            "metric": row["metric"],
            "input": str(row["input"]),
            "n": "-" if _num(row["n"]) is None else numbers.format_value(_num(row["n"]), "count"),
            "observed": format_value(_num(row["observed"]), unit, metric=metric),
            "interval": format_interval(lo, hi, unit, metric=metric) + (
                f" ({numbers.interval_method(row['basis'])})"
                if lo is not None and numbers.interval_method(row["basis"]) else ""),
            "threshold": format_value(_num(row["threshold"]), unit, metric=metric),
            "requirement": row["requirement"],
            "status": row["status"],
            "reason": row["reason"],
            "basis": row["basis"],
            "counts": row["counts"],
            "p_value": _p(row["p_value"]),
            "p_holm": _p(row["p_holm"]),
            "more_items": "" if _num(row["more_items"]) is None else numbers.format_value(_num(row["more_items"]), "count"),
            "notes": row["notes"] or "",
        })
    return out


def render_text(result: AnalysisResult) -> str:
    """The decision card as readable text: header, table, per-condition detail, notes."""
    _check(result)
    rule = {r["field"]: r["value"] for r in result.table("rule").frame.to_dict("records")}
    verdict = verdict_of(result)
    rows = card_rows(result)
    heads = list(DISPLAY_COLUMNS.values())
    keys = list(DISPLAY_COLUMNS)
    cells = [[r[k] for k in keys] for r in rows]
    widths = [max([len(h)] + [len(c[i]) for c in cells]) for i, h in enumerate(heads)]
    right = {"#", "n", "observed"}

    def line(values):
        return "  ".join(v.rjust(w) if h in right else v.ljust(w)
                         for v, w, h in zip(values, widths, heads)).rstrip()

    out = [f"gate: {rule['name']}",
           f"rule: {rule['file']} (sha256 {rule['sha256'][:12]})"
           + (f", registered {rule['registered']}" if rule.get("registered") else ""),
           f"baseline '{rule['baseline']}' -> candidate '{rule['candidate']}', alpha {rule['alpha']}",
           f"input: {result.input}"]
    if rule_changed(result):
        out.append(f"!! {CHANGED_NOTE.upper()} !!")
    out += ["", line(heads), line(["-" * w for w in widths])]
    out += [line(c) for c in cells]
    out.append("")
    for r in rows:
        out.append(f"{r['index']}. {r['status']}: {r['reason']}.")
        out.append(f"   basis: {r['basis']}")
        out.append(f"   counts: {r['counts']}" + (f"; input {r['input']}" if r["input"] else ""))
        if r["p_value"]:
            p = f"   {_p_text(r['p_value'])}"
            if r["p_holm"] and r["p_holm"] != r["p_value"]:
                p += f" (Holm-adjusted {r['p_holm']})"
            out.append(p)
        if r["more_items"]:
            out.append(f"   more needed: about {r['more_items']}")
    out += ["", f"VERDICT: {verdict}"]
    if result.notes:
        out.append("")
        out += [f"note: {n}" for n in result.notes]
    out += ["", f"signature: {result.signature}"]
    return "\n".join(out)


def to_json_dict(result: AnalysisResult) -> dict[str, Any]:
    """The other analyses' JSON (analysis, input, signature, notes, results) plus ``verdict``,
    ``rule_changed_after_results``, ``rule`` (name, file, sha256) and ``card`` (one object per
    condition with the card's columns)."""
    _check(result)
    payload = result.to_json_dict()
    rule = {r["field"]: r["value"] for r in result.table("rule").frame.to_dict("records")}
    payload["verdict"] = verdict_of(result)
    payload["rule_changed_after_results"] = rule_changed(result)
    payload["rule"] = {"name": rule["name"], "file": rule["file"], "sha256": rule["sha256"]}
    payload["card"] = [{k: _json_value(k, v) for k, v in row.items()}
                       for row in result.table("card").frame.to_dict("records")]
    return payload


_INT_COLUMNS = {"index", "input", "n", "more_items"}


def _json_value(key: str, value: Any) -> Any:
    """Card cells as JSON values: missing -> null, counts as integers, numpy -> Python."""
    value = _clean(value)
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return None
    if key in _INT_COLUMNS and isinstance(value, float) and value == int(value):
        return int(value)
    return value


def _check(result: AnalysisResult) -> None:
    if result.analysis != NAME:
        raise ValueError(f"not a gate result: {result.analysis!r}")


def _num(v) -> float | None:
    if v is None:
        return None
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return f if math.isfinite(f) else None


def _p(v) -> str:
    f = _num(v)
    if f is None:
        return ""
    return numbers.format_value(f, "p")


def _p_text(shown: str) -> str:
    """``p = 0.0636`` or ``p < 0.001`` from a card's p cell (never ``p = < 0.001``)."""
    return f"p {shown}" if shown.startswith("<") else f"p = {shown}"
