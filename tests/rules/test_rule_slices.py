"""The release rule's ``slice_regression`` criterion: parsed and checked, judged through
``workbench gate`` with --junit (the failing slice named), PASS, INCONCLUSIVE and the point bound."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from workbench.cli.main import main
from workbench.rules import spec

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "resources" / "examples" / "slices_languages.csv"
FIX = ROOT / "tests" / "fixtures" / "slices"


def rule_file(tmp_path, condition: str, rule: str = "") -> Path:
    path = tmp_path / "slices.toml"
    path.write_text(f'[rule]\nbaseline = "baseline"\ncandidate = "candidate"\n{rule}\n'
                    f'[[condition]]\nmetric = "slice_regression"\n{condition}\n', encoding="utf-8")
    return path


def gate(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_the_gate_fails_naming_the_slice_in_junit(tmp_path, capsys):
    rule = ROOT / "resources" / "rules" / "slices_languages.toml"  # the bundled example rule
    junit = tmp_path / "out.xml"
    code, out, err = gate(capsys, "gate", rule, EXAMPLE, "--junit", junit)
    assert code == 1, err
    assert "VERDICT: FAIL" in out and "language = hi: -9.0 pts" in out
    cases = ET.parse(junit).getroot().findall(".//testcase")
    assert len(cases) == 2 and cases[0].find("failure") is None  # the overall gain passes
    failure = cases[1].find("failure")
    assert failure is not None and "language = hi" in failure.get("message")
    assert "adjusted interval -15.0 to -3.1 pts" in failure.get("message")


def test_the_interval_is_the_slices_fcr_interval_at_the_rules_alpha(tmp_path, capsys):
    from workbench.analyses import slices
    from workbench.io import load_table

    for alpha in (0.05, 0.1):
        rule = rule_file(tmp_path, 'by = "language"\nmin_items = 100\nmax_loss = 0.05', f"alpha = {alpha}")
        _, out, _ = gate(capsys, "gate", rule, EXAMPLE, "--json")
        import json

        rec = next(r for r in json.loads(out)["results"] if r["metric"] == "slice_regression")
        res = slices.run(load_table(str(EXAMPLE)), slices.Options(by="language", q=alpha, min_size=100))
        fcr = res.find("fcr_ci", group="hi", by="language")[0]
        assert rec["group"] == "language = hi"
        assert (rec["value"], rec["ci_low"], rec["ci_high"]) == (fcr["value"], fcr["ci_low"], fcr["ci_high"])
    assert "q:0.1" in res.signature


def test_pass_when_no_slice_loses_that_much_and_inconclusive_without_a_big_slice(tmp_path, capsys):
    rule = rule_file(tmp_path, 'by = "language"\nmin_items = 100\nmax_loss = 0.2')
    code, out, _ = gate(capsys, "gate", rule, EXAMPLE)
    assert code == 0 and "VERDICT: PASS" in out and "the worst: language = hi, -9.0 pts" in out
    rule = rule_file(tmp_path, 'by = "language"\nmin_items = 5000\nmax_loss = 0.05')
    code, out, _ = gate(capsys, "gate", rule, EXAMPLE)
    assert code == 3 and "INCONCLUSIVE" in out and "no slice of at least 5,000 items" in out


def test_point_bound_fails_on_the_difference_alone(tmp_path, capsys):
    rule = rule_file(tmp_path, 'by = "language"\nmin_items = 100\nmax_loss = 0.05\nbound = "point"')
    code, out, _ = gate(capsys, "gate", rule, EXAMPLE)
    assert code == 1 and "language = hi: -9.0 pts (210 items)" in out


def test_long_form_inspect_logs(tmp_path, capsys):
    path = tmp_path / "inspect.toml"
    path.write_text('[rule]\nbaseline = "mockllm/base"\ncandidate = "mockllm/cand"\n'
                    '[[condition]]\nmetric = "slice_regression"\nby = "metadata.language"\nmax_loss = 0.1\n',
                    encoding="utf-8")
    import shutil

    logs = tmp_path / "logs"  # the two runs' logs in one folder: one input, stacked
    logs.mkdir()
    for name in ("langs_base.eval", "langs_cand.eval"):
        shutil.copy(FIX / name, logs / name)
    code, out, err = gate(capsys, "gate", path, logs)
    assert code == 1, err
    assert "metadata.language = hi" in out


@pytest.mark.parametrize("condition,words", [
    ('max_loss = -0.1', "must not be negative"),
    ('max_loss = 0.05\nbins = 1', "'bins' must be 0"),
    ('max_loss = 0.05\nmin_items = 0', "'min_items' must be a whole number >= 1"),
    ('max_loss = 1.5', "below 1"),
    ('max_drop = 0.05', "takes max_loss"),
    ('max_loss = 0.05\nby = 3', "'by' must be text"),
])
def test_bad_slice_conditions_are_one_sentence(condition, words):
    text = f'[rule]\nbaseline = "a"\ncandidate = "b"\n[[condition]]\nmetric = "slice_regression"\n{condition}\n'
    with pytest.raises(spec.RuleError) as err:
        spec.parse_rule(text)
    assert words in str(err.value)


def test_a_slice_condition_reads_as_a_sentence():
    rule = spec.parse_rule('[rule]\nbaseline = "a"\ncandidate = "b"\n[[condition]]\nmetric = "slice_regression"\n'
                           'by = "language"\nmin_items = 50\nmax_loss = 0.05\n')
    cond = rule.conditions[0]
    assert cond.describe() == "slice_regression: no slice of language with at least 50 items may lose more than 5 points"
    assert cond.bound == "upper" and cond.limit == -0.05 and cond.unit == "rate_diff"
