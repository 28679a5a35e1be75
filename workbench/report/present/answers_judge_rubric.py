"""The answer cards of the Judge and Rubric analyses."""

from __future__ import annotations

from ...core.numbers import format_p, format_value
from ...core.numbers import plural as _plural
from ._common import Answer, _ci, _first, _fv, _q, _signature_fields, t_sentence


def _answer_rubric(result, currency):
    """One system: its score and its weakest criterion; several: each candidate's change against
    the baseline and the criteria that moved it most ("+3.1 pts, mostly 'cites a source' (+2.4 pts)")."""
    diffs = [r for r in result.records if r["metric"] == "diff:rubric_score"]
    if not diffs:
        rec = _first(result, "rubric_score")
        if rec is None or rec.get("value") is None:
            return None
        s1 = f"Rubric score {_fv(rec)}{_ci(rec)} over {_plural(rec.get('n'), 'item')}"
        rates = [r for r in result.records if r["metric"].startswith("criterion_rate:") and r.get("value") is not None]
        if rates:
            low = min(rates, key=lambda r: r["value"])
            s1 += f"; weakest criterion '{low['metric'].partition(':')[2]}' at {_fv(low)}"
        return Answer((s1 + ".",), f"score {_fv(rec)}", "neutral")
    parts, tones = [], []
    for d in diffs:
        contrib = [r for r in result.records if r["metric"].startswith("contribution:")
                   and r.get("to") == d.get("to") and r.get("value") is not None]
        ci = _ci(d)
        text = f"{_q(d.get('to'))} vs {_q(d.get('from'))}: {_fv(d)}{ci} on {_plural(d.get('n'), 'item')}"
        if contrib and d.get("value"):
            same = [r for r in contrib if (r["value"] > 0) == (d["value"] > 0) and r["value"] != 0]
            top = max(same, key=lambda r: abs(r["value"]), default=None)
            if top is not None:
                text += f", mostly {_q(top['metric'].partition(':')[2])} ({_fv(top)})"
        t_text = t_sentence(result, ":rubric_score", from_=d.get("from"), to=d.get("to"))
        if t_text:
            text += f" (paired t-test {t_text})"
        parts.append(text)
        lo, hi = d.get("ci_low"), d.get("ci_high")
        tones.append("good" if lo is not None and lo > 0 else "bad" if hi is not None and hi < 0 else "borderline")
    tone = tones[0] if len(set(tones)) == 1 else "neutral"
    first = diffs[0]
    return Answer(("; ".join(parts) + ".",), f"{_fv(first)}" if len(diffs) == 1 else "rubric", tone)



def _judge_score_sentence(result, sig) -> str:
    """The judge's own score per system (a judge scorer of an evaluation log), first."""
    scores = [r for r in result.find("judge_score") if r.get("value") is not None]
    if not scores:
        return ""
    name = str(sig.get("judge", ""))
    name = name[len("scorer:"):] if name.startswith("scorer:") else "the judge"
    failures = str(sig.get("unscored", "")).startswith("failures")  # --errors fail: blanks scored 0
    parts = []
    for r in scores:
        unscored = next((u.get("value") for u in result.find("judge_unscored", system=r.get("system"))), 0)
        who = f"'{r['system']}' " if r.get("system") else ""
        parts.append(f"{who}{format_value(r['value'], 'score')}{_ci(r, 'score')} over "
                     + (f"{_plural(r.get('n'), 'item')}" if failures else f"{_plural(r.get('n'), 'item')} it scored")
                     + (f" ({_plural(unscored, 'record')} unscored"
                        + (", counted as failures)" if failures else ")") if unscored else ""))
    return f"Scorer '{name}' gives " + "; ".join(parts) + "."


def _answer_people(result):
    """The annotators' agreement with each other (no judge's labels)."""
    alpha = _first(result, "alpha", group="people alone")
    pairs = [r for r in result.find("agreement") if r.get("value") is not None]
    count = _signature_fields(result).get("people", "").rsplit(":", 1)[-1]
    parts = [f"The {count} annotators agree with each other"]
    if alpha is not None and alpha.get("value") is not None:
        parts[0] += f": Krippendorff's alpha {format_value(alpha['value'], 'score')} over " \
                    f"{_plural(alpha.get('n'), 'item')} labelled by two or more"
    sentences = [parts[0] + "."]
    if pairs:
        low, high = min(pairs, key=lambda r: r["value"]), max(pairs, key=lambda r: r["value"])
        sentences.append(f"Pairs of annotators agree on {_fv(low)} ({low['group']}, {_plural(low.get('n'), 'item')})"
                         + (f" to {_fv(high)} ({high['group']}, {_plural(high.get('n'), 'item')})"
                            if high is not low else "") + " of the items both labelled; no judge's labels "
                         "to compare yet.")
    a = alpha.get("value") if alpha else None
    tone = "neutral" if a is None else "good" if a >= 0.8 else "bad" if a < 0.667 else "borderline"
    return Answer(tuple(sentences), f"alpha {format_value(a, 'score')}" if a is not None else "people", tone)


def _answer_judge(result, currency):
    """"Judge agrees with people on 85% of 105 items; kappa 0.68 (0.53 to 0.82); AC1 0.71; 16
    disagreements, 12 of them judge-pass/human-fail. Judge says 40% pass; corrected 17% (6% to
    27%)." -- or, without human labels, the bias readings."""
    if _signature_fields(result).get("judge") == "none":  # people's labels alone
        return _answer_people(result)
    if _signature_fields(result).get("people") == "none":  # a judge alone: its own score, no agreement
        own = _judge_score_sentence(result, _signature_fields(result))
        none = "The file holds no people's labels to measure the judge against; give them with --human."
        return Answer(tuple(x for x in (own, none) if x), "no people's labels", "neutral")
    agree = _first(result, "agreement")
    if agree is None:
        flip = _first(result, "position_flip_share")
        longer = _first(result, "longer_win_share")
        parts = []
        if flip is not None:
            first = _first(result, "first_position_win_share")
            p = _first(result, "position_p")
            parts.append(f"Swapping the answers changed the judge's winner on {_fv(flip)} of "
                         f"{_plural(flip.get('n'), 'pair')}" + (
                             f"; the answer shown first won {_fv(first)} of its verdicts "
                             f"({format_p(p.get('value'))}, exact binomial)" if first and p else ""))
        if longer is not None:
            p = _first(result, "length_p")
            parts.append(f"the longer answer won {_fv(longer)} of {_plural(longer.get('n'), 'verdict')}"
                         + (f" ({format_p(p.get('value'))})" if p else ""))
        if not parts:
            return None
        text = "; ".join(parts)
        return Answer((text[0].upper() + text[1:] + ".",), "judge bias", "neutral")
    kappa = _first(result, "kappa")
    ac1 = _first(result, "ac1")
    dis = _first(result, "disagreements")
    sig = _signature_fields(result)
    other = str(sig.get("people", ""))
    whom = f"the judge '{other[len('judge:'):]}'" if other.startswith("judge:") else "people"
    # a log's judge labels each record (an item's every try and system): the unit is the record
    unit = "record" if str(sig.get("judged", "")).startswith("record") else "item"
    s1 = f"Judge agrees with {whom} on {_fv(agree)} of {_plural(agree.get('n'), unit)}"
    if kappa is not None and kappa.get("value") is not None:
        s1 += f"; kappa {format_value(kappa['value'], 'score')}{_kappa_interval(result, kappa)}"
    else:
        s1 += "; kappa undefined (every item got the same label)"
    if ac1 is not None and ac1.get("value") is not None:
        s1 += f"; AC1 {format_value(ac1['value'], 'score')}"
    alpha = _first(result, "alpha", group="judge and people") or _first(result, "alpha")
    if alpha is not None and alpha.get("value") is not None:
        s1 += f"; Krippendorff's alpha {format_value(alpha['value'], 'score')}"
    if dis is not None:
        s1 += f"; {_plural(dis.get('value'), 'disagreement')}"
        jp = _first(result, "judge_pass_human_fail")
        if jp is not None and dis.get("value"):
            s1 += f", {jp.get('value')} of them judge-pass/human-fail"
    sentences = [s1 + "."]
    own = _judge_score_sentence(result, sig)
    if own:
        sentences.insert(0, own)
    rate = _first(result, "judge_pass_rate")
    corr = _first(result, "corrected_pass_rate")
    if rate is not None:
        s2 = f"Judge says {_fv(rate)} pass"
        if corr is not None and corr.get("value") is not None:
            s2 += f"; corrected for its errors {_fv(corr)}{_ci(corr)}"
        elif corr is not None:
            s2 += "; it cannot be corrected (the judge is no better than chance on the labelled items)"
        need = _first(result, "human_labels_needed")
        if need is not None and corr is not None and corr.get("value") is not None:
            fail, ok = _first(result, "human_labels_needed_fail"), _first(result, "human_labels_needed_pass")
            if need.get("value") is None:
                s2 += ("; no number of further human labels brings that to ±5 pts (the judge's pass rate "
                       "on these items alone spreads it wider)")
            elif need["value"] and fail is not None and ok is not None:
                s2 += (f"; about {_fv(need)} more human labels, {_fv(fail)} on items people fail and "
                       f"{_fv(ok)} on items they pass (Lee et al.'s allocation), bring it to ±5 pts")
        sentences.append(s2 + ".")
    k = kappa.get("value") if kappa else None
    tone = "neutral" if k is None else "good" if k >= 0.6 else "bad" if k < 0.4 else "borderline"
    if tone == "good" and "no interval" in _kappa_interval(result, kappa):
        tone = "borderline"  # kappa 1 on 5 items: too few to trust the judge
    badge = f"kappa {format_value(k, 'score')}" if k is not None else "kappa undefined"
    return Answer(tuple(sentences), badge, tone)


def _kappa_interval(result, kappa) -> str:
    """Kappa's interval, or why there is none: a zero-width one (a standard error of 0) is
    never shown as if certain -- the judge gave one label to every item (kappa is 0 by its
    formula), or agrees on every one of few items."""
    text = _ci(kappa)
    if "no interval" not in text:
        return text
    try:
        frame = result.table("confusion").frame
        rows = frame.drop(columns="judge").to_numpy()
    except (KeyError, ValueError):
        return text
    if (rows.sum(axis=1) > 0).sum() == 1:
        return " (no interval: the judge gave every item one label, so kappa is 0 by its formula)"
    if (rows.sum(axis=0) > 0).sum() == 1:
        return " (no interval: the people gave every item one label, so kappa is 0 by its formula)"
    if rows.trace() == rows.sum():
        return (f" (no interval: agreement on all {_plural(int(rows.sum()), 'item')} gives a standard error "
                f"of 0, a certainty so few items do not give)")
    return text
