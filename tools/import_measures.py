"""The house's import measures (issue 31), read from the source with ``ast`` (nothing imported).

    python tools/import_measures.py          # the figures, by package
    python tools/import_measures.py --list   # and every offending line

Measured over ``engine/``, ``console_app/`` and ``neurocanvas/``:

- function-level imports: ``import`` statements inside a ``def`` (module-level ``if``/``try``
  blocks count as module level), outside the entry points (``engine/cli``, the plugin scripts
  and the ``neurocanvas`` launcher, :data:`ENTRY_POINTS`, which import after parsing so that
  ``--help`` stays quick): of ``engine`` modules (they dodged cycles), of third-party libraries
  (a library used on some paths only is declared at module level through the one mechanism,
  ``optional.lazy``), and of our own modules inside the app (counted apart).
- ``optional.lazy("name")``, ``optional.load("name")`` and ``optional.require("name")`` calls
  are imports all the same: they count in the graph below (cycles, upward imports).
- noqa markers for PLC0415 (ruff does not select PLC0415: noise).
- package cycles: strongly connected components of the graph between ``engine``'s packages
  (``engine.core``, ``engine.nn``, ...), module-level and function-level imports together;
  imports under ``if TYPE_CHECKING:`` (annotations only) aside.
- module cycles: the same between modules, the app's and the launcher's too (a package's
  ``__init__`` is its own node).
- upward imports: an ``engine`` module importing a package on a higher floor of
  pyproject.toml's layers contract.

tests/test_imports.py asserts the figures through :func:`measure`.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
import tomllib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ("engine", "console_app", "neurocanvas")
MARKED = (*SOURCES, "tests", "tools")  # where the PLC0415 noqa markers are counted
NOQA = re.compile(r"#\s*noqa:[^#\n]*\bPLC0415\b")
# The one place a lazy optional dependency may be imported inside a function.
OPTIONAL_HOME = "engine.core.optional"
# Entry points, which may import the engine after parsing their arguments (``--help`` stays
# quick): the CLI's commands and the plugin scripts (each runs as its own process, and
# ``neurocanvas plugin list`` runs every script's ``--help``).
ENTRY_POINTS = ("engine.cli", "engine.plugins.scripts", "neurocanvas")


@dataclass(frozen=True)
class Import:
    module: str  # the importing module, dotted
    target: str  # the imported module, dotted (resolved against the source tree)
    line: int
    function_level: bool
    type_only: bool
    deferred: bool = False  # optional.lazy/load/require("name"): an import all the same


@dataclass
class Measures:
    imports: list[Import] = field(default_factory=list)
    noqa: list[tuple[str, int]] = field(default_factory=list)
    modules: set[str] = field(default_factory=set)

    # -- function-level -------------------------------------------------------------------
    def function_level_engine(self) -> list[Import]:
        """Function-level imports of engine modules outside the entry points."""
        return [
            i
            for i in self.imports
            if i.function_level
            and not i.type_only
            and i.target.split(".")[0] == "engine"
            and i.module.startswith("engine.")
            and not any(_in(i.module, entry) for entry in ENTRY_POINTS)
        ]

    def function_level_third_party(self) -> list[Import]:
        """Third-party libraries imported inside a function outside the entry points, instead of
        declared through the one mechanism (``optional.lazy`` at module level, ``require``)."""
        return [
            i
            for i in self.imports
            if i.function_level
            and not i.type_only
            and i.target.split(".")[0] not in SOURCES
            and i.target.split(".")[0] not in sys.stdlib_module_names
            and i.module != OPTIONAL_HOME
            and not any(_in(i.module, entry) for entry in ENTRY_POINTS)
        ]

    def function_level_app(self) -> list[Import]:
        """The app's own modules (and the engine's) imported inside a function of the app."""
        return [
            i
            for i in self.imports
            if i.function_level
            and not i.type_only
            and i.target.split(".")[0] in SOURCES
            and not i.module.startswith("engine.")
            and not any(_in(i.module, entry) for entry in ENTRY_POINTS)
        ]

    # -- cycles ---------------------------------------------------------------------------
    def _graph(self, key, roots: tuple[str, ...] = ("engine",)) -> nx.DiGraph:
        graph = nx.DiGraph()
        for i in self.imports:
            if (
                i.type_only
                or i.module.split(".")[0] not in roots
                or i.target.split(".")[0] not in roots
            ):
                continue
            a, b = key(i.module), key(i.target)
            if a and b and a != b:
                graph.add_edge(a, b)
        return graph

    def package_cycles(self) -> list[list[str]]:
        graph = self._graph(_package)
        return sorted(sorted(c) for c in nx.strongly_connected_components(graph) if len(c) > 1)

    def module_cycles(self) -> list[list[str]]:
        known = self.modules
        graph = self._graph(lambda name: name if name in known else None, SOURCES)
        return sorted(sorted(c) for c in nx.strongly_connected_components(graph) if len(c) > 1)

    # -- upward ---------------------------------------------------------------------------
    def upward(self) -> list[Import]:
        floors = _floors()
        out = []
        for i in self.imports:
            if i.type_only:
                continue
            a, b = _floor_of(i.module, floors), _floor_of(i.target, floors)
            if a is not None and b is not None and b < a:
                out.append(i)
        return out


def _in(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def _package(name: str) -> str | None:
    parts = name.split(".")
    if parts[0] != "engine" or len(parts) < 2:
        return None
    return ".".join(parts[:2])


def _floors() -> list[list[str]]:
    """pyproject.toml's layers, top floor first."""
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())
    for contract in data["tool"]["importlinter"]["contracts"]:
        if contract["type"] == "layers":
            return [[p.strip() for p in layer.split(":")] for layer in contract["layers"]]
    return []


def _floor_of(module: str, floors: list[list[str]]) -> int | None:
    """The floor's index counted from the top (0), or None outside the contract."""
    for index, floor in enumerate(floors):
        if any(_in(module, p) for p in floor):
            return index
    return None


def _module_name(path: Path, root: Path) -> tuple[str, bool]:
    parts = list(path.relative_to(root).with_suffix("").parts)
    is_package = parts[-1] == "__init__"
    if is_package:
        parts = parts[:-1]
    return ".".join(parts), is_package


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


DEFERRING = ("lazy", "load", "require")  # engine.core.optional's ways to import later


def _deferred(node: ast.AST) -> str | None:
    """The module named by ``optional.lazy("name")`` (``load``, ``require``), else None."""
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "optional"
        and node.func.attr in DEFERRING
        and node.args
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str)
    ):
        return node.args[0].value
    return None


def _walk(node: ast.AST, in_function: bool, type_only: bool):
    """Every import node (and deferred import call) with whether it sits in a function or under
    ``if TYPE_CHECKING``."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.Import | ast.ImportFrom) or _deferred(child):
            yield child, in_function, type_only
            yield from _walk(child, in_function, type_only)
        elif isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            yield from _walk(child, True, type_only)
        elif isinstance(child, ast.If) and _is_type_checking(child.test):
            for sub in child.body:
                yield from _walk_one(sub, in_function, True)
            for sub in child.orelse:
                yield from _walk_one(sub, in_function, type_only)
        else:
            yield from _walk(child, in_function, type_only)


def _walk_one(node: ast.AST, in_function: bool, type_only: bool):
    if isinstance(node, ast.Import | ast.ImportFrom) or _deferred(node):
        yield node, in_function, type_only
        yield from _walk(node, in_function, type_only)
    elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        yield from _walk(node, True, type_only)
    else:
        yield from _walk(node, in_function, type_only)


def _targets(node: ast.Import | ast.ImportFrom, module: str, is_package: bool, known: set[str]):
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if node.level:
        base = module.split(".")
        if not is_package:
            base = base[:-1]
        base = base[: len(base) - (node.level - 1)] if node.level > 1 else base
        source = ".".join(base + ([node.module] if node.module else []))
    else:
        source = node.module or ""
    out = []
    for alias in node.names:
        sub = f"{source}.{alias.name}"
        out.append(sub if sub in known else source)
    return list(dict.fromkeys(out))


def measure(root: Path = ROOT) -> Measures:
    files = [p for name in SOURCES for p in sorted((root / name).rglob("*.py"))]
    result = Measures()
    names = {}
    for path in files:
        name, is_package = _module_name(path, root)
        names[path] = (name, is_package)
        result.modules.add(name)
    for path in (p for name in MARKED for p in sorted((root / name).rglob("*.py"))):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if NOQA.search(line):
                result.noqa.append((str(path.relative_to(root)), number))
    for path in files:
        name, is_package = names[path]
        text = path.read_text(encoding="utf-8")
        tree = ast.parse(text, filename=str(path))
        for node, in_function, type_only in _walk(tree, False, False):
            if isinstance(node, ast.Call):  # counted in the graph, not as a function-level import
                target = _deferred(node)
                result.imports.append(Import(name, target, node.lineno, False, type_only, True))
                continue
            for target in _targets(node, name, is_package, result.modules):
                result.imports.append(Import(name, target, node.lineno, in_function, type_only))
    return result


def _by_package(imports: list[Import]) -> str:
    counts = Counter(_package(i.module) or i.module.split(".")[0] for i in imports)
    return ", ".join(f"{k.removeprefix('engine.')} {v}" for k, v in counts.most_common())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--list", action="store_true", help="list every offending import")
    args = parser.parse_args(argv)
    m = measure()
    engine_fn = m.function_level_engine()
    third = m.function_level_third_party()
    app_fn = m.function_level_app()
    print(f"function-level engine imports outside the entry points: {len(engine_fn)}"
          f"  ({_by_package(engine_fn)})")  # fmt: skip
    print(f"function-level third-party imports outside the entry points: {len(third)}"
          f"  ({_by_package(third)})")  # fmt: skip
    print(f"function-level imports of our modules in the app: {len(app_fn)}"
          f"  ({_by_package(app_fn)})")  # fmt: skip
    print(f"PLC0415 noqa markers: {len(m.noqa)}")
    print(f"package cycles: {len(m.package_cycles())}  {m.package_cycles()}")
    print(f"module cycles: {len(m.module_cycles())}")
    print(f"upward imports: {len(m.upward())}")
    if args.list:
        listed = (("engine, function level", engine_fn), ("third party", third),
                  ("app, function level", app_fn), ("upward", m.upward()))  # fmt: skip
        for title, rows in listed:
            print(f"\n{title}:")
            for i in rows:
                print(f"  {i.module}:{i.line} -> {i.target}")
        print("\nmodule cycles:")
        for cycle in m.module_cycles():
            print("  " + " <-> ".join(cycle))
    return 0


if __name__ == "__main__":
    sys.exit(main())
