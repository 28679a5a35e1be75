"""Which panel a newly opened file lands on: by its format, its content and its columns' roles.
No widgets: pure functions of the roles (and of a few rows of the table)."""

from __future__ import annotations


#: the panel a tool's file of one run is read for (several stacked files first try another:
#: two Inspect logs, Compare); the landing panel when that one cannot run
FORMAT_PANELS = {"lm_eval_samples": "aggregate", "inspect": "passk", "promptfoo": "cost",
                 "trec_run": "ranking", "msmarco_run": "ranking", "jsonl": "passk"}


def evaluation_panels(table) -> list[str]:
    """Panels a file fits by what its reader declared it holds: a log whose primary scorer is
    a judge (or people's labels) lands on the judge's own numbers."""
    ev = getattr(table, "evaluation", None)
    if ev is None:
        return []
    primary = ev.scorer()
    if primary is not None and primary.kind in ("judge", "judge panel"):
        return ["judge"]
    if primary is not None and primary.kind == "human" and ev.annotator is not None:
        return ["judge"]  # several people's labels: their agreement among themselves
    return []


def panel_for_roles(roles: dict[str, str]) -> str | None:
    """The analysis a file with these column roles is most likely for (None: the data table)."""
    found = panels_for_roles(roles)
    return found[0] if found else None


def content_panels(table, roles: dict[str, str]) -> list[str]:
    """Panels a file fits by more than its roles: several columns of yes/no verdicts (a
    rubric), a run column (runs side by side)."""
    from ..analyses._common import verdict_columns

    out = []
    ids = {c for c, r in roles.items() if r in ("item", "system", "version", "task", "query", "doc")}
    labels = {"baseline", "candidate", "judge", "human"}  # 0/1 columns that are something else
    ev = getattr(table, "evaluation", None)
    # a log's reader says what its columns are: several metrics of one record are a rubric only
    # when they are one scorer's criteria (a dict-valued scorer, promptfoo's assertions)
    criteria = ev is None or any(s.group for s in ev.scorers)
    if criteria and not labels & set(roles.values()) and len(verdict_columns(table, ids, rows=2000)) >= 2:
        out.append("rubric")
    systems = [c for c, r in roles.items() if r == "system"]
    if systems and str(systems[0]).strip().lower().replace("_", "") in ("run", "runid", "runname") \
            and "success" in roles.values():
        out.append("runs")
    return out


def panels_for_roles(roles: dict[str, str]) -> list[str]:
    """Every analysis a file with these column roles fits, the likeliest first."""
    have = set(roles.values())
    out = []
    if {"judge", "human"} <= have:
        out.append("judge")
    if {"prediction", "reference"} <= have:
        out.append("text")
    if {"query", "doc"} <= have:
        out.append("ranking")
    if "task" in have and ({"n", "correct"} <= have or "success" in have):
        out.append("passk")
    if "epoch" in have and "success" in have:
        out.append("repeats")  # several tries of each item: which flip, how noisy
    if "cost" in have and "success" in have:
        out.append("cost")
    if {"numerator", "denominator"} <= have:
        out.append("aggregate")
    if {"baseline", "candidate", "group"} <= have:
        out.append("slices")  # two systems and a slice column: where the candidate wins and loses
    if {"baseline", "candidate"} <= have:
        out.append("compare")
    if "success" in have and ("group" in have or "unit" in have):
        out.append("aggregate")
    if "success" in have and ({"system", "version"} & have) and "item" in have:
        out.append("compare")
    if "success" in have:
        out.append("aggregate")  # an overall rate (micro) is always an answer
    return list(dict.fromkeys(out))
