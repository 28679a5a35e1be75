"""One module per analysis, each with a frozen ``Options`` and ``run(table, options, progress)``.

The registry maps the analysis name used by the command line, the GUI and the report to its
module, in the order of :mod:`workbench.catalog` (the one list of analyses).
"""

from __future__ import annotations

from types import ModuleType

from .. import catalog

REGISTRY: dict[str, ModuleType] = {a.name: a.module() for a in catalog.ANALYSES}

__all__ = ["REGISTRY"]
