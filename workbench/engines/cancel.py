"""A cancel that reaches an engine's running statement: the progress object's Cancel, seen by a
watcher thread, interrupts the connection (DuckDB's or a Spark session's ``interrupt``)."""

from __future__ import annotations

import threading

from ..core.errors import Cancelled
from ..core.progress import NULL_PROGRESS


def cancelled(progress) -> bool:
    """Whether the run of ``progress`` was cancelled (``check_cancelled`` raises then)."""
    try:
        progress.check_cancelled()
    except Cancelled:
        return True
    return False


def watch_cancel(conn, progress) -> threading.Event:
    """A cancel interrupts the engine's running query (checked every 0.1 s on a thread that
    ends with the run: set the returned event)."""
    done = threading.Event()
    if progress is None or progress is NULL_PROGRESS:
        return done

    def watch() -> None:
        while not done.wait(0.1):
            if cancelled(progress):
                try:
                    conn.interrupt()
                except Exception:  # noqa: BLE001 - the run ends at its next check instead
                    pass
                return

    threading.Thread(target=watch, name="workbench-engine-cancel", daemon=True).start()
    return done
