"""What the window asks the user around files: which file, which sheet, save first?, where
to save the session or the report.  The answers go to the session controller, which does the
work; the main window mixes this in (``MainWindow(FileCommands, QMainWindow)``)."""

from __future__ import annotations

import os

from PySide6.QtWidgets import QFileDialog, QInputDialog, QMessageBox

from ..core.errors import WorkbenchError
from ..core.session import Session
from .loading import paths_of, report_name

SESSION_FILTER = "Workbench sessions (*.wbsession.json *.json);;All files (*)"
#: File > Export items: the layout and the format (by the name's extension)
ITEMS_FILTER = ("Items, one row per scorer (*.csv *.parquet *.xlsx);;"
                "Items, one column per scorer (*.csv *.parquet *.xlsx)")


class FileCommands:
    """File > Open, Open recent, examples, sessions and Export report, and drops."""

    # -- opening ----------------------------------------------------------------------------------
    def open_dialog(self) -> None:
        from ..io.formats import (
            FILE_FILTER,  # the open dialog's filters (the formats read)
        )

        paths, _ = QFileDialog.getOpenFileNames(self, "Open results", "", FILE_FILTER)
        if paths:  # several files: one stacked table, as the command line does
            self.open_paths(paths)

    def recent_files(self) -> list[str]:
        return self.controller.recent_files()

    def open_recent(self, path: str) -> None:
        """A recent entry: one file, or several files opened together ("a.run + b.run")."""
        self.open_paths(paths_of(path))

    def open_example(self, example) -> None:
        self.controller.pending_panel = example.panel
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
            self.controller.forget_pending()
            return
        path = os.path.abspath(path)
        if sheet is None and ask_sheet and path.lower().endswith((".xlsx", ".xlsm")):
            from ..io.excel import list_sheets

            try:
                sheets = list_sheets(path)
            except WorkbenchError as err:
                self.controller.forget_pending()
                self._on_load_failed(err, "")
                return
            if len(sheets) > 1:
                sheet = self.choose_sheet(path, sheets)
                if sheet is None:
                    self.controller.forget_pending()
                    return
        self.controller.open_path(path, sheet)

    def open_paths(self, paths, *, confirm: bool = True) -> None:
        """Several files stacked into one table (a column ``file`` names each row's file), as
        the command line stacks them; one path is :meth:`open_path`."""
        if len(paths) == 1:
            self.open_path(paths[0], confirm=confirm)
            return
        self.ensure_workspace()
        if confirm and not self.confirm_discard():
            self.controller.forget_pending()
            return
        self.controller.open_paths(paths)

    def open_any(self, path: str) -> None:
        """A session (``*.json``, e.g. ``*.wbsession.json``) or a results file, by its name:
        what a drop, the command line and the desktop's "open with" hand over."""
        from ..io.formats import is_session_file  # a .json is a session or results

        if path.lower().endswith(".json") and is_session_file(path):
            self.open_session(path)
        else:
            self.open_path(path)

    def choose_sheet(self, path: str, sheets) -> str | None:
        sheet, ok = QInputDialog.getItem(self, "Choose a sheet",
                                         f"{os.path.basename(path)} has {len(sheets)} sheets:",
                                         list(sheets), 0, False)
        return sheet if ok else None

    def current_session(self) -> Session:
        from dataclasses import replace

        self.ensure_workspace()
        session = replace(self.session)
        session.roles = dict(self.roles)
        self.workspace.fill_session(session)
        session.current_panel = self.current_panel_name()
        return session

    def save_session(self) -> bool:
        return self._write_session(self.session_path) if self.session_path else self.save_session_as()

    def save_session_as(self) -> bool:
        path, _ = QFileDialog.getSaveFileName(self, "Save session", self.controller.proposed_session_path(),
                                              SESSION_FILTER)
        return bool(path) and self._write_session(path)

    def _write_session(self, path: str) -> bool:
        try:
            self.controller.write_session(self.current_session(), path)
        except OSError as err:
            self.warn("Cannot save the session", f"The session could not be written to '{path}': "
                                                 f"{err.strerror or err}.")
            return False
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
            self.controller.pending_panel = None
            return
        try:
            session = self.controller.open_session(path, remember_path=remember_path)
        except WorkbenchError as err:
            self.controller.pending_panel = None
            self.warn("Cannot open the session", str(err))
            return
        self.rule_panel.set_rule_text(session.rule_text or "")
        self.history.clear()  # a session keeps the settings, not the steps that led to them
        if session.rule_sha256:
            self.workspace.apply_rule_to_charts()
        if not session.input_path:  # options and a rule only: shown now
            self.workspace.apply_options(session)
            panel, self.controller.pending_panel = self.controller.pending_panel, None
            if panel in self.workspace.names():
                self.show_panel(panel)

    def export_report(self, path: str | None = None) -> None:
        self.ensure_workspace()
        results = self.results()
        if not results:
            self.inform("Export report", "There are no results to export yet.")
            return
        if path is None:
            path, _ = QFileDialog.getSaveFileName(self, "Export report", report_name(self.table),
                                                  "Excel workbook (*.xlsx)")
            if not path:
                return
        try:
            self.controller.export_report(path, results)
        except ImportError:
            self.inform("Export report", "The report writer is not available in this build.")

    def export_items(self, path: str | None = None) -> None:
        """File > Export items: the loaded table's items as one flat table (the workbench items
        layout; one row per record and scorer, or one column per scorer), written on a worker."""
        from ..analyses.items import write_items
        from .tasks import TaskRunner

        table = self.table
        if table is None:
            self.inform("Export items", "Open a results file first: there are no items to export.")
            return
        wide = False
        if path is None:
            stem = os.path.splitext(os.path.basename(table.path.split(" + ")[0].rstrip(os.sep)))[0]
            path, chosen = QFileDialog.getSaveFileName(self, "Export items", f"{stem}-items.csv", ITEMS_FILTER)
            if not path:
                return
            wide = "column per scorer" in chosen
            if not os.path.splitext(path)[1]:
                path += ".csv"
        runner = TaskRunner(self.controller)  # the controller waits for it when the window closes
        runner.finished.connect(lambda written: self.statusBar().showMessage(written.sentence(), 10000))
        runner.failed.connect(lambda error, details: self.warn("Items not written", str(error))
                              if isinstance(error, WorkbenchError) else self.show_exception(
                                  f"{type(error).__name__}: {error}", details))
        self.items_runner = runner
        runner.start(lambda progress: write_items(table, path, wide=wide))

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

    def confirm_discard(self) -> bool:
        """Ask before losing unsaved changes (on close, quit, opening a file or a session);
        True when it is fine to go on."""
        if not self.dirty:
            return True
        answer = self.ask_unsaved()
        return self.save_session() if answer == "save" else answer == "discard"

    def ask_unsaved(self) -> str:
        """'save', 'discard' or 'cancel' (tests replace this to avoid a modal box)."""
        button = QMessageBox.StandardButton
        answer = QMessageBox.question(
            self, "Unsaved changes", "Save the session (column roles and every panel's options) first?",
            button.Save | button.Discard | button.Cancel, button.Save)
        return {button.Save: "save", button.Discard: "discard"}.get(answer, "cancel")

