"""Where the main window opens: as large as it likes to be (``OPENING_SIZE``), or as the
screen allows, with its frame (title bar and borders) inside what the screen leaves free.

A window is sized by its inside; the window manager adds the frame around it afterwards.
Sized to the free height of a 1366×768 screen, the window therefore ended a title bar's
height below the screen's edge, with its status bar (and, at 1024×640, the message box)
out of sight. The frame is known only once the window manager has framed the window, a
moment after it is shown, so the window is fitted again then (``MainWindow``).
"""

from __future__ import annotations

from PySide6.QtCore import QMargins, QPoint, QRect, QSize

OPENING_SIZE = QSize(1200, 780)


def frame_margins(frame: QRect, inside: QRect) -> QMargins:
    """How far the frame reaches beyond the window's inside on each side."""
    return QMargins(inside.left() - frame.left(), inside.top() - frame.top(),
                    frame.right() - inside.right(), frame.bottom() - inside.bottom())


def fitted(frame: QRect, margins: QMargins, area: QRect, minimum: QSize,
           wanted: QSize = OPENING_SIZE) -> QRect:
    """The frame's rectangle for a window whose frame is now ``frame``: the inside at most
    ``wanted`` (and at least ``minimum``), the frame within ``area`` (moved in where it
    stuck out, at the area's top left when it is as large as the area)."""
    room = QSize(area.width() - margins.left() - margins.right(),
                 area.height() - margins.top() - margins.bottom())
    inside = wanted.boundedTo(room).expandedTo(minimum)
    size = inside.grownBy(margins)
    left = min(max(frame.left(), area.left()), area.right() + 1 - size.width())
    top = min(max(frame.top(), area.top()), area.bottom() + 1 - size.height())
    return QRect(QPoint(max(left, area.left()), max(top, area.top())), size)
