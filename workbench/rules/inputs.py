"""Checking a release rule against its data: which input a condition reads, its columns (from the
rule's [data] table or guessed), the systems it needs, and the eval-set check."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..core.errors import DataError
from ..core.numbers import format_value
from ..io import LoadedTable, guess_column, require_columns, to_text
from .spec import COST, JUDGE, PAIRED, RANKING, SLICES, Condition, Rule, RuleError, effort_measure


def _pick_input(rule: Rule, cond: Condition, tables: list[LoadedTable]) -> tuple[int, str]:
    place = f"[[condition]] {cond.index} ({cond.metric})"
    if cond.input is not None:
        if cond.input > len(tables):
            raise RuleError(f"Rule file '{rule.file_name}', {place}: key 'input' asks for input "
                            f"{cond.input}, but {len(tables)} input file"
                            f"{'s were' if len(tables) != 1 else ' was'} given.")
        return cond.input - 1, ""
    if len(tables) == 1:
        return 0, ""
    fits = [i for i, t in enumerate(tables) if _fits(cond, t)]
    if len(fits) == 1:
        i = fits[0]
        return i, (f"Read from input {i + 1} '{tables[i].name}', the only input with the columns "
                   f"and systems it needs (set input = N in the rule to choose).")
    if not fits:
        raise DataError(f"None of the {len(tables)} inputs has what {place} of rule file "
                        f"'{rule.file_name}' needs ({_needs(cond)}); set input = N in the rule to "
                        f"see what is missing in that file.")
    listed = " and ".join(f"{i + 1} '{tables[i].name}'" for i in fits[:3])
    raise RuleError(f"Rule file '{rule.file_name}', {place}: inputs {listed} all have the columns "
                    f"it needs; choose one with input = {fits[0] + 1} (or another).")


def _needs(cond: Condition) -> str:
    systems = (f"systems '{cond.baseline}' and '{cond.candidate}'" if cond.relative
               else f"system '{cond.candidate}'")
    if cond.kind in (PAIRED, SLICES):
        return (f"columns '{cond.baseline}' and '{cond.candidate}', or item, system and outcome "
                f"columns with {systems}")
    if cond.kind == RANKING:
        return f"query, doc, score or rank, relevance and system columns with {systems}"
    if cond.kind == COST:
        return f"system, outcome and {effort_measure(cond) or 'cost'} columns with {systems}"
    if cond.kind == JUDGE:
        return "a judge label column and a human label column"
    return f"a{'' if effort_measure(cond) else ' latency'} {effort_measure(cond) or ''} column and a system column with {systems}".replace("  ", " ")


def _fits(cond: Condition, table: LoadedTable) -> bool:
    cols = _Cols(table, cond.data)
    try:
        if cond.kind in (PAIRED, SLICES):
            present = set(map(str, table.frame.columns))
            if cond.baseline in present and cond.candidate in present:
                return True
            for role in ("item", "outcome"):
                cols.get(role)
            needed_systems = [cond.baseline, cond.candidate]
            sys_col = cols.get("system")
        elif cond.kind == RANKING:
            for role in ("query", "doc"):
                cols.get(role)
            if not (cond.data.get("score") or cond.data.get("rank")):
                if cols.get("score", required=False) is None:
                    cols.get("rank")
            if not cond.data.get("qrels"):
                cols.get("relevance")
            sys_col = cols.get("system")
            needed_systems = [cond.baseline, cond.candidate]
        elif cond.kind == JUDGE:
            cols.get("judge")
            cols.get("human")
            return True
        elif cond.kind == COST:
            cols.get(effort_measure(cond) or "cost")
            if cond.metric.endswith("_per_success"):
                cols.get("outcome")
            sys_col = cols.get("system", required=cond.relative)
            needed_systems = [cond.baseline, cond.candidate] if cond.relative else [cond.candidate]
        else:
            cols.get(effort_measure(cond) or "latency")
            sys_col = cols.get("system", required=cond.relative)
            needed_systems = [cond.baseline, cond.candidate] if cond.relative else [cond.candidate]
        if sys_col is not None:
            names = set(to_text(table, sys_col))
            return all(s in names for s in needed_systems)
        return True
    except DataError:
        return False


# --- column resolution --------------------------------------------------------------------------

class _Cols:
    """The rule's [data] column names, else guesses from common names (with a note)."""

    def __init__(self, table: LoadedTable, data: dict[str, str]) -> None:
        self.table, self.data, self.notes = table, data, []

    def get(self, role: str, *, required: bool = True) -> str | None:
        from ..analyses._common import ROLE_NAMES

        given = self.data.get(role)
        if given:
            require_columns(self.table, [given])
            return given
        wanted = ("outcome", "success") if role == "outcome" else (role,)  # a log's reader says success
        by_reader = next((c for c, r in (self.table.roles or {}).items()
                          if r in wanted and c in self.table.frame.columns), None)
        if by_reader is not None:  # the column a log's reader named (Inspect's model, promptfoo's provider)
            self.notes.append(f"Column '{by_reader}' of '{self.table.name}' was taken as the {role} column "
                              f"(from the file's format; set {role} in the rule's [data] table to choose).")
            return by_reader
        guess = guess_column(self.table, role, ROLE_NAMES.get(role, [role]))
        if guess is None:
            if required:
                cols = ", ".join(map(str, self.table.frame.columns))
                raise DataError(f"File '{self.table.name}' needs a{'n' if role[0] in 'aeiou' else ''} "
                                f"{role} column and none of its columns looks like one; name it in "
                                f"the rule's [data] table ({role} = \"...\"; its columns are: {cols}).")
            return None
        self.notes.append(f"Column '{guess}' of '{self.table.name}' was taken as the {role} column "
                          f"(guessed from its name; set {role} in the rule's [data] table to choose).")
        return guess


def _subset(table: LoadedTable, keep: np.ndarray) -> LoadedTable:
    """The rows ``keep`` of ``table``, keeping their line numbers for messages."""
    if len(keep) == len(table.frame) and (len(keep) == 0 or (keep == np.arange(len(keep))).all()):
        return table
    return table.take(keep)


def _blank(series: pd.Series) -> np.ndarray:
    blank = series.isna().to_numpy()
    if series.dtype == object or pd.api.types.is_string_dtype(series.dtype):
        text = series.astype(str).str.strip()
        blank = blank | (text == "").to_numpy()
    return blank


def _systems_present(table: LoadedTable, sys_col: str, systems: np.ndarray, wanted: list[str]) -> None:
    names = list(dict.fromkeys(systems.tolist()))
    for s in wanted:
        if s not in names:
            shown = ", ".join(names[:10]) + (" ..." if len(names) > 10 else "")
            raise DataError(f"File '{table.name}', column '{sys_col}' has no system '{s}' (named in the "
                            f"rule); its systems are: {shown}.")


def _evalset(base: str, cand: str, b_ids: pd.Index, c_ids: pd.Index, word: str, table: LoadedTable,
             notes: list[str]) -> tuple[dict, pd.Index]:
    common = b_ids.intersection(c_ids, sort=False)
    missing = b_ids.difference(c_ids, sort=False)
    added = c_ids.difference(b_ids, sort=False)
    info = {"baseline_items": len(b_ids), "candidate_items": len(c_ids), "common": len(common),
            "missing": len(missing), "added": len(added),
            "examples_missing": ", ".join(map(str, missing[:5])),
            "examples_added": ", ".join(map(str, added[:5]))}
    if len(missing) or len(added):
        parts = []
        if len(missing):
            parts.append(f"{_count(len(missing), word)} scored for the baseline "
                         f"{'is' if len(missing) == 1 else 'are'} missing for the candidate "
                         f"(e.g. {', '.join(map(str, missing[:3]))})")
        if len(added):
            parts.append(f"{_count(len(added), word)} {'was' if len(added) == 1 else 'were'} "
                         f"added for the candidate "
                         f"(e.g. {', '.join(map(str, added[:3]))})")
        notes.append(f"Eval-set check: '{base}' and '{cand}' were scored on different {word} in "
                     f"'{table.name}': {' and '.join(parts)}; the comparison uses the {len(common)} "
                     f"common {word} only.")
    return info, common


def _count(n: int, word: str) -> str:
    """``3 items``, ``1 item``, ``1 query`` (``word`` is the plural)."""
    one = {"items": "item", "queries": "query", "tasks": "task"}.get(word, word)
    return f"{format_value(n, 'count')} {one if n == 1 else word}"

