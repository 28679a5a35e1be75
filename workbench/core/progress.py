"""Qt-free progress and cancellation.

An analysis receives a :class:`Progress` and calls ``advance(fraction, message)`` as it goes
and ``check_cancelled()`` between batches of work.  The GUI passes a subclass that emits
signals; the command line a text one; tests the null one.
"""

from __future__ import annotations

import sys
import threading

from .errors import Cancelled


class Progress:
    """Progress sink and cancellation token (the null implementation: reports nothing)."""

    def __init__(self) -> None:
        self._cancel = threading.Event()

    def advance(self, fraction: float, message: str = "") -> None:
        """Report that ``fraction`` (0..1) of the work is done."""

    def cancel(self) -> None:
        """Ask the running analysis to stop at its next check."""
        self._cancel.set()

    @property
    def cancelled(self) -> bool:
        return self._cancel.is_set()

    def check_cancelled(self) -> None:
        """Raise :class:`Cancelled` if :meth:`cancel` was called."""
        if self._cancel.is_set():
            raise Cancelled("the run was cancelled")


NULL_PROGRESS = Progress()


class TextProgress(Progress):
    """Writes ``[ 40%] message`` lines to a stream (stderr by default) for the command line."""

    def __init__(self, stream=None) -> None:
        super().__init__()
        self._stream = stream if stream is not None else sys.stderr
        self._last = -1

    def advance(self, fraction: float, message: str = "") -> None:
        pct = int(round(100 * max(0.0, min(1.0, fraction))))
        if pct != self._last:
            self._last = pct
            print(f"[{pct:3d}%] {message}", file=self._stream)


class Scaled:
    """A sub-task's progress: its 0..1 mapped onto ``[start, stop]`` of the parent's; the parent's
    cancellation passes through."""

    def __init__(self, parent, start: float, stop: float) -> None:
        self._p, self._a, self._b = parent, start, stop

    def advance(self, fraction: float, message: str = "") -> None:
        self._p.advance(self._a + (self._b - self._a) * fraction, message)

    def check_cancelled(self) -> None:
        self._p.check_cancelled()
