"""Issue 44: every number in its unit and one rounding per value (a count an integer, a
percentage only for a rate, a cost or a time never negative, no rate's interval on a cost)."""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.core.numbers import format_value, kind_of

ROOT = Path(__file__).resolve().parents[1]
CARDS = ROOT / "tests" / "fixtures" / "cards"


@pytest.mark.parametrize("kind", ["p", "score", "rate", "points", "cost", "latency", "count", "statistic"])
def test_one_value_reads_one_way_whatever_its_float_noise(kind):
    """A p of 1 computed as 0.9999999999999999 read 1.000 beside another's 1.00; every kind
    reads a value and its float-noise twin alike (as Excel shows both)."""
    for value in (1.0, 0.4375, 0.7125, 0.3125, 2.5, 1234.5):
        below, above = value - value * 2.3e-16, value + value * 2.3e-16
        assert format_value(below, kind) == format_value(value, kind) == format_value(above, kind), (kind, value)


def _cost_free():
    from workbench.analyses import cost
    from workbench.io import load_table

    return cost.run(load_table(CARDS / "cost_free_system.csv"), cost.Options(system="system"))


def test_a_free_systems_cost_has_no_rates_interval():
    """Every request of 'free' costs 0: a constant, not a 0% rate; its cost per request had a
    Clopper-Pearson interval (0 to 0.369 here), now none, and the card says what it is."""
    from workbench.report.present import answer

    res = _cost_free()
    rec = res.find("cost_per_request", system="free")[0]
    assert rec["value"] == 0 and rec.get("ci_low") is None and rec.get("degenerate") is True
    assert "clopper" not in str(rec.get("ci_method"))
    paid = res.find("cost_per_request", system="paid")[0]
    assert paid["ci_method"].startswith("bootstrap-percentile-95") and paid["ci_low"] > 0
    assert "free: 0 per success (every request costs 0;" in answer(res).text


def test_effort_is_counted_in_its_unit_and_never_below_zero():
    """Steps, tool calls and tokens are counts (a whole one an integer, never "50.000"), a working
    time is a time; their intervals are never in percent, never below 0 (the t interval of one
    long request among 8 reached -8.3 s of working time)."""
    from workbench.report.present import table_kinds

    res = _cost_free()
    for measure in ("steps", "tool_calls", "tokens", "working_time"):
        for rec in res.records:
            if rec["metric"].startswith(measure + "_") and rec.get("ci_low") is not None:
                assert rec["ci_low"] >= 0, rec
        assert kind_of(f"{measure}_p50") == ("latency" if measure == "working_time" else "count")
    assert format_value(res.find("steps_p50", system="free")[0]["value"], "count") == "8.50"
    assert format_value(50.0, kind_of("steps_mean")) == "50"
    effort = res.table("effort")
    kinds = table_kinds(res, effort)
    measures = list(effort.frame["measure"])
    for col in ("mean", "ci_low", "ci_high", "median", "p95", "per_success"):
        assert kinds[col] == ["latency" if m == "working_time" else "count" for m in measures], col
    systems = table_kinds(res, res.table("systems"))
    assert systems["ci_low"] == systems["ci_high"] == "rate"


def test_a_difference_of_costs_or_latencies_is_signed_in_its_amounts_digits():
    """diff:cost_per_request read "0.0190" (a cost, unsigned) and diff:latency_p50 "-0.319" beside
    "0.560": a difference keeps the amount's digits and carries its sign, and may be negative."""
    from workbench.report.present import excel_format

    assert kind_of("diff:cost_per_request") == "cost_diff" and kind_of("diff:latency_p95") == "latency_diff"
    assert format_value(0.019, "cost_diff") == "+0.0190" and format_value(-0.00029, "cost_diff") == "-0.000290"
    assert format_value(0.56, "latency_diff") == "+0.560" and format_value(-0.319, "latency_diff") == "-0.319"
    assert format_value(0.0, "cost_diff") == "0"
    assert excel_format("cost_diff", value=0.019) == "+#,##0.0000;-#,##0.0000;#,##0.0000"


def test_a_refusal_on_stacked_files_names_the_users_file_and_line(tmp_path):
    """Two files stacked into one table: a bad cell in the second file's line 3 was named
    "line 6" (the stacked table's line); it is "line 3 of b.csv"."""
    import pytest as _pytest

    from workbench.analyses import judge, repeats, rubric
    from workbench.core.errors import DataError
    from workbench.io import load_many

    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    a.write_text("item,correct,cites\nq1,yes,no\nq2,no,yes\nq3,yes,yes\n")
    b.write_text("item,correct,cites\nq1,yes,no\nq2,maybe,yes\nq3,no,no\n")
    table = load_many([str(a), str(b)])
    with _pytest.raises(DataError) as err:
        rubric.run(table, rubric.Options(item="item", criteria="correct,cites", system="file"))
    assert "line 3 of b.csv" in str(err.value) and "line 6" not in str(err.value)
    a.write_text("item,try,ok\nq1,1,1\nq1,2,0\n")
    b.write_text("item,try,ok\nq1,1,1\nq1,2,7\n")
    with _pytest.raises(DataError) as err:
        repeats.run(load_many([str(a), str(b)]), repeats.Options(item="item", outcome="ok", repeat="try",
                                                                 system="file"))
    assert "line 3 of b.csv" in str(err.value)
    a.write_text("item,judge,swapped\nq1,A,B\n")
    b.write_text("item,judge,swapped\nq2,A,B\nq3,C,A\n")
    with _pytest.raises(DataError) as err:
        judge.run(load_many([str(a), str(b)]), judge.Options(judge="judge", swap_judge="swapped"))
    assert "line 3 of b.csv" in str(err.value)
