"""A language model factory for a dream in its child process (``desktop.isolated``) that
first writes the child's environment to a file, so a test can see what the child
inherited."""

from __future__ import annotations

import json
import os
from pathlib import Path

from support.scripted_llm import ScriptedLLM


class EnvironmentShown:
    """Picklable: ``run_in_child`` sends it to the child, which calls it there."""

    def __init__(self, target: Path) -> None:
        self.target = target

    def __call__(self) -> ScriptedLLM:
        self.target.write_text(json.dumps(dict(os.environ)), encoding="utf-8")
        return ScriptedLLM()
