#!/usr/bin/env python
"""Issue 28's speed rows: the conventions table ("what changes the number") beside the plain way
of computing it, in one run.

Not a test (pytest skips ``tests/benchmarks``).  From the project root::

    .venv/bin/python tests/benchmarks/bench_conventions.py            # the issue's sizes (~3-5 min)
    .venv/bin/python tests/benchmarks/bench_conventions.py --quick    # small sizes, a smoke test

Rows (data generated with a fixed seed before any timing):

* ``ranking``: 1M run rows (5,000 queries x 100 documents x 2 systems, graded labels 0-2,
  scores with three decimals, so ties): the panel's own run (``analyses.ranking.run``), then
  ``conventions.evaluate`` given that result (the run read and coded once, each tie rule's
  order computed once, only the per-query table recomputed) / the same table computed the
  plain way (the analysis run again under each convention: records, intervals, paired tests,
  then read).  Check: every row's value and interval equal to 1e-12.
* ``text``: 100k (prediction, reference) pairs (Zipf words, punctuation, accents, CJK) of
  one system: the panel's run, then ``conventions.evaluate`` (the panel's scores reused, the
  other BLEU tokenizers run once per distinct word and their n-grams counted by the engine,
  chrF++'s word part the same)
  / the plain way (the analysis run again under each convention, BLEU and chrF++ statistics by
  sacrebleu's own ``_extract_corpus_statistics``).  Check: every row's value and interval
  equal to 1e-9.

Ratio = plain time / workbench time (above 1: the workbench is faster).  The issue's targets:
the ranking table under 3 s beyond the panel's own time, the text table under 15 s.
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


#: the peak resident memory growth (MB) of each timed call, in order (bench_table's VmHWM reset)
PEAKS: list[float] = []


def _timed(fn):
    import gc

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from bench_table import _peak_rss_mb, _peak_rss_reset, _rss_mb

    gc.collect()
    before = _rss_mb()
    _peak_rss_reset()
    t = time.perf_counter()
    out = fn()
    seconds = time.perf_counter() - t
    PEAKS.append(_peak_rss_mb() - before)
    return seconds, out


def ranking_frame(queries: int, depth: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    q = np.repeat(np.arange(queries), depth)
    docs = np.tile(np.arange(depth), queries)
    grades = rng.integers(0, 3, q.size)
    return pd.concat([pd.DataFrame({"system": name, "query": [f"q{i}" for i in q],
                                    "doc": [f"d{d}" for d in docs],
                                    "score": np.round(rng.random(q.size), 3), "relevance": grades})
                      for name in ("bm25", "dense")], ignore_index=True)


def text_frame(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    vocab = np.array([f"w{i}" for i in range(3000)] + ["Paris,", "café", "Über", "東京", "北京。",
                                                       "(note)", "3.5%", "refund!", "don't"])
    weights = 1.0 / np.arange(1, vocab.size + 1)
    weights /= weights.sum()

    def sentence():
        return " ".join(rng.choice(vocab, rng.integers(3, 25), p=weights))

    refs = [sentence() for _ in range(n)]
    preds = [r if rng.random() < 0.25 else sentence() for r in refs]
    return pd.DataFrame({"item": [f"i{i}" for i in range(n)], "prediction": preds, "reference": refs})


def _same(a: pd.DataFrame, b: pd.DataFrame, tol: float) -> tuple[bool, float]:
    cols = ["value", "ci_low", "ci_high"]
    if list(a["convention"]) != list(b["convention"]) or list(a["metric"]) != list(b["metric"]):
        return False, float("inf")
    x, y = a[cols].to_numpy(float), b[cols].to_numpy(float)
    both_nan = np.isnan(x) & np.isnan(y)
    diff = np.where(both_nan, 0.0, np.abs(x - y))
    worst = float(np.nanmax(diff)) if diff.size else 0.0
    return bool(worst <= tol and not np.isnan(diff).any()), worst


def row_ranking(queries: int, seed: int):
    from workbench.analyses import REGISTRY
    from workbench.analyses import conventions as cv
    from workbench.io import LoadedTable

    table = LoadedTable(frame=ranking_frame(queries, 100, seed), path="<memory>")
    opts = REGISTRY["ranking"].Options(ks=(10,), system="system")
    panel_s, result = _timed(lambda: REGISTRY["ranking"].run(table, opts))
    wb_s, ours = _timed(lambda: cv.evaluate("ranking", table, opts, result=result))
    wb_mb = PEAKS[-1]
    fast = cv._FAST.pop("ranking")
    try:
        ref_s, plain = _timed(lambda: cv.evaluate("ranking", table, opts, result=result))
    finally:
        cv._FAST["ranking"] = fast
    ok, worst = _same(ours.frame, plain.frame, 1e-12)
    check = f"equal ({len(ours.frame)} rows, max diff {worst:.1e})" if ok else f"DIFFERENT ({worst:.2e})"
    size = table.frame.memory_usage(deep=True).sum() / 1e6
    return (f"Ranking conventions: {len(table.frame):,} rows, 2 systems, {len(ours.frame)} rows "
            f"(panel's own run {panel_s:.2f} s; peak +{wb_mb:.0f} MB beside the plain way's "
            f"+{PEAKS[-1]:.0f} MB, input {size:.0f} MB in memory)", wb_s, ref_s, check)


def row_text(n: int, seed: int):
    from workbench.analyses import REGISTRY
    from workbench.analyses import conventions as cv
    from workbench.io import LoadedTable
    from workbench.metrics import text_variants as tv

    table = LoadedTable(frame=text_frame(n, seed), path="<memory>")
    opts = REGISTRY["text"].Options()
    panel_s, result = _timed(lambda: REGISTRY["text"].run(table, opts))
    wb_s, ours = _timed(lambda: cv.evaluate("text", table, opts, result=result))
    wb_mb = PEAKS[-1]
    saved = cv._REUSING.pop("text"), tv.bleu_statistics, tv.chrf_statistics
    # sacrebleu's own statistics, pair by pair (the words and character statistics the
    # workbench would reuse are ignored)
    tv.bleu_statistics = lambda p, r, tok, smooth="exp", words=None: \
        tv.reference_bleu_statistics(p, r, tok, smooth)
    tv.chrf_statistics = lambda p, r, order, words=None, chars=None: \
        tv.reference_chrf_statistics(p, r, order)
    try:
        ref_s, plain = _timed(lambda: cv.evaluate("text", table, opts, result=result))
    finally:
        cv._REUSING["text"], tv.bleu_statistics, tv.chrf_statistics = saved
    ok, worst = _same(ours.frame, plain.frame, 1e-9)
    check = f"equal ({len(ours.frame)} rows, max diff {worst:.1e})" if ok else f"DIFFERENT ({worst:.2e})"
    size = table.frame.memory_usage(deep=True).sum() / 1e6
    return (f"Text conventions: {n:,} pairs, {len(ours.frame)} rows "
            f"(panel's own run {panel_s:.2f} s; peak +{wb_mb:.0f} MB beside the plain way's "
            f"+{PEAKS[-1]:.0f} MB, input {size:.0f} MB in memory)", wb_s, ref_s, check)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--seed", type=int, default=20261204)
    args = parser.parse_args(argv)
    queries, pairs = (100, 2_000) if args.quick else (5_000, 100_000)
    rows = [row_ranking(queries, args.seed), row_text(pairs, args.seed)]
    import os

    print(f"load average {os.getloadavg()[0]:.1f}")
    print("| work | workbench | plain | ratio | values |\n|---|---|---|---|---|")
    for work, wb_s, ref_s, check in rows:
        print(f"| {work} | {wb_s:.2f} s | {ref_s:.2f} s | **{ref_s / wb_s:.2f}x** | {check} |")
    bad = [r for r in rows if not r[3].startswith("equal")]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
