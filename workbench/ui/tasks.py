"""Background work for the GUI: one runner per panel on a thread pool.

A run gets a token; starting a new run cancels the previous one, and results of a
superseded run are dropped.  The worker never touches a widget: it reports through signals
that Qt delivers on the GUI thread (queued connections).  Cancellation is cooperative: the
analysis calls ``progress.check_cancelled()`` between batches.
"""

from __future__ import annotations

import itertools
import threading
import time
import traceback
from typing import Any, Callable

from PySide6.QtCore import QObject, QRunnable, QThreadPool, QTimer, Signal

from ..core.errors import Cancelled
from ..core.progress import Progress

_tokens = itertools.count(1)


class _Relay(QObject):
    """Lives on the GUI thread; the worker emits its signals from the pool thread."""

    progressed = Signal(int, float, str)
    finished = Signal(int, object)
    failed = Signal(int, object, str)
    cancelled = Signal(int)


class _Gate:
    """Whether a runner's relay may still be emitted on, and the lock that makes "check, then
    emit" one step: a worker emits only while the gate is open, and the GUI thread closes it
    (under the same lock) before the relay can be deleted.  So no worker emits on a deleted
    relay ("Signal source has been deleted", or a crash), whatever the timing."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.open = True

    def close(self, *_args) -> None:
        with self._lock:  # waits for an emit in progress (it only posts an event)
            self.open = False

    def emit(self, signal, *args) -> bool:
        with self._lock:
            if not self.open:
                return False
            signal.emit(*args)
            return True


class SignalProgress(Progress):
    """A :class:`Progress` that forwards ``advance`` to a Qt signal."""

    def __init__(self, relay: _Relay, token: int, gate: _Gate | None = None) -> None:
        super().__init__()
        self._relay = relay
        self._token = token
        self._gate = gate or _Gate()
        self._last = -1.0

    def advance(self, fraction: float, message: str = "") -> None:
        if fraction - self._last >= 0.01 or fraction >= 1.0:
            self._last = fraction
            self._gate.emit(self._relay.progressed, self._token, float(fraction), message)


class _Job(QRunnable):
    def __init__(self, fn: Callable[[Progress], Any], progress: SignalProgress, relay: _Relay,
                 token: int, gate: _Gate | None = None) -> None:
        super().__init__()
        self.setAutoDelete(True)
        self._fn, self._progress, self._relay, self._token = fn, progress, relay, token
        self._gate = gate or progress._gate

    def run(self) -> None:  # on a pool thread
        gate, relay = self._gate, self._relay
        try:
            result = self._fn(self._progress)
        except Cancelled:
            gate.emit(relay.cancelled, self._token)
        except BaseException as err:  # noqa: BLE001 - reported to the GUI thread
            gate.emit(relay.failed, self._token, err, traceback.format_exc())
        else:
            gate.emit(relay.finished, self._token, result)
        finally:
            self._fn = self._progress = None  # the analysis's data is freed on this thread


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
        self._gate = _Gate()
        self._detached = False
        # closed before this runner and its relay are deleted (a panel or window gone while
        # its analysis runs): a worker then emits nothing at all
        self.destroyed.connect(self._gate.close)
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

    @property
    def detached(self) -> bool:
        return self._detached

    def start(self, fn: Callable[[Progress], Any]) -> int:
        """Run ``fn(progress)`` on the pool; returns the run's token (-1: the runner was
        detached, nothing runs)."""
        self.cancel()
        if self._detached:
            return -1
        self._token = next(_tokens)
        self._progress = SignalProgress(self._relay, self._token, self._gate)
        self._pool.start(_Job(fn, self._progress, self._relay, self._token, self._gate))
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

    def detach(self) -> None:
        """For good (the owner closes): cancel the run, never emit for it, start nothing more.
        A worker still running finishes on its own; nothing it reports reaches a widget."""
        self.cancel()
        self._detached = True
        self._gate.close()

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

    def when_idle(self, then: Callable[[], None], settle_ms: int = 200) -> None:
        """``then()`` once the current run has ended (finished, failed or cancelled; at once when
        none runs), ``settle_ms`` after its handlers: the answer it brought is laid out and
        painted before another job takes its share of the GIL (a check of a million rows made
        the answer's first layout 0.4 s slower)."""
        if not self.busy:
            then()
            return
        signals = (self.finished, self.failed, self.cancelled)

        def go(*_args) -> None:
            for signal in signals:
                signal.disconnect(go)
            QTimer.singleShot(settle_ms, self, then)

        for signal in signals:  # connected after the owner's own handlers: called after them
            signal.connect(go)

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
