"""Values worked out once per table object: the loading worker fills them, the GUI thread
reads them (a plain table's declared evaluation, a column's distinct texts).

Each table is held by a weak reference and only the last few tables are kept; a table that
merely compares equal is another table (it never finds the first one's values).
"""

from __future__ import annotations

import threading
import weakref
from typing import Any, Callable, Hashable


class PerTable:
    """``get(table, key, make)``: ``make()``'s value for this very table object and ``key``,
    computed the first time and remembered (thread-safe; ``make`` runs outside the lock)."""

    def __init__(self, tables: int = 4) -> None:
        self._lock = threading.Lock()
        self._entries: dict[int, tuple[Any, dict]] = {}
        self._tables = tables

    def get(self, table, key: Hashable, make: Callable[[], Any]) -> Any:
        with self._lock:
            entry = self._entries.get(id(table))
            if entry is None or entry[0]() is not table:
                if len(self._entries) >= self._tables:
                    self._entries.pop(next(iter(self._entries)))
                entry = self._entries[id(table)] = (weakref.ref(table), {})
            if key in entry[1]:
                return entry[1][key]
        value = make()
        with self._lock:
            entry[1][key] = value
        return value


__all__ = ["PerTable"]
