"""Rubrics: a weighted average of yes/no criteria, and which criterion moved the score.

Input, wide: one row per item (and per system with a system column), one column per
criterion holding a verdict (1/0, true/false, yes/no, pass/fail, correct/incorrect, y/n, t/f;
any case); long: item, criterion and verdict columns (and system).  A blank verdict is
missing: by default that criterion is skipped for that item and the other weights are
renormalised (``missing="skip"``), or it counts as a fail (``missing="fail"``).

Per item the score is sum(w_i c_i) / sum(w_i) over its criteria; per system the mean score
with a t interval; per criterion the pass rate with a Wilson interval, in the rubric's order.
Against a baseline system (paired by item): the difference of the mean score with the paired
tests of Compare, per criterion the paired difference with the exact sign test and McNemar,
Holm-adjusted over the criteria, and each criterion's contribution w_i x (change of its pass
rate) / sum(w), which adds up to the score difference when no verdict is missing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from ..core.errors import DataError, OptionError
from ..core.numbers import format_value, plural
from ..core.progress import NULL_PROGRESS, Scaled
from ..core.result import AnalysisResult, Table, record, signature
from ..io import LoadedTable, guess_column, require_columns, to_text
from ..metrics import paired as pm
from ..metrics import significance as sg
from ..metrics import headline_ci as hc
from ..metrics.intervals import proportion_interval, rate_interval_method
from . import _intervals
from .paired import t_record
from ._common import ITEM_NAMES, base_signature, check_unique, verdict_columns, verdicts, in_memory

NAME = "rubric"
TITLE = "Rubric"
MISSING = ("skip", "fail")
ALPHA = 0.05


@dataclass(frozen=True)
class Options:
    item: str | None = None
    #: wide form: the criterion columns, comma-separated, in the rubric's order
    criteria: str | None = None
    #: weights in the order of the criteria, comma-separated (default: equal)
    weights: str | None = None
    #: a rubric file (CSV: criterion, weight, optional description) instead of --weights
    rubric: str | None = None
    system: str | None = None
    baseline_system: str | None = None
    #: long form: the criterion-name and verdict columns
    criterion: str | None = None
    verdict: str | None = None
    #: a blank verdict: skip (renormalise the item's weights) or fail
    missing: str = "skip"
    resamples: int = 10_000
    seed: int = 12345
    #: bootstrap resamples and seed of each system's score interval (over items)
    ci_resamples: int = hc.RESAMPLES
    ci_seed: int = hc.SEED


def check_options(options: Options) -> None:
    from ._checks import whole

    whole("resamples", options.resamples, 1_000, 1_000_000)
    whole("seed", options.seed, 0, 2**32 - 1)
    hc.check_resamples(options.ci_resamples, options.ci_seed)
    if options.missing not in MISSING:
        raise OptionError(f"`missing` must be one of {', '.join(MISSING)}; got missing={options.missing!r}.")
    if options.weights is not None and options.rubric is not None:
        raise OptionError("Give the weights either with --weights or in a --rubric file, not both.")
    if (options.criterion is None) != (options.verdict is None):
        raise OptionError("The long form needs both --criterion (the criterion column) and --verdict.")
    if options.criteria and len(set(_split(options.criteria))) != len(_split(options.criteria)):
        raise OptionError("Each criterion may be named once in --criteria.")


@dataclass(frozen=True)
class Rubric:
    criteria: tuple[str, ...]
    weights: np.ndarray
    descriptions: tuple[str, ...]
    source: str            # equal | flag | file name


def _split(text: str) -> list[str]:
    return [x.strip() for x in str(text).split(",") if x.strip()]


def _weights_from(text: str, criteria: list[str], what: str) -> np.ndarray:
    parts = _split(text)
    if len(parts) != len(criteria):
        raise OptionError(f"{what} gives {plural(len(parts), 'weight')} for {plural(len(criteria), 'criterion', 'criteria')} "
                          f"({', '.join(criteria)}); give one weight per criterion, in the same order.")
    out = []
    for name, p in zip(criteria, parts):
        try:
            w = float(p)
        except ValueError:
            raise OptionError(f"{what}: the weight of '{name}' must be a number; got '{p}'.") from None
        if not math.isfinite(w) or w < 0:
            raise OptionError(f"{what}: the weight of '{name}' must be a number >= 0; got '{p}'.")
        out.append(w)
    w = np.asarray(out)
    if w.max() <= 0:  # (not the sum: weights of 1e308 overflow it)
        raise OptionError(f"{what}: at least one weight must be above 0.")
    return w


def read_rubric_file(path: str) -> pd.DataFrame:
    """A rubric file: CSV/TSV with columns criterion, weight and optionally description."""
    from ..io import load_table

    table = load_table(path)
    cols = {str(c).strip().lower(): c for c in table.frame.columns}
    if "criterion" not in cols or "weight" not in cols:
        raise DataError(f"Rubric file '{Path(path).name}' needs the columns criterion and weight (and "
                        f"optionally description); its columns are: {', '.join(map(str, table.frame.columns))}.")
    names = to_text(table, cols["criterion"])
    weights = to_text(table, cols["weight"])
    desc = to_text(table, cols["description"]) if "description" in cols else [""] * len(names)
    return pd.DataFrame({"criterion": names, "weight": weights, "description": desc})


def _rubric(options: Options, criteria: list[str], notes: list[str]) -> Rubric:
    if options.rubric is not None:
        spec = read_rubric_file(options.rubric)
        name = Path(options.rubric).name
        listed = spec["criterion"].tolist()
        unknown = [c for c in listed if c not in criteria]
        if unknown:
            raise DataError(f"Rubric file '{name}' names {plural(len(unknown), 'criterion', 'criteria')} the results "
                            f"do not have: {', '.join(repr(c) for c in unknown)}; the results' criteria are: "
                            f"{', '.join(repr(c) for c in criteria)}.")
        absent = [c for c in criteria if c not in listed]
        if absent:
            notes.append(f"{plural(len(absent), 'criterion', 'criteria')} of the results "
                         f"{'is' if len(absent) == 1 else 'are'} not in rubric file '{name}' and "
                         f"{'is' if len(absent) == 1 else 'are'} left out: {', '.join(repr(c) for c in absent)}.")
        weights = _weights_from(",".join(spec["weight"]), listed, f"Rubric file '{name}'")
        return Rubric(tuple(listed), weights, tuple(spec["description"]), name)
    if options.weights is not None:
        return Rubric(tuple(criteria), _weights_from(options.weights, criteria, "--weights"),
                      ("",) * len(criteria), "flag")
    return Rubric(tuple(criteria), np.ones(len(criteria)), ("",) * len(criteria), "equal")


#: roles whose 0/1 columns are no criterion: repeats, usage, errors, ids, systems, counts
_OTHER_ROLES = frozenset({"epoch", "steps", "tool_calls", "error", "item", "task", "query", "doc", "system",
                          "version", "group", "cluster", "unit", "cost", "latency", "n", "rank",
                          "relevance", "numerator", "denominator"})


def _not_criteria(table: LoadedTable) -> set:
    """The columns the file's reading gives another role (a repeat's 0/1 epoch, a tool-call
    count that is 0 or 1): never taken as criteria by themselves."""
    from ..io.roles import guess_roles

    declared = getattr(table, "evaluation", None)
    if declared is not None and declared.scorers:  # a tool's log: only its yes/no scorers are criteria
        from ..io.evaluation import BINARY  # (a HELM run's logprob, always 0 for a toy model, is none)

        scorers = {s.column for s in declared.scorers if s.scale == BINARY or s.group}
        return {str(c) for c in table.frame.columns if c not in scorers}
    return {str(c) for c, r in guess_roles(table).items() if r in _OTHER_ROLES}


def _collect(table: LoadedTable, options: Options, notes: list[str]):
    """(items, systems, criteria, V) with V[s, i, c] in {1, 0, NaN}: every system's verdicts
    on the union of items (NaN where a system has no row for an item)."""
    sys_col = options.system
    if sys_col:
        require_columns(table, [sys_col])
    item_col = options.item or guess_column(table, "item", ITEM_NAMES)
    if options.criterion is not None:  # long form
        require_columns(table, [options.criterion, options.verdict])
        if item_col is None:
            raise DataError(f"File '{table.name}' needs an item id column for the long form; name it with --item.")
        require_columns(table, [item_col])
        keys = [sys_col, item_col, options.criterion] if sys_col else [item_col, options.criterion]
        check_unique(table, keys, "(system, item, criterion)" if sys_col else "(item, criterion)")
        frame = pd.DataFrame({"item": to_text(table, item_col),
                              "system": to_text(table, sys_col) if sys_col else "",
                              "criterion": to_text(table, options.criterion),
                              "v": verdicts(table, options.verdict)})
        criteria, frame = _long_criteria(table, frame, options, notes)
    else:
        if options.criteria:
            criteria = _split(options.criteria)
        else:
            criteria = verdict_columns(table, {item_col, sys_col} | _not_criteria(table))
            declared = getattr(table, "evaluation", None)
            if not criteria and declared is not None and declared.scorers:
                listed = ", ".join(f"'{s.name}' ({s.scale})" for s in declared.scorers[:6])
                raise DataError(f"File '{table.name}': none of its scorers is a yes/no verdict (its scorers: "
                                f"{listed}{' ...' if len(declared.scorers) > 6 else ''}), so it has no rubric "
                                "criteria of its own; name the criterion columns with --criteria C1,C2,... .")
            if not criteria:
                raise DataError(f"File '{table.name}': no column holds only yes/no verdicts; name the criterion "
                                f"columns with --criteria C1,C2,... (wide form), or give --criterion and --verdict "
                                f"(long form); its columns are: {', '.join(map(str, table.frame.columns))}.")
            asserted = [c for c in criteria if str(c).startswith("assert.")]
            if asserted:  # an eval tool's per-assertion verdicts (promptfoo): those are the rubric
                criteria = asserted
            notes.append(f"The criteria are the columns that hold only yes/no verdicts"
                         f"{' of the assertions' if asserted else ''}, in file order: "
                         f"{', '.join(repr(c) for c in criteria)} (set --criteria to choose).")
        require_columns(table, criteria)
        if item_col:
            require_columns(table, [item_col])
            check_unique(table, [sys_col, item_col] if sys_col else [item_col],
                         "(system, item) pair" if sys_col else "item id")
            items = to_text(table, item_col)
        else:
            if sys_col:
                raise DataError(f"File '{table.name}': with a system column the items must be named; give the "
                                f"item id column with --item.")
            items = [f"line {x}" for x in table.lines_of(range(len(table.frame)))]
        # one row per (system, item): the codes once, each criterion's verdicts a column of V
        si, ii, systems, item_ids = _codes(to_text(table, sys_col) if sys_col else None, items)
        V = np.full((len(systems), len(item_ids), len(criteria)), np.nan)
        for c_i, c in enumerate(criteria):
            V[si, ii, c_i] = criterion_values(table, c)
        present = np.zeros((len(systems), len(item_ids)), dtype=bool)
        present[si, ii] = True
        return item_ids, systems, criteria, V, present
    si, ii, systems, item_ids = _codes(frame["system"] if sys_col else None, frame["item"])
    ci = pd.Index(criteria).get_indexer(np.asarray(frame["criterion"], dtype=object))
    V = np.full((len(systems), len(item_ids), len(criteria)), np.nan)
    present = np.zeros((len(systems), len(item_ids)), dtype=bool)
    V[si, ii, ci] = frame["v"].to_numpy()
    present[si, ii] = True
    return item_ids, systems, criteria, V, present


def _codes(system_values, item_values):
    """System and item codes in order of first appearance (factorize: a hash pass, not a Python
    loop per row) and their labels; no system column: one system ''."""
    ii, item_uniques = pd.factorize(np.asarray(item_values, dtype=object), sort=False)
    if system_values is None:
        si, systems = np.zeros(len(ii), dtype=np.int64), [""]
    else:
        si, sys_uniques = pd.factorize(np.asarray(system_values, dtype=object), sort=False)
        systems = [str(x) for x in sys_uniques]
    return si, ii, systems, [str(x) for x in item_uniques]


def _long_criteria(table: LoadedTable, frame: pd.DataFrame, options: Options, notes: list[str]):
    """The criteria of a long-form file: those --criteria names, in its order (the weights follow
    it), else every criterion in order of first appearance; rows of other criteria are left out."""
    found = list(dict.fromkeys(frame["criterion"]))
    if not options.criteria:
        return found, frame
    criteria = _split(options.criteria)
    unknown = [c for c in criteria if c not in found]
    if unknown:
        raise DataError(f"File '{table.name}', column '{options.criterion}' has no criterion "
                        f"{', '.join(repr(c) for c in unknown)} (named in --criteria); its criteria are: "
                        f"{', '.join(repr(c) for c in found)}.")
    left = [c for c in found if c not in criteria]
    if left:
        notes.append(f"{plural(len(left), 'criterion', 'criteria')} of the file not named in --criteria "
                     f"{'is' if len(left) == 1 else 'are'} left out: {', '.join(repr(c) for c in left)}.")
        frame = frame[frame["criterion"].isin(criteria)].reset_index(drop=True)
    return criteria, frame


def item_scores(V: np.ndarray, weights: np.ndarray, missing: str) -> np.ndarray:
    """sum(w_i c_i) / sum(w_i) over the criteria with a verdict (``skip``) or over all of them
    with a blank counted as 0 (``fail``); NaN for an item with no verdict at all."""
    w = np.asarray(weights, dtype=float)
    w = w / w.max() if w.size and np.isfinite(w.max()) and w.max() > 0 else w  # 1e308s would overflow their sum
    if missing == "fail":
        v = np.where(np.isnan(V), 0.0, V)
        return (v * w).sum(-1) / w.sum()
    have = ~np.isnan(V)
    num = (np.where(have, V, 0.0) * w).sum(-1)
    den = (have * w).sum(-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)


def _with_system(table: LoadedTable, options: Options, notes: list[str]) -> Options:
    """Without --system, when an item id repeats (per criterion in the long form): the column
    the file's reader named the system (an Inspect model, a promptfoo provider), else one named
    like a system or a version, if the items are unique within it -- said in a note."""
    from dataclasses import replace

    from ..core.role_names import ROLE_NAMES

    item_col = options.item or guess_column(table, "item", ITEM_NAMES)
    if options.system or item_col is None or item_col not in table.frame.columns:
        return options
    keys = [item_col] + ([options.criterion] if options.criterion in table.frame.columns else [])
    if not table.frame.duplicated(keys).any():
        return options
    by_reader = [c for c, r in (table.roles or {}).items() if r == "system" and c in table.frame.columns]
    named = guess_column(table, "system", ROLE_NAMES["system"] + ROLE_NAMES["version"])
    for col in by_reader + ([named] if named else []):
        if col not in keys and not table.frame.duplicated([col] + keys).any():
            notes.append(f"Item ids repeat, so column '{col}' was taken as the system column (each system's "
                         f"items are unique in it; set --system to choose another).")
            return replace(options, system=col)
    return options


def run(table: LoadedTable, options: Options = Options(), progress=NULL_PROGRESS) -> AnalysisResult:
    in_memory(table, TITLE)
    check_options(options)
    notes: list[str] = []
    options = _with_system(table, options, notes)
    items, systems, found, V_all, present = _collect(table, options, notes)
    rub = _rubric(options, found, notes)
    order = [found.index(c) for c in rub.criteria]
    V = V_all[:, :, order]
    w = rub.weights
    crit = list(rub.criteria)
    named = bool(options.system)
    base_name = options.baseline_system if options.baseline_system is not None else systems[0]
    if named and base_name not in systems:
        raise DataError(f"File '{table.name}', column '{options.system}' has no system '{base_name}'; its systems "
                        f"are: {', '.join(systems)}.")
    records: list[dict] = []
    scores = item_scores(V, w, options.missing)            # systems x items
    sys_rows, crit_rows, ci_entries = [], [], []
    for s, name in enumerate(systems):
        kw = {"system": name} if named else {}
        x = scores[s][present[s] & np.isfinite(scores[s])]
        # the bootstrap interval over items, the t interval beside it (a 0/1 score: a rate's interval)
        ci = hc.mean_intervals({"s": x}, resamples=options.ci_resamples, seed=options.ci_seed)["s"]
        fields = _intervals.fields(ci) if x.size else {}
        ci_entries.append((_intervals.who("rubric_score", name if named else None), ci))
        records.append(record("rubric_score", float(x.mean()) if x.size else None, n=int(x.size), **fields, **kw))
        sys_rows.append({**({"system": name} if named else {}), "items": int(x.size),
                         "mean_score": float(x.mean()) if x.size else np.nan,
                         "ci_low": fields.get("ci_low", np.nan), "ci_high": fields.get("ci_high", np.nan),
                         "t_ci_low": fields.get("t_low", np.nan), "t_ci_high": fields.get("t_high", np.nan),
                         "ci_method": fields.get("ci_method")})
        _criterion_rates(V[s, present[s]], crit, w, rub.descriptions, name if named else None, options,
                         records, crit_rows, ci_entries)
    notes += _intervals.notes(ci_entries)
    total_blank = int(np.isnan(V[present]).sum()) if present.any() else 0
    if total_blank:
        how = ("skipped: each such item is scored on its other criteria, their weights renormalised"
               if options.missing == "skip" else "counted as fails")
        notes.append(f"{plural(total_blank, 'verdict')} {'is' if total_blank == 1 else 'are'} blank ({how}); the "
                     f"per-criterion table counts them in its 'blank' column.")
    empty = int((present & ~np.isfinite(scores)).sum())
    if empty:
        notes.append(f"{plural(empty, 'item')} {'has' if empty == 1 else 'have'} no verdict at all and "
                     f"{'is' if empty == 1 else 'are'} left out of the scores.")
    tables = [
        _items_table(items, systems, scores, present, V, named),
        Table("systems" if named else "score", "Weighted rubric score", pd.DataFrame(sys_rows), columns={
            "mean_score": "mean over items of sum(w_i c_i) / sum(w_i)",
            "ci_low": "95% interval of the mean, low: the bootstrap's, or a rate's with 0/1 scores (ci_method)",
            "ci_high": "95% interval of the mean, high: the bootstrap's, or a rate's with 0/1 scores (ci_method)",
            "t_ci_low": "t 95% interval of the mean, low (not clipped)",
            "t_ci_high": "t 95% interval of the mean, high (not clipped)"},
            formats={"mean_score": "rate", "ci_low": "rate", "ci_high": "rate", "t_ci_low": "rate",
                     "t_ci_high": "rate", "items": "int", "ci_method": "text"}),
        Table("criteria", "Pass rate per criterion (rubric order)", pd.DataFrame(crit_rows), columns={
            "rate": "passes / items with a verdict" if options.missing == "skip" else "passes / items (blank = fail)",
            "ci_low": "95% interval, low: Wilson, or Clopper-Pearson below 30 items or at 0% or 100% (ci_method)",
            "ci_high": "95% interval, high: Wilson, or Clopper-Pearson below 30 items or at 0% or 100% (ci_method)",
            "blank": "items without a verdict on this criterion"},
            formats={"rate": "rate", "ci_low": "rate", "ci_high": "rate", "weight": "float", "passes": "int",
                     "items": "int", "blank": "int", "description": "text", "ci_method": "text"}),
    ]
    sig = base_signature(NAME)
    sig.update({"form": "long" if options.criterion else "wide", "criteria": str(len(crit)),
                "weights": rub.source if rub.source in ("equal", "flag") else f"file:{rub.source}",
                "w": ",".join(f"{x:g}" for x in w), "score": "sum(w*c)/sum(w)",
                "missing": "skip-renormalise" if options.missing == "skip" else "fail",
                "score-ci": f"bootstrap-percentile-95,B={options.ci_resamples},seed={options.ci_seed},over:items,"
                            + _intervals.BUDGET[1:] + "," + _intervals.T_WORDS,
                "rate-ci": _intervals.RATE_WORDS})
    if named and len(systems) > 1:
        progress.advance(0.2, "paired comparisons")
        _compare(systems, base_name, items, V, present, scores, w, crit, options, records, tables, notes, sig,
                 progress)
    progress.advance(1.0, "done")
    return AnalysisResult(NAME, signature(sig), tuple(records), tuple(tables), tuple(notes), table.path,
                          json_tables=tuple(t for t in ("items", "criteria", "criteria_compared")
                                            if any(x.name == t for x in tables)))


def _items_table(items, systems, scores, present, V, named: bool) -> Table:
    """Each item's weighted score (and how many criteria it passed of those with a verdict)."""
    s_idx, i_idx = np.nonzero(present)
    v = V[s_idx, i_idx]
    frame = pd.DataFrame({**({"system": [systems[s] for s in s_idx]} if named else {}),
                          "item": [items[i] for i in i_idx], "score": scores[s_idx, i_idx],
                          "passed": np.nansum(v, axis=1).astype(int),
                          "verdicts": (~np.isnan(v)).sum(axis=1).astype(int)})
    return Table("items", "Weighted score per item", frame, columns={
        "score": "sum(w_i c_i) / sum(w_i) over the item's criteria",
        "passed": "criteria passed", "verdicts": "criteria with a verdict"},
        formats={"score": "rate", "passed": "int", "verdicts": "int", "item": "text"})


def _compare(systems, base_name, items, V, present, scores, w, crit, options, records, tables, notes, sig, progress):
    b = systems.index(base_name)
    rows, crit_rows = [], []
    others = [s for s in range(len(systems)) if s != b]
    for step, s in enumerate(others):
        name, kw = systems[s], dict(from_=base_name, to=systems[s])
        both = present[b] & present[s] & np.isfinite(scores[b]) & np.isfinite(scores[s])
        n = int(both.sum())
        only = int((present[b] ^ present[s]).sum())
        if only:
            notes.append(f"'{name}' vs '{base_name}': {plural(only, 'item')} scored by only one of them "
                         f"{'is' if only == 1 else 'are'} left out of the paired comparison ({plural(n, 'common item')}).")
        if n == 0:
            continue
        lo = 0.2 + 0.8 * step / len(others)
        ps = pm.summarize(scores[b][both], scores[s][both], resamples=options.resamples, seed=options.seed,
                          by_value=True, progress=Scaled(progress, lo, lo + 0.8 / len(others)))
        records += [record("diff:rubric_score", ps.diff, n=n, ci_low=ps.boot_low, ci_high=ps.boot_high,
                           ci_method="paired-bootstrap-percentile-95", **kw),
                    record("t_test_p:rubric_score", ps.t.p, n=n, **kw), t_record("t:rubric_score", ps, n=n, **kw),
                    record("effect_size:rubric_score", ps.effect, n=n, **kw),
                    record("randomization_p:rubric_score", ps.randomization.p, n=n, **kw)]
        pvals, contrib = [], []
        for c, cname in enumerate(crit):
            vb, vs = V[b, both, c], V[s, both, c]
            if options.missing == "fail":
                vb, vs = np.where(np.isnan(vb), 0.0, vb), np.where(np.isnan(vs), 0.0, vs)
            ok = ~np.isnan(vb) & ~np.isnan(vs)
            if _fractional(vb[ok]) or _fractional(vs[ok]):  # shares: signs of rounded differences
                d = np.round(vs[ok] - vb[ok], 10)
                counts = sg.PairedCounts(int((d > 0).sum()), int((d < 0).sum()), int((d == 0).sum()))
                p_mc = float("nan")  # McNemar is for 0/1 verdicts
                delta = float(d.mean()) if d.size else float("nan")
            else:
                counts = sg.paired_counts(vb[ok], vs[ok])
                _, p_mc = sg.mcnemar(counts.wins, counts.losses, correction=False)
                delta = counts.diff if counts.n else float("nan")
            m = counts.n
            exact, _ = sg.sign_test(counts.wins, counts.losses)
            share = float(w[c] / w.max() / (w / w.max()).sum())  # scaled: weights of 1e308 overflow a sum
            rate_delta = float(np.nanmean(V[s, both, c]) - np.nanmean(V[b, both, c])) if options.missing == "skip" \
                else float(np.mean(np.nan_to_num(V[s, both, c])) - np.mean(np.nan_to_num(V[b, both, c])))
            contribution = share * rate_delta
            pvals.append(exact)
            contrib.append(contribution)
            crit_rows.append({"from": base_name, "to": name, "criterion": cname, "weight": float(w[c]),
                              "items": m, "wins": counts.wins, "losses": counts.losses, "diff": delta,
                              "sign_test_p": exact, "mcnemar_p": p_mc, "p_holm": np.nan,
                              "rate_change": rate_delta, "contribution": contribution})
            records.append(record(f"criterion_rate_change:{cname}", rate_delta, n=n, **kw))
            records.append(record(f"criterion_diff:{cname}", delta, n=m, **kw))
            records.append(record(f"criterion_sign_p:{cname}", exact, n=m, **kw))
            records.append(record(f"criterion_mcnemar_p:{cname}", p_mc, n=m, **kw))
            records.append(record(f"contribution:{cname}", contribution, n=n, **kw))
        adj = pm.holm(pvals)
        for row, p_adj in zip(crit_rows[-len(crit):], adj):
            row["p_holm"] = float(p_adj)
            records.append(record(f"criterion_p_holm:{row['criterion']}", float(p_adj), n=row["items"], **kw))
        residual = ps.diff - float(np.sum(contrib))
        if abs(residual) > 1e-9:
            notes.append(f"'{name}' vs '{base_name}': the criteria's contributions add up to "
                         f"{format_value(float(np.sum(contrib)), 'points')} of the score difference "
                         f"{format_value(ps.diff, 'points')}; the rest comes from blank verdicts, whose items "
                         f"are scored on their other criteria.")
        rows.append({"from": base_name, "to": name, "items": n, "baseline": ps.base_mean, "candidate": ps.cand_mean,
                     "diff": ps.diff, "ci_low": ps.boot_low, "ci_high": ps.boot_high, "t_ci_low": ps.t.ci_low,
                     "t_ci_high": ps.t.ci_high, "t_test_p": ps.t.p, "randomization_p": ps.randomization.p})
    tables.append(Table("compared", "Rubric score against the baseline (paired by item)", pd.DataFrame(rows),
                        columns={"diff": "candidate - baseline, mean over the common items",
                                 "ci_low": "paired bootstrap 95% percentile interval, low",
                                 "ci_high": "paired bootstrap 95% percentile interval, high",
                                 "t_ci_low": "paired t 95% interval, low", "t_ci_high": "paired t 95% interval, high"},
                        formats={"baseline": "rate", "candidate": "rate", "diff": "points",
                                 "ci_low": "points", "ci_high": "points", "t_ci_low": "points",
                                 "t_ci_high": "points", "t_test_p": "p", "randomization_p": "p", "items": "int"}))
    tables.append(Table("criteria_compared", "Per criterion: paired change and contribution to the score",
                        pd.DataFrame(crit_rows), columns={
                            "diff": "change of the pass rate over the items with both verdicts",
                            "wins": "items the candidate passes and the baseline fails",
                            "losses": "items the baseline passes and the candidate fails",
                            "sign_test_p": "exact sign test, two-sided",
                            "mcnemar_p": "McNemar chi-square, uncorrected",
                            "p_holm": "the exact sign test's p, Holm-adjusted over the criteria",
                            "rate_change": "the change the contribution uses: the candidate's pass rate minus "
                                           "the baseline's on the common items, each over its own verdicts "
                                           "(equal to diff when no verdict is blank)",
                            "contribution": "weight / sum of weights x rate_change"},
                        formats={"diff": "points", "rate_change": "points", "contribution": "points",
                                 "sign_test_p": "p", "mcnemar_p": "p",
                                 "p_holm": "p", "weight": "float", "items": "int", "wins": "int", "losses": "int"}))
    sig.update({"baseline": base_name, "pairs": "by-item-id", "diff-ci": f"paired-bootstrap-percentile-95,"
                f"bs:{options.resamples},seed:{options.seed},draw:by-value", "diff-tests": "paired-t,randomization",
                "t": "paired,two-sided,df:n-1",
                "ties": pm.TIES_SIGNATURE, "criterion-tests": "exact-sign,mcnemar-uncorrected,holm",
                "contribution": "w_i*delta_rate_i/sum(w),delta_rate:rate_to-rate_from(common-items,"
                                + ("own-verdicts" if options.missing == "skip" else "blank=fail") + ")",
                "criterion-diff": "paired(items-with-both-verdicts)"})


def criterion_values(table: LoadedTable, column: str) -> np.ndarray:
    """A criterion's values per row: verdicts (1/0, yes/no, pass/fail... NaN when blank), or a
    number column between 0 and 1: a criterion graded with partial credit, or an item's share of
    tries that passed it (its repeats reduced per item)."""
    series = table.frame[column]
    if pd.api.types.is_float_dtype(series):
        values = series.to_numpy(dtype=float)
        seen = values[np.isfinite(values)]
        if seen.size and ((seen >= 0) & (seen <= 1)).all() and not np.isin(seen, (0.0, 1.0)).all():
            return values
    return verdicts(table, column)


def _fractional(values: np.ndarray) -> bool:
    seen = values[np.isfinite(values)]
    return bool(seen.size) and not np.isin(seen, (0.0, 1.0)).all()


def _criterion_rates(V, crit, w, descriptions, name, options: Options, records, crit_rows, ci_entries) -> None:
    """One system's pass rate per criterion (``V``: its items x criteria verdicts), with Wilson's
    interval, or Clopper-Pearson's below 30 items or at 0% or 100%."""
    kw = {"system": name} if name is not None else {}
    for c, cname in enumerate(crit):
        v = V[:, c]
        have = v[~np.isnan(v)] if options.missing == "skip" else np.where(np.isnan(v), 0.0, v)
        blanks = int(np.isnan(v).sum())
        if _fractional(have):  # partial credit or shares of tries: a mean, bootstrapped over items
            m = int(have.size)
            k = float(have.sum())
            lo = hi = np.nan
            if m > 1 and np.ptp(have) > 0:  # percentile bounds stay between 0% and 100%
                lo, hi = hc.percentile_interval(hc.bootstrap_means(have, resamples=options.ci_resamples,
                                                                   seed=options.ci_seed))
            how = (f"bootstrap-percentile-95,B={options.ci_resamples},seed={options.ci_seed},over:items"
                   if np.isfinite(lo) else None)
            records.append(record(f"criterion_rate:{cname}", k / m if m else None, n=m, ci_low=lo, ci_high=hi,
                                  ci_method=how, **kw))
            crit_rows.append({**kw, "criterion": cname, "weight": float(w[c]), "description": descriptions[c],
                              "passes": k, "items": m, "rate": k / m if m else np.nan, "ci_low": lo,
                              "ci_high": hi, "blank": blanks, "ci_method": how})
            continue
        k, m = int(have.sum()), int(have.size)
        method = rate_interval_method(k, m)
        lo, hi = proportion_interval(k, m, method) if m else (np.nan, np.nan)
        if m and method == "clopper-pearson":
            ci_entries.append((_intervals.who(f"criterion_rate:{cname}", name),
                               hc.MeanCI(k / m, m, lo, hi, np.nan, np.nan, False, method)))
        records.append(record(f"criterion_rate:{cname}", k / m if m else None, n=m, ci_low=lo, ci_high=hi,
                              ci_method=f"{method}-95" if m else None, **kw))
        crit_rows.append({**kw, "criterion": cname, "weight": float(w[c]), "description": descriptions[c],
                          "passes": k, "items": m, "rate": k / m if m else np.nan,
                          "ci_low": lo, "ci_high": hi, "blank": blanks, "ci_method": f"{method}-95" if m else None})
