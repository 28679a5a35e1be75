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
from workbench.io import load_table, parquet, to_binary, to_float


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


def test_cells_read_as_excel_shows_them(tmp_path):
    """Issue 22: booleans as Excel shows them (TRUE/FALSE) and numbers to Excel's 15
    significant digits (1/3 is 0.333333333333333 in Excel's formula bar, not 16 digits)."""
    path = make_workbook(tmp_path / "shown.xlsx", {"S": [
        ["flag", "mixed", "third", "big", "tiny", "id"],
        [True, "a", 1 / 3, 1e20, 1.5e-10, 2 / 3],
        [False, True, 0.1 + 0.2, 123456789012345678, 0.25, 7],
        [True, 1 / 3, -2 / 3, 42, 1e-3, 1.1],
    ]})
    from workbench.io import to_text

    table = load_table(path)
    assert to_text(table, "flag") == ["TRUE", "FALSE", "TRUE"]
    assert to_text(table, "mixed") == ["a", "TRUE", "0.333333333333333"]
    assert to_text(table, "third") == ["0.333333333333333", "0.3", "-0.666666666666667"]
    assert to_text(table, "big") == ["1E+20", "1.23456789012346E+17", "42"]
    assert to_text(table, "tiny") == ["1.5E-10", "0.25", "0.001"]
    assert to_text(table, "id") == ["0.666666666666667", "7", "1.1"]
    third = table.frame["third"].tolist()
    assert (third[0], third[2]) == (1 / 3, -2 / 3)  # the numbers themselves stay exact
    header = make_workbook(tmp_path / "header.xlsx", {"S": [[True, 0.5], [1, 2]]})
    assert list(load_table(header).frame.columns) == ["TRUE", "0.5"]


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
# Each test runs with both readers: pyarrow (the Python package) and fastparquet (the
# standalone bundle, which leaves pyarrow out).  Files are written by whichever is installed.


def _importable(name: str) -> bool:
    try:
        parquet._fastparquet() if name == parquet.FASTPARQUET else __import__(name)
    except ImportError:
        return False
    return True


@pytest.fixture(params=[parquet.PYARROW, parquet.FASTPARQUET])
def reader(request, monkeypatch):
    if not _importable(request.param):
        pytest.skip(f"{request.param} is not installed")
    monkeypatch.setattr(parquet, "engine", lambda: request.param)
    return request.param


def write_parquet(frame, path, index=None):
    parquet.write(frame, path, index=index,
                  using=parquet.PYARROW if _importable("pyarrow") else parquet.FASTPARQUET)


def test_parquet_round_trip(tmp_path, reader):
    original = pd.DataFrame(
        {
            "item": ["q1", "q2", "q3"],
            "score": [0.5, 1.0, np.nan],
            "correct": [True, False, True],
            "count": np.array([1, 2, 3], dtype=np.int64),
        }
    )
    path = tmp_path / "data.parquet"
    write_parquet(original, path, index=False)
    table = load_table(path)
    assert table.format == "parquet"
    pd.testing.assert_frame_equal(table.frame, original, check_dtype=False)
    assert table.frame["count"].dtype == np.int64
    assert table.frame["correct"].dtype == bool
    assert to_binary(table, "correct").tolist() == [1, 0, 1]
    assert table.line_of(0) == 1  # no header line in Parquet: rows are counted from 1


def test_parquet_with_pq_extension_and_named_index(tmp_path, reader):
    frame = pd.DataFrame({"score": [1.5, -2.0]}, index=pd.Index(["a", "b"], name="item"))
    path = tmp_path / "named.pq"
    write_parquet(frame, path, index=True)
    table = load_table(path)
    assert list(table.frame.columns) == ["item", "score"]
    assert isinstance(table.frame.index, pd.RangeIndex)
    assert table.notes and "'item'" in table.notes[0]
    with pytest.raises(DataError) as info:
        to_float(table, "score", min_value=0)
    assert "-2 (row 2)" in str(info.value)


@pytest.mark.parametrize("damage", ["cut in the middle", "cut at the end", "footer length",
                                    "only the start"])
def test_damaged_parquet_is_a_sentence_not_a_crash(tmp_path, reader, damage):
    """fastparquet's C metadata parser can crash the process on a damaged file: the frame of
    the file is checked first, for both readers."""
    good = tmp_path / "good.parquet"
    write_parquet(pd.DataFrame({"a": range(100), "b": [f"t{i}" for i in range(100)]}), good,
                  index=False)
    data = good.read_bytes()
    damaged = {"cut in the middle": data[: len(data) // 2],
               "cut at the end": data[:-1],
               "footer length": data[:-8] + (len(data) * 2).to_bytes(4, "little") + b"PAR1",
               "only the start": b"PAR1" + b"\0" * 20}[damage]
    path = tmp_path / "damaged.parquet"
    path.write_bytes(damaged)
    message = load_error(path)
    assert message.startswith("File ") and "damaged.parquet" in message
    assert "could not be read as a Parquet file (" in message
    assert ("PAR1" in message or "footer length" in message), message
    assert "complete .parquet file" in message


def test_corrupt_parquet(tmp_path, reader, capsys):
    path = tmp_path / "broken.parquet"
    path.write_bytes(b"PAR1 not really")
    message = load_error(path)
    assert "broken.parquet" in message and "Parquet" in message
    assert capsys.readouterr().out == ""  # nothing printed (fastparquet prints thrift errors)


def test_empty_parquet(tmp_path, reader):
    path = tmp_path / "empty.parquet"
    write_parquet(pd.DataFrame({"a": pd.Series([], dtype="float64")}), path, index=False)
    assert "no data rows" in load_error(path)


def test_the_two_readers_give_the_same_frame(tmp_path):
    """pyarrow and fastparquet read the same file (written by either) into equal frames,
    dtypes included: text, missing text, categoricals (read as plain values), nullable integers,
    times, index."""
    if not (_importable("pyarrow") and _importable("fastparquet")):
        pytest.skip("needs both pyarrow and fastparquet")
    frame = pd.DataFrame(
        {
            "query": ["q1", "q2", None, "q4"],
            "system": pd.Categorical(["a", "b", "a", "b"]),
            "score": [0.25, np.nan, 1.0, -3.5],
            "rank": pd.array([1, None, 3, 4], dtype="Int64"),
            "correct": [True, False, True, False],
            "when": pd.to_datetime(["2024-01-01", "2024-02-29", "2024-03-01", "2024-12-31"]),
            "tokens": np.array([10, 20, 30, 40], dtype=np.int64),
        },
        index=pd.Index(["i1", "i2", "i3", "i4"], name="item"),
    )
    for writer in (parquet.PYARROW, parquet.FASTPARQUET):
        path = tmp_path / f"by-{writer}.parquet"
        parquet.write(frame, path, index=True, using=writer)
        data = path.read_bytes()
        by_arrow = parquet.read(data, using=parquet.PYARROW)
        by_fast = parquet.read(data, using=parquet.FASTPARQUET)
        # dtypes must agree on files written by pyarrow (pandas' default writer, and what
        # polars, Spark and DuckDB files look like); on fastparquet's own files pyarrow reads
        # a nullable Int64 column back as float64, so there only the values must agree
        pd.testing.assert_frame_equal(by_fast, by_arrow, check_dtype=writer == parquet.PYARROW,
                                      check_index_type=writer == parquet.PYARROW,
                                      obj=f"file written by {writer}")
        assert by_fast.index.tolist() == ["i1", "i2", "i3", "i4"]
        assert by_fast["query"].isna().tolist() == [False, False, True, False]
        assert by_fast["system"].tolist() == ["a", "b", "a", "b"]  # plain values


def test_no_parquet_reader_is_a_clear_sentence(tmp_path, monkeypatch):
    path = tmp_path / "data.parquet"
    path.write_bytes(b"PAR1 whatever")
    monkeypatch.setattr(parquet, "engine", lambda: None)
    message = load_error(path)
    assert "data.parquet" in message and "no Parquet reader" in message and "CSV" in message


def _arrow_table_of_every_kind():
    import datetime as dtm

    import pyarrow as pa

    return pa.table({
        "text": pa.array(["a", None, "c"], type=pa.large_string()),
        "int_with_null": pa.array([1, None, 3], type=pa.int32()),
        "float32": pa.array([0.5, 1.5, None], type=pa.float32()),
        "bool_with_null": pa.array([True, None, False]),
        "bool": pa.array([True, False, False]),
        "date": pa.array([dtm.date(2024, 1, 1), None, dtm.date(2024, 1, 3)]),
        "money": pa.array([1, 2, None], type=pa.decimal128(10, 2)),
        "dict_text": pa.array(["x", "y", "x"]).dictionary_encode(),
        "dict_int": pa.array([1, 2, 1]).dictionary_encode(),
        "all_null_text": pa.array([None, None, None], type=pa.string()),
        "nothing": pa.array([None, None, None], type=pa.null()),
    })


@pytest.mark.parametrize("compression", ["snappy", "zstd", "gzip", "lz4", "brotli", "none"])
def test_files_written_by_arrow_read_alike_whatever_their_types(compression):
    """Files written without pandas metadata (as polars, Spark or DuckDB write them), every
    codec: both readers give the same columns, of the same dtypes, in one plain form."""
    if not (_importable("pyarrow") and _importable("fastparquet")):
        pytest.skip("needs both pyarrow and fastparquet")
    import io

    import pyarrow.parquet as pq

    table = _arrow_table_of_every_kind()
    if compression == "none":  # fastparquet fails on uncompressed columns with no value at all
        table = table.drop_columns(["nothing", "all_null_text"])
    buffer = io.BytesIO()
    pq.write_table(table, buffer, compression=compression)
    data = buffer.getvalue()
    by_arrow = parquet.read(data, using=parquet.PYARROW)
    by_fast = parquet.read(data, using=parquet.FASTPARQUET)
    pd.testing.assert_frame_equal(by_fast, by_arrow, check_dtype=True)
    assert str(by_arrow["text"].dtype) == "str"
    assert by_arrow["int_with_null"].dtype == np.float64  # NaN for the missing value
    assert by_arrow["bool_with_null"].tolist() == [True, None, False]
    assert by_arrow["bool"].dtype == bool
    assert by_arrow["money"].tolist()[:2] == [1.0, 2.0] and by_arrow["money"].dtype == np.float64
    assert by_arrow["date"].dtype == "datetime64[s]"
    if "nothing" in by_arrow:
        assert str(by_arrow["all_null_text"].dtype) == "str"
        assert by_arrow["all_null_text"].isna().all()
        assert by_arrow["nothing"].dtype == np.float64 and by_arrow["nothing"].isna().all()
    assert by_arrow["dict_text"].tolist() == ["x", "y", "x"]
    assert by_arrow["dict_int"].dtype == np.int64


def test_a_file_fastparquet_cannot_decode_gets_a_way_out(tmp_path, monkeypatch):
    """fastparquet (the bundle's reader) cannot decode optional booleans in data page v2."""
    if not (_importable("pyarrow") and _importable("fastparquet")):
        pytest.skip("needs both pyarrow and fastparquet")
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp_path / "v2.parquet"
    pq.write_table(pa.table({"ok": pa.array([True, None, False])}), path,
                   data_page_version="2.0")
    assert load_table(path).frame["ok"].tolist() == [True, None, False]  # pyarrow reads it
    monkeypatch.setattr(parquet, "engine", lambda: parquet.FASTPARQUET)
    message = load_error(path)
    assert "v2.parquet" in message and "by fastparquet" in message
    assert "save the table as CSV" in message and "does not read every Parquet file" in message


def _crash(data):
    """Runs in the reader's child process: dies as fastparquet does on some damaged files."""
    import faulthandler

    faulthandler.disable()
    faulthandler._sigsegv()


def test_a_crash_of_the_fastparquet_reader_is_a_sentence(tmp_path, monkeypatch):
    if not _importable("fastparquet"):
        pytest.skip("fastparquet is not installed")
    with pytest.raises(parquet.ReaderCrashed, match="fastparquet crashed"):
        parquet._read_fastparquet(b"PAR1", target=_crash)
    path = tmp_path / "crashes.parquet"
    write_parquet(pd.DataFrame({"a": [1, 2]}), path, index=False)
    real = parquet._read_fastparquet
    monkeypatch.setattr(parquet, "engine", lambda: parquet.FASTPARQUET)
    monkeypatch.setattr(parquet, "_read_fastparquet", lambda data: real(data, target=_crash))
    message = load_error(path)
    assert "crashes.parquet" in message and "by fastparquet" in message
    assert "fastparquet crashed while decoding it" in message and "CSV" in message


def test_damaged_footers_never_take_the_process_down():
    """Random byte changes in the footer of a valid file (a few hundred of them crash
    fastparquet in-process): each read either works or raises, and this process lives on."""
    if not _importable("fastparquet"):
        pytest.skip("fastparquet is not installed")
    import random

    path_data = io_bytes(pd.DataFrame({"a": range(50), "b": [f"t{i}" for i in range(50)]}))
    footer = int.from_bytes(path_data[-8:-4], "little")
    start = len(path_data) - 8 - footer
    rng = random.Random(7)
    outcomes = set()
    for _ in range(12):
        damaged = bytearray(path_data)
        for _ in range(rng.randint(2, 6)):
            damaged[rng.randrange(start, len(path_data) - 8)] = rng.randrange(256)
        try:
            parquet.read(bytes(damaged), using=parquet.FASTPARQUET)
            outcomes.add("read")
        except Exception as err:  # noqa: BLE001 - any exception, but no crash
            outcomes.add(type(err).__name__)
    assert outcomes  # and we are still here


def io_bytes(frame) -> bytes:
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "f.parquet")
        write_parquet(frame, path, index=False)
        with open(path, "rb") as fh:
            return fh.read()


def test_sentinel_dates_load_with_pyarrow(tmp_path):
    """9999-12-31 and 0001-01-01 (common "no end" markers) do not overflow: datetime64[s]."""
    if not _importable("pyarrow"):
        pytest.skip("pyarrow is not installed")
    import datetime as dtm

    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp_path / "dates.parquet"
    pq.write_table(pa.table({"valid_to": pa.array([dtm.date(9999, 12, 31), dtm.date(1, 1, 1)]),
                             "x": pa.array([1, 2])}), path)
    frame = load_table(path).frame
    assert frame["valid_to"].dt.year.tolist() == [9999, 1]


def test_fastparquet_reads_in_process_where_no_process_pool_can_be_made(tmp_path, monkeypatch):
    """As in a chroot without /dev/shm: multiprocessing cannot make its semaphores."""
    if not _importable("fastparquet"):
        pytest.skip("fastparquet is not installed")
    import concurrent.futures as cf

    def no_semaphores(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(cf, "ProcessPoolExecutor", no_semaphores)
    monkeypatch.setattr(parquet, "engine", lambda: parquet.FASTPARQUET)
    path = tmp_path / "data.parquet"
    write_parquet(pd.DataFrame({"item": ["a", "b"], "score": [0.5, 1.0]}), path, index=False)
    assert load_table(path).frame["score"].tolist() == [0.5, 1.0]
