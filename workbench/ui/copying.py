"""Copy what you see: a results table as a real table (HTML, the numbers as shown) and as
tab-separated text (full precision) in one copy; the answer with its signature as text or
Markdown (a review document's form: the sentence, the headline table, the signature); a card or
a chart as an image (PNG at 2x) or saved as PNG or SVG.

Every number in these comes from the views, which take it from the one number policy; nothing
here formats a number.
"""

from __future__ import annotations

import html
import os

from PySide6.QtCore import (
    QBuffer,
    QByteArray,
    QIODevice,
    QMimeData,
    QPoint,
    QRectF,
    QSize,
    Qt,
)
from PySide6.QtGui import QGuiApplication, QImage, QPainter

#: above this many cells a copy carries the text only (an HTML table of a whole data file
#: would take the clipboard's owner seconds to build and the receiving program longer to paste)
HTML_CELLS = 200_000


# -- tables ------------------------------------------------------------------------------------

def shown_grid(view, rows=None, columns=None) -> tuple[list[str], list[list[str]], list[bool]]:
    """(headers, rows of cell texts, right-aligned per column) of a table view as it is shown:
    display names, formatted numbers, the columns the view hides left out."""
    model = view.model()
    cols = [c for c in (range(model.columnCount()) if columns is None else columns)
            if not view.isColumnHidden(c)]
    rows = list(range(model.rowCount()) if rows is None else rows)
    headers = [str(model.headerData(c, Qt.Orientation.Horizontal) or "") for c in cols]
    grid, right = [], [False] * len(cols)
    for r in rows:
        line = []
        for j, c in enumerate(cols):
            index = model.index(r, c)
            line.append(str(model.data(index) or ""))
            align = model.data(index, Qt.ItemDataRole.TextAlignmentRole)
            if align is not None and int(align) & int(Qt.AlignmentFlag.AlignRight):
                right[j] = True
        grid.append(line)
    return headers, grid, right


def grid_html(headers, grid, right, caption: str = "") -> str:
    """An HTML table (what word processors and spreadsheets paste as a table)."""
    def cell(tag: str, text: str, j: int) -> str:
        style = ' style="text-align:right"' if right[j] else ""
        return f"<{tag}{style}>{html.escape(text)}</{tag}>"

    head = "".join(cell("th", h, j) for j, h in enumerate(headers))
    body = "".join("<tr>" + "".join(cell("td", t, j) for j, t in enumerate(line)) + "</tr>" for line in grid)
    cap = f"<caption>{html.escape(caption)}</caption>" if caption else ""
    return (f'<table border="1" cellspacing="0" cellpadding="3">{cap}<thead><tr>{head}</tr></thead>'
            f"<tbody>{body}</tbody></table>")


def grid_markdown(headers, grid, right) -> str:
    """A Markdown (GitHub) table: numbers right-aligned, pipes in cells escaped."""
    def esc(text: str) -> str:
        return text.replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(esc(h) for h in headers) + " |",
             "| " + " | ".join("---:" if r else "---" for r in right) + " |"]
    lines += ["| " + " | ".join(esc(t) for t in line) + " |" for line in grid]
    return "\n".join(lines)


def table_mime(view, rows=None, columns=None) -> QMimeData:
    """A copy of a table view: text/plain tab-separated at full precision (the model's
    ``to_tsv``), text/html the table as shown."""
    model = view.model()
    data = QMimeData()
    data.setText(model.to_tsv(rows=rows, columns=columns))
    n_rows = model.rowCount() if rows is None else len(rows)
    n_cols = model.columnCount() if columns is None else len(columns)
    if n_rows * max(1, n_cols) <= HTML_CELLS:
        data.setHtml(grid_html(*shown_grid(view, rows, columns), caption=view.toolTip()))
    return data


def copy_mime(data: QMimeData) -> None:
    QGuiApplication.clipboard().setMimeData(data)


# -- the answer --------------------------------------------------------------------------------

def answer_text(card, signature: str) -> str:
    """The card's sentence and its signature: "Ship: ... (signature: ...)" as one paste."""
    text = card.plain_text()
    return f"{text}\nSignature: {signature}" if signature else text


def answer_markdown(card, signature: str, table=None, title: str = "") -> str:
    """The answer for a review document: a heading, the sentence (its badge in bold), the
    headline table as shown, the signature as code."""
    badge = card.badge.text() if card.badge.isVisible() else ""
    sentence = " ".join(card.sentences) or card.text.text()
    parts = [f"### {title}"] if title else []
    parts.append((f"**{badge}** " if badge else "") + sentence)
    if table is not None and table.model().rowCount():
        parts.append(grid_markdown(*shown_grid(table)))
    if signature:
        parts.append(f"Signature: `{signature}`")
    return "\n\n".join(parts) + "\n"


# -- images ------------------------------------------------------------------------------------

def _size(widget) -> QSize:
    size = widget.size()
    return size if size.width() > 50 and size.height() > 20 else widget.sizeHint().expandedTo(QSize(600, 120))


def widget_image(widget, scale: float = 2.0) -> QImage:
    """The widget drawn at ``scale`` times its size (sharp on a high-DPI screen or in print)."""
    if hasattr(widget, "render_image"):  # a chart draws itself (its scene at the scale)
        return widget.render_image(scale)
    size = _size(widget)
    image = QImage(int(size.width() * scale), int(size.height() * scale), QImage.Format.Format_ARGB32)
    image.setDevicePixelRatio(scale)
    image.fill(widget.palette().color(widget.backgroundRole()))
    painter = QPainter(image)
    try:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
        widget.render(painter, QPoint())
    finally:
        painter.end()
    return image


def widget_svg(widget) -> bytes:
    """The widget as SVG, drawn by Qt's own generator (pyqtgraph 0.14's SVG exporter fails
    with PySide6 6.11 and later: pyqtgraph issue 3495)."""
    from PySide6.QtSvg import QSvgGenerator

    if hasattr(widget, "svg_bytes"):
        return widget.svg_bytes()
    size = _size(widget)
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    generator = QSvgGenerator()
    generator.setOutputDevice(buffer)
    generator.setSize(size)
    generator.setViewBox(QRectF(0, 0, size.width(), size.height()))
    generator.setTitle(widget.accessibleName() or widget.objectName())
    painter = QPainter(generator)
    try:
        widget.render(painter, QPoint())
    finally:
        painter.end()
    buffer.close()
    return bytes(data)


def copy_image(widget, text: str = "") -> QImage:
    """The widget as an image on the clipboard (with ``text``, its text alternative, beside it)."""
    image = widget_image(widget, 2.0)
    data = QMimeData()
    data.setImageData(image)
    if text:
        data.setText(text)
    copy_mime(data)
    return image


def save_image(widget, path: str) -> None:
    """Save as PNG (2x) or SVG, by the name's ending; the file is written whole or not at all."""
    from ..core.session import atomic_write_bytes

    if path.lower().endswith(".svg"):
        atomic_write_bytes(path, widget_svg(widget))
        return
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    if not widget_image(widget, 2.0).save(buffer, "PNG"):
        raise OSError(f"could not draw the image for '{os.path.basename(path)}'")
    buffer.close()
    atomic_write_bytes(path, bytes(data))


__all__ = ["answer_markdown", "answer_text", "copy_image", "copy_mime", "grid_html", "grid_markdown",
           "save_image", "shown_grid", "table_mime", "widget_image", "widget_svg"]
