"""promptfoo's own CSV export (``promptfoo eval -o results.csv``).

One row per test (and per repeat with ``--repeat``: promptfoo writes each try as a row of its
own, with no repeat index), the providers side by side: ``Description``, one column per var,
then for each provider a group of columns: ``[<provider>] <prompt>`` (the output), ``Status``
(PASS/FAIL/ERROR), ``Score``, ``Named Scores`` (JSON), one ``Metric: <name>`` per named metric
(newer versions), ``Grader Reason`` and ``Comment``.  The names after the first repeat for each
provider; each takes its provider's tag here ("[flaky] Status").

Read as the JSON results are: one row per test, try and provider (``provider``, ``test``,
``test_case`` and ``repeat`` when rows repeat a test with the same description and vars,
``vars.<name>``, ``output``, ``success`` from the status, ``score``, ``named.<metric>``,
``reason``), an ERROR status in ``error`` (not a measurement).  The export holds no latency,
cost, weights or thresholds (the JSON results do), and its scores are rounded to two decimals.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import re

import numpy as np
import pandas as pd

from workbench.io.evaluation import BINARY, SCORE, Evaluation, Run, Scorer
from workbench.io.formats._common import decode, table, text_column
from workbench.io.textfile import _load_text, _Steps

FORMAT = "promptfoo"
#: The columns promptfoo's CSV export repeats after each "[provider] prompt" column.
CSV_GROUP = ("Status", "Score", "Named Scores", "Grader Reason", "Comment")
_CSV_OUTPUT = re.compile(r"\[(.+?)\] ")
_METRIC = "Metric: "


def _in_group(name: str) -> bool:
    return name in CSV_GROUP or name.startswith(_METRIC)


def csv_names(header: list[str]) -> list[str] | None:
    """Unique names for the header of promptfoo's CSV export: each name of a provider's group
    (Status, Score, Named Scores, Metric: <name>, Grader Reason, Comment) gets its provider's
    tag ("[flaky] Status").  None when the header is not that export's or has no repeated name."""
    names = [h.strip() for h in header]
    if len(set(names)) == len(names):
        return None
    out, tag = [], None
    for name in names:
        match = _CSV_OUTPUT.match(name)
        if match:
            tag = match.group(1)
            out.append(name)
        elif _in_group(name) and tag is not None:
            out.append(f"[{tag}] {name}")
        else:
            out.append(name)
    if tag is None or len(set(out)) != len(out):
        return None
    return out


def load_csv(data: bytes, path: str, shown: str, names: list[str], header: list[str]):
    """promptfoo's CSV export, read as any delimited file with its header's names made unique."""
    text = decode(data, shown)
    first_end = text.index("\n") + 1 if "\n" in text else len(text)
    line = io.StringIO()
    csv.writer(line, lineterminator="\r\n" if text[:first_end].endswith("\r\n") else "\n") \
        .writerow(names)
    wide = _load_text((line.getvalue() + text[first_end:]).encode("utf-8"), path, shown, _Steps(None, ""))
    renamed = [f"'{new}'" for old, new in zip(header, names) if old.strip() != new]
    note = (f"Read as promptfoo's CSV export: its header repeats {', '.join(CSV_GROUP)} (and each "
            f"'{_METRIC}<name>') for each provider, so each repeated name takes its provider's tag "
            f"({', '.join(renamed[:6])}{' ...' if len(renamed) > 6 else ''})")
    return _csv_long(wide, names, note)


def _csv_long(wide, names: list[str], note: str):
    """The export's one row per test, one column group per provider, as one row per test, try
    and provider.  A header this cannot place stays the wide table."""
    frame = wide.frame
    tags = list(dict.fromkeys(m.group(1) for n in names if (m := _CSV_OUTPUT.match(n))
                              and not _in_group(n[len(m.group(0)):])))
    status = {t: f"[{t}] Status" for t in tags}
    if not tags or any(c not in frame.columns for c in status.values()):
        return dataclasses.replace(wide, notes=(note + "; the rest of the file is read as it is.", *wide.notes))
    output = {t: next(n for n in names if n.startswith(f"[{t}] ") and not _in_group(n[len(t) + 3:]))
              for t in tags}
    shared = [n for n in names if not _CSV_OUTPUT.match(n)]
    test_col = "Description" if "Description" in shared else None
    var_cols = [c for c in shared if c != test_col]
    n = len(frame)
    tests = [str(x) for x in frame[test_col]] if test_col else [f"test {i + 1}" for i in range(n)]
    case, repeat = _repeats(tests, [wide.cell_text(c) for c in var_cols], n)
    if case is None and len(set(tests)) != len(tests):  # descriptions repeat with other vars
        tests = [f"{t} #{i + 1}" for i, t in enumerate(tests)]
    row_lines = wide.lines_of(range(n))
    metrics = list(dict.fromkeys(n_[len(f"[{t}] {_METRIC}"):] for t in tags for n_ in names
                                 if n_.startswith(f"[{t}] {_METRIC}")))
    parts, lines = [], []
    for tag in tags:
        words = [str(x).strip().upper() for x in frame[status[tag]].fillna("")]
        part = {"provider": [tag] * n, "test": tests}
        if case is not None:
            part["test_case"], part["repeat"] = case, repeat
        for col in var_cols:
            part[f"vars.{col}"] = wide.cell_text(col)
        part["output"] = wide.cell_text(output[tag])
        part["success"] = [1.0 if w == "PASS" else 0.0 if w in ("FAIL", "ERROR") else np.nan for w in words]
        part["score"] = _numbers(frame, f"[{tag}] Score", words)
        for metric in metrics:
            part[f"named.{metric}"] = _numbers(frame, f"[{tag}] {_METRIC}{metric}", words)
        reason_col = f"[{tag}] Grader Reason"
        part["reason"] = wide.cell_text(reason_col) if reason_col in frame else [""] * n
        part["error"] = ["provider error (status ERROR)" if w == "ERROR" else "" for w in words]
        parts.append(pd.DataFrame(part))
        lines += list(row_lines)
    long = pd.concat(parts, ignore_index=True)
    for col in long.columns:
        if long[col].dtype == object:
            long[col] = text_column([("" if v is None else str(v)) for v in long[col]])
    errors = int((long["error"] != "").sum())
    notes = [note + f"; read as one row per test and provider ({len(tags)} providers: "
             + ", ".join(tags) + "), success from each provider's PASS/FAIL status"
             + (f"; {errors} ERROR status{'es' if errors != 1 else ''} in column 'error' (not measurements)"
                if errors else "") + "; the export holds no latency, cost, weights or thresholds and "
             "rounds its scores to two decimals (the JSON results hold them all)."]
    if case is not None:
        notes.append(f"Rows repeat a test with the same description and vars (promptfoo --repeat, up to "
                     f"{max(repeat)} tries): column 'test_case' names the test, 'repeat' the try.")
    roles = {"provider": "system", "test": "item", "output": "prediction", "success": "success"}
    if case is not None:
        roles.update({"test_case": "task", "repeat": "epoch"})
    if errors:
        roles["error"] = "error"
    names_rows = [f"test '{t}' of '{p}'" + (f" (try {r})" if case is not None else "")
                  for p, t, r in zip(long["provider"], long["test"],
                                     long["repeat"] if case is not None else [None] * len(long))]
    evaluation = _evaluation(long, tags, metrics, wide.path, case is not None)
    return table(long, wide.path, fmt=FORMAT, notes=notes + list(wide.notes),
                 row_lines=np.asarray(lines, dtype=np.int64), roles=roles,
                 panel="compare" if len(tags) > 1 else "aggregate", row_word="row", row_names=names_rows,
                 evaluation=evaluation)


def _numbers(frame: pd.DataFrame, column: str, words: list[str]) -> np.ndarray:
    """A provider's number column; blank on its ERROR rows (promptfoo writes 0.00 there)."""
    if column not in frame.columns:
        return np.full(len(frame), np.nan)
    values = pd.to_numeric(frame[column], errors="coerce").to_numpy(dtype=float)
    return np.where(np.asarray(words) == "ERROR", np.nan, values)


def _repeats(tests: list[str], var_texts: list, n: int):
    """(test case, try number) per row when rows repeat a test with the same description and
    vars (--repeat), else (None, None); the test case is named by its description (numbered
    when two different tests share one)."""
    keys = [(t,) + tuple(str(v[i]) for v in var_texts) for i, t in enumerate(tests)]
    counts: dict[tuple, int] = {}
    repeat = []
    for key in keys:
        counts[key] = counts.get(key, 0) + 1
        repeat.append(counts[key])
    if max(counts.values(), default=1) < 2:
        return None, None
    by_name: dict[str, list] = {}
    for key in dict.fromkeys(keys):
        by_name.setdefault(key[0], []).append(key)
    label = {key: (name if len(same) == 1 else f"{name} #{i + 1}")
             for name, same in by_name.items() for i, key in enumerate(same)}
    return [label[k] for k in keys], repeat


def _evaluation(long: pd.DataFrame, tags: list[str], metrics: list[str], path: str, repeats: bool) -> Evaluation:
    scorers = [Scorer("pass", "success", scale=BINARY, detail="promptfoo's own decision (the Status column)"),
               Scorer("score", "score", scale=SCORE, detail="promptfoo's score, rounded to two decimals")]
    scorers += [Scorer(m, f"named.{m}", scale=SCORE, detail="promptfoo's named score, rounded to two decimals")
                for m in metrics]
    return Evaluation(tool="promptfoo", item="test_case" if repeats else "test", repeat="repeat" if repeats else None,
                      repeat_source="--repeat (rows with identical vars)" if repeats else "",
                      system="provider", runs=tuple(Run(t, {"provider": t, "tool": "promptfoo", "file": path})
                                                    for t in tags),
                      scorers=tuple(scorers), primary="pass",
                      error="error" if (long["error"] != "").any() else None,
                      metadata=tuple(c for c in long.columns if str(c).startswith("vars.")))


__all__ = ["CSV_GROUP", "csv_names", "load_csv"]
