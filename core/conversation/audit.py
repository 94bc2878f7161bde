"""Redaction for what tool calls leave in the audit log and the interaction record.

The audit log says *that* the assistant acted and on what, not what the user's data was.
Redaction is by meaning, not by spelling:

* an argument whose **name** says it holds a secret (password, token, api_key, pin, ...)
  has its value replaced by ``***``. Note that ``key`` alone is *not* such a name: in
  remember_fact and forget_fact it is the fact's name (``home_city``), which the log keeps;
* a **fact value** is never copied, because forgetting a fact must leave no copy of it
  (the rule ``core.knowledge.facts`` follows): remember_fact's ``value`` is logged as its length,
  and so are a journal entry, a note's text and an article's pasted text and note
  (``PRIVATE_ARGUMENTS``);
* any **string that looks like a credential**, wherever it appears (a long hex or
  base64-like run, ``sk-``/``ghp_``/``xox?-``/``AKIA`` prefixes, a JWT), is replaced by
  ``***`` inside the text.

Tool results are not copied either: each tool writes a content-free summary (counts, ids,
keys, "refused") that is logged instead.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from itertools import pairwise
from typing import Any

from sqlalchemy.orm import Session

from core.storage.orm import AuditEntry

REDACTED = "***"
SUMMARY_CHARS = 200

SECRET_WORDS = frozenset({
    "password", "passwd", "passphrase", "passcode", "pincode", "secret", "secrets", "token",
    "apikey", "credential", "credentials", "auth", "authorization", "cookie", "pin", "otp",
    "cvv", "cvc", "iban", "ssn"})
SECRET_PAIRS = frozenset({
    ("api", "key"), ("access", "key"), ("private", "key"), ("secret", "key"), ("wifi", "key"),
    ("card", "number"), ("session", "id"), ("security", "code"), ("access", "code"),
    ("door", "code"), ("locker", "code"), ("alarm", "code"), ("safe", "code"),
    ("lock", "code"), ("unlock", "code"), ("pin", "code")})
"""Words (and word pairs) that make a name, of an argument or of a fact, a secret's name.
Matched on whole words, so ``pinned`` or ``author`` are not secrets."""

SECRET_VALUE = re.compile(
    r"\b(?:sk-[A-Za-z0-9_-]{16,}|ghp_[A-Za-z0-9]{20,}|xox[abprs]-[A-Za-z0-9-]{10,}"
    r"|AKIA[0-9A-Z]{16}"
    r"|eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"
    r"|[0-9a-fA-F]{32,}"
    r"|(?=[A-Za-z0-9+/_-]*\d)(?=[A-Za-z0-9+/_-]*[A-Z])(?=[A-Za-z0-9+/_-]*[a-z])"
    r"[A-Za-z0-9+/_-]{32,}={0,2})")
"""Strings shaped like credentials: known prefixes, JWTs, long hex, long mixed base64."""

PRIVATE_ARGUMENTS = {"remember_fact": frozenset({"value"}),
                     "add_journal_entry": frozenset({"content", "title"}),
                     "save_note": frozenset({"content"}),
                     "update_note": frozenset({"content"}),
                     "save_read_later": frozenset({"note", "text"})}
"""Arguments whose value is user data the log must not keep (logged as a length): a fact's
value, a private journal entry, a note's text, what the user pasted of an article."""


def is_secret_name(name: str) -> bool:
    """``api_key``, ``apiKey``, ``wifi password``, ``locker_code``: yes; ``key``: no."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    words = re.findall(r"[a-z0-9]+", spaced.lower())
    return (any(word in SECRET_WORDS for word in words)
            or any(pair in SECRET_PAIRS for pair in pairwise(words)))


def redact_text(text: str) -> str:
    """``text`` with credential-shaped substrings replaced by ``***``."""
    return SECRET_VALUE.sub(REDACTED, text)


def redact_value(value: Any) -> Any:
    """Credential-shaped strings redacted inside any JSON-like value."""
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, Mapping):
        return redact_arguments(value)
    if isinstance(value, (list, tuple)):
        return [redact_value(item) for item in value]
    return value


def redact_arguments(arguments: Mapping[str, Any], tool: str = "") -> dict[str, Any]:
    """A copy of tool-call ``arguments`` that is safe to store (see the module docstring)."""
    private = PRIVATE_ARGUMENTS.get(tool, frozenset())
    redacted: dict[str, Any] = {}
    for name, value in arguments.items():
        if is_secret_name(str(name)):
            redacted[name] = REDACTED
        elif name in private:
            redacted[name] = f"[{len(str(value))} characters]"
        else:
            redacted[name] = redact_value(value)
    return redacted


def record_tool_call(session: Session, tool: str, arguments: Mapping[str, Any],
                     summary: str) -> None:
    """Add the audit entry of one tool call to ``session``'s transaction."""
    session.add(AuditEntry(action=f"tool.{tool}", actor="assistant",
                           arguments=redact_arguments(arguments, tool),
                           result_summary=redact_text(summary)[:SUMMARY_CHARS]))
