"""A ``pg_dump`` older than the test server, as a person has one: Debian's stock client
beside a server of a newer major version.

The script answers ``--version`` as PostgreSQL 9.6's ``pg_dump`` does, and refuses any
dump the way a real old one refuses a newer server (its two lines on stderr, exit 1), so a
check that skipped the version and ran it anyway would fail as it would on that machine.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

VERSION = "9.6.0"
SCRIPT = f"""#!/bin/sh
if [ "$1" = "--version" ]; then
    echo "pg_dump (PostgreSQL) {VERSION}"
    exit 0
fi
echo "pg_dump: server version: 16.2; pg_dump version: {VERSION}" >&2
echo "pg_dump: aborting because of server version mismatch" >&2
exit 1
"""


def put_first_on_path(folder: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Write the old ``pg_dump`` into ``folder`` and put the folder first on ``PATH``
    (for this test only); returns the script's path."""
    folder.mkdir(parents=True, exist_ok=True)
    tool = folder / "pg_dump"
    tool.write_text(SCRIPT)
    tool.chmod(tool.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ.get('PATH', '')}")
    return tool
