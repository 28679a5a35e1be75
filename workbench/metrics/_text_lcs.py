"""The longest common subsequence of each (hypothesis, reference) pair's token ids, for ROUGE-L
(split from :mod:`workbench.metrics._text_engine`): pairs whose shorter side has at most 64
tokens by a bit-parallel pass over all of them at once in numpy, the longer ones one by one
with Python's big integers as bit vectors (the same algorithm, Allison-Dix / Hyyro)."""

from __future__ import annotations

from collections.abc import Callable
import numpy as np


def lcs_lengths(pairs, tick: Callable[[float], None] | None = None) -> np.ndarray:
    """Length of the longest common subsequence of each pair's two token sequences."""
    n = pairs.n
    out = np.zeros(n, dtype=np.int64)
    lh, lr = pairs.len_h, pairs.len_r
    both = (lh > 0) & (lr > 0)
    # the bit-vector side: the shorter one
    short_is_ref = lr <= lh
    short_len = np.minimum(lh, lr)
    small = np.flatnonzero(both & (short_len <= 64))
    big = np.flatnonzero(both & (short_len > 64))
    if small.size:
        _lcs_numpy(pairs, small, short_is_ref[small], out)
    if tick is not None:
        tick(0.5)
    for k, p in enumerate(big):
        out[p] = _lcs_bigint(pairs, int(p))
        if tick is not None and k % 256 == 255:
            tick(0.5 + 0.5 * (k + 1) / big.size)
    return out


#: (pair, symbol) keys below this are sorted with their bit number packed below them
LCS_PACK_LIMIT = 1 << 56


def _lcs_numpy(pairs, idx, short_is_ref, out) -> None:
    start = pairs.pair_start[idx]
    lh, lr = pairs.len_h[idx], pairs.len_r[idx]
    # bit side (at most 64 tokens) and scan side, per pair
    bit_start = np.where(short_is_ref, start + lh, start)
    bit_len = np.where(short_is_ref, lr, lh)
    scan_start = np.where(short_is_ref, start, start + lh)
    scan_len = np.where(short_is_ref, lh, lr)
    k = idx.size
    vocab = np.int64(pairs.vocab)
    # positions of the bit side: key (k-th pair, symbol), bit number
    bit_owner = np.repeat(np.arange(k), bit_len)
    bit_off = np.arange(bit_owner.size) - np.repeat(np.cumsum(bit_len) - bit_len, bit_len)
    bit_sym = pairs.sym[np.repeat(bit_start, bit_len) + bit_off]
    bit_key = bit_owner * vocab + bit_sym
    # the match mask of each distinct (pair, symbol) of the bit side: the sum of its
    # positions' bits (distinct powers of two: sum = or) from a running sum over the sorted keys
    if k * int(vocab) < LCS_PACK_LIMIT:  # (pair, symbol) and the bit number in one int64
        packed = np.sort((bit_key << 6) | bit_off, kind="stable")  # runs per pair: fast
        key_sorted = packed >> 6
        bit_value = np.left_shift(np.uint64(1), (packed & 63).astype(np.uint64))
    else:
        order = np.argsort(bit_key, kind="stable")
        key_sorted = bit_key[order]
        bit_value = np.left_shift(np.uint64(1), bit_off[order].astype(np.uint64))
    bounds = np.empty(key_sorted.size + 1, dtype=bool)
    bounds[0] = bounds[-1] = True
    np.not_equal(key_sorted[1:], key_sorted[:-1], out=bounds[1:-1])
    bounds = np.flatnonzero(bounds)
    bits_before = np.zeros(key_sorted.size + 1, dtype=np.uint64)
    np.cumsum(bit_value, out=bits_before[1:])  # wraps modulo 2**64; differences stay exact
    key_masks = np.diff(bits_before[bounds])
    keys = key_sorted[bounds[:-1]]
    # positions of the scan side, and their match masks
    scan_owner = np.repeat(np.arange(k), scan_len)
    scan_first = np.cumsum(scan_len) - scan_len
    scan_off = np.arange(scan_owner.size) - np.repeat(scan_first, scan_len)
    scan_sym = pairs.sym[np.repeat(scan_start, scan_len) + scan_off]
    scan_key = scan_owner * vocab + scan_sym
    at = np.minimum(np.searchsorted(keys, scan_key), keys.size - 1)
    masks = np.where(keys[at] == scan_key, key_masks[at], np.uint64(0))
    # all pairs advance together, longest scan first (active pairs are a prefix)
    by_len = np.argsort(-scan_len, kind="stable")
    s_len = scan_len[by_len]
    s_first = scan_first[by_len]
    v = np.full(k, np.uint64(0xFFFFFFFFFFFFFFFF), dtype=np.uint64)
    for j in range(int(s_len[0]) if k else 0):
        active = int(np.searchsorted(-s_len, -j, side="left"))  # s_len > j
        mj = masks[s_first[:active] + j]
        va = v[:active]
        u = va & mj
        v[:active] = (va + u) | (va & ~mj)
    blen = bit_len[by_len].astype(np.uint64)
    full = np.where(blen >= 64, np.uint64(0xFFFFFFFFFFFFFFFF),
                    (np.uint64(1) << np.minimum(blen, np.uint64(63))) - np.uint64(1))
    zeros = bit_len[by_len] - np.bitwise_count(v & full).astype(np.int64)
    out[idx[by_len]] = zeros


def _lcs_bigint(pairs, p) -> int:
    a = int(pairs.pair_start[p])
    lh, lr = int(pairs.len_h[p]), int(pairs.len_r[p])
    h = pairs.sym[a:a + lh].tolist()
    r = pairs.sym[a + lh:a + lh + lr].tolist()
    if lr > lh:
        h, r = r, h
    masks: dict[int, int] = {}
    for i, t in enumerate(r):
        masks[t] = masks.get(t, 0) | (1 << i)
    full = (1 << len(r)) - 1
    v = full
    for t in h:
        mt = masks.get(t)
        if mt:
            u = v & mt
            v = ((v + u) | (v & ~mt)) & full
    return len(r) - v.bit_count()
