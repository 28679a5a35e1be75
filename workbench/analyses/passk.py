"""pass@k and pass^k: from per-task counts (n, c) or from per-attempt rows (task, success)."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from ..core.errors import DataError, OptionError
from ..core.numbers import of_total, plural, verb
from ..core.progress import NULL_PROGRESS
from ..core.result import AnalysisResult, Table, record, signature
from ..io import LoadedTable, guess_column, to_binary, to_float, to_text
from ..metrics import headline_ci as hc
from ..metrics import passk as pk
from ..metrics.intervals import implied_per_try_rate
from . import _checks, _engine, _intervals, _rows
from ._common import ROLE_NAMES, Resolver, base_signature, check_unique, parse_ks, system_column

NAME = "passk"
TITLE = "pass@k and pass^k"
#: Computes a file read page by page (beyond the memory budget) with an engine.
LARGE_FILES = True
#: Most attempts one task may have in the counts form: the estimators multiply up to n factors
#: per task, so this bounds their work and memory (per-attempt rows are bounded by the file).
MAX_ATTEMPTS = 1_000_000


@dataclass(frozen=True)
class Options:
    task: str | None = None
    n: str | None = None
    correct: str | None = None
    success: str | None = None
    system: str | None = None
    #: the values of k; "auto": every k from 1 to the most attempts a task has (up to 10), then
    #: 20, 50, 100... up to it
    ks: tuple[int, ...] | str = "auto"
    #: column marking rows that ended with an error (default: the file format's 'error' column)
    error: str | None = None
    #: errored rows: exclude (left out, as Inspect does) or failure (counted as failed attempts)
    errored: str = "exclude"
    #: bootstrap resamples and seed of the headline intervals (over tasks)
    ci_resamples: int = hc.RESAMPLES
    ci_seed: int = hc.SEED
    #: what counts the attempts per task: memory, duckdb, spark, or auto (memory within the
    #: budget, DuckDB above it; :mod:`workbench.engines`)
    engine: str = "auto"
    spark_master: str = "local[2]"


def _counts(table: LoadedTable, options: Options, res: Resolver, err: "_rows.Errored"):
    """Per (system, task): n and c, and the input form used."""
    task_col = res.required(options.task, "task", "--task")
    options, use_counts = _form(table, options, res)
    sys_col = system_column(table, options.system, _taken(options, task_col), res.notes, varying=False)
    keys = ([sys_col] if sys_col else []) + [task_col]
    if use_counts:
        if err.mode == "failure" and err.count:
            raise DataError(f"File '{table.name}' gives attempts and passes per task (counts), so "
                            f"its {err.count} errored rows cannot be counted as failed attempts; "
                            "leave them out (--errors exclude) or give one row per attempt.")
        n_col = res.required(options.n, "n", "--n")
        c_col = res.required(options.correct, "correct", "--correct")
        check_unique(table, keys, "task")
        n = to_float(table, n_col, min_value=0)
        c = to_float(table, c_col, min_value=0)
        check_counts(n, c, n_col, c_col, table.name, table.describe_rows)
        frame = pd.DataFrame({"task": to_text(table, task_col), "n": n.astype(np.int64),
                              "c": c.astype(np.int64)})
        if sys_col:
            frame.insert(0, "system", to_text(table, sys_col))
        return frame, "counts"
    s_col = res.required(options.success, "success", "--success")
    if err.mode == "failure":  # errored attempts as failures (excluded ones are gone already)
        table = _rows.apply(table, err, [s_col])
    success = to_binary(table, s_col)
    frame = pd.DataFrame({"task": to_text(table, task_col), "s": success.astype(np.int64)})
    if sys_col:
        frame.insert(0, "system", to_text(table, sys_col))
    grouped = frame.groupby((["system"] if sys_col else []) + ["task"], sort=False)["s"]
    out = grouped.agg(n="size", c="sum").reset_index()
    return out, "attempts"


def _taken(options: Options, *columns) -> tuple:
    """The columns given or guessed for another part than the system."""
    return tuple(c for c in (*columns, options.n, options.correct, options.success, options.error) if c)


def _form(table: LoadedTable, options: Options, res: Resolver) -> tuple[Options, bool]:
    """Whether the table gives counts per task (n and c, given or guessed from their names)."""
    use_counts = options.n is not None or options.correct is not None
    if not use_counts and options.success is None:
        n_guess = guess_column(table, "n", ROLE_NAMES["n"])
        c_guess = guess_column(table, "correct", ROLE_NAMES["correct"])
        if n_guess and c_guess and n_guess != c_guess:
            use_counts = True
            options = replace(options, n=n_guess, correct=c_guess)
            res.notes.append(f"Columns '{n_guess}' and '{c_guess}' were taken as the per-task "
                             f"attempts n and passes c (guessed from their names; set --n and "
                             f"--correct, or --success for per-attempt rows).")
    return options, use_counts


def check_counts(n: np.ndarray, c: np.ndarray, n_col: str, c_col: str, name: str,
                 describe_rows) -> None:
    """Whole numbers of attempts and passes, at most :data:`MAX_ATTEMPTS` attempts, c <= n: one
    sentence naming the file, column and rows (``describe_rows(positions)``) otherwise."""
    for col, vals in ((n_col, n), (c_col, c)):
        frac = np.flatnonzero(vals != np.round(vals))
        if frac.size:
            raise DataError(f"File '{name}', column '{col}' must hold whole numbers of "
                            f"attempts; found {vals[frac[0]]:g} on {describe_rows(frac[:1])}.")
    big = np.flatnonzero(n > MAX_ATTEMPTS)
    if big.size:
        raise DataError(f"File '{name}', column '{n_col}' has {big.size} task(s) with more "
                        f"than {MAX_ATTEMPTS:,} attempts (for example {n[big[0]]:g} on "
                        f"{describe_rows(big[:1])}); the attempts per task must be at most "
                        f"{MAX_ATTEMPTS:,}.")
    bad = np.flatnonzero(c > n)
    if bad.size:
        raise DataError(f"File '{name}' has {bad.size} task(s) with more passes than "
                        f"attempts (column '{c_col}' > column '{n_col}') on "
                        f"{describe_rows(bad)}; c must be between 0 and n.")


def check_options(options: Options) -> tuple[int, ...]:
    """Every option's type and range, before any work; returns the values of k."""
    _checks.columns(options, ("task", "n", "correct", "success", "system", "error"))
    _rows.check(options.errored)
    _engine.check_engine(options)
    hc.check_resamples(options.ci_resamples, options.ci_seed)
    if isinstance(options.ks, str) and options.ks.strip().lower() == AUTO:
        return None
    ks = parse_ks(options.ks)
    if ks[-1] > MAX_ATTEMPTS:
        raise OptionError(f"Every `k` must be a whole number from 1 to {MAX_ATTEMPTS:,} (the most "
                          f"attempts a task may have); got k={ks[-1]}.")
    return ks


AUTO = "auto"


def auto_ks(max_n: int) -> tuple[int, ...]:
    """Every k from 1 to the most attempts a task has (up to 10), then 20, 50, 100, 200, 500
    and 1,000 where a task has that many: each k the data can estimate."""
    top = max(1, int(max_n))
    return tuple(range(1, min(top, 10) + 1)) + tuple(k for k in (20, 50, 100, 200, 500, 1000) if k <= top)


def _estimate(fn, n: np.ndarray, c: np.ndarray, k: int) -> np.ndarray:
    """``fn(n, c, k)`` per task, NaN where n < k; a k above every n does no work at all, so
    memory follows the data, never the value of k."""
    if n.size == 0 or k > int(n.max()):
        return np.full(n.shape, np.nan)
    return fn(n, c, k)


def run(table: LoadedTable, options: Options = Options(), progress=NULL_PROGRESS) -> AnalysisResult:
    if getattr(table, "large", None) is not None:  # a file read page by page: the engine counts
        return _run_engine(_engine.of_large(table, options, TITLE), options, progress)
    ks = check_options(options)
    err = _rows.find(table, options.error, options.errored)
    if err.mode == "exclude":
        table = _rows.apply(table, err, [])
    res = Resolver(table)
    counts, form = _counts(table, options, res, err)
    return _result(counts, form, list(res.notes) + _engine.memory_notes(table, options), err,
                   options, ks, progress, table.path)


def run_unloaded(paths, options: Options, progress=NULL_PROGRESS) -> AnalysisResult | None:
    """The command line's entry before any file is loaded: DuckDB (or Spark) counts the
    attempts of a CSV or Parquet file itself with ``engine='duckdb'`` (``'spark'``), or with
    ``'auto'`` over the memory budget; ``None``: load the file and call :func:`run`."""
    check_options(options)
    got = _engine.unloaded(paths, options)
    return None if got is None else _run_engine(got, options, progress)


def _run_engine(got, options: Options, progress) -> AnalysisResult:
    """The counts per (system, task) from the engine, then the analysis as in memory."""
    from ..io.formats import with_roles

    ks = check_options(options)
    preview = got.preview
    options, _ = with_roles(options, preview)
    res = Resolver(preview)
    task_col = res.required(options.task, "task", "--task")
    err_col = _engine.error_column(preview, options)
    options, use_counts = _form(preview, options, res)
    # the systems of the file's head (as Aggregation's engine way decides them)
    sys_col = system_column(preview, options.system, _taken(options, task_col, err_col), res.notes, varying=False)
    keys = [sys_col, task_col]
    if use_counts:
        n_col = res.required(options.n, "n", "--n")
        c_col = res.required(options.correct, "correct", "--correct")
        keys, sums, s_col = keys + [err_col], [n_col, c_col], None
    else:
        s_col = res.required(options.success, "success", "--success")
        keys, sums, n_col, c_col = keys + [s_col, err_col], (), None, None

    def counted(tallied):
        return _tallied_counts(tallied, got, options, err_col, sys_col, task_col, s_col, n_col,
                               c_col)

    (counts, form, err), engine_note = _engine.tally(got, options, keys, sums, progress,
                                                     "the table of attempts per task", counted)
    return _result(counts, form, list(res.notes) + [engine_note], err, options, ks, progress,
                   got.source.path, engine=got.engine)


def _tallied_counts(tallied, got, options, err_col, sys_col, task_col, s_col, n_col, c_col):
    """The engine's counts as the in-memory counts per (system, task), the form and the
    errored rows."""
    use_counts = s_col is None
    bad, err = _engine.errored(tallied, err_col, options.errored)
    frame = tallied.frame
    if use_counts:
        if err.mode == "failure" and err.count:
            raise DataError(f"File '{got.source.name}' gives attempts and passes per task (counts), "
                            f"so its {err.count} errored rows cannot be counted as failed "
                            "attempts; leave them out (--errors exclude) or give one row per "
                            "attempt.")
        frame = frame[~bad]
        counts = _engine_counts(frame, tallied, sys_col, task_col, n_col, c_col)
        form = "counts"
    else:
        ok = ~bad
        success = _engine.decode_binary(tallied, s_col, keep=ok)
        s = np.where(ok, success, 0)  # errored attempts as failures (excluded ones dropped)
        keep = ok | (err.mode == "failure")
        part = pd.DataFrame({"task": frame[task_col].to_numpy(dtype=object),
                             "w": frame["w"].to_numpy(), "s": s * frame["w"].to_numpy(),
                             "first": frame["first_rn"].to_numpy()})[keep]
        if sys_col:
            part.insert(0, "system", frame[sys_col].to_numpy(dtype=object)[keep])
        by = (["system"] if sys_col else []) + ["task"]
        counts = (part.groupby(by, sort=False).agg(n=("w", "sum"), c=("s", "sum"),
                                                   first=("first", "min"))
                  .sort_values("first", kind="stable").drop(columns="first").reset_index())
        counts["n"] = counts["n"].astype(np.int64)
        counts["c"] = counts["c"].astype(np.int64)
        form = "attempts"
    return counts, form, err


def _engine_counts(frame: pd.DataFrame, tallied, sys_col, task_col, n_col, c_col) -> pd.DataFrame:
    """The engine's per-task rows checked as the in-memory counts form checks them."""
    by = ([sys_col] if sys_col else []) + [task_col]
    repeated = frame[frame.duplicated(subset=by, keep=False)]
    if len(repeated) or (frame["w"] > 1).any():
        first = repeated.iloc[0] if len(repeated) else frame[frame["w"] > 1].iloc[0]
        value = ", ".join(f"{k}={first[k]}" for k in by)
        rows = int(frame.loc[(frame[by] == first[by]).all(axis=1), "w"].sum())
        raise DataError(f"File '{tallied.path}' has {rows} rows that repeat a task ({value} "
                        f"appears first on {tallied.describe_rows([first['first_rn']])}); each "
                        f"task must appear once.")
    n = frame[f"sum:{n_col}"].to_numpy(dtype=float)
    c = frame[f"sum:{c_col}"].to_numpy(dtype=float)
    for column in (n_col, c_col):
        tallied.refuse_negative(column)
    rows = frame["first_rn"].to_numpy()
    check_counts(n, c, n_col, c_col, tallied.path,
                 lambda idx: tallied.describe_rows(rows[np.asarray(idx)[:5]]))
    out = pd.DataFrame({"task": frame[task_col].to_numpy(dtype=object),
                        "n": n.astype(np.int64), "c": c.astype(np.int64)})
    if sys_col:
        out.insert(0, "system", frame[sys_col].to_numpy(dtype=object))
    return out


def _result(counts: pd.DataFrame, form: str, notes: list[str], err, options: Options, ks,
            progress, path: str, engine: str = "memory") -> AnalysisResult:
    """The estimates, intervals, notes and tables from the counts per (system, task)."""
    progress.advance(0.3, "estimating")
    has_sys = "system" in counts
    systems = list(dict.fromkeys(counts["system"])) if has_sys else [None]
    n_all = counts["n"].to_numpy()
    c_all = counts["c"].to_numpy()
    auto = ks is None
    if auto:
        ks = auto_ks(int(n_all.max()) if n_all.size else 1)
    per_task = counts.copy()
    for k in ks:
        per_task[f"pass@{k}"] = _estimate(pk.pass_at_k, n_all, c_all, k)
        per_task[f"pass^{k}"] = _estimate(pk.pass_hat_k, n_all, c_all, k)
    records, summary_rows, ci_entries = [], [], []
    notes = notes + err.note(failure_means="counted as failed attempts (success 0)")
    for label in systems:
        progress.check_cancelled()
        m = (counts["system"] == label).to_numpy() if has_sys else np.ones(len(counts), bool)
        n, c = n_all[m], c_all[m]
        who = f"system '{label}': " if label is not None else ""
        for k in ks:
            ok = n >= k
            used = int(ok.sum())
            unb = _estimate(pk.pass_at_k, n, c, k)[ok]
            unb_hat = _estimate(pk.pass_hat_k, n, c, k)[ok]
            naive = pk.naive_pass_at_k(n, c, k)[ok]
            naive_hat = pk.naive_pass_hat_k(n, c, k)[ok]
            row = {
                "system": label if label is not None else "(all)", "k": k, "tasks": used,
                "left_out": int((~ok).sum()),
                "pass@k": _mean(unb), "pass^k": _mean(unb_hat),
                "naive_pass@k": _mean(naive), "naive_pass^k": _mean(naive_hat),
            }
            row["per_try_p"] = (float(implied_per_try_rate(row["pass@k"], k))
                                if np.isfinite(row["pass@k"]) else float("nan"))
            summary_rows.append(row)
            cis = _intervals.mean_cis({"pass@k": unb, "pass^k": unb_hat, "naive_pass@k": naive,
                                       "naive_pass^k": naive_hat},
                                      resamples=options.ci_resamples, seed=options.ci_seed)
            cis["per_try_p"] = _per_try_ci(cis["pass@k"], k)
            for metric, key in ((f"pass@{k}", "pass@k"), (f"pass^{k}", "pass^k"),
                                (f"naive_pass@{k}", "naive_pass@k"), (f"naive_pass^{k}", "naive_pass^k"),
                                (f"per_try_p@{k}", "per_try_p")):
                records.append(record(metric, row[key], system=label, k=k, n=used,
                                      **_intervals.fields(cis[key])))
                if key != "per_try_p":
                    ci_entries.append((_intervals.who(metric, label), cis[key]))
            if used < len(n):
                notes.append(f"{who}{of_total(len(n) - used, len(n), 'task')} "
                             f"{verb(len(n) - used, 'has', 'have')} fewer than {k} attempts "
                             f"(n < k) and {verb(len(n) - used, 'is', 'are')} left out of pass@{k} and pass^{k}; they are never "
                             f"scored 1.0.")
    notes += _intervals.notes(ci_entries, "tasks")
    curve = _curve(counts, systems, has_sys)
    zero_n = int((n_all == 0).sum())
    if zero_n:
        notes.append(f"{plural(zero_n, 'task')} {verb(zero_n, 'has', 'have')} n = 0 attempts; "
                     f"{verb(zero_n, 'it has', 'they have')} no estimate at any k.")
    if len(set(n_all.tolist())) > 1:
        notes.append(f"Tasks have different numbers of attempts (n from {n_all.min()} to "
                     f"{n_all.max()}); each task's estimate uses its own n.")
    sig = base_signature(NAME)
    sig.update({
        "k": ",".join(map(str, ks)) + (",auto:1..max-n" if auto else ""),
        "input": form,
        "pass@k": "1-C(n-c,k)/C(n,k)",
        "pass^k": "C(c,k)/C(n,k)",
        "n": "per-task",
        "n<k": "excluded",
        "naive": "per-task-plug-in(c/n)",
        "per_try_p": "1-(1-pass@k)^(1/k)",
        "agg": "mean-over-tasks",
        **_intervals.signature(options.ci_resamples, options.ci_seed, unit="tasks"),
        "ci-per_try_p": "pass@k-interval-transformed",
        "engine": engine,
        **err.signature(),
    })
    fmt = {c: "float" for c in ("pass@k", "pass^k", "naive_pass@k", "naive_pass^k", "per_try_p")}
    fmt.update({"tasks": "int", "left_out": "int", "k": "int"})
    task_fmt = {c: "float" for c in per_task.columns if c.startswith("pass")}
    tables = (
        Table("summary", "pass@k and pass^k (mean over tasks)", pd.DataFrame(summary_rows), columns={
            "tasks": "tasks with n >= k (the denominator)",
            "left_out": "tasks with n < k, left out",
            "pass@k": "unbiased: mean of 1 - C(n-c,k)/C(n,k)",
            "pass^k": "unbiased: mean of C(c,k)/C(n,k)",
            "naive_pass@k": "plug-in: mean of 1 - (1 - c/n)^k (biased low)",
            "naive_pass^k": "plug-in: mean of (c/n)^k (biased high)",
            "per_try_p": "per-try rate implied by pass@k under independent attempts",
        }, formats=fmt),
        Table("tasks", "Per-task estimates (blank where n < k)", per_task, formats=task_fmt),
        Table("curve", "pass@k and pass^k over k", curve, columns={
            "tasks": "tasks with n >= k (the denominator at that k)",
        }, formats={**{c: "float" for c in ("pass@k", "pass^k", "naive_pass@k", "naive_pass^k")},
                    "k": "int", "tasks": "int"}),
    )
    return AnalysisResult(NAME, signature(sig), tuple(records), tables, tuple(notes), path)


CURVE_POINTS = 60


def curve_ks(max_n: int) -> np.ndarray:
    """k = 1..max_n, thinned to about :data:`CURVE_POINTS` values on a log scale."""
    if max_n <= CURVE_POINTS:
        return np.arange(1, max_n + 1)
    grid = np.unique(np.round(np.geomspace(1, max_n, CURVE_POINTS)).astype(int))
    return grid


def _curve(counts: pd.DataFrame, systems: list, has_sys: bool) -> pd.DataFrame:
    """Mean unbiased and plug-in estimates over every k up to the largest n, per system."""
    rows = []
    for label in systems:
        m = (counts["system"] == label).to_numpy() if has_sys else np.ones(len(counts), bool)
        n, c = counts["n"].to_numpy()[m], counts["c"].to_numpy()[m]
        if n.size == 0 or n.max() < 1:
            continue
        for k in curve_ks(int(n.max())):
            ok = n >= k
            rows.append({**({"system": label} if has_sys else {}), "k": int(k), "tasks": int(ok.sum()),
                         "pass@k": _mean(pk.pass_at_k(n[ok], c[ok], int(k))),
                         "pass^k": _mean(pk.pass_hat_k(n[ok], c[ok], int(k))),
                         "naive_pass@k": _mean(pk.naive_pass_at_k(n[ok], c[ok], int(k))),
                         "naive_pass^k": _mean(pk.naive_pass_hat_k(n[ok], c[ok], int(k)))})
    return pd.DataFrame(rows, columns=(["system"] if has_sys else []) + [
        "k", "tasks", "pass@k", "pass^k", "naive_pass@k", "naive_pass^k"])


def _mean(x: np.ndarray) -> float:
    return float(np.mean(x)) if x.size else float("nan")


def _per_try_ci(ci: hc.MeanCI, k: int) -> hc.MeanCI:
    """The per-try rate's interval: pass@k's ends through 1 - (1 - x)^(1/k) (increasing)."""
    def per_try(x: float) -> float:
        return float(implied_per_try_rate(x, k)) if np.isfinite(x) and 0 <= x <= 1 else float("nan")

    return hc.MeanCI(per_try(ci.mean), ci.n, per_try(ci.low), per_try(ci.high), float("nan"), float("nan"),
                     ci.degenerate, f"{_intervals.METHOD_WORDS.get(ci.method, ci.method)}-of-pass@k")
