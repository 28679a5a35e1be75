"""Issue 47: every fast path of the resampling tests equals its slow, plain form on small data
(the same numbers where the random stream is kept; within Monte Carlo error of an exact or
independent computation where a faster algorithm draws another stream)."""

from __future__ import annotations

import numpy as np
import pandas as pd
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


# ---------------------------------------------------------------------------- runs


def test_pair_wins_equal_the_counts_of_each_pair_with_missing_outcomes():
    from workbench.metrics.multiple import pair_wins
    from workbench.metrics.significance import paired_counts

    rng = np.random.default_rng(3)
    x = (rng.random((1_003, 6)) < rng.random(6)).astype(float)
    x[rng.random(x.shape) < 0.1] = np.nan
    w = pair_wins(x)
    for i in range(6):
        for j in range(6):
            both = np.isfinite(x[:, i]) & np.isfinite(x[:, j])
            c = paired_counts(x[both, i], x[both, j])
            assert (w[i, j], w[j, i]) == (c.wins, c.losses)


def test_sign_tests_at_once_equal_one_by_one():
    from workbench.metrics.significance import sign_test, sign_tests

    wins = np.array([0, 14, 3, 0, 200, 1_000, 7])
    losses = np.array([0, 5, 3, 9, 260, 1_100, 0])
    exact, midp = sign_tests(wins, losses)
    for k in range(wins.size):
        assert (exact[k], midp[k]) == sign_test(int(wins[k]), int(losses[k]))


def test_runs_refuse_a_repeated_run_and_item_with_its_lines():
    from conftest import table_of
    from workbench.analyses import runs
    from workbench.core.errors import DataError

    frame = pd.DataFrame({"run": ["a", "a", "b", "a"], "item": ["1", "2", "1", "1"], "correct": [1, 0, 1, 1]})
    with pytest.raises(DataError, match=r"repeat a \(run, item\) pair \(run=a, item=1 appears on lines 2, 5\)"):
        runs.run(table_of(frame), runs.Options(system="run", item="item", outcome="correct"))
    # `1` and `1.0` are two items, not a repeat
    frame = pd.DataFrame({"run": ["a", "a", "b", "b"], "item": ["1", "1.0", "1", "1.0"], "correct": [1, 0, 1, 1]})
    res = runs.run(table_of(frame), runs.Options(system="run", item="item", outcome="correct", resamples=1000,
                                                 rounds=1000))
    assert res.table("grid").frame["item"].tolist() == ["1", "1.0"]
