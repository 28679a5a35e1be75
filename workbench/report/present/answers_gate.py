"""The answer card of a release rule's gate."""

from __future__ import annotations

from ...core.numbers import plural as _plural
from ._common import Answer, _STATUS_WORDS, _card_clause, gate_status, registration_sentence


def _answer_gate(result, currency, registered=None):
    st = gate_status(result)
    verdict = st["verdict"] or "NO VERDICT"
    try:
        card = result.table("card").frame.to_dict("records")
    except KeyError:
        card = []
    total = len(card)
    npass = sum(1 for r in card if str(r.get("status")) == "PASS")
    if verdict == "PASS":
        head = "PASS: all " + _plural(total, "condition") + " met" if total != 1 else "PASS"
        rows = card[:1]
        tone = "good"
    else:
        head = f"{verdict}: {npass} of {_plural(total, 'condition')} met"
        rows = [r for r in card if str(r.get("status")) == verdict][:2]
        tone = "bad" if verdict == "FAIL" else "borderline"
    clauses = "; ".join(f"{_card_clause(r)} {_STATUS_WORDS.get(str(r.get('status')), str(r.get('status')))}"
                        + (f" ({r['requirement']})" if r.get("requirement") else "") for r in rows)
    s1 = f"{head}: {clauses}." if clauses else f"{head}."
    s2 = registration_sentence(st["changed"], registered if registered is not None else st["registered"],
                               st["unregistered"])
    caveat = (st["changed"] or st["unregistered"]) and tone == "good"
    return Answer((s1, s2), verdict, "borderline" if caveat else tone)
