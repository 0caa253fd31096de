"""The package's layers, read from its own source: imports flow one way (no circle, counting imports inside
functions and for type checking too), the CLI reaches storage only through the facade, and each engine or
SDK is imported by the one module that wraps it."""

from __future__ import annotations

import ast
import functools
import graphlib
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "refind_cli"


def module_name(path: Path) -> str:
    parts = list(path.with_suffix("").relative_to(PACKAGE.parent).parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in PACKAGE.rglob("*.py")}


@functools.cache
def imported(path: Path) -> frozenset[str]:
    """Every module name an ``import`` or ``from ... import`` in the file names, wherever it stands (each
    file parsed once: the rules below ask about every file many times)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            # ``from package import submodule`` depends on the submodule; any other name, on the module.
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                names.add(full if full in MODULES else node.module)
        elif isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
    return frozenset(names)


def own_imports(path: Path) -> set[str]:
    return {name for name in imported(path) if name in MODULES}


def test_imports_flow_one_way() -> None:
    graph = {name: own_imports(path) - {name} for name, path in MODULES.items()}
    order = list(graphlib.TopologicalSorter(graph).static_order())  # raises CycleError on a circle
    assert set(order) == set(MODULES)


def test_the_cli_reaches_storage_only_through_the_facade() -> None:
    # The one storage module a front end may name is where the home folder is (it reads the environment).
    forbidden = ("refind_cli.storage", "refind_cli.index", "refind_cli.ingest")
    for name, path in MODULES.items():
        if name.startswith("refind_cli.frontends"):
            bad = {i for i in imported(path) if i.startswith(forbidden) and i != "refind_cli.storage.home"}
            assert not bad, f"{name} imports {bad}"


def test_each_engine_is_imported_by_the_module_that_wraps_it() -> None:
    owners = {
        "tantivy": {"refind_cli.index.tantivy_backend"},
        "litellm": {"refind_cli.agent.llm"},
        "mcp": {"refind_cli.frontends.mcp.server"},
        "apsw": {f"refind_cli.storage.{m}" for m in ("archive", "database", "schema", "ledger", "queries")},
    }
    for library, allowed in owners.items():
        users = {
            name
            for name, path in MODULES.items()
            if any(i == library or i.startswith(library + ".") for i in imported(path))
        }
        assert users == allowed, f"{library} is imported by {users - allowed}"


def test_the_engine_is_chosen_in_the_index_registry_only() -> None:
    # Every other module opens an index through ``index.open_index`` and types it as ``TurnIndex``.
    users = {name for name, path in MODULES.items() if "refind_cli.index.tantivy_backend" in imported(path)}
    assert users == {"refind_cli.index"}, f"the tantivy engine is named by {users - {'refind_cli.index'}}"


def test_the_mcp_server_sees_the_library_only_through_the_facade_and_the_tools_layer() -> None:
    # No agent internals, no request or search module: the tool's arguments, request, seen sessions,
    # instructions and schemas come from search_tools, as they do for the agent.
    allowed = {
        "refind_cli",
        "refind_cli.errors",
        "refind_cli.facade",
        "refind_cli.frontends.mcp.stdio",
        "refind_cli.records",
        "refind_cli.reports",
        "refind_cli.results",
        "refind_cli.method.search_tools",
    }
    used = own_imports(MODULES["refind_cli.frontends.mcp.server"])
    bad = {
        name for name in used if name not in allowed and not name.startswith("refind_cli.frontends.render")
    }
    assert not bad, f"refind_cli.frontends.mcp.server imports {bad}"


def test_importers_and_search_know_nothing_of_the_layers_after_them() -> None:
    rules = {
        "refind_cli.importers": (
            "refind_cli.storage",
            "refind_cli.index",
            "refind_cli.method.search",
            "refind_cli.agent",
            "refind_cli.facade",
            "refind_cli.frontends",
        ),
        "refind_cli.method.search": (
            "refind_cli.frontends.cli",
            "refind_cli.agent",
            "refind_cli.frontends.render",
            "refind_cli.facade",
        ),
        "refind_cli.method.search_tools": (
            "refind_cli.storage.archive",
            "refind_cli.index",
            "refind_cli.agent",
            "refind_cli.facade",
            "refind_cli.frontends.render",
            "refind_cli.frontends.cli",
            "refind_cli.frontends.mcp.server",
        ),
        "refind_cli.agent": (
            "refind_cli.frontends.cli",
            "refind_cli.frontends.render",
            "refind_cli.facade",
            "refind_cli.frontends.mcp.server",
        ),
        # Text analysis and time are the bottom layers: pure, read by everything above them.
        "refind_cli.text": (
            "refind_cli.storage",
            "refind_cli.index",
            "refind_cli.ingest",
            "refind_cli.method",
            "refind_cli.agent",
            "refind_cli.facade",
            "refind_cli.frontends",
            "refind_cli.importers",
        ),
        "refind_cli.dates": (
            "refind_cli.storage",
            "refind_cli.index",
            "refind_cli.ingest",
            "refind_cli.method",
            "refind_cli.agent",
            "refind_cli.facade",
            "refind_cli.frontends",
            "refind_cli.importers",
            "refind_cli.text",
        ),
        "refind_cli.frontends.render": (
            "refind_cli.storage.archive",
            "refind_cli.index",
            "refind_cli.ingest",
            "refind_cli.frontends.cli",
        ),
    }
    for name, path in MODULES.items():
        for layer, after in rules.items():
            if name == layer or name.startswith(layer + "."):
                bad = {i for i in own_imports(path) if i.startswith(after)}
                assert not bad, f"{name} imports {bad}"
