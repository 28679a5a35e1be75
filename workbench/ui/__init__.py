"""The desktop workbench: the only package that imports PySide6 or pyqtgraph."""

from __future__ import annotations

from .qt_import_hook import install as _install_import_hook

_install_import_hook()  # before pandas, pyqtgraph and the panels are imported (0.2-0.3 s of the start)


def main(argv: list[str], locale: str | None = None) -> int:
    from .app import run

    return run(argv, locale=locale)
