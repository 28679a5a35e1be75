"""Steps, tool calls and cost from an Inspect log of a tool-calling agent (issue 26): written by
the real inspect_ai (mockllm with scripted tool calls, see make_fixtures.py inspect_agent) and
checked against what inspect_ai's own read_eval_log gave (agent_expected.csv)."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from workbench.io import load_many, load_table

HERE = Path(__file__).resolve().parents[2] / "fixtures" / "formats" / "inspect_agent"


def expected():
    with open(HERE / "agent_expected.csv") as handle:
        return list(csv.DictReader(handle))


@pytest.mark.parametrize("log", ["agent_alpha.eval", "agent_beta.eval"])
def test_steps_tool_calls_and_cost_equal_inspects_own_reader(log):
    table = load_table(HERE / log)
    rows = {(r["sample_id"], int(r["epoch"])): r for r in expected() if r["log"] == log}
    frame = table.frame
    assert len(frame) == len(rows)
    for _, got in frame.iterrows():
        want = rows[(got["sample_id"], int(got["epoch"]))]
        assert int(got["steps"]) == int(want["steps"])
        assert int(got["tool_calls"]) == int(want["tool_calls"])
        per_tool = dict(p.split("=") for p in want["calls_by_tool"].split(";") if p)
        for name in ("close", "lookup", "policy", "refund"):
            column = f"tool_calls.{name}"
            assert int(got.get(column, 0)) == int(per_tool.get(name, 0)), column
        assert int(got["input_tokens"]) == int(want["input_tokens"])
        assert got["cost"] == pytest.approx(float(want["cost"]))
        assert got["match"] == float(want["match"])
    assert table.roles["steps"] == "steps" and table.roles["tool_calls"] == "tool_calls"
    assert table.roles["cost"] == "cost"
    assert any("parallel calls each count" in n for n in table.notes)


def test_two_agent_logs_stack():
    table = load_many([str(HERE / "agent_alpha.eval"), str(HERE / "agent_beta.eval")])
    assert set(table.frame["model"]) == {"mockllm/alpha", "mockllm/beta"}
    assert table.frame["steps"].sum() == sum(int(r["steps"]) for r in expected())
