"""Paired comparison of systems on the same items: binary outcomes or any per-item score.

Wide input: one row per item with a baseline column and one or more candidate columns.  Long
input: one row per (system, item) with an outcome/score column.  Items are matched by id;
duplicated ids are refused; in the long form, items scored by only some systems are reported
and left out.

The family of tests follows the data (``scores='auto'``): columns holding only 0/1 (or
pass/fail words) are binary outcomes and get the exact sign test, McNemar and the cell
bootstrap; any other numbers are continuous scores and get the paired t-test, the Wilcoxon
signed-rank test, the sign-flip randomization test and the paired bootstrap (percentile and
BCa); the signature says which (``family:binary`` or ``family:continuous``).  With more than
two systems, every candidate is compared with the baseline and every pair with each other;
p-values are corrected (Holm by default) and the result says which candidates beat the baseline.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..core.errors import DataError, OptionError
from ..core.numbers import format_p, format_value, plural
from ..core.progress import NULL_PROGRESS, Scaled
from ..core.result import AnalysisResult, Table, record, signature
from ..io import LoadedTable, guess_column, to_binary, to_float, to_text
from ..io.columns import holds_binary_words
from ..metrics import significance as sg
from ..metrics.intervals import Z95, paired_mde
from ..metrics import headline_ci as hc
from ..metrics import paired as pm
from . import _intervals
from . import paired as pt
from ._common import ROLE_NAMES, Resolver, base_signature, check_unique, in_memory

NAME = "compare"
TITLE = "Paired comparison"
ALPHA = 0.05


@dataclass(frozen=True)
class Options:
    baseline: str | None = None
    candidate: str | None = None
    item: str | None = None
    cluster: str | None = None
    system: str | None = None
    outcome: str | None = None
    baseline_system: str | None = None
    candidate_system: str | None = None
    resamples: int = 10_000
    seed: int = 12345
    #: long form: the per-item score column (an alias of ``outcome`` for continuous scores)
    score: str | None = None
    #: auto (binary when every value is 0/1), binary, continuous
    scores: str = "auto"
    #: correction for several comparisons: holm, bonferroni, none
    correction: str = "holm"
    #: sign-flip randomization rounds when it is not enumerated exactly
    rounds: int = 10_000
    #: Wilcoxon zero handling: wilcox (drop zeros), pratt, zsplit
    zero_method: str = "wilcox"
    #: direction of the score: higher (better) or lower (better), for "which beat the baseline"
    better: str = "higher"
    #: column marking rows that ended with an error (default: the file format's 'error' column)
    error: str | None = None
    #: errored rows: exclude (left out, their items unpaired) or failure (scored 0)
    errored: str = "exclude"
    #: bootstrap resamples and seed of each system's own interval (over items, or clusters)
    ci_resamples: int = hc.RESAMPLES
    ci_seed: int = hc.SEED


SCORES = ("auto", "binary", "continuous")
BETTER = ("higher", "lower")


@dataclass(frozen=True)
class Paired:
    item: list[str]
    base: np.ndarray
    cand: np.ndarray
    cluster: list[str] | None
    rows: np.ndarray            # row index in the input of each paired item (baseline row)
    base_name: str
    cand_name: str
    form: str


def pair_up(table: LoadedTable, options: Options, res: Resolver) -> Paired:
    """Match two systems' 0/1 outcomes item by item (wide or long input), as :func:`collect`
    does for any scores; the release rules' success conditions use it."""
    from dataclasses import replace

    col = collect(table, replace(options, scores="binary"), res)
    if len(col.names) != 2:
        raise OptionError(f"File '{table.name}' has {len(col.names)} systems to compare "
                          f"({', '.join(col.names[:6])}); name the two with --baseline-system and "
                          f"--candidate-system (or --baseline and --candidate).")
    return _binary_paired(col)


def _binary_paired(col) -> Paired:
    """The two systems of a :class:`Collected` as a :class:`Paired` of 0/1 outcomes."""
    return Paired(col.items, col.scores[:, 0].astype(np.int8), col.scores[:, 1].astype(np.int8),
                  col.cluster, col.rows[:, 0], col.names[0], col.names[1], col.form)


#: the interval of a paired difference of 0/1 outcomes in Compare (and the runs' pairs)
BOOT_METHOD = "paired-bootstrap-percentile-95"


def _binary_pair(table: LoadedTable, options: Options, progress, res: Resolver, pair: Paired) -> AnalysisResult:
    """Two systems, binary outcomes: the exact and McNemar tests and the cell bootstrap."""
    notes = res.notes
    counts = sg.paired_counts(pair.base, pair.cand)
    n, b, c = counts.n, counts.wins, counts.losses
    progress.advance(0.1, "tests")
    exact_p, midp = sg.sign_test(b, c)
    chi2, p_chi2 = sg.mcnemar(b, c, correction=False)
    chi2_cc, p_cc = sg.mcnemar(b, c, correction=True)
    diff, se, n_low, n_high = sg.paired_normal_interval(b, c, n)
    progress.check_cancelled()
    if pair.cluster is not None:
        cl_codes, cl_labels = pd.factorize(pd.Series(pair.cluster), sort=True)  # order-free
        net = np.bincount(cl_codes, weights=pair.cand.astype(float) - pair.base, minlength=len(cl_labels))
        size = np.bincount(cl_codes, minlength=len(cl_labels))
        samples = sg.bootstrap_clustered(net, size, resamples=options.resamples, seed=options.seed,
                                         progress=Scaled(progress, 0.2, 0.9))
        boot_unit = f"clusters:{options.cluster}"
        notes.append(f"The bootstrap resamples the {plural(len(cl_labels), 'cluster')} of column "
                     f"'{options.cluster}' whole; the exact, McNemar and normal results treat the "
                     f"{plural(n, 'item')} as independent and are optimistic if clusters matter.")
    else:
        samples = sg.bootstrap_paired_counts(b, c, n, resamples=options.resamples, seed=options.seed,
                                             progress=Scaled(progress, 0.2, 0.9))
        boot_unit = "items"
    b_low, b_high = sg.percentile_interval(samples)
    d_rate = counts.discordant / n if n else float("nan")
    mde = float(paired_mde(d_rate, n)) if n else float("nan")

    base_rate = float(pair.base.mean())
    cand_rate = float(pair.cand.mean())
    bn, cn = pair.base_name, pair.cand_name
    codes = (pd.factorize(pd.Series(pair.cluster), sort=True)[0].astype(np.int64)
             if pair.cluster is not None else None)
    cis, ci_notes = _system_cis(np.column_stack([pair.base, pair.cand]).astype(float), [bn, cn], codes, options)
    notes += ci_notes
    records = [
        record("rate", base_rate, system=bn, n=n, **_intervals.fields(cis[0])),
        record("rate", cand_rate, system=cn, n=n, **_intervals.fields(cis[1])),
        record("wins", b, n=n, from_=bn, to=cn),
        record("losses", c, n=n, from_=bn, to=cn),
        record("ties", counts.ties, n=n, from_=bn, to=cn),
        record("diff", diff, n=n, from_=bn, to=cn),
        record("sign_test_p", exact_p, n=counts.discordant),
        record("sign_test_midp", midp, n=counts.discordant),
        record("mcnemar_chi2", chi2, n=counts.discordant),
        record("mcnemar_p", p_chi2, n=counts.discordant),
        record("mcnemar_cc_chi2", chi2_cc, n=counts.discordant),
        record("mcnemar_cc_p", p_cc, n=counts.discordant),
        record("normal_ci", diff, n=n, ci_low=n_low, ci_high=n_high, from_=bn, to=cn, ci_method="normal-95"),
        record("bootstrap_ci", diff, n=n, ci_low=b_low, ci_high=b_high, from_=bn, to=cn,
               ci_method=BOOT_METHOD if pair.cluster is None else "paired-cluster-bootstrap-percentile-95"),
        record("mde", mde, n=n),
        *pt.binary_t_records(pair.base, pair.cand, from_=bn, to=cn),
    ]
    if counts.discordant == 0:
        notes.append("No item differs between the two systems; McNemar is undefined (shown empty) "
                     "and the sign test p is 1.")
    ps = {"exact sign test": exact_p, "McNemar": p_chi2, "McNemar (corrected)": p_cc}
    finite = {k: v for k, v in ps.items() if np.isfinite(v)}
    below = [k for k, v in finite.items() if v < ALPHA]
    above = [k for k, v in finite.items() if v >= ALPHA]
    if below and above:
        notes.append(
            f"The tests disagree at alpha {ALPHA}: significant by {', '.join(below)}; "
            f"not significant by {', '.join(above)}. With {plural(counts.discordant, 'discordant item')} the "
            f"exact sign test ({format_p(exact_p)}) does not rely on a large-sample approximation; treat the "
            f"result as borderline: read the {plural(counts.discordant, 'item')} that flipped and extend the set.")
    notes += pt.degenerate_notes(pair.cand.astype(float) - pair.base, mde=mde)
    notes += pt.binary_readings(b, c, n, exact_p=exact_p, midp=midp, p_chi2=p_chi2, p_cc=p_cc,
                                normal=(n_low, n_high), boot=(b_low, b_high))
    if n and abs(diff) < mde and mde <= 1 and counts.discordant:
        notes.append(f"The observed difference ({format_value(diff, 'points')}) is smaller than the minimum "
                     f"detectable difference at this size and discordance ({format_value(mde, 'margin')} = "
                     f"2.8 x sqrt(d/n), with discordance d = {format_value(d_rate, 'rate')} of n = "
                     f"{plural(n, 'item')}).")

    tests = pd.DataFrame([
        {"test": "exact sign test (two-sided)", "statistic": float(b), "p_value": exact_p,
         "basis": f"Binomial({counts.discordant}, 1/2) on the discordant items"},
        {"test": "sign test mid-p", "statistic": float(b), "p_value": midp,
         "basis": "exact p minus the probability of the observed split"},
        {"test": "McNemar chi-square", "statistic": chi2, "p_value": p_chi2,
         "basis": "(b - c)^2 / (b + c), 1 df"},
        {"test": "McNemar chi-square, continuity corrected", "statistic": chi2_cc, "p_value": p_cc,
         "basis": "max(0, |b - c| - 1)^2 / (b + c), 1 df"},
    ])
    intervals = pd.DataFrame([
        {"interval": "normal (paired)", "diff": diff, "ci_low": n_low, "ci_high": n_high,
         "basis": f"SE = sqrt(b + c - (b - c)^2 / n) / n = {format_value(se, 'margin')}"},
        {"interval": f"bootstrap percentile ({boot_unit})", "diff": diff, "ci_low": b_low,
         "ci_high": b_high, "basis": f"{options.resamples:,} resamples, seed {options.seed}"},
    ])
    summary = pd.DataFrame([{
        "baseline": bn, "candidate": cn, "items": n, "baseline_rate": base_rate,
        "candidate_rate": cand_rate, "wins": b, "losses": c, "ties": counts.ties,
        "discordance": d_rate, "diff": diff, "mde": mde,
    }])
    # item resampling: (b* - c*) / n, multiples of 1/n; the cluster bootstrap's ratios are too when
    # every cluster has the same size (else the samples are off the lattice and get equal bins)
    histogram, hist_columns = bootstrap_histogram(samples, n)
    disc = np.flatnonzero(pair.base != pair.cand)
    original = table.frame.iloc[pair.rows[disc]].reset_index(drop=True)
    discordant = pd.concat([pd.DataFrame({
        "item": [pair.item[i] for i in disc],
        "line": table.lines_of(pair.rows[disc]),
        "result": np.where(pair.cand[disc] > pair.base[disc], "win", "loss"),
        "baseline": pair.base[disc], "candidate": pair.cand[disc],
    }), original.add_prefix("input:")], axis=1)
    sig = base_signature(NAME)
    sig.update({
        "form": pair.form, "pairs": "by-item-id", "sign": "exact-two-sided,mid-p",
        "mcnemar": "chi2-1df,cc:max(0,|b-c|-1)", "normal-se": "sqrt(b+c-(b-c)^2/n)/n,clip[-1,1]",
        "z": f"{Z95:.6f}", "bs": f"{options.resamples}", "seed": f"{options.seed}",
        "bs-unit": boot_unit, "bs-ci": "percentile-95", "mde": "2.8*sqrt(d/n)",
        "ci-system": _system_ci_signature(options, True),
    })
    sig = _with_family(sig, "binary")
    tables = (
        Table("summary", "Paired comparison", summary, columns={
            "wins": "items the candidate passes and the baseline fails (b)",
            "losses": "items the baseline passes and the candidate fails (c)",
            "diff": "(b - c) / items", "discordance": "(b + c) / items",
            "mde": "minimum detectable difference 2.8 x sqrt(discordance / items)",
        }, formats={"baseline_rate": "rate", "candidate_rate": "rate", "discordance": "rate",
                    "diff": "rate", "mde": "rate", "items": "int", "wins": "int", "losses": "int",
                    "ties": "int"}),
        Table("tests", "Significance tests side by side", tests,
              formats={"p_value": "p", "statistic": "float"}),
        Table("intervals", "95% intervals of the difference", intervals,
              formats={"diff": "rate", "ci_low": "rate", "ci_high": "rate"}),
        Table("bootstrap", "Bootstrap distribution of the difference", histogram, columns=hist_columns,
              formats={"difference": "points", "bin_low": "rate", "bin_high": "rate", "resamples": "int"}),
        Table("discordant", "Items that flipped", discordant),
    )
    progress.advance(1.0, "done")
    return AnalysisResult(NAME, signature(sig), tuple(records), tables, tuple(notes), table.path)


#: The bootstrap histogram has at most this many bars on a lattice (see :func:`bootstrap_histogram`);
#: off a lattice it has ``HIST_BINS`` equal-width bins.
HIST_MAX_BARS = 80
HIST_BINS = 40


def bootstrap_histogram(samples, lattice_n: int | None = None) -> tuple[pd.DataFrame, dict[str, str]]:
    """The histogram table of the bootstrap differences, and its column descriptions.

    With ``lattice_n`` and every sample a multiple of ``1/lattice_n`` (checked: binary outcomes or
    integer per-item differences, resampled by item or in equal-sized clusters), one bar per possible
    difference ``k/n`` from the smallest to the largest resampled one: ``difference`` is that
    value, ``bin_low``/``bin_high`` are half a step either side, so every resample falls in exactly
    one bar and no bar is empty for want of a possible value (a zero is a possible value no
    resample hit).  When that is more than ``HIST_MAX_BARS`` bars, each bar holds an odd number w of
    whole adjacent lattice points, ``k`` in ``[(j - 1/2) w, (j + 1/2) w)`` with ``difference`` its
    middle point ``j w / n`` (0 is always a middle point); every bar holds the same number of
    possible values.  Without a lattice (continuous scores), or when the samples are not on it
    (clusters of unequal sizes): ``HIST_BINS`` equal-width bins (numpy), no ``difference`` column.
    """
    s = np.asarray(samples, dtype=float)
    fin = s[np.isfinite(s)]
    if fin.size and lattice_n:
        n = int(lattice_n)
        k = np.rint(fin * n)
        if np.all(np.abs(fin * n - k) <= 1e-6):
            k = k.astype(np.int64)
            span = int(k.max() - k.min()) + 1
            w = -(-span // HIST_MAX_BARS)
            w += 1 - w % 2  # odd: each bar's middle is a lattice point
            j = np.floor_divide(k + w // 2, w)  # bar j holds k in [j w - (w-1)/2, j w + (w-1)/2]
            lo = int(j.min())
            counts = np.bincount(j - lo)
            mid = (lo + np.arange(counts.size)) * w
            frame = pd.DataFrame({"difference": mid / n, "resamples": counts,
                                  "bin_low": (mid - w / 2) / n, "bin_high": (mid + w / 2) / n})
            what = (f"a possible difference, a multiple of 1/{n}" if w == 1 else
                    f"the middle of {w} adjacent possible differences (multiples of 1/{n})")
            return frame, {"difference": what, "resamples": "bootstrap resamples in this bar",
                           "bin_low": "bar from (half a step below)" if w == 1 else "bar from",
                           "bin_high": "bar to (half a step above)" if w == 1 else "bar to"}
    if fin.size:
        lo, hi = float(fin.min()), float(fin.max())
        # a spread of float noise only (every resample the same difference) is one bar: numpy
        # refuses HIST_BINS bins narrower than the float spacing there
        tiny = hi - lo <= 1e-9 * max(abs(lo), abs(hi), 1e-300)
        counts, edges = np.histogram(fin, bins=1 if tiny else HIST_BINS)
    else:
        counts, edges = np.zeros(0, dtype=np.int64), np.zeros(1)
    return (pd.DataFrame({"bin_low": edges[:-1], "bin_high": edges[1:], "resamples": counts}),
            {"resamples": "bootstrap resamples in this bin"})


def _with_family(sig: dict, family: str) -> dict:
    out = {}
    for key, value in sig.items():
        out[key] = value
        if key == "analysis":
            out["family"] = family
    return out


# ------------------------------------------------------------------------------ any scores


@dataclass(frozen=True)
class Collected:
    items: list[str]
    scores: np.ndarray          # items x systems
    rows: np.ndarray            # items x systems: row index in the input
    names: list[str]            # systems; names[0] is the baseline
    cluster: list[str] | None
    form: str
    binary: bool
    bounded: bool               # every score in [0, 1]


def check_options(options: Options) -> None:
    """Before any work: 1,000 to 1,000,000 resamples (fewer give a noisy interval; the samples
    are kept, so more would size memory by an option), a seed from 0 to 2^32 - 1, 1,000 to
    1,000,000 randomization rounds, and the choices."""
    from ._checks import whole

    whole("resamples", options.resamples, 1_000, 1_000_000)
    whole("seed", options.seed, 0, 2**32 - 1)
    hc.check_resamples(options.ci_resamples, options.ci_seed)
    whole("rounds", options.rounds, 1_000, 1_000_000)
    from ._rows import check as _check_errored

    _check_errored(options.errored)
    if options.scores not in SCORES:
        raise OptionError(f"`scores` must be one of {', '.join(SCORES)}; got scores={options.scores!r}.")
    if options.correction not in pm.CORRECTIONS:
        raise OptionError(f"`correction` must be one of {', '.join(pm.CORRECTIONS)}; "
                          f"got correction={options.correction!r}.")
    if options.zero_method not in pm.ZERO_METHODS:
        raise OptionError(f"`zero_method` must be one of {', '.join(pm.ZERO_METHODS)}; "
                          f"got zero_method={options.zero_method!r}.")
    if options.better not in BETTER:
        raise OptionError(f"`better` must be one of {', '.join(BETTER)}; got better={options.better!r}.")


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


def run(table: LoadedTable, options: Options = Options(), progress=NULL_PROGRESS, *,
        unit: str = "items") -> AnalysisResult:
    """``unit``: what a paired row is called in the readings ("queries" when the scores are a
    ranking's per-query metric, see :mod:`workbench.analyses.compare_source`).  Rows that ended
    with an error are left out (their items then pair with nothing) or scored 0, as
    :mod:`workbench.analyses._rows` says, and the notes and signature say which."""
    from dataclasses import replace

    in_memory(table, TITLE)
    check_options(options)
    measured_table, err = measured(table, options)
    result = _run(measured_table, options, progress, unit=unit)
    if not err.active:
        return result
    return replace(result, notes=tuple(err.note(failure_means="scored 0 (a failure)")) + result.notes,
                   signature=result.signature + "|" + signature(err.signature()))


def measured(table: LoadedTable, options: Options):
    """The rows :func:`run` measures, and the errored rows (:mod:`workbench.analyses._rows`): the
    one error policy, applied to the outcome or score columns the options name."""
    from . import _rows

    err = _rows.find(table, options.error, options.errored)
    if err.mode == "failure" and err.count and options.better == "lower":
        raise OptionError("Counting errored rows as failures scores them 0, which is the best "
                          "score when lower is better; leave them out (errored=exclude) instead.")
    values = [options.score, options.outcome, options.baseline, *(options.candidate or "").split(",")]
    if err.mode == "failure" and not any(values):
        values = [_rows.role_column(table, "success"), guess_column(table, "outcome", ROLE_NAMES["outcome"])]
    return _rows.apply(table, err, [v.strip() for v in values if v]), err


def paired_input(table: LoadedTable, options: Options):
    """The systems' scores paired by item exactly as :func:`run` pairs them (:func:`measured`,
    then :func:`collect`): ``(collected, measured table, resolver, errored rows)``.  Other
    analyses of paired items (Slices) read their items through here, so they follow Compare."""
    check_options(options)
    measured_table, err = measured(table, options)
    res = Resolver(measured_table)
    return collect(measured_table, options, res), measured_table, res, err


def _run(table: LoadedTable, options: Options, progress, *, unit: str) -> AnalysisResult:
    check_options(options)
    res = Resolver(table)
    col = collect(table, options, res)
    if col.binary and len(col.names) == 2:
        return _binary_pair(table, options, progress, res, _binary_paired(col))
    return _general(table, options, progress, res, col, unit)


def _cluster_codes(col: Collected):
    if col.cluster is None:
        return None, 0
    codes, labels = pd.factorize(pd.Series(col.cluster), sort=True)
    return codes.astype(np.int64), len(labels)


def _binary_stats(x: np.ndarray, y: np.ndarray, options: Options, codes):
    counts = sg.paired_counts(x, y)
    n, b, c = counts.n, counts.wins, counts.losses
    exact_p, midp = sg.sign_test(b, c)
    _, p_chi2 = sg.mcnemar(b, c, correction=False)
    _, p_cc = sg.mcnemar(b, c, correction=True)
    diff, _, n_low, n_high = sg.paired_normal_interval(b, c, n)
    if codes is not None:
        samples = pm.bootstrap_means(y - x, resamples=options.resamples, seed=options.seed, clusters=codes)
    else:
        samples = sg.bootstrap_paired_counts(b, c, n, resamples=options.resamples, seed=options.seed)
    low, high = sg.percentile_interval(samples)
    d_rate = counts.discordant / n if n else float("nan")
    mde = float(paired_mde(d_rate, n)) if n else float("nan")
    return dict(counts=counts, n=n, diff=diff, p=exact_p, midp=midp, mcnemar_p=p_chi2, mcnemar_cc_p=p_cc,
                normal=(n_low, n_high), boot=(low, high), mde=mde, discordance=d_rate)


def _tukey_hsd(scores: np.ndarray):
    """Tukey's HSD p-values (``scipy.stats.tukey_hsd``) of the systems' scores as independent
    groups; NaN when undefined (fewer than two items, or no spread)."""
    import warnings

    from scipy.stats import tukey_hsd

    k = scores.shape[1]
    if scores.shape[0] < 2 or not np.any(scores.std(axis=0) > 0):
        return np.full((k, k), np.nan)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return np.asarray(tukey_hsd(*[scores[:, j] for j in range(k)]).pvalue, dtype=float)


def _general(table: LoadedTable, options: Options, progress, res: Resolver, col: Collected,
             unit_word: str = "items") -> AnalysisResult:
    notes = res.notes
    names, S = col.names, col.scores
    k, n = len(names), S.shape[0]
    codes, n_clusters = _cluster_codes(col)
    family = "binary" if col.binary else "continuous"
    unit = f"clusters:{options.cluster}" if codes is not None else "items"
    sign = 1.0 if options.better == "higher" else -1.0
    records: list[dict] = []
    cis, ci_notes = _system_cis(S, names, codes, options)
    notes += ci_notes
    for j, name in enumerate(names):
        metric = "rate" if col.binary else "mean_score"
        records.append(record(metric, float(S[:, j].mean()) if n else float("nan"), system=name, n=n,
                              **_intervals.fields(cis[j])))
    pairs = [(i, j) for i in range(k) for j in range(i + 1, k)]
    results = _pairs(S, names, pairs, col, options, codes, progress, unit_word, records, notes)
    if codes is not None:
        notes.append(f"The bootstrap resamples the {plural(n_clusters, 'cluster')} of column '{options.cluster}' "
                     f"whole; the other tests treat the {plural(n, 'item')} as independent and are optimistic if "
                     f"clusters matter.")
    primary = "exact sign test" if col.binary else "randomization test"
    if k == 2:
        tables = _two_systems_tables(results[(0, 1)], S, n, options, unit)
    else:
        tables = _many_systems_tables(results, pairs, names, n, S, col, options, sign, primary, records, notes)
    tables.append(_discordant_table(table, col, S, names, sign))
    sig = _general_signature(options, col, family, unit, k)
    progress.advance(1.0, "done")
    return AnalysisResult(NAME, signature(sig), tuple(records), tuple(tables), tuple(notes), table.path)


def _pairs(S, names, pairs, col: Collected, options: Options, codes, progress, unit_word: str,
           records: list, notes: list) -> dict:
    """Every pair of systems: its tests and intervals as records, and per pair the difference,
    p-value, interval and its summary row."""
    k, n = len(names), S.shape[0]
    results: dict[tuple[int, int], dict] = {}
    for step, (i, j) in enumerate(pairs):
        progress.check_cancelled()
        progress.advance(0.05 + 0.85 * step / len(pairs), f"'{names[j]}' vs '{names[i]}'")
        x, y = S[:, i], S[:, j]
        a, b = names[i], names[j]
        kw = dict(from_=a, to=b)
        if col.binary:
            st = _binary_stats(x, y, options, codes)
            cnt = st["counts"]
            records += [
                record("wins", cnt.wins, n=n, **kw), record("losses", cnt.losses, n=n, **kw),
                record("ties", cnt.ties, n=n, **kw), record("diff", st["diff"], n=n, **kw),
                record("sign_test_p", st["p"], n=cnt.discordant, **kw),
                record("sign_test_midp", st["midp"], n=cnt.discordant, **kw),
                record("mcnemar_p", st["mcnemar_p"], n=cnt.discordant, **kw),
                record("mcnemar_cc_p", st["mcnemar_cc_p"], n=cnt.discordant, **kw),
                record("normal_ci", st["diff"], n=n, ci_low=st["normal"][0], ci_high=st["normal"][1],
                       ci_method="normal-95", **kw),
                record("bootstrap_ci", st["diff"], n=n, ci_low=st["boot"][0], ci_high=st["boot"][1],
                       ci_method=BOOT_METHOD if codes is None else "paired-cluster-bootstrap-percentile-95", **kw),
                record("mde", st["mde"], n=n, **kw),
                *pt.binary_t_records(x, y, **kw),
            ]
            results[(i, j)] = {"diff": st["diff"], "p": st["p"], "low": st["boot"][0], "high": st["boot"][1],
                               "row": {"baseline": a, "candidate": b, "items": n,
                                       "baseline_rate": float(x.mean()), "candidate_rate": float(y.mean()),
                                       "wins": cnt.wins, "losses": cnt.losses, "ties": cnt.ties,
                                       "discordance": st["discordance"], "diff": st["diff"], "mde": st["mde"]},
                               "mde": st["mde"]}
        else:
            lo = 0.05 + 0.85 * step / len(pairs)
            ps = pm.summarize(x, y, resamples=options.resamples, seed=options.seed, rounds=options.rounds,
                              zero_method=options.zero_method, clusters=codes,
                              progress=Scaled(progress, lo, lo + 0.85 / len(pairs)))
            records += pt.summary_records(ps, a, b)
            results[(i, j)] = {"diff": ps.diff, "p": ps.randomization.p, "low": ps.boot_low,
                               "high": ps.boot_high, "ps": ps, "mde": ps.mde,
                               "row": {"baseline": a, "candidate": b, "items": n,
                                       "baseline_mean": ps.base_mean, "candidate_mean": ps.cand_mean,
                                       "improved": ps.directions.improved, "worse": ps.directions.worse,
                                       "tied": ps.directions.tied, "mean_diff": ps.diff, "sd_diff": ps.sd,
                                       "effect_size": ps.effect, "mde_score": ps.mde}}
        if i == 0 or k == 2:
            if col.binary:
                notes += [f"'{b}' vs '{a}': {s}" if k > 2 else s for s in
                          pt.degenerate_notes(y - x, mde=results[(i, j)]["mde"])]
            else:
                ps = results[(i, j)]["ps"]
                notes += [f"'{b}' vs '{a}': {s}" if k > 2 else s for s in
                          pt.degenerate_notes(pm.paired_differences(x, y), unit=unit_word, mde=ps.mde,
                                              bounded=col.bounded)]
                notes += pt.readings(ps, base=a, cand=b, unit=unit_word, bounded=col.bounded)
    return results


def _two_systems_tables(r: dict, S, n: int, options: Options, unit: str) -> list:
    """Two systems: the paired summary, the tests side by side, the intervals, the bootstrap."""
    tables = []
    summary = pd.DataFrame([r["row"]])
    ps = r.get("ps")
    tables += [
        Table("summary", "Paired comparison", summary, columns={
            "mean_diff": "mean of candidate - baseline over the items",
            "sd_diff": "SD of the per-item differences (n - 1)",
            "effect_size": "mean difference / SD of the differences (d_z)",
            "mde_score": "minimum detectable mean difference 2.8 x SD / sqrt(n)",
            "improved": "items where the candidate scores higher", "worse": "items where it scores lower",
        }, formats={"baseline_mean": "float", "candidate_mean": "float", "mean_diff": "float",
                    "sd_diff": "float", "effect_size": "float", "mde_score": "float", "items": "int",
                    "improved": "int", "worse": "int", "tied": "int"}),
        Table("tests", "Significance tests side by side", pd.DataFrame(pt.tests_rows(ps, options.zero_method)),
              formats={"p_value": "p", "statistic": "float"}),
        Table("intervals", "95% intervals of the mean difference",
              pd.DataFrame(pt.interval_rows(ps, options.resamples, options.seed, unit)),
              formats={"diff": "float", "ci_low": "float", "ci_high": "float"}),
    ]
    # integer per-item differences: resampled means are multiples of 1/n (cluster ratios too
    # when the clusters are equal-sized; bootstrap_histogram checks the samples)
    d01 = pm.paired_differences(S[:, 0], S[:, 1])
    on_lattice = n > 0 and bool(np.all(d01 == np.rint(d01)))
    histogram, hist_columns = bootstrap_histogram(ps.samples, n if on_lattice else None)
    tables.append(Table("bootstrap", "Bootstrap distribution of the mean difference", histogram,
                        columns=hist_columns, formats={"difference": "float", "bin_low": "float",
                                                       "bin_high": "float", "resamples": "int"}))
    return tables


def _many_systems_tables(results: dict, pairs, names, n: int, S, col: Collected, options: Options, sign: float,
                         primary: str, records: list, notes: list) -> list:
    """Three or more systems: each candidate against the baseline, every pair with its
    corrections (and Tukey's HSD for scores), and which beat the baseline."""
    k = len(names)
    tables = []
    base_rows = [results[(0, j)]["row"] for j in range(1, k)]
    tables.append(Table("summary", "Each candidate against the baseline", pd.DataFrame(base_rows),
                        formats={c: "rate" if col.binary and c in ("baseline_rate", "candidate_rate", "diff",
                                                                   "discordance", "mde") else "float"
                                 for c in base_rows[0] if c not in ("baseline", "candidate")}))
    # corrections: candidates vs the baseline (one family), all pairs (another)
    vs_base = [(0, j) for j in range(1, k)]
    adj_base = pm.adjust([results[p]["p"] for p in vs_base], options.correction)
    adj_all = pm.adjust([results[p]["p"] for p in pairs], options.correction)
    adj_all_of = dict(zip(pairs, adj_all))
    rows, answer = [], {"better": [], "worse": [], "unclear": []}
    for (i, j), p_adj in zip(vs_base, adj_base):
        r = results[(i, j)]
        records.append(record("p_adjusted", p_adj, group="vs baseline", from_=names[0], to=names[j], n=n))
        better = bool(np.isfinite(p_adj) and p_adj < ALPHA and sign * r["diff"] > 0)
        worse = bool(np.isfinite(p_adj) and p_adj < ALPHA and sign * r["diff"] < 0)
        records.append(record("beats_baseline", better, from_=names[0], to=names[j], n=n))
        answer["better" if better else "worse" if worse else "unclear"].append(names[j])
    tukey = _tukey_hsd(S) if not col.binary else None
    for (i, j) in pairs:
        r = results[(i, j)]
        rows.append({"from": names[i], "to": names[j], "items": n, "diff": r["diff"],
                     "ci_low": r["low"], "ci_high": r["high"], "p_value": r["p"],
                     "p_adjusted_vs_baseline": dict(zip(vs_base, adj_base)).get((i, j), np.nan),
                     "p_adjusted_all_pairs": adj_all_of[(i, j)],
                     **({"tukey_hsd_p": float(tukey[i, j])} if tukey is not None else {})})
        records.append(record("p_adjusted", adj_all_of[(i, j)], group="all pairs", from_=names[i],
                              to=names[j], n=n))
        if tukey is not None:
            records.append(record("tukey_hsd_p", float(tukey[i, j]), from_=names[i], to=names[j], n=n))
    if tukey is not None:
        notes.append("Tukey's HSD (as ranx offers it) compares all pairs at once with the studentized "
                     "range, treating each system's scores as an independent sample: it ignores the "
                     "pairing by item, so it is conservative next to the paired tests.")
    fmt = "rate" if col.binary else "float"
    tables.append(Table("pairs", f"Every pair: {primary} p-values, adjusted ({options.correction})",
                        pd.DataFrame(rows), columns={
                            "diff": "to - from", "ci_low": "paired bootstrap 95% percentile interval",
                            "p_value": f"{primary}, two-sided",
                            "p_adjusted_vs_baseline": f"{options.correction}-adjusted over the "
                                                      f"{k - 1} candidate-vs-baseline comparisons",
                            "p_adjusted_all_pairs": f"{options.correction}-adjusted over all "
                                                    f"{len(pairs)} pairs"},
                        formats={"diff": fmt, "ci_low": fmt, "ci_high": fmt, "p_value": "p",
                                 "tukey_hsd_p": "p",
                                 "p_adjusted_vs_baseline": "p", "p_adjusted_all_pairs": "p",
                                 "items": "int"}))
    direction = "higher" if options.better == "higher" else "lower"
    parts = [f"Which beat the baseline '{names[0]}' ({options.correction}-adjusted {primary} p < "
             f"{ALPHA} and a {direction} score): "
             f"{', '.join(repr(x) for x in answer['better']) or 'none'}"]
    if answer["worse"]:
        parts.append(f"significantly worse: {', '.join(repr(x) for x in answer['worse'])}")
    if answer["unclear"]:
        parts.append(f"not distinguishable from it: {', '.join(repr(x) for x in answer['unclear'])}")
    notes.insert(0, "; ".join(parts) + ".")
    return tables


def _discordant_table(table: LoadedTable, col: Collected, S, names, sign: float) -> Table:
    """The items that changed against the baseline, with their input row."""
    k = len(names)
    changed = []
    for j in range(1, k):
        dj = pm.paired_differences(S[:, 0], S[:, j])  # a difference of float noise is no change
        idx = np.flatnonzero(dj != 0)
        if not idx.size:
            continue
        label = (np.where(dj[idx] > 0, "win", "loss") if col.binary
                 else np.where(sign * dj[idx] > 0, "improved", "worse"))
        changed.append(pd.concat([pd.DataFrame({
            "item": [col.items[i] for i in idx],
            "line": table.lines_of(col.rows[idx, 0]),
            **({"from": names[0], "to": names[j]} if k > 2 else {}),
            "result": label, "baseline": S[idx, 0], "candidate": S[idx, j], "difference": dj[idx],
        }), table.frame.iloc[col.rows[idx, 0]].reset_index(drop=True).add_prefix("input:")], axis=1))
    return Table("discordant", "Items that changed against the baseline",
                        pd.concat(changed, ignore_index=True) if changed else
                        pd.DataFrame(columns=["item", "line", "result", "baseline", "candidate", "difference"]),
                        formats={} if col.binary else {"baseline": "float", "candidate": "float",
                                                       "difference": "float"})


def _general_signature(options: Options, col: Collected, family: str, unit: str, k: int) -> dict:
    sig = base_signature(NAME)
    sig.update({"family": family, "form": col.form, "pairs": "by-item-id", "systems": str(k)})
    if col.binary:
        sig.update({"sign": "exact-two-sided,mid-p", "mcnemar": "chi2-1df,cc:max(0,|b-c|-1)"})
    else:
        sig.update({"t": "paired,two-sided", "wilcoxon": f"zero:{options.zero_method},scipy-auto,no-cc",
                    "rand": f"sign-flip,exact<=2^{pm.EXACT_MAX},else-mc:{options.rounds},p:(1+hits)/(1+R)",
                    "ties": pm.TIES_SIGNATURE,
                    "bs-ci": "percentile-95,bca-95"})
    sig.update({"bs": f"{options.resamples}", "seed": f"{options.seed}", "bs-unit": unit})
    sig["ci-system"] = _system_ci_signature(options, col.binary)
    if k > 2:
        sig.update({"correction": options.correction, "adjusted": "sign-test" if col.binary else "randomization",
                    "alpha": f"{ALPHA:g}", "better": options.better})
    sig["mde"] = "2.8*sqrt(d/n)" if col.binary else "2.8*sd/sqrt(n)"
    return sig


def _system_cis(scores: np.ndarray, names: list[str], codes, options: Options):
    """Each system's own interval (a rate's Wilson or Clopper-Pearson, a mean score's bootstrap
    with t beside; with clusters, the cluster bootstrap) and the notes they need."""
    cis = [hc.mean_intervals({"x": scores[:, j]}, resamples=options.ci_resamples, seed=options.ci_seed,
                             clusters=codes)["x"] for j in range(scores.shape[1])]
    return cis, _intervals.notes([(_intervals.who("rate or mean", name), ci) for name, ci in zip(names, cis)])


def _system_ci_signature(options: Options, binary: bool) -> str:
    boot = f"B={options.ci_resamples},seed={options.ci_seed}"
    if options.cluster:
        return f"cluster-bootstrap-percentile-95,{boot},clusters:{options.cluster}"
    if binary:
        return _intervals.RATE_WORDS
    return f"bootstrap-percentile-95,{boot},over:items{_intervals.BUDGET},{_intervals.T_WORDS}"
