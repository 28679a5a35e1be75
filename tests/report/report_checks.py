"""Helpers of the report tests: the bundled examples, finding a table on a sheet, evaluating
the report's formulas independently, reading the charts out of the xlsx package."""

from __future__ import annotations

import math
import re
import zipfile
from dataclasses import replace
from pathlib import Path

import openpyxl

from workbench.analyses import REGISTRY
from workbench.io import load_table

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "resources" / "examples"

#: The Makefile's demo runs (the seed's worked cases), plus the other bundled examples:
#: (id, analysis, file, options)
EXAMPLES = [
    ("compare", "compare", "paired_14_to_5.csv",
     dict(baseline="baseline", candidate="candidate", item="item_id")),
    ("ranking", "ranking", "ranking_seed.csv", dict(ks=(3, 5))),
    ("ranking_graded", "ranking", "ranking_graded.csv", {}),
    ("passk", "passk", "passk_counts.csv", dict(ks=(1, 3, 5))),
    ("passk_attempts", "passk", "passk_attempts.csv", dict(task="task", success="success", ks=(1, 3))),
    ("aggregate_groups", "aggregate", "multilingual.csv", dict(outcome="correct", group="language")),
    ("aggregate_simpson", "aggregate", "simpson.csv", dict(outcome="correct", group="segment", version="version")),
    ("aggregate_ratio", "aggregate", "claims.csv",
     dict(numerator="correct_claims", denominator="claims", unit="conversation")),
    ("cost", "cost", "cost_latency.csv", dict(system="system", success="success", cost="cost", latency="latency_s")),
    ("text", "text", "text_extraction.csv", {}),
    ("plan", "plan", None, dict(rate=0.8, n=100, discordance=0.15)),
]

def expected_format(kind: str | None, value, currency: str | None = None) -> str:
    """The number format the shared policy gives a cell of ``kind`` holding ``value``."""
    from workbench.report.present import excel_format

    if kind in (None, "plain"):
        return "General"
    if kind == "text":
        return "@"
    return excel_format(kind, currency=currency, value=value)


def stored(value, kind: str | None):
    """The number a cell of ``kind`` holds for ``value`` (differences of rates: in points)."""
    from workbench.report.present import excel_value

    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return excel_value(value, kind)
    return value

#: The cells the report must write as formulas: analysis -> {table: [columns]}
FORMULA_COLUMNS = {
    "cost": {"systems": ["success_rate", "cost_per_request", "cost_per_success"],
             "marginal": ["extra_cost_per_request", "extra_success_rate", "marginal_cost_per_success"]},
    "compare": {"summary": ["discordance", "diff", "mde"], "intervals": ["diff"]},
    "aggregate_groups": {"groups": ["rate", "share_of_items"],
                         "overall": ["items", "successes", "micro", "macro", "gap_micro_minus_macro"]},
    "aggregate_simpson": {"groups": ["rate", "share_of_items"],
                          "overall": ["items", "successes", "micro", "macro", "gap_micro_minus_macro"],
                          "versions": ["old", "new"]},
    "aggregate_ratio": {"summary": ["value"], "units": ["ratio"]},
    "text": {"summary": ["exact_match"]},
    "passk": {"summary": ["per_try_p"]},
    "plan": {"rate_interval": ["unpaired_difference_needed"]},
}

#: The charts each example must have (chart XML must mention these titles).
CHART_TITLES = {
    "compare": ["Difference (candidate - baseline) with 95% intervals", "Bootstrap distribution"],
    "aggregate_groups": ["Rate per group with Wilson 95% intervals"],
    "aggregate_simpson": ["Rate per group with Wilson 95% intervals", "Rate per version and segment"],
    "aggregate_ratio": ["Pooled ratio vs mean of ratios"],
    "cost": ["Success rate per system with Wilson 95% intervals", "Success rate vs cost per success",
             "Latency percentiles per system"],
    "passk": ["pass@k and pass^k by k"],
    "passk_attempts": ["pass@k and pass^k by k"],
    "ranking": ["Ranking metrics by cut-off k"],
    "ranking_graded": ["Ranking metrics by cut-off k"],
    "text": ["Text metrics per system"],
    "plan": ["95% half-width of a rate", "Minimum detectable paired difference"],
}
#: Charts that must carry error bars (intervals).
ERROR_BAR_CHARTS = {"compare": 1, "aggregate_groups": 1, "aggregate_simpson": 1, "cost": 1}


def run_example(analysis: str, filename: str | None, options: dict):
    """(result, loaded table) exactly as the command line computes them."""
    module = REGISTRY[analysis]
    opts = module.Options(**options)
    if filename is None:
        return module.run(None, opts), None
    table = load_table(EX / filename)
    result = module.run(table, opts)
    return replace(result, input=table.path, notes=tuple(table.notes) + tuple(result.notes)), table


def open_both(path):
    """The workbook as written (formulas) and as a non-recalculating reader sees it (values)."""
    return openpyxl.load_workbook(path), openpyxl.load_workbook(path, data_only=True)


#: the analyses' table names (a header reads the column names of its table)
_TABLES = ("", "summary", "items", "systems_compared", "groups", "systems", "queries", "overall",
           "versions", "intervals", "discordant", "bootstrap", "curve", "marginal", "latency_ecdf",
           "card", "rule", "items_check", "mde", "rate_interval", "per_try", "ratios", "units")


def rows_of(ws):
    return [list(r) for r in ws.iter_rows(values_only=True)]


def find_table(ws, title: str, columns: list[str], start: int = 1) -> int:
    """The 1-based row of the header of the table titled ``title`` (first at or after ``start``).
    ``columns`` are the column ids; an analysis table's header reads their display names."""
    from workbench.report.present import column_name
    title_row = None
    for r in range(start, ws.max_row + 1):
        value = ws.cell(r, 1).value
        if isinstance(value, str) and (value == title or value.startswith(title + " (part ")):
            title_row = r
            break
    assert title_row is not None, f"no table titled {title!r} on sheet {ws.title!r}"
    for r in range(title_row + 1, min(ws.max_row, title_row + 40) + 1):
        cells = [ws.cell(r, c + 1).value for c in range(len(columns))]
        if cells == [str(c) for c in columns]:
            return r
        if any(cells == [column_name(table, c) for c in columns] for table in _TABLES):
            return r
        if all(_header_of(cell, c, column_name) for cell, c in zip(cells, columns)):
            return r
    raise AssertionError(f"no header {columns} under {title!r} on sheet {ws.title!r}")


def _header_of(cell, column, column_name) -> bool:
    """A header cell shows ``column``: its id, its reader's name, or (an interval's bound) the
    name of the method that computed it before "95% CI low"."""
    col = str(column)
    if cell == col or any(cell == column_name(t, col) for t in _TABLES):
        return True
    end = "low" if col.endswith("low") else "high" if col.endswith("high") else None
    return end is not None and isinstance(cell, str) and cell.endswith(f"95% CI {end}")


def lines_of(ws, label: str) -> list:
    """The values (column B) of the rows labelled ``label`` in column A."""
    return [ws.cell(r, 2).value for r in range(1, ws.max_row + 1) if ws.cell(r, 1).value == label]


# -- an independent evaluator for the report's (simple) formulas ------------------------------

_SHEET = r"(?:'((?:[^']|'')+)'!|([A-Za-z_][A-Za-z0-9_ ]*)!)?"
_CELL = r"\$?([A-Z]{1,3})\$?(\d+)"
_RANGE = re.compile(_SHEET + _CELL + ":" + r"\$?([A-Z]{1,3})\$?(\d+)")
_REF = re.compile(_SHEET + _CELL)


def _col(letters: str) -> int:
    n = 0
    for ch in letters:
        n = n * 26 + ord(ch) - 64
    return n


def evaluate(formula: str, sheet: str, book) -> float:
    """Evaluate ``formula`` (``=...``) over the stored values of ``book`` (data_only).

    Supports what the report writes: cell references (same or other sheet), ranges inside
    SUM/AVERAGE/COUNT, SQRT, + - * / ^ and parentheses.
    """
    assert formula.startswith("=")
    expr = formula[1:]
    ranges: list[list] = []

    def sheet_of(m):
        return (m.group(1) or "").replace("''", "'") or m.group(2) or sheet

    def take_range(m):
        ws = book[sheet_of(m)]
        c1, r1, c2, r2 = _col(m.group(3)), int(m.group(4)), _col(m.group(5)), int(m.group(6))
        values = [ws.cell(r, c).value for r in range(r1, r2 + 1) for c in range(c1, c2 + 1)]
        ranges.append(values)
        return f"__R[{len(ranges) - 1}]"

    def take_cell(m):
        ws = book[sheet_of(m)]
        v = ws.cell(int(m.group(4)), _col(m.group(3))).value
        if v is None:
            v = 0
        assert isinstance(v, (int, float)) and not isinstance(v, bool), f"{m.group(0)} holds {v!r}"
        return repr(float(v))

    expr = _RANGE.sub(take_range, expr)
    expr = _REF.sub(take_cell, expr)
    expr = expr.replace("^", "**")
    nums = lambda vs: [float(v) for v in vs if isinstance(v, (int, float)) and not isinstance(v, bool)]  # noqa: E731
    env = {"__R": ranges, "SUM": lambda vs: math.fsum(nums(vs)),
           "AVERAGE": lambda vs: math.fsum(nums(vs)) / len(nums(vs)),
           "COUNT": lambda vs: float(len(nums(vs))), "SQRT": math.sqrt}
    return float(eval(expr, {"__builtins__": {}}, env))  # noqa: S307 (test-only, own formulas)


# -- the xlsx package ----------------------------------------------------------------------

def chart_xml(path) -> dict[str, str]:
    """xl/charts/chartN.xml -> its XML text."""
    with zipfile.ZipFile(path) as z:
        return {n: z.read(n).decode("utf-8") for n in z.namelist()
                if n.startswith("xl/charts/chart") and n.endswith(".xml")}


def sheet_xml(path, title: str) -> str:
    """The XML of the worksheet named ``title``."""
    with zipfile.ZipFile(path) as z:
        book = z.read("xl/workbook.xml").decode()
        rels = z.read("xl/_rels/workbook.xml.rels").decode()
        names = re.findall(r'<sheet name="([^"]*)" sheetId="\d+" r:id="(rId\d+)"', book)
        import html

        rid = {html.unescape(n): r for n, r in names}[title]
        target = re.search(rf'Id="{rid}"[^>]*Target="([^"]+)"', rels) or \
            re.search(rf'Target="([^"]+)"[^>]*Id="{rid}"', rels)
        return z.read("xl/" + target.group(1).lstrip("/").removeprefix("xl/")).decode()
