"""Plausible English for generated chats: a user's short questions and an assistant's long
answers (paragraphs, some with a bulleted list or a code block), about one topic each.

Deterministic: every function takes its own ``random.Random``. The texts are made from
templates over a small vocabulary per topic; they read like chat, not like sense, which is
what an import's cost depends on (lengths, sentences, lines, tokens)."""

from __future__ import annotations

import random
from dataclasses import dataclass


MIN_ANSWER_WORDS, MAX_ANSWER_WORDS = 150, 700


@dataclass(frozen=True)
class Topic:
    name: str
    things: tuple[str, ...]
    actions: tuple[str, ...]
    qualities: tuple[str, ...]
    code: tuple[str, ...]


def _topic(name: str, things: str, actions: str, qualities: str, code: str) -> Topic:
    return Topic(name, tuple(things.split(", ")), tuple(actions.split(", ")),
                 tuple(qualities.split(", ")), tuple(code.split(", ")))


TOPICS = (
    _topic("cooking", "sourdough starter, cast iron pan, risotto, tomato sauce, chicken thighs, "
           "spice rack, pressure cooker, lentil soup, pizza dough, vegetable stock",
           "roast, simmer, season, knead, marinate, braise, reduce, bake",
           "crispy, tender, rich, bland, smoky, tangy, dense, silky",
           "hydration, oven_temp, rest_minutes, salt_grams"),
    _topic("travel", "train pass, passport, hostel booking, carry-on bag, travel insurance, "
           "night bus, city map, museum ticket, ferry to the islands, rental car",
           "book, pack, plan, reschedule, visit, compare, reserve, cancel",
           "cheap, crowded, scenic, reliable, flexible, remote, walkable, expensive",
           "budget_per_day, nights, route, departure"),
    _topic("programming", "database migration, unit test, API endpoint, background job, "
           "config file, memory leak, pull request, cache layer, log message, type checker",
           "refactor, debug, deploy, profile, cache, validate, serialise, mock",
           "flaky, slow, readable, thread-safe, idempotent, brittle, fast, verbose",
           "retries, timeout_s, batch_size, user_id"),
    _topic("gardening", "tomato seedlings, raised bed, compost heap, rose bush, drip line, "
           "potting mix, apple tree, herb planter, lawn, greenhouse",
           "water, prune, repot, fertilise, mulch, transplant, sow, harvest",
           "leggy, wilted, healthy, sandy, shady, overgrown, frost-hardy, root-bound",
           "water_ml, sun_hours, spacing_cm, ph_level"),
    _topic("finance", "emergency fund, index fund, credit card, monthly budget, pension, "
           "mortgage rate, savings account, tax return, grocery spending, subscription",
           "save, invest, refinance, track, cut, rebalance, consolidate, automate",
           "fixed, variable, risky, diversified, tax-free, overdue, sustainable, tight",
           "income, rent, savings_rate, months"),
    _topic("fitness", "running plan, knee pain, rest day, deadlift, protein intake, "
           "half marathon, stretching routine, heart rate zone, gym membership, swim session",
           "train, stretch, recover, lift, pace, warm up, track, increase",
           "sore, steady, intense, easy, consistent, sustainable, painful, efficient",
           "weekly_km, sets, reps, target_pace"),
    _topic("home repair", "leaking tap, bathroom grout, light switch, drafty window, "
           "cracked tile, boiler pressure, door hinge, damp wall, shelf bracket, gutter",
           "fix, seal, replace, drill, patch, bleed, tighten, paint",
           "loose, rusty, mouldy, level, watertight, noisy, worn, sturdy",
           "drill_bit_mm, screws, coats, drying_hours"),
    _topic("language learning", "Portuguese verbs, flashcard deck, pronunciation, "
           "conversation partner, grammar book, listening practice, vocabulary list, "
           "podcast episode, subjunctive mood, writing journal",
           "practise, review, memorise, repeat, translate, listen to, conjugate, shadow",
           "fluent, awkward, formal, casual, irregular, confusing, natural, tricky",
           "cards_per_day, streak, level, minutes"),
    _topic("career", "job interview, performance review, salary offer, cover letter, "
           "team lead role, side project, notice period, reference letter, portfolio, "
           "one-on-one meeting",
           "negotiate, prepare, apply, delegate, present, network, ask for, document",
           "senior, remote, stressful, rewarding, competitive, junior, flexible, vague",
           "offer, base_salary, bonus_pct, start_date"),
    _topic("pets", "rescue dog, cat litter, vet appointment, dog lead, chew toys, "
           "flea treatment, puppy class, cat tree, food bowl, dog walker",
           "train, groom, feed, walk, socialise, reward, adopt, vaccinate",
           "anxious, playful, shy, energetic, calm, stubborn, friendly, picky",
           "grams_per_day, walks, weight_kg, age_months"),
)

_OPENINGS = (
    "Good question, and it comes up a lot with {thing}.",
    "Here is how I would think about {thing}.",
    "That depends a little on your situation, but there are a few clear steps.",
    "Short answer: yes, but it helps to {action} the {thing} first.",
    "Let's break this down so it is easier to decide.",
)
_BODY = (
    "The most common mistake is to {action} the {thing} before the {other} is ready.",
    "If the {thing} feels {quality}, try to {action} it a little less often for a week.",
    "Most people find that a {quality} {thing} is easier to manage than a {other}.",
    "You do not need anything special to {action} the {thing}; a bit of patience does most "
    "of the work.",
    "It is worth writing down what happens each time you {action} the {other}, because the "
    "pattern is usually obvious after a few days.",
    "A {quality} {other} usually means something upstream needs attention, often the {thing}.",
    "Keep in mind that the {thing} and the {other} affect each other more than it seems.",
    "Start small: {action} the {thing} once, see how it goes, and only then change the "
    "{other}.",
    "In my experience the {quality} option is fine for a while, but it tends to cost more "
    "later.",
    "If you can, ask someone who has dealt with a {thing} before; ten minutes of advice "
    "saves a lot of guessing.",
    "There is no single right answer here, and a {quality} {thing} is not a failure.",
    "Try to {action} the {other} at the same time every week so it becomes routine.",
    "When in doubt, compare the {thing} with the {other} side by side and pick the less "
    "{quality} one.",
)
_LIST_INTROS = ("A few things to check:", "Here is a simple plan:",
                "The options, roughly in order of effort:", "What usually helps:")
_LIST_ITEMS = (
    "**{Thing}**: {action} it first and see whether that alone is enough.",
    "Check whether the {thing} is {quality}; if so, {action} the {other}.",
    "Set aside time to {action} the {other}.",
    "Keep a note of the {thing} and how {quality} it was.",
    "Ask for help with the {other} if it stays {quality}.",
)
_CLOSINGS = (
    "Let me know how it goes and we can adjust from there.",
    "If you tell me more about the {thing}, I can be more specific.",
    "Would you like a checklist you can keep?",
    "I hope that helps; happy to go through any step in more detail.",
)
_QUESTIONS = (
    "How do I {action} the {thing}?",
    "What is the best way to {action} a {quality} {thing}?",
    "Should I {action} the {thing} or the {other} first?",
    "Why is my {thing} so {quality} lately?",
    "Can you help me plan how to {action} the {other} this week?",
    "Is it normal for the {thing} to be {quality}?",
)
_REMARKS = (
    "I tried to {action} the {thing} yesterday and it went badly.",
    "My {other} has been {quality} for about two weeks now.",
    "I only have an hour or so on weekday evenings.",
    "Thanks, that makes sense.",
    "The {thing} is the part I keep getting stuck on, honestly.",
    "My sister said I should just {action} the {other} and forget about it.",
)


def _fill(rng: random.Random, template: str, topic: Topic) -> str:
    thing, other = rng.sample(topic.things, 2)
    return template.format(thing=thing, Thing=thing[:1].upper() + thing[1:], other=other,
                           action=rng.choice(topic.actions),
                           quality=rng.choice(topic.qualities))


def _words(text: str) -> int:
    return len(text.split())


def user_message(rng: random.Random, topic: Topic) -> str:
    """1 to 3 sentences, 10 to 60 words, ending (usually) in a question."""
    sentences = [_fill(rng, rng.choice(_QUESTIONS), topic)]
    wanted = rng.randint(1, 3)
    while len(sentences) < wanted or _words(" ".join(sentences)) < 10:
        sentences.insert(0, _fill(rng, rng.choice(_REMARKS), topic))
    while _words(" ".join(sentences)) > 60:
        sentences.pop(0)
    return " ".join(sentences)


def assistant_message(rng: random.Random, topic: Topic) -> str:
    """150 to 700 words in paragraphs of 2 to 5 sentences; about a third of the answers have
    a bulleted list, a fifth a code block."""
    target = rng.randint(MIN_ANSWER_WORDS, MAX_ANSWER_WORDS)
    blocks = [_fill(rng, rng.choice(_OPENINGS), topic)]
    extras = []
    if rng.random() < 0.35:
        extras.append("list")
    if rng.random() < 0.2:
        extras.append("code")
    words = _words(blocks[0])
    closing = _fill(rng, rng.choice(_CLOSINGS), topic)
    while words + _words(closing) < target:
        if extras and rng.random() < 0.4:
            block = _list(rng, topic) if extras.pop() == "list" else _code(rng, topic)
        else:
            block = " ".join(_fill(rng, rng.choice(_BODY), topic)
                             for _ in range(rng.randint(2, 5)))
        if words + _words(block) + _words(closing) > MAX_ANSWER_WORDS:
            break
        blocks.append(block)
        words += _words(block)
    blocks.append(closing)
    return "\n\n".join(blocks)


def _list(rng: random.Random, topic: Topic) -> str:
    items = [f"- {_fill(rng, rng.choice(_LIST_ITEMS), topic)}" for _ in range(rng.randint(3, 6))]
    return rng.choice(_LIST_INTROS) + "\n\n" + "\n".join(items)


def _code(rng: random.Random, topic: Topic) -> str:
    names = rng.sample(topic.code, 3)
    name = topic.name.replace(" ", "_")
    lines = [f"def plan_{name}({names[0]}, {names[1]}={rng.randint(2, 90)}):",
             f"    {names[2]} = {names[0]} * {rng.randint(2, 9)} // {names[1]}",
             f"    if {names[2]} > {rng.randint(10, 500)}:",
             f"        return {{\"{names[0]}\": {names[0]}, \"note\": \"too much\"}}",
             f"    return {{\"{names[0]}\": {names[0]}, \"{names[2]}\": {names[2]}}}",
             "",
             f"print(plan_{name}({rng.randint(1, 999)}))"]
    return "Something like this keeps the numbers straight:\n\n```python\n" + "\n".join(
        lines) + "\n```"
