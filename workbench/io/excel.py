"""Reading Excel workbooks (.xlsx / .xlsm) with openpyxl.

The workbook is opened from the bytes already read into memory (so the file on disk
is never held open or locked), in read-only mode with cached formula results
(``data_only=True``).  openpyxl parses the XML with :mod:`defusedxml` when it is
installed; :func:`read_sheet` refuses to run if that protection has been switched
off (``OPENPYXL_DEFUSEDXML=False``).
"""

from __future__ import annotations

import io
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from workbench.core.errors import DataError
from workbench.io.cells import format_excel_cell as format_cell, is_blank

# How often (in rows) a long sheet checks whether the user cancelled.
_CANCEL_CHECK_ROWS = 20_000


def get_column_letter(index: int) -> str:
    """Excel's letters of the 1-based column ``index`` (openpyxl's, imported when first needed:
    openpyxl is 0.1 s of an import that opening a CSV or a run file does not need)."""
    from openpyxl.utils import get_column_letter as letter

    return letter(index)


@dataclass(frozen=True)
class SheetData:
    """The cells of one worksheet: header, per-column values and sheet row numbers."""

    sheet: str
    sheets: tuple[str, ...]
    header: list[str]
    header_row: int
    columns: list[list[Any]]
    rows: list[int]  # sheet row number of each data row


def read_sheet(data: bytes, shown: str, sheet: str | None, progress: Any = None) -> SheetData:
    """Read one worksheet of an .xlsx/.xlsm workbook given as bytes.

    ``sheet=None`` picks the first sheet.  The first non-empty row is the header;
    trailing empty header cells are ignored, completely empty rows are skipped, and
    a value below a header cell without a name is refused.  Raises
    :class:`DataError` for unreadable workbooks, unknown or chart sheets and sheets
    without data rows.
    """
    import openpyxl

    if not openpyxl.DEFUSEDXML:
        raise DataError(
            f"Workbook {shown} was not opened because XML protection (defusedxml) is "
            "switched off; unset OPENPYXL_DEFUSEDXML or save the sheet as CSV."
        )
    fast = _read_calamine(data, shown, sheet, progress)
    if fast is not None:
        return fast
    with warnings.catch_warnings():
        # openpyxl warns about unsupported extensions and styles, irrelevant to the data.
        warnings.simplefilter("ignore", UserWarning)
        return _read_workbook(data, shown, sheet, progress)


def _read_calamine(data: bytes, shown: str, sheet: str | None, progress: Any) -> SheetData | None:
    """Read the sheet with calamine (Rust; several times faster than openpyxl).

    Returns None whenever openpyxl should read the workbook instead: calamine is missing,
    the file is damaged, or the sheet is unknown or a chart sheet (openpyxl's path then
    names the problem).  Cells come back as calamine gives them: numbers as floats, empty
    cells as ``""``, dates as ``datetime``.
    """
    try:
        import python_calamine
    except ImportError:  # pragma: no cover - a runtime dependency; openpyxl reads alone
        return None
    try:
        book = python_calamine.CalamineWorkbook.from_filelike(io.BytesIO(data))
        kinds = {meta.name: str(meta.typ) for meta in book.sheets_metadata}
        names = tuple(book.sheet_names)
        chosen = sheet if sheet is not None else (names[0] if names else None)
        if chosen is None or chosen not in names or "Chart" in kinds.get(chosen, ""):
            return None
        rows = book.get_sheet_by_name(chosen).to_python(skip_empty_area=False)
    except Exception:  # noqa: BLE001 - openpyxl's path explains a damaged file
        return None
    if progress is not None:
        progress.check_cancelled()
    return _sheet_from_rows(rows, chosen, names, shown)


def _sheet_from_rows(rows: list[list[Any]], sheet: str, names: tuple[str, ...],
                     shown: str) -> SheetData:
    """Header, columns and row numbers from a sheet's rows (row 1 first), vectorised."""
    where = f"Sheet '{sheet}' of workbook {shown}"
    width = max((len(row) for row in rows), default=0)
    grid = np.empty((len(rows), width), dtype=object)
    if rows and all(len(row) == width for row in rows):
        grid[:] = rows  # calamine's rows are all of one width
    else:
        grid[:] = ""
        for number, row in enumerate(rows):
            grid[number, : len(row)] = row
    empty = (grid == "") | pd.isna(grid) if grid.size else np.zeros(grid.shape, bool)
    blank_rows = empty.all(axis=1) if width else np.ones(len(rows), bool)
    filled = np.flatnonzero(~blank_rows)
    if filled.size == 0:
        raise DataError(
            f"{where} is empty; expected a header row with column names followed by "
            "data rows."
        )
    head = int(filled[0])
    header_cells = list(grid[head])
    while header_cells and is_blank(header_cells[-1]):
        header_cells.pop()
    header = [format_cell(value) for value in header_cells]
    size = len(header_cells)
    data_rows = filled[1:]
    if size < width and data_rows.size:
        beyond = ~empty[data_rows][:, size:]
        if beyond.any():
            row_at, column_at = np.argwhere(beyond)[0]
            letter = get_column_letter(size + int(column_at) + 1)
            raise DataError(
                f"{where} has a value in cell {letter}{int(data_rows[row_at]) + 1}, but column "
                f"{letter} has no name in header row {head + 1}; give every column with data "
                "a header."
            )
    if data_rows.size == 0:
        raise DataError(
            f"{where} has a header row but no data rows; expected at least one row "
            "below the header."
        )
    body = grid[data_rows, :size]
    columns = [body[:, i] for i in range(size)]
    return SheetData(sheet, names, header, head + 1, columns, (data_rows + 1).tolist())


def _read_workbook(data: bytes, shown: str, sheet: str | None, progress: Any) -> SheetData:
    """Open the workbook, pick the sheet and read it (see :func:`read_sheet`)."""
    import openpyxl

    try:
        workbook = openpyxl.load_workbook(
            io.BytesIO(data), read_only=True, data_only=True, keep_links=False
        )
    except Exception as err:  # openpyxl raises many types for damaged files
        raise DataError(
            f"File {shown} could not be read as an Excel workbook ({_reason(err)}); "
            "check that it is an .xlsx file and opens in Excel."
        ) from None
    try:
        names = tuple(workbook.sheetnames)
        if sheet is None:
            if not names:
                raise DataError(f"Workbook {shown} has no sheets; expected at least one.")
            chosen = names[0]
        elif sheet in names:
            chosen = sheet
        else:
            listed = ", ".join(f"'{name}'" for name in names)
            raise DataError(
                f"Workbook {shown} has no sheet '{sheet}'; its sheets are: {listed}."
            )
        worksheet = workbook[chosen]
        if not hasattr(worksheet, "iter_rows"):
            raise DataError(
                f"Sheet '{chosen}' of workbook {shown} is a chart sheet, not a table; "
                "choose a sheet with data."
            )
        try:
            return _read_rows(worksheet, chosen, names, shown, progress)
        except DataError:
            raise
        except Exception as err:  # damaged sheet XML is only parsed while iterating
            raise DataError(
                f"Sheet '{chosen}' of workbook {shown} could not be read ({_reason(err)}); "
                "check that the file opens in Excel."
            ) from None
    finally:
        workbook.close()


def _reason(err: Exception) -> str:
    """Short description of a library exception for a user message."""
    text = " ".join(str(err).split()).rstrip(".")  # one line: libraries' texts span several
    if len(text) > 120:
        text = text[:117] + "..."
    return f"{type(err).__name__}: {text}" if text else type(err).__name__


def _read_rows(
    worksheet: Any, sheet: str, names: tuple[str, ...], shown: str, progress: Any
) -> SheetData:
    """Collect header and data rows of a read-only worksheet."""
    where = f"Sheet '{sheet}' of workbook {shown}"
    # Some writers store wrong dimensions, which would truncate rows in read-only mode.
    worksheet.reset_dimensions()
    header: list[str] | None = None
    header_row = 0
    width = 0
    columns: list[list[Any]] = []
    rows: list[int] = []
    for number, values in enumerate(worksheet.iter_rows(values_only=True), start=1):
        if progress is not None and number % _CANCEL_CHECK_ROWS == 0:
            progress.check_cancelled()
        if all(is_blank(value) for value in values):
            continue
        if header is None:
            cells = list(values)
            while cells and is_blank(cells[-1]):
                cells.pop()
            header = [format_cell(value) for value in cells]
            header_row, width = number, len(cells)
            columns = [[] for _ in range(width)]
            continue
        extra = next(
            (i for i in range(width, len(values)) if not is_blank(values[i])), None
        )
        if extra is not None:
            cell = f"{get_column_letter(extra + 1)}{number}"
            raise DataError(
                f"{where} has a value in cell {cell}, but column "
                f"{get_column_letter(extra + 1)} has no name in header row {header_row}; "
                "give every column with data a header."
            )
        for i in range(width):
            columns[i].append(values[i] if i < len(values) else None)
        rows.append(number)
    if header is None:
        raise DataError(
            f"{where} is empty; expected a header row with column names followed by "
            "data rows."
        )
    if not rows:
        raise DataError(
            f"{where} has a header row but no data rows; expected at least one row "
            "below the header."
        )
    return SheetData(sheet, names, header, header_row, columns, rows)


def list_sheets(path: str) -> tuple[str, ...]:
    """The worksheet names of an .xlsx/.xlsm file, without reading its cells."""
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as err:
        raise DataError(f"File '{path}' cannot be read ({err.strerror or err}).") from None
    import openpyxl

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            book = openpyxl.load_workbook(io.BytesIO(data), read_only=True)
            try:
                return tuple(ws.title for ws in book.worksheets)
            finally:
                book.close()
    except Exception as err:  # noqa: BLE001 - any parse failure is a user-facing sentence
        raise DataError(f"Workbook '{path}' cannot be opened ({_reason(err)}); check that it "
                        "is an .xlsx file and opens in Excel.") from None
