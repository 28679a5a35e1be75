"""A cell's text is never rewritten: ids, answers and labels read as the file wrote them.

The property tests write random tables of strings as CSV, TSV, XLSX and Parquet with other
tools (the csv module, openpyxl, pandas' Parquet writer), load them, and require the exact
strings back in every id/text role, and exact match under ``normalize='none'`` to be 1
exactly where the two strings are equal.  The examples are the cases of issue 11, where a
number-looking column used to be typed as floats and then printed back.
"""

from __future__ import annotations

import csv

import numpy as np
import openpyxl
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from workbench.analyses import compare as ca
from workbench.analyses import ranking as ra
from workbench.analyses import text as ta
from workbench.core.errors import DataError
from workbench.io import load_table, text_codes, to_text


# every test twice: files read whole, and the large way (``reading`` in tests/conftest.py)
pytestmark = pytest.mark.usefixtures("reading")

NUMBERISH = ["7.50", "7.5", "1e3", "1000", "+5", "5", "3.0", "3", "007", "7", " 3 ", "-0",
             "0", "1.1", "1.10", "2.50", "NaN", "inf", "1,5", "TRUE", "true", "None", "NA", ""]

# printable text (no surrogates or control characters, which XLSX cannot hold) with the
# characters that make CSV quoting and sniffing work for their living
cells = st.one_of(
    st.sampled_from(NUMBERISH),
    st.text(
        alphabet=st.one_of(
            st.characters(blacklist_categories=("Cs", "Cc", "Co", "Cn")),
            st.sampled_from(list(' ,;|\t"\n.0123456789eE+-')),
        ),
        max_size=12,
    ),
)


def write_csv(path, frame: pd.DataFrame, delimiter: str) -> None:
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, delimiter=delimiter, lineterminator="\n")
        writer.writerow(frame.columns)
        writer.writerows(frame.itertuples(index=False))


def write_xlsx(path, frame: pd.DataFrame) -> None:
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.append(list(frame.columns))
    for row in frame.itertuples(index=False):
        sheet.append([None] * len(row))
        for column, value in enumerate(row, start=1):
            cell = sheet.cell(row=sheet.max_row, column=column)
            cell.value = value
            cell.data_type = "s"  # text, even when it starts with "=" or looks like a number
    book.save(path)


def write_table(tmp_path, frame: pd.DataFrame, kind: str) -> str:
    path = tmp_path / f"t.{ 'tsv' if kind == 'tsv' else kind}"
    if kind == "csv":
        write_csv(path, frame, ",")
    elif kind == "tsv":
        write_csv(path, frame, "\t")
    elif kind == "xlsx":
        write_xlsx(path, frame)
    else:
        frame.to_parquet(path, index=False)
    return str(path)


def _readable(kind: str, values: list[str]) -> list[str]:
    """What the format can hold: XML (XLSX) turns a carriage return into a line feed, and
    delimited text cannot tell an empty cell from a missing one (both read as "")."""
    if kind == "xlsx":
        return [v.replace("\r\n", "\n").replace("\r", "\n") for v in values]
    return values


@pytest.mark.parametrize("kind", ["csv", "tsv", "xlsx", "parquet"])
@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(rows=st.lists(st.tuples(cells, cells), min_size=1, max_size=6))
def test_random_strings_come_back_exactly(tmp_path, kind, rows):
    ids = [f"{i}" if i % 2 else f"{i}.0" for i in range(len(rows))]  # 0.0, 1, 2.0, 3 ...
    frame = pd.DataFrame({
        "id": ids,
        "prediction": [a for a, _ in rows],
        "reference": [b for _, b in rows],
    })
    path = write_table(tmp_path, frame, kind)
    table = load_table(path)
    assert to_text(table, "id") == ids
    for column in ("prediction", "reference"):
        assert to_text(table, column) == _readable(kind, frame[column].tolist())
    codes, labels = text_codes(table, "id")
    assert [labels[c] for c in codes] == ids
    result = ta.run(table, ta.Options(prediction="prediction", reference="reference", id="id",
                                      normalize="none"))
    items = next(t.frame for t in result.tables if t.name == "items")
    expected = [float(a == b) for a, b in zip(_readable(kind, frame["prediction"].tolist()),
                                              _readable(kind, frame["reference"].tolist()))]
    assert items["exact_match"].tolist() == expected


# --- the cases of issue 11 ---------------------------------------------------------


def test_numeric_answers_keep_their_text(tmp_path):
    path = tmp_path / "gsm.csv"
    path.write_text("id,prediction,reference\n1,3.0,3.0\n2,2.50,2.50\n3,7,7.0\n4,1e3,1000\n"
                    "5,+5,5\n")
    table = load_table(str(path))
    assert to_text(table, "prediction") == ["3.0", "2.50", "7", "1e3", "+5"]
    assert to_text(table, "reference") == ["3.0", "2.50", "7.0", "1000", "5"]
    result = ta.run(table, ta.Options(normalize="none"))
    items = next(t.frame for t in result.tables if t.name == "items")
    assert items["exact_match"].tolist() == [1.0, 1.0, 0.0, 0.0, 0.0]
    assert result.value("exact_match") == pytest.approx(2 / 5)


def test_ranking_doc_1_is_not_qrels_doc_1_0(tmp_path):
    run = tmp_path / "run.csv"
    run.write_text("query,doc,score\nq1,1,0.9\nq1,2,0.5\n")
    qrels = tmp_path / "qrels.csv"
    qrels.write_text("query,doc,relevance\nq1,1.0,1\nq1,3,0\n")
    result = ra.run(load_table(str(run)), ra.Options(qrels=str(qrels), ks=(1,)))
    assert result.value("p@1") == 0.0
    assert result.value("mrr") == 0.0
    assert result.value("map") == 0.0
    # and the same documents written identically match
    qrels.write_text("query,doc,relevance\nq1,1,1\nq1,3,0\n")
    result = ra.run(load_table(str(run)), ra.Options(qrels=str(qrels), ks=(1,)))
    assert result.value("p@1") == 1.0


def test_compare_long_form_does_not_pair_1_with_1_0(tmp_path):
    path = tmp_path / "long.csv"
    path.write_text("system,item,outcome\nA,1,1\nB,1.0,0\nA,3.5,1\nB,3.50,1\nA,2,0\nB,2,1\n")
    table = load_table(str(path))
    result = ca.run(table, ca.Options(system="system", item="item", outcome="outcome",
                                      baseline_system="A", candidate_system="B", resamples=1000))
    assert result.find("wins")[0]["n"] == 1  # only item 2 is scored by both
    assert any("only by 'A'" in note and "1, 3.5" in note for note in result.notes)
    assert any("only by 'B'" in note and "1.0, 3.50" in note for note in result.notes)


def test_wide_form_section_ids_1_1_and_1_10_are_different(tmp_path):
    path = tmp_path / "wide.csv"
    path.write_text("section,baseline,candidate\n1.1,1,0\n1.10,0,1\n1.2,1,1\n")
    table = load_table(str(path))
    result = ca.run(table, ca.Options(baseline="baseline", candidate="candidate",
                                      item="section", resamples=1000))
    assert result.find("wins")[0]["value"] == 1 and result.find("losses")[0]["value"] == 1


def test_xlsx_numbers_in_an_id_role_read_as_excel_shows_them(tmp_path):
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.append(["id", "prediction", "reference"])
    sheet.append([1, 3, 3.0])
    sheet.append([2.0, 2.5, "2.5"])
    sheet.append([3, "x", "x"])
    path = tmp_path / "num.xlsx"
    book.save(path)
    table = load_table(str(path))
    assert to_text(table, "id") == ["1", "2", "3"]
    assert to_text(table, "prediction") == ["3", "2.5", "x"]
    assert any("as Excel shows" in note and "'id'" in note for note in table.notes)


def test_delimited_numbers_read_lazily_once_for_several_columns(tmp_path):
    path = tmp_path / "n.csv"
    path.write_text("q,d,s\n1,01.0,0.5\n2,2.0,0.25\n")
    table = load_table(str(path))
    assert table.frame["q"].dtype == np.int64  # numbers for numeric roles...
    assert to_text(table, "q") == ["1", "2"]  # ...and the file's text for id roles
    assert to_text(table, "d") == ["01.0", "2.0"]
    assert to_text(table, "s") == ["0.5", "0.25"]


def test_csv_with_a_number_column_beyond_the_sample_keeps_text(tmp_path):
    lines = ["id,answer"] + [f"{i},{i}.0" for i in range(5000)] + ["5000,7.50"]
    path = tmp_path / "long.csv"
    path.write_text("\n".join(lines) + "\n")
    table = load_table(str(path))
    assert table.frame["answer"].dtype == np.float64
    text = to_text(table, "answer")
    assert text[0] == "0.0" and text[-1] == "7.50" and len(text) == 5001


def test_input_bytes_feed_the_fast_and_exact_readers_alike(tmp_path):
    # a quote in the middle of a field sends the file to the exact reader; same text either way
    plain = tmp_path / "a.csv"
    plain.write_text('id,text\n1,say "hi"\n2,7.50\n')
    quoted = tmp_path / "b.csv"
    quoted.write_text('id,text\n1,"say ""hi"""\n2,7.50\n')
    assert to_text(load_table(str(plain)), "text") == ['say "hi"', "7.50"]
    assert to_text(load_table(str(quoted)), "text") == ['say "hi"', "7.50"]


# --- sentences for workbooks ---------------------------------------------------------


def test_missing_column_names_the_other_sheets(tmp_path):
    book = openpyxl.Workbook()
    book.active.title = "Notes"
    book.active.append(["comment"])
    book.active.append(["see the next sheet"])
    results = book.create_sheet("Results")
    results.append(["item", "baseline", "candidate"])
    results.append(["a", 1, 0])
    path = tmp_path / "two.xlsx"
    book.save(path)
    with pytest.raises(DataError) as info:
        ca.run(load_table(str(path)), ca.Options(baseline="baseline", candidate="candidate"))
    message = str(info.value)
    assert "'Results'" in message and "--sheet" in message and "\n" not in message
    result = ca.run(load_table(str(path), sheet="Results"),
                    ca.Options(baseline="baseline", candidate="candidate", resamples=1000))
    assert result.find("losses")[0]["value"] == 1


def test_damaged_workbook_is_one_line(tmp_path):
    path = tmp_path / "broken.xlsx"
    path.write_bytes(b"PK\x03\x04" + b"\x00garbage\nmore garbage\n" * 20)
    with pytest.raises(DataError) as info:
        load_table(str(path))
    message = str(info.value)
    assert "\n" not in message and "broken.xlsx" in message


def test_a_subset_of_rows_keeps_its_cells_text(tmp_path):
    path = tmp_path / "s.csv"
    path.write_text("id,answer\n1,7.50\n2,3.0\n3,1e3\n")
    table = load_table(str(path))
    sub = table.take([2, 0])
    assert to_text(sub, "answer") == ["1e3", "7.50"]
    assert to_text(sub, "id") == ["3", "1"]
    assert sub.lines_of([0, 1]) == [4, 2]
