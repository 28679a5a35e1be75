"""Writes the example inputs of the example release rules (deterministic; the files are committed).

* ``example_outcomes.csv``: one row per (system, item): answer pipeline ``v1`` (baseline) and
  ``v2`` (candidate) on 600 items in 150 conversations, with success, cost and latency.  Three
  items were not run for ``v2`` and two new ones were added, so the eval-set check has something
  to say.
* ``example_ranking.csv``: the retriever of each version on 30 queries (10 documents each) with
  graded relevance.

Run ``python resources/rules/generate.py`` to regenerate.
"""

from __future__ import annotations

import csv
import math
import random
from pathlib import Path

HERE = Path(__file__).resolve().parent


def write(name: str, header: list[str], rows: list[list]) -> None:
    with open(HERE / name, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(header)
        w.writerows(rows)


def outcomes(rng: random.Random) -> list[list]:
    rows = []
    n_items = 600
    for i in range(n_items):
        item = f"q{i + 1:04d}"
        conv = f"conv-{i // 4 + 1:03d}"
        hard = rng.random() < 0.2
        base_ok = rng.random() < (0.45 if hard else 0.88)
        # v2 agrees with v1 on most items; flips a few either way, more often for the better
        u = rng.random()
        if base_ok:
            cand_ok = u >= 0.03
        else:
            cand_ok = u < 0.22
        for system, ok, unit_cost, lat_scale in (("v1", base_ok, 0.0120, 1.00), ("v2", cand_ok, 0.0123, 1.03)):
            if system == "v2" and i in (17, 230, 411):
                continue  # not run for the candidate
            cost = unit_cost * (1.6 if hard else 1.0) * (0.9 + 0.2 * rng.random())
            latency = lat_scale * math.exp(rng.gauss(0.0, 0.35)) * (1.4 if hard else 1.0)
            rows.append([system, item, conv, int(ok), round(cost, 5), round(latency, 3)])
    for j in range(2):  # items added for the candidate only
        rows.append(["v2", f"q{n_items + j + 1:04d}", f"conv-{n_items // 4 + 1:03d}", 1, 0.0123, 0.95])
    return rows


def ranking(rng: random.Random) -> list[list]:
    rows = []
    for q in range(30):
        query = f"r{q + 1:02d}"
        grades = [rng.choice([0, 0, 0, 1, 1, 2, 3]) for _ in range(10)]
        for system, skill in (("v1", 1.0), ("v2", 0.7)):
            scores = [g * skill + rng.gauss(0.0, 1.1) for g in grades]
            for d, (g, s) in enumerate(zip(grades, scores)):
                rows.append([system, query, f"{query}-d{d + 1:02d}", round(s, 4), g])
    return rows


def main() -> None:
    rng = random.Random(20261001)
    write("example_outcomes.csv", ["system", "item_id", "conversation", "success", "cost", "latency_s"],
          outcomes(rng))
    write("example_ranking.csv", ["system", "query", "doc", "score", "relevance"], ranking(rng))


if __name__ == "__main__":
    main()
