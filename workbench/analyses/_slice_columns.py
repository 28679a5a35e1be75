"""The slices of the paired items: a column's exact texts (or quantile bins of its numbers), read
once per item, and the rows of the file that hold a slice (for the window's data view).

A slice label is the cell's exact text: ``HI``, ``hi `` and ``hi`` are three slices (a note points
out labels that differ only in case or surrounding spaces); an empty cell is the slice
``(blank)``.  With ``bins``, a column whose non-blank cells are all numbers is cut into quantile
bins (numpy's linear quantiles over the paired items; right-closed, the first bin holding its
lower edge, as ``pandas.qcut``), each labelled with its edges.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..core.errors import DataError
from ..core.numbers import plural
from ..io import LoadedTable, require_columns, text_codes, to_text
from ..metrics import slices as ms

#: the slice of the empty cells
BLANK = "(blank)"


@dataclass(frozen=True)
class SliceColumn:
    """One slice column over the paired items: ``codes[i]`` is item i's slice in ``labels``."""

    by: str
    labels: list[str]
    codes: np.ndarray
    #: quantile bins: (label, low, high) per bin, in order (None: the column's values)
    bins: list[tuple[str, float, float]] | None = None

    @property
    def size(self) -> int:
        return len(self.labels)


def split_by(by: str | None, columns) -> list[str]:
    """``--by A,B``: the columns named (a whole name that holds a comma is one column)."""
    if by is None:
        return []
    present = set(map(str, columns))
    if by in present:
        return [by]
    out = [c.strip() for c in str(by).split(",") if c.strip()]
    return list(dict.fromkeys(out))


def read(table: LoadedTable, by: str, rows: np.ndarray, items: list[str], bins: int,
         notes: list[str]) -> SliceColumn:
    """Column ``by`` as the slice of each paired item (``rows``: items x systems, row indices of
    ``table``); both systems' rows of an item must hold the same text (long form)."""
    require_columns(table, [by])
    codes_all, uniques = text_codes(table, by)
    codes_all = np.asarray(codes_all, dtype=np.int64)
    labels = [str(u) for u in uniques]
    item_codes = codes_all[rows[:, 0]] if len(rows) else np.zeros(0, dtype=np.int64)
    for j in range(1, rows.shape[1] if rows.ndim == 2 else 0):
        other = codes_all[rows[:, j]]
        bad = np.flatnonzero(other != item_codes)
        if bad.size:
            i = int(bad[0])
            raise DataError(
                f"File '{table.name}', column '{by}': item '{items[i]}' is '{labels[item_codes[i]]}' on the "
                f"baseline's row ({table.line_word} {table.line_of(int(rows[i, 0]))}) and "
                f"'{labels[other[i]]}' on the candidate's ({table.line_word} {table.line_of(int(rows[i, j]))}); "
                f"a slice column must say the same of both systems' rows of an item "
                f"({plural(bad.size, 'item')} differ{'s' if bad.size == 1 else ''}).")
    if bins:
        binned = _bins(table.name, by, labels, item_codes, bins, notes)
        if binned is not None:
            return binned
    return _values(by, labels, item_codes, notes)


def _values(by: str, labels: list[str], item_codes: np.ndarray, notes: list[str]) -> SliceColumn:
    """The column's exact texts as slices: natural order ('q2' before 'q10'), the blank one last."""
    from .paired import natural_key

    used = np.unique(item_codes)
    texts = [labels[c] for c in used]
    order = sorted(range(len(used)), key=lambda i: (texts[i] == "", natural_key(texts[i])))
    remap = np.full(len(labels), -1, dtype=np.int64)
    remap[used[order]] = np.arange(len(order))
    shown = [texts[i] for i in order]
    names = [_blank_name(t, shown) for t in shown]
    _confusable(by, shown, notes)
    return SliceColumn(by, names, remap[item_codes])


def _blank_name(text: str, texts: list[str]) -> str:
    if text != "":
        return text
    return BLANK if BLANK not in texts else f"{BLANK} (empty cells)"


def _confusable(by: str, texts: list[str], notes: list[str]) -> None:
    """A note naming the labels that differ only in case or surrounding spaces."""
    groups: dict[str, list[str]] = {}
    for t in texts:
        groups.setdefault(t.strip().casefold(), []).append(t)
    alike = [g for g in groups.values() if len(g) > 1]
    if not alike:
        return
    shown = "; ".join(", ".join(repr(t) for t in g) for g in alike[:5])
    more = f" and {len(alike) - 5} more sets" if len(alike) > 5 else ""
    notes.append(f"Column '{by}' has slice labels that differ only in case or surrounding spaces ({shown}{more}): "
                 "each is a slice of its own here, since labels are exact text; if they mean the same, "
                 "make them the same in the data.")


def _bins(name: str, by: str, labels: list[str], item_codes: np.ndarray, bins: int,
          notes: list[str]) -> SliceColumn | None:
    """Quantile bins of a numeric column (None, with a note, when it is not numeric)."""
    numbers = pd.to_numeric(pd.Series(labels, dtype=object).str.strip().replace("", np.nan),
                            errors="coerce").to_numpy(dtype=float)
    blank_code = np.array([lab.strip() == "" for lab in labels], dtype=bool)
    bad = ~blank_code & ~np.isfinite(numbers)
    used = np.zeros(len(labels), dtype=bool)
    used[np.unique(item_codes)] = True
    if (bad & used).any():
        example = labels[int(np.flatnonzero(bad & used)[0])]
        notes.append(f"--bins cuts numeric columns; column '{by}' of '{name}' is not numeric (it holds "
                     f"{example!r}), so its values are the slices.")
        return None
    values = numbers[item_codes]
    edges = ms.quantile_edges(values, bins)
    if edges.size == 0:
        notes.append(f"--bins cuts numbers; column '{by}' of '{name}' has none among the paired items (every "
                     "cell is empty), so its values are the slices.")
        return None
    codes = ms.bin_codes(values, edges)
    n_bins = max(1, edges.size - 1) if edges.size else 0
    spans = ([(edges[0], edges[0])] if edges.size == 1 else
             [(edges[j], edges[j + 1]) for j in range(edges.size - 1)])
    names = [(f"[{_edge(lo)}, {_edge(hi)}]" if j == 0 else f"({_edge(lo)}, {_edge(hi)}]")
             for j, (lo, hi) in enumerate(spans)]
    if len(set(names)) < len(names):  # edges that print alike at 6 digits: all their digits
        names = [(f"[{lo!r}, {hi!r}]" if j == 0 else f"({lo!r}, {hi!r}]") for j, (lo, hi) in enumerate(spans)]
    table = [(names[j], float(lo), float(hi)) for j, (lo, hi) in enumerate(spans)]
    blank = codes < 0
    if blank.any():
        codes = np.where(blank, len(names), codes)
        names = names + [BLANK]
    if n_bins < bins:
        notes.append(f"Column '{by}': {bins} quantile bins asked for, {n_bins} made (tied values make equal "
                     f"edges, which are merged).")
    notes.append(f"Column '{by}' cut into {plural(n_bins, 'quantile bin')} over the paired items (numpy's linear "
                 f"quantiles; each bin (low, high], the first [low, high]): edges "
                 f"{', '.join(_edge(e) for e in edges)}"
                 + (f"; {plural(int(blank.sum()), 'item')} with an empty cell form the slice '{BLANK}'" if blank.any()
                    else "") + ".")
    return SliceColumn(by, names, codes.astype(np.int64), table)


def _edge(x: float) -> str:
    """An edge as a label shows it: up to 6 significant digits."""
    return f"{float(x):.6g}"


def rows_of(table: LoadedTable, slice_column: str, label: str, bins=None) -> np.ndarray:
    """0-based rows of ``table`` whose ``slice_column`` puts them in slice ``label`` (every
    system's rows): its exact text, the empty cells for ``(blank)``, or a bin's numbers
    (``bins``: (label, low, high) per bin, as :class:`SliceColumn` has them)."""
    if slice_column not in table.frame.columns:
        return np.zeros(0, dtype=np.int64)
    text = np.asarray(to_text(table, slice_column), dtype=object)
    if bins:
        spans = {b[0]: (float(b[1]), float(b[2]), i) for i, b in enumerate(bins)}
        stripped = pd.Series(text, dtype=object).astype(str).str.strip()
        if label.startswith(BLANK):
            return np.flatnonzero((stripped == "").to_numpy())
        if label not in spans:
            return np.zeros(0, dtype=np.int64)
        lo, hi, first = spans[label]
        values = pd.to_numeric(stripped.replace("", np.nan), errors="coerce").to_numpy(dtype=float)
        inside = (values <= hi) & ((values >= lo) if first == 0 else (values > lo))
        return np.flatnonzero(inside)
    if label.startswith(BLANK) and not np.any(text == label):
        return np.flatnonzero(text == "")
    return np.flatnonzero(text == label)
