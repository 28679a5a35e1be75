"""A release rule's verdict under each alternative convention of its conditions.

The rule's ranking conditions state their gain, tie policy, no-relevant and unjudged policies
and relevance threshold, its latency conditions their percentile method.  Here each of those
conventions is changed, one at a time, in every condition that has it, and the rule is judged
again on the same tables: the verdict "holds" under a convention when it is the verdict of the
rule as written.
"""

from __future__ import annotations

from dataclasses import replace

import pandas as pd

from ..analyses.conventions import EMPTY_COLUMNS, TABLE
from ..core.progress import NULL_PROGRESS, Scaled
from ..core.result import AnalysisResult, Table, record


def _choices() -> dict[str, tuple]:
    from ..analyses import ranking as rk
    from ..metrics.ranking import GAINS

    # a rule is judged again under the two percentile definitions teams quote (the Cost panel's
    # conventions table gives every numpy method)
    return {"gain": GAINS, "ties": rk.TIES, "no_relevant": rk.NO_RELEVANT,
            "unjudged": rk.UNJUDGED, "relevance_threshold": (1.0, 2.0),
            "percentile_method": ("linear", "nearest_rank")}


def alternatives(rule) -> list[tuple[str, str, object]]:
    """(what is changed, its setting, the rule with it) for each convention a condition states."""
    out = []
    for key, values in _choices().items():
        conds = [c for c in rule.conditions if key in c.options]
        if not conds:
            continue
        for value in values:
            if all(c.options[key] == value for c in conds):
                continue  # the rule as written
            new = tuple(replace(c, options={**c.options, key: value}) if key in c.options else c
                        for c in rule.conditions)
            out.append((key, f"{value:g}" if isinstance(value, float) else str(value),
                        replace(rule, conditions=new)))
    return out


def with_conventions(rule, tables, result: AnalysisResult, progress=NULL_PROGRESS, reading=None,
                     reading_from_rule: bool = True) -> AnalysisResult:
    """The gate ``result`` with its conventions table, one ``convention_verdict`` record per convention
    and a ``verdict_holds:verdict`` record (value N of n = M conventions)."""
    from .evaluate import evaluate

    verdict = result.value("verdict")
    rows = [_row("rule as written", "", True, verdict, verdict)]
    alts = alternatives(rule)
    for i, (key, setting, changed) in enumerate(alts):
        progress.check_cancelled()
        other = evaluate(changed, tables, progress=Scaled(progress, i / len(alts), (i + 1) / len(alts)),
                         reading=reading, reading_from_rule=reading_from_rule)  # the same reading
        rows.append(_row(key, setting, False, other.value("verdict"), verdict))
    frame = pd.DataFrame(rows, columns=list(EMPTY_COLUMNS))
    records = [record("convention_verdict", r["value"], group=f"convention: {r['convention']}",
                      convention=r["convention"], holds=bool(r["holds"])) for _, r in frame.iterrows()]
    records.append(record("verdict_holds:verdict", int(frame["holds"].sum()), n=len(frame),
                          group="conventions"))
    table = Table(TABLE, "What changes the verdict: the rule judged under each convention", frame,
                  columns={"convention": "the convention changed in every condition that states it "
                                         "(one at a time)",
                           "value": "the rule's verdict under it",
                           "holds": "the same verdict as the rule as written"},
                  formats={"holds": "text", "value": "text"})
    notes = [verdict_sentence(frame)]
    if len(frame) == 1:
        notes.append("Conventions: no condition of this rule states a convention that could be "
                     "changed (ranking gain, ties, no-relevant and unjudged policies, relevance "
                     "threshold; latency percentile method).")
    return replace(result, records=result.records + tuple(records), tables=result.tables + (table,),
                   notes=result.notes + tuple(notes))


def _row(key: str, setting: str, default: bool, verdict: str, as_written: str) -> dict:
    name = key if default else f"{key}: {setting}"
    return {"metric": "verdict", "convention": name, "changed": key, "setting": setting,
            "default": default, "value": verdict, "ci_low": None, "ci_high": None, "interval": "",
            "p": None, "n": None, "holds": verdict == as_written}


def verdict_sentence(frame: pd.DataFrame) -> str:
    """"The rule's verdict (PASS) holds under N of M conventions; with X it is FAIL"."""
    written = frame["value"].iloc[0]
    holds = frame["holds"].astype(bool)
    text = (f"The rule's verdict ({written}) holds under {int(holds.sum())} of {len(frame)} "
            f"conventions")
    failing = frame[~holds]
    if len(failing):
        text += "; " + "; ".join(f"with {r['convention']} it is {r['value']}"
                                 for _, r in failing.head(3).iterrows())
        if len(failing) > 3:
            text += f"; and {len(failing) - 3} more"
    return text + "."
