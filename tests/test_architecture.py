"""The package's import layering, read from its source with `ast`.

Every import statement counts: at module level, inside a function, under
`if TYPE_CHECKING:`. The core (`gpulint.*` less rules and fixers) has no import cycle; a
function-level import never closes one (hiding a cycle until the function runs); the core
reaches rules and fixers only through the registry's discovery, and the front-ends never
import a rule or a fixer at all.
"""

from __future__ import annotations

import ast
import os
import tomllib
from dataclasses import dataclass
from pathlib import Path


ROOT = Path(__file__).resolve().parent.parent
#: The packages the checks cover: the core, the rules and the fixers (the benchmark
#: harness ships in the same namespace but is no part of the linter).
COVERED = ("gpulint", "gpulint.rules", "gpulint.fixers")
PLUGINS = ("gpulint.rules", "gpulint.fixers")

#: Imports of a rule or fixer package that the core may make: the registry imports
#: `gpulint.rules` to walk it (and each fixer by name, with `importlib`).
DISCOVERY = {("gpulint.registry", "gpulint.rules")}

#: Front-ends: how a user or another tool reaches gpulint.
FRONT_ENDS = (
    "gpulint.cli",
    "gpulint.flake8_plugin",
    "gpulint.pylint_plugin",
    "gpulint.hosted",
    "gpulint.lsp",
    "gpulint.runner",
    "gpulint.notebook",
    "gpulint.pipeline",
)

#: Function-level imports of a gpulint module that may close a cycle, with the reason each
#: is needed. Keep it empty: move the shared code to a module both sides can import.
ALLOWED_LATE: dict[tuple[str, str], str] = {}


@dataclass(frozen=True)
class Import:
    source: str  # the importing module
    target: str  # the gpulint module imported
    line: int
    late: bool  # inside a function
    typing_only: bool  # under `if TYPE_CHECKING:`

    def __str__(self) -> str:
        where = " (in a function)" if self.late else " (under TYPE_CHECKING)" if self.typing_only else ""
        return f"{self.source}:{self.line} imports {self.target}{where}"


def _modules() -> dict[str, Path]:
    """Every module of the covered packages, by dotted name, from `pyproject.toml`'s
    `package-dir` (symbolic links to folders are not followed)."""
    folders = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]
    modules: dict[str, Path] = {}
    for package in COVERED:
        base = ROOT / folders[package]
        for folder, subfolders, files in os.walk(base):
            subfolders[:] = [name for name in subfolders if name != "__pycache__"]
            parts = Path(folder).relative_to(base).parts
            if any(".".join((package, *parts[:depth])) in COVERED for depth in range(1, len(parts) + 1)):
                continue  # a package of its own (`gpulint.rules` is not under `linter/`)
            for name in files:
                if name.endswith(".py"):
                    stem = () if name == "__init__.py" else (name[:-3],)
                    modules[".".join((package, *parts, *stem))] = Path(folder, name)
    return modules


MODULES = _modules()


def _is_type_checking(test: ast.expr) -> bool:
    return (
        isinstance(test, ast.Name)
        and test.id == "TYPE_CHECKING"
        or isinstance(test, ast.Attribute)
        and test.attr == "TYPE_CHECKING"
    )


def _imports_of(module: str, path: Path) -> list[Import]:
    return _imports_in(module, path.name == "__init__.py", path.read_text(encoding="utf-8"))


def _imports_in(module: str, is_package: bool, text: str) -> list[Import]:
    """The gpulint modules that `module` (whose source is `text`) imports; `from package
    import name` counts as an import of `package.name` where that is a module."""
    package = module if is_package else module.rpartition(".")[0]
    found: list[Import] = []

    def visit(node: ast.AST, late: bool, typing_only: bool) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            late = True
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.body:
                visit(child, late, True)
            for child in node.orelse:
                visit(child, late, typing_only)
            return
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                imported = ".".join(base + ([node.module] if node.module else []))
            else:
                imported = node.module or ""
            targets = [
                f"{imported}.{alias.name}" if f"{imported}.{alias.name}" in MODULES else imported
                for alias in node.names
            ]
        for target in dict.fromkeys(targets):
            if target in MODULES and target != module:
                found.append(Import(module, target, node.lineno, late, typing_only))  # type: ignore[attr-defined]
        for child in ast.iter_child_nodes(node):
            visit(child, late, typing_only)

    visit(ast.parse(text), False, False)
    return found


IMPORTS = [found for module, path in sorted(MODULES.items()) for found in _imports_of(module, path)]


def _within(module: str, packages: tuple[str, ...]) -> bool:
    return any(module == package or module.startswith(package + ".") for package in packages)


def _is_core(module: str) -> bool:
    return not _within(module, PLUGINS)


def _reaches(graph: dict[str, set[str]], start: str, goal: str) -> bool:
    seen, stack = {start}, [start]
    while stack:
        for nxt in graph.get(stack.pop(), ()):
            if nxt == goal:
                return True
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    return False


def _graph(imports: list[Import]) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for found in imports:
        graph.setdefault(found.source, set()).add(found.target)
    return graph


def _closes_cycle(found: Import, imports: list[Import]) -> bool:
    """Whether the import's target leads back to its source."""
    return _reaches(_graph(imports), found.target, found.source)


CORE_IMPORTS = [found for found in IMPORTS if _is_core(found.source) and _is_core(found.target)]


def test_the_modules_and_imports_are_found():
    """The checks below see the whole package (a wrong root would make them pass vacuously)."""
    for module in ("gpulint", "gpulint.engine", "gpulint.lsp.server", "gpulint.rules", "gpulint.fixers"):
        assert module in MODULES
    assert any(_within(module, ("gpulint.rules",)) and module.count(".") == 3 for module in MODULES)
    sources = {found.source for found in IMPORTS}
    assert "gpulint.engine" in sources and any(_within(source, PLUGINS) for source in sources)


def test_every_kind_of_import_is_read():
    text = (
        "import typing\n"
        "from typing import TYPE_CHECKING\n"
        "import gpulint.source\n"
        "from .. import registry, not_a_module\n"
        "from ..engine import analyze\n"
        "if TYPE_CHECKING:\n"
        "    from ..fixing import FixContext\n"
        "if typing.TYPE_CHECKING:\n"
        "    from . import actions\n"
        "else:\n"
        "    from .positions import UTF8\n"
        "def late():\n"
        "    from gpulint.notebook import lint_cells\n"
        "    return lambda: __import__('gpulint.noqa')\n"
    )
    found = {(f.target, f.late, f.typing_only) for f in _imports_in("gpulint.lsp.server", False, text)}
    assert found == {
        ("gpulint.source", False, False),
        ("gpulint.registry", False, False),
        ("gpulint", False, False),
        ("gpulint.engine", False, False),
        ("gpulint.fixing", False, True),
        ("gpulint.lsp.actions", False, True),
        ("gpulint.lsp.positions", False, False),
        ("gpulint.notebook", True, False),
    }


def test_no_import_cycle_among_the_core_modules():
    imports = CORE_IMPORTS
    cycles = [str(found) for found in imports if _closes_cycle(found, imports)]
    assert not cycles, "imports that close a cycle among the core modules:\n" + "\n".join(cycles)


def test_no_function_level_import_closes_a_cycle():
    """A late import must not hide a cycle, in the core or between rules, fixers and the
    core; the exceptions are listed in ALLOWED_LATE with their reason."""
    imports = IMPORTS
    hiding = [
        str(found)
        for found in imports
        if found.late and (found.source, found.target) not in ALLOWED_LATE and _closes_cycle(found, imports)
    ]
    assert not hiding, "function-level imports that close a cycle:\n" + "\n".join(hiding)


def test_allowed_late_imports_are_still_needed():
    late = {(found.source, found.target) for found in IMPORTS if found.late}
    assert not set(ALLOWED_LATE) - late, "listed in ALLOWED_LATE but no longer imported in a function"


def test_the_core_reaches_rules_and_fixers_only_through_discovery():
    direct = [
        str(found)
        for found in IMPORTS
        if _is_core(found.source) and not _is_core(found.target) and (found.source, found.target) not in DISCOVERY
    ]
    assert not direct, "core modules importing a rule or fixer:\n" + "\n".join(direct)


def test_front_ends_import_no_rule_or_fixer():
    direct = [str(found) for found in IMPORTS if _within(found.source, FRONT_ENDS) and _within(found.target, PLUGINS)]
    assert not direct, "front-ends importing a rule or fixer:\n" + "\n".join(direct)


def test_rules_and_fixers_import_no_front_end():
    """Rules and fixers build on the rule API, never on a way of running gpulint."""
    upward = [str(found) for found in IMPORTS if _within(found.source, PLUGINS) and _within(found.target, FRONT_ENDS)]
    assert not upward, "rules or fixers importing a front-end:\n" + "\n".join(upward)
