"""The answer cards of the Text and Ranking analyses."""

from __future__ import annotations

from ...core.numbers import plural as _plural
from ._common import Answer, _ci, _first, _fv, _pair_sentences, _q, _systems, _top_k
from ._names import display_name


def _answer_text(result, currency):
    systems = _systems(result, "exact_match")
    groups = list(dict.fromkeys(r.get("group") for r in result.find("exact_match")))
    parts = []
    n = None
    for system, group in ((s, g) for s in systems for g in groups):
        keys = {"system": system, **({"group": group} if group is not None else {})}
        em = _first(result, "exact_match", **keys)
        if em is None:
            continue
        n = em.get("n")
        extra = []
        chrf_name = "chrF++" if "nw:2" in str(getattr(result, "signature", "")) else "chrF"
        for metric in ("token_f1", "bleu", "chrf", "rougeL"):
            rec = _first(result, metric, **keys)
            if rec is not None:
                name = chrf_name if metric == "chrf" else display_name(metric).replace(' (0-100)', '')
                extra.append(f"{name} {_fv(rec)}")
        on = f" on {group}" if group is not None else ""
        who = (f"{_q(system)}{on}: exact match" if system is not None
               else (f"{group}: exact match" if group is not None else "Exact match"))
        inside = "; ".join(x for x in (_ci(em)[2:-1], ", ".join(extra)) if x)
        parts.append(f"{who} {_fv(em)} of {_plural(em.get('n'), 'item')}"
                     + (f" ({inside})" if inside else ""))
    if not parts:
        return None
    if len(parts) == 1:
        sentences = (parts[0] + ".",)
        first = result.find("exact_match")[0]
        badge = f"EM {_fv(first)}"
    else:
        sentences = ("; ".join(parts) + ".",)
        best = max((r for r in result.find("exact_match") if r.get("value") is not None),
                   key=lambda r: r["value"], default=None)
        badge = f"best EM: {best.get('system')}" if best else "text"
    tone = "neutral"
    pair, pair_badge, pair_tone = _pair_sentences(result, "exact_match", "item")
    if pair:  # two systems: whether one beats the other on exact match, with its interval
        sentences += (" ".join(pair),)
        badge, tone = pair_badge, pair_tone
    elif any(result.find("bleu")):
        sentences += ("BLEU and chrF are on their 0-100 scale; the others are 0-1 scores or shares of "
                      f"the {_plural(n, 'item')}.",)
    return Answer(sentences[:2], badge, tone)



def _answer_ranking(result, currency):
    k = _top_k(result, "ndcg@")
    systems = _systems(result, f"ndcg@{k}" if k else "mrr")
    parts = []
    n = None
    for system in systems:
        bits = []
        interval = ""
        nd = _first(result, f"ndcg@{k}", system=system) if k else None
        if nd is not None:
            n = nd.get("n")
            bits.append(f"nDCG@{k} = {_fv(nd)}")
            interval = _ci(nd)[2:-1]
        for metric in ("mrr", "map"):
            rec = _first(result, metric, system=system)
            if rec is not None:
                n = n if n is not None else rec.get("n")
                bits.append(f"{display_name(metric)} {_fv(rec)}")
        if k:
            hit = _first(result, f"hit@{k}", system=system)
            if hit is not None:
                bits.append(f"{display_name(f'hit@{k}')} {_fv(hit)}")
        if bits:
            head = f"{_q(system)}: " if system is not None else ""
            rest = ", ".join(bits[1:])
            inside = "; ".join(b for b in (interval, rest) if b)
            parts.append(head + bits[0] + (f" ({inside})" if inside else ""))
    if not parts:
        return None
    text = "; ".join(parts) + f" over {_plural(n, 'query', 'queries')}."
    badge = f"nDCG@{k} {_fv(_first(result, f'ndcg@{k}'))}" if k and len(systems) == 1 else "ranking"
    sentences = (text,)
    tone = "neutral"
    pair, pair_badge, pair_tone = _pair_sentences(result, f"ndcg@{k}" if k else "mrr", "query", "queries")
    if pair:  # two systems: whether one beats the other, with the difference and its interval
        sentences += (" ".join(pair),)
        badge, tone = pair_badge, pair_tone
    if n is not None and int(n) < 30:
        sentences += (f"With {_plural(n, 'query', 'queries')} these are anecdotes, not estimates.",)
    return Answer(sentences, badge, tone)
