"""What a chart gives besides its drawing: a text alternative (the table it draws, for a screen
reader and beside a copied image), and its image: copied at 2x, saved as PNG or SVG (Qt's own
SVG generator: pyqtgraph 0.14's exporter fails with PySide6 6.11 and later, pyqtgraph issue
3495), from its context menu or the Edit menu."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QByteArray, QBuffer, QIODevice, QRectF, QSize
from PySide6.QtGui import QAction, QImage, QPainter
from PySide6.QtSvg import QSvgGenerator
from PySide6.QtWidgets import QFileDialog


class ChartOutput:
    """Mixed into :class:`~workbench.ui.charts.base.Chart` (a pyqtgraph PlotWidget)."""

    #: rows of each drawn series given in the text alternative (the result's tables hold all)
    TEXT_ROWS = 40

    def text_alternative(self) -> str:
        """What the chart draws, as text (a screen reader's, and the text beside a copied image):
        its title, its caption, and each series it plotted as a small table."""
        from ...report import present

        if not self._plotted:
            return f"{self.title}: nothing drawn."
        lines = [self.title + (f". {self._note}" if getattr(self, "_note", "") else "")]
        for name, arrays in self._plotted.items():
            cols = {k: v for k, v in arrays.items() if isinstance(v, np.ndarray) and v.ndim == 1}
            if not cols:
                continue
            rows = max(len(v) for v in cols.values())
            lines.append(f"{name} ({rows:,} {'point' if rows == 1 else 'points'}):")
            lines.append("\t".join(cols))
            for i in range(min(rows, self.TEXT_ROWS)):
                lines.append("\t".join(_cell(v[i], present) if i < len(v) else "" for v in cols.values()))
            if rows > self.TEXT_ROWS:
                lines.append(f"… and {rows - self.TEXT_ROWS:,} more (the result's tables hold every row)")
        return "\n".join(lines)

    def describe(self) -> None:
        """The chart's accessible name and description: its title and its text alternative."""
        self.setAccessibleName(f"Chart: {self.title}")
        self.setAccessibleDescription(self.text_alternative())

    # -- export --------------------------------------------------------------------------------
    def _add_export_actions(self) -> None:
        menu = self.plotItem.vb.menu
        menu.addSeparator()
        for text, slot in (("Export as PNG (2x)…", self._export_png_dialog),
                           ("Export as SVG…", self._export_svg_dialog),
                           ("Copy image", self.copy_image)):
            act = QAction(text, menu)
            act.triggered.connect(slot)
            menu.addAction(act)

    def render_image(self, scale: float = 2.0) -> QImage:
        size = self.size() if self.width() > 50 else QSize(900, 520)
        image = QImage(int(size.width() * scale), int(size.height() * scale),
                       QImage.Format.Format_ARGB32)
        image.setDevicePixelRatio(scale)
        image.fill(self.backgroundBrush().color())
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        self.render(painter, QRectF(0, 0, size.width(), size.height()))
        painter.end()
        return image

    def export_png(self, path: str, scale: float = 2.0) -> None:
        if not self.render_image(scale).save(path, "PNG"):
            raise OSError(f"could not write '{path}'")

    def export_svg(self, path: str) -> None:
        """SVG through Qt's own generator (pyqtgraph's exporter fails with PySide6 >= 6.11)."""
        size = self.size() if self.width() > 50 else QSize(900, 520)
        generator = QSvgGenerator()
        generator.setFileName(path)
        generator.setSize(size)
        generator.setViewBox(QRectF(0, 0, size.width(), size.height()))
        generator.setTitle(self.title)
        painter = QPainter(generator)
        self.render(painter, QRectF(0, 0, size.width(), size.height()))
        painter.end()

    def svg_bytes(self) -> bytes:
        size = self.size() if self.width() > 50 else QSize(900, 520)
        data = QByteArray()
        buffer = QBuffer(data)
        buffer.open(QIODevice.OpenModeFlag.WriteOnly)
        generator = QSvgGenerator()
        generator.setOutputDevice(buffer)
        generator.setSize(size)
        generator.setViewBox(QRectF(0, 0, size.width(), size.height()))
        painter = QPainter(generator)
        self.render(painter, QRectF(0, 0, size.width(), size.height()))
        painter.end()
        return bytes(data)

    def copy_image(self):
        """The chart on the clipboard as an image (2x), its text alternative beside it."""
        from ..copying import copy_image

        return copy_image(self, self.text_alternative())

    def save(self, path: str) -> None:
        """Save as PNG (2x) or SVG by the name's ending, written whole or not at all."""
        from ..copying import save_image

        save_image(self, path)

    def _export_png_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Export chart as PNG", f"{self.title}.png", "PNG (*.png)")
        if path:
            self.save(path if path.lower().endswith(".png") else path + ".png")

    def _export_svg_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Export chart as SVG", f"{self.title}.svg", "SVG (*.svg)")
        if path:
            self.save(path if path.lower().endswith(".svg") else path + ".svg")


def _cell(value, present) -> str:
    """A plotted value in the text alternative: numbers by the number policy (plain)."""
    if isinstance(value, (float, np.floating, int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        return present.format_value(value, "plain")
    return str(value)


__all__ = ["ChartOutput"]
