"""The frozen program's entry point (PyInstaller runs this; ``workbench`` in a checkout runs
workbench.launcher:main directly)."""

import multiprocessing
import sys

from workbench.launcher import main

if __name__ == "__main__":
    multiprocessing.freeze_support()
    sys.exit(main())
