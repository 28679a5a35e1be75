"""Shared fixtures: example paths, a CLI runner returning parsed JSON, in-memory tables."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd
import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "resources" / "examples"


@pytest.fixture
def examples() -> Path:
    return EXAMPLES


def table_of(frame: pd.DataFrame, name: str = "<memory>"):
    """A LoadedTable around an in-memory DataFrame (line numbers are index + 2)."""
    from workbench.io import LoadedTable

    return LoadedTable(frame=frame.reset_index(drop=True), path=name)


@pytest.fixture
def cli(capsys):
    """Run the command line in-process: ``cli("ranking", path, "--k", "3")`` -> parsed JSON."""
    from workbench.cli.main import main

    def run(*argv: str, expect: int = 0):
        code = main([str(a) for a in argv] + ["--json"])
        out, err = capsys.readouterr()
        assert code == expect, f"exit {code}, stderr: {err}"
        return json.loads(out) if code == 0 else err

    return run


def value(payload: dict, metric: str, **match):
    """The value of the one JSON record with this metric and these keys."""
    match = {k.rstrip("_"): v for k, v in match.items()}
    found = [r for r in payload["results"]
             if r["metric"] == metric and all(r.get(k) == v for k, v in match.items())]
    assert len(found) == 1, f"{len(found)} records for {metric} {match}: {found}"
    return found[0]


@pytest.fixture
def write_csv(tmp_path):
    def write(name: str, frame: pd.DataFrame) -> Path:
        path = tmp_path / name
        frame.to_csv(path, index=False)
        return path

    return write
