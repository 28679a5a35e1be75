#!/usr/bin/env python
"""Issue 47's window row: the desktop workbench on a 1M-line TREC run and its qrels, beside
``workbench ranking RUN --qrels QRELS`` on the same files.

Not a test (pytest skips ``tests/benchmarks``; ``tests/test_bench_quick.py`` runs ``--quick``).
From the project root::

    QT_QPA_PLATFORM=offscreen .venv/bin/python tests/benchmarks/bench_window.py            # 1M lines, ~3-5 min
    QT_QPA_PLATFORM=offscreen .venv/bin/python tests/benchmarks/bench_window.py --quick    # 20k lines

Rows (the run: queries x 100 documents with four-decimal scores; the qrels: 12 graded
judgments per query; written before any timing):

* ``cold start``: ``workbench RUN QRELS`` as a user starts it (a fresh process, offscreen Qt,
  ``WORKBENCH_SMOKE=answer`` closes the window once the panel the files land on has its answer
  on screen: its card, headline and the tab in view, the other tabs being drawn right after;
  ``WORKBENCH_STARTUP_TIMING`` prints when the window first painted, "loading shown" when the
  loading bar was on screen with that paint, when the table was in and when the answer was):
  seconds from the launch to the first paint with the loading bar, to the table, to the answer /
  the command line's ``workbench ranking RUN --qrels QRELS`` in a fresh process, launch to exit.
  Target: the loading bar within 0.5 s, the answer within 1.3x of the command line.
* ``File > Open``: the same files opened in a window already running (``open_paths``, what File
  > Open with both files chosen does), to the Ranking panel's answer / the same command line.

Times are medians of ``--repeats`` runs (default 3), the window and the command line
interleaved.  Ratio = window / command line (at most 1.3 is the target).  The machine is shared:
the load average is printed with each row; on a busy machine both sides share its cores.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]


def write_files(folder: Path, queries: int, depth: int = 100, seed: int = 7) -> tuple[Path, Path]:
    rng = np.random.default_rng(seed)
    run, qrels = folder / "run.txt", folder / "qrels.txt"
    with open(run, "w") as f:
        for q in range(queries):
            scores = np.sort(rng.random(depth))[::-1]
            docs = rng.choice(50_000, depth, replace=False)
            f.write("".join(f"q{q} Q0 d{d} {r + 1} {s:.4f} bm25\n" for r, (d, s) in enumerate(zip(docs, scores))))
    with open(qrels, "w") as f:
        for q in range(queries):
            for d in rng.choice(50_000, 12, replace=False):
                f.write(f"q{q} 0 d{d} {rng.integers(0, 3)}\n")
    return run, qrels


def load() -> str:
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


def _env(home: str, **more: str) -> dict:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", HOME=home, XDG_CONFIG_HOME=home, **more)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    return env


def cold_start(run: Path, qrels: Path, home: str) -> dict:
    start = time.time()
    out = subprocess.run([sys.executable, "-m", "workbench", str(run), str(qrels)], capture_output=True, text=True,
                         env=_env(home, WORKBENCH_SMOKE="answer", WORKBENCH_STARTUP_TIMING="1"), timeout=900)
    end = time.time()
    if out.returncode != 0 or "panel: ranking" not in out.stdout:
        raise SystemExit(f"the window did not answer on the Ranking panel:\n{out.stdout}\n{out.stderr[-3000:]}")
    marks = {"exit": end - start}
    for line in out.stderr.splitlines():
        for word in ("window painted", "loading shown", "table loaded", "answer"):
            if line.startswith(word + " at "):
                marks[word] = float(line[len(word) + 4:].split()[0]) - start
    return marks


def command_line(run: Path, qrels: Path, home: str) -> float:
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "workbench", "ranking", str(run), "--qrels", str(qrels)],
                         capture_output=True, text=True, env=_env(home), timeout=900)
    if out.returncode != 0:
        raise SystemExit(f"workbench ranking failed:\n{out.stderr[-3000:]}")
    return time.perf_counter() - start


def open_in_running_window(run: Path, qrels: Path, home: str, repeats: int) -> list[float]:
    """Seconds from File > Open (both files) to the Ranking panel's answer, in one window."""
    from PySide6.QtCore import QEventLoop, QSettings, QTimer

    from workbench.ui.app import create_app
    from workbench.ui.main_window import MainWindow

    app = create_app()
    win = MainWindow(QSettings(str(Path(home) / "settings.ini"), QSettings.Format.IniFormat))
    win.warn = win.inform = lambda *a: print("message:", *a)
    win.ask_unsaved = lambda: "discard"
    win.resize(1280, 800)
    win.show()
    app.processEvents()
    times = []
    for _ in range(repeats):
        marks: dict[str, float] = {}
        start = time.perf_counter()
        ranking = win.panels["ranking"]
        done = lambda _r: marks.setdefault("answer", time.perf_counter() - start)  # noqa: E731
        ranking.result_ready.connect(done)
        win.open_paths([str(run), str(qrels)])
        loop = QEventLoop()
        checker = QTimer()
        checker.timeout.connect(lambda: loop.quit() if "answer" in marks or time.perf_counter() - start > 900
                                else None)
        checker.start(50)
        loop.exec()
        checker.stop()
        ranking.result_ready.disconnect(done)
        times.append(marks["answer"])
        settle = time.perf_counter() + 0.5  # the columns' check starts once the answer is drawn
        while time.perf_counter() < settle:
            app.processEvents()
            time.sleep(0.01)
        win.controller.problem_runner.wait(60000)  # the columns' check, after the answer: not timed
        win.reading_card.runner.wait(60000)
        app.processEvents()
    win.dirty = False
    win.shutdown()
    return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="20k lines instead of 1M")
    parser.add_argument("--repeats", type=int, default=3, help="median of N interleaved runs (default 3)")
    args = parser.parse_args(argv)
    queries = 200 if args.quick else 10_000
    with tempfile.TemporaryDirectory(prefix="wb-bench-window-") as tmp:
        folder = Path(tmp)
        run, qrels = write_files(folder, queries)
        home = str(folder / "home")
        os.makedirs(home)
        print(f"{queries * 100:,}-line TREC run + qrels written; load average {load()}", flush=True)
        cold, cli = [], []
        for _ in range(args.repeats):
            cold.append(cold_start(run, qrels, home))
            cli.append(command_line(run, qrels, home))
            print(f"  window {cold[-1]} | command line {cli[-1]:.2f} s | load {load()}", flush=True)
        shown = [c["loading shown"] for c in cold if "loading shown" in c]
        answer, line = statistics.median(c["answer"] for c in cold), statistics.median(cli)
        print(f"\n| work | window | command line | ratio | load average |\n|---|---|---|---|---|")
        print(f"| cold start `workbench RUN QRELS` ({queries * 100:,} lines): loading bar on screen "
              f"{statistics.median(shown) if shown else float('nan'):.2f} s after launch"
              f"{'' if len(shown) == len(cold) else ' (NOT SHOWN in every start)'}, table "
              f"{statistics.median(c['table loaded'] for c in cold):.2f} s, answer | {answer:.2f} s | "
              f"{line:.2f} s | **{answer / line:.2f}x** | {load()} |")
        opened = open_in_running_window(run, qrels, home, args.repeats)
        cli2 = [command_line(run, qrels, home) for _ in range(args.repeats)]
        a2, l2 = statistics.median(opened), statistics.median(cli2)
        print(f"| File > Open of both files in a running window, to the answer | {a2:.2f} s | {l2:.2f} s | "
              f"**{a2 / l2:.2f}x** | {load()} |")
        return 0 if shown and len(shown) == len(cold) else 1


if __name__ == "__main__":
    sys.exit(main())
