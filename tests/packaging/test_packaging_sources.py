"""The installer sources agree with each other and with the program (fast; no build needed):
one version, the same spec everywhere, icons rendered from the SVG, desktop entry and MIME type.
"""

from __future__ import annotations

import configparser
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

import workbench

ROOT = Path(__file__).resolve().parents[2]
PACKAGING = ROOT / "packaging"
sys.path.insert(0, str(PACKAGING))
import project  # noqa: E402


def test_one_version_number():
    assert project.version() == workbench.__version__
    out = subprocess.run([sys.executable, str(PACKAGING / "build.py"), "--print-version"],
                         capture_output=True, text=True, check=True).stdout.strip()
    assert out == workbench.__version__
    assert project.windows_version_tuple("1.2.3rc1") == (1, 2, 3, 0)
    # no installer source writes a version of its own
    for path in [PACKAGING / "workbench.spec", PACKAGING / "windows" / "workbench.iss",
                 PACKAGING / "macos" / "make_dmg.sh", ROOT / ".github" / "workflows" / "installers.yml"]:
        text = path.read_text(encoding="utf-8")
        assert workbench.__version__ not in text, f"{path.name} hard-codes the version"


def test_every_platform_builds_from_the_same_spec_and_entry_point():
    workflow = (ROOT / ".github" / "workflows" / "installers.yml").read_text(encoding="utf-8")
    assert workflow.count("packaging/build.py") >= 3  # linux, windows, macos
    assert "--print-version" in workflow
    assert "windows\\workbench.iss" in workflow and "macos/make_dmg.sh" in workflow
    iss = (PACKAGING / "windows" / "workbench.iss").read_text(encoding="utf-8")
    assert "PrivilegesRequired=lowest" in iss  # per-user install
    assert "{#AppVersion}" in iss and "dist\\workbench" in iss
    assert "wbsession.json" in iss
    spec = (PACKAGING / "workbench.spec").read_text(encoding="utf-8")
    assert "BUNDLE(" in spec and "project.version()" in spec
    assert "strip=False" in spec and "strip=True" not in spec


def test_icons_are_rendered_from_the_svg():
    icons = ROOT / "resources" / "icons"
    ET.parse(icons / "workbench.svg")
    for size in (16, 24, 32, 48, 64, 128, 256, 512):
        data = (icons / f"workbench-{size}.png").read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n"
        width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
        assert (width, height) == (size, size)
    assert (icons / "workbench.ico").read_bytes()[:4] == b"\x00\x00\x01\x00"
    assert (icons / "workbench.icns").read_bytes()[:4] == b"icns"


def test_desktop_entry_and_mime_type_agree():
    entry = configparser.ConfigParser(interpolation=None, strict=True)
    entry.optionxform = str
    entry.read(PACKAGING / "linux" / "workbench.desktop", encoding="utf-8")
    d = entry["Desktop Entry"]
    assert d["Exec"].split()[0] == project.EXECUTABLE
    assert d["Icon"] == project.ICON_NAME
    assert project.SESSION_MIME in d["MimeType"].split(";")
    assert d["StartupWMClass"] == project.EXECUTABLE  # the window's class: its icon in the dock
    ns = {"m": "http://www.freedesktop.org/standards/shared-mime-info"}
    mime = ET.parse(PACKAGING / "linux" / "eval-workbench-mime.xml").getroot()
    t = mime.find("m:mime-type", ns)
    assert t.get("type") == project.SESSION_MIME
    assert t.find("m:glob", ns).get("pattern") == project.SESSION_GLOB
    assert t.find("m:icon", ns).get("name") == project.ICON_NAME


def test_maintainer_scripts_are_posix_sh():
    for name in ("postinst", "postrm"):
        path = PACKAGING / "linux" / name
        assert path.read_text(encoding="utf-8").startswith("#!/bin/sh\n")
        subprocess.run(["sh", "-n", str(path)], check=True)


@pytest.mark.parametrize("argv0", ["--self-test"])
def test_launcher_routes_the_self_test(monkeypatch, argv0):
    import workbench.launcher as launcher
    import workbench.ui.selftest as selftest

    seen = []
    monkeypatch.setattr(selftest, "main", lambda argv=None: seen.append(argv) or 0)
    assert launcher.main([argv0, "--keep"]) == 0
    assert seen == [["--keep"]]


def _fake_bundle(tmp_path, parts: dict[str, int]) -> Path:
    """A folder shaped like the bundle, with sparse files of the given sizes (no disk used)."""
    bundle = tmp_path / project.EXECUTABLE
    for rel, size in parts.items():
        path = bundle / "_internal" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "wb") as fh:
            fh.truncate(size)
    return bundle


def test_the_build_rejects_a_bundle_over_the_size_limit_or_with_pyarrow(tmp_path, monkeypatch):
    """The guard behind the issue's "under ~350 MB": build.py fails, naming the cause."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("workbench_build", PACKAGING / "build.py")
    build = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build)
    monkeypatch.setattr(sys, "platform", "win32")  # skip the ldd pass on the fake files
    reader = {"fastparquet/__init__.py": 10, "cramjam/__init__.py": 10}
    ok = _fake_bundle(tmp_path / "ok", {**reader, "scipy/big.so": 300 * 10**6})
    assert build.check_bundle(ok) == []
    report = build.size_report(ok)
    assert report.startswith(f"bundle {ok}: 300 MB (286 MiB) unpacked") and "limit 350 MB" in report
    assert "286.1 MiB  scipy" in report

    big = _fake_bundle(tmp_path / "big", {**reader, "scipy/big.so": 351 * 10**6})
    problems = build.check_bundle(big)
    assert len(problems) == 1 and "351 MB unpacked, over the limit of 350 MB" in problems[0]

    arrow = _fake_bundle(tmp_path / "arrow", {"pyarrow/lib.so": 10})
    problems = build.check_bundle(arrow)
    assert any(p.startswith("pyarrow is in the bundle") for p in problems), problems
    assert any(p.startswith("fastparquet is missing") for p in problems), problems
