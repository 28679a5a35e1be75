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
from dataclasses import dataclass
from typing import Any, Iterable

from ..core.numbers import (  # noqa: F401  (re-exported: the policy's one home is core.numbers)
    _EXACT_KINDS, _FLOOR, _PATTERN_KINDS, _SCALE, _SIGNED, _STAT_RE, ALPHA, DECIMALS, GATE_UNIT_KINDS,
    HINT_KINDS, KINDS, MISSING, _cost_decimals, _currency_affix, _decimals_for, _fixed, _is_missing,
    _p_decimals, excel_round, format_interval, format_p, format_record, format_value, gate_kind,
    kind_of,
)
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
    "p@K": "P@{k}", "r@K": "R@{k}", "hit@K": "Hit@{k}", "ndcg@K": "nDCG@{k}", "mrr": "MRR",
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
    "mde_score": "Minimum detectable difference (score)", "p_adjusted": "Adjusted p",
    "tukey_hsd_p": "Tukey HSD: p", "beats_baseline": "Beats the baseline",
    "diff:*": "Difference in {m}", "t_test_p:*": "Paired t-test p, {m}",
    "wilcoxon_p:*": "Wilcoxon p, {m}", "randomization_p:*": "Randomization test p, {m}",
    "p_adjusted:*": "Adjusted p, {m}", "paired_bs_p:*": "Paired bootstrap p, {m}",
    "paired_ar_p:*": "Approximate randomization p, {m}",
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
    parts = []
    n = None
    for system in systems:
        em = _first(result, "exact_match", system=system)
        if em is None:
            continue
        n = em.get("n")
        extra = []
        for metric in ("token_f1", "bleu", "chrf", "rougeL"):
            rec = _first(result, metric, system=system)
            if rec is not None:
                extra.append(f"{display_name(metric).replace(' (0-100)', '')} {_fv(rec)}")
        who = f"{_q(system)}: exact match" if system is not None else "Exact match"
        parts.append(f"{who} {_fv(em)} of {_plural(em.get('n'), 'item')}"
                     + (f" ({', '.join(extra)})" if extra else ""))
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
    sentences += ("BLEU and chrF are on their 0-100 scale; the others are 0-1 scores or shares of "
                  f"the {_plural(n, 'item')}.",) if any(result.find("bleu")) else ()
    return Answer(sentences[:2], badge, "neutral")


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
            parts.append(head + bits[0] + (f" ({', '.join(bits[1:])})" if len(bits) > 1 else ""))
    if not parts:
        return None
    text = "; ".join(parts) + f" over {_plural(n, 'query', 'queries')}."
    badge = f"nDCG@{k} {_fv(_first(result, f'ndcg@{k}'))}" if k and len(systems) == 1 else "ranking"
    sentences = (text,)
    if n is not None and int(n) < 30:
        sentences += (f"With {_plural(n, 'query', 'queries')} these are anecdotes, not estimates.",)
    return Answer(sentences, badge, "neutral")


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
            parts.append(f"{head}pass@{k_at} = {_fv(at)}")
            tones.append("neutral")
            continue
        if hat["value"] >= 0.9:
            verdict, tone = "reliable", "good"
        elif hat["value"] < 0.5 * at["value"]:
            verdict, tone = "not reliable", "bad"
        else:
            verdict, tone = "not yet reliable", "borderline"
        parts.append(f"{head}pass@{k_at} = {_fv(at)} but pass^{k_hat} = {_fv(hat)}: {verdict}"
                     if tone != "good" else
                     f"{head}pass@{k_at} = {_fv(at)} and pass^{k_hat} = {_fv(hat)}: {verdict}")
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
    ci = f" (95% CI {format_interval(lo, hi, 'points')})" if lo is not None and hi is not None else ""
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
        parts.append(f"{cheapest.get('system')}: {_fv(cheapest, currency=currency)} per success"
                     + (f" ({_fv(rate)} of {_plural(rate.get('n'), 'request')} succeed)" if rate else "")
                     + ".")
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
    sentences = tuple(s for s in (" ".join(parts), (second + ".") if second else "") if s)
    badge = f"{', '.join(map(str, dominated))} dominated" if dominated else (
        f"cheapest: {cheapest.get('system')}" if cheapest is not None else "cost")
    return Answer(sentences, badge, "neutral")


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


def _card_clause(row: dict) -> str:
    """``success +4.5 pts (95% CI +0.5 to +9.0) on 200 items``, from a gate card row."""
    kind = gate_kind(str(row.get("unit")), str(row.get("metric")))
    text = f"{display_name(str(row.get('metric')))} {format_value(row.get('observed'), kind)}"
    if not _is_missing(row.get("ci_low")) and not _is_missing(row.get("ci_high")):
        text += f" (95% CI {format_interval(row['ci_low'], row['ci_high'], kind)})"
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


_ANSWERS = {"text": _answer_text, "ranking": _answer_ranking, "passk": _answer_passk,
            "aggregate": _answer_aggregate, "compare": _answer_compare, "cost": _answer_cost,
            "plan": _answer_plan, "gate": _answer_gate}


def answer(result, *, currency: str | None = None) -> Answer:
    """The answer card of an analysis (or gate) result: sentences, badge and tone."""
    fn = _ANSWERS.get(result.analysis)
    ans = None
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
        return Answer((text + ".",), result.analysis, "neutral")
    return ans


def metric_ids(results: Iterable) -> set[str]:
    """Every metric id the results' records carry (for coverage checks)."""
    return {r["metric"] for res in results for r in res.records}
