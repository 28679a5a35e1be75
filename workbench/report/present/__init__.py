"""The one presentation module: how every number is shown, and the answer each panel leads with.

Every renderer uses it: the GUI's tables, answer cards and charts, the Excel report's number
formats and sentences, and the command line's human output.  It needs no GUI toolkit.

The number-format policy (one format per *kind* of number)
===========================================================

The policy itself (the kinds, :func:`format_value`, :func:`format_p`, :func:`format_interval`,
the Excel-like rounding) lives in :mod:`workbench.core.numbers`, so that the analyses' notes and
the release rules' card use it too; this module re-exports those names, so ``present.format_value``
and ``core.numbers.format_value`` are the same function.  It adds the Excel formats, the display
names and the answers.

**Excel.**  :func:`excel_format` gives the format of a kind; with ``value=`` it gives the format
that displays that very value as :func:`format_value` does (p-values below 0.001 get the format
``"< 0.001"``, a text-only format, so the cell keeps its number for auditing but shows the text;
tiny rates get more decimals).  Excel cannot scale a number by 100 without showing ``%``, so a
``points`` cell holds the value in points (:func:`excel_value` converts), with the format
``+0.0" pts"`` (``0.0" pts"`` for a margin).

The answers
===========

One module per analysis or two (``answers_*.py``); the pieces they share in ``_common.py``,
the display names in ``_names.py``, the Excel formats in ``_excel.py``.  This package
re-exports them, so ``present.display_name`` and the rest keep their one name.

:func:`answer` turns an analysis result (or a gate result) into one or two plain sentences, a
badge and a tone (``good``, ``bad``, ``borderline`` or ``neutral``).  Every number in them is
a value of the result's records or tables, formatted here; nothing is computed anew.  The
judgements use the conventional alpha of 0.05 (the analyses' own notes use it too).
"""

from __future__ import annotations

import dataclasses
import re
from typing import Iterable

from ... import catalog
from ...core.numbers import (  # noqa: F401  (re-exported: the policy's one home is core.numbers)
    _EXACT_KINDS, _FLOOR, _PATTERN_KINDS, _SCALE, _SIGNED, _STAT_RE, ALPHA, DECIMALS, GATE_UNIT_KINDS,
    HINT_KINDS, KINDS, MISSING, _cost_decimals, _currency_affix, _decimals_for, _fixed, _is_missing,
    _p_decimals, display_separators, excel_round, format_interval, format_p, format_record, format_value,
    gate_kind, interval_method, kind_of, localize, set_display_separators,
)
from ...core.numbers import _pl, plural as _plural  # noqa: F401
from ...core.numbers import split_paired as _split_paired  # noqa: F401  (diff:ndcg@10 and other paired ids)
from ._common import (  # noqa: F401
    _STATUS_WORDS, _TEST_WORDS, Answer, _card_clause, _ci, _finite, _first, _fixed_stat, _fv,
    _pair_sentences, _q, _signature_fields, _supported_ks, _systems, _top_k, bounds_shown, gate_status,
    interval_label, interval_text, interval_words, is_measure, method_label, no_interval_reason, record_kind, registration_sentence,
    shown_frame, t_sentence,
)
from ._excel import _FIXED_EXCEL, _quote, _zeros, excel_format, excel_value  # noqa: F401
from ._names import (  # noqa: F401
    _NAMES, _TABLE_NAMES, _pattern_key, column_kind, column_name, display_name, record_name, registry_names,
    table_kinds,
)
from .answers_compare import _answer_compare, _answer_compare_scores  # noqa: F401
from .answers_cost_plan import _answer_cost, _answer_plan, _effort_clause  # noqa: F401
from .answers_gate import _answer_gate
from .answers_judge_rubric import _answer_judge, _answer_rubric
from .answers_passk_aggregate import _answer_aggregate, _answer_passk
from .answers_runs_repeats import _answer_repeats, _answer_runs, _repeats_items_or_repeats  # noqa: F401
from .answers_text_ranking import _answer_ranking, _answer_text
from .answers_slices import _answer_slices


_ANSWERS = {"text": _answer_text, "ranking": _answer_ranking, "passk": _answer_passk,
            "aggregate": _answer_aggregate, "compare": _answer_compare, "cost": _answer_cost,
            "plan": _answer_plan, "gate": _answer_gate, "judge": _answer_judge,
            "rubric": _answer_rubric, "runs": _answer_runs,
            "repeats": _answer_repeats, "slices": _answer_slices}



def answer(result, *, currency: str | None = None) -> Answer:
    """The answer card of an analysis (or gate) result: sentences, badge and tone."""
    fn = _ANSWERS.get(result.analysis)
    ans = None
    if any("convention" in r for r in getattr(result, "records", ())):  # the card reads the
        result = dataclasses.replace(result, records=tuple(  # result's own records
            r for r in result.records if "convention" not in r))
    if fn is not None:
        try:
            ans = fn(result, currency)
        except (KeyError, TypeError, ValueError, IndexError):  # records shaped unlike the analysis's own
            ans = None
    if ans is None:
        recs = [r for r in result.records if r.get("value") is not None][:3]
        if not recs:
            return Answer(("No results.",), "no results", "neutral")
        text = "; ".join(f"{record_name(r)} {format_record(r, currency=currency)}"
                         + (f" (n = {format_value(r['n'], 'count')})" if r.get("n") is not None else "")
                         for r in recs)
        ans = Answer((text + ".",), result.analysis, "neutral")
    return _with_conventions(_with_reading(_with_errored(ans, result), result), result)


def _with_reading(ans: Answer, result) -> Answer:
    """The card names the scorer its numbers come from and says when an item's repeats were
    reduced (the signature's ``scorer`` and ``unit``, written by the reading of the file)."""
    sig = str(getattr(result, "signature", "") or "")
    fields = dict(p.split(":", 1) for p in sig.split("|") if ":" in p)
    scorer, unit = fields.get("scorer"), fields.get("unit")
    if scorer is None or getattr(result, "analysis", None) == "gate":
        return ans
    name, _, kind = scorer.partition("(")
    if f"'{name}'" in ans.text:
        return ans
    text = f"Scorer '{name}'" + (f" ({kind.rstrip(')')})" if kind else "")
    if unit and unit.startswith("item("):
        text += f"; each item's repeats reduced to their {unit[5:].split(' ', 1)[0]}"
    return dataclasses.replace(ans, sentences=ans.sentences + (text + ".",))



def _with_conventions(ans: Answer, result) -> Answer:
    """The card's line on the conventions (when the result carries their table): "The verdict
    holds under N of M conventions; with X it does not (value, CI)"."""
    from ...analyses.conventions import TABLE, verdict_sentences

    tables = getattr(result, "tables", ()) or ()
    frame = next((t.frame for t in tables if t.name == TABLE), None)
    if frame is None or not len(frame) or getattr(result, "analysis", None) == "gate":
        return ans  # (a gate's conventions sentence is its note)
    def fmt(metric: str, x) -> str:
        return format_value(x, kind_of(metric))

    return dataclasses.replace(ans, sentences=tuple(ans.sentences) + tuple(verdict_sentences(frame, fmt)))



_ERRORED_NOTE = re.compile(r"(\d+) of (\d+) rows ended with an error")



def _with_errored(ans: Answer, result) -> Answer:
    """The card says when rows that ended with an error were left out or counted as failures
    (the note :mod:`workbench.analyses._rows` writes; the signature's ``errored``)."""
    sig = str(getattr(result, "signature", "") or "")
    if "errored:" not in sig or getattr(result, "analysis", None) not in catalog.BY_NAME:
        return ans  # (a gate's card keeps its own sentences: its last one is the rule)
    for note in getattr(result, "notes", ()) or ():
        match = _ERRORED_NOTE.search(str(note))
        if match and "Errors are not measurements" in str(note):
            count, total = match.group(1), match.group(2)
            how = ("left out" if "errored:excluded" in sig
                   else "counted as failures")
            return dataclasses.replace(ans, sentences=ans.sentences + (
                f"{count} of {total} rows ended with an error and are {how}.",))
    return ans



def metric_ids(results: Iterable) -> set[str]:
    """Every metric id the results' records carry (for coverage checks)."""
    return {r["metric"] for res in results for r in res.records}
