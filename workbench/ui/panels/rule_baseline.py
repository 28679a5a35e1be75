"""The Release rule panel's baseline strip: the run blessed for the rule's folder (name, time,
SHA-256 prefix, items) and the "Bless this run as baseline…" action.

Blessing copies the open run's file (:func:`workbench.rules.baseline.bless`), so it runs on
the panel's thread pool (:class:`~workbench.ui.tasks.TaskRunner`), never on the GUI thread.
The folder is ``.workbench/baselines`` next to the rule file (the one opened or saved), else in
the current folder: the same folder ``workbench gate RULE RUN --baseline NAME`` reads.
"""

from __future__ import annotations

import os
import re
from typing import Callable

from PySide6.QtCore import Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QHBoxLayout, QInputDialog, QLabel, QSizePolicy, QToolButton, QWidget

from ...core.errors import WorkbenchError
from ...rules import baseline as bl
from ..tasks import TaskRunner


class BaselineStrip(QWidget):
    """One line: the latest baseline of the folder, and the bless action as a button."""

    blessed = Signal(object)     # the Baseline just stored
    message = Signal(str, bool)  # text, is_error

    def __init__(self, table_provider: Callable, rule_path_provider: Callable, parent=None) -> None:
        super().__init__(parent)
        self._table = table_provider
        self._rule_path = rule_path_provider
        self.runner = TaskRunner(self)
        self.runner.finished.connect(self._on_blessed)
        self.runner.failed.connect(self._on_failed)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        self.label = QLabel()
        self.label.setObjectName("baselineLabel")
        self.label.setWordWrap(True)
        # a long folder name wraps or is cut, it never widens the window (a 200% screen)
        self.label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        row.addWidget(self.label, 1)
        self.bless_action = QAction("Bless this run as baseline…", self)
        self.bless_action.setObjectName("blessBaseline")
        self.bless_action.setToolTip("Store the open run (a copy of its file, its SHA-256 and conventions) "
                                     "as a named baseline that 'workbench gate --baseline' compares new runs with.")
        self.bless_action.triggered.connect(self.bless_dialog)
        self.addAction(self.bless_action)
        self.button = QToolButton()
        self.button.setObjectName("blessBaselineButton")
        self.button.setDefaultAction(self.bless_action)
        row.addWidget(self.button)
        self.refresh()

    def folder(self) -> str:
        return bl.default_dir(self._rule_path())

    def refresh(self) -> None:
        """Show the most recently blessed baseline of the folder (and how many there are)."""
        folder = self.folder()
        found = bl.list_baselines(folder)
        self.bless_action.setEnabled(self._table() is not None and not self.runner.busy)
        if not found:
            self.label.setText(f"<small>No baseline blessed in {folder} yet.</small>")
            return
        b = max(found, key=lambda x: x.blessed_at)
        items = f"{b.n_items:,} items" if b.n_items is not None else f"{b.n_rows:,} rows"
        others = f" ({len(found)} baselines in the folder)" if len(found) > 1 else ""
        self.label.setText(f"<small>Baseline <b>{_esc(b.name)}</b>: blessed {_esc(_when(b.blessed_at))}, "
                           f"SHA-256 {b.sha256[:12]}…, {items}{others}</small>")
        self.label.setToolTip(f"{b.path}\nfrom {b.source}")

    def bless_dialog(self) -> None:
        table = self._table()
        if table is None:
            self.message.emit("Open a run to bless it as the baseline.", False)
            return
        default = re.sub(r"[^A-Za-z0-9._-]+", "-", os.path.splitext(table.name)[0]).strip("-.") or "baseline"
        name, ok = QInputDialog.getText(self, "Bless this run as baseline",
                                        f"Name of the baseline (stored in {self.folder()}):", text=default)
        if not ok or not name.strip():
            return
        name, folder = name.strip(), self.folder()
        if os.path.exists(os.path.join(folder, name)):
            self.message.emit(f"A baseline named '{name}' already exists in {folder}; a baseline never "
                              f"changes by itself, so bless this run under another name.", True)
            return
        self.bless(table.path, name)

    def bless(self, path: str, name: str) -> None:
        """Copy the run into the folder off the GUI thread."""
        folder, rule = self.folder(), self._rule_path()
        self.bless_action.setEnabled(False)
        self.message.emit(f"Blessing '{os.path.basename(path)}' as baseline '{name}'…", False)
        self.runner.start(lambda _progress: bl.bless(path, name, folder, rule=rule))

    def _on_blessed(self, baseline) -> None:
        self.refresh()
        self.message.emit(f"Blessed as baseline '{baseline.name}' in {os.path.dirname(baseline.folder)}.", False)
        self.blessed.emit(baseline)

    def _on_failed(self, error: object, details: str) -> None:
        self.refresh()
        text = str(error) if isinstance(error, WorkbenchError) else f"The run could not be blessed ({error})."
        self.message.emit(text, True)

    def shutdown(self) -> None:
        self.runner.detach()


def _when(stamp: str) -> str:
    """``2026-12-02T13:34:05+00:00`` -> ``2026-12-02 13:34 UTC``."""
    if stamp.endswith("+00:00") and "T" in stamp:
        return stamp[:16].replace("T", " ") + " UTC"
    return stamp


def _esc(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
