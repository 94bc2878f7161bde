"""Layer rules, checked rather than hoped for: ``core`` never imports Qt, ``desktop`` or
``cli``; both front ends, the window and the command line, reach core through
``core.operations``; no import cycles, between modules or between packages; every part of
core is on a floor of the one-way stack; only the front ends and ``core.operations`` open
``Hearth``; only the storage factory imports a storage adapter. ``make lint`` checks the same
layers with import-linter (``[tool.importlinter]``)."""

from __future__ import annotations

import ast
import runpy
import tomllib
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parents[2]
FORBIDDEN_IN_CORE = ("PySide6", "PyQt5", "PyQt6", "pyqtgraph", "desktop", "shiboken6", "cli")


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_core_never_imports_qt_or_the_desktop_layer() -> None:
    offenders = {}
    for path in (ROOT / "core").rglob("*.py"):
        bad = {name for name in imported_modules(path)
               if name.split(".")[0] in FORBIDDEN_IN_CORE}
        if bad:
            offenders[str(path.relative_to(ROOT))] = sorted(bad)
    assert offenders == {}


def test_the_checker_sees_imports() -> None:
    sample = Path(__file__)
    assert "ast" in imported_modules(sample)


# --- the front ends' doorway --------------------------------------------------------------------

FRONT_ENDS_MAY_IMPORT = (
    "core.operations",  # the per-domain operations and the plain data they return
    "core.errors",      # the errors operations raise, with their sentence and hint
    "core.config",      # the settings the window edits and `hearth migrate --switch` saves
    "core.app",         # opening the data folder (``Hearth.open``) at start
    "core.assistant",   # starting and stopping the assistant the chat talks to
    "core.scheduling",  # the schedule the tray and `hearth daemon` start and stop
    "core.clock",       # the one "now" the front ends and core agree on
    "core.version",     # About
    # Three leaves of the bottom floors, beside core.errors and core.clock: the standard
    # library (and core.errors) alone, light enough for `hearth --help`, and each about the
    # front door itself, so an operation wrapping them would only rename them.
    "core.user_input",  # text and files a person hands in, checked before anything runs
    "core.log_privacy",  # what a log record a front end writes may hold (its formatter)
    "core.job_names",   # the scheduler's job names, for help text without the scheduler
)
"""All of core a front end (the window, the command line) may import; everything else is
reached through operations. One list for both: the doorway is the same."""


def imported_names(path: Path) -> set[str]:
    """Every module imported, and every name imported from one as ``module.name``, so
    ``from core import storage`` is seen as ``core.storage``."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names = imported_modules(path)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def _within(name: str, packages: tuple[str, ...]) -> bool:
    return any(name == package or name.startswith(package + ".") for package in packages)


def reaches_below(path: Path) -> set[str]:
    """What ``path`` imports from core beyond what a front end may import."""
    return {name for name in imported_modules(path)
            if _within(name, ("core",)) and name != "core"
            and not _within(name, FRONT_ENDS_MAY_IMPORT)} | {
        name for name in imported_names(path) - imported_modules(path)
        if name.startswith("core.") and name.count(".") == 1
        and not _within(name, FRONT_ENDS_MAY_IMPORT)}


def reaches_below_in(front_end: str) -> dict[str, list[str]]:
    """Each module of the front end's folder that reaches below the doorway, with what."""
    return {path.relative_to(ROOT).as_posix(): sorted(below)
            for path in sorted((ROOT / front_end).rglob("*.py"))
            if (below := reaches_below(path))}


def test_the_window_reaches_core_only_through_operations() -> None:
    assert reaches_below_in("desktop") == {}, "use core.operations instead"


def test_the_command_line_reaches_core_only_through_operations() -> None:
    assert reaches_below_in("cli") == {}, "use core.operations instead"


def test_the_doorway_check_sees_a_reach_below(tmp_path: Path) -> None:
    sample = tmp_path / "view.py"
    sample.write_text("def load():\n    from core.views.graph import load_graph\n"
                      "from core.operations import facts\nimport core.storage.orm\n"
                      "from core import forgetting\nfrom core.errors import HearthError\n",
                      encoding="utf-8")
    assert reaches_below(sample) == {"core.views.graph", "core.storage.orm",
                                     "core.forgetting"}


# --- the whole import graph ----------------------------------------------------------------------


def runtime_import_graph() -> dict[str, set[str]]:
    """Who imports whom in ``core``, ``desktop`` and ``cli``, function-level imports
    included and ``if TYPE_CHECKING:`` ones left out (they never run). Built afresh: grimp's
    cache can miss an edit made within the same second."""
    graph = grimp.build_graph("core", "desktop", "cli", exclude_type_checking_imports=True,
                              cache_dir=None)
    return {module: graph.find_modules_directly_imported_by(module)
            for module in graph.modules}


def cycles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected groups of more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.add(member)
                    if member == node:
                        break
                if len(group) > 1:
                    found.append(group)
    return found


def test_no_module_imports_itself_round_a_cycle() -> None:
    assert cycles(runtime_import_graph()) == []


def test_the_cycle_check_finds_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [{"a", "b", "c"}]


def packages_of(graph: dict[str, set[str]], depth: int = 2) -> dict[str, set[str]]:
    """The module graph collapsed to packages (``core.storage.sqlite.search`` is
    ``core.storage``): a loop between two packages is a loop even when no two modules close it."""
    def package(module: str) -> str:
        return ".".join(module.split(".")[:depth])

    collapsed: dict[str, set[str]] = {}
    for module, imported in graph.items():
        targets = collapsed.setdefault(package(module), set())
        targets.update(package(other) for other in imported if package(other) != package(module))
    return collapsed


def test_no_package_imports_itself_round_a_cycle() -> None:
    assert cycles(packages_of(runtime_import_graph())) == []


def test_the_package_check_finds_a_loop_no_two_modules_close() -> None:
    modules = {"p.a.one": {"p.b.one"}, "p.b.two": {"p.a.two"}, "p.a.two": set(), "p.b.one": set()}

    assert cycles(modules) == []
    assert cycles(packages_of(modules)) == [{"p.a", "p.b"}]


def floors() -> list[set[str]]:
    """The floors of the layers contract in pyproject.toml, top first."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    (stack,) = [contract for contract in config["tool"]["importlinter"]["contracts"]
                if contract["type"] == "layers"]
    return [{part.strip() for part in floor.split("|")} for floor in stack["layers"]]


def test_every_part_of_core_is_on_a_floor_of_the_stack() -> None:
    parts = {f"core.{path.stem}" for path in (ROOT / "core").iterdir()
             if (path.suffix == ".py" and path.stem != "__init__")
             or (path / "__init__.py").is_file()}
    on_floors = set().union(*floors())

    assert parts - on_floors == set(), "add each to a floor in pyproject.toml"
    assert on_floors - parts == set(), "a floor names something core no longer has"


def test_the_architecture_picture_is_the_enforced_stack() -> None:
    drawing = runpy.run_path(str(ROOT / "tools" / "architecture_diagram.py"))

    assert drawing["diagram"]() in drawing["DOC"].read_text(encoding="utf-8"), (
        "run `python tools/architecture_diagram.py --write`")
    assert [set(floor) for floor in drawing["floors"]()] == floors()


FRONT_ENDS = ("desktop", "cli", "core.operations", "core.scheduling", "core.assistant")
"""Who may hold the whole ``Hearth``: the two front ends (the window, the command line),
their doorway, and the background runner (the scheduler and the assistant it runs, which
the tray and ``hearth daemon`` start). Every other engine module is handed the services it
uses."""


def test_only_front_ends_and_operations_open_hearth() -> None:
    importers = {module for module, imported in runtime_import_graph().items()
                 if "core.app" in imported}

    assert {module for module in importers if not _within(module, FRONT_ENDS)} == set()
    assert "cli.context" in importers  # the check sees imports of core.app


# --- storage adapters --------------------------------------------------------------------------

ADAPTERS = ("core.storage.sqlite", "core.storage.postgres")
"""The storage adapters: each reached only through the storage factory."""
STORAGE_FACTORY = "core/storage/factory.py"


def adapter_users() -> set[str]:
    """Modules of ``core`` outside the adapters' own packages that import an adapter."""
    adapter_folders = tuple(f"{name.replace('.', '/')}/" for name in ADAPTERS)
    return {path.relative_to(ROOT).as_posix()
            for path in sorted((ROOT / "core").rglob("*.py"))
            if not path.relative_to(ROOT).as_posix().startswith(adapter_folders)
            and any(_within(name, ADAPTERS) for name in imported_names(path))}


def test_only_the_storage_factory_imports_an_adapter() -> None:
    """Everything else reaches the database through the storage port; the migrations'
    ``env.py`` included (the adapter hands it a connection)."""
    assert adapter_users() <= {STORAGE_FACTORY}, "reach the database through the storage port"


def test_the_factory_is_seen_importing_the_sqlite_adapter() -> None:
    assert adapter_users() == {STORAGE_FACTORY}
