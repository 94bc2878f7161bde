"""The ``hearth`` command: the memory engine from a terminal, for headless use and scripts.

Every command that lists or reports takes ``--json``. Errors go to stderr as a sentence a
person can act on, with a non-zero exit, never a traceback (unexpected failures are logged
to ``<home>/logs/hearth.log`` and summarised). Everything a command writes is readable by
its user alone, and every command first makes the data folder private
(``core.operations.folder``).
"""

from __future__ import annotations

import logging
import sys
import traceback
from pathlib import Path
from dataclasses import asdict
from typing import TYPE_CHECKING, Annotated, Any

import typer

from cli import output
from cli.arguments import refuse_unreadable_text
from cli import (
    chat_cmd,
    consolidation_cmd,
    context,
    daemon_cmd,
    deleted_cmd,
    dream_cmd,
    encrypt_cmd,
    forget_cmd,
    logs,
    migrate_cmd,
    reflection_cmd,
)
from cli.context import opened, state
from cli.journal_cmd import journal_app
from cli.read_later_cmd import read_later_app
from cli.imports_cmd import imports_app
from cli.mcp_cmd import mcp_app
from cli.memories_cmd import memories_app
from cli.models_cmd import models_app
from cli.notes_cmd import notes_app
from cli.pending_cmd import pending_app
from cli.prompts_cmd import alerts_app, prompts_app
from cli.reminders_cmd import reminders_app
from cli.tasks_cmd import tasks_app
from cli.progress import progress_bar
from core.errors import HearthError, InvalidInputError
from core.operations.folder import restrict_new_files, secure_home

if TYPE_CHECKING:  # imported where used, to keep the command's start quick
    from core.app import Hearth
    from core.operations.facts import Fact
    from core.operations.search import RecallResult

app = typer.Typer(
    name="hearth",
    help="Hearth: a private, offline assistant that remembers you. Memory engine commands.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
facts_app = typer.Typer(help="Permanent facts about you: list, set, delete, forget.",
                        no_args_is_help=True)
import_app = typer.Typer(help="Bring conversations or a full export into Hearth.",
                         no_args_is_help=True)
app.add_typer(facts_app, name="facts")
app.add_typer(import_app, name="import")
app.add_typer(memories_app, name="memories")
app.add_typer(models_app, name="models")
app.add_typer(tasks_app, name="tasks")
app.add_typer(reminders_app, name="reminders")
app.add_typer(pending_app, name="pending")
app.add_typer(notes_app, name="notes")
app.add_typer(journal_app, name="journal")
app.add_typer(read_later_app, name="read-later")
app.add_typer(prompts_app, name="prompts")
app.add_typer(alerts_app, name="alerts")
app.add_typer(mcp_app, name="mcp")
app.add_typer(imports_app, name="imports")
app.add_typer(deleted_cmd.deleted_app, name="deleted")
app.command()(chat_cmd.chat)
app.command()(chat_cmd.ask)
app.command()(consolidation_cmd.events)
app.command()(consolidation_cmd.runs)
app.command()(daemon_cmd.daemon)
app.command()(dream_cmd.dream)
app.command()(forget_cmd.compact)
app.command()(encrypt_cmd.encrypt)
app.command()(encrypt_cmd.decrypt)
app.command()(migrate_cmd.migrate)
app.command()(reflection_cmd.reflect)
app.command("follow-ups")(reflection_cmd.follow_ups)
app.command()(reflection_cmd.habits)
app.command("about-you")(reflection_cmd.about_you)
# The names these commands had before they took the window's words: kept, unlisted, so a
# script written for them still runs.
app.add_typer(read_later_app, name="later", hidden=True)
app.command("intentions", hidden=True)(reflection_cmd.follow_ups)
app.command("learnings", hidden=True)(reflection_cmd.habits)
app.command("profile", hidden=True)(reflection_cmd.about_you)

JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")]


@app.callback()
def main(ctx: typer.Context, home: Annotated[Path | None, typer.Option(
        "--home", help="Data folder (default: $HEARTH_HOME or the platform's user data folder).",
        )] = None) -> None:
    state.home = home
    secure_home(context.paths().home)
    logs.log_core_to(context.paths().home)
    ctx.call_on_close(logs.forget_log_file)  # the process keeps no handler of this run's


# --- status, doctor, stats --------------------------------------------------------------


@app.command()
def status(as_json: JsonOption = False) -> None:
    """Where your data lives, what is in it, and whether the model is in place."""
    from core.operations import data

    with opened(only_reads=True) as hearth:
        report: dict[str, Any] = {**asdict(data.status(hearth)), "llm": _llm_status(hearth)}
    if as_json:
        output.print_json(report)
        return
    counts = report["counts"]
    output.stdout.print(f"[bold]Hearth[/] data folder: {report['home']}")
    output.stdout.print(f"database: {report['database_bytes'] / 1e6:.1f} MB, "
                        f"schema {report['schema_revision']}")
    output.stdout.print(f"embedding model: {report['embedding_model_dir']} "
                        f"({'present' if report['embedding_model_present'] else 'MISSING'})")
    output.stdout.print(
        f"memories: {counts['memories']} ({counts['memories_valid']} valid) · "
        f"facts: {counts['facts']} · notes: {counts['notes']} · "
        f"interactions: {counts['interactions']}")
    llm = report["llm"]
    output.stdout.print(f"language model: {llm['active']} ({llm['detail']})", highlight=False)
    output.stdout.print(f"what it may do: {llm['summary']}", highlight=False)
    if llm["how_to_get_more"]:
        output.stdout.print(f"  {llm['how_to_get_more']}", highlight=False)
    if llm["waiting"]:
        output.stdout.print(f"waiting for a capable model: {', '.join(llm['waiting'])}",
                            highlight=False)
    output.stdout.print("Run `hearth --help` for the commands; `hearth chat` to talk.")


def _llm_status(hearth: Hearth) -> dict[str, Any]:
    """Which provider and model would answer now, and why (the same choice `chat` makes),
    what it may do and what waits for a capable model."""
    from core.operations.capability import model_capability
    from core.operations.models import active_model, configured_provider

    provider = configured_provider(hearth.settings)
    try:
        capability = model_capability(hearth, provider)
        return {"provider": provider.name, "model": provider.model,
                "active": active_model(provider), "detail": provider.status().detail,
                "size": capability.size, "summary": capability.summary,
                "can": list(capability.can), "cannot": list(capability.cannot),
                "how_to_get_more": capability.how_to_get_more,
                "waiting": list(capability.waiting.lines())}
    finally:
        provider.close()


@app.command()
def doctor(as_json: JsonOption = False) -> None:
    """Check the model, database, sqlite-vec, FTS5 (or, on PostgreSQL, the server, pgvector
    and a pg_dump as new as it) and Ollama; say how to fix each problem."""
    from core.operations.doctor import run_checks

    checks = run_checks(context.paths(), context.settings())
    if as_json:
        output.print_json([c.__dict__ for c in checks])
    else:
        for check in checks:
            mark = "[green]ok[/]  " if check.ok else "[red]FAIL[/]"
            output.stdout.print(f"{mark} {check.name}: {check.detail}", highlight=False)
            if check.fix:
                output.stdout.print(f"      → {check.fix}", highlight=False, markup=False)
    required_failed = [c for c in checks if not c.ok and c.name != "ollama"]
    if required_failed:
        raise typer.Exit(1)


@app.command("settings")
def show_settings(as_json: JsonOption = False) -> None:
    """The settings in effect (settings.json under HEARTH_* overrides); passwords masked."""
    from core.config import shown_value

    settings = context.settings()
    shown = {name: shown_value(name, value)
             for name, value in settings.model_dump(mode="json").items()}
    if as_json:
        output.print_json(shown)
        return
    output.print_table("Settings", ["setting", "value"],
                       [(name, "" if value is None else str(value))
                        for name, value in shown.items()])


@app.command()
def stats(as_json: JsonOption = False) -> None:
    """Counts per memory tier and the database size."""
    from core.operations import data

    with opened(only_reads=True) as hearth:
        found = asdict(data.status(hearth))
    report = {key: found[key] for key in ("home", "database_bytes", "counts", "memories_by_tier")}
    if as_json:
        output.print_json(report)
        return
    rows = [(name, count) for name, count in report["counts"].items()]
    rows += [(f"memories in tier {tier}", n) for tier, n in report["memories_by_tier"].items()]
    rows.append(("database size (MB)", f"{report['database_bytes'] / 1e6:.2f}"))
    output.print_table("Hearth", ["what", "count"], rows)


# --- facts -------------------------------------------------------------------------------


def _fact_dict(fact: Fact) -> dict[str, Any]:
    return {"key": fact.key, "value": fact.value, "category": fact.category,
            "source": fact.source, "confidence": fact.confidence,
            "updated_at": fact.updated_at}


@facts_app.command("list")
def facts_list(query: Annotated[str, typer.Argument(help="Search keys and values.")] = "",
               category: Annotated[str | None, typer.Option(help="Only this category.")] = None,
               as_json: JsonOption = False) -> None:
    """List facts, or search them."""
    from core.operations.facts import list_facts

    with opened(only_reads=True) as hearth:
        facts = list_facts(hearth, query, category)
    if as_json:
        output.print_json([_fact_dict(f) for f in facts])
        return
    output.print_table("Facts", ["key", "value", "category", "source", "updated"],
                       [(f.key, f.value, f.category, f.source,
                         f.updated_at.strftime("%Y-%m-%d %H:%M")) for f in facts])


@facts_app.command("set")
def facts_set(key: str, value: str,
              category: Annotated[str, typer.Option(help="location, personal, preference, "
                                                         "work, health or general.")] = "general",
              as_json: JsonOption = False) -> None:
    """Remember a fact (replaces the value of an existing key, keeping the old one in history)."""
    from core.operations.facts import remember

    with opened() as hearth:
        change = remember(hearth, key, value, category).value
    if as_json:
        output.print_json(change)
    else:
        output.stdout.print(f"{change.key}: {change.action}")


facts_app.command("forget")(forget_cmd.forget)
facts_app.command("delete")(deleted_cmd.delete_fact)


@facts_app.command("history")
def facts_history(key: str, as_json: JsonOption = False) -> None:
    """Previous values of a fact, oldest first."""
    from core.operations.facts import fact_history

    with opened(only_reads=True) as hearth:
        entries = fact_history(hearth, key)
    rows = [{"value": h.value, "category": h.category, "source": h.source,
             "valid_from": h.valid_from, "replaced_at": h.replaced_at} for h in entries]
    if as_json:
        output.print_json(rows)
    else:
        output.print_table(f"History of {key}", ["value", "source", "from", "replaced"],
                           [(r["value"], r["source"], r["valid_from"], r["replaced_at"])
                            for r in rows])


# --- search ------------------------------------------------------------------------------


def _result_dict(result: RecallResult) -> dict[str, Any]:
    return {"kind": result.kind.value, "id": result.id, "score": round(result.score, 6),
            "text": result.text, "excerpt": result.excerpt, "signals": result.signals,
            "provenance": result.provenance}


@app.command()
def search(
    query: Annotated[str | None, typer.Argument(help="What to look for.")] = None,
    k: Annotated[int, typer.Option("--k", min=1, max=200,
                                   help="At most this many results.")] = 10,
    batch: Annotated[Path | None, typer.Option(
        help="A file with one query per line (or a JSON object {\"query\", \"as_of\"} per "
             "line); prints one JSON line of results per query.")] = None,
    as_of: Annotated[str | None, typer.Option(
        "--as-of", help="Ask as of this moment: YYYY-MM-DD (the end of that day in your time "
                        "zone) or YYYY-MM-DDTHH:MM (an offset may follow). Nothing newer is "
                        "found; recency and dates count from it.")] = None,
    memory_type: Annotated[list[str] | None, typer.Option(
        "--type", help="semantic, episodic or procedural (repeatable; memories only).")] = None,
    tier: Annotated[list[str] | None, typer.Option(
        help="Tier filter (repeatable; memories only).")] = None,
    namespace: Annotated[list[str] | None, typer.Option(
        help="Namespace prefix, e.g. user/health (repeatable; memories only).")] = None,
    include_invalid: Annotated[bool, typer.Option(help="Also show invalidated memories.")] = False,
    as_json: JsonOption = False,
) -> None:
    """Hybrid recall (full text + vectors) over your memories and notes: the same search
    an agent's search_memory runs."""
    from cli.search_batch import batch_queries
    from core.operations.search import SearchFilters, moment_of
    from core.operations.search import search as run_search

    if (query is None) == (batch is None):
        raise InvalidInputError("Give either a QUERY or --batch FILE.",
                                "Example: hearth search \"where do I live\"")
    moment = None if as_of is None else moment_of(as_of)
    asked = None if batch is None else batch_queries(batch, moment)
    filters = SearchFilters(memory_types=frozenset(memory_type or ()),
                            tiers=frozenset(tier or ()),
                            namespaces=tuple(namespace or ()),
                            valid_only=None if include_invalid else True)
    with opened(only_reads=True) as hearth:
        if asked is not None:
            for line in asked:
                results = run_search(hearth, line.text, k, filters, as_of=line.as_of)
                when = {} if line.as_of is None else {"as_of": line.as_of.isoformat()}
                output.print_json({"query": line.text, **when,
                                   "results": [_result_dict(r) for r in results]})
            return
        results = run_search(hearth, query or "", k, filters, as_of=moment)
    if as_json:
        output.print_json([_result_dict(r) for r in results])
        return
    title = f"Results for {query!r}" + ("" if moment is None else
                                        f" as of {moment.astimezone():%Y-%m-%d %H:%M}")
    output.print_table(title, ["score", "found", "via", "text", "from"],
                       [(f"{r.score:.3f}", f"{r.kind.value} {r.id}",
                         "+".join(sorted({"text", "vector"} & set(r.signals))),
                         (r.excerpt or r.text)[:160],
                         r.provenance.get("turn_id") or r.provenance.get("title")
                         or r.provenance.get("source", ""))
                        for r in results])


# --- import / export / reembed / backup -------------------------------------------------


IncludeRemovedOption = Annotated[bool, typer.Option(
    "--include-removed", help="Also import again what you deleted from it before (it is left "
                              "out otherwise).")]


@import_app.command("transcript")
def import_transcript(file: Path, include_removed: IncludeRemovedOption = False,
                      as_json: JsonOption = False) -> None:
    """Import a dated multi-session conversation (see docs/transcript-format.md)."""
    _run_import("transcript", file, "embedding turns", include_removed, as_json)


@import_app.command("chatgpt")
def import_chatgpt(file: Path, include_removed: IncludeRemovedOption = False,
                   as_json: JsonOption = False) -> None:
    """Import ChatGPT's data export: the zip, or its conversations.json (docs/imports.md)."""
    _run_import("chatgpt", file, "importing ChatGPT turns", include_removed, as_json)


@import_app.command("claude")
def import_claude(file: Path, include_removed: IncludeRemovedOption = False,
                  as_json: JsonOption = False) -> None:
    """Import Claude's data export: its conversations.json, or the zip (docs/imports.md)."""
    _run_import("claude", file, "importing Claude turns", include_removed, as_json)


@import_app.command("notes")
def import_notes(folder: Path, include_removed: IncludeRemovedOption = False,
                 as_json: JsonOption = False) -> None:
    """Import a folder of Markdown notes (an Obsidian vault); again to pick up edits."""
    _run_import("notes", folder, "embedding notes", include_removed, as_json)


AGAIN_IN_A_TERMINAL = "the same command with --include-removed brings them back"
"""How a terminal brings back what an import left out (the window has a button)."""


def _run_import(source: str, path: Path, label: str, include_removed: bool,
                as_json: bool) -> None:
    """Run one import in the opened data folder under a progress bar named ``label``
    (none with ``--json``), then print the importer's report as JSON, or the sentence the
    window shows after an import (``core.operations.imports.describe``, with this
    front end's way to bring back what was left out) and each note it could not import,
    as a warning (the window names the first few)."""
    from core.operations.imports import ImportSource, describe, run_import, summary_of

    kind = ImportSource(source)
    with opened() as hearth, progress_bar(label, enabled=not as_json) as progress:
        report = run_import(hearth, kind, path, progress, include_removed=include_removed)
    if as_json:
        output.print_json(report)
        return
    summary = summary_of(kind, report)
    output.stdout.print(describe(summary, again=AGAIN_IN_A_TERMINAL, named=0),
                        highlight=False, markup=False)
    for sentence in summary.skipped:
        output.print_warning(sentence)


@import_app.command("export")
def import_export(file: Path, as_json: JsonOption = False) -> None:
    """Restore a `hearth export` file into an empty data folder."""
    from core.operations.data import import_file

    with opened() as hearth, progress_bar("re-embedding", enabled=not as_json) as progress:
        counts = import_file(hearth, file, progress).counts
    if as_json:
        output.print_json(counts)
    else:
        output.print_table("Imported", ["table", "rows"], sorted(counts.items()))


@app.command()
def export(file: Path, plain: Annotated[bool, typer.Option(
        "--plain", help="Write the export of an encrypted folder anyway (it is plain JSON).",
        )] = False) -> None:
    """Write everything Hearth knows to one JSON file."""
    from core.operations import data

    with opened(only_reads=True) as hearth:
        exported = data.export(hearth, file, plain=plain)
    output.stdout.print(f"exported to {file}")
    if exported.warning:
        output.print_warning(exported.warning)


@app.command()
def reembed(as_json: JsonOption = False) -> None:
    """Embed rows that lack an embedding or carry another model's. Safe to interrupt."""
    from core.operations.models import embed_missing

    with opened() as hearth, progress_bar("embedding", enabled=not as_json) as progress:
        counts = embed_missing(hearth, progress)
    if as_json:
        output.print_json(counts)
    else:
        output.print_table("Re-embedded", ["kind", "rows"], list(counts.items()))


@app.command()
def backup(list_only: Annotated[bool, typer.Option("--list", help="List backups.")] = False,
           as_json: JsonOption = False) -> None:
    """Take an online backup now (older ones beyond the configured number are removed)."""
    from core.operations import data

    if list_only:
        found = data.backups(context.paths())
        if as_json:
            output.print_json([b.__dict__ for b in found])
        else:
            output.print_table("Backups", ["file", "size (MB)"],
                               [(b.path, f"{b.size_bytes / 1e6:.2f}") for b in found])
        return
    with opened() as hearth:
        info = data.backup(hearth)
    if as_json:
        output.print_json(info.__dict__)
    else:
        output.stdout.print(f"backup written: {info.path}")


@app.command()
def restore(file: Path) -> None:
    """Replace the database with a backup (Hearth must not be running)."""
    from core.operations.data import restore as restore_file
    from core.operations.folder_lock import held_alone

    paths = context.paths()
    context.unlock_folder()
    with held_alone(paths.home):
        aside = restore_file(context.settings(), paths, file)
    kept = f"; the previous database was kept as {aside}" if aside else ""
    output.stdout.print(f"restored {file}{kept}", highlight=False, markup=False)


# --- entry point -------------------------------------------------------------------------

refuse_unreadable_text(app)  # after every command above is registered


def _log_unexpected(exc: BaseException) -> Path | None:
    try:
        log_file = context.paths().home / "logs" / logs.LOG_NAME
        log_file.parent.mkdir(parents=True, exist_ok=True)
        with log_file.open("a", encoding="utf-8") as handle:
            handle.write("".join(traceback.format_exception(exc)))
        return log_file
    except OSError:
        logging.getLogger(__name__).exception("could not write the error log")
        return None


def run(argv: list[str] | None = None) -> int:
    """Console-script entry point: maps every failure to a message and an exit code.
    ``HEARTH_PASSPHRASE`` is taken out of the environment for the run (no program the
    command starts sees it). The ``--home`` of this run, and any encrypted folder's key it
    was given, are forgotten afterwards, so a later run in the same process (a test) never
    inherits them."""
    from core.operations.folder_lock import forget_keys, passphrase_taken_from_environment

    restrict_new_files()
    try:
        with passphrase_taken_from_environment():  # no child process inherits it
            return _exit_code(argv)
    finally:
        state.home = None
        forget_keys()


def _exit_code(argv: list[str] | None) -> int:
    try:
        with output.notices_shown(*output.OWN_LOGGERS):  # "waiting for another's write…"
            result = app(args=argv, prog_name="hearth", standalone_mode=False)
    except typer.Exit as stop:
        return stop.exit_code
    except (typer.Abort, KeyboardInterrupt):
        output.print_error("Interrupted.")
        return 130
    except typer.TyperException as exc:  # usage errors: typer's own click exceptions
        exc.show()  # type: ignore[attr-defined]  # click's exceptions have it; typer's type does not say
        return exc.exit_code
    except HearthError as exc:
        output.print_error(exc.message, exc.hint)
        return exc.exit_code
    except Exception as exc:
        log_file = _log_unexpected(exc)
        where = f" Details were written to {log_file}." if log_file else ""
        output.print_error(f"Unexpected error: {type(exc).__name__}: {exc}.{where}",
                           "Please report it with that file.")
        return 70
    return result if isinstance(result, int) else 0


if __name__ == "__main__":
    sys.exit(run())
