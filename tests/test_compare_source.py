"""Compare on another analysis's per-unit table (workbench/analyses/compare_source.py), headless:
which results are sources, the numbers against scipy on per-unit scores computed here, the
source stated in the signature and the first note, and one sentence for a bad choice."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from conftest import table_of
from workbench.analyses import compare, compare_source as cs, ranking, text
from workbench.core.errors import OptionError


def _runs(systems=("bm25", "dense"), queries=16, extra_query_for=None):
    # more than 13 queries: scipy's Wilcoxon with ties enumerates signs below that (seconds per metric)
    rng = np.random.default_rng(3)
    rows = []
    for s, system in enumerate(systems):
        for q in range(queries + (1 if system == extra_query_for else 0)):
            for d in range(5):
                rel = int((d + q) % 5 < 2)
                rows.append((system, f"q{q}", f"d{d}", float(rng.random() + 0.2 * s * rel), rel))
    return pd.DataFrame(rows, columns=["system", "query", "doc", "score", "relevance"])


def _rr(frame, system):
    """Reciprocal rank per query, by hand: the first relevant document by score descending."""
    out = {}
    for q, g in frame[frame["system"] == system].groupby("query"):
        g = g.sort_values(["score", "doc"], ascending=[False, False])
        hits = np.flatnonzero(g["relevance"].to_numpy() >= 1)
        out[q] = 1.0 / (hits[0] + 1) if hits.size else 0.0
    return pd.Series(out)


def test_ranking_rr_against_scipy_and_the_source_is_stated():
    from scipy.stats import ttest_rel, wilcoxon

    frame = _runs()
    res = ranking.run(table_of(frame, "runs.csv"), ranking.Options(system="system"))
    assert cs.source_of(res) is cs.SOURCES["ranking"]
    assert cs.systems(res) == ["bm25", "dense"]
    assert cs.default_metric(res) == "ndcg@10"
    assert {"rr", "ap", "ndcg@10", "p@1"} <= set(cs.metrics(res))
    assert not {"retrieved", "relevant", "counted", "tied"} & set(cs.metrics(res))
    # dense as the baseline this time: the options' systems are used, not the file order
    out = cs.run(res, "rr", compare.Options(baseline_system="dense", candidate_system="bm25"))
    a, b = _rr(frame, "dense"), _rr(frame, "bm25")
    d = (b - a.reindex(b.index)).to_numpy()
    rec = {r["metric"]: r for r in out.records if r.get("from") == "dense"}
    assert rec["mean_diff"]["value"] == pytest.approx(d.mean(), abs=1e-12)
    assert rec["mean_diff"]["n"] == 16
    assert rec["t_test_p"]["value"] == pytest.approx(ttest_rel(b, a.reindex(b.index)).pvalue, rel=1e-9)
    # reciprocal ranks tie in exact arithmetic (1/2 - 1/3 = 1/3 - 1/6): differences rounded to 12 decimals
    assert rec["wilcoxon_p"]["value"] == pytest.approx(wilcoxon(np.round(d, 12)).pvalue, rel=1e-9)
    assert out.analysis == "compare"
    assert "|analysis:compare|metric:rr|from:ranking.queries|units:queries-in-both|source:[" in out.signature
    assert "ties:trec_eval" in out.signature  # the source's conventions travel with the metric
    assert out.notes[0].startswith("Metric: Reciprocal rank (per query; its mean is MRR) from the Ranking "
                                   "per-query table (column 'rr')")
    assert "n = 16 queries" in out.notes[0]
    # the readings speak of queries, and the changed units are queries, with no file line
    assert any("of 16 queries" in n for n in out.notes)
    changed = out.table("discordant").frame
    assert "query" in changed.columns and "line" not in changed.columns
    assert not [c for c in changed.columns if str(c).startswith("input:")]


def test_a_0_1_per_query_metric_gets_the_binary_family_unless_forced():
    res = ranking.run(table_of(_runs(queries=30), "runs.csv"), ranking.Options(system="system"))
    out = cs.run(res, "hit@1")
    assert "family:binary" in out.signature
    assert [r for r in out.records if r["metric"] == "sign_test_p"]
    forced = cs.run(res, "hit@1", compare.Options(scores="continuous"))
    assert "family:continuous" in forced.signature


def test_queries_of_one_system_only_are_left_out_and_counted():
    # an extra judged query retrieved by 'dense' only: trec_eval -c scores it 0 for bm25, so it is
    # in both systems' query sets; a query judged nowhere is in none
    frame = _runs(extra_query_for="dense")
    res = ranking.run(table_of(frame, "runs.csv"), ranking.Options(system="system", no_relevant="skip"))
    out = cs.run(res, "ndcg@10")
    per_query = res.table("queries").frame
    counted = per_query[per_query["counted"]]
    both = set(counted[counted.system == "bm25"]["query"]) & set(counted[counted.system == "dense"]["query"])
    n = next(r["n"] for r in out.records if r["metric"] == "mean_diff")
    assert n == len(both)


def test_what_is_not_a_source_and_bad_choices():
    one = ranking.run(table_of(_runs(systems=("bm25",)), "one.csv"), ranking.Options())
    assert cs.source_of(one) is None and cs.metrics(one) == []
    with pytest.raises(OptionError, match="fewer than two systems"):
        cs.run(one, "ndcg@10")
    two = ranking.run(table_of(_runs(), "runs.csv"), ranking.Options(system="system"))
    with pytest.raises(OptionError, match="has no metric 'ndcg@100'; its metrics are: ndcg@1"):
        cs.run(two, "ndcg@100")
    with pytest.raises(OptionError, match="must differ"):
        cs.run(two, "ndcg@10", compare.Options(baseline_system="bm25", candidate_system="bm25"))
    # text without an item id column cannot pair its systems' rows: no source
    rows = pd.DataFrame({"system": ["A", "A", "B", "B"], "prediction": ["a b", "c", "a", "c d"],
                         "reference": ["a b", "c d", "a b", "c d"]})
    no_ids = text.run(table_of(rows, "t.csv"), text.Options(system="system"))
    assert cs.source_of(no_ids) is None
    with_ids = text.run(table_of(rows.assign(id=["1", "2", "1", "2"]), "t.csv"),
                        text.Options(system="system", id="id"))
    assert cs.source_of(with_ids) is cs.SOURCES["text"]
    assert cs.default_metric(with_ids) == "token_f1"
    assert cs.metric_label("bleu") == "Sentence BLEU (0-100)"
