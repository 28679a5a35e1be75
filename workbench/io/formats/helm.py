"""HELM run folders (``benchmark_output/runs/<suite>/<run>/``, written by ``helm-run``).

Read from ``per_instance_stats.json`` (every metric of every instance, train trial and
perturbation), with ``run_spec.json`` (the run's name, model, adapter and metrics),
``scenario_state.json`` (the prompt's input, the correct references, the completion and
whether the request succeeded) and ``stats.json`` (HELM's own aggregates) beside it.

One row per instance, train trial and perturbation: ``instance_id`` (HELM's id, exact text),
``item`` (the instance, and its perturbation when perturbed: a perturbed copy is a slice of the
same instance, never a new instance), ``train_trial`` (the repeat: other in-context examples),
``perturbation`` (``original`` or the perturbation's name: a slice), ``split``, ``run`` (HELM's
run name), ``model`` (the system: runs of one model on several scenarios are told apart by their
folders when stacked), ``input``, ``reference``, ``output`` (the first completion), ``error`` (a failed
request), then one column per stat, named as HELM names it (``exact_match@3``).  HELM's metrics
are the scorers; its bookkeeping stats (token counts, runtimes, finish reasons, batch size...: the
"Infrastructure" and "Efficiency" stats of HELM's schema) are columns only, the prompt's and the
output's tokens and the observed runtime declared as the usage.  HELM's
``stats.json`` mean is the mean over train trials of each trial's mean over instances: the
workbench's mean over items of each item's mean over its trials, on a balanced run.
"""

from __future__ import annotations

import json
import os
from typing import Any

import numpy as np
import pandas as pd

from workbench.core.errors import DataError
from workbench.core.numbers import format_value
from workbench.io.evaluation import BINARY, MEASURE, RECORDED, SCORE, Evaluation, Run, Scorer
from workbench.io.formats._common import render_json_value, table, text_column

FORMAT = "helm"
STATS = "per_instance_stats.json"
#: the other files helm-run writes into a run folder: opening one opens the run
SIDE_FILES = frozenset({"run_spec.json", "scenario.json", "scenario_state.json", "stats.json",
                        "instances.json", "display_predictions.json", "display_requests.json"})
# Which of HELM's per-instance stats are metrics, usage or bookkeeping: HELM's own classification.
# crfm-helm (github.com/stanford-crfm/helm) lists every stat it writes in its schema files
# (src/helm/benchmark/static/schema_classic.yaml and the other schema_*.yaml) under headed sections:
# "# Infrastructure metrics:" (num_references, num_train_trials, num_prompt_tokens,
# num_completion_tokens, num_output_tokens, num_instances, num_train_instances, prompt_truncated,
# finish_reason_*, num_perplexity_tokens, num_bytes, predicted_index, num_requests,
# num_completions, num_prompt_characters, max_num_output_tokens, estimated_num_tokens_cost) and
# "# Efficiency metrics:" (training_co2_cost, training_energy_cost, inference_runtime,
# inference_idealized_runtime, inference_denoised_runtime, batch_size), apart from the accuracy,
# calibration, language-modelling... metrics; the MetricMetadata of src/helm/benchmark/metrics/
# basic_metrics.py and efficiency_metrics.py give those counts no direction (lower_is_better None,
# "None for num_trials"), and the leaderboard shows them in the groups "general_information" and
# "efficiency", never as accuracy.  The dry run (metrics/dry_run_metrics.py) adds
# max_num_completion_tokens; image generation (metrics/image_generation/efficiency_metrics.py)
# prompt_length and num_generated_images.  max_prob (the model's confidence in its answer, HELM's
# "Calibration metrics", lower_is_better false) and logprob (language modelling, lower_is_better
# false) are HELM metrics and stay scorers.
#: HELM's infrastructure stats: how the run was made (counts, finish reasons, truncation).
INFRASTRUCTURE = frozenset({
    "num_references", "num_train_trials", "num_prompt_tokens", "num_completion_tokens",
    "num_output_tokens", "num_instances", "num_train_instances", "prompt_truncated",
    "finish_reason_length", "finish_reason_stop", "finish_reason_endoftext", "finish_reason_unknown",
    "num_perplexity_tokens", "num_bytes", "predicted_index", "num_requests", "num_completions",
    "num_prompt_characters", "max_num_output_tokens", "max_num_completion_tokens",
    "estimated_num_tokens_cost", "prompt_length", "num_generated_images"})
#: HELM's efficiency stats: the request's runtime (observed, denoised, idealized), its batch, the
#: model's estimated training emissions and energy (the same for every request of a model).
EFFICIENCY = frozenset({
    "inference_runtime", "inference_denoised_runtime", "inference_idealized_runtime", "batch_size",
    "training_co2_cost", "training_energy_cost"})
#: the usage among them (usage key of :mod:`workbench.io.evaluation`): the prompt's tokens, the
#: generated tokens (echoed prompt left out, every completion counted: HELM's num_output_tokens)
#: and the observed runtime.  The denoised and idealized runtimes are estimates, the training costs
#: the model's, not the run's spend: columns only.
_USAGE = {"num_prompt_tokens": "input_tokens", "num_output_tokens": "output_tokens",
          "inference_runtime": "latency"}
#: HELM's bookkeeping stats: counts and costs of the run, not measures of the model's answers;
#: kept as columns of the table, never scorers (the usage among them is declared as usage).
BOOKKEEPING = INFRASTRUCTURE | EFFICIENCY
#: HELM's usual main metrics, in the order one is taken as the primary scorer.
MAIN = ("exact_match", "quasi_exact_match", "prefix_exact_match", "quasi_prefix_exact_match",
        "f1_score", "math_equiv", "math_equiv_chain_of_thought", "chain_of_thought_correctness",
        "rouge_l", "bleu_4", "RR@10", "NDCG@10", "ifeval_strict_accuracy", "wildbench_score",
        "omni_math_accuracy")
#: HELM's per-instance numbers in their own unit (not shares of 0..1), whatever values a run holds
MEASURES = frozenset({"logprob", "logprob_per_byte", "perplexity", "bits_per_byte"})
#: HELM metrics that are inputs of others, listed after the rest and never taken as the primary
#: scorer while another metric is there: max_prob, the confidence HELM's calibration (ECE) reads
SECONDARY = frozenset({"max_prob"})


def is_per_instance_stats(value: Any) -> bool:
    return (isinstance(value, list) and bool(value) and isinstance(value[0], dict)
            and {"instance_id", "stats"} <= set(value[0]))


def is_run_folder(folder: str) -> bool:
    return os.path.isfile(os.path.join(folder, STATS)) or (
        os.path.isfile(os.path.join(folder, "run_spec.json"))
        and any(os.path.isfile(os.path.join(folder, f)) for f in ("scenario_state.json", "stats.json")))


def run_folders(folder: str) -> list[str]:
    """The HELM run folders under ``folder`` (a suite, or ``benchmark_output``), in name order."""
    found = []
    for root, dirs, files in os.walk(folder):
        dirs.sort()
        if root != folder and is_run_folder(root):
            found.append(root)
            dirs[:] = []
    return found


def _read(folder: str, name: str, shown: str) -> Any:
    path = os.path.join(folder, name)
    if not os.path.isfile(path):
        return None
    try:
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise DataError(f"File '{path}' of HELM run folder {shown} cannot be read as JSON ({err}); "
                        "expected the file helm-run wrote (it may be cut short).") from None


def load_run(folder: str, shown: str, *, path: str | None = None):
    """One HELM run folder as a table (``path``: the name the table goes by; the folder)."""
    stats = _read(folder, STATS, shown)
    if stats is None:
        present = sorted(f for f in os.listdir(folder) if f.endswith(".json"))
        raise DataError(f"Folder {shown} is a HELM run folder ({', '.join(present) or 'no JSON files'}) "
                        f"without its {STATS}; expected the per-instance stats helm-run writes beside "
                        "run_spec.json (run helm-run to the end, or copy the whole run folder).")
    if not is_per_instance_stats(stats):
        raise DataError(f"File '{os.path.join(folder, STATS)}' is not HELM's per-instance stats; "
                        "expected a list of {instance_id, train_trial_index, stats[]} objects.")
    spec = _read(folder, "run_spec.json", shown) or {}
    state = _read(folder, "scenario_state.json", shown) or {}
    aggregate = _read(folder, "stats.json", shown)
    return _table(stats, spec, state, aggregate, folder, path or folder)


def _stat_key(name: dict) -> tuple[str, str]:
    return str(name.get("name")), str(name.get("split") or "")


def _value(stat: dict) -> float:
    if isinstance(stat.get("mean"), (int, float)):
        return float(stat["mean"])
    count = stat.get("count") or 0
    return float(stat["sum"]) / count if count and isinstance(stat.get("sum"), (int, float)) else np.nan


def _table(stats: list[dict], spec: dict, state: dict, aggregate: list | None, folder: str, path: str):
    adapter = spec.get("adapter_spec") or state.get("adapter_spec") or {}
    model = str(adapter.get("model") or adapter.get("model_deployment") or "model")
    run = str(spec.get("name") or os.path.basename(folder.rstrip(os.sep)))
    requests = {}
    for rs in state.get("request_states") or []:
        inst = rs.get("instance") or {}
        key = (render_json_value(inst.get("id")), rs.get("train_trial_index", 0),
               (inst.get("perturbation") or {}).get("name") or "")
        requests.setdefault(key, rs)
    names: list[str] = []
    splits: dict[str, set] = {}
    for entry in stats:
        for s in entry.get("stats") or []:
            nm, split = _stat_key(s.get("name") or {})
            if nm not in names:
                names.append(nm)
            splits.setdefault(nm, set()).add(split)
    rows = []
    for entry in stats:
        pert = entry.get("perturbation") or {}
        iid = render_json_value(entry.get("instance_id"))
        trial = int(entry.get("train_trial_index") or 0)
        pname = str(pert.get("name") or "")
        values = {}
        split = ""
        for s in entry.get("stats") or []:
            nm, sp = _stat_key(s.get("name") or {})
            values[nm] = _value(s)
            split = split or sp
        rs = requests.get((iid, trial, pname)) or {}
        inst, result = rs.get("instance") or {}, rs.get("result") or {}
        refs = [r for r in inst.get("references") or [] if "correct" in (r.get("tags") or [])]
        completions = result.get("completions") or []
        failed = rs and result.get("success") is False
        rows.append({
            "instance_id": iid, "item": iid if not pname else f"{iid} ({pname})", "train_trial": trial,
            "perturbation": pname or "original", "split": split or str(inst.get("split") or ""),
            "input": str((inst.get("input") or {}).get("text") or ""),
            "reference": str(((refs[0].get("output") or {}).get("text")) if refs else ""),
            "output": str(completions[0].get("text") or "") if completions else "",
            "error": (str(result.get("error") or "the request failed") if failed else ""), **values})
    frame = pd.DataFrame(rows)
    for c in ("instance_id", "item", "perturbation", "split", "input", "reference", "output", "error"):
        frame[c] = text_column(list(frame[c]))
    frame.insert(2, "run", text_column([run] * len(frame)))
    frame.insert(3, "model", text_column([model] * len(frame)))
    for nm in names:
        frame[nm] = frame[nm].astype(float) if nm in frame.columns else np.nan
    reported = _reported(aggregate)
    scorers = []
    for nm in names:
        if nm in BOOKKEEPING:  # a column of the table, never a scorer (its usage declared below)
            continue
        values = frame[nm].dropna()
        yes_no = nm.split("@")[0] in MAIN or "exact_match" in nm or "accuracy" in nm or "correct" in nm
        zero_one = bool(len(values)) and values.isin([0, 1]).all()
        if yes_no and zero_one:
            scale = BINARY
        elif nm in MEASURES or not values.between(0, 1).all():
            scale = MEASURE  # a log-probability is no 0/1 outcome even where every value is 0
        else:
            scale = SCORE
        split = next(iter(sorted(splits[nm])), "")
        rep = reported.get((nm, split, ""))
        scorers.append(Scorer(nm, nm, kind=RECORDED, scale=scale,
                              metric=(f"stats.json mean {format_value(rep[0], 'score')} (count {rep[1]}: the mean over train "
                                      "trials of each trial's mean over instances)") if rep else None,
                              reported=rep[0] if rep else None, reported_n=rep[1] if rep else None,
                              detail=("a HELM calibration metric (the model's confidence in its answer), as recorded "
                                      "per instance" if nm in SECONDARY else "a HELM metric, as recorded per instance")))
    scorers.sort(key=lambda s: s.name in SECONDARY)  # HELM's calibration input after its other metrics
    primary = next((m for m in MAIN if m in names), None)
    named = [str(n) for ms in spec.get("metric_specs") or [] for n in ((ms.get("args") or {}).get("names") or [])]
    if primary is None:
        primary = next((n for n in named if n in names and n not in BOOKKEEPING), None)
    if primary is None:
        primary = scorers[0].name if scorers else None
    trials = int(frame["train_trial"].max()) + 1 if len(frame) else 1
    perts = [p for p in dict.fromkeys(frame["perturbation"]) if p != "original"]
    notes = [f"HELM run '{run}' ({model}): {frame['instance_id'].nunique()} instances x {trials} train trials"
             + (f" x perturbations ({', '.join(perts)})" if perts else "") + f" = {len(frame)} rows, "
             f"{len(names)} stats named as HELM names them; items are instances (a perturbed copy is a slice "
             "of its instance, column 'perturbation'), train trials their repeats."]
    kept = [nm for nm in names if nm in BOOKKEEPING]
    if kept:
        used = [f"{nm} ({role.replace('_', ' ')})" for nm, role in _USAGE.items() if nm in kept]
        notes.append(f"{len(kept)} of them are HELM's bookkeeping (its infrastructure and efficiency stats: "
                     f"{', '.join(kept)}): columns of the table, not scorers"
                     + (f"; the usage is {', '.join(used)}" if used else "") + ".")
    if perts:
        notes.append("HELM's own numbers (stats.json) are over the original instances and, apart, over "
                     "each perturbation's copies: read a metric by slice (group 'perturbation'); a mean "
                     "over every row mixes originals with their perturbed copies.")
    if not scorers:
        notes.append("This run recorded no HELM metric per instance, only its bookkeeping: no scorer "
                     "(name a column with --scorer NAME to read one).")
    elif primary not in MAIN:
        notes.append(f"HELM names no main metric in a run folder and this run has none of its accuracy "
                     f"metrics; the primary scorer is '{primary}' (choose another with --scorer NAME).")
    only = _stats_only(aggregate, set(names))
    if only:
        notes.append("stats.json also reports, over the whole run (no value per instance, so no interval here): "
                     + "; ".join(f"{nm} {v:.10g} ({sp or 'no split'}, count {c})"
                                 for (nm, sp), (v, c) in only.items()) + ".")
    if aggregate is None:
        notes.append(f"Folder '{folder}' has no stats.json: HELM's own aggregates are not there to compare.")
    failed = int((frame["error"] != "").sum())
    if failed:
        notes.append(f"{failed} requests failed (scenario_state.json result.success false): errors, "
                     "left out and counted.")
    config = {"run": run, "model": model, "tool": "helm", "folder": folder, "file": path,
              "train_trials": str(trials), "max_eval_instances": str(adapter.get("max_eval_instances", "")),
              "method": str(adapter.get("method", "")), "scenario": str((spec.get("scenario_spec") or {}).get("class_name", ""))}
    usage = {role: nm for nm, role in _USAGE.items() if nm in frame.columns}
    evaluation = Evaluation(
        tool="helm", item="item", repeat="train_trial" if trials > 1 else None,
        repeat_source=f"train trials ({trials})" if trials > 1 else "", reduction="mean",
        system="model", runs=(Run(model, config),), scorers=tuple(scorers), primary=primary,
        error="error" if failed else None, usage=usage,
        metadata=("perturbation", "split", "instance_id"),
        notes=("HELM writes no version into a run folder.",))
    roles = {"item": "item", "train_trial": "epoch", "model": "version", "perturbation": "group",
             "instance_id": "cluster", "output": "prediction", "reference": "reference"}
    first = next((s for s in scorers if s.name == primary), None)
    if first is not None:
        roles[primary] = "success" if first.scale == BINARY else "score"
    if failed:
        roles["error"] = "error"
    if "inference_runtime" in frame.columns:
        roles["inference_runtime"] = "latency"
    return table(frame, path, fmt=FORMAT, notes=notes, row_lines=np.arange(1, len(frame) + 1, dtype=np.int64),
                 roles=roles, panel="aggregate" if primary else None,  # without an accuracy metric: the
                 # mean of the primary measure in its own unit (a log-probability is never a rate)
                 row_word="row",
                 row_names=[f"instance {i} trial {t}" + (f" ({p})" if p != "original" else "")
                            for i, t, p in zip(frame["instance_id"], frame["train_trial"], frame["perturbation"])],
                 evaluation=evaluation)


def _reported(aggregate: list | None) -> dict[tuple[str, str, str], tuple[float, int]]:
    """(name, split, perturbation/computed_on) -> (HELM's mean, its count) from stats.json."""
    out = {}
    for s in aggregate or []:
        name = s.get("name") or {}
        pert = name.get("perturbation") or {}
        key = (str(name.get("name")), str(name.get("split") or ""),
               f"{pert.get('name')}/{pert.get('computed_on')}" if pert else "")
        if isinstance(s.get("mean"), (int, float)) and not name.get("sub_split"):
            out[key] = (float(s["mean"]), int(s.get("count") or 0))
    return out


def _stats_only(aggregate: list | None, per_instance: set[str]) -> dict[tuple[str, str], tuple[float, int]]:
    """HELM's run-level metrics (classification_macro_f1, perplexity...): in stats.json, on the
    originals, but in no instance's stats; HELM's bookkeeping counts left out."""
    return {(nm, sp): v for (nm, sp, pert), v in _reported(aggregate).items()
            if not pert and nm not in per_instance and nm not in BOOKKEEPING}


def reported_slices(folder: str) -> dict[tuple[str, str, str], tuple[float, int]]:
    """HELM's stats.json means of a run folder, by (metric, split, perturbation/computed_on)."""
    return _reported(_read(folder, "stats.json", f"'{folder}'"))


__all__ = ["FORMAT", "STATS", "is_per_instance_stats", "is_run_folder", "load_run", "reported_slices",
           "run_folders"]
