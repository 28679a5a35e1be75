"""Computing each criterion of a release rule on its input: the observed value, its interval,
its test and the counts behind it, as an :class:`~workbench.rules.outcome.Outcome`."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ..core import numbers
from ..core.errors import DataError
from ..core.progress import NULL_PROGRESS
from ..io import LoadedTable, require_columns, to_binary, to_float, to_text
from .inputs import _blank, _Cols, _evalset, _subset, _systems_present
from .outcome import Outcome
from .repeated import eval_repeated, repeated_item
from .slice_criterion import eval_slices
from .spec import (COST, JUDGE, JUDGE_METRICS, LATENCY, PAIRED, RANKING, SLICES, TEST_NAMES, Condition,
                   effort_measure)
from .verdict import _fmt_p


def measure(cond: Condition, table: LoadedTable, alpha: float, progress) -> Outcome:
    """The outcome of one condition on ``table``."""
    if cond.kind == PAIRED:
        return _eval_paired(cond, table, alpha, progress)
    if cond.kind == RANKING:
        return _eval_ranking(cond, table, alpha, progress)
    if cond.kind == JUDGE:
        return _eval_judge(cond, table, alpha, progress)
    if cond.kind == SLICES:
        return eval_slices(cond, table, alpha, progress)
    return _eval_cost_latency(cond, table, alpha, progress)


def _level(alpha: float) -> str:
    return f"{100 * (1 - alpha):g}%"


def _z(alpha: float) -> float:
    from scipy.stats import norm

    return float(norm.ppf(1 - alpha / 2))


# --- success: paired binary outcomes -----------------------------------------------------------

def _eval_paired(cond: Condition, table: LoadedTable, alpha: float, progress) -> Outcome:
    from ..analyses import compare
    from ..analyses._common import Resolver
    from ..metrics import significance as sg

    cols = _Cols(table, cond.data)
    frame = table.frame
    base, cand = cond.baseline, cond.candidate
    present = set(map(str, frame.columns))
    cluster = cond.data.get("cluster")
    if cluster:
        require_columns(table, [cluster])
    notes: list[str] = []
    if base in present and cand in present:
        item = cols.get("item", required=False)
        if item in (base, cand):
            item = None
        b_blank, c_blank = _blank(frame[base]), _blank(frame[cand])
        ids = np.asarray(to_text(table, item) if item else
                         [f"line {x}" for x in table.lines_of(range(len(frame)))], dtype=object)
        info, _ = _evalset(base, cand, pd.Index(ids[~b_blank]), pd.Index(ids[~c_blank]),
                           "items", table, notes)
        keep = np.flatnonzero(~b_blank & ~c_blank)
        options = compare.Options(baseline=base, candidate=cand, item=item, cluster=cluster)
    else:
        if cols.get("system", required=False) is None and not cond.data.get("system"):
            one = base if base in present else cand if cand in present else None
            has = f"has column '{one}' but not '{cand if one == base else base}'" if one else \
                f"has no columns '{base}' and '{cand}'"
            raise DataError(f"File '{table.name}' {has} (the wide form: one 0/1 column per system) and no "
                            f"system column (the long form); name the columns in the rule's [data] "
                            f"table or its baseline and candidate (its columns are: "
                            f"{', '.join(map(str, frame.columns))}).")
        cols.notes.clear()
        sys_col, item_col, out_col = cols.get("system"), cols.get("item"), cols.get("outcome")
        systems = np.asarray(to_text(table, sys_col), dtype=object)
        _systems_present(table, sys_col, systems, [base, cand])
        repeated = repeated_item(table)
        if repeated is not None and not cond.data.get("item"):  # a log's tries: the unit is the item
            cols.notes.clear()
            return eval_repeated(cond, table, alpha, sys_col, out_col, repeated, notes,
                                 lambda b_ids, c_ids: _evalset(base, cand, b_ids, c_ids, "items", table,
                                                               notes)[0])
        items = np.asarray(to_text(table, item_col), dtype=object)
        info, common = _evalset(base, cand, pd.Index(items[systems == base]).unique(),
                                pd.Index(items[systems == cand]).unique(), "items", table, notes)
        keep = np.flatnonzero(np.isin(systems, [base, cand]) & pd.Index(items).isin(common))
        options = compare.Options(system=sys_col, item=item_col, outcome=out_col, baseline_system=base,
                                  candidate_system=cand, cluster=cluster)
    if len(keep) == 0:
        raise DataError(f"File '{table.name}': '{base}' and '{cand}' share no scored item, so nothing "
                        f"can be paired for [[condition]] {cond.index} ({cond.metric}).")
    sub = _subset(table, keep)
    res = Resolver(sub)
    pair = compare.pair_up(sub, options, res)
    counts = sg.paired_counts(pair.base, pair.cand)
    n, b, c = counts.n, counts.wins, counts.losses
    diff = (b - c) / n
    level = _level(alpha)
    if cond.interval == "normal":
        _, se, lo, hi = sg.paired_normal_interval(b, c, n, z=_z(alpha))
        how = f"{level} normal interval (SE = sqrt(b + c - (b - c)^2 / n) / n = {numbers.format_value(se, 'margin')})"
        if pair.cluster is not None:
            notes.append(f"The normal interval treats the {n} items as independent; clusters in "
                         f"'{cluster}' would make it optimistic (the bootstrap interval resamples them).")
    else:
        if pair.cluster is not None:
            codes, labels = pd.factorize(pd.Series(pair.cluster), sort=True)
            net = np.bincount(codes, weights=pair.cand.astype(float) - pair.base, minlength=len(labels))
            size = np.bincount(codes, minlength=len(labels))
            samples = sg.bootstrap_clustered(net, size, resamples=cond.resamples, seed=cond.seed)
            unit = f"the {len(labels)} clusters of '{cluster}'"
        else:
            samples = sg.bootstrap_paired_counts(b, c, n, resamples=cond.resamples, seed=cond.seed)
            unit = "items"
        lo, hi = sg.percentile_interval(samples, level=1 - alpha)
        how = f"{level} bootstrap interval ({cond.resamples:,} resamples of {unit}, seed {cond.seed})"
    p_sign = sg.sign_test(b, c)[0]
    p_mc = sg.mcnemar(b, c, correction=False)[1]
    p_cc = sg.mcnemar(b, c, correction=True)[1]
    ps = {"sign": p_sign, "mcnemar": p_mc, "mcnemar_cc": p_cc}
    p = ps.get(cond.test) if cond.test != "none" else None
    if p is not None and not math.isfinite(p):  # McNemar with no discordant item
        p = 1.0
        notes.append("No item differs between the two systems; McNemar is undefined and is read as p = 1.")
    side = {"lower": "lower bound", "point": "observed value"}[cond.bound]
    basis = f"{side} of the {how}"
    if cond.test != "none":
        basis += f"; {TEST_NAMES[cond.test]} (two-sided, alpha {alpha:g})"
        chosen_sig = p < alpha
        others = [f"{TEST_NAMES[k]} {_fmt_p(v)}" for k, v in ps.items()
                  if k != cond.test and math.isfinite(v) and (v < alpha) != chosen_sig]
        if others:
            notes.append(f"Other tests read this split differently ({'; '.join(others)}); the rule's "
                         f"{TEST_NAMES[cond.test]} ({_fmt_p(p)}) was chosen in advance and decides.")
    notes += cols.notes + res.notes
    return Outcome(observed=diff, ci_low=lo, ci_high=hi, n=n, input_index=0, p_value=p,
                   counts=f"{b:,} wins / {c:,} losses / {counts.ties:,} ties of {numbers.plural(n, 'item')}",
                   basis=basis, notes=notes, evalset=info,
                   discordance=counts.discordant / n if n else None, discordant=counts.discordant,
                   unit_word="items")


# --- ranking metrics: paired per-query differences ------------------------------------------------

def _eval_ranking(cond: Condition, table: LoadedTable, alpha: float, progress) -> Outcome:
    from ..analyses import ranking
    from ..metrics import significance as sg

    cols = _Cols(table, cond.data)
    q_col, d_col = cols.get("query"), cols.get("doc")
    score, rank = cond.data.get("score"), cond.data.get("rank")
    if not score and not rank:
        score = cols.get("score", required=False)
        if score is None:
            rank = cols.get("rank", required=False)
        if score is None and rank is None:
            raise DataError(f"File '{table.name}' needs a score or a rank column to order the documents; "
                            f"name one in the rule's [data] table (its columns are: "
                            f"{', '.join(map(str, table.frame.columns))}).")
    qrels = cond.data.get("qrels")
    rel = cond.data.get("relevance") or (None if qrels else cols.get("relevance"))
    sys_col = cols.get("system")
    base, cand = cond.baseline, cond.candidate
    systems = np.asarray(to_text(table, sys_col), dtype=object)
    _systems_present(table, sys_col, systems, [base, cand])
    opts = ranking.Options(query=q_col, doc=d_col, score=score or None, rank=rank or None, relevance=rel,
                           system=sys_col, qrels=qrels, ks=(cond.k or 1,), **cond.options)
    result = ranking.run(table, opts, NULL_PROGRESS)
    column = {"mrr": "rr", "map": "ap"}.get(cond.metric, cond.metric)
    if column.startswith("mrr@"):  # the per-query column of MRR@k
        column = column[1:]
    per_query = result.table("queries").frame
    per_query = per_query.assign(system=per_query["system"].astype(str), query=per_query["query"].astype(str))
    bq = per_query[per_query["system"] == base].set_index("query")
    cq = per_query[per_query["system"] == cand].set_index("query")
    notes: list[str] = []
    scored_b = bq.index[(bq["retrieved"] > 0).to_numpy()]
    scored_c = cq.index[(cq["retrieved"] > 0).to_numpy()]
    info, common = _evalset(base, cand, scored_b, scored_c, "queries", table, notes)
    if info["missing"] or info["added"]:
        notes.append("The ranking analysis scores a query a system did not retrieve for as 0 "
                     "(trec_eval -c); the gate leaves such queries out of the paired comparison instead.")
    counted = bq.loc[common, "counted"].to_numpy(dtype=bool) & cq.loc[common, "counted"].to_numpy(dtype=bool)
    common = common[counted]
    if len(common) == 0:
        raise DataError(f"File '{table.name}': '{base}' and '{cand}' share no scored query, so nothing "
                        f"can be paired for [[condition]] {cond.index} ({cond.metric}).")
    from ..metrics import paired as pm

    base_scores = bq.loc[common, column].to_numpy(dtype=float)
    cand_scores = cq.loc[common, column].to_numpy(dtype=float)
    # ties and zeros decided on differences rounded to the scores' scale (pm.TIES_SIGNATURE)
    quantum = pm.tie_quantum(base_scores, cand_scores)
    diffs = pm.paired_differences(base_scores, cand_scores)
    n = diffs.size
    obs = float(diffs.mean())
    directions = pm.direction_counts(diffs, quantum=quantum)
    wins, losses = directions.improved, directions.worse
    sd = pm.paired_t(diffs, quantum=quantum).sd if n > 1 else 0.0
    level = _level(alpha)
    if cond.interval == "normal":
        se = sd / math.sqrt(n)
        z = _z(alpha)
        lo, hi = obs - z * se, obs + z * se
        how = f"{level} normal interval (mean difference +- z sd / sqrt(n), sd {numbers.format_value(sd, 'score')})"
    else:
        samples = _bootstrap_mean(diffs, cond.resamples, cond.seed, progress)
        lo, hi = sg.percentile_interval(samples, level=1 - alpha)
        how = f"{level} bootstrap interval ({cond.resamples:,} resamples of queries, seed {cond.seed})"
    p = None
    t_text = ""
    if cond.test == "sign":
        p = sg.sign_test(wins, losses)[0]
    elif cond.test == "t":
        if sd == 0:
            p = 1.0 if obs == 0 else 0.0
        else:
            from scipy.stats import ttest_1samp

            res = ttest_1samp(diffs, 0.0)
            p = float(res.pvalue)
            # as a statistics package reports it: t(df) and the standardised effect d_z
            t_text = f", t({n - 1}) = {float(res.statistic):.2f}, d_z = {obs / sd:.2f}"
    elif cond.test in ("randomization", "wilcoxon"):  # workbench/metrics/paired.py
        p = (pm.sign_flip_test(diffs, rounds=10_000, seed=cond.seed, quantum=quantum).p
             if cond.test == "randomization" else pm.wilcoxon(diffs, quantum=quantum).p)
    side = {"lower": "lower bound", "point": "observed value"}[cond.bound]
    basis = f"{side} of the {how}"
    if cond.test != "none":
        basis += (f"; {TEST_NAMES[cond.test]} on the per-query differences (two-sided, alpha {alpha:g}"
                  f"{t_text})")
    ranking_notes = [x for x in result.notes if "guessed" not in x]
    notes += cols.notes + ranking_notes
    return Outcome(observed=obs, ci_low=lo, ci_high=hi, n=n, input_index=0, p_value=p,
                   counts=(f"better on {wins:,} / worse on {losses:,} / same on {n - wins - losses:,} of "
                           f"{numbers.plural(n, 'query')}"),
                   basis=basis, notes=notes, evalset=info, sd=sd, discordant=wins + losses,
                   unit_word="queries")


def _eval_judge(cond: Condition, table: LoadedTable, alpha: float, progress) -> Outcome:
    """The Judge analysis on the condition's judge and human columns; the coefficient it names."""
    from ..analyses import judge as judge_analysis

    cols = _Cols(table, cond.data)
    judge_col = cols.get("judge")
    human_col = cols.get("human")
    opts = judge_analysis.Options(judge=judge_col, human=(human_col,), item=cond.data.get("item"),
                                  positive=cond.options.get("positive"), level=cond.options.get("level", "auto"))
    result = judge_analysis.run(table, opts, progress)
    recs = result.find(JUDGE_METRICS[cond.metric])
    rec = recs[0] if recs else {"value": None, "n": 0}
    level = _level(alpha)
    lo, hi = rec.get("ci_low"), rec.get("ci_high")
    if JUDGE_METRICS[cond.metric] == "kappa" and rec.get("value") is not None and alpha != 0.05:
        from ..metrics.agreement import cohens_kappa

        tab = result.table("confusion").frame.drop(columns="judge").to_numpy()
        k = cohens_kappa(tab, level=1 - alpha)
        lo, hi = k.low, k.high
    how = {"kappa": f"Cohen's kappa with its {level} asymptotic normal interval",
           "ac1": "Gwet's AC1 with its 95% t interval",
           "agreement": "the share of labelled items on which the judge and the person agree, Wilson 95% interval"}
    dis = result.find("disagreements")
    counts = (f"{rec.get('n') or 0:,} labelled items; {dis[0]['value']:,} disagreements" if dis else "")
    notes = cols.notes + [n for n in result.notes if "guessed" not in n]
    return Outcome(observed=rec.get("value"), ci_low=lo, ci_high=hi, n=rec.get("n"), input_index=0,
                   counts=counts, basis=how[JUDGE_METRICS[cond.metric]] + f" (judge '{judge_col}', people "
                   f"'{human_col}')", notes=notes, unit_word="labelled items")


def _bootstrap_mean(diffs: np.ndarray, resamples: int, seed: int, progress) -> np.ndarray:
    rng = np.random.default_rng(seed)
    n = diffs.size
    out = np.empty(resamples)
    batch = max(1, min(resamples, 4_000_000 // max(n, 1)))
    for start in range(0, resamples, batch):
        progress.check_cancelled()
        rows = min(batch, resamples - start)
        idx = rng.integers(0, n, size=(rows, n))
        out[start:start + rows] = diffs[idx].mean(axis=1)
    return out


# --- cost and latency -----------------------------------------------------------------------------

def _eval_cost_latency(cond: Condition, table: LoadedTable, alpha: float, progress) -> Outcome:
    from ..analyses._common import check_unique
    from ..metrics import significance as sg
    from ..metrics.cost import PERCENTILE_METHODS

    cols = _Cols(table, cond.data)
    notes: list[str] = []
    sys_col = cols.get("system", required=cond.relative)
    base, cand = cond.baseline, cond.candidate
    measure = effort_measure(cond)  # steps / tool_calls / tokens stand where cost or latency do
    if cond.kind == COST:
        cost = to_float(table, cols.get(measure or "cost"), min_value=0)
        y = (to_binary(table, cols.get("outcome")).astype(float)
             if cond.metric == "cost_per_success" or measure else None)
    else:
        lat = to_float(table, cols.get(measure or "latency"), min_value=0)
        method = PERCENTILE_METHODS[cond.options.get("percentile_method", "linear")]
    n_rows = len(table.frame)
    if cond.kind == LATENCY:
        y = None
    if sys_col is not None:
        systems = np.asarray(to_text(table, sys_col), dtype=object)
        _systems_present(table, sys_col, systems, [base, cand] if cond.relative else [cand])
        c_rows = np.flatnonzero(systems == cand)
        b_rows = np.flatnonzero(systems == base) if cond.relative else None
    else:
        c_rows, b_rows = np.arange(n_rows), None
        notes.append(f"'{table.name}' has no system column: all its {numbers.plural(n_rows, 'row')} are taken as the "
                     f"candidate '{cand}'.")

    def stat(rows_idx: np.ndarray) -> np.ndarray:
        """The metric for each row of a 2-d array of row indices (one resample per row)."""
        if cond.kind == COST:
            total = cost[rows_idx].sum(axis=-1)
            if cond.metric == "cost_per_request":
                return total / rows_idx.shape[-1]
            succ = y[rows_idx].sum(axis=-1)
            with np.errstate(divide="ignore", invalid="ignore"):
                return np.where(succ > 0, total / np.where(succ > 0, succ, 1), np.nan)
        return np.percentile(lat[rows_idx], cond.percentile, axis=-1, method=method)

    info, paired = None, False
    if cond.relative:
        item_col = cols.get("item", required=False)
        if item_col is not None:
            check_unique(table, [sys_col, item_col], "(system, item) pair")
            items = np.asarray(to_text(table, item_col), dtype=object)
            b_ids, c_ids = pd.Index(items[b_rows]), pd.Index(items[c_rows])
            info, common = _evalset(base, cand, b_ids, c_ids, "items", table, notes)
            if len(common) == 0:
                raise DataError(f"File '{table.name}': '{base}' and '{cand}' share no item id in column "
                                f"'{item_col}', so [[condition]] {cond.index} ({cond.metric}) cannot "
                                f"compare them.")
            b_rows = b_rows[b_ids.get_indexer(common)]
            c_rows = c_rows[c_ids.get_indexer(common)]
            paired = True
        else:
            notes.append("No item column: the bootstrap resamples each system's requests "
                         "independently (not paired).")
    obs_c = float(stat(c_rows[None, :])[0])
    if cond.relative:
        obs_b = float(stat(b_rows[None, :])[0])
        observed = obs_c / obs_b - 1 if (math.isfinite(obs_b) and obs_b > 0 and math.isfinite(obs_c)) \
            else float("nan")
        if not math.isfinite(observed):
            notes.append(f"The relative change is undefined: {cond.metric} is "
                         f"{_num(obs_b, cond)} for '{base}' and {_num(obs_c, cond)} for '{cand}'.")
    else:
        obs_b, observed = None, obs_c
        if not math.isfinite(observed):
            notes.append(f"{cond.metric} of '{cand}' is undefined (no success in {numbers.plural(c_rows.size, 'request')}).")

    samples = _bootstrap_stat(stat, c_rows, b_rows if cond.relative else None, paired, cond.resamples,
                              cond.seed, progress)
    m_c = c_rows.size
    bad = int((~np.isfinite(samples)).sum())
    if bad and bad < cond.resamples:
        notes.append(f"{bad:,} of {cond.resamples:,} resamples had no success for a system and are left "
                     f"out of the interval.")
    lo, hi = sg.percentile_interval(samples, level=1 - alpha)
    unit = "items, paired" if paired else "requests"
    side = {"upper": "upper bound", "point": "observed value"}[cond.bound]
    basis = (f"{side} of the {_level(alpha)} bootstrap interval ({cond.resamples:,} resamples of "
             f"{unit}, seed {cond.seed})")
    if cond.kind == LATENCY:
        basis += f"; percentile method {cond.options.get('percentile_method', 'linear')}"
    label = cond.metric if cond.kind == COST else (f"{effort_measure(cond)} p{cond.percentile:g}"
                                                   if effort_measure(cond) else f"p{cond.percentile:g}")
    if cond.relative:
        counts = f"'{cand}' {label} {_num(obs_c, cond)} vs '{base}' {_num(obs_b, cond)}"
    else:
        counts = f"'{cand}' {label} {_num(obs_c, cond)}"
    counts += f" over {numbers.plural(m_c, 'request')}"
    if y is not None:
        counts += f" ({numbers.plural(int(y[c_rows].sum()), 'success')})"
    notes += cols.notes
    return Outcome(observed=observed, ci_low=lo, ci_high=hi, n=int(m_c), input_index=0, p_value=None,
                   counts=counts, basis=basis, notes=notes, evalset=info, unit_word="requests")


def _bootstrap_stat(stat, c_rows: np.ndarray, b_rows: np.ndarray | None, paired: bool, resamples: int,
                    seed: int, progress) -> np.ndarray:
    """Bootstrap of ``stat`` over the candidate's rows, or of the relative change
    stat(candidate) / stat(baseline) - 1 (the same resampled items when ``paired``, else each
    system's requests on their own); NaN where the baseline's statistic is not above 0."""
    rng = np.random.default_rng(seed)
    samples = np.empty(resamples)
    m_c = c_rows.size
    m_b = b_rows.size if b_rows is not None else 0
    batch = max(1, min(resamples, 4_000_000 // max(m_c + m_b, 1)))
    for start in range(0, resamples, batch):
        progress.check_cancelled()
        rows = min(batch, resamples - start)
        idx_c = rng.integers(0, m_c, size=(rows, m_c))
        s = stat(c_rows[idx_c])
        if b_rows is not None:
            idx_b = idx_c if paired else rng.integers(0, m_b, size=(rows, m_b))
            s_b = stat(b_rows[idx_b])
            with np.errstate(divide="ignore", invalid="ignore"):
                s = np.where(s_b > 0, s / np.where(s_b > 0, s_b, 1) - 1, np.nan)
        samples[start:start + rows] = s
    return samples


def _num(v, cond: Condition) -> str:
    """A cost (in the file's units), a latency or an effort under the number-format policy."""
    if v is None or not math.isfinite(v):
        return "undefined"
    kind = "statistic" if effort_measure(cond) else "cost" if cond.kind == COST else "latency"
    return numbers.format_value(v, kind)
