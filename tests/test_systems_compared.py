"""Ranking and Text with several systems: the "Systems compared" table and records.

References: pytrec-eval-terrier per-query nDCG/AP/RR + scipy.stats.ttest_rel and
permutation_test; statsmodels' Holm; sacrebleu's own paired bootstrap and approximate
randomization on the common items in the files' order (the workbench resamples them in natural
id order, which is that order for ids written in sequence).
"""

from __future__ import annotations

import random

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from workbench.analyses import ranking, text
from workbench.io import LoadedTable


def table(frame: pd.DataFrame) -> LoadedTable:
    return LoadedTable(frame=frame.reset_index(drop=True), path="<memory>")


@pytest.fixture(scope="module")
def runs():
    rng = np.random.default_rng(5)
    rows = []
    for system, lift in (("bm25", 0.0), ("dense", 0.35), ("hybrid", 0.05)):
        for q in range(80):
            if system == "hybrid" and q >= 75:
                continue  # hybrid retrieves nothing for 5 queries
            for d in range(12):
                rel = int(d < 3) + int(d == 0)
                rows.append((system, f"q{q}", f"d{d}", float(rng.random() + lift * rel), rel))
    return pd.DataFrame(rows, columns=["system", "query", "doc", "score", "relevance"])


def per_query_reference(frame, system):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels = {}
    for q, d, r in frame[["query", "doc", "relevance"]].drop_duplicates().itertuples(index=False):
        qrels.setdefault(q, {})[d] = int(r)
    run = {}
    for q, d, s in frame[frame.system == system][["query", "doc", "score"]].itertuples(index=False):
        run.setdefault(q, {})[d] = float(s)
    ev = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10", "map", "recip_rank"})
    return ev.evaluate(run)


def test_ranking_systems_compared_against_pytrec_eval_and_scipy(runs):
    res = ranking.run(table(runs), ranking.Options(system="system", query="query", doc="doc", score="score",
                                                   relevance="relevance", ks=(10,)))
    sc = res.table("systems_compared").frame
    assert set(zip(sc["from"], sc["to"])) == {("bm25", "dense"), ("bm25", "hybrid"), ("dense", "hybrid")}
    assert "systems-compared:[queries:common" in res.signature
    ref = {s: per_query_reference(runs, s) for s in ("bm25", "dense", "hybrid")}
    # hybrid's 5 missed queries are judged (pooled judgments), so they score 0 (trec_eval -c)
    # and all 80 queries are common to every pair
    for a, b, n_common in (("bm25", "dense", 80), ("bm25", "hybrid", 80)):
        common = sorted(set(ref[a]) | set(ref[b]))
        assert len(common) == n_common
        for metric, key in (("ndcg@10", "ndcg_cut_10"), ("map", "map"), ("mrr", "recip_rank")):
            x = np.array([ref[a].get(q, {}).get(key, 0.0) for q in common])
            y = np.array([ref[b].get(q, {}).get(key, 0.0) for q in common])
            rec = res.find(f"diff:{metric}", from_=a, to=b)[0]
            assert rec["n"] == n_common
            assert rec["value"] == pytest.approx((y - x).mean(), rel=1e-9, abs=1e-12)
            assert res.value(f"t_test_p:{metric}", from_=a, to=b) == pytest.approx(
                stats.ttest_rel(y, x).pvalue, rel=1e-6, abs=1e-300)
            p = res.value(f"randomization_p:{metric}", from_=a, to=b)
            if p > 0.001:
                perm = stats.permutation_test((y, x), lambda u, v, axis=-1: np.mean(u - v, axis=axis),
                                              permutation_type="samples", n_resamples=20_000,
                                              vectorized=True, rng=np.random.default_rng(1))
                assert abs(p - perm.pvalue) < 4 * np.sqrt(p * (1 - p) * (1 / 10_000 + 1 / 20_000)) + 3e-4
    # Holm across the three pairs of a metric
    multitest = pytest.importorskip("statsmodels.stats.multitest")
    raw = [res.value("randomization_p:ndcg@10", from_=a, to=b)
           for a, b in (("bm25", "dense"), ("bm25", "hybrid"), ("dense", "hybrid"))]
    adj = [res.value("p_adjusted:ndcg@10", from_=a, to=b)
           for a, b in (("bm25", "dense"), ("bm25", "hybrid"), ("dense", "hybrid"))]
    np.testing.assert_allclose(adj, multitest.multipletests(raw, method="holm")[1], rtol=1e-12)
    assert any("over the queries both systems were evaluated on (the queries counted in both" in n
               for n in res.notes)


def test_ranking_single_system_has_no_systems_compared(runs):
    one = runs[runs.system == "bm25"].drop(columns="system")
    res = ranking.run(table(one), ranking.Options(query="query", doc="doc", score="score",
                                                  relevance="relevance", ks=(10,)))
    assert "systems_compared" not in [t.name for t in res.tables]
    assert "systems-compared" not in res.signature


WORDS = "the cat sat on a mat dog ran fast slow red blue green house tree car".split()


@pytest.fixture(scope="module")
def outputs():
    rnd = random.Random(9)
    refs = [" ".join(rnd.choices(WORDS, k=rnd.randint(2, 14))) for _ in range(160)]
    rows = []
    for system, p in (("A", 0.4), ("B", 0.34)):
        for i, r in enumerate(refs):
            if system == "B" and i % 40 == 0:
                continue  # B lacks 4 items
            pred = " ".join(w if rnd.random() > p else rnd.choice(WORDS) for w in r.split())
            rows.append((f"item{i}", system, pred, r))
    return pd.DataFrame(rows, columns=["id", "system", "prediction", "reference"]).sample(frac=1.0, random_state=2)


def test_text_corpus_tests_equal_sacrebleu_on_the_common_items(outputs):
    from sacrebleu import significance as sig
    from sacrebleu.metrics import BLEU, CHRF

    res = text.run(table(outputs), text.Options(system="system", id="id"))
    # the file's order of the ids (item0, item1, ..., item159): the workbench resamples the common
    # items in natural id order, which is this order, as sacrebleu sees the two files
    common = [f"item{i}" for i in range(160) if i % 40]
    assert len(common) == 156
    by = {s: outputs[outputs.system == s].set_index("id") for s in ("A", "B")}
    refs = by["A"].loc[common, "reference"].tolist()
    hyp_a, hyp_b = by["A"].loc[common, "prediction"].tolist(), by["B"].loc[common, "prediction"].tolist()
    for name, cls in (("bleu", BLEU), ("chrf", CHRF)):
        m = cls()
        bl = m._extract_corpus_statistics(hyp_a, [refs])
        info = {name: (bl, sig.Result(m._aggregate_and_compute(bl).score))}
        bs = sig._paired_bs_test(info, "B", hyp_b, [refs], {name: cls()}, n_samples=1000, seed=12345)[1][name]
        ar = sig._paired_ar_test(info, "B", hyp_b, [refs], {name: cls()}, n_samples=10_000, seed=12345)[1][name]
        assert res.value(f"paired_bs_p:{name}", from_="A", to="B") == pytest.approx(bs.p_value, rel=1e-12)
        assert res.value(f"paired_ar_p:{name}", from_="A", to="B") == pytest.approx(ar.p_value, rel=1e-12)
        rec = res.find(f"diff:{name}", from_="A", to="B")[0]
        assert rec["value"] == pytest.approx(bs.score - info[name][1].score, rel=1e-9)
        assert rec["n"] == 156 and rec["ci_low"] < rec["value"] < rec["ci_high"]
    # per-item metrics: token F1 through scipy
    items = res.table("items").frame
    f1 = {s: items[items.system == s].set_index("item")["token_f1"] for s in ("A", "B")}
    x, y = f1["A"].loc[common].to_numpy(), f1["B"].loc[common].to_numpy()
    assert res.value("t_test_p:token_f1", from_="A", to="B") == pytest.approx(stats.ttest_rel(y, x).pvalue,
                                                                              rel=1e-9)
    assert res.value("diff:token_f1", from_="A", to="B") == pytest.approx((y - x).mean(), rel=1e-12)
    assert "corpus:sacrebleu-paired-bs:1000+ar:10000" in res.signature


def test_text_without_ids_says_why_there_is_no_pairing(outputs):
    frame = outputs.drop(columns="id")
    res = text.run(table(frame), text.Options(system="system", prediction="prediction", reference="reference"))
    assert any("needs an item id column" in n for n in res.notes)
    assert len(res.table("systems_compared").frame) == 0


def test_cost_differences_have_bootstrap_intervals_p95_included():
    from workbench.analyses import cost

    rng = np.random.default_rng(3)
    frames = [pd.DataFrame({"system": name, "success": (rng.random(n) < 0.8).astype(int),
                            "cost": rng.gamma(4, price / 4, n), "latency": rng.lognormal(mu, 0.5, n)})
              for name, n, price, mu in (("small", 300, 0.01, 0.0), ("large", 250, 0.03, 0.4))]
    frame = pd.concat(frames, ignore_index=True)
    res = cost.run(table(frame), cost.Options(system="system", success="success", cost="cost", latency="latency"))
    s, lg = frames[0], frames[1]
    rec = res.find("diff:latency_p95", from_="small", to="large")[0]
    assert rec["value"] == pytest.approx(np.percentile(lg.latency, 95) - np.percentile(s.latency, 95), rel=1e-12)
    # the interval is that of an independent two-sample bootstrap, within Monte Carlo error
    ref_rng = np.random.default_rng(99)
    ref = [np.percentile(ref_rng.choice(lg.latency.to_numpy(), lg.shape[0]), 95)
           - np.percentile(ref_rng.choice(s.latency.to_numpy(), s.shape[0]), 95) for _ in range(3000)]
    width = np.subtract(*np.percentile(ref, [97.5, 2.5]))
    assert (rec["ci_low"], rec["ci_high"]) == pytest.approx(tuple(np.percentile(ref, [2.5, 97.5])), abs=0.12 * width)
    c = res.find("diff:cost_per_request", from_="small", to="large")[0]
    assert c["value"] == pytest.approx(lg.cost.mean() - s.cost.mean(), rel=1e-12)
    assert c["ci_low"] < c["value"] < c["ci_high"]
    assert "diffs:[bs:2000" in res.signature
    # row order does not matter
    again = cost.run(table(frame.sample(frac=1.0, random_state=1)),
                     cost.Options(system="system", success="success", cost="cost", latency="latency"))
    assert again.find("diff:latency_p95", from_="small", to="large")[0] == rec
