"""Issue 47: the window's start no longer pays for Qt for Python's source check of every module
imported after PySide6.  The faster check (workbench/ui/qt_import_hook.py) must give the same
answer as shiboken's own on every kind of module: those of the packages it answers at once, plain
source files (ours mention PySide6, pandas' do not), extension modules and built-ins."""

from __future__ import annotations

import sys
import types

import pytest

pytestmark = pytest.mark.gui


def _check():
    import workbench.ui  # noqa: F401 - installs the faster check

    feature = sys.modules.get("shibokensupport.feature")
    check = getattr(feature, "_mod_uses_pyside", None)
    if check is None or not getattr(check, "workbench_fast", False):
        pytest.skip("this PySide6 has no source check on import")
    return check


def test_importing_the_window_package_installs_the_faster_check():
    check = _check()
    assert check.original is not check
    from workbench.ui.qt_import_hook import install

    assert install() is True
    assert sys.modules["shibokensupport.feature"]._mod_uses_pyside is check  # not wrapped twice


def test_the_faster_check_answers_as_shibokens_own_on_every_loaded_module():
    import pandas  # noqa: F401 - a large non-Qt package among the loaded modules
    import pyqtgraph  # noqa: F401 - a Qt user that is not ours

    import workbench.ui.main_window  # noqa: F401

    check = _check()
    modules = [m for m in list(sys.modules.values()) if isinstance(m, types.ModuleType)]
    # every module of ours and of pyqtgraph, and a spread of the rest (the original check is slow)
    sample = [m for m in modules if m.__name__.partition(".")[0] in ("workbench", "pyqtgraph")]
    sample += modules[::7]
    differ = [m.__name__ for m in sample if check(m) != check.original(m)]
    assert differ == []
    answers = {m.__name__: check(m) for m in sample}
    assert answers["workbench.ui.main_window"] is True  # mentions PySide6
    assert answers.get("workbench.core.errors", False) is False
    assert any(name.startswith("pandas") for name in answers)
    assert not any(v for name, v in answers.items() if name.startswith(("pandas", "numpy")))


def test_a_module_without_a_source_file_is_asked_the_original_way(tmp_path):
    check = _check()
    built = types.ModuleType("made_here")  # no __file__: the original answers (False)
    assert check(built) == check.original(built) is False
    missing = types.ModuleType("gone")
    missing.__file__ = str(tmp_path / "gone.py")  # its file removed: the original answers
    assert check(missing) == check.original(missing)
    mentions = tmp_path / "uses_qt.py"
    mentions.write_text("from PySide6.QtCore import QObject\n")
    spec_module = types.ModuleType("uses_qt")
    spec_module.__file__ = str(mentions)
    assert check(spec_module) is True
    assert check.original(spec_module) is True
