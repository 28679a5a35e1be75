"""The standalone build: PyInstaller bundle, its self-test, the no-display message and
`workbench examples` in the bundle, the .deb's metadata and contents, and (when run as root with
debootstrap) an install into clean Debian 12 and Debian 13 roots, where the README's
installed-use section is run as written.

Slow (about 2 minutes: bundle ~50-60 s, self-test a few seconds, .deb ~35 s; each clean-root
install adds ~1 minute, ~3 minutes the first time, when debootstrap runs).  Skipped when PyInstaller is not installed (it is the
``package`` extra: ``pip install -e '.[package]'``).
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "packaging"))
import project  # noqa: E402

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(importlib.util.find_spec("PyInstaller") is None,
                       reason="PyInstaller is not installed (the 'package' extra: "
                              "pip install -e '.[package]')"),
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the .deb is built on Linux"),
]

#: The unpacked bundle must stay under ~350 MB (decimal; see README "Install").
SIZE_LIMIT = 350 * 10**6
FORBIDDEN = ("ranx", "numba", "llvmlite", "statsmodels", "pytrec_eval", "PyQt5", "PyQt6",
             "PySide2", "matplotlib", "pytest", "hypothesis", "PIL", "pyarrow")


@pytest.fixture(scope="module")
def say(request):
    """A line on the terminal now, past pytest's capture: CI shows what the packaging test is
    doing during its minutes (issue 23, item 20: it printed nothing for 11 minutes)."""
    capman = request.config.pluginmanager.getplugin("capturemanager")

    def say(message: str) -> None:
        line = f"[packaging test {time.strftime('%H:%M:%S')}] {message}"
        # a pytest-xdist worker's standard output goes nowhere; its standard error reaches the
        # terminal
        stream = sys.stderr if os.environ.get("PYTEST_XDIST_WORKER") else sys.stdout
        if capman is None:
            print(line, file=stream, flush=True)
            return
        with capman.global_and_fixture_disabled():
            print(("\n" if not say.started else "") + line, file=stream, flush=True)
        say.started = True

    say.started = False
    return say


def streamed(cmd, say, *, show, timeout: float, **kw) -> subprocess.CompletedProcess:
    """``subprocess.run(cmd, capture_output=True, text=True)``, saying each stdout line for which
    ``show(line)`` is true as it comes (the build's steps, the clean-root install's checks)."""
    proc = subprocess.Popen([str(c) for c in cmd], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, **kw)
    err: list[str] = []
    reader = threading.Thread(target=lambda: err.append(proc.stderr.read()), daemon=True)
    reader.start()
    timer = threading.Timer(timeout, proc.kill)
    timer.start()
    out = []
    try:
        for line in proc.stdout:
            out.append(line)
            if show(line):
                say(line.rstrip())
        proc.wait()
    finally:
        timer.cancel()
        reader.join(timeout=60)
    return subprocess.CompletedProcess(proc.args, proc.returncode, "".join(out), "".join(err))


@pytest.fixture(scope="module")
def built(tmp_path_factory, say):
    """Run the one build command (bundle + self-test + .deb) into a temporary dist folder."""
    if not shutil.which("dpkg-deb"):
        pytest.skip("dpkg-deb is not available")
    dist = tmp_path_factory.mktemp("dist")
    say("building the standalone bundle (PyInstaller), its self-test and the .deb: about 2 minutes")
    t0 = time.monotonic()
    proc = streamed([sys.executable, str(ROOT / "packaging" / "build.py"), "--deb", "--dist", str(dist)],
                    say, show=lambda line: line.startswith("build:"), timeout=1800, cwd=ROOT)
    say(f"build finished in {time.monotonic() - t0:.0f} s (exit {proc.returncode})")
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    debs = list(dist.glob(f"{project.PACKAGE}_*.deb"))
    assert len(debs) == 1, list(dist.iterdir())
    return {"dist": dist, "bundle": dist / project.EXECUTABLE, "deb": debs[0], "log": proc.stdout}


def _run(*cmd, **kw):
    return subprocess.run([str(c) for c in cmd], capture_output=True, text=True, **kw)


def test_the_bundle_passes_its_self_test(built):
    env = {k: v for k, v in os.environ.items() if k != "QT_QPA_PLATFORM"}  # its own default
    proc = _run(built["bundle"] / project.EXECUTABLE, "--self-test", env=env, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "self-test passed" in proc.stdout
    assert "(bundle: " in proc.stdout  # it ran frozen, not from the checkout
    for example in ("paired_14_to_5.csv", "ranking_seed.csv", "passk_counts.csv", "multilingual.csv",
                    "session paired_14_to_5.wbsession.json"):
        assert re.search(rf"^ok   example {re.escape(example)}", proc.stdout, re.M), proc.stdout
    assert "ok   parquet input (fastparquet)" in proc.stdout  # no pyarrow in the bundle


def test_the_bundle_runs_the_command_line(built, examples):
    exe = built["bundle"] / project.EXECUTABLE
    proc = _run(exe, "--version", timeout=120)
    assert proc.returncode == 0 and project.version() in proc.stdout + proc.stderr
    proc = _run(exe, "compare", examples / "paired_14_to_5.csv", "--baseline", "baseline",
                "--candidate", "candidate", "--item", "item_id", "--json", timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert '"sign_test_p"' in proc.stdout


def _without_display() -> dict[str, str]:
    return {k: v for k, v in os.environ.items()
            if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}


@pytest.mark.parametrize("args", [[], ["paired_14_to_5.csv"]], ids=["alone", "with a file"])
def test_the_bundle_says_when_there_is_no_display(built, examples, args):
    """`workbench` and `workbench FILE` without a display: one sentence and exit 2 (from a
    checkout the launcher does the same), never Qt's abort (exit 134) with its misleading advice
    to reinstall."""
    exe = built["bundle"] / project.EXECUTABLE
    proc = _run(exe, *[examples / a for a in args], env=_without_display(), timeout=120)
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "no display" in lines[0].lower(), proc.stderr
    assert "xcb" not in proc.stderr and "reinstall" not in proc.stderr
    assert proc.stdout == ""


def test_the_bundle_copies_its_examples_and_the_printed_commands_work(built, tmp_path):
    """`workbench examples DIR` from the bundle: the bundle's own resources, byte for byte, and
    each printed command (run with the bundle's program) works in DIR."""
    import shlex

    exe = built["bundle"] / project.EXECUTABLE
    target = tmp_path / "my examples"
    proc = _run(exe, "examples", target, timeout=120)
    assert proc.returncode == 0, proc.stderr
    resources = built["bundle"] / "_internal" / "resources"
    want = {p.relative_to(resources).as_posix(): p.read_bytes()
            for folder in ("examples", "rules") for p in (resources / folder).iterdir() if p.is_file()}
    got = {p.relative_to(target).as_posix(): p.read_bytes() for p in target.rglob("*") if p.is_file()}
    assert got == want and "examples/paired_14_to_5.wbsession.json" in got
    cmds = [ln.strip() for ln in proc.stdout.split("Try:\n", 1)[1].splitlines()
            if ln.strip() and not ln.strip().startswith("#")]
    assert shlex.split(cmds[0]) == ["cd", str(target)]
    for cmd in cmds[1:]:
        argv = shlex.split(cmd)
        assert argv[0] == "workbench"
        if cmd == cmds[-1]:  # the desktop workbench: no display here
            run = _run(exe, *argv[1:], cwd=target, env=_without_display(), timeout=120)
            assert run.returncode == 2 and "no display" in run.stderr.lower(), run.stderr
        else:
            run = _run(exe, *argv[1:], cwd=target, timeout=300)
            assert run.returncode == 0, (cmd, run.stdout, run.stderr)
    assert (target / "report.xlsx").stat().st_size > 0
    again = _run(exe, "examples", target, timeout=120)
    assert again.returncode == 0 and "nothing was copied" in again.stdout


def test_the_bundle_holds_what_it_needs_and_nothing_test_only(built):
    internal = built["bundle"] / "_internal"
    for name in FORBIDDEN:
        assert not (internal / name).exists(), f"{name} is in the bundle"
    for rel in ("resources/examples/paired_14_to_5.csv", "resources/rules/seed_14_to_5.toml",
                "resources/icons/workbench.svg", "PySide6/QtOpenGL.abi3.so",
                "PySide6/Qt/plugins/platforms/libqxcb.so",
                "PySide6/Qt/plugins/platforms/libqoffscreen.so",
                "PySide6/Qt/plugins/iconengines/libqsvgicon.so"):
        assert (internal / rel).exists(), rel
    examples = {p.name for p in (ROOT / "resources" / "examples").glob("*.csv")}
    examples |= {p.name for p in (ROOT / "resources" / "examples").glob("*.wbsession.json")}
    assert len([e for e in examples if e.endswith(".wbsession.json")]) >= 3  # example sessions
    assert examples <= {p.name for p in (internal / "resources" / "examples").iterdir()}
    assert not list((internal / "PySide6" / "Qt" / "lib").glob("libQt6Qml*"))
    assert not list(internal.glob("libstdc++.so*")) and not list(internal.glob("libgcc_s.so*"))
    assert (internal / "fastparquet").is_dir()  # its Parquet reader, in place of pyarrow
    size = sum(p.lstat().st_size for p in built["bundle"].rglob("*")
               if p.is_file() or p.is_symlink())  # as build.py counts: files, not folders
    print(f"bundle: {size / 1e6:.0f} MB unpacked")  # shown with -s
    assert size < SIZE_LIMIT, (built["dist"] / "bundle-size.txt").read_text()
    report = (built["dist"] / "bundle-size.txt").read_text()
    assert f"{size / 1e6:.0f} MB" in report and "scipy" in report  # total and heaviest parts


def test_the_bundle_reads_parquet_written_by_the_test_environment(built, tmp_path):
    """Without pyarrow inside, the bundle reads a Parquet file that pandas wrote here (with
    pyarrow when it is installed, as most Parquet files in the wild are written)."""
    import pandas as pd

    from workbench.io import parquet

    frame = pd.DataFrame({"item_id": [f"q{i}" for i in range(19)],
                          "baseline": [0] * 14 + [1] * 5, "candidate": [1] * 14 + [0] * 5})
    path = tmp_path / "paired.parquet"
    parquet.write(frame, path, index=False)
    proc = _run(built["bundle"] / project.EXECUTABLE, "compare", path, "--baseline", "baseline",
                "--candidate", "candidate", "--item", "item_id", "--json", timeout=120)
    assert proc.returncode == 0, proc.stderr
    payload = json.loads(proc.stdout)
    p = [r for r in payload["results"] if r["metric"] == "sign_test_p"]
    assert len(p) == 1 and abs(p[0]["value"] - 0.0636) < 5e-5  # the seed's 14-to-5 example


def test_deb_metadata(built):
    info = _run("dpkg-deb", "-I", built["deb"], check=True).stdout
    field = {m.group(1): m.group(2) for m in re.finditer(r"^ (\S+): (.*)$", info, re.M)}
    assert field["Package"] == project.PACKAGE
    assert field["Version"] == project.version()
    assert field["Architecture"] == "amd64"
    assert field["Maintainer"] == project.MAINTAINER
    # the C++ runtime is the system's: never the build machine's copy in the bundle
    assert re.search(r"(^|, )libstdc\+\+6 \(>= \d+(\.\d+)*\)(,|$)", field["Depends"]), field["Depends"]
    # the glibc floor: read from the bundle by build.py, and the one the README states
    floor = re.search(r"libc6 \(>= ([\d.]+)\)", field["Depends"]).group(1)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert f"The floor is **glibc {floor}**" in readme and f"`libc6 (>= {floor})`" in readme
    assert f"glibc floor {floor} (libc6 (>= {floor}))" in built["log"]
    depends = [d.strip().split()[0] for d in field["Depends"].split(",")]
    for pkg in ("libgl1", "libegl1", "libxkbcommon0", "libfontconfig1", "fonts-dejavu-core",
                "libxcb-cursor0", "libdbus-1-3"):
        assert pkg in depends, field["Depends"]
    assert not [d for d in depends if d.startswith("python")], "the bundle carries its own Python"
    assert int(field["Installed-Size"]) > 100_000
    for script in ("postinst", "postrm"):
        assert re.search(rf"^\s+\d+ bytes,\s+\d+ lines\s+\*\s+{script}\s", info, re.M), info


def test_deb_contents(built):
    listing = _run("dpkg-deb", "-c", built["deb"], check=True).stdout
    entries = {}
    for line in listing.splitlines():
        parts = line.split(None, 5)
        path = parts[5].split(" -> ")[0].removeprefix(".")
        entries[path] = (parts[0], parts[1], parts[5])
    opt = f"/opt/{project.PACKAGE}"
    assert entries[f"{opt}/{project.EXECUTABLE}"][0] == "-rwxr-xr-x"
    link = entries["/usr/bin/workbench"]
    assert link[0].startswith("l") and link[2].endswith(f"-> {opt}/{project.EXECUTABLE}")
    assert all(owner == "root/root" for _mode, owner, _ in entries.values())
    for path in ("/usr/share/applications/workbench.desktop",
                 f"/usr/share/mime/packages/{project.PACKAGE}.xml",
                 "/usr/share/icons/hicolor/scalable/apps/eval-workbench.svg",
                 f"/usr/share/doc/{project.PACKAGE}/copyright"):
        assert path in entries, path
    for size in (16, 24, 32, 48, 64, 128, 256, 512):
        assert f"/usr/share/icons/hicolor/{size}x{size}/apps/eval-workbench.png" in entries
    allowed = (opt, "/usr/bin", "/usr/share/applications", "/usr/share/mime",
               "/usr/share/icons", f"/usr/share/doc/{project.PACKAGE}")
    stray = [p for p in entries if p.rstrip("/") and not p.startswith(allowed)
             and not any(a.startswith(p) for a in allowed)]
    assert not stray, stray


@pytest.mark.skipif(not shutil.which("desktop-file-validate"),
                    reason="desktop-file-validate is not installed (apt-get install desktop-file-utils)")
def test_desktop_entry_is_valid():
    proc = _run("desktop-file-validate", ROOT / "packaging" / "linux" / "workbench.desktop")
    assert proc.returncode == 0 and not proc.stdout.strip(), proc.stdout + proc.stderr


#: The Linux systems the README names as tested, each a clean root made by debootstrap.
SUITES = {"bookworm": "Debian GNU/Linux 12", "trixie": "Debian GNU/Linux 13"}


def test_the_readme_names_as_tested_what_is_tested():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    install = readme[readme.index("## Install"):]
    claim = install[install.index("**Linux"):install.index(".**")]  # the bold first sentence
    assert claim == ("**Linux (amd64): Debian 12 and Debian 13 are tested; Ubuntu 22.04 or later "
                     "should work but is\nuntested")
    assert [f"Debian GNU/Linux {n}" for n in re.findall(r"Debian (\d+)", claim)] == \
        [name for name in SUITES.values()]  # every Debian named as tested has its clean root


@pytest.mark.skipif(os.geteuid() != 0 or not (shutil.which("debootstrap") or os.path.exists("/usr/sbin/debootstrap")),
                    reason="installing into a clean Debian root needs root and debootstrap "
                           "(apt-get install debootstrap)")
@pytest.mark.parametrize("suite", list(SUITES))
def test_install_into_a_clean_debian_root(built, suite, say):
    say(f"installing the .deb into a clean {SUITES[suite]} root (debootstrap; minutes the first time)")
    proc = streamed(["bash", ROOT / "packaging" / "test_install_debootstrap.sh", built["deb"],
                     "--suite", suite], say, show=lambda line: bool(line.strip()), timeout=1800)
    print(proc.stdout[-3000:])  # shown with -s: the steps and their times
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-3000:]
    assert f"({SUITES[suite]} (" in proc.stdout  # the system it really ran on
    assert "self-test passed" in proc.stdout
    assert "ok   workbench alone, no display: exit 2 and one sentence saying so" in proc.stdout
    assert "ok   README installed-use section" in proc.stdout
    assert "ok   purge left nothing behind" in proc.stdout
