"""Only workbench.ui may import Qt: checked by import-linter and by a clean subprocess."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import workbench

ROOT = Path(__file__).resolve().parents[1]

HEADLESS = ["workbench", "workbench.core.errors", "workbench.core.progress", "workbench.core.result",
            "workbench.metrics.text", "workbench.metrics.ranking", "workbench.metrics.passk",
            "workbench.metrics.aggregate", "workbench.metrics.significance", "workbench.metrics.cost",
            "workbench.metrics.registry", "workbench.io", "workbench.analyses", "workbench.cli.main",
            "workbench.engines", "workbench.engines.ranking_sql", "workbench.engines.ranking_input",
            "workbench.analyses.ranking_engines",
            "workbench.launcher"]


def test_headless_packages_do_not_load_qt():
    code = (
        "import sys, importlib\n"
        f"for m in {HEADLESS!r}: importlib.import_module(m)\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('PySide6', 'pyqtgraph', 'PyQt5', 'PyQt6'))\n"
        "ui = [m for m in sys.modules if m.startswith('workbench.ui')]\n"
        "print(bad, ui)\n"
        "sys.exit(1 if bad or ui else 0)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_running_an_analysis_does_not_load_qt(tmp_path):
    code = (
        "import sys\n"
        "from workbench.launcher import main\n"
        "rc = main(['plan', '--rate', '0.8', '--n', '100', '--json'])\n"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('PySide6', 'pyqtgraph')]\n"
        "sys.exit(rc or (3 if bad else 0))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_import_linter_contracts_hold():
    exe = shutil.which("lint-imports", path=str(Path(sys.executable).parent))
    if exe is None:
        pytest.skip("import-linter is not installed (it is in the test extra)")
    proc = subprocess.run([exe], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "0 broken" in proc.stdout


def test_no_import_circles_anywhere_in_workbench():
    """No module of workbench reaches itself again through its imports (function-level imports
    included: an import hidden in a function to dodge a cycle is still a cycle)."""
    grimp = pytest.importorskip("grimp")
    graph = grimp.build_graph("workbench")
    modules = sorted(m for m in graph.modules if m.startswith("workbench"))
    edges = {m: sorted(d for d in graph.find_modules_directly_imported_by(m) if d.startswith("workbench"))
             for m in modules}
    # a package's __init__ importing its own submodules is not a circle: drop edges from a
    # package to its descendants, then look for strongly connected components (Tarjan)
    edges = {m: [d for d in ds if not d.startswith(m + ".")] for m, ds in edges.items()}
    index, low, stack, on, circles = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in edges.get(v, []):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                circles.append(sorted(comp))

    import sys as _sys

    _sys.setrecursionlimit(max(_sys.getrecursionlimit(), 10_000))
    for m in modules:
        if m not in index:
            visit(m)
    assert not circles, circles


def test_no_file_in_the_window_package_is_over_500_lines():
    """The window only assembles and shows: each part of it stays readable in one sitting."""
    ui = Path(workbench.__file__).parent / "ui"
    sizes = {str(p.relative_to(ui)): len(p.read_text(encoding="utf-8").splitlines())
             for p in ui.rglob("*.py")}
    assert sizes, "no ui module found"
    assert {name: n for name, n in sizes.items() if n > 500} == {}
    assert sizes["main_window.py"] < 350


def test_the_session_controller_has_no_widget():
    """Opening, loading, sessions and the report live in a QObject the tests drive without a
    window: it imports no widget class."""
    import ast

    source = (Path(workbench.__file__).parent / "ui" / "controller.py").read_text(encoding="utf-8")
    imported = {alias.name for node in ast.walk(ast.parse(source))
                if isinstance(node, ast.ImportFrom) for alias in node.names}
    assert not {n for n in imported if n.startswith("Q") and n not in ("QObject", "QSettings", "Signal")}
    assert "QtWidgets" not in source
