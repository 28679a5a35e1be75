"""The number policy in the analyst's locale: separators are a display choice of the thread
that shows the numbers (the window's GUI thread); every other thread, the command line and the
files written keep ``.`` and ``,``."""

from __future__ import annotations

import threading

import pytest

from workbench.core import numbers
from workbench.report import present


@pytest.fixture
def german():
    numbers.set_display_separators(",", ".")
    yield
    numbers.set_display_separators()


def test_each_kind_in_german(german):
    assert present.format_value(0.6924, "score") == "0,692"
    assert present.format_value(1049, "count") == "1.049"
    assert present.format_value(0.725, "rate") == "72,5%"
    assert present.format_value(0.045, "points") == "+4,5 pts"
    assert present.format_value(0.0636, "p") == "0,0636"
    assert present.format_value(1e-9, "p") == "< 0,001"
    assert present.format_value(1234.5, "cost", currency="€") == "€1.234,50"  # the symbol as chosen
    assert present.format_value(2.4517499999999997, "latency") == "2,452"
    assert present.format_value(1234567.891, "plain") == "1.234.567,8910"
    assert present.format_interval(0.61, 0.72, "score") == "0,610 to 0,720"
    assert numbers.plural(1049, "item") == "1.049 items"
    assert present.format_value(0.0000021, "rate") == "0,00021%"


def test_french_grouping_is_a_narrow_space():
    numbers.set_display_separators(",", "\u202f")
    try:
        assert present.format_value(1234567, "count") == "1\u202f234\u202f567"
        assert present.format_value(0.5, "score") == "0,500"
    finally:
        numbers.set_display_separators()


def test_other_threads_and_the_default_keep_the_decimal_point(german):
    seen = {}

    def worker():
        seen["score"] = present.format_value(0.6924, "score")
        seen["count"] = present.format_value(1049, "count")

    thread = threading.Thread(target=worker)
    thread.start()
    thread.join()
    assert seen == {"score": "0.692", "count": "1,049"}  # a worker writing a report: locale-free
    numbers.set_display_separators()
    assert present.format_value(0.6924, "score") == "0.692"


def test_an_answer_sentence_follows_the_separators(german):
    import pandas as pd

    from tests.conftest import table_of
    from workbench.analyses import REGISTRY

    frame = pd.DataFrame({"item_id": [f"i{i}" for i in range(1500)], "correct": [1, 0, 1] * 500,
                          "language": ["en", "de", "fr"] * 500})
    result = REGISTRY["aggregate"].run(table_of(frame))
    german_text = " ".join(present.answer(result).sentences)
    numbers.set_display_separators()
    plain_text = " ".join(present.answer(result).sentences)
    assert "1.500" in german_text and "1,500" in plain_text
    assert "66,7%" in german_text and "66.7%" in plain_text


def test_separators_must_differ():
    with pytest.raises(ValueError):
        numbers.set_display_separators(",", ",")
