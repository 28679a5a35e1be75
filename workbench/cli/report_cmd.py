"""``workbench report SESSION -o report.xlsx``: the Excel report of a saved session.

Every analysis panel saved in the session is run again, with its saved options, on the
session's input file, and the results go into one workbook (see :mod:`workbench.report`).
The input must be the file the session saw: a missing file or a changed checksum is an error,
not a report of other numbers.
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import replace

NAME = "report"


def add_parser(sub) -> argparse.ArgumentParser:
    p = sub.add_parser("report", help="run a saved session's analyses and write the Excel report",
                       description="Run every analysis saved in SESSION on the session's input file "
                                   "and write one Excel workbook: a summary, one sheet per analysis, "
                                   "per-item sheets and charts.")
    p.add_argument("session", help="session file saved by the workbench (.json)")
    p.add_argument("-o", "--output", required=True, metavar="REPORT.xlsx",
                   help="the workbook to write (an earlier file there is replaced only once the new "
                        "one is complete)")
    p.add_argument("--title", help="title of the summary sheet (default: 'Evaluation report: INPUT')")
    p.add_argument("--progress", action="store_true", help="report progress on stderr")
    return p


def run(args: argparse.Namespace) -> int:
    from ..core.progress import NULL_PROGRESS, TextProgress
    from ..core.session import load_session
    from ..report import write_report

    progress = TextProgress() if args.progress else NULL_PROGRESS
    session = load_session(args.session)
    results, table, notes = session_results(session, args.session, progress)
    write_report(args.output, results, source=table, title=args.title, notes=notes)
    for note in notes:  # after the work: an error is then the only line on stderr
        if note.startswith("The session's panel"):
            print(f"workbench: warning: {note}", file=sys.stderr)
    names = ", ".join(r.analysis for r in results if r.analysis != "gate")
    gates = [r for r in results if r.analysis == "gate"]
    results = [r for r in results if r.analysis != "gate"]
    print(f"Report written to {os.path.abspath(args.output)} ({len(results)} "
          f"{'analysis' if len(results) == 1 else 'analyses'}: {names}"
          + (f"; release verdict {gates[0].value('verdict')}" if gates else "") + ").")
    return 0


def session_results(session, session_path, progress=None):
    """Run the session's panels: ``(results, loaded input or None, report notes)``."""
    from ..analyses import REGISTRY
    from ..core.errors import DataError
    from ..core.progress import NULL_PROGRESS

    progress = progress or NULL_PROGRESS
    where = f"Session '{session_path}'"
    if not session.panels:
        raise DataError(f"{where} has no saved analysis; open it in the workbench, run an analysis "
                        f"and save the session again.")
    notes = [f"Analyses re-run from session '{os.path.abspath(session_path)}'."]
    unknown = [name for name in session.panels if name not in REGISTRY]
    panels = [name for name in session.panels if name in REGISTRY]
    if not panels:
        raise DataError(f"{where} has no analysis this workbench can run "
                        f"({', '.join(session.panels)}).")
    for name in unknown:
        note = (f"The session's panel '{name}' is not an analysis this workbench knows; it is "
                f"left out of the report.")
        notes.append(note)
    table = None
    if any(name != "plan" for name in panels):
        table = _load_input(session, where, session_path, progress)
        if not session.input_sha256:
            notes.append("The session recorded no checksum of its input, so the file could not be "
                         "checked against the one the session saw.")
    if session.rule_text:
        notes.append(f"Release rule registered at {session.rule_registered_at or 'an unrecorded time'} "
                     f"(SHA-256 {session.rule_sha256 or 'not recorded'}).")
    if session.rule_changed_after_results:
        notes.append("The release rule was changed after results were seen.")
    results = []
    if session.rule_text:
        gate, note = _session_gate(session, table, session_path, progress)
        if gate is not None:
            results.append(gate)
        if note:
            notes.append(note)
            print(f"workbench: warning: {note}", file=sys.stderr)
    for name in panels:
        module = REGISTRY[name]
        try:
            options = session.options_for(name, module.Options)
        except TypeError as err:
            raise DataError(f"{where}: the saved options of '{name}' do not fit this workbench "
                            f"({err}).") from None
        if name == "plan":
            results.append(module.run(None, options, progress))
        else:
            result = module.run(table, options, progress)
            results.append(replace(result, input=table.path,
                                   notes=tuple(table.notes) + tuple(result.notes)))
    return results, table, notes


def _session_gate(session, table, session_path, progress):
    """The decision card of the session's release rule on its input: ``(gate result or None,
    note or None)``.  The card says whether the rule was registered before the results were
    seen (the session's registration time), or changed after."""
    import pandas as pd

    from ..core.errors import WorkbenchError
    from ..core.result import Table
    from ..rules import evaluate, parse_rule

    if table is None:
        return None, ("The session's release rule was not evaluated: the session has no input file "
                      "to judge it on.")
    try:
        rule = parse_rule(session.rule_text, source=f"the release rule of session '{session_path}'",
                          base_dir=os.path.dirname(os.path.abspath(session_path)))
        changed = bool(session.rule_changed_after_results) or bool(
            session.rule_sha256 and session.rule_sha256 != rule.sha256)
        gate = evaluate(rule, [table], rule_changed_after_results=changed, progress=progress)
    except WorkbenchError as err:
        return None, f"The session's release rule could not be evaluated, so there is no decision card: {err}"
    tables = []
    for t in gate.tables:
        if t.name == "rule":
            frame = t.frame[t.frame["field"].astype(str) != "registered"]
            extra = ([{"field": "registered", "value": session.rule_registered_at}]
                     if session.rule_registered_at else [{"field": "registration", "value": "unregistered"}])
            t = Table(t.name, t.title, pd.concat([frame, pd.DataFrame(extra)], ignore_index=True),
                      dict(t.columns), dict(t.formats))
        tables.append(t)
    gate = replace(gate, tables=tuple(tables), input=table.path,
                   notes=tuple(gate.notes) + tuple(f"Input: {n}" for n in table.notes))
    return gate, None


def _load_input(session, where: str, session_path, progress):
    from ..core.errors import DataError
    from ..core.session import changed_inputs
    from ..io import load_many, load_table

    path = session.input_path
    if not path:
        raise DataError(f"{where} names no input file; open it in the workbench and choose the "
                        f"file to analyse.")
    paths = [f["path"] for f in session.input_files] or [path]
    for one in paths:
        if not os.path.exists(one):
            raise DataError(f"The input file '{one}' named by session '{session_path}' does not "
                            f"exist; restore it there, or open the session in the workbench and choose "
                            f"the file again.")
    if len(paths) > 1:
        table = load_many(paths, progress=progress)
        changed = changed_inputs(session, table)
        if changed:
            raise DataError(f"Session '{session_path}': {'; '.join(changed)}, so the report would not "
                            f"show the numbers the session saw; restore the file, or re-run the analyses "
                            f"in the workbench and save the session again.")
    else:
        table = load_table(path, sheet=session.sheet, progress=progress)
        if session.input_sha256 and table.sha256 != session.input_sha256:
            raise DataError(f"The input file '{path}' has changed since session '{session_path}' was "
                            f"saved (its SHA-256 is now {table.sha256[:16]}..., the session recorded "
                            f"{session.input_sha256[:16]}...), so the report would not show the numbers "
                            f"the session saw; restore the file, or re-run the analyses in the workbench "
                            f"and save the session again.")
    return table
