"""Writes the bundled example files: the seed document's worked cases as per-item data, and
example sessions (``*.wbsession.json``) that reopen some of them with their analyses' options
and, for the 14-to-5 split, a release rule registered before any result was seen.

Run ``python resources/examples/generate.py`` from the repository root to regenerate; the files
are committed and the tests check that the workbench reproduces the worked numbers from them and
that each session opens and runs in the window and in ``workbench report``.
"""

from __future__ import annotations

import csv
import hashlib
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]


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
    write_judge_and_rubric()
    write_runs()
    write_repeats()
    write_slices()
    write_sessions()


def write_slices() -> None:
    """2,000 questions in five languages: the candidate wins 82 more than it loses overall
    (+4.1 points) but loses on Hindi (6 wins, 25 losses of 210 items: -9.0 points).  Per
    language: (items, candidate-only passes, baseline-only passes, both pass); the rest fail both.
    Each question also has a length (for quantile bins) and a seen-in-training flag."""
    rng = random.Random(20261206)
    cells = {"en": (900, 95, 45, 620), "de": (400, 45, 25, 250), "fr": (300, 35, 20, 180),
             "hi": (210, 6, 25, 110), "ja": (190, 30, 14, 100)}
    rows = []
    for lang, (n, wins, losses, both) in cells.items():
        pairs = [(0, 1)] * wins + [(1, 0)] * losses + [(1, 1)] * both + [(0, 0)] * (n - wins - losses - both)
        rng.shuffle(pairs)
        rows += [(lang, a, b) for a, b in pairs]
    rng.shuffle(rows)
    write("slices_languages.csv", ["item_id", "language", "length", "seen_in_training", "baseline", "candidate"],
          [[f"q{i + 1:04d}", lang, int(40 + rng.lognormvariate(5.0, 0.8)), int(rng.random() < 0.08), a, b]
           for i, (lang, a, b) in enumerate(rows)])


def write_repeats() -> None:
    """Two models, 5 epochs of 120 questions each: many questions flip from epoch to epoch."""
    rng = random.Random(20261204)
    rate = [rng.betavariate(0.7, 0.6) for _ in range(120)]
    rows = []
    for model, lift in (("model-a", 0.0), ("model-b", 0.05)):
        for i in range(120):
            for epoch in range(1, 6):
                rows.append([model, f"q{i + 1:03d}", epoch, int(rng.random() < min(1.0, rate[i] + lift))])
    write("repeats_epochs.csv", ["model", "sample_id", "epoch", "correct"], rows)


def write_runs() -> None:
    """Six nightly runs of one assistant on 150 questions: the item set grows by 10 questions on
    the fourth night, the last two runs gain about 8 points."""
    rng = random.Random(20261203)
    ease = [rng.random() for _ in range(160)]
    rows = []
    for night, (date, lift) in enumerate((("2026-11-25", 0.0), ("2026-11-26", 0.01), ("2026-11-27", -0.01),
                                          ("2026-11-28", 0.0), ("2026-11-29", 0.08), ("2026-11-30", 0.09))):
        n = 150 if night < 3 else 160
        for i in range(n):
            ok = int(rng.random() < min(1.0, max(0.0, 0.35 + 0.5 * ease[i] + lift)))
            rows.append([f"nightly-{date}", date, f"q{i + 1:03d}", ok])
    write("runs_nightly.csv", ["run", "date", "question", "correct"], rows)


def write_judge_and_rubric() -> None:
    """A judge's verdicts on 400 answers, 105 of them also labelled by a person with the
    published kappa table (judge x person: FAIL/FAIL 31, FAIL/PASS 12, PASS/FAIL 4, PASS/PASS
    58: kappa 0.676, 95% CI 0.532 to 0.820), the judge passing 140 of the 400; and a rubric of
    four weighted criteria scored for two versions of an assistant on 120 questions."""
    rng = random.Random(20261202)
    cells = [("FAIL", "FAIL")] * 31 + [("FAIL", "PASS")] * 12 + [("PASS", "FAIL")] * 4 + [("PASS", "PASS")] * 58
    rest = ["PASS"] * (140 - 62) + ["FAIL"] * (400 - 105 - (140 - 62))
    rows = [(j, h) for j, h in cells] + [(j, "") for j in rest]
    rng.shuffle(rows)
    write("judge_labels.csv", ["answer_id", "judge", "human"],
          [[f"a{i + 1:03d}", j, h] for i, (j, h) in enumerate(rows)])

    criteria = [("correct", 3, "The answer is factually right"),
                ("cites_source", 2, "It cites the policy page it relies on"),
                ("complete", 2, "It answers every part of the question"),
                ("concise", 1, "Under 120 words")]
    base_rates = {"correct": 0.78, "cites_source": 0.35, "complete": 0.70, "concise": 0.60}
    lift = {"correct": 0.02, "cites_source": 0.30, "complete": 0.03, "concise": -0.05}
    rows = []
    for i in range(120):
        ease = rng.random()
        base = {c: rng.random() < base_rates[c] + 0.2 * (ease - 0.5) for c, _, _ in criteria}
        for version in ("v1", "v2"):
            out = []
            for c, _, _ in criteria:
                v = base[c]
                if version == "v2":
                    flip = rng.random()
                    if lift[c] > 0 and not v and flip < lift[c] / (1 - base_rates[c]):
                        v = True
                    elif lift[c] < 0 and v and flip < -lift[c] / base_rates[c]:
                        v = False
                cell = "yes" if v else "no"
                if rng.random() < 0.01:
                    cell = ""  # a verdict the grader did not give
                out.append(cell)
            rows.append([version, f"q{i + 1:03d}", *out])
    write("rubric_answers.csv", ["version", "question", *[c for c, _, _ in criteria]], rows)
    write("rubric_weights.csv", ["criterion", "weight", "description"], [list(c) for c in criteria])


#: When the example rule counts as registered (before any result: results_first_shown_at unset).
REGISTERED_AT = "2026-11-30T09:00:00+00:00"


def write_sessions() -> None:
    """Example sessions, written with the workbench's own Session and analysis options so that
    they are exactly what File > Save session writes (input paths relative to this folder)."""
    sys.path.insert(0, str(ROOT))
    from workbench.analyses import REGISTRY
    from workbench.core.session import Session, save_session, sha256_text

    def session(csv_name: str, roles: dict[str, str], panels: dict, rule: str | None = None):
        s = Session(input_path=csv_name,
                    input_sha256=hashlib.sha256((HERE / csv_name).read_bytes()).hexdigest(),
                    roles=roles, current_panel="rule" if rule else next(iter(panels)))
        for name, options in panels.items():
            s.set_options(name, REGISTRY[name].Options(**options))
        if rule is not None:
            text = (ROOT / "resources" / "rules" / rule).read_text(encoding="utf-8")
            s.rule_text, s.rule_sha256, s.rule_registered_at = text, sha256_text(text), REGISTERED_AT
        save_session(s, HERE / (Path(csv_name).stem + ".wbsession.json"))

    # the 14-to-5 split, clustered by conversation, with the seed rule registered beforehand
    session("paired_14_to_5.csv",
            {"item_id": "item", "conversation": "cluster", "baseline": "baseline",
             "candidate": "candidate"},
            {"compare": dict(baseline="baseline", candidate="candidate", item="item_id",
                             cluster="conversation")},
            rule="seed_14_to_5.toml")
    # graded relevance with the exponential gain and nDCG at 3 only: a non-default convention
    session("ranking_graded.csv",
            {"query": "query", "doc": "doc", "score": "score", "relevance": "relevance"},
            {"ranking": dict(query="query", doc="doc", score="score", relevance="relevance",
                             ks=(3,), gain="exponential")})
    # cost and latency with nearest-rank percentiles
    session("cost_latency.csv",
            {"system": "system", "request_id": "item", "success": "success", "cost": "cost",
             "latency_s": "latency"},
            {"cost": dict(system="system", success="success", cost="cost", latency="latency_s",
                          percentile_method="nearest_rank")})


if __name__ == "__main__":
    main()
