"""Files written by different tools, stacked by what they declare (their
:class:`~workbench.io.evaluation.Evaluation`): each file's item, repeat, system and primary scorer
mapped onto one table, its items matched by id across the files.

Two runs of the same questions by two tools (a promptfoo run and an Inspect log) name their items
in different columns (promptfoo's test ``description`` or a ``vars`` column, Inspect's
``sample_id``).  :func:`match_ids` finds, for each further file, the column whose values meet the
first file's ids most (the declared item columns first, then the columns that name one item
each), and a note says which columns were matched and how many ids met and did not.

The stacked table: ``file``, ``tool``, ``system`` (a file's system names, each prefixed by its
file where two files share one), ``item`` (the matched id, exact text), ``source_item`` (the
file's own item id), ``repeat`` (1 where a file has no repeats), ``outcome`` (each file's primary
scorer, as its tool decides), ``error`` (the record's error, and the primary scorer's own).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from workbench.core.errors import DataError
from workbench.core.numbers import plural
from workbench.io.cells import text_array
from workbench.io.evaluation import BINARY, PARTIAL, SCORE, Evaluation, Run, Scorer
from workbench.io.table import LoadedTable

_ID_ROLES = ("item", "task", "cluster", "query")


def declared(tables: Sequence[Any]) -> bool:
    """Every table declares what it holds, with an item column and a scorer."""
    return all(getattr(t, "evaluation", None) is not None and t.evaluation.item in t.frame.columns
               and t.evaluation.scorer() is not None for t in tables)


def _texts(table, column: str) -> np.ndarray:
    return np.asarray(table.cell_text(column), dtype=object)


def _candidates(table) -> list[str]:
    """Columns that name an item: the declared item, the columns with an id role, then the text
    columns whose values follow the item one to one (a test's description, a sample's input)."""
    ev = table.evaluation
    frame = table.frame
    out = [ev.item]
    out += [c for c, r in (table.roles or {}).items() if r in _ID_ROLES and c in frame.columns and c not in out]
    items = pd.Series(_texts(table, ev.item))
    n_items = items.nunique()
    for c in frame.columns:
        if c in out or not pd.api.types.is_string_dtype(frame[c]) or pd.api.types.is_object_dtype(frame[c]):
            continue
        values = pd.Series(_texts(table, c))
        if values.eq("").any() or values.nunique() != n_items:
            continue
        if pd.DataFrame({"i": items, "v": values}).groupby("i")["v"].nunique().max() == 1:
            out.append(str(c))
    return out


def match_ids(first, other, only: str | None = None) -> tuple[str, str, int]:
    """(column of ``first``, column of ``other``, ids in both): the pair of id columns whose
    values meet most (``only``: that column of ``first``); ties go to the declared item
    columns, then to the shorter ids."""
    best = None
    for a in ([only] if only else _candidates(first)):
        ids_a = set(_texts(first, a))
        for b in _candidates(other):
            common = len(ids_a & set(_texts(other, b)))
            declared_items = (a == first.evaluation.item) + (b == other.evaluation.item)
            length = -np.mean([len(x) for x in ids_a]) if ids_a else 0.0
            key = (common, declared_items, length)
            if best is None or key > best[0]:
                best = (key, a, b)
    return best[1], best[2], best[0][0]


def stack(tables: Sequence[Any], leading: Sequence[str] = ()) -> LoadedTable:
    """The tables stacked through their declarations (see the module's docstring)."""
    first = tables[0]
    ref_col = None
    columns = {}
    notes, met = [], {}
    for t in tables[1:]:
        a, b, common = match_ids(first, t, ref_col)  # the first pair fixes the first file's column
        if common == 0:
            raise DataError(
                f"File '{t.path}' ({t.format}) cannot be compared with '{first.path}' ({first.format}) "
                f"by item: none of its item ids ({_listed(t, t.evaluation.item)}) meets one of the other's "
                f"({_listed(first, first.evaluation.item)}), in any column that names its items; expected "
                "runs of the same questions with the same ids (or give each file its own analysis).")
        ref_col = a
        columns[id(t)] = b
        met[id(t)] = (a, b, common)
    columns[id(first)] = ref_col
    parts = []
    for t in tables:
        ev = t.evaluation
        ids = _texts(t, columns[id(t)])
        scorer = ev.scorer()
        values = pd.to_numeric(t.frame[scorer.column], errors="coerce").to_numpy(dtype=float)
        error = np.full(len(t.frame), "", dtype=object)
        for col in (ev.error, scorer.error):
            if col and col in t.frame.columns:
                text = _texts(t, col)
                error = np.where(error == "", text, error)
        repeat = (pd.to_numeric(t.frame[ev.repeat], errors="coerce").fillna(1).astype(np.int64).to_numpy()
                  if ev.repeat and ev.repeat in t.frame.columns else np.ones(len(t.frame), dtype=np.int64))
        systems = (_texts(t, ev.system) if ev.system and ev.system in t.frame.columns
                   else np.full(len(t.frame), ev.runs[0].name if ev.runs else t.name, dtype=object))
        part = pd.DataFrame({"file": t.name, "tool": ev.tool, "system": systems, "item": ids,
                             "source_item": _texts(t, ev.item), "repeat": repeat, "outcome": values,
                             "error": error})
        for other in ev.scorers:  # every scorer kept, under its own name: one the reading may choose
            name = _scorer_column(other.name)
            if other.column in t.frame.columns and name not in part.columns:
                part[name] = pd.to_numeric(t.frame[other.column], errors="coerce").to_numpy(dtype=float)
        parts.append(part)
    frame = pd.concat(parts, ignore_index=True)
    seen: dict[str, int] = {}
    for i, part in enumerate(parts):
        for s in set(part["system"]):
            seen.setdefault(s, i)
    shared = {s for i, part in enumerate(parts) for s in set(part["system"]) if seen[s] != i}
    if shared:  # one system name in two files: each file's own
        frame["system"] = [f"{f}: {s}" if s in shared else s for f, s in zip(frame["file"], frame["system"])]
        notes.append(f"System name(s) {', '.join(repr(s) for s in sorted(shared))} appear in several files: "
                     "each is named by its file there.")
    for c in ("file", "tool", "system", "item", "source_item", "error"):
        frame[c] = text_array([str(x) for x in frame[c]])
    for t in tables[1:]:
        a, b, common = met[id(t)]
        mine = set(_texts(t, b))
        theirs = set(_texts(first, a))
        notes.append(f"Items matched by id: column '{a}' of {first.name} and column '{b}' of {t.name}: "
                     f"{plural(common, 'item')} in both; {len(theirs - mine)} of {first.name}'s {len(theirs)} and "
                     f"{len(mine - theirs)} of {t.name}'s {len(mine)} have no match (they are in one file only, "
                     "and a comparison by item leaves them out).")
    kinds = [(t.name, t.evaluation.tool, t.evaluation.scorer()) for t in tables]
    values = frame["outcome"].dropna()
    scale = BINARY if values.isin([0, 1]).all() else PARTIAL if values.isin([0, 0.5, 1]).all() else SCORE
    scorer = Scorer("outcome", "outcome", kind=kinds[0][2].kind, scale=scale,
                    detail="each file's primary scorer: " + "; ".join(
                        f"{tool} '{s.name}' ({s.kind}, {s.scale}) in {name}" for name, tool, s in kinds))
    notes.insert(0, f"{len(tables)} files of different tools stacked by what each declares: item, repeat, "
                    "system and its primary scorer as column 'outcome' ("
                    + "; ".join(f"{name}: {tool} '{s.name}'" for name, tool, s in kinds) + ").")
    others = _other_scorers(tables, frame)
    if others:
        notes.append("Each file's other scorers are kept under their own names, blank on the rows of a "
                     "file that has none of that name (choose one as the scorer to compare by it: "
                     + "; ".join(f"'{o.name}' ({o.detail})" for o in others) + ").")
    runs, said = [], set()
    for t in tables:
        for r in t.evaluation.runs:
            name = f"{t.name}: {r.name}" if r.name in shared else r.name
            if name not in said:
                said.add(name)
                runs.append(Run(name, {**r.config, "file": t.path}))
    repeats = any(t.evaluation.repeat for t in tables)
    evaluation = Evaluation(
        tool=" + ".join(dict.fromkeys(t.evaluation.tool for t in tables)), item="item",
        repeat="repeat" if repeats else None,
        repeat_source="each tool's repeats (" + ", ".join(f"{t.evaluation.tool}: {t.evaluation.repeat_source or 'none'}"
                                                          for t in tables) + ")" if repeats else "",
        reduction="mean", system="system", runs=tuple(runs), scorers=(scorer, *others), primary="outcome",
        error="error", metadata=("tool", "file"))
    notes = list(leading) + notes
    for t in tables:
        notes += [f"{t.name}: {n}" for n in t.notes[:3]]
    roles = {"system": "system", "item": "item", "outcome": "success" if scale == BINARY else "score",
             "error": "error", **({"repeat": "epoch"} if repeats else {})}
    digest = hashlib.sha256("\n".join(t.sha256 for t in tables).encode()).hexdigest()
    return LoadedTable(frame=frame, path=" + ".join(t.path for t in tables), digest=digest,
                       size_bytes=sum(t.size_bytes for t in tables), notes=tuple(notes), format="stacked",
                       row_lines=np.arange(1, len(frame) + 1), roles=roles, panel="compare", row_word="row",
                       row_names=[f"{i} of {f} ({s}, repeat {r})" for i, f, s, r in
                                  zip(frame["item"], frame["file"], frame["system"], frame["repeat"])],
                       parts=tuple((t.path, t.sha256) for t in tables), evaluation=evaluation)


_RESERVED = ("file", "tool", "system", "item", "source_item", "repeat", "outcome", "error")


def _scorer_column(name: str) -> str:
    return f"scorer:{name}" if name in _RESERVED else str(name)


def _other_scorers(tables, frame: pd.DataFrame) -> list:
    """The files' scorers beside the primary ones: one per name (the first file's declaration),
    its detail naming the files that have it."""
    out: dict[str, Any] = {}
    for t in tables:
        for sc in t.evaluation.scorers:
            col = _scorer_column(sc.name)
            if col not in frame.columns:
                continue
            if col in out:
                out[col] = (out[col][0], out[col][1] + [t.name])
            else:
                out[col] = (sc, [t.name])
    result = []
    for col, (sc, files) in out.items():
        values = frame[col].dropna()
        scale = BINARY if len(values) and values.isin([0, 1]).all() else sc.scale if sc.scale != BINARY else SCORE
        result.append(Scorer(col, col, kind=sc.kind, scale=scale, higher_is_better=sc.higher_is_better,
                             detail=f"{sc.kind} in {', '.join(dict.fromkeys(files))}"))
    return result


def _listed(table, column: str) -> str:
    ids = list(dict.fromkeys(_texts(table, column)))
    return ", ".join(repr(x) for x in ids[:4]) + (" ..." if len(ids) > 4 else "")


__all__ = ["declared", "match_ids", "stack"]
