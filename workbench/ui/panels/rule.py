"""The release rule: written (or loaded) and registered before the results are seen, then the
decision card evaluated on the loaded data.

Registering records the rule's SHA-256 and the time in the session.  A rule registered (or
edited and registered again) after any result was shown is still allowed, but the card and
the report say "rule changed after results were seen".
"""

from __future__ import annotations

import datetime as _dt
import re

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont, QFontDatabase
from PySide6.QtWidgets import (QFileDialog, QHBoxLayout, QLabel, QLineEdit, QPlainTextEdit, QPushButton,
                               QScrollArea, QSplitter, QVBoxLayout, QWidget)

from ...core.errors import WorkbenchError
from ...core.session import Session, atomic_write_text, sha256_text
from ...rules import card_rows, evaluate, parse_rule, rule_changed, verdict_of
from ..models import FrameModel
from ..tasks import TaskRunner
from .. import accessibility, presenting
from ..widgets import AnswerCard, BusyBar, FollowMinimumWidth, TableView
from .base import PanelMessages, notes_html
from . import rule_conventions
from .rule_baseline import BaselineStrip
from .rule_template import rule_template

VERDICT_COLOURS = {"PASS": "#1b7f3b", "FAIL": "#b3261e", "INCONCLUSIVE": "#a05a00"}
CARD_COLUMNS = ("condition", "status", "observed", "interval", "n", "threshold", "requirement",
                "counts", "p_value", "p_holm", "more_items", "reason")
CARD_HEADERS = {"condition": "Condition", "status": "Status", "observed": "Observed",
                "interval": "95% interval", "n": "n", "threshold": "Threshold",
                "requirement": "Requirement", "counts": "Counts", "p_value": "p", "p_holm": "p (Holm)",
                "more_items": "Items to decide", "reason": "Why"}


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
        self.roles: dict[str, str] = {}
        self.last_result = None
        self.last_input_sha256: str | None = None
        #: the shown decision was evaluated from the registered rule (else it is a draft)
        self.last_result_registered = False
        self.last_error: str | None = None
        self.rule_path: str | None = None  # the rule file opened or saved: its folder holds the baselines
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
        intro = QLabel("<b>Release rule</b> — write it before you look at the results. "
                       "TOML; every condition states its threshold, test and interval.")
        intro.setWordWrap(True)
        ll.addWidget(intro)
        self.editor = QPlainTextEdit()
        self.editor.setObjectName("ruleEditor")
        font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        font.setStyleHint(QFont.StyleHint.Monospace)
        self.editor.setFont(font)
        self.editor.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.editor.setMinimumWidth(200)
        self.editor.setPlaceholderText("Start from the template (New) or open a rule file.")
        self.editor.textChanged.connect(self._on_text_changed)
        ll.addWidget(self.editor, 1)
        row = QHBoxLayout()
        self.new_button = QPushButton("New")
        self.new_button.setObjectName("newRule")
        self.new_button.setToolTip("A rule for the loaded data: its columns and systems filled in.")
        for button, slot in ((self.new_button, self.new_rule), (QPushButton("Open…"), self.open_dialog),
                             (QPushButton("Save…"), self.save_dialog)):
            button.clicked.connect(lambda _c=False, f=slot: f())
            row.addWidget(button)
        self.register_button = QPushButton("Register")
        self.register_button.setObjectName("registerRule")
        self.register_button.setToolTip("Records the rule's SHA-256 and the time in the session.")
        self.register_button.clicked.connect(self.register)
        ll.addLayout(row)
        ll.addWidget(self.register_button)  # a line of its own: the editor's column stays narrow
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        ll.addWidget(self.status)
        split.addWidget(left)
        self.editor_box = left

        right = QWidget()
        rl = QVBoxLayout(right)
        head = QHBoxLayout()
        self.verdict = QLabel("No decision yet")
        self.verdict.setObjectName("verdict")
        self.verdict.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.verdict.setMinimumHeight(48)
        head.addWidget(self.verdict, 1)
        self.verdict.setWordWrap(True)
        self.evaluate_button = QPushButton("Evaluate")
        self.evaluate_button.setObjectName("evaluateRule")
        self.evaluate_button.setToolTip("Evaluate the rule in the editor on the loaded data. It does not "
                                        "register the rule: an unregistered rule gives a draft decision.")
        self.evaluate_button.clicked.connect(lambda: self.evaluate_now())
        head.addWidget(self.evaluate_button)
        self.conventions_button = rule_conventions.button(self.check_conventions)
        head.addWidget(self.conventions_button)
        rl.addLayout(head)
        rl.addWidget(self._make_baseline_strip())
        self.busy = BusyBar()
        self.busy.cancel_requested.connect(self.runner.cancel)
        rl.addWidget(self.busy)
        self.message = QLabel()
        self.message.setWordWrap(True)
        rl.addWidget(self.message)
        self.answer = AnswerCard()
        self.answer.keep_whole = True  # its column scrolls rather than cut it (a 200% screen)
        self.answer.set_sources(signature=lambda: self.last_result.signature if self.last_result else "",
                                table=lambda: self.card, title=lambda: "Release decision")
        rl.addWidget(self.answer)
        self.card = TableView(FrameModel())
        self.card.setObjectName("decisionCard")
        self.card.setWordWrap(True)
        rl.addWidget(self.card, 3)
        self.conventions_view = rule_conventions.view()  # after "Conventions"
        rl.addWidget(self.conventions_view, 2)
        self.notes = QLabel()
        self.notes.setWordWrap(True)
        self.notes.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.notes.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(self.notes)
        scroll.setVisible(False)  # shown with notes: an empty box takes no room from the card
        self.notes_scroll = scroll
        rl.addWidget(scroll, 2)
        sig_row = QHBoxLayout()  # one line that scrolls: a long signature never widens the window
        sig_label = QLabel("Signature:")
        sig_row.addWidget(sig_label)
        self.signature = QLineEdit()
        self.signature.setReadOnly(True)
        self.signature.setObjectName("ruleSignature")
        self.signature.setToolTip("Every convention of the rule's evaluation.")
        sig_label.setBuddy(self.signature)
        sig_row.addWidget(self.signature, 1)
        rl.addLayout(sig_row)
        # the decision's column scrolls when the window is short (a 200% screen): the verdict and
        # the answer keep their whole height at the top instead of being squeezed under the table
        right_scroll = QScrollArea()
        right_scroll.setWidgetResizable(True)
        right_scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        right_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        right_scroll.setWidget(right)
        self._right_width = FollowMinimumWidth(right, right_scroll)  # scrolls down, never sideways
        split.addWidget(right_scroll)
        split.setSizes([380, 800])
        split.setChildrenCollapsible(False)
        split.setStretchFactor(1, 1)
        self._refresh_status()
        self.editor.setAccessibleName("Release rule (TOML)")
        self.editor.setAccessibleDescription("The release rule: written and registered before the results "
                                             "are seen. Tab leaves the editor.")
        self.setAccessibleName("Release rule panel")
        accessibility.no_tab_traps(self)
        accessibility.name_all(self)

    def _make_baseline_strip(self) -> BaselineStrip:
        """The blessed baseline of the rule's folder and "Bless this run as baseline…"."""
        self.baseline_strip = BaselineStrip(lambda: self.table, lambda: self.rule_path)
        self.baseline_strip.message.connect(lambda text, err: (self._show_error if err else self._show_message)(text))
        return self.baseline_strip

    def set_presentation(self, on: bool) -> None:
        """Presentation mode: the decision takes the width, the editor folds away."""
        self.editor_box.setVisible(not on)
        self.card.resizeRowsToContents()
        self.answer.set_scale(1.5 if on else 1.0)

    # -- rule text -----------------------------------------------------------------------------
    def rule_text(self) -> str:
        return self.editor.toPlainText()

    def set_rule_text(self, text: str) -> None:
        self.editor.blockSignals(True)
        self.editor.setPlainText(text)
        self.editor.blockSignals(False)
        self._refresh_status()

    def new_rule(self) -> None:
        self.editor.setPlainText(rule_template(self.table, self.roles))

    def open_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open a release rule", "", "Rules (*.toml);;All files (*)")
        if path:
            self.open_path(path)

    def open_path(self, path: str) -> None:
        try:
            with open(path, encoding="utf-8") as fh:
                self.editor.setPlainText(fh.read())
            self.rule_path = path
            self.baseline_strip.refresh()
        except OSError as err:
            self._show_error(f"The rule file '{path}' cannot be read ({err.strerror or err}).")

    def save_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Save the release rule", "release-rule.toml", "Rules (*.toml)")
        if path:
            try:
                atomic_write_text(path, self.rule_text())
            except OSError as err:
                self._show_error(f"The rule could not be saved to '{path}' ({err.strerror or err}); "
                                 f"a rule file already there is unchanged.")
                return
            self.rule_path = path
            self.baseline_strip.refresh()

    def shutdown(self) -> None:
        """The window closes: the evaluation is cancelled and detached, nothing starts again."""
        self.runner.detach()
        self.baseline_strip.shutdown()

    def _on_text_changed(self) -> None:
        self._refresh_status()

    # -- registration --------------------------------------------------------------------------
    def register(self) -> bool:
        """Parse the rule and record its hash and time; False (with a message) if it is invalid."""
        text = self.rule_text()
        try:
            rule = parse_rule(text, source="the rule editor")
        except WorkbenchError as err:
            self.clear_result()  # no decision beside the error: it would read as this rule's
            self._show_error(editor_message(str(err), self.rule_text()))
            self._go_to_error_line(str(err))
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

    def _go_to_error_line(self, message: str) -> None:
        """Put the editor's cursor on the line an error names."""
        match = re.search(r"line (\d+)", message)
        if not match:
            return
        block = self.editor.document().findBlockByNumber(int(match.group(1)) - 1)
        if block.isValid():
            cursor = self.editor.textCursor()
            cursor.setPosition(block.position())
            self.editor.setTextCursor(cursor)
            self.editor.centerCursor()

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
    def set_data(self, table, roles: dict[str, str] | None = None) -> None:
        if table is not self.table:
            self.clear_result()
        self.table = table
        self.roles = dict(roles or {})
        self.baseline_strip.refresh()
        session: Session = self._session()
        if table is not None and session.rule_sha256 and session.rule_sha256 == sha256_text(self.rule_text()):
            self.evaluate_now()

    def evaluate_now(self, *, conventions: bool = False) -> None:
        """Evaluate the rule in the editor on the loaded data (``conventions``: and under each)."""
        if self.table is None:
            self._show_message("Open a results file to evaluate the rule on it.")
            return
        try:
            rule = parse_rule(self.rule_text(), source="the rule editor")
        except WorkbenchError as err:
            self.clear_result()  # no decision beside the error: it would read as this rule's
            self._show_error(editor_message(str(err), self.rule_text()))
            return
        session: Session = self._session()
        registered = session.rule_sha256 == rule.sha256
        if registered and session.rule_registered_at:
            # the time the session recorded is the registration the card and the report state
            # (a rule's own free-text `registered` line, if any, follows it)
            from dataclasses import replace

            own = f"; the rule says: {rule.registered}" if rule.registered else ""
            rule = replace(rule, registered=f"{session.rule_registered_at}{own}")
        tables, changed = [self.table], bool(session.rule_changed_after_results) and registered
        self._running = (registered, getattr(self.table, "sha256", None))
        if conventions:
            self.busy.start("Judging the rule under each convention…")
            self.runner.start(rule_conventions.job(rule, tables, changed, getattr(self, "reading", None)))
            return
        self.busy.start("Evaluating the rule…")
        reading = getattr(self, "reading", None)  # the window's one reading of the file
        self.runner.start(lambda progress: evaluate(rule, tables, rule_changed_after_results=changed,
                                                    progress=progress, reading=reading))

    def check_conventions(self) -> None:
        """The "Conventions" button: the verdict under each alternative convention."""
        self.evaluate_now(conventions=True)

    def clear_result(self) -> None:
        """No decision on screen (another file was opened)."""
        self.runner.cancel()
        self.last_result = None
        self.last_input_sha256 = None
        self.last_result_registered = False
        self.verdict.setText("No decision yet")
        self.verdict.setStyleSheet("")
        self.card.frame_model().set_frame(pd_empty())
        rule_conventions.clear(self.conventions_view)
        self.notes.setText("")
        self.notes_scroll.setVisible(False)
        self.signature.setText("")
        self.answer.clear()

    def _on_failed(self, error: object, details: str) -> None:
        if isinstance(error, WorkbenchError):
            self.clear_result()
            text = str(error)
            if self.table is not None and self.table.path in text:  # the file by its name
                text = text.replace(self.table.path, self.table.name)
            self._show_error(editor_message(text, self.rule_text()))
        else:
            super()._on_failed(error, details)

    def _on_result(self, result) -> None:
        registered, sha = getattr(self, "_running", (False, None))
        self.last_result = result
        self.last_input_sha256 = sha
        self.last_result_registered = registered
        self.last_error = None
        self._render(result, registered)
        self.result_ready.emit(result)

    def render_again(self) -> None:
        """Draw the decision again (the numbers' locale changed)."""
        if self.last_result is not None:
            self._render(self.last_result, self.last_result_registered)

    def _render(self, result, registered: bool) -> None:
        verdict = verdict_of(result)
        colour = VERDICT_COLOURS.get(verdict, "#444")
        changed = " — rule changed after results were seen" if rule_changed(result) else ""
        if not registered:
            verdict, colour = f"DRAFT: {verdict}", "#4a5560"
            changed = " — rule not registered"
            self._show_message("This rule is not registered, so this decision is a draft: it is not "
                               "in the session or the report. Register the rule to make it the "
                               "release decision.")
        else:
            self._show_message("")
        self.verdict.setText(verdict + changed)
        self.verdict.setStyleSheet(f"background: {colour}; color: white; font-size: 18pt; font-weight: bold;"
                                   f" border-radius: 6px; padding: 6px;")
        import pandas as pd

        rows = card_rows(result)
        frame = pd.DataFrame([{c: r.get(c, "") for c in CARD_COLUMNS} for r in rows], columns=list(CARD_COLUMNS))
        with self.card.one_rewrap():  # the rows' heights once, for the final widths
            self.card.frame_model().set_frame(frame, headers=CARD_HEADERS)
            # the condition's words wrap, so its observed value and interval stay on screen at 1280
            self.card.fit_columns(max_width=max(140, self.fontMetrics().averageCharWidth() * 22))
            self.card.wrap_text()
        ans = presenting.answer(result)
        if ans is not None:
            sentences = ans.sentences if registered else (
                *ans.sentences[:1], "Draft: the rule is not registered, so this is not the release decision.")
            self.answer.set_answer(sentences, "", ans.tone)  # the verdict banner is the badge
        self.card.resizeRowsToContents()
        if sentence := rule_conventions.show(self.conventions_view, result):
            self._show_message(sentence + ("" if registered else " (a draft: the rule is not registered)"))
        self.notes.setText(notes_html(result.notes))
        self.notes_scroll.setVisible(bool(result.notes))
        self.signature.setText(result.signature)
        self.signature.setCursorPosition(0)


def pd_empty():
    import pandas as pd

    return pd.DataFrame()


_CONDITION = re.compile(r"\[\[condition\]\] (\d+) \(([^)]*)\) of rule file '[^']*' reads input \d+: ")
_LINE_CONDITION = re.compile(r"Rule file '[^']*' line (\d+), \[\[condition\]\] (\d+): ")
_LINE_SECTION = re.compile(r"Rule file '[^']*' line (\d+), \[(\w+)\]: ")
_RULE_FILE = re.compile(r"Rule file '[^']*'(, | )")


def condition_line(text: str, index: int) -> int | None:
    """The editor line (1-based) where the ``index``-th ``[[condition]]`` starts."""
    seen = 0
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip().startswith("[[condition]]"):
            seen += 1
            if seen == index:
                return number
    return None


def editor_message(message: str, text: str) -> str:
    """A rule error as the user of the editor reads it: "Condition 1 (success, line 12): the
    data has no column 'outcome'…" instead of the command line's file-oriented wording."""
    match = _CONDITION.search(message)
    if match:
        index, metric = int(match.group(1)), match.group(2)
        line = condition_line(text, index)
        where = f"Condition {index} ({metric}{f', line {line}' if line else ''}) cannot be checked on the loaded data: "
        message = message[:match.start()] + where + message[match.end():]
    message = _LINE_CONDITION.sub(lambda m: f"Line {m.group(1)} of the rule (condition {m.group(2)}): ", message)
    message = _LINE_SECTION.sub(lambda m: f"Line {m.group(1)} of the rule ([{m.group(2)}]): ", message)
    message = _RULE_FILE.sub(lambda m: "The rule in the editor" + (", " if m.group(1) == ", " else " "), message)
    return message.replace("rule file 'the rule editor'", "the rule in the editor")
