"""The notes of a folder, found and read without ever leaving it.

A vault is often a folder others can write to (a shared or synced vault, a cloned
repository), and a symbolic link in it can point anywhere: ``recipes.md ->
~/.ssh/id_ed25519`` would be read as a note, kept as a memory and shown to every agent
allowed to search. So the folder is taken by its real path (the user may name it through
a link), and every path under it is resolved to its end (a link to a link included)
before anything is read:

* a linked folder is never entered: one that leads outside the folder is reported, one
  that stays inside is left alone (its notes are read where they are);
* a linked note is read only if it leads to a file inside the folder; one that leads
  outside, or nowhere, is reported;
* a note is opened by its resolved path without following a link there (``O_NOFOLLOW``)
  or waiting on a pipe (``O_NONBLOCK``), and read only if what was opened is a regular
  file, so a link put in its place after the check is not followed either.

Every file not read is reported with the reason, as a clause (:class:`Unreadable`, and
``Listing.refused``); the caller skips it and imports the rest.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from core.errors import InvalidInputError

NOTE_SUFFIX = ".md"
OUTSIDE = "it is a link to a file outside the folder"
OUTSIDE_FOLDER = "it is a link to a folder outside the notes folder, which was not read"
NOWHERE = "it is a link that leads nowhere"
NOT_A_FILE = "it is not a regular file"
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)


class Unreadable(Exception):
    """A note that is not read, and why, as a clause (``it is not a regular file``)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class Listing:
    """What a folder holds: its notes' paths (relative, with ``/``, in order), and the
    files and folders not read because of where they lead, each with the reason."""

    notes: list[str]
    refused: list[tuple[str, str]]


def list_notes(root: Path) -> Listing:
    """Every ``*.md`` file under ``root`` (a resolved path), skipping folders and files
    whose name starts with a dot (``.obsidian``, ``.trash``, ``.git``); see the module
    docstring for links. Sorted as paths are, part by part."""
    notes: list[str] = []
    refused: list[tuple[str, str]] = []
    folders = [""]
    while folders:
        prefix = folders.pop()
        try:
            with os.scandir(root / prefix) as entries:
                found = [(entry, entry.is_symlink()) for entry in entries
                         if not entry.name.startswith(".")]
        except OSError as exc:
            if not prefix:
                raise InvalidInputError(f"Hearth cannot read the folder {root} "
                                        f"({exc.strerror or exc}).",
                                        "Check the folder's permissions.") from exc
            refused.append((prefix.rstrip("/"), f"it is a folder that cannot be read "
                                                 f"({exc.strerror or exc})"))
            continue
        for entry, linked in found:
            relative = prefix + entry.name
            is_note = entry.name.endswith(NOTE_SUFFIX)
            if linked:
                reason = _link_problem(root, Path(entry.path), is_note)
                if reason is not None:
                    refused.append((relative, reason))
                elif is_note:
                    notes.append(relative)
            elif entry.is_dir(follow_symlinks=False):
                folders.append(relative + "/")
            elif is_note and entry.is_file(follow_symlinks=False):
                notes.append(relative)
    notes.sort(key=lambda path: path.split("/"))
    refused.sort(key=lambda item: item[0].split("/"))
    return Listing(notes, refused)


def _link_problem(root: Path, link: Path, is_note: bool) -> str | None:
    """Why the link ``link`` is not read (None: a note inside the folder, to read, or
    something that is no note and leads nowhere harmful, to pass over quietly)."""
    try:
        target = Path(os.path.realpath(link, strict=True))
    except OSError:
        return NOWHERE if is_note else None
    inside = target.is_relative_to(root)
    if target.is_dir():
        return None if inside else OUTSIDE_FOLDER
    if not is_note or inside:
        return None
    return OUTSIDE


def read_note(root: Path, relative: str) -> tuple[bytes, float]:
    """The bytes of the note ``relative`` (as :func:`list_notes` gave it) and its
    modification time, or :class:`Unreadable` if it does not lead to a regular file
    inside ``root``."""
    path = root / relative
    try:
        real = Path(os.path.realpath(path, strict=True))
    except OSError as exc:
        raise Unreadable(NOWHERE if path.is_symlink() else _cannot(exc)) from exc
    if not real.is_relative_to(root):
        raise Unreadable(OUTSIDE)
    try:
        handle = os.open(real, _OPEN_FLAGS)
    except OSError as exc:
        raise Unreadable(_cannot(exc)) from exc
    with open(handle, "rb") as file:
        status = os.fstat(file.fileno())
        if not stat.S_ISREG(status.st_mode):
            raise Unreadable(NOT_A_FILE)
        try:
            return file.read(), status.st_mtime
        except OSError as exc:
            raise Unreadable(_cannot(exc)) from exc


def _cannot(exc: OSError) -> str:
    return f"it cannot be read ({exc.strerror or exc})"
