"""Release rules: the TOML file format, its parser and its validation.

A release rule is written down *before* the results are seen (the seed's "set the bar before
the run").  It is a small TOML file read with the standard library's :mod:`tomllib`; nothing
in it is ever evaluated as code.  Every problem is a :class:`RuleError` whose message is one
sentence naming the file, the line where it can be found, the section, the key and the bad
value.

The format
==========

.. code-block:: toml

    [rule]
    name = "answer pipeline v2 release"   # optional (default: the file name)
    baseline = "v1"          # required: a system name (long form) or a column name (wide form)
    candidate = "v2"         # required
    alpha = 0.05             # optional: tests at alpha, intervals at 1 - alpha (default 0.05)
    multiplicity = "holm"    # optional: "holm" (default) or "none"
    registered = "2026-10-01, before the run"   # optional, free text shown on the card
    description = "..."      # optional, free text
    format = 1               # optional: the rule format version (1, the only one so far)

    [data]                   # optional: column names (guessed from common names when left out)
    item = "item_id"         # item id: pairs the two systems' outcomes
    system = "system"        # long form: which system a row belongs to
    outcome = "success"      # 0/1 outcome (success conditions, and cost per success)
    cost = "cost"            # cost per request
    latency = "latency_s"    # latency per request
    cluster = "conversation" # optional: the bootstrap of success conditions resamples clusters
    query = "query"          # ranking runs: query, doc, score (or rank), relevance
    doc = "doc"
    score = "score"
    rank = "rank"
    relevance = "relevance"
    qrels = "qrels.csv"      # judgments file, relative to the rule file's folder

    [[condition]]            # one table per condition, at least one
    metric = "success"       # what is judged (see below)
    max_drop = 0.01          # the threshold (exactly one per condition, see below)
    bound = "lower"          # optional: the side of the interval that must clear it, or "point"
    interval = "bootstrap"   # "bootstrap" (default) or "normal"
    test = "sign"            # "sign" (default), "mcnemar", "mcnemar_cc" or "none"
    resamples = 10000        # bootstrap resamples (default 10000)
    seed = 12345             # bootstrap seed (default 12345)
    input = 1                # optional: which INPUT file (1 = the first); else found by columns
    baseline = "bm25"        # optional: this condition's own baseline / candidate
    candidate = "dense"
    data = { system = "run" }  # optional: this condition's own column names
    note = "why this bar"    # optional, free text shown on the card

Metrics and thresholds
----------------------

==========================================  ==========================  ==================================
``metric``                                  thresholds                  observed value
==========================================  ==========================  ==================================
``success``                                 ``max_drop``, ``min_gain``  paired difference of success rates
                                                                        (candidate - baseline), a fraction
``ndcg@K``, ``p@K``, ``r@K``, ``hit@K``,    ``max_drop``, ``min_gain``  paired difference of the per-query
``mrr@K``, ``mrr``, ``map``                                             means (candidate - baseline)
``cost_per_success``, ``cost_per_request``  ``max_increase``, ``max``   relative change (candidate /
                                                                        baseline - 1), or the candidate's
                                                                        own value with ``max``
``latency_pQ`` (e.g. ``latency_p95``)       ``max``, ``max_increase``   the candidate's Q-th percentile,
                                                                        or its relative change
``steps_per_success``,                      ``max``, ``max_increase``   an agent's effort: total steps (tool
``tool_calls_per_success``,                                             calls, tokens) over every request /
``tokens_per_success``                                                  successes
``steps_pQ``, ``tool_calls_pQ``,            ``max``, ``max_increase``   the Q-th percentile of the effort
``tokens_pQ`` (e.g. ``tool_calls_p50``)                                 per request
``judge_kappa``, ``judge_ac1``,             ``min`` (with ``min_items``) the judge's agreement with people
``judge_agreement``                                                     (Cohen's kappa, Gwet's AC1 or the
                                                                        raw share) on the labelled items
``slice_regression``                        ``max_loss`` (with          the worst slice's paired difference
                                            ``min_items``, ``by``)      (candidate - baseline) among the
                                                                        slices of ``by`` with at least
                                                                        ``min_items`` items
==========================================  ==========================  ==================================

* A slice condition (``slice_regression``) runs the Slices analysis on the condition's data
  (``by``: the slice column or columns, comma-separated; default the file's group column;
  ``bins`` cuts a numeric one in quantile bins; ``scores = "continuous"`` for scores, else 0/1
  outcomes) and FAILS the candidate when any slice of at least ``min_items`` items (default 20)
  loses more than ``max_loss`` (in the metric's unit: a fraction for rates, 0.05 is 5 points)
  with the upper bound of its adjusted interval below zero: the false-coverage-rate interval
  (Benjamini and Yekutieli 2005, at the rule's alpha as q) of a slice called out by the
  Holm-adjusted test over the slices; the card names the slice.  ``bound = "point"`` judges the
  slices' differences alone.  No slice of ``min_items`` items that can be tested is
  INCONCLUSIVE; otherwise PASS.

* A judge condition is a requirement on the grader before its numbers are trusted ("kappa >=
  0.6 on at least 100 labelled items"): ``min`` is the least value (judged on the observed
  value, or on the lower bound of its interval with ``bound = "lower"``), ``min_items`` the
  least number of items that carry both the judge's and a person's label (default 1).  It
  reads the judge and human label columns (``[data] judge = "..."``, ``human = "..."``, else
  guessed) and takes ``positive`` and ``level`` as the Judge analysis.  When it is not met the
  condition is INCONCLUSIVE, never FAIL, and so is the rule's verdict, whatever the other
  conditions say: numbers from an untrusted judge decide nothing.

* ``max_drop`` and ``min_gain`` are in the metric's own unit: a fraction for rates
  (``0.01`` is one percentage point), nDCG units for ``ndcg@K``; both must be >= 0 and < 1.
* ``max_increase`` is relative (``0.10`` = 10 percent), ``max`` absolute in the file's unit;
  both >= 0.
* Tests: ``sign`` (exact two-sided sign test on the discordant items or the queries that
  differ), ``mcnemar`` and ``mcnemar_cc`` (``success`` only), ``t`` (paired t-test),
  ``randomization`` (sign-flip randomization test of the mean difference: exact up to 20
  non-zero differences, else 10,000 rounds seeded with the condition's ``seed``; the test
  recommended for per-query IR metrics) or ``wilcoxon`` (signed-rank, zero differences
  dropped) -- these three for ranking metrics only -- or ``none``.  Cost and latency conditions take no test; their interval is the
  bootstrap (paired by item when an item column is present).
* Ranking conditions also take ``gain``, ``ties``, ``no_relevant``, ``unjudged`` and
  ``relevance_threshold`` (the ranking analysis's conventions); latency conditions take
  ``percentile_method`` (``linear`` or ``nearest_rank``).
* ``bound`` defaults to the conservative side: ``lower`` for ``max_drop``/``min_gain`` and
  ``upper`` for ``max``/``max_increase``; ``point`` judges the point estimate alone (PASS or
  FAIL, never INCONCLUSIVE; not recommended).

How a condition finds its data
------------------------------

With one INPUT every condition reads it.  With several, a condition reads input ``input``
(1-based) if given; otherwise the inputs are checked for the columns the condition needs
(``success``: the rule's baseline and candidate columns, or item, system and outcome;
ranking metrics: query, doc, score or rank, system, and relevance unless ``qrels`` is
given; cost: system, outcome and cost; latency: latency) and the one input that has them is
used.  None or more than one is an error that asks for ``input = N``.
"""

from __future__ import annotations

import difflib
import math
import os
import re
import tomllib
from dataclasses import dataclass, field
from typing import Any

from ..core import numbers
from ..core.errors import WorkbenchError
from ..core.session import sha256_text

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
             "description", "format")
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

    @property
    def file_name(self) -> str:
        return os.path.basename(self.source)

    def describe(self) -> list[str]:
        """One sentence per condition, for a pre-registration view."""
        return [f"{c.index}. {c.describe()} ({c.requirement()})" for c in self.conditions]


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


# --- parsing --------------------------------------------------------------------------------------

def load_rule(path: str | os.PathLike[str]) -> Rule:
    """Read and validate the rule file at ``path``."""
    path = os.fspath(path)
    name = os.path.basename(path)
    try:
        with open(path, "rb") as fh:
            raw = fh.read()
    except FileNotFoundError:
        raise RuleError(f"Rule file '{path}' does not exist.") from None
    except IsADirectoryError:
        raise RuleError(f"Rule file '{path}' is a folder, not a file.") from None
    except OSError as err:
        raise RuleError(f"Rule file '{path}' cannot be read ({err.strerror or err}).") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise RuleError(f"Rule file '{name}' is not UTF-8 text (byte {err.start} cannot be "
                        f"decoded); save it as UTF-8.") from None
    return parse_rule(text, source=path, base_dir=os.path.dirname(os.path.abspath(path)))


def parse_rule(text: str, *, source: str = "<rule>", base_dir: str | None = None) -> Rule:
    """Parse and validate rule text; ``source`` names it in messages and on the card.

    The hash is the SHA-256 of ``text`` as given (UTF-8), the same as
    :func:`workbench.core.session.sha256_text` of the session's ``rule_text``.
    """
    return _Parser(text, source, base_dir).parse()


_TOML_POSITION = re.compile(r"\s*\(at line (\d+), column (\d+)\)\s*$")
_SECTION = re.compile(r"^\s*\[\s*([A-Za-z0-9_\-]+)\s*\]\s*(#.*)?$")
_ARRAY_SECTION = re.compile(r"^\s*\[\[\s*([A-Za-z0-9_\-]+)\s*\]\]\s*(#.*)?$")
_LATENCY = re.compile(r"^latency_p(\d+(?:\.\d+)?)$")
#: an agent's effort: steps, tool calls or tokens per success (total over every request /
#: successes), or their Q-th percentile per request
_EFFORT = re.compile(r"^(steps|tool_calls|tokens)_(per_success|p(\d+(?:\.\d+)?))$")
_RANKING = re.compile(r"^(ndcg|p|r|hit|mrr)@(\d+)$")


class _Parser:
    def __init__(self, text: str, source: str, base_dir: str | None) -> None:
        self.text = text
        self.source = source
        self.name = os.path.basename(source) if source else "<rule>"
        self.base_dir = base_dir

    # messages ------------------------------------------------------------------------------------
    def fail(self, place: str, problem: str, *, section: str | None = None, index: int | None = None,
             key: str | None = None) -> RuleError:
        line = self._line_of(section, index, key) if section else None
        where = f"Rule file '{self.name}'" + (f" line {line}" if line else "")
        return RuleError(f"{where}, {place}: {problem}.")

    def _line_of(self, section: str, index: int | None, key: str | None) -> int | None:
        """Best-effort line of ``key`` in ``[section]`` (or the index-th ``[[section]]``)."""
        current, count, start = None, 0, None
        key_re = re.compile(rf"^\s*(\"{re.escape(key)}\"|{re.escape(key)})\s*=") if key else None
        for no, line in enumerate(self.text.splitlines(), 1):
            m_arr = _ARRAY_SECTION.match(line)
            m_sec = None if m_arr else _SECTION.match(line)
            if m_arr or m_sec:
                name = (m_arr or m_sec).group(1)
                if m_arr and name == section:
                    count += 1
                    current = (name, count)
                else:
                    current = (name, None)
                if current == (section, index):
                    start = no
                    if key_re is None:
                        return no
                continue
            if current == (section, index) and key_re is not None and key_re.match(line):
                return no
        return start

    # parsing -------------------------------------------------------------------------------------
    def parse(self) -> Rule:
        text = self.text[1:] if self.text.startswith("\ufeff") else self.text
        try:
            doc = tomllib.loads(text)
        except tomllib.TOMLDecodeError as err:
            msg = str(err)
            m = _TOML_POSITION.search(msg)
            if m:
                msg = msg[:m.start()]
                raise RuleError(f"Rule file '{self.name}' is not valid TOML at line {m.group(1)}, "
                                f"column {m.group(2)}: {msg[:1].lower() + msg[1:]}.") from None
            raise RuleError(f"Rule file '{self.name}' is not valid TOML: {msg}.") from None

        unknown = [k for k in doc if k not in ("rule", "data", "condition")]
        if unknown:
            raise self.fail("top level", f"unknown section or key '{unknown[0]}'{self._suggest(unknown[0], ('rule', 'data', 'condition'))}; "
                            f"a rule has [rule], [data] and [[condition]] tables")
        rule = doc.get("rule")
        if rule is None:
            raise RuleError(f"Rule file '{self.name}' has no [rule] table; start it with [rule] "
                            f"and baseline = \"...\", candidate = \"...\".")
        if not isinstance(rule, dict):
            raise self.fail("top level", "'rule' must be a table ([rule])")
        self._unknown_keys(rule, RULE_KEYS, "[rule]", "rule", None)
        fmt = rule.get("format", FORMAT)
        if isinstance(fmt, bool) or not isinstance(fmt, int) or fmt != FORMAT:
            raise self.fail("[rule]", f"key 'format' must be {FORMAT} (the only rule format so far); "
                            f"got {_show(fmt)}", section="rule", key="format")
        name = self._text(rule, "name", "[rule]", "rule", None, required=False) or \
            os.path.splitext(self.name)[0]
        baseline = self._text(rule, "baseline", "[rule]", "rule", None, required=True,
                              hint="name the baseline system (or column), e.g. baseline = \"v1\"")
        candidate = self._text(rule, "candidate", "[rule]", "rule", None, required=True,
                               hint="name the candidate system (or column), e.g. candidate = \"v2\"")
        if baseline == candidate:
            raise self.fail("[rule]", f"keys 'baseline' and 'candidate' must differ; both are "
                            f"{_show(baseline)}", section="rule", key="candidate")
        alpha = self._number(rule, "alpha", "[rule]", "rule", None, default=0.05)
        if not 0 < alpha < 0.5:
            raise self.fail("[rule]", f"key 'alpha' must be between 0 and 0.5 (e.g. 0.05); got "
                            f"{_show(alpha)}", section="rule", key="alpha")
        multiplicity = self._choice(rule, "multiplicity", ("holm", "none"), "[rule]", "rule", None,
                                    default="holm")
        registered = self._text(rule, "registered", "[rule]", "rule", None, required=False)
        description = self._text(rule, "description", "[rule]", "rule", None, required=False)

        data = self._data(doc.get("data", {}), "[data]", "data", None)

        conds = doc.get("condition")
        if conds is None:
            raise RuleError(f"Rule file '{self.name}' has no [[condition]]; add at least one, e.g. "
                            f"[[condition]] metric = \"success\" max_drop = 0.01.")
        if not isinstance(conds, list) or not all(isinstance(c, dict) for c in conds):
            raise self.fail("top level", "'condition' must be written as [[condition]] tables")
        if not conds:
            raise RuleError(f"Rule file '{self.name}' has no [[condition]]; add at least one.")
        conditions = tuple(self._condition(c, i + 1, baseline, candidate, data)
                           for i, c in enumerate(conds))
        return Rule(text=self.text, sha256=sha256_text(self.text), source=self.source, name=name,
                    baseline=baseline, candidate=candidate, alpha=float(alpha),
                    multiplicity=multiplicity, conditions=conditions, data=data,
                    registered=registered, description=description, base_dir=self.base_dir)

    def _condition(self, c: dict, index: int, baseline: str, candidate: str,
                   data: dict[str, str]) -> Condition:
        sec = "condition"
        metric_raw = c.get("metric")
        place = f"[[condition]] {index}"
        if metric_raw is None:
            raise self.fail(place, f"key 'metric' is missing; name what is judged ({KNOWN_METRICS_TEXT})",
                            section=sec, index=index)
        if not isinstance(metric_raw, str):
            raise self.fail(place, f"key 'metric' must be text; got {_show(metric_raw)}",
                            section=sec, index=index, key="metric")
        metric = metric_raw.strip()
        kind, k, pct = self._metric(metric, place, index)
        place = f"[[condition]] {index} ({metric})"
        self._condition_keys(c, kind, metric, place, sec, index)
        tkey, threshold = self._threshold(c, kind, place, sec, index)
        bound, interval, test, resamples, seed = self._judged_on(c, kind, metric, tkey, place, sec, index)
        input_ = None
        if "input" in c:
            input_ = self._integer(c, "input", place, sec, index)
            if input_ < 1:
                raise self.fail(place, f"key 'input' is the position of an INPUT file, 1 for the "
                                f"first; got {_show(input_)}", section=sec, index=index, key="input")
        base = self._text(c, "baseline", place, sec, index, required=False) or baseline
        cand = self._text(c, "candidate", place, sec, index, required=False) or candidate
        if base == cand:
            raise self.fail(place, f"the baseline and candidate must differ; both are {_show(base)}",
                            section=sec, index=index, key="candidate")
        merged = dict(data)
        if "data" in c:
            merged.update(self._data(c["data"], place + " data", sec, index))
        note = self._text(c, "note", place, sec, index, required=False)

        options = self._kind_options(c, kind, place, sec, index)
        return Condition(index=index, metric=metric, kind=kind, threshold_key=tkey,
                         threshold=float(threshold), bound=bound, interval=interval, test=test,
                         resamples=resamples, seed=seed, baseline=base, candidate=cand, data=merged,
                         input=input_, k=k, percentile=pct, options=options, note=note)

    def _condition_keys(self, c: dict, kind: str, metric: str, place: str, sec: str, index: int) -> None:
        """Every key of the condition applies to its kind of metric."""
        allowed = COMMON_KEYS + THRESHOLDS[kind] + KIND_KEYS[kind]
        for key in c:
            if key in allowed:
                continue
            if key in ALL_CONDITION_KEYS:
                if key in ALL_THRESHOLD_KEYS:
                    why = (f"{numbers.article(metric)} condition takes {' or '.join(THRESHOLDS[kind])}, not "
                           f"'{key}'")
                else:
                    why = f"key '{key}' does not apply to {numbers.article(metric)} condition"
                raise self.fail(place, why, section=sec, index=index, key=key)
            raise self.fail(place, f"unknown key '{key}'{self._suggest(key, allowed)} (known keys: "
                            f"{', '.join(allowed)})", section=sec, index=index, key=key)

    def _threshold(self, c: dict, kind: str, place: str, sec: str, index: int) -> tuple[str, float]:
        """The condition's one threshold: (its key, its value)."""
        given = [t for t in THRESHOLDS[kind] if t in c]
        if not given:
            raise self.fail(place, f"no threshold; give one of {' or '.join(THRESHOLDS[kind])} "
                            f"(e.g. {THRESHOLDS[kind][0]} = {0.01 if kind in (PAIRED, RANKING) else 0.1})",
                            section=sec, index=index)
        if len(given) > 1:
            raise self.fail(place, f"keys {given[0]} and {given[1]} are both given; a condition "
                            f"takes one threshold (write two conditions for two bars)",
                            section=sec, index=index, key=given[1])
        tkey = given[0]
        threshold = self._number(c, tkey, place, sec, index)
        if threshold < 0:
            raise self.fail(place, f"key '{tkey}' must not be negative (it is an amount; the "
                            f"direction is in its name); got {_show(c[tkey])}",
                            section=sec, index=index, key=tkey)
        if kind == JUDGE and threshold > 1:
            raise self.fail(place, f"key 'min' is an agreement coefficient, at most 1 (e.g. min = 0.6); got "
                            f"{_show(c[tkey])}", section=sec, index=index, key=tkey)
        if kind in (PAIRED, RANKING) and threshold >= 1 or kind == SLICES and threshold >= 1 and \
                c.get("scores", "binary") != "continuous":
            raise self.fail(place, f"key '{tkey}' is a difference of fractions and must be below 1 "
                            f"(0.01 is one point); got {_show(c[tkey])}",
                            section=sec, index=index, key=tkey)
        return tkey, threshold

    def _judged_on(self, c: dict, kind: str, metric: str, tkey: str, place: str, sec: str, index: int):
        """How the condition is judged: (bound, interval, test, resamples, seed)."""
        conservative = "lower" if kind in (PAIRED, RANKING, JUDGE) else "upper"
        bound = self._choice(c, "bound", ("lower", "upper", "point"), place, sec, index,
                             default="point" if kind == JUDGE else conservative)
        if bound not in (conservative, "point"):
            raise self.fail(place, f"key 'bound' = {_show(bound)} does not fit {tkey}: it is judged on "
                            f"the {conservative} bound of the interval (or 'point', the observed value "
                            f"alone)", section=sec, index=index, key="bound")
        if kind in (COST, LATENCY, JUDGE):
            if c.get("test", "none") != "none":
                raise self.fail(place, f"key 'test' does not apply to {numbers.article(metric)} condition (it is judged "
                                f"on its bootstrap interval; tests are for success and ranking "
                                f"conditions); got {_show(c['test'])}", section=sec, index=index, key="test")
            if kind != JUDGE and c.get("interval", "bootstrap") != "bootstrap":
                raise self.fail(place, f"key 'interval' must be \"bootstrap\" for {numbers.article(metric)} condition "
                                f"(the only interval for it); got {_show(c['interval'])}",
                                section=sec, index=index, key="interval")
        interval = self._choice(c, "interval", INTERVALS[kind], place, sec, index,
                                default=INTERVALS[kind][0])
        test_default = "sign" if kind in (PAIRED, RANKING) else "none"
        test = self._choice(c, "test", TESTS[kind], place, sec, index, default=test_default)
        resamples = self._integer(c, "resamples", place, sec, index, default=DEFAULT_RESAMPLES)
        if not 1000 <= resamples <= MAX_RESAMPLES:
            raise self.fail(place, f"key 'resamples' must be between 1,000 and {MAX_RESAMPLES:,} "
                            f"(10000 is usual); got {_show(resamples)}",
                            section=sec, index=index, key="resamples")
        seed = self._integer(c, "seed", place, sec, index, default=DEFAULT_SEED)
        if seed < 0:
            raise self.fail(place, f"key 'seed' must be a whole number >= 0; got {_show(seed)}",
                            section=sec, index=index, key="seed")
        return bound, interval, test, resamples, seed

    def _kind_options(self, c: dict, kind: str, place: str, sec: str, index: int) -> dict[str, Any]:
        """The conventions of a ranking, judge or latency condition."""
        options: dict[str, Any] = {}
        if kind == RANKING:
            from ..analyses import ranking as rk
            from ..metrics.ranking import GAINS

            options["gain"] = self._choice(c, "gain", GAINS, place, sec, index, default="linear")
            options["ties"] = self._choice(c, "ties", rk.TIES, place, sec, index, default="trec_eval")
            options["no_relevant"] = self._choice(c, "no_relevant", rk.NO_RELEVANT, place, sec, index,
                                                  default="zero")
            options["unjudged"] = self._choice(c, "unjudged", rk.UNJUDGED, place, sec, index,
                                               default="skip")
            options["relevance_threshold"] = self._number(c, "relevance_threshold", place, sec, index,
                                                          default=1.0)
        if kind == JUDGE:
            items = self._integer(c, "min_items", place, sec, index, default=1)
            if items < 1:
                raise self.fail(place, f"key 'min_items' must be a whole number >= 1; got {_show(items)}",
                                section=sec, index=index, key="min_items")
            options["min_items"] = items
            positive = self._text(c, "positive", place, sec, index, required=False)
            if positive is not None:
                options["positive"] = positive
            options["level"] = self._choice(c, "level", ("auto", "nominal", "ordinal", "interval"), place, sec,
                                            index, default="auto")
        if kind == SLICES:
            items = self._integer(c, "min_items", place, sec, index, default=20)
            if items < 1:
                raise self.fail(place, f"key 'min_items' must be a whole number >= 1; got {_show(items)}",
                                section=sec, index=index, key="min_items")
            options["min_items"] = items
            by = self._text(c, "by", place, sec, index, required=False)
            if by is not None:
                options["by"] = by
            bins = self._integer(c, "bins", place, sec, index, default=0)
            if bins < 0 or bins == 1:
                raise self.fail(place, f"key 'bins' must be 0 (no bins) or at least 2; got {_show(bins)}",
                                section=sec, index=index, key="bins")
            options["bins"] = bins
            options["scores"] = self._choice(c, "scores", ("binary", "continuous"), place, sec, index,
                                             default="binary")
        if kind == LATENCY:
            from ..metrics.cost import PERCENTILE_METHODS

            options["percentile_method"] = self._choice(c, "percentile_method",
                                                        tuple(PERCENTILE_METHODS), place, sec, index,
                                                        default="linear")
        return options

    def _metric(self, metric: str, place: str, index: int):
        if metric == "success":
            return PAIRED, None, None
        if metric in RANKING_PLAIN:
            return RANKING, None, None
        m = _RANKING.match(metric)
        if m:
            k = int(m.group(2))
            if k < 1:
                raise self.fail(place, f"key 'metric' has cut-off {k} in {_show(metric)}; K must be >= 1",
                                section="condition", index=index, key="metric")
            return RANKING, k, None
        if metric in COST_METRICS:
            return COST, None, None
        m = _EFFORT.match(metric)  # steps_per_success (a cost of its own), steps_p50 (a percentile)
        if m and m.group(2) == "per_success":
            return COST, None, None
        if metric in JUDGE_METRICS:
            return JUDGE, None, None
        if metric == SLICE_METRIC:
            return SLICES, None, None
        q = m.group(3) if m else (_LATENCY.match(metric) or [None, None])[1]
        if q is not None:  # latency_p95, tool_calls_p50: a percentile
            if not 0 < float(q) < 100:
                raise self.fail(place, f"key 'metric' asks for percentile {float(q):g} in {_show(metric)}; "
                                f"it must be between 0 and 100", section="condition", index=index,
                                key="metric")
            return LATENCY, None, float(q)
        known = ["success", "ndcg@10", "p@10", "r@10", "hit@10", "mrr", "map", "cost_per_success",
                 "cost_per_request", "latency_p95", *JUDGE_METRICS, SLICE_METRIC]
        raise self.fail(place, f"key 'metric' names an unknown metric {_show(metric)}"
                        f"{self._suggest(metric, known)}; known: {KNOWN_METRICS_TEXT}",
                        section="condition", index=index, key="metric")

    def _data(self, data: Any, place: str, section: str, index: int | None) -> dict[str, str]:
        if not isinstance(data, dict):
            raise self.fail(place, f"must be a table of column names (e.g. {{ item = \"item_id\" }}); "
                            f"got {_show(data)}", section=section, index=index,
                            key="data" if section == "condition" else None)
        self._unknown_keys(data, DATA_KEYS, place, section, index)
        out = {}
        for key in data:
            out[key] = self._text(data, key, place, section, index, required=True)
        if "qrels" in out and self.base_dir and not os.path.isabs(out["qrels"]):
            out["qrels"] = os.path.normpath(os.path.join(self.base_dir, out["qrels"]))
        return out

    # typed getters ---------------------------------------------------------------------------------
    def _unknown_keys(self, table: dict, allowed, place: str, section: str, index: int | None) -> None:
        for key in table:
            if key not in allowed:
                raise self.fail(place, f"unknown key '{key}'{self._suggest(key, allowed)} (known keys: "
                                f"{', '.join(allowed)})", section=section, index=index, key=key)

    def _text(self, table: dict, key: str, place: str, section: str, index: int | None, *,
              required: bool, hint: str = "") -> str | None:
        if key not in table:
            if required:
                raise self.fail(place, f"key '{key}' is missing" + (f"; {hint}" if hint else ""),
                                section=section, index=index)
            return None
        value = table[key]
        if not isinstance(value, str):
            quoted = f"; write it in quotes, e.g. {key} = \"{value}\"" if isinstance(value, (int, float)) \
                and not isinstance(value, bool) else ""
            raise self.fail(place, f"key '{key}' must be text; got {_show(value)}{quoted}",
                            section=section, index=index, key=key)
        if not value.strip():
            raise self.fail(place, f"key '{key}' must not be empty", section=section, index=index, key=key)
        return value.strip()

    def _number(self, table: dict, key: str, place: str, section: str, index: int | None, *,
                default: float | None = None) -> float:
        if key not in table:
            if default is None:
                raise self.fail(place, f"key '{key}' is missing", section=section, index=index)
            return default
        value = table[key]
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.fail(place, f"key '{key}' must be a number; got {_show(value)}",
                            section=section, index=index, key=key)
        if not math.isfinite(value):
            raise self.fail(place, f"key '{key}' must be a finite number; got {_show(value)}",
                            section=section, index=index, key=key)
        return float(value)

    def _integer(self, table: dict, key: str, place: str, section: str, index: int | None, *,
                 default: int | None = None) -> int:
        if key not in table:
            if default is None:
                raise self.fail(place, f"key '{key}' is missing", section=section, index=index)
            return default
        value = table[key]
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(place, f"key '{key}' must be a whole number; got {_show(value)}",
                            section=section, index=index, key=key)
        return int(value)

    def _choice(self, table: dict, key: str, choices, place: str, section: str, index: int | None, *,
                default: str) -> str:
        if key not in table:
            return default
        value = table[key]
        if not isinstance(value, str) or value not in choices:
            raise self.fail(place, f"key '{key}' must be one of {', '.join(choices)}; got {_show(value)}"
                            + (self._suggest(value, choices) if isinstance(value, str) else ""),
                            section=section, index=index, key=key)
        return value

    @staticmethod
    def _suggest(word: str, options) -> str:
        close = difflib.get_close_matches(str(word), list(options), n=1, cutoff=0.6)
        return f" (did you mean '{close[0]}'?)" if close else ""


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if value != value else ("inf" if value > 0 else "-inf")  # as TOML writes them
    if isinstance(value, float) and value == int(value) and abs(value) < 1e15:
        return repr(value)
    return str(value)
