"""The one presentation module: how every number is shown, and the answer each panel leads with.

Every renderer uses it: the GUI's tables, answer cards and charts, the Excel report's number
formats and sentences, and the command line's human output.  It needs no GUI toolkit.

The number-format policy (one format per *kind* of number)
===========================================================

The policy itself (the kinds, :func:`format_value`, :func:`format_p`, :func:`format_interval`,
the Excel-like rounding) lives in :mod:`workbench.core.numbers`, so that the analyses' notes and
the release rules' card use it too; this module re-exports those names, so ``present.format_value``
and ``core.numbers.format_value`` are the same function.  It adds the Excel formats, the display
names and the answers.

**Excel.**  :func:`excel_format` gives the format of a kind; with ``value=`` it gives the format
that displays that very value as :func:`format_value` does (p-values below 0.001 get the format
``"< 0.001"``, a text-only format, so the cell keeps its number for auditing but shows the text;
tiny rates get more decimals).  Excel cannot scale a number by 100 without showing ``%``, so a
``points`` cell holds the value in points (:func:`excel_value` converts), with the format
``+0.0" pts"`` (``0.0" pts"`` for a margin).

The answers
===========

:func:`answer` turns an analysis result (or a gate result) into one or two plain sentences, a
badge and a tone (``good``, ``bad``, ``borderline`` or ``neutral``).  Every number in them is
a value of the result's records or tables, formatted here; nothing is computed anew.  The
judgements use the conventional alpha of 0.05 (the analyses' own notes use it too).
"""

from __future__ import annotations

import math

import re
import dataclasses
from dataclasses import dataclass
from typing import Any, Iterable

from .. import catalog
from ..core.numbers import (  # noqa: F401  (re-exported: the policy's one home is core.numbers)
    _EXACT_KINDS, _FLOOR, _PATTERN_KINDS, _SCALE, _SIGNED, _STAT_RE, ALPHA, DECIMALS, GATE_UNIT_KINDS,
    HINT_KINDS, KINDS, MISSING, _cost_decimals, _currency_affix, _decimals_for, _fixed, _is_missing,
    _p_decimals, display_separators, excel_round, format_interval, format_p, format_record, format_value,
    gate_kind, interval_method, kind_of, localize, set_display_separators,
)
from ..core.numbers import count as _count
from ..core.numbers import _pl, plural as _plural  # noqa: F401
from ..core.numbers import split_paired as _split_paired  # diff:ndcg@10 and other paired ids


def column_kind(analysis: str, table: str, column: str, hint: str | None = None) -> str:
    """The kind of a column of a result table (``ci_low`` takes its companion's kind)."""
    col = str(column)
    if analysis == "compare" and table == "discordant" and col in ("baseline", "candidate"):
        return "score" if hint == "float" else "count"  # the items' scores, or 0/1 outcomes
    if table == "systems_compared" and col in ("diff", "ci_low", "ci_high", "bca_low", "bca_high",
                                               "t_ci_low", "t_ci_high", "baseline", "candidate"):
        # rows of different metrics (rates, 0-1 scores, BLEU on 0-100) share these columns: one
        # signed decimal form for all (the chart of differences formats each row by its metric)
        return "score" if col in ("baseline", "candidate") else "score_diff"
    if analysis == "compare" and col in ("ci_low", "ci_high", "diff"):
        return "points"
    if analysis == "gate" and col in ("observed", "ci_low", "ci_high", "threshold"):
        return "score_diff"   # the card's numbers depend on each row's unit: see row_kind
    if col in ("ci_low", "ci_high", "micro_ci_low", "micro_ci_high"):
        return "rate" if analysis in ("aggregate", "cost", "plan") else HINT_KINDS.get(hint or "", "score")
    if col.startswith("input:") or col in ("group", "system", "version", "query", "item", "task",
                                            "from", "to", "test", "basis", "interval", "measure",
                                            "unit", "result", "baseline", "candidate"):
        if col in ("baseline", "candidate") and hint in ("int", "rate", "float"):
            return HINT_KINDS[hint]
        return "plain"
    if analysis == "plan" and col == "mde":
        return "margin"
    if analysis == "passk" and col == "n":
        return "count"
    kind = kind_of(col)
    if kind == "plain" and hint:
        return HINT_KINDS.get(hint, "plain")
    return kind


def table_kinds(result, table) -> dict[str, str]:
    """The kind of each column of one of ``result``'s tables (``"text"`` for the columns the
    analysis marks as text).  A gate card's value columns depend on each row: see :func:`gate_kind`."""
    out = {}
    for col in table.frame.columns:
        hint = table.formats.get(col)
        out[col] = "text" if hint == "text" else column_kind(result.analysis, table.name, col, hint)
    return out


# --- display names -------------------------------------------------------------------------------

_NAMES: dict[str, str] = {
    "exact_match": "Exact match", "token_f1": "Token F1", "bleu": "BLEU (0-100)",
    "chrf": "chrF (0-100)", "rouge1": "ROUGE-1 F", "rouge2": "ROUGE-2 F", "rougeL": "ROUGE-L F",
    "p@K": "P@{k}", "r@K": "R@{k}", "hit@K": "Hit@{k}", "ndcg@K": "nDCG@{k}", "mrr@K": "MRR@{k}", "mrr": "MRR",
    "map": "MAP", "pass@K": "pass@{k}", "pass^K": "pass^{k}", "naive_pass@K": "pass@{k}, plug-in",
    "naive_pass^K": "pass^{k}, plug-in", "per_try_p@K": "Per-try success rate from pass@{k}",
    "micro": "Micro average", "macro": "Macro average", "rate": "Rate",
    "pooled_ratio": "Pooled ratio", "mean_of_ratios": "Mean of ratios",
    "simpson": "Simpson's paradox", "wins": "Wins (candidate only)",
    "losses": "Losses (baseline only)", "ties": "Ties", "diff": "Difference",
    "sign_test_p": "Exact sign test: p", "sign_test_midp": "Exact sign test, mid-p",
    "mcnemar_chi2": "McNemar: chi-square", "mcnemar_p": "McNemar: p",
    "mcnemar_cc_chi2": "McNemar, continuity-corrected: chi-square",
    "mcnemar_cc_p": "McNemar, continuity-corrected: p", "normal_ci": "Difference, normal 95% CI",
    "bootstrap_ci": "Difference, bootstrap 95% CI", "mde": "Minimum detectable difference",
    "success_rate": "Success rate", "cost_per_request": "Cost per request",
    "cost_per_success": "Cost per success", "latency_p50": "Latency p50",
    "latency_p95": "Latency p95", "latency_p99": "Latency p99",
    "marginal_cost_per_success": "Marginal cost per extra success", "dominated": "Dominated",
    "ci_half_width": "95% CI half-width", "wilson_ci": "Wilson 95% CI",
    "per_try_p": "Per-try success rate", "items_needed": "Items needed",
    # table columns and the gate
    "verdict": "Verdict", "rule_changed_after_results": "Rule changed after results",
    "success": "success", "n": "n", "items": "Items", "queries": "Queries",
    "tasks": "Tasks", "requests": "Requests", "successes": "Successes", "groups": "Groups",
    "exact_matches": "Exact matches", "no_relevant": "Queries without a relevant document",
    "tied_queries": "Queries with tied scores", "rr": "Reciprocal rank", "ap": "Average precision",
    "left_out": "Tasks left out (n < k)", "share_of_items": "Share of items",
    "gap_micro_minus_macro": "Micro - macro", "discordance": "Discordance",
    "baseline_rate": "Baseline rate", "candidate_rate": "Candidate rate", "p_value": "p",
    "p_holm": "p (Holm)", "statistic": "Statistic", "ci_low": "95% CI low", "ci_high": "95% CI high",
    "micro_ci_low": "Micro 95% CI low", "micro_ci_high": "Micro 95% CI high",
    "total_cost": "Total cost", "extra_cost_per_request": "Extra cost per request",
    "extra_success_rate": "Extra success rate", "latency": "Latency", "fraction": "Fraction",
    "wald_half_width": "Wald 95% half-width", "wilson_low": "Wilson 95% low",
    "wilson_high": "Wilson 95% high", "unpaired_difference_needed": "Unpaired difference detectable",
    "bin_low": "Bin from", "bin_high": "Bin to", "resamples": "Resamples",
}


# the paired tests of any score (compare on scores; "Systems compared" of ranking and text:
# ``KIND:METRIC`` ids such as ``diff:ndcg@10``, whose kind follows the metric's)
_NAMES.update({
    "mean_score": "Mean score", "improved": "Improved", "worse": "Got worse",
    "tied": "Tied", "mean_diff": "Mean difference", "t_test_p": "Paired t-test: p",
    "wilcoxon_p": "Wilcoxon signed-rank: p", "randomization_p": "Randomization test: p",
    "bootstrap_pct_ci": "Mean difference, bootstrap 95% CI (percentile)",
    "bootstrap_bca_ci": "Mean difference, bootstrap 95% CI (BCa)",
    "effect_size": "Effect size (mean difference / SD)",
    "t": "Paired t statistic", "t:*": "Paired t statistic, {m}", "effect_size:*": "Effect size d_z, {m}",
    "mde_score": "Minimum detectable difference (score)", "p_adjusted": "Adjusted p",
    "tukey_hsd_p": "Tukey HSD: p", "beats_baseline": "Beats the baseline",
    "diff:*": "Difference in {m}", "t_test_p:*": "Paired t-test p, {m}",
    "wilcoxon_p:*": "Wilcoxon p, {m}", "randomization_p:*": "Randomization test p, {m}",
    "p_adjusted:*": "Adjusted p, {m}", "paired_bs_p:*": "Paired bootstrap p, {m}",
    "paired_ar_p:*": "Approximate randomization p, {m}",
    # "Systems compared" columns: every interval names its method (item 14 of issue 23)
    "bca_low": "BCa 95% CI low", "bca_high": "BCa 95% CI high",
    "t_ci_low": "Paired t 95% CI low", "t_ci_high": "Paired t 95% CI high",
    "paired_bs_p": "Paired bootstrap: p", "paired_ar_p": "Approximate randomization: p",
    "sentence_bleu": "Sentence BLEU (0-100)", "sentence_chrf": "Sentence chrF (0-100)",
    "retrieved": "Retrieved", "relevant": "Relevant", "counted": "Counted",
    # the plain columns of the result tables (a table's header reads these)
    "baseline": "Baseline", "candidate": "Candidate", "basis": "Basis", "c": "c", "k": "k",
    "denominator": "Denominator", "numerator": "Numerator", "detectable": "Detectable",
    "difference": "Difference", "from": "From", "to": "To", "from_value": "From value",
    "to_value": "To value", "group": "Group", "interval": "Interval", "item": "Item",
    "line": "Line", "measure": "Measure", "metric": "Metric", "query": "Query",
    "normalized_prediction": "Normalised prediction", "normalized_reference": "Normalised reference",
    "prediction": "Prediction", "reference": "Reference", "ratio": "Ratio", "result": "Result",
    "system": "System", "task": "Task", "test": "Test", "unit": "Unit", "units": "Units",
    "value": "Value", "version": "Version",
})

#: a table's own reading of a column that other tables use otherwise: (table, column) -> name
_TABLE_NAMES: dict[tuple[str, str], str] = {
    ("systems_compared", "ci_low"): "Bootstrap 95% CI low", ("systems_compared", "ci_high"): "Bootstrap 95% CI high",
    ("systems_compared", "baseline"): "Baseline mean", ("systems_compared", "candidate"): "Candidate mean",
    ("systems_compared", "diff"): "Difference (candidate - baseline)",
    ("groups", "ci_low"): "Wilson 95% CI low", ("groups", "ci_high"): "Wilson 95% CI high",
    ("systems", "ci_low"): "Wilson 95% CI low", ("systems", "ci_high"): "Wilson 95% CI high",
}


def column_name(table: str, column: Any) -> str:
    """A reader's name for a column of a result table (``token_f1`` -> ``Token F1``;
    ``bca_low`` -> ``BCa 95% CI low``; the percentile interval of "Systems compared" ->
    ``Bootstrap 95% CI low``): the GUI's table headers and the report's use it."""
    col = str(column)
    if (str(table), col) in _TABLE_NAMES:
        return _TABLE_NAMES[(str(table), col)]
    pattern = _pattern_key(col)
    known = col in _NAMES or _split_paired(col) is not None or (pattern is not None and pattern[0] in _NAMES)
    # a column named after the data (a version 'old', a system 'bm25') keeps its name
    return display_name(col) if known else col


# rubric (``PREFIX:CRITERION`` ids name the criterion as written)
_NAMES.update({
    "rubric_score": "Rubric score", "criterion_rate:*": "Pass rate of {m}",
    "criterion_diff:*": "Change in {m}", "contribution:*": "Contribution of {m} to the score change",
    "criterion_p_holm:*": "Exact sign test p (Holm), {m}",
    "criterion_sign_p:*": "Exact sign test p, {m}", "criterion_mcnemar_p:*": "McNemar p (uncorrected), {m}",
})

# repeats
_NAMES.update({
    "repeats_mean": "Mean over items of each item's tries", "repeats_diff": "Mean per-item difference",
    "repeats_rate": "Success rate over items of each item's tries",
    "repeats_rate_diff": "Mean per-item difference of success rates",
    "var_data": "Variance from the items (data)", "var_within": "Variance within items (model's randomness)",
    "within_share": "Model's own randomness, share of one try's variance",
    "se_repeats": "Standard error with these repeats", "se_one_repeat": "Standard error with one repeat",
    "clustered_se": "Clustered standard error (items)", "items_needed": "Items needed for the target",
    "repeats_needed": "Repeats needed for the target", "flipping_items": "Items that flip",
    "seed_sd": "Spread across seeds (SD of run means)", "seed_min": "Lowest run mean",
    "seed_max": "Highest run mean", "one_run_item_se": "Standard error over items of one run",
    "half_width_twice_items": "95% half-width with twice the items",
    "half_width_twice_repeats": "95% half-width with twice the repeats",
    "half_width_repeats_floor": "95% half-width with endless repeats",
})

# effort (cost and latency)
_NAMES.update({f"{m}_{s}": f"{w} {t}" for m, w in (("steps", "Steps"), ("tool_calls", "Tool calls"),
                                                    ("tokens", "Tokens"), ("input_tokens", "Input tokens"),
                                                    ("output_tokens", "Output tokens"),
                                                    ("working_time", "Working time"))
               for s, t in (("mean", "per request, mean"), ("p50", "per request, median"),
                            ("p95", "per request, p95"), ("per_success", "per success"))})

_NAMES["steps_to_ideal"] = "Steps / ideal steps, mean per request"

# runs side by side
_NAMES.update({
    "run_rate": "Success rate of the run", "run_mean": "Mean score of the run",
    "gained": "Items gained", "lost": "Items lost", "only_from": "Items only in the earlier run",
    "only_to": "Items only in the later run", "groups": "Tie group",
})

# judge
_NAMES.update({
    "agreement": "Raw agreement", "kappa": "Cohen's kappa", "kappa_se": "Cohen's kappa: SE",
    "kappa_linear": "Weighted kappa (linear)", "kappa_quadratic": "Weighted kappa (quadratic)",
    "ac1": "Gwet's AC1", "pabak": "PABAK", "alpha": "Krippendorff's alpha",
    "disagreements": "Disagreements", "sensitivity": "Sensitivity (judge passes what people pass)",
    "specificity": "Specificity (judge fails what people fail)", "judge_pass_rate": "Judge's pass rate",
    "corrected_pass_rate": "Pass rate corrected for the judge's errors",
    "human_labels_needed": "More human labels for +-5 pts on the corrected rate",
    "judge_pass_human_fail": "Judge pass, people fail", "judge_fail_human_pass": "Judge fail, people pass",
    "position_flip_share": "Verdicts that flip when the answers swap",
    "first_position_win_share": "Wins of the answer shown first", "position_p": "Position bias: p",
    "longer_win_share": "Wins of the longer answer", "length_p": "Length bias: p",
})


def _pattern_key(metric_id: str) -> tuple[str, str] | None:
    """``ndcg@10`` -> (``ndcg@K``, ``10``); None when the id has no cut-off."""
    m = re.fullmatch(r"(.+?)([@^])(\d+|k)", metric_id)
    if not m:
        return None
    return f"{m.group(1)}{m.group(2)}K", m.group(3)


def display_name(metric_id: str) -> str:
    """A reader's name for a metric id or table column: ``mcnemar_cc_p`` -> ``McNemar,
    continuity-corrected: p``, ``ndcg@10`` -> ``nDCG@10``; unknown ids read as words.

    The names cover every metric of :data:`workbench.metrics.registry.METRICS`.
    """
    mid = str(metric_id)
    if mid in _NAMES:
        return _NAMES[mid]
    prefix, sep, rest = mid.partition(":")
    if sep and f"{prefix}:*" in _NAMES and _split_paired(mid) is None:
        return _NAMES[f"{prefix}:*"].format(m=f"'{rest}'")
    paired = _split_paired(mid)
    if paired is not None:
        return _NAMES[f"{paired[0]}:*"].format(m=display_name(paired[1]))
    pat = _pattern_key(mid)
    if pat and pat[0] in _NAMES:
        return _NAMES[pat[0]].format(k=pat[1])
    if mid.startswith("input:"):
        return f"input: {mid[6:]}"
    words = mid.replace("_", " ").strip()
    return words[:1].upper() + words[1:] if words else mid


def registry_names() -> dict[str, str]:
    """Every registered metric (``ndcg@K``...) with its display name (for tooltips and tests)."""
    from ..metrics.registry import METRICS

    return {name: display_name(name.replace("@K", "@k").replace("^K", "^k")) for name in METRICS}


# --- Excel ---------------------------------------------------------------------------------------

_FIXED_EXCEL = {"count": "#,##0", "plain": "General"}


def _zeros(decimals: int) -> str:
    return "0." + "0" * decimals if decimals > 0 else "0"


def _quote(text: str) -> str:
    return '"' + text.replace('"', "") + '"'


def excel_value(value: Any, kind: str) -> Any:
    """The number a cell of ``kind`` holds: the value itself, except ``points`` and ``margin``
    (differences of rates, held in points: x 100)."""
    if kind in ("points", "margin") and isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value) * 100.0
    return value


def excel_format(kind: str, *, currency: str | None = None, value: Any = None) -> str:
    """The Excel number format that shows a cell of ``kind`` as :func:`format_value` does.

    Without ``value`` the format of the kind (p-values: ``[<0.001]"< 0.001";0.000``, which shows
    3 significant digits from 0.1 up; costs: two decimals from 1 up, four below).  With
    ``value`` (the stored number, before :func:`excel_value`) the format that displays exactly
    ``format_value(value, kind)``; the report writes every numeric cell this way.
    """
    if kind in _FIXED_EXCEL:
        if kind == "count" and value is not None and not _is_missing(value) \
                and not isinstance(value, bool) and float(value) != int(float(value)):
            return "#,##0.00"
        return _FIXED_EXCEL[kind]
    if kind == "p":
        if value is None or _is_missing(value):
            return '[<0.001]"< 0.001";0.000'
        v = float(value)
        return '"< 0.001"' if v < 0.001 else _zeros(_p_decimals(v))
    if kind == "cost":
        if value is None or _is_missing(value):
            body = "[>=1]#,##0.00;[<=-1]-#,##0.00;0.0000"
            if currency:
                cur = currency.strip()
                pre, post = (("", " " + cur) if cur.isalpha() and len(cur) > 1 else (cur, ""))
                body = (f"[>=1]{_quote(pre)}#,##0.00{_quote(post)};[<=-1]-{_quote(pre)}#,##0.00"
                        f"{_quote(post)};{_quote(pre)}0.0000{_quote(post)}").replace('""', "")
            return body
        body = "#,##0" + ("." + "0" * _cost_decimals(float(value)) if _cost_decimals(float(value)) else "")
        if currency:
            cur = currency.strip()
            if cur.isalpha() and len(cur) > 1:
                return f'{body}" {cur}";-{body}" {cur}"'
            return f"{_quote(cur)}{body};-{_quote(cur)}{body}"
        return body
    if kind not in DECIMALS:
        raise ValueError(f"unknown number kind {kind!r}; one of {', '.join(KINDS)}")
    decimals = DECIMALS[kind]
    if value is not None and not _is_missing(value) and not isinstance(value, bool):
        shown = float(value) * _SCALE.get(kind, 1.0)
        if shown != 0 and abs(shown) < _FLOOR[kind]:
            return _quote(format_value(value, kind))  # "< 0.0001%": the text, the number kept
        decimals = _decimals_for(kind, shown)
    num = ("#,##0" if kind in ("latency", "statistic", "bleu") else "0") + (
        "." + "0" * decimals if decimals else "")
    if kind == "rate":
        return num + "%"
    if kind == "relative":
        return f"+{num}%;-{num}%;{num}%"
    if kind == "points":
        return f'+{num}" pts";-{num}" pts";{num}" pts"'
    if kind == "margin":
        return f'{num}" pts"'
    if kind == "score_diff":
        return f"+{num};-{num};{num}"
    return num


# --- answers -------------------------------------------------------------------------------------

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
    return format_value(rec.get("value"), kind or kind_of(rec["metric"]), currency=currency)


def _ci(rec: dict, kind: str | None = None, *, currency: str | None = None) -> str:
    if rec.get("ci_low") is None or rec.get("ci_high") is None:
        return ""
    return f" (95% CI {format_interval(rec['ci_low'], rec['ci_high'], kind or kind_of(rec['metric']), currency=currency)})"


def _systems(result, metric: str, key: str = "system") -> list:
    return list(dict.fromkeys(r.get(key) for r in result.records if r["metric"] == metric))


def _q(name: Any) -> str:
    return f"'{name}'"


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
        ci = (f" (bootstrap 95% CI {format_interval(lo, hi, kind)})"
              if not _is_missing(lo) and not _is_missing(hi) else "")
        p = p_rec.get("value") if p_rec is not None else None
        excludes = not _is_missing(lo) and not _is_missing(hi) and (lo > 0 or hi < 0)
        significant = p is not None and p < ALPHA
        value = format_value(d["value"], kind)
        if excludes and significant:
            better = d["value"] > 0
            winner, loser = (cand, base) if better else (base, cand)
            shown = value if better else format_value(-d["value"], kind)
            text = f"{_q(winner)} beats {_q(loser)} on {name} by {shown}{ci}"
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


def _answer_ranking(result, currency):
    k = _top_k(result, "ndcg@")
    systems = _systems(result, f"ndcg@{k}" if k else "mrr")
    parts = []
    n = None
    for system in systems:
        bits = []
        nd = _first(result, f"ndcg@{k}", system=system) if k else None
        if nd is not None:
            n = nd.get("n")
            bits.append(f"nDCG@{k} = {_fv(nd)}")
            if _ci(nd):
                bits.append(_ci(nd)[2:-1])
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
            rest = ", ".join(b for b in bits[1:] if not b.startswith("95% CI"))
            inside = "; ".join(b for b in ([bits[1]] if len(bits) > 1 and bits[1].startswith("95% CI") else [])
                               + ([rest] if rest else []))
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


def _answer_passk(result, currency):
    systems = _systems(result, "pass@1") or [None]
    asked = _top_k(result, "pass@")
    # the headline: the largest k the data supports (k > n for every task has no estimate)
    supported = _supported_ks(result, "pass@")
    k_at = supported[-1] if supported else None
    ks_hat = _supported_ks(result, "pass^")
    if k_at is None:
        return None
    k_hat = next((k for k in ks_hat if k > 1), ks_hat[-1] if ks_hat else None)
    parts, tones = [], []
    n = None
    for system in systems:
        at = _first(result, f"pass@{k_at}", system=system)
        hat = _first(result, f"pass^{k_hat}", system=system) if k_hat else None
        if at is None:
            continue
        n = at.get("n")
        head = f"{_q(system)}: " if system is not None and len(systems) > 1 else ""
        if hat is None or at.get("value") is None or hat.get("value") is None:
            parts.append(f"{head}pass@{k_at} = {_fv(at)}{_ci(at)}")
            tones.append("neutral")
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
    parts = []
    for version in versions:
        micro = _first(result, "micro", version=version)
        macro = _first(result, "macro", version=version)
        if micro is None:
            continue
        head = f"{version}: micro" if version is not None else "Micro"
        text = f"{head} {_fv(micro)}{_ci(micro)} on {_plural(micro.get('n'), 'item')}"
        if macro is not None:
            text += f", macro {_fv(macro)} over {_plural(macro.get('n'), 'group')}"
        parts.append(text)
    if not parts:
        return None
    sentences = ("; ".join(parts) + ".",)
    tone, badge = "neutral", f"micro {_fv(_first(result, 'micro'))}"
    if simpson is not None:
        sentences += ("No Simpson's paradox: the overall comparison agrees with the segments.",)
    else:
        rates = [r for r in result.find("rate") if r.get("value") is not None]
        if len(rates) >= 2:
            lo = min(rates, key=lambda r: r["value"])
            hi = max(rates, key=lambda r: r["value"])
            sentences += (f"Groups range from {_fv(lo)} ({lo.get('group')}, {_plural(lo.get('n'), 'item')}) "
                          f"to {_fv(hi)} ({hi.get('group')}, {_plural(hi.get('n'), 'item')}); micro weights "
                          f"groups by size, macro equally.",)
    return Answer(sentences, badge, tone)


def _signature_fields(result) -> dict[str, str]:
    """The result's top-level signature fields (a nested ``source:[...]`` is left out)."""
    sig = str(getattr(result, "signature", "") or "").split("|source:[", 1)[0]
    return dict(part.split(":", 1) for part in sig.split("|") if ":" in part)


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
    ci = (f" (paired t 95% CI {format_interval(lo, hi, kind_of(diff['metric']), currency=currency)})"
          if lo is not None and hi is not None else "")
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
        how = "BCa" if boot["metric"] == "bootstrap_bca_ci" else "percentile"
        parts.append(f"bootstrap ({how}) 95% CI "
                     f"{format_interval(boot['ci_low'], boot['ci_high'], kind_of(boot['metric']))}")
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
    method = "normal" if diff["metric"] == "normal_ci" else "bootstrap" if diff["metric"] == "bootstrap_ci" else ""
    ci = (f" ({method + ' ' if method else ''}95% CI {format_interval(lo, hi, 'points')})"
          if lo is not None and hi is not None else "")
    s1 = (f"Candidate {_q(cand)} {format_value(diff['value'], 'points')}{ci} over baseline "
          f"{_q(base)} on {_plural(diff.get('n'), 'item')}: {verdict}.")
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


def _answer_cost(result, currency):
    systems = _systems(result, "success_rate")
    if not systems:
        return None
    marginal = None
    try:
        marginal = result.table("marginal").frame
    except KeyError:
        pass
    dominated = []
    for rec in result.find("dominated"):
        if rec.get("value") and rec.get("to") not in dominated:
            dominated.append(rec.get("to"))
    cps = [r for r in result.find("cost_per_success") if r.get("value") is not None]
    cheapest = min(cps, key=lambda r: r["value"]) if cps else None
    parts = []
    if cheapest is not None:
        rate = _first(result, "success_rate", system=cheapest.get("system"))
        ci = _ci(cheapest, currency=currency)[2:-1]
        succeed = f"{_fv(rate)} of {_plural(rate.get('n'), 'request')} succeed" if rate else ""
        inside = "; ".join(x for x in (ci, succeed) if x)
        parts.append(f"{cheapest.get('system')}: {_fv(cheapest, currency=currency)} per success"
                     + (f" ({inside})" if inside else "") + ".")
    buys = []
    for rec in result.find("marginal_cost_per_success"):
        if rec.get("value") is None or rec.get("to") in dominated:
            continue
        if cheapest is not None and rec.get("from") != cheapest.get("system"):
            continue
        gain = ""
        if marginal is not None and {"from", "to", "extra_success_rate"} <= set(marginal.columns):
            row = marginal[(marginal["from"].astype(str) == str(rec.get("from"))) &
                           (marginal["to"].astype(str) == str(rec.get("to")))]
            if len(row):
                gain = f" {format_value(row['extra_success_rate'].iloc[0], 'points').lstrip('+')}"
        buys.append(f"{rec.get('to')} buys{gain or ' more successes'} for "
                    f"{format_value(rec['value'], 'cost', currency=currency)} per extra success")
    second = "; ".join(buys)
    if dominated:
        dom = ", ".join(str(d) for d in dominated)
        verb = "is" if len(dominated) == 1 else "are"
        second = (second + ". " if second else "") + f"{dom} {verb} dominated"
    effort = _effort_clause(result)
    if effort:
        second = (second + "; " if second else "") + effort
    sentences = tuple(s for s in (" ".join(parts), (second + ".") if second else "") if s)
    badge = f"{', '.join(map(str, dominated))} dominated" if dominated else (
        f"cheapest: {cheapest.get('system')}" if cheapest is not None else "cost")
    return Answer(sentences, badge, "neutral")


def _effort_clause(result, currency=None) -> str:
    """The effort beside the cost: with two or more systems, the one with the fewest steps per
    success against the one with the most ("'B' succeeds on 82% (against 81% for 'A') with 5.1
    steps per success against 12.4, at 0.90 times the cost per success of 'A'"); else "steps
    per success: 'B' 3.33"; steps, else tool calls, else tokens."""
    for measure, word in (("steps", "steps"), ("tool_calls", "tool calls"), ("tokens", "tokens")):
        recs = [r for r in result.find(f"{measure}_per_success") if r.get("value") is not None]
        if not recs:
            continue
        recs.sort(key=lambda r: r["value"])
        if len(recs) >= 2 and recs[0].get("system") is not None:
            best, worst = recs[0], recs[-1]
            rb = _first(result, "success_rate", system=best["system"])
            rw = _first(result, "success_rate", system=worst["system"])
            cb = _first(result, "cost_per_success", system=best["system"])
            cw = _first(result, "cost_per_success", system=worst["system"])
            rates = (f" succeeds on {_fv(rb)} (against {_fv(rw)} for {_q(worst['system'])}) with"
                     if rb and rw else " needs")
            cost = ""
            if cb and cw and cb.get("value") is not None and cw.get("value"):
                cost = (f", at {format_value(cb['value'] / cw['value'], 'statistic')} times the cost per "
                        f"success of {_q(worst['system'])}")
            return (f"{_q(best['system'])}{rates} {format_value(best['value'], 'statistic')} {word} per "
                    f"success against {format_value(worst['value'], 'statistic')}{cost}")
        listed = ", ".join((f"{_q(r['system'])} " if r.get("system") is not None else "")
                           + format_value(r["value"], "statistic") for r in recs[:3])
        return f"{word} per success: {listed}"
    return ""


def _answer_plan(result, currency):
    half = _first(result, "ci_half_width")
    wilson = _first(result, "wilson_ci")
    mde = _first(result, "mde")
    per_try = _first(result, "per_try_p")
    needed = _first(result, "items_needed")
    sentences = []
    if half is not None:
        text = f"With {_plural(half.get('n'), 'item')} a rate is known to ±{format_value(half['value'], 'margin')}"
        if wilson is not None:
            text += f" (a rate of {_fv(wilson)}: Wilson 95% CI {format_interval(wilson.get('ci_low'), wilson.get('ci_high'), 'rate')})"
        sentences.append(text + ".")
    if mde is not None:
        sentences.append(f"A paired difference smaller than {format_value(mde['value'], 'margin')} "
                         f"cannot be told from noise with {_plural(mde.get('n'), 'item')}.")
    if needed is not None:
        sentences.append(f"About {_plural(needed['value'], 'item')} are needed for the target difference.")
    if per_try is not None:
        sentences.append(f"The per-try success rate implied is {_fv(per_try)}"
                         + (f" at k = {per_try['k']}." if per_try.get("k") is not None else "."))
    if not sentences:
        return None
    badge = f"±{format_value(half['value'], 'margin')}" if half is not None else "plan"
    return Answer(tuple(sentences[:2]), badge, "neutral")


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


def record_kind(result, rec: dict) -> str:
    """The kind of a record of ``result``: :func:`kind_of` its metric, except a gate's
    condition records, whose kind is their card row's unit (points, relative change...)."""
    if result.analysis == "gate" and rec["metric"] not in ("verdict", "rule_changed_after_results"):
        try:
            card = result.table("card").frame
            rows = card[card["metric"].astype(str) == rec["metric"]]
            if len(rows):
                return gate_kind(str(rows["unit"].iloc[0]), rec["metric"])
        except KeyError:
            pass
    return kind_of(rec["metric"])


_STATUS_WORDS = {"PASS": "meets the rule", "FAIL": "fails", "INCONCLUSIVE": "cannot tell yet"}


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
        if ci:
            ci = ci[:-1] + ", paired bootstrap)"
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


def _answer_runs(result, currency):
    """"'run5' vs baseline 'run1': +8.5 pts (95% CI +0.5 to +16.5 pts, paired bootstrap) on 200
    items, 31 gained, 14 lost, 5 only in one of them; 4 of 5 runs tie for first (group a)."""
    runs = [r for r in result.records if r["metric"] in ("run_rate", "run_mean")]
    if not runs:
        return None
    base, last = runs[0].get("system"), runs[-1].get("system")
    sig = {k: v for k, _, v in (p.partition(":") for p in result.signature.split("|"))}
    base = sig.get("baseline", base)
    diff_id = "diff" if runs[0]["metric"] == "run_rate" else "mean_diff"
    if last == base:
        last = runs[-2].get("system")
    d = _first(result, diff_id, from_=base, to=last)
    parts = []
    if d is not None:
        ci = _ci(d)
        if ci:
            ci = ci[:-1] + ", paired bootstrap)"
        text = f"{_q(last)} vs baseline {_q(base)}: {_fv(d)}{ci} on {_plural(d.get('n'), 'item')}"
        g, lo = _first(result, "gained", from_=base, to=last), _first(result, "lost", from_=base, to=last)
        if g is not None and lo is not None:
            text += f", {_count(g['value'])} gained, {_count(lo['value'])} lost"
        a, b = _first(result, "only_from", from_=base, to=last), _first(result, "only_to", from_=base, to=last)
        if a is not None and b is not None and (a["value"] or b["value"]):
            text += f", {_count(a['value'] + b['value'])} in only one of them"
        parts.append(text)
    firsts = [r.get("system") for r in runs if "a" in str(r.get("groups") or "")]
    if firsts:
        parts.append(f"{len(firsts)} of {_plural(len(runs), 'run')} tie for first (group a)"
                     if len(firsts) > 1 else f"{_q(firsts[0])} alone is first (group a)")
    if not parts:
        return None
    tone = "neutral"
    if d is not None and d.get("ci_low") is not None:
        tone = "good" if d["ci_low"] > 0 else "bad" if d["ci_high"] < 0 else "borderline"
    return Answer(("; ".join(parts) + ".",), f"{len(runs)} runs", tone)


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
        counts = [_count(f["value"]) for f in flips]
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
    from ..analyses.repeats import Choice

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


def _answer_judge(result, currency):
    """"Judge agrees with people on 85% of 105 items; kappa 0.68 (0.53 to 0.82); AC1 0.71; 16
    disagreements, 12 of them judge-pass/human-fail. Judge says 40% pass; corrected 17% (6% to
    27%)." -- or, without human labels, the bias readings."""
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
    s1 = f"Judge agrees with people on {_fv(agree)} of {_plural(agree.get('n'), 'item')}"
    if kappa is not None and kappa.get("value") is not None:
        s1 += f"; kappa {format_value(kappa['value'], 'score')}"
        if kappa.get("ci_low") is not None:
            s1 += f" ({format_interval(kappa['ci_low'], kappa['ci_high'], 'score')})"
    else:
        s1 += "; kappa undefined (every item got the same label)"
    if ac1 is not None and ac1.get("value") is not None:
        s1 += f"; AC1 {format_value(ac1['value'], 'score')}"
    if dis is not None:
        s1 += f"; {_plural(dis.get('value'), 'disagreement')}"
        jp = _first(result, "judge_pass_human_fail")
        if jp is not None and dis.get("value"):
            s1 += f", {jp.get('value')} of them judge-pass/human-fail"
    sentences = [s1 + "."]
    rate = _first(result, "judge_pass_rate")
    corr = _first(result, "corrected_pass_rate")
    if rate is not None:
        s2 = f"Judge says {_fv(rate)} pass"
        if corr is not None and corr.get("value") is not None:
            s2 += f"; corrected for its errors {_fv(corr)}"
            if corr.get("ci_low") is not None:
                s2 += f" ({format_interval(corr['ci_low'], corr['ci_high'], 'rate')})"
        elif corr is not None:
            s2 += "; it cannot be corrected (the judge is no better than chance on the labelled items)"
        sentences.append(s2 + ".")
    k = kappa.get("value") if kappa else None
    tone = "neutral" if k is None else "good" if k >= 0.6 else "bad" if k < 0.4 else "borderline"
    badge = f"kappa {format_value(k, 'score')}" if k is not None else "kappa undefined"
    return Answer(tuple(sentences), badge, tone)


_ANSWERS = {"text": _answer_text, "ranking": _answer_ranking, "passk": _answer_passk,
            "aggregate": _answer_aggregate, "compare": _answer_compare, "cost": _answer_cost,
            "plan": _answer_plan, "gate": _answer_gate, "judge": _answer_judge,
            "rubric": _answer_rubric, "runs": _answer_runs,
            "repeats": _answer_repeats}


def answer(result, *, currency: str | None = None) -> Answer:
    """The answer card of an analysis (or gate) result: sentences, badge and tone."""
    fn = _ANSWERS.get(result.analysis)
    ans = None
    if any("convention" in r for r in getattr(result, "records", ())):  # the card reads the
        result = dataclasses.replace(result, records=tuple(  # result's own records
            r for r in result.records if "convention" not in r))
    if fn is not None:
        try:
            ans = fn(result, currency)
        except (KeyError, TypeError, ValueError, IndexError):  # records shaped unlike the analysis's own
            ans = None
    if ans is None:
        recs = [r for r in result.records if r.get("value") is not None][:3]
        if not recs:
            return Answer(("No results.",), "no results", "neutral")
        text = "; ".join(f"{display_name(r['metric'])} {format_record(r, currency=currency)}"
                         + (f" (n = {format_value(r['n'], 'count')})" if r.get("n") is not None else "")
                         for r in recs)
        ans = Answer((text + ".",), result.analysis, "neutral")
    return _with_conventions(_with_errored(ans, result), result)


def _with_conventions(ans: Answer, result) -> Answer:
    """The card's line on the conventions (when the result carries their table): "The verdict
    holds under N of M conventions; with X it does not (value, CI)"."""
    from ..analyses.conventions import TABLE, verdict_sentences

    tables = getattr(result, "tables", ()) or ()
    frame = next((t.frame for t in tables if t.name == TABLE), None)
    if frame is None or not len(frame) or getattr(result, "analysis", None) == "gate":
        return ans  # (a gate's conventions sentence is its note)
    def fmt(metric: str, x) -> str:
        return format_value(x, kind_of(metric))

    return dataclasses.replace(ans, sentences=tuple(ans.sentences) + tuple(verdict_sentences(frame, fmt)))


_ERRORED_NOTE = re.compile(r"(\d+) of (\d+) rows ended with an error")


def _with_errored(ans: Answer, result) -> Answer:
    """The card says when rows that ended with an error were left out or counted as failures
    (the note :mod:`workbench.analyses._rows` writes; the signature's ``errored``)."""
    sig = str(getattr(result, "signature", "") or "")
    if "errored:" not in sig or getattr(result, "analysis", None) not in catalog.BY_NAME:
        return ans  # (a gate's card keeps its own sentences: its last one is the rule)
    for note in getattr(result, "notes", ()) or ():
        match = _ERRORED_NOTE.search(str(note))
        if match and "Errors are not measurements" in str(note):
            count, total = match.group(1), match.group(2)
            how = ("left out" if "errored:excluded" in sig
                   else "counted as failures")
            return dataclasses.replace(ans, sentences=ans.sentences + (
                f"{count} of {total} rows ended with an error and are {how}.",))
    return ans


def metric_ids(results: Iterable) -> set[str]:
    """Every metric id the results' records carry (for coverage checks)."""
    return {r["metric"] for res in results for r in res.records}
