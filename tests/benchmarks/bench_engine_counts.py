#!/usr/bin/env python
"""pass@k, aggregation and cost on the memory and DuckDB engines, side by side (issue 29).

Not a test (pytest skips ``tests/benchmarks``).  From the project root::

    .venv/bin/python tests/benchmarks/bench_engine_counts.py                 # 1M and 10M rows
    .venv/bin/python tests/benchmarks/bench_engine_counts.py --rows 1000000  # one size
    .venv/bin/python tests/benchmarks/bench_engine_counts.py --quick         # 100k rows
    .venv/bin/python tests/benchmarks/bench_engine_counts.py --analysis cost # one analysis

For each size it writes one generated log as Parquet (and CSV with ``--csv``): a model (3), a
task id (rows / 20 tasks, digit-only), an outcome word, a segment (5), a cost, a latency and a
prompt of about 100 characters (a log's long text, which no analysis reads), then runs, each
in a fresh child process, what the command line runs:

* memory: ``load_table`` of the file, then the analysis's ``run`` (pandas and numpy);
* duckdb: the analysis's ``run_unloaded`` (DuckDB counts the attempts per task, the rows per
  group, or reads only the columns cost uses).

``passk --task task_id --success passed --system model``, ``aggregate --outcome passed --group
segment --version model``, ``cost --system model --success passed --cost cost --latency
latency_ms``.  Time is the wall time of that call inside the child (imports excluded); peak RSS
the child's high-water mark (``VmHWM``, Python with pandas included, about 0.15 GB).  Equal says
whether every record (value, n, interval) is the same.  Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
ANALYSES = {
    "passk": dict(task="task_id", success="passed", system="model"),
    "aggregate": dict(outcome="passed", group="segment", version="model"),
    "cost": dict(system="model", success="passed", cost="cost", latency="latency_ms"),
}


def generate(rows: int, folder: Path, csv: bool, seed: int = 29) -> list[Path]:
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({
        "model": rng.choice(["base", "cand", "large"], rows),
        "task_id": (rng.integers(0, max(rows // 20, 1), rows)).astype(str),
        "passed": rng.choice(["yes", "no"], rows, p=[0.6, 0.4]),
        "segment": rng.choice(["web", "app", "api", "batch", "eval"], rows),
        "cost": np.round(rng.gamma(2.0, 0.001, rows), 6),
        "latency_ms": np.round(rng.lognormal(6, 0.5, rows), 1),
        "prompt": "Answer the question using only the retrieved passages; cite each of them. ",
    })
    paths = [folder / f"log-{rows}.parquet"]
    frame.to_parquet(paths[0], index=False)
    if csv:
        paths.append(folder / f"log-{rows}.csv")
        frame.to_csv(paths[1], index=False)
    return paths


def _peak_rss() -> float:
    with open("/proc/self/status", encoding="ascii") as handle:
        for line in handle:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024 / 1e9
    return float("nan")


def child(analysis: str, engine: str, path: str, out: str) -> None:
    sys.path.insert(0, str(ROOT))
    from dataclasses import replace

    from workbench.analyses import REGISTRY
    from workbench.io import load_table

    module = REGISTRY[analysis]
    options = replace(module.Options(**ANALYSES[analysis]), engine=engine)
    start = time.perf_counter()
    if engine == "memory":
        result = module.run(load_table(path), options)
    else:
        result = module.run_unloaded([path], options)
    seconds = time.perf_counter() - start
    Path(out).write_text(json.dumps({"seconds": seconds, "rss": _peak_rss(),
                                     "records": result.to_json_dict()["results"]}))


def run_child(analysis: str, engine: str, path: Path, folder: Path) -> dict:
    out = folder / f"{analysis}-{engine}.json"
    subprocess.run([sys.executable, __file__, "--child", analysis, engine, str(path), str(out)],
                   check=True)
    return json.loads(out.read_text())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, action="append")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--csv", action="store_true", help="CSV files as well as Parquet")
    parser.add_argument("--analysis", action="append", choices=list(ANALYSES),
                        help="only this analysis (repeatable; default all three)")
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(*args.child)
        return
    sizes = args.rows or ([100_000] if args.quick else [1_000_000, 10_000_000])
    print(f"load average {os.getloadavg()[0]:.1f}")
    print("| rows | file | analysis | engine | time | peak RSS | equal to memory |")
    print("|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory(prefix="bench-engine-counts-") as tmp:
        folder = Path(tmp)
        for rows in sizes:
            for path in generate(rows, folder, args.csv):
                for analysis in args.analysis or ANALYSES:
                    memory = run_child(analysis, "memory", path, folder)
                    duck = run_child(analysis, "duckdb", path, folder)
                    for name, got in (("memory", memory), ("duckdb", duck)):
                        equal = "-" if name == "memory" else \
                            ("yes" if got["records"] == memory["records"] else "NO")
                        print(f"| {rows:,} | {path.suffix[1:]} | {analysis} | {name} | "
                              f"{got['seconds']:.2f} s | {got['rss']:.2f} GB | {equal} |",
                              flush=True)


if __name__ == "__main__":
    main()
