"""Small reusable widgets: a copyable table view, the exception dialog, a busy bar."""

from __future__ import annotations

from contextlib import contextmanager

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QAction, QGuiApplication, QKeySequence
from PySide6.QtWidgets import (QAbstractItemView, QApplication, QDialog, QDialogButtonBox, QScrollArea,
                               QHBoxLayout, QHeaderView, QLabel, QPlainTextEdit, QProgressBar,
                               QPushButton, QTableView, QVBoxLayout, QWidget)



class TableView(QTableView):
    """A table view over a :class:`FrameModel` with copy as TSV (Ctrl+C, context menu)."""

    def __init__(self, model=None, parent=None) -> None:
        super().__init__(parent)
        if model is None:
            from .models import FrameModel  # pandas: not needed for the first paint

            model = FrameModel()
        self.setModel(model)
        self.setSortingEnabled(True)
        # file order until the user clicks a header (enabling sorting would show column 0 sorted)
        self.horizontalHeader().setSortIndicator(-1, Qt.SortOrder.AscendingOrder)
        self.setAlternatingRowColors(True)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectItems)
        self.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.horizontalHeader().setStretchLastSection(True)
        self.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.ActionsContextMenu)
        copy_sel = QAction("Copy selection", self)
        copy_sel.setShortcut(QKeySequence.StandardKey.Copy)
        copy_sel.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)
        copy_sel.triggered.connect(self.copy_selection)
        copy_all = QAction("Copy table (as shown, and tab-separated at full precision)", self)
        copy_all.triggered.connect(self.copy_all)
        copy_md = QAction("Copy table as Markdown", self)
        copy_md.triggered.connect(self.copy_markdown)
        self.addAction(copy_sel)
        self.addAction(copy_all)
        self.addAction(copy_md)

    def frame_model(self):
        return self.model()  # type: ignore[return-value]

    def copy_markdown(self) -> str:
        """The table as shown, as a Markdown table."""
        from .copying import grid_markdown, shown_grid

        text = grid_markdown(*shown_grid(self))
        QGuiApplication.clipboard().setText(text)
        return text

    def copy_all(self) -> str:
        """The whole table: tab-separated text at full precision and an HTML table as shown."""
        from .copying import copy_mime, table_mime

        data = table_mime(self)
        copy_mime(data)
        return data.text()

    def copy_selection(self) -> str:
        """The selected cells (the whole table when none is), as :meth:`copy_all` copies."""
        from .copying import copy_mime, table_mime

        indexes = self.selectionModel().selectedIndexes() if self.selectionModel() else []
        if not indexes:
            return self.copy_all()
        rows = sorted({i.row() for i in indexes})
        cols = sorted({i.column() for i in indexes})
        data = table_mime(self, rows=rows, columns=cols)
        copy_mime(data)
        return data.text()

    def changeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        """A new font (presentation mode): rows and fitted columns follow it."""
        super().changeEvent(event)
        from PySide6.QtCore import QEvent

        if event.type() == QEvent.Type.FontChange:
            self.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
            if getattr(self, "_fit_cap", None) is not None:
                scale = self.fontMetrics().averageCharWidth() / max(1, self._fit_char)
                self.fit_columns(int(self._fit_cap * scale))

    #: above this many rows, text is elided instead of wrapped (measuring every row costs time)
    WRAP_ROWS = 400

    def wrap_text(self) -> None:
        """Long text wraps onto a second line instead of being cut in the middle ("McNemar,
        conti...y-corrected: p"): rows grow to their text, again whenever a column's width
        changes (the window, the splitter).  Tables longer than :attr:`WRAP_ROWS` elide."""
        if not getattr(self, "_wrapping", False):
            self._wrapping = True
            self.setWordWrap(True)
            self.horizontalHeader().sectionResized.connect(self._rewrap)
            self.frame_model().modelReset.connect(self._rewrap)
        self._rewrap()

    @contextmanager
    def one_rewrap(self):
        """The rows' heights worked out once, after the changes made inside (a new frame,
        hidden columns, fitted widths), not after each of them (each is a pass over the rows)."""
        held = getattr(self, "_fitting", False)
        self._fitting = True
        try:
            yield self
        finally:
            self._fitting = held
        if not held and getattr(self, "_wrapping", False):
            self._rewrap()

    def _rewrap(self, *_args) -> None:
        if getattr(self, "_fitting", False):  # inside one_rewrap: once, at its end
            return
        if self.frame_model().rowCount() <= self.WRAP_ROWS:
            self.resizeRowsToContents()

    def stretch_column(self, column: int, least_chars: int) -> None:
        """Column ``column`` takes the room the other columns leave, but never less than
        ``least_chars`` average characters: in a narrow window it keeps that width (its text
        wrapped) and the table scrolls sideways, instead of shrinking to "…"."""
        self._stretch = (column, least_chars)
        self.apply_stretch()

    def apply_stretch(self) -> None:
        """:meth:`stretch_column` for the view's width and its other columns' widths now."""
        column, chars = getattr(self, "_stretch", (None, 0))
        header = self.horizontalHeader()
        if column is None or column >= header.count():
            return
        least = self.fontMetrics().averageCharWidth() * chars
        others = sum(header.sectionSize(c) for c in range(header.count())
                     if c != column and not header.isSectionHidden(c))
        roomy = self.viewport().width() - others >= least
        for c in range(header.count()):
            header.setSectionResizeMode(c, QHeaderView.ResizeMode.Stretch if roomy and c == column
                                        else QHeaderView.ResizeMode.Interactive)
        if not roomy:
            header.resizeSection(column, least)

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        if getattr(self, "_stretch", None) is not None:
            self.apply_stretch()
        if getattr(self, "_wrapping", False):  # a stretched column changed width with the view
            from PySide6.QtCore import QTimer

            QTimer.singleShot(0, self._rewrap)

    def fit_columns(self, max_width: int = 320) -> None:
        """Size columns to their contents (sampled), capped, without reading every row."""
        self._fit_cap, self._fit_char = max_width, self.fontMetrics().averageCharWidth()
        model = self.frame_model()
        fm = self.fontMetrics()
        self.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        sample = getattr(model, "display_sample", None)  # the frame model's quick way
        with self.one_rewrap():
            self._fit_each(model, fm, sample, max_width)

    def _fit_each(self, model, fm, sample, max_width: int) -> None:
        for c in range(model.columnCount()):
            header = str(model.headerData(c, Qt.Orientation.Horizontal) or "")
            width = min(fm.horizontalAdvance(header) + 28, max_width)
            if sample is not None:
                texts, numeric = sample(c, 60)
            else:
                texts, numeric = [], False
                for r in range(min(model.rowCount(), 60)):
                    index = model.index(r, c)
                    texts.append(str(model.data(index) or ""))
                    align = model.data(index, Qt.ItemDataRole.TextAlignmentRole)
                    numeric = numeric or bool(align is not None and int(align) & int(Qt.AlignmentFlag.AlignRight))
            for text in texts:
                width = max(width, fm.horizontalAdvance(text) + 16)
            # a number is never cut ("72...."): its column takes its width; text is elided
            self.setColumnWidth(c, width if numeric else min(width, max_width))


class BusyBar(QWidget):
    """A progress bar with a message and a Cancel button."""

    cancel_requested = Signal()

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.label = QLabel()
        self.bar = QProgressBar()
        self.bar.setRange(0, 1000)
        self.bar.setTextVisible(False)
        self.bar.setMaximumHeight(12)
        self.cancel = QPushButton("Cancel")
        self.cancel.setAccessibleName("Cancel the computation")
        self.cancel.clicked.connect(self.cancel_requested)
        layout.addWidget(self.label, 2)
        layout.addWidget(self.bar, 3)
        layout.addWidget(self.cancel)
        self.setVisible(False)

    def start(self, message: str = "Working…", *, indeterminate: bool = False) -> None:
        """Show ``message``; ``indeterminate``: a busy bar until the first :meth:`advance`."""
        self.bar.setRange(0, 0 if indeterminate else 1000)
        self.bar.setValue(0)
        self.label.setText(message)
        self.setVisible(True)

    def advance(self, fraction: float, message: str = "") -> None:
        if self.bar.maximum() == 0:
            self.bar.setRange(0, 1000)
        self.bar.setValue(int(1000 * max(0.0, min(1.0, fraction))))
        if message:
            self.label.setText(message)

    def stop(self) -> None:
        self.setVisible(False)


class ExceptionDialog(QDialog):
    """An unexpected error: what happened, the details, and a Copy button."""

    def __init__(self, summary: str, details: str, parent=None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Unexpected error")
        self.resize(720, 420)
        layout = QVBoxLayout(self)
        head = QLabel(f"<b>Something went wrong.</b> Your data and session are kept; you can go on "
                      f"working.<br>{_escape(summary)}")
        head.setWordWrap(True)
        layout.addWidget(head)
        self.details = QPlainTextEdit(details)
        self.details.setReadOnly(True)
        layout.addWidget(self.details, 1)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        copy = buttons.addButton("Copy details", QDialogButtonBox.ButtonRole.ActionRole)
        copy.clicked.connect(lambda: QApplication.clipboard().setText(f"{summary}\n\n{details}"))
        buttons.rejected.connect(self.reject)
        buttons.accepted.connect(self.accept)
        layout.addWidget(buttons)


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


#: badge tone -> (background, text) colours; readable in light and dark palettes
TONES = {"good": ("#1b7f3b", "#ffffff"), "bad": ("#b3261e", "#ffffff"),
         "warn": ("#a05a00", "#ffffff"), "neutral": ("#4a5560", "#ffffff"),
         "info": ("#0b5cad", "#ffffff"), "borderline": ("#a05a00", "#ffffff")}


class AnswerCard(QWidget):
    """The panel's answer first: a coloured badge and one or two plain sentences.

    The text comes whole from ``workbench.report.present.answer`` (every number in it is a
    result record formatted by the one formatting policy); the card only lays it out."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("answerCard")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 6, 8, 6)
        self.badge = QLabel()
        self.badge.setObjectName("answerBadge")
        self.badge.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.badge.setVisible(False)
        self.text = QLabel()
        self.text.setObjectName("answerText")
        self.text.setWordWrap(True)
        # reachable by Tab and read by a screen reader: the answer is the first thing to hear
        self.text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse
                                          | Qt.TextInteractionFlag.TextSelectableByKeyboard)
        self.text.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.text.setAccessibleName("Answer")
        self.setAccessibleName("Answer card")
        layout.addWidget(self.badge, 0, Qt.AlignmentFlag.AlignTop)
        layout.addWidget(self.text, 1)
        self._signature = lambda: ""
        self._table = lambda: None
        self._title = lambda: ""
        self.copy_button = self._copy_menu()
        layout.addWidget(self.copy_button, 0, Qt.AlignmentFlag.AlignTop)
        self.sentences: tuple[str, ...] = ()
        self.scale = 1.0
        self.clear()

    # -- copy ----------------------------------------------------------------------------------
    def set_sources(self, *, signature, table=None, title=None) -> None:
        """Where the card's copies find the signature, the headline table and the title."""
        self._signature = signature
        self._table = table or (lambda: None)
        self._title = title or (lambda: "")

    def _copy_menu(self):
        from PySide6.QtWidgets import QMenu, QToolButton

        button = QToolButton()
        button.setObjectName("copyAnswer")
        button.setText("Copy")
        button.setToolTip("Copy the answer with its signature, as Markdown, or as an image")
        button.setAccessibleName("Copy the answer")
        button.setAccessibleDescription("A menu: copy the answer and its signature as text, as "
                                        "Markdown with its table, or the card as an image; save the card as PNG or SVG.")
        button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        menu = QMenu(button)
        self.copy_answer_action = menu.addAction("Copy answer", self.copy_answer)
        self.copy_markdown_action = menu.addAction("Copy as Markdown (answer and table)", self.copy_markdown)
        self.copy_image_action = menu.addAction("Copy card as image", self.copy_image)
        self.save_image_action = menu.addAction("Save card as image (PNG or SVG)…", self.save_image_dialog)
        button.setMenu(menu)
        return button

    def signature(self) -> str:
        return str(self._signature() or "")

    def copy_answer(self) -> str:
        """The sentence with its signature, on the clipboard as text."""
        from .copying import answer_text

        text = answer_text(self, self.signature())
        QGuiApplication.clipboard().setText(text)
        return text

    def copy_markdown(self) -> str:
        from .copying import answer_markdown

        text = answer_markdown(self, self.signature(), self._table(), self._title())
        QGuiApplication.clipboard().setText(text)
        return text

    def image(self, scale: float = 2.0):
        """The card as drawn (badge and sentences, without the Copy button), at ``scale``."""
        from .copying import widget_image

        shown = self.copy_button.isVisible()
        self.copy_button.setVisible(False)
        try:
            return widget_image(self, scale)
        finally:
            self.copy_button.setVisible(shown)

    def copy_image(self):
        from PySide6.QtCore import QMimeData

        from .copying import answer_text, copy_mime

        image = self.image(2.0)
        data = QMimeData()
        data.setImageData(image)
        data.setText(answer_text(self, self.signature()))
        copy_mime(data)
        return image

    def save_image(self, path: str) -> None:
        from .copying import save_image

        shown = self.copy_button.isVisible()
        self.copy_button.setVisible(False)
        try:
            save_image(self, path)
        finally:
            self.copy_button.setVisible(shown)

    def save_image_dialog(self) -> str | None:
        from PySide6.QtWidgets import QFileDialog, QMessageBox

        name = (self._title() or "answer").lower().replace(" ", "-").replace("&", "and")
        path, chosen = QFileDialog.getSaveFileName(self, "Save the answer card", f"{name}-answer.png",
                                                   "PNG image (*.png);;SVG image (*.svg)")
        if not path:
            return None
        if not path.lower().endswith((".png", ".svg")):
            path += ".svg" if "svg" in chosen.lower() else ".png"
        try:
            self.save_image(path)
        except OSError as err:
            QMessageBox.warning(self, "Image not saved", f"The card could not be saved to '{path}' "
                                                         f"({err.strerror or err}).")
            return None
        return path

    def set_scale(self, scale: float) -> None:
        """Presentation mode shows the answer largest."""
        self.scale = scale
        self._restyle()

    def _restyle(self) -> None:
        base = self.font().pointSizeF()
        base = base if base > 0 else 10.0
        self.text.setStyleSheet(f"font-size: {base * 1.25 * self.scale:.1f}pt;")
        tone = getattr(self, "_tone", "neutral")
        bg, fg = TONES.get(tone, TONES["neutral"])
        self.badge.setStyleSheet(f"background: {bg}; color: {fg}; font-weight: bold; border-radius: 5px;"
                                 f" padding: 4px 10px; font-size: {base * 1.15 * self.scale:.1f}pt;")

    def set_answer(self, sentences, badge: str = "", tone: str = "neutral") -> None:
        self.sentences = tuple(str(s) for s in sentences if s)
        self._tone = tone
        self.badge.setText(badge)
        self.badge.setVisible(bool(badge))
        self.text.setText(" ".join(self.sentences))
        self._restyle()
        self.copy_button.setVisible(True)
        self.setVisible(True)
        self._keep_whole()
        self._announce()

    def clear(self, text: str = "") -> None:
        self.sentences = ()
        self._tone = "neutral"
        self.badge.setText("")
        self.badge.setVisible(False)
        self.text.setText(text)
        self._restyle()
        self.copy_button.setVisible(False)  # a message, not an answer: nothing to copy
        self.setVisible(bool(text))
        self._keep_whole()
        self._announce()

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        self._keep_whole()

    #: in a column that scrolls (the release decision's): the card is never shorter than its
    #: text at its width, the column scrolls instead (elsewhere the layout's height-for-width
    #: gives the card its room, and a minimum would only make the window's minimum taller)
    keep_whole = False

    def _keep_whole(self) -> None:
        """The card never shorter than its text at its width (see :attr:`keep_whole`)."""
        layout = self.layout()
        if not self.keep_whole or layout is None or self.width() <= 0:
            return
        need = layout.totalHeightForWidth(self.width()) if layout.hasHeightForWidth() else -1
        if need > 0 and need != self.minimumHeight():
            self.setMinimumHeight(need)

    def _announce(self) -> None:
        """A screen reader hears the new answer (or that there is none) as it changes."""
        from .accessibility import announce

        said = self.plain_text() if self.sentences else (self.text.text() or "No answer yet.")
        if said != getattr(self, "_announced", None):
            self._announced = said
            announce(self.text, said)
            self.setAccessibleDescription(said)

    def plain_text(self) -> str:
        badge = self.badge.text() if self.badge.isVisible() else ""
        return (f"{badge}: " if badge else "") + self.text.text()


class FollowMinimumWidth(QObject):
    """A vertically scrolling area as wide as its content needs (whatever the content shows)."""

    def __init__(self, content: QWidget, area: QScrollArea) -> None:
        super().__init__(area)
        self.content, self.area = content, area
        content.installEventFilter(self)
        self.update()

    def update(self) -> None:
        need = self.content.minimumSizeHint().width() + self.area.verticalScrollBar().sizeHint().width()
        if need != self.area.minimumWidth():
            self.area.setMinimumWidth(need)

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt's name
        if event.type() == QEvent.Type.LayoutRequest:
            self.update()
        return False
