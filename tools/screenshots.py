"""Render every main view of the window to PNG from the demo data folder.

    make screenshots            # = .venv/bin/python tools/screenshots.py docs/screenshots

Runs offscreen (no display needed; under Xvfb it works the same). The demo folder is built
fresh by ``tools/demo_data.py`` in a temporary directory, so the pictures never show anyone's
real data. One PNG per sidebar view (``<key>.png``), plus the dialogs, a chat with requests
held for the user's confirmation (``pending.png``), and "While you were away…" after a dream
(``away.png``). ``--only today notes`` renders just those views (no dialogs, no extras), for
a change that touches a few of them.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

SIZE = (1280, 800)
SCREEN = {"screens": [{"name": "screenshots", "x": 0, "y": 0, "width": SIZE[0],
                       "height": SIZE[1] + 40, "logicalDpi": 96, "logicalBaseDpi": 96,
                       "dpr": 1}]}
"""Qt's offscreen screen is 800×800 unless told, and the window fits itself to its screen:
the pictures are taken on a screen of the size they are meant to show."""


def _offscreen_with_room() -> None:
    """Run offscreen (unless another platform was asked for) on a ``SCREEN``-sized screen."""
    if os.environ.get("QT_QPA_PLATFORM", "offscreen") != "offscreen":
        return
    config = Path(tempfile.gettempdir()) / "hearth-screenshots-screen.json"
    config.write_text(json.dumps(SCREEN), encoding="utf-8")
    os.environ["QT_QPA_PLATFORM"] = f"offscreen:configfile={config}"


_offscreen_with_room()
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "tools"))

from PySide6.QtWidgets import QWidget  # noqa: E402
from support.dream_folder import dreaming_model, prepare  # noqa: E402

import demo_data  # noqa: E402
from core.app import Hearth  # noqa: E402
from core.consolidation.dream import DreamCycle  # noqa: E402
from desktop.app import make_application  # noqa: E402
from desktop.context import AppContext  # noqa: E402
from desktop.event_loop import spin, wait_until  # noqa: E402
from desktop.main_window import MainWindow  # noqa: E402
from desktop.runs import RunController  # noqa: E402
from desktop.theme import apply_scheme  # noqa: E402

SETTLE_SECONDS = 0.4


def settle(ctx: AppContext, timeout: float = 60.0) -> None:
    """Let background loads finish and the widgets repaint."""
    for _ in range(3):  # a finished load may start another (a page, then its detail)
        wait_until(lambda: not ctx.workers.active, timeout)
        spin(SETTLE_SECONDS)


def save(widget: QWidget, path: Path) -> None:
    widget.grab().save(str(path))
    print(f"wrote {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")


def shoot(out: Path, theme: str, only: frozenset[str] = frozenset()) -> None:
    app = make_application()
    apply_scheme(app, theme)
    with tempfile.TemporaryDirectory(prefix="hearth-demo-") as folder:
        home = Path(folder) / "home"
        demo_data.seed(home)
        hearth = Hearth.open(home)
        ctx = AppContext(hearth, provider_factory=demo_data.demo_model)
        window = MainWindow(ctx)
        window.resize(*SIZE)
        window.show()
        ctx.start_assistant()
        ctx.start_scheduler()
        settle(ctx)
        out.mkdir(parents=True, exist_ok=True)
        for key in window.pages:
            if only and key not in only:
                continue
            page = window.show_page(key)
            settle(ctx)
            if key in PREPARE:
                PREPARE[key](page)
                settle(ctx)
            save(window, out / f"{key}.png")
        if only:
            ctx.close()
            return
        window.show_page("chat")
        _chat_with_requests(window.pages["chat"])
        settle(ctx)
        save(window, out / "pending.png")
        for name, opener in _dialogs(window).items():
            dialog = opener()
            dialog.resize(760, 560)
            dialog.show()
            settle(ctx)
            save(dialog, out / f"{name}.png")
            dialog.close()
        ctx.close()
        _away_after_dream(Path(folder) / "dreamt", out)


def _away_after_dream(home: Path, out: Path) -> None:
    """"While you were away…" as the window shows it at the start after a night's dream.
    The demo folder's own dreams only linked memories (no dialog for that), so this one
    dreams over ``support.dream_folder``'s folder, made for a dream that merges, sets
    aside and rewrites the profile, with its scripted model."""
    with Hearth.open(home) as hearth:
        prepare(hearth)
        DreamCycle(hearth.consolidation(), dreaming_model()).run(trigger="scheduled")
    ctx = AppContext(Hearth.open(home), provider_factory=dreaming_model)
    runs = RunController(ctx)
    task = runs.offer_review()
    wait_until(lambda: not task.running and runs.away is not None)
    assert runs.away is not None
    runs.away.resize(760, 560)
    settle(ctx)
    save(runs.away, out / "away.png")
    runs.away.close()
    ctx.close()


def _chat_with_why(page: Any) -> None:
    """The training-plan chat (a Markdown table), with the Why panel of its first reply."""
    conversation = page.ctx.assistant.conversation
    session = next(s for s in conversation.sessions.recent_sessions() if s.title == "Training plan")
    page.open_session(session.id)
    settle(page.ctx)
    page.show_why(conversation.sessions.session_history(session.id)[0].interaction_id)


def _first_row(page: Any) -> None:
    """A list with its editor: the first record selected, shown beside the list."""
    page.view.selectRow(0)


def _summarised_article(page: Any) -> None:
    """Read later with the article that has the model's summary selected."""
    row = next(row for row in range(page.model.rowCount()) if page.model.record(row).summary)
    page.select(page.model.record(row).id)


def _quick_add_read(page: Any) -> None:
    """Today with a line typed in quick add, and what it was read as."""
    page.quick.setText("renew passport by Friday")
    wait_until(lambda: bool(page.hint.text()))


def _chat_with_requests(page: Any) -> None:
    """A chat with two requests the assistant held: a reminder waiting for Confirm / Edit
    / Cancel, and a task already confirmed (its card says what was done)."""
    from datetime import timedelta

    from core.daily import when
    from core.storage.orm import ChatSession, Interaction

    hearth = page.ctx.hearth
    tomorrow = (when.today() + timedelta(days=1)).isoformat()
    friday = when.today() + timedelta(days=(4 - when.today().weekday()) % 7 or 7)
    asked = {"remind me tomorrow at 9 to call the dentist":
             ("reminder.create", {"message": "call the dentist",
                                  "remind_at": f"{tomorrow}T09:00"},
              "Happy to. I've prepared the reminder: confirm it below and it's set."),
             "add a task: renew passport by Friday":
             ("task.create", {"title": "Renew passport", "due_date": friday.isoformat()},
              "Done once you confirm: the task is ready below.")}
    with hearth.storage.write() as session:
        session.add(ChatSession(id="requests", title="Dentist and passport", source="chat"))
        rows = [Interaction(session_id="requests", user_message=text, agent_response=reply,
                            status="completed", provider="ollama", model="llama3.2:3b")
                for text, (_action, _arguments, reply) in asked.items()]
        session.add_all(rows)
        session.flush()
        ids = [row.id for row in rows]
    held = [hearth.pending.hold(action, arguments, source_message=text,
                                session_id="requests", interaction_id=row_id)
            for (text, (action, arguments, _reply)), row_id in zip(asked.items(), ids,
                                                                   strict=True)]
    hearth.pending.confirm(held[1].id)
    page.reload_list()
    settle(page.ctx)
    page.open_session("requests")


PREPARE: dict[str, Callable[[Any], None]] = {
    "chat": _chat_with_why, "today": _quick_add_read, "notes": _first_row,
    "journal": _first_row, "read_later": _summarised_article, "schedule": _first_row,
    "agents": _first_row}
"""Views shown in a particular state rather than as they open."""


def _dialogs(window: MainWindow) -> dict[str, Callable[[], QWidget]]:
    """The dialogs worth a picture, opened without their modal loop."""
    from desktop.dialogs.settings import SettingsDialog
    from desktop.dialogs.welcome import WelcomeDialog

    def reflection_result() -> QWidget:
        task = window.runs.reflect_now(show=False)
        wait_until(lambda: not task.running)
        return window.runs.dialogs["reflect"]

    return {"settings": lambda: SettingsDialog(window.ctx, window),
            "welcome": lambda: WelcomeDialog(window.ctx, window),
            "reflection": reflection_result}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?", default=str(ROOT / "docs" / "screenshots"))
    parser.add_argument("--theme", choices=("light", "dark"), default="light")
    parser.add_argument("--only", nargs="+", default=[], metavar="VIEW",
                        help="render only these views (their keys: today, notes, …)")
    args = parser.parse_args()
    shoot(Path(args.out), args.theme, frozenset(args.only))


if __name__ == "__main__":
    main()
