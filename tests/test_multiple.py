"""Randomised Tukey HSD for paired data and the compact letter display (issue 27).

References: an exact enumeration of every within-item permutation (small cases), the paired
sign-flip test (two systems: the two permutations of an item are its two signs), and the
defining properties of a compact letter display."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.metrics import paired as pm
from workbench.metrics.multiple import compact_letters, randomized_tukey_hsd


def exact_tukey_p(scores: np.ndarray) -> np.ndarray:
    """Share of all (k!)^n within-item arrangements whose largest mean difference reaches
    each pair's observed one (integers: no float noise)."""
    n, k = scores.shape
    perms = list(itertools.permutations(range(k)))
    obs = np.abs(scores.sum(0)[None, :] - scores.sum(0)[:, None])
    hits = np.zeros((k, k))
    total = 0
    for choice in itertools.product(perms, repeat=n):
        col = sum(scores[i, list(p)] for i, p in enumerate(choice))
        hits += (col.max() - col.min()) >= obs
        total += 1
    return hits / total


def test_matches_the_exact_enumeration_within_monte_carlo_error():
    rng = np.random.default_rng(4)
    scores = rng.integers(0, 4, (5, 3))  # 6^5 = 7,776 arrangements
    exact = exact_tukey_p(scores)
    res = randomized_tukey_hsd(scores / 10, rounds=40_000, seed=1)  # a 0.1 grid: ties by units
    se = np.sqrt(exact * (1 - exact) / 40_000)
    off = ~np.eye(3, dtype=bool)
    assert np.all(np.abs(res.p - exact)[off] <= 4 * se[off] + 1e-4)


def test_two_systems_is_the_paired_randomization_test():
    rng = np.random.default_rng(8)
    scores = np.round(rng.random((14, 2)), 1)
    exact = pm.sign_flip_test(scores[:, 1] - scores[:, 0]).p  # all 2^m sign patterns
    res = randomized_tukey_hsd(scores, rounds=100_000, seed=2)
    assert abs(res.p[0, 1] - exact) < 4 * np.sqrt(exact * (1 - exact) / 100_000) + 1e-4


def test_identical_systems_have_p_one_and_means_are_exact():
    scores = np.tile(np.array([[0.1], [0.3], [0.7]]), (1, 4))
    res = randomized_tukey_hsd(scores, rounds=2_000)
    assert np.all(res.p == 1.0)
    assert np.allclose(res.means, [11 / 30] * 4)


def test_seeded_and_reproducible():
    rng = np.random.default_rng(0)
    scores = rng.random((50, 4))
    a = randomized_tukey_hsd(scores, rounds=3000, seed=7).p
    b = randomized_tukey_hsd(scores, rounds=3000, seed=7).p
    assert np.array_equal(a, b)


def test_letters_of_a_chain():
    # a > b > c, only a-c significant: a, ab, b
    assert compact_letters([0, 1, 2], [[0, 0, 1], [0, 0, 0], [1, 0, 0]]) == ["a", "ab", "b"]
    # nothing significant: one group
    assert compact_letters([2, 0, 1], np.zeros((3, 3))) == ["a", "a", "a"]
    # everything significant: one letter each, the best system 'a'
    assert compact_letters([1, 0, 2], 1 - np.eye(3)) == ["b", "a", "c"]


@settings(max_examples=150, deadline=None)
@given(st.integers(2, 7).flatmap(lambda k: st.tuples(
    st.just(k), st.lists(st.booleans(), min_size=k * (k - 1) // 2, max_size=k * (k - 1) // 2))))
def test_letters_separate_exactly_the_significant_pairs(case):
    k, flags = case
    sig = np.zeros((k, k), dtype=bool)
    for (i, j), f in zip(itertools.combinations(range(k), 2), flags):
        sig[i, j] = sig[j, i] = f
    letters = compact_letters(list(range(k)), sig)
    assert all(letters)  # every system has a letter
    for i, j in itertools.combinations(range(k), 2):
        share = bool(set(letters[i]) & set(letters[j]))
        # insert-absorb: a split on (a, b) keeps every other pair together in one of the two
        # copies, and absorbing drops only groups inside another: a pair shares a letter
        # exactly when it is not significant
        assert share == (not sig[i, j]), (letters, i, j)


def test_two_value_scores_match_the_exact_enumeration_and_the_shuffles():
    # 0/1 outcomes: the rounds drawn by counts (binomial per column) against every arrangement
    rng = np.random.default_rng(11)
    scores = (rng.random((6, 3)) < 0.5).astype(int)
    scores[0] = [1, 0, 0]  # at least one item that varies
    exact = exact_tukey_p(scores)
    res = randomized_tukey_hsd(scores, rounds=40_000, seed=3)
    se = np.sqrt(exact * (1 - exact) / 40_000)
    off = ~np.eye(3, dtype=bool)
    assert np.all(np.abs(res.p - exact)[off] <= 4 * se[off] + 1e-4)
    # many items: the same p as shuffling every item's row, within the error of both
    n_rounds = 5_000  # each side's Monte Carlo error is in the tolerance
    big = (rng.random((3000, 5)) < np.linspace(0.45, 0.55, 5)).astype(float)
    from workbench.metrics import multiple

    counts = randomized_tukey_hsd(big, rounds=n_rounds, seed=5).p
    shuffled_units = multiple._shuffled_rounds  # the item-by-item path on the same data
    units = big[(big != big[:, :1]).any(axis=1)].astype(np.int64)
    largest = np.sort(shuffled_units(units, n_rounds, np.random.default_rng(6), multiple.NULL_PROGRESS))
    sums = big.sum(axis=0)
    observed = np.abs(sums[None, :] - sums[:, None])
    ref = (1.0 + n_rounds - np.searchsorted(largest, observed, side="left")) / (n_rounds + 1)
    se = np.sqrt(ref * (1 - ref) / n_rounds)
    off = ~np.eye(5, dtype=bool)
    assert np.all(np.abs(counts - ref)[off] <= 5 * np.sqrt(2) * se[off] + 2e-4)
