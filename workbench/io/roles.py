"""Column roles: what each column of a results file is taken to be, and what is wrong with it.

:func:`guess_roles` reads the header names (and, for unnamed 0/1 columns, the contents);
:func:`find_problems` lists the problems an analysis would trip over, each as a sentence with
the rows involved, so that the GUI can show them before any analysis runs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from workbench.core.errors import DataError
from workbench.io.columns import SPLITTING, first_varying, to_binary, to_float
from workbench.io.table import LoadedTable

from workbench.core.role_names import ROLE_NAMES  # noqa: E402,F401  (their home: stdlib only)
from workbench.core.role_names import human_column


#: The roles a column can have, in the order the GUI lists them, with a label.
ROLES: dict[str, str] = {
    "ignore": "(not used)",
    "item": "item id",
    "system": "system",
    "version": "version",
    "group": "group / segment",
    "cluster": "cluster",
    "unit": "unit (conversation, user)",
    "prediction": "prediction",
    "reference": "reference",
    "query": "query",
    "doc": "document",
    "score": "score",
    "rank": "rank",
    "relevance": "relevance grade",
    "task": "task",
    "n": "attempts n",
    "correct": "passes c",
    "success": "success / outcome",
    "baseline": "baseline outcome",
    "candidate": "candidate outcome",
    "numerator": "numerator",
    "denominator": "denominator",
    "cost": "cost",
    "latency": "latency",
    "judge": "judge's label",
    "human": "people's label",
    "annotator": "annotator (who labelled)",
    "epoch": "repeat / epoch",
    "steps": "steps",
    "tool_calls": "tool calls",
    "error": "error (not a measurement)",
}

_NOISE = re.compile(r"[\s_\-]+")
# roles guessed in this order, so that the specific ones claim a column first
_GUESS_ORDER = ("query", "doc", "score", "rank", "relevance", "task", "n", "correct", "prediction",
                "reference", "baseline", "candidate", "cost", "latency", "numerator", "denominator",
                "cluster", "annotator", "judge", "human", "epoch", "steps", "tool_calls", "item", "version", "system",
                "group", "success", "unit")


def _norm(name: str) -> str:
    return _NOISE.sub("", str(name).lower())


def guess_roles(table: LoadedTable) -> dict[str, str]:
    """Column -> role for the columns whose names (or 0/1 contents) say what they are; a file
    read by one of :mod:`workbench.io.formats` brings its own (``table.roles``)."""
    if table.roles:
        return {c: r for c, r in table.roles.items() if c in table.frame.columns}
    columns = [str(c) for c in table.frame.columns]
    by_norm = {_norm(c): c for c in columns}
    roles: dict[str, str] = {}
    taken: set[str] = set()
    for role in _GUESS_ORDER:
        if role in roles.values():
            continue
        if role == "correct" and "n" not in roles.values():
            continue  # "correct" is a count of passes only beside a count of attempts
        found = [col for candidate in ROLE_NAMES.get(role, [role])
                 if (col := by_norm.get(_norm(candidate))) is not None and col not in taken]
        col = first_varying(table.frame, found) if role in SPLITTING else (found[0] if found else None)
        if col is not None:
            roles[col] = role
            taken.add(col)
    _people_beside_judge(columns, roles, taken)
    _runs_as_repeats(table, columns, roles, taken)
    if "success" not in roles.values() and "baseline" not in roles.values():
        for col in columns:
            if col in taken:
                continue
            try:
                to_binary(table, col)
            except DataError:
                continue
            roles[col] = "success"
            break
    return roles


#: Names of a column that numbers a system's runs over the same items ('run' 1, 2, 3 beside 'model').
RUN_INDEX_NAMES = ("run", "run_id", "run_index", "run_number", "run_no", "replicate", "rep")


def names_runs(name: str) -> bool:
    """Whether a column's name is one of :data:`RUN_INDEX_NAMES` (case, spaces and '_' aside)."""
    return _norm(name) in {_norm(n) for n in RUN_INDEX_NAMES}


def _runs_as_repeats(table: LoadedTable, columns: list[str], roles: dict[str, str], taken: set[str]) -> None:
    """Beside a system column, a column numbering the runs (whole numbers: 1, 2, 3) under which
    each (system, item) pair repeats once per run is the items' repeats ('epoch' role): a model
    run three times over 50 items holds 50 items tried three times, not 150 items.  A column of
    run names ('baseline', 'tuned') is left alone: such runs may be other configurations."""
    if "epoch" in roles.values():
        return
    system = next((c for c, r in roles.items() if r == "system"), None)
    item = next((c for c, r in roles.items() if r == "item"), None)
    if system is None or item is None:
        return
    frame = table.frame
    candidates = [c for c in columns if c not in taken and names_runs(c)]
    if not candidates or not frame.duplicated(subset=[system, item]).any():
        return
    for col in candidates:
        series = frame[col]
        if not pd.api.types.is_numeric_dtype(series) or pd.api.types.is_bool_dtype(series):
            continue
        values = series.to_numpy(dtype=float)
        if not (np.isfinite(values).all() and (values == np.round(values)).all()):
            continue
        if frame.duplicated(subset=[system, col, item]).any():
            continue
        roles[col] = "epoch"
        taken.add(col)
        return


def _people_beside_judge(columns: list[str], roles: dict[str, str], taken: set[str]) -> None:
    """Beside a judge's column, or a column naming who labelled (``annotator``), and no column
    named for people's labels, a plain ``label`` (or ``gold``) is the people's label, not a text
    file's reference or a ranking's relevance grade (:func:`workbench.core.role_names.human_column`:
    the Judge analysis guesses the same)."""
    beside = next((c for c, r in roles.items() if r == "judge"), None) \
        or next((c for c, r in roles.items() if r == "annotator"), None)
    if beside is None or "human" in roles.values():
        return
    col = human_column(columns, beside)
    if col is not None and roles.get(col) not in ("annotator", "item", "system", "version", "epoch"):
        roles.pop(col, None)
        roles[col] = "human"
        taken.add(col)


@dataclass(frozen=True)
class Problem:
    """One problem found in the data: a sentence and the 0-based rows it concerns."""

    message: str
    column: str | None = None
    rows: tuple[int, ...] = field(default=())


def find_problems(table: LoadedTable, roles: dict[str, str], *, limit_rows: int = 10_000) -> list[Problem]:
    """Problems the analyses would refuse or that skew results, with the rows involved."""
    frame = table.frame
    problems: list[Problem] = []
    by_role: dict[str, list[str]] = {}
    for col, role in roles.items():
        if col in frame.columns:
            by_role.setdefault(role, []).append(col)

    def rows_of(mask) -> tuple[int, ...]:
        return tuple(int(i) for i in np.flatnonzero(np.asarray(mask))[:limit_rows])

    def add(col: str | None, mask, sentence: str) -> None:
        rows = rows_of(mask)
        if rows:
            problems.append(Problem(f"{sentence} ({table.describe_rows(rows)}).", col, rows))

    # a declared scorer's blank cells are records it left unscored (a status the reading counts
    # and names), not a problem of the data
    declared = getattr(table, "evaluation", None)
    scorer_columns = {s.column for s in declared.scorers} if declared is not None else set()
    for role in ("success", "baseline", "candidate"):
        for col in by_role.get(role, []):
            if col in scorer_columns:
                continue
            try:
                to_binary(table, col)
            except DataError as err:
                codes, uniques = pd.factorize(frame[col], use_na_sentinel=False)
                ok = np.array([_is_binary_cell(u) for u in uniques], dtype=bool)
                bad = ~ok[codes] if ok.size else np.zeros(len(frame), dtype=bool)
                problems.append(Problem(str(err), col, rows_of(bad)))
    for role in ("cost", "latency", "n", "correct", "score", "rank", "relevance", "numerator",
                 "denominator"):
        for col in by_role.get(role, []):
            try:
                to_float(table, col, allow_missing=(role == "relevance" or col in scorer_columns))
            except DataError as err:
                values = pd.to_numeric(frame[col], errors="coerce")
                bad = values.isna().to_numpy()
                problems.append(Problem(str(err), col, rows_of(bad)))
                continue
            values = pd.to_numeric(frame[col], errors="coerce").to_numpy(dtype=float)
            if role in ("cost", "latency", "n", "correct", "denominator"):
                add(col, values < 0, f"Column '{col}' ({ROLES[role]}) has negative values")
            if role in ("n", "correct"):
                add(col, np.isfinite(values) & (values != np.round(values)),
                    f"Column '{col}' ({ROLES[role]}) has values that are not whole numbers")
    for role in ("item", "query", "doc", "task", "prediction", "reference", "system", "group"):
        for col in by_role.get(role, []):
            series = frame[col]
            blank = series.isna().to_numpy().copy()
            if not pd.api.types.is_numeric_dtype(series):
                blank |= (series.astype(str).str.strip() == "").to_numpy()
            if role in ("prediction", "reference"):
                add(col, blank, f"Column '{col}' ({ROLES[role]}) has empty cells; they are scored as "
                                f"empty text")
            else:
                add(col, blank, f"Column '{col}' ({ROLES[role]}) has empty cells")
    if by_role.get("n") and by_role.get("correct"):
        n_col, c_col = by_role["n"][0], by_role["correct"][0]
        n = pd.to_numeric(frame[n_col], errors="coerce").to_numpy(dtype=float)
        c = pd.to_numeric(frame[c_col], errors="coerce").to_numpy(dtype=float)
        add(c_col, c > n, f"Column '{c_col}' (passes) is larger than column '{n_col}' (attempts)")
    for id_role in ("item", "task"):
        if id_role == "task" and not by_role.get("n"):
            continue  # per-attempt rows repeat the task by design
        if by_role.get(id_role):
            keys = [by_role[id_role][0]] + by_role.get("system", [])[:1] + by_role.get("epoch", [])[:1]
            if id_role == "item" and by_role.get("query"):
                continue
            dup = frame.duplicated(subset=keys, keep=False).to_numpy()
            what = (" per system" if by_role.get("system") else "") + \
                (" and repeat" if by_role.get("epoch") else "")  # an item's tries are one per repeat
            add(keys[0], dup, f"Column '{keys[0]}' ({ROLES[id_role]}) repeats ids{what}")
    if by_role.get("query") and by_role.get("doc"):
        keys = by_role.get("system", [])[:1] + [by_role["query"][0], by_role["doc"][0]]
        dup = frame.duplicated(subset=keys, keep=False).to_numpy()
        add(by_role["doc"][0], dup, "Some (query, document) pairs appear more than once")
    return problems


def _is_binary_cell(value) -> bool:
    if isinstance(value, (bool, np.bool_)):
        return True
    if isinstance(value, (int, float, np.integer, np.floating)):
        return value in (0, 1)
    if isinstance(value, str):
        return value.strip().lower() in {"1", "0", "1.0", "0.0", "true", "false", "yes", "no", "pass",
                                         "fail", "correct", "incorrect", "y", "n", "t", "f"}
    return False
