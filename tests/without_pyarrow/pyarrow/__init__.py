"""Stands in for pyarrow when this folder is first on PYTHONPATH: ``import pyarrow`` fails, as it
does in the standalone bundle, which leaves pyarrow out (see packaging/workbench.spec).  pandas
then stores text in its Python-backed ``str`` dtype and the loader reads Parquet with fastparquet.
Used by ``make test`` for a second run of the engine tests."""

raise ImportError("pyarrow is hidden by tests/without_pyarrow (as in the standalone bundle)")
