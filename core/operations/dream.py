"""The dream cycle for the front ends: its stages by name, and a run of it (or of one
stage) that reports each stage as the cycle does (``core.consolidation.dream``).

Light on purpose: ``hearth dream --help`` names the stages from here, so the cycle and the
engine are imported only when a dream runs. The result is the cycle's own frozen record,
``DreamReport``: each stage's status, seconds and counts, the backup, the changelog.
The window's run (``consolidation.dream``) is this one, its progress put into words.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from core.consolidation.stages import STAGES
from core.consolidation.wording import stage_name

if TYPE_CHECKING:
    from core.app import Hearth
    from core.consolidation.dream import DreamReport as DreamReport
    from core.llm.protocol import CancelToken, LLMProvider

__all__ = ["STAGES", "DreamReport", "StageProgress", "run", "stage_name"]

StageProgress = Callable[[str, int, int], None]
"""``(stage, done, total)`` as a stage goes; ``(stage, 0, 0)`` when it starts."""


def run(hearth: Hearth, provider: LLMProvider, *, trigger: str = "manual",
        only: str | None = None, progress: StageProgress | None = None,
        cancel: CancelToken | None = None) -> DreamReport:
    """Run the dream cycle (backup, stages, changelog; resumes an interrupted one), or
    the stage ``only``, under the dream lock, recorded as a run; a ``cancel`` stops it at
    the next safe point (status ``cancelled``, resumed next time)."""
    from core.consolidation.dream import DreamCycle

    cycle = DreamCycle(hearth.consolidation(), provider)
    return cycle.run(trigger=trigger, only=only, progress=progress, cancel=cancel)
