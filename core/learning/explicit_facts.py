"""Explicit facts, caught by rules: what the user states outright is stored without any LLM.

The embedded model is too weak to trust with "remember that my locker code is 4471", and
the user expects that sentence to be kept, on any machine, every time. So a small table of
readable rules runs on every user message before the LLM extraction, and what they find is
stored with the user's own authority (highest priority).

How a message is read:

1. only the user's own lines: quoted lines ("> ..."), fenced code blocks and everything
   after a line such as "Ana wrote:" or "-----Original Message-----" are pasted material
   and are skipped; invisible format characters are removed;
2. split into sentences (not after "Dr.", "St." and similar), and sentences into clauses
   at "and I / but my / , I ..." so "I live in Porto and I work at Farfetch" gives two facts;
   "I live in Porto and work at Farfetch" too (the subject is carried over when the first
   part is a plain statement, without a negation or a modal);
3. questions are skipped ("what is my sister's name?", "do you remember that I live in
   Paris" with or without the question mark), except polite requests ("could you remember
   that ...?"); so is reported speech and quoted text ("my friend said, I work too much",
   '"I live in Lisbon," she said'), and what is made up ("hypothetically, I live in
   Paris", "in my novel, my sister lives in Lisbon", "let's say I'm a nurse");
4. leading chatter is dropped ("btw", "oh,", "by the way", "guess what"), and a correction
   marker ("no,", "actually,", "sorry,") marks the facts of that sentence as corrections;
5. "remember that / don't forget that / keep in mind that" makes the rest *explicit*: any
   "my X is Y" or "the X is Y" counts, and a statement no rule understands is still kept as
   a note (``parked_on_level_3 = "I parked on level 3"``);
6. each clause is tried against the rules, which are anchored at its start: "I live in
   Rome" matches, "she lives in Rome", "I might move to Rome", "if I moved to Rome", "I
   don't live in Rome anymore" and "I lived in Rome for two years" do not;
7. the value is cut at the first connector ("because", "but", "with my", ", not", ...),
   trailing time words and filler ("last month", "now", "in March", "btw") and punctuation
   are removed, and values that are empty, longer than 80 characters, start like a clause
   ("that", "not", "when", a pronoun) or hold control or private-use characters are
   refused; clauses over 400 characters are not read at all, nor is anything past the
   first ``MAX_MESSAGE_CHARS`` of a message.

What the rules know, besides "my X is Y": where the user lives, comes from, grew up, was
born, bought a flat; their work ("I work at", "I started at", "I just joined", "I got a job
at", "I signed the offer from", "I'm a nurse at"); their studies ("I study law at Leeds",
"I'm doing a PhD in marine ecology", "I go to Riverside College", "I graduated from Porto
University"); the people and pets in their life ("my sister Priya lives in Lisbon", "my
husband Marco is a chef", "my mum turned 70", "I have two kids, Ana and Leo", "our dog
Biscuit", "we adopted a greyhound called Bolt"). A fact about someone close is keyed by
who it is about and the key the user's own fact would have (``sister_name``,
``sister_home_city``, ``husband_job_title``, ``daughter_school``, ``number_of_kids``) and is
``personal``; the user's studies count as ``work``.

Limits, on purpose: without "remember", "my X is Y" only counts for attribute-like X (a
name, a birthday, a favourite anything, an address, a job title...; see ``_HEAD_CATEGORY``),
because "my day is going well" is not a fact. "My sister is Ines" is not read (is it a name
or a description?); "my sister is called Ines" is. A name after a relation ("my sister
Priya") must be capitalised, a job must end in a known job word ("my husband is a saint" is
not a job), and a school must be named like one ("I go to the gym" is not a school); the
word lists are in ``core.learning.vocabulary``. "No, it's X" needs the caller to say which
fact was last discussed (``last_fact_key``); a bare "no, Lisbon" is read only when the
value is capitalised or a number. Places are taken as written: "I live in a flat" is
refused (an article and no proper noun), "I live in Lisbon" is kept, lower-case "i live in
berlin" too; for the new place rules (someone else's home, where the user is from) a
message that uses capitals must capitalise the place ("my sister lives in fear" is not a
place). English only.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass

from core.knowledge.facts import normalise_key
from core.learning import vocabulary as vocab

MAX_VALUE_CHARS = 80
MAX_CLAUSE_CHARS = 400
"""Longer clauses are rambling, not statements; skipping them also keeps every rule fast."""
MAX_MESSAGE_CHARS = 100_000
"""Only the first 100,000 characters of a message are read (a 1 MB paste is pasted
material): together with ``MAX_CLAUSE_CHARS`` this bounds the work per message."""


@dataclass(frozen=True)
class ExplicitFact:
    """A fact the user stated, found by ``rule``; ``category`` is one of
    ``core.knowledge.facts.CATEGORIES``. ``rule`` is prefixed ``remember_that:`` when the user asked
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
    text = _normalise(message[:MAX_MESSAGE_CHARS])
    cased = _is_cased(text)
    for sentence in _sentences(_own_lines(text)):
        for fact in _read_sentence(sentence, last_key, cased):
            found.pop(fact.key, None)
            found[fact.key] = fact
    return list(found.values())


def category_for_key(key: str) -> str:
    """The category a fact key most likely belongs to (``"general"`` when unsure)."""
    words = key.split("_")
    if words[0] in ("favourite", "favorite", "prefers", "likes", "dislikes"):
        return "preference"
    if _about_someone_close(words):
        return "personal"   # sister_home_city, dog_name, number_of_kids
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
    **dict.fromkeys(("origin", "birthplace", "home city"), "location"),
    **dict.fromkeys(("birth year", "spouse name", "fiance name"), "personal"),
    **dict.fromkeys(("school", "university", "college", "alma mater", "degree", "study",
                     "major"), "work"),
}
ATTRIBUTE_WORDS: frozenset[str] = frozenset(
    word for head in _HEAD_CATEGORY for word in head.split())
"""The words that name an attribute in a fact key ("home", "city", "name", "employer")."""
_BARE_HEADS = {"nickname", "birthday", "birthdate", "age", "pronouns", "email", "phone",
               "number", "anniversary", "username", "nationality", "star sign", "city",
               "hometown", "country", "address", "postcode", "zip", "zip code",
               "neighbourhood", "neighborhood", "timezone", "time zone", "job title",
               "employer", "profession", "occupation", "allergy", "allergies", "blood type",
               "medication", "medications", "dietary restrictions"}
"""Heads that make "my X is Y" a fact on its own (preferences need "favourite")."""

_CLOSE = (vocab.RELATIONS | vocab.RELATIONS_PLURAL | vocab.PETS | vocab.PETS_PLURAL)
_CLOSE_KEYS = frozenset(normalise_key(word) for word in (
    vocab.RELATIONS | vocab.RELATIONS_PLURAL | vocab.PETS_PLURAL | {
        "dog", "cat", "puppy", "kitten", "hamster", "rabbit", "bunny", "guinea pig", "parrot",
        "budgie", "tortoise", "turtle", "snake", "lizard", "gecko", "horse", "pony",
        "goldfish", "ferret", "rat", "chinchilla", "hedgehog", "greyhound", "labrador"}))
"""Key prefixes that say a fact is about someone close: "sister", "guinea_pig"."""
_MODIFIER_KEYS = frozenset(vocab.RELATION_MODIFIERS)

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
    r"just\s+so\s+you\s+know|for\s+your\s+information|quick\s+note|hearth|"
    r"guess\s+what|(?:good|great|big|some)\s+news|news|update|anyway|anyways|honestly|"
    r"yesterday|today|this\s+(?:morning|week|month|year)|last\s+(?:night|week|month|year)|"
    r"so\s+yeah|yeah|yay|woohoo)\b[\s,:!.-]*)+",
    re.I)
_CORRECTION_MARK = re.compile(
    r"^(?:(?:no|nope|nah|actually|sorry|correction|wait|oops|my\s+mistake|my\s+bad)\b"
    r"[\s,:!.-]*)+", re.I)
_MADE_UP = re.compile(
    r"^(?:hypothetically|theoretically|in\s+theory|imagine|suppose|supposing|pretend|"
    r"(?:let's|lets|let\s+us)\s+(?:say|pretend|imagine|suppose)|what\s+if|say|"
    r"in\s+a\s+(?:world|universe)\s+where|"
    r"(?:in|for)\s+(?:my|a|an|the|this|our|his|her)\s+(?:(?:new|next|short|fan)\s+)?"
    r"(?:novel|story|book|game|dream|script|screenplay|play|film|movie|campaign|scenario|"
    r"role-?play|fiction|fanfic|example|exercise|sketch|poem|song|character))\b", re.I)
""""Hypothetically, I live in Paris", "In my novel, my sister lives in Lisbon": made up."""
_REMEMBER = re.compile(
    r"^(?:please\s+)?(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?)?"
    r"(?:(?:remember|don't\s+forget|do\s+not\s+forget|keep\s+in\s+mind)\b(?:\s+that\b|\s*[:,])?"
    r"|(?:note|for\s+the\s+record)(?:\s+that\b|\s*[:,]))\s*(?:please\s+)?", re.I)
_NOT_REMEMBERABLE = re.compile(r"^(?:to|when|me|us|this|that|it|how|where|why|what|if)\b",
                               re.I)
_CLAUSE_SPLIT = re.compile(
    r"(?:\s?[,;]\s?(?:(?:and|but|also|plus)\s)?|\s(?:and|but|also|plus)\s)"
    r"(?=(?:i|i'm|im|i've|i'd|my|we|we're|we've|our|call\s+me)\b)", re.I)
"""Runs on a sentence whose whitespace is collapsed to single spaces: linear time."""
_SUBJECT = re.compile(r"(?P<we>we|we're|we've|we\s+are|we\s+have)\b|(?:i|i'm|im|i've|i\s+am|"
                      r"i\s+have)\b", re.I)
_AND_VERB = re.compile(
    r"\s(?:,\s)?and\s(?:then\s|also\s|now\s|just\s|recently\s)?(?=(?:work|live|study|"
    r"started|start|joined|moved|grew|graduated|got|have|am|go|signed|accepted|bought|"
    r"adopted|turned)\b)", re.I)
""""I live in Porto and work at Farfetch": the second part gets the subject again."""
_NOT_PLAIN = re.compile(
    r"\b(?:not|never|no\s+longer|might|may|could|would|should|will|won't|if|unless|want|"
    r"wants|wish|hope|plan|planning|thinking|going\s+to|gonna|used\s+to|maybe|perhaps|"
    r"probably)\b|n't\b|'ll\b|'d\b", re.I)
_REPORTED_BEFORE = re.compile(r"\b(?:" + vocab.REPORTING_VERBS + r")(?:\s+that)?\s?[:,]?$",
                              re.I)
""""my friend said, I work too much": what follows is someone's words, not a statement."""
_REPORTED_AFTER = re.compile(
    r"[,\"']\s?(?:(?i:she|he|they|someone|somebody|everyone|people|my\s+[\w'-]+"
    r"(?:\s[\w'-]+)?|his\s+[\w'-]+|her\s+[\w'-]+)|[A-Z][\w'-]*(?:\s[A-Z][\w'-]*)?)\s"
    r"(?i:" + vocab.REPORTING_VERBS + r")(?:\s(?i:me|us|to\s+me))?\s?[.!]*$")
""""I live in Lisbon," she said."""
_QUOTE_START = re.compile(r"^(?:[\"«»„‚‹›`]|'(?=[A-Z]))")
_PASTE_INTRO = re.compile(
    r"(?:\b(?:" + vocab.REPORTING_VERBS + r"|quote|quoted|writes?)\s*:\s*$)|"
    r"(?:\b(?:forwarded|original)\s+message\b)", re.I)
""""On Monday, Ana wrote:" — what follows is someone else's text."""
_NOTE_WORTHY = re.compile(
    r"\b(?:i|i'm|i've|me|my|we|our|is|are|was|were|has|have|had|will|needs?|likes|hates|"
    r"loves|prefers|lives|works)\b|\d", re.I)

# Value cutting: the first connector ends the value.
_CONNECTOR = re.compile(
    r"(?:\s*[,;]\s*(?:and|but|so|because|since|which|who|where|when|as|though|although|"
    r"not|everyone|everybody|people|if|or)\b"
    r"|\s+(?:because|since|but|if|unless|until|although|though|whereas|which|who|so|when|"
    r"where|while|as\s+(?:an?|the|my|our|i|we|it)|"
    r"and\s+(?:i|we|my|our|it|he|she|they|you|then|now)|"
    r"with\s+(?:my|our|the|his|her|their|a|an|some|two|three)|"
    r"for\s+(?:work|my|our|the|a|an|now|good|a\s+while|\d+|some|two|three|several|many|"
    r"years|months|weeks)|from\s+now\s+on|instead|not|rather\s+than|or\s+so)\b"
    r"|\s+[-\u2014\u2013(]\s*|\s*\()", re.I)
_TRAILING = re.compile(
    r"(?<![\s,])(?:[\s,]++(?:(?:last|this|next)\s+(?:week|month|year|summer|winter|spring|"
    r"autumn|fall|weekend)|(?:\d+|a|an|one|two|three|four|five|a\s+few|a\s+couple\s+of|several)\s+"
    r"(?:days?|weeks?|months?|years?)\s+ago|in\s+(?:19|20)\d\d|recently|lately|yesterday|"
    r"today|already|again|finally|now|these\s+days|nowadays|at\s+the\s+moment|currently|"
    r"right\s+now|for\s+now|a\s+while\s+(?:ago|back)|btw|by\s+the\s+way|lol|haha+|hehe|fyi|"
    r"though|too|as\s+well|anymore|thanks|thank\s+you|please|ok|okay))+\s*$", re.I)
"""Only a run's first character can start a match, and the run is never given back: linear
on ", , , , ..." (it was quadratic)."""
_MONTHS = (r"(?:january|february|march|april|may|june|july|august|september|october|november|"
           r"december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)")
_WEEKDAYS = r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
_TRAILING_MORE = re.compile(
    r"(?<![\s,])(?:[\s,]++(?:(?:in|on|since|from|back\s+in|last|this|next|in\s+early|"
    r"in\s+late)\s+(?:" + _MONTHS + r"|" + _WEEKDAYS + r")(?:\s+\d{1,2}(?:st|nd|rd|th)?)?"
    r"(?:\s+(?:19|20)\d\d)?|"
    r"(?:this|tomorrow|yesterday)\s+(?:morning|afternoon|evening|night)|tonight|tomorrow|"
    r"originally|full[- ]time|part[- ]time|as\s+of\s+(?:now|today)|officially|"
    r"(?:over\s+)?there|here|"
    r"(?:at\s+the\s+)?(?:start|end|beginning)\s+of\s+(?:the\s+)?(?:month|year|week|"
    + _MONTHS + r")|by\s+(?:trade|training|profession)|(?:last|this)\s+(?:summer|autumn|fall|"
    r"spring|winter|term|semester)))+\s*$", re.I)
"""More time words, for the work, study and place rules only ("my birthday is in May" must
keep its "in May")."""
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
    cased: bool = True   # the message uses capitals, so a name or place without one is not


_INVISIBLE = {"Cc", "Cf", "Cs", "Co"}
_SENTENCE_END = re.compile(r"(?<![.!?])[.!?]++(?=\s|$)")
"""The lookbehind and the possessive run keep this linear on "......x" (no backtracking)."""


def _normalise(message: str) -> str:
    """NFKC, straight quotes, and no control or invisible format characters (zero-width
    spaces, bidi marks, soft hyphens), which would otherwise split words or hide in values."""
    text = unicodedata.normalize("NFKC", message)
    text = "".join(ch for ch in text
                   if ch in "\n\t" or unicodedata.category(ch) not in _INVISIBLE)
    return text.translate({0x2019: "'", 0x2018: "'", 0x201C: '"', 0x201D: '"', 0x201E: '"',
                           0x00AB: '"', 0x00BB: '"'})


def _is_cased(text: str) -> bool:
    """Does the user write with capitals (other than the pronoun "I")?"""
    return any(ch.isupper() for ch in re.sub(r"\bI\b", "", text))


def _own_lines(text: str) -> str:
    """The user's own lines: no quoted lines ("> ..."), fenced code or table rows, and
    nothing after a line that introduces someone else's text ("Ana wrote:")."""
    kept: list[str] = []
    fenced = False
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith(("```", "~~~")):
            fenced = not fenced
            continue
        if fenced or stripped.startswith((">", "|")):
            continue
        if _PASTE_INTRO.search(stripped[-200:]):
            break
        kept.append(line)
    return "\n".join(kept)


def _sentences(text: str) -> list[str]:
    """Split at . ! ? and newlines, but not after abbreviations such as "Dr."."""
    sentences: list[str] = []
    for line in text.splitlines():
        start = 0
        for match in _SENTENCE_END.finditer(line):
            word = re.search(r"([\w.]+)$", line[max(start, match.start() - 8):match.start()])
            if match.group() == "." and word and word.group(1).lower() in _ABBREVIATIONS:
                continue
            sentences.append(line[start:match.end()].strip())
            start = match.end()
        sentences.append(line[start:].strip())
    return [sentence for sentence in sentences if sentence]


def _read_sentence(sentence: str, last_key: str | None, cased: bool = True
                   ) -> list[ExplicitFact]:
    sentence = " ".join(sentence.split())   # single spaces: every split below is linear
    if _QUOTE_START.match(sentence) or _REPORTED_AFTER.search(sentence[-120:]):
        return []   # '"I live in Lisbon," she said': someone else's words
    text = _CHATTER.sub("", sentence).strip()
    marked = _CORRECTION_MARK.match(text)
    correction = bool(marked and marked.group().strip())
    text = _CHATTER.sub("", text[marked.end():] if marked else text).strip()
    polite = _POLITE_REQUEST.match(text)
    if not polite and (sentence.rstrip().endswith("?") or (
            _QUESTION_START.match(text) and not _REMEMBER.match(text))):
        return []   # "don't forget that..." starts like a question but is a request
    if _MADE_UP.match(text):
        return []
    remember = _REMEMBER.match(text)
    if remember:
        text = text[remember.end():]
        if _NOT_REMEMBERABLE.match(text):
            return []   # "remember to buy milk" is a task, "remember when..." a memory
    if _QUOTE_START.match(text):
        return []
    context = _Context(remember is not None, correction, last_key, cased)
    facts: list[ExplicitFact] = []
    for raw in _CLAUSE_SPLIT.split(text):
        clause = _CHATTER.sub("", raw.strip(_EDGE_JUNK + " ")).strip()
        if clause and len(clause) <= MAX_CLAUSE_CHARS:
            facts.extend(_read_compound(clause, context))
        if _REPORTED_BEFORE.search(raw[-60:]):
            break   # "my friend said, I work too much": the rest is what someone said
    return facts


def _read_compound(clause: str, context: _Context) -> list[ExplicitFact]:
    """ "I live in Porto and work at Farfetch": both parts, the second with the subject of
    the first; the whole clause as it is when the parts give nothing."""
    subject = _SUBJECT.match(clause)
    parts = _AND_VERB.split(clause) if subject else [clause]
    if len(parts) == 1 or _NOT_PLAIN.search(parts[0]):
        return _read_clause(clause, context)
    pronoun = "we" if subject and subject["we"] else "I"
    facts = _read_clause(parts[0], context, note=False)
    for part in parts[1:]:
        facts.extend(_read_clause(f"{pronoun} {part}", context, note=False))
    return facts or _read_clause(clause, context)


def _read_clause(clause: str, context: _Context, *, note: bool = True) -> list[ExplicitFact]:
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
    if context.explicit and note:
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


@_rule("lives_in", _WE + r"\s+(?:now\s+|currently\s+|still\s+|also\s+|both\s+|all\s+)?"
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


@_rule("lives_in", r"(?:i|we)(?:'ve|\s+have)\s+been\s+living\s+in\s+(?P<y>.+)")
def _been_living_in(match: re.Match[str], context: _Context) -> Found:
    return _home(match["y"])


@_rule("lives_in", r"(?:i|we)(?:'ve|\s+have)\s+lived\s+in\s+(?P<y>.+?)\s+(?:for|since)\s+"
       r"(?:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|many|several|years|ages|"
       r"over|almost|nearly|about|the\s+past|the\s+last)\b.*")
def _have_lived_in(match: re.Match[str], context: _Context) -> Found:
    """ "I've lived in Lisbon for ten years" (still there); "I lived in Rome" is the past."""
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
    value = _clean(title, _NOT_A_VALUE, more=True)
    if value is None:
        return []
    employer = _clean(place[0], _NOT_AN_EMPLOYER) if place else None
    return [("job_title", value, "work")] + ([("employer", employer, "work")] if employer else [])


@_rule("works_at", r"i(?:'m|\s+am)?\s+(?:now\s+|currently\s+|still\s+)?work(?:ing)?\s+"
       r"(?:at|for)\s+(?P<y>.+)")
def _works_at(match: re.Match[str], context: _Context) -> Found:
    value = _clean(match["y"], _NOT_AN_EMPLOYER)
    return [("employer", value, "work")] if value else []


@_rule("works_at", r"i(?:'ve|\s+have)?\s+(?:(?:just|recently|finally|now|officially)\s+)?"
       r"started\s+(?:(?:a|my)\s+(?:new\s+)?(?:job|role|position)\s+|working\s+|work\s+)?"
       r"(?:at|for|with)\s+(?P<y>.+)")
def _started_at(match: re.Match[str], context: _Context) -> Found:
    """ "I started at Helio Energy" (not "at 9am", not "at the bottom")."""
    return _employment([], match["y"], context, school_ok=True)


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


# --- people and pets --------------------------------------------------------------------

def _alternation(words: frozenset[str]) -> str:
    """A regex alternative for each word list entry, longest first; "half-sister" also
    matches "half sister" and "halfsister"."""
    def one(word: str) -> str:
        return r"\s".join(re.escape(part).replace(r"\-", "[- ]?") for part in word.split())
    return "|".join(one(word) for word in sorted(words, key=len, reverse=True))


_PLURAL_CLOSE = vocab.RELATIONS_PLURAL | vocab.PETS_PLURAL
_CLOSE_RE = (r"(?P<rel>(?:(?:" + _alternation(vocab.RELATION_MODIFIERS) + r")\s)?(?:"
             + _alternation(_CLOSE) + r"))(?![\w-])")
_COUNT = r"(?P<count>a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|\d{1,2})"
_NOT_A_NAME_WORD = {
    "i", "i'm", "i've", "i'd", "i'll", "im", "the", "a", "an", "and", "but", "or", "so", "who",
    "which", "that", "is", "was", "has", "had", "have", "just", "also", "lives", "works",
    "said", "says", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday",
    "sunday", "january", "february", "march", "july", "september", "october", "november",
    "december", "christmas", "easter", "today", "tomorrow", "yesterday", "tonight", "ok",
    "okay", "lol", "omg", "btw", "hearth", "english", "french", "spanish", "portuguese",
    "german", "italian", "chinese", "japanese", "after", "named", "called", "too", "here",
    "there", "still", "now", "who's", "it", "it's", "he", "she", "they", "his", "her",
}


_KEY_SPELLING = {"fiancé": "fiance", "fiancée": "fiance", "fiancee": "fiance"}


def _close_words(raw: str) -> list[str]:
    """ "Older  Sister" -> ["older", "sister"]; "half sister" stays two words; one spelling
    of "fiancé" in keys."""
    return [_KEY_SPELLING.get(word.lower(), word.lower()) for word in raw.split()]


def _is_plural(words: list[str]) -> bool:
    return " ".join(words[-2:]) in _PLURAL_CLOSE or words[-1] in _PLURAL_CLOSE


def _name_word(word: str, lowercase_ok: bool) -> bool:
    lowered = word.lower().rstrip(".")
    if lowered in _NOT_A_NAME_WORD or lowered in _NOT_A_NAME or lowered in _CLOSE:
        return False
    if word[0].isupper():
        return not (word.isupper() and len(word) > 4)   # "DEFINITELY" is shouting
    return lowercase_ok


def _names_at(text: str, *, plural: bool, lowercase_ok: bool = False) -> tuple[str, str]:
    """ "Priya lives in Lisbon" -> ("Priya", "lives in Lisbon"); ("", text) without a name.

    A name is one to three capitalised words ("Mary Anne Silva"); several names ("Ana and
    Leo", "Ana, Leo and Mia") only after a plural ("my kids"). ``lowercase_ok`` after
    "called" or "named", where the word cannot be anything but a name."""
    rest = text.lstrip(" ,")
    names: list[str] = []
    while len(names) < (6 if plural else 1):
        words: list[str] = []
        while len(words) < 3:
            match = re.match(r"([^\W\d_][\w.'-]*)(?=[\s,;:!?)]|$)", rest)
            if match is None or not _name_word(match[1], lowercase_ok and not words):
                break
            word = match[1]
            contraction = re.search(r"'(?:s|re)$", word, re.I)
            if contraction:   # "Marco's a chef", "Priya's husband"
                words.append(word[:contraction.start()])
                rest = rest[match.end() - len(contraction.group()):]
                break
            words.append(word.rstrip("."))
            rest = rest[match.end():].lstrip(" ")
        if not words:
            break
        names.append(" ".join(words))
        joiner = re.match(r"(?:,\s?(?:and\s|&\s)?|and\s|&\s)", rest) if plural else None
        following = rest[joiner.end():] if joiner else ""
        nxt = re.match(r"[^\W\d_][\w.'-]*", following)
        if joiner is None or nxt is None or not _name_word(nxt.group(), False):
            break
        rest = following
    if not names:
        return "", text
    value = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    return value, rest


_PREDICATE_SPLIT = re.compile(
    r"\s?(?:,\s?(?:and\s)?|\band\s)(?:also\s|now\s)?(?=(?:lives|live|is|are|works|work|"
    r"moved|has|have|just|recently|now|currently|turned|goes|go|attends|studies|study|"
    r"still)\b)", re.I)
_PREDICATES: list[tuple[re.Pattern[str], str]] = [(re.compile(pattern, re.I), kind) for
                                                  pattern, kind in (
    (r"(?:(?:now|currently|still|also)\s)?(?:lives|live|is\sliving|are\sliving|'s\sliving|"
     r"'re\sliving|(?:is|are|'s|'re)\s(?:now\s|currently\s)?based)\sin\s(?P<y>.+)", "home"),
    (r"(?:(?:has|have|'s|'ve)\s)?(?:(?:just|recently|finally|now|also)\s)?(?:moved|relocated)"
     r"\s(?:back\s)?(?:to|into|in\sto)\s(?P<y>.+)", "home"),
    (r"(?:(?:now|currently|also|still)\s)?(?:works?|is\sworking|'s\sworking|are\sworking)\s"
     r"(?:(?:now|currently|also|still)\s)?as\s(?:an?\s|the\s)?(?P<y>.+)", "works_as"),
    (r"(?:(?:now|currently|also|still)\s)?(?:works?|is\sworking|'s\sworking|are\sworking)\s"
     r"(?:(?:now|currently|also|still)\s)?(?:at|for)\s(?P<y>.+)", "works_at"),
    (r"(?:(?:has|'s)\s)?(?:just\s)?turned\s(?P<y>\d{1,3})(?P<unit>\s(?:years?|months?|weeks?)"
     r"(?:\sold)?)?", "age"),
    (r"(?:is|'s|are)\s(?:now\s|only\s|just\s)?(?P<y>\d{1,3})(?P<unit>\s(?:years?|months?|weeks?)"
     r"(?:\sold)?|\sy/?o)?", "age"),
    (r"(?:is|are|'s|'re)\s(?:(?:now|currently|also|still|actually)\s)?(?:an?|the)\s(?P<y>.+)",
     "job"),
    (r"(?:(?:now|currently|still|also)\s)?(?:goes\sto|go\sto|attends|attend|is\sat|'s\sat|"
     r"are\sat|'re\sat)\s(?P<y>.+)", "school"),
    (r"(?:(?:now|currently|still|also)\s)?(?:studies|study|is\sstudying|'s\sstudying|"
     r"are\sstudying)\s(?P<y>.+)", "study"),
)]
_TIME_WORDS = re.compile(
    r"(?:\s(?:today|yesterday|this\s(?:year|week|month)|last\s(?:week|month|year)|now|"
    r"already|recently|lol|btw))+$", re.I)


def _about(who: list[str], text: str, context: _Context) -> Found:
    """What a clause says about ``who`` after the name: "lives in Lisbon and is a chef"."""
    text = re.sub(r"^[ ,]*(?:who's\s|who\sis\s|'s\s)", "is ", text, flags=re.I)
    text = re.sub(r"^[ ,]*(?:who're\s|who\sare\s|'re\s)", "are ", text, flags=re.I)
    text = re.sub(r"^[ ,]*(?:who\s)?", "", text, flags=re.I)
    found: Found = []
    for part in _PREDICATE_SPLIT.split(text.strip(_EDGE_JUNK + " ")):
        part = part.strip(_EDGE_JUNK + " ")
        for pattern, kind in _PREDICATES:
            match = pattern.fullmatch(_TIME_WORDS.sub("", part) if kind == "age" else part)
            if match is None:
                continue
            if kind == "home":
                found += _named_place(who, "home_city", match["y"], context)
            elif kind == "age":
                found += _age(who, match["y"], match["unit"])
            elif kind == "job":
                found += _job(who, match["y"], context)
            elif kind == "works_as":
                found += _job(who, match["y"], context, known_only=False)
            elif kind == "works_at":
                found += _employment(who, match["y"], context)
            elif kind == "school":
                found += _school(who, "school", match["y"], context)
            else:
                found += _study(who, match["y"], context)
            break
    return found


def _fact(who: list[str], *attribute: str, value: str) -> tuple[str, str, str]:
    key = _key(*who, *attribute)
    return key, value, category_for_key(key)


@_rule("relation", r"(?:my|our)\s" + _CLOSE_RE + r"(?P<rest>.*)")
def _relation(match: re.Match[str], context: _Context) -> Found:
    """ "my sister Priya lives in Lisbon", "my husband is a chef", "our dog Biscuit"."""
    rest = match["rest"]
    if rest.startswith("'"):
        return []   # "my sister's name is ...": the possessive rules
    who = _close_words(match["rel"])
    plural = _is_plural(who)
    title_case = all(word[0].isupper() for word in re.findall(r"[^\W\d_]+", match.group()))
    names, after = ("", rest) if title_case else _names_at(rest, plural=plural)
    found = [_fact(who, "names" if plural else "name", value=names)] if names else []
    return found + _about(who, after, context)


@_rule("has_relation", r"(?:i|we)(?:\shave|\shave\sgot|'ve\sgot|'ve|\sgot)\s" + _COUNT + r"\s"
       + _CLOSE_RE + r"(?P<rest>.*)")
def _has_relation(match: re.Match[str], context: _Context) -> Found:
    """ "I have two kids, Ana and Leo", "I have a cat named Miso"."""
    return _counted(match, context)


@_rule("has_relation", r"(?:i|we)(?:'ve|\shave)?\s(?:(?:just|recently|finally|also)\s)?"
       r"(?:adopted|rescued|got|brought\shome|took\sin|welcomed)\s" + _COUNT
       + r"\s(?:(?:new|little|rescue)\s)?" + _CLOSE_RE + r"(?P<rest>.*)")
def _adopted(match: re.Match[str], context: _Context) -> Found:
    """ "we adopted a greyhound called Bolt"."""
    return _counted(match, context)


def _counted(match: re.Match[str], context: _Context) -> Found:
    who = _close_words(match["rel"])
    count = match["count"].lower()
    number = int(count) if count.isdigit() else vocab.NUMBERS.get(count, 0)
    plural = number > 1 or _is_plural(who)
    lead = re.match(r"[ ,]*(?:[:-]\s?)?(?:(?:who(?:'s|\sis)|which\sis)\s)?(?P<called>(?:called|"
                    r"named)\s)?", match["rest"], re.I)
    assert lead is not None
    names, after = _names_at(match["rest"][lead.end():], plural=plural,
                             lowercase_ok=bool(lead["called"]))
    found: Found = []
    if number > 1:
        found.append(_fact(["number", "of"], *who, value=count))
    if names:
        found.append(_fact(who, "names" if plural else "name", value=names))
        found += _about(who, after, context)
    return found


@_rule("married_to", _I_AM + r"\s(?:(?:now|happily|also|newly)\s)?(?P<verb>married|engaged)\s"
       r"to\s(?P<y>.+)")
def _married_to(match: re.Match[str], context: _Context) -> Found:
    names, _ = _names_at(match["y"], plural=False, lowercase_ok=not context.cased)
    key = "spouse_name" if match["verb"].lower() == "married" else "fiance_name"
    return [(key, names, "personal")] if names else []


# --- work and study ---------------------------------------------------------------------

_NOT_A_JOB = _NOT_A_VALUE | {"former", "ex", "ex-", "aspiring", "wannabe", "future",
                             "would-be", "bit", "lot", "little", "big", "huge", "total"}
_NOT_A_FIELD = _NOT_A_VALUE | {
    "for", "with", "hard", "late", "tonight", "every", "a", "an", "the", "at", "in", "on",
    "because", "more", "less", "alone", "together", "abroad", "online", "from", "by",
    "during", "while", "after", "before", "full", "part", "remotely", "lots", "everything",
    "anything", "something", "nothing", "day", "night", "here", "there", "better"}
_NOT_AN_EMPLOYER_ALL = _NOT_AN_EMPLOYER | vocab.NOT_AN_EMPLOYER_EXTRA
_NOT_ANYONES = {"my", "his", "her", "their", "your", "our", "a", "an", "some", "this", "that",
                "them", "him", "us", "me", "you", "it", "there", "here"}
_TIME_OF_DAY = re.compile(r"\d{1,2}(?:[:.]\d\d)?\s?(?:am|pm|a\.m|p\.m|o'clock|h)?", re.I)
_DEGREE = re.compile(r"(?P<d>" + _alternation(vocab.DEGREES) + r")(?:\s(?:degree|course|"
                     r"programme|program))?(?![\w'])(?:\s(?:in|of)\s(?P<f>.+?))?"
                     r"(?:\s(?:at|from|with)\s(?P<s>.+))?", re.I)


def _has_capital(value: str) -> bool:
    return any(ch.isupper() for ch in value)


def _employment(who: list[str], raw: str, context: _Context, *, capital: bool = False,
                clubs: bool = False, school_ok: bool = False) -> Found:
    """ "Helio Energy as a data engineer" -> employer (and job title); refuses times ("at
    9am"), places that are not employers ("at home"), clubs ("joined the choir")."""
    title = None
    split = re.match(r"(?P<e>.+?)\sas\s(?:an?\s|the\s|their\s|our\s)?(?P<t>.+)", raw, re.I)
    if split:
        raw, title = split["e"], split["t"]
    value = _clean(raw, _NOT_AN_EMPLOYER_ALL, more=True)
    if (value is None or not re.search(r"[^\W\d_]", value) or _TIME_OF_DAY.fullmatch(value)
            or value.split()[0].lower() in _NOT_ANYONES):
        return []
    lowered = value.lower()
    words = set(_words(value))
    if clubs and (words & vocab.CLUB_WORDS or any(" " in club and club in lowered
                                                   for club in vocab.CLUB_WORDS)):
        return []
    if capital and not _has_capital(value):
        return []
    school = school_ok and bool(words & vocab.SCHOOL_WORDS) and _has_capital(value)
    found = [_fact(who, "school" if school else "employer", value=value)]
    if title:
        found += _job(who, title, context, known_only=False, place=False)
    return found


def _job(who: list[str], raw: str, context: _Context, *, known_only: bool = True,
         place: bool = True) -> Found:
    """ "nurse at St Mary's" -> job title and employer. With ``known_only`` the title must
    end in a known job word ("a chef", not "a saint")."""
    title_raw, *rest = re.split(r"\s(?:at|for|with)\s", raw, maxsplit=1, flags=re.I)
    title_raw = re.split(r"\s(?:in|of|by|from|on|who|which|and)\s", title_raw, maxsplit=1,
                         flags=re.I)[0]
    title = _clean(title_raw, _NOT_A_JOB, more=True)
    if title is None or len(title.split()) > 5:
        return []
    words = _words(title)
    if not words or any(word in ("former", "ex", "aspiring", "wannabe") for word in words):
        return []
    if known_only and words[-1] not in vocab.OCCUPATIONS:
        return []
    found = [_fact(who, "job_title", value=title)]
    if rest and place:
        if words[-1] in ("student", "pupil"):
            found += _school(who, "school", rest[0], context, need_word=False)
        else:
            found += _employment(who, rest[0], context)
    return found


def _school(who: list[str], key: str, raw: str, context: _Context, *,
            need_word: bool = True) -> Found:
    """A place of study, named like one: "Riverside Primary", "the University of Leeds"."""
    value = _clean(raw, _NOT_A_VALUE | {"school", "uni", "university", "college", "class",
                                        "work", "bed", "church", "the gym", "gym"}, more=True)
    if value is None:
        return []
    words = _words(value)
    first = value.split()[0]
    named = first[0].isupper() or (first.lower() == "the" and len(value.split()) > 1
                                   and value.split()[1][0].isupper())
    if context.cased and not named:
        return []
    if not context.cased and words[0] in vocab.SCHOOL_WORDS and (
            len(words) == 1 or words[1] == "in"):
        return []   # "school in leeds" names no school
    if need_word and not (set(words) & vocab.SCHOOL_WORDS or "sixth form" in value.lower()):
        return []
    if value.split()[0].lower() in _NOT_ANYONES - {"the"}:
        return []
    return [_fact(who, key, value=value)]


def _study(who: list[str], raw: str, context: _Context) -> Found:
    """ "law at Leeds" -> field of study and school; "at Leeds" -> school."""
    field_raw, _, school_raw = re.sub(r"^at\s", " at ", raw, flags=re.I).partition(" at ")
    found: Found = []
    field_raw = re.split(r"\s(?:in|on|online|every|each|all|with|for|from|because)\b",
                         field_raw, maxsplit=1, flags=re.I)[0]
    if field_raw.strip():
        field = _clean(field_raw, _NOT_A_FIELD, more=True)
        if field is None or len(field.split()) > 5:
            return []
        found.append(_fact(who, "field_of_study", value=field))
    if school_raw:
        found += _school(who, "school", school_raw, context, need_word=False)
    return found


def _age(who: list[str], number: str, unit: str | None) -> Found:
    if not 0 < int(number) <= 120:
        return []
    unit_word = (unit or "").split()
    value = number if not unit_word or unit_word[0].startswith(("year", "y")) else (
        f"{number} {unit_word[0]}")
    return [_fact(who, "age", value=value)]


@_rule("works_at", r"i(?:'ve|\s+have)?\s+(?:(?:just|recently|finally|now|officially)\s+)?"
       r"(?:got|landed|accepted|took|taken|secured|have|'ve\s+got|have\s+got|started)\s+"
       r"(?:a|an|the|my|that)\s+(?:(?:new|full[- ]time|part[- ]time|permanent|dream|summer)\s+)?"
       r"(?:job|role|position|post)\s+(?P<y>(?:as|at|with|for)\s.+)")
def _got_a_job(match: re.Match[str], context: _Context) -> Found:
    """ "I got a job at Acme", "I got a job as a nurse at St Mary's"."""
    y = match["y"]
    both = re.match(r"as\s(?:an?\s|the\s)?(?P<t>.+?)\s(?:at|with|for)\s(?P<e>.+)", y, re.I)
    if both:
        return (_job([], both["t"], context, known_only=False, place=False)
                + _employment([], both["e"], context))
    if y.lower().startswith("as "):
        return _job([], re.sub(r"^as\s(?:an?\s|the\s)?", "", y, flags=re.I), context,
                    known_only=False)
    return _employment([], y.split(" ", 1)[1], context)


@_rule("works_at", r"i(?:'ve|\s+have)?\s+(?:(?:just|finally|officially|now)\s+)?"
       r"(?:signed|accepted|took|taken)\s+(?:the|an|their|a|my|that|his|her)\s+"
       r"(?:(?:job|new|final|official|formal|employment|work)\s+)*(?:offer|contract)\s+"
       r"(?:from|with|at)\s+(?P<y>.+)")
def _signed(match: re.Match[str], context: _Context) -> Found:
    """ "I signed the offer from Helio Energy"."""
    return _employment([], match["y"], context)


@_rule("works_at", r"i(?:'ve|\s+have)?\s+(?:(?:just|finally|officially)\s+)?(?:got|been|was)\s+"
       r"(?:(?:just|finally|officially)\s+)?hired\s+(?:by|at)\s+(?P<y>.+)")
def _hired(match: re.Match[str], context: _Context) -> Found:
    return _employment([], match["y"], context)


@_rule("works_at", r"i(?:'ve|\s+have)?\s+(?:(?:just|recently|finally|officially|now)\s+)?"
       r"joined\s+(?P<y>.+)")
def _joined(match: re.Match[str], context: _Context) -> Found:
    """ "I just joined Helio Energy" (a name: "I joined the choir" is not a job)."""
    return _employment([], match["y"], context, capital=True, clubs=True)


@_rule("job_title", _I_AM + r"\s+(?:(?:now|currently|also|still|actually)\s+)?(?:an?|the)\s+"
       r"(?P<y>.+)")
def _i_am_a(match: re.Match[str], context: _Context) -> Found:
    """ "I'm a nurse at St Mary's" (a known job word: "I'm a mess" is not a job)."""
    return _job([], match["y"], context)


@_rule("age", r"(?:" + _I_AM + r"|i(?:'ve)?\s+(?:just\s+)?turned)\s+(?P<y>\d{1,3})"
       r"(?P<unit>\s+(?:years?\s+old|years\s+young|yo|y/o))?(?:\s+(?:today|this\s+year|"
       r"last\s+(?:week|month)|yesterday|now|already))?")
def _my_age(match: re.Match[str], context: _Context) -> Found:
    return _age([], match["y"], None)


@_rule("studies", r"i(?:'m|\s+am)?\s+(?:(?:currently|now|also|still)\s+)?(?:study|studying)\s+"
       r"(?P<y>.+)")
def _studies(match: re.Match[str], context: _Context) -> Found:
    """ "I study law at Leeds", "I'm studying medicine"."""
    return _study([], match["y"], context)


@_rule("studies", _I_AM + r"\s+(?:(?:currently|now|also|still)\s+)?(?P<verb>doing|studying\s+for|"
       r"working\s+(?:on|towards|toward)|pursuing|taking)\s+(?:a|an|my)\s+(?P<y>.+)")
def _doing_a_degree(match: re.Match[str], context: _Context) -> Found:
    """ "I'm doing a PhD in marine ecology (at Porto)"."""
    return _degree(match["y"], context, "school")


@_rule("studies", r"i(?:\s+have|'ve\s+got|\s+have\s+got|\s+hold|\s+did|\s+completed|"
       r"\s+finished|'ve\s+done|'ve\s+completed|'ve\s+finished|\s+got)\s+(?:a|an|my)\s+"
       r"(?P<y>.+)")
def _has_a_degree(match: re.Match[str], context: _Context) -> Found:
    """ "I have a master's in law from UCL"."""
    return _degree(match["y"], context, "alma_mater")


def _degree(raw: str, context: _Context, school_key: str) -> Found:
    match = _DEGREE.fullmatch(raw)
    if match is None:
        return []
    degree = match["d"]
    found: Found = []
    if degree.lower() not in ("degree", "diploma", "postgrad"):
        found.append(("degree", degree, "work"))
    if match["f"]:
        field = _clean(match["f"], _NOT_A_FIELD, more=True)
        if field is not None and len(field.split()) <= 5:
            found.append(("field_of_study", field, "work"))
    if match["s"]:
        found += _school([], school_key, match["s"], context, need_word=False)
    return found if (match["f"] or match["s"] or len(found) == 1) and found else []


@_rule("studies", r"i\s+(?:(?:currently|now|still|also)\s+)?(?:go\s+to|attend)\s+(?P<y>.+)")
def _goes_to(match: re.Match[str], context: _Context) -> Found:
    """ "I go to Riverside College" (a school's name: "I go to the gym" is not one)."""
    return _school([], "school", match["y"], context)


@_rule("graduated", r"i(?:'ve|\s+have)?\s+(?:(?:just|recently|finally)\s+)?graduated\s+from\s+"
       r"(?P<y>.+)")
def _graduated(match: re.Match[str], context: _Context) -> Found:
    """ "I graduated from Porto University"."""
    return _school([], "alma_mater", match["y"], context, need_word=False)


# --- places -----------------------------------------------------------------------------

_NOT_A_NAMED_PLACE = _NOT_A_PLACE | vocab.NOT_A_PLACE_EXTRA | {
    "here", "there", "nowhere", "everywhere", "around here", "all over", "work", "home",
    "around", "over",  # what "around here", "over there" leave once "here", "there" go
    "school", "abroad", "another planet", "outer space", "mars", "the internet", "a family",
    "a long line", "money", "nothing", "scratch", "the start"}


def _named_place(who: list[str], key: str, raw: str, context: _Context) -> Found:
    """A place name: refused when it is an idiom ("lives in fear"), a description without
    a name ("a small town"), or lower case in a message that uses capitals."""
    value = _clean(raw, _NOT_A_NAMED_PLACE, more=True)
    if value is None:
        return []
    if re.match(r"(?:a|an|the|my|our|some|his|her|their)\s", value, re.I) and not _has_capital(
            value):
        return []
    if context.cased and not _has_capital(value):
        return []
    return [_fact(who, key, value=value)]


@_rule("from", r"(?:" + _I_AM + r"\s+(?:originally\s+)?from|i\s+(?:originally\s+)?come\s+from)"
       r"\s+(?P<y>.+)")
def _from(match: re.Match[str], context: _Context) -> Found:
    """ "I'm from Ghana"."""
    return _named_place([], "origin", match["y"], context)


@_rule("grew_up_in", r"(?:i|we)\s+(?:grew\s+up|was\s+raised|were\s+raised|was\s+brought\s+up|"
       r"were\s+brought\s+up)\s+in\s+(?P<y>.+)")
def _grew_up_in(match: re.Match[str], context: _Context) -> Found:
    return _named_place([], "hometown", match["y"], context)


@_rule("born", r"i\s+was\s+born\s+(?P<prep>in|on)\s+(?P<y>.+)")
def _born(match: re.Match[str], context: _Context) -> Found:
    """ "I was born in Leeds" / "in 1990" / "on 14 March"."""
    raw = match["y"].strip(_EDGE_JUNK)
    if match["prep"].lower() == "on":
        value = _clean(raw, _NOT_A_VALUE)
        if value and re.search(r"\d|" + _MONTHS, value, re.I):
            return [("birthday", value, "personal")]
        return []
    if re.fullmatch(r"(?:19|20)\d\d", raw):
        return [("birth_year", raw, "personal")]
    if re.fullmatch(_MONTHS + r"(?:\s+(?:19|20)\d\d)?", raw, re.I):
        return []
    return _named_place([], "birthplace", raw, context)


@_rule("home", r"(?:i|we)(?:'ve|\s+have)?\s+(?:(?:just|recently|finally|also)\s+)?(?:bought|"
       r"purchased|rent|are\s+renting|'re\s+renting|am\s+renting|'m\s+renting)\s+(?:a|an|our|"
       r"my|the|this)\s+(?P<y>(?:[\w'-]+\s+){0,2}?(?:" + _alternation(vocab.PROPERTY)
       + r")\s+in\s+.+)")
def _bought_a_home(match: re.Match[str], context: _Context) -> Found:
    """ "we bought a flat in Graça" -> home = "flat in Graça"."""
    value = _clean(match["y"], _NOT_A_VALUE, more=True)
    if value is None:
        return []
    place = re.split(r"\sin\s", value, maxsplit=1, flags=re.I)[-1]
    if place.lower() in _NOT_A_NAMED_PLACE or (context.cased and not _has_capital(place)):
        return []
    return [("home", value, "location")]



@_rule("my_x_is_called", r"(?:my|our)\s+" + _X + r"(?:\s+is|'s)\s+(?:called|named)\s+(?P<y>.+)")
def _is_called(match: re.Match[str], context: _Context) -> Found:
    subject = _subject(match["x"])
    if subject is None:
        return []
    return _name(_key(*subject, "name"), match["y"])


@_rule("my_x_is_y", r"(?:my|our)\s+" + _X + r"(?:\s+is|\s+are|'s|\s*[:=])\s+(?P<y>.+)")
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


def _garbled(value: str) -> bool:
    """No letter or digit at all, or more combining marks than letters ("Z̸̢a̷l̶g̷o̸")."""
    alnum = sum(ch.isalnum() for ch in value)
    marks = sum(unicodedata.category(ch) == "Mn" for ch in value)
    return alnum == 0 or marks > alnum


def _about_someone_close(words: list[str]) -> bool:
    """Is a key about a person or pet close to the user ("sister_home_city",
    "older_brother_name", "number_of_kids")?"""
    counted = words[:2] == ["number", "of"]
    words = words[2:] if counted else words
    if words and words[0] in _MODIFIER_KEYS:
        words = words[1:]
    return any("_".join(words[:size]) in _CLOSE_KEYS
               for size in (3, 2, 1) if len(words) > size or (counted and len(words) == size))


def _strip_symbols(text: str) -> str:
    """Drop trailing emoji (with their joiners and variation selectors)."""
    end = len(text)
    while end and (unicodedata.category(text[end - 1]) in ("So", "Sk", "Mn", "Cf")):
        end -= 1
    return text[:end]


def _clean(raw: str, refused: set[str] | frozenset[str], *, more: bool = False) -> str | None:
    """The value in ``raw``: cut at the first connector, trimmed; ``None`` if unusable.
    ``more`` also trims the time words of ``_TRAILING_MORE`` ("in March", "originally")."""
    value = _CONNECTOR.split(raw, maxsplit=1)[0]
    if len(value) > MAX_VALUE_CHARS + 120:
        return None   # no trimming of trailing words gets this under the cap
    previous = None
    while previous != value:
        previous = value
        value = _strip_symbols(_EMOTICON.sub("", value))
        value = _TRAILING.sub("", value).strip(_EDGE_JUNK)
        if more:
            value = _TRAILING_MORE.sub("", value).strip(_EDGE_JUNK)
    value = " ".join(value.split())
    if not value or len(value) > MAX_VALUE_CHARS or _garbled(value):
        return None
    lowered = value.lower()
    first_word = lowered.split()[0]
    if lowered in refused or first_word in refused or first_word in (
            "that", "not", "to", "when", "if", "because", "it", "this", "it's", "that's",
            "i'm"):
        return None
    return value
