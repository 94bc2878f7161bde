"""The ``HEARTH_<FIELD>`` environment variables: each overrides a setting for one run
(useful for tests and CI) and is never saved. They are read as pydantic-settings reads
them, and one that does not parse is named in the error."""

from __future__ import annotations

import os
import re
from typing import Any

from pydantic_settings import BaseSettings, EnvSettingsSource, SettingsError

from core.errors import InvalidInputError

_UNPARSED_FIELD = re.compile(r'field "(\w+)"')
"""Names the field in pydantic-settings' "error parsing value for field ..." message."""


def environment_overrides(settings: type[BaseSettings]) -> dict[str, Any]:
    """The ``HEARTH_<FIELD>`` variables of this process, by field of ``settings``, not yet
    validated (lists and mappings decoded from JSON)."""
    try:
        return EnvSettingsSource(settings)()
    except SettingsError as exc:
        field = _UNPARSED_FIELD.search(str(exc))
        variable = env_variable(field.group(1)) if field else "HEARTH_*"
        raise InvalidInputError(
            f"The environment variable {variable} is not valid JSON ({exc.__cause__}).",
            f"Write a list as [\"a\", \"b\"] and a mapping as {{\"key\": 1}}, or unset "
            f"{variable}.") from exc


def env_variable(field: str) -> str:
    """The environment variable that overrides ``field``, as this process spells it (the
    prefix is matched without regard to case, like pydantic-settings does)."""
    wanted = f"HEARTH_{field}".upper()
    return next((name for name in os.environ if name.upper() == wanted), wanted)
