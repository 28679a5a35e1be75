"""Screenshots of the Edit menu (Undo naming its step, the copy commands, Settings), the locale
setting and a German window, under an X server (Xvfb + openbox), as capture_screenshots.py:

    DISPLAY=:57 PYTHONPATH=. python tests/ui/capture_edit_screenshots.py resources/screenshots 1280x800
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from PySide6.QtCore import QPoint, QSettings

sys.path.insert(0, str(Path(__file__).resolve().parent))
from capture_screenshots import grab, settle, wait  # noqa: E402


def main(out: str, size: str) -> int:
    from workbench.ui.app import create_app
    from workbench.ui.examples import EXAMPLES
    from workbench.ui.main_window import MainWindow
    from workbench.ui.settings_dialog import SettingsDialog

    out_dir = Path(out)
    out_dir.mkdir(parents=True, exist_ok=True)
    app = create_app()
    settings = QSettings(str(Path(tempfile.mkdtemp()) / "s.ini"), QSettings.Format.IniFormat)
    window = MainWindow(settings)
    window.ask_unsaved = lambda: "discard"
    width, height = (int(x) for x in size.split("x"))
    window.show()
    window.setGeometry(0, 0, width, height)
    window.showMaximized()
    wait(800)
    window.open_example(next(e for e in EXAMPLES if e.file == "ranking_graded.csv"))
    settle(window)
    window.view_actions["ranking"].trigger()
    ks = window.panels["ranking"].control("ks")
    ks.setText("1,2,4")
    ks.editingFinished.emit()  # a step for Undo to name
    settle(window)
    menu = window.edit_menu
    bar = window.menuBar()
    edit = next(a for a in bar.actions() if a.menu() is menu)
    menu.popup(bar.mapToGlobal(bar.actionGeometry(edit).bottomLeft()))
    wait(700)
    grab(out_dir / f"edit-menu-{size}.png")
    menu.hide()
    wait(300)
    dialog = SettingsDialog("de_DE", None, window)
    dialog.show()
    dialog.move(window.mapToGlobal(QPoint(max(0, (window.width() - dialog.width()) // 2), 120)))
    wait(700)
    grab(out_dir / f"settings-locale-{size}.png")
    dialog.close()
    window.set_display_locale("de_DE")  # what choosing German in it does
    settle(window)
    wait(500)
    grab(out_dir / f"ranking-german-{size}.png")
    window.dirty = False
    window.shutdown()
    app.quit()
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
