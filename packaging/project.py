"""What every installer says about the program: name, version (read from workbench/__init__.py,
the one place it is written), identifiers.  Imported by build.py and workbench.spec; the
Windows and macOS scripts get the version from ``python packaging/build.py --print-version``.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

NAME = "Eval Workbench"
PACKAGE = "eval-workbench"          # the Debian package, the /opt folder
EXECUTABLE = "workbench"            # the program (and /usr/bin/workbench)
APP_ID = "org.evalworkbench.Workbench"  # macOS bundle identifier
DESKTOP_ID = "workbench"            # workbench.desktop: matches the window's WM_CLASS / app id
ICON_NAME = "eval-workbench"        # the icon theme name (hicolor)
SESSION_MIME = "application/x-workbench-session"
SESSION_GLOB = "*.wbsession.json"
SUMMARY = "Evaluation numbers that can be defended, each with its denominator and conventions"
#: Who publishes it: the .deb's Maintainer, the Inno Setup script's AppPublisher (its #define
#: Publisher) and the macOS Info.plist's copyright line.  The project has no contact address yet,
#: so none is invented; when it has one, write it here as "Name <address>" (or set DEB_MAINTAINER
#: for one build of the .deb).
MAINTAINER = "Eval Workbench developers"
HOMEPAGE = ""
LICENSE = "MIT"


def version() -> str:
    text = (ROOT / "workbench" / "__init__.py").read_text(encoding="utf-8")
    found = re.search(r'^__version__\s*=\s*["\']([^"\']+)["\']', text, re.M)
    if not found:
        raise SystemExit("packaging: no __version__ = '...' line in workbench/__init__.py")
    return found.group(1)


def windows_version_tuple(ver: str | None = None) -> tuple[int, int, int, int]:
    """0.1.0 -> (0, 1, 0, 0); pre-release suffixes are dropped (Windows wants four numbers)."""
    release = re.match(r"\d+(?:\.\d+)*", ver or version())
    nums = [int(n) for n in release.group(0).split(".")[:4]] if release else []
    return tuple((nums + [0, 0, 0, 0])[:4])  # type: ignore[return-value]
