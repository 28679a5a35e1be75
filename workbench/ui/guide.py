"""Help > User guide: the Markdown pages of ``resources/docs`` shown offline.

A window with the list of pages on the left and the page on the right (a ``QTextBrowser``,
which renders Markdown itself: headings, tables, code, lists, images).  Links between pages
are relative links to other ``.md`` files and are followed in place; Back, Forward and the
page list move between them; a link to a web address opens in the system's browser.

Only PySide6 and the resources' location are imported, so opening the guide costs no
analysis import.  The pages are found with :func:`workbench.resources_path.resources_dir`, so
the guide works from a checkout and from the installed bundle alike.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSize, Qt, QUrl
from PySide6.QtGui import (QColor, QDesktopServices, QImage, QKeySequence, QShortcut,
                           QTextBlockFormat, QTextCursor, QTextDocument, QTextFormat,
                           QTextFrameFormat, QTextTable)
from PySide6.QtWidgets import (QHBoxLayout, QListWidget, QListWidgetItem, QPushButton,
                               QSplitter, QTextBrowser, QVBoxLayout, QWidget)

from ..resources_path import resources_dir

#: The pages in the order of the page list; any other ``*.md`` in the folder follows them.
ORDER = (
    "index.md", "getting-started.md", "panel-text.md", "panel-ranking.md", "panel-passk.md",
    "panel-aggregation.md", "panel-compare.md", "panel-cost-latency.md", "panel-planning.md",
    "panel-release-rule.md", "judge.md", "rubric.md", "runs.md", "repeats.md", "panel-slices.md", "file-formats.md",
    "reading.md",
    "release-rules.md", "conventions.md", "keyboard-and-accessibility.md", "command-line.md", "performance.md",
    "spark.md", "architecture.md",
)
#: The page the guide opens on.
FIRST_PAGE = "getting-started.md"
#: Images wider than this (pixels) are shown scaled down to it.
MAX_IMAGE_WIDTH = 760


def docs_dir() -> Path:
    return resources_dir() / "docs"


def pages(folder: Path | None = None) -> list[tuple[str, str]]:
    """``(file name, title)`` of every page, in :data:`ORDER`; the title is the first heading
    (up to a colon)."""
    folder = folder or docs_dir()
    found = {p.name: p for p in folder.glob("*.md")}
    names = [n for n in ORDER if n in found] + sorted(set(found) - set(ORDER))
    return [(name, _title(found[name])) for name in names]


def _title(path: Path) -> str:
    try:
        with path.open(encoding="utf-8") as f:
            for line in f:
                if line.startswith("# "):  # "Judge: can we trust the grader?" is listed as "Judge"
                    return line[2:].strip().split(": ", 1)[0]
    except OSError:
        pass
    return path.stem.replace("-", " ").capitalize()


def for_qt(markdown: str) -> str:
    """The page as Qt's Markdown reader should see it.  In a table row a pipe inside a code span
    is written ``\\|`` (GitHub splits cells on a bare one); Qt keeps such a pipe in its cell
    but would show the backslash, so table rows lose it."""
    return "\n".join(line.replace("\\|", "|") if line.lstrip().startswith("|") else line
                     for line in markdown.split("\n"))


class GuideBrowser(QTextBrowser):
    """A text browser that shows wide screenshots scaled to fit the page."""

    def loadResource(self, kind, url):  # noqa: N802 - Qt's name
        if kind in (QTextDocument.ResourceType.MarkdownResource,
                    QTextDocument.ResourceType.MarkdownResource.value) and url.isLocalFile():
            try:
                return for_qt(Path(url.toLocalFile()).read_text(encoding="utf-8"))
            except OSError:
                pass
        data = super().loadResource(kind, url)
        if kind == QTextDocument.ResourceType.ImageResource.value or \
                kind == QTextDocument.ResourceType.ImageResource:
            image = data if isinstance(data, QImage) else QImage()
            if image.isNull() and data is not None and not isinstance(data, QImage):
                image.loadFromData(data)
            if not image.isNull() and image.width() > MAX_IMAGE_WIDTH:
                return image.scaledToWidth(MAX_IMAGE_WIDTH, Qt.TransformationMode.SmoothTransformation)
        return data


class UserGuide(QWidget):
    """The guide's window: page list, Back / Forward / Contents, and the page."""

    def __init__(self, parent=None, folder: Path | None = None) -> None:
        super().__init__(parent, Qt.WindowType.Window)
        self.folder = Path(folder or docs_dir())
        self.setWindowTitle("User guide — Eval Workbench")
        self.setObjectName("userGuide")

        self.list = QListWidget()
        self.list.setObjectName("guidePages")
        for name, title in pages(self.folder):
            item = QListWidgetItem(title)
            item.setData(Qt.ItemDataRole.UserRole, name)
            item.setToolTip(name)
            self.list.addItem(item)
        self.list.itemActivated.connect(self._open_item)
        self.list.itemClicked.connect(self._open_item)

        self.browser = GuideBrowser()
        self.browser.setObjectName("guideBrowser")
        self.browser.setOpenLinks(False)          # links are followed in anchorClicked below
        self.browser.setSearchPaths([str(self.folder)])
        self.browser.anchorClicked.connect(self.follow)
        self.browser.sourceChanged.connect(self._page_changed)
        self.browser.historyChanged.connect(self._page_changed)   # Back and Forward
        self.browser.document().setDocumentMargin(16)

        self.back_button = QPushButton("Back")
        self.back_button.clicked.connect(self.browser.backward)
        self.browser.backwardAvailable.connect(self.back_button.setEnabled)
        self.forward_button = QPushButton("Forward")
        self.forward_button.clicked.connect(self.browser.forward)
        self.browser.forwardAvailable.connect(self.forward_button.setEnabled)
        self.contents_button = QPushButton("Contents")
        self.contents_button.clicked.connect(lambda: self.open_page("index.md"))
        self.back_button.setEnabled(False)
        self.forward_button.setEnabled(False)
        QShortcut(QKeySequence(QKeySequence.StandardKey.Back), self, self.browser.backward)
        QShortcut(QKeySequence(QKeySequence.StandardKey.Forward), self, self.browser.forward)
        QShortcut(QKeySequence(QKeySequence.StandardKey.Close), self, self.close)

        buttons = QHBoxLayout()
        buttons.addWidget(self.back_button)
        buttons.addWidget(self.forward_button)
        buttons.addWidget(self.contents_button)
        buttons.addStretch(1)
        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        right_layout.addLayout(buttons)
        right_layout.addWidget(self.browser, 1)

        split = QSplitter()
        split.addWidget(self.list)
        split.addWidget(right)
        split.setStretchFactor(0, 0)
        split.setStretchFactor(1, 1)
        split.setSizes([270, 860])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(split)
        self.resize(1100, 760)

        self.open_page(FIRST_PAGE)

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        return QSize(1100, 760)

    # -- navigation -----------------------------------------------------------------------------
    def open_page(self, name: str) -> None:
        path = self.folder / name
        if not path.is_file():
            self.browser.setMarkdown(f"# Page not found\n\n`{name}` is not in `{self.folder}`.")
            return
        self.browser.setSource(QUrl.fromLocalFile(str(path)),
                               QTextDocument.ResourceType.MarkdownResource)
        self._page_changed()   # not every setSource emits sourceChanged

    def follow(self, url: QUrl) -> None:
        """A clicked link: another page of the guide in place, a web address in the browser."""
        if url.scheme() in ("http", "https", "mailto"):
            QDesktopServices.openUrl(url)
            return
        target = self.browser.source().resolved(url) if url.isRelative() else url
        if target.isLocalFile() and target.toLocalFile().endswith(".md"):
            self.browser.setSource(target, QTextDocument.ResourceType.MarkdownResource)
            self._page_changed()
        elif target.isLocalFile() and url.hasFragment() and not url.path():
            self.browser.scrollToAnchor(url.fragment())
        else:
            QDesktopServices.openUrl(target)

    def current_page(self) -> str:
        return Path(self.browser.source().toLocalFile()).name

    def _open_item(self, item: QListWidgetItem) -> None:
        name = item.data(Qt.ItemDataRole.UserRole)
        if name != self.current_page():
            self.open_page(name)

    def _page_changed(self, *_args) -> None:
        self._select_current()
        self._polish_tables()

    def _polish_tables(self) -> None:
        """Tables with room around the text of each cell and light rules between cells; code
        blocks on a light grey ground."""
        doc = self.browser.document()
        shade = QTextBlockFormat()
        shade.setBackground(QColor("#f2f2f2"))
        block = doc.begin()
        while block.isValid():
            if block.blockFormat().hasProperty(QTextFormat.Property.BlockCodeFence) or \
                    block.blockFormat().nonBreakableLines():
                QTextCursor(block).mergeBlockFormat(shade)
            block = block.next()
        for frame in doc.rootFrame().childFrames():
            if isinstance(frame, QTextTable):
                fmt = frame.format()
                fmt.setCellPadding(4)
                fmt.setCellSpacing(0)
                fmt.setBorder(1)
                fmt.setBorderBrush(QColor("#b0b0b0"))
                fmt.setBorderStyle(QTextFrameFormat.BorderStyle.BorderStyle_Solid)
                fmt.setBorderCollapse(True)
                frame.setFormat(fmt)

    def _select_current(self) -> None:
        name = self.current_page()
        for row in range(self.list.count()):
            if self.list.item(row).data(Qt.ItemDataRole.UserRole) == name:
                self.list.blockSignals(True)
                self.list.setCurrentRow(row)
                self.list.blockSignals(False)
                return


def show_guide(parent=None, page: str | None = None) -> UserGuide:
    """Show the guide (one window per parent, raised if already open) and return it."""
    guide = getattr(parent, "_user_guide", None) if parent is not None else None
    if guide is None:
        guide = UserGuide(parent)
        if parent is not None:
            parent._user_guide = guide
    if page:
        guide.open_page(page)
    guide.show()
    guide.raise_()
    guide.activateWindow()
    return guide
