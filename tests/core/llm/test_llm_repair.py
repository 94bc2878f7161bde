"""LLM output repair and validation: the corpus of malformed outputs, the retry path, and
the rule that nothing raises into the caller and nothing invalid comes back."""

from __future__ import annotations

import json
import logging
import random
from pathlib import Path
from typing import Any, Literal

import pytest
from pydantic import BaseModel, ConfigDict, Field

from core.llm import CancelToken, LLMCancelled, LLMTimeoutError, Message
from core.llm.repair import (
    MAX_INPUT_CHARS,
    MAX_NESTING,
    RepairFailed,
    coerce_shape,
    repair_json,
)
from core.llm.structured import (
    CANCELLED,
    ask_structured,
    json_schema_for,
    parse_structured,
)
from support.scripted_llm import ScriptedLLM, failing

CORPUS = Path(__file__).parents[2] / "data" / "malformed_llm_outputs"


# --- example pipeline models: bounded, as small models need (see core.llm.structured) -------

class Fact(BaseModel):
    model_config = ConfigDict(coerce_numbers_to_str=True)

    key: str = Field(min_length=1, max_length=60)
    value: str = Field(min_length=1, max_length=200)
    category: Literal["location", "personal", "preference", "work", "health", "general"]


class FactList(BaseModel):
    facts: list[Fact] = Field(max_length=10)


class Summary(BaseModel):
    topic: str = Field(max_length=80)
    priority: int = Field(ge=1, le=5)
    important: bool = False
    follow_up: str | None = Field(default=None, max_length=200)


MODELS: dict[str, type[BaseModel]] = {"FactList": FactList, "Summary": Summary}
ASK = [Message("system", "Extract facts as JSON."), Message("user", "I live in Lisbon.")]


def corpus_cases() -> list[dict[str, Any]]:
    manifest = json.loads((CORPUS / "cases.json").read_text(encoding="utf-8"))
    return manifest["cases"]


def read_case(case: dict[str, Any]) -> str:
    return (CORPUS / case["file"]).read_text(encoding="utf-8")


def test_the_corpus_is_complete() -> None:
    cases = corpus_cases()
    listed = {case["file"] for case in cases}
    on_disk = {path.name for path in CORPUS.glob("*.txt")}
    assert listed == on_disk
    assert len(cases) >= 30
    assert {case["outcome"] for case in cases} == {"value", "invalid", "not_json"}


@pytest.mark.parametrize("case", corpus_cases(), ids=lambda case: case["file"])
def test_corpus_case_through_ask_structured(case: dict[str, Any]) -> None:
    raw = read_case(case)
    model = MODELS[case["model"]]
    llm = ScriptedLLM([raw, raw])

    outcome = ask_structured(llm, ASK, model, max_tokens=300)

    if case["outcome"] == "value":
        assert outcome.error is None
        assert outcome.value is not None
        assert outcome.value.model_dump() == case["value"]
        assert outcome.attempts == 1 and len(llm.requests) == 1
    else:
        assert outcome.value is None
        assert outcome.attempts == 2 and len(llm.requests) == 2
        assert case["error_contains"] in outcome.error
        if case["outcome"] == "not_json":
            assert outcome.error.startswith("not JSON: ")
        correction = llm.requests[1].messages[-1]
        assert correction.role == "user"
        assert correction.content.startswith(f"Your previous answer was not valid: {outcome.error}")
        assert llm.requests[1].messages[:len(ASK)] == ASK
    assert outcome.raw == raw


def test_garbage_then_valid_answer_gives_the_value_on_the_second_attempt() -> None:
    good = json.dumps({"facts": [{"key": "pet_name", "value": "Rex", "category": "personal"}]})
    llm = ScriptedLLM(["I think the user has a dog.", good])

    outcome = ask_structured(llm, ASK, FactList, max_tokens=200)

    assert outcome.ok and outcome.attempts == 2 and outcome.error is None
    assert outcome.value.facts[0].value == "Rex"
    retry = llm.requests[1].messages
    assert retry[len(ASK)] == Message("assistant", "I think the user has a dog.")
    assert "not JSON" in retry[-1].content


def test_garbage_twice_returns_none_with_the_error_and_logs_a_content_free_warning(
        caplog: pytest.LogCaptureFixture) -> None:
    huge_garbage = "blah " * 2000
    llm = ScriptedLLM([huge_garbage, '{"facts": [{"key": "x"}]}'])

    with caplog.at_level(logging.WARNING, logger="core.llm.structured"):
        outcome = ask_structured(llm, ASK, FactList, max_tokens=200)

    assert outcome.value is None and outcome.attempts == 2
    assert "facts.0.value: Field required" in outcome.error
    assert outcome.raw == '{"facts": [{"key": "x"}]}'
    warnings = [record.getMessage() for record in caplog.records]
    assert len(warnings) == 2
    assert warnings[0].endswith("not JSON; 10000 characters")
    assert warnings[1].endswith("2 schema problem(s): missing; 25 characters")
    assert not any("blah" in message or "facts" in message for message in warnings)
    assert len(llm.requests[1].messages[len(ASK)].content) < 2100  # clipped when shown back


class Scores(BaseModel):
    scores: dict[str, int]


def test_a_failed_answer_says_its_problem_for_the_log_without_its_words() -> None:
    """The error shown back to the model names where the answer went wrong, and a key of
    the answer can be the user's words; the problem a caller logs is by kind alone."""
    llm = ScriptedLLM(['{"scores": {"zebra-locker-7731": "many"}}'] * 2)

    outcome = ask_structured(llm, ASK, Scores, max_tokens=50)

    assert "scores.zebra-locker-7731" in (outcome.error or "")
    assert outcome.problem == "1 schema problem(s): int_parsing"
    failed = ask_structured(ScriptedLLM([LLMTimeoutError("The model did not answer.")]), ASK,
                            Scores, max_tokens=50)
    assert failed.problem == "the model failed (LLMTimeoutError)"


def test_retries_zero_means_one_attempt() -> None:
    llm = ScriptedLLM(["nope"])
    outcome = ask_structured(llm, ASK, FactList, max_tokens=50, retries=0)
    assert outcome.value is None and outcome.attempts == 1 and len(llm.requests) == 1


def test_provider_failure_becomes_the_outcome_and_is_not_retried() -> None:
    llm = ScriptedLLM([LLMTimeoutError("The model did not answer in time.", "Try again.")])

    outcome = ask_structured(llm, ASK, FactList, max_tokens=50, retries=3)

    assert outcome.value is None and outcome.attempts == 1 and len(llm.requests) == 1
    assert outcome.error == "The model did not answer in time. Try again."


def test_provider_failure_after_a_bad_answer_keeps_the_last_raw_text() -> None:
    llm = ScriptedLLM(["not json", failing("connection dropped")])
    outcome = ask_structured(llm, ASK, FactList, max_tokens=50)
    assert outcome.value is None and outcome.attempts == 2
    assert outcome.raw == "not json" and "connection dropped" in outcome.error


def test_cancellation_by_the_provider_is_reported_as_cancelled_without_retry() -> None:
    llm = ScriptedLLM([LLMCancelled("Stopped.", "")])
    outcome = ask_structured(llm, ASK, FactList, max_tokens=50)
    assert outcome.error == CANCELLED and outcome.attempts == 1 and len(llm.requests) == 1


def test_a_cancelled_token_stops_before_any_request() -> None:
    token = CancelToken()
    token.cancel()
    llm = ScriptedLLM([])
    outcome = ask_structured(llm, ASK, FactList, max_tokens=50, cancel=token)
    assert outcome == type(outcome)(None, "", CANCELLED, 0, problem=CANCELLED)
    assert llm.requests == []


def test_cancel_during_generation_discards_the_answer_and_does_not_retry() -> None:
    token = CancelToken()

    def answer(kind: str, messages: Any, extra: Any) -> str:
        token.cancel()
        return '{"facts": []}'

    llm = ScriptedLLM(answer)
    outcome = ask_structured(llm, ASK, FactList, max_tokens=50, cancel=token)
    assert outcome.value is None and outcome.error == CANCELLED and outcome.attempts == 1


def test_the_request_carries_the_inlined_schema_and_max_tokens() -> None:
    llm = ScriptedLLM(['{"facts": []}'])
    ask_structured(llm, ASK, FactList, max_tokens=321)
    request = llm.requests[0]
    assert request.max_tokens == 321
    assert request.schema == json_schema_for(FactList)
    assert request.messages == ASK


def test_bad_arguments_are_a_programming_error() -> None:
    with pytest.raises(ValueError):
        ask_structured(ScriptedLLM([]), ASK, FactList, max_tokens=0)
    with pytest.raises(ValueError):
        ask_structured(ScriptedLLM([]), ASK, FactList, max_tokens=10, retries=-1)


# --- schemas --------------------------------------------------------------------------

def test_json_schema_for_inlines_references_and_keeps_the_bounds() -> None:
    schema = json_schema_for(FactList)
    text = json.dumps(schema)
    assert "$ref" not in text and "$defs" not in text
    facts = schema["properties"]["facts"]
    assert facts["maxItems"] == 10
    item = facts["items"]
    assert item["properties"]["value"]["maxLength"] == 200
    assert item["properties"]["category"]["enum"] == [
        "location", "personal", "preference", "work", "health", "general"]
    assert item["required"] == ["key", "value", "category"]


def test_json_schema_for_keeps_annotations_next_to_a_reference() -> None:
    class Wrapper(BaseModel):
        best: Fact = Field(description="the most important fact")

    prop = json_schema_for(Wrapper)["properties"]["best"]
    assert prop["description"] == "the most important fact"
    assert prop["properties"]["key"]["maxLength"] == 60


def test_json_schema_for_refuses_a_recursive_model() -> None:
    class Node(BaseModel):
        children: list[Node] = Field(default_factory=list, max_length=3)

    with pytest.raises(ValueError, match="recursive"):
        json_schema_for(Node)


# --- repair on its own ------------------------------------------------------------------

def test_huge_output_is_refused_not_cut() -> None:
    items = [{"key": f"k{i}", "value": "v" * 40, "category": "general"} for i in range(4000)]
    huge = json.dumps({"facts": items})
    assert len(huge) > MAX_INPUT_CHARS
    with pytest.raises(RepairFailed, match="characters long"):
        repair_json(huge)
    outcome = ask_structured(ScriptedLLM([huge, huge]), ASK, FactList, max_tokens=50)
    assert outcome.value is None and "characters long" in outcome.error


def test_large_output_under_the_cap_is_read_and_then_fails_the_bounds() -> None:
    items = [{"key": f"k{i}", "value": "v", "category": "general"} for i in range(2500)]
    raw = "Here you go:\n" + json.dumps({"facts": items})
    assert len(repair_json(raw)["facts"]) == 2500
    outcome = ask_structured(ScriptedLLM([raw, raw]), ASK, FactList, max_tokens=50)
    assert outcome.value is None and "at most 10 items" in outcome.error


@pytest.mark.parametrize("depth", [MAX_NESTING + 1, 900, 5000])
def test_deep_nesting_fails_cleanly(depth: int) -> None:
    for raw in ("[" * depth, "[" * depth + "]" * depth, '{"a":' * depth + "1" + "}" * depth):
        with pytest.raises(RepairFailed):
            repair_json(raw)
        value, error = parse_structured(raw, FactList)
        assert value is None and error.startswith("not JSON")


@pytest.mark.parametrize("raw", [
    '{"facts": [1, ' + "9" * 5000,                  # cut off after an over-long number
    '{"facts": [{"a": ' + "9" * 5000 + '}, {"b": 1',  # cut off, an over-long number inside
])
def test_numbers_too_long_for_python_fail_cleanly(raw: str) -> None:
    """Python refuses to convert integers of more than 4,300 digits (ValueError); a model
    that writes one gave invalid output, not a reason to crash."""
    value, error = parse_structured(raw, FactList)
    assert value is None and error


def test_nesting_up_to_the_limit_is_read() -> None:
    assert repair_json("[" * MAX_NESTING + "]" * MAX_NESTING) is not None


def test_a_stringified_value_is_not_unwrapped_past_the_nesting_limit() -> None:
    deep = "[" * MAX_NESTING + "]" * MAX_NESTING
    assert repair_json(json.dumps({"a": {"b": deep}})) == {"a": {"b": deep}}


def test_random_damage_never_raises_anything_but_repair_failed() -> None:
    """A deterministic fuzz: valid output, randomly cut, spliced and sprinkled with JSON
    syntax, fences and odd quotes, must be repaired or refused, nothing else."""
    document = json.dumps({"facts": [
        {"key": "home_city", "value": 'Lisbon "x" [y] {z}', "category": "location"},
        {"key": "pet_name", "value": "Rex's", "category": "personal"}]}, indent=1)
    noise = [*'{}[]",:\'\\ \n`~aTrueNone0.-', "```json\n", "```", "\u201c", "&quot;", "\ufeff"]
    rng = random.Random(20260424)
    for _ in range(400):
        chars = list(document)
        for _ in range(rng.randint(1, 5)):
            position = rng.randrange(len(chars) + 1)
            roll = rng.random()
            if roll < 0.4 and chars:
                del chars[min(position, len(chars) - 1)]
            elif roll < 0.8:
                chars.insert(position, rng.choice(noise))
            else:
                chars = chars[:position]
        raw = "".join(chars)
        try:
            repair_json(raw, expect=rng.choice([None, "array", "object"]))
        except RepairFailed:
            pass  # refused with a reason: one of the two allowed outcomes
        value, error = parse_structured(raw, FactList)
        assert (value is None) != (error is None)


def test_many_brackets_in_prose_do_not_hide_the_answer_for_long() -> None:
    prose = "see [note] " * 40
    assert repair_json(prose + '{"a": 1}') == {"a": 1}


@pytest.mark.parametrize(("raw", "expected"), [
    ('[1, 2, 3', [1, 2]),                      # the last number may have lost digits
    ('[1, 2, 3,', [1, 2, 3]),
    ('["a", "b', ["a"]),
    ('{"a": ["x", "y"], "b": {"c": tr', {"a": ["x", "y"]}),
    ('{"outer": {"inner": [1, {"k": "v"}, {"k"', {"outer": {"inner": [1, {"k": "v"}]}}),
])
def test_truncation_keeps_only_complete_parts(raw: str, expected: Any) -> None:
    assert repair_json(raw) == expected


@pytest.mark.parametrize(("data", "expect", "expected"), [
    ([1], "array", [1]),
    ({"facts": [1, 2]}, "array", [1, 2]),
    ({"a": 1}, "array", [{"a": 1}]),
    ({"a": [1], "b": 2}, "array", [{"a": [1], "b": 2}]),
    ({"a": 1}, "object", {"a": 1}),
    ([{"a": 1}], "object", {"a": 1}),
])
def test_coerce_shape(data: Any, expect: Literal["object", "array"], expected: Any) -> None:
    assert coerce_shape(data, expect) == expected


@pytest.mark.parametrize(("data", "expect"), [
    ("text", "array"), (None, "array"), ([{"a": 1}, {"b": 2}], "object"), (3, "object"),
])
def test_coerce_shape_refuses_to_guess(data: Any, expect: Literal["object", "array"]) -> None:
    with pytest.raises(RepairFailed, match="expected a JSON"):
        coerce_shape(data, expect)


def test_repair_json_expect_applies_after_unwrapping() -> None:
    assert repair_json('"[{\\"a\\": 1}]"', expect="array") == [{"a": 1}]
    assert repair_json('{"key": "x"}', expect="array") == [{"key": "x"}]
    assert repair_json('Here: [{"key": "x"}]', expect="object") == {"key": "x"}


def test_unwrapping_leaves_strings_that_are_not_containers() -> None:
    data = repair_json('{"a": "42", "b": "\\"Ines\\"", "c": "[citation needed]", '
                       '"d": "{\\"e\\": \\"[1, 2]\\"}"}')
    assert data == {"a": "42", "b": '"Ines"', "c": "[citation needed]", "d": {"e": [1, 2]}}
    assert repair_json('{"d": "[1]"}', unwrap=False) == {"d": "[1]"}


def test_parse_structured_reports_without_raising() -> None:
    value, error = parse_structured("```json\n{\"topic\": \"x\", \"priority\": 9}\n```", Summary)
    assert value is None and error == "priority: Input should be less than or equal to 5"
