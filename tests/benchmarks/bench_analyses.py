#!/usr/bin/env python
"""Issue 27's speed rows: many runs side by side, the workbench beside the references in one run.

Not a test (pytest skips ``tests/benchmarks``).  From the project root::

    .venv/bin/python tests/benchmarks/bench_runs.py            # the issue's sizes (~2-4 min)
    .venv/bin/python tests/benchmarks/bench_runs.py --quick    # small sizes, a smoke test

Rows (data generated with a fixed seed before any timing; 0/1 outcomes, every run on every item,
run j succeeding a little more often than run j - 1):

* ``holm``: 20 runs x 100k items: ``analyses.runs.run(groups="holm")`` (the grid, each run's
  interval, consecutive and vs-baseline pairs with the exact sign test and the paired bootstrap,
  Holm-adjusted sign tests over every pair for the tie groups) / the same pairwise exact sign
  tests with ``scipy.stats.binomtest`` in a loop over every pair, then statsmodels'
  ``multipletests(method="holm")``.  Check: the Holm-adjusted p of every pair equal to 1e-9.
* ``tukey``: randomised Tukey HSD, 10 runs x 10k items x 10k rounds:
  ``metrics.multiple.randomized_tukey_hsd`` / the textbook implementation (each round permutes
  every item's row with ``Generator.permuted`` and takes max - min of the column means).  Check:
  every pair's p within 5 Monte Carlo standard errors of the reference's (different streams).

Ratio = reference time / workbench time (above 1: the workbench is faster).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def runs_frame(runs: int, items: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    p = rng.beta(2.0, 2.0, items)
    ids = np.array([f"q{i}" for i in range(items)], dtype=object)
    return pd.concat([pd.DataFrame({"run": f"run{j:02d}", "item": ids,
                                    "correct": (rng.random(items) < np.clip(p + 0.002 * j, 0, 1)).astype(int)})
                      for j in range(runs)], ignore_index=True)


def _timed(fn):
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def row_holm(runs: int, items: int, seed: int) -> tuple[str, float, float, str]:
    from scipy.stats import binomtest
    from statsmodels.stats.multitest import multipletests

    from workbench.analyses import runs as runs_analysis
    from workbench.io import LoadedTable

    frame = runs_frame(runs, items, seed)
    table = LoadedTable(frame=frame, path="<memory>")
    wb_s, result = _timed(lambda: runs_analysis.run(table, runs_analysis.Options(
        system="run", item="item", outcome="correct", groups="holm")))
    grid = frame.pivot(index="item", columns="run", values="correct").to_numpy()

    def reference():
        pairs, ps = [], []
        for i in range(runs):
            for j in range(i + 1, runs):
                a, b = grid[:, i], grid[:, j]
                up, down = int(((a == 0) & (b == 1)).sum()), int(((a == 1) & (b == 0)).sum())
                pairs.append((i, j))
                ps.append(binomtest(up, up + down, 0.5).pvalue if up + down else 1.0)
        return pairs, multipletests(ps, method="holm")[1]

    ref_s, (pairs, holm) = _timed(reference)
    groups = result.table("groups").frame
    p_of = {frozenset((a, b)): float(p) for a, b, p in zip(groups["from"], groups["to"], groups["p_value"])}
    names = [f"run{j:02d}" for j in range(runs)]
    diffs = [abs(p_of[frozenset((names[i], names[j]))] - want) for (i, j), want in zip(pairs, holm)]
    worst = max(diffs)
    check = f"equal ({len(pairs)} Holm p, max diff {worst:.1e})" if worst < 1e-9 else f"DIFFERENT ({worst:.2e})"
    return f"Runs: {runs} runs x {items:,} items, grid + pairs + Holm groups", wb_s, ref_s, check


def reference_tukey(scores: np.ndarray, rounds: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    means = scores.mean(axis=0)
    observed = np.abs(means[None, :] - means[:, None])
    largest = np.empty(rounds)
    for r in range(rounds):
        col = rng.permuted(scores, axis=1).mean(axis=0)
        largest[r] = col.max() - col.min()
    reach = (largest[None, None, :] >= observed[:, :, None] - 1e-12).sum(axis=2)
    return (1.0 + reach) / (1.0 + rounds)


def row_tukey(systems: int, items: int, rounds: int, seed: int) -> tuple[str, float, float, str]:
    from workbench.metrics.multiple import randomized_tukey_hsd

    rng = np.random.default_rng(seed)
    p = rng.beta(2.0, 2.0, items)
    scores = (rng.random((items, systems)) < np.clip(p[:, None] + 0.004 * np.arange(systems), 0, 1)).astype(float)
    wb_s, ours = _timed(lambda: randomized_tukey_hsd(scores, rounds=rounds, seed=seed).p)
    ref_s, ref = _timed(lambda: reference_tukey(scores, rounds, seed + 1))
    se = np.sqrt(ref * (1 - ref) / rounds)
    off = ~np.eye(systems, dtype=bool)
    ok = np.all(np.abs(ours - ref)[off] <= 5 * np.sqrt(2) * se[off] + 2 / rounds)
    check = (f"equal within Monte Carlo error ({int(off.sum() // 2)} pairs, max diff "
             f"{np.abs(ours - ref)[off].max():.3f})" if ok else "DIFFERENT beyond Monte Carlo error")
    return (f"Randomised Tukey HSD: {systems} runs x {items:,} items x {rounds:,} rounds", wb_s, ref_s, check)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--seed", type=int, default=20261202)
    args = parser.parse_args(argv)
    sizes = dict(runs=4, items=2_000, systems=4, t_items=500, rounds=2_000) if args.quick else \
        dict(runs=20, items=100_000, systems=10, t_items=10_000, rounds=10_000)
    rows = [row_holm(sizes["runs"], sizes["items"], args.seed),
            row_tukey(sizes["systems"], sizes["t_items"], sizes["rounds"], args.seed)]
    print("| work | workbench | reference | ratio | values |\n|---|---|---|---|---|")
    for work, wb_s, ref_s, check in rows:
        print(f"| {work} | {wb_s:.2f} s | {ref_s:.2f} s | **{ref_s / wb_s:.2f}x** | {check} |")
    bad = [r for r in rows if not r[3].startswith("equal")]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
