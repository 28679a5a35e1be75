"""Several files as one table: several TREC runs, Inspect logs, lm-eval samples or promptfoo
results (or any tables with the same columns), each file's rows with its system.

The system is the file's own system column (run tag, model, provider); where two files share
a system name, the file name is used instead (a note says so).  A ``file`` column names the
file of each row; the table's rows are numbered 1..n across the files.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from workbench.core.errors import DataError
from workbench.io.cells import text_array
from workbench.io.evaluation import Run, merge
from workbench.io.formats import cross
from workbench.io.formats.labels_join import is_labels, join_labels
from workbench.io.table import LoadedTable, StackedText

#: Formats whose files may differ in columns (each task its metrics): stacked on their union.
_UNION_FORMATS = ("lm_eval_samples", "inspect", "promptfoo", "jsonl", "json", "deepeval", "ragas",
                  "phoenix", "helm", "swebench", "mteb", "workbench_items")
_PANEL_FOR_SEVERAL = {"inspect": "compare", "lm_eval_samples": "compare", "promptfoo": "cost",
                      "trec_run": "ranking", "msmarco_run": "ranking", "deepeval": "compare",
                      "ragas": "compare", "phoenix": "compare", "helm": "compare", "swebench": "compare",
                      "mteb": "runs"}


def _same_runs(tables: Sequence[Any]) -> tuple[list[Any], list[str]]:
    """Inspect logs of the same run (an .eval log and its .json conversion share the eval id):
    each run read once, from its first file (an .eval before a .json), and a note names both."""
    kept: dict[str, Any] = {}
    out, notes = [], []
    order = sorted(range(len(tables)), key=lambda i: (not tables[i].path.endswith(".eval"), i))
    dropped = set()
    for i in order:
        t = tables[i]
        if t.format != "inspect" or "eval_id" not in t.frame.columns or not len(t.frame):
            continue
        run = str(t.frame["eval_id"].iloc[0])
        if run in kept:
            first = kept[run]
            notes.append(f"{t.name} is the same run as {first.name} (eval id {run}, "
                         f"{len(t.frame)} rows of sample and epoch): the run is read once, from "
                         f"{first.name}.")
            dropped.add(i)
        else:
            kept[run] = t
    out = [t for i, t in enumerate(tables) if i not in dropped]
    return out, notes


def combine(tables: Sequence[Any]):
    """Several loaded tables as one (see the module's docstring).  Files of people's labels
    (a Label Studio export) opened with evaluation logs are not stacked: they are joined to the
    logs by item (:mod:`workbench.io.formats.labels_join`)."""
    labels = [t for t in tables if is_labels(t)]
    logs = [t for t in tables if not is_labels(t)]
    if labels and logs and all(getattr(t, "evaluation", None) is not None for t in logs):
        return join_labels(logs[0] if len(logs) == 1 else combine(logs), labels)
    tables, same = _same_runs(tables)
    if len(tables) == 1:
        import dataclasses

        return dataclasses.replace(tables[0], notes=tuple(same) + tables[0].notes)
    first = tables[0]
    if len({t.format for t in tables}) > 1 and cross.declared(tables):
        # different tools' files: stacked by what each declares, items matched by id
        return cross.stack(tables, leading=same)
    names = [t.name for t in tables]
    columns = list(first.frame.columns)
    for t in tables[1:]:
        if list(t.frame.columns) != columns:
            missing = [c for c in columns if c not in t.frame.columns]
            extra = [c for c in t.frame.columns if c not in columns]
            if t.format != first.format or (missing and first.format not in _UNION_FORMATS):
                what = (f"it has no column {', '.join(repr(c) for c in missing[:5])}" if missing
                        else f"it is a {t.format} file, not a {first.format} file")
                raise DataError(f"File '{t.path}' cannot be stacked with '{first.path}': {what}; "
                                "give files of the same kind with the same columns.")
            columns += [c for c in extra if c not in columns]
    system = next((c for c, r in first.roles.items() if r == "system"), None)
    if system is None and getattr(first.evaluation, "system", None) in columns:
        system = first.evaluation.system  # a one-run file reads its system column as a version
    if system is None and "system" in columns:
        system = "system"
    notes = same + [f"{len(tables)} files stacked into one table of "
             f"{sum(len(t.frame) for t in tables):,} rows (column 'file' names each row's file): "
             + ", ".join(names) + "."]
    frames = []
    clash = system is not None and _clash(tables, system)
    by_run = clash and first.format == "lm_eval_samples" and _runs_tell_apart(tables, system)
    row_names: list[str] = []
    run_names = _lmeval_run_names(tables) if by_run else {}
    for t in tables:
        frame = t.frame.copy()
        stacked = " + " in t.path or os.path.isdir(t.path)
        if "file" in frame.columns and stacked:
            # a stack already (a folder of files): each row keeps its file, under the folder's name
            files = frame.pop("file")
            frame.insert(0, "file", text_array([f"{t.name}/{f}" for f in files]))
        elif "file" in frame.columns:
            raise DataError(f"File '{t.path}' has a column named 'file', which the stacked table "
                            "uses for each row's file; rename that column to stack it with others.")
        else:
            frame.insert(0, "file", text_array([t.name] * len(frame)))
        if by_run:  # two runs of one model: named by what tells them apart (few-shot, seed...)
            frame[system] = text_array([run_names[id(t)]] * len(frame))
        elif clash:
            frame[system] = text_array([t.name] * len(frame))
        frames.append(frame)
        if t.row_names is not None:
            row_names += [f"{name} of {t.name}" for name in t.row_names]
        else:
            row_names += [f"{t.line_word} {line} of {t.name}"
                          for line in t.lines_of(range(len(t.frame)))]
    if by_run:
        names = list(dict.fromkeys(run_names.values()))
        notes.append(f"Several lm-eval runs share a model name in column '{system}', so each run is a "
                     "system named by what tells its configuration apart (few-shot count, seed; else "
                     f"its folder): {', '.join(repr(n) for n in names)}.")
    elif clash:
        notes.append(f"Two files share a system name in column '{system}', so each file's name is "
                     "its system instead.")
    frame = pd.concat(frames, ignore_index=True)
    # each file's cells keep their exact text ('1.0' in one file and '1' in another stay two
    # ids): a column typed as numbers reads its text from the files, and a column that is text
    # in some files (or missing from some) is text made of each file's own
    cells = StackedText(tables)
    for c in frame.columns:
        if c in ("file",) or (system is not None and c == system and (by_run or clash)):
            continue
        mixed = pd.api.types.is_object_dtype(frame[c]) or (
            not pd.api.types.is_numeric_dtype(frame[c]) and not pd.api.types.is_string_dtype(frame[c]))
        texts = any(c in t.frame.columns and not pd.api.types.is_numeric_dtype(t.frame[c]) for t in tables)
        if mixed or (texts and pd.api.types.is_numeric_dtype(frame[c])):
            frame[c] = cells.text(c)
    said: set[str] = set()
    for t in tables:  # each file's notes, once when files share them (one run's configuration)
        notes += [f"{t.name}: {n}" for n in t.notes if n not in said]
        said.update(t.notes)
    roles = dict(first.roles)
    for t in tables[1:]:  # a column with a role in some files only (the 'error' of one log)
        roles.update({c: r for c, r in t.roles.items() if c not in roles})
    panel = _PANEL_FOR_SEVERAL.get(first.format, first.panel)
    if first.format == "inspect":
        roles, extra = _inspect_pairs(frame, roles)
        notes += extra
    if first.format == "lm_eval_samples":
        frame, roles, extra = _lmeval_outcome(frame, roles, tables)
        notes += extra
        if extra and "output_type" in frame.columns and (frame["output_type"] == "generate_until").any():
            panel = "text"  # no pooled outcome to compare: the text metrics, per task, are the answer
    evaluation = _merged_evaluation(tables, system, frame, clash and not by_run, by_run)
    if evaluation is not None and system in frame.columns and frame[system].nunique() > 1:
        roles = {c: r for c, r in roles.items() if not (c == system or (r == "system" and c != system))}
        roles[system] = "system"  # several runs: each a system (never a version read alone)
        item = evaluation.item
        if item in frame.columns and roles.get(item) == "task" and "item" not in roles.values():
            roles[item] = "item"  # one run's tasks (pass@1) are the items runs are paired by
    digest = hashlib.sha256("\n".join(t.sha256 for t in tables).encode()).hexdigest()
    return LoadedTable(frame=frame, path=" + ".join(t.path for t in tables), digest=digest,
                       size_bytes=sum(t.size_bytes for t in tables), notes=tuple(notes),
                       format=first.format, row_lines=np.arange(1, len(frame) + 1),
                       roles=roles, panel=panel, row_word="row",
                       encoding=first.encoding, row_names=row_names, cell_source=cells,
                       parts=tuple((t.path, t.sha256) for t in tables), evaluation=evaluation)


def _merged_evaluation(tables: Sequence[Any], system: str | None, frame: pd.DataFrame,
                       by_file: bool, by_run: bool):
    """The stacked files' evaluation: each file's runs (named as the stacked table names its
    system: the file's name when two files share a system name), each scorer once; items are
    task/sample when the files hold several tasks."""
    if not any(getattr(t, "evaluation", None) is not None for t in tables):
        return None
    parts = []
    for t in tables:
        e = getattr(t, "evaluation", None)
        if e is None:
            continue
        if by_file or by_run:
            names = list(dict.fromkeys(frame.loc[frame["file"] == t.name, system])) if system else [t.name]
            runs = tuple(Run(str(n), {**(e.runs[0].config if e.runs else {}), "file": t.path}) for n in names)
            e = dataclasses.replace(e, runs=runs)
        parts.append(e)
    merged = merge(parts, system=system)
    if merged is not None and "task_sample" in frame.columns:
        merged = dataclasses.replace(merged, item="task_sample")
    return merged


def _lmeval_outcome(frame: pd.DataFrame, roles: dict[str, str], tables: Sequence[Any]):
    """lm-eval files of tasks scored by different metrics (acc, exact_match), or some by none,
    get no pooled 'outcome' column: a mean over it would average different metrics."""
    if "outcome" not in frame.columns:
        return frame, roles, []
    metric = frame["outcome_metric"].fillna("") if "outcome_metric" in frame.columns \
        else pd.Series([""] * len(frame))
    tasks: dict[str, list[str]] = {}
    for m, task in zip(metric, frame["task_name"]):
        listed = tasks.setdefault(m or "no 0/1 metric", [])
        if task not in listed:
            listed.append(task)
    if len(tasks) <= 1:
        return frame, roles, []
    frame = frame.drop(columns=[c for c in ("outcome", "outcome_metric") if c in frame.columns])
    roles = {c: r for c, r in roles.items() if c != "outcome"}
    listed = "; ".join(f"{m}: {', '.join(ts)}" for m, ts in tasks.items())
    return frame, roles, [
        f"The tasks are scored by different metrics ({listed}), so no pooled 'outcome' column is "
        "made: a mean over it would average different metrics. Compare or aggregate one metric "
        "at a time, on the samples files of the tasks it scores (a metric's column is empty on "
        "the other tasks' rows)."]


def _clash(tables: Sequence[Any], system: str) -> bool:
    """True when two files hold the same system for the same items (two runs tagged alike);
    one model's files of different tasks do not clash."""
    seen: set[str] = set()
    shared = False
    for t in tables:
        values = set(pd.unique(t.frame[system].astype(str)))
        shared |= bool(values & seen)
        seen |= values
    if not shared:
        return False
    roles = tables[0].roles
    keys = [c for c, r in roles.items() if r in ("item", "task", "query", "doc")]
    keys += [c for c in ("epoch", "task_name") if c in tables[0].frame.columns]
    if not keys:
        return True
    stacked = pd.concat([t.frame[[system, *keys]].assign(_file=i) for i, t in enumerate(tables)],
                        ignore_index=True)
    first = stacked.drop_duplicates(subset=[system, *keys, "_file"])
    return bool(first.duplicated(subset=[system, *keys]).any())


def _lmeval_run_names(tables: Sequence[Any]) -> dict[int, str]:
    """id(table) -> the name of its lm-eval run: the model, then the few-shot count and the seed
    where the runs of that model differ in them, else the run's folder."""
    configs = {}
    for t in tables:
        ev = getattr(t, "evaluation", None)
        configs[id(t)] = dict(ev.runs[0].config) if ev is not None and ev.runs else {}
    out = {}
    for key, config in configs.items():
        model = config.get("model", "model")
        same = [c for c in configs.values() if c.get("model", "model") == model]
        runs = {(c.get("num_fewshot"), c.get("seed"), c.get("folder"), c.get("file", "").rsplit("_", 1)[-1])
                for c in same}
        parts = [model]
        if len({c.get("num_fewshot") for c in same}) > 1:
            parts.append(f"{config.get('num_fewshot')}-shot")
        if len({c.get("seed") for c in same}) > 1:
            parts.append(f"seed {config.get('seed')}")
        if len(parts) == 1 and len(runs) > 1:
            parts.append(f"({config.get('folder') or 'run'})")
        out[key] = " ".join(parts)
    return out


def _runs_tell_apart(tables: Sequence[Any], system: str) -> bool:
    """lm-eval tables whose (model, run date) pairs hold no item twice: the runs are the systems."""
    if not all("run" in t.frame.columns and "item" in t.frame.columns for t in tables):
        return False
    keys = pd.concat([t.frame[[system, "run", "item"]] for t in tables], ignore_index=True)
    return bool((keys["run"] != "").all()) and not keys.duplicated().any()


def _inspect_pairs(frame: pd.DataFrame, roles: dict[str, str]):
    """Inspect logs compared: items are samples (with their epoch when there are several)."""
    roles = {c: r for c, r in roles.items() if r != "task"}
    tasks = list(dict.fromkeys(frame["task_name"])) if "task_name" in frame.columns else []
    if len(tasks) > 1:  # sample ids repeat across tasks: items and clusters carry the task
        at = list(frame.columns).index("sample_id") + 1
        frame.insert(at, "task_sample", text_array([f"{t}/{s}" for t, s in
                                                    zip(frame["task_name"], frame["sample_id"])]))
        epochs = "item" in frame.columns
        if epochs:
            frame["item"] = text_array([f"{ts} (epoch {e})" for ts, e in
                                        zip(frame["task_sample"], frame["epoch"])])
        else:
            frame.insert(at + 1, "item", frame["task_sample"].copy())
        roles.update({"item": "item", "task_name": "group",
                      **({"task_sample": "cluster"} if epochs else {})})
        return roles, [f"The logs hold {len(tasks)} tasks ({', '.join(tasks[:6])}"
                       f"{' ...' if len(tasks) > 6 else ''}), whose sample ids may repeat: items "
                       "are task/sample" + (" and epoch" if epochs else "") + " (column 'item')"
                       + ("; the bootstrap resamples whole samples (cluster 'task_sample')"
                          if epochs else "") + "; pass@k's task column is 'task_sample', not "
                       "'sample_id'; the text metrics are per task (column 'task_name')."]
    if "item" in frame.columns:  # several epochs: the reader's sample-and-epoch ids
        frame["item"] = text_array([f"{s} (epoch {e})" if e == e else s for s, e in
                                    zip(frame["sample_id"], frame["epoch"])])
        roles.update({"item": "item", "sample_id": "cluster"})
        return roles, ["Column 'item' names each sample and epoch; the analyses that compare items "
                       "(Compare, Rubric, Aggregation, Runs, Slices) take the samples as items, each "
                       "sample's epochs reduced as Inspect reduces them."]
    roles["sample_id"] = "item"
    return roles, ["Items are paired by sample id."]


#: Option fields whose role has another name (the other column fields are named as their role).
_FIELD_ROLE = {"outcome": "success", "id": "item"}


def with_roles(options: Any, table: Any) -> tuple[Any, list[str]]:
    """Fill an analysis's unset column options from the roles the file's format suggested
    (``table.roles``), as the GUI's panels do; returns the options and a note per column."""
    import dataclasses

    if not getattr(table, "roles", None) or not dataclasses.is_dataclass(options):
        return options, []
    by_role: dict[str, str] = {}
    for column, role in table.roles.items():
        by_role.setdefault(role, column)
    changes, notes = {}, []
    own = getattr(type(options), "FIELD_ROLES", {})  # an analysis's own reading of a role
    for f in dataclasses.fields(options):
        role = own.get(f.name) or _FIELD_ROLE.get(f.name, f.name)
        if getattr(options, f.name) is None and role in by_role \
                and (f.default is None):
            changes[f.name] = by_role[role]
            notes.append(f"Column '{by_role[role]}' was taken as the {role} column (from the file's "
                         f"format; set --{f.name.replace('_', '-')} to choose another).")
    return (dataclasses.replace(options, **changes) if changes else options), notes


#: Files a folder is searched for (recursively): lm-eval samples, Inspect logs, TREC runs.
FOLDER_PATTERNS = ("samples_*.jsonl", "*.eval", "*.run")


def folder_files(folder: str) -> list[str]:
    """The results files in a folder that :func:`load_folder` stacks, of the first kind found."""
    import glob

    for pattern in FOLDER_PATTERNS:
        found = sorted(p for pat in (pattern, pattern + ".gz")  # gzip-compressed ones too
                       for p in glob.glob(os.path.join(glob.escape(folder), "**", pat),
                                          recursive=True))
        if found and pattern == "*.eval":  # Inspect's .json logs beside them (the same runs, or others)
            found += [p for p in sorted(glob.glob(os.path.join(glob.escape(folder), "**", "*.json"),
                                                  recursive=True)) if _is_inspect_json(p)]
        if found:
            return found
    return [p for p in sorted(glob.glob(os.path.join(glob.escape(folder), "**", "*.json"),
                                        recursive=True)) if _is_inspect_json(p)]


def _is_inspect_json(path: str) -> bool:
    """An Inspect .json log, from its first bytes (its "version" and "eval" keys)."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(4096).decode("utf-8", "ignore")
    except OSError:
        return False
    return head.lstrip().startswith("{") and '"eval"' in head and '"version"' in head


def load_folder(folder: str, shown: str, progress: Any = None, *, load: Any):
    """A folder of lm-eval outputs (one sub-folder per model), Inspect logs (``.eval``, and
    ``.json`` ones) or TREC runs, stacked into one table; a folder with none of them gets the
    usual sentence.  ``load`` reads one file (the opener's ``load_table``)."""
    from workbench.io.formats import tool_folders

    tool = tool_folders.load(folder, shown, load_file=load, stack=combine, progress=progress)
    if tool is not None:  # a folder a tool wrote as one result (HELM, SWE-bench, MTEB)
        return tool
    files = folder_files(folder)
    if not files:
        raise DataError(f"The path {shown} is a folder, not a file; choose a CSV, TSV, XLSX or "
                        "Parquet file, or a folder of lm-evaluation-harness outputs "
                        "(samples_*.jsonl), Inspect logs (.eval, .json) or TREC .run files.")
    loaded = [load(f, progress=progress) for f in files]
    table = loaded[0] if len(loaded) == 1 else combine(loaded)

    note = (f"Folder {shown}: {len(files)} files ({', '.join(os.path.relpath(f, folder) for f in files[:6])}"
            f"{' ...' if len(files) > 6 else ''}).")
    return dataclasses.replace(table, path=folder, notes=(note, *table.notes))
