"""``workbench items FILE... -o items.csv|items.parquet|items.xlsx [--wide]``: any log written
out as one flat table (the workbench items layout: one row per item, repeat, system and scorer,
or with ``--wide`` one column per scorer; statuses and usage beside them; ids as exact text),
which the workbench opens again as the same evaluation."""

from __future__ import annotations

import argparse

NAME = "items"


def add_parser(sub) -> argparse.ArgumentParser:
    p = sub.add_parser(NAME, help="write any log out as one flat table of items (CSV, Parquet or XLSX)",
                       description="Write the files' records as one flat table: one row per item, repeat, "
                                   "system and scorer (or, with --wide, one column per scorer), with each "
                                   "record's status, error and usage, ids as exact text. The workbench opens "
                                   "the table again as the same evaluation (every analysis gives the same "
                                   "numbers). The file is written whole or not at all.")
    p.add_argument("input", nargs="+", help="the file(s) or folder(s), as the analyses take them")
    p.add_argument("-o", "--output", required=True, metavar="OUT",
                   help="the table to write: .csv, .parquet or .xlsx")
    p.add_argument("--wide", action="store_true", help="one row per record and one column per scorer "
                   "(default: one row per record and scorer)")
    p.add_argument("--sheet", help="XLSX sheet name of the input (default: the first sheet)")
    p.add_argument("--json", action="store_true", help="print what was written as one JSON object")
    return p


def run(args: argparse.Namespace) -> int:
    import json

    from ..analyses.items import write_items
    from ..io import load_many

    table = load_many(args.input, sheet=args.sheet)
    written = write_items(table, args.output, wide=args.wide)
    if args.json:
        print(json.dumps({"output": written.path, "rows": written.rows, "records": written.records,
                          "scorers": written.scorers, "layout": written.layout}, indent=2))
    else:
        print(written.sentence())
    return 0
