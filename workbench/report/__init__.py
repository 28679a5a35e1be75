"""The Excel report: one workbook a reviewer can audit, from the same result objects as the
screen and the command line (so no number can differ).

    from workbench.report import write_report
    write_report("report.xlsx", [result, ...], source=loaded_table, title="Release 4.2")

**Why XlsxWriter (and not openpyxl) writes it.**  Derived numbers (cost per success = total
cost / successes, difference = (wins - losses) / items, pooled ratio = sum / sum...) are written
as Excel formulas so that a reviewer can audit them; viewers and libraries that do not
recalculate (mail previews, pandas, openpyxl with ``data_only=True``) must still show the
number, so the file has to hold each formula's computed value as well.  openpyxl cannot store
a formula's value (it writes the formula alone, and such readers see an empty cell);
XlsxWriter stores both.  XlsxWriter also has native charts with error bars, and a
``constant_memory`` mode that flushes each row to disk as it is written, so very large item
sheets keep memory bounded.  openpyxl stays the project's reader (and the tests reopen the
report with it).

What the report holds, and how it is kept safe, is described in :mod:`.xlsx` (sheets),
:mod:`.derived` (formulas), :mod:`.charts` (charts) and :mod:`.safety` (formula injection,
sheet names, atomic writing).

The number-format policy and the answer sentences every renderer shares are in
:mod:`.present`, which imports nothing heavy (the GUI imports it at start-up): this package's
other names load on first use.
"""

__all__ = ["write_report", "sanitize_sheet_name", "SheetNames", "looks_like_formula"]


def __getattr__(name: str):
    if name == "write_report":
        from .xlsx import write_report

        return write_report
    if name in ("SheetNames", "looks_like_formula", "sanitize_sheet_name"):
        from . import safety

        return getattr(safety, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
