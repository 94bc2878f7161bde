"""A small model's reply, kept short and honest: sentence by sentence, as it streams.

Why: the built-in 135M model, told "I'm allergic to peanuts", invented a Facebook page and
a website, wrote "I've set a reminder" with no tool behind it (it has none), and left
template holes ("[event_date]"). A model that may only phrase replies
(``CapabilityProfile.limited``) therefore gets at most ``REPLY_TOKENS`` tokens, and each
finished sentence is checked before it is shown; a sentence that

* claims Hearth did something ("I've saved…", "I'll remind you", "has been scheduled"):
  such a model has no tools, so it cannot have;
* holds a template hole (``[event_date]``, ``{name}``, ``<insert date>``);
* gives a web address, an e-mail address or a handle the conversation never mentioned
  (invented pages and contacts);
* says things the conversation never did: of its content words (``CONTENT_WORD``: four
  letters or more, not among the commonest) and its numbers (``NUMBER``: a date, a time, a
  count), at least ``UNGROUNDED_AT_LEAST`` and more than half are in none of the
  conversation's text. Told "My sister Priya lives in Lisbon
  and works as a nurse", the 135M model answered that Priya "runs her own hospital" and
  is "studying abroad at the University of Lisbon": a person reads that as something
  Hearth knows. Told "My friend Ines lives in Porto and plays the violin", it answered
  with nothing but dates and times ("2026-12-29 10:37 PM ET/CET - SEPTEMBER 2018-11-30
  ..."), which words alone did not catch. A short sentence ("Thanks for telling me!",
  "How is she?") passes, as does one built of the conversation's own words;

is left out. What remains streams as it would have; if nothing remains, ``NOTHING_LEFT``
says so rather than showing an empty reply. Only counts and kinds are logged.
"""

from __future__ import annotations

import logging
import re
from collections import Counter

from core.learning.quality_gate import TEMPLATE_HOLE

log = logging.getLogger(__name__)

REPLY_TOKENS = 160
"""A small model's longest reply: a short paragraph. Past it the 135M model drifts into
lists of invented steps, and every token costs time on a busy two-core machine."""
NOTHING_LEFT = ("(The built-in model's answer did not hold up, so it is not shown. A "
                "capable model answers better: see Settings → Model.)")

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")
_CLAIM = re.compile(
    r"\bI(?:'ve| have|'ll| will| just| also|'m going to| am going to)*\s+"
    r"(?:set|saved|save|created|create|added|add|scheduled|schedule|booked|book|sent|send|"
    r"made a note|make a note|noted|note|stored|store|remembered|remember|updated|update|"
    r"deleted|delete|removed|remove|emailed|email|called|call|ordered|order|reminded|"
    r"remind|registered|register|signed you up|sign you up|set up|written down|wrote down|"
    r"write down|put|logged|log|recorded|record|forwarded|shared|posted|opened|launched)\b"
    r"|\b(?:has|have) been (?:set|saved|created|added|scheduled|booked|sent|stored|noted|"
    r"recorded|updated|deleted|registered)\b",
    re.IGNORECASE)
CONTENT_WORD = re.compile(r"[^\W\d_]{4,}")
NUMBER = re.compile(r"\d+")
UNGROUNDED_AT_LEAST = 3
COMMON = frozenset("""
about after again also always another back been before being below between both came come
could does doing done down each even every from have having here into just know like made
make many more most much must need never only other over said same should show since some
such sure take tell than thank thanks that their them then there these they thing things
think this those though through time very want well were what when where which while will
with would your yours you're it's that's there's what's let's i'm i've i'll indeed really
great good glad nice hear help happy today maybe perhaps something anything everything
""".split())
"""Words that say nothing about the world: a sentence is not judged by them."""
_ADDRESS = re.compile(r"\b(?:https?://|www\.)\S+|\b[\w.+-]+@[\w-]+\.[\w.]+\b"
                      r"|\b[\w-]+\.(?:com|org|net|io|co|uk)\b(?:/\S*)?|(?<!\w)@\w{3,}",
                      re.IGNORECASE)


class SmallReply:
    """Filters one streamed reply. ``known`` is the conversation's own text (the user's
    message and what Hearth put in the prompt): an address found there may be repeated."""

    def __init__(self, known: str) -> None:
        self._known = known.casefold()
        self._known_words = frozenset(CONTENT_WORD.findall(self._known))
        self._known_numbers = frozenset(NUMBER.findall(self._known))
        self._pending = ""
        self._shown = False
        self.dropped: Counter[str] = Counter()

    def feed(self, text: str) -> str:
        """The part of the reply that may be shown now (whole sentences only)."""
        self._pending += text
        pieces = _SENTENCE_END.split(self._pending)
        ends = _SENTENCE_END.findall(self._pending)
        self._pending = pieces.pop()
        return "".join(self._kept(piece, end) for piece, end in zip(pieces, ends, strict=True))

    def finish(self) -> str:
        """The rest of the reply once the model stopped (and ``NOTHING_LEFT`` if nothing
        was shown); logs what was left out, by kind."""
        rest, self._pending = self._kept(self._pending, ""), ""
        if self.dropped:
            log.info("a small model's reply: left out %s", dict(self.dropped))
        if not self._shown and not rest.strip():
            self._shown = True
            return NOTHING_LEFT
        return rest

    def _kept(self, sentence: str, end: str) -> str:
        if not sentence.strip():
            return sentence + end
        reason = self._problem(sentence)
        if reason is not None:
            self.dropped[reason] += 1
            return "\n" if "\n" in end and self._shown else ""
        self._shown = True
        return sentence + end

    def _problem(self, sentence: str) -> str | None:
        if _CLAIM.search(sentence):
            return "claim"
        if TEMPLATE_HOLE.search(sentence):
            return "template hole"
        for address in _ADDRESS.findall(sentence):
            if address.casefold().rstrip(".,;:)") not in self._known:
                return "address"
        words = [word for word in CONTENT_WORD.findall(sentence.casefold())
                 if word not in COMMON]
        numbers = NUMBER.findall(sentence)
        novel = ([word for word in words if word not in self._known_words]
                 + [number for number in numbers if number not in self._known_numbers])
        if len(novel) >= UNGROUNDED_AT_LEAST and len(novel) * 2 > len(words) + len(numbers):
            return "ungrounded"
        return None
