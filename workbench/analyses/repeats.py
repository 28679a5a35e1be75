"""Repeated runs of the same items: which items flip, and how much of the noise is the model's own.

Input: one row per try: an item, an outcome (0/1) or a score in [0, 1], and optionally a repeat
(epoch, seed) column and a system column; without a repeat column an item's rows are its
tries.  Inspect logs with several epochs come in this shape (item = sample, repeat = epoch).

Output: per item its successes k of K tries, the items that flip (neither always right nor
always wrong) first; per system the mean with its 95% interval from the standard error with K
repeats, the noise split of Miller (2024) (:mod:`workbench.metrics.repeats`) beside what one
repeat would give and the clustered standard error with items as clusters; the items and the
repeats needed for a target half-width; with a baseline system, the same split of the paired
per-item differences and whether more items or more repeats narrow its interval more.  When the
repeats are whole runs (a repeat column, every repeat over the same items): each run's mean, their
standard deviation (divisor R - 1) and range beside one run's interval over items (from
``se_one_repeat``), with a note when the seeds spread more.  With 0/1 outcomes, the unbiased
pass@k and pass^k curve (:mod:`workbench.metrics.passk`) for k = 1..K_min from the same k of K.
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
from ..core.role_names import ROLE_NAMES
from ..io import LoadedTable, text_codes, to_float
from ..metrics import headline_ci as hc
from ..metrics import passk as pk
from ..metrics import repeats as rp
from ._common import ITEM_NAMES, base_signature, pick_column, in_memory, system_column
from .passk import curve_ks

NAME = "repeats"
TITLE = "Repeats"
#: a repeat column's names: the reading's, so the file's card counts the same repeats (a 'run'
#: column is the reading's system: each run is compared, not taken as a try)
REPEAT_NAMES = tuple(ROLE_NAMES["epoch"])


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


def item_column(table: LoadedTable, options: Options, notes: list[str]) -> str:
    """The column naming the items (the one given, a log's sample id, or a guess, said in a note)."""
    columns = set(map(str, table.frame.columns))
    sample = next((c for c in ("task_sample", "sample_id") if c in columns), None)
    if options.item is None and sample and "epoch" in columns:  # a log: a sample's epochs are its tries
        notes.append(f"Column '{sample}' was taken as the item column: each sample's epochs are its tries "
                     f"(set --item to choose another).")
        return sample
    return pick_column(table, options.item, "item", "--item", notes, names=ITEM_NAMES)


def run(table: LoadedTable, options: Options = Options(), progress=NULL_PROGRESS) -> AnalysisResult:
    in_memory(table, TITLE)
    check_options(options)
    notes: list[str] = []
    item_col = item_column(table, options, notes)
    out_col = pick_column(table, options.outcome, "outcome", "--outcome", notes,
                          names=("outcome", "success", "correct", "score", "passed"))
    rep_col = pick_column(table, options.repeat, "repeat", "--repeat", notes, names=REPEAT_NAMES, required=False)
    # several systems are never pooled: a system column is guessed as the file's reading does
    sys_col = system_column(table, options.system, (item_col, out_col, rep_col), notes, varying=False)
    values = to_float(table, out_col, allow_missing=True)
    finite = np.isfinite(values)
    if (~finite).any():
        notes.append(f"{plural(int((~finite).sum()), 'row')} without a value in column '{out_col}' "
                     f"{'is' if (~finite).sum() == 1 else 'are'} left out.")
    bad = finite & ((values < 0) | (values > 1))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise DataError(f"File '{table.name}', column '{out_col}': an outcome must be 0/1 or a score in [0, 1]; "
                        f"{table.describe_rows([i])} holds {values[i]:g}.")
    binary = bool(np.isin(values[finite], (0.0, 1.0)).all())
    item_c, item_l = _codes(table, item_col)
    sys_c, sys_l = _codes(table, sys_col) if sys_col else (np.zeros(len(values), np.int64), np.array([""], object))
    rep_c, rep_l = _codes(table, rep_col) if rep_col else (np.zeros(len(values), np.int64), np.array([""], object))
    item_c, sys_c, rep_c, y = item_c[finite], sys_c[finite], rep_c[finite], values[finite]
    if rep_col and _repeated(sys_c, item_c, rep_c):
        dup = pd.DataFrame({"s": sys_c, "i": item_c, "r": rep_c}).duplicated().to_numpy()
        if dup.any():
            i = int(np.flatnonzero(dup)[0])
            raise DataError(f"File '{table.name}': item '{item_l[item_c[i]]}' has two rows for repeat "
                            f"'{rep_l[rep_c[i]]}' (column '{rep_col}')" +
                            (f" of system '{sys_l[sys_c[i]]}'" if sys_col else "") + "; each try must appear once.")
    sys_codes, sys_first = pd.factorize(sys_c, sort=False)  # the systems in order of first appearance
    systems = [str(sys_l[c]) for c in sys_first]
    base = options.baseline_system if options.baseline_system is not None else systems[0]
    if sys_col and base not in systems:
        raise DataError(f"File '{table.name}', column '{sys_col}' has no system '{base}'; its systems are: "
                        f"{', '.join(systems)}.")
    tries = _Tries(item_c, item_l, y, rep_c, rep_l)
    parts = {name: _System(tries, np.flatnonzero(sys_codes == i)) for i, name in enumerate(systems)}
    records, split_rows, item_frames, seed_rows, passk_frames = [], [], [], [], []
    passk_counts = False
    for name, part in parts.items():
        kw = {"system": name} if sys_col else {}
        who = f"'{name}': " if sys_col else ""
        split_rows.append(_one_system(part, name, sys_col, binary, options, records, item_frames, notes))
        if rep_col:
            _seeds(part, kw, who, binary, records, seed_rows, notes)
        if binary:
            frame, by_counts = _passk_curve(part, kw)
            passk_frames.append(frame)
            passk_counts = passk_counts or by_counts
    if not rep_col:
        notes.append("No seed spread: without a repeat column an item's rows are its tries, not whole runs "
                     "with a seed each.")
    if not binary:
        notes.append("No pass@k curve: the outcomes are scores, and pass@k and pass^k need 0/1 outcomes.")
    tables = _tables(split_rows, item_frames, binary)
    if seed_rows:
        tables.append(_seed_table(seed_rows, binary))
    if passk_frames:
        tables.append(Table("passk", "pass@k and pass^k over k = 1..K (the same per-item k of K tries)",
                            pd.concat(passk_frames, ignore_index=True),
                            columns={"pass@k": "unbiased pass@k (Chen et al. 2021), mean over items",
                                     "pass^k": "unbiased pass^k (Yao et al. 2024), mean over items",
                                     "pass@k_low": "95% interval over items (k = 1, powers of 2, K)",
                                     "pass@k_high": "95% interval over items (k = 1, powers of 2, K)",
                                     "pass^k_low": "95% interval over items (k = 1, powers of 2, K)",
                                     "pass^k_high": "95% interval over items (k = 1, powers of 2, K)"},
                            formats={"pass@k": "rate", "pass^k": "rate", "k": "int", "items": "int",
                                     "pass@k_low": "rate", "pass@k_high": "rate",
                                     "pass^k_low": "rate", "pass^k_high": "rate"}))
    if sys_col and len(systems) > 1:
        _paired(parts, systems, base, records, tables, notes, binary)
    sig = base_signature(NAME)
    sig.update({"value": "binary" if binary else "score[0,1]", "repeat": f"column:{rep_col}" if rep_col else "rows-per-item",
                "split": "miller2024,unbiased-K(eval-arena),var-over-items:ddof0,within:ddof0+s2/(K-1)",
                "se": "sqrt((var_data+var_within/K)/N),K:harmonic", "ci": "normal-95(mean+-1.96se),clipped[0,1]",
                "clustered-se": "items,C/(C-1)", "se-population": "sqrt(var(item-means,ddof0)/N)",
                "target": f"+-{options.target:g}"})
    if seed_rows:
        sig["seeds"] = "run-means,sd:ddof1,range:min-max,vs:se_one_repeat(normal-95,one-run)"
    if passk_frames:
        sig["passk"] = ("unbiased(chen2021;yao2024),k:1..K_min,mean-over-items,ci:bootstrap-percentile-95,"
                        f"B={hc.RESAMPLES},seed={hc.SEED},over:items,at-k:1,2^j,K_min,"
                        "wilson/clopper-pearson-if-0/1"
                        + (",draw:multinomial-over-(tries,successes)" if passk_counts else ""))
    if sys_col:
        sig["baseline"] = base
    progress.advance(1.0, "done")
    return AnalysisResult(NAME, signature(sig), tuple(records), tuple(tables), tuple(notes), table.path,
                          json_tables=tuple(t.name for t in tables
                                            if t.name in ("items", "split", "paired", "seeds", "passk")))


def _repeated(*codes: np.ndarray) -> bool:
    """Whether a combination of the codes (each 0..size-1) repeats: one sort of one integer key
    per row (the rows that repeat are then found by pandas, for the message)."""
    key = np.zeros(codes[0].size, dtype=np.int64)
    for c in codes:
        size = int(c.max(initial=-1)) + 1
        key = key * size + c
    key.sort()
    return bool(key.size > 1 and (key[1:] == key[:-1]).any())


def _codes(table: LoadedTable, column: str) -> tuple[np.ndarray, np.ndarray]:
    """A column's cells as integer codes and their text (a missing cell is '')."""
    codes, labels = text_codes(table, column)
    return codes, pd.Series(labels, dtype=object).fillna("").to_numpy(dtype=object)


@dataclass(frozen=True)
class _Tries:
    """Every try kept: its item code and the items' names, its value, its repeat code and names."""
    item: np.ndarray
    item_names: np.ndarray
    y: np.ndarray
    repeat: np.ndarray
    repeat_names: np.ndarray


class _System:
    """One system's tries: item codes local to the system (first-seen order) and their names,
    the global item codes, the values and the repeat codes."""

    def __init__(self, tries: _Tries, rows: np.ndarray) -> None:
        self.gcodes = tries.item[rows]
        self.codes, first = pd.factorize(self.gcodes, sort=False)
        self.items = tries.item_names[first]
        self.y = tries.y[rows]
        self.repeat = tries.repeat[rows]
        self.repeat_names = tries.repeat_names
        self.split = rp.noise_split(self.codes, self.y)
        self.k = np.bincount(self.codes, minlength=len(self.items))


def _one_system(part: _System, name, sys_col, binary, options, records, item_frames, notes) -> dict:
    sp = part.split
    kw = {"system": name} if sys_col else {}
    half = rp.Z95 * sp.se
    ok = sp.se == sp.se
    records += [
        record("repeats_rate" if binary else "repeats_mean", sp.mean, n=sp.n_items,
               ci_low=max(0.0, sp.mean - half) if ok else None, ci_high=min(1.0, sp.mean + half) if ok else None,
               ci_method="normal-95(mean+-1.96se),clipped[0,1]" if ok else None, **kw),
        record("var_data", sp.var_data, n=sp.n_items, **kw),
        record("var_within", sp.var_within, n=sp.n_items, **kw),
        record("within_share", sp.var_within / (sp.var_data + sp.var_within)
               if (sp.var_data + sp.var_within) > 0 else None, n=sp.n_items, **kw),
        record("se_repeats", sp.se, n=sp.n_items, **kw),
        record("se_one_repeat", sp.se_one_repeat, n=sp.n_items, **kw),
        record("se_population", rp.se_population(sp), n=sp.n_items, **kw),
        record("clustered_se", sp.clustered_se, n=sp.n_items, **kw),
        record("items_needed", rp.items_needed(sp, options.target, sp.k_harmonic) if ok else None, n=sp.n_items, **kw),
        record("repeats_needed", _finite_or_none(rp.repeats_needed(sp, options.target)) if ok else None,
               n=sp.n_items, **kw),
        # the 95% half-width endless repeats would leave: the items' own spread (the card's "alone gives")
        record("half_width_repeats_floor", rp.Z95 * math.sqrt(sp.var_data / sp.n_items) if ok else None,
               n=sp.n_items, **kw),
    ]
    total = np.bincount(part.codes, weights=part.y, minlength=sp.n_items)
    lo_hi = pd.Series(part.y).groupby(part.codes, sort=True).agg(["min", "max"])
    per = pd.DataFrame({"item": np.asarray(part.items, dtype=object), "tries": part.k,
                        "successes" if binary else "score_sum": total.astype(int) if binary else total,
                        "share" if binary else "mean": total / part.k,
                        "flips": (lo_hi["min"] < lo_hi["max"]).to_numpy()})
    if sys_col:
        per.insert(0, "system", name)
    item_frames.append(per)
    flips = int(per["flips"].sum())
    records.append(record("flipping_items", flips, n=sp.n_items, **kw))
    who = f"'{name}': " if sys_col else ""
    notes += _target_notes(sp, options.target, binary, who)
    if sp.k_min != sp.k_max:
        notes.append(f"{who}items have between {sp.k_min} and {sp.k_max} tries; the standard error uses the "
                     f"harmonic mean {sp.k_harmonic:.2f} and each item's own K in the corrections.")
    if sp.single_try_items:
        notes.append(f"{who}{plural(sp.single_try_items, 'item')} with a single try show no within-item spread "
                     f"and {'is' if sp.single_try_items == 1 else 'are'} left out of it.")
    if ok and (sp.mean - half < 0 or sp.mean + half > 1):
        notes.append(f"{who}the normal interval runs past 0-1 ({plural(sp.n_items, 'item')} are few) and is "
                     f"shown clipped to that range.")
    if sp.clipped:
        notes.append(f"{who}the data part, corrected for K, came out below 0 and is shown as 0 (the items "
                     f"differ less than the tries do).")
    return {**kw, "items": sp.n_items, "k_min": sp.k_min, "k_max": sp.k_max, "k_harmonic": sp.k_harmonic,
            "mean": sp.mean, "var_data": sp.var_data, "var_within": sp.var_within,
            "var_data_plugin": sp.var_data_plugin, "var_within_plugin": sp.var_within_plugin, "se": sp.se,
            "se_one_repeat": sp.se_one_repeat, "clustered_se": sp.clustered_se, "flipping_items": flips}


def target_words(half_width: float, binary: bool) -> str:
    """A half-width in the card's unit: points for 0/1 outcomes, the score's own for scores."""
    return f"±{100 * half_width:.1f} pts" if binary else f"±{half_width:.3f}"


def _target_notes(sp, target: float, binary: bool, who: str) -> list[str]:
    """Why the repeats (or items) needed for the target are not given, when they are not."""
    if sp.se != sp.se:
        return [f"{who}no items or repeats needed are given for {target_words(target, binary)}: no item has "
                f"two tries, so the model's own randomness cannot be measured."]
    if math.isinf(rp.repeats_needed(sp, target)):
        floor = rp.Z95 * math.sqrt(sp.var_data / sp.n_items)
        return [f"{who}no number of repeats reaches {target_words(target, binary)} on these "
                f"{plural(sp.n_items, 'item')}: the items' own spread alone gives {target_words(floor, binary)} "
                f"with endless repeats; about {rp.items_needed(sp, target, sp.k_harmonic):,} items at "
                f"{sp.k_harmonic:.3g} tries each would reach it."]
    return []


def _tables(split_rows, item_frames, binary) -> list:
    per_items = pd.concat(item_frames, ignore_index=True)
    per_items = per_items.sort_values(["flips"], ascending=False, kind="stable").reset_index(drop=True)
    kind = "rate" if binary else "score"
    return [
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


def _seeds(part: _System, kw, who, binary, records, seed_rows, notes) -> None:
    """The spread of whole runs (one mean per seed) beside the item-level interval of one run."""
    rcodes, first = pd.factorize(part.repeat, sort=False)
    labels = part.repeat_names[first]
    sp = part.split
    counts = np.bincount(rcodes, minlength=len(labels))
    if len(labels) < 2:
        notes.append(f"{who}no seed spread: a single repeat ('{labels[0]}') is one run.")
        return
    if (counts != sp.n_items).any():
        short = str(labels[int(np.argmin(counts))])
        notes.append(f"{who}no seed spread: repeat '{short}' covers {int(counts.min()):,} of the "
                     f"{sp.n_items:,} items, and run means over different items are not comparable.")
        return
    ss = rp.seed_spread(rcodes, part.y, len(labels))
    se1 = sp.se_one_repeat
    half = rp.Z95 * se1 if math.isfinite(se1) else None
    records += [record("seed_sd", ss.sd, n=ss.n_seeds, **kw),
                record("seed_min", ss.low, n=ss.n_seeds, **kw),
                record("seed_max", ss.high, n=ss.n_seeds, **kw),
                record("one_run_item_se", se1, n=sp.n_items, ci_method="normal-95(one run's mean+-1.96se)" if half else None,
                       ci_low=sp.mean - half if half else None,
                       ci_high=sp.mean + half if half else None, **kw)]
    larger = bool(ss.sd > se1) if math.isfinite(se1) and math.isfinite(ss.sd) else None
    seed_rows.append({**kw, "seeds": ss.n_seeds, "items": sp.n_items, "mean": sp.mean, "seed_sd": ss.sd,
                      "seed_min": ss.low, "seed_max": ss.high, "one_run_item_se": se1,
                      "one_run_ci_low": sp.mean - half if half else None,
                      "one_run_ci_high": sp.mean + half if half else None, "seed_spread_larger": larger,
                      **{f"run {lab}": m for lab, m in zip(labels, ss.means)}})
    if larger:
        notes.append(f"{who}the spread across {ss.n_seeds} seeds (SD {ss.sd:.4f}, from {ss.low:.4f} to "
                     f"{ss.high:.4f}) is larger than the standard error over items of one run ({se1:.4f}): "
                     f"an interval over items alone is too narrow for the decision; the seed is part of the "
                     f"noise.")


def _seed_table(seed_rows, binary) -> Table:
    kind = "rate" if binary else "score"
    frame = pd.DataFrame(seed_rows)
    runs = {c: kind for c in frame.columns if str(c).startswith("run ")}
    return Table("seeds", "Spread across seeds (whole runs) beside one run's interval over items", frame,
                 columns={"seed_sd": "standard deviation of the run means (divisor R - 1)",
                          "one_run_item_se": "standard error over items of one run's mean: "
                                             "sqrt((var_data + var_within) / N)",
                          "seed_spread_larger": "the seed spread exceeds one run's standard error over items",
                          "one_run_ci_low": "normal 95% interval of one run's mean, low",
                          "one_run_ci_high": "normal 95% interval of one run's mean, high"},
                 formats={"seeds": "int", "items": "int", "mean": kind, "seed_sd": "float", "seed_min": kind,
                          "seed_max": kind, "one_run_item_se": "float", "one_run_ci_low": kind,
                          "one_run_ci_high": kind} | runs)


#: the curve's intervals: at k = 1, the powers of two and K_min (bootstrap over items)
def _interval_ks(ks) -> set[int]:
    ks = [int(k) for k in ks]
    return {k for k in ks if k in (ks[0], ks[-1]) or k & (k - 1) == 0}


def _passk_curve(part: _System, kw) -> tuple[pd.DataFrame, bool]:
    """pass@k and pass^k for k = 1..K_min (thinned on a log scale past 60), every item counted;
    at the k of :func:`_interval_ks` their 95% intervals over items (the headline intervals'
    percentile bootstrap, one set of resamples for every column; Wilson or Clopper-Pearson for
    a 0/1 column, as at k = K with one try).  When the items hold few distinct (tries,
    successes) pairs (at most one per 32 items, as with a fixed number of epochs), each
    resample draws how many items of each pair it holds (:func:`~workbench.metrics.headline_ci.
    multinomial_means`: the law of resampling the items, all 2,000 resamples at any n); the
    second value returned says so."""
    c = np.bincount(part.codes, weights=part.y, minlength=part.split.n_items).round().astype(np.int64)
    n = part.k.astype(np.int64)
    ks = curve_ks(int(n.min()))
    # an item's pass@k and pass^k depend on its (tries, successes) only: computed once per pair
    pairs, where, inverse, count = np.unique(n * (int(c.max(initial=0)) + 1) + c, return_index=True,
                                             return_inverse=True, return_counts=True)
    gn, gc = n[where], c[where]
    grouped = {(m, int(k)): (pk.pass_at_k if m == "pass@k" else pk.pass_hat_k)(gn, gc, int(k))
               for k in ks for m in ("pass@k", "pass^k")}
    chosen = _interval_ks(ks)
    columns = {f"{m}|{k}": g[inverse] for (m, k), g in grouped.items() if k in chosen}
    samples = None
    if PASSK_BY_COUNTS and pairs.size * 32 <= n.size:  # few (tries, successes) pairs: resample their counts
        boot = [name for name, v in columns.items() if not hc.is_binary(v)]
        if boot:
            samples = hc.multinomial_means(np.column_stack([grouped[_mk(name)] for name in boot]), count)
    cis = hc.mean_intervals(columns, samples=samples)
    rows = []
    for k in ks:
        row = {**kw, "k": int(k), "items": int(n.size)}
        for m in ("pass@k", "pass^k"):
            row[m] = float(count @ grouped[(m, int(k))] / n.size)
            ci = cis.get(f"{m}|{int(k)}")
            ok = ci is not None and not ci.degenerate
            row[f"{m}_low"] = ci.low if ok else float("nan")
            row[f"{m}_high"] = ci.high if ok else float("nan")
        rows.append(row)
    return pd.DataFrame(rows), samples is not None


#: the pass@k curve's bootstrap draws the counts of the items' (tries, successes) pairs when
#: there are few (at most one per 32 items): the law of resampling items, independent of n
PASSK_BY_COUNTS = True


def _mk(name: str) -> tuple[str, int]:
    m, k = name.split("|")
    return m, int(k)


def _finite_or_none(x):
    return None if x is None or (isinstance(x, float) and not math.isfinite(x)) else x


def _paired(parts, systems, base, records, tables, notes, binary):
    rows = []
    a_part = parts[base]
    for name in systems:
        if name == base:
            continue
        b_part = parts[name]
        size = int(max(a_part.gcodes.max(initial=-1), b_part.gcodes.max(initial=-1))) + 1
        common = (np.bincount(a_part.gcodes, minlength=size) > 0) & (np.bincount(b_part.gcodes, minlength=size) > 0)
        if not common.any():
            notes.append(f"'{name}' and '{base}' share no item: no paired split.")
            continue
        local = np.cumsum(common) - 1  # global item code -> its place among the common items
        ia, ib = common[a_part.gcodes], common[b_part.gcodes]
        sp = rp.paired_noise_split(local[a_part.gcodes[ia]], a_part.y[ia], local[b_part.gcodes[ib]], b_part.y[ib],
                                   int(common.sum()))
        half = rp.Z95 * sp.se
        ok = sp.se == sp.se
        kw = dict(from_=base, to=name, n=sp.n_items)
        records += [record("repeats_rate_diff" if binary else "repeats_diff", sp.mean,
                           ci_low=sp.mean - half if ok else None, ci_high=sp.mean + half if ok else None,
                           ci_method="normal-95(mean+-1.96se)" if ok else None, **kw),
                    record("var_data", sp.var_data, **kw), record("var_within", sp.var_within, **kw),
                    record("se_repeats", sp.se, **kw), record("se_one_repeat", sp.se_one_repeat, **kw),
                    record("se_population", rp.se_population(sp), **kw)]
        rows.append({"from": base, "to": name, "items": sp.n_items, "diff": sp.mean, "var_data": sp.var_data,
                     "var_within": sp.var_within, "se": sp.se, "se_one_repeat": sp.se_one_repeat})
        if ok:
            choice = more_items_or_repeats(sp.var_data, sp.var_within, sp.k_harmonic, sp.n_items)
            records += [record("half_width_twice_items", choice.twice_items, **kw),
                        record("half_width_twice_repeats", choice.twice_repeats, **kw),
                        record("half_width_repeats_floor", choice.floor, **kw)]
            notes.append(f"'{name}' vs '{base}' (per-item differences on {plural(sp.n_items, 'common item')}): "
                         + choice.sentence(binary))
    if rows:
        tables.append(Table("paired", "Paired noise split of the per-item differences", pd.DataFrame(rows),
                            formats={"diff": "points" if binary else "score_diff", "var_data": "float", "var_within": "float",
                                     "se": "float", "se_one_repeat": "float", "items": "int"}))


@dataclass(frozen=True)
class Choice:
    """More items or more repeats: the 95% half-widths of the difference after doubling each."""
    now: float
    twice_items: float
    twice_repeats: float
    floor: float          # with endless repeats on these items: the data part alone
    data_part: float      # var_data
    within_part: float    # var_within / K

    def sentence(self, binary: bool) -> str:
        f = (lambda x: f"+-{100 * x:.2f} points") if binary else (lambda x: f"+-{x:.4f}")
        if self.data_part <= 0:
            head = (f"doubling the items and doubling the repeats narrow the interval of the difference alike "
                    f"({f(self.now)} to {f(self.twice_items)}): the items' own spread is nil")
            return head[:1].upper() + head[1:] + "."
        head = (f"Doubling the items narrows the interval of the difference more than doubling the repeats "
                f"({f(self.now)} to {f(self.twice_items)}, against {f(self.twice_repeats)}, for the same added tries)")
        if self.within_part > self.data_part:
            tail = (f"the tries' own randomness (var_within/K = {self.within_part:.4g}) outweighs the items' spread "
                    f"(var_data = {self.data_part:.4g}), so more repeats on the same items come close")
        else:
            tail = (f"the items' spread (var_data = {self.data_part:.4g}) outweighs the tries' own randomness "
                    f"(var_within/K = {self.within_part:.4g}): more repeats alone never narrow it below "
                    f"{f(self.floor)}")
        return f"{head}; {tail}."


def more_items_or_repeats(var_data: float, var_within: float, k: float, n_items: int) -> Choice:
    """Half-widths z*sqrt((var_data + var_within/K)/N) now, with 2N items, with 2K repeats, and
    with K -> infinity (z*sqrt(var_data/N))."""
    z = rp.Z95
    return Choice(z * math.sqrt((var_data + var_within / k) / n_items),
                  z * math.sqrt((var_data + var_within / k) / (2 * n_items)),
                  z * math.sqrt((var_data + var_within / (2 * k)) / n_items),
                  z * math.sqrt(var_data / n_items), var_data, var_within / k)
