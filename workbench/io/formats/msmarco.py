"""MS MARCO run files, as MS MARCO's evaluation script reads them.

A line is ``qid <tab> pid <tab> rank``: three fields, no header, no score, the rank counting
1, 2, 3... within each query (the passage and document ranking leaderboards' format, and what
Anserini and Pyserini write with ``--output-format msmarco``).  The documents of a query are
ordered by that rank.  Ids stay the exact text of the file.

A delimited reader would take the first line for a header (columns named ``1048585``,
``7187158``, ``1``), so the file is recognised by its shape: every one of its first lines has
three fields, the third a whole number that starts at 1 with each new query and grows by one
within it.  Columns: ``query doc rank`` (the workbench's role names).
"""

from __future__ import annotations

import csv
import io
import re

import numpy as np
import pandas as pd

from workbench.io.formats._common import almost, short, table
from workbench.io.formats.trec import _first_lines, _line_numbers

RUN = "msmarco_run"
COLUMNS = ("query", "doc", "rank")
EXPECTED = ("3 tab-separated fields 'qid pid rank' on every line (an MS MARCO run line: "
            "whole-number rank)")

_INT = re.compile(r"[0-9]+\Z")


def _fields(line: str) -> list[str]:
    return line.rstrip("\r").split("\t") if "\t" in line else line.split()


def sniff(text: str) -> str | None:
    """``RUN`` when the first lines (at least two) are an MS MARCO run, else None."""
    lines = _first_lines(text)
    if len(lines) < 2:
        return None
    previous = None
    for _, line in lines:
        fields = _fields(line)
        if len(fields) != 3 or not _INT.match(fields[2]) or not fields[0] or not fields[1]:
            return None
        rank = int(fields[2])
        expected = previous[1] + 1 if previous is not None and previous[0] == fields[0] else 1
        if rank != expected:
            return None
        previous = (fields[0], rank)
    return RUN


def load(text: str, path: str, shown: str):
    """The whole run: ids as text, the rank as a whole number (one sentence naming the line
    that does not fit)."""
    sep = "\t" if "\t" in text[:10_000] else r"\s+"
    try:
        raw = pd.read_csv(io.StringIO(text), sep=sep, header=None, names=[0, 1, 2],
                          dtype={0: object, 1: object, 2: object}, na_filter=False,
                          keep_default_na=False, engine="c" if sep == "\t" else "python",
                          quoting=csv.QUOTE_NONE, skip_blank_lines=True, index_col=False)
    except pd.errors.ParserError as err:
        match = re.search(r"line (\d+), saw (\d+)", str(err))
        line = int(match.group(1)) if match else None
        found = f"has {match.group(2)} fields" if match else "cannot be split into fields"
        raise almost(shown, line, found, EXPECTED) from None
    lines = _line_numbers(text, len(raw))
    empty = np.flatnonzero(((raw[0] == "") | (raw[1] == "") | (raw[2] == "")).to_numpy())
    if empty.size:
        row = int(empty[0])
        raise almost(shown, int(lines[row]), "has fewer than 3 fields", EXPECTED)
    rank_text = raw[2].astype(str).str.rstrip("\r")
    ranks = pd.to_numeric(rank_text.where(rank_text.str.fullmatch(r"[0-9]+")), errors="coerce")
    bad = np.flatnonzero(ranks.isna().to_numpy())
    if bad.size:
        row = int(bad[0])
        raise almost(shown, int(lines[row]), f"has the rank {short(rank_text.iloc[row])}, which "
                     "is not a whole number", EXPECTED)
    from workbench.io.cells import text_array

    frame = pd.DataFrame({"query": text_array(raw[0].to_numpy()),
                          "doc": text_array(raw[1].to_numpy()),
                          "rank": ranks.to_numpy(dtype=np.int64)})
    note = (f"Read as an MS MARCO run (qid pid rank, tab-separated, no header; columns query, "
            f"doc, rank): {len(frame):,} lines, {frame['query'].nunique():,} queries; ids kept "
            f"as text, documents ordered by rank (1 first), as MS MARCO's evaluation does.")
    return table(frame, path, fmt=RUN, notes=[note], row_lines=lines,
                 roles={"query": "query", "doc": "doc", "rank": "rank"}, panel="ranking",
                 row_word="line")
