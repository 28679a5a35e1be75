"""The ``workbench`` entry point: a headless command, or the desktop workbench.

    workbench                         start the desktop workbench
    workbench results.csv             start it with a file
    workbench runA.run runB.run ...   start it with several files opened together
    workbench ANALYSIS INPUT [flags]  run one analysis headless (see ``workbench --help``)
    workbench --self-test             check this installation end to end (offscreen)
    workbench --locale de_DE [FILE]   numbers in the window in that locale (0,692) for this run

Deciding between the two is kept light (no pandas, no Qt): a first word that is neither a
command nor an existing file is a typo (one sentence naming the nearest analysis, exit 2), and
without a display the desktop is not started (one sentence, exit 2) instead of letting Qt abort.
"""

from __future__ import annotations

import os
import signal
import sys

from . import catalog

#: the SIGINTs received since this module was imported (see :func:`_on_sigint`)
_INTERRUPTS: list[int] = []


def _on_sigint(signum, frame):
    """Ctrl-C: Python's own behaviour (KeyboardInterrupt), and a note of it, so that an interrupt
    that some library's bare ``except:`` swallows while it is imported (the first ~0.3 s) still
    ends the command with exit 130 instead of 0."""
    _INTERRUPTS.append(signum)
    raise KeyboardInterrupt


def _install_sigint() -> None:
    try:
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            signal.signal(signal.SIGINT, _on_sigint)
    except (ValueError, OSError):  # not the main thread of the main interpreter
        pass


_install_sigint()  # before any other import of ours: importing is most of the first 0.3 s

EXIT_USAGE, EXIT_INTERRUPTED = 2, 130  # as workbench.cli.main's (imported inside main's try)


def headless_words() -> set[str]:
    """The first words that run the command line (the analyses and --help/--version)."""
    from .cli.main import known_commands

    return set(known_commands()) | {"-h", "--help", "--version"}

#: Qt platform plug-ins that need no window system (anything else unknown is trusted too).
_NEEDS = {"xcb": ("DISPLAY",), "wayland": ("WAYLAND_DISPLAY",), "wayland-egl": ("WAYLAND_DISPLAY",),
          "wayland-brcm": ("WAYLAND_DISPLAY",)}


def display_problem(environ=None, platform: str | None = None) -> str | None:
    """Why the desktop workbench cannot open a window here, or None when it can (or may).

    On Linux and other X11/Wayland systems a window needs ``DISPLAY`` or ``WAYLAND_DISPLAY``,
    unless ``QT_QPA_PLATFORM`` names a plug-in that needs neither (offscreen, minimal, vnc,
    eglfs, linuxfb...).  Windows and macOS always have their own.
    """
    env = os.environ if environ is None else environ
    platform = sys.platform if platform is None else platform
    if platform.startswith(("win", "cygwin", "darwin")):
        return None
    chosen = [part.split(":")[0].strip().lower()
              for part in env.get("QT_QPA_PLATFORM", "").split(";") if part.strip()]
    candidates = chosen or ["xcb", "wayland"]  # Qt's own choice when none is set
    unreachable = None
    for name in candidates:
        needs = _NEEDS.get(name, ())
        if not needs:
            return None
        if not any(env.get(var) for var in needs):
            continue
        if name == "xcb" and not x_display_reachable(env["DISPLAY"]):
            unreachable = env["DISPLAY"]
            continue
        return None
    if unreachable is not None:
        return f"no display found (the X display '{unreachable}' of DISPLAY does not answer)"
    return "no display found"


def x_display_reachable(display: str, timeout: float = 2.0) -> bool:
    """Whether the X server of ``display`` accepts a connection (a socket, no X library):
    ``:N``/``unix:N`` is the local socket /tmp/.X11-unix/XN (or its abstract twin), ``host:N``
    is TCP port 6000 + N; a value that is not ``[HOST]:N[.SCREEN]`` is no display.  A
    protocol or path form (with a ``/``) is left to Qt."""
    import re
    import socket

    if "/" in display:
        return True  # a protocol ("tcp/host:0") or a socket path: let Qt decide
    match = re.fullmatch(r"(?P<name>[^:]*):(?P<num>\d+)(?:\.\d+)?", display)
    if match is None:
        return False  # not HOST:N[.SCREEN]: no X library can connect to it
    host, number = match.group("name"), int(match.group("num"))
    if host in ("", "unix"):
        path = f"/tmp/.X11-unix/X{number}"
        for address in ("\0" + path, path):
            try:
                with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
                    sock.settimeout(timeout)
                    sock.connect(address)
                return True
            except OSError:
                continue
        return False
    try:
        with socket.create_connection((host, 6000 + number), timeout=timeout):
            return True
    except OSError:
        return False


def _no_display_sentence(argv: list[str], problem: str) -> str:
    """The sentence without a display: a headless command that fits the file's own columns (read
    from its header, without pandas), else the list of analyses; never a command that would fail
    on the file (such as a compare with columns it does not have)."""
    from .core.role_names import suggest_command

    command = suggest_command(argv[0]) if argv else None
    if command:
        return (f"{problem}: run an analysis headless, e.g. '{command}' (see 'workbench --help'), "
                f"or start it on a desktop.")
    target = argv[0] if argv else "results.csv"
    if " " in target or not target:
        target = f"'{target}'"
    return (f"{problem}: run an analysis headless, e.g. 'workbench ANALYSIS {target}' with ANALYSIS one "
            f"of {', '.join(_ANALYSES)} (see 'workbench --help'), or start it on a desktop.")


#: the analyses on an input file, as the no-display sentence lists them
_ANALYSES = catalog.names(reads_input=True)


def _gui_argument_problem(argv: list[str]) -> str | None:
    """A sentence when the arguments cannot start the desktop workbench, else None."""
    if not argv:
        return None
    first = argv[0]
    if first.startswith("-") and first != "-":
        return (f"unknown option '{first}'; the analyses and their options are listed by "
                f"'workbench --help'.")
    if not os.path.exists(first):
        from .cli.main import unknown_word_sentence

        return unknown_word_sentence(first)
    flags = [a for a in argv[1:] if a.startswith("-") and a != "-"]
    if flags:
        return (f"'workbench {first}' opens the file in the desktop workbench and takes no "
                f"flags; to run an analysis on it, name the analysis first, e.g. 'workbench "
                f"compare {first} {' '.join(argv[1:])}'.")
    missing = [a for a in argv[1:] if not os.path.exists(a)]
    if missing:
        return (f"the file '{missing[0]}' does not exist; 'workbench FILE...' opens existing files "
                f"in the desktop workbench (several files are opened together, as File > Open "
                f"does with several files chosen).")
    return None  # one file or several: the desktop workbench opens them together


def main(argv: list[str] | None = None) -> int:
    program = argv is None
    seen = 0 if program else len(_INTERRUPTS)  # as a program: an interrupt while importing counts
    try:
        code = _main(argv)
    except KeyboardInterrupt:
        code = None
    interrupted = code is None or len(_INTERRUPTS) > seen
    if program and interrupted:
        try:  # the command is over: a further Ctrl-C must not print a traceback on the way out
            signal.signal(signal.SIGINT, signal.SIG_IGN)
        except (ValueError, OSError):
            pass
    if interrupted and code != EXIT_INTERRUPTED:  # (the command line prints its own line)
        print("workbench: interrupted.", file=sys.stderr)
        return EXIT_INTERRUPTED
    return code


def _main(argv: list[str] | None) -> int:
    program = argv is None
    argv = list(sys.argv[1:] if argv is None else argv)
    if sys.platform == "darwin":  # a process serial number from an old Finder, not an argument
        argv = [a for a in argv if not a.startswith("-psn_")]
    if argv and argv[0] == "--self-test":  # the installation's end-to-end check (offscreen GUI)
        from .ui.selftest import main as selftest_main

        return selftest_main(argv[1:])
    from .cli.main import main as cli_main
    from .cli.main import one_line, quiet_warnings

    if argv and argv[0] in headless_words():
        if program:  # as the cli's own main() does when it is the program
            quiet_warnings()
        return cli_main(argv)  # prints its own "interrupted." line with exit 130
    from .locale_arg import take_locale

    locale, argv, problem = take_locale(argv)
    problem = problem or _gui_argument_problem(argv) or display_problem()
    if problem and problem.startswith("no display found"):
        problem = _no_display_sentence(argv, problem)
    if problem:
        print(f"workbench: {one_line(problem)}", file=sys.stderr)
        return EXIT_USAGE
    from .ui import main as gui_main  # Qt is imported only on this path

    return gui_main(argv, locale=locale)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
