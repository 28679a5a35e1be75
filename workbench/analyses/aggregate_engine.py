"""Aggregation on DuckDB or Spark: the engine counts the file's rows per (version, group, outcome)
or per unit (:mod:`workbench.engines.tally`), and :mod:`workbench.analyses.aggregate` computes
its numbers from those counts as it does in memory (its ``run_engine``).

* group form, 0/1 outcomes: rates, micro, macro and their intervals come from the counts per
  (version, group) in memory too, so every engine gives the same numbers (scores in [0, 1]
  need each item for their bootstrap: refused with a sentence, compute them in memory);
* unit form (outcome + unit): per unit the outcomes' sum and count;
* ratio form (numerator + denominator + unit): per unit the sums (a unit column is needed:
  without one every row is a unit, and the per-unit table is the file itself).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..core.errors import DataError, OptionError
from ..io.cells import parse_number
from ..io.columns import _binary_value
from . import _engine

WHAT = "the table of counts per group or unit"


def outcomes(tallied, column: str, ok: np.ndarray, notes: list[str]) -> tuple[np.ndarray, bool]:
    """The outcome cells (one per tally row) as :func:`aggregate.outcome_values` reads them:
    0/1 outcomes, else numbers between 0 and 1 (noted) among the rows ``ok``."""
    cells = tallied.frame[column].to_numpy(dtype=object)
    codes, uniques = pd.factorize(cells)
    binary = np.array([_binary_value(u) for u in uniques], dtype=np.int8)
    if not ((binary[codes] < 0) & ok).any():
        return binary[codes].astype(float), True
    numbers = np.array([np.nan if parse_number(str(u)) is None else parse_number(str(u))
                        for u in uniques], dtype=float)
    values = numbers[codes]
    if (np.isnan(values) & ok).any():
        _engine.decode_binary(tallied, column, keep=ok)  # raises: the binary values' sentence
    out = ok & ((values < 0) | (values > 1))
    if out.any():
        first = int(np.flatnonzero(out)[0])
        rows = int(tallied.frame["w"].to_numpy()[out].sum())
        raise DataError(
            f"File '{tallied.path}', column '{column}' must hold outcomes 0/1 or scores between "
            f"0 and 1; found {values[first]:g} on "
            f"{tallied.describe_rows([tallied.frame['first_rn'].iloc[first]])} ({rows} rows out "
            f"of range).")
    notes.append(f"Column '{column}' holds scores between 0 and 1, not 0/1 outcomes; rates are "
                 f"mean scores, 'successes' are sums of scores and no Wilson interval is given.")
    return np.where(ok, values, 0.0), False


def _kept(tallied, err_col, options):
    bad, err = _engine.errored(tallied, err_col, options.errored)
    keep = ~bad | (err.mode == "failure")  # failed rows stay, with outcome 0
    return bad, keep, err


def group_counts(got, options, out_col, grp_col, ver_col, err_col, notes, progress):
    """Items and successes per (version, group) of 0/1 outcomes, the groups' and versions'
    labels in order of first appearance, the errored rows and the engine's note."""
    def counted(tallied):
        bad, keep, err = _kept(tallied, err_col, options)
        y, binary = outcomes(tallied, out_col, ~bad, notes)
        if not binary:
            raise DataError(
                f"Column '{out_col}' of file '{tallied.path}' holds scores between 0 and 1: "
                f"their intervals resample each item, so the group form of scores is computed "
                f"in memory only (--engine memory; with DuckDB or Spark give 0/1 outcomes, or "
                f"the unit form: --unit).")
        frame = tallied.frame[keep]
        w = frame["w"].to_numpy(dtype=np.int64)
        s = np.where(bad, 0, y)[keep].astype(np.int64) * w
        if grp_col:
            g_codes, g_labels = pd.factorize(frame[grp_col].to_numpy(dtype=object))
        else:  # one group, as in memory
            g_codes, g_labels = np.zeros(len(frame), dtype=np.int64), ["(all)"]
        if ver_col:
            v_codes, v_labels = pd.factorize(frame[ver_col].to_numpy(dtype=object))
        else:
            v_codes, v_labels = np.zeros(len(frame), dtype=np.int64), [None]
        items = np.zeros((len(v_labels), len(g_labels)), dtype=np.int64)
        succ = np.zeros_like(items)
        np.add.at(items, (v_codes, g_codes), w)
        np.add.at(succ, (v_codes, g_codes), s)
        labels = [str(x) for x in g_labels]
        versions = [str(x) for x in v_labels] if ver_col else [None]
        return items, succ, labels, versions, err

    answer, note = _engine.tally(got, options, [ver_col, grp_col, out_col, err_col], (),
                                 progress, WHAT, counted)
    return (*answer, note)


def _per_unit(frame: pd.DataFrame, unit_col: str, numerator, denominator) -> pd.DataFrame:
    """Sums per unit, units in order of first appearance."""
    part = pd.DataFrame({"unit": frame[unit_col].to_numpy(dtype=object),
                         "numerator": numerator, "denominator": denominator,
                         "first": frame["first_rn"].to_numpy(), "rows": frame["w"].to_numpy()})
    per_unit = (part.groupby("unit", sort=False)
                .agg(numerator=("numerator", "sum"), denominator=("denominator", "sum"),
                     first=("first", "min"), rows=("rows", "sum"))
                .sort_values("first", kind="stable").reset_index())
    return per_unit


def unit_table(got, options, out_col, unit_col, err_col, notes, progress):
    """Per unit the outcomes' sum and count (units in order of first appearance), the rows
    counted, the errored rows and the engine's note."""
    def counted(tallied):
        bad, keep, err = _kept(tallied, err_col, options)
        y, _binary = outcomes(tallied, out_col, ~bad, notes)
        frame = tallied.frame[keep]
        w = frame["w"].to_numpy(dtype=float)
        per_unit = _per_unit(frame, unit_col, np.where(bad, 0.0, y)[keep] * w, w)
        return per_unit, float(w.sum()), err

    (per_unit, rows, err), note = _engine.tally(got, options, [unit_col, out_col, err_col], (),
                                                progress, WHAT, counted)
    per_unit = per_unit[["unit", "numerator", "denominator"]].copy()
    per_unit["ratio"] = per_unit["numerator"] / per_unit["denominator"]
    return per_unit, rows, err, note


def repeated_units_sentence(unit_col: str, units: int, rows: int, first, where: str) -> str:
    """The note of unit ids on several rows (``units`` of them over ``rows`` rows), naming the
    first such unit and ``where`` it is (the in-memory reading's and the engines')."""
    which = "1 unit id" if units == 1 else f"{units} unit ids"
    return (f"{which} of column '{unit_col}' {'appears' if units == 1 else 'appear'} on more "
            f"than one row ({rows} rows; unit '{first}' on {where}): each unit's numerators and "
            f"denominators are summed into one ratio, so the mean of ratios counts it once.")


def copies_sentence(count: int, where: str) -> str:
    """The note of ``count`` rows that repeat another row exactly (``where``: some of them)."""
    return (f"{count} rows repeat another row exactly (the same unit, numerator and denominator; "
            f"for example {where}); if they are copies, remove them: summed, they count twice.")


def _more(tallied, rns, count: int) -> str:
    """The rows named as the in-memory reading names them (``lines 3, 7 and 2 more``)."""
    return tallied.describe_rows(rns) + (f" and {count - len(rns)} more" if count > len(rns) else "")


def _note_repeats(tallied, per_unit, unit_col, num_col, den_col, err_col, bad, mode,
                  notes) -> None:
    """The in-memory ratio form's notes of unit ids on several rows (naming the first such
    unit's rows) and of rows repeated whole (unit, numerator and denominator; errored rows
    left out, or with numerator 0, as the in-memory reading has them): two more reads of the
    file, the second only when a unit repeats."""
    repeated = per_unit[per_unit["rows"] > 1]
    if not len(repeated):
        return
    cells = sorted(set(tallied.frame[err_col].to_numpy(dtype=object)[bad])) if bad.any() else []
    first = repeated.iloc[0]
    skip = (err_col, cells) if cells and mode == "exclude" else None
    rns = tallied.first_rows(unit_col, [first["unit"]], 5, skip=skip)
    notes.append(repeated_units_sentence(unit_col, len(repeated), int(repeated["rows"].sum()),
                                         first["unit"], _more(tallied, rns, int(first["rows"]))))
    errored = (err_col, cells, mode, (num_col,)) if cells else None
    whole, rns = tallied.repeats([unit_col], [num_col, den_col], errored)
    if whole:
        notes.append(copies_sentence(whole, _more(tallied, rns, whole)))


def ratio_table(got, options, num_col, den_col, unit_col, err_col, notes, progress):
    """Per unit the numerators' and denominators' sums (units in order of first appearance),
    the errored rows and the engine's note."""
    if not unit_col:
        raise OptionError(f"Without a unit column every row of file '{got.source.name}' is a "
                          f"unit, so the per-unit table is the file itself: give the unit "
                          f"column (--unit) to compute the ratio with "
                          f"{'Spark' if got.engine == 'spark' else 'DuckDB'}, or compute in "
                          f"memory (--engine memory).")

    def counted(tallied):
        tallied.refuse_negative(den_col)
        bad, keep, err = _kept(tallied, err_col, options)
        frame = tallied.frame[keep]
        numerator = np.where(bad, 0.0, tallied.frame[f"sum:{num_col}"].to_numpy())[keep]
        per_unit = _per_unit(frame, unit_col, numerator,
                             frame[f"sum:{den_col}"].to_numpy(dtype=float))
        _note_repeats(tallied, per_unit, unit_col, num_col, den_col, err_col, bad, err.mode,
                      notes)
        return per_unit, err

    (per_unit, err), note = _engine.tally(got, options, [unit_col, err_col], [num_col, den_col],
                                          progress, WHAT, counted)
    per_unit = per_unit[["unit", "numerator", "denominator"]].copy()
    with np.errstate(invalid="ignore", divide="ignore"):
        per_unit["ratio"] = per_unit["numerator"] / per_unit["denominator"].where(
            per_unit["denominator"] != 0)
    return per_unit, err, note
