"""The start page: open a file, the worked examples, the recent files, plan or write a rule."""

from __future__ import annotations

import os

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QHBoxLayout, QLabel, QListWidget, QListWidgetItem, QPushButton,
                               QVBoxLayout, QWidget)

from .examples import EXAMPLE_SESSIONS, EXAMPLES
from .loading import paths_of, shown_name


class StartPage(QWidget):
    open_requested = Signal()
    path_requested = Signal(str)
    example_requested = Signal(object)
    plan_requested = Signal()
    rule_requested = Signal()

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(48, 36, 48, 36)
        title = QLabel("<h1>Eval Workbench</h1><p>Open a spreadsheet or CSV of per-item results. "
                       "Every number comes with its denominator and the conventions behind it.</p>")
        title.setWordWrap(True)
        layout.addWidget(title)
        row = QHBoxLayout()
        open_button = QPushButton("Open a results file…")
        open_button.setObjectName("openButton")
        open_button.setMinimumHeight(36)
        open_button.clicked.connect(self.open_requested)
        plan_button = QPushButton("Plan an evaluation (no data needed)")
        plan_button.setMinimumHeight(36)
        plan_button.clicked.connect(self.plan_requested)
        rule_button = QPushButton("Write the release rule first")
        rule_button.setMinimumHeight(36)
        rule_button.setToolTip("Set the bar before the run: what must hold for the candidate to ship.")
        rule_button.clicked.connect(self.rule_requested)
        row.addWidget(open_button)
        row.addWidget(rule_button)
        row.addWidget(plan_button)
        row.addStretch(1)
        layout.addLayout(row)
        columns = QHBoxLayout()
        left = QVBoxLayout()
        left.addWidget(QLabel("<h3>Examples: the worked cases</h3>"))
        self.examples = self._example_list("examples", EXAMPLES)
        left.addWidget(self.examples, 3)
        left.addWidget(QLabel("<h3>Example sessions: saved options and a registered rule</h3>"))
        self.sessions = self._example_list("exampleSessions", EXAMPLE_SESSIONS)
        left.addWidget(self.sessions, 1)
        right = QVBoxLayout()
        right.addWidget(QLabel("<h3>Recent files</h3>"))
        self.recent = QListWidget()
        self.recent.setObjectName("recent")
        self.recent.itemActivated.connect(lambda it: self.path_requested.emit(it.data(Qt.ItemDataRole.UserRole)))
        self.recent.itemClicked.connect(lambda it: self.path_requested.emit(it.data(Qt.ItemDataRole.UserRole)))
        right.addWidget(self.recent, 1)
        columns.addLayout(left, 3)
        columns.addLayout(right, 2)
        layout.addLayout(columns, 1)
        hint = QLabel("Tip: drop a file on the window, or start it with <code>workbench results.xlsx</code>.")
        layout.addWidget(hint)

    def _example_list(self, name: str, examples) -> QListWidget:
        """A list of examples (title and description); a click or Enter opens one."""
        widget = QListWidget()
        widget.setObjectName(name)
        widget.setWordWrap(True)
        widget.setSpacing(2)
        for ex in examples:
            item = QListWidgetItem(f"{ex.title}\n    {ex.description}")
            item.setData(Qt.ItemDataRole.UserRole, ex)
            item.setToolTip(str(ex.path))
            widget.addItem(item)
        for signal in (widget.itemActivated, widget.itemClicked):
            signal.connect(lambda it: self.example_requested.emit(it.data(Qt.ItemDataRole.UserRole)))
        return widget

    def set_recent(self, paths: list[str]) -> None:
        self.recent.clear()
        for path in paths:
            first = paths_of(path)[0]
            item = QListWidgetItem(f"{shown_name(path)}    —    {os.path.dirname(first)}")
            item.setData(Qt.ItemDataRole.UserRole, path)
            item.setToolTip(path)
            self.recent.addItem(item)
        if not paths:
            self.recent.addItem(QListWidgetItem("(none yet)"))
