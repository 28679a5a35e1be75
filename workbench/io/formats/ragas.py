"""Ragas results: ``EvaluationResult.to_pandas()`` saved as CSV (with or without pandas' index
column, whose header is empty) or Parquet.

One row per sample, in the dataset's order: the sample's fields (``user_input``, ``response``,
``reference``, ``retrieved_contexts``...; ragas 0.1 named them ``question``, ``answer``,
``ground_truth``, ``contexts``), then one column per metric, named as ragas names it
(``rouge_score(mode=fmeasure)``).  A metric that could not score a sample wrote NaN (a blank
cell): that sample is left out of that metric only, as ragas' own mean (``nanmean``) leaves it
out, while another metric may score the same sample 0.  Ragas writes no id: the items are the
samples by position (``sample``: the index column's text, else 0, 1, 2...).

The file is read by the delimited or Parquet reader; :func:`declare` then names what it holds.
"""

from __future__ import annotations

import dataclasses
import os
import re

import pandas as pd

from workbench.core.numbers import format_value
from workbench.io.cells import text_array
from workbench.io.evaluation import BINARY, CODE, JUDGE, SCORE, Evaluation, Run, Scorer

FORMAT = "ragas"
#: Sample fields of ragas 0.2+ (SingleTurnSample, MultiTurnSample) and of ragas 0.1.
FIELDS = ("user_input", "retrieved_contexts", "reference_contexts", "response", "multi_responses",
          "reference", "rubrics", "retrieved_context_ids", "reference_context_ids", "reference_tool_calls",
          "reference_topics", "persona_name", "query_style", "query_length", "synthesizer_name")
OLD_FIELDS = ("question", "contexts", "answer", "ground_truth", "ground_truths")
#: The header name given to pandas' unnamed index column.
INDEX = "sample"
#: Ragas metrics whose values are yes/no (the others are scores, even where they happen to be 0 or 1).
_BINARY = ("exact_match", "string_present")
#: Ragas metrics that compute without a model (the others grade with an LLM or embeddings).
_CODE = re.compile(r"^(exact_match|bleu_score|chrf_score|rouge|string_present|non_llm_|"
                   r"(levenshtein|hamming|jaro|jaro_winkler)_|id_based_|tool_call_(accuracy|f1)|"
                   r"datacompy_score|distance_measure)")


def header_fits(names: list[str]) -> bool:
    """A header of ragas' ``to_pandas()`` (the first, empty name being pandas' index)."""
    names = [n.strip() for n in names]
    if names and names[0] == "":
        names = names[1:]
    new = "user_input" in names and any(n in names for n in ("response", "reference", "retrieved_contexts",
                                                              "reference_contexts", "multi_responses"))
    old = "question" in names and "contexts" in names and any(n in names for n in ("answer", "ground_truth"))
    return new or old


def metric_columns(frame: pd.DataFrame) -> list[str]:
    known = set(FIELDS) | set(OLD_FIELDS) | {INDEX}
    return [str(c) for c in frame.columns if str(c) not in known
            and pd.api.types.is_numeric_dtype(frame[c]) and not pd.api.types.is_bool_dtype(frame[c])]


def fits(table) -> bool:
    return header_fits([str(c) for c in table.frame.columns]) and bool(metric_columns(table.frame))


def declare(table):
    """The loaded table of a ragas result, with its items, metrics and notes declared."""
    frame = table.frame.copy()
    metrics = metric_columns(frame)
    n = len(frame)
    notes = []
    if INDEX in frame.columns:
        ids = list(table.cell_text(INDEX))
        frame[INDEX] = text_array(ids)
        notes.append(f"Column '{INDEX}' is pandas' unnamed index column of ragas' to_pandas(): the "
                     "samples' ids (their position in the dataset).")
    else:
        frame.insert(0, INDEX, text_array([str(i) for i in range(n)]))
        notes.append(f"Ragas writes no sample id: the items are the samples by position, 0 to {n - 1} "
                     f"(column '{INDEX}').")
    name = os.path.splitext(os.path.basename(table.path))[0]
    frame.insert(1, "run", text_array([name] * n))
    counts = {m: int(frame[m].notna().sum()) for m in metrics}
    scorers, said = [], []
    for m in metrics:
        values = frame[m].dropna()
        scale = BINARY if m in _BINARY and len(values) and values.isin([0, 1]).all() else SCORE
        kind = CODE if _CODE.match(m) else JUDGE
        mean = float(values.mean()) if len(values) else float("nan")
        scorers.append(Scorer(m, m, kind=kind, scale=scale,
                              metric=f"mean {format_value(mean, 'score')} over {counts[m]} samples (ragas' nanmean)",
                              reported=mean if counts[m] else None, reported_n=counts[m],
                              detail="a ragas metric computed without a model" if kind == CODE else
                              "a ragas metric graded by an LLM or embeddings (by its name)"))
        said.append(f"{m} {counts[m]}")
    if len(set(counts.values())) > 1:
        notes.append("Each metric keeps its own n: a sample a metric could not score (NaN, a blank "
                     "cell) is left out of that metric only, as ragas' mean leaves it out ("
                     + ", ".join(said) + " samples scored).")
    fields = [c for c in frame.columns if c in FIELDS or c in OLD_FIELDS]
    notes.insert(0, f"Ragas results ({n} samples, {len(metrics)} metrics: {', '.join(metrics)}); one "
                    "row per sample, each metric a column of scores as ragas wrote them.")
    roles = {INDEX: "task", "run": "version"}  # one try per sample: pass@1 is a metric's mean
    prediction = next((c for c in ("response", "answer") if c in frame.columns), None)
    reference = next((c for c in ("reference", "ground_truth") if c in frame.columns), None)
    if prediction:
        roles[prediction] = "prediction"
    if reference:
        roles[reference] = "reference"
    if metrics:
        roles[metrics[0]] = "success" if scorers[0].scale == BINARY else "score"
    evaluation = Evaluation(
        tool="ragas", item=INDEX, system="run", runs=(Run(name, {"tool": "ragas", "file": table.path,
                                                                  "samples": str(n)}),),
        scorers=tuple(scorers), primary=metrics[0] if metrics else None,
        metadata=tuple(c for c in fields if c not in (prediction, reference) and c != "user_input"),
        notes=(("Ragas writes no version and no model name into its results; the run is named by "
                "the file."),))
    return dataclasses.replace(table, frame=frame, format=FORMAT, notes=tuple(notes) + table.notes,
                               roles=roles, panel="passk" if scorers and scorers[0].scale == BINARY else "aggregate",
                               evaluation=evaluation)


def with_index_name(data: bytes) -> bytes | None:
    """A ragas CSV whose first header field is empty (pandas' index): the same bytes with that
    field named :data:`INDEX`, so that the delimited reader reads it (the file is not changed)."""
    start = 3 if data.startswith(b"\xef\xbb\xbf") else 0
    if data[start:start + 1] != b",":
        return None
    return data[:start] + INDEX.encode() + data[start:]


__all__ = ["FORMAT", "declare", "fits", "header_fits", "metric_columns", "with_index_name"]
