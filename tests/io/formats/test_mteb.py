"""MTEB results folders written by mteb 2.26.24 and mteb 1.1.1 (tests/fixtures/formats/
make_fixtures_46.py mteb, mteb_old; FINDINGS_46.md): every task, split and subset (language) a
row with its main score named, read from a task file, a model's folder and the results folder;
the models' mean main scores through the command line."""

from __future__ import annotations

import json
import os

import pytest

from workbench.io import load_table

HERE = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "formats"))


def _expected(folder):
    with open(os.path.join(HERE, folder, "expected.json"), encoding="utf-8") as fh:
        return json.load(fh)["results"]


def _rows(folder):
    table = load_table(os.path.join(HERE, folder))
    frame = table.frame
    return table, {(m, t, sp, su): (v, name) for m, t, sp, su, v, name in
                   zip(frame["model"], frame["task"], frame["split"], frame["subset"], frame["main_score"],
                       frame["main_score_name"])}


def test_mteb2_every_subset_with_its_main_score_named():
    table, got = _rows("mteb")
    want = _expected("mteb")
    assert len(got) == len(want)
    for w in want:
        model = w["model_folder"].replace("__", "/")
        value, name = got[(model, w["task"], w["split"], w["hf_subset"])]
        assert value == pytest.approx(w["main_score"], abs=1e-12)
        assert name == w["main_score_name"]  # not in the file: found as MTEB names it
    ev = table.evaluation
    assert ev.primary == "main_score" and {"task", "split", "subset", "languages"} <= set(ev.metadata)
    assert table.roles["model"] == "system"  # two models stacked: the systems
    revision = dict(zip(table.frame["model"], table.frame["revision"]))
    assert revision == {"fixture46/hashed-bow": "r46", "mteb/baseline-random-encoder": "2"}


def test_mteb1_every_language_with_its_main_score_named():
    table, got = _rows("mteb_old")
    want = _expected("mteb_old")
    assert len(got) == len(want)
    for w in want:
        model = w["model_folder"].replace("__", "/")
        value, name = got[(model, w["task"], w["split"], w["language"] or "default")]
        assert value == pytest.approx(w["main_score"], abs=1e-12)
        assert name == w["main_score_name"]
    assert table.evaluation.tool_version == "1.1.1"


def test_one_task_file_alone():
    path = os.path.join(HERE, "mteb", "results", "fixture46__hashed-bow", "r46", "Fixture46STS.json")
    table = load_table(path)
    assert len(table.frame) == 6 and set(table.frame["model"]) == {"fixture46/hashed-bow"}
    assert table.frame["item"][0] == "Fixture46STS/dev/eng"
    assert table.frame["languages"][0] == "eng-Latn"


@pytest.mark.parametrize("folder,subset", [("mteb", "hf_subset"), ("mteb_old", "language")])
def test_the_models_compared_by_slice_on_the_command_line(cli, folder, subset):
    want = _expected(folder)
    out = cli("runs", os.path.join(HERE, folder))
    means = {}
    for w in want:
        means.setdefault(w["model_folder"].replace("__", "/"), []).append(w["main_score"])
    for model, scores in means.items():
        got = next(r for r in out["results"] if r["metric"] == "run_mean" and r["system"] == model)
        assert got["n"] == len(scores) and got["value"] == pytest.approx(sum(scores) / len(scores), abs=1e-9)
    desc = cli("describe", os.path.join(HERE, folder))
    systems = {r["system"]: r["value"] for r in desc["results"] if r["metric"] == "items" and r.get("system")}
    assert systems == {m: len(s) for m, s in means.items()}


@pytest.mark.parametrize("folder,model_dir,subset", [
    ("mteb", os.path.join("fixture46__hashed-bow", "r46"), "hf_subset"),
    ("mteb_old", "fixture46__random-hash", "language")])
def test_a_single_sts_task_lands_on_the_mean_of_its_correlations_in_their_own_unit(cli, folder, model_dir, subset):
    """An STS task's main score is a correlation (values below 0): Aggregation's mean over the
    task's splits and subsets (MTEB's own task score: the mean over them), per split, in the
    correlation's unit, never a percentage and never refused."""
    path = os.path.join(HERE, folder, "results", model_dir, "Fixture46STS.json")
    model = model_dir.split(os.sep)[0].replace("__", "/")
    want = [w for w in _expected(folder) if w["task"] == "Fixture46STS" and w["model_folder"].replace("__", "/") == model]
    assert any(w["main_score"] < 0 for w in want) or folder == "mteb_old"
    table = load_table(path)
    assert table.panel == "aggregate" and table.evaluation.scorer().scale == "measure"
    out = cli("aggregate", path)
    micro = next(r for r in out["results"] if r["metric"] == "micro")
    scores = [w["main_score"] for w in want]
    assert micro["n"] == len(scores) and micro["value"] == pytest.approx(sum(scores) / len(scores), abs=1e-9)
    assert micro["kind"] == "score" and micro["unit"] == "subset"
    for split in {w["split"] for w in want}:
        of = [w["main_score"] for w in want if w["split"] == split]
        got = next(r for r in out["results"] if r["metric"] == "rate" and r["group"] == split)
        assert got["value"] == pytest.approx(sum(of) / len(of), abs=1e-9) and got["n"] == len(of)
    assert "outcome:measure(own-unit)" in out["signature"]
    from workbench.analyses import reading
    from workbench.report.present import answer

    from workbench.analyses.aggregate import Options

    text = " ".join(answer(reading.run("aggregate", table, Options())).sentences)
    assert "mean 'main_score'" in text and f"over {len(scores)} subsets" in text
    assert "%" not in text.replace("95% CI", ""), text
