"""The command line: ``workbench report SESSION -o report.xlsx`` and ``--xlsx PATH`` on each
single analysis."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import openpyxl
import pytest
from report_checks import EX, ROOT, find_table, lines_of, open_both, stored

from workbench.analyses import REGISTRY
from workbench.cli.main import main
from workbench.core.session import Session, save_session
from workbench.io import load_table

EVERY_ANALYSIS = [
    ["text", EX / "text_extraction.csv"],
    ["ranking", EX / "ranking_seed.csv", "--k", "3,5"],
    ["passk", EX / "passk_counts.csv", "--k", "1,3,5"],
    ["aggregate", EX / "simpson.csv", "--outcome", "correct", "--group", "segment", "--version", "version"],
    ["compare", EX / "paired_14_to_5.csv", "--baseline", "baseline", "--candidate", "candidate",
     "--item", "item_id", "--resamples", "1000"],
    ["cost", EX / "cost_latency.csv", "--latency", "latency_s"],
    ["plan", "--rate", "0.8", "--n", "100", "--discordance", "0.15"],
]


def _run(capsys, argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("argv", EVERY_ANALYSIS, ids=lambda a: a[0])
@pytest.mark.parametrize("as_json", [False, True], ids=["table", "json"])
def test_xlsx_flag_writes_the_report_and_leaves_stdout_unchanged(capsys, tmp_path, argv, as_json):
    extra = ["--json"] if as_json else []
    code, plain, _ = _run(capsys, argv + extra)
    assert code == 0
    out = tmp_path / "out.xlsx"
    code, with_xlsx, err = _run(capsys, argv + extra + ["--xlsx", out])
    assert code == 0, err
    assert with_xlsx == plain
    wb, values = open_both(out)
    assert wb.sheetnames[:2] == ["Summary", argv[0]]
    if argv[0] == "plan":
        assert lines_of(values["Summary"], "Input file") == ["none (no input file)"]
    else:
        table = load_table(argv[1])
        assert lines_of(values["Summary"], "SHA-256") == [table.sha256]
        assert lines_of(values["Summary"], "Rows") == [len(table.frame)]
    if as_json:  # the report's records are the JSON's
        payload = json.loads(with_xlsx)
        ws = values[argv[0]]
        assert lines_of(ws, "Signature") == [payload["signature"]]
        header = find_table(ws, "All results (the records printed by --json)", ["metric", "value"])
        metrics = [ws.cell(header + 1 + i, 1).value for i in range(len(payload["results"]))]
        assert metrics == [r["metric"] for r in payload["results"]]


def test_xlsx_into_a_missing_folder_is_one_sentence_and_prints_nothing(capsys, tmp_path):
    target = tmp_path / "nope" / "out.xlsx"
    code, out, err = _run(capsys, ["plan", "--rate", "0.8", "--n", "100", "--xlsx", target])
    assert code == 2 and out == ""
    assert err.startswith("workbench: The report cannot be written to ") and "does not exist" in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_xlsx_must_be_an_xlsx_file(capsys, tmp_path):
    code, out, err = _run(capsys, ["plan", "--rate", "0.8", "--n", "100", "--xlsx", tmp_path / "r.xls"])
    assert code == 2 and ".xlsx" in err


# -- workbench report SESSION -o report.xlsx -------------------------------------------------

@pytest.fixture
def session(tmp_path):
    """A session on a copy of the paired example, with three panels (one of them plan)."""
    data = tmp_path / "paired.csv"
    shutil.copy(EX / "paired_14_to_5.csv", data)
    s = Session(input_path="paired.csv", input_sha256=load_table(data).sha256)  # relative: beside the session
    s.panels = {
        "compare": {"baseline": "baseline", "candidate": "candidate", "item": "item_id", "resamples": 1000},
        "aggregate": {"outcome": "candidate", "group": "conversation"},
        "plan": {"rate": 0.8, "n": 200, "discordance": 0.1},
    }
    path = tmp_path / "review.json"
    save_session(s, path)
    return path, data


def test_report_command_runs_every_panel(capsys, session, tmp_path):
    path, data = session
    out = tmp_path / "report.xlsx"
    code, stdout, err = _run(capsys, ["report", path, "-o", out])
    assert code == 0, err
    assert stdout.strip() == f"Report written to {out} (3 analyses: compare, aggregate, plan)."
    wb, values = open_both(out)
    assert wb.sheetnames[:4] == ["Summary", "compare", "compare discordant", "aggregate"]
    assert "plan" in wb.sheetnames
    assert lines_of(values["Summary"], "Path") == [str(data)]
    notes = lines_of(values["Summary"], "Note")
    assert any(str(path) in n for n in notes)
    # the same numbers as the analysis run directly with the saved options
    table = load_table(data)
    direct = REGISTRY["compare"].run(table, REGISTRY["compare"].Options(
        baseline="baseline", candidate="candidate", item="item_id", resamples=1000))
    ws = values["compare"]
    assert lines_of(ws, "Signature") == [direct.signature]
    header = find_table(ws, "All results (the records printed by --json)",
                        ["metric", "value", "system", "n", "ci_low", "ci_high", "ci_method", "df", "from", "to"])
    from workbench.report.present import kind_of

    for i, rec in enumerate(direct.records):
        got = ws.cell(header + 1 + i, 2).value
        want = stored(rec["value"], kind_of(rec["metric"]))  # differences of rates held in points
        assert got == pytest.approx(want) if rec["value"] is not None else got is None


def test_report_command_through_the_launcher(tmp_path, session):
    path, _ = session
    out = tmp_path / "r.xlsx"
    proc = subprocess.run([sys.executable, "-m", "workbench", "report", str(path), "-o", str(out)],
                          cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    assert proc.returncode == 0, proc.stderr
    assert out.exists() and "Report written" in proc.stdout


def test_missing_input_is_a_clear_error(capsys, session, tmp_path):
    path, data = session
    data.unlink()
    out = tmp_path / "r.xlsx"
    code, stdout, err = _run(capsys, ["report", path, "-o", out])
    assert code == 2 and stdout == "" and not out.exists()
    assert f"The input file '{data}' named by session '{path}' does not exist" in err
    assert err.count("\n") == 1


def test_changed_input_is_a_clear_error(capsys, session, tmp_path):
    path, data = session
    with open(data, "a", encoding="utf-8") as fh:
        fh.write("item-999,conv-999,1,0\n")
    out = tmp_path / "r.xlsx"
    code, _, err = _run(capsys, ["report", path, "-o", out])
    assert code == 2 and not out.exists()
    assert f"The input file '{data}' has changed since session '{path}' was saved" in err
    assert "SHA-256" in err and err.count("\n") == 1


def test_earlier_report_survives_a_failed_session(capsys, session, tmp_path):
    path, data = session
    out = tmp_path / "r.xlsx"
    assert _run(capsys, ["report", path, "-o", out])[0] == 0
    before = out.read_bytes()
    data.unlink()
    assert _run(capsys, ["report", path, "-o", out])[0] == 2
    assert out.read_bytes() == before


def test_session_without_panels_and_with_unknown_panels(capsys, tmp_path):
    s = Session(input_path=str(EX / "paired_14_to_5.csv"))
    save_session(s, tmp_path / "empty.json")
    code, _, err = _run(capsys, ["report", tmp_path / "empty.json", "-o", tmp_path / "r.xlsx"])
    assert code == 2 and "has no saved analysis" in err
    s.panels = {"compare": {"resamples": 1000}, "telepathy": {}}
    save_session(s, tmp_path / "odd.json")
    code, stdout, err = _run(capsys, ["report", tmp_path / "odd.json", "-o", tmp_path / "r.xlsx"])
    assert code == 0 and "'telepathy' is not an analysis this workbench knows" in err
    _, values = open_both(tmp_path / "r.xlsx")
    assert any("telepathy" in n for n in lines_of(values["Summary"], "Note"))
    assert any("recorded no checksum" in n for n in lines_of(values["Summary"], "Note"))


def test_missing_session_and_missing_output_flag(capsys, tmp_path):
    code, _, err = _run(capsys, ["report", tmp_path / "none.json", "-o", tmp_path / "r.xlsx"])
    assert code == 2 and "does not exist" in err
    code, _, err = _run(capsys, ["report", tmp_path / "none.json"])
    assert code == 2 and "-o/--output" in err


def test_report_help_lists_the_command(capsys):
    code, out, _ = _run(capsys, ["--help"])
    assert code == 0 and "report" in out
    code, out, _ = _run(capsys, ["report", "--help"])
    assert code == 0 and "SESSION" in out.upper()
    code, out, _ = _run(capsys, ["compare", "--help"])
    assert "--xlsx PATH" in out


def test_rule_facts_of_the_session_are_on_the_summary(capsys, session, tmp_path):
    path, data = session
    s = json.loads(path.read_text())
    s.update(rule_text="[rule]\n", rule_sha256="ab" * 32, rule_registered_at="2026-10-01T09:00:00Z",
             rule_changed_after_results=True)
    path.write_text(json.dumps(s))
    out = tmp_path / "r.xlsx"
    assert _run(capsys, ["report", path, "-o", out])[0] == 0
    notes = lines_of(openpyxl.load_workbook(out)["Summary"], "Note")
    assert any("registered at 2026-10-01T09:00:00Z" in n for n in notes)
    assert "The release rule was changed after results were seen." in notes
    # "[rule]" alone is not a rule: no card, and the summary says why
    assert any(n.startswith("The session's release rule could not be evaluated") for n in notes)


SEED_RULE = (ROOT / "resources" / "rules" / "seed_14_to_5.toml").read_text(encoding="utf-8")


@pytest.mark.parametrize("registered, changed, sentence, tone_word", [
    ("2026-10-01T09:00:00Z", False, "The rule was registered before the results were seen (2026-10-01T09:00:00Z).", None),
    (None, False, "The rule was not registered before the results were seen", None),
    ("2026-10-01T09:00:00Z", True, "The rule was changed after the results were seen", "Warning"),
])
def test_session_rule_puts_the_decision_card_first(capsys, session, tmp_path, registered, changed,
                                                   sentence, tone_word):
    from workbench.core.session import sha256_text

    path, data = session
    s = json.loads(path.read_text())
    s.update(rule_text=SEED_RULE, rule_sha256=sha256_text(SEED_RULE), rule_registered_at=registered,
             rule_changed_after_results=changed)
    path.write_text(json.dumps(s))
    out = tmp_path / "r.xlsx"
    code, stdout, err = _run(capsys, ["report", path, "-o", out])
    assert code == 0, err
    assert stdout.strip().endswith("; release verdict PASS).")
    wb, values = open_both(out)
    ws = values["Summary"]
    assert (ws["A2"].value, ws["B2"].value) == ("Release verdict", "PASS")  # the verdict first
    assert ws["A3"].value == "Decision" and ws["B3"].value.startswith(
        "PASS: success +4.5 pts (bootstrap 95% CI +0.5 to +9.0 pts) on 200 items meets the rule")
    registration, = lines_of(ws, "Registration")
    assert registration.startswith(sentence)
    assert bool(lines_of(ws, "Warning")) == (tone_word == "Warning")
    header = find_table(ws, "Decision card: PASS", ["index", "condition", "n", "observed"])
    inputs = next(r for r in range(1, ws.max_row + 1) if ws.cell(r, 1).value == "Input and provenance")
    assert 3 < header < inputs
    assert wb.sheetnames[:3] == ["Summary", "gate", "compare"]


def test_session_rule_changed_since_registration_is_marked(capsys, session, tmp_path):
    path, _ = session
    s = json.loads(path.read_text())
    s.update(rule_text=SEED_RULE, rule_sha256="ab" * 32, rule_registered_at="2026-10-01T09:00:00Z")
    path.write_text(json.dumps(s))
    out = tmp_path / "r.xlsx"
    assert _run(capsys, ["report", path, "-o", out])[0] == 0
    ws = open_both(out)[1]["Summary"]
    assert lines_of(ws, "Warning") == ["The release rule was changed after results were seen."]


def test_a_session_of_stacked_files_is_reported_and_a_changed_file_named(capsys, tmp_path):
    """`workbench report` on a session saved from several stacked files loads every file, and
    refuses, naming the file, when one of them changed since the session was saved."""
    import hashlib

    from workbench.analyses import aggregate
    from workbench.core.session import options_to_json

    paths = []
    for name, outcomes in (("monday.csv", "1,0,1,1"), ("tuesday.csv", "1,1,1,0")):
        path = tmp_path / name
        path.write_text("item_id,correct\n" + "".join(f"q{i},{o}\n" for i, o in enumerate(outcomes.split(","))))
        paths.append(path)
    files = [{"path": p.name, "sha256": hashlib.sha256(p.read_bytes()).hexdigest()} for p in paths]
    session = Session(input_path=" + ".join(str(p) for p in paths), input_files=files,
                      panels={"aggregate": options_to_json(aggregate.Options(outcome="correct", group="file"))})
    session_path = tmp_path / "week.wbsession.json"
    save_session(session, session_path)
    out = tmp_path / "r.xlsx"
    code, _, err = _run(capsys, ["report", session_path, "-o", out])
    assert code == 0 and out.exists(), err
    cells = [c.value for ws in openpyxl.load_workbook(out, data_only=False) for row in ws.iter_rows() for c in row]
    assert any(isinstance(v, float) and abs(v - 6 / 8) < 1e-12 for v in cells)  # 6 of the 8 stacked rows
    with open(paths[1], "a", encoding="utf-8") as fh:
        fh.write("q9,1\n")
    out2 = tmp_path / "r2.xlsx"
    code, _, err = _run(capsys, ["report", session_path, "-o", out2])
    assert code == 2 and not out2.exists()
    assert f"'{paths[1]}' changed since the session was saved" in err and str(paths[0]) not in err
