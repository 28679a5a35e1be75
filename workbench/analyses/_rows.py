"""Rows that are not measurements: errored samples and requests.

An Inspect sample that ended with an error, a promptfoo request whose provider failed: the row
has no score (or a made-up one: promptfoo's 0 ms and 0 cost), so it is not a measurement of the
system.  By default the analyses leave such rows out, as Inspect itself leaves errored samples
out of its metrics; with ``errored="failure"`` they are counted as failures instead (outcome 0).
Either way the rows are counted and named in a note, and the signature says which
(``errored:excluded`` or ``errored:failures``).

Which column marks them: the analysis's ``error`` option, else the column a format reader gave
the role ``error`` (Inspect's and promptfoo's ``error``); a row is errored when that cell holds
text other than a "no" flag (``0``, ``false``, ``no``: a 0/1 flag column works too).  A plain table without such a column has no errored rows and no signature entry.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..core.errors import DataError, OptionError
from ..io import LoadedTable, require_columns, to_binary, to_float, to_text

#: The values of the analyses' ``errored`` option.
ERRORED = ("exclude", "failure")
#: Cells of an error column that say "no error" (a 0/1 or true/false flag column).
_NOT_AN_ERROR = frozenset({"0", "0.0", "false", "no", "none", "null", "n", "f"})
_SIG = {"exclude": "excluded", "failure": "failures"}


def role_column(table: LoadedTable, role: str) -> str | None:
    """The first column the file's reader gave ``role`` (``table.roles``), if present."""
    for column, r in (getattr(table, "roles", None) or {}).items():
        if r == role and column in table.frame.columns:
            return column
    return None


def check(errored: str) -> None:
    if errored not in ERRORED:
        raise OptionError(f"`errored` must be one of {', '.join(ERRORED)}; got errored={errored!r}.")


@dataclass
class Errored:
    """The errored rows of a table (``mask``), the column that marks them and the mode."""

    column: str | None
    mode: str
    mask: np.ndarray
    names: list[str] = field(default_factory=list)

    @property
    def count(self) -> int:
        return int(self.mask.sum())

    @property
    def total(self) -> int:
        """Rows of the table (errored or not)."""
        return len(self.mask)

    @property
    def active(self) -> bool:
        return self.column is not None

    def signature(self) -> dict[str, str]:
        return {"errored": _SIG[self.mode]} if self.active else {}

    def note(self, *, failure_means: str = "scored as failures (outcome 0)") -> list[str]:
        if not self.active or not self.count:
            return []
        n = self.total
        shown = ", ".join(self.names[:5]) + (f" and {self.count - 5} more" if self.count > 5 else "")
        what = (f"{self.count} of {n} rows ended with an error (column '{self.column}'): {shown}. "
                "Errors are not measurements: ")
        if self.mode == "exclude":
            return [what + "they are left out of every number here (as Inspect leaves errored "
                    "samples out of its metrics; to count them as failures instead, set "
                    "--errors fail)."]
        return [what + f"they are {failure_means}, as asked (--errors fail)."]

    def kept(self) -> np.ndarray:
        """Row positions that are measurements."""
        return np.flatnonzero(~self.mask)


def find(table: LoadedTable, column: str | None, mode: str) -> Errored:
    """The errored rows of ``table``: ``column`` (given) or the reader's ``error`` column."""
    check(mode)
    if column:
        require_columns(table, [column])
    else:
        column = role_column(table, "error")
    n = len(table.frame)
    if column is None:
        return Errored(None, mode, np.zeros(n, dtype=bool))
    text = pd.Series(to_text(table, column), dtype=object).fillna("").astype(str).str.strip()
    mask = ((text != "") & ~text.str.lower().isin(_NOT_AN_ERROR)).to_numpy()
    names = describe(table, np.flatnonzero(mask))
    return Errored(column, mode, mask, names)


def describe(table: LoadedTable, rows: np.ndarray) -> list[str]:
    """A name for each row, for notes: the reader's row names (an Inspect sample and epoch), or
    the system and item columns, else the line."""
    if len(rows) == 0:
        return []
    if table.row_names is not None:
        return [str(table.row_names[int(i)]) for i in rows]
    system = role_column(table, "system")
    item = role_column(table, "item") or role_column(table, "task")
    out = []
    for i in rows:
        parts = []
        if item is not None:
            parts.append(f"item {table.frame[item].iloc[int(i)]}")
        if system is not None:
            parts.append(f"of '{table.frame[system].iloc[int(i)]}'")
        where = f"{table.line_word} {table.line_of(int(i))}"
        parts.append(f"({where})" if parts else where)
        out.append(" ".join(parts))
    return out


def apply(table: LoadedTable, err: Errored, value_columns: list[str | None]) -> LoadedTable:
    """The table the analysis runs on: without the errored rows (``exclude``), or with the
    value columns (outcome, success, score) of the errored rows set to 0 (``failure``)."""
    if not err.active or not err.count:
        return table
    if err.mode == "exclude":
        kept = err.kept()
        if kept.size == 0:
            raise DataError(f"Every row of file '{table.name}' ended with an error (column "
                            f"'{err.column}'); there is no measurement to analyse (set --errors "
                            "fail to count them as failures).")
        return table.take(kept)
    import dataclasses

    frame = table.frame.copy()
    kept = err.kept()
    part = table.take(kept)
    for column in dict.fromkeys(c for c in value_columns if c):
        if column not in frame.columns:
            continue
        try:
            values = to_float(part, column)
        except DataError:
            values = to_binary(part, column).astype(float)
        full = np.zeros(len(frame), dtype=np.float64)
        full[kept] = values
        frame[column] = full
    return dataclasses.replace(table, frame=frame)
