"""One reading of a plain table: the columns the file's reading takes by their names (item,
system, repeats, judge) are the ones every panel guesses, so "What this file holds" counts what
the panels use and repeats are never counted as items.  Expected values come from the files'
rows (csv / pandas group-bys), not from the workbench."""

from __future__ import annotations

import csv
import json
import os

import numpy as np
import pandas as pd
import pytest

from workbench.analyses import judge, reading, repeats, runs
from workbench.cli.main import main
from workbench.io import load_table

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "resources", "examples")


def cli(capsys, *argv: str) -> dict:
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_runs_nightly_items_are_the_questions_for_the_reading_and_the_runs_panel():
    path = os.path.join(EXAMPLES, "runs_nightly.csv")
    table = load_table(path)
    assert reading.evaluation_of(table).item == "question"
    assert runs.run_and_item_columns(table, runs.Options(), []) == ("run", "question")
    with open(path, newline="", encoding="utf-8") as handle:
        questions = {row["question"] for row in csv.DictReader(handle)}
    result = reading.run("runs", table, runs.Options())
    assert len(result.table("grid").frame) == len(questions)


@pytest.fixture
def seeds_csv(tmp_path):
    """Two models x 6 items x 3 seeds, a 0/1 outcome."""
    rng = np.random.default_rng(3)
    rows = [(m, f"it{i}", s, int(rng.random() < 0.4 + 0.3 * (m == "b") + 0.05 * i))
            for m in ("a", "b") for i in range(6) for s in (11, 22, 33)]
    path = tmp_path / "seeds.csv"
    pd.DataFrame(rows, columns=["model", "item_id", "seed", "correct"]).to_csv(path, index=False)
    return str(path)


@pytest.mark.parametrize("name", ["seed", "try", "attempt", "trial", "sample_index"])
def test_a_repeat_column_named_like_the_repeats_panels_is_the_readings_repeat(seeds_csv, tmp_path, name):
    frame = pd.read_csv(seeds_csv).rename(columns={"seed": name})
    path = tmp_path / f"{name}.csv"
    frame.to_csv(path, index=False)
    table = load_table(str(path))
    assert reading.evaluation_of(table).repeat == name
    result = reading.run("repeats", table, repeats.Options())
    assert any(f"'{name}' was taken as the repeat column" in n for n in result.notes), result.notes


def test_seeds_are_repeats_of_an_item_in_the_card_and_in_compare(capsys, seeds_csv):
    frame = pd.read_csv(seeds_csv)
    described = cli(capsys, "describe", seeds_csv)
    counts = {r["metric"]: r["value"] for r in described["results"] if "system" not in r}
    assert counts["items"] == frame["item_id"].nunique() == 6
    assert counts["repeats_max"] == counts["repeats_min"] == 3
    compared = cli(capsys, "compare", seeds_csv)
    assert "unit:item(mean of repeats)" in compared["signature"]
    per_item = frame.groupby(["model", "item_id"])["correct"].mean()
    for model in ("a", "b"):
        got = next(r for r in compared["results"] if r["metric"] == "mean_score" and r["system"] == model)
        assert got["n"] == 6  # items, not the 18 tries
        assert got["value"] == pytest.approx(per_item[model].mean(), abs=1e-12)


def test_a_judge_column_named_auto_label_is_the_readings_judge(tmp_path):
    path = tmp_path / "labels.csv"
    pd.DataFrame({"answer_id": [f"a{i}" for i in range(8)],
                  "auto_label": ["pass", "fail"] * 4,
                  "human": ["pass", "fail", "fail", "fail", "pass", "pass", "pass", "fail"]}).to_csv(path, index=False)
    table = load_table(str(path))
    kinds = {s.column: s.kind for s in reading.evaluation_of(table).scorers}
    assert kinds.get("auto_label") == "judge"
    result = reading.run("judge", table, judge.Options())
    assert any("'auto_label' was taken as the judge column" in n for n in result.notes), result.notes


def test_repeats_of_a_plain_table_are_never_pooled_across_its_models(capsys, seeds_csv):
    """The reading says two systems (column 'model'); the Repeats analysis, asked without --system,
    splits by it too (before, it pooled them and refused the file: 'two rows for repeat')."""
    frame = pd.read_csv(seeds_csv)
    doc = cli(capsys, "repeats", seeds_csv)
    assert any("'model' was taken as the system column" in n for n in doc["notes"])
    per_item = frame.groupby(["model", "item_id"])["correct"].mean()
    for model in ("a", "b"):
        got = next(r for r in doc["results"] if r["metric"] == "repeats_rate" and r.get("system") == model)
        assert got["n"] == 6
        assert got["value"] == pytest.approx(per_item[model].mean(), abs=1e-12)


def test_the_runs_of_one_model_are_the_systems_of_the_reading_and_the_runs_panel(capsys, tmp_path):
    """A 'model' column with one value beside a 'run' column with four: the runs are the systems
    (before, the card took the constant model as the one system and counted each item's four
    runs as its repeats, while the Runs panel compared the four runs)."""
    rng = np.random.default_rng(1)
    rows = [("gpt-x", f"r{r}", f"q{i}", int(rng.random() < 0.5 + 0.05 * r)) for r in range(4) for i in range(40)]
    frame = pd.DataFrame(rows, columns=["model", "run", "question", "correct"])
    path = tmp_path / "model_runs.csv"
    frame.to_csv(path, index=False)
    table = load_table(str(path))
    evaluation = reading.evaluation_of(table)
    assert evaluation.system == "run" and evaluation.repeat is None
    assert runs.run_and_item_columns(table, runs.Options(), [])[0] == "run"
    described = cli(capsys, "describe", str(path))
    per_system = {r["system"]: r["value"] for r in described["results"] if r["metric"] == "records" and "system" in r}
    assert per_system == frame.groupby("run").size().to_dict()


def _csv(tmp_path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_an_item_column_is_the_item_even_beside_a_task_column(capsys, tmp_path):
    """'task' (the benchmark) and 'item_id': the reading's items are the item ids, as Compare's."""
    path = _csv(tmp_path, "tasks.csv", "task,item_id,model,correct\n"
                "gsm8k,g1,a,1\ngsm8k,g2,a,0\nmmlu,m1,a,1\ngsm8k,g1,b,0\ngsm8k,g2,b,0\nmmlu,m1,b,1\n")
    assert reading.evaluation_of(load_table(path)).item == "item_id"
    described = cli(capsys, "describe", path)
    assert next(r["value"] for r in described["results"] if r["metric"] == "items" and "system" not in r) == 3
    compared = cli(capsys, "compare", path)
    assert all(r["n"] == 3 for r in compared["results"] if r["metric"] == "mean_score")


def test_a_constant_model_beside_a_varying_variant_every_panel_compares_the_variants(capsys, tmp_path):
    path = _csv(tmp_path, "variants.csv", "model,variant,item_id,correct\n"
                "gpt,p1,q1,1\ngpt,p1,q2,0\ngpt,p2,q1,0\ngpt,p2,q2,1\n")
    for analysis in ("compare", "runs", "repeats"):
        doc = cli(capsys, analysis, path)
        assert any("'variant' was taken as the system column" in n for n in doc["notes"]), (analysis, doc["notes"])


def test_simpsons_example_is_read_per_version_on_the_command_line(capsys):
    """simpson.csv holds two versions: Aggregation without --version reads each on its own (it
    pooled them into one rate, hiding the paradox the example is about)."""
    path = os.path.join(EXAMPLES, "simpson.csv")
    frame = pd.read_csv(path)
    doc = cli(capsys, "aggregate", path)
    assert any("never pooled" in n and "'version'" in n for n in doc["notes"])
    for version, part in frame.groupby("version"):
        micro = next(r for r in doc["results"] if r["metric"] == "micro" and r.get("version") == version)
        assert micro["value"] == pytest.approx(part["correct"].mean(), abs=1e-12) and micro["n"] == len(part)
    assert next(r for r in doc["results"] if r["metric"] == "simpson")["value"] is True


def test_swe_bench_like_names_instance_id_and_resolved_are_item_and_outcome(capsys, tmp_path):
    rows = "".join(f"inst-{i},{m},{int((i + (m == 'b')) % 3 == 0)}\n" for m in ("a", "b") for i in range(12))
    path = _csv(tmp_path, "swe.csv", "instance_id,model,resolved\n" + rows)
    frame = pd.read_csv(path)
    for analysis in ("compare", "runs", "repeats", "aggregate"):
        doc = cli(capsys, analysis, path)
        notes = " ".join(doc["notes"])
        assert "'resolved' was taken as the outcome column" in notes, (analysis, notes)
        if analysis != "aggregate":
            assert "'instance_id' was taken as the item column" in notes, (analysis, notes)
    compared = cli(capsys, "compare", path)
    for model, part in frame.groupby("model"):
        got = next(r for r in compared["results"] if r["metric"] == "rate" and r["system"] == model)
        assert got["value"] == pytest.approx(part["resolved"].mean(), abs=1e-12) and got["n"] == 12


def test_a_run_column_is_the_system_of_repeats_not_its_tries(capsys):
    path = os.path.join(EXAMPLES, "runs_nightly.csv")
    doc = cli(capsys, "repeats", path)
    notes = " ".join(doc["notes"])
    assert "'run' was taken as the system column" in notes and "as the repeat column" not in notes, notes
    runs_seen = {r["system"] for r in doc["results"] if r.get("system") is not None}
    assert runs_seen == set(pd.read_csv(path)["run"])


def test_a_plain_tables_primary_scorer_is_its_outcome_before_its_score(capsys, tmp_path):
    path = _csv(tmp_path, "both.csv", "model,example_id,score,correct\n"
                "a,e1,0.5,0\na,e2,0.9,1\nb,e1,0.7,1\nb,e2,0.8,1\n")
    assert reading.evaluation_of(load_table(path)).scorers[0].column == "correct"
    described = cli(capsys, "describe", path)
    assert "scorer:correct" in described["signature"]


def test_a_rubric_never_takes_a_repeat_or_a_usage_count_for_a_criterion(capsys):
    """repeats_epochs.csv has one 0/1 outcome tried 3 times: its 'epoch' (1..3 before, the first
    try's after the reduction to items) was the rubric's only criterion, scoring both models 100%.
    Now no column is a criterion by itself and the sentence asks for --criteria; an Inspect log's
    criteria are its yes/no scorers, not its epochs, steps or tool calls."""
    code = main(["rubric", os.path.join(EXAMPLES, "repeats_epochs.csv"), "--json"])
    err = capsys.readouterr().err
    assert code == 2 and "--criteria" in err, err
    log = os.path.join(os.path.dirname(__file__), "fixtures", "formats", "inspect")
    doc = cli(capsys, "rubric", log)
    said = next(n for n in doc["notes"] if "criteria are" in n)
    table = load_table(log)
    scorers = [s.name for s in table.evaluation.scorers if s.scale == "binary"]
    assert scorers and all(f"'{s}'" in said for s in scorers), said
    assert not any(f"'{c}'" in said for c in ("epoch", "steps", "tool_calls", "model_calls"))
    assert f"criteria:{len(scorers)}" in doc["signature"]
