"""The Judge panel's input from an evaluation log: which scorer is the judge, whose labels are
the people's, and how the two meet.

- The judge is the chosen scorer when it is a judge, else the log's first judge scorer (an LLM
  grader, a judge panel); each record (system, item, repeat) is one judgement.
- The people's labels are the log's human scorers: a labels file joined by item when it was
  opened with the log or given with ``--human FILE``
  (:mod:`workbench.io.formats.labels_join`: the majority of the annotators is ``people``).
- Without people's labels, a second judge scorer (a judge panel) is compared with the judge on
  the records both scored: another scorer's verdicts of its own (:func:`second_opinion`), never
  the judge's own score, threshold or pass (DeepEval's ``TokenOverlap.score`` beside its
  ``TokenOverlap.success``), a tool's score of the same grading (promptfoo's ``score`` beside its
  ``pass``) or a criterion.  With neither, the answer is the judge's own score and a sentence
  naming the file and asking for people's labels (``--human``), never agreement with itself.
- A plain table (no reader's declaration) with a column naming who labelled (``annotator``,
  ``rater``: the reading's annotator) has one row per annotation: each record's people's label
  is the one a strict majority of its annotators gave, each annotator a column of their own
  (:func:`plain`); item ids that repeat across the systems (``model``) make records (system,
  item), as in a log.
- A plain table with an annotator column, a column of people's labels (``human``..., or a
  plain ``label``/``gold`` beside the annotator) and no judge (``item_id,annotator,label``) is
  read as the annotators among themselves, as a Label Studio export alone (:func:`people_only`).
- Errored records (the reading's error column, or the judge scorer's own) follow the reading's
  errors choice, as on every panel: left out of every number and counted (``exclude``, the
  default) or, for the judge's own score, counted as failures (``fail``: scored 0); a note and
  the signature (``errored:excluded`` or ``errored:failures``) say which.
- When the judge's words and the people's never meet (C/P/I against correct/partial/incorrect),
  a label map is required, and the sentence shows both sets: agreement is never reported over
  labels that cannot meet.

Beside agreement, the judge's own score: the mean of its values over the records it scored,
each item's repeats reduced first (its mean, as Inspect reduces epochs), per system, with a
bootstrap interval over the items and the count of unscored records.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from ..core.errors import DataError, OptionError
from ..core.numbers import plural
from ..core.result import Table, record, signature
from ..core.role_names import HUMAN_BESIDE_JUDGE, human_column
from ..io import LoadedTable, to_text
from ..io.cells import text_array
from ..io.evaluation import HUMAN, JUDGE, JUDGE_PANEL, MEASURE, SCORE, Evaluation, Scorer, item_column
from ..io.formats.labels_join import PEOPLE, join_labels, strict_majority
from ..metrics import headline_ci as hc
from . import _rows



def parse_label_map(text) -> tuple[tuple[str, str], ...]:
    """``"C=correct,P=partial"`` -> (("C", "correct"), ("P", "partial"))."""
    if not text:
        return ()
    if isinstance(text, (list, tuple)):
        return tuple((str(a), str(b)) for a, b in text)
    out = []
    for part in str(text).split(","):
        if not part.strip():
            continue
        if "=" not in part:
            raise DataError(f"--label-map takes JUDGE=PEOPLE pairs separated by commas (e.g. "
                            f"C=correct,I=incorrect); got '{part.strip()}'.")
        a, b = part.split("=", 1)
        out.append((a.strip(), b.strip()))
    return tuple(out)


def judge_scorer(evaluation: Evaluation, chosen: str | None) -> Scorer | None:
    judges = [s for s in evaluation.scorers if s.kind in (JUDGE, JUDGE_PANEL)]
    if chosen is not None and evaluation.scorer(chosen) is not None:
        return evaluation.scorer(chosen)
    primary = evaluation.scorer()
    if primary is not None and primary.kind in (JUDGE, JUDGE_PANEL):
        return primary
    return judges[0] if judges else None


@dataclasses.dataclass
class Prepared:
    table: LoadedTable
    options: object
    notes: list
    signature: dict
    records: list
    tables: list
    #: the whole answer when the Judge analysis itself has nothing to run (people alone)
    result: object = None


#: the reading's errors choice (:data:`workbench.analyses.reading.ERRORS`) as :mod:`_rows` names it
_MODE = {"exclude": "exclude", "fail": "failure"}


def prepare(table: LoadedTable, options, evaluation: Evaluation, chosen: str | None,
            labels: list[LoadedTable], label_map: tuple[tuple[str, str], ...],
            errors: str = "exclude") -> Prepared | None:
    """The judge's table and options (None: a plain table of labels, read as it is).
    ``errors``: the reading's choice for errored records, ``exclude`` or ``fail``."""
    if errors not in _MODE:
        raise OptionError(f"`errors` must be one of {', '.join(_MODE)}; got errors={errors!r}.")
    if getattr(table, "evaluation", None) is None and not labels:
        return plain(table, options, evaluation, errors)
    notes, sig, records, tables = [], {}, [], []
    if labels:
        table = join_labels(table, labels)
        evaluation = table.evaluation
        notes.append(evaluation.notes[-1])
    judge = judge_scorer(evaluation, chosen) if options.judge is None else next(
        (s for s in evaluation.scorers if s.is_judge and options.judge in (s.labels, s.column)), None)
    if judge is None and not labels:
        if options.judge is None and not options.human and evaluation.annotator is not None:
            alone = people_only(table, evaluation)
            if alone is not None:
                return Prepared(table, options, notes, sig, records, tables, result=alone)
        return None
    own = judge.error if judge is not None and judge.error in table.frame.columns else None
    err = _rows.find(table, own or (evaluation.error if evaluation.error in table.frame.columns else None),
                     _MODE[errors])
    if err.count and err.mode == "exclude":
        table = _rows.apply(table, err, [])  # left out of every number: the own score and agreement
    frame = table.frame.copy()
    system = evaluation.system if evaluation.system in frame.columns else None
    item = item_column(frame.columns, evaluation)
    rec = _record_ids(table, system, item, evaluation.repeat)
    frame["record"] = rec
    judge_col = options.judge
    if judge is not None:
        judge_col = judge.labels if judge.labels in frame.columns else judge.column
        notes.append(f"The judge is scorer '{judge.name}' ({judge.kind}{'; ' + judge.detail if judge.detail else ''}), "
                     f"its labels in column '{judge_col}'; each record (system, item, repeat) is one judgement.")
        sig["judge"] = f"scorer:{judge.name}"
        sig["judged"] = "record(system,item,repeat)" if evaluation.repeat else "record(system,item)"
        failed = err.mask if err.count and err.mode == "failure" else None
        records_, table_ = own_score(table, evaluation, judge, system, item, failed, blank_fails=errors == "fail")
        records, tables = records + records_, tables + [table_]
        blanks = sum(int(r["value"]) for r in records_ if r["metric"] == "judge_unscored")
        if errors == "fail" and blanks:  # as every panel's reading scores them (reading_steps._unscored)
            notes.append(f"{blanks} records unscored by '{judge.name}' (no value) count as failures (0) in its own "
                         "score, as asked (--errors fail); the agreement leaves them out (a blank is no label).")
            sig["unscored"] = f"failures({blanks})"
    sig.update(err.signature())
    humans: list[str] = list(options.human or ())
    human_scorers = [s.labels or s.column for s in evaluation.scorers if s.kind == HUMAN]
    if humans and humans[0] == PEOPLE and human_scorers[:1] == [PEOPLE]:
        humans = human_scorers  # the majority, then each annotator (for alpha)
        sig["people"] = "joined-labels,majority"
    if not humans:
        people = [s for s in evaluation.scorers if s.kind == HUMAN]
        if any(s.name == PEOPLE for s in people):
            sig["people"] = "joined-labels,majority"
        panel = [s for s in evaluation.scorers if judge is not None and second_opinion(judge, s)]
        if people:
            humans = [p.labels or p.column for p in people]
        elif panel:
            second = panel[0]
            humans = [second.labels if second.labels in frame.columns else second.column]
            notes.append(f"The file holds no people's labels: the judge is compared with the other judge "
                         f"'{second.name}' ({second.kind}) on the records both scored; give people's labels "
                         "with --human FILE (a Label Studio export) or open them with the log.")
            sig["people"] = f"judge:{second.name}"
    if not humans and judge is not None and options.swap_judge is None and options.length_a is None \
            and human_column([str(c) for c in frame.columns], judge_col) is None:
        notes += err.note(failure_means="scored 0 (a failure) in the judge's own score")
        alone = judge_alone(table, evaluation, judge, judge_col, notes, sig, records, tables)
        return Prepared(table, options, [], {}, [], [], result=alone)
    notes += err.note(failure_means="scored 0 (a failure) in the judge's own score; agreement reads the "
                                    "labels the file records for them" if judge is not None else
                      "kept with the labels the file records for them (a label is never made up)")
    if label_map and judge_col is not None:
        mapping = dict(label_map)
        texts = np.asarray(to_text(table, judge_col), dtype=object) if judge_col in table.frame.columns \
            else frame[judge_col].astype(str).to_numpy(dtype=object)
        frame["judge (mapped)"] = [mapping.get(x, x) for x in texts]
        judge_col = "judge (mapped)"
        notes.append("The judge's labels are mapped to the people's words: "
                     + ", ".join(f"{a} -> {b}" for a, b in label_map) + " (--label-map).")
        sig["label-map"] = ",".join(f"{a}={b}" for a, b in label_map)
    if humans and judge_col is not None:
        _check_meet(frame, judge_col, humans[0], table.name)
    new = dataclasses.replace(table, frame=frame, cell_source=_Keep(table.cell_source, frame.columns, table.frame.columns))
    majority = sig.get("people") == "joined-labels,majority" and len(humans) > 1 and humans[0] == PEOPLE
    options = dataclasses.replace(options, judge=judge_col, item=options.item or "record",
                                  human=tuple(humans) or None, majority=majority)
    return Prepared(new, options, notes, sig, records, tables)


def second_opinion(judge: Scorer, other: Scorer) -> bool:
    """Whether scorer ``other`` is another judge's verdict on the records ``judge`` labelled (a
    judge panel beside a single judge): a judge scorer of its own whose values are labels or
    grades.  Never the judge's own metric (its score, threshold or pass: the same group, pass
    column or columns; DeepEval's ``TokenOverlap.score``), a criterion of a rubric or of a
    tool's metric (a group), nor a continuous score (promptfoo's ``score``, the weighted mean of
    the very assertions its ``pass`` decides on): none of them is a second opinion, and none is
    people's labels."""
    if not other.is_judge or other.name == judge.name:
        return False
    mine = {judge.column, judge.labels, judge.passed} - {None}
    if {other.column, other.labels, other.passed} & mine:
        return False
    if other.group is not None:  # a criterion, or a tool's metric of its own (DeepEval's pass and score)
        return False
    return other.labels is not None or other.scale not in (SCORE, MEASURE)


def judge_alone(table: LoadedTable, evaluation: Evaluation, judge: Scorer, judge_col: str, notes: list,
                sig: dict, records: list, tables: list):
    """A judge and no people's labels (nor another judge's): the judge's own score, and the
    sentence that names the file, why nothing in it is people's labels, and what to give."""
    from ..core.result import AnalysisResult, signature
    from ._common import base_signature

    own = [c for c in (judge.column, judge.labels, judge.passed) if c and c != judge_col]
    own += [s.column for s in evaluation.scorers if s.is_judge and s.name != judge.name and s.column not in own]
    own = [c for c in dict.fromkeys(own) if c in table.frame.columns]
    shown = ", ".join(f"'{c}'" for c in own[:4]) + (" ..." if len(own) > 4 else "")
    why = (f": the file's other judge columns ({shown}) are the grader's own scores, never people's labels"
           if own else "")
    sentence = (f"File '{table.name}' holds no people's labels, so the judge '{judge.name}' (column "
                f"'{judge_col}') is measured against nobody{why}. Give the people's labels as a column "
                "of the file (--human COLUMN) or as a file of labels (--human FILE, a Label Studio "
                "export joined by item), or open them with the log; meanwhile the judge's own score "
                "is shown.")
    full = {**base_signature("judge"), **sig, "people": "none"}
    return AnalysisResult("judge", signature(full), tuple(records), tuple(tables), tuple(notes) + (sentence,),
                          table.path, json_tables=tuple(t.name for t in tables))


def plain(table: LoadedTable, options, evaluation: Evaluation, errors: str = "exclude") -> Prepared | None:
    """A plain table's rows as the Judge reads them (:func:`_plain`), its errored rows (the
    reading's error column) left out or kept as the reading's ``errors`` says: the reading's
    own step is not run on a table the Judge prepares itself.  None: the table as it is (the
    reading then applies the errors choice itself)."""
    column = evaluation.error if evaluation.error in table.frame.columns else None
    err = _rows.find(table, column, _MODE[errors]) if column is not None else None
    if err is None or not err.count:
        got = _plain(table, options, evaluation)
        if got is not None and err is not None:
            got.signature.update(err.signature())
            if got.result is not None:
                got.result = dataclasses.replace(got.result, signature=got.result.signature + "|"
                                                 + signature(err.signature()))
        return got
    got = _plain(_rows.apply(table, err, []) if err.mode == "exclude" else table, options, evaluation)
    if got is None:
        return None
    said = err.note(failure_means="kept with the labels the file records for them (a label is never made up)")
    if got.result is not None:
        got.result = dataclasses.replace(got.result, notes=tuple(said) + tuple(got.result.notes),
                                         signature=got.result.signature + "|" + signature(err.signature()))
    else:
        got.notes[:0] = said
        got.signature.update(err.signature())
    return got


def _plain(table: LoadedTable, options, evaluation: Evaluation) -> Prepared | None:
    """A plain table's rows as the Judge reads them, when they are not one per item (None: the
    table as it is, the analysis guessing its columns).

    - Item ids that repeat across the systems (or the repeats) of the reading are records
      (system, item, repeat), as in a log: each one judgement.
    - A column naming who labelled (the reading's annotator: ``annotator``, ``rater``...) is
      never a label: with one row per annotation, each record's people's label (``people``) is
      the one a strict majority of its annotators gave (blank without one), each annotator a
      column of their own (``person alice``: alpha among them); with one annotator per record,
      a note names the column.
    - With such a column, people's labels beside it and no judge at all (``item_id,annotator,
      label``), the answer is how far the annotators agree among themselves (:func:`people_only`),
      as for a Label Studio export alone."""
    frame = table.frame
    columns = [str(c) for c in frame.columns]
    judges = [s.column for s in evaluation.scorers if s.is_judge]
    judge_col = options.judge or (judges[0] if judges else None)
    item = options.item or evaluation.item
    if judge_col is None and options.swap_judge is None and options.length_a is None:
        alone = _annotators_alone(table, options, evaluation, item)
        return None if alone is None else Prepared(table, options, [], {}, [], [], result=alone)
    if judge_col not in frame.columns or item not in frame.columns:
        return None
    if options.swap_judge is not None or options.length_a is not None:
        return None  # verdicts on pairs, one per row
    humans = [options.human] if isinstance(options.human, str) else list(options.human or ())
    who = evaluation.annotator if evaluation.annotator in frame.columns else None
    if who in (judge_col, item, *humans) or len(humans) > 1:
        who = None
    human = humans[0] if humans else human_column(columns, judge_col)
    if who is not None and human is None:
        who = None  # no people's label beside the annotator: the analysis says so
    keys = [item]
    for extra in (evaluation.system, evaluation.repeat):
        if extra in frame.columns and extra not in (judge_col, item, who, *humans):
            seen = frame.groupby([frame[k].astype(str) for k in keys], sort=False)[extra].nunique(dropna=False)
            if (seen > 1).any():
                keys = [extra, *keys] if extra == evaluation.system else [*keys, extra]
    rec = np.asarray(_record_ids(table, *(_key(keys, evaluation))), dtype=object) if len(keys) > 1 \
        else np.asarray(to_text(table, item), dtype=object)
    repeated = bool(pd.Series(rec).duplicated().any())
    if who is None and (len(keys) == 1 or repeated):
        return None  # one row per item, or ids that repeat beyond the systems: the analysis's to say
    notes: list[str] = []
    sig: dict = {}
    record_col = _free_name("record", columns)
    if len(keys) > 1:
        what = "system, item" + (", repeat" if evaluation.repeat in keys else "") \
            if evaluation.system in keys else "item, repeat"
        notes.append(f"Item ids repeat across the {'systems' if evaluation.system in keys else 'repeats'} of "
                     f"column '{keys[0] if evaluation.system in keys else keys[-1]}': each record ({what}) is "
                     f"one judgement, as in a log (column '{record_col}').")
        sig["judged"] = f"record({what.replace(' ', '')})"
    if who is None:
        new = frame.copy()
        new[record_col] = text_array([str(x) for x in rec])
        out = dataclasses.replace(table, frame=new, cell_source=_Keep(table.cell_source, new.columns, frame.columns))
        return Prepared(out, dataclasses.replace(options, item=record_col), notes, sig, [], [])
    names = list(dict.fromkeys(str(x) for x in to_text(table, who) if str(x) != ""))
    if not repeated:  # one annotator per record: who labelled, beside the label
        notes.append(f"Column '{who}' names who labelled ({plural(len(names), 'annotator')}: "
                     f"{', '.join(names[:6])}{' ...' if len(names) > 6 else ''}), never a label: the people's "
                     f"label is column '{human}'. Each {'item' if len(keys) == 1 else 'record'} has one "
                     "annotator's label, so how far the annotators agree with each other cannot be measured.")
        if len(keys) == 1:
            return Prepared(table, options, notes, sig, [], [])
        new = frame.copy()
        new[record_col] = text_array([str(x) for x in rec])
        out = dataclasses.replace(table, frame=new, cell_source=_Keep(table.cell_source, new.columns, frame.columns))
        return Prepared(out, dataclasses.replace(options, item=record_col), notes, sig, [], [])
    return _annotations(table, options, rec, judge_col, human, who, names, record_col, notes, sig)


def _annotators_alone(table: LoadedTable, options, evaluation: Evaluation, item: str | None):
    """A plain table of annotations without a judge (``item_id,annotator,label``): the
    annotators among themselves (:func:`people_only`), or None when the table is not that (no
    annotator column, no people's label beside it, or one annotator per item)."""
    frame = table.frame
    columns = [str(c) for c in frame.columns]
    who = evaluation.annotator if evaluation.annotator in frame.columns else None
    humans = [options.human] if isinstance(options.human, str) else list(options.human or ())
    if who is None or item not in frame.columns or len(humans) > 1 or who in humans or item in humans:
        return None
    label = humans[0] if humans else human_column(columns, None, (who, item))
    if label is None:  # beside the annotator's name, a plain 'label' or 'gold' is what they gave
        beside = {_plain_name(n) for n in HUMAN_BESIDE_JUDGE}
        label = next((c for c in columns if c not in (who, item) and _plain_name(c) in beside), None)
    if label is None:
        return None
    keys = [item]
    system = evaluation.system
    if system in frame.columns and system not in (who, item, label):
        seen = frame.groupby(frame[item].astype(str), sort=False)[system].nunique(dropna=False)
        if (seen > 1).any():  # item ids repeated across the systems: records (system, item)
            keys = [system, item]
    items = np.asarray(_record_ids(table, *(_key(keys, evaluation))), dtype=object) if len(keys) > 1 \
        else np.asarray(to_text(table, item), dtype=object)
    if not pd.Series(items).duplicated().any():
        return None  # one annotator per item: nothing to measure among them
    return people_only(table, evaluation, label=label, items=items,
                       read=f"column '{who}' names who labelled, column '{label}' what they gave")


def _plain_name(name) -> str:
    return "".join(ch for ch in str(name).lower() if ch not in " _-\t")


def _key(keys: list[str], evaluation: Evaluation):
    """(system, item, repeat) of :func:`_record_ids` from the record's key columns."""
    system = evaluation.system if evaluation.system in keys else None
    repeat = evaluation.repeat if evaluation.repeat in keys else None
    item = next(k for k in keys if k not in (system, repeat))
    return system, item, repeat


def _free_name(name: str, columns) -> str:
    while name in columns:
        name += "_"
    return name


def _annotations(table: LoadedTable, options, rec, judge_col, human, who, names, record_col, notes, sig):
    """One row per record of a table of annotations: the judge's label (one per record), the
    people's (the strict majority) and each annotator's."""
    judge = np.asarray(to_text(table, judge_col), dtype=object)
    label = np.asarray(to_text(table, human), dtype=object)
    person = np.asarray(to_text(table, who), dtype=object)
    codes, uniques = pd.factorize(pd.Series(rec, dtype=object), sort=False)
    n = len(uniques)
    said = pd.DataFrame({"r": codes, "j": judge})
    said = said[said["j"] != ""].drop_duplicates()
    twice = said["r"].duplicated(keep=False)
    if twice.any():
        r = int(said.loc[twice, "r"].iloc[0])
        rows = np.flatnonzero(codes == r)
        shown = ", ".join(f"'{judge[i]}'" for i in rows if judge[i] != "")
        raise DataError(f"File '{table.name}', column '{who}' names who labelled, so each record's rows are one "
                        f"judgement labelled by several people; but record '{uniques[r]}' has the judge's labels "
                        f"{shown} in column '{judge_col}' ({table.describe_rows(rows[:6])}). Give the column that "
                        "tells those rows apart (a system or repeat column), or --item.")
    judged = np.full(n, "", dtype=object)
    judged[said["r"].to_numpy(dtype=int)] = said["j"].to_numpy(dtype=object)
    long = pd.DataFrame({"r": codes, "who": person, "label": label})
    long = long[(long["label"] != "") & (long["who"] != "")]
    doubled = int(long.duplicated(["r", "who"]).sum())
    wide = long.drop_duplicates(["r", "who"]).pivot(index="r", columns="who", values="label")
    order = [a for a in names if a in wide.columns]
    wide = wide.reindex(index=range(n), columns=order)
    cols = [_free_name(f"person {a}", table.frame.columns) for a in order]
    people = [strict_majority(row) for row in wide.itertuples(index=False)]
    first = np.full(n, len(rec), dtype=np.int64)
    np.minimum.at(first, codes, np.arange(len(rec)))
    out = table.take(first)
    new = out.frame.copy()
    kept = [c for c in new.columns if c != judge_col]
    people_col = _free_name(PEOPLE, new.columns)
    new[record_col] = text_array([str(x) for x in uniques])
    new[judge_col] = text_array([str(x) for x in judged])
    new[people_col] = text_array(people)
    for c, a in zip(cols, order):
        new[c] = text_array(["" if not isinstance(v, str) else v for v in wide[a]])
    per = long.drop_duplicates(["r", "who"]).groupby("r").size()
    ties = sum(1 for p, k in zip(people, per.reindex(range(n), fill_value=0)) if k and p == "")
    notes.append(f"Column '{who}' names who labelled ({plural(len(order), 'annotator')}: "
                 f"{', '.join(order[:6])}{' ...' if len(order) > 6 else ''}), never a label: the rows are "
                 f"annotations, {plural(len(rec), 'row')} of {plural(n, 'record')}. Each record's people's label "
                 f"(column '{people_col}') is the one a strict majority of its annotators gave in column '{human}'"
                 + (f" ({ties} without a majority are left blank)" if ties else "")
                 + f"; each annotator is a column of their own ({', '.join(cols[:4])}{' ...' if len(cols) > 4 else ''})"
                 + (f"; {plural(doubled, 'second label')} of an annotator for the same record left out"
                    if doubled else "") + ".")
    sig["people"] = f"annotators({who}),majority"
    out = dataclasses.replace(out, frame=new, cell_source=_Keep(out.cell_source, new.columns, kept))
    options = dataclasses.replace(options, judge=judge_col, item=record_col, human=(people_col, *cols),
                                  majority=True)
    return Prepared(out, options, notes, sig, [], [])


class _Keep:
    """The original table's cell text, for its own columns (new columns are text already)."""

    def __init__(self, source, columns, original) -> None:
        self._source, self._original = source, set(original)

    def text(self, column, wanted=()):
        if self._source is None or column not in self._original:
            return None
        return self._source.text(column, wanted)


def _record_ids(table: LoadedTable, system, item, repeat) -> list[str]:
    items = np.asarray(to_text(table, item), dtype=object) if item in table.frame.columns \
        else np.asarray([str(x) for x in table.lines_of(range(len(table.frame)))], dtype=object)
    out = [str(x) for x in items]
    if system is not None:
        systems = np.asarray(to_text(table, system), dtype=object)
        out = [f"{s} / {x}" for s, x in zip(systems, out)]
    if repeat is not None and repeat in table.frame.columns:
        reps = np.asarray(to_text(table, repeat), dtype=object)
        out = [f"{x} (epoch {r})" for x, r in zip(out, reps)]
    return out


def own_score(table: LoadedTable, evaluation: Evaluation, judge: Scorer, system, item, failed=None, *,
              blank_fails: bool = False):
    """The judge's own score per system: each item's mean over its scored repeats, then the
    mean over the items it scored (Inspect's accuracy), a percentile bootstrap over the items.
    ``failed``: the rows of errored records counted as failures (scored 0); errored records
    left out are no rows of ``table`` (:func:`prepare`).  ``blank_fails``: the records it left
    blank are failures too (``--errors fail``, as the reading scores unscored records on every
    panel); they are still counted as unscored."""
    values = pd.to_numeric(table.frame[judge.column], errors="coerce").to_numpy(dtype=float)
    if failed is not None:
        values = np.where(failed, 0.0, values)
    blank = np.isnan(values)
    if blank_fails:
        values = np.where(blank, 0.0, values)
    items = np.asarray(to_text(table, item), dtype=object)
    systems = np.asarray(to_text(table, system), dtype=object) if system else np.full(len(values), "", dtype=object)
    records, rows = [], []
    for name in dict.fromkeys(systems):
        m = systems == name
        frame = pd.DataFrame({"item": items[m], "v": values[m]})
        per_item = frame.dropna().groupby("item", sort=False)["v"].mean()
        unscored_records = int(blank[m].sum())
        unscored_items = int(frame["item"].nunique() - len(per_item))
        x = per_item.to_numpy(dtype=float)
        n = len(x)
        mean = float(x.mean()) if n else float("nan")
        lo = hi = None
        if n > 1 and np.ptp(x) > 0:
            lo, hi = hc.percentile_interval(hc.bootstrap_means(x, resamples=hc.RESAMPLES, seed=hc.SEED))
        who = {"system": name} if system else {}
        records.append(record("judge_score", mean, n=n, ci_low=lo, ci_high=hi,
                              ci_method=f"bootstrap-percentile-95,B={hc.RESAMPLES},seed={hc.SEED},over:items"
                              if lo is not None else None, **who))
        records.append(record("judge_unscored", unscored_records, n=int(m.sum()), **who))
        rows.append({"system": name, "score": mean, "items": n, "ci_low": lo, "ci_high": hi,
                     "unscored_records": unscored_records, "unscored_items": unscored_items,
                     "reported": judge.metric or ""})
    tab = Table("judge_score", f"The judge's own score ('{judge.name}'), per system", pd.DataFrame(rows),
                {"score": "mean over the items of each item's mean over its repeats, blanks scored 0" if blank_fails
                 else "mean over the items it scored of each item's mean over its scored repeats",
                 "items": "items with at least one scored repeat", "unscored_records": "records it left blank",
                 "unscored_items": "items with no scored repeat", "reported": "what the tool itself reported"},
                {"score": "score", "ci_low": "score", "ci_high": "score", "items": "int",
                 "unscored_records": "int", "unscored_items": "int", "reported": "text", "system": "text"})
    return records, tab


def _check_meet(frame: pd.DataFrame, judge_col: str, people_col: str, name: str) -> None:
    """Refuse agreement over two label sets that never meet, with both sets and a map to give."""
    judge = {str(x) for x in frame[judge_col] if str(x) not in ("", "nan")}
    people = {str(x) for x in frame[people_col] if str(x) not in ("", "nan")}
    if not judge or not people or judge & people:
        return
    guess = {}
    for j in sorted(judge):
        match = [p for p in people if p[:1].casefold() == j[:1].casefold()]
        if len(match) == 1:
            guess[j] = match[0]
    hint = (" (for instance --label-map " + ",".join(f"{a}={b}" for a, b in guess.items()) + ")"
            if len(guess) == len(judge) else "")
    raise DataError(f"The judge's labels ({', '.join(sorted(judge))}) and the people's "
                    f"({', '.join(sorted(people))}) never meet, so no agreement can be measured; give "
                    f"--label-map JUDGE=PEOPLE pairs{hint}.")


__all__ = ["PEOPLE", "Prepared", "judge_scorer", "own_score", "parse_label_map", "prepare"]


def people_only(table: LoadedTable, evaluation: Evaluation, *, label: str | None = None, items=None,
                read: str = "") -> "AnalysisResult | None":
    """People's labels without a judge (a Label Studio export alone, a plain table of
    annotations): how far the annotators agree with each other: Krippendorff's alpha (nominal)
    over every annotator, each pair's raw agreement and Cohen's kappa on the items both
    labelled, and the labels' counts.  ``label``: the column of the people's labels (default:
    the primary scorer's); ``items``: each row's item (default: the item column's ids);
    ``read``: how a plain table's columns were read, for the note."""
    from ..core.result import AnalysisResult
    from ..metrics import agreement as ag
    from ._common import base_signature

    who, item = evaluation.annotator, evaluation.item
    if label is None:
        scorer = evaluation.scorer()
        label = scorer.column if scorer is not None else None
    if who is None or (item is None and items is None) or label is None:
        return None
    frame = pd.DataFrame({"item": to_text(table, item) if items is None else list(items),
                          "who": to_text(table, who), "label": to_text(table, label)})
    frame = frame[(frame["label"] != "") & (frame["who"] != "")]
    wide = frame.pivot_table(index="item", columns="who", values="label", aggfunc="first", sort=False)
    wide = wide[sorted(wide.columns, key=lambda c: (len(str(c)), str(c)))]  # user ids: 2 before 10
    people = [str(c) for c in wide.columns]
    if len(people) < 2:
        return None
    cats = sorted(set(frame["label"]))
    code = {c: i for i, c in enumerate(cats)}
    data = np.array([[code[x] if isinstance(x, str) else np.nan for x in wide[p]] for p in wide.columns],
                    dtype=float)
    units = int((np.isfinite(data).sum(0) >= 2).sum())
    records = [record("alpha", ag.krippendorff_alpha(data, level="nominal"), group="people alone", n=units)]
    rows = []
    for a in range(len(people)):
        for b in range(a + 1, len(people)):
            both = np.isfinite(data[a]) & np.isfinite(data[b])
            n = int(both.sum())
            if not n:
                continue
            tab = ag.confusion_table(data[a, both].astype(int), data[b, both].astype(int), len(cats))
            po = float(np.trace(tab)) / n
            kappa = ag.cohens_kappa(tab)
            pair = f"{people[a]} vs {people[b]}"
            records.append(record("agreement", po, group=pair, n=n))
            records.append(record("kappa", kappa.value, group=pair, n=n))
            rows.append({"pair": pair, "items": n, "agreement": po, "kappa": kappa.value})
    counts = frame.groupby(["who", "label"]).size().unstack(fill_value=0).reindex(columns=cats, fill_value=0)
    counts.insert(0, "annotator", [str(i) for i in counts.index])
    tables = (Table("pairs", "Each pair of annotators, on the items both labelled", pd.DataFrame(rows),
                    formats={"items": "int", "agreement": "rate", "kappa": "score", "pair": "text"}),
              Table("labels", "Labels per annotator", counts.reset_index(drop=True),
                    formats={c: "int" for c in cats} | {"annotator": "text"}))
    sig = {**base_signature("judge"), "judge": "none",
           "people": f"annotators({who}):{len(people)}" if read else f"annotators:{len(people)}",
           "alpha": "krippendorff-nominal", "pairs": "raw-agreement,cohen-kappa"}
    if read:  # a plain table: its columns, and the judge's column it may be given
        said = (f"No judge's labels in '{table.name}' ({read}): this is how far its {len(people)} annotators "
                f"agree with each other ({', '.join(people[:6])}), over {units} items labelled by two or more. "
                "Give the judge's labels as a column of the file (--judge COLUMN) to measure the judge against "
                "them.")
    else:
        said = (f"No judge's labels in '{table.name}': this is how far its {len(people)} annotators agree with "
                f"each other ({', '.join(people[:6])}), over {units} items labelled by two or more. Open the "
                "judge's log with it (or 'workbench judge LOG --human LABELS') to measure the judge against them.")
    notes = (said,)
    return AnalysisResult("judge", signature(sig), tuple(records), tables, notes, table.path,
                          json_tables=("pairs", "labels"))
