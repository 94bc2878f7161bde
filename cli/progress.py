"""A terminal progress bar that speaks the engine's ``progress(done, total)`` callback."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

from cli.output import stderr

ProgressCallback = Callable[[int, int], None]


@contextmanager
def progress_bar(label: str, *, enabled: bool = True) -> Iterator[ProgressCallback]:
    """Yield a callback; the bar goes to stderr so JSON on stdout stays clean."""
    if not enabled:
        yield lambda _done, _total: None
        return
    with Progress("[progress.description]{task.description}", BarColumn(),
                  MofNCompleteColumn(), TimeRemainingColumn(), console=stderr,
                  transient=True) as bar:
        task = bar.add_task(label, total=None)

        def update(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield update
