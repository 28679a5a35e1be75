"""Benchmark of the paired tests against scipy.stats and sacrebleu, side by side.

    PYTHONPATH=. python tests/benchmarks/bench_paired.py [--quick]

Targets (issue 14): randomization test, 10,000 rounds on 10,000 items < 0.5 s; BCa bootstrap,
10,000 resamples on 100,000 items < 3 s; corpus-BLEU paired bootstrap, 1,000 resamples on
10,000 sentences < 2 s.  Prints wall and CPU seconds (CPU: the machine is shared) and ratios.
"""

from __future__ import annotations

import random
import sys
import time

import numpy as np


def timed(label, fn):
    w, c = time.perf_counter(), time.process_time()
    out = fn()
    print(f"{label:60s} wall {time.perf_counter() - w:7.3f} s   cpu {time.process_time() - c:7.3f} s")
    return time.perf_counter() - w, out


def main(quick: bool) -> None:
    from scipy import stats

    from workbench.metrics import corpus_paired as cp
    from workbench.metrics import paired as pm

    rng = np.random.default_rng(1)
    d = rng.normal(0.01, 1, 10_000)
    ours, _ = timed("workbench randomization 10,000 rounds x 10,000 items", lambda: pm.sign_flip_test(d))
    if not quick:
        ref, _ = timed("scipy permutation_test 10,000 x 10,000", lambda: stats.permutation_test(
            (d, np.zeros_like(d)), lambda a, b, axis=-1: np.mean(a - b, axis=axis), permutation_type="samples",
            n_resamples=10_000, vectorized=True, rng=np.random.default_rng(1)))
        print(f"  ratio scipy / workbench: {ref / ours:.1f}x")
    n = 100_000 if not quick else 20_000
    base = rng.random(n)
    cand = base + rng.normal(0.01, 0.2, n)

    def bca():
        s = pm.bootstrap_means(cand - base, resamples=10_000, seed=1)
        return pm.bca_interval(s, float((cand - base).mean()), pm.jackknife_means(cand - base))

    ours, _ = timed(f"workbench BCa 10,000 resamples x {n:,} items", bca)
    if not quick:
        m = 20_000
        ref, _ = timed(f"scipy bootstrap BCa 10,000 x {m:,} items (batch 100)", lambda: stats.bootstrap(
            (base[:m], cand[:m]), lambda x, y, axis=-1: np.mean(y - x, axis=axis), paired=True, vectorized=True,
            n_resamples=10_000, batch=100, method="BCa", rng=np.random.default_rng(1)))
        print(f"  scipy per item-resample vs workbench: {ref / m / (ours / n):.1f}x")
    words = "the cat sat on a mat dog ran fast slow red blue green house tree car".split()
    rnd = random.Random(1)
    refs = [" ".join(rnd.choices(words, k=rnd.randint(3, 25))) for _ in range(10_000)]
    a = [" ".join(w if rnd.random() > 0.4 else rnd.choice(words) for w in r.split()) for r in refs]
    b = [" ".join(w if rnd.random() > 0.38 else rnd.choice(words) for w in r.split()) for r in refs]
    metric, sa = cp.sentence_statistics("bleu", a, refs)
    _, sb = cp.sentence_statistics("bleu", b, refs)
    ours, _ = timed("workbench BLEU paired bootstrap 1,000 x 10,000 sentences (from statistics)",
                    lambda: cp.paired_bootstrap(metric, sa, sb, resamples=1000, seed=12345))
    if not quick:
        from sacrebleu import significance as sig
        from sacrebleu.metrics import BLEU

        info = {"bleu": (sa.tolist(), sig.Result(cp.corpus_score(metric, sa)))}
        ref, _ = timed("sacrebleu _paired_bs_test 1,000 x 10,000 (incl. its statistics)", lambda: sig._paired_bs_test(
            info, "b", b, [refs], {"bleu": BLEU()}, n_samples=1000, seed=12345))
        print(f"  ratio sacrebleu / workbench: {ref / ours:.1f}x")


if __name__ == "__main__":
    main("--quick" in sys.argv)
