"""promptfoo results (``promptfoo eval -o results.json``).

One row per test x prompt x provider: ``provider`` (its label, else its id), ``prompt`` (its
label), ``test`` (the test's index in the config, as text), ``item`` (the test, or test and
prompt when the config has several prompts: the pairing key for Compare), ``description``,
``vars.<name>`` (each test variable, as text), ``output``, ``success`` (pass as 1/0), ``score``,
``latency_ms``, ``cost``, ``tokens_prompt``, ``tokens_completion``, ``tokens_total``,
``named.<metric>`` (named scores) and ``reason`` (the failure reason or error).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from workbench.core.errors import DataError
from workbench.io.formats._common import render_json_value, table, text_column, typed_column

FORMAT = "promptfoo"


def _rows(value: dict) -> list | None:
    results = value.get("results")
    if isinstance(results, dict) and isinstance(results.get("results"), list):
        return results["results"]
    if isinstance(results, list) and results and isinstance(results[0], dict) \
            and "provider" in results[0] and ("success" in results[0] or "gradingResult" in results[0]):
        return results
    return None


def is_results(value: dict) -> bool:
    rows = _rows(value)
    return bool(rows) and ("evalId" in value or "config" in value
                           or ("provider" in rows[0] and ("latencyMs" in rows[0]
                                                          or "gradingResult" in rows[0])))


def load(value: dict, path: str, shown: str):
    rows = _rows(value) or []
    if not rows:
        raise DataError(f"File {shown} is a promptfoo results file with no results; expected at "
                        "least one test result.")
    n = len(rows)

    def provider(r: dict) -> str:
        p = r.get("provider")
        if isinstance(p, dict):
            return str(p.get("label") or p.get("id") or "")
        return render_json_value(p)

    def prompt(r: dict) -> str:
        p = r.get("prompt")
        if isinstance(p, dict):
            return str(p.get("label") or p.get("raw") or "")
        return render_json_value(p)

    tests = [render_json_value(r.get("testIdx", "")) for r in rows]
    prompts = [prompt(r) for r in rows]
    several_prompts = len(set(prompts)) > 1  # promptIdx counts prompt x provider, not prompts
    columns: dict[str, Any] = {
        "provider": text_column([provider(r) for r in rows]),
        "prompt": text_column(prompts),
        "test": text_column(tests),
        "item": text_column([f"{t} / {p}" if several_prompts else t for t, p in zip(tests, prompts)]),
        "description": text_column([((r.get("testCase") or {}).get("description") or "")
                                    for r in rows]),
    }
    var_names = list(dict.fromkeys(k for r in rows for k in (r.get("vars") or {})))
    for name in var_names:
        columns[f"vars.{name}"] = text_column([(r.get("vars") or {}).get(name) for r in rows])
    columns["output"] = text_column([_output(r) for r in rows])
    success = [r.get("success") if "success" in r else (r.get("gradingResult") or {}).get("pass")
               for r in rows]
    columns["success"], _ = typed_column([None if s is None else bool(s) for s in success])
    columns["score"], _ = typed_column([_number(r.get("score", (r.get("gradingResult") or {})
                                                        .get("score"))) for r in rows])
    columns["latency_ms"], _ = typed_column([_number(r.get("latencyMs")) for r in rows])
    columns["cost"], _ = typed_column([_number(r.get("cost", (r.get("response") or {}).get("cost")))
                                       for r in rows])
    for key in ("prompt", "completion", "total"):
        columns[f"tokens_{key}"], _ = typed_column(
            [_number((r.get("tokenUsage") or (r.get("response") or {}).get("tokenUsage") or {})
                     .get(key)) for r in rows])
    named = list(dict.fromkeys(k for r in rows for k in (r.get("namedScores") or {})))
    for name in named:
        columns[f"named.{name}"], _ = typed_column(
            [_number((r.get("namedScores") or {}).get(name)) for r in rows])
    columns["reason"] = text_column([_reason(r) for r in rows])
    frame = pd.DataFrame(columns)
    providers = list(dict.fromkeys(frame["provider"]))
    notes = [f"Read as promptfoo results ({len(providers)} provider"
             f"{'s' if len(providers) > 1 else ''}: {', '.join(repr(p) for p in providers[:5])}; "
             f"{frame['test'].nunique()} tests; {n} rows, one per test x prompt x provider): "
             "pass read as success 1/0, latency in milliseconds, cost in the provider's units "
             "(US dollars for promptfoo's built-in prices)."]
    if several_prompts:
        notes.append("The config has several prompts: items pair a test with a prompt "
                     "(column 'item').")
    missing = int(np.isnan(np.asarray(columns["cost"], dtype=float)).sum())
    if missing:
        notes.append(f"{missing} rows have no cost.")
    roles = {"provider": "system", "item": "item", "success": "success", "cost": "cost",
             "latency_ms": "latency", "output": "prediction"}
    return table(frame, path, fmt=FORMAT, notes=notes, row_lines=np.arange(1, n + 1),
                 roles=roles, panel="cost", row_word="row")


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or value is None:
        return None if value is None else float(value)
    if isinstance(value, (int, float)):
        return float(value)
    return None


def _output(r: dict) -> str:
    response = r.get("response") or {}
    out = response.get("output")
    return render_json_value(out) if out is not None else ""


def _reason(r: dict) -> str:
    if r.get("error"):
        return render_json_value(r["error"])
    grading = r.get("gradingResult") or {}
    if grading and not grading.get("pass", True):
        return render_json_value(grading.get("reason", ""))
    return ""
