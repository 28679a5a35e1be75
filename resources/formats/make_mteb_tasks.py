"""Write mteb_tasks.json: every task mteb knows, with its type and main score, from mteb's own
registry (``mteb.get_tasks.TASKS_REGISTRY`` plus the historic names its results loader accepts).

Run with the python of a venv that has mteb (``/work/venvs/mteb``, mteb 2.26.24):
    /work/venvs/mteb/bin/python resources/formats/make_mteb_tasks.py
The result files of mteb 1.x carry no main_score (STS, retrieval...): mteb's own loader
(``TaskResult._convert_from_before_v1_11_0``) takes the task's ``metadata.main_score``; the reader
does the same with this table."""

import json
import os

import mteb
from mteb.get_tasks import _TASKS_REGISTRY
from mteb.results.task_result import outdated_tasks, renamed_tasks

tasks = {}
for name, task in sorted(_TASKS_REGISTRY.items()):
    tasks[name] = [task.metadata.type, task.metadata.main_score]
for name, task in sorted(outdated_tasks.items()):
    tasks.setdefault(name, [task.metadata.type, task.metadata.main_score])
out = {"mteb_version": mteb.__version__, "tasks": tasks, "renamed": dict(sorted(renamed_tasks.items()))}
path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mteb_tasks.json")
with open(path, "w", encoding="utf-8") as fh:
    fh.write('{"mteb_version": %s,\n"renamed": %s,\n"tasks": {\n' % (json.dumps(out["mteb_version"]), json.dumps(out["renamed"])))
    fh.write(",\n".join(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in tasks.items()))
    fh.write("\n}}\n")
print(len(tasks), "tasks ->", path)
