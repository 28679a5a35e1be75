"""Cache-sized kernels behind the resampling tests (no statistics of their own).

:func:`flipped_sums` -- the sign-flip test's Monte Carlo rounds: for each round (a row of
random bytes, one byte per group of 8 items) the sum of the |differences| whose bit is set,
as lookups in a table of the 256 subset sums of each group.  The lookups are taken a block
of groups at a time for every row of the batch (the block's table rows stay in the CPU
cache; looking up a whole row at once touches the whole table, 2 kB per group, and misses
it on every lookup), and the blocks are shared between two threads (numpy releases the GIL
while adding and gathering).  The sums are the same integers whatever the blocking.
"""

from __future__ import annotations

import numpy as np

#: groups of 8 items per block of lookups: 128 x 2 kB of table stays in a 512 kB cache
GROUP_BLOCK = 128
THREADS = 2


def _block_sums(flat: np.ndarray, offsets: np.ndarray, by_byte: np.ndarray, g0: int, g1: int) -> np.ndarray:
    rows = by_byte.shape[0]
    acc = np.zeros(rows, dtype=flat.dtype)
    idx = np.empty((rows, min(GROUP_BLOCK, g1 - g0)), dtype=np.intp)
    for a in range(g0, g1, GROUP_BLOCK):
        b = min(g1, a + GROUP_BLOCK)
        ii = idx[:, :b - a]
        np.add(by_byte[:, a:b], offsets[a:b], out=ii)
        acc += np.take(flat, ii).sum(axis=1)
    return acc


class FlipSums:
    """The subset-sum table of ``absd`` (whole numbers) and the flipped sum of a batch of
    random byte rows: ``sums(by_byte)[r] = sum_g table[g, by_byte[r, g]]``."""

    def __init__(self, table: np.ndarray):
        self.groups = table.shape[0]
        self.flat = np.ascontiguousarray(table).ravel()
        self.offsets = np.arange(self.groups, dtype=np.intp) * table.shape[1]
        self._pool = None

    def sums(self, by_byte: np.ndarray) -> np.ndarray:
        g = self.groups
        if g < 4 * GROUP_BLOCK or THREADS < 2:
            return _block_sums(self.flat, self.offsets, by_byte, 0, g)
        if self._pool is None:
            from concurrent.futures import ThreadPoolExecutor

            self._pool = ThreadPoolExecutor(max_workers=THREADS)
        cut = [g * k // THREADS for k in range(THREADS + 1)]
        parts = [self._pool.submit(_block_sums, self.flat, self.offsets, by_byte, cut[k], cut[k + 1])
                 for k in range(THREADS)]
        return sum(p.result() for p in parts)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
