"""Permanent user facts: upsert by key, history, search (forgetting: ``test_forgetting.py``)."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from core.home.paths import HearthPaths
from core.errors import InvalidInputError, NotFoundError
from core.knowledge.facts import CATEGORIES, FactChange, FactService, fact_text, normalise_key
from core.forgetting.service import ForgetService
from core.storage.orm import AuditEntry, UserFact
from core.storage.port import IndexedKind, SearchFilters


@pytest.fixture
def facts(storage, embedder) -> FactService:
    return FactService(storage, embedder)


def count(storage, model) -> int:
    with storage.read() as session:
        return session.scalar(select(func.count()).select_from(model))


def audit(storage) -> list[AuditEntry]:
    with storage.read() as session:
        entries = list(session.scalars(select(AuditEntry).order_by(AuditEntry.id)))
        session.expunge_all()
    return entries


def test_remember_creates_an_embedded_fact_and_audits_it(facts, storage, embedder) -> None:
    change = facts.remember("Home Address", "  12 Rua Nova, Porto ", category="location")

    assert change == FactChange("home_address", "created", None, "12 Rua Nova, Porto")
    fact = facts.get("home_address")
    assert (fact.value, fact.category, fact.source) == ("12 Rua Nova, Porto", "location", "user")
    assert fact.embedding_model == embedder.model_id
    entry = audit(storage)[-1]
    assert entry.action == "fact.remember"
    assert entry.arguments == {"key": "home_address", "category": "location", "source": "user"}


def test_unchanged_value_writes_nothing(facts, storage) -> None:
    facts.remember("partner_name", "Ana", category="personal")
    before = facts.get("partner_name")
    audits = len(audit(storage))

    change = facts.remember("Partner name", " Ana ", category="personal")

    assert change.action == "unchanged"
    after = facts.get("partner_name")
    assert after.updated_at == before.updated_at
    assert facts.history("partner_name") == []
    assert len(audit(storage)) == audits


def test_changed_value_keeps_the_old_one_in_history(facts, embedder) -> None:
    facts.remember("workplace", "La Défense", category="work", source="agent")
    first = facts.get("workplace")

    change = facts.remember("workplace", "Porto office", category="work")
    facts.remember("workplace", "porto office", category="work")  # case counts as a change

    assert change == FactChange("workplace", "updated", "La Défense", "Porto office")
    history = facts.history("workplace")
    assert [h.value for h in history] == ["La Défense", "Porto office"]
    assert history[0].source == "agent"
    assert history[0].valid_from == first.updated_at
    fact = facts.get("workplace")
    assert fact.value == "porto office" and fact.updated_at > first.updated_at
    assert fact.embedding_model == embedder.model_id


def test_update_replaces_the_vector(facts, storage, embedder) -> None:
    facts.remember("favourite_food", "sushi", category="preference")
    facts.remember("favourite_food", "pasta carbonara", category="preference")
    fact_id = facts.get("favourite_food").id

    vector = embedder.embed_documents([fact_text("favourite_food", "pasta carbonara")])[0]
    with storage.read() as session:
        hits = storage.search.vector_search(session, IndexedKind.FACT, vector, SearchFilters(), 1)
    assert hits[0].id == fact_id
    assert hits[0].score == pytest.approx(1.0, abs=1e-4)


def test_facts_are_embedded_as_the_backfill_would_embed_them(facts, storage) -> None:
    """Both paths must produce the same text, or a reembed would silently move the vector."""
    facts.remember("favourite_colour", "deep green")
    with storage.read() as session:
        rows = storage.search.rows_needing_embedding(session, IndexedKind.FACT, "another-model",
                                                     0, 10)
    assert [text for _, text in rows] == [fact_text("favourite_colour", "deep green")]


@pytest.mark.parametrize("raw, expected", [
    ("Home Address", "home_address"),
    ("  partner--name!! ", "partner_name"),
    ("__Dietary  Restrictions__", "dietary_restrictions"),
    ("café_preferido", "café_preferido"),
])
def test_key_normalisation(raw, expected) -> None:
    assert normalise_key(raw) == expected


@pytest.mark.parametrize("key", ["", "   ", "!!!", "x" * 201])
def test_bad_keys_are_refused(facts, key) -> None:
    with pytest.raises(InvalidInputError):
        facts.remember(key, "value")


@pytest.mark.parametrize("key", ["caf\udce9", "caf\ud800"])
def test_a_key_that_is_not_unicode_is_refused_not_mangled(facts, storage, embedder, tmp_path,
                                                           key) -> None:
    """``caf\udce9`` (``café`` typed in a Latin-1 terminal) used to become the key ``caf``:
    set under the wrong key, or forget the wrong fact."""
    facts.remember("caf", "a fact that must survive")
    with pytest.raises(InvalidInputError, match="not valid UTF-8 text"):
        facts.remember(key, "Rua Nova")
    forgetting = ForgetService(storage, embedder, HearthPaths(tmp_path))
    with pytest.raises(InvalidInputError, match="not valid UTF-8 text"):
        forgetting.forget(key)
    assert [fact.key for fact in facts.list()] == ["caf"]


def test_a_value_that_is_not_unicode_is_refused(facts, storage) -> None:
    with pytest.raises(InvalidInputError, match="byte 0xF3 after 'Rua N'"):
        facts.remember("home_address", "Rua N\udcf3va")
    assert count(storage, UserFact) == 0


def test_empty_value_is_refused(facts) -> None:
    with pytest.raises(InvalidInputError, match="value"):
        facts.remember("birthday", "   ")


def test_unknown_category_lists_the_valid_ones(facts, storage) -> None:
    with pytest.raises(InvalidInputError) as error:
        facts.remember("birthday", "12 May", category="dates")
    assert all(category in str(error.value) for category in CATEGORIES)
    assert count(storage, UserFact) == 0


def test_list_search_and_grouping(facts) -> None:
    facts.remember("home_address", "12 Rua Nova, Porto", category="location")
    facts.remember("workplace", "Porto office", category="work")
    facts.remember("partner_name", "Ana", category="personal")
    facts.remember("birthday", "12 May")

    assert [f.key for f in facts.list()] == ["birthday", "home_address", "partner_name",
                                             "workplace"]
    assert [f.key for f in facts.list("work")] == ["workplace"]
    assert [f.key for f in facts.search("PORTO")] == ["home_address", "workplace"]
    assert [f.key for f in facts.search("home address")] == ["home_address"]
    assert [f.key for f in facts.search("partner")] == ["partner_name"]
    assert len(facts.search("")) == 4
    assert facts.search("nothing like this") == []
    grouped = facts.by_category()
    assert list(grouped) == ["general", "location", "personal", "work"]
    assert [f.key for f in grouped["location"]] == ["home_address"]


def test_recategorise_moves_a_fact_without_touching_its_value_or_history(facts, storage) -> None:
    facts.remember("coffee", "black", "general")
    change = facts.recategorise("Coffee", "preference")
    assert (change.action, facts.get("coffee").category) == ("updated", "preference")
    assert facts.history("coffee") == []
    assert facts.recategorise("coffee", "preference").action == "unchanged"
    assert audit(storage)[-1].action == "fact.recategorise"
    with pytest.raises(InvalidInputError):
        facts.recategorise("coffee", "nonsense")
    with pytest.raises(NotFoundError):
        facts.recategorise("tea", "general")
