"""A large file whose parse proves every row whole is loaded without a pass over its bytes.

When the last column of a large delimited file has no empty cell, the C parser's table is the
csv module's: a short row would have been padded with an empty last cell, a long one refused.
Such a file is not scanned beside the parse (``fastcsv._whole_rows``), so:

* its rows' lines are found from the file when a message first names one (``LazyLines``);
* a quote that closes a field before its end is read as the csv module's default dialect
  (``strict=False``), pandas and spreadsheets read it: the text after it joins the field;
* a NUL byte is looked for in the first and last megabyte only (a binary file, or the zeros a
  crash leaves at the end of a file being written); one in between is a character of its cell,
  as the csv module reads it.

The references are the csv module (lenient dialect) and the usual way (the file read whole).
"""

from __future__ import annotations

import csv
import io
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from workbench.core.errors import DataError
from workbench.io import fastcsv, load_table, loader, to_text
from workbench.io.lazylines import LazyLines

ROWS = 30_000  # about 1.3 MB: beyond the loader's 1 MB head
LATE = 25_000


def rows_of(n: int = ROWS) -> list[str]:
    rng = np.random.default_rng(11)
    out = ["item_id,score,note,system"]
    for i in range(n):
        out.append(f"it-{i:06d},{rng.random():.6f},word{i % 13} text,{('base', 'cand')[i % 2]}")
    return out


def write(tmp_path, rows: list[str], name: str = "t.csv", end: str = "\n") -> str:
    path = tmp_path / name
    path.write_bytes((end.join(rows) + end).encode())
    return str(path)


def streamed(path: str, monkeypatch):
    monkeypatch.setattr(loader, "STREAM_BYTES", 0)
    return load_table(path)


def lenient_records(path: str) -> list[list[str]]:
    """The csv module's records of the file (default dialect: not strict), blank ones left out."""
    with open(path, encoding="utf-8", newline="") as handle:
        return [r for r in csv.reader(handle) if r and (len(r) > 1 or r[0].strip())]


def test_a_whole_row_file_is_not_scanned_and_its_lines_wait_until_asked(tmp_path, monkeypatch):
    rows = rows_of()
    rows.insert(LATE, "")  # a blank line: the rows after it are one line further down
    path = write(tmp_path, rows)
    scans = []
    monkeypatch.setattr(fastcsv, "_scan", lambda *a, **k: scans.append(a) or pytest.fail("scanned"))
    table = streamed(path, monkeypatch)
    assert scans == []
    assert isinstance(table.row_lines, LazyLines) and not table.row_lines.known
    assert table.line_of(LATE - 2) == LATE and table.line_of(LATE - 1) == LATE + 2
    assert table.row_lines.known
    assert table.lines_of([0, ROWS - 1]) == [2, ROWS + 2]
    records = lenient_records(path)
    assert to_text(table, "note") == [r[2] for r in records[1:]]


def test_lines_of_a_file_with_one_row_per_line_are_counted_not_parsed(tmp_path, monkeypatch):
    path = write(tmp_path, rows_of(), end="\r\n")
    monkeypatch.setattr(fastcsv, "_file_record_lines",
                        lambda *a, **k: pytest.fail("records found over the bytes"))
    table = streamed(path, monkeypatch)
    assert table.lines_of(range(ROWS)) == list(range(2, ROWS + 2))


def test_the_lines_of_a_file_changed_since_it_was_loaded_are_not_guessed(tmp_path, monkeypatch):
    path = write(tmp_path, rows_of())
    table = streamed(path, monkeypatch)
    with open(path, "ab") as handle:
        handle.write(b"it-x,0.5,late,base\n")
    with pytest.raises(DataError, match="changed on disk.*open the file again"):
        table.line_of(5)


@pytest.mark.parametrize("where", ["late", "head"])
def test_a_quote_closing_a_field_early_is_read_as_the_lenient_csv_reader_does(tmp_path, monkeypatch, where):
    """In a large file the text after a closing quote joins the field, as the csv module's
    default dialect and pandas read it, wherever it is (in the typing sample too), and the rows'
    lines are still found (by the csv module, as the quote keeps the byte search from vouching
    for them).  A small file is read whole and checked byte by byte: the same quote is refused
    there, naming its line."""
    rows = rows_of()
    at = LATE if where == "late" else 10
    rows[at] = f'it-{at - 1:06d},0.5,"He said "hi" there",base'
    rows.insert(at + 5, "")
    path = write(tmp_path, rows)
    records = lenient_records(path)
    table = streamed(path, monkeypatch)
    notes = to_text(table, "note")
    assert notes == [r[2] for r in records[1:]]
    assert notes[at - 1] == records[at][2] == 'He said hi" there"'
    assert table.line_of(at + 3) == at + 5 and table.line_of(at + 4) == at + 7  # the blank line
    small = write(tmp_path, rows[:3_000], "small.csv")
    if at < 3_000:
        monkeypatch.setattr(loader, "STREAM_BYTES", 1 << 40)
        with pytest.raises(DataError, match=f"badly quoted field in the row starting on line {at + 1}"):
            load_table(small)


def test_a_nul_byte_is_refused_at_the_ends_and_kept_in_its_cell_in_between(tmp_path, monkeypatch):
    rows = rows_of(80_000)  # about 3.4 MB: a middle beyond both ends' megabyte
    middle = list(rows)
    middle[40_000] = middle[40_000].replace("word", "wo\x00rd")
    path = write(tmp_path, middle, "middle.csv")
    table = streamed(path, monkeypatch)
    cell = to_text(table, "note")[39_999]
    assert cell == lenient_records(path)[40_000][2] and "\x00" in cell
    end = list(rows)
    end[-3] = end[-3].replace("word", "wo\x00rd")
    path = write(tmp_path, end, "end.csv")
    with pytest.raises(DataError, match="binary"):
        streamed(path, monkeypatch)


def test_a_text_column_whose_later_rows_look_like_numbers_keeps_their_text(tmp_path, monkeypatch):
    """The C parser types a file in pieces: a piece of a text column holding only "007" was
    read as the number 7 and joined to the other pieces' text ("7").  The cells as written."""
    rows = ["id,code,n"] + [f"{i},w{i},{i % 5}" for i in range(400_000)]
    for i in range(150_000, 390_000):
        rows[i + 1] = f"{i},007,{i % 5}"
    path = write(tmp_path, rows)
    table = streamed(path, monkeypatch)
    codes = to_text(table, "code")
    assert codes[0] == "w0" and codes[200_000] == "007"
    assert table.frame["code"].iloc[200_000] == "007"


SAFE = st.text(st.sampled_from('ab "\u00e9'), max_size=5)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(SAFE, SAFE, st.text(st.sampled_from("xy"), min_size=1, max_size=3)),
                min_size=1, max_size=25))
def test_whenever_the_parse_proves_rows_whole_it_is_the_lenient_csv_reading(tmp_path_factory, cells):
    """Fields written with any placement of quotes (no quoting applied): when the streamed way
    returns a table without scanning, each cell is the csv module's (default dialect)."""
    body = "h1,h2,h3\n" + "".join(f"{a},{b},{c}\n" for a, b, c in cells)
    path = tmp_path_factory.mktemp("fuzz") / "f.csv"
    path.write_bytes(body.encode())
    st_ = os.stat(path)
    state = (st_.st_size, st_.st_mtime_ns)
    head = body.encode()
    try:
        fast = fastcsv.parse_file(str(path), state, head, ",", ["h1", "h2", "h3"], "f.csv")
    except fastcsv.Fallback:
        return  # the usual way reads it (and names what it refuses)
    records = list(csv.reader(io.StringIO(body, newline="")))
    records = [r for r in records if r and (len(r) > 1 or r[0].strip())]
    assert all(len(r) == 3 for r in records)
    for j, name in enumerate(["h1", "h2", "h3"]):
        got = fast.columns[name].values
        assert [str(v) for v in got] == [r[j] for r in records[1:]]
    assert np.asarray(fast.lines).tolist() == _lenient_lines(body)


def _lenient_lines(body: str) -> list[int]:
    reader = csv.reader(io.StringIO(body, newline=""))
    starts, previous = [], 0
    for record in reader:
        if record and (len(record) > 1 or record[0].strip()):
            starts.append(previous + 1)
        previous = reader.line_num
    return starts[1:]


@pytest.mark.parametrize(("head", "needs"), [
    (b"a,b\n1,2\n", False), (b"a,b\n1,\n", True), (b"a,b\n1,\r\n", True), (b'a,b\n1,""\n', True),
    (b"a,b\n007,x\n", True), (b"a,b\nx,-01.5\n", True), (b'a,b\nx,"007"\n', True), (b"a,b\nx, 05\n", True),
    (b"a,b\nx,2024-05-01\n", False), (b"a,b\nx,0.5\n", False), (b"a,b\nx,100\n", False), (b"a\n0\n", False),
])
def test_the_head_says_when_the_first_rows_are_typed_before_the_parse(head, needs):
    """An empty last field (the file is then scanned beside the parse) or a field written with a
    leading zero (the cells rule keeps its column as text, the C parser would read a number)."""
    assert fastcsv._needs_sample(fastcsv._head_rows(head), ord(",")) is needs


def test_a_leading_zero_in_the_sample_keeps_its_column_text_the_parse_first_way_too(tmp_path, monkeypatch):
    rows = rows_of()
    rows[1500] = rows[1500].replace("it-", "")  # '001499' as an id, in the typing sample
    rows = [r.replace(",word", ",007,word", 1) if i and i % 1000 == 0 else r.replace(",word", ",12,word", 1)
            for i, r in enumerate(rows)]
    rows[0] = "item_id,score,code,note,system"
    path = write(tmp_path, rows)
    table = streamed(path, monkeypatch)
    codes = to_text(table, "code")
    assert codes[999] == "007" and codes[0] == "12"
    assert table.frame["code"].dtype.kind not in "iuf"  # text, as the exact reader types it
