"""The settings' "Data" tab: where Hearth keeps its data, a backup now, moving everything out
of and into Hearth as one JSON file (``core.operations.data``), and, for those who run
their own database server, which database holds the memory (``database_url``, advanced).

The data folder is chosen for the next start (see ``desktop.dialogs.locations``); nothing
is moved, so the way to take the data along is Export here, then Import in the new, empty
folder. An encrypted folder's export is a plain file: it is written only once the person
agrees to that in a question naming the file. An encrypted folder is chosen only once its
passphrase opens it, in the same dialog as at the start (``desktop.dialogs.passphrase``):
Cancel keeps the folder chosen before, and says so. Backups, exports and imports run in
workers with progress; an import re-embeds what it restored (exports carry no vectors) and
can be stopped, the rows staying. An export is readable by the user alone, and says so when
the chosen place lets others read or replace it.
"""

from __future__ import annotations

from datetime import date
from html import escape
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QFileDialog,
    QGroupBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from core.config import Settings
from core.operations import data, folder_lock
from core.operations.settings import data_folder, database_url_entered, database_url_shown
from core.operations.data import BackupInfo, Exported, Imported
from desktop.context import AppContext
from desktop.dialogs import locations
from desktop.dialogs.owned_tasks import OwnedTasks
from desktop.dialogs.passphrase import ask_to_unlock
from desktop.dialogs.settings_form import (
    Changes,
    Problems,
    SettingsSection,
    data_size,
    muted_label,
    show_status,
)
from desktop.dialogs.task_progress import Describe, TaskProgress
from desktop.confirm import ask
from desktop.words import count, listing
from desktop.workers import Job, Task

FOLDER_FIELD = "data_folder"
"""Not a ``Settings`` field: the choice is stored by ``locations``."""
EXPORT_FILTER = "Hearth exports (*.json);;All files (*)"
DATABASE_HELP = (
    "Advanced. Leave empty: Hearth keeps everything in a SQLite file in the data folder, "
    "which needs no setting up. To keep it on your own PostgreSQL server instead, enter its "
    "address, like postgresql://user:password@localhost/hearth. The password is never "
    "shown. A change takes effect the next time Hearth starts, and this field alone copies "
    "nothing: to take what Hearth knows along, quit Hearth and run "
    "hearth migrate --to ADDRESS --switch (docs/home-server.md).")
PLAIN_EXPORT = (
    "This data folder is encrypted, but an export is not: {path} will be a plain JSON file "
    "with everything Hearth knows, readable by anyone who gets a copy of it.\n\n"
    "Write it unencrypted? (Back up now keeps an encrypted copy instead.)")


NAMED_TABLES = (("chat_sessions", "chat", None), ("interactions", "exchange", None),
                ("user_facts", "fact", None), ("memories", "memory", "memories"),
                ("notes", "note", None))
"""The tables of an export a person would count, and what to call their rows."""


def contents(counts: dict[str, int]) -> str:
    """What an export or import held, in things a person counts ("3 chats, 40 exchanges,
    12 facts and 25 other records"), not in database rows ("Exported 16 rows")."""
    parts, named = [], 0
    for table, one, many in NAMED_TABLES:
        if number := counts.get(table, 0):
            parts.append(count(number, one, many))
            named += number
    if rest := sum(counts.values()) - named:
        parts.append(count(rest, "other record"))
    return listing(parts) or "nothing (the data folder was empty)"


class DataSection(SettingsSection):
    title = "Data"

    def __init__(self, ctx: AppContext, tasks: OwnedTasks, parent: QWidget | None = None,
                 ) -> None:
        super().__init__(ctx, tasks, parent)
        self._next_home: Path | None = locations.chosen_home()
        self._build_folder_box()
        self._build_backup_box()
        self._build_transfer_box()
        self._build_database_box()
        column = QVBoxLayout(self)
        for box in (self.folder_box, self.backup_box, self.transfer_box, self.database_box):
            column.addWidget(box)
        column.addStretch(1)

    # --- building ----------------------------------------------------------------------------

    def _build_folder_box(self) -> None:
        self.folder_box = QGroupBox("Data folder")
        column = QVBoxLayout(self.folder_box)
        current = QLabel(f"In use: <b>{escape(str(self.ctx.hearth.paths.home))}</b>")
        current.setWordWrap(True)
        current.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.next_folder = muted_label()
        self.next_folder.setObjectName("next-data-folder")
        change = QPushButton("&Change…")
        change.clicked.connect(self._choose_folder)
        default = QPushButton("Use the &default")
        default.clicked.connect(lambda: self.choose_folder(None))
        buttons = QHBoxLayout()
        buttons.addWidget(change)
        buttons.addWidget(default)
        buttons.addStretch(1)
        for widget in (current, self.next_folder):
            column.addWidget(widget)
        column.addLayout(buttons)
        column.addWidget(self.error_label(FOLDER_FIELD))

    def _build_backup_box(self) -> None:
        self.backup_box = QGroupBox("Backup")
        column = QVBoxLayout(self.backup_box)
        column.addWidget(muted_label(
            f"A checked copy of the database in {self.ctx.hearth.paths.backups}. Hearth also "
            f"backs up before its own maintenance and keeps the newest "
            f"{self.ctx.settings.backups_to_keep}."))
        self.backup_button = QPushButton("&Back up now")
        self.backup_button.clicked.connect(self.backup_now)
        row = QHBoxLayout()
        row.addWidget(self.backup_button)
        row.addStretch(1)
        column.addLayout(row)
        self.backup_progress = TaskProgress(self.ctx.hub.status_message.emit)
        column.addWidget(self.backup_progress)

    def _build_transfer_box(self) -> None:
        self.transfer_box = QGroupBox("Export and import")
        column = QVBoxLayout(self.transfer_box)
        column.addWidget(muted_label(
            "Export writes everything Hearth knows to one JSON file you can read or keep. "
            "Import restores such a file into an empty data folder: choose a new folder "
            "above, restart Hearth, then import."))
        self.export_button = QPushButton("&Export…")
        self.export_button.clicked.connect(self._choose_export)
        self.import_button = QPushButton("&Import…")
        self.import_button.clicked.connect(self._choose_import)
        row = QHBoxLayout()
        row.addWidget(self.export_button)
        row.addWidget(self.import_button)
        row.addStretch(1)
        column.addLayout(row)
        self.transfer_progress = TaskProgress(self.ctx.hub.status_message.emit)
        self.transfer_progress.finished.connect(lambda _ok: self._set_transfer_enabled(True))
        column.addWidget(self.transfer_progress)

    def _build_database_box(self) -> None:
        self.database_box = QGroupBox("Database (advanced)")
        form = QFormLayout(self.database_box)
        self.database_url = QLineEdit()
        self.database_url.setObjectName("database_url")
        self.database_url.setPlaceholderText("empty: SQLite in the data folder")
        self.add_row(form, "Database &URL:", self.database_url, field="database_url",
                     help_text=DATABASE_HELP)

    # --- SettingsSection ---------------------------------------------------------------------

    def load(self, settings: Settings) -> None:
        self._next_home = locations.chosen_home()
        self._show_next_folder()
        self.database_url.setText(database_url_shown(settings, self.ctx.hearth.paths.home))

    def collect(self) -> tuple[Changes, Problems]:
        problem = locations.folder_problem(self._next_home) if self._next_home else None
        url = database_url_entered(self.database_url.text(), self.ctx.settings,
                                   self.ctx.hearth.paths.home)
        return {"database_url": url}, {FOLDER_FIELD: problem} if problem else {}

    def commit(self) -> None:
        if self._next_home != locations.chosen_home():
            locations.choose_home(self._next_home)
        self._show_next_folder()

    # --- the data folder ---------------------------------------------------------------------

    def _choose_folder(self) -> None:
        start = self._next_home or self.ctx.hearth.paths.home
        chosen = QFileDialog.getExistingDirectory(self, "Choose the data folder",
                                                  str(start.parent))
        if chosen:
            self.choose_folder(Path(chosen))

    def choose_folder(self, folder: Path | None) -> None:
        """Use ``folder`` (None: the default) from the next start, once settings are saved;
        an encrypted one only if its passphrase is typed (or its key found)."""
        target = folder or data_folder(None)
        if target != self.ctx.hearth.paths.home and not ask_to_unlock(target, self):
            kept = self._next_home or data_folder(None)
            self.set_error(FOLDER_FIELD, "")
            self._show_next_folder(f"{target} is encrypted and stays locked, so it was not "
                                   f"chosen: Hearth keeps {kept}.")
            return
        self._next_home = folder
        problem = locations.folder_problem(folder) if folder else None
        self.set_error(FOLDER_FIELD, problem or "")
        self._show_next_folder()

    def _show_next_folder(self, before: str = "") -> None:
        """Which folder the next start opens, after ``before`` (why a choice was refused)."""
        next_home = self._next_home or data_folder(None)
        if next_home == self.ctx.hearth.paths.home:
            text = "Hearth opens this folder at the next start too."
        else:
            text = (f"From the next start: <b>{escape(str(next_home))}</b>. Nothing is "
                    "moved; export here and import there to take your data along.")
            if folder_lock.is_encrypted(next_home):
                text += " It is encrypted: Hearth asks for its passphrase when it starts."
        if before:
            text = f"{escape(before)} {text}"
        overridden = locations.overridden_by()
        if overridden:
            text += f" (For now {overridden} decides the folder, whatever is chosen here.)"
        self.next_folder.setText(text)

    # --- backup, export, import --------------------------------------------------------------

    def backup_now(self) -> Task:
        hearth = self.ctx.hearth

        def describe(made: BackupInfo) -> str:
            return f"Backed up: {data.backup_words(made.path)} ({data_size(made.size_bytes)})."

        self.backup_button.setEnabled(False)
        task = self.tasks.start("Backing up", lambda _task: data.backup(hearth))
        self.backup_progress.follow(task, "Backing up…", describe, stoppable=False)
        task.finished.connect(lambda: self.backup_button.setEnabled(True))
        return task

    def _choose_export(self) -> None:
        suggested = Path.home() / f"hearth-export-{date.today():%Y-%m-%d}.json"
        chosen, _filter = QFileDialog.getSaveFileName(self, "Export everything to",
                                                      str(suggested), EXPORT_FILTER)
        if chosen:
            self.export_to(Path(chosen))

    def export_to(self, path: Path) -> Task | None:
        """Export to ``path``; the sentence after it warns when other users of the computer
        could read or replace the file there (``Exported.warning``). From an encrypted
        folder, only once the person agrees to a plain file (None: declined, nothing
        written)."""
        hearth = self.ctx.hearth
        plain = folder_lock.is_encrypted(hearth.paths.home)
        if plain and not ask(self, "Export without encryption?",
                             PLAIN_EXPORT.format(path=path), "Export &unencrypted"):
            show_status(self.transfer_progress.result, f"Nothing was exported: {path.name} "
                        "was not written.")
            return None

        def describe(exported: Exported) -> str:
            return " ".join(filter(None, (f"Exported {contents(exported.counts)} to {path}.",
                                          exported.warning)))

        return self._transfer(f"Exporting to {path}…",
                              lambda _task: data.export(hearth, path, plain=plain),
                              describe, stoppable=False)

    def _choose_import(self) -> None:
        chosen, _filter = QFileDialog.getOpenFileName(self, "Import an export",
                                                      str(Path.home()), EXPORT_FILTER)
        if chosen:
            self.import_from(Path(chosen))

    def import_from(self, path: Path) -> Task:
        hearth = self.ctx.hearth

        def job(task: Task) -> Imported:
            return data.import_file(hearth, path,
                                    progress=lambda done, total: task.progress(
                                        done, total, f"Embedding {done:,} of {total:,}…"),
                                    cancelled=lambda: task.cancelled)

        def describe(imported: Imported) -> str:
            if imported.stopped_at is not None:
                done, total = imported.stopped_at
                return (f"Imported {path.name}, but stopped embedding after {done:,} of "
                        f"{total:,}: rebuild the vectors on the Embeddings tab.")
            return f"Imported {contents(imported.counts)} from {path.name}."

        return self._transfer(f"Importing {path}…", job, describe)

    def _transfer(self, doing: str, job: Job, describe: Describe = str, *,
                  stoppable: bool = True) -> Task:
        self._set_transfer_enabled(False)
        task = self.tasks.start(doing.rstrip("…"), job)
        self.transfer_progress.follow(task, doing, describe, stoppable=stoppable)
        return task

    def _set_transfer_enabled(self, enabled: bool) -> None:
        self.export_button.setEnabled(enabled)
        self.import_button.setEnabled(enabled)
