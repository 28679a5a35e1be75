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
            "200 items: the candidate wins 14, loses 5, ties 181. Three tests, three answers."),
    Example("Ranking [R, N, R, N, N]", "ranking_seed.csv", "ranking",
            "nDCG@3 = 0.92 for the first query; MRR 0.611 for first hits at ranks 1, 3 and 2."),
    Example("Graded relevance [2, 3, 0]", "ranking_graded.csv", "ranking",
            "Linear gain gives nDCG 0.913, exponential 0.834: say which one you used."),
    Example("n = 10 attempts, c = 3 passes", "passk_counts.csv", "passk",
            "Unbiased pass@1 0.30, pass@3 0.708, pass@5 0.917, pass^3 0.008."),
    Example("900 English + 100 Hindi items", "multilingual.csv", "aggregate",
            "Micro 87% hides a 30-point gap that macro 75% shows."),
    Example("Simpson's paradox", "simpson.csv", "aggregate",
            "The new version wins every segment and halves overall: the eval mix changed."),
    Example("Claims per conversation", "claims.csv", "aggregate",
            "Mean of ratios 60% against pooled 27%."),
    Example("Cost and latency", "cost_latency.csv", "cost",
            "Cost per success 0.0146; 0.475 per extra success from A to B; C is dominated."),
    Example("Refund-window extraction", "text_extraction.csv", "text",
            "Token F1 0.667 where exact match is 0."),
)

#: Sessions written by resources/examples/generate.py: the same data with saved options.
EXAMPLE_SESSIONS: tuple[Example, ...] = (
    Example("Session: 14-to-5 with its release rule", "paired_14_to_5.wbsession.json", "rule",
            "The rule \"no drop beyond 1 point\" registered before the results; clusters by "
            "conversation.", is_session=True),
    Example("Session: graded relevance, exponential gain", "ranking_graded.wbsession.json",
            "ranking", "nDCG@3 with gain 2^grade - 1 saved as the session's convention.",
            is_session=True),
    Example("Session: cost and latency, nearest-rank", "cost_latency.wbsession.json", "cost",
            "Percentiles by the nearest-rank method instead of linear interpolation.",
            is_session=True),
)
