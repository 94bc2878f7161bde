"""On a small model, what a person sees from the ``hearth`` command: the true answer from
memory before the model's phrasing, a short reply without claims, blanks or invented
addresses, the rules learning alone, and the rest waiting for a capable model.

The real CLI and ``ollama`` client against a scripted Ollama server whose model says it
has 135M parameters; the real database and embedder.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from cli.main import run
from support.fake_ollama import FakeModel, FakeOllama, FakeReply

TINY = "smollm2:135m"


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOllama]:
    with FakeOllama(models=[FakeModel(TINY, parameter_size="135M")]) as fake:
        fake.configure(monkeypatch, TINY)
        yield fake


def hearth(capsys, home: Path, *args: str) -> tuple[int, str, str]:
    code = run(["--home", str(home), *args])
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    return code, captured.out, captured.err


def asked_for_json(server: FakeOllama) -> list[dict]:
    return [body for body in server.chat_requests() if body.get("format") is not None]


def test_a_small_model_reply_claims_nothing_and_leaves_no_blanks(capsys, tmp_path, server):
    server.script(FakeReply(text=(
        "Thanks for telling me! I've saved your sister's details and set a reminder. "
        "Visit www.priya-nurse.com for her page. She starts on [event_date]. "
        "Lisbon is a lovely city.")))
    code, out, _ = hearth(capsys, tmp_path / "h", "ask",
                          "My sister Priya lives in Lisbon and works as a nurse.")
    assert code == 0
    assert "Thanks for telling me!" in out and "Lisbon is a lovely city." in out
    for invented in ("I've saved", "reminder", "www.", "[event_date]"):
        assert invented not in out
    assert server.chat_requests()[0]["options"]["num_predict"] == 160
    assert asked_for_json(server) == []  # no fact extraction asked of the small model

    code, out, _ = hearth(capsys, tmp_path / "h", "facts", "list", "--json")
    assert {fact["key"]: fact["value"] for fact in json.loads(out)} == {
        "sister_name": "Priya", "sister_home_city": "Lisbon", "sister_job_title": "nurse"}


def test_status_says_what_the_model_may_do_and_what_waits(capsys, tmp_path, server):
    server.script("Noted.")
    hearth(capsys, tmp_path / "h", "ask", "I live in Porto and I'm allergic to peanuts.")
    code, out, _ = hearth(capsys, tmp_path / "h", "status")
    assert code == 0
    assert (f"what it may do: {TINY} (135 million parameters) can phrase replies but will "
            "not learn facts beyond what you state plainly, sum up chats, journal entries "
            "and saved reading, combine and tidy memories or reflect on your day") in out
    assert "install Ollama (ollama.com) and pull llama3.2:3b" in out
    assert ("waiting for a capable model: 1 message to look for facts in, 2 things learned "
            "to combine into memories") in out


def test_a_question_about_the_user_is_answered_from_memory_first(capsys, tmp_path, server):
    home = tmp_path / "h"
    hearth(capsys, home, "facts", "set", "sister_home_city", "Lisbon")
    server.script("Your sister lives in Madrid.", "Your sister lives in Madrid.")
    code, out, _ = hearth(capsys, home, "ask", "Where does my sister live?")
    assert code == 0
    memory = out.index("From what you told me:\n  • Your sister's home city: Lisbon (you told me")
    assert memory < out.index("Your sister lives in Madrid.")

    code, out, _ = hearth(capsys, home, "ask", "Where does my sister live?", "--json")
    assert [(known["what"], known["value"]) for known in json.loads(out)["from_memory"]] == [
        ("Your sister's home city", "Lisbon")]


def test_dream_and_reflection_wait_for_a_capable_model(capsys, tmp_path, server):
    server.script("Noted.", "Noted.")
    home = tmp_path / "h"
    hearth(capsys, home, "ask", "I live in Porto.")
    hearth(capsys, home, "ask", "I work at Acme.")
    code, out, _ = hearth(capsys, home, "dream")
    assert code == 0
    assert ("waiting for a capable model: Recent conversations, Chat summaries, People, "
            "places, topics, Combining memories, What Hearth knows about you, Journal "
            "titles, reading summaries") in out
    code, out, _ = hearth(capsys, home, "reflect")
    assert code == 0
    assert (f"reflection skipped: {TINY} (135 million parameters) is too small to reflect; "
            "it waits for a capable model") in out
    assert asked_for_json(server) == []
    code, out, _ = hearth(capsys, home, "events", "--json")
    assert len(json.loads(out)) == 2  # the two facts wait, unconsolidated, for a model


@pytest.mark.parametrize("message", [
    "note: the wifi password at the cabin is on the fridge",
    "take a note: the wifi password at the cabin is on the fridge"])
def test_a_note_asked_for_in_words_is_held_then_saved_titled_by_its_first_words(
        capsys, tmp_path, server, message):
    home = tmp_path / "h"
    code, out, _ = hearth(capsys, home, "ask", message)
    assert code == 0  # it used to end with exit 70: AttributeError on the missing title
    assert ("This waits for you: save a note “the wifi password at the cabin is on the "
            "fridge”. It is not done yet: confirm it with `hearth pending confirm 1`") in out

    code, out, _ = hearth(capsys, home, "pending", "confirm", "1")
    assert code == 0
    assert "Done: Saved note 1 “the wifi password at the cabin is on the fridge”." in out
    code, out, _ = hearth(capsys, home, "notes", "list", "--json")
    (note,) = json.loads(out)
    assert (note["title"], note["content"]) == (
        "the wifi password at the cabin is on the fridge",
        "the wifi password at the cabin is on the fridge")
