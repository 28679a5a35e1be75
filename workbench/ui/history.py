"""Edit > Undo and Redo: one history (a ``QUndoStack``) of what the analyst changed in the
window: every panel's settings (:mod:`.panels.undoable`: options, conventions, column choices,
a judgments file added or removed), the columns' roles and the release rule's text.  Each step
has a name ("Cut-offs k 1,3,5 -> 1,2,4 (Ranking)") shown in the menu; undoing it puts the
settings back and the panel runs again, so the answer follows.  The history belongs to the open
file: opening another file or a session starts a new one, and a session saves the settings,
not the history.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtGui import QAction, QKeySequence, QUndoCommand, QUndoStack
from PySide6.QtWidgets import QAbstractSpinBox, QApplication, QLineEdit

#: a pause in typing the rule this long (ms) ends one rule edit (so does leaving the editor)
RULE_PAUSE_MS = 800


class RolesStep(QUndoCommand):
    """The columns' roles changed: "Role of 'claims' success -> ignore"."""

    def __init__(self, apply, before: dict[str, str], after: dict[str, str]) -> None:
        super().__init__()
        from ..io.roles import ROLES  # the role names as the Columns list shows them

        self.apply, self.before, self.after = apply, dict(before), dict(after)
        self._done = True
        changed = [c for c in dict.fromkeys([*before, *after])
                   if before.get(c, "ignore") != after.get(c, "ignore")]

        def label(key: str) -> str:
            return ROLES.get(key, key)

        parts = [f"Role of '{c}' {label(before.get(c, 'ignore'))} -> {label(after.get(c, 'ignore'))}"
                 for c in changed[:2]]
        more = f" and {len(changed) - 2} more" if len(changed) > 2 else ""
        self.setText("; ".join(parts) + more if parts else "Column roles")

    def undo(self) -> None:
        self.apply(self.before)

    def redo(self) -> None:
        if self._done:
            self._done = False
            return
        self.apply(self.after)


class ReadingStep(QUndoCommand):
    """A decision of how the file is read, made once for every panel: "Scorer 'match' ->
    'model_graded_qa'", "Errored records left out -> counted as failures"."""

    ERRORS = {"exclude": "left out", "fail": "counted as failures"}

    def __init__(self, apply, before, after) -> None:
        super().__init__()
        self.apply, self.before, self.after = apply, before, after
        self._done = True
        parts = []
        if before.scorer != after.scorer:
            parts.append(f"Scorer {_name(before.scorer)} -> {_name(after.scorer)}")
        if before.errors != after.errors:
            parts.append(f"Errored records {self.ERRORS.get(before.errors, before.errors)} -> "
                         f"{self.ERRORS.get(after.errors, after.errors)}")
        if before.label_map != after.label_map:
            parts.append("Judge's labels in people's words")
        self.setText("; ".join(parts) or "How the file is read")

    def undo(self) -> None:
        self.apply(self.before)

    def redo(self) -> None:
        if self._done:
            self._done = False
            return
        self.apply(self.after)


def _name(scorer) -> str:
    return f"'{scorer}'" if scorer else "the file's primary"


class RuleStep(QUndoCommand):
    """An edit of the release rule's text: typing up to a pause (the keystrokes of one burst
    merge into one step), New, Open."""

    def __init__(self, recorder: RuleRecorder, before: str, after: str, burst: int) -> None:
        super().__init__()
        self.recorder, self.before, self.after, self.burst = recorder, before, after, burst
        self._done = True
        self._name()

    def _name(self) -> None:
        old, new = self.before.splitlines(), self.after.splitlines()
        line = next((i for i, (a, b) in enumerate(zip(old, new)) if a != b), min(len(old), len(new)))
        self.setText(f"Release rule edit (line {line + 1})" if self.before.strip() and self.after.strip()
                     else "Release rule " + ("written" if self.after.strip() else "cleared"))

    def id(self) -> int:  # noqa: A003 - Qt's name
        return 4802

    def mergeWith(self, other) -> bool:  # noqa: N802 - Qt's name
        if not isinstance(other, RuleStep) or other.burst != self.burst:
            return False
        self.after = other.after
        self._name()
        if self.before == self.after:
            self.setObsolete(True)
        return True

    def undo(self) -> None:
        self.recorder.apply(self.before)

    def redo(self) -> None:
        if self._done:
            self._done = False
            return
        self.recorder.apply(self.after)


class RuleRecorder(QObject):
    """Turns the rule editor's typing into history steps, one per burst of typing (a pause of
    :data:`RULE_PAUSE_MS` or leaving the editor ends it).  The editor's own undo is off:
    Ctrl+Z in the editor is the window's, so the editor and the menu never disagree."""

    def __init__(self, rule_panel, push) -> None:
        super().__init__(rule_panel)
        self.panel, self.editor, self._push = rule_panel, rule_panel.editor, push
        self.editor.document().setUndoRedoEnabled(False)
        self.committed = self.editor.toPlainText()
        self.burst = 0
        self._applying = False
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(RULE_PAUSE_MS)
        self.timer.timeout.connect(self.commit)
        self.editor.textChanged.connect(self._typed)
        self.editor.installEventFilter(self)

    def _typed(self) -> None:
        if self._applying:
            return
        text = self.editor.toPlainText()
        if text != self.committed:
            before, self.committed = self.committed, text
            self._push(RuleStep(self, before, text, self.burst))
        self.timer.start()

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt's name
        if event.type() == QEvent.Type.FocusOut:
            self.commit()
        return False

    def commit(self) -> None:
        """The burst of typing is over: the next keystroke starts another step."""
        self.timer.stop()
        self.burst += 1

    def reset(self) -> None:
        """The rule as it is now is where the history starts (a session opened)."""
        self.commit()
        self.committed = self.editor.toPlainText()

    def apply(self, text: str) -> None:
        self.commit()
        self._applying = True
        try:
            cursor = self.editor.textCursor().position()
            self.editor.setPlainText(text)
            moved = self.editor.textCursor()
            moved.setPosition(min(cursor, len(text)))
            self.editor.setTextCursor(moved)
        finally:
            self._applying = False
        self.committed = text


class History(QObject):
    """The window's undo stack and its Edit menu actions (``undo_action``, ``redo_action``)."""

    def __init__(self, window) -> None:
        super().__init__(window)
        self.window = window
        self.stack = QUndoStack(self)
        self.rule: RuleRecorder | None = None
        self.undo_action = QAction("&Undo", window)
        self.undo_action.setObjectName("undoAction")
        self.undo_action.setShortcuts(QKeySequence.keyBindings(QKeySequence.StandardKey.Undo))
        self.undo_action.triggered.connect(lambda _c=False: self.undo())
        self.redo_action = QAction("&Redo", window)
        self.redo_action.setObjectName("redoAction")
        redo_keys = [QKeySequence("Ctrl+Shift+Z")] + [k for k in QKeySequence.keyBindings(
            QKeySequence.StandardKey.Redo) if k != QKeySequence("Ctrl+Shift+Z")]
        self.redo_action.setShortcuts(redo_keys)
        self.redo_action.triggered.connect(lambda _c=False: self.redo())
        self.stack.indexChanged.connect(lambda _i: self._refresh())
        self.stack.cleanChanged.connect(lambda _c: self._refresh())
        self._refresh()

    # -- what is recorded --------------------------------------------------------------------
    def watch_panel(self, panel) -> None:
        panel.edit_made.connect(self.push)

    def watch_rule(self, rule_panel) -> None:
        self.rule = RuleRecorder(rule_panel, self.push)
        rule_panel.editor.setProperty("optionField", True)  # Ctrl+Z there is the history's

    def push(self, step: QUndoCommand) -> None:
        self.stack.push(step)

    def clear(self) -> None:
        """Another file or a session: a new history."""
        self.stack.clear()
        if self.rule is not None:
            self.rule.reset()

    # -- undo and redo -------------------------------------------------------------------------
    def flush(self) -> None:
        """What is being typed becomes its own step first (a k list not yet confirmed with
        Enter, the rule's last words), so Undo takes back what the user sees."""
        focus = QApplication.focusWidget()
        if isinstance(focus, QLineEdit) and focus.property("optionField") and focus.isModified():
            focus.editingFinished.emit()
        elif isinstance(focus, QAbstractSpinBox) and focus.property("optionField"):
            focus.interpretText()
        if self.rule is not None:
            self.rule.commit()

    def undo(self) -> None:
        self.flush()
        step = self.stack.command(self.stack.index() - 1) if self.stack.canUndo() else None
        self.stack.undo()
        self._show(step)

    def redo(self) -> None:
        self.flush()
        step = self.stack.command(self.stack.index()) if self.stack.canRedo() else None
        self.stack.redo()
        self._show(step)

    def _show(self, step) -> None:
        """The tab of the setting that changed comes on screen (as a spreadsheet shows the cell)."""
        if step is None:
            return
        panel = getattr(step, "panel", None)
        if isinstance(step, RuleStep):
            self.window.show_panel("rule")
        elif panel is not None and panel.objectName().startswith("panel:"):
            self.window.show_panel(panel.objectName().removeprefix("panel:"))

    def _refresh(self) -> None:
        import shiboken6

        if not (shiboken6.isValid(self.stack) and shiboken6.isValid(self.undo_action)):
            return  # the window is going: the stack empties itself as it is deleted
        for act, can, text, word in ((self.undo_action, self.stack.canUndo(), self.stack.undoText(), "Undo"),
                                     (self.redo_action, self.stack.canRedo(), self.stack.redoText(), "Redo")):
            act.setEnabled(can)
            shown = f"&{word}: {text.replace('&', '&&')}" if can and text else f"&{word}"
            act.setText(shown)
            act.setToolTip(f"{word}: {text}" if can and text else f"Nothing to {word.lower()}")
            act.setStatusTip(act.toolTip())


__all__ = ["History", "RolesStep", "RuleRecorder", "RuleStep"]
