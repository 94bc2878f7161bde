"""The user's settings: a pydantic model, so that a hand-edited ``settings.json`` with a
wrong value fails with a message naming the field, not somewhere later.

The settings in effect are the file under this run's ``HEARTH_*`` overrides
(``load_settings``; a bad value names the variable or the file). The file holds only what
the user set (``save_settings``): defaults and overrides are never written into it."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from core.config.database_url import masked, validated
from core.config.environment import env_variable, environment_overrides
from core.config.locations import DEFAULT_EMBEDDED_LLM, DEFAULT_EMBEDDING_MODEL_DIR
from core.errors import InvalidInputError
from core.home.paths import HearthPaths
from core.home.private_files import write_privately
from core.user_input import load_json_file

PERSONA_CHARS = 4000


ModelJobs = Literal["auto", "replies_only", "all"]
"""What a language model may do for Hearth: decided by its size, or by the user
(``core.llm.capability``)."""


class Settings(BaseSettings):
    """Everything a user can change. Defaults are the embedded, offline configuration."""

    model_config = SettingsConfigDict(env_prefix="HEARTH_", extra="ignore",
                                      hide_input_in_errors=True)
    """``hide_input_in_errors``: a refused value is never repeated (``database_url`` may
    hold a password); messages name the field and what it accepts."""

    embedding_model_dir: Path = Field(
        default=DEFAULT_EMBEDDING_MODEL_DIR,
        description="Folder with a bge-style ONNX model (model*.onnx + tokenizer.json).",
    )
    embedding_threads: int = Field(default=2, ge=1, le=64,
                                   description="CPU threads the embedder may use.")
    embedding_batch_size: int = Field(default=32, ge=1, le=512)
    busy_timeout_ms: int = Field(
        default=5000, ge=0,
        description="How long one attempt to take a lock waits inside SQLite.")
    write_wait_seconds: float = Field(
        default=120.0, ge=0,
        description="How long a write keeps waiting for another process's write (an "
                    "import, a dream) before it fails; it is never dropped sooner.")
    backups_to_keep: int = Field(default=7, ge=1)
    database_url: str | None = Field(
        default=None,
        description="Where Hearth keeps its memory: empty for the embedded SQLite database "
                    "in the data folder, or a database URL (sqlite:///file.db, "
                    "postgresql://user:password@host/dbname). Read at start: a change takes "
                    "effect the next time Hearth starts. Its password is never shown.")

    @field_validator("database_url")
    @classmethod
    def _known_database(cls, url: str | None) -> str | None:
        """An unknown kind of database is refused when the setting is read or saved, not
        later at open; the sentence never repeats the URL (it may hold a password)."""
        return validated(url)

    recall_min_similarity: float = Field(
        default=0.5, ge=-1.0, le=1.0,
        description="Vector hits below this cosine similarity are not evidence (bge-small "
                    "gives unrelated passages ~0.3-0.5 with the query instruction; 0.5 was "
                    "chosen on three labelled sets, docs/recall-tuning.md).")
    recall_vector_weight: float = Field(
        default=0.7, ge=0.0, le=1.0,
        description="Weight of the normalised cosine similarity in score fusion.")
    recall_text_weight: float = Field(
        default=0.3, ge=0.0, le=1.0,
        description="Weight of the normalised BM25 score in score fusion.")
    recall_min_relevance: float = Field(
        default=0.05, ge=0.0, le=1.0,
        description="Rows whose fused relevance (0-1, before recency and strength) is "
                    "below this are dropped.")
    recall_neighbour_share: float = Field(
        default=0.3, ge=0.0, le=1.0,
        description="Share of the best adjacent turn's relevance a turn gains (context).")
    recall_summary_share: float = Field(
        default=0.5, ge=0.0, le=1.0,
        description="Share of a matching archival summary's relevance its originals gain.")
    recall_speaker_boost: float = Field(
        default=0.1, ge=0.0, le=1.0,
        description="Added to the turns of a speaker the question names.")
    recall_date_boost: float = Field(
        default=0.1, ge=0.0, le=1.0,
        description="Added to turns on a date the question names, less further away.")
    recall_date_window_days: float = Field(
        default=14.0, gt=0.0, description="How far from a named date the boost reaches.")
    recall_time_word_boost: float = Field(
        default=0.03, ge=0.0, le=1.0,
        description="Added to turns with time words when the question asks when/how long.")
    recall_strength_weight: float = Field(
        default=0.3, ge=0.0, le=1.0,
        description="How much disuse can lower a memory's score: a memory unused for a "
                    "long time keeps 1 - this of it (never leaves recall).")
    recall_tier_weights: dict[str, float] = Field(
        default_factory=lambda: {"source": 1.0},
        description="Score factor per memory tier (others 1.0). Below 1 for 'source', "
                    "originals folded into an archival summary weigh less than what is "
                    "current; 1.0 by default, because that made recall depend on which "
                    "memories a dream happened to fold (docs/consolidation.md).")
    recall_diversity: float = Field(
        default=0.75, gt=0.0, le=1.0,
        description="How much a result counts for itself against its likeness to a "
                    "better one (maximal marginal relevance): below 1, the first results "
                    "are spread over different things found instead of near-copies of one; "
                    "1 turns it off.")
    recall_recency_days: int = Field(default=90, ge=1)
    recall_recency_boost: float = Field(default=0.05, ge=0.0, le=1.0)

    # --- what an agent reads over MCP (docs/mcp.md, "Reading") ----------------------------
    mcp_result_chars: int = Field(
        default=1_200, ge=100, le=100_000,
        description="Characters of one search_memory result: the part of the text that "
                    "matched, grown by whole sentences around it.")
    mcp_search_chars: int = Field(
        default=6_000, ge=500, le=1_000_000,
        description="Characters of all the results of one search_memory call together.")
    mcp_read_chars: int = Field(
        default=20_000, ge=1_000, le=2_000_000,
        description="Characters of one read_memory call; a longer text is read in parts "
                    "(offset).")

    # --- language model --------------------------------------------------------------
    llm_provider: Literal["auto", "ollama", "embedded"] = Field(
        default="auto",
        description="auto: Ollama when it answers, else the embedded model.")
    ollama_host: str | None = Field(
        default=None, description="None: $OLLAMA_HOST, else http://127.0.0.1:11434.")
    ollama_model: str = Field(default="llama3.2:3b")
    ollama_timeout_seconds: float = Field(default=120.0, gt=0,
                                          description="Longest wait for a reply to start.")
    llm_retries: int = Field(default=2, ge=0, le=10,
                             description="Retries (with backoff) after a failed request.")
    embedded_model_path: Path = Field(
        default=DEFAULT_EMBEDDED_LLM, description="A GGUF file for the in-process model.")
    embedded_context_tokens: int = Field(default=4096, ge=512)
    embedded_threads: int = Field(default=2, ge=1, le=64)
    model_jobs: ModelJobs = Field(
        default="auto",
        description="What the model may do: auto decides by its size (docs/llm.md, "
                    "\"What a model may do\"); replies_only or all as you choose.")

    # --- conversation ------------------------------------------------------------------
    history_token_budget: int = Field(default=6000, ge=0)
    semantic_history: bool = Field(
        default=False, description="3 recent turns verbatim + 3 relevant older ones.")
    context_token_budget: int = Field(
        default=1000, ge=0, description="Shared budget of retrieved memories and notes.")
    about_you_char_cap: int = Field(default=4800, ge=0)
    persona: str = Field(
        default="", max_length=PERSONA_CHARS,
        description="The user's own instructions for how the assistant answers (tone, "
                    "length, a role); added to the system prompt.")
    temperature: float | None = Field(
        default=None, ge=0.0, le=2.0,
        description="How freely replies are worded (0 = most predictable); None leaves "
                    "the model's own default.")
    compaction_threshold: float = Field(
        default=0.8, gt=0.0, le=1.0,
        description="Compact a conversation when it fills this share of the context window.")
    session_quiet_minutes: int = Field(default=30, ge=1)
    exclusions: list[str] = Field(
        default_factory=list, description="Words or topics that are never stored.")
    learning_paused: bool = False

    # --- consolidation -------------------------------------------------------------------
    event_max_attempts: int = Field(
        default=3, ge=1, description="A context event failing this often is shown, not retried.")
    dedupe_skip_similarity: float = Field(
        default=0.98, ge=0.0, le=1.0,
        description="A candidate at least this similar to a valid memory is skipped, no LLM.")
    dedupe_candidate_similarity: float = Field(
        default=0.68, ge=0.0, le=1.0,
        description="Memories at least this similar are shown to the LLM to decide "
                    "ADD / UPDATE / DELETE / NOOP.")
    dedupe_neighbours: int = Field(default=5, ge=1, le=50)
    decay_half_life_days: dict[str, float] = Field(
        default_factory=lambda: {"general": 30.0, "health": 90.0, "work": 45.0,
                                 "people": 180.0, "preference": 120.0, "errands": 7.0},
        description="Freshness half-life per category (exp(-age/tau)); others use general.")
    link_similarity_floor: float = Field(
        default=0.70, ge=0.0, le=1.0,
        description="kNN edges need this cosine. Calibrated on bge-small pairs: related "
                    "0.79-0.92, unrelated 0.32-0.50, distant-but-associable 0.52-0.58 "
                    "(those are REM's job).")
    link_max_edges: int = Field(default=5, ge=1, le=50)
    triage_min_words: int = Field(
        default=3, ge=1, le=50,
        description="A machine-written draft shorter than this (in words) is forgotten by "
                    "triage without an LLM call, like a greeting or a thank-you.")
    triage_promoted_importance: float = Field(
        default=0.8, ge=0.0, le=1.0,
        description="Importance a draft is raised to (at least) when triage promotes it.")
    merge_stale_freshness: float = Field(
        default=0.3, ge=0.0, le=1.0,
        description="Recall memories whose freshness (set by decay) is below this may be "
                    "merged into an archival summary; user-stated ones never are.")
    merge_similarity_floor: float = Field(
        default=0.80, ge=0.0, le=1.0,
        description="Cosine a stale memory needs to the cluster's seed to join it. Higher "
                    "than linking: merged originals weigh less in recall. Calibrated on bge-small "
                    "pairs: paraphrases 0.88-0.92, related-but-distinct 0.79.")
    merge_min_cluster: int = Field(
        default=3, ge=2, le=50, description="Fewer similar stale memories are left as they are.")
    merge_max_cluster: int = Field(
        default=8, ge=2, le=50,
        description="Most memories one summary replaces (what a small model can summarise).")
    merge_clusters_per_run: int = Field(
        default=50, ge=1, le=10_000,
        description="Clusters merged per run (one LLM call each); the next run goes on.")

    @model_validator(mode="after")
    def _cluster_bounds(self) -> Settings:
        """A cluster cannot need more members than a summary may replace."""
        if self.merge_min_cluster > self.merge_max_cluster:
            raise ValueError(f"merge_min_cluster ({self.merge_min_cluster}) is larger than "
                             f"merge_max_cluster ({self.merge_max_cluster})")
        return self
    dream_time: str = Field(default="02:00", pattern=r"^([01]\d|2[0-3]):[0-5]\d$",
                            description="Local time of the nightly dream cycle (HH:MM).")
    dream_without_backup: bool = Field(
        default=False,
        description="When the backup a dream takes first cannot be taken (on PostgreSQL: no "
                    "pg_dump as new as the server), go on without one, saying so in the "
                    "run's record, instead of stopping.")
    reflection_lookback_hours: int = Field(default=24, ge=1)
    follow_ups_per_day: int = Field(default=3, ge=0, le=20)
    daily_briefing: bool = Field(
        default=False, description="Each day at daily_briefing_time, one notification and "
                                   "one chat message with the day's tasks, reminders and "
                                   "follow-ups.")
    daily_briefing_time: str = Field(default="08:00", pattern=r"^([01]\d|2[0-3]):[0-5]\d$",
                                     description="Local time of the daily briefing (HH:MM).")

    # --- the desktop window --------------------------------------------------------------
    welcome_shown: bool = Field(default=False, description="The first-run welcome was seen.")
    keep_running_in_tray: bool = Field(
        default=True, description="Closing the window keeps the schedule running in the tray.")


SETTINGS_FILE_HINT = "Fix the file by hand or delete it to go back to the defaults."
FORMER_NAMES = {"intention_followups_per_day": "follow_ups_per_day",
                "profile_char_cap": "about_you_char_cap"}
"""Settings renamed to the window's words (Follow-ups, About you): a ``settings.json`` written
under the former name still means the same, and the next save writes the new one."""


def load_settings(paths: HearthPaths) -> Settings:
    """The settings in effect: ``settings.json`` (if any) under the ``HEARTH_*`` environment
    overrides. A bad value is an ``InvalidInputError`` naming the variable or the file."""
    stored = stored_settings(paths)
    overrides = environment_overrides(Settings)
    try:
        return Settings.model_validate({**stored, **overrides})
    except ValidationError as exc:
        raise _invalid(exc, overrides, paths.settings_file) from exc


def stored_settings(paths: HearthPaths) -> dict[str, Any]:
    """What ``settings.json`` holds, as written: the settings the user chose (empty when
    there is no file)."""
    if not paths.settings_file.exists():
        return {}
    stored = load_json_file(paths.settings_file, SETTINGS_FILE_HINT)
    if not isinstance(stored, dict):
        raise InvalidInputError(f"{paths.settings_file} does not hold settings (a JSON object).",
                                SETTINGS_FILE_HINT)
    renamed = {FORMER_NAMES[key]: value for key, value in stored.items() if key in FORMER_NAMES}
    return {**renamed, **{key: value for key, value in stored.items() if key not in FORMER_NAMES}}


def _invalid(exc: ValidationError, overrides: Mapping[str, Any],
             settings_file: Path) -> InvalidInputError:
    """One sentence for invalid settings: the environment variables at fault if any (one
    of those is the likelier typo, and the file is not to blame for it), else the file."""
    errors = exc.errors()
    from_env = [e for e in errors if e["loc"] and e["loc"][0] in overrides]
    if from_env:
        variables = dict.fromkeys(env_variable(str(e["loc"][0])) for e in from_env)
        problems = "; ".join(f"{_assignment(str(e['loc'][0]))} is not accepted: "
                             f"{_what_is_wrong(e, within_field=True)}" for e in from_env)
        return InvalidInputError(f"{problems}.", f"Correct or unset {', '.join(variables)}.")
    sources = ", ".join([str(settings_file), *map(env_variable, overrides)])
    problems = "; ".join(_what_is_wrong(e) for e in errors)
    return InvalidInputError(
        f"The settings in {sources} are invalid ({problems}).",
        "Correct those values, or delete the file to go back to the defaults.",
    )


SECRET_FIELDS = frozenset({"database_url"})
"""Settings that may hold a password: shown masked (``shown_value``), never as written."""


def shown_value(field: str, value: Any) -> Any:
    """``value`` of ``field`` as a message, a log or a view may show it."""
    return masked(value) if field in SECRET_FIELDS and value else value


def _assignment(field: str) -> str:
    """``HEARTH_X='value'``, as the environment holds it (a secret's masked)."""
    variable = env_variable(field)
    return f"{variable}={shown_value(field, os.environ.get(variable, ''))!r}"


def _what_is_wrong(error: Mapping[str, Any], *, within_field: bool = False) -> str:
    """Pydantic's message for one value, lower-cased to follow a colon, after the field
    it is about (only the part of a list or mapping, ``within_field``)."""
    where = ".".join(map(str, error["loc"][1 if within_field else 0:]))
    message = error["msg"][:1].lower() + error["msg"][1:]
    return f"{where}: {message}" if where else message


def save_settings(paths: HearthPaths, changes: Mapping[str, Any]) -> dict[str, Any]:
    """Store the settings the user has just set, beside those stored before, and return
    what the file now holds.

    Only those reach ``settings.json``: never the defaults (so a later version's better
    default still reaches this user, and a default model path is not frozen), never this
    run's ``HEARTH_*`` overrides (a temporary override stays temporary). The result is
    validated first (``ValidationError`` names the field) and written atomically, readable
    by the user alone."""
    unknown = set(changes) - Settings.model_fields.keys()
    if unknown:
        raise ValueError(f"not settings: {sorted(unknown)}")
    stored = stored_settings(paths)
    checked = Settings.model_validate({**stored, **changes})
    updated = {**stored, **checked.model_dump(mode="json", include=set(changes))}
    write_privately(paths.settings_file,
                    lambda handle: json.dump(updated, handle, indent=2, ensure_ascii=False))
    return updated
