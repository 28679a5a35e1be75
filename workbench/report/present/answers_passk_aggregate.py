"""The answer cards of the pass@k and Aggregation analyses."""

from __future__ import annotations

from ...core.numbers import format_value
from ...core.numbers import plural as _plural
from ._common import Answer, _ci, _first, _fv, _q, _supported_ks, _systems, _top_k, is_measure


def _answer_passk(result, currency):
    systems = _systems(result, "pass@1") or [None]
    asked = _top_k(result, "pass@")
    # the headline: the largest k the data supports (k > n for every task has no estimate)
    supported = _supported_ks(result, "pass@")
    k_at = supported[-1] if supported else None
    ks_hat = _supported_ks(result, "pass^")
    if k_at is None:
        return None
    # pass^k at the same k as pass@k (one success of k against all k), where the data have it
    k_hat = k_at if k_at in ks_hat else next((k for k in ks_hat if k > 1), ks_hat[-1] if ks_hat else None)
    parts, tones = [], []
    n = None
    for system in systems:
        at = _first(result, f"pass@{k_at}", system=system)
        hat = _first(result, f"pass^{k_hat}", system=system) if k_hat else None
        if at is None:
            continue
        n = at.get("n")
        head = f"{_q(system)}: " if system is not None and len(systems) > 1 else ""
        if hat is None or at.get("value") is None or hat.get("value") is None or k_at == k_hat == 1:
            # one attempt per task: pass@1 and pass^1 are one number, no verdict on reliability
            parts.append(f"{head}pass@{k_at} = {_fv(at)}{_ci(at)}")
            tones.append("neutral")
            continue
        if _fv(hat) == _fv(at):  # every task's attempts agree: one number, no "but"
            parts.append(f"{head}pass@{k_at} = pass^{k_hat} = {_fv(at)}{_ci(at)}: each task's {k_at} attempts "
                         "all succeed or all fail")
            tones.append("good" if hat["value"] >= 0.9 else "neutral")
            continue
        if hat["value"] >= 0.9:
            verdict, tone = "reliable", "good"
        elif hat["value"] < 0.5 * at["value"]:
            verdict, tone = "not reliable", "bad"
        else:
            verdict, tone = "not yet reliable", "borderline"
        parts.append(f"{head}pass@{k_at} = {_fv(at)}{_ci(at)} but pass^{k_hat} = {_fv(hat)}{_ci(hat)}: {verdict}"
                     if tone != "good" else
                     f"{head}pass@{k_at} = {_fv(at)}{_ci(at)} and pass^{k_hat} = {_fv(hat)}{_ci(hat)}: {verdict}")
        tones.append(tone)
    if not parts:
        return None
    every = max((int(r["n"]) for r in result.records
                 if r["metric"].startswith("pass@") and r.get("n") is not None), default=n)
    over = (f"mean over {_plural(n, 'task')}" if n is None or every is None or int(n) >= int(every)
            else f"mean over {n} of {every} tasks; {int(every) - int(n)} with fewer than {k_at} "
                 f"attempts are left out")
    text = "; ".join(parts) + f" ({over})."
    if k_at == 1:
        sentences = (text, "With one attempt per task pass@1 and pass^1 are the same number, so how "
                           "reliable the tasks are cannot be told; pass^k needs k > 1 attempts.")
    else:
        sentences = (text,
                     f"pass@{k_at} counts a task solved if any of {k_at} attempts succeeds"
                     + (f"; pass^{k_hat} only if all {k_hat} do." if k_hat else "."))
    if asked is not None and asked > k_at:
        unsupported = [k for k in sorted({int(r["k"]) for r in result.records
                                          if r["metric"].startswith("pass@") and r.get("k") is not None})
                       if k > k_at]
        shown = ", ".join(f"pass@{k}" for k in unsupported)
        sentences += (f"{shown} {'is' if len(unsupported) == 1 else 'are'} not estimated: no task "
                      f"has that many attempts (k > n).",)
    tone = "bad" if "bad" in tones else "borderline" if "borderline" in tones else \
        "good" if tones and all(t == "good" for t in tones) else "neutral"
    badge = {"bad": "not reliable", "borderline": "borderline", "good": "reliable"}.get(tone, f"pass@{k_at}")
    return Answer(sentences, badge, tone)



def _measured(result) -> str:
    """`` 'logprob'``: the scorer whose mean a measure's card gives (from the signature), or empty."""
    for part in str(getattr(result, "signature", "")).split("|"):
        if part.startswith("scorer:"):
            return f" '{part[len('scorer:'):].split('(')[0]}'"
    return ""


def _answer_aggregate(result, currency):
    simpson = _first(result, "simpson")
    if simpson is not None and simpson.get("value"):
        better, worse = simpson.get("from"), simpson.get("to")
        mb, mw = _first(result, "micro", version=better), _first(result, "micro", version=worse)
        second = "The versions' mix of segments differs; compare them per segment."
        if mb is not None and mw is not None:
            second = (f"Overall {better} scores {_fv(mb)} of {_plural(mb.get('n'), 'item')} against "
                      f"{_fv(mw)} of {_plural(mw.get('n'), 'item')} for {worse}, because the mix of "
                      f"segments differs; compare them per segment.")
        return Answer((f"Simpson's paradox: {better} is better in every segment and worse overall.",
                       second), "Simpson's paradox", "bad")
    pooled = _first(result, "pooled_ratio")
    if pooled is not None and is_measure(result):
        mean = _first(result, "mean_of_ratios")
        s1 = (f"Mean{_measured(result)} {_fv(pooled)}{_ci(pooled)} over "
              f"{_plural(pooled.get('n'), 'row')}")
        if mean is not None:
            s1 += f"; the mean of the units' means {_fv(mean)} over {_plural(mean.get('n'), 'unit')}"
        return Answer((s1 + ".", "The values are a measure in their own unit (not 0/1 outcomes or "
                       "shares): means, never percentages."), f"mean {_fv(pooled)}", "neutral")
    if pooled is not None:
        mean = _first(result, "mean_of_ratios")
        s1 = f"Pooled ratio {_fv(pooled)} (denominators summing to {format_value(pooled.get('n'), 'count')})"
        if mean is not None:
            s1 += f"; mean of ratios {_fv(mean)} over {_plural(mean.get('n'), 'unit')}."
            differ = (pooled.get("value") is not None and mean.get("value") is not None and
                      format_value(pooled["value"], "rate") != format_value(mean["value"], "rate"))
            s2 = ("The two weight units differently: the pooled ratio by their denominators, the mean "
                  "counts every unit once; say which one the question needs." if differ else
                  "The two agree.")
            return Answer((s1, s2), "pooled vs mean" if differ else "ratios agree",
                          "borderline" if differ else "good")
        return Answer((s1 + ".",), f"pooled {_fv(pooled)}", "neutral")
    versions = _systems(result, "micro", "version")
    measure = is_measure(result)
    parts = []
    for version in versions:
        micro = _first(result, "micro", version=version)
        macro = _first(result, "macro", version=version)
        if micro is None:
            continue
        word = micro.get("unit") or "item"
        if measure:  # a mean in the column's own unit: "mean main_score 0.367 over 6 subsets"
            what = _measured(result)
            head = f"{version}: mean{what}" if version is not None else f"Mean{what}"
            text = f"{head} {_fv(micro)}{_ci(micro)} over {_plural(micro.get('n'), word)}"
            if macro is not None and (macro.get("n") or 0) > 1:
                text += f", mean of the {format_value(macro.get('n'), 'count')} group means {_fv(macro)}"
        else:
            head = f"{version}: micro" if version is not None else "Micro"
            text = f"{head} {_fv(micro)}{_ci(micro)} on {_plural(micro.get('n'), word)}"
            if macro is not None:
                text += f", macro {_fv(macro)} over {_plural(macro.get('n'), 'group')}"
        parts.append(text)
    if not parts:
        return None
    sentences = ("; ".join(parts) + ".",)
    if measure:
        sentences += ("The values are a measure in their own unit (not 0/1 outcomes or shares): "
                      "means, never percentages.",)
    tone, badge = "neutral", f"{'mean' if measure else 'micro'} {_fv(_first(result, 'micro'))}"
    if simpson is not None:
        sentences += ("No Simpson's paradox: the overall comparison agrees with the segments.",)
    else:
        rates = [r for r in result.find("rate") if r.get("value") is not None]
        if len(rates) >= 2:
            lo = min(rates, key=lambda r: r["value"])
            hi = max(rates, key=lambda r: r["value"])
            word = lo.get("unit") or "item"
            sentences += (f"Groups range from {_fv(lo)} ({lo.get('group')}, {_plural(lo.get('n'), word)}) "
                          f"to {_fv(hi)} ({hi.get('group')}, {_plural(hi.get('n'), word)}); "
                          + ("the mean over every row weights groups by size, the mean of group means "
                             "equally." if measure else "micro weights groups by size, macro equally."),)
    return Answer(sentences, badge, tone)
