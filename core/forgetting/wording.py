"""How a forget is told to the user: the same sentences in the terminal, the window and the
assistant's tool result. None of them ever contains a forgotten value."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from core.forgetting.backups import BackupRewrite
from core.forgetting.matching import MIN_DISTINCTIVE_CHARS, PLACEHOLDER
from core.forgetting.preview import PlaceInPreview
from core.forgetting.service import FileCheck, ForgetPreview, ForgetReport, MemoryDeleteReport

_REWRITTEN = ("The database server rewrote every table into new files (VACUUM FULL), so no "
              "table file keeps an old copy, ")
_BEYOND_REACH = ("old write-ahead log segments may hold one until the server reuses them, and "
                 "its WAL archives, replicas and backups are beyond Hearth's reach.")
FILES = {
    FileCheck.VERIFIED: "The database files were searched byte by byte: no copy is left.",
    FileCheck.COMPACTED: "The database files were rebuilt so no free space keeps old bytes "
                         "(a byte search cannot prove more: the value is short, or the same "
                         "characters occur in Hearth's own ids, times or keys).",
    FileCheck.IN_USE: "Another program was using the database, so its files may keep an "
                      "old copy until that program closes it; close other Hearth windows "
                      "and commands.",
    FileCheck.IN_MEMORY: "",
    FileCheck.ON_SERVER: "The database server was told to clear out the old rows (VACUUM), "
                         "but PostgreSQL does not overwrite the space it frees, and its "
                         "write-ahead log, archives and replicas can keep an old copy until "
                         "the server reuses or recycles them; Hearth cannot search the "
                         "server's files. `hearth compact` rewrites the tables so their files "
                         "keep no copy.",
    FileCheck.REWRITTEN_ON_SERVER: _REWRITTEN + "and the server wrote a checkpoint; "
                                   + _BEYOND_REACH,
    FileCheck.KEPT: "It stays where you kept it, so the database files were not searched for "
                    "it; the deleted copies were cleared from the search indexes and the "
                    "database's write-ahead log.",
    FileCheck.REWRITTEN_WITHOUT_CHECKPOINT: _REWRITTEN + "but the server did not let Hearth "
                                            "ask for a checkpoint (that needs a superuser or "
                                            "the pg_checkpoint role), so its write-ahead log "
                                            "keeps a copy at least until its next one; "
                                            + _BEYOND_REACH,
}
COMPACTED_FILE = ("The database file was rebuilt without free space (VACUUM) and its "
                  "write-ahead log emptied.")


def compacted(files: FileCheck) -> str:
    """What ``hearth compact`` did (``ForgetService.compact``)."""
    return COMPACTED_FILE if files is FileCheck.COMPACTED else FILES[files]


def places_list(places: Mapping[str, int]) -> str:
    """``chat messages 3 · memories 2``, most first."""
    return " · ".join(f"{label} {count}"
                      for label, count in sorted(places.items(), key=lambda p: (-p[1], p[0])))


def _values(count: int) -> str:
    earlier = count - 1
    if earlier <= 0:
        return "Its value"
    return f"Its value and {earlier} earlier value{'s' if earlier > 1 else ''}"


def _narrow(searched_everywhere: bool) -> str:
    if searched_everywhere:
        return ""
    return (f" A value shorter than {MIN_DISTINCTIVE_CHARS} characters or as common as “yes” "
            "would match unrelated words, so it was looked for only where this fact was "
            "recorded (the messages it was learned from and what was made of them).")


def redactions(report: ForgetReport | ForgetPreview, *, done: bool = True) -> str:
    """Where the values were (or, for a preview, will be) replaced by the placeholder."""
    subject = _values(report.values)
    narrow = _narrow(report.searched_everywhere)
    several = report.values > 1
    if not report.total:
        verb = ("were" if several else "was") if done else ("are" if several else "is")
        return f"{subject} {verb} kept nowhere else.{narrow}"
    verb = ("were" if several else "was") if done else "will be"
    plural = "s" if report.total > 1 else ""
    return (f"{subject} {verb} replaced by “{PLACEHOLDER}” in {report.total} place{plural}: "
            f"{places_list(report.places)}.{narrow}")


def kept(report: ForgetReport | ForgetPreview) -> str:
    """The places left as they were: another fact's, or unticked by the person. Empty when
    none."""
    places = report.kept if isinstance(report, ForgetReport) else report.unticked
    if not places:
        return ""
    total = sum(places.values())
    verb = "Left as they were" if isinstance(report, ForgetReport) else "Left unless you tick them"
    return f"{verb}: {total} place{'s' if total != 1 else ''} ({places_list(places)})."


CANNOT_UNDO = "An erase cannot be undone."


WHERE_LISTED = 3
"""Places named in a sentence about words left; the rest are counted."""


def words_left(left: Sequence[PlaceInPreview], what: str = "it") -> str:
    """Where the words of deleted memories still are, named: a statement the person reads
    must be true, so a delete never says "no copy is left" while a chat keeps the words."""
    if not left:
        return ""
    named = "; ".join(place.where for place in left[:WHERE_LISTED])
    more = f"; and {len(left) - WHERE_LISTED} more" if len(left) > WHERE_LISTED else ""
    return (f"The same words are still in {len(left)} place{'s' if len(left) != 1 else ''}: "
            f"{named}{more}. Erase {what} everywhere to remove them there too.")


def backups_held(count: int, what: str = "it") -> str:
    if not count:
        return ""
    return (f"{count} backup{'s' if count > 1 else ''} taken before still "
            f"hold{'s' if count == 1 else ''} {what}.")


def rewritten(rewrites: Sequence[BackupRewrite], name: Callable[[Path], str] = str,
              what: str = "it") -> list[str]:
    """What rewriting the backups did: how many lost ``what`` (a fact: "it"; memories:
    "it" or "them"), and why each other one did not."""
    done = sum(rewrite.ok for rewrite in rewrites)
    lines = [f"Removed {what} from {done} backup{'s' if done != 1 else ''}."] if done else []
    return lines + [f"Could not rewrite {name(rewrite.path)}: {rewrite.message}"
                    for rewrite in rewrites if not rewrite.ok]


def unmasked(report: ForgetReport) -> list[str]:
    """The log files that could not be rewritten, which may still hold it."""
    return [f"Could not rewrite {path} (see the log); it may still hold it."
            for path in report.unmasked_logs]


def memories_deleted(report: MemoryDeleteReport, *, backups: bool = True,
                     erased: bool = False) -> list[str]:
    """What a delete (an import's undo) or an erase (``erased``) of memories did, in the
    same sentences everywhere; without the backups line when the caller lists the backups
    itself (``backups=False``)."""
    count = report.deleted
    lines = [f"{'Erased' if erased else 'Deleted'} {count} memor{'y' if count == 1 else 'ies'}."]
    if report.places:
        total = sum(report.places.values())
        lines.append(f"Copies of {'its' if count == 1 else 'their'} words were replaced by "
                     f"“{PLACEHOLDER}” in {total} place{'s' if total != 1 else ''}: "
                     f"{places_list(report.places)}.")
    lines.append(words_left(report.left, "it" if count == 1 else "them"))
    if report.files is not FileCheck.KEPT:
        lines.append(FILES[report.files])
    lines += [f"Could not rewrite {path} (see the log); it may still hold "
              f"{'it' if count == 1 else 'them'}." for path in report.unmasked_logs]
    if backups:
        lines.append(backups_held(len(report.backups), "it" if count == 1 else "them"))
    return [line for line in lines if line]
