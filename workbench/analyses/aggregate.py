"""Aggregation: micro vs macro per group, pooled ratio vs mean of ratios, Simpson's paradox.

Three forms, chosen by the columns given:

* ``outcome`` + ``group`` (+ ``version``): per-group table, micro and macro (per version),
  and a Simpson's paradox check across versions;
* ``numerator`` + ``denominator`` (+ ``unit``): pooled ratio vs mean of per-unit ratios;
* ``outcome`` + ``unit``: item outcomes rolled up per unit, pooled vs mean of unit rates.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..core.errors import DataError, OptionError
from ..core.numbers import format_value, plural
from ..core.progress import NULL_PROGRESS
from ..core.result import AnalysisResult, Table, record, signature
from ..io import LoadedTable, guess_column, to_binary, to_float, to_text
from ..metrics.aggregate import group_rates, micro_macro, pooled_and_mean_ratio, simpson_pairs
from ..metrics import headline_ci as hc
from . import _checks, _engine, _intervals, _rows
from .aggregate_engine import copies_sentence, repeated_units_sentence
from ._common import ROLE_NAMES, Resolver, base_signature


def _rate(value) -> str:
    return format_value(float(value), "rate")


NAME = "aggregate"
TITLE = "Aggregation"
#: Computes a file read page by page (beyond the memory budget) with an engine.
LARGE_FILES = True


@dataclass(frozen=True)
class Options:
    outcome: str | None = None
    group: str | None = None
    version: str | None = None
    numerator: str | None = None
    denominator: str | None = None
    unit: str | None = None
    #: column marking rows that ended with an error (default: the file format's 'error' column)
    error: str | None = None
    #: errored rows: exclude (left out) or failure (outcome 0)
    errored: str = "exclude"
    #: the outcome column holds a measure in its own unit (a log-probability, a correlation, a
    #: 1-5 rating): means in that unit, never 0/1 outcomes or a percentage.  Values outside 0..1
    #: are read so without it (noted); set it where 0/1-looking values are no outcomes.
    measure: bool = False
    #: bootstrap resamples and seed of the headline intervals
    ci_resamples: int = hc.RESAMPLES
    ci_seed: int = hc.SEED
    #: what counts the rows per group or unit: memory, duckdb, spark, or auto (memory within
    #: the budget, DuckDB above it; :mod:`workbench.engines`)
    engine: str = "auto"
    spark_master: str = "local[2]"


#: What an outcome column holds: 0/1 outcomes, scores of 0..1 (shares), or a measure in its own unit.
BINARY, SHARE, MEASURE = "binary", "share", "measure"


def outcome_values(table: LoadedTable, column: str, notes: list[str], measure: bool = False
                   ) -> tuple[np.ndarray, str]:
    """Binary outcomes as 0/1, numeric scores in [0, 1] (noted), or a measure in its own unit
    (any finite number: ``measure``, or values outside 0..1; noted); (values, what they are)."""
    if not measure:
        try:
            return to_binary(table, column).astype(float), BINARY
        except DataError as binary_error:
            if not pd.api.types.is_numeric_dtype(table.frame[column]):
                raise binary_error
    elif not pd.api.types.is_numeric_dtype(table.frame[column]):
        raise DataError(f"File '{table.name}', column '{column}' must hold numbers (a measure in its own "
                        f"unit); found text such as '{table.frame[column].dropna().astype(str).iloc[0]}'."
                        if table.frame[column].notna().any() else
                        f"File '{table.name}', column '{column}' is empty; expected numbers.")
    values = to_float(table, column)
    outside = np.flatnonzero((values < 0) | (values > 1))
    if measure or outside.size:
        shown = values[np.isfinite(values)]
        span = (f" (from {format_value(shown.min(), 'score')} to {format_value(shown.max(), 'score')})"
                if shown.size else "")
        notes.append(f"Column '{column}' holds a measure in its own unit{span}, not 0/1 outcomes or "
                     "scores of 0 to 1: the numbers are mean values in that unit (never a percentage), "
                     "with bootstrap intervals; 'successes' are sums.")
        return values, MEASURE
    notes.append(f"Column '{column}' holds scores between 0 and 1, not 0/1 outcomes; rates are "
                 f"mean scores, 'successes' are sums of scores and no Wilson interval is given.")
    return values, SHARE


def check_options(options: Options) -> None:
    """Every option's type, before any work (an :class:`OptionError` sentence)."""
    _checks.columns(options, ("outcome", "group", "version", "numerator", "denominator", "unit",
                              "error"))
    _rows.check(options.errored)
    hc.check_resamples(options.ci_resamples, options.ci_seed)
    _engine.check_engine(options)


def run(table: LoadedTable, options: Options = Options(), progress=NULL_PROGRESS) -> AnalysisResult:
    """Rows that ended with an error are left out, or counted with outcome 0 (see
    :mod:`workbench.analyses._rows`); the notes and the signature say which."""
    if getattr(table, "large", None) is not None:  # a file read page by page: the engine counts
        return run_engine(_engine.of_large(table, options, TITLE), options, progress)
    check_options(options)
    err = _rows.find(table, options.error, options.errored)
    outcome = options.outcome or _rows.role_column(table, "success") or \
        guess_column(table, "outcome", ROLE_NAMES["outcome"])
    # failed rows count 0 in what is measured: the outcome, or in the ratio form the numerator
    # only (a guessed outcome column may be the denominator: `score`, `result`)
    measured = [options.numerator] if options.numerator or options.denominator else [outcome]
    result = _run(_rows.apply(table, err, measured), options, progress)
    return with_errored(_engine.with_memory_notes(result, table, options), err)


def with_errored(result: AnalysisResult, err) -> AnalysisResult:
    """The errored rows' note first and their convention in the signature."""
    from dataclasses import replace

    if not err.active:
        return result
    return replace(result, notes=tuple(err.note()) + result.notes,
                   signature=result.signature + "|" + signature(err.signature()))


def _systems_of_preview(options: Options, preview) -> tuple[Options, list[str]]:
    """A file the engine reads itself: its systems are never pooled either, as the reading of a
    loaded file has it (:func:`~workbench.analyses.reading_steps._by_system`), when its head
    shows several."""
    from .reading import evaluation_of
    from .reading_steps import _by_system

    return _by_system(options, preview, evaluation_of(preview), head_only=True)


def run_unloaded(paths, options: Options, progress=NULL_PROGRESS) -> AnalysisResult | None:
    """The command line's entry before any file is loaded: DuckDB (or Spark) counts the rows
    per group or unit of a CSV or Parquet file itself (``engine='duckdb'``/``'spark'``, or
    ``'auto'`` over the memory budget); ``None``: load the file and call :func:`run`."""
    check_options(options)
    got = _engine.unloaded(paths, options)
    return None if got is None else run_engine(got, options, progress)


def run_engine(got, options: Options, progress) -> AnalysisResult:
    """The forms on DuckDB or Spark: the engine counts, the numbers are computed as in memory
    (:mod:`workbench.analyses.aggregate_engine`)."""
    from ..io.formats import with_roles
    from . import aggregate_engine as ae

    check_options(options)
    preview = got.preview
    options, _ = with_roles(options, preview)
    options, split_note = _systems_of_preview(options, preview)
    res = Resolver(preview)
    err_col = _engine.error_column(preview, options)
    notes = res.notes
    path, engine = got.source.path, got.engine
    if options.numerator or options.denominator:
        if not (options.numerator and options.denominator):
            raise OptionError("The ratio form needs both a numerator and a denominator column.")
        num_col = res.required(options.numerator, "numerator", "--numerator")
        den_col = res.required(options.denominator, "denominator", "--denominator")
        if options.unit:
            res.optional(options.unit, "unit", "--unit")
        per_unit, err, note = ae.ratio_table(got, options, num_col, den_col, options.unit,
                                             err_col, notes, progress)
        pooled, mean, used, zero = pooled_and_mean_ratio(per_unit["numerator"], per_unit["denominator"])
        result = _ratio_result(path, notes + [note], per_unit, pooled, mean, used, zero,
                               float(per_unit["denominator"].sum()), "ratio", options.unit,
                               options, engine)
    elif options.unit and not options.group:
        out_col = res.required(options.outcome, "outcome", "--outcome")
        res.optional(options.unit, "unit", "--unit")
        per_unit, rows, err, note = ae.unit_table(got, options, out_col, options.unit, err_col,
                                                  notes, progress)
        pooled, mean, used, zero = pooled_and_mean_ratio(per_unit["numerator"], per_unit["denominator"])
        result = _ratio_result(path, notes + [note], per_unit, pooled, mean, used, zero, rows,
                               "outcome+unit", options.unit, options, engine)
    else:
        out_col, grp_col, ver_col = _group_columns(preview, options, res)
        items, succ, g_labels, v_labels, err, note = ae.group_counts(
            got, options, out_col, grp_col, ver_col, err_col, notes, progress)
        if split_note and len(v_labels) == 1:  # the system column held one system after all
            ver_col, v_labels, split_note = None, [None], []
        result = _group_result(_Counts(items, succ, g_labels, options), g_labels, v_labels,
                               ver_col, True, notes + [note], options, progress, path, engine)
    result = with_errored(result, err)
    if split_note:  # before the errored rows' note, as the reading of a loaded file puts it
        from dataclasses import replace

        result = replace(result, notes=tuple(split_note) + result.notes)
    return result


def _run(table: LoadedTable, options: Options, progress) -> AnalysisResult:
    res = Resolver(table)
    if options.numerator or options.denominator:
        if not (options.numerator and options.denominator):
            raise OptionError("The ratio form needs both a numerator and a denominator column.")
        return _ratio_form(table, options, res)
    if options.unit and not options.group:
        return _unit_form(table, options, res)
    return _group_form(table, options, res, progress)


def _ratio_hint(table, options) -> str | None:
    """A file of counts per unit (claims.csv: conversation, claims, correct_claims) has no
    outcome column: the command that reads it (``--numerator ... --denominator ...``)."""
    if options.outcome or options.numerator or options.denominator:
        return None
    num = guess_column(table, "numerator", ROLE_NAMES["numerator"])
    den = guess_column(table, "denominator", ROLE_NAMES["denominator"])
    if num is None or den is None or num == den:
        return None
    unit = options.unit or guess_column(table, "unit", ROLE_NAMES["unit"])
    unit = None if unit in (num, den) else unit
    return (f"File '{table.name}' has no outcome column, but it looks like counts per unit: read it "
            f"as a ratio with --numerator {num} --denominator {den}"
            + (f" --unit {unit}" if unit else "") + " (or name the outcome column with --outcome).")


def _group_columns(table, options, res) -> tuple[str, str, str | None]:
    """The outcome, group and version columns of the group form."""
    if options.outcome is None and guess_column(table, "outcome", ROLE_NAMES["outcome"]) is None:
        hint = _ratio_hint(table, options)
        if hint is not None:
            raise DataError(hint)
    out_col = res.required(options.outcome, "outcome", "--outcome")
    # without a group column every row is one group: the overall rate (micro = macro) is an answer
    grp_col = res.optional(options.group, "group", "--group")
    ver_col = options.version
    if ver_col:
        res.optional(ver_col, "version", "--version")
    return out_col, grp_col, ver_col


def _group_form(table, options, res, progress) -> AnalysisResult:
    out_col, grp_col, ver_col = _group_columns(table, options, res)
    notes = res.notes
    y, held = outcome_values(table, out_col, notes, options.measure)
    binary = held == BINARY
    groups = pd.Series(to_text(table, grp_col)) if grp_col else pd.Series(["(all)"] * len(y))
    g_codes, g_labels = pd.factorize(groups)
    g_labels = [str(x) for x in g_labels]
    G = len(g_labels)
    if ver_col:
        v_codes, v_labels = pd.factorize(pd.Series(to_text(table, ver_col)))
        v_labels = [str(x) for x in v_labels]
    else:
        v_codes, v_labels = np.zeros(len(y), dtype=np.int64), [None]
    if binary:  # 0/1 outcomes: every number comes from the counts per (version, group)
        items = np.zeros((len(v_labels), G), dtype=np.int64)
        succ = np.zeros((len(v_labels), G), dtype=np.int64)
        np.add.at(items, (v_codes, g_codes), 1)
        np.add.at(succ, (v_codes, g_codes), y.astype(np.int64))
        stats = _Counts(items, succ, g_labels, options)
    else:
        stats = _Items(y, g_codes, v_codes, g_labels, options, rates=held != MEASURE)
    return _group_result(stats, g_labels, v_labels, ver_col, binary, notes, options, progress,
                         table.path, measure=held == MEASURE, unit=_unit_word(table))


def _unit_word(table) -> str | None:
    """What a row is, where its reader named it (an MTEB subset); None: an item."""
    word = getattr(table, "row_word", None)
    return word if word and " " not in word and word not in ("row", "item", "line", "record") else None


class _Counts:
    """The group form's numbers from counts of 0/1 outcomes per (version, group)."""

    def __init__(self, items, successes, g_labels, options) -> None:
        self.items, self.successes, self.labels, self.options = items, successes, g_labels, options

    def rates(self, v: int):
        items, succ = self.items[v].astype(float), self.successes[v].astype(float)
        with np.errstate(invalid="ignore", divide="ignore"):
            return items, succ, succ / items

    def rate_ci(self, v: int, g: int) -> hc.MeanCI:
        return hc.rate_ci(int(self.successes[v, g]), int(self.items[v, g]))

    def micro_ci(self, v: int) -> hc.MeanCI:
        return hc.rate_ci(int(self.successes[v].sum()), int(self.items[v].sum()))

    def macro_ci(self, v: int, macro: float) -> hc.MeanCI:
        samples = hc.stratified_rates(self.items[v], self.successes[v], self.labels,
                                      resamples=self.options.ci_resamples, seed=self.options.ci_seed)
        return _macro_interval(samples, macro, len(self.labels))


class _Items:
    """The group form's numbers from the items' outcomes (scores in [0, 1])."""

    def __init__(self, y, g_codes, v_codes, g_labels, options, rates: bool = True) -> None:
        self.y, self.g, self.v, self.labels, self.options = y, g_codes, v_codes, g_labels, options
        self.as_rates = rates  # False: a measure, never a proportion interval even where all 0/1

    def rates(self, v: int):
        m = self.v == v
        return group_rates(self.y[m], self.g[m], len(self.labels))

    def rate_ci(self, v: int, g: int) -> hc.MeanCI:
        m = self.v == v
        return _mean_ci(self.y[m][self.g[m] == g], self.options, rates=self.as_rates)

    def micro_ci(self, v: int) -> hc.MeanCI:
        return _mean_ci(self.y[self.v == v], self.options, rates=self.as_rates)

    def macro_ci(self, v: int, macro: float) -> hc.MeanCI:
        m = self.v == v
        return _macro_ci(self.y[m], self.g[m], self.labels, macro, self.options)


def _group_result(stats, g_labels, v_labels, ver_col, binary, notes, options, progress,
                  path: str, engine: str = "memory", measure: bool = False,
                  unit: str | None = None) -> AnalysisResult:
    G = len(g_labels)
    kind = "score" if measure else "rate"  # how its numbers are shown: a mean in the unit, or a share
    extra = {"kind": "score"} if measure else {}
    of = {"unit": unit} if unit else {}
    records, rows, overall_rows, ci_entries = [], [], [], []
    micro_methods: set[str] = set()
    seg_rates = np.full((len(v_labels), G), np.nan)
    overall = np.full(len(v_labels), np.nan)
    for v, vlabel in enumerate(v_labels):
        progress.check_cancelled()
        items, succ, rate = stats.rates(v)
        micro, macro = micro_macro(items, succ)
        present = items > 0
        seg_rates[v] = np.where(present, rate, np.nan)
        overall[v] = micro
        cis = {g: stats.rate_ci(v, g) for g in np.flatnonzero(present)}
        low = np.array([cis[g].low if g in cis and not cis[g].degenerate else np.nan for g in range(G)])
        high = np.array([cis[g].high if g in cis and not cis[g].degenerate else np.nan for g in range(G)])
        for g in np.flatnonzero(present):
            records.append(record("rate", rate[g], group=g_labels[g], version=vlabel, n=items[g],
                                  **extra, **of, **_intervals.fields(cis[g])))
            ci_entries.append((_intervals.who("rate", group=g_labels[g]) + _of_version(vlabel), cis[g]))
            rows.append({**({"version": vlabel} if ver_col else {}), "group": g_labels[g],
                         "items": int(items[g]), "successes": succ[g], "rate": rate[g],
                         "ci_low": low[g], "ci_high": high[g],
                         "share_of_items": items[g] / items.sum(),
                         "ci_method": _intervals.fields(cis[g])["ci_method"]})
        tot_n, tot_s = items.sum(), succ.sum()
        micro_ci = stats.micro_ci(v)
        m_low, m_high = (np.nan, np.nan) if micro_ci.degenerate else (micro_ci.low, micro_ci.high)
        macro_ci = stats.macro_ci(v, macro)
        records.append(record("micro", micro, version=vlabel, n=tot_n, **extra, **of,
                              **_intervals.fields(micro_ci)))
        records.append(record("macro", macro, version=vlabel, n=int(present.sum()), **extra,
                              **_intervals.fields(macro_ci)))
        ci_entries += [("micro" + _of_version(vlabel), micro_ci), ("macro" + _of_version(vlabel), macro_ci)]
        micro_methods.add(_intervals.fields(micro_ci)["ci_method"])
        overall_rows.append({**({"version": vlabel} if ver_col else {}), "items": int(tot_n),
                             "groups": int(present.sum()), "successes": tot_s,
                             "micro": micro, "micro_ci_low": m_low, "micro_ci_high": m_high,
                             "macro": macro, "gap_micro_minus_macro": micro - macro})
        spread = rate[present]
        if spread.size > 1:
            lo, hi = int(np.argmin(np.where(present, rate, np.inf))), int(np.argmax(np.where(present, rate, -np.inf)))
            who = f"Version '{vlabel}': " if vlabel is not None else ""
            word = unit or "item"
            shown = (lambda x: format_value(float(x), "score")) if measure else _rate
            gap = format_value(rate[hi] - rate[lo], "score" if measure else "margin")
            notes.append(f"{who}the best group ('{g_labels[hi]}', {shown(rate[hi])} of {plural(items[hi], word)}) "
                         f"and the worst ('{g_labels[lo]}', {shown(rate[lo])} of {plural(items[lo], word)}) "
                         f"differ by {gap}; micro {shown(micro)} weights "
                         f"groups by size, macro {shown(macro)} weights them equally.")
    tables = [
        Table("overall", "Micro and macro", pd.DataFrame(overall_rows), columns={
            "micro": "sum of successes / sum of items (pooled)",
            "macro": "mean of the per-group rates (each group counts once)",
            "groups": "groups in the macro mean (its denominator)",
            "micro_ci_low": f"{' or '.join(sorted(micro_methods))} interval of the micro average, low",
            "micro_ci_high": f"{' or '.join(sorted(micro_methods))} interval of the micro average, high",
        }, formats={"micro": kind, "macro": kind, "micro_ci_low": kind, "micro_ci_high": kind,
                    "gap_micro_minus_macro": kind, "items": "int", "groups": "int",
                    "successes": "float"}),
        Table("groups", "Per-group means" if measure else "Per-group rates", pd.DataFrame(rows), columns={
            "rate": "successes / items in the group",
            "ci_low": "95% interval, low (its method in ci_method)",
            "ci_high": "95% interval, high (its method in ci_method)",
            "ci_method": "the interval's method: Wilson, or Clopper-Pearson below 30 items or at 0% or 100%",
        }, formats={"rate": kind, "ci_low": kind, "ci_high": kind, "share_of_items": "rate",
                    "ci_method": "text",
                    "items": "int", "successes": "float"}),
    ]
    if measure:  # a mean in the column's own unit: the columns say so
        tables[0].columns.update({"micro": "mean over every row (pooled), in the column's unit",
                                  "macro": "mean of the per-group means (each group counts once)",
                                  "successes": "sum of the values"})
        tables[1].columns.update({"rate": "mean value in the group, in the column's unit",
                                  "ci_method": "the interval's method: bootstrap percentile over the group's rows"})
    sig = base_signature(NAME)
    sig.update({"form": "group" + ("+version" if ver_col else ""), "micro": "sum/sum",
                "macro": "mean-of-group-rates",
                "ci": (_intervals.RATE_WORDS if binary else
                       f"bootstrap-percentile-95,B={options.ci_resamples},seed={options.ci_seed},over:items,"
                       + _intervals.BUDGET[1:] + "," + _intervals.T_WORDS),
                "ci-macro": f"stratified-bootstrap-percentile-95(items-within-groups),B={options.ci_resamples},"
                            f"seed={options.ci_seed}" + _intervals.BUDGET,
                "outcome": "binary" if binary else "measure(own-unit)" if measure else "score[0,1]",
                "engine": engine})
    notes += _intervals.notes(ci_entries)
    if ver_col:
        pairs = simpson_pairs(seg_rates, overall, v_labels)
        if pairs:
            a, b = pairs[0]
            ia, ib = v_labels.index(a), v_labels.index(b)
            notes.append(f"Simpson's paradox: version '{a}' beats '{b}' in every segment yet is worse "
                         f"overall ({_rate(overall[ia])} vs {_rate(overall[ib])}) because the mix of segments "
                         f"differs between them; compare per segment, or re-score both on the same set.")
            records.append(record("simpson", True, from_=a, to=b, n=len(g_labels)))
        else:
            records.append(record("simpson", False, n=len(g_labels)))
        pivot = pd.DataFrame(seg_rates.T, columns=v_labels)
        pivot.insert(0, "group", g_labels)
        pivot.loc[len(pivot)] = ["(overall, micro)"] + list(overall)
        tables.append(Table("versions", ("Mean" if measure else "Rate") + " per version and segment", pivot,
                            formats={v: kind for v in v_labels}))
        sig["simpson"] = "better-in-every-segment-and-worse-micro"
    return AnalysisResult(NAME, signature(sig), tuple(records), tuple(tables), tuple(notes), path)


def _ratio_form(table, options, res) -> AnalysisResult:
    require = res.required
    num_col = require(options.numerator, "numerator", "--numerator")
    den_col = require(options.denominator, "denominator", "--denominator")
    unit_col = options.unit
    if unit_col:
        res.optional(unit_col, "unit", "--unit")
    num = to_float(table, num_col)
    den = to_float(table, den_col, min_value=0)
    units = to_text(table, unit_col) if unit_col else [str(x) for x in table.lines_of(range(len(num)))]
    frame = pd.DataFrame({"unit": units, "numerator": num, "denominator": den})
    if unit_col:
        _note_repeated_units(table, frame, unit_col, res.notes)
    per_unit = frame.groupby("unit", sort=False).sum().reset_index()
    pooled, mean, used, zero = pooled_and_mean_ratio(per_unit["numerator"], per_unit["denominator"])
    with np.errstate(invalid="ignore", divide="ignore"):
        per_unit["ratio"] = per_unit["numerator"] / per_unit["denominator"].where(per_unit["denominator"] != 0)
    return _ratio_result(table.path, res.notes, per_unit, pooled, mean, used, zero,
                         float(per_unit["denominator"].sum()), "ratio", unit_col, options)


def _note_repeated_units(table, frame: pd.DataFrame, unit_col: str, notes: list[str]) -> None:
    """The ratio form sums the rows of a unit into one ratio: say so when a unit id repeats,
    naming the first repeated unit and its lines, and single out rows repeated whole."""
    repeated = frame.duplicated(subset=["unit"], keep=False).to_numpy()
    if not repeated.any():
        return
    first = frame["unit"].iloc[int(np.flatnonzero(repeated)[0])]
    same = np.flatnonzero((frame["unit"] == first).to_numpy())
    units = int(frame.loc[repeated, "unit"].nunique())
    notes.append(repeated_units_sentence(unit_col, units, int(repeated.sum()), first,
                                         table.describe_rows(same)))
    whole = frame.duplicated(keep=False).to_numpy()
    if whole.any():
        notes.append(copies_sentence(int(whole.sum()), table.describe_rows(np.flatnonzero(whole))))


def _unit_form(table, options, res) -> AnalysisResult:
    out_col = res.required(options.outcome, "outcome", "--outcome")
    unit_col = options.unit
    res.optional(unit_col, "unit", "--unit")
    y, held = outcome_values(table, out_col, res.notes, options.measure)
    frame = pd.DataFrame({"unit": to_text(table, unit_col), "numerator": y, "denominator": 1.0})
    per_unit = frame.groupby("unit", sort=False).sum().reset_index()
    per_unit["ratio"] = per_unit["numerator"] / per_unit["denominator"]
    pooled, mean, used, zero = pooled_and_mean_ratio(per_unit["numerator"], per_unit["denominator"])
    return _ratio_result(table.path, res.notes, per_unit, pooled, mean, used, zero,
                         float(len(y)), "outcome+unit", unit_col, options, measure=held == MEASURE)


def _ratio_result(path: str, notes, per_unit, pooled, mean, used, zero, pooled_n, form, unit_col,
                  options, engine: str = "memory", measure: bool = False):
    notes = list(notes)
    kind = "score" if measure else "rate"  # a measure's means in its own unit, never percentages
    extra = {"kind": "score"} if measure else {}
    pooled_ci, mean_ci = _ratio_cis(per_unit, pooled, options, rates=not measure)
    notes += _intervals.notes([("pooled_ratio", pooled_ci), ("mean_of_ratios", mean_ci)], "units")
    if zero:
        notes.append(f"{zero:,} of {plural(len(per_unit), 'unit')} {'has' if zero == 1 else 'have'} a zero "
                     f"denominator; {'it has' if zero == 1 else 'they have'} no ratio and "
                     f"{'is' if zero == 1 else 'are'} left out of the mean of ratios ({'it adds' if zero == 1 else 'they add'} "
                     f"nothing to the pooled ratio).")
    if np.isfinite(pooled) and np.isfinite(mean) and abs(pooled - mean) >= 0.05 and not measure:
        notes.append(f"The pooled ratio ({_rate(pooled)}) and the mean of ratios ({_rate(mean)}) differ by "
                     f"{format_value(abs(pooled - mean), 'margin')}: the first weights units by their denominators, the "
                     f"second counts every unit once; decide which question you are asking.")
    elif measure and np.isfinite(pooled) and np.isfinite(mean) and pooled != mean:
        notes.append(f"The mean over every row ({format_value(pooled, 'score')}) and the mean of the units' means "
                     f"({format_value(mean, 'score')}) differ by {format_value(abs(pooled - mean), 'score')} in the "
                     "measure's unit: the first weights units by their rows, the second counts every unit once.")
    records = (record("pooled_ratio", pooled, n=pooled_n, **extra, **_intervals.fields(pooled_ci)),
               record("mean_of_ratios", mean, n=used, **extra, **_intervals.fields(mean_ci)))
    sig = base_signature(NAME)
    sig.update({"form": form, "pooled": "sum(num)/sum(den)", "mean": "mean(num/den)",
                "den=0": "excluded-from-mean", "unit": "column" if unit_col else "row",
                "rows-per-unit": "summed",
                "ci-pooled": f"ratio-bootstrap-percentile-95(num-and-den-of-a-unit-together),B={options.ci_resamples},"
                             f"seed={options.ci_seed},over:units",
                "ci-mean": f"bootstrap-percentile-95,B={options.ci_resamples},seed={options.ci_seed},over:units,"
                           + _intervals.BUDGET[1:] + "," + _intervals.T_WORDS, "engine": engine})
    if measure:
        sig["outcome"] = "measure(own-unit)"
    summary = pd.DataFrame([
        {"measure": "pooled ratio", "value": pooled, "numerator": per_unit["numerator"].sum(),
         "denominator": per_unit["denominator"].sum(), "units": len(per_unit)},
        {"measure": "mean of ratios", "value": mean, "numerator": np.nan, "denominator": np.nan,
         "units": used},
    ])
    tables = (
        Table("summary", "Pooled ratio vs mean of ratios", summary, columns={
            "value": "pooled = sum(numerator) / sum(denominator); mean = mean of per-unit ratios",
            "units": "units counted",
        }, formats={"value": kind, "units": "int"}),
        Table("units", "Per-unit means" if measure else "Per-unit ratios", per_unit, formats={"ratio": kind}),
    )
    return AnalysisResult(NAME, signature(sig), records, tables, tuple(notes), path)


def _of_version(vlabel) -> str:
    return f" (version {vlabel})" if vlabel is not None else ""


def _mean_ci(x: np.ndarray, options: Options, rates: bool = True) -> hc.MeanCI:
    """A rate's proportion interval (0/1 outcomes), or the bootstrap of a mean score."""
    return hc.mean_intervals({"x": x}, resamples=options.ci_resamples, seed=options.ci_seed,
                             rates=rates)["x"]


def _macro_ci(y: np.ndarray, codes: np.ndarray, labels: list[str], macro: float, options: Options) -> hc.MeanCI:
    """The macro average's interval: items resampled within each group (the groups are fixed)."""
    samples = hc.stratified_mean_of_means(y, codes, labels, resamples=options.ci_resamples, seed=options.ci_seed)
    return _macro_interval(samples, macro, len(labels))


def _macro_interval(samples: np.ndarray, macro: float, groups: int) -> hc.MeanCI:
    degenerate = hc.is_degenerate(samples, macro)
    low, high = (float("nan"),) * 2 if degenerate else hc.percentile_interval(samples)
    return hc.MeanCI(macro, groups, low, high, float("nan"), float("nan"), degenerate,
                     "stratified-bootstrap-percentile-95", len(samples))


def _ratio_cis(per_unit: pd.DataFrame, pooled: float, options: Options,
               rates: bool = True) -> tuple[hc.MeanCI, hc.MeanCI]:
    """The pooled ratio's interval (ratio bootstrap over units) and the mean of ratios' one
    (bootstrap over the units with a ratio, t beside)."""
    num = per_unit["numerator"].to_numpy(dtype=float)
    den = per_unit["denominator"].to_numpy(dtype=float)
    nan = float("nan")
    if num.size and np.isfinite(pooled):
        samples = hc.ratio_bootstrap(num, den, resamples=options.ci_resamples, seed=options.ci_seed)
        degenerate = hc.is_degenerate(samples, pooled)
        low, high = (nan, nan) if degenerate else hc.percentile_interval(samples)
        pooled_ci = hc.MeanCI(pooled, int(num.size), low, high, nan, nan, degenerate,
                              "ratio-bootstrap-percentile-95", len(samples))
    else:
        pooled_ci = hc.MeanCI(pooled, int(num.size), nan, nan, nan, nan, False, "ratio-bootstrap-percentile-95")
    ratios = per_unit["ratio"].to_numpy(dtype=float)
    ratios = ratios[np.isfinite(ratios)]
    mean_ci = hc.mean_intervals({"r": ratios}, resamples=options.ci_resamples, seed=options.ci_seed,
                                rates=rates)["r"]
    return pooled_ci, mean_ci
