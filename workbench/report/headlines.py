"""The summary's "Headline numbers": which records of each analysis are its headline, and the
word for each one's denominator.  (The sentences and every number format are the shared policy
of :mod:`.present`.)
"""

from __future__ import annotations

from typing import Callable

from .. import catalog
from ..core.result import AnalysisResult

#: The denominator of each analysis, in words.
UNITS = {a.name: a.unit for a in catalog.ANALYSES}

def who(rec: dict) -> str:
    """What a record is about: ``system 'A'``, ``'old' -> 'new'``, ``k=3``...

    >>> who({"metric": "diff", "from": "a", "to": "b"})
    'a → b'
    """
    parts = []
    for key in ("system", "version", "group"):
        if rec.get(key) is not None:
            parts.append(f"{key} {rec[key]}")
    if rec.get("from") is not None or rec.get("to") is not None:
        parts.append(f"{rec.get('from', '?')} → {rec.get('to', '?')}")
    return ", ".join(parts)


def _ks(result: AnalysisResult, prefix: str) -> list[int]:
    return sorted({r["k"] for r in result.records if r["metric"].startswith(prefix) and "k" in r})


# -- the records behind the sentence --------------------------------------------------------

def _keep(result: AnalysisResult) -> Callable[[dict], bool]:
    a = result.analysis
    if a == "text":  # with two systems, the difference the card leads with (item 7 of issue 23)
        return lambda r: r["metric"] in {"exact_match", "token_f1", "bleu", "chrf", "rougeL",
                                         "diff:exact_match", "p_adjusted:exact_match"}
    if a == "ranking":
        ks = _ks(result, "ndcg@")
        top = {f"{m}{ks[-1]}" for m in ("ndcg@", "p@", "r@")} if ks else set()
        pair = {f"diff:ndcg@{ks[-1]}", f"p_adjusted:ndcg@{ks[-1]}"} if ks else {"diff:mrr", "p_adjusted:mrr"}
        return lambda r: r["metric"] in top | pair | {"mrr", "map"}
    if a == "passk":
        return lambda r: r["metric"].startswith(("pass@", "pass^"))
    if a == "aggregate":
        return lambda r: r["metric"] in {"micro", "macro", "simpson", "pooled_ratio", "mean_of_ratios"}
    if a == "compare":
        return lambda r: r["metric"] in {"rate", "wins", "losses", "normal_ci", "bootstrap_ci",
                                         "sign_test_p", "mcnemar_p", "mde"}
    if a == "cost":
        return lambda r: r["metric"] in {"success_rate", "cost_per_success", "latency_p95",
                                         "marginal_cost_per_success"}
    if a == "gate":
        return lambda r: r["metric"] == "verdict"
    return lambda r: True


def headline_records(result: AnalysisResult) -> list[dict]:
    keep = _keep(result)
    return [r for r in result.records if keep(r) and r.get("convention") is None]


def unit_of(result: AnalysisResult, rec: dict) -> str:
    """The word for a record's denominator: items, queries, tasks, discordant items..."""
    m = rec["metric"]
    if result.analysis == "compare" and m.startswith(("sign_test", "mcnemar")):
        return "discordant items"
    if result.analysis == "cost" and m == "cost_per_success":
        return "successes"
    if result.analysis == "aggregate":
        if m == "macro":
            return "groups"
        if m == "mean_of_ratios":
            return "units"
        if m == "pooled_ratio":
            return "(sum of denominators)"
        if m == "simpson":
            return "segments"
    if result.analysis == "ranking" and ":" in m:
        return "queries in both systems"
    if result.analysis == "text" and ":" in m:
        return "items paired by id"
    if result.analysis == "passk" and m.startswith("per_try_p") and "n" not in rec:
        return ""
    return UNITS.get(result.analysis, "")
