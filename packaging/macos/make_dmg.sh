#!/usr/bin/env bash
# Wrap "dist/Eval Workbench.app" (made by `python packaging/build.py` on macOS: the BUNDLE
# section of packaging/workbench.spec) into dist/EvalWorkbench-VERSION-macos-ARCH.dmg with
# hdiutil.  macOS only; cannot be run on the Linux development machine.
#
#   PYTHON=.venv/bin/python bash packaging/macos/make_dmg.sh
#
# Optional signing: CODESIGN_IDENTITY="Developer ID Application: ..." signs the app (hardened
# runtime) before it is packed, and NOTARY_PROFILE=<notarytool keychain profile> notarizes and
# staples the dmg.  Unsigned, Gatekeeper asks the user to confirm the first start
# (right-click > Open).
set -euo pipefail
cd "$(dirname "$0")/../.."
PYTHON=${PYTHON:-python3}
VERSION=$("$PYTHON" packaging/build.py --print-version)
APP="dist/Eval Workbench.app"
ARCH=$(uname -m)
DMG="dist/EvalWorkbench-${VERSION}-macos-${ARCH}.dmg"

[ "$(uname -s)" = Darwin ] || { echo "make_dmg: macOS only (hdiutil)" >&2; exit 2; }
[ -d "$APP" ] || { echo "make_dmg: $APP is missing; run $PYTHON packaging/build.py first" >&2; exit 2; }
plist_version=$(/usr/libexec/PlistBuddy -c "Print :CFBundleShortVersionString" "$APP/Contents/Info.plist")
[ "$plist_version" = "$VERSION" ] || { echo "make_dmg: the app says $plist_version, the source $VERSION" >&2; exit 1; }

if [ -n "${CODESIGN_IDENTITY:-}" ]; then
  codesign --deep --force --timestamp --options runtime --sign "$CODESIGN_IDENTITY" "$APP"
  codesign --verify --deep --strict "$APP"
fi

STAGE=$(mktemp -d)
trap 'rm -rf "$STAGE"' EXIT
cp -R "$APP" "$STAGE/"
ln -s /Applications "$STAGE/Applications"
rm -f "$DMG"
hdiutil create -volname "Eval Workbench $VERSION" -srcfolder "$STAGE" -fs HFS+ -format UDZO \
  -imagekey zlib-level=9 -ov "$DMG"

if [ -n "${NOTARY_PROFILE:-}" ]; then
  xcrun notarytool submit "$DMG" --keychain-profile "$NOTARY_PROFILE" --wait
  xcrun stapler staple "$DMG"
fi
echo "make_dmg: $DMG ($(du -h "$DMG" | cut -f1))"
