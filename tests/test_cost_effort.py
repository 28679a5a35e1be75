"""Steps, tool calls and tokens per request and per success (issue 26) on the Inspect agent logs
written by the real inspect_ai, against the counts its own reader gave (agent_expected.csv)."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from conftest import table_of
from workbench.analyses import cost

HERE = Path(__file__).resolve().parent / "fixtures" / "formats" / "inspect_agent"


def test_cost_on_agent_logs_needs_no_flags(cli):
    out = cli("cost", str(HERE / "agent_alpha.eval"), str(HERE / "agent_beta.eval"))
    with open(HERE / "agent_expected.csv") as handle:
        rows = list(csv.DictReader(handle))
    for model in ("mockllm/alpha", "mockllm/beta"):
        mine = [r for r in rows if r["model"] == model]
        steps = np.array([int(r["steps"]) for r in mine])
        calls = np.array([int(r["tool_calls"]) for r in mine])
        wins = sum(float(r["match"]) for r in mine)
        cost_total = sum(float(r["cost"]) for r in mine)

        def rec(metric):
            (r,) = [x for x in out["results"] if x["metric"] == metric and x.get("system") == model]
            return r

        assert rec("steps_mean")["value"] == pytest.approx(steps.mean())
        assert rec("steps_p50")["value"] == pytest.approx(np.percentile(steps, 50))
        assert rec("steps_per_success")["value"] == pytest.approx(steps.sum() / wins)
        assert rec("tool_calls_per_success")["value"] == pytest.approx(calls.sum() / wins)
        assert rec("cost_per_success")["value"] == pytest.approx(cost_total / wins)
    assert "effort:steps,tool_calls,tokens" in out["signature"]


def test_failure_only_system_has_no_per_success_number():
    frame = pd.DataFrame({"system": ["a"] * 3 + ["b"] * 3, "success": [1, 0, 1, 0, 0, 0],
                          "cost": [0.01] * 6, "steps": [3, 5, 4, 9, 12, 10]})
    res = cost.run(table_of(frame), cost.Options(system="system", success="success", cost="cost", steps="steps"))
    assert res.value("steps_per_success", system="a") == pytest.approx(12 / 2)
    assert res.value("steps_per_success", system="b") is None
    assert any("'b' has no success" in n and "steps per success is undefined" in n for n in res.notes)


def test_the_card_names_the_effort_beside_the_cost():
    from workbench.report.present import answer

    frame = pd.DataFrame({"system": ["a"] * 4 + ["b"] * 4, "success": [1, 1, 0, 1, 1, 0, 1, 1],
                          "cost": [0.01] * 4 + [0.02] * 4, "steps": [3, 5, 4, 4, 9, 12, 10, 11]})
    res = cost.run(table_of(frame), cost.Options(system="system", success="success", cost="cost", steps="steps"))
    text = answer(res).text
    # a: 16 steps / 3 successes, b: 42 / 3; cost per success 0.04 / 3 against 0.08 / 3 (by hand)
    assert ("'a' succeeds on 75.0% (against 75.0% for 'b') with 5.33 steps per success against 14, "
            "at 0.50 times the cost per success of 'b'") in text, text


def test_cli_cost_with_effort_flags(tmp_path, cli):
    path = tmp_path / "agents.csv"
    pd.DataFrame({"system": ["a"] * 4 + ["b"] * 4, "ok": [1, 1, 0, 1, 1, 0, 1, 1],
                  "usd": [0.01] * 8, "n_turns": [3, 5, 4, 4, 9, 12, 10, 11], "calls": [1, 2, 2, 1, 5, 6, 4, 5],
                  "tok": [300, 500, 420, 400, 900, 1200, 1000, 1100]}).to_csv(path, index=False)
    out = cli("cost", str(path), "--system", "system", "--success", "ok", "--cost", "usd", "--steps", "n_turns",
              "--tool-calls", "calls", "--tokens", "tok")
    rec = {(r["metric"], r.get("system")): r for r in out["results"]}
    assert rec[("steps_per_success", "a")]["value"] == pytest.approx(16 / 3)
    assert rec[("tool_calls_per_success", "b")]["value"] == pytest.approx(20 / 3)
    assert rec[("tokens_p50", "a")]["value"] == pytest.approx(410)


def test_input_and_output_tokens_working_time_and_the_ratio_to_ideal_steps():
    frame = pd.DataFrame({"system": ["a"] * 4 + ["b"] * 4, "success": [1, 1, 0, 1, 1, 0, 1, 1],
                          "cost": [0.01] * 8, "steps": [3, 5, 4, 4, 9, 12, 10, 11],
                          "ideal_steps": [3, 4, 2, 4, 3, 4, 2, 4],
                          "prompt_tokens": [100, 120, 90, 110, 300, 310, 280, 320],
                          "completion_tokens": [10, 12, 9, 11, 30, 31, 28, 32],
                          "working_time": [1.5, 2.0, 1.0, 1.5, 4.0, 5.0, 4.5, 6.0]})
    res = cost.run(table_of(frame), cost.Options(system="system", success="success", cost="cost"))
    a = frame[frame.system == "a"]
    assert res.value("input_tokens_per_success", system="a") == pytest.approx(a.prompt_tokens.sum() / 3)
    assert res.value("output_tokens_mean", system="a") == pytest.approx(a.completion_tokens.mean())
    assert res.value("working_time_p50", system="a") == pytest.approx(np.percentile(a.working_time, 50))
    ratio = (a.steps / a.ideal_steps).to_numpy()
    rec = res.find("steps_to_ideal", system="a")[0]
    assert rec["value"] == pytest.approx(ratio.mean()) and rec["n"] == 4
    ref = stats.ttest_1samp(ratio, 0).confidence_interval()
    assert (rec["ci_low"], rec["ci_high"]) == pytest.approx((ref.low, ref.high))
    assert "ideal-steps:column:ideal_steps" in res.signature
    total = res.table("ideal_steps").frame.set_index("system").loc["b", "total_ratio"]
    assert total == pytest.approx(42 / 13)
