"""Issue 44: every number in its unit and one rounding per value (a count an integer, a
percentage only for a rate, a cost or a time never negative, no rate's interval on a cost)."""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.core.numbers import format_value, kind_of

ROOT = Path(__file__).resolve().parents[1]
CARDS = ROOT / "tests" / "fixtures" / "cards"


@pytest.mark.parametrize("kind", ["p", "score", "rate", "points", "cost", "latency", "count", "statistic"])
def test_one_value_reads_one_way_whatever_its_float_noise(kind):
    """A p of 1 computed as 0.9999999999999999 read 1.000 beside another's 1.00; every kind
    reads a value and its float-noise twin alike (as Excel shows both)."""
    for value in (1.0, 0.4375, 0.7125, 0.3125, 2.5, 1234.5):
        below, above = value - value * 2.3e-16, value + value * 2.3e-16
        assert format_value(below, kind) == format_value(value, kind) == format_value(above, kind), (kind, value)
