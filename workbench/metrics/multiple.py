"""Many systems on the same items: which of them cannot be told apart.

* :func:`randomized_tukey_hsd` -- the randomised Tukey HSD test for paired data (Carterette
  2012; Sakai 2014, "Statistical reform in information retrieval?"): under the null hypothesis
  that every system is the same, the systems' scores on an item are exchangeable, so each
  round permutes every item's scores among the systems and records the largest difference of
  two system means; a pair's p-value is the share of rounds whose largest difference reaches
  the pair's observed difference.  It keeps the pairing by item that ``scipy.stats.tukey_hsd``
  (independent groups) ignores, and it controls the family-wise error over all pairs at once.
* :func:`compact_letters` -- the compact letter display of the groups (Piepho 2004,
  insert-absorb): systems that share a letter are not significantly different.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from ..core.progress import NULL_PROGRESS
from .paired import _check_rounds, difference_units, tie_quantum


@dataclass(frozen=True)
class TukeyResult:
    means: np.ndarray          # per system
    diffs: np.ndarray          # systems x systems: mean[j] - mean[i]
    p: np.ndarray              # systems x systems, symmetric, 1 on the diagonal
    rounds: int
    seed: int
    #: how the rounds were drawn: rank-riffle (one uniform permutation number per item and
    #: round, :func:`_riffle_rounds`), two-value-counts (0/1 outcomes), shuffle (random keys)
    method: str = "shuffle"


#: Work per batch of rounds (elements shuffled at once), to bound memory (~80 MB of int64).
BATCH_ELEMENTS = 10_000_000


def pair_wins(outcomes) -> np.ndarray:
    """For 0/1 ``outcomes`` (items x systems, NaN where a system has no outcome): W[i, j] = the
    items both systems have on which system j succeeds and system i fails (so W[j, i] is the
    reverse), for every pair at once: each system's failures and successes packed 64 items to a
    word, a pair's count the bits set in (failures of i AND successes of j)."""
    x = np.asarray(outcomes, dtype=float)
    k = x.shape[1]
    have = np.isfinite(x)

    def packed(mask: np.ndarray) -> np.ndarray:  # systems x words
        bits = np.packbits(mask.T, axis=1)
        pad = -bits.shape[1] % 8
        if pad:
            bits = np.pad(bits, ((0, 0), (0, pad)))
        return np.ascontiguousarray(bits).view(np.uint64)

    fail, ok = packed(have & (x == 0)), packed(have & (x != 0))
    out = np.empty((k, k), dtype=np.int64)
    for i in range(k):
        out[i] = np.bitwise_count(fail[i] & ok).sum(axis=1, dtype=np.int64)
    return out


def randomized_tukey_hsd(scores, *, rounds: int = 10_000, seed: int = 12345,
                         progress=NULL_PROGRESS) -> TukeyResult:
    """Randomised Tukey HSD on ``scores`` (items x systems, no missing values).

    Each of ``rounds`` rounds shuffles every item's row independently (the order of k random
    keys from numpy's PCG64 ``default_rng(seed)``; items whose systems all score the same are
    left out of the shuffle, which cannot move them) and takes
    max(column mean) - min(column mean).  p(i, j) = (1 + #{rounds: max - min >= |mean_i -
    mean_j|}) / (1 + rounds), which counts the observed arrangement as one of the rounds and
    never gives 0.  Scores are taken as whole numbers of the step of
    :func:`~workbench.metrics.paired.tie_quantum` (10 digits of their scale), so sums are exact
    and a difference equal to a round's largest one up to float noise counts as reaching it.
    When every score is one of two values (0/1 outcomes), a round is drawn by counts
    (:func:`_two_value_rounds`); otherwise, up to :data:`RIFFLE_MAX_K` systems, each item's
    permutation is one uniform number (:func:`_riffle_rounds`).  Each is the same law as the
    shuffles, from another random stream; ``method`` says which drew the rounds.
    """
    _check_rounds(rounds, "rounds")
    s = np.asarray(scores, dtype=float)
    if s.ndim != 2:
        raise ValueError("scores must be items x systems")
    n, k = s.shape
    q = tie_quantum(s)
    units, _ = difference_units(s, q if q > 0 else None)
    units = units.astype(np.int64)
    sums = units.sum(axis=0)
    means = s.mean(axis=0) if n else np.full(k, np.nan)
    diffs = means[None, :] - means[:, None]
    if n == 0 or k < 2:
        return TukeyResult(means, diffs, np.ones((k, k)), rounds, seed)
    observed = np.abs(sums[None, :] - sums[:, None])            # in units, times n
    # an item whose systems all score the same adds the same to every column whatever the
    # shuffle: it cannot change a round's max - min, so only the other items are shuffled
    units = units[(units != units[:, :1]).any(axis=1)]
    n = len(units)
    if n == 0:
        return TukeyResult(means, diffs, np.ones((k, k)), rounds, seed)  # every column sum equal
    rng = np.random.default_rng(seed)
    levels = np.unique(units)
    if levels.size == 2:  # 0/1 outcomes (any two values): the rounds by counts, not by items
        largest, method = _two_value_rounds(units, levels, rounds, rng, progress), "two-value-counts"
    elif k <= RIFFLE_MAX_K and n * float(np.abs(units).max()) < 2.0**53:  # float sums exact
        largest, method = _riffle_rounds(units, rounds, seed, progress), "rank-riffle"
    else:
        largest, method = _shuffled_rounds(units, rounds, rng, progress), "shuffle"
    largest.sort()
    # rounds whose largest difference reaches each observed one: from the sorted maxima
    reach = rounds - np.searchsorted(largest, observed, side="left")
    p = (1.0 + reach) / (1.0 + rounds)
    np.fill_diagonal(p, 1.0)
    return TukeyResult(means, diffs, p, rounds, seed, method)


def _two_value_rounds(units, levels, rounds: int, rng, progress) -> np.ndarray:
    """Each round's max - min column sum when every score is one of two values (0/1
    outcomes): shuffling an item's row puts its t high values on a uniform random t-subset of
    the k columns, so column by column, of the items still needing t of the R remaining
    columns, Binomial(count, t / R) take this one (each independently, the subset staying
    uniform over the rest).  The same law as shuffling every item, at a cost per round of
    k x k binomial draws whatever the number of items (10,000 items x 10 runs: 47 s -> 0.1 s)."""
    n, k = units.shape
    lo, hi = int(levels[0]), int(levels[1])
    need = np.bincount((units == hi).sum(axis=1), minlength=k + 1).astype(np.int64)  # items by t
    t = np.arange(1, k + 1)
    state = np.broadcast_to(need, (rounds, k + 1)).copy()
    counts = np.empty((rounds, k), dtype=np.int64)
    for j in range(k):
        progress.check_cancelled()
        take = rng.binomial(state[:, 1:], np.minimum(t / (k - j), 1.0))   # rounds x k (t = 1..k)
        counts[:, j] = take.sum(axis=1)
        state[:, 1:] -= take
        state[:, :-1] += take
        progress.advance((j + 1) / k, "randomised Tukey HSD")
    return (hi - lo) * (counts.max(axis=1) - counts.min(axis=1))


#: The rank-riffle rounds up to this many systems (tables of C(k, k/2) x (k/2)! rows: 30,240
#: at k = 10); above, the shuffles of random keys.
RIFFLE_MAX_K = 10
#: Places looked up per weighted count (a buffer that stays in the CPU cache), and per
#: task (each task draws from its own stream, so the numbers do not depend on the threads).
RIFFLE_BLOCK = 1 << 17
RIFFLE_TASK = 1 << 21
#: Threads running the tasks: one, as numpy's ``take`` and ``bincount`` hold the interpreter
#: lock, so a second thread mostly waits for it (2026-12-06, 10 systems x 10k items, load 1.3-1.5:
#: two threads took as long as one or up to a third longer, with more CPU).
THREADS = 1
#: Most cells of one weighted count: the places of ``pack`` rounds combined into one number
#: below k**pack <= RIFFLE_CELLS (10,000 at k = 10: 80 KB of float64 sums, in the L2 cache)
RIFFLE_CELLS = 1 << 14


@functools.lru_cache(maxsize=None)
def riffle_tables(k: int) -> tuple[np.ndarray, np.ndarray, int, int]:
    """The tables that turn a permutation number into where each rank of an item goes.

    A uniform permutation of k places, with h = k // 2, is a uniform choice of the h places
    that receive the h lowest ranks (one of C(k, h) sets, ``s``), of the order of those ranks
    among those places (one of h! orders, ``a``) and of the order of the other ranks among the
    other places (one of (k - h)!, ``b``): every permutation arises from exactly one (s, a, b),
    so U = (s h! + a) (k - h)! + b, uniform on 0..k! - 1, is a uniform permutation.
    ``low[s h! + a, p]`` = the place of rank p < h (0 for the other ranks); ``high[s (k - h)!
    + b, p]`` = the place of rank p >= h (0 for the others); 16 bytes a row, the two halves
    combining by OR (:func:`_riffle_rounds` looks up each half's places as one 8-byte word).
    Returns (low, high, h!, (k - h)!)."""
    import itertools

    h = k // 2
    sets = list(itertools.combinations(range(k), h))
    places = np.array([list(c) + [x for x in range(k) if x not in c] for c in sets], dtype=np.uint8)
    perm_a = np.array(list(itertools.permutations(range(h))), dtype=np.intp).reshape(-1, h)
    perm_b = np.array(list(itertools.permutations(range(k - h))), dtype=np.intp).reshape(-1, k - h)
    low = np.zeros((len(sets) * len(perm_a), 16), dtype=np.uint8)
    low[:, :h] = places[:, perm_a].reshape(-1, h)
    high = np.zeros((len(sets) * len(perm_b), 16), dtype=np.uint8)
    high[:, h:k] = places[:, h + perm_b].reshape(-1, k - h)
    return low, high, len(perm_a), len(perm_b)


def _riffle_rounds(units, rounds: int, seed: int, progress) -> np.ndarray:
    """Each round's max - min column sum, every item's row permuted: per item and round one
    uniform number U in 0..k! - 1 (numpy PCG64 ``integers``) names a uniform permutation
    (:func:`riffle_tables`), which sends each of the item's values, in increasing order (which
    of two equal values goes where does not change a sum), to its place; the column sums are a
    weighted count of the places (``np.bincount``), taken for ``pack`` rounds at once: the
    places of consecutive rounds combined into one number p_0 + k p_1 + k^2 p_2 + ... below
    k**pack (four rounds in 10,000 cells at k = 10; a byte holds the places of the rounds that
    fit in 256, :func:`_riffle_packing`), whose counts' margins are each round's column sums.
    The places of the low and of the high ranks are looked up as one 8-byte word each, from
    tables of 240 KB each at k = 10 that stay in the CPU cache.  The same law as shuffling each
    row, at a few passes over the values per round instead of a sort of random keys per item.
    The rounds are cut into tasks of about :data:`RIFFLE_TASK` values, task t drawing from
    ``default_rng(SeedSequence(seed, spawn_key=(t,)))``, on :data:`THREADS` threads (where a
    task starts does not depend on ``pack``: the same numbers as when two rounds were counted
    at once).  The values are whole numbers whose sums stay below 2**53, so the floating-point
    sums are exact."""
    n, k = units.shape
    low, high, na, nb = riffle_tables(k)
    h = k // 2
    m = k - h                                                     # slots of a word (>= h)
    # word 0: the places of ranks 0..h-1; word 1: of ranks h..k-1 (bytes 0..m-1 of each)
    low8 = np.zeros((len(low), 8), dtype=np.uint8)
    low8[:, :h] = low[:, :h]
    high8 = np.zeros((len(high), 8), dtype=np.uint8)
    high8[:, :m] = high[:, h:k]
    low_w, high_w = low8.view(np.uint64).ravel(), high8.view(np.uint64).ravel()
    byte, pack = _riffle_packing(k, n * k)
    cells = k ** pack
    ranked = np.sort(units, axis=1).astype(float)                 # item by item, in rank order
    weights_one = np.zeros((2, m, n))                             # word, slot (rank), item
    weights_one[0, :h] = ranked[:, :h].T                          # an empty slot (odd k) weighs 0
    weights_one[1] = ranked[:, h:].T
    weights_one = weights_one.ravel()
    groups_most = max(1, min(-(-rounds // pack), RIFFLE_BLOCK // (n * k), max(1, RIFFLE_CELLS // cells)))
    rows = pack * groups_most                                     # rounds per bincount
    per_task = _riffle_task_rounds(rounds, n, k)
    weights = np.tile(weights_one, groups_most)
    offsets = (np.arange(groups_most, dtype=np.uint16) * cells)[:, None, None, None]  # < 2**16 cells
    total = math.factorial(k)
    largest = np.empty(rounds, dtype=np.int64)
    starts = list(range(0, rounds, per_task))
    # the bytes of a group: rounds [t, t + width) of its pack, scaled by k**t
    spans = [(t, min(byte, pack - t)) for t in range(0, pack, byte)]

    def task(t: int) -> None:
        progress.check_cancelled()
        first, last = starts[t], min(rounds, starts[t] + per_task)
        # k! < 2**32: uint32 draws are the int64 draws' numbers (the same 32-bit bounded stream)
        u = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(t,))).integers(
            0, total, size=(last - first) * n, dtype=np.uint32)
        ia = u // np.uint32(nb)                  # U = ((s h! + a) (k - h)! + b): ia = s h! + a
        ib = u - (ia - ia // np.uint32(na)) * np.uint32(nb)   # = s (k - h)! + b
        del u
        place = np.empty((2, n), dtype=np.uint64)
        acc = np.empty((2, n), dtype=np.uint64)
        # the places as word x slot x item: copied item after item (long runs, not runs of m)
        slots = acc.view(np.uint8).reshape(2, n, 8).transpose(0, 2, 1)[:, :m, :]
        pos = np.empty((groups_most, 2, m, n), dtype=np.uint16)
        wide = np.empty((2, m, n), dtype=np.uint16)
        for at in range(first, last, rows):
            r = min(rows, last - at)
            groups = -(-r // pack)
            for g in range(groups):
                for q0, width in spans:
                    acc.fill(0)
                    for q in range(width):
                        j = g * pack + q0 + q
                        if j >= r:
                            break
                        part = slice((at - first + j) * n, (at - first + j + 1) * n)
                        np.take(low_w, ia[part], out=place[0], mode="clip")   # indices in range
                        np.take(high_w, ib[part], out=place[1], mode="clip")
                        if q:
                            place *= np.uint64(k ** q)   # bytes below 256: no carry
                        acc += place
                    if q0 == 0:
                        pos[g] = slots
                    else:
                        np.multiply(slots, k ** q0, out=wide, dtype=np.uint16)
                        pos[g] += wide
            if groups > 1:
                pos[:groups] += offsets[:groups]
            count = np.bincount(pos[:groups].ravel(), weights=weights[:groups * n * 2 * m],
                                minlength=groups * cells)
            # round q of a group: the margin of digit q of the cell (cell = ... + k**q p_q + ...)
            cols = np.stack([count.reshape(groups, k ** (pack - 1 - q), k, k ** q).sum(axis=(1, 3))
                             for q in range(pack)], axis=1).reshape(groups * pack, k)[:r]
            largest[at:at + r] = np.rint(cols.max(axis=1) - cols.min(axis=1)).astype(np.int64)

    if THREADS < 2 or len(starts) == 1:
        for t in range(len(starts)):
            task(t)
            progress.advance((t + 1) / len(starts), "randomised Tukey HSD")
        return largest
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=THREADS) as pool:
        for done, _ in enumerate(pool.map(task, range(len(starts))), 1):
            progress.advance(done / len(starts), "randomised Tukey HSD")
    return largest


def _riffle_packing(k: int, values: int) -> tuple[int, int]:
    """(rounds whose places share a byte, rounds whose places share a count): a byte holds
    k**byte <= 256 combinations; a count k**pack <= :data:`RIFFLE_CELLS` cells, and no more
    cells than the values counted (at least 256), so that the margins cost less than the
    count."""
    byte = max(1, int(math.log(256, k) + 1e-9))
    limit = min(RIFFLE_CELLS, max(256, values))
    pack = max(1, int(math.log(limit, k) + 1e-9))
    while k ** (pack + 1) <= limit:
        pack += 1
    while pack > 1 and k ** pack > limit:
        pack -= 1
    return byte, pack


def _riffle_task_rounds(rounds: int, n: int, k: int) -> int:
    """Rounds per task: about :data:`RIFFLE_TASK` values, a whole number of the blocks of the
    first layout (two rounds per byte at k = 10, :data:`RIFFLE_BLOCK` places per count), which
    sets where each task's stream starts."""
    pack = max(1, int(math.log(256, k) + 1e-9))
    rows = pack * max(1, min(-(-rounds // pack), RIFFLE_BLOCK // (n * k)))
    return rows * max(1, RIFFLE_TASK // (rows * n * k))


def _shuffled_rounds(units, rounds: int, rng, progress) -> np.ndarray:
    """Each round's max - min column sum, every item's row shuffled (the order of k random
    keys)."""
    n, k = units.shape
    largest = np.empty(rounds, dtype=np.int64)
    batch = max(1, min(rounds, BATCH_ELEMENTS // max(n * k, 1)))
    for start in range(0, rounds, batch):
        progress.check_cancelled()
        r = min(batch, rounds - start)
        # a uniform random permutation of each item's row: the order of k random keys (an
        # argsort along the systems; about twice as fast as Generator.permuted row by row)
        order = np.argsort(rng.random((r, n, k)), axis=2)
        col = np.take_along_axis(np.broadcast_to(units, (r, n, k)), order, axis=2).sum(axis=1)  # r x k
        largest[start:start + r] = col.max(axis=1) - col.min(axis=1)
        progress.advance((start + r) / rounds, "randomised Tukey HSD")
    return largest


def compact_letters(order, significant) -> list[str]:
    """Letters per system (``order``: system indices, best first; ``significant[i][j]`` True
    when systems i and j differ) by Piepho's (2004) insert-absorb algorithm: start with one
    group holding every system; for each significant pair, split each group that holds both
    into a copy without the one and a copy without the other; drop groups contained in
    another.  Groups are lettered a, b, c... in the order of their best system; a system's
    letters are the groups it belongs to.  Two systems share a letter exactly when no
    significant difference separates them within a group of mutually indistinguishable ones.

    >>> compact_letters([0, 1, 2], [[0, 0, 1], [0, 0, 0], [1, 0, 0]])
    ['a', 'ab', 'b']
    """
    order = list(order)
    sig = np.asarray(significant, dtype=bool)
    groups: list[frozenset] = [frozenset(order)]
    pairs = [(a, b) for x, a in enumerate(order) for b in order[x + 1:] if sig[a, b] or sig[b, a]]
    for a, b in pairs:
        out: list[frozenset] = []
        for g in groups:
            if a in g and b in g:
                out += [g - {a}, g - {b}]
            else:
                out.append(g)
        # absorb: a group inside another says nothing more
        uniq = list(dict.fromkeys(out))
        groups = [g for g in uniq if not any(g < h for h in uniq)]
    rank = {s: i for i, s in enumerate(order)}
    groups.sort(key=lambda g: sorted(rank[s] for s in g))
    letters = _letter_names(len(groups))
    by_system = {s: "".join(letters[i] for i, g in enumerate(groups) if s in g) for s in order}
    return [by_system[s] for s in sorted(order)]


def _letter_names(count: int) -> list[str]:
    """a..z, then aa, ab... for more than 26 groups."""
    import string

    names = list(string.ascii_lowercase)
    i = 0
    while len(names) < count:
        names += [names[i] + c for c in string.ascii_lowercase]
        i += 1
    return names[:count]
