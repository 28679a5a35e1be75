"""Cost and latency per system: cost per success, marginal cost per extra success, tails."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..core.numbers import format_value, plural
from ..core.progress import NULL_PROGRESS
from ..core.result import AnalysisResult, Table, record, signature
from ..io import LoadedTable, text_codes, to_binary, to_float, to_text
from ..metrics import cost as cm
from ..metrics import paired as pm
from ..metrics import headline_ci as hc
from ..metrics.intervals import proportion_interval, rate_interval_method
from . import _checks, cost_spend, _engine, _intervals, _rows
from ._common import Resolver, base_signature, pick_column


def _rate(value) -> str:
    return format_value(float(value), "rate")


def _cost(value) -> str:
    """A cost in the file's units (the analyses never add a currency)."""
    return format_value(float(value), "cost")


NAME = "cost"
TITLE = "Cost and latency"
#: Computes a file read page by page (beyond the memory budget) with an engine: the engine
#: reads only the columns the analysis needs (:mod:`workbench.engines.project`).
LARGE_FILES = True
QUANTILES = (50, 95, 99)


@dataclass(frozen=True)
class Options:
    system: str | None = None
    success: str | None = None
    cost: str | None = None
    latency: str | None = None
    #: linear (numpy default, type 7) or nearest_rank (ceil(p N)-th smallest)
    percentile_method: str = "linear"
    #: column marking requests that ended with an error (default: promptfoo's 'error' column)
    error: str | None = None
    #: errored requests: exclude (left out) or failure (failed requests); their latency and
    #: cost are never used, either way
    errored: str = "exclude"
    #: the items of a file whose items were tried several times (set by the reading of the file):
    #: the success rate is then the mean over items of each item's share of successes
    item: str | None = None
    #: the effort of each request (optional): steps, tool calls, tokens
    steps: str | None = None
    tool_calls: str | None = None
    tokens: str | None = None
    input_tokens: str | None = None
    output_tokens: str | None = None
    #: the agent's working time per request (Inspect's working_time: without waits)
    working_time: str | None = None
    #: a reference ("ideal") number of steps per request: the steps' ratio to it
    ideal_steps: str | None = None
    #: bootstrap resamples and seed of the headline intervals (over requests)
    ci_resamples: int = hc.RESAMPLES
    ci_seed: int = hc.SEED
    #: what reads the file: memory (all of it), duckdb or spark (only the columns used), or
    #: auto (memory within the budget, DuckDB above it; :mod:`workbench.engines`)
    engine: str = "auto"
    spark_master: str = "local[2]"


ECDF_POINTS = 1000


def latency_ecdf(latency: np.ndarray, codes: np.ndarray, labels: list[str]) -> pd.DataFrame:
    """Sorted latencies and cumulative shares per system (at most ECDF_POINTS rows each)."""
    parts = []
    for s, label in enumerate(labels):
        values = np.sort(latency[codes == s])
        n = values.size
        idx = np.arange(n) if n <= ECDF_POINTS else np.unique(np.linspace(0, n - 1, ECDF_POINTS).astype(int))
        parts.append(pd.DataFrame({"system": label, "latency": values[idx], "fraction": (idx + 1) / n}))
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=["system", "latency", "fraction"])


def check_options(options: Options) -> None:
    """Every option's type and range, before any work (an :class:`OptionError` sentence)."""
    _checks.columns(options, ("system", "success", "cost", "latency", "error", "steps", "tool_calls", "tokens",
                              "input_tokens", "output_tokens", "working_time", "ideal_steps"))
    _rows.check(options.errored)
    _checks.choice("percentile_method", options.percentile_method, tuple(cm.PERCENTILE_METHODS))
    hc.check_resamples(options.ci_resamples, options.ci_seed)
    _engine.check_engine(options)


def _same_cost(a: float, b: float) -> bool:
    """Equal costs per request, up to the rounding of summing the same prices (1e-9 relative)."""
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=0.0)


def run(table: LoadedTable, options: Options = Options(), progress=NULL_PROGRESS) -> AnalysisResult:
    if getattr(table, "large", None) is not None:  # a file read page by page
        return _run_engine(_engine.of_large(table, options, TITLE), options, progress)
    return _engine.with_memory_notes(_run(table, options, progress), table, options)


def run_unloaded(paths, options: Options, progress=NULL_PROGRESS) -> AnalysisResult | None:
    """The command line's entry before any file is loaded: DuckDB (or Spark) reads only the
    columns used from a CSV or Parquet file (``engine='duckdb'``/``'spark'``, or ``'auto'`` over
    the memory budget); ``None``: load the file and call :func:`run`."""
    check_options(options)
    got = _engine.unloaded(paths, options)
    return None if got is None else _run_engine(got, options, progress)


def used_columns(table: LoadedTable, options: Options) -> dict[str, str]:
    """The columns the analysis reads (given, or guessed from their names as :func:`run`
    guesses them), each as ``"text"`` or ``"number"``."""
    res, quiet = Resolver(table), []
    used = {}
    for col, kind in ((res.optional(options.system, "system", "--system"), "text"),
                      (res.required(options.success, "success", "--success"), "text"),
                      (res.required(options.cost, "cost", "--cost"), "number"),
                      (res.optional(options.latency, "latency", "--latency"), "number"),
                      (_engine.error_column(table, options), "text")):
        if col is not None:
            used.setdefault(col, kind)
    efforts = [pick_column(table, getattr(options, measure), measure,
                           f"--{measure.replace('_', '-')}", quiet, names=names, required=False)
               for measure, names in EFFORT.items()]
    efforts.append(pick_column(table, options.ideal_steps, "ideal steps", "--ideal-steps", quiet,
                               names=IDEAL_STEPS, required=False))
    efforts += [c for c in map(str, table.frame.columns) if c.startswith("tool_calls.")]
    for col in efforts:
        if col is not None:
            used.setdefault(col, "number")
    return used


def _run_engine(got, options: Options, progress) -> AnalysisResult:
    """The engine reads the columns used (every row, in file order, the others never read);
    the analysis runs on them as on a loaded file."""
    from dataclasses import replace

    from ..io.formats import with_roles

    check_options(options)
    options, _ = with_roles(options, got.preview)
    table, note = _engine.project(got, options, used_columns(got.preview, options), progress)
    result = _run(table, options, progress, engine=got.engine)
    return replace(result, notes=(note,) + result.notes)


def _run(table: LoadedTable, options: Options, progress, engine: str = "memory") -> AnalysisResult:
    check_options(options)
    err = _rows.find(table, options.error, options.errored)
    full, errored = table, err.mask.copy()  # the spend counts every request, errored ones too
    if err.mode == "exclude":
        table = _rows.apply(table, err, [])
        measured = np.ones(len(table.frame), dtype=bool)
    else:  # failed requests: in the success rate; their latency and cost are never used
        measured = ~err.mask
    res = Resolver(table)
    sys_col = res.optional(options.system, "system", "--system")
    succ_col = res.required(options.success, "success", "--success")
    cost_col = res.required(options.cost, "cost", "--cost")
    lat_col = res.optional(options.latency, "latency", "--latency")
    notes = res.notes + err.note(failure_means="counted as failed requests (success 0); their "
                                               "latency and cost are not used")
    kept = np.flatnonzero(measured)
    part = table if kept.size == len(measured) else table.take(kept)
    y = np.zeros(len(measured), dtype=np.int64)
    y[kept] = to_binary(part, succ_col)
    cost = np.full(len(measured), np.nan)
    cost[kept] = to_float(part, cost_col, min_value=0)
    lat = None
    if lat_col:
        lat = np.full(len(measured), np.nan)
        lat[kept] = to_float(part, lat_col, min_value=0)
    if sys_col:  # codes in order of first appearance (no text per row)
        codes, labels = text_codes(table, sys_col)
        labels = [str(x) for x in labels]
    else:
        codes, labels = np.zeros(len(y), dtype=np.int64), (["(all)"] if len(y) else [])
    rows, records, ci_entries, short = [], [], [], []
    items = np.asarray(to_text(table, options.item), dtype=object) if options.item else None
    for s, label in enumerate(labels):
        progress.check_cancelled()
        m = codes == s
        n = int(m.sum())
        mm = m & measured  # the requests measured (all of them unless errored ones count as failures)
        nm = int(mm.sum())
        succ = int(y[m].sum())
        total = float(cost[mm].sum())
        per_request = total / nm if nm else float("nan")
        rate = succ / n
        rate_method = rate_interval_method(succ, n)
        low, high = proportion_interval(succ, n, rate_method)
        rate_n, rate_how = n, f"{rate_method}-95"
        if items is not None and len(set(items[m])) < n:  # repeated items: one item, one share
            rate, rate_n, low, high, rate_how = cost_spend.item_rate(y[m], items[m], options)
            rate_method = "bootstrap"
        row = {"system": label, "requests": n, "successes": succ, "success_rate": rate,
               "ci_low": float(low), "ci_high": float(high), "total_cost": total,
               "cost_per_request": per_request, "cost_per_success": cm.cost_per_success(total, succ)}
        if not measured.all():
            row["measured"] = nm
        sys_name = label if sys_col else None
        records.append(record("success_rate", rate, system=sys_name, n=rate_n, ci_low=low, ci_high=high,
                              ci_method=rate_how))
        cpr_ci, cps_ci = _cost_cis(cost[mm], np.where(mm, np.nan_to_num(cost), 0.0)[m], y[m], options)
        records.append(record("cost_per_request", per_request, system=sys_name, n=nm, **_intervals.fields(cpr_ci)))
        records.append(record("cost_per_success", row["cost_per_success"], system=sys_name, n=succ,
                              **_intervals.fields(cps_ci)))
        ci_entries += [(_intervals.who("cost_per_request", sys_name), cpr_ci),
                       (_intervals.who("cost_per_success", sys_name), cps_ci)]
        if rate_method == "clopper-pearson":
            ci_entries.append((_intervals.who("success_rate", sys_name), hc.MeanCI(
                rate, n, low, high, float("nan"), float("nan"), False, rate_method)))
        if succ == 0:
            notes.append(f"System '{label}' has no success in {plural(n, 'request')}: its cost per success is "
                         f"undefined (shown empty), not zero.")
        if lat is not None:
            pcts = (cm.percentiles(lat[mm], QUANTILES, method=options.percentile_method) if nm
                    else [float("nan")] * len(QUANTILES))
            for q, v in zip(QUANTILES, pcts):
                row[f"latency_p{q}"] = float(v)
                records.append(record(f"latency_p{q}", v, system=sys_name, n=nm,
                                      **_quantile_fields(lat[mm], q, f"latency_p{q}", label, short)))
            if nm < 100:
                top = max(1, int(np.ceil(nm * 0.01)))
                notes.append(f"System '{label}' has {plural(nm, 'request')}"
                             f"{' measured' if nm < n else ''}; its p99 latency rests on the "
                             f"top {plural(top, 'value')} and is not a stable estimate.")
        row["ci_method"] = rate_how  # last: the columns before keep their places
        if rate_n != n:
            row["items"] = rate_n
        rows.append(row)
    if lat is None:
        notes.append("No latency column was given or found: latency percentiles are left out.")
    else:
        ecdf = latency_ecdf(lat[measured], codes[measured], labels)
    per_system = pd.DataFrame(rows)

    # each system's cost per success as a multiple of every other's (the card's "0.92 times")
    for ra in rows:
        for rb in rows:
            if ra is not rb and math.isfinite(ra["cost_per_success"]) and ra["cost_per_success"] > 0 \
                    and math.isfinite(rb["cost_per_success"]):
                records.append(record("cost_per_success_ratio", rb["cost_per_success"] / ra["cost_per_success"],
                                      from_=ra["system"], to=rb["system"]))
    # cheaper -> dearer, every pair; at the same cost per request, the more successful first
    order = sorted(range(len(rows)), key=lambda i: (rows[i]["cost_per_request"],
                                                    -rows[i]["success_rate"], rows[i]["system"]))
    pairs = []
    for a_pos, a in enumerate(order):
        for b in order[a_pos + 1:]:
            ra, rb = rows[a], rows[b]
            same = _same_cost(ra["cost_per_request"], rb["cost_per_request"])
            if same and rb["success_rate"] > ra["success_rate"]:  # sorted apart by rounding only
                ra, rb = rb, ra
            extra_cost = 0.0 if same else rb["cost_per_request"] - ra["cost_per_request"]
            gain = rb["success_rate"] - ra["success_rate"]
            if same:  # no price to pay: the less successful one is dominated, or they are alike
                price, dominated = float("nan"), bool(gain < 0)
            else:
                price, dominated = cm.marginal_cost(ra["cost_per_request"], ra["success_rate"],
                                                    rb["cost_per_request"], rb["success_rate"])
            pairs.append({"from": ra["system"], "to": rb["system"],
                          "extra_cost_per_request": extra_cost,
                          "extra_success_rate": gain,
                          "marginal_cost_per_success": price, "dominated": dominated})
            records.append(record("marginal_cost_per_success", price, from_=ra["system"],
                                  to=rb["system"], n=min(ra["requests"], rb["requests"])))
            records.append(record("dominated", dominated, from_=ra["system"], to=rb["system"]))
            rates = f"{_rate(rb['success_rate'])} vs {_rate(ra['success_rate'])}"
            if same and dominated:
                notes.append(f"'{rb['system']}' costs the same per request as '{ra['system']}' "
                             f"({_cost(rb['cost_per_request'])}) and succeeds less often ({rates}): "
                             f"it is dominated.")
            elif same:
                notes.append(f"'{ra['system']}' and '{rb['system']}' cost the same per request "
                             f"({_cost(ra['cost_per_request'])}) and succeed equally often "
                             f"({_rate(ra['success_rate'])}): neither is dominated, and there is no "
                             f"extra success to price.")
            elif dominated:
                notes.append(f"'{rb['system']}' costs more per request than '{ra['system']}' "
                             f"({_cost(rb['cost_per_request'])} vs {_cost(ra['cost_per_request'])}) and "
                             f"succeeds no more often ({rates}): it is dominated, so no price per "
                             f"extra success is given.")
    effort_tables, effort_sig = _effort(table, options, res, measured, codes, labels, y, records, notes)
    spend_records, spend_tables, spend_notes = cost_spend.spend(full, options, sys_col, labels, errored)
    records += spend_records
    notes += spend_notes
    effort_tables = list(effort_tables) + spend_tables
    notes += _intervals.notes(ci_entries, "requests") + _quantile_notes(short)
    sig = base_signature(NAME)
    sig.update({
        "cps": "total-cost/successes", "cpr": "mean",
        "ci": _intervals.RATE_WORDS,
        "ci-cpr": f"bootstrap-percentile-95,B={options.ci_resamples},seed={options.ci_seed},over:requests"
                  + _intervals.BUDGET + "," + _intervals.T_WORDS,
        "ci-cps": f"ratio-bootstrap-percentile-95,B={options.ci_resamples},seed={options.ci_seed}"
                  + _intervals.BUDGET,
        "ci-pct": "order-statistic-95,distribution-free",
        "pct": options.percentile_method if lat is not None else "none",
        "marginal": "dcost/drate,cheaper->dearer,all-pairs",
        "same-cost": "rel-1e-9,less-successful-dominated", "units": "as-in-file",
        **({"errored": "excluded" if err.mode == "exclude" else "failures,no-latency-no-cost"}
           if err.active else {}),
        **({"rate": "mean-over-items-of-item-shares,ci:bootstrap-percentile-95-over-items",
            "spend": "every-request,errored-included"} if items is not None else
           ({"spend": "every-request,errored-included"} if spend_tables else {})),
        "engine": engine,
    })
    fmt = {"success_rate": "rate", "ci_low": "rate", "ci_high": "rate", "ci_method": "text", "total_cost": "money",
           "cost_per_request": "money", "cost_per_success": "money", "requests": "int", "measured": "int",
           "successes": "int", **{f"latency_p{q}": "float" for q in QUANTILES}}
    tables = [
        Table("systems", "Quality, cost and latency per system", per_system, columns={
            "cost_per_request": "total cost / requests (measured requests: errored ones have no cost)",
            "measured": "requests that did not end with an error (latency and cost are theirs)",
            "cost_per_success": "total cost / successes",
            "ci_low": "95% interval of the success rate, low (its method in ci_method)",
            **{f"latency_p{q}": f"p{q} latency ({options.percentile_method} percentile)"
               for q in QUANTILES},
        }, formats=fmt),
    ]
    if lat is not None:
        tables.append(Table("latency_ecdf", "Latency distribution (empirical CDF)", ecdf, columns={
            "fraction": "share of the system's requests with latency at or below this value",
        }, formats={"fraction": "rate", "latency": "float"}))
    if pairs:
        tables.append(Table("marginal", "Marginal cost per extra success (cheaper -> dearer)",
                            pd.DataFrame(pairs), columns={
                                "marginal_cost_per_success": "extra cost per request / extra success rate",
                            }, formats={"extra_cost_per_request": "money", "extra_success_rate": "rate",
                                        "marginal_cost_per_success": "money"}))
    tables += effort_tables
    sig.update(effort_sig)
    if len(rows) > 1 and all(r.get("measured", 1) for r in rows):
        # bootstrap intervals of the differences (of measured requests): workbench/analyses/paired.py
        from .paired import cost_differences
        diff_table, diff_records, sig["diffs"] = cost_differences(
            cost[measured], None if lat is None else lat[measured], codes[measured], labels, order,
            options.percentile_method)
        tables.append(diff_table)
        records += diff_records
    return AnalysisResult(NAME, signature(sig), tuple(records), tuple(tables), tuple(notes), table.path)


def _ideal_ratio(table, options, steps_col, part, kept, measured, codes, labels, records, notes):
    """Each request's steps over its reference ("ideal") steps, per system: the mean ratio with
    its t interval and the ratio of the totals; None without an ideal-steps column."""
    col = pick_column(table, options.ideal_steps, "ideal steps", "--ideal-steps", notes, names=IDEAL_STEPS,
                      required=False)
    if col is None:
        return None
    steps = np.full(len(measured), np.nan)
    ideal = np.full(len(measured), np.nan)
    steps[kept] = to_float(part, steps_col, allow_missing=True, min_value=0)
    ideal[kept] = to_float(part, col, allow_missing=True, min_value=0)
    rows = []
    for s, label in enumerate(labels):
        m = (codes == s) & measured & np.isfinite(steps) & np.isfinite(ideal) & (ideal > 0)
        if not m.any():
            continue
        ratio = steps[m] / ideal[m]
        t = pm.paired_t(ratio)
        kw = {"system": label} if len(labels) > 1 or label != "(all)" else {}
        two = ratio.size > 1
        low, high = nonnegative_t(t) if two else (None, None)
        records.append(record("steps_to_ideal", float(ratio.mean()), n=int(ratio.size),
                              ci_low=low, ci_high=high, ci_method=EFFORT_T if two else None, **kw))
        rows.append({"system": label, "requests": int(ratio.size), "mean_ratio": float(ratio.mean()),
                     "ci_low": low if two else np.nan, "ci_high": high if two else np.nan,
                     "total_ratio": float(steps[m].sum() / ideal[m].sum())})
    if not rows:
        return None
    return rows, {"ideal-steps": f"column:{col},mean(steps/ideal),t-95,clipped-at-0,ideal>0"}


#: The effort measures and the column names guessed for each (after the format's roles).
#: the interval of an effort's mean per request: the t interval, its low end clipped at 0 (steps,
#: tool calls, tokens and time are never negative; the t interval of a skewed few can reach below)
EFFORT_T = "t-95,clipped-at-0"


def nonnegative_t(t) -> tuple[float, float]:
    """The t interval of a mean of quantities that are never negative, clipped at 0 below."""
    return max(0.0, float(t.ci_low)), float(t.ci_high)


EFFORT = {"steps": ("steps", "num_steps", "n_steps", "turns"),
          "tool_calls": ("tool_calls", "num_tool_calls", "n_tool_calls", "tools_called"),
          "tokens": ("total_tokens", "tokens", "tokens_total", "token_count"),
          "input_tokens": ("input_tokens", "prompt_tokens", "tokens_in"),
          "output_tokens": ("output_tokens", "completion_tokens", "tokens_out"),
          "working_time": ("working_time", "work_time", "agent_time")}
IDEAL_STEPS = ("ideal_steps", "reference_steps", "optimal_steps", "min_steps")


def _effort(table, options, res, measured, codes, labels, y, records, notes):
    """Steps, tool calls and tokens per request (the measured ones) and per success: for each
    system the mean (t 95% interval), median and p95 per request, and total / successes (every
    attempt's effort counts, the divisor is the successes, as for the cost); calls per tool when
    the file has ``tool_calls.<name>`` columns.  Returns (tables, signature entries)."""
    cols = {}
    for measure, names in EFFORT.items():
        col = pick_column(table, getattr(options, measure), measure, f"--{measure.replace('_', '-')}", notes,
                          names=names, required=False)
        if col is not None:
            cols[measure] = col
    if not cols:
        return [], {}
    kept = np.flatnonzero(measured)
    part = table if kept.size == len(measured) else table.take(kept)
    rows, short = [], []
    for measure, col in cols.items():
        values = np.full(len(measured), np.nan)
        values[kept] = to_float(part, col, allow_missing=True, min_value=0)
        for s, label in enumerate(labels):
            m = (codes == s) & measured & np.isfinite(values)
            x = values[m]
            succ = int(y[codes == s].sum())
            kw = {"system": label} if len(labels) > 1 or label != "(all)" else {}
            if x.size == 0:
                continue
            t = pm.paired_t(x)
            p50, p95 = np.percentile(x, [50, 95], method=cm.PERCENTILE_METHODS[options.percentile_method])
            per_success = float(x.sum() / succ) if succ else float("nan")
            low, high = nonnegative_t(t) if x.size > 1 else (None, None)
            records += [record(f"{measure}_mean", float(x.mean()), n=int(x.size), ci_low=low, ci_high=high,
                               ci_method=EFFORT_T if x.size > 1 else None, **kw),
                        *_effort_interval_records(measure, x, (p50, p95), per_success,
                                                  np.where(m, np.nan_to_num(values), 0.0)[codes == s],
                                                  y[codes == s], label, options, short, kw)]
            if not succ:
                notes.append(f"System '{label}' has no success: its {measure.replace('_', ' ')} per success is "
                             f"undefined (shown empty), not a division by zero.")
            rows.append({"system": label, "measure": measure, "column": col, "requests": int(x.size),
                         "mean": float(x.mean()), "ci_low": low, "ci_high": high, "median": float(p50),
                         "p95": float(p95), "total": float(x.sum()), "successes": succ,
                         "per_success": per_success})
    tables = [Table("effort", "Steps, tool calls and tokens per request and per success", pd.DataFrame(rows), columns={
        "mean": "mean per request (t 95% interval)", "per_success": "total over every request / successes",
        "ci_low": "t 95% interval of the mean, low, clipped at 0", "ci_high": "t 95% interval of the mean, high",
        "median": f"p50 per request ({options.percentile_method})", "p95": f"p95 per request ({options.percentile_method})"},
        formats={"mean": "float", "ci_low": "float", "ci_high": "float", "median": "float", "p95": "float",
                 "total": "float", "per_success": "float", "requests": "int", "successes": "int"})]
    tool_cols = [c for c in map(str, table.frame.columns) if c.startswith("tool_calls.")]
    if tool_cols:
        trows = []
        calls = {c[len("tool_calls."):]: to_float(part, c, allow_missing=True) for c in tool_cols}  # measured rows
        part_codes = codes[kept]
        for s, label in enumerate(labels):
            counts = {name: v[part_codes == s] for name, v in calls.items()}
            total = sum(float(np.nansum(v)) for v in counts.values())
            for name, v in counts.items():
                v = v[np.isfinite(v)]
                if not v.size:
                    continue
                p50, p95 = np.percentile(v, [50, 95])
                trows.append({"system": label, "tool": name, "calls": float(v.sum()),
                              "share": float(v.sum() / total) if total else float("nan"),
                              "per_request_p50": float(p50), "per_request_p95": float(p95)})
                kw = {"system": label} if len(labels) > 1 or label != "(all)" else {}
                records += [  # calls per tool, as the table gives them (n: the requests)
                    record(f"tool_calls:{name}", int(v.sum()) if float(v.sum()).is_integer() else float(v.sum()),
                           n=int(v.size), **kw),
                    record(f"tool_share:{name}", float(v.sum() / total) if total else None, n=int(v.size), **kw),
                    record(f"tool_calls_p50:{name}", float(p50), n=int(v.size), **kw),
                    record(f"tool_calls_p95:{name}", float(p95), n=int(v.size), **kw)]
        tables.append(Table("tools", "Calls per tool", pd.DataFrame(trows),
                            columns={"share": "this tool's calls / all tool calls of the system"},
                            formats={"calls": "int", "share": "rate", "per_request_p50": "float",
                                     "per_request_p95": "float"}))
    sig_extra = {}
    if "steps" in cols:
        ideal = _ideal_ratio(table, options, cols["steps"], part, kept, measured, codes, labels, records, notes)
        if ideal:
            rows_ideal, sig_extra = ideal
            tables.append(Table("ideal_steps", "Steps against the reference (ideal) steps", pd.DataFrame(rows_ideal),
                                columns={"mean_ratio": "mean over requests of steps / ideal steps (t 95% interval)",
                                         "total_ratio": "all steps / all ideal steps"},
                                formats={"mean_ratio": "float", "ci_low": "float", "ci_high": "float",
                                         "total_ratio": "float", "requests": "int"}))
    if len(labels) > 1 and "steps" in cols:
        by = {r["system"]: r for r in rows if r["measure"] == "steps"}
        parts = [f"'{k}' {format_value(v['per_success'], 'statistic')} steps per success"
                 for k, v in by.items() if math.isfinite(v["per_success"])]
        if parts:
            notes.append("Effort: " + ", ".join(parts) + " (every attempt's steps over the successes).")
    notes += _quantile_notes(short)
    return tables, {**sig_extra, "effort": ",".join(cols), "effort-per-success": "total/successes",
                    "effort-ci": EFFORT_T, "effort-ci-pct": "order-statistic-95",
                    "effort-ci-per-success": f"ratio-bootstrap-percentile-95,B={options.ci_resamples},"
                                             f"seed={options.ci_seed}"}



def _cost_cis(measured_cost: np.ndarray, cost_or_zero: np.ndarray, success: np.ndarray, options: Options):
    """The intervals of the cost per request (bootstrap over the measured requests, t beside) and
    of the cost per success (ratio bootstrap over the requests: a request's cost, 0 when not
    measured, and its success resampled together)."""
    # every request measured: the ratio's draws over the sorted costs are the mean's own, so
    # one bootstrap gives both (the same numbers as two, in half the time on a large file)
    if measured_cost.size == cost_or_zero.size:
        cps, cost_means = _ratio_ci(cost_or_zero, success, options, with_numerator=True)
    else:
        cps, cost_means = _ratio_ci(cost_or_zero, success, options), None
    cpr = hc.mean_intervals({"c": measured_cost}, resamples=options.ci_resamples, seed=options.ci_seed,
                            samples=cost_means, rates=False)["c"]
    return cpr, cps


def _ratio_ci(cost_or_zero: np.ndarray, success: np.ndarray, options: Options,
              with_numerator: bool = False):
    """The ratio bootstrap of sum(cost) / sum(success) over requests (``with_numerator``:
    with the bootstrap means of the costs, or None, as :func:`hc.ratio_bootstrap`)."""
    total, succ = float(cost_or_zero.sum()), float(success.sum())
    value = total / succ if succ else float("nan")
    if not succ:
        ci = hc.MeanCI(value, 0, float("nan"), float("nan"), float("nan"), float("nan"), False,
                       "ratio-bootstrap-percentile")
        return (ci, None) if with_numerator else ci
    samples = hc.ratio_bootstrap(cost_or_zero, success.astype(float), resamples=options.ci_resamples,
                                 seed=options.ci_seed, with_numerator=with_numerator)
    samples, means = samples if with_numerator else (samples, None)
    degenerate = hc.is_degenerate(samples, value)
    low, high = (float("nan"),) * 2 if degenerate else hc.percentile_interval(samples)
    ci = hc.MeanCI(value, int(succ), low, high, float("nan"), float("nan"), degenerate,
                   "ratio-bootstrap-percentile-95", len(samples))
    return (ci, means) if with_numerator else ci


def _quantile_fields(values: np.ndarray, q: float, metric: str, label: str, short: list) -> dict:
    """The order-statistic interval of a percentile as record fields; an end the requests are too
    few to give is left out, and ``short`` collects a note."""
    low, high = hc.quantile_interval(values, q / 100.0)
    out: dict = {"ci_method": "order-statistic-95"}
    if math.isfinite(low) and math.isfinite(high):
        out.update(ci_low=low, ci_high=high)
    else:
        short.append((metric, label, values.size, hc.quantile_interval_size(q / 100.0)))
    return out


def _quantile_notes(short: list) -> list[str]:
    return [f"System '{label}': {plural(n, 'request')} are too few for a distribution-free 95% interval "
            f"of its {metric.replace('_', ' ')} (it needs at least {need:,}); none is shown."
            for metric, label, n, need in short]


def _effort_interval_records(measure, x, pcts, per_success, effort_or_zero, success, label, options, short,
                             kw) -> list[dict]:
    """An effort measure's p50 and p95 per request (order-statistic intervals) and its total per
    success (ratio bootstrap over the requests)."""
    succ = int(success.sum())
    return [record(f"{measure}_p{q}", float(v), n=int(x.size),
                   **_quantile_fields(x, q, f"{measure}_p{q}", label, short), **kw) for q, v in zip((50, 95), pcts)] + [
        record(f"{measure}_per_success", per_success if succ else None, n=succ,
               **_intervals.fields(_ratio_ci(effort_or_zero, success, options)), **kw)]
