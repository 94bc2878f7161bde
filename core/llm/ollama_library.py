"""The ``ollama`` package, imported without reading the proxy variables of the environment.

Importing ``ollama`` builds a module-level default client (``ollama._client``), an
``httpx.Client`` that reads ``ALL_PROXY``, ``HTTPS_PROXY`` and the like. A SOCKS proxy
there (``ALL_PROXY=socks5://127.0.0.1:1080``) made that import raise ``ImportError`` (httpx
needs an optional package for SOCKS), and an unknown scheme a ``ValueError``, so almost
every ``hearth`` command died with a traceback. Hearth never uses that default client: its
own (``core.llm.ollama``) talks to the configured host alone, with ``trust_env=False``, so
no proxy can carry a prompt elsewhere. The variables are therefore hidden from the
environment for the length of the import only, and put back as they were.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

PROXY_VARIABLES = frozenset({"all_proxy", "http_proxy", "https_proxy", "ws_proxy",
                             "wss_proxy", "no_proxy"})
"""httpx reads these (any case) when a client is built with ``trust_env``."""


@contextmanager
def _proxy_variables_hidden() -> Iterator[None]:
    hidden = {name: os.environ.pop(name) for name in list(os.environ)
              if name.lower() in PROXY_VARIABLES}
    try:
        yield
    finally:
        os.environ.update(hidden)


with _proxy_variables_hidden():
    import ollama

__all__ = ["ollama"]
