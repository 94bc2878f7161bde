"""``hearth chat`` and ``hearth ask``: the conversation from a terminal.

Both run the same turn as the desktop window (``core.assistant.Assistant``). Replies stream
to stdout; the status line (which model answers, what learning is doing) and tool activity
go to stderr, so ``hearth ask`` output can be piped. Ctrl-C during a reply stops that reply
(what arrived is kept); ``ask`` finishes its background learning before the process exits.
In a chat, each change the assistant asks for (a task, a reminder, a note) is asked about
after the reply: y does it, n does not, e cancels it and lets the user change the message
and send it again. A chat line with bytes that are not UTF-8 is sent with U+FFFD in their
place and a note says so, so one bad byte never ends the session (see ``core.user_input``).
"""

from __future__ import annotations

import io
import sys
import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING, Annotated, Any

import typer

from cli import output
from cli.context import opened
from cli.interrupts import ctrl_c_cancels
from cli.pending_cmd import answer_in_terminal
from core.errors import HearthError
from core.user_input import REPLACEMENT, replace_unreadable

if TYPE_CHECKING:  # the assistant and its conversation are imported by the two commands that talk
    from core.assistant import Assistant
    from core.operations.chats import FromMemory, TurnEvent, TurnFailed, TurnFinished

CHAT_HELP = "Type a message. /new starts a new conversation, /quit (or Ctrl-D) leaves."


def _confirm_in_terminal(question: str) -> bool:
    """How the assistant asks before it deletes a fact (forget_fact)."""
    return typer.confirm(question, default=False, err=True)


def _render(events: Iterator[TurnEvent]) -> TurnFinished | TurnFailed | None:
    """Stream a turn to the terminal; returns its last event."""
    from core.operations.chats import (
        Compacted,
        FromMemory,
        TextDelta,
        ToolActivity,
        TurnFailed,
        TurnFinished,
    )

    last: TurnFinished | TurnFailed | None = None
    for event in events:
        if isinstance(event, FromMemory):
            output.stdout.print(_known_lines(event), markup=False, highlight=False)
        elif isinstance(event, TextDelta):
            output.stdout.print(event.text, end="", markup=False, highlight=False)
        elif isinstance(event, ToolActivity):
            output.stderr.print(f"[dim]· {event.name}: {event.result_summary}[/]",
                                highlight=False)
        elif isinstance(event, Compacted):
            output.stderr.print(f"[dim]· compacted {event.folded_exchanges} earlier exchanges "
                                f"into a summary[/]", highlight=False)
        elif isinstance(event, (TurnFinished, TurnFailed)):
            last = event
    output.stdout.print()
    if isinstance(last, TurnFailed):
        output.print_error(last.message, last.hint)
    elif isinstance(last, TurnFinished) and last.stopped:
        output.stderr.print("[dim](stopped)[/]")
    return last


def _known_lines(event: FromMemory) -> str:
    """What memory answers, before the model's phrasing: the true answer is on screen
    whatever the model writes."""
    lines = [f"  • {known.what}: {known.value} ({known.source})" for known in event.answers]
    return "From what you told me:\n" + "\n".join(lines) + "\n"


def _run_turn(assistant: Assistant, session_id: str, text: str, *,
              shown: bool = True, known: list[dict[str, Any]] | None = None,
              ) -> TurnFinished | TurnFailed | None:
    """One turn, printed as it streams (``shown``) or only collected; Ctrl-C stops the
    reply (saved as stopped) instead of killing the program (``ctrl_c_cancels``)."""
    from core.operations.models import CancelToken

    cancel = CancelToken()
    events = assistant.conversation.send(session_id, text, cancel=cancel)
    with ctrl_c_cancels(cancel):
        return _render(events) if shown else _last(events, known)


def chat() -> None:
    """Talk with Hearth in the terminal (streaming replies, status line)."""
    from core.assistant import Assistant
    from core.operations.capability import HOW_TO_GET_ONE

    with opened() as hearth:
        assistant = Assistant.start(hearth, confirm=_confirm_in_terminal, channel="cli")
        try:
            output.stderr.print(f"[bold]Hearth[/] · {assistant.status_line}\n{CHAT_HELP}",
                                highlight=False)
            profile = assistant.profile
            if profile.waiting:
                output.stderr.print(f"[dim]{profile.summary()} {HOW_TO_GET_ONE}[/]",
                                    highlight=False)
            assistant.learning.take_up_waiting()
            session_id = assistant.conversation.sessions.new_session()
            _read_undecodable_bytes_as_escapes()
            asked: set[int] = set()
            edited: str | None = None
            while True:
                try:
                    text = edited if edited is not None else _readable_line(input("\nyou › "))
                except EOFError:
                    break
                edited = None
                command = text.strip().lower()
                if command in ("/quit", "/exit"):
                    break
                if command == "/new":
                    assistant.learning.session_ended(session_id)
                    session_id = assistant.conversation.sessions.new_session()
                    output.stderr.print("[dim]new conversation[/]")
                    continue
                if not command:
                    continue
                output.stdout.print("hearth › ", end="", style="bold")
                _run_turn(assistant, session_id, text)
                output.stderr.print(f"[dim]{assistant.status_line}[/]", highlight=False)
                edited = answer_in_terminal(hearth, session_id, asked)
        except KeyboardInterrupt:
            output.stderr.print()
        finally:
            _close(assistant, close_sessions=True)


def _read_undecodable_bytes_as_escapes() -> None:
    """stdin's default error handler (strict under a UTF-8 locale) would end the whole
    session at a line that is not UTF-8; with surrogate escapes the line arrives and
    :func:`_readable_line` replaces what could not be read."""
    if isinstance(sys.stdin, io.TextIOWrapper):
        sys.stdin.reconfigure(errors="surrogateescape")


def _readable_line(line: str) -> str:
    """A typed line with its bytes that are not UTF-8 replaced by U+FFFD, saying so: the
    message still goes (a chat is not a command to retry), and the person knows that
    what was saved differs from what was typed."""
    text, replaced = replace_unreadable(line)
    if replaced:
        output.stderr.print(
            f"[yellow]note:[/] {replaced} byte{'s' if replaced > 1 else ''} in that line "
            f"{'were' if replaced > 1 else 'was'} not UTF-8 text and became {REPLACEMENT}; "
            "set your terminal to UTF-8 to keep them.", highlight=False)
    return text


def ask(message: Annotated[str, typer.Argument(help="What to ask or tell Hearth.")],
        session: Annotated[str | None, typer.Option(
            help="Continue this conversation (an id from an earlier --json answer).")] = None,
        as_json: Annotated[bool, typer.Option("--json", help="Print JSON at the end.")] = False,
        ) -> None:
    """One turn, for scripts: prints the reply, learns from it, then exits."""
    from core.assistant import Assistant
    from core.operations.chats import TurnFailed, TurnFinished

    with opened() as hearth:
        assistant = Assistant.start(hearth, confirm=lambda _q: False, channel="cli")
        try:
            session_id = session or assistant.conversation.sessions.new_session()
            if not as_json:
                output.stderr.print(f"[dim]{assistant.status_line}[/]", highlight=False)
            known: list[dict[str, Any]] = []
            last = _run_turn(assistant, session_id, message, shown=not as_json, known=known)
        finally:
            finished = _close(assistant, close_sessions=False)
        if as_json:
            output.print_json({**_answer(assistant, session_id, last, finished),
                               "from_memory": known})
        if isinstance(last, TurnFailed):
            raise typer.Exit(1)
        if isinstance(last, TurnFinished) and last.stopped:  # Ctrl-C: not a whole answer
            output.print_error("Interrupted: the reply so far was saved, marked stopped.")
            raise typer.Exit(130)


def _last(events: Iterator[TurnEvent], known: list[dict[str, Any]] | None = None,
          ) -> TurnFinished | TurnFailed | None:
    """The turn's outcome, its streamed parts left unprinted (``ask --json``); what memory
    answered goes into ``known``."""
    from core.operations.chats import FromMemory, TurnFailed, TurnFinished

    last = None
    for event in events:
        if isinstance(event, (TurnFinished, TurnFailed)):
            last = event
        elif isinstance(event, FromMemory) and known is not None:
            known.extend({"key": answer.key, "what": answer.what, "value": answer.value,
                          "source": answer.source} for answer in event.answers)
    return last


def _answer(assistant: Assistant, session_id: str, last: TurnFinished | TurnFailed | None,
            learning_finished: bool) -> dict[str, Any]:
    from core.operations.chats import TurnFailed, TurnFinished

    answer: dict[str, Any] = {"session_id": session_id, "provider": assistant.provider.name,
                    "model": assistant.provider.model,
                    "learning": {**assistant.learning.stats.__dict__,
                                 "finished": learning_finished}}
    if isinstance(last, TurnFinished):
        answer.update(reply=last.reply, interaction_id=last.interaction_id,
                      tokens=last.tokens, stopped=last.stopped)
    elif isinstance(last, TurnFailed):
        answer.update(error=last.message, hint=last.hint, interaction_id=last.interaction_id)
    return answer


def _close(assistant: Assistant, *, close_sessions: bool) -> bool:
    """Finish learning before exit; say so when it takes a moment."""
    done = threading.Event()

    def announce() -> None:
        if not done.wait(1.0):
            output.stderr.print("[dim]finishing what I learned…[/]")

    threading.Thread(target=announce, daemon=True).start()
    try:
        return assistant.close(close_sessions=close_sessions)
    except HearthError as exc:
        output.print_error(exc.message, exc.hint)
        return False
    finally:
        done.set()
