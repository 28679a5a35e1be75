"""``workbench examples [DIR]`` from a checkout (fast; the bundle runs it in test_packaging.py and
the clean-root install follows the README's installed-use section with it)."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RESOURCES = ROOT / "resources"


class Run:
    def __init__(self, returncode, stdout, stderr):
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr


@pytest.fixture
def wb(capsys, monkeypatch):
    """Run ``workbench ARGS`` in-process through the launcher (as the installed command does)."""
    from workbench.launcher import main

    def run(*args, cwd=None, home=None):
        with monkeypatch.context() as m:
            if cwd is not None:
                m.chdir(cwd)
            if home is not None:
                m.setenv("HOME", str(home))
            capsys.readouterr()
            code = main([str(a) for a in args])
            out, err = capsys.readouterr()
        return Run(code, out, err)

    return run


def expected_files() -> dict[str, bytes]:
    """What must be copied: every example, session and rule file; no generator script."""
    out = {}
    for folder in ("examples", "rules"):
        for p in (RESOURCES / folder).iterdir():
            if p.is_file() and p.suffix != ".py":
                out[f"{folder}/{p.name}"] = p.read_bytes()
    return out


def copied(target: Path) -> dict[str, bytes]:
    return {p.relative_to(target).as_posix(): p.read_bytes() for p in target.rglob("*") if p.is_file()}


def test_copies_the_examples_rules_and_sessions_byte_for_byte(tmp_path, wb):
    want = expected_files()
    # what the README promises is there
    for rel in ("examples/paired_14_to_5.csv", "examples/paired_14_to_5.wbsession.json",
                "examples/ranking_graded.wbsession.json", "examples/cost_latency.wbsession.json",
                "rules/seed_14_to_5.toml", "rules/release_all_conditions.toml"):
        assert rel in want
    proc = wb("examples", tmp_path / "mine")
    assert proc.returncode == 0, proc.stderr
    assert copied(tmp_path / "mine") == want
    import os

    umask = os.umask(0)
    os.umask(umask)
    assert {p.stat().st_mode & 0o777 for p in (tmp_path / "mine").rglob("*") if p.is_file()} \
        == {0o666 & ~umask}  # as any new file of the user's, not mkstemp's private 0600
    assert f"Copied {len(want)} files to {tmp_path / 'mine'}" in proc.stdout
    assert "3 example sessions" in proc.stdout
    assert proc.stderr == ""


def test_default_folder_is_in_the_home_folder(tmp_path, wb):
    proc = wb("examples", home=tmp_path, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert copied(tmp_path / "eval-workbench-examples") == expected_files()
    assert f"cd {shlex.quote(str(tmp_path / 'eval-workbench-examples'))}" in proc.stdout


def test_a_second_copy_changes_nothing_and_says_so(tmp_path, wb):
    assert wb("examples", tmp_path).returncode == 0
    before = {p: p.stat().st_mtime_ns for p in tmp_path.rglob("*")}
    proc = wb("examples", tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert f"already in {tmp_path} ({len(expected_files())} identical files); nothing was copied" \
        in proc.stdout
    assert {p: p.stat().st_mtime_ns for p in tmp_path.rglob("*")} == before


def test_never_overwrites_silently(tmp_path, wb):
    (tmp_path / "rules").mkdir()
    mine = tmp_path / "rules" / "seed_14_to_5.toml"
    mine.write_text("# my own rule\n", encoding="utf-8")
    proc = wb("examples", tmp_path)
    assert proc.returncode == 2
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert str(mine) in lines[0] and "--overwrite" in lines[0] and "nothing was copied" in lines[0]
    # nothing was written: the user's file is intact and no other file appeared
    assert mine.read_text(encoding="utf-8") == "# my own rule\n"
    assert [p for p in tmp_path.rglob("*") if p.is_file()] == [mine]

    proc = wb("examples", tmp_path, "--overwrite")
    assert proc.returncode == 0, proc.stderr
    assert copied(tmp_path) == expected_files()


def test_refuses_a_file_in_place_of_the_folder(tmp_path, wb):
    target = tmp_path / "notes.txt"
    target.write_text("x", encoding="utf-8")
    proc = wb("examples", target)
    assert proc.returncode == 2 and "is not a folder" in proc.stderr
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "examples").write_text("x", encoding="utf-8")
    proc = wb("examples", tmp_path / "d")
    assert proc.returncode == 2 and "is in the way" in proc.stderr
    assert (tmp_path / "d" / "examples").read_text(encoding="utf-8") == "x"


def printed_commands(stdout: str) -> list[str]:
    lines = stdout.split("Try:\n", 1)[1].splitlines()
    return [ln.strip() for ln in lines if ln.strip() and not ln.strip().startswith("#")]


def test_the_printed_commands_work_from_the_copy(tmp_path, wb):
    """Every printed command, run as printed (the first one enters the folder); the last opens
    the desktop workbench, which the bundle test and the clean-root install run without a
    display."""
    target = tmp_path / "with space"
    proc = wb("examples", target)
    assert proc.returncode == 0, proc.stderr
    cmds = printed_commands(proc.stdout)
    assert shlex.split(cmds[0]) == ["cd", str(target)]
    assert all(c.startswith("workbench ") for c in cmds[1:])
    assert cmds[-1] == "workbench examples/paired_14_to_5.wbsession.json"
    outputs = {}
    for cmd in cmds[1:-1]:
        run = wb(*shlex.split(cmd)[1:], cwd=target)
        assert run.returncode == 0, (cmd, run.stdout, run.stderr)  # the gate: PASS
        outputs[shlex.split(cmd)[1]] = run.stdout
    assert "sign_test_p" in outputs["compare"] and "0.0636" in outputs["compare"]
    assert "PASS" in outputs["gate"]
    assert (target / "report.xlsx").stat().st_size > 0


def test_the_readme_installed_use_section_uses_these_commands():
    """The README's installed-use block (which the clean-root install runs as written) and the
    command's own suggestions name the same commands."""
    sys.path.insert(0, str(ROOT / "packaging"))
    import readme_block

    block = readme_block.installed_use_commands((ROOT / "README.md").read_text(encoding="utf-8"))
    assert block[0] == "workbench examples"
    from workbench.cli.examples_cmd import commands

    suggested = commands(Path.home() / "eval-workbench-examples")
    assert block[1] == "cd ~/eval-workbench-examples"
    assert block[2:] == suggested[1:], "README and `workbench examples` suggest different commands"


def test_from_a_bundle_the_resources_come_from_the_bundle(tmp_path, monkeypatch):
    """Frozen, the resources are under sys._MEIPASS: what is copied comes from there."""
    from workbench.cli import examples_cmd

    fake = tmp_path / "bundle" / "resources"
    (fake / "examples").mkdir(parents=True)
    (fake / "rules").mkdir()
    (fake / "examples" / "a.csv").write_text("x\n1\n", encoding="utf-8")
    (fake / "rules" / "r.toml").write_text("[rule]\n", encoding="utf-8")
    monkeypatch.setattr(sys, "_MEIPASS", str(tmp_path / "bundle"), raising=False)
    written, same = examples_cmd.copy_examples(tmp_path / "out")
    assert sorted(p.as_posix() for p in written) == ["examples/a.csv", "rules/r.toml"]
    assert same == []
    (fake / "rules" / "r.toml").unlink()
    (fake / "rules").rmdir()
    with pytest.raises(examples_cmd.OptionError, match="incomplete"):
        examples_cmd.copy_examples(tmp_path / "out2")


def test_a_folder_that_cannot_be_written_is_one_sentence(tmp_path, wb, monkeypatch):
    import shutil

    def refuse(src, dst, *a, **k):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(shutil, "copyfile", refuse)
    proc = wb("examples", tmp_path / "ro")
    assert proc.returncode == 2 and proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr
    assert "Could not write '" in lines[0] and "Permission denied" in lines[0]
    assert "choose a folder you can write to" in lines[0]
    assert not [p for p in tmp_path.rglob("*") if p.is_file()]  # no .part left behind
