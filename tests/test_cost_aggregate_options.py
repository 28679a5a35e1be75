"""Cost at equal prices, repeated units in ratio aggregation, and option checks of cost,
aggregate, passk and compare before any work (files written here)."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from conftest import table_of
from workbench.analyses import aggregate, compare, cost, passk
from workbench.core.errors import DataError, OptionError


def _write(tmp_path, frame: pd.DataFrame, name: str = "data.csv"):
    path = tmp_path / name
    frame.to_csv(path, index=False)
    return path


def _cost_file(tmp_path, prices: dict[str, float], successes: dict[str, list[int]]):
    rows = [{"system": s, "success": y, "cost": prices[s], "latency": 1.0}
            for s, ys in successes.items() for y in ys]
    return _write(tmp_path, pd.DataFrame(rows))


def test_equal_cost_per_request_never_costs_more(cli, tmp_path):
    # 0.1 three times sums to 0.30000000000000004: the costs per request differ by rounding only
    path = _cost_file(tmp_path, {"A": 0.1, "B": 0.1},
                      {"A": [1, 1, 0], "B": [1, 0, 0, 0, 1, 0]})
    out = cli("cost", path, "--system", "system", "--success", "success", "--cost", "cost")
    assert not any("costs more" in n for n in out["notes"]), out["notes"]
    note = [n for n in out["notes"] if "costs the same" in n]
    assert len(note) == 1 and note[0].startswith("'B' costs the same per request as 'A'")
    assert "dominated" in note[0]
    dom = [r for r in out["results"] if r["metric"] == "dominated"]
    assert dom == [{"metric": "dominated", "value": True, "from": "A", "to": "B"}]
    price = [r for r in out["results"] if r["metric"] == "marginal_cost_per_success"][0]
    assert price["value"] is None  # no price: nothing extra is paid
    assert "same-cost:" in out["signature"]


def test_equal_cost_the_more_successful_one_is_never_dominated(tmp_path):
    # file order and names put the worse system first; it must still be the dominated one
    frame = pd.DataFrame({"system": ["A"] * 4 + ["B"] * 4, "success": [0, 0, 0, 1, 1, 1, 1, 0],
                          "cost": [0.25] * 8})
    res = cost.run(table_of(frame), cost.Options(system="system", success="success", cost="cost"))
    pairs = res.table("marginal").frame
    assert list(pairs[["from", "to", "dominated"]].itertuples(index=False, name=None)) == [
        ("B", "A", True)]
    assert pairs["extra_cost_per_request"].iloc[0] == 0.0
    assert math.isnan(pairs["marginal_cost_per_success"].iloc[0])


def test_equal_cost_and_equal_success_neither_is_dominated():
    frame = pd.DataFrame({"system": ["A", "A", "B", "B"], "success": [1, 0, 0, 1],
                          "cost": [0.5, 0.5, 0.5, 0.5]})
    res = cost.run(table_of(frame), cost.Options(system="system", success="success", cost="cost"))
    assert res.value("dominated") is False
    assert any("cost the same" in n and "neither is dominated" in n for n in res.notes)
    assert not any("costs more" in n for n in res.notes)


def test_different_costs_keep_the_marginal_price():
    frame = pd.DataFrame({"system": ["A"] * 2 + ["B"] * 2, "success": [1, 0, 1, 1],
                          "cost": [0.01, 0.01, 0.03, 0.03]})
    res = cost.run(table_of(frame), cost.Options(system="system", success="success", cost="cost"))
    assert res.value("marginal_cost_per_success") == pytest.approx(0.02 / 0.5)
    assert res.value("dominated") is False


def test_ratio_aggregation_notes_repeated_unit_ids(cli, tmp_path):
    path = _write(tmp_path, pd.DataFrame({"user": ["u1", "u2", "u1", "u3", "u2"],
                                          "hits": [1, 2, 3, 0, 2], "visits": [2, 4, 4, 1, 4]}))
    out = cli("aggregate", path, "--numerator", "hits", "--denominator", "visits", "--unit", "user")
    note = [n for n in out["notes"] if "more than one row" in n]
    assert len(note) == 1
    assert "2 unit ids" in note[0] and "'u1' on lines 2, 4" in note[0] and "summed" in note[0]
    assert any("repeat another row exactly" in n and "lines 3, 6" in n for n in out["notes"])
    pooled = [r for r in out["results"] if r["metric"] == "pooled_ratio"][0]
    assert pooled["value"] == pytest.approx(8 / 15)
    mean = [r for r in out["results"] if r["metric"] == "mean_of_ratios"][0]
    assert mean["n"] == 3 and mean["value"] == pytest.approx((4 / 6 + 4 / 8 + 0) / 3)
    assert "rows-per-unit:summed" in out["signature"]


def test_ratio_aggregation_with_unique_units_has_no_such_note(cli, tmp_path):
    path = _write(tmp_path, pd.DataFrame({"user": ["u1", "u2"], "hits": [1, 2], "visits": [2, 4]}))
    out = cli("aggregate", path, "--numerator", "hits", "--denominator", "visits", "--unit", "user")
    assert not any("more than one row" in n for n in out["notes"])


@pytest.mark.parametrize("module, options, word", [
    (cost, dict(percentile_method="median"), "percentile_method"),
    (cost, dict(system=3), "system"),
    (aggregate, dict(outcome=1.5), "outcome"),
    (passk, dict(ks="1,x"), "k"),
    (passk, dict(ks=(0,)), "k"),
    (passk, dict(ks="1000001"), "1,000,000"),
    (compare, dict(resamples=999), "resamples"),
    (compare, dict(resamples=1_000_001), "resamples"),
    (compare, dict(resamples=2.5), "resamples"),
    (compare, dict(resamples="1000"), "resamples"),
    (compare, dict(seed=-1), "seed"),
    (compare, dict(seed=2**32), "seed"),
    (compare, dict(seed=1.5), "seed"),
])
def test_options_are_refused_before_the_file_is_read(module, options, word):
    """``run`` refuses before touching the table: a table that would fail is never reached."""
    with pytest.raises(OptionError, match=word) as info:
        module.run(None, module.Options(**options))
    assert "\n" not in str(info.value)


def test_the_resamples_range_is_inclusive():
    frame = pd.DataFrame({"a": [1, 0, 1, 0], "b": [1, 1, 0, 1]})
    for resamples in (1_000, 1_000_000):
        res = compare.run(table_of(frame), compare.Options(baseline="a", candidate="b",
                                                           resamples=resamples, seed=2**32 - 1))
        assert res.table("bootstrap").frame["resamples"].sum() == resamples


def test_passk_counts_above_the_limit_are_a_sentence(tmp_path, cli):
    path = _write(tmp_path, pd.DataFrame({"task": ["t1", "t2"], "n": [10, 10**13], "c": [1, 2]}))
    err = cli("passk", path, "--task", "task", "--n", "n", "--correct", "c", expect=2)
    assert "line 3" in err and "1,000,000" in err and len(err.strip().splitlines()) == 1


def test_a_k_above_every_task_does_no_work_and_is_counted(tmp_path, cli):
    path = _write(tmp_path, pd.DataFrame({"task": ["t1", "t2"], "n": [10, 5], "c": [3, 5]}))
    out = cli("passk", path, "--task", "task", "--n", "n", "--correct", "c", "--k", "1000000")
    rec = [r for r in out["results"] if r["metric"] == "pass@1000000"][0]
    assert rec["value"] is None and rec["n"] == 0
    with pytest.raises(DataError):  # and the data checks still run
        passk.run(table_of(pd.DataFrame({"task": ["a"], "n": [1], "c": [2]})),
                  passk.Options(task="task", n="n", correct="c"))


def test_one_repeated_unit_is_said_in_the_singular():
    frame = pd.DataFrame({"user": ["u1", "u1", "u2"], "hits": [1, 0, 1], "visits": [1, 1, 2]})
    res = aggregate.run(table_of(frame), aggregate.Options(numerator="hits", denominator="visits",
                                                           unit="user"))
    assert any(n.startswith("1 unit id of column 'user' appears on more than one row (2 rows; "
                            "unit 'u1' on lines 2, 3)") for n in res.notes), res.notes
    assert res.value("mean_of_ratios") == pytest.approx((0.5 + 0.5) / 2)
