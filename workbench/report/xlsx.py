"""The Excel report: plan the workbook from the results, then write it with XlsxWriter.

Sheets, in order:

1. **Summary**: the release verdict and decision card when a gate result is given, the input
   file (name, path, size, SHA-256, rows), the date, the workbench version, one line per
   analysis (its headline sentence, a link to its sheet, its signature) and the headline
   numbers as numbers.
2. One sheet **per analysis**: signature, input and notes above its tables; derived numbers
   as formulas with their values; chart-data tables; all the records of ``--json``; charts.
3. **Items sheets**: the per-item tables (text items, ranking queries, passk tasks, compare's
   discordant items, aggregate units) and any table too long for the analysis sheet; a table
   longer than an Excel sheet continues on further sheets.
"""

from __future__ import annotations

import datetime as dt
import math
import os
from typing import TYPE_CHECKING, Iterable, Sequence

import pandas as pd  # noqa: F401

from .. import __version__, catalog
from ..core.errors import WorkbenchError
from ..core.result import RECORD_KEYS, AnalysisResult, Table  # noqa: F401
from .charts import charts_for
from .derived import formulas_for
from .headlines import headline_records, unit_of, who  # noqa: F401
from .present import (answer, bounds_shown, display_name, format_p, format_value, gate_kind, gate_status,  # noqa: F401
                      interval_label, record_kind, shown_frame, table_kinds)
from .layout import (EXCEL_MAX_ROWS, ITEM_TEXT_WIDTH, Block, Gap, Heading, Item, Line, Refs,
                     SheetPlan, assign_rows, size_columns)
from .safety import SheetNames, atomic_target, release_zip_files
from .styles import FONT, FONT_SIZE, Styles
# the parts, re-exported here: what was importable from this module stays importable from it
from ._xlsx_gate import (  # noqa: F401
    CARD_SUMMARY_COLUMNS, CARD_VALUE_COLUMNS, _card_block, _condition_text, _evalset_text, _gate_head,
    _gate_items, _plan_gate, _rule_value, card_cell_kind)
from ._xlsx_prepared import _dominated_text, _lattice_histogram, prepared  # noqa: F401
from ._xlsx_records import (  # noqa: F401
    _headline_block, _hide_flat_bounds, _records_block, _records_frame, interval_comment)
from ._xlsx_summary import (  # noqa: F401
    _provenance, _sha256, _source_paths, _split_paths, _summary_items, _tables_of)

if TYPE_CHECKING:  # pragma: no cover
    from ..io import LoadedTable

#: A table longer than this switches the workbook to XlsxWriter's constant-memory mode
#: (each row is flushed to disk once written, so memory stays bounded).
LARGE_TABLE_ROWS = 50_000
#: Tables written on a sheet of their own (the per-item tables), by analysis.
ITEM_TABLES = {a.name: a.item_tables for a in catalog.ANALYSES}
#: Any other table longer than this also gets a sheet of its own.
OWN_SHEET_ROWS = 500
#: Pixel height of a default row for Arial 10 (12.75 points), so that charts land where planned.
DEFAULT_ROW_PX = 17


def write_report(path: str | os.PathLike[str], results: Sequence[AnalysisResult], *,
                 source: LoadedTable | Sequence[LoadedTable] | str | None = None,
                 title: str | None = None, notes: Iterable[str] = (),
                 currency: str | None = None) -> None:
    """Write the Excel report of ``results`` to ``path`` (an ``.xlsx`` file).

    ``source`` is the :class:`~workbench.io.LoadedTable` the results were computed from (its
    name, size, checksum and rows go on the summary), a sequence of them (several inputs), a
    path (its size and checksum are computed), or ``None`` (the results' ``input`` is shown);
    ``title`` heads the summary; ``notes`` are report-level remarks (e.g. from the session);
    ``currency`` is the currency the analyst chose for costs (``"$"``, ``"EUR"``...); by
    default costs are in the file's units, with no symbol.  A gate result (``analysis == "gate"``) puts its
    verdict and decision card first on the summary.

    The file appears complete or not at all: it is written beside ``path`` under a temporary
    name and renamed into place.  Raises :class:`WorkbenchError` when it cannot be written.
    """
    results = list(results)
    for r in results:
        if not isinstance(r, AnalysisResult):
            raise TypeError(f"write_report takes AnalysisResult objects, not {type(r).__name__}")
    target = os.path.abspath(os.fspath(path))
    if not target.lower().endswith(".xlsx"):
        raise WorkbenchError(f"The report must be an .xlsx file; '{path}' does not end in .xlsx.")
    if not results:
        raise WorkbenchError("There is no result to write a report of.")
    inputs = _source_paths(source) + [p for r in results if r.input for p in _source_paths(r.input)]
    for inp in inputs:
        if _same_file(target, inp):
            raise WorkbenchError(f"The report would overwrite the input file '{inp}'; choose another "
                                 f"name for the report.")
    plans = plan_workbook(results, source=source, title=title, notes=tuple(notes), currency=currency)
    large = any(b.nrows > LARGE_TABLE_ROWS for p in plans for b in p.blocks())
    import xlsxwriter

    with atomic_target(target) as tmp:
        wb = xlsxwriter.Workbook(tmp, {
            "strings_to_formulas": False, "strings_to_urls": False, "strings_to_numbers": False,
            "nan_inf_to_errors": False,
            "default_format_properties": {"font_name": FONT, "font_size": FONT_SIZE},
            "default_row_height": DEFAULT_ROW_PX,
            "constant_memory": large, "use_zip64": large,
        })
        try:
            _render(wb, plans, results, source, title, currency)
            wb.close()
        except BaseException as err:
            _abandon(wb)
            release_zip_files(err)
            raise


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.exists(a) and os.path.exists(b) and os.path.samefile(a, b)
    except OSError:
        return False


def _abandon(wb) -> None:
    """Release what a half-written workbook holds (constant-memory temporary files)."""
    wb.fileclosed = True
    for ws in wb.worksheets():
        fh = getattr(ws, "row_data_fh", None)
        if fh is not None:
            try:
                fh.close()
            except OSError:
                pass
        name = getattr(ws, "row_data_filename", None)
        if name:
            try:
                os.unlink(name)
            except OSError:
                pass


def _render(wb, plans: list[SheetPlan], results, source, title, currency) -> None:
    styles = Styles(wb, currency)
    wb.set_properties({
        "title": _title(results, source, title),
        "subject": "Evaluation report",
        "author": f"Eval Workbench {__version__}",
        "comments": "Written by Eval Workbench; every number carries its denominator and signature.",
        "created": dt.datetime.now(dt.timezone.utc).replace(tzinfo=None),
    })
    refs = Refs()
    for plan in plans:
        for block in plan.blocks():
            refs.add(block)
    from .writer import render_sheet

    for plan in plans:
        ws = wb.add_worksheet(plan.name)
        render_sheet(wb, ws, plan, styles, refs)
    wb.worksheets()[0].activate()


def _title(results, source, title) -> str:
    if title:
        return str(title)
    paths = _source_paths(source)
    if paths:
        return "Evaluation report: " + ", ".join(os.path.basename(p) for p in paths)
    inputs = [os.path.basename(r.input) for r in results if r.input]
    return f"Evaluation report: {inputs[0]}" if inputs else "Evaluation report"


# -- planning ------------------------------------------------------------------------------

def plan_workbook(results: list[AnalysisResult], *, source=None, title: str | None = None,
                  notes: tuple[str, ...] = (), currency: str | None = None) -> list[SheetPlan]:
    results = [prepared(r) for r in results]
    names = SheetNames()
    summary = SheetPlan(names.claim("Summary"), freeze=False, text_width=40.0)
    order = sorted(range(len(results)), key=lambda i: results[i].analysis != "gate")
    sheets: list[SheetPlan] = []
    main_of: dict[int, str] = {}
    for idx in order:
        main, plans = _plan_result(idx, results[idx], names, currency)
        main_of[idx] = main
        sheets += plans
    summary.items = _summary_items(results, order, main_of, source, _title(results, source, title), notes,
                                   currency)
    plans = [summary] + sheets
    for plan in plans:
        assign_rows(plan)
        size_columns(plan)
    return plans


def _legend(table: Table) -> list[str]:
    """The meanings of the columns, each under its header's name (the column id beside it when
    the two differ, as the JSON and a copy name it)."""
    from .present import column_name

    out = []
    for col, meaning in table.columns.items():
        if col not in table.frame.columns:
            continue
        name = column_name(table.name, col)
        out.append(f"{name}: {meaning}" if name == str(col) else f"{name} ({col}): {meaning}")
    return out


def _analysis_title(result: AnalysisResult) -> str:
    try:
        from ..analyses import REGISTRY

        title = getattr(REGISTRY.get(result.analysis), "TITLE", None)
    except ImportError:  # pragma: no cover
        title = None
    if result.analysis == "gate" and not title:
        title = "Release gate"
    return f"{title} ({result.analysis})" if title else result.analysis


#: Notes longer than this in all (characters) are written under an analysis' tables.
NOTES_ABOVE_CHARS = 600


#: The conventions table (``--conventions``, the Conventions tab) gets a sheet of its own.
CONVENTIONS_TABLE = "conventions"


def _own_sheet(result: AnalysisResult, table: Table) -> bool:
    return (table.name in ITEM_TABLES.get(result.analysis, ()) or table.name == CONVENTIONS_TABLE
            or len(table.frame) > OWN_SHEET_ROWS)


def kinds_of(result: AnalysisResult, table: Table) -> dict[str, str]:
    """The presentation kind of each column of a result table (see :mod:`.present`); a column
    whose kind changes from row to row (steps beside tokens) has no single kind here: see
    :func:`row_kinds`."""
    return {c: (k if isinstance(k, str) else None) for c, k in table_kinds(result, table).items()}


def row_kinds(result: AnalysisResult, table: Table, base=None):
    """The per-cell kinds of a table whose rows are different quantities (a ``cell_kind`` of a
    :class:`Block`: (column, frame row) -> kind), or ``base`` when there is none."""
    per_row = {c: k for c, k in table_kinds(result, table).items() if not isinstance(k, str)}
    if not per_row:
        return base

    def kind(name: str, i: int) -> str | None:
        if name in per_row:
            return per_row[name][i]
        return base(name, i) if base is not None else None
    return kind


def _plan_result(idx: int, result: AnalysisResult, names: SheetNames,
                 currency: str | None = None) -> tuple[str, list[SheetPlan]]:
    def key(name: str) -> str:
        return f"{idx}/{name}"

    if result.analysis == "gate":
        return _plan_gate(key, result, names, currency)

    main = SheetPlan(names.claim(result.analysis))
    formulas = formulas_for(result, key)
    charts = charts_for(result, key)
    own = [t for t in result.tables if _own_sheet(result, t)]
    stacked = [t for t in result.tables if not _own_sheet(result, t)]

    item_plans: list[SheetPlan] = []
    links: list[Line] = []
    split_notes: list[str] = []
    for table in own:
        parts = _item_sheets(key, result, table, names, main.name, formulas.get(table.name, {}))
        item_plans += parts
        rows = len(table.frame)
        links.append(Line(parts[0].name, f"{table.title}: {rows:,} row{'s' if rows != 1 else ''}"
                          + (f" on {len(parts)} sheets" if len(parts) > 1 else ""), link=parts[0].name))
        if len(parts) > 1:
            split_notes.append(
                f"The table '{table.title}' has {rows:,} rows, more than an Excel sheet holds "
                f"({EXCEL_MAX_ROWS:,} rows); it is split across the sheets "
                f"{', '.join(repr(p.name) for p in parts)}.")

    ans = answer(result, currency=currency)
    items: list[Item] = [Heading(_analysis_title(result)),
                         Line("Answer", ans.text, style="answer"),
                         Line("Signature", result.signature, style="signature"),
                         Line("Input", result.input or "none (no input file)")]
    note_lines = [Line("Note", note, style="note") for note in (*result.notes, *split_notes)]
    # long notes go under the tables, so that the header row above the first table can stay
    # frozen in view (a tall frozen block leaves no room for the data)
    notes_below = sum(len(str(line.value)) for line in note_lines) > NOTES_ABOVE_CHARS
    if notes_below:
        items.append(Line("Notes", f"{len(note_lines)} notes, under the tables below.", style="note"))
    else:
        items += note_lines
    items += links
    items.append(Gap())
    first = True
    for table in stacked:
        is_card = result.analysis == "gate" and table.name == "card"
        status = "status" if is_card and "status" in table.frame else None
        items.append(Block(key(table.name), table.title, shown_frame(table.frame, table_kinds(result, table)),
                           formats=kinds_of(result, table),
                           legend=_legend(table) + _extra_legend(result, table), formulas=formulas.get(table.name, {}),
                           filter=first, status_column=status, legend_below=True, table_name=table.name,
                           descriptions=dict(table.columns),
                           cell_kind=row_kinds(result, table, card_cell_kind(table.frame, dict(table.formats))
                                               if is_card else None)))
        items.append(Gap())
        first = False
        for extra in charts.after.get(table.name, []):
            extra.legend_below = True
            items += [extra, Gap()]
    items.append(_records_block(key("#records"), result, filter=first))
    if notes_below:
        items += [Gap(), Heading("Notes", "section"), *note_lines]
    main.items = items
    if charts.charts:
        main.items += [Gap(), Heading("Charts", "section")]
        main.charts = list(charts.charts)
    return main.name, [main] + item_plans


def _item_sheets(key, result: AnalysisResult, table: Table, names: SheetNames, main: str,
                 formulas) -> list[SheetPlan]:
    frame = table.frame
    n = len(frame)
    legend = _legend(table)
    preamble_rows = 5  # heading, signature, from, rows, gap
    capacity = EXCEL_MAX_ROWS - preamble_rows - (1 + len(legend) + 1)
    count = max(1, math.ceil(n / capacity))
    base = "Conventions" if table.name == CONVENTIONS_TABLE else f"{result.analysis} {table.name}"
    sheet_names = [names.claim(base if p == 0 else f"{base} part {p + 1}") for p in range(count)]
    plans = []
    for p, name in enumerate(sheet_names):
        start, stop = p * capacity, min(n, (p + 1) * capacity)
        rows = f"{n:,} row{'s' if n != 1 else ''}"
        if count > 1:
            rows = (f"rows {start + 1:,} to {stop:,} of {n:,}: the table is longer than an Excel sheet "
                    f"holds and is split across the sheets {', '.join(repr(s) for s in sheet_names)}")
        plan = SheetPlan(name, repeat_header=True, text_width=ITEM_TEXT_WIDTH)
        plan.items = [
            Heading(f"{table.title} ({result.analysis})"),
            Line("Signature", result.signature, style="signature"),
            Line("From", f"the analysis on sheet '{main}'", link=main),
            Line("Rows", rows),
            Gap(),
            Block(key(table.name), table.title, shown_frame(frame, table_kinds(result, table)),
                  formats=kinds_of(result, table), legend=legend,
                  formulas=formulas, filter=True, start=start, stop=stop, part=p + 1, parts=count,
                  table_name=table.name, cell_kind=row_kinds(result, table), descriptions=dict(table.columns)),
        ]
        plans.append(plan)
    return plans


def _extra_legend(result: AnalysisResult, table: Table) -> list[str]:
    kinds = table_kinds(result, table)
    out = []
    shown = {c: ({k} if isinstance(k, str) else set(k)) for c, k in kinds.items()}
    if any({"points", "margin"} & ks for ks in shown.values()):
        cols = ", ".join(c for c, ks in shown.items() if {"points", "margin"} & ks)
        out.append(f"{cols}: differences of rates in percentage points (the cell holds points).")
    if result.analysis == "compare" and table.name == "bootstrap" and "difference" in table.frame:
        recs = result.find("diff")
        n = int(recs[0].get("n") or 0) if recs else 0
        width = float((table.frame["bin_high"] - table.frame["bin_low"]).max()) \
            if "bin_low" in table.frame and len(table.frame) else 0.0
        merged = n > 0 and width * n > 1.5  # a bar wider than one lattice step
        if merged:
            out.append("One row per group of an odd number of neighbouring possible values of the "
                       "resampled difference (multiples of 1/n), centred on 'difference': groups "
                       "never split a possible value, so no bar is an artefact of binning.")
        else:
            out.append("One row per possible value of the resampled difference (multiples of 1/n): "
                       "the bootstrap's differences fall on this lattice, so no bar is an artefact "
                       "of binning.")
    return out
