"""The catalogue of analyses is the one list: the command line, the window, the report, the
self-test and the launcher read it, and no other module spells the list out again."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from workbench import catalog

ROOT = Path(__file__).resolve().parents[1] / "workbench"


@pytest.mark.parametrize("entry", catalog.ANALYSES, ids=lambda a: a.name)
def test_each_entry_has_its_parts(entry):
    module = entry.module()
    assert module.NAME == entry.name
    assert callable(module.run) and module.Options() is not None
    from workbench.cli import flags

    assert callable(getattr(flags, entry.name)), f"workbench/cli/flags.py has no {entry.name}()"
    assert (ROOT / "ui" / "panels" / f"{entry.name}.py").is_file()


def test_command_line_lists_the_catalogue_in_order():
    from workbench.cli.main import build_parser, known_commands

    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "analysis")
    listed = [name for name in sub.choices if name in catalog.BY_NAME]
    assert listed == list(catalog.names())
    for entry in catalog.ANALYSES:
        assert sub.choices[entry.name].prog.endswith(entry.name)
    assert known_commands()[: len(catalog.ANALYSES)] == list(catalog.names())


def test_registry_and_panels_follow_the_catalogue(qapp):
    from workbench.analyses import REGISTRY
    from workbench.ui.panels import PANELS

    assert list(REGISTRY) == list(catalog.names())
    assert list(PANELS) == list(catalog.names())
    for entry in catalog.ANALYSES:
        title, cls = PANELS[entry.name]
        assert title == entry.tab and cls.__name__ == entry.panel
        assert cls.module.NAME == entry.name


def test_every_analysis_that_reads_a_file_has_an_example():
    from workbench.ui.examples import EXAMPLES

    with_example = {e.panel for e in EXAMPLES}
    missing = [n for n in catalog.names(reads_input=True) if n not in with_example]
    assert not missing, f"no example on the start page (and so none in the self-test) for {missing}"


def test_report_reads_units_and_item_sheets_from_the_catalogue():
    from workbench.report.headlines import UNITS
    from workbench.report.xlsx import ITEM_TABLES

    assert set(UNITS) == set(catalog.names()) == set(ITEM_TABLES)
    assert UNITS["ranking"] == "queries" and "queries" in ITEM_TABLES["ranking"]


def test_launcher_sentence_names_the_analyses_that_read_files():
    from workbench import launcher

    assert launcher._ANALYSES == catalog.names(reads_input=True)


def _literal_lists(tree: ast.AST):
    for node in ast.walk(tree):
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            words = [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
            yield node, words


def test_no_other_module_spells_out_the_list_of_analyses():
    """A literal tuple, list or set naming five or more analyses is a second list that the next
    analysis would have to be added to: read :mod:`workbench.catalog` instead."""
    names = set(catalog.names())
    offenders = []
    for path in ROOT.rglob("*.py"):
        if path.name == "catalog.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node, words in _literal_lists(tree):
            if len(names.intersection(words)) >= 5:
                offenders.append(f"{path.relative_to(ROOT.parent)}:{node.lineno}")
    assert not offenders, offenders


def test_the_guard_above_can_fail():
    tree = ast.parse('X = ("text", "ranking", "passk", "aggregate", "compare")')
    assert any(len(set(catalog.names()).intersection(w)) >= 5 for _, w in _literal_lists(tree))
