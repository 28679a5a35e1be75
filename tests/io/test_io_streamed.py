"""Large delimited files are loaded without holding their bytes (``fastcsv.parse_file``).

The table must be the one the usual way gives (the file's bytes read whole, then the C parser
or the exact reader): same columns, types, cell text, line numbers, notes and messages.  The
usual way is forced here with a huge ``STREAM_BYTES`` and the streamed way with 0; the files
are larger than the head the loader reads first (1 MB), so that what makes a file take the
usual way (a quote, a blank line, a bad byte...) is found only by the scan of the whole file.
"""

from __future__ import annotations

import hashlib
import os

import numpy as np
import pandas as pd
import pytest

from workbench.core.errors import DataError
from workbench.io import delimited, fastcsv, load_table, loader, to_text

ROWS = 30_000  # about 1.3 MB: beyond the 1 MB head
LATE = 25_000  # a row well after the head


def lines(rows: int = ROWS) -> list[str]:
    rng = np.random.default_rng(7)
    out = ["item_id,system,score,tokens,correct,note"]
    for i in range(rows):
        out.append(f"it-{i:06d},{('base', 'cand')[i % 2]},{rng.random():.6f},"
                   f"{int(rng.integers(1, 4000))},{i % 2},word{i % 13} text")
    return out


def write(tmp_path, name: str, content: bytes) -> str:
    path = tmp_path / name
    path.write_bytes(content)
    return str(path)


def load(path: str, streamed: bool, monkeypatch, **kwargs):
    monkeypatch.setattr(loader, "STREAM_BYTES", 0 if streamed else 1 << 40)
    return load_table(path, **kwargs)


def outcome(path: str, streamed: bool, monkeypatch):
    """Everything a user sees of a load: the table's facts and texts, or the error."""
    try:
        table = load(path, streamed, monkeypatch)
    except DataError as err:
        return ("error", str(err))
    frame = table.frame
    return ("table", list(frame.columns), [str(t) for t in frame.dtypes],
            {c: to_text(table, c) for c in frame.columns},
            {c: [None if v != v else v for v in frame[c].tolist()]  # NaN as None: comparable
             for c in frame.columns if frame[c].dtype.kind in "if"},
            table.notes, table.encoding, table.delimiter, table.decimal,
            table.lines_of(range(len(frame))), table.sha256, table.size_bytes)


def assert_same(path: str, monkeypatch) -> tuple:
    whole = outcome(path, False, monkeypatch)
    streamed = outcome(path, True, monkeypatch)
    assert streamed == whole
    return whole


def test_a_plain_large_file_is_streamed_and_equals_the_usual_way(tmp_path, monkeypatch):
    body = "\n".join(lines()) + "\n"
    path = write(tmp_path, "plain.csv", body.encode())
    reads = []
    real = fastcsv._scan
    monkeypatch.setattr(fastcsv, "_scan", lambda *a: reads.append(a) or real(*a))
    whole = assert_same(path, monkeypatch)
    assert reads == []  # its last column has no empty cell: the parse proves every row whole
    assert whole[0] == "table" and whole[2][2:5] == ["float64", "int64", "int64"]
    assert whole[10] == hashlib.sha256(body.encode()).hexdigest()
    assert whole[11] == len(body.encode())
    reference = pd.read_csv(path, dtype=str, keep_default_na=False)
    assert whole[3]["score"] == reference["score"].tolist()  # "0.500000" stays as written


@pytest.mark.parametrize("case", ["whole rows", "empty last cells in the head", "late empty last cells",
                                  "late quotes"])
def test_the_delimiters_are_counted_only_where_a_short_row_could_hide(tmp_path, monkeypatch, case):
    """A file whose last column has no empty cell proves every row whole (the C parser pads a
    short row with empty cells): its bytes are not scanned at all.  An empty last cell in the
    head has the delimiters counted beside the parse; one found only by the parse has them
    counted after it.  The table is the usual way's in every case."""
    rows = lines()
    if case == "empty last cells in the head":
        rows[3] = rows[3].rsplit(",", 1)[0] + ","
    elif case == "late empty last cells":
        rows[LATE] = rows[LATE].rsplit(",", 1)[0] + ","
    elif case == "late quotes":
        rows[LATE] = rows[LATE].rsplit(",", 1)[0] + ',"a ""quoted"", word"'
    path = write(tmp_path, "rows.csv", ("\n".join(rows) + "\n").encode())
    scans = []
    real = fastcsv._scan
    monkeypatch.setattr(fastcsv, "_scan", lambda *a: scans.append(a[3:] or (False,)) or real(*a))
    whole = assert_same(path, monkeypatch)
    assert whole[0] == "table"
    expected = {"whole rows": [], "late quotes": [],
                "empty last cells in the head": [(False,)],
                "late empty last cells": [(False,)]}[case]
    assert scans == expected


@pytest.mark.parametrize("case", [
    "quoted field", "blank line", "ragged row", "short row", "bad utf8", "nul byte", "lone cr",
    "leading zero", "non-ascii", "text in a number column", "crlf", "no final newline",
    "line of spaces", "semicolons", "tabs", "utf-8 byte-order mark", "quoted header after a mark",
    "long first row", "long first row and a late short row", "late empty last cells",
    "short row among late empty last cells", "early empty last cells", "quoted empty last cells",
    "short row among early empty last cells",
])
def test_what_only_the_whole_file_shows_gives_the_usual_table_or_message(tmp_path, monkeypatch, case):
    rows = lines()
    end = "\n"
    if case == "quoted field":
        rows[LATE] = rows[LATE].rsplit(",", 1)[0] + ',"a, quoted ""word"""'
    elif case == "blank line":
        rows.insert(LATE, "")
    elif case == "ragged row":
        rows[LATE] += ",extra"
    elif case == "short row":
        rows[LATE] = rows[LATE].rsplit(",", 1)[0]
    elif case == "nul byte":
        rows[LATE] = rows[LATE].replace("word", "wo\x00rd")
    elif case == "lone cr":
        rows[LATE] = rows[LATE].replace("word", "wo\rrd")
    elif case == "leading zero":
        rows[LATE] = rows[LATE].replace(",1,", ",007,").replace(",0,", ",007,")
    elif case == "non-ascii":
        rows[LATE] = rows[LATE].replace("word", "caf\u00e9 \u6771\u4eac")
    elif case == "text in a number column":
        rows[LATE] = rows[LATE].replace(",0,", ",true,").replace(",1,", ",true,")
    elif case == "crlf":
        end = "\r\n"
    elif case == "line of spaces":
        rows.insert(LATE, "   ")
    elif case == "semicolons":
        rows = [row.replace(",", ";").replace(".", ",") for row in rows]
    elif case == "tabs":
        rows = [row.replace(",", "\t") for row in rows]
    elif case.startswith("long first row"):  # the C parser cuts it to the header's width, with a warning
        rows[1] += ",extra"
        if case.endswith("short row"):  # its extra delimiter makes up for the short row's missing one
            rows[LATE] = rows[LATE].rsplit(",", 1)[0]
    elif "late empty last cells" in case:  # after the sample: not known when the scan starts
        for i in range(LATE, LATE + 40):
            rows[i] = rows[i].rsplit(",", 1)[0] + ","
        if case.startswith("short row"):
            rows[LATE + 20] = rows[LATE + 20].rsplit(",", 1)[0]
    elif "early empty last cells" in case:  # in the head
        for i in range(5, 15):
            rows[i] = rows[i].rsplit(",", 1)[0] + ","
        if case.startswith("short row"):
            rows[LATE] = rows[LATE].rsplit(",", 1)[0]
    elif case == "quoted empty last cells":
        for i in range(5, 15):
            rows[i] = rows[i].rsplit(",", 1)[0] + ',""'
        rows[LATE] = rows[LATE].rsplit(",", 1)[0] + ',"a, b"'
    if case == "quoted header after a mark":
        rows[0] = '"item_id",system,"score, raw",tokens,correct,note'
    content = end.join(rows) + ("" if case == "no final newline" else end)
    data = content.encode()
    if "mark" in case:
        data = b"\xef\xbb\xbf" + data
    if case == "bad utf8":
        late = delimited.SNIFF_CHARS  # cp1252 bytes after the head
        data = data[:late] + data[late:].replace(b"word7 text", b"word7 \xe9t\xe9", 1)
        assert data.index(b"\xe9") > late
    path = write(tmp_path, "late.csv", data)
    result = assert_same(path, monkeypatch)
    if case in ("ragged row", "short row"):
        assert result[0] == "error" and f"line {LATE + 1}" in result[1]
    elif case == "short row among late empty last cells":
        assert result[0] == "error" and f"line {LATE + 21}" in result[1]
    elif case == "short row among early empty last cells":
        assert result[0] == "error" and f"line {LATE + 1} has 5" in result[1]
    elif case in ("early empty last cells", "quoted empty last cells"):
        assert result[0] == "table" and result[3]["note"][4:14] == [""] * 10
        assert case.startswith("early") or result[3]["note"][LATE - 1] == "a, b"
    elif case == "long first row":
        assert result[0] == "error" and "line 2" in result[1]
    elif case == "long first row and a late short row":
        assert result[0] == "error" and "line 2 has 7" in result[1] and f"line {LATE + 1} has 5" in result[1]
    elif case == "late empty last cells":
        assert result[0] == "table" and result[3]["note"][LATE - 1:LATE + 39] == [""] * 40
    elif case == "nul byte":
        assert result[0] == "error" and "binary" in result[1]
    elif case == "lone cr":
        assert result[0] == "error" and "line" in result[1], result
    elif case == "bad utf8":
        assert result[0] == "table" and result[6] == "cp1252"
    elif "mark" in case:
        assert result[0] == "table" and result[6] == "utf-8-sig" and result[1][0] == "item_id"
    elif case == "quoted field":
        assert result[0] == "table" and result[3]["note"][LATE - 1] == 'a, quoted "word"'
    elif case == "blank line":
        assert result[9][LATE - 2:LATE + 1] == [LATE, LATE + 2, LATE + 3]  # lines kept
    else:
        assert result[0] == "table"


def test_long_rows_are_streamed_with_a_longer_head(tmp_path, monkeypatch):
    """Rows so long that the first megabyte holds fewer than the typing sample's rows: the
    head is read on until it does (a head without them is refused), and the table is the
    usual one; a leading zero at row 1,500 is seen by the sample as in the usual way."""
    rows = ["id,text,code"] + [f"r{i},{'x' * 700},{i}" for i in range(3_000)]
    rows[1_500] = rows[1_500].rsplit(",", 1)[0] + ",0042"
    path = write(tmp_path, "long.csv", ("\n".join(rows) + "\n").encode())
    head = open(path, "rb").read(delimited.SNIFF_CHARS)
    st = os.stat(path)
    state = (st.st_size, st.st_mtime_ns)
    with pytest.raises(fastcsv.Fallback, match="sample"):
        fastcsv.parse_file(path, state, head, ",", ["id", "text", "code"], "'x'")
    longer = loader._longer_head(path, head, state)
    assert longer.count(b"\n") > fastcsv.SAMPLE_ROWS and open(path, "rb").read().startswith(longer)
    fastcsv.parse_file(path, state, longer, ",", ["id", "text", "code"], "'x'")
    whole = assert_same(path, monkeypatch)
    assert whole[2][2] == "str" and any("leading zeros" in note for note in whole[5])


def test_a_changed_file_is_not_read_as_the_loaded_one(tmp_path, monkeypatch):
    """Cell text of number columns and the checksum are read from the file when asked for; a
    file changed since it was loaded gives a sentence, never another file's text."""
    body = ("\n".join(lines()) + "\n").encode()
    path = write(tmp_path, "moving.csv", body)
    table = load(path, True, monkeypatch)
    eager = load(path, True, monkeypatch, hash_now=True)
    assert eager.sha256 == hashlib.sha256(body).hexdigest()
    assert table.cell_text("item_id")[0] == "it-000000"  # text columns are in memory
    with open(path, "r+b") as handle:  # another program rewrites a cell, same size
        handle.seek(len(body) - 30)
        handle.write(b"9")
    st = os.stat(path)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
    with pytest.raises(DataError, match="changed on disk .* open the file again"):
        table.cell_text("score")
    with pytest.raises(DataError, match="moving.csv"):
        table.sha256
    assert table == table and table != eager and "changed" in repr(table.digest)  # no raise
    assert eager.sha256 == hashlib.sha256(body).hexdigest()  # computed while it was the same
    os.remove(path)
    with pytest.raises(DataError, match="changed on disk"):
        table.cell_text("tokens")


def test_an_unreadable_file_gives_no_checksum(tmp_path, monkeypatch):
    """The checksum of a streamed file is read from the file: when it cannot be read (its
    size and time unchanged), a sentence, never the hash of what little was read."""
    path = write(tmp_path, "locked.csv", ("\n".join(lines()) + "\n").encode())
    table = load(path, True, monkeypatch)

    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(loader, "open", refuse, raising=False)
    with pytest.raises(DataError, match="locked.csv.*cannot be read again.*Permission denied"):
        table.sha256


def test_a_file_changed_while_it_is_parsed_is_read_again(tmp_path, monkeypatch):
    """The streamed parse sees the file change (size or time): the file is then read whole,
    and the table is the new file's, consistent in every column."""
    import time

    old = ("\n".join(lines()) + "\n").encode()
    new = old.replace(b"it-", b"IT-")
    path = write(tmp_path, "racing.csv", old)
    real = fastcsv._read_csv_path
    calls = []

    def racing(p, kwargs, **more):
        if not calls:
            time.sleep(0.01)
            with open(p, "wb") as handle:
                handle.write(new)
        calls.append(p)
        return real(p, kwargs, **more)

    monkeypatch.setattr(fastcsv, "_read_csv_path", racing)
    table = load(path, True, monkeypatch)
    assert table.cell_text("item_id")[0] == "IT-000000"
    assert table.sha256 == hashlib.sha256(new).hexdigest()
    assert len(calls) == 2


def test_other_formats_are_never_streamed(tmp_path, monkeypatch):
    """A large TREC run or JSON Lines file goes to its own reader."""
    run = "".join(f"q{i // 100} Q0 d{i} {i % 100 + 1} {1 - (i % 100) / 100:.2f} sys\n"
                  for i in range(40_000))
    path = write(tmp_path, "big.run", run.encode())
    whole = load(path, False, monkeypatch)
    streamed = load(path, True, monkeypatch)
    assert streamed.format == whole.format and len(streamed.frame) == len(whole.frame) == 40_000
    jsonl = "".join(f'{{"id": {i}, "score": 0.5}}\n' for i in range(40_000))
    path = write(tmp_path, "big.csv", jsonl.encode())  # JSON Lines with a .csv name
    assert len(load(path, True, monkeypatch).frame) == 40_000


# --- the scan of quoted files, a piece at a time ------------------------------------------


def naive_scan(data: bytes, sep: int, newlines_in_quotes: bool = False) -> tuple[bool, int, int]:
    """A byte-by-byte reference: (refused, line breaks, delimiters outside quotes).  Quotes
    toggle; an opening quote must follow a delimiter, line break, CR, quote or the start;
    a closing quote must precede one of those or the end; no NUL, no line break inside quotes,
    no unclosed quote."""
    ok = {sep, 10, 13, 34}
    inside = False
    newlines = delimiters = 0
    for i, byte in enumerate(data):
        if byte == 0:
            return True, 0, 0
        if byte == 34:
            if not inside and i > 0 and data[i - 1] not in ok:
                return True, 0, 0
            if inside and i + 1 < len(data) and data[i + 1] not in ok:
                return True, 0, 0
            inside = not inside
        elif byte == 10:
            if inside and not newlines_in_quotes:
                return True, 0, 0
            newlines += 1
        elif byte == sep and not inside:
            delimiters += 1
    return (True, 0, 0) if inside else (False, newlines, delimiters)


def scan_in_pieces(data: bytes, sep: int, size: int) -> tuple[bool, int, int]:
    scanner = fastcsv._Scanner(sep)
    for at in range(0, len(data), size):
        piece = bytearray(data[at:at + size])
        scanner.feed(piece, np.frombuffer(piece, dtype=np.uint8))
    result = scanner.result()
    if result.refused:
        return True, 0, 0
    assert result.size == len(data)
    return False, result.newlines, result.delimiters


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(["a", "b", ",", ";", '"', '""', "\n", "\r\n", "\r", " ", '","',
                                 '\n"', '",', "\x00", "\u00e9"]), max_size=200),
       st.integers(1, 150), st.sampled_from([",", ";"]))
def test_the_scanner_agrees_with_a_byte_by_byte_reference(parts, size, sep):
    data = "".join(parts).encode()
    assert scan_in_pieces(data, ord(sep), size) == naive_scan(data, ord(sep))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["a", ",", '"', '""', "\n", "\r\n", "\r", " ", '","', '\n"', '",', '"\r']),
                max_size=300),
       st.integers(1, 130))
def test_a_piece_is_counted_in_cache_sized_parts_as_a_whole(parts, part):
    """One large piece fed to the scanner is counted SCAN_PIECE bytes at a time: the same counts
    and refusals as the byte-by-byte reference, wherever the parts are cut (inside quotes, between
    a quote and its CR)."""
    from workbench.io import bytescan

    data = "".join(parts).encode()
    old = bytescan.SCAN_PIECE
    bytescan.SCAN_PIECE = part
    try:
        scanner = fastcsv._Scanner(ord(","))
        scanner.feed(data, np.frombuffer(data, dtype=np.uint8))
    finally:
        bytescan.SCAN_PIECE = old
    result = scanner.result()
    assert (bool(result.refused), result.newlines if not result.refused else 0,
            result.delimiters if not result.refused else 0) == naive_scan(data, ord(","))
    assert result.refused or result.size == len(data)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["a", ",", '"', '""', "\n", "\r\n", "\r", " ", '","', '\n"', '",', '"\r',
                                 '"a\nb"']), max_size=200),
       st.integers(1, 150))
def test_the_scanner_may_allow_line_breaks_inside_quotes(parts, size):
    """The scan of a file held in memory (records may span lines): line breaks inside quotes
    are counted, not refused; everything else as the byte-by-byte reference says."""
    data = "".join(parts).encode()
    scanner = fastcsv._Scanner(ord(","), newlines_in_quotes=True)
    for at in range(0, len(data), size):
        piece = bytearray(data[at:at + size])
        scanner.feed(piece, np.frombuffer(piece, dtype=np.uint8))
    result = scanner.result()
    got = (True, 0, 0) if result.refused else (False, result.newlines, result.delimiters)
    assert got == naive_scan(data, ord(","), newlines_in_quotes=True)


def quoted_newlines(data: bytes) -> int:
    """Line breaks inside quotes, byte by byte (for data the reference does not refuse)."""
    inside, count = False, 0
    for byte in data:
        if byte == 34:
            inside = not inside
        elif byte == 10 and inside:
            count += 1
    return count


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 900), st.sampled_from(['"', '""', '","', '\n"', '",', '"\r', ",", "\n",
                                                                 "\r\n", 'a"b', '"a\nb"', '"x,y"'])),
                max_size=40),
       st.sampled_from([64, 1000, 4096, 1 << 20]), st.booleans())
def test_few_quotes_in_large_pieces_agree_with_the_byte_by_byte_reference(parts, size, allowed):
    """Quotes far apart in large pieces (quoted regions spanning many 64-bit words, pieces of
    several words without a quote): the same refusals and counts as the reference, line breaks
    inside quotes counted when they are allowed."""
    data = "".join("x" * n + part for n, part in parts).encode()
    scanner = fastcsv._Scanner(ord(","), newlines_in_quotes=allowed)
    for at in range(0, len(data), size):
        piece = bytearray(data[at:at + size])
        scanner.feed(piece, np.frombuffer(piece, dtype=np.uint8))
    result = scanner.result()
    expected = naive_scan(data, ord(","), newlines_in_quotes=allowed)
    assert ((True, 0, 0) if result.refused else (False, result.newlines, result.delimiters)) == expected
    if not expected[0]:
        assert result.quoted_newlines == quoted_newlines(data)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.lists(st.text(st.sampled_from('ab ,;"\u00e9x'), max_size=12), min_size=3, max_size=3),
                min_size=1, max_size=60),
       st.integers(1, 200))
def test_well_quoted_tables_are_counted_exactly(rows, size):
    """Tables written by the csv module (quoting what needs it) are never refused, and their
    counts are the records' and the fields'."""
    import csv
    import io

    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    data = out.getvalue().encode()
    assert scan_in_pieces(data, ord(","), size) == (False, len(rows), 2 * len(rows))


def test_quoted_files_are_streamed_across_pieces(tmp_path, monkeypatch):
    """Quoted fields (delimiters and doubled quotes inside) are read the streamed way, and
    equal the usual way, with pieces so small that quotes fall on their edges (an empty last
    cell in the head has the file scanned)."""
    rows = lines(3_000)
    for i in range(1, len(rows), 7):
        rows[i] = rows[i].rsplit(",", 1)[0] + f',"say ""{i}"", then, more"'
    rows[2] = rows[2].rsplit(",", 1)[0] + ","
    path = write(tmp_path, "quoted.csv", ("\n".join(rows) + "\n").encode())
    scans = []
    real = fastcsv._scan
    monkeypatch.setattr(fastcsv, "_scan", lambda *a: scans.append(real(*a)) or scans[-1])
    for chunk in (64, 100, 1 << 22):
        monkeypatch.setattr(fastcsv, "STREAM_CHUNK", chunk)
        whole = assert_same(path, monkeypatch)
        assert scans[-1].refused == ""
        assert whole[3]["note"][7] == 'say "8", then, more'


def test_the_popcount_without_numpy_2_counts_bits(monkeypatch):
    words = np.array([0, 1, 0xFFFFFFFFFFFFFFFF, 0x8000000000000001, 12345678901234567], dtype="<u8")
    expected = [bin(int(w)).count("1") for w in words]
    assert fastcsv._popcount(words).tolist() == expected
    monkeypatch.delattr(np, "bitwise_count", raising=False)
    assert fastcsv._popcount(words).tolist() == expected


# --- the C parser's typing equals the cells rule (the exact reader's) ----------------------


def exact_outcome(path: str, monkeypatch):
    """The exact reader's table (the csv module and the cells rule): both fast ways refused."""
    def refuse(*args, **kwargs):
        raise fastcsv.Fallback("forced")

    with monkeypatch.context() as patched:
        patched.setattr(fastcsv, "parse", refuse)
        patched.setattr(fastcsv, "parse_file", refuse)
        return outcome(path, False, monkeypatch)


@pytest.mark.parametrize("case", [
    "blank floats", "blank ints", "blank in the sample", "blank only late", "NA late",
    "nan late", "inf late", "spaces late", "all blank late", "comma decimals",
    "comma decimals with blanks", "point late in comma file", "comma late in int column",
    "blank text cells", "all blank text", "true late", "huge int late", "leading zero in the sample",
])
def test_the_fast_ways_type_columns_as_the_exact_reader(tmp_path, monkeypatch, case):
    rows = lines(4_000)
    sep = ","
    where = [3_000] if "late" in case else [5, 700, 3_000]

    def set_cell(i: int, column: int, value: str) -> None:
        cells = rows[i].split(sep)
        cells[column] = value
        rows[i] = sep.join(cells)

    if "comma" in case:
        sep = ";"
        rows = [row.replace(",", ";").replace(".", ",") for row in rows]
    column, value = {  # which cell of the rows in ``where`` becomes what
        "blank floats": (2, ""), "blank in the sample": (2, ""), "blank only late": (2, ""),
        "comma decimals with blanks": (2, ""), "blank ints": (3, ""), "NA late": (2, "NA"),
        "nan late": (2, "nan"), "inf late": (2, "inf"), "spaces late": (2, "  "),
        "point late in comma file": (2, "0.5"), "comma late in int column": (3, "7,5"),
        "blank text cells": (1, ""), "true late": (4, "true"), "huge int late": (3, "99999999999999999999"),
        "leading zero in the sample": (3, "0042"),
    }.get(case, (None, None))
    for i in where if column is not None else ():
        set_cell(i, column, value)
    if case == "all blank late":
        for i in range(3_000, len(rows)):
            set_cell(i, 2, "")
    if case == "all blank text":
        for i in range(1, len(rows)):
            set_cell(i, 1, "")
    path = write(tmp_path, "typed.csv", ("\n".join(rows) + "\n").encode())
    exact = exact_outcome(path, monkeypatch)
    assert exact[0] == "table"
    assert outcome(path, False, monkeypatch) == exact  # the bytes and the C parser
    assert outcome(path, True, monkeypatch) == exact  # streamed


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.text(st.sampled_from('ab ,"\n\u00e9'), max_size=6), min_size=2, max_size=2),
                min_size=1, max_size=30),
       st.lists(st.integers(0, 30), max_size=3), st.integers(1, 50))
def test_the_in_memory_scan_agrees_with_the_record_lines(rows, blanks, chunk):
    """Bytes in memory: the scan says "one record per line" exactly when the record-line
    proof finds each record on the line after the previous one."""
    import csv
    import io

    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows([["h1", "h2"], *rows])
    lines_ = out.getvalue().split("\n")
    for at in sorted(blanks, reverse=True):
        if 1 <= at < len(lines_) - 1:
            lines_.insert(at, "")
    data = "\n".join(lines_).encode()
    old = fastcsv.STREAM_CHUNK
    fastcsv.STREAM_CHUNK = chunk
    try:
        fast = fastcsv._one_record_per_line(data, ord(","), 2, len(rows))
    finally:
        fastcsv.STREAM_CHUNK = old
    try:
        lines_found = fastcsv._record_lines(data, b",", 2, 1, len(rows))
    except fastcsv.Fallback:
        lines_found = "fallback"
    consecutive = lines_found is None or (
        not isinstance(lines_found, str) and lines_found.tolist() == list(range(2, len(rows) + 2)))
    assert consecutive or not fast  # never a row on a line it is not on
    plain = not any("\n" in cell for row in rows for cell in row) and \
        "\n\n" not in "\n".join(lines_)
    assert fast == plain  # and the common case is found: no line break inside quotes, no blank


@pytest.mark.parametrize("case", ["blank lines", "line breaks in quotes", "both, CRLF"])
def test_records_over_several_lines_are_streamed_with_their_lines(tmp_path, monkeypatch, case):
    """Blank lines and quoted fields with line breaks keep a large file on the streamed way
    (no second parse of the whole file), with each row's line as the usual way has it."""
    rows = lines()
    end = "\r\n" if "CRLF" in case else "\n"
    if "quotes" in case or "both" in case:
        for at in (5, LATE, LATE + 1):
            rows[at] = rows[at].rsplit(",", 1)[0] + f',"first line{end}second, line ""{at}"""'
    if "blank" in case or "both" in case:
        for at in (LATE + 2, LATE, 3):  # one in the head, two after it
            rows.insert(at, "")
    path = write(tmp_path, "multi.csv", (end.join(rows) + end).encode())
    returned = []
    real = fastcsv.parse_file
    monkeypatch.setattr(fastcsv, "parse_file", lambda *a: returned.append(real(*a)) or returned[-1])
    result = assert_same(path, monkeypatch)
    assert len(returned) == 1 and returned[0].lines is not None  # streamed, with its lines
    assert result[0] == "table" and len(result[9]) == ROWS
    line_of = result[9]
    if case == "line breaks in quotes":  # each quoted break moves the rows after it one line down
        assert line_of[3] == 5 and line_of[4] == 6 and line_of[5] == 8  # row 4 on lines 6-7
    elif case == "blank lines":
        assert line_of[1] == 3 and line_of[2] == 5  # the blank line 4
    else:  # the blank line 4, then row 4 on lines 7-8
        assert line_of[1:6] == [3, 5, 6, 7, 9]
    if "blank" not in case:
        assert result[3]["note"][LATE - 1] == f'first line{end}second, line "{LATE}"'
