"""The common header names of each column role (standard library only).

They live in ``core`` so that the launcher can read a file's header and name the command that
fits it without importing pandas (:func:`suggest_command`); :mod:`workbench.io.roles` uses them to
guess the roles of a loaded table.
"""

from __future__ import annotations

import csv
import os
import re

#: Common header names for each column role, most specific first (matched ignoring case,
#: spaces, underscores and hyphens).
ROLE_NAMES: dict[str, list[str]] = {
    "id": ["item_id", "id", "item", "example_id", "qid_item", "uid", "sample_id"],
    # (the analyses guess their item column from these too: one list, so the file's reading and
    # every panel take the same column)
    "item": ["item_id", "item", "id", "example_id", "uid", "sample_id", "question_id", "question",
             "answer_id", "response_id"],
    "system": ["system", "model", "run", "variant", "system_name", "model_name", "run_id"],
    "version": ["version", "model_version", "release", "eval_version"],
    "group": ["group", "segment", "language", "lang", "category", "slice", "domain", "subset"],
    "cluster": ["cluster", "conversation", "conversation_id", "user", "user_id", "session"],
    "unit": ["unit", "conversation", "conversation_id", "document", "user", "session"],
    "prediction": ["prediction", "pred", "output", "answer", "hypothesis", "response",
                   "generated", "candidate_text"],
    "reference": ["reference", "ref", "gold", "target", "expected", "label", "ground_truth"],
    "query": ["query", "query_id", "qid", "topic", "question_id"],
    "doc": ["doc", "doc_id", "docid", "docno", "document", "document_id", "passage_id", "pid"],
    "score": ["score", "sim", "similarity", "retrieval_score"],
    "rank": ["rank", "position", "pos"],
    "relevance": ["relevance", "rel", "grade", "label", "judgment", "qrel", "relevant"],
    "task": ["task", "task_id", "problem", "problem_id", "instance_id"],
    "n": ["n", "attempts", "samples", "num_samples", "trials"],
    "correct": ["c", "correct", "passed", "num_correct", "successes"],
    "success": ["success", "passed", "pass", "correct", "solved", "outcome", "resolved"],
    "outcome": ["outcome", "success", "correct", "passed", "score", "result", "pass", "solved",
                "resolved"],
    "numerator": ["numerator", "correct_claims", "num", "hits"],
    "denominator": ["denominator", "claims", "total", "den"],
    "cost": ["cost", "cost_usd", "price", "usd", "dollars"],
    "latency": ["latency", "latency_s", "latency_ms", "duration", "seconds", "time"],
    "judge": ["judge", "judge_label", "judge_verdict", "grader", "llm_judge", "model_grade",
              "auto_label", "predicted_label"],
    # people's labels; never a column that names WHO labelled (an annotator's name or id: the
    # "annotator" role below)
    "human": ["human", "human_label", "human_verdict", "gold_label"],
    "annotator": ["annotator", "annotator_id", "annotator_name", "rater", "rater_id", "labeler",
                  "labeler_id", "labeller", "labeller_id", "worker", "worker_id", "annotated_by",
                  "labeled_by", "labelled_by", "completed_by"],
    "epoch": ["epoch", "repeat", "repetition", "seed", "try", "attempt", "trial", "sample_index"],
    "steps": ["steps", "num_steps", "n_steps", "turns"],
    "tool_calls": ["tool_calls", "num_tool_calls", "n_tool_calls"],
    "baseline": ["baseline", "a", "old", "control"],
    "candidate": ["candidate", "b", "new", "treatment"],
}

#: Names that are the people's label only beside a judge's column (a file with a judge column and
#: no column named for people's labels): elsewhere a ``label`` is a text file's reference or a
#: ranking's relevance grade.
HUMAN_BESIDE_JUDGE: list[str] = ["label", "gold"]

_NOISE = re.compile(r"[\s_\-]+")


def _norm(name: str) -> str:
    return _NOISE.sub("", str(name).lower())


def find(columns: list[str], role: str, taken: tuple[str, ...] = ()) -> str | None:
    """The column of ``columns`` whose name says ``role`` (ignoring case, spaces, ``_``, ``-``)."""
    free = [c for c in columns if c not in taken]
    for candidate in [*ROLE_NAMES.get(role, []), role]:
        key = _norm(candidate)
        hit = next((c for c in free if _norm(c) == key), None)
        if hit is not None:
            return hit
    return None


def human_column(columns: list[str], judge: str | None, taken: tuple[str, ...] = ()) -> str | None:
    """The column of people's labels by its name: one named for them (``human``,
    ``human_label``...), else, beside the judge's column ``judge``, a plain ``label`` or ``gold``
    (:data:`HUMAN_BESIDE_JUDGE`).  Never the judge's column, nor one that names who labelled
    (``annotator``, ``rater``, ``worker_id``: the annotator role)."""
    taken = tuple(taken) + ((judge,) if judge else ())
    hit = find(columns, "human", taken)
    if hit is not None or not judge:
        return hit
    free = [c for c in columns if c not in taken]
    for name in HUMAN_BESIDE_JUDGE:
        hit = next((c for c in free if _norm(c) == _norm(name)), None)
        if hit is not None:
            return hit
    return None


def header_of(path: str) -> list[str] | None:
    """The column names of a CSV/TSV file's first line (None for other files or on failure)."""
    if not str(path).lower().endswith((".csv", ".tsv", ".txt")) or not os.path.isfile(path):
        return None
    try:
        with open(path, encoding="utf-8-sig", errors="replace", newline="") as fh:
            line = fh.readline(65536)
    except OSError:
        return None
    return header_names(line, ",\t")


def header_names(line: str, delimiters: str = ",\t") -> list[str] | None:
    """The column names of a header line, split at the most frequent of ``delimiters`` (the
    first listed on a tie); None unless there are two or more, none empty."""
    delimiter = max(delimiters, key=line.count)
    try:
        names = next(csv.reader([line], delimiter=delimiter))
    except (csv.Error, StopIteration):
        return None
    names = [n.strip() for n in names]
    return names if len(names) > 1 and all(names) else None


def _arg(text: str) -> str:
    return f"'{text}'" if not text or any(ch in text for ch in " '\"$;&|<>()*?") else text


def suggest_command(path: str) -> str | None:
    """A headless command that fits the columns of the file at ``path`` (CSV/TSV), naming its
    own columns, e.g. ``workbench aggregate claims.csv --numerator correct_claims --denominator
    claims``; None when the header is not readable or fits no analysis."""
    cols = header_of(path)
    if not cols:
        return None
    f = lambda role, *taken: find(cols, role, taken)  # noqa: E731
    target = _arg(path)
    judge = f("judge")
    human = human_column(cols, judge)
    if judge and human and judge != human:
        return f"workbench judge {target} --judge {_arg(judge)} --human {_arg(human)}"
    query, doc = f("query"), f("doc")
    if query and doc:
        return f"workbench ranking {target} --query {_arg(query)} --doc {_arg(doc)}"
    pred, ref = f("prediction"), f("reference")
    if pred and ref:
        return f"workbench text {target} --prediction {_arg(pred)} --reference {_arg(ref)}"
    task, n = f("task"), f("n")
    c = f("correct", *(x for x in (task, n) if x))
    if task and n and c:
        return f"workbench passk {target} --task {_arg(task)} --n {_arg(n)} --correct {_arg(c)}"
    success = f("success", *(x for x in (task,) if x))
    if task and success:
        return f"workbench passk {target} --task {_arg(task)} --success {_arg(success)}"
    base, cand = f("baseline"), f("candidate")
    if base and cand and base != cand:
        return f"workbench compare {target} --baseline {_arg(base)} --candidate {_arg(cand)}"
    num, den = f("numerator"), f("denominator")
    if num and den and num != den:
        unit = f("unit", num, den)
        return (f"workbench aggregate {target} --numerator {_arg(num)} --denominator {_arg(den)}"
                + (f" --unit {_arg(unit)}" if unit else ""))
    cost = f("cost")
    if cost and success:
        return f"workbench cost {target} --success {_arg(success)} --cost {_arg(cost)}"
    outcome = f("outcome")
    epoch = f("epoch", *(x for x in (outcome,) if x))
    if outcome and epoch:
        system = f("system", outcome, epoch)
        return (f"workbench repeats {target} --outcome {_arg(outcome)} --repeat {_arg(epoch)}"
                + (f" --system {_arg(system)}" if system else ""))
    group = f("group", *(x for x in (outcome,) if x)) if outcome else None
    if outcome and group:
        version = f("version", outcome, group)
        return (f"workbench aggregate {target} --outcome {_arg(outcome)} --group {_arg(group)}"
                + (f" --version {_arg(version)}" if version else ""))
    runs = f("system", *(x for x in (outcome,) if x)) or f("version", *(x for x in (outcome,) if x))
    if outcome and runs:  # one row per run (or version) and item: runs side by side
        return f"workbench runs {target} --system {_arg(runs)} --outcome {_arg(outcome)}"
    return None
