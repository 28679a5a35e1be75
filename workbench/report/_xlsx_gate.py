"""The release gate in the report: its verdict and decision card on the summary, and its own
sheet with the rules, the evaluation set and every condition."""

from __future__ import annotations

import pandas as pd

from ..core.result import AnalysisResult, Table
from .present import answer, display_name, format_p, format_value, gate_kind, gate_status, interval_label
from .layout import Block, Gap, Heading, Item, Line, SheetPlan
from .safety import SheetNames
from ._xlsx_records import _records_block


#: Columns of the decision card shown on the summary and at the top of the gate's sheet.
CARD_SUMMARY_COLUMNS = ("index", "condition", "n", "observed", "ci_low", "ci_high", "threshold",
                        "p_holm", "status")
CARD_VALUE_COLUMNS = ("observed", "ci_low", "ci_high", "threshold")


def card_cell_kind(frame: pd.DataFrame, formats: dict[str, str]):
    """Per-row kinds of the card's values, from its ``unit`` column (points for a difference
    of rates, a relative change, a score difference, or the metric's own kind)."""
    if "unit" not in frame:
        return None
    metrics = list(frame["metric"]) if "metric" in frame else [""] * len(frame)
    per_row = [gate_kind(str(u), str(m)) if isinstance(u, str) else None
               for u, m in zip(frame["unit"], metrics)]

    def kind(name: str, i: int) -> str | None:
        if name in CARD_VALUE_COLUMNS and per_row[i]:
            return per_row[i]
        if name in ("p_value", "p_holm"):
            return "p"
        if name in ("n", "index", "input", "more_items"):
            return "count"
        return "text" if formats.get(name) == "text" else None
    return kind


def _card_block(key: str, card: Table, *, title: str | None = None, full_legend: bool = True) -> Block:
    frame = card.frame
    shown = [c for c in CARD_SUMMARY_COLUMNS if c in frame]
    if "status" not in shown:
        shown = list(frame.columns)
    if "p_holm" in shown and "p_value" in frame and "p_holm" in frame:
        same = all((a == b) or (a != a and b != b) for a, b in zip(frame["p_value"], frame["p_holm"]))
        if same:
            shown[shown.index("p_holm")] = "p_value"
    hidden = tuple(c for c in frame.columns if c not in shown)
    frame = frame[shown + list(hidden)]
    legend = [f"{c}: {m}" for c, m in card.columns.items() if c in shown] if full_legend else []
    if "unit" in card.frame:
        legend.append("observed, ci_low, ci_high and threshold are in each condition's unit: "
                      "differences of success rates in percentage points (pts), relative changes in %, "
                      "score differences as decimals, levels as in the file.")
    return Block(key, title or card.title or "Decision card", frame,
                 formats={c: ("text" if card.formats.get(c) == "text" else "count" if c in ("n", "index") else "plain")
                          for c in shown},
                 legend=legend, status_column="status" if "status" in frame else None, hidden=hidden,
                 legend_below=True, cell_kind=card_cell_kind(card.frame, dict(card.formats)))


def _gate_head(gate: AnalysisResult, currency=None) -> list[Item]:
    """Verdict, the answer, and whether the rule was registered before the results."""
    st = gate_status(gate)
    verdict = str(st["verdict"] or "no verdict")
    ans = answer(gate, currency=currency)
    items: list[Item] = [Line("Release verdict", verdict, style="verdict"),
                         Line("Decision", ans.sentences[0], style="answer")]
    if st["changed"]:
        items.append(Line("Warning", "The release rule was changed after results were seen.", style="warning"))
    rule = ans.sentences[-1]
    if st["name"] or st["sha256"]:
        rule += " Rule" + (f" '{st['name']}'" if st["name"] else "") + (
            f", SHA-256 {st['sha256']}." if st["sha256"] else ".")
    items.append(Line("Registration", rule))
    return items


def _gate_items(gate: AnalysisResult, currency=None) -> list[Item]:
    items = _gate_head(gate, currency)
    try:
        card = gate.table("card")
    except KeyError:
        card = None
    if card is not None:
        items += [Gap(), _card_block("gate/card", card, full_legend=False)]
    items.append(Gap())
    return items


def _plan_gate(key, gate: AnalysisResult, names: SheetNames, currency=None) -> tuple[str, list[SheetPlan]]:
    """The gate's sheet, laid out to print on A4 or Letter landscape at a readable size: the
    verdict and card, then each condition in words, the eval-set check, then the rule's text
    in a wide merged area, then the records."""
    main = SheetPlan(names.claim("gate"), freeze=False, text_width=34.0)
    st = gate_status(gate)
    items: list[Item] = [Heading("Release gate" + (f": {st['name']}" if st["name"] else ""))]
    items += _gate_head(gate, currency)
    items += [Line("Signature", gate.signature, style="signature"),
              Line("Input", gate.input or "the files named on the summary")]
    items.append(Gap())
    try:
        card = gate.table("card")
    except KeyError:
        card = None
    if card is not None:
        items += [_card_block(key("card"), card, title="Decision card"), Gap()]
        items.append(Heading("Conditions", "section"))
        kinds = card_cell_kind(card.frame, dict(card.formats))
        for i, row in enumerate(card.frame.to_dict("records")):
            items.append(Line(f"{row.get('index', i + 1)}. {display_name(str(row.get('metric', '')))}",
                              _condition_text(row, i, kinds), style="answer"))
        items.append(Gap())
    try:
        evalset = gate.table("items")
    except KeyError:
        evalset = None
    if evalset is not None and len(evalset.frame):
        items.append(Heading("Eval-set check", "section"))
        for row in evalset.frame.to_dict("records"):
            items.append(Line(f"Condition {row.get('index', '')}", f"{row.get('condition', '')}: "
                              + _evalset_text(row), style="note"))
        items.append(Gap())
    rule_text = None
    try:
        fields = gate.table("rule").frame
    except KeyError:
        fields = None
    if fields is not None:
        items.append(Heading("Rule", "section"))
        for field_, value in zip(fields["field"], fields["value"]):
            if str(field_) == "text":
                rule_text = str(value)
                continue
            label = {"changed after results were seen": "changed after results"}.get(str(field_), str(field_))
            items.append(Line(label, _rule_value(str(field_), value)))
    if rule_text:
        items.append(Line("Rule file", "as registered, line by line:", style="note"))
        items += [Line("", line if line.strip() else None, style="code") for line in rule_text.rstrip("\n").split("\n")]
    items.append(Gap())
    items += [Line("Note", note, style="note") for note in gate.notes]
    items.append(Gap())
    items.append(_records_block(key("#records"), gate, filter=False))
    main.items = items
    return main.name, [main]


def _evalset_text(row: dict) -> str:
    """One condition's eval-set check in words (the gate's ``items`` table, one row)."""
    def n(col):
        v = row.get(col)
        return format_value(v, "count") if v is not None and v == v else "-"

    text = (f"{n('baseline_items')} baseline items, {n('candidate_items')} candidate items, "
            f"{n('common')} in common (input {n('input')})")
    for col, word in (("missing", "missing for the candidate"), ("added", "added for the candidate")):
        if row.get(col):
            examples = row.get(f"examples_{col}")
            text += f"; {n(col)} {word}" + (f" (e.g. {examples})" if examples else "")
    return text + "."


def _rule_value(field_: str, value):
    """A rule field as the sheet shows it: alpha as a number, the rest as text."""
    if field_ == "alpha":
        try:
            return float(value)
        except (TypeError, ValueError):
            return value
    return value


def _condition_text(row: dict, i: int, kinds) -> str:
    def fv(col):
        kind = kinds(col, i) if kinds else "plain"
        return format_value(row.get(col), kind or "plain")

    status = str(row.get("status", ""))
    parts = [f"{status}: {row.get('reason', '')}." if row.get("reason") else status + "."]
    if row.get("requirement"):
        parts.append(f"PASS needs {row['requirement']}.")
    obs = f"Observed {fv('observed')}"
    if row.get("ci_low") is not None and row.get("ci_low") == row.get("ci_low"):
        obs += f" ({interval_label(row.get('basis'))} {fv('ci_low')} to {fv('ci_high')})"
    if row.get("n") is not None and row.get("n") == row.get("n"):
        obs += f", n = {format_value(row['n'], 'count')}"
    parts.append(obs + ".")
    if row.get("basis"):
        parts.append(f"Basis: {row['basis']}.")
    if row.get("counts"):
        parts.append(f"Counts: {row['counts']}.")
    p, ph = row.get("p_value"), row.get("p_holm")
    if p is not None and p == p:
        text = f"Test {format_p(p)}"
        if ph is not None and ph == ph and format_value(ph, "p") != format_value(p, "p"):
            text += f" (Holm-adjusted {format_value(ph, 'p')})"
        parts.append(text + ".")
    if row.get("more_items") is not None and row.get("more_items") == row.get("more_items"):
        parts.append(f"About {format_value(row['more_items'], 'count')} more would settle it.")
    if row.get("notes"):
        parts.append(f"Notes: {row['notes']}")
    return " ".join(parts)
