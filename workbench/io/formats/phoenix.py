"""Arize Phoenix experiments: the JSON and CSV exports of an experiment
(``GET /v1/experiments/{id}/json`` and ``/csv``).

One row per example and repetition (a run): ``example_id`` (Phoenix's id, exact text),
``repetition`` (1-based), ``experiment`` (the export names none: the file's name), ``input``,
``reference_output``, ``output`` (JSON text; an object's plain keys also as ``input.<key>``...),
``error`` (the task's failure: the run is no measurement), ``latency_ms``, ``prompt_tokens``,
``completion_tokens``, ``metadata.<key>`` (the CSV's example metadata); per evaluator ``N`` (its
annotations): ``N`` (the score), ``N.label``, ``N.explanation`` and ``N.error`` (the evaluator's
own error, or the task's: a run whose task failed is no measurement for any evaluator).  An
evaluator's kind is Phoenix's ``annotator_kind``: CODE -> code, LLM -> judge, HUMAN -> human.
Phoenix's own means are the mean over examples of each example's mean over its repetitions,
errors and missing scores left out: the workbench reduces an item's repeats the same way.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
from typing import Any

import numpy as np
import pandas as pd

from workbench.core.errors import DataError
from workbench.core.numbers import format_value
from workbench.io.evaluation import (
    BINARY,
    CODE,
    HUMAN,
    JUDGE,
    LABELS,
    SCORE,
    Evaluation,
    Run,
    Scorer,
)
from workbench.io.formats._common import render_json_value, table, text_column

FORMAT = "phoenix"
KINDS = {"CODE": CODE, "LLM": JUDGE, "HUMAN": HUMAN}
CSV_HEAD = ("example_id", "repetition_number", "input", "reference_output")
_FIELDS = ("label", "score", "explanation", "metadata", "annotator_kind", "trace_id", "error",
           "start_time", "end_time")


def is_export(value: Any) -> bool:
    """The JSON export: a list of runs with ``example_id``, ``repetition_number``, ``annotations``
    (Phoenix's first JSON export, before its #6744 of March 2025, had no ``annotations``: such a
    file is known by its run keys and refused as an export without evaluators)."""
    return (isinstance(value, list) and bool(value) and isinstance(value[0], dict)
            and {"example_id", "repetition_number"} <= set(value[0])
            and ("annotations" in value[0] or {"reference_output", "latency_ms", "trace_id"} <= set(value[0])))


def csv_fits(columns: list[str]) -> bool:
    return tuple(columns[:4]) == CSV_HEAD


def load_json(value: list, path: str, shown: str):
    for i, run in enumerate(value):
        if not isinstance(run, dict) or "example_id" not in run or not isinstance(run.get("annotations", []), list):
            raise DataError(f"File {shown} run {i + 1} is not a Phoenix experiment run (an object with "
                            "example_id, repetition_number and annotations[]); expected Phoenix's "
                            "experiment JSON export.")
    return _build(value, path, shown, "JSON")


def declare_csv(loaded):
    """The CSV export, read by the delimited reader: its rows as the JSON export's runs."""
    shown = f"'{loaded.path}'"
    cols = [str(c) for c in loaded.frame.columns]
    text = {c: list(loaded.cell_text(c)) for c in cols}
    names = []
    for c in cols:
        if c.startswith("annotation_") and c.endswith("_annotator_kind"):
            names.append(c[len("annotation_"):-len("_annotator_kind")])
    runs = []
    for i in range(len(loaded.frame)):
        run: dict[str, Any] = {c: text[c][i] for c in cols if not c.startswith("annotation_")}
        for key in ("input", "reference_output", "output", "metadata"):
            run[key] = _json_cell(run.get(key, ""), shown, key, loaded.line_of(i))
        for key in ("repetition_number",):
            run[key] = int(run[key]) if str(run.get(key, "")).strip().isdigit() else run.get(key)
        for key in ("latency_ms", "prompt_token_count", "completion_token_count"):
            run[key] = _number(run.get(key, ""))
        run["error"] = run.get("error") or None
        annotations = []
        for name in names:
            cell = {f: text.get(f"annotation_{name}_{f}", [""] * (i + 1))[i] for f in _FIELDS}
            if not any(cell[f] for f in ("label", "score", "annotator_kind", "error", "explanation")):
                continue  # no annotation by this evaluator on this run: its nine cells are empty
            annotations.append({"name": name, "annotator_kind": cell["annotator_kind"],
                                "label": cell["label"] or None, "score": _number(cell["score"]),
                                "explanation": cell["explanation"] or None, "error": cell["error"] or None})
        run["annotations"] = annotations
        runs.append(run)
    built = _build(runs, loaded.path, shown, "CSV")
    return dataclasses.replace(built, encoding=loaded.encoding, delimiter=loaded.delimiter,
                               row_lines=np.asarray(loaded.lines_of(range(len(loaded.frame))), dtype=np.int64),
                               row_word="line")


def _json_cell(text: str, shown: str, column: str, line: int) -> Any:
    if text == "":
        return None
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text  # a plain text value: kept as it is


def _number(text: Any) -> float | None:
    if text is None or isinstance(text, bool):
        return None
    if isinstance(text, (int, float)):
        return float(text)
    try:
        return float(text) if str(text).strip() else None
    except ValueError:
        return None


def _build(runs: list[dict], path: str, shown: str, source: str):
    names = list(dict.fromkeys(str(a.get("name")) for r in runs for a in r.get("annotations") or []
                               if isinstance(a, dict)))
    if not names:
        raise DataError(f"File {shown} is a Phoenix experiment export ({len(runs)} runs) with no "
                        "evaluator: no run has an annotation; expected an experiment evaluated by "
                        "at least one evaluator (run_experiment(..., evaluators=[...]) or "
                        "evaluate_experiment), whose scores and labels are what the workbench reads.")
    order = _order(runs)
    runs = sorted(runs, key=lambda r: (order[render_json_value(r.get("example_id"))],
                                       r.get("repetition_number") or 0))
    n = len(runs)
    experiment = os.path.splitext(os.path.basename(path))[0]
    cols: dict[str, Any] = {
        "example_id": text_column([render_json_value(r.get("example_id")) for r in runs]),
        "repetition": np.array([int(r.get("repetition_number") or 1) for r in runs], dtype=np.int64),
        "experiment": text_column([experiment] * n),
    }
    for key in ("input", "reference_output", "output"):
        values = [r.get(key) for r in runs]
        cols[key] = text_column(values)
        _flatten(key, values, cols)
    meta = [r.get("metadata") for r in runs]
    meta_keys = list(dict.fromkeys(k for m in meta if isinstance(m, dict) for k, v in m.items()
                                   if not isinstance(v, (dict, list))))
    for k in meta_keys:
        cols[f"metadata.{k}"] = text_column([m.get(k) if isinstance(m, dict) else None for m in meta])
    errors = [str(r["error"]) if r.get("error") not in (None, "") else "" for r in runs]
    cols["error"] = text_column(errors)
    usage = {}
    for key, out, role in (("latency_ms", "latency_ms", "latency"), ("prompt_token_count", "prompt_tokens", "input_tokens"),
                           ("completion_token_count", "completion_tokens", "output_tokens")):
        values = [_number(r.get(key)) if r.get(key) is not None else None for r in runs]
        if any(v is not None for v in values):
            cols[out] = np.array([np.nan if v is None else v for v in values], dtype=float)
            usage[role] = out
    scorers, notes = [], []
    for name in names:
        found = [next((a for a in r.get("annotations") or [] if isinstance(a, dict) and str(a.get("name")) == name), None)
                 for r in runs]
        scores = [_number(a.get("score")) if a is not None else None for a in found]
        labels = [a.get("label") if a is not None else None for a in found]
        own = [str(a["error"]) if a is not None and a.get("error") not in (None, "") else "" for a in found]
        cols[name] = np.array([np.nan if s is None or own[i] else s for i, s in enumerate(scores)], dtype=float)
        cols[f"{name}.label"] = text_column([None if own[i] else lab for i, lab in enumerate(labels)])
        cols[f"{name}.explanation"] = text_column([(a or {}).get("explanation") for a in found])
        cols[f"{name}.error"] = text_column([own[i] or (f"the task failed: {errors[i]}" if errors[i] else "")
                                             for i in range(n)])
        kinds = [str(a.get("annotator_kind") or "").upper() for a in found if a is not None]
        kind_word = max(set(kinds), key=kinds.count) if kinds else "CODE"
        kind = KINDS.get(kind_word, CODE)
        numbers = {s for s in scores if s is not None and not math.isnan(s)}
        column, scale = name, (BINARY if numbers and numbers <= {0.0, 1.0} else SCORE)
        if not numbers:  # labels only (a person's "good"/"bad" with no score)
            column, scale = f"{name}.label", LABELS
        summary, mean, examples = _summary(runs, found, scores, own)
        # an evaluator that gives scores is read by its scores (a bool evaluator's label is its
        # score in words, and "correct" and "good" never meet across evaluators); its labels stay
        # in 'N.label'; an evaluator of labels only is read by its labels
        scorers.append(Scorer(name, column, kind=kind, scale=scale,
                              labels=f"{name}.label" if scale == LABELS else None,
                              error=f"{name}.error", metric=summary, reported=mean, reported_n=examples,
                              detail=f"Phoenix evaluator, annotator kind {kind_word}"
                              + (f" (also {', '.join(sorted(set(kinds) - {kind_word}))})" if len(set(kinds)) > 1 else "")))
        if any(own) and any(o and not errors[i] for i, o in enumerate(own)):
            count = sum(1 for i, o in enumerate(own) if o and not errors[i])
            notes.append(f"Evaluator '{name}' raised on {count} of {n} runs whose task succeeded (column "
                         f"'{name}.error'): no measurement by it, left out of its numbers and counted.")
    frame = pd.DataFrame(cols)
    reps = int(frame["repetition"].max())
    failed = sum(1 for e in errors if e)
    notes.insert(0, f"Phoenix experiment export ({source}): {n} runs = {frame['example_id'].nunique()} examples x "
                    f"up to {reps} repetitions, {len(names)} evaluators ({', '.join(f'{s.name} ({s.kind})' for s in scorers)}); "
                    "items are examples, repetitions their repeats.")
    if failed:
        notes.insert(1, f"{failed} of {n} runs failed (column 'error'): no measurement by any evaluator, left "
                        "out and counted (Phoenix's errorRate counts them; --errors fail counts them as failures).")
    notes.append("Phoenix's means are the mean over examples of each example's mean over its repetitions; "
                 "the workbench reduces an item's repeats the same way (never a repetition as an item).")
    primary = next((s.name for s in scorers if s.kind != HUMAN and s.scale != LABELS), scorers[0].name)
    judge = next((s for s in scorers if s.kind == JUDGE), None)
    human = next((s for s in scorers if s.kind == HUMAN), None)
    roles = {"example_id": "task", "repetition": "epoch", "experiment": "version", "error": "error"}
    if reps > 1:  # one id per run, for the analyses that read records (the judge's labels)
        frame.insert(2, "item", text_column([f"{e} (repetition {r})" for e, r in
                                             zip(frame["example_id"], frame["repetition"])]))
        roles["item"] = "item"
    else:
        roles["example_id"] = "item"
    first = next(s for s in scorers if s.name == primary)
    roles[first.column] = "success" if first.scale == BINARY else "score"
    if "latency_ms" in cols:
        roles["latency_ms"] = "latency"
    panel = "repeats" if first.scale == BINARY else "aggregate"
    if judge is not None and human is not None:  # the Judge panel: the LLM's beside the people's
        both = judge.scale != LABELS and human.scale != LABELS  # scores meet where label words differ
        roles[judge.column if both else f"{judge.name}.label"] = "judge"
        roles[human.column if both else f"{human.name}.label"] = "human"
        panel = "judge"
        notes.append(f"The Judge panel compares evaluator '{judge.name}' (LLM) with '{human.name}' "
                     f"(HUMAN) on the runs both annotated, by their {'scores' if both else 'labels'}"
                     + (" (their label words differ; the labels stay in the '.label' columns)" if both else "")
                     + ".")
    evaluation = Evaluation(
        tool="phoenix", item="example_id", repeat="repetition" if reps > 1 else None,
        repeat_source=f"repetitions ({reps})" if reps > 1 else "", reduction="mean",
        system="experiment", runs=(Run(experiment, {"tool": "arize-phoenix", "experiment": experiment,
                                                    "repetitions": str(reps), "file": path}),),
        scorers=tuple(scorers), primary=primary, error="error", usage=usage,
        metadata=tuple(f"metadata.{k}" for k in meta_keys),
        notes=("Phoenix's export names no experiment: the run is named by the file.",))
    return table(frame, path, fmt=FORMAT, notes=notes, row_lines=np.arange(1, n + 1, dtype=np.int64),
                 roles=roles, panel=panel, row_word="run",
                 row_names=[f"example {e} (repetition {r})" for e, r in zip(cols["example_id"], cols["repetition"])],
                 evaluation=evaluation)


def _order(runs: list[dict]) -> dict[str, int]:
    order: dict[str, int] = {}
    for r in runs:
        order.setdefault(render_json_value(r.get("example_id")), len(order))
    return order


def _flatten(key: str, values: list, cols: dict) -> None:
    """An object's plain keys as columns of their own (``output.answer``)."""
    keys = list(dict.fromkeys(k for v in values if isinstance(v, dict) for k, x in v.items()
                              if not isinstance(x, (dict, list))))
    if not keys or not all(isinstance(v, dict) or v is None for v in values):
        return
    for k in keys:
        cols[f"{key}.{k}"] = text_column([v.get(k) if isinstance(v, dict) else None for v in values])


def _summary(runs: list[dict], found: list, scores: list, own: list[str]):
    """Phoenix's meanScore of an evaluator: the mean over examples of each example's mean over
    its repetitions, errored annotations and missing scores left out."""
    per: dict[str, list[float]] = {}
    for r, a, s, e in zip(runs, found, scores, own):
        if a is None or e or s is None:
            continue
        per.setdefault(render_json_value(r.get("example_id")), []).append(s)
    if not per:
        return None, None, None
    means = [sum(v) / len(v) for v in per.values()]
    mean = sum(means) / len(means)
    return (f"mean {format_value(mean, 'score')} over {len(means)} examples ({sum(len(v) for v in per.values())} scored "
            "runs; Phoenix's mean of per-example means)"), mean, len(means)


__all__ = ["FORMAT", "csv_fits", "declare_csv", "is_export", "load_json"]
