"""The columns a panel's automatic fields take from the file's reading, before its roles.

The analyses reduce an item's repeats by the item the reading declares
(:func:`workbench.analyses.reading.prepare`); a panel's Item id field shows that column, not
another one with the 'item' role (an Inspect log's ``item`` names each output, ``1 (epoch 2)``).
pass@k's Task is the reading's item when no column is a task (its tries are the attempts).
"""

from __future__ import annotations

from typing import Any, Mapping

from ... import catalog
from ...analyses.reading import evaluation_of
from ...io.evaluation import item_column

#: Analyses that read an item's tries by the reading's item besides those whose rows are items
#: (``items_as_rows`` in :mod:`workbench.catalog`; the Judge reads its own items: judge_input).
_TRIES_BY_READING_ITEM = frozenset({"text", "repeats"})


def _by_reading_item(analysis: str) -> bool:
    entry = catalog.BY_NAME.get(analysis)
    return analysis in _TRIES_BY_READING_ITEM or (entry is not None and entry.items_as_rows)


def reading_column(analysis: str, spec: Any, table: Any, roles: Mapping[str, str]) -> str | None:
    """The column ``spec`` (a panel's column field) takes from the reading, or None (its roles
    decide)."""
    if table is None:
        return None
    task = spec.name == "task" and analysis == "passk" and "task" not in roles.values()
    if not task and ("item" not in spec.roles or not _by_reading_item(analysis)):
        return None
    try:
        evaluation = evaluation_of(table, dict(roles))
    except Exception:  # noqa: BLE001 -- no reading: the roles decide
        return None
    if task:  # the reading's item, its rows the attempts (as on the command line)
        return evaluation.item if evaluation.item in table.frame.columns else None
    if not evaluation.repeat:
        return None
    item = item_column(table.frame.columns, evaluation)
    return item if item in table.frame.columns else None
