"""MTEB results: one JSON per task, model and revision (``results/<model>/<revision>/<Task>.json``,
mteb 2.x; ``results/<model>/<Task>.json``, mteb 1.x), or the results folder holding them.

One row per task, split and subset (language): ``model`` (the folder's name with ``__`` read as
``/``, or ``model_meta.json``'s name), ``revision``, ``task``, ``split``, ``subset`` (mteb's
``hf_subset``; 1.x: the language key), ``languages``, ``item`` (``task/split/subset``: MTEB scores
a whole split of a dataset, so its items are these slices), ``main_score`` (the task's main score)
and ``main_score_name`` (which metric it is: the file does not name it, it is the task's
``main_score``; read as the metric equal to it in every subset, see :func:`main_name`), then every
metric of the subset (1.x's nested ones as ``cos_sim.spearman``) and ``evaluation_time``.
"""

from __future__ import annotations

import json
import math
import os
import re
from typing import Any

import numpy as np
import pandas as pd

from workbench.core.errors import DataError
from workbench.core.numbers import plural
from workbench.io.evaluation import MEASURE, RECORDED, SCORE, Evaluation, Run, Scorer
from workbench.io.formats._common import table, text_column
from workbench.io.formats.mteb_tasks import METRIC_GROUPS, canonical, main_in, old_subset_fix, table_version, task_info

FORMAT = "mteb"
#: MTEB's main scores, in the order one is named when several metrics equal the main score.
MAIN_NAMES = ("ndcg_at_10", "cosine_spearman", "accuracy", "v_measure", "max_ap", "map_at_1000", "map",
              "f1", "max_f1", "similarity_ap", "cosine_ap", "lrap", "mrr_at_10", "ndcg_at_1000",
              "v_measures", "spearman", "pearson", "ap", "cos_sim.spearman", "cos_sim.ap")
_NOT_METRICS = {"main_score", "hf_subset", "languages", "mteb_version", "scores_per_experiment",
                "evaluation_time", "kg_co2_emissions"}


#: the files MTEB writes beside a model's task results, and what each holds
SIDE_FILES = {"model_meta.json": "model metadata", "run_settings.jsonl": "record of its run settings"}


def is_result(value: Any) -> bool:
    """An MTEB task result (2.x: task_name and scores by split; 1.x: mteb_dataset_name)."""
    if not isinstance(value, dict):
        return False
    if "task_name" in value and isinstance(value.get("scores"), dict):
        return all(isinstance(v, list) for v in value["scores"].values())
    return "mteb_dataset_name" in value or ("mteb_version" in value and "dataset_revision" in value
                                            and any(isinstance(v, dict) for k, v in value.items()
                                                    if k in ("test", "dev", "validation", "train")))


def result_files(folder: str) -> list[str]:
    """The MTEB task results under a folder (model_meta.json and other JSON left out)."""
    found = []
    for root, dirs, files in os.walk(folder):
        dirs.sort()
        for name in sorted(files):
            if not name.endswith(".json") or name == "model_meta.json":
                continue
            path = os.path.join(root, name)
            try:
                with open(path, "rb") as fh:
                    head = fh.read(4096).decode("utf-8", "ignore")
            except OSError:
                continue
            if ('"task_name"' in head or '"mteb_dataset_name"' in head or '"mteb_version"' in head) \
                    and os.path.getsize(path) < 64 << 20 and is_result(_read(path)):
                found.append(path)  # a task result itself, not another tool's file naming a task
    return found


def _read(path: str) -> Any:
    try:
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        return None


def _model(path: str, old: bool) -> tuple[str, str]:
    """(model, revision) from the results folder's layout and model_meta.json beside the file."""
    folder = os.path.dirname(os.path.abspath(path))
    meta = os.path.join(folder, "model_meta.json")
    if os.path.isfile(meta):
        try:
            with open(meta, encoding="utf-8") as fh:
                value = json.load(fh)
            if isinstance(value, dict) and value.get("name"):
                return str(value["name"]), str(value.get("revision") or os.path.basename(folder))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError):
            pass
    if old and not _is_revision(os.path.basename(folder)):
        return os.path.basename(folder).replace("__", "/"), ""
    parent = os.path.dirname(folder)
    return os.path.basename(parent).replace("__", "/"), os.path.basename(folder)


def _is_revision(name: str) -> bool:
    """A revision folder of the results repository (embeddings-benchmark/results keeps 1.x files
    under ``<model>/no_revision_available/`` and model cards' scores under ``<model>/external/``)."""
    return name in ("no_revision_available", "external") or bool(re.fullmatch(r"[0-9a-f]{40}(-[0-9a-f]{40})?", name))


def _main(value: Any) -> float | None:
    """A subset's main_score: None when absent, null or not a number (mteb's loader fills it from
    the task's main metric, as the reader does); NaN as written (mteb reports NaN: kept, blank)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def _flat(scores: dict, prefix: str = "") -> dict[str, float]:
    out = {}
    for k, v in scores.items():
        if k in _NOT_METRICS and not prefix:
            continue
        if isinstance(v, dict):
            out.update(_flat(v, f"{prefix}{k}."))
        elif isinstance(v, (int, float)) and not isinstance(v, bool):
            out[f"{prefix}{k}"] = float(v)
    return out


def _entries(value: dict) -> tuple[list[dict], bool]:
    """One dict per (split, subset): split, subset, languages, main (or None), metrics; old layout?"""
    out = []
    if "scores" in value and "task_name" in value:
        for split, subsets in value["scores"].items():
            for s in subsets:
                if not isinstance(s, dict):
                    continue
                out.append({"split": str(split), "subset": str(s.get("hf_subset", "default")),
                            "languages": s.get("languages") or [], "main": _main(s.get("main_score")),
                            "metrics": _flat(s), "time": None})
        return out, False
    task = str(value.get("mteb_dataset_name") or value.get("task_name") or "")
    version = str(value.get("mteb_version") or "")
    splits = {str(k): v for k, v in value.items()
              if k not in ("dataset_revision", "mteb_dataset_name", "mteb_version", "task_name") and isinstance(v, dict)}
    # mteb's own rule: a split holds subsets when any of its values is an object that is not a metric group
    nested = any(isinstance(v, dict) for sc in splits.values() for k, v in sc.items() if k not in METRIC_GROUPS)
    for split, scores in splits.items():
        groups = [(k, v) for k, v in scores.items() if isinstance(v, dict)] if nested else [("default", scores)]
        for lang, sc in groups:
            lang = old_subset_fix(task, version, split, str(lang))
            out.append({"split": split, "subset": lang, "languages": [] if lang == "default" else [lang],
                        "main": _main(sc.get("main_score")), "metrics": _flat(sc), "time": scores.get("evaluation_time")})
    return out, True


def main_name(entries: list[dict], task: str = "") -> tuple[str | None, str]:
    """The name of the task's main score and how it was found. A task mteb's registry knows: its
    ``metadata.main_score`` (under its 1.x name in a 1.x file), when the file's main_score equals
    it in every subset that has one (mteb fills a missing main_score from it, as here). Else the
    metric equal to main_score in every subset (MTEB repeats the value under its name), the first
    of :data:`MAIN_NAMES` when several are."""
    info = task_info(task) if task else None
    if info and entries:
        found = [main_in(e["metrics"], info[1]) for e in entries]
        if all(f is not None and (e["main"] is None or math.isnan(e["main"])
                                  or math.isclose(f[1], float(e["main"]), rel_tol=0, abs_tol=1e-12))
               for f, e in zip(found, entries)) and any(e["main"] is None or not math.isnan(e["main"]) for e in entries):
            return found[0][0], (f"mteb's registry (mteb {table_version()}): task type {info[0]}, "
                                 f"main score {info[1]}")
    if entries and all(e["main"] is None for e in entries):
        if all("cos_sim.spearman" in e["metrics"] for e in entries):
            return "cos_sim.spearman", "the file has no main_score; mteb 1.x's STS main score is cos_sim's spearman"
        return None, "the file has no main_score and its task type is not known"
    names = None
    for e in entries:
        if e["main"] is None or math.isnan(e["main"]):
            continue
        same = {k for k, v in e["metrics"].items() if math.isclose(v, float(e["main"]), rel_tol=0, abs_tol=1e-12)}
        names = same if names is None else names & same
    names = names or set()
    if len(names) == 1:
        return next(iter(names)), "the only metric equal to main_score in every subset"
    ranked = [n for n in MAIN_NAMES if n in names]
    if ranked:
        return ranked[0], (f"of the metrics equal to main_score in every subset ({', '.join(sorted(names))}), "
                           "the one MTEB uses as a main score")
    return None, ("no metric equals main_score in every subset" if not names else
                  f"several metrics equal main_score ({', '.join(sorted(names))}) and none is a known main score")


def load(value: dict, path: str, shown: str):
    entries, old = _entries(value)
    task = str(value.get("task_name") or value.get("mteb_dataset_name") or os.path.splitext(os.path.basename(path))[0])
    if not entries:
        raise DataError(f"File {shown} is an MTEB result of task '{task}' with no scores; expected scores "
                        "by split and subset (mteb's TaskResult).")
    model, revision = _model(path, old)
    renamed = canonical(task) if old else task
    if renamed != task:  # as mteb's own loader names it, so that its rows meet the later files' rows
        notes_renamed = [f"Task '{task}' of this mteb {value.get('mteb_version') or '1.x'} file is '{renamed}' in "
                         "mteb since: named so (mteb's loader renames it the same way)."]
        task = renamed
    else:
        notes_renamed = []
    name, how = main_name(entries, task)
    version = str(value.get("mteb_version") or "")
    metrics = list(dict.fromkeys(k for e in entries for k in e["metrics"]))
    n = len(entries)
    main = [e["main"] if e["main"] is not None else (e["metrics"].get(name) if name else None) for e in entries]
    missing = sum(v is None for v in main)
    written_nan = sum(v is not None and math.isnan(v) for v in main)
    cols: dict[str, Any] = {
        "model": text_column([model] * n), "revision": text_column([revision] * n),
        "task": text_column([task] * n), "split": text_column([e["split"] for e in entries]),
        "subset": text_column([e["subset"] for e in entries]),
        "languages": text_column([", ".join(map(str, e["languages"])) for e in entries]),
        "item": text_column([f"{task}/{e['split']}/{e['subset']}" for e in entries]),
        "main_score": np.array([np.nan if v is None else float(v) for v in main], dtype=float),
        "main_score_name": text_column([name or ""] * n),
    }
    for m in metrics:
        cols[m] = np.array([e["metrics"].get(m, np.nan) for e in entries], dtype=float)
    if any(e["time"] is not None for e in entries):
        cols["evaluation_time"] = np.array([np.nan if e["time"] is None else float(e["time"]) for e in entries])
    elif isinstance(value.get("evaluation_time"), (int, float)):
        cols["evaluation_time"] = np.full(n, float(value["evaluation_time"]))
    frame = pd.DataFrame(cols)
    notes = [f"MTEB result of task '{task}' for model '{model}'" + (f" (revision {revision})" if revision else "")
             + f", mteb {version or 'version unknown'} ({'1.x' if old else '2.x'} layout): {plural(n, 'row')}, one "
             "per split and subset (items: task/split/subset); its main score in column 'main_score'."]
    notes += notes_renamed
    notes.append(f"Task '{task}': the main score is '{name}' ({how})." if name else
                 f"Task '{task}': the main score is not named ({how}); its values are in 'main_score' where the "
                 "file has them, else choose a metric with --scorer NAME.")
    if written_nan:
        notes.append(f"{plural(written_nan, 'subset')} of {n} {'has' if written_nan == 1 else 'have'} main_score NaN "
                     "as the file writes it (mteb reports NaN there): left blank, not counted.")
    if missing:
        notes.append(f"{plural(missing, 'subset')} of {n} {'has' if missing == 1 else 'have'} no main score (the file "
                     "has none and the task's main score is not among its metrics): left blank, not counted.")
    scorers = [Scorer("main_score", "main_score", kind=RECORDED, scale=scale_of(name, cols["main_score"]),
                      detail="each task's main score, named per task in column 'main_score_name'"
                      + (f" ({task}: {name})" if name else ""))]
    scorers += [Scorer(m, m, kind=RECORDED, scale=scale_of(m, cols[m]), detail="an MTEB metric as recorded")
                for m in metrics]
    evaluation = Evaluation(
        tool="mteb", tool_version=version or None, item="item", system="model",
        runs=(Run(model, {"model": model, "revision": revision, "tool": "mteb", "file": path,
                          **({"version": version} if version else {})}),),
        scorers=tuple(scorers), primary="main_score", metadata=("task", "split", "subset", "languages"),
        usage={"latency": "evaluation_time"} if "evaluation_time" in cols else {})
    return landing(table(frame, path, fmt=FORMAT, notes=notes, row_lines=np.arange(1, n + 1, dtype=np.int64),
                         roles={}, panel="runs", row_word="subset",
                         row_names=[f"{task} {e['split']}/{e['subset']}" for e in entries], evaluation=evaluation))


def scale_of(name: str | None, values) -> str:
    """A correlation (STS's Spearman, Pearson) or any value outside 0..1 is a measure in its own
    unit; accuracy, F1, nDCG... are scores of 0..1."""
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    if name and any(w in str(name) for w in ("pearson", "spearman", "cos_sim", "euclidean", "manhattan")):
        return MEASURE
    return MEASURE if v.size and ((v < 0) | (v > 1)).any() else SCORE


def landing(loaded):
    """Roles and panel by the models held: several, Runs side by side on the main score; one,
    Aggregation of its main score over the task's splits and subsets (its rows), grouped by task
    (several tasks), else by split (several splits), else by subset (language)."""
    import dataclasses

    frame = loaded.frame
    several = frame["model"].nunique() > 1
    group = next((c for c in ("task", "split", "subset") if frame[c].nunique() > 1), "task")
    roles = {"item": "item", "model": "system" if several else "version", group: "group",
             "main_score": "score"}
    return dataclasses.replace(loaded, roles=roles, panel="runs" if several else "aggregate")


__all__ = ["FORMAT", "MAIN_NAMES", "is_result", "landing", "load", "main_name", "result_files", "scale_of"]
