"""How the window takes the screen: its first size and place, and presentation mode (full
screen on the window's screen, fonts scaled to it, the docks out of the way)."""

from __future__ import annotations

from PySide6.QtCore import QByteArray, Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QApplication


class Presentation:
    """Presentation mode of one window: on, then off again as it was."""

    def __init__(self, window) -> None:
        self.window = window
        self.on = False
        self.base_font = QApplication.font()
        self._docks_before = (False, False, False)
        self._maximized_before = False

    def docks_come_back(self) -> None:
        """A file opened in full screen: its docks show when presentation mode ends."""
        self._docks_before = (True, True, True)

    def toggle(self) -> None:
        """Full screen on the screen the window is on, fonts scaled to that screen, each
        panel's options in a drawer, the answer card largest; again to go back."""
        w = self.window
        self.on = not self.on
        font = QFont(self.base_font)
        screen = w.screen() or QApplication.primaryScreen()
        docks = (w.roles_dock, w.problems_dock, w.reading_dock)
        if self.on:
            self._docks_before = tuple(d.isVisible() for d in docks)
            self._maximized_before = w.isMaximized()
            for dock in docks:
                dock.setVisible(False)
            size = self.base_font.pointSizeF()
            scale = presentation_scale(screen.geometry().width(), screen.geometry().height())
            font.setPointSizeF((size if size > 0 else 10) * scale)
        else:
            font = self.base_font
        QApplication.setFont(font)
        w.setFont(font)
        w.workspace.set_presentation(self.on)
        if self.on:
            w.setGeometry(screen.geometry())
            w.showFullScreen()
        else:
            if self._maximized_before:  # back to the maximized window
                w.showMaximized()
            else:
                w.showNormal()
            for dock, was in zip(docks, self._docks_before):
                dock.setVisible(was and w.table is not None)
        w.workspace.render_again()


def place_window(window, settings) -> None:
    """The saved size and place, or the first window's on this screen (maximized on laptops
    and full-HD screens); a window saved on a larger screen is made to fit this one."""
    geometry = settings.value("window/geometry")
    restored = isinstance(geometry, QByteArray) and not geometry.isEmpty() and window.restoreGeometry(geometry)
    screen = QApplication.primaryScreen()
    area = screen.availableGeometry() if screen is not None else None
    if not restored or window.width() < 900 or window.height() < 600:  # the first window
        width, height = first_window_size(area.width(), area.height()) if area is not None \
            else (1360, 860)
        window.resize(width, height)
        if area is not None:
            window.move(area.x() + (area.width() - width) // 2,
                        area.y() + max(0, (area.height() - height - WINDOW_FRAME_PX) // 2))
            if maximize_first_window(area.width(), area.height()):
                # a laptop or a full-HD screen: the whole screen, the status bar on it
                window.setWindowState(window.windowState() | Qt.WindowState.WindowMaximized)
    elif area is not None and (window.width() > area.width() or window.height() > area.height()):
        window.resize(*first_window_size(area.width(), area.height()))
    state = settings.value("window/state")
    if isinstance(state, QByteArray) and not state.isEmpty():
        window.restoreState(state)


#: what a window manager adds above a window (its title bar and frame), in pixels
WINDOW_FRAME_PX = 40


def first_window_size(width: int, height: int) -> tuple[int, int]:
    """The first window's size (unmaximized) on an available screen area of this size: at
    most 1360x860, and never taller or wider than the area with the window's frame, so its
    status bar is on screen."""
    return min(1360, width - 16), min(860, height - WINDOW_FRAME_PX)


def maximize_first_window(width: int, height: int) -> bool:
    """The first window is maximized on screens up to full HD (1280x800 laptops, 1920x1080):
    the text that 1360 pixels elide is whole."""
    return width <= 1920 or height <= 1200


def presentation_scale(width: int, height: int) -> float:
    """The font scale of presentation mode on a screen of this size: 1.15 on 1280x720,
    1.35 on 1920x1080, 1.95 on 4K (text read from the back of a room, the layout still fits)."""
    s = min(width / 1280, height / 720)
    return round(min(2.2, max(1.15, 1.15 + 0.4 * (s - 1))), 2)


