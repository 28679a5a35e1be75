"""``workbench --self-test``: prove that this installation works, end to end, without a screen.

It builds the main window offscreen, opens the user guide (Help > User guide) and each of its
pages, opens every example of the start page, waits for the panel's analysis (run on the thread
pool, as for a user), checks a headline number of each against the seed's worked value, writes
an Excel report of all the results to a temporary folder and reads it back.  One line per step;
exit 0 only if every step worked.

Used by the packaging tests on the frozen bundle and inside a clean Debian root, and usable from
a checkout (``.venv/bin/workbench --self-test``).

    workbench --self-test [--keep] [--screenshots DIR] [--timeout SECONDS]

``--keep`` leaves the temporary folder (report, settings) in place and prints where it is;
``--screenshots DIR`` saves a PNG of the main window after each example.

Waiting is done with a ``QEventLoop`` and a ``QTimer``: ``QTest.qWait`` keeps the GIL in PySide6
and starves the worker threads.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
import tempfile
import time
import traceback

from . import selftest_steps as steps

def _parse(argv: list[str]) -> dict:
    opts = {"keep": False, "screenshots": None, "timeout": 120.0}
    args = list(argv)
    while args:
        a = args.pop(0)
        if a == "--self-test":
            continue
        if a == "--keep":
            opts["keep"] = True
        elif a == "--screenshots" and args:
            opts["screenshots"] = args.pop(0)
        elif a == "--timeout" and args:
            opts["timeout"] = float(args.pop(0))
        else:
            raise SystemExit(f"workbench --self-test: unknown argument {a!r} "
                             f"(use --keep, --screenshots DIR, --timeout SECONDS)")
    return opts


def run(argv: list[str] | None = None) -> int:
    opts = _parse(list(sys.argv[1:] if argv is None else argv))
    # The self-test needs no screen; a QT_QPA_PLATFORM given by the caller wins (e.g. xcb under
    # Xvfb, to check the desktop platform plug-in too).
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    started = time.monotonic()
    outcome = steps.Outcome()
    workdir = tempfile.mkdtemp(prefix="workbench-self-test-")
    try:
        _run(opts, outcome, workdir)
    except Exception as err:  # noqa: BLE001 - a self-test reports, it does not crash
        outcome.step(False, "self-test", f"unexpected {type(err).__name__}: {err}")
        for line in traceback.format_exc().rstrip().splitlines():
            steps.say("     " + line)
    finally:
        if opts["keep"]:
            steps.say(f"     kept {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    elapsed = time.monotonic() - started
    if outcome.ok:
        steps.say(f"self-test passed: {outcome.steps} steps in {elapsed:.1f} s")
        return 0
    steps.say(f"self-test FAILED: {len(outcome.failures)} of {outcome.steps} steps in {elapsed:.1f} s")
    for f in outcome.failures:
        steps.say(f"  - {f}")
    return 1


def _run(opts: dict, outcome: steps.Outcome, workdir: str) -> None:
    from .. import __version__
    from ..resources_path import resources_dir

    frozen = bool(getattr(sys, "frozen", False))
    steps.say(f"Eval Workbench {__version__} self-test ({'bundle' if frozen else 'source'}: "
         f"{getattr(sys, '_MEIPASS', None) or os.path.dirname(os.path.dirname(os.path.dirname(__file__)))})")

    res = resources_dir()
    outcome.step(res.is_dir(), "resources", str(res))

    from PySide6 import __version__ as pyside_version
    from PySide6.QtCore import QSettings, qVersion

    from .app import create_app, install_exception_hook

    _quiet_offscreen_warnings()
    app = create_app()
    outcome.step(True, "Qt", f"Qt {qVersion()}, PySide6 {pyside_version}, platform "
                 f"{app.platformName()}")
    icon = app.windowIcon()
    drawn = not icon.isNull() and not icon.pixmap(64, 64).isNull()
    outcome.step(drawn, "application icon", "drawn at 64 px" if drawn else
                 "cannot be drawn (resources/icons or the SVG icon engine missing?)")

    from .about import about_text

    settings = QSettings(os.path.join(workdir, "settings.ini"), QSettings.Format.IniFormat)
    window = _self_test_window(settings)
    install_exception_hook(window)
    window.resize(1280, 800)
    window.show()
    app.processEvents()
    outcome.step(True, "main window", f"{len(window.panels)} panels")

    about = steps.plain(about_text())
    unknown = re.findall(r"([\w-]+) \?(?=[,.]|$)", about)
    outcome.step(not unknown, "about box versions",
                 f"unknown version of {', '.join(unknown)} (package metadata missing from the build)"
                 if unknown else about.split("conventions. ", 1)[-1][:160])

    steps.guide(outcome, window, app, opts["screenshots"])

    timeout = float(opts["timeout"])
    results, tables = _examples(outcome, window, app, timeout, opts["screenshots"])
    steps.every_analysis_tried(outcome, results)

    steps.example_sessions(outcome, window, timeout)

    # unexpected exceptions anywhere (every panel runs on every table) are bugs a user would see
    for panel in window.panels.values():
        panel.runner.wait(int(timeout * 1000))
    app.processEvents()
    crashes = [r for r in window.recorded if r.startswith("exception")]
    outcome.step(not crashes, "no unexpected errors",
                 crashes[0].splitlines()[0] if crashes else "")

    steps.formats(outcome, workdir, tables)
    steps.stemmer(outcome, tables)
    steps.export(outcome, workdir, results, tables)

    window.dirty = False
    window.shutdown()
    window.close()
    app.processEvents()


def _self_test_window(settings):
    """The main window with its dialogs recorded instead of shown (nobody is there to close them)."""
    from .main_window import MainWindow

    class SelfTestWindow(MainWindow):
        """Dialogs are recorded instead of shown (nobody is there to close them)."""

        def __init__(self, settings) -> None:
            self.recorded: list[str] = []
            super().__init__(settings)

        def warn(self, title, text):  # noqa: D401
            self.recorded.append(f"warning '{title}': {text}")

        def inform(self, title, text):
            self.recorded.append(f"message '{title}': {text}")

        def show_exception(self, summary, details):
            self.recorded.append(f"exception {summary}\n{details}")

        def ask_unsaved(self):
            return "discard"

    return SelfTestWindow(settings)


def _examples(outcome: steps.Outcome, window, app, timeout: float, shots: str | None):
    """Open every example of the start page, wait for its panel's result and check its seed
    number; returns (results, tables)."""
    from .about import about_text
    from .examples import EXAMPLES

    results, tables = [], []
    if shots:
        os.makedirs(shots, exist_ok=True)
        steps.screenshot_start(window, app, about_text(), shots)
    for example in EXAMPLES:
        label = f"example {example.file} -> {example.panel}"
        if not example.path.is_file():
            outcome.step(False, label, f"missing file {example.path}")
            continue
        t0 = time.monotonic()
        which, args = steps.wait_for_load(window, example, timeout)
        if which != 0:
            why = args[0] if which == 1 else f"not loaded within {timeout:.0f} s"
            outcome.step(False, label, f"loading failed: {why}")
            continue
        table = args[0]
        panel = window.panels[example.panel]
        if panel.runner.busy or panel._debounce.isActive():
            which, args = steps.wait([panel.result_ready, panel.runner.failed], timeout)
            if which is None:
                outcome.step(False, label, f"no result within {timeout:.0f} s")
                continue
            if which == 1:
                outcome.step(False, label, f"analysis failed: {args[0]!r}")
                continue
            result = args[0]
        else:
            outcome.step(False, label, "the analysis did not start: "
                         f"{panel.last_error or panel.message.text() or 'no reason shown'}")
            continue
        app.processEvents()
        if shots:
            steps.screenshot_example(window, panel, app, shots, os.path.splitext(example.file)[0])
        results.append(result)
        tables.append(table)
        expected = steps.EXPECTED.get(example.file)
        ms = (time.monotonic() - t0) * 1000
        if expected is None:
            outcome.step(bool(result.records), label,
                         f"{len(result.records)} records in {ms:.0f} ms (no seed number to check)")
        else:
            ok, detail = steps.check_value(result, *expected)
            outcome.step(ok, label, f"{detail} in {ms:.0f} ms")
    return results, tables


def _quiet_offscreen_warnings() -> None:
    """The offscreen platform warns on every window it cannot resize to hints; drop that line."""
    from PySide6.QtCore import qInstallMessageHandler

    previous = None

    def handler(mode, context, message):
        if "does not support propagateSizeHints" in message or "does not support raise()" in message:
            return
        if previous is not None:
            previous(mode, context, message)
        else:
            print(message, file=sys.stderr)

    previous = qInstallMessageHandler(handler)


def main(argv: list[str] | None = None) -> int:
    return run(argv)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
