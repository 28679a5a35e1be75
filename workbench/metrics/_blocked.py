"""Kernels behind the resampling tests (no statistics of their own).

:func:`by_value_means` -- the paired bootstrap of a mean by the counts of its frequent values:
each resample draws how many of its n items carry each value that at least
:data:`FREQUENT` items share (and how many come from the rest) from one multinomial, then
only the rest as item indices.  The law of resampling the n items, at a cost of the rare
items' draws (a rubric's scores with a few blank verdicts: most items share a handful of
differences).

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


#: a value shared by at least this many items is drawn as a count (one binomial draw costs
#: about as much as a dozen index draws)
FREQUENT = 16
#: draws per task (each task its own stream ``SeedSequence(seed, spawn_key=(task,))``)
TASK_DRAWS = 1 << 19


def by_value_means(d: np.ndarray, *, resamples: int, seed: int, progress) -> np.ndarray:
    """``resamples`` bootstrap means of ``d`` (n items): per resample the counts of the
    frequent values and of the rest from Multinomial(n, shares), then the rest's items by
    uniform index draws among the rare items (sorted, so that the result depends on the data
    and the seed only); tasks on two threads."""
    d = np.asarray(d, dtype=float)
    n = d.size
    out = np.empty(resamples)
    values, counts = np.unique(d, return_counts=True)
    often = counts >= FREQUENT
    hv = values[often]
    rare = np.repeat(values[~often], counts[~often])
    probs = np.append(counts[often], rare.size) / n
    per_row = max(1, rare.size * rare.size // n + often.sum())   # expected work of one resample
    rows = max(1, min(resamples, TASK_DRAWS // per_row))
    starts = list(range(0, resamples, rows))

    def task(t: int) -> None:
        progress.check_cancelled()
        first, last = starts[t], min(resamples, starts[t] + rows)
        rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(t,)))
        drawn = rng.multinomial(n, probs, size=last - first)
        total = (drawn[:, :-1] * hv).sum(axis=1) if hv.size else np.zeros(last - first)
        if rare.size:
            m = drawn[:, -1]
            picked = np.take(rare, rng.integers(0, rare.size, size=int(m.sum())))
            some = m > 0   # each resample's rare draws are one run of ``picked``
            total[some] += np.add.reduceat(picked, (np.cumsum(m) - m)[some])
        out[first:last] = total / n

    if len(starts) == 1:
        task(0)
        return out
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=THREADS) as pool:
        for done, _ in enumerate(pool.map(task, range(len(starts))), 1):
            progress.advance(done / len(starts), "bootstrap")
    return out
