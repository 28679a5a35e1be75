"""The answer cards of the Cost & latency and Planning analyses."""

from __future__ import annotations

from ...core.numbers import format_value
from ...core.numbers import plural as _plural
from ._common import Answer, _ci, _first, _fv, _q, _systems, interval_text


def _answer_cost(result, currency):
    systems = _systems(result, "success_rate")
    if not systems:
        return None
    marginal = None
    try:
        marginal = result.table("marginal").frame
    except KeyError:
        pass
    dominated = []
    for rec in result.find("dominated"):
        if rec.get("value") and rec.get("to") not in dominated:
            dominated.append(rec.get("to"))
    cps = [r for r in result.find("cost_per_success") if r.get("value") is not None]
    cheapest = min(cps, key=lambda r: r["value"]) if cps else None
    parts = []
    if cheapest is not None:
        rate = _first(result, "success_rate", system=cheapest.get("system"))
        ci = _ci(cheapest, currency=currency)[2:-1]
        free = cheapest.get("value") == 0 and all(
            r.get("value") == 0 for r in result.find("cost_per_request", system=cheapest.get("system")))
        if free:  # a constant has no interval: say what it is
            ci = "every request costs 0"
        # a file whose items were tried several times: the rate is over items (each one's share)
        unit = "item" if "over:items" in str(rate.get("ci_method") or "") else "request" if rate else ""
        succeed = (f"{_fv(rate)} of {_plural(rate.get('n'), unit)} succeed" + (", each item's share of its tries"
                   if unit == "item" else "")) if rate else ""
        inside = "; ".join(x for x in (ci, succeed) if x)
        parts.append(f"{cheapest.get('system')}: {_fv(cheapest, currency=currency)} per success"
                     + (f" ({inside})" if inside else "") + ".")
    buys = []
    for rec in result.find("marginal_cost_per_success"):
        if rec.get("value") is None or rec.get("to") in dominated:
            continue
        if cheapest is not None and rec.get("from") != cheapest.get("system"):
            continue
        gain = ""
        if marginal is not None and {"from", "to", "extra_success_rate"} <= set(marginal.columns):
            row = marginal[(marginal["from"].astype(str) == str(rec.get("from"))) &
                           (marginal["to"].astype(str) == str(rec.get("to")))]
            if len(row):
                gain = f" {format_value(row['extra_success_rate'].iloc[0], 'points').lstrip('+')}"
        buys.append(f"{rec.get('to')} buys{gain or ' more successes'} for "
                    f"{format_value(rec['value'], 'cost', currency=currency)} per extra success")
    second = "; ".join(buys)
    if dominated:
        dom = ", ".join(str(d) for d in dominated)
        verb = "is" if len(dominated) == 1 else "are"
        second = (second + ". " if second else "") + f"{dom} {verb} dominated"
    effort = _effort_clause(result)
    if effort:
        second = (second + "; " if second else "") + effort
    sentences = tuple(s for s in (" ".join(parts), (second + ".") if second else "") if s)
    badge = f"{', '.join(map(str, dominated))} dominated" if dominated else (
        f"cheapest: {cheapest.get('system')}" if cheapest is not None else "cost")
    return Answer(sentences, badge, "neutral")



def _effort_clause(result, currency=None) -> str:
    """The effort beside the cost: with two or more systems, the one with the fewest steps per
    success against the one with the most ("'B' succeeds on 82% (against 81% for 'A') with 5.1
    steps per success against 12.4, at 0.90 times the cost per success of 'A'"); else "steps
    per success: 'B' 3.33"; steps, else tool calls, else tokens."""
    for measure, word in (("steps", "steps"), ("tool_calls", "tool calls"), ("tokens", "tokens")):
        recs = [r for r in result.find(f"{measure}_per_success") if r.get("value") is not None]
        if not recs:
            continue
        recs.sort(key=lambda r: r["value"])
        if len(recs) >= 2 and recs[0].get("system") is not None:
            best, worst = recs[0], recs[-1]
            rb = _first(result, "success_rate", system=best["system"])
            rw = _first(result, "success_rate", system=worst["system"])
            cb = _first(result, "cost_per_success", system=best["system"])
            cw = _first(result, "cost_per_success", system=worst["system"])
            rates = (f" succeeds on {_fv(rb)} (against {_fv(rw)} for {_q(worst['system'])}) with"
                     if rb and rw else " needs")
            cost = ""
            if cb and cw and cb.get("value") == 0 and cw.get("value"):
                cost = f", at no cost (against {_fv(cw, currency=currency)} per success for {_q(worst['system'])})"
            elif cb and cw and cb.get("value") is not None and cw.get("value"):
                ratio = _first(result, "cost_per_success_ratio", from_=worst["system"], to=best["system"])
                value = ratio["value"] if ratio is not None else cb["value"] / cw["value"]
                cost = (f", at {format_value(value, 'statistic')} times the cost per "
                        f"success of {_q(worst['system'])}")
            return (f"{_q(best['system'])}{rates} {_fv(best)} {word} per success against {_fv(worst)}{cost}")
        listed = ", ".join((f"{_q(r['system'])} " if r.get("system") is not None else "")
                           + _fv(r) for r in recs[:3])
        return f"{word} per success: {listed}"
    return ""



def _answer_plan(result, currency):
    half = _first(result, "ci_half_width")
    wilson = _first(result, "wilson_ci")
    mde = _first(result, "mde")
    per_try = _first(result, "per_try_p")
    needed = _first(result, "items_needed")
    sentences = []
    if half is not None:
        text = f"With {_plural(half.get('n'), 'item')} a rate is known to ±{format_value(half['value'], 'margin')}"
        if wilson is not None:
            text += f" (a rate of {_fv(wilson)}: {interval_text(wilson)})"
        sentences.append(text + ".")
    if mde is not None:
        sentences.append(f"A paired difference smaller than {format_value(mde['value'], 'margin')} "
                         f"cannot be told from noise with {_plural(mde.get('n'), 'item')}.")
    if needed is not None:
        sentences.append(f"About {_plural(needed['value'], 'item')} are needed for the target difference.")
    if per_try is not None:
        sentences.append(f"The per-try success rate implied is {_fv(per_try)}"
                         + (f" at k = {per_try['k']}." if per_try.get("k") is not None else "."))
    if not sentences:
        return None
    badge = f"±{format_value(half['value'], 'margin')}" if half is not None else "plan"
    return Answer(tuple(sentences[:2]), badge, "neutral")
