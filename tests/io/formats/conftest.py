import os

import pytest

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "formats")


@pytest.fixture
def fixture_path():
    def path(*parts: str) -> str:
        return os.path.abspath(os.path.join(FIXTURES, *parts))
    return path
