"""Compare's input: every system's score per item, paired by item id (wide or long input)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..core.errors import DataError, OptionError
from ..core.numbers import plural
from ..io import LoadedTable, guess_column, to_binary, to_float, to_text
from ..io.columns import holds_binary_words
from ._common import ROLE_NAMES, Resolver, check_unique
from ._compare_common import Collected, Options


def _values(table: LoadedTable, column: str, mode: str) -> tuple[np.ndarray, bool]:
    """A score column as floats, and whether it is a binary outcome under ``mode``."""
    if mode == "binary":
        return to_binary(table, column).astype(float), True
    try:
        values = to_float(table, column)
    except DataError as err:
        if mode == "continuous":
            raise
        try:
            return to_binary(table, column).astype(float), True
        except DataError as binary_err:
            # yes/no/maybe: the bad cell is 'maybe', not 'yes' and 'no' (which are not numbers)
            raise (binary_err if holds_binary_words(table, column) else err) from None
    return values, mode == "auto" and bool(np.isin(values, (0.0, 1.0)).all())


def collect(table: LoadedTable, options: Options, res: Resolver) -> Collected:
    """Every system's score per item, on the items all of them have (wide or long input)."""
    long_form = options.system is not None or options.baseline_system is not None
    if not long_form and options.baseline is None and options.candidate is None:
        def has(role: str) -> bool:
            return guess_column(table, role, ROLE_NAMES[role]) is not None

        long_form = has("system") and (has("outcome") or has("score")) and not (
            has("baseline") and has("candidate"))
    return _collect_long(table, options, res) if long_form else _collect_wide(table, options, res)


def _collect_wide(table: LoadedTable, options: Options, res: Resolver) -> Collected:
    base_col = res.required(options.baseline, "baseline", "--baseline")
    columns = set(map(str, table.frame.columns))
    if options.candidate and options.candidate not in columns and "," in options.candidate:
        cands = [c.strip() for c in options.candidate.split(",") if c.strip()]
        for c in cands:
            res.optional(c, "candidate", "--candidate")
    else:
        cands = [res.required(options.candidate, "candidate", "--candidate")]
    if base_col in cands:
        raise OptionError("The baseline and candidate columns must differ.")
    if len(set(cands)) != len(cands):
        raise OptionError("Each candidate column may be named once.")
    item_col = res.optional(options.item, "item", "--item")
    if item_col in [base_col, *cands]:
        item_col = None
    n = len(table.frame)
    if item_col:
        check_unique(table, [item_col], "item id")
        items = to_text(table, item_col)
    else:
        items = [f"line {x}" for x in table.lines_of(range(n))]
    cluster = to_text(table, options.cluster) if options.cluster else None
    parsed = [_values(table, c, options.scores) for c in [base_col, *cands]]
    scores = np.column_stack([v for v, _ in parsed]) if n else np.zeros((0, len(parsed)))
    binary = all(b for _, b in parsed)
    if options.scores == "auto" and not binary and any(b for _, b in parsed):
        # 0/1 in one column, other numbers in another: most likely a bad outcome, not a score
        bad = next(c for c, (_, b) in zip([base_col, *cands], parsed) if not b)
        try:
            to_binary(table, bad)
        except DataError as err:
            raise DataError(f"{str(err).rstrip('.')}; the other columns hold only 0/1 outcomes (to compare "
                            f"them as scores, set --scores continuous).") from None
    rows = np.repeat(np.arange(n)[:, None], len(parsed), axis=1)
    return Collected(items, scores, rows, [base_col, *cands], cluster, "wide", binary,
                     bool(np.all((scores >= 0) & (scores <= 1))))


def _collect_long(table: LoadedTable, options: Options, res: Resolver) -> Collected:
    sys_col = res.required(options.system, "system", "--system")
    item_col = res.required(options.item, "item", "--item")
    given = options.score or options.outcome
    if given:
        score_col = res.required(given, "outcome", "--score")
    else:
        score_col = res.optional(None, "outcome", "--score") or res.required(None, "score", "--score")
    check_unique(table, [sys_col, item_col], "(system, item) pair")
    systems = pd.Series(to_text(table, sys_col))
    names = list(dict.fromkeys(systems))
    base, cand = options.baseline_system, options.candidate_system
    for name in (base, cand):
        if name is not None and name not in names:
            raise DataError(f"File '{table.name}', column '{sys_col}' has no system '{name}'; "
                            f"its systems are: {', '.join(names)}.")
    if len(names) < 2:
        raise DataError(f"File '{table.name}' has {len(names)} system in column '{sys_col}'; a "
                        f"comparison needs two or more.")
    if base is not None and base == cand:
        raise OptionError("The baseline and candidate systems must differ.")
    if base is None:
        base = names[0] if cand != names[0] else names[1]
        res.notes.append(f"Baseline '{base}' was taken in file order (set --baseline-system to choose).")
    if cand is not None:
        chosen = [base, cand]
    else:
        chosen = [base] + [x for x in names if x != base]
        if len(chosen) == 2:
            res.notes.append(f"Candidate '{chosen[1]}' is the other system in the file.")
    values, binary = _values(table, score_col, options.scores)
    frame = pd.DataFrame({"item": to_text(table, item_col), "system": systems, "y": values,
                          "row": np.arange(len(values))})
    if options.cluster:
        frame["cluster"] = to_text(table, options.cluster)
    frame = frame[frame["system"].isin(chosen)]
    parts = {name: frame[frame["system"] == name].set_index("item") for name in chosen}
    common = parts[base].index
    for name in chosen[1:]:
        common = common.intersection(parts[name].index, sort=False)
    for name in chosen:
        only = parts[name].index.difference(common, sort=False)
        if len(only):
            one = len(only) == 1
            how = (f"{'was' if one else 'were'} scored only by '{name}'" if len(chosen) == 2 else
                   f"of '{name}' {'is' if one else 'are'} not scored by every system compared")
            res.notes.append(f"{plural(len(only), 'item')} {how} (for example {', '.join(map(str, only[:3]))}); "
                             f"they are left out of the paired comparison, which uses the "
                             f"{plural(len(common), 'common item')}.")
    if len(common) == 0:
        raise DataError(f"File '{table.name}': systems {', '.join(repr(x) for x in chosen)} share no "
                        f"item id in column '{item_col}', so nothing can be paired.")
    cluster = None
    if options.cluster:
        ref = parts[base].loc[common, "cluster"].to_numpy()
        for name in chosen[1:]:
            mismatch = parts[name].loc[common, "cluster"].to_numpy() != ref
            if mismatch.any():
                item = common[int(np.flatnonzero(mismatch)[0])]
                raise DataError(f"File '{table.name}': item '{item}' has a different cluster "
                                f"for '{base}' and '{name}' in column '{options.cluster}'.")
        cluster = list(ref)
    scores = np.column_stack([parts[x].loc[common, "y"].to_numpy(dtype=float) for x in chosen])
    rows = np.column_stack([parts[x].loc[common, "row"].to_numpy() for x in chosen])
    return Collected([str(i) for i in common], scores, rows, chosen, cluster, "long", binary,
                     bool(np.all((scores >= 0) & (scores <= 1))))
