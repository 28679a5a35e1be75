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

import difflib  # noqa: F401
import math  # noqa: F401
import os
import re  # noqa: F401
import tomllib  # noqa: F401
from dataclasses import dataclass, field  # noqa: F401
from typing import Any  # noqa: F401

from ..core import numbers  # noqa: F401
from ..core.errors import WorkbenchError  # noqa: F401
from ..core.session import sha256_text  # noqa: F401
# the parts, re-exported here: what was importable from this module stays importable from it
from ._spec_model import (  # noqa: F401
    ALL_CONDITION_KEYS, ALL_THRESHOLD_KEYS, COMMON_KEYS, COST, COST_METRICS, Condition, DATA_KEYS,
    DEFAULT_RESAMPLES, DEFAULT_SEED, FORMAT, INTERVALS, JUDGE, JUDGE_METRICS, KIND_KEYS,
    KNOWN_METRICS_TEXT, LATENCY, MAX_RESAMPLES, PAIRED, RANKING, RANKING_AT, RANKING_PLAIN, RULE_KEYS,
    Rule, RuleError, SLICES, SLICE_METRIC, TESTS, TEST_NAMES, THRESHOLDS, _EFFORT, _missing,
    effort_measure, format_amount, format_interval, format_value, kind_of_unit)
from ._spec_parser import (  # noqa: F401
    _ARRAY_SECTION, _LATENCY, _RANKING, _SECTION, _TOML_POSITION, _Parser, _show)


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
