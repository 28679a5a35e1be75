"""``workbench gate RULE.toml INPUT... [--json] [--xlsx PATH]``: a release gate for CI.

Judges the release rule on the input files and prints the decision card (a readable table, or
with ``--json`` the other analyses' JSON plus ``verdict``, ``rule`` and ``card``).  Exit status:
0 PASS, 1 FAIL, 3 INCONCLUSIVE, 2 a usage or data error (one sentence on stderr).

Which input a condition reads: the condition's ``input = N`` (1 = the first INPUT), else the one
input that has the columns and systems it needs (see :mod:`workbench.rules.spec`).
"""

from __future__ import annotations

import argparse
import json
import re
from dataclasses import replace

from ..core.errors import WorkbenchError

NAME = "gate"


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        NAME, help="judge a release rule: PASS, FAIL or INCONCLUSIVE (exit 0, 1 or 3)",
        description="Judge a release rule (TOML) on result files and print the decision card. "
                    "Exit 0 PASS, 1 FAIL, 3 INCONCLUSIVE, 2 a usage or data error.")
    p.add_argument("rule", metavar="RULE.toml", help="the release rule, written before the run")
    p.add_argument("inputs", metavar="INPUT", nargs="+",
                   help="result files (CSV/TSV/any delimited text, .xlsx or .parquet); a condition "
                        "reads the one with the columns it needs, or its `input = N`")
    p.add_argument("--sheet", help="XLSX sheet name for every .xlsx input (default: the first sheet)")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of the card")
    p.add_argument("--xlsx", metavar="PATH", help="also write the Excel report to PATH")
    p.add_argument("--registered-sha256", metavar="HEX",
                   help="the rule's SHA-256 recorded before the run; if the file's differs, the card "
                        "is marked 'rule changed after results were seen'")
    p.add_argument("--rule-changed-after-results", action="store_true",
                   help="mark the card 'rule changed after results were seen'")
    p.add_argument("--progress", action="store_true", help="report progress on stderr")
    return p


def run(args: argparse.Namespace) -> int:
    from ..core.progress import NULL_PROGRESS, TextProgress
    from ..io import load_table
    from ..rules import evaluate, exit_code, load_rule, render_text, to_json_dict

    progress = TextProgress() if args.progress else NULL_PROGRESS
    rule = load_rule(args.rule)
    changed = bool(args.rule_changed_after_results)
    extra_notes = []
    if args.registered_sha256 is not None:
        given = args.registered_sha256.strip().lower()
        if not re.fullmatch(r"[0-9a-f]{64}", given):
            raise WorkbenchError(f"--registered-sha256 must be 64 hexadecimal digits; got "
                                 f"'{args.registered_sha256}'.")
        if given != rule.sha256:
            changed = True
            extra_notes.append(f"The rule file's sha256 ({rule.sha256[:12]}...) differs from the "
                               f"registered one ({given[:12]}...).")
    writer = _report_writer() if args.xlsx is not None else None
    tables = [load_table(path, sheet=args.sheet if _is_workbook(path) else None, progress=progress)
              for path in args.inputs]
    result = evaluate(rule, tables, rule_changed_after_results=changed, progress=progress)
    load_notes = [f"Input {i + 1} '{t.name}': {note}" for i, t in enumerate(tables) for note in t.notes]
    result = replace(result, notes=tuple(extra_notes) + tuple(result.notes) + tuple(load_notes))
    if writer is not None:
        try:
            writer(args.xlsx, [result], source=tables, title=f"Release gate: {rule.name}")
        except OSError as err:
            raise WorkbenchError(f"The report '{args.xlsx}' cannot be written "
                                 f"({err.strerror or err}).") from None
    if args.json:
        print(json.dumps(to_json_dict(result), indent=2, ensure_ascii=False, allow_nan=False))
    else:
        print(render_text(result))
    return exit_code(result)


def _is_workbook(path: str) -> bool:
    from ..io.loader import EXCEL_EXTENSIONS

    return path.lower().endswith(EXCEL_EXTENSIONS)


def _report_writer():
    """``workbench.report.write_report``, or a clear error while it is not available."""
    try:
        from ..report import write_report
    except ImportError as err:
        raise WorkbenchError(f"The Excel report is not available in this installation "
                             f"(workbench.report cannot be imported: {err}); run the gate "
                             f"without --xlsx.") from None
    return write_report
