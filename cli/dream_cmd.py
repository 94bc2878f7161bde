"""``hearth dream [--stage NAME]``: run the dream cycle (or one of its stages) now.

The same cycle the scheduler runs at night, with the same lock, backup and run record, so a
manual run and a nightly one can never overlap. A run that went on without a backup
(``dream_without_backup``) ends with a warning saying so on stderr, whatever else it did.
Ctrl-C cancels between (and inside) stages and the run is recorded ``cancelled``; the next
run resumes it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

from cli import output
from cli.consolidation_cmd import print_changes
from cli.context import opened
from cli.interrupts import ctrl_c_cancels
from core.operations.dream import STAGES, stage_name

if TYPE_CHECKING:
    from core.operations.dream import DreamReport

JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")]
EXIT_CODES = {"done": 0, "partial": 1, "cancelled": 130}


def dream(stage: Annotated[str | None, typer.Option(
              "--stage", metavar="NAME",
              help=f"Run only this stage: {', '.join(STAGES)}.")] = None,
          as_json: JsonOption = False) -> None:
    """Consolidate now: back up, then process, triage, distil, enrich, decay, merge, link,
    REM and reflect (or one --stage), recorded like the nightly run."""
    from core.operations import dream as dream_cycle
    from core.operations.models import CancelToken, configured_provider

    cancel = CancelToken()

    def announce(name: str, done: int, total: int) -> None:
        if not as_json and done == 0 and total == 0:
            output.stderr.print(f"dreaming: {name}", highlight=False)

    with opened() as hearth:
        provider = configured_provider(hearth.settings)
        try:
            with ctrl_c_cancels(cancel):
                report = dream_cycle.run(hearth, provider, trigger="manual", only=stage,
                                         progress=announce, cancel=cancel)
        finally:
            provider.close()
    if as_json:
        output.print_json(report)
    else:
        _print_report(report)
    code = EXIT_CODES.get(report.status, 1)
    if code:
        raise typer.Exit(code)


def _print_report(report: DreamReport) -> None:
    output.print_table(
        f"Dream run {report.run_id}: {report.status}", ["stage", "status", "seconds", "counts"],
        [[name, result.status, f"{result.seconds:.2f}",
          result.error or _compact(result.counts)] for name, result in report.stages.items()])
    waiting = [stage_name(name) for name, result in report.stages.items()
               if result.status == "waiting"]
    if waiting:
        output.stdout.print(f"waiting for a capable model: {', '.join(waiting)}",
                            highlight=False)
    if report.resumed_from is not None:
        output.stdout.print(f"resumed interrupted run {report.resumed_from}", highlight=False)
    if report.backup:
        output.stdout.print(f"backup: {report.backup}", highlight=False)
    for warning in report.warnings:  # it went on without a backup: never said quietly
        output.print_warning(warning)
    print_changes(report.run_id, report.changes)


def _compact(counts: dict[str, Any]) -> str:
    return " ".join(f"{key}={value}" for key, value in counts.items()
                    if not isinstance(value, (dict, list)))
