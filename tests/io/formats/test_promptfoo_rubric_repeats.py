"""promptfoo results written by the real tool (tests/fixtures/formats/make_fixtures.py
promptfoo_rubric): three named assertions per test (a rubric) and --repeat 2.  The per-assertion
columns, the test cases and their repeats equal what is read here from the JSON with the
standard library; Rubric and Repeats run on the file with no column named."""

from __future__ import annotations

import json
import os
from collections import defaultdict

import pytest

from workbench.cli.main import main as cli_main
from workbench.io import load_table

PATH = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "formats",
                                    "promptfoo_rubric", "results.json"))


def _results():
    with open(PATH, encoding="utf-8") as fh:
        return json.load(fh)["results"]["results"]


def test_each_assertion_is_a_column_of_passes():
    rows = _results()
    frame = load_table(PATH).frame
    for name in ("short", "labelled", "correct"):
        want = [float(next(c["pass"] for c in r["gradingResult"]["componentResults"]
                           if c["assertion"].get("metric") == name)) for r in rows]
        assert list(frame[f"assert.{name}"]) == want


def test_repeated_test_cases_are_named_and_numbered():
    rows = _results()
    table = load_table(PATH)
    frame = table.frame
    by_case = defaultdict(set)
    for r in rows:
        by_case[(r["testCase"]["description"], json.dumps(r["vars"], sort_keys=True))].add(r["testIdx"])
    assert all(len(v) == 2 for v in by_case.values())  # --repeat 2
    first = {tuple(sorted(v))[1]: min(v) for v in by_case.values()} | {min(v): min(v) for v in by_case.values()}
    assert list(frame["test_case"]) == [str(first[r["testIdx"]]) for r in rows]
    assert sorted(set(frame["repeat"])) == [1, 2]
    assert table.panel == "repeats" and table.roles["repeat"] == "epoch"


def test_rubric_and_repeats_answer_on_the_file_with_no_column_named(capsys):
    rows = _results()
    code = cli_main(["rubric", PATH, "--item", "item", "--system", "provider", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    for provider in ("echo", "priced"):
        mine = [r for r in rows if r["provider"]["label"] == provider]
        scores = [sum(c["pass"] for c in r["gradingResult"]["componentResults"]) / 3 for r in mine]
        got = next(r["value"] for r in out["results"] if r["metric"] == "rubric_score" and r["system"] == provider)
        assert got == pytest.approx(sum(scores) / len(scores))
    code = cli_main(["repeats", PATH, "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    rate = next(r for r in out["results"] if r["metric"] == "repeats_rate" and r["system"] == "echo")
    mine = [r for r in rows if r["provider"]["label"] == "echo"]
    by_case = defaultdict(list)
    for r in mine:
        by_case[r["testCase"]["description"]].append(float(r["success"]))
    assert rate["value"] == pytest.approx(sum(sum(v) / len(v) for v in by_case.values()) / len(by_case))
    assert rate["n"] == len(by_case)
