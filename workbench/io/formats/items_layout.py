"""The "workbench items" layout: any evaluation written out as one flat table
(``workbench items FILE... -o items.csv|.parquet|.xlsx [--wide]``, File > Export items) and read
back as the same evaluation.

**Long** (the default): one row per record (an item's try by one system) and scorer, with the
columns

- ``record`` (the record's number in the source, 1..n; its header carries the evaluation's
  tags: tool, version, format, reduction...), then every column of the source that is not a
  scorer's, under its own name, its header tagged with its role and what it declares
  (``sample_id [role=task; item]``, ``epoch [role=epoch; repeat]``, ``model [role=system; system]``,
  ``total_time [role=latency; usage=latency]``);
- ``scorer`` (the scorer's name), ``value`` (its value as a number; blank: unscored), ``label``
  (its label as text), ``status`` (``scored``, ``unscored`` or ``error``), ``scorer_error`` (the
  scorer's own error), ``scorer_declaration`` (kind, scale, threshold, weight, direction, the
  tool's reported value...).

**Wide** (``--wide``): one row per record; per scorer ``score:NAME [declaration]``,
``label:NAME``, ``status:NAME`` and ``error:NAME``.

A tag block is `` [key=value; flag; ...]`` at the end of a header, values percent-encoded
(``%3B`` for ``;``).  Ids and other text columns are written as text cells (``type=text``), so
that ``1.0``, `` 1`` and ``1`` stay three ids.  :func:`declare` rebuilds the source's table:
its columns, roles and :class:`~workbench.io.evaluation.Evaluation`.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any
from urllib.parse import quote, unquote

import numpy as np
import pandas as pd

from workbench.core.errors import DataError
from workbench.io.cells import text_array
from workbench.io.evaluation import Evaluation, Run, Scorer

FORMAT = "workbench_items"
#: The fixed columns of the long layout (after ``record`` and the record columns).
LONG = ("scorer", "value", "label", "status", "scorer_error", "scorer_declaration")
RECORD = "record"
RUN_CONFIG = "run_config"
#: Statuses of a record's value by one scorer.
SCORED, UNSCORED, ERROR = "scored", "unscored", "error"
_SAFE = " ()/:,.-_@*+!'<>?|\\^~`\"{}#$&"


def tag_text(tags: dict[str, Any]) -> str:
    """`` [key=value; flag]`` (True values are flags, None left out), values percent-encoded."""
    parts = []
    for k, v in tags.items():
        if v is None or v is False:
            continue
        parts.append(k if v is True else f"{k}={quote(str(v), safe=_SAFE)}")
    return f" [{'; '.join(parts)}]" if parts else ""


def parse_header(header: str) -> tuple[str, dict[str, Any]]:
    """(name, tags) of a header written with :func:`tag_text`."""
    text = str(header)
    if not text.endswith("]") or " [" not in text:
        return text, {}
    at = text.rfind(" [")
    tags: dict[str, Any] = {}
    for part in text[at + 2:-1].split("; "):
        if not part:
            continue
        key, eq, value = part.partition("=")
        tags[unquote(key)] = unquote(value) if eq else True
    return text[:at], tags


def layout_of(columns: list[str]) -> str | None:
    """``"long"``, ``"wide"`` or None: which layout a header is."""
    if not columns:
        return None
    name, tags = parse_header(columns[0])
    if name != RECORD or "tool" not in tags:
        return None
    names = [parse_header(c)[0] for c in columns]
    return "long" if all(x in names for x in LONG) else "wide"


def fits(table) -> bool:
    return layout_of([str(c) for c in table.frame.columns]) is not None


def _text(values, na: bool) -> Any:
    """Text cells as a text column; with ``na`` (the source's column had missing cells, not
    empty text) a blank cell is missing again."""
    array = text_array(list(values))
    if na:
        array = pd.array([None if v == "" else v for v in values], dtype=array.dtype) \
            if not isinstance(array, np.ndarray) else np.array([None if v == "" else v for v in values], dtype=object)
    return array


def _column(table, header: str, kind: str | None, na: bool = False) -> Any:
    """A column of the file as the source's type: text (exact), int, float or bool."""
    if kind == "text":
        return _text(table.cell_text(header), na)
    series = table.frame[header]
    if kind in ("int", "bool"):
        values = pd.to_numeric(series, errors="coerce")
        if values.notna().all():
            return values.to_numpy(dtype=np.int64)
        return values.to_numpy(dtype=float)
    return pd.to_numeric(series, errors="coerce").to_numpy(dtype=float)


def declare(table):
    """The source's table and evaluation rebuilt from an export (see the module's docstring)."""
    headers = [str(c) for c in table.frame.columns]
    layout = layout_of(headers)
    parsed = {h: parse_header(h) for h in headers}
    top = parsed[headers[0]][1]
    shown = f"'{table.path}'"
    records = pd.to_numeric(table.frame[headers[0]], errors="coerce")
    if records.isna().any():
        raise DataError(f"File {shown} is a workbench items export whose 'record' column has a blank or "
                        f"non-number cell ({table.describe_rows(list(np.flatnonzero(records.isna()))[:3])}); "
                        "expected each row's record number, as the export wrote it.")
    order, first_rows = np.unique(records.to_numpy(dtype=np.int64), return_index=True)
    record_cols = [h for h in headers[1:] if parsed[h][0] not in LONG and not parsed[h][0].startswith(
        ("score:", "label:", "status:", "error:"))]
    cols: dict[str, Any] = {}
    for h in record_cols:
        name, tags = parsed[h]
        values = _column(table, h, tags.get("type"), bool(tags.get("na")))
        cols[tags.get("name", name)] = values[first_rows]
    scorers = _scorers(table, parsed, headers, layout, records.to_numpy(dtype=np.int64), order, cols, shown)
    frame = pd.DataFrame(cols)
    frame = frame[[c for c in _source_order(top, frame.columns)]]
    roles, decl = {}, {}
    for h in record_cols:
        name, tags = parsed[h]
        name = tags.get("name", name)
        if tags.get("role"):
            roles[name] = tags["role"]
        for key in ("item", "repeat", "system", "error", "limit", "status", "annotator"):
            if tags.get(key):
                decl[key] = name
        if tags.get("usage"):
            decl.setdefault("usage", {})[tags["usage"]] = name
        if tags.get("metadata"):
            decl.setdefault("metadata", []).append(name)
    for s, tags in scorers:
        if tags.get("role"):
            roles[s.column] = tags["role"]
        if tags.get("labels_role") and s.labels:
            roles[s.labels] = tags["labels_role"]
    runs = _runs(frame, decl.get("system"), table.path)
    evaluation = None
    if top.get("tool") == "table":
        # a plain table: as plain as it was (its roles guessed again); a format that gave its
        # columns their roles without declaring an evaluation (EvalPlus' task_id, success) keeps them
        if top.get("format") in (None, "", "text", "xlsx", "parquet", FORMAT):
            roles = {}
    else:
        evaluation = Evaluation(
            tool=top["tool"], tool_version=top.get("version") or None, item=decl.get("item"),
            repeat=decl.get("repeat"), repeat_source=top.get("repeat_source", ""),
            reduction=top.get("reduction", "mean"), system=decl.get("system"), runs=runs,
            scorers=tuple(s for s, _ in scorers),
            primary=next((s.name for s, t in scorers if t.get("primary")), None),
            error=decl.get("error"), limit=decl.get("limit"), status=decl.get("status"),
            usage=json.loads(top["usage"]) if top.get("usage") else decl.get("usage", {}),
            annotator=decl.get("annotator"),
            metadata=tuple(json.loads(top["metadata"]) if top.get("metadata") else decl.get("metadata", [])))
    if RUN_CONFIG in frame.columns:
        frame = frame.drop(columns=[RUN_CONFIG])
    note = (f"Read as a workbench items export ({layout}) of {top['tool']}"
            + (f" {top['version']}" if top.get("version") else "")
            + f": {len(frame)} records, {len(scorers)} scorers, rebuilt as the source's table.")
    return dataclasses.replace(
        table, frame=frame.reset_index(drop=True), format=top.get("format") or FORMAT, roles=roles,
        panel=top.get("panel") or None, evaluation=evaluation, notes=(note,) + table.notes,
        row_lines=np.asarray(table.lines_of(first_rows), dtype=np.int64), cell_source=None,
        row_word=top.get("row_word") or None, row_names=None)


def _source_order(top: dict, columns) -> list[str]:
    wanted = json.loads(top["columns"]) if top.get("columns") else []
    present = list(columns)
    return [c for c in wanted if c in present] + [c for c in present if c not in wanted]


def _scorers(table, parsed, headers, layout, records, order, cols, shown):
    """Each scorer's columns put back (value, labels, error), with its declaration."""
    out = []
    index = {r: i for i, r in enumerate(order)}
    if layout == "long":
        by = {parsed[h][0]: h for h in headers}
        names = list(table.cell_text(by["scorer"]))
        decls = list(table.cell_text(by["scorer_declaration"]))
        values = pd.to_numeric(table.frame[by["value"]], errors="coerce").to_numpy(dtype=float)
        labels = list(table.cell_text(by["label"]))
        errors = list(table.cell_text(by["scorer_error"]))
        seen: dict[str, dict] = {}
        for name, decl in zip(names, decls):
            if name and name not in seen:  # a blank scorer: a table without one (one row per record)
                seen[name] = parse_header(f"x{decl}")[1] if decl.startswith(" [") else parse_header(f"x [{decl}]")[1]
        for name, tags in seen.items():
            rows = np.flatnonzero(np.asarray(names, dtype=object) == name)
            at = np.array([index[r] for r in records[rows]])
            out.append(_restore(name, tags, at, values[rows], [labels[i] for i in rows],
                                [errors[i] for i in rows], len(order), cols))
        return out
    for h in headers:
        name, tags = parsed[h]
        if not name.startswith("score:"):
            continue
        sname = name[len("score:"):]
        values = pd.to_numeric(table.frame[h], errors="coerce").to_numpy(dtype=float)
        lab = next((x for x in headers if parsed[x][0] == f"label:{sname}"), None)
        err = next((x for x in headers if parsed[x][0] == f"error:{sname}"), None)
        at = np.array([index[r] for r in records])
        out.append(_restore(sname, tags, at, values,
                            list(table.cell_text(lab)) if lab else [""] * len(records),
                            list(table.cell_text(err)) if err else [""] * len(records), len(order), cols))
    return out


def _restore(name, tags, at, values, labels, errors, n, cols):
    column = tags.get("column", name)
    kind = tags.get("type", "float")
    if kind != "text":
        full = np.full(n, np.nan)
        full[at] = values
        if kind in ("int", "bool") and not np.isnan(full).any():
            full = full.astype(np.int64)
        cols.setdefault(column, full)
    if tags.get("labels"):
        text = np.full(n, "", dtype=object)
        text[at] = labels
        cols.setdefault(tags["labels"], _text(text, bool(tags.get("na")) and tags["labels"] == column))
        if kind == "text":
            cols.setdefault(column, cols[tags["labels"]])
    if tags.get("error"):
        text = np.full(n, "", dtype=object)
        text[at] = errors
        cols.setdefault(tags["error"], text_array(list(text)))

    def number(key):
        return float(tags[key]) if tags.get(key) not in (None, "") else None

    scorer = Scorer(name, column, kind=tags.get("kind", "code"), scale=tags.get("scale", "score"),
                    labels=tags.get("labels") or None, weight=number("weight"), threshold=number("threshold"),
                    higher_is_better=not tags.get("lower_is_better"), passed=tags.get("passed") or None,
                    group=tags.get("group") or None,
                    models=tuple(m for m in (tags.get("models") or "").split("|") if m),
                    metric=tags.get("metric") or None, detail=tags.get("detail", ""),
                    reported=number("reported"),
                    reported_n=int(tags["reported_n"]) if tags.get("reported_n") else None,
                    error=tags.get("error") or None)
    return scorer, tags


def _runs(frame: pd.DataFrame, system: str | None, path: str) -> tuple[Run, ...]:
    if RUN_CONFIG not in frame.columns:
        return ()
    runs, seen = [], set()
    names = frame[system] if system in frame.columns else [""] * len(frame)
    for name, config in zip(names, frame[RUN_CONFIG]):
        if name in seen:
            continue
        seen.add(name)
        try:
            value = json.loads(config) if config else {}
        except json.JSONDecodeError:
            value = {}
        runs.append(Run(str(name), {**{str(k): str(v) for k, v in value.items()}, "exported_to": path}))
    return tuple(runs)


__all__ = ["ERROR", "FORMAT", "LONG", "RECORD", "RUN_CONFIG", "SCORED", "UNSCORED", "declare", "fits",
           "layout_of", "parse_header", "tag_text"]
