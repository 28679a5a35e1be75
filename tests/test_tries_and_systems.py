"""Text and pass@k read a file as its reading does: an item's tries (an Inspect log's epochs, a
plain table's seeds) are one item, and several systems are read apart, never pooled.

Every expected value is computed here from the file with pandas, ``math.comb`` and sacrebleu,
not taken from the analyses."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import sacrebleu

from workbench.analyses import passk, text
from workbench.io import load_table

FIXTURES = Path(__file__).parent / "fixtures" / "formats"


def _case_ws(s: str) -> str:
    return " ".join(str(s).lower().split())


def _records(result, metric: str) -> dict:
    return {r.get("system"): r for r in result.records if r["metric"] == metric and "group" not in r
            or r["metric"] == metric and r.get("group") is None}


def test_an_inspect_logs_epochs_are_one_item_each_in_text():
    path = FIXTURES / "inspect" / "arith_alpha.eval"
    table = load_table(str(path))
    frame = table.frame
    result = text.run(table, text.Options())
    em = _records(result, "exact_match")
    assert len(em) == 1
    (rec,) = em.values()
    per_row = pd.DataFrame({"sample": frame["sample_id"].astype(str),
                            "hit": [float(_case_ws(p) == _case_ws(r))
                                    for p, r in zip(frame["output"], frame["target"])]})
    per_item = per_row.groupby("sample")["hit"].mean()
    assert frame["epoch"].nunique() == 3 and len(per_item) == 4
    assert rec["n"] == 4  # samples, not samples x epochs
    assert rec["value"] == pytest.approx(per_item.mean())
    # corpus chrF over every output, as sacrebleu scores all 12 segments
    chrf = sacrebleu.CHRF().corpus_score([str(p) for p in frame["output"]],
                                         [[str(r) for r in frame["target"]]]).score
    assert _records(result, "chrf")[rec.get("system")]["value"] == pytest.approx(chrf)
    assert "tries:mean-per-item:epoch" in result.signature
    assert any("12 outputs -> 4 items" in n for n in result.notes)
    items = next(t for t in result.tables if t.name == "items").frame
    assert len(items) == 4 and set(items["tries"]) == {3}


def _seeded(tmp_path: Path) -> tuple[Path, pd.DataFrame]:
    rng = np.random.default_rng(4)
    words = "the refund was sent in five days to the customer order late".split()
    rows = []
    for model in ("alpha", "beta"):
        for i in range(12):
            ref = " ".join(rng.choice(words, 6))
            for seed in range(3):
                pred = ref if rng.random() < (0.4 if model == "alpha" else 0.7) else " ".join(rng.choice(words, 6))
                rows.append({"item_id": f"q{i}", "seed": seed, "model": model,
                             "prediction": pred, "reference": ref})
    frame = pd.DataFrame(rows)
    path = tmp_path / "seeded.csv"
    frame.to_csv(path, index=False)
    return path, frame


def test_a_plain_tables_seeds_are_tries_and_its_models_are_read_apart(tmp_path):
    path, frame = _seeded(tmp_path)
    result = text.run(load_table(str(path)), text.Options())
    em = _records(result, "exact_match")
    bleu = _records(result, "bleu")
    assert set(em) == {"alpha", "beta"}
    for model, part in frame.groupby("model"):
        hit = (part["prediction"].map(_case_ws) == part["reference"].map(_case_ws)).astype(float)
        expected = hit.groupby(part["item_id"]).mean().mean()
        assert em[model]["n"] == 12
        assert em[model]["value"] == pytest.approx(expected)
        corpus = sacrebleu.corpus_bleu(part["prediction"].tolist(), [part["reference"].tolist()]).score
        assert bleu[model]["value"] == pytest.approx(corpus)
    # the two models compared on their 12 common items (paired by item id, not by try)
    diff = [r for r in result.records if r["metric"] == "diff:exact_match"]
    assert diff and diff[0]["n"] == 12


def test_text_reads_models_apart_where_it_refused_repeated_ids(tmp_path):
    rows = [{"item_id": f"q{i}", "model": m, "prediction": "yes" if (i + (m == "b")) % 3 else "no",
             "reference": "yes"} for m in ("a", "b") for i in range(20)]
    frame = pd.DataFrame(rows)
    path = tmp_path / "two_models.csv"
    frame.to_csv(path, index=False)
    result = text.run(load_table(str(path)), text.Options())
    em = _records(result, "exact_match")
    for model, part in frame.groupby("model"):
        assert em[model]["n"] == 20
        assert em[model]["value"] == pytest.approx((part["prediction"] == part["reference"]).mean())
    assert any("'model' was taken as the system column" in n for n in result.notes)


def test_a_constant_model_column_is_no_split(tmp_path):
    frame = pd.DataFrame({"id": [f"q{i}" for i in range(10)], "model": "only",
                          "prediction": ["a b"] * 5 + ["c"] * 5, "reference": ["a b"] * 10})
    path = tmp_path / "one_model.csv"
    frame.to_csv(path, index=False)
    result = text.run(load_table(str(path)), text.Options())
    (rec,) = _records(result, "exact_match").values()
    assert rec["n"] == 10 and rec["value"] == pytest.approx(0.5)
    assert "tries" not in result.signature


def _pass_at_k(n: int, c: int, k: int) -> float:
    return 1.0 - math.comb(n - c, k) / math.comb(n, k) if n - c >= k else 1.0


def _attempts(tmp_path: Path) -> tuple[Path, pd.DataFrame]:
    rng = np.random.default_rng(11)
    rows = [{"model": m, "task": f"t{t}", "sample_index": s,
             "success": int(rng.random() < (0.3 if m == "small" else 0.6))}
            for m in ("small", "large") for t in range(15) for s in range(5)]
    frame = pd.DataFrame(rows)
    path = tmp_path / "attempts.csv"
    frame.to_csv(path, index=False)
    return path, frame


def _expected_passk(frame: pd.DataFrame, k: int) -> dict[str, float]:
    counts = frame.groupby(["model", "task"])["success"].agg(["size", "sum"])
    return {m: float(np.mean([_pass_at_k(int(n), int(c), k) for n, c in part.to_numpy()]))
            for m, part in counts.groupby(level=0)}


def test_pass_at_k_reads_each_model_apart(tmp_path):
    path, frame = _attempts(tmp_path)
    result = passk.run(load_table(str(path)), passk.Options(ks="1,3"))
    for k in (1, 3):
        got = {r["system"]: r for r in result.records if r["metric"] == f"pass@{k}"}
        assert set(got) == {"small", "large"}
        for model, value in _expected_passk(frame, k).items():
            assert got[model]["value"] == pytest.approx(value)
            assert got[model]["n"] == 15


def test_pass_at_k_on_duckdb_reads_each_model_apart_too(tmp_path):
    pytest.importorskip("duckdb")
    path, frame = _attempts(tmp_path)
    result = passk.run_unloaded([str(path)], passk.Options(ks="2", engine="duckdb"))
    got = {r["system"]: r["value"] for r in result.records if r["metric"] == "pass@2"}
    expected = _expected_passk(frame, 2)
    assert got == pytest.approx(expected)


def test_a_helm_runs_train_trials_are_one_instance_each_in_text():
    path = FIXTURES / "helm" / "simple1"
    table = load_table(str(path))
    frame = table.frame
    result = text.run(table, text.Options())
    (rec,) = [r for r in result.records if r["metric"] == "exact_match"]
    assert frame["train_trial"].nunique() == 3
    hits = pd.Series([float(_case_ws(p) == _case_ws(r)) for p, r in zip(frame["output"], frame["reference"])])
    per_item = hits.groupby(frame["item"].astype(str).to_numpy()).mean()
    assert rec["n"] == frame["instance_id"].nunique() == len(per_item) == 10
    assert rec["value"] == pytest.approx(per_item.mean())
    assert "tries:mean-per-item:train_trial" in result.signature


def test_pass_at_k_splits_a_file_sorted_by_model_alike_in_memory_and_on_duckdb(tmp_path):
    """The engine decides the system column from the file's first rows, which here hold one
    model only: a system-named column splits the models even where it does not vary in them,
    so the two ways give the same per-model values (never one pooled rate on DuckDB)."""
    pytest.importorskip("duckdb")
    rng = np.random.default_rng(12)
    rows = [{"model": m, "task": f"t{t}", "sample_index": s, "success": int(rng.random() < p)}
            for m, p in (("alpha", 0.3), ("beta", 0.7)) for t in range(20_000) for s in range(5)]
    frame = pd.DataFrame(rows)  # 100,000 rows of alpha first: more than the engine's first megabyte
    path = tmp_path / "sorted.csv"
    frame.to_csv(path, index=False)
    memory = passk.run(load_table(str(path)), passk.Options(ks="2"))
    duck = passk.run_unloaded([str(path)], passk.Options(ks="2", engine="duckdb"))
    expected = _expected_passk(frame, 2)
    with open(path, "rb") as handle:
        assert b"beta" not in handle.read(1 << 20)
    for result in (memory, duck):
        got = {r["system"]: r["value"] for r in result.records if r["metric"] == "pass@2"}
        assert got == pytest.approx(expected)
