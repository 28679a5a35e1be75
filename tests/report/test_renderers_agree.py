"""The GUI-independent renderers agree on every number: the command line's human output, the
Excel cells (value + number format, displayed by a small independent reading of Excel's format
codes) and the answer sentences show the same strings for the same stored values."""

from __future__ import annotations

import re
from decimal import ROUND_HALF_UP, Decimal

import openpyxl
import pytest
from report_checks import EXAMPLES, find_table, run_example

from workbench.cli.main import render_text
from workbench.report import write_report
from workbench.report.present import answer

IDS = [e[0] for e in EXAMPLES]


# -- an independent reading of the Excel number formats the report uses ---------------------------

def _sections(fmt: str) -> list[str]:
    out, cur, quoted = [], "", False
    for ch in fmt:
        if ch == '"':
            quoted = not quoted
        if ch == ";" and not quoted:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    return out + [cur]


def _round(value: float, places: int) -> Decimal:
    """Excel: the double to 15 significant digits, then half away from zero."""
    d = Decimal(format(value, ".15g"))
    q = Decimal(1).scaleb(-places)
    return d.copy_sign(1).quantize(q, rounding=ROUND_HALF_UP).copy_sign(d) if d else Decimal(0).quantize(q)


def _number(section: str, value: float) -> str:
    literal = re.findall(r'"([^"]*)"', section)
    body = re.sub(r'"[^"]*"', "\x00", section)
    if not re.search(r"[0#]", body):  # a text-only section
        return "".join(literal)
    if "%" in body:
        value *= 100
    m = re.search(r"[#0,]*0(?:\.(0+))?", body)
    places = len(m.group(1) or "") if m else 0
    digits = _round(abs(value), places)
    text = f"{digits:,.{places}f}" if "," in m.group(0) else f"{digits:.{places}f}"
    pieces = iter(literal)
    out = body[: m.start()] + text + body[m.end():]
    return re.sub("\x00", lambda _: next(pieces), out)


def excel_display(value, fmt: str) -> str:
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if not isinstance(value, (int, float)):
        return str(value)
    if fmt in ("General", None):
        return f"{value:g}" if isinstance(value, float) else str(value)
    secs = _sections(fmt)
    cond = re.match(r"\[([<>]=?)([-\d.]+)\](.*)", secs[0])
    if cond:
        op, bound, first = cond.groups()
        hit = {"<": value < float(bound), "<=": value <= float(bound), ">": value > float(bound),
               ">=": value >= float(bound)}[op]
        if hit:
            return _number(first, value)
        rest = secs[1:]
        cond2 = re.match(r"\[([<>]=?)([-\d.]+)\](.*)", rest[0]) if rest else None
        if cond2:
            op2, bound2, second = cond2.groups()
            if {"<=": value <= float(bound2), "<": value < float(bound2)}.get(op2, False):
                return "-" + _number(second.lstrip("-"), value) if second.startswith("-") else _number(second, value)
            return _number(rest[1], value)
        return _number(rest[0], value)
    if len(secs) >= 2 and value < 0:
        return _number(secs[1], value)
    if len(secs) >= 3 and _round(abs(value), 12) == 0:
        return _number(secs[2], value)
    return ("-" if value < 0 and len(secs) == 1 else "") + _number(secs[0], value)


def test_the_format_reader_itself():
    """Hand-checked against what Excel and LibreOffice display."""
    assert excel_display(0.725, "0.0%") == "72.5%"
    assert excel_display(4.5, '+0.0" pts";-0.0" pts";0.0" pts"') == "+4.5 pts"
    assert excel_display(-1.0, '+0.0" pts";-0.0" pts";0.0" pts"') == "-1.0 pts"
    assert excel_display(1.58e-30, '"< 0.001"') == "< 0.001"
    assert excel_display(2.4517499999999997, "#,##0.0000") == "2.4518"
    assert excel_display(1234.5, "#,##0.00") == "1,234.50"
    assert excel_display(0.5, '[<0.001]"< 0.001";0.000') == "0.500"


# -- the three renderings ------------------------------------------------------------------------

@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    folder = tmp_path_factory.mktemp("agree")
    out = {}
    for ident, analysis, filename, options in EXAMPLES:
        result, table = run_example(analysis, filename, options)
        path = folder / f"{ident}.xlsx"
        write_report(path, [result], source=table)
        out[ident] = (result, render_text(result), openpyxl.load_workbook(path),
                      openpyxl.load_workbook(path, data_only=True))
    return out


def _cli_cells(text: str, result) -> list[dict]:
    """The command line's table, row by row, as {column: cell text}."""
    lines = text.splitlines()
    head, rule = lines[1], lines[2]
    spans = [(m.start(), m.end()) for m in re.finditer(r"-+", rule)]
    names = [head[a:b].strip() or head[a:].split()[0] for a, b in spans]
    rows = []
    for line in lines[3: 3 + len(result.records)]:
        rows.append({n: line[a:b].strip() for n, (a, b) in zip(names, spans)})
    return rows


@pytest.mark.parametrize("ident", IDS)
def test_cli_and_excel_show_the_same_strings(rendered, ident):
    result, text, wb, _ = rendered[ident]
    ws = wb[result.analysis]
    from workbench.core.result import RECORD_KEYS

    keys = [k for k in RECORD_KEYS if any(k in r for r in result.records)]
    header = find_table(ws, "All results (the records printed by --json)", keys)
    cli = _cli_cells(text, result)
    checked = 0
    for i, (rec, row) in enumerate(zip(result.records, cli)):
        assert row["metric"] == rec["metric"]
        value = ws.cell(header + 1 + i, keys.index("value") + 1)
        if isinstance(rec["value"], (int, float)) and not isinstance(rec["value"], bool):
            assert excel_display(value.value, value.number_format) == row["value"], (rec, value.number_format)
            checked += 1
        if rec.get("ci_low") is not None and rec.get("degenerate"):  # a zero-width interval: none shown
            assert row["95% CI"] == "" and ws.cell(header + 1 + i, keys.index("ci_low") + 1).value is None
        elif rec.get("ci_low") is not None:
            lo = ws.cell(header + 1 + i, keys.index("ci_low") + 1)
            hi = ws.cell(header + 1 + i, keys.index("ci_high") + 1)
            shown_lo = excel_display(lo.value, lo.number_format)
            shown_hi = excel_display(hi.value, hi.number_format)
            assert row["95% CI"] in (f"{shown_lo} to {shown_hi}",
                                     f"{shown_lo.removesuffix(' pts')} to {shown_hi}"), (rec, row)
        if rec.get("n") is not None:
            n = ws.cell(header + 1 + i, keys.index("n") + 1)
            assert excel_display(n.value, n.number_format) == row["n"]
    assert checked > 0
    for raw in re.findall(r"\d\.\d{5,}|\de-\d", text.split("\nanswer:")[0]):
        pytest.fail(f"a raw float in the command line's table: {raw}")


def _displayed_strings(wb, values) -> set[str]:
    """What every numeric cell shows: its stored value (formulas too) in its number format."""
    shown = set()
    for ws in wb.worksheets:
        for row in ws.iter_rows():
            for cell in row:
                v = values[ws.title][cell.coordinate].value
                if isinstance(v, (int, float)) and not isinstance(v, bool):
                    shown.add(excel_display(v, cell.number_format))
    return shown


#: phrases whose digits are labels, not results
_LABELS = re.compile(r"95% CI|0-100 scale|0-1 scores|\b[A-Za-z]+[@^]\d+|pass@\d+|pass\^\d+|\b[A-Za-z]+-?\d\b|\bk = \d+|"
                     r"'[^']*'|\d{4}-\d\d-\d\d[^ )]*")


@pytest.mark.parametrize("ident", IDS)
def test_every_number_of_the_answer_is_shown_by_a_cell(rendered, ident):
    """The answer sentences quote the workbook: each number in them is the display text of some
    numeric cell of the report (same stored value, same rounding)."""
    result, text, wb, values = rendered[ident]
    shown = _displayed_strings(wb, values)
    shown |= {s.removesuffix(" pts") for s in shown} | {s.lstrip("+") for s in shown}
    for sentence in answer(result).sentences:
        assert sentence in text  # the command line prints the answer too
        bare = _LABELS.sub("", sentence)
        for number in re.findall(r"[<>]? ?[+-]?\d[\d,]*(?:\.\d+)?(?:%| pts)?", bare):
            number = number.strip()
            assert (number in shown or number.lstrip("±") in shown
                    or number.removesuffix(" pts") in shown), (ident, number, sentence)


def _header_above(ws, row: int, col: int):
    for r in range(row - 1, 0, -1):
        v = ws.cell(r, col).value
        if isinstance(v, str):
            return v
    return None


@pytest.mark.parametrize("ident", IDS)
def test_every_numeric_cell_has_a_policy_format(rendered, ident):
    """No number in the workbook is left to Excel's General format (which shows 0.5992539325984954
    or 5.905E-06), except whole numbers and the input file's own cells."""
    _, _, wb, values = rendered[ident]
    checked = 0
    for ws in wb.worksheets:
        for row in ws.iter_rows():
            for cell in row:
                v = values[ws.title][cell.coordinate].value
                if not isinstance(v, (int, float)) or isinstance(v, bool):
                    continue
                checked += 1
                shown = excel_display(v, cell.number_format)
                assert "E-" not in shown.upper() and not re.search(r"\.0*[1-9]\d{4,}", shown), (ws.title, cell.coordinate, shown)
                if cell.number_format == "General" and float(v) != int(v):
                    header = _header_above(ws, cell.row, cell.column) or ""
                    label = ws.cell(cell.row, 1).value
                    assert header.startswith("input:") or label == "alpha", (ws.title, cell.coordinate, v)
    assert checked > 0
