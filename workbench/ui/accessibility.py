"""Keyboard and screen reader: every focusable widget has an accessible name and description
(Qt's accessibility API, read by Orca, NVDA and VoiceOver), the answer card announces a new
answer, and no widget traps the Tab key.

The panels name their fields from their declarative form (the label, the tooltip); what is
left (a tab bar, a result table made on first use, a button without text) gets its name here
from what a sighted user reads: its text, its tooltip, its buddy label, its tab's title.
:func:`name_all` runs after a panel is built and after each render, so every panel, including
those added later, is covered without code of its own.
"""

from __future__ import annotations

import re

from PySide6.QtCore import Qt
from PySide6.QtGui import QAccessible, QAccessibleEvent
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractScrollArea,
    QAbstractSlider,
    QAbstractSpinBox,
    QComboBox,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QScrollArea,
    QTabBar,
    QTabWidget,
    QTextEdit,
    QWidget,
)


def name(widget: QWidget, text: str, description: str = "") -> None:
    """Set a widget's accessible name (and description, when given)."""
    widget.setAccessibleName(text)
    if description:
        widget.setAccessibleDescription(description)


def focusable(widget: QWidget) -> bool:
    """Whether the widget can take the keyboard (by Tab, a click or the wheel)."""
    return widget.focusPolicy() != Qt.FocusPolicy.NoFocus


def _plain(text: str) -> str:
    """Menu-style text without its mnemonic "&", HTML tags or surplus space."""
    text = re.sub(r"<[^>]+>", " ", text or "")
    text = text.replace("&&", "\0").replace("&", "").replace("\0", "&")
    return " ".join(text.split())


def _humane(object_name: str) -> str:
    """``table:per_query`` -> "Table per query"; ``runButton`` -> "Run button"."""
    text = re.sub(r"([a-z])([A-Z])", r"\1 \2", object_name.replace(":", " ").replace("_", " "))
    text = " ".join(text.split())
    return text[:1].upper() + text[1:]


def _buddies(root: QWidget) -> dict[int, str]:
    """Widget id -> the text of the label that names it (a QLabel's buddy, or a form row's label)."""
    out: dict[int, str] = {}
    for label in root.findChildren(QLabel):
        buddy = label.buddy()
        if buddy is not None and label.text():
            out[id(buddy)] = _plain(label.text()).rstrip(":")
    return out


def derive(widget: QWidget, buddies: dict[int, str]) -> str:
    """The name a sighted user reads for ``widget``."""
    if id(widget) in buddies:
        return buddies[id(widget)]
    parent = widget.parentWidget()
    if isinstance(widget, QAbstractButton) and _plain(widget.text()) not in ("", "…", "×", "▸"):
        return _plain(widget.text())
    if isinstance(parent, QAbstractScrollArea) and widget is parent.viewport():
        return parent.accessibleName() or _humane(parent.objectName()) or "View"  # a chart's drawing area
    if isinstance(widget, QTabBar):
        tabs = [_plain(widget.tabText(i)) for i in range(widget.count()) if widget.isTabVisible(i)]
        owner = parent.accessibleName() if isinstance(parent, QTabWidget) and parent.accessibleName() else "Tabs"
        return f"{owner}: {', '.join(tabs[:6])}{'…' if len(tabs) > 6 else ''}" if tabs else owner
    if isinstance(widget, QLineEdit) and isinstance(parent, (QAbstractSpinBox, QComboBox)) and parent.accessibleName():
        return parent.accessibleName()
    if isinstance(widget, QAbstractItemView) and parent is not None and parent.inherits("QComboBoxPrivateContainer"):
        combo = parent.parentWidget()
        return f"Choices of {combo.accessibleName() or 'the list'}" if combo is not None else "Choices"
    if widget.toolTip():
        return _plain(widget.toolTip()).split(". ")[0][:80]
    if isinstance(widget, QLineEdit) and widget.placeholderText():
        return widget.placeholderText()
    if isinstance(widget, QAbstractSlider):
        return "Vertical scroll bar" if widget.orientation() == Qt.Orientation.Vertical else "Horizontal scroll bar"
    if widget.objectName() and not widget.objectName().startswith("qt_"):
        return _humane(widget.objectName())
    if isinstance(widget, QAbstractItemView):
        return "Table"
    if isinstance(widget, (QPlainTextEdit, QTextEdit)):
        return "Text"
    return type(widget).__name__.removeprefix("Q")


def name_all(root: QWidget) -> int:
    """Give every focusable widget under ``root`` (hidden ones too) an accessible name and a
    description where it has none; returns how many were named here."""
    buddies = _buddies(root)
    named = 0
    for widget in [root, *root.findChildren(QWidget)]:
        if isinstance(widget, QScrollArea) and widget.widget() is not None and widget.property("scrollStop") is None:
            # a scroll area is not a stop of its own: what it holds is (and is scrolled to)
            widget.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        if not focusable(widget):
            continue
        if not widget.accessibleName():
            widget.setAccessibleName(derive(widget, buddies))
            named += 1
        if not widget.accessibleDescription():
            tip = _plain(widget.toolTip())
            if tip and tip != widget.accessibleName():
                widget.setAccessibleDescription(tip)
    return named


def no_tab_traps(root: QWidget) -> None:
    """Tab leaves tables and text editors (arrows move inside a table; a rule needs no tab
    characters), so Tab walks every control of a panel."""
    for view in root.findChildren(QAbstractItemView):
        view.setTabKeyNavigation(False)
    for editor in root.findChildren(QPlainTextEdit):
        editor.setTabChangesFocus(True)
    for editor in root.findChildren(QTextEdit):
        editor.setTabChangesFocus(True)


def announce(widget: QWidget, text: str) -> None:
    """Tell a screen reader that ``widget`` now says ``text`` (a live region's "polite" update):
    its description changes, an announcement event carries the text."""
    widget.setAccessibleDescription(text)
    QAccessible.updateAccessibility(QAccessibleEvent(widget, QAccessible.Event.DescriptionChanged))
    try:
        from PySide6.QtGui import QAccessibleAnnouncementEvent  # Qt 6.8 and later
    except ImportError:  # pragma: no cover - older Qt: an alert says it
        QAccessible.updateAccessibility(QAccessibleEvent(widget, QAccessible.Event.Alert))
        return
    if text:
        QAccessible.updateAccessibility(QAccessibleAnnouncementEvent(widget, text))


def unnamed(root: QWidget) -> list[QWidget]:
    """The focusable widgets under ``root`` without an accessible name (tests, the self-check)."""
    return [w for w in [root, *root.findChildren(QWidget)] if focusable(w) and not w.accessibleName()]


__all__ = ["announce", "derive", "focusable", "name", "name_all", "no_tab_traps", "unnamed"]
