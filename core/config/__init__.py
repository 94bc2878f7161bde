"""Hearth's configuration, imported from here: the user's settings (``settings``: the model,
and reading and saving ``settings.json``), their ``HEARTH_*`` environment overrides
(``environment``), where the program's own files and models are (``locations``), and the
checks on the ``database_url`` setting (``database_url``)."""

from core.config.environment import env_variable, environment_overrides
from core.config.locations import (
    DEFAULT_EMBEDDED_LLM,
    DEFAULT_EMBEDDING_MODEL_DIR,
    FROZEN,
    MODELS_DIR,
    PROJECT_ROOT,
)
from core.config.settings import (
    PERSONA_CHARS,
    SECRET_FIELDS,
    SETTINGS_FILE_HINT,
    ModelJobs,
    Settings,
    load_settings,
    save_settings,
    shown_value,
    stored_settings,
)

__all__ = [
    "DEFAULT_EMBEDDED_LLM",
    "DEFAULT_EMBEDDING_MODEL_DIR",
    "FROZEN",
    "MODELS_DIR",
    "PERSONA_CHARS",
    "PROJECT_ROOT",
    "SECRET_FIELDS",
    "SETTINGS_FILE_HINT",
    "ModelJobs",
    "Settings",
    "env_variable",
    "environment_overrides",
    "load_settings",
    "save_settings",
    "shown_value",
    "stored_settings",
]
