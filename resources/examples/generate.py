"""Writes the bundled example files: the seed document's worked cases as per-item data.

Run ``python resources/examples/generate.py`` to regenerate; the files are committed and the
tests check that the workbench reproduces the worked numbers from them.
"""

from __future__ import annotations

import csv
import random
from pathlib import Path

HERE = Path(__file__).resolve().parent


def write(name: str, header: list[str], rows: list[list]) -> None:
    with open(HERE / name, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(header)
        w.writerows(rows)


def main() -> None:
    rng = random.Random(20261130)

    # 200 items: candidate wins 14, loses 5, ties 181 (140 both pass, 41 both fail);
    # items come in conversations of two for the cluster bootstrap.
    cells = [(0, 1)] * 14 + [(1, 0)] * 5 + [(1, 1)] * 140 + [(0, 0)] * 41
    rng.shuffle(cells)
    write("paired_14_to_5.csv", ["item_id", "conversation", "baseline", "candidate"],
          [[f"item-{i + 1:03d}", f"conv-{i // 2 + 1:03d}", a, b] for i, (a, b) in enumerate(cells)])

    # [R, N, R, N, N] with both relevant documents retrieved; first relevant at ranks 1, 3, 2
    ranking = []
    for query, rels in (("q1", [1, 0, 1, 0, 0]), ("q2", [0, 0, 1, 0, 0]), ("q3", [0, 1, 0, 0, 0])):
        for pos, rel in enumerate(rels):
            ranking.append([query, f"{query}-d{pos + 1}", round(1.0 - 0.1 * pos, 2), rel])
    write("ranking_seed.csv", ["query", "doc", "score", "relevance"], ranking)
    write("ranking_graded.csv", ["query", "doc", "score", "relevance"],
          [["g1", "a", 0.9, 2], ["g1", "b", 0.8, 3], ["g1", "c", 0.7, 0]])

    # pass@k: one task, 10 attempts, 3 passes; the same as per-attempt rows
    write("passk_counts.csv", ["task", "n", "c"], [["refund-tool", 10, 3]])
    outcomes = [1, 0, 0, 1, 0, 0, 0, 1, 0, 0]
    write("passk_attempts.csv", ["task", "attempt", "success"],
          [["refund-tool", i + 1, s] for i, s in enumerate(outcomes)])

    # 900 English items at 90%, 100 Hindi items at 60%
    rows = []
    for lang, n, ok in (("English", 900, 810), ("Hindi", 100, 60)):
        flags = [1] * ok + [0] * (n - ok)
        rng.shuffle(flags)
        rows += [[lang, f] for f in flags]
    write("multilingual.csv", ["item_id", "language", "correct"],
          [[f"m{i + 1:04d}", lang, f] for i, (lang, f) in enumerate(rows)])

    # claims: conversation A 1 of 1 correct, B 2 of 10
    write("claims.csv", ["conversation", "claims", "correct_claims"], [["A", 1, 1], ["B", 10, 2]])

    # Simpson: old eval 200 easy (80%) + 50 hard (10%); new eval 40 easy (90%) + 160 hard (18.75%)
    rows = []
    for version, segment, n, ok in (("old", "easy", 200, 160), ("old", "hard", 50, 5),
                                    ("new", "easy", 40, 36), ("new", "hard", 160, 30)):
        rows += [[version, segment, f"{version}-{segment}-{i + 1:03d}", int(i < ok)] for i in range(n)]
    write("simpson.csv", ["version", "segment", "item_id", "correct"], rows)

    # cost: A 82% at 0.012/request, B 86% at 0.031/request, C 80% at 0.05 (dominated)
    rows = []
    for system, n, ok, cost, base_latency in (("A", 100, 82, 0.012, 0.8), ("B", 100, 86, 0.031, 1.4),
                                              ("C", 100, 80, 0.05, 2.1)):
        flags = [1] * ok + [0] * (n - ok)
        rng.shuffle(flags)
        for i, f in enumerate(flags):
            latency = round(base_latency * rng.lognormvariate(0.0, 0.35), 3)
            rows.append([system, f"{system}-{i + 1:03d}", f, cost, latency])
    write("cost_latency.csv", ["system", "request_id", "success", "cost", "latency_s"], rows)

    # text: the refund-window extraction example plus a few more
    write("text_extraction.csv", ["item_id", "prediction", "reference"], [
        ["t1", "refund within 7 days", "refund in 7 working days"],
        ["t2", "Refund in 7  working days", "refund in 7 working days"],
        ["t3", "You can cancel before dispatch.", "Cancellation is possible until the order ships."],
        ["t4", "14 days", "14 days"],
        ["t5", "the order ships in 2 days", "Order ships in 2 days."],
    ])


if __name__ == "__main__":
    main()
