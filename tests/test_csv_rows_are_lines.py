"""Whether a CSV's rows are its lines (no quoted field holds a line break): the check that lets
Spark split a CSV between its tasks (workbench/engines/spark_input.py), checked against the
csv module's own reading of the file, also when a chunk ends inside a quoted field."""

from __future__ import annotations

import csv
import io

import pytest

from workbench.core.errors import DataError
from workbench.engines.spark_input import multi_line_ending, rows_are_lines

CASES = [
    'a,b\n1,2\n3,4\n',
    'a,b\n"1","2"\n"3","x"\n',                  # every field quoted (pyarrow, R)
    'a,b\n"say ""hi""",2\n3,4\n',               # doubled quotes inside a field
    'a,b\r\n"1",2\r\n3,4\r\n',                  # Windows line ends
    'a,b\n"two\nlines",2\n3,4\n',               # a field over two lines
    'a,b\n"two\r\nlines",2\n3,4\n',
    'a,b\n"ends with ""\n"",2\n3,4\n',          # a doubled quote, then a break, in one field
    'a,b\n"héllo, wörld",2\n"ça\nva",4\n',      # multi-byte characters
    'a,b\n1,2\n3,"4"',                          # no break at the end
]


def _csv_module(text: str) -> bool:
    """The reference: every row the csv module reads lies on one line of the file."""
    rows = list(csv.reader(io.StringIO(text, newline="")))
    return all("\n" not in cell and "\r" not in cell for row in rows for cell in row)


@pytest.mark.parametrize("text", CASES)
@pytest.mark.parametrize("chunk", [1, 2, 3, 5, 1 << 20])
def test_rows_are_lines_agrees_with_the_csv_module(tmp_path, text, chunk):
    path = tmp_path / "f.csv"
    path.write_bytes(text.encode("utf-8"))
    assert rows_are_lines(str(path), chunk=chunk) is _csv_module(text)


def test_a_quoted_field_spanning_chunks(tmp_path):
    text = 'a,b\n"' + "x" * 50 + "\n" + "y" * 50 + '",2\n'
    path = tmp_path / "f.csv"
    path.write_bytes(text.encode("utf-8"))
    for chunk in (7, 16, 40, 60):
        assert rows_are_lines(str(path), chunk=chunk) is False
    path.write_bytes(text.replace("\n" + "y", " y").encode("utf-8"))
    assert rows_are_lines(str(path), chunk=7) is True


# ------------------------------------------------------------------ the records' line ending

ENDINGS = [
    (b'q,d\r\n1,"a\r\nb"\r\n2,c\r\n', "\r\n"),   # Windows, the same ending inside a field
    (b'q,d\n1,"a\r\nb"\n2,c\n', "\n"),           # Unix, a Windows break inside a field
    (b'q,d\r1,"a\r\nb"\r2,c', "\r"),              # old Mac, no break at the end
    (b'q,d\r\n\r\n1,"a\nb"\r\n', "\r\n"),        # a blank line
    (b'q,d', None),                                 # one line, no ending
]


@pytest.mark.parametrize("data, ending", ENDINGS)
@pytest.mark.parametrize("chunk", [1, 2, 3, 1 << 20])
def test_the_records_line_ending_outside_quoted_fields(tmp_path, data, ending, chunk):
    path = tmp_path / "f.csv"
    path.write_bytes(data)
    assert multi_line_ending(str(path), chunk=chunk) == ending


@pytest.mark.parametrize("data, words", [
    (b'q,d\r\n1,"a\nb"\n2,c\n', ["1 CRLF", "2 LF"]),
    (b'q,d\n1,"a\nb"\r2,c\r\n', ["1 LF", "1 CR", "1 CRLF"]),
])
def test_a_file_with_two_line_endings_is_one_sentence(tmp_path, data, words):
    path = tmp_path / "mixed.csv"
    path.write_bytes(data)
    with pytest.raises(DataError) as err:
        multi_line_ending(str(path), chunk=2)
    assert "mixed.csv" in str(err.value) and "--engine duckdb" in str(err.value)
    for w in words:
        assert w in str(err.value)


def test_an_encoding_of_two_bytes_a_character_is_left_to_spark(tmp_path):
    path = tmp_path / "f.csv"
    path.write_bytes('q,d\r\n1,"a\nb"\r\n'.encode("utf-16"))
    assert multi_line_ending(str(path), "utf-16") is None
