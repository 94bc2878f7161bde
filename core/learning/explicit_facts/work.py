"""Work and study: the employer and job title ("I work at Acme", "I started at Helio
Energy", "I got a job as a nurse at St Mary's", "I'm a chef"), and the school, degree and
field of study ("I study law at Leeds", "I'm doing a PhD in marine ecology", "I graduated
from Porto University"); the user's studies count as ``work``.

A job must end in a known job word ("I'm a mess" is no job) and a school must be named like
one ("I go to the gym" is no school): the word lists are in ``core.learning.vocabulary``.
``job_of``, ``employment_of``, ``school_of`` and ``study_of`` also read the work and studies
of someone close to the user (``core.learning.explicit_facts.people``)."""

from __future__ import annotations

import re

from core.learning import vocabulary as vocab
from core.learning.explicit_facts.engine import I_AM, Context, Found, alternation, fact_about, rule
from core.learning.explicit_facts.values import NOT_A_VALUE, clean, has_capital, words_of

_NOT_AN_EMPLOYER = {"home", "night", "nights", "weekends", "the weekend", "the moment",
                    "myself", "night shifts", "a desk", "a computer", "it", "that"}


@rule("works_as", r"i(?:'m|\s+am)?\s+(?:now\s+|currently\s+)?work(?:ing)?\s+as\s+(?:an?\s+)?"
      r"(?P<y>.+)")
def works_as(match: re.Match[str], context: Context) -> Found:
    title, *place = re.split(r"\s+(?:at|for)\s+", match["y"], maxsplit=1, flags=re.I)
    value = clean(title, NOT_A_VALUE, more=True)
    if value is None:
        return []
    employer = clean(place[0], _NOT_AN_EMPLOYER) if place else None
    return [("job_title", value, "work")] + ([("employer", employer, "work")] if employer else [])


@rule("works_at", r"i(?:'m|\s+am)?\s+(?:now\s+|currently\s+|still\s+)?work(?:ing)?\s+"
      r"(?:at|for)\s+(?P<y>.+)")
def works_at(match: re.Match[str], context: Context) -> Found:
    value = clean(match["y"], _NOT_AN_EMPLOYER)
    return [("employer", value, "work")] if value else []


@rule("works_at", r"i(?:'ve|\s+have)?\s+(?:(?:just|recently|finally|now|officially)\s+)?"
      r"started\s+(?:(?:a|my)\s+(?:new\s+)?(?:job|role|position)\s+|working\s+|work\s+)?"
      r"(?:at|for|with)\s+(?P<y>.+)")
def started_at(match: re.Match[str], context: Context) -> Found:
    """ "I started at Helio Energy" (not "at 9am", not "at the bottom")."""
    return employment_of([], match["y"], context, school_ok=True)


_NOT_A_JOB = NOT_A_VALUE | {"former", "ex", "ex-", "aspiring", "wannabe", "future",
                             "would-be", "bit", "lot", "little", "big", "huge", "total"}
_NOT_A_FIELD = NOT_A_VALUE | {
    "for", "with", "hard", "late", "tonight", "every", "a", "an", "the", "at", "in", "on",
    "because", "more", "less", "alone", "together", "abroad", "online", "from", "by",
    "during", "while", "after", "before", "full", "part", "remotely", "lots", "everything",
    "anything", "something", "nothing", "day", "night", "here", "there", "better"}
_NOT_AN_EMPLOYER_ALL = _NOT_AN_EMPLOYER | vocab.NOT_AN_EMPLOYER_EXTRA
_NOT_ANYONES = {"my", "his", "her", "their", "your", "our", "a", "an", "some", "this", "that",
                "them", "him", "us", "me", "you", "it", "there", "here"}
_TIME_OF_DAY = re.compile(r"\d{1,2}(?:[:.]\d\d)?\s?(?:am|pm|a\.m|p\.m|o'clock|h)?", re.I)
_DEGREE = re.compile(r"(?P<d>" + alternation(vocab.DEGREES) + r")(?:\s(?:degree|course|"
                     r"programme|program))?(?![\w'])(?:\s(?:in|of)\s(?P<f>.+?))?"
                     r"(?:\s(?:at|from|with)\s(?P<s>.+))?", re.I)


def employment_of(who: list[str], raw: str, context: Context, *, capital: bool = False,
                clubs: bool = False, school_ok: bool = False) -> Found:
    """ "Helio Energy as a data engineer" -> employer (and job title); refuses times ("at
    9am"), places that are not employers ("at home"), clubs ("joined the choir")."""
    title = None
    split = re.match(r"(?P<e>.+?)\sas\s(?:an?\s|the\s|their\s|our\s)?(?P<t>.+)", raw, re.I)
    if split:
        raw, title = split["e"], split["t"]
    value = clean(raw, _NOT_AN_EMPLOYER_ALL, more=True)
    if (value is None or not re.search(r"[^\W\d_]", value) or _TIME_OF_DAY.fullmatch(value)
            or value.split()[0].lower() in _NOT_ANYONES):
        return []
    lowered = value.lower()
    words = set(words_of(value))
    if clubs and (words & vocab.CLUB_WORDS or any(" " in club and club in lowered
                                                   for club in vocab.CLUB_WORDS)):
        return []
    if capital and not has_capital(value):
        return []
    school = school_ok and bool(words & vocab.SCHOOL_WORDS) and has_capital(value)
    found = [fact_about(who, "school" if school else "employer", value=value)]
    if title:
        found += job_of(who, title, context, known_only=False, place=False)
    return found


def job_of(who: list[str], raw: str, context: Context, *, known_only: bool = True,
         place: bool = True) -> Found:
    """ "nurse at St Mary's" -> job title and employer. With ``known_only`` the title must
    end in a known job word ("a chef", not "a saint")."""
    title_raw, *rest = re.split(r"\s(?:at|for|with)\s", raw, maxsplit=1, flags=re.I)
    title_raw = re.split(r"\s(?:in|of|by|from|on|who|which|and)\s", title_raw, maxsplit=1,
                         flags=re.I)[0]
    title = clean(title_raw, _NOT_A_JOB, more=True)
    if title is None or len(title.split()) > 5:
        return []
    words = words_of(title)
    if not words or any(word in ("former", "ex", "aspiring", "wannabe") for word in words):
        return []
    if known_only and words[-1] not in vocab.OCCUPATIONS:
        return []
    found = [fact_about(who, "job_title", value=title)]
    if rest and place:
        if words[-1] in ("student", "pupil"):
            found += school_of(who, "school", rest[0], context, need_word=False)
        else:
            found += employment_of(who, rest[0], context)
    return found


def school_of(who: list[str], key: str, raw: str, context: Context, *,
            need_word: bool = True) -> Found:
    """A place of study, named like one: "Riverside Primary", "the University of Leeds"."""
    value = clean(raw, NOT_A_VALUE | {"school", "uni", "university", "college", "class",
                                        "work", "bed", "church", "the gym", "gym"}, more=True)
    if value is None:
        return []
    words = words_of(value)
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
    return [fact_about(who, key, value=value)]


def study_of(who: list[str], raw: str, context: Context) -> Found:
    """ "law at Leeds" -> field of study and school; "at Leeds" -> school."""
    field_raw, _, school_raw = re.sub(r"^at\s", " at ", raw, flags=re.I).partition(" at ")
    found: Found = []
    field_raw = re.split(r"\s(?:in|on|online|every|each|all|with|for|from|because)\b",
                         field_raw, maxsplit=1, flags=re.I)[0]
    if field_raw.strip():
        field = clean(field_raw, _NOT_A_FIELD, more=True)
        if field is None or len(field.split()) > 5:
            return []
        found.append(fact_about(who, "field_of_study", value=field))
    if school_raw:
        found += school_of(who, "school", school_raw, context, need_word=False)
    return found


@rule("works_at", r"i(?:'ve|\s+have)?\s+(?:(?:just|recently|finally|now|officially)\s+)?"
      r"(?:got|landed|accepted|took|taken|secured|have|'ve\s+got|have\s+got|started)\s+"
      r"(?:a|an|the|my|that)\s+(?:(?:new|full[- ]time|part[- ]time|permanent|dream|summer)\s+)?"
      r"(?:job|role|position|post)\s+(?P<y>(?:as|at|with|for)\s.+)")
def got_a_job(match: re.Match[str], context: Context) -> Found:
    """ "I got a job at Acme", "I got a job as a nurse at St Mary's"."""
    y = match["y"]
    both = re.match(r"as\s(?:an?\s|the\s)?(?P<t>.+?)\s(?:at|with|for)\s(?P<e>.+)", y, re.I)
    if both:
        return (job_of([], both["t"], context, known_only=False, place=False)
                + employment_of([], both["e"], context))
    if y.lower().startswith("as "):
        return job_of([], re.sub(r"^as\s(?:an?\s|the\s)?", "", y, flags=re.I), context,
                    known_only=False)
    return employment_of([], y.split(" ", 1)[1], context)


@rule("works_at", r"i(?:'ve|\s+have)?\s+(?:(?:just|finally|officially|now)\s+)?"
      r"(?:signed|accepted|took|taken)\s+(?:the|an|their|a|my|that|his|her)\s+"
      r"(?:(?:job|new|final|official|formal|employment|work)\s+)*(?:offer|contract)\s+"
      r"(?:from|with|at)\s+(?P<y>.+)")
def signed(match: re.Match[str], context: Context) -> Found:
    """ "I signed the offer from Helio Energy"."""
    return employment_of([], match["y"], context)


@rule("works_at", r"i(?:'ve|\s+have)?\s+(?:(?:just|finally|officially)\s+)?(?:got|been|was)\s+"
      r"(?:(?:just|finally|officially)\s+)?hired\s+(?:by|at)\s+(?P<y>.+)")
def hired(match: re.Match[str], context: Context) -> Found:
    return employment_of([], match["y"], context)


@rule("works_at", r"i(?:'ve|\s+have)?\s+(?:(?:just|recently|finally|officially|now)\s+)?"
      r"joined\s+(?P<y>.+)")
def joined(match: re.Match[str], context: Context) -> Found:
    """ "I just joined Helio Energy" (a name: "I joined the choir" is not a job)."""
    return employment_of([], match["y"], context, capital=True, clubs=True)


@rule("job_title", I_AM + r"\s+(?:(?:now|currently|also|still|actually)\s+)?(?:an?|the)\s+"
      r"(?P<y>.+)")
def i_am_a(match: re.Match[str], context: Context) -> Found:
    """ "I'm a nurse at St Mary's" (a known job word: "I'm a mess" is not a job)."""
    return job_of([], match["y"], context)


@rule("studies", r"i(?:'m|\s+am)?\s+(?:(?:currently|now|also|still)\s+)?(?:study|studying)\s+"
      r"(?P<y>.+)")
def studies(match: re.Match[str], context: Context) -> Found:
    """ "I study law at Leeds", "I'm studying medicine"."""
    return study_of([], match["y"], context)


@rule("studies", I_AM + r"\s+(?:(?:currently|now|also|still)\s+)?(?P<verb>doing|studying\s+for|"
      r"working\s+(?:on|towards|toward)|pursuing|taking)\s+(?:a|an|my)\s+(?P<y>.+)")
def doing_a_degree(match: re.Match[str], context: Context) -> Found:
    """ "I'm doing a PhD in marine ecology (at Porto)"."""
    return _degree(match["y"], context, "school")


@rule("studies", r"i(?:\s+have|'ve\s+got|\s+have\s+got|\s+hold|\s+did|\s+completed|"
      r"\s+finished|'ve\s+done|'ve\s+completed|'ve\s+finished|\s+got)\s+(?:a|an|my)\s+"
      r"(?P<y>.+)")
def has_a_degree(match: re.Match[str], context: Context) -> Found:
    """ "I have a master's in law from UCL"."""
    return _degree(match["y"], context, "alma_mater")


def _degree(raw: str, context: Context, school_key: str) -> Found:
    match = _DEGREE.fullmatch(raw)
    if match is None:
        return []
    degree = match["d"]
    found: Found = []
    if degree.lower() not in ("degree", "diploma", "postgrad"):
        found.append(("degree", degree, "work"))
    if match["f"]:
        field = clean(match["f"], _NOT_A_FIELD, more=True)
        if field is not None and len(field.split()) <= 5:
            found.append(("field_of_study", field, "work"))
    if match["s"]:
        found += school_of([], school_key, match["s"], context, need_word=False)
    return found if (match["f"] or match["s"] or len(found) == 1) and found else []


@rule("studies", r"i\s+(?:(?:currently|now|still|also)\s+)?(?:go\s+to|attend)\s+(?P<y>.+)")
def goes_to(match: re.Match[str], context: Context) -> Found:
    """ "I go to Riverside College" (a school's name: "I go to the gym" is not one)."""
    return school_of([], "school", match["y"], context)


@rule("graduated", r"i(?:'ve|\s+have)?\s+(?:(?:just|recently|finally)\s+)?graduated\s+from\s+"
      r"(?P<y>.+)")
def graduated(match: re.Match[str], context: Context) -> Found:
    """ "I graduated from Porto University"."""
    return school_of([], "alma_mater", match["y"], context, need_word=False)
