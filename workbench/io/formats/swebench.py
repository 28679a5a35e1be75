"""SWE-bench evaluations: the harness's summary report ``<model>.<run_id>.json`` with the
per-instance ``report.json`` files it wrote under ``logs/run_evaluation/<run_id>/<model>/<id>/``
(or ``logs/<run_id>/<model>/<id>/``), a ``report.json`` alone, or the ``results/results.json`` of
the swe-bench/experiments submissions (``resolved``, ``no_generation``, ``no_logs``).

One row per instance of the dataset: ``instance_id`` (exact text), ``model``, ``run_id``,
``status`` (``resolved``, ``unresolved``, ``error``, ``empty_patch``, ``no_prediction``: the
summary's id lists, disjoint), ``resolved`` (1/0 for the resolved and unresolved; blank for the
others), ``error`` (what the other statuses are: no measurement, never a silent failure), then
from the instance's report the tests: ``FAIL_TO_PASS`` and ``PASS_TO_PASS`` (the share of those
tests that pass after the patch), ``<list>.passed``/``<list>.failed`` (counts) and
``<list>.passed_tests``/``<list>.failed_tests`` (the test ids, JSON), ``patch_applied``,
``infra_failure``, ``ambiguous_failure`` and ``failure_reason``.
"""

from __future__ import annotations

import glob
import json
import os
from typing import Any

import numpy as np
import pandas as pd

from workbench.core.errors import DataError
from workbench.io.evaluation import BINARY, CODE, SCORE, Evaluation, Run, Scorer
from workbench.io.formats._common import render_json_value, table, text_column

FORMAT = "swebench"
STATUSES = ("resolved", "unresolved", "error", "empty_patch", "no_prediction")
_LISTS = ("FAIL_TO_PASS", "PASS_TO_PASS", "FAIL_TO_FAIL", "PASS_TO_FAIL")
_WHY = {"error": "error: the evaluation did not finish (the patch did not apply, or the harness failed)",
        "empty_patch": "empty patch: the model submitted no change",
        "no_prediction": "no prediction: the instance was not submitted"}


def is_summary(value: Any) -> bool:
    return isinstance(value, dict) and (
        ("resolved_ids" in value and "total_instances" in value)
        or ({"resolved", "no_generation"} <= set(value) and isinstance(value.get("resolved"), list)))


def is_report(value: Any) -> bool:
    if not isinstance(value, dict) or not value:
        return False
    inner = next(iter(value.values()))
    return all(isinstance(v, dict) and "resolved" in v and "tests_status" in v for v in value.values()) \
        and isinstance(inner, dict)


def summaries_in(folder: str) -> list[str]:
    """SWE-bench summary reports in a folder (its top level, then results/results.json)."""
    found = []
    for path in sorted(glob.glob(os.path.join(glob.escape(folder), "*.json"))
                       + glob.glob(os.path.join(glob.escape(folder), "**", "results", "results.json"), recursive=True)):
        try:
            with open(path, "rb") as fh:
                head = fh.read(65536).decode("utf-8", "ignore")
        except OSError:
            continue
        keys = ('"resolved_ids"' in head and '"total_instances"' in head) or \
            ('"no_generation"' in head and '"resolved"' in head)
        if keys and is_summary(_read(path)):  # the report itself, not a file that quotes its keys
            found.append(path)
    return found


def _read(path: str) -> Any:
    try:
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None


def _model_and_run(path: str, value: dict) -> tuple[str, str, str | None]:
    """(model, run id, the folder of its per-instance reports) from ``<model>.<run_id>.json``
    and the logs beside it (a model name may hold dots: the split that finds the logs wins)."""
    folder, stem = os.path.split(path)
    stem = stem.removesuffix(".json")
    if os.path.basename(path) == "results.json":  # swe-bench/experiments: evaluation/<split>/<date>_<system>/results/
        system = os.path.basename(os.path.dirname(folder))
        logs = os.path.join(os.path.dirname(folder), "logs")
        return system, "", logs if os.path.isdir(logs) else None
    splits = [i for i, ch in enumerate(stem) if ch == "."]
    for i in reversed(splits):
        model, run = stem[:i], stem[i + 1:]
        for logs in (os.path.join(folder, "logs", "run_evaluation", run, model),
                     os.path.join(folder, "logs", run, model)):
            if os.path.isdir(logs):
                return model.replace("__", "/"), run, logs
    if splits:
        return stem[:splits[-1]].replace("__", "/"), stem[splits[-1] + 1:], None
    return stem, "", None


def load_summary(value: dict, path: str, shown: str):
    model, run, logs = _model_and_run(path, value)
    status: dict[str, str] = {}
    if "resolved_ids" in value:
        lists = {"resolved": "resolved_ids", "unresolved": "unresolved_ids", "error": "error_ids",
                 "empty_patch": "empty_patch_ids", "no_prediction": "incomplete_ids"}
        for word, key in lists.items():
            for iid in value.get(key) or []:
                status.setdefault(render_json_value(iid), word)
    else:  # swe-bench/experiments: the unresolved are the instances with a report that did not resolve
        for word, key in (("resolved", "resolved"), ("empty_patch", "no_generation"), ("error", "no_logs")):
            for iid in value.get(key) or []:
                status.setdefault(render_json_value(iid), word)
    reports = _reports(logs) if logs else {}
    for iid, rep in reports.items():
        status.setdefault(iid, "resolved" if rep.get("resolved") else "unresolved")
    implicit = None
    if "resolved_ids" not in value:  # swe-bench/experiments: the unresolved are the rest of the split
        implicit = _implicit_unresolved(path, status)
        if implicit is not None and implicit[1] is not None:
            for iid in implicit[1]:
                status.setdefault(iid, "unresolved")
    if not status:
        raise DataError(f"File {shown} is a SWE-bench report with no instance in its id lists; expected "
                        "the harness's summary (resolved_ids, unresolved_ids, error_ids...).")
    extra = {"infra": set(map(render_json_value, value.get("infra_failure_ids") or [])),
             "ambiguous": set(map(render_json_value, value.get("ambiguous_failure_ids") or [])),
             "reasons": {render_json_value(k): str(v) for k, v in (value.get("failure_reasons") or {}).items()}}
    if implicit is not None:
        extra["split"] = implicit
    return _table(status, reports, model, run, path, value, logs, extra)


#: the folders of swe-bench/experiments' evaluation/ and the dataset split each scores
_SPLITS = {"verified": "verified", "bash-only": "verified", "test": "test", "lite": "lite",
           "multilingual": "multilingual"}


def _implicit_unresolved(path: str, status: dict[str, str]) -> tuple[str, list[str] | None, int] | None:
    """For a swe-bench/experiments ``evaluation/<split>/<system>/results/results.json``: (the split,
    the ids of the split listed nowhere — unresolved —, the split's size), from the instance ids
    in ``resources/formats/swebench_instances.json`` (None for a split whose ids are not there:
    Lite); None when the folder names no known split."""
    parts = os.path.normpath(os.path.abspath(path)).split(os.sep)
    split = _SPLITS.get(parts[-4]) if len(parts) >= 4 and parts[-2] == "results" else None
    if split is None:
        return None
    known = _split_ids()
    sizes = known.get("sizes") or {}
    ids = (known.get("splits") or {}).get(split)
    if ids is None:
        return (split, None, int(sizes[split])) if split in sizes else None
    if not set(status) <= set(ids):
        return None  # not this split's instances: leave the file as it is
    return split, [i for i in ids if i not in status], len(ids)


def _split_ids() -> dict:
    from workbench.resources_path import resources_dir

    try:
        with open(os.path.join(str(resources_dir()), "formats", "swebench_instances.json"), encoding="utf-8") as fh:
            value = json.load(fh)
        return value if isinstance(value, dict) else {}
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return {}


def load_report(value: dict, path: str, shown: str):
    """A per-instance report.json alone: its instances, the model and run from its folders."""
    parts = os.path.normpath(os.path.abspath(path)).split(os.sep)
    model = parts[-3].replace("__", "/") if len(parts) >= 3 else "model"
    run = parts[-4] if len(parts) >= 4 else ""
    reports = {render_json_value(k): v for k, v in value.items()}
    status = {k: ("resolved" if v.get("resolved") else "unresolved") for k, v in reports.items()}
    return _table(status, reports, model, run, path, None, None, {"infra": set(), "ambiguous": set(), "reasons": {}})


def _reports(logs: str) -> dict[str, dict]:
    out = {}
    for path in sorted(glob.glob(os.path.join(glob.escape(logs), "*", "report.json"))):
        value = _read(path)
        if is_report(value):
            out.update({render_json_value(k): v for k, v in value.items()})
    return out


def _table(status: dict[str, str], reports: dict[str, dict], model: str, run: str, path: str,
           summary: dict | None, logs: str | None, extra: dict):
    ids = list(status)
    n = len(ids)
    words = [status[i] for i in ids]
    cols: dict[str, Any] = {
        "instance_id": text_column(ids), "model": text_column([model] * n), "run_id": text_column([run] * n),
        "status": text_column(words),
        "resolved": np.array([1.0 if w == "resolved" else 0.0 if w == "unresolved" else np.nan for w in words]),
        "error": text_column([_WHY.get(w, "") for w in words]),
    }
    for lst in _LISTS:
        passed, failed, shares, ok_ids, bad_ids = [], [], [], [], []
        for iid in ids:
            tests = ((reports.get(iid) or {}).get("tests_status") or {}).get(lst)
            if not isinstance(tests, dict):
                passed.append(np.nan), failed.append(np.nan), shares.append(np.nan)
                ok_ids.append(None), bad_ids.append(None)
                continue
            ok, bad = list(tests.get("success") or []), list(tests.get("failure") or [])
            passed.append(len(ok)), failed.append(len(bad))
            shares.append(len(ok) / (len(ok) + len(bad)) if ok or bad else np.nan)
            ok_ids.append(ok), bad_ids.append(bad)
        if lst in ("FAIL_TO_PASS", "PASS_TO_PASS"):
            cols[lst] = np.array(shares, dtype=float)
        cols[f"{lst}.passed"] = np.array(passed, dtype=float)
        cols[f"{lst}.failed"] = np.array(failed, dtype=float)
        if lst in ("FAIL_TO_PASS", "PASS_TO_PASS"):
            cols[f"{lst}.passed_tests"] = text_column(ok_ids)
            cols[f"{lst}.failed_tests"] = text_column(bad_ids)
    cols["patch_applied"] = np.array([np.nan if iid not in reports else float(bool(reports[iid].get("patch_successfully_applied")))
                                      for iid in ids])
    cols["infra_failure"] = np.array([float(iid in extra["infra"] or bool((reports.get(iid) or {}).get("infra_failure")))
                                      for iid in ids])
    cols["ambiguous_failure"] = np.array([float(iid in extra["ambiguous"]) for iid in ids])
    cols["failure_reason"] = text_column([extra["reasons"].get(iid, "") for iid in ids])
    frame = pd.DataFrame(cols)
    counts = {w: words.count(w) for w in STATUSES}
    split = extra.get("split")
    total = int(summary.get("total_instances") or n) if isinstance(summary, dict) and "total_instances" in summary else n
    if split is not None and split[1] is None:
        total = split[2]  # Lite: the split's size is known, its unresolved ids are not
    said = ", ".join(f"{w.replace('_', ' ')} {c}" for w, c in counts.items() if c)
    notes = [f"SWE-bench evaluation of '{model}'" + (f" (run {run})" if run else "") + f": {n} instances "
             f"({said}); one row per instance, 'resolved' the outcome, 'status' what became of each."]
    others = n - counts["resolved"] - counts["unresolved"]
    if others:
        apart = ", ".join(f"{w.replace('_', ' ')} {counts[w]}" for w in ("error", "empty_patch", "no_prediction")
                          if counts[w])
        notes.append(f"{others} instances neither resolved nor unresolved ({apart}) "
                     "are no measurement: left out and counted by default; SWE-bench's own rate counts them as "
                     f"not resolved ({counts['resolved']} of {total} = {counts['resolved'] / total:.4g}): --errors fail "
                     "reproduces it.")
    if split is not None and split[1] is not None:
        notes.append(f"results.json lists the resolved, the empty patches (no_generation) and the unevaluated "
                     f"(no_logs) only: the other {len(split[1])} instances of SWE-bench's {split[0]} split "
                     f"({split[2]}, their ids from the harness's own reports of that split) are unresolved.")
    elif split is None and isinstance(summary, dict) and "resolved_ids" not in summary and not reports:
        notes.append("This results.json (swe-bench/experiments) lists the resolved, the empty patches and the "
                     "unevaluated only, and its folder names no split (evaluation/<verified|lite|test|"
                     "multilingual>/<system>/results/): the unresolved instances are not rows, so a rate over "
                     "these rows is not SWE-bench's (keep the file in its evaluation/<split>/ folder).")
    elif split is not None:
        notes.append(f"results.json lists the resolved, the empty patches and the unevaluated only: the other "
                     f"{split[2] - n} instances of SWE-bench's {split[0]} split ({split[2]}) are unresolved, but "
                     "their ids are not known here, so they are not rows: a rate over these rows is not "
                     f"SWE-bench's; its own is resolved {counts['resolved']} of {split[2]}.")
    if reports:
        notes.append(f"{len(reports)} per-instance reports read" + (f" from '{logs}'" if logs else "")
                     + ": FAIL_TO_PASS and PASS_TO_PASS results kept per instance (counts, shares, test ids).")
    elif summary is not None:
        notes.append("No per-instance report.json was found beside the summary (logs/run_evaluation/<run_id>/"
                     "<model>/<instance>/): the tests of each instance are not shown.")
    scorers = [Scorer("resolved", "resolved", kind=CODE, scale=BINARY, reported=counts["resolved"] / total,
                      reported_n=total, passed="resolved",
                      metric=f"resolved {counts['resolved']} of {total} instances (SWE-bench's % resolved)",
                      detail="every FAIL_TO_PASS and PASS_TO_PASS test passes after the patch (the harness's decision)")]
    if reports:
        scorers += [Scorer("FAIL_TO_PASS", "FAIL_TO_PASS", kind=CODE, scale=SCORE,
                           detail="the share of the tests the patch should fix that pass"),
                    Scorer("PASS_TO_PASS", "PASS_TO_PASS", kind=CODE, scale=SCORE,
                           detail="the share of the tests that passed before that still pass")]
    config = {"model": model, "tool": "swe-bench", "file": path, "instances": str(total),
              **({"run_id": run} if run else {}),
              **({"schema_version": str(summary.get("schema_version"))} if isinstance(summary, dict)
                 and summary.get("schema_version") is not None else {})}
    evaluation = Evaluation(
        tool="swe-bench", item="instance_id", system="model", runs=(Run(model, config),),
        scorers=tuple(scorers), primary="resolved", error="error", status="status",
        metadata=("status", "failure_reason"),
        notes=("SWE-bench writes no version into its reports.",))
    roles = {"instance_id": "task", "model": "version", "resolved": "success", "error": "error"}
    return table(frame, path, fmt=FORMAT, notes=notes, row_lines=np.arange(1, n + 1, dtype=np.int64),
                 roles=roles, panel="passk", row_word="instance",
                 row_names=[f"instance {i}" for i in ids], evaluation=evaluation)


__all__ = ["FORMAT", "STATUSES", "is_report", "is_summary", "load_report", "load_summary", "summaries_in"]
