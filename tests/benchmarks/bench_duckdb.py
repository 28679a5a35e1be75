#!/usr/bin/env python
"""The ranking analysis on the memory and DuckDB engines, side by side (issue 29).

Not a test (pytest skips ``tests/benchmarks``).  Run it from the project root::

    .venv/bin/python tests/benchmarks/bench_duckdb.py                  # 1M and 10M rows
    .venv/bin/python tests/benchmarks/bench_duckdb.py --rows 1000000   # one size
    .venv/bin/python tests/benchmarks/bench_duckdb.py --quick          # 100k rows
    .venv/bin/python tests/benchmarks/bench_duckdb.py --rows 1000000 --spark  # and Spark

For each size it writes a generated run (queries x 100 documents with string ids, scores with
four decimals so some tie, one system) as CSV and as Parquet, and a qrels CSV (about 12
judged documents per query, grades 0-3, two of them never retrieved), then runs, each in a
fresh child process, what ``workbench ranking RUN --qrels QRELS --k 10,100 --engine E`` runs:

* memory: ``load_table`` of the run, then ``analyses.ranking.run`` (pandas and numpy);
* duckdb: ``analyses.ranking.run_unloaded`` (DuckDB reads the file itself, memory limit and
  spill folder as in ``workbench/engines/budget.py``);
* spark (with ``--spark``): the same on a Spark session on ``local[2]`` that the call starts
  (its time includes the session's start; its peak RSS and CPU are the Python driver's only,
  not the JVM's).

Time is the wall time of that call inside the child (interpreter start and imports excluded),
CPU the child's user + system seconds (all threads; imports included: the fairer figure on a
shared machine);
peak RSS is the child's high-water mark (``VmHWM``; not ``ru_maxrss``, which keeps the
parent's size at the fork: the parent holds the generated data); it includes Python with
pandas, about 0.15 GB.  Equal
says whether the per-query tables are the same (the same queries in the same order, counts
equal, every value within 1e-12) and the largest difference.  Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
DOCS_PER_QUERY = 100

CHILD = r"""
import json, resource, sys, time
sys.path.insert(0, {root!r})
from workbench.analyses import ranking as ra
from workbench.io import load_table
engine, run_path, qrels_path, out = sys.argv[1:5]
options = ra.Options(query="query", doc="doc", score="score", qrels=qrels_path, ks=(10, 100),
                     engine=engine)
start = time.perf_counter()
if engine == "memory":
    result = ra.run(load_table(run_path), options)
else:
    result = ra.run_unloaded([run_path], options)
seconds = time.perf_counter() - start
usage = resource.getrusage(resource.RUSAGE_SELF)
peak, cpu = usage.ru_maxrss * 1024, usage.ru_utime + usage.ru_stime
try:  # VmHWM starts anew at exec; ru_maxrss keeps the parent's RSS at the fork
    with open("/proc/self/status") as status:
        peak = next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmHWM:"))
except (OSError, StopIteration):
    pass
result.table("queries").frame.to_parquet(out)
print(json.dumps({{"seconds": seconds, "cpu": cpu, "peak": peak, "signature": result.signature}}))
"""


def generate(rows: int, folder: Path, seed: int = 29) -> dict[str, Path]:
    """The run (CSV and Parquet) and the qrels (CSV) of ``rows`` rows."""
    import pyarrow as pa
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    rng = np.random.default_rng(seed)
    n_q = rows // DOCS_PER_QUERY
    q = np.repeat(np.arange(n_q), DOCS_PER_QUERY)
    j = np.tile(np.arange(DOCS_PER_QUERY), n_q)
    doc = (q * 7919 + j * 104729) % 50_000_000
    score = np.round(rng.random(rows), 4)
    q_text = pa.array(np.char.add("q", q.astype(str)))
    d_text = pa.array(np.char.add("d", doc.astype(str)))
    run = pa.table({"query": q_text, "doc": d_text, "score": score})
    paths = {"csv": folder / "run.csv", "parquet": folder / "run.parquet",
             "qrels": folder / "qrels.csv"}
    pacsv.write_csv(run, paths["csv"])
    pq.write_table(run, paths["parquet"])
    judged = rng.random(rows) < 0.10
    jq, jd = q[judged], doc[judged]
    extra_q = np.repeat(np.arange(n_q), 2)
    extra_d = 60_000_000 + np.arange(extra_q.size)
    qrels = pa.table({
        "query": pa.array(np.char.add("q", np.r_[jq, extra_q].astype(str))),
        "doc": pa.array(np.char.add("d", np.r_[jd, extra_d].astype(str))),
        "relevance": rng.integers(0, 4, size=jq.size + extra_q.size)})
    pacsv.write_csv(qrels, paths["qrels"])
    return paths


def child(engine: str, run: Path, qrels: Path, out: Path) -> dict:
    code = CHILD.format(root=str(ROOT))
    proc = subprocess.run([sys.executable, "-c", code, engine, str(run), str(qrels), str(out)],
                          capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"{engine} on {run.name} failed:\n{proc.stderr}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def compare(a: pd.DataFrame, b: pd.DataFrame) -> tuple[bool, float]:
    if list(a.columns) != list(b.columns) or len(a) != len(b):
        return False, float("inf")
    worst = 0.0
    for column in a.columns:
        x, y = a[column].to_numpy(), b[column].to_numpy()
        if x.dtype.kind == "f":
            worst = max(worst, float(np.max(np.abs(x - y))) if x.size else 0.0)
        elif not np.array_equal(x.astype(str), y.astype(str)):
            return False, float("inf")
    return worst <= 1e-12, worst


def load_average() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "?"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, action="append",
                        help="rows of the run (repeatable; default 1M and 10M)")
    parser.add_argument("--quick", action="store_true", help="100,000 rows only")
    parser.add_argument("--spark", action="store_true",
                        help="also the Spark engine on local[2] (needs pyspark and Java 17)")
    args = parser.parse_args()
    engines = ("memory", "duckdb") + (("spark",) if args.spark else ())
    sizes = [100_000] if args.quick else (args.rows or [1_000_000, 10_000_000])
    import duckdb

    print(f"# bench_duckdb {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; "
          f"{platform.machine()} {os.cpu_count()} cores, {platform.system()}; Python "
          f"{platform.python_version()}, pandas {pd.__version__}, numpy {np.__version__}, "
          f"duckdb {duckdb.__version__}")
    print("\n| rows | file | engine | time | CPU | peak RSS | equal to memory | load avg |")
    print("|---|---|---|---|---|---|---|---|")
    for rows in sizes:
        with tempfile.TemporaryDirectory(prefix="bench-duckdb-") as tmp:
            folder = Path(tmp)
            paths = generate(rows, folder)
            for kind in ("csv", "parquet"):
                tables = {}
                for engine in engines:
                    out = folder / f"{engine}-{kind}.parquet"
                    load = load_average()
                    got = child(engine, paths[kind], paths["qrels"], out)
                    assert f"engine:{engine}" in got["signature"], got["signature"]
                    tables[engine] = pd.read_parquet(out)
                    if engine == "memory":
                        equal = "(reference)"
                    else:
                        same, worst = compare(tables["memory"], tables[engine])
                        equal = f"{'yes' if same else 'NO'} (max diff {worst:.1e})"
                    print(f"| {rows:,} | {kind} | {engine} | {got['seconds']:.2f} s | "
                          f"{got['cpu']:.1f} s | "
                          f"{got['peak'] / 1e9:.2f} GB | {equal} | {load} |", flush=True)


if __name__ == "__main__":
    main()
