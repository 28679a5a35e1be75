"""Ids stay the exact text of each file when files are stacked (issue 43): '1.0', ' 1' and '1'
are three items in one file, and stay three items beside another file; an order column of runs
that cannot be read in full is refused (given) or named in a note (guessed), never half-used."""

from __future__ import annotations

import json

import pytest

from workbench.cli.main import main
from workbench.io import load_many


def _write(path, text):
    path.write_text(text, encoding="utf-8")
    return str(path)


@pytest.fixture
def two_systems(tmp_path):
    a = _write(tmp_path / "a.csv", "item,system,success\n1.0,a,1\n1,a,0\n 1,a,1\n2,a,0\n")
    b = _write(tmp_path / "b.csv", "item,system,success\n1.0,b,0\n1,b,1\n 1,b,1\n2,b,1\n")
    return a, b


def test_stacked_cells_keep_each_files_text(two_systems):
    one = load_many([two_systems[0]])
    both = load_many(list(two_systems))
    assert list(one.cell_text("item")) == ["1.0", "1", " 1", "2"]
    assert list(both.cell_text("item")) == ["1.0", "1", " 1", "2"] * 2
    # a column that is text in one file and numbers in the other is the exact text of each
    c = two_systems[1].replace("b.csv", "c.csv")
    _write(__import__("pathlib").Path(c), "item,system,success\nx,c,1\n1.00,c,0\n")
    mixed = load_many([two_systems[0], c])
    assert list(mixed.frame["item"]) == ["1.0", "1", " 1", "2", "x", "1.00"]


def test_compare_pairs_exact_ids_across_files(two_systems, capsys):
    code = main(["compare", *two_systems, "--system", "system", "--outcome", "success",
                 "--item", "item", "--json"])
    assert code == 0, capsys.readouterr().err
    doc = json.loads(capsys.readouterr().out)
    got = {r["metric"]: r["value"] for r in doc["results"] if r["metric"] in ("wins", "losses", "ties")}
    # items 1.0: 1->0 loss; 1: 0->1 win; ' 1': 1->1 tie; 2: 0->1 win
    assert got == {"wins": 2, "losses": 1, "ties": 1}


def test_ranking_by_file_keeps_document_ids(tmp_path, capsys):
    r1 = _write(tmp_path / "r1.csv", "query,doc,score,relevance\nq1,1,0.9,0\nq1,1.0,0.8,1\n")
    r2 = _write(tmp_path / "r2.csv", "query,doc,score,relevance\nq1,1.0,0.9,1\nq1,1,0.8,0\n")
    alone = {}
    for path in (r1, r2):
        assert main(["ranking", path, "--json"]) == 0
        doc = json.loads(capsys.readouterr().out)
        alone[path] = next(r["value"] for r in doc["results"] if r["metric"] == "map")
    assert alone == {r1: 0.5, r2: 1.0}
    assert main(["ranking", r1, r2, "--system", "file", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    stacked = {r["system"]: r["value"] for r in doc["results"] if r["metric"] == "map"}
    assert stacked == {"r1.csv": 0.5, "r2.csv": 1.0}


def _runs_file(tmp_path, dates):
    lines = ["run,date,item,success"]
    for r, (name, date) in enumerate(dates):
        lines += [f"{name},{date},i{i},{(i + r) % 2}" for i in range(10)]
    return _write(tmp_path / "runs.csv", "\n".join(lines) + "\n")


def test_runs_order_column_read_in_full_or_not_used(tmp_path, capsys):
    good = _runs_file(tmp_path, [("late", "2026-11-30"), ("early", "2026-11-25")])
    assert main(["runs", good, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert "order:column:date" in doc["signature"]
    assert any("read as dates" in n for n in doc["notes"])
    bad = _runs_file(tmp_path, [("late", "2026-11-30"), ("early", "2026-11-25"), ("odd", "not recorded")])
    assert main(["runs", bad, "--order", "date", "--json"]) == 2
    err = capsys.readouterr().err
    assert "column 'date'" in err and "'odd'" in err and "not recorded" in err
    assert main(["runs", bad, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert "order:first-appearance" in doc["signature"]
    assert any("cannot order the runs" in n and "'odd'" in n for n in doc["notes"])
