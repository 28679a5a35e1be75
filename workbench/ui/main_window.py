"""The main window: it assembles the start page, the workspace (data and panels), the column
docks and the menus, asks the user what only the user can say, and shows what the session
controller reports.  Opening, loading, sessions, recent files and the report live in
:mod:`.controller`; the tabs in :mod:`.workspace`; presentation mode in :mod:`.presentation`."""

from __future__ import annotations

import os

from PySide6.QtCore import QSettings, Qt, Signal
from PySide6.QtWidgets import (QApplication, QDockWidget, QMainWindow, QMessageBox, QStackedWidget,
                               QVBoxLayout, QWidget)

from ..core.errors import WorkbenchError
from .about import about_text
from .columns_dock import ProblemList, RolesTable
from .controller import SessionController
from .file_commands import SESSION_FILTER, FileCommands
from .edit_commands import EditCommands
from .history import History
from .keys import install as install_keys
from . import accessibility, display_locale, preload
from .menus import add_view_actions, build_menus, fill_recent
from .loading import paths_of
from .presentation import Presentation, place_window
from .qrels_prompt import QrelsPrompt
from .reading_commands import ReadingCommands
from .reading_dock import ReadingCard
from .start_page import StartPage
from .tasks import TaskRunner
from .widgets import BusyBar, ExceptionDialog

# pandas, pyqtgraph and the analyses load after the window is on screen (lazy=True, then ensure_workspace())

ORG, APP = "EvalWorkbench", "Eval Workbench"
__all__ = ["APP", "ORG", "SESSION_FILTER", "MainWindow"]


def available_width() -> int:
    """The width of the screen's available area (1280 when unknown)."""
    screen = QApplication.primaryScreen()
    return screen.availableGeometry().width() if screen is not None else 1280


def _controller_state(name: str):
    """An attribute of the session controller, read and written through the window."""
    return property(lambda self: getattr(self.controller, name),
                    lambda self, value: setattr(self.controller, name, value))


class MainWindow(FileCommands, EditCommands, ReadingCommands, QMainWindow):
    table_loaded = Signal(object)
    preview_shown = Signal(object)   # the first rows of a large file, while it loads
    load_failed = Signal(str)
    report_written = Signal(str)

    table = _controller_state("table")
    roles = _controller_state("roles")
    session = _controller_state("session")
    session_path = _controller_state("session_path")
    dirty = _controller_state("dirty")

    def __init__(self, settings: QSettings | None = None, *, lazy: bool = False,
                 locale: str | None = None) -> None:
        """``lazy``: show the start page first and build the workspace (which imports pandas,
        pyqtgraph and the analyses) in :meth:`ensure_workspace`; ``locale``: the numbers' locale
        for this run (``--locale``), over the one chosen in Settings."""
        super().__init__()
        self.setWindowTitle(APP)
        self.setAcceptDrops(True)
        self.settings = settings or QSettings(ORG, APP)
        self.locale_override = locale
        self.display_locale = display_locale.chosen(self.settings, locale)
        display_locale.apply(self.display_locale)  # before any number is drawn
        self.controller = SessionController(self.settings, self)
        self.loader = self.controller.loader
        self.closed = False  # shut down: nothing is opened or run any more
        self.workspace_ready = self.defer_panels = False  # defer: app.run, started with files
        self._presentation = Presentation(self)
        self._build()
        self.keys = install_keys(self)  # the window's shortcuts from inside option fields
        self._connect_controller()
        place_window(self, self.settings)
        # the start page has the window's width: the docks (empty until a file is open) come
        # back with the next file, whatever the last session left
        self.roles_dock.setVisible(False)
        self.problems_dock.setVisible(False)
        self.reading_dock.setVisible(False)
        self.controller.refresh_recent()
        if not lazy:
            self.ensure_workspace()

    @property
    def presentation(self) -> bool:
        return self._presentation.on

    @property
    def problems(self) -> list:
        return self.problem_list.problems

    # -- construction -----------------------------------------------------------------------------
    def _build(self) -> None:
        self.stack = QStackedWidget()
        self.start = StartPage()
        self.start.open_requested.connect(self.open_dialog)
        self.start.path_requested.connect(lambda p: self.open_recent(p))
        self.start.example_requested.connect(self.open_example)
        self.start.plan_requested.connect(lambda: self.show_panel("plan"))
        self.start.rule_requested.connect(lambda: self.show_panel("rule"))
        self.stack.addWidget(self.start)
        self.qrels_prompt = QrelsPrompt()
        self.qrels_prompt.qrels_chosen.connect(lambda runs, qrels: self.open_paths([*runs, qrels]))
        central = QWidget()
        column = QVBoxLayout(central)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        column.addWidget(self.qrels_prompt)
        column.addWidget(self.stack, 1)
        self.setCentralWidget(central)
        self.reading_card = ReadingCard()
        self.reading_dock = self._make_reading_dock()
        self.roles_table = RolesTable()
        self.roles_table.roles_changed.connect(self._on_roles_changed)
        self.roles_dock = self._dock("Columns", "rolesDock", self.roles_table)
        self.roles_dock.setMinimumWidth(min(320, available_width() // 4))  # 240 at 200% on full HD
        self.problem_list = ProblemList()
        self.problem_list.rows_requested.connect(self._show_rows)
        self.problems_dock = self._dock("Problems in the data", "problemsDock", self.problem_list)

        self.busy = BusyBar()
        self.busy.cancel_requested.connect(self.loader.cancel)
        self.statusBar().addPermanentWidget(self.busy, 1)
        self.history = History(self)  # Edit > Undo / Redo
        build_menus(self)

    def _dock(self, title: str, name: str, widget) -> QDockWidget:
        dock = QDockWidget(title, self)
        dock.setObjectName(name)
        dock.setWidget(widget)
        self.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, dock)
        return dock

    def _connect_controller(self) -> None:
        c = self.controller
        c.busy.connect(self.busy.start)
        c.progressed.connect(self.busy.advance)
        c.idle.connect(self.busy.stop)
        c.preview_ready.connect(self._on_preview)
        c.loaded.connect(self._on_loaded)
        c.load_failed.connect(self._on_load_failed)
        c.problems_checking.connect(self._checking_problems)
        c.problems_found.connect(self._show_problems)
        c.recent_changed.connect(lambda paths: fill_recent(self, paths))
        c.state_changed.connect(self._update_title)
        c.report_written.connect(self._report_done)
        c.report_failed.connect(self._report_failed)

    def ensure_workspace(self) -> None:
        """Build the data view, the analysis panels and the rule tab (once)."""
        if self.workspace_ready:
            return
        from .panels import PANELS
        from .workspace import Workspace

        self.workspace_ready = True
        self.workspace = self.tabs = Workspace(lambda: self.controller.session, defer=self.defer_panels)
        self.panels, self.data, self.rule_panel = (self.workspace.panels, self.workspace.data,
                                                   self.workspace.rule_panel)
        self.workspace.options_changed.connect(self.controller.mark_dirty)
        self.workspace.error.connect(lambda summary, details: self.show_exception(summary, details))
        self.workspace.result_shown.connect(self.controller.result_shown)
        self.workspace.status.connect(self.statusBar().showMessage)
        self.stack.addWidget(self.workspace)
        add_view_actions(self, PANELS)
        for panel in self.panels.values():  # and each panel made later (workspace.py: defer)
            self.history.watch_panel(panel)
        self.workspace.panel_made.connect(lambda p: (self.history.watch_panel(p), self.keys.watch(p)))
        self.history.watch_rule(self.rule_panel)
        self.keys.watch(self.workspace)
        self.workspace.setAccessibleName("Panels")
        accessibility.no_tab_traps(self.workspace.data)
        accessibility.name_all(self)

    # -- what the controller reports ----------------------------------------------------------------
    def _on_preview(self, table) -> None:
        """The first rows of the file being loaded, in the data view."""
        self.ensure_workspace()
        self.workspace.show_preview(table)
        self.stack.setCurrentWidget(self.workspace)
        self.busy.advance(0.3, f"Loading {os.path.basename(table.path)}… (its first "
                               f"{len(table.frame):,} rows are shown meanwhile)")
        self.preview_shown.emit(table)

    def _on_loaded(self, loaded) -> None:
        self.ensure_workspace()
        self.controller.end_preview()
        table = loaded.table
        reading, roles = self._reading_on_load(loaded)  # the reading every panel shares
        self.roles_table.blockSignals(True)
        self.roles_table.set_roles([str(c) for c in table.frame.columns], roles)
        self.roles_table.blockSignals(False)
        if self.presentation:  # full screen keeps its room: the docks come back when it ends
            self._presentation.docks_come_back()
        else:
            self.roles_dock.setVisible(True)
            self.problems_dock.setVisible(True)
            self._show_reading_dock()
        late = self.controller.problems_pending  # a large table: described once the answer is in
        self.reading_card.set_table(table, roles, describe=not late)
        self.reading_card.set_reading(reading)
        if loaded.problems is not None:
            self._show_problems(loaded.problems)
        self.qrels_prompt.hide()
        if loaded.session is None and not loaded.qrels and table.format in ("trec_run", "msmarco_run"):
            self.qrels_prompt.ask(paths_of(table.path))  # a run alone: its judgments, please
        self.workspace.set_table(table, roles, loaded.session, loaded.qrels,
                                 rule_registered=bool(self.session.rule_sha256))
        self.history.clear()  # the steps were the previous file's
        self.stack.setCurrentWidget(self.workspace)
        panel = loaded.panel if loaded.panel in self.workspace.names() else None
        said = ""
        if loaded.session is None:  # a file by name: the panel that fits and can run
            panel, said = self.workspace.landing_panel(table, roles, panel or table.panel)
        large = table.large
        rows = f"{large.rows:,} rows read page by page" if large is not None else f"{len(table.frame):,} rows"
        self.statusBar().showMessage(
            f"{said}{'Opened' if large is not None else 'Loaded'} {table.name}: {rows}, "
            f"{table.frame.shape[1]} columns. "
            f"{' '.join(table.notes)}", 20000 if said else 15000)
        self.workspace.land(panel, table)
        preload.discard(table)  # the landing panel took its answer computed ahead, or none will
        landed = self.panels.get(panel) if panel else None
        if late:  # a large table: described once the answer is in
            self.reading_card.describe_after(landed.runner if landed is not None else None)
        if self.controller.problems_pending:  # a large table: checked once the answer is in
            self.controller.check_problems_after(landed.runner if landed is not None else None)
        self.table_loaded.emit(table)
        if loaded.changed:  # a session's data is not what it was when saved: said loudly
            self.warn("The data changed since the session was saved",
                      f"{'; '.join(loaded.changed)}. The numbers shown are computed from the files "
                      f"as they are now, not the ones the session saw.")

    def _on_load_failed(self, error: object, details: str) -> None:
        if self.controller.end_preview() and self.workspace_ready:
            self.workspace.back_to_table()  # the preview replaced the data view
        if isinstance(error, WorkbenchError):
            self.load_failed.emit(str(error))
            self.warn("Cannot open the file", str(error))
        else:
            self.load_failed.emit(repr(error))
            self.show_exception(f"{type(error).__name__}: {error}", details)

    # -- tabs, roles, problems --------------------------------------------------------------------
    def show_panel(self, name: str | None, *, focus: bool = False) -> None:
        """Show a tab; ``focus`` (the View keys): the keyboard goes to its first control."""
        self.ensure_workspace()
        self.stack.setCurrentWidget(self.workspace)
        self.workspace.show(name)
        if focus:
            shown = self.workspace.currentWidget()
            first = getattr(shown, "first_control", lambda: None)() or \
                (shown.editor if shown is self.rule_panel else self.data.view if shown is self.data else None)
            if first is not None:
                first.setFocus(Qt.FocusReason.ShortcutFocusReason)

    def current_panel_name(self) -> str | None:
        """The tab on screen: "data", an analysis name, "rule"; None on the start page."""
        if not self.workspace_ready or self.stack.currentWidget() is not self.workspace:
            return None
        return self.workspace.current_name()

    def panel_applies(self, name: str) -> bool:
        return self.workspace.applies(name)

    def _checking_problems(self) -> None:
        self.problem_list.set_checking()
        self.problems_dock.setWindowTitle("Problems in the data (checking…)")

    def _show_problems(self, problems) -> None:
        self.problem_list.set_problems(problems)
        self.problems_dock.setWindowTitle(f"Problems in the data ({len(self.problems)})")

    def _show_rows(self, rows) -> None:
        self.show_panel(None)
        self.data.select_rows(rows)

    def results(self) -> list:
        """Every result on screen, the decision card first."""
        self.ensure_workspace()
        return self.workspace.results()

    # -- view, messages, window events ------------------------------------------------------------
    def toggle_presentation(self) -> None:
        self.ensure_workspace()
        self._presentation.toggle()
        self.presentation_action.setChecked(self.presentation)

    def warn(self, title: str, text: str) -> None:
        """A problem the user can fix (tests replace this to avoid a modal box)."""
        QMessageBox.warning(self, title, text)

    def inform(self, title: str, text: str) -> None:
        QMessageBox.information(self, title, text)

    def about(self) -> None:
        QMessageBox.about(self, "About Eval Workbench", about_text())

    def show_exception(self, summary: str, details: str) -> None:
        ExceptionDialog(summary, details, self).exec()

    def _update_title(self) -> None:
        self.setWindowTitle(f"{self.controller.title()} — {APP}")

    def dragEnterEvent(self, event) -> None:  # noqa: N802
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dropEvent(self, event) -> None:  # noqa: N802
        urls = [u.toLocalFile() for u in event.mimeData().urls() if u.isLocalFile()]
        if len(urls) == 1:
            self.open_any(urls[0])
        elif urls:  # several files: one stacked table (a session file only alone)
            self.open_paths(urls)
        if urls:
            event.acceptProposedAction()

    def closeEvent(self, event) -> None:  # noqa: N802
        if not self.confirm_discard():
            event.ignore()
            return
        self.shutdown()
        event.accept()

    def shutdown(self) -> None:
        """Stop every timer, cancel and detach every run (a worker still running reports
        nothing, and nothing starts again), wait for the workers, remember the window."""
        self.closed = True
        if self.workspace_ready:
            self.workspace.shutdown()
        for runner in self.findChildren(TaskRunner):
            runner.detach()
        self.controller.shutdown()
        if self.workspace_ready:
            self.workspace.wait()
        self.reading_card.runner.wait()  # the pool's workers (a description, a panel's run) end
        display_locale.reset()  # the GUI thread's numbers go back to the plain ones
        self.settings.setValue("window/geometry", self.saveGeometry())
        self.settings.setValue("window/state", self.saveState())
        self.settings.sync()
