"""Long tables written as sheet XML a column at a time (``workbench.report.fastrows``) give the
same workbook as writing every cell through XlsxWriter, on data made to trip it: text that
looks like a formula, long, multi-line, Unicode and control-character text, text with leading
or trailing spaces, empty strings, NaN and inf, integers past a double's 53 bits, dates,
booleans, pandas' missing values, every number kind of the policy; and a few faults of the
cell-by-cell path found on the way (rich-text look-alikes, emoji past the cell limit, huge
integers)."""

from __future__ import annotations

import datetime as dt
import re
import zipfile
from decimal import Decimal

import numpy as np
import openpyxl
import pandas as pd
import pytest

import workbench.report.fastrows as fast_mod
import workbench.report.writer as writer_mod
import workbench.report.xlsx as xlsx_mod
from workbench.core.result import AnalysisResult, Table, record
from workbench.report import write_report
from workbench.report.styles import Styles

TEXTS = [
    "plain words", "=1+1", "+SUM(A1:A2)", "-2+3", "@SUM(A1)", "\tTAB=1", "\rCR=1", "", " ", "  lead",
    "trail  ", "\u00a0nbsp", "em\u2003", "line one\nline two\nline three", "\n", "ends with newline\n",
    "東京 данные Zürich naïve café straße", "emoji 😀 and 🇩🇪 flags", "e\u0301 combining", "bell\x07 nul\x00 fs\x1c",
    "\x1cstarts with a control", "literal _x0041_ escape", "_x005F_ twice _x00e9_", "a & b < c > d \"q\" 'a'",
    "non-character \ufffe\uffff", "tab\tinside", "cr\rinside", "x" * 40_000, "😀" * 20_000, "y" * 200,
    ("a long line of words " * 12).strip(), ("short\n" * 5) + "z" * 150, "=HYPERLINK(\"http://x.invalid\")",
    "http://example.invalid/not-a-link", "007", "1e5", "TRUE", "None", "nan",
]
#: Text that XlsxWriter would pass through as rich-text XML: the two paths write it
#: differently (the cell-by-cell one as two runs of the same text), with the same value.
RICH = ["<r>a & b</r>", "<r><t>hidden</t></r>", "<r></r>"]

FLOATS = [0.0, -0.0, 0.5, 1.0, 0.0725, 0.045, -0.045, 1e-7, 5e-5, 4.9999e-4, 0.00049999, 0.04999, 0.05,
          0.0999999, 0.1, 12.5, 1e20, 1e-300, 123456789.123, -3.25, float("nan"), float("inf"),
          float("-inf"), 2.0 ** 53, 0.3333333333333333, 7.0, 1234.5]
KINDS = ["rate", "points", "margin", "score", "score_diff", "relative", "bleu", "latency", "statistic",
         "count", "p", "cost", "plain", "text", "int", "float", "money", None]


def _frame(n: int, seed: int = 7, rich: bool = False) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    texts = TEXTS + (RICH if rich else [])
    pick = rng.integers(0, len(texts), n)
    floats = np.array(FLOATS)[rng.integers(0, len(FLOATS), n)]
    frame = pd.DataFrame({
        "id": [f"it-{i}" for i in range(n)],
        "text": [texts[k] for k in pick],
        "text_str": pd.array([texts[k] for k in pick[::-1]], dtype="string"),
        "line": np.arange(n, dtype=np.int64) + 2,
        "bigint": np.where(rng.random(n) < 0.5, 2 ** 53 - 1, -(2 ** 53) + 1).astype(np.int64),
        "past53": np.where(rng.random(n) < 0.5, 2 ** 53, -(2 ** 60)).astype(np.int64),
        "count_frac": np.where(rng.random(n) < 0.8, 3.0, 2.5),
        "flag": rng.random(n) < 0.5,
        "maybe": pd.array([None if k % 3 == 0 else bool(k % 2) for k in range(n)], dtype="boolean"),
        "nullable": pd.array([None if k % 4 == 0 else k * 7 for k in range(n)], dtype="Int64"),
        "when": pd.to_datetime(["2026-01-02 03:04:05", None, "1999-12-31 23:59:59.500"] * (n // 3)
                               + ["2026-06-01 00:00:00.000"] * (n % 3), format="ISO8601"),
        "aware": pd.to_datetime(["2026-01-02 03:04:05+02:00"] * n),
        "mixed": pd.Series([[Decimal("1.5"), dt.timedelta(seconds=90), np.float32(0.25), np.int16(7),
                             None, pd.NA, "=x", 10 ** 400, -(10 ** 30), True, dt.date(2026, 1, 2),
                             float("nan"), np.nan, 3, 2.5, "<r>z</r>" if rich else "z"][k % 16]
                            for k in range(n)], dtype=object),
        "blank": [None] * n,
    })
    for j, kind in enumerate(KINDS):
        frame[f"v_{kind}_{j}"] = np.roll(floats, j * 3)
    frame["all_nan"] = np.nan
    return frame


def _formats() -> dict[str, str]:
    out = {f"v_{kind}_{j}": kind for j, kind in enumerate(KINDS) if kind}
    out.update({"count_frac": "count", "line": "count", "bigint": "int", "past53": "count",
                "text_str": "text", "nullable": "count"})
    return out


def _result(frame: pd.DataFrame) -> AnalysisResult:
    table = Table("items", "Per-item scores", frame, columns={c: f"the {c}" for c in frame.columns},
                  formats=_formats())
    summary = Table("summary", "Summary", frame.head(3).copy(), formats=_formats())
    gaps = Table("gaps", "Rows with nothing in them", pd.DataFrame({
        "a": [1.0, np.nan, None, 2.0, np.nan], "b": ["x", None, None, None, None],
        "c": pd.array([None, None, pd.NA, 3, None], dtype="Int64")}))
    return AnalysisResult("text", "workbench:0.1.0|analysis:text", (record("exact_match", 0.5, n=2),),
                          (summary, gaps, table), ("a note",), None)


def _write(path, result, monkeypatch, *, fast: bool, chunk: int = 7) -> int:
    """Write in constant memory mode; returns how many tables took the XML path."""
    monkeypatch.setattr(xlsx_mod, "LARGE_TABLE_ROWS", 0)
    monkeypatch.setattr(writer_mod, "FAST_ROWS", fast)
    monkeypatch.setattr(fast_mod, "CHUNK_ROWS", chunk)
    taken = []
    original = fast_mod.write_rows_xml

    def spy(*args, **kwargs):
        done = original(*args, **kwargs)
        taken.append(done)
        return done

    monkeypatch.setattr(writer_mod, "write_rows_xml", spy)
    write_report(path, [result])
    return sum(taken)


def _parts(path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as z:
        return {name: z.read(name) for name in z.namelist()}


def test_fast_rows_write_the_same_xml_as_cell_by_cell(tmp_path, monkeypatch):
    result = _result(_frame(300))
    slow, fast = tmp_path / "slow.xlsx", tmp_path / "fast.xlsx"
    assert _write(slow, result, monkeypatch, fast=False) == 0
    assert _write(fast, result, monkeypatch, fast=True) >= 3  # the items, the stacked summary and gaps
    a, b = _parts(slow), _parts(fast)
    assert sorted(a) == sorted(b)
    sheets = sorted(n for n in a if re.fullmatch(r"xl/worksheets/sheet\d+\.xml", n))
    assert len(sheets) >= 3
    for name in sheets[1:] + ["xl/styles.xml", "xl/workbook.xml"]:  # sheet1: the summary, with the time
        assert a[name] == b[name], name
    items = b[sheets[-1]].decode()
    # the tricky cases did reach the sheet
    assert 'xml:space="preserve"' in items and "_x005F_x0041_" in items and "_x0007_" in items
    assert "&amp; b &lt; c &gt; d" in items and "truncated: Excel holds" in items
    assert 'customHeight="1"' in items and 't="b"' in items


def test_fast_rows_on_real_text_results_and_stacked_tables(tmp_path, monkeypatch):
    """The bundled examples' reports, every sheet but the summary's time, byte for byte."""
    from report_checks import EXAMPLES, run_example

    for ident, analysis, name, options in EXAMPLES:
        if name is None:
            continue
        result, table = run_example(analysis, name, options)
        slow, fast = tmp_path / f"{ident}-slow.xlsx", tmp_path / f"{ident}-fast.xlsx"
        _write(slow, result, monkeypatch, fast=False, chunk=5)
        _write(fast, result, monkeypatch, fast=True, chunk=5)
        a, b = _parts(slow), _parts(fast)
        sheets = sorted(n for n in a if re.fullmatch(r"xl/worksheets/sheet\d+\.xml", n))
        for part in sheets[1:] + ["xl/styles.xml"]:
            assert a[part] == b[part], (ident, part)


def _values(path) -> dict[str, list[list]]:
    book = openpyxl.load_workbook(path)
    out = {}
    for ws in book.worksheets[1:]:
        out[ws.title] = [[(c.value, c.data_type, c.number_format, c.quotePrefix if hasattr(c, "quotePrefix")
                           else c.style_array.quotePrefix, c.alignment.wrap_text, c.font.name, c.font.sz)
                          for c in row] for row in ws.iter_rows()]
        out[ws.title + " heights"] = sorted((r, d.height) for r, d in ws.row_dimensions.items() if d.height)
    return out


def test_rich_text_look_alikes_stay_text_on_both_paths(tmp_path, monkeypatch):
    result = _result(_frame(120, rich=True))
    slow, fast = tmp_path / "slow.xlsx", tmp_path / "fast.xlsx"
    _write(slow, result, monkeypatch, fast=False)
    _write(fast, result, monkeypatch, fast=True)
    a, b = _values(slow), _values(fast)
    assert a == b
    texts = {v[0] for rows in b.values() if isinstance(rows, list) for row in rows
             for v in (row if isinstance(row, list) else []) if isinstance(v, tuple) and isinstance(v[0], str)}
    assert set(RICH) <= texts and "<r>z</r>" in texts


def test_rich_text_look_alikes_in_a_small_report(tmp_path):
    """Shared strings (a report without long tables): the same text comes back, the file opens."""
    frame = pd.DataFrame({"text": RICH + ["<r> & </r>"], "score": [0.5, 0.25, 1.0, 0.0]})
    out = tmp_path / "small.xlsx"
    write_report(out, [_result(frame)])
    values = {c.value for ws in openpyxl.load_workbook(out).worksheets for row in ws.iter_rows() for c in row}
    assert set(RICH) <= values and "<r> & </r>" in values


def test_emoji_past_the_cell_limit_and_huge_integers(tmp_path):
    frame = pd.DataFrame({"text": ["😀" * 20_000, "a" + "😀" * 16_400, "ok"],
                          "big": pd.Series([10 ** 400, -(10 ** 400), 5], dtype=object)})
    out = tmp_path / "r.xlsx"
    write_report(out, [_result(frame)])
    got = [c.value for ws in openpyxl.load_workbook(out).worksheets for row in ws.iter_rows() for c in row]
    cut = [v for v in got if isinstance(v, str) and v.startswith(("😀", "a😀"))]
    assert cut and all(len(v.encode("utf-16-le")) // 2 <= 32_767 for v in cut)
    assert all(v.endswith("truncated: Excel holds at most 32,767 characters in a cell]") for v in cut)
    assert str(10 ** 400) in got and str(-(10 ** 400)) in got


@pytest.mark.parametrize("kind", KINDS)
def test_number_formats_by_class_are_the_policy_s_format_of_each_value(tmp_path, kind):
    import xlsxwriter

    from workbench.report.layout import Block

    wb = xlsxwriter.Workbook(str(tmp_path / "x.xlsx"))
    styles = Styles(wb)
    frame = pd.DataFrame({"v": [0.0]})
    block = Block("k", "t", frame, formats={"v": kind} if kind else {})
    cells = writer_mod.ColumnCells(writer_mod.CellWriter(wb.add_worksheet(), styles), block, "v", styles, None)
    k = writer_mod._kind(kind)
    rng = np.random.default_rng(3)
    values = [v for v in FLOATS if np.isfinite(v)] + list(rng.normal(0, 1, 200)) + \
        list(10.0 ** rng.uniform(-9, 9, 300)) + [-x for x in 10.0 ** rng.uniform(-9, 3, 100)] + \
        [0.05, 0.0005, 0.00005, 0.95, 0.9995, 1e-4, 1e-3, 1e-2, 0.1, 2, 3, 10 ** 6]
    for v in values:
        want = styles.cell(k if k != "text" else None, value=float(v))
        assert cells.number_fmt(k, v) is want, (kind, v)
    wb.close()


def test_wrapped_rows_keep_their_height_in_their_tag_only(tmp_path, monkeypatch):
    """The heights of wrapped rows are not kept by XlsxWriter (two records a row) when the
    sheet has no chart: only in the rows' tags."""
    n = 30_000
    frame = pd.DataFrame({"text": ["word " * 30] * n, "score": np.linspace(0, 1, n)})
    monkeypatch.setattr(xlsx_mod, "LARGE_TABLE_ROWS", 0)
    seen = {}
    original = fast_mod.write_rows_xml

    def spy(ws, plan, b, *args):
        done = original(ws, plan, b, *args)
        if b.nrows == n:
            seen["done"] = done
            seen["row_info"] = len(ws.row_info)
        return done

    monkeypatch.setattr(writer_mod, "write_rows_xml", spy)
    out = tmp_path / "r.xlsx"
    write_report(out, [_result(frame)])
    assert seen["done"] is True and seen["row_info"] < 100
    xml = _parts(out)["xl/worksheets/sheet3.xml"].decode()
    assert xml.count('customHeight="1"') >= n


def test_a_full_disk_midway_through_the_rows_keeps_the_earlier_report(tmp_path, monkeypatch):
    import errno
    import os
    import tempfile

    import xlsxwriter.worksheet as ws_mod

    from workbench.core.errors import WorkbenchError

    path = tmp_path / "report.xlsx"
    path.write_bytes(b"the earlier report")
    made = []
    original_mkstemp = tempfile.mkstemp

    def spy(*args, **kwargs):
        fd, name = original_mkstemp(*args, **kwargs)
        made.append(name)
        return fd, name

    monkeypatch.setattr(ws_mod.tempfile, "mkstemp", spy)
    monkeypatch.setattr(xlsx_mod, "LARGE_TABLE_ROWS", 0)
    monkeypatch.setattr(fast_mod, "CHUNK_ROWS", 50)
    chunks = []
    resolve = fast_mod._Xf.resolve

    def full(self, xml):
        chunks.append(1)
        if len(chunks) == 3:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return resolve(self, xml)

    monkeypatch.setattr(fast_mod._Xf, "resolve", full)
    with pytest.raises(WorkbenchError, match="the disk is full"):
        write_report(path, [_result(_frame(400))])
    assert len(chunks) == 3
    assert path.read_bytes() == b"the earlier report"
    assert os.listdir(tmp_path) == ["report.xlsx"]
    assert made and not any(os.path.exists(m) for m in made)


def _paginate_row_by_row(plan, scale, charts):
    """The page breaks as planned before row heights were kept in arrays (one lookup a row)."""
    import math

    from workbench.report.layout import ROW_PX, Heading, chart_rows
    from workbench.report.styles import LINE_HEIGHT

    def px(row):
        return plan.heights.get(row, LINE_HEIGHT) * 96 / 72

    page = writer_mod.PAGE_H_PX * 100.0 / scale
    fills, breaks = [0.0], []
    heading = plan.end_row - 1 if charts else plan.end_row
    keep = {it.row: 3 for it in plan.items if isinstance(it, Heading)}
    keep.update({b.row: 3 for b in plan.blocks()})
    for row in range(heading):
        h = sum(px(r) for r in range(row, min(heading, row + keep.get(row, 1))))
        if fills[-1] + h > page and fills[-1] > 0:
            breaks.append(row)
            fills.append(0.0)
        fills[-1] += px(row)
    if charts:
        per_row = chart_rows(2) * ROW_PX
        first = px(heading) + ROW_PX + per_row
        if fills[-1] + first > page and fills[-1] > 0:
            breaks.append(heading)
            fills.append(0.0)
        fills[-1] += px(heading) + ROW_PX
        for k in range(math.ceil(charts / 2)):
            if fills[-1] + per_row > page and fills[-1] > 0:
                breaks.append(plan.end_row + 1 + k * chart_rows(2))
                fills.append(0.0)
            fills[-1] += per_row
    return [f / page for f in fills], breaks


@pytest.mark.parametrize("seed", range(6))
def test_page_breaks_from_height_arrays_are_those_of_the_row_by_row_plan(seed):
    from workbench.report.layout import Block, Gap, Heading, Line, SheetPlan, assign_rows

    rng = np.random.default_rng(seed)
    items = [Heading("t")]
    for _ in range(int(rng.integers(1, 6))):
        items += [Line("a", "b") for _ in range(int(rng.integers(0, 4)))]
        items += [Heading("s", "section"), Block("k", "t", pd.DataFrame({"x": np.arange(int(rng.integers(0, 900)))})),
                  Gap()]
    plan = SheetPlan("p", items=items)
    assign_rows(plan)
    for _ in range(int(rng.integers(0, 60))):  # single rows, as the cell-by-cell path sets them
        plan.heights[int(rng.integers(0, plan.end_row + 5))] = float(rng.choice([12.75, 27.5, 40.25, 300.0]))
    for b in plan.blocks():  # a table's rows, as the XML path sets them
        if b.nrows and rng.random() < 0.7:
            run = plan.heights.run(b.first_row, b.nrows)
            set_ = rng.random(b.nrows) < 0.6
            run[set_] = rng.choice([27.5, 40.25, 53.0, 105.5], int(set_.sum()))
    for scale in (100, 83, 61, 37, 10):
        for charts in (0, 1, 3):
            assert writer_mod.paginate(plan, scale, charts) == _paginate_row_by_row(plan, scale, charts)


def test_rich_text_look_alike_without_a_format(tmp_path):
    import xlsxwriter

    for memory in (False, True):
        path = tmp_path / f"plain-{memory}.xlsx"
        wb = xlsxwriter.Workbook(str(path), {"constant_memory": memory})
        cells = writer_mod.CellWriter(wb.add_worksheet(), Styles(wb))
        cells.text(0, 0, "<r>x & y</r>")
        cells.value(1, 0, "<r></r>", None)
        wb.close()
        ws = openpyxl.load_workbook(path).active
        assert (ws["A1"].value, ws["A2"].value) == ("<r>x & y</r>", "<r></r>")
