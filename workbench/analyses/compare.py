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

# every name importable from this module before it was split stays importable from it
from dataclasses import dataclass  # noqa: F401

import numpy as np
import pandas as pd  # noqa: F401

from ..core.errors import DataError, OptionError  # noqa: F401
from ..core.numbers import format_p, format_value, plural  # noqa: F401
from ..core.progress import NULL_PROGRESS, Scaled  # noqa: F401
from ..core.result import AnalysisResult, Table, record, signature  # noqa: F401
from ..io import LoadedTable, guess_column, to_binary, to_float, to_text  # noqa: F401
from ..io.columns import holds_binary_words  # noqa: F401
from ..metrics import significance as sg  # noqa: F401
from ..metrics.intervals import Z95, paired_mde  # noqa: F401
from ..metrics import headline_ci as hc  # noqa: F401
from ..metrics import paired as pm  # noqa: F401
from . import _intervals  # noqa: F401
from . import paired as pt  # noqa: F401
from ._common import ROLE_NAMES, Resolver, base_signature, check_unique, in_memory  # noqa: F401
# the parts, re-exported here: this module is the analysis's one face
from ._compare_binary import _binary_pair  # noqa: F401
from ._compare_collect import _collect_long, _collect_wide, _values, collect  # noqa: F401
from ._compare_common import (  # noqa: F401
    ALPHA, BETTER, BOOT_METHOD, HIST_BINS, HIST_MAX_BARS, NAME, SCORES, Collected, Options, Paired,
    _system_ci_signature, _system_cis, _with_family, bootstrap_histogram, check_options)
from ._compare_general import (  # noqa: F401
    _binary_stats, _cluster_codes, _discordant_table, _general, _general_signature, _many_systems_tables,
    _pairs, _tukey_hsd, _two_systems_tables)


TITLE = "Paired comparison"


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
