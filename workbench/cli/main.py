"""The headless command line: ``workbench ANALYSIS INPUT [flags]`` and ``workbench plan``.

    workbench ANALYSIS INPUT [flags]  run text, ranking, passk, aggregate, compare or cost
    workbench plan [flags]            planning, no input file

Exit status: 0 success, 2 a user error (one sentence on stderr, no traceback), 130 when
interrupted (Ctrl-C), 143 terminated (SIGTERM while a report was written).  Every option is
checked (type and range) before the input is read.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import fields

from .. import __version__, catalog
from ..core.errors import WorkbenchError
from . import flags

ANALYSES = catalog.names()

#: Further subcommands, each a module of this package with ``NAME``, ``add_parser(subparsers)``
#: and ``run(args) -> int`` (exit status).  Listed here, imported when the parser is built.
COMMAND_MODULES: tuple[str, ...] = ("describe_cmd", "items_cmd", "gate_cmd", "baseline_cmd", "report_cmd",
                                     "examples_cmd")
EXIT_OK, EXIT_USAGE, EXIT_INTERRUPTED = 0, 2, 130


class UsageError(WorkbenchError):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one sentence, no usage dump; main() adds "workbench: "
        if message.startswith("argument analysis: invalid choice"):
            word = message.split("'")[1] if message.count("'") >= 2 else ""
            raise UsageError(unknown_word_sentence(word))
        raise UsageError(f"{message} (see '{self.prog} --help').")


def known_commands() -> list[str]:
    """The first words the command line knows: the analyses, then the other subcommands."""
    return list(ANALYSES) + [name.removesuffix("_cmd") for name in COMMAND_MODULES]


def unknown_word_sentence(word: str) -> str:
    """One sentence for a first word that is neither a command nor a file: the nearest name."""
    import difflib

    names = known_commands()
    word = escape_controls(word)
    close = difflib.get_close_matches(word.lower(), names, n=1, cutoff=0.6)
    listed = f"analyses and commands: {', '.join(names)}; see 'workbench --help'"
    if close:
        return (f"'{word}' is neither an analysis nor an existing file: did you mean "
                f"'{close[0]}'? ({listed})")
    return f"'{word}' is neither an analysis nor an existing file ({listed})."


def build_parser() -> argparse.ArgumentParser:
    top = _Parser(prog="workbench", description="Eval Workbench: evaluation numbers with their "
                  "denominators and conventions.  'workbench' alone starts the desktop workbench, "
                  "'workbench FILE' starts it on a file; 'workbench ANALYSIS INPUT [flags]' runs "
                  "one analysis headless.",
                  epilog="Exit status: 0 success, 2 a usage or data error (one sentence on "
                         "stderr), 130 interrupted; gate: 1 FAIL, 3 INCONCLUSIVE.")
    top.add_argument("--version", action="version", version=f"workbench {__version__}")
    top.add_argument("--self-test", action="store_true",
                     help="check this installation end to end (offscreen: every example, the "
                          "user guide and the report); exit 0 = fine")
    sub = top.add_subparsers(dest="analysis", required=True, parser_class=_Parser)

    for analysis in catalog.ANALYSES:
        getattr(flags, analysis.name)(sub.add_parser(analysis.name, help=analysis.help))
    for module in _command_modules():
        module.add_parser(sub)
    return top


def _command_modules():
    import importlib

    return [importlib.import_module(f"{__package__}.{name}") for name in COMMAND_MODULES]


def _options(module, args: argparse.Namespace):
    """Build the analysis's Options from the parsed flags (names match by construction)."""
    mapping = {"ks": "k"}
    kwargs = {}
    for f in fields(module.Options):
        flag = mapping.get(f.name, f.name)
        if hasattr(args, flag):
            kwargs[f.name] = getattr(args, flag)
    return module.Options(**kwargs)


def run_cli(argv: list[str]) -> int:
    from ..analyses import REGISTRY
    from ..core.progress import NULL_PROGRESS, TextProgress

    args = build_parser().parse_args(argv)
    for command in _command_modules():
        if args.analysis == command.NAME:
            return command.run(args)
    module = REGISTRY[args.analysis]
    pair_notes = _qrels_among_inputs(args)
    labels = _labels_given(args) if args.analysis != "plan" else []
    options = _options(module, args)
    check = getattr(module, "check_options", None)
    if check is not None:  # every option, before the input is read
        check(options)
    progress = TextProgress() if args.progress else NULL_PROGRESS
    table = None
    if args.analysis == "plan":
        result = module.run(None, options, progress)
    else:
        from ..io import load_many

        unloaded = None if getattr(args, "conventions", False) else \
            getattr(module, "run_unloaded", None)  # an engine that reads the file itself
        result = unloaded(args.input, options, progress) if unloaded is not None else None
        table = None
        if result is None:
            from ..analyses import reading

            table = load_many(args.input, sheet=args.sheet, progress=progress)
            # the roles a format suggests (TREC, Inspect...) and the reading's decisions
            applied = reading.prepare(args.analysis, table, options, reading_of(args), labels=labels)
            result = reading.execute(module, applied, progress)
            if getattr(args, "conventions", False):  # only when asked: one more run per convention
                from ..analyses.conventions import with_conventions

                result = with_conventions(result, applied.table, applied.options, progress)
            result = reading.finish(result, applied)
        result = _with_input(result, " ".join(args.input), pair_notes
                             + (table.notes if table is not None else ()))
    if args.xlsx is not None:  # an empty name is refused by the writer, never ignored
        from ..report import write_report

        write_report(args.xlsx, [result], source=table)
    if args.json:
        print(dumps_result(result.to_json_dict()))
    else:
        print(render_text(result))
    return EXIT_OK


def reading_of(args: argparse.Namespace):
    """The reading of the file the flags ask for: ``--scorer``, ``--errors`` (``--errored
    failure``, the older flag, means ``--errors fail``) and the judge's ``--label-map``."""
    from ..analyses.judge_input import parse_label_map
    from ..analyses.reading import Reading

    errors = getattr(args, "errors", None)
    if errors is None:
        errors = "fail" if getattr(args, "errored", "exclude") == "failure" else "exclude"
    return Reading(scorer=getattr(args, "scorer", None), errors=errors,
                   label_map=parse_label_map(getattr(args, "label_map", None)))


def _labels_given(args: argparse.Namespace) -> list:
    """The Judge's files of people's labels: ``--human FILE`` values that are files, and a
    Label Studio export given among the inputs; taken out of the columns and inputs."""
    import os

    from ..io import load_table

    if args.analysis != "judge":
        return []
    labels = []
    columns = []
    for value in getattr(args, "human", None) or []:
        if os.path.isfile(value):
            labels.append(load_table(value))
        else:
            columns.append(value)
    args.human = columns or None
    if len(args.input) > 1:
        kept = []
        for path in args.input:
            loaded = load_table(path) if os.path.isfile(path) else None
            if loaded is not None and loaded.format == "label-studio":
                labels.append(loaded)
            else:
                kept.append(path)
        args.input = kept or args.input
    return labels


def _qrels_among_inputs(args: argparse.Namespace) -> tuple[str, ...]:
    """``workbench ranking RUN QRELS`` (or trec_eval's order, QRELS RUN) without ``--qrels``:
    the qrels among the files is taken as ``--qrels`` (:func:`workbench.io.run_files.
    split_qrels`) instead of being stacked with the runs; the note that says so."""
    if args.analysis != "ranking" or getattr(args, "qrels", None) or len(args.input) < 2:
        return ()
    from ..io.run_files import split_qrels

    runs, qrels = split_qrels(list(args.input))
    if qrels is None:
        return ()
    args.input, args.qrels = runs, qrels
    return (f"File '{qrels}' was taken as the qrels (the judgments) of the "
            f"{'run' if len(runs) == 1 else 'runs'} given with it, as --qrels gives it.",)


def dumps_result(doc: dict) -> str:
    """The --json document, indented; a table's rows one per line (the C encoder: indenting
    400,000 rows field by field takes seconds, one line per row a fraction of that)."""
    def dump(obj, **kw) -> str:
        return json.dumps(obj, ensure_ascii=False, allow_nan=False, **kw)

    tables = doc.get("tables")
    head = dump({k: v for k, v in doc.items() if k != "tables"}, indent=2)
    if tables is None:
        return head
    parts = [f"    {dump(name)}: [" + ",".join("\n      " + dump(row) for row in rows) + ("\n    ]" if rows else "]")
             for name, rows in tables.items()]
    return head[:-2] + ',\n  "tables": {\n' + ",\n".join(parts) + ("\n  }\n}" if parts else "}\n}")


def _with_input(result, path: str, load_notes):
    from dataclasses import replace

    return replace(result, input=path, notes=tuple(load_notes) + tuple(result.notes))


def render_text(result) -> str:
    """A readable table of the headline records (every number formatted by the shared policy of
    :mod:`workbench.report.present`, as on screen and in the report), then the answer, the
    notes and the signature."""
    from ..report.present import (answer, bounds_shown, record_name, format_interval, format_value, method_label,
                                  record_kind)

    keys = ["system", "group", "by", "version", "from", "to", "groups"]
    present = [k for k in keys if any(r.get(k) is not None for r in result.records)]
    with_ci = any(r.get("ci_low") is not None for r in result.records)
    heads = ["metric", "name", *present, "value"] + (["95% CI", "interval"] if with_ci else []) + ["n"]
    rows = []
    for rec in result.records:
        if rec.get("convention") is not None:
            continue  # shown in the conventions table below
        kind = record_kind(result, rec)
        row = [rec["metric"], record_name(rec)]
        row += ["" if rec.get(k) is None else str(rec[k]) for k in present]
        row.append(format_value(rec.get("value"), kind))
        if with_ci:  # (an interval whose bounds read the same is no interval: none shown); its method named
            shown = bounds_shown(rec, kind)
            row.append(format_interval(rec["ci_low"], rec["ci_high"], kind) if shown else "")
            row.append(method_label(rec.get("ci_method")) if shown else "")
        row.append("" if rec.get("n") is None else format_value(rec["n"], "count"))
        rows.append(row)
    widths = [max([len(h)] + [len(row[i]) for row in rows]) for i, h in enumerate(heads)]
    right = {"value", "95% CI", "n"}

    def line(cells):
        return "  ".join(c.rjust(w) if h in right else c.ljust(w)
                         for c, w, h in zip(cells, widths, heads)).rstrip()

    out = [f"{result.analysis}: {result.input or ''}".rstrip(": "), line(heads),
           line(["-" * w for w in widths])]
    out += [line(r) for r in rows]
    out += _conventions_text(result)
    out += ["", *(f"answer: {s}" for s in answer(result).sentences)]
    if result.notes:
        out.append("")
        out += [f"note: {n}" for n in result.notes]
    out += ["", f"signature: {result.signature}"]
    return "\n".join(out)


def _conventions_text(result) -> list[str]:
    """The conventions table (``--conventions``), one line per convention and headline metric."""
    from ..analyses.conventions import TABLE
    from ..report.present import format_interval, format_value, kind_of

    if not any(t.name == TABLE for t in result.tables):
        return []
    frame = result.table(TABLE).frame
    heads = ["metric", "convention", "value", "95% CI", "p", "n", "verdict holds"]
    rows = []
    for _, r in frame.iterrows():
        kind = kind_of(str(r["metric"]))
        ci = (format_interval(r["ci_low"], r["ci_high"], kind)
              if pd_notna(r.get("ci_low")) and pd_notna(r.get("ci_high")) else "")
        holds = "" if not pd_notna(r.get("holds")) else ("yes" if r["holds"] else "no")
        rows.append([str(r["metric"]), str(r["convention"]), format_value(r["value"], kind), ci,
                     format_value(r["p"], "p") if pd_notna(r.get("p")) else "",
                     format_value(r["n"], "count") if pd_notna(r.get("n")) else "", holds])
    widths = [max([len(h)] + [len(row[i]) for row in rows]) for i, h in enumerate(heads)]
    line = lambda cells: "  ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip()  # noqa: E731
    return ["", "conventions (one changed at a time):", line(heads), line(["-" * w for w in widths]),
            *(line(r) for r in rows)]


def pd_notna(value) -> bool:
    import math

    if value is None:
        return False
    try:
        return not math.isnan(float(value))
    except (TypeError, ValueError):
        return True


def main(argv: list[str] | None = None) -> int:
    """Run one headless command; returns the exit status."""
    if argv is None:
        quiet_warnings()
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        return run_cli(argv)
    except WorkbenchError as err:
        print(f"workbench: {one_line(str(err))}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:  # Ctrl-C: one line, no traceback (a report being written is removed)
        print("workbench: interrupted.", file=sys.stderr)
        return EXIT_INTERRUPTED
    except MemoryError:
        print("workbench: there is not enough memory for this input; try a smaller file or a "
              "machine with more memory.", file=sys.stderr)
        return EXIT_USAGE
    except SystemExit as exit_:  # --help / --version; SIGTERM while a report was written
        if getattr(exit_, "signum", None) is not None:
            print("workbench: terminated.", file=sys.stderr)
        return int(exit_.code or 0)
    except BrokenPipeError:  # the reader went away (| head): not an error of ours
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK


def quiet_warnings() -> None:
    """As a program, print no library warnings (each would be more lines on stderr around the
    one sentence; what matters to the user is a note on the result); ``-W`` or
    ``PYTHONWARNINGS`` still show them."""
    import warnings

    if not sys.warnoptions:
        warnings.simplefilter("ignore")


def one_line(text: str) -> str:
    """A message on one line: line breaks pasted in from a library become one space each; any
    other control or line-separating character (from a quoted cell, say: U+0085, U+2028, ESC)
    is shown escaped, so it can neither break the line nor drive the terminal."""
    import re

    return escape_controls(re.sub(r"[ \t]*(?:\r\n|\r|\n)+[ \t]*", " ", text).strip())


def escape_controls(text: str) -> str:
    """Control and line-separating characters as escapes (``\\r``, ``\\x85``); tabs kept."""
    import unicodedata

    return "".join(ch if ch == "\t" or unicodedata.category(ch) not in ("Cc", "Zl", "Zp")
                   else ch.encode("unicode_escape").decode("ascii") for ch in text)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
