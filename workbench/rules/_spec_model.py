"""What a release rule is once read: its conditions' kinds, metrics, thresholds and keys, the
:class:`Rule` and :class:`Condition` it becomes, and the formatting the card shares.  The file
format and its parser are in :mod:`workbench.rules.spec`."""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field
from typing import Any

from ..core import numbers
from ..core.errors import WorkbenchError

FORMAT = 1

#: condition kinds
PAIRED, RANKING, COST, LATENCY, JUDGE = "paired", "ranking", "cost", "latency", "judge"
SLICES = "slices"
#: the slice condition's metric
SLICE_METRIC = "slice_regression"

RANKING_AT = ("ndcg", "p", "r", "hit", "mrr")
RANKING_PLAIN = ("mrr", "map")
COST_METRICS = ("cost_per_success", "cost_per_request")
#: judge conditions: the metric -> the Judge analysis's record
JUDGE_METRICS = {"judge_kappa": "kappa", "judge_ac1": "ac1", "judge_agreement": "agreement"}
KNOWN_METRICS_TEXT = ("success, ndcg@K, p@K, r@K, hit@K, mrr@K, mrr, map, cost_per_success, "
                      "cost_per_request, latency_pQ (e.g. latency_p95), steps_per_success, "
                      "tool_calls_per_success, tokens_per_success, steps_pQ, tool_calls_pQ, tokens_pQ "
                      "(e.g. tool_calls_p50), judge_kappa, judge_ac1, judge_agreement, slice_regression")

THRESHOLDS = {
    PAIRED: ("max_drop", "min_gain"),
    RANKING: ("max_drop", "min_gain"),
    COST: ("max_increase", "max"),
    LATENCY: ("max", "max_increase"),
    JUDGE: ("min",),
    SLICES: ("max_loss",),
}
TESTS = {
    PAIRED: ("sign", "mcnemar", "mcnemar_cc", "none"),
    RANKING: ("sign", "t", "randomization", "wilcoxon", "none"),
    COST: ("none",),
    LATENCY: ("none",),
    JUDGE: ("none",),
    SLICES: ("none",),
}
INTERVALS = {
    PAIRED: ("bootstrap", "normal"),
    RANKING: ("bootstrap", "normal"),
    COST: ("bootstrap",),
    LATENCY: ("bootstrap",),
    JUDGE: ("normal",),
    SLICES: ("fcr",),
}
TEST_NAMES = {"sign": "exact sign test", "mcnemar": "McNemar chi-square",
              "mcnemar_cc": "McNemar chi-square (continuity corrected)",
              "t": "paired t-test", "randomization": "randomization (sign-flip) test",
              "wilcoxon": "Wilcoxon signed-rank test", "none": "no test"}

RULE_KEYS = ("name", "baseline", "candidate", "alpha", "multiplicity", "registered",
             "description", "format", "scorer", "errors")
DATA_KEYS = ("item", "system", "outcome", "cost", "latency", "cluster", "query", "doc",
             "score", "rank", "relevance", "qrels", "judge", "human", "error", "steps", "tool_calls",
             "tokens")
COMMON_KEYS = ("metric", "input", "baseline", "candidate", "data", "bound", "note",
               "interval", "test", "resamples", "seed")
KIND_KEYS = {
    PAIRED: (),
    RANKING: ("gain", "ties", "no_relevant", "unjudged", "relevance_threshold"),
    COST: (),
    LATENCY: ("percentile_method",),
    JUDGE: ("min_items", "positive", "level"),
    SLICES: ("min_items", "by", "bins", "scores"),
}
ALL_THRESHOLD_KEYS = ("max_drop", "min_gain", "max_increase", "max", "min", "max_loss")
ALL_CONDITION_KEYS = (COMMON_KEYS + ALL_THRESHOLD_KEYS
                      + tuple(k for keys in KIND_KEYS.values() for k in keys))

DEFAULT_RESAMPLES = 10_000
DEFAULT_SEED = 12345
MAX_RESAMPLES = 1_000_000


class RuleError(WorkbenchError):
    """A release rule that cannot be used; the message names file, line, key and value."""


@dataclass(frozen=True)
class Condition:
    """One condition of a rule, validated; thresholds are stored as given."""

    index: int                      # 1-based position in the file
    metric: str
    kind: str
    threshold_key: str              # max_drop | min_gain | max | max_increase | min | max_loss
    threshold: float
    bound: str                      # lower | upper | point
    interval: str                   # bootstrap | normal
    test: str                       # see TESTS
    resamples: int
    seed: int
    baseline: str
    candidate: str
    data: dict[str, str] = field(default_factory=dict)   # [data] merged with the override
    input: int | None = None        # 1-based, or None = found by columns
    k: int | None = None            # ranking cut-off
    percentile: float | None = None  # latency percentile
    options: dict[str, Any] = field(default_factory=dict)  # gain, ties, ... percentile_method
    note: str | None = None

    @property
    def relative(self) -> bool:
        """True when the condition compares the candidate with the baseline."""
        return self.threshold_key not in ("max", "min")

    @property
    def paired(self) -> bool:
        return self.kind in (PAIRED, RANKING)

    @property
    def is_rate(self) -> bool:
        """Values are fractions shown in percentage points (success, p@K, r@K, hit@K)."""
        if self.kind == SLICES:
            return self.options.get("scores", "binary") != "continuous"
        return self.kind == PAIRED or (self.kind == RANKING and self.metric.split("@")[0] in ("p", "r", "hit"))

    @property
    def limit(self) -> float:
        """The signed limit the observed value is held against."""
        return -self.threshold if self.threshold_key in ("max_drop", "max_loss") else self.threshold

    @property
    def unit(self) -> str:
        """How values are shown: rate_diff (points), score_diff, relative (percent), value."""
        if self.kind in (PAIRED, RANKING, SLICES):
            return "rate_diff" if self.is_rate else "score_diff"
        return "relative" if self.threshold_key == "max_increase" else "value"

    def describe(self) -> str:
        """The condition as a sentence: ``success must not drop by more than 1 point``."""
        t = self.threshold
        amount = format_amount(t, self.unit)
        if self.threshold_key == "max_drop":
            what = "must not drop at all" if t == 0 else f"must not drop by more than {amount}"
        elif self.threshold_key == "min_gain":
            what = "must improve" if t == 0 else f"must improve by more than {amount}"
        elif self.threshold_key == "max_increase":
            what = "must not rise at all" if t == 0 else f"must not rise by more than {amount}"
        elif self.threshold_key == "max_loss":
            items = int(self.options.get("min_items", 20))
            by = self.options.get("by")
            return (f"{self.metric}: no slice{f' of {by}' if by else ''} with at least {items:,} items may lose "
                    f"more than {amount}")
        elif self.threshold_key == "min":
            items = int(self.options.get("min_items", 1))
            what = f"must be at least {t:g}" + (f" on at least {items:,} labelled items" if items > 1 else "")
        else:
            what = f"must stay at or below {t:g}"
        return f"{self.metric} {what}"

    def requirement(self) -> str:
        """What must hold for PASS, e.g. ``lower bound ≥ -1.0 pts`` (the mathematical signs, as
        every sentence of the workbench writes them)."""
        if self.kind == SLICES:
            lim = format_value(self.limit, self.unit, metric=self.metric)
            if self.bound == "point":
                return f"no slice's difference < {lim}"
            return f"no slice with difference < {lim} and the upper bound of its adjusted interval < 0"
        side = {"lower": "lower bound", "upper": "upper bound", "point": "observed"}[self.bound]
        op = {"max_drop": "≥", "min_gain": ">", "max_increase": "≤", "max": "≤", "min": "≥"}[self.threshold_key]
        extra = ""
        if self.threshold_key == "min_gain" and self.test != "none" and self.bound != "point":
            extra = f" and {TEST_NAMES[self.test]} significant"
        if self.kind == JUDGE and int(self.options.get("min_items", 1)) > 1:
            extra = f" on >= {int(self.options['min_items']):,} labelled items"
        return f"{side} {op} {format_value(self.limit, self.unit, metric=self.metric)}{extra}"


@dataclass(frozen=True)
class Rule:
    """A parsed, validated release rule."""

    text: str
    sha256: str
    source: str                    # the file path, or a name such as "<rule>"
    name: str
    baseline: str
    candidate: str
    alpha: float
    multiplicity: str
    conditions: tuple[Condition, ...]
    data: dict[str, str] = field(default_factory=dict)
    registered: str | None = None
    description: str | None = None
    base_dir: str | None = None    # folder of the rule file (for relative qrels paths)
    #: the reading of a tool's log the rule is judged on: its scorer (None: the tool's primary
    #: one) and its errored records ('exclude': left out and counted; 'fail'); the command
    #: line's --scorer / --errors override them, with a note
    scorer: str | None = None
    errors: str | None = None

    @property
    def file_name(self) -> str:
        return os.path.basename(self.source)

    def describe(self) -> list[str]:
        """One sentence per condition, for a pre-registration view."""
        return [f"{c.index}. {c.describe()} ({c.requirement()})" for c in self.conditions]


#: an agent's effort: steps, tool calls or tokens per success (total over every request /
#: successes), or their Q-th percentile per request
_EFFORT = re.compile(r"^(steps|tool_calls|tokens)_(per_success|p(\d+(?:\.\d+)?))$")


def effort_measure(cond: Condition) -> str | None:
    """``steps``, ``tool_calls`` or ``tokens`` for an effort condition (``steps_per_success``,
    ``tool_calls_p50``...): the column that stands where cost or latency do; else None."""
    m = _EFFORT.match(cond.metric)
    return m.group(1) if m else None


# --- formatting helpers shared with the card ----------------------------------------------------

def format_amount(value: float, unit: str) -> str:
    """An unsigned amount: ``1 point``, ``2.5 points``, ``10%``, ``0.01``."""
    if unit == "rate_diff":
        pts = value * 100
        return f"{pts:g} point" + ("" if pts == 1 else "s")
    if unit == "relative":
        return f"{value * 100:g}%"
    return f"{value:g}"


def kind_of_unit(unit: str, metric: str | None = None, *, signed: bool = True) -> str:
    """The number kind (:mod:`workbench.core.numbers`) of a condition's values: a difference of
    rates is ``points`` (``margin`` unsigned), a relative change ``relative``, a difference of
    scores ``score_diff`` (``score`` unsigned); an absolute value takes its metric's kind."""
    kind = numbers.gate_kind(unit, metric or "")
    if not signed:
        kind = {"points": "margin", "score_diff": "score"}.get(kind, kind)
    return kind


def _missing(value) -> bool:
    return value is None or not isinstance(value, (int, float)) or not math.isfinite(value)


def format_value(value: float | None, unit: str, *, signed: bool = True, metric: str | None = None) -> str:
    """A value in its unit under the number-format policy: ``+4.5 pts``, ``+8.0%``, ``+0.012``,
    ``0.0146``; ``-`` if missing."""
    if _missing(value):
        return "-"
    text = numbers.format_value(value, kind_of_unit(unit, metric, signed=signed))
    return text.lstrip("+") if not signed else text


def format_interval(low: float | None, high: float | None, unit: str, *, metric: str | None = None) -> str:
    """``+0.5 to +9.0 pts``, ``-2.0% to +12.1%``, ``2.100 to 2.600``; ``-`` if missing."""
    if _missing(low) or _missing(high):
        return "-"
    return numbers.format_interval(low, high, kind_of_unit(unit, metric))
