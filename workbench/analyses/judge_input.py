"""The Judge panel's input from an evaluation log: which scorer is the judge, whose labels are
the people's, and how the two meet.

- The judge is the chosen scorer when it is a judge, else the log's first judge scorer (an LLM
  grader, a judge panel); each record (system, item, repeat) is one judgement.
- The people's labels are the log's human scorers: a labels file joined by item when it was
  opened with the log or given with ``--human FILE``
  (:mod:`workbench.io.formats.labels_join`: the majority of the annotators is ``people``).
- Without people's labels, a second judge scorer (a judge panel) is compared with the judge on
  the records both scored.
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

from ..core.errors import DataError
from ..core.result import Table, record
from ..io import LoadedTable, to_text
from ..io.evaluation import HUMAN, JUDGE, JUDGE_PANEL, Evaluation, Scorer, item_column
from ..io.formats.labels_join import PEOPLE, join_labels
from ..metrics import headline_ci as hc



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


def prepare(table: LoadedTable, options, evaluation: Evaluation, chosen: str | None,
            labels: list[LoadedTable], label_map: tuple[tuple[str, str], ...]) -> Prepared | None:
    """The judge's table and options (None: a plain table of labels, read as it is)."""
    if getattr(table, "evaluation", None) is None and not labels:
        return None
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
        records_, table_ = own_score(table, evaluation, judge, system, item)
        records += records_
        tables.append(table_)
    humans: list[str] = list(options.human or ())
    human_scorers = [s.labels or s.column for s in evaluation.scorers if s.kind == HUMAN]
    if humans and humans[0] == PEOPLE and human_scorers[:1] == [PEOPLE]:
        humans = human_scorers  # the majority, then each annotator (for alpha)
        sig["people"] = "joined-labels,majority"
    if not humans:
        people = [s for s in evaluation.scorers if s.kind == HUMAN]
        if any(s.name == PEOPLE for s in people):
            sig["people"] = "joined-labels,majority"
        panel = [s for s in evaluation.scorers if s.kind in (JUDGE, JUDGE_PANEL) and judge is not None
                 and s.name != judge.name]
        if people:
            humans = [p.labels or p.column for p in people]
        elif panel:
            second = panel[0]
            humans = [second.labels if second.labels in frame.columns else second.column]
            notes.append(f"The file holds no people's labels: the judge is compared with the other judge "
                         f"'{second.name}' ({second.kind}) on the records both scored; give people's labels "
                         "with --human FILE (a Label Studio export) or open them with the log.")
            sig["people"] = f"judge:{second.name}"
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
    options = dataclasses.replace(options, judge=judge_col, item=options.item or "record",
                                  human=tuple(humans) or None)
    return Prepared(new, options, notes, sig, records, tables)


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


def own_score(table: LoadedTable, evaluation: Evaluation, judge: Scorer, system, item):
    """The judge's own score per system: each item's mean over its scored repeats, then the
    mean over the items it scored (Inspect's accuracy), a percentile bootstrap over the items."""
    values = pd.to_numeric(table.frame[judge.column], errors="coerce").to_numpy(dtype=float)
    items = np.asarray(to_text(table, item), dtype=object)
    systems = np.asarray(to_text(table, system), dtype=object) if system else np.full(len(values), "", dtype=object)
    records, rows = [], []
    for name in dict.fromkeys(systems):
        m = systems == name
        frame = pd.DataFrame({"item": items[m], "v": values[m]})
        per_item = frame.dropna().groupby("item", sort=False)["v"].mean()
        unscored_records = int(np.isnan(values[m]).sum())
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
                {"score": "mean over the items it scored of each item's mean over its scored repeats",
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


def people_only(table: LoadedTable, evaluation: Evaluation) -> "AnalysisResult | None":
    """People's labels without a judge (a Label Studio export alone): how far the annotators
    agree with each other: Krippendorff's alpha (nominal) over every annotator, each pair's raw
    agreement and Cohen's kappa on the items both labelled, and the labels' counts."""
    from ..core.result import AnalysisResult, signature
    from ..metrics import agreement as ag
    from ._common import base_signature

    who, item = evaluation.annotator, evaluation.item
    label = evaluation.scorer()
    if who is None or item is None or label is None:
        return None
    frame = pd.DataFrame({"item": to_text(table, item), "who": to_text(table, who),
                          "label": to_text(table, label.column)})
    frame = frame[frame["label"] != ""]
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
    sig = {**base_signature("judge"), "judge": "none", "people": f"annotators:{len(people)}",
           "alpha": "krippendorff-nominal", "pairs": "raw-agreement,cohen-kappa"}
    notes = (f"No judge's labels in '{table.name}': this is how far its {len(people)} annotators agree with "
             f"each other ({', '.join(people[:6])}), over {units} items labelled by two or more. Open the judge's "
             "log with it (or 'workbench judge LOG --human LABELS') to measure the judge against them.",)
    return AnalysisResult("judge", signature(sig), tuple(records), tables, notes, table.path,
                          json_tables=("pairs", "labels"))
