"""Qt table models over pandas DataFrames.

:class:`FrameModel` shows a DataFrame without copying it: cells are read from the column
arrays on demand, and sorting and filtering are done with numpy on whole columns (a view
permutation).  The two slow steps, ordering a column (text columns take most of a second per
million rows) and searching every column for a text, produce a permutation and a mask that
are kept; the view is composed from them and the row filter in milliseconds.  Above
``background_rows`` rows the slow steps run on a worker thread (the data view), and the view
changes when they are done; below it (result tables) everything is immediate.
``Qt.UserRole`` (:data:`SORT_ROLE`) returns the raw value, so numbers sort as numbers.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt, Signal

from ..core.memo import PerTable
from ..core.progress import Progress

SORT_ROLE = Qt.ItemDataRole.UserRole
RAW_ROLE = Qt.ItemDataRole.UserRole + 1


def format_value(value, fmt: str | None = None, currency: str | None = None) -> str:
    """A cell as the user sees it, by the one number policy (``workbench.report.present``):
    ``fmt`` is a kind of that policy (``rate``, ``points``, ``p``...), an analysis's format
    hint (``money``, ``int``...), or None (a cell of the loaded file: numbers as ``plain``)."""
    from ..report import present

    if value is None:
        return ""
    if isinstance(value, np.ndarray) and value.ndim == 0:  # a 0-d array in an object column
        value = value.item()
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if isinstance(value, (float, np.floating)):
        v = float(value)
        if math.isnan(v):
            return ""
        if math.isinf(v):
            return "∞" if v > 0 else "-∞"
    if fmt == "text" and isinstance(value, (int, np.integer)):
        return str(int(value))  # an id in a text column: as written, no thousands separator
    if isinstance(value, (int, float, np.integer, np.floating)):
        kind = fmt if fmt in present.KINDS else present.HINT_KINDS.get(fmt or "", "plain")
        return present.format_value(value, kind, currency=currency)
    return str(value)


def alignment(value) -> int:
    """A cell's alignment: numbers to the right, anything else to the left."""
    if isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool):
        return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
    return int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)


def full_precision(value) -> str:
    """A cell for the clipboard: full precision, no thousands separators, no percent."""
    if value is None:
        return ""
    if isinstance(value, (bool, np.bool_)):
        return "TRUE" if value else "FALSE"
    if isinstance(value, (float, np.floating)):
        v = float(value)
        return "" if math.isnan(v) else repr(v)
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    text = str(value)
    return text.replace("\t", " ").replace("\r", " ").replace("\n", " ")


_IDENTITY = [np.zeros(0, dtype=np.int64)]


def identity_rows(n: int) -> np.ndarray:
    """The rows 0..n-1 in file order, read-only: one array shared by every model that shows a
    table unsorted and unfiltered (the data view, the reading dock and the panels' tables of a
    1M-row file each made their own, 7 ms each on the GUI thread while the answer was being
    computed).  A model's rows are replaced, never written in place."""
    ident = _IDENTITY[0]
    if ident.size < n:
        ident = np.arange(n, dtype=np.int64)
        ident.flags.writeable = False
        _IDENTITY[0] = ident
    return ident[:n]


class FrameModel(QAbstractTableModel):
    """A read-only, sortable, filterable view of a DataFrame."""

    #: True while the rows of a sort or filter are computed on a worker (large frames only)
    busy_changed = Signal(object)
    #: the view shows the latest sort and filters (after each change, immediate or not)
    rows_ready = Signal()
    #: a sort or filter computed on a worker failed (the message); it was dropped
    failed = Signal(str)

    def __init__(self, frame: pd.DataFrame | None = None, formats: dict | None = None,
                 tooltips: dict | None = None, parent=None,
                 background_rows: int | None = None) -> None:
        """``formats``: column -> format name (or a per-row sequence of them);
        ``tooltips``: column -> header tooltip, and ``"column:cells"`` -> per-row tooltips;
        ``background_rows``: above this many rows, sorting and text filtering run on a worker
        thread (``None``: never)."""
        super().__init__(parent)
        self._frame = pd.DataFrame()
        self._columns: list[np.ndarray] = []
        self._names: list[str] = []
        self._formats: dict[str, str] = {}
        self._tooltips: dict[str, str] = {}
        self._headers: dict[str, str] = {}
        self._labels: dict = {}
        #: a currency symbol for cost cells (None: the file's units, no symbol)
        self.currency: str | None = None
        self._view = np.zeros(0, dtype=np.int64)
        self._sort: tuple[int, Qt.SortOrder] | None = None
        self._filter_text = ""
        self._filter_rows: np.ndarray | None = None
        self._background_rows = background_rows
        self._runner = None
        self._generation = 0
        self._orders: dict[int, np.ndarray] = {}   # column -> ascending stable permutation
        self._text_mask: tuple[str, np.ndarray] | None = None  # (needle, rows that contain it)
        self._pending_reset = False
        self.set_frame(frame if frame is not None else pd.DataFrame(), formats, tooltips)

    # -- content ------------------------------------------------------------------------------
    def set_frame(self, frame: pd.DataFrame, formats: dict[str, str] | None = None,
                  tooltips: dict[str, str] | None = None, headers: dict[str, str] | None = None,
                  labels: dict | None = None) -> None:
        """``headers``: column -> the name shown (the column's own name stays in the header's
        tooltip and in a copy as TSV); ``labels``: column -> the text shown for each row (the
        cell's own value stays in the copy, e.g. a metric id shown by its display name)."""
        self.cancel()  # before the reset: cancelling emits busy_changed
        self.beginResetModel()
        previous_sort = None
        if self._sort is not None and self._sort[0] < len(self._names):
            previous_sort = (self._names[self._sort[0]], self._sort[1])
        self._orders, self._text_mask = {}, None
        self._frame = frame
        self._names = [str(c) for c in frame.columns]
        self._columns = [_cell_values(frame.iloc[:, i]) for i in range(frame.shape[1])]
        self._formats = dict(formats or {})
        self._tooltips = dict(tooltips or {})
        self._headers = dict(headers or {})
        self._labels = dict(labels or {})
        self._sort = None
        if previous_sort is not None and previous_sort[0] in self._names:  # new results keep the sort
            self._sort = (self._names.index(previous_sort[0]), previous_sort[1])
        self._filter_text = ""
        self._filter_rows = None
        self._view = identity_rows(len(frame))  # until the sort, if any, is ready
        self.endResetModel()
        self._update(reset=True)

    @property
    def frame(self) -> pd.DataFrame:
        return self._frame

    @property
    def busy(self) -> bool:
        """True while a sort or filter is being computed on a worker."""
        return self._runner is not None and self._runner.busy

    def cancel(self) -> None:
        """Drop the work in progress (shutdown): its result will not be shown."""
        self._generation += 1
        if self._runner is not None:
            self._runner.cancel()

    def shutdown(self) -> None:
        """The window closes: the work in progress is cancelled and detached, none starts."""
        self.cancel()
        self._closed = True
        if self._runner is not None:
            self._runner.detach()

    def wait(self, msecs: int = 30000) -> bool:
        """Block until no worker runs (shutdown and tests; the result arrives as an event)."""
        return self._runner is None or self._runner.wait(msecs)

    def source_row(self, view_row: int) -> int:
        """The DataFrame row (0-based position) shown at ``view_row``."""
        return int(self._view[view_row])

    def view_row_of(self, source_rows) -> np.ndarray:
        """View rows of the given source rows (those currently visible)."""
        pos = np.full(len(self._frame), -1, dtype=np.int64)
        pos[self._view] = np.arange(self._view.size)
        rows = np.asarray(source_rows, dtype=np.int64)
        out = pos[rows[(rows >= 0) & (rows < pos.size)]]
        return out[out >= 0]

    def _shown(self, column: int, source: int):
        """The text cell (``source`` row, ``column``) shows: its label, else its value formatted."""
        name = self._names[column]
        labels = self._labels.get(name)
        if labels is not None:
            return labels[source]
        fmt = self._formats.get(name)
        if fmt is not None and not isinstance(fmt, str):  # one format per row
            fmt = fmt[source]
        return format_value(self._columns[column][source], fmt, self.currency)

    def display_sample(self, column: int, rows: int) -> tuple[list[str], bool]:
        """The first ``rows`` rows shown of ``column`` as :meth:`data` shows them, and whether
        any of them is aligned right (a number): what fitting the column's width measures,
        without a model index and two ``data`` calls per cell."""
        values = self._columns[column]
        right = int(Qt.AlignmentFlag.AlignRight)
        sources = [int(source) for source in self._view[:rows]]
        numeric = any(alignment(values[i]) & right for i in sources)
        return [str(self._shown(column, i) or "") for i in sources], numeric

    # -- Qt model API ---------------------------------------------------------------------------
    def rowCount(self, parent=QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else int(self._view.size)

    def columnCount(self, parent=QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(self._names)

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        r, c = index.row(), index.column()
        if not (0 <= r < self._view.size and 0 <= c < len(self._columns)):
            return None
        value = self._columns[c][int(self._view[r])]
        if role == Qt.ItemDataRole.DisplayRole:
            return self._shown(c, int(self._view[r]))
        if role in (SORT_ROLE, RAW_ROLE):
            return _qt_value(value)
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return alignment(value)
        if role == Qt.ItemDataRole.ToolTipRole:
            tips = self._tooltips.get(f"{self._names[c]}:cells")
            if tips is not None:
                return tips[self._view[r]]
            if isinstance(value, (float, np.floating)) and self._formats.get(self._names[c]) is None:
                return full_precision(value)  # a cell of the file (result numbers: by their kind)
            text = str(value)
            return text if len(text) > 40 else None
        return None

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):  # noqa: N802
        if orientation == Qt.Orientation.Horizontal:
            if not 0 <= section < len(self._names):
                return None
            name = self._names[section]
            if role == Qt.ItemDataRole.DisplayRole:
                return self._headers.get(name, name)
            if role == Qt.ItemDataRole.ToolTipRole:
                tip = self._tooltips.get(name)
                if name in self._headers and self._headers[name] != name:
                    tip = f"{tip}\n(column: {name})" if tip else f"column: {name}"
                return tip
            return None
        if role == Qt.ItemDataRole.DisplayRole and 0 <= section < self._view.size:
            return str(int(self._view[section]) + 1)
        return None

    def flags(self, index):
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable

    def sort(self, column: int, order=Qt.SortOrder.AscendingOrder) -> None:
        if not 0 <= column < len(self._columns):
            return
        self._sort = (column, order)
        self._update(reset=False)

    # -- filtering ------------------------------------------------------------------------------
    def set_filter(self, text: str) -> None:
        """Show only rows where any cell contains ``text`` (case-insensitive)."""
        self._filter_text = text.strip()
        self._update(reset=True)

    def set_row_filter(self, rows) -> None:
        """Show only these source rows (``None`` shows all)."""
        self._filter_rows = None if rows is None else np.unique(np.asarray(rows, dtype=np.int64))
        self._update(reset=True)

    @property
    def row_filter_active(self) -> bool:
        return self._filter_rows is not None

    def _missing(self) -> list[tuple]:
        """The slow pieces the current sort and filter need and that are not kept yet."""
        missing = []
        if self._sort is not None and self._sort[0] not in self._orders:
            missing.append(("order", self._sort[0]))
        needle = self._filter_text.lower()
        if needle and (self._text_mask is None or self._text_mask[0] != needle):
            missing.append(("text", needle))
        return missing

    def _update(self, reset: bool) -> None:
        """Show the current sort and filters: at once when every piece is known (or the frame is
        small enough to compute them here), otherwise once a worker has computed them."""
        self._pending_reset = self._pending_reset or reset
        missing = self._missing()
        if missing and self._background_rows is not None and len(self._frame) > self._background_rows:
            self._start(missing)
            return
        if self._runner is not None and self._runner.busy:
            self._runner.cancel()  # what it computes is no longer needed
        self._store(compute_pieces(self._columns, missing, None))
        self._compose()

    def _start(self, missing: list[tuple]) -> None:
        if getattr(self, "_closed", False):
            return
        if self._runner is None:
            from .tasks import TaskRunner

            self._runner = TaskRunner(self)
            self._runner.finished.connect(self._on_pieces)
            self._runner.failed.connect(self._on_failed)
            self._runner.busy_changed.connect(self.busy_changed)
        generation, columns = self._generation, self._columns
        self._runner.start(lambda progress: (generation, compute_pieces(columns, missing, progress)))

    def _on_pieces(self, result) -> None:
        generation, pieces = result
        if generation != self._generation:
            return  # computed for a frame that has been replaced
        self._store(pieces)
        self._update(reset=False)

    def _on_failed(self, error, _details: str) -> None:
        """A piece could not be computed: show the rows without it (and say why)."""
        if self._sort is not None and self._sort[0] not in self._orders:
            self._sort = None
        if self._filter_text and (self._text_mask is None
                                  or self._text_mask[0] != self._filter_text.lower()):
            self._filter_text = ""
        self.failed.emit(f"{type(error).__name__}: {error}")
        self._update(reset=True)

    def _store(self, pieces: dict) -> None:
        for (kind, key), value in pieces.items():
            if kind == "order":
                self._orders[key] = value
            elif kind == "text":
                self._text_mask = (key, value)

    def _compose(self) -> None:
        """The view from the kept pieces and the row filter (fast: masks and one gather)."""
        reset, self._pending_reset = self._pending_reset, False
        n = len(self._frame)
        mask = None
        if self._filter_rows is not None:
            mask = np.zeros(n, dtype=bool)
            mask[self._filter_rows[self._filter_rows < n]] = True
        if self._filter_text:
            hits = self._text_mask[1]
            mask = hits if mask is None else mask & hits
        if self._sort is not None:
            column, order = self._sort
            rows = self._orders[column]
            if order == Qt.SortOrder.DescendingOrder:
                rows = rows[::-1]
            if mask is not None:
                rows = rows[mask[rows]]
        else:
            rows = np.flatnonzero(mask) if mask is not None else identity_rows(n)
        rows = np.ascontiguousarray(rows, dtype=np.int64)
        if reset:
            self.beginResetModel()
            self._view = rows
            self.endResetModel()
        else:
            self.layoutAboutToBeChanged.emit()
            old_persistent = self.persistentIndexList()
            old_rows = [(self._view[i.row()] if i.isValid() and i.row() < self._view.size else -1,
                         i.column()) for i in old_persistent]
            self._view = rows
            pos = np.full(n, -1, dtype=np.int64)
            pos[self._view] = np.arange(self._view.size)
            new = [self.index(int(pos[src]), col) if src >= 0 and pos[src] >= 0 else QModelIndex()
                   for src, col in old_rows]
            self.changePersistentIndexList(old_persistent, new)
            self.layoutChanged.emit()
        self.rows_ready.emit()

    # -- export ---------------------------------------------------------------------------------
    def to_tsv(self, rows=None, columns=None) -> str:
        """Tab-separated text with a header, full precision (pastes cleanly into Excel)."""
        cols = list(range(len(self._names))) if columns is None else list(columns)
        view_rows = range(self._view.size) if rows is None else rows
        lines = ["\t".join(self._names[c] for c in cols)]
        for r in view_rows:
            src = self._view[r]
            lines.append("\t".join(full_precision(self._columns[c][src]) for c in cols))
        return "\n".join(lines) + "\n"


#: Distinct texts already found, per table and column.
_DISTINCT = PerTable()


def distinct_texts(table, column: str, limit: int) -> list[str]:
    """The first ``limit`` distinct cell texts of a column, in the file's order (vectorised,
    and remembered per table: the loading worker finds them for the system columns, so the
    GUI thread does not factorise a million cells when the table arrives)."""
    from ..io import text_codes  # the raw cell text, factorised

    def find() -> list[str]:
        _codes, labels = text_codes(table, column)
        return [str(x) for x in labels]

    return _DISTINCT.get(table, column, find)[:limit]


def _cell_values(series: pd.Series):
    """A column's cells, indexable by row.  Text columns stay in their (Arrow) string array:
    turning a million of them into Python objects takes most of a second, while a screenful
    of cells read one by one costs microseconds; numbers become numpy arrays (no copy)."""
    if pd.api.types.is_string_dtype(series.dtype) and series.dtype != object:
        return series.array
    return series.to_numpy()


def compute_pieces(columns: list[np.ndarray], missing: list[tuple],
                   progress: Progress | None) -> dict:
    """The slow pieces of a view (on a worker for large frames): ``("order", column)`` -> the
    column's ascending stable permutation; ``("text", needle)`` -> rows where any cell, as
    text, contains the lower-case ``needle``.  Checks for cancellation between columns."""
    out: dict = {}
    for kind, key in missing:
        if kind == "order":
            out[(kind, key)] = _argsort(columns[key])
        else:
            n = len(columns[0]) if columns else 0
            hit = np.zeros(n, dtype=bool)
            for col in columns:
                if progress is not None:
                    progress.check_cancelled()
                hit |= pd.Series(col).astype(str).str.lower().str.contains(key, regex=False).to_numpy()
            out[(kind, key)] = hit
    return out


def _argsort(values: np.ndarray) -> np.ndarray:
    """Stable argsort: numbers numerically with blanks last, anything else as text."""
    series = pd.Series(values)
    if pd.api.types.is_numeric_dtype(series) and not pd.api.types.is_bool_dtype(series):
        return np.argsort(series.to_numpy(dtype=float, na_value=np.nan), kind="stable")
    try:
        numeric = pd.to_numeric(series, errors="coerce")
    except (TypeError, ValueError):  # lists, dicts... in a cell
        numeric = None
    if numeric is not None and numeric.notna().all():
        return np.argsort(numeric.to_numpy(dtype=float), kind="stable")
    # as text; missing cells as "" (pandas' str keeps them as NaN, which does not compare)
    return np.argsort(series.astype(str).fillna("").to_numpy(dtype=object), kind="stable")


def _qt_value(value):
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (np.floating,)):
        return float(value)
    if isinstance(value, (np.bool_,)):
        return bool(value)
    if value is None or isinstance(value, (int, float, str, bool)):
        return value
    return str(value)


__all__ = ["FrameModel", "SORT_ROLE", "RAW_ROLE", "format_value", "full_precision"]
