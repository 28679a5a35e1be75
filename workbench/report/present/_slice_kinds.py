"""The number kind of each record of the Slices analysis: a difference is in points for 0/1
outcomes and a score difference for scores (the signature's ``family``)."""

from __future__ import annotations

from ...core.numbers import kind_of

#: the kind of each Slices record, for 0/1 outcomes (scores: see :func:`record_kind_slices`)
_KINDS = {
    "baseline_rate": "rate", "candidate_rate": "rate", "baseline_mean": "score", "candidate_mean": "score",
    "diff": "points", "p": "p", "p_adjusted": "p", "se": "margin", "tested": "plain", "wins": "count",
    "losses": "count", "improved": "count", "worse": "count", "sign_test_p": "p", "mcnemar_p": "p",
    "t": "statistic", "t_test_p": "p", "randomization_p": "p", "fcr_ci": "points", "shrunk_diff": "points",
    "tested_slices": "count", "called_out": "count", "fcr_level": "rate", "q": "statistic", "q_df": "count",
    "q_p": "p", "i2": "rate", "tau2": "score", "re_diff": "points", "clean_diff": "points",
    "contaminated_diff": "points", "slices_searched": "count", "search_diff": "points",
    "holdout_diff": "points", "holdout_p": "p", "holdout_p_adjusted": "p",
}
_SCORE_KINDS = {"points": "score_diff", "margin": "score"}


def binary_family(result) -> bool:
    """0/1 outcomes (the signature's ``family:binary``), not scores."""
    return "|family:continuous" not in str(getattr(result, "signature", "") or "")


def record_kind_slices(result, rec: dict) -> str:
    """The kind of a Slices record: its id's, a difference in points for 0/1 outcomes and a score
    difference for scores."""
    kind = _KINDS.get(rec["metric"]) or kind_of(rec["metric"])
    return kind if binary_family(result) else _SCORE_KINDS.get(kind, kind)
