"""One module per analysis, each with a frozen ``Options`` and ``run(table, options, progress)``.

The registry maps the analysis name used by the command line, the GUI and the report to its
module, in the order of :mod:`workbench.catalog` (the one list of analyses).  A module is
imported when it is first looked up, so that ``workbench ranking`` does not pay for importing
the text analysis and its tokenizers (0.7 s) and the rest.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from types import ModuleType

from .. import catalog


class _Registry(Mapping):
    """Name -> analysis module, imported on first use."""

    def __getitem__(self, name: str) -> ModuleType:
        return catalog.BY_NAME[name].module()

    def __iter__(self) -> Iterator[str]:
        return iter(catalog.BY_NAME)

    def __len__(self) -> int:
        return len(catalog.BY_NAME)


REGISTRY: Mapping[str, ModuleType] = _Registry()

__all__ = ["REGISTRY"]
