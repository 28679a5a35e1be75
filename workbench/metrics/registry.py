"""Every headline metric the workbench reports, with its range, direction and formula.

The registry drives the property tests (range, order invariance), the GUI's tooltips and
the report's column notes, so a metric is described once.  ``@K`` in a name stands for the
cut-off.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class MetricSpec:
    name: str
    analysis: str
    formula: str
    lower: float | None = 0.0
    upper: float | None = 1.0
    higher_is_better: bool | None = True
    #: shown as a percent (a share of items); otherwise as a decimal (a score, a probability)
    is_rate: bool = True


def _m(name, analysis, formula, lower=0.0, upper=1.0, better=True, rate=True) -> MetricSpec:
    return MetricSpec(name, analysis, formula, lower, upper, better, rate)


METRICS: dict[str, MetricSpec] = {m.name: m for m in (
    _m("exact_match", "text", "share of items whose normalised prediction equals the normalised reference"),
    _m("token_f1", "text", "mean over items of 2PR/(P+R) on the bags of normalised tokens (SQuAD v2)", rate=False),
    _m("bleu", "text", "sacrebleu corpus BLEU: brevity penalty x geometric mean of 1-4-gram precisions",
       0.0, 100.0, rate=False),
    _m("chrf", "text", "sacrebleu corpus chrF: character 6-gram F-beta (beta 2)", 0.0, 100.0, rate=False),
    _m("rouge1", "text", "mean ROUGE-1 F (unigram overlap; rouge-score)", rate=False),
    _m("rouge2", "text", "mean ROUGE-2 F (bigram overlap; rouge-score)", rate=False),
    _m("rougeL", "text", "mean ROUGE-L F (longest common subsequence; rouge-score)", rate=False),
    _m("p@K", "ranking", "relevant documents in the top K / K", rate=False),
    _m("r@K", "ranking", "relevant documents in the top K / all relevant documents of the query", rate=False),
    _m("hit@K", "ranking", "1 if a relevant document is in the top K, else 0", rate=False),
    _m("ndcg@K", "ranking", "DCG@K / ideal DCG@K; DCG = sum gain(rel_i) / log2(i + 1)", rate=False),
    _m("mrr@K", "ranking", "mean of 1 / rank of the first relevant document when it is in the top K "
       "(else 0; MS MARCO's MRR@10)", rate=False),
    _m("mrr", "ranking", "mean of 1 / rank of the first relevant document (0 if none)", rate=False),
    _m("map", "ranking", "mean of (sum of precision at each relevant document's rank) / relevant documents", rate=False),
    _m("pass@K", "passk", "mean over tasks of 1 - C(n-c, K) / C(n, K)", rate=False),
    _m("pass^K", "passk", "mean over tasks of C(c, K) / C(n, K)", rate=False),
    _m("naive_pass@K", "passk", "mean over tasks of 1 - (1 - c/n)^K (plug-in, biased low)", rate=False),
    _m("naive_pass^K", "passk", "mean over tasks of (c/n)^K (plug-in, biased high)", rate=False),
    _m("per_try_p@K", "passk", "p with 1 - (1 - p)^K = pass@K (independent attempts)", rate=False),
    _m("micro", "aggregate", "sum of successes / sum of items"),
    _m("macro", "aggregate", "mean over groups of the group rate"),
    _m("rate", "aggregate", "successes / items"),
    _m("pooled_ratio", "aggregate", "sum of numerators / sum of denominators", None, None, None),
    _m("mean_of_ratios", "aggregate", "mean over units of numerator / denominator", None, None, None),
    _m("simpson", "aggregate", "one version better in every segment and worse overall", None, None, None,
       rate=False),
    _m("wins", "compare", "items the candidate passes and the baseline fails (b)", 0.0, None, rate=False),
    _m("losses", "compare", "items the baseline passes and the candidate fails (c)", 0.0, None, False,
       rate=False),
    _m("ties", "compare", "items both pass or both fail", 0.0, None, None, rate=False),
    _m("diff", "compare", "(b - c) / n", -1.0, 1.0),
    _m("sign_test_p", "compare", "exact two-sided binomial test of b out of b + c at 1/2", better=False,
       rate=False),
    _m("sign_test_midp", "compare", "exact p minus the probability of the observed split", better=False,
       rate=False),
    _m("mcnemar_chi2", "compare", "(b - c)^2 / (b + c)", 0.0, None, None, rate=False),
    _m("mcnemar_p", "compare", "chi-square(1) tail of the McNemar statistic", better=False, rate=False),
    _m("mcnemar_cc_chi2", "compare", "max(0, |b - c| - 1)^2 / (b + c)", 0.0, None, None, rate=False),
    _m("mcnemar_cc_p", "compare", "chi-square(1) tail of the corrected statistic", better=False, rate=False),
    _m("normal_ci", "compare", "(b - c)/n +- z sqrt(b + c - (b - c)^2/n) / n", -1.0, 1.0),
    _m("score_ci", "compare", "Tango's score interval of (b - c)/n (the d0 whose score test is not rejected)",
       -1.0, 1.0),
    _m("bootstrap_ci", "compare", "percentiles 2.5 and 97.5 of the resampled difference", -1.0, 1.0),
    _m("mde", "compare", "2.8 x sqrt(d / n), d = discordant fraction", 0.0, None, False),
    # paired comparison of per-item scores (continuous family; workbench.analyses.paired)
    _m("mean_score", "compare", "mean of the system's per-item scores over the paired items", None, None,
       rate=False),
    _m("improved", "compare", "items where the candidate scores higher than the baseline", 0.0, None,
       rate=False),
    _m("worse", "compare", "items where the candidate scores lower than the baseline", 0.0, None, False,
       rate=False),
    _m("tied", "compare", "items where both score the same", 0.0, None, None, rate=False),
    _m("mean_diff", "compare", "mean of candidate - baseline; 95% paired t interval", None, None, rate=False),
    _m("t_test_p", "compare", "paired t-test, two-sided", better=False, rate=False),
    _m("t", "compare", "paired t statistic: mean(d) / (SD(d) / sqrt(n)), df = n - 1", None, None, None,
       rate=False),
    _m("wilcoxon_p", "compare", "Wilcoxon signed-rank test, two-sided (zero differences dropped)",
       better=False, rate=False),
    _m("randomization_p", "compare", "sign-flip randomization test of the mean difference, two-sided",
       better=False, rate=False),
    _m("bootstrap_pct_ci", "compare", "percentiles 2.5 and 97.5 of the paired bootstrap mean difference",
       None, None, rate=False),
    _m("bootstrap_bca_ci", "compare", "BCa 95% interval of the paired bootstrap mean difference", None, None,
       rate=False),
    _m("effect_size", "compare", "mean difference / SD of the differences (Cohen's d_z)", None, None,
       rate=False),
    _m("mde_score", "compare", "2.8 x SD of the differences / sqrt(n)", 0.0, None, False, rate=False),
    _m("p_adjusted", "compare", "p-value corrected for the comparisons of its family (Holm or Bonferroni)",
       better=False, rate=False),
    _m("tukey_hsd_p", "compare", "Tukey's HSD over all systems (studentized range; scores as independent "
       "samples, as ranx)", better=False, rate=False),
    _m("beats_baseline", "compare", "adjusted p < 0.05 and a better mean than the baseline", None, None,
       None, rate=False),
    # "Systems compared" in ranking / text / cost: KIND:METRIC (e.g. diff:ndcg@10)
    _m("diff:*", "paired", "candidate - baseline over the common units; 95% paired bootstrap interval",
       None, None, None, rate=False),
    _m("t_test_p:*", "paired", "paired t-test over the common units", better=False, rate=False),
    _m("t:*", "paired", "paired t statistic over the common units, df = n - 1", None, None, None, rate=False),
    _m("effect_size:*", "paired", "mean difference / SD of the differences (Cohen's d_z)", None, None, None,
       rate=False),
    _m("wilcoxon_p:*", "paired", "Wilcoxon signed-rank test over the common units", better=False, rate=False),
    _m("randomization_p:*", "paired", "sign-flip randomization test over the common units", better=False,
       rate=False),
    _m("p_adjusted:*", "paired", "p (randomization, or paired bootstrap for corpus scores) corrected across "
       "the system pairs", better=False, rate=False),
    _m("paired_bs_p:*", "paired", "sacrebleu's paired bootstrap test of a corpus score", better=False,
       rate=False),
    _m("paired_ar_p:*", "paired", "sacrebleu's approximate randomization test of a corpus score",
       better=False, rate=False),
    _m("success_rate", "cost", "successes / requests (Wilson 95% interval)"),
    _m("cost_per_request", "cost", "total cost / requests", 0.0, None, False, rate=False),
    _m("cost_per_success", "cost", "total cost / successes", 0.0, None, False, rate=False),
    _m("latency_p50", "cost", "median latency", 0.0, None, False, rate=False),
    _m("latency_p95", "cost", "95th percentile latency", 0.0, None, False, rate=False),
    _m("latency_p99", "cost", "99th percentile latency", 0.0, None, False, rate=False),
    _m("marginal_cost_per_success", "cost", "extra cost per request / extra success rate", 0.0, None, False,
       rate=False),
    _m("dominated", "cost", "dearer and succeeds no more often", None, None, None, rate=False),
    _m("cost_per_success_ratio", "cost", "the 'to' system's cost per success / the 'from' system's", 0.0, None,
       None, rate=False),
    _m("spend:*", "cost", "a usage column (cost, tokens, steps, calls) summed over every request, errored "
       "ones included", 0.0, None, None, rate=False),
    _m("limited:*", "cost", "requests that hit a limit of this kind (message, token, time)", 0.0, None, None,
       rate=False),
    _m("ci_half_width", "plan", "z sqrt(r (1 - r) / n)", 0.0, None, False),
    _m("wilson_ci", "plan", "Wilson score interval of a rate"),
    _m("per_try_p", "plan", "1 - (1 - pass@k)^(1/k)", rate=False),
    _m("items_needed", "plan", "d (2.8 / difference)^2", 0.0, None, None, rate=False),
)}


def spec_for(metric: str) -> MetricSpec:
    """The spec of a reported metric name, ``ndcg@10`` -> ``ndcg@K``; KeyError if unknown."""
    if metric in METRICS:
        return METRICS[metric]
    if ":" in metric:  # a paired statistic of another metric: diff:ndcg@10, randomization_p:bleu
        kind = metric.partition(":")[0]
        if f"{kind}:*" in METRICS:
            return METRICS[f"{kind}:*"]
    if "@" in metric or "^" in metric:
        sep = "@" if "@" in metric else "^"
        head, _, tail = metric.rpartition(sep)
        if tail.isdigit():
            return METRICS[f"{head}{sep}K"]
    raise KeyError(metric)
