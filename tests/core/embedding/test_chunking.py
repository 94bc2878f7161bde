"""Long texts as windows: planning, storage, search, and every writer keeping them honest.

Real bge-small tokenizer and model, real SQLite and sqlite-vec (and PostgreSQL with pgvector:
the tests that take ``storage`` run on both), as elsewhere: the point is that offsets,
triggers and the search SQL are right on the real thing.
"""

from __future__ import annotations

import random
import unicodedata
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from sqlalchemy import delete, text, update

from core.embedding.chunking import (
    MAX_CHUNKED_CHARS,
    OVERLAP_TOKENS,
    WINDOW_TOKENS,
    embed_documents_with_chunks,
    plan_windows,
    sentence_windows,
    text_windows,
    window_input,
)
from core.knowledge.memories import MemoryService, MemorySpec
from core.storage.windows import TextWindow
from core.knowledge.notes import NoteService
from core.embedding.reembed import backfill_embeddings
from core.storage.orm import ChatSession, Interaction, Memory, Note
from support.reused_embeddings import reused_per_module  # noqa: F401 (the module's embedder)
from support.backends import search_index

from core.storage.port import (
    IndexedKind,
    IndexHit,
    SearchFilters,
    SearchIndex,
    StoragePort,
    document_text,
)

MEMORY = IndexedKind.MEMORY
PLANTED = "The spare key is taped under the blue flowerpot by the shed."
QUESTION = "Where is the spare key hidden?"
TOP = 3
"""How many hits count as found: what a question's answer must make."""
CAR_KEYS = "I lost my car keys at the gym last month."
DISTRACTORS = [
    "My sister Ines lives in Porto and works as a nurse.",
    "The garden shed roof leaks in heavy rain.",
    "I prefer green tea over coffee in the morning.",
    "Dentist appointment with Dr. Okafor next Tuesday.",
    CAR_KEYS,
    "The front door lock sticks in cold weather.",
    "We keep the garden hose behind the garage.",
    "My passport is in the top drawer of the desk.",
    "The blue vase was a wedding present from my aunt.",
    "The Wi-Fi password is on the fridge.",
]

DISTRACTORS += [
    "The boiler service is due every October.",
    "Our landlord is called Mr. Duarte and prefers phone calls.",
    "The bike lock code is my mother's birthday.",
    "I planted tomatoes and basil along the fence in May.",
    "The cat's vet is on Rua das Flores.",
    "My manager wants the quarterly report by Friday.",
    "I am allergic to penicillin.",
    "The recycling goes out on Wednesday nights.",
    "We hid the Christmas presents in the attic.",
    "The neighbours' dog barks when the postman comes.",
    "My brother Rui is getting married in June.",
    "I run five kilometres on Saturday mornings.",
    "The car insurance renews in March.",
    "Grandma's recipe for orange cake uses three eggs.",
    "I keep my running shoes by the back door.",
    "The printer in the study needs new toner.",
    "My favourite book is One Hundred Years of Solitude.",
    "The water meter is under the kitchen sink.",
    "I pay the electricity bill by direct debit.",
    "The umbrella is in the car boot.",
]

PEOPLE = ["Priya", "Jonas", "the finance team", "our designer Lea", "Marco from sales",
          "the new intern", "Dr. Feld", "the client"]
TOPICS = ["the quarterly budget", "the onboarding flow", "the database migration",
          "the pricing page", "the hiring plan", "the customer survey", "the release schedule",
          "the support backlog"]
VERBS = ["argued that we should postpone", "asked for more data on",
         "proposed a simpler version of", "raised concerns about", "agreed to review",
         "wants a written summary of", "will own the next steps for",
         "presented the numbers for"]
DECISIONS = ["We decided to revisit this next week.", "Nobody objected, so it stands.",
             "The vote was split three to two.", "This needs sign-off from legal.",
             "We will track it in the shared spreadsheet.",
             "The deadline moves to the end of the month."]


def meeting_notes(words: int = 3000, seed: int = 7) -> list[str]:
    """Paragraphs of pasted meeting notes, ~``words`` long, the same every run."""
    rng = random.Random(seed)
    paragraphs: list[str] = []
    count = 0
    while count < words:
        sentences = [f"Meeting {len(paragraphs) + 1}."]
        for _ in range(rng.randint(5, 8)):
            sentences.append(rng.choice([
                f"{rng.choice(PEOPLE).capitalize()} {rng.choice(VERBS)} {rng.choice(TOPICS)}.",
                rng.choice(DECISIONS),
                f"Costs for {rng.choice(TOPICS)} came in {rng.randint(3, 40)}% over the "
                f"estimate.",
                f"{rng.choice(PEOPLE).capitalize()} thinks {rng.choice(TOPICS)} matters more "
                f"than {rng.choice(TOPICS)}.",
            ]))
        paragraph = " ".join(sentences)
        paragraphs.append(paragraph)
        count += len(paragraph.split())
    return paragraphs


def long_memory() -> str:
    """~3,000 words with the planted sentence at the end of the middle paragraph."""
    paragraphs = meeting_notes()
    middle = len(paragraphs) // 2
    paragraphs[middle] += " " + PLANTED
    return "\n\n".join(paragraphs)


def chunk_rows(storage: StoragePort, table: str = "memories",
               item_id: int | None = None) -> list[tuple[int, int, int, int]]:
    """(item_id, position, char_start, char_end) of stored windows, in order."""
    only = "" if item_id is None else "WHERE item_id = :item "
    with storage.read() as session:
        rows = session.execute(text(
            f"SELECT item_id, position, char_start, char_end FROM {table}_vec_chunks "
            f"{only}ORDER BY item_id, position"), {"item": item_id}).all()
    return [tuple(row) for row in rows]


def search(storage: StoragePort, embedder: Any, question: str, kind: IndexedKind = MEMORY,
           filters: SearchFilters | None = None, limit: int = 5,
           index: SearchIndex | None = None) -> list[IndexHit]:
    with storage.read() as session:
        return (index or storage.search).vector_search(
            session, kind, embedder.embed_query(question), filters or SearchFilters(), limit)


def holds(hit: IndexHit, text_: str, sentence: str = PLANTED) -> bool:
    return hit.chunk is not None and sentence in hit.chunk.excerpt(text_)


@pytest.fixture
def memories(storage: StoragePort, embedder: Any) -> MemoryService:
    return MemoryService(storage, embedder)


# --- planning windows ---------------------------------------------------------------------


def test_windows_cover_the_whole_text_with_overlap_and_exact_offsets(embedder: Any) -> None:
    content = long_memory()
    offsets = embedder.token_offsets(content)
    windows = text_windows(embedder, content)

    assert len(offsets) > 3_000
    head, further = windows[0], windows[1:]
    assert (head.position, head.char_start) == (0, 0)
    assert head.char_end == offsets[embedder.max_tokens - 1][1]  # what one inference sees
    assert [window.position for window in windows] == list(range(len(windows)))
    assert further[-1].char_end == len(content)
    for before, window in zip(windows, further, strict=False):
        assert before.char_start < window.char_start < before.char_end < window.char_end
        inside = [o for o in offsets if window.char_start <= o[0] and o[1] <= window.char_end]
        shared = [o for o in inside if o[1] <= before.char_end]
        assert WINDOW_TOKENS * 7 // 8 <= len(inside) <= WINDOW_TOKENS
        assert len(shared) >= OVERLAP_TOKENS // 2
        if window is not further[-1]:  # the last is a full window: it may overlap more
            assert len(shared) <= OVERLAP_TOKENS * 3 // 2
        # the excerpt tokenises to exactly the text's tokens in that span
        assert [(a + window.char_start, b + window.char_start)
                for a, b in embedder.token_offsets(window.excerpt(content))] == inside
        # cut where a sentence starts, not in the middle of one
        assert content[window.char_start - 2:window.char_start] in (". ", "\n\n")
    assert len(further) == pytest.approx((len(offsets) - embedder.max_tokens)
                                         / (WINDOW_TOKENS - OVERLAP_TOKENS), abs=4)


ODD = [
    "Emoji 👩‍👩‍👧 with a family, 👍🏽 thumbs and 🏳️‍🌈 flags in the middle of words.",
    "Combining marks: Zoe\u0308 ate cre\u0300me bru\u0302le\u0301e; Z\u0351\u0352a\u0353l\u0354go.",
    "中文没有空格，一句接一句。日本語の文も同じです！これは三つ目の文ですか？",
    "עברית נכתבת מימין לשמאל. العربية أيضاً تكتب من اليمين إلى اليسار.",
    "한국어 문장은 음절 하나가 토큰 세 개가 될 수 있습니다.",
    "Plain English between the others keeps a little ordinary text in the mix.",
]


def test_offsets_are_exact_for_odd_unicode(embedder: Any) -> None:
    content = "\n".join(ODD[i % len(ODD)] for i in range(90))
    offsets = embedder.token_offsets(content)
    windows = text_windows(embedder, content)

    assert len(offsets) > 2 * embedder.max_tokens and len(windows) > 3
    assert windows[-1].char_end == len(content)
    for before, window in zip(windows, windows[1:], strict=False):
        assert window.char_start < before.char_end  # overlapping, so no gap
        excerpt = window.excerpt(content)
        assert excerpt == content[window.char_start:window.char_end]
        # never half a character: no cut before a combining mark, joiner or skin tone
        for edge in (window.char_start, window.char_end):
            if edge < len(content):
                assert not unicodedata.combining(content[edge])
                assert content[edge] not in "\u200d\ufe0f"
                assert not "\U0001f3fb" <= content[edge] <= "\U0001f3ff"
        assert [(a + window.char_start, b + window.char_start)
                for a, b in embedder.token_offsets(excerpt)] == [
            o for o in offsets if window.char_start <= o[0] and o[1] <= window.char_end]
    accents = "cafe\u0301 " * 700  # the tokenizer leaves each stripped accent out of every token
    for window in text_windows(embedder, accents):
        assert window.excerpt(accents).rstrip().endswith("cafe\u0301")
    hangul = "음절" * 300  # three tokens per syllable, no spaces: cuts between syllables only
    offsets = embedder.token_offsets(hangul)
    for window in plan_windows(hangul, offsets, embedder.max_tokens)[1:]:
        assert all(o[0] >= window.char_start or o[1] <= window.char_start for o in offsets)


def test_lone_surrogates_keep_offsets_aligned(embedder: Any) -> None:
    content = ("broken \ud800 clipboard " * 200) + "end"
    offsets = embedder.token_offsets(content)
    assert content[offsets[-1][0]:offsets[-1][1]] == "end"
    assert text_windows(embedder, content)[-1].char_end == len(content)


class CountingTokenizer:
    """The real embedder, counting how often a text is tokenised to plan windows."""

    def __init__(self, real: Any) -> None:
        self._real = real
        self.tokenised = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)

    def token_offsets(self, text_: str) -> list[tuple[int, int]]:
        self.tokenised += 1
        return self._real.token_offsets(text_)


def test_a_text_that_fits_has_no_stretch_windows_and_the_same_vector(embedder: Any) -> None:
    counting = CountingTokenizer(embedder)
    short = "I prefer green tea over coffee in the morning."
    listing = " ".join(["A fairly long note that still fits in one inference."] * 40)
    assert len(counting.token_offsets(listing)) < embedder.max_tokens
    counting.tokenised = 0

    embedded = embed_documents_with_chunks(counting, [short, listing])

    assert counting.tokenised == 1  # the short one is not even tokenised
    # one sentence is its own window; 40 sentences are a list, not worth 40 vectors
    assert [chunks.windows for chunks in embedded.chunks] == [(), ()]
    assert np.array_equal(embedded.vectors, embedder.embed_documents([short, listing]))
    assert [len(text_windows(embedder, t)) for t in (short, listing)] == [1, 1]


TURN = ("Marcus: We left Glasgow at 8am in the van, plenty of time. So. Just past Dundee it "
        "started making a noise like a goose.\n\nok.   Ralph's dad drove up with a trailer "
        "and towed us to Stonehaven!")


def test_each_sentence_of_a_turn_is_a_window_with_its_speaker(embedder: Any) -> None:
    windows = text_windows(embedder, TURN, sentences=True)

    assert windows[0] == TextWindow(0, 0, len(TURN))
    # fragments ("So.", "ok.") are no sentences; spans are exact and trimmed
    assert [w.excerpt(TURN) for w in windows[1:]] == [
        "Marcus: We left Glasgow at 8am in the van, plenty of time.",
        "Just past Dundee it started making a noise like a goose.",
        "Ralph's dad drove up with a trailer and towed us to Stonehaven!"]
    assert [w.position for w in windows] == [0, 1, 2, 3]
    # a later sentence is embedded as the speaker's; the first already says who speaks
    assert [window_input(TURN, w) for w in windows[1:]] == [
        windows[1].excerpt(TURN),
        "Marcus: Just past Dundee it started making a noise like a goose.",
        "Marcus: Ralph's dad drove up with a trailer and towed us to Stonehaven!"]
    # a turn is what is embedded with views; any other text that fits has one window
    embedded = embed_documents_with_chunks(embedder, [TURN, TURN], views=[(TURN,), ()])
    assert np.array_equal(embedded.vectors, embedder.embed_documents([TURN, TURN]))
    assert np.array_equal(embedded.chunks[0].vectors, embedder.embed_documents(
        [window_input(TURN, w) for w in windows[1:]]))
    assert embedded.chunks[1].windows == () and text_windows(embedder, TURN) == windows[:1]


def test_sentences_without_spaces_and_without_a_label() -> None:
    chinese = "我的妹妹住在里斯本。她是一名护士，在医院工作。好。"
    assert [w.excerpt(chinese) for w in sentence_windows(chinese)] == [
        "我的妹妹住在里斯本。", "她是一名护士，在医院工作。"]  # "好。" is too short
    note = "Call the plumber about the boiler. Then book the MOT for the car."
    windows = sentence_windows(note)
    assert [window_input(note, w) for w in windows] == [w.excerpt(note) for w in windows]
    assert sentence_windows("One sentence only, however long it may go on.") == []
    assert sentence_windows("https://example.org/a. See the page for more.") == []


def test_views_replace_the_whole_text_vector_and_keep_the_texts_windows(
        embedder: Any) -> None:
    views = ("Session of 9 August 2025, Marcus said: the van broke down", "the van\nbroke")
    embedded = embed_documents_with_chunks(embedder, [TURN, "plain"], views=[views, ()])

    mean = embedder.embed_documents(list(views)).mean(axis=0)
    assert np.allclose(embedded.vectors[0], mean / np.linalg.norm(mean), atol=1e-6)
    assert np.array_equal(embedded.vectors[1], embedder.embed_documents(["plain"])[0])
    assert embedded.chunks[0].windows == tuple(text_windows(embedder, TURN,
                                                            sentences=True)[1:])


def test_long_texts_keep_their_whole_text_vector_and_report_progress(embedder: Any) -> None:
    content = long_memory()
    seen: list[tuple[int, int]] = []

    embedded = embed_documents_with_chunks(embedder, ["short one", content],
                                           progress=lambda *call: seen.append(call))

    assert np.array_equal(embedded.vectors, embedder.embed_documents(["short one", content]))
    windows = embedded.chunks[1].windows
    assert windows == tuple(text_windows(embedder, content)[1:])
    assert np.array_equal(embedded.chunks[1].vectors[3],
                          embedder.embed_documents([windows[3].excerpt(content)])[0])
    assert seen[-1] == (2, 2) and all(done <= total == 2 for done, total in seen)


def test_a_huge_paste_is_chunked_only_so_far(embedder: Any) -> None:
    content = "\n\n".join(meeting_notes(60_000, seed=3))
    assert len(content) > MAX_CHUNKED_CHARS
    windows = text_windows(embedder, content)
    assert windows[-1].char_end == MAX_CHUNKED_CHARS


# --- storage and search ------------------------------------------------------------------


def test_a_sentence_in_the_middle_is_found_through_its_window(
        storage: StoragePort, embedder: Any, memories: MemoryService) -> None:
    content = long_memory()
    memories.add_many([MemorySpec(text_) for text_ in DISTRACTORS])
    (long_id,) = memories.add_many([MemorySpec(content)])
    assert len(chunk_rows(storage, item_id=long_id)) > 20
    assert chunk_rows(storage, item_id=long_id - 1) == []  # short rows have none

    hits = search(storage, embedder, QUESTION, limit=TOP)

    # second only to a memory that is about keys too ("I lost my car keys at the gym")
    assert [hit.id for hit in hits][:2] == [DISTRACTORS.index(CAR_KEYS) + 1, long_id]
    found = hits[1]
    assert holds(found, content) and found.chunk.position >= 1
    assert [hit.rank for hit in hits] == [1, 2, 3]
    assert hits[0].chunk is None and hits[2].chunk is None
    with storage.read() as session:
        (kept,) = storage.search.stored_embeddings(session, MEMORY, [long_id])
    stored = kept.chunks.vectors[[window.position for window in kept.chunks.windows]
                                 .index(found.chunk.position)]
    assert found.score == pytest.approx(float(stored @ embedder.embed_query(QUESTION)),
                                        abs=1e-5)

    # the same row with its whole-text vector alone (the first window): not in the top hits
    with storage.write() as session:
        storage.search.store_embeddings(session, MEMORY, [long_id],
                                        embedder.embed_documents([content]),
                                        embedder.model_id)
    assert chunk_rows(storage, item_id=long_id) == []
    assert long_id not in [hit.id for hit in search(storage, embedder, QUESTION, limit=TOP)]


RENT = "Oh and my landlord is putting the rent up by ninety pounds from March."
WEDDING_TURN = ("Dana: The wedding was lovely and the speeches ran long. The cake collapsed in "
                f"the heat and the band played until two. {RENT}")
WEDDING_CHAT = ["Dana: the wedding was so much fun", "Marcus: how were the speeches?",
                "Dana: I danced all night at the wedding", "Marcus: was the cake good?",
                "Dana: my flat is freezing", "Marcus: how much do you pay for your place?"]


@pytest.mark.parametrize("question", ["How much more will Dana pay for her flat?",
                                      "Is Dana's housing getting more expensive?"])
def test_a_turn_that_says_several_things_is_found_by_the_one_asked_about(
        storage: StoragePort, embedder: Any, memories: MemoryService, question: str) -> None:
    memories.add_many([MemorySpec(text_) for text_ in WEDDING_CHAT])
    (turn_id,) = memories.add_many([MemorySpec(WEDDING_TURN, views=(WEDDING_TURN,))])

    top = search(storage, embedder, question, limit=TOP)

    assert top[0].id == turn_id and holds(top[0], WEDDING_TURN, RENT)
    # its whole-text vector alone is a summary of a wedding: short turns come first
    with storage.write() as session:
        storage.search.store_embeddings(session, MEMORY, [turn_id],
                                        embedder.embed_documents([WEDDING_TURN]),
                                        embedder.model_id)
    assert search(storage, embedder, question, limit=TOP)[0].id != turn_id


def test_the_quantised_path_and_filters_apply_to_windows(
        storage: StoragePort, embedder: Any, memories: MemoryService) -> None:
    content = long_memory()
    memories.add_many([MemorySpec(text_) for text_ in DISTRACTORS])
    (long_id,) = memories.add_many([MemorySpec(content, namespace="user/house")])
    forced = search_index(storage, exact_max_rows=0, shortlist_factor=1,
                               min_shortlist=8)
    forced.ensure_dimensions(embedder.dimensions)

    for index in (storage.search, forced):
        found = {hit.id: hit for hit in search(storage, embedder, QUESTION, index=index,
                                               limit=TOP)}
        assert holds(found[long_id], content)
        narrowed = search(storage, embedder, QUESTION, index=index,
                          filters=SearchFilters(namespaces=("user/house",)))
        assert [hit.id for hit in narrowed] == [long_id] and holds(narrowed[0], content)
        elsewhere = SearchFilters(namespaces=("work",))
        assert search(storage, embedder, QUESTION, index=index, filters=elsewhere) == []
        excluded = SearchFilters(exclude_ids=frozenset({long_id}))
        assert long_id not in [h.id for h in search(storage, embedder, QUESTION, index=index,
                                                     filters=excluded)]
    memories.invalidate(long_id, "moved house")
    for index in (storage.search, forced):
        assert long_id not in [hit.id for hit in search(storage, embedder, QUESTION,
                                                        index=index)]
        invalid = search(storage, embedder, QUESTION, index=index,
                         filters=SearchFilters(valid_only=False))
        assert [hit.id for hit in invalid] == [long_id] and holds(invalid[0], content)


def test_editing_the_text_drops_stale_windows(storage: StoragePort, embedder: Any,
                                              memories: MemoryService) -> None:
    content = long_memory()
    (long_id,) = memories.add_many([MemorySpec(content)])
    before = chunk_rows(storage, item_id=long_id)

    with storage.write() as session:  # any path that changes the text
        session.execute(update(Memory).where(Memory.id == long_id)
                        .values(content=content.replace("blue flowerpot", "red flowerpot")))
    assert chunk_rows(storage, item_id=long_id) == []
    assert search(storage, embedder, QUESTION) == []

    moved = content.replace(PLANTED, "").replace("Meeting 8.",
                                                 "Meeting 8. " + PLANTED)
    memories.update_content(long_id, moved)
    after = chunk_rows(storage, item_id=long_id)
    assert after and after != before
    hit = search(storage, embedder, QUESTION)[0]
    assert hit.id == long_id and PLANTED in moved[hit.chunk.char_start:hit.chunk.char_end]
    assert hit.chunk.char_start < moved.index(PLANTED) < len(moved) // 2

    memories.update_content(long_id, "Now a short memory.")
    assert chunk_rows(storage, item_id=long_id) == []


def test_deleting_the_row_drops_its_windows(storage: StoragePort, embedder: Any,
                                            memories: MemoryService) -> None:
    kept, gone = memories.add_many([MemorySpec(long_memory()), MemorySpec(long_memory())])
    with storage.write() as session:
        session.execute(delete(Memory).where(Memory.id == gone))
    assert {row[0] for row in chunk_rows(storage)} == {kept}


def test_backfill_after_a_reset_rebuilds_the_windows(storage: StoragePort, embedder: Any,
                                                     memories: MemoryService) -> None:
    content = long_memory()
    ids = memories.add_many([MemorySpec(content), MemorySpec("A short one.")])
    before = chunk_rows(storage)
    with storage.read() as session:
        vectors_before = session.execute(text(
            "SELECT embedding FROM memories_vec_chunks ORDER BY id")).scalars().all()

    search_index(storage).ensure_dimensions(8)  # another model's width...
    search_index(storage).ensure_dimensions(embedder.dimensions)  # ...and back
    assert chunk_rows(storage) == []

    assert backfill_embeddings(storage, embedder, [MEMORY], batch_size=1) == {MEMORY: 2}
    assert chunk_rows(storage) == before and {row[0] for row in before} == {ids[0]}
    with storage.read() as session:
        assert session.execute(text("SELECT embedding FROM memories_vec_chunks "
                                    "ORDER BY id")).scalars().all() == vectors_before
    assert holds(search(storage, embedder, QUESTION)[0], content)


@pytest.mark.sqlite_only("the SQLite index's own tables and upgrades")
def test_a_database_from_before_windows_gets_them_by_backfill(
        storage: StoragePort, embedder: Any, memories: MemoryService) -> None:
    content = long_memory()
    long_id, short_id = memories.add_many([MemorySpec(content), MemorySpec("Short.")])
    with storage.write() as session:  # as an older Hearth left it
        for name in ("memories_vec_chunks_ad", "memories_vec_chunks_au"):
            session.execute(text(f"DROP TRIGGER {name}"))
        session.execute(text("DROP TABLE memories_vec_chunks"))

    search_index(storage).ensure_dimensions(embedder.dimensions)

    with storage.read() as session:
        models = dict(session.execute(text("SELECT id, embedding_model FROM memories")).all())
    assert models == {long_id: None, short_id: embedder.model_id}
    assert search(storage, embedder, "budget meetings")[0].id == long_id  # still searchable
    assert backfill_embeddings(storage, embedder, [MEMORY]) == {MEMORY: 1}
    assert holds(search(storage, embedder, QUESTION)[0], content)
    with storage.write() as session:
        session.execute(delete(Memory).where(Memory.id == long_id))
    assert chunk_rows(storage) == []


@pytest.mark.sqlite_only("the SQLite index's own tables and upgrades")
def test_a_database_from_before_sentence_windows_gets_them_by_backfill(
        storage: StoragePort, embedder: Any, memories: MemoryService) -> None:
    with storage.write() as session:
        session.add(ChatSession(id="imported", source="import"))
    turn = {"source": "import", "session_id": "imported", "origin": {"speaker": "Dana"}}
    turn_id, short_id, dotted = memories.add_many([
        MemorySpec(WEDDING_TURN, **turn), MemorySpec("Dana: my flat is freezing", **turn),
        MemorySpec("Dana: Dr. Okafor moved it to 3.30 on Friday", **turn)])
    memory_id = memories.add_many([MemorySpec(f"Not a turn. {RENT}")])[0]
    with storage.write() as session:  # as a Hearth with windows for long texts only left it
        session.execute(text("DELETE FROM memories_vec_chunks"))
        session.execute(text("DELETE FROM vector_index_meta WHERE key = 'windows'"))

    search_index(storage).ensure_dimensions(embedder.dimensions)

    with storage.read() as session:
        models = dict(session.execute(text("SELECT id, embedding_model FROM memories")).all())
    # queued: the turns that may have two sentences ("Dr. Okafor" may; re-embedding is
    # harmless); a memory that is not a turn gets no sentence windows, so it is not queued
    assert models == {turn_id: None, short_id: embedder.model_id, dotted: None,
                      memory_id: embedder.model_id}
    assert backfill_embeddings(storage, embedder, [MEMORY]) == {MEMORY: 2}
    assert [row[1] for row in chunk_rows(storage, item_id=turn_id)] == [1, 2, 3]
    assert chunk_rows(storage, item_id=dotted) == []  # one sentence after all
    search_index(storage).ensure_dimensions(embedder.dimensions)
    with storage.read() as session:  # recorded: nothing is queued a second time
        assert session.execute(text("SELECT count(*) FROM memories "
                                    "WHERE embedding_model IS NULL")).scalar_one() == 0


def test_a_long_note_is_found_by_its_window(storage: StoragePort, embedder: Any) -> None:
    notes = NoteService(storage, embedder)
    paragraphs = meeting_notes()
    paragraphs.insert(len(paragraphs) // 2, PLANTED)
    note = notes.save("Meeting notes", "\n\n".join(paragraphs))
    notes.save("Groceries", "Oat milk, bread, apples.")
    assert {row[0] for row in chunk_rows(storage, "notes")} == {note.id}

    (hit,) = search(storage, embedder, QUESTION, IndexedKind.NOTE, limit=1)

    whole = document_text(IndexedKind.NOTE, (note.title, note.content))
    assert hit.id == note.id and holds(hit, whole)


def test_a_long_interaction_gets_windows_from_the_backfill(storage: StoragePort,
                                                          embedder: Any) -> None:
    reply = "\n\n".join(meeting_notes()[:20] + [PLANTED] + meeting_notes()[20:])
    with storage.write() as session:
        session.add_all([Interaction(user_message="Tell me about the trip again.",
                                     agent_response=reply),
                         Interaction(user_message="Thanks!", agent_response="Any time.")])
    backfill_embeddings(storage, embedder, [IndexedKind.INTERACTION])
    assert {row[0] for row in chunk_rows(storage, "interactions")} == {1}

    hit = search(storage, embedder, QUESTION, IndexedKind.INTERACTION)[0]

    assert hit.id == 1
    assert holds(hit, document_text(IndexedKind.INTERACTION,
                                    ("Tell me about the trip again.", reply)))
    with storage.write() as session:
        session.execute(update(Interaction).where(Interaction.id == 1)
                        .values(agent_response="Shorter now."))
    assert chunk_rows(storage, "interactions") == []


def test_consolidation_still_sees_one_vector_per_row(storage: StoragePort, embedder: Any,
                                                     memories: MemoryService) -> None:
    ids = memories.add_many([MemorySpec(long_memory()), MemorySpec("Short.")])
    with storage.read() as session:
        found, matrix = storage.search.vectors(session, MEMORY)
    assert found.tolist() == ids and matrix.shape == (2, embedder.dimensions)


@pytest.mark.sqlite_only("the SQLite index's own tables and upgrades")
def test_the_window_tables_exist_after_open_and_stay_empty_for_short_rows(
        storage: StoragePort, embedder: Any, memories: MemoryService) -> None:
    memories.add("I prefer green tea over coffee in the morning.")
    NoteService(storage, embedder).save("Packing list", "Boxes, tape, labels")
    with storage.read() as session:
        for table in ("memories", "notes", "interactions", "user_facts"):
            columns = [row[1] for row in session.execute(
                text(f"PRAGMA table_info({table}_vec_chunks)"))]
            assert columns == ["id", "item_id", "position", "char_start", "char_end",
                               "embedding", "bits"]
            indexed = [row[2] for row in session.execute(
                text(f"PRAGMA index_info({table}_vec_chunks_item)"))]
            assert indexed == ["item_id", "bits"]
            assert session.scalar(text(f"SELECT count(*) FROM {table}_vec_chunks")) == 0
        triggers = set(session.scalars(text(
            "SELECT name FROM sqlite_master WHERE type = 'trigger' "
            "AND name LIKE '%_vec_chunks_%'")))
    # per kind: deleting or changing the row clears its windows (2), and the ANN change
    # log follows every insert, update and delete of a window (3)
    assert len(triggers) == 4 * 5


def test_a_long_fact_value_gets_windows(storage: StoragePort, embedder: Any,
                                       tmp_path: Path) -> None:
    from core.home.paths import HearthPaths
    from core.knowledge.facts import FactService
    from core.forgetting.service import ForgetService

    facts = FactService(storage, embedder)
    value = "\n\n".join(meeting_notes()[:12] + [PLANTED] + meeting_notes()[12:])
    facts.remember("holiday_notes", value)
    hit = search(storage, embedder, QUESTION, IndexedKind.FACT, limit=1)[0]
    assert holds(hit, document_text(IndexedKind.FACT, ("holiday_notes", value)))
    ForgetService(storage, embedder, HearthPaths(tmp_path)).forget("holiday_notes")
    assert chunk_rows(storage, "user_facts") == []


def test_note_rows_written_directly_are_chunked_by_the_backfill(storage: StoragePort,
                                                               embedder: Any) -> None:
    with storage.write() as session:
        session.add(Note(title="Imported", content=long_memory()))
    backfill_embeddings(storage, embedder, [IndexedKind.NOTE])
    assert len(chunk_rows(storage, "notes")) > 20


def test_recall_finds_a_long_memory_by_a_sentence_from_its_middle_and_shows_it(
        storage: StoragePort, embedder: Any, memories: MemoryService) -> None:
    """End to end through recall: the result names the window that matched, and that
    excerpt (not the text's beginning) is what search shows and the model is given."""
    from core.config import Settings
    from core.conversation.context_blocks import classify
    from core.recall import RecallQuery, RecallService

    content = long_memory()
    memories.add_many([MemorySpec(text_) for text_ in DISTRACTORS])
    (long_id,) = memories.add_many([MemorySpec(content)])
    results = RecallService(storage, embedder, Settings()).recall(RecallQuery(QUESTION, k=3))
    found = next(result for result in results if result.id == long_id)
    assert found.excerpt is not None and PLANTED in found.excerpt
    assert not content.startswith(found.excerpt)
    assert found.signals["vector"]["window"] >= 1
    retrieved = classify(found)
    assert retrieved is not None and PLANTED in retrieved.text

    from core.views.memory_browse import MemoryFilter, search
    from desktop.inspector.memory_table import COLUMNS

    listed = next(row for row in search(storage, RecallService(storage, embedder, Settings()),
                                        QUESTION, MemoryFilter()) if row.id == long_id)
    assert listed.excerpt == found.excerpt
    preview = COLUMNS[1].text(listed)
    assert preview.startswith("… " + " ".join(found.excerpt.split())[:40])

    from core.views.memory_detail import memory_detail
    from desktop.inspector.memory_detail import render
    from desktop.inspector.memory_signals import summarise

    assert "passage" in summarise(listed.signals)  # "meaning #n (similarity …, passage k)"
    shown = render(memory_detail(storage, long_id), listed)
    assert shown.index("The part that matched") < shown.index("All of it")
