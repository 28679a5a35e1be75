"""Screenshots of where each tool's file lands (the user guide's formats page), offscreen:

    QT_QPA_PLATFORM=offscreen PYTHONPATH=. python tests/ui/capture_formats46.py resources/screenshots

Opens each file of tests/fixtures/formats (DeepEval, Ragas, Phoenix, HELM, SWE-bench, MTEB) in the
window at 1280x800 as File > Open does, waits for the panel it lands on, grabs the window with
QWidget.grab() and stores a 48-colour PNG (Pillow, no dithering: small files, crisp text)."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from PySide6.QtCore import QEventLoop, QSettings, QTimer

HERE = Path(__file__).resolve().parent.parent / "fixtures" / "formats"
SHOTS = [  # (name, file or folder)
    ("format-deepeval", "deepeval/test_run.json"),
    ("format-ragas", "ragas/ragas_result.csv"),
    ("format-phoenix", "phoenix/experiment.json"),
    ("format-helm", "helm/simple1_em_robustness"),
    ("format-swebench", "swebench"),
    ("format-mteb", "mteb"),
    ("format-mteb-sts", "mteb/results/fixture46__hashed-bow/r46/Fixture46STS.json"),
]


def wait(ms: int) -> None:
    loop = QEventLoop()
    QTimer.singleShot(ms, loop.quit)
    loop.exec()


def settle(window, timeout_ms: int = 60000) -> None:
    waited = 0
    while waited < timeout_ms:
        busy = window.loader.busy or any(p.runner.busy or p._debounce.isActive() for p in window.panels.values())
        if not busy:
            break
        wait(100)
        waited += 100
    wait(400)


def main(out: str) -> int:
    from PIL import Image

    from workbench.ui.app import create_app
    from workbench.ui.main_window import MainWindow

    out_dir = Path(out)
    out_dir.mkdir(parents=True, exist_ok=True)
    create_app()
    settings = QSettings(str(Path(tempfile.mkdtemp()) / "s.ini"), QSettings.Format.IniFormat)
    window = MainWindow(settings)
    window.warn = lambda title, text: print("warning:", title, text)
    window.ask_unsaved = lambda: "discard"
    window.resize(1280, 800)
    window.show()
    wait(500)
    only = set(sys.argv[2:])
    for name, rel in SHOTS:
        if only and name not in only:
            continue
        window.open_path(str(HERE / rel))
        settle(window)
        window.resize(1280, 800)
        wait(300)
        raw = Path(tempfile.mkdtemp()) / "raw.png"
        image = window.grab()
        assert (image.width(), image.height()) == (1280, 800), (image.width(), image.height())
        image.save(str(raw))
        path = out_dir / f"{name}-1280x800.png"
        Image.open(raw).convert("RGB").quantize(colors=48, dither=Image.Dither.NONE).save(path, optimize=True)
        print(path, window.current_panel_name(), path.stat().st_size // 1024, "KiB", flush=True)
    window.dirty = False
    window.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "resources/screenshots"))
