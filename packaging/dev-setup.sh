#!/usr/bin/env bash
# Prepares a fresh Debian/Ubuntu checkout: the system libraries Qt needs (installed when run as
# root, named in one line otherwise), a virtual environment in .venv, and the project with its
# test extra.  Idempotent and quick when nothing changed.
set -euo pipefail
cd "$(dirname "$0")/.."

PY=${PYTHON:-python3}
QT_LIBS="libgl1 libegl1 libxkbcommon0 libfontconfig1 libfreetype6 libdbus-1-3 libglib2.0-0 libx11-6 fonts-dejavu-core"
# The X11 (xcb) platform plug-in that a real window needs (`make gui` on a desktop): without
# these Qt aborts with "could not load the Qt platform plugin xcb" (offscreen tests need none).
XCB_LIBS="libxcb-cursor0 libxcb-icccm4 libxcb-image0 libxcb-keysyms1 libxcb-randr0 libxcb-render-util0 libxcb-shape0 libxcb-xkb1 libxkbcommon-x11-0 libx11-xcb1"

# missing_packages PKG...: the Debian packages among PKG that are not installed
missing_packages() {
  local out="" pkg
  command -v dpkg-query >/dev/null 2>&1 || return 0
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || out="$out $pkg"
  done
  echo "$out"
}

# apt_install WHAT PKG...: install the packages as root, or name the apt-get line to run
apt_install() {
  local what="$1"; shift
  [ "$#" -gt 0 ] || return 0
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "dev-setup: installing $what:" "$@"
    export DEBIAN_FRONTEND=noninteractive
    # wait for another apt/dpkg (unattended-upgrades, a second make) instead of failing at once:
    # install waits for the dpkg lock itself (DPkg::Lock::Timeout); update does not wait for the
    # package lists' lock (apt 2.6), so it is retried while that lock is what it reports
    local APT_LOCK_TIMEOUT=${APT_LOCK_TIMEOUT:-600} waited=0 out
    while ! out=$(apt-get -o DPkg::Lock::Timeout="$APT_LOCK_TIMEOUT" update -qq 2>&1); do
      if [ "$waited" -lt "$APT_LOCK_TIMEOUT" ] && printf '%s' "$out" | grep -q "Could not get lock"; then
        [ "$waited" -gt 0 ] || echo "dev-setup: another apt holds the package lists; waiting (up to ${APT_LOCK_TIMEOUT} s)"
        sleep 5; waited=$((waited + 5))
      else
        printf '%s\n' "$out" >&2; return 1
      fi
    done
    apt-get -o DPkg::Lock::Timeout="$APT_LOCK_TIMEOUT" install -y -qq --no-install-recommends "$@" >/dev/null
  else
    echo "dev-setup: $what are missing; run: sudo apt-get install -y $*" >&2
  fi
}

missing=$(missing_packages $QT_LIBS $XCB_LIBS)
if ! "$PY" -c "import venv, ensurepip" >/dev/null 2>&1; then
  missing="$missing python3-venv"
fi
# shellcheck disable=SC2086  # word splitting of the package list is intended
apt_install "the system libraries Qt needs" $missing
# Java 17 for the Spark engine's tests (pyspark 3.5 comes with the test extra and runs on Java
# 8/11/17); a system without that package (Debian 13 has Java 21 only) skips those tests
if ! command -v java >/dev/null 2>&1 && [ "$(id -u)" = "0" ]; then
  apt_install "Java for the Spark engine's tests" openjdk-17-jre-headless \
    || echo "dev-setup: openjdk-17-jre-headless could not be installed; the Spark engine's tests will skip" >&2
fi

if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
stamp=.venv/.workbench-installed
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
  .venv/bin/python -m pip install -q --upgrade pip
  .venv/bin/python -m pip install -q -e ".[test]"
  touch "$stamp"
fi
# The package's modules compiled once here: a machine that sets PYTHONDONTWRITEBYTECODE (CI
# sandboxes do) would otherwise compile every module from source at each start of the window
# (about 0.25 s of its cold start; an installed bundle has them compiled already)
.venv/bin/python -m compileall -q workbench >/dev/null || true

# Packaging (`make package` sets WORKBENCH_PACKAGE=1): PyInstaller (the `package` extra), the
# tools it needs (objdump from binutils), and the X11/xcb libraries that the bundle's desktop
# platform plug-in links, so that build.py's check finds every library the .deb depends on.
if [ "${WORKBENCH_PACKAGE:-}" = "1" ]; then
  PACKAGE_LIBS="binutils libopengl0 libx11-xcb1 libxcb-cursor0 libxcb-glx0 libxcb-icccm4 libxcb-image0 libxcb-keysyms1 libxcb-randr0 libxcb-render-util0 libxcb-shape0 libxcb-shm0 libxcb-sync1 libxcb-util1 libxcb-xfixes0 libxcb-xkb1 libxkbcommon-x11-0 desktop-file-utils"
  # shellcheck disable=SC2086
  apt_install "packaging tools and libraries" $(missing_packages $PACKAGE_LIBS)
  if ! .venv/bin/python -c "import PyInstaller, fastparquet" >/dev/null 2>&1; then
    .venv/bin/python -m pip install -q -e ".[package]"
  fi
fi
