"""The data view of a file read page by page (:mod:`workbench.engines.paged`): a Qt table
model whose rows are the file's, fetched by DuckDB a page at a time on a worker thread.

A cell of a page not yet read shows an ellipsis; the page is asked for and the view is
updated when it arrives (a few milliseconds).  The last pages read are kept
(:data:`KEEP_PAGES`).  Sorting and searching every cell would read the whole file: they are
not offered, and asking says so (:attr:`failed`), as the in-memory model says why it did not
sort.
"""

from __future__ import annotations

from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pandas as pd
from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt, Signal

from .models import RAW_ROLE, SORT_ROLE, _qt_value, alignment, format_value, full_precision

#: Rows per page read.
PAGE_ROWS = 500
#: Pages kept in memory (the least recently shown are dropped).
KEEP_PAGES = 200
#: What a cell of a page not yet read shows.
PENDING = "…"
#: At most this many rows are copied as text from a file read page by page.
COPY_ROWS = 100_000


class PagedModel(QAbstractTableModel):
    """Every row of a file read page by page, in file order (read-only, not sortable)."""

    busy_changed = Signal(object)
    rows_ready = Signal()
    failed = Signal(str)
    #: (generation, page number, frame or error text), from the worker thread
    _arrived = Signal(int, int, object)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._paged = None
        self._names: list[str] = []
        self._rows = 0
        self._pages: OrderedDict[int, list[np.ndarray]] = OrderedDict()
        self._asked: set[int] = set()
        self._generation = 0
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="workbench-pages")
        self._closed = False
        self._arrived.connect(self._on_arrived, Qt.ConnectionType.QueuedConnection)
        self.head = pd.DataFrame()

    # -- content ------------------------------------------------------------------------------
    def set_source(self, paged, head: pd.DataFrame) -> None:
        """The file (a :class:`~workbench.engines.paged.PagedParquet`) and its first rows,
        which are page 0 onwards without a read."""
        self.beginResetModel()
        self._generation += 1
        self._paged, self.head = paged, head
        self._names = [str(c) for c in head.columns] if paged is None else list(paged.columns)
        self._rows = 0 if paged is None else int(paged.rows)
        self._pages.clear()
        self._asked.clear()
        for start in range(0, min(len(head), self._rows), PAGE_ROWS):  # pages already at hand
            if start + PAGE_ROWS <= len(head) or len(head) >= self._rows:
                self._store(start // PAGE_ROWS, head.iloc[start:start + PAGE_ROWS])
        self.endResetModel()
        self.rows_ready.emit()

    @property
    def frame(self) -> pd.DataFrame:
        """The first rows (the model holds no whole frame)."""
        return self.head

    @property
    def total_rows(self) -> int:
        return self._rows

    @property
    def busy(self) -> bool:
        return False

    @property
    def row_filter_active(self) -> bool:
        return False

    def _store(self, page: int, frame: pd.DataFrame) -> None:
        self._pages[page] = [frame.iloc[:, i].to_numpy(dtype=object) for i in range(frame.shape[1])]
        self._pages.move_to_end(page)
        while len(self._pages) > KEEP_PAGES:
            self._pages.popitem(last=False)

    def _cell(self, row: int, column: int):
        """(True, value) when the row's page is at hand, else (False, None) and it is asked for."""
        page = row // PAGE_ROWS
        cols = self._pages.get(page)
        if cols is None:
            self._ask(page)
            return False, None
        self._pages.move_to_end(page)
        values = cols[column]
        offset = row - page * PAGE_ROWS
        return (True, values[offset]) if offset < values.size else (False, None)

    def _ask(self, page: int) -> None:
        if page in self._asked or self._paged is None or self._closed:
            return
        self._asked.add(page)
        generation, paged = self._generation, self._paged
        start = page * PAGE_ROWS
        stop = min(start + PAGE_ROWS, self._rows)

        def read():
            try:
                frame = paged.page(start, stop)
            except Exception as err:  # noqa: BLE001 - said in the data view, never raised there
                frame = str(err)
            if not self._closed:
                self._arrived.emit(generation, page, frame)

        self._pool.submit(read)

    def _on_arrived(self, generation: int, page: int, frame) -> None:
        self._asked.discard(page)
        if generation != self._generation or self._closed:
            return
        if isinstance(frame, str):
            self.failed.emit(f"rows {page * PAGE_ROWS + 1:,} on could not be read: {frame}")
            return
        self._store(page, frame)
        first = page * PAGE_ROWS
        last = min(first + PAGE_ROWS, self._rows) - 1
        if self._names:
            self.dataChanged.emit(self.index(first, 0), self.index(last, len(self._names) - 1))
        self.rows_ready.emit()

    def fetch_rows(self, rows) -> dict[int, list]:
        """On the caller's thread: the values of these rows (a copy; at most :data:`COPY_ROWS`)."""
        out: dict[int, list] = {}
        rows = sorted(int(r) for r in rows)[:COPY_ROWS]
        for page in sorted({r // PAGE_ROWS for r in rows}):
            cols = self._pages.get(page)
            if cols is None and self._paged is not None:
                start = page * PAGE_ROWS
                frame = self._paged.page(start, min(start + PAGE_ROWS, self._rows))
                self._store(page, frame)
                cols = self._pages[page]
            for r in rows:
                if r // PAGE_ROWS == page and cols is not None:
                    out[r] = [c[r - page * PAGE_ROWS] for c in cols]
        return out

    # -- what the data view asks of a model --------------------------------------------------
    def set_filter(self, text: str) -> None:
        if text:
            self.failed.emit("searching every cell would read the whole file; this file is read "
                             "page by page")

    def set_row_filter(self, rows) -> None:
        if rows is not None:
            self.failed.emit("showing chosen rows needs the rows in memory")

    def view_row_of(self, source_rows) -> np.ndarray:
        rows = np.asarray(source_rows, dtype=np.int64)
        return rows[(rows >= 0) & (rows < self._rows)]

    def source_row(self, view_row: int) -> int:
        return int(view_row)

    def sort(self, column: int, order=Qt.SortOrder.AscendingOrder) -> None:
        if self._paged is not None and 0 <= column < len(self._names):
            self.failed.emit("sorting would read the whole file; this file is read page by page "
                             "and shown in file order")

    def to_tsv(self, rows=None, columns=None) -> str:
        """The rows as tab-separated text (at most :data:`COPY_ROWS`, said when more were asked)."""
        asked = self._rows if rows is None else len(rows)
        if asked > COPY_ROWS:
            self.failed.emit(f"copied the first {COPY_ROWS:,} of {asked:,} rows: a file read page "
                             f"by page is copied {COPY_ROWS:,} rows at most")
        rows = range(min(self._rows, COPY_ROWS)) if rows is None else rows
        columns = list(range(len(self._names))) if columns is None else list(columns)
        values = self.fetch_rows(rows)
        lines = ["\t".join(self._names[c] for c in columns)]
        for r in sorted(values):
            lines.append("\t".join(full_precision(values[r][c]) for c in columns))
        return "\n".join(lines) + "\n"

    def cancel(self) -> None:
        self._generation += 1
        self._asked.clear()

    def shutdown(self) -> None:
        """The window closes: pages asked for are dropped, the worker finishes."""
        self._closed = True
        self.cancel()
        self._pool.shutdown(wait=True, cancel_futures=True)

    def wait(self, msecs: int = 30000) -> bool:
        """Block until the pages asked for are read (tests)."""
        import time

        if self._closed:
            return True  # shut down: the worker has finished
        end = time.monotonic() + msecs / 1000
        done = self._pool.submit(lambda: None)
        try:
            done.result(timeout=max(0.0, end - time.monotonic()))
        except Exception:  # noqa: BLE001 - a timeout
            return False
        return True

    # -- Qt model API ---------------------------------------------------------------------------
    def rowCount(self, parent=QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else self._rows

    def columnCount(self, parent=QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(self._names)

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid() or role not in (Qt.ItemDataRole.DisplayRole, SORT_ROLE, RAW_ROLE,
                                               Qt.ItemDataRole.TextAlignmentRole,
                                               Qt.ItemDataRole.ToolTipRole):
            return None
        r, c = index.row(), index.column()
        if not (0 <= r < self._rows and 0 <= c < len(self._names)):
            return None
        ready, value = self._cell(r, c)
        if not ready:
            return PENDING if role == Qt.ItemDataRole.DisplayRole else None
        if role == Qt.ItemDataRole.DisplayRole:
            if isinstance(value, (float, np.floating)):
                return full_precision(value)  # the exact value, never rounded
            return format_value(value, "text" if isinstance(value, (int, np.integer)) else None)
        if role in (SORT_ROLE, RAW_ROLE):
            return _qt_value(value)
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return alignment(value)
        text = str(value)
        return text if len(text) > 40 else None

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):  # noqa: N802
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        if orientation == Qt.Orientation.Horizontal:
            return self._names[section] if 0 <= section < len(self._names) else None
        return str(section + 1) if 0 <= section < self._rows else None

    def flags(self, index):
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
