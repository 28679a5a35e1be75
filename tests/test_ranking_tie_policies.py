"""The pessimistic and optimistic tie policies against pytrec_eval: trec_eval breaks score ties
by document id descending, so naming the relevant documents to sort last (or first) reproduces
each policy."""

import os
import tempfile

import numpy as np
import pandas as pd
import pytest

from workbench.analyses import ranking
from workbench.io import load_table

pytrec_eval = pytest.importorskip("pytrec_eval")


def _run(frame, ties):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "run.csv")
        frame.to_csv(path, index=False)
        return ranking.run(load_table(path), ranking.Options(ties=ties, ks=(1, 3)))


@pytest.mark.parametrize("ties", ["pessimistic", "optimistic"])
def test_tie_policy_matches_trec_eval_with_ids_that_sort_that_way(ties):
    rng = np.random.default_rng(7)
    rows = []
    for qi in range(6):
        grades = rng.integers(0, 3, 6)
        scores = rng.integers(0, 3, 6).astype(float)  # many ties
        for di, (g, s) in enumerate(zip(grades, scores)):
            rows.append({"query": f"q{qi}", "doc": f"d{qi}-{di}", "score": s, "relevance": int(g)})
    frame = pd.DataFrame(rows)
    # trec_eval: ties by document id descending.  Pessimistic = relevant (higher grade) last, so
    # give higher grades smaller ids; optimistic the reverse.
    sign = 1 if ties == "pessimistic" else -1
    grade_rank = frame.groupby("query")["relevance"].rank(method="first", ascending=sign < 0)
    frame["doc"] = [f"{q}-{int(r):03d}" for q, r in zip(frame["query"], grade_rank)]
    qrel = {q: {d: int(g) for d, g in zip(f["doc"], f["relevance"])} for q, f in frame.groupby("query")}
    run = {q: {d: float(s) for d, s in zip(f["doc"], f["score"])} for q, f in frame.groupby("query")}
    ref = pytrec_eval.RelevanceEvaluator(qrel, {"ndcg_cut_3", "P_3", "recip_rank"}).evaluate(run)
    res = _run(frame.sample(frac=1, random_state=1), ties)  # file order must not matter
    assert res.value("ndcg@3") == pytest.approx(np.mean([v["ndcg_cut_3"] for v in ref.values()]), abs=1e-9)
    assert res.value("p@3") == pytest.approx(np.mean([v["P_3"] for v in ref.values()]), abs=1e-9)
    assert res.value("mrr") == pytest.approx(np.mean([v["recip_rank"] for v in ref.values()]), abs=1e-9)
    assert f"ties:{ties}" in res.signature


def test_pessimistic_below_optimistic():
    frame = pd.DataFrame({"query": ["q"] * 3, "doc": ["a", "b", "c"], "score": [1.0, 1.0, 1.0],
                          "relevance": [0, 1, 0]})
    lo, hi = _run(frame, "pessimistic"), _run(frame, "optimistic")
    assert lo.value("mrr") == pytest.approx(1 / 3)
    assert hi.value("mrr") == pytest.approx(1.0)
