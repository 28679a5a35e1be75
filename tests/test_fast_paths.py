"""Issue 47: every fast path of the resampling tests equals its slow, plain form on small data
(the same numbers where the random stream is kept; within Monte Carlo error of an exact or
independent computation where a faster algorithm draws another stream)."""

from __future__ import annotations

import numpy as np
import pytest

from workbench.metrics import _blocked
from workbench.metrics import paired as pm


def plain_flipped_sums(table: np.ndarray, by_byte: np.ndarray) -> np.ndarray:
    """The flipped sums as first written: one fancy lookup of every (row, group)."""
    return table[np.arange(table.shape[0]), by_byte].sum(axis=1)


@pytest.mark.parametrize("m", [9, 1_000, 4_095, 70_001])
def test_blocked_flipped_sums_equal_the_plain_lookup(m, monkeypatch):
    rng = np.random.default_rng(m)
    absd = rng.integers(1, 10**10, size=m)
    table = pm._byte_tables(absd)
    by_byte = rng.integers(0, 256, size=(37, table.shape[0]), dtype=np.uint8)
    want = plain_flipped_sums(table, by_byte)
    with _blocked.FlipSums(table) as kernel:
        assert np.array_equal(kernel.sums(by_byte), want)
    monkeypatch.setattr(_blocked, "GROUP_BLOCK", 7)  # blocks that do not divide the groups
    with _blocked.FlipSums(table) as kernel:
        assert np.array_equal(kernel.sums(by_byte), want)
    # and the bit-by-bit definition: the sum of |d| over the set bits of each row's bytes
    bits = np.unpackbits(by_byte, axis=1, bitorder="little")[:, :m].astype(np.int64)
    assert np.array_equal(bits @ absd, want)


def plain_sign_flip_p(d, rounds, seed):
    """sign_flip_test's Monte Carlo rounds written plainly (its stream: the same byte draws)."""
    k, _ = pm.difference_units(d)
    nz = k[k != 0].astype(np.int64)
    absd = np.abs(nz)
    threshold = abs(int(nz.sum())) - nz.size
    total = int(absd.sum())
    table = pm._byte_tables(absd)
    rng = np.random.default_rng(seed)
    batch = max(1, min(rounds, 8_000_000 // table.shape[0]))
    hits = 0
    for start in range(0, rounds, batch):
        by_byte = rng.integers(0, 256, size=(min(batch, rounds - start), table.shape[0]), dtype=np.uint8)
        hits += int(np.count_nonzero(np.abs(2 * plain_flipped_sums(table, by_byte) - total) >= threshold))
    return (1 + hits) / (1 + rounds)


@pytest.mark.parametrize("n", [300, 9_000])
def test_sign_flip_rounds_equal_the_plain_rounds(n):
    rng = np.random.default_rng(n)
    d = rng.normal(0.01, 1.0, n)  # distinct sizes: the byte-table path
    ours = pm.sign_flip_test(d, rounds=3_000, seed=7)
    assert ours.method == "monte-carlo"
    assert ours.p == plain_sign_flip_p(d, 3_000, 7)
