"""Safety of the report: formula injection, sheet names, atomic writing and its errors, tables
longer than a sheet, constant-memory mode."""

from __future__ import annotations

import errno
import os
import re
import tempfile
import zipfile

import numpy as np
import openpyxl
import pandas as pd
import pytest
from openpyxl.utils.escape import unescape
from report_checks import EX, find_table, open_both, run_example, sheet_xml

import workbench.report.writer as writer_mod
import workbench.report.xlsx as xlsx_mod
from workbench.analyses import REGISTRY
from workbench.core.errors import WorkbenchError
from workbench.core.result import AnalysisResult, Table, record
from workbench.io import load_table, parquet
from workbench.report import SheetNames, sanitize_sheet_name, write_report

HOSTILE = ["=1+1", "+SUM(A1:A2)", "-2+3", "@SUM(A1)", "\tTAB=1", "\rCR=1",
           '=HYPERLINK("http://example.invalid/x","click")', "=cmd|' /C calc'!A0",
           "http://example.invalid/not-a-link", "007", "1e5", "TRUE"]


def _result(name="custom", tables=(), records=(record("m", 0.5, n=2),), notes=(), signature=None):
    return AnalysisResult(name, signature or f"workbench:0.1.0|analysis:{name}", tuple(records),
                          tuple(tables), tuple(notes), None)


# -- formula injection ---------------------------------------------------------------------

@pytest.fixture
def hostile_text(tmp_path):
    """A text-analysis input whose ids, predictions and references are all hostile."""
    n = len(HOSTILE)
    frame = pd.DataFrame({"item_id": [f"{h}#{i}" for i, h in enumerate(HOSTILE)],
                          "prediction": HOSTILE, "reference": list(reversed(HOSTILE))})
    path = tmp_path / "hostile.parquet"  # keeps tabs and carriage returns exactly
    parquet.write(frame, path, index=False)
    table = load_table(path)
    assert len(table.frame) == n
    result = REGISTRY["text"].run(table, REGISTRY["text"].Options())
    out = tmp_path / "report.xlsx"
    write_report(out, [result], source=table)
    return result, table, out


def test_input_text_that_looks_like_a_formula_stays_text(hostile_text):
    result, _, out = hostile_text
    wb, values = open_both(out)
    items = result.table("items").frame
    ws = wb["text items"]
    header = find_table(values["text items"], "Per-item scores", list(items.columns))
    for i, row in items.iterrows():
        for col in ("item", "prediction", "reference"):
            c = list(items.columns).index(col) + 1
            cell = ws.cell(header + 1 + i, c)
            assert cell.data_type == "s", (col, cell.value)  # never 'f'
            # the text itself (XML cannot hold a bare CR: it is stored as Excel's _x000D_ escape,
            # which Excel and LibreOffice decode and openpyxl leaves as is)
            assert unescape(cell.value) == row[col]
            assert unescape(values["text items"].cell(header + 1 + i, c).value) == row[col]
            if row[col].startswith(("=", "+", "-", "@", "\t", "\r")):
                assert cell.quotePrefix  # editing the cell keeps it text


def test_no_formula_and_no_link_comes_from_the_input(hostile_text):
    _, _, out = hostile_text
    xml = sheet_xml(out, "text items")
    assert "<f>" not in xml  # no formula at all on the items sheet
    links = re.findall(r"<hyperlink [^>]*>", xml)
    assert links == ['<hyperlink ref="A3" location="\'text\'!A1" tooltip="Go to sheet text" display="From"/>']
    with zipfile.ZipFile(out) as z:
        assert not any("externalLink" in n for n in z.namelist())
    # numbers-looking text stays text too ('007' keeps its zeros)
    wb = openpyxl.load_workbook(out)
    found = [c.value for row in wb["text items"].iter_rows() for c in row if c.value == "007"]
    assert found


def test_hostile_table_headers_series_names_and_sheet_titles(tmp_path):
    frame = pd.DataFrame({"=SUM(A1)": ["@x", "=1"], "system": ["=A1", "+B"], "k": [1, 3],
                          "pass@k": [0.2, 0.4], "pass^k": [0.1, 0.05]})
    passk = _result("passk", tables=[Table("summary", "=evil title", frame)])
    out = tmp_path / "r.xlsx"
    write_report(out, [passk])
    wb = openpyxl.load_workbook(out)
    ws = wb["passk"]
    cells = [c for row in ws.iter_rows() for c in row if isinstance(c.value, str) and c.value[:1] in "=+@"]
    assert cells and all(c.data_type == "s" for c in cells)
    for xml in _charts(out):
        for ref in re.findall(r"<c:f>([^<]*)</c:f>", xml):
            assert re.match(r"^'?passk'?!\$", ref), ref  # series names from the input are literal text


def _charts(path):
    with zipfile.ZipFile(path) as z:
        return [z.read(n).decode() for n in z.namelist() if n.startswith("xl/charts/chart")]


def test_workbook_options_never_convert_strings(tmp_path, monkeypatch):
    import xlsxwriter

    seen = {}
    original = xlsxwriter.Workbook.__init__

    def spy(self, filename=None, options=None):
        seen.update(options or {})
        original(self, filename, options)

    monkeypatch.setattr(xlsxwriter.Workbook, "__init__", spy)
    write_report(tmp_path / "r.xlsx", [_result()])
    assert seen["strings_to_formulas"] is False and seen["strings_to_urls"] is False
    assert seen["strings_to_numbers"] is False


def test_long_text_and_control_characters(tmp_path):
    long = "x" * 40_000
    frame = pd.DataFrame({"text": [long, "bell\x07 and nul\x00 inside", "ok"]})
    out = tmp_path / "r.xlsx"
    write_report(out, [_result(tables=[Table("items", "Items", frame)])])
    wb = openpyxl.load_workbook(out)
    values = [c.value for row in wb["custom"].iter_rows() for c in row if isinstance(c.value, str)]
    cut = next(v for v in values if v.startswith("xxx"))
    assert len(cut) == 32_767 and cut.endswith("truncated: Excel holds at most 32,767 characters in a cell]")
    assert any(v.startswith("bell") for v in values)


# -- sheet names ---------------------------------------------------------------------------

@pytest.mark.parametrize("name, expected", [
    ("compare", "compare"), ("a[b]:c*d?e/f\\g", "abcdefg"), ("'quoted'", "quoted"),
    ("x" * 40, "x" * 31), ("", "Sheet"), ("[]:*?/\\", "Sheet"), ("History", "History (1)"),
    ("tab\there", "tab here"), ("  spaced   out  ", "spaced out"),
])
def test_sanitize_sheet_name(name, expected):
    assert sanitize_sheet_name(name) == expected


def test_sheet_names_are_unique_ignoring_case_within_31_characters():
    names = SheetNames()
    got = [names.claim(n) for n in ["Summary", "SUMMARY", "summary", "y" * 40, "y" * 45, "a/b", "ab"]]
    assert got[:3] == ["Summary", "SUMMARY (2)", "summary (3)"]
    assert got[3] == "y" * 31 and got[4] == "y" * 27 + " (2)"
    assert got[5] == "ab" and got[6] == "ab (2)"
    assert all(len(n) <= 31 for n in got)
    assert len({n.lower() for n in got}) == len(got)


def test_hostile_analysis_names_and_duplicates_in_a_report(tmp_path):
    results = [_result("a[1]:b*?/\\c"), _result("a1bc"), _result("compare"), _result("Compare"),
               _result("z" * 50), _result("summary")]
    out = tmp_path / "r.xlsx"
    write_report(out, results)
    names = openpyxl.load_workbook(out).sheetnames
    assert names[0] == "Summary"
    assert names[1:] == ["a1bc", "a1bc (2)", "compare", "Compare (2)", "z" * 31, "summary (2)"]
    wb = openpyxl.load_workbook(out)
    links = [c.hyperlink.location for row in wb["Summary"].iter_rows() for c in row if c.hyperlink]
    assert {re.sub(r"^'(.*)'!A1$", r"\1", link).replace("''", "'") for link in links} == set(names[1:])


# -- atomic writing ------------------------------------------------------------------------

@pytest.fixture
def earlier(tmp_path):
    """A folder holding an earlier report, and its bytes."""
    result, table = run_example("compare", "paired_14_to_5.csv",
                                dict(baseline="baseline", candidate="candidate", resamples=1000))
    path = tmp_path / "report.xlsx"
    write_report(path, [result], source=table)
    return path, path.read_bytes(), result, table


def _fail_after_first_sheet(monkeypatch, exc):
    original = writer_mod.render_sheet
    calls = []

    def render(wb, ws, plan, styles, refs):
        calls.append(plan.name)
        if len(calls) > 1:
            raise exc
        return original(wb, ws, plan, styles, refs)

    monkeypatch.setattr(writer_mod, "render_sheet", render)
    return calls


def test_a_failure_midway_leaves_the_earlier_report_and_no_temporary_file(earlier, monkeypatch):
    path, before, result, table = earlier
    calls = _fail_after_first_sheet(monkeypatch, RuntimeError("a bug in the middle of the report"))
    with pytest.raises(RuntimeError, match="a bug"):  # a bug stays a bug, not a user error
        write_report(path, [result], source=table)
    assert len(calls) == 2
    assert path.read_bytes() == before
    assert os.listdir(path.parent) == ["report.xlsx"]


@pytest.mark.parametrize("code, cause", [(errno.ENOSPC, "the disk is full"),
                                         (errno.EACCES, "permission denied"),
                                         (errno.EROFS, "the file system is read-only")])
def test_a_file_system_error_midway_is_one_sentence_and_keeps_the_earlier_report(earlier, monkeypatch, code, cause):
    path, before, result, table = earlier
    _fail_after_first_sheet(monkeypatch, OSError(code, os.strerror(code)))
    with pytest.raises(WorkbenchError) as info:
        write_report(path, [result], source=table)
    message = str(info.value)
    assert str(path) in message and cause in message and "the earlier report there is unchanged" in message
    assert path.read_bytes() == before
    assert os.listdir(path.parent) == ["report.xlsx"]


def test_a_failure_while_zipping_is_reported(earlier, monkeypatch):
    from xlsxwriter.exceptions import FileCreateError
    from xlsxwriter.workbook import Workbook

    path, before, result, table = earlier

    def fail(self):
        raise FileCreateError(OSError(errno.ENOSPC, "No space left on device"))

    monkeypatch.setattr(Workbook, "_store_workbook", fail)
    with pytest.raises(WorkbenchError, match="the disk is full"):
        write_report(path, [result], source=table)
    assert path.read_bytes() == before and os.listdir(path.parent) == ["report.xlsx"]


def test_a_failing_rename_keeps_the_earlier_report(earlier, monkeypatch):
    path, before, result, table = earlier

    def deny(src, dst):
        raise PermissionError(errno.EACCES, "Permission denied", str(dst))

    monkeypatch.setattr(os, "replace", deny)
    with pytest.raises(WorkbenchError, match=r"permission denied \(if the file is open in Excel"):
        write_report(path, [result], source=table)
    monkeypatch.undo()
    assert path.read_bytes() == before and os.listdir(path.parent) == ["report.xlsx"]


def test_constant_memory_temporary_files_are_removed_on_failure(earlier, monkeypatch):
    import xlsxwriter.worksheet as ws_mod

    path, before, result, table = earlier
    made = []
    original = tempfile.mkstemp

    def spy(*args, **kwargs):
        fd, name = original(*args, **kwargs)
        made.append(name)
        return fd, name

    monkeypatch.setattr(ws_mod.tempfile, "mkstemp", spy)
    monkeypatch.setattr(xlsx_mod, "LARGE_TABLE_ROWS", 0)
    _fail_after_first_sheet(monkeypatch, RuntimeError("boom"))
    with pytest.raises(RuntimeError):
        write_report(path, [result], source=table)
    assert made and not any(os.path.exists(m) for m in made)
    assert path.read_bytes() == before


def test_missing_folder_unwritable_folder_folder_target_and_wrong_extension(tmp_path):
    r = [_result()]
    with pytest.raises(WorkbenchError, match="does not exist"):
        write_report(tmp_path / "missing" / "r.xlsx", r)
    (tmp_path / "dir.xlsx").mkdir()
    with pytest.raises(WorkbenchError, match="it is a folder"):
        write_report(tmp_path / "dir.xlsx", r)
    with pytest.raises(WorkbenchError, match=r"must be an \.xlsx file"):
        write_report(tmp_path / "r.csv", r)
    with pytest.raises(WorkbenchError, match="no result"):
        write_report(tmp_path / "r.xlsx", [])
    assert sorted(os.listdir(tmp_path)) == ["dir.xlsx"]


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0,
                    reason="running as root: folder permissions do not stop root from writing")
def test_unwritable_folder(tmp_path):
    folder = tmp_path / "locked"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        with pytest.raises(WorkbenchError, match="permission denied"):
            write_report(folder / "r.xlsx", [_result()])
    finally:
        folder.chmod(0o700)


def test_refuses_to_overwrite_the_input(tmp_path):
    book = tmp_path / "results.xlsx"
    pd.DataFrame({"item_id": ["a", "b"], "baseline": [1, 0], "candidate": [1, 1]}).to_excel(book, index=False)
    table = load_table(book)
    result = REGISTRY["compare"].run(table, REGISTRY["compare"].Options(resamples=1000))
    before = book.read_bytes()
    with pytest.raises(WorkbenchError, match="would overwrite the input file"):
        write_report(book, [result], source=table)
    assert book.read_bytes() == before


def test_new_report_keeps_the_permissions_of_the_one_it_replaces(earlier):
    path, _, result, table = earlier
    path.chmod(0o640)
    write_report(path, [result], source=table)
    assert (path.stat().st_mode & 0o777) == 0o640


# -- long tables ---------------------------------------------------------------------------

def test_a_table_longer_than_a_sheet_is_split_across_sheets(tmp_path, monkeypatch):
    monkeypatch.setattr(xlsx_mod, "EXCEL_MAX_ROWS", 40)  # capacity per sheet: 40 - 5 - 2 = 33 rows
    n = 100
    frame = pd.DataFrame({"item": [f"i{k}" for k in range(n)], "score": np.linspace(0, 1, n)})
    result = _result("bulk", tables=[Table("items", "Per-item scores", frame, formats={"score": "rate"})])
    ITEM = dict(xlsx_mod.ITEM_TABLES, bulk={"items"})
    monkeypatch.setattr(xlsx_mod, "ITEM_TABLES", ITEM)
    out = tmp_path / "r.xlsx"
    write_report(out, [result])
    wb, values = open_both(out)
    parts = ["bulk items", "bulk items part 2", "bulk items part 3", "bulk items part 4"]
    assert wb.sheetnames == ["Summary", "bulk"] + parts
    got = []
    for name in parts:
        ws = values[name]
        assert ws.max_row <= 40
        header = find_table(ws, "Per-item scores", ["item", "score"])
        got += [(ws.cell(r, 1).value, ws.cell(r, 2).value) for r in range(header + 1, ws.max_row + 1)]
        assert wb[name].freeze_panes == f"A{header + 1}"
    assert [g[0] for g in got] == list(frame["item"])
    assert [g[1] for g in got] == pytest.approx(list(frame["score"]), rel=1e-15)
    note = " ".join(str(v) for v in _col_b(values["bulk"]))
    assert "has 100 rows, more than an Excel sheet holds (40 rows)" in note and "'bulk items part 4'" in note


def _col_b(ws):
    return [ws.cell(r, 2).value for r in range(1, ws.max_row + 1) if ws.cell(r, 2).value]


@pytest.mark.slow
def test_more_rows_than_excel_holds_really(tmp_path):
    """1,048,600 rows: two sheets, each within Excel's 1,048,576 rows, written in constant memory."""
    n = 1_048_600
    frame = pd.DataFrame({"score": np.arange(n, dtype=float)})
    result = _result("bulk", tables=[Table("items", "Per-item scores", frame)])
    out = tmp_path / "big.xlsx"
    write_report(out, [result])
    dims = {}
    with zipfile.ZipFile(out) as z:
        book = z.read("xl/workbook.xml").decode()
        names = re.findall(r'<sheet name="([^"]*)"', book)
        for i, name in enumerate(names, 1):
            with z.open(f"xl/worksheets/sheet{i}.xml") as fh:
                head = fh.read(4096).decode("utf-8", "replace")
            dims[name] = re.search(r'<dimension ref="([^"]+)"', head).group(1)
        last = z.read(f"xl/worksheets/sheet{len(names)}.xml").decode()
    assert names == ["Summary", "bulk", "bulk items", "bulk items part 2"]
    first_last_row = int(re.search(r"(\d+)$", dims["bulk items"]).group(1))
    assert first_last_row == 1_048_576
    rows_on_first = 1_048_576 - 7  # heading, signature, from, rows, gap, title, header
    assert f"<v>{n - 1}</v>" in last and f"<v>{rows_on_first - 1}</v>" not in last
    assert "inlineStr" in last  # constant-memory mode (inline strings, rows flushed)


def test_constant_memory_mode_writes_the_same_workbook(tmp_path, monkeypatch):
    result, table = run_example("cost", "cost_latency.csv",
                                dict(system="system", success="success", cost="cost", latency="latency_s"))
    normal = tmp_path / "normal.xlsx"
    write_report(normal, [result], source=table)
    monkeypatch.setattr(xlsx_mod, "LARGE_TABLE_ROWS", 0)
    lean = tmp_path / "lean.xlsx"
    write_report(lean, [result], source=table)
    assert "inlineStr" in sheet_xml(lean, "cost") and "inlineStr" not in sheet_xml(normal, "cost")
    for mode in (False, True):
        a = openpyxl.load_workbook(normal, data_only=mode)
        b = openpyxl.load_workbook(lean, data_only=mode)
        assert a.sheetnames == b.sheetnames
        for ws in a.worksheets:
            for row_a, row_b in zip(ws.iter_rows(), b[ws.title].iter_rows()):
                for x, y in zip(row_a, row_b):
                    if isinstance(x.value, __import__("datetime").datetime):
                        continue  # the time of writing
                    assert x.value == y.value and x.number_format == y.number_format, (ws.title, x.coordinate)


def test_report_package_does_not_load_qt():
    import subprocess
    import sys

    code = ("import sys, workbench.report, workbench.cli.report_cmd\n"
            "bad = [m for m in sys.modules if m.split('.')[0] in ('PySide6', 'pyqtgraph') "
            "or m.startswith('workbench.ui')]\n"
            "sys.exit(1 if bad else 0)\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=str(EX.parents[1]))
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_odd_cell_types_and_empty_tables(tmp_path):
    import datetime as dt
    from decimal import Decimal

    frame = pd.DataFrame({
        "when": pd.to_datetime(["2026-01-02 03:04:05", None]),
        "aware": pd.to_datetime(["2026-01-02 03:04:05+02:00", "2026-01-02 00:00:00+02:00"]),
        "nullable": pd.array([1, None], dtype="Int64"),
        "flag": pd.array([True, None], dtype="boolean"),
        "cat": pd.Categorical(["a", "=b"]),
        "obj": [Decimal("1.5"), dt.timedelta(seconds=90)],
        "big": [2 ** 60, 3],
        "inf": [float("inf"), -float("inf")],
        "np": pd.Series([np.float32(0.25), np.int16(7)], dtype=object),
    })
    empty = pd.DataFrame({"item": pd.Series([], dtype=str), "score": pd.Series([], dtype=float)})
    out = tmp_path / "r.xlsx"
    write_report(out, [_result(tables=[Table("odd", "Odd types", frame, formats={"np": "float"}),
                                       Table("none", "Nothing", empty)])])
    _, values = open_both(out)
    ws = values["custom"]
    header = find_table(ws, "Odd types", list(frame.columns))
    row1 = [ws.cell(header + 1, c).value for c in range(1, len(frame.columns) + 1)]
    row2 = [ws.cell(header + 2, c).value for c in range(1, len(frame.columns) + 1)]
    assert row1[0] == dt.datetime(2026, 1, 2, 3, 4, 5) and row2[0] is None
    assert row1[1] == dt.datetime(2026, 1, 2, 1, 4, 5)  # time zones: converted to UTC
    assert (row1[2], row2[2]) == (1, None)
    assert (row1[3], row2[3]) == (True, None)
    assert (row1[4], row2[4]) == ("a", "=b")
    assert row1[5] == 1.5 and row2[5] == "0:01:30"
    assert row1[6] == str(2 ** 60) and row2[6] == 3  # more digits than a double: kept as text
    assert (row1[7], row2[7]) == ("inf", "-inf")
    assert (row1[8], row2[8]) == (0.25, 7)
    header = find_table(ws, "Nothing", ["item", "score"])
    assert ws.cell(header + 1, 1).value in (None, "All results (the records printed by --json)")
