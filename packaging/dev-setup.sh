#!/usr/bin/env bash
# Prepares a fresh Debian/Ubuntu checkout: the system libraries Qt needs (installed when run as
# root, named in one line otherwise), a virtual environment in .venv, and the project with its
# test extra.  Idempotent and quick when nothing changed.
set -euo pipefail
cd "$(dirname "$0")/.."

PY=${PYTHON:-python3}
QT_LIBS="libgl1 libegl1 libxkbcommon0 libfontconfig1 libfreetype6 libdbus-1-3 libglib2.0-0 libx11-6 fonts-dejavu-core"

missing=""
if command -v dpkg-query >/dev/null 2>&1; then
  for pkg in $QT_LIBS; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing="$missing $pkg"
  done
fi
if ! "$PY" -c "import venv, ensurepip" >/dev/null 2>&1; then
  missing="$missing python3-venv"
fi
if [ -n "$missing" ]; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "dev-setup: installing system packages:$missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends $missing >/dev/null
  else
    echo "dev-setup: Qt needs system libraries; run: sudo apt-get install -y$missing" >&2
  fi
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
