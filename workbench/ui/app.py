"""Application set-up: style, palettes that follow the system, fonts, the exception hook."""

from __future__ import annotations

import os
import sys
import time
import traceback


from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QColor, QFont, QGuiApplication, QIcon, QPalette
from PySide6.QtWidgets import QApplication

from ..resources_path import resources_dir
from .background_imports import BackgroundImports


def dark_palette() -> QPalette:
    p = QPalette()
    base, text, window = QColor(30, 32, 36), QColor(230, 232, 235), QColor(40, 43, 48)
    p.setColor(QPalette.ColorRole.Window, window)
    p.setColor(QPalette.ColorRole.WindowText, text)
    p.setColor(QPalette.ColorRole.Base, base)
    p.setColor(QPalette.ColorRole.AlternateBase, QColor(38, 41, 46))
    p.setColor(QPalette.ColorRole.Text, text)
    p.setColor(QPalette.ColorRole.Button, window)
    p.setColor(QPalette.ColorRole.ButtonText, text)
    p.setColor(QPalette.ColorRole.ToolTipBase, QColor(50, 54, 60))
    p.setColor(QPalette.ColorRole.ToolTipText, text)
    p.setColor(QPalette.ColorRole.Highlight, QColor(66, 120, 200))
    p.setColor(QPalette.ColorRole.HighlightedText, QColor(255, 255, 255))
    p.setColor(QPalette.ColorRole.PlaceholderText, QColor(150, 150, 150))
    p.setColor(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text, QColor(120, 120, 120))
    p.setColor(QPalette.ColorGroup.Disabled, QPalette.ColorRole.ButtonText, QColor(120, 120, 120))
    return p


def is_dark() -> bool:
    hints = QGuiApplication.styleHints()
    scheme = hints.colorScheme() if hasattr(hints, "colorScheme") else None
    return scheme == Qt.ColorScheme.Dark


def apply_palette(app: QApplication) -> None:
    app.setPalette(dark_palette() if is_dark() else app.style().standardPalette())


class GuiThreadGarbageCollector:
    """Run Python's cyclic garbage collector on the GUI thread only.

    With analyses running on pool threads, an automatic collection can start on a worker and
    destroy Qt objects there, which crashes Qt.  So automatic collection is switched off and a
    timer on the GUI thread collects instead (as pyqtgraph's GarbageCollector does).
    """

    def __init__(self, app: QApplication, interval_ms: int = 1000) -> None:
        import gc

        from PySide6.QtCore import QTimer

        self._gc = gc
        gc.disable()
        self.timer = QTimer(app)
        self.timer.timeout.connect(self.check)
        self.timer.start(interval_ms)
        self.threshold = gc.get_threshold()

    def check(self) -> None:
        counts = self._gc.get_count()
        if counts[0] > self.threshold[0]:
            generation = 0
            if counts[1] > self.threshold[1]:
                generation = 1
                if counts[2] > self.threshold[2]:
                    generation = 2
            self._gc.collect(generation)


def create_app(argv: list[str] | None = None) -> QApplication:
    app = QApplication.instance()
    if app is None:
        app = QApplication(["workbench"] + list(argv or []))
    if not hasattr(app, "_workbench_gc"):
        app._workbench_gc = GuiThreadGarbageCollector(app)
    app.setApplicationName("Eval Workbench")
    app.setOrganizationName("EvalWorkbench")
    app.setStyle("Fusion")
    app.setWindowIcon(QIcon(str(resources_dir() / "icons" / "workbench.svg")))
    font = QFont("DejaVu Sans")
    font.setPointSizeF(max(app.font().pointSizeF(), 10.0))
    app.setFont(font)
    apply_palette(app)
    hints = QGuiApplication.styleHints()
    if hasattr(hints, "colorSchemeChanged"):
        hints.colorSchemeChanged.connect(lambda _s: apply_palette(app))
    return app


class FileOpenHandler(QObject):
    """macOS hands documents opened from Finder (double-click, "Open With", a drop on the Dock
    icon) to the running app as ``QFileOpenEvent``s on the application, not as arguments: open
    each one in the window, session or results file alike.  (The first one, which starts the
    app, reaches it as an argument: PyInstaller's argv emulation.)"""

    def __init__(self, app: QApplication, window) -> None:
        super().__init__(app)
        self.window = window
        app.installEventFilter(self)

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt's name
        if event.type() == QEvent.Type.FileOpen and obj is QApplication.instance():
            path = event.file() or event.url().toLocalFile()
            if path:
                self.window.open_any(path)
                return True
        return super().eventFilter(obj, event)


def install_exception_hook(window) -> None:
    """Unexpected exceptions on the GUI thread open a dialog; the app keeps running.  A
    :class:`~workbench.core.errors.WorkbenchError` (a data file changed on disk since it was
    loaded, say) is shown as its sentence, without a traceback."""

    def hook(exc_type, exc, tb):
        from workbench.core.errors import WorkbenchError

        if issubclass(exc_type, WorkbenchError):  # a sentence for the user, not a bug
            try:
                window.warn("Cannot do that", str(exc))
                return
            except Exception:  # noqa: BLE001 - fall through to the dialog
                pass
        details = "".join(traceback.format_exception(exc_type, exc, tb))
        print(details, file=sys.stderr)
        try:
            window.show_exception(f"{exc_type.__name__}: {exc}", details)
        except Exception:  # noqa: BLE001 - never raise from the hook
            pass

    sys.excepthook = hook


class _FirstPaint(QObject):
    """Calls ``then`` once ``widget`` has painted (or after ``fallback_ms``, e.g. offscreen)."""

    def __init__(self, widget, then, fallback_ms: int = 1500) -> None:
        super().__init__(widget)
        from PySide6.QtCore import QTimer

        self._then = then
        self._done = False
        widget.installEventFilter(self)
        QTimer.singleShot(fallback_ms, self._fire)

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt's name
        if event.type() == QEvent.Type.Paint and not self._done:
            from PySide6.QtCore import QTimer

            QTimer.singleShot(0, self._fire)  # after this paint is on screen
        return False

    def _fire(self) -> None:
        if not self._done:
            self._done = True
            self._then()


def _report_times(window, timing: bool) -> None:
    """``WORKBENCH_STARTUP_TIMING``: when the table is in and when a panel first shows its answer
    (its card, headline and the tab in view; on stderr); ``WORKBENCH_SMOKE=answer``: print that
    panel's name and close the window then (benchmarks and tests of the start with a file)."""
    state = {"hooked": False}

    def answered(_result) -> None:
        if state.get("done"):
            return
        state["done"] = True
        if timing:
            print(f"answer at {time.time():.3f} ({window.current_panel_name()})", file=sys.stderr,
                  flush=True)
        if os.environ.get("WORKBENCH_SMOKE") == "answer":
            print(f"panel: {window.current_panel_name()}", flush=True)
            window.dirty = False
            window.close()

    def loaded(_table) -> None:
        if timing:
            print(f"table loaded at {time.time():.3f}", file=sys.stderr, flush=True)
        if not state["hooked"]:
            state["hooked"] = True
            window.workspace.answer_shown.connect(answered)

    window.table_loaded.connect(loaded)


def run(argv: list[str], locale: str | None = None, imports: BackgroundImports | None = None) -> int:
    """The desktop workbench on ``argv``'s files; ``locale``: the numbers' locale (``--locale``);
    ``imports``: the modules the workspace needs, already being imported (else started here)."""
    from ..locale_arg import take_locale
    from . import display_locale
    from .loading import opens_at_once, shown_name
    from .main_window import MainWindow

    given, argv, problem = take_locale(list(argv))  # also when run() is handed the raw arguments
    if problem:
        print(f"workbench: {problem}", file=sys.stderr)
        return 2
    locale = locale or given
    imports = imports or BackgroundImports()  # pandas and the analyses, beside Qt's start
    app = create_app()
    if locale and not display_locale.valid(locale):
        print(f"workbench: unknown locale '{locale}' for --locale; give a name such as de_DE, fr_FR, "
              f"en_US or C.", file=sys.stderr)
        return 2
    window = MainWindow(lazy=True, locale=locale)  # the start page paints before pandas and pyqtgraph
    install_exception_hook(window)
    at_once = opens_at_once(argv)  # data files (no session, no workbook to pick a sheet of)
    # the landing panel first, the others after its answer: set now, since a file read before the
    # background imports are in makes the workspace itself (it was made with every panel then,
    # and the Runs panel's grid imported pyqtgraph before the answer)
    window.defer_panels = at_once
    if argv:  # the first paint already says the files are being opened
        window.busy.start(f"Opening {shown_name(' + '.join(os.path.abspath(p) for p in argv))}…",
                          indeterminate=True)
    window.show()
    if sys.platform == "darwin":  # Finder's documents; elsewhere no filter sees every event
        app._workbench_file_open = FileOpenHandler(app, window)
    timing = bool(os.environ.get("WORKBENCH_STARTUP_TIMING"))
    if timing or os.environ.get("WORKBENCH_SMOKE") == "answer":
        _report_times(window, timing)

    def finish() -> None:
        window.ensure_workspace()  # widgets and pyqtgraph: on the GUI thread
        # the modules, classes and widgets made so far live as long as the program: the timed
        # collections on the GUI thread no longer walk them (a full one: 0.13 s -> ~0 s)
        import gc

        gc.freeze()
        if at_once:
            pass  # loading since the first paint
        elif len(argv) > 1:  # several files: opened together, as File > Open with several chosen
            window.open_paths(argv)
        elif argv:
            window.open_any(argv[0])
        if timing:
            print(f"workspace ready at {time.time():.3f}", file=sys.stderr, flush=True)
        if os.environ.get("WORKBENCH_SMOKE") == "workspace":  # tests: the file's panel, then quit
            def report() -> None:
                if window.loader.busy:
                    QTimer.singleShot(50, report)
                    return
                print(f"panel: {window.current_panel_name()}", flush=True)
                window.dirty = False
                window.close()

            from PySide6.QtCore import QTimer

            QTimer.singleShot(0, report)

    def painted() -> None:
        if timing:
            now = time.time()
            print(f"window painted at {now:.3f}", file=sys.stderr, flush=True)
            if window.busy.isVisible():  # the loading bar was on screen with that paint
                print(f"loading shown at {now:.3f}", file=sys.stderr, flush=True)
        if at_once:  # the files load on a worker while pandas, pyqtgraph and the panels load
            window.controller.open_paths(argv)
        imports.then(finish)

    app._workbench_first_paint = _FirstPaint(window.start, painted)
    if os.environ.get("WORKBENCH_SMOKE") not in (None, "", "workspace", "answer"):  # show, quit at once
        from PySide6.QtCore import QTimer

        QTimer.singleShot(0, window.close)
    return app.exec()
