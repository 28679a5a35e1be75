"""A panel for the keyboard and a screen reader: where the keyboard lands when the panel is
chosen, and the names of the widgets it adds after it is built."""

from __future__ import annotations

from PySide6.QtWidgets import QWidget

from .. import accessibility


class KeyboardPanel:
    """Mixed into :class:`~workbench.ui.panels.base.AnalysisPanel`."""

    def showEvent(self, event) -> None:  # noqa: N802 - Qt's name
        """Widgets a panel adds after it is built (its own extras) are named when it is shown."""
        super().showEvent(event)
        accessibility.name_all(self)

    def first_control(self) -> QWidget:
        """Where the keyboard lands when the panel is chosen from the View menu or its key: the
        first option shown, else the Run button."""
        shown = [ctl.widget for ctl in self._controls.values() if not ctl.widget.isHidden()]
        return shown[0] if shown and self.options_scroll.isVisible() else self.run_button


__all__ = ["KeyboardPanel"]
