"""Edit > Settings: how numbers read in the window (the locale's decimal and thousands
separators), with the system's locale stated and what stays locale-free said."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QGroupBox,
    QLabel,
    QVBoxLayout,
)

from . import display_locale as dl


class SettingsDialog(QDialog):
    def __init__(self, current: str, override: str | None = None, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("settingsDialog")
        self.setWindowTitle("Settings")
        self.setAccessibleName("Settings")
        layout = QVBoxLayout(self)
        box = QGroupBox("Numbers in the window")
        form = QFormLayout(box)
        self.locale_box = QComboBox()
        self.locale_box.setObjectName("localeChoice")
        self.locale_box.addItem(f"The system's locale — {dl.describe('')}", "")
        for name in dl.OFFERED:
            self.locale_box.addItem(dl.describe(name), name)
        if current and self.locale_box.findData(current) < 0 and dl.valid(current):
            self.locale_box.addItem(dl.describe(current), current)
        self.locale_box.setCurrentIndex(max(0, self.locale_box.findData(current)))
        self.locale_box.setAccessibleName("Locale of the numbers shown")
        self.locale_box.setAccessibleDescription("The decimal separator and the thousands separator "
                                                 "of every number in the window and on the answer cards.")
        label = QLabel("&Locale:")
        label.setBuddy(self.locale_box)
        form.addRow(label, self.locale_box)
        self.preview = QLabel()
        self.preview.setObjectName("localePreview")
        form.addRow("Shown as:", self.preview)
        layout.addWidget(box)
        system = QLabel(f"The system's locale is {dl.label('')}.")
        system.setObjectName("systemLocale")
        system.setWordWrap(True)
        layout.addWidget(system)
        note = QLabel("This changes how numbers read on screen only. The Excel report holds numbers as "
                      "numbers (Excel shows them in its own locale); CSV and JSON files, the command "
                      "line and a copied table's tab-separated text keep a decimal point and full "
                      "precision.")
        note.setWordWrap(True)
        layout.addWidget(note)
        if override:
            said = QLabel(f"This window was started with --locale {override}: it holds until the window "
                          f"closes. The choice made here is saved for the next start.")
            said.setWordWrap(True)
            said.setObjectName("localeOverride")
            layout.addWidget(said)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.locale_box.currentIndexChanged.connect(self._preview)
        self._preview()
        self.resize(620, self.sizeHint().height())

    def _preview(self) -> None:
        self.preview.setText(dl.example(self.choice()))

    def choice(self) -> str:
        """The locale chosen ("" = the system's)."""
        return self.locale_box.currentData() or ""


__all__ = ["SettingsDialog"]
