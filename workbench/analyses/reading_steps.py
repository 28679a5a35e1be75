"""The steps of a file's reading (:mod:`workbench.analyses.reading`): the chosen scorer's
roles, unscored and errored records, an item's repeats reduced to one row, a rubric's declared
criteria, systems never pooled, and a tool's recorded metrics beside the recomputed ones."""

from __future__ import annotations

import dataclasses
import numpy as np
import pandas as pd

from ..core.errors import DataError
from ..core.numbers import plural
from ..core.result import AnalysisResult
from ..io import LoadedTable
from ..io.evaluation import BINARY, HUMAN, MEASURE, RECORDED, Evaluation, Scorer, item_column


_ERRORED = {"exclude": "exclude", "fail": "failure"}


_SIG = {"exclude": "excluded", "fail": "failures"}


#: Roles a scorer's column takes: a 0/1 one is the outcome, any other the score.
VALUE_ROLES = ("success", "score")


#: metrics a tool records per item that the Text analysis recomputes: recorded name -> ours
RECOMPUTED = {"exact_match": "exact_match"}


def _recorded_means(table: LoadedTable, evaluation: Evaluation) -> tuple:
    """Each recorded metric the Text analysis recomputes, its mean per system over the items
    the tool scored (lm-eval's exact_match per document)."""
    out = []
    for s in evaluation.scorers:
        ours = RECOMPUTED.get(s.name.split(",", 1)[0])
        if s.kind != RECORDED or ours is None or s.column not in table.frame.columns:
            continue
        values = pd.to_numeric(table.frame[s.column], errors="coerce")
        systems = (table.frame[evaluation.system].astype(str) if evaluation.system in table.frame.columns
                   else pd.Series([""] * len(values)))
        means = {name: (float(v.mean()), int(v.notna().sum()))
                 for name, v in values.groupby(systems, sort=False) if v.notna().any()}
        if means:
            out.append((ours, s.name, means))
    return tuple(out)


def _recorded_notes(result: AnalysisResult, recorded: tuple) -> list[str]:
    """A note for each system whose recomputed metric differs from what the tool recorded."""
    notes = []
    for metric, scorer, means in recorded:
        for rec in result.find(metric):
            got = means.get(str(rec.get("system") or "")) or (means.get("") if len(means) == 1 else None)
            if got is None or rec.get("value") is None or abs(got[0] - rec["value"]) <= 1e-9:
                continue
            who = f" for '{rec['system']}'" if rec.get("system") else ""
            notes.append(f"The tool recorded {scorer} {got[0]:.1%} over {plural(got[1], 'item')}{who}; recomputed "
                         f"here with this panel's conventions it is {rec['value']:.1%} over "
                         f"{plural(rec.get('n'), 'item')}. The recorded number is the tool's own; recomputing is a "
                         "convention you chose (see the signature), not a correction.")
    return notes


def _score_as_outcome(options, scorer: Scorer | None, table: LoadedTable):
    """A chosen scorer of scores (Ragas' metrics, DeepEval's score) is the outcome of an analysis
    that reads scores only there (Aggregation: scores between 0 and 1), never a column guessed
    by its name."""
    if scorer is None or scorer.scale == BINARY or not dataclasses.is_dataclass(options) \
            or scorer.column not in table.frame.columns:
        return options
    fields = {f.name for f in dataclasses.fields(options)}
    if "measure" in fields and scorer.scale == MEASURE and (getattr(options, "outcome", None) in (None, scorer.column)):
        options = dataclasses.replace(options, measure=True)  # a log-probability is never 0/1 outcomes
    if "outcome" in fields and "score" not in fields and getattr(options, "outcome", None) is None:
        return dataclasses.replace(options, outcome=scorer.column)
    return options


def _by_system(options, table: LoadedTable, evaluation: Evaluation, *, head_only: bool = False):
    """Several systems or runs are never pooled: an analysis of one system's rate with a
    ``version`` but no ``system`` option (aggregation) takes the system column as the version.
    An analysis of tries per task (pass@k) takes a repeated evaluation's item as its task.
    ``head_only``: ``table`` is the head of a file an engine reads, where a file sorted by system
    may show one: its system column splits it even so."""
    if not dataclasses.is_dataclass(options):
        return options, []
    fields = {f.name for f in dataclasses.fields(options)}
    plain = getattr(table, "evaluation", None) is None
    if plain and ("version" not in fields or "system" in fields):  # its other columns: the user's
        return options, []
    if "item" in fields and "task" not in fields and "errored" in fields and "cost" in fields \
            and evaluation.repeat:  # Cost's rate per item: the reading's item (a record's id is no item)
        item = item_column(table.frame.columns, evaluation)
        if item is not None and item in table.frame.columns:
            options = dataclasses.replace(options, item=item)
    if "task" in fields and getattr(options, "task", None) is None and evaluation.repeat:
        item = item_column(table.frame.columns, evaluation)
        if item is not None and item in table.frame.columns:
            options = dataclasses.replace(options, task=item)
    column = evaluation.system
    if "version" not in fields or "system" in fields or getattr(options, "version", None) is not None \
            or column is None or column not in table.frame.columns:
        return options, []
    if table.frame[column].nunique(dropna=False) < 2 and not head_only:
        return options, []
    if column in {v for v in vars(options).values() if isinstance(v, str)}:  # given another part
        return options, []
    return split_by(options, column, None if plain else table.frame[column].nunique(), plain)


def split_by(options, column: str, count: int | None, plain: bool):
    """``options`` reading each system of ``column`` on its own (as a version), and the note.
    ``count``: how many systems (None for a plain table's guessed column: a file the engine
    reads is known from its head only, and the two ways say the same)."""
    held = f"The file holds {count} systems" if count is not None else "The file holds several systems"
    where = (f"in column '{column}' (guessed from its name; set --version to choose another)" if plain
             else f"(column '{column}')")
    return dataclasses.replace(options, version=column), [
        f"{held} {where}: each is read on its own (as versions), never pooled into one rate."]


def _criteria(options, evaluation: Evaluation, reading, columns=()):
    """A rubric's criteria as the tool declared them (promptfoo's assertions, an Inspect
    scorer's dict of values), with the weights the tool recorded; a chosen scorer that groups
    criteria (``--scorer rubric``) picks its own."""
    if not dataclasses.is_dataclass(options) or getattr(options, "criteria", None) or getattr(options, "criterion", None):
        return options, []
    groups = list(dict.fromkeys(s.group for s in evaluation.scorers if s.group))
    if not groups:  # the tool's yes/no scorers are the criteria (not its epochs' or usage's 0/1 columns)
        binary = [s for s in evaluation.scorers
                  if s.scale == BINARY and s.kind != HUMAN and s.column in columns]
        if not binary:
            return options, []
        return dataclasses.replace(options, criteria=",".join(s.column for s in binary)), [
            "The rubric's criteria are the file's yes/no scorers "
            f"({', '.join(repr(s.name) for s in binary)}), not its other 0/1 columns (set --criteria to choose)."]
    group = reading.scorer if reading.scorer in groups else groups[0]
    members = [s for s in evaluation.scorers if s.group == group]
    changes = {"criteria": ",".join(s.column for s in members)}
    weighted = all(s.weight is not None for s in members) and any(s.weight != 1 for s in members)
    if weighted and getattr(options, "weights", None) is None:
        changes["weights"] = ",".join(f"{s.weight:g}" for s in members)
    note = (f"The rubric's criteria are the file's '{group}' scorers ({', '.join(repr(s.name) for s in members)})"
            + (f", weighted as the tool recorded them ({changes['weights']})" if "weights" in changes else "")
            + ".")
    return dataclasses.replace(options, **changes), [note]


def _with_scorer_roles(table: LoadedTable, scorer: Scorer, evaluation: Evaluation,
                       roles: dict[str, str] | None) -> LoadedTable:
    """The chosen scorer's column is the outcome (0/1) or the score; no other scorer column
    keeps either role."""
    base = dict(roles if roles is not None else (table.roles or {}))
    scorer_columns = {s.column for s in evaluation.scorers}
    new = {c: r for c, r in base.items() if not (r in VALUE_ROLES and (c in scorer_columns or c != scorer.column))}
    new = {c: r for c, r in new.items() if c != scorer.column}
    new[scorer.column] = "success" if scorer.scale == BINARY else "score"
    if scorer.error and scorer.error in table.frame.columns:  # its own errors (the record's included)
        new = {c: r for c, r in new.items() if r != "error"}
        new[scorer.error] = "error"
    # the Judge panel's columns: the judge's labels, and the people's
    judges = [s for s in evaluation.scorers if s.is_judge]
    judge = scorer if scorer.is_judge else (judges[0] if judges else None)
    if judge is not None and "judge" not in new.values():
        column = judge.labels if judge.labels in table.frame.columns else judge.column
        new.setdefault(column, "judge")
    people = [s for s in evaluation.scorers if s.kind == HUMAN]
    if people and "human" not in new.values():
        new.setdefault(people[0].labels or people[0].column, "human")
    return dataclasses.replace(table, roles=new)


def _scorer_sentence(scorer: Scorer, evaluation: Evaluation, *, chosen: bool) -> str:
    how = "chosen" if chosen else "the file's primary scorer"
    detail = f"; {scorer.detail}" if scorer.detail else ""
    reported = f"; the tool reported {scorer.metric}" if scorer.metric else ""
    return (f"Scorer '{scorer.name}' ({how}: {scorer.kind}, {scorer.scale}{detail}{reported}), "
            f"column '{scorer.column}'" + (f"; the others: {', '.join(repr(s) for s in evaluation.scorer_names() if s != scorer.name)}"
                                           if len(evaluation.scorers) > 1 else "") + ".")


def _other_tasks(table: LoadedTable, blank: np.ndarray, scorer: Scorer, evaluation: Evaluation) -> str:
    """When the blank records are every record of some tasks (lm-eval tasks scored by other
    metrics), the sentence that says so and names their scorers; else ''."""
    column = "task_name" if "task_name" in table.frame.columns else None
    if column is None or not blank.any():
        return ""
    tasks = pd.Series(np.asarray(table.frame[column], dtype=object))
    whole = tasks[blank].unique()
    if not all(blank[(tasks == t).to_numpy()].all() for t in whole):
        return ""
    others = [s.name for s in evaluation.scorers if s.name != scorer.name and s.column in table.frame.columns
              and pd.to_numeric(table.frame[s.column][blank], errors="coerce").notna().any()]
    return (f"{'Task' if len(whole) == 1 else 'Tasks'} {', '.join(repr(str(t)) for t in whole)} "
            f"{'is' if len(whole) == 1 else 'are'} not scored by '{scorer.name}' (another task's metric): "
            f"{'its' if len(whole) == 1 else 'their'} {plural(int(blank.sum()), 'record')} are left out"
            + (f"; analyse {'it' if len(whole) == 1 else 'them'} with --scorer "
               + " or ".join(others[:3]) if others else "") + ".")


def _unscored(table: LoadedTable, scorer: Scorer, reading, evaluation: Evaluation):
    """Records the scorer left unscored (a blank value: Inspect's NaN, a grader reply without a
    grade) that did not end with an error: left out and counted (``exclude``, as the tools
    leave them out of their metrics) or scored 0 (``fail``).  Errored records are the error
    decision's."""
    from . import _rows

    if scorer.column not in table.frame.columns:
        return table, [], {}
    series = table.frame[scorer.column]
    if pd.api.types.is_numeric_dtype(series) and not pd.api.types.is_bool_dtype(series):
        values = series.to_numpy(dtype=float)
        blank = np.isnan(values)
    else:  # text cells: only a blank one is unscored (a word is the analysis's to read or refuse)
        blank = (series.isna() | (series.astype(str).str.strip() == "")).to_numpy()
        values = np.zeros(len(series))
    err = _rows.find(table, None, "exclude")
    if err.active:
        blank &= ~err.mask
    count = int(blank.sum())
    if not count:
        return table, [], {}
    other_tasks = _other_tasks(table, blank, scorer, evaluation)
    if other_tasks:  # another task's records: never "unscored", never failures
        return table.take(np.flatnonzero(~blank)), [other_tasks], {"tasks": f"scored-by:{scorer.name}"}
    names = _rows.describe(table, np.flatnonzero(blank))
    shown = ", ".join(names[:5]) + (f" and {count - 5} more" if count > 5 else "")
    total = len(values)
    if reading.errors == "exclude":
        kept = np.flatnonzero(~blank)
        if not kept.size:
            raise DataError(f"Scorer '{scorer.name}' scored none of the {plural(total, 'record')} of file "
                            f"'{table.name}'; there is nothing to analyse (choose another scorer, or count "
                            "unscored records as failures with --errors fail).")
        note = (f"{count} of {total} records are unscored by '{scorer.name}' (no value: {shown}): left out "
                "and counted, as the tool leaves them out of its metrics (--errors fail counts them as failures).")
        return table.take(kept), [note], {"unscored": f"excluded({count})"}
    frame = table.frame.copy()
    if pd.api.types.is_numeric_dtype(series) and not pd.api.types.is_bool_dtype(series):
        filled = values.copy()
        filled[blank] = 0.0
        frame[scorer.column] = filled
    else:
        frame[scorer.column] = series.where(~blank, "0")
    note = (f"{count} of {total} records are unscored by '{scorer.name}' (no value: {shown}): counted as "
            "failures (0), as asked (--errors fail).")
    return dataclasses.replace(table, frame=frame), [note], {"unscored": f"failures({count})"}


def _errors(options, table: LoadedTable, reading, scorer: Scorer | None, *, central: bool):
    """The error decision: an analysis with its own ``errored`` option takes it (it knows what
    an errored record costs); for the others, and before an item's repeats are reduced, the
    errored rows are left out or scored 0 here (and their column loses its role)."""
    from . import _rows

    fields = {f.name for f in dataclasses.fields(options)} if dataclasses.is_dataclass(options) else set()
    if "errored" in fields:
        options = dataclasses.replace(options, errored=_ERRORED[reading.errors])
        if not central:
            return options, table, [], {}
    err = _rows.find(table, getattr(options, "error", None), _ERRORED[reading.errors])
    if not err.active:
        return options, table, [], {}
    roles = {c: r for c, r in (table.roles or {}).items() if r != "error"}
    if not err.count:
        return options, dataclasses.replace(table, roles=roles), [], err.signature()
    values = [c for c, r in (table.roles or {}).items() if r in VALUE_ROLES]
    if scorer is not None:
        values.append(scorer.column)
    criteria = getattr(options, "criteria", None)  # a rubric's criteria fail with their record
    if isinstance(criteria, str):
        values += [c.strip() for c in criteria.split(",") if c.strip() in table.frame.columns]
    table = dataclasses.replace(_rows.apply(table, err, values), roles=roles)
    if "error" in fields:
        options = dataclasses.replace(options, error=None)
    if "errored" in fields:
        options = dataclasses.replace(options, errored="exclude")
    return options, table, err.note(failure_means="scored 0 (a failure)"), err.signature()


def _reduced(table: LoadedTable, options, evaluation: Evaluation, scorer: Scorer | None):
    """One row per (system, item): each numeric column the mean of the item's repeats (blank
    tries left out, as Inspect leaves unscored epochs out), the rest from the item's first row."""
    frame = table.frame
    item = item_column(frame.columns, evaluation)
    if item not in frame.columns:
        return table, options, ""
    system = evaluation.system if evaluation.system in frame.columns else None
    from ..io import to_text

    keys = [pd.Series(to_text(table, item), dtype=object)]
    if system is not None:
        keys.insert(0, pd.Series(to_text(table, system), dtype=object))
    codes = pd.MultiIndex.from_arrays(keys).factorize()[0] if len(keys) > 1 else pd.factorize(keys[0])[0]
    groups = int(codes.max()) + 1 if len(codes) else 0
    if groups == len(frame):
        return table, options, ""
    first_rows = np.full(groups, len(frame), dtype=np.int64)
    np.minimum.at(first_rows, codes, np.arange(len(frame)))
    out = table.take(first_rows)
    reduced = out.frame.copy()
    counts = np.bincount(codes, minlength=groups)
    for column in frame.columns:
        series = frame[column]
        if column in (evaluation.repeat, item, system) or not pd.api.types.is_numeric_dtype(series) \
                or pd.api.types.is_bool_dtype(series):
            continue
        values = series.to_numpy(dtype=float)
        ok = ~np.isnan(values)
        sums = np.bincount(codes[ok], weights=values[ok], minlength=groups)
        seen = np.bincount(codes[ok], minlength=groups)
        with np.errstate(invalid="ignore", divide="ignore"):
            reduced[column] = np.where(seen > 0, sums / np.maximum(seen, 1), np.nan)
    roles = {c: r for c, r in (table.roles or {}).items()
             if r not in ("item", "epoch", "cluster", "task") or c == item}
    roles[item] = "item"
    fields = {f.name for f in dataclasses.fields(options)} if dataclasses.is_dataclass(options) else set()
    if scorer is not None and scorer.column in reduced.columns and "score" in fields \
            and roles.get(scorer.column) == "success":  # an item's share of successful tries
        shares = reduced[scorer.column].to_numpy(dtype=float)
        if not np.isin(shares[~np.isnan(shares)], (0.0, 1.0)).all():
            roles[scorer.column] = "score"
    if evaluation.repeat in reduced.columns:  # an item's row has no one try: its first try's
        reduced = reduced.drop(columns=[evaluation.repeat])  # number is no column of it (nor a criterion)
    out = dataclasses.replace(out, frame=reduced, roles=roles, cell_source=_Reduced(out.cell_source, reduced, frame))
    if dataclasses.is_dataclass(options):  # the sample-and-epoch ids a format gave are the items now
        changes = {}
        for f in dataclasses.fields(options):
            value = getattr(options, f.name)
            if f.name == "item" and value == "item" and item != "item":
                changes["item"] = item
            elif f.name == "cluster" and value is not None and value in (item, "sample_id", "task_sample"):
                changes["cluster"] = None
        options = dataclasses.replace(options, **changes) if changes else options
    per = np.unique(counts)
    tries = (f"{int(per[0])} tries" if len(per) == 1 else f"{int(per.min())} to {int(per.max())} tries")
    note = (f"Each item's repeats are reduced to one value per item, the {evaluation.reduction} of its "
            f"{tries} ({evaluation.repeat_source or 'repeats'}{', as the tool reduces them' if evaluation.tool != 'table' else ''}): "
            f"{plural(len(frame), 'row')} -> {plural(groups, 'item')}"
            + (" over the systems" if system is not None else "")
            + "; repeats are never counted as independent items.")
    return out, options, note


class _Reduced:
    """The reduced table's cell text: the first row's text, except for the averaged columns
    (their text is their value's)."""

    def __init__(self, source, reduced: pd.DataFrame, original: pd.DataFrame) -> None:
        self._source = source
        self._changed = {c for c in reduced.columns if c in original.columns
                         and pd.api.types.is_float_dtype(reduced[c]) and not reduced[c].equals(original[c])}

    def text(self, column: str, wanted=()):
        if column in self._changed or self._source is None:
            return None
        return self._source.text(column, wanted)
