"""Reading a message: the user's own lines, split into sentences and clauses, each clause
tried against ``RULES`` in order (the first rule that finds something wins).

What is not the user stating something is skipped before any rule sees it: questions,
reported speech and quotes, what is made up ("hypothetically, ..."), and pasted material
(quoted lines, code, everything after "Ana wrote:"). ``MAX_MESSAGE_CHARS`` and
``MAX_CLAUSE_CHARS`` bound the work per message, and every pattern runs in linear time."""

from __future__ import annotations

import re
import unicodedata

from core.knowledge.facts import normalise_key
from core.learning import vocabulary as vocab
from core.learning.explicit_facts.engine import Context, ExplicitFact
from core.learning.explicit_facts.rules import RULES
from core.learning.explicit_facts.statements import as_note
from core.learning.explicit_facts.values import EDGE_JUNK

MAX_CLAUSE_CHARS = 400
"""Longer clauses are rambling, not statements; skipping them also keeps every rule fast."""
MAX_MESSAGE_CHARS = 100_000
"""Only the first 100,000 characters of a message are read (a 1 MB paste is pasted
material): together with ``MAX_CLAUSE_CHARS`` this bounds the work per message."""


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
_NOTE_REQUEST = re.compile(
    r"^(?:please\s+)?(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?)?note\s*:", re.I)
""""note: ..." asks for a note, which the assistant holds for the user's confirmation."""
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
    context = Context(remember is not None, correction, last_key, cased,
                      as_written=not (remember and _NOTE_REQUEST.match(remember.group())))
    facts: list[ExplicitFact] = []
    for raw in _CLAUSE_SPLIT.split(text):
        clause = _CHATTER.sub("", raw.strip(EDGE_JUNK + " ")).strip()
        if clause and len(clause) <= MAX_CLAUSE_CHARS:
            facts.extend(_read_compound(clause, context))
        if _REPORTED_BEFORE.search(raw[-60:]):
            break   # "my friend said, I work too much": the rest is what someone said
    return facts


def _read_compound(clause: str, context: Context) -> list[ExplicitFact]:
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


def _read_clause(clause: str, context: Context, *, note: bool = True) -> list[ExplicitFact]:
    for rule in RULES:
        match = rule.pattern.match(clause)
        if match is None:
            continue
        facts = rule.build(match, context)
        if facts:
            name = f"remember_that:{rule.name}" if context.explicit else rule.name
            correction = context.correction or rule.corrects
            return [ExplicitFact(key, value, category, name, correction)
                    for key, value, category in facts]
    if context.explicit and note and context.as_written:
        return as_note(clause, context)
    return []
