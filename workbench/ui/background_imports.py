"""The modules the workspace needs, imported on a thread of their own from the program's start.

Qt-free until :meth:`BackgroundImports.then`: the desktop workbench starts it before Qt itself
is imported, so that pandas, the readers and the analyses load while Qt loads and the start page
is made, and the file given on the command line can be read as soon as its reader is in.
"""

from __future__ import annotations

import threading

#: modules without Qt that the workspace needs (the start page stays responsive while they load)
BACKGROUND_IMPORTS = ("numpy", "pandas", "workbench.io", "workbench.io.roles",
                      "workbench.analyses", "workbench.rules", "workbench.report.present",
                      "workbench.core.session")
#: imported on the same thread after the workspace was told it may be built: what the landing
#: panel's first answer imports late (the t quantile of its intervals: scipy.special, ~0.13 s).
#: (openpyxl, 0.1 s, is imported when a workbook is read: importing it here slowed the answer.)
LATER_IMPORTS = ("scipy.special",)


class BackgroundImports:
    """Imports :data:`BACKGROUND_IMPORTS`, then :data:`LATER_IMPORTS`, on a thread of their own,
    started as the program starts (beside Qt's import and the start page's making)."""

    def __init__(self) -> None:
        self.first = threading.Event()
        self.thread = threading.Thread(target=self._work, name="workbench-imports", daemon=True)
        self.thread.start()

    def _work(self) -> None:
        import contextlib
        import importlib

        for name in BACKGROUND_IMPORTS + LATER_IMPORTS:
            if name == LATER_IMPORTS[0]:
                self.first.set()  # the workspace may be built now
            # a failure is the GUI thread's to report: it imports the module again
            with contextlib.suppress(Exception):
                importlib.import_module(name)
        self.first.set()

    def then(self, done) -> None:
        """``done()`` on the GUI thread once :data:`BACKGROUND_IMPORTS` are in."""
        from PySide6.QtCore import QTimer

        timer = self.timer = QTimer()
        timer.setInterval(20)

        def poll() -> None:
            if self.first.is_set():
                timer.stop()
                done()

        timer.timeout.connect(poll)
        timer.start()
