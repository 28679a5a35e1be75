"""Each bundled example's report, reopened with openpyxl (as written, and as a reader that
does not recalculate sees it): sheets, values, types, number formats, formulas and their
stored values, charts, frozen headers, filters, widths and print setup."""

from __future__ import annotations

import datetime as dt
import math

import pytest
from report_checks import (CHART_TITLES, ERROR_BAR_CHARTS, EXAMPLES, FORMULA_COLUMNS, chart_xml,
                           evaluate, expected_format, find_table, lines_of, open_both, run_example,
                           stored)

from workbench import __version__
from workbench.report import write_report
from workbench.report.present import answer, record_kind, shown_frame, table_kinds
from workbench.report.xlsx import ITEM_TABLES, OWN_SHEET_ROWS, kinds_of, prepared

IDS = [e[0] for e in EXAMPLES]


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    """id -> (result, loaded table, report path, workbook, workbook with values only)."""
    folder = tmp_path_factory.mktemp("reports")
    out = {}
    for ident, analysis, filename, options in EXAMPLES:
        result, table = run_example(analysis, filename, options)
        path = folder / f"{ident}.xlsx"
        write_report(path, [result], source=table)
        wb, values = open_both(path)
        out[ident] = (result, table, path, wb, values)
    return out


def _same(cell_value, expected) -> bool:
    if expected is None or (isinstance(expected, float) and math.isnan(expected)):
        return cell_value is None
    if isinstance(expected, bool):
        return cell_value is expected
    if isinstance(expected, (int, float)):
        return (isinstance(cell_value, (int, float)) and not isinstance(cell_value, bool)
                and cell_value == pytest.approx(float(expected), rel=1e-14, abs=1e-300))  # stored to 15 digits
    return cell_value == str(expected)


def stored_value(value, kind):
    return stored(value, kind)


def _py(v):
    return v.item() if hasattr(v, "item") and not isinstance(v, str) else v


def _sheet_of(result, table, names):
    own = table.name in ITEM_TABLES.get(result.analysis, ()) or len(table.frame) > OWN_SHEET_ROWS
    return f"{result.analysis} {table.name}" if own else result.analysis


@pytest.mark.parametrize("ident", IDS)
def test_sheets_in_order(reports, ident):
    result, _, _, wb, _ = reports[ident]
    names = wb.sheetnames
    assert names[0] == "Summary" and names[1] == result.analysis
    for table in result.tables:
        assert _sheet_of(result, table, names) in names
    assert wb.active.title == "Summary"


@pytest.mark.parametrize("ident", IDS)
def test_summary_holds_input_date_version_headline_and_signature(reports, ident):
    result, table, _, wb, values = reports[ident]
    ws = values["Summary"]
    if table is not None:
        assert lines_of(ws, "Input file") == [table.name]
        assert lines_of(ws, "Path") == [table.path]
        assert lines_of(ws, "SHA-256") == [table.sha256]
        size, = lines_of(ws, "Size")
        rows, = lines_of(ws, "Rows")
        assert size == table.size_bytes and isinstance(size, int)
        assert rows == len(table.frame) and isinstance(rows, int)
        assert wb["Summary"].cell(_row(ws, "Size"), 2).number_format == '#,##0 "bytes"'
    else:
        assert lines_of(ws, "Input file") == ["none (no input file)"]
    written, = lines_of(ws, "Written (UTC)")
    assert isinstance(written, dt.datetime)
    assert abs((dt.datetime.now(dt.timezone.utc).replace(tzinfo=None) - written).total_seconds()) < 600
    assert lines_of(ws, "Workbench") == [f"Eval Workbench {__version__}"]
    assert lines_of(ws, result.analysis)[0] == answer(result).text  # the answer card's sentences
    assert result.signature in lines_of(ws, "signature")
    link = wb["Summary"].cell(_row(ws, result.analysis), 1).hyperlink
    assert link is not None and link.location == f"'{result.analysis}'!A1"


def _row(ws, label):
    return next(r for r in range(1, ws.max_row + 1) if ws.cell(r, 1).value == label)


def test_summary_sentences_carry_denominators_and_intervals(reports):
    def said(ident):
        return lines_of(reports[ident][4]["Summary"], reports[ident][0].analysis)[0]

    compare = said("compare")
    assert "+4.5 pts (normal 95% CI +0.3 to +8.7 pts)" in compare and "on 200 items: borderline" in compare
    assert "exact sign test p = 0.0636" in compare and "19 items flipped" in compare
    assert "Micro 87.0% (Wilson 95% CI 84.8% to 88.9%) on 1,000 items, macro 75.0% over 2 groups" in said("aggregate_groups")
    cost = said("cost")
    assert "A: 0.0146 per success (ratio bootstrap 95% CI " in cost and "; 82.0% of 100 requests succeed)" in cost
    assert "B buys 4.0 pts for 0.475 per extra success. C is dominated." in cost
    assert "$" not in cost  # the file's units: no currency was chosen
    assert said("aggregate_simpson").startswith("Simpson's paradox: new is better in every segment")
    assert said("ranking_graded").startswith("nDCG@10 = 0.913") and "over 1 query." in said("ranking_graded")


@pytest.mark.parametrize("ident", IDS)
def test_headline_numbers_are_numbers(reports, ident):
    result, _, _, wb, values = reports[ident]
    ws = values["Summary"]
    cols = ["analysis", "metric", "name", "about", "value", "ci_low", "ci_high", "n", "of"]
    header = find_table(ws, "Headline numbers", cols)
    seen = 0
    for r in range(header + 1, ws.max_row + 1):
        if ws.cell(r, 1).value != result.analysis:
            break
        metric = ws.cell(r, 2).value
        rec = next(x for x in result.records if x["metric"] == metric
                   and _about_matches(x, ws.cell(r, 4).value))
        kind = record_kind(result, rec)
        assert _same(ws.cell(r, 5).value, stored(rec["value"], kind))
        assert _same(ws.cell(r, 6).value, stored(rec.get("ci_low"), kind))
        assert _same(ws.cell(r, 8).value, rec.get("n"))
        if isinstance(rec["value"], (int, float)) and not isinstance(rec["value"], bool):
            assert wb["Summary"].cell(r, 5).number_format == expected_format(kind, rec["value"])
        if rec.get("n") is not None:
            assert wb["Summary"].cell(r, 8).number_format == "#,##0"
        seen += 1
    assert seen >= 1


def _about_matches(rec, about):
    from workbench.report.headlines import who

    return who(rec) == (about or "")


@pytest.mark.parametrize("ident", IDS)
def test_analysis_sheet_has_signature_and_notes_above_the_tables(reports, ident):
    result, _, _, _, values = reports[ident]
    ws = values[result.analysis]
    assert lines_of(ws, "Signature") == [result.signature]
    notes = lines_of(ws, "Note")
    assert notes[: len(result.notes)] == list(result.notes)
    first_table = min((r for r in range(1, ws.max_row + 1)
                       if ws.cell(r, 1).value in {t.title for t in result.tables}), default=ws.max_row)
    assert _row(ws, "Signature") < first_table


@pytest.mark.parametrize("ident", IDS)
def test_every_table_value_type_and_number_format(reports, ident):
    """Every cell of every result table equals the AnalysisResult's number, as a number, with
    the number format the shared policy (workbench.report.present) gives its kind and value."""
    result, _, _, wb, values = reports[ident]
    result = prepared(result)  # as the report shows it (lattice histogram, "dominated")
    for table in result.tables:
        sheet = _sheet_of(result, table, wb.sheetnames)
        ws, wf = values[sheet], wb[sheet]
        columns = list(table.frame.columns)
        header = find_table(ws, table.title, columns)
        kinds = table_kinds(result, table)  # a kind per column, or per row (steps beside tokens)
        shown = shown_frame(table.frame, kinds)  # zero-width intervals left empty (issue 44)
        for i, row in enumerate(shown.itertuples(index=False)):
            for c, (name, expected) in enumerate(zip(columns, row)):
                cell = ws.cell(header + 1 + i, c + 1)
                expected = _py(expected)
                kind = kinds[name] if isinstance(kinds[name], str) else kinds[name][i]
                assert _same(cell.value, stored(expected, kind)), (table.name, name, i, cell.value, expected)
                if isinstance(expected, (int, float)) and not isinstance(expected, bool) \
                        and math.isfinite(expected):
                    if not str(name).startswith("input:"):  # (the input's own cells stay as they were)
                        assert kind not in ("plain", "text"), (table.name, name)  # every number has a kind
                    assert wf.cell(header + 1 + i, c + 1).number_format == expected_format(kind, expected), \
                        (table.name, name, expected)
                if isinstance(expected, str):
                    assert cell.data_type == "s"


@pytest.mark.parametrize("ident", IDS)
def test_all_records_are_on_the_analysis_sheet(reports, ident):
    result, _, _, wb, values = reports[ident]
    ws = values[result.analysis]
    from workbench.core.result import RECORD_KEYS

    keys = [k for k in RECORD_KEYS if any(k in r for r in result.records)]
    header = find_table(ws, "All results (the records printed by --json)", keys)
    for i, rec in enumerate(result.records):
        kind = record_kind(result, rec)
        for c, key in enumerate(keys):
            want = (stored(rec.get(key), kind) if key in ("value", "ci_low", "ci_high", "t_low", "t_high")
                    else rec.get(key))
            if key in ("ci_low", "ci_high") and rec.get("degenerate"):
                want = None  # a zero-width interval is not shown as if certain (issue 44)
            assert _same(ws.cell(header + 1 + i, c + 1).value, want), (rec, key)
        if isinstance(rec["value"], (int, float)) and not isinstance(rec["value"], bool):
            assert wb[result.analysis].cell(header + 1 + i, 2).number_format == expected_format(kind, rec["value"])


@pytest.mark.parametrize("ident", sorted(FORMULA_COLUMNS))
def test_derived_numbers_are_formulas_with_stored_values(reports, ident):
    result, _, _, wb, values = reports[ident]
    written = 0
    for table_name, columns in FORMULA_COLUMNS[ident].items():
        table = result.table(table_name)
        kinds = kinds_of(result, table)
        sheet = _sheet_of(result, table, wb.sheetnames)
        header = find_table(values[sheet], table.title, list(table.frame.columns))
        for column in columns:
            c = list(table.frame.columns).index(column) + 1
            for i, expected in enumerate(table.frame[column]):
                expected = _py(expected)
                formula = wb[sheet].cell(header + 1 + i, c).value
                held = values[sheet].cell(header + 1 + i, c).value
                if expected is None or (isinstance(expected, float) and not math.isfinite(expected)):
                    assert formula in (None, "dominated") and held == formula  # undefined: empty, not 0
                    continue
                assert isinstance(formula, str) and formula.startswith("="), (table_name, column, formula)
                want = stored_value(float(expected), kinds[column])
                assert held == pytest.approx(want, rel=1e-14)  # the workbench's value (stored to 15 digits)
                assert evaluate(formula, sheet, values) == pytest.approx(want, rel=1e-9, abs=1e-12)
                written += 1
    assert written > 0


@pytest.mark.parametrize("ident", IDS)
def test_every_formula_evaluates_to_its_stored_value(reports, ident):
    """An independent evaluation of each formula over the stored cells gives the stored value:
    no formula points at a wrong cell."""
    _, _, _, wb, values = reports[ident]
    count = 0
    for ws in wb.worksheets:
        for row in ws.iter_rows():
            for cell in row:
                if cell.data_type == "f":
                    stored = values[ws.title][cell.coordinate].value
                    assert isinstance(stored, (int, float)), (ws.title, cell.coordinate, stored)
                    assert evaluate(cell.value, ws.title, values) == pytest.approx(stored, rel=1e-9, abs=1e-12), \
                        (ws.title, cell.coordinate, cell.value)
                    count += 1
    if ident in FORMULA_COLUMNS:
        assert count > 0


def test_formula_examples_read_as_a_reviewer_would(reports):
    _, _, _, wb, values = reports["cost"]
    ws = wb["cost"]
    header = find_table(values["cost"], "Quality, cost and latency per system",
                        list(reports["cost"][0].table("systems").frame.columns))
    assert ws.cell(header + 1, 9).value == f"=G{header + 1}/C{header + 1}"  # total_cost / successes
    assert values["cost"].cell(header + 1, 9).value == pytest.approx(1.2 / 82, rel=1e-12)
    _, _, _, wb, values = reports["compare"]
    header = find_table(values["compare"], "Paired comparison",
                        list(reports["compare"][0].table("summary").frame.columns))
    r = header + 1
    assert wb["compare"].cell(r, 10).value == f"=100*(F{r}-G{r})/C{r}"  # (wins - losses) / items, in points
    assert values["compare"].cell(r, 10).value == pytest.approx(100 * 9 / 200)
    _, _, _, wb, values = reports["aggregate_ratio"]
    header = find_table(values["aggregate"], "Pooled ratio vs mean of ratios",
                        ["measure", "value", "numerator", "denominator", "units"])
    assert wb["aggregate"].cell(header + 1, 2).value == f"=C{header + 1}/D{header + 1}"
    assert wb["aggregate"].cell(header + 1, 3).value.startswith("=SUM('aggregate units'!")


@pytest.mark.parametrize("ident", IDS)
def test_native_charts(reports, ident):
    result, _, path, wb, _ = reports[ident]
    xml = chart_xml(path)
    titles = CHART_TITLES.get(ident, [])
    assert len(xml) >= len(titles)
    for title in titles:
        assert any(title in x for x in xml.values()), f"no chart titled {title!r}"
    assert len(wb[result.analysis]._charts) == len(xml)  # openpyxl reads them back
    bars = sum("<c:errBars>" in x for x in xml.values())
    assert bars >= ERROR_BAR_CHARTS.get(ident, 0)
    for x in xml.values():
        assert 'typeface="Arial"' in x  # a named font: renders alike in LibreOffice
        assert '<c:delete val="1"/>' not in x  # axes kept
        assert x.count("<c:valAx>") + x.count("<c:catAx>") >= 2
        for sheet in set(__import__("re").findall(r"<c:f>'?([^'!<]+)'?!", x)):
            assert sheet in wb.sheetnames


def test_error_bars_point_at_interval_cells(reports):
    """The compare chart's error bars are cells holding diff - ci_low and ci_high - diff."""
    result, _, path, wb, values = reports["compare"]
    xml = next(x for x in chart_xml(path).values() if "with 95% intervals" in x)
    import re

    refs = re.findall(r"<c:(plus|minus)><c:numRef><c:f>'([^']+)'!\$([A-Z]+)\$(\d+):\$([A-Z]+)\$(\d+)</c:f>", xml)
    assert {r[0] for r in refs} == {"plus", "minus"}
    intervals = result.table("intervals").frame
    for side, sheet, col, r1, _, r2 in refs:
        cells = [values[sheet][f"{col}{r}"].value for r in range(int(r1), int(r2) + 1)]
        expected = (intervals["ci_high"] - intervals["diff"]) if side == "plus" else (intervals["diff"] - intervals["ci_low"])
        assert cells == pytest.approx(list(100 * expected), rel=1e-12)  # points, as the chart's axis


@pytest.mark.parametrize("ident", IDS)
def test_header_frozen_filter_widths_and_print_setup(reports, ident):
    result, _, _, wb, values = reports[ident]
    for ws in wb.worksheets:
        if ws.title != "Summary":
            assert ws.auto_filter.ref, ws.title
            top = int("".join(ch for ch in ws.auto_filter.ref.split(":")[0] if ch.isdigit()))
            assert ws.freeze_panes == f"A{top + 1}", ws.title  # the header row stays in view
        assert ws.page_setup.orientation == "landscape"
        # a print scale that fits the width (never "fit to page", which shrinks long sheets)
        assert 10 <= (ws.page_setup.scale or 100) <= 100  # XlsxWriter leaves 100 out
        assert not (ws.sheet_properties.pageSetUpPr and ws.sheet_properties.pageSetUpPr.fitToPage)
        assert ws.print_area
        for letter, dim in ws.column_dimensions.items():
            if dim.width:
                assert 6 <= dim.width <= 62, (ws.title, letter, dim.width)
        for row in ws.iter_rows(min_row=1, max_row=3):
            for cell in row:
                if cell.value is not None:
                    assert cell.font.name == "Arial"


@pytest.mark.parametrize("ident", IDS)
def test_headers_are_aligned_with_their_cells(reports, ident):
    """A header over numbers is right-aligned, as the numbers are (wide shared columns made a
    left-aligned header drift away from its right-aligned numbers)."""
    result, _, _, wb, values = reports[ident]
    result = prepared(result)
    checked = 0
    for table in result.tables:
        sheet = _sheet_of(result, table, wb.sheetnames)
        columns = list(table.frame.columns)
        header = find_table(values[sheet], table.title, columns)
        for c, (name, kind) in enumerate(kinds_of(result, table).items()):
            cell = wb[sheet].cell(header, c + 1)
            if kind not in ("plain", "text") and not str(name).startswith("input:"):
                assert cell.alignment.horizontal == "right", (table.name, name)
                checked += 1
            elif table.frame[name].map(lambda v: isinstance(v, str)).all():
                assert cell.alignment.horizontal in (None, "general", "left"), (table.name, name)
    assert checked > 0


def test_bootstrap_histogram_follows_the_lattice_of_possible_differences(reports):
    """200 paired items: the resampled difference is a multiple of 1/200 (0.5 points); one row
    per multiple, every resample kept, and no empty row between populated ones (the analysis's
    0.45-point bins left every tenth bin empty)."""
    result, _, _, wb, values = reports["compare"]
    original = result.table("bootstrap").frame
    assert "difference" in original  # the analysis's own bars are on the lattice (it used 0.45-point bins)
    ws = values["compare"]
    header = find_table(ws, "Bootstrap distribution of the difference", ["difference", "resamples"])
    rows = []
    r = header + 1
    while isinstance(ws.cell(r, 1).value, (int, float)):
        rows.append((ws.cell(r, 1).value, ws.cell(r, 2).value))
        r += 1
    diffs = [d for d, _ in rows]  # held in points
    steps = {round(b - a, 9) for a, b in zip(diffs, diffs[1:])}
    assert steps == {0.5}
    assert all(abs(d * 2 - round(d * 2)) < 1e-9 for d in diffs)
    counts = [c for _, c in rows]
    assert sum(counts) == int(original["resamples"].sum())
    assert counts[0] > 0 and counts[-1] > 0 and all(c > 0 for c in counts)
    assert wb["compare"].cell(header + 1, 1).number_format == '+0.0" pts";-0.0" pts";0.0" pts"'


def test_hit_at_k_line_is_drawn_over_r_at_k(reports):
    """R@k and hit@k are equal on the graded example: hit@k is drawn last, dashed, with its own
    marker, so it does not hide under R@k."""
    _, _, path, _, _ = reports["ranking_graded"]
    xml = next(x for x in chart_xml(path).values() if "Ranking metrics by cut-off k" in x)
    series = xml.split("<c:ser>")[1:]
    names = [s.split("<c:v>")[1].split("</c:v>")[0] if "<c:v>" in s else "" for s in series]
    assert names[-1] == "Hit@k" and "R@k" in names
    hit, r_at = series[-1], series[names.index("R@k")]
    assert '<a:prstDash val="dash"/>' in hit and '<a:prstDash val="dash"/>' not in r_at
    marker = lambda s: s.split("<c:symbol val=\"")[1].split('"')[0]  # noqa: E731
    assert marker(hit) != marker(r_at)


def test_dominated_systems_say_so(reports):
    result, _, _, _, values = reports["cost"]
    ws = values["cost"]
    frame = result.table("marginal").frame
    header = find_table(ws, "Marginal cost per extra success (cheaper -> dearer)", list(frame.columns))
    col = list(frame.columns).index("marginal_cost_per_success") + 1
    shown = [ws.cell(header + 1 + i, col).value for i in range(len(frame))]
    assert shown[1:] == ["dominated", "dominated"] and isinstance(shown[0], float)
