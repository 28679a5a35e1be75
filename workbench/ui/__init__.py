"""The desktop workbench (the only package that imports Qt).

For now a placeholder window; the full workbench is the subject of its own issue.
"""

from __future__ import annotations


def main(argv: list[str]) -> int:
    import os

    from PySide6.QtWidgets import QApplication, QLabel, QMainWindow

    from .. import __version__

    app = QApplication.instance() or QApplication(["workbench"])
    window = QMainWindow()
    window.setWindowTitle(f"Eval Workbench {__version__}")
    text = ("Eval Workbench\n\nThe desktop workbench is under construction.\n"
            "Run an analysis from the command line: workbench --help")
    if argv:
        text += f"\n\nFile: {os.path.abspath(argv[0])}"
    label = QLabel(text)
    label.setMargin(24)
    window.setCentralWidget(label)
    window.resize(640, 360)
    window.show()
    if os.environ.get("WORKBENCH_SMOKE"):  # used by tests: show, then quit at once
        from PySide6.QtCore import QTimer

        QTimer.singleShot(0, app.quit)
    return app.exec()
