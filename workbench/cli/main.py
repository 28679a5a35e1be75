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

from .. import __version__
from ..core.errors import WorkbenchError

ANALYSES = ("text", "ranking", "passk", "aggregate", "compare", "cost", "plan", "judge", "rubric", "runs", "repeats")

#: Further subcommands, each a module of this package with ``NAME``, ``add_parser(subparsers)``
#: and ``run(args) -> int`` (exit status).  Listed here, imported when the parser is built.
COMMAND_MODULES: tuple[str, ...] = ("gate_cmd", "report_cmd", "examples_cmd")
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

    def errored(p: argparse.ArgumentParser, failure: str) -> None:
        p.add_argument("--error", help="column marking rows that ended with an error (default: the "
                       "'error' column of an Inspect log or promptfoo results)")
        p.add_argument("--errored", default="exclude", choices=["exclude", "failure"],
                       help="rows that ended with an error: exclude = left out of every number, "
                            f"as Inspect does; failure = {failure} (default exclude)")

    def common(p: argparse.ArgumentParser, with_input: bool = True) -> None:
        if with_input:
            p.add_argument("input", nargs="+", help="per-item file(s): CSV/TSV/any delimited text, .xlsx, "
                           ".parquet, JSON/JSON Lines, TREC run, Inspect log, lm-eval samples, promptfoo "
                           "results; several files (runs, models) are stacked, each with its system")
            p.add_argument("--sheet", help="XLSX sheet name (default: the first sheet)")
        p.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
        p.add_argument("--progress", action="store_true", help="report progress on stderr")
        p.add_argument("--xlsx", metavar="PATH", help="also write the Excel report of the result to PATH")

    p = sub.add_parser("text", help="exact match, token F1, BLEU, chrF, ROUGE")
    common(p)
    p.add_argument("--prediction", help="prediction column (guessed: prediction, output, answer...)")
    p.add_argument("--reference", help="reference column (guessed: reference, gold, target...)")
    p.add_argument("--id", help="item id column (optional; duplicates are refused)")
    p.add_argument("--system", help="system column: scores per system (optional)")
    p.add_argument("--normalize", default="case_ws", choices=["none", "case_ws", "squad"],
                   help="exact-match/F1 normalisation (default case_ws: lower-case, collapse whitespace)")
    p.add_argument("--stemmer", action="store_true", help="ROUGE with the Porter stemmer (default off)")
    p.add_argument("--group", help="group column (a task): metrics per group, never pooled across "
                   "groups (default: an lm-eval file's task)")
    errored(p, "scored with an empty prediction")

    p = sub.add_parser("ranking", help="P@k, R@k, hit@k, nDCG@k, MRR, MAP")
    common(p)
    p.add_argument("--query", help="query id column")
    p.add_argument("--doc", help="document id column")
    p.add_argument("--score", help="score column, higher ranks first")
    p.add_argument("--rank", help="rank column, 1 first (instead of --score)")
    p.add_argument("--relevance", help="relevance grade column (blank = unjudged)")
    p.add_argument("--system", help="system/run column: metrics per system (optional)")
    p.add_argument("--qrels", help="judgments file with the same query/doc/relevance column names")
    p.add_argument("--k", default="1,3,5,10", help="cut-offs (default 1,3,5,10)")
    p.add_argument("--gain", default="linear", choices=["linear", "exponential"],
                   help="nDCG gain: linear = grade (trec_eval), exponential = 2^grade-1 (default linear)")
    p.add_argument("--ties", default="trec_eval", choices=["trec_eval", "stable"],
                   help="score ties: trec_eval = doc id descending, stable = file order (default trec_eval)")
    p.add_argument("--no-relevant", default="zero", choices=["zero", "skip"],
                   help="judged queries without a relevant doc: zero = kept, scored 0 (trec_eval); "
                        "skip = left out (default zero)")
    p.add_argument("--unjudged", default="skip", choices=["skip", "zero"],
                   help="retrieved queries without any judgment: skip = left out (trec_eval); "
                        "zero = kept, scored 0 (default skip)")
    p.add_argument("--relevance-threshold", type=float, default=1.0,
                   help="grade >= T is relevant for the binary metrics (default 1)")

    p = sub.add_parser("passk", help="unbiased pass@k and pass^k")
    common(p)
    p.add_argument("--task", help="task id column")
    p.add_argument("--n", help="attempts-per-task column (with --correct)")
    p.add_argument("--correct", help="passes-per-task column (with --n)")
    p.add_argument("--success", help="per-attempt 0/1 column (instead of --n/--correct)")
    p.add_argument("--system", help="system column (optional)")
    p.add_argument("--k", default="1,3,5,10", help="values of k (default 1,3,5,10)")
    errored(p, "counted as failed attempts")

    p = sub.add_parser("aggregate", help="micro vs macro, pooled vs mean of ratios, Simpson")
    common(p)
    p.add_argument("--outcome", help="0/1 outcome column (or scores in [0, 1])")
    p.add_argument("--group", help="group/segment column")
    p.add_argument("--version", help="version column: per-version table and Simpson check")
    p.add_argument("--numerator", help="numerator column (ratio form)")
    p.add_argument("--denominator", help="denominator column (ratio form)")
    p.add_argument("--unit", help="unit column (conversation, user...)")
    errored(p, "outcome 0 (a failure)")

    p = sub.add_parser("compare", help="paired significance of two systems")
    common(p)
    p.add_argument("--baseline", help="wide form: baseline column (0/1 outcome or any per-item score)")
    p.add_argument("--candidate", help="wide form: candidate column(s), comma-separated for several")
    p.add_argument("--item", help="item id column (duplicates refused)")
    p.add_argument("--cluster", help="cluster column: bootstrap resamples whole clusters")
    p.add_argument("--system", help="long form: system column")
    p.add_argument("--outcome", help="long form: 0/1 outcome column")
    p.add_argument("--score", help="long form: per-item score column (any numbers; same as --outcome)")
    p.add_argument("--baseline-system", help="long form: baseline system name (default: the first)")
    p.add_argument("--candidate-system", help="long form: candidate system name (default: every other)")
    p.add_argument("--scores", default="auto", choices=["auto", "binary", "continuous"],
                   help="test family: auto = binary when every value is 0/1 (default auto)")
    p.add_argument("--correction", default="holm", choices=["holm", "bonferroni", "none"],
                   help="correction for several comparisons (default holm)")
    p.add_argument("--rounds", type=int, default=10_000,
                   help="randomization-test rounds when not enumerated exactly (default 10000)")
    p.add_argument("--zero-method", default="wilcox", choices=["wilcox", "pratt", "zsplit"],
                   help="Wilcoxon zero handling (default wilcox: zero differences dropped)")
    p.add_argument("--better", default="higher", choices=["higher", "lower"],
                   help="which direction of the score is better (default higher)")
    p.add_argument("--resamples", type=int, default=10_000, help="bootstrap resamples (default 10000)")
    p.add_argument("--seed", type=int, default=12345, help="bootstrap seed (default 12345)")
    errored(p, "scored 0 (a failure)")

    p = sub.add_parser("cost", help="cost per success, marginal cost, latency percentiles")
    common(p)
    p.add_argument("--system", help="system column")
    p.add_argument("--success", help="0/1 success column")
    p.add_argument("--cost", help="cost-per-request column")
    p.add_argument("--latency", help="latency column (optional)")
    p.add_argument("--steps", help="an agent's steps per request (optional; guessed: steps, num_steps...)")
    p.add_argument("--tool-calls", help="tool calls per request (optional; guessed: tool_calls...)")
    p.add_argument("--tokens", help="tokens per request (optional; guessed: total_tokens, tokens...)")
    p.add_argument("--percentile-method", default="linear", choices=["linear", "nearest_rank"],
                   help="linear = numpy default (type 7); nearest_rank = ceil(pN)-th value (default linear)")
    errored(p, "counted as failed requests; their latency and cost are never used")

    p = sub.add_parser("plan", help="interval half-width, MDE, per-try rate (no input file)")
    common(p, with_input=False)
    p.add_argument("--rate", type=float, help="a success rate, as a fraction (with --n)")
    p.add_argument("--n", type=int, help="number of items")
    p.add_argument("--discordance", type=float, help="fraction of items the systems disagree on (with --n)")
    p.add_argument("--pass-at-k", type=float, help="an observed pass@k, as a fraction (with --k)")
    p.add_argument("--k", type=int, help="the k of --pass-at-k")
    p.add_argument("--target-difference", type=float, help="paired difference to detect (with --discordance)")
    p = sub.add_parser("judge", help="agreement of a judge with people: kappa, AC1, alpha, corrected pass rate")
    common(p)
    p.add_argument("--item", help="item id column (duplicates refused)")
    p.add_argument("--judge", help="the judge's label column (guessed: judge, judge_label, grader...)")
    p.add_argument("--human", action="append", help="a human label column (blank = not labelled); repeat "
                   "for several people; agreement and the correction use the first")
    p.add_argument("--positive", help="the label that means pass (exact text; guessed from pass, yes, true, 1...)")
    p.add_argument("--level", default="auto", choices=["auto", "nominal", "ordinal", "interval"],
                   help="labels' level for weighted kappa and Krippendorff's alpha (default auto: ordinal "
                        "for number grades with more than two values, else nominal)")
    p.add_argument("--swap-judge", help="the judge's verdicts (A or B) with the two answers in the other order "
                   "(position bias)")
    p.add_argument("--length-a", help="length of answer A (length bias, with --length-b)")
    p.add_argument("--length-b", help="length of answer B (length bias, with --length-a)")
    p = sub.add_parser("rubric", help="weighted yes/no criteria: score, pass rate per criterion, what moved it")
    common(p)
    p.add_argument("--item", help="item id column (duplicates refused)")
    p.add_argument("--criteria", help="wide form: the criterion columns, comma-separated, in the rubric's order")
    p.add_argument("--weights", help="weights in the order of the criteria, comma-separated (default: equal)")
    p.add_argument("--rubric", help="rubric file (CSV: criterion, weight, optional description) instead of --weights")
    p.add_argument("--system", help="system column: scores per system, paired against the baseline")
    p.add_argument("--baseline-system", help="baseline system name (default: the first in the file)")
    p.add_argument("--criterion", help="long form: the criterion-name column (with --verdict)")
    p.add_argument("--verdict", help="long form: the verdict column (with --criterion)")
    p.add_argument("--missing", default="skip", choices=["skip", "fail"],
                   help="a blank verdict: skip = leave that criterion out for that item and renormalise the "
                        "weights (default); fail = count it as a fail")
    p.add_argument("--resamples", type=int, default=10_000, help="bootstrap resamples (default 10000)")
    p.add_argument("--seed", type=int, default=12345, help="bootstrap seed (default 12345)")
    p = sub.add_parser("runs", help="many runs side by side: items gained and lost, tie groups")
    common(p)
    p.add_argument("--item", help="item id column (one value per run and item)")
    p.add_argument("--outcome", help="0/1 outcome column")
    p.add_argument("--score", help="score column (any numbers), instead of --outcome")
    p.add_argument("--system", help="run column (default: the system column, or each stacked file)")
    p.add_argument("--baseline-system", help="the baseline run (default: the first)")
    p.add_argument("--order", help="column that orders the runs (a time or version; default: file order)")
    p.add_argument("--groups", default="tukey", choices=["tukey", "holm"],
                   help="tie groups from the randomised Tukey HSD (default) or Holm-adjusted paired tests")
    p.add_argument("--better", default="higher", choices=["higher", "lower"],
                   help="which direction of the score is better (default higher)")
    p.add_argument("--rounds", type=int, default=10_000,
                   help="randomised Tukey HSD and randomization-test rounds (default 10000)")
    p.add_argument("--resamples", type=int, default=10_000, help="bootstrap resamples (default 10000)")
    p.add_argument("--seed", type=int, default=12345, help="seed of the bootstrap and permutations (default 12345)")
    p = sub.add_parser("repeats", help="repeated tries of the same items: flips and the model's own noise")
    common(p)
    p.add_argument("--item", help="item id column")
    p.add_argument("--outcome", help="0/1 outcome or score in [0, 1] column")
    p.add_argument("--repeat", help="repeat / epoch / seed column (default: an item's rows are its tries)")
    p.add_argument("--system", help="system column: a split per system, and paired against the baseline")
    p.add_argument("--baseline-system", help="baseline system name (default: the first)")
    p.add_argument("--target", type=float, default=0.02,
                   help="95%% half-width to plan items and repeats for, a fraction (default 0.02 = 2 points)")
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
    options = _options(module, args)
    check = getattr(module, "check_options", None)
    if check is not None:  # every option, before the input is read
        check(options)
    progress = TextProgress() if args.progress else NULL_PROGRESS
    if args.analysis == "plan":
        result = module.run(None, options, progress)
    else:
        from ..io import load_many
        from ..io.formats import with_roles

        table = load_many(args.input, sheet=args.sheet, progress=progress)
        options, role_notes = with_roles(options, table)  # the roles a format suggests (TREC, Inspect...)
        result = module.run(table, options, progress)
        result = _with_input(result, " ".join(args.input), table.notes + tuple(role_notes))
    if args.xlsx is not None:  # an empty name is refused by the writer, never ignored
        from ..report import write_report

        write_report(args.xlsx, [result], source=None if args.analysis == "plan" else table)
    if args.json:
        print(json.dumps(result.to_json_dict(), indent=2, ensure_ascii=False, allow_nan=False))
    else:
        print(render_text(result))
    return EXIT_OK


def _with_input(result, path: str, load_notes):
    from dataclasses import replace

    return replace(result, input=path, notes=tuple(load_notes) + tuple(result.notes))


def render_text(result) -> str:
    """A readable table of the headline records (every number formatted by the shared policy of
    :mod:`workbench.report.present`, as on screen and in the report), then the answer, the
    notes and the signature."""
    from ..report.present import answer, display_name, format_interval, format_value, record_kind

    keys = ["system", "group", "version", "from", "to", "groups"]
    present = [k for k in keys if any(r.get(k) is not None for r in result.records)]
    with_ci = any(r.get("ci_low") is not None for r in result.records)
    heads = ["metric", "name", *present, "value"] + (["95% CI"] if with_ci else []) + ["n"]
    rows = []
    for rec in result.records:
        kind = record_kind(result, rec)
        row = [rec["metric"], display_name(rec["metric"])]
        row += ["" if rec.get(k) is None else str(rec[k]) for k in present]
        row.append(format_value(rec.get("value"), kind))
        if with_ci:
            row.append(format_interval(rec["ci_low"], rec["ci_high"], kind)
                       if rec.get("ci_low") is not None and rec.get("ci_high") is not None else "")
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
    out += ["", *(f"answer: {s}" for s in answer(result).sentences)]
    if result.notes:
        out.append("")
        out += [f"note: {n}" for n in result.notes]
    out += ["", f"signature: {result.signature}"]
    return "\n".join(out)


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
