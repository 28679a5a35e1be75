"""The Poisson bootstrap of hashed weights (issue 29): the same weights and replicate means in
numpy and in DuckDB's SQL (Spark's: tests/test_engine_spark.py), the hash as its docstring
specifies it (re-implemented here in plain Python integers), Poisson(1) draws, uncorrelated
replicates, and the ranking analysis's intervals from it, equal in every engine."""

from __future__ import annotations

import hashlib
import math

import numpy as np
import pandas as pd
import pytest

from workbench.metrics import poisson_bootstrap as pb

IDS = [f"q{i}" for i in range(500)] + ["東京", "", "00042", "42", "42.0", "a'b", "x y"]


def _plain_weight(unit: str, r: int, seed: int) -> int:
    """The docstring's recipe in Python integers (no numpy, no SQL)."""
    P = 2**31 - 1
    k = int(hashlib.md5(unit.encode("utf-8")).hexdigest()[:8], 16) % P
    x = (k ^ (((r + 1) * 950706376 + seed % P) % P)) % P
    for mult, inc in ((742938285, 12345), (1226874159, 67890), (62089911, 13579)):
        x = ((x ^ (x >> 15)) * mult + inc) % P
    u = (x ^ (x >> 15)) / 2.0**31
    w = 0
    for j in range(13):
        cdf = float(sum(math.exp(-1.0) / math.factorial(i) for i in range(j + 1)))
        if u >= cdf:
            w += 1
    return w


def test_the_hash_is_the_documented_recipe():
    keys = pb.unit_keys(IDS)
    w = pb.weights(keys, np.arange(20), 99)
    for i in (0, 1, 250, 499, 500, 501, 502, 503, 504, 505, 506):
        for r in (0, 7, 19):
            assert w[i, r] == _plain_weight(IDS[i], r, 99), (IDS[i], r)


def test_weights_and_means_equal_duckdbs_sql():
    duckdb = pytest.importorskip("duckdb")
    rng = np.random.default_rng(1)
    frame = pd.DataFrame({"id": IDS, "a": rng.random(len(IDS)), "b": rng.integers(0, 2, len(IDS)),
                          "n": rng.integers(1, 5, len(IDS))})
    con = duckdb.connect()
    con.register("units", frame)
    got = con.execute(f"SELECT id, reps.r, {pb.weight_sql(pb._sql_key('id', 'duckdb'), 'reps.r', 5, 'duckdb')} "
                      f"FROM units CROSS JOIN range(30) reps(r)").fetchall()
    want = pb.weights(pb.unit_keys(IDS), np.arange(30), 5)
    pos = {u: i for i, u in enumerate(IDS)}
    assert len(got) == len(IDS) * 30
    assert all(want[pos[u], r] == w for u, r, w in got)
    sql = con.execute(pb.means_sql("units", "id", ["a", "b"], resamples=300, seed=5)).fetchnumpy()
    ours = pb.replicate_means(frame[["a", "b"]].to_numpy(), IDS, resamples=300, seed=5)
    np.testing.assert_array_equal(sql["r"], np.arange(300))
    np.testing.assert_allclose(np.column_stack([sql["mean_0"], sql["mean_1"]]), ours, rtol=0, atol=1e-12)
    # a cluster's sum over its item count (the ratio of weighted sums)
    sql = con.execute(pb.means_sql("units", "id", ["a"], resamples=50, seed=5, denominator="n")).fetchnumpy()
    ours = pb.replicate_means(frame["a"].to_numpy(), IDS, resamples=50, seed=5, denominators=frame["n"])
    np.testing.assert_allclose(sql["mean_0"], ours[:, 0], rtol=0, atol=1e-12)


def test_draws_are_poisson_one_and_replicates_uncorrelated():
    from scipy import stats

    keys = pb.unit_keys([f"unit-{i}" for i in range(10_000)])
    w = pb.weights(keys, np.arange(100), 2026)  # a million draws
    counts = np.bincount(w.ravel(), minlength=8)[:8].astype(float)
    pmf = np.array([math.exp(-1) / math.factorial(j) for j in range(7)])
    expected = np.r_[pmf, 1 - pmf.sum()] * w.size
    observed = np.r_[counts[:7], w.size - counts[:7].sum()]
    assert stats.chisquare(observed, expected).pvalue > 1e-4
    assert abs(w.mean() - 1) < 0.005 and abs(w.var() - 1) < 0.01
    corr = np.corrcoef(w.T.astype(float))  # replicate by replicate
    off = corr[~np.eye(100, dtype=bool)]
    assert np.abs(off).max() < 0.05  # 10,000 units: the sampling error of r is 0.01
    assert abs(np.corrcoef(w[:-1].ravel(), w[1:].ravel())[0, 1]) < 0.01  # neighbouring ids
    # another seed gives other weights
    assert (pb.weights(keys[:100], np.arange(10), 2027) != w[:100, :10]).mean() > 0.5


def test_ranking_interval_from_the_hashed_bootstrap_in_every_engine(tmp_path):
    pytest.importorskip("duckdb")
    from workbench.analyses import ranking as ra
    from workbench.metrics.significance import percentile_interval

    rng = np.random.default_rng(3)
    rows = []
    for q in range(60):
        for d in range(8):
            rows.append({"query": f"{q:03d}", "doc": f"d{d}", "score": float(rng.integers(0, 5)),
                         "relevance": int(rng.integers(0, 3))})
    path = tmp_path / "run.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    from workbench.io import load_table

    table = load_table(str(path))
    options = dict(ks=(5,), ci_bootstrap="poisson-hash", ci_resamples=500, ci_seed=11)
    memory = ra.run(table, ra.Options(engine="memory", **options))
    duck = ra.run(table, ra.Options(engine="duckdb", **options))
    assert "poisson-hash-bootstrap-percentile-95,B=500,seed=11" in memory.signature
    rec = memory.find("ndcg@5")[0]
    assert rec["ci_method"].startswith("poisson-hash-bootstrap-percentile-95")
    assert duck.find("ndcg@5")[0]["ci_low"] == rec["ci_low"]  # one stream, whatever the engine
    assert duck.find("ndcg@5")[0]["ci_high"] == rec["ci_high"]
    # by hand: the percentile interval of the replicate means over the per-query table
    per_query = memory.table("queries").frame
    counted = per_query[per_query["counted"]]
    means = pb.replicate_means(counted["ndcg@5"].to_numpy(), counted["query"].tolist(), resamples=500,
                               seed=11)[:, 0]
    low, high = percentile_interval(means[~np.isnan(means)], 0.95)
    assert rec["ci_low"] == pytest.approx(low, abs=1e-12) and rec["ci_high"] == pytest.approx(high, abs=1e-12)
    multinomial = ra.run(table, ra.Options(engine="memory", ks=(5,), ci_resamples=500, ci_seed=11))
    assert multinomial.find("ndcg@5")[0]["ci_low"] != rec["ci_low"]
    assert rec["ci_low"] <= rec["value"] <= rec["ci_high"]


def test_bad_bootstrap_name_is_one_sentence():
    from workbench.analyses import ranking as ra
    from workbench.core.errors import OptionError

    with pytest.raises(OptionError, match="ci_bootstrap"):
        ra._check(ra.Options(ci_bootstrap="gaussian"))
