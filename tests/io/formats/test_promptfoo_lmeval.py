"""promptfoo results and lm-evaluation-harness outputs written by the real tools
(tests/fixtures/formats/make_fixtures.py): Cost & latency and Compare on them equal the same
data as CSV (built here from the JSON with the standard library)."""

from __future__ import annotations

import csv
import glob
import json
import os

import pandas as pd
import pytest

from workbench.analyses import aggregate, compare, cost
from workbench.cli.main import main as cli_main
from workbench.core.errors import DataError
from workbench.io import load_table
from workbench.io import load_many
from workbench.io.roles import guess_roles

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "fixtures", "formats")


@pytest.fixture
def fixture_path():
    return lambda *parts: os.path.abspath(os.path.join(FIXTURES, *parts))



def _promptfoo_csv(path, out):
    rows = json.load(open(path))["results"]["results"]
    with open(out, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["system", "item", "success", "cost", "latency"])
        for r in rows:
            writer.writerow([r["provider"]["label"], r["testIdx"], int(r["success"]), r["cost"],
                             r["latencyMs"]])
    return rows


def test_promptfoo_feeds_cost_and_compare_as_the_csv(fixture_path, tmp_path):
    path = fixture_path("promptfoo", "results.json")
    table = load_table(path)
    assert table.format == "promptfoo" and table.panel == "cost"
    assert guess_roles(table) == {"provider": "system", "item": "item", "success": "success",
                                  "cost": "cost", "latency_ms": "latency", "output": "prediction"}
    rows = _promptfoo_csv(path, tmp_path / "same.csv")
    assert len(table.frame) == len(rows) == 12  # 6 tests x 2 providers
    assert table.notes[0].startswith("Read as promptfoo results (2 providers")
    same = load_table(tmp_path / "same.csv")
    for method in ("linear", "nearest_rank"):
        ours = cost.run(table, cost.Options(system="provider", success="success", cost="cost",
                                            latency="latency_ms", percentile_method=method))
        theirs = cost.run(same, cost.Options(system="system", success="success", cost="cost",
                                             latency="latency", percentile_method=method))
        # promptfoo's tokens per result add effort records (tokens per request and per success)
        # that the hand-made CSV has no column for
        mine = [r for r in ours.records if not r["metric"].startswith("tokens_")]
        assert [(r["metric"], r.get("system"), r.get("n")) for r in mine] == \
            [(r["metric"], r.get("system"), r.get("n")) for r in theirs.records]
        assert [r["value"] for r in mine] == pytest.approx([r["value"] for r in theirs.records])
    (rate,) = [r for r in ours.records if r["metric"] == "success_rate" and r["system"] == "priced"]
    assert rate["value"] == pytest.approx(4 / 6)
    ours = compare.run(table, compare.Options(system="provider", item="item", outcome="success",
                                              resamples=1000))
    theirs = compare.run(same, compare.Options(system="system", item="item", outcome="success",
                                               resamples=1000))
    assert [r["value"] for r in ours.records] == pytest.approx([r["value"] for r in theirs.records])


def test_cli_cost_on_promptfoo_needs_no_flags(fixture_path, capsys):
    code = cli_main(["cost", fixture_path("promptfoo", "results.json"), "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    assert {r["system"] for r in out["results"] if r["metric"] == "cost_per_success"} == {"echo", "priced"}


def test_promptfoo_test_ids_and_variables_stay_text(fixture_path):
    frame = load_table(fixture_path("promptfoo", "results.json")).frame
    assert pd.api.types.is_string_dtype(frame["test"])
    assert set(frame["vars.answer"]) >= {"1.0", "4"}  # "1.0" is not the number 1
    assert frame["latency_ms"].dtype.kind == "f" and frame["cost"].dtype.kind == "f"


def _lmeval_files(fixture_path, model):
    return sorted(glob.glob(os.path.join(fixture_path("lmeval"), model, "samples_*.jsonl")))


def test_lmeval_samples_rows_and_config_notes(fixture_path):
    (mc,) = [p for p in _lmeval_files(fixture_path, "dummy-seed1") if "arith_mc" in p]
    table = load_table(mc)
    records = [json.loads(line) for line in open(mc)]
    assert table.format == "lm_eval_samples" and table.panel == "aggregate"
    assert table.frame["doc_id"].tolist() == [str(r["doc_id"]) for r in records]
    assert table.frame["acc"].tolist() == [r["acc"] for r in records]
    assert table.frame["outcome"].tolist() == [r["acc"] for r in records]
    assert set(table.frame["model"]) == {"dummy-seed1"} and set(table.frame["task_name"]) == {"arith_mc"}
    assert any("model_args" in n and "random_seed=1" in n for n in table.notes)
    assert table.line_of(2) == 3


def test_lmeval_results_json_alone(fixture_path):
    (path,) = glob.glob(os.path.join(fixture_path("lmeval"), "dummy-seed1", "results_*.json"))
    table = load_table(path)
    value = json.load(open(path))["results"]
    assert table.format == "lm_eval_results"
    got = table.frame.set_index(["task", "metric"])["value"]
    assert got["arith_mc", "acc"] == value["arith_mc"]["acc,none"]
    assert got["arith_gen", "exact_match"] == value["arith_gen"]["exact_match,none"]


def test_lmeval_models_compare_paired_by_task_and_doc_as_the_csv(fixture_path, tmp_path):
    """Each task compared on its own metric (acc for arith_mc, exact_match for arith_gen) equals
    the same data as CSV; the files of both tasks stacked get no pooled 'outcome' (issue 22)."""
    files = _lmeval_files(fixture_path, "dummy-seed1") + _lmeval_files(fixture_path, "dummy-seed2")
    table = load_many(files)
    folder = load_table(fixture_path("lmeval"))  # the output folder: one sub-folder per model
    assert len(folder.frame) == len(table.frame) == 24
    assert folder.panel == "text"  # no pooled outcome to compare: the generation task, per task
    for loaded in (table, folder):
        assert "outcome" not in loaded.frame.columns and "outcome" not in loaded.roles
        (note,) = [n for n in loaded.notes if "scored by different metrics" in n]
        assert "exact_match: arith_gen" in note and "acc: arith_mc" in note
    (reported,) = [json.load(open(p))["results"] for p in
                   glob.glob(os.path.join(fixture_path("lmeval"), "dummy-seed1", "results_*.json"))]
    for task, metric in (("arith_mc", "acc"), ("arith_gen", "exact_match")):
        paths = [p for p in files if f"samples_{task}_" in p]
        ours_table = load_many(paths)
        assert "outcome" in ours_table.frame.columns  # one metric: the outcome is that metric
        csv_path = tmp_path / f"{task}.csv"
        with open(csv_path, "w", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(["model", "item", "outcome"])
            for path in paths:
                model = os.path.basename(os.path.dirname(path))
                for line in open(path):
                    r = json.loads(line)
                    writer.writerow([model, f"{task}/{r['doc_id']}", r[metric]])
        options = compare.Options(system="model", item="item", outcome="outcome", resamples=1000)
        ours = compare.run(ours_table, options)
        theirs = compare.run(load_table(csv_path), options)
        assert [r["value"] for r in ours.records] == pytest.approx([r["value"] for r in theirs.records])
        assert ours.find("diff")[0]["n"] == 6
        # one model, one task: the rate is lm-eval's own number in its results file
        one = load_table([p for p in paths if "dummy-seed1" in p][0])
        rate = aggregate.run(one, aggregate.Options(outcome="outcome", group="task_name"))
        assert rate.find("micro")[0]["value"] == pytest.approx(reported[task][f"{metric},none"])
    # naming a metric on the stacked tasks: the other task's rows are empty, refused by name
    with pytest.raises(DataError, match="acc"):
        compare.run(table, compare.Options(system="model", item="item", outcome="acc"))


def test_two_lmeval_model_folders_stack(fixture_path, capsys):
    """Issue 22 item 5: two output folders given side by side (each a stack of its files)."""
    seed1, seed2 = fixture_path("lmeval", "dummy-seed1"), fixture_path("lmeval", "dummy-seed2")
    table = load_many([seed1, seed2])
    assert len(table.frame) == 24
    assert set(table.frame["file"]) == {f"dummy-seed{s}/{os.path.basename(p)}" for s in (1, 2)
                                        for p in _lmeval_files(fixture_path, f"dummy-seed{s}")}
    assert set(table.frame["model"]) == {"dummy-seed1", "dummy-seed2"}
    code = cli_main(["text", seed1, seed2, "--json"])
    out = capsys.readouterr()
    assert code == 0, out.err
    records = json.loads(out.out)["results"]
    em = {(r["system"], r["group"]): r for r in records if r["metric"] == "exact_match"}
    assert set(em) == {("dummy-seed1", "arith_gen"), ("dummy-seed2", "arith_gen")}
    assert {r["n"] for r in em.values()} == {6}
    # Compare on the two folders (issue 43): the primary scorer, the first task's first metric
    # (exact_match), on the task it scores; the other task is named with its own metric
    assert cli_main(["compare", seed1, seed2, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert "scorer:exact_match(recorded metric)" in doc["signature"]
    assert any("Task 'arith_mc' is not scored by 'exact_match'" in n and "--scorer acc" in n
               for n in doc["notes"])
    assert {r["n"] for r in doc["results"] if r["metric"] in ("wins", "losses", "ties")} == {6}
    assert cli_main(["compare", seed1, seed2, "--scorer", "acc", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert {r["n"] for r in doc["results"] if r["metric"] in ("wins", "losses", "ties")} == {6}
    assert any("Task 'arith_gen' is not scored by 'acc'" in n for n in doc["notes"])


def test_a_folder_without_results_is_still_refused(tmp_path):
    (tmp_path / "notes.txt").write_text("x")
    with pytest.raises(DataError, match="is a folder, not a file"):
        load_table(tmp_path)


def test_lmeval_several_filters_give_one_row_per_document(tmp_path):
    """gsm8k-style samples: each document once per filter (strict-match, flexible-extract)."""
    folder = tmp_path / "org__model"
    folder.mkdir()
    lines = []
    for doc in range(3):
        for name, ok in (("strict-match", doc == 0), ("flexible-extract", doc < 2)):
            lines.append(json.dumps({"doc_id": doc, "doc": {"q": doc}, "target": str(doc),
                                     "arguments": {"gen_args_0": {"arg_0": f"Q{doc}", "arg_1": {}}},
                                     "resps": [["x"]], "filtered_resps": [f"a{doc}"], "filter": name,
                                     "metrics": ["exact_match"], "exact_match": float(ok)}))
    path = folder / "samples_gsm8k_2026-01-01T00-00-00.000000.jsonl"
    path.write_text("\n".join(lines) + "\n")
    table = load_table(path)
    frame = table.frame
    assert frame["doc_id"].tolist() == ["0", "1", "2"]
    assert frame["exact_match,strict-match"].tolist() == [1.0, 0.0, 0.0]
    assert frame["exact_match,flexible-extract"].tolist() == [1.0, 1.0, 0.0]
    assert frame["outcome"].tolist() == [1.0, 0.0, 0.0]  # the first filter's metric, as noted
    assert "column 'outcome' is 'exact_match,strict-match'" in table.notes[0]
    assert frame["model"].tolist() == ["org__model"] * 3  # no results file: the folder's name
    assert [table.line_of(i) for i in range(3)] == [1, 3, 5]
    path.write_text("\n".join(lines + [lines[0]]) + "\n")
    with pytest.raises(DataError, match="line 7 repeats document 0 of filter 'strict-match'"):
        load_table(path)


def test_promptfoo_jsonl_output_reads_as_the_json(fixture_path, tmp_path):
    rows = json.load(open(fixture_path("promptfoo", "results.json")))["results"]["results"]
    path = tmp_path / "results.jsonl"  # promptfoo eval -o results.jsonl: one result per line
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    table = load_table(path)
    assert table.format == "promptfoo" and table.panel == "cost"
    whole = load_table(fixture_path("promptfoo", "results.json")).frame
    pd.testing.assert_frame_equal(table.frame, whole)


def test_an_lmeval_line_without_doc_id_is_named(fixture_path, tmp_path):
    (mc,) = [p for p in _lmeval_files(fixture_path, "dummy-seed1") if "arith_mc" in p]
    lines = open(mc).read().splitlines()
    broken = json.loads(lines[3])
    del broken["doc_id"]
    lines[3] = json.dumps(broken)
    path = tmp_path / os.path.basename(mc)
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(DataError, match="line 4 has no 'doc_id'; expected one lm-evaluation-harness"):
        load_table(path)
