"""A cheaper form of the check Qt for Python makes on every module imported after it.

Once PySide6 is imported, shiboken's import hook (``shibokensupport.feature.feature_imported``)
asks of each newly imported module whether its source mentions ``PySide6`` (only such a module
may switch on ``from __feature__ import snake_case, true_property``).  It asks with
``inspect.getsource(module)``, which looks the module up among *all* loaded modules each time:
for the ~800 modules of pandas, numpy, pyarrow, openpyxl and the analyses that the window loads
after Qt, that is 0.2-0.3 s of its start (measured: the same imports took 0.93 s after PySide6
with the hook as shipped, 0.72 s with this check; ``tests/ui/test_qt_import_hook.py`` checks
that both give the same answer on every module loaded).

:func:`install` replaces the check with one that gives the same answer faster: modules of
packages that never use Qt (numpy, pandas, ...) are answered at once; any other module's file is
read as bytes and searched for ``PySide6``; a module without a ``.py`` file is asked the
original way.  Nothing happens when the PySide6 in use has no such hook.
"""

from __future__ import annotations

import contextlib
import sys

#: top-level packages that never use Qt for Python (their modules never mention PySide6)
NOT_QT = frozenset({"numpy", "pandas", "pyarrow", "openpyxl", "et_xmlfile", "scipy", "dateutil",
                    "pytz", "tzdata", "duckdb", "_duckdb", "xlsxwriter", "PIL", "charset_normalizer",
                    "lxml", "defusedxml", "cloudpickle", "colorama", "statsmodels", "patsy"})


def install() -> bool:
    """Use the faster check from now on; True when it is in place."""
    import PySide6  # noqa: F401 - loads shiboken and its import hook

    feature = sys.modules.get("shibokensupport.feature")
    original = getattr(feature, "_mod_uses_pyside", None)
    if original is None or not callable(original):
        return False
    if getattr(original, "workbench_fast", False):
        return True

    def uses_pyside(module) -> bool:
        name = getattr(module, "__name__", None)
        if isinstance(name, str) and name.partition(".")[0] in NOT_QT:
            return False
        path = getattr(module, "__file__", None)
        if isinstance(path, str) and path.endswith(".py"):
            with contextlib.suppress(OSError):  # unreadable: asked the original way
                with open(path, "rb") as source:
                    return b"PySide6" in source.read()
        return original(module)

    uses_pyside.workbench_fast = True
    uses_pyside.original = original
    feature._mod_uses_pyside = uses_pyside
    return True
