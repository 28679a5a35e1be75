"""The pieces every answer card is made of: the Answer type, record lookups, interval and
paired-test clauses, and the gate's words."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any
from ...core.numbers import ALPHA, MISSING, _is_missing, format_interval, format_p, format_value, gate_kind, interval_method, kind_of, localize
from ...core.numbers import plural as _plural
from ._methods import METHOD_LABELS, interval_words, method_label, method_labels  # noqa: F401
from ._names import display_name
from ._slice_kinds import record_kind_slices


@dataclass(frozen=True)
class Answer:
    """What a panel leads with: one or two sentences, a short badge, and a tone
    (``good``, ``bad``, ``borderline`` or ``neutral``)."""

    sentences: tuple[str, ...]
    badge: str
    tone: str

    @property
    def text(self) -> str:
        return " ".join(self.sentences)



def _first(result, metric: str, **match) -> dict | None:
    found = result.find(metric, **match)
    return found[0] if found else None



def _fv(rec: dict | None, *, currency: str | None = None, kind: str | None = None) -> str:
    if rec is None:
        return MISSING
    return format_value(rec.get("value"), kind or rec.get("kind") or kind_of(rec["metric"]), currency=currency)



def _ci(rec: dict, kind: str | None = None, *, currency: str | None = None, flip: bool = False,
        method: str | None = None) -> str:
    """`` (Wilson 95% CI 65.9% to 78.2%)``: a record's interval as a card shows it (see
    :func:`interval_text`), in brackets; empty when the record has none."""
    text = interval_text(rec, kind, currency=currency, flip=flip, method=method)
    return f" ({text})" if text else ""


def interval_text(rec: dict, kind: str | None = None, *, currency: str | None = None, flip: bool = False,
                  method: str | None = None) -> str:
    """A record's interval as every card shows it: ``Wilson 95% CI 65.9% to 78.2%``, named by the
    method that computed it (the record's ``ci_method``, or ``method``); ``flip``: the interval of
    the negated value (a sentence that turns "B beats A" around turns its interval too).  An
    interval that the shown digits make zero-width is not shown as if certain: a clause says
    why there is none.  Empty when the record has no interval."""
    kind = kind or rec.get("kind") or kind_of(rec["metric"])
    lo, hi = rec.get("ci_low"), rec.get("ci_high")
    label = method if method is not None else method_label(rec.get("ci_method"))
    if _is_missing(lo) or _is_missing(hi):
        return ""  # none shown (a degenerate bootstrap's note says why)
    if rec.get("degenerate"):
        return no_interval_reason(rec, label)
    lo, hi = float(lo), float(hi)
    if flip:
        lo, hi = -hi, -lo
    if zero_width(lo, hi, kind, currency=currency):
        return no_interval_reason(rec, label)
    return f"{label + ' ' if label else ''}95% CI {format_interval(lo, hi, kind, currency=currency)}"


#: why a card shows no interval where a record's bounds are equal
NO_INTERVAL = {
    "degenerate": "no interval: every bootstrap resample gives the same value",
    "se": "no interval: its standard error computes to 0, a certainty the data do not give",
    "other": "no interval: its bounds are equal, a certainty the data do not give",
}


def zero_width(low: Any, high: Any, kind: str, *, currency: str | None = None) -> bool:
    """True when an interval's two bounds read the same under the kind's policy (or are equal)."""
    if _is_missing(low) or _is_missing(high):
        return False
    return float(low) == float(high) or \
        format_value(low, kind, currency=currency) == format_value(high, kind, currency=currency)


def bounds_shown(rec: dict, kind: str | None = None, *, currency: str | None = None) -> bool:
    """Whether a record's interval is shown anywhere (a card, a table, the report): it has both
    bounds, it is not degenerate and its bounds do not read the same."""
    lo, hi = rec.get("ci_low"), rec.get("ci_high")
    if _is_missing(lo) or _is_missing(hi) or rec.get("degenerate"):
        return False
    return not zero_width(lo, hi, kind or rec.get("kind") or kind_of(rec["metric"]), currency=currency)


#: pairs of columns of a result table that hold an interval's two bounds
BOUND_PAIRS = (("ci_low", "ci_high"), ("t_ci_low", "t_ci_high"), ("bca_low", "bca_high"),
               ("micro_ci_low", "micro_ci_high"), ("one_run_ci_low", "one_run_ci_high"))


def shown_frame(frame, kinds: dict):
    """A result table as every renderer shows it: an interval whose two bounds read the same
    (a constant's, a degenerate bootstrap's) is left empty rather than shown as if certain."""
    import numpy as np

    pairs = [(a, b) for a, b in BOUND_PAIRS if a in frame.columns and b in frame.columns]
    pairs += [(c, c[:-4] + "_high") for c in frame.columns if str(c).endswith("_low") and
              str(c)[:-4] + "_high" in frame.columns and (c, str(c)[:-4] + "_high") not in pairs]
    out = None
    for a, b in pairs:
        lo = np.asarray(frame[a], dtype=object)
        hi = np.asarray(frame[b], dtype=object)
        kind_a = kinds.get(a)
        flat = []
        for i, (x, y) in enumerate(zip(lo, hi)):
            kind = kind_a[i] if isinstance(kind_a, list) else kind_a
            if kind in (None, "text", "plain") or not isinstance(x, (int, float)) or not isinstance(y, (int, float)):
                continue
            if zero_width(x, y, kind):
                flat.append(i)
        if flat:
            out = frame.copy() if out is None else out
            for col in (a, b):
                values = out[col].astype(float).to_numpy(copy=True)
                values[flat] = np.nan
                out[col] = values
    return frame if out is None else out


def no_interval_reason(rec: dict, label: str = "") -> str:
    """The clause a card shows instead of a zero-width interval."""
    low = str(label).lower()
    if "bootstrap" in low:
        return NO_INTERVAL["degenerate"]
    if low in ("asymptotic", "normal", "t", "paired t", "gwet", "delta-method"):
        return NO_INTERVAL["se"]
    if rec.get("degenerate") and not low:
        return NO_INTERVAL["degenerate"]
    return NO_INTERVAL["other"]



def _systems(result, metric: str, key: str = "system") -> list:
    return list(dict.fromkeys(r.get(key) for r in result.records if r["metric"] == metric))



def _q(name: Any) -> str:
    return f"'{name}'"



def _pair_sentences(result, metric: str, unit: str, many: str | None = None) -> tuple[list[str], str, str]:
    """Whether one system beats another on ``metric``, from the "Systems compared" records
    (``diff:METRIC`` with its paired bootstrap interval, ``p_adjusted:METRIC`` or the
    randomization test): sentences, badge and tone.  Empty when there is no pair."""
    diffs = [r for r in result.find(f"diff:{metric}") if r.get("value") is not None]
    if not diffs:
        return [], "", "neutral"
    kind = kind_of(f"diff:{metric}")
    name = display_name(metric)
    if name[:1].isupper() and name[1:2].islower():
        name = name[:1].lower() + name[1:]  # "exact match" within a sentence; nDCG@10 as it is
    out, tones, badges = [], [], []
    for d in diffs[:3]:
        base, cand = d.get("from"), d.get("to")
        p_rec = next((r for m in ("p_adjusted", "randomization_p", "t_test_p")
                      for r in result.find(f"{m}:{metric}")
                      if r.get("from") == base and r.get("to") == cand and r.get("value") is not None), None)
        lo, hi = d.get("ci_low"), d.get("ci_high")
        method = method_label(d.get("ci_method")) or "paired bootstrap"
        ci = _ci(d, kind, method=method)
        p = p_rec.get("value") if p_rec is not None else None
        excludes = not _is_missing(lo) and not _is_missing(hi) and (lo > 0 or hi < 0)
        significant = p is not None and p < ALPHA
        value = format_value(d["value"], kind)
        if excludes and significant:
            better = d["value"] > 0
            winner, loser = (cand, base) if better else (base, cand)
            shown = value if better else format_value(-d["value"], kind)
            # the sentence names the winner first: the difference and its interval turn together
            text = f"{_q(winner)} beats {_q(loser)} on {name} by {shown}{_ci(d, kind, flip=not better, method=method)}"
            tones.append("good")
            badges.append(f"{winner} better")
        elif not excludes and not significant:
            text = f"No clear difference between {_q(cand)} and {_q(base)} on {name}: {value}{ci}"
            tones.append("neutral")
            badges.append("no clear difference")
        else:
            text = f"{_q(cand)} vs {_q(base)} on {name}: {value}{ci}, borderline"
            tones.append("borderline")
            badges.append("borderline")
        text += f" over {_plural(d.get('n'), unit, many)}"
        if p_rec is not None:
            test = p_rec["metric"].split(":", 1)[0]
            if test == "p_adjusted":
                adjust = re.search(r"adjust:(\w+)", str(getattr(result, "signature", "")))
                how = adjust.group(1).capitalize() if adjust else ""
                how = "Holm" if how == "Holm" else how
                text += f", {format_p(p)} ({how + '-' if how and how != 'None' else ''}adjusted)"
            else:
                text += f", {_TEST_WORDS.get(test, test)} {format_p(p)}"
        out.append(text + ".")
    tone = tones[0] if len(set(tones)) == 1 else "borderline"
    badge = badges[0] if len(badges) == 1 else "systems compared"
    return out, badge, tone



_TEST_WORDS = {"randomization_p": "randomization test", "t_test_p": "paired t-test"}



def t_sentence(result, suffix: str = "", **match) -> str:
    """The paired t-test as a statistics package reports it: ``t(199) = 2.45, p = 0.015, d_z =
    0.17`` from the records ``t``, ``t_test_p`` and ``effect_size`` (each + ``suffix``, e.g.
    ``:rubric_score``) of one pair; empty without a t record or its degrees of freedom."""
    def one(metric):
        return next((r for r in result.find(metric + suffix, **match) if r.get("value") is not None), None)

    t, p, d = one("t"), one("t_test_p"), one("effect_size")
    if t is None or t.get("df") is None:
        return ""
    text = f"t({format_value(t['df'], 'count')}) = {_fixed_stat(t['value'])}"
    if p is not None:
        text += f", {format_p(p['value'])}"
    if d is not None:
        text += f", d_z = {_fixed_stat(d['value'])}"
    return text



def _fixed_stat(x: float) -> str:
    return localize(f"{x:.2f}") if math.isfinite(x) else "undefined"



def _top_k(result, prefix: str) -> int | None:
    ks = sorted({int(r["k"]) for r in result.records
                 if r["metric"].startswith(prefix) and r.get("k") is not None})
    return ks[-1] if ks else None



def _supported_ks(result, prefix: str) -> list[int]:
    """The k of ``prefix`` records that some task supports (n >= k): a value over n > 0 tasks."""
    return sorted({int(r["k"]) for r in result.records
                   if r["metric"].startswith(prefix) and r.get("k") is not None
                   and r.get("value") is not None and r.get("n") and _finite(r.get("value"))})



def _finite(value) -> bool:
    try:
        return math.isfinite(float(value))
    except (TypeError, ValueError):
        return False



def _signature_fields(result) -> dict[str, str]:
    """The result's top-level signature fields (a nested ``source:[...]`` is left out)."""
    sig = str(getattr(result, "signature", "") or "").split("|source:[", 1)[0]
    return dict(part.split(":", 1) for part in sig.split("|") if ":" in part)



def gate_status(result) -> dict:
    """The gate result's verdict, rule name, registration and condition statuses (from its
    records and tables): keys ``verdict``, ``changed`` (the ``rule_changed_after_results``
    record), ``registered`` (the rule table's ``registered`` field: when, in words),
    ``unregistered`` (its ``registration`` field is ``"unregistered"``: a renderer that knows the
    rule was never registered adds that row), ``name``, ``sha256``, ``statuses``."""
    verdict = _first(result, "verdict")
    changed = _first(result, "rule_changed_after_results")
    rule = {}
    try:
        rule = {str(r["field"]): r["value"] for r in result.table("rule").frame.to_dict("records")}
    except KeyError:
        pass
    statuses = []
    try:
        statuses = [str(s) for s in result.table("card").frame["status"]]
    except KeyError:
        pass
    return {"verdict": verdict["value"] if verdict else None,
            "changed": bool(changed and changed.get("value")),
            "registered": rule.get("registered") or None,
            "unregistered": str(rule.get("registration", "")) == "unregistered",
            "name": rule.get("name"), "sha256": rule.get("sha256"), "statuses": statuses}



def registration_sentence(changed: bool, registered: Any = None, unregistered: bool = False) -> str:
    """Whether the rule was registered before the results were seen, in words."""
    if changed:
        return "The rule was changed after the results were seen, so this verdict is not a pre-registered one."
    if unregistered:
        return "The rule was not registered before the results were seen, so this verdict is not a pre-registered one."
    if registered:
        return f"The rule was registered before the results were seen ({registered})."
    return "The rule was not changed after the results were seen (no registration time recorded)."



def interval_label(basis: Any, level: str = "95%") -> str:
    """``bootstrap 95% CI``, ``normal 95% CI`` or ``95% CI``."""
    method = interval_method(basis)
    return f"{method} {level} CI" if method else f"{level} CI"



def _card_clause(row: dict) -> str:
    """``success +4.5 pts (bootstrap 95% CI +0.5 to +9.0) on 200 items``, from a gate card row."""
    kind = gate_kind(str(row.get("unit")), str(row.get("metric")))
    text = f"{display_name(str(row.get('metric')))} {format_value(row.get('observed'), kind)}"
    if not _is_missing(row.get("ci_low")) and not _is_missing(row.get("ci_high")):
        level = re.search(r"(\d+(?:\.\d+)?%) (?:normal|bootstrap|Wilson|percentile) interval",
                          str(row.get("basis") or ""))
        label = interval_label(row.get("basis"), level.group(1) if level else "95%")
        text += f" ({label} {format_interval(row['ci_low'], row['ci_high'], kind)})"
    if not _is_missing(row.get("n")):
        metric = str(row.get("metric"))
        word = ("query", "queries") if kind_of(metric) == "score" else \
            ("request", "requests") if metric.startswith("latency") else ("item", "items")
        text += f" on {_plural(row['n'], *word)}"
    return text



def is_measure(result) -> bool:
    """An Aggregation of a measure in its own unit (its signature's ``outcome:measure``): its
    numbers are means in that unit, never rates."""
    return "outcome:measure" in str(getattr(result, "signature", ""))


def record_kind(result, rec: dict) -> str:
    """The kind of a record of ``result``: :func:`kind_of` its metric, except a gate's
    condition records, whose kind is their card row's unit (points, relative change...)."""
    if result.analysis == "slices":  # a difference in points (0/1) or in score units (scores)
        return record_kind_slices(result, rec)
    if result.analysis == "gate" and rec["metric"] not in ("verdict", "rule_changed_after_results"):
        try:
            card = result.table("card").frame
            rows = card[card["metric"].astype(str) == rec["metric"]]
            if len(rows):
                return gate_kind(str(rows["unit"].iloc[0]), rec["metric"])
        except KeyError:
            pass
    if result.analysis == "repeats" and rec["metric"].startswith("half_width"):
        # a half-width in the card's unit: points of a success rate, or the 0-1 score's own
        return "margin" if "value:binary" in str(getattr(result, "signature", "")) else "score"
    return rec.get("kind") or kind_of(rec["metric"])



_STATUS_WORDS = {"PASS": "meets the rule", "FAIL": "fails", "INCONCLUSIVE": "cannot tell yet"}
