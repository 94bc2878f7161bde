"""Explicit facts, caught by rules: what the user states outright is stored without any LLM.

The embedded model is too weak to trust with "remember that my locker code is 4471", and
the user expects that sentence to be kept, on any machine, every time. So a small table of
readable rules runs on every user message before the LLM extraction, and what they find is
stored with the user's own authority (highest priority).

How a message is read:

1. split into sentences (not after "Dr.", "St." and similar), and sentences into clauses
   at "and I / but my / , I ..." so "I live in Porto and I work at Farfetch" gives two facts;
2. questions are skipped ("what is my sister's name?", "do you remember that I live in
   Paris" with or without the question mark), except polite requests ("could you remember
   that ...?");
3. leading chatter is dropped ("btw", "oh,", "by the way"), and a correction marker ("no,",
   "actually,", "sorry,") marks the facts of that sentence as corrections;
4. "remember that / don't forget that / keep in mind that" makes the rest *explicit*: any
   "my X is Y" or "the X is Y" counts, and a statement no rule understands is still kept as
   a note (``parked_on_level_3 = "I parked on level 3"``);
5. each clause is tried against the rules, which are anchored at its start: "I live in
   Rome" matches, "she lives in Rome", "I might move to Rome", "if I moved to Rome", "I
   don't live in Rome anymore" and "I lived in Rome for two years" do not;
6. the value is cut at the first connector ("because", "but", "with my", ", not", ...),
   trailing time words and filler ("last month", "now", "btw") and punctuation are removed,
   and values that are empty, longer than 80 characters or start like a clause ("that",
   "not", "when", a pronoun) are refused; clauses over 400 characters are not read at all.

Limits, on purpose: without "remember", "my X is Y" only counts for attribute-like X (a
name, a birthday, a favourite anything, an address, a job title...; see ``_HEAD_CATEGORY``),
because "my day is going well" is not a fact. "My sister is Ines" is not read (is it a name
or a description?); "my sister is called Ines" is. "No, it's X" needs the caller to say
which fact was last discussed (``last_fact_key``); a bare "no, Lisbon" is read only when the
value is capitalised or a number. Places are taken as written: "I live in a flat" is
refused (an article and no proper noun), "I live in Lisbon" is kept, lower-case "i live in
berlin" too. English only.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass

from core.facts import normalise_key

MAX_VALUE_CHARS = 80
MAX_CLAUSE_CHARS = 400
"""Longer clauses are rambling, not statements; skipping them also keeps every rule fast."""


@dataclass(frozen=True)
class ExplicitFact:
    """A fact the user stated, found by ``rule``; ``category`` is one of
    ``core.facts.CATEGORIES``. ``rule`` is prefixed ``remember_that:`` when the user asked
    for it to be remembered (a plain ``remember_that`` is a statement kept as written)."""

    key: str
    value: str
    category: str
    rule: str
    is_correction: bool = False


def extract_explicit_facts(message: str, *, last_fact_key: str | None = None
                           ) -> list[ExplicitFact]:
    """Every fact ``message`` states outright, in order; duplicates (same key) keep the last.

    ``last_fact_key`` is the key of the fact the conversation was last about (the one the
    assistant just stated or stored); with it, "no, it's Lisbon" corrects that fact.
    """
    found: dict[str, ExplicitFact] = {}
    last_key = normalise_key(last_fact_key) if last_fact_key else None
    for sentence in _sentences(_normalise(message)):
        for fact in _read_sentence(sentence, last_key):
            found.pop(fact.key, None)
            found[fact.key] = fact
    return list(found.values())


def category_for_key(key: str) -> str:
    """The category a fact key most likely belongs to (``"general"`` when unsure)."""
    words = key.split("_")
    if words[0] in ("favourite", "favorite", "prefers", "likes", "dislikes"):
        return "preference"
    for size in (2, 1):
        head = " ".join(words[-size:])
        if head in _HEAD_CATEGORY:
            return _HEAD_CATEGORY[head]
    return "general"


# --- vocabulary -------------------------------------------------------------------------

_HEAD_CATEGORY: dict[str, str] = {
    **dict.fromkeys(("name", "names", "nickname", "birthday", "birthdate", "age", "pronouns",
                     "email", "phone", "number", "anniversary", "username", "handle",
                     "nationality", "star sign"), "personal"),
    **dict.fromkeys(("city", "hometown", "town", "country", "address", "postcode", "zip",
                     "zip code", "neighbourhood", "neighborhood", "timezone", "time zone",
                     "home"), "location"),
    **dict.fromkeys(("job", "title", "job title", "role", "employer", "company",
                     "profession", "occupation", "boss", "manager", "team"), "work"),
    **dict.fromkeys(("colour", "color", "food", "drink", "dish", "cuisine", "movie", "film",
                     "book", "band", "song", "artist", "genre", "sport", "game", "season"),
                    "preference"),
    **dict.fromkeys(("allergy", "allergies", "diet", "blood type", "medication",
                     "medications", "restrictions", "dietary restrictions", "doctor",
                     "dentist", "gp"), "health"),
}
_BARE_HEADS = {"nickname", "birthday", "birthdate", "age", "pronouns", "email", "phone",
               "number", "anniversary", "username", "nationality", "star sign", "city",
               "hometown", "country", "address", "postcode", "zip", "zip code",
               "neighbourhood", "neighborhood", "timezone", "time zone", "job title",
               "employer", "profession", "occupation", "allergy", "allergies", "blood type",
               "medication", "medications", "dietary restrictions"}
"""Heads that make "my X is Y" a fact on its own (preferences need "favourite")."""

_ABBREVIATIONS = {"dr", "mr", "mrs", "ms", "st", "prof", "jr", "sr", "mt", "vs", "etc",
                  "e.g", "i.e", "no", "approx"}
_QUESTION_START = re.compile(
    r"^(?:what|what's|whats|who|who's|whom|whose|where|where's|when|why|how|which|do|does|"
    r"did|is|are|am|was|were|can|could|would|will|should|shall|have|has|had|may|might|"
    r"isn't|aren't|don't|doesn't|didn't|won't|wouldn't|can't|couldn't|shouldn't)\b", re.I)
_POLITE_REQUEST = re.compile(
    r"^(?:can|could|would|will)\s+you\s+(?:please\s+)?(?:remember|note|keep\s+in\s+mind)\b",
    re.I)
_CHATTER = re.compile(
    r"^(?:(?:hi|hey|hello|ok|okay|so|well|oh|ah|btw|by\s+the\s+way|also|and|fyi|"
    r"just\s+so\s+you\s+know|for\s+your\s+information|quick\s+note|hearth)\b[\s,:!.-]*)+",
    re.I)
_CORRECTION_MARK = re.compile(
    r"^(?:(?:no|nope|nah|actually|sorry|correction|wait|oops|my\s+mistake|my\s+bad)\b"
    r"[\s,:!.-]*)+", re.I)
_REMEMBER = re.compile(
    r"^(?:please\s+)?(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?)?"
    r"(?:(?:remember|don't\s+forget|do\s+not\s+forget|keep\s+in\s+mind)\b(?:\s+that\b|\s*[:,])?"
    r"|(?:note|for\s+the\s+record)(?:\s+that\b|\s*[:,]))\s*(?:please\s+)?", re.I)
_NOT_REMEMBERABLE = re.compile(r"^(?:to|when|me|us|this|that|it|how|where|why|what|if)\b",
                               re.I)
_CLAUSE_SPLIT = re.compile(
    r"(?:\s*[,;]\s*(?:(?:and|but|also|plus)\s+)?|\s+(?:and|but|also|plus)\s+)"
    r"(?=(?:i|i'm|im|i've|i'd|my|we|we're|we've|call\s+me)\b)", re.I)
_NOTE_WORTHY = re.compile(
    r"\b(?:i|i'm|i've|me|my|we|our|is|are|was|were|has|have|had|will|needs?|likes|hates|"
    r"loves|prefers|lives|works)\b|\d", re.I)

# Value cutting: the first connector ends the value.
_CONNECTOR = re.compile(
    r"(?:\s*[,;]\s*(?:and|but|so|because|since|which|who|where|when|as|though|although|"
    r"not|everyone|everybody|people|if|or)\b"
    r"|\s+(?:because|since|but|if|unless|until|although|though|whereas|which|who|so|when|"
    r"where|while|as\s+(?:an?|the|my|our|i|we|it)|and\s+(?:i|we|my|it|he|she|they|you|then|now)|"
    r"with\s+(?:my|our|the|his|her|their|a|an|some|two|three)|"
    r"for\s+(?:work|my|our|the|a|an|now|good|a\s+while|\d+|some|two|three|several|many|"
    r"years|months|weeks)|from\s+now\s+on|instead|not|rather\s+than|or\s+so)\b"
    r"|\s+[-\u2014\u2013(]\s*|\s*\()", re.I)
_TRAILING = re.compile(
    r"(?:[\s,]+(?:(?:last|this|next)\s+(?:week|month|year|summer|winter|spring|autumn|fall|"
    r"weekend)|(?:\d+|a|an|one|two|three|four|five|a\s+few|a\s+couple\s+of|several)\s+"
    r"(?:days?|weeks?|months?|years?)\s+ago|in\s+(?:19|20)\d\d|recently|lately|yesterday|"
    r"today|already|again|finally|now|these\s+days|nowadays|at\s+the\s+moment|currently|"
    r"right\s+now|for\s+now|a\s+while\s+(?:ago|back)|btw|by\s+the\s+way|lol|haha+|hehe|fyi|"
    r"though|too|as\s+well|anymore|thanks|thank\s+you|please|ok|okay))+\s*$", re.I)
_EDGE_JUNK = " \t.,!?;:\u2026\"'`*_~"
_EMOTICON = re.compile(r"\s*(?:[:;]-?[)(DPp]|<3|xD|\^\^)\s*$")

_NOT_A_VALUE = {"that", "this", "these", "those", "it", "not", "to", "so", "very", "really",
                "too", "going", "being", "gonna", "still", "no", "none", "nothing", "them",
                "him", "her", "what", "when", "where", "why", "how", "if", "whether", "just",
                "kind", "sort", "pretty", "quite", "a bit", "also", "like", "about", "all",
                "unknown", "secret", "private", "irrelevant", "the same", "same"}
_NOT_A_NAME = {"later", "back", "tomorrow", "tonight", "now", "anytime", "again", "crazy",
               "maybe", "sometime", "soon", "after", "before", "on", "at", "please", "by",
               "if", "when", "a", "an", "the", "whatever", "anything", "old", "stupid"}
_NOT_A_PLACE = {"fear", "hope", "denial", "peace", "sin", "poverty", "luxury", "comfort",
                "chaos", "dread", "harmony", "hell", "heaven", "a bubble", "a dream",
                "the past", "the present", "the future", "the moment", "my head"}
_NOT_AN_EMPLOYER = {"home", "night", "nights", "weekends", "the weekend", "the moment",
                    "myself", "night shifts", "a desk", "a computer", "it", "that"}
_NOT_FOOD = {"much", "a lot", "anything", "enough", "well", "properly", "out", "late",
             "after", "before", "here", "there", "right", "that", "this", "it", "them",
             "often", "regularly"}
_NOT_A_CORRECTION = {"fine", "ok", "okay", "all right", "alright", "good", "great",
                     "nothing", "true", "false", "right", "wrong", "correct", "raining",
                     "late", "early", "cold", "hot", "weird", "fun", "funny", "nice", "cool",
                     "a joke", "my fault", "your fault", "over", "done", "time", "me",
                     "thanks", "thank you", "never", "never mind", "nevermind", "worse",
                     "better", "been", "fine thanks", "i", "i'm", "we", "you", "he", "she",
                     "they", "yes", "yeah", "sure", "please"}
_NON_FACT_SUBJECT = {"said", "says", "told", "tells", "thinks", "thought", "believes", "is",
                     "was", "and", "that", "who", "which", "she", "he", "they", "her", "his",
                     "their", "if", "when", "not", "point", "guess", "question", "problem",
                     "plan", "concern", "fault", "mistake", "turn", "opinion", "idea",
                     "impression", "feeling", "worry", "hope", "issue", "answer", "excuse",
                     "day", "week", "life", "head", "pleasure", "god", "bad"}


# --- reading ----------------------------------------------------------------------------

@dataclass(frozen=True)
class _Context:
    """How a clause is read: inside "remember that" (explicit) and/or as a correction."""

    explicit: bool
    correction: bool
    last_key: str | None


def _normalise(message: str) -> str:
    text = unicodedata.normalize("NFKC", message)
    return text.translate({0x2019: "'", 0x2018: "'", 0x201C: '"', 0x201D: '"'})


def _sentences(text: str) -> list[str]:
    """Split at . ! ? and newlines, but not after abbreviations such as "Dr."."""
    sentences: list[str] = []
    for line in text.splitlines():
        start = 0
        for match in re.finditer(r"[.!?]+(?=\s+|$)", line):
            word = re.search(r"([\w.]+)$", line[max(start, match.start() - 8):match.start()])
            if match.group() == "." and word and word.group(1).lower() in _ABBREVIATIONS:
                continue
            sentences.append(line[start:match.end()].strip())
            start = match.end()
        sentences.append(line[start:].strip())
    return [sentence for sentence in sentences if sentence]


def _read_sentence(sentence: str, last_key: str | None) -> list[ExplicitFact]:
    text = _CHATTER.sub("", sentence).strip()
    marked = _CORRECTION_MARK.match(text)
    correction = bool(marked and marked.group().strip())
    text = _CHATTER.sub("", text[marked.end():] if marked else text).strip()
    polite = _POLITE_REQUEST.match(text)
    if not polite and (sentence.rstrip().endswith("?") or (
            _QUESTION_START.match(text) and not _REMEMBER.match(text))):
        return []   # "don't forget that..." starts like a question but is a request
    remember = _REMEMBER.match(text)
    if remember:
        text = text[remember.end():]
        if _NOT_REMEMBERABLE.match(text):
            return []   # "remember to buy milk" is a task, "remember when..." a memory
    context = _Context(remember is not None, correction, last_key)
    facts: list[ExplicitFact] = []
    for clause in _CLAUSE_SPLIT.split(text):
        clause = _CHATTER.sub("", clause.strip(_EDGE_JUNK + " ")).strip()
        if clause and len(clause) <= MAX_CLAUSE_CHARS:
            facts.extend(_read_clause(clause, context))
    return facts


def _read_clause(clause: str, context: _Context) -> list[ExplicitFact]:
    for rule in _RULES:
        match = rule.pattern.match(clause)
        if match is None:
            continue
        facts = rule.build(match, context)
        if facts:
            name = f"remember_that:{rule.name}" if context.explicit else rule.name
            correction = context.correction or rule.corrects
            return [ExplicitFact(key, value, category, name, correction)
                    for key, value, category in facts]
    if context.explicit:
        return _note(clause, context)
    return []


# --- the rules --------------------------------------------------------------------------

Found = list[tuple[str, str, str]]   # (key, value, category)
Builder = Callable[[re.Match[str], _Context], Found]


@dataclass(frozen=True)
class _Rule:
    name: str
    pattern: re.Pattern[str]
    build: Builder
    corrects: bool   # what it finds is always a correction of the last fact


def _rule(name: str, pattern: str, *, corrects: bool = False) -> Callable[[Builder], Builder]:
    """Register ``build`` under ``name``, for clauses matching ``pattern`` (anchored)."""
    def register(build: Builder) -> Builder:
        _RULES.append(_Rule(name, re.compile(pattern + r"$", re.I), build, corrects))
        return build
    return register


_RULES: list[_Rule] = []
_I_AM = r"(?:i'm|im|i\s+am)"
_WE = r"(?:i|we|my\s+(?:wife|husband|partner|family|girlfriend|boyfriend|kids)\s+and\s+i)"
_X = r"(?P<x>[\w'-]+(?:\s+[\w'-]+){0,3}?)"


@_rule("it_is_correction",
       r"(?:it's|it\s+is|it\s+was|it\s+should\s+be|that's|that\s+is|i\s+meant|i\s+mean|"
       r"make\s+that|rather)\s+(?P<y>.+)", corrects=True)
def _it_is(match: re.Match[str], context: _Context) -> Found:
    meant = match.group().lower().startswith(("i mean", "make that", "rather"))
    if context.last_key is None or not (context.correction or meant):
        return []
    value = _clean(match["y"], _NOT_A_CORRECTION)
    if value is None or len(value.split()) > 6:
        return []
    if not context.correction and not re.match(r"[A-Z0-9]", value):
        return []   # a bare "I mean ..." is only trusted with a name or a number
    return [(context.last_key, value, category_for_key(context.last_key))]


@_rule("lives_in", _WE + r"\s+(?:now\s+|currently\s+|still\s+|also\s+)?"
       r"(?:live|are\s+living|am\s+living|'m\s+living|'re\s+living)\s+in\s+(?P<y>.+)")
def _lives_in(match: re.Match[str], context: _Context) -> Found:
    return _home(match["y"])


@_rule("lives_in", r"(?:i'm|im|i\s+am|we're|we\s+are)\s+(?:now\s+|currently\s+)?based\s+in\s+"
       r"(?P<y>.+)")
def _based_in(match: re.Match[str], context: _Context) -> Found:
    return _home(match["y"])


@_rule("moved_to", _WE + r"(?:\s+have|'ve)?\s+(?:just\s+|recently\s+|finally\s+|now\s+)?"
       r"(?:moved|relocated)\s+(?:back\s+)?(?:to|in\s+to|into)\s+(?P<y>.+)")
def _moved_to(match: re.Match[str], context: _Context) -> Found:
    if re.search(r"\b(?:but|and)\s+(?:then\s+)?(?:left|moved\s+(?:away|back|out|on)|"
                 r"came\s+back|returned)\b", match["y"], re.I):
        return []   # "moved to Berlin in 2010 but left in 2015" is the past
    return _home(match["y"])


def _home(raw: str) -> Found:
    value = _clean(raw, _NOT_A_PLACE)
    if value is None:
        return []
    if re.match(r"(?:a|an|the|my|our|some)\s", value, re.I) and not re.search(
            r"\b[A-Z]", value):
        return []   # "a flat", "the countryside": not a place name
    return [("home_city", value, "location")]


@_rule("call_me", r"(?:(?:please|just|you\s+can|you\s+may|feel\s+free\s+to|everyone|people|"
       r"friends)\s+)*call\s+me\s+(?P<y>.+)")
def _call_me(match: re.Match[str], context: _Context) -> Found:
    return _name("preferred_name", match["y"])


@_rule("call_me", r"i\s+go\s+by\s+(?P<y>.+)")
def _go_by(match: re.Match[str], context: _Context) -> Found:
    return _name("preferred_name", match["y"])


def _name(key: str, raw: str) -> Found:
    value = _clean(raw.split(",")[0], _NOT_A_NAME)
    if value is None or len(value.split()) > 4 or not re.fullmatch(r"[\w.'\- ]+", value):
        return []
    if value.split()[0].lower() in _NOT_A_NAME:
        return []
    return [(key, value, "personal")]


@_rule("allergic_to", _I_AM + r"\s+(?:(?:very|severely|highly|really|quite|mildly|slightly|"
       r"also|deathly|seriously)\s+)?allergic\s+to\s+(?P<y>.+)")
def _allergic_to(match: re.Match[str], context: _Context) -> Found:
    value = _clean(match["y"], {"anything", "nothing", "everything", "it", "that", "this"})
    return [("allergies", value, "health")] if value else []


@_rule("allergic_to", r"i(?:\s+have|'ve\s+got|\s+have\s+got)\s+(?:an?\s+)?(?:(?:severe|mild|"
       r"bad|serious|slight)\s+)?(?P<y>[\w -]{2,40}?)\s+allerg(?:y|ies)")
def _has_allergy(match: re.Match[str], context: _Context) -> Found:
    value = _clean(match["y"], {"no", "an", "some"})
    return [("allergies", value, "health")] if value else []


@_rule("works_as", r"i(?:'m|\s+am)?\s+(?:now\s+|currently\s+)?work(?:ing)?\s+as\s+(?:an?\s+)?"
       r"(?P<y>.+)")
def _works_as(match: re.Match[str], context: _Context) -> Found:
    title, *place = re.split(r"\s+(?:at|for)\s+", match["y"], maxsplit=1, flags=re.I)
    value = _clean(title, _NOT_A_VALUE)
    if value is None:
        return []
    employer = _clean(place[0], _NOT_AN_EMPLOYER) if place else None
    return [("job_title", value, "work")] + ([("employer", employer, "work")] if employer else [])


@_rule("works_at", r"i(?:'m|\s+am)?\s+(?:now\s+|currently\s+|still\s+)?work(?:ing)?\s+"
       r"(?:at|for)\s+(?P<y>.+)")
def _works_at(match: re.Match[str], context: _Context) -> Found:
    value = _clean(match["y"], _NOT_AN_EMPLOYER)
    return [("employer", value, "work")] if value else []


@_rule("works_at", r"i(?:'ve|\s+have)?\s+(?:just\s+)?started\s+(?:working\s+|a\s+job\s+)?"
       r"(?:at|for)\s+(?P<y>.+)")
def _started_at(match: re.Match[str], context: _Context) -> Found:
    return _works_at(match, context)


@_rule("diet", _I_AM + r"\s+(?:(?:a|an|now|strictly|fully|mostly|also)\s+)*"
       r"(?P<y>(?:vegetarian|vegan|pescatarian|pescetarian|gluten[- ]free|lactose[- ]intolerant|"
       r"dairy[- ]free|coeliac|celiac|halal|kosher)\b.*)")
def _diet(match: re.Match[str], context: _Context) -> Found:
    value = _clean(match["y"], set())
    return [("dietary_restrictions", value, "health")] if value else []


@_rule("doesnt_eat", r"i\s+(?:don't|do\s+not|can't|cannot|never)\s+eat\s+(?P<y>.+)")
def _doesnt_eat(match: re.Match[str], context: _Context) -> Found:
    value = _clean(match["y"], _NOT_FOOD)
    return [("dietary_restrictions", f"no {value}", "health")] if value else []


@_rule("prefers", r"i\s+(?:(?:really|much|generally|usually|always)\s+)?"
       r"(?P<verb>prefer|like|love|enjoy|hate|dislike|can't\s+stand)\s+(?P<y>.+)")
def _prefers(match: re.Match[str], context: _Context) -> Found:
    verb = match["verb"].lower()
    if verb != "prefer" and not context.explicit:
        return []   # "I love that!" is a reaction; "remember that I love jazz" is a fact
    value = _clean(match["y"], _NOT_A_VALUE | {"you", "your", "when", "the way"})
    if value is None:
        return []
    prefix = {"prefer": "prefers", "like": "likes", "love": "likes", "enjoy": "likes"}.get(
        verb, "dislikes")
    return [(_key(prefix, *_words(value)[:4]), value, "preference")]


@_rule("my_x_is_called", r"my\s+" + _X + r"\s+is\s+(?:called|named)\s+(?P<y>.+)")
def _is_called(match: re.Match[str], context: _Context) -> Found:
    subject = _subject(match["x"])
    if subject is None:
        return []
    return _name(_key(*subject, "name"), match["y"])


@_rule("my_x_is_y", r"my\s+" + _X + r"(?:\s+is|\s+are|'s|\s*[:=])\s+(?P<y>.+)")
def _my_x_is_y(match: re.Match[str], context: _Context) -> Found:
    subject = _subject(match["x"])
    if subject is None or not (context.explicit or _is_attribute(subject)):
        return []
    key = _key(*subject)
    if key in ("name", "first_name", "preferred_name", "nickname"):
        return _name(key, match["y"])
    value = _clean(match["y"], _NOT_A_VALUE)
    return [(key, value, category_for_key(key))] if value else []


@_rule("the_x_is_y", r"(?:the|our)\s+" + _X + r"\s+(?:is|are)\s+(?P<y>.+)")
def _the_x_is_y(match: re.Match[str], context: _Context) -> Found:
    if not context.explicit:
        return []   # "the weather is nice": only facts the user asked to keep
    subject = _subject(match["x"])
    value = _clean(match["y"], _NOT_A_VALUE)
    if subject is None or value is None:
        return []
    key = _key(*subject)
    return [(key, value, category_for_key(key))]


@_rule("someones_x_is_y", r"(?P<owner>[\w-]+)'s\s+" + _X + r"\s+(?:is|are)\s+(?P<y>.+)")
def _someones_x_is_y(match: re.Match[str], context: _Context) -> Found:
    """ "remember that Tom's birthday is May 3" -> tom_birthday."""
    owner = match["owner"].lower()
    if not context.explicit or owner in ("it", "that", "what", "there", "here", "he", "she",
                                         "who", "let", "where", "this"):
        return []
    subject = _subject(match["x"])
    value = _clean(match["y"], _NOT_A_VALUE)
    if subject is None or value is None:
        return []
    key = _key(owner, *subject)
    return [(key, value, category_for_key(key))]


@_rule("value_correction", r"(?P<y>[A-Z0-9][\w.'\- ]{0,40})", corrects=True)
def _bare_value(match: re.Match[str], context: _Context) -> Found:
    """"No, Lisbon." after a fact was stated: a capitalised name or a number, up to 3 words."""
    if not (context.correction and context.last_key) or len(match["y"].split()) > 3:
        return []
    value = _clean(match["y"], _NOT_A_CORRECTION | _NOT_A_NAME)
    if value is None or not re.match(r"[A-Z0-9]", value):
        return []
    return [(context.last_key, value, category_for_key(context.last_key))]


def _note(clause: str, context: _Context) -> list[ExplicitFact]:
    """What the user asked to remember, kept as written when no rule understands it."""
    value = _clean(clause, _NOT_A_VALUE)
    words = [w for w in _words(clause) if w not in ("i", "we", "my", "our", "that")]
    if value is None or not words or not _NOTE_WORTHY.search(clause):
        return []   # "remember that trip to Paris" reminisces; it states nothing
    key = _key(*words[:4])
    return [ExplicitFact(key, value, category_for_key(key), "remember_that", context.correction)]


# --- helpers ----------------------------------------------------------------------------

def _subject(raw: str) -> list[str] | None:
    """ "sister's name" -> ["sister", "name"]; ``None`` when it reads like a clause."""
    words = _words(raw.replace("'s", " "))
    if not words or any(word in _NON_FACT_SUBJECT for word in words):
        return None
    return words


def _is_attribute(subject: list[str]) -> bool:
    """Is "my <subject> is ..." a fact without "remember"? ("my day is..." is not.)"""
    if subject[0] in ("favourite", "favorite") or subject[-1] in ("name", "names"):
        return True
    return " ".join(subject[-2:]) in _BARE_HEADS or subject[-1] in _BARE_HEADS


def _words(text: str) -> list[str]:
    return re.findall(r"[^\W_]+", text.lower())


def _key(*words: str) -> str:
    return normalise_key("_".join(words))


def _strip_symbols(text: str) -> str:
    """Drop trailing emoji (with their joiners and variation selectors)."""
    end = len(text)
    while end and (unicodedata.category(text[end - 1]) in ("So", "Sk", "Mn", "Cf")):
        end -= 1
    return text[:end]


def _clean(raw: str, refused: set[str]) -> str | None:
    """The value in ``raw``: cut at the first connector, trimmed; ``None`` if unusable."""
    value = _CONNECTOR.split(raw, maxsplit=1)[0]
    previous = None
    while previous != value:
        previous = value
        value = _strip_symbols(_EMOTICON.sub("", value))
        value = _TRAILING.sub("", value).strip(_EDGE_JUNK)
    value = " ".join(value.split())
    if not value or len(value) > MAX_VALUE_CHARS:
        return None
    lowered = value.lower()
    first_word = lowered.split()[0]
    if lowered in refused or first_word in refused or first_word in (
            "that", "not", "to", "when", "if", "because", "it", "this", "it's", "that's",
            "i'm"):
        return None
    return value
