"""A release rule that requires the judge before it trusts the judge's numbers (issue 25):
"kappa >= 0.6 on at least 100 labelled items"; unmet -> INCONCLUSIVE, never FAIL."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from workbench.rules import FAIL, INCONCLUSIVE, PASS, RuleError, parse_rule

from test_rule_evaluate import gate, row, rule_text  # noqa: E402  (shared builders)

sm_ir = pytest.importorskip("statsmodels.stats.inter_rater")


def labels(n_labelled=120, n=300, agree=0.9, seed=1):
    rng = np.random.default_rng(seed)
    truth = rng.random(n) < 0.5
    judge = np.where(rng.random(n) < agree, truth, ~truth)
    human = np.where(np.arange(n) < n_labelled, np.where(truth, "pass", "fail"), "")
    return pd.DataFrame({"item": [f"i{i}" for i in range(n)], "judge": np.where(judge, "pass", "fail"),
                         "human": human})


def kappa_of(frame):
    lab = frame[frame["human"] != ""]
    t = pd.crosstab(lab["judge"], lab["human"]).to_numpy()
    return sm_ir.cohens_kappa(t).kappa, len(lab)


JUDGE = '[[condition]]\nmetric = "judge_kappa"\nmin = 0.6\nmin_items = 100\n'


def test_trusted_judge_passes_with_statsmodels_kappa():
    frame = labels()
    result = gate(rule_text(JUDGE, baseline="v1", candidate="v2"), frame)
    r = row(result)
    kappa, n = kappa_of(frame)
    assert r["observed"] == pytest.approx(kappa) and r["n"] == n and kappa > 0.6
    assert r["status"] == PASS and result.value("verdict") == PASS


@pytest.mark.parametrize("frame,why", [
    (labels(n_labelled=60), "only 60 items carry both"),
    (labels(agree=0.7), "does not agree well enough"),
])
def test_untrusted_judge_is_inconclusive_never_fail(frame, why):
    result = gate(rule_text(JUDGE, baseline="v1", candidate="v2"), frame)
    r = row(result)
    assert r["status"] == INCONCLUSIVE and why in r["reason"]
    assert result.value("verdict") == INCONCLUSIVE


def test_an_unmet_judge_requirement_makes_a_failing_rule_inconclusive():
    frame = labels(agree=0.7)
    n = len(frame)
    # a success condition that fails clearly on the judge's own verdicts (v2 much worse)
    frame = frame.assign(baseline=1, candidate=np.r_[np.zeros(n // 2, int), np.ones(n - n // 2, int)])
    text = rule_text(JUDGE + '[[condition]]\nmetric = "success"\nmax_drop = 0.01\ninput = 1\n',
                     data='item = "item"')
    result = gate(text, frame)
    assert row(result, 2)["status"] == FAIL and row(result, 1)["status"] == INCONCLUSIVE
    assert result.value("verdict") == INCONCLUSIVE
    assert any("judge's numbers are not trusted" in n for n in result.notes)
    assert "unmet-judge->inconclusive" in result.signature


def test_lower_bound_requirement():
    frame = labels(agree=0.9, n_labelled=120)
    text = rule_text(JUDGE.replace("min_items = 100\n", 'min_items = 100\nbound = "lower"\n'),
                     baseline="v1", candidate="v2")
    r = row(gate(text, frame))
    assert "lower bound" in r["reason"]
    assert (r["status"] == PASS) == (r["ci_low"] >= 0.6)


@pytest.mark.parametrize("bad,msg", [
    ('metric = "judge_kappa"\nmin = 1.5\n', "at most 1"),
    ('metric = "judge_kappa"\nmin = 0.6\nmin_items = 0\n', "min_items"),
    ('metric = "judge_kappa"\nmax = 0.6\n', "takes min"),
    ('metric = "judge_kapa"\nmin = 0.6\n', "did you mean 'judge_kappa'"),
])
def test_rule_errors_are_one_sentence(bad, msg):
    with pytest.raises(RuleError, match=msg):
        parse_rule(rule_text("[[condition]]\n" + bad), source="rule.toml")


def test_gate_leaves_provider_errors_out_of_cost_and_latency(tmp_path):
    """A promptfoo provider error is not a measurement (issue 22, item 7): the gate, like the
    Cost analysis, leaves its 1 ms and 0 cost out, and says so."""
    from pathlib import Path

    from workbench.io import load_table
    from workbench.rules import evaluate

    log = Path(__file__).resolve().parents[1] / "fixtures" / "formats" / "promptfoo_errors" / "results.json"
    table = load_table(log)
    text = ('[rule]\nbaseline = "echo"\ncandidate = "flaky"\n[[condition]]\nmetric = "latency_p50"\n'
            'max = 100000\nresamples = 2000\n')
    result = evaluate(parse_rule(text, source="rule.toml"), [table])
    r = row(result)
    frame = table.frame
    ok = (frame["provider"] == "flaky") & (frame["error"].astype(str) == "")
    assert r["n"] == int(ok.sum())
    assert r["observed"] == pytest.approx(np.percentile(frame.loc[ok, "latency_ms"].astype(float), 50))
    assert any("ended with an error" in n for n in result.notes)
    assert "errored:excluded" in result.signature


def test_effort_conditions_on_agent_logs():
    """'median tool calls per task <= 8', 'steps per success must not rise more than 10%'
    (issue 26) on the Inspect agent logs, against the counts of inspect_ai's own reader."""
    import csv
    from pathlib import Path

    from workbench.io import load_many
    from workbench.rules import evaluate

    here = Path(__file__).resolve().parents[1] / "fixtures" / "formats" / "inspect_agent"
    table = load_many([str(here / "agent_alpha.eval"), str(here / "agent_beta.eval")])
    text = ('[rule]\nbaseline = "mockllm/alpha"\ncandidate = "mockllm/beta"\n'
            '[[condition]]\nmetric = "tool_calls_p50"\nmax = 8\nresamples = 2000\n'
            '[[condition]]\nmetric = "steps_per_success"\nmax_increase = 0.10\nresamples = 2000\n')
    result = evaluate(parse_rule(text, source="rule.toml"), [table])
    with open(here / "agent_expected.csv") as handle:
        rows = list(csv.DictReader(handle))

    def of(model, key):
        return np.array([float(r[key]) for r in rows if r["model"] == model])

    assert row(result, 1)["observed"] == pytest.approx(np.percentile(of("mockllm/beta", "tool_calls"), 50))
    assert row(result, 1)["status"] == "PASS"
    per_success = {m: of(m, "steps").sum() / of(m, "match").sum() for m in ("mockllm/alpha", "mockllm/beta")}
    assert row(result, 2)["observed"] == pytest.approx(per_success["mockllm/beta"] / per_success["mockllm/alpha"] - 1)


def test_effort_metric_names_are_checked():
    with pytest.raises(RuleError, match="percentile 120"):
        parse_rule(rule_text('[[condition]]\nmetric = "steps_p120"\nmax = 3\n'), source="rule.toml")


def test_a_zero_width_kappa_interval_vouches_for_no_judge():
    """Five labelled items on which the judge and the person agree: kappa 1 with a standard
    error of 0, so its "interval" is 1.000 to 1.000; a rule asking for kappa's lower bound
    >= 0.6 (on at least 5 items) passed on it.  Now INCONCLUSIVE, saying why."""
    frame = pd.DataFrame({"item": [f"i{i}" for i in range(5)],
                          "judge": ["pass", "fail", "pass", "pass", "fail"],
                          "human": ["pass", "fail", "pass", "pass", "fail"]})
    text = '[[condition]]\nmetric = "judge_kappa"\nmin = 0.6\nmin_items = 5\nbound = "lower"\n'
    result = gate(rule_text(text, baseline="v1", candidate="v2"), frame)
    r = row(result)
    assert r["observed"] == 1.0 and r["ci_low"] == r["ci_high"] == 1.0
    assert r["status"] == INCONCLUSIVE and "zero width" in r["reason"]
    assert result.value("verdict") == INCONCLUSIVE
