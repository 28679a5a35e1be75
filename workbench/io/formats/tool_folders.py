"""Folders that a tool writes as one result: a HELM run folder (or a suite of them), a
SWE-bench evaluation (its summary report beside the per-instance reports), an MTEB results
folder (one JSON per task, model and revision).  :func:`load` reads such a folder as one
table, or returns None for a folder that is none of them (the opener then looks for the
files it stacks: lm-eval samples, Inspect logs, TREC runs)."""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Callable
from typing import Any

from workbench.core.errors import DataError
from workbench.core.numbers import plural
from workbench.io.formats import helm, mteb, swebench


def load(folder: str, shown: str, *, load_file: Callable[..., Any], stack: Callable[[list], Any],
         progress: Any = None):
    """The folder's table when a tool wrote it, else None."""
    if helm.is_run_folder(folder):
        return helm.load_run(folder, shown)
    runs = helm.run_folders(folder)
    if runs:
        tables = [helm.load_run(r, f"'{r}'") for r in runs]
        table = tables[0] if len(tables) == 1 else stack(tables)
        note = (f"Folder {shown}: {plural(len(runs), 'HELM run folder')} ("
                + ", ".join(os.path.relpath(r, folder) for r in runs[:6]) + (" ..." if len(runs) > 6 else "") + ").")
        return dataclasses.replace(table, path=folder, notes=(note, *table.notes))
    summaries = swebench.summaries_in(folder)
    if summaries:
        tables = []
        for path in summaries:
            try:
                with open(path, encoding="utf-8") as fh:
                    value = json.load(fh)
            except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
                raise DataError(f"File '{path}' in folder {shown} looks like a SWE-bench summary but cannot be "
                                f"read as JSON ({err}); expected the harness's complete report.") from None
            tables.append(swebench.load_summary(value, path, f"'{path}'"))
        table = tables[0] if len(tables) == 1 else stack(tables)
        note = (f"Folder {shown}: {plural(len(summaries), 'SWE-bench summary report')} ("
                + ", ".join(os.path.relpath(p, folder) for p in summaries[:6]) + (" ..." if len(summaries) > 6 else "")
                + ") with the per-instance reports beside them.")
        return dataclasses.replace(table, path=folder, notes=(note, *table.notes))
    results = mteb.result_files(folder)
    if results:
        tables = [load_file(p, progress=progress) for p in results]
        tables = [t for t in tables if t.format == mteb.FORMAT]
        if tables:
            table = tables[0] if len(tables) == 1 else stack(tables)
            models = list(dict.fromkeys(str(m) for t in tables for m in t.frame["model"]))
            note = (f"Folder {shown}: MTEB results, {plural(len(tables), 'task file')} of "
                    f"{plural(len(models), 'model')} ({', '.join(models[:6])}{' ...' if len(models) > 6 else ''}).")
            return mteb.landing(dataclasses.replace(table, path=folder, notes=(note, *table.notes)))
    return None


__all__ = ["load"]
