"""No flag value and no small file ends in a traceback: the command line of every analysis,
driven with random flags (read from the parser itself, so a new flag is covered at once) and
random small files written here, exits 0 (or the gate's 1/3) or 2, and on 2 prints exactly one
line on stderr."""

from __future__ import annotations

import argparse
import contextlib
import csv
import io
import json
import os
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from workbench.cli.main import build_parser, main

#: Column names the analyses guess from, so that random files often reach the computation.
NAMES = ["item", "item_id", "baseline", "candidate", "system", "outcome", "success", "correct",
         "cost", "latency", "task", "n", "c", "query", "doc", "score", "rank", "relevance",
         "prediction", "reference", "group", "version", "unit", "numerator", "denominator",
         "cluster", "id", "x y"]
CELLS = ["0", "1", "1", "0", "2", "-1", "0.5", "3.0", "1e3", "1e400", "", "NA", "nan", "inf",
         "a", "b", "TRUE", "x y", "-0", "7.50", "1,5", "=1+1", "10000000000000"]
NUMBERS = ["0", "1", "-1", "2", "3", "10", "1000", "2000", "0.5", "0.07", "0.01", "1e-300",
           "100000000000", "1e400", "-1e400", "nan", "inf", "-inf", "1.5", "", "x", "0x10",
           "4294967296", "18446744073709551616", "1,3", "0,3", "3,x", ",", "1e3"]
SKIP_FLAGS = {"-h", "--help", "--progress", "--xlsx", "--junit", "--markdown", "--version", "-o", "--output"}
EXIT_CODES = {"gate": {0, 1, 2, 3}}


def _subparsers() -> dict[str, argparse.ArgumentParser]:
    top = build_parser()
    for action in top._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    raise AssertionError("no subcommands")


SUBPARSERS = _subparsers()


def _flag_values(action: argparse.Action):
    """A strategy of argv fragments for one optional flag."""
    flag = action.option_strings[-1]
    if action.nargs == 0:  # store_true
        return st.just([flag])
    if action.choices:
        values = st.sampled_from([str(c) for c in action.choices] + ["bogus", ""])  # argv is text
    elif action.type in (int, float):
        values = st.one_of(st.sampled_from(NUMBERS), st.integers(-10**13, 10**13).map(str),
                           st.floats(allow_nan=True, allow_infinity=True).map(repr))
    else:
        values = st.one_of(st.sampled_from(NAMES + NUMBERS), st.text(max_size=6))
    return values.map(lambda v: [flag, v])


def _flags(name: str):
    """A random subset of the subcommand's optional flags, each with a random value."""
    parser = SUBPARSERS[name]
    actions = [a for a in parser._actions if a.option_strings
               and not set(a.option_strings) & SKIP_FLAGS]
    return st.lists(st.sampled_from(actions), max_size=6, unique_by=lambda a: a.dest).flatmap(
        lambda chosen: st.tuples(*[_flag_values(a) for a in chosen]) if chosen else st.just(()))


@st.composite
def small_tables(draw):
    columns = draw(st.lists(st.sampled_from(NAMES), min_size=1, max_size=6, unique=True))
    cell = st.one_of(st.sampled_from(CELLS), st.text(max_size=4))
    rows = draw(st.lists(st.lists(cell, min_size=len(columns), max_size=len(columns)), max_size=7))
    delimiter = draw(st.sampled_from([",", ";", "\t"]))
    form = draw(st.sampled_from(["utf-8"] * 6 + ["utf-16", "cp1252", "xlsx", "parquet"]))
    return columns, rows, delimiter, form


def _parquet_writer() -> bool:
    import importlib

    for module in ("pyarrow", "fastparquet"):
        try:
            importlib.import_module(module)
            return True
        except ImportError:
            continue
    return False


_HAS_PARQUET_WRITER = _parquet_writer()


def _write_table(path: Path, table) -> Path:
    """Write the table in its form; returns the path written (its suffix follows the form)."""
    columns, rows, delimiter, form = table
    if form == "parquet" and not _HAS_PARQUET_WRITER:
        form = "utf-8"
    if form in ("xlsx", "parquet"):
        import pandas as pd

        frame = pd.DataFrame(rows, columns=columns, dtype=object).astype(str)
        path = path.with_suffix("." + form)
        if form == "xlsx":  # Excel cannot hold control characters: drop them
            frame = frame.map(lambda v: "".join(ch for ch in v if ch >= " " or ch == "\t"))
            frame.to_excel(path, index=False)
        else:
            frame.to_parquet(path, index=False)
        return path
    with open(path, "w", newline="", encoding=form, errors="replace") as handle:
        writer = csv.writer(handle, delimiter=delimiter)
        writer.writerow(columns)
        writer.writerows(rows)
    return path


def _run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), \
            warnings.catch_warnings():
        warnings.simplefilter("error")  # a warning printed by the real CLI is another line
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def _check(name: str, argv: list[str]) -> None:
    code, out, err = _run(argv)
    assert code in EXIT_CODES.get(name, {0, 2}), (argv, code, err)
    assert "Traceback" not in err, (argv, err)
    if code == 2:
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("workbench: "), (argv, err)
        assert not lines[0].startswith("workbench: workbench"), (argv, err)
    else:
        assert out.strip(), (argv, "no output on success")


def _flat(fragments) -> list[str]:
    return [part for fragment in fragments for part in fragment]


#: WB_FUZZ_EXAMPLES=500 for a longer hunt than CI's.
EXAMPLES = int(os.environ.get("WB_FUZZ_EXAMPLES", "40"))
SETTINGS = settings(max_examples=EXAMPLES, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])
ANALYSES_WITH_INPUT = ["text", "ranking", "passk", "aggregate", "compare", "cost"]


@pytest.mark.parametrize("name", ANALYSES_WITH_INPUT)
@SETTINGS
@given(data=st.data())
def test_random_flags_and_files_never_end_in_a_traceback(tmp_path, name, data):
    table = data.draw(small_tables(), label="table")
    path = _write_table(tmp_path / "data.csv", table)
    flags = _flat(data.draw(_flags(name), label="flags"))
    if "--qrels" in flags:  # a judgments file: another random table, or a missing one
        i = flags.index("--qrels")
        if data.draw(st.booleans(), label="qrels exists"):
            qrels = _write_table(tmp_path / "qrels.csv", data.draw(small_tables(), label="qrels"))
            flags[i + 1] = str(qrels)
    _check(name, [name, str(path), *flags])


@SETTINGS
@given(data=st.data())
def test_random_plan_flags_never_end_in_a_traceback(data):
    _check("plan", ["plan", *_flat(data.draw(_flags("plan"), label="flags"))])


RULE_METRICS = ["success", "cost_per_success", "cost_per_request", "latency_p95", "ndcg@5",
                "pass@1", "bogus"]
RULE_KEYS = ["max_drop", "min_gain", "max", "min", "max_increase", "resamples", "seed", "bound",
             "interval", "test", "input"]
TOML_VALUES = ["0.01", "-1", "0", "1000", "100000000000", '"lower"', '"bootstrap"', '"sign"',
               '"x"', "nan", "inf", "true", "[1, 2]"]


@SETTINGS
@given(data=st.data())
def test_random_release_rules_never_end_in_a_traceback(tmp_path, data):
    table = data.draw(small_tables(), label="table")
    path = _write_table(tmp_path / "data.csv", table)
    columns = table[0]
    lines = ["[rule]", 'name = "fuzz"']
    for key in ("baseline", "candidate"):
        if data.draw(st.booleans(), label=f"has {key}"):
            lines.append(f'{key} = "{data.draw(st.sampled_from(columns + ["zz"]), label=key)}"')
    for _ in range(data.draw(st.integers(0, 2), label="conditions")):
        lines += ["[[condition]]", f'metric = "{data.draw(st.sampled_from(RULE_METRICS))}"']
        keys = data.draw(st.lists(st.sampled_from(RULE_KEYS), max_size=3, unique=True))
        lines += [f"{k} = {data.draw(st.sampled_from(TOML_VALUES))}" for k in keys]
    rule = tmp_path / "rule.toml"
    rule.write_text("\n".join(lines) + "\n", encoding="utf-8")
    flags = _flat(data.draw(_flags("gate"), label="flags"))
    _check("gate", ["gate", str(rule), str(path), *flags])


OPTION_VALUES = st.one_of(st.none(), st.booleans(), st.integers(-10**12, 10**12),
                          st.floats(allow_nan=True, allow_infinity=True),
                          st.sampled_from(NAMES + ["none", "squad", "linear", "zero", "1,3"]),
                          st.lists(st.integers(-3, 5), max_size=3))
OPTION_NAMES = ["baseline", "candidate", "item", "resamples", "seed", "outcome", "group", "ks",
                "normalize", "k", "n", "rate", "discordance", "target_difference", "pass_at_k",
                "percentile_method", "gain", "ties", "system", "success", "cost", "task",
                "query", "doc", "relevance", "bogus_option"]


@settings(max_examples=max(5, EXAMPLES // 2), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data())
def test_random_sessions_never_end_in_a_traceback(tmp_path, data):
    table = data.draw(small_tables(), label="table")
    path = _write_table(tmp_path / "data.csv", table)
    panels = {}
    for name in data.draw(st.lists(st.sampled_from(list(SUBPARSERS)), max_size=2, unique=True)):
        panels[name] = data.draw(st.dictionaries(st.sampled_from(OPTION_NAMES), OPTION_VALUES,
                                                 max_size=3), label=name)
    session = {"input_path": str(path), "panels": panels}
    for key, value in data.draw(st.dictionaries(st.sampled_from(["sheet", "roles", "schema"]),
                                                OPTION_VALUES, max_size=2), label="extra").items():
        session[key] = value
    session_path = tmp_path / "s.wbsession.json"
    session_path.write_text(json.dumps(session, allow_nan=True), encoding="utf-8")
    _check("report", ["report", str(session_path), "-o", str(tmp_path / "r.xlsx")])


@pytest.mark.parametrize("argv, word", [
    (["compare", "{csv}", "--seed", "-1"], "`seed` must be a whole number from 0"),
    (["compare", "{csv}", "--resamples", "100000000000"], "`resamples` must be a whole number from 1,000 to 1,000,000"),
    (["compare", "{csv}", "--resamples", "1"], "`resamples`"),
    (["compare", "{csv}", "--resamples", "999"], "`resamples`"),
    (["passk", "{csv}", "--k", "100000000000"], "`k`"),
    (["passk", "{csv}", "--k", "0"], "`k`"),
    (["plan", "--discordance", "0.1", "--n", "100", "--target-difference", "0"], "`target_difference`"),
    (["plan", "--target-difference", "0.02"], "--discordance"),
    (["plan", "--rate", "nan", "--n", "10"], "`rate`"),
    (["plan", "--pass-at-k", "0.9", "--k", "100000000000"], "`k`"),
    (["plan", "--rate", "0.5", "--n", "0"], "`n`"),
    (["plan", "--discordance", "0", "--n", "10"], "`discordance`"),
    (["plan", "--rate", "0.5"], "--n"),
    (["ranking", "{csv}", "--relevance-threshold", "nan"], "relevance_threshold"),
    (["compare", "{csv}", "--resamples", "x"], "--resamples"),
], ids=lambda a: " ".join(a) if isinstance(a, list) else None)
def test_the_measured_cases_are_one_sentence(tmp_path, argv, word):
    path = tmp_path / "d.csv"
    path.write_text("item,baseline,candidate,task,n,c,query,doc,score,relevance\n"
                    "a,1,0,t,10,3,q,d,1,1\nb,0,1,u,10,5,q,e,2,0\n", encoding="utf-8")
    argv = [a.replace("{csv}", str(path)) for a in argv]
    code, out, err = _run(argv)
    assert (code, out) == (2, ""), err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("workbench: "), err
    assert "workbench: workbench" not in err
    assert word in lines[0]
