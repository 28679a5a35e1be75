"""Issue 44 in the workbook: one value is one stored number (a reader that rounds the stored
digits reads pass@1 and pass^1 of one value alike), and the cards' rules hold for every cell."""

from __future__ import annotations

import numpy as np
import openpyxl
import pytest

from workbench.analyses import passk
from workbench.io import load_table
from workbench.report import write_report


def _cells(path):
    wb = openpyxl.load_workbook(path, data_only=True)
    for ws in wb:
        for row in ws.iter_rows():
            for cell in row:
                yield ws, cell


def test_one_value_is_one_stored_number(tmp_path):
    """pass@1 = 1 - (n-c)/n and pass^1 = c/n are one value (0.7125 here); the first computes to
    0.7124999999999999, which a cell written with 16 digits keeps.  The workbook stores both as
    0.7125, so no reader shows 0.712 beside 0.713."""
    src = tmp_path / "tasks.csv"
    src.write_text("task,n,c\nt1,10,9\nt2,4,4\nt3,4,3\nt4,5,1\n")
    res = passk.run(load_table(src), passk.Options(ks=(1,)))
    a, b = res.value("pass@1"), res.value("pass^1")
    assert a != b and abs(a - b) < 1e-15  # the float noise the workbook must not show
    out = tmp_path / "r.xlsx"
    write_report(out, [res])
    stored = {}
    for ws, cell in _cells(out):
        if ws.title == "passk" and cell.value in ("pass@1", "pass^1"):
            value = ws.cell(cell.row, cell.column + 1).value
            if isinstance(value, float):
                stored.setdefault(cell.value, set()).add(value)
    assert stored["pass@1"] == stored["pass^1"] == {0.7125}, stored
    assert f"{0.7125:.3f}" == f"{next(iter(stored['pass@1'])):.3f}"


def test_the_rubric_sheet_names_the_bootstrap_a_bootstrap(tmp_path):
    """The Rubric sheet headed the score's bootstrap interval "Wilson 95% CI"; each interval's
    header now names the method of its rows (a table of mixed rows leaves it to each row's
    ci_method cell)."""
    from workbench.analyses import rubric

    from card_walk import EX

    res = rubric.run(load_table(EX / "rubric_answers.csv"), rubric.Options(item="question", system="version"))
    out = tmp_path / "rubric.xlsx"
    write_report(out, [res])
    heads = [cell.value for ws, cell in _cells(out) if isinstance(cell.value, str) and "95% CI" in cell.value]
    assert "Bootstrap 95% CI low" in heads and "t 95% CI low" in heads and "Paired bootstrap 95% CI low" in heads
    assert "Paired t 95% CI low" in heads  # the compared table's t is a paired one
    methods = set(res.table("systems").frame["ci_method"])
    assert all(m.startswith("bootstrap-percentile-95") for m in methods)
    assert not any(h.startswith("Wilson") for h in heads if h.endswith("low")) or \
        set(res.table("criteria").frame["ci_method"]) == {"wilson-95"}


def test_a_zero_width_interval_is_shown_nowhere_as_if_certain(tmp_path):
    """Every request of A costs 0.012 and of B 0.031: the bootstrap of the cost difference has no
    spread and its interval read "0.0190 to 0.0190" in the table, the records and the command
    line.  The record keeps its bounds (the JSON) and says it is degenerate; no renderer shows
    them."""
    from workbench.analyses import cost
    from workbench.cli.main import render_text
    from workbench.report.present import shown_frame, table_kinds

    from card_walk import EX

    res = cost.run(load_table(EX / "cost_latency.csv"), cost.Options(system="system", success="success",
                                                                   cost="cost", latency="latency_s"))
    rec = res.find("diff:cost_per_request")[0]
    assert rec["ci_low"] == pytest.approx(rec["ci_high"]) and rec["degenerate"] is True
    line = next(x for x in render_text(res).splitlines() if x.startswith("diff:cost_per_request"))
    assert "0.0190 to 0.0190" not in line and "+0.0190" in line
    table = res.table("differences")
    shown = shown_frame(table.frame, table_kinds(res, table))
    row = shown[shown["statistic"] == "cost_per_request"].iloc[0]
    assert np.isnan(row["ci_low"]) and np.isnan(row["ci_high"])
    other = shown[shown["statistic"] == "latency_p50"].iloc[0]
    assert other["ci_low"] < other["ci_high"]
    out = tmp_path / "cost.xlsx"
    write_report(out, [res])
    for ws, cell in _cells(out):
        if isinstance(cell.value, str) and "0.0190 to 0.0190" in cell.value:
            raise AssertionError((ws.title, cell.coordinate, cell.value))


def test_the_command_lines_table_names_each_intervals_method():
    from workbench.analyses import compare
    from workbench.cli.main import render_text

    from card_walk import EX

    res = compare.run(load_table(EX / "paired_14_to_5.csv"), compare.Options(baseline="baseline",
                                                                            candidate="candidate", item="item_id"))
    lines = render_text(res).splitlines()
    assert "interval" in lines[1].split()
    rows = {line.split()[0]: line for line in lines[3:] if line and not line.startswith(("answer", "note"))}
    assert rows["rate"].rstrip().endswith("Wilson            200") or "Wilson" in rows["rate"]
    assert "normal" in rows["normal_ci"] and "paired bootstrap" in rows["bootstrap_ci"]
