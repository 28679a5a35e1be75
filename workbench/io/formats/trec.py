"""TREC run and qrels files, as trec_eval reads them.

A run line is ``qid iter docno rank score tag`` and a qrels line ``qid iter docno rel``:
whitespace-separated fields, no header.  trec_eval orders a query's documents by score (then
document id, descending), never by the rank field, and the tag names the run (the system).
Ids stay the exact text of the file (``1`` and ``1.0`` are different documents).

Columns: run -> ``query iter doc rank score system``; qrels -> ``query iter doc relevance``.
The names are the workbench's role names, so ``workbench ranking RUN --qrels QRELS`` needs no
column flags (the qrels and the run share ``query`` and ``doc``).
"""

from __future__ import annotations

import csv
import io
import os
import re

import numpy as np
import pandas as pd

from workbench.core.errors import DataError
from workbench.io.formats._common import almost, decode, short, table

RUN, QRELS = "trec_run", "trec_qrels"
RUN_COLUMNS = ("query", "iter", "doc", "rank", "score", "system")
QRELS_COLUMNS = ("query", "iter", "doc", "relevance")
RUN_EXPECTED = ("6 whitespace-separated fields 'qid Q0 docno rank score tag' (a TREC run line: "
                "whole-number rank, numeric score)")
QRELS_EXPECTED = ("4 whitespace-separated fields 'qid iter docno rel' (a TREC qrels line: "
                  "whole-number relevance)")
#: Extensions (and name parts) that announce a TREC file: a mismatch is then an error.
RUN_HINTS = (".run", ".trec", ".res")
QRELS_HINTS = (".qrels", ".qrel")

_INT = re.compile(r"[+-]?[0-9]+\Z")
_NUM = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?\Z")
_SNIFF_LINES = 20


def _kind_of_line(fields: list[str]) -> str | None:
    if len(fields) == 6 and _INT.match(fields[3]) and _NUM.match(fields[4]):
        return RUN
    if len(fields) == 4 and _INT.match(fields[3]):
        return QRELS
    return None


def _first_lines(text: str) -> list[tuple[int, str]]:
    """The first non-blank lines with their numbers (a line cut by the prefix is left out)."""
    pieces = text[:200_000].split("\n")
    if len(text) > 200_000:
        pieces = pieces[:-1]
    out = []
    for number, line in enumerate(pieces, start=1):
        if line.strip():
            out.append((number, line))
            if len(out) >= _SNIFF_LINES:
                break
    return out


def sniff(text: str, path: str) -> str | None:
    """``RUN``, ``QRELS`` or None, from the first non-blank line of ``text`` (a prefix)."""
    lines = _first_lines(text)
    if not lines:
        return None
    # the first line decides (a later line that does not fit gets its sentence from load())
    return _kind_of_line(lines[0][1].split())


def headed(text: str) -> str | None:
    """The TREC kind of a space-separated file whose first line is a header (the lines after it
    fit); a tab-separated file with a header is a TSV, which the delimited reader takes."""
    lines = _first_lines(text)
    if len(lines) < 2 or "\t" in lines[0][1] or "," in lines[0][1]:
        return None
    kinds = {_kind_of_line(line.split()) for _, line in lines[1:]}
    if len(kinds) != 1 or None in kinds:
        return None
    kind = kinds.pop()
    return kind if len(lines[0][1].split()) == (6 if kind == RUN else 4) else None


def announced(path: str) -> str | None:
    """The TREC kind a file's name announces (``x.run``, ``qrels.txt``...), or None."""
    name = os.path.basename(path).lower()
    stem, ext = os.path.splitext(name)
    if ext in QRELS_HINTS or (ext in ("", ".txt") and ("qrels" in stem or "qrel" in stem)):
        return QRELS
    if ext in RUN_HINTS:
        return RUN
    return None


def explain(text: str, shown: str, kind: str) -> DataError:
    """The sentence for a file announced as (or starting like) ``kind`` whose lines do not fit."""
    expected = RUN_EXPECTED if kind == RUN else QRELS_EXPECTED
    for number, line in _first_lines(text) or [(1, "")]:
        if _kind_of_line(line.split()) != kind:
            return almost(shown, number, f"reads {short(line.strip())}", expected)
    return almost(shown, None, "is empty", expected)


def load(text: str, path: str, shown: str, kind: str, data: bytes | None = None):
    """Read a whole run or qrels file (the C parser of pandas: a million lines in about a second)."""
    names = RUN_COLUMNS if kind == RUN else QRELS_COLUMNS
    expected = RUN_EXPECTED if kind == RUN else QRELS_EXPECTED
    fast = _read_arrow(text, names, data)
    if fast is not None:
        return _finish(fast, text, path, shown, kind, _line_numbers(text, len(fast)))
    try:
        # ids as the file's text (object: fast to read), the numbers parsed by the C reader
        text_fields = (0, 1, 2, 5) if kind == RUN else (0, 1, 2)
        raw = pd.read_csv(io.StringIO(text), sep=r"\s+", header=None, names=list(range(len(names))),
                          dtype={i: object for i in text_fields}, na_filter=False,
                          keep_default_na=False, engine="c", quoting=csv.QUOTE_NONE,
                          skip_blank_lines=True, index_col=False)
    except pd.errors.ParserError as err:
        match = re.search(r"line (\d+), saw (\d+)", str(err))
        line = int(match.group(1)) if match else None
        found = f"has {match.group(2)} fields" if match else "cannot be split into fields"
        raise almost(shown, line, found, expected) from None
    lines = _line_numbers(text, len(raw))
    last = raw[len(names) - 1]
    short_rows = np.flatnonzero(raw[len(names) - 1].isna().to_numpy() | (last == "").to_numpy())
    if short_rows.size:
        row = int(short_rows[0])
        fields = int(raw.iloc[row].notna().sum() - (raw.iloc[row] == "").sum())
        raise almost(shown, int(lines[row]), f"has {fields} fields", expected)
    from workbench.io.cells import TEXT_DTYPE

    frame = pd.DataFrame({name: pd.array(raw[i].to_numpy(), dtype=TEXT_DTYPE)
                          if i in text_fields and TEXT_DTYPE is not object else raw[i]
                          for i, name in enumerate(names)})
    return _finish(frame, text, path, shown, kind, lines)


def _finish(frame: pd.DataFrame, text: str, path: str, shown: str, kind: str, lines: np.ndarray):
    expected = RUN_EXPECTED if kind == RUN else QRELS_EXPECTED
    number_col = "score" if kind == RUN else "relevance"
    values = frame[number_col] if pd.api.types.is_numeric_dtype(frame[number_col]) \
        else pd.to_numeric(frame[number_col], errors="coerce")
    bad = np.flatnonzero(values.isna().to_numpy())
    if bad.size:
        row = int(bad[0])
        what = "score (field 5)" if kind == RUN else "relevance (field 4)"
        raise almost(shown, int(lines[row]), f"has the {what} {short(frame[number_col].iloc[row])}, "
                     "which is not a number", expected)
    notes = []
    if kind == RUN:
        frame["score"] = values.to_numpy(dtype=np.float64)
        ranks = frame["rank"] if pd.api.types.is_numeric_dtype(frame["rank"]) \
            else pd.to_numeric(frame["rank"], errors="coerce")
        if ranks.isna().any():
            notes.append(f"Some ranks of file {shown} are not whole numbers; trec_eval ignores "
                         "the rank field, and so does the workbench (documents are ordered by score).")
        else:
            frame["rank"] = ranks.to_numpy()
        systems = frame["system"].unique()
        listed = ", ".join(f"'{s}'" for s in systems[:5]) + (" ..." if len(systems) > 5 else "")
        notes.insert(0, f"Read as a TREC run file (qid Q0 docno rank score tag; columns query, iter, "
                        f"doc, rank, score, system): {len(frame):,} lines, "
                        f"{frame['query'].nunique():,} queries, run tag {listed} as the system; "
                        "ids kept as text, documents ordered by score as trec_eval does.")
        roles = {"query": "query", "doc": "doc", "score": "score", "system": "system"}
    else:
        whole = values.to_numpy()
        if np.all(whole == np.round(whole)) and np.all(np.abs(whole) < 2**53):
            frame["relevance"] = whole.astype(np.int64)
        else:
            frame["relevance"] = whole.astype(np.float64)
            notes.append(f"File {shown} has relevance grades that are not whole numbers; "
                         "trec_eval would truncate them.")
        notes.insert(0, f"Read as a TREC qrels file (qid iter docno rel; columns query, iter, doc, "
                        f"relevance): {len(frame):,} judgments of {frame['query'].nunique():,} "
                        "queries; ids kept as text.")
        roles = {"query": "query", "doc": "doc", "relevance": "relevance"}
    # a run opens on Ranking (its qrels file is chosen there); judgments alone fit no analysis
    return table(frame, path, fmt=kind, notes=notes, row_lines=lines, roles=roles,
                 panel="ranking" if kind == RUN else None, row_word="line")


def _read_arrow(text: str, names: tuple[str, ...], data: bytes | None) -> pd.DataFrame | None:
    """pyarrow's multithreaded CSV reader, for files whose fields are separated by exactly one
    space or one tab (the usual case); None when pyarrow is missing or the file is irregular
    (the pandas path then reads it, and names the line that does not fit)."""
    try:
        import pyarrow as pa
        import pyarrow.csv as pcsv
    except ImportError:
        return None
    first = next((line for line in text[:10_000].split("\n") if line.strip()), "")
    first = first.rstrip("\r")
    delimiter = next((d for d in (" ", "\t") if first.split(d) == first.split()), None)
    if delimiter is None:
        return None
    types = {name: pa.string() for name in names}
    types["score" if len(names) == 6 else "relevance"] = pa.float64() if len(names) == 6 else pa.int64()
    if len(names) == 6:
        types["rank"] = pa.int64()
    try:
        arrow = pcsv.read_csv(
            io.BytesIO(_utf8(text, data)),
            read_options=pcsv.ReadOptions(column_names=list(names)),
            parse_options=pcsv.ParseOptions(delimiter=delimiter, quote_char=False, double_quote=False,
                                            escape_char=False, ignore_empty_lines=True),
            convert_options=pcsv.ConvertOptions(column_types=types, strings_can_be_null=False,
                                                quoted_strings_can_be_null=False, null_values=[]))
    except (pa.ArrowInvalid, pa.ArrowTypeError, ValueError):
        return None
    from workbench.io.cells import TEXT_DTYPE

    mapper = {pa.string(): TEXT_DTYPE}.get if TEXT_DTYPE is not object else None
    frame = arrow.to_pandas(types_mapper=mapper)
    if "\r" in first:  # Windows line ends: the last field keeps its "\r"
        return None
    return frame


def _utf8(text: str, data: bytes | None) -> bytes:
    """The file's bytes when they are its UTF-8 text (no BOM), else the text encoded."""
    if data is not None and not data.startswith(b"\xef\xbb\xbf") and len(data) >= len(text):
        return data  # pyarrow checks the UTF-8 of every text field (else: the pandas path)
    return text.encode("utf-8")


def _line_numbers(text: str, rows: int) -> np.ndarray:
    """The 1-based line of each data row (blank lines are skipped by the parser)."""
    lines = text.count("\n") + (0 if text.endswith("\n") else 1)
    if lines == rows:  # no blank line anywhere: row i is line i + 1
        return np.arange(1, rows + 1, dtype=np.int64)
    lines = np.array([bool(line.strip()) for line in text.split("\n")])
    numbers = np.flatnonzero(lines) + 1
    if numbers.size != rows:  # pragma: no cover - the parser and this count agree on blank lines
        raise DataError("The TREC file's lines could not be counted; please report this file.")
    return numbers.astype(np.int64)
