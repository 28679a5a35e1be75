"""The answer card of the Slices analysis, and the number kind of its records (a difference is in
points for 0/1 outcomes, a score difference for scores)."""

from __future__ import annotations

from ...core.numbers import ALPHA, format_interval, format_p, format_value
from ...core.numbers import plural as _plural
from ._common import Answer, _first, _q, _signature_fields, interval_text
from ._slice_kinds import binary_family as _binary


def _diff_text(rec: dict, kind: str, label: str = "95% CI") -> str:
    text = format_value(rec.get("value"), kind)
    if rec.get("ci_low") is not None and rec.get("ci_high") is not None:
        text += f" ({label} {format_interval(rec['ci_low'], rec['ci_high'], kind)}"
    else:
        text += " ("
    return text


def _fcr(rec: dict, kind: str) -> str:
    """A selected slice's false-coverage-rate adjusted interval, named by its method."""
    text = interval_text(rec, kind)
    return f"FCR-adjusted {text}" if text else "no FCR-adjusted interval"


def _answer_slices(result, currency):
    overall = _first(result, "diff", group=None)
    if overall is None:
        return None
    binary = _binary(result)
    kind = "points" if binary else "score_diff"
    unit = "" if binary else " in mean score"
    fields = _signature_fields(result)
    alpha = float(fields.get("alpha", ALPHA))
    correction = {"holm": "Holm", "bh": "BH", "none": "unadjusted"}.get(fields.get("correction", ""), "adjusted")
    cand = overall.get("to", "candidate")
    sentences = []
    clean = _first(result, "clean_diff")
    if clean is not None and clean.get("value") is not None:
        ci = f" ({interval_text(clean, kind)}" if interval_text(clean, kind) else " ("
        sentences.append(f"On the clean items (not flagged in '{clean.get('by')}'), candidate {_q(cand)} "
                         f"{format_value(clean['value'], kind)}{unit}{ci}, {_plural(clean.get('n'), 'item')}).")
    lo, hi = overall.get("ci_low"), overall.get("ci_high")
    ci = f" ({interval_text(overall, kind)}, " if interval_text(overall, kind) else " ("
    head = (f"Candidate {_q(cand)} {format_value(overall['value'], kind)}{unit} overall"
            f"{ci}{_plural(overall.get('n'), 'item')})")
    losses = [r for r in result.find("fcr_ci") if r.get("value") is not None and r["value"] < 0]
    wins = [r for r in result.find("fcr_ci") if r.get("value") is not None and r["value"] > 0]
    if losses:
        worst = min(losses, key=lambda r: r["value"])
        p = _first(result, "p_adjusted", group=worst["group"], by=worst.get("by"))
        ptxt = f"; {correction} {format_p(p['value'])}" if p is not None and p.get("value") is not None else ""
        more = f", and on {_plural(len(losses) - 1, 'more slice')}" if len(losses) > 1 else ""
        head += (f", {'but ' if overall['value'] > 0 else 'and '}loses on {worst.get('by')} = {worst['group']}: "
                 f"{format_value(worst['value'], kind)} ({_fcr(worst, kind)}, {_plural(worst.get('n'), 'item')}"
                 f"{ptxt}){more}.")
        tone, badge = "bad", "loses on a slice"
    elif wins:
        best = max(wins, key=lambda r: r["value"])
        head += (f"; no slice loses clearly, and it gains most on {best.get('by')} = {best['group']}: "
                 f"{format_value(best['value'], kind)} ({_fcr(best, kind)}, {_plural(best.get('n'), 'item')}).")
        tone, badge = "good", "no slice loses"
    else:
        tested = sum(int(r.get("value") or 0) for r in result.find("tested_slices"))
        head += (f"; no slice differs clearly from zero after the {correction} correction "
                 f"({_plural(tested, 'slice')} tested).")
        excludes = lo is not None and hi is not None and (lo > 0 or hi < 0)
        tone = ("good" if overall["value"] > 0 else "bad") if excludes else "neutral"
        badge = "no slice stands out"
    sentences.append(head)
    het = []
    for q in result.find("q"):
        if q.get("value") is None:
            continue
        by = q.get("by")
        p = _first(result, "q_p", by=by)
        i2 = _first(result, "i2", by=by)
        differs = p is not None and p.get("value") is not None and p["value"] < alpha
        het.append(f"{'differs' if differs else 'does not clearly differ'} across {by} (Q = {q['value']:.1f}, "
                   f"df = {q.get('df')}, {format_p(p['value']) if p is not None else 'p undefined'}, "
                   f"I² = {format_value(i2['value'], 'rate') if i2 is not None else '-'})")
    if het:
        sentences.append("The effect " + "; it ".join(het) + ".")
    found = [r for r in result.find("holdout_diff") if r.get("value") is not None]
    searched = _first(result, "slices_searched")
    if found and searched is not None:
        r = found[0]
        ci = f" ({interval_text(r, kind)}, " if interval_text(r, kind) else " ("
        sentences.append(f"Discovery ({_plural(searched['value'], 'slice')} searched on half the items): the worst, "
                         f"{r.get('by')} = {r['group']}, is {format_value(r['value'], kind)} on the other half"
                         f"{ci}{_plural(r.get('n'), 'item')}).")
    return Answer(tuple(sentences), badge, tone)
