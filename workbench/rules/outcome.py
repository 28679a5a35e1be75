"""What a release rule's condition measured, before it is judged, and the three statuses."""

from __future__ import annotations

from dataclasses import dataclass, field

PASS, FAIL, INCONCLUSIVE = "PASS", "FAIL", "INCONCLUSIVE"


@dataclass
class Outcome:
    """What was measured for one condition, before it is judged."""

    observed: float | None
    ci_low: float | None
    ci_high: float | None
    n: int | None
    input_index: int
    p_value: float | None = None
    counts: str = ""
    basis: str = ""
    notes: list[str] = field(default_factory=list)
    evalset: dict | None = None
    discordance: float | None = None     # paired binary: discordant / n
    sd: float | None = None              # ranking: sd of the per-query differences
    discordant: int | None = None        # items (or queries) that differ
    unit_word: str = "items"
    #: the unit when it is not one row: "item(share-of-tries)" for a log's repeated tries
    unit: str = ""
    #: slice conditions: the slice shown ("language = hi"), the slices that fail (each a dict of
    #: name, diff, ci_low, ci_high, n) and how many slices had at least min_items items
    slice: str | None = None
    failing: list = field(default_factory=list)
    eligible: int | None = None
