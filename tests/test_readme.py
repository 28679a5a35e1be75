"""The README is the first screen: under 200 lines, the two commands first, its links resolve."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_readme_is_short_and_starts_with_the_two_commands():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) < 200
    first_block = re.search(r"^```sh\n(.*?)^```", readme, re.S | re.M).group(1)
    assert [line.split("#")[0].strip() for line in first_block.splitlines()] == ["make demo", "make test"]
    assert "![" in readme[:readme.index("## ")]  # a screenshot on the first screen
    assert "### Using the installed workbench" in readme


def test_the_readme_and_contributing_links_resolve():
    for name in ("README.md", "CONTRIBUTING.md"):
        text = (ROOT / name).read_text(encoding="utf-8")
        for target in re.findall(r"\]\(([^)#\s]+)", text):
            if not target.startswith(("http://", "https://")):
                assert (ROOT / target).exists(), f"{name}: broken link {target}"
