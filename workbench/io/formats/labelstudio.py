"""Label Studio exports: people's labels, one row per annotation, the annotator as a role.

Read by content from the project's exports:

- ``JSON`` (one record per task: ``data`` and ``annotations``, each annotation with
  ``completed_by`` and a ``result`` of choices);
- ``JSON_MIN`` (one flat record per annotation: the task's data, ``annotator``,
  ``annotation_id`` and each control's choice under its name);
- ``CSV`` and ``TSV`` (the same rows as ``JSON_MIN``, columns sorted by name).

One row per annotation: ``item`` (the task's id: its data's id field, e.g. ``sample_id``, as
exact text; else Label Studio's task id), ``task_id``, ``annotator`` (Label Studio's user id, as
text: exports never name people), one column per labelling control (``label``; several choices
joined with ``|``), the task's data, ``annotation_id`` and ``lead_time``.  Cancelled
annotations are left out (the exports that flatten do so too).  The labels are the people's:
a human scorer for the Judge panel, joined with a judge's log by item.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from workbench.core.errors import DataError
from workbench.io.evaluation import HUMAN, LABELS, Evaluation, Scorer
from workbench.io.formats._common import is_id_name, render_json_value, table, text_column

FORMAT = "label-studio"
#: Columns Label Studio adds to a flattened export (JSON_MIN, CSV, TSV) beside the task's data.
META = ("id", "annotator", "annotation_id", "created_at", "updated_at", "lead_time")
#: Names a labelling control is often given.
LABEL_NAMES = ("label", "labels", "choice", "choices", "class", "category", "rating", "verdict", "grade")


def is_tasks(value: Any) -> bool:
    """Label Studio's JSON export: a list of tasks with ``data`` and ``annotations``."""
    return isinstance(value, list) and bool(value) and isinstance(value[0], dict) \
        and isinstance(value[0].get("data"), dict) and isinstance(value[0].get("annotations"), list)


def is_min_records(value: Any) -> bool:
    """Label Studio's JSON_MIN export: flat records with ``annotator`` and ``annotation_id``."""
    return isinstance(value, list) and bool(value) and all(isinstance(r, dict) for r in value[:50]) \
        and "annotator" in value[0] and "annotation_id" in value[0]


def is_csv_header(header: list[str]) -> bool:
    """Label Studio's CSV/TSV export: ``annotation_id`` and ``annotator`` among the columns."""
    names = {h.strip() for h in header}
    return {"annotation_id", "annotator"} <= names


def load_tasks(value: list, path: str, shown: str):
    """The JSON export: one row per annotation of every task."""
    rows, controls = [], []
    for t_i, task in enumerate(value):
        if not isinstance(task, dict) or not isinstance(task.get("annotations"), list):
            raise DataError(f"File {shown}, task {t_i + 1}: expected a Label Studio task with 'data' and "
                            "'annotations'.")
        data = task.get("data") or {}
        for ann in task["annotations"]:
            if not isinstance(ann, dict) or ann.get("was_cancelled"):
                continue
            row = {"task_id": render_json_value(task.get("id")), **_plain(data),
                   "annotator": render_json_value(ann.get("completed_by")),
                   "annotation_id": render_json_value(ann.get("id")),
                   "lead_time": ann.get("lead_time")}
            for name, label in _choices(ann.get("result") or []).items():
                row[name] = label
                if name not in controls:
                    controls.append(name)
            rows.append(row)
    if not rows:
        raise DataError(f"File {shown} is a Label Studio export without annotations; expected tasks "
                        "labelled by at least one annotator.")
    return _table(rows, list(dict.fromkeys(k for t in value for k in _plain(t.get("data") or {}))),
                  controls, path, "JSON export (one record per task)")


def load_min(value: list, path: str, shown: str):
    """The JSON_MIN export: one flat record per annotation."""
    rows = []
    for record in value:
        row = {k: (render_json_value(v) if not isinstance(v, (int, float)) or isinstance(v, bool) else v)
               for k, v in record.items()}
        row["task_id"] = render_json_value(record.get("id"))
        row["annotator"] = render_json_value(record.get("annotator"))
        rows.append(row)
    data_keys = [k for k in value[0] if k not in META]
    controls = _guess_controls(pd.DataFrame(rows), data_keys)
    return _table(rows, [k for k in data_keys if k not in controls], controls, path,
                  "JSON_MIN export (one record per annotation)")


def from_delimited(loaded, path: str):
    """The CSV or TSV export, read by the delimited reader, as the JSON_MIN export."""
    frame = loaded.frame
    texts = {c: loaded.cell_text(c) for c in frame.columns}
    rows = [{c: texts[c][i] for c in frame.columns} for i in range(len(frame))]
    for row in rows:
        row["task_id"] = row.get("id", "")
        if "lead_time" in row:
            row["lead_time"] = pd.to_numeric(row["lead_time"], errors="coerce")
    data_keys = [c for c in frame.columns if c not in META]
    controls = _guess_controls(pd.DataFrame(rows), data_keys)
    return _table(rows, [k for k in data_keys if k not in controls], controls, path,
                  f"{'TSV' if loaded.delimiter == chr(9) else 'CSV'} export (one row per annotation)",
                  lines=loaded.lines_of(range(len(frame))))


def _plain(data: dict) -> dict:
    """A task's data fields, each as its exact text (numbers as written)."""
    return {str(k): (v if isinstance(v, (int, float)) and not isinstance(v, bool) else render_json_value(v))
            for k, v in data.items()}


def _choices(result: list) -> dict[str, str]:
    """Each control's choice(s) of one annotation (several joined with '|')."""
    out: dict[str, str] = {}
    for part in result:
        if not isinstance(part, dict):
            continue
        value = part.get("value") or {}
        name = str(part.get("from_name") or "label")
        chosen = value.get("choices") or value.get("labels") or value.get("taxonomy")
        if chosen is None and "rating" in value:
            chosen = [value["rating"]]
        if chosen is None and "text" in value:
            chosen = value["text"]
        if chosen is None:
            continue
        if isinstance(chosen, list):
            out[name] = "|".join(render_json_value(c) for c in chosen)
        else:
            out[name] = render_json_value(chosen)
    return out


def _guess_controls(frame: pd.DataFrame, keys: list[str]) -> list[str]:
    """The labelling controls' columns of a flattened export: a column named as controls often
    are, else the text column with the fewest distinct values (a choice among a few labels)."""
    named = [k for k in keys if k.strip().lower() in LABEL_NAMES]
    if named:
        return named[:1]
    best = None
    for k in keys:
        if is_id_name(k):
            continue
        values = frame[k].astype(str)
        distinct = values[values != ""].nunique()
        if 1 <= distinct <= 20 and (best is None or distinct < best[0]):
            best = (distinct, k)
    return [best[1]] if best else []


def _item_key(data_keys: list[str]) -> str | None:
    """The task's own id field (``sample_id``, ``item_id``, ``id``...)."""
    ids = [k for k in data_keys if is_id_name(k)]
    preferred = [k for k in ids if k.lower() in ("sample_id", "item_id", "item", "example_id", "question_id", "uid")]
    return (preferred or ids or [None])[0]


def _table(rows: list[dict], data_keys: list[str], controls: list[str], path: str, what: str,
           lines=None):
    if not controls:
        raise DataError(f"File '{path}' is a Label Studio {what} but none of its columns holds the "
                        "annotators' choices; expected a labelling control's column (e.g. 'label').")
    key = _item_key(data_keys)
    frame = pd.DataFrame(rows)
    item = frame[key].map(lambda v: render_json_value(v) if not isinstance(v, str) else v) if key \
        else frame["task_id"]
    out: dict[str, Any] = {"item": text_column(list(item)), "task_id": text_column(list(frame["task_id"])),
                           "annotator": text_column(list(frame["annotator"]))}
    for c in controls:
        out[c] = text_column(["" if v is None or (isinstance(v, float) and np.isnan(v)) else str(v)
                              for v in frame[c]])
    for k in data_keys:
        if k in out or k == key:
            continue
        values = list(frame[k]) if k in frame.columns else [""] * len(frame)
        if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
            out[k] = np.asarray(values, dtype=float if any(isinstance(v, float) for v in values) else np.int64)
        else:
            out[k] = text_column(["" if v is None else str(v) for v in values])
    if key and key != "item":
        out[key] = out["item"]
    for k in ("annotation_id", "lead_time"):
        if k in frame.columns:
            out[k] = (text_column([str(v) for v in frame[k]]) if k == "annotation_id"
                      else pd.to_numeric(frame[k], errors="coerce").to_numpy(dtype=float))
    result = pd.DataFrame(out)
    annotators = list(dict.fromkeys(result["annotator"]))
    labels = sorted({v for c in controls for v in result[c] if v})
    notes = [f"Read as a Label Studio {what}: {len(result)} annotations of {result['item'].nunique()} "
             f"items by {len(annotators)} annotators ({', '.join(annotators[:6])}; Label Studio's user ids: "
             f"its exports never name people); the items are the tasks' '{key or 'id'}'; the labels "
             f"({', '.join(repr(x) for x in labels[:8])}) are in column "
             + ", ".join(repr(c) for c in controls) + "; cancelled annotations are left out."]
    roles = {"item": "item", "annotator": "annotator", controls[0]: "human"}
    evaluation = Evaluation(tool="label-studio", item="item", annotator="annotator",
                            scorers=tuple(Scorer(c, c, kind=HUMAN, scale=LABELS,
                                                 detail="people's labels, one per annotation") for c in controls),
                            primary=controls[0],
                            metadata=tuple(k for k in data_keys if k != key and k in result.columns))
    names = [f"annotation {a} by {u} of item {i}" for a, u, i in
             zip(result.get("annotation_id", result["task_id"]), result["annotator"], result["item"])]
    return table(result, path, fmt=FORMAT, notes=notes,
                 row_lines=np.asarray(lines if lines is not None else np.arange(1, len(result) + 1), dtype=np.int64),
                 roles=roles, panel="judge", row_word="annotation" if lines is None else "line",
                 row_names=names, evaluation=evaluation)


__all__ = ["FORMAT", "from_delimited", "is_csv_header", "is_min_records", "is_tasks", "load_min", "load_tasks"]
