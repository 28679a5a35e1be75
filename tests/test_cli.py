"""The command-line contract: JSON shape, readable output, exit codes, one-sentence errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from conftest import value
from workbench.cli.main import main

ROOT = Path(__file__).resolve().parents[1]
EX = ROOT / "resources" / "examples"
ALLOWED = {"metric", "value", "system", "group", "version", "n", "ci_low", "ci_high", "from", "to",
           "ci_method", "t_low", "t_high", "df", "degenerate"}

EVERY_ANALYSIS = [
    ["text", EX / "text_extraction.csv"],
    ["ranking", EX / "ranking_seed.csv"],
    ["passk", EX / "passk_counts.csv"],
    ["aggregate", EX / "multilingual.csv"],
    ["compare", EX / "paired_14_to_5.csv", "--resamples", "1000"],
    ["cost", EX / "cost_latency.csv"],
    ["plan", "--rate", "0.8", "--n", "200", "--discordance", "0.1"],
]


@pytest.mark.parametrize("argv", EVERY_ANALYSIS, ids=lambda a: a[0])
def test_json_shape_of_every_analysis(cli, argv):
    out = cli(*argv)
    assert set(out) == {"analysis", "input", "signature", "notes", "results"}
    assert out["analysis"] == argv[0]
    assert out["signature"].startswith("workbench:")
    assert out["results"], "no records"
    for rec in out["results"]:
        assert set(rec) <= ALLOWED
        assert isinstance(rec["metric"], str)
        if "n" in rec:
            assert isinstance(rec["n"], int) and rec["n"] >= 0
    if argv[0] != "plan":
        assert out["input"] == str(argv[1])


@pytest.mark.parametrize("argv", EVERY_ANALYSIS, ids=lambda a: a[0])
def test_readable_output_carries_the_signature(capsys, argv):
    assert main([str(a) for a in argv]) == 0
    text = capsys.readouterr().out
    assert "signature: workbench:" in text
    assert "metric" in text.splitlines()[1]


def test_guessed_columns_are_said(cli):
    out = cli("aggregate", EX / "multilingual.csv")
    assert any("'language'" in n and "guessed" in n for n in out["notes"])


def _error(capsys, argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert code == 2
    assert out == ""
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err
    return err


def test_missing_file_is_one_sentence(capsys, tmp_path):
    err = _error(capsys, ["text", tmp_path / "nope.csv"])
    assert "nope.csv" in err


def test_missing_column_lists_the_columns(capsys):
    err = _error(capsys, ["aggregate", EX / "multilingual.csv", "--outcome", "passed", "--group", "language"])
    assert "passed" in err and "item_id" in err and "language" in err and "correct" in err


def test_non_binary_outcome_names_value_and_line(capsys, tmp_path):
    path = tmp_path / "x.csv"
    pd.DataFrame({"item": ["a", "b", "c"], "baseline": [1, 0, 1], "candidate": [1, 2, 0]}).to_csv(path, index=False)
    err = _error(capsys, ["compare", path, "--baseline", "baseline", "--candidate", "candidate"])
    assert "candidate" in err and "2" in err and "3" in err  # value 2 on line 3


def test_bad_flag_value_is_a_usage_error(capsys):
    err = _error(capsys, ["ranking", EX / "ranking_seed.csv", "--gain", "cubic"])
    assert "gain" in err


def test_bad_k_is_a_usage_error(capsys):
    err = _error(capsys, ["ranking", EX / "ranking_seed.csv", "--k", "0,3"])
    assert "k" in err


def test_plan_without_anything_to_plan(capsys):
    err = _error(capsys, ["plan"])
    assert "--rate" in err


def test_help_exits_zero(capsys):
    assert main(["--help"]) == 0
    assert "ranking" in capsys.readouterr().out


def test_console_entry_point_in_a_subprocess():
    proc = subprocess.run([sys.executable, "-m", "workbench", "passk", str(EX / "passk_counts.csv"),
                           "--k", "3", "--json"], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert value(out, "pass@3")["value"] == pytest.approx(1 - 35 / 120)


def test_user_error_in_a_subprocess_has_no_traceback(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "workbench", "cost", str(tmp_path / "missing.xlsx")],
                          cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr and "missing.xlsx" in proc.stderr


def test_any_extension_is_read_as_delimited_text(cli, tmp_path):
    path = tmp_path / "results.dat"
    path.write_text("task;n;c\nt1;10;3\n", encoding="utf-8")
    out = cli("passk", path, "--k", "1")
    assert value(out, "pass@1")["value"] == pytest.approx(0.3)


def test_one_line_keeps_a_message_on_one_line():
    from workbench.cli.main import one_line

    assert one_line("bad file\n  (from the library:\r\n line 2)") == "bad file (from the library: line 2)"
    shown = one_line("cell '2\x85' and '\u2028' and '\x1b[31m'")
    assert shown == "cell '2\\x85' and '\\u2028' and '\\x1b[31m'"
    assert len(shown.splitlines()) == 1


def test_a_cell_with_a_line_separator_is_quoted_on_one_line(capsys, tmp_path):
    path = tmp_path / "odd.csv"
    path.write_text("task,outcome\nt1,1\nt2,2\x85\n", encoding="utf-8")
    err = _error(capsys, ["passk", path, "--task", "task", "--success", "outcome"])
    assert "\\x85" in err and "line 3" in err


def test_a_column_flag_with_a_control_character_is_one_line(capsys, tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("prediction,reference\na,a\n", encoding="utf-8")
    err = _error(capsys, ["text", path, "--prediction", "\x0c"])
    assert "\\x0c" in err


@pytest.mark.parametrize("panel, word", [
    ({"ranking": {"ks": None}}, "'ks'"),
    ({"ranking": {"relevance_threshold": "x"}}, "'relevance_threshold'"),
    ({"compare": {"resamples": "many"}}, "'resamples'"),
    ({"compare": {"resamples": 10}}, "resamples"),
    ({"plan": {"n": [1]}}, "'n'"),
])
def test_a_session_option_of_the_wrong_type_is_one_sentence(capsys, tmp_path, panel, word):
    data = tmp_path / "d.csv"
    data.write_text("item,baseline,candidate\na,1,0\n", encoding="utf-8")
    session = tmp_path / "s.wbsession.json"
    session.write_text(json.dumps({"input_path": str(data), "panels": panel}), encoding="utf-8")
    err = _error(capsys, ["report", session, "-o", tmp_path / "r.xlsx"])
    assert word in err
    assert not (tmp_path / "r.xlsx").exists()


@pytest.mark.parametrize("field, value", [("schema", "x"), ("sheet", [1]), ("roles", 5),
                                          ("panels", {"plan": 3}), ("input_path", 7),
                                          ("rule_changed_after_results", "yes")])
def test_a_session_field_of_the_wrong_type_is_one_sentence(capsys, tmp_path, field, value):
    session = tmp_path / "s.wbsession.json"
    session.write_text(json.dumps({"panels": {"plan": {"rate": 0.5, "n": 10}}, field: value}),
                       encoding="utf-8")
    err = _error(capsys, ["report", session, "-o", tmp_path / "r.xlsx"])
    assert f"'{field}'" in err


def test_a_saved_whole_float_is_the_whole_number(tmp_path):
    from workbench.analyses import compare, plan
    from workbench.core.session import options_from_json

    assert options_from_json(compare.Options, {"resamples": 2000.0}).resamples == 2000
    assert type(options_from_json(plan.Options, {"n": 100.0}).n) is int


def test_parse_ks_refuses_what_is_not_a_list_of_whole_numbers():
    from workbench.analyses._common import parse_ks
    from workbench.core.errors import OptionError

    assert parse_ks(5) == (5,) and parse_ks([3, 1, 3]) == (1, 3) and parse_ks("10, 1") == (1, 10)
    for bad in (None, [True], object(), "1,x", [1.5], [float("inf")]):
        with pytest.raises(OptionError):
            parse_ks(bad)


def test_an_empty_report_name_is_refused_not_ignored(capsys, tmp_path):
    err = _error(capsys, ["plan", "--rate", "0.5", "--n", "10", "--xlsx", ""])
    assert ".xlsx" in err
    rule = tmp_path / "r.toml"
    rule.write_text('[rule]\nname = "x"\nbaseline = "baseline"\ncandidate = "candidate"\n'
                    '[[condition]]\nmetric = "success"\nmax_drop = 0.5\n', encoding="utf-8")
    err = _error(capsys, ["gate", rule, EX / "paired_14_to_5.csv", "--xlsx", ""])
    assert ".xlsx" in err


def test_a_typo_through_the_cli_entry_names_the_nearest_analysis(capsys):
    err = _error(capsys, ["aggregat", EX / "multilingual.csv"])
    assert "did you mean 'aggregate'?" in err and not err.startswith("workbench: workbench")
