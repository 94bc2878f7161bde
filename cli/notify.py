"""``hearth daemon``'s notifications: ``notify-send`` when the desktop has it, else the log.

The daemon has no window to show a notice with buttons, so a delivered notification goes
to the desktop's notification service through ``notify-send`` (libnotify, on most Linux
desktops) when it is on the ``PATH`` and a session bus is there to reach, and is always
named in the daemon's log (stderr and ``<home>/logs/daemon.log``) by its key
(``reminder:12``) alone: the log never holds a notification's words, nor, when notify-send
fails, its command line or what it printed (``core.log_privacy``). Without
``notify-send`` (macOS, Windows, a server) the log says what was delivered, and ``hearth
reminders list``, ``hearth tasks list``, … show it. The answers (Done, Snooze, Tomorrow) are then
given with the CLI: ``hearth reminders snooze``, ``hearth tasks done``, …, or in the
window.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import logging
import shutil
import subprocess

from core.log_privacy import described, quoted
from core.operations.folder_lock import environment_for_child

if TYPE_CHECKING:
    from core.operations.delivery import Notification

log = logging.getLogger(__name__)

NOTIFY_SEND = "notify-send"
TIMEOUT_S = 5.0
"""A notification service that does not answer must not hold up the delivery pass."""


def notify(notification: Notification) -> None:
    """Log ``notification``, and show it with ``notify-send`` when there is one."""
    log.info("notification %s", notification.key)
    program = shutil.which(NOTIFY_SEND)
    if program is None:
        return
    try:
        # "--" ends the options: a reminder that starts with "-" is text, not a flag
        done = subprocess.run([program, "--app-name=Hearth", "--", notification.title,
                               notification.body], capture_output=True, text=True,
                              timeout=TIMEOUT_S, check=False, env=environment_for_child())
    except (OSError, subprocess.TimeoutExpired) as error:  # its message: the command line
        log.warning("notify-send could not show %s: %s", notification.key, described(error))
        return
    if done.returncode != 0:
        log.warning("notify-send could not show %s (exit %s): %s", notification.key,
                    done.returncode, quoted(done.stderr.strip()))
