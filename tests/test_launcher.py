"""The ``workbench`` entry point never aborts: a typo of an analysis, a missing display, an
unknown option and Ctrl-C are each one sentence on stderr with exit 2 (130 for Ctrl-C)."""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import workbench.cli.main as cli_main
import workbench.launcher as launcher

ROOT = Path(__file__).resolve().parents[1]
EX = ROOT / "resources" / "examples"


def _env(**extra: str) -> dict[str, str]:
    """This environment without any display, with the worktree importable."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM", "WORKBENCH_SMOKE")}
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env.update(extra)
    return env


def _as_from_a_terminal() -> None:
    """In the child before it starts: Ctrl-C as a terminal delivers it (a test run started in the
    background inherits SIGINT ignored, and Python then never installs its handler)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _workbench(*argv: str, env=None, timeout: int = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "workbench", *argv], cwd=ROOT,
                          capture_output=True, text=True, env=env or _env(), timeout=timeout)


def _one_sentence(proc: subprocess.CompletedProcess, code: int = 2) -> str:
    assert proc.returncode == code, (proc.returncode, proc.stderr)
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("workbench: ") and not lines[0].startswith("workbench: workbench")
    return lines[0]


def test_a_typo_of_an_analysis_names_the_nearest_one(tmp_path):
    data = tmp_path / "data.csv"
    data.write_text("item,baseline,candidate\na,1,0\n", encoding="utf-8")
    line = _one_sentence(_workbench("compair", str(data), "--baseline", "baseline"))
    assert "'compair'" in line and "did you mean 'compare'?" in line
    line = _one_sentence(_workbench("rankng", str(data)))
    assert "did you mean 'ranking'?" in line


def test_a_missing_file_alone_is_a_sentence_not_the_gui(tmp_path):
    line = _one_sentence(_workbench(str(tmp_path / "results.csv"),
                                    env=_env(QT_QPA_PLATFORM="offscreen", WORKBENCH_SMOKE="1")))
    assert "results.csv" in line and "neither an analysis nor an existing file" in line


def test_no_display_is_a_sentence_not_a_qt_abort(tmp_path):
    line = _one_sentence(_workbench())
    assert line.startswith("workbench: no display found: run an analysis headless, e.g. ")
    assert "or start it on a desktop" in line
    data = tmp_path / "data.csv"
    data.write_text("item,baseline,candidate\na,1,0\n", encoding="utf-8")
    line = _one_sentence(_workbench(str(data)))
    assert "no display found" in line and str(data) in line


def test_deciding_there_is_no_display_loads_neither_pandas_nor_qt():
    code = ("import sys\nfrom workbench.launcher import main\nrc = main([])\n"
            "heavy = [m for m in ('pandas', 'numpy', 'PySide6', 'pyqtgraph') if m in sys.modules]\n"
            "print(','.join(heavy))\nsys.exit(rc)\n")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                          env=_env(), timeout=60)
    assert proc.returncode == 2 and proc.stdout.strip() == "", (proc.stdout, proc.stderr)


@pytest.mark.parametrize("env, platform, ok", [
    ({}, "linux", False),
    ({"DISPLAY": ":0"}, "linux", True),
    ({"WAYLAND_DISPLAY": "wayland-0"}, "linux", True),
    ({"QT_QPA_PLATFORM": "offscreen"}, "linux", True),
    ({"QT_QPA_PLATFORM": "minimal"}, "linux", True),
    ({"QT_QPA_PLATFORM": "vnc:size=800x600"}, "linux", True),
    ({"QT_QPA_PLATFORM": "xcb"}, "linux", False),
    ({"QT_QPA_PLATFORM": "xcb", "WAYLAND_DISPLAY": "w"}, "linux", False),
    ({"QT_QPA_PLATFORM": "wayland;xcb", "DISPLAY": ":1"}, "linux", True),
    ({"QT_QPA_PLATFORM": "wayland"}, "linux", False),
    ({"DISPLAY": ""}, "linux", False),
    ({}, "freebsd14", False),
    ({}, "win32", True),
    ({}, "darwin", True),
])
def test_display_rules(monkeypatch, env, platform, ok):
    monkeypatch.setattr(launcher, "x_display_reachable", lambda display: True)
    assert (launcher.display_problem(env, platform) is None) is ok


def test_an_x_display_that_does_not_answer_is_no_display():
    number = _free_display()
    line = _one_sentence(_workbench(env=_env(DISPLAY=f":{number}")))
    assert f"the X display ':{number}' of DISPLAY does not answer" in line
    assert "run an analysis headless" in line
    line = _one_sentence(_workbench(env=_env(DISPLAY="not-a-display")))
    assert "no display found" in line


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="abstract Unix sockets are Linux's")
def test_x_display_reachable_connects_to_the_server_socket():
    number = _free_display()
    assert not launcher.x_display_reachable(f":{number}")
    assert not launcher.x_display_reachable(f"unix:{number}.0")
    assert not launcher.x_display_reachable("garbage")
    assert launcher.x_display_reachable("tcp/somehost:0")  # left to Qt
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as server:  # an abstract X socket
        server.bind(f"\0/tmp/.X11-unix/X{number}")
        server.listen(1)
        assert launcher.x_display_reachable(f":{number}")
        assert launcher.x_display_reachable(f":{number}.0")
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as server:  # X over TCP, port 6000+N
        for port in range(6100, 6400):
            try:
                server.bind(("127.0.0.1", port))
                break
            except OSError:
                continue
        server.listen(1)
        assert launcher.x_display_reachable(f"127.0.0.1:{port - 6000}")
    assert not launcher.x_display_reachable(f"127.0.0.1:{port - 6000}")


def test_an_unknown_option_without_an_analysis_is_a_sentence():
    line = _one_sentence(_workbench("--basline", "x"))
    assert "'--basline'" in line and "workbench --help" in line


def test_an_unknown_flag_of_an_analysis_has_the_prefix_once(tmp_path):
    data = tmp_path / "d.csv"
    data.write_text("item,baseline,candidate\na,1,0\n", encoding="utf-8")
    line = _one_sentence(_workbench("compare", str(data), "--basline", "x"))
    assert line == ("workbench: unrecognized arguments: --basline x (see 'workbench --help').")


def test_a_file_followed_by_flags_asks_for_the_analysis(tmp_path):
    data = tmp_path / "d.csv"
    data.write_text("item,baseline,candidate\na,1,0\n", encoding="utf-8")
    line = _one_sentence(_workbench(str(data), "--baseline", "baseline"))
    assert f"workbench compare {data} --baseline baseline" in line


def test_help_lists_the_self_test_and_the_exit_codes():
    proc = _workbench("--help")
    assert proc.returncode == 0
    assert "--self-test" in proc.stdout and "130" in proc.stdout and "desktop" in proc.stdout


@pytest.mark.parametrize("entry", ["cli", "launcher"])
def test_ctrl_c_exits_130_with_one_line(monkeypatch, capsys, entry):
    def interrupted(argv):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli_main, "run_cli", interrupted)
    main = cli_main.main if entry == "cli" else launcher.main
    assert main(["plan", "--rate", "0.5", "--n", "10"]) == 130
    out, err = capsys.readouterr()
    assert out == "" and err == "workbench: interrupted.\n"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs a named pipe")
def test_ctrl_c_while_reading_the_input_in_a_subprocess(tmp_path):
    """SIGINT while the workbench waits on its input (a named pipe nobody writes yet)."""
    fifo = tmp_path / "results.csv"
    os.mkfifo(fifo)
    proc = subprocess.Popen([sys.executable, "-m", "workbench", "text", str(fifo)], cwd=ROOT,
                            env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=_as_from_a_terminal)
    deadline = time.monotonic() + 60
    writer = None
    while writer is None and time.monotonic() < deadline:
        try:  # succeeds once the workbench has opened the pipe for reading
            writer = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        except OSError:
            time.sleep(0.05)
    assert writer is not None, "the workbench never opened its input"
    try:
        time.sleep(0.3)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        os.close(writer)
    assert proc.returncode == 130, err
    assert err == "workbench: interrupted.\n" and out == ""


def test_dev_setup_installs_the_xcb_libraries_a_window_needs():
    script = (ROOT / "packaging" / "dev-setup.sh").read_text(encoding="utf-8")
    wanted = ("libxcb-cursor0 libxcb-icccm4 libxcb-image0 libxcb-keysyms1 libxcb-randr0 "
              "libxcb-render-util0 libxcb-shape0 libxcb-xkb1 libxkbcommon-x11-0 libx11-xcb1").split()
    lists = {}
    for line in script.splitlines():
        if line.startswith(("QT_LIBS=", "XCB_LIBS=")):
            name, value = line.split("=", 1)
            lists[name] = value.strip('"').split()
    assert set(wanted) <= set(lists["XCB_LIBS"])
    # outside the packaging-only branch: installed by every `make` target
    assert "missing=$(missing_packages $QT_LIBS $XCB_LIBS)" in script.split("WORKBENCH_PACKAGE")[0]


def _qxcb_plugin() -> Path | None:
    try:
        import PySide6
    except ImportError:
        return None
    path = Path(PySide6.__file__).parent / "Qt" / "plugins" / "platforms" / "libqxcb.so"
    return path if path.exists() else None


@pytest.mark.skipif(not sys.platform.startswith("linux") or shutil.which("ldd") is None
                    or _qxcb_plugin() is None, reason="Linux with ldd and PySide6's xcb plug-in")
def test_every_library_of_the_xcb_plugin_resolves():
    proc = subprocess.run(["ldd", str(_qxcb_plugin())], capture_output=True, text=True, timeout=60)
    missing = [line.split()[0] for line in proc.stdout.splitlines() if "not found" in line]
    assert not missing, f"the window's xcb plug-in lacks {missing}: run packaging/dev-setup.sh as root"


def _free_display() -> int:
    # each pytest-xdist worker (gw0, gw1, ...) tries its own numbers: two workers never race
    # for the same free display
    first = 90 + 25 * int(os.environ.get("PYTEST_XDIST_WORKER", "gw0")[2:] or 0)
    for number in range(first, first + 25):
        if not os.path.exists(f"/tmp/.X11-unix/X{number}") and not os.path.exists(f"/tmp/.X{number}-lock"):
            return number
    raise RuntimeError("no free display number")


@pytest.mark.skipif(shutil.which("Xvfb") is None or _qxcb_plugin() is None,
                    reason="needs Xvfb (apt-get install xvfb) and PySide6")
def test_the_desktop_opens_a_real_window_on_an_x_display():
    """`make gui`'s path on a display: the launcher lets Qt's xcb plug-in start (no offscreen)."""
    number = _free_display()
    server = subprocess.Popen(["Xvfb", f":{number}", "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while not os.path.exists(f"/tmp/.X11-unix/X{number}") and time.monotonic() < deadline:
            time.sleep(0.1)
        proc = _workbench(str(EX / "paired_14_to_5.csv"),
                          env=_env(DISPLAY=f":{number}", WORKBENCH_SMOKE="1",
                                   XDG_RUNTIME_DIR=os.environ.get("XDG_RUNTIME_DIR", "/tmp")),
                          timeout=180)
        assert proc.returncode == 0, proc.stderr[-2000:]
    finally:
        server.terminate()
        server.wait(timeout=30)



def test_as_a_program_library_warnings_are_not_extra_lines():
    code = ("import sys, warnings\nfrom workbench.cli.main import quiet_warnings\n"
            "quiet_warnings()\nwarnings.warn('library noise', RuntimeWarning)\n")
    quiet = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                           env=_env(), timeout=60)
    assert quiet.returncode == 0 and quiet.stderr == ""
    loud = subprocess.run([sys.executable, "-W", "default", "-c", code], cwd=ROOT,
                          capture_output=True, text=True, env=_env(), timeout=60)
    assert "library noise" in loud.stderr  # -W (or PYTHONWARNINGS) still shows them


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(words=st.lists(st.one_of(st.sampled_from(["compair", "rankng", "pass", "-", "--", "-x",
                                                 "--basline", "x.csv", "PLAN", "gates", "..."]),
                                st.text(max_size=8)), min_size=1, max_size=3))
def test_any_first_word_is_a_command_or_one_sentence(monkeypatch, words):
    """Random argument lists through the launcher (the desktop is never started here): exit 0
    or 2, and on 2 exactly one line on stderr."""
    monkeypatch.setattr(launcher, "display_problem", lambda *a, **k: "no display found")
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = launcher.main(list(words))
    assert code in (0, 2), (words, err.getvalue())
    if code == 2:
        lines = err.getvalue().strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("workbench: "), (words, err.getvalue())
        assert not lines[0].startswith("workbench: workbench")


# --- issue 23, item 20 ----------------------------------------------------------------------------

def test_ctrl_c_swallowed_by_a_library_while_importing_still_exits_130(monkeypatch, capsys):
    """Ctrl-C in the first ~0.3 s lands in some import; a library's bare ``except:`` may swallow
    the KeyboardInterrupt and the command then finished with exit 0.  The launcher's own SIGINT
    handler notes the interrupt, so the exit is 130 with one line whatever swallowed it."""
    def swallowing(argv):
        try:  # as a bare except in an imported module would
            launcher._on_sigint(signal.SIGINT, None)
        except BaseException:  # noqa: BLE001
            pass
        return 0

    monkeypatch.setattr(cli_main, "run_cli", swallowing)
    assert launcher.main(["plan", "--rate", "0.5", "--n", "10"]) == 130
    out, err = capsys.readouterr()
    assert err == "workbench: interrupted.\n"
    monkeypatch.setattr(cli_main, "run_cli", lambda argv: 0)
    assert launcher.main(["plan", "--rate", "0.5", "--n", "10"]) == 0  # a later run is not tainted


def test_the_launcher_handles_sigint_before_it_imports_the_command_line():
    code = ("import signal, sys\nimport workbench.launcher as l\n"
            "print(signal.getsignal(signal.SIGINT) is l._on_sigint)\n")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                          env=_env(), timeout=60, preexec_fn=_as_from_a_terminal)
    assert proc.stdout.strip() == "True", proc.stderr
    source = (ROOT / "workbench" / "launcher.py").read_text(encoding="utf-8")
    head = source.split("_install_sigint()  #", 1)[0]
    assert "from .cli" not in head and "import pandas" not in head


@pytest.mark.parametrize("example", sorted(p.name for p in EX.glob("*.csv")
                                            if p.name != "rubric_weights.csv"))  # a rubric's weights, not results
def test_no_display_suggests_a_command_that_runs_on_that_file(example, capsys):
    """The no-display sentence used to suggest '--baseline A --candidate B' for any file, which
    fails on claims.csv; now it names the analysis and the columns the file has, and that
    command runs."""
    import shlex

    path = str(EX / example)
    sentence = launcher._no_display_sentence([path], "no display found")
    command = sentence.split("e.g. '", 1)[1].split("' (see", 1)[0]
    argv = shlex.split(command)
    assert argv[0] == "workbench" and path in argv
    assert "--baseline A" not in command
    assert cli_main.main(argv[1:]) == 0, capsys.readouterr().err
    capsys.readouterr()


def test_no_display_without_a_fitting_command_lists_the_analyses(tmp_path):
    odd = tmp_path / "odd.csv"
    odd.write_text("alpha,beta\n1,2\n", encoding="utf-8")
    sentence = launcher._no_display_sentence([str(odd)], "no display found")
    assert "--baseline A" not in sentence
    assert "'workbench ANALYSIS" in sentence and "aggregate, compare, cost" in sentence
