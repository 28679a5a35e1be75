#!/usr/bin/env python
"""Write a large generated ranking run as Parquet with DuckDB (no pandas: 100M rows in about
30 s and 1 GB of disk), for timing ``workbench ranking RUN --engine duckdb`` by hand::

    .venv/bin/python tests/benchmarks/make_large_run.py 100000000 /tmp/run100m.parquet
    /usr/bin/time -v .venv/bin/workbench ranking /tmp/run100m.parquet --query query --doc doc \
        --score score --relevance rel --k 10,100 --engine duckdb --json > /tmp/out.json

Rows ``i = 0 .. N-1``: query ``q{i // 100}`` (100 documents each), document
``d{(i // 100) * 7919 + (i % 100) * 104729 mod 50,000,000}`` (distinct within a query), a score
with four decimals from a hash of ``i`` (so scores tie and the document id breaks the tie), and
a relevance grade 0-3 on about a tenth of the rows (empty elsewhere: unjudged).
"""

from __future__ import annotations

import argparse


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("rows", type=int)
    parser.add_argument("out")
    args = parser.parse_args()
    import duckdb

    con = duckdb.connect()
    out = args.out.replace("'", "''")
    con.execute(f"""COPY (
      SELECT 'q' || (i // 100) AS query,
             'd' || ((i // 100) * 7919 + (i % 100) * 104729) % 50000000 AS doc,
             round(hash(i) % 10000 / 10000.0, 4) AS score,
             CASE WHEN hash(i * 3 + 1) % 10 = 0 THEN (hash(i * 7 + 5) % 4)::INTEGER END AS rel
      FROM range({int(args.rows)}) t(i)) TO '{out}' (FORMAT parquet)""")


if __name__ == "__main__":
    main()
