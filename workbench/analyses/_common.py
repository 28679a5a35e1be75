"""Shared plumbing of the analyses: column resolution, k lists, labels."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .. import __version__
from ..core.errors import DataError, OptionError
from ..core.numbers import article
from ..io import LoadedTable, guess_column, require_columns, text_codes
from ..io.roles import ROLE_NAMES

#: item id columns guessed by name (the Judge and Rubric analyses)
ITEM_NAMES = ("item", "item_id", "id", "sample_id", "question_id", "question", "answer_id", "response_id",
              "example_id", "doc_id")


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
        guess = guess_column(self.table, role, ROLE_NAMES.get(role, [role]))
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

