"""Tests for the column helpers in :mod:`workbench.io.columns`."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from workbench.core.errors import DataError
from workbench.io import (
    LoadedTable,
    guess_column,
    load_table,
    require_columns,
    to_binary,
    to_float,
    to_text,
)


def csv_table(tmp_path, text: str, name: str = "data.csv") -> LoadedTable:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return load_table(path)


def error_of(function, *args, **kwargs) -> str:
    with pytest.raises(DataError) as info:
        function(*args, **kwargs)
    return str(info.value)


# --- require_columns ---------------------------------------------------------------


def test_require_columns_passes_when_present(tmp_path):
    table = csv_table(tmp_path, "a,b,c\n1,2,3\n")
    assert require_columns(table, ["a", "c"]) is None


def test_missing_column_lists_existing_columns(tmp_path):
    table = csv_table(tmp_path, "a,b,c\n1,2,3\n", name="x.csv")
    message = error_of(require_columns, table, ["foo"])
    assert message == (
        f"File '{table.path}' has no column 'foo'; its columns are: a, b, c."
    )


def test_missing_column_suggests_near_match(tmp_path):
    table = csv_table(tmp_path, "Item ID,score\n1,2\n")
    message = error_of(require_columns, table, ["item_id", "label"])
    assert "no columns 'item_id', 'label'" in message
    assert "did you mean 'Item ID' for 'item_id'?" in message


# --- to_binary ---------------------------------------------------------------------


def test_to_binary_accepts_words_numbers_and_bools(tmp_path):
    table = csv_table(
        tmp_path,
        "w,n,f\n"
        " True ,1,1.0\n"
        "no,0,0.0\n"
        "PASS,1,1\n"
        "Incorrect,0,0\n"
        "y,1,1\n"
        "F,0,0\n",
    )
    assert to_binary(table, "w").tolist() == [1, 0, 1, 0, 1, 0]
    assert to_binary(table, "n").dtype == np.int8
    assert to_binary(table, "f").tolist() == [1, 0, 1, 0, 1, 0]
    frame = pd.DataFrame({"b": [True, False], "nb": np.array([False, True])})
    memory = LoadedTable(frame=frame, path="/mem.csv")
    assert to_binary(memory, "b").tolist() == [1, 0]
    assert to_binary(memory, "nb").tolist() == [0, 1]


def test_non_binary_values_are_named_with_lines(tmp_path):
    table = csv_table(tmp_path, "id,ok\n1,yes\n2,maybe\n3,\n4,2\n5,maybe\n6,no\n", name="b.csv")
    message = error_of(to_binary, table, "ok")
    assert "Column 'ok'" in message and "b.csv" in message
    assert "'maybe' (lines 3, 6)" in message
    assert "an empty cell (line 4)" in message
    assert "'2' (line 5)" in message
    assert "4 rows do not" in message
    assert "yes/no" in message


def test_non_binary_numbers_and_nan(tmp_path):
    table = csv_table(tmp_path, "ok\n1\n0.5\n\n")
    # The blank line at the end is skipped, so only 0.5 is wrong here.
    message = error_of(to_binary, table, "ok")
    assert "0.5 (line 3)" in message and "1 row does not" in message
    frame = pd.DataFrame({"ok": [1.0, np.nan, 0.0]})
    message = error_of(to_binary, LoadedTable(frame=frame, path="/m.csv"), "ok")
    assert "an empty cell (line 3)" in message


def test_non_binary_lists_at_most_five_values(tmp_path):
    values = "\n".join(f"v{i}" for i in range(8))
    message = error_of(to_binary, csv_table(tmp_path, "ok\n" + values + "\n"), "ok")
    assert "'v4'" in message and "'v5'" not in message
    assert "and 3 other values" in message and "8 rows do not" in message


# --- to_float ----------------------------------------------------------------------


def test_to_float_from_numeric_and_text_columns(tmp_path):
    table = csv_table(tmp_path, "a,b\n1,x\n2,3.5\n")
    assert to_float(table, "a").tolist() == [1.0, 2.0]
    assert to_float(table, "a").dtype == np.float64
    message = error_of(to_float, table, "b")
    assert "'x' (line 2)" in message and "must hold numbers" in message


def test_to_float_missing_values(tmp_path):
    table = csv_table(tmp_path, "cost\n1.5\n\n2\n \n", name="c.csv")
    # The whitespace-only last line is a value in a one-column file.
    values = to_float(table, "cost", allow_missing=True)
    assert values[:2].tolist() == [1.5, 2.0]
    assert np.isnan(values[2])
    message = error_of(to_float, table, "cost")
    assert "has an empty cell (line 5)" in message and "c.csv" in message


def test_to_float_min_value_names_negative_costs(tmp_path):
    table = csv_table(tmp_path, "cost\n1\n-2.5\n3\n-1\n")
    message = error_of(to_float, table, "cost", min_value=0)
    assert "must not be below 0" in message
    assert "-2.5 (line 3)" in message and "-1 (line 5)" in message
    assert "2 rows do" in message


def test_to_float_decimal_comma_text(tmp_path):
    # Column stays text because of "n/a", but "0,5" is still a number for to_float.
    table = csv_table(tmp_path, "a;b\n0,5;x\nn/a;y\n")
    assert table.decimal == "."
    message = error_of(to_float, table, "a")
    assert "'n/a' (line 3)" in message
    frame = pd.DataFrame({"a": ["0,5", "1"]})
    memory = LoadedTable(frame=frame, path="/m.csv", decimal=",")
    assert to_float(memory, "a").tolist() == [0.5, 1.0]


def test_to_float_refuses_infinity_and_bools():
    frame = pd.DataFrame({"x": [1.0, np.inf], "b": [True, False]})
    table = LoadedTable(frame=frame, path="/m.parquet", format="parquet")
    assert "inf (row 2)" in error_of(to_float, table, "x")
    assert "True (row 1)" in error_of(to_float, table, "b")


# --- to_text -----------------------------------------------------------------------


def test_to_text_formats_cells(tmp_path):
    frame = pd.DataFrame(
        {
            "f": [1.0, 2.5, np.nan],
            "i": [1, 2, 3],
            "s": ["a", "", None],
            "o": [None, 3.0, True],
        }
    )
    table = LoadedTable(frame=frame, path="/m.csv")
    assert to_text(table, "f") == ["1", "2.5", ""]
    assert to_text(table, "i") == ["1", "2", "3"]
    assert to_text(table, "s") == ["a", "", ""]
    assert to_text(table, "o") == ["", "3", "True"]


def test_to_text_keeps_literal_strings(tmp_path):
    table = csv_table(tmp_path, "a,b\nNone,1\nNA,2\n")
    assert to_text(table, "a") == ["None", "NA"]


# --- guess_column ------------------------------------------------------------------


def test_guess_column(tmp_path):
    table = csv_table(tmp_path, "Item-ID,Gold Label,model_output\n1,2,3\n")
    assert guess_column(table, "id", ["item_id", "id"]) == "Item-ID"
    assert guess_column(table, "label", ["gold_label", "label"]) == "Gold Label"
    assert guess_column(table, "model output", []) == "model_output"
    assert guess_column(table, "score", ["score", "points"]) is None
