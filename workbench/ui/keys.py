"""The window's shortcuts from inside a field.

On Linux desktops a line edit takes Ctrl+E (end of line), and every text field takes Ctrl+Z
for its own typing, so Export report, the panel keys and Undo did nothing while the cursor was
in an option field (a k list, a number of resamples).  This filter lets the window's own
shortcuts through from the fields of the window: a key that is one of the window's actions
goes to that action, except the keys a text field needs for text (copy, paste, cut, select
all, moving the cursor).  Undo and Redo go to the window's history from the panels' option
fields and the rule editor (whose typing the history records), not from other text boxes.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QComboBox,
    QLineEdit,
    QPlainTextEdit,
    QTextEdit,
    QWidget,
)

#: keys a text field keeps for its text, whatever the window binds them to (the window's other
#: keys win: Ctrl+E exports, though a Linux line edit would move to the end of the line)
_TEXT_KEYS = (QKeySequence.StandardKey.Copy, QKeySequence.StandardKey.Cut, QKeySequence.StandardKey.Paste,
              QKeySequence.StandardKey.SelectAll, QKeySequence.StandardKey.Delete)
_FIELDS = (QLineEdit, QAbstractSpinBox, QComboBox, QPlainTextEdit, QTextEdit)


def _bindings(keys) -> set[str]:
    out = set()
    for key in keys:
        out.update(k.toString() for k in QKeySequence.keyBindings(key))
    return out


def is_option_field(widget) -> bool:
    """A field of a panel's form (or the rule editor): marked ``optionField`` by the form."""
    for _ in range(4):
        if widget is None:
            return False
        if widget.property("optionField"):
            return True
        widget = widget.parentWidget()
    return False


class WindowKeys(QObject):
    """An event filter on the window's fields: the window's shortcuts win over a field's own
    use of them.  It watches the fields only (:meth:`watch`), not every event of the program."""

    def __init__(self, window) -> None:
        super().__init__(window)
        self.window = window
        self._text = _bindings(_TEXT_KEYS)
        self._undo = _bindings((QKeySequence.StandardKey.Undo,))
        self._redo = _bindings((QKeySequence.StandardKey.Redo,)) | {"Ctrl+Shift+Z"}

    def window_keys(self) -> set[str]:
        """Every shortcut of the window's actions (menus, panels' View keys)."""
        keys = set()
        for act in self.window.findChildren(QAction):
            if act.isEnabled():
                keys.update(k.toString() for k in act.shortcuts())
        return keys

    def routed(self, widget, sequence: str) -> bool:
        """Whether ``sequence`` pressed in ``widget`` goes to the window's action."""
        if not isinstance(widget, _FIELDS) and not isinstance(widget.parentWidget(), _FIELDS):
            return False
        if not isinstance(widget, QWidget) or widget.window() is not self.window:
            return False  # a dialog's fields keep their keys
        if sequence in self._undo or sequence in self._redo:
            # the history's, when it has a step to take; else the field undoes its own typing
            act = getattr(self.window, "undo_action" if sequence in self._undo else "redo_action", None)
            return is_option_field(widget) and act is not None and act.isEnabled()
        if sequence in self._text:
            return False
        return sequence in self.window_keys()

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt's name
        if event.type() == QEvent.Type.ShortcutOverride and isinstance(obj, QWidget):
            sequence = QKeySequence(event.keyCombination()).toString()
            if self.routed(obj, sequence):
                return True  # the field does not claim the key: the window's shortcut runs
        return False


    def watch(self, root: QWidget) -> int:
        """Filter the keys of every option field under ``root`` (and of the line edit inside a
        spin box or a file field); returns how many widgets are watched."""
        watched = 0
        for widget in [root, *root.findChildren(QWidget)]:
            if isinstance(widget, _FIELDS) and is_option_field(widget) and not widget.property("keysWatched"):
                widget.installEventFilter(self)
                widget.setProperty("keysWatched", True)
                watched += 1
        return watched


def install(window) -> WindowKeys:
    """The window's key filter; the window calls :meth:`WindowKeys.watch` on its panels."""
    return WindowKeys(window)


__all__ = ["WindowKeys", "install", "is_option_field"]
