"""The exclusion gate: whole words and phrases, Unicode-normalised, counted, thread-safe."""

from __future__ import annotations

import logging
import sys
import threading

import pytest

from core.learning.exclusions import ExclusionGate


@pytest.mark.parametrize(("terms", "text", "blocked_by"), [
    (["therapy"], "My Therapy session went well", "therapy"),
    (["THERAPY"], "my therapy session", "THERAPY"),
    (["art"], "I went to an art class", "art"),
    (["art"], "I went to a party", None),                      # whole words only
    (["art"], "Artists are great", None),
    (["art"], "art.", "art"),
    (["mental health"], "Let's talk about mental health today", "mental health"),
    (["mental health"], "mental-health days", "mental health"),    # punctuation between words
    (["mental health"], "MENTAL   HEALTH", "mental health"),
    (["mental health"], "mental_health", "mental health"),
    (["mental health"], "mental, health", "mental health"),
    (["mental health"], "my mental state and my health", None),  # not the phrase
    (["mental health"], "health mental", None),
    (["finance"], "my \ufb01nance plans", "finance"),             # NFKC: the "fi" ligature
    (["finance"], "ＦＩＮＡＮＣＥ", "finance"),                 # NFKC: full-width letters
    (["straße"], "STRASSE 5", "straße"),                         # casefold
    (["café"], "the cafe\u0301 downstairs", "café"),              # composed vs decomposed
    (["café"], "the cafe downstairs", None),                     # accents are kept
    (["ex-wife"], "my ex wife called", "ex-wife"),
    (["Ana"], "ana's birthday", "Ana"),
    (["C++"], "I code in C", "C++"),                             # letters only: "c" is the word
    (["salary", "bank account"], "my bank-account number", "bank account"),
    (["salary", "bank account"], "nothing to see", None),
    ([], "anything at all", None),
])
def test_blocks(terms: list[str], text: str, blocked_by: str | None) -> None:
    assert ExclusionGate(terms).blocks(text) == blocked_by


def test_the_longest_term_is_named_when_terms_overlap() -> None:
    gate = ExclusionGate(["mental", "mental health"])
    assert gate.blocks("mental health matters") == "mental health"
    assert gate.blocks("a mental note") == "mental"


def test_the_first_term_in_the_text_is_named() -> None:
    gate = ExclusionGate(["salary", "divorce"])
    assert gate.blocks("the divorce and the salary") == "divorce"


def test_terms_without_letters_are_ignored_with_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="core.learning.exclusions"):
        gate = ExclusionGate(["  ", "!!!", "work", "Work "])
    assert gate.terms == ("work",)
    assert gate.blocks("!!! and spaces") is None
    assert [record.getMessage() for record in caplog.records] == [
        f"Ignoring exclusion number {number}: it has no letters or digits to match."
        for number in (1, 2)]


def test_regex_characters_in_terms_are_literal() -> None:
    gate = ExclusionGate(["a.b", "(x)"])
    assert gate.blocks("axb") is None
    assert gate.blocks("a.b") == "a.b"
    assert gate.blocks("(x)") == "(x)"


def test_drop_counts_only_what_it_drops() -> None:
    gate = ExclusionGate(["salary"])
    assert gate.drop("my salary is 50k") is True
    assert gate.drop("my name is Ana") is False
    assert gate.drop("SALARY review") is True
    assert gate.dropped == 2


def test_the_counter_is_thread_safe() -> None:
    previous = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)   # switch threads as often as possible to provoke races
    try:
        _hammer_the_counter()
    finally:
        sys.setswitchinterval(previous)


def _hammer_the_counter() -> None:
    gate = ExclusionGate(["secret"])
    barrier = threading.Barrier(8)

    def worker() -> None:
        barrier.wait()
        for _ in range(500):
            gate.drop("a secret thing")
            gate.drop("nothing here")

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert gate.dropped == 8 * 500
