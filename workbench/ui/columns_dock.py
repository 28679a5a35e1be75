"""The two docks beside the data: the columns' roles and the problems found in the data."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QComboBox, QHeaderView, QListWidget, QListWidgetItem, QTableWidget, QTableWidgetItem


class RolesTable(QTableWidget):
    """Column -> role, each role editable from a drop-down."""

    roles_changed = Signal(dict)

    def __init__(self, parent=None) -> None:
        super().__init__(0, 2, parent)
        self.setHorizontalHeaderLabels(["Column", "Taken as"])
        self.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.verticalHeader().setVisible(False)
        self.setAccessibleName("Columns and their roles")
        self._columns: list[str] = []

    def set_roles(self, columns: list[str], roles: dict[str, str]) -> None:
        from ..io.roles import ROLES

        self._columns = list(columns)
        self.setRowCount(len(columns))
        for r, col in enumerate(columns):
            item = QTableWidgetItem(col)
            item.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable)
            self.setItem(r, 0, item)
            combo = QComboBox()
            combo.setObjectName(f"role:{col}")
            for key, label in ROLES.items():
                combo.addItem(label, key)
            combo.setCurrentIndex(max(0, combo.findData(roles.get(col, "ignore"))))
            combo.setToolTip("What this column is; the panels fill their column choices from it.")
            combo.setAccessibleName(f"Role of column {col}")
            combo.setAccessibleDescription("What this column is; the panels fill their column choices from it.")
            combo.currentIndexChanged.connect(self._emit)
            self.setCellWidget(r, 1, combo)
        from .accessibility import name_all

        name_all(self)  # the lists of the new combos

    def roles(self) -> dict[str, str]:
        out = {}
        for r, col in enumerate(self._columns):
            combo = self.cellWidget(r, 1)
            role = combo.currentData() if combo is not None else "ignore"
            if role and role != "ignore":
                out[col] = role
        return out

    def set_role(self, column: str, role: str) -> None:
        combo = self.findChild(QComboBox, f"role:{column}")
        if combo is not None:
            combo.setCurrentIndex(max(0, combo.findData(role)))

    def _emit(self) -> None:
        self.roles_changed.emit(self.roles())


class ProblemList(QListWidget):
    """The problems found in the data; a click on one asks for its rows."""

    rows_requested = Signal(object)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("problems")
        self.setAccessibleName("Problems in the data")
        self.setAccessibleDescription("Press Enter or click a problem to select its rows in the data table.")
        self.setWordWrap(True)
        self.problems: list = []
        self.itemClicked.connect(self._clicked)
        self.itemActivated.connect(self._clicked)  # Enter on a problem, from the keyboard

    def set_checking(self) -> None:
        self.problems = []
        self.clear()
        self.addItem(QListWidgetItem("Checking the columns…"))

    def set_problems(self, problems) -> None:
        self.problems = list(problems)
        self.clear()
        for problem in self.problems:
            item = QListWidgetItem(problem.message)
            item.setData(Qt.ItemDataRole.UserRole, problem.rows)
            item.setToolTip("Click to select these rows in the data table.")
            self.addItem(item)
        if not self.problems:
            self.addItem(QListWidgetItem("No problem found with the columns' roles."))

    def _clicked(self, item: QListWidgetItem) -> None:
        rows = item.data(Qt.ItemDataRole.UserRole)
        if rows:
            self.rows_requested.emit(rows)
