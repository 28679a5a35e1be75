"""MTEB result files as published in embeddings-benchmark/results (tests/fixtures/formats/
mteb_variants/README.md): 2.x retrieval, clustering, bitext mining and multilingual STS files, and
mteb 1.x files without main_score, with renamed tasks and renamed subsets. Every main score equals
what mteb's own loader (TaskResult.from_disk of mteb 2.26.24, in expected.json) reads."""

from __future__ import annotations

import json
import math
import os

import pytest

from workbench.io import load_table

HERE = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "formats", "mteb_variants"))
with open(os.path.join(HERE, "expected.json"), encoding="utf-8") as _fh:
    EXPECTED = json.load(_fh)["files"]
#: mteb 2.x names of a metric and the reader's names of it in a 1.x file (nested groups flattened)
OLD = {"cosine_spearman": "cos_sim.spearman", "max_ap": "max.ap"}


@pytest.mark.parametrize("rel", sorted(EXPECTED))
def test_every_main_score_as_mteb_reads_it(rel):
    want = EXPECTED[rel]
    table = load_table(os.path.join(HERE, rel))
    frame = table.frame
    got = {f"{sp}|{su}": v for sp, su, v in zip(frame["split"], frame["subset"], frame["main_score"])}
    assert set(got) == set(want["main_score"])
    assert set(frame["task"]) == {want["task"]}  # as mteb's loader names it (PPC is PpcPC)
    for key, value in want["main_score"].items():
        assert got[key] == pytest.approx(value, abs=1e-12), key
    assert sum(got.values()) / len(got) == pytest.approx(want["get_score"], abs=1e-9)
    names = set(frame["main_score_name"])
    assert len(names) == 1
    name = names.pop()
    if rel.endswith("ImageCoDeT2IRetrieval.json"):
        # the task's main score (hit_rate_at_3) is not in this 1.14 file: equal to two metrics, not named
        assert name == "" and "hit_rate_at_3" not in frame.columns
    else:
        assert name in (want["main_score_name"], OLD.get(want["main_score_name"]))
        assert all(math.isclose(a, b, abs_tol=1e-12) for a, b in zip(frame[name], frame["main_score"]))


def test_results_repository_revision_folders_are_not_models():
    table = load_table(os.path.join(HERE, "results", "BAAI__bge-small-zh"))
    assert set(table.frame["model"]) == {"BAAI/bge-small-zh"}
    assert set(table.frame["revision"]) == {"no_revision_available"}
    assert sorted(table.frame["task"]) == ["LCQMC", "T2Retrieval"]


def test_old_monolingual_sts_with_only_metric_groups_is_one_default_subset():
    path = os.path.join(HERE, "results", "BAAI__bge-small-zh", "no_revision_available", "LCQMC.json")
    frame = load_table(path).frame
    assert list(frame["subset"]) == ["default"]  # cos_sim, euclidean, manhattan are metric groups, not languages
    assert frame["cos_sim.spearman"][0] == 0.7260740159685861 and frame["main_score"][0] == 0.7260740159685861


def test_models_folder_through_the_command_line(cli):
    folder = os.path.join(HERE, "results")
    desc = cli("describe", folder)
    items = {r["system"]: r["value"] for r in desc["results"] if r["metric"] == "items" and r.get("system")}
    want: dict[str, int] = {}
    for rel, w in EXPECTED.items():
        model = rel.split("/")[1].replace("__", "/")
        want[model] = want.get(model, 0) + len(w["main_score"])
    assert items == want
    out = cli("runs", folder)
    for model, n in want.items():
        scores = [v for rel, w in EXPECTED.items() if rel.split("/")[1].replace("__", "/") == model
                  for v in w["main_score"].values()]
        got = next(r for r in out["results"] if r["metric"] == "run_mean" and r["system"] == model)
        assert got["n"] == n and got["value"] == pytest.approx(sum(scores) / n, abs=1e-9)


@pytest.mark.parametrize("analysis", ["aggregate", "repeats", "slices", "compare", "passk", "cost", "judge",
                                      "rubric", "text", "ranking"])
def test_each_analysis_answers_or_refuses_in_one_sentence(capsys, analysis):
    from workbench.cli.main import main

    path = os.path.join(HERE, "results", "sentence-transformers__paraphrase-multilingual-mpnet-base-v2")
    code = main([analysis, path, "--json"])
    out, err = capsys.readouterr()
    assert code in (0, 2), err
    if code == 0:
        assert json.loads(out)["results"]
    else:  # one line naming the file, never a traceback
        assert "Traceback" not in err and err.strip().count("\n") == 0 and "paraphrase-multilingual" in err


def test_a_missing_main_score_is_filled_as_mteb_does_and_a_nan_one_stays_blank(tmp_path):
    """An edited copy of a real 2.x file (HUMESTS22.json): subset 'en' main_score NaN, 'ar' without it."""
    rel = next(r for r in EXPECTED if r.endswith("HUMESTS22.json"))
    with open(os.path.join(HERE, rel), encoding="utf-8") as fh:
        value = json.load(fh)
    value["scores"]["test"][0]["main_score"] = float("nan")
    del value["scores"]["test"][1]["main_score"]
    path = tmp_path / "HUMESTS22.json"
    path.write_text(json.dumps(value), encoding="utf-8")
    table = load_table(str(path))
    got = dict(zip(table.frame["subset"], table.frame["main_score"]))
    assert math.isnan(got["en"])
    assert got["ar"] == value["scores"]["test"][1]["cosine_spearman"]  # the task's main metric
    assert got["ru"] == EXPECTED[rel]["main_score"]["test|ru"]
    assert any("main_score NaN" in n for n in table.notes)
