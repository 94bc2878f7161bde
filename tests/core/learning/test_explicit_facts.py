"""Explicit-fact rules: statements the user makes outright are caught without any LLM, and
questions, negations, hypotheticals, other people and the past are not."""

from __future__ import annotations

import time

import pytest

from core.knowledge.facts import CATEGORIES
from core.learning.explicit_facts import (
    MAX_CLAUSE_CHARS,
    MAX_MESSAGE_CHARS,
    ExplicitFact,
    category_for_key,
    extract_explicit_facts,
)

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


# The relation forms (people, pets, work, study, places): 2026 additions. Each phrasing
# with the exact facts it must give; a fact about someone close is keyed by who it is
# about and is "personal"; the user's studies are "work".
RELATION_MATCHES: list[tuple[str, str | None, list[tuple[str, str, str, bool]]]] = [
    # family and partner
    ("My sister Priya lives in Lisbon", None,
     [("sister_name", "Priya", "personal", False),
      ("sister_home_city", "Lisbon", "personal", False)]),
    ("my sister Priya lives in Lisbon now", None,
     [("sister_name", "Priya", "personal", False),
      ("sister_home_city", "Lisbon", "personal", False)]),
    ("My sister Priya is living in Lisbon with her husband", None,
     [("sister_name", "Priya", "personal", False),
      ("sister_home_city", "Lisbon", "personal", False)]),
    ("My older sister Priya lives in Lisbon and works as a nurse", None,
     [("older_sister_name", "Priya", "personal", False),
      ("older_sister_home_city", "Lisbon", "personal", False),
      ("older_sister_job_title", "nurse", "personal", False)]),
    ("my little brother Tom just moved to Berlin", None,
     [("little_brother_name", "Tom", "personal", False),
      ("little_brother_home_city", "Berlin", "personal", False)]),
    ("My twin sister Ana lives in Porto", None,
     [("twin_sister_name", "Ana", "personal", False),
      ("twin_sister_home_city", "Porto", "personal", False)]),
    ("My mum lives in Leeds", None, [("mum_home_city", "Leeds", "personal", False)]),
    ("My parents moved to Spain last year", None,
     [("parents_home_city", "Spain", "personal", False)]),
    ("my brother's name is Tom", None, [("brother_name", "Tom", "personal", False)]),
    ("My brother is called Tom", None, [("brother_name", "Tom", "personal", False)]),
    ("my partner's called Sam", None, [("partner_name", "Sam", "personal", False)]),
    ("My partner is called Sam", None, [("partner_name", "Sam", "personal", False)]),
    ("my girlfriend is called Sam", None, [("girlfriend_name", "Sam", "personal", False)]),
    ("My husband's name is Marco", None, [("husband_name", "Marco", "personal", False)]),
    ("My husband Marco is a chef", None,
     [("husband_name", "Marco", "personal", False),
      ("husband_job_title", "chef", "personal", False)]),
    ("My husband, Marco, is a chef at Tasca da Esquina", None,
     [("husband_name", "Marco", "personal", False),
      ("husband_job_title", "chef", "personal", False),
      ("husband_employer", "Tasca da Esquina", "personal", False)]),
    ("My husband Marco's a chef", None,
     [("husband_name", "Marco", "personal", False),
      ("husband_job_title", "chef", "personal", False)]),
    ("My fiancée Joana is a lawyer", None,
     [("fiance_name", "Joana", "personal", False),
      ("fiance_job_title", "lawyer", "personal", False)]),
    ("my brother-in-law Tom is a plumber", None,
     [("brother_in_law_name", "Tom", "personal", False),
      ("brother_in_law_job_title", "plumber", "personal", False)]),
    ("My wife works at the hospital", None,
     [("wife_employer", "the hospital", "personal", False)]),
    ("My sister Maya moved to Lisbon last spring and works as a nurse there.", None,
     [("sister_name", "Maya", "personal", False),
      ("sister_home_city", "Lisbon", "personal", False),
      ("sister_job_title", "nurse", "personal", False)]),
    ("I work as a nurse here", None, [("job_title", "nurse", "work", False)]),
    ("My wife Ana works as a nurse", None,
     [("wife_name", "Ana", "personal", False), ("wife_job_title", "nurse", "personal", False)]),
    ("My wife is a doctor at St Mary's", None,
     [("wife_job_title", "doctor", "personal", False),
      ("wife_employer", "St Mary's", "personal", False)]),
    ("My dad works for the council", None, [("dad_employer", "the council", "personal", False)]),
    ("My mum turned 70", None, [("mum_age", "70", "personal", False)]),
    ("My mom just turned 65 last week", None, [("mom_age", "65", "personal", False)]),
    ("My mum is 70", None, [("mum_age", "70", "personal", False)]),
    ("My grandma turned 90 yesterday", None, [("grandma_age", "90", "personal", False)]),
    ("My son Leo is 5", None,
     [("son_name", "Leo", "personal", False), ("son_age", "5", "personal", False)]),
    ("My son is 5 years old", None, [("son_age", "5", "personal", False)]),
    ("My daughter is 18 months old", None, [("daughter_age", "18 months", "personal", False)]),
    ("I have two kids, Ana and Leo", None,
     [("number_of_kids", "two", "personal", False),
      ("kids_names", "Ana and Leo", "personal", False)]),
    ("I have two kids: Ana and Leo", None,
     [("number_of_kids", "two", "personal", False),
      ("kids_names", "Ana and Leo", "personal", False)]),
    ("We have three kids", None, [("number_of_kids", "three", "personal", False)]),
    ("I've got two daughters, Ana and Mia", None,
     [("number_of_daughters", "two", "personal", False),
      ("daughters_names", "Ana and Mia", "personal", False)]),
    ("I have a daughter, Ana", None, [("daughter_name", "Ana", "personal", False)]),
    ("I have a son called Leo who goes to Riverside Primary", None,
     [("son_name", "Leo", "personal", False),
      ("son_school", "Riverside Primary", "personal", False)]),
    ("My daughter Ana goes to Riverside Primary", None,
     [("daughter_name", "Ana", "personal", False),
      ("daughter_school", "Riverside Primary", "personal", False)]),
    ("Our son Leo goes to Riverside Primary", None,
     [("son_name", "Leo", "personal", False),
      ("son_school", "Riverside Primary", "personal", False)]),
    ("My kids, Ana and Leo, go to Riverside Primary", None,
     [("kids_names", "Ana and Leo", "personal", False),
      ("kids_school", "Riverside Primary", "personal", False)]),
    ("my boyfriend Alex", None, [("boyfriend_name", "Alex", "personal", False)]),
    ("My boyfriend Alex and I are going to Paris", None,
     [("boyfriend_name", "Alex", "personal", False)]),
    ("my best friend Tom lives in Leeds", None,
     [("best_friend_name", "Tom", "personal", False),
      ("best_friend_home_city", "Leeds", "personal", False)]),
    ("I'm married to Sam", None, [("spouse_name", "Sam", "personal", False)]),
    ("I'm engaged to Joana", None, [("fiance_name", "Joana", "personal", False)]),
    ("My Sister Lives In Lisbon", None, [("sister_home_city", "Lisbon", "personal", False)]),
    ("my sister lives in lisbon", None, [("sister_home_city", "lisbon", "personal", False)]),
    # pets
    ("Our dog Biscuit", None, [("dog_name", "Biscuit", "personal", False)]),
    ("our dog Biscuit loves the beach", None, [("dog_name", "Biscuit", "personal", False)]),
    ("I have a cat named Miso", None, [("cat_name", "Miso", "personal", False)]),
    ("I've got a hamster called Nibbles", None, [("hamster_name", "Nibbles", "personal", False)]),
    ("We have a cat, Miso", None, [("cat_name", "Miso", "personal", False)]),
    ("We have two dogs, Rex and Bolt", None,
     [("number_of_dogs", "two", "personal", False),
      ("dogs_names", "Rex and Bolt", "personal", False)]),
    ("my dog is called Rex", None, [("dog_name", "Rex", "personal", False)]),
    ("Our cat is called Mochi", None, [("cat_name", "Mochi", "personal", False)]),
    ("our cat's name is Mochi", None, [("cat_name", "Mochi", "personal", False)]),
    ("We adopted a greyhound called Bolt", None, [("greyhound_name", "Bolt", "personal", False)]),
    ("We rescued a greyhound named Bolt", None, [("greyhound_name", "Bolt", "personal", False)]),
    ("we just got a puppy called Max", None, [("puppy_name", "Max", "personal", False)]),
    ("I adopted a kitten named Tofu", None, [("kitten_name", "Tofu", "personal", False)]),
    ("my dog Rex is 12", None,
     [("dog_name", "Rex", "personal", False), ("dog_age", "12", "personal", False)]),
    # work
    ("I started at Helio Energy", None, [("employer", "Helio Energy", "work", False)]),
    ("I've just started at Helio Energy", None, [("employer", "Helio Energy", "work", False)]),
    ("I started working at Helio Energy last month", None,
     [("employer", "Helio Energy", "work", False)]),
    ("I started a new job at Acme", None, [("employer", "Acme", "work", False)]),
    ("I just joined Helio Energy", None, [("employer", "Helio Energy", "work", False)]),
    ("I joined Helio Energy in March", None, [("employer", "Helio Energy", "work", False)]),
    ("I joined Helio Energy as a data engineer", None,
     [("employer", "Helio Energy", "work", False), ("job_title", "data engineer", "work", False)]),
    ("I work for the council", None, [("employer", "the council", "work", False)]),
    ("I now work for Helio Energy", None, [("employer", "Helio Energy", "work", False)]),
    ("I got a job at Acme", None, [("employer", "Acme", "work", False)]),
    ("I got a new job at Acme!", None, [("employer", "Acme", "work", False)]),
    ("I landed a job at Acme", None, [("employer", "Acme", "work", False)]),
    ("I got a job as a nurse at St Mary's", None,
     [("job_title", "nurse", "work", False), ("employer", "St Mary's", "work", False)]),
    ("I signed the offer from Helio Energy", None, [("employer", "Helio Energy", "work", False)]),
    ("I accepted the offer from Helio Energy", None,
     [("employer", "Helio Energy", "work", False)]),
    ("I signed the contract with Helio Energy", None,
     [("employer", "Helio Energy", "work", False)]),
    ("I was hired by Acme", None, [("employer", "Acme", "work", False)]),
    ("I'm a nurse at St Mary's", None,
     [("job_title", "nurse", "work", False), ("employer", "St Mary's", "work", False)]),
    ("I'm a nurse", None, [("job_title", "nurse", "work", False)]),
    ("I am a software engineer at Google", None,
     [("job_title", "software engineer", "work", False), ("employer", "Google", "work", False)]),
    ("I'm a teacher too", None, [("job_title", "teacher", "work", False)]),
    ("I'm currently a student at Leeds", None,
     [("job_title", "student", "work", False), ("school", "Leeds", "work", False)]),
    ("I'm a nurse and work at St Mary's", None,
     [("job_title", "nurse", "work", False), ("employer", "St Mary's", "work", False)]),
    ("I moved to Porto and started at Helio Energy", None,
     [("home_city", "Porto", "location", False), ("employer", "Helio Energy", "work", False)]),
    ("I live in Porto and work at Farfetch", None,
     [("home_city", "Porto", "location", False), ("employer", "Farfetch", "work", False)]),
    ("guess what, I got a job at Acme!", None, [("employer", "Acme", "work", False)]),
    # study
    ("I study law at Leeds", None,
     [("field_of_study", "law", "work", False), ("school", "Leeds", "work", False)]),
    ("I study medicine", None, [("field_of_study", "medicine", "work", False)]),
    ("I'm studying law at the University of Leeds", None,
     [("field_of_study", "law", "work", False),
      ("school", "the University of Leeds", "work", False)]),
    ("I study at Leeds", None, [("school", "Leeds", "work", False)]),
    ("I'm doing a PhD in marine ecology", None,
     [("degree", "PhD", "work", False), ("field_of_study", "marine ecology", "work", False)]),
    ("I'm doing a PhD in marine ecology at Porto", None,
     [("degree", "PhD", "work", False), ("field_of_study", "marine ecology", "work", False),
      ("school", "Porto", "work", False)]),
    ("I'm doing a master's in law at UCL", None,
     [("degree", "master's", "work", False), ("field_of_study", "law", "work", False),
      ("school", "UCL", "work", False)]),
    ("I'm doing a degree in history", None, [("field_of_study", "history", "work", False)]),
    ("I'm working towards an MBA", None, [("degree", "MBA", "work", False)]),
    ("I have a PhD in chemistry from Oxford", None,
     [("degree", "PhD", "work", False), ("field_of_study", "chemistry", "work", False),
      ("alma_mater", "Oxford", "work", False)]),
    ("I go to Riverside College", None, [("school", "Riverside College", "work", False)]),
    ("I attend Riverside College", None, [("school", "Riverside College", "work", False)]),
    ("I go to Leeds Uni", None, [("school", "Leeds Uni", "work", False)]),
    ("I graduated from Porto University", None,
     [("alma_mater", "Porto University", "work", False)]),
    ("I graduated from Porto University in 2015", None,
     [("alma_mater", "Porto University", "work", False)]),
    ("I've just graduated from the University of Leeds", None,
     [("alma_mater", "the University of Leeds", "work", False)]),
    # places
    ("I live in Lisbon these days", None, [("home_city", "Lisbon", "location", False)]),
    ("I now live in Lisbon", None, [("home_city", "Lisbon", "location", False)]),
    ("We both live in Lisbon", None, [("home_city", "Lisbon", "location", False)]),
    ("I've been living in Lisbon for three years", None,
     [("home_city", "Lisbon", "location", False)]),
    ("I've lived in Lisbon for ten years", None, [("home_city", "Lisbon", "location", False)]),
    ("I moved to Porto last week", None, [("home_city", "Porto", "location", False)]),
    ("We moved to Porto last week", None, [("home_city", "Porto", "location", False)]),
    ("I'm from Ghana", None, [("origin", "Ghana", "location", False)]),
    ("I'm originally from Ghana", None, [("origin", "Ghana", "location", False)]),
    ("I come from Ghana", None, [("origin", "Ghana", "location", False)]),
    ("I'm from Leeds originally", None, [("origin", "Leeds", "location", False)]),
    ("I grew up in Leeds", None, [("hometown", "Leeds", "location", False)]),
    ("I was raised in Leeds", None, [("hometown", "Leeds", "location", False)]),
    ("I grew up in a small village in Kent", None,
     [("hometown", "a small village in Kent", "location", False)]),
    ("I was born in Leeds", None, [("birthplace", "Leeds", "location", False)]),
    ("I was born in Leeds in 1990", None, [("birthplace", "Leeds", "location", False)]),
    ("I was born in 1990", None, [("birth_year", "1990", "personal", False)]),
    ("We bought a flat in Graça", None, [("home", "flat in Graça", "location", False)]),
    ("We've just bought a two-bedroom flat in Graça", None,
     [("home", "two-bedroom flat in Graça", "location", False)]),
    ("We bought a house in Porto", None, [("home", "house in Porto", "location", False)]),
    ("We rent a flat in Graça", None, [("home", "flat in Graça", "location", False)]),
    ("Yesterday I moved to Porto", None, [("home_city", "Porto", "location", False)]),
    ("I'm 34", None, [("age", "34", "personal", False)]),
    ("I'm 34 years old", None, [("age", "34", "personal", False)]),
    ("I turned 40 last week", None, [("age", "40", "personal", False)]),
    ("I live in Lisbon and have two kids, Ana and Leo", None,
     [("home_city", "Lisbon", "location", False), ("number_of_kids", "two", "personal", False),
      ("kids_names", "Ana and Leo", "personal", False)]),
    # odd unicode
    ("Ｉ ｌｉｖｅ ｉｎ Ｌｉｓｂｏｎ", None, [("home_city", "Lisbon", "location", False)]),
    ("I li\u200bve in Lis\xadbon", None, [("home_city", "Lisbon", "location", False)]),
    ("I live in \u202eLisbon\u202c", None, [("home_city", "Lisbon", "location", False)]),
    ("My sister Priya lives in Lisbon 🇵🇹", None,
     [("sister_name", "Priya", "personal", False),
      ("sister_home_city", "Lisbon", "personal", False)]),
    ("I live in Lisbon\x00", None, [("home_city", "Lisbon", "location", False)]),
]

RELATION_MUST_NOT_MATCH: list[tuple[str, str | None]] = [
    # questions
    ("where does my sister live?", None),
    ("Where does my sister live", None),
    ("is my dog called Rex?", None),
    ("Is my dog called Rex", None),
    ("Does my sister Priya live in Lisbon", None),
    ("Did I tell you I started at Helio?", None),
    ("Have I told you my sister lives in Lisbon", None),
    ("my sister lives in Lisbon, right?", None),
    ("what's my husband's job?", None),
    ("Should I accept the offer from Helio Energy?", None),
    # hypotheticals, plans and negations
    ("if I moved to Porto", None),
    ("If my sister moved to Lisbon, I'd visit more", None),
    ("I didn't start at Helio", None),
    ("I never joined Acme", None),
    ("I might join Acme", None),
    ("I may start at Helio next month", None),
    ("I'm thinking of joining Helio Energy", None),
    ("I'm starting at Helio next week", None),
    ("I want to study law at Leeds", None),
    ("I'd love to live in Lisbon", None),
    ("I hope to graduate from Porto University", None),
    ("I didn't get the job at Acme", None),
    ("I didn't sign the offer from Helio", None),
    ("I almost signed the offer from Helio", None),
    ("I haven't joined Acme yet", None),
    ("We're not buying a flat in Graça", None),
    ("We might buy a flat in Graça", None),
    ("I wish I had a dog called Rex", None),
    ("my sister doesn't live in Lisbon anymore", None),
    ("I got a job offer from Acme", None),
    ("I'm a former nurse", None),
    # other people's statements and lives
    ("she lives in Lisbon", None),
    ("her husband Marco is a chef", None),
    ("his dog Biscuit is cute", None),
    ("Tom's sister lives in Lisbon", None),
    ("my friend's sister Priya lives in Lisbon", None),
    ("my sister said she lives in Lisbon", None),
    # reported speech and quoted text
    ("my friend said I work too much", None),
    ("My friend said, I work too much", None),
    ("My mum says I live in a pigsty", None),
    ("My boss told me, I'm a nurse at heart", None),
    ('"I live in Lisbon," she said.', None),
    ('"My sister Priya lives in Lisbon"', None),
    ("'I work at Acme,' he wrote.", None),
    ("I live in Lisbon, she said.", None),
    ('She wrote: "I work at Acme"', None),
    # idioms that look like places, jobs, schools, employers
    ("my sister lives in fear", None),
    ("My sister lives in fear of spiders", None),
    ("I live in hope", None),
    ("my mum lives in her own world", None),
    ("My brother lives in denial", None),
    ("my sister lives in squalor", None),
    ("my dad is a saint", None),
    ("My husband is a good man", None),
    ("my wife is a nightmare", None),
    ("I'm a big fan of Helio Energy", None),
    ("I'm a mess", None),
    ("I'm a morning person", None),
    ("I'm doing a great job", None),
    ("I started at the bottom", None),
    ("I started at 9", None),
    ("I started at 9am today", None),
    ("I joined the gym", None),
    ("I just joined the choir", None),
    ("I joined Twitter", None),
    ("We just joined the BBC", None),
    ("I go to the gym every day", None),
    ("I go to church", None),
    ("I go to Paris every summer", None),
    ("I study hard", None),
    ("I study every evening", None),
    ("I'm studying for my exams", None),
    ("I'm from the future", None),
    ("I'm from around here", None),
    ("I grew up in a bubble", None),
    ("my mum turned the oven off", None),
    ("My son is 5 minutes away", None),
    ("I'm 100% sure", None),
    ("I'm 30 minutes late", None),
    # no value at all
    ("My sister", None),
    ("Our dog", None),
    ("I have a dog", None),
    ("I have a lot of work", None),
    ("My husband DEFINITELY Lives In Leeds", None),
    # odd Unicode
    ("I live in 🏠", None),
    ("I live in \u200b", None),
    ("my dog is called 🐶", None),
    ("I work at ⚙️", None),
    ("I live in Z̸̢̛a̷̡l̶̢g̷o̸", None),
    ("\u0399 live in Lisbon", None),   # a Greek capital iota, not "I"
    ("my sister lives in \ufffd\ufffd", None),
    # long pasted text: someone else's words
    ("Here's what my landlord wrote:\nI live in flat 3 and I work at the council.\n"
     "My dog is called Rex.", None),
    ("Can you help me reply to this?\n> I work at Acme\n> My name is Bob", None),
    ("What does this do?\n```\nmy name is Bob\nI live in Lisbon\n```", None),
    ("On Mon, 3 Mar 2025 at 10:00, Ana Silva wrote:\nHi! I moved to Porto last week.", None),
    ("---------- Forwarded message ---------\nFrom: Tom\nI just joined Helio Energy.", None),
    ("| name | city |\n| I live in Lisbon | x |", None),
    ("I live in Lisbon, " + "which is a city I have loved for a very long time " * 10, None),
]


# Made up, not stated: hypotheticals, fiction, examples (the rules must not invent facts).
MADE_UP: list[tuple[str, str | None]] = [
    ("Hypothetically, I live in Paris", None),
    ("hypothetically my sister Priya lives in Lisbon", None),
    ("In my novel, my sister Priya lives in Lisbon", None),
    ("In the story my brother Tom works at Google", None),
    ("For a short story: my husband Marco is a chef", None),
    ("Let's say I live in Paris", None),
    ("let's pretend I'm a nurse", None),
    ("Suppose I live in Rome", None),
    ("Imagine my dog is called Rex", None),
    ("What if I lived in Rome", None),
    ("In a world where I live in Tokyo, my cat is named Miso", None),
    ("In my dream my sister Priya lived in Lisbon", None),
    ("For example: my name is John Smith", None),
    ("In this game I work at Acme", None),
]


def summary(facts: list[ExplicitFact]) -> list[tuple[str, str, str, bool]]:
    return [(fact.key, fact.value, fact.category, fact.is_correction) for fact in facts]


def test_there_are_enough_phrasings() -> None:
    assert len(MATCHES) + len(MUST_NOT_MATCH) >= 40
    assert len(MUST_NOT_MATCH) >= 12


def test_there_are_enough_relation_phrasings() -> None:
    assert len(RELATION_MATCHES) >= 80
    assert len(RELATION_MUST_NOT_MATCH) >= 60


@pytest.mark.parametrize(("message", "last_key", "expected"), MATCHES + RELATION_MATCHES,
                         ids=[case[0][:40] for case in MATCHES + RELATION_MATCHES])
def test_explicit_statements_are_caught(message: str, last_key: str | None,
                                        expected: list[tuple[str, str, str, bool]]) -> None:
    facts = extract_explicit_facts(message, last_fact_key=last_key)
    assert summary(facts) == expected
    for fact in facts:
        assert fact.category in CATEGORIES
        assert fact.rule


@pytest.mark.parametrize(("message", "last_key"),
                         MUST_NOT_MATCH + RELATION_MUST_NOT_MATCH + MADE_UP,
                         ids=[case[0][:40]
                              for case in MUST_NOT_MATCH + RELATION_MUST_NOT_MATCH + MADE_UP])
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


def test_a_note_asked_for_is_a_note_not_a_fact_kept_as_written() -> None:
    """ "note: ..." asks for a note (held for the user's confirmation); kept as written it
    was also a fact named by its first words ("the_wifi_password_at"). A fact a rule reads
    in it is still learned."""
    assert extract_explicit_facts("note: the wifi password at the cabin is on the fridge") == []
    assert extract_explicit_facts("Please note: I parked on level 3") == []
    (code,) = extract_explicit_facts("note: my locker code is 4471")
    (kept,) = extract_explicit_facts("remember: I parked on level 3")
    assert (code.key, code.value) == ("locker_code", "4471")
    assert kept.rule == "remember_that"


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
    from core.learning.explicit_facts.engine import HEAD_CATEGORY

    assert set(HEAD_CATEGORY.values()) <= set(CATEGORIES)


def test_every_rule_a_family_makes_is_tried_once() -> None:
    """A rule is tried only where ``RULES`` lists it: one left out would never match."""
    import importlib
    import pkgutil

    from core.learning import explicit_facts
    from core.learning.explicit_facts.engine import Rule
    from core.learning.explicit_facts.rules import RULES

    made = [value for module in pkgutil.iter_modules(explicit_facts.__path__)
            if module.name != "rules"
            for value in vars(importlib.import_module(
                f"{explicit_facts.__name__}.{module.name}")).values()
            if isinstance(value, Rule)]
    assert len(made) == len(RULES) == len(set(map(id, RULES)))
    assert {id(rule) for rule in made} == {id(rule) for rule in RULES}


@pytest.mark.parametrize(("key", "category"), [
    ("home_city", "location"), ("preferred_name", "personal"), ("allergies", "health"),
    ("dietary_restrictions", "health"), ("job_title", "work"), ("favourite_colour", "preference"),
    ("prefers_window_seats", "preference"), ("locker_code", "general"),
    ("sister_home_city", "personal"), ("older_sister_name", "personal"),
    ("number_of_kids", "personal"), ("husband_employer", "personal"),
    ("guinea_pig_name", "personal"), ("school", "work"), ("field_of_study", "work"),
    ("alma_mater", "work"), ("origin", "location"), ("hometown", "location"),
    ("birth_year", "personal"), ("lab_results", "general"),
])
def test_category_for_key(key: str, category: str) -> None:
    assert category_for_key(key) == category


def test_a_long_message_is_read_to_the_end() -> None:
    message = ("I live in Lisbon and " * 2000) + "my name is Ana."
    facts = extract_explicit_facts(message)
    assert ("name", "Ana", "personal", False) in summary(facts)


def test_the_new_rules_say_how_the_fact_was_found() -> None:
    rules = {fact.key: fact.rule for message in (
        "My sister Priya lives in Lisbon", "I have two kids, Ana and Leo",
        "We adopted a greyhound called Bolt", "I signed the offer from Helio Energy",
        "I'm a nurse", "I study law at Leeds", "I'm from Ghana", "We bought a flat in Graça",
    ) for fact in extract_explicit_facts(message)}
    assert rules == {
        "sister_name": "relation", "sister_home_city": "relation",
        "number_of_kids": "has_relation", "kids_names": "has_relation",
        "greyhound_name": "has_relation", "employer": "works_at", "job_title": "job_title",
        "field_of_study": "studies", "school": "studies", "origin": "from", "home": "home"}


def test_what_someone_else_wrote_is_skipped_but_the_users_own_lines_are_read() -> None:
    message = ("My sister Priya lives in Lisbon.\n```\nmy name is Bob\n```\n"
               "> I work at Acme\nI live in Porto.\n\nShe wrote:\nI work at Helio.")
    assert summary(extract_explicit_facts(message)) == [
        ("sister_name", "Priya", "personal", False),
        ("sister_home_city", "Lisbon", "personal", False),
        ("home_city", "Porto", "location", False)]


def test_a_statement_after_reported_speech_in_the_same_sentence_is_not_read() -> None:
    assert extract_explicit_facts("My mum always says, I live in a dream, I work too hard") == []
    assert summary(extract_explicit_facts("I told you, I live in Lisbon")) == [
        ("home_city", "Lisbon", "location", False)]


def test_the_subject_is_not_carried_over_a_negation() -> None:
    assert extract_explicit_facts("I don't live in Lisbon and work at Acme") == []
    assert extract_explicit_facts("I might move to Porto and start at Helio Energy") == []


# --- bounded work ------------------------------------------------------------------------

PATHOLOGICAL = {
    "prose": ("The quick brown fox jumps over the lazy dog. I think, therefore I am. " * 16000),
    "a chain of clauses": "I live in Lisbon and " * 50_000,
    "relations": "my sister Priya lives in Lisbon and my husband Marco is a chef, " * 16_000,
    "a run of spaces": "a" + " " * 1_000_000 + "b",
    "a run of dots": "." * 1_000_000 + "x",
    "a run of commas": "I live in" + " ," * 500_000 + "x",
    "no spaces": "a" * 1_000_000,
    "names": "my kids " + "Ana, " * 200_000,
    "trailing filler": ("my sister lives in Lisbon " + "now " * 98 + "x. ") * 2500,
    "commas in a value": ("no, it's " + ", " * 195 + "x. ") * 2500,
}


@pytest.mark.parametrize("name", list(PATHOLOGICAL))
def test_a_huge_paste_is_read_in_bounded_time(name: str) -> None:
    """A 1 MB paste: only the first ``MAX_MESSAGE_CHARS`` are read, no clause over
    ``MAX_CLAUSE_CHARS``, and every pattern is linear (a run of 20,000 dots used to take
    9 s, a run of spaces 13 s). The time bound is generous on purpose; the structure is
    what keeps it small (well under a second here)."""
    message = PATHOLOGICAL[name]
    assert len(message) >= 1_000_000
    started = time.perf_counter()
    facts = extract_explicit_facts(message, last_fact_key="home_city")
    assert time.perf_counter() - started < 20
    assert len(facts) <= 10


def test_only_the_start_of_a_huge_message_is_read() -> None:
    filler = "Lorem ipsum dolor sit amet. " * (MAX_MESSAGE_CHARS // 28 + 10)
    assert extract_explicit_facts(filler + "I live in Lisbon.") == []
    assert summary(extract_explicit_facts("I live in Lisbon. " + filler)) == [
        ("home_city", "Lisbon", "location", False)]


def test_a_clause_longer_than_the_cap_is_not_read() -> None:
    clause = "I live in Lisbon, " + "which I love " * 40
    assert len(clause) > MAX_CLAUSE_CHARS
    assert extract_explicit_facts(clause) == []
