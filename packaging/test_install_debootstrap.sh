#!/usr/bin/env bash
# Install the .deb into a clean Debian root (debootstrap), use it there as the README says (its
# self-test, the no-display message, the installed-use section as written), then purge it and
# check that nothing is left behind.
#
#   sudo packaging/test_install_debootstrap.sh [DEB] [--suite bookworm|trixie] [--mirror URL] [--keep]
#
# DEB defaults to the newest dist/eval-workbench_*.deb.  Needs root, debootstrap
# (apt-get install debootstrap) and python3 (to read the README).  Run once per Linux system the
# README names as tested (bookworm = Debian 12, trixie = Debian 13).  The pristine root is cached
# as build/debootstrap/SUITE.tar, so later runs skip debootstrap.  Steps, each printed:
#   1. a minimal Debian root (debootstrap --variant=minbase), with a user "analyst";
#   2. the package's Depends and Recommends from apt (so the maintainer scripts' desktop, MIME
#      and icon database updates really run), then a snapshot of the file system;
#   3. dpkg -i; the files dpkg lists; MIME type and desktop entry registered; every shared
#      library of the bundle resolves (ldd); as the user, with no display and QT_QPA_PLATFORM
#      unset: `workbench --version`, a headless analysis, `workbench` alone (one sentence saying
#      there is no display, exit 2), `workbench --self-test` (offscreen by default), and the
#      README's "Using the installed workbench" block as written (packaging/readme_block.py);
#   4. dpkg --purge; a second snapshot: no file may be added or removed, and the MIME, desktop
#      and icon caches must be byte-identical to before.
# Exit 0 only if every step passed.
set -euo pipefail
cd "$(dirname "$0")/.."

SUITE=bookworm
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
KEEP=0
DEB=""
while [ $# -gt 0 ]; do
  case "$1" in
    --suite) SUITE=$2; shift 2 ;;
    --mirror) MIRROR=$2; shift 2 ;;
    --keep) KEEP=1; shift ;;
    -h|--help) sed -n '2,24p' "$0"; exit 0 ;;
    *) DEB=$1; shift ;;
  esac
done
if [ -z "$DEB" ]; then
  DEB=$(ls -t dist/eval-workbench_*.deb 2>/dev/null | head -1 || true)
fi
[ -n "$DEB" ] && [ -f "$DEB" ] || { echo "test-install: no .deb (build one: python packaging/build.py --deb)" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "test-install: needs root (chroot, mounts)" >&2; exit 2; }
command -v debootstrap >/dev/null || { echo "test-install: needs debootstrap (apt-get install debootstrap)" >&2; exit 2; }
command -v python3 >/dev/null || { echo "test-install: needs python3 (to read the README's commands)" >&2; exit 2; }

START=$(date +%s)
step() { echo "== [$(( $(date +%s) - START ))s] $*"; }
PKG=$(dpkg-deb -f "$DEB" Package)
CACHE=build/debootstrap
ROOT=$(mktemp -d "${TMPDIR:-/tmp}/workbench-root.XXXXXX")
chmod 755 "$ROOT"  # the root's / must be traversable by the unprivileged user
mkdir -p "$CACHE"

cleanup() {
  for m in proc sys dev/pts dev; do
    mountpoint -q "$ROOT/$m" 2>/dev/null && umount -l "$ROOT/$m" || true
  done
  if [ "$KEEP" = 1 ]; then echo "test-install: root kept in $ROOT"; else rm -rf "$ROOT"; fi
}
trap cleanup EXIT

in_root() { chroot "$ROOT" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"; }

# -- 1. a clean Debian root ---------------------------------------------------------------------
if [ -f "$CACHE/$SUITE.tar" ]; then
  step "clean $SUITE root from the cache $CACHE/$SUITE.tar"
  tar -C "$ROOT" -xpf "$CACHE/$SUITE.tar"
else
  step "debootstrap --variant=minbase $SUITE ($MIRROR)"
  debootstrap --variant=minbase "$SUITE" "$ROOT" "$MIRROR" >"$CACHE/debootstrap-$SUITE.log" 2>&1 \
    || { tail -20 "$CACHE/debootstrap-$SUITE.log"; exit 1; }
  echo "deb $MIRROR $SUITE main" >"$ROOT/etc/apt/sources.list"
  in_root apt-get clean
  tar -C "$ROOT" -cpf "$CACHE/$SUITE.tar" .
fi
chmod 755 "$ROOT"
mount -t proc proc "$ROOT/proc"
mount --bind /dev "$ROOT/dev"
mount -t sysfs sysfs "$ROOT/sys"
cp /etc/resolv.conf "$ROOT/etc/resolv.conf" 2>/dev/null || true
in_root useradd -m -s /bin/bash analyst
cp "$DEB" "$ROOT/tmp/package.deb"

# -- 2. dependencies, then the "before" snapshot -----------------------------------------------
deps=$(dpkg-deb -f "$DEB" Depends Recommends | sed 's/^[A-Za-z-]*: //' | tr ',' '\n' \
       | sed 's/([^)]*)//g; s/|.*//; s/ //g' | grep -v '^$' | sort -u | tr '\n' ' ')
step "apt-get install the Depends and Recommends: $deps"
in_root apt-get update -qq
in_root apt-get install -y -qq --no-install-recommends $deps >"$CACHE/apt-$SUITE.log" 2>&1 \
  || { tail -20 "$CACHE/apt-$SUITE.log"; exit 1; }

snapshot() {  # every path (type, mode, owner) + checksums of the shared databases
  in_root sh -c 'find / -xdev \( -path /proc -o -path /sys -o -path /dev -o -path /tmp -o -path /home \
      -o -path /root -o -path /run -o -path /var/lib/dpkg -o -path /var/log -o -path /var/cache/apt \
      -o -path /var/lib/apt -o -path /var/cache/debconf \) -prune -o -printf "%y %m %u %p\n" | sort;
    find /usr/share/mime /usr/share/applications /usr/share/icons /etc -xdev -type f \
      -exec md5sum {} + 2>/dev/null | sort -k2'
}
snapshot >"$ROOT/../before.$$"

# -- 3. install, inspect, run --------------------------------------------------------------------
FAIL=0
check() {  # check "what" command...
  local what=$1; shift
  if "$@"; then echo "ok   $what"; else echo "FAIL $what"; FAIL=1; fi
}
step "dpkg -i $(basename "$DEB") into $SUITE ($(. "$ROOT/etc/os-release"; echo "$PRETTY_NAME"), glibc $(in_root ldd --version | head -1 | awk '{print $NF}'))"
in_root dpkg -i /tmp/package.deb
in_root dpkg -L "$PKG" >"$ROOT/tmp/files.txt"
echo "     $(wc -l <"$ROOT/tmp/files.txt") paths installed; size $(du -sh "$ROOT/opt/$PKG" | cut -f1)"
check "/usr/bin/workbench is the bundle's program" test -x "$ROOT/opt/$PKG/workbench" -a -L "$ROOT/usr/bin/workbench"
check "desktop entry installed" grep -q "^/usr/share/applications/workbench.desktop$" "$ROOT/tmp/files.txt"
check "hicolor icons installed" grep -q "^/usr/share/icons/hicolor/scalable/apps/eval-workbench.svg$" "$ROOT/tmp/files.txt"
check "MIME type registered (*.wbsession.json)" grep -q "x-workbench-session:\*\.wbsession\.json" "$ROOT/usr/share/mime/globs2"
check "desktop entry handles the session MIME type" grep -q "application/x-workbench-session=.*workbench.desktop" "$ROOT/usr/share/applications/mimeinfo.cache"
check "icon cache lists the icon" in_root sh -c 'test ! -f /usr/share/icons/hicolor/icon-theme.cache || grep -q eval-workbench /usr/share/icons/hicolor/icon-theme.cache'

# one ldd for many files (a process per file took a minute); ldd heads each file's list "FILE:"
unresolved=$(in_root sh -c 'cd /opt/'"$PKG"'/_internal && export LD_LIBRARY_PATH=$(find . -name "*.so*" -printf "/opt/'"$PKG"'/_internal/%h\n" | sort -u | tr "\n" ":") &&
  find /opt/'"$PKG"' -type f \( -name "*.so*" -o -name workbench \) -print0 | xargs -0 ldd 2>/dev/null \
  | awk "/^\\// && /:\$/ {f=\$0} /not found/ {print f \" \" \$0}"' | sort -u)
if [ -n "$unresolved" ]; then echo "$unresolved" | head -20; fi
check "every shared library of the bundle resolves in the clean root" test -z "$unresolved"

as_user() { chroot "$ROOT" /usr/bin/env -i PATH=/usr/bin:/bin HOME=/home/analyst USER=analyst LANG=C.UTF-8 \
            setpriv --reuid=analyst --regid=analyst --init-groups "$@"; }
check "workbench --version" as_user workbench --version
check "headless analysis (workbench plan)" as_user workbench plan --rate 0.8 --n 100
rc=0; no_display=$(as_user workbench 2>&1 >/dev/null) || rc=$?
echo "     $ workbench   (no display) -> exit $rc: $no_display"
check "workbench alone, no display: exit 2 and one sentence saying so" \
  test "$rc" = 2 -a "$(printf '%s\n' "$no_display" | wc -l)" = 1 -a -n "$(printf '%s' "$no_display" | grep -i 'no display')"
step "workbench --self-test (as user analyst, no display)"
t0=$(date +%s)
if as_user workbench --self-test; then echo "ok   self-test in $(( $(date +%s) - t0 )) s"; else echo "FAIL self-test"; FAIL=1; fi
step "the README's installed-use section, as written (as user analyst, no display)"
python3 packaging/readme_block.py --script README.md >"$ROOT/tmp/installed-use.sh"
chmod 755 "$ROOT/tmp/installed-use.sh"
if as_user bash /tmp/installed-use.sh; then echo "ok   README installed-use section"; else echo "FAIL README installed-use section"; FAIL=1; fi
strays=$(in_root sh -c 'find /opt/'"$PKG"' /usr/share/applications /usr/share/mime/packages -xdev -newer /tmp/files.txt -type f' \
         | grep -v -x -F -f "$ROOT/tmp/files.txt" | grep -v -E '^/usr/share/applications/mimeinfo.cache$' || true)
check "the program wrote nothing into the installation" test -z "$strays"
[ -z "$strays" ] || echo "$strays" | head

# -- 4. purge, then the "after" snapshot -------------------------------------------------------
step "dpkg --purge $PKG"
in_root dpkg --purge "$PKG"
snapshot >"$ROOT/../after.$$"
if diff "$ROOT/../before.$$" "$ROOT/../after.$$" >"$ROOT/../diff.$$"; then
  echo "ok   purge left nothing behind (paths, modes, owners; MIME/desktop/icon caches identical)"
else
  echo "FAIL purge left differences:"; head -30 "$ROOT/../diff.$$"; FAIL=1
fi
rm -f "$ROOT/../before.$$" "$ROOT/../after.$$" "$ROOT/../diff.$$"

step "done: $([ $FAIL = 0 ] && echo PASSED || echo FAILED) in $(( $(date +%s) - START )) s"
exit $FAIL
