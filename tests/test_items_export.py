"""``workbench items FILE... -o OUT [--wide]`` (analyses/items.py, io/formats/items_layout.py):
any log written out as one flat table of items and read back as the same evaluation.  The round
trip: the export reopened gives the same table, roles and declaration, and every command the
same records as the source; ids stay exact text in CSV, Parquet and XLSX; a failed write leaves
no file."""

from __future__ import annotations

import contextlib
import io
import json
import math
import os

import numpy as np
import pandas as pd
import pytest

from workbench import catalog
from workbench.analyses import items as items_mod
from workbench.analyses.items import items_frame, write_items
from workbench.cli.main import main
from workbench.core.errors import WorkbenchError
from workbench.io import load_many, load_table

HERE = os.path.abspath(os.path.join(os.path.dirname(__file__), "fixtures", "formats"))
EXAMPLES = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "resources", "examples"))
SOURCES = {
    "deepeval": [os.path.join(HERE, "deepeval", "test_run.json")],
    "ragas": [os.path.join(HERE, "ragas", "ragas_result.csv")],
    "phoenix": [os.path.join(HERE, "phoenix", "experiment.json")],
    "helm": [os.path.join(HERE, "helm", "simple1_em_robustness")],
    "swebench": [HERE + "/swebench"],
    "mteb": [os.path.join(HERE, "mteb")],
    "inspect": [os.path.join(HERE, "inspect285_judge", "judge_alpha.eval")],
    "promptfoo+inspect": [os.path.join(HERE, "promptfoo_repeat", "results.json"),
                          os.path.join(HERE, "inspect285_judge", "judge_alpha.eval")],
    "plain": [os.path.join(EXAMPLES, "rubric_answers.csv")],
    # a format that gives its columns roles without declaring an evaluation: they are kept
    "evalplus": [os.path.join(HERE, "jsonl", "evalplus_eval_results.json")],
}
FORMATS = [("csv", False), ("parquet", True), ("xlsx", False), ("csv", True)]


def _same_table(a, b) -> None:
    assert list(a.frame.columns) == list(b.frame.columns)
    assert a.roles == b.roles and a.format == b.format
    for c in a.frame.columns:
        x, y = a.frame[c], b.frame[c]
        if pd.api.types.is_numeric_dtype(x):
            assert x.dtype == y.dtype, c
            np.testing.assert_array_equal(x.to_numpy(dtype=float), y.to_numpy(dtype=float), err_msg=c)
        else:
            assert list(a.cell_text(c)) == list(b.cell_text(c)), c
            assert list(x.isna()) == list(y.isna()), c
    if a.evaluation is None:
        assert b.evaluation is None
        return
    ea, eb = a.evaluation, b.evaluation
    for key in ("tool", "tool_version", "item", "repeat", "system", "error", "limit", "status", "primary",
                "usage", "metadata", "reduction", "scorers"):
        assert getattr(ea, key) == getattr(eb, key), key
    assert [r.name for r in ea.runs] == [r.name for r in eb.runs]


@pytest.mark.parametrize("ext,wide", FORMATS)
@pytest.mark.parametrize("name", sorted(SOURCES))
def test_the_export_reopened_is_the_same_table(tmp_path, name, ext, wide):
    source = load_many(SOURCES[name])
    out = tmp_path / f"items.{ext}"
    written = write_items(source, out, wide=wide)
    assert written.records == len(source.frame)
    _same_table(source, load_table(out))


def _run(args):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in args] + ["--json"])
    return code, (json.loads(out.getvalue()).get("results") if code == 0 else err.getvalue())


def _same(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b


@pytest.mark.parametrize("name", ["deepeval", "phoenix", "helm", "swebench", "mteb", "inspect", "plain", "evalplus"])
def test_every_command_gives_the_same_records_on_the_export(tmp_path, name):
    out = tmp_path / "items.csv"
    assert _run(["items", *SOURCES[name], "-o", out])[0] == 0
    answered = 0
    for command in ["describe"] + [a.name for a in catalog.ANALYSES if a.reads_input]:
        first, second = _run([command, *SOURCES[name]]), _run([command, out])
        assert first[0] == second[0], (command, first[1] if first[0] else second[1])
        if first[0] == 0:
            assert _same(first[1], second[1]), command
            answered += 1
    assert answered >= 2


def test_the_long_layout_one_row_per_record_and_scorer_with_statuses():
    table = load_table(SOURCES["deepeval"][0])
    frame, _kinds = items_frame(table)
    names = [str(c).split(" [")[0] for c in frame.columns]
    assert names[:3] == ["record", "test_case", "model"]
    assert names[3:8] == ["scorer", "value", "label", "status", "scorer_error"]
    assert len(frame) == 8 * 5  # records x scorers
    brevity = frame[(frame["scorer"] == "Brevity")]
    assert list(brevity["status"]).count("error") == 1  # q5's errored metric: an error, not a failure
    overlap = frame[frame["scorer"] == "TokenOverlap.score"]
    assert list(overlap["status"]).count("unscored") == 1  # q8's NaN
    assert any(str(c).startswith("token_cost [") and "usage=cost" in str(c) for c in frame.columns)
    wide, _ = items_frame(table, wide=True)
    assert len(wide) == 8 and any(str(c).startswith("score:Brevity [") for c in wide.columns)
    assert "status:Brevity" in wide.columns and "error:Brevity" in wide.columns


@pytest.mark.parametrize("ext", ["csv", "parquet", "xlsx"])
def test_ids_stay_exact_text(tmp_path, ext):
    source = tmp_path / "ids.csv"
    source.write_text("item,system,correct\n1.0,a,1\n 1,a,0\n1,a,1\n007,a,0\n1.0,b,1\n 1,b,1\n1,b,0\n007,b,1\n",
                      encoding="utf-8")
    table = load_table(source)
    out = tmp_path / f"items.{ext}"
    write_items(table, out)
    back = load_table(out)
    assert list(back.cell_text("item")) == ["1.0", " 1", "1", "007"] * 2
    if ext == "xlsx":  # text cells, never numbers
        from openpyxl import load_workbook

        sheet = load_workbook(out, read_only=True)["items"]
        header = [c.value for c in next(sheet.iter_rows(max_row=1))]
        col = next(i for i, h in enumerate(header) if str(h).startswith("item"))
        cells = [row[col] for row in sheet.iter_rows(min_row=2, max_row=3)]
        assert all(c.data_type == "s" for c in cells) and cells[0].value == "1.0"
    if ext == "parquet":  # a text column in the file's schema (pyarrow's, else fastparquet's)
        try:
            import pyarrow.parquet as pq
        except ImportError:
            import fastparquet

            pf = fastparquet.ParquetFile(str(out))
            name = next(n for n in pf.columns if n.startswith("item"))
            assert pf.schema.schema_element(name).converted_type is not None  # UTF8, not a number
        else:
            schema = pq.read_schema(out)
            name = next(n for n in schema.names if n.startswith("item"))
            assert str(schema.field(name).type) in ("string", "large_string")


def test_a_failed_write_leaves_nothing(tmp_path, monkeypatch):
    table = load_table(SOURCES["deepeval"][0])
    out = tmp_path / "items.csv"

    def broken(frame, kinds, tmp, target):
        with open(tmp, "w") as fh:
            fh.write("half")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(items_mod, "_write_csv", broken)
    with pytest.raises(WorkbenchError) as err:
        write_items(table, out)
    assert "no file was written" in str(err.value)
    assert os.listdir(tmp_path) == []
    out.write_text("earlier", encoding="utf-8")
    with pytest.raises(WorkbenchError) as err:
        write_items(table, out)
    assert "unchanged" in str(err.value) and out.read_text(encoding="utf-8") == "earlier"
    assert sorted(os.listdir(tmp_path)) == ["items.csv"]


def test_the_command_line_says_what_it_wrote_and_refuses_other_names(tmp_path, capsys):
    out = tmp_path / "items.xlsx"
    assert main(["items", SOURCES["swebench"][0], "-o", str(out), "--wide"]) == 0
    said = capsys.readouterr().out
    assert "8 records x 3 scorers, wide" in said and out.exists()
    assert main(["items", SOURCES["swebench"][0], "-o", str(tmp_path / "items.txt")]) == 2
    assert "give a file name ending in .csv, .parquet or .xlsx" in capsys.readouterr().err
