"""Repeated runs of the same items: which items flip, and how much of the noise is the model's own.

Input: one row per try: an item, an outcome (0/1) or a score in [0, 1], and optionally a repeat
(epoch, seed) column and a system column; without a repeat column an item's rows are its
tries.  Inspect logs with several epochs come in this shape (item = sample, repeat = epoch).

Output: per item its successes k of K tries, the items that flip (neither always right nor
always wrong) first; per system the mean with its 95% interval from the standard error with K
repeats, the noise split of Miller (2024) (:mod:`workbench.metrics.repeats`) beside what one
repeat would give and the clustered standard error with items as clusters; the items and the
repeats needed for a target half-width; with a baseline system, the same split of the paired
per-item differences.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pandas as pd

from ..core.errors import DataError, OptionError
from ..core.numbers import plural
from ..core.progress import NULL_PROGRESS
from ..core.result import AnalysisResult, Table, record, signature
from ..io import LoadedTable, require_columns, to_float, to_text
from ..metrics import repeats as rp
from ._common import ITEM_NAMES, base_signature, pick_column

NAME = "repeats"
TITLE = "Repeats"
REPEAT_NAMES = ("repeat", "epoch", "seed", "try", "attempt", "run", "trial", "sample_index")


@dataclass(frozen=True)
class Options:
    #: a log's roles read for repeats: the item is the task's sample (its epochs are its tries),
    #: not the sample-and-epoch rows
    FIELD_ROLES: ClassVar[dict[str, str]] = {"item": "task", "outcome": "success", "repeat": "epoch"}

    item: str | None = None
    outcome: str | None = None
    #: the repeat (epoch, seed) column; without one, an item's rows are its tries
    repeat: str | None = None
    system: str | None = None
    baseline_system: str | None = None
    #: the 95% half-width to plan for (a fraction: 0.02 is 2 points)
    target: float = 0.02


def check_options(options: Options) -> None:
    if not (isinstance(options.target, (int, float)) and 0 < options.target < 1):
        raise OptionError(f"`target` is a half-width between 0 and 1 (0.02 is 2 points); got "
                          f"target={options.target!r}.")


def run(table: LoadedTable, options: Options = Options(), progress=NULL_PROGRESS) -> AnalysisResult:
    check_options(options)
    notes: list[str] = []
    columns = set(map(str, table.frame.columns))
    sample = next((c for c in ("task_sample", "sample_id") if c in columns), None)
    if options.item is None and sample and "epoch" in columns:  # a log: a sample's epochs are its tries
        item_col = sample
        notes.append(f"Column '{sample}' was taken as the item column: each sample's epochs are its tries "
                     f"(set --item to choose another).")
    else:
        item_col = pick_column(table, options.item, "item", "--item", notes, names=ITEM_NAMES)
    out_col = pick_column(table, options.outcome, "outcome", "--outcome", notes,
                          names=("outcome", "success", "correct", "score", "passed"))
    rep_col = pick_column(table, options.repeat, "repeat", "--repeat", notes, names=REPEAT_NAMES, required=False)
    sys_col = options.system
    if sys_col:
        require_columns(table, [sys_col])
    values = to_float(table, out_col, allow_missing=True)
    finite = np.isfinite(values)
    if (~finite).any():
        notes.append(f"{plural(int((~finite).sum()), 'row')} without a value in column '{out_col}' "
                     f"{'is' if (~finite).sum() == 1 else 'are'} left out.")
    bad = finite & ((values < 0) | (values > 1))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise DataError(f"File '{table.name}', column '{out_col}': an outcome must be 0/1 or a score in [0, 1]; "
                        f"line {table.lines_of([i])[0]} holds {values[i]:g}.")
    binary = bool(np.isin(values[finite], (0.0, 1.0)).all())
    frame = pd.DataFrame({"item": to_text(table, item_col), "y": values,
                          "system": to_text(table, sys_col) if sys_col else "",
                          "repeat": to_text(table, rep_col) if rep_col else ""})[finite]
    if rep_col:
        dup = frame.duplicated(["system", "item", "repeat"])
        if dup.any():
            row = frame[dup].iloc[0]
            raise DataError(f"File '{table.name}': item '{row['item']}' has two rows for repeat '{row['repeat']}' "
                            f"(column '{rep_col}')" + (f" of system '{row['system']}'" if sys_col else "") +
                            "; each try must appear once.")
    systems = list(dict.fromkeys(frame["system"]))
    base = options.baseline_system if options.baseline_system is not None else systems[0]
    if sys_col and base not in systems:
        raise DataError(f"File '{table.name}', column '{sys_col}' has no system '{base}'; its systems are: "
                        f"{', '.join(systems)}.")
    items_all = list(dict.fromkeys(frame["item"]))
    code_of = {it: i for i, it in enumerate(items_all)}
    records, split_rows, item_frames = [], [], []
    splits: dict[str, rp.NoiseSplit] = {}
    kind = "rate" if binary else "score"
    for name in systems:
        part = frame[frame["system"] == name]
        sys_items = list(dict.fromkeys(part["item"]))
        local = {it: i for i, it in enumerate(sys_items)}
        codes = part["item"].map(local).to_numpy()
        sp = rp.noise_split(codes, part["y"].to_numpy())
        splits[name] = sp
        kw = {"system": name} if sys_col else {}
        half = rp.Z95 * sp.se
        records += [
            record("repeats_rate" if binary else "repeats_mean", sp.mean, n=sp.n_items,
                   ci_low=max(0.0, sp.mean - half) if sp.se == sp.se else None,
                   ci_high=min(1.0, sp.mean + half) if sp.se == sp.se else None, **kw),
            record("var_data", sp.var_data, n=sp.n_items, **kw),
            record("var_within", sp.var_within, n=sp.n_items, **kw),
            record("within_share", sp.var_within / (sp.var_data + sp.var_within)
                   if (sp.var_data + sp.var_within) > 0 else None, n=sp.n_items, **kw),
            record("se_repeats", sp.se, n=sp.n_items, **kw),
            record("se_one_repeat", sp.se_one_repeat, n=sp.n_items, **kw),
            record("clustered_se", sp.clustered_se, n=sp.n_items, **kw),
            record("items_needed", rp.items_needed(sp, options.target, sp.k_harmonic) if sp.se == sp.se else None,
                   n=sp.n_items, **kw),
            record("repeats_needed", _finite_or_none(rp.repeats_needed(sp, options.target)) if sp.se == sp.se
                   else None, n=sp.n_items, **kw),
        ]
        # per item
        g = part.groupby("item", sort=False)["y"]
        per = pd.DataFrame({"item": g.size().index, "tries": g.size().to_numpy(),
                            "successes" if binary else "score_sum": g.sum().to_numpy(),
                            "share" if binary else "mean": g.mean().to_numpy()})
        lo_hi = g.agg(["min", "max"])
        per["flips"] = (lo_hi["min"] < lo_hi["max"]).to_numpy()
        if sys_col:
            per.insert(0, "system", name)
        item_frames.append(per)
        flips = int(per["flips"].sum())
        records.append(record("flipping_items", flips, n=sp.n_items, **kw))
        split_rows.append({**({"system": name} if sys_col else {}), "items": sp.n_items, "k_min": sp.k_min,
                           "k_max": sp.k_max, "k_harmonic": sp.k_harmonic, "mean": sp.mean,
                           "var_data": sp.var_data, "var_within": sp.var_within,
                           "var_data_plugin": sp.var_data_plugin, "var_within_plugin": sp.var_within_plugin,
                           "se": sp.se, "se_one_repeat": sp.se_one_repeat, "clustered_se": sp.clustered_se,
                           "flipping_items": flips})
        who = f"'{name}': " if sys_col else ""
        if sp.k_min != sp.k_max:
            notes.append(f"{who}items have between {sp.k_min} and {sp.k_max} tries; the standard error uses the "
                         f"harmonic mean {sp.k_harmonic:.2f} and each item's own K in the corrections.")
        if sp.single_try_items:
            notes.append(f"{who}{plural(sp.single_try_items, 'item')} with a single try show no within-item spread "
                         f"and {'is' if sp.single_try_items == 1 else 'are'} left out of it.")
        if sp.se == sp.se and (sp.mean - half < 0 or sp.mean + half > 1):
            notes.append(f"{who}the normal interval runs past 0-1 ({plural(sp.n_items, 'item')} are few) and is "
                         f"shown clipped to that range.")
        if sp.clipped:
            notes.append(f"{who}the data part, corrected for K, came out below 0 and is shown as 0 (the items "
                         f"differ less than the tries do).")
    per_items = pd.concat(item_frames, ignore_index=True)
    per_items = per_items.sort_values(["flips"], ascending=False, kind="stable").reset_index(drop=True)
    tables = [
        Table("split", "Noise split (Miller 2024)", pd.DataFrame(split_rows), columns={
            "var_data": "variance of the items' success rates, corrected for K (the data)",
            "var_within": "mean variance within an item across tries, corrected for K (the model's own randomness)",
            "se": "standard error of the mean: sqrt((var_data + var_within / K) / N), K the harmonic mean of tries",
            "se_one_repeat": "the standard error with one try per item",
            "clustered_se": "standard error with items as clusters over every try (C/(C-1) factor)"},
            formats={c: "float" for c in ("k_harmonic", "var_data", "var_within", "var_data_plugin",
                                          "var_within_plugin", "se", "se_one_repeat", "clustered_se")}
            | {"mean": kind, "items": "int", "k_min": "int", "k_max": "int", "flipping_items": "int"}),
        Table("items", "Per item: tries and successes (flipping items first)", per_items,
              formats={"share": "rate", "mean": "float", "tries": "int", "successes": "int", "score_sum": "float"}),
    ]
    if sys_col and len(systems) > 1:
        _paired(frame, systems, base, code_of, options, records, tables, notes, binary)
    sig = base_signature(NAME)
    sig.update({"value": "binary" if binary else "score[0,1]", "repeat": f"column:{rep_col}" if rep_col else "rows-per-item",
                "split": "miller2024,unbiased-K(eval-arena),var-over-items:ddof0,within:ddof0+s2/(K-1)",
                "se": "sqrt((var_data+var_within/K)/N),K:harmonic", "ci": "normal-95(mean+-1.96se),clipped[0,1]",
                "clustered-se": "items,C/(C-1)", "target": f"+-{options.target:g}"})
    if sys_col:
        sig["baseline"] = base
    progress.advance(1.0, "done")
    return AnalysisResult(NAME, signature(sig), tuple(records), tuple(tables), tuple(notes), table.path,
                          json_tables=tuple(t.name for t in tables if t.name in ("items", "split", "paired")))


def _finite_or_none(x):
    return None if x is None or (isinstance(x, float) and not math.isfinite(x)) else x


def _paired(frame, systems, base, code_of, options, records, tables, notes, binary):
    rows = []
    for name in systems:
        if name == base:
            continue
        a, b = frame[frame["system"] == base], frame[frame["system"] == name]
        common = sorted(set(a["item"]) & set(b["item"]), key=list(code_of).index)
        if not common:
            notes.append(f"'{name}' and '{base}' share no item: no paired split.")
            continue
        local = {it: i for i, it in enumerate(common)}
        a, b = a[a["item"].isin(local)], b[b["item"].isin(local)]
        sp = rp.paired_noise_split(a["item"].map(local), a["y"], b["item"].map(local), b["y"], len(local))
        half = rp.Z95 * sp.se
        kw = dict(from_=base, to=name, n=sp.n_items)
        records += [record("repeats_rate_diff" if binary else "repeats_diff", sp.mean, ci_low=sp.mean - half if sp.se == sp.se else None,
                           ci_high=sp.mean + half if sp.se == sp.se else None, **kw),
                    record("var_data", sp.var_data, **kw), record("var_within", sp.var_within, **kw),
                    record("se_repeats", sp.se, **kw), record("se_one_repeat", sp.se_one_repeat, **kw)]
        rows.append({"from": base, "to": name, "items": sp.n_items, "diff": sp.mean, "var_data": sp.var_data,
                     "var_within": sp.var_within, "se": sp.se, "se_one_repeat": sp.se_one_repeat})
        doubled_k = math.sqrt((sp.var_data + sp.var_within / (2 * sp.k_harmonic)) / sp.n_items)
        doubled_n = sp.se / math.sqrt(2)
        more = "items" if doubled_n <= doubled_k else "repeats"
        notes.append(f"'{name}' vs '{base}': per-item differences on {plural(sp.n_items, 'common item')}; doubling "
                     f"the items would bring the standard error to {doubled_n:.4f}, doubling the "
                     f"repeats to {doubled_k:.4f}: more {more} narrow the interval more.")
    if rows:
        tables.append(Table("paired", "Paired noise split of the per-item differences", pd.DataFrame(rows),
                            formats={"diff": "points" if binary else "score_diff", "var_data": "float", "var_within": "float",
                                     "se": "float", "se_one_repeat": "float", "items": "int"}))
