"""The Runs panel's item grid: a filter (right in A, wrong in B; wrong in every run; changed
between consecutive runs; missing in a run) with two run pickers above the grid table and its
heat map; a click on a row (in the table or the heat map) asks for that item's rows."""

from __future__ import annotations

import numpy as np
import pandas as pd
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QSizePolicy, QSplitter, QVBoxLayout, QWidget

from ..models import FrameModel
from ..widgets import TableView

#: (key, label for 0/1 outcomes, label for scores)
FILTERS = (
    ("all", "every item", "every item"),
    ("a_not_b", "right in A, wrong in B", "better in A than in B"),
    ("wrong_everywhere", "wrong in every run", "wrong in every run (0/1 outcomes only)"),
    ("changed", "changed between consecutive runs", "changed between consecutive runs"),
    ("missing", "missing in a run", "missing in a run"),
)


class RunsGrid(QWidget):
    """Filter row, then the grid table beside its heat map."""

    #: positions (rows of the result's grid table) of the items to show in the data table
    items_chosen = Signal(object)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("grid:runs")
        self.result = None
        self._pending: dict[str, str] | None = None   # a session's filter, until a result comes
        self.grid = pd.DataFrame()
        self.runs: list[str] = []
        self.binary = True
        self.lower_is_better = False
        self.positions = np.zeros(0, dtype=np.int64)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 0)
        bar = QHBoxLayout()
        self.filter = QComboBox()
        self.filter.setObjectName("gridFilter")
        for key, label, _ in FILTERS:
            self.filter.addItem(label, key)
        self.run_a, self.run_b = QComboBox(), QComboBox()
        self.run_a.setObjectName("gridRunA")
        self.run_b.setObjectName("gridRunB")
        for combo, chars in ((self.filter, 12), (self.run_a, 4), (self.run_b, 4)):  # never wider than the tab
            combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            combo.setMinimumContentsLength(chars)
        self.count = QLabel()
        # the count gives way on a narrow tab (a 200% screen): the combos keep their room
        self.count.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.filter.setToolTip("Which items the grid and the heat map show.")
        self.run_a.setToolTip("Run A of 'right in A, wrong in B'.")
        self.run_b.setToolTip("Run B of 'right in A, wrong in B'.")
        bar.addWidget(self.filter, 2)
        bar.addWidget(self.count, 1)
        runs = QHBoxLayout()  # the two runs on a line of their own: a narrow tab keeps them whole
        self.label_a, self.label_b = QLabel("A"), QLabel("B")
        self.label_a.setBuddy(self.run_a)
        self.label_b.setBuddy(self.run_b)
        for lab, combo in ((self.label_a, self.run_a), (self.label_b, self.run_b)):
            runs.addWidget(lab)
            runs.addWidget(combo, 2)
        layout.addLayout(bar)
        layout.addLayout(runs)
        split = QSplitter(Qt.Orientation.Horizontal)
        self.table = TableView(FrameModel(background_rows=50_000))
        self.table.setObjectName("gridTable")
        self.table.clicked.connect(self._table_clicked)
        from ..charts.runs_repeats import RunsHeatmap  # pyqtgraph: imported when the grid is made

        self.heatmap = RunsHeatmap()
        self.heatmap.item_clicked.connect(lambda pos: self.items_chosen.emit(np.array([pos])))
        split.addWidget(self.table)
        split.addWidget(self.heatmap)
        split.setSizes([420, 420])
        layout.addWidget(split, 1)
        for combo in (self.filter, self.run_a, self.run_b):
            combo.currentIndexChanged.connect(self.apply_filter)

    def setting(self) -> dict[str, str] | None:
        """The filter and the two runs it compares, for a session (None: nothing chosen yet)."""
        if self.result is None:
            return self._pending
        return {"filter": str(self.filter.currentData()), "run_a": self.run_a.currentText(),
                "run_b": self.run_b.currentText()}

    def set_setting(self, setting: dict[str, str] | None) -> None:
        """A session's filter, applied when the panel's result on the session's file arrives (a
        session always runs the panel again; a result still shown is the previous file's): a
        run that result does not have keeps the default pick, an unknown filter shows every item."""
        self._pending = dict(setting) if setting else None

    def _apply_pending(self) -> None:
        setting, self._pending = self._pending, None
        if not setting:
            return
        index = self.filter.findData(setting.get("filter"))
        if index >= 0 and self.filter.model().item(index).isEnabled():
            self.filter.setCurrentIndex(index)
        for combo, key in ((self.run_a, "run_a"), (self.run_b, "run_b")):
            if setting.get(key) in self.runs:
                combo.setCurrentText(setting[key])

    def set_result(self, result) -> None:
        """A new result: the pickers list its runs (A the baseline, B the last run)."""
        self.result = result
        self.grid = result.table("grid").frame
        self.runs = result.table("runs").frame["run"].astype(str).tolist()
        self.binary = "value:binary" in result.signature
        self.lower_is_better = "better:lower" in result.signature
        for key, label, score_label in FILTERS:
            self.filter.setItemText(self.filter.findData(key), label if self.binary else score_label)
        # scores are never simply wrong: that filter is for 0/1 outcomes only
        self.filter.model().item(self.filter.findData("wrong_everywhere")).setEnabled(self.binary)
        if not self.binary and self.filter.currentData() == "wrong_everywhere":
            self.filter.setCurrentIndex(0)
        base = next((p.split(":", 1)[1] for p in result.signature.split("|") if p.startswith("baseline:")), None)
        for combo, wanted in ((self.run_a, base if base in self.runs else self.runs[0]), (self.run_b, self.runs[-1])):
            previous = combo.currentText()
            combo.blockSignals(True)
            combo.clear()
            combo.addItems(self.runs)
            combo.setCurrentText(previous if previous in self.runs else wanted)
            combo.blockSignals(False)
        for combo in (self.filter, self.run_a, self.run_b):
            combo.blockSignals(True)
        try:
            self._apply_pending()
        finally:
            for combo in (self.filter, self.run_a, self.run_b):
                combo.blockSignals(False)
        self.heatmap.update_from(result)
        self.apply_filter()

    def mask(self, key: str) -> np.ndarray:
        """Which items of the grid the filter ``key`` keeps."""
        grid, n = self.grid, len(self.grid)
        if key == "a_not_b":
            a, b = grid[self.run_a.currentText()].to_numpy(dtype=float), grid[self.run_b.currentText()].to_numpy(dtype=float)
            ok = np.isfinite(a) & np.isfinite(b)
            if self.binary:
                return ok & (a == 1) & (b == 0)
            return ok & ((a < b) if self.lower_is_better else (a > b))
        if key == "wrong_everywhere":
            return grid["wrong_in_every_run"].to_numpy(dtype=bool) if "wrong_in_every_run" in grid else np.zeros(n, bool)
        if key == "changed":
            return grid["changed"].to_numpy(dtype=bool)
        if key == "missing":
            return grid["missing_in"].astype(str).to_numpy() != ""
        return np.ones(n, dtype=bool)

    def apply_filter(self, *_args) -> None:
        if self.result is None:
            return
        key = self.filter.currentData()
        pickers = key == "a_not_b"
        for w in (self.label_a, self.run_a, self.label_b, self.run_b):
            w.setEnabled(pickers)
        self.positions = np.flatnonzero(self.mask(key))
        shown = self.grid.iloc[self.positions]
        formats = {r: "int" if self.binary else "float" for r in self.runs}
        self.table.frame_model().set_frame(shown.reset_index(drop=True), formats)
        self.table.fit_columns(max_width=120)
        self.heatmap.show_rows(self.positions)
        self.count.setText(f"{len(self.positions):,} of {len(self.grid):,}")
        self.count.setToolTip(f"{len(self.positions):,} of the {len(self.grid):,} items shown")

    def _table_clicked(self, index) -> None:
        view_row = index.row()
        shown = self.table.frame_model().source_row(view_row)
        if 0 <= shown < len(self.positions):
            self.items_chosen.emit(np.array([self.positions[shown]]))

    def clear(self) -> None:
        self.result = None
        self.grid = pd.DataFrame()
        self.positions = np.zeros(0, dtype=np.int64)
        self.table.frame_model().set_frame(pd.DataFrame())
        self.heatmap.reset()
        self.count.setText("")
