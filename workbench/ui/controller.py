"""The session controller: what is open and how it got there, without a widget.

It opens files (one, several stacked, a saved session) on workers, keeps the table, its column
roles and the session being edited, checks the columns, remembers the recent files and writes
the report.  It asks nothing of the user: the window asks (which sheet, save first?, where to)
and hands over the answers; the controller says what happened through its signals.  Its tests
need no window (tests/ui/test_ui_controller.py).
"""

from __future__ import annotations

import datetime as _dt
import os
from dataclasses import dataclass, field

from PySide6.QtCore import QObject, QSettings, Signal

from ..core.session import Session, changed_inputs, load_session, save_session
from . import loading, preload
from .loading import paths_of
from .tasks import TaskRunner

MAX_RECENT = 8


@dataclass
class Loaded:
    """A file (or several stacked) that finished loading, as the window receives it."""

    table: object
    roles: dict[str, str]
    problems: list | None       # None: a large table, its columns checked on a worker next
    qrels: str | None           # the judgments of TREC runs opened together with them
    session: Session | None     # the saved session it was opened for, if any
    panel: str | None           # the panel asked for (an example's, a session's tab)
    changed: list[str] = field(default_factory=list)  # the session's files changed since saved


class SessionController(QObject):
    busy = Signal(str)                    # a long job started: its message
    progressed = Signal(float, str)
    idle = Signal()                       # the loading job ended (done, failed or cancelled)
    preview_ready = Signal(object)        # the first rows of a large file, while it loads
    loaded = Signal(object)               # a Loaded
    load_failed = Signal(object, str)     # (error, details)
    problems_checking = Signal()
    problems_found = Signal(object)
    recent_changed = Signal(object)        # the recent entries whose files still exist
    state_changed = Signal()              # the title's parts: session path, table, dirty
    report_written = Signal(str)
    report_failed = Signal(object, str)

    def __init__(self, settings: QSettings, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.settings = settings
        self.table = None                 # the LoadedTable on screen
        self.roles: dict[str, str] = {}
        self.session = Session()
        self.session_path: str | None = None
        self.dirty = False
        self.pending_session: Session | None = None
        self.pending_panel: str | None = None   # the tab to show once the loading file is in
        self.loader = TaskRunner(self)
        self.loader.progressed.connect(self.progressed)
        self.loader.finished.connect(self._on_loaded)
        self.loader.failed.connect(self._on_failed)
        self.loader.busy_changed.connect(lambda b: None if b else self.idle.emit())
        self.loader.cancelled.connect(preload.discard)  # a load cancelled: its answer ahead too
        self.problem_runner = TaskRunner(self)
        self.problem_runner.finished.connect(self.problems_found)
        self.previewer = TaskRunner(self)
        self.previewer.finished.connect(self._on_preview)
        self.report_runner: TaskRunner | None = None
        self._preview_path: str | None = None
        self.preview_shown = False
        self.problems_pending = False     # the loaded table's columns still to be checked

    # -- opening ------------------------------------------------------------------------------
    def open_path(self, path: str, sheet: str | None = None) -> None:
        """Load one file in the background (its first rows are previewed meanwhile)."""
        path = os.path.abspath(path)
        self.busy.emit(f"Loading {os.path.basename(path)}…")
        saved = self._saved_roles()
        self.loader.start(lambda progress: loading.load_job(path, sheet, saved, progress))
        self.end_preview()
        self._preview_path = path
        self.previewer.start(lambda progress: loading.preview_job(path))

    def open_paths(self, paths) -> None:
        """Load several files in the background, stacked into one table as the command line
        stacks them (:func:`workbench.io.formats.load_many`)."""
        paths = [os.path.abspath(p) for p in paths]
        if len(paths) == 1:
            self.open_path(paths[0])
            return
        self.busy.emit(f"Loading {len(paths)} files…")
        saved = self._saved_roles()
        extra = {"saved_roles": saved} if saved else {}
        self.loader.start(lambda progress: loading.load_many_job(paths, progress, **extra))
        self.end_preview()  # a preview of a file asked for before is not these files'

    def open_session(self, path: str, *, remember_path: bool = True) -> Session:
        """Read a saved session and start loading its input file(s); the session is returned
        for the window to apply its rule.  Raises WorkbenchError for a bad session file."""
        session = load_session(path)
        self.session = session
        self.session_path = path if remember_path else None
        if self.pending_panel is None:  # an example's own panel comes first
            self.pending_panel = session.current_panel
        if session.input_path:
            self.pending_session = session
            parts = paths_of(session.input_path)
            if len(parts) > 1:
                self.open_paths(parts)
            else:
                self.open_path(session.input_path, session.sheet)
        else:
            self.dirty = False
            self.state_changed.emit()
        return session

    def forget_pending(self) -> None:
        self.pending_session = self.pending_panel = None

    def _saved_roles(self) -> dict[str, str]:
        return dict(self.pending_session.roles) if self.pending_session is not None else {}

    def _on_preview(self, preview) -> None:
        if preview is None or self._preview_path is None or not self.loader.busy:
            return
        path, table = preview
        if path != self._preview_path:
            return
        self.preview_shown = True
        self.preview_ready.emit(table)

    def end_preview(self) -> bool:
        """Forget the preview; True when one was on screen."""
        self.previewer.cancel()
        shown, self.preview_shown, self._preview_path = self.preview_shown, False, None
        return shown

    def _on_loaded(self, result) -> None:
        table, roles, problems = result[:3]
        qrels = result[3] if len(result) > 3 else None
        session, self.pending_session = self.pending_session, None
        panel, self.pending_panel = self.pending_panel, None
        if session is None:  # a file by name: a new, untitled session (Save asks where)
            self.start_untitled()
        self.table = table
        self.roles = dict(roles)
        self.session.roles = dict(roles)
        if all(os.path.exists(p) for p in paths_of(table.path)):  # one file, or several stacked
            self.add_recent(table.path + (f" + {qrels}" if qrels else ""))  # with the runs' qrels
        changed = changed_inputs(session, table) if session is not None else []
        self.session.input_path = table.path
        self.session.input_sha256 = table.sha256
        self.session.input_files = [{"path": p, "sha256": sha} for p, sha in table.parts]
        self.session.sheet = table.sheet
        self.dirty = False
        # a large table's columns are checked on a worker: the window starts that once the panel
        # the file lands on has its answer (both at once would share the cores), or now
        self.problems_pending = problems is None
        self.loaded.emit(Loaded(table, dict(roles), problems, qrels, session, panel, changed))
        if self.problems_pending:
            self.check_problems()
        self.state_changed.emit()

    def check_problems_after(self, runner) -> None:
        """Start the pending check of the columns once ``runner`` (the landing panel's) is idle;
        called by the window from its handler of :attr:`loaded`, so the handler's own call after
        it finds nothing pending."""
        self.problems_pending = False
        if runner is None:
            self.check_problems()
            return
        table = self.table
        runner.when_idle(lambda: self.check_problems() if self.table is table else None)

    def _on_failed(self, error: object, details: str) -> None:
        self.forget_pending()
        self.load_failed.emit(error, details)

    def start_untitled(self) -> None:
        """Another file is opened (not a session): the session on screen is a new one, with no
        file of its own, so Save asks where and no saved session is ever rewritten with another
        file's analysis.  The registered release rule stays with it."""
        old = self.session
        self.session = Session(rule_text=old.rule_text, rule_sha256=old.rule_sha256,
                               rule_registered_at=old.rule_registered_at,
                               rule_changed_after_results=old.rule_changed_after_results,
                               results_first_shown_at=old.results_first_shown_at)
        self.session_path = None

    # -- roles and problems --------------------------------------------------------------------
    def set_roles(self, roles: dict[str, str]) -> None:
        """The user changed a column's role: the columns are checked again (on a worker)."""
        self.roles = dict(roles)
        self.session.roles = dict(roles)
        if self.table is not None:
            self.check_problems()

    def check_problems(self) -> None:
        from ..io.roles import find_problems

        table, roles = self.table, dict(self.roles)
        self.problems_checking.emit()
        self.problem_runner.start(lambda progress: find_problems(table, roles))

    # -- sessions ------------------------------------------------------------------------------
    def mark_dirty(self) -> None:
        self.dirty = True
        self.state_changed.emit()

    def write_session(self, session: Session, path: str) -> None:
        """Save ``session`` (the window's current state) to ``path``; raises OSError."""
        save_session(session, path)
        self.session_path = path
        self.dirty = False
        self.state_changed.emit()

    def proposed_session_path(self) -> str:
        """Where File > Save session as starts: the session's file, else beside the data
        (in the home folder when that folder cannot be written, e.g. an installed example)."""
        if self.session_path:
            return self.session_path
        if self.table is None:
            return ""
        start = loading.report_name(self.table).removesuffix("-report.xlsx") + ".wbsession.json"
        if not os.access(os.path.dirname(start), os.W_OK):
            start = os.path.join(os.path.expanduser("~"), os.path.basename(start))
        return start

    def result_shown(self, _result=None) -> None:
        if self.session.results_first_shown_at is None:
            self.session.results_first_shown_at = \
                _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")

    def title(self) -> str:
        """The session's file name, or "Untitled session" (with the data's name): a session
        not saved yet says so."""
        if self.session_path:
            name = os.path.basename(self.session_path)
        else:
            shown = loading.shown_name(self.table.path) if self.table else ""
            name = f"Untitled session — {shown}" if shown else "Untitled session"
        return f"{name}{' *' if self.dirty else ''}"

    # -- recent files --------------------------------------------------------------------------
    def recent_files(self) -> list[str]:
        value = self.settings.value("recent", [])
        if isinstance(value, str):
            value = [value]
        return [p for p in (value or []) if isinstance(p, str)]

    def add_recent(self, path: str) -> None:
        paths = [p for p in self.recent_files() if p != path]
        self.settings.setValue("recent", [path] + paths[: MAX_RECENT - 1])
        self.refresh_recent()

    def refresh_recent(self) -> None:
        self.recent_changed.emit([p for p in self.recent_files()
                                  if all(os.path.exists(q) for q in paths_of(p))])

    # -- report --------------------------------------------------------------------------------
    def export_report(self, path: str, results: list) -> None:
        """Write the Excel report of ``results`` on a worker (the writer replaces the file
        only once it is whole)."""
        from ..report import write_report

        source = self.table
        self.busy.emit("Writing the report…")
        runner = TaskRunner(self)
        runner.finished.connect(lambda _r: self.report_written.emit(path))
        runner.failed.connect(self.report_failed)
        self.report_runner = runner
        runner.start(lambda progress: write_report(path, results, source=source))

    # -- shutting down -------------------------------------------------------------------------
    def shutdown(self) -> None:
        """Cancel and detach every worker (one still running reports nothing), then wait."""
        for runner in (self.loader, self.problem_runner, self.previewer, self.report_runner,
                       *self.findChildren(TaskRunner)):
            if runner is not None:
                runner.detach()
        self.loader.wait(30000)
        self.previewer.wait(30000)
        preload.stop_all()  # an answer computed ahead that no panel took: its thread ends


__all__ = ["Loaded", "MAX_RECENT", "SessionController"]
