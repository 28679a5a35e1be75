"""The answer cards of the Runs and Repeats analyses."""

from __future__ import annotations

from ...core.numbers import format_interval, format_p, format_value
from ...core.numbers import plural as _plural
from ._common import Answer, _ci, _first, _fv, _q, _signature_fields


def _answer_runs(result, currency):
    """"'run5' vs baseline 'run1': +8.5 pts (paired bootstrap 95% CI +0.5 to +16.5 pts) on 200
    items, 31 gained, 14 lost, 5 in only one of them; 4 of 5 runs tie for first (group a)."

    One verdict: the pair's paired bootstrap and the tie groups' correction for every pair
    (randomised Tukey HSD or Holm, as the signature says) may answer differently; the card then
    leads with the pair's difference and says in one clause why the groups differ ("tied for
    first after correcting for 15 comparisons"), and its tone is the corrected one."""
    runs = [r for r in result.records if r["metric"] in ("run_rate", "run_mean")]
    if not runs:
        return None
    base, last = runs[0].get("system"), runs[-1].get("system")
    sig = _signature_fields(result)
    base = sig.get("baseline", base)
    diff_id = "diff" if runs[0]["metric"] == "run_rate" else "mean_diff"
    if last == base:
        last = runs[-2].get("system")
    d = _first(result, diff_id, from_=base, to=last)
    letters = {r.get("system"): str(r.get("groups") or "") for r in runs}
    firsts = [r.get("system") for r in runs if "a" in letters[r.get("system")]]
    k = len(runs)
    comparisons = k * (k - 1) // 2
    corrected = _group_p(result, base, last)
    how = ("randomised Tukey HSD" if str(sig.get("groups", "")).startswith("randomised-tukey")
           else "Holm")
    parts = []
    tone = "neutral"
    if d is not None:
        text = f"{_q(last)} vs baseline {_q(base)}: {_fv(d)}{_ci(d)} on {_plural(d.get('n'), 'item')}"
        g, lo = _first(result, "gained", from_=base, to=last), _first(result, "lost", from_=base, to=last)
        if g is not None and lo is not None:
            text += f", {g['value']:,} gained, {lo['value']:,} lost"
        a, b = _first(result, "only_from", from_=base, to=last), _first(result, "only_to", from_=base, to=last)
        if a is not None and b is not None and (a["value"] or b["value"]):
            text += f", {a['value'] + b['value']:,} in only one of them"
        parts.append(text)
        lo_ci, hi_ci = d.get("ci_low"), d.get("ci_high")
        apart = lo_ci is not None and hi_ci is not None and (lo_ci > 0 or hi_ci < 0)
        shared = bool(set(letters.get(base, "")) & set(letters.get(last, "")))
        p = f", adjusted {format_p(corrected)}" if corrected is not None else ""
        if apart and shared and comparisons > 1:
            where = "tied for first with it" if base in firsts and last in firsts else "in one tie group with it"
            parts.append(f"{where} after correcting for {comparisons} comparisons ({how}{p})")
            tone = "borderline"
        elif not apart and not shared and comparisons > 1:
            parts.append(f"the {how} over {comparisons} comparisons separates them ({p.lstrip(', ')}), though "
                         f"this pair's own interval includes 0")
            tone = "borderline"
        elif apart:
            tone = "good" if d["value"] > 0 else "bad"
            if comparisons > 1:
                parts.append(f"apart after correcting for {comparisons} comparisons too ({how}{p})")
        else:
            tone = "neutral"
    if firsts:
        parts.append(f"{len(firsts)} of {_plural(len(runs), 'run')} tie for first (group a)"
                     if len(firsts) > 1 else f"{_q(firsts[0])} alone is first (group a)")
    if not parts:
        return None
    badge = {"good": f"{last} better", "bad": f"{last} worse", "borderline": "tied after correction"
             if d is not None and tone == "borderline" else f"{k} runs"}.get(tone, f"{k} runs")
    text = "; ".join(parts)
    return Answer((text + ".",), badge, tone)


def _group_p(result, a, b):
    """The tie groups' adjusted p of the pair (either order): Tukey HSD's or Holm's."""
    for metric in ("tukey_hsd_p", "p_adjusted"):
        for x, y in ((a, b), (b, a)):
            rec = _first(result, metric, from_=x, to=y)
            if rec is not None and rec.get("value") is not None:
                return rec["value"]
    return None



def _answer_repeats(result, currency):
    """"Success rate over each item's tries: 'model-a' 54.2% (95% CI 47.5% to 60.8%), 'model-b'
    59.0% (...) over 120 items; 68 and 70
    items flip across tries; the model's own randomness is 55.0% and 58.9% of one try's variance."""
    means = [r for r in result.records if r["metric"] in ("repeats_mean", "repeats_rate")]
    if not means:
        return None
    sig = {k: v for k, _, v in (p.partition(":") for p in result.signature.split("|"))}
    kind = "rate" if sig.get("value") == "binary" else "score"
    shown = means[:3]

    def keyed(r):
        return {"system": r["system"]} if r.get("system") is not None else {}

    parts = []
    for m in shown:
        text = (f"{_q(m['system'])} " if keyed(m) else "") + format_value(m["value"], kind)
        if m.get("ci_low") is not None:
            text += f" (95% CI {format_interval(m['ci_low'], m['ci_high'], kind)})"
        parts.append(text)
    what = "Success rate over each item's tries" if kind == "rate" else "Mean score over each item's tries"
    s1 = f"{what}: " + ", ".join(parts) + f" over {_plural(shown[0].get('n'), 'item')}"
    flips = [_first(result, "flipping_items", **keyed(m)) for m in shown]
    shares = [_first(result, "within_share", **keyed(m)) for m in shown]
    tail = []
    if all(f is not None for f in flips):
        counts = [f"{f['value']:,}" for f in flips]
        tail.append(f"{' and '.join(counts)} item{'s' if flips[-1]['value'] != 1 or len(flips) > 1 else ''} "
                    f"flip across tries")
    if all(x is not None and x.get("value") is not None for x in shares):
        tail.append("the model's own randomness is " + " and ".join(format_value(x["value"], "rate") for x in shares)
                    + " of one try's variance")
    sentences = [s1 + "."] + (["; ".join(tail)[:1].upper() + "; ".join(tail)[1:] + "."] if tail else [])
    sentences += _repeats_items_or_repeats(result, kind == "rate")
    return Answer(tuple(sentences), "repeats", "neutral")



def _repeats_items_or_repeats(result, binary: bool) -> list[str]:
    """Per compared pair: would more items or more repeats narrow the difference's interval more
    (the half-widths the analysis recorded, the variance parts from its records)."""
    from ...analyses.repeats import Choice

    out = []
    for twice in result.find("half_width_twice_items"):
        pair = {"from_": twice["from"], "to": twice["to"]}
        got = {m: _first(result, m, **pair) for m in ("half_width_twice_repeats", "half_width_repeats_floor",
                                                     "se_repeats", "var_data")}
        if any(r is None or r.get("value") is None for r in got.values()):
            continue
        se, n = got["se_repeats"]["value"], twice["n"]
        data = got["var_data"]["value"]
        choice = Choice(1.959963984540054 * se, twice["value"], got["half_width_twice_repeats"]["value"],
                        got["half_width_repeats_floor"]["value"], data, max(0.0, n * se * se - data))
        who = f"{_q(pair['to'])} vs {_q(pair['from_'])}: " if len(result.find("half_width_twice_items")) > 1 else ""
        text = choice.sentence(binary)
        out.append(who + (text if not who else text[:1].lower() + text[1:]))
    return out
