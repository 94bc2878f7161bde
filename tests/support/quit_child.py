"""The window quit while a reply is stuck in the model's native code, for
``tests/desktop/test_quit.py``.

Usage: ``python quit_child.py HOME``. The model's reply does not return for a minute and
does not look at its cancel token, as llama.cpp reading a long prompt does not; the learning
of the message before it is queued. Once the model is inside that call, the window quits
(``DesktopApp.quit``) and the process ends as the real one does (``DesktopApp.run``); it
prints ``QUIT`` just before, so the test can time the process from there to its end.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the project
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QTimer
from support.scripted_llm import ScriptedLLM

from core.app import Hearth
from desktop.app import DesktopApp, make_application
from desktop.context import AppContext

STUCK_S = 60


class StuckLLM(ScriptedLLM):
    """Answers the first message; the second reply blocks, deaf to its cancel token."""

    def __init__(self) -> None:
        super().__init__(self._answer)
        self.replies = 0

    def _answer(self, kind: str, *_: object) -> str:
        if kind == "structured":
            return '{"facts": []}'
        self.replies += 1
        if self.replies > 1:
            (Path(os.environ["HEARTH_HOME"]) / "model-stuck").touch()
            time.sleep(STUCK_S)
        return "Noted."


def main(home: str) -> None:
    os.environ["HEARTH_HOME"] = home
    app = make_application()
    desktop = DesktopApp(AppContext(Hearth.open(home), provider_factory=StuckLLM),
                         start_background=False)
    chat = desktop.window.show_page("chat")
    said = iter(["My sister Priya lives in Lisbon", "I moved to Porto last week"])

    def talk() -> None:
        if not chat.busy:
            text = next(said, None)
            if text is not None:
                chat.send(text)
        if (Path(home) / "model-stuck").exists():
            print("QUIT", flush=True)
            desktop.quit()

    ticker = QTimer(interval=50)
    ticker.timeout.connect(talk)
    desktop.ctx.hub.assistant_ready.connect(ticker.start)
    desktop.ctx.start_assistant()
    desktop.run(app)


if __name__ == "__main__":
    main(sys.argv[1])
