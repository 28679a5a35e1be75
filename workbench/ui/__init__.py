"""The desktop workbench: the only package that imports PySide6 or pyqtgraph."""

from __future__ import annotations


def main(argv: list[str], locale: str | None = None) -> int:
    from .app import run

    return run(argv, locale=locale)
