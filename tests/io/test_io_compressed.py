"""Compressed results files (gzip, bzip2, xz; whatever their name): read as the file inside
would be, with a note, the SHA-256 of the file as it is on disk, and one sentence for a
damaged one.  The compressed bytes come from the standard library's compressors."""

from __future__ import annotations

import bz2
import gzip
import hashlib
import json
import lzma
import shutil
from pathlib import Path

import pytest

from workbench.cli.main import main as cli_main
from workbench.core.errors import DataError
from workbench.io import load_table

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = [ROOT / "resources" / "examples" / "ranking_seed.csv",
            ROOT / "tests" / "fixtures" / "formats" / "trec" / "runA.run",
            ROOT / "tests" / "fixtures" / "formats" / "trec" / "qrels.test.txt",
            ROOT / "tests" / "fixtures" / "formats" / "jsonl" / "humaneval_samples.jsonl_results.jsonl",
            ROOT / "tests" / "fixtures" / "formats" / "promptfoo" / "results.json"]
COMPRESSORS = {"gzip": (gzip.compress, ".gz"), "bzip2": (bz2.compress, ".bz2"),
               "xz": (lzma.compress, ".xz")}


@pytest.mark.parametrize("fixture", FIXTURES, ids=lambda p: p.name)
@pytest.mark.parametrize("how", list(COMPRESSORS))
def test_a_compressed_file_reads_as_the_file_inside(tmp_path, fixture, how):
    compress, suffix = COMPRESSORS[how]
    packed = compress(fixture.read_bytes())
    path = tmp_path / (fixture.name + suffix)
    path.write_bytes(packed)
    got, plain = load_table(path), load_table(fixture)
    assert got.format == plain.format
    assert got.frame.equals(plain.frame)
    assert got.sha256 == hashlib.sha256(packed).hexdigest()  # the file on disk
    assert got.size_bytes == len(packed)
    note = got.notes[0]
    assert path.name in note and f"decompressed ({how}" in note
    assert path.read_bytes() == packed  # never modified


def test_the_compression_is_found_from_the_bytes_not_the_name(tmp_path):
    path = tmp_path / "run.csv"  # gzip-compressed under a plain name
    path.write_bytes(gzip.compress(FIXTURES[0].read_bytes()))
    assert load_table(path).frame.equals(load_table(FIXTURES[0]).frame)


@pytest.mark.parametrize("how", list(COMPRESSORS))
def test_a_damaged_compressed_file_is_one_sentence(tmp_path, how):
    compress, suffix = COMPRESSORS[how]
    packed = compress(FIXTURES[0].read_bytes() * 50)
    path = tmp_path / ("cut.csv" + suffix)
    path.write_bytes(packed[: len(packed) // 2])
    with pytest.raises(DataError) as err:
        load_table(path)
    assert "cut.csv" in str(err.value) and f"{how}-compressed" in str(err.value)


def test_a_folder_of_compressed_trec_runs_is_stacked(tmp_path):
    trec = ROOT / "tests" / "fixtures" / "formats" / "trec"
    for name in ("runA.run", "runB.run"):
        (tmp_path / (name + ".gz")).write_bytes(gzip.compress((trec / name).read_bytes()))
    shutil.copy(trec / "runA.run", tmp_path / "plain-copy.txt")  # not a run by its name
    table = load_table(tmp_path)
    plain = load_table(trec / "runA.run")
    assert len(table.frame) == len(plain.frame) + len(load_table(trec / "runB.run").frame)
    assert "runA.run.gz" in table.notes[0] and "runB.run.gz" in table.notes[0]


@pytest.mark.parametrize("engine", ["memory", "duckdb"])
def test_ranking_on_compressed_trec_files_gives_the_plain_numbers(tmp_path, capsys, engine):
    trec = ROOT / "tests" / "fixtures" / "formats" / "trec"
    run, qrels = tmp_path / "runA.run.gz", tmp_path / "qrels.txt.xz"
    run.write_bytes(gzip.compress((trec / "runA.run").read_bytes()))
    qrels.write_bytes(lzma.compress((trec / "qrels.test.txt").read_bytes()))

    def values(*argv):
        assert cli_main(["ranking", *map(str, argv), "--k", "5,10", "--json",
                         "--engine", engine]) == 0
        out = json.loads(capsys.readouterr().out)
        return {r["metric"]: r["value"] for r in out["results"]}

    packed = values(run, "--qrels", qrels)
    plain = values(trec / "runA.run", "--qrels", trec / "qrels.test.txt")
    assert packed == pytest.approx(plain, abs=1e-12) and "map" in packed
