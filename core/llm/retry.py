"""Retry a call with exponential backoff, for failures that a second try can cure.

Kept tiny on purpose (no library): Hearth talks to one local server, so there is no herd to
spread out with jitter, and the caller decides which failures are worth another try. The
Ollama provider retries connection failures and server errors (5xx), never a refusal (4xx,
model missing) and never once a reply has started to stream, because repeating a request
then would duplicate the part the user has already seen.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import TypeVar

from core.log_privacy import described

T = TypeVar("T")

log = logging.getLogger(__name__)


def call_with_retries(call: Callable[[], T], *, retries: int,
                      retryable: Callable[[Exception], bool], base_delay: float = 0.5,
                      max_delay: float = 8.0, what: str = "request",
                      sleep: Callable[[float], None] = time.sleep) -> T:
    """Run ``call``; when it raises an exception ``retryable`` accepts, wait ``base_delay``,
    then twice that, and so on (at most ``max_delay``), up to ``retries`` more tries. The
    last failure (or any non-retryable one) propagates unchanged, so the caller maps it to
    a message in one place."""
    attempt = 0
    while True:
        try:
            return call()
        except Exception as exc:
            if attempt >= retries or not retryable(exc):
                raise
            delay = min(max_delay, base_delay * 2**attempt)
            attempt += 1
            log.warning("%s failed (%s); retry %d of %d in %.2fs", what, described(exc),
                        attempt, retries, delay)
            sleep(delay)
