"""Loading evaluation data files (CSV/TSV text, Excel workbooks, Parquet) into tables.

Use :func:`load_table` to read a file and the helpers from
:mod:`workbench.io.columns` to check and convert its columns; every problem is
reported as a :class:`~workbench.core.errors.DataError` naming file, column and line.
"""

from workbench.io.columns import (guess_column, require_columns, text_codes, to_binary, to_float,
                                  to_text)
from workbench.io.loader import load_many, load_table
from workbench.io.table import LoadedTable

__all__ = [
    "LoadedTable",
    "load_table",
    "load_many",
    "require_columns",
    "to_binary",
    "to_float",
    "to_text",
    "text_codes",
    "guess_column",
]
