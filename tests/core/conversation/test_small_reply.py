"""A small model's reply keeps only what the conversation grounds (``core.conversation.
small_reply``): the 135M model's invented biography of the user's sister goes, a short or
grounded sentence stays."""

from __future__ import annotations

from core.conversation.small_reply import NOTHING_LEFT, SmallReply

SAID = "My sister Priya lives in Lisbon and works as a nurse."
INVENTED = ("Priya is indeed a talented nurse who runs her own hospital. She loves to travel "
            "and has been traveling for months now, studying abroad at the University of "
            "Lisbon. She also enjoys teaching English classes from around the world! What more "
            "can I tell you?")


def shown(known: str, reply: str) -> tuple[str, dict[str, int]]:
    small = SmallReply(known)
    text = small.feed(reply) + small.finish()
    return text, dict(small.dropped)


def test_sentences_the_conversation_never_said_are_left_out() -> None:
    text, dropped = shown(SAID, INVENTED)
    assert text == "What more can I tell you?"
    assert dropped == {"ungrounded": 3}


def test_short_and_grounded_sentences_stay() -> None:
    reply = ("Got it: your sister Priya works as a nurse in Lisbon. Lisbon is a lovely city. "
             "Thanks for telling me!")
    assert shown(SAID, reply) == (reply, {})


def test_an_invented_page_goes_and_nothing_left_says_so() -> None:
    text, dropped = shown("I'm allergic to peanuts.",
                          "You can find more information on our Facebook page and website.")
    assert text == NOTHING_LEFT and dropped == {"ungrounded": 1}


def test_invented_dates_and_times_go_and_the_conversations_own_numbers_stay() -> None:
    said = "My friend Ines lives in Porto and plays the violin."
    dates = ("2026-12-29 10:37 PM ET/CET - SEPTEMBER 2018-11-30 19:56 PM ET/CET - NOON / "
             "EST")  # the 135M model's whole answer to it
    text, dropped = shown(said, dates)
    assert text == NOTHING_LEFT and dropped == {"ungrounded": 1}
    told = "I turn 30 on 12 May and have 2 cats."
    reply = "Happy early 30th! Two cats on 12 May sounds like a party."
    assert shown(told, reply) == (reply, {})
