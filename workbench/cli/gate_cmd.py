"""``workbench gate RULE.toml INPUT... [--json] [--xlsx PATH] [--junit FILE] [--markdown FILE]``:
a release gate for CI; ``workbench gate RULE.toml RUN --baseline NAME [--dir DIR]``: the new run
against a blessed baseline (``workbench baseline bless``), answered in a tier.

Judges the release rule on the input files and prints the decision card (a readable table, or
with ``--json`` the other analyses' JSON plus ``verdict``, ``rule`` and ``card``).  Exit status:
0 PASS, 1 FAIL, 3 INCONCLUSIVE, 2 a usage or data error (one sentence on stderr).  With
``--baseline`` the exit status follows the tier (:mod:`workbench.rules.tiers`): improvement,
stable and soft regression 0 (a soft regression printed as a warning), regression 1,
insufficient data and baseline unreliable 3; the JSON has the field ``tier``.

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


TIERS_HELP = (
    "With --baseline NAME the run is compared item by item (paired on the item id; items in only "
    "one run are counted and named) with the blessed baseline, the rule's criteria judged with the "
    "baseline as baseline and the run as candidate, and the answer is the first tier that applies: "
    "baseline unreliable (exit 3: the stored copy's SHA-256 is not the one recorded at bless, or the "
    "run's conventions - file format, item and outcome columns, 0/1 or scores - differ); "
    "regression (exit 1: a criterion FAILs, e.g. a drop beyond max_drop); insufficient data (exit "
    "3: no shared item, or a criterion is INCONCLUSIVE - too few shared items for the rule's minimum "
    "detectable difference); improvement (exit 0: all pass and the first paired criterion is "
    "significantly better, difference > 0 and Holm p < alpha); soft regression (exit 0, printed "
    "as a warning: all pass but that difference is significantly < 0, inside the margin the rule "
    "allows); stable (exit 0: otherwise, a drop inside the noise included). The items right before and wrong now are listed.")


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        NAME, help="judge a release rule: PASS, FAIL or INCONCLUSIVE (exit 0, 1 or 3); with "
                   "--baseline, a run against a blessed baseline in tiers",
        description="Judge a release rule (TOML) on result files and print the decision card. "
                    "Exit 0 PASS, 1 FAIL, 3 INCONCLUSIVE, 2 a usage or data error. " + TIERS_HELP)
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
    p.add_argument("--scorer", metavar="NAME",
                   help="the scorer of a tool's log whose values are the outcome (default: the rule's "
                        "[rule] scorer, else the tool's own primary scorer; 'workbench describe FILE' lists them)")
    p.add_argument("--errors", choices=["exclude", "fail"], default=None,
                   help="records that ended with an error: exclude = left out and counted (default, "
                        "or the rule's [rule] errors); fail = counted as failures by the success conditions")
    p.add_argument("--conventions", action="store_true",
                   help="also judge the rule with each convention its conditions state (gain, ties, "
                        "no-relevant and unjudged policies, relevance threshold, percentile method) "
                        "changed, one at a time, and say under how many the verdict holds")
    p.add_argument("--baseline", metavar="NAME",
                   help="compare the one INPUT (the new run) with this blessed baseline and answer "
                        "in a tier (see above)")
    p.add_argument("--dir", metavar="DIR",
                   help="the baselines folder (default: .workbench/baselines next to the rule, "
                        "then in the current folder)")
    p.add_argument("--junit", metavar="FILE",
                   help="also write JUnit XML: one test case per criterion (plus one for the "
                        "baseline comparison), the failure message being the sentence")
    p.add_argument("--markdown", metavar="FILE",
                   help="also write a Markdown summary for a pull request comment")
    return p


def run(args: argparse.Namespace) -> int:
    from ..core.progress import NULL_PROGRESS, TextProgress
    from ..io import load_table
    from ..rules import evaluate, exit_code, load_rule, render_text, to_json_dict

    progress = TextProgress() if args.progress else NULL_PROGRESS
    if args.dir is not None and args.baseline is None:
        raise WorkbenchError("--dir names the baselines folder and needs --baseline NAME.")
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
    if args.baseline is not None:
        return run_against_baseline(args, rule, changed, extra_notes, writer, progress)
    tables = [load_table(path, sheet=args.sheet if _is_workbook(path) else None, progress=progress)
              for path in args.inputs]
    from ..rules.evaluate import rule_reading

    from ..analyses.reading import Reading

    reading, reading_notes = rule_reading(rule, Reading(), scorer=args.scorer, errors=args.errors)
    extra_notes += reading_notes
    result = evaluate(rule, tables, rule_changed_after_results=changed, progress=progress, reading=reading,
                      reading_from_rule=False)
    if args.conventions:  # only when asked: one more judgement per convention
        from ..rules.conventions import with_conventions

        result = with_conventions(rule, tables, result, progress, reading=reading, reading_from_rule=False)
    load_notes = [f"Input {i + 1} '{t.name}': {note}" for i, t in enumerate(tables) for note in t.notes]
    result = replace(result, notes=tuple(extra_notes) + tuple(result.notes) + tuple(load_notes))
    if writer is not None:
        try:
            writer(args.xlsx, [result], source=tables, title=f"Release gate: {rule.name}")
        except OSError as err:
            raise WorkbenchError(f"The report '{args.xlsx}' cannot be written "
                                 f"({err.strerror or err}).") from None
    _ci_files(args, rule, result)
    if args.json:
        print(json.dumps(to_json_dict(result), indent=2, ensure_ascii=False, allow_nan=False))
    else:
        print(render_text(result))
    return exit_code(result)


def _ci_files(args, rule, result, report=None) -> None:
    """--junit and --markdown, each written atomically."""
    from ..rules import card_rows, ci_output, verdict_of

    if args.junit is None and args.markdown is None:
        return
    rows = card_rows(result) if result is not None else []
    if report is not None:
        criteria = report.criteria
        tier = {"tier": report.tier, "sentence": report.sentence, "baseline": report.baseline.name,
                "exit_code": str(report.exit_code)}
        items, sig = report.items, report.signature
        title = f"Release gate: {rule.name} against baseline '{report.baseline.name}'"
    else:
        criteria = [{"index": int(r["index"]), "name": f"{r['index']}. {r['condition']}",
                     "status": r["status"], "message": f"{r['status']}: {r['reason']}"} for r in rows]
        tier, items, sig = None, None, result.signature
        title = f"Release gate: {rule.name}: {verdict_of(result)}"
    if args.junit is not None:
        ci_output.write(args.junit, ci_output.junit_xml(rule.name, criteria, tier), "JUnit file")
    if args.markdown is not None:
        ci_output.write(args.markdown, ci_output.markdown(title, criteria, tier=tier, rows=rows, items=items,
                                                          signature=sig), "Markdown summary")


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


def run_against_baseline(args, rule, changed: bool, extra_notes: list[str], writer, progress) -> int:
    """``--baseline NAME``: the one INPUT against the blessed run; the exit status is the tier's."""
    import sys
    from dataclasses import replace as _replace

    from ..io import load_table
    from ..rules import baseline as bl
    from ..rules.tiers import SOFT, gate_against

    if len(args.inputs) != 1:
        raise WorkbenchError(f"--baseline compares one run with the blessed one; {len(args.inputs)} "
                             f"INPUT files were given ({', '.join(args.inputs[:3])}).")
    folders = [args.dir] if args.dir is not None else [bl.default_dir(args.rule), bl.default_dir()]
    baseline = bl.find(args.baseline, folders)
    path = args.inputs[0]
    run_table = load_table(path, sheet=args.sheet if _is_workbook(path) else None, progress=progress)
    from ..analyses.reading import Reading
    from ..rules.evaluate import rule_reading

    # the reading the baseline was blessed under, where neither the command line nor the rule says
    blessed = {k: v for k, v in baseline.reading.items()
               if getattr(args, k) is None and getattr(rule, k, None) is None}
    reading, reading_notes = rule_reading(rule, Reading(), scorer=args.scorer or blessed.get("scorer"),
                                          errors=args.errors or blessed.get("errors"))
    if blessed:
        said = " and ".join(f"{'scorer' if k == 'scorer' else 'errored records'} "
                            f"{repr(v) if k == 'scorer' else ('left out' if v == 'exclude' else 'as failures')}"
                            for k, v in blessed.items())
        reading_notes.append(f"Both files are read with the {said} baseline '{baseline.name}' was blessed "
                             "under (--scorer / --errors choose otherwise).")
    extra_notes = list(extra_notes) + reading_notes
    report = gate_against(rule, baseline, run_table, rule_changed_after_results=changed, progress=progress,
                          reading=reading)
    report.notes[:0] = list(extra_notes) + [f"Run '{run_table.name}': {n}" for n in run_table.notes]
    if report.result is not None and report.notes:
        report.result = _replace(report.result, notes=tuple(report.notes) + tuple(report.result.notes))
    if writer is not None and report.result is not None:
        try:
            writer(args.xlsx, [report.result], source=[run_table], title=f"Release gate: {rule.name}")
        except OSError as err:
            raise WorkbenchError(f"The report '{args.xlsx}' cannot be written "
                                 f"({err.strerror or err}).") from None
    _ci_files(args, rule, report.result, report)
    if report.tier == SOFT:
        print(f"workbench: warning: {report.sentence}", file=sys.stderr)
    if args.json:
        print(json.dumps(report.to_json_dict(), indent=2, ensure_ascii=False, allow_nan=False))
    else:
        print(render_baseline_text(report))
    return report.exit_code


def render_baseline_text(report, limit: int = 50) -> str:
    """The card (when evaluated), then the tier, its sentence and the items that changed."""
    from ..rules import render_text

    out = [render_text(report.result), ""] if report.result is not None else []
    b = report.baseline
    out.append(f"baseline: '{b.name}' blessed {b.blessed_at}, sha256 {b.sha256[:12]}, "
               f"{b.n_items if b.n_items is not None else b.n_rows:,} items, from {b.source}")
    out.append(f"TIER: {report.tier} (exit {report.exit_code})")
    out.append(("warning: " if report.tier == "soft regression" else "") + report.sentence)
    items = report.items
    if "shared" in items:
        out.append(f"items: {items['shared']:,} shared, {items['only_in_baseline_count']:,} only in the "
                   f"baseline, {items['only_in_run_count']:,} only in the run")
        for key, head in (("only_in_baseline", "only in the baseline"), ("only_in_run", "only in the run")):
            if items[key]:
                out.append(f"  {head}: {_listed(items[key], limit)}")
    if "regressions" in items:
        out.append(f"regressions (right before, wrong now): {items['regressions_count']:,}"
                   + (f": {_listed(items['regressions'], limit)}" if items["regressions"] else ""))
        out.append(f"gained (wrong before, right now): {items['gained_count']:,}")
    elif items.get("note"):
        out.append(f"note: {items['note']}")
    if report.result is None:
        out += [f"note: {n}" for n in report.notes]
    out.append(f"signature: {report.signature}")
    return "\n".join(out)


def _listed(ids, limit: int) -> str:
    more = f" ... and {len(ids) - limit:,} more (see --json)" if len(ids) > limit else ""
    return ", ".join(map(str, ids[:limit])) + more
