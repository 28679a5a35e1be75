"""Display names of metrics and table columns, and the number kind of each result-table column."""

from __future__ import annotations

import re
from typing import Any
from ...core.numbers import HINT_KINDS, kind_of
from ...core.numbers import split_paired as _split_paired
from ._methods import method_label, method_labels


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
    if analysis == "aggregate" and hint == "score" and col in ("rate", "micro", "macro", "ci_low", "ci_high",
                                                               "micro_ci_low", "micro_ci_high",
                                                               "gap_micro_minus_macro"):
        return "score"  # a measure's means in its own unit, never percentages
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



#: tables whose rows are different quantities: (the column naming each row's quantity, how a row's
#: metric id is made from it, the value columns that take that row's kind)
ROW_KINDS = {
    "effort": ("measure", (("{}_mean", ("mean", "ci_low", "ci_high", "median", "p95", "total", "per_success")),)),
    "differences": ("statistic", (("{}", ("from_value", "to_value")), ("diff:{}", ("diff", "ci_low", "ci_high")))),
    "conventions": ("metric", (("{}", ("value", "ci_low", "ci_high")),)),
}
#: the kinds an interval's bound may take from the value column it bounds
_BOUNDED = {"rate", "score", "points", "score_diff", "cost", "latency", "count", "statistic", "bleu", "margin"}


def table_kinds(result, table) -> dict[str, "str | list[str]"]:
    """The kind of each column of one of ``result``'s tables (``"text"`` for the columns the
    analysis marks as text): one kind per column, or one per row (a list) for a table whose
    rows are different quantities (:data:`ROW_KINDS`: steps beside tokens and working time).
    An interval's bounds (``ci_low``/``ci_high``) take the kind of the value column before them
    (steps per request are counts, never percent).  A gate card's value columns depend on each
    row: see :func:`gate_kind`."""
    out: dict = {}
    cols = list(table.frame.columns)
    for col in cols:
        hint = table.formats.get(col)
        out[col] = "text" if hint == "text" else column_kind(result.analysis, table.name, col, hint)
    for pos, col in enumerate(cols):
        if col in ("ci_low", "ci_high") and table.name != "systems_compared":
            value = next((c for c in reversed(cols[:pos]) if c not in ("ci_low", "ci_high")
                          and out.get(c) in _BOUNDED and c not in ("n", "items", "requests", "successes",
                                                                  "queries", "tasks")), None)
            if value is not None:
                out[col] = out[value]
    rows = ROW_KINDS.get(table.name)
    if rows is not None and rows[0] in table.frame.columns:
        source, groups = rows
        for pattern, columns in groups:
            per_row = [_row_kind(pattern.format(x)) for x in table.frame[source].astype(str)]
            for col in columns:
                if col in out and out[col] != "text":
                    out[col] = list(per_row)
    return out


def _row_kind(metric: str) -> str:
    kind = kind_of(metric)
    return kind if kind != "plain" else "score"



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
    "score_ci": "Difference, Tango score 95% CI",
    "bootstrap_ci": "Difference, bootstrap 95% CI", "mde": "Minimum detectable difference",
    "success_rate": "Success rate", "cost_per_request": "Cost per request",
    "cost_per_success": "Cost per success", "latency_p50": "Latency p50",
    "latency_p95": "Latency p95", "latency_p99": "Latency p99",
    "marginal_cost_per_success": "Marginal cost per extra success", "dominated": "Dominated",
    "cost_per_success_ratio": "Cost per success, as a multiple of the other's",
    "spend:*": "Spend over every request (errored ones included): {m}",
    "limited:*": "Records that hit the {m} limit",
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
}



def column_name(table: str, column: Any, *, frame=None, description: str | None = None) -> str:
    """A reader's name for a column of a result table (``token_f1`` -> ``Token F1``;
    ``bca_low`` -> ``BCa 95% CI low``; the percentile interval of "Systems compared" ->
    ``Bootstrap 95% CI low``): the GUI's table headers and the report's use it.

    An interval's bound is named by the method that computed it: the one every row's
    ``ci_method`` cell names when the table (``frame``) has that column (none when the rows
    differ: each row names its own), else the method(s) its ``description`` names ("t 95% CI
    low" for a one-sample t, never "Paired t"); "95% CI low" when neither says."""
    col = str(column)
    if (str(table), col) in _TABLE_NAMES:
        return _TABLE_NAMES[(str(table), col)]
    bound = _bound_of(col)
    if bound is not None:
        named = _bound_name(col, bound, frame, description)
        if named is not None:
            return named
    pattern = _pattern_key(col)
    known = col in _NAMES or _split_paired(col) is not None or (pattern is not None and pattern[0] in _NAMES)
    # a column named after the data (a version 'old', a system 'bm25') keeps its name
    return display_name(col) if known else col



def _bound_of(col: str) -> str | None:
    """``low``/``high`` for a column holding an interval's bound (``ci_low``, ``t_ci_high``,
    ``micro_ci_low``...), else None."""
    for end in ("low", "high"):
        if col == f"ci_{end}" or col.endswith(f"_ci_{end}"):  # (bca_low names its method already)
            return end
    return None


def _bound_name(col: str, bound: str, frame, description) -> str | None:
    labels: list[str] = []
    if col in ("ci_low", "ci_high") and frame is not None and "ci_method" in getattr(frame, "columns", ()):
        found = {method_label(m) for m in frame["ci_method"].dropna()} - {""}
        labels = sorted(found) if len(found) == 1 else []
        if len(found) != 1:
            return f"95% CI {bound}"
    elif description:
        labels = method_labels(description)
    if not labels:
        return None
    label = " or ".join(labels)
    prefix = col[:-len(f"_ci_{bound}")].replace("_", " ") if col.endswith(f"_ci_{bound}") and not \
        col.startswith("t_") else ""
    if prefix:
        return f"{prefix.capitalize()} {label} 95% CI {bound}"
    if label[:1].islower() and label != "t" and not label.startswith("t "):
        label = label[:1].upper() + label[1:]
    return f"{label} 95% CI {bound}"


# rubric (``PREFIX:CRITERION`` ids name the criterion as written)
_NAMES.update({
    "rubric_score": "Rubric score", "criterion_rate:*": "Pass rate of {m}",
    "criterion_diff:*": "Change in {m}", "contribution:*": "Contribution of {m} to the score change",
    "criterion_rate_change:*": "Change in the pass rate of {m} (the contribution's)",
    "tool_calls:*": "Calls of tool {m}", "tool_share:*": "Share of the tool calls that are {m}",
    "tool_calls_p50:*": "Calls of tool {m} per request, median", "tool_calls_p95:*": "Calls of tool {m} per request, p95",
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
    "clustered_se": "Clustered standard error (items)",
    "se_population": "Standard error, population form (SD of item means / sqrt(N))", "items_needed": "Items needed for the target",
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
    "regressions": "Items right before and wrong now (regressions)",
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
    "human_labels_needed_fail": "Of them, on items people fail (Lee et al.'s allocation)",
    "human_labels_needed_pass": "Of them, on items people pass (Lee et al.'s allocation)",
    "human_pass_rate": "People's pass rate on the labelled items",
    "confusion": "Items (judge's label -> people's label)",
    "judge_pass_human_fail": "Judge pass, people fail", "judge_fail_human_pass": "Judge fail, people pass",
    "position_flip_share": "Verdicts that flip when the answers swap",
    "first_position_win_share": "Wins of the answer shown first", "position_p": "Position bias: p",
    "longer_win_share": "Wins of the longer answer", "length_p": "Length bias: p",
    "judge_score": "Judge's own score (mean over its items)",
    "judge_unscored": "Records the judge left unscored",
})

# what a file holds (workbench describe)
_NAMES.update({
    "records": "Records", "repeats_min": "Fewest repeats of an item", "repeats_max": "Most repeats of an item",
    "completed": "Records without an error", "error": "Records that ended with an error",
    "annotators": "Annotators", "labels": "Labels", "scored:*": "Records scored by {m}",
    "unscored:*": "Records left unscored by {m}", "total:*": "Total {m}",
})



# slices
_NAMES.update({
    "baseline_mean": "Baseline mean", "candidate_mean": "Candidate mean", "p": "p (the adjusted test)",
    "se": "Standard error of the difference", "tested": "Tested",
    "fcr_ci": "Difference, false-coverage-rate adjusted interval", "shrunk_diff": "Shrunken difference",
    "tested_slices": "Slices tested (m)", "called_out": "Slices called out (R)",
    "fcr_level": "Level of the false-coverage-rate intervals", "q": "Cochran's Q", "q_df": "Cochran's Q: df",
    "q_p": "Cochran's Q: p", "i2": "I²", "tau2": "Between-slice variance tau²",
    "re_diff": "Random-effects pooled difference", "clean_diff": "Difference on the clean items",
    "contaminated_diff": "Difference on the contaminated items", "slices_searched": "Slices searched",
    "search_diff": "Difference on the search half", "holdout_diff": "Difference on the hold-out half",
    "holdout_p": "Hold-out half: p", "holdout_p_adjusted": "Hold-out half: adjusted p",
    "slice": "Slice", "by": "Slice column", "status": "Status", "fcr_low": "FCR interval low",
    "fcr_high": "FCR interval high", "pooled": "Slices pooled (k)", "fe_diff": "Fixed-effect pooled difference",
    "re_low": "Random-effects 95% CI low", "re_high": "Random-effects 95% CI high",
    "search_items": "Items (search half)", "holdout_items": "Items (hold-out half)", "rank": "Rank",
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
        # a statistic of a metric names the metric as a reader does; a criterion or a tool is
        # named as written, in quotes
        return _NAMES[f"{prefix}:*"].format(m=display_name(rest) if prefix in ("t", "effect_size")
                                            else f"'{rest}'")
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



#: an Aggregation record of a measure in its own unit (``kind`` score): means, not rates
_MEAN_NAMES = {"rate": "Mean", "micro": "Mean over every row", "macro": "Mean of the group means",
               "pooled_ratio": "Mean over every row", "mean_of_ratios": "Mean of the units' means"}


def record_name(rec: dict) -> str:
    """A record's name as a reader reads it: :func:`display_name`, except that an Aggregation
    record of a measure (its ``kind`` a score) is a mean, not a rate."""
    metric = str(rec.get("metric"))
    if rec.get("kind") == "score" and metric in _MEAN_NAMES:
        return _MEAN_NAMES[metric]
    return display_name(metric)


def registry_names() -> dict[str, str]:
    """Every registered metric (``ndcg@K``...) with its display name (for tooltips and tests)."""
    from ...metrics.registry import METRICS

    return {name: display_name(name.replace("@K", "@k").replace("^K", "^k")) for name in METRICS}
