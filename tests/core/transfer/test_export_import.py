"""Whole-database export and import: a lossless round trip, vectors rebuilt, safe refusals."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import select

from core.errors import InvalidInputError
from core.embedding.reembed import INDEXED_MODELS
from core.storage import orm
from core.storage.port import IndexedKind, SearchFilters
from core.storage.sqlite.adapter import SqliteStorage
from core.transfer import export
from core.transfer.export import FORMAT, VERSION, export_all, import_export
from support.reused_embeddings import reused_per_module  # noqa: F401 (the module's embedder)
from support.row_counts import row_counts
from support.every_table import fill_every_table
from support.interrupted import Killed, KilledAfter


@pytest.fixture
def target(request, tmp_path, storage):
    """An empty database of the same kind as ``storage`` to import into."""
    if storage.path is None:
        from core.storage.postgres.adapter import PostgresStorage

        server = request.getfixturevalue("postgres_server")
        name = server.create_database()
        db = PostgresStorage(server.url(name))
        yield db
        db.close()
        server.drop_database(name)
        return
    template = request.getfixturevalue("sqlite_template")
    (tmp_path / "restored").mkdir()
    db = SqliteStorage(template.copy_database(tmp_path / "restored" / "hearth.db"))
    yield db
    db.close()


def test_round_trip_is_lossless_and_rebuilds_vectors(tmp_path, storage, target,
                                                     embedder) -> None:
    fill_every_table(storage, embedder)
    assert 0 not in row_counts(storage).values()
    first, second = tmp_path / "first.json", tmp_path / "second.json"
    export_all(storage, first)

    restored = import_export(first, target, embedder)
    export_all(target, second)

    assert restored == row_counts(storage)
    one, two = (json.loads(p.read_text(encoding="utf-8")) for p in (first, second))
    assert one.pop("exported_at") and two.pop("exported_at")
    assert one == two
    assert (one["format"], one["version"]) == (FORMAT, VERSION)
    assert list(one["tables"]) == [t.name for t in orm.Base.metadata.sorted_tables]
    assert one["tables"]["memories"][0]["created_at"] == "2025-01-02T03:04:05.678901+00:00"
    assert not any("embedding_model" in row for rows in one["tables"].values() for row in rows)
    assert not list(tmp_path.glob("*.partial"))

    with target.read() as s:
        for model in INDEXED_MODELS.values():
            assert set(s.scalars(select(model.embedding_model))) == {embedder.model_id}
        hits = target.search.vector_search(s, IndexedKind.MEMORY,
                                           embedder.embed_query("Ribeira district"),
                                           SearchFilters(valid_only=None), 1)
        top = s.get(orm.Memory, hits[0].id)
        assert top.content == "Lives in Porto, Ribeira district"
    with target.write() as s:  # new rows get ids after the imported ones
        added = orm.Memory(content="Written after the import")
        s.add_all([added, orm.Note(title="After", content="the import")])
        s.flush()
        assert added.id == max(row["id"] for row in one["tables"]["memories"]) + 1


def test_import_refuses_a_database_that_has_data(tmp_path, storage, target, embedder) -> None:
    export_all(storage, tmp_path / "empty.json")
    with target.write() as s:
        s.add(orm.Note(title="mine", content="keep me"))

    with pytest.raises(InvalidInputError, match="not empty"):
        import_export(tmp_path / "empty.json", target, embedder)
    assert row_counts(target)["notes"] == 1


def exports_alike(one_path, two_path) -> bool:
    one, two = (json.loads(p.read_text(encoding="utf-8")) for p in (one_path, two_path))
    return one.pop("exported_at") and two.pop("exported_at") and one == two


@pytest.mark.parametrize("transactions", [0, 8, 15])
def test_an_import_killed_between_its_transactions_is_finished_by_running_it_again(
        tmp_path, storage, target, embedder, monkeypatch, transactions) -> None:
    """Rows are written in short transactions (one per table here; the 16th links the
    supersede chain of the memories the 15th inserted): killed after any of them, the same
    import run again restores exactly the export."""
    fill_every_table(storage, embedder)
    first, second = tmp_path / "first.json", tmp_path / "second.json"
    export_all(storage, first)
    monkeypatch.setattr(export, "WritePacer",
                        lambda store: KilledAfter(store, transactions=transactions))
    with pytest.raises(Killed):
        import_export(first, target, embedder)
    monkeypatch.undo()

    assert import_export(first, target, embedder) == row_counts(storage)
    export_all(target, second)
    assert exports_alike(first, second)


def test_a_row_written_by_someone_else_during_the_import_stops_it(
        tmp_path, storage, target, embedder, monkeypatch) -> None:
    fill_every_table(storage, embedder)
    export_all(storage, tmp_path / "export.json")
    restore = export._restore_table

    def chat_meanwhile(pacer, table, wanted) -> None:
        if table.name == "interactions":  # a chat in the window takes interaction id 1
            with target.write() as s:
                s.add(orm.Interaction(user_message="typed meanwhile"))
        restore(pacer, table, wanted)

    monkeypatch.setattr(export, "_restore_table", chat_meanwhile)
    with pytest.raises(InvalidInputError, match="Something else wrote to the database"):
        import_export(tmp_path / "export.json", target, embedder)
    with target.read() as s:
        assert s.scalars(select(orm.Interaction.user_message)).all() == ["typed meanwhile"]


@pytest.mark.parametrize("change, message", [
    (lambda t: t["memories"][0].update(session_id="no-such-chat"),
     r"memories\[0\].session_id refers to chat_sessions 'no-such-chat'"),
    (lambda t: t["user_facts"].append({**t["user_facts"][0], "id": 99}),
     r"user_facts\[1\] repeats key 'home_city'"),
    (lambda t: t["notes"][0].update(title=None), r"notes\[0\].title must be a string"),
])
def test_an_inconsistent_export_is_refused_before_anything_is_written(
        tmp_path, storage, target, embedder, change, message) -> None:
    """The rows are committed in many transactions, so what the database would refuse
    half-way is checked first."""
    fill_every_table(storage, embedder)
    path = tmp_path / "export.json"
    export_all(storage, path)
    envelope = json.loads(path.read_text(encoding="utf-8"))
    change(envelope["tables"])
    path.write_text(json.dumps(envelope), encoding="utf-8")

    with pytest.raises(InvalidInputError, match=message):
        import_export(path, target, embedder)
    assert set(row_counts(target).values()) == {0}


@pytest.mark.parametrize("change, message", [
    (lambda e: e.update(format="something-else"), "not a Hearth export"),
    (lambda e: e.update(version=2), "version 2"),
    (lambda e: e["tables"].update(gadgets=[]), "gadgets"),
    (lambda e: e["tables"]["notes"].append({"id": 1, "colour": "red"}), "colour"),
    (lambda e: e["tables"]["notes"].append(
        {"id": 1, "title": "", "content": "", "session_id": None, "created_at": "yesterday",
         "updated_at": "2025-01-01T00:00:00+00:00"}), r"tables.notes\[0\].created_at"),
])
def test_unreadable_exports_are_refused_before_writing(tmp_path, storage, target, embedder,
                                                       change, message) -> None:
    path = tmp_path / "export.json"
    export_all(storage, path)
    envelope = json.loads(path.read_text(encoding="utf-8"))
    change(envelope)
    path.write_text(json.dumps(envelope), encoding="utf-8")

    with pytest.raises(InvalidInputError, match=message):
        import_export(path, target, embedder)
    assert set(row_counts(target).values()) == {0}


def test_an_export_from_an_older_version_imports(tmp_path, storage, target, embedder) -> None:
    """What later versions added is absent from an older export: a table (empty here) and
    columns that have a default or may be empty. The rows it has are all restored."""
    fill_every_table(storage, embedder)
    path = tmp_path / "export.json"
    export_all(storage, path)
    envelope = json.loads(path.read_text(encoding="utf-8"))
    envelope["schema_revision"] = "0007"
    del envelope["tables"]["working_memory_versions"]
    for event in envelope["tables"]["context_events"]:
        del event["failed_with"], event["auto_retried"]
    path.write_text(json.dumps(envelope), encoding="utf-8")

    restored = import_export(path, target, embedder)

    assert restored["context_events"] == 1 and restored["working_memory_versions"] == 0
    with target.read() as s:
        event = s.scalars(select(orm.ContextEvent)).one()
        assert event.content == "moved to Porto" and event.auto_retried is False


def test_an_export_of_this_version_with_a_column_missing_is_refused(tmp_path, storage, target,
                                                                    embedder) -> None:
    fill_every_table(storage, embedder)
    path = tmp_path / "export.json"
    export_all(storage, path)
    envelope = json.loads(path.read_text(encoding="utf-8"))
    for event in envelope["tables"]["context_events"]:
        del event["failed_with"]
    path.write_text(json.dumps(envelope), encoding="utf-8")

    with pytest.raises(InvalidInputError, match=r"context_events\[0\].failed_with is missing"):
        import_export(path, target, embedder)


def test_not_json_at_all(tmp_path, target, embedder) -> None:
    path = tmp_path / "export.json"
    path.write_text("PK\x03\x04 this is a zip", encoding="utf-8")
    with pytest.raises(InvalidInputError, match="not valid JSON"):
        import_export(path, target, embedder)
