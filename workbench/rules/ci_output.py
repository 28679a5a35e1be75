"""The gate's answer in formats a CI pipeline reads: JUnit XML (one test case per criterion of
the rule, plus one for the comparison with the baseline) and a Markdown summary for a pull
request comment.  Both are written atomically (a temporary file renamed into place).

JUnit mapping: PASS is a passing test case; FAIL a ``<failure>`` whose message is the reason
in one sentence; INCONCLUSIVE an ``<error>`` (the gate's exit 3: the data cannot decide).  The
baseline test case fails on ``regression``, errs on ``insufficient data`` and ``baseline
unreliable``, and passes otherwise (a soft regression passes with its warning in
``<system-out>``).
"""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from typing import Any, Sequence

from ..core.errors import WorkbenchError
from ..core.session import atomic_write_text
from .outcome import FAIL, INCONCLUSIVE, PASS

SUITE = "workbench gate"


def _case(suite: ET.Element, classname: str, name: str, status: str, message: str,
          out: str | None = None) -> None:
    case = ET.SubElement(suite, "testcase", classname=classname, name=name, time="0")
    if status == FAIL:
        ET.SubElement(case, "failure", message=message, type="FAIL").text = message
    elif status == INCONCLUSIVE:
        ET.SubElement(case, "error", message=message, type="INCONCLUSIVE").text = message
    if out:
        ET.SubElement(case, "system-out").text = out


def junit_xml(rule_name: str, criteria: Sequence[dict[str, Any]], tier: dict[str, str] | None = None) -> str:
    """The JUnit document: ``criteria`` are dicts with ``name``, ``status`` (PASS / FAIL /
    INCONCLUSIVE) and ``message``; ``tier`` (``tier``, ``sentence``, ``baseline``) adds the
    baseline comparison's test case."""
    cases = [(c["name"], c["status"], c["message"], None) for c in criteria]
    if tier is not None:
        status = {"regression": FAIL, "insufficient data": INCONCLUSIVE,
                  "baseline unreliable": INCONCLUSIVE}.get(tier["tier"], PASS)
        out = f"warning: {tier['sentence']}" if tier["tier"] == "soft regression" else tier["sentence"]
        cases.append((f"baseline comparison with '{tier['baseline']}': {tier['tier']}", status,
                      tier["sentence"], out))
    failures = sum(1 for c in cases if c[1] == FAIL)
    errors = sum(1 for c in cases if c[1] == INCONCLUSIVE)
    root = ET.Element("testsuites", name=SUITE, tests=str(len(cases)), failures=str(failures),
                      errors=str(errors), time="0")
    suite = ET.SubElement(root, "testsuite", name=f"{SUITE}: {rule_name}", tests=str(len(cases)),
                          failures=str(failures), errors=str(errors), skipped="0", time="0")
    for name, status, message, out in cases:
        _case(suite, f"gate.{_slug(rule_name)}", name, status, message, out)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _slug(text: str) -> str:
    return "".join(ch if ch.isalnum() else "_" for ch in text).strip("_") or "rule"


def _md(text: Any) -> str:
    """A table cell: pipes escaped, one line."""
    return str(text).replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def markdown(title: str, criteria: Sequence[dict[str, Any]], *, tier: dict[str, str] | None = None,
             rows: Sequence[dict[str, str]] = (), items: dict[str, Any] | None = None,
             signature: str = "") -> str:
    """A pull-request comment: the tier and its sentence, a table of the criteria, the items
    that regressed and the items in only one run, the signature."""
    icon = {PASS: "✅", FAIL: "❌", INCONCLUSIVE: "⚠️"}
    out = [f"## {title}", ""]
    if tier is not None:
        mark = {"regression": "❌", "soft regression": "⚠️", "insufficient data": "⚠️",
                "baseline unreliable": "⚠️", "improvement": "✅", "stable": "✅"}[tier["tier"]]
        out += [f"**Tier: {tier['tier']}** {mark} (exit {tier['exit_code']})", "", f"> {_md(tier['sentence'])}", ""]
    shown = {str(r.get("index")): r for r in rows}
    out += ["| # | criterion | status | observed | interval | n |", "|---|---|---|---|---|---|"]
    for c in criteria:
        r = shown.get(str(c.get("index")), {})
        out.append(f"| {c.get('index', '')} | {_md(c['name'].split('. ', 1)[-1])} | {icon.get(c['status'], '')} "
                   f"{c['status']} | {_md(r.get('observed', '-'))} | {_md(r.get('interval', '-'))} | "
                   f"{_md(r.get('n', '-'))} |")
    if items:
        out += ["", *_items_md(items)]
    if signature:
        out += ["", f"<sub>signature: `{signature}`</sub>"]
    return "\n".join(out) + "\n"


def _items_md(items: dict[str, Any], limit: int = 50) -> list[str]:
    out = []
    if "shared" in items:
        out.append(f"Items: {items['shared']:,} shared, {items.get('only_in_baseline_count', 0):,} only in the "
                   f"baseline, {items.get('only_in_run_count', 0):,} only in the run.")
    if "regressions" in items:
        regs = items["regressions"]
        out += ["", f"### Regressions: {len(regs):,} items right before, wrong now"]
        if regs:
            more = f" … and {len(regs) - limit:,} more (see the JSON output)" if len(regs) > limit else ""
            out += ["", ", ".join(f"`{_md(i)}`" for i in regs[:limit]) + more]
    for key, head in (("only_in_baseline", "Only in the baseline"), ("only_in_run", "Only in the run")):
        ids = items.get(key) or []
        if ids:
            listed = ", ".join(f"`{_md(i)}`" for i in ids[:limit])
            more = f" and {len(ids) - limit:,} more" if len(ids) > limit else ""
            out += ["", f"{head} ({len(ids):,}): {listed}{more}"]
    return out


def write(path: str, text: str, what: str) -> None:
    """Write ``text`` to ``path`` atomically; a failure is one sentence."""
    try:
        folder = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(folder):
            raise FileNotFoundError(2, "the folder does not exist")
        atomic_write_text(path, text)
    except OSError as err:
        raise WorkbenchError(f"The {what} '{path}' cannot be written ({err.strerror or err}).") from None
