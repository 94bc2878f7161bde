"""Write ``tests/slow_tests.txt``: the tests a full run measured at more than a second.

    .venv/bin/python -m pytest -n auto --dist loadfile --junitxml=/tmp/run.xml
    python tools/slow_tests.py /tmp/run.xml            # the list, from this run alone
    python tools/slow_tests.py --add /tmp/check.xml    # add what another run found

Those tests are ``integration`` (``tests/support/tiers.py``), so ``make check``, the fast
tier, leaves them out. Run it on a quiet machine after adding slow tests."""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LIMIT_S = 1.0
HEADER = ("# Tests measured at more than a second (tools/slow_tests.py): integration tier.\n"
          "# make check leaves them out; make test runs them.\n")


def slow_ids(junit: Path) -> list[str]:
    """Node ids of the test cases in ``junit`` that took more than ``LIMIT_S``."""
    cases = ET.parse(junit).getroot().iter("testcase")
    return sorted(f"{case.get('classname', '').replace('.', '/')}.py::{case.get('name')}"
                  for case in cases if float(case.get("time", 0)) > LIMIT_S)


if __name__ == "__main__":
    listed = ROOT / "tests" / "slow_tests.txt"
    kept = {line for line in listed.read_text(encoding="utf-8").splitlines()
            if line and not line.startswith("#")} if "--add" in sys.argv else set()
    found = kept.union(*(slow_ids(Path(name)) for name in sys.argv[1:] if name != "--add"))
    listed.write_text(HEADER + "".join(f"{node}\n" for node in sorted(found)),
                      encoding="utf-8")
