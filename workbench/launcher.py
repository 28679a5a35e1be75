"""The ``workbench`` entry point: a headless command, or the desktop workbench.

    workbench                         start the desktop workbench
    workbench results.csv             start it with a file
    workbench ANALYSIS INPUT [flags]  run one analysis headless (see ``workbench --help``)
    workbench --self-test             check this installation end to end (offscreen)
"""

from __future__ import annotations

import sys

from .cli.main import ANALYSES, COMMAND_MODULES
from .cli.main import main as cli_main

HEADLESS = set(ANALYSES) | {m.removesuffix("_cmd") for m in COMMAND_MODULES} | {"-h", "--help", "--version"}


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "--self-test":  # the installation's end-to-end check (offscreen GUI)
        from .ui.selftest import main as selftest_main

        return selftest_main(argv[1:])
    if argv and argv[0] in HEADLESS:
        return cli_main(argv)
    from .ui import main as gui_main  # Qt is imported only on this path

    return gui_main(argv)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
