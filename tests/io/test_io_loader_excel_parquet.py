"""Tests for loading Excel workbooks and Parquet files with :func:`workbench.io.load_table`."""

from __future__ import annotations

import datetime as dt
import hashlib
import os
from pathlib import Path

import numpy as np
import openpyxl
import pandas as pd
import pytest

from workbench.core.errors import DataError
from workbench.io import load_table, to_binary, to_float


def load_error(path, **kwargs) -> str:
    """Load ``path`` expecting a DataError; return its message."""
    with pytest.raises(DataError) as info:
        load_table(path, **kwargs)
    return str(info.value)


def make_workbook(path, sheets: dict[str, list[list]]) -> str:
    """Write an .xlsx file with the given sheets (rows of cell values)."""
    workbook = openpyxl.Workbook()
    workbook.remove(workbook.active)
    for name, rows in sheets.items():
        sheet = workbook.create_sheet(name)
        for row in rows:
            sheet.append(row)
    workbook.save(path)
    return str(path)


@pytest.fixture
def two_sheets(tmp_path) -> str:
    return make_workbook(
        tmp_path / "book.xlsx",
        {
            "Results": [
                ["item", "score", "correct", "note"],
                ["q1", 0.5, True, "None"],
                ["q2", 1, False, None],
                ["q3", None, True, "ok"],
            ],
            "Costs": [["item", "cost"], ["q1", 3], ["q2", 4]],
        },
    )


# --- Excel -------------------------------------------------------------------------


def test_first_sheet_is_default_and_noted(two_sheets):
    table = load_table(two_sheets)
    assert table.sheet == "Results"
    assert table.sheets == ("Results", "Costs")
    assert table.format == "xlsx"
    assert table.encoding is None and table.delimiter is None
    assert len(table.notes) == 1
    assert "'Results'" in table.notes[0] and "'Costs'" in table.notes[0]


def test_sheet_by_name(two_sheets):
    table = load_table(two_sheets, sheet="Costs")
    assert table.sheet == "Costs"
    assert table.notes == ()
    assert table.frame["cost"].tolist() == [3, 4]
    assert table.frame["cost"].dtype == np.int64


def test_unknown_sheet_lists_sheets(two_sheets):
    message = load_error(two_sheets, sheet="Summary")
    assert "book.xlsx" in message and "'Summary'" in message
    assert "'Results', 'Costs'" in message


def test_cells_keep_their_types(two_sheets):
    frame = load_table(two_sheets).frame
    assert frame["item"].tolist() == ["q1", "q2", "q3"]
    assert frame["score"].dtype == np.float64
    assert frame["score"].tolist()[:2] == [0.5, 1.0]
    assert np.isnan(frame["score"].iloc[2])
    assert frame["correct"].dtype == bool
    assert frame["note"].tolist() == ["None", "", "ok"]  # literal text kept, empty -> ""
    assert all(type(value) is str for value in frame["note"])


def test_mixed_column_is_text(tmp_path):
    rows = [["a", "b"], [1, "p"], ["x", "q"], [2.5, "r"], [None, "s"]]
    path = make_workbook(tmp_path / "mixed.xlsx", {"S": rows})
    assert load_table(path).frame["a"].tolist() == ["1", "x", "2.5", ""]


def test_dates_become_datetimes(tmp_path):
    path = make_workbook(
        tmp_path / "dates.xlsx",
        {"S": [["when", "id"], [dt.datetime(2024, 5, 1, 12, 30), 1], [None, 2]]},
    )
    column = load_table(path).frame["when"]
    assert pd.api.types.is_datetime64_any_dtype(column)
    assert column.iloc[0] == pd.Timestamp("2024-05-01 12:30")
    assert pd.isna(column.iloc[1])


def test_sheet_rows_are_line_numbers(tmp_path):
    path = make_workbook(
        tmp_path / "gaps.xlsx",
        {"S": [[None], ["id", "ok"], ["a", "yes"], [None, None], ["b", "maybe"]]},
    )
    table = load_table(path)
    assert table.frame["id"].tolist() == ["a", "b"]
    assert [table.line_of(0), table.line_of(1)] == [3, 5]
    with pytest.raises(DataError) as info:
        to_binary(table, "ok")
    assert "'maybe' (row 5)" in str(info.value)
    assert "sheet 'S'" in str(info.value)


def test_workbook_errors_name_the_cells(tmp_path):
    no_name = make_workbook(tmp_path / "noname.xlsx", {"S": [["a", None, "c"], [1, 2, 3]]})
    assert "cell B1" in load_error(no_name)
    stray = make_workbook(tmp_path / "stray.xlsx", {"S": [["a"], [1, "x"]]})
    assert "cell B2" in load_error(stray)
    duplicate = make_workbook(tmp_path / "dup.xlsx", {"S": [["a", "a "], [1, 2]]})
    assert "'a' twice" in load_error(duplicate)
    header_only = make_workbook(tmp_path / "header.xlsx", {"S": [["a", "b"]]})
    assert "no data rows" in load_error(header_only)
    empty = make_workbook(tmp_path / "empty.xlsx", {"S": []})
    assert "is empty" in load_error(empty)


def test_formulas_without_stored_results_are_noted(tmp_path):
    path = make_workbook(tmp_path / "formulas.xlsx", {"S": [["a", "f"], [1, "=A2*2"]]})
    table = load_table(path)
    assert table.frame["f"].tolist() == [""]
    assert any("'f'" in note and "formulas" in note for note in table.notes)


def test_corrupt_workbook(tmp_path):
    path = tmp_path / "broken.xlsx"
    path.write_bytes(b"this is not a zip file")
    message = load_error(path)
    assert "broken.xlsx" in message and "Excel workbook" in message


def test_workbook_file_unchanged(two_sheets):
    os.utime(two_sheets, (1_000_000_000, 1_000_000_000))
    before = (Path(two_sheets).read_bytes(), os.stat(two_sheets).st_mtime_ns)
    table = load_table(two_sheets)
    after = (Path(two_sheets).read_bytes(), os.stat(two_sheets).st_mtime_ns)
    assert after == before
    assert table.sha256 == hashlib.sha256(before[0]).hexdigest()
    assert table.size_bytes == len(before[0])


def test_xml_protection_is_active():
    assert openpyxl.DEFUSEDXML is True


# --- Parquet -----------------------------------------------------------------------


def test_parquet_round_trip(tmp_path):
    original = pd.DataFrame(
        {
            "item": ["q1", "q2", "q3"],
            "score": [0.5, 1.0, np.nan],
            "correct": [True, False, True],
            "count": np.array([1, 2, 3], dtype=np.int64),
        }
    )
    path = tmp_path / "data.parquet"
    original.to_parquet(path, index=False)
    table = load_table(path)
    assert table.format == "parquet"
    pd.testing.assert_frame_equal(table.frame, original, check_dtype=False)
    assert table.frame["count"].dtype == np.int64
    assert table.frame["correct"].dtype == bool
    assert to_binary(table, "correct").tolist() == [1, 0, 1]
    assert table.line_of(0) == 1  # no header line in Parquet: rows are counted from 1


def test_parquet_with_pq_extension_and_named_index(tmp_path):
    frame = pd.DataFrame({"score": [1.5, -2.0]}, index=pd.Index(["a", "b"], name="item"))
    path = tmp_path / "named.pq"
    frame.to_parquet(path)
    table = load_table(path)
    assert list(table.frame.columns) == ["item", "score"]
    assert isinstance(table.frame.index, pd.RangeIndex)
    assert table.notes and "'item'" in table.notes[0]
    with pytest.raises(DataError) as info:
        to_float(table, "score", min_value=0)
    assert "-2 (row 2)" in str(info.value)


def test_corrupt_parquet(tmp_path):
    path = tmp_path / "broken.parquet"
    path.write_bytes(b"PAR1 not really")
    message = load_error(path)
    assert "broken.parquet" in message and "Parquet" in message


def test_empty_parquet(tmp_path):
    path = tmp_path / "empty.parquet"
    pd.DataFrame({"a": pd.Series([], dtype="float64")}).to_parquet(path)
    assert "no data rows" in load_error(path)
