"""Issue 44: every card keeps the rules of :mod:`card_rules` on every bundled example, every
fixture written by a real tool and every situation of tests/fixtures/cards; and the rules'
checker itself catches what it must."""

from __future__ import annotations

import pytest
from card_rules import check_card, check_records, check_text, check_workbook
from card_walk import inputs, results

from workbench.core.result import AnalysisResult, record
from workbench.report import write_report
from workbench.report.present import answer

IDS = [ident for ident, _, _ in inputs()]


@pytest.mark.parametrize("ident", IDS)
def test_every_card_and_sheet_keeps_the_rules(ident, tmp_path):
    """Each analysis that answers on the input: its card (sign, method, units, zero width, one
    rounding, one verdict), its records, and its workbook read back with openpyxl."""
    from workbench.core.errors import DataError

    problems = []
    answered = results(ident)
    assert answered, f"no analysis answered on {ident}"
    for name, result in answered:
        where = f"{ident}::{name}"
        problems += check_card(result, answer(result), where) + check_records(result, where)
        path = tmp_path / f"{name}.xlsx"
        try:
            write_report(path, [result])
        except DataError as err:  # pragma: no cover - a report that cannot be written is a failure too
            problems.append(f"{where}: the report was not written: {err}")
            continue
        problems += check_workbook(path, [result], where)
    assert not problems, "\n".join(problems)


def test_the_checker_catches_each_slip():
    """The sentences the audit of issue 44 quoted, each caught by its rule."""
    def caught(sentence, word):
        found = check_text(sentence)
        assert any(word in p for p in found), (sentence, found)

    caught("'bm25' beats 'dense' on nDCG@10 by +0.002 (bootstrap 95% CI -0.003 to -0.00022) over "
           "10,000 queries.", "opposite directions")
    caught("Candidate +4.5 pts (95% CI +0.3 to +8.7 pts) on 200 items.", "without its method")
    caught("kappa 1.000 (1.000 to 1.000) on 5 items.", "zero-width")
    caught("kappa 0.000 (asymptotic 95% CI 0.000 to 0.000).", "zero-width")
    caught("A needs 50.000 steps per success.", "count with decimals")
    assert not check_text("'A' beats 'B' by +0.002 (paired bootstrap 95% CI +0.00022 to +0.003) over 9 queries.")


def test_an_interval_is_named_by_its_records_method():
    """The card's name of an interval is the record's ci_method (a chart axis or a card saying
    Wilson over a Clopper-Pearson interval is caught)."""
    from card_rules import interval_index

    res = AnalysisResult("text", "x", (record("exact_match", 0.4, n=5, ci_low=0.053, ci_high=0.853,
                                              ci_method="clopper-pearson-95"),))
    index = interval_index(res)
    assert not check_text("Exact match 40.0% (Clopper-Pearson 95% CI 5.3% to 85.3%).", index)
    assert check_text("Exact match 40.0% (Wilson 95% CI 5.3% to 85.3%).", index)


def test_a_difference_turned_around_turns_its_interval():
    """Ranking, two systems, the baseline wins: the sentence names the winner first and shows
    the difference and its interval both turned ("+0.002 (... +0.00022 to +0.003)")."""
    recs = (record("ndcg@10", 0.51, system="bm25", n=10_000, k=10),
            record("ndcg@10", 0.508, system="dense", n=10_000, k=10),
            record("diff:ndcg@10", -0.002, from_="bm25", to="dense", n=10_000, ci_low=-0.003, ci_high=-0.00022,
                   ci_method="paired-bootstrap-percentile-95"),
            record("p_adjusted:ndcg@10", 0.004, from_="bm25", to="dense", n=10_000))
    res = AnalysisResult("ranking", "analysis:ranking|systems-compared:[adjust:holm]", recs)
    ans = answer(res)
    text = ans.text
    assert "'bm25' beats 'dense' on nDCG@10 by +0.002 (paired bootstrap 95% CI +0.00022 to +0.003)" in text, text
    assert not check_card(res, ans)


def test_pass_at_1_is_not_set_against_itself(tmp_path):
    """One attempt per task: pass@1 and pass^1 are one number; the card said "pass@1 = 0.563 but
    pass^1 = 0.563: not yet reliable"."""
    from workbench.analyses import passk
    from workbench.io import load_table

    src = tmp_path / "one.csv"
    src.write_text("task,success\n" + "".join(f"t{i},{int(i % 16 < 9)}\n" for i in range(16)))
    res = passk.run(load_table(src), passk.Options(task="task", success="success"))
    assert res.value("pass@1") == res.value("pass^1") == 0.5625
    ans = answer(res)
    assert "but pass^1" not in ans.text and "pass@1 = 0.563" in ans.text
    assert "pass@1 and pass^1 are the same number" in ans.text and ans.tone == "neutral"
    assert not check_card(res, ans)
