"""Recall end to end: real database, real model, realistic memories, real rankings."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

import numpy as np
import pytest

from support.reused_embeddings import reused_per_module  # noqa: F401 (the module's embedder)
from core.config import Settings
from core.errors import InvalidInputError, NotFoundError
from core.knowledge.memories import MemoryService, MemorySpec
from core.recall import RecallQuery, RecallResult, RecallService
from core.storage.orm import ChatSession, Memory, Note
from core.storage.port import IndexedKind, IndexHit
from core.storage.sqlite.adapter import SqliteStorage

NOW = datetime.now(timezone.utc)
MEMORIES = [
    "My sister Ines lives in Porto and works as a nurse at the children's hospital.",
    "Ines's birthday is on the 14th of March; she loves dark chocolate.",
    "I'm allergic to penicillin; it gave me a bad rash as a child.",
    "The office printer jams unless you use tray B; the replacement roller XK-4471 is on order.",
    "I prefer green tea over coffee in the mornings.",
    "Dentist appointment with Dr. Okafor on Tuesday at 10:30.",
    "My manager Priya wants the quarterly report by the end of the month.",
    "We adopted a grey cat called Miso from the shelter in 2021.",
    "I run 5 km along the river every Saturday morning.",
    "My flight to Osaka leaves on 3 October from gate 42.",
    "The wifi password at the cabin is written inside the kitchen cupboard door.",
    "I'm learning Portuguese on weekday evenings to talk with Ines's in-laws.",
    "Dad had knee surgery last spring and still struggles with stairs.",
    "My car is a 2015 blue Honda Jazz; its next service is due in January.",
    "I keep my passport in the top drawer of the desk in the study.",
    "Ben recommended the novel Piranesi by Susanna Clarke.",
    "The landlord is Mr. Haddad and the rent is due on the first of each month.",
    "I'm vegetarian but I still eat eggs and cheese.",
    "My best friend Tom moved to Berlin for a job at a robotics startup.",
    "The router resets itself whenever the microwave is running.",
    "I play five-a-side football with colleagues on Thursday nights.",
    "Mum's favourite flowers are yellow tulips.",
    "My blood type is O negative.",
    "I want to save up for a trip to Patagonia next year.",
    "The garden shed roof leaks in heavy rain; I need to buy roofing felt.",
    "My laptop backs up to the external drive every Sunday night.",
    "I get migraines when I skip lunch or sleep badly.",
    "Our wedding anniversary is on 22 June.",
    "School pick-up is at 3:15 on weekdays, except Wednesdays at 1:30.",
    "I use the pomodoro technique: 25 minutes of focus, then a five minute break.",
    "The replacement filter XK-4417 for the vacuum cleaner arrived today.",
    "Part number XK-7144 fits the old kettle base.",
]
QUESTIONS = {
    "where does my sister live": 0,
    "which medicine am I allergic to": 2,
    "when is Ines's birthday": 1,
    "when do I have to pay the rent": 16,
    "what is our pet called": 7,
    "where did I put my passport": 14,
    "what triggers my headaches": 26,
    "what do I drink in the morning": 4,
    "what is wrong with the wifi router": 19,
    "when is the car due for a service": 13,
    "what book did Ben suggest": 15,
}
NOISE = ["quantum chromodynamics lecture", "how do volcanoes form",
         "sourdough pizza hydration ratio", "medieval castle architecture"]


class CountingEmbedder:
    """The real embedder, counting query embeddings."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.queries = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def embed_query(self, text: str) -> np.ndarray:
        self.queries += 1
        return self.inner.embed_query(text)


@pytest.fixture
def memories(storage: SqliteStorage, embedder: Any) -> MemoryService:
    return MemoryService(storage, embedder)


@pytest.fixture
def corpus(memories: MemoryService) -> list[int]:
    return memories.add_many([MemorySpec(text) for text in MEMORIES])


def service(storage: SqliteStorage, embedder: Any, **settings: Any) -> RecallService:
    return RecallService(storage, embedder, Settings(**settings))


def recall(storage: SqliteStorage, embedder: Any, text: str, **query: Any) -> list[RecallResult]:
    return service(storage, embedder).recall(RecallQuery(text, **query))


# --- ranking -------------------------------------------------------------------------


@pytest.mark.parametrize(("question", "expected"), QUESTIONS.items())
def test_the_relevant_memory_comes_first(corpus: list[int], storage: SqliteStorage,
                                         embedder: Any, question: str, expected: int) -> None:
    results = recall(storage, embedder, question, k=5)
    assert results[0].id == corpus[expected]
    assert results[0].kind is IndexedKind.MEMORY
    assert results[0].text == MEMORIES[expected]
    assert [r.score for r in results] == sorted((r.score for r in results), reverse=True)


def test_hybrid_finds_a_paraphrase_that_full_text_misses(corpus: list[int],
                                                         storage: SqliteStorage,
                                                         embedder: Any) -> None:
    migraines = corpus[26]
    text_only = recall(storage, embedder, "what triggers my headaches",
                       signals=frozenset({"text"}))
    assert migraines not in [r.id for r in text_only]
    hybrid = recall(storage, embedder, "what triggers my headaches")
    assert hybrid[0].id == migraines
    assert set(hybrid[0].signals) >= {"vector"}


def test_hybrid_finds_a_rare_code_that_vectors_rank_poorly(corpus: list[int],
                                                           storage: SqliteStorage,
                                                           embedder: Any) -> None:
    """Vectors see "XK-4417" and "XK-7144" as closer to the code than its own memory; only
    the words find it. (Fusion then ranks it below the look-alike that both signals found,
    which is what rank fusion does with one strong and one absent signal.)"""
    printer = corpus[3]
    vector_only = [r.id for r in recall(storage, embedder, "XK-4471",
                                        signals=frozenset({"vector"}))]
    assert printer not in vector_only[:2]
    assert recall(storage, embedder, "XK-4471", signals=frozenset({"text"}))[0].id == printer
    hybrid = recall(storage, embedder, "XK-4471", k=3)
    found = next(r for r in hybrid if r.id == printer)
    assert found.signals["text"]["rank"] == 1


def test_signals_explain_the_score(corpus: list[int], storage: SqliteStorage,
                                   embedder: Any) -> None:
    top = recall(storage, embedder, "where does my sister live")[0]
    assert top.signals["text"]["rank"] == 1 and top.signals["text"]["score"] > 0
    assert top.signals["vector"]["rank"] == 1
    assert 0.55 < top.signals["vector"]["similarity"] <= 1.0
    assert top.signals["text"]["normalised"] == top.signals["vector"]["normalised"] == 1.0
    assert top.signals["fusion"]["relevance"] == pytest.approx(1.0)
    boost = top.signals["recency"]["boost"]
    assert 0.049 < boost <= 0.05
    factor = top.signals["strength"]["factor"] * top.signals["tier"]["factor"]
    assert top.score == pytest.approx((1.0 + boost) * factor)


# --- recency and strength --------------------------------------------------------------


def add_twins(memories: MemoryService, text: str, first: dict[str, Any],
              second: dict[str, Any]) -> tuple[int, int]:
    """Two memories with the same text, so that only their metadata can separate them. The
    first gets the lower id, which wins every tie in both signals."""
    first_id = memories.add(text, **first).id
    second_id = memories.add(text, **second).id
    return first_id, second_id


def test_the_newer_of_two_equally_relevant_memories_ranks_first(
        corpus: list[int], memories: MemoryService, storage: SqliteStorage,
        embedder: Any) -> None:
    old, new = add_twins(memories, "I parked the car on level 3 of the station garage.",
                         {"created_at": NOW - timedelta(days=60)},
                         {"created_at": NOW - timedelta(days=2)})
    question = RecallQuery("where did I park the car")

    def scores(recaller: RecallService) -> dict[int, float]:
        return {r.id: r.score for r in recaller.recall(question) if r.id in (old, new)}

    # twins are as alike as two records can be: spreading the head would tell them apart
    boosted = scores(service(storage, embedder, recall_diversity=1.0))
    assert boosted[new] > boosted[old]
    plain = scores(service(storage, embedder, recall_recency_boost=0.0, recall_diversity=1.0))
    assert plain[new] == pytest.approx(plain[old])  # only recency told them apart


def test_memories_older_than_the_window_get_no_boost(memories: MemoryService,
                                                     storage: SqliteStorage,
                                                     embedder: Any) -> None:
    now = datetime.now(timezone.utc)  # not the module's NOW: collection can be minutes ago
    memories.add("I parked the car on level 3 of the station garage.",
                 created_at=now - timedelta(days=200))
    memories.add("I parked the bike by the library.", created_at=now - timedelta(days=45))
    results = {r.text: r for r in recall(storage, embedder, "where did I park")}
    old = results["I parked the car on level 3 of the station garage."]
    assert old.signals["recency"]["age_days"] == pytest.approx(200, abs=0.01)
    assert old.signals["recency"]["boost"] == 0.0
    middle = results["I parked the bike by the library."].signals["recency"]["boost"]
    assert middle == pytest.approx(0.05 * (1 - 45 / 90), abs=1e-4)


def test_weak_memories_sink_but_stay_findable(corpus: list[int], memories: MemoryService,
                                              storage: SqliteStorage, embedder: Any) -> None:
    weak, strong = add_twins(memories, "The spare house key is under the blue flowerpot.",
                             {}, {})
    with storage.write() as session:
        session.get(Memory, weak).strength = 0.1
    results = recall(storage, embedder, "where is the spare key")
    assert [r.id for r in results[:2]] == [strong, weak]
    assert results[1].signals["strength"]["factor"] == pytest.approx(1 - 0.3 * 0.9)
    assert results[1].score < 0.75 * results[0].score  # lower, and still found


class ScriptedIndex:
    """The real index, except that both searches return fixed hits (to test fusion rules)."""

    def __init__(self, inner: Any, text: list[IndexHit], vector: list[IndexHit]) -> None:
        self.inner, self.text, self.vector = inner, text, vector

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def text_search(self, *_args: Any) -> list[IndexHit]:
        return self.text

    def vector_search(self, *_args: Any) -> list[IndexHit]:
        return self.vector


class ScriptedStorage:
    """The real storage with a scripted search index."""

    def __init__(self, inner: SqliteStorage, search: ScriptedIndex) -> None:
        self.inner, self.search = inner, search

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def test_scores_are_fused_not_ranks_and_meaning_weighs_more(
        memories: MemoryService, storage: SqliteStorage, embedder: Any) -> None:
    """``b`` is second by both signals: rank fusion would put it first for being found
    twice. Score fusion weighs how well each signal matched: the best match by meaning
    (``c``: 0.7) beats ``b`` (0.3 x 0.69 + 0.7 x 0.6 = 0.63), which beats the best match by
    words alone (``a``: 0.3)."""
    a, b, c = memories.add_many([MemorySpec("a"), MemorySpec("b"), MemorySpec("c")])
    scripted = ScriptedStorage(storage, ScriptedIndex(
        storage.search, text=[IndexHit(a, 10.0, 1), IndexHit(b, 6.9, 2)],
        vector=[IndexHit(c, 0.8, 1), IndexHit(b, 0.7, 2)]))

    def recall_ids(signals: frozenset[str] = frozenset({"text", "vector"}),
                   **options: float) -> list[int]:
        recaller = RecallService(scripted, embedder, Settings(**options))  # type: ignore[arg-type]
        return [r.id for r in recaller.recall(RecallQuery("anything", signals=signals))]

    assert recall_ids() == [c, b, a]
    assert recall_ids(recall_text_weight=1.0, recall_vector_weight=0.0) == [a, b, c][:2]
    assert recall_ids(frozenset({"text"})) == [a, b]


def test_a_word_in_almost_every_row_cannot_lift_a_row(
        memories: MemoryService, storage: SqliteStorage, embedder: Any) -> None:
    """Rows matched only by a near-ubiquitous word (a speaker's name: FTS5's IDF 1e-6) get
    nothing from full text, so they cannot pass a row that the meaning found."""
    a, b, c = memories.add_many([MemorySpec("Dana: a"), MemorySpec("Dana: b"),
                                 MemorySpec("Dana: c")])
    scripted = ScriptedStorage(storage, ScriptedIndex(
        storage.search, text=[IndexHit(a, 2e-6, 1), IndexHit(b, 1e-6, 2)],
        vector=[IndexHit(c, 0.8, 1), IndexHit(a, 0.6, 2)]))
    results = RecallService(scripted, embedder, Settings()).recall(  # type: ignore[arg-type]
        RecallQuery("Which company is Dana joining?"))
    assert [r.id for r in results] == [c, a]  # b: only the ubiquitous word found it
    assert results[1].signals["text"]["normalised"] == 0.0


# --- relevance floor -------------------------------------------------------------------


@pytest.mark.parametrize("question", NOISE)
def test_questions_about_unknown_things_recall_nothing(corpus: list[int],
                                                       storage: SqliteStorage,
                                                       embedder: Any, question: str) -> None:
    assert recall(storage, embedder, question) == []


def test_the_floor_drops_hits_that_only_one_signal_ranks_low(corpus: list[int],
                                                             storage: SqliteStorage,
                                                             embedder: Any) -> None:
    question = RecallQuery("family birthdays and anniversaries", k=30)
    loose = service(storage, embedder, recall_min_relevance=0.0).recall(question)
    birthday = next(r for r in loose if r.id == corpus[1])  # only the words found it
    assert birthday.signals.keys() & {"text", "vector"} == {"text"}
    floor = birthday.signals["fusion"]["relevance"] + 1e-9
    strict = service(storage, embedder, recall_min_relevance=floor).recall(question)
    assert corpus[1] not in [r.id for r in strict]
    assert strict[0].id == corpus[27]
    assert strict[0].signals.keys() >= {"text", "vector"}


# --- access bookkeeping and provenance -----------------------------------------------


def test_mark_accessed_bumps_the_returned_memories_only(corpus: list[int],
                                                        storage: SqliteStorage,
                                                        embedder: Any) -> None:
    recall(storage, embedder, "where does my sister live", k=1)
    with storage.read() as session:
        assert session.get(Memory, corpus[0]).access_count == 0
    results = recall(storage, embedder, "where does my sister live", k=1, mark_accessed=True)
    with storage.read() as session:
        used = session.get(Memory, results[0].id)
        assert (used.access_count, used.search_hit_count) == (1, 1)
        assert NOW <= used.last_accessed_at <= datetime.now(timezone.utc)
        other = session.get(Memory, corpus[1])
        assert (other.access_count, other.last_accessed_at) == (0, None)


def test_provenance_carries_the_source_turn(memories: MemoryService, storage: SqliteStorage,
                                            embedder: Any) -> None:
    with storage.write() as session:
        session.add(ChatSession(id="import-7", source="import"))
    memories.add("Grandma's lasagne recipe uses nutmeg in the béchamel.", source="import",
                 session_id="import-7", external_id="turn-42", namespace="user/family",
                 category="food", memory_type="episodic", tier="archival")
    (result,) = recall(storage, embedder, "lasagne recipe")
    assert result.provenance == {
        "source": "import", "session_id": "import-7", "interaction_id": None,
        "event_id": None, "external_id": "turn-42", "created_at": result.created_at,
        "namespace": "user/family", "tier": "archival", "memory_type": "episodic",
        "category": "food", "turn_id": None, "origin": None}


def test_kinds_merge_into_one_ranking(corpus: list[int], storage: SqliteStorage,
                                      embedder: Any) -> None:
    with storage.write() as session:
        session.add(Note(title="Porto trip", content="Visit Ines; she lives near the river."))
        session.add(Note(title="Groceries", content="Oat milk and bread."))
        session.flush()
        search = storage.search
        rows = search.rows_needing_embedding(session, IndexedKind.NOTE, embedder.model_id, 0, 10)
        search.store_embeddings(session, IndexedKind.NOTE, [row_id for row_id, _ in rows],
                                embedder.embed_documents([t for _, t in rows]),
                                embedder.model_id)
    results = recall(storage, embedder, "where does my sister Ines live", k=4,
                     kinds=(IndexedKind.MEMORY, IndexedKind.NOTE))
    kinds = [r.kind for r in results]
    assert {IndexedKind.MEMORY, IndexedKind.NOTE} <= set(kinds)
    assert results[0].id == corpus[0]
    note = next(r for r in results if r.kind is IndexedKind.NOTE)
    assert note.provenance == {"title": "Porto trip", "session_id": None}
    assert note.text == "Visit Ines; she lives near the river."


# --- the query itself ----------------------------------------------------------------


def test_the_query_is_embedded_once_and_timed(corpus: list[int], storage: SqliteStorage,
                                              embedder: Any) -> None:
    counting = CountingEmbedder(embedder)
    recaller = RecallService(storage, counting, Settings())
    results, timings = recaller.recall_with_timings(RecallQuery(
        "where does my sister live", kinds=tuple(IndexedKind)))
    assert counting.queries == 1
    assert results
    assert set(timings) == {"embed", "text", "vector", "fusion"}
    assert all(value > 0 for value in timings.values())


def test_blank_questions_return_nothing_without_embedding(storage: SqliteStorage,
                                                          embedder: Any) -> None:
    counting = CountingEmbedder(embedder)
    recaller = RecallService(storage, counting, Settings())
    assert recaller.recall(RecallQuery("   \n")) == []
    assert counting.queries == 0


@pytest.mark.parametrize("bad", [{"k": 0}, {"kinds": ()}, {"signals": frozenset()},
                                 {"signals": frozenset({"telepathy"})}])
def test_bad_queries_are_refused(bad: dict[str, Any]) -> None:
    with pytest.raises(InvalidInputError):
        RecallQuery("anything", **bad)


# --- the memory service --------------------------------------------------------------


def test_memory_service_keeps_vectors_in_step(memories: MemoryService, storage: SqliteStorage,
                                              embedder: Any) -> None:
    memory = memories.add("  The boiler service is booked for Friday.  ")
    assert memory.content == "The boiler service is booked for Friday."
    assert memory.embedding_model == embedder.model_id
    updated = memories.update_content(memory.id, "The chimney sweep comes on Monday.")
    assert updated.embedding_model == embedder.model_id
    (top,) = recall(storage, embedder, "when is the chimney cleaned", k=1)
    assert top.id == memory.id
    memories.invalidate(memory.id, "cancelled")
    assert recall(storage, embedder, "chimney sweep") == []
    memories.restore(memory.id)
    assert recall(storage, embedder, "chimney sweep")[0].id == memory.id
    assert memories.set_tier(memory.id, "core").tier == "core"
    assert memories.count() == 1


@pytest.mark.parametrize(("field", "value"), [("memory_type", "dream"), ("tier", "attic"),
                                              ("priority", "urgent"), ("importance", 2.0)])
def test_memory_service_refuses_unknown_values(memories: MemoryService, field: str,
                                               value: Any) -> None:
    with pytest.raises(InvalidInputError, match="Use"):
        memories.add("Something.", **{field: value})
    assert memories.count() == 0


def test_memory_service_refuses_empty_text_and_duplicates(memories: MemoryService) -> None:
    with pytest.raises(InvalidInputError):
        memories.add("   ")
    memories.add("Imported turn.", external_id="t1")
    with pytest.raises(InvalidInputError, match="t1"):
        memories.add("Imported again.", external_id="t1")
    with pytest.raises(NotFoundError, match="12345"):
        memories.get(12345)
    with pytest.raises(InvalidInputError, match="t2"):
        memories.add_many([MemorySpec("One.", external_id="t2"),
                           MemorySpec("Two.", external_id="t2")])
    assert memories.count() == 1


def test_add_many_commits_in_batches_and_reports_progress(
        memories: MemoryService, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("core.knowledge.memories.ADD_BATCH", 2)
    seen: list[tuple[int, int]] = []
    ids = memories.add_many([MemorySpec(f"Memory number {n}.") for n in range(5)],
                            progress=lambda done, total: seen.append((done, total)))
    assert len(ids) == 5 and ids == sorted(ids)
    assert seen == [(2, 5), (4, 5), (5, 5)]
    assert memories.get(ids[-1]).content == "Memory number 4."


# --- archival summaries ------------------------------------------------------------------


def test_a_summary_lifts_the_original_that_answers_not_every_original(
        memories: MemoryService, storage: SqliteStorage, embedder: Any) -> None:
    from core.storage.orm import MemoryEdge, MemoryTier

    originals = memories.add_many([MemorySpec(text, tier=MemoryTier.SOURCE.value) for text in (
        "Bruno started a training course at the dog school Pfotenwerk on Saturday.",
        "My dog Bruno had a long walk in the park today.",
        "My dog Bruno chewed my slipper again.")])
    rival = memories.add("We looked at two dog schools in town before choosing one.")
    summary = memories.add("Bruno the dog: adopted from the shelter, goes to a dog school, "
                           "long walks every day.", tier=MemoryTier.ARCHIVAL.value)
    with storage.write() as session:
        session.add_all([MemoryEdge(from_id=summary.id, to_id=original, kind="summary_of",
                                    weight=1.0) for original in originals])
    question = "Which dog school does Bruno go to?"

    plain = {r.id: r for r in service(storage, embedder, recall_summary_share=0.0).recall(
        RecallQuery(question, k=10, graph=0))}
    lifting = service(storage, embedder, recall_summary_share=1.0)  # lift as far as it goes
    ranked = lifting.recall(RecallQuery(question, k=10, graph=0))
    lifted = {r.id: r for r in ranked}

    school, walk, staring = originals
    assert "summary" in lifted[school].signals
    assert lifted[school].score > plain[school].score
    # the others rise by the same factor as the best one: none draws level with it on the
    # summary's strength alone (lifting every original to the summary's level tied them)
    assert walk in lifted and staring in lifted
    for other in (walk, staring):
        assert lifted[other].score < 0.9 * lifted[school].score
    assert ranked[0].id == school
    assert summary.id in lifted and rival.id in lifted


def test_a_kind_whose_best_match_is_weak_is_scaled_by_the_best_of_every_kind() -> None:
    """A long diary turn at 0.56 is the best memory, but not as good as a note at 0.89:
    cosines of one model compare across kinds, so the memory's scale tops out at 0.89."""
    from core.recall.fusion import normalised_scores

    diary = [IndexHit(3, 0.56, 1), IndexHit(2, 0.55, 2)]
    alone = normalised_scores("vector", diary, 0.5)
    beside_a_note = normalised_scores("vector", diary, 0.5, vector_best=0.89)
    assert alone[3] == 1.0
    assert beside_a_note[3] == pytest.approx((0.56 - 0.5) / (0.89 - 0.5))
    texts = [IndexHit(1, 2.0, 1), IndexHit(2, 1.0, 2)]  # BM25 of another table is no scale
    assert normalised_scores("text", texts, 0.5, vector_best=0.89) == {1: 1.0, 2: 0.5}
