"""lm-evaluation-harness outputs (``lm_eval --log_samples --output_path DIR``).

``samples_<task>_<date>.jsonl``: one row per document and filter: ``model``, ``task``,
``doc_id`` (the id's exact text), ``filter``, ``item`` (task/doc_id, plus the filter when a task
has several: the pairing key across models), ``target``, ``response`` (the filtered response;
a loglikelihood task's [log-likelihood, is-greedy] pairs as JSON text), ``prompt`` (the first
request's text) and one column per metric the record names (``acc``, ``exact_match``...).
The model is taken from the ``results_*.json`` beside the samples file (its ``model_name``,
and its configuration as notes), else from the folder name, which lm-eval names after the model.

``<task>_write_out_info.json`` (lm-eval 0.3, ``--write_out --output_base_path DIR``): a JSON
array, one record per document (``doc_id``, ``prompt_0``..., ``logit_0``..., ``truth`` and each
metric as text); read as the samples are, the task from the file's name.

``results_<date>.json`` alone: one row per task and metric with its value and stderr; the run's
configuration (model, arguments, few-shot, versions, date) as notes.
"""

from __future__ import annotations

import dataclasses
import glob
import json
import os
import re
from typing import Any

import numpy as np
import pandas as pd

from workbench.io.evaluation import BINARY, RECORDED, SCORE, Evaluation, Run, Scorer
from workbench.io.formats._common import almost, render_json_value, table, text_column, typed_column

SAMPLES, RESULTS = "lm_eval_samples", "lm_eval_results"
_SAMPLES_NAME = re.compile(r"samples_(.+?)_(\d{4}-\d\d-\d\dT[\d\-.:]+)\.jsonl\Z")


def is_samples_record(record: dict) -> bool:
    return "doc_id" in record and ("filtered_resps" in record or "resps" in record) \
        and ("metrics" in record or "target" in record)


WRITE_OUT_SUFFIX = "_write_out_info.json"
_WRITE_OUT_KEY = re.compile(r"(prompt|logit)_\d+\Z")
_TRUTH = {"True": 1.0, "False": 0.0}   # a boolean metric as str(value)


def is_write_out(records: list) -> bool:
    """lm-eval 0.3's ``--write_out`` records: doc_id, prompt_0 and logit_0 (and truth)."""
    first = records[0] if records else None
    return isinstance(first, dict) and "doc_id" in first and "prompt_0" in first \
        and ("logit_0" in first or "truth" in first)


def load_write_out(records: list[dict], path: str, shown: str):
    """lm-eval 0.3's per-document records as the samples of later versions: the responses
    (``logit_i``: a generated text, or a [log-likelihood, is-greedy] pair per choice) and the
    prompts become requests, ``truth`` the target, the metrics (written as text) numbers."""
    modern = []
    for i, r in enumerate(records):
        if not isinstance(r, dict) or "doc_id" not in r:
            raise almost(shown, None, f"has a record (number {i + 1}) without 'doc_id'",
                         "lm-eval --write_out records (doc_id, prompt_0, logit_0, truth, metrics)")
        prompts = [r[k] for k in sorted((k for k in r if k.startswith("prompt_") and _WRITE_OUT_KEY.match(k)),
                                        key=lambda k: int(k.split("_")[1]))]
        logits = [r[k] for k in sorted((k for k in r if k.startswith("logit_") and _WRITE_OUT_KEY.match(k)),
                                       key=lambda k: int(k.split("_")[1]))]
        generated = bool(logits) and all(isinstance(x, str) for x in logits)
        arguments = ([[p, {"until": None}] for p in prompts] if generated
                     else [[p, ""] for p in prompts])
        metrics = {k: _TRUTH.get(v, _num(v)) for k, v in r.items()
                   if k not in ("doc_id", "truth") and not _WRITE_OUT_KEY.match(k)}
        modern.append({"doc_id": r["doc_id"], "target": r.get("truth"), "arguments": arguments,
                       "filtered_resps": logits, "metrics": list(metrics), **metrics})
    table_ = load_samples(modern, np.arange(1, len(modern) + 1), path, shown)
    note = ("The file is lm-eval 0.3's --write_out output: the responses are its logit_i entries, "
            "the target its 'truth', the metrics read from text.")
    return dataclasses.replace(table_, notes=(table_.notes[0], note, *table_.notes[1:]))


def is_results(value: dict) -> bool:
    return isinstance(value.get("results"), dict) and (
        "configs" in value or "versions" in value or "n-shot" in value or "config" in value)


def _task_from_name(path: str) -> str | None:
    match = _SAMPLES_NAME.match(os.path.basename(path))
    if match:
        return match.group(1)
    name = os.path.basename(path)
    if name.endswith(WRITE_OUT_SUFFIX):
        return name[:-len(WRITE_OUT_SUFFIX)] or None
    if name.startswith("samples_") and name.endswith(".jsonl"):
        return name[len("samples_"):-len(".jsonl")]
    return None


def run_stamp(path: str) -> str | None:
    """The date stamp lm-eval puts in a samples file's name (its run), if any."""
    match = _SAMPLES_NAME.match(os.path.basename(path))
    return match.group(2) if match else None


def _sibling_results(path: str) -> tuple[dict | None, str | None]:
    """The ``results_<date>.json`` of the samples file's run (the same date stamp: two runs of
    one model write to one folder), else the newest ``results_*.json`` in its folder, if any."""
    folder = glob.escape(os.path.dirname(path))
    candidates = sorted(glob.glob(os.path.join(folder, "results_*.json")))
    stamp = run_stamp(path)
    same = os.path.join(os.path.dirname(path), f"results_{stamp}.json") if stamp else None
    if same in candidates:
        candidates = [c for c in candidates if c != same] + [same]
    for candidate in reversed(candidates):
        try:
            with open(candidate, encoding="utf-8") as handle:
                value = json.load(handle)
        except (OSError, ValueError):
            continue
        if isinstance(value, dict) and is_results(value):
            return value, candidate
    return None, None


def config_notes(results: dict, where: str) -> list[str]:
    """The run's configuration, as notes."""
    config = results.get("config") or {}
    parts = []
    for key in ("model", "model_args", "batch_size", "device", "limit", "bootstrap_iters",
                "gen_kwargs", "random_seed", "numpy_seed", "torch_seed", "fewshot_seed"):
        if config.get(key) not in (None, "", {}):
            parts.append(f"{key}={render_json_value(config[key])}")
    for key in ("model_name", "date", "git_hash", "lm_eval_version", "transformers_version"):
        if results.get(key) not in (None, ""):
            value = results[key]
            parts.append(f"{key}={value}")
    notes = [f"lm-evaluation-harness run configuration ({where}): " + "; ".join(parts) + "."] \
        if parts else []
    shots = results.get("n-shot") or {}
    versions = results.get("versions") or {}
    if shots or versions:
        tasks = list(dict.fromkeys([*shots, *versions]))
        notes.append("Tasks: " + "; ".join(
            f"{t} (version {versions.get(t, '?')}, {shots.get(t, '?')}-shot)" for t in tasks[:20])
            + (" ..." if len(tasks) > 20 else "") + ".")
    return notes


def _model_of(results: dict | None, path: str) -> str:
    """The model's name: the ``pretrained`` model lm-eval was given, else its ``model_name``,
    except the random id lm-eval names a run with when it is given no model name (the run
    folder's name): then the model type (``dummy``, ``hf``...)."""
    folder = os.path.basename(os.path.dirname(os.path.abspath(path)))
    if results:
        config = results.get("config") or {}
        pretrained = _pretrained(config.get("model_args"))
        if pretrained:
            return pretrained
        name = results.get("model_name")
        if name and not (str(name) == folder and config.get("model")):
            return str(name)
        name = config.get("model_args") or config.get("model") if not name else config.get("model")
        if name and not isinstance(name, dict):
            return str(name)
        if config.get("model"):
            return str(config["model"])
    return folder or "model"


def _pretrained(model_args: Any) -> str | None:
    """``pretrained=NAME`` of lm-eval's model arguments (a text or, since 0.4.8, a dict)."""
    if isinstance(model_args, dict):
        value = model_args.get("pretrained")
        return str(value) if value else None
    if isinstance(model_args, str):
        for part in model_args.split(","):
            key, _, value = part.partition("=")
            if key.strip() == "pretrained" and value.strip():
                return value.strip()
    return None


def run_config(results: dict | None, task: str, path: str) -> dict[str, str]:
    """What tells one lm-eval run from another: model, few-shot count, seed, version, folder."""
    config = (results or {}).get("config") or {}
    shots = ((results or {}).get("n-shot") or {}).get(task)
    out = {"model": _model_of(results, path), "task": task, "tool": "lm-evaluation-harness"}
    if shots is not None:
        out["num_fewshot"] = str(shots)
    if config.get("random_seed") is not None:
        out["seed"] = str(config["random_seed"])
    if (results or {}).get("lm_eval_version"):
        out["version"] = str(results["lm_eval_version"])
    out["folder"] = os.path.basename(os.path.dirname(os.path.abspath(path)))
    out["file"] = path
    return out


#: lm-eval's output types whose rows hold generated text (the others hold log-likelihoods).
GENERATION = ("generate_until",)
#: Per-document metrics of loglikelihood_rolling tasks: (log-likelihood, count) pairs, the count's name.
_ROLLING_PAIRS = {"word_perplexity": "words", "byte_perplexity": "bytes", "bits_per_byte": "bytes"}


def output_type(results: dict | None, task: str, record: dict) -> str:
    """The task's output type: from the results file's task configuration, else from the shape of
    a sample's requests (generation arguments, several choices, a text alone, or a pair)."""
    config = ((results or {}).get("configs") or {}).get(task) or {}
    if isinstance(config.get("output_type"), str):
        return config["output_type"]
    arguments = record.get("arguments")
    args = list(arguments.values()) if isinstance(arguments, dict) else arguments
    if not isinstance(args, list) or not args:  # no requests logged: the responses' shape
        resps = record.get("filtered_resps")
        if isinstance(resps, list) and resps and all(isinstance(r, str) for r in resps):
            return "generate_until"
        return "unknown"
    args = [list(a.values()) if isinstance(a, dict) else (a if isinstance(a, list) else [a])
            for a in args]
    if any(len(a) > 1 and isinstance(a[1], dict) for a in args):
        return "generate_until"
    if len(args) > 1:
        return "multiple_choice"
    return "loglikelihood_rolling" if len(args[0]) == 1 else "loglikelihood"


def load_samples(records: list[dict], lines: np.ndarray, path: str, shown: str):
    """One row per document; a task with several filters (gsm8k's strict-match and
    flexible-extract) gives one column per metric and filter (``exact_match,strict-match``, as
    lm-eval names them in its results), so that models pair by document once."""
    results, results_path = _sibling_results(path)
    model = _model_of(results, path)
    task = _task_from_name(path) or "task"
    metric_names = list(dict.fromkeys(m for r in records for m in (r.get("metrics") or [])))
    if not metric_names:  # older files: the fields beside the known ones
        known = {"doc_id", "doc", "target", "arguments", "resps", "filtered_resps", "filter",
                 "metrics", "doc_hash", "prompt_hash", "target_hash", "task_name"}
        metric_names = [k for k in records[0] if k not in known]
    filters = list(dict.fromkeys(str(r.get("filter", "none")) for r in records))
    several = len(filters) > 1
    docs: dict[tuple[str, str], dict[str, dict]] = {}
    first_line: dict[tuple[str, str], int] = {}
    for record, line in zip(records, lines):
        if not isinstance(record, dict) or "doc_id" not in record:
            raise almost(shown, int(line), "has no 'doc_id'" if isinstance(record, dict)
                         else "is not a JSON object", "one lm-evaluation-harness sample per line "
                         "(doc_id, target, filtered_resps and the metrics)")
        key = (str(record.get("task_name") or task), render_json_value(record.get("doc_id")))
        by_filter = docs.setdefault(key, {})
        name = str(record.get("filter", "none"))
        if name in by_filter:
            raise almost(shown, int(line), f"repeats document {key[1]} of filter '{name}'",
                         "one line per document and filter (lm-evaluation-harness samples)")
        by_filter[name] = record
        first_line.setdefault(key, int(line))
    keys = list(docs)
    n = len(keys)
    heads = [next(iter(docs[k].values())) for k in keys]
    types = {t: output_type(results, t, head) for (t, _), head in zip(keys, heads)}
    columns: dict[str, Any] = {
        "model": text_column([model] * n),
        "task_name": text_column([t for t, _ in keys]),  # not "task": pass@k's role
        "doc_id": text_column([d for _, d in keys]),
        "item": text_column([f"{t}/{d}" for t, d in keys]),
        "output_type": text_column([types[t] for t, _ in keys]),
        "run": text_column([run_stamp(path) or ""] * n),
        "target": text_column([_plain(r.get("target")) for r in heads]),
        "prompt": text_column([_prompt(r.get("arguments")) for r in heads]),
    }
    if not several:
        columns["filter"] = text_column([filters[0]] * n)
    kinds: dict[str, str] = {}
    metric_columns: list[str] = []
    renamed: dict[str, str] = {}
    for name in filters:
        suffix = f",{name}" if several else ""
        rows = [docs[k].get(name, {}) for k in keys]
        columns[f"response{suffix}"] = text_column(
            [_plain(_unwrap(r.get("filtered_resps", r.get("resps")))) for r in rows])
        for metric in metric_names:
            values = [r.get(metric) for r in rows]
            values = [v[0] if isinstance(v, list) and len(v) == 1 else v for v in values]
            for col, vals in _metric_columns(metric, values, renamed):
                column, kind = typed_column(vals)
                col = f"{col}{suffix}"
                col = col if col not in columns else f"metric.{col}"
                columns[col] = column
                kinds[col] = kind
                metric_columns.append(col)
    frame = pd.DataFrame(columns)
    success = next((m for m in metric_columns if kinds.get(m) in ("bool", "int", "float")
                    and np.isin(np.asarray(frame[m], dtype=float), (0.0, 1.0)).all()), None)
    if success is not None:  # one outcome column for every task (acc, exact_match...)
        frame["outcome"] = np.asarray(frame[success], dtype=np.float64)
        frame["outcome_metric"] = text_column([success] * n)
    notes = [f"Read as lm-evaluation-harness samples (task '{task}', model '{model}'"
             + (f" from {os.path.basename(results_path)}" if results_path else
                " from the folder name") + f"): {n} documents, one row each"
             + (f" with a column per metric and filter ({', '.join(filters)})" if several else "")
             + "; metrics " + ", ".join(f"'{m}'" for m in metric_names) + "; doc ids kept as text"
             + (f"; column 'outcome' is '{success}', the first 0/1 metric" if success else "")
             + "."]
    kinds_of = dict.fromkeys(types.values())
    if any(k not in GENERATION for k in kinds_of):
        notes.append(f"Output type {', '.join(kinds_of)} (column 'output_type'): only "
                     f"{' and '.join(GENERATION)} rows hold generated text in 'response'; the "
                     "others hold the model's log-likelihoods there, and the text metrics leave "
                     "them out.")
    notes += [renamed[m] for m in renamed]
    if results:
        notes += config_notes(results, os.path.basename(results_path))
    roles = {"item": "item", "model": "system", "task_name": "group", "target": "reference",
             ("response" if not several else f"response,{filters[0]}"): "prediction",
             "output_type": "output_type"}
    if success:
        roles["outcome"] = "success"
    row_lines = np.array([first_line[k] for k in keys], dtype=np.int64)
    evaluation = _evaluation(frame, results, task, path, model, metric_columns, kinds)
    return table(frame, path, fmt=SAMPLES, notes=notes, row_lines=row_lines, roles=roles,
                 panel="aggregate", row_word="line", evaluation=evaluation)


def _evaluation(frame: pd.DataFrame, results: dict | None, task: str, path: str, model: str,
                metric_columns: list[str], kinds: dict[str, str]) -> Evaluation:
    """lm-eval's run: its documents are the items, each metric a recorded scorer (the value
    lm-eval reported beside it), the task's first metric the primary one."""
    reported = ((results or {}).get("results") or {})
    scorers = []
    for col in metric_columns:
        metric, _, filt = col.partition(",")
        values = pd.to_numeric(frame[col], errors="coerce").dropna()
        scale = BINARY if len(values) and values.isin([0, 1]).all() else SCORE
        said = []
        key = f"{metric},{filt or 'none'}"
        for task_name, metrics in reported.items():
            if isinstance(metrics, dict) and isinstance(metrics.get(key), (int, float)):
                said.append(f"{metrics[key]:.6g}" + (f" on {task_name}" if len(reported) > 1 else ""))
        higher = ((results or {}).get("higher_is_better") or {}).get(task, {}).get(metric, True)
        scorers.append(Scorer(col, col, kind=RECORDED, scale=scale, higher_is_better=bool(higher),
                              metric=(f"{metric} {', '.join(said)}" if said else None),
                              detail="as lm-eval recorded it per document"))
    return Evaluation(tool="lm-eval", tool_version=str((results or {}).get("lm_eval_version") or "") or None,
                      item="item", system="model", runs=(Run(model, run_config(results, task, path)),),
                      scorers=tuple(scorers), primary=scorers[0].name if scorers else None,
                      metadata=("task_name",))


def _metric_columns(metric: str, values: list[Any], renamed: dict[str, str]):
    """A metric's column(s) as lm-eval logs them per document.  Its per-document 'perplexity'
    (loglikelihood tasks) is the target's log-likelihood, not a perplexity: the column is named
    ``perplexity.loglikelihood``.  The rolling metrics (word_perplexity, byte_perplexity,
    bits_per_byte) are (log-likelihood, count) pairs: two columns each."""
    if metric == "perplexity":
        renamed[metric] = ("Column 'perplexity.loglikelihood' holds lm-eval's per-document "
                           "'perplexity' entry, which is the log-likelihood of the target (a "
                           "negative number), not a perplexity; lm-eval's perplexity is "
                           "exp(-mean) of it over the documents.")
        return [("perplexity.loglikelihood", values)]
    count = _ROLLING_PAIRS.get(metric)
    if count and values and all(isinstance(v, list) and len(v) == 2 or v is None for v in values):
        renamed[metric] = (f"lm-eval logs '{metric}' per document as a (log-likelihood, {count}) "
                           f"pair: columns '{metric}.loglikelihood' and '{metric}.{count}' (its "
                           f"corpus value is computed from their sums, not from a mean of rows).")
        return [(f"{metric}.loglikelihood", [None if v is None else _num(v[0]) for v in values]),
                (f"{metric}.{count}", [None if v is None else _num(v[1]) for v in values])]
    return [(metric, values)]


def _num(value: Any) -> Any:
    """A number lm-eval may have written as text ("-0.83"): as a float where it reads as one."""
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return value
    return value


def load_results(value: dict, path: str, shown: str):
    rows = []
    n_samples = value.get("n-samples") or {}
    for task, metrics in (value.get("results") or {}).items():
        if not isinstance(metrics, dict):
            continue
        for key, number in metrics.items():
            if "," not in key or "_stderr" in key or not isinstance(number, (int, float)) \
                    or isinstance(number, bool):
                continue
            metric, _, filt = key.partition(",")
            stderr = metrics.get(f"{metric}_stderr,{filt}" if filt else f"{metric}_stderr")
            count = (n_samples.get(task) or {}).get("effective")
            rows.append({"task": task, "metric": metric, "filter": filt or "none",
                         "value": float(number),
                         "stderr": float(stderr) if isinstance(stderr, (int, float)) else np.nan,
                         "n": float(count) if isinstance(count, (int, float)) else np.nan})
    frame = pd.DataFrame(rows, columns=["task", "metric", "filter", "value", "stderr", "n"])
    for col in ("task", "metric", "filter"):
        frame[col] = text_column(list(frame[col]))
    notes = [f"Read as lm-evaluation-harness results ({len(frame)} task metrics of model "
             f"'{_model_of(value, path)}'); the per-item numbers are in the samples_*.jsonl "
             "files written with --log_samples."]
    notes += config_notes(value, os.path.basename(path))
    return table(frame, path, fmt=RESULTS, notes=notes, row_lines=np.arange(1, len(frame) + 1),
                 roles={}, panel=None, row_word="row")


def _unwrap(value: Any) -> Any:
    while isinstance(value, list) and len(value) == 1:
        value = value[0]
    return value


def _plain(value: Any) -> str:
    return render_json_value(value)


def _prompt(arguments: Any) -> str:
    if isinstance(arguments, dict):  # {"gen_args_0": {"arg_0": text, "arg_1": ...}}
        first = next(iter(arguments.values()), None)
        if isinstance(first, dict):
            return render_json_value(first.get("arg_0", ""))
        return render_json_value(first)
    if isinstance(arguments, list) and arguments:
        first = arguments[0]
        if isinstance(first, list) and first:
            return render_json_value(first[0])
        return render_json_value(first)
    return ""
