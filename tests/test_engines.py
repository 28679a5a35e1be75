"""The DuckDB engine of the ranking analysis (workbench/engines, issue 29): the same per-query
table as the in-memory engine (every value within 1e-12, the same queries in the same order,
the same notes) and the same numbers as pytrec_eval, on the bundled examples, the TREC
fixtures, generated data with the hard cases (ties, unjudged queries, judged queries never
retrieved, duplicate documents, scores in scientific notation, digit-only ids that a CSV
sniffer would turn into numbers), from a table in memory and from CSV and Parquet files that
DuckDB reads itself."""

from __future__ import annotations

import json
import os
import tempfile

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

duckdb = pytest.importorskip("duckdb")
pytrec_eval = pytest.importorskip("pytrec_eval")

from tests.test_crosscheck_ranking import (as_trec, assert_matches_trec, generate,  # noqa: E402
                                           qrels_frame, run_frame, trec_evaluate)
from workbench.analyses import ranking as ra  # noqa: E402
from workbench.cli.main import main as cli_main  # noqa: E402
from workbench.core.errors import DataError, OptionError  # noqa: E402
from workbench.engines import budget  # noqa: E402
from workbench.io import LoadedTable, load_table  # noqa: E402

ATOL = 1e-12
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = os.path.join(ROOT, "resources", "examples")
TREC = os.path.join(ROOT, "tests", "fixtures", "formats", "trec")
ENGINE_NOTE = "computed by DuckDB"


# --------------------------------------------------------------------------- comparison


ENGINE_NOTES = {"duckdb": ENGINE_NOTE, "spark": "computed by Spark"}


def assert_same_result(memory, duck, engine: str = "duckdb") -> None:
    """Same per-query table (values within 1e-12, everything else equal), same summary, same
    headline records, same notes and signature but for the engine (``duck``: the result of
    ``engine``)."""
    note = ENGINE_NOTES[engine]
    for name in ("queries", "summary"):
        a, b = memory.table(name).frame, duck.table(name).frame
        assert list(a.columns) == list(b.columns), name
        assert len(a) == len(b), name
        for column in a.columns:
            x, y = a[column].to_numpy(), b[column].to_numpy()
            if x.dtype.kind == "f" or y.dtype.kind == "f":
                np.testing.assert_allclose(y.astype(float), x.astype(float), rtol=0, atol=ATOL,
                                           err_msg=f"{name}.{column}")
            else:
                assert [str(v) for v in x] == [str(v) for v in y], f"{name}.{column}"
    assert len(memory.records) == len(duck.records)
    for r, s in zip(memory.records, duck.records):
        assert r.keys() == s.keys()
        for key in r:  # numbers (the value, an interval's ends) within 1e-12, the rest equal
            a, b = r[key], s[key]
            if isinstance(a, float) and isinstance(b, float) and not np.isnan(a):
                assert abs(a - b) <= ATOL, (r["metric"], key)
            elif isinstance(a, float) and np.isnan(a):
                assert b is None or np.isnan(b), (r["metric"], key)
            else:
                assert a == b, (r["metric"], key)
    assert [n for n in duck.notes if note not in n] == list(memory.notes)
    assert sum(note in n for n in duck.notes) == 1
    assert "|engine:memory" in memory.signature
    assert f"|engine:{engine}" in duck.signature
    assert memory.signature.replace("engine:memory", "") == \
        duck.signature.replace(f"engine:{engine}", "")


def both(table: LoadedTable, **options):
    memory = ra.run(table, ra.Options(engine="memory", **options))
    duck = ra.run(table, ra.Options(engine="duckdb", **options))
    assert_same_result(memory, duck)
    return memory, duck


def cli_json(capsys, *argv) -> dict:
    code = cli_main(["ranking", *map(str, argv), "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


def cli_error(capsys, *argv) -> str:
    code = cli_main(["ranking", *map(str, argv)])
    out, err = capsys.readouterr()
    assert code == 2, out
    return err.strip()


# --------------------------------------------------------------------------- examples, fixtures


@pytest.mark.parametrize("name", ["ranking_seed.csv", "ranking_graded.csv"])
@pytest.mark.parametrize("ties", ["trec_eval", "stable", "pessimistic", "optimistic"])
def test_bundled_examples_give_the_same_table(name, ties):
    table = load_table(os.path.join(EXAMPLES, name))
    both(table, ks=(1, 3, 5, 10), ties=ties)
    both(table, ks=(2, 4), gain="exponential", no_relevant="skip", relevance_threshold=2)


def test_trec_fixtures_on_the_command_line(capsys):
    """TREC runs (a format DuckDB does not read: loaded, then the engine), two stacked runs
    as systems, a TREC qrels."""
    runs = [os.path.join(TREC, "runA.run"), os.path.join(TREC, "runB.run")]
    qrels = os.path.join(TREC, "qrels.test.txt")
    memory = cli_json(capsys, *runs, "--qrels", qrels, "--k", "1,5,10", "--engine", "memory")
    duck = cli_json(capsys, *runs, "--qrels", qrels, "--k", "1,5,10", "--engine", "duckdb")
    assert "engine:duckdb" in duck["signature"] and "engine:memory" in memory["signature"]
    assert [r["metric"] for r in memory["results"]] == [r["metric"] for r in duck["results"]]
    for a, b in zip(memory["results"], duck["results"]):
        assert a["n"] == b["n"] and a.get("system") == b.get("system")
        if a["value"] is not None:
            assert b["value"] == pytest.approx(a["value"], abs=ATOL)


@pytest.mark.parametrize("suffix", [".tsv", ".csv"])
def test_a_trec_run_and_qrels_named_as_delimited_files(tmp_path, capsys, suffix):
    """A TREC run and qrels whose names say CSV/TSV (no header: not a CSV an engine reads
    with its header): loaded as TREC files, then the engine; memory's numbers."""
    import shutil

    run = shutil.copy(os.path.join(TREC, "runA.run"), tmp_path / f"run{suffix}")
    qrels = shutil.copy(os.path.join(TREC, "qrels.test.txt"), tmp_path / f"qrels{suffix}")
    memory = cli_json(capsys, run, "--qrels", qrels, "--k", "1,5,10", "--engine", "memory")
    assert memory["results"] and any("TREC run" in n for n in memory["notes"])
    duck = cli_json(capsys, run, "--qrels", qrels, "--k", "1,5,10", "--engine", "duckdb")
    assert "engine:duckdb" in duck["signature"]
    for a, b in zip(memory["results"], duck["results"], strict=True):
        assert (a["metric"], a["n"]) == (b["metric"], b["n"])
        if a["value"] is not None:
            assert b["value"] == pytest.approx(a["value"], abs=ATOL)


# --------------------------------------------------------------------------- generated data


@pytest.mark.parametrize("seed,ties,systems", [(1, False, (None,)), (2, True, (None,)),
                                                (3, True, ("bm25", "dense", "hybrid"))])
def test_generated_runs_match_memory_and_pytrec_eval(tmp_path, seed, ties, systems):
    run_rows, qrels_rows = generate(seed, n_queries=60, ties=ties, systems=systems)
    # queries only in the run (unjudged: skipped) and only in the qrels (missed: zero)
    run_rows += [(s, "unjudged-q", f"d{i}", float(i)) for s in systems for i in range(4)]
    qrels_rows += [("missed-q", "d1", 2), ("missed-q", "d2", 0)]
    qrels_path = tmp_path / "qrels.csv"
    qrels_frame(qrels_rows).to_csv(qrels_path, index=False)
    frame = run_frame(run_rows)
    options = dict(query="query", doc="doc", score="score", qrels=str(qrels_path),
                   ks=(1, 3, 5, 10), system="system" if "system" in frame else None)
    table = LoadedTable(frame=frame, path="<memory>")
    _, duck = both(table, **options)
    both(table, **{**options, "unjudged": "zero"})
    for system in systems:
        qrels, run = as_trec(run_rows, qrels_rows, system)
        trec = trec_evaluate(qrels, run)
        per = duck.table("queries").frame
        if system is not None:
            per = per[per["system"] == system]
        assert_matches_trec(per.set_index("query"), trec)


def write(frame: pd.DataFrame, path, kind: str) -> str:
    path = f"{path}.{kind}"
    if kind == "csv":
        frame.to_csv(path, index=False)
    else:
        frame.to_parquet(path, index=False)
    return path


@pytest.mark.parametrize("kind", ["csv", "parquet"])
def test_files_read_by_duckdb_match_memory_and_pytrec_eval(tmp_path, capsys, kind):
    run_rows, qrels_rows = generate(7, n_queries=80, ties=True, systems=("a", "b"))
    run_path = write(run_frame(run_rows), tmp_path / "run", kind)
    qrels_path = write(qrels_frame(qrels_rows), tmp_path / "qrels", kind)
    args = [run_path, "--qrels", qrels_path, "--query", "query", "--doc", "doc", "--score",
            "score", "--system", "system", "--k", "10,100"]
    memory = cli_json(capsys, *args, "--engine", "memory")
    duck = cli_json(capsys, *args, "--engine", "duckdb")
    assert duck["signature"].endswith("engine:duckdb") or "engine:duckdb|" in duck["signature"]
    for a, b in zip(memory["results"], duck["results"]):
        assert (a["metric"], a.get("system"), a["n"]) == (b["metric"], b.get("system"), b["n"])
        assert b["value"] == pytest.approx(a["value"], abs=ATOL)
        # the same intervals: a seed draws the same resamples whatever engine summed the
        # queries (their float noise does not reorder the rows the bootstrap draws)
        for bound in ("ci_low", "ci_high", "t_low", "t_high"):
            if a.get(bound) is not None:
                assert b[bound] == pytest.approx(a[bound], abs=1e-12), (a["metric"], bound)
    for system in ("a", "b"):
        qrels, run = as_trec(run_rows, qrels_rows, system)
        trec = trec_evaluate(qrels, run, measures={"P.10,100", "ndcg_cut.10,100", "map",
                                                   "recip_rank"})
        values = {r["metric"]: r["value"] for r in duck["results"] if r.get("system") == system}
        for metric, measure in {"p@10": "P_10", "p@100": "P_100", "ndcg@10": "ndcg_cut_10",
                                "ndcg@100": "ndcg_cut_100", "map": "map", "mrr": "recip_rank"}.items():
            assert values[metric] == pytest.approx(np.mean([trec[q][measure] for q in trec]),
                                                   rel=1e-9, abs=ATOL), (system, metric)


#: ids that a CSV reader's type sniffing would turn into numbers, or into one number
ODD_IDS = ["9", "10", "00042", "42", "42.0", "4.2e1", "007", "-1", "+5", "1e3", "NA", "0x1"]
#: scores written as a person or a program writes them
SCORE_TEXT = ["1e-3", "1E-3", "0.001", "2.5E+1", "25", "-0.0", "0", "0.0", "1e2", "100", "3.",
              ".5"]


@st.composite
def odd_runs(draw):
    """Few queries with digit-only ids, tied scores written in several ways (1e2 and 100 tie),
    judgments that may be missing, negative or only in the qrels."""
    run_lines, qrels_lines = [], []
    for qi in range(draw(st.integers(1, 5))):
        q = draw(st.sampled_from(["1", "01", "1.0", "q1", "2", "10"]))
        if any(line[0] == q for line in run_lines + qrels_lines):
            continue
        docs = draw(st.lists(st.sampled_from(ODD_IDS), min_size=1, max_size=8, unique=True))
        where = draw(st.sampled_from(["both", "both", "run", "qrels"]))
        if where in ("both", "run"):
            run_lines += [(q, d, draw(st.sampled_from(SCORE_TEXT))) for d in docs]
        if where in ("both", "qrels"):
            judged = draw(st.lists(st.sampled_from(ODD_IDS), min_size=1, max_size=5, unique=True))
            qrels_lines += [(q, d, str(draw(st.integers(-1, 3)))) for d in judged]
    if not run_lines:
        run_lines = [("q9", "9", "1e0")]
    if not qrels_lines:
        qrels_lines = [("q9", "10", "1")]
    return run_lines, qrels_lines


def write_text(path: str, header: str, lines) -> None:
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(header + "\n" + "".join(",".join(line) + "\n" for line in lines))


@settings(max_examples=40, deadline=None, database=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(data=odd_runs(), ks=st.sampled_from([(1, 3), (2, 10)]),
       ties=st.sampled_from(["trec_eval", "stable", "pessimistic", "optimistic"]),
       threshold=st.sampled_from([1.0, 2.0, 0.0]))
def test_odd_ids_and_scores_as_text_files(capsys, data, ks, ties, threshold):
    """Run and qrels as CSV text read by DuckDB (every column as text): the same table as the
    in-memory engine reading the same files, and trec_eval's numbers for the trec_eval ties."""
    run_lines, qrels_lines = data
    with tempfile.TemporaryDirectory() as tmp:
        run_path, qrels_path = os.path.join(tmp, "run.csv"), os.path.join(tmp, "qrels.csv")
        write_text(run_path, "query,doc,score", run_lines)
        write_text(qrels_path, "query,doc,relevance", qrels_lines)
        options = dict(query="query", doc="doc", score="score", qrels=qrels_path, ks=ks,
                       ties=ties, relevance_threshold=threshold)
        memory = ra.run(load_table(run_path), ra.Options(engine="memory", **options))
        duck = ra.run_unloaded([run_path], ra.Options(engine="duckdb", **options))
    assert_same_result(memory, duck)
    if ties == "trec_eval" and threshold >= 1:
        qrels = {}
        for q, d, g in qrels_lines:
            qrels.setdefault(q, {})[d] = int(g)
        run = {}
        for q, d, s in run_lines:
            run.setdefault(q, {})[d] = float(s)
        trec = trec_evaluate(qrels, run, relevance_level=int(threshold),
                             measures={f"P.{ks[0]},{ks[1]}", "recip_rank", "map"})
        per = duck.table("queries").frame.set_index("query")
        if trec:  # pytrec_eval scores the queries both in the run and in the qrels
            assert_matches_trec(per.loc[sorted(trec)], trec, {
                f"p@{ks[0]}": f"P_{ks[0]}", f"p@{ks[1]}": f"P_{ks[1]}", "rr": "recip_rank",
                "ap": "map"})


def test_digit_only_ids_stay_text_and_break_ties_as_strings(tmp_path, capsys):
    """'9' > '10' > '00042' as strings (trec_eval); as numbers the order would be reversed."""
    run = tmp_path / "run.csv"
    write_text(str(run), "query,doc,score,relevance", [
        ("007", "9", "1", "0"), ("007", "10", "1", "0"), ("007", "00042", "1", "1"),
        ("007", "42.0", "0.5", "1"), ("7", "42", "1e0", "1")])
    duck = cli_json(capsys, run, "--k", "1,3", "--engine", "duckdb")
    per = {r["metric"]: r["value"] for r in duck["results"]}
    # query '007': order 9, 10, 00042, 42.0: first relevant at rank 3; query '7': rank 1
    assert per["mrr"] == pytest.approx((1 / 3 + 1) / 2)
    assert per["p@1"] == pytest.approx(0.5)
    memory = cli_json(capsys, run, "--k", "1,3", "--engine", "memory")
    assert [r["value"] for r in memory["results"]] == pytest.approx(
        [r["value"] for r in duck["results"]], abs=ATOL)


def test_parquet_number_typed_ids_are_rendered_as_in_memory(tmp_path, capsys):
    """Integer and float id columns in Parquet: 42 and 42.0 are the id '42' in both engines."""
    frame = pd.DataFrame({"query": [1, 1, 1, 2, 2], "doc": [9.0, 10.0, 42.0, 42.0, 0.5],
                          "score": [1.0, 1.0, 1.0, 2.0, 1.0], "relevance": [0, 1, 2, 1, 0]})
    path = write(frame, tmp_path / "run", "parquet")
    memory = cli_json(capsys, path, "--k", "1,2", "--engine", "memory")
    duck = cli_json(capsys, path, "--k", "1,2", "--engine", "duckdb")
    assert [r["value"] for r in memory["results"]] == pytest.approx(
        [r["value"] for r in duck["results"]], abs=ATOL)


# --------------------------------------------------------------------------- bad input


def test_duplicate_documents_are_refused_by_both_engines(tmp_path, capsys):
    run = tmp_path / "run.csv"
    write_text(str(run), "query,doc,score,relevance",
               [("q1", "d1", "1", "1"), ("q1", "d2", "2", "0"), ("q1", "d1", "3", "1")])
    for engine in ("memory", "duckdb"):
        err = cli_error(capsys, run, "--k", "1", "--engine", engine)
        assert "repeat a (query, document) pair" in err and "query=q1, doc=d1" in err, err
        assert "lines 2, 4" in err, err
    table = load_table(str(run))
    with pytest.raises(DataError, match="repeat a"):
        ra.run(table, ra.Options(engine="duckdb", ks=(1,)))


@pytest.mark.parametrize("cell,expected", [
    ("abc", "must hold numbers (like 3, 0.25 or 1e-3), but 1 row does not: 'abc' (line 3)"),
    ("inf", "but 1 row does not: 'inf' (line 3)"),
    ("1_000", "but 1 row does not: '1_000' (line 3)"),
    ("", "has an empty cell (line 3); expected a number in every row"),
])
def test_a_bad_score_cell_is_one_sentence(tmp_path, capsys, cell, expected):
    run = tmp_path / "run.csv"
    write_text(str(run), "query,doc,score,relevance",
               [("q1", "d1", "1", "1"), ("q1", "d2", cell, "0")])
    err = cli_error(capsys, run, "--k", "1", "--engine", "duckdb")
    assert "Column 'score' of file" in err and expected in err, err
    assert "\n" not in err


def test_a_qrels_without_the_columns_is_refused(tmp_path, capsys):
    """No column names the query ids (neither the run's name nor a usual one): one sentence
    naming the qrels file and its columns."""
    run, qrels = tmp_path / "run.csv", tmp_path / "qrels.csv"
    write_text(str(run), "query,doc,score", [("q1", "d1", "1")])
    write_text(str(qrels), "a,b,c", [("q1", "d1", "1")])
    for engine in ("memory", "duckdb"):
        err = cli_error(capsys, run, "--qrels", qrels, "--k", "1", "--engine", engine)
        assert "qrels.csv" in err and "'query'" in err and "a, b, c" in err, err


# --------------------------------------------------------------------------- choosing


def test_auto_takes_memory_within_the_budget_and_duckdb_over_it(tmp_path, capsys, monkeypatch):
    run_rows, qrels_rows = generate(11, n_queries=20)
    run_path = write(run_frame(run_rows), tmp_path / "run", "csv")
    qrels_path = write(qrels_frame(qrels_rows), tmp_path / "qrels", "csv")
    args = [run_path, "--qrels", qrels_path, "--k", "5"]
    small = cli_json(capsys, *args)  # the default is auto
    assert "engine:memory" in small["signature"]
    why = [n for n in small["notes"] if "'auto'" in n and "in memory" in n]
    assert len(why) == 1 and f"{budget.memory_budget() / 1e9:.1f} GB" in why[0], small["notes"]
    monkeypatch.setattr(budget, "BYTES_PER_ROW", 10**9)  # every file over the budget
    large = cli_json(capsys, *args, "--engine", "auto")
    assert "engine:duckdb" in large["signature"]
    assert any("'auto'" in n and "over the budget" in n for n in large["notes"])
    assert [r["value"] for r in small["results"]] == pytest.approx(
        [r["value"] for r in large["results"]], abs=ATOL)


def test_duckdbs_memory_limit_is_fitted_to_the_run(tmp_path, capsys, monkeypatch):
    """DuckDB's limit for a ranking run is DUCKDB_RANKING_BYTES_PER_ROW per row (at least the
    floor, never above the budget's limit), set on the connection, and the note states it; the
    numbers do not change with it."""
    assert budget.fitted_duckdb_limit(10_000_000, 70, 4 * 10**9) == 700 * 10**6
    assert budget.fitted_duckdb_limit(100_000_000, 70, 4 * 10**9) == 4 * 10**9
    assert budget.fitted_duckdb_limit(1_000, 70, 4 * 10**9) == budget.DUCKDB_MEMORY_FLOOR
    assert budget.fitted_duckdb_limit(1_000, 70, 10**8) == 10**8  # never raised
    run_rows, qrels_rows = generate(12, n_queries=30)
    run_path = write(run_frame(run_rows), tmp_path / "run", "parquet")
    qrels_path = write(qrels_frame(qrels_rows), tmp_path / "qrels", "csv")
    args = [run_path, "--qrels", qrels_path, "--k", "5", "--engine", "duckdb"]
    wide = cli_json(capsys, *args)
    rows = len(run_rows)
    monkeypatch.setattr(budget, "DUCKDB_MEMORY_FLOOR", 10**6)
    monkeypatch.setattr(budget, "DUCKDB_RANKING_BYTES_PER_ROW", 10**6)  # 1 MB a row
    fitted = cli_json(capsys, *args)
    want = max(10**6, rows * 10**6)
    assert any(f"memory limit of {want / 1e9:.1f} GB" in n for n in fitted["notes"]), fitted["notes"]
    assert [r["value"] for r in fitted["results"]] == pytest.approx(
        [r["value"] for r in wide["results"]], abs=ATOL)


def test_engine_option_is_checked():
    with pytest.raises(OptionError, match="engine"):
        ra.check_options(ra.Options(engine="hadoop"))


def test_estimated_rows_of_csv_and_parquet(tmp_path):
    frame = pd.DataFrame({"query": ["q"] * 5000, "doc": [f"d{i}" for i in range(5000)],
                          "score": np.arange(5000.0)})
    assert budget.estimated_rows(write(frame, tmp_path / "r", "parquet"), "parquet") == 5000
    assert budget.estimated_rows(write(frame, tmp_path / "r", "csv"), "csv") == 5000


def test_without_duckdb_auto_computes_in_memory_and_duckdb_is_one_sentence(tmp_path, capsys,
                                                                          monkeypatch):
    """The standalone installer leaves DuckDB out: auto stays in memory even over the budget,
    and asking for DuckDB says what to do."""
    import sys

    run_rows, qrels_rows = generate(12, n_queries=10)
    run_path = write(run_frame(run_rows), tmp_path / "run", "csv")
    qrels_path = write(qrels_frame(qrels_rows), tmp_path / "qrels", "csv")
    monkeypatch.setitem(sys.modules, "duckdb", None)  # import duckdb raises ImportError
    monkeypatch.setattr(budget, "BYTES_PER_ROW", 10**9)
    auto = cli_json(capsys, run_path, "--qrels", qrels_path, "--k", "5")
    assert "engine:memory" in auto["signature"]
    err = cli_error(capsys, run_path, "--qrels", qrels_path, "--k", "5", "--engine", "duckdb")
    assert "needs the duckdb package" in err and "--engine memory" in err


def test_ties_and_near_ties_are_noted_by_both_engines(tmp_path):
    """Equal scores (1e2 and 100) tie; 1.00000001 and 1.00000002 differ only past single
    precision (trec_eval would tie them): both notes, from both engines."""
    run = tmp_path / "run.csv"
    write_text(str(run), "query,doc,score,relevance", [
        ("a", "d1", "1e2", "1"), ("a", "d2", "100", "0"), ("a", "d3", "7", "1"),
        ("b", "d1", "1.00000001", "0"), ("b", "d2", "1.00000002", "1"), ("c", "d1", "5", "1")])
    options = dict(ks=(1, 2))
    memory = ra.run(load_table(str(run)), ra.Options(engine="memory", **options))
    duck = ra.run_unloaded([str(run)], ra.Options(engine="duckdb", **options))
    assert_same_result(memory, duck)
    per = duck.table("queries").frame.set_index("query")
    assert list(per["tied"]) == [True, False, False]
    assert any("tied scores" in n for n in duck.notes)
    assert any("single precision" in n for n in duck.notes)


@pytest.mark.parametrize("content", [b"", b"PAR1 not really a parquet file PAR1", b"\x00" * 40])
def test_auto_leaves_a_damaged_parquet_file_to_the_loader(tmp_path, capsys, content):
    path = tmp_path / "run.parquet"
    path.write_bytes(content)
    err = cli_error(capsys, path, "--k", "1")
    assert "run.parquet" in err and "Traceback" not in err


@pytest.mark.parametrize("engine", ["auto", "duckdb"])
@pytest.mark.parametrize("name", ["missing.csv", "missing.parquet"])
def test_a_missing_file_is_one_sentence(tmp_path, capsys, engine, name):
    err = cli_error(capsys, tmp_path / name, "--k", "1", "--engine", engine)
    assert name in err and "Traceback" not in err


def test_a_damaged_parquet_file_with_duckdb_is_one_sentence(tmp_path, capsys):
    path = tmp_path / "run.parquet"
    path.write_bytes(b"PAR1 not really a parquet file PAR1")
    err = cli_error(capsys, path, "--k", "1", "--engine", "duckdb")
    assert "run.parquet" in err and "Parquet" in err


def test_csv_run_with_a_trec_qrels(tmp_path, capsys):
    """A qrels in a format DuckDB does not read (TREC) is read by the workbench's loader and
    handed to DuckDB; the run CSV is read by DuckDB."""
    table = load_table(os.path.join(TREC, "runA.run"))
    run_path = tmp_path / "run.csv"
    table.frame[["query", "doc", "score"]].to_csv(run_path, index=False)
    args = [run_path, "--qrels", os.path.join(TREC, "qrels.test.txt"), "--k", "1,5,10"]
    memory = cli_json(capsys, *args, "--engine", "memory")
    duck = cli_json(capsys, *args, "--engine", "duckdb")
    assert "engine:duckdb" in duck["signature"]
    assert [r["value"] for r in memory["results"]] == pytest.approx(
        [r["value"] for r in duck["results"]], abs=ATOL)
    assert [n for n in duck["notes"] if ENGINE_NOTE not in n] == memory["notes"]


def test_two_grades_for_one_judgment_are_refused_by_both_engines(tmp_path, capsys):
    run = tmp_path / "run.csv"
    write_text(str(run), "system,query,doc,score,relevance", [
        ("a", "q1", "d1", "1", "1"), ("b", "q1", "d1", "2", "2"), ("a", "q1", "d2", "3", "0")])
    for engine in ("memory", "duckdb"):
        err = cli_error(capsys, run, "--system", "system", "--k", "1", "--engine", engine)
        assert "document 'd1' of query 'q1' different relevance grades" in err, err


def test_the_spill_folder_is_removed(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    run = tmp_path / "run.csv"
    write_text(str(run), "query,doc,score,relevance", [("q1", "d1", "1", "1"), ("q1", "d2", "x", "0")])
    cli_error(capsys, run, "--k", "1", "--engine", "duckdb")  # a bad cell: an error on the way
    write_text(str(run), "query,doc,score,relevance", [("q1", "d1", "1", "1")])
    cli_json(capsys, run, "--k", "1", "--engine", "duckdb")
    assert not list(tmp_path.glob("workbench-duckdb-*"))
