"""SWE-bench evaluations graded and reported by swebench 5.0.2's own harness code
(tests/fixtures/formats/make_fixtures_46.py swebench; FINDINGS_46.md): the summary report, the
per-instance report.json files, and the folder holding both.  Resolved is the outcome; error,
empty patch and no prediction are counted apart (never failures unless asked), and SWE-bench's
own % resolved (over every instance) is what --errors fail gives."""

from __future__ import annotations

import json
import os

import pytest

from workbench.io import load_table

HERE = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "formats", "swebench"))
SUMMARY = os.path.join(HERE, "lookup-agent.fixture46.json")


def _expected():
    with open(os.path.join(HERE, "expected.json"), encoding="utf-8") as fh:
        return json.load(fh)


@pytest.mark.parametrize("path", [SUMMARY, HERE])
def test_each_instance_has_its_status_and_its_tests(path):
    want = _expected()
    table = load_table(path)
    frame = table.frame.set_index("instance_id")
    ids = want["ids"]
    for word, key in (("resolved", "resolved_ids"), ("unresolved", "unresolved_ids"), ("error", "error_ids"),
                      ("empty_patch", "empty_patch_ids"), ("no_prediction", "incomplete_ids")):
        assert sorted(frame.index[frame["status"] == word]) == sorted(ids[key])
    assert len(frame) == want["counts"]["total_instances"]
    assert frame["resolved"].isna().sum() == (want["counts"]["error_instances"] + want["counts"]["empty_patch_instances"]
                                              + len(ids["incomplete_ids"]))
    for iid, rep in want["per_instance"].items():
        assert frame.loc[iid, "resolved"] == float(rep["resolved"])
        for lst in ("FAIL_TO_PASS", "PASS_TO_PASS"):
            assert frame.loc[iid, f"{lst}.passed"] == rep[f"{lst}_success"]
            assert frame.loc[iid, f"{lst}.failed"] == rep[f"{lst}_failure"]
    assert json.loads(frame.loc["acme__calc-102", "FAIL_TO_PASS.failed_tests"]) == ["tests/test_calc.py::test_parse_int_hex"]
    assert frame.loc["acme__calc-108", "ambiguous_failure"] == 1.0
    assert frame.loc["acme__calc-108", "failure_reason"] == "no_tests_collected"
    ev = table.evaluation
    assert (ev.tool, ev.primary, ev.item, ev.error, ev.status) == ("swe-bench", "resolved", "instance_id", "error", "status")
    assert ev.runs[0].config["run_id"] == "fixture46" and ev.runs[0].name == "lookup-agent"


@pytest.mark.parametrize("path", [SUMMARY, HERE])
def test_counts_apart_and_swe_benchs_rate(cli, path):
    counts = _expected()["counts"]
    desc = cli("describe", path)
    got = {r["metric"]: r["value"] for r in desc["results"] if r.get("system") is None}
    assert got["status:resolved"] == counts["resolved_instances"]
    assert got["status:unresolved"] == counts["unresolved_instances"]
    assert got["status:error"] == counts["error_instances"]
    assert got["status:empty_patch"] == counts["empty_patch_instances"]
    assert got["status:no_prediction"] == counts["total_instances"] - counts["submitted_instances"]
    assert got["reported:resolved"] == pytest.approx(counts["resolved_instances"] / counts["total_instances"], abs=1e-12)
    kept = cli("aggregate", path)
    micro = next(r for r in kept["results"] if r["metric"] == "micro")
    assert (micro["n"], micro["value"]) == (counts["completed_instances"],
                                            pytest.approx(counts["resolved_instances"] / counts["completed_instances"]))
    failed = cli("aggregate", path, "--errors", "fail")
    micro = next(r for r in failed["results"] if r["metric"] == "micro")
    assert (micro["n"], micro["value"]) == (counts["total_instances"],
                                            pytest.approx(counts["resolved_instances"] / counts["total_instances"], abs=1e-9))


def test_a_report_json_alone_is_its_instance():
    path = os.path.join(HERE, "logs", "fixture46", "lookup-agent", "acme__calc-104", "report.json")
    table = load_table(path)
    assert list(table.frame["instance_id"]) == ["acme__calc-104"]
    assert table.frame["resolved"][0] == 1.0 and table.frame["FAIL_TO_PASS.passed"][0] == 2
    assert table.evaluation.runs[0].name == "lookup-agent"


def test_a_folder_without_a_summary_is_not_taken_for_swe_bench(tmp_path):
    (tmp_path / "expected.json").write_text(json.dumps({"counts": {"resolved_ids": [], "total_instances": 1}}))
    from workbench.core.errors import DataError

    with pytest.raises(DataError) as err:
        load_table(tmp_path)
    assert "folder" in str(err.value)


def test_an_errored_instance_blank_outcome_is_no_problem_but_a_plain_blank_is(tmp_path):
    from workbench.io.roles import find_problems

    table = load_table(SUMMARY)
    assert find_problems(table, table.roles) == []  # error, empty patch, no prediction: counted apart
    plain = tmp_path / "plain.csv"
    plain.write_text("item,success\na,1\nb,\nc,0\n", encoding="utf-8")
    loaded = load_table(plain)
    found = find_problems(loaded, {"item": "item", "success": "success"})
    assert found and found[0].rows == (1,)
