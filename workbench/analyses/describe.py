"""What this file holds: the systems or runs and their configuration, the items and their
repeats, the scorers (kind, scale, scored and unscored records), the annotators, the errors and
limits by kind, the usage, and what the workbench chose (the scorer, the error policy, the
unit).  ``workbench describe FILE... [--json]`` and the window's card show the same result.

Counts are of the table's records (a record is one row: an item's try by one system); the
scorers' counts say how many records each scored and left blank.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..core.numbers import plural
from ..core.result import AnalysisResult, Table, record, signature
from ..io import LoadedTable, to_text
from ..io.evaluation import Evaluation
from ._common import base_signature
from .reading import Reading, choose, evaluation_of

NAME = "describe"
TITLE = "What this file holds"


def run(table: LoadedTable, reading: Reading = Reading(), roles: dict[str, str] | None = None) -> AnalysisResult:
    """The description of ``table`` (its reader's declaration, else one inferred from roles)."""
    ev = evaluation_of(table, roles)
    frame = table.frame
    n = len(frame)
    records, tables, notes = [record("records", n, n=n)], [], []
    systems = _texts(table, ev.system)
    items = _texts(table, ev.item)
    tables.append(_systems_table(table, ev, systems, items))
    for row in tables[-1].frame.itertuples(index=False):
        records.append(record("records", int(row.records), system=row.system, n=n))
        if items is not None:
            records.append(record("items", int(row.items), system=row.system, n=int(row.records)))
    if items is not None:
        records.append(record("items", int(pd.Series(items).nunique()), n=n))
        per = _repeats_per_item(items, systems)
        if ev.repeat:
            records += [record("repeats_min", int(per.min()), n=len(per)),
                        record("repeats_max", int(per.max()), n=len(per))]
    scorer = None
    if ev.scorers or reading.scorer:
        scorer = choose(ev, reading.scorer, table)
    tables.append(_scorers_table(table, ev, scorer, records))
    tables.append(_statuses_table(table, ev, records, scorer))
    annot = _annotators_table(table, ev, records)
    if annot is not None:
        tables.append(annot)
    usage = _usage_table(table, ev, records)
    if usage is not None:
        tables.append(usage)
    notes += [x for x in ev.notes if x]
    notes.append(_chosen_sentence(ev, scorer, reading, items is not None))
    sig = {**base_signature(NAME), "tool": ev.tool, **({"version": ev.tool_version} if ev.tool_version else {}),
           "scorer": scorer.name if scorer is not None else "none", "errors": reading.errors,
           "unit": f"item({ev.reduction} of repeats)" if ev.repeat else "item"}
    return AnalysisResult(NAME, signature(sig), tuple(records), tuple(tables), tuple(notes),
                          json_tables=tuple(t.name for t in tables))


def _texts(table: LoadedTable, column: str | None):
    if column is None or column not in table.frame.columns:
        return None
    return np.asarray(to_text(table, column), dtype=object)


def _repeats_per_item(items, systems) -> pd.Series:
    keys = pd.DataFrame({"item": items, "system": systems if systems is not None else ""})
    return keys.groupby(["system", "item"], sort=False).size()


def _systems_table(table: LoadedTable, ev: Evaluation, systems, items) -> Table:
    configs = {r.name: r.config for r in ev.runs}
    names = list(dict.fromkeys(systems)) if systems is not None else [ev.runs[0].name if ev.runs else "(one system)"]
    keys = sorted({k for c in configs.values() for k in c if k != "file"})
    rows = []
    for name in names:
        mask = systems == name if systems is not None else np.ones(len(table.frame), dtype=bool)
        row = {"system": str(name), "records": int(mask.sum()),
               "items": int(pd.Series(items[mask]).nunique()) if items is not None else np.nan}
        if ev.repeat and items is not None:  # the tries of each item (one per repeat)
            tries = pd.Series(items[mask]).value_counts()
            low, high = (int(tries.min()), int(tries.max())) if len(tries) else (0, 0)
            row["repeats"] = str(low) if low == high else f"{low} to {high}"
        config = configs.get(str(name), {})
        row.update({k: str(config.get(k, "")) for k in keys})
        row["file"] = str(config.get("file", ""))
        rows.append(row)
    frame = pd.DataFrame(rows)
    return Table("systems", "Systems and runs", frame,
                 {"system": "the system or run, as the analyses name it", "records": "its records (rows)",
                  "items": "its distinct items",
                  "repeats": f"the tries of each item (one per value of '{ev.repeat}')",
                  **{k: f"the run's {k}" for k in keys},
                  "file": "the file it came from"},
                 {"records": "int", "items": "int", **{k: "text" for k in (*keys, "system", "file", "repeats")}})


def _scorers_table(table: LoadedTable, ev: Evaluation, chosen, records: list) -> Table:
    rows = []
    for s in ev.scorers:
        values = table.frame[s.column] if s.column in table.frame.columns else pd.Series(dtype=float)
        if pd.api.types.is_numeric_dtype(values):
            blank = values.isna().to_numpy()
        else:
            blank = (values.isna() | (values.astype(str).str.strip() == "")).to_numpy()
        err = _error_mask(table, ev, s)
        scored, unscored = int((~blank & ~err).sum()), int((blank & ~err).sum())
        records.append(record(f"scored:{s.name}", scored, n=len(values)))
        records.append(record(f"unscored:{s.name}", unscored, n=len(values)))
        if getattr(s, "reported", None) is not None:  # the tool's own number, as it wrote it
            records.append(record(f"reported:{s.name}", float(s.reported),
                                  n=s.reported_n if s.reported_n is not None else scored))
        if s.error:  # the scorer's own errors (an errored metric, an evaluator that raised)
            records.append(record(f"errors:{s.name}", int(err.sum()), n=len(values)))
        rows.append({"scorer": s.name, "column": s.column, "kind": s.kind, "scale": s.scale,
                     "group": s.group or "", "weight": s.weight if s.weight is not None else np.nan,
                     "threshold": s.threshold if s.threshold is not None else np.nan,
                     "primary": s.name == (ev.primary or (ev.scorers[0].name if ev.scorers else None)),
                     "chosen": chosen is not None and s.name == chosen.name,
                     "scored": scored, "unscored": unscored, "errors": int(err.sum()), "reported": s.metric or "",
                     "detail": s.detail})
    frame = pd.DataFrame(rows, columns=["scorer", "column", "kind", "scale", "group", "weight", "threshold",
                                        "primary", "chosen", "scored", "unscored", "errors", "reported", "detail"])
    return Table("scorers", "Scorers", frame,
                 {"scorer": "the scorer's name (--scorer NAME)", "kind": "code, judge, judge panel, human or "
                  "recorded metric", "scale": "binary, partial credit, ordinal, labels or score",
                  "scored": "records with a value", "unscored": "records left blank (not errors)",
                  "errors": "records that ended with an error, the scorer's own included",
                  "reported": "the value the tool itself reported"},
                 {"scored": "int", "unscored": "int", "errors": "int", "weight": "float", "threshold": "float",
                  **{c: "text" for c in ("scorer", "column", "kind", "scale", "group", "reported", "detail")}})


def _error_mask(table: LoadedTable, ev: Evaluation, scorer=None) -> np.ndarray:
    """The records that ended with an error: the scorer's own error column (the record's
    errors included) when it has one, else the evaluation's."""
    column = scorer.error if scorer is not None and getattr(scorer, "error", None) in table.frame.columns \
        else ev.error
    if column is None or column not in table.frame.columns:
        return np.zeros(len(table.frame), dtype=bool)
    text = pd.Series(to_text(table, column), dtype=object).fillna("").astype(str).str.strip()
    return ((text != "") & ~text.str.lower().isin({"0", "false", "no", "none"})).to_numpy()


def _statuses_table(table: LoadedTable, ev: Evaluation, records: list, scorer=None) -> Table:
    n = len(table.frame)
    err = _error_mask(table, ev, scorer)
    rows = [{"status": "error", "records": int(err.sum())}]
    if ev.limit is not None and ev.limit in table.frame.columns:
        limits = pd.Series(to_text(table, ev.limit), dtype=object).fillna("").astype(str)
        for kind, count in limits[limits != ""].value_counts().items():
            rows.append({"status": f"limit:{kind}", "records": int(count)})
    rows.append({"status": "completed", "records": int(n - err.sum())})
    column = getattr(ev, "status", None)
    if column is not None and column in table.frame.columns:  # the tool's own words for each record
        words = pd.Series(to_text(table, column), dtype=object).fillna("").astype(str)
        for word, count in words[words != ""].value_counts(sort=False).items():
            rows.append({"status": f"status:{word}", "records": int(count)})
    for row in rows:
        records.append(record(row["status"] if row["status"] != "completed" else "completed", row["records"], n=n))
    return Table("statuses", "Records by status", pd.DataFrame(rows),
                 {"status": "error: no measurement; limit:KIND: the record hit a limit (it may still be "
                  "scored); completed: the records without an error", "records": "how many"},
                 {"records": "int", "status": "text"})


def _annotators_table(table: LoadedTable, ev: Evaluation, records: list) -> Table | None:
    if ev.annotator is None or ev.annotator not in table.frame.columns:
        return None
    who = pd.Series(to_text(table, ev.annotator), dtype=object)
    counts = who[who != ""].value_counts(sort=False)
    records.append(record("annotators", int(len(counts)), n=len(who)))
    frame = pd.DataFrame({"annotator": [str(a) for a in counts.index], "labels": counts.to_numpy(dtype=int)})
    for a, c in zip(frame["annotator"], frame["labels"]):
        records.append(record("labels", int(c), group=a, n=len(who)))
    return Table("annotators", "Annotators", frame, {"annotator": "who labelled", "labels": "their labels"},
                 {"labels": "int", "annotator": "text"})


def _usage_table(table: LoadedTable, ev: Evaluation, records: list) -> Table | None:
    rows = []
    for key, column in ev.usage.items():
        if column not in table.frame.columns:
            continue
        values = pd.to_numeric(table.frame[column], errors="coerce")
        rows.append({"usage": key, "column": column, "total": float(values.sum()),
                     "records": int(values.notna().sum())})
        records.append(record(f"total:{key}", float(values.sum()), n=int(values.notna().sum())))
    if not rows:
        return None
    return Table("usage", "Usage (every record, errored ones included: their spend is real)",
                 pd.DataFrame(rows), {"usage": "what was spent", "total": "sum over the records"},
                 {"total": "float", "records": "int", "usage": "text", "column": "text"})


def _chosen_sentence(ev: Evaluation, scorer, reading: Reading, has_items: bool) -> str:
    parts = []
    if scorer is not None:
        how = "chosen" if reading.scorer else "the tool's primary scorer"
        parts.append(f"the scorer is '{scorer.name}' ({how}; --scorer NAME to choose another)")
    parts.append("records that ended with an error are " + (
        "left out and counted" if reading.errors == "exclude" else "counted as failures")
        + " (--errors exclude|fail)")
    if ev.repeat and has_items:
        parts.append(f"the unit is the item: its repeats are reduced by their {ev.reduction} where an "
                     "analysis compares items (never a repeat as an item)")
    return "The workbench reads it so: " + "; ".join(parts) + "."


def describe_text(result: AnalysisResult) -> str:
    """The description as lines of text (the command line without --json)."""
    out = [f"{TITLE}: {result.input or ''}".rstrip(": ")]
    for tab in result.tables:
        out += ["", f"{tab.title}:"]
        frame = tab.frame.copy()
        for col in frame.columns:
            if frame[col].dtype.kind == "f":
                frame[col] = [("" if pd.isna(v) else (f"{int(v):,}" if float(v).is_integer() else f"{v:.6g}"))
                              for v in frame[col]]
        out.append(frame.to_string(index=False))
    counts = {r["metric"]: r["value"] for r in result.records if r.get("system") is None}
    repeats = ""
    if "repeats_min" in counts:
        low, high = int(counts["repeats_min"]), int(counts["repeats_max"])
        repeats = f", {low if low == high else f'{low} to {high}'} tries of each item"
    out += ["", f"{plural(int(counts.get('records', 0)), 'record')}"
            + (f", {plural(int(counts['items']), 'item')}" if "items" in counts else "") + repeats]
    out += [f"note: {n}" for n in result.notes]
    out += ["", f"signature: {result.signature}"]
    return "\n".join(out)


__all__ = ["NAME", "TITLE", "describe_text", "run"]
