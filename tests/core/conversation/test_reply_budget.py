"""The reply is bounded by the room the prompt budget keeps for it, on every provider."""

from __future__ import annotations

from core.app import Hearth
from core.conversation.assembly import reply_reserve
from support.scripted_llm import ScriptedLLM


def test_each_request_asks_for_at_most_the_reserved_reply(tmp_path, embedder) -> None:
    llm = ScriptedLLM(["Sure."], context_window=2048)
    with Hearth.open(tmp_path / "home", embedder=embedder) as hearth:
        service = hearth.conversation(llm)
        list(service.send(service.sessions.new_session(), "Hello there"))
    (request,) = [r for r in llm.requests if r.kind == "chat"]
    assert request.max_tokens == reply_reserve(2048) == 512
