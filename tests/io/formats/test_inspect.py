"""Inspect AI logs written by the real inspect_ai (tests/fixtures/formats/make_fixtures.py):
the reader's rows equal inspect_ai's own read_eval_log (inspect_expected.csv); pass@k over
epochs and the paired comparison of two logs equal the same data as CSV."""

from __future__ import annotations

import os

import json

import numpy as np
import pandas as pd
import pytest

from workbench.analyses import compare, passk
from workbench.cli.main import main as cli_main
from workbench.core.errors import DataError
from workbench.io import load_table
from workbench.io import load_many
from workbench.io.roles import guess_roles

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "fixtures", "formats")


@pytest.fixture
def fixture_path():
    return lambda *parts: os.path.abspath(os.path.join(FIXTURES, *parts))


SCORERS = ("match", "includes", "graded")


@pytest.fixture
def expected(fixture_path):
    frame = pd.read_csv(fixture_path("inspect", "inspect_expected.csv"), dtype=str,
                        keep_default_na=False)
    for col in (*SCORERS, "input_tokens", "output_tokens"):
        frame[col] = frame[col].astype(float)
    frame["epoch"] = frame["epoch"].astype(int)
    return frame


@pytest.mark.parametrize("log", ["arith_alpha.eval", "arith_beta.eval", "arith_beta.json"])
def test_rows_equal_inspect_read_eval_log(fixture_path, expected, log):
    table = load_table(fixture_path("inspect", log))
    assert table.format == "inspect"
    frame = table.frame
    want = expected[expected["log"] == log]
    assert len(frame) == len(want) == 12  # 4 samples x 3 epochs
    ours = frame.set_index(["sample_id", "epoch"])
    for _, row in want.iterrows():
        got = ours.loc[(row["sample_id"], row["epoch"])]
        assert got["model"] == row["model"] and got["task_name"] == row["task"]
        for col in (*SCORERS, "input_tokens", "output_tokens"):
            assert got[col] == row[col], (log, row["sample_id"], row["epoch"], col)
    # ids: the int 1 and the string "1.0" are two samples; "007" keeps its zeros
    assert set(frame["sample_id"]) == {"1", "1.0", "q3", "007"}
    assert pd.api.types.is_string_dtype(frame["sample_id"])
    assert "C/I/P/N read as 1/0/0.5/0" in table.notes[0]
    assert frame.loc[frame["sample_id"] == "q3", "target"].tolist() == ["6"] * 3
    assert frame.loc[(frame["sample_id"] == "1") & (frame["epoch"] == 1), "input"].item() == "What is 1+1?"
    assert (frame["total_time"] > 0).all()
    assert guess_roles(table)["match"] == "success" and table.panel == "passk"


def test_eval_and_json_logs_of_one_run_read_alike(fixture_path):
    a = load_table(fixture_path("inspect", "arith_beta.eval")).frame
    b = load_table(fixture_path("inspect", "arith_beta.json")).frame
    cols = ["sample_id", "epoch", *SCORERS, "input", "target", "output", "answer"]
    # two runs of the same scripted task: the same scores, sample by sample
    pd.testing.assert_frame_equal(a[cols], b[cols])


def test_passk_over_epochs_equals_the_csv(fixture_path, expected, tmp_path):
    table = load_table(fixture_path("inspect", "arith_alpha.eval"))
    ours = passk.run(table, passk.Options(task="sample_id", success="match", ks=(1, 2, 3)))
    want = expected[expected["log"] == "arith_alpha.eval"]
    csv_path = tmp_path / "same.csv"
    want[["sample_id", "match"]].to_csv(csv_path, index=False)
    theirs = passk.run(load_table(csv_path), passk.Options(task="sample_id", success="match",
                                                           ks=(1, 2, 3)))
    assert [r["value"] for r in ours.records] == pytest.approx([r["value"] for r in theirs.records])
    # by hand: per sample c of 3 epochs; pass@1 = mean c/3
    c = want.groupby("sample_id")["match"].sum()
    (p1,) = ours.find("pass@1")
    assert p1["value"] == pytest.approx((c / 3).mean()) and p1["n"] == 4


def test_two_logs_give_a_paired_comparison(fixture_path, expected, tmp_path, capsys):
    paths = [fixture_path("inspect", "arith_alpha.eval"), fixture_path("inspect", "arith_beta.eval")]
    table = load_many(paths)
    assert table.panel == "compare"
    assert table.roles["item"] == "item" and table.roles["sample_id"] == "cluster"
    options = compare.Options(system="model", item="item", outcome="match", cluster="sample_id",
                              resamples=2000)
    ours = compare.run(table, options)
    want = expected[expected["log"] != "arith_beta.json"].copy()
    want["item"] = want["sample_id"] + " (epoch " + want["epoch"].astype(str) + ")"
    csv_path = tmp_path / "same.csv"
    want[["model", "item", "sample_id", "match"]].to_csv(csv_path, index=False)
    theirs = compare.run(load_table(csv_path), options)
    assert ours.find("diff")[0]["n"] == 12  # 4 samples x 3 epochs, paired
    for metric in ("wins", "losses", "ties", "diff", "sign_test_p", "mcnemar_p", "bootstrap_ci"):
        (a,), (b,) = ours.find(metric), theirs.find(metric)
        assert a["value"] == pytest.approx(b["value"]) and a["n"] == b["n"], metric
        if metric == "bootstrap_ci":
            assert (a["ci_low"], a["ci_high"]) == pytest.approx((b["ci_low"], b["ci_high"]))
    # the command line needs no column flags, and compares the samples (items), each sample's
    # 3 epochs reduced by their mean as Inspect reduces them (never an epoch as an item)
    code = cli_main(["compare", *paths, "--resamples", "2000", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    per_sample = want.groupby(["model", "sample_id"], as_index=False)["match"].mean()
    reduced_csv = tmp_path / "per_sample.csv"
    per_sample.to_csv(reduced_csv, index=False)
    by_hand = compare.run(load_table(reduced_csv), compare.Options(
        system="model", item="sample_id", outcome="match", resamples=2000))
    got = {r["metric"]: r for r in out["results"]}
    for rec in by_hand.records:
        if rec["metric"] in ("mean_diff", "t_test_p", "wilcoxon_p", "randomization_p", "improved", "worse"):
            assert got[rec["metric"]]["value"] == pytest.approx(rec["value"]), rec["metric"]
            assert got[rec["metric"]]["n"] == rec["n"] == 4
    assert "unit:item(mean of repeats)" in out["signature"] and "scorer:match(code)" in out["signature"]


def test_a_zip_that_is_not_an_inspect_log(tmp_path):
    import zipfile

    path = tmp_path / "x.eval"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("notes.txt", "hello")
    with pytest.raises(DataError, match="without 'header.json'.*Inspect .eval log"):
        load_table(path)
    path.write_text("not a zip")
    with pytest.raises(DataError, match="is not a ZIP archive"):
        load_table(path)


def test_a_json_log_without_samples(fixture_path, tmp_path):
    log = json.load(open(fixture_path("inspect", "arith_beta.json")))
    log["samples"] = []
    path = tmp_path / "empty.json"
    path.write_text(json.dumps(log))
    with pytest.raises(DataError, match="with no samples.*log_samples=True"):
        load_table(path)


def test_a_sample_that_failed_and_dict_scores(fixture_path, tmp_path):
    log = json.load(open(fixture_path("inspect", "arith_beta.json")))
    log["status"] = "error"
    failed = log["samples"][0]
    failed["error"] = {"message": "RuntimeError: boom", "traceback": "..."}
    failed["scores"] = {}
    for sample in log["samples"][1:]:  # a scorer giving several values: one column each
        match = sample["scores"]["match"]
        match["value"] = {"accuracy": match["value"], "f1": 0.25}
    path = tmp_path / "log.json"
    path.write_text(json.dumps(log))
    table = load_table(path)
    frame = table.frame.set_index(["sample_id", "epoch"])
    first = (str(failed["id"]), failed["epoch"])
    assert frame.loc[first, "error"] == "RuntimeError: boom"
    assert np.isnan(frame.loc[first, "includes"])
    assert set(frame["match.accuracy"].dropna()) <= {0.0, 1.0} and set(frame["match.f1"].dropna()) == {0.25}
    assert any("status is 'error'" in n for n in table.notes)
    assert any("1 of 12 samples ended with an error (column 'error'): sample " in n for n in table.notes)


def test_text_scores_each_sample_over_its_epochs(fixture_path):
    """Each output is scored, then a sample's epochs are one item (the log's 'item' column, one
    per sample and epoch, is not the item): n counts samples, as Inspect's own metrics do."""
    from workbench.analyses import text

    table = load_table(fixture_path("inspect", "arith_beta.json"))
    assert table.frame["item"].is_unique and table.roles["item"] == "item"
    result = text.run(table, text.Options(prediction="output", reference="target", id="item",
                                          system="model"))
    (em,) = result.find("exact_match")
    frame = table.frame
    hits = (frame["output"] == frame["target"]).astype(float)
    assert em["n"] == frame["sample_id"].nunique() == 4
    assert em["value"] == pytest.approx(hits.groupby(frame["sample_id"]).mean().mean())


def test_a_log_still_being_written_reads_its_samples(fixture_path, tmp_path):
    """An .eval archive without header.json yet (the run is going on): _journal/start.json."""
    import zipfile

    source = zipfile.ZipFile(fixture_path("inspect", "arith_alpha.eval"))
    path = tmp_path / "running.eval"
    from workbench.io.formats import zipread

    data = open(fixture_path("inspect", "arith_alpha.eval"), "rb").read()
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name in source.namelist():
            if name != "header.json":
                archive.writestr(name, zipread.read_member(source, data, name, "x"))
    table = load_table(path)
    assert len(table.frame) == 12 and any("status is 'started'" in n for n in table.notes)


def test_passk_on_two_logs_is_per_sample_not_per_task_name(fixture_path, capsys):
    """The eval's task name is 'task_name': pass@k's task is never guessed to be it."""
    paths = [fixture_path("inspect", "arith_alpha.eval"), fixture_path("inspect", "arith_beta.eval")]
    code = cli_main(["passk", *paths, "--task", "sample_id", "--success", "match", "--k", "1,3",
                     "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    assert {r["n"] for r in out["results"]} == {4}  # 4 samples per model
    # without flags (issue 43): the log declares its items (samples) and repeats (epochs), so
    # pass@k's task is the sample, never the eval's task name, and the same numbers come out
    assert cli_main(["passk", *paths, "--k", "1,3", "--json"]) == 0
    bare = json.loads(capsys.readouterr().out)
    assert [(r["metric"], r.get("system"), r["value"], r["n"]) for r in bare["results"]] == \
        [(r["metric"], r.get("system"), r["value"], r["n"]) for r in out["results"]]


def test_the_first_scorers_explanation_is_kept_when_the_log_has_one():
    """Inspect writes each score's explanation (a model-graded scorer's reasons); the reader
    keeps the first scorer's beside its answer, as the log has it."""
    path = os.path.join(FIXTURES, "inspect", "arith_beta.json")  # the log as Inspect's JSON
    with open(path, encoding="utf-8") as fh:
        samples = json.load(fh)["samples"]
    table = load_table(path)
    want = {(str(s["id"]), int(s["epoch"])): next(iter(s["scores"].values())).get("explanation") for s in samples}
    got = {(sid, int(e)): x for sid, e, x in zip(table.frame["sample_id"], table.frame["epoch"], table.frame["explanation"])}
    assert got == {k: ("" if v is None else str(v)) for k, v in want.items()}
