"""Whether a CSV's rows are its lines (no quoted field holds a line break): the check that lets
Spark split a CSV between its tasks (workbench/engines/spark_input.py), checked against the
csv module's own reading of the file, also when a chunk ends inside a quoted field."""

from __future__ import annotations

import csv
import io

import pytest

from workbench.engines.spark_input import rows_are_lines

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
