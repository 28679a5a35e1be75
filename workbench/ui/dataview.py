"""The data table: the loaded rows, a filter box, sorting and selections (numpy, pandas)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from PySide6.QtCore import QItemSelection, QItemSelectionModel, QTimer
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QPushButton, QVBoxLayout, QWidget

from ..io import LoadedTable
from .models import FrameModel
from .widgets import TableView


#: The data view sorts and filters on a worker above this many rows.
BACKGROUND_ROWS = 50_000
#: Up to this many rows a number column shows the file's own text (read once, when the column
#: is first drawn); above, each cell's shortest exact text (never rounded).
FILE_TEXT_ROWS = 300_000


class FileText:
    """The text a number column's cells show in the data view: the file's own (``7.50``,
    ``1e3``), not the value rounded to a few decimals."""

    def __init__(self, table: LoadedTable, column) -> None:
        self._table, self._column, self._texts = table, column, None

    def __getitem__(self, row):
        if self._texts is None:
            texts = None
            if len(self._table.frame) <= FILE_TEXT_ROWS:
                try:
                    texts = self._table.cell_text(self._column)
                except Exception:  # noqa: BLE001 - the exact value below instead
                    texts = None
            self._texts = texts if texts is not None else False
        if self._texts is not False:
            text = self._texts[int(row)]
            return "" if text is None else str(text)
        from .models import full_precision

        return full_precision(self._table.frame[self._column].iat[int(row)])


class DataView(QWidget):
    """The loaded table: a filter box and a sortable view of every row."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        row = QHBoxLayout()
        self.filter = QLineEdit()
        self.filter.setPlaceholderText("Filter rows: text in any column")
        self.filter.setClearButtonEnabled(True)
        self.filter.setObjectName("dataFilter")
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(250)
        self._timer.timeout.connect(lambda: self.model.set_filter(self.filter.text()))
        self.filter.textChanged.connect(lambda _t: self._timer.start())
        self.info = QLabel()
        self.show_all = QPushButton("Show all rows")
        self.show_all.setVisible(False)
        self.show_all.clicked.connect(self.clear_row_filter)
        row.addWidget(self.filter, 1)
        row.addWidget(self.show_all)
        row.addWidget(self.info)
        layout.addLayout(row)
        # sorting a text column or searching every cell of a large table takes a second per
        # million rows: above BACKGROUND_ROWS it runs on a worker and the view follows
        self.frame_model = FrameModel(background_rows=BACKGROUND_ROWS)
        #: the model of a file read page by page (made when the first such file opens)
        self.paged_model = None
        self.model = self.frame_model
        self.view = TableView(self.model)
        self.view.setObjectName("dataTable")
        self.view.setSelectionBehavior(TableView.SelectionBehavior.SelectRows)
        layout.addWidget(self.view, 1)
        self._problem = ""
        self._when_ready: list = []
        self._connect(self.frame_model)

    def _connect(self, model) -> None:
        model.modelReset.connect(self._update_info)
        model.layoutChanged.connect(self._update_info)
        model.busy_changed.connect(lambda _busy: self._update_info())
        model.failed.connect(self._on_failed)
        model.rows_ready.connect(self._run_when_ready)

    def shutdown(self) -> None:
        """The window closes: the filter timer stops, a background sort or search is
        cancelled and detached, a file read page by page is closed."""
        self._timer.stop()
        self.frame_model.shutdown()
        if self.paged_model is not None:
            self.paged_model.shutdown()

    def clear(self) -> None:
        """No table."""
        self._use(self.frame_model)
        self.frame_model.set_frame(pd.DataFrame())

    def set_table(self, table: LoadedTable) -> None:
        self._when_ready = []  # selections asked for on the previous table
        self.filter.clear()
        self._problem = ""
        large = getattr(table, "large", None)
        if large is not None:  # a file beyond the memory budget: its rows page by page
            if self.paged_model is None:
                from .paged_model import PagedModel

                self.paged_model = PagedModel(self)
                self._connect(self.paged_model)
            self.paged_model.set_source(large.paged, table.frame)
            self._use(self.paged_model)
            self.filter.setEnabled(False)
            self.filter.setPlaceholderText("Filtering and sorting need the rows in memory: this "
                                           "file is read page by page")
        else:
            labels = {str(c): FileText(table, c) for c in table.frame.columns
                      if pd.api.types.is_float_dtype(table.frame[c].dtype)}
            self.frame_model.set_frame(table.frame, labels=labels)
            self._use(self.frame_model)
            self.filter.setEnabled(True)
            self.filter.setPlaceholderText("Filter rows: text in any column")
        self.view.fit_columns()
        self.show_all.setVisible(False)
        self._update_info()

    def _use(self, model) -> None:
        if self.model is not model:
            if self.model is self.paged_model and self.paged_model is not None:
                self.paged_model.set_source(None, pd.DataFrame())  # nothing asked of the old file
            self.model = model
            self.view.setModel(model)
            self.view.horizontalHeader().setSortIndicator(-1, self.view.horizontalHeader().sortIndicatorOrder())

    def show_rows(self, rows, label: str = "") -> None:
        """Filter the view to these source rows and select them."""
        self.model.set_row_filter(rows)
        self.show_all.setVisible(True)
        self.show_all.setText(f"Show all rows ({label})" if label else "Show all rows")
        self._once_ready(self.view.selectAll)

    def _once_ready(self, fn) -> None:
        """Run ``fn`` now, or once the rows a worker is computing are shown."""
        if self.model.busy:
            self._when_ready.append(fn)
        else:
            fn()

    def _run_when_ready(self) -> None:
        if not self.model.busy:
            todo, self._when_ready = self._when_ready, []
            for fn in todo:
                fn()

    def select_rows(self, rows) -> None:
        """Select these source rows (unfiltered view) and scroll to the first."""
        if self.model.row_filter_active:
            self.clear_row_filter()
        self._once_ready(lambda: self._select_view_rows(rows))

    def _select_view_rows(self, rows) -> None:
        view_rows = np.sort(self.model.view_row_of(rows))
        selection = QItemSelection()
        if view_rows.size:
            breaks = np.flatnonzero(np.diff(view_rows) != 1)
            starts = np.r_[view_rows[0], view_rows[breaks + 1]]
            ends = np.r_[view_rows[breaks], view_rows[-1]]
            last = self.model.columnCount() - 1
            for a, b in zip(starts, ends):
                selection.select(self.model.index(int(a), 0), self.model.index(int(b), last))
        self.view.selectionModel().select(selection, QItemSelectionModel.SelectionFlag.ClearAndSelect)
        if view_rows.size:
            self.view.scrollTo(self.model.index(int(view_rows[0]), 0))

    def clear_row_filter(self) -> None:
        self.model.set_row_filter(None)
        self.show_all.setVisible(False)

    def _update_info(self) -> None:
        total = getattr(self.model, "total_rows", None)
        if total is None:
            total = len(self.model.frame)
        shown = self.model.rowCount()
        text = f"{shown:,} of {total:,} rows" if shown != total else f"{total:,} rows"
        if self.model.busy:
            text += " (sorting and filtering…)"
            self._problem = ""
        elif self._problem and self.model is self.paged_model:
            text += f" ({self._problem})"
        elif self._problem:
            text += f" (not sorted or filtered: {self._problem})"
        elif self.model is self.paged_model:
            text += " (read page by page by DuckDB, in file order)"
        self.info.setText(text)

    def _on_failed(self, message: str) -> None:
        self._problem = message[:120]
        self._update_info()
