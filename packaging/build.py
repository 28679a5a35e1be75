"""Build the standalone Eval Workbench: the PyInstaller bundle, and on Linux the .deb.

    python packaging/build.py                 bundle in dist/workbench, then its self-test
    python packaging/build.py --deb           ... and dist/eval-workbench_VERSION_amd64.deb
    python packaging/build.py --deb --skip-bundle   the .deb from the existing dist/workbench
    python packaging/build.py --print-version       the version (workbench/__init__.py)

Options: --clean (PyInstaller starts from scratch), --no-self-test, --dist DIR (default dist).
``make package`` runs ``--deb`` after installing the ``package`` extra (PyInstaller).

The .deb puts the bundle in /opt/eval-workbench, a /usr/bin/workbench symlink, a desktop entry
(workbench.desktop) with hicolor icons, and the application/x-workbench-session MIME type for
*.wbsession.json files; it depends only on stock Debian packages (the desktop stack the bundle
leaves to the system: see DEPENDS).  It is assembled here and packed by ``dpkg-deb``
(``--root-owner-group``: no fakeroot needed).
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import project  # noqa: E402

ROOT = project.ROOT
LINUX = HERE / "linux"
ICONS = ROOT / "resources" / "icons"
HICOLOR_SIZES = (16, 24, 32, 48, 64, 128, 256, 512)

#: What the bundle leaves to the system (see SYSTEM_LIBS in workbench.spec), as stock Debian 12
#: package names (Debian 13's and Ubuntu 24.04's t64 packages provide the same names).  The
#: libc6 version is not written here: it is the highest GLIBC_x.y that a file of the bundle
#: asks for (glibc_floor), so the .deb never claims an older system than the bundle runs on.
DEPENDS = [
    "libgcc-s1",
    "libgl1", "libegl1", "libopengl0",
    "libx11-6", "libx11-xcb1", "libxcb1", "libxcb-cursor0", "libxcb-glx0", "libxcb-icccm4",
    "libxcb-image0", "libxcb-keysyms1", "libxcb-randr0", "libxcb-render0", "libxcb-render-util0",
    "libxcb-shape0", "libxcb-shm0", "libxcb-sync1", "libxcb-util1", "libxcb-xfixes0",
    "libxcb-xkb1", "libxkbcommon0", "libxkbcommon-x11-0",
    "libfontconfig1", "libfreetype6", "fonts-dejavu-core",
    "libglib2.0-0", "libdbus-1-3",
]
RECOMMENDS = ["shared-mime-info", "desktop-file-utils", "hicolor-icon-theme"]

#: Must never be in the bundle (test-only libraries; other Qt bindings; pyarrow, which the
#: bundle replaces by fastparquet to stay small; DuckDB, which would pass the size limit; big
#: optional imports of a development venv).
FORBIDDEN = ("ranx", "numba", "llvmlite", "statsmodels", "pytrec_eval", "ir_datasets", "PyQt5",
             "PyQt6", "PySide2", "matplotlib", "pytest", "_pytest", "hypothesis", "seaborn",
             "pyarrow", "botocore", "zstandard", "pydantic", "inspect_ai", "torch", "sympy",
             "lm_eval", "sklearn", "transformers", "datasets", "duckdb", "pyspark", "py4j")
#: Must be in the bundle: its Parquet reader and what that needs (the `package` extra).
REQUIRED = ("fastparquet", "cramjam")  # folders with binaries; fsspec is pure Python (in the PYZ)
#: The bundle must stay under this many bytes unpacked (the issue's "~350 MB"; decimal MB).
SIZE_LIMIT = 350 * 10**6


def log(msg: str) -> None:
    print(f"build: {msg}", flush=True)


def fail(msg: str) -> int:
    print(f"build: error: {msg}", file=sys.stderr, flush=True)
    return 2


# -- the bundle ---------------------------------------------------------------------------------
def build_bundle(dist: Path, clean: bool) -> Path:
    try:
        import PyInstaller  # noqa: F401
    except ImportError:
        raise SystemExit(fail("PyInstaller is not installed in this Python; run "
                              "`.venv/bin/pip install -e '.[package]'` (or `make package`)."))
    if subprocess.run([sys.executable, str(HERE / "make_icons.py"), "--check"],
                      capture_output=True).returncode != 0:
        log("rendering the icons from resources/icons/workbench.svg")
        subprocess.run([sys.executable, str(HERE / "make_icons.py")], check=True)
    work = ROOT / "build" / "pyinstaller"
    cmd = [sys.executable, "-m", "PyInstaller", str(HERE / "workbench.spec"), "--noconfirm",
           "--log-level", "WARN", "--distpath", str(dist), "--workpath", str(work)]
    if clean:
        cmd.append("--clean")
    log(" ".join(cmd))
    t0 = time.monotonic()
    subprocess.run(cmd, check=True, cwd=ROOT)
    bundle = dist / project.EXECUTABLE
    log(f"bundle built in {time.monotonic() - t0:.0f} s: {bundle}")
    return bundle


def check_bundle(bundle: Path) -> list[str]:
    """Problems: forbidden packages inside; on Linux, shared libraries that do not resolve."""
    problems = []
    internal = bundle / "_internal"
    for name in FORBIDDEN:
        if (internal / name).exists() or list(internal.glob(f"{name}-*.dist-info")):
            problems.append(f"{name} is in the bundle (see FORBIDDEN in build.py)")
    for name in REQUIRED:
        if not (internal / name).exists():
            problems.append(f"{name} is missing from the bundle; install the `package` extra "
                            "(pip install -e '.[package]')")
    size = dir_size(bundle)
    if size > SIZE_LIMIT:
        problems.append(f"the bundle is {size / 1e6:.0f} MB unpacked, over the limit of "
                        f"{SIZE_LIMIT / 1e6:.0f} MB: see the heaviest parts above")
    if sys.platform.startswith("linux") and shutil.which("ldd"):
        missing = unresolved_libraries(bundle)
        for lib, users in sorted(missing.items()):
            problems.append(f"{lib} not found (needed by {', '.join(sorted(users)[:3])}); "
                            f"install its package (it is in the .deb's Depends)")
    return problems


def unresolved_libraries(bundle: Path) -> dict[str, set[str]]:
    """ldd every ELF file of the bundle (with the bundle's own folders on the library path)."""
    internal = bundle / "_internal"
    dirs = {str(internal)} | {str(p.parent) for p in internal.rglob("*.so*")}
    env = dict(os.environ, LD_LIBRARY_PATH=":".join(sorted(dirs)))
    missing: dict[str, set[str]] = {}
    for path in [bundle / project.EXECUTABLE] + sorted(internal.rglob("*.so*")):
        if not path.is_file() or path.is_symlink():
            continue
        with open(path, "rb") as fh:
            if fh.read(4) != b"\x7fELF":
                continue
        out = subprocess.run(["ldd", str(path)], capture_output=True, text=True, env=env).stdout
        for line in out.splitlines():
            if "=> not found" in line:
                missing.setdefault(line.split()[0], set()).add(path.name)
    return missing


def elf_files(bundle: Path) -> list[Path]:
    """The program and every shared object of the bundle (no symlinks)."""
    out = []
    for path in [bundle / project.EXECUTABLE] + sorted((bundle / "_internal").rglob("*.so*")):
        if not path.is_file() or path.is_symlink():
            continue
        with open(path, "rb") as fh:
            if fh.read(4) == b"\x7fELF":
                out.append(path)
    return out


def glibc_floor(bundle: Path) -> tuple[str, list[str]]:
    """The highest glibc symbol version any ELF file of the bundle requires (its "Version
    References", read with objdump), and the files that require it: the oldest glibc the bundle
    can run on, whatever machine built it."""
    best: tuple[int, ...] = (2, 2, 5)
    users: list[str] = []
    for path in elf_files(bundle):
        out = subprocess.run(["objdump", "-p", str(path)], capture_output=True, text=True).stdout
        versions = {tuple(int(x) for x in v.split("."))
                    for v in re.findall(r"\bGLIBC_(\d+(?:\.\d+)+)\b", out)}
        if not versions:
            continue
        top = max(versions)
        if top > best:
            best, users = top, [str(path.relative_to(bundle))]
        elif top == best:
            users.append(str(path.relative_to(bundle)))
    return ".".join(map(str, best)), users


def libstdcxx_dependency() -> str:
    """The C++ runtime is the system's (SYSTEM_LIBS in the spec): at least the build machine's
    upstream version, whose symbols the bundle was linked and checked against."""
    ver = ""
    if shutil.which("dpkg-query"):
        ver = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "libstdc++6"],
                             capture_output=True, text=True).stdout.strip()
    upstream = re.match(r"(?:\d+:)?(\d+(?:\.\d+)*)", ver)
    return f"libstdc++6 (>= {upstream.group(1)})" if upstream else "libstdc++6"


def dir_size(path: Path) -> int:
    return sum(p.lstat().st_size for p in path.rglob("*") if p.is_file() or p.is_symlink())


def size_report(bundle: Path, top: int = 15) -> str:
    """Total size and the heaviest parts (top-level entries of _internal, Qt split out)."""
    internal = bundle / "_internal"
    parts: dict[str, int] = {}
    for entry in internal.iterdir():
        if entry.name == "PySide6":
            for sub in entry.iterdir():
                if sub.name == "Qt":
                    for q in sub.iterdir():
                        if q.name == "lib":
                            for lib in q.iterdir():
                                key = "PySide6/Qt/lib/" + (
                                    lib.name.split(".so")[0] if lib.name.startswith("lib") else lib.name)
                                parts[key] = parts.get(key, 0) + lib.lstat().st_size
                        else:
                            parts[f"PySide6/Qt/{q.name}"] = dir_size(q) if q.is_dir() else q.stat().st_size
                else:
                    parts["PySide6 (bindings)"] = parts.get("PySide6 (bindings)", 0) + (
                        dir_size(sub) if sub.is_dir() else sub.stat().st_size)
            continue
        parts[entry.name] = dir_size(entry) if entry.is_dir() else entry.lstat().st_size
    total = dir_size(bundle)
    lines = [f"bundle {bundle}: {total / 1e6:.0f} MB ({total / 2**20:.0f} MiB) unpacked, "
             f"{sum(1 for _ in bundle.rglob('*'))} files; limit {SIZE_LIMIT / 1e6:.0f} MB"]
    for name, size in sorted(parts.items(), key=lambda kv: -kv[1])[:top]:
        lines.append(f"  {size / 2**20:7.1f} MiB  {name}")
    return "\n".join(lines)


def self_test(bundle: Path) -> int:
    exe = bundle / (f"{project.EXECUTABLE}-cli.exe" if os.name == "nt" else project.EXECUTABLE)
    env = dict(os.environ, QT_QPA_PLATFORM=os.environ.get("QT_QPA_PLATFORM", "offscreen"))
    log(f"{exe} --self-test")
    return subprocess.run([str(exe), "--self-test"], env=env).returncode


# -- the .deb -----------------------------------------------------------------------------------
def deb_arch() -> str:
    if shutil.which("dpkg"):
        return subprocess.run(["dpkg", "--print-architecture"], capture_output=True, text=True,
                              check=True).stdout.strip()
    return "amd64"


def build_deb(bundle: Path, dist: Path) -> Path:
    if not shutil.which("dpkg-deb"):
        raise SystemExit(fail("dpkg-deb is not available (Debian/Ubuntu only)."))
    ver, arch = project.version(), deb_arch()
    name = f"{project.PACKAGE}_{ver}_{arch}"
    stage = ROOT / "build" / "deb" / name
    if stage.exists():
        shutil.rmtree(stage)
    opt = stage / "opt" / project.PACKAGE
    shutil.copytree(bundle, opt, symlinks=True)
    _tidy_permissions(opt)

    usr = stage / "usr"
    (usr / "bin").mkdir(parents=True)
    os.symlink(f"/opt/{project.PACKAGE}/{project.EXECUTABLE}", usr / "bin" / project.EXECUTABLE)
    _install(LINUX / "workbench.desktop", usr / "share" / "applications" / f"{project.DESKTOP_ID}.desktop")
    _install(LINUX / "eval-workbench-mime.xml", usr / "share" / "mime" / "packages" / f"{project.PACKAGE}.xml")
    hicolor = usr / "share" / "icons" / "hicolor"
    for s in HICOLOR_SIZES:
        _install(ICONS / f"workbench-{s}.png", hicolor / f"{s}x{s}" / "apps" / f"{project.ICON_NAME}.png")
    _install(ICONS / "workbench.svg", hicolor / "scalable" / "apps" / f"{project.ICON_NAME}.svg")
    doc = usr / "share" / "doc" / project.PACKAGE
    _install_text(doc / "copyright", _copyright())
    with gzip.GzipFile(doc / "changelog.gz", "wb", mtime=0) as fh:
        fh.write(_changelog(ver).encode("utf-8"))
    os.chmod(doc / "changelog.gz", 0o644)

    debian = stage / "DEBIAN"
    debian.mkdir()
    for script in ("postinst", "postrm"):
        _install(LINUX / script, debian / script, mode=0o755)
    installed_kib = (dir_size(stage) - dir_size(debian) + 1023) // 1024
    floor, users = glibc_floor(bundle)
    cxx = libstdcxx_dependency()
    log(f"glibc floor {floor} (libc6 (>= {floor})), required by {len(users)} file(s): "
        f"{', '.join(users[:6])}{' ...' if len(users) > 6 else ''}")
    maintainer = os.environ.get("DEB_MAINTAINER", project.MAINTAINER)
    control = "\n".join([
        f"Package: {project.PACKAGE}",
        f"Version: {ver}",
        "Section: science",
        "Priority: optional",
        f"Architecture: {arch}",
        f"Maintainer: {maintainer}",
        f"Installed-Size: {installed_kib}",
        f"Depends: {', '.join([f'libc6 (>= {floor})', cxx] + DEPENDS)}",
        f"Recommends: {', '.join(RECOMMENDS)}",
        f"Description: {project.NAME}: defensible evaluation numbers",
        " Takes a spreadsheet or CSV of per-item evaluation results and gives",
        " numbers that can be defended in a ship/no-ship review: paired",
        " comparisons, ranking metrics, pass@k, micro/macro aggregation, cost per",
        " success and sample-size planning, each with its denominator and a",
        " signature of the conventions that produced it, and an Excel report.",
        " .",
        " A self-contained build: Python, Qt and the libraries are in",
        f" /opt/{project.PACKAGE}. `workbench --self-test` checks the installation.",
        "",
    ])
    _install_text(debian / "control", control)
    _install_text(debian / "md5sums", _md5sums(stage))

    out = dist / f"{name}.deb"
    if out.exists():
        out.unlink()
    # xz level 3: 94 MiB in ~25 s here (level 6 saves a few MiB for 4x the time)
    cmd = ["dpkg-deb", "--root-owner-group", "-Zxz", "-z3", "--build", str(stage), str(out)]
    log(" ".join(cmd))
    t0 = time.monotonic()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    log(f".deb built in {time.monotonic() - t0:.0f} s: {out} ({out.stat().st_size / 2**20:.0f} MiB; "
        f"installed {installed_kib / 1024:.0f} MiB)")
    return out


def _install(src: Path, dest: Path, mode: int = 0o644) -> None:
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(src, dest)
    os.chmod(dest, mode)


def _install_text(dest: Path, text: str, mode: int = 0o644) -> None:
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_text(text, encoding="utf-8")
    os.chmod(dest, mode)


def _tidy_permissions(tree: Path) -> None:
    """Folders 755, programs 755, everything else 644 (shared objects are mapped, not run)."""
    for dirpath, dirnames, filenames in os.walk(tree):
        os.chmod(dirpath, 0o755)
        for f in filenames:
            p = os.path.join(dirpath, f)
            if os.path.islink(p):
                continue
            program = os.stat(p).st_mode & 0o111 and ".so" not in f and "." not in f
            os.chmod(p, 0o755 if program else 0o644)


def _md5sums(stage: Path) -> str:
    lines = []
    for p in sorted(stage.rglob("*")):
        rel = p.relative_to(stage)
        if rel.parts[0] == "DEBIAN" or p.is_symlink() or not p.is_file():
            continue
        lines.append(f"{hashlib.md5(p.read_bytes()).hexdigest()}  {rel.as_posix()}")
    return "\n".join(lines) + "\n"


def _copyright() -> str:
    return (
        "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n"
        f"Upstream-Name: {project.NAME}\n\n"
        "Files: *\n"
        f"Copyright: 2026 {project.MAINTAINER}\n"
        f"License: {project.LICENSE}\n\n"
        f"Files: opt/{project.PACKAGE}/_internal/*\n"
        "Copyright: the respective authors\n"
        "License: various\n"
        " This self-contained build includes the Python runtime (PSF licence), Qt 6 and\n"
        " PySide6 (LGPL-3.0; dynamically linked shared libraries, replaceable in\n"
        f" /opt/{project.PACKAGE}/_internal/PySide6), NumPy, SciPy, pandas, fastparquet,\n"
        " cramjam, fsspec (BSD/MIT/Apache-2.0), pyqtgraph, openpyxl, XlsxWriter, defusedxml,\n"
        " lxml (MIT/BSD), threadpoolctl (BSD-3-Clause), sacrebleu (Apache-2.0), rouge-score\n"
        " (Apache-2.0) and NLTK\n"
        " (Apache-2.0).  Their licence texts are in their *.dist-info folders where the\n"
        " packages ship them.\n\n"
        "License: MIT\n"
        " Permission is hereby granted, free of charge, to any person obtaining a copy of this\n"
        " software and associated documentation files (the \"Software\"), to deal in the Software\n"
        " without restriction, including without limitation the rights to use, copy, modify,\n"
        " merge, publish, distribute, sublicense, and/or sell copies of the Software, and to\n"
        " permit persons to whom the Software is furnished to do so, subject to the following\n"
        " conditions:\n .\n"
        " The above copyright notice and this permission notice shall be included in all copies\n"
        " or substantial portions of the Software.\n .\n"
        " THE SOFTWARE IS PROVIDED \"AS IS\", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED.\n"
    )


def _changelog(ver: str) -> str:
    return (f"{project.PACKAGE} ({ver}) unstable; urgency=low\n\n"
            f"  * Release {ver}; see the project's git history.\n\n"
            f" -- {os.environ.get('DEB_MAINTAINER', project.MAINTAINER)}  "
            f"Thu, 01 Jan 2026 00:00:00 +0000\n")


# -- main -----------------------------------------------------------------------------------------
def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--deb", action="store_true", help="also build the Debian package")
    ap.add_argument("--skip-bundle", action="store_true", help="reuse the existing dist/workbench")
    ap.add_argument("--clean", action="store_true", help="PyInstaller from scratch")
    ap.add_argument("--no-self-test", action="store_true", help="do not run the bundle's self-test")
    ap.add_argument("--dist", default=str(ROOT / "dist"), help="output folder (default dist/)")
    ap.add_argument("--print-version", action="store_true", help="print the version and exit")
    args = ap.parse_args(argv)
    if args.print_version:
        print(project.version())
        return 0
    dist = Path(args.dist).resolve()
    dist.mkdir(parents=True, exist_ok=True)
    bundle = dist / project.EXECUTABLE
    log(f"{project.NAME} {project.version()}")
    if args.skip_bundle:
        if not (bundle / project.EXECUTABLE).exists() and not (bundle / f"{project.EXECUTABLE}.exe").exists():
            return fail(f"--skip-bundle: no bundle in {bundle}; build it first")
    else:
        bundle = build_bundle(dist, args.clean)
    report = size_report(bundle)
    print(report, flush=True)
    (dist / "bundle-size.txt").write_text(report + "\n", encoding="utf-8")
    problems = check_bundle(bundle)
    for p in problems:
        log(f"problem: {p}")
    if problems:
        return fail(f"{len(problems)} problem(s) in the bundle (above)")
    if not args.no_self_test and not args.skip_bundle:
        code = self_test(bundle)
        if code != 0:
            return fail(f"the bundle's self-test failed (exit {code})")
    if args.deb:
        if not sys.platform.startswith("linux"):
            return fail("--deb: Debian packages are built on Linux only")
        build_deb(bundle, dist)
    return 0


if __name__ == "__main__":
    sys.exit(main())
