"""Command-line text that is not UTF-8 is refused before any command runs.

On Linux an argument is bytes; Python hands bytes that are not UTF-8 to the program as
surrogate escapes, which typer passes on as they are. Left alone they break far from the
command line (``facts set`` turned ``caf\\xe9`` into the key ``caf``; ``search --namespace``
crashed in SQLite). Every ``str`` parameter of every command is checked here, in one place,
with :func:`core.user_input.readable_text`; paths are ``Path`` values and are not checked,
since a file name that is not UTF-8 is still a valid name.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import typer
from typer.models import OptionInfo
from typer.utils import get_params_from_function

from core.user_input import readable_text


def refuse_unreadable_text(app: typer.Typer) -> None:
    """Wrap the callback of every command of ``app`` and of its sub-apps (call it once,
    after the commands are registered and before the app runs)."""
    for command in app.registered_commands:
        if command.callback is not None:
            command.callback = _checked(command.callback)
    for group in app.registered_groups:
        if group.typer_instance is not None:
            refuse_unreadable_text(group.typer_instance)


def _checked(callback: Callable[..., Any]) -> Callable[..., Any]:
    """``callback`` that first checks its text arguments; typer still reads the original's
    signature through ``functools.wraps``."""
    labels = _labels(callback)

    @functools.wraps(callback)
    def run(*args: Any, **kwargs: Any) -> Any:
        for name, value in kwargs.items():
            for item in value if isinstance(value, (list, tuple)) else (value,):
                if isinstance(item, str):
                    readable_text(item, labels.get(name, name))
        return callback(*args, **kwargs)

    return run


def _labels(callback: Callable[..., Any]) -> dict[str, str]:
    """How the user writes each parameter: ``KEY`` for an argument, ``--type`` for an
    option (its first declared name, else typer's default ``--name-with-dashes``)."""
    labels = {}
    for name, param in get_params_from_function(callback).items():
        if isinstance(param.default, OptionInfo):
            declared = [d for d in param.default.param_decls or () if d.startswith("--")]
            labels[name] = declared[0] if declared else "--" + name.replace("_", "-")
        else:
            labels[name] = name.upper()
    return labels
