"""``hearth migrate``: copy this home's database into an empty database of the other
backend (SQLite ↔ PostgreSQL), with a progress bar, and say (or do) how to switch to it.

The copy itself is ``core.operations.migrate.copy_database``; this drives it. Afterwards a
PostgreSQL target is checked as ``hearth doctor`` checks it, and what fails is a warning:
that includes a ``pg_dump`` as new as the server, without which no backup, and so no
dream, can run (it names the package to install). It holds the data folder's exclusive
lock, so no window, daemon or other command changes the home while it is copied (they are
refused at open, not made to wait). Ctrl-C stops it between two pages: the target keeps a
marker that the next run names, and ``--replace`` starts over.

``--switch`` saves the target as ``database_url``, its password kept out of
``settings.json`` (``core.config.database_password``: the system keyring, or else the data
folder's ``database.pgpass``), and says where it went.
"""

from __future__ import annotations

from typing import Annotated

import typer

from cli import context, output
from cli.progress import progress_bar


def migrate(
        to: Annotated[str, typer.Option(
            "--to", help="The database to copy into: postgresql://user:password@host/db, "
                         "sqlite:///path/to/hearth.db, or sqlite:// for this folder's "
                         "hearth.db.")],
        source: Annotated[str | None, typer.Option(
            "--from", help="The database to copy from (default: the one this home uses).",
            )] = None,
        replace: Annotated[bool, typer.Option(
            "--replace", help="Delete what the target holds (an unfinished copy, or another "
                              "home) before copying.")] = False,
        switch: Annotated[bool, typer.Option(
            "--switch", help="Afterwards, set database_url so this home uses the copy (its "
                             "password kept in the system keyring, or else in the data "
                             "folder's database.pgpass, never in settings.json).",
            )] = False,
        as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False) -> None:
    """Copy this home's memory into an empty database of the other kind, and back."""
    from core.config import save_settings
    from core.config.database_password import keep_password_out
    from core.config.database_url import masked, validated
    from core.operations.folder_lock import held_alone
    from core.operations.migrate import copy_database

    paths = context.paths()
    settings = context.settings()
    target_url = validated(to) or "sqlite://"
    with held_alone(paths.home):
        copied = copy_database(settings, paths, target_url, source, replace=replace,
                               watched=lambda: progress_bar("copying", enabled=not as_json))
        where, report, problems = copied.target, copied.report, copied.problems
        setting = None if target_url == "sqlite://" else target_url
        kept_in = None
        if switch:
            kept = keep_password_out(setting, paths.home)
            setting, kept_in = kept.url, kept.place
            save_settings(paths, {"database_url": setting})
    if as_json:
        output.print_json({"target": where, "rows": report.rows, "vectors": report.vectors,
                           "revision": report.revision, "switched": switch,
                           "problems": [check.__dict__ for check in problems],
                           "password_kept_in": kept_in})
        return
    output.stdout.print(f"Copied {report.total} rows ({sum(report.vectors.values())} with "
                        f"their vectors) into {where}, schema {report.revision}.",
                        highlight=False, markup=False)
    for check in problems:  # e.g. no pg_dump as new as the server: said now, not at night
        output.print_warning(f"{check.detail} {check.fix}".strip())
    if switch:
        kept_note = (f" Its password is kept in {kept_in}, not in settings.json."
                     if kept_in else "")
        output.stdout.print(f"This home now uses {masked(setting)}.{kept_note}",
                            highlight=False, markup=False)
        return
    shown = "an empty value (the default)" if setting is None else masked(setting)
    output.stdout.print(
        f"This home still uses {masked(settings.database_url)}. To switch, run this again "
        "with --switch (which keeps the password out of settings.json), set database_url "
        f"to {shown} in settings.json (Settings → Data → Database in the window), or set "
        "HEARTH_DATABASE_URL for one run.",
        highlight=False, markup=False)
