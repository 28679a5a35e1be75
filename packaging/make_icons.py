"""Render the application icon from resources/icons/workbench.svg with Qt (QSvgRenderer).

    .venv/bin/python packaging/make_icons.py [--check]

Writes beside the SVG:
  workbench-16.png ... workbench-512.png   (hicolor theme sizes for Linux, and the window icon)
  workbench.ico                            (Windows: PNG-compressed entries 16..256)
  workbench.icns                           (macOS: PNG entries 16..1024)

The ICO and ICNS containers are written here in a few lines (both hold PNG data), so no image
library is needed.  Beside them, ``icons.sha256`` records the SHA-256 of the SVG they were
rendered from and of each output.  ``--check`` compares *content*, never file times (a clone
does not keep them, and another Qt renders other bytes): it exits 0 when the SVG and every
output hash to what the stamp says, so a clean clone stays clean and the packages ship the
committed icons; 1 when an output is missing or changed, or the SVG changed since the render.
Runs without a screen (the offscreen Qt platform).
"""

from __future__ import annotations

import hashlib
import os
import struct
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ICONS = ROOT / "resources" / "icons"
SVG = ICONS / "workbench.svg"
STAMP = ICONS / "icons.sha256"
PNG_SIZES = (16, 24, 32, 48, 64, 128, 256, 512)
ICO_SIZES = (16, 24, 32, 48, 64, 128, 256)
#: ICNS element types holding PNG data, with their pixel size
ICNS_TYPES = (("icp4", 16), ("icp5", 32), ("icp6", 64), ("ic07", 128), ("ic08", 256),
              ("ic09", 512), ("ic10", 1024), ("ic11", 32), ("ic12", 64), ("ic13", 256),
              ("ic14", 512))


def outputs() -> list[Path]:
    return [ICONS / f"workbench-{s}.png" for s in PNG_SIZES] + [ICONS / "workbench.ico",
                                                                  ICONS / "workbench.icns"]


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def stamp_text() -> str:
    """The stamp of the files as they are now: ``<sha256>  <name>`` per line (sha256sum's form),
    the SVG first."""
    return "".join(f"{_sha256(p)}  {p.name}\n" for p in (SVG, *outputs()))


def check() -> tuple[bool, str]:
    """(up to date, why not): the SVG and every output against the stamp, by content."""
    if not STAMP.is_file():
        return False, f"{STAMP.name} is missing"
    recorded = {}
    for line in STAMP.read_text(encoding="utf-8").splitlines():
        digest, _, name = line.partition("  ")
        recorded[name.strip()] = digest.strip()
    for path in (SVG, *outputs()):
        if not path.is_file():
            return False, f"{path.name} is missing"
        if recorded.get(path.name) != _sha256(path):
            what = "workbench.svg changed since the icons were rendered" if path == SVG else \
                f"{path.name} differs from the render recorded in {STAMP.name}"
            return False, what
    return True, "icons up to date (content of workbench.svg and of every output as recorded)"


def up_to_date() -> bool:
    return check()[0]


def render_png(renderer, size: int) -> bytes:
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QRectF, Qt
    from PySide6.QtGui import QImage, QPainter

    image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform, True)
    renderer.render(painter, QRectF(0, 0, size, size))
    painter.end()
    data = QByteArray()
    buf = QBuffer(data)
    buf.open(QIODevice.OpenModeFlag.WriteOnly)
    if not image.save(buf, "PNG"):
        raise RuntimeError(f"cannot encode a {size}px PNG")
    buf.close()
    return bytes(data)


def ico(pngs: dict[int, bytes]) -> bytes:
    sizes = [s for s in ICO_SIZES if s in pngs]
    header = struct.pack("<HHH", 0, 1, len(sizes))
    offset = len(header) + 16 * len(sizes)
    entries, blobs = b"", b""
    for s in sizes:
        data = pngs[s]
        dim = 0 if s >= 256 else s
        entries += struct.pack("<BBBBHHII", dim, dim, 0, 0, 1, 32, len(data), offset)
        blobs += data
        offset += len(data)
    return header + entries + blobs


def icns(pngs: dict[int, bytes]) -> bytes:
    body = b""
    for kind, s in ICNS_TYPES:
        data = pngs[s]
        body += kind.encode("ascii") + struct.pack(">I", len(data) + 8) + data
    return b"icns" + struct.pack(">I", len(body) + 8) + body


def main(argv: list[str]) -> int:
    if "--check" in argv:
        ok, why = check()
        print(why)
        return 0 if ok else 1
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtGui import QGuiApplication
    from PySide6.QtSvg import QSvgRenderer

    app = QGuiApplication.instance() or QGuiApplication([sys.argv[0]])  # noqa: F841 - keeps Qt up
    renderer = QSvgRenderer(str(SVG))
    if not renderer.isValid():
        print(f"make_icons: {SVG} is not a valid SVG", file=sys.stderr)
        return 1
    sizes = sorted(set(PNG_SIZES) | {s for _k, s in ICNS_TYPES})
    pngs = {s: render_png(renderer, s) for s in sizes}
    for s in PNG_SIZES:
        (ICONS / f"workbench-{s}.png").write_bytes(pngs[s])
    (ICONS / "workbench.ico").write_bytes(ico(pngs))
    (ICONS / "workbench.icns").write_bytes(icns(pngs))
    STAMP.write_text(stamp_text(), encoding="utf-8")
    print(f"make_icons: {len(PNG_SIZES)} PNGs, workbench.ico, workbench.icns, {STAMP.name} in "
          f"{ICONS.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
