"""The line each row of a large text file starts on, found from the file when first asked for.

A large delimited file whose parse proves every row whole is loaded without a second pass over
its bytes (:func:`workbench.io.fastcsv.parse_file`).  Which line each row starts on (after blank
lines, or fields holding line breaks, it is not simply the row's index + 2) only matters to a
message that names a line, so it is found then: :class:`LazyLines` stands where the array of
lines would be, and computes it once, on first use, from the file (which must still be the one
loaded; otherwise the sentence says to open it again).
"""

from __future__ import annotations

import threading
from typing import Any, Callable

import numpy as np


class LazyLines:
    """An int64 array of ``rows`` line numbers, computed by ``compute`` on first use.

    It answers what the loaded table asks of its row lines: an item or a slice
    (``lines[i]``, ``lines[positions]``), ``np.asarray(lines)``, ``len(lines)``.
    """

    def __init__(self, rows: int, compute: Callable[[], np.ndarray]) -> None:
        self._rows = rows
        self._compute: Callable[[], np.ndarray] | None = compute
        self._array: np.ndarray | None = None
        self._lock = threading.Lock()

    def array(self) -> np.ndarray:
        """The lines (computed once; a failure is raised again on the next call)."""
        with self._lock:
            if self._array is None:
                assert self._compute is not None
                found = np.asarray(self._compute(), dtype=np.int64)
                if found.shape != (self._rows,):
                    raise ValueError(f"{found.size} lines found for {self._rows} rows")
                self._array, self._compute = found, None
            return self._array

    @property
    def known(self) -> bool:
        """Whether the lines have been computed already."""
        return self._array is not None

    def __len__(self) -> int:
        return self._rows

    def __getitem__(self, key: Any) -> Any:
        return self.array()[key]

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        found = self.array()
        return found if dtype is None else found.astype(dtype, copy=False)

    def tolist(self) -> list[int]:
        return self.array().tolist()

    def __getstate__(self) -> dict[str, Any]:  # a copy holds the lines themselves
        return {"_rows": self._rows, "_array": self.array()}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self._rows, self._array = state["_rows"], state["_array"]
        self._compute, self._lock = None, threading.Lock()

    def __repr__(self) -> str:
        return f"LazyLines(rows={self._rows}, {'known' if self.known else 'not read yet'})"
