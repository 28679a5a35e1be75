"""The message line of a panel: user errors in red, other sentences plain, unexpected errors
also to the exception dialog."""

from __future__ import annotations

from ...core.errors import WorkbenchError
from .fields import gui_words


class PanelMessages:
    """The message line of a panel (a ``message`` QLabel, ``last_error``, an ``error`` signal):
    user errors in red, unexpected ones also to the exception dialog."""

    def _gui_words(self, text: str) -> str:
        controls = getattr(self, "_controls", {})
        return gui_words(text, {name: ctl.spec.label for name, ctl in controls.items()})

    def _on_failed(self, error: object, details: str) -> None:
        if isinstance(error, WorkbenchError):
            self._show_error(str(error))
        else:
            self._show_error(f"Unexpected error: {error!r}")
            self.error.emit(f"{type(error).__name__}: {error}", details)

    def _show_error(self, text: str) -> None:
        """A red error replaces the panel's result: what was computed with the previous
        settings or data is taken off first (:meth:`results_superseded`), so no number is left
        on screen looking current beside it.  A screen reader hears the error."""
        from ..accessibility import announce

        self.results_superseded()
        text = self._gui_words(text)
        self.last_error = text
        self.message.setStyleSheet("color: #b3261e; font-weight: bold;")
        self.message.setText(text)
        self.message.setVisible(True)
        self.message.setAccessibleName("Error")
        announce(self.message, text)

    def results_superseded(self) -> None:
        """Hook: take the result on screen off (an error says why there is none now)."""

    def _show_message(self, text: str) -> None:
        text = self._gui_words(text)
        self.message.setAccessibleName("Message")
        self.message.setStyleSheet("")
        self.message.setText(text)
        self.message.setVisible(bool(text))
