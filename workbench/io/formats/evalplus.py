"""EvalPlus results (``evalplus.evaluate`` writes ``<samples>_eval_results.json``):
``{"date", "hash", "eval": {task_id: [{"task_id", "solution", "base_status", "plus_status",
"base_fail_tests", "plus_fail_tests"}, ...]}}`` (format of evalplus 0.3).

One row per task and sample: ``task_id`` (text), ``sample`` (its position in the task's list),
``solution``, ``base_status``, ``plus_status`` (``pass``/``fail``/``timeout``), ``base_passed``,
``plus_passed`` (1 for ``pass``, else 0; empty when the run had no plus tests) and ``passed``:
base and plus both passed (EvalPlus's "base + extra" pass@k), or base alone in a base-only run.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from workbench.io.formats._common import render_json_value, table, text_column

FORMAT = "evalplus"
PASS = "pass"


def is_results(value: dict) -> bool:
    evals = value.get("eval")
    return isinstance(evals, dict) and bool(evals) and all(
        isinstance(v, list) for v in evals.values()) and any(
        v and isinstance(v[0], dict) and "base_status" in v[0] for v in evals.values())


def load(value: dict, path: str, shown: str):
    rows = [(task, i, r) for task, results in value["eval"].items()
            for i, r in enumerate(results) if isinstance(r, dict)]
    base = [r.get("base_status") for _, _, r in rows]
    plus = [r.get("plus_status") for _, _, r in rows]
    base_only = all(p is None for p in plus)
    base_passed = np.array([b == PASS for b in base], dtype=np.int64)
    plus_passed = np.array([np.nan if p is None else float(p == PASS) for p in plus])
    passed = base_passed if base_only else (base_passed * np.nan_to_num(plus_passed)).astype(np.int64)
    frame = pd.DataFrame({
        "task_id": text_column([render_json_value(r.get("task_id", task)) for task, _, r in rows]),
        "sample": np.array([i for _, i, _ in rows], dtype=np.int64),
        "solution": text_column([r.get("solution") for _, _, r in rows]),
        "base_status": text_column(base),
        "plus_status": text_column(plus),
        "base_passed": base_passed,
        "plus_passed": plus_passed,
        "passed": passed,
    })
    what = "base tests only" if base_only else "passed = base and plus tests passed"
    notes = [f"Read as EvalPlus results ({frame['task_id'].nunique()} tasks, {len(frame)} samples; "
             f"{what}; status 'pass' read as 1, 'fail' and 'timeout' as 0): for pass@k and pass^k."]
    return table(frame, path, fmt=FORMAT, notes=notes, row_lines=np.arange(1, len(frame) + 1),
                 roles={"task_id": "task", "passed": "success", "sample": "epoch"}, panel="passk",
                 row_word="row")  # a task's samples are tries of one item
