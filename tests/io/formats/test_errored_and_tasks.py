"""Issue 22 items 4-7: rows that are not measurements, and tasks that must not be pooled.

Inspect logs with errored samples and promptfoo results with provider errors were written by the
real tools (tests/fixtures/formats/make_fixtures.py inspect_errors / promptfoo_errors); the
reference numbers are the tools' own (Inspect's accuracy in the log, errors_expected.csv) or
hand-computed from the per-sample values the tools wrote."""

from __future__ import annotations

import glob
import json
import os
import re
import shutil

import numpy as np
import pandas as pd
import pytest

from workbench.analyses import compare, cost, passk, text
from workbench.cli.main import main as cli_main
from workbench.core.errors import DataError, OptionError
from workbench.io import load_table
from workbench.io import load_many
from workbench.io.formats import with_roles
from workbench.report.present import answer

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "fixtures", "formats")


def fixture(*parts):
    return os.path.abspath(os.path.join(FIXTURES, *parts))


ALPHA, BETA = fixture("inspect_errors", "errors_alpha.eval"), fixture("inspect_errors", "errors_beta.eval")


@pytest.fixture(scope="module")
def expected():
    lines = open(fixture("inspect_errors", "errors_expected.csv")).read().splitlines()
    rows = [line.split(",") for line in lines[1:] if not line.startswith("#")]
    frame = pd.DataFrame(rows, columns=lines[0].split(","))
    frame["epoch"] = frame["epoch"].astype(int)
    metrics = {(m[1], m[3]): float(m[4]) for m in (line.split(",") for line in lines)
               if m[0] == "#metric"}
    return frame, metrics


def _run(module, table, options):
    options, _ = with_roles(options, table)
    return module.run(table, options)


# ------------------------------------------------------------------ Inspect: errored samples


def test_inspect_errored_sample_is_read_as_inspect_reads_it(expected):
    frame, _ = expected
    table = load_table(ALPHA)
    assert table.roles["error"] == "error"
    ours = table.frame.set_index(["sample_id", "epoch"])
    for _, row in frame[frame["log"] == "errors_alpha.eval"].iterrows():
        got = ours.loc[(row["sample_id"], row["epoch"])]
        assert bool(got["error"]) == (row["error"] == "1")
        if row["error"] == "1":
            assert np.isnan(got["match"]) and "provider failed" in got["error"]
        else:
            assert got["match"] == float(row["match"])
    (note,) = [n for n in table.notes if "ended with an error" in n]
    assert "1 of 8 samples ended with an error (column 'error'): sample q3 (epoch 2)" in note


@pytest.mark.parametrize("path,model", [(ALPHA, "mockllm/alpha"), (BETA, "mockllm/beta")])
def test_passk_leaves_errored_samples_out_as_inspect_does(expected, path, model):
    """pass@1 over samples (each sample's epochs averaged) is Inspect's accuracy with its mean
    epoch reducer; Inspect leaves the errored sample out (7 of 8 samples scored)."""
    _, metrics = expected
    table = load_table(path)
    result = _run(passk, table, passk.Options(task="sample_id", ks=(1,)))
    (p1,) = result.find("pass@1")
    assert p1["value"] == pytest.approx(metrics[(model, "accuracy")])  # 0.625 / 0.875
    assert p1["n"] == 4
    assert "errored:excluded" in result.signature
    assert any("1 of 8 rows ended with an error" in n and "sample q3" in n for n in result.notes)
    assert "1 of 8 rows ended with an error and are left out." in answer(result).sentences


def test_passk_counts_errored_samples_as_failures_when_asked():
    # by hand: alpha's q3 is 1 then an error -> 1/2, the others 1/2 each: mean 0.5;
    # beta's q3 is an error then 1 -> 1/2; 1: 1, 007: 1, 1.0: 1/2 -> mean 0.75
    for path, want in ((ALPHA, 0.5), (BETA, 0.75)):
        result = _run(passk, load_table(path),
                      passk.Options(task="sample_id", ks=(1, 2), errored="failure"))
        assert result.find("pass@1")[0]["value"] == pytest.approx(want)
        assert "errored:failures" in result.signature
        assert any("counted as failed attempts" in n for n in result.notes)
    with pytest.raises(OptionError, match="errored"):
        passk.run(load_table(ALPHA), passk.Options(task="sample_id", errored="drop"))


def _pairs(expected, errored):
    """Wins, losses and n of beta over alpha, from the values inspect_ai read (by hand)."""
    frame, _ = expected
    value = {(r["log"], r["sample_id"], r["epoch"]): (None if r["error"] == "1" else float(r["match"]))
             for _, r in frame.iterrows()}
    wins = losses = n = 0
    for (log, sid, epoch), a in value.items():
        if log != "errors_alpha.eval":
            continue
        b = value[("errors_beta.eval", sid, epoch)]
        if errored == "exclude" and (a is None or b is None):
            continue
        a, b = a or 0.0, b or 0.0
        n += 1
        wins += b > a
        losses += a > b
    return wins, losses, n


@pytest.mark.parametrize("errored", ["exclude", "failure"])
def test_compare_two_logs_with_errored_samples(expected, errored):
    table = load_many([ALPHA, BETA])
    result = _run(compare, table, compare.Options(resamples=1000, errored=errored))
    wins, losses, n = _pairs(expected, errored)
    assert (wins, losses, n) == ((3, 1, 6) if errored == "exclude" else (4, 2, 8))
    assert result.find("wins")[0]["value"] == wins and result.find("losses")[0]["value"] == losses
    assert result.find("diff")[0]["n"] == n
    assert result.signature.endswith("errored:" + ("excluded" if errored == "exclude" else "failures"))
    (note,) = [x for x in result.notes if "rows ended with an error" in x]
    assert "sample q3 (epoch 2) of errors_alpha.eval, sample q3 (epoch 1) of errors_beta.eval" in note


def test_cli_passk_and_compare_on_errored_logs(capsys):
    assert cli_main(["compare", ALPHA, BETA, "--resamples", "1000"]) == 0
    out = capsys.readouterr().out
    assert "errored:excluded" in out and "answer: 2 of 16 rows ended with an error and are left out." in out
    assert cli_main(["passk", ALPHA, "--task", "sample_id", "--k", "1", "--errored", "failure",
                     "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["results"][0]["value"] == pytest.approx(0.5) and "errored:failures" in got["signature"]
    assert cli_main(["passk", ALPHA, "--task", "sample_id", "--errored", "maybe"]) == 2
    assert "invalid choice" in capsys.readouterr().err


def test_a_refusal_names_the_sample_and_epoch_not_a_row(tmp_path):
    """A sample without a score that did not error either: the sentence names it by id and epoch."""
    log = json.load(open(fixture("inspect_errors", "errors_alpha.json")))
    unscored = next(s for s in log["samples"] if s["id"] == "007" and s["epoch"] == 2)
    unscored["scores"] = {}
    path = tmp_path / "log.json"
    path.write_text(json.dumps(log))
    table = load_table(path)
    with pytest.raises(DataError, match=r"sample 007 \(epoch 2\)") as info:
        _run(passk, table, passk.Options(task="sample_id"))
    assert not re.search(r"\brows? \d", str(info.value))
    stacked = load_many([path, BETA])
    with pytest.raises(DataError, match=r"sample 007 \(epoch 2\) of log.json"):
        _run(passk, stacked, passk.Options(task="sample_id"))


def test_text_leaves_errored_samples_out():
    """The errored try is left out (or scored as a failure); each sample's tries are then one
    item: the mean over samples of each sample's mean over its tries."""
    table = load_table(ALPHA)
    frame = table.frame
    kept = frame[frame["error"] == ""]
    result = _run(text, table, text.Options())
    (em,) = result.find("exact_match")
    assert len(kept) == 7 and em["n"] == kept["sample_id"].nunique() == 4
    hits = (kept["output"] == kept["target"]).astype(float)
    assert em["value"] == pytest.approx(hits.groupby(kept["sample_id"]).mean().mean())
    failed = _run(text, table, text.Options(errored="failure"))
    every = ((frame["output"] == frame["target"]) & (frame["error"] == "")).astype(float)
    assert failed.find("exact_match")[0]["n"] == 4
    assert failed.find("exact_match")[0]["value"] == pytest.approx(every.groupby(frame["sample_id"]).mean().mean())
    assert "errored:failures" in failed.signature


def test_a_json_log_beside_its_eval_is_read_once(tmp_path):
    """Issue 22 item 8: a folder with both the .eval log and its .json conversion (the same run)."""
    for name in ("errors_alpha.eval", "errors_alpha.json", "errors_beta.eval"):
        shutil.copy(fixture("inspect_errors", name), tmp_path / name)
    table = load_table(tmp_path)
    assert len(table.frame) == 16 and set(table.frame["model"]) == {"mockllm/alpha", "mockllm/beta"}
    (note,) = [n for n in table.notes if "same run" in n]
    assert "errors_alpha.json" in note and "errors_alpha.eval" in note
    both = load_many([tmp_path / "errors_alpha.eval", tmp_path / "errors_alpha.json"])
    assert len(both.frame) == 8
    only_json = tmp_path / "json"
    only_json.mkdir()
    shutil.copy(fixture("inspect_errors", "errors_alpha.json"), only_json / "a.json")
    (only_json / "other.json").write_text('{"not": "a log"}')
    assert len(load_table(only_json).frame) == 8  # a folder of .json logs alone


# -------------------------------------------------------------- promptfoo: provider errors


PROMPTFOO = fixture("promptfoo_errors", "results.json")


def test_promptfoo_provider_errors_are_marked_and_named():
    rows = json.load(open(PROMPTFOO))["results"]["results"]
    table = load_table(PROMPTFOO)
    errored = [(r["provider"]["label"], str(r["testIdx"])) for r in rows if r.get("failureReason") == 2]
    assert errored == [("flaky", "1"), ("flaky", "3")]
    got = table.frame[table.frame["error"] != ""]
    assert list(zip(got["provider"], got["test"])) == errored
    assert set(got["error"]) == {"API error: 503 Service Unavailable (upstream overloaded)"}
    # an assertion that failed is a measurement: its reason is in 'reason', not in 'error'
    failed = table.frame[(table.frame["success"] == 0) & (table.frame["error"] == "")]
    assert len(failed) == 3 and all(failed["reason"].str.startswith("Expected output"))
    (note,) = [n for n in table.notes if "provider error" in n]
    assert "test 1 of 'flaky', test 3 of 'flaky'" in note and "latency (1 ms)" in note


def _by_hand(rows, errored):
    """Success rate, cost per request and latency p50 (linear) of 'flaky', by hand."""
    flaky = [r for r in rows if r["provider"]["label"] == "flaky"]
    measured = [r for r in flaky if r.get("failureReason") != 2]
    asked = measured if errored == "exclude" else flaky
    rate = sum(bool(r["success"]) for r in asked) / len(asked)
    per_request = sum(r["cost"] for r in measured) / len(measured)
    return rate, per_request, float(np.percentile([r["latencyMs"] for r in measured], 50)), len(asked)


@pytest.mark.parametrize("errored", ["exclude", "failure"])
def test_cost_never_uses_the_latency_or_cost_of_a_provider_error(errored):
    rows = json.load(open(PROMPTFOO))["results"]["results"]
    table = load_table(PROMPTFOO)
    result = _run(cost, table, cost.Options(errored=errored))
    rate, per_request, p50, n = _by_hand(rows, errored)
    (got_rate,) = [r for r in result.find("success_rate") if r["system"] == "flaky"]
    assert got_rate["value"] == pytest.approx(rate) and got_rate["n"] == n
    assert [r for r in result.find("cost_per_request") if r["system"] == "flaky"][0]["value"] \
        == pytest.approx(per_request)
    (lat,) = [r for r in result.find("latency_p50") if r["system"] == "flaky"]
    assert lat["value"] == pytest.approx(p50) == 43 and lat["n"] == 3  # never the 1 ms errors
    sig = "errored:excluded" if errored == "exclude" else "errored:failures,no-latency-no-cost"
    assert sig in result.signature
    assert (rate, n) == ((2 / 3, 3) if errored == "exclude" else (2 / 5, 5))


def test_compare_on_promptfoo_does_not_count_an_error_as_a_loss():
    table = load_table(PROMPTFOO)
    result = _run(compare, table, compare.Options(resamples=1000))
    # tests 0, 2, 4 are measured for both: echo passes all three, flaky passes 0 and 2
    assert result.find("diff")[0]["n"] == 3
    assert result.find("losses")[0]["value"] == 1 and result.find("wins")[0]["value"] == 0
    counted = _run(compare, table, compare.Options(resamples=1000, errored="failure"))
    # by hand: echo pass, fail, pass, fail, pass; flaky pass, error, pass, error, fail: with the
    # errors as failures, tests 1 and 3 fail for both (ties) and test 4 is the one loss
    assert counted.find("diff")[0]["n"] == 5
    assert counted.find("losses")[0]["value"] == 1 and counted.find("ties")[0]["value"] == 4


def test_promptfoo_csv_export_is_read_with_unique_names():
    """promptfoo's own CSV export repeats Status, Score... per provider (issue 22 item 8): each
    repeated name takes its provider's tag, and the table is read one row per test and provider."""
    table = load_table(fixture("promptfoo_errors", "results.csv"))
    columns = list(table.frame.columns)
    assert len(set(columns)) == len(columns)
    flaky = table.frame[table.frame["provider"] == "flaky"]
    assert flaky["success"].tolist() == [1.0, 0.0, 1.0, 0.0, 0.0]
    assert [bool(e) for e in flaky["error"]] == [False, True, False, True, False]
    assert any("repeats" in n and "[flaky] Status" in n for n in table.notes)


# ---------------------------------------------------------------- lm-eval: tasks never pooled


def _lmeval_record(doc_id, target, arguments, resps, filtered, metrics):
    return {"doc_id": doc_id, "doc": {"i": doc_id}, "target": target, "arguments": arguments,
            "resps": resps, "filtered_resps": filtered, "filter": "none",
            "metrics": list(metrics), "doc_hash": "x", "prompt_hash": "y", "target_hash": "z",
            **metrics}


def _lmeval_folder(tmp_path):
    """dummy-seed1's real files, plus a loglikelihood task and a loglikelihood_rolling task in
    the shapes lm-eval 0.4 logs them (lm_eval/api/task.py process_results, evaluator.py)."""
    folder = tmp_path / "dummy-seed1"
    shutil.copytree(fixture("lmeval", "dummy-seed1"), folder)
    stamp = "2026-12-01T15-27-30.816062"
    ll = [_lmeval_record(i, f" word{i}", {"gen_args_0": {"arg_0": f"ctx {i}", "arg_1": f" word{i}"}},
                         [[[-1.5 - i, i % 2 == 0]]], [[-1.5 - i, i % 2 == 0]],
                         {"perplexity": -1.5 - i, "acc": int(i % 2 == 0)}) for i in range(10)]
    rolling = [_lmeval_record(i, f"a text of {i + 2} words here",
                              {"gen_args_0": {"arg_0": f"a text of {i + 2} words here"}},
                              [[-20.0 - i]], [-20.0 - i],
                              {"word_perplexity": [-20.0 - i, 6], "byte_perplexity": [-20.0 - i, 24],
                               "bits_per_byte": [-20.0 - i, 24]}) for i in range(4)]
    for name, records in (("lambada_like", ll), ("wikitext_like", rolling)):
        (folder / f"samples_{name}_{stamp}.jsonl").write_text(
            "\n".join(json.dumps(r) for r in records) + "\n")
    return folder


def test_text_on_an_lmeval_folder_scores_the_generation_task_alone(tmp_path, capsys):
    folder = _lmeval_folder(tmp_path)
    table = load_table(folder)
    assert len(table.frame) == 6 + 6 + 10 + 4
    kinds = table.frame.groupby("task_name")["output_type"].first().to_dict()
    assert kinds == {"arith_gen": "generate_until", "arith_mc": "multiple_choice",
                     "lambada_like": "loglikelihood", "wikitext_like": "loglikelihood_rolling"}
    result = _run(text, table, text.Options())
    (em,) = result.find("exact_match")
    (results_path,) = glob.glob(str(folder / "results_*.json"))
    reported = json.load(open(results_path))["results"]["arith_gen"]["exact_match,none"]
    assert em["value"] == pytest.approx(reported) and em["n"] == 6 and em["group"] == "arith_gen"
    assert "rows:generated-text-only" in result.signature and "groups:separate" in result.signature
    (note,) = [n for n in result.notes if "tasks without generated text" in n]
    assert note.startswith("20 of 26 rows") and "lambada_like: loglikelihood, 10 rows" in note
    assert cli_main(["text", str(folder), "--json"]) == 0
    records = json.loads(capsys.readouterr().out)["results"]
    assert {(r["metric"], r["group"], r["n"]) for r in records if r["metric"] == "exact_match"} \
        == {("exact_match", "arith_gen", 6)}


def test_text_reports_two_generation_tasks_each_named(tmp_path):
    folder = _lmeval_folder(tmp_path)
    gen = next(folder.glob("samples_arith_gen_*.jsonl"))
    lines = [json.loads(x) for x in gen.read_text().splitlines()]
    for r in lines:  # a second generation task: the same documents, answers always right
        r["filtered_resps"] = [r["target"]]
        r["exact_match"] = 1.0
    (folder / "samples_arith_gen2_2026-12-01T15-27-30.816062.jsonl").write_text(
        "\n".join(json.dumps(r) for r in lines) + "\n")
    result = _run(text, load_table(folder), text.Options())
    got = {r["group"]: (r["value"], r["n"]) for r in result.find("exact_match")}
    assert got == {"arith_gen": (pytest.approx(0.5), 6), "arith_gen2": (1.0, 6)}
    assert any("each is scored on its own" in n for n in result.notes)
    assert "arith_gen2" in " ".join(answer(result).sentences)


def test_lmeval_perplexity_columns_are_named_as_what_they_hold(tmp_path):
    folder = _lmeval_folder(tmp_path)
    ll = load_table(next(folder.glob("samples_lambada_like_*.jsonl")))
    assert "perplexity" not in ll.frame.columns
    assert ll.frame["perplexity.loglikelihood"].tolist() == [-1.5 - i for i in range(10)]
    assert any("'perplexity.loglikelihood'" in n and "log-likelihood of the target" in n
               for n in ll.notes)
    rolling = load_table(next(folder.glob("samples_wikitext_like_*.jsonl")))
    assert rolling.frame["word_perplexity.loglikelihood"].tolist() == [-20.0, -21.0, -22.0, -23.0]
    assert rolling.frame["word_perplexity.words"].tolist() == [6, 6, 6, 6]
    assert rolling.frame["bits_per_byte.bytes"].tolist() == [24] * 4
    assert "outcome" not in rolling.frame.columns  # no 0/1 metric: no outcome
    with pytest.raises(DataError, match="no rows of a task that generates text"):
        _run(text, rolling, text.Options())
    stacked = load_table(folder)
    assert "outcome" not in stacked.frame.columns
    (note,) = [n for n in stacked.notes if "scored by different metrics" in n]
    assert "no 0/1 metric: wikitext_like" in note


# ------------------------------------------------- the same class in the other readers (hunt)


def test_inspect_logs_of_two_tasks_are_never_paired_or_pooled_by_sample_id(tmp_path):
    """Two tasks of one model whose sample ids repeat: before, the logs 'clashed' (each file
    became a system) and Compare paired task A's sample 1 with task B's sample 1."""
    log = json.load(open(fixture("inspect_errors", "errors_alpha.json")))
    log["eval"]["task"] = "arith_other"
    log["eval"]["eval_id"] = "another-run"
    other = tmp_path / "other.json"
    other.write_text(json.dumps(log))
    table = load_many([ALPHA, other])
    assert set(table.frame["model"]) == {"mockllm/alpha"}  # one system, two tasks
    assert table.frame["item"].is_unique
    assert table.frame["item"].iloc[0].startswith("arith_errors/")
    assert table.roles["task_name"] == "group" and table.roles["task_sample"] == "cluster"
    assert any("2 tasks" in n and "'task_sample'" in n for n in table.notes)
    with pytest.raises(DataError, match="1 system"):
        _run(compare, table, compare.Options(resamples=1000))
    result = _run(passk, table, passk.Options(task="task_sample", ks=(1,)))
    assert result.find("pass@1")[0]["n"] == 8  # 4 samples x 2 tasks, never merged
    by_task = {r["group"]: r["n"] for r in _run(text, table, text.Options()).find("exact_match")}
    assert by_task == {"arith_errors": 4, "arith_other": 4}  # each task's 4 samples (their epochs one item)


def test_promptfoo_providers_with_the_same_id_stay_two_systems():
    """promptfoo writes both providers of one id (no labels, different options) under that id;
    before, their rows were one system (Cost pooled them, Compare refused repeated items)."""
    path = fixture("promptfoo_same_id", "results.json")
    rows = json.load(open(path))["results"]["results"]
    assert len({json.dumps(r["provider"]) for r in rows}) == 1  # what promptfoo wrote
    table = load_table(path)
    name = "file://flaky_provider.js"
    assert set(table.frame["provider"]) == {f"{name} #1", f"{name} #2"}
    # promptIdx 0, 1 are the first provider's two prompts; 2, 3 the second's
    first = table.frame[table.frame["provider"] == f"{name} #1"]
    assert sorted(r["promptIdx"] for r in rows if r["promptIdx"] in (0, 1)) == [0, 0, 1, 1]
    assert len(first) == 4 and first["item"].is_unique
    assert any("share a name" in n for n in table.notes)
    result = _run(cost, table, cost.Options())
    assert {r["system"]: r["n"] for r in result.find("success_rate")} == {f"{name} #1": 4,
                                                                         f"{name} #2": 4}


def test_aggregate_leaves_provider_errors_out_or_counts_them():
    from workbench.analyses import aggregate

    table = load_table(PROMPTFOO)
    options = aggregate.Options(outcome="success", group="provider")
    rates = {r["group"]: (r["value"], r["n"]) for r in _run(aggregate, table, options).find("rate")}
    assert rates == {"echo": (pytest.approx(3 / 5), 5), "flaky": (pytest.approx(2 / 3), 3)}
    from dataclasses import replace

    counted = _run(aggregate, table, replace(options, errored="failure"))
    rates = {r["group"]: (r["value"], r["n"]) for r in counted.find("rate")}
    assert rates == {"echo": (pytest.approx(3 / 5), 5), "flaky": (pytest.approx(2 / 5), 5)}
    assert counted.signature.endswith("|errored:failures")


def test_a_refusal_for_want_of_an_outcome_says_the_metrics_differ():
    folder = load_table(fixture("lmeval"))
    with pytest.raises(DataError, match=r"scored by different metrics \(exact_match: arith_gen; "
                                        r"acc: arith_mc\)"):
        _run(compare, folder, compare.Options())


def test_two_lmeval_runs_of_one_model_in_one_folder(tmp_path):
    """`lm_eval --seed 1` then `--seed 2` into one output path: one model folder with two runs
    (two date stamps).  Each samples file takes its own run's results file (its seed), and the
    two runs are two systems named by what tells their configuration apart (the seed), every
    task of a run in one system (issue 43: never lm-eval's random folder ids or a date)."""
    folder = tmp_path / "dummy"
    folder.mkdir()
    for seed in (1, 2):
        for path in glob.glob(fixture("lmeval", f"dummy-seed{seed}", "*")):
            if os.path.basename(path).startswith("results_"):
                value = json.load(open(path))
                value["model_name"] = "dummy"
                value["config"]["model_args"] = {"pretrained": "dummy"}
                (folder / os.path.basename(path)).write_text(json.dumps(value))
            else:
                shutil.copy(path, folder)
    table = load_table(folder)
    runs = {"2026-12-01T15-27-30.816062": "1", "2026-12-01T15-28-15.119863": "2"}
    assert set(table.frame["model"]) == {f"dummy seed {s}" for s in runs.values()}
    for stamp, seed in runs.items():  # each run's files under one system, with both tasks
        rows = table.frame[table.frame["run"] == stamp]
        assert set(rows["model"]) == {f"dummy seed {seed}"} and len(rows) == 12
        gen = next(p for p in glob.glob(fixture("lmeval", f"dummy-seed{seed}", "samples_arith_gen_*")))
        want = [json.loads(x)["exact_match"] for x in open(gen)]
        assert rows[rows["task_name"] == "arith_gen"]["exact_match"].tolist() == want
    seeds = [n for n in table.notes if "run configuration" in n]
    assert any("random_seed=1" in n and "samples_arith_gen_2026-12-01T15-27-30" in n for n in seeds)
    assert any("random_seed=2" in n and "samples_arith_gen_2026-12-01T15-28-15" in n for n in seeds)
    assert any("each run is a system named by what tells its configuration apart" in n
               and "'dummy seed 1', 'dummy seed 2'" in n for n in table.notes)


def test_errored_rows_as_failures_are_refused_when_lower_is_better():
    with pytest.raises(OptionError, match="best score when lower is better"):
        _run(compare, load_many([ALPHA, BETA]),
             compare.Options(errored="failure", better="lower", scores="continuous"))


def test_an_error_column_of_a_csv_named_on_the_command_line(tmp_path, capsys):
    """Any table: --error names the column; 0/false cells are not errors; rows named by line."""
    path = tmp_path / "runs.csv"
    path.write_text("task,success,failed\nt1,1,0\nt1,0,1\nt1,1,false\nt2,0,\nt2,1,0\nt2,0,timeout\n")
    assert cli_main(["passk", str(path), "--task", "task", "--success", "success", "--k", "1",
                     "--error", "failed", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    # by hand: t1 keeps 1, 1 -> 1.0; t2 keeps 0, 1 -> 0.5; mean 0.75
    assert out["results"][0]["value"] == pytest.approx(0.75)
    assert out["signature"].endswith("errored:excluded")
    (note,) = [n for n in out["notes"] if "ended with an error" in n]
    assert "2 of 6 rows ended with an error (column 'failed'): line 3, line 7." in note
    assert cli_main(["passk", str(path), "--task", "task", "--success", "success", "--k", "1"]) == 0
    assert "errored" not in capsys.readouterr().out  # no error column named: no convention


def test_promptfoo_cached_responses_are_said(tmp_path):
    value = json.load(open(PROMPTFOO))
    for r in value["results"]["results"][:3]:
        r["response"]["cached"] = True
    path = tmp_path / "cached.json"
    path.write_text(json.dumps(value))
    table = load_table(path)
    assert table.frame["cached"].tolist()[:4] == [1, 1, 1, 0]
    assert any(n.startswith("3 of 10 responses came from promptfoo's cache") for n in table.notes)


@pytest.mark.parametrize("record,want", [
    ({"arguments": {"gen_args_0": {"arg_0": "Q", "arg_1": {"until": ["\n"]}}}}, "generate_until"),
    ({"arguments": [["Q", {"until": ["\n"]}]]}, "generate_until"),  # lm-eval's list form
    ({"arguments": {"gen_args_0": {"arg_0": "Q", "arg_1": " a"},
                    "gen_args_1": {"arg_0": "Q", "arg_1": " b"}}}, "multiple_choice"),
    ({"arguments": [["Q", " a"], ["Q", " b"]]}, "multiple_choice"),
    ({"arguments": {"gen_args_0": {"arg_0": "Q", "arg_1": " a"}}}, "loglikelihood"),
    ({"arguments": {"gen_args_0": {"arg_0": "a whole text"}}}, "loglikelihood_rolling"),
    ({"arguments": [["a whole text"]]}, "loglikelihood_rolling"),
    ({"filtered_resps": ["an answer"]}, "generate_until"),
    ({"filtered_resps": [[-1.0, True]]}, "unknown"),
])
def test_lmeval_output_type_from_the_requests(record, want):
    from workbench.io.formats import lmeval

    assert lmeval.output_type(None, "t", record) == want
    assert lmeval.output_type({"configs": {"t": {"output_type": "loglikelihood"}}}, "t",
                              record) == "loglikelihood"  # the task's configuration first


def test_promptfoo_csv_export_reads_as_its_json_results():
    """promptfoo's own CSV export is one row per test and provider, as its JSON results: the same
    successes and provider errors, so Compare gives the same answer on both (first contact)."""
    from pathlib import Path

    from workbench.analyses import compare

    here = Path(__file__).resolve().parents[2] / "fixtures" / "formats" / "promptfoo_errors"
    from_csv = load_table(here / "results.csv")
    from_json = load_table(here / "results.json")
    key = ["provider", "test"]
    a = from_csv.frame.set_index(key).sort_index()
    b = from_json.frame[from_json.frame["provider"].isin(a.index.get_level_values(0))]
    b = b.assign(test=b["description"] if "description" in b else b["test"]).set_index(key).sort_index()
    assert list(a.index) == list(b.index)
    assert (a["success"].to_numpy() == b["success"].to_numpy()).all()
    assert ((a["error"] != "").to_numpy() == (b["error"].astype(str) != "").to_numpy()).all()
    opts = compare.Options(system="provider", item="test", outcome="success")
    c1 = compare.run(from_csv, opts)
    assert c1.value("wins") == 0 and c1.value("losses") == 1 and c1.value("ties") == 2
