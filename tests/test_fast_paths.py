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


# ---------------------------------------------------------------------------- randomised Tukey HSD


@pytest.mark.parametrize("k", [2, 3, 4, 5, 7, 8])
def test_riffle_tables_give_every_permutation_exactly_once(k):
    import math

    from workbench.metrics.multiple import riffle_tables

    low, high, na, nb = riffle_tables(k)
    h = k // 2
    seen = set()
    for u in range(math.factorial(k)):
        ia, ib = u // nb, (u // nb // na) * nb + u % nb
        places = tuple(low[ia, :h]) + tuple(high[ib, h:k])   # the place of rank 0, 1, ..., k - 1
        assert not (low[ia, h:].any() or high[ib, :h].any() or high[ib, k:].any())
        assert tuple((low[ia] | high[ib])[:k]) == places
        assert sorted(places) == list(range(k)) and len(places) == k
        seen.add(places)
    assert len(seen) == math.factorial(k) and h + (k - h) == k


def exact_tukey_p(scores: np.ndarray) -> np.ndarray:
    """Every arrangement of every item's row, equally likely: the share whose largest
    difference of column sums reaches each pair's observed one."""
    import itertools

    n, k = scores.shape
    rows = [np.array(list(itertools.permutations(scores[i]))) for i in range(n)]
    sums = rows[0]
    for r in rows[1:]:
        sums = (sums[:, None, :] + r[None, :, :]).reshape(-1, k)
    largest = sums.max(axis=1) - sums.min(axis=1)
    col = scores.sum(axis=0)
    obs = np.abs(col[None, :] - col[:, None])
    return (largest[None, None, :] >= obs[:, :, None] - 1e-9).mean(axis=2)


def test_riffle_rounds_within_monte_carlo_error_of_the_exact_test():
    from workbench.metrics.multiple import randomized_tukey_hsd

    scores = np.array([[0.1, 0.5, 0.9, 0.3], [0.2, 0.2, 0.7, 0.6], [0.0, 0.4, 0.8, 0.1],
                       [0.3, 0.6, 0.6, 0.2]])
    exact = exact_tukey_p(scores)       # 24^4 arrangements
    res = randomized_tukey_hsd(scores, rounds=40_000, seed=4)
    assert res.method == "rank-riffle"
    off = ~np.eye(4, dtype=bool)
    se = np.sqrt(exact * (1 - exact) / 40_000)
    assert np.all(np.abs(res.p - exact)[off] <= 4 * se[off] + 2 / 40_001)
    assert exact[off].min() < 0.05 < 0.5 < exact[off].max()   # small and large p both checked


def test_riffle_rounds_agree_with_the_textbook_shuffles_on_scores():
    """The bench's reference (Generator.permuted per round) and the workbench on 10 systems."""
    from workbench.metrics.multiple import randomized_tukey_hsd

    rng = np.random.default_rng(8)
    base = rng.random(400)
    scores = np.clip(base[:, None] + rng.normal(0, 0.2, (400, 10)) + 0.015 * np.arange(10), 0, 1)
    ours = randomized_tukey_hsd(scores, rounds=4_000, seed=2)
    assert ours.method == "rank-riffle"
    ref_rng = np.random.default_rng(3)
    largest = np.array([np.ptp(ref_rng.permuted(scores, axis=1).sum(axis=0)) for _ in range(4_000)])
    col = scores.sum(axis=0)
    obs = np.abs(col[None, :] - col[:, None])
    ref = (1 + (largest[None, None, :] >= obs[:, :, None] - 1e-9).sum(axis=2)) / 4_001
    off = ~np.eye(10, dtype=bool)
    se = np.sqrt(ref * (1 - ref) / 4_000)
    assert np.all(np.abs(ours.p - ref)[off] <= 5 * np.sqrt(2) * se[off] + 2 / 4_001)
    assert (ours.p[off] < 0.05).any() and (ours.p[off] > 0.2).any()
    # seeded: the same p again
    assert np.array_equal(randomized_tukey_hsd(scores, rounds=4_000, seed=2).p, ours.p)


def plain_riffle_largest(units: np.ndarray, rounds: int, seed: int, per_task: int) -> np.ndarray:
    """The rank-riffle rounds as first written, one round and one item at a time: task t's
    int64 draws from ``default_rng(SeedSequence(seed, spawn_key=(t,)))``, each draw U naming the
    permutation low[U // nb] | high[(U // nb // na) nb + U % nb] of riffle_tables, the item's
    values in increasing order sent to those places, the round's max - min column sum."""
    import math

    from workbench.metrics.multiple import riffle_tables

    n, k = units.shape
    low, high, na, nb = riffle_tables(k)
    ranked = np.sort(units, axis=1)
    out = []
    for t, first in enumerate(range(0, rounds, per_task)):
        size = min(per_task, rounds - first)
        u = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(t,))).integers(
            0, math.factorial(k), size=size * n)
        for r in range(size):
            col = np.zeros(k, dtype=np.int64)
            for i in range(n):
                x = int(u[r * n + i])
                places = (low[x // nb] | high[(x // nb // na) * nb + x % nb])[:k]
                col[places] += ranked[i]
            out.append(int(col.max() - col.min()))
    return np.array(out)


@pytest.mark.parametrize("k, n, rounds", [(3, 7, 50), (4, 5, 41), (5, 30, 23), (9, 12, 17), (10, 40, 30),
                                          (2, 9, 37)])
def test_riffle_rounds_equal_the_plain_rounds_draw_for_draw(k, n, rounds, monkeypatch):
    """The packed counts (several rounds per count, places as 8-byte words, uint32 draws) give
    exactly the rounds of the plain loop on the same streams, over several tasks and blocks."""
    from workbench.core.progress import NULL_PROGRESS
    from workbench.metrics import multiple

    units = np.random.default_rng(k * 100 + n).integers(0, 1000, size=(n, k))
    # one group per count and a few per task; many groups per count and one task
    for block, task in ((n * k, 4 * n * k), (1 << 17, 1 << 21)):
        monkeypatch.setattr(multiple, "RIFFLE_BLOCK", block)
        monkeypatch.setattr(multiple, "RIFFLE_TASK", task)
        per_task = multiple._riffle_task_rounds(rounds, n, k)
        assert (per_task < rounds) == (block == n * k)
        want = plain_riffle_largest(units, rounds, 5, per_task)
        assert np.array_equal(multiple._riffle_rounds(units, rounds, 5, NULL_PROGRESS), want)


def test_runs_signature_names_how_the_tukey_rounds_were_drawn():
    from conftest import table_of
    from workbench.analyses import runs

    rng = np.random.default_rng(1)
    rows = [{"run": f"r{r}", "item": f"q{i}", "score": float(np.round(rng.random(), 3)), "ok": int(rng.random() < .5)}
            for r in range(3) for i in range(60)]
    frame = pd.DataFrame(rows)
    scored = runs.run(table_of(frame), runs.Options(system="run", item="item", score="score", rounds=1000,
                                                    resamples=1000))
    assert "draw:rank-riffle,items-in-every-run" in scored.signature
    binary = runs.run(table_of(frame), runs.Options(system="run", item="item", outcome="ok", rounds=1000,
                                                    resamples=1000))
    assert "draw:two-value-counts" in binary.signature
    held = runs.run(table_of(frame), runs.Options(system="run", item="item", outcome="ok", groups="holm",
                                                  rounds=1000, resamples=1000))
    assert "draw:" not in held.signature


def test_riffle_rounds_one_round_per_count_and_many_tasks_same_law_any_threads(monkeypatch):
    from workbench.metrics import multiple

    scores = np.array([[0.1, 0.5, 0.9, 0.3], [0.2, 0.2, 0.7, 0.6], [0.0, 0.4, 0.8, 0.1],
                       [0.3, 0.6, 0.6, 0.2]])
    exact = exact_tukey_p(scores)
    monkeypatch.setattr(multiple, "RIFFLE_BLOCK", 16)    # one round per count (the large-n layout)
    monkeypatch.setattr(multiple, "RIFFLE_TASK", 16 * 700)  # many tasks, each its own stream
    monkeypatch.setattr(multiple, "THREADS", 2)
    two = multiple.randomized_tukey_hsd(scores, rounds=30_000, seed=9)
    monkeypatch.setattr(multiple, "THREADS", 1)
    one = multiple.randomized_tukey_hsd(scores, rounds=30_000, seed=9)
    assert np.array_equal(one.p, two.p)
    off = ~np.eye(4, dtype=bool)
    se = np.sqrt(exact * (1 - exact) / 30_000)
    assert np.all(np.abs(two.p - exact)[off] <= 4 * se[off] + 2 / 30_001)


# ---------------------------------------------------------------------------- repeats


def test_multinomial_means_have_the_law_of_the_item_bootstrap():
    """Grouped rows: the counts' draws and the items' draws give the same distribution of the
    means (their exact mean and SD, and each other's quantiles, within Monte Carlo error)."""
    from workbench.metrics import headline_ci as hc

    values = np.array([[0.0, 1.0], [0.4, 0.9], [0.75, 0.2], [1.0, 0.0]])
    counts = np.array([500, 300, 150, 50])
    items = np.repeat(values, counts, axis=0)
    by_counts = hc.multinomial_means(values, counts, resamples=20_000, seed=3)
    by_items = hc.bootstrap_means(items, resamples=20_000, seed=4)
    sd = items.std(axis=0) / np.sqrt(len(items))      # the bootstrap law's exact SD
    for got in (by_counts, by_items):
        assert np.allclose(got.mean(axis=0), items.mean(axis=0), atol=4 * sd / np.sqrt(20_000))
        assert np.allclose(got.std(axis=0), sd, rtol=0.03)
    for q in (2.5, 50, 97.5):
        assert np.allclose(np.percentile(by_counts, q, axis=0), np.percentile(by_items, q, axis=0), atol=0.25 * sd)


def passk_frame(items=3_000, epochs=4, seed=2):
    rng = np.random.default_rng(seed)
    p = rng.beta(0.7, 0.6, items)
    y = (rng.random((items, epochs)) < p[:, None]).astype(int)
    return pd.DataFrame({"item": np.repeat([f"q{i}" for i in range(items)], epochs),
                         "epoch": np.tile(np.arange(1, epochs + 1), items), "correct": y.ravel()})


def test_repeats_passk_intervals_by_counts_agree_with_the_item_bootstrap(monkeypatch):
    from conftest import table_of
    from workbench.analyses import repeats

    frame = passk_frame()
    opts = repeats.Options(item="item", outcome="correct", repeat="epoch")
    fast = repeats.run(table_of(frame), opts)
    monkeypatch.setattr(repeats, "PASSK_BY_COUNTS", False)
    slow = repeats.run(table_of(frame), opts)
    a, b = fast.table("passk").frame, slow.table("passk").frame
    assert np.allclose(a[["pass@k", "pass^k"]], b[["pass@k", "pass^k"]], rtol=1e-12, atol=0)
    width = (b["pass@k_high"] - b["pass@k_low"]).to_numpy()
    for col in ("pass@k_low", "pass@k_high", "pass^k_low", "pass^k_high"):
        ok = b[col].notna()
        assert np.allclose(a.loc[ok, col], b.loc[ok, col], atol=0.08 * np.nanmax(width))
    assert "draw:multinomial-over-(tries,successes)" in fast.signature
    assert "draw:multinomial" not in slow.signature


# ---------------------------------------------------------------------------- rubric's bootstrap


@pytest.mark.parametrize("kind", ["mixed", "all-frequent", "all-rare"])
def test_by_value_bootstrap_has_the_law_of_the_item_bootstrap(kind, monkeypatch):
    from workbench.metrics import _blocked

    rng = np.random.default_rng(5)
    n = 6_000
    if kind == "mixed":   # a lattice most items share, and a tail of distinct values
        d = np.where(rng.random(n) < 0.8, rng.integers(-3, 4, n) / 10, rng.normal(0.05, 0.3, n))
    elif kind == "all-frequent":
        d = rng.integers(-2, 3, n) / 4
    else:
        d = rng.normal(0.02, 1.0, n)
    monkeypatch.setattr(_blocked, "TASK_DRAWS", 40_000)  # several tasks (streams) on two threads
    fast = pm.bootstrap_means(d, resamples=20_000, seed=3, by_value=True)
    plain = pm.bootstrap_means(d, resamples=20_000, seed=4)
    sd = d.std() / np.sqrt(n)   # the exact SD of the bootstrap mean
    for got in (fast, plain):
        assert abs(got.mean() - d.mean()) < 4 * sd / np.sqrt(20_000)
        assert got.std() == pytest.approx(sd, rel=0.03)
    for q in (2.5, 50, 97.5):
        assert abs(np.percentile(fast, q) - np.percentile(plain, q)) < 0.1 * sd
    monkeypatch.setattr(_blocked, "THREADS", 1)
    assert np.array_equal(pm.bootstrap_means(d, resamples=20_000, seed=3, by_value=True), fast)


def test_rubric_signature_names_the_by_value_draw():
    from conftest import table_of
    from workbench.analyses import rubric

    rng = np.random.default_rng(2)
    frame = pd.DataFrame({"item": [f"i{i}" for i in range(200)] * 2, "system": ["a"] * 200 + ["b"] * 200,
                          **{f"c{j}": (rng.random(400) < 0.5 + 0.05 * j).astype(int) for j in range(4)}})
    res = rubric.run(table_of(frame), rubric.Options(item="item", system="system", resamples=1000))
    assert "bs:1000,seed:12345,draw:by-value" in res.signature


# ---------------------------------------------------------------------------- BLAS threads


def test_resampling_products_run_on_one_blas_thread(monkeypatch):
    import contextlib

    threadpoolctl = pytest.importorskip("threadpoolctl")
    from workbench.core import blas
    from workbench.metrics import corpus_paired, headline_ci as hc, paired, poisson_bootstrap

    def blas_threads():
        return [lib["num_threads"] for lib in threadpoolctl.threadpool_info() if lib["user_api"] == "blas"]

    before = blas_threads()
    with blas.one_thread():
        assert set(blas_threads()) <= {1}
    assert blas_threads() == before  # the limit is lifted after the block
    entered = []
    real = blas.one_thread

    @contextlib.contextmanager
    def recording():
        with real():
            entered.append(blas_threads())
            yield

    monkeypatch.setattr(blas, "one_thread", recording)
    rng = np.random.default_rng(1)
    x = rng.random((300, 5))
    hc.bootstrap_means(x, resamples=50, seed=1)
    hc.resampled_sums([x], [50])
    paired.bootstrap_means(x[:, 0], resamples=50, seed=1)
    for fn in (hc.bootstrap_means, hc.resampled_sums, hc.multinomial_means, paired.bootstrap_means,
               paired.sign_flip_test, poisson_bootstrap.replicate_means, corpus_paired.paired_bootstrap,
               corpus_paired.approximate_randomization):
        assert fn.__wrapped__  # decorated with blas.single_threaded
    assert len(entered) == 3 and all(set(t) <= {1} for t in entered)


def _runs_codes_by_rows(table, sys_col, item_col):
    from workbench.io import text_codes

    rc, rl = text_codes(table, sys_col)
    ic, il = text_codes(table, item_col)
    return rc, [str(x) for x in rl], ic, [str(x) for x in il]


@pytest.mark.parametrize("layout", ["stacked", "shuffled-items", "interleaved", "uneven", "repeated-item",
                                    "run-twice", "numbers"])
def test_stacked_runs_are_coded_as_row_by_row(layout):
    from conftest import table_of
    from workbench.analyses import runs

    items = ["q1", "q2", "1", "1.0", "q3"]
    frames = [pd.DataFrame({"run": name, "item": items, "correct": [1, 0, 1, 1, 0]}) for name in ("b", "a", "c")]
    if layout == "shuffled-items":
        frames[1] = frames[1].iloc[[1, 0, 2, 3, 4]]
    elif layout == "uneven":
        frames[2] = frames[2].iloc[:4]
    elif layout == "repeated-item":
        frames = [f.assign(item=["q1", "q2", "q1", "q3", "q4"]) for f in frames]
    elif layout == "run-twice":
        frames.append(frames[0])
    frame = pd.concat(frames, ignore_index=True)
    if layout == "interleaved":
        frame = frame.sort_values("item", kind="stable").reset_index(drop=True)
    if layout == "numbers":
        frame["item"] = np.tile(np.arange(5), 3)
    table = table_of(frame)
    fast = runs._stacked_codes(table, "run", "item")
    if layout == "stacked":
        assert fast is not None
        rc, rl, ic, il = fast
        want = _runs_codes_by_rows(table, "run", "item")
        assert np.array_equal(rc, want[0]) and list(map(str, rl)) == want[1]
        assert np.array_equal(ic, want[2]) and [str(x) for x in il] == want[3] == items
    else:
        assert fast is None  # coded row by row (and a repeated pair is refused there)


def test_runs_on_stacked_runs_equal_the_row_by_row_coding(monkeypatch):
    from conftest import table_of
    from workbench.analyses import runs

    rng = np.random.default_rng(4)
    ids = [f"q{i}" for i in range(300)]
    frame = pd.concat([pd.DataFrame({"run": f"r{j}", "item": ids, "correct": (rng.random(300) < 0.5 + 0.05 * j)
                                     .astype(int)}) for j in range(4)], ignore_index=True)
    opts = runs.Options(system="run", item="item", outcome="correct", groups="holm", resamples=1000, rounds=1000)
    fast = runs.run(table_of(frame), opts)
    monkeypatch.setattr(runs, "_stacked_codes", lambda *a: None)
    slow = runs.run(table_of(frame), opts)
    assert fast.records == slow.records
    for name in ("runs", "pairs", "groups", "grid"):
        pd.testing.assert_frame_equal(fast.table(name).frame, slow.table(name).frame)
