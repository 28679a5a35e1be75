"""Runs and their judgments given together (workbench/io/run_files.py): the window and the
command line keep a qrels apart from the runs it judges -- a TREC qrels by its lines, a table by
its header (a query, a document and a grade, no score or rank) -- and stack the rest as before.
On the command line, ``workbench ranking RUN QRELS`` then answers as ``--qrels QRELS`` does,
with a note (before: "cannot be stacked")."""

from __future__ import annotations

import json
import os

import pytest

from workbench.cli.main import main as cli_main
from workbench.io.run_files import split_qrels

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TREC = os.path.join(ROOT, "tests", "fixtures", "formats", "trec")


@pytest.mark.parametrize("names, split", [
    (("run.csv", "qrels.csv"), True),
    (("a.csv", "b.tsv", "qrels.csv"), True),       # two runs stacked, their judgments apart
    (("run.csv", "qrels_scored.csv"), False),      # a "qrels" with a score column: a run
    (("run.csv", "qrels.csv", "qrels2.csv"), False),
    (("run.csv",), False),
    (("qrels.csv", "other.csv"), False),           # not a run beside the judgments
])
def test_tables_of_runs_and_their_judgments_are_told_apart(tmp_path, names, split):
    texts = {"run.csv": "qid,docno,sim\n1,d1,0.5\n", "a.csv": "query,doc,score\n1,d1,2\n",
             "b.tsv": "query\tdoc\tscore\n1\td1\t2\n",
             "qrels.csv": "query_id,doc_id,relevance\n1,d1,1\n",
             "qrels2.csv": "qid,pid,label\n1,d1,1\n",
             "qrels_scored.csv": "qid,docno,score\n1,d1,1\n", "other.csv": "item,outcome\n1,1\n"}
    paths = []
    for name in names:
        (tmp_path / name).write_text(texts[name])
        paths.append(str(tmp_path / name))
    runs, qrels = split_qrels(paths)
    if split:
        assert qrels == str(tmp_path / "qrels.csv") and runs == [p for p in paths if p != qrels]
    else:
        assert qrels is None and runs == paths



def test_parquet_and_compressed_tables_are_told_apart(tmp_path):
    import gzip

    import pandas as pd

    run = tmp_path / "run.parquet"
    pd.DataFrame({"qid": ["1"], "docno": ["d1"], "sim": [0.5]}).to_parquet(run)
    qrels = tmp_path / "judged.parquet"
    pd.DataFrame({"query_id": ["1"], "doc_id": ["d1"], "relevance": [1]}).to_parquet(qrels)
    assert split_qrels([str(run), str(qrels)]) == ([str(run)], str(qrels))
    packed = tmp_path / "qrels.csv.gz"
    packed.write_bytes(gzip.compress(b"qid;pid;label\n1;d1;1\n"))
    assert split_qrels([str(run), str(packed)]) == ([str(run)], str(packed))
    # a workbook or a JSON file beside a run: stacked (and refused) as before
    other = tmp_path / "notes.json"
    other.write_text('{"query": 1, "doc": 2, "relevance": 3}\n')
    assert split_qrels([str(run), str(other)]) == ([str(run), str(other)], None)


def cli(capsys, *argv):
    code = cli_main(["ranking", *map(str, argv), "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


@pytest.mark.parametrize("order", ["run first", "qrels first"])
def test_the_command_line_takes_the_qrels_among_its_files(tmp_path, capsys, order):
    run, qrels = tmp_path / "run.csv", tmp_path / "judgments.csv"
    run.write_text("qid,docno,sim\n1,d1,0.9\n1,d2,0.5\n2,d3,0.7\n2,d1,0.6\n")
    qrels.write_text("query_id,doc_id,relevance\n1,d2,1\n2,d3,2\n2,d9,1\n")
    files = [run, qrels] if order == "run first" else [qrels, run]  # trec_eval: qrels, run
    pair = cli(capsys, *files)
    given = cli(capsys, run, "--qrels", qrels)
    assert [(r["metric"], r["value"], r["n"]) for r in pair["results"]] == \
        [(r["metric"], r["value"], r["n"]) for r in given["results"]]
    assert pair["signature"] == given["signature"]
    assert any(f"'{qrels}' was taken as the qrels" in n for n in pair["notes"]), pair["notes"]


def test_trec_runs_and_their_qrels_on_the_command_line(capsys):
    runs = [os.path.join(TREC, "runA.run"), os.path.join(TREC, "runB.run")]
    qrels = os.path.join(TREC, "qrels.test.txt")
    pair = cli(capsys, qrels, *runs)
    given = cli(capsys, *runs, "--qrels", qrels)
    assert [(r["metric"], r.get("system"), r["value"]) for r in pair["results"]] == \
        [(r["metric"], r.get("system"), r["value"]) for r in given["results"]]
