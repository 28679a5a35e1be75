"""--conventions on the command line: one record per convention, a count of the conventions under
which the verdict holds, the table and the sentence in the readable output, a Conventions sheet."""

from __future__ import annotations

import pytest
from scipy import stats

from workbench.cli.main import main

CASES = [("ranking", "ranking_seed.csv"), ("text", "text_extraction.csv"),
         ("passk", "passk_counts.csv"), ("aggregate", "multilingual.csv"),
         ("cost", "cost_latency.csv"), ("compare", "paired_14_to_5.csv")]


@pytest.mark.parametrize("analysis,name", CASES)
def test_flag_adds_one_record_per_convention(cli, examples, analysis, name):
    plain = cli(analysis, examples / name)
    assert not any("convention" in r for r in plain["results"])  # computed only when asked
    payload = cli(analysis, examples / name, "--conventions")
    conv = [r for r in payload["results"] if "convention" in r]
    assert conv, analysis
    for rec in conv:
        assert rec["group"] == f"convention: {rec['convention']}"
        assert "value" in rec and "n" in rec
    assert sum("(as set)" in r["convention"] for r in conv) >= 1


def test_compare_counts_the_conventions_where_the_verdict_holds(cli, examples):
    payload = cli("compare", examples / "paired_14_to_5.csv", "--conventions")
    conv = [r for r in payload["results"] if "convention" in r]
    (count,) = [r for r in payload["results"] if r["metric"] == "verdict_holds:diff"]
    assert count["n"] == len(conv) == 6
    # 14 wins, 5 losses: the exact sign test and corrected McNemar miss 0.05, the others do not
    p_sign = stats.binomtest(14, 19, 0.5).pvalue
    p_cc = stats.chi2.sf((abs(14 - 5) - 1) ** 2 / 19, 1)
    assert p_sign > 0.05 and p_cc > 0.05
    assert count["value"] == 4
    by_name = {r["convention"]: r for r in conv}
    assert by_name["test: sign_test_p"]["holds"] is False
    assert by_name["test: bootstrap_ci (as set)"]["holds"] is True
    assert by_name["test: bootstrap_ci (as set)"]["ci_low"] > 0


def test_readable_output_prints_the_table_and_the_sentence(capsys, examples):
    assert main(["compare", str(examples / "paired_14_to_5.csv"), "--conventions"]) == 0
    out = capsys.readouterr().out
    assert "conventions (one changed at a time):" in out
    assert "test: mcnemar_cc_p" in out
    assert "holds under 4 of 6 conventions; with test: sign_test_p it does not (+4.5 pts, p 0.0636)" in out


def test_report_gets_a_conventions_sheet(capsys, examples, tmp_path):
    openpyxl = pytest.importorskip("openpyxl")
    path = tmp_path / "r.xlsx"
    assert main(["ranking", str(examples / "ranking_seed.csv"), "--conventions", "--xlsx", str(path)]) == 0
    wb = openpyxl.load_workbook(path)
    assert "Conventions" in wb.sheetnames
    cells = [c for row in wb["Conventions"].iter_rows(values_only=True) for c in row if c is not None]
    assert "ties: expected" in cells and "relevance_threshold: 2" in cells


def test_cost_without_latency_says_there_is_nothing_to_vary(cli, write_csv):
    import pandas as pd

    path = write_csv("c.csv", pd.DataFrame({"system": list("AABB"), "success": [1, 0, 1, 1],
                                            "cost": [0.1, 0.1, 0.2, 0.2]}))
    payload = cli("cost", path, "--conventions")
    assert not any("convention" in r for r in payload["results"])
    assert any("no single headline that a convention changes" in n for n in payload["notes"])
