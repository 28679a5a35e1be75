"""Help > About: the version of the workbench and of the libraries that compute its numbers."""

from __future__ import annotations

from .. import __version__


def about_text() -> str:
    from importlib.metadata import PackageNotFoundError, version

    import PySide6
    from PySide6.QtCore import qVersion

    def ver(name: str) -> str:
        try:
            return version(name)
        except PackageNotFoundError:
            return "?"

    from ..io import parquet

    reader = parquet.engine()
    parquet_reader = f"Parquet read by {reader} {ver(reader)}" if reader else "no Parquet reader"
    return (f"<h3>Eval Workbench {__version__}</h3>"
            f"<p>Evaluation numbers with their denominators and conventions.</p>"
            f"<p>Qt {qVersion()} (PySide6 {PySide6.__version__}), pandas {ver('pandas')}, "
            f"numpy {ver('numpy')}, scipy {ver('scipy')}, sacrebleu {ver('sacrebleu')}, "
            f"rouge-score {ver('rouge-score')}, pyqtgraph {ver('pyqtgraph')}, openpyxl {ver('openpyxl')}; "
            f"{parquet_reader}.</p>")
