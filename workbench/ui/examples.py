"""The examples on the start page: the reference's worked cases as data files, and example
sessions that reopen some of them with their analyses' options (and a registered rule)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..resources_path import examples_dir


@dataclass(frozen=True)
class Example:
    title: str
    file: str
    panel: str
    description: str
    #: a saved session (``*.wbsession.json``) rather than a data file
    is_session: bool = False

    @property
    def path(self) -> Path:
        return examples_dir() / self.file


EXAMPLES: tuple[Example, ...] = (
    Example("The 14-to-5 paired split", "paired_14_to_5.csv", "compare",
            "Candidate +4.5 pts (normal 95% CI +0.3 to +8.7) on 200 items: borderline; 14 wins, 5 "
            "losses, and the three tests disagree."),
    Example("Ranking [R, N, R, N, N]", "ranking_seed.csv", "ranking",
            "nDCG@10 = 0.684 and MRR 0.611 over 3 queries (first hits at ranks 1, 3 and 2): anecdotes, "
            "not estimates."),
    Example("Graded relevance [2, 3, 0]", "ranking_graded.csv", "ranking",
            "nDCG@10 = 0.913 with linear gain; exponential gain gives 0.834: say which one you used."),
    Example("n = 10 attempts, c = 3 passes", "passk_counts.csv", "passk",
            "pass@10 = 1.000 but pass^3 = 0.008: not reliable (unbiased pass@1 0.300, pass@5 0.917)."),
    Example("900 English + 100 Hindi items", "multilingual.csv", "aggregate",
            "Micro 87.0% hides the 30-point gap (Hindi 60.0%, English 90.0%) that macro 75.0% shows."),
    Example("Simpson's paradox", "simpson.csv", "aggregate",
            "Simpson's paradox: new is better in every segment and worse overall (33.0% against 66.0%): "
            "the eval mix changed."),
    Example("Claims per conversation", "claims.csv", "aggregate",
            "Pooled ratio 27.3% against a mean of ratios of 60.0%: say which one the question needs."),
    Example("Cost and latency", "cost_latency.csv", "cost",
            "A: 0.0146 per success; B buys 4.0 pts for 0.475 per extra success; C is dominated."),
    Example("Refund-window extraction", "text_extraction.csv", "text",
            "Exact match 40.0% of 5 items, token F1 0.679: partial answers get partial credit."),
    Example("A judge against people", "judge_labels.csv", "judge",
            "Kappa 0.676 (0.532 to 0.820) on the 105 labelled items; the judge's 35.0% pass rate is 33.0% "
            "corrected for its errors."),
    Example("A rubric of four criteria", "rubric_answers.csv", "rubric",
            "v2 scores +5.4 pts over v1, mostly from 'cites_source'."),
    Example("Six nightly runs", "runs_nightly.csv", "runs",
            "The last night +13.3 pts over the first on 150 items: 38 items gained, 18 lost."),
    Example("Five epochs of two models", "repeats_epochs.csv", "repeats",
            "68 of 120 items flip across epochs; the model's own randomness is 55.0% of one try's variance."),
    Example("Wins overall, loses on Hindi", "slices_languages.csv", "slices",
            "Candidate +4.1 pts overall on 2,000 items, but -9.0 pts on the 210 Hindi items (FCR-adjusted "
            "95% CI -15.0 to -3.1); the effect differs across languages."),
)

#: Sessions written by resources/examples/generate.py: the same data with saved options.
EXAMPLE_SESSIONS: tuple[Example, ...] = (
    Example("Session: 14-to-5 with its release rule", "paired_14_to_5.wbsession.json", "rule",
            "PASS: success +4.5 pts (bootstrap 95% CI +0.5 to +9.0) under the rule \"no drop beyond 1 "
            "point\", registered before the results; clusters by conversation.", is_session=True),
    Example("Session: graded relevance, exponential gain", "ranking_graded.wbsession.json",
            "ranking", "nDCG@3 = 0.834 with gain 2^grade - 1, saved as the session's convention.",
            is_session=True),
    Example("Session: cost and latency, nearest-rank", "cost_latency.wbsession.json", "cost",
            "A: 0.0146 per success; latency percentiles by the nearest-rank method instead of linear "
            "interpolation.",
            is_session=True),
)
