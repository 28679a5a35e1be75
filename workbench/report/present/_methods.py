"""The names of the interval methods: how a card, a table header and a chart call the method
of an interval, from the record's ``ci_method`` (or a column's description, a signature entry)."""

from __future__ import annotations

from typing import Any


#: the words a card uses for an interval's method, from the record's ``ci_method`` (or a
#: signature's entry): the one the text names first (see method_labels)
METHOD_LABELS = (
    ("bca", "BCa bootstrap"), ("cluster-bootstrap", "cluster bootstrap"), ("poisson-hash", "Poisson bootstrap"),
    ("paired-bootstrap", "paired bootstrap"), ("ratio-bootstrap", "ratio bootstrap"),
    ("stratified-bootstrap", "stratified bootstrap"), ("sacrebleu-bootstrap", "sacreBLEU bootstrap"),
    ("bootstrap", "bootstrap"), ("clopper-pearson", "Clopper-Pearson"), ("tango-score", "Tango score"),
    ("wilson", "Wilson"), ("jeffreys", "Jeffreys"), ("order-statistic", "order-statistic"),
    ("lee2025", "Lee et al."), ("gwet", "Gwet"), ("asymptotic", "asymptotic"),
    ("paired-t", "paired t"), ("normal", "normal"), ("delta", "delta-method"), ("t-95", "t"),
)


def method_label(ci_method: Any) -> str:
    """The name a card gives the interval of a record whose ``ci_method`` is this
    (``wilson-95`` -> ``Wilson``, ``bootstrap-percentile-95,B=2000`` -> ``bootstrap``);
    empty when it names none."""
    labels = method_labels(ci_method)
    return labels[0] if labels else ""


def method_labels(text: Any) -> list[str]:
    """Every interval method a text names (a ``ci_method``, a signature entry or a column's
    description such as "Wilson 95% interval, low (Clopper-Pearson below 30 items)"), in the
    order they appear; at one place the longest pattern wins (``paired-bootstrap`` over
    ``bootstrap``)."""
    low = str(text or "").lower().replace(" ", "-")
    found: list[tuple[int, int, str]] = []
    for rank, (pattern, label) in enumerate(METHOD_LABELS):
        at = low.find(pattern)
        while at >= 0:
            if at == 0 or not low[at - 1].isalpha():  # a word's start: not the "t-95" of "percent-95"
                found.append((at, rank, label))
            at = low.find(pattern, at + 1)
    out: list[str] = []
    taken: list[tuple[int, int]] = []
    for at, rank, label in sorted(found):
        end = at + len(METHOD_LABELS[rank][0])
        if any(a <= at < b for a, b in taken):
            continue  # "bootstrap" inside "paired-bootstrap", already named
        taken.append((at, end))
        if label not in out:
            out.append(label)
    return out


def interval_words(methods, level: str = "95%") -> str:
    """The words a chart's axis or legend uses for the intervals it draws, from their methods
    (``ci_method`` values): "Wilson 95% interval", "Wilson or Clopper-Pearson 95% interval"
    when rows differ, "95% interval" when none is named."""
    labels: list[str] = []
    for m in methods:
        label = method_label(m)
        if label and label not in labels:
            labels.append(label)
    return f"{' or '.join(labels) + ' ' if labels else ''}{level} interval"
