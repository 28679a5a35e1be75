"""DeepEval test runs: the JSON it saves in ``DEEPEVAL_RESULTS_FOLDER`` (``test_run_*.json``) or
its ``.deepeval/.latest_test_run.json`` copy (the same run under ``testRunData``).

One row per test case (``testCases[]``, and ``conversationalTestCases[]``): ``test_case`` (its
``name``, exact text), ``order``, ``input``, ``actual_output``, ``expected_output``, ``success``
(the case's own: every metric passed, DeepEval's ``testPassed``/``testFailed``), the evaluated
model's ``token_cost`` and ``completion_time`` (set on the test case), the metrics' cost
``evaluation_cost`` (the judge's: another stream, kept apart), ``metadata.<key>``; per metric
``M`` (``metricsData[]``): ``M.success`` (DeepEval's own decision, 0/1; blank when the metric
errored), ``M.score`` (blank when it errored or returned NaN), ``M.reason``, ``M.error`` (the
error text: an errored metric is no measurement, never a failure), ``M.evaluation_cost``,
``M.input_tokens``, ``M.output_tokens`` (the judge's), ``M.evaluation_model``.

Three layouts are read: 4.x (``testPassed``, ``metricsScores`` with passes/fails/errors, ``order``,
``tokenCost``, ``metadata``), 1.x (no counts, ``additionalMetadata``, the error's bare text) and
0.x (to 0.21: ``metricsMetadata[]`` keyed ``metric``, the model's ``latency`` and ``cost``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from workbench.core.numbers import format_value, plural
from workbench.io.evaluation import BINARY, CODE, JUDGE, SCORE, Evaluation, Run, Scorer
from workbench.io.formats._common import almost, render_json_value, table, text_column

FORMAT = "deepeval"
_MARKERS = ("testCases", "test_cases", "conversationalTestCases", "conversational_test_cases", "metricsScores",
            "metrics_scores", "testPassed", "test_passed")


def run_of(value: Any) -> dict | None:
    """The test run inside a parsed file (``testRunData`` unwrapped), if it is one."""
    if isinstance(value, dict) and isinstance(value.get("testRunData"), dict):
        value = value["testRunData"]
    if isinstance(value, dict) and sum(k in value for k in _MARKERS) >= 2:
        return value
    return None


def looks_like(value: Any) -> bool:
    """A DeepEval file, readable or not (``testRunData``, or its test-run keys)."""
    return isinstance(value, dict) and ("testRunData" in value or run_of(value) is not None)


def _get(d: dict, *keys: str) -> Any:
    for k in keys:
        if k in d:
            return d[k]
    return None


def load(value: dict, path: str, shown: str):
    run = run_of(value)
    expected = ("a DeepEval test run (testCases[] each with name, input, actualOutput, success "
                "and metricsData[] of name, threshold, success, score), as deepeval 1.x to 4.x "
                "save it")
    if run is None:
        raise almost(shown, None, "holds 'testRunData' without a DeepEval test run in it", expected)
    cases = _get(run, "testCases", "test_cases")
    conv = _get(run, "conversationalTestCases", "conversational_test_cases") or []
    if not isinstance(cases, list) or not isinstance(conv, list):
        raise almost(shown, None, "has a 'testCases' entry that is not a list", expected)
    cases = [_normalized(c) for c in list(cases) + list(conv)]
    if not cases:
        raise almost(shown, None, "is a DeepEval test run with no test cases", expected)
    for i, case in enumerate(cases):
        metrics = _get(case, "metricsData", "metrics_data") if isinstance(case, dict) else None
        if not isinstance(metrics, list) or not all(isinstance(m, dict) and "name" in m for m in metrics):
            found = ("is not an object" if not isinstance(case, dict) else
                     "has no 'metricsData' list" if not isinstance(metrics, list) else
                     "has a metric without a 'name'")
            raise almost(shown, i + 1, f"{found} (a layout of DeepEval this workbench does not know)",
                         expected, word="test case")
    return _table(run, cases, path, shown, wrapped="testRunData" in value)


def _normalized(case: Any) -> Any:
    """A test case of deepeval 0.x (to 0.21: ``metricsMetadata[]`` keyed ``metric``, the model's
    ``latency`` and ``cost``) in the later names (``metricsData[]`` keyed ``name``,
    ``completionTime``, ``tokenCost``); marked ``_layout`` 0.x. Later layouts unchanged."""
    if not isinstance(case, dict) or "metricsData" in case or "metrics_data" in case:
        return case
    old = case.get("metricsMetadata", case.get("metrics_metadata"))
    if not isinstance(old, list):
        return case
    out = {k: v for k, v in case.items() if k not in ("metricsMetadata", "metrics_metadata", "latency", "cost")}
    out["metricsData"] = [{**m, "name": m.get("metric")} if isinstance(m, dict) and "name" not in m
                          and m.get("metric") is not None else m for m in old]
    if "latency" in case and "completionTime" not in case:
        out["completionTime"] = case["latency"]
    if "cost" in case and "tokenCost" not in case:
        out["tokenCost"] = case["cost"]
    out["_layout"] = "0.x"
    return out


def _table(run: dict, cases: list[dict], path: str, shown: str, wrapped: bool):
    n = len(cases)
    names = []
    for i, case in enumerate(cases):
        name = case.get("name")
        names.append(render_json_value(name) if name is not None else f"test_case_{i}")
    metrics = list(dict.fromkeys(str(m["name"]) for c in cases for m in _get(c, "metricsData", "metrics_data")))
    hyper = run.get("hyperparameters") or {}
    model = str(hyper.get("model") or "") or "deepeval run"
    cols: dict[str, Any] = {"test_case": text_column(names), "model": text_column([model] * n)}
    order = [_get(c, "order") for c in cases]
    cols["order"] = np.array([o if isinstance(o, int) else i for i, o in enumerate(order)], dtype=np.int64)
    for key, out in (("input", "input"), ("actualOutput", "actual_output"),
                     ("expectedOutput", "expected_output"), ("context", "context"),
                     ("retrievalContext", "retrieval_context"), ("turns", "turns")):
        snake = "".join("_" + ch.lower() if ch.isupper() else ch for ch in key)
        values = [_get(c, key, snake) for c in cases]
        if any(v is not None for v in values):
            cols[out] = text_column(values)
    cols["success"] = _flags([c.get("success") for c in cases])
    usage_keys = {}
    for key, out, usage in (("tokenCost", "token_cost", "cost"), ("completionTime", "completion_time", "latency"),
                            ("inputTokenCount", "input_tokens", "input_tokens"),
                            ("outputTokenCount", "output_tokens", "output_tokens"),
                            ("evaluationCost", "evaluation_cost", "grader_cost")):
        snake = "".join("_" + ch.lower() if ch.isupper() else ch for ch in key)
        values = [_num(_get(c, key, snake)) for c in cases]
        if any(v is not None for v in values):
            cols[out] = np.array([np.nan if v is None else v for v in values], dtype=float)
            usage_keys[usage] = out
    errors_by_metric, kinds, directions = {}, {}, {}
    thresholds: dict[str, list[float]] = {}
    judge_tokens = {"grader_input_tokens": np.zeros(n), "grader_output_tokens": np.zeros(n)}
    has_tokens = False
    for name in metrics:
        data = [_metric(c, name) for c in cases]
        present = [d is not None for d in data]
        errors = [str(d.get("error")) if d is not None and d.get("error") not in (None, "") else "" for d in data]
        score = [np.nan if d is None or errors[i] else _score(d) for i, d in enumerate(data)]
        success = [np.nan if d is None or errors[i] or d.get("success") is None else float(bool(d["success"]))
                   for i, d in enumerate(data)]
        cols[f"{name}.success"] = np.array(success, dtype=float)
        cols[f"{name}.score"] = np.array(score, dtype=float)
        cols[f"{name}.reason"] = text_column([(d or {}).get("reason") for d in data])
        cols[f"{name}.error"] = text_column(errors)
        for key, out in (("evaluationCost", "evaluation_cost"), ("inputTokenCount", "input_tokens"),
                         ("outputTokenCount", "output_tokens")):
            snake = "".join("_" + ch.lower() if ch.isupper() else ch for ch in key)
            values = [_num(_get(d, key, snake)) if d is not None else None for d in data]
            if any(v is not None for v in values):
                cols[f"{name}.{out}"] = np.array([np.nan if v is None else v for v in values], dtype=float)
                if out != "evaluation_cost":
                    has_tokens = True
                    judge_tokens[f"grader_{out}"] += np.array([v or 0 for v in values], dtype=float)
        models = sorted({str(_get(d, "evaluationModel", "evaluation_model")) for d in data
                         if d is not None and _get(d, "evaluationModel", "evaluation_model")})
        if models:
            cols[f"{name}.evaluation_model"] = text_column(
                [_get(d, "evaluationModel", "evaluation_model") if d is not None else None for d in data])
        kinds[name] = models
        thresholds[name] = sorted({float(d["threshold"]) for d in data if d is not None
                                   and isinstance(d.get("threshold"), (int, float))})
        directions[name] = _direction(score, success, thresholds[name])
        errors_by_metric[name] = (sum(1 for e in errors if e), sum(present))
    if has_tokens:
        for key, values in judge_tokens.items():
            cols[key] = values
            usage_keys[key] = key
    meta = [_get(c, "metadata", "additionalMetadata", "additional_metadata") for c in cases]
    keys = list(dict.fromkeys(k for m in meta if isinstance(m, dict) for k, v in m.items()
                              if not isinstance(v, (dict, list))))
    for k in keys:
        cols[f"metadata.{k}"] = text_column([(m or {}).get(k) if isinstance(m, dict) else None for m in meta])
    frame = pd.DataFrame(cols)
    layout = ("0.x" if any(c.get("_layout") == "0.x" for c in cases) else
              "4.x" if "testPassed" in run or "test_passed" in run else "1.x")
    notes = _notes(run, frame, metrics, errors_by_metric, directions, layout, wrapped, usage_keys)
    evaluation = _evaluation(run, frame, metrics, kinds, thresholds, directions, usage_keys, keys,
                             path, model, layout)
    # one run of one try per item: its items are pass@k's tasks (pass@1 is the pass rate) and its
    # system column is read as a version (Aggregation answers with its overall rate); stacked with
    # other runs they become the items and the systems again (combine.py)
    roles = {"test_case": "task", "model": "version", "success": "success",
             "actual_output": "prediction", "expected_output": "reference"}
    if "token_cost" in usage_keys.values():
        roles["token_cost"] = "cost"
    if "completion_time" in usage_keys.values():
        roles["completion_time"] = "latency"
    return table(frame, path, fmt=FORMAT, notes=notes, row_lines=np.arange(1, n + 1, dtype=np.int64),
                 roles=roles, panel="cost" if "token_cost" in frame.columns else "passk", row_word="test case",
                 row_names=[f"test case {x}" for x in names], evaluation=evaluation)


def _metric(case: dict, name: str) -> dict | None:
    for m in _get(case, "metricsData", "metrics_data"):
        if str(m.get("name")) == name:
            return m
    return None


def _cost(value: Any) -> str:
    return format_value(float(value), "cost") if isinstance(value, (int, float)) else "not recorded"


def _num(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def _score(d: dict) -> float:
    value = _num(d.get("score"))
    return np.nan if value is None else value


def _flags(values: list) -> Any:
    if all(isinstance(v, bool) for v in values):
        return np.array(values, dtype=np.int64)
    return np.array([np.nan if v is None else float(bool(v)) for v in values], dtype=float)


def _direction(score: list[float], success: list[float], thresholds: list[float]) -> bool | None:
    """True (higher is better), False (lower) or None, read from DeepEval's own decisions: the
    scores it passed and failed against the threshold (never recomputed)."""
    if len(thresholds) != 1:
        return None
    t = thresholds[0]
    pairs = [(s, ok) for s, ok in zip(score, success) if not math.isnan(s) and not math.isnan(ok) and s != t]
    if not pairs:
        return None
    if all((s > t) == bool(ok) for s, ok in pairs):
        return True
    if all((s < t) == bool(ok) for s, ok in pairs):
        return False
    return None


def _notes(run: dict, frame: pd.DataFrame, metrics: list[str], errors: dict, directions: dict,
           layout: str, wrapped: bool, usage: dict) -> list[str]:
    n = len(frame)
    passed = int(np.nansum(frame["success"].to_numpy(dtype=float)))
    notes = [(f"DeepEval test run ({layout} layout{', from testRunData' if wrapped else ''}): {n} test "
              f"cases, {len(metrics)} metrics ({', '.join(metrics)}); one row per test case, items by "
              "its name (exact text).")]
    said = ""
    passed_n, failed_n = _get(run, "testPassed", "test_passed"), _get(run, "testFailed", "test_failed")
    if isinstance(passed_n, int):
        said = f" (DeepEval's testPassed {passed_n}, testFailed {failed_n})"
    notes.append(f"Column 'success' is DeepEval's own decision for the test case (every metric "
                 f"passed): {passed} of {n} passed{said}; a case with an errored metric is a failed "
                 "case there.")
    for name in metrics:
        count, present = errors[name]
        if count:
            notes.append(f"Metric '{name}' errored on {count} of {plural(present, 'test case')} (column "
                         f"'{name}.error'): no measurement, left out of that metric's numbers and "
                         "counted (--errors fail counts them as failures), never a silent failure.")
        if directions.get(name) is False:
            notes.append(f"Metric '{name}' is lower-is-better: DeepEval passed scores at or below "
                         "its threshold; its own success column is used as recorded, never "
                         "recomputed from score and threshold.")
        absent = n - present
        if absent:
            notes.append(f"Metric '{name}' has no result on {plural(absent, 'test case')} (no entry in their "
                         "metricsData: DeepEval did not run it there, e.g. skipped for a missing test-case "
                         f"parameter): blank, counted neither passed nor failed, as in DeepEval's metricsScores.")
        nan = int(np.isnan(frame[f"{name}.score"]).sum()) - count - absent
        if nan > 0:
            notes.append(f"Metric '{name}' returned no score (NaN) on {plural(nan, 'test case')} that DeepEval "
                         f"still decided (failed): blank in '{name}.score', counted in '{name}.success'.")
    total = _get(run, "evaluationCost", "evaluation_cost")
    if "grader_cost" in usage and "cost" not in usage:
        notes.append("Column 'evaluation_cost' is the metrics' (the judge's) cost, DeepEval's "
                     f"evaluationCost {_cost(total)} in total; this layout records no "
                     "cost of the evaluated model.")
    elif "grader_cost" in usage:
        notes.append("Two cost streams kept apart: 'token_cost' is the evaluated model's cost set on "
                     "each test case (in no DeepEval total); 'evaluation_cost' is the metrics' (the "
                     f"judge's) cost, DeepEval's evaluationCost {_cost(total)} in total.")
    return notes


def _evaluation(run: dict, frame: pd.DataFrame, metrics: list[str], kinds: dict, thresholds: dict,
                directions: dict, usage: dict, meta_keys: list[str], path: str, model: str,
                layout: str) -> Evaluation:
    reported = {str(m.get("metric")): m for m in _get(run, "metricsScores", "metrics_scores") or []
                if isinstance(m, dict)}
    n = len(frame)
    passed_n, failed_n = _get(run, "testPassed", "test_passed"), _get(run, "testFailed", "test_failed")
    case_said = f"testPassed {passed_n}, testFailed {failed_n}" if isinstance(passed_n, int) else None
    scorers = [Scorer("success", "success", kind=CODE, scale=BINARY, passed="success",
                      metric=case_said, detail="the test case's own success in DeepEval: every "
                      "metric passed (an errored metric fails the case)")]
    for name in metrics:
        models = tuple(kinds.get(name) or ())
        kind = JUDGE if models else CODE
        t = thresholds.get(name) or []
        higher = directions.get(name)
        rep = reported.get(name)
        said = (f"passes {rep.get('passes')}, fails {rep.get('fails')}, errors {rep.get('errors')}"
                if rep else None)
        words = (f"threshold {t[0]:g}" if len(t) == 1 else "thresholds " + ", ".join(f"{x:g}" for x in t)
                 if t else "no threshold")
        direction = "lower is better" if higher is False else "higher is better"
        common = {"kind": kind, "threshold": t[0] if len(t) == 1 else None,
                  "higher_is_better": higher is not False, "passed": f"{name}.success",
                  "group": name, "models": models, "error": f"{name}.error"}
        scorers.append(Scorer(name, f"{name}.success", scale=BINARY, metric=said,
                              detail=f"DeepEval's own pass of '{name}' ({words}, {direction})"
                              + (f"; scored by {', '.join(models)}" if models else ""), **common))
        scorers.append(Scorer(f"{name}.score", f"{name}.score", scale=SCORE,
                              detail=f"the score of '{name}' as recorded ({words}, {direction})", **common))
    config = {k: str(v) for k, v in (run.get("hyperparameters") or {}).items() if not isinstance(v, (dict, list))}
    config.update({"model": model, "tool": "deepeval", "layout": layout, "file": path,
                   "test_cases": str(n)})
    return Evaluation(
        tool="deepeval", tool_version=None, item="test_case", system="model",
        runs=(Run(model, config),), scorers=tuple(scorers), primary="success",
        usage={k: v for k, v in usage.items()},
        metadata=tuple(f"metadata.{k}" for k in meta_keys),
        notes=(f"DeepEval writes no version into its file; the layout is that of deepeval {layout}.",))


__all__ = ["FORMAT", "load", "looks_like", "run_of"]
