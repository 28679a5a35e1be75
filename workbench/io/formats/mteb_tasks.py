"""MTEB's tasks: each task's type and main score, from mteb's own registry (the table
``resources/formats/mteb_tasks.json``, written by ``resources/formats/make_mteb_tasks.py`` from
mteb 2.26.24), and the rules mteb's own loader applies to result files of mteb before 1.11
(``TaskResult._convert_from_before_v1_11_0``): those files carry no ``main_score`` for STS,
retrieval, reranking, pair classification...; mteb takes the task's ``metadata.main_score``,
with the old nested metric names (``cos_sim: {spearman}``) read as the new ones
(``cosine_spearman``)."""

from __future__ import annotations

import functools
import json
import os

#: mteb's renaming of the old nested similarity groups (ScoringFunction values and their old names)
OLD_GROUPS = (("cosine", "cos_sim"), ("manhattan", "manhattan"), ("euclidean", "euclidean"),
              ("dot", "dot"), ("max", "max"), ("similarity", "similarity"))
#: the keys of a 1.x split that are metric groups, not subsets (mteb's own list)
METRIC_GROUPS = {"v_measures", "cos_sim", "euclidean", "manhattan", "dot", "max"}


@functools.lru_cache(maxsize=1)
def _table() -> dict:
    from workbench.resources_path import resources_dir

    path = os.path.join(str(resources_dir()), "formats", "mteb_tasks.json")
    try:
        with open(path, encoding="utf-8") as fh:
            value = json.load(fh)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return {"tasks": {}, "renamed": {}, "mteb_version": ""}
    value["lower"] = {k.lower(): k for k in value.get("tasks", {})}
    return value


def table_version() -> str:
    """The mteb version the table of tasks was read from."""
    return str(_table().get("mteb_version") or "")


def task_info(task: str) -> tuple[str, str] | None:
    """(type, main score name) of a task as mteb's registry has it (renamed and lower-case names as
    mteb's loader finds them), or None for a task it does not know."""
    t = _table()
    tasks = t["tasks"]
    name = t["renamed"].get(task, task)
    if name not in tasks:
        name = t["lower"].get(name.lower(), name)
    info = tasks.get(name)
    return (str(info[0]), str(info[1])) if info else None


def canonical(task: str) -> str:
    """The name mteb's loader gives a task of a 1.x file (its ``renamed_tasks``: ``PPC`` is
    ``PpcPC``, ``NorwegianParliament`` is ``NorwegianParliamentClassification``; a name of other
    case is the registry's, ``DiaBLaBitextMining`` is ``DiaBlaBitextMining``)."""
    t = _table()
    name = str(t["renamed"].get(task, task))
    return name if name in t["tasks"] else str(t["lower"].get(name.lower(), name))


def old_names(main: str) -> list[str]:
    """The names a 2.x metric has in a 1.x file as the reader flattens it: ``cosine_spearman`` is
    ``cos_sim.spearman``, ``max_ap`` is ``max.ap`` (mteb's loader renames them the other way)."""
    names = [main]
    for new, old in OLD_GROUPS:
        if main.startswith(new + "_"):
            names.append(f"{old}.{main[len(new) + 1:]}")
    return names


def main_in(metrics: dict, main: str):
    """The value of the main score among a subset's metrics under its new or old name, or None."""
    for n in old_names(main):
        if n in metrics:
            return n, metrics[n]
    return None


def old_subset_fix(task: str, version: str, split: str, subset: str) -> str:
    """mteb's loader's own renamings of 1.x subsets: MLSUM clustering of 1.1.2/1.1.3 was French
    only ('default' read as 'fr'); XPQARetrieval's 'fr' is 'fra-fra'."""
    if task in ("MLSUMClusteringP2P", "MLSUMClusteringS2S") and version in ("1.1.2.dev0", "1.1.3.dev0") \
            and split == "test" and subset == "default":
        return "fr"
    if task == "XPQARetrieval" and split == "test" and subset == "fr":
        return "fra-fra"
    return subset


__all__ = ["METRIC_GROUPS", "OLD_GROUPS", "canonical", "main_in", "old_names", "old_subset_fix", "table_version", "task_info"]
