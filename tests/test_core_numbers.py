"""The number-format policy's home, workbench.core.numbers: importable from every layer (the
standard library only) and the very functions report.present re-exports."""

from __future__ import annotations

import subprocess
import sys

import pytest

from workbench.core import numbers
from workbench.report import present


@pytest.mark.parametrize("name", ["KINDS", "MISSING", "kind_of", "gate_kind", "excel_round", "format_value",
                                  "format_p", "format_interval", "format_record", "DECIMALS"])
def test_present_re_exports_the_core_policy(name):
    assert getattr(present, name) is getattr(numbers, name)


def test_core_numbers_imports_only_the_standard_library():
    code = ("import sys, workbench.core.numbers; "
            "print(sorted(m for m in ('numpy', 'pandas', 'scipy', 'openpyxl', 'workbench.report') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize("value,kind,text", [
    (0.045, "points", "+4.5 pts"), (0.0612, "margin", "6.1 pts"), (0.0636, "p", "0.0636"),
    (0.5, "p", "0.500"), (1.58e-30, "p", "< 0.001"), (0.095, "rate", "9.5%"), (1049, "count", "1,049"),
    (2.4517499999999997, "latency", "2.452"), (0.0146, "cost", "0.0146"),
])
def test_the_policy_by_hand(value, kind, text):
    assert numbers.format_value(value, kind) == text


def test_plural_counts_its_noun():
    assert numbers.plural(1, "item") == "1 item"
    assert numbers.plural(19, "discordant item") == "19 discordant items"
    assert numbers.plural(3, "query") == "3 queries"
    assert numbers.plural(1200.0, "request") == "1,200 requests"
    assert numbers.format_p(0.0004) == "p < 0.001" and numbers.format_p(0.0636) == "p = 0.0636"
