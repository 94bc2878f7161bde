"""Which Hearth this is: the version of the installed ``hearth`` package, as Help → About
and bug reports show it."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

UNKNOWN = "(version unknown: run from an uninstalled copy)"


def app_version() -> str:
    """``0.1.0``, from the package's metadata (``pyproject.toml`` at install time)."""
    try:
        return version("hearth")
    except PackageNotFoundError:
        return UNKNOWN
