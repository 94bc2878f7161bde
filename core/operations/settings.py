"""Reading and saving the settings from the window.

A save is validated against the settings in effect before anything is written, stores only
the fields changed (``core.config.save_settings``, so a hand edit of another field
survives), then updates the running ``Settings`` in place: every service holds that same
object, so the change takes effect without a restart. The change is told on the database's
change feed, which every view follows. A ``database_url`` is saved without its password,
which goes to the system keyring or the data folder's pass file
(``core.config.database_password``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from core.config import Settings, save_settings
from core.config.database_password import as_entered, keep_password_out
from core.errors import HearthError
from core.operations.changes import Changes, Domain
from core.config.database_url import MASK, masked, parsed
from core.home.paths import resolve_home

if TYPE_CHECKING:
    from core.app import Hearth

__all__ = ["MODEL_FIELDS", "data_folder", "RESTART_FIELDS", "Saved", "database_url_entered",
           "database_url_shown", "read", "save"]

MODEL_FIELDS = frozenset({"llm_provider", "ollama_host", "ollama_model", "embedded_model_path",
                          "model_jobs"})
"""Fields that choose the language model: the assistant is rebuilt when one changes."""
RESTART_FIELDS = frozenset({"database_url"})
"""Fields read once at start: saved at once, in effect from the next start."""


@dataclass(frozen=True)
class Saved:
    """The fields a save changed, and what that means for the window."""

    fields: frozenset[str]
    changes: Changes
    password_kept_in: str | None = None
    """Where the password of a new ``database_url`` went (never ``settings.json``:
    ``core.config.database_password``), to be said; None when it had none."""

    @property
    def model_changed(self) -> bool:
        return not self.fields.isdisjoint(MODEL_FIELDS)

    @property
    def restart_needed(self) -> bool:
        return not self.fields.isdisjoint(RESTART_FIELDS)


def database_url_shown(settings: Settings, home: Path) -> str:
    """The ``database_url`` a form shows: as it was entered, its password masked, whether
    the URL carries it or it is kept for it (the keyring, the data folder ``home``'s pass
    file); empty for the default."""
    url = as_entered(settings.database_url, home)
    return masked(url) if url else ""


def database_url_entered(text: str, settings: Settings, home: Path) -> str | None:
    """The ``database_url`` a form's ``text`` means: None when empty; the stored URL where
    the text is still what the form showed; the password kept for it where the text still
    shows it masked (a host or name edited beside it). ``save`` keeps it out of the file."""
    text = text.strip()
    if not text:
        return None
    stored = settings.database_url
    if stored and text == database_url_shown(settings, home):
        return stored
    if stored and MASK in text:
        try:
            entered, before = parsed(text), parsed(as_entered(stored, home) or stored)
        except HearthError:
            return text  # validation names the problem when it is saved
        if entered.password == MASK and before.password:
            return entered.set(password=before.password).render_as_string(
                hide_password=False)
    return text


def read(hearth: Hearth) -> Settings:
    """A copy of the settings in effect, for a form to fill itself from."""
    return hearth.settings.model_copy(deep=True)


SCHEDULE_SETTINGS = frozenset({"dream_time", "daily_briefing", "daily_briefing_time"})
"""Settings that change a job's trigger: saving one reschedules."""


def save(hearth: Hearth, **changes: object) -> Saved:
    """Validate and store ``changes`` (field name to value), then apply them. Raises
    ``pydantic.ValidationError`` for a value out of range and ``HearthError`` when the
    settings file cannot be written; nothing is applied then."""
    updated = hearth.settings.model_validate({**hearth.settings.model_dump(), **changes})
    values = {name: getattr(updated, name) for name in changes}
    kept_in = None
    if "database_url" in values:  # its password goes to the keyring or the pass file
        kept = keep_password_out(values["database_url"], hearth.paths.home)
        values["database_url"], kept_in = kept.url, kept.place
    save_settings(hearth.paths, values)
    for name, value in values.items():
        setattr(hearth.settings, name, value)
    domains = {Domain.SETTINGS}
    if changes.keys() & SCHEDULE_SETTINGS:
        domains.add(Domain.SCHEDULE)
    saved = Saved(frozenset(changes), Changes(frozenset(domains)), kept_in)
    hearth.storage.changes.publish(saved.changes)  # a file, not the database: told by hand
    return saved


def data_folder(chosen: Path | str | None = None) -> Path:
    """The data folder the window opens: the one chosen, else ``HEARTH_HOME``, else the
    platform's user data folder (``core.home.paths.resolve_home``)."""
    return resolve_home(chosen)
