"""A qrels file whose columns are not named as the run's (workbench/analyses/qrels_columns.py):
ir_datasets' ``query_id, doc_id, relevance``, a TREC qrels' ``query, iter, doc, relevance``,
``qid, docno, rel``, ``label``, ``grade``, or one unnamed grade column.  Each engine takes the
same columns, says which in one note, and gives pytrec_eval's numbers; a qrels without a
usable column is one sentence naming the file and its columns."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("duckdb")
pytrec_eval = pytest.importorskip("pytrec_eval")

from tests.test_crosscheck_ranking import generate, run_frame, qrels_frame  # noqa: E402
from tests.test_engines import write  # noqa: E402
from workbench.analyses.qrels_columns import qrels_columns  # noqa: E402
from workbench.cli.main import main as cli_main  # noqa: E402
from workbench.core.errors import DataError  # noqa: E402


def pick(names, query="qid", doc="docno", relevance=None, given=False):
    got = qrels_columns(names, "q.csv", query=query, doc=doc, relevance=relevance,
                        relevance_given=given)
    return got.query, got.doc, got.relevance


# --------------------------------------------------------------------------- the rule


@pytest.mark.parametrize("names, expected", [
    (["qid", "docno", "relevance"], ("qid", "docno", "relevance")),
    (["qid", "docno", "rel"], ("qid", "docno", "rel")),
    (["qid", "docno", "Label"], ("qid", "docno", "Label")),
    (["query_id", "doc_id", "relevance", "iteration"], ("query_id", "doc_id", "relevance")),
    (["query", "iter", "doc", "relevance"], ("query", "doc", "relevance")),
    (["Query ID", "Doc-ID", "grade"], ("Query ID", "Doc-ID", "grade")),
    (["qid", "Q0", "docno", "value"], ("qid", "docno", "value")),  # the one other column
    (["topic", "docid", "judgment"], ("topic", "docid", "judgment")),
])
def test_each_role_takes_the_runs_name_then_a_usual_name_then_the_one_left(names, expected):
    assert pick(names) == expected


def test_the_runs_own_names_come_first_and_no_column_serves_twice():
    # the run's grade column 'label' is in the qrels: taken before 'relevance'
    assert pick(["qid", "docno", "relevance", "label"], relevance="label") == \
        ("qid", "docno", "label")
    # a qrels whose query column is named 'doc' by the run's doc name: each role its own
    assert pick(["query", "doc", "rel"], query="query", doc="doc") == ("query", "doc", "rel")
    got = qrels_columns(["qid", "docno", "relevance"], "q.csv", query="qid", doc="docno")
    assert got.renamed == () and got.note("q.csv") is None
    got = qrels_columns(["query_id", "doc_id", "rel"], "q.csv", query="qid", doc="docno")
    note = got.note("q.csv")
    assert "'query_id' as the query ids" in note and "'doc_id' as the document ids" in note
    assert "'rel' as the grades" in note


@pytest.mark.parametrize("names, words", [
    (["a", "b", "c"], ["no column for the query ids", "'qid'", "a, b, c"]),
    (["qid", "x", "rel"], ["no column for the document ids", "'docno'", "qid, x, rel"]),
    (["qid", "docno", "x", "y"], ["no relevance column", "--relevance", "qid, docno, x, y"]),
    (["qid", "docno"], ["no relevance column", "qid, docno"]),
])
def test_a_qrels_without_a_usable_column_is_one_sentence(names, words):
    with pytest.raises(DataError) as err:
        pick(names)
    for word in words:
        assert word in str(err.value)
    assert "q.csv" in str(err.value)


def test_relevance_named_by_the_flag_must_be_in_the_qrels():
    assert pick(["qid", "docno", "relevance", "g2"], relevance="g2", given=True)[2] == "g2"
    with pytest.raises(DataError, match="no column 'g3' \\(named by --relevance\\)"):
        pick(["qid", "docno", "relevance"], relevance="g3", given=True)


# --------------------------------------------------------------------------- every engine


def cli(capsys, *argv):
    code = cli_main(["ranking", *map(str, argv), "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


@pytest.fixture(scope="module")
def data():
    run_rows, qrels_rows = generate(23, n_queries=40, ties=True)
    qrels = {}
    for q, d, g in qrels_rows:
        qrels.setdefault(q, {})[d] = int(g)
    run = {}
    for _, q, d, s in run_rows:
        run.setdefault(q, {})[d] = float(s)
    trec = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10", "map", "P.5"}).evaluate(run)
    means = {"ndcg@10": np.mean([v["ndcg_cut_10"] for v in trec.values()]),
             "map": np.mean([v["map"] for v in trec.values()]),
             "p@5": np.mean([v["P_5"] for v in trec.values()])}
    return run_rows, qrels_rows, means


@pytest.mark.parametrize("kind", ["csv", "parquet"])
@pytest.mark.parametrize("names", [("query_id", "doc_id", "relevance", "iteration"),
                                   ("qid", "docno", "rel", None),
                                   ("topic", "docid", "label", None)])
def test_renamed_qrels_give_pytrec_evals_numbers_on_every_engine(tmp_path, capsys, data, kind,
                                                                 names):
    run_rows, qrels_rows, means = data
    run = run_frame(run_rows).rename(columns={"query": "q", "doc": "d", "score": "s"})
    qrels = qrels_frame(qrels_rows).rename(columns=dict(zip(("query", "doc", "relevance"),
                                                            names)))
    if names[3]:
        qrels.insert(1, names[3], 0)
    run_path = write(run, tmp_path / "run", kind)
    qrels_path = write(qrels, tmp_path / "qrels", kind)
    for engine in ("memory", "duckdb"):
        got = cli(capsys, run_path, "--qrels", qrels_path, "--query", "q", "--doc", "d",
                  "--score", "s", "--k", "5,10", "--engine", engine)
        values = {r["metric"]: r["value"] for r in got["results"]}
        for metric, expected in means.items():
            assert values[metric] == pytest.approx(expected, abs=1e-12), (engine, metric)
        assert f"engine:{engine}" in got["signature"]
        note = [n for n in got["notes"] if "judgments of 'qrels." in n]
        assert len(note) == 1 and f"'{names[0]}' as the query ids" in note[0], got["notes"]


def test_relevance_flag_names_the_qrels_grade_column_when_the_run_has_none(tmp_path, capsys,
                                                                            data):
    """``--relevance g`` with a run without 'g': the qrels' grades (two grade columns)."""
    run_rows, qrels_rows, means = data
    qrels = qrels_frame(qrels_rows).rename(columns={"relevance": "g"})
    qrels["other"] = 0
    run_path = write(run_frame(run_rows), tmp_path / "run", "csv")
    qrels_path = write(qrels, tmp_path / "qrels", "csv")
    for engine in ("memory", "duckdb"):
        got = cli(capsys, run_path, "--qrels", qrels_path, "--relevance", "g", "--k", "10",
                  "--engine", engine)
        values = {r["metric"]: r["value"] for r in got["results"]}
        assert values["map"] == pytest.approx(means["map"], abs=1e-12)


@pytest.mark.parametrize("name", ["qrels.tsv", "qrels.txt", "qrels.csv", "qrels"])
def test_a_trec_qrels_under_any_name_is_read_for_the_engines(tmp_path, capsys, data, name):
    """A TREC qrels (``qid iter docno rel``, no header) named like a delimited file is not a
    CSV an engine reads: the workbench reads it (its columns query, iter, doc, relevance)
    and the engine takes the judgments; the run's ids are named qid and docno."""
    run_rows, qrels_rows, means = data
    path = tmp_path / name
    path.write_text("".join(f"{q}\t0\t{d}\t{g}\n" for q, d, g in qrels_rows))
    run = run_frame(run_rows).rename(columns={"query": "qid", "doc": "docno"})
    run_path = write(run, tmp_path / "run", "parquet")
    for engine in ("memory", "duckdb"):
        got = cli(capsys, run_path, "--qrels", path, "--query", "qid", "--doc", "docno",
                  "--score", "score", "--k", "5,10", "--engine", engine)
        values = {r["metric"]: r["value"] for r in got["results"]}
        for metric, expected in means.items():
            assert values[metric] == pytest.approx(expected, abs=1e-12), (engine, metric)


# --------------------------------------------------------------------------- the run's grades


def _with_run_grades(run_rows, qrels_rows):
    """The run with a 'label' column that disagrees with the qrels: every retrieved document
    graded 2, including the queries the qrels never judge (a pooled answer would differ)."""
    run = run_frame(run_rows)
    run["label"] = 2
    extra = pd.DataFrame({"query": ["zz-only-in-run"] * 3, "doc": ["a", "b", "c"],
                          "score": [3.0, 2.0, 1.0], "label": [2, 0, 1]})
    return pd.concat([run, extra], ignore_index=True)


@pytest.mark.parametrize("engine", ["memory", "duckdb"])
def test_a_runs_grade_column_is_left_to_the_qrels_unless_named(tmp_path, capsys, data, engine):
    """With --qrels, a run column that merely looks like grades ('label') is not pooled: the
    qrels judge, as trec_eval does, a note names the column and the signature says
    judged:qrels.  Named with --relevance, it is pooled (judged:pooled+qrels)."""
    run_rows, qrels_rows, means = data
    run_path = write(_with_run_grades(run_rows, qrels_rows), tmp_path / "run", "csv")
    qrels_path = write(qrels_frame(qrels_rows), tmp_path / "qrels", "csv")
    got = cli(capsys, run_path, "--qrels", qrels_path, "--query", "query", "--doc", "doc",
              "--score", "score", "--k", "5,10", "--engine", engine)
    values = {r["metric"]: r["value"] for r in got["results"]}
    for metric, expected in means.items():
        assert values[metric] == pytest.approx(expected, abs=1e-12), metric
    assert "|judged:qrels|" in got["signature"]
    note = [n for n in got["notes"] if "'label'" in n]
    assert len(note) == 1 and "not used" in note[0] and "--relevance" in note[0], got["notes"]

    pooled = cli(capsys, run_path, "--qrels", qrels_path, "--relevance", "label", "--k", "5,10",
                 "--engine", engine)
    assert "|judged:pooled+qrels|" in pooled["signature"]
    p_values = {r["metric"]: r["value"] for r in pooled["results"]}
    assert p_values["map"] != pytest.approx(means["map"], abs=1e-6)  # the run's grades count
