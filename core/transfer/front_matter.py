"""A note's front matter (the YAML between ``---`` lines at its top), read within bounds.

A few hundred bytes of YAML can stand for more than any machine holds: an *alias* (``*a``)
repeats what an *anchor* (``&a``) named, so ten lines that each repeat the one before ten
times stand for 10^10 values. PyYAML builds such a document from shared references,
cheaply, but whatever then walks it as a tree (turning it into JSON for ``origin``)
expands it: a 600-byte note took more than 8 GB. A document can also contain itself
(``a: &a [*a]``), and nesting has no limit of its own.

Front matter is a handful of fields, written by hand or by an editor's property panel, so
it is read under bounds far beyond that, and a note past one is skipped with the reason
(:class:`BadFrontMatter`), the rest of the folder being imported:

* at most ``MAX_BYTES`` of it, measured before it is parsed;
* no aliases: each value is written where it is used (an anchor alone is harmless);
* at most ``MAX_DEPTH`` levels of nesting.

The document is composed by libyaml where PyYAML has it (``CSafeLoader``: tens of times
faster than the pure-Python loader, and a vault's front matter is read twice); its nodes
are then checked without expanding anything (each visited once: a node reached a second
time is an alias), and only then turned into Python values and JSON.
"""

from __future__ import annotations

import json
from typing import Any

import yaml

from core.user_input import unreadable_part

MAX_BYTES = 256 * 1024
"""Front matter in real vaults is well under a kilobyte; a long summary field is a few
dozen. More than this is not a note's properties."""
MAX_DEPTH = 32
"""Levels of nesting (a list in a field is 3: the fields, the list, its items)."""
_TOO_DEEP = f"its front matter nests more than {MAX_DEPTH} levels deep"
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
"""libyaml's safe loader where PyYAML was built with it: the same documents, read tens of
times faster than the pure-Python one."""


class BadFrontMatter(Exception):
    """Why a note's front matter is not read, as a clause (``its front matter is ...``)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def fields(text: str) -> dict[str, Any]:
    """The front matter ``text`` as JSON-ready fields (dates and other values JSON has no
    type for become text), or :class:`BadFrontMatter`."""
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_BYTES:
        raise BadFrontMatter(f"its front matter is {size:,} bytes, more than the "
                             f"{MAX_BYTES // 1024} KB Hearth reads")
    loaded = _load(text)
    if loaded is not None and not isinstance(loaded, dict):
        raise BadFrontMatter("its front matter is not a set of fields")
    try:
        encoded = json.dumps(loaded or {}, default=str, ensure_ascii=False, allow_nan=False)
    except ValueError as exc:
        raise BadFrontMatter("its front matter holds a number JSON cannot keep "
                             "(.inf or .nan)") from exc
    problem = unreadable_part(encoded, decoded=False)
    if problem is not None:
        raise BadFrontMatter(f"its front matter is not valid text: {problem}")
    result: dict[str, Any] = json.loads(encoded)
    return result


def _load(text: str) -> Any:
    """The document, composed, checked (:func:`_check`) and only then constructed."""
    loader = _LOADER(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _check(node)
        return loader.construct_document(node)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 2})" if mark is not None else ""
        raise BadFrontMatter(f"its front matter is not valid YAML{where}") from exc
    except ValueError as exc:  # a date like 2024-02-30, an integer past 4,300 digits
        raise BadFrontMatter(f"its front matter holds a value that cannot be read "
                             f"({exc})") from exc
    except RecursionError as exc:  # the pure-Python composer recurses before the check
        raise BadFrontMatter(_TOO_DEEP) from exc
    finally:
        loader.dispose()


def _check(root: yaml.Node) -> None:
    """Refuse aliases and deep nesting, visiting each node once (never expanding)."""
    seen: set[int] = set()
    stack: list[tuple[yaml.Node, int]] = [(root, 1)]
    while stack:
        node, depth = stack.pop()
        if id(node) in seen:
            raise BadFrontMatter("its front matter repeats a value through a YAML alias "
                                 "(*name), which Hearth does not expand")
        seen.add(id(node))
        if depth > MAX_DEPTH:
            raise BadFrontMatter(_TOO_DEEP)
        if isinstance(node, yaml.MappingNode):
            stack.extend((part, depth + 1) for pair in node.value for part in pair)
        elif isinstance(node, yaml.SequenceNode):
            stack.extend((child, depth + 1) for child in node.value)
