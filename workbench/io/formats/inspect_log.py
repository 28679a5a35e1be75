"""Inspect AI evaluation logs: ``.eval`` archives and ``.json`` logs.

Read from the documented log format itself (no dependency on ``inspect_ai``): a ``.eval`` file
is a ZIP archive holding ``header.json`` (the ``eval`` spec and ``results``) and one
``samples/<id>_epoch_<n>.json`` per sample and epoch; a ``.json`` log is one object with the
same ``eval``, ``results`` and a ``samples`` list.

One row per sample and epoch: ``model``, ``task``, ``sample_id`` (the id's exact text),
``epoch``, one column per scorer (``C``/``I``/``P``/``N`` read as 1/0/0.5/0, as Inspect's
``value_to_float`` does; numbers and true/false as they are; a scorer giving a dict of values
gives one column per key, ``scorer.key``; a column of grade letters also keeps the letters as
text in ``<column>.grade``), ``input``, ``target``, ``output`` (the completion), ``answer`` (the
first scorer's extracted answer), ``explanation`` (the first scorer's explanation, e.g. a
model-graded scorer's grader reply) and ``explanation.<scorer>`` (each other scorer's),
``metadata.<key>`` (the sample's plain metadata: text, numbers, true/false, e.g. a human
label), ``input_tokens``, ``output_tokens``, ``total_tokens`` (summed over the models a sample used), ``cost`` (the ``total_cost`` Inspect
recorded, when it did), ``steps`` (the assistant messages, the final answer included),
``tool_calls`` (every call, parallel ones each) and ``tool_calls.<name>`` per tool,
``total_time`` and ``working_time`` (seconds), and ``error`` when a sample failed.
"""

from __future__ import annotations

import json
import re
from typing import Any

import numpy as np
import pandas as pd

from workbench.core.errors import DataError
from workbench.io.formats import inspect_eval, zipread
from workbench.io.formats._common import almost, render_json_value, table, text_column, typed_column

FORMAT = "inspect"
#: Inspect's letter grades, read as numbers (inspect_ai.scorer.value_to_float).
GRADES = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0}
GRADE_NOTE = ("Inspect's grades C/I/P/N read as 1/0/0.5/0 (as its value_to_float), the letters kept "
              "as text in '<scorer>.grade' (labels for the Judge panel)")
_SAMPLE_NAME = re.compile(r"samples/.+_epoch_\d+\.json\Z")


def is_log_object(value: Any) -> bool:
    """An Inspect ``.json`` log: an object with an ``eval`` spec naming task and model."""
    return (isinstance(value, dict) and isinstance(value.get("eval"), dict)
            and "task" in value["eval"] and "model" in value["eval"] and "version" in value)


def is_eval_archive(archive) -> bool:
    names = set(archive.namelist())
    return "header.json" in names or "_journal/start.json" in names


def load_eval(data: bytes, path: str, shown: str):
    archive = zipread.open_zip(data, shown)
    names = archive.namelist()
    if "header.json" in names:
        header = _json(zipread.read_member(archive, data, "header.json", shown), shown, "header.json")
    elif "_journal/start.json" in names:  # a log still being written (or cut short)
        header = _json(zipread.read_member(archive, data, "_journal/start.json", shown), shown,
                       "_journal/start.json")
    else:
        raise almost(shown, None, "is a ZIP archive without 'header.json'",
                     "an Inspect .eval log (header.json and samples/<id>_epoch_<n>.json)")
    samples = [_json(zipread.read_member(archive, data, name, shown), shown, name)
               for name in names if _SAMPLE_NAME.match(name)]
    if "header.json" not in names:  # the run has not finished writing its log
        header = {**header, "status": "started"}
    return _table(header, samples, path, shown)


def load_json_log(log: dict, path: str, shown: str):
    return _table(log, log.get("samples") or [], path, shown)


def _json(raw: bytes, shown: str, member: str) -> Any:
    try:
        return json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise DataError(f"Member '{member}' of file {shown} is not valid JSON ({err}); expected "
                        "a complete Inspect log.") from None


def _table(header: dict, samples: list[dict], path: str, shown: str):
    spec = header.get("eval") or {}
    model, task = str(spec.get("model", "")), str(spec.get("task", ""))
    status = header.get("status")
    for sample in samples:  # logs of format version 1 have one "score" per sample
        if "scores" not in sample and isinstance(sample.get("score"), dict):
            sample["scores"] = {"score": sample["score"]}
    if not samples:
        raise DataError(f"File {shown} is an Inspect log of task '{task}' ({model}) with no samples"
                        f"{' (status: ' + str(status) + ')' if status else ''}; expected a log "
                        "written with samples (log_samples=True).")
    order = {render_json_value(sid): i for i, sid in
             enumerate((spec.get("dataset") or {}).get("sample_ids") or [])}
    for i, sample in enumerate(samples):
        if "id" not in sample or "epoch" not in sample:
            raise almost(shown, i + 1, "has no 'id' or 'epoch'", "an Inspect sample with id and epoch",
                         word="sample")
    samples = sorted(samples, key=lambda s: (order.get(render_json_value(s["id"]), len(order)),
                                             render_json_value(s["id"]), s["epoch"]))
    n = len(samples)
    columns: dict[str, Any] = {
        "model": text_column([model] * n),
        "task_name": text_column([task] * n),  # not "task": that role is the sample
        "sample_id": text_column([render_json_value(s["id"]) for s in samples]),
        "epoch": np.array([int(s["epoch"]) for s in samples], dtype=np.int64),
    }
    scorers = list(dict.fromkeys(name for s in samples for name in (s.get("scores") or {})))
    graded, score_cols, unscored, declared = _score_block(samples, scorers, columns)
    _text_columns(samples, scorers, columns)
    agent, errors = _effort_columns(samples, columns, model)
    if spec.get("eval_id"):  # the run's id: a .json converted from an .eval log has the same
        columns["eval_id"] = text_column([str(spec["eval_id"])] * n)
    frame = pd.DataFrame(columns)
    for key in ("input_tokens", "output_tokens", "total_tokens", "grader_input_tokens",
                "grader_output_tokens", "grader_total_tokens"):
        if key in frame.columns and frame[key].notna().all() and (frame[key] == frame[key].round()).all():
            frame[key] = frame[key].astype(np.int64)
    epochs = int(frame["epoch"].max())
    if epochs > 1:  # one id per row, for the analyses that score items (text, compare)
        frame.insert(4, "item", text_column([f"{sid} (epoch {e})" for sid, e in
                                             zip(frame["sample_id"], frame["epoch"])]))
    success = next((col for col, kind, column in score_cols if _binary(column)), None)
    if success is None and score_cols:
        success = score_cols[0][0]
    notes = _notes(frame, task, model, status, score_cols, graded, epochs, errors, agent, "cost" in columns)
    notes[1:1] = unscored
    roles = {"sample_id": "task", "model": "system", "output": "prediction", "target": "reference",
             "total_time": "latency", **({"item": "item"} if epochs > 1 else {}),
             **({"steps": "steps", "tool_calls": "tool_calls"} if agent else {}),
             **({"cost": "cost"} if "cost" in columns else {}),
             **({"error": "error"} if any(errors) else {})}
    if success:
        roles[success] = "success"
    names = [f"sample {sid} (epoch {e})" for sid, e in zip(frame["sample_id"], frame["epoch"])]
    if "limit" in frame.columns:
        notes.append(_limits_note(frame))
    return table(frame, path, fmt=FORMAT, notes=notes,
                 row_lines=np.arange(1, n + 1, dtype=np.int64), roles=roles, panel="passk",
                 row_word="row", row_names=names,
                 evaluation=inspect_eval.declare(header, frame, declared, path))


def _limits_note(frame) -> str:
    hit = frame["limit"].astype(str)
    counts = hit[hit != ""].value_counts()
    kinds = ", ".join(f"{k} {v}" for k, v in counts.items())
    return (f"{int(counts.sum())} of {len(frame)} samples hit a limit (column 'limit': {kinds}); "
            "Inspect still scores them, and so do the analyses.")


def _score_block(samples: list[dict], scorers: list[str], columns: dict[str, Any]):
    """Each scorer's column(s) (a dict value: one per key), added to ``columns``; a column of
    grade letters also keeps the letters as text in ``<column>.grade``.  Returns whether any
    grade letter was read, the (column, kind, values) of the scores, and a note per scorer
    that left samples unscored (Inspect's NaN value, e.g. a grader reply without a grade)."""
    graded, score_cols, letters, notes = False, [], {}, []
    declared: list[tuple[str, str, list]] = []
    for name in scorers:
        scores = [(s.get("scores") or {}).get(name) or {} for s in samples]
        for col, vals in _score_columns(name, [sc.get("value") for sc in scores]):
            raw = vals
            if any(isinstance(v, str) and v in GRADES for v in vals):
                graded = True
                letters[col] = [v if isinstance(v, str) else "" for v in vals]
                vals = [GRADES.get(v, v) if isinstance(v, str) else v for v in vals]
            column, kind = typed_column(vals)
            key = col if col not in columns else f"score.{col}"
            columns[key] = column
            score_cols.append((key, kind, column))
            declared.append((key, name, raw))
            if col in letters:
                letters[key] = letters.pop(col)
        nan = [i for i, sc in enumerate(scores) if isinstance(sc.get("value"), float) and sc["value"] != sc["value"]]
        if nan:
            reasons = sorted({str(scores[i].get("reason") or "none given") for i in nan})
            notes.append(f"{len(nan)} of {len(samples)} samples are unscored by '{name}' (Inspect's NaN "
                         f"value; reason: {', '.join(reasons)}): blank in its column, left out of its "
                         "numbers as Inspect leaves them out of its metrics.")
    for key, vals in letters.items():
        columns[f"{key}.grade"] = text_column(vals)
    return graded, score_cols, notes, declared


def _text_columns(samples: list[dict], scorers: list[str], columns: dict[str, Any]) -> None:
    """Input, target, output; the first scorer's answer and explanation (``explanation``), each
    other scorer's explanation (``explanation.<scorer>``); the sample metadata that is plain
    (``metadata.<key>``: text, numbers, true/false; lists and objects are left out)."""
    attachments = [s.get("attachments") or {} for s in samples]
    columns["input"] = text_column([_text(s.get("input"), a) for s, a in zip(samples, attachments)])
    columns["target"] = text_column([_text(s.get("target"), a) for s, a in zip(samples, attachments)])
    columns["output"] = text_column([_text((s.get("output") or {}).get("completion"), a)
                                     for s, a in zip(samples, attachments)])
    for k, name in enumerate(scorers):
        scores = [(s.get("scores") or {}).get(name) or {} for s in samples]
        if k == 0:
            columns["answer"] = text_column([_text(sc.get("answer"), a) for sc, a in zip(scores, attachments)])
        explanations = [_text(sc.get("explanation"), a) for sc, a in zip(scores, attachments)]
        if any(explanations):  # a model-graded scorer's reasons (the judge's words)
            columns["explanation" if k == 0 else f"explanation.{name}"] = text_column(explanations)
    metadata = [s.get("metadata") if isinstance(s.get("metadata"), dict) else {} for s in samples]
    for key in dict.fromkeys(k for m in metadata for k in m):
        values = [m.get(key) for m in metadata]
        if all(v is None or isinstance(v, (str, int, float, bool)) for v in values):
            columns[f"metadata.{key}"], _ = typed_column(values)


def _usage_of(samples: list[dict], model: str, *, graders: bool) -> list[list[dict]]:
    """Each sample's model usages: the evaluated model's (``graders`` False), or every other
    model's (the judges': their spend is grading, not the system's).  A sample whose usage does
    not name the evaluated model counts every model as the system's (older logs)."""
    out = []
    for s in samples:
        usage = s.get("model_usage") or {}
        mine = model in usage
        out.append([u or {} for name, u in usage.items()
                    if (name != model if graders else (name == model or not mine)) and (mine or not graders)])
    return out


def _effort_columns(samples: list[dict], columns: dict[str, Any], model: str = ""):
    """Tokens, cost, steps and tool calls, times and errors of each sample, added to
    ``columns``; returns (the agent's columns, each sample's error text).  Tokens and cost are
    the evaluated model's; the judges' (other models in a sample's usage) are ``grader_*``."""
    for prefix, graders in (("", False), ("grader_", True)):
        usages = _usage_of(samples, model, graders=graders)
        if graders and not any(usages):
            break
        for key in ("input_tokens", "output_tokens", "total_tokens"):
            columns[prefix + key] = np.array([sum(float(u.get(key) or 0) for u in row)
                                              if s.get("model_usage") else np.nan
                                              for s, row in zip(samples, usages)])
        costs = [[u.get("total_cost") for u in row] for row in usages]
        if any(c is not None for row in costs for c in row):  # the cost Inspect recorded (newer versions)
            columns[prefix + "cost"] = np.array([sum(float(c) for c in row if c is not None)
                                                 if any(c is not None for c in row) else np.nan
                                                 for row in costs])
    agent = _agent_columns(samples, model)
    columns.update(agent)
    for key in ("total_time", "working_time"):
        columns[key] = np.array([np.nan if s.get(key) is None else float(s[key]) for s in samples])
    errors = [_error(s.get("error")) for s in samples]
    if any(errors):
        columns["error"] = text_column(errors)
    limits = [_limit(s.get("limit")) for s in samples]
    if any(limits):  # the limit a sample hit (message, token, time, working...): it may be scored
        columns["limit"] = text_column(limits)
    return agent, errors


def _notes(frame, task: str, model: str, status, score_cols, graded: bool, epochs: int,
           errors: list[str], agent: dict, has_cost: bool) -> list[str]:
    """What the reader did with the log, in sentences."""
    n = len(frame)
    notes = [f"Read as an Inspect AI log (task '{task}', model '{model}', "
             f"{frame['sample_id'].nunique()} samples x {epochs} epoch{'s' if epochs > 1 else ''}"
             f" = {n} rows): one row per sample and epoch; scorers "
             + ", ".join(f"'{c}'" for c, _, _ in score_cols)
             + (f"; {GRADE_NOTE}" if graded else "") + "; sample ids kept as text"
             + ("; column 'item' is sample and epoch" if epochs > 1 else "") + "."]
    if status and status != "success":
        notes.append(f"The log's status is '{status}': it may not hold every sample.")
    if any(errors):
        failed = [f"sample {sid} (epoch {e})" for sid, e, err in
                  zip(frame["sample_id"], frame["epoch"], errors) if err]
        notes.append(f"{len(failed)} of {n} samples ended with an error (column 'error'): "
                     + ", ".join(failed[:5]) + (" ..." if len(failed) > 5 else "")
                     + "; as Inspect does, the analyses leave them out of their numbers unless "
                     "told to count them as failures (--errors fail).")
    if agent:
        tools = [c[len("tool_calls."):] for c in agent if c.startswith("tool_calls.")]
        notes.append("Steps are the assistant messages of each sample (the final answer included) and "
                     "tool calls are counted one by one (parallel calls each count)"
                     + (f"; calls per tool in columns tool_calls.<name> ({', '.join(tools)})" if tools else "")
                     + ("; cost is the total_cost Inspect recorded in the sample's model usage"
                        if has_cost else "") + ".")
    return notes


def _agent_columns(samples: list[dict], model: str = "") -> dict[str, Any]:
    """Steps (assistant messages, the final answer included) and tool calls (each call of a
    parallel turn counted), with one ``tool_calls.<name>`` count column per tool; nothing when no
    sample holds its messages."""
    if not any(isinstance(s.get("messages"), list) and s["messages"] for s in samples):
        return {}
    steps, calls, by_tool = [], [], []
    for s in samples:
        assistant = [m for m in (s.get("messages") or []) if isinstance(m, dict) and m.get("role") == "assistant"]
        names = [str((c or {}).get("function", "")) for m in assistant for c in (m.get("tool_calls") or [])]
        steps.append(len(assistant))
        calls.append(len(names))
        by_tool.append(names)
    out: dict[str, Any] = {"steps": np.array(steps, dtype=np.int64), "tool_calls": np.array(calls, dtype=np.int64)}
    for name in sorted({n for names in by_tool for n in names}):
        out[f"tool_calls.{name}"] = np.array([names.count(name) for names in by_tool], dtype=np.int64)
    if model and any(isinstance(s.get("events"), list) and s["events"] for s in samples):
        # the evaluated model's calls (a call cut off by a limit counts, though it left no message)
        out["model_calls"] = np.array([sum(1 for e in (s.get("events") or []) if isinstance(e, dict)
                                           and e.get("event") == "model" and e.get("model", model) == model)
                                       for s in samples], dtype=np.int64)
    return out


def _binary(column: Any) -> bool:
    values = np.asarray(column, dtype=float) if np.asarray(column).dtype.kind in "fiub" else None
    return values is not None and bool(np.all((values == 0) | (values == 1)))


def _score_columns(name: str, values: list[Any]):
    """A scorer's column(s): its value, or one column per key when the value is a dict."""
    if values and all(isinstance(v, dict) or v is None for v in values) \
            and any(isinstance(v, dict) for v in values):
        keys = list(dict.fromkeys(k for v in values if v for k in v))
        return [(f"{name}.{k}", [v.get(k) if v else None for v in values]) for k in keys]
    return [(name, values)]


def _text(value: Any, attachments: dict) -> str:
    """Inspect text (a string, a list of chat messages or content parts, or a list of targets)."""
    if value is None:
        return ""
    if isinstance(value, str):
        if value.startswith("attachment://"):
            return str(attachments.get(value[len("attachment://"):], value))
        return value
    if isinstance(value, list):
        if all(isinstance(v, str) for v in value):
            return value[0] if len(value) == 1 else render_json_value(value)
        parts = []
        for item in value:
            if isinstance(item, dict):
                content = item.get("content", item.get("text"))
                text = _text(content, attachments) if content is not None else ""
                role = item.get("role")
                parts.append(f"{role}: {text}" if role and len(value) > 1 else text)
            else:
                parts.append(_text(item, attachments))
        return "\n\n".join(parts)
    if isinstance(value, dict):
        return _text(value.get("text", value.get("content")), attachments)
    return render_json_value(value)


def _limit(value: Any) -> str:
    """The kind of limit a sample hit (``sample.limit.type``: message, token, time...), or ''."""
    if not value:
        return ""
    if isinstance(value, dict):
        return str(value.get("type") or "limit")
    return str(value)


def _error(value: Any) -> str:
    if not value:
        return ""
    if isinstance(value, dict):
        return str(value.get("message") or "")
    return str(value)
