"""The result tables of the Slices analysis (the panel's tables, the chart's numbers, the Excel
sheet and the ``--json`` tables): ``slices`` (one row per slice of each column), ``heterogeneity``
(one row per column), ``overall``, ``bins`` (the quantile bins' edges) and ``discovery``."""

from __future__ import annotations

import math

import pandas as pd

from ..core.result import Table


def _num(x) -> float:
    return float(x) if x is not None and math.isfinite(x) else float("nan")


def tables_of(all_stats, summaries, discovery, binary: bool, bn: str, cn: str, n: int, overall: dict):
    diff_col = "diff" if binary else "mean_diff"
    dk = "points" if binary else "score_diff"
    sk = "margin" if binary else "score"
    level = "rate" if binary else "score"
    rows = []
    for (column, stats), (_, summary) in zip(all_stats, summaries):
        for s in stats:
            row = {"by": column.by, "slice": s.label, "items": s.n,
                   f"baseline_{'rate' if binary else 'mean'}": s.base,
                   f"candidate_{'rate' if binary else 'mean'}": s.cand,
                   ("wins" if binary else "improved"): s.up, ("losses" if binary else "worse"): s.down,
                   diff_col: s.diff, "ci_low": s.low, "ci_high": s.high, "se": s.se,
                   "p_value": s.p if s.tested else float("nan"),
                   ("mcnemar_p" if binary else "randomization_p"): s.p2 if s.tested else float("nan")}
            if not binary:
                row["t"] = s.t if s.tested else float("nan")
                row["df"] = s.df if s.df is not None else float("nan")
            row.update({"p_adjusted": s.p_adjusted, "called_out": s.called_out,
                        "fcr_level": summary["level"] if s.called_out else float("nan"),
                        "fcr_low": s.fcr_low, "fcr_high": s.fcr_high, "shrunk_diff": s.shrunk,
                        "status": "tested" if s.tested else s.status})
            rows.append(row)
    slices = pd.DataFrame(rows)
    test = "exact sign test" if binary else "paired t-test"
    columns = {
        "by": "the slice column", "slice": "the slice: the cell's exact text, a quantile bin, or (blank)",
        "items": "paired items in the slice",
        diff_col: "candidate - baseline over the slice's items",
        "ci_low": ("paired normal 95% interval, SE = sqrt(b + c - (b - c)^2 / n) / n" if binary
                   else "paired t 95% interval, df = n - 1"),
        "se": "sd of the per-item differences (n - 1) / sqrt(n): the slice's weight in Q and tau²",
        "p_value": f"{test}, two-sided (the test adjusted over the slices)",
        "p_adjusted": "adjusted over the tested slices of this column",
        "called_out": "adjusted p < 0.05",
        "fcr_level": "level of the false-coverage-rate interval: 1 - R q / m",
        "fcr_low": "false-coverage-rate adjusted interval (Benjamini and Yekutieli 2005)",
        "shrunk_diff": "random-effects estimate d_RE + tau²/(tau² + se²) (d - d_RE)",
        "status": "tested, too small (below the minimum size) or no test possible",
    }
    if binary:
        columns.update({"wins": "items the candidate passes and the baseline fails (b)",
                        "losses": "items the baseline passes and the candidate fails (c)",
                        "mcnemar_p": "McNemar chi-square (1 df, uncorrected)"})
    else:
        columns.update({"improved": "items where the candidate scores higher",
                        "worse": "items where it scores lower",
                        "randomization_p": "sign-flip randomization test (seeded)", "t": "paired t statistic",
                        "df": "degrees of freedom of t (n - 1)"})
    fmt = {"items": "int", diff_col: dk, "ci_low": dk, "ci_high": dk, "se": sk, "p_value": "p",
           "p_adjusted": "p", "fcr_level": "rate", "fcr_low": dk, "fcr_high": dk, "shrunk_diff": dk,
           "mcnemar_p": "p", "randomization_p": "p", "t": "statistic", "df": "int", "wins": "int",
           "losses": "int", "improved": "int", "worse": "int", "baseline_rate": "rate",
           "candidate_rate": "rate", "baseline_mean": level, "candidate_mean": level,
           "by": "text", "slice": "text", "status": "text"}
    tables = [Table("slices", "Each slice", slices, columns=columns,
                    formats={k: v for k, v in fmt.items() if k in slices.columns})]
    het_rows = []
    for column, summary in summaries:
        h = summary["het"]
        het_rows.append({"by": column.by, "slices": column.size, "tested": summary["m"],
                         "called_out": summary["selected"],
                         "fcr_level": summary["level"], "pooled": h.k, "q": _num(h.q), "df": h.df if h.k >= 2 else float("nan"),
                         "p_value": _num(h.p), "i2": _num(h.i2), "tau2": _num(h.tau2),
                         "fe_diff": _num(h.fe), "re_diff": _num(h.re), "re_low": _num(h.re_low),
                         "re_high": _num(h.re_high)})
    tables.append(Table("heterogeneity", "Across slices (Q, tau²)", pd.DataFrame(het_rows), columns={
        "tested": "slices tested (m)", "called_out": "slices with adjusted p < 0.05 (R)",
        "pooled": "slices in Q and tau² (k: tested, with a standard error above 0)",
        "q": "Cochran's Q = sum w (d - d_FE)², w = 1 / se²", "df": "k - 1", "p_value": "chi-square p of Q",
        "i2": "I² = max(0, (Q - df) / Q)", "tau2": "between-slice variance (DerSimonian-Laird, truncated at 0)",
        "fe_diff": "fixed-effect pooled difference", "re_diff": "random-effects pooled difference",
        "re_low": "its normal 95% interval"},
        formats={"slices": "int", "tested": "int", "called_out": "int", "fcr_level": "rate", "pooled": "int",
                 "q": "statistic", "df": "int", "p_value": "p", "i2": "rate", "tau2": "score",
                 "fe_diff": dk, "re_diff": dk, "re_low": dk, "re_high": dk, "by": "text"}))
    tables.append(Table("overall", "All paired items", pd.DataFrame([{
        "items": n, "baseline": bn, "candidate": cn, diff_col: overall["diff"], "ci_low": overall["low"],
        "ci_high": overall["high"], "p_value": overall["p"]}]),
        columns={"p_value": f"{test}, two-sided"},
        formats={"items": "int", diff_col: dk, "ci_low": dk, "ci_high": dk, "p_value": "p",
                 "baseline": "text", "candidate": "text"}))
    bins = [{"by": column.by, "slice": label, "low": lo, "high": hi}
            for column, _ in summaries if column.bins for label, lo, hi in column.bins]
    if bins:
        tables.append(Table("bins", "Quantile bins", pd.DataFrame(bins),
                            columns={"low": "lower edge (included in the first bin only)",
                                     "high": "upper edge (included)"},
                            formats={"low": "float", "high": "float", "by": "text", "slice": "text"}))
    if discovery is not None:
        tables.append(Table("discovery", "Discovery",
                            discovery, columns={
                                "search_items": "items of the slice in the search half",
                                "search_diff": "its difference there (the search's pick: biased)",
                                "holdout_items": "items of the slice in the other half",
                                "holdout_diff": "its difference on the other half (the estimate to read)",
                                "ci_low": "95% interval on the other half", "p_value": f"{test} on the other half",
                                "p_adjusted": "adjusted over the slices re-estimated"},
                            formats={"rank": "int", "search_items": "int", "search_diff": dk,
                                     "holdout_items": "int", "holdout_diff": dk, "ci_low": dk, "ci_high": dk,
                                     "p_value": "p", "p_adjusted": "p", "by": "text", "slice": "text"}))
    return tuple(tables)
