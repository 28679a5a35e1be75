"""Tests for loading delimited text files with :func:`workbench.io.load_table`."""

from __future__ import annotations

import csv
import io
import os
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from workbench.core.errors import DataError
from workbench.io import LoadedTable, load_table, to_text


# every test twice: files read whole, and the large way (``reading`` in tests/conftest.py)
pytestmark = pytest.mark.usefixtures("reading")


def write(tmp_path, name: str, content: str | bytes, encoding: str = "utf-8") -> str:
    """Write ``content`` (text or bytes) to ``tmp_path / name`` and return the path."""
    path = tmp_path / name
    if isinstance(content, str):
        content = content.encode(encoding)
    path.write_bytes(content)
    return str(path)


def load_error(path, **kwargs) -> str:
    """Load ``path`` expecting a DataError; return its message."""
    with pytest.raises(DataError) as info:
        load_table(path, **kwargs)
    return str(info.value)


# --- encodings ---------------------------------------------------------------------


def test_utf8_file_reads_accents_and_reports_encoding(tmp_path):
    path = write(tmp_path, "utf8.csv", "name,score\ncafé,1\nnaïve–x,2\n")
    table = load_table(path)
    assert table.encoding == "utf-8"
    assert table.frame["name"].tolist() == ["café", "naïve–x"]
    assert table.notes == ()


def test_utf8_bom_is_removed_from_first_header(tmp_path):
    path = write(tmp_path, "bom.csv", "\ufeffid,score\nq1,0.5\n")
    table = load_table(path)
    assert table.encoding == "utf-8-sig"
    assert list(table.frame.columns) == ["id", "score"]
    assert table.frame["score"].tolist() == [0.5]


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
def test_utf16_with_bom(tmp_path, codec):
    bom = b"\xff\xfe" if codec == "utf-16-le" else b"\xfe\xff"
    data = bom + "item\tlabel\nq1\tcafé\nq2\t–\n".encode(codec)
    table = load_table(write(tmp_path, "u16.tsv", data))
    assert table.encoding == "utf-16"
    assert table.delimiter == "\t"
    assert table.frame["label"].tolist() == ["café", "–"]


def test_cp1252_fallback_is_noted(tmp_path):
    path = write(tmp_path, "win.csv", "name;note\ncafé;a – b\n", encoding="cp1252")
    table = load_table(path)
    assert table.encoding == "cp1252"
    assert table.frame["name"].tolist() == ["café"]
    assert table.frame["note"].tolist() == ["a – b"]
    assert len(table.notes) == 1
    assert "cp1252" in table.notes[0] and "win.csv" in table.notes[0]
    assert "line 2" in table.notes[0]


def test_latin1_used_when_cp1252_cannot_decode(tmp_path):
    # 0x81 is undefined in cp1252 but valid in latin-1.
    table = load_table(write(tmp_path, "l1.csv", b"a,b\nx\x81,1\n"))
    assert table.encoding == "latin-1"
    assert table.frame["a"].tolist() == ["x\x81"]
    assert "Latin-1" in table.notes[0]


def test_binary_file_is_refused(tmp_path):
    message = load_error(write(tmp_path, "blob.csv", b"a,b\n\x01\x00\x02,3\n"))
    assert "blob.csv" in message and "binary" in message


@pytest.mark.parametrize("data, word", [
    (b"\x28\xb5\x2f\xfd" + b"\x00" * 20, "zstd-compressed"),   # zstd's frame magic
    (b"7z\xbc\xaf\x27\x1c" + b"\x00" * 20, "7-Zip archive"),
])
@pytest.mark.parametrize("name", ["run.csv.zst", "run.tsv", "run"])
def test_a_file_compressed_in_a_way_not_read_says_so(tmp_path, data, word, name):
    """gzip, bzip2 and xz are read (tests/io/test_io_compressed.py); zstd and 7-Zip, which
    the standard library does not read, get a sentence instead of 'binary data'."""
    message = load_error(write(tmp_path, name, data))
    assert name in message and word in message and "binary" not in message


def test_xlsx_saved_with_csv_extension_gets_a_hint(tmp_path):
    message = load_error(write(tmp_path, "book.csv", b"PK\x03\x04rest-of-zip"))
    assert "book.csv" in message and ".xlsx" in message


# --- delimiters --------------------------------------------------------------------


@pytest.mark.parametrize("delimiter", [",", ";", "\t", "|"])
def test_delimiters_are_detected(tmp_path, delimiter):
    lines = ["id", "score", "model"], ["q1", "0.25", "a b"], ["q2", "1", "c"]
    text = "\n".join(delimiter.join(line) for line in lines) + "\n"
    table = load_table(write(tmp_path, "d.txt", text))
    assert table.delimiter == delimiter
    assert list(table.frame.columns) == ["id", "score", "model"]
    assert table.frame["score"].tolist() == [0.25, 1.0]
    assert table.frame["model"].tolist() == ["a b", "c"]


def test_delimiter_inside_quotes_does_not_count(tmp_path):
    text = 'id;text\n1;"a,b,c"\n2;"d,e"\n3;f\n'
    table = load_table(write(tmp_path, "q.csv", text))
    assert table.delimiter == ";"
    assert table.frame["text"].tolist() == ["a,b,c", "d,e", "f"]


def test_single_column_file_is_allowed(tmp_path):
    table = load_table(write(tmp_path, "one.csv", "answer\nyes\nno\n"))
    assert list(table.frame.columns) == ["answer"]
    assert table.frame["answer"].tolist() == ["yes", "no"]


def test_single_column_of_free_text_with_commas(tmp_path):
    table = load_table(write(tmp_path, "prompts.txt", "prompt\nHi, how are you?\nFine.\n"))
    assert table.frame["prompt"].tolist() == ["Hi, how are you?", "Fine."]
    assert table.delimiter == ";"


def test_quoted_field_with_delimiter_and_newline(tmp_path):
    text = 'id,output,score\nq1,"first line, with comma\nsecond line",1\nq2,plain,0\n'
    table = load_table(write(tmp_path, "multi.csv", text))
    assert table.frame["output"].tolist() == ["first line, with comma\nsecond line", "plain"]
    assert table.frame["score"].dtype == np.int64
    # q1 starts on line 2 and spans two lines, so q2 is on line 4.
    assert table.line_of(0) == 2
    assert table.line_of(1) == 4


def test_crlf_line_endings(tmp_path):
    table = load_table(write(tmp_path, "crlf.csv", "a,b\r\n1,x\r\n2,y\r\n"))
    assert table.frame["a"].tolist() == [1, 2]
    assert table.frame["b"].tolist() == ["x", "y"]


# --- decimal comma -----------------------------------------------------------------


def test_decimal_comma_in_semicolon_file(tmp_path):
    text = "id;score;cost;label\nq1;0,5;12,75;a,b\nq2;1;3;c\nq3;;0,125;d\n"
    table = load_table(write(tmp_path, "dec.csv", text))
    assert table.delimiter == ";"
    assert table.decimal == ","
    frame = table.frame
    assert frame["score"].dtype == np.float64
    assert frame["score"].tolist()[:2] == [0.5, 1.0]
    assert np.isnan(frame["score"].iloc[2])
    assert frame["cost"].tolist() == [12.75, 3.0, 0.125]
    assert frame["label"].tolist() == ["a,b", "c", "d"]  # not numbers: stays text
    assert any(
        "decimal comma" in note and "'score'" in note and "'cost'" in note
        for note in table.notes
    )


def test_comma_with_point_is_not_a_decimal_comma(tmp_path):
    table = load_table(write(tmp_path, "mixed.csv", "a;b\n1.234,5;x\n2;y\n"))
    assert table.decimal == "."
    assert table.frame["a"].tolist() == ["1.234,5", "2"]


def test_point_decimal_file_reports_point(tmp_path):
    table = load_table(write(tmp_path, "p.csv", "a,b\n0.5,1\n"))
    assert table.decimal == "."
    assert table.frame["a"].tolist() == [0.5]


# --- typing ------------------------------------------------------------------------


def test_literal_missing_markers_stay_text(tmp_path):
    text = (
        "id,answer,score,count\n"
        "1,None,0.5,3\n"
        "2,NA,1.5,4\n"
        "3,null,,5\n"
        "4,nan,2,6\n"
        '5,"",3,7\n'
        "6,N/A,4,8\n"
    )
    frame = load_table(write(tmp_path, "lit.csv", text)).frame
    answers = frame["answer"].tolist()
    assert answers == ["None", "NA", "null", "nan", "", "N/A"]
    assert all(type(value) is str for value in answers)
    assert (frame["answer"] == "").tolist() == [False, False, False, False, True, False]
    assert frame["score"].dtype == np.float64
    assert np.isnan(frame["score"].iloc[2])
    assert frame["count"].dtype == np.int64
    assert frame["id"].tolist() == [1, 2, 3, 4, 5, 6]


def test_column_with_any_non_number_stays_text(tmp_path):
    frame = load_table(write(tmp_path, "t.csv", "a,b\n1,true\n2.5,false\nx,TRUE\n")).frame
    assert frame["a"].tolist() == ["1", "2.5", "x"]
    assert frame["b"].tolist() == ["true", "false", "TRUE"]


def test_inf_and_nan_words_are_not_numbers(tmp_path):
    frame = load_table(write(tmp_path, "inf.csv", "a,b\n1,inf\n2,nan\n")).frame
    assert frame["a"].dtype == np.int64
    assert frame["b"].tolist() == ["inf", "nan"]


def test_numbers_with_spaces_signs_and_exponents(tmp_path):
    frame = load_table(write(tmp_path, "n.csv", "a,b\n +1 ,1e-3\n-2,.5\n")).frame
    assert frame["a"].tolist() == [1, -2]
    assert frame["b"].tolist() == [0.001, 0.5]


def test_leading_zero_identifiers_stay_text(tmp_path):
    table = load_table(write(tmp_path, "ids.csv", "id,score\n007,1\n010,0\n"))
    assert table.frame["id"].tolist() == ["007", "010"]
    assert table.frame["score"].dtype == np.int64
    assert any("'007'" in note for note in table.notes)


def test_all_blank_column_stays_text(tmp_path):
    frame = load_table(write(tmp_path, "blank.csv", "a,b\n1,\n2,\n")).frame
    assert frame["b"].tolist() == ["", ""]


def test_header_names_are_stripped(tmp_path):
    frame = load_table(write(tmp_path, "h.csv", " id , score \n1,2\n")).frame
    assert list(frame.columns) == ["id", "score"]


# --- structure errors --------------------------------------------------------------


def test_ragged_rows_are_reported_with_line_numbers(tmp_path):
    text = "a,b,c\n1,2,3\n4,5\n6,7,8\n9,10,11,12\n"
    message = load_error(write(tmp_path, "ragged.csv", text))
    assert "ragged.csv" in message
    assert "line 3 has 2" in message
    assert "line 5 has 4" in message
    assert "expected 3 fields" in message


def test_ragged_row_after_multiline_field_reports_its_real_line(tmp_path):
    text = 'a,b\n1,"two\nlines"\n2,x,extra\n'
    message = load_error(write(tmp_path, "ml.csv", text))
    assert "line 4 has 3" in message


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ('a,b\n1,x\n2,"never closed\n3,y\n', 3),
        ('a,b\n1,"quoted"trailing\n', 2),
    ],
)
def test_bad_quoting_is_reported_not_swallowed(tmp_path, text, line, reading):
    path = write(tmp_path, "quotes.csv", text)
    if reading == "streamed" and "trailing" in text:
        # the large way, whose parse proves the rows whole, reads a quote that closes a field
        # before its end as the csv module's default dialect does (docs/file-formats.md)
        import csv
        import io

        lenient = list(csv.reader(io.StringIO(text, newline="")))
        assert to_text(load_table(path), "b") == [lenient[1][1]] == ["quotedtrailing"]
        return
    message = load_error(path)
    assert "quotes.csv" in message
    assert f"badly quoted field in the row starting on line {line}" in message


def test_lines_of_spaces_are_blank_in_multi_column_files(tmp_path):
    table = load_table(write(tmp_path, "sp.csv", "  \na;b\n1;2\n   \n3;4\n"))
    assert table.frame["a"].tolist() == [1, 3]
    assert [table.line_of(0), table.line_of(1)] == [3, 5]


def test_long_fields_are_read(tmp_path):
    long_text = "word " * 60_000  # 300,000 characters, beyond csv's default limit
    table = load_table(write(tmp_path, "long.csv", f'id,output\n1,"{long_text}"\n'))
    assert table.frame["output"].iloc[0] == long_text


def test_sheet_option_is_noted_for_text_files(tmp_path):
    table = load_table(write(tmp_path, "s.csv", "a\n1\n"), sheet="Results")
    assert any("'Results' was ignored" in note for note in table.notes)


def test_short_row_is_not_padded_silently(tmp_path):
    message = load_error(write(tmp_path, "short.csv", "a;b;c\n1;2;3\n4;5;6\n7;8\n"))
    assert "line 4 has 2" in message


def test_ragged_message_counts_beyond_five(tmp_path):
    text = "a,b\n" + "1,2,3\n" * 8
    message = load_error(write(tmp_path, "many.csv", text))
    assert "8 rows" in message and "and 3 more" in message


def test_empty_file(tmp_path):
    message = load_error(write(tmp_path, "empty.csv", b""))
    assert "empty.csv" in message and "empty" in message


def test_file_with_only_blank_lines_is_empty(tmp_path):
    message = load_error(write(tmp_path, "blank.csv", "\n\n\r\n"))
    assert "is empty" in message


def test_header_only_file(tmp_path):
    message = load_error(write(tmp_path, "header.csv", "a,b,c\n\n"))
    assert "header.csv" in message and "no data rows" in message


def test_duplicate_header(tmp_path):
    message = load_error(write(tmp_path, "dup.csv", "id,score, id\n1,2,3\n"))
    assert "dup.csv" in message
    assert "'id' twice" in message
    assert "field 1" in message and "field 3" in message


def test_empty_header_name(tmp_path):
    message = load_error(write(tmp_path, "noname.csv", "id,,score\n1,2,3\n"))
    assert "noname.csv" in message and "without a name" in message and "field 2" in message


def test_missing_file(tmp_path):
    path = tmp_path / "nowhere.csv"
    message = load_error(path)
    assert str(path) in message and "does not exist" in message


def test_directory_is_refused(tmp_path):
    message = load_error(tmp_path)
    assert str(tmp_path) in message and "folder" in message


# --- line numbers and metadata -----------------------------------------------------


def test_blank_lines_are_skipped_and_line_numbers_kept(tmp_path):
    table = load_table(write(tmp_path, "gaps.csv", "\na,b\n1,x\n\n2,y\n"))
    assert table.frame["a"].tolist() == [1, 2]
    assert [table.line_of(0), table.line_of(1)] == [3, 5]
    assert table.describe_rows([0, 1]) == "lines 3, 5"


def test_line_of_is_index_plus_two_for_plain_files(tmp_path):
    table = load_table(write(tmp_path, "plain.csv", "a\n1\n2\n3\n"))
    assert [table.line_of(i) for i in range(3)] == [2, 3, 4]
    with pytest.raises(IndexError):
        table.line_of(3)


def test_metadata(tmp_path):
    content = b"a,b\n1,2\n"
    path = write(tmp_path, "meta.csv", content)
    table = load_table(os.path.relpath(path))
    assert isinstance(table, LoadedTable)
    assert table.path == path
    assert os.path.isabs(table.path)
    assert table.size_bytes == len(content)
    import hashlib

    assert table.sha256 == hashlib.sha256(content).hexdigest()
    assert table.sheet is None and table.sheets == ()
    assert table.format == "text"
    assert isinstance(table.frame.index, pd.RangeIndex)


def test_input_file_is_not_modified(tmp_path):
    path = write(tmp_path, "keep.csv", "a;b\n0,5;x\n")
    os.utime(path, (1_000_000_000, 1_000_000_000))
    before = (Path(path).read_bytes(), os.stat(path).st_mtime_ns)
    load_table(path)
    after = (Path(path).read_bytes(), os.stat(path).st_mtime_ns)
    assert after == before


def test_progress_is_reported_and_can_cancel(tmp_path):
    path = write(tmp_path, "p.csv", "a\n1\n")

    class Recorder:
        def __init__(self):
            self.fractions = []

        def advance(self, fraction, message):
            self.fractions.append(fraction)
            assert "p.csv" in message

        def check_cancelled(self):
            pass

    recorder = Recorder()
    load_table(path, progress=recorder)
    assert recorder.fractions[0] == 0.0 and recorder.fractions[-1] == 1.0
    assert recorder.fractions == sorted(recorder.fractions)

    class Stop(Exception):
        pass

    class Cancelling(Recorder):
        def check_cancelled(self):
            raise Stop

    with pytest.raises(Stop):
        load_table(path, progress=Cancelling())


# --- property: any table written by the csv module reads back verbatim -------------

_cell = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00\r"),
    max_size=8,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    delimiter=st.sampled_from([",", ";", "\t", "|"]),
    rows=st.lists(st.lists(_cell, min_size=3, max_size=3), min_size=1, max_size=6),
)
def test_text_cells_round_trip(delimiter, rows):
    # A leading "x" keeps every cell text, so the values must come back unchanged.
    rows = [["x" + cell for cell in row] for row in rows]
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter=delimiter, lineterminator="\n")
    writer.writerow(["c1", "c2", "c3"])
    writer.writerows(rows)
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "round.csv")
        with open(path, "w", encoding="utf-8", newline="") as handle:
            handle.write(buffer.getvalue())
        frame = load_table(path).frame
    assert frame.values.tolist() == rows


def test_lines_of_matches_line_of(tmp_path):
    table = load_table(write(tmp_path, "lines.csv", "a,b\n1,\"x\ny\"\n\n2,z\n3,w\n"))
    assert table.lines_of([0, 1, 2]) == [table.line_of(i) for i in range(3)] == [2, 5, 6]
    assert table.describe_rows([0, 1, 2], limit=2) == "lines 2, 5 and 1 more"
    with pytest.raises(IndexError):
        table.lines_of([3])


def test_object_text_columns_when_str_dtype_is_unavailable(monkeypatch):
    # Older pandas (< 2.3) has no NaN-variant str dtype; text columns are then object.
    from workbench.io import cells

    monkeypatch.setattr(cells, "TEXT_DTYPE", object)
    typed = cells.type_text_column(["None", "", "x"], allow_decimal_comma=False)
    assert isinstance(typed.values, np.ndarray) and typed.values.dtype == object
    assert typed.values.tolist() == ["None", "", "x"]
    assert cells.type_text_column(["1", "2"], allow_decimal_comma=False).values.dtype == np.int64


def test_the_checksum_is_computed_once_when_asked_for(tmp_path, monkeypatch):
    """Loading does not hash the file (an analysis never needs it); the first read of
    ``sha256`` does, once; ``hash_now`` hashes while parsing.  Equal files, equal tables."""
    import hashlib

    from workbench.io import loader

    content = b"id,score\nx,0.5\ny,0.25\n"
    path = write(tmp_path, "lazy.csv", content)
    calls = []
    real = hashlib.sha256

    def counting(data=b""):
        calls.append(len(data))
        return real(data)

    monkeypatch.setattr(loader.hashlib, "sha256", counting)
    table = load_table(path)
    assert calls == []
    assert table.sha256 == real(content).hexdigest()
    assert table.sha256 == real(content).hexdigest()
    assert len(calls) == 1  # (a file read without holding its bytes is hashed in pieces)
    eager = load_table(path, hash_now=True)
    assert eager.sha256 == table.sha256 and len(calls) == 2
    assert eager == table and hash(eager) == hash(table)
    other = load_table(write(tmp_path, "other.csv", content + b"z,1\n"))
    assert other != table


def test_a_file_changed_while_it_is_parsed_gives_the_bytes_first_read(tmp_path, monkeypatch):
    """The C parser reads the file itself when the bytes are the file's own; if the file
    changes meanwhile (size or time), the table is the one of the bytes read first."""
    import time as _time

    from workbench.io import fastcsv

    path = write(tmp_path, "moving.csv", b"id,score\na,1\nb,2\n")
    real = fastcsv._read_csv_path
    calls = []

    def racing(p, kwargs, **more):
        calls.append(p)
        _time.sleep(0.01)
        with open(p, "wb") as handle:  # another program rewrites the file as it is parsed
            handle.write(b"id,score\nq,7\nr,8\n")  # same size and shape, other cells
        return real(p, kwargs, **more)

    monkeypatch.setattr(fastcsv, "_read_csv_path", racing)
    table = load_table(path)
    assert calls == [path]
    assert table.cell_text("id").tolist() == ["a", "b"]
    assert table.frame["score"].tolist() == [1, 2]
    import hashlib

    assert table.sha256 == hashlib.sha256(b"id,score\na,1\nb,2\n").hexdigest()


def test_the_parser_reads_the_file_itself_only_for_its_own_utf8_bytes(tmp_path, monkeypatch, reading):
    from workbench.io import fastcsv

    seen = []
    real = fastcsv._read_csv_path
    monkeypatch.setattr(fastcsv, "_read_csv_path", lambda p, kw, **m: seen.append(p) or real(p, kw, **m))
    plain = write(tmp_path, "plain.csv", "id,name\n1,caf\u00e9\n".encode("utf-8"))
    bom = write(tmp_path, "bom.csv", b"\xef\xbb\xbf" + "id,name\n1,caf\u00e9\n".encode("utf-8"))
    latin = write(tmp_path, "latin.csv", "id,name\n1,caf\u00e9\n".encode("cp1252"))
    for p in (plain, bom, latin):
        assert load_table(p).cell_text("name").tolist() == ["caf\u00e9"]
    # the others are parsed from their UTF-8 text; streamed, the C parser skips the mark itself
    assert seen == ([plain, bom] if reading == "streamed" else [plain])


NUMBER_CHARACTERS = set("0123456789+-.eE \t\n")


@settings(max_examples=400, deadline=None)
@given(st.lists(st.text(st.sampled_from("0123456789+-.eE \t,;aé\r\u6771x"), max_size=8), max_size=40),
       st.booleans(), st.integers(0, 5000))
def test_the_character_screen_of_a_column_follows_its_rule(cells_, allow_comma, padding):
    """A column is number-like when every character is one a number holds (digits, signs,
    point, exponent, spaces), with a decimal comma when a comma is allowed, the column has no
    point and commas are the only other characters; anything else is text.  Checked on the
    screen itself (the typing plan of the fast path uses it alone) and through
    type_text_column, with cells long enough that the first-cells look does not decide."""
    from workbench.io import cells

    values = ["1" * padding, *cells_] if padding else cells_
    joined = "\n".join(values)
    characters = set(joined)
    if characters <= NUMBER_CHARACTERS:
        expected = "number"
    elif allow_comma and "." not in joined and characters <= NUMBER_CHARACTERS | {","}:
        expected = "comma"
    else:
        expected = "text"
    assert cells._screen(joined, allow_comma) == expected
    assert cells.is_text_screened(joined, allow_decimal_comma=allow_comma) == (expected == "text")
    typed = cells.type_text_column(values, allow_decimal_comma=allow_comma)
    if expected == "text":
        assert not isinstance(typed.values, np.ndarray)
