"""The rules every card, table and workbook sheet must keep (issue 44), checked mechanically.

A checker reads what a reviewer reads (the card's sentences, the workbook's cells) and the
result's records, and returns the problems it finds as sentences:

- sign: a difference and its interval in the same direction (never "+0.002 (... -0.003 to
  -0.0002)"), and every interval low <= high;
- method: every interval named by its method ("Wilson 95% CI", "paired bootstrap 95% CI"), the
  name matching the ``ci_method`` of the record it comes from (every interval a card shows is a
  record's);
- units: a percentage only for rates, points only for differences of rates, a count shown as an
  integer, a cost or a time never below zero;
- zero width: no interval whose two bounds read the same;
- one value, one rounding: records of the same kind and the same value read the same, and the
  workbook stores one value as one number.

The checks are independent of the presentation code except for the method names, which are the
product's vocabulary (``METHOD_LABELS``).
"""

from __future__ import annotations

import math
import re
from collections import defaultdict

from workbench.report.present import format_interval, format_value, record_kind
from workbench.report.present._common import METHOD_LABELS, method_label

LABELS = sorted({label for _, label in METHOD_LABELS}, key=len, reverse=True)
#: a number as the policy writes it: "< 0.0001%", "+4.5", "1,049", "72.5%", "$0.475", "0.0146 EUR"
NUMBER = r"(?:[<>] )?[+-]?(?:[$€£¥])?\d[\d,]*(?:\.\d+)?%?"
INTERVAL = re.compile(
    r"(?P<words>(?:[A-Za-z.'-]+ ){0,3})95% CI (?P<lo>" + NUMBER + r")(?: pts)? to (?P<hi>" + NUMBER
    + r")(?P<pts> pts)?")
BARE_INTERVAL = re.compile(r"\((?:[^()]*?\s)?(" + NUMBER + r")(?: pts)? to (" + NUMBER + r")(?: pts)?\)")
COUNT_WORDS = r"(?:steps?|tool calls?|tokens?|items?|queries|query|requests?|tasks?|labels?|runs?|calls?)"
DECIMAL_COUNT = re.compile(r"(?<![\w.,])(\d[\d,]*\.0+) " + COUNT_WORDS + r"\b")
AMOUNT_KINDS = ("cost", "latency", "count")


def number(text: str) -> float | None:
    """The value of a number as written (a floor "< 0.0001" reads as None: no sign to check)."""
    t = text.strip()
    if t.startswith(("<", ">")):
        return None
    t = re.sub(r"[$€£¥,%]", "", t).replace(" pts", "")
    try:
        return float(t)
    except ValueError:
        return None


def _label_of(words: str) -> str:
    w = words.strip().lower()
    return next((label for label in LABELS if w.endswith(label.lower())), "")


def interval_index(result) -> dict[tuple[str, str], list[dict]]:
    """Every record's interval as a card may show it (and turned around): text -> records."""
    out: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for rec in result.records:
        lo, hi = rec.get("ci_low"), rec.get("ci_high")
        if lo is None or hi is None:
            continue
        kind = record_kind(result, rec)
        out[(format_interval(lo, hi, kind), "")].append(rec)
        out[(format_interval(-hi, -lo, kind), "flipped")].append(rec)
    return out


def check_card(result, ans, where: str = "") -> list[str]:
    """The problems of one answer card (an :class:`~workbench.report.present.Answer`)."""
    problems: list[str] = []
    index = interval_index(result)
    for sentence in ans.sentences:
        problems += [f"{where}: {p}" for p in check_text(sentence, index)]
        m = re.search(r"pass@(\d+) = (\S+?)(?: \([^)]*\))? but pass\^\1 = \2", sentence)
        if m:
            problems.append(f"{where}: 'pass@{m.group(1)} but pass^{m.group(1)}' with one value: {sentence!r}")
    text = " ".join(ans.sentences)
    if re.search(r"\btie[sd]? (?:for )?first\b", text) and not re.search(r"correct", text):
        for m in INTERVAL.finditer(text):
            lo, hi = number(m.group("lo")), number(m.group("hi"))
            if lo is not None and hi is not None and (lo > 0 or hi < 0) and "vs baseline" in text:
                problems.append(f"{where}: a pair's interval excludes 0 while the card says they tie, "
                                f"with no clause saying why: {text!r}")
                break
    return problems


def check_text(sentence: str, index: dict | None = None) -> list[str]:
    """Sign, method, unit and zero-width problems of one sentence; with ``index`` (from
    :func:`interval_index`), each interval must be a record's and named by its method."""
    problems = []
    for m in INTERVAL.finditer(sentence):
        lo_t, hi_t = m.group("lo"), m.group("hi")
        shown = f"95% CI {lo_t}{' pts' if m.group('pts') else ''} to {hi_t}{m.group('pts') or ''}"
        label = _label_of(m.group("words"))
        if not label:
            problems.append(f"an interval without its method: {shown!r} in {sentence!r}")
        if lo_t == hi_t:
            problems.append(f"a zero-width interval: {shown!r} in {sentence!r}")
        lo, hi = number(lo_t), number(hi_t)
        if lo is not None and hi is not None and lo > hi:
            problems.append(f"an interval whose low end is above its high end: {shown!r}")
        # the difference the interval belongs to: the signed number right before its bracket
        before = sentence[:m.start()]
        before = before[:before.rfind("(")] if "(" in before else before
        signed = re.search(r"(?<![\w.])([+-]\d[\d,]*(?:\.\d+)?)(?:%| pts)?\s*$", before)
        if signed and lo is not None and hi is not None:
            value = number(signed.group(1))
            if value is not None and ((value > 0 and hi < 0) or (value < 0 and lo > 0)):
                problems.append(f"a difference and its interval in opposite directions: "
                                f"{signed.group(1)} with {shown!r} in {sentence!r}")
        if (lo_t.endswith("%") or hi_t.endswith("%")) and m.group("pts"):
            problems.append(f"percent and points in one interval: {shown!r}")
        if index is not None:
            interval = (f"{lo_t} to {hi_t}{m.group('pts') or ''}")
            recs = index.get((interval, ""), []) + index.get((interval, "flipped"), [])
            if not recs:
                problems.append(f"an interval that is no record's: {shown!r} in {sentence!r}")
            elif label and not any(method_label(r.get("ci_method")) == label for r in recs):
                methods = sorted({str(r.get("ci_method")) for r in recs})
                problems.append(f"an interval named {label!r} whose record says {methods}: {shown!r}")
    for m in BARE_INTERVAL.finditer(sentence):
        if m.group(1) == m.group(2):
            problems.append(f"a zero-width interval: {m.group(0)!r} in {sentence!r}")
    for m in DECIMAL_COUNT.finditer(sentence):
        problems.append(f"a count with decimals: {m.group(0)!r} in {sentence!r}")
    return problems


def check_records(result, where: str = "") -> list[str]:
    """Record-level rules: the units of each interval (a rate's in percent, a cost or time never
    negative), every interval named by a method, no zero-width interval shown, one rounding
    per value."""
    problems = []
    by_value: dict[tuple[str, str], set[str]] = defaultdict(set)
    for rec in result.records:
        kind = record_kind(result, rec)
        value = rec.get("value")
        if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
            by_value[(kind, f"{value:.12g}")].add(format_value(value, kind))
            if kind == "count" and float(value) == int(value) and "." in format_value(value, kind):
                problems.append(f"{where}: count {rec['metric']} = {value} shown with decimals")
        lo, hi = rec.get("ci_low"), rec.get("ci_high")
        if lo is None or hi is None:
            continue
        if not rec.get("ci_method"):
            problems.append(f"{where}: {rec['metric']} has an interval without ci_method: {rec}")
        if kind in AMOUNT_KINDS and (lo < 0 or hi < 0):
            problems.append(f"{where}: {rec['metric']} ({kind}) has a negative bound: {lo} to {hi}")
        if "clopper-pearson" in str(rec.get("ci_method")) and kind not in ("rate", "score"):
            problems.append(f"{where}: a rate's exact interval on {rec['metric']} ({kind})")
    for (kind, value), shown in by_value.items():
        if len(shown) > 1:
            problems.append(f"{where}: one value {value} ({kind}) read as {sorted(shown)}")
    return problems


def check_workbook(path, results, where: str = "") -> list[str]:
    """The rules over an exported workbook read back with openpyxl: one value one stored number
    (no fraction stored past 15 significant digits, so every reader rounds it one way); each
    record's cells in its unit (a percentage format only for a rate or a relative change);
    no zero-width interval among the records; every interval header named by a method, the one
    its rows' ci_method cells give when they agree."""
    import openpyxl

    problems = []
    wb = openpyxl.load_workbook(path)
    for ws in wb.worksheets:
        rows = list(ws.iter_rows())
        for row in rows:
            for cell in row:
                v = cell.value
                if type(v) is float and math.isfinite(v) and float(f"{v:.15g}") != v:
                    problems.append(f"{where}: {ws.title}!{cell.coordinate} stores {v!r}, past 15 digits")
        problems += _records_on_sheet(ws, results, where)
        problems += _interval_headers(ws, where)
    return problems


def _records_on_sheet(ws, results, where) -> list[str]:
    out = []
    result = next((r for r in results if r.analysis == ws.title), None)
    if result is None:
        return out
    title = next((c.row for c in ws["A"] if c.value == "All results (the records printed by --json)"), None)
    if title is None:
        return out
    head = title + 1
    names = [ws.cell(head, c).value for c in range(1, ws.max_column + 1)]
    col = {str(n): i + 1 for i, n in enumerate(names) if n is not None}
    for i, rec in enumerate(result.records):
        r = head + 1 + i
        kind = record_kind(result, rec)
        value = ws.cell(r, col["value"])
        if isinstance(value.value, (int, float)) and not isinstance(value.value, bool):
            percent = "%" in str(value.number_format).replace('"%"', "")
            if percent != (kind in ("rate", "relative")):
                out.append(f"{where}: {ws.title} {rec['metric']} ({kind}) has the format {value.number_format!r}")
        if "ci_low" in col:
            lo, hi = ws.cell(r, col["ci_low"]).value, ws.cell(r, col["ci_high"]).value
            if isinstance(lo, (int, float)) and isinstance(hi, (int, float)) and \
                    format_value(lo, kind) == format_value(hi, kind):
                out.append(f"{where}: {ws.title} {rec['metric']} shows a zero-width interval {lo} to {hi}")
            if isinstance(lo, (int, float)) and not rec.get("ci_method"):
                out.append(f"{where}: {ws.title} {rec['metric']} has an interval without its method")
    return out


def _interval_headers(ws, where) -> list[str]:
    """Each "... 95% CI low" header names a method; when its table has a ci_method column whose
    cells all name one method, the header names that one."""
    out = []
    for row in ws.iter_rows():
        heads = {c.column: c.value for c in row if isinstance(c.value, str)}
        method_col = next((c for c, v in heads.items() if v in ("ci_method", "Ci method")), None)
        bounds = [(c, t) for c, t in sorted(heads.items()) if re.fullmatch(r"(?:.+? )?95% CI (low|high)", t)]
        for column, text in bounds[:2]:  # the ci_low/ci_high pair (a t or BCa pair comes after it)
            m = re.fullmatch(r"(?:(.+?) )?95% CI (low|high)", text)
            label = _label_of((m.group(1) or "") + " ")
            if method_col is None:
                continue
            methods = set()
            r = row[0].row + 1
            while r <= ws.max_row and ws.cell(r, method_col).value not in (None, ""):
                methods.add(method_label(ws.cell(r, method_col).value))
                r += 1
            if len(methods) == 1 and label.lower() != next(iter(methods)).lower():
                out.append(f"{where}: {ws.title}!{ws.cell(row[0].row, column).coordinate} heads "
                           f"{text!r} over intervals computed by {methods}")
            if len(methods) > 1 and label:
                out.append(f"{where}: {ws.title} heads {text!r} over intervals of several methods {methods}")
    return out
