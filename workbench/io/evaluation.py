"""What an evaluation file holds, declared by the reader that read it (the evaluation model).

Every tool of the field has one model of an evaluation (Inspect's ``EvalLog`` -> samples with
scores by scorer, promptfoo's results with named scores and weights, lm-eval's per-document
metrics); a reader of the workbench declares the same once, beside the long table it returns,
so that no panel has to guess it again from column names:

- the **item** (the column of item ids, exact text) and the **repeat** (an epoch, a repeat
  number; ``None``: one try per item), with how the tool reduces an item's repeats;
- the **system** column and the **runs** (each run's name and configuration: model, task,
  few-shot count, seed, tool and version, file);
- the **scorers** (:class:`Scorer`: name, column, kind, scale, weight, threshold, which one is
  the tool's own primary);
- the **status** of each record: the column of errors (a record that is no measurement) and the
  column of limits hit (message, token, time, working), beside each scorer's unscored records
  (a blank cell in its column);
- the **usage** columns (tokens, cost, latency, steps, tool calls per tool);
- the **annotator** column of human labels, and the **metadata** columns that can be slices.

It imports nothing of the workbench: any layer may read it.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

#: Kinds of scorer.
CODE, JUDGE, JUDGE_PANEL, HUMAN, RECORDED = "code", "judge", "judge panel", "human", "recorded metric"
KINDS = (CODE, JUDGE, JUDGE_PANEL, HUMAN, RECORDED)
#: Scales of a scorer's values.
BINARY, PARTIAL, ORDINAL, LABELS, SCORE = "binary", "partial credit", "ordinal", "labels", "score"
#: A number in its own unit, not a share of 0..1: a log-probability, a correlation, a count.
#: Its mean is shown in that unit (never as a percentage, never read as 0/1 outcomes).
MEASURE = "measure"
SCALES = (BINARY, PARTIAL, ORDINAL, LABELS, SCORE, MEASURE)
#: Kinds of limit a record can hit (Inspect's ``sample.limit.type``).
LIMIT_KINDS = ("message", "token", "time", "working", "context", "cost", "operator", "custom")
#: Usage keys (column roles of :attr:`Evaluation.usage`).
USAGE_KEYS = ("input_tokens", "output_tokens", "total_tokens", "cost", "latency", "working_time",
              "steps", "tool_calls", "model_calls")


@dataclass(frozen=True)
class Scorer:
    """One scorer (or recorded metric) of the evaluation and the column holding its values."""

    #: the name the tool gives it (``model_graded_qa``, ``acc_norm``, ``llm-rubric``)
    name: str
    #: the table's column of its values (numbers; blank = unscored)
    column: str
    #: code, judge, judge panel, human or recorded metric (:data:`KINDS`)
    kind: str = CODE
    #: binary, partial credit, ordinal, labels, score (0..1) or measure (:data:`SCALES`)
    scale: str = SCORE
    #: the column of its labels as text (Inspect's C/P/I letters), when it has one
    labels: str | None = None
    #: its weight in the tool's own combined score (promptfoo's assertion weight)
    weight: float | None = None
    #: the tool's pass threshold for it (DeepEval's threshold, promptfoo's test threshold)
    threshold: float | None = None
    #: False when a lower value is better
    higher_is_better: bool = True
    #: the column of the tool's own pass decision for it, when the tool records one
    passed: str | None = None
    #: the scorer a criterion belongs to (a dict-valued scorer's keys; promptfoo's assertions)
    group: str | None = None
    #: the judge models (a judge panel has several)
    models: tuple[str, ...] = ()
    #: how the tool aggregates it over items (``mean``, ``accuracy``...) and its reported value
    metric: str | None = None
    #: free words on where it came from, for the description card
    detail: str = ""
    #: the value the tool itself reported for it, as a number (ragas' mean, Phoenix's mean of
    #: per-example means, HELM's stats.json mean), and over how many records or items
    reported: float | None = None
    reported_n: int | None = None
    #: the column of this scorer's own errors (DeepEval's errored metric, a Phoenix evaluator
    #: that raised), the record's error included: non-blank = no measurement by this scorer
    error: str | None = None

    @property
    def is_judge(self) -> bool:
        return self.kind in (JUDGE, JUDGE_PANEL)


@dataclass(frozen=True)
class Run:
    """One run (a system's evaluation) and its configuration."""

    #: the name the workbench shows for it (the system column's value)
    name: str
    #: model, task, few-shot count, seed, tool, tool version, file... as text
    config: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Evaluation:
    """What a file holds, declared by its reader (see the module's docstring)."""

    #: the tool that wrote it (``inspect``, ``promptfoo``, ``lm-eval``, ``label-studio``...) or
    #: ``table`` for a plain table
    tool: str
    tool_version: str | None = None
    #: the column of item ids (exact text)
    item: str | None = None
    #: the column numbering an item's repeats (None: one try per item)
    repeat: str | None = None
    #: how the repeats were recognised ("epochs", "--repeat (identical vars)")
    repeat_source: str = ""
    #: how the tool reduces an item's repeats to one value (``mean``...)
    reduction: str = "mean"
    #: the column naming the system or run of each record
    system: str | None = None
    runs: tuple[Run, ...] = ()
    scorers: tuple[Scorer, ...] = ()
    #: the name of the tool's own primary scorer (None: the first)
    primary: str | None = None
    #: the column of errors (non-blank = the record is no measurement)
    error: str | None = None
    #: the column of limits hit (its kind as text: message, token...)
    limit: str | None = None
    #: the column of each record's status in the tool's own words (SWE-bench's resolved,
    #: unresolved, error, empty_patch, no_prediction), when the tool names more than errors
    status: str | None = None
    #: usage key (:data:`USAGE_KEYS`, or ``tool_calls.<tool>``) -> column
    usage: Mapping[str, str] = field(default_factory=dict)
    #: the column of annotators (one row per annotation of human labels)
    annotator: str | None = None
    #: columns that describe items and can be slices (Inspect metadata, promptfoo vars)
    metadata: tuple[str, ...] = ()
    #: what the reader decided and why, in sentences
    notes: tuple[str, ...] = ()

    def scorer(self, name: str | None = None) -> Scorer | None:
        """The scorer of this name (its name or its column), else the primary one."""
        if name is None:
            name = self.primary
        if name is None:
            return self.scorers[0] if self.scorers else None
        for s in self.scorers:
            if s.name == name:
                return s
        for s in self.scorers:
            if s.column == name:
                return s
        return None

    def scorer_names(self) -> list[str]:
        return [s.name for s in self.scorers]

    def replace(self, **changes: Any) -> "Evaluation":
        return dataclasses.replace(self, **changes)


def item_column(columns, evaluation: "Evaluation") -> str | None:
    """The column naming an evaluation's items among ``columns``: ``task_sample`` when tasks
    were stacked (an item is a task's sample), else the declared item."""
    return "task_sample" if "task_sample" in columns else evaluation.item


def merge(evaluations: Iterable[Evaluation | None], *, system: str | None = None) -> Evaluation | None:
    """One evaluation for files stacked into one table: the runs of all, each scorer once (by
    name; the first file's declaration), the first file's columns for the rest."""
    found = [e for e in evaluations if e is not None]
    if not found:
        return None
    first = found[0]
    runs: dict[str, Run] = {}
    scorers: dict[str, Scorer] = {}
    usage: dict[str, str] = {}
    metadata: list[str] = []
    for e in found:
        for r in e.runs:
            runs.setdefault(r.name, r)
        for s in e.scorers:
            scorers.setdefault(s.name, s)
        for k, v in e.usage.items():
            usage.setdefault(k, v)
        metadata += [m for m in e.metadata if m not in metadata]
    tools = list(dict.fromkeys(e.tool for e in found))
    versions = list(dict.fromkeys(e.tool_version for e in found if e.tool_version))
    return dataclasses.replace(
        first, tool=" + ".join(tools), tool_version=", ".join(versions) or None,
        system=system or first.system, runs=tuple(runs.values()), scorers=tuple(scorers.values()),
        error=next((e.error for e in found if e.error), None),
        limit=next((e.limit for e in found if e.limit), None),
        repeat=next((e.repeat for e in found if e.repeat), None),
        usage=usage, metadata=tuple(metadata),
        notes=tuple(dict.fromkeys(n for e in found for n in e.notes)))


__all__ = ["item_column", "BINARY", "CODE", "Evaluation", "HUMAN", "JUDGE", "JUDGE_PANEL", "KINDS", "LABELS",
           "LIMIT_KINDS", "MEASURE", "ORDINAL", "PARTIAL", "RECORDED", "Run", "SCALES", "SCORE", "Scorer",
           "USAGE_KEYS", "merge"]
