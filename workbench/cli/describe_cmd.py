"""``workbench describe FILE... [--json]``: what the files hold (systems or runs with their
configuration, items, repeats, scorers with their kind and scored/unscored counts, annotators,
errors and limits by kind, usage) and what the workbench chose to read them with."""

from __future__ import annotations

import argparse

NAME = "describe"


def add_parser(sub) -> argparse.ArgumentParser:
    p = sub.add_parser(NAME, help="what a file holds: systems, items, repeats, scorers, statuses, usage",
                       description="Say what the files hold, as every analysis reads them: systems or "
                                   "runs and their configuration, items and repeats per item, scorers "
                                   "(kind, scale, scored and unscored records), annotators, errors and "
                                   "limits by kind, usage; and the scorer, error policy and unit chosen.")
    p.add_argument("input", nargs="+", help="the file(s) or folder(s), as the analyses take them")
    p.add_argument("--sheet", help="XLSX sheet name (default: the first sheet)")
    p.add_argument("--scorer", metavar="NAME", help="the scorer to read the file with (default: the "
                   "tool's own primary scorer)")
    p.add_argument("--errors", choices=["exclude", "fail"], default="exclude",
                   help="records that ended with an error: left out and counted (default) or failures")
    p.add_argument("--json", action="store_true", help="print one JSON object (records and tables)")
    return p


def run(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from ..analyses import describe
    from ..analyses.reading import Reading
    from ..io import load_many
    from .main import dumps_result

    table = load_many(args.input, sheet=args.sheet)
    result = describe.run(table, Reading(scorer=args.scorer, errors=args.errors))
    result = replace(result, input=" ".join(args.input), notes=tuple(table.notes) + result.notes)
    print(dumps_result(result.to_json_dict()) if args.json else describe.describe_text(result))
    return 0
