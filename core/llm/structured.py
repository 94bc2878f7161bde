"""Structured output: ask a model for JSON matching a pydantic model, and get it or a reason.

The learning pipeline runs in the background on whatever model is there, including a 135M
embedded one that often answers with nonsense. So :func:`ask_structured` never raises into
its caller and never returns data that failed validation: the raw text is repaired
(``core.llm.repair``), fitted to the model's shape, validated by pydantic, and on failure the
model is asked once more with the validation error; what still fails comes back as a
:class:`StructuredOutcome` with ``value=None`` and the error, for the caller to log and
leave for a later retry.

Bounded schemas. Small models, and llama.cpp grammars, only produce usable output when the
schema bounds it: declare ``max_length`` on strings and lists (``Field(max_length=...)``,
which becomes ``maxLength`` / ``maxItems``) and ``Literal[...]`` enums for categories, and
pass a ``max_tokens`` large enough for the bounded output (roughly the sum of the bounds
over 3 characters per token, plus the JSON punctuation). Without bounds a small model can
loop until ``max_tokens`` and the output is cut, which repair can only partly recover.
Pipeline models should also set ``model_config = ConfigDict(coerce_numbers_to_str=True)``
when a string field may receive a bare number (``"value": 4471``).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, get_origin

from pydantic import BaseModel, ValidationError

from core.llm.protocol import CancelToken, LLMCancelled, LLMError, LLMProvider, Message
from core.llm.repair import RepairFailed, coerce_shape, repair_json, unwrap_stringified

log = logging.getLogger(__name__)

Model = TypeVar("Model", bound=BaseModel)

CORRECTION = ("Your previous answer was not valid: {error}. "
              "Reply with JSON matching the schema only.")
CANCELLED = "cancelled"

_RAW_IN_RETRY = 2000       # characters of a bad answer shown back to the model
_ERROR_CHARS = 300
_ERRORS_LISTED = 3


@dataclass(frozen=True)
class StructuredOutcome(Generic[Model]):
    """What one structured request produced.

    ``value`` is a validated instance or ``None``; ``error`` says why not (``"cancelled"``
    when the caller cancelled); ``raw`` is the text of the last answer (empty when the
    provider failed before answering); ``attempts`` counts requests actually sent;
    ``failure`` is the provider's own error when it failed (an ``LLMOutage`` means it could
    not answer at all, which a caller with queued work treats as "wait", not "bad input").
    ``problem`` is what went wrong whenever ``value`` is None, in words that hold none of
    the answer, for a log record: ``error`` may quote the answer (a field's path can be a
    key the model took from the user's words), and the answer quotes the user.
    """

    value: Model | None
    raw: str
    error: str | None
    attempts: int
    failure: LLMError | None = None
    problem: str | None = None

    @property
    def ok(self) -> bool:
        return self.value is not None


def ask_structured(provider: LLMProvider, messages: Sequence[Message], output: type[Model], *,
                   max_tokens: int, retries: int = 1,
                   cancel: CancelToken | None = None) -> StructuredOutcome[Model]:
    """Ask ``provider`` for an instance of ``output``; at most ``1 + retries`` requests.

    A retry is sent only for output that could not be repaired or validated: it repeats
    ``messages``, then the bad answer, then a short correction naming the error. Provider
    failures (``LLMError``: not running, timeout, model missing) are not retried here, since
    the provider already retries its transport with backoff; they come back as the outcome's
    error. Cancellation is the caller's own wish, so it is not an error worth logging: the
    outcome has ``error == "cancelled"`` and no further request is made.
    """
    if max_tokens < 1 or retries < 0:
        raise ValueError(f"max_tokens must be >= 1 and retries >= 0 "
                         f"(got {max_tokens}, {retries})")
    schema = json_schema_for(output)
    conversation = list(messages)
    error: str | None
    raw, error, attempts = "", "no request was made", 0
    kind: str | None = error
    for _ in range(1 + retries):
        if cancel is not None and cancel.cancelled:
            return StructuredOutcome(None, raw, CANCELLED, attempts, problem=CANCELLED)
        attempts += 1
        try:
            raw = provider.structured(conversation, schema, max_tokens=max_tokens, cancel=cancel)
        except LLMCancelled:
            return StructuredOutcome(None, raw, CANCELLED, attempts, problem=CANCELLED)
        except LLMError as exc:
            log.warning("Structured request to %s (%s) failed: %s",
                        provider.name, provider.model, exc)
            return StructuredOutcome(None, raw, str(exc), attempts, failure=exc,
                                     problem=f"the model failed ({type(exc).__name__})")
        if cancel is not None and cancel.cancelled:
            return StructuredOutcome(None, raw, CANCELLED, attempts, problem=CANCELLED)
        value, error, kind = _parse(raw, output)
        if value is not None:
            return StructuredOutcome(value, raw, None, attempts)
        log.warning("Structured output from %s (%s) for %s was not valid (attempt %d of %d): "
                    "%s; %d characters", provider.name, provider.model, output.__name__,
                    attempts, 1 + retries, kind, len(raw))
        conversation = [*messages, Message("assistant", _clip(raw, _RAW_IN_RETRY)),
                        Message("user", CORRECTION.format(error=error))]
    return StructuredOutcome(None, raw, error, attempts, problem=kind)


def parse_structured(raw: str, output: type[Model]) -> tuple[Model | None, str | None]:
    """Repair, fit and validate one answer: ``(instance, None)`` or ``(None, error)``.

    Stringified JSON inside values is unwrapped first; if that reading fails validation the
    literal reading is tried too, so a string field whose value merely looks like JSON
    (``"[1, 2]"``) still validates.
    """
    value, error, _kind = _parse(raw, output)
    return value, error


def _parse(raw: str, output: type[Model]) -> tuple[Model | None, str | None, str | None]:
    """``parse_structured``, plus what kind of failure it was in words that hold none of the
    answer. The error shown back to the model may quote it (a field's path can be a key the
    model took from the user's words, a value may be echoed), and the model's answer quotes
    the user's facts; the log file outlives an encryption of the data folder, so a log
    record gets the kind alone (``_failure_kind``)."""
    try:
        literal = repair_json(raw, unwrap=False)
    except RepairFailed as exc:
        return None, f"not JSON: {exc.reason}", "not JSON"
    readings = [unwrap_stringified(literal)]
    if readings[0] != literal:
        readings.append(literal)
    errors: list[ValidationError] = []
    for reading in readings:
        try:
            return output.model_validate(_fit_shape(reading, output)), None, None
        except ValidationError as exc:
            errors.append(exc)
    return None, summarise_validation_error(errors[0]), _failure_kind(errors[0])


def _failure_kind(error: ValidationError) -> str:
    """The schema problems by pydantic's type codes only (``missing``, ``string_type``...):
    never a path or a value, which can be the user's words."""
    codes = dict.fromkeys(problem["type"] for problem in error.errors(include_url=False))
    return f"{error.error_count()} schema problem(s): {', '.join(codes)}"


def json_schema_for(output: type[BaseModel]) -> dict[str, Any]:
    """``output``'s JSON schema with every local ``$ref`` inlined and ``$defs`` removed.

    Ollama resolves ``$defs``, but llama.cpp's grammar conversion and other providers
    support only a subset of JSON Schema; an inlined schema means the same thing to all of
    them. A recursive model cannot be inlined and raises ``ValueError`` (a programming
    error: structured output for small models must be flat and bounded anyway).
    """
    schema = output.model_json_schema()
    definitions = schema.pop("$defs", {})
    inlined: dict[str, Any] = _inline(schema, definitions, ())
    return inlined


def summarise_validation_error(error: ValidationError) -> str:
    """A short, model-readable account: the first few problems with where they are."""
    problems = error.errors(include_url=False)
    parts = [f"{'.'.join(map(str, problem['loc'])) or 'the answer'}: {problem['msg']}"
             for problem in problems[:_ERRORS_LISTED]]
    if len(problems) > _ERRORS_LISTED:
        parts.append(f"and {len(problems) - _ERRORS_LISTED} more problem(s)")
    return _clip("; ".join(parts), _ERROR_CHARS)


def _fit_shape(data: Any, output: type[BaseModel]) -> Any:
    """Fit the shapes small models get wrong to ``output``.

    For a model whose only field is a list (``{"facts": [...]}``): a bare list, a single
    item, or the list under another key is put under that field. For any other model, a
    list holding exactly one object becomes that object.
    """
    field = _sole_list_field(output)
    if field is None:
        if isinstance(data, list) and len(data) == 1 and isinstance(data[0], dict):
            return data[0]
        return data
    if isinstance(data, dict) and field in data:
        return data
    try:
        return {field: coerce_shape(data, "array")}
    except RepairFailed:
        return data  # neither list nor object: validation will say what is wrong


def _sole_list_field(output: type[BaseModel]) -> str | None:
    fields = output.model_fields
    if len(fields) != 1:
        return None
    ((name, info),) = fields.items()
    annotation = info.annotation
    return name if (get_origin(annotation) or annotation) in (list, tuple) else None


def _inline(node: Any, definitions: dict[str, Any], stack: tuple[str, ...]) -> Any:
    if isinstance(node, list):
        return [_inline(item, definitions, stack) for item in node]
    if not isinstance(node, dict):
        return node
    reference = node.get("$ref")
    if isinstance(reference, str):
        name = reference.removeprefix("#/$defs/")
        if name == reference or name not in definitions:
            raise ValueError(f"cannot inline the schema reference {reference!r}")
        if name in stack:
            raise ValueError(f"the model {name} is recursive; its schema cannot be inlined")
        target = _inline(definitions[name], definitions, (*stack, name))
        siblings = {key: _inline(value, definitions, stack)
                    for key, value in node.items() if key != "$ref"}
        return {**target, **siblings}
    return {key: _inline(value, definitions, stack) for key, value in node.items()}


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else f"{text[:limit]}… [{len(text) - limit:,} more]"
