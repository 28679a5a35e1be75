"""People's labels joined to an evaluation log by item: one log, one or more label files (a
Label Studio export, or any table of people's labels with an item column).

The join matches the labels' item with the log's declared item (exact text), and also the
labels' system and repeat columns where the labels carry the log's (``model``, ``epoch``: the
people then labelled the very answer the judge graded).  Each annotator becomes a column of the
log (``person <annotator>``), and ``people`` holds the label a strict majority of an item's
annotators gave (blank without one); the log's evaluation declares them as human scorers
(``people`` first), so every panel and the Judge read them as the people's labels.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Sequence

import numpy as np
import pandas as pd

from workbench.core.errors import DataError
from workbench.io.cells import text_array
from workbench.io.columns import to_text
from workbench.io.evaluation import HUMAN, LABELS, Evaluation, Scorer, item_column

PEOPLE = "people"


def is_labels(table: Any) -> bool:
    """A table of people's labels (a Label Studio export): it declares human scorers only."""
    ev = getattr(table, "evaluation", None)
    return ev is not None and bool(ev.scorers) and all(s.kind == HUMAN for s in ev.scorers) \
        and ev.system is None


def join_labels(log: Any, labels: Sequence[Any]):
    """``log`` with the people's labels of ``labels`` joined as columns (see the module)."""
    ev: Evaluation | None = getattr(log, "evaluation", None)
    if ev is None or ev.item is None:
        raise DataError(f"File '{log.name}' declares no items to join people's labels with; open the "
                        "labels with an evaluation log (Inspect, promptfoo, lm-eval...).")
    item = item_column(log.frame.columns, ev)
    system = ev.system if ev.system in log.frame.columns else None
    people = pd.concat([_long(lab, system, ev.repeat) for lab in labels], ignore_index=True)
    people = people[people["label"] != ""]
    keys = ["item"] + [k for k in ("system", "repeat") if k in people.columns]
    log_keys = pd.DataFrame({"item": np.asarray(to_text(log, item), dtype=object)})
    if "system" in keys:
        log_keys["system"] = np.asarray(to_text(log, system), dtype=object)
    if "repeat" in keys:
        log_keys["repeat"] = np.asarray(to_text(log, ev.repeat), dtype=object)
    wide = people.pivot_table(index=keys, columns="annotator", values="label", aggfunc="first")
    annotators = [str(a) for a in wide.columns]
    person = [f"person {a}" for a in annotators]
    wide.columns = person
    wide[PEOPLE] = [strict_majority(row) for row in wide[person].itertuples(index=False)]
    joined = log_keys.merge(wide.reset_index(), on=keys, how="left")
    matched = int(joined[person].notna().any(axis=1).sum())
    if matched == 0:
        shown = ", ".join(repr(x) for x in list(dict.fromkeys(people["item"]))[:5])
        raise DataError(f"The people's labels ({', '.join(lab.name for lab in labels)}) meet no record of "
                        f"'{log.name}': their items ({shown} ...) were matched by {', '.join(keys)} with the "
                        "log's; check that both name the items alike.")
    frame = log.frame.copy()
    for col in [PEOPLE] + person:
        frame[col] = text_array(["" if not isinstance(v, str) else v for v in joined[col]])
    labelled = len(wide)
    ties = int((wide[PEOPLE] == "").sum())
    what = "items" if keys == ["item"] else "records (" + ", ".join(keys) + ")"
    note = (f"People's labels ({', '.join(lab.name for lab in labels)}) joined by "
            f"{' and '.join(keys)} (exact text): {labelled} labelled {what} by {len(annotators)} "
            f"annotator{'s' if len(annotators) != 1 else ''} ({', '.join(annotators[:6])}); {matched} of the "
            f"log's {len(frame)} records met a label" + (f"; {labelled - _met(wide, joined, keys)} labelled ones "
                                                      f"met no record" if labelled > _met(wide, joined, keys) else "")
            + ". The people's label is the one a strict majority of an item's annotators gave"
            + (f" ({ties} without a majority are left blank)" if ties else "")
            + f"; each annotator is a column of their own ({', '.join(person[:4])}{' ...' if len(person) > 4 else ''}).")
    scorers = (Scorer(PEOPLE, PEOPLE, kind=HUMAN, scale=LABELS, detail="the majority of the annotators' labels"),) + \
        tuple(Scorer(p, p, kind=HUMAN, scale=LABELS, detail="one annotator's labels") for p in person)
    evaluation = dataclasses.replace(ev, scorers=tuple(ev.scorers) + scorers,
                                     notes=tuple(ev.notes) + (note,))
    roles = dict(log.roles or {})
    roles.setdefault(PEOPLE, "human")
    parts = tuple(log.parts or ((log.path, log.sha256),)) + tuple((lab.path, lab.sha256) for lab in labels)
    return dataclasses.replace(log, frame=frame, evaluation=evaluation, notes=tuple(log.notes) + (note,),
                               roles=roles, parts=parts)


def _met(wide: pd.DataFrame, joined: pd.DataFrame, keys: list[str]) -> int:
    """Labelled keys that met at least one record of the log."""
    seen = joined.dropna(subset=[PEOPLE])[keys].drop_duplicates()
    return len(seen)


def _long(lab: Any, system: str | None, repeat: str | None) -> pd.DataFrame:
    """One label file as (item, label, annotator[, system, repeat]) rows."""
    ev = getattr(lab, "evaluation", None)
    label_col = (ev.scorer().column if ev is not None and ev.scorers else
                 next((c for c, r in (lab.roles or {}).items() if r == "human"), None))
    item_col = (ev.item if ev is not None and ev.item else
                next((c for c, r in (lab.roles or {}).items() if r == "item"), None))
    who_col = ev.annotator if ev is not None else None
    if label_col is None or item_col is None:
        raise DataError(f"File '{lab.name}' holds no item and label columns to join with an evaluation log; "
                        "expected people's labels (a Label Studio export, or a table with an item id and a "
                        "label column).")
    part = pd.DataFrame({"item": np.asarray(to_text(lab, item_col), dtype=object),
                         "label": np.asarray(to_text(lab, label_col), dtype=object),
                         "annotator": (np.asarray(to_text(lab, who_col), dtype=object) if who_col
                                       else np.full(len(lab.frame), lab.name, dtype=object))})
    for key, col in (("system", system), ("repeat", repeat)):
        if col is not None and col in lab.frame.columns:
            part[key] = np.asarray(to_text(lab, col), dtype=object)
    return part


def strict_majority(row) -> str:
    """The label a strict majority of ``row``'s labels give ('' without one; blanks left out)."""
    labels = [x for x in row if isinstance(x, str) and x != ""]
    if not labels:
        return ""
    counts = pd.Series(labels).value_counts()
    return str(counts.index[0]) if counts.iloc[0] * 2 > len(labels) else ""


__all__ = ["PEOPLE", "is_labels", "join_labels", "strict_majority"]
