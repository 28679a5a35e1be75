"""One module per analysis, each with a frozen ``Options`` and ``run(table, options, progress)``.

The registry maps the analysis name used by the command line, the GUI and the report to its
module.  Adding an analysis means adding a module here; renderers need no change.
"""

from __future__ import annotations

from types import ModuleType

from . import aggregate, compare, cost, judge, passk, plan, ranking, repeats, rubric, runs, text

REGISTRY: dict[str, ModuleType] = {
    m.NAME: m for m in (text, ranking, passk, aggregate, compare, cost, plan, judge, rubric, runs, repeats)
}

__all__ = ["REGISTRY"]
