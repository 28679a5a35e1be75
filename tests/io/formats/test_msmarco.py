"""MS MARCO run files (``qid <tab> pid <tab> rank``, no header): recognised by their shape,
read with ids as text, ranked by their rank field, and checked against pytrec_eval (fed the
same ranking as scores) and by hand."""

from __future__ import annotations

import gzip
import json

import numpy as np
import pytest

from workbench.cli.main import main as cli_main
from workbench.core.errors import DataError
from workbench.io import load_table
from workbench.io.formats import msmarco

pytrec_eval = pytest.importorskip("pytrec_eval")


def _run_text(ranking: dict[str, list[str]], end: str = "\n") -> str:
    return "".join(f"{q}\t{d}\t{i}{end}" for q, docs in ranking.items()
                   for i, d in enumerate(docs, start=1))


@pytest.mark.parametrize("text, kind", [
    ("1048585\t7187158\t1\n1048585\t7187157\t2\n2\t5\t1\n", msmarco.RUN),
    ("q1 d1 1\nq1 d2 2\n", msmarco.RUN),                    # spaces instead of tabs
    ("1\t2\t1\r\n1\t3\t2\r\n", msmarco.RUN),                # Windows line ends
    ("query\tdoc\trank\nq1\td1\t1\n", None),                # a TSV with a header
    ("1\t2\t1\n", None),                                    # one line: too little to tell
    ("1\t2\t1\n1\t3\t3\n", None),                           # the rank skips 2
    ("1\t2\t2\n1\t3\t3\n", None),                           # does not start at 1
    ("1\t2\t1\n2\t3\t2\n", None),                           # a new query restarts at 1
    ("1\t0\t2\t1\n1\t0\t3\t0\n", None),                     # a TREC qrels
    ("1,2,1\n1,3,2\n", None),                               # a headerless CSV
    ("1\t2\t0.5\n1\t3\t1.5\n", None),                       # not whole numbers
])
def test_the_shape_that_says_ms_marco(text, kind):
    assert msmarco.sniff(text) == kind


def test_a_run_reads_with_its_ids_as_text(tmp_path):
    path = tmp_path / "run.dev.small.tsv"
    path.write_text(_run_text({"00042": ["9", "10", "007"], "7": ["42.0"]}))
    table = load_table(path)
    assert table.format == "msmarco_run"
    assert list(table.frame.columns) == ["query", "doc", "rank"]
    assert table.frame["doc"].tolist() == ["9", "10", "007", "42.0"]
    assert table.frame["query"].tolist() == ["00042"] * 3 + ["7"]
    assert table.frame["rank"].tolist() == [1, 2, 3, 1]
    assert table.roles == {"query": "query", "doc": "doc", "rank": "rank"}
    assert "MS MARCO run" in table.notes[0] and "4 lines, 2 queries" in table.notes[0]


@pytest.mark.parametrize("tail, line, words", [
    ("1\t5\t4\textra\n", 25, "has 4 fields"),
    ("1\t5\tx\n", 25, "rank 'x'"),
    ("1\t5\n", 25, "fewer than 3 fields"),
])
def test_a_line_that_does_not_fit_is_one_sentence(tmp_path, tail, line, words):
    path = tmp_path / "run.tsv"
    path.write_text(_run_text({"1": [f"d{i}" for i in range(24)]}) + tail)
    with pytest.raises(DataError) as err:
        load_table(path)
    message = str(err.value)
    assert "run.tsv" in message and f"line {line}" in message and words in message, message


def _data(seed: int = 5, n_queries: int = 30):
    rng = np.random.default_rng(seed)
    ranking, qrels = {}, {}
    for q in range(n_queries):
        docs = [f"{rng.integers(0, 10**7)}" for _ in range(int(rng.integers(1, 40)))]
        docs = list(dict.fromkeys(docs))
        ranking[str(1000 + q)] = docs
        judged = rng.choice(docs + ["999999999"], size=min(3, len(docs)), replace=False)
        qrels[str(1000 + q)] = {str(d): 1 for d in judged}
    return ranking, qrels


@pytest.mark.parametrize("engine", ["memory", "duckdb"])
def test_ranking_of_an_ms_marco_run_matches_pytrec_eval(tmp_path, capsys, engine):
    """MRR and nDCG@10 of an MS MARCO run with its (TREC-format) qrels: pytrec_eval given
    the same order as scores (1/rank)."""
    ranking, qrels = _data()
    run_path = tmp_path / "run.dev.small.tsv"
    run_path.write_bytes(gzip.compress(_run_text(ranking).encode()))  # compressed, too
    qrels_path = tmp_path / "qrels.dev.small.tsv"
    qrels_path.write_text("".join(f"{q}\t0\t{d}\t{g}\n" for q, docs in qrels.items()
                                  for d, g in docs.items()))
    assert cli_main(["ranking", str(run_path), "--qrels", str(qrels_path), "--k", "10",
                     "--engine", engine, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    values = {r["metric"]: r["value"] for r in out["results"]}
    assert "order:rank-asc" in out["signature"] and f"engine:{engine}" in out["signature"]

    run = {q: {d: 1.0 / i for i, d in enumerate(docs, start=1)} for q, docs in ranking.items()}
    trec = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10", "recip_rank"}).evaluate(run)
    assert values["ndcg@10"] == pytest.approx(np.mean([v["ndcg_cut_10"] for v in trec.values()]),
                                              abs=1e-12)
    assert values["mrr"] == pytest.approx(np.mean([v["recip_rank"] for v in trec.values()]),
                                          abs=1e-12)
