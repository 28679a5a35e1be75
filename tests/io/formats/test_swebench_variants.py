"""SWE-bench summaries the harness wrote (tests/fixtures/formats/swebench_variants/README.md, from
SWE-bench/SWE-bench's own history): a one-instance run of a 300-prediction file and a Multilingual run
with 288 errors; and the swe-bench/experiments results.json, whose unresolved instances are the rest
of its split (the split's ids in resources/formats/swebench_instances.json, from the harness's
own gold reports)."""

from __future__ import annotations

import json
import os

import pytest

from workbench.io import load_table
from workbench.resources_path import resources_dir

HERE = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "formats", "swebench_variants"))
SUMMARIES = ["gold.validate-gold.json", "gold.jest-gold.json"]


def _summary(name):
    with open(os.path.join(HERE, name), encoding="utf-8") as fh:
        return json.load(fh)


@pytest.mark.parametrize("name", SUMMARIES)
def test_every_count_of_the_summary(name, cli):
    s = _summary(name)
    table = load_table(os.path.join(HERE, name))
    frame = table.frame
    status = frame["status"].value_counts().to_dict()
    assert len(frame) == s["total_instances"]
    assert status.get("resolved", 0) == s["resolved_instances"] == len(s["resolved_ids"])
    assert status.get("unresolved", 0) == s["unresolved_instances"]
    assert status.get("error", 0) == s["error_instances"] == len(s["error_ids"])
    assert status.get("empty_patch", 0) == s["empty_patch_instances"]
    assert set(frame.loc[frame["status"] == "resolved", "instance_id"]) == set(s["resolved_ids"])
    resolved = next(sc for sc in table.evaluation.scorers if sc.name == "resolved")
    assert resolved.reported == pytest.approx(s["resolved_instances"] / s["total_instances"], abs=1e-12)
    assert resolved.reported_n == s["total_instances"]
    out = cli("passk", os.path.join(HERE, name), "--errors", "fail")
    rate = next(r for r in out["results"] if r["metric"].startswith("pass@1"))
    assert rate["n"] == s["total_instances"]
    assert rate["value"] == pytest.approx(s["resolved_instances"] / s["total_instances"], abs=1e-9)
    desc = cli("describe", os.path.join(HERE, name))
    got = {r["metric"]: r["value"] for r in desc["results"] if r.get("system") is None}
    assert got["error"] == s["error_instances"] and got["reported:resolved"] == pytest.approx(
        s["resolved_instances"] / s["total_instances"], abs=1e-9)


def _verified_ids():
    with open(os.path.join(str(resources_dir()), "formats", "swebench_instances.json"), encoding="utf-8") as fh:
        return json.load(fh)["splits"]["verified"]


def test_the_split_ids_are_the_harness_reports():
    ids = _verified_ids()
    assert len(ids) == len(set(ids)) == 500 and "astropy__astropy-12907" in ids


@pytest.mark.parametrize("split,n", [("verified", 500), ("bash-only", 500)])
def test_an_experiments_results_json_names_its_unresolved(tmp_path, cli, split, n):
    """The layout {no_generation, no_logs, resolved} of swe-bench/experiments, with real Verified ids
    (which are resolved here is made up: the file is written by this test, not by SWE-bench)."""
    ids = _verified_ids()
    folder = tmp_path / "evaluation" / split / "20250101_system" / "results"
    folder.mkdir(parents=True)
    (folder / "results.json").write_text(json.dumps(
        {"no_generation": ids[:2], "no_logs": ids[2:3], "resolved": ids[3:10]}), encoding="utf-8")
    table = load_table(str(folder / "results.json"))
    counts = table.frame["status"].value_counts().to_dict()
    assert len(table.frame) == n
    assert counts == {"unresolved": n - 10, "resolved": 7, "empty_patch": 2, "error": 1}
    out = cli("passk", str(folder / "results.json"), "--errors", "fail")
    rate = next(r for r in out["results"] if r["metric"].startswith("pass@1"))
    assert rate["n"] == n and rate["value"] == pytest.approx(7 / n, abs=1e-12)


def test_a_lite_results_json_gives_swebenchs_rate_and_says_what_is_missing(tmp_path):
    ids = _verified_ids()[:10]  # any ids: Lite's are not known here
    folder = tmp_path / "evaluation" / "lite" / "20240402_system" / "results"
    folder.mkdir(parents=True)
    (folder / "results.json").write_text(json.dumps({"no_generation": [], "no_logs": [], "resolved": ids}),
                                         encoding="utf-8")
    table = load_table(str(folder / "results.json"))
    resolved = next(sc for sc in table.evaluation.scorers if sc.name == "resolved")
    assert resolved.reported == pytest.approx(10 / 300, abs=1e-12) and resolved.reported_n == 300
    assert any("290 instances of SWE-bench's lite split" in n for n in table.notes)
