"""The main window: start page, data table, column roles, problems, and the analysis panels."""

from __future__ import annotations

import datetime as _dt
import os
from dataclasses import replace

from PySide6.QtCore import QByteArray, QSettings, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QFont, QKeySequence
from PySide6.QtWidgets import (QApplication, QComboBox, QDockWidget, QFileDialog, QHBoxLayout,
                               QHeaderView, QInputDialog, QLabel, QLineEdit, QListWidget,
                               QListWidgetItem, QMainWindow, QMessageBox, QPushButton,
                               QStackedWidget, QTableWidget, QTableWidgetItem, QTabWidget,
                               QVBoxLayout, QWidget)

from .. import __version__
from ..core.errors import WorkbenchError
from ..core.session import Session, load_session, options_to_json, save_session
from .examples import EXAMPLE_SESSIONS, EXAMPLES
from .guide import show_guide
from .tasks import TaskRunner
from .widgets import BusyBar, ExceptionDialog

# pandas, pyqtgraph, openpyxl and the analyses load after the window is on screen
# (MainWindow(lazy=True) then ensure_workspace()): the data view, panels and loader import them.

ORG, APP = "EvalWorkbench", "Eval Workbench"
SESSION_FILTER = "Workbench sessions (*.wbsession.json *.json);;All files (*)"
MAX_RECENT = 8


class StartPage(QWidget):
    open_requested = Signal()
    path_requested = Signal(str)
    example_requested = Signal(object)
    plan_requested = Signal()
    rule_requested = Signal()

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(48, 36, 48, 36)
        title = QLabel("<h1>Eval Workbench</h1><p>Open a spreadsheet or CSV of per-item results. "
                       "Every number comes with its denominator and the conventions behind it.</p>")
        title.setWordWrap(True)
        layout.addWidget(title)
        row = QHBoxLayout()
        open_button = QPushButton("Open a results file…")
        open_button.setObjectName("openButton")
        open_button.setMinimumHeight(36)
        open_button.clicked.connect(self.open_requested)
        plan_button = QPushButton("Plan an evaluation (no data needed)")
        plan_button.setMinimumHeight(36)
        plan_button.clicked.connect(self.plan_requested)
        rule_button = QPushButton("Write the release rule first")
        rule_button.setMinimumHeight(36)
        rule_button.setToolTip("Set the bar before the run: what must hold for the candidate to ship.")
        rule_button.clicked.connect(self.rule_requested)
        row.addWidget(open_button)
        row.addWidget(rule_button)
        row.addWidget(plan_button)
        row.addStretch(1)
        layout.addLayout(row)
        columns = QHBoxLayout()
        left = QVBoxLayout()
        left.addWidget(QLabel("<h3>Examples: the worked cases</h3>"))
        self.examples = self._example_list("examples", EXAMPLES)
        left.addWidget(self.examples, 3)
        left.addWidget(QLabel("<h3>Example sessions: saved options and a registered rule</h3>"))
        self.sessions = self._example_list("exampleSessions", EXAMPLE_SESSIONS)
        left.addWidget(self.sessions, 1)
        right = QVBoxLayout()
        right.addWidget(QLabel("<h3>Recent files</h3>"))
        self.recent = QListWidget()
        self.recent.setObjectName("recent")
        self.recent.itemActivated.connect(lambda it: self.path_requested.emit(it.data(Qt.ItemDataRole.UserRole)))
        self.recent.itemClicked.connect(lambda it: self.path_requested.emit(it.data(Qt.ItemDataRole.UserRole)))
        right.addWidget(self.recent, 1)
        columns.addLayout(left, 3)
        columns.addLayout(right, 2)
        layout.addLayout(columns, 1)
        hint = QLabel("Tip: drop a file on the window, or start it with <code>workbench results.xlsx</code>.")
        layout.addWidget(hint)

    def _example_list(self, name: str, examples) -> QListWidget:
        """A list of examples (title and description); a click or Enter opens one."""
        widget = QListWidget()
        widget.setObjectName(name)
        widget.setWordWrap(True)
        widget.setSpacing(2)
        for ex in examples:
            item = QListWidgetItem(f"{ex.title}\n    {ex.description}")
            item.setData(Qt.ItemDataRole.UserRole, ex)
            item.setToolTip(str(ex.path))
            widget.addItem(item)
        for signal in (widget.itemActivated, widget.itemClicked):
            signal.connect(lambda it: self.example_requested.emit(it.data(Qt.ItemDataRole.UserRole)))
        return widget

    def set_recent(self, paths: list[str]) -> None:
        self.recent.clear()
        for path in paths:
            first = paths_of(path)[0]
            item = QListWidgetItem(f"{shown_name(path)}    —    {os.path.dirname(first)}")
            item.setData(Qt.ItemDataRole.UserRole, path)
            item.setToolTip(path)
            self.recent.addItem(item)
        if not paths:
            self.recent.addItem(QListWidgetItem("(none yet)"))


class RolesTable(QTableWidget):
    """Column -> role, each role editable from a drop-down."""

    roles_changed = Signal(dict)

    def __init__(self, parent=None) -> None:
        super().__init__(0, 2, parent)
        self.setHorizontalHeaderLabels(["Column", "Taken as"])
        self.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.verticalHeader().setVisible(False)
        self._columns: list[str] = []

    def set_roles(self, columns: list[str], roles: dict[str, str]) -> None:
        from ..io.roles import ROLES

        self._columns = list(columns)
        self.setRowCount(len(columns))
        for r, col in enumerate(columns):
            item = QTableWidgetItem(col)
            item.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable)
            self.setItem(r, 0, item)
            combo = QComboBox()
            combo.setObjectName(f"role:{col}")
            for key, label in ROLES.items():
                combo.addItem(label, key)
            combo.setCurrentIndex(max(0, combo.findData(roles.get(col, "ignore"))))
            combo.setToolTip("What this column is; the panels fill their column choices from it.")
            combo.currentIndexChanged.connect(self._emit)
            self.setCellWidget(r, 1, combo)

    def roles(self) -> dict[str, str]:
        out = {}
        for r, col in enumerate(self._columns):
            combo = self.cellWidget(r, 1)
            role = combo.currentData() if combo is not None else "ignore"
            if role and role != "ignore":
                out[col] = role
        return out

    def set_role(self, column: str, role: str) -> None:
        combo = self.findChild(QComboBox, f"role:{column}")
        if combo is not None:
            combo.setCurrentIndex(max(0, combo.findData(role)))

    def _emit(self) -> None:
        self.roles_changed.emit(self.roles())


class MainWindow(QMainWindow):
    table_loaded = Signal(object)
    preview_shown = Signal(object)   # the first rows of a large file, while it loads
    load_failed = Signal(str)
    report_written = Signal(str)

    def __init__(self, settings: QSettings | None = None, *, lazy: bool = False) -> None:
        """``lazy``: show the start page first and build the data view and the panels (which
        import pandas, pyqtgraph and the analyses) in :meth:`ensure_workspace`."""
        super().__init__()
        self.setWindowTitle(APP)
        self.setAcceptDrops(True)
        self.settings = settings or QSettings(ORG, APP)
        self.table = None  # the LoadedTable on screen
        self.roles: dict[str, str] = {}
        self.problems = []
        self.session_path: str | None = None
        self.session = Session()
        self.dirty = False
        self.presentation = False
        self.closed = False  # shut down: nothing is opened or run any more
        self._base_font = QApplication.font()
        self._pending_session: Session | None = None
        self._pending_panel: str | None = None  # the tab to show once the loading file is in
        #: (panel, table) a new file landed on, until its first run is in (a failure moves on)
        self._landing = None
        self.loader = TaskRunner(self)
        self.loader.progressed.connect(lambda f, m: self.busy.advance(f, m))
        self.loader.finished.connect(self._on_loaded)
        self.loader.failed.connect(self._on_load_failed)
        self.loader.busy_changed.connect(lambda b: None if b else self.busy.stop())
        self.problem_runner = TaskRunner(self)
        self.problem_runner.finished.connect(self._show_problems)
        # the first rows of a large text file, shown while the whole file loads
        self.previewer = TaskRunner(self)
        self.previewer.finished.connect(self._on_preview)
        self._preview_path: str | None = None
        self._preview_shown = False
        self.workspace_ready = False
        self._build()
        self._restore_settings()
        if not lazy:
            self.ensure_workspace()

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
        self.setCentralWidget(self.stack)
        self._build_docks()

    def ensure_workspace(self) -> None:
        """Build the data view, the analysis panels and the rule tab (once)."""
        if self.workspace_ready:
            return
        from .dataview import DataView
        from .panels import PANELS
        from .panels.rule import RulePanel

        self.workspace_ready = True
        self.tabs = QTabWidget()
        self.tabs.setObjectName("workspaceTabs")
        self.data = DataView()
        self.tabs.addTab(self.data, "Data")
        self.panels: dict = {}
        for name, (title, cls) in PANELS.items():
            panel = cls()
            panel.setObjectName(f"panel:{name}")
            panel.options_changed.connect(self._mark_dirty)
            panel.select_rows.connect(lambda rows, n=name: self.data.show_rows(rows, "items that flipped")
                                      or self.tabs.setCurrentWidget(self.data))
            panel.error.connect(self.show_exception)
            panel.result_ready.connect(self._on_result_shown)
            panel.applicability_changed.connect(lambda reason, p=panel: self._mark_applicable(p, reason))
            panel.runner.failed.connect(lambda err, _d, n=name: self._landing_failed(n, err))
            panel.result_ready.connect(lambda _r, n=name: self._landing_done(n))
            self.panels[name] = panel
            self.tabs.addTab(panel, title)
            self.tabs.setTabToolTip(self.tabs.indexOf(panel), panel.module.TITLE)
        self._connect_compare_sources()
        self.rule_panel = RulePanel(lambda: self.session)
        self.rule_panel.setObjectName("panel:rule")
        self.rule_panel.result_ready.connect(self._on_result_shown)
        self.rule_panel.registered.connect(self._mark_dirty)
        self.rule_panel.registered.connect(self._apply_rule_to_charts)
        self.rule_panel.error.connect(self.show_exception)
        self.tabs.addTab(self.rule_panel, "Release rule")
        self.tabs.setUsesScrollButtons(True)
        self.stack.addWidget(self.tabs)
        self._add_view_actions(PANELS)

    def _connect_compare_sources(self) -> None:
        """The Ranking per-query and Text per-item tables are offered to Compare as its metric
        while those panels have a result of two or more systems on the open file."""
        from .panels.compare import SOURCE_PANELS

        compare = self.panels.get("compare")
        if compare is None:
            return
        for name in SOURCE_PANELS:
            source = self.panels.get(name)
            if source is None:
                continue
            source.result_ready.connect(
                lambda result, n=name, p=source: compare.set_source_result(n, result, p.last_input_sha256))
            source.cleared.connect(lambda n=name: compare.set_source_result(n, None))
            source.options_changed.connect(lambda n=name: compare.source_options_changed(n))
            source.runner.failed.connect(lambda _e, _d, n=name: compare.source_failed(n))

    def _build_docks(self) -> None:
        self.roles_table = RolesTable()
        self.roles_table.roles_changed.connect(self._on_roles_changed)
        self.roles_dock = QDockWidget("Columns", self)
        self.roles_dock.setObjectName("rolesDock")
        self.roles_dock.setWidget(self.roles_table)
        self.roles_dock.setMinimumWidth(320)
        self.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, self.roles_dock)
        self.problem_list = QListWidget()
        self.problem_list.setObjectName("problems")
        self.problem_list.setWordWrap(True)
        self.problem_list.itemClicked.connect(self._on_problem_clicked)
        self.problems_dock = QDockWidget("Problems in the data", self)
        self.problems_dock.setObjectName("problemsDock")
        self.problems_dock.setWidget(self.problem_list)
        self.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, self.problems_dock)
        self.roles_dock.setVisible(False)
        self.problems_dock.setVisible(False)

        self.busy = BusyBar()
        self.busy.cancel_requested.connect(self.loader.cancel)
        self.statusBar().addPermanentWidget(self.busy, 1)
        self._build_menus()

    def _action(self, text: str, slot, shortcut=None, tip: str = "") -> QAction:
        act = QAction(text, self)
        if shortcut is not None:
            act.setShortcut(QKeySequence(shortcut))
        if tip:
            act.setStatusTip(tip)
        act.triggered.connect(slot)
        return act

    def _build_menus(self) -> None:
        bar = self.menuBar()
        file_menu = bar.addMenu("&File")
        self.open_action = self._action("&Open…", self.open_dialog, QKeySequence.StandardKey.Open,
                                        "Open a CSV, TSV, XLSX or Parquet file of per-item results")
        file_menu.addAction(self.open_action)
        self.examples_menu = file_menu.addMenu("Open &example")
        for ex in EXAMPLES:
            self.examples_menu.addAction(self._action(ex.title, lambda _=False, e=ex: self.open_example(e)))
        self.example_sessions_menu = file_menu.addMenu("Open example sess&ion")
        for ex in EXAMPLE_SESSIONS:
            self.example_sessions_menu.addAction(
                self._action(ex.title.removeprefix("Session: "), lambda _=False, e=ex: self.open_example(e)))
        self.recent_menu = file_menu.addMenu("Open &recent")
        file_menu.addSeparator()
        self.open_session_action = self._action("Open &session…", self.open_session_dialog, "Ctrl+Shift+O")
        file_menu.addAction(self.open_session_action)
        self.save_action = self._action("&Save session", lambda _c=False: self.save_session(),
                                        QKeySequence.StandardKey.Save)
        file_menu.addAction(self.save_action)
        self.save_as_action = self._action("Save session &as…", lambda _c=False: self.save_session_as(),
                                           QKeySequence.StandardKey.SaveAs)
        file_menu.addAction(self.save_as_action)
        file_menu.addSeparator()
        # triggered(bool) would hand its "checked" flag to export_report as the path
        self.export_action = self._action("&Export report…", lambda _checked=False: self.export_report(),
                                          "Ctrl+E",
                                          "Write an Excel workbook of every panel's results")
        file_menu.addAction(self.export_action)
        file_menu.addSeparator()
        file_menu.addAction(self._action("&Quit", self.close, QKeySequence.StandardKey.Quit))
        view = bar.addMenu("&View")
        # Alt+Home, not Ctrl+Home: a text editor (the rule editor) keeps Ctrl+Home for itself
        self.start_action = self._action("&Start page", lambda: self.stack.setCurrentWidget(self.start),
                                         "Alt+Home")
        view.addAction(self.start_action)
        self.presentation_action = self._action("&Presentation mode", lambda _c=False: self.toggle_presentation(),
                                                "F11",
                                                "Larger fonts, full screen: for review meetings")
        self.presentation_action.setCheckable(True)
        view.addAction(self.presentation_action)
        view.addAction(self.roles_dock.toggleViewAction())
        view.addAction(self.problems_dock.toggleViewAction())
        self.view_menu = view
        self.view_actions: dict[str, QAction] = {}
        help_menu = bar.addMenu("&Help")
        self.guide_action = self._action("&User guide", lambda _c=False: show_guide(self), "F1",
                                         "How to read each panel, file formats, release rules (offline)")
        help_menu.addAction(self.guide_action)
        help_menu.addAction(self._action("&About Eval Workbench", self.about))

    def _add_view_actions(self, PANELS) -> None:  # noqa: N803 - the panels' table
        view = self.view_menu
        view.addSeparator()
        from .panels import FIRST_PANELS

        for i, name in enumerate(PANELS):
            # the tab title keeps "&&" (a literal "&" in a menu; a single "&" would underline)
            keys = f"Ctrl+{i + 1}" if i < FIRST_PANELS else f"Ctrl+Shift+{i - FIRST_PANELS + 1}"
            self.view_actions[name] = self._action(f"{PANELS[name][0]} panel",
                                                   lambda _=False, n=name: self.show_panel(n), keys)
        self.view_actions["rule"] = self._action("Release rule", lambda _=False: self.show_panel("rule"),
                                                 f"Ctrl+{FIRST_PANELS + 1}")
        self.view_actions["data"] = self._action("Data table", lambda _=False: self.show_panel(None), "Ctrl+0")
        for act in self.view_actions.values():
            view.addAction(act)

    # -- settings --------------------------------------------------------------------------------
    def _restore_settings(self) -> None:
        geometry = self.settings.value("window/geometry")
        restored = isinstance(geometry, QByteArray) and not geometry.isEmpty() and self.restoreGeometry(geometry)
        screen = QApplication.primaryScreen()
        area = screen.availableGeometry() if screen is not None else None
        if not restored or self.width() < 900 or self.height() < 600:  # the first window
            width, height = first_window_size(area.width(), area.height()) if area is not None \
                else (1360, 860)
            self.resize(width, height)
            if area is not None:
                self.move(area.x() + (area.width() - width) // 2,
                          area.y() + max(0, (area.height() - height - WINDOW_FRAME_PX) // 2))
                if maximize_first_window(area.width(), area.height()):
                    # a laptop or a full-HD screen: the whole screen, the status bar on it
                    self.setWindowState(self.windowState() | Qt.WindowState.WindowMaximized)
        elif area is not None and (self.width() > area.width() or self.height() > area.height()):
            # a window saved on a larger screen: it fits this one
            self.resize(*first_window_size(area.width(), area.height()))
        state = self.settings.value("window/state")
        if isinstance(state, QByteArray) and not state.isEmpty():
            self.restoreState(state)
        # the start page has the window's width: the docks (empty until a file is open) come
        # back with the next file, whatever the last session left
        self.roles_dock.setVisible(False)
        self.problems_dock.setVisible(False)
        self._refresh_recent()

    def recent_files(self) -> list[str]:
        value = self.settings.value("recent", [])
        if isinstance(value, str):
            value = [value]
        return [p for p in (value or []) if isinstance(p, str)]

    def _add_recent(self, path: str) -> None:
        paths = [p for p in self.recent_files() if p != path]
        self.settings.setValue("recent", [path] + paths[: MAX_RECENT - 1])
        self._refresh_recent()

    def _refresh_recent(self) -> None:
        paths = [p for p in self.recent_files() if all(os.path.exists(q) for q in paths_of(p))]
        self.start.set_recent(paths)
        self.recent_menu.clear()
        for path in paths:
            self.recent_menu.addAction(self._action(recent_label(path),
                                                    lambda _=False, p=path: self.open_recent(p)))
        self.recent_menu.setEnabled(bool(paths))

    def open_recent(self, path: str) -> None:
        """A recent entry: one file, or several files opened together ("a.run + b.run")."""
        parts = paths_of(path)
        if len(parts) > 1:
            self.open_paths(parts)
        else:
            self.open_path(path)

    # -- opening files -------------------------------------------------------------------------
    def open_dialog(self) -> None:
        from ..io.formats import FILE_FILTER  # the open dialog's filters (the formats read)

        paths, _ = QFileDialog.getOpenFileNames(self, "Open results", "", FILE_FILTER)
        if len(paths) == 1:
            self.open_path(paths[0])
        elif paths:  # several files: one stacked table, as the command line does
            self.open_paths(paths)

    def open_example(self, example) -> None:
        self._pending_panel = example.panel
        if example.is_session:
            # installed examples are read-only: File > Save asks where to save a copy
            self.open_session(str(example.path), remember_path=False)
        else:
            self.open_path(str(example.path))

    def open_path(self, path: str, sheet: str | None = None, *, ask_sheet: bool = True,
                  confirm: bool = True) -> None:
        """Load ``path`` in the background; an XLSX with several sheets asks which one.
        Unsaved changes to the current session are offered for saving first."""
        self.ensure_workspace()
        if confirm and not self.confirm_discard():
            self._pending_panel = self._pending_session = None
            return
        path = os.path.abspath(path)
        if sheet is None and ask_sheet and path.lower().endswith((".xlsx", ".xlsm")):
            from ..io.excel import list_sheets

            try:
                sheets = list_sheets(path)
            except WorkbenchError as err:
                self._on_load_failed(err, "")
                return
            if len(sheets) > 1:
                sheet = self.choose_sheet(path, sheets)
                if sheet is None:
                    self._pending_panel = self._pending_session = None
                    return
        self.busy.start(f"Loading {os.path.basename(path)}…")
        saved_roles = dict(self._pending_session.roles) if self._pending_session is not None else {}
        self.loader.start(lambda progress: _load_job(path, sheet, saved_roles, progress))
        self._end_preview()
        self._preview_path = path
        self.previewer.start(lambda progress: _preview_job(path))

    def open_paths(self, paths, *, confirm: bool = True) -> None:
        """Load several files in the background and stack them into one table (a column
        ``file`` names each row's file), exactly as the command line does with several inputs
        (:func:`workbench.io.formats.load_many`); one path is :meth:`open_path`."""
        paths = [os.path.abspath(p) for p in paths]
        if len(paths) == 1:
            self.open_path(paths[0], confirm=confirm)
            return
        self.ensure_workspace()
        if confirm and not self.confirm_discard():
            self._pending_panel = self._pending_session = None
            return
        self.busy.start(f"Loading {len(paths)} files…")
        saved_roles = dict(self._pending_session.roles) if self._pending_session is not None else {}
        extra = {"saved_roles": saved_roles} if saved_roles else {}
        self.loader.start(lambda progress: _load_many_job(paths, progress, **extra))
        self._end_preview()  # a preview of a file asked for before is not these files'

    def choose_sheet(self, path: str, sheets) -> str | None:
        sheet, ok = QInputDialog.getItem(self, "Choose a sheet",
                                         f"{os.path.basename(path)} has {len(sheets)} sheets:",
                                         list(sheets), 0, False)
        return sheet if ok else None

    def _on_preview(self, preview) -> None:
        """The first rows of the file being loaded, in the data view (the panels are cleared:
        their numbers were the previous file's).  Nothing else sees the preview."""
        if preview is None or self._preview_path is None or not self.loader.busy:
            return
        path, table = preview
        if path != self._preview_path:
            return
        self.ensure_workspace()
        for panel in self.panels.values():
            panel.clear_results()
        self.data.set_table(table)
        self._preview_shown = True
        self.stack.setCurrentWidget(self.tabs)
        self.tabs.setCurrentWidget(self.data)
        self.busy.advance(0.3, f"Loading {os.path.basename(path)}… (its first {len(table.frame):,} "
                               f"rows are shown meanwhile)")
        self.preview_shown.emit(table)

    def _end_preview(self) -> bool:
        """Forget the preview; True when one was on screen."""
        self.previewer.cancel()
        shown, self._preview_shown, self._preview_path = self._preview_shown, False, None
        return shown

    def _on_loaded(self, loaded) -> None:
        self.ensure_workspace()
        self._end_preview()
        table, roles, problems = loaded[:3]
        qrels = loaded[3] if len(loaded) > 3 else None  # TREC runs opened with their judgments
        self.table = table
        session = self._pending_session
        self._pending_session = None
        self.data.set_table(table)
        self.roles_table.blockSignals(True)
        self.roles_table.set_roles([str(c) for c in table.frame.columns], roles)
        self.roles_table.blockSignals(False)
        if self.presentation:  # full screen keeps its room: the docks come back when it ends
            self._docks_before = (True, True)
        else:
            self.roles_dock.setVisible(True)
            self.problems_dock.setVisible(True)
        self.roles = dict(roles)
        self.session.roles = dict(roles)
        if problems is None:  # a large table: shown first, its columns checked on a worker
            self._checking_problems(table, roles)
        else:
            self._show_problems(problems)
        if session is not None:
            for name, panel in self.panels.items():
                if name in session.panels:
                    panel.set_options(session.options_for(name, panel.module.Options))
            if "cost" in self.panels:  # display only; older sessions have none: the file's units
                self.panels["cost"].set_currency(session.currency)
        if "compare" in self.panels:  # chosen again once that panel's result on this file is in
            self.panels["compare"].set_source_setting(session.compare_source if session is not None else None)
        _colour_systems(table, roles)
        if session is None:  # another file: nothing chosen on the previous one decides its analyses
            for panel in self.panels.values():
                panel.reset_for_new_file()
            if self.session.rule_sha256:  # the registered rule's bars, said by the rule
                self._apply_rule_to_charts()
            if qrels and "ranking" in self.panels:
                self.panels["ranking"].control("qrels").set_path(qrels)
        for panel in self.panels.values():
            if panel.NEEDS_DATA:
                panel.set_data(table, roles)
        self.rule_panel.set_data(table, roles)
        self.stack.setCurrentWidget(self.tabs)
        if all(os.path.exists(p) for p in paths_of(table.path)):  # one file, or several stacked
            self._add_recent(table.path + (f" + {qrels}" if qrels else ""))  # with the runs' qrels
        self.session.input_path = table.path
        self.session.input_sha256 = table.sha256
        self.session.sheet = table.sheet
        self.dirty = False
        self._update_title()
        notes = " ".join(table.notes)
        said = ""
        panel = getattr(self, "_pending_panel", None) or (table.panel if session is None else None)
        self._pending_panel = None
        if session is None:  # a file by name (command line, drop, Open): the panel that fits and can run
            candidates = ([panel] if panel is not None else []) + \
                [p for p in (FORMAT_PANELS.get(table.format),) if p] + content_panels(table, roles) + \
                panels_for_roles(roles)
            panel = next((p for p in candidates if p in ("rule", "plan") or
                          (p in self.panels and self.panel_applies(p))), None)
            first = candidates[0] if candidates else None
            if first in self.panels and first != panel:  # the likeliest cannot run: say why, first
                title = self.tabs.tabText(self.tabs.indexOf(self.panels[first])).replace("&&", "&")
                said = f"{title} cannot run on this file: {self.panels[first].not_applicable} "
        self.statusBar().showMessage(
            f"{said}Loaded {table.name}: {len(table.frame):,} rows, {table.frame.shape[1]} columns. {notes}",
            20000 if said else 15000)
        self._landing = (panel, table) if panel in self.panels else None
        self.show_panel(panel)
        self.table_loaded.emit(table)

    def _on_load_failed(self, error: object, details: str) -> None:
        self._pending_session = None
        self._pending_panel = None
        if self._end_preview() and self.workspace_ready:
            # the preview replaced the data view: back to the file still open, if any
            if self.table is not None:
                self.data.set_table(self.table)
                for panel in self.panels.values():
                    if panel.NEEDS_DATA:
                        panel.set_data(self.table, self.roles)
            else:
                import pandas as pd

                self.data.model.set_frame(pd.DataFrame())
        if isinstance(error, WorkbenchError):
            self.load_failed.emit(str(error))
            self.warn("Cannot open the file", str(error))
        else:
            self.load_failed.emit(repr(error))
            self.show_exception(f"{type(error).__name__}: {error}", details)

    def show_panel(self, name: str | None) -> None:
        self.ensure_workspace()
        self.stack.setCurrentWidget(self.tabs)
        if name == "data":
            name = None
        if name == "rule":
            self.tabs.setCurrentWidget(self.rule_panel)
            return
        self.tabs.setCurrentWidget(self.panels[name] if name else self.data)
        if name == "plan" and self.panels["plan"].last_result is None:
            self.panels["plan"].run_now()

    def _mark_applicable(self, panel, reason: str) -> None:
        """A panel that cannot run on the data's columns is greyed in the tab bar, the reason
        in its tooltip (it stays clickable: choosing a column by hand may make it run)."""
        from PySide6.QtGui import QColor, QPalette

        index = self.tabs.indexOf(panel)
        bar = self.tabs.tabBar()
        if reason:
            bar.setTabTextColor(index, self.palette().color(QPalette.ColorGroup.Disabled,
                                                            QPalette.ColorRole.WindowText))
            self.tabs.setTabToolTip(index, f"Does not apply to this data: {reason}")
        else:
            bar.setTabTextColor(index, QColor())
            self.tabs.setTabToolTip(index, panel.module.TITLE)

    def _landing_done(self, name: str) -> None:
        if self._landing is not None and self._landing[0] == name:
            self._landing = None

    def _landing_failed(self, name: str, error) -> None:
        """The panel a new file landed on could not run on it (a user error, e.g. a run with
        no judgments): the first thing seen is not a red error.  The tab is greyed with the
        reason in its tooltip, and the window goes to the next panel that fits (else the data)."""
        landing, self._landing = self._landing, None
        if landing is None or landing[0] != name or landing[1] is not self.table \
                or not isinstance(error, WorkbenchError) or self.current_panel_name() != name:
            return
        panel = self.panels[name]
        reason = panel._gui_words(str(error))
        panel._set_applicable(reason)
        panel._show_message(reason)  # the reason, in the panel's plain text (not red)
        nxt = next((p for p in panels_for_roles(self.roles)
                    if p != name and p in self.panels and self.panel_applies(p)), None)
        self.show_panel(nxt)
        self._landing = (nxt, self.table) if nxt is not None else None
        title = self.tabs.tabText(self.tabs.indexOf(panel)).replace("&&", "&")
        self.statusBar().showMessage(f"{title} cannot run on this file (its tab says why).", 15000)

    def panel_applies(self, name: str) -> bool:
        """False when the panel said it cannot run on the loaded data's columns."""
        return not self.panels[name].not_applicable

    def _apply_rule_to_charts(self) -> None:
        """Draw the registered rule's bars on the charts: the paired success margin as the
        band around zero, the p95 latency limit on the latency chart."""
        self.ensure_workspace()
        from ..rules import parse_rule

        try:
            rule = parse_rule(self.rule_panel.rule_text(), source="the rule editor")
        except WorkbenchError:
            return
        for cond in rule.conditions:
            if cond.metric == "success" and cond.threshold_key in ("max_drop", "min_gain"):
                self.panels["compare"].control("margin").setValue(100.0 * abs(cond.threshold))
            elif cond.metric == "latency_p95" and cond.threshold_key == "max":
                self.panels["cost"].control("latency_threshold").setValue(cond.threshold)

    # -- roles and problems -----------------------------------------------------------------------
    def _on_roles_changed(self, roles: dict) -> None:
        self._apply_roles(roles, rerun=True)
        self._mark_dirty()

    def _apply_roles(self, roles: dict[str, str], *, rerun: bool) -> None:
        self.ensure_workspace()
        self.roles = dict(roles)
        self.session.roles = dict(roles)
        if self.table is not None:  # checking a large table takes a while: off the GUI thread
            self._checking_problems(self.table, roles)
        self.rule_panel.roles = dict(roles)
        if rerun and self.table is not None:
            for panel in self.panels.values():
                if panel.NEEDS_DATA:
                    panel.set_data(self.table, roles)

    def _checking_problems(self, table, roles: dict[str, str]) -> None:
        """Check the columns on a worker; the problems list says so meanwhile."""
        from ..io.roles import find_problems

        self.problems = []
        self.problem_list.clear()
        self.problem_list.addItem(QListWidgetItem("Checking the columns…"))
        self.problems_dock.setWindowTitle("Problems in the data (checking…)")
        self.problem_runner.start(lambda progress: find_problems(table, roles))

    def _show_problems(self, problems) -> None:
        self.problems = list(problems)
        self.problem_list.clear()
        for problem in self.problems:
            item = QListWidgetItem(problem.message)
            item.setData(Qt.ItemDataRole.UserRole, problem.rows)
            item.setToolTip("Click to select these rows in the data table.")
            self.problem_list.addItem(item)
        if not self.problems:
            self.problem_list.addItem(QListWidgetItem("No problem found with the columns' roles."))
        self.problems_dock.setWindowTitle(f"Problems in the data ({len(self.problems)})")

    def _on_problem_clicked(self, item: QListWidgetItem) -> None:
        self.ensure_workspace()
        rows = item.data(Qt.ItemDataRole.UserRole)
        if rows:
            self.tabs.setCurrentWidget(self.data)
            self.stack.setCurrentWidget(self.tabs)
            self.data.select_rows(rows)

    # -- sessions --------------------------------------------------------------------------------
    def current_session(self) -> Session:
        self.ensure_workspace()
        session = replace(self.session)
        session.roles = dict(self.roles)
        session.panels = {name: options_to_json(panel.options()) for name, panel in self.panels.items()
                          if panel.table is not None or not panel.NEEDS_DATA}
        session.current_panel = self.current_panel_name()
        cost = self.panels.get("cost")
        session.currency = cost.currency() if cost is not None else None
        compare = self.panels.get("compare")
        session.compare_source = compare.source_setting() if compare is not None else None
        return session

    def current_panel_name(self) -> str | None:
        """The tab on screen: "data", an analysis name, "rule"; None on the start page."""
        if not self.workspace_ready or self.stack.currentWidget() is not self.tabs:
            return None
        shown = self.tabs.currentWidget()
        if shown is self.rule_panel:
            return "rule"
        return next((name for name, panel in self.panels.items() if panel is shown), "data")

    def save_session(self) -> bool:
        if not self.session_path:
            return self.save_session_as()
        return self._write_session(self.session_path)

    def save_session_as(self) -> bool:
        start = self.session_path or (report_name(self.table).removesuffix("-report.xlsx")
                                      + ".wbsession.json" if self.table else "")
        if start and not self.session_path and not os.access(os.path.dirname(start), os.W_OK):
            # an installed example (read-only folder): propose the same name in the home folder
            start = os.path.join(os.path.expanduser("~"), os.path.basename(start))
        path, _ = QFileDialog.getSaveFileName(self, "Save session", start, SESSION_FILTER)
        if not path:
            return False
        return self._write_session(path)

    def _write_session(self, path: str) -> bool:
        try:
            save_session(self.current_session(), path)
        except OSError as err:
            self.warn("Cannot save the session",
                                f"The session could not be written to '{path}': {err.strerror or err}.")
            return False
        self.session_path = path
        self.dirty = False
        self._update_title()
        self.statusBar().showMessage(f"Session saved to {path}", 8000)
        return True

    def open_session_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open session", "", SESSION_FILTER)
        if path:
            self.open_session(path)

    def open_session(self, path: str, *, remember_path: bool = True) -> None:
        """Open a saved session: its input file, roles, options and rule.  With
        ``remember_path=False`` (the bundled examples) File > Save asks for a new file."""
        self.ensure_workspace()
        if not self.confirm_discard():
            self._pending_panel = None
            return
        try:
            session = load_session(path)
        except WorkbenchError as err:
            self._pending_panel = None
            self.warn("Cannot open the session", str(err))
            return
        self.session = session
        self.session_path = path if remember_path else None
        if getattr(self, "_pending_panel", None) is None and session.current_panel in \
                (*self.panels, "rule"):
            self._pending_panel = session.current_panel
        self.rule_panel.set_rule_text(session.rule_text or "")
        if session.rule_sha256:
            self._apply_rule_to_charts()
        if session.input_path:
            self._pending_session = session
            parts = paths_of(session.input_path)
            if len(parts) > 1:  # several files stacked into one table
                self.open_paths(parts, confirm=False)
            else:
                self.open_path(session.input_path, session.sheet, ask_sheet=False, confirm=False)
        else:
            for name, panel in self.panels.items():
                if name in session.panels:
                    panel.set_options(session.options_for(name, panel.module.Options))
            if "cost" in self.panels:  # display only; older sessions have none: the file's units
                self.panels["cost"].set_currency(session.currency)
            if self._pending_panel is not None:
                self.show_panel(self._pending_panel)
                self._pending_panel = None
            self.dirty = False
            self._update_title()

    def _on_result_shown(self, _result) -> None:
        if self.session.results_first_shown_at is None:
            self.session.results_first_shown_at = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")

    # -- report ----------------------------------------------------------------------------------
    def results(self) -> list:
        """Every result on screen, the decision card first (the report's summary leads with it)."""
        self.ensure_workspace()
        shown = [p.last_result for p in self.panels.values() if p.last_result is not None]
        if self.rule_panel.last_result is not None and self.rule_panel.last_result_registered:
            shown.insert(0, self.rule_panel.last_result)  # a draft (unregistered rule) is not reported
        return shown

    def export_report(self, path: str | None = None) -> None:
        self.ensure_workspace()
        try:
            from ..report import write_report
        except ImportError:
            self.inform("Export report", "The report writer is not available in this build.")
            return
        results = self.results()
        if not results:
            self.inform("Export report", "There are no results to export yet.")
            return
        if path is None:
            path, _ = QFileDialog.getSaveFileName(self, "Export report", report_name(self.table),
                                                  "Excel workbook (*.xlsx)")
            if not path:
                return
        source = self.table
        self.busy.start("Writing the report…")
        runner = TaskRunner(self)
        runner.finished.connect(lambda _r: self._report_done(path))
        runner.failed.connect(self._report_failed)
        self._report_runner = runner
        runner.start(lambda progress: write_report(path, results, source=source))

    def _report_done(self, path: str) -> None:
        self.busy.stop()
        self.statusBar().showMessage(f"Report written to {path}", 10000)
        self.report_written.emit(path)

    def _report_failed(self, error: object, details: str) -> None:
        self.busy.stop()
        if isinstance(error, WorkbenchError):
            self.warn("Report not written", str(error))
        else:
            self.show_exception(f"{type(error).__name__}: {error}", details)

    # -- view ------------------------------------------------------------------------------------
    def toggle_presentation(self) -> None:
        """Full screen on the screen the window is on, fonts scaled to that screen, each
        panel's options in a drawer, the answer card largest; again to go back."""
        self.ensure_workspace()
        self.presentation = not self.presentation
        self.presentation_action.setChecked(self.presentation)
        font = QFont(self._base_font)
        screen = self.screen() or QApplication.primaryScreen()
        if self.presentation:
            self._docks_before = (self.roles_dock.isVisible(), self.problems_dock.isVisible())
            self._maximized_before = self.isMaximized()
            self.roles_dock.setVisible(False)
            self.problems_dock.setVisible(False)
            size = self._base_font.pointSizeF()
            scale = presentation_scale(screen.geometry().width(), screen.geometry().height())
            font.setPointSizeF((size if size > 0 else 10) * scale)
            QApplication.setFont(font)
            self.setFont(font)
        else:
            QApplication.setFont(self._base_font)
            self.setFont(self._base_font)
        for panel in self.panels.values():
            panel.set_presentation(self.presentation)
        self.rule_panel.set_presentation(self.presentation)
        if self.presentation:
            self.setGeometry(screen.geometry())
            self.showFullScreen()
        else:
            if getattr(self, "_maximized_before", False):  # back to the maximized window
                self.showMaximized()
            else:
                self.showNormal()
            roles, problems = getattr(self, "_docks_before", (False, False))
            self.roles_dock.setVisible(roles and self.table is not None)
            self.problems_dock.setVisible(problems and self.table is not None)
        for panel in self.panels.values():
            if panel.last_result is not None:
                panel.render(panel.last_result)

    def warn(self, title: str, text: str) -> None:
        """A problem the user can fix (tests replace this to avoid a modal box)."""
        QMessageBox.warning(self, title, text)

    def inform(self, title: str, text: str) -> None:
        QMessageBox.information(self, title, text)

    def about(self) -> None:
        QMessageBox.about(self, "About Eval Workbench", about_text())

    def show_exception(self, summary: str, details: str) -> None:
        ExceptionDialog(summary, details, self).exec()

    # -- window events --------------------------------------------------------------------------
    def _mark_dirty(self) -> None:
        self.dirty = True
        self._update_title()

    def _update_title(self) -> None:
        name = (os.path.basename(self.session_path) if self.session_path
                else shown_name(self.table.path) if self.table else "") or "untitled"
        self.setWindowTitle(f"{name}{' *' if self.dirty else ''} — {APP}")

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

    def open_any(self, path: str) -> None:
        """A session (``*.json``, e.g. ``*.wbsession.json``) or a results file, by its name:
        what a drop, the command line and the desktop's "open with" hand over."""
        from ..io.formats import is_session_file  # a .json is a session or results

        if path.lower().endswith(".json") and is_session_file(path):
            self.open_session(path)
        else:
            self.open_path(path)

    def confirm_discard(self) -> bool:
        """Ask before losing unsaved changes; True when it is fine to go on."""
        if not self.dirty or self.table is None:
            return True
        answer = self.ask_unsaved()
        if answer == "save":
            return self.save_session()
        return answer == "discard"

    def ask_unsaved(self) -> str:
        """'save', 'discard' or 'cancel' (tests replace this to avoid a modal box)."""
        answer = QMessageBox.question(
            self, "Unsaved changes", "Save the session (column roles and every panel's options) first?",
            QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard
            | QMessageBox.StandardButton.Cancel, QMessageBox.StandardButton.Save)
        return {QMessageBox.StandardButton.Save: "save",
                QMessageBox.StandardButton.Discard: "discard"}.get(answer, "cancel")

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
            for panel in self.panels.values():
                panel.shutdown()  # its debounce timer too: it would start a run after this
            self.rule_panel.shutdown()
            self.data.shutdown()
        for runner in (self.loader, self.problem_runner, self.previewer,
                       getattr(self, "_report_runner", None), *self.findChildren(TaskRunner)):
            if runner is not None:
                runner.detach()
        if self.workspace_ready:
            self.data.model.wait(30000)
        self.loader.wait(30000)
        self.previewer.wait(30000)
        self.settings.setValue("window/geometry", self.saveGeometry())
        self.settings.setValue("window/state", self.saveState())
        self.settings.sync()


def __getattr__(name: str):
    """The data view's names, imported on first use (it needs numpy and pandas)."""
    if name in ("DataView", "BACKGROUND_ROWS"):
        from . import dataview

        return getattr(dataview, name)
    raise AttributeError(name)


def _preview_job(path: str):
    """On a worker: the first rows of a large delimited text file (``None`` for others)."""
    from ..io import loader

    table = loader.load_head(path, loader.HEAD_BYTES)
    return None if table is None else (path, table)


def _load_job(path: str, sheet: str | None, saved_roles: dict[str, str], progress):
    """On a worker: load the file, take the saved roles (or guess them), check the data."""
    from ..io import load_table
    from ..io.roles import guess_roles

    table = load_table(path, sheet=sheet, progress=progress, hash_now=True)
    table.sha256  # the panels and the session read it on the GUI thread: ready before that
    roles = {c: r for c, r in saved_roles.items() if c in table.frame.columns} or guess_roles(table)
    _find_systems(table, roles)
    return _checked(table, roles, progress)


def _find_systems(table, roles: dict[str, str]) -> None:
    """On the worker: the system columns' distinct names, which the GUI thread asks for when
    the table arrives (colours, the Compare panel's choices)."""
    from .models import distinct_texts

    for col, role in roles.items():
        if role in ("system", "version") and col in table.frame.columns:
            distinct_texts(table, col, 0)


#: Up to this many rows the columns are checked before the table is shown (a tenth of a
#: second); a larger table is shown first and checked on a worker right after.
CHECK_BEFORE_SHOWING_ROWS = 200_000


def _checked(table, roles, progress):
    from ..io.roles import find_problems

    progress.check_cancelled()
    if len(table.frame) > CHECK_BEFORE_SHOWING_ROWS:
        return table, roles, None  # None: _on_loaded starts the check
    progress.advance(0.95, "checking the columns")
    return table, roles, find_problems(table, roles)


def _load_many_job(paths: list[str], progress, saved_roles: dict[str, str] | None = None):
    """On a worker: several files stacked as the command line stacks them, then the roles
    (the formats' own, else guessed) and the check, as for one file.  A TREC qrels file among
    TREC runs is not stacked: it is the runs' judgments (the Ranking panel's qrels file)."""
    from ..io import load_many
    from ..io.roles import guess_roles

    runs, qrels = split_qrels(paths)
    table = load_many(runs, progress=progress)
    table.sha256  # computed here, not on the GUI thread
    roles = {c: r for c, r in (saved_roles or {}).items() if c in table.frame.columns} or guess_roles(table)
    return (*_checked(table, roles, progress), qrels)


def split_qrels(paths: list[str]) -> tuple[list[str], str | None]:
    """(the files to stack, the one qrels file opened with TREC runs, or None)."""
    from ..io.formats import trec

    def kind(path: str):
        try:
            with open(path, "rb") as fh:
                head = fh.read(4096).decode("utf-8", "replace")
        except OSError:
            return None
        return trec.sniff(head, path) or trec.announced(path)

    kinds = {p: kind(p) for p in paths}
    qrels = [p for p in paths if kinds[p] == trec.QRELS]
    runs = [p for p in paths if kinds[p] != trec.QRELS]
    if len(qrels) == 1 and runs and all(kinds[p] == trec.RUN for p in runs):
        return runs, qrels[0]
    return list(paths), None


def _colour_systems(table, roles: dict[str, str]) -> None:
    """Each system (or version) of the new file gets its colour, in the file's order, for
    every chart of the session."""
    from .charts.base import reset_system_colours
    from .models import distinct_texts

    names: list[str] = []
    for col, role in roles.items():
        if role in ("system", "version") and col in table.frame.columns:
            names += distinct_texts(table, col, 50)
        elif role in ("baseline", "candidate"):
            names.append(col)
    reset_system_colours(names)


#: the panel a tool's file of one run is read for (several stacked files first try another:
#: two Inspect logs, Compare); the landing panel when that one cannot run
FORMAT_PANELS = {"lm_eval_samples": "aggregate", "inspect": "passk", "promptfoo": "cost",
                 "trec_run": "ranking", "jsonl": "passk"}


def paths_of(path: str) -> list[str]:
    """The files of a table's path: one, or those stacked into it ("a.run + b.run")."""
    if " + " in path and not os.path.exists(path):
        return path.split(" + ")
    return [path]


def shown_name(path: str) -> str:
    """A table's name for the title bar: the file's, or every stacked file's (shortened)."""
    names = [os.path.basename(p) for p in paths_of(path)]
    if len(names) <= 3:
        return " + ".join(names)
    return f"{names[0]} + {len(names) - 1} more files"


def recent_label(path: str) -> str:
    parts = paths_of(path)
    if len(parts) == 1:
        return path
    return f"{shown_name(path)}    —    {os.path.dirname(parts[0])}"


def report_name(table) -> str:
    """The proposed report file: beside the (first) file, named after every file opened."""
    if table is None:
        return "workbench-report.xlsx"
    parts = paths_of(table.path)
    stems = [os.path.splitext(os.path.basename(p))[0] for p in parts]
    stem = "+".join(stems) if len(stems) <= 3 else f"{stems[0]}+{len(stems) - 1}-more"
    return os.path.join(os.path.dirname(parts[0]), stem + "-report.xlsx")


def panel_for_roles(roles: dict[str, str]) -> str | None:
    """The analysis a file with these column roles is most likely for (None: the data table)."""
    found = panels_for_roles(roles)
    return found[0] if found else None


def content_panels(table, roles: dict[str, str]) -> list[str]:
    """Panels a file fits by more than its roles: several columns of yes/no verdicts (a
    rubric), a run column (runs side by side)."""
    from ..analyses._common import verdict_columns

    out = []
    ids = {c for c, r in roles.items() if r in ("item", "system", "version", "task", "query", "doc")}
    labels = {"baseline", "candidate", "judge", "human"}  # 0/1 columns that are something else
    if not labels & set(roles.values()) and len(verdict_columns(table, ids, rows=2000)) >= 2:
        out.append("rubric")
    systems = [c for c, r in roles.items() if r == "system"]
    if systems and str(systems[0]).strip().lower().replace("_", "") in ("run", "runid", "runname") \
            and "success" in roles.values():
        out.append("runs")
    return out


def panels_for_roles(roles: dict[str, str]) -> list[str]:
    """Every analysis a file with these column roles fits, the likeliest first."""
    have = set(roles.values())
    out = []
    if {"judge", "human"} <= have:
        out.append("judge")
    if {"prediction", "reference"} <= have:
        out.append("text")
    if {"query", "doc"} <= have:
        out.append("ranking")
    if "task" in have and ({"n", "correct"} <= have or "success" in have):
        out.append("passk")
    if "epoch" in have and "success" in have:
        out.append("repeats")  # several tries of each item: which flip, how noisy
    if "cost" in have and "success" in have:
        out.append("cost")
    if {"numerator", "denominator"} <= have:
        out.append("aggregate")
    if {"baseline", "candidate"} <= have:
        out.append("compare")
    if "success" in have and ("group" in have or "unit" in have):
        out.append("aggregate")
    if "success" in have and ({"system", "version"} & have) and "item" in have:
        out.append("compare")
    if "success" in have:
        out.append("aggregate")  # an overall rate (micro) is always an answer
    return list(dict.fromkeys(out))


#: what a window manager adds above a window (its title bar and frame), in pixels
WINDOW_FRAME_PX = 40


def first_window_size(width: int, height: int) -> tuple[int, int]:
    """The first window's size (unmaximized) on an available screen area of this size: at
    most 1360x860, and never taller or wider than the area with the window's frame, so its
    status bar is on screen."""
    return min(1360, width - 16), min(860, height - WINDOW_FRAME_PX)


def maximize_first_window(width: int, height: int) -> bool:
    """The first window is maximized on screens up to full HD (1280x800 laptops, 1920x1080):
    the text that 1360 pixels elide is whole."""
    return width <= 1920 or height <= 1200


def presentation_scale(width: int, height: int) -> float:
    """The font scale of presentation mode on a screen of this size: 1.15 on 1280x720,
    1.35 on 1920x1080, 1.95 on 4K (text read from the back of a room, the layout still fits)."""
    s = min(width / 1280, height / 720)
    return round(min(2.2, max(1.15, 1.15 + 0.4 * (s - 1))), 2)


def about_text() -> str:
    from importlib.metadata import PackageNotFoundError, version

    import PySide6
    from PySide6.QtCore import qVersion

    def ver(name: str) -> str:
        try:
            return version(name)
        except PackageNotFoundError:
            return "?"

    from ..io import parquet

    reader = parquet.engine()
    parquet_reader = f"Parquet read by {reader} {ver(reader)}" if reader else "no Parquet reader"
    return (f"<h3>Eval Workbench {__version__}</h3>"
            f"<p>Evaluation numbers with their denominators and conventions.</p>"
            f"<p>Qt {qVersion()} (PySide6 {PySide6.__version__}), pandas {ver('pandas')}, "
            f"numpy {ver('numpy')}, scipy {ver('scipy')}, sacrebleu {ver('sacrebleu')}, "
            f"rouge-score {ver('rouge-score')}, pyqtgraph {ver('pyqtgraph')}, openpyxl {ver('openpyxl')}; "
            f"{parquet_reader}.</p>")
