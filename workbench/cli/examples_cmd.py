"""``workbench examples [DIR]``: copy the bundled examples, release rules and example sessions to
a folder of one's own (default ``~/eval-workbench-examples``) and print the commands to try.

An installed workbench keeps its examples inside the installation (``/opt/eval-workbench/
_internal/resources`` for the .deb), which is read-only and awkward to type; this puts them where
the README's commands expect them::

    DIR/examples/   the example results files (CSV) and the example sessions (*.wbsession.json)
    DIR/rules/      the release rules (TOML) and the data they are written for

The same layout as ``resources/`` in a checkout, so a command written for one works in the other
from the folder above.  Sessions name their input relative to themselves, so they keep working.

Nothing is overwritten silently: a file already in DIR with the same bytes is left as it is, a
file with other bytes stops the copy before anything is written (one sentence naming it), unless
``--overwrite`` is given.  Works from a checkout and from the standalone bundle (the resources
are found by :mod:`workbench.resources_path`).
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import sys
import tempfile
from pathlib import Path

from ..core.errors import OptionError

NAME = "examples"
#: The folders of resources/ that are copied (the icons and screenshots are not examples).
FOLDERS = ("examples", "rules")
DEFAULT_DIR = "~/eval-workbench-examples"


def add_parser(sub) -> argparse.ArgumentParser:
    p = sub.add_parser(NAME, help="copy the examples, release rules and example sessions to a "
                                  "folder and print the commands to try",
                       description="Copy the bundled examples (small results files whose numbers "
                                   "can be checked by hand), release rules and example sessions to "
                                   "DIR, then print commands to try on them. A file already in DIR "
                                   "is never replaced silently.")
    p.add_argument("dir", nargs="?", default=DEFAULT_DIR, metavar="DIR",
                   help=f"the folder to copy to (default {DEFAULT_DIR}; made if missing)")
    p.add_argument("--overwrite", action="store_true",
                   help="replace files in DIR that differ from the bundled ones (default: stop)")
    return p


def source_files(resources: Path | None = None) -> list[tuple[Path, Path]]:
    """``(source, path relative to DIR)`` for every file to copy, in a stable order."""
    if resources is None:
        from ..resources_path import resources_dir

        resources = resources_dir()
    files = []
    for folder in FOLDERS:
        base = resources / folder
        if not base.is_dir():
            raise OptionError(f"The bundled {folder} are missing from {base}; this installation "
                              f"is incomplete (reinstall it, or run from a checkout).")
        for path in sorted(base.rglob("*")):
            rel = path.relative_to(resources)
            if (not path.is_file() or "__pycache__" in rel.parts
                    or path.suffix in (".py", ".pyc")):  # generators of the data, not examples
                continue
            files.append((path, rel))
    return files


def copy_examples(target: Path, overwrite: bool = False,
                  resources: Path | None = None) -> tuple[list[Path], list[Path]]:
    """Copy into ``target``; returns ``(written, already there)`` as paths relative to it.

    Every conflict is found before anything is written, so a refused copy changes nothing."""
    if target.exists() and not target.is_dir():
        raise OptionError(f"'{target}' exists and is not a folder; name a folder to copy the "
                          f"examples into.")
    files = source_files(resources)
    same, differ, blocked = [], [], []
    for src, rel in files:
        dest = target / rel
        for parent in list(rel.parents)[:-1]:  # DIR/examples must be a folder if it exists
            if (target / parent).exists() and not (target / parent).is_dir():
                blocked.append(parent)
        if dest.is_dir():
            blocked.append(rel)
        elif dest.exists():
            (same if _same_bytes(src, dest) else differ).append(rel)
    if blocked:
        raise OptionError(f"'{target / blocked[0]}' is in the way (a file where a folder is "
                          f"needed, or a folder where a file is); choose another folder.")
    if differ and not overwrite:
        first = target / differ[0]
        more = f" (and {len(differ) - 1} more)" if len(differ) > 1 else ""
        raise OptionError(f"'{first}'{more} already exists with other contents and was not "
                          f"replaced; nothing was copied: choose another folder "
                          f"(workbench examples DIR) or replace them with --overwrite.")
    umask = os.umask(0)
    os.umask(umask)
    written = []
    for src, rel in files:
        if rel in same:
            continue
        dest = target / rel
        tmp = None
        try:
            dest.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=dest.parent, prefix=f".{dest.name}.", suffix=".part")
            os.close(fd)  # a new name of its own: no file of the user's is touched
            shutil.copyfile(src, tmp)
            os.chmod(tmp, 0o666 & ~umask)  # as a new file gets (mkstemp's is 0600)
            os.replace(tmp, dest)
        except OSError as err:
            if tmp is not None and os.path.exists(tmp):
                os.unlink(tmp)
            done = f" ({len(written)} file{'s' if len(written) != 1 else ''} copied before it)" \
                if written else ""
            raise OptionError(f"Could not write '{dest}': {err.strerror or err}{done}; choose a "
                              f"folder you can write to (workbench examples DIR).") from None
        written.append(rel)
    return written, same


def _same_bytes(a: Path, b: Path) -> bool:
    if a.stat().st_size != b.stat().st_size:
        return False
    return a.read_bytes() == b.read_bytes()


def program() -> str:
    """How to call the workbench in the printed commands."""
    if getattr(sys, "frozen", False) and sys.platform == "darwin":
        return shlex.quote(sys.executable)  # inside the .app: not on the PATH
    return "workbench"


def commands(target: Path) -> list[str]:
    """The commands to try, to be run one after another in a shell (the first enters DIR)."""
    wb = program()
    where = (f'cd /d "{target}"' if os.name == "nt" else f"cd {shlex.quote(str(target))}")
    return [
        where,
        f"{wb} compare examples/paired_14_to_5.csv --baseline baseline --candidate candidate "
        f"--item item_id",
        f"{wb} gate rules/seed_14_to_5.toml examples/paired_14_to_5.csv",
        f"{wb} ranking examples/ranking_seed.csv --k 3,5",
        f"{wb} report examples/paired_14_to_5.wbsession.json -o report.xlsx",
        f"{wb} examples/paired_14_to_5.wbsession.json",
    ]


#: What each command of :func:`commands` shows (printed beside it).
COMMENTS = [
    "",
    "the 14-to-5 paired split: sign test, McNemar, intervals",
    "a release rule: exit 0 PASS, 1 FAIL, 3 INCONCLUSIVE",
    "ranking metrics on three queries",
    "the Excel report of a saved session",
    "the desktop workbench on that session (needs a display)",
]


def run(args: argparse.Namespace) -> int:
    target = Path(os.path.expanduser(args.dir)).absolute()
    written, same = copy_examples(target, overwrite=args.overwrite)
    sessions = sum(1 for p in written + same if p.name.endswith(".wbsession.json"))
    if written:
        print(f"Copied {len(written)} file{'s' if len(written) != 1 else ''} to {target} "
              f"(examples/: the example results files and {sessions} example sessions; rules/: release "
              f"rules)" + (f"; {len(same)} identical file{'s were' if len(same) != 1 else ' was'} "
                           f"already there." if same else "."))
    else:
        print(f"The examples are already in {target} ({len(same)} identical files); nothing "
              f"was copied.")
    print("Try:")
    remark = "rem" if os.name == "nt" else "#"
    for cmd, comment in zip(commands(target), COMMENTS):
        if comment:
            print(f"  {remark} {comment}")
        print(f"  {cmd}")
    return 0
