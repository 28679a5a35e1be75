"""Edit menu commands on what is on screen: the answer card and the chart of the tab shown (the
card's own Copy menu and the chart's context menu do the same from the mouse)."""

from __future__ import annotations

import os

from . import display_locale
from .history import RolesStep


def current_panel(window):
    """The analysis panel or the rule panel on screen (None on the start page or the data)."""
    name = window.current_panel_name()
    if name in (None, "data"):
        return None
    return window.rule_panel if name == "rule" else window.panels.get(name)


def current_card(window):
    """The answer card on screen, if it shows an answer."""
    panel = current_panel(window)
    if panel is None:
        return None
    card = panel.answer if panel is window.rule_panel else panel.card
    return card if card.sentences else None


def current_chart(window):
    """The chart of the panel on screen: the chart tab shown, else its first drawn chart."""
    panel = current_panel(window)
    from .panels.results_view import draw_late

    draw_late(panel)  # an analysis panel's tabs left for after its answer: drawn first
    charts = [c for c in getattr(panel, "charts", ()) if panel.tabs.isTabVisible(panel.tabs.indexOf(c))]
    if not charts:
        return None
    shown = panel.tabs.currentWidget()
    return shown if shown in charts else charts[0]


def _say(window, text: str) -> None:
    window.statusBar().showMessage(text, 6000)


def copy_answer(window, how: str = "text"):
    """``how``: "text" (the sentence and its signature), "markdown" or "image"."""
    card = current_card(window)
    if card is None:
        _say(window, "No answer on screen to copy.")
        return None
    done = {"text": card.copy_answer, "markdown": card.copy_markdown, "image": card.copy_image}[how]()
    _say(window, {"text": "Answer and signature copied.", "markdown": "Answer, table and signature copied "
                  "as Markdown.", "image": "Answer card copied as an image (2x)."}[how])
    return done


def save_card(window) -> str | None:
    card = current_card(window)
    if card is None:
        _say(window, "No answer on screen to save.")
        return None
    path = card.save_image_dialog()
    if path:
        _say(window, f"Answer card saved to {path}")
    return path


def copy_chart(window):
    chart = current_chart(window)
    if chart is None:
        _say(window, "No chart on screen to copy.")
        return None
    image = chart.copy_image()
    _say(window, f"Chart '{chart.title}' copied as an image (2x), its table as text.")
    return image


def save_chart(window) -> str | None:
    from PySide6.QtWidgets import QFileDialog

    chart = current_chart(window)
    if chart is None:
        _say(window, "No chart on screen to save.")
        return None
    path, chosen = QFileDialog.getSaveFileName(window, "Save the chart", f"{chart.title}.png",
                                               "PNG image (*.png);;SVG image (*.svg)")
    if not path:
        return None
    if not path.lower().endswith((".png", ".svg")):
        path += ".svg" if "svg" in chosen.lower() else ".png"
    try:
        chart.save(path)
    except OSError as err:
        window.warn("Chart not saved", f"The chart could not be saved to '{path}' ({err.strerror or err}).")
        return None
    _say(window, f"Chart saved to {os.path.basename(path)}")
    return path


class EditCommands:
    """The window's part of Edit (mixed into the main window): the columns' roles as undoable
    steps, and Settings (the numbers' locale)."""

    # -- the columns' roles ----------------------------------------------------------------
    def _on_roles_changed(self, roles: dict) -> None:
        before = dict(self.controller.roles)
        self._set_roles(roles)
        self.history.push(RolesStep(self.apply_roles, before, roles))

    def _set_roles(self, roles: dict) -> None:
        self.ensure_workspace()
        self.controller.set_roles(roles)
        self.workspace.set_roles(roles)
        self.controller.mark_dirty()

    def apply_roles(self, roles: dict) -> None:
        """Undo/redo of the columns' roles: the Columns list and every panel follow."""
        self.roles_table.blockSignals(True)
        self.roles_table.set_roles(list(self.roles_table._columns), roles)
        self.roles_table.blockSignals(False)
        self._set_roles(dict(roles))

    # -- numbers' locale --------------------------------------------------------------------
    def open_settings(self) -> None:
        """Edit > Settings: the numbers' locale (saved for the next start)."""
        from .settings_dialog import SettingsDialog

        dialog = SettingsDialog(self.settings.value(display_locale.KEY, "") or "", self.locale_override, self)
        if self.run_dialog(dialog):
            self.settings.setValue(display_locale.KEY, dialog.choice())
            self.set_display_locale(dialog.choice())

    def run_dialog(self, dialog) -> bool:
        """A modal dialog's answer (tests replace this to answer it)."""
        return bool(dialog.exec())

    def set_display_locale(self, name: str) -> None:
        """Show every number in the locale ``name`` ("" = the system's), now."""
        self.display_locale = name
        display_locale.apply(name)
        if self.workspace_ready:
            self.workspace.render_again()
            self.rule_panel.render_again()
            self.data.view.viewport().update()
        self.statusBar().showMessage(f"Numbers shown as {display_locale.describe(name)}.", 8000)


__all__ = ["EditCommands", "copy_answer", "copy_chart", "current_card", "current_chart", "current_panel", "save_card",
           "save_chart"]
