"""``workbench gate``: exit codes 0 / 1 / 3 / 2, the card as text and JSON, --xlsx, the registered hash."""

from __future__ import annotations

import json
import subprocess
import sys
import types
from pathlib import Path

import pandas as pd
import pytest

from workbench.cli.main import main
from workbench.core.session import sha256_text

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "resources" / "examples"
RULES = ROOT / "resources" / "rules"
SEED_RULE = RULES / "seed_14_to_5.toml"
SEED_DATA = EX / "paired_14_to_5.csv"


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def one_sentence_error(code, out, err):
    assert code == 2
    assert out == ""
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err
    return err


@pytest.fixture
def reversed_csv(tmp_path):
    """The 14-to-5 split the other way round and a little worse: 4 wins, 15 losses, 181 ties."""
    pairs = [(0, 1)] * 4 + [(1, 0)] * 15 + [(1, 1)] * 181
    path = tmp_path / "worse.csv"
    pd.DataFrame({"item_id": [f"i{i}" for i in range(200)], "baseline": [p[0] for p in pairs],
                  "candidate": [p[1] for p in pairs]}).to_csv(path, index=False)
    return path


def test_pass_exits_0_and_prints_the_card(capsys):
    code, out, err = run(capsys, "gate", SEED_RULE, SEED_DATA)
    assert code == 0, err
    assert "VERDICT: PASS" in out
    assert "success must not drop by more than 1 point" in out
    assert "14 wins / 5 losses / 181 ties of 200 items" in out
    assert "+4.5 pts" in out and "signature: workbench:" in out


def test_fail_exits_1(capsys, reversed_csv):
    code, out, _ = run(capsys, "gate", SEED_RULE, reversed_csv)
    assert code == 1 and "VERDICT: FAIL" in out


def test_inconclusive_exits_3(capsys):
    code, out, _ = run(capsys, "gate", RULES / "release_all_conditions.toml",
                       RULES / "example_outcomes.csv", RULES / "example_ranking.csv")
    assert code == 3 and "VERDICT: INCONCLUSIVE" in out
    assert "more needed" in out and "With 4 comparisons expect about 4 x 0.05" in out


def test_json_has_the_analysis_shape_plus_verdict_and_card(capsys):
    code, out, _ = run(capsys, "gate", SEED_RULE, SEED_DATA, "--json")
    assert code == 0
    payload = json.loads(out)
    assert {"analysis", "input", "signature", "notes", "results", "verdict", "card"} <= set(payload)
    assert payload["analysis"] == "gate" and payload["verdict"] == "PASS"
    assert payload["input"] == str(SEED_DATA)
    assert payload["rule"]["sha256"] == sha256_text(SEED_RULE.read_text(encoding="utf-8"))
    (card,) = payload["card"]
    assert card["status"] == "PASS" and card["counts"] == "14 wins / 5 losses / 181 ties of 200 items"
    results = {r["metric"]: r for r in payload["results"]}
    assert results["verdict"]["value"] == "PASS"
    assert results["success"]["n"] == 200 and results["success"]["value"] == pytest.approx(0.045)


def test_json_keeps_the_exit_code(capsys, reversed_csv):
    code, out, _ = run(capsys, "gate", SEED_RULE, reversed_csv, "--json")
    assert code == 1 and json.loads(out)["verdict"] == "FAIL"


def test_bad_rule_file_exits_2_with_one_sentence(capsys, tmp_path):
    rule = tmp_path / "bad.toml"
    rule.write_text('[rule]\nbaseline = "v1"\ncandidate = "v2"\n[[condition]]\nmetric = "success"\n'
                    'max_drop = -0.01\n', encoding="utf-8")
    err = one_sentence_error(*run(capsys, "gate", rule, SEED_DATA))
    assert "bad.toml" in err and "max_drop" in err and "-0.01" in err
    rule.write_text("[rule\n", encoding="utf-8")
    err = one_sentence_error(*run(capsys, "gate", rule, SEED_DATA))
    assert "not valid TOML" in err and "line 1" in err


def test_usage_and_data_errors_exit_2(capsys, tmp_path):
    one_sentence_error(*run(capsys, "gate", SEED_RULE))                      # no INPUT
    err = one_sentence_error(*run(capsys, "gate", tmp_path / "none.toml", SEED_DATA))
    assert "none.toml" in err
    err = one_sentence_error(*run(capsys, "gate", SEED_RULE, tmp_path / "missing.csv"))
    assert "missing.csv" in err
    other = tmp_path / "other.csv"
    pd.DataFrame({"a": [1, 0], "b": [0, 1]}).to_csv(other, index=False)
    err = one_sentence_error(*run(capsys, "gate", SEED_RULE, other))
    assert "other.csv" in err


def test_xlsx_without_the_report_package_is_a_clear_error(capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "workbench.report", None)  # not importable
    err = one_sentence_error(*run(capsys, "gate", SEED_RULE, SEED_DATA, "--xlsx", "x.xlsx"))
    assert "--xlsx" in err and "report" in err


def test_xlsx_calls_write_report_with_the_gate_result(capsys, monkeypatch, tmp_path):
    calls = []
    fake = types.ModuleType("workbench.report")
    fake.write_report = lambda path, results, source=None, title=None: calls.append((path, results, source))
    monkeypatch.setitem(sys.modules, "workbench.report", fake)
    target = tmp_path / "card.xlsx"
    code, out, _ = run(capsys, "gate", SEED_RULE, SEED_DATA, "--xlsx", target)
    assert code == 0 and "VERDICT: PASS" in out
    ((path, results, source),) = calls
    assert path == str(target) and [t.path for t in source] == [str(SEED_DATA)]
    assert results[0].analysis == "gate" and results[0].value("verdict") == "PASS"


def test_registered_hash_that_differs_marks_the_card(capsys):
    good = sha256_text(SEED_RULE.read_text(encoding="utf-8"))
    code, out, _ = run(capsys, "gate", SEED_RULE, SEED_DATA, "--json", "--registered-sha256", good)
    assert code == 0 and json.loads(out)["rule_changed_after_results"] is False
    code, out, _ = run(capsys, "gate", SEED_RULE, SEED_DATA, "--json", "--registered-sha256", "0" * 64)
    payload = json.loads(out)
    assert code == 0 and payload["rule_changed_after_results"] is True
    assert "rule changed after results were seen" in payload["card"][0]["notes"]
    assert any("differs from the registered one" in n for n in payload["notes"])
    one_sentence_error(*run(capsys, "gate", SEED_RULE, SEED_DATA, "--registered-sha256", "abc"))


def test_rule_changed_flag(capsys):
    code, out, _ = run(capsys, "gate", SEED_RULE, SEED_DATA, "--rule-changed-after-results")
    assert code == 0 and "RULE CHANGED AFTER RESULTS WERE SEEN" in out


def test_help_lists_gate(capsys):
    code, out, _ = run(capsys, "--help")
    assert code == 0 and "gate" in out


def test_console_entry_point_in_a_subprocess_exits_3():
    proc = subprocess.run([sys.executable, "-m", "workbench", "gate", str(RULES / "release_all_conditions.toml"),
                           str(RULES / "example_outcomes.csv"), str(RULES / "example_ranking.csv"), "--json"],
                          cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 3, proc.stderr
    assert json.loads(proc.stdout)["verdict"] == "INCONCLUSIVE"


def test_launcher_runs_gate_headless():
    code = ("import sys\n"
            "from workbench.launcher import main\n"
            f"rc = main(['gate', {str(SEED_RULE)!r}, {str(SEED_DATA)!r}, '--json'])\n"
            "bad = [m for m in sys.modules if m.split('.')[0] in ('PySide6', 'pyqtgraph')]\n"
            "sys.exit(9 if bad else rc)\n")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-500:] + proc.stderr


def test_json_card_counts_are_integers(capsys):
    code, out, _ = run(capsys, "gate", RULES / "release_all_conditions.toml",
                       RULES / "example_outcomes.csv", RULES / "example_ranking.csv", "--json")
    assert code == 3
    card = json.loads(out)["card"]
    assert [c["status"] for c in card] == ["PASS", "PASS", "PASS", "INCONCLUSIVE"]
    assert isinstance(card[3]["more_items"], int) and card[3]["more_items"] > 0
    assert card[0]["more_items"] is None and isinstance(card[0]["n"], int)
    assert card[2]["p_value"] is None  # latency: no test


def test_xlsx_with_the_real_report_writer(capsys, tmp_path):
    pytest.importorskip("workbench.report")
    openpyxl = pytest.importorskip("openpyxl")
    target = tmp_path / "card.xlsx"
    code, _, err = run(capsys, "gate", SEED_RULE, SEED_DATA, "--xlsx", target)
    assert code == 0, err
    first = openpyxl.load_workbook(target).worksheets[0]
    cells = [c for row in first.iter_rows(values_only=True) for c in row if c is not None]
    assert "PASS" in cells
    assert any(isinstance(c, str) and "success must not drop by more than 1 point" in c for c in cells)
