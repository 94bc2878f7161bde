"""Explicit-fact rules: statements the user makes outright are caught without any LLM, and
questions, negations, hypotheticals, other people and the past are not."""

from __future__ import annotations

import pytest

from core.facts import CATEGORIES
from core.learning.explicit_facts import ExplicitFact, category_for_key, extract_explicit_facts

# (message, last_fact_key, [(key, value, category, is_correction), ...])
MATCHES: list[tuple[str, str | None, list[tuple[str, str, str, bool]]]] = [
    ("Remember that my locker code is 4471", None, [("locker_code", "4471", "general", False)]),
    ("Please remember that I prefer window seats.", None,
     [("prefers_window_seats", "window seats", "preference", False)]),
    ("my sister's name is Ines", None, [("sister_name", "Ines", "personal", False)]),
    ("My birthday is 14 March", None, [("birthday", "14 March", "personal", False)]),
    ("my favourite colour is green!", None, [("favourite_colour", "green", "preference", False)]),
    ("I live in Lisbon", None, [("home_city", "Lisbon", "location", False)]),
    ("I moved to Berlin last month", None, [("home_city", "Berlin", "location", False)]),
    ("I've just moved to Porto, Portugal.", None,
     [("home_city", "Porto, Portugal", "location", False)]),
    ("We relocated to Austin, Texas", None, [("home_city", "Austin, Texas", "location", False)]),
    ("i live in berlin now", None, [("home_city", "berlin", "location", False)]),
    ("My wife and I live in Leeds", None, [("home_city", "Leeds", "location", False)]),
    ("We're based in Cape Town now.", None, [("home_city", "Cape Town", "location", False)]),
    ("I live in Lisbon with my partner and two cats", None,
     [("home_city", "Lisbon", "location", False)]),
    ("I live in São Paulo 🇧🇷", None, [("home_city", "São Paulo", "location", False)]),
    ("call me Jo", None, [("preferred_name", "Jo", "personal", False)]),
    ("Please call me Dr. Silva from now on", None,
     [("preferred_name", "Dr. Silva", "personal", False)]),
    ("I go by Sam", None, [("preferred_name", "Sam", "personal", False)]),
    ("You can call me Mo, everyone does", None, [("preferred_name", "Mo", "personal", False)]),
    ("My name is Ana", None, [("name", "Ana", "personal", False)]),
    ("I'm allergic to penicillin", None, [("allergies", "penicillin", "health", False)]),
    ("I am allergic to peanuts and shellfish.", None,
     [("allergies", "peanuts and shellfish", "health", False)]),
    ("I'm severely allergic to bee stings 🐝", None,
     [("allergies", "bee stings", "health", False)]),
    ("I have a severe nut allergy", None, [("allergies", "nut", "health", False)]),
    ("I work at Acme Corp", None, [("employer", "Acme Corp", "work", False)]),
    ("I work for the BBC", None, [("employer", "the BBC", "work", False)]),
    ("I currently work at ACME as a manager", None, [("employer", "ACME", "work", False)]),
    ("I work as a nurse", None, [("job_title", "nurse", "work", False)]),
    ("I work as a data engineer at Spotify", None,
     [("job_title", "data engineer", "work", False), ("employer", "Spotify", "work", False)]),
    ("I'm vegetarian", None, [("dietary_restrictions", "vegetarian", "health", False)]),
    ("I'm a vegan btw", None, [("dietary_restrictions", "vegan", "health", False)]),
    ("I'm lactose intolerant", None,
     [("dietary_restrictions", "lactose intolerant", "health", False)]),
    ("I don't eat pork", None, [("dietary_restrictions", "no pork", "health", False)]),
    ("my email is ana@example.com.", None, [("email", "ana@example.com", "personal", False)]),
    ("my phone number is +351 912 345 678", None,
     [("phone_number", "+351 912 345 678", "personal", False)]),
    ("My pronouns are they/them", None, [("pronouns", "they/them", "personal", False)]),
    ("btw my dog's name is Rex :)", None, [("dog_name", "Rex", "personal", False)]),
    ("My sister is called Ines", None, [("sister_name", "Ines", "personal", False)]),
    ("I prefer tea over coffee", None,
     [("prefers_tea_over_coffee", "tea over coffee", "preference", False)]),
    ("I live in Porto and I work at Farfetch", None,
     [("home_city", "Porto", "location", False), ("employer", "Farfetch", "work", False)]),
    ("My name is Ana. I live in Lisbon, my hometown. I work as a teacher.", None,
     [("name", "Ana", "personal", False), ("home_city", "Lisbon", "location", False),
      ("job_title", "teacher", "work", False)]),
    ("My favourite food is sushi and my favourite drink is tea", None,
     [("favourite_food", "sushi", "preference", False),
      ("favourite_drink", "tea", "preference", False)]),
    ("Remember that the wifi password is hunter2", None,
     [("wifi_password", "hunter2", "general", False)]),
    ("Could you remember that my car is a blue Golf?", None,
     [("car", "a blue Golf", "general", False)]),
    ("Don't forget that my anniversary is June 2nd", None,
     [("anniversary", "June 2nd", "personal", False)]),
    ("Remember: my gate code is 1942#", None, [("gate_code", "1942#", "general", False)]),
    ("remember that Tom's birthday is May 3", None,
     [("tom_birthday", "May 3", "personal", False)]),
    ("remember that I parked on level 3", None,
     [("parked_on_level_3", "I parked on level 3", "general", False)]),
    ("remember: I'm allergic to cats", None, [("allergies", "cats", "health", False)]),
    ("Hearth, remember that I love jazz", None, [("likes_jazz", "jazz", "preference", False)]),
    # corrections
    ("no, it's Lisbon", "home_city", [("home_city", "Lisbon", "location", True)]),
    ("Actually, it's 4472", "locker_code", [("locker_code", "4472", "general", True)]),
    ("No, my sister's name is Inês", None, [("sister_name", "Inês", "personal", True)]),
    ("Actually, I live in Porto now, not Lisbon", None,
     [("home_city", "Porto", "location", True)]),
    ("I mean Porto", "home_city", [("home_city", "Porto", "location", True)]),
    ("No, Lisbon.", "home_city", [("home_city", "Lisbon", "location", True)]),
    ("sorry, call me Jo instead", None, [("preferred_name", "Jo", "personal", True)]),
    ("no, it's Ines", "Sister Name", [("sister_name", "Ines", "personal", True)]),
]

MUST_NOT_MATCH: list[tuple[str, str | None]] = [
    # questions
    ("What is my sister's name?", None),
    ("What's my name", None),
    ("do you remember that I live in Paris?", None),
    ("do you remember that I live in Paris", None),
    ("Remember that trip to Paris?", None),
    # negations
    ("I don't live in Paris anymore", None),
    ("I'm not allergic to anything", None),
    ("I no longer work at Acme", None),
    ("don't call me Bob", None),
    # hypotheticals and the future
    ("If I moved to Berlin, would you still remember me?", None),
    ("I might move to Berlin next year", None),
    ("I'm moving to Berlin next month", None),
    ("I wish I lived in Paris", None),
    ("I'd like to live in Paris", None),
    # other people, reported speech
    ("my friend said she lives in Rome", None),
    ("she lives in Rome", None),
    ("my friend said her name is Ana", None),
    ("The doctor said I'm allergic to latex", None),
    # the past
    ("I lived in Rome for two years", None),
    ("I used to work at Google", None),
    ("we were living in Rome back then", None),
    ("I moved to Berlin in 2010 but left in 2015", None),
    # idioms and chatter that look like facts
    ("my bad", None),
    ("my god, that's funny", None),
    ("my pleasure", None),
    ("my point is that we should go", None),
    ("my day is going well", None),
    ("my job is boring", None),
    ("I love that!", None),
    ("I like how you said that", None),
    ("call me later", None),
    ("call me when you're done", None),
    ("Call me maybe", None),
    ("call me crazy, but I like it", None),
    ("I work from home", None),
    ("I work at night", None),
    ("I live in fear of spiders", None),
    ("I live in a flat", None),
    ("I don't eat much", None),
    ("the weather is nice", None),
    ("remember to buy milk", None),
    ("remember that trip to Paris", None),
    # empty and rambling values
    ("my name is ", None),
    ("my favourite thing is when we all get together on a sunny afternoon", None),
    ("my favourite memory is the summer we spent in the mountains at grandma's place eating "
     "berries and swimming every single day", None),
    # corrections that are not
    ("no, it's Lisbon", None),
    ("no, it's fine", "home_city"),
    ("actually it's been a long day", "home_city"),
    ("No, I don't", "home_city"),
    ("no, thanks", "home_city"),
    ("nope, never mind", "home_city"),
    ("I mean it's fine", "home_city"),
    ("It's Lisbon", "home_city"),
]


def summary(facts: list[ExplicitFact]) -> list[tuple[str, str, str, bool]]:
    return [(fact.key, fact.value, fact.category, fact.is_correction) for fact in facts]


def test_there_are_enough_phrasings() -> None:
    assert len(MATCHES) + len(MUST_NOT_MATCH) >= 40
    assert len(MUST_NOT_MATCH) >= 12


@pytest.mark.parametrize(("message", "last_key", "expected"), MATCHES,
                         ids=[case[0][:40] for case in MATCHES])
def test_explicit_statements_are_caught(message: str, last_key: str | None,
                                        expected: list[tuple[str, str, str, bool]]) -> None:
    facts = extract_explicit_facts(message, last_fact_key=last_key)
    assert summary(facts) == expected
    for fact in facts:
        assert fact.category in CATEGORIES
        assert fact.rule


@pytest.mark.parametrize(("message", "last_key"), MUST_NOT_MATCH,
                         ids=[case[0][:40] for case in MUST_NOT_MATCH])
def test_non_statements_are_not_caught(message: str, last_key: str | None) -> None:
    assert extract_explicit_facts(message, last_fact_key=last_key) == []


def test_the_rule_name_says_how_the_fact_was_found() -> None:
    (remembered,) = extract_explicit_facts("remember that my locker code is 4471")
    (stated,) = extract_explicit_facts("my sister's name is Ines")
    (note,) = extract_explicit_facts("remember that I parked on level 3")
    (moved,) = extract_explicit_facts("I moved to Ghent")
    assert remembered.rule == "remember_that:my_x_is_y"
    assert stated.rule == "my_x_is_y"
    assert note.rule == "remember_that"
    assert moved.rule == "moved_to"


def test_a_later_statement_of_the_same_key_wins() -> None:
    facts = extract_explicit_facts("I live in Porto. Actually, I live in Braga.")
    assert summary(facts) == [("home_city", "Braga", "location", True)]


def test_values_longer_than_the_cap_are_refused() -> None:
    long_name = "A" * 81
    assert extract_explicit_facts(f"remember that my code is {long_name}") == []
    assert extract_explicit_facts(f"remember that my code is {'A' * 80}") != []


def test_keys_are_snake_case() -> None:
    (fact,) = extract_explicit_facts("My Favourite Football-Team is Benfica")
    assert fact.key == "favourite_football_team"


def test_every_category_the_rules_use_is_a_fact_category() -> None:
    from core.learning.explicit_facts import _HEAD_CATEGORY

    assert set(_HEAD_CATEGORY.values()) <= set(CATEGORIES)


@pytest.mark.parametrize(("key", "category"), [
    ("home_city", "location"), ("preferred_name", "personal"), ("allergies", "health"),
    ("dietary_restrictions", "health"), ("job_title", "work"), ("favourite_colour", "preference"),
    ("prefers_window_seats", "preference"), ("locker_code", "general"),
])
def test_category_for_key(key: str, category: str) -> None:
    assert category_for_key(key) == category


def test_a_long_message_is_read_to_the_end() -> None:
    message = ("I live in Lisbon and " * 2000) + "my name is Ana."
    facts = extract_explicit_facts(message)
    assert ("name", "Ana", "personal", False) in summary(facts)
