"""A release rule judged under each convention its conditions state (gate --conventions)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from workbench.cli.main import main
from workbench.io import load_table
from workbench.rules import evaluate, load_rule
from workbench.rules.conventions import alternatives, with_conventions

RULE = """
[rule]
name = "latency"
baseline = "old"
candidate = "new"

[data]
item = "item"
system = "system"
outcome = "success"
latency = "latency"

[[condition]]
metric = "latency_p95"
max = 19.02
bound = "point"
"""


def _files(tmp_path):
    rows = [("old", f"i{i}", 1, 5.0) for i in range(20)]
    rows += [("new", f"i{i}", 1, float(i + 1)) for i in range(20)]  # latencies 1..20
    data = tmp_path / "runs.csv"
    pd.DataFrame(rows, columns=["system", "item", "success", "latency"]).to_csv(data, index=False)
    rule = tmp_path / "rule.toml"
    rule.write_text(RULE, encoding="utf-8")
    return rule, data


def test_percentile_method_flips_the_verdict(tmp_path):
    rule_path, data = _files(tmp_path)
    rule, tables = load_rule(str(rule_path)), [load_table(str(data))]
    # by hand: linear p95 of 1..20 = 19 + 0.05 = 19.05 > 19.02 (FAIL); nearest rank: the
    # ceil(0.95 x 20) = 19th value, 19 <= 19.02 (PASS)
    assert np.percentile(np.arange(1, 21), 95) == 19.05
    assert [(k, v) for k, v, _ in alternatives(rule)] == [("percentile_method", "nearest_rank")]
    result = with_conventions(rule, tables, evaluate(rule, tables))
    frame = result.table("conventions").frame.set_index("convention")
    assert frame.loc["rule as written", "value"] == "FAIL"
    assert frame.loc["percentile_method: nearest_rank", "value"] == "PASS"
    assert not frame.loc["percentile_method: nearest_rank", "holds"]
    assert result.value("verdict") == "FAIL"  # the rule's own verdict is untouched
    assert ("The rule's verdict (FAIL) holds under 1 of 2 conventions; with "
            "percentile_method: nearest_rank it is PASS.") in result.notes


def test_gate_flag(tmp_path, capsys):
    rule_path, data = _files(tmp_path)
    code = main(["gate", str(rule_path), str(data), "--conventions", "--json"])
    payload = json.loads(capsys.readouterr().out)
    assert code == 1  # FAIL, as without the flag
    (count,) = [r for r in payload["results"] if r["metric"] == "verdict_holds:verdict"]
    assert (count["value"], count["n"]) == (1, 2)
    conv = [r for r in payload["results"] if r["metric"] == "convention_verdict"]
    assert {r["group"] for r in conv} == {"convention: rule as written",
                                          "convention: percentile_method: nearest_rank"}
