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
ALLOWED = {"metric", "value", "system", "group", "version", "n", "ci_low", "ci_high", "from", "to"}

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
