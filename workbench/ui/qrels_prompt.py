"""The bar that asks for the judgments of TREC runs opened without them.

A run alone cannot be scored: instead of an empty Ranking panel, the window shows this bar above
the data ("runA.run is a TREC run without judgments: choose its qrels file…"); the file chosen
is opened together with the run(s), as if both had been opened at once.  It never blocks: the
file dialog opens only when the button is clicked.
"""

from __future__ import annotations

import os

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QFileDialog, QFrame, QHBoxLayout, QLabel, QPushButton

QRELS_FILTER = "TREC judgments (*.qrels *.txt *.tsv *.csv *.gz);;All files (*)"


class QrelsPrompt(QFrame):
    qrels_chosen = Signal(list, str)   # (the runs' paths, the qrels file chosen)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("qrelsPrompt")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setStyleSheet("#qrelsPrompt { background: #fff4ce; }")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(10, 6, 10, 6)
        self.text = QLabel()
        self.text.setWordWrap(True)
        layout.addWidget(self.text, 1)
        self.button = QPushButton("Choose the judgments (qrels) file…")
        self.button.setObjectName("chooseQrels")
        self.button.clicked.connect(self.choose)
        layout.addWidget(self.button)
        close = QPushButton("Not now")
        close.clicked.connect(self.hide)
        layout.addWidget(close)
        self.runs: list[str] = []
        self.hide()

    def ask(self, runs: list[str]) -> None:
        """Show the question for these run files."""
        self.runs = list(runs)
        names = ", ".join(os.path.basename(p) for p in runs[:3]) + (" …" if len(runs) > 3 else "")
        what = "is a TREC run" if len(runs) == 1 else f"are {len(runs)} TREC runs"
        self.text.setText(f"<b>{names}</b> {what} without judgments: nDCG, MAP and the other "
                          f"ranking measures need the qrels file that judges its documents.")
        self.show()

    def choose(self) -> None:
        start = os.path.dirname(self.runs[0]) if self.runs else ""
        path, _ = QFileDialog.getOpenFileName(self, "Judgments (qrels) for the run", start, QRELS_FILTER)
        if path:
            self.hide()
            self.qrels_chosen.emit(self.runs, path)


__all__ = ["QrelsPrompt"]
