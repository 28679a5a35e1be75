"""The number-format policy: how every number the workbench writes is shown, as text.

It lives in ``core`` so that every layer can use it: the analyses' notes, the release rules' card
and sentences, and the renderers (:mod:`workbench.report.present` re-exports these names and adds
the Excel formats, the display names and the answers).  Standard library only.

The number-format policy (one format per *kind* of number)
===========================================================

=============  =============================================  =======================  ==============
kind           what                                           text                     Excel format
=============  =============================================  =======================  ==============
``rate``       a proportion of items (exact match, success,   ``72.5%``                ``0.0%``
               micro/macro, a Wilson bound)
``points``     a difference of two rates                      ``+4.5 pts``             ``+0.0" pts"``
                                                                                       (cell holds
                                                                                       points)
``margin``     a size of a difference of rates (a half-width, ``7.8 pts``               ``0.0" pts"``
               a minimum detectable difference): unsigned
``p``          a p-value: 3 significant digits                ``0.0636``, ``< 0.001``  per value
``count``      a whole number (items, wins, queries)          ``1,049``                ``#,##0``
``score``      a 0-1 score that is not a share of items       ``0.683``                ``0.000``
               (nDCG, MAP, MRR, P@k, R@k, hit@k, token F1,
               ROUGE, pass@k, pass^k): three decimals
``score_diff`` a difference of two scores                     ``+0.013``               ``+0.000``
``relative``   a relative change                              ``+8.0%``                ``+0.0%``
``bleu``       BLEU and chrF on their 0-100 scale             ``31.3``                 ``0.0``
               (the display name says "(0-100)")
``cost``       money in the file's units; a currency symbol   ``0.0146``, ``$0.475``,  per value
               only when one was chosen.  Below 1: three      ``1,234.50``
               significant digits; from 1 up: two decimals
``latency``    latency in the file's unit (s or ms): at most  ``2.452``, ``245.2``     per value
               four significant digits (3 decimals below 10,
               none from 1,000 up)
``statistic``  a test statistic (chi-square, t): two decimals ``4.26``                 ``#,##0.00``
``plain``      anything else (booleans as yes/no, text)       ``yes``                  General
=============  =============================================  =======================  ==============

Rates, points, scores and the other decimal kinds never show a nonzero value as zero: a value
that would round to zero is shown with two significant digits (``0.0021%``, ``0.000021``), and
one below the smallest shown step as ``< 0.0001%`` / ``< 0.000001``.  Missing values are ``-``.

**Rounding.**  Text is rounded the way Excel rounds a cell for display (first to 15
significant digits, then half away from zero), so a sentence and the cell that shows the same
stored value always agree (2.4517499999999997 is 2.4518 in both, at four decimals).

**Excel.**  :func:`workbench.report.present.excel_format` gives the format of a kind; with ``value=`` it gives the format
that displays that very value as :func:`format_value` does (p-values below 0.001 get the format
``"< 0.001"``, a text-only format, so the cell keeps its number for auditing but shows the text;
tiny rates get more decimals).  Excel cannot scale a number by 100 without showing ``%``, so a
``points`` cell holds the value in points (:func:`workbench.report.present.excel_value` converts), with the format
``+0.0" pts"`` (``0.0" pts"`` for a margin).
"""

from __future__ import annotations

import math
import re
import threading
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

KINDS = ("rate", "points", "margin", "p", "count", "score", "score_diff", "relative", "bleu", "cost", "cost_diff",
         "latency_diff",
         "latency", "statistic", "plain")
MISSING = "-"
ALPHA = 0.05

# --- kinds ---------------------------------------------------------------------------------------

_EXACT_KINDS: dict[str, str] = {
    # text
    "exact_match": "rate", "token_f1": "score", "bleu": "bleu", "chrf": "bleu",
    "rouge1": "score", "rouge2": "score", "rougeL": "score", "exact_matches": "count",
    # ranking
    "mrr": "score", "map": "score", "rr": "score", "ap": "score",
    "queries": "count", "no_relevant": "count", "tied_queries": "count", "retrieved": "count",
    "relevant": "count", "counted": "count",
    # passk
    "per_try_p": "score", "tasks": "count", "left_out": "count", "c": "count", "k": "count",
    # aggregate
    "micro": "rate", "macro": "rate", "rate": "rate", "pooled_ratio": "rate",
    "mean_of_ratios": "rate", "ratio": "rate", "simpson": "plain", "share_of_items": "rate",
    "gap_micro_minus_macro": "points", "groups": "count", "successes": "count",
    "units": "count", "numerator": "count", "denominator": "count",
    # compare
    "wins": "count", "losses": "count", "ties": "count", "diff": "points", "normal_ci": "points", "score_ci": "points",
    "bootstrap_ci": "points", "mde": "margin", "sign_test_p": "p", "sign_test_midp": "p",
    "mcnemar_p": "p", "mcnemar_cc_p": "p", "mcnemar_chi2": "statistic",
    "mcnemar_cc_chi2": "statistic", "discordance": "rate", "baseline_rate": "rate",
    "candidate_rate": "rate", "p_value": "p", "p_holm": "p", "statistic": "statistic",
    "resamples": "count", "bin_low": "points", "bin_high": "points",
    # cost
    "success_rate": "rate", "cost_per_request": "cost", "cost_per_success": "cost",
    "marginal_cost_per_success": "cost", "total_cost": "cost", "extra_cost_per_request": "cost",
    "extra_success_rate": "points", "dominated": "plain", "requests": "count",
    "latency": "latency", "fraction": "rate",
    # plan
    "ci_half_width": "margin", "wilson_ci": "rate", "items_needed": "count",
    "wald_half_width": "margin", "wilson_low": "rate", "wilson_high": "rate",
    "unpaired_difference_needed": "margin",
    # gate and common
    "verdict": "plain", "rule_changed_after_results": "plain", "success": "points", "n": "count", "items": "count",
    "index": "count", "input": "count", "more_items": "count", "line": "count",
    "baseline_items": "count", "candidate_items": "count", "common": "count", "missing": "count",
    "added": "count", "alpha": "plain",
}
_PATTERN_KINDS = (  # (prefix of the id before its @K / ^K, kind)
    ("p@", "score"), ("r@", "score"), ("hit@", "score"), ("ndcg@", "score"), ("mrr@", "score"), ("rr@", "score"),
    ("pass@", "score"), ("pass^", "score"), ("naive_pass@", "score"), ("naive_pass^", "score"),
    ("per_try_p@", "score"),
)
_STAT_RE = re.compile(r"(^|_)(chi2|t|z|f|u|w|statistic)$")
#: the gate card's ``unit`` column -> kind
GATE_UNIT_KINDS = {"rate_diff": "points", "relative": "relative", "score_diff": "score_diff"}


# the paired tests of any score (compare on scores; "Systems compared" of ranking and text)
_EXACT_KINDS.update({
    "mean_score": "score", "improved": "count", "worse": "count", "tied": "count",
    "mean_diff": "score_diff", "bootstrap_pct_ci": "score_diff", "bootstrap_bca_ci": "score_diff",
    "effect_size": "statistic", "mde_score": "score", "p_adjusted": "p", "tukey_hsd_p": "p",
    "beats_baseline": "count",
})
# judge: agreement with people, corrected pass rate, biases
_EXACT_KINDS.update({
    "agreement": "rate", "kappa": "score", "kappa_se": "score", "kappa_linear": "score",
    "kappa_quadratic": "score", "ac1": "score", "pabak": "score", "alpha": "score",
    "disagreements": "count", "sensitivity": "rate", "specificity": "rate",
    "judge_pass_rate": "rate", "corrected_pass_rate": "rate", "human_labels_needed": "count", "judge_pass_human_fail": "count",
    "human_labels_needed_fail": "count", "human_labels_needed_pass": "count", "human_pass_rate": "rate",
    "confusion": "count",
    "judge_fail_human_pass": "count", "position_flip_share": "rate",
    "first_position_win_share": "rate", "position_p": "p", "longer_win_share": "rate",
    "length_p": "p",
    # repeats
    "repeats_mean": "score", "repeats_diff": "score_diff", "repeats_rate": "rate", "repeats_rate_diff": "points", "var_data": "statistic",
    "var_within": "statistic", "within_share": "rate", "se_repeats": "score", "se_one_repeat": "score",
    "clustered_se": "score", "se_population": "score", "items_needed": "count", "repeats_needed": "count", "flipping_items": "count",
    "seed_sd": "score", "seed_min": "score", "seed_max": "score", "one_run_item_se": "score",
    "half_width_twice_items": "score", "half_width_twice_repeats": "score", "half_width_repeats_floor": "score",
    # effort per request and per success (cost and latency): steps, tool calls and tokens are
    # counts (a whole number reads as one, a mean with two decimals), a working time is a time
    **{f"{m}_{s}": "latency" if m == "working_time" else "count"
       for m in ("steps", "tool_calls", "tokens", "input_tokens", "output_tokens", "working_time")
       for s in ("mean", "p50", "p95", "per_success")},
    "steps_to_ideal": "statistic", "cost_per_success_ratio": "statistic",
    # runs side by side
    "run_rate": "rate", "run_mean": "score", "gained": "count", "lost": "count",
    "only_from": "count", "only_to": "count", "regressions": "count",
    # release-rule judge conditions
    "judge_kappa": "score", "judge_ac1": "score", "judge_agreement": "rate",
})
# rubric: the score, and ``PREFIX:CRITERION`` ids whose kind is the prefix's (a criterion's name
# may be anything, even another metric's id)
_EXACT_KINDS["rubric_score"] = "rate"   # a weighted share of criteria met: percent, its changes in points
NAMED_KINDS = {"criterion_rate": "rate", "criterion_diff": "points", "contribution": "points",
               "criterion_rate_change": "points", "tool_calls": "count", "tool_share": "rate",
               "tool_calls_p50": "count", "tool_calls_p95": "count",
               "criterion_p_holm": "p", "criterion_sign_p": "p", "criterion_mcnemar_p": "p",
               "t": "statistic", "effect_size": "statistic"}
#: ``KIND:METRIC`` ids of the paired tests (``diff:ndcg@10``, ``t_test_p:rr``...)
PAIRED_KINDS = ("diff", "t_test_p", "wilcoxon_p", "randomization_p", "p_adjusted", "paired_bs_p",
                "paired_ar_p")
#: the kind of a difference of a metric of each kind
_DIFF_KINDS = {"rate": "points", "score": "score_diff", "cost": "cost_diff", "latency": "latency_diff"}
#: a difference of costs or latencies: the amount's own digits, signed (+0.0190, -0.319)
SIGNED_AMOUNTS = {"cost_diff": "cost", "latency_diff": "latency"}


def split_paired(metric_id: str) -> tuple[str, str] | None:
    """``diff:ndcg@10`` -> (``diff``, ``ndcg@10``); None for other ids."""
    kind, sep, metric = str(metric_id).partition(":")
    if not sep or kind not in PAIRED_KINDS:
        return None
    return kind, metric


def kind_of(metric_id: str) -> str:
    """The kind (one of :data:`KINDS`) of a metric id or a table column of the analyses.

    >>> kind_of("exact_match"), kind_of("ndcg@10"), kind_of("mcnemar_cc_p"), kind_of("diff")
    ('rate', 'score', 'p', 'points')
    """
    mid = str(metric_id)
    if mid in _EXACT_KINDS:
        return _EXACT_KINDS[mid]
    prefix, sep, rest = mid.partition(":")
    if sep and prefix in NAMED_KINDS:
        return NAMED_KINDS[prefix]
    if sep and prefix == "spend":  # a usage summed over every request: money, else a count
        return "cost" if rest in ("cost", "total_cost") else "count"
    if sep and prefix == "limited":
        return "count"
    paired = split_paired(mid)
    if paired is not None:
        if paired[0] != "diff":
            return "p"
        base = kind_of(paired[1]) if paired[1] != "*" else "score"
        return _DIFF_KINDS.get(base, base)
    for prefix, kind in _PATTERN_KINDS:
        if mid.startswith(prefix) and (mid[len(prefix):].isdigit() or mid[len(prefix):] == "k"):
            return kind
    if mid.startswith("latency"):
        return "latency"
    if mid.endswith("_p") or mid.endswith("_pvalue") or mid.endswith("_p_value"):
        return "p"
    if _STAT_RE.search(mid):
        return "statistic"
    if mid.startswith(("cost", "total_cost")) or mid.endswith("_cost"):
        return "cost"
    return "plain"


#: The Table.formats hints the analyses give -> kind (used when a column is not a known id).
HINT_KINDS = {**{k: k for k in KINDS}, "money": "cost", "int": "count", "float": "score",
              "text": "plain"}


def gate_kind(unit: str, metric: str) -> str:
    """The kind of a gate card row's observed value, interval and threshold."""
    if unit in GATE_UNIT_KINDS:
        return GATE_UNIT_KINDS[unit]
    kind = kind_of(metric)
    return kind if kind != "plain" else "score"


# --- the separators a number is shown with (a display choice) ------------------------------------

_DISPLAY = threading.local()
_PLAIN = (".", ",")


def set_display_separators(decimal: str = ".", group: str = ",") -> None:
    """The decimal separator and the thousands separator of the numbers this *thread* shows.

    The window sets them on its GUI thread from the analyst's locale (``0,692``, ``1.049``);
    every other thread (the workers that compute results and write reports) and the command
    line keep the default, ``.`` and ``,``: what is written to a file is never localised (the
    Excel report holds numbers, CSV and JSON are locale-free)."""
    if not decimal or decimal == group:
        raise ValueError(f"a decimal separator must be given and differ from the grouping one; "
                         f"got {decimal!r} and {group!r}")
    _DISPLAY.separators = (decimal, group)


def display_separators() -> tuple[str, str]:
    """(decimal separator, thousands separator) of this thread's numbers."""
    return getattr(_DISPLAY, "separators", _PLAIN)


def localize(text: str) -> str:
    """A number written with ``.`` and ``,`` (``1,049.5``) in this thread's separators
    (``1.049,5`` in German, ``1 049,5`` in French).

    >>> localize("1,049.5")
    '1,049.5'
    """
    decimal, group = display_separators()
    if (decimal, group) == _PLAIN:
        return text
    return text.replace(",", "\0").replace(".", decimal).replace("\0", group)


# --- rounding as Excel displays ------------------------------------------------------------------

def excel_round(value: float, decimals: int) -> Decimal:
    """``value`` rounded to ``decimals`` places as Excel shows a cell: to 15 significant digits
    first, then half away from zero (so 2.4517499999999997 -> 2.4518 at four places)."""
    d = Decimal(f"{value:.15g}")
    q = Decimal(1).scaleb(-decimals)
    return d.quantize(q, rounding=ROUND_HALF_UP) if d >= 0 else -((-d).quantize(q, rounding=ROUND_HALF_UP))


def _fixed(value: float, decimals: int, *, sign: bool = False, group: bool = True) -> str:
    d = excel_round(value, decimals)
    if d == 0:
        d = abs(d)  # no "-0.0"
    text = localize(f"{d:,.{decimals}f}" if group else f"{d:.{decimals}f}")
    if sign and d > 0:
        text = "+" + text
    return text


#: decimals of each decimal kind (the fixed part of the policy)
DECIMALS = {"rate": 1, "points": 1, "margin": 1, "score": 3, "score_diff": 3, "relative": 1, "bleu": 1,
            "latency": 3, "statistic": 2}
#: the smallest magnitude shown as a number (in the kind's displayed unit); below: "< ..."
_FLOOR = {"rate": 1e-4, "points": 1e-4, "margin": 1e-4, "relative": 1e-4, "score": 1e-6, "score_diff": 1e-6,
          "bleu": 1e-4, "latency": 1e-6, "statistic": 1e-6}
_SCALE = {"rate": 100.0, "points": 100.0, "margin": 100.0, "relative": 100.0}
_SIGNED = {"points", "score_diff", "relative"}


def _latency_decimals(a: float) -> int:
    """Latency in the file's unit, seconds or milliseconds: four significant digits at most
    (``0.830``, ``2.452``, ``24.52``, ``245.2``, ``1,733`` ms), never ``1733.412`` ms."""
    return 3 if a < 10 else 2 if a < 100 else 1 if a < 1000 else 0


def _decimals_for(kind: str, shown: float) -> int:
    """Decimals that show ``shown`` (already scaled) without hiding a nonzero value."""
    base = DECIMALS[kind] if kind != "latency" else _latency_decimals(abs(shown))
    if shown == 0 or float(excel_round(abs(shown), base)) != 0:
        return base
    # two significant digits for a value that would round to zero
    return min(max(base, 1 - math.floor(math.log10(abs(shown)))), 12)


def _cost_decimals(value: float) -> int:
    a = abs(value)
    if a == 0:
        return 0  # "0", not "0.00" beside "0.000144": zero carries no precision
    if a >= 1:
        return 2
    return min(2 - math.floor(math.log10(a)), 10)


def _p_decimals(p: float) -> int:
    return max(2 - math.floor(math.log10(p)), 2)  # 3 significant digits (1.00 at p = 1)


def _currency_affix(currency: str | None, text: str) -> str:
    if not currency:
        return text
    neg = text.startswith("-")
    body = text[1:] if neg else text
    cur = currency.strip()
    out = f"{body} {cur}" if cur.isalpha() and len(cur) > 1 else f"{cur}{body}"
    return ("-" + out) if neg else out


def _is_missing(value: Any) -> bool:
    """None, NaN, inf, pandas' NA and NaT (without importing pandas)."""
    if value is None:
        return True
    if isinstance(value, (str, bytes, bool, int)):
        return False
    if type(value).__name__ in ("NAType", "NaTType"):
        return True
    try:
        return not math.isfinite(float(value))
    except (TypeError, ValueError, OverflowError):
        return False


def format_value(value: Any, kind: str, *, currency: str | None = None) -> str:
    """``value`` as text under the policy of ``kind`` (see the module's table).

    >>> format_value(0.725, "rate"), format_value(0.045, "points"), format_value(1.58e-30, "p")
    ('72.5%', '+4.5 pts', '< 0.001')
    """
    if _is_missing(value):
        return MISSING
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        value = value.item()  # numpy scalars (np.bool_ too) as Python values
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, str):
        return value
    if not isinstance(value, (int, float)):
        return str(value)
    v = float(value)
    if math.isfinite(v):  # one value, one rounding: 0.43749999999999994 is 0.4375, as Excel reads it
        v = float(f"{v:.15g}")
    if kind == "plain":
        if isinstance(value, int) or v == int(v) and abs(v) < 1e15:
            return localize(f"{int(v):,}")
        return _fixed(v, 4)  # not a kind of the policy: four decimals, never a raw float
    if kind == "count":
        if v == int(v):
            return localize(f"{int(v):,}")
        return _fixed(v, 2)
    if kind == "p":
        if v < 0.001:
            return "< " + localize("0.001")
        return _fixed(v, _p_decimals(v))
    if kind == "cost":
        return _currency_affix(currency, _fixed(v, _cost_decimals(v)))
    if kind in SIGNED_AMOUNTS:
        text = format_value(v, SIGNED_AMOUNTS[kind], currency=currency)
        return "+" + text if v > 0 and not text.startswith(("+", "<")) else text
    if kind not in DECIMALS:
        raise ValueError(f"unknown number kind {kind!r}; one of {', '.join(KINDS)}")
    shown = v * _SCALE.get(kind, 1.0)
    suffix = {"rate": "%", "relative": "%", "points": " pts", "margin": " pts"}.get(kind, "")
    signed = kind in _SIGNED
    if shown != 0 and abs(shown) < _FLOOR[kind]:
        floor = localize(f"{_FLOOR[kind]:.{-math.floor(math.log10(_FLOOR[kind]))}f}")
        if signed:
            return f"{'+' if shown > 0 else '-'}< {floor}{suffix}".replace("+< ", "< +").replace("-< ", "> -")
        return f"< {floor}{suffix}"
    return _fixed(shown, _decimals_for(kind, shown), sign=signed) + suffix


def format_interval(low: Any, high: Any, kind: str, *, currency: str | None = None) -> str:
    """``+0.3 to +8.7 pts``, ``84.8% to 88.9%``, ``0.610 to 0.720``."""
    lo = format_value(low, kind, currency=currency)
    hi = format_value(high, kind, currency=currency)
    if kind in ("points", "margin") and lo.endswith(" pts") and hi.endswith(" pts"):
        lo = lo[:-4]
    return f"{lo} to {hi}"


def interval_method(basis: Any) -> str:
    """The method of an interval named in a sentence such as a gate card row's ``basis``
    (``bootstrap``, ``cluster bootstrap``, ``normal``, ``Wilson``; empty when it names none).
    Two intervals of one difference exist (Compare leads with the normal one, the release rule
    with a bootstrap one), so every card names the method of the one it shows."""
    text = str(basis or "")
    m = re.search(r"\b(normal|bootstrap|Wilson|percentile)\b interval", text)
    if not m:
        return ""
    if m.group(1) == "bootstrap" and "clusters of" in text:
        return "cluster bootstrap"
    return m.group(1)


def format_p(p: Any) -> str:
    """``p = 0.0636`` or ``p < 0.001`` (never ``p = < 0.001``)."""
    text = format_value(p, "p")
    return f"p {text}" if text.startswith("<") else f"p = {text}"


def format_record(rec: dict, *, currency: str | None = None) -> str:
    """A record's value as text in its metric's kind (or the record's own ``kind``)."""
    return format_value(rec.get("value"), rec.get("kind") or kind_of(rec["metric"]), currency=currency)


# --- counted words -------------------------------------------------------------------------------

def plural(n: Any, word: str, many: str | None = None) -> str:
    """``1 item``, ``3 items``, ``1,000 queries``: a count as an integer with its noun.

    >>> plural(1, "item"), plural(2.0, "query"), plural(1049, "item")
    ('1 item', '2 queries', '1,049 items')
    """
    try:
        count = int(n)
    except (TypeError, ValueError):
        return f"{n} {many or _pl(word)}"
    if count != n:
        return f"{format_value(n, 'count')} {many or _pl(word)}"
    return f"{localize(f'{count:,}')} {word if count == 1 else (many or _pl(word))}"


def article(word: Any) -> str:
    """``word`` with its indefinite article: ``an outcome``, ``an item id``, ``a score``,
    ``a unit`` (by its sound: a vowel letter, except the "you" of ``unit``, ``user``...).

    >>> article("outcome"), article("item id"), article("score"), article("unit")
    ('an outcome', 'an item id', 'a score', 'a unit')
    """
    text = str(word)
    low = text.lower()
    vowel = low[:1] in ("a", "e", "i", "o") or (
        low[:1] == "u" and not low.startswith(("uni", "use", "usu", "uti", "ura", "uri")))
    return f"{'an' if vowel else 'a'} {text}"


def of_total(part: Any, total: Any, word: str, many: str | None = None) -> str:
    """``61 of 10,000 queries``, ``1 of 1 query``: a part of a counted whole, both with
    thousands separators, the noun agreeing with the whole."""
    return f"{count(part)} of {plural(total, word, many)}"


def verb(n: Any, one: str, many: str) -> str:
    """``has``/``have`` (or any pair) agreeing with the count ``n``."""
    try:
        return one if int(n) == 1 and float(n) == 1 else many
    except (TypeError, ValueError):
        return many


def _pl(word: str) -> str:
    if word.endswith("y") and word[-2:-1] not in "aeiou":
        return word[:-1] + "ies"
    if word.endswith(("s", "x", "ch", "sh")):
        return word + "es"
    return word + "s"


def count(n: Any) -> str:
    """A whole number with thousands separators (``1,049``)."""
    return format_value(n, "count")


def rate(value: Any) -> str:
    """A proportion of items as percent (``72.5%``)."""
    return format_value(value, "rate")


def points(value: Any, *, signed: bool = True) -> str:
    """A difference of two rates in points (``+4.5 pts``; ``4.5 pts`` unsigned, for a size)."""
    return format_value(value, "points" if signed else "margin")
