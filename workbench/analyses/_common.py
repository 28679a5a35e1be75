"""Shared plumbing of the analyses: column resolution, k lists, labels."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .. import __version__
from ..core.errors import DataError, OptionError
from ..core.numbers import article, plural
from ..io import LoadedTable, guess_column, require_columns, text_codes, to_text
from ..io.columns import BINARY_EXPECTED, FALSE_WORDS, TRUE_WORDS
from ..io.roles import ROLE_NAMES

#: item id columns guessed by name: the names the file's reading guesses its item column from
#: (:data:`ROLE_NAMES`' item, then task names such as 'instance_id', as the reading takes a task
#: column for the item when there is no item column), then a document's id (the Judge and
#: Rubric of documents; the reading gives it the doc role)
ITEM_NAMES = (*ROLE_NAMES["item"], *ROLE_NAMES["task"], "doc_id")


@dataclass
class Resolver:
    """Picks each column from its flag or guesses it from common names, noting guesses."""

    table: LoadedTable
    notes: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.table.name

    def required(self, given: str | None, role: str, flag: str) -> str:
        col = self.optional(given, role, flag)
        if col is None:
            cols = ", ".join(map(str, self.table.frame.columns))
            why = ""
            if role in ("outcome", "success", "score"):  # lm-eval tasks of different metrics
                why = next((f"; no 'outcome' column was made because the tasks are scored by "
                            f"different metrics ({n.split('metrics (', 1)[1].split(')', 1)[0]})"
                            for n in self.table.notes if "no pooled 'outcome' column" in n
                            and "metrics (" in n), "")
            raise DataError(
                f"File '{self.name}' needs {article(role)} column and none of its columns looks like one; "
                f"name it with {flag} (its columns are: {cols}){why}.")
        return col

    def optional(self, given: str | None, role: str, flag: str) -> str | None:
        if given:
            require_columns(self.table, [given])
            return given
        guess = guess_column(self.table, role, ITEM_NAMES if role == "item" else ROLE_NAMES.get(role, [role]))
        if guess is not None:
            self.notes.append(f"Column '{guess}' was taken as the {role} column "
                              f"(guessed from its name; set {flag} to choose another).")
        return guess


def parse_ks(ks, name: str = "k") -> tuple[int, ...]:
    """'1,3,10' or [1, 3, 10] -> (1, 3, 10); sorted, unique, each >= 1."""
    if isinstance(ks, str):
        parts = [p.strip() for p in ks.split(",") if p.strip()]
    else:
        try:
            parts = [ks] if isinstance(ks, (int, float)) else list(ks)
        except TypeError:
            raise OptionError(f"`{name}` must be whole numbers separated by commas; got {name}={ks!r}.") from None
    out = []
    for p in parts:
        try:
            if isinstance(p, bool):
                raise ValueError
            k = int(p)
            if float(p) != k:
                raise ValueError
        except (TypeError, ValueError, OverflowError):
            raise OptionError(f"`{name}` must be whole numbers separated by commas; got {name}={ks!r}.") from None
        if k < 1:
            raise OptionError(f"`{name}` must be >= 1; got {name}={k}.")
        out.append(k)
    if not out:
        raise OptionError(f"`{name}` needs at least one value; got {name}={ks!r}.")
    return tuple(sorted(set(out)))


def in_memory(table, title: str) -> None:
    """Raise for a file read page by page (:mod:`workbench.engines.paged`): an analysis
    without an engine needs the rows in memory, never only the first rows that stand in for
    the table."""
    large = getattr(table, "large", None)
    if large is not None:
        from ..engines.paged import refusal

        raise DataError(refusal(title, large))


def base_signature(analysis: str) -> dict[str, str]:
    return {"workbench": __version__, "analysis": analysis}


def codes_of(table: LoadedTable, column: str):
    """Integer codes in order of first appearance, and the labels: the cells' exact text."""
    codes, uniques = text_codes(table, column)
    return codes, [str(label) for label in uniques]


def check_unique(table: LoadedTable, keys: list[str], what: str) -> None:
    """Refuse duplicate rows for the key columns, naming the value and the lines.

    Keys compare as the cells' exact text, so ``1.1`` and ``1.10`` are different ids.
    """
    coded = [text_codes(table, key) for key in keys]
    frame = pd.DataFrame({key: codes for key, (codes, _) in zip(keys, coded)})
    dup = frame.duplicated(keep=False).to_numpy()
    if dup.any():
        idx = np.flatnonzero(dup)
        first = frame.iloc[idx[0]]
        same = idx[(frame.iloc[idx] == first).all(axis=1).to_numpy()]
        value = ", ".join(f"{k}={labels_[first[k]]!s}" for k, (_, labels_) in zip(keys, coded))
        raise DataError(
            f"File '{table.name}' has {len(idx)} rows that repeat {article(what)} "
            f"({value} appears on {table.describe_rows(same)}); each {what} must appear once.")


def pick_column(table: LoadedTable, given: str | None, role: str, flag: str, notes: list[str], *,
                names=(), required: bool = True) -> str | None:
    """The column for ``role``: the one given (checked), else the one the file's reader gave that
    role (an Inspect log's model, a promptfoo provider), else a guess from ``names`` and the
    role's usual names -- said in a note; a required role found nowhere is a sentence naming the
    flag and the file's columns."""
    if given:
        require_columns(table, [given])
        return given
    by_reader = next((c for c, r in (table.roles or {}).items() if r == role and c in table.frame.columns), None)
    guess = by_reader or guess_column(table, role, [*names, *ROLE_NAMES.get(role, [])])
    if guess is not None:
        how = "from the file's format" if by_reader else "guessed from its name"
        notes.append(f"Column '{guess}' was taken as the {role} column ({how}; set {flag} to choose another).")
        return guess
    if required:
        cols = ", ".join(map(str, table.frame.columns))
        raise DataError(f"File '{table.name}' needs a{'n' if role[0] in 'aeiou' else ''} {role} column and none "
                        f"of its columns looks like one; name it with {flag} (its columns are: {cols}).")
    return None


def system_column(table: LoadedTable, given: str | None, taken: tuple, notes: list[str], *,
                  varying: bool = True) -> str | None:
    """The column of systems an analysis reads apart (several systems are never pooled): the
    one given (checked), else the one the file's reader or reading names (a system column
    guessed from its name, the first that varies), unless it is a column already ``taken``
    for another part or, with ``varying``, it holds a single value.  A guess is said in
    ``notes``."""
    if given:
        require_columns(table, [given])
        return given
    said: list[str] = []
    guess = pick_column(table, None, "system", "--system", said, required=False)
    if guess is None or guess in taken:
        return None
    if varying and table.frame[guess].nunique(dropna=False) < 2:
        return None
    notes += said
    return guess


def verdicts(table: LoadedTable, column: str) -> np.ndarray:
    """A verdict column (1/0, yes/no, pass/fail... in any case) as 1.0 / 0.0 per cell, NaN for a
    blank one; anything else refused with its lines."""
    text = to_text(table, column)
    # each distinct cell read once (a column of verdicts has a handful of distinct words)
    codes, uniques = pd.factorize(np.asarray(text, dtype=object), sort=False)
    value_of = np.full(len(uniques) + 1, np.nan)   # the last slot: codes of -1 (never for text)
    bad: dict[str, list[int]] = {}
    wrong = []
    for k, cell in enumerate(uniques):
        word = str(cell).strip().lower()
        if word in TRUE_WORDS:
            value_of[k] = 1.0
        elif word in FALSE_WORDS:
            value_of[k] = 0.0
        elif word != "":
            wrong.append(k)
    out = value_of[codes]
    if wrong:
        where_wrong = np.flatnonzero(np.isin(codes, wrong))
        for i in where_wrong:
            bad.setdefault(str(uniques[codes[i]]), []).append(int(i))
    if bad:
        shown = []
        for value, where in list(bad.items())[:5]:
            shown.append(f"'{value}' ({table.describe_rows(where[:3])})")
        count = sum(len(v) for v in bad.values())
        raise DataError(f"File '{table.name}', column '{column}': a verdict must be {BINARY_EXPECTED} "
                        f"(any case) or blank; {plural(count, 'cell')} {'is' if count == 1 else 'are'} not: "
                        f"{', '.join(shown)}.")
    return out


def verdict_columns(table: LoadedTable, skip: set, *, rows: int | None = None) -> list[str]:
    """Columns whose non-blank values are all verdict words (1/0, yes/no, pass/fail...), at least
    one of them non-blank; from the frame's distinct values (never the cells' text, which a large
    file would read again), the first ``rows`` rows only when given (a quick look)."""
    words = TRUE_WORDS | FALSE_WORDS
    frame = table.frame if rows is None else table.frame.iloc[:rows]
    out = []
    for column in frame.columns:
        if str(column) in skip:
            continue
        series = frame[column].dropna()
        if pd.api.types.is_bool_dtype(series.dtype):
            values = {"true", "false"}
        elif pd.api.types.is_numeric_dtype(series.dtype):
            values = {str(int(v)) if float(v).is_integer() else str(v) for v in pd.unique(series)}
        else:
            values = {str(v).strip().lower() for v in pd.unique(series)}
        values -= {""}
        if values and values <= words:
            out.append(str(column))
    return out
