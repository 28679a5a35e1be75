"""The window's part of one reading of a file (mixed into the main window): the "What this
file holds" dock, the reading a new file starts with, and the scorer and error decisions made in
its card, each one step of Edit > Undo, every panel following."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QScrollArea


class ReadingCommands:
    """Needs ``reading_card``, ``workspace``, ``controller``, ``roles_table``, ``history``."""

    def _make_reading_dock(self):
        """The card in a dock that scrolls it (a short dock never squeezes its tables)."""
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidget(self.reading_card)
        self.reading_card.reading_changed.connect(self._on_reading_changed)
        return self._dock("What this file holds", "readingDock", scroll)

    def _show_reading_dock(self) -> None:
        """The dock, with a good share of the left column the first time it shows."""
        if self.reading_dock.isVisible():
            return
        self.reading_dock.setVisible(True)
        tall = max(200, int(self.height() * 0.42))
        self.resizeDocks([self.reading_dock, self.roles_dock], [tall, max(160, self.height() - tall - 260)],
                         Qt.Orientation.Vertical)

    def _reading_on_load(self, loaded):
        """The reading a newly loaded file starts with (the session's, else the tool's primary
        scorer) and the roles it gives the columns."""
        from ..analyses.reading import roles_for
        from .workspace import reading_from_json

        table, roles = loaded.table, loaded.roles
        reading = reading_from_json(loaded.session.reading if loaded.session is not None else None)
        self.workspace.set_reading(reading, run=False)
        if loaded.session is None or reading.scorer is not None:
            roles = roles_for(table, roles, reading)
            if roles != loaded.roles:
                self.controller.set_roles(roles)
        return reading, roles

    def _on_reading_changed(self, reading) -> None:
        """A scorer or error decision in the card: every panel reads the file so (one step of
        Edit > Undo)."""
        from .history import ReadingStep

        self.ensure_workspace()
        before = self.workspace.reading
        self._set_reading(reading)
        if before != reading:
            self.history.push(ReadingStep(self.apply_reading, before, reading))

    def apply_reading(self, reading) -> None:
        """Undo/redo of a reading decision: the card shows it and every panel follows."""
        self.reading_card.set_reading(reading)
        self._set_reading(reading)
        if self.table is not None:
            self.reading_card._describe()  # the card's counts under the restored decision

    def _set_reading(self, reading) -> None:
        from .workspace import reading_to_json

        roles = self.workspace.set_reading(reading)
        if self.table is not None:
            self.roles_table.blockSignals(True)
            self.roles_table.set_roles([str(c) for c in self.table.frame.columns], roles)
            self.roles_table.blockSignals(False)
            self.controller.set_roles(roles)
        self.controller.session.reading = reading_to_json(reading)
        self.controller.mark_dirty()


__all__ = ["ReadingCommands"]
