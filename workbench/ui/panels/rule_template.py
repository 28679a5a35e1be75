"""A starting release rule for the loaded data (the Release rule panel's New button): its
columns and systems filled in, the conditions its columns allow."""

from __future__ import annotations

import json

from ...rules import TEMPLATE


def _q(value: str) -> str:
    return json.dumps(str(value), ensure_ascii=False)


def rule_template(table, roles: dict[str, str]) -> str:
    """A starting rule for the loaded data: wide (a baseline and a candidate column) or long
    (system, item, outcome rows), with the conditions its columns allow.  Without data, the
    generic template."""
    if table is None:
        return TEMPLATE
    by_role: dict[str, str] = {}
    for col, role in roles.items():
        by_role.setdefault(role, col)
    item = by_role.get("item")
    one_system = 0
    lines = ["# Release rule: written before the results are seen.",
             f"# Made for {getattr(table, 'name', 'the loaded file')}: check every threshold before you register it.",
             "[rule]", 'name = "candidate release"']
    data: list[str] = []
    conditions: list[str] = []
    if "baseline" in by_role and "candidate" in by_role:  # wide form
        lines += [f"baseline = {_q(by_role['baseline'])}   # wide form: one outcome column per system",
                  f"candidate = {_q(by_role['candidate'])}"]
        paired = True
    else:
        system = by_role.get("system") or by_role.get("version")
        names: list[str] = []
        if system is not None:
            from ...io import to_text

            names = list(dict.fromkeys(to_text(table, system)))[:2]
        one_system = 2 if system is None else (1 if len(names) < 2 else 0)
        while len(names) < 2:
            names.append(("v1", "v2")[len(names)])
        lines += [f"baseline = {_q(names[0])}   # system names in column {_q(system or 'system')}",
                  f"candidate = {_q(names[1])}"]
        data.append(f"system = {_q(system or 'system')}")
        if "success" in by_role:
            data.append(f"outcome = {_q(by_role['success'])}")
        paired = "success" in by_role
    lines.append("alpha = 0.05")
    if item:
        data.insert(0, f"item = {_q(item)}")
    if "cluster" in by_role:
        data.append(f"cluster = {_q(by_role['cluster'])}")
    if "cost" in by_role:
        data.append(f"cost = {_q(by_role['cost'])}")
    if "latency" in by_role:
        data.append(f"latency = {_q(by_role['latency'])}")
    ranking = {"query", "doc", "relevance"} <= set(by_role)
    if ranking:
        for key in ("query", "doc", "score", "relevance"):
            if key in by_role:
                data.append(f"{key} = {_q(by_role[key])}")
    if paired:
        conditions.append("[[condition]]\nmetric = \"success\"          # paired difference of success rates\n"
                          "max_drop = 0.01             # must not drop by more than 1 point ...\n"
                          "bound = \"lower\"             # ... judged on the lower bound of the 95% interval\n"
                          "interval = \"bootstrap\"\ntest = \"sign\"               # exact sign test, chosen in advance\n"
                          "resamples = 10000\nseed = 12345")
    if ranking:
        conditions.append("[[condition]]\nmetric = \"ndcg@10\"\nmax_drop = 0.01\nbound = \"lower\"")
    if "cost" in by_role and "baseline" not in by_role:
        conditions.append("[[condition]]\nmetric = \"cost_per_success\"\nmax_increase = 0.10      # at most 10% dearer")
    if "latency" in by_role and "baseline" not in by_role:
        conditions.append("[[condition]]\nmetric = \"latency_p95\"\nmax_increase = 0.20      # p95 at most 20% slower")
    name = getattr(table, "name", "the loaded file")
    if not conditions:  # nothing the rule could check on this data: said before the template
        return (f"# {name} has no outcome, cost, latency or ranking column that a release rule\n"
                f"# could check, and a rule compares a baseline with a candidate: open their\n"
                f"# results together (File > Open, several files) or set the columns' roles,\n"
                f"# then press New again.  A generic template:\n" + TEMPLATE)
    if "baseline" not in by_role and one_system:
        lines.insert(2, f"# {name} has {'one system' if one_system == 1 else 'no system column'}: "
                        f"a rule compares two; the names below are placeholders until their "
                        f"results are opened together.")
    out = "\n".join(lines) + "\n"
    if data:
        out += "\n[data]\n" + "\n".join(data) + "\n"
    return out + "\n" + "\n\n".join(conditions) + "\n"
