"""JSON Lines and JSON arrays of records (HumanEval / EvalPlus sample files included).

One row per record.  Nested objects are flattened to dotted column names (``{"a": {"b": 1}}``
gives column ``a.b``); lists are kept as JSON text; ``true``/``false`` are read as the outcomes
1/0; ``null`` and absent keys are empty.  Identifier columns (``task_id``, ``id``, ``doc_id``...)
keep the text of the file even when the ids are numbers (``1`` and ``1.0`` differ).
"""

from __future__ import annotations

import json
import re
from typing import Any, Sequence

import numpy as np
import pandas as pd

from workbench.core.errors import DataError
from workbench.io.formats._common import almost, is_id_name, short, table, typed_column

JSONL, JSON = "jsonl", "json"
_BLANK_LINE = re.compile(r"\n[ \t\r]*\n")


def parse_lines(text: str, shown: str) -> tuple[list[Any], np.ndarray]:
    """Every non-blank line parsed as JSON, with its 1-based line number.

    The lines are parsed in one call of the C decoder (as a JSON array); only when that fails
    is the file parsed line by line, to name the first bad line.
    """
    body = text.rstrip()
    if _BLANK_LINE.search("\n" + body + "\n") is None:
        lines = None
        joined = "[" + body.replace("\n", ",") + "]"
    else:
        split = body.split("\n")
        keep = [i for i, line in enumerate(split) if line.strip()]
        lines = np.asarray(keep, dtype=np.int64) + 1
        joined = "[" + ",".join(split[i] for i in keep) + "]"
    try:
        values = json.loads(joined)
    except (json.JSONDecodeError, RecursionError):
        values = None
    numbers = lines if lines is not None else np.arange(1, body.count("\n") + 2, dtype=np.int64)
    if values is None or len(values) != len(numbers):
        split = body.split("\n")
        for number in numbers:
            line = split[number - 1]
            try:
                json.loads(line)
            except json.JSONDecodeError as err:
                raise almost(shown, int(number), f"is not valid JSON ({err.msg} at character "
                             f"{err.colno}: {short(line.strip())})",
                             "one JSON object per line (JSON Lines)") from None
        raise DataError(f"File {shown} could not be read as JSON Lines; expected one JSON object "
                        "per line.")
    return values, numbers


def records_table(records: Sequence[Any], path: str, shown: str, *, fmt: str, what: str,
                  lines: np.ndarray | None, word: str, notes: Sequence[str] = ()):
    """A table of JSON objects (one row each); non-objects are refused with their line."""
    for i, record in enumerate(records):
        if not isinstance(record, dict):
            where = int(lines[i]) if lines is not None else i + 1
            raise almost(shown, where, f"holds {short(json.dumps(record)[:60])}, not a JSON object",
                         "one object (with named fields) per " + word, word=word)
    frame, kinds, flattened = frame_of(records)
    all_notes = [f"Read as {what}: {len(frame):,} records, {frame.shape[1]} columns"
                 + (" (nested fields flattened to dotted names)" if flattened else "")
                 + _kinds_sentence(kinds) + "."]
    all_notes += list(notes)
    roles, panel, extra = _humaneval(frame, kinds)
    all_notes += extra
    row_lines = lines if lines is not None else np.arange(1, len(frame) + 1, dtype=np.int64)
    return table(frame, path, fmt=fmt, notes=all_notes, row_lines=row_lines, roles=roles,
                 panel=panel, row_word=word)


def _kinds_sentence(kinds: dict[str, str]) -> str:
    parts = []
    booleans = [c for c, k in kinds.items() if k == "bool"]
    if booleans:
        parts.append("true/false read as 1/0 in " + ", ".join(f"'{c}'" for c in booleans[:5]))
    ids = [c for c, k in kinds.items() if k == "id"]
    if ids:
        parts.append("ids kept as text in " + ", ".join(f"'{c}'" for c in ids[:5]))
    return ("; " + "; ".join(parts)) if parts else ""


def frame_of(records: Sequence[dict]) -> tuple[pd.DataFrame, dict[str, str], bool]:
    """Columns from records: key order of first appearance, nested objects flattened."""
    shapes = dict.fromkeys(map(tuple, records))
    keys = list(dict.fromkeys(k for shape in shapes for k in shape))
    columns: dict[str, Any] = {}
    kinds: dict[str, str] = {}
    flattened = False
    same = len(shapes) == 1

    def add(name: str, values: list[Any]) -> None:
        nonlocal flattened
        value_types = set(map(type, values))
        if dict in value_types and value_types <= {dict, type(None)}:
            flattened = True
            sub = list(dict.fromkeys(k for v in values if v is not None for k in v))
            for key in sub:
                add(f"{name}.{key}", [v.get(key) if v is not None else None for v in values])
            return
        as_text = is_id_name(name)
        column, kind = typed_column(values, as_text=as_text)
        while name in columns:  # "a.b" as a key and as a flattened path
            name += "_"
        columns[name] = column
        kinds[name] = "id" if as_text else kind

    for key in keys:
        if same:
            values = [r[key] for r in records]
        else:
            values = [r.get(key) for r in records]
        add(str(key), values)
    return pd.DataFrame(columns), kinds, flattened


def _humaneval(frame: pd.DataFrame, kinds: dict[str, str]):
    """Roles for HumanEval / EvalPlus sample results (``task_id`` with ``passed`` or ``result``)."""
    notes: list[str] = []
    if "task_id" not in frame.columns:
        return None, None, notes
    if "passed" not in frame.columns and "result" in frame.columns \
            and kinds.get("result") == "text":
        result = frame["result"].astype(str)
        frame["passed"] = (result == "passed").to_numpy(dtype=np.int64)
        notes.append("Column 'passed' was added: 1 where 'result' is 'passed' (HumanEval's "
                     "execution result), else 0 ('failed: ...', 'timed out').")
        kinds["passed"] = "bool"
    if "passed" not in frame.columns or kinds.get("passed") not in ("bool", "int", "float"):
        return None, None, notes
    notes.insert(0, "Recognised a HumanEval-style samples file (task_id, passed): one row per "
                    "attempt, for pass@k and pass^k.")
    roles = {"task_id": "task", "passed": "success"}
    for name in ("model", "system"):
        if name in frame.columns:
            roles[name] = "system"
            break
    _attempts(frame, roles, notes)
    return roles, "passk", notes


def _attempts(frame: pd.DataFrame, roles: dict[str, str], notes: list[str]) -> None:
    """A task's rows are its attempts (samples): the column numbering them within the task
    (EvalPlus's ``sample``) is the repeat, or one is added in the file's order, so that every
    panel counts the tasks as items and their samples as tries of each."""
    keys = [c for c, r in roles.items() if r == "system"] + ["task_id"]
    if not frame.duplicated(subset=keys).any():
        return
    for name in ("sample", "sample_id", "sample_index", "attempt"):
        if name in frame.columns and not frame.duplicated(subset=keys + [name]).any():
            roles[name] = "epoch"
            return
    name = "attempt"
    while name in frame.columns:
        name += "_"
    frame[name] = frame.groupby(keys, sort=False).cumcount().to_numpy(dtype=np.int64) + 1
    roles[name] = "epoch"
    notes.append(f"Column '{name}' was added: the number of each sample among its task's, in the "
                 "file's order (1, 2, ...): a task's samples are tries of one item.")
