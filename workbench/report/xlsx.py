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

import pandas as pd

from .. import __version__, catalog
from ..core.errors import WorkbenchError
from ..core.result import RECORD_KEYS, AnalysisResult, Table
from .charts import charts_for
from .derived import formulas_for
from .headlines import headline_records, unit_of, who
from .present import (answer, bounds_shown, display_name, format_p, format_value, gate_kind, gate_status,
                      interval_label, record_kind, shown_frame, table_kinds)
from .layout import (EXCEL_MAX_ROWS, ITEM_TEXT_WIDTH, Block, Gap, Heading, Item, Line, Refs,
                     SheetPlan, assign_rows, size_columns)
from .safety import SheetNames, atomic_target, release_zip_files
from .styles import FONT, FONT_SIZE, Styles

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


def _hide_flat_bounds(frame: pd.DataFrame, records: Sequence[dict], kinds: list) -> None:
    """No interval shown as if certain: the bounds of a degenerate or zero-width interval are
    left empty (the record's ``degenerate`` says why; the JSON keeps them)."""
    if "ci_low" not in frame or "ci_high" not in frame:
        return
    for i, (rec, kind) in enumerate(zip(records, kinds)):
        if rec.get("ci_low") is not None and not bounds_shown(rec, kind):
            frame.iat[i, frame.columns.get_loc("ci_low")] = None
            frame.iat[i, frame.columns.get_loc("ci_high")] = None


def _records_frame(records: Sequence[dict]) -> pd.DataFrame:
    present = [k for k in RECORD_KEYS if any(k in r for r in records)]
    return pd.DataFrame([{k: r.get(k) for k in present} for r in records], columns=present, dtype=object)


def _records_block(key: str, result: AnalysisResult, *, filter: bool) -> Block:
    frame = _records_frame(result.records)
    kinds = [record_kind(result, r) for r in result.records]
    _hide_flat_bounds(frame, result.records, kinds)

    def kind(column: str, i: int) -> str | None:
        if column in ("value", "ci_low", "ci_high", "t_low", "t_high"):
            return kinds[i]
        if column in ("n", "k", "df"):
            return "count"
        return None

    legend = ["n: the denominator each value was computed over; ci_low/ci_high: its 95% "
              "interval (its method in ci_method and in the cell's comment); t_low/t_high: the t "
              "interval beside a bootstrap one; df: a t statistic's degrees of freedom; degenerate: "
              "every bootstrap resample gave the same value, so no interval is shown; from/to: the "
              "pair of systems compared."]
    if "points" in kinds or "margin" in kinds:
        legend.append("Differences of rates are shown in percentage points (the cell holds points: "
                      "+4.5 pts is a difference of 0.045 in the JSON).")
    return Block(key, "All results (the records printed by --json)", frame, cell_kind=kind, legend_below=True,
                 legend=legend, filter=filter, comment=interval_comment(result.records))


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


# -- results as the report shows them --------------------------------------------------------------

def prepared(result: AnalysisResult) -> AnalysisResult:
    """The result with its tables as the report shows them: the bootstrap histogram on the
    lattice of possible differences, dominated systems saying "dominated"."""
    from dataclasses import replace

    tables = []
    changed = False
    for table in result.tables:
        new = table
        if result.analysis == "compare" and table.name == "bootstrap":
            new = _lattice_histogram(result, table) or table
        elif result.analysis == "cost" and table.name == "marginal":
            new = _dominated_text(table)
        changed |= new is not table
        tables.append(new)
    return replace(result, tables=tuple(tables)) if changed else result


def _lattice_histogram(result: AnalysisResult, table: Table) -> Table | None:
    """Re-bin the analysis's bootstrap histogram onto the lattice of possible differences.

    A paired bootstrap over ``n`` items resamples differences ``(b* - c*) / n``: multiples of
    ``1/n``.  Bins narrower than ``1/n`` hold at most one of them each, so every bin's count
    belongs to one lattice value and the lattice histogram is exact; bins wider than that are
    kept (they hold one or more values each, no bin is empty for want of a value).  A cluster
    bootstrap does not resample on a lattice: its bins are kept."""
    import numpy as np

    if "bs-unit:items" not in result.signature or "difference" in table.frame:
        return None  # not on a lattice, or already on it (the analysis's own lattice bars)
    frame = table.frame
    recs = result.find("diff") or result.find("normal_ci")
    if not recs or not recs[0].get("n") or len(frame) == 0:
        return None
    n = int(recs[0]["n"])
    step = 1.0 / n
    low = frame["bin_low"].to_numpy(float)
    high = frame["bin_high"].to_numpy(float)
    counts = frame["resamples"].to_numpy(float)
    if not (np.all(np.isfinite(low)) and np.all(np.isfinite(high))) or np.max(high - low) >= step:
        return None
    eps = step * 1e-6
    lattice: dict[int, float] = {}
    for lo, hi, count in zip(low, high, counts):
        if count == 0:
            continue
        ks = [k for k in range(math.floor((lo - eps) * n), math.ceil((hi + eps) * n) + 1)
              if lo - eps <= k * step <= hi + eps]
        if not ks:
            return None
        k = min(ks, key=lambda k: abs(k * step - (lo + hi) / 2))
        lattice[k] = lattice.get(k, 0.0) + count
    if not lattice:
        return None
    ks = range(min(lattice), max(lattice) + 1)
    out = pd.DataFrame({"difference": [k / n for k in ks],
                        "resamples": [int(lattice.get(k, 0)) for k in ks]})
    return Table(table.name, table.title, out,
                 columns={"difference": f"a possible difference (a multiple of 1/{n})",
                          "resamples": "bootstrap resamples with this difference"},
                 formats={"difference": "points", "resamples": "int"})


def _dominated_text(table: Table) -> Table:
    frame = table.frame
    if "dominated" not in frame or "marginal_cost_per_success" not in frame:
        return table
    frame = frame.copy()
    col = frame["marginal_cost_per_success"].astype(object)
    dominated = frame["dominated"].map(lambda v: v is True or v == 1 or str(v).lower() == "true")
    col[dominated.to_numpy()] = "dominated"
    frame["marginal_cost_per_success"] = col
    return Table(table.name, table.title, frame, dict(table.columns), dict(table.formats))


# -- summary -------------------------------------------------------------------------------

def _summary_items(results, order, main_of, source, title, notes, currency=None) -> list[Item]:
    items: list[Item] = [Heading(title)]
    gates = [results[i] for i in order if results[i].analysis == "gate"]
    for gate in gates:
        items += _gate_items(gate, currency)
    if any(results[i].analysis != "gate" for i in order):
        items.append(Heading("Analyses", "section"))
    shown = {os.path.abspath(p) for p in _source_paths(source)}
    for i in order:
        r = results[i]
        if r.analysis == "gate":
            continue
        items.append(Line(main_of[i], answer(r, currency=currency).text, link=main_of[i], style="answer"))
        if r.input and not {os.path.abspath(p) for p in _source_paths(r.input)} <= shown:
            items.append(Line("input", r.input, style="signature"))
        items.append(Line("signature", r.signature, style="signature"))
    items += [Gap(), Heading("Input and provenance", "section")]
    items += _provenance(source, results)
    items += [Line("Written (UTC)", dt.datetime.now(dt.timezone.utc).replace(tzinfo=None, microsecond=0)),
              Line("Workbench", f"Eval Workbench {__version__}")]
    items += [Line("Note", note, style="note") for note in notes]
    items += [Gap(), _headline_block(results, order, main_of)]
    return items


def _tables_of(source) -> list:
    """The LoadedTables in ``source`` (one, a sequence of them, or none)."""
    if source is None or isinstance(source, (str, os.PathLike)):
        return []
    if hasattr(source, "frame") and hasattr(source, "path"):
        return [source]
    if isinstance(source, (list, tuple)):
        return [t for t in source if hasattr(t, "frame") and hasattr(t, "path")]
    return []


def _source_paths(source) -> list[str]:
    """The input paths named by ``source``; a text naming several files ("a.csv, b.csv", as the
    gate passes them) is split only when every part is an existing file."""
    if isinstance(source, (str, os.PathLike)):
        return _split_paths(os.fspath(source))
    return [p for t in _tables_of(source) for p in _split_paths(t.path)]


def _split_paths(path: str) -> list[str]:
    """A path, or the files it names: several files given together ("a.csv, b.csv", as the
    gate passes them) or stacked into one table ("a.run + b.run") are split when every part
    is an existing file."""
    for sep in (", ", " + "):
        if not os.path.isfile(path) and sep in path:
            parts = path.split(sep)
            if all(os.path.isfile(p) for p in parts):
                return parts
    return [path]


def _provenance(source, results) -> list[Item]:
    """Name, path, size, SHA-256 and rows of each input."""
    tables = _tables_of(source)
    items: list[Item] = []
    if tables:
        for n, t in enumerate(tables, 1):
            label = "Input file" if len(tables) == 1 else f"Input {n}"
            items += [Line(label, t.name), Line("Path", t.path),
                      Line("Size", int(t.size_bytes), style="bytes"),
                      Line("SHA-256", t.sha256 or "(not computed)"),
                      Line("Rows", int(len(t.frame)), kind="int")]
            if getattr(t, "sheet", None):
                items.append(Line("Sheet", str(t.sheet)))
        return items
    if isinstance(source, (str, os.PathLike)):
        paths = _source_paths(source)
        for n, path in enumerate(paths, 1):
            if os.path.isfile(path):
                label = "Input file" if len(paths) == 1 else f"Input {n}"
                items += [Line(label, os.path.basename(path)), Line("Path", os.path.abspath(path)),
                          Line("Size", int(os.path.getsize(path)), style="bytes"),
                          Line("SHA-256", _sha256(path))]
            else:
                items.append(Line("Input", path))
        return items
    inputs = list(dict.fromkeys(r.input for r in results if r.input))
    return [Line("Input file", inp) for inp in inputs] or [Line("Input file", "none (no input file)")]


def _sha256(path: str) -> str:
    import hashlib

    digest = hashlib.sha256()
    try:
        with open(path, "rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                digest.update(chunk)
    except OSError as err:
        return f"(cannot be read: {err.strerror or err})"
    return digest.hexdigest()


#: Columns of the decision card shown on the summary and at the top of the gate's sheet.
CARD_SUMMARY_COLUMNS = ("index", "condition", "n", "observed", "ci_low", "ci_high", "threshold",
                        "p_holm", "status")
CARD_VALUE_COLUMNS = ("observed", "ci_low", "ci_high", "threshold")


def card_cell_kind(frame: pd.DataFrame, formats: dict[str, str]):
    """Per-row kinds of the card's values, from its ``unit`` column (points for a difference
    of rates, a relative change, a score difference, or the metric's own kind)."""
    if "unit" not in frame:
        return None
    metrics = list(frame["metric"]) if "metric" in frame else [""] * len(frame)
    per_row = [gate_kind(str(u), str(m)) if isinstance(u, str) else None
               for u, m in zip(frame["unit"], metrics)]

    def kind(name: str, i: int) -> str | None:
        if name in CARD_VALUE_COLUMNS and per_row[i]:
            return per_row[i]
        if name in ("p_value", "p_holm"):
            return "p"
        if name in ("n", "index", "input", "more_items"):
            return "count"
        return "text" if formats.get(name) == "text" else None
    return kind


def _card_block(key: str, card: Table, *, title: str | None = None, full_legend: bool = True) -> Block:
    frame = card.frame
    shown = [c for c in CARD_SUMMARY_COLUMNS if c in frame]
    if "status" not in shown:
        shown = list(frame.columns)
    if "p_holm" in shown and "p_value" in frame and "p_holm" in frame:
        same = all((a == b) or (a != a and b != b) for a, b in zip(frame["p_value"], frame["p_holm"]))
        if same:
            shown[shown.index("p_holm")] = "p_value"
    hidden = tuple(c for c in frame.columns if c not in shown)
    frame = frame[shown + list(hidden)]
    legend = [f"{c}: {m}" for c, m in card.columns.items() if c in shown] if full_legend else []
    if "unit" in card.frame:
        legend.append("observed, ci_low, ci_high and threshold are in each condition's unit: "
                      "differences of success rates in percentage points (pts), relative changes in %, "
                      "score differences as decimals, levels as in the file.")
    return Block(key, title or card.title or "Decision card", frame,
                 formats={c: ("text" if card.formats.get(c) == "text" else "count" if c in ("n", "index") else "plain")
                          for c in shown},
                 legend=legend, status_column="status" if "status" in frame else None, hidden=hidden,
                 legend_below=True, cell_kind=card_cell_kind(card.frame, dict(card.formats)))


def _gate_head(gate: AnalysisResult, currency=None) -> list[Item]:
    """Verdict, the answer, and whether the rule was registered before the results."""
    st = gate_status(gate)
    verdict = str(st["verdict"] or "no verdict")
    ans = answer(gate, currency=currency)
    items: list[Item] = [Line("Release verdict", verdict, style="verdict"),
                         Line("Decision", ans.sentences[0], style="answer")]
    if st["changed"]:
        items.append(Line("Warning", "The release rule was changed after results were seen.", style="warning"))
    rule = ans.sentences[-1]
    if st["name"] or st["sha256"]:
        rule += " Rule" + (f" '{st['name']}'" if st["name"] else "") + (
            f", SHA-256 {st['sha256']}." if st["sha256"] else ".")
    items.append(Line("Registration", rule))
    return items


def _gate_items(gate: AnalysisResult, currency=None) -> list[Item]:
    items = _gate_head(gate, currency)
    try:
        card = gate.table("card")
    except KeyError:
        card = None
    if card is not None:
        items += [Gap(), _card_block("gate/card", card, full_legend=False)]
    items.append(Gap())
    return items


def _plan_gate(key, gate: AnalysisResult, names: SheetNames, currency=None) -> tuple[str, list[SheetPlan]]:
    """The gate's sheet, laid out to print on A4 or Letter landscape at a readable size: the
    verdict and card, then each condition in words, the eval-set check, then the rule's text
    in a wide merged area, then the records."""
    main = SheetPlan(names.claim("gate"), freeze=False, text_width=34.0)
    st = gate_status(gate)
    items: list[Item] = [Heading("Release gate" + (f": {st['name']}" if st["name"] else ""))]
    items += _gate_head(gate, currency)
    items += [Line("Signature", gate.signature, style="signature"),
              Line("Input", gate.input or "the files named on the summary")]
    items.append(Gap())
    try:
        card = gate.table("card")
    except KeyError:
        card = None
    if card is not None:
        items += [_card_block(key("card"), card, title="Decision card"), Gap()]
        items.append(Heading("Conditions", "section"))
        kinds = card_cell_kind(card.frame, dict(card.formats))
        for i, row in enumerate(card.frame.to_dict("records")):
            items.append(Line(f"{row.get('index', i + 1)}. {display_name(str(row.get('metric', '')))}",
                              _condition_text(row, i, kinds), style="answer"))
        items.append(Gap())
    try:
        evalset = gate.table("items")
    except KeyError:
        evalset = None
    if evalset is not None and len(evalset.frame):
        items.append(Heading("Eval-set check", "section"))
        for row in evalset.frame.to_dict("records"):
            items.append(Line(f"Condition {row.get('index', '')}", f"{row.get('condition', '')}: "
                              + _evalset_text(row), style="note"))
        items.append(Gap())
    rule_text = None
    try:
        fields = gate.table("rule").frame
    except KeyError:
        fields = None
    if fields is not None:
        items.append(Heading("Rule", "section"))
        for field_, value in zip(fields["field"], fields["value"]):
            if str(field_) == "text":
                rule_text = str(value)
                continue
            label = {"changed after results were seen": "changed after results"}.get(str(field_), str(field_))
            items.append(Line(label, _rule_value(str(field_), value)))
    if rule_text:
        items.append(Line("Rule file", "as registered, line by line:", style="note"))
        items += [Line("", line if line.strip() else None, style="code") for line in rule_text.rstrip("\n").split("\n")]
    items.append(Gap())
    items += [Line("Note", note, style="note") for note in gate.notes]
    items.append(Gap())
    items.append(_records_block(key("#records"), gate, filter=False))
    main.items = items
    return main.name, [main]


def _evalset_text(row: dict) -> str:
    """One condition's eval-set check in words (the gate's ``items`` table, one row)."""
    def n(col):
        v = row.get(col)
        return format_value(v, "count") if v is not None and v == v else "-"

    text = (f"{n('baseline_items')} baseline items, {n('candidate_items')} candidate items, "
            f"{n('common')} in common (input {n('input')})")
    for col, word in (("missing", "missing for the candidate"), ("added", "added for the candidate")):
        if row.get(col):
            examples = row.get(f"examples_{col}")
            text += f"; {n(col)} {word}" + (f" (e.g. {examples})" if examples else "")
    return text + "."


def _rule_value(field_: str, value):
    """A rule field as the sheet shows it: alpha as a number, the rest as text."""
    if field_ == "alpha":
        try:
            return float(value)
        except (TypeError, ValueError):
            return value
    return value


def _condition_text(row: dict, i: int, kinds) -> str:
    def fv(col):
        kind = kinds(col, i) if kinds else "plain"
        return format_value(row.get(col), kind or "plain")

    status = str(row.get("status", ""))
    parts = [f"{status}: {row.get('reason', '')}." if row.get("reason") else status + "."]
    if row.get("requirement"):
        parts.append(f"PASS needs {row['requirement']}.")
    obs = f"Observed {fv('observed')}"
    if row.get("ci_low") is not None and row.get("ci_low") == row.get("ci_low"):
        obs += f" ({interval_label(row.get('basis'))} {fv('ci_low')} to {fv('ci_high')})"
    if row.get("n") is not None and row.get("n") == row.get("n"):
        obs += f", n = {format_value(row['n'], 'count')}"
    parts.append(obs + ".")
    if row.get("basis"):
        parts.append(f"Basis: {row['basis']}.")
    if row.get("counts"):
        parts.append(f"Counts: {row['counts']}.")
    p, ph = row.get("p_value"), row.get("p_holm")
    if p is not None and p == p:
        text = f"Test {format_p(p)}"
        if ph is not None and ph == ph and format_value(ph, "p") != format_value(p, "p"):
            text += f" (Holm-adjusted {format_value(ph, 'p')})"
        parts.append(text + ".")
    if row.get("more_items") is not None and row.get("more_items") == row.get("more_items"):
        parts.append(f"About {format_value(row['more_items'], 'count')} more would settle it.")
    if row.get("notes"):
        parts.append(f"Notes: {row['notes']}")
    return " ".join(parts)


def _headline_block(results, order, main_of) -> Block:
    rows, kinds, recs = [], [], []
    for i in order:
        r = results[i]
        for rec in headline_records(r):
            recs.append(rec)
            rows.append({"analysis": main_of[i], "metric": rec["metric"], "name": display_name(rec["metric"]),
                         "about": who(rec), "value": rec.get("value"), "ci_low": rec.get("ci_low"),
                         "ci_high": rec.get("ci_high"), "n": rec.get("n"),
                         "of": unit_of(r, rec) if rec.get("n") is not None else ""})
            kinds.append(record_kind(r, rec))
    frame = pd.DataFrame(rows, columns=["analysis", "metric", "name", "about", "value", "ci_low", "ci_high",
                                        "n", "of"], dtype=object)
    _hide_flat_bounds(frame, recs, kinds)

    def kind(column: str, i: int) -> str | None:
        if column in ("value", "ci_low", "ci_high"):
            return kinds[i]
        return "count" if column == "n" else None

    return Block("summary/headlines", "Headline numbers", frame, cell_kind=kind, filter=True, legend_below=True,
                 comment=interval_comment(recs),
                 legend=["value with its 95% interval (ci_low to ci_high) where there is one; "
                         "n: the denominator, counted in the unit given by 'of'; differences of rates "
                         "in percentage points."])


def interval_comment(records: Sequence[dict]):
    """The comment of an interval's bound cells: its method (the record's ``ci_method``), so the
    bounds stay plain values and the way they were computed is one hover away."""
    def comment(column: str, i: int) -> str | None:
        if column not in ("ci_low", "ci_high") or i >= len(records):
            return None
        method = records[i].get("ci_method")
        return f"95% interval: {method}" if method else None

    return comment
