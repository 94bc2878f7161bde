"""``hearth models list|pull``: the models installed in Ollama, and fetching another one.

Both talk to the Ollama the settings point at (``ollama_host``, else ``$OLLAMA_HOST``, else
the local default), never to any other address. A pull shows its progress on stderr, so
``--json`` output on stdout stays clean, and Ctrl-C stops it cleanly: Ollama keeps the
parts already downloaded, and the same command resumes.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Annotated

import typer
from rich.progress import (
    BarColumn,
    DownloadColumn,
    Progress,
    TextColumn,
    TimeRemainingColumn,
    TransferSpeedColumn,
)

from cli import context, output

if TYPE_CHECKING:
    from core.operations.models import PullProgress

models_app = typer.Typer(help="Ollama models: list the installed ones, pull another.",
                         no_args_is_help=True)


@models_app.command("list")
def list_models(as_json: Annotated[bool, typer.Option(
        "--json", help="Print JSON instead of a table.")] = False) -> None:
    """The models installed in Ollama; the one Hearth is set to use is marked."""
    from core.operations.models import installed_models, same_model

    installed = installed_models(context.settings())
    models, configured = installed.models, installed.configured
    marked = [same_model(configured, m.name) for m in models]
    if as_json:
        output.print_json([{"name": m.name, "size_bytes": m.size_bytes, "details": m.details,
                            "configured": mark} for m, mark in zip(models, marked, strict=True)])
        return
    output.print_table(
        f"Models in Ollama at {installed.host}", ["", "name", "size (GB)", "parameters",
                                                 "quantization"],
        [("*" if mark else "", m.name,
          f"{m.size_bytes / 1e9:.1f}" if m.size_bytes is not None else "",
          m.details.get("parameter_size", ""), m.details.get("quantization_level", ""))
         for m, mark in zip(models, marked, strict=True)])
    if not any(marked):
        output.stderr.print(f"The configured model {configured} is not installed; "
                            f"pull it with `hearth models pull {configured}`.",
                            highlight=False, markup=False)


@models_app.command("pull")
def pull(name: Annotated[str | None, typer.Argument(
        help="Model to download, e.g. llama3.2:3b (default: the configured model).")] = None,
         ) -> None:
    """Download a model into Ollama, with progress; Ctrl-C stops (run again to resume)."""
    from core.operations.models import ollama_model, pull_configured

    settings = context.settings()
    wanted = name or ollama_model(settings)
    try:
        with _progress_display(f"pulling {wanted}") as progress:
            pull_configured(settings, wanted, progress)
    except KeyboardInterrupt:
        output.print_error(f"Stopped pulling {wanted}.",
                           f"Run `hearth models pull {wanted}` again to resume.")
        raise typer.Exit(130) from None
    output.stdout.print(f"pulled {wanted}", highlight=False)


@contextmanager
def _progress_display(label: str) -> Iterator[PullProgress]:
    """A byte progress bar on stderr that follows Ollama's per-layer status lines."""
    with Progress(TextColumn("{task.description}"), BarColumn(), DownloadColumn(),
                  TransferSpeedColumn(), TimeRemainingColumn(), console=output.stderr,
                  transient=True) as bar:
        task = bar.add_task(label, total=None)

        def update(status: str, completed: int | None, total: int | None) -> None:
            bar.update(task, description=status or label, total=total,
                       completed=completed or 0)

        yield update
