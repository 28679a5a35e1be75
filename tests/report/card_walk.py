"""Every analysis on every bundled example and every fixture written by a real tool, with the
options a panel would take from the file's column roles (the test of issue 44 walks these)."""

from __future__ import annotations

import dataclasses
from functools import lru_cache
from pathlib import Path

from workbench import catalog
from workbench.analyses import REGISTRY
from workbench.core.errors import DataError, OptionError
from workbench.io import load_many, load_table
from workbench.io.formats.combine import with_roles
from workbench.io.roles import guess_roles
from workbench.ui.examples import EXAMPLES

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "resources" / "examples"
FX = ROOT / "tests" / "fixtures" / "formats"
CASES = ROOT / "tests" / "fixtures" / "cards"


def inputs() -> list[tuple[str, list[Path], dict]]:
    """(id, files, extra options) of every bundled example file, every example of the start
    page, every real-tool fixture and the situations of issue 44 (tests/fixtures/cards)."""
    out: dict[str, tuple[list[Path], dict]] = {}
    for path in sorted(EX.glob("*.csv")):
        if path.name == "rubric_weights.csv":  # a rubric (criteria and weights), opened beside the answers
            out["examples/rubric_answers.csv with rubric_weights.csv"] = (
                [EX / "rubric_answers.csv"], {"rubric": {"rubric": str(path)}})
            continue
        out[f"examples/{path.name}"] = ([path], {})
    for ex in EXAMPLES:
        out.setdefault(f"examples/{ex.file}", ([ex.path], {}))
    fixtures = {
        "inspect": sorted((FX / "inspect").glob("*.eval")),
        "inspect_agent": sorted((FX / "inspect_agent").glob("*.eval")),
        "inspect_errors": sorted((FX / "inspect_errors").glob("*.eval")),
        "inspect_judge": sorted((FX / "inspect_judge").glob("*.eval")),
        "jsonl_humaneval": [FX / "jsonl" / "humaneval_samples.jsonl_results.jsonl"],
        "jsonl_evalplus": [FX / "jsonl" / "evalplus_eval_results.json"],
        "lmeval": [FX / "lmeval"],
        "lmeval03": [FX / "lmeval03" / "gsm8k_write_out_info.json"],
        "promptfoo": [FX / "promptfoo" / "results.json"],
        "promptfoo_errors": [FX / "promptfoo_errors" / "results.json"],
        "promptfoo_errors_csv": [FX / "promptfoo_errors" / "results.csv"],
        "promptfoo_judge": [FX / "promptfoo_judge" / "results.json"],
        "promptfoo_rubric": [FX / "promptfoo_rubric" / "results.json"],
        "promptfoo_same_id": [FX / "promptfoo_same_id" / "results.json"],
        "trec": [FX / "trec" / "runA.run", FX / "trec" / "runB.run"],
    }
    for name, files in fixtures.items():
        extra = {"ranking": {"qrels": str(FX / "trec" / "qrels.test.txt")}} if name == "trec" else {}
        out[f"fixtures/{name}"] = (files, extra)
    for path in sorted(CASES.glob("*.csv")):
        out[f"cards/{path.name}"] = ([path], {})
    return [(k, files, extra) for k, (files, extra) in out.items()]


@lru_cache(maxsize=None)
def loaded(ident: str):
    files, _ = next((f, e) for i, f, e in inputs() if i == ident)
    return _load(tuple(files))


@lru_cache(maxsize=None)
def _load(files: tuple):
    table = load_many([str(f) for f in files]) if len(files) > 1 else load_table(files[0])
    roles = guess_roles(table)
    return table, dataclasses.replace(table, roles={**roles, **(table.roles or {})})


def results(ident: str):
    """(analysis, result) of every analysis that answers on this input."""
    _, _, extra = next(x for x in inputs() if x[0] == ident)
    table, with_guessed = loaded(ident)
    out = []
    for entry in catalog.ANALYSES:
        if not entry.reads_input:
            continue
        module = REGISTRY[entry.name]
        options, _ = with_roles(module.Options(), with_guessed)
        if entry.name in extra:
            options = dataclasses.replace(options, **extra[entry.name])
        try:
            result = module.run(table, options)
        except (DataError, OptionError):
            continue
        out.append((entry.name, result))
    return out
