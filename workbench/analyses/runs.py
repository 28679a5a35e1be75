"""Many runs side by side: which items flipped, which systems cannot be told apart.

Input: one long table with a run (system) column, an item column and an outcome (0/1) or a
score; several files stacked into one table (each file a run, named by its system or file name:
see :func:`workbench.io.formats.combine`) are the usual way in.  Runs are ordered by an order
column when one is named or found by its name (a time or version), else by their files'
modification times (one file per run), else by their first appearance (the order of
the files).

Output: the item grid (items x runs, each cell the item's outcome or score; blank where a run
lacks the item) with flags for items that changed between consecutive runs, are wrong in every
run or are missing from a run; per run its headline (success rate with a Wilson interval, or
mean score with a t interval) and n; between consecutive runs and against the baseline run,
the paired difference on the items both have (Compare's tests: exact sign test and bootstrap
for 0/1 outcomes, randomization test and bootstrap for scores), the items gained and lost and
the items only one of them has; tie groups of the runs as a compact letter display, from the
randomised Tukey HSD on the items every run has (or from Holm-adjusted paired tests).
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..core.errors import DataError, OptionError
from ..core.numbers import plural
from ..core.progress import NULL_PROGRESS, Scaled
from ..core.result import AnalysisResult, Table, record, signature
from ..io import LoadedTable, require_columns, text_codes, to_float, to_text
from ..metrics import paired as pm
from ..metrics import significance as sg
from ..metrics import headline_ci as hc
from . import _intervals
from ..metrics.multiple import compact_letters, pair_wins, randomized_tukey_hsd
from ._common import ITEM_NAMES, base_signature, check_unique, pick_column, verdicts, in_memory

NAME = "runs"
TITLE = "Runs"
GROUPS = ("tukey", "holm")
BETTER = ("higher", "lower")
ALPHA = 0.05
ORDER_NAMES = ("run_time", "timestamp", "time", "created", "created_at", "date", "version")


@dataclass(frozen=True)
class Options:
    item: str | None = None
    outcome: str | None = None
    score: str | None = None
    system: str | None = None
    baseline_system: str | None = None
    #: a column that orders the runs (time or version); default: first appearance
    order: str | None = None
    resamples: int = 10_000
    seed: int = 12345
    #: bootstrap resamples and seed of each run's own interval (over items)
    ci_resamples: int = hc.RESAMPLES
    ci_seed: int = hc.SEED
    #: randomised Tukey HSD rounds (and randomization-test rounds)
    rounds: int = 10_000
    #: tie groups from the randomised Tukey HSD (tukey) or Holm-adjusted paired tests (holm)
    groups: str = "tukey"
    better: str = "higher"


def check_options(options: Options) -> None:
    from ._checks import whole

    whole("resamples", options.resamples, 1_000, 1_000_000)
    whole("seed", options.seed, 0, 2**32 - 1)
    hc.check_resamples(options.ci_resamples, options.ci_seed)
    whole("rounds", options.rounds, 1_000, 1_000_000)
    if options.groups not in GROUPS:
        raise OptionError(f"`groups` must be one of {', '.join(GROUPS)}; got groups={options.groups!r}.")
    if options.better not in BETTER:
        raise OptionError(f"`better` must be one of {', '.join(BETTER)}; got better={options.better!r}.")
    if options.outcome and options.score:
        raise OptionError("Give either --outcome (0/1) or --score, not both.")


def run_and_item_columns(table: LoadedTable, options: Options, notes: list[str]) -> tuple[str, str]:
    """The run column and the item column (given, or guessed and said in a note)."""
    sys_col = options.system
    if sys_col is None:
        sys_col = pick_column(table, None, "system", "--system", notes, names=("system", "run", "model", "run_id"),
                              required=False)
        if sys_col is None and "file" in map(str, table.frame.columns):
            sys_col = "file"
            notes.append("Each stacked file is a run (column 'file').")
    if sys_col is None:
        raise DataError(f"File '{table.name}' has no run column; name it with --system, or give one file per run.")
    require_columns(table, [sys_col])
    return sys_col, pick_column(table, options.item, "item", "--item", notes, names=ITEM_NAMES)


def _grid(table: LoadedTable, options: Options, notes: list[str]):
    """Runs in order, items, the (items x runs) value grid (NaN = missing), binary or not."""
    sys_col, item_col = run_and_item_columns(table, options, notes)
    value_col = options.outcome or options.score
    if value_col is None:
        value_col = pick_column(table, None, "outcome", "--outcome or --score", notes,
                                names=("outcome", "success", "correct", "passed", "score", "value"))
    require_columns(table, [value_col])
    # each column's text coded once (the exact text: `1` and `1.0` are two runs or items)
    stacked = _stacked_codes(table, sys_col, item_col)
    if stacked is not None:
        run_codes, run_uniques, item_codes, item_uniques = stacked
    else:
        run_codes, run_uniques = text_codes(table, sys_col)
        item_codes, item_uniques = text_codes(table, item_col)
    run_uniques, items = _labels(run_uniques), _labels(item_uniques)
    if stacked is None:  # stacked blocks: each run once, each item once in it, by construction
        seen = np.zeros(len(run_uniques) * len(items), dtype=bool)
        seen[run_codes * len(items) + item_codes] = True
        if int(np.count_nonzero(seen)) < len(run_codes):  # a pair repeats
            split = _runs_within(table, sys_col, item_col, value_col, run_codes, item_codes, notes,
                                 given=options.system is not None)
            if split is None:  # the sentence naming the pair
                check_unique(table, [sys_col, item_col], "(run, item) pair")
            table, sys_col = split
            run_codes, run_uniques = text_codes(table, sys_col)
            run_uniques = _labels(run_uniques)
        del seen
    try:
        values = to_float(table, value_col, allow_missing=True)
    except DataError:  # yes/no, pass/fail words: a 0/1 outcome (blank: missing)
        if options.score:
            raise
        values = verdicts(table, value_col)
    if options.outcome is None and options.score is None:
        binary = bool(np.isin(values[np.isfinite(values)], (0.0, 1.0)).all())
    else:
        binary = options.outcome is not None
        if binary and not np.isin(values[np.isfinite(values)], (0.0, 1.0)).all():
            raise DataError(f"File '{table.name}', column '{value_col}' must hold 0/1 outcomes for --outcome; "
                            f"use --score for other numbers.")
    names, how = _ordered(table, run_uniques, run_codes, sys_col, options, notes)
    # each row's cell of the (items x runs) grid, runs in their order (a pair is on one row:
    # checked above)
    column = np.array([names.index(u) for u in run_uniques], dtype=np.int64)[run_codes]
    cells = (item_codes, column)
    blank = int(np.isnan(values).sum())
    if blank:
        notes.append(f"{plural(blank, 'row')} without a value in column '{value_col}' count as "
                     f"missing for their run.")
    # filled run by run (each run's values contiguous: G is the transpose of a runs x items
    # array, so a run's column is read without a stride)
    by_run = np.full((len(names), len(items)), np.nan)
    by_run[column, item_codes] = values
    G = by_run.T
    details = _details(table, cells, G.shape, {sys_col, item_col, value_col})
    return names, items, G, binary, value_col, how, details


#: columns that may tell a system's runs apart (a model's runs 1, 2, 3; its run ids)
RUN_NAMES = ("run", "run_id", "run_name", "system", "model", "variant", "version", "checkpoint", "config")


def _runs_within(table: LoadedTable, sys_col: str, item_col: str, value_col: str, run_codes: np.ndarray,
                 item_codes: np.ndarray, notes: list[str], *, given: bool):
    """When the run column's (run, item) pairs repeat and another column named for runs tells
    them apart, the runs are that column's (its values each within one system: a model's run
    ids; only when the run column was guessed) or each (system, run) pair (a model's runs 1, 2,
    3: 'gpt-a / 1'; a run column given keeps its name in each run's); None otherwise."""
    from ..io.cells import text_array
    from ..io.columns import _match_name

    present = [str(c) for c in table.frame.columns]
    others = [c for c in dict.fromkeys(_match_name(present, n) for n in RUN_NAMES)
              if c is not None and c not in (sys_col, item_col, value_col)]
    n_items = int(item_codes.max()) + 1 if item_codes.size else 1
    for other in others:
        codes, labels = text_codes(table, other)
        pair = pd.factorize(run_codes.astype(np.int64) * (int(codes.max()) + 1) + codes)[0]
        if pd.Series(pair.astype(np.int64) * n_items + item_codes).duplicated().any():
            continue  # still a (run, item) pair twice
        if not given and int(pair.max()) + 1 == len(labels):  # each value of the other within one system
            notes.append(f"Column '{other}' names the runs (each within one '{sys_col}'): rows repeat each "
                         f"item of a '{sys_col}' (set --system to choose another run column).")
            return table, other
        first, second = sorted((sys_col, other), key=present.index)  # named in the file's order
        name = f"{first} / {second}"
        while name in present:
            name += " "
        pairs = zip(to_text(table, first), to_text(table, second))
        frame = table.frame.assign(**{name: text_array([f"{a} / {b}" for a, b in pairs])})
        notes.append(f"Each run is a ('{first}', '{second}') pair, named '{name}': rows repeat each item of "
                     f"a '{sys_col}', and column '{other}' tells its runs apart (set --system to choose one "
                     "column).")
        return dataclasses.replace(table, frame=frame), name
    return None


def _stacked_codes(table: LoadedTable, sys_col: str, item_col: str):
    """The codes :func:`~workbench.io.text_codes` gives both columns, without hashing every row,
    when the rows are the runs one after another, each listing the same items in the same order
    (runs written from one list of items, or one file per run stacked): (run codes, run labels,
    item codes, item labels), or None for any other table (which is then coded row by row).
    Only cell comparisons, a pass each: 20 runs x 100,000 ids coded in a few hundredths of a
    second instead of a few tenths."""
    if table.cell_codes(sys_col) is not None or table.cell_codes(item_col) is not None:
        return None  # columns shown from their values (numbers): coded from the values anyway
    runs, items = pd.Series(table.cell_text(sys_col)), pd.Series(table.cell_text(item_col))
    n = len(runs)
    if n < 2 or runs.dtype != items.dtype or not pd.api.types.is_string_dtype(runs.dtype):
        return None
    first_run = runs.iloc[0]
    other = (runs != first_run).to_numpy(dtype=bool)
    block = int(other.argmax()) if other.any() else n  # where the second run starts
    if n % block:
        return None
    count = n // block
    head = items.iloc[:block].reset_index(drop=True)
    labels = []
    for b in range(count):
        part = slice(b * block, (b + 1) * block)
        label = runs.iloc[b * block]
        if not (bool((runs.iloc[part] == label).all())
                and bool((items.iloc[part].reset_index(drop=True) == head).all())):
            return None
        labels.append(label)
    if len(set(labels)) != count:
        return None  # a run in two places: not one block per run
    codes, uniques = pd.factorize(head.array, use_na_sentinel=False)
    if len(uniques) != block:
        return None  # an item twice in a run: the row-by-row path names it
    return (np.repeat(np.arange(count, dtype=np.int64), block), np.asarray(labels, dtype=object),
            np.tile(codes.astype(np.int64), count), uniques)


def _labels(uniques) -> list[str]:
    """Distinct texts as a list of str (from a text array without a Python call per element)."""
    return [str(x) for x in np.asarray(uniques, dtype=object).tolist()]


#: what the grid's hover shows beside an item's outcome, when the file has it: role -> label
DETAIL_ROLES = {"cost": "cost", "steps": "steps", "tool_calls": "tool calls", "latency": "latency"}


def _details(table: LoadedTable, cells, shape, taken) -> dict[str, tuple[str, np.ndarray]]:
    """Per role of :data:`DETAIL_ROLES` the file has (named by its reader, else by a usual name):
    (column, items x runs numbers, NaN where missing or not a number)."""
    from ..core.role_names import ROLE_NAMES
    from ..io import guess_column

    out: dict[str, tuple[str, np.ndarray]] = {}
    for role in DETAIL_ROLES:
        by_reader = next((c for c, r in (table.roles or {}).items() if r == role and c in table.frame.columns), None)
        col = by_reader or guess_column(table, role, ROLE_NAMES.get(role, []))
        if col is None or col in taken:
            continue
        try:
            values = to_float(table, col, allow_missing=True)
        except DataError:  # not numbers: nothing to show
            continue
        wide = np.full(shape, np.nan)
        wide[cells] = values
        out[role] = (col, wide)
        taken = taken | {col}
    return out


def _ordered(table: LoadedTable, names: list[str], run_codes, sys_col: str, options: Options,
             notes: list[str]) -> list[str]:
    """The runs in order: by the --order column, else by a time or version column found by its
    name, else (one file per run) by the files' modification times, else as they appear
    (``run_codes``: each row's index into ``names``)."""
    def systems():  # each row's run name (only when a column or the files order the runs)
        return np.asarray(names, dtype=object)[run_codes]

    order = options.order
    if order is None:
        by_name = {str(c).strip().lower(): str(c) for c in table.frame.columns}
        order = next((by_name[n] for n in ORDER_NAMES if n in by_name and by_name[n] != sys_col), None)
    if order is not None:
        require_columns(table, [order])
        keys = pd.Series(to_text(table, order)).groupby(pd.Series(systems())).first()
        key, how, unread = _order_key({s: keys[s] for s in names})
        if unread:  # some runs' values read as numbers or dates, others not: never half-used
            shown = ", ".join(f"'{s}' ({keys[s]!r})" for s in unread[:3]) + (" ..." if len(unread) > 3 else "")
            if options.order:
                raise DataError(f"File '{table.name}', column '{order}': the runs' order values read as "
                                f"{how} except for {plural(len(unread), 'run')} ({shown}); correct "
                                f"{'that cell' if len(unread) == 1 else 'those cells'} or choose another "
                                "column with --order.")
            notes.append(f"Column '{order}' (found by its name) cannot order the runs: its values read as "
                         f"{how} except for {plural(len(unread), 'run')} ({shown}), so the runs are in the "
                         "order they first appear; set --order to choose a column.")
            return names, "first-appearance"
        ranked = sorted(names, key=key)
        notes.append(f"Runs ordered by column '{order}', read as {how}" + ("." if options.order else
                     " (found by its name; set --order to choose another)."))
        return ranked, f"column:{order}"
    if table.parts and "file" in map(str, table.frame.columns):  # one file (or more) per run
        mtime = {os.path.basename(p): (os.path.getmtime(p) if os.path.exists(p) else float("inf"))
                 for p, _sha in table.parts}
        files = pd.Series(to_text(table, "file")).str.split("/").str[0]
        first_file = files.groupby(pd.Series(systems())).first()
        times = {n: mtime.get(first_file.get(n), float("inf")) for n in names}
        if all(np.isfinite(t) for t in times.values()):
            notes.append("Runs ordered by their files' modification times (no time or version column).")
            return sorted(names, key=lambda n: times[n]), "file-mtime"
    return names, "first-appearance"


def _order_key(keys: dict[str, str]):
    """How the order column's values sort: numbers as numbers, dates as dates, else versions
    naturally (v1.9 before v1.10).  Returns (key, what the values read as, the runs whose values
    do not read so when most values are numbers or dates: a column that cannot be read in full)."""
    import re

    values = pd.Series(keys)
    numbers = pd.to_numeric(values, errors="coerce")
    if numbers.notna().all():
        return (lambda s: float(numbers[s])), "numbers", []
    try:
        dates = pd.to_datetime(values, errors="raise", format="mixed", utc=True)
        return (lambda s: dates[s]), "dates", []
    except (ValueError, TypeError):
        pass
    dates = _dates_or_nat(values)
    for parsed, what in ((numbers, "numbers"), (dates, "dates")):
        if parsed.notna().sum() >= max(1, (len(values) + 1) // 2):
            return None, what, [s for s in values.index if pd.isna(parsed[s])]

    def natural(s: str):
        return [(0, int(part), "") if part.isdigit() else (1, 0, part.lower())
                for part in re.split(r"(\d+)", str(keys[s])) if part]
    return natural, "text (natural order: v1.9 before v1.10)", []


def _dates_or_nat(values: pd.Series) -> pd.Series:
    """Each value as a date, NaT where it is not one."""
    out = []
    for v in values:
        try:
            out.append(pd.to_datetime(v, utc=True) if str(v).strip() else pd.NaT)
        except (ValueError, TypeError, OverflowError):
            out.append(pd.NaT)
    return pd.Series(out, index=values.index)


def _baseline_of(table: LoadedTable, names: list[str], wanted: str | None) -> str:
    """The baseline run: the name given (a file's name with or without its extension), else
    the first run."""
    if wanted is None:
        return names[0]
    if wanted in names:
        return wanted
    stems = [n for n in names if os.path.splitext(os.path.basename(n))[0] == wanted]
    if len(stems) == 1:
        return stems[0]
    raise DataError(f"File '{table.name}' has no run '{wanted}'; its runs are: {', '.join(names)}.")


def run(table: LoadedTable, options: Options = Options(), progress=NULL_PROGRESS) -> AnalysisResult:
    in_memory(table, TITLE)
    check_options(options)
    notes: list[str] = []
    names, items, G, binary, value_col, how, details = _grid(table, options, notes)
    k = len(names)
    if k < 2:
        raise DataError(f"File '{table.name}' holds {plural(k, 'run')}; runs side by side need two or more "
                        f"(stack one file per run, or name the run column with --system).")
    base = _baseline_of(table, names, options.baseline_system)
    b = names.index(base)
    sign = 1.0 if options.better == "higher" else -1.0
    records: list[dict] = []
    kind_word = "success rate" if binary else "mean score"
    progress.advance(0.05, "tie groups")
    wins = pair_wins(G) if binary else None  # every pair's counts at once
    letters, group_rows, common_n, draw = _tie_groups(G, names, binary, options, sign, notes,
                                                Scaled(progress, 0.05, 0.5), wins)
    group_recs = group_records(group_rows, options.groups)
    run_rows, ci_entries = [], []
    for j, name in enumerate(names):
        col = G[:, j][np.isfinite(G[:, j])]
        m = int(col.size)
        # a rate: Wilson or Clopper-Pearson; a mean score: the bootstrap over items, t beside
        ci = hc.mean_intervals({"x": col}, resamples=options.ci_resamples, seed=options.ci_seed)["x"]
        fields = _intervals.fields(ci) if m else {}
        ci_entries.append((_intervals.who("run_rate" if binary else "run_mean", name), ci))
        lo, hi = fields.get("ci_low", np.nan), fields.get("ci_high", np.nan)
        value = float(col.mean()) if m else np.nan
        records.append(record("run_rate" if binary else "run_mean", value, system=name, n=m, **fields,
                              groups=letters.get(name) or None))
        run_rows.append({"run": name, "items": m, "value": value, "ci_low": lo, "ci_high": hi,
                         "groups": letters.get(name, ""), "missing": int(len(items) - m),
                         "ci_method": fields.get("ci_method")})
    notes += _intervals.notes(ci_entries)
    records += group_recs
    # pairs: consecutive runs, and every run against the baseline
    pairs = [(j - 1, j) for j in range(1, k)]
    pairs += [(b, j) for j in range(k) if j != b and (b, j) not in pairs]
    pair_rows = []
    finite_by_run = np.isfinite(G.T)  # runs x items
    for step, (i, j) in enumerate(pairs):
        progress.check_cancelled()
        lo_p = 0.5 + 0.45 * step / len(pairs)
        pair_rows.append(_pair(G, finite_by_run, names, i, j, wins, options, records, notes,
                               "consecutive" if j == i + 1 else "vs baseline",
                               Scaled(progress, lo_p, lo_p + 0.45 / len(pairs))))
    # the item grid, with its flags
    grid = pd.DataFrame(G, columns=names)
    grid.insert(0, "item", items)
    finite = np.isfinite(G)
    changed = np.zeros(len(items), dtype=bool)
    for j in range(1, k):
        both = finite_by_run[j] & finite_by_run[j - 1]
        if binary:  # 0/1: a difference is not 0 exactly when the outcomes differ
            changed |= both & (G[:, j - 1] != G[:, j])
        else:
            changed |= both & (pm.paired_differences(np.nan_to_num(G[:, j - 1]), np.nan_to_num(G[:, j])) != 0)
    grid["changed"] = changed
    missing_in = np.full(len(items), "", dtype=object)
    for i in np.flatnonzero(~finite.all(axis=1)):  # only the items some run lacks
        missing_in[i] = ", ".join(n for n, f in zip(names, finite[i]) if not f)
    grid["missing_in"] = missing_in
    if binary:
        grid["wrong_in_every_run"] = np.all(finite & (G == 0) | ~finite, axis=1) & finite.any(axis=1)
        grid["right_in_baseline_wrong_in_last"] = finite[:, b] & finite[:, -1] & (G[:, b] == 1) & (G[:, -1] == 0)
    tables = [
        Table("runs", f"Each run: {kind_word} and tie group", pd.DataFrame(run_rows), columns={
            "value": kind_word, "ci_low": "95% interval, low (its method in ci_method)",
            "ci_high": "95% interval, high (its method in ci_method)",
            "ci_method": ("Wilson, or Clopper-Pearson below 30 items or at 0% or 100%" if binary else
                          "the bootstrap over items (a rate's interval for 0/1 values)"),
            "groups": "compact letter display: runs that share a letter are not significantly different",
            "missing": "items of the file that this run has no value for"},
            formats={"value": "rate" if binary else "float", "ci_low": "rate" if binary else "float",
                     "ci_high": "rate" if binary else "float", "items": "int", "missing": "int",
                     "groups": "text", "ci_method": "text"}),
        Table("pairs", "Consecutive runs and each run against the baseline (paired by item)",
              pd.DataFrame(pair_rows), columns={
                  "diff": "to - from over the items both runs have",
                  "ci_low": "paired bootstrap 95% percentile interval, low",
                  "ci_high": "paired bootstrap 95% percentile interval, high",
                  "gained": "items better in 'to'", "lost": "items worse in 'to'",
                  "only_from": "items only 'from' has", "only_to": "items only 'to' has"},
              formats={"diff": "points" if binary else "score_diff", "ci_low": "points" if binary else "score_diff",
                       "ci_high": "points" if binary else "score_diff", "p_value": "p", "items": "int",
                       "gained": "int", "lost": "int", "only_from": "int", "only_to": "int"}),
        Table("groups", "Tie groups (pairwise p-values)", pd.DataFrame(group_rows),
              formats={"p_value": "p", "diff": "points" if binary else "score_diff", "items": "int"}),
        Table("grid", "Items x runs", grid, formats={n: "int" if binary else "float" for n in names}),
    ]
    if details:  # the hover's cost, steps and latency of each item in each run
        detail = pd.DataFrame({"item": items})
        for role, (col, M) in details.items():
            for j, name in enumerate(names):
                detail[f"{DETAIL_ROLES[role]}: {name}"] = M[:, j]
        tables.append(Table("grid_details", "Items x runs: " + ", ".join(
            f"{DETAIL_ROLES[r]} (column '{c}')" for r, (c, _) in details.items()), detail,
            formats={c: "float" for c in detail.columns if c != "item"}))
    sig = base_signature(NAME)
    sig.update({"value": "binary" if binary else "score", "column": value_col, "runs": str(k),
                "order": how,
                "baseline": base, "pairs": "by-item-id,common-items",
                "run-ci": (_intervals.RATE_WORDS if binary else
                           f"bootstrap-percentile-95,B={options.ci_resamples},seed={options.ci_seed},over:items,"
                           + _intervals.BUDGET[1:] + "," + _intervals.T_WORDS),
                "diff-ci": f"paired-bootstrap-percentile-95,bs:{options.resamples},seed:{options.seed}",
                "diff-test": "exact-sign" if binary else "randomization",
                "ties": pm.TIES_SIGNATURE,
                "groups": (f"randomised-tukey-hsd,rounds:{options.rounds},seed:{options.seed},"
                           + (f"draw:{draw}," if draw else "") + "items-in-every-run"
                           if options.groups == "tukey" else
                           f"holm-over-paired-{'sign' if binary else 'randomization'}-tests"),
                "letters": "insert-absorb,alpha:0.05", "better": options.better})
    progress.advance(1.0, "done")
    return AnalysisResult(NAME, signature(sig), tuple(records), tuple(tables), tuple(notes), table.path,
                          json_tables=("grid",))


def _pair(G, finite, names, i, j, wins, options, records, notes, relation, progress) -> dict:
    """``finite``: runs x items, where each run has a value; ``wins``: :func:`pair_wins` of a
    0/1 grid (None for scores)."""
    binary = wins is not None
    a, c = names[i], names[j]
    fa, fc = finite[i], finite[j]
    both = fa & fc
    n = int(np.count_nonzero(both))
    only_a, only_c = int(np.count_nonzero(fa)) - n, int(np.count_nonzero(fc)) - n
    kw = dict(from_=a, to=c, n=n)
    row = {"from": a, "to": c, "relation": relation, "items": n, "only_from": only_a, "only_to": only_c}
    if n == 0:
        notes.append(f"'{c}' vs '{a}': no item is in both runs, so they cannot be compared.")
        return row
    if binary:
        counts = sg.PairedCounts(int(wins[i, j]), int(wins[j, i]), n - int(wins[i, j]) - int(wins[j, i]))
        p = sg.sign_test(counts.wins, counts.losses)[0]
        samples = sg.bootstrap_paired_counts(counts.wins, counts.losses, n, resamples=options.resamples,
                                             seed=options.seed)
        lo, hi = sg.percentile_interval(samples)
        diff, gained, lost = counts.diff, counts.wins, counts.losses
    else:
        ps = pm.summarize(G[both, i], G[both, j], resamples=options.resamples, seed=options.seed,
                          rounds=options.rounds, progress=progress)
        p, lo, hi, diff = ps.randomization.p, ps.boot_low, ps.boot_high, ps.diff
        gained, lost = ps.directions.improved, ps.directions.worse
        if options.better == "lower":
            gained, lost = lost, gained
    records += [record("diff" if binary else "mean_diff", diff, ci_low=lo, ci_high=hi,
                       ci_method="paired-bootstrap-percentile-95", **kw),
                record("p_value", p, **kw),
                record("gained", gained, **kw), record("lost", lost, **kw),
                record("only_from", only_a, **kw), record("only_to", only_c, **kw)]
    every = n == len(both)  # no item missing from either: the columns as they are
    records += _pair_tests(G[:, i] if every else G[both, i], G[:, j] if every else G[both, j], binary, p,
                           ps if not binary else None, kw, counts if binary else None)
    if only_a or only_c:
        notes.append(f"'{c}' vs '{a}': {only_a} items only in '{a}' and {only_c} only in '{c}' are listed in "
                     f"the grid (column 'missing_in') and left out of their paired comparison "
                     f"({plural(n, 'common item')}).")
    row.update({"diff": diff, "ci_low": lo, "ci_high": hi, "p_value": p, "gained": gained, "lost": lost})
    return row


def _pair_tests(x, y, binary, p, ps, kw, counts=None) -> list[dict]:
    """The pair's tests beside its p_value, named as Compare names them: for 0/1 outcomes the
    exact sign test (``sign_test_p``, the p_value itself), McNemar without and with continuity
    correction and the paired t-test; for scores the randomization test (``randomization_p``, the
    p_value itself) and the paired t-test (``t_test_p``, and ``t`` with its degrees of freedom).
    ``counts``: the pair's :func:`~workbench.metrics.significance.paired_counts`, when known."""
    if binary:
        counts = counts if counts is not None else sg.paired_counts(x, y)
        out = [record("sign_test_p", p, **kw),
               record("mcnemar_p", sg.mcnemar(counts.wins, counts.losses, correction=False)[1], **kw),
               record("mcnemar_cc_p", sg.mcnemar(counts.wins, counts.losses, correction=True)[1], **kw)]
        t = pm.paired_t(np.asarray(y, dtype=float) - np.asarray(x, dtype=float))
    else:
        out = [record("randomization_p", p, **kw)]
        t = ps.t
    return out + [record("t_test_p", t.p, **kw), record("t", t.t, df=t.df if kw["n"] > 1 else None, **kw)]


def group_records(group_rows: list[dict], method: str) -> list[dict]:
    """Each pair's adjusted p of the tie groups as a record: ``tukey_hsd_p`` (randomised Tukey
    HSD) or ``p_adjusted`` (Holm, group "all pairs"), as Compare names them."""
    out = []
    for row in group_rows:
        kw = dict(from_=row["from"], to=row["to"], n=row["items"])
        out.append(record("tukey_hsd_p", row["p_value"], **kw) if method == "tukey" else
                   record("p_adjusted", row["p_value"], group="all pairs", **kw))
    return out


def _tie_groups(G, names, binary, options, sign, notes, progress, wins=None):
    """``wins``: :func:`pair_wins` of the whole 0/1 grid (reused when every run has every item)."""
    k = len(names)
    every = np.all(np.isfinite(G), axis=1)
    n = int(every.sum())
    complete = n == len(G)
    # 0/1 outcomes: G itself (sums of 0/1 are exact in any order); scores: item by item as
    # before (a mean's rounding depends on the order of its sum)
    S = G if complete and binary else np.ascontiguousarray(G[every])
    if n < len(G):
        notes.append(f"Tie groups use the {plural(n, 'item')} every run has ({len(G) - n} items missing from "
                     f"at least one run are left out of them).")
    if n == 0:
        notes.append("No item is in every run: no tie groups.")
        return {}, [], 0, None
    means = S.mean(axis=0)
    order = sorted(range(k), key=lambda j: -sign * means[j])
    if options.groups == "tukey":
        res = randomized_tukey_hsd(S, rounds=options.rounds, seed=options.seed, progress=progress)
        P = res.p
    else:
        P = np.ones((k, k))
        idx = [(i, j) for i in range(k) for j in range(i + 1, k)]
        if binary:  # every pair's wins and losses from one product of the grid, the tests at once
            up = wins if complete and wins is not None else pair_wins(S)
            raw = sg.sign_tests([up[i, j] for i, j in idx], [up[j, i] for i, j in idx])[0]
        else:
            raw = []
            for i, j in idx:
                progress.check_cancelled()
                raw.append(pm.sign_flip_test(pm.paired_differences(S[:, i], S[:, j]), rounds=options.rounds,
                                             seed=options.seed, quantum=pm.tie_quantum(S[:, i], S[:, j])).p)
        for (i, j), p in zip(idx, pm.holm(raw)):  # Holm: one sort of the pairs' p-values
            P[i, j] = P[j, i] = p
    significant = P < ALPHA
    letters = compact_letters(order, significant)
    by_name = {names[j]: letters[j] for j in range(k)}
    rows = [{"from": names[i], "to": names[j], "items": n, "diff": float(means[j] - means[i]),
             "p_value": float(P[i, j])} for i in range(k) for j in range(i + 1, k)]
    top = [names[j] for j in range(k) if "a" in by_name[names[j]]]
    notes.append(f"Tie groups ({'randomised Tukey HSD' if options.groups == 'tukey' else 'Holm-adjusted paired tests'}, "
                 f"alpha {ALPHA:g}, on {plural(n, 'item')}): runs sharing a letter are not significantly different; "
                 f"{len(top)} of {k} runs tie for first (group a): {', '.join(repr(t) for t in top)}.")
    return by_name, rows, n, (res.method if options.groups == "tukey" else None)
