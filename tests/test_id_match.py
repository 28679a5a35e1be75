"""A run whose ids do not meet its qrels' ids (workbench/analyses/id_match.py): the numbers stay
what trec_eval computes (ids compared as exact text, so mostly zeros), and the first note says
why -- queries written '7' in the run and '007' in the qrels, no query shared at all, or no
retrieved document judged -- on every engine; no such note when the ids meet."""

from __future__ import annotations

import pandas as pd
import pytest

from tests.test_crosscheck_ranking import trec_evaluate
from workbench.analyses import ranking as ra
from workbench.analyses.id_match import id_key
from workbench.io import load_table

pytrec_eval = pytest.importorskip("pytrec_eval")


@pytest.mark.parametrize("text, key", [("007", "7"), ("7", "7"), ("7.0", "7"), ("+7", "7"),
                                       (" Q07 ", "q07"), ("q7", "q7"), ("1e3", "1e3"),
                                       ("-003", "-3"), ("0", "0"), ("000", "0")])
def test_id_key(text, key):
    assert id_key(text) == key


def files(tmp_path, run_rows, qrels_rows):
    run = tmp_path / "run.csv"
    qrels = tmp_path / "qrels.csv"
    pd.DataFrame(run_rows, columns=["query", "doc", "score"]).to_csv(run, index=False)
    pd.DataFrame(qrels_rows, columns=["query", "doc", "relevance"]).to_csv(qrels, index=False)
    return str(run), str(qrels)


def result(run, qrels, engine="memory"):
    return ra.run(load_table(run), ra.Options(query="query", doc="doc", score="score",
                                              qrels=qrels, ks=(1, 2), engine=engine))


def mean(res, metric):
    return next(r["value"] for r in res.records if r["metric"] == metric)


RUN = [("1", "d1", 3.0), ("1", "d2", 2.0), ("2", "d1", 1.0), ("2", "d3", 0.5),
       ("15", "d9", 1.0)]


@pytest.mark.parametrize("engine", ["memory", "duckdb"])
def test_zero_padded_query_ids_are_named_first(tmp_path, engine):
    pytest.importorskip("duckdb") if engine == "duckdb" else None
    # the qrels write queries 1 and 2 as 001 and 002; 15 is written alike in both
    run, qrels = files(tmp_path, RUN, [("001", "d1", 1), ("002", "d3", 2), ("15", "d9", 1),
                                       ("15", "d8", 1)])
    res = result(run, qrels, engine)
    first = res.notes[0]
    assert first.startswith("2 queries of the run have no judgment under their exact id"), first
    assert "run '1' and qrels '001'" in first and "run '2' and qrels '002'" in first, first
    # the numbers are trec_eval's: only query 15 is both retrieved and judged
    judged = {}
    for q, d, g in [("001", "d1", 1), ("002", "d3", 2), ("15", "d9", 1), ("15", "d8", 1)]:
        judged.setdefault(q, {})[d] = g
    scores = {}
    for q, d, s in RUN:
        scores.setdefault(q, {})[d] = s
    per_query = trec_evaluate(judged, scores)
    assert sorted(per_query) == ["15"]
    # the judged queries 001 and 002 are never retrieved and score 0 (trec_eval -c)
    assert mean(res, "map") == pytest.approx(per_query["15"]["map"] / 3, abs=1e-12)
    assert next(r["n"] for r in res.records if r["metric"] == "map") == 3


def test_no_shared_query_is_said(tmp_path):
    run, qrels = files(tmp_path, RUN, [("a", "d1", 1), ("b", "d3", 1)])
    res = result(run, qrels)
    assert res.notes[0].startswith("No query of the run has a judgment in the qrels"), res.notes
    assert "'1', '2', '15'" in res.notes[0] and "'a', 'b'" in res.notes[0], res.notes[0]


@pytest.mark.parametrize("engine", ["memory", "duckdb"])
def test_no_retrieved_document_judged_is_said(tmp_path, engine):
    pytest.importorskip("duckdb") if engine == "duckdb" else None
    run, qrels = files(tmp_path, RUN, [("1", "D1", 1), ("2", "D3", 1), ("15", "D9", 1)])
    res = result(run, qrels, engine)
    assert res.notes[0].startswith("None of the 5 retrieved rows of the 3 queries the qrels "
                                   "judge is a judged document"), res.notes
    assert mean(res, "map") == 0.0


def test_ids_that_meet_give_no_such_note(tmp_path):
    run, qrels = files(tmp_path, RUN, [("1", "d1", 1), ("2", "x", 1), ("15", "d8", 1),
                                       ("007", "d1", 1)])
    res = result(run, qrels)  # '007' is judged only: no run query is '7'
    assert not any("exact id" in n or "No query of the run" in n or "is a judged document" in n
                   for n in res.notes), res.notes


@pytest.mark.parametrize("engine", ["memory", "duckdb"])
def test_an_empty_query_id_is_said_first(tmp_path, engine):
    pytest.importorskip("duckdb") if engine == "duckdb" else None
    run = tmp_path / "run.csv"
    run.write_text("query,doc,score,relevance\nq1,d1,1,1\nq1,d2,0.5,0\n,d2,0.3,1\n,d4,0.2,0\n"
                   "q2,d3,0.2,1\n")
    res = ra.run(load_table(str(run)), ra.Options(engine=engine))
    assert res.notes[0].startswith("The query id is empty in 2 rows of the run (column "
                                   "'query'): those rows are scored as one query"), res.notes
    assert next(r["n"] for r in res.records if r["metric"] == "map") == 3  # as pytrec_eval


def test_an_empty_query_id_in_the_qrels_only_is_said(tmp_path):
    run, qrels = files(tmp_path, RUN, [("1", "d1", 1), ("", "d3", 1)])
    res = result(run, qrels)
    assert any(n.startswith("The query id is empty in the judgments of the qrels") for n in res.notes), res.notes


def test_no_empty_id_no_note(tmp_path):
    run, qrels = files(tmp_path, RUN, [("1", "d1", 1)])
    assert not any("query id is empty" in n for n in result(run, qrels).notes)
