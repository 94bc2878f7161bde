"""A chat service's export is read as a stream: never whole, whatever its size."""

from __future__ import annotations

import io
import json
import os
import tracemalloc
import zipfile
from pathlib import Path

from core.transfer.chat_export import READ_CHUNK, check_export, conversations
from core.transfer.chatgpt import CHATGPT

FIXTURE = Path(__file__).parents[2] / "data" / "chat_exports" / "chatgpt-conversations.json"


class ChunksOnly(io.RawIOBase):
    """A stream that refuses to be read whole: only chunks of at most ``READ_CHUNK``."""

    def __init__(self, data: bytes) -> None:
        self._data = io.BytesIO(data)
        self.largest = 0

    def read(self, size: int = -1) -> bytes:
        assert 0 < size <= READ_CHUNK, f"asked for {size} bytes at once"
        self.largest = max(self.largest, size)
        return self._data.read(size)

    def readable(self) -> bool:
        return True


def generated_export(path: Path, conversations_count: int, text_size: int) -> int:
    """A ChatGPT export of ``conversations_count`` conversations of four long messages,
    written conversation by conversation; returns its size in bytes. The messages are
    random hexadecimal digits, which pack about twice smaller, like text (a repeated
    phrase would pack hundreds of times smaller, past what a zip member may)."""
    template = json.loads(FIXTURE.read_text(encoding="utf-8"))[1]
    with path.open("w", encoding="utf-8") as out:
        out.write("[")
        for index in range(conversations_count):
            conversation = json.loads(json.dumps(template))
            conversation["conversation_id"] = conversation["id"] = f"conv-{index:06d}"
            for node in conversation["mapping"].values():
                if node["message"] is not None:
                    node["message"]["content"]["parts"] = [
                        f"{index} " + os.urandom(text_size // 2).hex()]
            out.write(("," if index else "") + json.dumps(conversation))
        out.write("]")
    return path.stat().st_size


def test_the_parser_takes_the_file_in_chunks_and_yields_before_the_end() -> None:
    data = json.loads(FIXTURE.read_text(encoding="utf-8")) * 300  # ~4 MB
    stream = ChunksOnly(json.dumps(data).encode())
    items = conversations(stream, "export")

    first = next(items)
    read_when_first_arrived = stream._data.tell()
    rest = list(items)

    assert first["title"] == "Moving to Porto 🏠"
    assert len(rest) == 899
    assert read_when_first_arrived <= 2 * READ_CHUNK < len(json.dumps(data).encode())
    assert stream.largest == READ_CHUNK


def test_checking_a_50_mb_export_holds_a_few_conversations_at_a_time(tmp_path) -> None:
    path = tmp_path / "conversations.json"
    size = generated_export(path, conversations_count=400, text_size=30_000)
    assert size > 45_000_000

    tracemalloc.start()
    try:
        checked = check_export(path, CHATGPT)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()

    assert (checked.conversations, checked.turns) == (400, 1600)
    assert peak < size / 20, f"peak {peak:,} bytes for a {size:,}-byte export"


def test_a_zipped_export_is_streamed_out_of_the_zip(tmp_path) -> None:
    plain = tmp_path / "conversations.json"
    size = generated_export(plain, conversations_count=100, text_size=30_000)
    archive = tmp_path / "export.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zipped:
        zipped.write(plain, "conversations.json")
    plain.unlink()

    tracemalloc.start()
    try:
        checked = check_export(archive, CHATGPT)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()

    assert checked.conversations == 100
    assert peak < size / 5, f"peak {peak:,} bytes for a {size:,}-byte member"


def test_whitespace_before_the_list_is_dropped_not_gathered() -> None:
    stream = io.BytesIO(b" \n" * 4_000_000 + b"[]")

    tracemalloc.start()
    try:
        assert list(conversations(stream, "export")) == []
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()

    assert peak < 1_000_000, f"peak {peak:,} bytes for 8 MB of whitespace"
