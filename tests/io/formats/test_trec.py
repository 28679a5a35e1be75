"""TREC run and qrels files: detection, raw-text ids, trec_eval's numbers (pytrec_eval), the CLI
with several runs, and the sentences for files that are almost the format."""

from __future__ import annotations

import csv
import json
import os

import numpy as np
import pandas as pd
import pytest

from workbench.analyses import ranking
from workbench.cli.main import main as cli_main
from workbench.core.errors import DataError
from workbench.io import load_table
from workbench.io import load_many
from workbench.io.roles import guess_roles

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "fixtures", "formats")


@pytest.fixture
def fixture_path():
    return lambda *parts: os.path.abspath(os.path.join(FIXTURES, *parts))


KS = (1, 3, 5, 10)
TREC = {**{f"p@{k}": f"P_{k}" for k in KS}, **{f"r@{k}": f"recall_{k}" for k in KS},
        **{f"ndcg@{k}": f"ndcg_cut_{k}" for k in KS}, "rr": "recip_rank", "ap": "map"}


def _read_trec(path, fields):
    """trec_eval's reading, independently of the workbench: split each non-blank line."""
    rows = []
    with open(path) as handle:
        for line in handle:
            parts = line.split()
            if parts:
                assert len(parts) == fields
                rows.append(parts)
    return rows


def test_run_is_recognised_with_raw_text_ids(fixture_path):
    table = load_table(fixture_path("trec", "runA.run"))
    assert table.format == "trec_run"
    assert list(table.frame.columns) == ["query", "iter", "doc", "rank", "score", "system"]
    assert table.notes[0].startswith("Read as a TREC run file (qid Q0 docno rank score tag")
    docs = set(table.frame.loc[table.frame["query"] == "7", "doc"])
    assert {"1", "1.0", "01"} <= docs  # three documents, never one number
    assert set(table.frame["query"]) == {"301", "302", "7", "7.0", "q-5", "404"}
    assert pd.api.types.is_string_dtype(table.frame["doc"])
    assert pd.api.types.is_string_dtype(table.frame["query"])
    assert table.frame["score"].dtype == np.float64
    assert guess_roles(table) == {"query": "query", "doc": "doc", "score": "score",
                                  "system": "system"}
    assert table.panel == "ranking"
    # the blank line after query 302 is counted: rows map to their lines
    raw = open(fixture_path("trec", "runA.run")).read().split("\n")
    for i in (0, 30, len(table.frame) - 1):
        line = raw[table.line_of(i) - 1].split()
        assert line[0] == table.frame["query"][i] and line[2] == table.frame["doc"][i]


def test_qrels_is_recognised(fixture_path):
    table = load_table(fixture_path("trec", "qrels.test.txt"))
    assert table.format == "trec_qrels"
    assert list(table.frame.columns) == ["query", "iter", "doc", "relevance"]
    assert table.frame["relevance"].dtype == np.int64
    assert table.notes[0].startswith("Read as a TREC qrels file")
    assert table.panel is None  # judgments alone: the data view
    judged = table.frame[table.frame["query"] == "7"].set_index("doc")["relevance"]
    assert judged["1.0"] == 2 and judged["01"] == 0 and "1" not in judged.index


def _workbench(paths, qrels, **options):
    table = load_many(paths)
    result = ranking.run(table, ranking.Options(query="query", doc="doc", score="score",
                                                system="system", qrels=qrels, **options))
    return table, result


@pytest.mark.parametrize("run", ["runA", "runB"])
def test_per_query_numbers_equal_pytrec_eval(fixture_path, run):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels_path = fixture_path("trec", "qrels.test.txt")
    run_path = fixture_path("trec", f"{run}.run")
    qrels, run_dict = {}, {}
    for q, _, d, rel in _read_trec(qrels_path, 4):
        qrels.setdefault(q, {})[d] = int(rel)
    for q, _, d, _, score, _ in _read_trec(run_path, 6):
        run_dict.setdefault(q, {})[d] = float(score)
    evaluator = pytrec_eval.RelevanceEvaluator(
        qrels, {"P.1,3,5,10", "recall.1,3,5,10", "ndcg_cut.1,3,5,10", "recip_rank", "map"})
    expected = evaluator.evaluate(run_dict)
    _, result = _workbench([run_path], qrels_path)
    per_query = result.table("queries").frame.set_index("query")
    assert expected  # the files are judged
    for q, values in expected.items():
        for ours, theirs in TREC.items():
            assert per_query.loc[q, ours] == pytest.approx(values[theirs], abs=1e-12), (q, ours)
    # the means are trec_eval -c's: over the judged queries, a judged query the run missed
    # scoring 0; the run's query judged nowhere (runB's '999') is left out
    assert "999" not in expected and "999" not in per_query.index
    for ours, theirs in TREC.items():
        metric = {"rr": "mrr", "ap": "map"}.get(ours, ours)
        mean = sum(v[theirs] for v in expected.values()) / len(qrels)
        (record,) = result.find(metric, system=run)
        assert record["value"] == pytest.approx(mean, abs=1e-12)
        assert record["n"] == len(qrels)


def test_several_runs_are_several_systems_and_equal_the_csv(fixture_path, tmp_path):
    paths = [fixture_path("trec", "runA.run"), fixture_path("trec", "runB.run")]
    qrels = fixture_path("trec", "qrels.test.txt")
    table, result = _workbench(paths, qrels)
    assert sorted({r["system"] for r in result.records if r.get("system") is not None}) == ["runA", "runB"]
    assert len(table.frame) == sum(len(_read_trec(p, 6)) for p in paths)
    # the same data as CSV files (written with the csv module from the raw lines)
    run_csv, qrels_csv = tmp_path / "run.csv", tmp_path / "qrels.csv"
    with open(run_csv, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["query", "doc", "score", "system"])
        for p in paths:
            for q, _, d, _, s, tag in _read_trec(p, 6):
                writer.writerow([q, d, s, tag])
    with open(qrels_csv, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["query", "doc", "relevance"])
        for q, _, d, rel in _read_trec(qrels, 4):
            writer.writerow([q, d, rel])
    from_csv = ranking.run(load_table(run_csv), ranking.Options(
        query="query", doc="doc", score="score", system="system", qrels=str(qrels_csv)))
    assert [(r["metric"], r.get("system"), r["n"]) for r in result.records] == \
        [(r["metric"], r.get("system"), r["n"]) for r in from_csv.records]
    for ours, theirs in zip(result.records, from_csv.records):
        assert ours["value"] == pytest.approx(theirs["value"], abs=1e-12)


def test_cli_ranking_takes_runs_and_qrels_as_trec_eval_does(fixture_path, capsys):
    paths = [fixture_path("trec", "runA.run"), fixture_path("trec", "runB.run")]
    code = cli_main(["ranking", *paths, "--qrels", fixture_path("trec", "qrels.test.txt"), "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    assert {r["system"] for r in out["results"] if r.get("system") is not None} == {"runA", "runB"}
    assert any("Read as a TREC run file" in n for n in out["notes"])
    assert any("taken as the system column (from the file's format" in n for n in out["notes"])
    _, direct = _workbench(paths, fixture_path("trec", "qrels.test.txt"))
    assert [r["value"] for r in out["results"]] == pytest.approx([r["value"] for r in direct.records])


def test_two_runs_with_the_same_tag_are_named_by_file(tmp_path):
    for name in ("a.run", "b.run"):
        (tmp_path / name).write_text("q1 Q0 d1 1 2.0 same\nq1 Q0 d2 2 1.0 same\n")
    table = load_many([str(tmp_path / "a.run"), str(tmp_path / "b.run")])
    assert sorted(set(table.frame["system"])) == ["a.run", "b.run"]
    assert any("file's name is its system" in n for n in table.notes)


@pytest.mark.parametrize("content, name, words", [
    ("q1 Q0 d1 1 9.5 runA\nq1 Q0 d2 2 8.5 runA\nq1 Q0 d3 3 8.0\n", "x.run",
     ["line 3", "has 5 fields", "qid Q0 docno rank score tag"]),
    ("q1 Q0 d1 1 9.5 runA\n\nq1 Q0 d2 2 high runA\n", "x.txt",
     ["line 3", "score (field 5) 'high'", "not a number"]),
    ("qid Q0 docno rank score tag\nq1 Q0 d1 1 9.5 runA\n", "x.run",
     ["line 1 reads 'qid Q0 docno rank score tag'", "6 whitespace-separated fields"]),
    ("q1 0 d1 1\nq1 0 d2 0 extra stuff here\n", "qrels.txt",
     ["line 2", "has 7 fields", "qid iter docno rel"]),
    ("q1 0 d1 1\nq1 0 d2 yes\n", "qrels", ["line 2", "relevance (field 4) 'yes'"]),
])
def test_almost_the_format_gets_a_sentence(tmp_path, content, name, words):
    path = tmp_path / name
    path.write_text(content)
    with pytest.raises(DataError) as info:
        load_table(path)
    message = str(info.value)
    assert str(path) in message
    for word in words:
        assert word in message
    assert path.read_text() == content  # never modified


def test_a_header_line_in_a_space_separated_run_is_named(tmp_path):
    path = tmp_path / "results.txt"
    path.write_text("qid iter docno rank sim run_id\nq1 Q0 d1 1 9.5 runA\nq1 Q0 d2 2 8.5 runA\n")
    with pytest.raises(DataError, match="line 1 reads 'qid iter docno rank sim run_id'; expected 6"):
        load_table(path)
    # tab-separated with a header is a TSV: read by the delimited reader, roles from the names
    path.write_text("qid\tQ0\tdocno\trank\tscore\ttag\nq1\tQ0\td1\t1\t9.5\trunA\n")
    assert load_table(path).format == "text"


def test_windows_line_ends_and_trailing_spaces(tmp_path):
    path = tmp_path / "w.run"
    path.write_bytes(b"q1 Q0 1 1 9.5 runA \r\nq1 Q0 1.0 2 8.5 runA\r\n\r\nq2 Q0 01 1 1 runA\r\n")
    table = load_table(path)
    assert table.frame["doc"].tolist() == ["1", "1.0", "01"]
    assert table.frame["system"].tolist() == ["runA"] * 3
    assert [table.line_of(i) for i in range(3)] == [1, 2, 4]


def test_a_csv_is_not_taken_for_a_trec_file(tmp_path):
    path = tmp_path / "x.csv"
    path.write_text("query,doc,score\nq1,d1,1\n")
    assert load_table(path).format == "text"


def test_a_million_line_run_loads_within_twice_pandas(tmp_path):
    """Streaming speed: within 2x of pandas.read_csv(sep=r"\\s+") on the same file (measured
    here: see resources/docs/performance.md)."""
    import time

    # the bundle (no pyarrow) reads ids with pandas' C parser as Python strings: ~4x pandas'
    # all-numeric read, as resources/docs/performance.md says; the 2x promise is for installs with pyarrow
    pytest.importorskip("pyarrow", reason="without pyarrow TREC files take the slower pandas path",
                        exc_type=ImportError)
    rng = np.random.default_rng(1)
    n = 1_000_000
    q = rng.integers(0, 5000, n)
    frame = pd.DataFrame({"q": q, "Q0": "Q0", "d": rng.integers(0, 10**7, n), "r": 1,
                          "s": rng.random(n).round(4), "t": "run"})
    path = tmp_path / "big.run"
    frame.to_csv(path, sep=" ", header=False, index=False)
    best_ours = best_pandas = float("inf")
    for _ in range(3):  # best of 3: the machine is shared
        start = time.perf_counter()
        pd.read_csv(path, sep=r"\s+", header=None)
        best_pandas = min(best_pandas, time.perf_counter() - start)
        start = time.perf_counter()
        table = load_table(path)
        best_ours = min(best_ours, time.perf_counter() - start)
    assert len(table.frame) == n
    assert best_ours < 2 * best_pandas + 0.3, (best_ours, best_pandas)
