"""The Spark engine of the ranking analysis (workbench/engines/spark*.py, issue 29): the SQL
kernels DuckDB runs, rendered for Spark SQL, give the in-memory engine's per-query table
(within 1e-12, same queries, same order, same notes) and pytrec_eval's numbers: on the TREC
fixtures (two runs as systems), a graded run with exponential gain and every tie policy,
generated runs with a system column, ties, unjudged queries and judged queries never
retrieved, CSV and Parquet files Spark reads itself, and digit-only ids that must stay text.

One Spark session for the module (local[2], no UI, 4 shuffle partitions): the engine uses the
session already running.  Skipped with the reason when pyspark or Java is missing (CI has
both: packaging/dev-setup.sh installs openjdk-17-jre-headless)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import tempfile

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("duckdb")
pytrec_eval = pytest.importorskip("pytrec_eval")

from tests.test_crosscheck_ranking import (as_trec, assert_matches_trec, generate,  # noqa: E402
                                           qrels_frame, run_frame, trec_evaluate)
from tests.test_engines import (ATOL, EXAMPLES, TREC, assert_same_result, cli_error,  # noqa: E402
                                cli_json, odd_runs, write, write_text)
from workbench.analyses import ranking as ra  # noqa: E402
from workbench.cli.main import main as cli_main  # noqa: E402
from workbench.core.errors import OptionError  # noqa: E402
from workbench.engines import spark as spark_engine  # noqa: E402
from workbench.engines import spark_input  # noqa: E402
from workbench.io import LoadedTable, load_table  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
#: pyspark 3.5's own deprecation warnings (distutils, pandas 3) are not the workbench's
pytestmark = pytest.mark.filterwarnings("ignore:::pyspark")


@pytest.fixture(scope="module")
def spark():
    """The module's Spark session (the engine runs on it instead of starting its own)."""
    pytest.importorskip("pyspark", reason="the Spark engine needs pyspark (pip install "
                                          "'eval-workbench[spark]')")
    if spark_engine.java() is None:
        pytest.skip("the Spark engine needs Java 17 (apt-get install openjdk-17-jre-headless)")
    from pyspark.sql import SparkSession

    session = (SparkSession.builder.master("local[2]").appName("workbench tests")
               .config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false")
               .config("spark.sql.shuffle.partitions", "4")
               .config("spark.sql.execution.arrow.pyspark.enabled", "true").getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def three(table: LoadedTable, **options):
    """Memory, DuckDB and Spark on one table: the same result (but for the engine's note)."""
    memory = ra.run(table, ra.Options(engine="memory", **options))
    duck = ra.run(table, ra.Options(engine="duckdb", **options))
    spark = ra.run(table, ra.Options(engine="spark", **options))
    assert_same_result(memory, duck, "duckdb")
    assert_same_result(memory, spark, "spark")
    return memory, spark


def same_json(a: dict, b: dict) -> None:
    assert [(r["metric"], r.get("system"), r["n"]) for r in a["results"]] == \
        [(r["metric"], r.get("system"), r["n"]) for r in b["results"]]
    for x, y in zip(a["results"], b["results"]):
        if x["value"] is None:
            assert y["value"] is None, x["metric"]
        else:
            assert y["value"] == pytest.approx(x["value"], abs=ATOL), x["metric"]


# --------------------------------------------------------------------------- the three engines


def test_trec_fixtures_on_the_command_line(spark, capsys):
    """Two TREC runs (their tags as systems) and a TREC qrels: the workbench reads them, Spark
    computes; the signature names Spark."""
    runs = [os.path.join(TREC, "runA.run"), os.path.join(TREC, "runB.run")]
    args = [*runs, "--qrels", os.path.join(TREC, "qrels.test.txt"), "--k", "1,5,10"]
    memory = cli_json(capsys, *args, "--engine", "memory")
    duck = cli_json(capsys, *args, "--engine", "duckdb")
    sp = cli_json(capsys, *args, "--engine", "spark", "--spark-master", "local[2]")
    assert "engine:spark" in sp["signature"] and "engine:spark" not in memory["signature"]
    assert sp["signature"].replace("engine:spark", "") == \
        duck["signature"].replace("engine:duckdb", "")
    same_json(memory, duck)
    same_json(memory, sp)
    assert any("computed by Spark" in n for n in sp["notes"])


def test_a_trec_run_read_by_spark(spark, tmp_path, capsys, monkeypatch):
    """One TREC run file: Spark reads its lines itself (ids as text, the tag as the system);
    a line that is not a run line is one sentence with its line number (from the preview's
    reading in the first lines, from Spark's beyond them)."""
    from workbench.analyses import ranking_engines

    args = [os.path.join(TREC, "runB.run"), "--qrels", os.path.join(TREC, "qrels.test.txt"),
            "--k", "1,5,10"]
    memory = cli_json(capsys, *args, "--engine", "memory")
    sp = cli_json(capsys, *args, "--engine", "spark")
    assert {r.get("system") for r in sp["results"]} == {"runB"}
    same_json(memory, sp)
    bad = tmp_path / "bad.run"
    bad.write_text("1 Q0 d1 1 2.5 sys\n\n1 Q0 d2 2 1.5 sys\n1 Q0 d3 3 high sys\n")
    qrels = tmp_path / "bad.qrels"
    qrels.write_text("1 0 d1 1\n")
    args = [bad, "--qrels", qrels, "--k", "1", "--engine", "spark"]
    err = cli_error(capsys, *args)
    assert "bad.run' line 4 has the score (field 5) 'high', which is not a number" in err, err
    monkeypatch.setattr(ranking_engines, "TREC_HEAD", 20)  # the preview: the first line only
    err = cli_error(capsys, *args)
    assert "bad.run' line 4 reads '1 Q0 d3 3 high sys'; expected 6 whitespace" in err, err


def test_graded_example_exponential_gain_and_tie_policies(spark):
    table = load_table(os.path.join(EXAMPLES, "ranking_graded.csv"))
    three(table, ks=(1, 3, 10), gain="exponential", ties="pessimistic", relevance_threshold=2)
    for ties in ("trec_eval", "stable", "optimistic"):
        memory = ra.run(table, ra.Options(engine="memory", ks=(1, 5), ties=ties))
        assert_same_result(memory, ra.run(table, ra.Options(engine="spark", ks=(1, 5),
                                                            ties=ties)), "spark")



def test_a_session_of_someone_else_gets_its_settings_back(spark):
    # the kernels set what they need on the session they run on (ANSI off, joins that reuse a
    # partitioning by query); a session they did not start is left as it was
    spark.conf.set("spark.sql.ansi.enabled", "true")
    spark.conf.unset("spark.sql.requireAllClusterKeysForCoPartition")
    before = spark.conf.get("spark.sql.requireAllClusterKeysForCoPartition")
    try:
        three(load_table(os.path.join(EXAMPLES, "ranking_graded.csv")), ks=(1, 3))
        assert spark.conf.get("spark.sql.ansi.enabled") == "true"
        assert spark.conf.get("spark.sql.requireAllClusterKeysForCoPartition") == before
    finally:
        spark.conf.set("spark.sql.ansi.enabled", "false")


def test_systems_ties_unjudged_and_missed_queries_match_pytrec_eval(spark, tmp_path):
    systems = ("bm25", "dense")
    run_rows, qrels_rows = generate(3, n_queries=40, ties=True, systems=systems)
    run_rows += [(s, "unjudged-q", f"d{i}", float(i)) for s in systems for i in range(4)]
    qrels_rows += [("missed-q", "d1", 2), ("missed-q", "d2", 0)]
    qrels_path = tmp_path / "qrels.csv"
    qrels_frame(qrels_rows).to_csv(qrels_path, index=False)
    options = dict(query="query", doc="doc", score="score", qrels=str(qrels_path),
                   ks=(1, 3, 5, 10), system="system")
    table = LoadedTable(frame=run_frame(run_rows), path="<memory>")
    _, spark_result = three(table, **options)
    three(table, **{**options, "unjudged": "zero", "no_relevant": "skip"})
    per = spark_result.table("queries").frame
    for system in systems:
        qrels, run = as_trec(run_rows, qrels_rows, system)
        assert_matches_trec(per[per["system"] == system].set_index("query"),
                            trec_evaluate(qrels, run))


@pytest.mark.parametrize("kind", ["csv", "parquet"])
def test_files_read_by_spark(spark, tmp_path, capsys, kind):
    """Spark reads the run and the qrels itself (CSV: every column as text), with a system
    column; the same numbers as memory and DuckDB, and as pytrec_eval."""
    run_rows, qrels_rows = generate(7, n_queries=50, ties=True, systems=("a", "b"))
    run_path = write(run_frame(run_rows), tmp_path / "run", kind)
    qrels_path = write(qrels_frame(qrels_rows), tmp_path / "qrels", kind)
    args = [run_path, "--qrels", qrels_path, "--query", "query", "--doc", "doc", "--score",
            "score", "--system", "system", "--k", "10,100"]
    memory = cli_json(capsys, *args, "--engine", "memory")
    sp = cli_json(capsys, *args, "--engine", "spark")
    assert "engine:spark" in sp["signature"]
    same_json(memory, sp)
    # the file in many small partitions: the rows keep the file's order (stable ties, the
    # order of the queries)
    spark.conf.set("spark.sql.files.maxPartitionBytes", "4096")
    spark.conf.set("spark.sql.files.openCostInBytes", "0")
    try:
        if kind == "csv":
            assert spark.read.csv(run_path).rdd.getNumPartitions() > 2
        same_json(cli_json(capsys, *args, "--ties", "stable", "--engine", "memory"),
                  cli_json(capsys, *args, "--ties", "stable", "--engine", "spark"))
    finally:
        spark.conf.unset("spark.sql.files.maxPartitionBytes")
        spark.conf.unset("spark.sql.files.openCostInBytes")
    for system in ("a", "b"):
        qrels, run = as_trec(run_rows, qrels_rows, system)
        trec = trec_evaluate(qrels, run, measures={"ndcg_cut.10", "map"})
        values = {r["metric"]: r["value"] for r in sp["results"] if r.get("system") == system}
        assert values["map"] == pytest.approx(np.mean([trec[q]["map"] for q in trec]), abs=1e-9)
        assert values["ndcg@10"] == pytest.approx(
            np.mean([trec[q]["ndcg_cut_10"] for q in trec]), abs=1e-9)


def test_a_csv_with_fields_over_several_lines_is_read_whole(spark, tmp_path, capsys):
    """A CSV whose quoted fields hold line breaks is parsed in one task (its rows are not
    lines); one without is split between tasks: either way the numbers of memory."""
    run_rows, qrels_rows = generate(3, n_queries=30, ties=True)
    frame = run_frame(run_rows)
    frame["note"] = [f'line one\nline "two" of {i}' if i % 7 == 0 else f"plain, {i}"
                     for i in range(len(frame))]
    run_path = write(frame, tmp_path / "run", "csv")
    qrels_path = write(qrels_frame(qrels_rows), tmp_path / "qrels", "csv")
    args = [run_path, "--qrels", qrels_path, "--query", "query", "--doc", "doc", "--score",
            "score", "--k", "5,20", "--ties", "stable"]
    spark.conf.set("spark.sql.files.maxPartitionBytes", "2048")
    spark.conf.set("spark.sql.files.openCostInBytes", "0")
    try:
        assert not spark_input.rows_are_lines(run_path)
        same_json(cli_json(capsys, *args, "--engine", "memory"),
                  cli_json(capsys, *args, "--engine", "spark"))
        frame["note"] = frame["note"].str.replace("\n", " ")
        run_path = write(frame, tmp_path / "one-line", "csv")
        args[0] = run_path
        assert spark_input.rows_are_lines(run_path)
        same_json(cli_json(capsys, *args, "--engine", "memory"),
                  cli_json(capsys, *args, "--engine", "spark"))
    finally:
        spark.conf.unset("spark.sql.files.maxPartitionBytes")
        spark.conf.unset("spark.sql.files.openCostInBytes")


def test_digit_only_ids_stay_text_in_a_csv_read_by_spark(spark, tmp_path, capsys):
    """'9' > '10' > '00042' > '42.0' as strings (trec_eval's tie break); scores in scientific
    notation tie with their plain spelling; '7' and '007' are two queries."""
    run = tmp_path / "run.csv"
    write_text(str(run), "query,doc,score,relevance", [
        ("007", "9", "1", "0"), ("007", "10", "1e0", "0"), ("007", "00042", "1.0", "1"),
        ("007", "42.0", "0.5", "1"), ("7", "42", "1E0", "1"), ("7", "9", "1e-3", "")])
    sp = cli_json(capsys, run, "--k", "1,3", "--engine", "spark")
    values = {r["metric"]: r["value"] for r in sp["results"]}
    # query '007': order 9, 10, 00042, 42.0 (first relevant at rank 3); query '7': rank 1
    assert values["mrr"] == pytest.approx((1 / 3 + 1) / 2, abs=ATOL)
    assert values["p@1"] == pytest.approx(0.5, abs=ATOL)
    same_json(cli_json(capsys, run, "--k", "1,3", "--engine", "memory"), sp)
    frame = pd.DataFrame({"query": [1, 1, 1, 2, 2], "doc": [9.0, 10.0, 42.0, 42.0, 0.5],
                          "score": [1.0, 1.0, 1.0, 2.0, 1.0], "relevance": [0, 1, 2, 1, 0]})
    path = write(frame, tmp_path / "typed", "parquet")  # number-typed ids: 42.0 is '42'
    same_json(cli_json(capsys, path, "--k", "1,2", "--engine", "memory"),
              cli_json(capsys, path, "--k", "1,2", "--engine", "spark"))


@settings(max_examples=8, deadline=None, database=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(data=odd_runs(), ties=st.sampled_from(["trec_eval", "stable", "pessimistic", "optimistic"]),
       threshold=st.sampled_from([1.0, 2.0, 0.0]))
def test_odd_ids_and_scores_as_text_files(spark, data, ties, threshold):
    """test_engines' generated text files (digit-only ids, tied scores written as 1e2 and 100,
    missing, negative and qrels-only judgments), read by Spark: the in-memory table."""
    run_lines, qrels_lines = data
    with tempfile.TemporaryDirectory() as tmp:
        run_path, qrels_path = os.path.join(tmp, "run.csv"), os.path.join(tmp, "qrels.csv")
        write_text(run_path, "query,doc,score", run_lines)
        write_text(qrels_path, "query,doc,relevance", qrels_lines)
        options = dict(query="query", doc="doc", score="score", qrels=qrels_path, ks=(1, 3),
                       ties=ties, relevance_threshold=threshold)
        memory = ra.run(load_table(run_path), ra.Options(engine="memory", **options))
        spark_result = ra.run_unloaded([run_path], ra.Options(engine="spark", **options))
    assert_same_result(memory, spark_result, "spark")


# --------------------------------------------------------------------------- bad input


def test_bad_cells_and_duplicates_are_one_sentence_with_the_line(spark, tmp_path, capsys):
    run = tmp_path / "run.csv"
    for cell, expected in [("abc", "but 1 row does not: 'abc' (line 3)"),
                           ("1.5d", "but 1 row does not: '1.5d' (line 3)"),
                           ("", "has an empty cell (line 3); expected a number in every row")]:
        write_text(str(run), "query,doc,score,relevance",
                   [("q1", "d1", "1", "1"), ("q1", "d2", cell, "0")])
        err = cli_error(capsys, run, "--k", "1", "--engine", "spark")
        assert "Column 'score' of file" in err and expected in err, err
        assert "\n" not in err
    write_text(str(run), "query,doc,score,relevance",
               [("q1", "d1", "1", "1"), ("q1", "d2", "2", "0"), ("q1", "d1", "3", "1")])
    err = cli_error(capsys, run, "--k", "1", "--engine", "spark")
    assert "repeat a (query, document) pair" in err and "query=q1, doc=d1" in err, err
    assert "lines 2, 4" in err, err


@pytest.mark.parametrize("systems", [False, True])
@pytest.mark.parametrize("scores", [("3", "3"), ("3", "1"), ("1", "2.5")])
def test_a_document_retrieved_twice_with_qrels_is_refused(spark, tmp_path, capsys, systems,
                                                          scores):
    """With a qrels file, one system's repeated document is found by the row before it in
    (query, document) order, several systems' by the set of ids: either way the sentence,
    whether the twins tie or are ranked apart, and a document of the same id under another
    query, or under another system, is no repeat."""
    run, qrels = tmp_path / "run.csv", tmp_path / "qrels.csv"
    header = "system,query,doc,score" if systems else "query,doc,score"
    sys_col = ("A",) if systems else ()
    rows = [(*sys_col, "q0", "d1", "9"), (*sys_col, "q1", "d1", scores[0]),
            (*sys_col, "q1", "d0", "2"), (*sys_col, "q1", "d2", "2"),
            (*sys_col, "q1", "d1", scores[1])]
    if systems:
        rows += [("B", "q1", "d1", "5"), ("B", "q1", "d2", "1")]
    write_text(str(qrels), "query,doc,relevance", [("q1", "d1", "1"), ("q0", "d1", "2")])
    write_text(str(run), header, rows)
    extra = ("--system", "system") if systems else ()
    err = cli_error(capsys, run, "--qrels", qrels, "--k", "2", "--engine", "spark", *extra)
    assert "repeat a (query, document) pair" in err and "query=q1, doc=d1" in err, err
    assert "lines 3, 6" in err, err
    del rows[4]  # the same ids elsewhere only: computed, as in memory
    write_text(str(run), header, rows)
    # a judgment given twice: the qrels' sentence with its lines; a bad grade is said first
    write_text(str(qrels), "query,doc,relevance",
               [("q1", "d1", "1"), ("q0", "d1", "2"), ("q1", "d1", "0")])
    for engine in ("spark", "duckdb"):
        err = cli_error(capsys, run, "--qrels", qrels, "--k", "2", "--engine", engine, *extra)
        assert "repeat a (query, document) judgment" in err, (engine, err)
        assert "query=q1, doc=d1 appears on lines 2, 4" in err, (engine, err)
    write_text(str(qrels), "query,doc,relevance",
               [("q1", "d1", "1"), ("q0", "d1", "x"), ("q1", "d1", "0")])
    err = cli_error(capsys, run, "--qrels", qrels, "--k", "2", "--engine", "spark", *extra)
    assert "Column 'relevance' of file" in err and "'x' (line 3)" in err, err
    write_text(str(qrels), "query,doc,relevance", [("q1", "d1", "1"), ("q0", "d1", "2")])
    write_text(str(run), header, rows)
    argv = [run, "--qrels", qrels, "--k", "2", *extra]
    assert cli_main(["ranking", *map(str, argv), "--engine", "spark", "--json"]) == 0
    spark_json = json.loads(capsys.readouterr().out)
    assert cli_main(["ranking", *map(str, argv), "--engine", "memory", "--json"]) == 0
    same_json(json.loads(capsys.readouterr().out), spark_json)


# --------------------------------------------------------------------------- without Spark


def test_without_pyspark_or_java_the_engine_is_one_sentence(tmp_path, capsys, monkeypatch):
    run = tmp_path / "run.csv"
    write_text(str(run), "query,doc,score,relevance", [("q1", "d1", "1", "1")])
    monkeypatch.setitem(sys.modules, "pyspark", None)  # import pyspark raises ImportError
    err = cli_error(capsys, run, "--k", "1", "--engine", "spark")
    assert "needs the pyspark package" in err and "eval-workbench[spark]" in err, err
    with pytest.raises(OptionError, match="pyspark"):
        ra.run(load_table(str(run)), ra.Options(engine="spark", ks=(1,)))
    monkeypatch.delitem(sys.modules, "pyspark")
    pytest.importorskip("pyspark")
    monkeypatch.setenv("JAVA_HOME", str(tmp_path / "no-java"))
    err = cli_error(capsys, run, "--k", "1", "--engine", "spark")
    assert "needs Java 17" in err and "openjdk-17-jre-headless" in err, err


def test_auto_never_chooses_spark(tmp_path, capsys, monkeypatch):
    from workbench.engines import budget

    run_rows, qrels_rows = generate(11, n_queries=5)
    run_path = write(run_frame(run_rows), tmp_path / "run", "csv")
    qrels_path = write(qrels_frame(qrels_rows), tmp_path / "qrels", "csv")
    monkeypatch.setattr(budget, "BYTES_PER_ROW", 10**9)  # over any budget: DuckDB, not Spark
    assert "engine:duckdb" in cli_json(capsys, run_path, "--qrels", qrels_path, "--k", "5",
                                       "--engine", "auto")["signature"]


def test_the_workbench_does_not_import_pyspark_unless_asked():
    code = ("import sys, workbench, workbench.cli.main, workbench.analyses.ranking, "
            "workbench.analyses.ranking_engines, workbench.engines.spark; "
            "print(any(m == 'pyspark' or m.startswith('pyspark.') or m == 'py4j' "
            "for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, env={**os.environ, "PYTHONPATH": ROOT}, check=True)
    assert out.stdout.strip() == "False"


def test_poisson_hash_weights_and_means_equal_in_spark_sql(spark):
    """The hashed Poisson bootstrap's SQL in Spark: the same weights and replicate means as numpy
    (and so as DuckDB, tests/test_poisson_bootstrap.py)."""
    from workbench.metrics import poisson_bootstrap as pb

    ids = [f"q{i}" for i in range(300)] + ["東京", "", "00042", "42", "a'b"]
    rng = np.random.default_rng(4)
    frame = pd.DataFrame({"id": ids, "a": rng.random(len(ids)), "n": rng.integers(1, 4, len(ids))})
    spark.createDataFrame(frame).createOrReplaceTempView("pb_units")
    try:
        got = spark.sql(f"SELECT id, reps.r, {pb.weight_sql(pb._sql_key('id', 'spark'), 'reps.r', 8, 'spark')} AS w "
                        f"FROM pb_units CROSS JOIN (SELECT id AS r FROM range(20)) reps").toPandas()
        want = pb.weights(pb.unit_keys(ids), np.arange(20), 8)
        pos = {u: i for i, u in enumerate(ids)}
        assert len(got) == len(ids) * 20
        assert all(want[pos[u], int(r)] == int(w) for u, r, w in got.itertuples(index=False))
        means = spark.sql(pb.means_sql("pb_units", "id", ["a"], resamples=100, seed=8, dialect="spark",
                                       denominator="n")).toPandas()
        ours = pb.replicate_means(frame["a"].to_numpy(), ids, resamples=100, seed=8, denominators=frame["n"])
        np.testing.assert_array_equal(means["r"].to_numpy(), np.arange(100))
        np.testing.assert_allclose(means["mean_0"].to_numpy(), ours[:, 0], rtol=0, atol=1e-12)
    finally:
        spark.catalog.dropTempView("pb_units")


#: one small run (relevance in the run) laid out in the ways a CSV's lines can be written
_LAYOUT_ROWS = ["query,doc,score,relevance", "q1,d1,3,1", "q1,d2,2,0", "q1,d3,1,1",
                "q2,d1,0.5,0", "q2,d9,0.7,1", "q2,d10,0.7,0", "q3,a,1,0", "q3,b,2,1"]
CSV_LAYOUTS = {
    "bom and CRLF": "\ufeff" + "\r\n".join(_LAYOUT_ROWS) + "\r\n",
    "blank lines": "\n".join(_LAYOUT_ROWS[:4] + ["", ""] + _LAYOUT_ROWS[4:]) + "\n\n\n",
    "a line of spaces": "\n".join(_LAYOUT_ROWS[:4] + ["   "] + _LAYOUT_ROWS[4:]) + "\n",
    "a line of commas": "\n".join(_LAYOUT_ROWS[:4] + [",,,"] + _LAYOUT_ROWS[4:]) + "\n",
    "no break after the last line": "\n".join(_LAYOUT_ROWS),
    "CR only": "\r".join(_LAYOUT_ROWS) + "\r",
    "quoted cells": "\n".join(_LAYOUT_ROWS[:1] + ['"q1","d,1","3","1"'] + _LAYOUT_ROWS[1:]),
    "the header again in a later line": "\n".join(_LAYOUT_ROWS + _LAYOUT_ROWS[:1] + ["q4,z,1,1"]),
}


@pytest.mark.parametrize("layout", sorted(CSV_LAYOUTS))
def test_a_csv_split_in_tiny_tasks_reads_as_memory_does(spark, tmp_path, capsys, layout):
    """A CSV without line breaks inside quotes is split between tasks (no ``multiLine``):
    a byte order mark, CRLF or CR-only breaks, blank lines, a line of spaces, a last line
    without its break, the header's text again later: the numbers of memory, or its sentence
    (the same row named)."""
    path = tmp_path / "run.csv"
    path.write_bytes(CSV_LAYOUTS[layout].encode("utf-8"))
    assert spark_input.rows_are_lines(str(path))
    args = [path, "--k", "1,3", "--query", "query", "--doc", "doc", "--score", "score"]
    spark.conf.set("spark.sql.files.maxPartitionBytes", "24")
    spark.conf.set("spark.sql.files.openCostInBytes", "0")
    try:
        outcome = {}
        for engine in ("memory", "spark"):
            code = cli_main(["ranking", *map(str, args), "--engine", engine, "--json"])
            out, err = capsys.readouterr()
            outcome[engine] = (code, json.loads(out) if code == 0 else err.strip())
    finally:
        spark.conf.unset("spark.sql.files.maxPartitionBytes")
        spark.conf.unset("spark.sql.files.openCostInBytes")
    assert outcome["memory"][0] == outcome["spark"][0]
    if outcome["memory"][0] == 0:
        assert outcome["memory"][1]["results"], layout
        same_json(outcome["memory"][1], outcome["spark"][1])
    else:
        assert outcome["memory"][1] == outcome["spark"][1]


@pytest.mark.parametrize("kind", ["csv", "parquet"])
def test_a_qrels_with_its_own_column_names_read_by_spark(spark, tmp_path, capsys, kind):
    """ir_datasets' qrels names (query_id, doc_id, relevance, iteration) against a run's
    q, d, s: the columns memory takes, its numbers and its note."""
    run_rows, qrels_rows = generate(29, n_queries=25, ties=True)
    run = run_frame(run_rows).rename(columns={"query": "q", "doc": "d", "score": "s"})
    qrels = qrels_frame(qrels_rows).rename(columns={"query": "query_id", "doc": "doc_id"})
    qrels.insert(1, "iteration", 0)
    args = [write(run, tmp_path / "run", kind), "--qrels", write(qrels, tmp_path / "qrels", kind),
            "--query", "q", "--doc", "d", "--score", "s", "--k", "5,10"]
    memory = cli_json(capsys, *args, "--engine", "memory")
    sp = cli_json(capsys, *args, "--engine", "spark")
    same_json(memory, sp)
    assert [n for n in sp["notes"] if "'query_id' as the query ids" in n]


def test_fractional_grades_are_used_as_they_are_and_said(spark, tmp_path, capsys):
    """Grades 0.5 and 1.5 (a judge's averaged labels): every engine uses them as they are
    (gain 0.5; relevant from 1) with the same numbers, and says how many there are."""
    run = pd.DataFrame({"query": ["a"] * 4 + ["b"] * 3, "doc": list("wxyzwxy"),
                        "score": [4, 3, 2, 1, 3, 2, 1]})
    qrels = pd.DataFrame({"query": ["a", "a", "a", "b", "b"], "doc": list("wxzxy"),
                          "relevance": [0.5, 2, 1.5, 1, 0.25]})
    args = [write(run, tmp_path / "run", "csv"), "--qrels", write(qrels, tmp_path / "q", "csv"),
            "--k", "3,10"]
    out = {e: cli_json(capsys, *args, "--engine", e) for e in ("memory", "duckdb", "spark")}
    for e in ("duckdb", "spark"):
        same_json(out["memory"], out[e])
    for e, got in out.items():
        assert [n for n in got["notes"] if n.startswith("3 judgments have a fractional grade")], \
            (e, got["notes"])
    # nDCG@3 of query a by hand: ranked w(0.5) x(2) y(0); ideal x(2) z(1.5) w(0.5)
    dcg = 0.5 + 2 / np.log2(3)
    idcg = 2 + 1.5 / np.log2(3) + 0.5 / 2
    # query b: ranked w(unjudged) x(1) y(0.25); ideal x(1) y(0.25)
    dcg_b = 1 / np.log2(3) + 0.25 / 2
    idcg_b = 1 + 0.25 / np.log2(3)
    ndcg = {r["metric"]: r["value"] for r in out["memory"]["results"]}["ndcg@3"]
    assert ndcg == pytest.approx((dcg / idcg + dcg_b / idcg_b) / 2, abs=1e-12)


@pytest.mark.parametrize("ending", ["\r\n", "\r", "\n"])
def test_a_line_break_inside_a_quoted_id_stays_as_written(spark, tmp_path, capsys, ending):
    """Quoted doc ids holding '\\r\\n' or '\\n' in a file whose lines end in CRLF, CR or LF:
    Spark reads each id as written (its own line ending is given to it), so the judgments
    match as in memory; a file ending its lines two ways is one sentence."""
    rows = [("q1", 'x\r\ny', 3), ("q1", "z", 2), ("q1", 'u\nv', 1), ("q2", "z", 1)]
    text = ending.join(["query,doc,score"] + [f'{q},"{d}",{s}' for q, d, s in rows]) + ending
    run_path = tmp_path / "run.csv"
    run_path.write_bytes(text.encode("utf-8"))
    qrels = pd.DataFrame({"query": ["q1", "q1", "q2"], "doc": ["x\r\ny", "u\nv", "z"],
                          "relevance": [1, 2, 1]})
    qrels_path = write(qrels, tmp_path / "qrels", "parquet")
    args = [run_path, "--qrels", qrels_path, "--k", "3"]
    memory = cli_json(capsys, *args, "--engine", "memory")
    sp = cli_json(capsys, *args, "--engine", "spark")
    same_json(memory, sp)
    # q1: relevant at ranks 1 and 3 -> AP (1 + 2/3) / 2; q2: relevant at rank 1 -> AP 1
    expected = ((1 + 2 / 3) / 2 + 1) / 2
    assert {r["metric"]: r["value"] for r in sp["results"]}["map"] == pytest.approx(expected)

    other = "\n" if ending != "\n" else "\r\n"
    body = other.join(f'{q},"{d}",{s}' for q, d, s in rows)
    run_path.write_bytes(("query,doc,score" + ending + body + other).encode("utf-8"))
    message = cli_error(capsys, run_path, "--qrels", qrels_path, "--engine", "spark")
    assert "more than one way" in message and "run.csv" in message


def test_a_cp1252_csv_is_read_by_spark_as_in_memory(spark, tmp_path, capsys):
    """A run saved by Excel on Windows (cp1252, accented ids, CRLF): Spark reads it in that
    encoding, ids matching a UTF-8 qrels as in memory; DuckDB, which cannot, says so."""
    text = "query,doc,score\r\nq1,café,3\r\nq1,d2,2\r\nq1,\"naïve\r\nlines\",1\r\nq2,dè,1\r\n"
    run_path = tmp_path / "excel.csv"
    run_path.write_bytes(text.encode("cp1252"))
    qrels = pd.DataFrame({"query": ["q1", "q1", "q2"], "doc": ["café", "naïve\r\nlines", "dè"],
                          "relevance": [2, 1, 1]})
    qrels_path = write(qrels, tmp_path / "qrels", "csv")
    args = [run_path, "--qrels", qrels_path, "--k", "3"]
    memory = cli_json(capsys, *args, "--engine", "memory")
    sp = cli_json(capsys, *args, "--engine", "spark")
    same_json(memory, sp)
    assert "|engine:spark" in sp["signature"]
    # q1: relevant at ranks 1 and 3 -> AP (1 + 2/3) / 2; q2: AP 1
    assert {r["metric"]: r["value"] for r in sp["results"]}["map"] == \
        pytest.approx(((1 + 2 / 3) / 2 + 1) / 2)
    message = cli_error(capsys, *args, "--engine", "duckdb")
    assert "cp1252" in message and "excel.csv" in message
