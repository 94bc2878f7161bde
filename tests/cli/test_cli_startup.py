"""The ``hearth`` command imports only what a command uses (docs/cli.md): ``--help`` none of
the engine, a command that opens the data folder the engine but not the assistant, the
scheduler or the model clients. Each check starts a new interpreter, because this process
has imported everything already; a module imported at the top of ``cli/`` again
fails it, naming the module."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from support.templates import SqliteTemplate

ROOT = Path(__file__).resolve().parents[2]

NOT_FOR_A_COMMAND = ("core.assistant", "core.conversation.service", "core.scheduling",
                     "core.consolidation.dream", "core.llm.ollama", "core.llm.embedded",
                     "ollama", "httpx", "xllamacpp", "onnxruntime", "apscheduler.schedulers")
"""What no command that only reads facts needs: the chat, the daemon, the dream cycle, the
language-model clients and the embedding runtime (the model loads on first embedding)."""

NOT_FOR_HELP = ("core.app", "core.config", "sqlalchemy", "pydantic", "numpy",
                *NOT_FOR_A_COMMAND)


def modules_after(code: str) -> set[str]:
    """The heavy modules loaded once ``code`` has run in a new interpreter."""
    probe = (f"import json, sys\n{code}\n"
             f"print(json.dumps(sorted(m for m in {list(NOT_FOR_HELP)!r} if m in sys.modules)))")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        filter(None, [str(ROOT), os.environ.get("PYTHONPATH", "")]))}
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          env=env, cwd=ROOT, timeout=120, check=True)
    return set(json.loads(done.stdout.splitlines()[-1]))


def test_help_imports_none_of_the_engine() -> None:
    loaded = modules_after("from cli.main import run\n"
                           "assert run(['--help']) == 0")

    assert loaded == set(), f"imported by `hearth --help`: {sorted(loaded)}"


def test_a_command_imports_the_engine_but_not_the_assistant_or_the_models(
        sqlite_template: SqliteTemplate, tmp_path: Path) -> None:
    home = sqlite_template.copy_home(tmp_path / "home")

    loaded = modules_after("from cli.main import run\n"
                           f"assert run(['--home', {str(home)!r}, 'facts', 'list']) == 0")

    assert "core.app" in loaded and "sqlalchemy" in loaded  # the probe sees imports
    assert not loaded & set(NOT_FOR_A_COMMAND), sorted(loaded & set(NOT_FOR_A_COMMAND))
