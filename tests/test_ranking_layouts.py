"""The ranking engine's row-ordering paths, each checked against pytrec_eval (trec_eval).

``metrics.ranking`` orders a run in one of several ways depending on the file's layout: rows
already grouped by query (as run files list them) or not (a stable radix sort on query codes
below 65,536, a stable comparison sort above), every ranking the same length (a reshape) or not
(a padded table), and a very uneven file (one query far longer than the others) through two
global sorts.  Every layout must give trec_eval's numbers, ties included.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytrec_eval = pytest.importorskip("pytrec_eval")

from workbench.analyses import ranking as ra  # noqa: E402
from workbench.core.errors import DataError  # noqa: E402
from workbench.io import LoadedTable  # noqa: E402
from workbench.metrics import ranking as rm  # noqa: E402

KS = (1, 3, 10)
COLUMNS = {**{f"p@{k}": f"P_{k}" for k in KS}, **{f"r@{k}": f"recall_{k}" for k in KS},
           **{f"ndcg@{k}": f"ndcg_cut_{k}" for k in KS}, "rr": "recip_rank", "ap": "map"}
MEASURES = {"P.1,3,10", "recall.1,3,10", "ndcg_cut.1,3,10", "recip_rank", "map"}


def make_run(seed: int, depths, *, ties: bool = False) -> pd.DataFrame:
    """One row per (query, document): ``depths[i]`` documents for query i, grades 0-3 (about
    a third relevant), scores distinct within a query unless ``ties``."""
    rng = np.random.default_rng(seed)
    depths = np.asarray(depths)
    n = int(depths.sum())
    q = np.repeat(np.arange(depths.size), depths)
    docs = np.arange(n) * 7 % 100_003  # distinct within a query
    scores = (rng.integers(0, 3, n).astype(float) if ties
              else rng.permutation(n).astype(float) / 7.0)
    grade = np.where(rng.random(n) < 0.35, rng.integers(1, 4, n), 0)
    return pd.DataFrame({"query": [f"q{i}" for i in q], "doc": [f"d{d}" for d in docs],
                         "score": scores, "relevance": grade})


def trec(frame: pd.DataFrame) -> dict:
    run, qrels = {}, {}
    for q, d, s, g in frame[["query", "doc", "score", "relevance"]].itertuples(index=False):
        run.setdefault(q, {})[d] = float(s)
        qrels.setdefault(q, {})[d] = int(g)
    return pytrec_eval.RelevanceEvaluator(qrels, MEASURES).evaluate(run)


def ours(frame: pd.DataFrame, **options) -> pd.DataFrame:
    opts = dict(query="query", doc="doc", score="score", relevance="relevance", ks=KS)
    opts.update(options)
    result = ra.run(LoadedTable(frame=frame.reset_index(drop=True), path="<memory>"),
                    ra.Options(**opts))
    return result.table("queries").frame.set_index("query")


def assert_trec(frame: pd.DataFrame, **options) -> None:
    want = trec(frame)
    got = ours(frame, **options)
    queries = sorted(q for q in want if got.loc[q, "relevant"] > 0)
    assert queries
    for column, measure in COLUMNS.items():
        np.testing.assert_allclose(got.loc[queries, column].to_numpy(float),
                                   [want[q][measure] for q in queries], rtol=1e-12, atol=1e-12,
                                   err_msg=column)


LAYOUTS = {
    "grouped, uneven": lambda rng: rng.integers(1, 40, 300),
    "grouped, all the same depth": lambda rng: np.full(300, 25),
    "one query far longer than the rest": lambda rng: np.r_[5000, rng.integers(1, 5, 300)],
}


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("shuffled", [False, True], ids=["file grouped", "file shuffled"])
@pytest.mark.parametrize("ties", [False, True], ids=["distinct", "ties"])
def test_every_layout_matches_trec_eval(layout, shuffled, ties):
    rng = np.random.default_rng(hash((layout, shuffled, ties)) % 2**32)
    frame = make_run(7, LAYOUTS[layout](rng), ties=ties)
    if shuffled:
        frame = frame.sample(frac=1.0, random_state=3)
    if layout == "one query far longer than the rest":
        depths = frame.groupby("query").size()
        assert len(depths) * depths.max() > rm.PAD_LIMIT * len(frame)  # the global-sort path
    assert_trec(frame, ties="trec_eval")


def test_more_than_65536_shuffled_queries_match_trec_eval():
    """Query codes wider than 16 bits cannot take the radix sort."""
    frame = make_run(11, np.r_[np.full(66_000, 2), 3]).sample(frac=1.0, random_state=5)
    assert frame["query"].nunique() > 65_536
    assert_trec(frame, ties="trec_eval")


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_stable_ties_follow_the_file_order_in_every_layout(layout):
    """``ties=stable``: score descending, then the row's position in the file, whatever the
    path; checked against trec_eval on the same run with ties made distinct in file order."""
    rng = np.random.default_rng(5)
    frame = make_run(13, LAYOUTS[layout](rng), ties=True).sample(frac=1.0, random_state=9)
    frame = frame.reset_index(drop=True)
    untied = frame.copy()
    untied["pos"] = np.arange(len(untied))
    untied = untied.sort_values(["query", "score", "pos"], ascending=[True, False, True])
    untied["score"] = -untied.groupby("query").cumcount().astype(float)
    want = trec(untied)
    got = ours(frame, ties="stable")
    queries = sorted(q for q in want if got.loc[q, "relevant"] > 0)
    for column, measure in COLUMNS.items():
        np.testing.assert_allclose(got.loc[queries, column].to_numpy(float),
                                   [want[q][measure] for q in queries], rtol=1e-12, atol=1e-12)


@settings(max_examples=200, deadline=None, database=None, derandomize=True)
@given(pairs=st.lists(st.tuples(st.integers(0, 6), st.integers(0, 9)), min_size=0, max_size=40),
       pad_limit=st.sampled_from([0.0, 2.0]))
def test_repeated_pairs_equals_a_set_count(pairs, pad_limit):
    q = np.array([p[0] for p in pairs], dtype=np.int64)
    d = np.array([p[1] for p in pairs], dtype=np.int64)
    old = rm.PAD_LIMIT
    rm.PAD_LIMIT = pad_limit  # 0: the global sort unless the layout is uniform
    try:
        assert rm.repeated_pairs(q, d) == (len(set(pairs)) < len(pairs))
    finally:
        rm.PAD_LIMIT = old


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_a_repeated_document_is_named_in_every_layout(layout):
    rng = np.random.default_rng(1)
    frame = make_run(17, LAYOUTS[layout](rng)).sample(frac=1.0, random_state=2)
    frame = frame.reset_index(drop=True)
    dup = frame.iloc[[len(frame) // 2]].copy()
    dup["score"] = -1.0
    frame = pd.concat([frame, dup], ignore_index=True)
    with pytest.raises(DataError, match="repeat|more than once|twice|unique|duplicate") as err:
        ours(frame)
    assert dup["doc"].iat[0] in str(err.value)


def test_scores_equal_in_single_precision_are_ranked_by_full_value_with_a_note():
    """trec_eval keeps run scores as 32-bit floats: 0.5 and 0.5 + 1e-12 tie there and the
    tie goes to the larger document id.  The workbench ranks by the full value and says so."""
    frame = pd.DataFrame({"query": ["q1", "q1", "q2", "q2"], "doc": ["b", "a", "b", "a"],
                          "score": [0.5, 0.5 + 1e-12, 0.5, 0.25], "relevance": [1, 0, 1, 0]})
    want = trec(frame)
    assert want["q1"]["recip_rank"] == 1.0  # trec_eval: a tie, 'b' ranks first
    result = ra.run(LoadedTable(frame=frame, path="<memory>"),
                    ra.Options(query="query", doc="doc", score="score", relevance="relevance", ks=KS))
    got = result.table("queries").frame.set_index("query")
    assert got.loc["q1", "rr"] == 0.5  # 'a' has the higher score
    assert got.loc["q2", "rr"] == want["q2"]["recip_rank"] == 1.0
    assert any("1 query has scores that differ only past single precision" in n for n in result.notes)
    # with the scores as trec_eval reads them, the two agree
    frame32 = frame.assign(score=frame["score"].astype(np.float32).astype(float))
    assert_trec(frame32, ties="trec_eval")


@pytest.mark.parametrize("policy", ["trec_eval", "stable"])
def test_ties_of_several_systems_in_one_shuffled_file(policy):
    """Each system's ties are broken within its own rows (document id, or file order)."""
    rng = np.random.default_rng(21)
    a = make_run(23, rng.integers(1, 30, 120), ties=True).assign(system="A")
    b = make_run(29, rng.integers(1, 30, 120), ties=True).assign(system="B")
    frame = pd.concat([a, b]).sample(frac=1.0, random_state=4).reset_index(drop=True)
    # one judgment per (query, doc) for both systems
    grades = frame.groupby(["query", "doc"])["relevance"].transform("first")
    frame["relevance"] = grades
    result = ra.run(LoadedTable(frame=frame, path="<memory>"),
                    ra.Options(query="query", doc="doc", score="score", relevance="relevance",
                               system="system", ks=KS, ties=policy))
    table = result.table("queries").frame
    for name in ("A", "B"):
        rows = frame[frame["system"] == name].copy()
        if policy == "stable":  # make ties distinct in file order, then trec_eval must agree
            rows["pos"] = np.arange(len(rows))
            rows = rows.sort_values(["query", "score", "pos"], ascending=[True, False, True])
            rows["score"] = -rows.groupby("query").cumcount().astype(float)
        qrels = {}
        for q, d, g in frame[["query", "doc", "relevance"]].drop_duplicates().itertuples(index=False):
            qrels.setdefault(q, {})[d] = int(g)
        run = {}
        for q, d, s in rows[["query", "doc", "score"]].itertuples(index=False):
            run.setdefault(q, {})[d] = float(s)
        want = pytrec_eval.RelevanceEvaluator(qrels, MEASURES).evaluate(run)
        got = table[table["system"] == name].set_index("query")
        queries = sorted(q for q in want if q in got.index and got.loc[q, "relevant"] > 0)
        assert len(queries) > 50
        for column, measure in COLUMNS.items():
            np.testing.assert_allclose(got.loc[queries, column].to_numpy(float),
                                       [want[q][measure] for q in queries], rtol=1e-12, atol=1e-12,
                                       err_msg=f"{name} {column}")
