"""Issue 23, item 20: the sentences a user meets when a file does not fit (grammar, the value
that is really wrong, the command that reads the file)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from conftest import table_of
from workbench.analyses import aggregate, compare
from workbench.cli.main import main as cli
from workbench.core.errors import DataError
from workbench.core.numbers import article

EX = Path(__file__).resolve().parents[1] / "resources" / "examples"


@pytest.mark.parametrize("word, expected", [
    ("outcome", "an outcome"), ("item id", "an item id"), ("score", "a score"),
    ("unit", "a unit"), ("exact_match", "an exact_match"), ("latency_p95", "a latency_p95"),
    ("ndcg@10", "a ndcg@10"), ("user", "a user"), ("id", "an id")])
def test_article(word, expected):
    assert article(word) == expected


def test_a_missing_outcome_column_reads_an_outcome():
    frame = pd.DataFrame({"x": [1, 0], "language": ["en", "de"]})
    with pytest.raises(DataError) as err:
        aggregate.run(table_of(frame), aggregate.Options(group="language"))
    assert "needs an outcome column" in str(err.value) and "a outcome" not in str(err.value)


def test_a_repeated_item_id_reads_an_item_id():
    frame = pd.DataFrame({"item_id": ["a", "a"], "baseline": [1, 0], "candidate": [1, 1]})
    with pytest.raises(DataError) as err:
        compare.run(table_of(frame), compare.Options(baseline="baseline", candidate="candidate",
                                                     item="item_id"))
    assert "repeat an item id" in str(err.value) and "each item id must appear once" in str(err.value)


def test_maybe_among_yes_and_no_is_the_only_value_named():
    frame = pd.DataFrame({"item_id": ["1", "2", "3"], "baseline": ["yes", "no", "yes"],
                          "candidate": ["no", "maybe", "yes"]})
    with pytest.raises(DataError) as err:
        compare.run(table_of(frame), compare.Options(baseline="baseline", candidate="candidate",
                                                     item="item_id"))
    text = str(err.value)
    assert "'maybe'" in text and "'yes'" not in text and "'no' (line" not in text
    assert "binary values" in text and "1 row does not" in text


def test_a_number_column_with_text_still_says_numbers():
    frame = pd.DataFrame({"item_id": ["1", "2"], "baseline": ["0.5", "0.7"], "candidate": ["0.4", "n/a"]})
    with pytest.raises(DataError) as err:
        compare.run(table_of(frame), compare.Options(baseline="baseline", candidate="candidate",
                                                     item="item_id"))
    assert "must hold numbers" in str(err.value) and "'n/a'" in str(err.value)


def test_aggregate_on_claims_suggests_the_ratio_form_and_that_command_works(capsys):
    assert cli(["aggregate", str(EX / "claims.csv")]) == 2
    err = capsys.readouterr().err
    assert "--numerator correct_claims --denominator claims --unit conversation" in err
    assert cli(["aggregate", str(EX / "claims.csv"), "--numerator", "correct_claims",
                "--denominator", "claims", "--unit", "conversation"]) == 0
    assert "Pooled ratio" in capsys.readouterr().out
