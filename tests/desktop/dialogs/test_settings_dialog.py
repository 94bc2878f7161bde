"""The settings dialog: values persist across a restart, bad input is explained next to its
field and saves nothing, Ollama's models are listed and pulled (the real ``ollama`` client
against the fake server), and backup, export/import, the data folder, the embedding folder
and the vector rebuild really happen."""

from __future__ import annotations

import json
import shutil
import stat
from collections.abc import Iterator

import pytest
from support.hub_changes import touching
from support.qt_waits import wait_for_task, wait_idle
from pydantic_core import ValidationError
from PySide6.QtWidgets import QLabel
from PySide6.QtCore import Qt, QTime
from sqlalchemy.engine import make_url

from core.app import Hearth
from core.storage.backups import list_backups, taken_at
from core.config import DEFAULT_EMBEDDING_MODEL_DIR, Settings
from core.embedding.reembed import count_needing_embedding
from core.storage.orm import Memory
from core.storage.port import IndexedKind
from desktop.context import AppContext
from desktop.dialogs import locations
from desktop.dialogs.settings import SettingsDialog
from desktop.dialogs.settings_data_page import DataSection
from desktop.dialogs.settings_embedding_page import EmbeddingSection
from desktop.dialogs.settings_form import ERROR_COLOUR, field_messages
from desktop.dialogs.settings_general_page import GeneralSection
from desktop.dialogs.settings_model_page import ModelSection
from desktop.status import CHOOSE_MODEL, StatusBar
from desktop.dialogs.settings_privacy_page import PrivacySection, parse_exclusions
from support.fake_ollama import FakeModel, FakeOllama
from support.scripted_llm import ScriptedLLM


@pytest.fixture
def ollama() -> Iterator[FakeOllama]:
    with FakeOllama(models=["llama3.2:3b", FakeModel("qwen2.5:7b", size=4_683_087_332)],
                    pull_steps=5, pull_delay=0.05) as server:
        yield server


@pytest.fixture
def ctx(make_ctx, ollama: FakeOllama) -> AppContext:
    """A context whose settings point at the fake Ollama (no request leaves 127.0.0.1)."""
    made = make_ctx()
    made.save_settings(ollama_host=ollama.url)
    return made


def open_dialog(qtbot, ctx: AppContext) -> SettingsDialog:
    """The dialog after its background loading (models, vector counts) has finished."""
    dialog = SettingsDialog(ctx)
    qtbot.addWidget(dialog)
    wait_idle(qtbot, ctx)
    return dialog


def model_tab(dialog: SettingsDialog) -> ModelSection:
    section = dialog.section("Model")
    assert isinstance(section, ModelSection)
    return section


def data_tab(dialog: SettingsDialog) -> DataSection:
    section = dialog.section("Data")
    assert isinstance(section, DataSection)
    return section


def embedding_tab(dialog: SettingsDialog) -> EmbeddingSection:
    section = dialog.section("Search")
    assert isinstance(section, EmbeddingSection)
    return section


def stored_settings(ctx: AppContext) -> dict:
    return json.loads(ctx.hearth.paths.settings_file.read_text(encoding="utf-8"))


# --- saving ----------------------------------------------------------------------------------


def test_changed_settings_persist_across_a_restart(qtbot, make_ctx, ctx) -> None:
    dialog = open_dialog(qtbot, ctx)
    general = dialog.section("General")
    assert isinstance(general, GeneralSection)
    general.dream_time.setTime(QTime(3, 30))
    assert not general.briefing.isChecked() and not general.briefing_time.isEnabled()
    general.briefing.setChecked(True)
    assert general.briefing_time.isEnabled()
    general.briefing_time.setTime(QTime(7, 15))
    general.quiet.setValue(45)
    general.history.setValue(4000)
    general.context.setValue(1500)
    shown = " ".join(label.text() for label in general.findChildren(QLabel))
    assert "about 3,000 words" in shown and "about 1,120 words" in shown
    assert "token" not in shown.lower() and "token" not in general.history.text()
    general.tray.setChecked(False)
    model = model_tab(dialog)
    model.provider.setCurrentIndex(model.provider.findData("embedded"))
    model.model.setEditText("qwen2.5:7b")

    assert dialog.apply()
    wait_idle(qtbot, ctx)  # the assistant is rebuilt for the new provider
    assert dialog.outcome.text() == "Saved."
    ctx.close()

    reopened = make_ctx()
    settings = reopened.settings
    assert (settings.dream_time, settings.session_quiet_minutes) == ("03:30", 45)
    assert (settings.history_token_budget, settings.context_token_budget) == (4000, 1500)
    assert settings.keep_running_in_tray is False
    assert (settings.daily_briefing, settings.daily_briefing_time) == (True, "07:15")
    assert (settings.llm_provider, settings.ollama_model) == ("embedded", "qwen2.5:7b")
    again = open_dialog(qtbot, reopened)
    assert again.section("General").dream_time.time() == QTime(3, 30)  # type: ignore[attr-defined]
    assert model_tab(again).model.currentText() == "qwen2.5:7b"


def test_a_new_model_rebuilds_the_assistant_without_a_restart(qtbot, make_ctx,
                                                              ollama: FakeOllama) -> None:
    built: list[str] = []

    def provider() -> ScriptedLLM:
        built.append("provider")
        return ScriptedLLM()

    ctx = make_ctx(provider_factory=provider)
    ctx.save_settings(ollama_host=ollama.url)
    dialog = open_dialog(qtbot, ctx)
    model_tab(dialog).model.setEditText("qwen2.5:7b")
    with qtbot.waitSignal(ctx.hub.assistant_ready, timeout=60_000):
        assert dialog.apply()
    assert built and ctx.assistant is not None


def test_only_what_the_user_changed_is_stored(qtbot, make_ctx, ollama,
                                             monkeypatch) -> None:
    """An environment override stays temporary, and defaults (absolute model paths among
    them) are not frozen into settings.json: a later version's defaults still apply."""
    monkeypatch.setenv("HEARTH_OLLAMA_MODEL", "qwen2.5:7b")
    ctx = make_ctx()
    ctx.save_settings(ollama_host=ollama.url)
    assert ctx.settings.ollama_model == "qwen2.5:7b"
    dialog = open_dialog(qtbot, ctx)
    general = dialog.section("General")
    assert isinstance(general, GeneralSection)
    general.quiet.setValue(45)

    assert dialog.apply()

    assert stored_settings(ctx) == {"ollama_host": ollama.url, "session_quiet_minutes": 45}
    assert (ctx.settings.session_quiet_minutes, ctx.settings.ollama_model) == (45, "qwen2.5:7b")
    assert stat.S_IMODE(ctx.hearth.paths.settings_file.stat().st_mode) == 0o600
    model_tab(dialog).model.setEditText("llama3.2:1b")  # now the user chooses it here
    assert dialog.apply()
    assert stored_settings(ctx)["ollama_model"] == "llama3.2:1b"


def test_a_settings_file_broken_meanwhile_is_a_sentence_not_overwritten(
        qtbot, ctx) -> None:
    dialog = open_dialog(qtbot, ctx)
    ctx.hearth.paths.settings_file.write_text('{"session_quiet_minutes": ', encoding="utf-8")
    dialog.section("General").quiet.setValue(45)  # type: ignore[attr-defined]

    assert not dialog.apply()

    assert "is not valid JSON" in dialog.outcome.text()
    assert "Nothing was changed" in dialog.outcome.text()
    assert ctx.hearth.paths.settings_file.read_text(encoding="utf-8").endswith(": ")


def test_invalid_input_is_explained_next_to_its_field_and_nothing_is_saved(
        qtbot, ctx) -> None:
    before = stored_settings(ctx)
    dialog = open_dialog(qtbot, ctx)
    dialog.tabs.setCurrentIndex(dialog.tabs.count() - 1)
    general = dialog.section("General")
    general.quiet.setValue(90)  # type: ignore[attr-defined]
    model = model_tab(dialog)
    model.host.setText("ftp://my-server")
    model.gguf.setText(str(ctx.hearth.paths.home / "missing.gguf"))
    privacy = dialog.section("Privacy")
    privacy.exclusions.setPlainText("salary\n!!!\n")  # type: ignore[attr-defined]

    assert not dialog.apply()

    assert "is not a usable address" in model.error_text("ollama_host")
    assert "does not exist" in model.error_text("embedded_model_path")
    assert "“!!!” has no letters or digits" in privacy.error_text("exclusions")
    assert ERROR_COLOUR in model.error_label("ollama_host").styleSheet()
    assert dialog.current_section() is model  # the first tab with a problem is in front
    assert stored_settings(ctx) == before
    assert ctx.settings.session_quiet_minutes == Settings().session_quiet_minutes

    model.host.setText(ctx.settings.ollama_host or "")
    model.gguf.setText(str(ctx.settings.embedded_model_path))
    privacy.exclusions.setPlainText("salary")  # type: ignore[attr-defined]
    assert dialog.apply()
    assert model.error_text("ollama_host") == ""
    assert stored_settings(ctx)["session_quiet_minutes"] == 90


def test_validation_errors_become_sentences() -> None:
    with pytest.raises(ValidationError) as caught:
        Settings.model_validate({"dream_time": "25:00", "session_quiet_minutes": 0,
                                 "llm_provider": "cloud"})
    messages = field_messages(caught.value)
    assert messages["session_quiet_minutes"] == "Use a value of at least 1."
    assert messages["dream_time"] == "This value is not in the expected format."
    assert messages["llm_provider"].startswith("Choose one of 'auto', 'ollama'")


def test_exclusions_are_saved_one_per_line(qtbot, ctx) -> None:
    dialog = open_dialog(qtbot, ctx)
    privacy = dialog.section("Privacy")
    assert isinstance(privacy, PrivacySection)
    privacy.exclusions.setPlainText("Salary\n   mental    health  \nsalary\n\nmy ex\n")

    assert dialog.apply()

    assert ctx.settings.exclusions == ["Salary", "mental health", "my ex"]
    assert stored_settings(ctx)["exclusions"] == ["Salary", "mental health", "my ex"]
    assert parse_exclusions("a\n--\n") == (["a"], ["--"])


# --- Ollama ----------------------------------------------------------------------------------


def test_installed_models_are_listed_from_the_server(qtbot, ctx, ollama) -> None:
    dialog = open_dialog(qtbot, ctx)
    model = model_tab(dialog)

    names = {model.installed.model_at(row).name for row in range(model.installed.rowCount())}
    assert names == {"llama3.2:3b", "qwen2.5:7b"}
    assert [model.model.itemText(i) for i in range(model.model.count())] == \
        ["llama3.2:3b", "qwen2.5:7b"]
    assert "Ollama 0.6.8" in model.ollama_state.text()
    assert "2 models installed" in model.ollama_state.text()
    sizes = {model.installed.index(row, 1).data() for row in range(2)}
    assert sizes == {"2.0 GB", "4.7 GB"}
    assert ollama.requests_to("/api/tags")


def test_another_address_is_checked_before_it_is_saved(qtbot, ctx) -> None:
    dialog = open_dialog(qtbot, ctx)
    model = model_tab(dialog)
    with FakeOllama(models=["mistral:7b"]) as other:
        address = other.url
        model.host.setText(address)
        wait_for_task(qtbot, model.refresh_models())
    assert model.installed.rowCount() == 1
    assert model.installed.model_at(0).name == "mistral:7b"
    assert ctx.settings.ollama_host != address  # not saved until OK or Apply


def test_a_click_on_an_installed_model_picks_it(qtbot, ctx) -> None:
    dialog = open_dialog(qtbot, ctx)
    dialog.show()
    model = model_tab(dialog)
    proxy = model.table.model()
    row = next(r for r in range(proxy.rowCount())
               if proxy.index(r, 0).data() == "qwen2.5:7b")
    cell = model.table.visualRect(proxy.index(row, 0)).center()

    qtbot.mouseClick(model.table.viewport(), Qt.MouseButton.LeftButton, pos=cell)

    assert model.model.currentText() == "qwen2.5:7b"
    assert model.puller.name_edit.text() == "qwen2.5:7b"


def test_a_missing_model_is_offered_in_this_window_not_as_a_command(
        qtbot, ctx) -> None:
    ctx.save_settings(ollama_model="mistral:7b")
    dialog = open_dialog(qtbot, ctx)
    model = model_tab(dialog)
    said = model.ollama_state.text()
    assert "Ollama is running, but mistral:7b is not installed." in said
    assert "Click one of the 2 installed models below to use it, or pull mistral:7b." in said
    assert "Automatic answers with the embedded model" in said
    assert "hearth" not in said and "`" not in said  # no terminal command
    assert model.puller.name_edit.text() == "mistral:7b"  # the Pull button pulls it


def test_not_a_url_is_refused_as_the_address_with_a_sentence(qtbot, ctx) -> None:
    before = stored_settings(ctx)
    dialog = open_dialog(qtbot, ctx)
    model = model_tab(dialog)
    model.host.setText("not a url")

    wait_for_task(qtbot, model.refresh_models())
    assert "is not a usable address: it is not a computer's name" in \
        model.error_text("ollama_host")
    assert not dialog.apply()
    assert stored_settings(ctx) == before


def test_the_status_bar_checks_a_new_address_at_once(qtbot, ctx, ollama) -> None:
    with FakeOllama(models=[]) as gone:
        dead = gone.url
    ctx.save_settings(ollama_host=dead)
    bar = StatusBar(ctx)
    qtbot.addWidget(bar)
    bar.check_ollama()  # still asking the dead address when the user saves a running one
    ctx.save_settings(ollama_host=ollama.url)
    wait_idle(qtbot, ctx)
    assert bar.ollama_label.text() == "Ollama: running"


def test_the_status_bar_offers_the_installed_models_when_the_chosen_one_is_missing(
        qtbot, ctx) -> None:
    ctx.save_settings(ollama_model="mistral:7b")
    bar = StatusBar(ctx)
    qtbot.addWidget(bar)
    wait_idle(qtbot, ctx)
    assert "Ollama: no mistral:7b" in bar.ollama_label.text()
    assert "choose a model…" in bar.ollama_label.text()
    assert "Automatic answers with the embedded model" in bar.ollama_label.toolTip()
    with qtbot.waitSignal(bar.choose_model, timeout=1000):
        bar.ollama_label.linkActivated.emit(CHOOSE_MODEL)


def test_a_pull_shows_progress_and_the_model_then_appears(qtbot, ctx,
                                                          ollama) -> None:
    dialog = open_dialog(qtbot, ctx)
    model = model_tab(dialog)
    seen: list[int] = []
    model.puller.progress.bar.valueChanged.connect(seen.append)
    model.puller.set_name("qwen2.5:0.5b")

    task = model.puller.pull()
    assert task is not None
    assert not model.puller.progress.bar.isHidden()
    wait_for_task(qtbot, task)
    wait_idle(qtbot, ctx)  # the list is read again

    assert any(0 < value < 1000 for value in seen) and seen[-1] == 1000
    assert "qwen2.5:0.5b is installed" in model.puller.progress.result.text()
    assert model.puller.progress.bar.isHidden()
    assert model.installed.row_of("qwen2.5:0.5b") is not None
    assert model.model.currentText() == "qwen2.5:0.5b"
    assert ollama.installed("qwen2.5:0.5b") is not None


def test_a_pull_can_be_stopped(qtbot, ctx, ollama) -> None:
    ollama.pull_steps, ollama.pull_delay = 50, 0.1
    dialog = open_dialog(qtbot, ctx)
    puller = model_tab(dialog).puller
    puller.set_name("phi3:mini")

    task = puller.pull()
    assert task is not None
    qtbot.waitUntil(lambda: puller.progress.bar.value() > 0, timeout=10_000)
    puller.progress.stop()
    wait_for_task(qtbot, task)

    assert "cancelled" in puller.progress.result.text()
    assert ERROR_COLOUR not in puller.progress.result.styleSheet()  # a stop is no error
    assert ollama.installed("phi3:mini") is None
    assert puller.pull_button.isEnabled()


def test_a_refused_pull_is_explained(qtbot, ctx, ollama) -> None:
    ollama.unpullable.add("no-such-model:1b")
    dialog = open_dialog(qtbot, ctx)
    puller = model_tab(dialog).puller
    puller.set_name("no-such-model:1b")

    task = puller.pull()
    assert task is not None
    wait_for_task(qtbot, task)

    assert "could not pull no-such-model:1b" in puller.progress.result.text()
    assert ERROR_COLOUR in puller.progress.result.styleSheet()


# --- data ------------------------------------------------------------------------------------


def test_backup_now_creates_a_backup(qtbot, ctx) -> None:
    ctx.hearth.facts.remember("city", "Lisbon")
    dialog = open_dialog(qtbot, ctx)

    wait_for_task(qtbot, data_tab(dialog).backup_now())

    made = list_backups(ctx.hearth.paths)
    assert len(made) == 1
    said = data_tab(dialog).backup_progress.result.text()
    assert said.startswith("Backed up: the backup of ") and "hearth-" not in said  # no file
    assert taken_at(made[0].path).astimezone().strftime("%H:%M") in said


def test_export_then_import_round_trips(qtbot, ctx, embedder, tmp_path) -> None:
    ctx.hearth.facts.remember("city", "Lisbon", category="location")
    ctx.hearth.memories.add("Ana swims in the sea every morning before work.")
    exported = tmp_path / "everything.json"
    dialog = open_dialog(qtbot, ctx)

    wait_for_task(qtbot, data_tab(dialog).export_to(exported))
    assert data_tab(dialog).transfer_progress.result.text().startswith(
        "Exported 1 fact, 1 memory and ")  # things a person counts, not "16 rows"
    assert json.loads(exported.read_text(encoding="utf-8"))["format"] == "hearth-export"

    wait_for_task(qtbot, data_tab(dialog).import_from(exported))  # this folder is not empty
    assert "not empty" in data_tab(dialog).transfer_progress.result.text()

    fresh = AppContext(Hearth.open(tmp_path / "fresh", embedder=embedder),
                       provider_factory=ScriptedLLM)
    try:
        other = open_dialog(qtbot, fresh)
        with qtbot.waitSignal(fresh.hub.changed, timeout=60_000, check_params_cb=touching()):
            task = data_tab(other).import_from(exported)
        wait_for_task(qtbot, task)
        assert "Imported" in data_tab(other).transfer_progress.result.text()
        assert fresh.hearth.facts.get("city").value == "Lisbon"  # type: ignore[union-attr]
        assert fresh.hearth.memories.count() == 1
        model_id = embedder.model_id
        assert all(count_needing_embedding(fresh.hearth.storage, kind, model_id) == 0
                   for kind in IndexedKind)
    finally:
        fresh.close()


def test_an_export_others_could_replace_says_so(qtbot, ctx, tmp_path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)  # anyone may write here, and there is no sticky bit
    dialog = open_dialog(qtbot, ctx)

    wait_for_task(qtbot, data_tab(dialog).export_to(shared / "everything.json"))

    result = data_tab(dialog).transfer_progress.result.text()
    assert result.startswith("Exported") and "can delete or replace" in result
    assert stat.S_IMODE((shared / "everything.json").stat().st_mode) == 0o600


def test_the_data_folder_is_chosen_for_the_next_start(qtbot, ctx, tmp_path,
                                                      monkeypatch) -> None:
    dialog = open_dialog(qtbot, ctx)
    data = data_tab(dialog)
    a_file = tmp_path / "not-a-folder"
    a_file.write_text("x")
    data.choose_folder(a_file)
    assert not dialog.apply()
    assert "is a file, not a folder" in data.error_text("data_folder")
    assert locations.chosen_home() is None

    elsewhere = tmp_path / "elsewhere"
    data.choose_folder(elsewhere)
    assert dialog.apply()
    assert locations.chosen_home() == elsewhere
    assert str(elsewhere) in data.next_folder.text()
    assert locations.startup_home("/from/the/command/line") == "/from/the/command/line"
    assert locations.startup_home(None) is None  # HEARTH_HOME (set by the tests) wins
    monkeypatch.delenv("HEARTH_HOME")
    assert locations.startup_home(None) == elsewhere

    data.choose_folder(None)
    assert dialog.apply()
    assert locations.chosen_home() is None


def test_an_embedding_folder_is_checked_before_it_is_saved(qtbot, ctx,
                                                           tmp_path) -> None:
    dialog = open_dialog(qtbot, ctx)
    embeddings = embedding_tab(dialog)
    embeddings.details.set_open(True)  # the model folder is a detail
    empty = tmp_path / "empty-model"
    empty.mkdir()
    embeddings.folder.setText(str(empty))
    assert not dialog.apply()  # starts the check
    wait_idle(qtbot, ctx)
    assert not dialog.apply()
    assert "no tokenizer.json" in embeddings.error_text("embedding_model_dir")
    assert ctx.settings.embedding_model_dir == DEFAULT_EMBEDDING_MODEL_DIR

    copy = tmp_path / "bge-copy"
    shutil.copytree(DEFAULT_EMBEDDING_MODEL_DIR, copy)
    embeddings.folder.setText(str(copy))
    task = embeddings.check_folder(copy)
    assert task is not None
    wait_for_task(qtbot, task)
    assert dialog.apply()
    assert ctx.settings.embedding_model_dir == copy
    assert "384 dimensions" in embeddings.folder_state.text()
    assert "until the next start" in embeddings.folder_state.text()


def test_missing_vectors_are_counted_and_rebuilt(qtbot, ctx) -> None:
    ctx.hearth.memories.add("Ana swims in the sea every morning before work.")
    ctx.hearth.memories.add("Ana's sister Marta lives in Porto.")
    with ctx.hearth.storage.write() as session:  # as after an interrupted import
        for memory in session.query(Memory):
            memory.embedding_model = None
    dialog = open_dialog(qtbot, ctx)
    embeddings = embedding_tab(dialog)
    dialog.tabs.setCurrentWidget(dialog.tabs.widget(
        [dialog.tabs.tabText(i) for i in range(dialog.tabs.count())].index("Search")))
    assert embeddings.vector_state.text().startswith(
        "2 items (memories, facts, notes or messages) are found only by their words")
    shown = " ".join(label.text() for label in embeddings.findChildren(QLabel)
                     if label.isVisibleTo(embeddings))
    assert "ONNX" not in shown and "vector" not in shown  # the machinery is behind Details
    assert not embeddings.details.is_open
    embeddings.details.set_open(True)
    assert "lack a vector from" in embeddings.model_state.text()
    assert embeddings.rebuild_button.text() == "&Make them findable"
    assert embeddings.rebuild_button.isEnabled()

    with qtbot.waitSignal(ctx.hub.changed, timeout=60_000, check_params_cb=touching()):
        task = embeddings.rebuild()
    wait_for_task(qtbot, task)
    wait_idle(qtbot, ctx)

    assert "Done: 2 items can be found by meaning again" in \
        embeddings.rebuild_progress.result.text()
    assert embeddings.vector_state.text() == "Everything Hearth keeps can be found by meaning."
    assert not embeddings.rebuild_button.isEnabled()


def test_the_database_url_is_saved_for_the_next_start_and_shown_masked(qtbot, ctx) -> None:
    dialog = open_dialog(qtbot, ctx)
    data_page = data_tab(dialog)
    assert data_page.database_url.text() == ""
    data_page.database_url.setText("postgresql://hearth:hunter2@localhost/hearth")
    assert dialog.apply()
    passfile = (ctx.hearth.paths.home / "database.pgpass").resolve()
    assert dialog.outcome.text() == f"Saved. The database password is kept in {passfile}."
    stored = make_url(stored_settings(ctx)["database_url"])  # never the password itself
    assert (stored.host, stored.password, stored.query) == (
        "localhost", None, {"passfile": str(passfile)})
    assert passfile.read_text().splitlines()[-1] == "localhost:*:*:hearth:hunter2"
    assert ctx.hearth.storage.path == ctx.hearth.paths.database  # in effect from the next start

    again = open_dialog(qtbot, ctx)
    field = data_tab(again).database_url
    assert field.text() == "postgresql://hearth:***@localhost/hearth"
    assert again.apply() and again.outcome.text() == ""  # shown as it was: nothing changed
    field.setText("postgresql://hearth:***@db.local/hearth")  # the host edited beside the mask
    assert again.apply()
    assert make_url(stored_settings(ctx)["database_url"]).host == "db.local"
    assert passfile.read_text().splitlines()[-1] == "db.local:*:*:hearth:hunter2"
    assert "hunter2" not in ctx.hearth.paths.settings_file.read_text()


def test_an_unknown_database_is_named_beside_the_field(qtbot, ctx) -> None:
    dialog = open_dialog(qtbot, ctx)
    data_page = data_tab(dialog)
    data_page.database_url.setText("mysql://hearth:hunter2@localhost/hearth")
    assert not dialog.apply()
    message = data_page.error_text("database_url")
    assert "SQLite and PostgreSQL" in message and "hunter2" not in message
    assert "database_url" not in stored_settings(ctx)
