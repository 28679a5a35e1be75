"""Render the application icon from resources/icons/workbench.svg with Qt (QSvgRenderer).

    .venv/bin/python packaging/make_icons.py [--check]

Writes beside the SVG:
  workbench-16.png ... workbench-512.png   (hicolor theme sizes for Linux, and the window icon)
  workbench.ico                            (Windows: PNG-compressed entries 16..256)
  workbench.icns                           (macOS: PNG entries 16..1024)

The ICO and ICNS containers are written here in a few lines (both hold PNG data), so no image
library is needed.  ``--check`` exits 1 when an output is missing or older than the SVG.
Runs without a screen (the offscreen Qt platform).
"""

from __future__ import annotations

import os
import struct
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ICONS = ROOT / "resources" / "icons"
SVG = ICONS / "workbench.svg"
PNG_SIZES = (16, 24, 32, 48, 64, 128, 256, 512)
ICO_SIZES = (16, 24, 32, 48, 64, 128, 256)
#: ICNS element types holding PNG data, with their pixel size
ICNS_TYPES = (("icp4", 16), ("icp5", 32), ("icp6", 64), ("ic07", 128), ("ic08", 256),
              ("ic09", 512), ("ic10", 1024), ("ic11", 32), ("ic12", 64), ("ic13", 256),
              ("ic14", 512))


def outputs() -> list[Path]:
    return [ICONS / f"workbench-{s}.png" for s in PNG_SIZES] + [ICONS / "workbench.ico",
                                                                  ICONS / "workbench.icns"]


def up_to_date() -> bool:
    svg_time = SVG.stat().st_mtime
    return all(p.is_file() and p.stat().st_mtime >= svg_time for p in outputs())


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
        ok = up_to_date()
        print("icons up to date" if ok else "icons missing or older than workbench.svg")
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
    print(f"make_icons: {len(PNG_SIZES)} PNGs, workbench.ico, workbench.icns in "
          f"{ICONS.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
