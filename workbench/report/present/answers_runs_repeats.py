"""The answer cards of the Runs and Repeats analyses."""

from __future__ import annotations

from ...core.numbers import count as _count
from ...core.numbers import format_p, format_value
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
            text += f", {_count(g['value'])} gained, {_count(lo['value'])} lost"
        a, b = _first(result, "only_from", from_=base, to=last), _first(result, "only_to", from_=base, to=last)
        if a is not None and b is not None and (a["value"] or b["value"]):
            text += f", {_count(a['value'] + b['value'])} in only one of them"
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
    """The two questions first: two systems' difference (its interval and items), how much of the
    spread is the model's own noise (and how many items flip), how many items or repeats reach
    the target half-width -- or why no number of repeats can -- and, for the difference, whether
    more items or more repeats narrow it more.  At most four sentences, every half-width in the
    card's unit (points for 0/1 outcomes)."""
    means = [r for r in result.records if r["metric"] in ("repeats_mean", "repeats_rate")]
    if not means:
        return None
    sig = _signature_fields(result)
    binary = sig.get("value") == "binary"
    kind = "rate" if binary else "score"
    shown = means[:3]
    named = shown[0].get("system") is not None

    def keyed(r):
        return {"system": r["system"]} if r.get("system") is not None else {}

    def who(r):
        return _q(r["system"]) if named else ""

    sentences = []
    diff = next((r for r in result.records if r["metric"] in ("repeats_rate_diff", "repeats_diff")), None)
    levels = ", ".join(f"{who(m)} {format_value(m['value'], kind)}" for m in shown)
    if diff is not None:
        sentences.append(f"{_q(diff.get('to'))} vs {_q(diff.get('from'))}: {_fv(diff)}{_ci(diff)} on "
                         f"{_plural(diff.get('n'), 'common item')}, each item's tries averaged ({levels}).")
    else:
        what = "Success rate" if binary else "Mean score"
        head = ", ".join(f"{(who(m) + ' ') if named else ''}{format_value(m['value'], kind)}{_ci(m, kind)}"
                         for m in shown)
        sentences.append(f"{what} over each item's tries: {head} over {_plural(shown[0].get('n'), 'item')}.")
    # question 1: how much of the spread is the model's own noise
    shares = [_first(result, "within_share", **keyed(m)) for m in shown]
    flips = [_first(result, "flipping_items", **keyed(m)) for m in shown]
    if all(x is not None and x.get("value") is not None for x in shares):
        own = " and ".join(format_value(x["value"], "rate") + (f" ({who(m)})" if named and len(shown) > 1 else "")
                           for x, m in zip(shares, shown))
        text = f"The model's own randomness is {own} of one try's variance"
        if all(f is not None for f in flips):
            many = len(flips) > 1 or flips[0]["value"] != 1
            text += (f"; {' and '.join(format_value(f['value'], 'count') for f in flips)} of "
                     f"{_plural(shown[0].get('n'), 'item')} {'flip' if many else 'flips'} across tries")
        sentences.append(text + ".")
    elif all(f is not None for f in flips):
        sentences.append(f"{' and '.join(format_value(f['value'], 'count') for f in flips)} of "
                         f"{_plural(shown[0].get('n'), 'item')} flip across tries; no item has two tries, so the "
                         f"model's own randomness cannot be measured.")
    target = _target_sentence(result, shown, keyed, who, binary)
    if target:
        sentences.append(target)
    sentences += _repeats_items_or_repeats(result, binary)[:1]
    return Answer(tuple(sentences[:4]), "repeats", "neutral")


def _target_sentence(result, shown, keyed, who, binary) -> str:
    """How many items or repeats reach the target half-width, or why no number of repeats can
    (the items' spread alone is wider); one clause for the systems that share the answer."""
    from ...analyses.repeats import target_words

    target = _signature_fields(result).get("target", "")
    try:
        half = float(target.replace("+-", ""))
    except ValueError:
        return ""
    goal = target_words(half, binary)
    reach, never, unknown = [], [], []
    for m in shown:
        items = _first(result, "items_needed", **keyed(m))
        reps = _first(result, "repeats_needed", **keyed(m))
        if items is None or reps is None:
            continue
        if items.get("value") is None:
            unknown.append(m)
        elif reps.get("value") is None:
            floor = _first(result, "half_width_repeats_floor", **keyed(m))
            never.append((m, items, floor.get("value") if floor is not None else None))
        else:
            reach.append((m, items, reps))
    n = shown[0].get("n")
    here = f"the {_plural(n, 'item')} in hand"
    parts = []
    for m, items, reps in reach:
        head = f"{who(m)} needs" if who(m) else "it takes"
        parts.append(f"{head} about {_fv(items)} items, or {_fv(reps)} {'try' if reps['value'] == 1 else 'tries'} "
                     f"per item on {here}")
    if never:
        names = " and ".join(who(m) for m, _, _ in never if who(m))
        floors = " and ".join(target_words(f, binary) for _, _, f in never if f is not None)
        items = " and ".join(_fv(i) for _, i, _ in never)
        parts.append(f"no number of repeats reaches it{' for ' + names if names else ''} on {here}"
                     + (f": the items' own spread alone gives {floors}" if floors else "")
                     + f"; about {items} items would")
    if unknown:
        parts.append("it cannot be planned without items of two tries or more")
    if not parts:
        return ""
    text = "; ".join(parts)
    return f"For {goal}, {text}."


def _repeats_items_or_repeats(result, binary: bool) -> list[str]:
    """Per compared pair: would more items or more repeats narrow the difference's interval more
    (the half-widths the analysis recorded), in the card's unit."""
    out = []
    kind = "margin" if binary else "score"
    pairs = result.find("half_width_twice_items")
    for twice in pairs:
        pair = {"from_": twice["from"], "to": twice["to"]}
        got = {m: _first(result, m, **pair) for m in ("half_width_twice_repeats", "half_width_repeats_floor",
                                                     "se_repeats")}
        if any(r is None or r.get("value") is None for r in got.values()) or twice.get("value") is None:
            continue
        now = 1.959963984540054 * got["se_repeats"]["value"]

        def w(x):
            return ("±" + format_value(x, kind)).replace("±+", "±")

        items, reps = twice["value"], got["half_width_twice_repeats"]["value"]
        floor = got["half_width_repeats_floor"]["value"]
        who = f"{_q(pair['to'])} vs {_q(pair['from_'])}: " if len(pairs) > 1 else ""
        if floor <= 0:
            text = (f"doubling the items and doubling the repeats narrow the interval of the difference alike "
                    f"({w(now)} to {w(items)}): the items' own spread is nil")
        else:
            text = (f"doubling the items narrows the interval of the difference more than doubling the repeats "
                    f"({w(now)} to {w(items)}, against {w(reps)}, for the same added tries); ")
            # the within part (var_within / K) against the data part, from the half-widths: now^2 - floor^2
            if now * now - floor * floor > floor * floor:
                text += "the tries' own randomness outweighs the items' spread, so more repeats on the same items come close"
            else:
                text += f"the items' spread outweighs the tries' own randomness: more repeats alone never narrow it below {w(floor)}"
        text = who + text
        out.append(text[:1].upper() + text[1:] + ".")
    return out
