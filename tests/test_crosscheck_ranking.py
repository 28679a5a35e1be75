"""Cross-checks of the ranking metrics against pytrec_eval (trec_eval) and ranx.

Every comparison runs on generated, seeded data: ~50 queries of varying depth, graded
relevance 0-3, unjudged retrieved documents, and judged relevant documents that were never
retrieved (given through a qrels file so that they count in recall, MAP and the ideal DCG).

Conventions compared (see workbench/metrics/ranking.py):

* trec_eval ``P_k``/``recall_k``/``ndcg_cut_k``/``recip_rank``/``map``  == workbench
  ``p@k``/``r@k``/``ndcg@k`` (linear gain = grade)/``mrr``/``map``;
* ranx ``precision@k``/``recall@k``/``hit_rate@k``/``ndcg@k``/``mrr``/``map`` == the same, and
  ranx ``ndcg_burges@k`` == the workbench's exponential gain (2^grade - 1);
* trec_eval breaks score ties by document id descending, which is the workbench's
  ``ties='trec_eval'``.
"""

from __future__ import annotations

import json
import os
import tempfile
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytrec_eval = pytest.importorskip("pytrec_eval")
ranx = pytest.importorskip("ranx")

from workbench.analyses import ranking as ra  # noqa: E402
from workbench.cli.main import main as cli_main  # noqa: E402
from workbench.io import LoadedTable  # noqa: E402

KS = (1, 3, 5, 10)
RTOL, ATOL = 1e-9, 1e-12
TREC_MEASURES = {"P.1,3,5,10", "recall.1,3,5,10", "ndcg_cut.1,3,5,10", "recip_rank", "map"}
# workbench per-query column -> trec_eval measure
TREC_COLUMNS = {
    **{f"p@{k}": f"P_{k}" for k in KS},
    **{f"r@{k}": f"recall_{k}" for k in KS},
    **{f"ndcg@{k}": f"ndcg_cut_{k}" for k in KS},
    "rr": "recip_rank",
    "ap": "map",
}
# workbench headline record -> per-query column
RECORD_OF_COLUMN = {**{c: c for c in TREC_COLUMNS if "@" in c}, "rr": "mrr", "ap": "map"}


# --------------------------------------------------------------------------- data


def generate(seed: int, *, n_queries: int = 50, max_depth: int = 25, ties: bool = False,
             doc_pool: int = 3000, systems: tuple[str | None, ...] = (None,),
             min_relevant_grade: int = 1, grade_p=None):
    """A random run and its qrels.

    Returns ``(run_rows, qrels_rows)``: run rows are ``(system, query, doc, score)``, qrels rows
    ``(query, doc, grade)``.  Every query gets at least one judged document with
    grade >= ``min_relevant_grade``; some judged documents are never retrieved, some retrieved
    documents are unjudged.  Without ``ties`` the scores of one query are distinct.
    """
    rng = np.random.default_rng(seed)
    run_rows, qrels_rows = [], []
    for qi in range(n_queries):
        q = f"q{qi}"
        n_unretrieved = int(rng.integers(0, 6))
        pool_size = max_depth + n_unretrieved
        docs = [f"d{d}" for d in rng.choice(doc_pool, size=pool_size, replace=False)]
        judged: dict[str, int] = {}
        for d in docs:
            if rng.random() < 0.7:
                judged[d] = int(rng.choice(4, p=grade_p))
        if not any(g >= min_relevant_grade for g in judged.values()):
            judged[docs[int(rng.integers(pool_size))]] = int(rng.integers(min_relevant_grade, 4))
        qrels_rows += [(q, d, g) for d, g in judged.items()]
        for system in systems:
            depth = int(rng.integers(1, max_depth + 1))
            retrieved = list(rng.choice(pool_size - n_unretrieved, size=depth, replace=False))
            if ties:
                scores = rng.integers(0, 4, size=depth).astype(float)
            else:
                scores = rng.choice(10**7, size=depth, replace=False) / 1000.0
            run_rows += [(system, q, docs[i], float(s)) for i, s in zip(retrieved, scores)]
        # docs[max_depth:] (the last n_unretrieved of the pool) are never retrieved
    return run_rows, qrels_rows


def run_frame(run_rows) -> pd.DataFrame:
    frame = pd.DataFrame(run_rows, columns=["system", "query", "doc", "score"])
    if frame["system"].isna().all():
        frame = frame.drop(columns="system")
    return frame


def qrels_frame(qrels_rows) -> pd.DataFrame:
    return pd.DataFrame(qrels_rows, columns=["query", "doc", "relevance"])


def as_trec(run_rows, qrels_rows, system=None):
    qrels: dict[str, dict[str, int]] = {}
    for q, d, g in qrels_rows:
        qrels.setdefault(q, {})[d] = int(g)
    run: dict[str, dict[str, float]] = {}
    for s, q, d, score in run_rows:
        if s == system:
            run.setdefault(q, {})[d] = float(score)
    return qrels, run


def workbench(run_rows, qrels_path, **options) -> ra.AnalysisResult:
    frame = run_frame(run_rows)
    opts = {"query": "query", "doc": "doc", "score": "score", "qrels": str(qrels_path), "ks": KS}
    if "system" in frame:
        opts["system"] = "system"
    opts.update(options)
    return ra.run(LoadedTable(frame=frame, path="<memory>"), ra.Options(**opts))


def per_query(result, system=None) -> pd.DataFrame:
    frame = result.table("queries").frame
    if system is not None:
        frame = frame[frame["system"] == system]
    return frame.set_index("query")


def trec_evaluate(qrels, run, relevance_level: int = 1, measures=TREC_MEASURES):
    return pytrec_eval.RelevanceEvaluator(qrels, set(measures),
                                          relevance_level=relevance_level).evaluate(run)


def assert_matches_trec(frame: pd.DataFrame, trec: dict, columns=TREC_COLUMNS):
    """Per-query values of the workbench table equal trec_eval's, query by query."""
    assert trec, "trec_eval evaluated no query"
    for column, measure in columns.items():
        queries = sorted(trec)
        ours = frame.loc[queries, column].to_numpy(dtype=float)
        theirs = np.array([trec[q][measure] for q in queries])
        np.testing.assert_allclose(ours, theirs, rtol=RTOL, atol=ATOL,
                                   err_msg=f"{column} vs trec_eval {measure}")


# --------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    """50 queries, distinct scores, every query with a relevant document (seeded)."""
    run_rows, qrels_rows = generate(20240611)
    path = tmp_path_factory.mktemp("ranking") / "qrels.csv"
    qrels_frame(qrels_rows).to_csv(path, index=False)
    return run_rows, qrels_rows, path


@pytest.fixture(scope="module")
def ranx_scores(dataset):
    """ranx per-query scores for the dataset (one JIT warm-up for the module)."""
    run_rows, qrels_rows, _ = dataset
    qrels, run = as_trec(run_rows, qrels_rows)
    metrics = ([f"precision@{k}" for k in KS] + [f"recall@{k}" for k in KS]
               + [f"hit_rate@{k}" for k in KS] + [f"ndcg@{k}" for k in KS]
               + [f"ndcg_burges@{k}" for k in KS] + [f"mrr@{k}" for k in KS] + ["mrr", "map"]
               + ["precision@5-l2", "recall@5-l2", "mrr-l2", "map-l2"])
    rq, rr = ranx.Qrels(qrels), ranx.Run(run)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        means = ranx.evaluate(rq, rr, metrics, make_comparable=True)
    per = {m: dict(rr.scores[m]) for m in metrics}
    return means, per


# --------------------------------------------------------------------------- pytrec_eval


def test_generated_data_has_the_hard_cases(dataset):
    """The generator really produces unretrieved relevant docs, unjudged docs and depth < 10."""
    run_rows, qrels_rows, _ = dataset
    retrieved = {(q, d) for _, q, d, _ in run_rows}
    judged = {(q, d) for q, d, _ in qrels_rows}
    unretrieved_relevant = [(q, d) for q, d, g in qrels_rows if g >= 1 and (q, d) not in retrieved]
    assert len(unretrieved_relevant) >= 20
    assert len(retrieved - judged) >= 20
    depths = pd.Series([q for _, q, _, _ in run_rows]).value_counts()
    assert len(depths) == 50 and depths.min() < 10 < depths.max()
    scores = pd.DataFrame(run_rows, columns=["s", "q", "d", "score"])
    assert not scores.duplicated(["q", "score"]).any()


def test_per_query_and_means_match_pytrec_eval(dataset):
    run_rows, qrels_rows, path = dataset
    result = workbench(run_rows, path)
    qrels, run = as_trec(run_rows, qrels_rows)
    trec = trec_evaluate(qrels, run)
    frame = per_query(result)
    assert set(trec) == set(frame.index)
    assert_matches_trec(frame, trec)
    for column, measure in TREC_COLUMNS.items():
        mean = np.mean([trec[q][measure] for q in trec])
        got = result.value(RECORD_OF_COLUMN[column])
        assert got == pytest.approx(mean, rel=RTOL, abs=ATOL), column
    assert result.find("map")[0]["n"] == 50


def test_relevance_threshold_matches_pytrec_relevance_level(tmp_path):
    # some queries have no document of grade >= 2: both sides score them 0 (trec_eval keeps them)
    run_rows, qrels_rows = generate(77, max_depth=8, grade_p=(0.55, 0.3, 0.1, 0.05))
    path = tmp_path / "qrels.csv"
    qrels_frame(qrels_rows).to_csv(path, index=False)
    qrels, run = as_trec(run_rows, qrels_rows)
    no_grade2 = {q for q in qrels if max(qrels[q].values()) < 2}
    assert no_grade2, "the data should include queries without a grade-2 document"
    result = workbench(run_rows, path, relevance_threshold=2)
    trec = trec_evaluate(qrels, run, relevance_level=2,
                         measures={"P.1,3,5,10", "recall.1,3,5,10", "recip_rank", "map"})
    binary = {c: m for c, m in TREC_COLUMNS.items() if not c.startswith("ndcg")}
    assert_matches_trec(per_query(result), trec, binary)
    for column, measure in binary.items():
        assert result.value(RECORD_OF_COLUMN[column]) == pytest.approx(
            np.mean([trec[q][measure] for q in trec]), rel=RTOL, abs=ATOL)
    # and the threshold really changed something
    base = workbench(run_rows, path)
    assert result.value("map") < base.value("map")


def test_ties_trec_eval_policy_matches_pytrec_eval(tmp_path):
    """Scores drawn from {0,1,2,3}: nearly every query has ties, broken by doc id descending."""
    run_rows, qrels_rows = generate(31337, ties=True, doc_pool=400)
    path = tmp_path / "qrels.csv"
    qrels_frame(qrels_rows).to_csv(path, index=False)
    result = workbench(run_rows, path, ties="trec_eval")
    frame = per_query(result)
    assert frame["tied"].sum() >= 40
    qrels, run = as_trec(run_rows, qrels_rows)
    assert_matches_trec(frame, trec_evaluate(qrels, run))


def test_ties_stable_policy_is_file_order(tmp_path):
    """``stable`` = score descending then file order: the same as trec_eval on a run whose
    tied scores were made distinct in file order."""
    run_rows, qrels_rows = generate(4242, ties=True, doc_pool=400)
    path = tmp_path / "qrels.csv"
    qrels_frame(qrels_rows).to_csv(path, index=False)
    result = workbench(run_rows, path, ties="stable")
    frame = pd.DataFrame(run_rows, columns=["s", "q", "d", "score"])
    frame["pos"] = np.arange(len(frame))
    frame = frame.sort_values(["q", "score", "pos"], ascending=[True, False, True])
    frame["untied"] = -frame.groupby("q").cumcount().astype(float)
    untied = [(None, q, d, s) for q, d, s in frame[["q", "d", "untied"]].itertuples(index=False)]
    qrels, run = as_trec(untied, qrels_rows)
    assert_matches_trec(per_query(result), trec_evaluate(qrels, run))
    # and it differs from the trec_eval policy on this data
    other = per_query(workbench(run_rows, path, ties="trec_eval"))
    assert not np.allclose(other["ap"], per_query(result).loc[other.index, "ap"])


def test_rank_column_equals_score_column(dataset):
    run_rows, qrels_rows, path = dataset
    frame = run_frame(run_rows)
    frame["rank"] = frame.groupby("query")["score"].rank(ascending=False, method="first").astype(int)
    by_rank = ra.run(LoadedTable(frame=frame.drop(columns="score"), path="<memory>"),
                     ra.Options(query="query", doc="doc", rank="rank", qrels=str(path), ks=KS))
    qrels, run = as_trec(run_rows, qrels_rows)
    assert_matches_trec(per_query(by_rank), trec_evaluate(qrels, run))


def test_several_systems_each_match_pytrec_eval(tmp_path):
    run_rows, qrels_rows = generate(99, systems=("bm25", "dense"), n_queries=40)
    path = tmp_path / "qrels.csv"
    qrels_frame(qrels_rows).to_csv(path, index=False)
    result = workbench(run_rows, path)
    for system in ("bm25", "dense"):
        qrels, run = as_trec(run_rows, qrels_rows, system=system)
        trec = trec_evaluate(qrels, run)
        assert_matches_trec(per_query(result, system), trec)
        assert result.value("ndcg@10", system=system) == pytest.approx(
            np.mean([trec[q]["ndcg_cut_10"] for q in trec]), rel=RTOL, abs=ATOL)


def test_judged_query_that_was_not_retrieved_scores_zero(tmp_path, dataset):
    """Like ``trec_eval -c``: a query in the qrels that the run never answered counts as 0."""
    run_rows, qrels_rows, _ = dataset
    dropped = {"q3", "q17"}
    kept_rows = [r for r in run_rows if r[1] not in dropped]
    path = tmp_path / "qrels.csv"
    qrels_frame(qrels_rows).to_csv(path, index=False)
    result = workbench(kept_rows, path)
    qrels, run = as_trec(kept_rows, qrels_rows)
    trec = trec_evaluate(qrels, run)  # pytrec_eval leaves unanswered queries out
    assert set(trec) == {f"q{i}" for i in range(50)} - dropped
    for column, measure in TREC_COLUMNS.items():
        expected = sum(trec[q][measure] for q in trec) / 50
        assert result.value(RECORD_OF_COLUMN[column]) == pytest.approx(expected, rel=RTOL, abs=ATOL)
    frame = per_query(result)
    assert (frame.loc[sorted(dropped), list(TREC_COLUMNS)] == 0).all().all()
    assert (frame.loc[sorted(dropped), "retrieved"] == 0).all()


# --------------------------------------------------------------------------- ranx


@pytest.mark.parametrize("gain,ranx_ndcg", [("linear", "ndcg"), ("exponential", "ndcg_burges")])
def test_per_query_and_means_match_ranx(dataset, ranx_scores, gain, ranx_ndcg):
    run_rows, _, path = dataset
    means, per = ranx_scores
    result = workbench(run_rows, path, gain=gain)
    frame = per_query(result)
    pairs = {f"ndcg@{k}": f"{ranx_ndcg}@{k}" for k in KS}
    if gain == "linear":
        pairs.update({f"p@{k}": f"precision@{k}" for k in KS})
        pairs.update({f"r@{k}": f"recall@{k}" for k in KS})
        pairs.update({f"hit@{k}": f"hit_rate@{k}" for k in KS})
        pairs.update({f"rr@{k}": f"mrr@{k}" for k in KS})  # MS MARCO's MRR@10 among them
        pairs.update({"rr": "mrr", "ap": "map"})
    queries = sorted(per["mrr"])
    assert len(queries) == 50 and set(queries) == set(frame.index)
    for column, metric in pairs.items():
        ours = frame.loc[queries, column].to_numpy(dtype=float)
        theirs = np.array([per[metric][q] for q in queries])
        np.testing.assert_allclose(ours, theirs, rtol=RTOL, atol=ATOL, err_msg=f"{column} vs {metric}")
        record = {"rr": "mrr", "ap": "map"}.get(column, column.replace("rr@", "mrr@"))
        assert result.value(record) == pytest.approx(float(means[metric]), rel=RTOL, abs=ATOL)


def test_threshold_two_matches_ranx_rel_level(dataset, ranx_scores):
    run_rows, _, path = dataset
    means, per = ranx_scores
    result = workbench(run_rows, path, relevance_threshold=2)
    frame = per_query(result)
    queries = sorted(per["mrr-l2"])
    for column, metric in {"p@5": "precision@5-l2", "r@5": "recall@5-l2", "rr": "mrr-l2",
                           "ap": "map-l2"}.items():
        np.testing.assert_allclose(frame.loc[queries, column].to_numpy(dtype=float),
                                   [per[metric][q] for q in queries], rtol=RTOL, atol=ATOL,
                                   err_msg=f"{column} vs {metric}")


def test_exponential_gain_differs_from_linear_on_graded_data(dataset, ranx_scores):
    """The two gains are really different numbers here (the parametrised test is not vacuous)."""
    means, _ = ranx_scores
    assert abs(means["ndcg@10"] - means["ndcg_burges@10"]) > 1e-3


# --------------------------------------------------------------------------- zero / skip


def test_no_relevant_policy_zero_and_skip_by_hand(tmp_path):
    """qa has relevant docs; qb's judged docs are all grade 0; qc is retrieved but unjudged."""
    run = pd.DataFrame({
        "query": ["qa", "qa", "qa", "qb", "qb", "qc"],
        "doc": ["a1", "a2", "a3", "b1", "b2", "c1"],
        "score": [3.0, 2.0, 1.0, 2.0, 1.0, 1.0],
    })
    qrels = pd.DataFrame({"query": ["qa", "qa", "qa", "qb", "qb"],
                          "doc": ["a2", "a9", "a3", "b1", "b2"],
                          "relevance": [2, 1, 0, 0, 0]})
    path = tmp_path / "qrels.csv"
    qrels.to_csv(path, index=False)
    table = LoadedTable(frame=run, path="<memory>")
    # qa by hand: ranking [a1(unjudged), a2(2), a3(0)], R = 2 (a2, a9 never retrieved)
    ap_qa = (1 / 2) / 2
    rr_qa = 1 / 2
    ndcg3_qa = (2 / np.log2(3)) / (2 + 1 / np.log2(3))
    r3_qa = 1 / 2
    # the unjudged query qc kept and scored 0 (unjudged='zero'): three queries
    zero = ra.run(table, ra.Options(qrels=str(path), ks=(3,), no_relevant="zero", unjudged="zero"))
    skip = ra.run(table, ra.Options(qrels=str(path), ks=(3,), no_relevant="skip", unjudged="zero"))
    assert zero.value("map") == pytest.approx(ap_qa / 3)
    assert zero.value("mrr") == pytest.approx(rr_qa / 3)
    assert zero.value("ndcg@3") == pytest.approx(ndcg3_qa / 3)
    assert zero.value("r@3") == pytest.approx(r3_qa / 3)
    assert zero.value("p@3") == pytest.approx((1 / 3) / 3)
    assert zero.find("map")[0]["n"] == 3
    assert skip.value("map") == pytest.approx(ap_qa)
    assert skip.value("mrr") == pytest.approx(rr_qa)
    assert skip.value("ndcg@3") == pytest.approx(ndcg3_qa)
    assert skip.value("p@3") == pytest.approx(1 / 3)
    assert skip.find("map")[0]["n"] == 1
    assert any("2 of 3 queries have no relevant" in note and "left out" in note for note in skip.notes)
    assert any("2 of 3 queries have no relevant" in note and "scored 0" in note for note in zero.notes)
    assert any("1 retrieved query without any judgment" in note for note in zero.notes)
    assert "unjudged:zero" in zero.signature
    # the default is trec_eval's query set: qc (retrieved, not in the qrels) is left out
    default = ra.run(table, ra.Options(qrels=str(path), ks=(3,)))
    assert "unjudged:skip" in default.signature and "norel:zero" in default.signature
    assert default.value("map") == pytest.approx(ap_qa / 2)
    assert default.value("ndcg@3") == pytest.approx(ndcg3_qa / 2)
    assert default.find("map")[0]["n"] == 2
    assert any("1 retrieved query ('qc') has no judgment in the qrels" in note
               for note in default.notes)
    assert any("1 of 2 queries has no relevant" in note for note in default.notes)
    both_skip = ra.run(table, ra.Options(qrels=str(path), ks=(3,), no_relevant="skip"))
    assert both_skip.value("map") == pytest.approx(ap_qa) and both_skip.find("map")[0]["n"] == 1
    # pytrec_eval keeps qb (judged, all 0) and knows nothing of qc (not in its qrels)
    trec = trec_evaluate({"qa": {"a2": 2, "a9": 1, "a3": 0}, "qb": {"b1": 0, "b2": 0}},
                         {"qa": {"a1": 3.0, "a2": 2.0, "a3": 1.0}, "qb": {"b1": 2.0, "b2": 1.0},
                          "qc": {"c1": 1.0}})
    assert set(trec) == {"qa", "qb"}
    assert trec["qa"]["map"] == pytest.approx(ap_qa)
    assert trec["qa"]["ndcg_cut_3"] == pytest.approx(ndcg3_qa)
    assert trec["qb"]["map"] == 0 and trec["qb"]["ndcg_cut_3"] == 0
    frame = per_query(zero)
    assert list(frame.loc[["qa", "qb", "qc"], "counted"]) == [True, True, True]
    assert list(per_query(skip).loc[["qa", "qb", "qc"], "counted"]) == [True, False, False]
    assert sorted(per_query(default).index) == ["qa", "qb"]
    # the default's mean is pytrec_eval's over the same queries
    assert default.value("map") == pytest.approx(np.mean([trec[q]["map"] for q in trec]))


# --------------------------------------------------------------------------- hypothesis

DOC_IDS = ["d1", "d10", "d2", "d9", "D3", "a", "b0", "b00", "z", "d01", "x_1", "x-1"]


@st.composite
def small_runs(draw):
    """A few queries, scores with many ties, odd doc ids (lexicographic != numeric order),
    grades -1..3 (trec_eval and the workbench both give a negative grade no gain)."""
    n_q = draw(st.integers(1, 5))
    run_rows, qrels_rows = [], []
    for qi in range(n_q):
        q = f"q{qi}"
        docs = draw(st.lists(st.sampled_from(DOC_IDS), min_size=1, max_size=len(DOC_IDS),
                             unique=True))
        depth = draw(st.integers(1, len(docs)))
        retrieved = docs[:depth]
        scores = draw(st.lists(st.integers(0, 3), min_size=depth, max_size=depth))
        run_rows += [(None, q, d, float(s)) for d, s in zip(retrieved, scores)]
        grades = draw(st.lists(st.one_of(st.none(), st.integers(-1, 3)), min_size=len(docs),
                               max_size=len(docs)))
        judged = [(q, d, g) for d, g in zip(docs, grades) if g is not None]
        if not judged:  # the query must be in the qrels for trec_eval to score it
            judged = [(q, docs[-1], draw(st.integers(0, 3)))]
        qrels_rows += judged
    return run_rows, qrels_rows


@settings(max_examples=60, deadline=None, database=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(data=small_runs(), k=st.sampled_from([(1, 2), (3, 7), (1, 5, 12)]))
def test_small_tied_runs_match_pytrec_eval(data, k):
    run_rows, qrels_rows = data
    measures = {f"P.{','.join(map(str, k))}", f"recall.{','.join(map(str, k))}",
                f"ndcg_cut.{','.join(map(str, k))}", "recip_rank", "map"}
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "qrels.csv")
        qrels_frame(qrels_rows).to_csv(path, index=False)
        result = workbench(run_rows, path, ks=k, ties="trec_eval")
    qrels, run = as_trec(run_rows, qrels_rows)
    trec = trec_evaluate(qrels, run, measures=measures)
    columns = {**{f"p@{c}": f"P_{c}" for c in k}, **{f"r@{c}": f"recall_{c}" for c in k},
               **{f"ndcg@{c}": f"ndcg_cut_{c}" for c in k}, "rr": "recip_rank", "ap": "map"}
    frame = per_query(result)
    assert set(trec) == set(frame.index)
    assert_matches_trec(frame, trec, columns)


# --------------------------------------------------------------------------- CLI


def test_cli_ranking_json_matches_pytrec_eval_and_ranx(tmp_path, capsys, dataset, ranx_scores):
    run_rows, qrels_rows, qrels_path = dataset
    run_path = tmp_path / "run.csv"
    run_frame(run_rows).to_csv(run_path, index=False)
    code = cli_main(["ranking", str(run_path), "--query", "query", "--doc", "doc", "--score",
                     "score", "--qrels", str(qrels_path), "--k", "1,3,5,10", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    payload = json.loads(out)
    values = {r["metric"]: r for r in payload["results"]}
    qrels, run = as_trec(run_rows, qrels_rows)
    trec = trec_evaluate(qrels, run)
    for column, measure in TREC_COLUMNS.items():
        rec = values[RECORD_OF_COLUMN[column]]
        assert rec["n"] == 50
        assert rec["value"] == pytest.approx(np.mean([trec[q][measure] for q in trec]),
                                             rel=RTOL, abs=ATOL)
    means, _ = ranx_scores
    for metric, ranx_metric in {"hit@3": "hit_rate@3", "ndcg@5": "ndcg@5", "mrr": "mrr"}.items():
        assert values[metric]["value"] == pytest.approx(float(means[ranx_metric]), rel=RTOL, abs=ATOL)
    assert "gain:linear" in payload["signature"] and "ties:trec_eval" in payload["signature"]


def test_cli_exponential_gain_matches_ranx_ndcg_burges(tmp_path, capsys, dataset, ranx_scores):
    run_rows, _, qrels_path = dataset
    run_path = tmp_path / "run.tsv"
    run_frame(run_rows).to_csv(run_path, index=False, sep="\t")
    code = cli_main(["ranking", str(run_path), "--qrels", str(qrels_path), "--k", "3,10",
                     "--gain", "exponential", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    values = {r["metric"]: r["value"] for r in json.loads(out)["results"]}
    means, _ = ranx_scores
    assert values["ndcg@3"] == pytest.approx(float(means["ndcg_burges@3"]), rel=RTOL, abs=ATOL)
    assert values["ndcg@10"] == pytest.approx(float(means["ndcg_burges@10"]), rel=RTOL, abs=ATOL)


def test_cli_numeric_looking_ids_with_ties_match_pytrec_eval(tmp_path, capsys):
    """Ids a CSV reader could turn into numbers ('007', '1e3', 'NA'...) and tied scores: the
    trec_eval tie order (doc id descending, as strings) must survive the file round trip."""
    rng = np.random.default_rng(3)
    ids = ["007", "10", "9", "1e3", "0x1", "12.0", "12", "3.50", "NA", "None", "-1", "+5"]
    run_rows, qrels_rows = [], []
    for qi in range(40):
        q = f"{qi:03d}"
        docs = [str(d) for d in rng.choice(ids, 8, replace=False)]
        run_rows += [(None, q, d, float(rng.integers(0, 2))) for d in docs[:int(rng.integers(1, 8))]]
        judged = {d: int(rng.integers(0, 4)) for d in docs if rng.random() < 0.7}
        judged[docs[0]] = 3
        qrels_rows += [(q, d, g) for d, g in judged.items()]
    run_path, qrels_path = tmp_path / "run.csv", tmp_path / "qrels.csv"
    run_frame(run_rows).to_csv(run_path, index=False)
    qrels_frame(qrels_rows).to_csv(qrels_path, index=False)
    code = cli_main(["ranking", str(run_path), "--query", "query", "--doc", "doc", "--score",
                     "score", "--qrels", str(qrels_path), "--k", "1,3,5", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    payload = json.loads(out)
    values = {r["metric"]: r["value"] for r in payload["results"]}
    qrels, run = as_trec(run_rows, qrels_rows)
    trec = trec_evaluate(qrels, run, measures={"P.1,3,5", "ndcg_cut.1,3,5", "recip_rank", "map"})
    assert len(trec) == 40
    for metric, measure in {"p@1": "P_1", "p@3": "P_3", "ndcg@1": "ndcg_cut_1",
                            "ndcg@3": "ndcg_cut_3", "ndcg@5": "ndcg_cut_5", "mrr": "recip_rank",
                            "map": "map"}.items():
        assert values[metric] == pytest.approx(np.mean([trec[q][measure] for q in trec]),
                                               rel=RTOL, abs=ATOL), metric
    assert any("tied scores" in note for note in payload["notes"])


# ------------------------------------------------- query sets that differ both ways


@st.composite
def mismatched_runs(draw):
    """Runs and qrels whose query sets overlap only in part: some queries are only retrieved
    (trec_eval skips them), some only judged (trec_eval -c scores them 0), ids that read as
    numbers ('1' and '1.0' are different documents)."""
    ids = ["1", "1.0", "01", "2", "d1", "d2", "10", "x"]
    queries = [f"q{i}" for i in range(draw(st.integers(2, 6)))]
    run_rows, qrels_rows = [], []
    for q in queries:
        where = draw(st.sampled_from(["both", "both", "run", "qrels"]))
        docs = draw(st.lists(st.sampled_from(ids), min_size=1, max_size=len(ids), unique=True))
        if where in ("both", "run"):
            scores = draw(st.lists(st.integers(0, 5), min_size=len(docs), max_size=len(docs)))
            run_rows += [(None, q, d, float(s)) for d, s in zip(docs, scores)]
        if where in ("both", "qrels"):
            judged = draw(st.lists(st.sampled_from(ids), min_size=1, max_size=4, unique=True))
            qrels_rows += [(q, d, draw(st.integers(0, 2))) for d in judged]
    if not run_rows:
        run_rows = [(None, "only_run", "1", 1.0)]
    if not qrels_rows:
        qrels_rows = [("only_qrels", "1", 1)]
    return run_rows, qrels_rows


@settings(max_examples=60, deadline=None, database=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(data=mismatched_runs())
def test_query_set_is_trec_evals_when_the_sets_differ(data):
    run_rows, qrels_rows = data
    measures = {"P.1,3", "recall.3", "ndcg_cut.3", "recip_rank", "map"}
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "qrels.csv")
        qrels_frame(qrels_rows).to_csv(path, index=False)
        run_path = os.path.join(tmp, "run.csv")
        run_frame(run_rows).to_csv(run_path, index=False)
        from workbench.io import load_table
        result = ra.run(load_table(run_path), ra.Options(
            query="query", doc="doc", score="score", qrels=path, ks=(1, 3)))
        zero = ra.run(load_table(run_path), ra.Options(
            query="query", doc="doc", score="score", qrels=path, ks=(1, 3), unjudged="zero"))
    qrels, run = as_trec(run_rows, qrels_rows)
    trec = trec_evaluate(qrels, run, measures=measures)
    judged = {q for q, _, _ in qrels_rows}
    retrieved = {q for _, q, _, _ in run_rows}
    frame = per_query(result)
    # every judged query, and only those; pytrec_eval scores those both have
    assert set(frame.index) == judged
    assert set(trec) == judged & retrieved
    columns = {"p@1": "P_1", "p@3": "P_3", "r@3": "recall_3", "ndcg@3": "ndcg_cut_3",
               "rr": "recip_rank", "ap": "map"}
    if trec:
        assert_matches_trec(frame.loc[sorted(trec)], trec, columns)
    # judged but never retrieved: 0, as trec_eval -c
    for q in judged - retrieved:
        assert frame.loc[q, "ap"] == 0 and frame.loc[q, "ndcg@3"] == 0
    # the mean is trec_eval -c's: over the judged queries, the missed ones as 0
    expected_map = sum(trec[q]["map"] for q in trec) / len(judged)
    assert result.value("map") == pytest.approx(expected_map, rel=RTOL, abs=ATOL)
    assert result.find("map")[0]["n"] == len(judged)
    skipped = retrieved - judged
    if skipped:
        assert any(f"{len(skipped)} retrieved quer" in note and "left out" in note
                   for note in result.notes)
    # unjudged='zero' adds the skipped queries as 0
    assert zero.find("map")[0]["n"] == len(judged | retrieved)
    assert zero.value("map") == pytest.approx(expected_map * len(judged) / len(judged | retrieved),
                                              rel=RTOL, abs=ATOL)
