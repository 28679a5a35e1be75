"""pass@k, aggregation and cost on DuckDB and Spark (workbench/engines/tally.py and project.py,
issue 29): the engine counts the file's rows per (system, task) or per (version, group) or per
unit, and the analysis computes from those counts; for cost and latency the engine reads only
the columns used (every row, in file order).  Every record (values, intervals, n) equals the in-memory engine's on
the same file, CSV and Parquet, with digit-only ids that must stay text, errored rows left out
or counted as failures, and the counts form.  A bad cell is one sentence naming the file, the
column, the value and its line, as in memory.  Spark runs when pyspark and Java are installed
(CI has both), on one local[2] session for the module."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("duckdb")

from tests.test_engines import write  # noqa: E402
from workbench.cli.main import main as cli_main  # noqa: E402
from workbench.engines import spark as spark_engine  # noqa: E402
from workbench.metrics import headline_ci as hc  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:::pyspark")
ENGINES = ["duckdb", "spark"]


@pytest.fixture(scope="module")
def spark_session():
    if spark_engine.missing():
        return None
    from pyspark.sql import SparkSession

    session = (SparkSession.builder.master("local[2]").appName("workbench tally tests")
               .config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false")
               .config("spark.sql.shuffle.partitions", "4").getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@pytest.fixture(params=ENGINES)
def engine(request, spark_session):
    if request.param == "spark" and spark_session is None:
        pytest.skip(spark_engine.missing())
    return request.param


def run(capsys, analysis: str, *argv) -> dict:
    code = cli_main([analysis, *map(str, argv), "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


def error(capsys, analysis: str, *argv) -> str:
    code = cli_main([analysis, *map(str, argv)])
    out, err = capsys.readouterr()
    assert code == 2, out
    return " ".join(err.split())


def assert_same(a: dict, b: dict) -> None:
    """The same records (values within 1e-12: a sum of scores may be added in another order),
    the same notes but the engine's, the same signature but its engine."""
    assert len(a["results"]) == len(b["results"])
    for x, y in zip(a["results"], b["results"]):
        assert x.keys() == y.keys()
        for key in x:
            if isinstance(x[key], float) and isinstance(y[key], float):
                assert x[key] == pytest.approx(y[key], rel=1e-12, abs=1e-12, nan_ok=True), (x, key)
            else:
                assert x[key] == y[key], (x, key)
    engine_note = [n for n in b["notes"] if "computed by" in n]
    assert len(engine_note) == 1
    # the loader's notes (an id column kept as text) are the in-memory reading's own: an
    # engine reads every id as text
    assert [n for n in a["notes"] if "was kept as text" not in n] == \
        [n for n in b["notes"] if n not in engine_note]
    def strip(sig: str) -> str:
        return "|".join(p for p in sig.split("|") if not p.startswith("engine:"))

    assert strip(a["signature"]) == strip(b["signature"])
    assert "engine:memory" in a["signature"]


def attempts(seed: int, n: int = 3000, error_share: float = 0.02) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    tasks = ["9", "10", "00042", "42", "42.0"] + [f"t{i}" for i in range(60)]
    frame = pd.DataFrame({
        "model": rng.choice(["base", "cand"], n),
        "task": rng.choice(tasks, n),
        "passed": rng.choice(["yes", "no"], n, p=[0.4, 0.6]),
        "error": np.where(rng.random(n) < error_share, "timeout", ""),
    })
    return frame


# --------------------------------------------------------------------------------------- pass@k


@pytest.mark.parametrize("kind", ["csv", "parquet"])
@pytest.mark.parametrize("errored", ["exclude", "failure"])
def test_pass_at_k_per_attempt_equals_memory(engine, tmp_path, capsys, kind, errored):
    frame = attempts(3)
    path = write(frame, tmp_path / "attempts", kind)
    args = [path, "--task", "task", "--success", "passed", "--system", "model", "--k", "1,2,5",
            "--error", "error", "--errored", errored]
    memory = run(capsys, "passk", *args, "--engine", "memory")
    other = run(capsys, "passk", *args, "--engine", engine)
    assert_same(memory, other)
    assert f"engine:{engine}" in other["signature"]
    # by hand: the mean over tasks of the share of passes, errored attempts left out or failed
    kept = frame if errored == "failure" else frame[frame["error"] == ""]
    ok = (kept["passed"] == "yes") & (kept["error"] == "")
    cand = ok[kept["model"] == "cand"].groupby(kept["task"]).mean()
    value = next(r for r in other["results"] if r["metric"] == "pass@1" and r.get("system") == "cand")
    assert value["value"] == pytest.approx(cand.mean(), abs=1e-12)
    assert value["n"] == 65  # '9', '10', '00042', '42' and '42.0' are five tasks


def test_pass_at_k_counts_form_and_its_sentences(engine, tmp_path, capsys):
    counts = pd.DataFrame({"task": ["a", "b", "007", "7"], "n": [10, 5, 4, 3], "c": [3, 5, 0, 1]})
    path = write(counts, tmp_path / "counts", "csv")
    args = [path, "--task", "task", "--n", "n", "--correct", "c", "--k", "1,5"]
    memory = run(capsys, "passk", *args, "--engine", "memory")
    other = run(capsys, "passk", *args, "--engine", engine)
    assert_same(memory, other)
    assert "input:counts" in other["signature"]
    # by hand: pass@1 = mean of c/n over the four tasks
    assert other["results"][0]["value"] == pytest.approx(np.mean([0.3, 1.0, 0.0, 1 / 3]), abs=1e-12)
    repeated = pd.concat([counts, counts.iloc[[1]]])
    bad = write(repeated, tmp_path / "repeated", "csv")
    said = error(capsys, "passk", bad, "--task", "task", "--n", "n", "--correct", "c",
                 "--engine", engine)
    assert "repeated.csv" in said and "task=b" in said and "line 3" in said
    over = counts.assign(c=[3, 6, 0, 1])
    bad = write(over, tmp_path / "over", "csv")
    said = error(capsys, "passk", bad, "--task", "task", "--n", "n", "--correct", "c",
                 "--engine", engine)
    assert "more passes than attempts" in said and "line 3" in said


def test_a_bad_success_cell_is_one_sentence_with_its_line(engine, tmp_path, capsys):
    frame = attempts(4, n=50, error_share=0)
    frame.loc[17, "passed"] = "maybe"
    path = write(frame, tmp_path / "bad", "csv")
    said = error(capsys, "passk", path, "--task", "task", "--success", "passed",
                 "--engine", engine)
    assert "Column 'passed'" in said and "bad.csv" in said and "'maybe' (line 19)" in said
    assert "binary values" in said


def test_auto_counts_with_duckdb_over_the_budget(tmp_path, capsys, monkeypatch):
    from workbench.engines import budget

    path = write(attempts(5), tmp_path / "attempts", "parquet")
    args = [path, "--task", "task", "--success", "passed", "--system", "model"]
    below = run(capsys, "passk", *args)
    assert "engine:memory" in below["signature"]
    monkeypatch.setattr(budget, "BYTES_PER_ROW", 10**12)
    above = run(capsys, "passk", *args)
    assert "engine:duckdb" in above["signature"]
    assert any("'auto'" in n and "over the budget" in n for n in above["notes"])
    assert_same(below, above)


# ---------------------------------------------------------------------------------- aggregation


def outcomes(seed: int, n: int = 4000) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "version": rng.choice(["v1", "v2"], n),
        "segment": rng.choice(["web", "app", "api", "00042", "42"], n, p=[.4, .3, .2, .05, .05]),
        "correct": rng.integers(0, 2, n),
        "user": [f"{u:04d}" for u in rng.integers(0, 300, n)],
        "score": rng.choice([0.0, 0.25, 0.5, 1.0], n),
        "claims": rng.integers(0, 7, n),
        "error": np.where(rng.random(n) < 0.02, "boom", ""),
    }).assign(supported=lambda f: rng.binomial(f["claims"], 0.7))


@pytest.mark.parametrize("models", [("alpha", "beta"), ("alpha",)])
def test_aggregation_of_a_file_sorted_by_model_without_a_group_equals_memory(engine, tmp_path, capsys, models):
    """No --group, no --version, the models one after the other (the head the engine's reading
    sees holds the first alone): each model is read on its own on every engine, and one model
    alone is one rate; the rates are the models' shares of successes (pandas)."""
    rng = np.random.default_rng(4)
    n = 6000  # the first model fills the engine's preview
    frame = pd.DataFrame({"item_id": [f"q{i:05d}" for i in range(n)] * len(models),
                          "model": np.repeat(models, n),
                          "correct": (rng.random(n * len(models)) < np.repeat([0.6, 0.75][:len(models)], n)).astype(int)})
    path = tmp_path / "sorted.csv"
    frame.to_csv(path, index=False)
    memory = run(capsys, "aggregate", path, "--engine", "memory")
    other = run(capsys, "aggregate", path, "--engine", engine)
    assert_same(memory, other)
    want = frame.groupby("model")["correct"].mean()
    micro = [r for r in other["results"] if r["metric"] == "micro"]
    if len(models) == 2:
        assert {r["version"]: r["value"] for r in micro} == pytest.approx(want.to_dict(), abs=1e-12)
    else:
        assert [r["value"] for r in micro] == pytest.approx([want["alpha"]], abs=1e-12)
        assert not any("holds several systems" in n for n in other["notes"])


@pytest.mark.parametrize("kind", ["csv", "parquet"])
@pytest.mark.parametrize("form", [
    ["--outcome", "correct", "--group", "segment", "--version", "version"],
    ["--outcome", "correct", "--group", "segment"],
    ["--outcome", "score", "--unit", "user"],
    ["--numerator", "supported", "--denominator", "claims", "--unit", "user"],
])
@pytest.mark.parametrize("errored", ["exclude", "failure"])
def test_aggregation_forms_equal_memory(engine, tmp_path, capsys, kind, form, errored):
    path = write(outcomes(6), tmp_path / "outcomes", kind)
    args = [path, *form, "--error", "error", "--errored", errored]
    memory = run(capsys, "aggregate", *args, "--engine", "memory")
    other = run(capsys, "aggregate", *args, "--engine", engine)
    if "--numerator" in form:  # the notes of repeated units and of rows repeated whole
        assert any("repeat another row exactly" in n for n in memory["notes"])
    assert_same(memory, other)



@pytest.mark.parametrize("errored", ["exclude", "failure"])
def test_ratio_form_names_repeated_units_and_copies_as_memory_does(engine, tmp_path, capsys,
                                                                    errored):
    # line 2 and line 5 are copies written differently (1 and 1.0); unit u1 is on lines 2, 3,
    # 5, 7, 8, 9 and 10 (more than five); line 6 errored: with --errored failure its numerator
    # counts as 0 and it repeats line 4 exactly (u3, 0, 2), left out it repeats nothing
    path = tmp_path / "claims.csv"
    path.write_text("unit,supported,claims,error\n"
                    "u1,1,2,\n" "u1,2,3,\n" "u3,0,2,\n" "u1,1.0,2,\n" "u3,4,2,boom\n"
                    "u1,3,4,\n" "u1,0,1,\n" "u1,5,5,\n" "u1,1,1,\n" "u2,1,1,\n")
    args = [path, "--numerator", "supported", "--denominator", "claims", "--unit", "unit",
            "--error", "error", "--errored", errored]
    memory = run(capsys, "aggregate", *args, "--engine", "memory")
    other = run(capsys, "aggregate", *args, "--engine", engine)
    assert_same(memory, other)
    said = " ".join(other["notes"])
    assert "unit 'u1' on lines 2, 3, 5, 7, 8 and 2 more" in said
    copies = "4 rows repeat another row exactly" if errored == "failure" else \
        "2 rows repeat another row exactly"
    assert copies in said, said


def test_a_failed_row_keeps_its_denominator_even_named_like_an_outcome(engine, tmp_path, capsys):
    # `score` is a name the outcome is guessed from; in the ratio form it is the denominator,
    # and a failed row's denominator stays (only its numerator counts 0), in every engine
    path = tmp_path / "points.csv"
    path.write_text("unit,earned,score,error\n" "a,1,2,\n" "a,2,4,boom\n" "b,3,3,\n" "c,0,5,\n")
    args = [path, "--numerator", "earned", "--denominator", "score", "--unit", "unit",
            "--error", "error", "--errored", "failure"]
    memory = run(capsys, "aggregate", *args, "--engine", "memory")
    other = run(capsys, "aggregate", *args, "--engine", engine)
    assert_same(memory, other)
    pooled = next(r for r in memory["results"] if r["metric"] == "pooled_ratio")
    assert pooled["value"] == pytest.approx((1 + 0 + 3 + 0) / (2 + 4 + 3 + 5))

@pytest.mark.parametrize("versions", [False, True])
def test_group_form_by_hand(engine, tmp_path, capsys, versions):
    """Without --version: one rate over the file, or, when it has a column named for its systems
    (here 'version'), one per system (never pooled), as the in-memory reading has it."""
    from statsmodels.stats.proportion import proportion_confint  # the micro rate's: Wilson

    frame = outcomes(7, n=600)
    if not versions:
        frame = frame.drop(columns="version")
    path = write(frame, tmp_path / "outcomes", "csv")
    out = run(capsys, "aggregate", path, "--outcome", "correct", "--group", "segment",
              "--engine", engine)
    parts = dict(list(frame.groupby("version"))) if versions else {None: frame}
    assert versions == any("never pooled" in n for n in out["notes"])
    for version, part in parts.items():
        micro = next(r for r in out["results"] if r["metric"] == "micro" and r.get("version") == version)
        macro = next(r for r in out["results"] if r["metric"] == "macro" and r.get("version") == version)
        assert micro["value"] == pytest.approx(part["correct"].mean(), abs=1e-12)
        assert micro["n"] == len(part)
        rates = part.groupby("segment")["correct"].mean()
        assert macro["value"] == pytest.approx(rates.mean(), abs=1e-12)
        assert macro["n"] == part["segment"].nunique()
        low, high = proportion_confint(int(part["correct"].sum()), len(part), method="wilson")
        assert (micro["ci_low"], micro["ci_high"]) == pytest.approx((low, high), abs=1e-12)


def test_aggregation_refusals_are_sentences(engine, tmp_path, capsys):
    path = write(outcomes(8, n=200), tmp_path / "outcomes", "csv")
    said = error(capsys, "aggregate", path, "--outcome", "score", "--group", "segment",
                 "--engine", engine)
    assert "scores between 0 and 1" in said and "--engine memory" in said
    said = error(capsys, "aggregate", path, "--numerator", "supported", "--denominator",
                 "claims", "--engine", engine)
    assert "--unit" in said and "--engine memory" in said
    frame = outcomes(8, n=200)
    frame.loc[40, "claims"] = -2
    bad = write(frame, tmp_path / "negative", "csv")
    said = error(capsys, "aggregate", bad, "--numerator", "supported", "--denominator",
                 "claims", "--unit", "user", "--engine", engine)
    assert "Column 'claims'" in said and "line 42" in said and "at least 0" in said
    frame = outcomes(8, n=200).astype({"claims": object})
    frame.loc[9, "claims"] = "n/a"
    bad = write(frame, tmp_path / "text", "csv")
    said = error(capsys, "aggregate", bad, "--numerator", "supported", "--denominator",
                 "claims", "--unit", "user", "--engine", engine)
    assert "Column 'claims'" in said and "'n/a' (line 11)" in said


# ------------------------------------------------------------------------- the counts' intervals


@settings(max_examples=30, deadline=None, database=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(groups=st.lists(st.tuples(st.integers(1, 40), st.floats(0, 1)), min_size=1, max_size=6),
       seed=st.integers(0, 2**31 - 1))
def test_stratified_rates_from_counts_equal_the_resampled_values(groups, seed):
    rng = np.random.default_rng(seed)
    values, codes = [], []
    for g, (n, p) in enumerate(groups):
        values.append((rng.random(n) < p).astype(float))
        codes.append(np.full(n, g))
    values, codes = np.concatenate(values), np.concatenate(codes)
    labels = [f"g{g}" for g in range(len(groups))][::-1]  # not in order: sorted by label
    items = np.bincount(codes, minlength=len(groups))
    successes = np.bincount(codes, weights=values, minlength=len(groups)).round().astype(int)
    a = hc.stratified_mean_of_means(values, codes, labels, resamples=300, seed=seed)
    b = hc.stratified_rates(items, successes, labels, resamples=300, seed=seed)
    assert np.array_equal(a, b)
    ci = hc.mean_intervals({"x": values})["x"]
    assert repr(hc.rate_ci(int(values.sum()), values.size)) == repr(ci)  # NaN t ends alike


# ------------------------------------------------------------------------------ cost and latency


def requests(seed: int, n: int = 3000) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "provider": rng.choice(["gpt", "claude", "0042"], n),
        "passed": rng.choice(["true", "false"], n, p=[0.7, 0.3]),
        "cost": np.round(rng.gamma(2.0, 0.001, n), 6),
        "latency_ms": np.round(rng.lognormal(6, 0.5, n), 1),
        "steps": rng.integers(1, 20, n),
        "tool_calls.search": rng.integers(0, 5, n),
        "prompt": ["a long prompt the engine never reads " * 3] * n,
        "error": np.where(rng.random(n) < 0.02, "rate limit", ""),
    })


@pytest.mark.parametrize("kind", ["csv", "parquet"])
@pytest.mark.parametrize("extra", [[], ["--error", "error", "--errored", "failure"],
                                   ["--percentile-method", "nearest_rank", "--error", "error"]])
def test_cost_and_latency_equal_memory(engine, tmp_path, capsys, kind, extra):
    frame = requests(9)
    path = write(frame, tmp_path / "requests", kind)
    args = [path, "--system", "provider", "--success", "passed", "--cost", "cost",
            "--latency", "latency_ms", *extra]
    memory = run(capsys, "cost", *args, "--engine", "memory")
    other = run(capsys, "cost", *args, "--engine", engine)
    assert memory["results"] == other["results"]  # every row read, in file order: the same
    note = next(n for n in other["notes"] if n.startswith("Only the columns used"))
    assert "'cost'" in note and "'steps'" in note and "'prompt'" not in note
    assert f"engine:{engine}" in other["signature"]
    if not extra:  # by hand: cost per success and the p95 latency of one system
        part = frame[frame["provider"] == "0042"]
        cps = next(r for r in other["results"]
                   if r["metric"] == "cost_per_success" and r.get("system") == "0042")
        assert cps["value"] == pytest.approx(part["cost"].sum() / (part["passed"] == "true").sum(),
                                             rel=1e-12)
        p95 = next(r for r in other["results"]
                   if r["metric"] == "latency_p95" and r.get("system") == "0042")
        assert p95["value"] == pytest.approx(np.percentile(part["latency_ms"], 95), rel=1e-12)


def test_a_bad_cost_cell_is_one_sentence_with_its_line(engine, tmp_path, capsys):
    frame = requests(10, n=40).astype({"cost": object})
    frame.loc[12, "cost"] = "12 USD"
    path = write(frame, tmp_path / "bad", "csv")
    said = error(capsys, "cost", path, "--system", "provider", "--success", "passed", "--cost",
                 "cost", "--engine", engine)
    assert "Column 'cost'" in said and "bad.csv" in said and "'12 USD' (line 14)" in said


@pytest.mark.parametrize("analysis, args", [
    ("passk", ["--task", "task", "--success", "passed"]),
    ("aggregate", ["--outcome", "passed", "--group", "task"]),
    ("cost", ["--success", "passed", "--cost", "cost"]),
])
def test_an_input_the_engines_do_not_read_is_computed_in_memory_and_said(tmp_path, capsys,
                                                                         analysis, args):
    path = tmp_path / "rows.jsonl"
    path.write_text('{"task": "a", "passed": 1, "cost": 0.5}\n{"task": "b", "passed": 0, "cost": 1}\n')
    out = run(capsys, analysis, path, *args, "--engine", "duckdb")
    assert "engine:memory" in out["signature"]
    assert any("DuckDB reads a CSV or Parquet file itself" in n and "rows.jsonl" in n
               for n in out["notes"])


def test_a_bad_cell_after_blank_lines_and_a_quoted_newline_names_its_file_line(tmp_path, capsys,
                                                                              spark_session):
    """DuckDB and Spark number records (blank lines skipped, a quoted field may span lines): the
    sentence counts the file's lines to name the one the cell is on, as the in-memory reading;
    without the bad cell, every engine reads the quoted newline as the workbench does."""
    path = tmp_path / "run.csv"
    path.write_text('query,doc,score,relevance\nq1,d1,0.5,1\n\nq1,"d\n2",0.4,0\nq2,d3,abc,1\n')
    engines = ("memory", "duckdb") + (("spark",) if spark_session is not None else ())
    said = {engine: error(capsys, "ranking", path, "--engine", engine) for engine in engines}
    assert "'abc' (line 6)" in said["duckdb"]
    assert all(said[e] == said["memory"] for e in engines)
    good = tmp_path / "good.csv"
    good.write_text('query,doc,score,relevance\nq1,d1,0.5,0\n\nq1,"d\n2",0.4,1\nq2,d3,0.3,1\n')
    values = {e: run(capsys, "ranking", good, "--k", "1", "--engine", e)["results"] for e in engines}
    assert all(values[e] == values["memory"] for e in engines)
    assert next(r for r in values["memory"] if r["metric"] == "mrr")["value"] == pytest.approx(0.75)
    from workbench.engines import duck

    source = duck.FileSource(str(path), "csv", ("query", "doc", "score", "relevance"))
    assert source.csv_lines([1, 2, 3]) == [2, 4, 6]
    assert source.describe_rows([2, 3]) == "lines 4, 6"


@pytest.mark.parametrize("analysis, args", [
    ("ranking", ["--qrels", None]),
    ("passk", ["--task", "task", "--success", "passed", "--system", "model"]),
    ("aggregate", ["--outcome", "passed", "--group", "task"]),
    ("cost", ["--success", "passed", "--cost", "cost"]),
])
def test_without_duckdb_auto_stays_in_memory_and_duckdb_is_one_sentence(tmp_path, capsys,
                                                                        monkeypatch, analysis,
                                                                        args):
    """The standalone installer leaves DuckDB out: a Parquet file over the budget is computed
    in memory by auto, and asking for DuckDB is one sentence saying what to do."""
    import sys

    from workbench.engines import budget

    frame = attempts(12, n=200, error_share=0).assign(cost=0.5, query=lambda f: f["task"],
                                                      doc=lambda f: f.index.astype(str),
                                                      score=0.5)
    path = write(frame, tmp_path / "rows", "parquet")
    if analysis == "ranking":
        qrels = write(frame[["query", "doc"]].assign(relevance=1), tmp_path / "qrels", "csv")
        args = ["--qrels", qrels, "--query", "query", "--doc", "doc", "--score", "score",
                "--system", "model"]
    monkeypatch.setitem(sys.modules, "duckdb", None)  # import duckdb raises ImportError
    monkeypatch.setattr(budget, "BYTES_PER_ROW", 10**9)
    auto = run(capsys, analysis, path, *args)
    assert "engine:memory" in auto["signature"]
    said = error(capsys, analysis, path, *args, "--engine", "duckdb")
    assert "needs the duckdb package" in said and "--engine memory" in said
