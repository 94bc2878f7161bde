"""A chat export is read within bounds: a zip member that would unpack to far more than it
packs is refused before it is read, a single value too long to parse in good time refuses
the file as it is read, a text past ``MAX_TEXT_CHARS`` is cut and said so, and a zip with
two ``conversations.json`` names both. The large cases read the file in a child process
under a memory limit and a time limit, so that a reader without the bounds fails the test
instead of taking the machine."""

from __future__ import annotations

import json
import os
import resource
import struct
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from sqlalchemy import select

from core.errors import InvalidInputError
from core.knowledge.memories import MemoryService
from core.storage.orm import Memory
from core.transfer.chat_export import MAX_TEXT_CHARS, check_export, import_chat_export
from core.transfer.chatgpt import CHATGPT

PROJECT_ROOT = Path(__file__).resolve().parents[3]
CHILD_MEMORY = 1536 * 1024 * 1024
CHILD_SECONDS = 90
"""Reading a bounded file takes the child a few seconds; the 400 MB message took more than
15 minutes before the bounds."""
CHECK_EXPORT = """
import sys
from pathlib import Path
from core.errors import InvalidInputError
from core.transfer.chat_export import check_export
from core.transfer.chatgpt import CHATGPT
try:
    check_export(Path(sys.argv[1]), CHATGPT)
except InvalidInputError as exc:
    print(exc.message)
    sys.exit(1)
print("read")
"""
HOLE = "@@TEXT@@"


@pytest.fixture
def memories(storage, embedder) -> MemoryService:
    return MemoryService(storage, embedder)


def export_around(text: str = HOLE) -> str:
    """A ChatGPT export of one conversation whose one message says ``text``."""
    return json.dumps([{
        "id": "c1", "title": "Big", "create_time": 1700000000.0, "current_node": "m1",
        "mapping": {"m1": {"parent": None, "message": {
            "id": "m1", "author": {"role": "user"}, "create_time": 1700000001.0,
            "content": {"content_type": "text", "parts": [text]}}}}}])


def write_long_message(out, block: bytes, size: int) -> None:
    """The export with a message of ``size`` bytes of ``block`` repeated, written to
    ``out`` a block at a time."""
    before, after = export_around().split(HOLE)
    out.write(before.encode())
    for _ in range(size // len(block)):
        out.write(block)
    out.write(after.encode())


def limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (CHILD_MEMORY, CHILD_MEMORY))


def check_in_child(path: Path) -> subprocess.CompletedProcess[str]:
    """``check_export`` of ``path`` in a child limited in memory and time."""
    return subprocess.run(
        [sys.executable, "-c", CHECK_EXPORT, str(path)], capture_output=True, text=True,
        timeout=CHILD_SECONDS, cwd=PROJECT_ROOT, preexec_fn=limit_memory, check=False,
        env={**os.environ, "PYTHONPATH": str(PROJECT_ROOT), "OPENBLAS_NUM_THREADS": "1"})


def test_a_zip_bomb_is_refused_before_it_is_unpacked(tmp_path) -> None:
    bomb = tmp_path / "chatgpt-export.zip"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as archive, archive.open(
            "conversations.json", "w", force_zip64=True) as member:
        write_long_message(member, b"lorem ipsum " * 65536, 400_000_000)
    assert bomb.stat().st_size < 1_000_000

    child = check_in_child(bomb)

    assert child.returncode == 1, child.stderr[-2000:]
    message = " ".join(child.stdout.split())
    assert message.startswith(f"conversations.json in {bomb} would unpack to 399,")
    assert "times its packed size" in message and "Hearth does not unpack it." in message


@pytest.mark.parametrize("block", [b"lorem ipsum ", b'she said \\"yes\\" ' + b"x" * 1000],
                         ids=["plain", "escaped-quotes"])
def test_a_value_too_long_to_parse_refuses_the_file_as_it_is_read(tmp_path, block) -> None:
    export = tmp_path / "conversations.json"
    with export.open("wb") as out:
        write_long_message(out, block, 48_000_000)

    child = check_in_child(export)

    assert child.returncode == 1, child.stderr[-2000:]
    assert " ".join(child.stdout.split()).startswith(
        f"{export} holds a single value longer than 32 MB (within its first 33,")


def test_a_member_is_not_read_past_its_declared_size(tmp_path) -> None:
    """A member whose central directory understates its size (so it passes the ratio)
    is read only as far as declared: zipfile stops there and checks its CRC."""
    lying = tmp_path / "export.zip"
    with zipfile.ZipFile(lying, "w", zipfile.ZIP_DEFLATED) as archive, archive.open(
            "conversations.json", "w") as member:
        write_long_message(member, b"lorem ipsum " * 65536, 40_000_000)
    data = bytearray(lying.read_bytes())
    central = data.rindex(b"PK\x01\x02")
    struct.pack_into("<I", data, central + 24, 4096)  # its uncompressed size
    lying.write_bytes(bytes(data))

    child = check_in_child(lying)

    assert child.returncode == 1, child.stderr[-2000:]
    assert "cannot be read to its end (Bad CRC-32" in " ".join(child.stdout.split())


def test_two_conversations_json_in_a_zip_are_named_and_refused(tmp_path) -> None:
    archive_path = tmp_path / "two.zip"
    with zipfile.ZipFile(archive_path, "w") as archive:
        archive.writestr("conversations.json", export_around("first"))
        archive.writestr("older/conversations.json", export_around("second"))

    with pytest.raises(InvalidInputError) as refused:
        check_export(archive_path, CHATGPT)

    assert refused.value.message == (
        f"{archive_path} holds 2 files named conversations.json (conversations.json, "
        "older/conversations.json), and Hearth imports one export at a time.")


def test_a_text_past_the_limit_is_cut_and_the_report_says_so(tmp_path, storage,
                                                             memories) -> None:
    # words longer than the tokenizer's longest are one token each: few windows to embed
    words = ("x" * 150 + " ") * (MAX_TEXT_CHARS // 151 + 3000)
    export = tmp_path / "conversations.json"
    export.write_text(export_around(words.strip()), encoding="utf-8")

    report = import_chat_export(export, CHATGPT, storage, memories)

    assert (report.turns, report.cut) == (1, 1)
    assert report.warnings() == [
        "1 message or attached file was longer than 2,000,000 characters: only the first "
        "2,000,000 are kept (the memory's origin says how long it was)."]
    with storage.read() as session:
        memory = session.scalars(select(Memory)).one()
        assert len(memory.content) == len("User: ") + MAX_TEXT_CHARS
        assert memory.origin["cut_from"] == len(words.strip())
