"""The release rule: written (or loaded) and registered before the results are seen, then the
decision card evaluated on the loaded data.

Registering records the rule's SHA-256 and the time in the session.  A rule registered (or
edited and registered again) after any result was shown is still allowed, but the card and
the report say "rule changed after results were seen".
"""

from __future__ import annotations

import datetime as _dt

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont, QFontDatabase
from PySide6.QtWidgets import (QFileDialog, QHBoxLayout, QLabel, QPlainTextEdit, QPushButton,
                               QScrollArea, QSplitter, QVBoxLayout, QWidget)

from ...core.errors import WorkbenchError
from ...core.session import Session, atomic_write_text, sha256_text
from ...rules import TEMPLATE, card_rows, evaluate, parse_rule, rule_changed, verdict_of
from ..models import FrameModel
from ..tasks import TaskRunner
from ..widgets import BusyBar, TableView
from .base import PanelMessages, notes_html

VERDICT_COLOURS = {"PASS": "#1b7f3b", "FAIL": "#b3261e", "INCONCLUSIVE": "#a05a00"}
CARD_COLUMNS = ("condition", "observed", "interval", "threshold", "requirement", "status", "n",
                "counts", "p_value", "p_holm", "more_items", "reason")


def now_utc() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


class RulePanel(PanelMessages, QWidget):
    result_ready = Signal(object)
    registered = Signal()
    error = Signal(str, str)

    def __init__(self, session_provider, parent=None) -> None:
        super().__init__(parent)
        self._session = session_provider  # callable returning the window's Session
        self.table = None
        self.last_result = None
        self.last_error: str | None = None
        self.runner = TaskRunner(self)
        self.runner.finished.connect(self._on_result)
        self.runner.failed.connect(self._on_failed)
        self.runner.progressed.connect(lambda f, m: self.busy.advance(f, m))
        self.runner.busy_changed.connect(lambda b: None if b else self.busy.stop())
        self._build()

    # -- layout --------------------------------------------------------------------------------
    def _build(self) -> None:
        outer = QHBoxLayout(self)
        split = QSplitter(Qt.Orientation.Horizontal)
        outer.addWidget(split)
        left = QWidget()
        ll = QVBoxLayout(left)
        ll.addWidget(QLabel("<b>Release rule</b> — write it before you look at the results. "
                            "TOML; every condition states its threshold, test and interval."))
        self.editor = QPlainTextEdit()
        self.editor.setObjectName("ruleEditor")
        font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        font.setStyleHint(QFont.StyleHint.Monospace)
        self.editor.setFont(font)
        self.editor.setPlaceholderText("Start from the template (New) or open a rule file.")
        self.editor.textChanged.connect(self._on_text_changed)
        ll.addWidget(self.editor, 1)
        row = QHBoxLayout()
        for text, slot in (("New", self.new_rule), ("Open…", self.open_dialog), ("Save…", self.save_dialog)):
            button = QPushButton(text)
            button.clicked.connect(slot)
            row.addWidget(button)
        self.register_button = QPushButton("Register the rule")
        self.register_button.setObjectName("registerRule")
        self.register_button.setToolTip("Records the rule's SHA-256 and the time in the session.")
        self.register_button.clicked.connect(self.register)
        row.addWidget(self.register_button)
        ll.addLayout(row)
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        ll.addWidget(self.status)
        split.addWidget(left)

        right = QWidget()
        rl = QVBoxLayout(right)
        head = QHBoxLayout()
        self.verdict = QLabel("No decision yet")
        self.verdict.setObjectName("verdict")
        self.verdict.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.verdict.setMinimumHeight(48)
        head.addWidget(self.verdict, 1)
        self.evaluate_button = QPushButton("Evaluate on the loaded data")
        self.evaluate_button.clicked.connect(self.evaluate_now)
        head.addWidget(self.evaluate_button)
        rl.addLayout(head)
        self.busy = BusyBar()
        self.busy.cancel_requested.connect(self.runner.cancel)
        rl.addWidget(self.busy)
        self.message = QLabel()
        self.message.setWordWrap(True)
        rl.addWidget(self.message)
        self.card = TableView(FrameModel())
        self.card.setObjectName("decisionCard")
        self.card.setWordWrap(True)
        rl.addWidget(self.card, 3)
        self.notes = QLabel()
        self.notes.setWordWrap(True)
        self.notes.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(self.notes)
        rl.addWidget(scroll, 2)
        self.signature = QLabel()
        self.signature.setWordWrap(True)
        self.signature.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        rl.addWidget(self.signature)
        split.addWidget(right)
        split.setSizes([430, 1070])
        split.setStretchFactor(1, 1)
        self._refresh_status()

    # -- rule text -----------------------------------------------------------------------------
    def rule_text(self) -> str:
        return self.editor.toPlainText()

    def set_rule_text(self, text: str) -> None:
        self.editor.blockSignals(True)
        self.editor.setPlainText(text)
        self.editor.blockSignals(False)
        self._refresh_status()

    def new_rule(self) -> None:
        self.editor.setPlainText(TEMPLATE)

    def open_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open a release rule", "", "Rules (*.toml);;All files (*)")
        if path:
            self.open_path(path)

    def open_path(self, path: str) -> None:
        try:
            with open(path, encoding="utf-8") as fh:
                self.editor.setPlainText(fh.read())
        except OSError as err:
            self._show_error(f"The rule file '{path}' cannot be read ({err.strerror or err}).")

    def save_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Save the release rule", "release-rule.toml", "Rules (*.toml)")
        if path:
            atomic_write_text(path, self.rule_text())

    def _on_text_changed(self) -> None:
        self._refresh_status()

    # -- registration --------------------------------------------------------------------------
    def register(self) -> bool:
        """Parse the rule and record its hash and time; False (with a message) if it is invalid."""
        text = self.rule_text()
        try:
            rule = parse_rule(text, source="the rule editor")
        except WorkbenchError as err:
            self._show_error(str(err))
            return False
        session: Session = self._session()
        if session.rule_sha256 == rule.sha256:
            self._refresh_status()
            return True
        session.rule_text = text
        session.rule_sha256 = rule.sha256
        session.rule_registered_at = now_utc()
        if session.results_first_shown_at is not None:
            session.rule_changed_after_results = True
        self._show_message("")
        self._refresh_status()
        self.registered.emit()
        return True

    def _refresh_status(self) -> None:
        session: Session = self._session()
        text = self.rule_text()
        if not text.strip():
            self.status.setText("No rule yet. A rule written before the results keeps the decision honest.")
            return
        current = sha256_text(text)
        if session.rule_sha256 is None:
            self.status.setText("Not registered: register the rule before you look at any result.")
        elif session.rule_sha256 != current:
            self.status.setText(f"<b>Edited since it was registered</b> (registered "
                                f"{session.rule_registered_at}); register it again to use it"
                                + ("; this will be marked 'rule changed after results were seen'."
                                   if session.results_first_shown_at else "."))
        else:
            when = "after results were seen" if session.rule_changed_after_results else \
                "before any result was seen"
            self.status.setText(f"Registered {session.rule_registered_at}, {when}. "
                                f"SHA-256 {current[:16]}…")

    # -- evaluation ----------------------------------------------------------------------------
    def set_data(self, table) -> None:
        self.table = table
        session: Session = self._session()
        if table is not None and session.rule_sha256 and session.rule_sha256 == sha256_text(self.rule_text()):
            self.evaluate_now()

    def evaluate_now(self) -> None:
        if self.table is None:
            self._show_message("Open a results file to evaluate the rule on it.")
            return
        if not self.register():
            return
        session: Session = self._session()
        rule = parse_rule(self.rule_text(), source="the rule editor")
        tables, changed = [self.table], bool(session.rule_changed_after_results)
        self.busy.start("Evaluating the rule…")
        self.runner.start(lambda progress: evaluate(rule, tables, rule_changed_after_results=changed,
                                                    progress=progress))

    def _on_result(self, result) -> None:
        self.last_result = result
        self.last_error = None
        self._show_message("")
        verdict = verdict_of(result)
        colour = VERDICT_COLOURS.get(verdict, "#444")
        changed = " — rule changed after results were seen" if rule_changed(result) else ""
        self.verdict.setText(verdict + changed)
        self.verdict.setStyleSheet(f"background: {colour}; color: white; font-size: 18pt; font-weight: bold;"
                                   f" border-radius: 6px; padding: 6px;")
        import pandas as pd

        rows = card_rows(result)
        frame = pd.DataFrame([{c: r.get(c, "") for c in CARD_COLUMNS} for r in rows], columns=list(CARD_COLUMNS))
        self.card.frame_model().set_frame(frame)
        self.card.fit_columns(max_width=420)
        self.card.resizeRowsToContents()
        self.notes.setText(notes_html(result.notes))
        self.signature.setText(f"<small>Signature: {result.signature}</small>")
        self.result_ready.emit(result)
