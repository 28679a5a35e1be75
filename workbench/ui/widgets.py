"""Small reusable widgets: a copyable table view, the exception dialog, a busy bar."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAction, QGuiApplication, QKeySequence
from PySide6.QtWidgets import (QAbstractItemView, QApplication, QDialog, QDialogButtonBox,
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
        copy_all = QAction("Copy table (tab-separated, full precision)", self)
        copy_all.triggered.connect(self.copy_all)
        self.addAction(copy_sel)
        self.addAction(copy_all)

    def frame_model(self):
        return self.model()  # type: ignore[return-value]

    def copy_all(self) -> str:
        text = self.frame_model().to_tsv()
        QGuiApplication.clipboard().setText(text)
        return text

    def copy_selection(self) -> str:
        indexes = self.selectionModel().selectedIndexes() if self.selectionModel() else []
        if not indexes:
            return self.copy_all()
        rows = sorted({i.row() for i in indexes})
        cols = sorted({i.column() for i in indexes})
        text = self.frame_model().to_tsv(rows=rows, columns=cols)
        QGuiApplication.clipboard().setText(text)
        return text

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

    def _rewrap(self, *_args) -> None:
        if self.frame_model().rowCount() <= self.WRAP_ROWS:
            self.resizeRowsToContents()

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        if getattr(self, "_wrapping", False):  # a stretched column changed width with the view
            from PySide6.QtCore import QTimer

            QTimer.singleShot(0, self._rewrap)

    def fit_columns(self, max_width: int = 320) -> None:
        """Size columns to their contents (sampled), capped, without reading every row."""
        self._fit_cap, self._fit_char = max_width, self.fontMetrics().averageCharWidth()
        model = self.frame_model()
        fm = self.fontMetrics()
        self.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        for c in range(model.columnCount()):
            header = str(model.headerData(c, Qt.Orientation.Horizontal) or "")
            width = min(fm.horizontalAdvance(header) + 28, max_width)
            numeric = False
            for r in range(min(model.rowCount(), 60)):
                index = model.index(r, c)
                text = str(model.data(index) or "")
                width = max(width, fm.horizontalAdvance(text) + 16)
                align = model.data(index, Qt.ItemDataRole.TextAlignmentRole)
                numeric = numeric or bool(align is not None and int(align) & int(Qt.AlignmentFlag.AlignRight))
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
        self.text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.badge, 0, Qt.AlignmentFlag.AlignTop)
        layout.addWidget(self.text, 1)
        self.sentences: tuple[str, ...] = ()
        self.scale = 1.0
        self.clear()

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
        self.setVisible(True)

    def clear(self, text: str = "") -> None:
        self.sentences = ()
        self._tone = "neutral"
        self.badge.setText("")
        self.badge.setVisible(False)
        self.text.setText(text)
        self._restyle()
        self.setVisible(bool(text))

    def plain_text(self) -> str:
        badge = self.badge.text() if self.badge.isVisible() else ""
        return (f"{badge}: " if badge else "") + self.text.text()
