"""One analysis's last intermediate result on a table object, kept for the conventions table
that may follow on the same table (it recomputes the analysis a dozen times and reuses what no
convention changes).

The table is held by a weak reference: the entry is dropped when the table is, and a table
that merely compares equal (the same file and options, another object, possibly other rows)
never finds it.  One entry per analysis; a new run replaces it.
"""

from __future__ import annotations

import threading
import weakref
from typing import Any


class LastRun:
    """``remember(table, key, value)`` after a run; ``get(table, key)`` the value when the last
    run was on this very table object with an equal ``key``, else None."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._slot: dict = {}

    def remember(self, table, key, value) -> None:
        def forget(ref) -> None:
            with self._lock:
                if self._slot.get("table") is ref:
                    self._slot.clear()

        with self._lock:
            self._slot.clear()
            try:
                self._slot.update(table=weakref.ref(table, forget), key=key, value=value)
            except TypeError:  # pragma: no cover - a table that takes no weak reference
                self._slot.clear()

    def get(self, table, key=None, *, any_key: bool = False) -> Any:
        """The value kept for ``table`` and ``key`` (``any_key``: ``(key, value)`` whatever the
        key), else None."""
        with self._lock:
            ref = self._slot.get("table")
            if ref is None or ref() is not table:
                return None
            if any_key:
                return self._slot["key"], self._slot["value"]
            return self._slot["value"] if self._slot["key"] == key else None

    def clear(self) -> None:
        with self._lock:
            self._slot.clear()
