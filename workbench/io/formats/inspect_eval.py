"""What an Inspect AI log holds, declared for the workbench (:mod:`workbench.io.evaluation`):
items are samples, repeats are epochs (reduced as the log's ``epochs_reducer`` says, ``mean``
by default), the run is the model on the task, and each scorer is declared with its kind (a
scorer given a grader ``model`` is a judge; several grader models, a judge panel), its scale
(C/I letters: binary; with P: partial credit; a dict of values: one criterion per key) and the
value Inspect itself reported for it (``results.scores``)."""

from __future__ import annotations

import json
from typing import Any

from workbench.io.evaluation import (BINARY, CODE, JUDGE, JUDGE_PANEL, PARTIAL, SCORE, Evaluation,
                                     Run, Scorer)

#: Inspect's judge scorers (they grade with a model even when no model is named: the task's own)
JUDGE_SCORERS = ("model_graded_qa", "model_graded_fact")
_NUMBERS = (int, float)


def declare(header: dict, frame: Any, declared: list[tuple[str, str, list]], path: str) -> Evaluation:
    """The evaluation of one Inspect log (``declared``: (column, scorer, raw values) per score
    column, as the reader made them)."""
    spec = header.get("eval") or {}
    model, task = str(spec.get("model", "")), str(spec.get("task", ""))
    version = str((spec.get("packages") or {}).get("inspect_ai") or "") or None
    config = spec.get("config") or {}
    reducer = config.get("epochs_reducer") or ["mean"]
    reducer = ", ".join(map(str, reducer)) if isinstance(reducer, list) else str(reducer)
    options = {str(s.get("name")): s.get("options") or {} for s in spec.get("scorers") or []
               if isinstance(s, dict)}
    reported = _reported(header)
    scorers = []
    for column, name, raw in declared:
        key = column.split(".", 1)[1] if column.startswith(f"{name}.") else None
        params = options.get(name) or reported.get((name, key or name), {}).get("params") or {}
        kind, models = _kind(name, params)
        scale = _scale(raw, params)
        rep = reported.get((name, key or name))
        scorers.append(Scorer(
            name=column if key is None else f"{name}.{key}", column=column, kind=kind, scale=scale,
            labels=f"{column}.grade" if f"{column}.grade" in frame.columns else None,
            group=name if key is not None else None, models=models,
            metric=(f"{rep['metric']} {rep['value']:.6g} over {rep['scored']} samples"
                    if rep and rep.get("value") is not None else None),
            detail=_detail(kind, scale, models, params)))
    headline = ((header.get("results") or {}).get("headline") or {})
    primary = None
    if headline.get("scorer"):
        primary = next((s.name for s in scorers if s.name == headline.get("score")
                        or s.name == headline.get("scorer")), None)
    if primary is None and scorers:
        primary = scorers[0].name
    usage = {k: k for k in ("input_tokens", "output_tokens", "total_tokens", "cost", "working_time",
                            "steps", "tool_calls", "model_calls") if k in frame.columns}
    if "total_time" in frame.columns:
        usage["latency"] = "total_time"
    usage.update({c: c for c in frame.columns if str(c).startswith(("tool_calls.", "grader_"))})
    epochs = int(frame["epoch"].max()) if len(frame) else 1
    return Evaluation(
        tool="inspect", tool_version=version, item="sample_id",
        repeat="epoch" if epochs > 1 else None,
        repeat_source=f"epochs ({epochs})" if epochs > 1 else "", reduction=reducer,
        system="model",
        runs=(Run(model, {"model": model, "task": task, "tool": "inspect_ai",
                          **({"version": version} if version else {}),
                          **({"eval_id": str(spec["eval_id"])} if spec.get("eval_id") else {}),
                          "epochs": str(epochs), "file": path}),),
        scorers=tuple(scorers), primary=primary,
        error="error" if "error" in frame.columns else None,
        limit="limit" if "limit" in frame.columns else None,
        usage=usage,
        metadata=tuple(c for c in frame.columns if str(c).startswith("metadata.")),
        notes=((f"Inspect reduces each sample's {epochs} epochs by '{reducer}' before its metrics."
                if epochs > 1 else ""),))


def _reported(header: dict) -> dict[tuple[str, str], dict]:
    """(scorer, score name) -> the metric Inspect reported for it, its value and counts."""
    out = {}
    for s in (header.get("results") or {}).get("scores") or []:
        if not isinstance(s, dict):
            continue
        metrics = s.get("metrics") or {}
        first = next(iter(metrics.values()), None) if isinstance(metrics, dict) else None
        out[(str(s.get("scorer") or s.get("name")), str(s.get("name")))] = {
            "metric": (first or {}).get("name"), "value": (first or {}).get("value"),
            "scored": s.get("scored_samples"), "unscored": s.get("unscored_samples"),
            "params": s.get("params") or {}}
    return out


def _kind(name: str, params: dict) -> tuple[str, tuple[str, ...]]:
    """A scorer with a grader model (or one of Inspect's model-graded scorers) is a judge; with
    several grader models, a judge panel."""
    model = params.get("model")
    models: list[str] = []
    if isinstance(model, list):
        models = [_model_name(m) for m in model]
    elif model is not None:
        models = [_model_name(model)]
    if len(models) > 1:
        return JUDGE_PANEL, tuple(models)
    if models or name.split("/")[-1] in JUDGE_SCORERS:
        return JUDGE, tuple(models)
    return CODE, ()


def _model_name(model: Any) -> str:
    if isinstance(model, dict):
        return str(model.get("model") or model.get("name") or json.dumps(model, sort_keys=True))
    return str(model)


def _scale(raw: list, params: dict) -> str:
    letters = {v for v in raw if isinstance(v, str)}
    numbers = {float(v) for v in raw if isinstance(v, _NUMBERS) and not isinstance(v, bool) and v == v}
    if any(isinstance(v, bool) for v in raw):
        numbers |= {float(v) for v in raw if isinstance(v, bool)}
    if "P" in letters or params.get("partial_credit") or (numbers and numbers <= {0.0, 0.5, 1.0}
                                                          and 0.5 in numbers):
        return PARTIAL
    if (letters <= {"C", "I", "N"}) and numbers <= {0.0, 1.0}:
        return BINARY
    return SCORE


def _detail(kind: str, scale: str, models: tuple[str, ...], params: dict) -> str:
    words = []
    if models:
        words.append(("graded by " if len(models) == 1 else "majority of ") + ", ".join(models))
    if scale == PARTIAL and (models or params.get("partial_credit")):
        words.append("C/P/I read as 1/0.5/0")
    return "; ".join(words)


__all__ = ["declare"]
