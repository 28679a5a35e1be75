"""The summary's words: one sentence per analysis with its headline numbers, denominators
and intervals, and the records behind it.

Every number in a sentence is a record of the result, formatted; nothing is recomputed.
"""

from __future__ import annotations

import math
from typing import Any, Callable

from ..core.result import AnalysisResult

#: The denominator of each analysis, in words.
UNITS = {"text": "items", "ranking": "queries", "passk": "tasks", "aggregate": "items",
         "compare": "paired items", "cost": "requests", "plan": "items"}

_P = {"sign_test_p", "sign_test_midp", "mcnemar_p", "mcnemar_cc_p"}
_MONEY = {"cost_per_request", "cost_per_success", "marginal_cost_per_success"}
_INT = {"wins", "losses", "ties", "items_needed"}
_FLOAT = {"bleu", "chrf", "mcnemar_chi2", "mcnemar_cc_chi2"}
_RATE_PREFIXES = ("p@", "r@", "hit@", "ndcg@", "pass@", "pass^", "naive_pass", "per_try_p")
_RATE = {"exact_match", "token_f1", "rouge1", "rouge2", "rougeL", "mrr", "map", "micro", "macro",
         "rate", "success_rate", "diff", "normal_ci", "bootstrap_ci", "mde", "ci_half_width",
         "wilson_ci", "pooled_ratio", "mean_of_ratios"}


def metric_kind(metric: str) -> str | None:
    """The number-format kind of a record's value: rate, p, money, int, float or None.

    >>> metric_kind("ndcg@10"), metric_kind("mcnemar_p"), metric_kind("cost_per_success")
    ('rate', 'p', 'money')
    """
    if metric in _P:
        return "p"
    if metric in _MONEY:
        return "money"
    if metric in _INT:
        return "int"
    if metric in _FLOAT or metric.startswith("latency_"):
        return "float"
    if metric in _RATE or metric.startswith(_RATE_PREFIXES):
        return "rate"
    return None


def fmt(value: Any, kind: str | None, currency: str | None = "$") -> str:
    """A value as the sentence shows it (the sheet shows the same number with a format)."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "n/a"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, str):
        return value
    # as the cell's number format shows it (styles.NUMBER_FORMATS), so the two never differ
    if kind == "rate":
        return f"{value:.1%}"
    if kind == "p":
        return f"{value:.4f}" if value >= 0.00005 or value == 0 else "< 0.0001"
    if kind == "money":
        sign = "-" if value < 0 else ""
        return f"{sign}{currency or ''}{_decimals(abs(value), 2, 4)}"
    if kind == "int" or isinstance(value, int):
        return f"{value:,.0f}"
    return _decimals(value, 1, 4)


def _decimals(value: float, least: int, most: int) -> str:
    """``#,##0.0###``-style: ``most`` decimals, trailing zeros dropped down to ``least``.

    >>> _decimals(0.0146, 2, 4), _decimals(0.475, 2, 4), _decimals(1.2, 2, 4), _decimals(31.30661, 1, 4)
    ('0.0146', '0.475', '1.20', '31.3066')
    """
    text = f"{value:,.{most}f}"
    head, _, tail = text.partition(".")
    tail = tail.rstrip("0")
    return f"{head}.{tail.ljust(least, '0')}"


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


def _value(rec: dict, currency) -> str:
    return fmt(rec.get("value"), metric_kind(rec["metric"]), currency)


def _ci(rec: dict, currency) -> str:
    if rec.get("ci_low") is None and rec.get("ci_high") is None:
        return ""
    kind = metric_kind(rec["metric"])
    return f" (95% CI {fmt(rec.get('ci_low'), kind, currency)} to {fmt(rec.get('ci_high'), kind, currency)})"


def _of(rec: dict, unit: str) -> str:
    return f" of {rec['n']:,} {unit}" if rec.get("n") is not None else ""


def _first(result: AnalysisResult, metric: str, **match) -> dict | None:
    found = result.find(metric, **match)
    return found[0] if found else None


def _per(result: AnalysisResult, key: str, body: Callable[[Any], str]) -> str:
    values = list(dict.fromkeys(r.get(key) for r in result.records if r["metric"] != "simpson"))
    parts = []
    for v in values:
        text = body(v)
        if text:
            parts.append(f"{key} {v}: {text}" if v is not None else text)
    return "; ".join(parts)


# -- one sentence per analysis -------------------------------------------------------------

def _text(result, cur) -> str:
    def body(system):
        em = _first(result, "exact_match", system=system)
        if em is None:
            return ""
        bits = [f"exact match {_value(em, cur)}{_of(em, 'items')}"]
        for metric, name in (("token_f1", "token F1"), ("bleu", "BLEU"), ("chrf", "chrF"),
                             ("rougeL", "ROUGE-L")):
            rec = _first(result, metric, system=system)
            if rec:
                bits.append(f"{name} {_value(rec, cur)}")
        return ", ".join(bits)
    return _per(result, "system", body)


def _ks(result, prefix: str) -> list[int]:
    return sorted({r["k"] for r in result.records if r["metric"].startswith(prefix) and "k" in r})


def _ranking(result, cur) -> str:
    ks = _ks(result, "ndcg@")

    def body(system):
        bits = []
        if ks:
            rec = _first(result, f"ndcg@{ks[-1]}", system=system)
            if rec:
                bits.append(f"nDCG@{ks[-1]} {_value(rec, cur)} over {rec.get('n', '?'):,} queries")
        for metric, name in (("mrr", "MRR"), ("map", "MAP")):
            rec = _first(result, metric, system=system)
            if rec:
                bits.append(f"{name} {_value(rec, cur)}")
        if ks:
            for metric, name in (("p@", "P@"), ("r@", "R@")):
                rec = _first(result, f"{metric}{ks[-1]}", system=system)
                if rec:
                    bits.append(f"{name}{ks[-1]} {_value(rec, cur)}")
        return ", ".join(bits)
    return _per(result, "system", body)


def _passk(result, cur) -> str:
    ks = _ks(result, "pass@")

    def body(system):
        bits = []
        for k in ks:
            rec = _first(result, f"pass@{k}", system=system)
            hat = _first(result, f"pass^{k}", system=system)
            if rec:
                bits.append(f"pass@{k} {_value(rec, cur)}" + (f" / pass^{k} {_value(hat, cur)}" if hat else "")
                            + _of(rec, "tasks"))
        return ", ".join(bits)
    return _per(result, "system", body)


def _aggregate(result, cur) -> str:
    pooled = _first(result, "pooled_ratio")
    if pooled is not None:
        mean = _first(result, "mean_of_ratios")
        text = f"pooled ratio {_value(pooled, cur)} (sum of numerators / sum of denominators, " \
               f"denominator total {fmt(pooled.get('n'), 'float')})"
        if mean:
            text += f"; mean of ratios {_value(mean, cur)} over {mean.get('n', 0):,} units"
        return text

    def body(version):
        micro = _first(result, "micro", version=version)
        if micro is None:
            return ""
        text = f"micro {_value(micro, cur)}{_of(micro, 'items')}{_ci(micro, cur)}"
        macro = _first(result, "macro", version=version)
        if macro:
            text += f", macro {_value(macro, cur)} over {macro.get('n', 0):,} groups"
        return text
    text = _per(result, "version", body)
    simpson = _first(result, "simpson")
    if simpson is not None:
        if simpson["value"]:
            text += (f"; Simpson's paradox: '{simpson.get('from')}' beats '{simpson.get('to')}' in "
                     f"every segment yet is worse overall")
        else:
            text += "; no Simpson's paradox"
    return text


def _compare(result, cur) -> str:
    rates = result.find("rate")
    diff = _first(result, "normal_ci")
    boot = _first(result, "bootstrap_ci")
    bits = []
    if len(rates) == 2:
        base, cand = rates
        bits.append(f"'{cand.get('system')}' {_value(cand, cur)} vs '{base.get('system')}' "
                    f"{_value(base, cur)}{_of(cand, 'paired items').replace(' of ', ' on ')}")
    if diff:
        d = diff["value"]
        text = f"difference {'+' if d is not None and d > 0 else ''}{_value(diff, cur)}"
        if diff.get("ci_low") is not None:
            text += f" (95% normal CI {fmt(diff['ci_low'], 'rate')} to {fmt(diff['ci_high'], 'rate')}"
            if boot and boot.get("ci_low") is not None:
                text += f"; bootstrap {fmt(boot['ci_low'], 'rate')} to {fmt(boot['ci_high'], 'rate')}"
            text += ")"
        bits.append(text)
    wins, losses = _first(result, "wins"), _first(result, "losses")
    if wins and losses:
        bits.append(f"{wins['value']:,} wins / {losses['value']:,} losses")
    sign = _first(result, "sign_test_p")
    if sign:
        bits.append(f"exact sign test p = {_value(sign, cur)} ({sign.get('n', 0):,} discordant items)")
    mcn = _first(result, "mcnemar_p")
    if mcn and mcn.get("value") is not None:
        bits.append(f"McNemar p = {_value(mcn, cur)}")
    mde = _first(result, "mde")
    if mde:
        bits.append(f"minimum detectable difference {_value(mde, cur)}")
    return ", ".join(bits)


def _cost(result, cur) -> str:
    def body(system):
        rate = _first(result, "success_rate", system=system)
        if rate is None:
            return ""
        text = f"success {_value(rate, cur)}{_of(rate, 'requests')}{_ci(rate, cur)}"
        cps = _first(result, "cost_per_success", system=system)
        if cps:
            text += f", cost per success {_value(cps, cur)} over {cps.get('n', 0):,} successes"
        p95 = _first(result, "latency_p95", system=system)
        if p95:
            text += f", p95 latency {_value(p95, cur)}"
        return text
    systems = list(dict.fromkeys(r.get("system") for r in result.records if r["metric"] == "success_rate"))
    parts = []
    for s in systems:
        t = body(s)
        if t:
            parts.append(f"{s}: {t}" if s is not None else t)
    for rec in result.find("marginal_cost_per_success"):
        if rec.get("value") is None:
            parts.append(f"{rec.get('to')} is dominated by {rec.get('from')} (costs more, succeeds no more often)")
        else:
            parts.append(f"{rec.get('from')} → {rec.get('to')}: {_value(rec, cur)} per extra success")
    return "; ".join(parts)


def _plan(result, cur) -> str:
    bits = []
    for rec in result.records:
        m = rec["metric"]
        if m == "ci_half_width":
            bits.append(f"95% half-width ±{_value(rec, cur)} with {rec.get('n', 0):,} items (Wald)")
        elif m == "wilson_ci":
            bits.append(f"Wilson interval of {_value(rec, cur)}: {fmt(rec.get('ci_low'), 'rate')} to "
                        f"{fmt(rec.get('ci_high'), 'rate')}")
        elif m == "mde":
            bits.append(f"minimum detectable paired difference {_value(rec, cur)} with {rec.get('n', 0):,} items")
        elif m == "items_needed":
            bits.append(f"about {rec['value']:,} items needed for the target difference")
        elif m == "per_try_p":
            bits.append(f"per-try rate {_value(rec, cur)} implied at k = {rec.get('k')}")
    return "; ".join(bits)


def _gate(result, cur) -> str:
    verdict = _first(result, "verdict")
    text = f"release verdict {verdict['value']}" if verdict else "no verdict"
    try:
        card = result.table("card").frame
    except KeyError:
        return text
    if "status" in card:
        counts = card["status"].astype(str).value_counts()
        text += f" over {len(card)} condition{'s' if len(card) != 1 else ''} (" + ", ".join(
            f"{n} {s}" for s, n in counts.items()) + ")"
    return text


def _generic(result, cur) -> str:
    bits = []
    for rec in result.records[:8]:
        about = who(rec)
        bits.append(f"{rec['metric']}{' (' + about + ')' if about else ''} {_value(rec, cur)}"
                    f"{' of ' + format(rec['n'], ',') if rec.get('n') is not None else ''}{_ci(rec, cur)}")
    if len(result.records) > 8:
        bits.append(f"and {len(result.records) - 8} more results on its sheet")
    return "; ".join(bits)


SENTENCES: dict[str, Callable[[AnalysisResult, Any], str]] = {
    "text": _text, "ranking": _ranking, "passk": _passk, "aggregate": _aggregate,
    "compare": _compare, "cost": _cost, "plan": _plan, "gate": _gate,
}


def headline(result: AnalysisResult, currency: str | None = "$") -> str:
    """One sentence with the headline numbers, their denominators and intervals."""
    try:
        text = SENTENCES.get(result.analysis, _generic)(result, currency)
    except (KeyError, TypeError, ValueError):  # a record shaped unlike the analysis's own
        text = ""
    return text or _generic(result, currency) or "no results"


# -- the records behind the sentence --------------------------------------------------------

def _keep(result: AnalysisResult) -> Callable[[dict], bool]:
    a = result.analysis
    if a == "text":
        return lambda r: r["metric"] in {"exact_match", "token_f1", "bleu", "chrf", "rougeL"}
    if a == "ranking":
        ks = _ks(result, "ndcg@")
        top = {f"{m}{ks[-1]}" for m in ("ndcg@", "p@", "r@")} if ks else set()
        return lambda r: r["metric"] in top | {"mrr", "map"}
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
    return [r for r in result.records if keep(r)]


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
    if result.analysis == "passk" and m.startswith("per_try_p") and "n" not in rec:
        return ""
    return UNITS.get(result.analysis, "")
