"""Background work for the GUI: one runner per panel on a thread pool.

A run gets a token; starting a new run cancels the previous one, and results of a
superseded run are dropped.  The worker never touches a widget: it reports through signals
that Qt delivers on the GUI thread (queued connections).  Cancellation is cooperative: the
analysis calls ``progress.check_cancelled()`` between batches.
"""

from __future__ import annotations

import itertools
import time
import traceback
from typing import Any, Callable

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal

from ..core.errors import Cancelled
from ..core.progress import Progress

_tokens = itertools.count(1)


class _Relay(QObject):
    """Lives on the GUI thread; the worker emits its signals from the pool thread."""

    progressed = Signal(int, float, str)
    finished = Signal(int, object)
    failed = Signal(int, object, str)
    cancelled = Signal(int)


class SignalProgress(Progress):
    """A :class:`Progress` that forwards ``advance`` to a Qt signal."""

    def __init__(self, relay: _Relay, token: int) -> None:
        super().__init__()
        self._relay = relay
        self._token = token
        self._last = -1.0

    def advance(self, fraction: float, message: str = "") -> None:
        if fraction - self._last >= 0.01 or fraction >= 1.0:
            self._last = fraction
            self._relay.progressed.emit(self._token, float(fraction), message)


class _Job(QRunnable):
    def __init__(self, fn: Callable[[Progress], Any], progress: SignalProgress, relay: _Relay,
                 token: int) -> None:
        super().__init__()
        self.setAutoDelete(True)
        self._fn, self._progress, self._relay, self._token = fn, progress, relay, token

    def run(self) -> None:  # on a pool thread
        try:
            result = self._fn(self._progress)
        except Cancelled:
            self._relay.cancelled.emit(self._token)
        except BaseException as err:  # noqa: BLE001 - reported to the GUI thread
            self._relay.failed.emit(self._token, err, traceback.format_exc())
        else:
            self._relay.finished.emit(self._token, result)


class TaskRunner(QObject):
    """Runs one job at a time for its owner; a new job cancels and supersedes the old one.

    Signals carry no token: only the current run's reports are re-emitted.
    """

    started = Signal()
    progressed = Signal(float, str)
    finished = Signal(object)
    failed = Signal(object, str)
    cancelled = Signal()
    busy_changed = Signal(object)  # a bool; not Signal(bool), see pyproject.toml

    def __init__(self, parent=None, pool: QThreadPool | None = None) -> None:
        super().__init__(parent)
        self._pool = pool or QThreadPool.globalInstance()
        self._relay = _Relay(self)
        self._relay.progressed.connect(self._on_progress)
        self._relay.finished.connect(self._on_finished)
        self._relay.failed.connect(self._on_failed)
        self._relay.cancelled.connect(self._on_cancelled)
        self._token = 0
        self._progress: SignalProgress | None = None

    @property
    def busy(self) -> bool:
        return self._progress is not None

    def start(self, fn: Callable[[Progress], Any]) -> int:
        """Run ``fn(progress)`` on the pool; returns the run's token."""
        self.cancel()
        self._token = next(_tokens)
        self._progress = SignalProgress(self._relay, self._token)
        self._pool.start(_Job(fn, self._progress, self._relay, self._token))
        self.started.emit()
        self.busy_changed.emit(True)
        return self._token

    def cancel(self) -> None:
        """Ask the current run to stop; its result, if any, will be dropped."""
        if self._progress is not None:
            self._progress.cancel()
            self._progress = None
            self._token = -1
            self.busy_changed.emit(False)
            self.cancelled.emit()

    def wait(self, msecs: int = 30000) -> bool:
        """Block until the pool is idle (for shutdown and tests).

        Sleeps in Python between checks: ``QThreadPool.waitForDone`` would keep the GIL
        and deadlock with a worker that needs it to finish.
        """
        deadline = time.monotonic() + msecs / 1000.0
        while self._pool.activeThreadCount() > 0:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.005)
        return True

    def _current(self, token: int) -> bool:
        return token == self._token and self._progress is not None

    def _on_progress(self, token: int, fraction: float, message: str) -> None:
        if self._current(token):
            self.progressed.emit(fraction, message)

    def _on_finished(self, token: int, result: object) -> None:
        if self._current(token):
            self._progress = None
            self.busy_changed.emit(False)
            self.finished.emit(result)

    def _on_failed(self, token: int, error: object, details: str) -> None:
        if self._current(token):
            self._progress = None
            self.busy_changed.emit(False)
            self.failed.emit(error, details)

    def _on_cancelled(self, token: int) -> None:
        # the user-facing "cancelled" was emitted by cancel(); nothing more to do
        return
