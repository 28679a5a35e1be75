#!/usr/bin/env python
"""Issue 47's analysis rows: each analysis beside the script an analyst would write with
scipy, statsmodels, numpy and pandas, in one process, with the values checked and the peak
memory stated.

Not a test (pytest skips ``tests/benchmarks``; ``tests/test_bench_quick.py`` runs ``--quick``).
From the project root::

    .venv/bin/python tests/benchmarks/bench_analyses.py             # the issue's sizes (~5-10 min)
    .venv/bin/python tests/benchmarks/bench_analyses.py --quick     # small sizes, a smoke test
    .venv/bin/python tests/benchmarks/bench_analyses.py --only tukey --repeats 3

Rows (data generated with a fixed seed before any timing):

* ``rubric``: 100k items x 10 yes/no criteria x 2 systems, weights 1..10, about 1% blank
  verdicts (skipped, the item's other weights renormalised), in memory: ``analyses.rubric.run``
  (scores, each criterion's Wilson interval, the paired comparison: t-test, 10,000-round
  randomization test, 10,000-resample paired bootstrap, per criterion exact sign test, McNemar
  and Holm, contributions) / numpy scores, statsmodels ``proportion_confint(method="wilson")``,
  scipy ``ttest_rel``, ``permutation_test(permutation_type="samples", vectorized=True)`` and
  ``bootstrap(paired=True, vectorized=True, method="percentile")``, ``binomtest``, statsmodels
  ``mcnemar`` and ``multipletests(method="holm")``.  scipy's two Monte Carlo calls take about 20
  minutes at 10,000 rounds on 100k items (2 cores, load 6-8): they run at ``--ref-rounds``
  (default 1,000) and their time is scaled to 10,000 (the rest timed apart).  Check: scores,
  rates, Wilson bounds, t p, sign-test, McNemar and Holm p equal to 1e-9; the randomization p
  within 4 Monte Carlo standard errors; the bootstrap interval's ends within a fifth of its
  width (a tenth at 10,000 reference rounds).
* ``runs``: 20 runs x 100k items, 0/1 outcomes, tie groups by Holm: ``analyses.runs.run``
  (the grid and its flags, each run's Wilson interval, consecutive and vs-baseline pairs with the
  exact sign test and a 10,000-resample bootstrap, Holm over all 190 pairs) / ``DataFrame.pivot``,
  statsmodels Wilson per run, ``scipy.stats.binomtest`` per pair, ``multipletests(method="holm")``.
  Check: every run's rate and Wilson bounds and every pair's Holm p equal to 1e-9.
* ``tukey``: randomised Tukey HSD, 10 systems x 10k items x 10k rounds, scores in [0, 1]:
  ``metrics.multiple.randomized_tukey_hsd`` / the textbook loop (each round
  ``Generator.permuted(scores, axis=1)``, then max - min of the column means).  Check: every
  pair's p within 5 Monte Carlo standard errors of the reference's (different random streams).
* ``repeats``: 1M rows (100k items x 5 epochs x 2 systems, 0/1) from a CSV: ``load_table`` +
  ``analyses.repeats.run`` (noise split, seed spread, pass@k curve with intervals, paired split,
  per-item table) / ``pandas.read_csv`` + a pandas groupby (items' means and variances per
  system, eval-arena's unbiasedK split, the paired split, pass@k and pass^k for k = 1..5).
  Check: the variance parts of both systems and of the pair, and the pass@k curve, equal to 1e-12.

Times are medians of ``--repeats`` runs (default 1; interleaved workbench / reference).  Ratio =
reference time / workbench time (above 1: the workbench is faster).  Peak memory: the growth of
the process's peak resident memory (VmHWM, reset through ``/proc/self/clear_refs`` before each
call) above what it held before the call, beside the input's size in memory.  The machine is
shared: the load average is printed with each row.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
for p in (str(ROOT), str(HERE)):
    if p not in sys.path:
        sys.path.insert(0, p)

import bench_engine as be  # noqa: E402
from bench_table import _peak_rss_mb, _peak_rss_reset, _rss_mb, load  # noqa: E402

FULL = dict(rubric=100_000, runs=20, run_items=100_000, t_systems=10, t_items=10_000, rounds=10_000,
            repeats=1_000_000)
QUICK = dict(rubric=3_000, runs=4, run_items=2_000, t_systems=4, t_items=500, rounds=2_000, repeats=20_000)
ROWS = ("rubric", "runs", "tukey", "repeats")


def measured(fn):
    """(seconds, output, peak memory growth in MB) of one call."""
    gc.collect()
    before = _rss_mb()
    _peak_rss_reset()
    t = time.perf_counter()
    out = fn()
    seconds = time.perf_counter() - t
    return seconds, out, _peak_rss_mb() - before


def side_by_side(wb, ref, repeats: int):
    """Medians of interleaved runs: ((wb s, wb out, wb MB), (ref s, ref out, ref MB))."""
    runs = {"wb": [], "ref": []}
    for _ in range(repeats):
        runs["wb"].append(measured(wb))
        runs["ref"].append(measured(ref))
    out = []
    for k in ("wb", "ref"):
        r = runs[k]
        out.append((statistics.median(x[0] for x in r), r[-1][1], max(x[2] for x in r)))
    return out


class Rows:
    def __init__(self) -> None:
        self.rows: list[dict] = []

    def add(self, work, wb, ref_name, ref, check, size_mb):
        row = dict(work=work, wb=wb[0], ref_name=ref_name, ref=ref[0], ratio=ref[0] / wb[0], check=check,
                   mem=f"peak +{wb[2]:.0f} MB (reference +{ref[2]:.0f} MB; input {size_mb:.0f} MB)")
        self.rows.append(row)
        print(f"  -> workbench {row['wb']:.2f} s | {ref_name} {row['ref']:.2f} s | ratio {row['ratio']:.2f}x | "
              f"{check} | {row['mem']} | load {load()}", flush=True)

    def markdown(self) -> str:
        out = ["| work | workbench | reference | ratio | values | memory |", "|---|---|---|---|---|---|"]
        for r in self.rows:
            out.append(f"| {r['work']} | {r['wb']:.2f} s | {r['ref_name']} {r['ref']:.2f} s | **{r['ratio']:.2f}x** | "
                       f"{r['check']} | {r['mem']} |")
        return "\n".join(out)


def frame_mb(frame: pd.DataFrame) -> float:
    return float(frame.memory_usage(deep=True).sum()) / 2**20


def worst(pairs) -> float:
    return max((abs(a - b) for a, b in pairs), default=0.0)


# --------------------------------------------------------------------------- rubric

CRITERIA = [f"c{j}" for j in range(10)]
WEIGHTS = np.arange(1, 11, dtype=float)


def rubric_frame(items: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    ids = np.array([f"a{i}" for i in range(items)], dtype=object)
    skill = rng.beta(2, 2, items)
    parts = []
    for name, shift in (("base", 0.0), ("cand", 0.0015)):  # a p-value far from 0 and 1
        cols = {}
        for j, c in enumerate(CRITERIA):
            v = np.where(rng.random(items) < np.clip(skill + 0.03 * j - 0.15 + shift, 0, 1), "yes",
                         "no").astype(object)
            v[rng.random(items) < 0.01] = ""
            cols[c] = v
        parts.append(pd.DataFrame({"system": name, "item": ids, **cols}))
    return pd.concat(parts, ignore_index=True)


def wb_rubric(frame: pd.DataFrame, rounds: int) -> dict:
    from workbench.analyses import rubric
    from workbench.io import LoadedTable

    res = rubric.run(LoadedTable(frame=frame, path="<memory>"), rubric.Options(
        item="item", system="system", criteria=",".join(CRITERIA), baseline_system="base",
        weights=",".join(f"{w:g}" for w in WEIGHTS), resamples=rounds))  # rounds: 10,000 (its default)
    out = {}
    for s in ("base", "cand"):
        out[f"score:{s}"] = res.value("rubric_score", system=s)
        for c in CRITERIA:
            rec = res.find(f"criterion_rate:{c}", system=s)[0]
            out.update({f"{c}:{s}": rec["value"], f"{c}:{s}:lo": rec["ci_low"], f"{c}:{s}:hi": rec["ci_high"]})
    kw = dict(from_="base", to="cand")
    diff = res.find("diff:rubric_score", **kw)[0]
    out.update({"diff": diff["value"], "t_p": res.value("t_test_p:rubric_score", **kw),
                "mc:randomization_p": res.value("randomization_p:rubric_score", **kw),
                "ci:low": diff["ci_low"], "ci:high": diff["ci_high"]})
    for c in CRITERIA:
        out.update({f"sign:{c}": res.value(f"criterion_sign_p:{c}", **kw),
                    f"mcnemar:{c}": res.value(f"criterion_mcnemar_p:{c}", **kw),
                    f"holm:{c}": res.value(f"criterion_p_holm:{c}", **kw)})
    return out


def ref_rubric(frame: pd.DataFrame, rounds: int, seed: int) -> dict:
    """The analyst's script: scores in numpy, the tests from scipy and statsmodels (``rounds``:
    the permutation test's and the bootstrap's)."""
    from scipy import stats
    from statsmodels.stats.contingency_tables import mcnemar
    from statsmodels.stats.multitest import multipletests
    from statsmodels.stats.proportion import proportion_confint

    wide = frame[frame.system == "base"].merge(frame[frame.system == "cand"], on="item", suffixes=("_b", "_c"))
    out, verdict, score = {}, {}, {}
    for s, suffix in (("base", "_b"), ("cand", "_c")):
        v = np.column_stack([np.where(wide[c + suffix] == "yes", 1.0, np.where(wide[c + suffix] == "no", 0.0, np.nan))
                             for c in CRITERIA])
        have = ~np.isnan(v)
        score[s] = (np.where(have, v, 0) * WEIGHTS).sum(1) / (have * WEIGHTS).sum(1)
        verdict[s] = v
        out[f"score:{s}"] = float(np.mean(score[s]))
        for j, c in enumerate(CRITERIA):
            k, n = int(np.nansum(v[:, j])), int(have[:, j].sum())
            lo, hi = proportion_confint(k, n, alpha=0.05, method="wilson")
            out.update({f"{c}:{s}": k / n, f"{c}:{s}:lo": float(lo), f"{c}:{s}:hi": float(hi)})
    b, c_ = score["base"], score["cand"]
    out["diff"] = float(np.mean(c_ - b))
    out["t_p"] = float(stats.ttest_rel(c_, b).pvalue)
    batch = max(1, 4_000_000 // len(b))

    def mean_diff(x, y, axis=-1):
        return np.mean(x - y, axis=axis)

    perm = stats.permutation_test((c_, b), mean_diff, permutation_type="samples", vectorized=True,
                                  n_resamples=rounds, batch=batch, rng=np.random.default_rng(seed))
    out["mc:randomization_p"] = float(perm.pvalue)
    boot = stats.bootstrap((b, c_), lambda x, y, axis=-1: np.mean(y - x, axis=axis), paired=True, vectorized=True,
                           n_resamples=rounds, batch=batch, method="percentile", rng=np.random.default_rng(seed))
    out["ci:low"], out["ci:high"] = map(float, boot.confidence_interval)
    signs = []
    for j, c in enumerate(CRITERIA):
        vb, vc = verdict["base"][:, j], verdict["cand"][:, j]
        ok = ~np.isnan(vb) & ~np.isnan(vc)
        wins, losses = int(((vc == 1) & (vb == 0) & ok).sum()), int(((vc == 0) & (vb == 1) & ok).sum())
        signs.append(stats.binomtest(wins, wins + losses).pvalue if wins + losses else 1.0)
        out[f"sign:{c}"] = float(signs[-1])
        out[f"mcnemar:{c}"] = float(mcnemar([[0, wins], [losses, 0]], exact=False, correction=False).pvalue)
    for c, p in zip(CRITERIA, multipletests(signs, method="holm")[1]):
        out[f"holm:{c}"] = float(p)
    return out


def check_rubric(wb: dict, ref: dict, rounds: int) -> str:
    """``rounds``: the reference's (the workbench draws 10,000)."""
    exact = [k for k in ref if not k.startswith(("mc:", "ci:"))]
    diff = worst((wb[k], ref[k]) for k in exact)
    p, q = wb["mc:randomization_p"], ref["mc:randomization_p"]
    se = np.sqrt(max(q * (1 - q), 1 / rounds) * (1 / rounds + 1 / 10_000))
    width = ref["ci:high"] - ref["ci:low"]
    ci_off = max(abs(wb["ci:low"] - ref["ci:low"]), abs(wb["ci:high"] - ref["ci:high"]))
    # the percentile interval's ends from R resamples move by about a tenth of its width at R = 1,000
    ok = diff < 1e-9 and abs(p - q) <= 4 * se + 2 / rounds and ci_off <= (0.1 if rounds >= 10_000 else 0.2) * width
    return (f"{'equal' if ok else 'DIFFERENT'} ({len(exact)} values, max diff {diff:.1e}; randomization p "
            f"{p:.4f} vs {q:.4f}; interval ends within {ci_off / width:.2f} of its width)")


def row_rubric(rows: Rows, items: int, rounds: int, ref_rounds: int, repeats: int, seed: int) -> None:
    """The reference's permutation test and bootstrap at ``ref_rounds`` (at 100k items scipy takes
    about a minute per 1,000 of each on the 2-core machine), its time scaled to ``rounds`` by
    timing the rest apart: deterministic part + (Monte Carlo part) x rounds / ref_rounds."""
    frame = rubric_frame(items, seed)
    wb, ref = side_by_side(lambda: wb_rubric(frame, rounds), lambda: ref_rubric(frame, ref_rounds, seed), repeats)
    note = ""
    if ref_rounds != rounds:
        fixed, _, _ = measured(lambda: ref_rubric(frame, 1, seed))  # all but the Monte Carlo rounds
        scaled = fixed + (ref[0] - fixed) * rounds / ref_rounds
        note = f" (reference at {ref_rounds:,} rounds {ref[0]:.1f} s, scaled to {rounds:,})"
        ref = (scaled, ref[1], ref[2])
    rows.add(f"Rubric: {items:,} items x 10 criteria x 2 systems, weighted, 1% blank verdicts, "
             f"{rounds:,} rounds and resamples", wb, "numpy + scipy + statsmodels" + note, ref,
             check_rubric(wb[1], ref[1], ref_rounds), frame_mb(frame))


# --------------------------------------------------------------------------- runs


def runs_frame(runs: int, items: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    p = rng.beta(2.0, 2.0, items)
    ids = np.array([f"q{i}" for i in range(items)], dtype=object)
    return pd.concat([pd.DataFrame({"run": f"run{j:02d}", "item": ids,
                                    "correct": (rng.random(items) < np.clip(p + 0.002 * j, 0, 1)).astype(int)})
                      for j in range(runs)], ignore_index=True)


def wb_runs(frame: pd.DataFrame) -> dict:
    from workbench.analyses import runs
    from workbench.io import LoadedTable

    res = runs.run(LoadedTable(frame=frame, path="<memory>"), runs.Options(
        system="run", item="item", outcome="correct", groups="holm"))
    out = {}
    for r in res.table("runs").frame.itertuples():
        out.update({f"rate:{r.run}": r.value, f"lo:{r.run}": r.ci_low, f"hi:{r.run}": r.ci_high})
    for r in res.table("groups").frame.to_dict("records"):
        out["holm:" + "|".join(sorted((r["from"], r["to"])))] = r["p_value"]
    return out


def ref_runs(frame: pd.DataFrame) -> dict:
    from scipy.stats import binomtest
    from statsmodels.stats.multitest import multipletests
    from statsmodels.stats.proportion import proportion_confint

    grid = frame.pivot(index="item", columns="run", values="correct")
    out, keys, ps = {}, [], []
    for name in grid.columns:
        k, n = int(grid[name].sum()), int(grid[name].count())
        lo, hi = proportion_confint(k, n, method="wilson")
        out.update({f"rate:{name}": k / n, f"lo:{name}": float(lo), f"hi:{name}": float(hi)})
    g = grid.to_numpy()
    names = list(grid.columns)
    for i in range(len(names)):
        for j in range(i + 1, len(names)):
            up, down = int(((g[:, i] == 0) & (g[:, j] == 1)).sum()), int(((g[:, i] == 1) & (g[:, j] == 0)).sum())
            keys.append("holm:" + "|".join(sorted((names[i], names[j]))))
            ps.append(binomtest(up, up + down, 0.5).pvalue if up + down else 1.0)
    out.update(dict(zip(keys, map(float, multipletests(ps, method="holm")[1]))))
    return out


def row_runs(rows: Rows, runs: int, items: int, repeats: int, seed: int) -> None:
    frame = runs_frame(runs, items, seed)
    wb, ref = side_by_side(lambda: wb_runs(frame), lambda: ref_runs(frame), repeats)
    diff = worst((wb[1][k], ref[1][k]) for k in ref[1])
    pairs = sum(k.startswith("holm:") for k in ref[1])
    check = (f"equal ({pairs} Holm p, {runs} rates and Wilson intervals; max diff {diff:.1e})" if diff < 1e-9
             else f"DIFFERENT (max diff {diff:.2e})")
    rows.add(f"Runs: {runs} runs x {items:,} items (0/1), grid + pairs + Holm over every pair", wb,
             "pandas pivot + scipy binomtest + statsmodels", ref, check, frame_mb(frame))


# --------------------------------------------------------------------------- Tukey


def tukey_scores(systems: int, items: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    base = rng.beta(2.0, 2.0, items)
    return np.clip(base[:, None] + rng.normal(0, 0.15, (items, systems)) + 0.003 * np.arange(systems), 0, 1)


def reference_tukey(scores: np.ndarray, rounds: int, seed: int) -> np.ndarray:
    """The textbook randomised Tukey HSD: each round shuffles every item's row."""
    rng = np.random.default_rng(seed)
    means = scores.mean(axis=0)
    observed = np.abs(means[None, :] - means[:, None])
    largest = np.empty(rounds)
    for r in range(rounds):
        col = rng.permuted(scores, axis=1).mean(axis=0)
        largest[r] = col.max() - col.min()
    reach = (largest[None, None, :] >= observed[:, :, None] - 1e-12).sum(axis=2)
    return (1.0 + reach) / (1.0 + rounds)


def row_tukey(rows: Rows, systems: int, items: int, rounds: int, repeats: int, seed: int) -> None:
    from workbench.metrics.multiple import randomized_tukey_hsd

    scores = tukey_scores(systems, items, seed)
    wb, ref = side_by_side(lambda: randomized_tukey_hsd(scores, rounds=rounds, seed=seed),
                           lambda: reference_tukey(scores, rounds, seed + 1), repeats)
    ours, theirs = wb[1].p, ref[1]
    se = np.sqrt(np.maximum(theirs * (1 - theirs), 1 / rounds) / rounds)
    off = ~np.eye(systems, dtype=bool)
    ok = np.all(np.abs(ours - theirs)[off] <= 5 * np.sqrt(2) * se[off] + 2 / rounds)
    check = (f"{'equal within Monte Carlo error' if ok else 'DIFFERENT beyond Monte Carlo error'} "
             f"({int(off.sum() // 2)} pairs, p from {theirs[off].min():.3f} to {theirs[off].max():.3f}, max diff "
             f"{np.abs(ours - theirs)[off].max():.3f}; draw:{wb[1].method})")
    rows.add(f"Randomised Tukey HSD: {systems} systems x {items:,} items x {rounds:,} rounds, scores", wb,
             "numpy Generator.permuted per round", ref, check, scores.nbytes / 2**20)


# --------------------------------------------------------------------------- repeats


def repeats_frame(rows: int, seed: int, epochs: int = 5) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    n = rows // (2 * epochs)
    p = rng.beta(0.7, 0.6, n)
    parts = []
    for name, shift in (("base", 0.0), ("cand", 0.03)):
        y = (rng.random((n, epochs)) < np.clip(p + shift, 0, 1)[:, None]).astype(int)
        parts.append(pd.DataFrame({"model": name, "item": np.repeat([f"q{i}" for i in range(n)], epochs),
                                   "epoch": np.tile(np.arange(1, epochs + 1), n), "correct": y.ravel()}))
    return pd.concat(parts, ignore_index=True)


def wb_repeats(path: Path) -> dict:
    from workbench.analyses import repeats
    from workbench.io import load_table

    res = repeats.run(load_table(path), repeats.Options(item="item", outcome="correct", repeat="epoch",
                                                        system="model", baseline_system="base"))
    out = {f"{m}:{s}": res.value(m, system=s) for m in ("var_data", "var_within") for s in ("base", "cand")}
    out.update({f"{m}:pair": res.value(m, from_="base", to="cand") for m in ("var_data", "var_within")})
    for r in res.table("passk").frame.to_dict("records"):
        out.update({f"pass@{r['k']}:{r['system']}": r["pass@k"], f"pass^{r['k']}:{r['system']}": r["pass^k"]})
    return out


def ref_repeats(path: Path) -> dict:
    """pandas: per (system, item) mean and variance, eval-arena's unbiasedK split, the paired
    split, pass@k and pass^k per item from its successes c of n tries."""
    from scipy.special import comb

    frame = pd.read_csv(path)
    g = frame.groupby(["model", "item"], sort=False)["correct"].agg(["mean", "sum", "count", lambda x: x.var(ddof=0)])
    g.columns = ["mean", "c", "n", "var"]
    out = {}
    for s in ("base", "cand"):
        part = g.loc[s]
        bias = float((part["var"] / (part["n"] - 1)).mean())
        out[f"var_data:{s}"] = max(float(part["mean"].var(ddof=0)) - bias, 0.0)
        out[f"var_within:{s}"] = float(part["var"].mean()) + bias
        for k in range(1, int(part["n"].min()) + 1):
            out[f"pass@{k}:{s}"] = float((1 - comb(part["n"] - part["c"], k) / comb(part["n"], k)).mean())
            out[f"pass^{k}:{s}"] = float((comb(part["c"], k) / comb(part["n"], k)).mean())
    a, b = g.loc["base"], g.loc["cand"].reindex(g.loc["base"].index)
    bias = float((a["var"] / (a["n"] - 1)).mean() + (b["var"] / (b["n"] - 1)).mean())
    out["var_data:pair"] = max(float((b["mean"] - a["mean"]).var(ddof=0)) - bias, 0.0)
    out["var_within:pair"] = float(a["var"].mean() + b["var"].mean()) + bias
    return out


def row_repeats(rows: Rows, size: int, repeats: int, tmp: Path, seed: int) -> None:
    path = tmp / "repeats.csv"
    frame = repeats_frame(size, seed)
    frame.to_csv(path, index=False)
    wb, ref = side_by_side(lambda: wb_repeats(path), lambda: ref_repeats(path), repeats)
    diff = worst((wb[1][k], ref[1][k]) for k in ref[1])
    check = (f"equal ({len(ref[1])} values: variance parts, pass@k and pass^k; max diff {diff:.1e})" if diff < 1e-12
             else f"DIFFERENT (max diff {diff:.2e})")
    rows.add(f"Repeats end to end from a {len(frame):,}-row CSV ({len(frame) // 10:,} items x 5 epochs x 2 systems)",
             wb, "pandas read_csv + groupby", ref, check, frame_mb(frame))


# --------------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="small sizes (a smoke test)")
    parser.add_argument("--repeats", type=int, default=1, help="median of N interleaved runs (default 1)")
    parser.add_argument("--seed", type=int, default=20261206)
    parser.add_argument("--only", choices=ROWS, action="append", help="only these rows (repeatable)")
    parser.add_argument("--ref-rounds", type=int, help="the rubric reference's permutation test and "
                        "bootstrap rounds (default 1,000, the time scaled to 10,000; --quick: 10,000)")
    parser.add_argument("--markdown", help="also write the table as Markdown to this file")
    args = parser.parse_args(argv)
    sizes = QUICK if args.quick else FULL
    t0 = time.perf_counter()
    be.section("Machine")
    be.machine_info()
    import scipy.stats  # noqa: F401  (both sides use it: its import is not timed)
    import statsmodels.api  # noqa: F401

    rows = Rows()
    with tempfile.TemporaryDirectory(prefix="wb-bench-") as tmp:
        for row in args.only or ROWS:
            be.section(f"{row} (load average {load()})")
            if row == "rubric":
                row_rubric(rows, sizes["rubric"], 10_000, args.ref_rounds or (10_000 if args.quick else 1_000),
                           args.repeats, args.seed)
            elif row == "runs":
                row_runs(rows, sizes["runs"], sizes["run_items"], args.repeats, args.seed)
            elif row == "tukey":
                row_tukey(rows, sizes["t_systems"], sizes["t_items"], sizes["rounds"], args.repeats, args.seed)
            elif row == "repeats":
                row_repeats(rows, sizes["repeats"], args.repeats, Path(tmp), args.seed)
    be.section(f"Issue 47's analysis rows (ratio = reference / workbench; load average now {load()})")
    md = rows.markdown()
    print(md)
    if args.markdown:
        Path(args.markdown).write_text(md + "\n")
    bad = [r["work"] for r in rows.rows if not r["check"].startswith("equal")]
    print(f"\nvalue checks: {len(rows.rows) - len(bad)} of {len(rows.rows)} equal"
          + (f"; DIFFERENT: {'; '.join(bad)}" if bad else ""))
    print(f"total wall time {time.perf_counter() - t0:.0f} s")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
