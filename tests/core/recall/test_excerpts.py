"""The part of a long text an agent is given (``core.recall.excerpts``): never over its
bound, around the question's words, whole sentences where they fit."""

from __future__ import annotations

from support.long_text import diary_with

from core.recall.excerpts import excerpt, shares

PLANTED = "The spare key is taped under the blue flowerpot by the shed."


def test_a_text_that_fits_is_whole_and_a_long_one_is_cut_around_the_answer() -> None:
    assert excerpt("Short.", "anything", 100).whole
    diary = diary_with(PLANTED, days=200)
    shown = excerpt(diary, "where is the spare key hidden", 400)
    assert PLANTED in shown.text and len(shown.text) <= 400
    assert diary[shown.start:shown.end] == shown.text and shown.length == len(diary)
    assert shown.text[0].isupper() and shown.text.endswith(".")  # whole sentences


def test_the_window_recall_matched_wins_over_the_words() -> None:
    diary = diary_with(PLANTED, days=60)
    window = diary[1_000:1_300]
    shown = excerpt(diary, "where is the spare key hidden", 600, matched=window)
    assert window.strip() in shown.text and PLANTED not in shown.text


def test_one_endless_line_is_cut_at_words_around_the_first_match() -> None:
    line = " ".join(f"token{index}" for index in range(8_000)) + " flowerpot " + "x" * 50
    shown = excerpt(line, "flowerpot", 300)
    assert "flowerpot" in shown.text and len(shown.text) <= 300
    assert not shown.text.startswith("oken") and line[shown.start - 1] == " "


def test_without_a_word_of_the_question_the_beginning_is_shown() -> None:
    diary = diary_with(PLANTED, days=60)
    assert excerpt(diary, "quantum chromodynamics", 300).start == 0


def test_short_texts_are_whole_and_long_ones_share_the_rest() -> None:
    assert shares([100, 60_000, 50_000, 5_000, 300], 1_200, 6_000) == [
        100, 1_200, 1_200, 1_200, 300]
    assert shares([60_000] * 20, 1_200, 6_000) == [300] * 20
    assert sum(shares([10_000, 7, 9_999], 5_000, 6_000)) <= 6_000
    assert shares([], 1_200, 6_000) == []
