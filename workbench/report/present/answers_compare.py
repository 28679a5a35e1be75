"""The answer cards of the Compare analysis (0/1 outcomes and scores)."""

from __future__ import annotations

from ...core.numbers import ALPHA, format_p, format_value, kind_of
from ...core.numbers import plural as _plural
from ._common import Answer, _ci, _first, _fv, _q, _signature_fields, interval_text, t_sentence
from ._names import display_name


def _answer_compare_scores(result, currency):
    """Continuous scores: the mean difference with its interval, the recommended test (the
    randomization test; the t-test when it is missing) and how many units moved each way."""
    diff = _first(result, "mean_diff")
    if diff is None:
        return None
    fields = _signature_fields(result)
    unit = "query" if fields.get("units", "").startswith("quer") else "item"
    metric = fields.get("metric")
    what = f"mean {display_name(metric)}" if metric else "the mean score"
    cand, base = diff.get("to", "candidate"), diff.get("from", "baseline")
    lo, hi = diff.get("ci_low"), diff.get("ci_high")
    boot = _first(result, "bootstrap_bca_ci") or _first(result, "bootstrap_pct_ci")
    test = _first(result, "randomization_p") or _first(result, "t_test_p")
    p = test.get("value") if test is not None else None
    excludes_zero = lo is not None and hi is not None and (lo > 0 or hi < 0)
    if excludes_zero and p is not None and p < ALPHA:
        verdict, tone = ("better" if diff["value"] > 0 else "worse"), ("good" if diff["value"] > 0 else "bad")
    elif not excludes_zero and (p is None or p >= ALPHA):
        verdict, tone = "no clear difference", "neutral"
    else:
        verdict, tone = "borderline", "borderline"
    ci = _ci(diff, kind_of(diff["metric"]), currency=currency)
    s1 = (f"Candidate {_q(cand)} {_fv(diff, currency=currency)}{ci} over baseline {_q(base)} in "
          f"{what} on {_plural(diff.get('n'), unit)}: {verdict}.")
    parts = []
    if test is not None and p is not None:
        name = "Randomization test" if test["metric"] == "randomization_p" else "Paired t-test"
        parts.append(f"{name} {format_p(p)}")
    t_text = t_sentence(result, from_=base, to=cand)
    if t_text:
        parts.append(f"paired t-test {t_text}")
    if boot is not None and boot.get("ci_low") is not None:
        parts.append(interval_text(boot))
    moved = [(_first(result, m), word) for m, word in (("improved", "improved"), ("worse", "got worse"),
                                                         ("tied", "tied"))]
    if all(r is not None for r, _ in moved):
        parts.append(", ".join(f"{format_value(r['value'], 'count')} {word}" for r, word in moved))
    s2 = "; ".join(parts)
    badge = {"good": "better", "bad": "worse", "neutral": "no clear difference",
             "borderline": "borderline"}[tone]
    return Answer((s1, s2[:1].upper() + s2[1:] + ".") if s2 else (s1,), badge, tone)



def _answer_compare(result, currency):
    if _first(result, "mean_diff") is not None:
        return _answer_compare_scores(result, currency)
    diff = _first(result, "normal_ci") or _first(result, "diff")
    if diff is None:
        return None
    score = _first(result, "score_ci")
    if score is not None and diff.get("ci_low") == diff.get("ci_high") and score.get("ci_low") is not None:
        diff = score  # no item differs: the normal interval collapses, Tango's score interval does not
    cand, base = diff.get("to", "candidate"), diff.get("from", "baseline")
    lo, hi = diff.get("ci_low"), diff.get("ci_high")
    tests = [(m, _first(result, m)) for m in ("sign_test_p", "mcnemar_p", "mcnemar_cc_p")]
    ps = [r["value"] for _, r in tests if r is not None and r.get("value") is not None]
    sig = [p < ALPHA for p in ps]
    excludes_zero = lo is not None and hi is not None and (lo > 0 or hi < 0)
    if excludes_zero and sig and all(sig):
        verdict, tone = ("better" if diff["value"] > 0 else "worse"), ("good" if diff["value"] > 0 else "bad")
    elif not excludes_zero and not any(sig):
        verdict, tone = "no clear difference", "neutral"
    else:
        verdict, tone = "borderline", "borderline"
    # two intervals of the same difference exist (normal here, bootstrap in the table, the release
    # rule and the report): the card names its method
    ci = _ci(diff, "points")
    # each system's own rate beside the difference (a tool's own number: lm-eval's acc of each run)
    rb, rc = _first(result, "rate", system=base), _first(result, "rate", system=cand)
    rates = (f" ({format_value(rc['value'], 'rate')} against {format_value(rb['value'], 'rate')})"
             if rb is not None and rc is not None and rb.get("value") is not None
             and rc.get("value") is not None else "")
    s1 = (f"Candidate {_q(cand)} {format_value(diff['value'], 'points')}{ci} over baseline "
          f"{_q(base)}{rates} on {_plural(diff.get('n'), 'item')}: {verdict}.")
    sign = _first(result, "sign_test_p")
    flipped = sign.get("n") if sign is not None else None
    wins, losses = _first(result, "wins"), _first(result, "losses")
    flips = ""
    if flipped is not None:
        flips = f"{_plural(flipped, 'item')} flipped"
        if wins is not None and losses is not None:
            flips += f" ({format_value(wins['value'], 'count')} to the candidate, " \
                     f"{format_value(losses['value'], 'count')} to the baseline)"
    names = {"sign_test_p": "exact sign test", "mcnemar_p": "McNemar", "mcnemar_cc_p": "McNemar corrected"}
    if sig and any(sig) and not all(sig):
        detail = ", ".join(f"{names[m]} {format_p(r['value'])}" for m, r in tests
                           if r is not None and r.get("value") is not None)
        s2 = f"The tests disagree ({detail}); {flips}." if flips else f"The tests disagree ({detail})."
    elif sign is not None and sign.get("value") is not None:
        s2 = f"Exact sign test {format_p(sign['value'])}" + (f"; {flips}." if flips else ".")
    else:
        s2 = (flips[:1].upper() + flips[1:] + ".") if flips else ""
    badge = {"good": "better", "bad": "worse", "neutral": "no clear difference",
             "borderline": "borderline"}[tone]
    return Answer((s1, s2) if s2 else (s1,), badge, tone)
