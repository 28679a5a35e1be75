"""What every part of :mod:`workbench.analyses.compare` shares: its name, options and checks,
the paired inputs, the bootstrap histogram and each system's own interval."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..core.errors import OptionError
from ..metrics import headline_ci as hc
from ..metrics import paired as pm
from . import _intervals


NAME = "compare"
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


#: the interval of a paired difference of 0/1 outcomes in Compare (and the runs' pairs)
BOOT_METHOD = "paired-bootstrap-percentile-95"


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
