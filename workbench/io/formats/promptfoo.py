"""promptfoo results (``promptfoo eval -o results.json``).

One row per test x prompt x provider: ``provider`` (its label, else its id), ``prompt`` (its
label), ``test`` (the test's index in the config, as text), ``item`` (the test, or test and
prompt when the config has several prompts: the pairing key for Compare), ``description``,
``vars.<name>`` (each test variable, as text), ``output``, ``success`` (pass as 1/0), ``score``,
``latency_ms``, ``cost``, ``tokens_prompt``, ``tokens_completion``, ``tokens_total``,
``named.<metric>`` (named scores), ``reason`` (the failure reason or error), and, when a test
has several assertions, ``assert.<metric>`` (each assertion's pass as 1/0) with
``reason.<metric>`` (its grader's reason, e.g. an llm-rubric's).
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pandas as pd

from workbench.core.errors import DataError
from workbench.io.formats import promptfoo_eval
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
    tests = [render_json_value(r.get("testIdx", "")) for r in rows]
    prompts = [_prompt_of(r) for r in rows]
    providers, same_name = _distinct_providers([_provider_of(r) for r in rows], tests, prompts, rows)
    several_prompts = len(set(prompts)) > 1  # promptIdx counts prompt x provider, not prompts
    columns: dict[str, Any] = {
        "provider": text_column(providers),
        "prompt": text_column(prompts),
        "test": text_column(tests),
        "item": text_column([f"{t} / {p}" if several_prompts else t for t, p in zip(tests, prompts)]),
        "description": text_column([((r.get("testCase") or {}).get("description") or "")
                                    for r in rows]),
    }
    repeats = _repeats(rows)
    if repeats is not None:  # promptfoo --repeat N: each test case N times, each with its testIdx
        columns["test_case"] = text_column(repeats[0])
        columns["repeat"] = np.asarray(repeats[1], dtype=np.int64)
    var_names = list(dict.fromkeys(k for r in rows for k in (r.get("vars") or {})))
    for name in var_names:
        columns[f"vars.{name}"] = text_column([(r.get("vars") or {}).get(name) for r in rows])
    columns["output"] = text_column([_output(r) for r in rows])
    columns.update(_score_columns(rows))
    asserts, weights = _assertion_columns(rows)
    columns.update(asserts)
    columns["reason"] = text_column([_reason(r) for r in rows])
    cached = [bool((r.get("response") or {}).get("cached")) if isinstance(r.get("response"), dict)
              else False for r in rows]
    if any(cached):
        columns["cached"] = np.array(cached, dtype=np.int64)
    errors = [_provider_error(r) for r in rows]
    if any(errors):
        columns["error"] = text_column(errors)
    frame = pd.DataFrame(columns)
    names = [f"test {t}{f' / {p}' if several_prompts else ''} of '{v}'"
             for t, p, v in zip(frame["test"], frame["prompt"], frame["provider"])]
    notes = _notes(frame, columns, n, several_prompts, same_name, errors, cached, names,
                   [c for c in asserts if c.startswith("assert.")], repeats)
    if _weights_note(weights):
        notes.append(_weights_note(weights))
    roles = {"provider": "system", "item": "item", "success": "success", "cost": "cost",
             "latency_ms": "latency", "output": "prediction",
             **({"error": "error"} if any(errors) else {}),
             **({"test_case": "task", "repeat": "epoch"} if repeats is not None else {})}
    return table(frame, path, fmt=FORMAT, notes=notes, row_lines=np.arange(1, n + 1),
                 roles=roles, panel="repeats" if repeats is not None else "cost", row_word="row",
                 row_names=names,
                 evaluation=promptfoo_eval.declare(value, rows, frame, weights, path, repeats is not None))


def _provider_of(r: dict) -> str:
    p = r.get("provider")
    if isinstance(p, dict):
        return str(p.get("label") or p.get("id") or "")
    return render_json_value(p)


def _prompt_of(r: dict) -> str:
    p = r.get("prompt")
    if isinstance(p, dict):
        return str(p.get("label") or p.get("raw") or "")
    return render_json_value(p)


def _score_columns(rows: list[dict]) -> dict[str, Any]:
    """Pass (success), score, latency, cost, tokens and the named scores of each result."""
    out: dict[str, Any] = {}
    success = [r.get("success") if "success" in r else (r.get("gradingResult") or {}).get("pass")
               for r in rows]
    out["success"], _ = typed_column([None if s is None else bool(s) for s in success])
    out["score"], _ = typed_column([_number(r.get("score", (r.get("gradingResult") or {})
                                                    .get("score"))) for r in rows])
    out["latency_ms"], _ = typed_column([_number(r.get("latencyMs")) for r in rows])
    out["cost"], _ = typed_column([_number(r.get("cost", (r.get("response") or {}).get("cost")))
                                   for r in rows])
    for key in ("prompt", "completion", "total"):
        out[f"tokens_{key}"], _ = typed_column(
            [_number((r.get("tokenUsage") or (r.get("response") or {}).get("tokenUsage") or {})
                     .get(key)) for r in rows])
    named = list(dict.fromkeys(k for r in rows for k in (r.get("namedScores") or {})))
    for name in named:
        out[f"named.{name}"], _ = typed_column(
            [_number((r.get("namedScores") or {}).get(name)) for r in rows])
    return out


def _assertion_key(assertion: dict, seen: dict[str, int]) -> str:
    """An assertion's criterion name: its ``metric``, else its type; a second one of the same
    name in one test gets '#2'."""
    base = str(assertion.get("metric") or assertion.get("type") or "assertion")
    seen[base] = seen.get(base, 0) + 1
    return base if seen[base] == 1 else f"{base} #{seen[base]}"


def _assertion_columns(rows: list[dict]) -> tuple[dict[str, Any], dict[str, list]]:
    """One 0/1 column per assertion (``assert.<metric or type>``) from each result's
    gradingResult.componentResults: a rubric's criteria; blank where a test lacks it; beside it
    the grader's reason (``reason.<metric or type>``: an llm-rubric or model-graded reason).
    Only when some result has two or more assertions (one assertion is the pass column
    already).  Also returns each criterion's weights as the config gave them (promptfoo's
    score is the weighted mean of the assertions' scores)."""
    per_row, reasons, weights = [], [], {}
    for r in rows:
        seen: dict[str, int] = {}
        got, why = {}, {}
        for part in (r.get("gradingResult") or {}).get("componentResults") or []:
            if isinstance(part, dict) and isinstance(part.get("assertion"), dict) and "pass" in part:
                key = _assertion_key(part["assertion"], seen)
                got[key] = bool(part["pass"])
                why[key] = render_json_value(part.get("reason") or "")
                weight = _number(part["assertion"].get("weight"))
                weights.setdefault(key, [])
                if (1.0 if weight is None else weight) not in weights[key]:
                    weights[key].append(1.0 if weight is None else weight)
        per_row.append(got)
        reasons.append(why)
    if not any(len(g) >= 2 for g in per_row):
        return {}, {}
    names = list(dict.fromkeys(k for g in per_row for k in g))
    out: dict[str, Any] = {f"assert.{k}": np.array([float(g[k]) if k in g else np.nan for g in per_row])
                           for k in names}
    for k in names:
        if any(w.get(k) for w in reasons):
            out[f"reason.{k}"] = text_column([w.get(k, "") for w in reasons])
    return out, {k: weights[k] for k in names}


def _weights_note(weights: dict[str, list]) -> str | None:
    """The assertions' weights, when any is not 1: the weights to give the Rubric panel."""
    if all(w == [1.0] for w in weights.values()):
        return None
    if any(len(w) > 1 for w in weights.values()):
        return ("The assertions' weights differ between tests (" + "; ".join(
            f"{k}: {', '.join(f'{x:g}' for x in w)}" for k, w in weights.items()) + ").")
    return ("The assertions have weights (" + ", ".join(f"{k} {w[0]:g}" for k, w in weights.items())
            + "): promptfoo's score is the weighted mean of their scores; give the Rubric panel "
            "--weights " + ",".join(f"{w[0]:g}" for w in weights.values()) + " for the same weights.")


def _repeats(rows: list[dict]):
    """(test case id, repeat number) per row when promptfoo ran each test case several times
    (--repeat: the same description and vars under several testIdx), else None.  The test case
    is named by its first testIdx; repeats are numbered 1, 2... in testIdx order."""
    def case(r: dict) -> str:
        tc = r.get("testCase") or {}
        return json.dumps([tc.get("description"), r.get("vars")], sort_keys=True, default=str)

    keys = [case(r) for r in rows]
    indices: dict[str, list] = {}
    for i in sorted(range(len(rows)), key=lambda i: _number(rows[i].get("testIdx")) or 0):
        seen = indices.setdefault(keys[i], [])
        if rows[i].get("testIdx") not in seen:
            seen.append(rows[i].get("testIdx"))
    if all(len(v) == 1 for v in indices.values()):
        return None
    cases = [render_json_value(indices[k][0]) for k in keys]
    number = [indices[k].index(r.get("testIdx")) + 1 for k, r in zip(keys, rows)]
    return cases, number


def _notes(frame, columns, n, several_prompts, same_name, errors, cached, names, asserts, repeats) -> list[str]:
    providers = list(dict.fromkeys(frame["provider"]))
    notes = [f"Read as promptfoo results ({len(providers)} provider"
             f"{'s' if len(providers) > 1 else ''}: {', '.join(repr(p) for p in providers[:5])}; "
             f"{frame['test'].nunique()} tests; {n} rows, one per test x prompt x provider): "
             "pass read as success 1/0, latency in milliseconds, cost in the provider's units "
             "(US dollars for promptfoo's built-in prices)."]
    if repeats is not None:
        k = max(repeats[1])
        notes.append(f"promptfoo ran each test case several times (--repeat, up to {k}): column "
                     f"'test_case' names the case (its first test number), 'repeat' the try; the "
                     f"Repeats panel reads them.")
    if asserts:
        notes.append(f"Each assertion's pass is a 0/1 column ({', '.join(asserts)}), named by its "
                     f"metric (else its type), its grader's reason in 'reason.<name>': the Rubric "
                     f"panel reads them as criteria.")
    if several_prompts:
        notes.append("The config has several prompts: items pair a test with a prompt "
                     "(column 'item').")
    if same_name:
        notes.append(f"Several providers share a name ({', '.join(repr(x) for x in same_name)}): "
                     "each is told apart by its order in the config (promptfoo's promptIdx), "
                     "as '<name> #1', '<name> #2'...; give them labels to name them.")
    missing = int(np.isnan(np.asarray(columns["cost"], dtype=float)).sum())
    if missing:
        notes.append(f"{missing} rows have no cost.")
    if any(errors):
        failed = [name for name, e in zip(names, errors) if e]
        notes.append(f"{len(failed)} of {n} requests ended with a provider error (column 'error'; "
                     f"promptfoo's failureReason 2): {', '.join(failed[:5])}"
                     f"{' ...' if len(failed) > 5 else ''}. promptfoo records a latency ("
                     + _values(columns["latency_ms"], errors, " ms") + ") and a cost ("
                     + _values(columns["cost"], errors, "") + ") for them that measure no answer: "
                     "the analyses leave them out unless told to count them as failures "
                     "(--errors fail), and never use their latency or cost.")
    if any(cached):
        notes.append(f"{sum(cached)} of {n} responses came from promptfoo's cache (column "
                     "'cached'): their latency is the cache's, not the provider's; run promptfoo "
                     "with --no-cache to measure latency.")
    return notes


def _values(column: Any, errors: list[str], unit: str) -> str:
    """The distinct values of a number column on the errored rows, as text ("1 ms", "none")."""
    values = sorted({float(x) for x, e in zip(np.asarray(column, dtype=float), errors)
                     if e and x == x})
    return ", ".join(f"{x:g}{unit}" for x in values[:4]) + (" ..." if len(values) > 4 else "") \
        if values else "none"


def _distinct_providers(names: list[str], tests: list[str], prompts: list[str], rows: list[dict]):
    """Provider names, made distinct where two providers share one (the same id without a
    label, run twice with different options): several results for one test and prompt under
    one name.  They are told apart by promptfoo's ``promptIdx`` (one per prompt x provider),
    ranked within each (name, prompt) so that the n-th such provider is '#n' for every prompt."""
    counts: dict[tuple[str, str, str], int] = {}
    for key in zip(names, tests, prompts):
        counts[key] = counts.get(key, 0) + 1
    shared = list(dict.fromkeys(name for (name, _, _), c in counts.items() if c > 1))
    if not shared:
        return names, []
    slots: dict[tuple[str, str], list] = {}
    for name, p, r in zip(names, prompts, rows):
        if name in shared:
            slot = slots.setdefault((name, p), [])
            idx = r.get("promptIdx")
            if idx not in slot:
                slot.append(idx)
    out = []
    for name, p, r in zip(names, prompts, rows):
        if name in shared:
            order = sorted(slots[(name, p)], key=lambda v: (v is None, v if isinstance(v, int) else 0))
            out.append(f"{name} #{order.index(r.get('promptIdx')) + 1}")
        else:
            out.append(name)
    return out, shared


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


#: promptfoo's ResultFailureReason: 0 none, 1 an assertion failed, 2 an error (provider, grader).
_FAILURE_ERROR = 2


def _provider_error(r: dict) -> str:
    """The error of a request that produced no answer to grade (a provider error): promptfoo's
    ``failureReason`` 2, or a ``response.error``; promptfoo also puts a failed assertion's
    reason in ``error``, which is a measurement (failureReason 1) and is not one of these."""
    response = r.get("response") if isinstance(r.get("response"), dict) else {}
    reason = r.get("failureReason")
    if reason == _FAILURE_ERROR or (reason is None and response.get("error")):
        text = r.get("error") or response.get("error") or "error"
        return render_json_value(text)
    return ""


def _reason(r: dict) -> str:
    if r.get("error"):
        return render_json_value(r["error"])
    grading = r.get("gradingResult") or {}
    if grading and not grading.get("pass", True):
        return render_json_value(grading.get("reason", ""))
    return ""
