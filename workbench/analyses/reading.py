"""One reading of a file, shared by every analysis: the decisions made once about what the file
holds (which scorer, what an errored record counts as, how an item's repeats count).

A reader declares what its file holds (:mod:`workbench.io.evaluation`); a plain table gets the
same declaration inferred from its columns' roles (:func:`evaluation_of`).  The user's
decisions are a :class:`Reading`:

- the **scorer**: by default the tool's own primary one (Inspect's headline scorer, lm-eval's
  first metric of the task, promptfoo's pass); the chosen scorer's column becomes the
  outcome (0/1) or score of every analysis;
- the **errors**: records that ended with an error are left out and counted (``exclude``, as
  Inspect does), or counted as failures (``fail``);
- the **unit** is the item: an analysis whose rows are items (``items_as_rows`` in
  :mod:`workbench.catalog`: compare, aggregation, runs...) gets each item's repeats reduced as
  the tool reduces them (the mean of an item's tries: Inspect's default epoch reducer), never
  each repeat as an item.

:func:`run` applies them, runs the analysis and names them in the result: its notes, its
signature (``scorer:``, ``errors:``, ``unit:``) and so its card and report sheet.  The command
line, the window, the report and the gate all run analyses through it.
"""


from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import pandas as pd

from .. import catalog
from ..core.errors import DataError, OptionError
from ..core.memo import PerTable
from ..core.progress import NULL_PROGRESS
from ..core.result import AnalysisResult, signature
from ..io import LoadedTable
from ..io.evaluation import BINARY, HUMAN, JUDGE, LABELS, MEASURE, RECORDED, SCORE, Evaluation, Run, Scorer
from .reading_steps import (_by_system, _criteria, _errors, _recorded_means, _recorded_notes, _reduced,
                            _score_as_outcome, _scorer_sentence, _unscored, _with_scorer_roles)

#: The values of :attr:`Reading.errors`, and the analyses' own ``errored`` option they set.
ERRORS = ("exclude", "fail")


@dataclass(frozen=True)
class Reading:
    """The decisions about a file that every analysis shares."""

    #: the scorer's name (or its column); None: the tool's own primary scorer
    scorer: str | None = None
    #: ``exclude`` (left out and counted) or ``fail`` (counted as failures)
    errors: str = "exclude"
    #: the judge's labels in the people's words: (("C", "correct"), ...)
    label_map: tuple[tuple[str, str], ...] = ()

    def check(self) -> None:
        if self.errors not in ERRORS:
            raise OptionError(f"`errors` must be one of {', '.join(ERRORS)}; got errors={self.errors!r}.")


def evaluation_of(table: LoadedTable, roles: dict[str, str] | None = None) -> Evaluation:
    """The file's evaluation: its reader's declaration, else one inferred from column roles."""
    declared = getattr(table, "evaluation", None)
    if declared is not None:
        return declared
    if roles is None:
        from ..io.roles import guess_roles

        roles = guess_roles(table)
    return infer(table, roles)


#: the evaluations inferred lately, per table (a weak reference to it) and roles: the window asks
#: for a table's several times when it arrives (a million rows: a third of a second each)
_INFERRED = PerTable()


def infer(table: LoadedTable, roles: dict[str, str]) -> Evaluation:
    """A plain table's evaluation from its column roles: the item and system columns, each
    outcome or score column a recorded scorer, a judge's and a person's labels, the usage
    (remembered for the table and these roles: the loading worker infers it before the window
    asks)."""
    return _INFERRED.get(table, tuple(roles.items()), lambda: _infer(table, roles))


def _infer(table: LoadedTable, roles: dict[str, str]) -> Evaluation:
    frame = table.frame

    def first(*wanted: str) -> str | None:  # the first role of ``wanted`` that has a column
        return next((c for role in wanted for c, r in roles.items() if r == role and c in frame.columns), None)

    scorers = []
    # the panels' outcome first (a 0/1 success before a score: the primary scorer is the first)
    order = {r: i for i, r in enumerate(("success", "baseline", "candidate", "score"))}
    for column, role in sorted(roles.items(), key=lambda cr: order.get(cr[1], len(order))):
        if column not in frame.columns:
            continue
        if role in ("success", "score", "baseline", "candidate"):
            scorers.append(Scorer(str(column), str(column), kind=RECORDED, scale=_scale_of(frame[column])))
        elif role == "judge":
            scorers.append(Scorer(str(column), str(column), kind=JUDGE, scale=LABELS))
        elif role in ("human", "human2"):
            scorers.append(Scorer(str(column), str(column), kind=HUMAN, scale=LABELS))
    system = first("system", "version")
    runs = ()
    if system is not None:
        runs = tuple(Run(str(v), {"file": table.path}) for v in pd.unique(frame[system].astype(str)))
    usage = {k: c for k in ("cost", "latency", "steps", "tool_calls") if (c := first(k)) is not None}
    return Evaluation(tool="table", item=first("item", "task", "query"), repeat=first("epoch"),
                      repeat_source="a repeat column" if first("epoch") else "", system=system,
                      runs=runs, scorers=tuple(scorers), error=first("error"), usage=usage,
                      annotator=first("annotator"))


def _scale_of(series: pd.Series) -> str:
    values = pd.to_numeric(series, errors="coerce").dropna()
    if len(values) and values.isin([0, 1]).all():
        return BINARY
    if len(values) and not values.between(0, 1).all():
        return MEASURE  # a number in its own unit (a 1-5 rating, a log-probability): no share
    return SCORE if len(values) else LABELS


def choose(evaluation: Evaluation, name: str | None, table: LoadedTable) -> Scorer | None:
    """The scorer the reading uses: the one named (by name, column or a criterion's key), else
    the primary one; an unknown name is a sentence listing the scorers."""
    if not evaluation.scorers:
        if name is not None and name in table.frame.columns:
            return Scorer(name, name, kind=RECORDED, scale=_scale_of(table.frame[name]))
        if name is not None:
            raise DataError(f"File '{table.name}' names no scorer '{name}' and has no column of that "
                            "name; give a column of per-item values with --scorer.")
        return None
    found = evaluation.scorer(name)
    if found is None and name is not None:  # a criterion by its key alone ('cites' of 'rubric.cites')
        keyed = [s for s in evaluation.scorers if s.group and s.name == f"{s.group}.{name}"]
        found = keyed[0] if len(keyed) == 1 else None
        if found is None and name in table.frame.columns:
            found = Scorer(name, name, kind=RECORDED, scale=_scale_of(table.frame[name]))
    if found is None:
        raise DataError(f"File '{table.name}' has no scorer '{name}'; its scorers are: "
                        + ", ".join(f"'{s}'" for s in evaluation.scorer_names()) + ".")
    return found


@dataclass
class Applied:
    """A table ready for one analysis, with what was decided about it."""

    table: LoadedTable
    options: object
    notes: list[str]
    signature: dict[str, str]
    scorer: Scorer | None
    #: records and tables the reading adds to the result (the judge's own score)
    records: tuple = ()
    tables: tuple = ()
    #: a tool's recorded values of a metric the analysis recomputes: (result metric, scorer,
    #: {system: (mean, n)}), compared in :func:`finish`
    recorded: tuple = ()
    #: the answer itself, when the reading found the analysis has nothing to run (people's
    #: labels alone on the Judge panel)
    result: object = None


def prepare(analysis: str, table: LoadedTable, options, reading: Reading = Reading(), *,
            roles: dict[str, str] | None = None, labels=()) -> Applied:
    """The table and options ``analysis`` runs on under ``reading``; the notes say which columns
    the file's format gave which role, after the reading's changes.  ``labels``: tables of
    people's labels given beside the file (the Judge joins them by item)."""
    from ..io.formats import with_roles

    reading.check()
    evaluation = evaluation_of(table, roles)
    if analysis == "judge":
        from . import judge_input

        got = judge_input.prepare(table, options, evaluation, reading.scorer, list(labels), reading.label_map,
                                  errors=reading.errors)
        if got is not None:
            options, role_notes = with_roles(got.options, got.table)
            return Applied(got.table, options, got.notes, got.signature, None, tuple(got.records),
                           tuple(got.tables), result=got.result)
    notes: list[str] = []
    sig: dict[str, str] = {}
    entry = catalog.BY_NAME.get(analysis)
    scored = entry is not None and entry.scored
    declared = getattr(table, "evaluation", None) is not None
    if analysis == "rubric" and declared:
        options, criteria_note = _criteria(options, evaluation, reading, set(map(str, table.frame.columns)))
        notes += criteria_note
    scorer = None  # a plain table's columns are the analyses' to resolve, unless --scorer names one
    if scored and ((declared and evaluation.scorers) or reading.scorer):
        scorer = choose(evaluation, reading.scorer, table)
    if scorer is not None:
        table = _with_scorer_roles(table, scorer, evaluation, roles)
        notes.append(_scorer_sentence(scorer, evaluation, chosen=reading.scorer is not None))
        sig["scorer"] = f"{scorer.name}({scorer.kind})"
        table, unscored_notes, unscored_sig = _unscored(table, scorer, reading, evaluation)
        notes += unscored_notes
        sig.update(unscored_sig)
    reduce = entry is not None and entry.items_as_rows and bool(evaluation.repeat) and bool(evaluation.item)
    if reduce and analysis == "runs" and _numbers_runs(table, evaluation):
        reduce = False  # a model's numbered runs are the runs side by side (Runs names each 'model / run')
    options, table, err_notes, err_sig = _errors(options, table, reading, scorer, central=reduce)
    notes += err_notes
    sig.update(err_sig)
    if reduce:
        table, options, unit_note = _reduced(table, options, evaluation, scorer)
        if unit_note:
            notes.append(unit_note)
            sig["unit"] = f"item({evaluation.reduction} of repeats)"
    options, role_notes = with_roles(options, table)
    if analysis == "passk" and evaluation.item in table.frame.columns and getattr(options, "task", "") is None \
            and "task" not in (table.roles or {}).values() and not _task_named(table):
        options = dataclasses.replace(options, task=evaluation.item)  # an item's tries: its attempts
        notes.append(f"Column '{evaluation.item}' is the task: each of its rows is one try of the item"
                     + (f" (one per value of '{evaluation.repeat}')." if evaluation.repeat else
                        "; with one try per item, pass@1 is the success rate."))
    if analysis == "repeats" and evaluation.repeat in table.frame.columns \
            and getattr(options, "repeat", "") is None:  # the reading's repeat column, not a guess of its own
        options = dataclasses.replace(options, repeat=evaluation.repeat)
        notes.append(f"Column '{evaluation.repeat}' was taken as the repeat column (the file's reading: "
                     f"{evaluation.repeat_source or 'its repeats'}; set --repeat to choose another).")
    options = _score_as_outcome(options, scorer, table)
    options, split_note = _by_system(options, table, evaluation)
    notes += split_note
    recorded = _recorded_means(table, evaluation) if analysis == "text" and declared else ()
    return Applied(table, options, role_notes + notes, sig, scorer, recorded=recorded)


def _task_named(table: LoadedTable) -> bool:
    """Whether a column's name says it is the task (pass@k then takes that one, as before)."""
    from ..core.role_names import ROLE_NAMES
    from ..io.columns import guess_column

    return guess_column(table, "task", ROLE_NAMES["task"]) is not None


def _numbers_runs(table: LoadedTable, evaluation: Evaluation) -> bool:
    """Whether the repeats are a plain table's column numbering each system's runs ('run' beside
    'model': :func:`workbench.io.roles.guess_roles`)."""
    from ..io.roles import names_runs

    return getattr(table, "evaluation", None) is None and evaluation.system is not None \
        and names_runs(str(evaluation.repeat))


def roles_for(table: LoadedTable, roles: dict[str, str], reading: Reading) -> dict[str, str]:
    """The column roles the window shows and its panels' forms read under ``reading``: the
    chosen scorer's column the outcome (0/1) or score, no other scorer column either.  A plain
    table keeps its roles unless a scorer is named."""
    evaluation = evaluation_of(table, roles)
    if not ((getattr(table, "evaluation", None) is not None and evaluation.scorers) or reading.scorer):
        return dict(roles)
    try:
        scorer = choose(evaluation, reading.scorer, table)
    except DataError:
        return dict(roles)
    if scorer is None:
        return dict(roles)
    return dict(_with_scorer_roles(table, scorer, evaluation, roles).roles)


def run_read(module, table: LoadedTable, options, reading: Reading = Reading(), roles=None,
             progress=NULL_PROGRESS) -> AnalysisResult:
    """:func:`run` for a panel that holds its module: prepare, run, name the reading (an
    analysis that reads no file, Planning, just runs)."""
    if table is None:
        return module.run(table, options, progress)
    applied = prepare(module.NAME, table, options, reading, roles=roles)
    return finish(execute(module, applied, progress), applied)


def run(analysis: str, table: LoadedTable, options, reading: Reading = Reading(),
        progress=NULL_PROGRESS, *, roles: dict[str, str] | None = None) -> AnalysisResult:
    """Run ``analysis`` on ``table`` under ``reading`` (see the module's docstring)."""
    from . import REGISTRY

    applied = prepare(analysis, table, options, reading, roles=roles)
    return finish(execute(REGISTRY[analysis], applied, progress), applied)


def execute(module, applied: Applied, progress=NULL_PROGRESS) -> AnalysisResult:
    """The analysis on the prepared table (or the answer the reading already has)."""
    if applied.result is not None:
        return applied.result
    return module.run(applied.table, applied.options, progress)


def finish(result: AnalysisResult, applied: Applied) -> AnalysisResult:
    """The result with the reading's notes and signature keys (not repeated when the analysis
    already says them)."""
    extra = {k: v for k, v in applied.signature.items()
             if f"|{k}:" not in f"|{result.signature}" and not (k == "errors" and "errored:" in result.signature)}
    replaced = {k: v for k, v in applied.signature.items() if k not in extra and f"|{k}:" in f"|{result.signature}"
                and k in ("judge",)}  # the reading names what the analysis only called "column"
    if replaced:
        parts = [f"{k.split(':', 1)[0]}:{replaced[k.split(':', 1)[0]]}" if k.split(":", 1)[0] in replaced else k
                 for k in result.signature.split("|")]
        result = dataclasses.replace(result, signature="|".join(parts))
    notes = [n for n in applied.notes if n not in result.notes] + _recorded_notes(result, applied.recorded)
    if not extra and not notes and not applied.records and not applied.tables:
        return result
    sig = result.signature + ("|" + signature(extra) if extra else "")
    tables = tuple(applied.tables) + tuple(result.tables)
    return dataclasses.replace(
        result, signature=sig, notes=tuple(notes) + tuple(result.notes),
        records=tuple(applied.records) + tuple(result.records), tables=tables,
        json_tables=tuple(dict.fromkeys(tuple(t.name for t in applied.tables) + tuple(result.json_tables))))


__all__ = ["ERRORS", "Applied", "roles_for", "run_read", "execute", "Reading", "choose", "evaluation_of", "finish", "infer",
           "prepare", "run"]
