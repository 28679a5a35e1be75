"""lm-evaluation-harness 0.3's --write_out files (``<task>_write_out_info.json``): read as the
samples of later versions, the numbers equal those computed here from the JSON with the standard
library.  The fixtures are shaped as lm-eval 0.3's evaluator writes them (a JSON array: doc_id,
prompt_i, logit_i, truth, each metric as str(value)); they were not written by the tool itself
(it cannot be installed offline here)."""

from __future__ import annotations

import json
import os

import pytest

from workbench.analyses import aggregate, text
from workbench.io import load_table

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "fixtures", "formats", "lmeval03")
ARC = os.path.abspath(os.path.join(HERE, "arc_easy_write_out_info.json"))
GSM = os.path.abspath(os.path.join(HERE, "gsm8k_write_out_info.json"))


def _records(path):
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


def test_a_multiple_choice_write_out_is_one_row_per_document_with_its_outcome():
    records = _records(ARC)
    table = load_table(ARC)
    frame = table.frame
    assert table.format == "lm_eval_samples" and len(frame) == len(records)
    assert list(frame["doc_id"]) == [str(r["doc_id"]) for r in records]
    assert list(frame["item"]) == [f"arc_easy/{r['doc_id']}" for r in records]
    assert set(frame["output_type"]) == {"multiple_choice"}
    assert list(frame["acc"]) == [float(r["acc"]) for r in records]
    assert list(frame["outcome"]) == [float(r["acc"]) for r in records]  # the first 0/1 metric
    assert json.loads(frame["response"][0]) == [r for r in (records[0][f"logit_{i}"] for i in range(4))]
    assert any("--write_out" in n for n in table.notes)
    result = aggregate.run(table, aggregate.Options(outcome="outcome", group="task_name"))
    expected = sum(float(r["acc"]) for r in records) / len(records)
    assert result.value("micro") == pytest.approx(expected)


def test_a_generation_write_out_keeps_the_text_and_reads_true_false_metrics():
    records = _records(GSM)
    table = load_table(GSM)
    frame = table.frame
    assert set(frame["output_type"]) == {"generate_until"}
    assert list(frame["response"]) == [r["logit_0"] for r in records]
    assert list(frame["target"]) == [r["truth"] for r in records]
    assert list(frame["outcome"]) == [1.0 if r["acc"] == "True" else 0.0 for r in records]
    res = text.run(table, text.Options(prediction="response", reference="target"))
    em = sum(r["logit_0"].strip() == r["truth"].strip() for r in records) / len(records)
    assert res.value("exact_match") == pytest.approx(em)


def test_a_json_array_without_prompts_is_still_a_plain_array_of_records(tmp_path):
    path = tmp_path / "plain.json"
    path.write_text(json.dumps([{"doc_id": 1, "truth": "a", "acc": "1"}]))
    table = load_table(str(path))
    assert table.format != "lm_eval_samples" and list(table.frame.columns) == ["doc_id", "truth", "acc"]
