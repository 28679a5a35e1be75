"""The report as a reviewer reads it: each example session's report (``workbench report
SESSION``) and a release-gate report, converted headless to PDF by LibreOffice and read back
with poppler (pdftotext, pdftoppm).

Checks: the pages each sheet prints on are the pages the writer planned (no automatic break
LibreOffice had to add), no page is near-blank, the verdict (or the first answer) is on page 1,
every number fits its column, and the charts are drawn.  ``.ci/run`` installs LibreOffice and
poppler so that these run in CI; elsewhere they are skipped saying why.  Set
``WORKBENCH_RENDER_DIR`` to keep the PDFs and PNGs for looking at them.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import openpyxl
import pytest
from pdf_checks import PDFTOPPM, PDFTOTEXT, SOFFICE, near_blank, page_text, pages, to_pdf
from report_checks import EX, ROOT

from workbench.cli.main import main

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(SOFFICE is None, reason="LibreOffice (soffice/libreoffice) is not installed: "
                       "apt-get install libreoffice-calc"),
    pytest.mark.skipif(PDFTOPPM is None or PDFTOTEXT is None,
                       reason="poppler-utils (pdftoppm, pdftotext) is not installed: apt-get install poppler-utils"),
]

SESSIONS = sorted(p.name for p in EX.glob("*.wbsession.json"))
RULES = ROOT / "resources" / "rules"


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    keep = os.environ.get("WORKBENCH_RENDER_DIR")
    path = Path(keep) if keep else tmp_path_factory.mktemp("render")
    path.mkdir(parents=True, exist_ok=True)
    return path


@pytest.fixture(scope="module")
def profile(tmp_path_factory):
    return tmp_path_factory.mktemp("lo-profile")


@pytest.fixture(scope="module")
def rendered(folder, profile, tmp_path_factory):
    """name -> (xlsx, pdf, pages): every example session's report and a gate report."""
    work = tmp_path_factory.mktemp("sessions")
    out = {}
    for name in SESSIONS:  # copies beside their inputs, as a user keeps them
        for f in EX.iterdir():
            if f.is_file() and not (work / f.name).exists():
                shutil.copy(f, work / f.name)
        xlsx = folder / name.replace(".wbsession.json", ".xlsx")
        assert main(["report", str(work / name), "-o", str(xlsx)]) == 0
        out[name] = xlsx
    gate = folder / "gate.xlsx"
    code = main(["gate", str(RULES / "release_all_conditions.toml"), str(RULES / "example_outcomes.csv"),
                 str(RULES / "example_ranking.csv"), "--xlsx", str(gate)])
    assert code == 3  # INCONCLUSIVE
    out["gate"] = gate
    return {name: (xlsx, pdf := to_pdf(xlsx, folder, profile), pages(pdf, folder)) for name, xlsx in out.items()}


def test_every_example_session_is_rendered(rendered):
    assert set(SESSIONS) <= set(rendered) and len(SESSIONS) >= 3


@pytest.mark.parametrize("name", SESSIONS + ["gate"])
def test_each_sheet_prints_on_the_pages_the_writer_planned(rendered, name):
    """The page count of every sheet is its planned page breaks + 1: LibreOffice did not have
    to break a page the writer did not plan (which is how near-blank orphan pages arise)."""
    xlsx, _, page_list = rendered[name]
    wb = openpyxl.load_workbook(xlsx)
    printed: dict[str, int] = {}
    for p in page_list:
        printed[p["sheet"]] = printed.get(p["sheet"], 0) + 1
    assert list(printed) == wb.sheetnames  # every sheet prints, in order
    across = {}
    for ws in wb.worksheets:
        # a sheet too wide to read at one page's width prints on planned pages side by side
        across[ws.title] = len(ws.col_breaks.brk) + 1
        planned = len(ws.row_breaks.brk) + 1
        if across[ws.title] == 1:
            assert printed[ws.title] == planned, (ws.title, printed[ws.title], planned)
        else:  # pages across: a blank one (right of the charts) is not printed
            assert planned <= printed[ws.title] <= planned * across[ws.title], \
                (ws.title, printed[ws.title], planned, across[ws.title])
    for sheet, count in printed.items():
        if sheet == "Summary" or sheet in ("gate", "compare", "ranking", "passk", "aggregate", "cost",
                                           "text", "plan"):
            # summary and analyses stay short
            assert count <= (6 if sheet == "gate" else 4) * across[sheet], (sheet, count)


@pytest.mark.parametrize("name", SESSIONS + ["gate"])
def test_no_page_is_near_blank(rendered, name):
    _, _, page_list = rendered[name]
    assert near_blank(page_list) == []


@pytest.mark.parametrize("name", SESSIONS + ["gate"])
def test_the_first_page_leads_with_the_verdict_or_the_answer(rendered, name):
    xlsx, pdf, _ = rendered[name]
    first = page_text(pdf, 1)
    lines = [line.strip() for line in first.splitlines() if line.strip()]
    assert lines[0].startswith(("Evaluation report", "Release gate"))
    values = openpyxl.load_workbook(xlsx, data_only=True)["Summary"]
    if values["A2"].value == "Release verdict":
        verdict = values["B2"].value
        assert lines[1].startswith("Release verdict") and verdict in lines[1]
        assert lines[2].startswith("Decision") and verdict in lines[2]
        assert "Decision card" in first
    else:
        assert lines[1] == "Analyses"
        answer = values["B3"].value
        assert " ".join(answer.split()[:6]) in " ".join(first.split())
    assert "#####" not in first


def test_session_with_a_registered_rule_shows_its_card_on_page_1(rendered):
    _, pdf, _ = rendered["paired_14_to_5.wbsession.json"]
    first = " ".join(page_text(pdf, 1).split())
    assert "Release verdict PASS" in first
    assert "PASS: success +4.5 pts (bootstrap 95% CI +0.5 to +9.0 pts) on 200 items meets the rule" in first
    assert "The rule was registered before the results were seen (2026-11-30T09:00:00+00:00)" in first
    assert "+4.5 pts +0.5 pts +9.0 pts -1.0 pts 0.0636 PASS" in first  # the card's row


def test_numbers_read_as_the_policy_says(rendered):
    text = " ".join(page_text(rendered["paired_14_to_5.wbsession.json"][1]).split())
    assert "#####" not in text
    assert "0.0636" in text and "+4.5 pts" in text
    # a difference of rates is never a percent, except in the analysis's own note (its text)
    assert text.count("4.5%") == text.count("The observed difference (+4.5%)")
    cost = " ".join(page_text(rendered["cost_latency.wbsession.json"][1]).split())
    assert "$" not in cost  # the file's units: no currency was chosen
    assert "dominated" in cost
    gate = " ".join(page_text(rendered["gate"][1]).split())
    assert "Test p = 0.00904 (Holm-adjusted 0.0181)." in gate  # p-values to 3 significant digits
    assert "alpha 0.05" in gate  # a number, not the text '0.05'


def test_gate_page_is_readable(rendered):
    """The gate's sheet prints at (nearly) full size: its text is as large as the summary's."""
    xlsx, _, _ = rendered["gate"]
    ws = openpyxl.load_workbook(xlsx)["gate"]
    assert (ws.page_setup.scale or 100) >= 90


def test_charts_are_drawn(rendered):
    """The pages with charts hold the series colour of the charts' bars and markers."""
    Image = pytest.importorskip("PIL.Image")
    import numpy as np

    series_blue = np.array([0x1F, 0x5A, 0x96])
    coloured = 0
    for name in SESSIONS:
        for page in rendered[name][2]:
            pixels = np.asarray(Image.open(page["png"]).convert("RGB"), dtype=int)
            coloured += int((np.abs(pixels - series_blue) <= 24).all(axis=2).sum()) > 40
    assert coloured >= len(SESSIONS)  # at least one chart page per report (lines are thin)


def test_libreoffice_displays_each_kind_as_format_value_writes_it(folder, profile):
    """The policy's Excel formats, displayed by LibreOffice, read exactly as format_value's text."""
    import xlsxwriter

    from workbench.report.present import excel_format, excel_value, format_value

    cases = [(1.58e-30, "p"), (0.063568115234375, "p"), (0.5, "p"), (0.00999, "p"), (2.07e-5, "rate"),
             (1e-9, "rate"), (0.725, "rate"), (0.045, "points"), (-0.01, "points"), (0.0784, "margin"),
             (0.014634146341463414, "cost"), (1234.5, "cost"), (2.4517499999999997, "latency"),
             (-0.011064970699031895, "relative"), (0.012681892239007442, "score_diff"), (2.1e-5, "score"),
             (0.6835501809065484, "score"), (31.306560659328163, "bleu"), (4.2631578947368425, "statistic"),
             (165.0, "count"), (1049, "count")]
    path = folder / "formats.xlsx"
    wb = xlsxwriter.Workbook(str(path))
    ws = wb.add_worksheet("formats")
    ws.set_column(0, 1, 24)
    for i, (value, kind) in enumerate(cases):
        ws.write_number(i, 0, excel_value(value, kind), wb.add_format({"num_format": excel_format(kind, value=value)}))
        ws.write_string(i, 1, "|" + format_value(value, kind))
    wb.close()
    pdf = to_pdf(path, folder, profile)
    rows = [line.split("|") for line in page_text(pdf).splitlines() if "|" in line]
    assert len(rows) == len(cases)
    for (value, kind), (shown, text) in zip(cases, rows):
        assert shown.strip() == text.strip(), (value, kind)
