"""Where the bundled resources are, in a checkout and in a frozen (PyInstaller) build."""

from __future__ import annotations

import sys
from pathlib import Path


def resources_dir() -> Path:
    frozen = getattr(sys, "_MEIPASS", None)
    if frozen:
        return Path(frozen) / "resources"
    return Path(__file__).resolve().parents[1] / "resources"


def examples_dir() -> Path:
    return resources_dir() / "examples"
