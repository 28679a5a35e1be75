"""Fixtures of the loader's tests."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module", params=["whole", "streamed"])
def reading(request):
    """Every test runs twice: with files read whole, and with every text file first tried the
    way a large one is, without holding its bytes (``loader.STREAM_BYTES`` = 0)."""
    from workbench.io import loader

    kept = loader.STREAM_BYTES
    loader.STREAM_BYTES = 0 if request.param == "streamed" else kept
    yield request.param
    loader.STREAM_BYTES = kept
