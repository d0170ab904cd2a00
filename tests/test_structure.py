"""What rules and fixers may do, read from their source with `ast`: they ask the core for
scope, loop and call facts; they build none of their own, walk no whole file, and keep no
cache of their own (the file's semantic index answers once per file: `remember`)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PLUGIN_FILES = sorted([*(ROOT / "rules").rglob("*.py"), *(ROOT / "fixers").rglob("*.py")])
#: A class that gathers what a scope or a loop does: the semantic index's and loop_effects' job.
FACT_CLASS = re.compile(r"(Scope|Loop)\w*Facts$|^_?(Scope|Loop)(Uses|Effects|Summary|Changes)$")
#: Expressions that are a whole file's tree.
WHOLE_FILE = frozenset({"tree", "ctx.tree", "self.tree", "index.tree", "ctx.semantic.tree"})
#: Caches that outlive a file, or hide on objects: the index's `remember` is the one cache.
CACHE_DECORATORS = frozenset({"lru_cache", "cache", "functools.cache", "functools.lru_cache"})
WEAK_TABLES = frozenset({"WeakKeyDictionary", "WeakValueDictionary"})
#: Memos that are no per-file answers, with the reason each is one.
ALLOWED_MEMOS = {("rules/syntax_error.py", "_with_target"): "one subclass per Python version, made once per process"}


def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def _where(path: Path, node: ast.AST) -> str:
    return f"{path.relative_to(ROOT)}:{getattr(node, 'lineno', 0)}"


@pytest.fixture(scope="module")
def trees() -> dict[Path, ast.Module]:
    assert PLUGIN_FILES, "no rule or fixer modules found"
    return {path: _tree(path) for path in PLUGIN_FILES}


def test_rules_and_fixers_define_no_scope_or_loop_fact_classes(trees):
    found = [
        _where(path, node)
        for path, tree in trees.items()
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef) and FACT_CLASS.search(node.name)
    ]
    assert found == [], "ask SemanticIndex (local, uses) or loop_effects (summary, loop_changes) instead"


def test_rules_and_fixers_walk_no_whole_file(trees):
    found = [
        _where(path, node)
        for path, tree in trees.items()
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and ast.unparse(node.func) in ("ast.walk", "walk_local")
        and node.args
        and ast.unparse(node.args[0]) in WHOLE_FILE
    ]
    assert found == [], "a whole-file question belongs to the semantic index, answered once per file"


def test_rules_and_fixers_keep_no_cache_of_their_own(trees):
    found = []
    for path, tree in trees.items():
        for node in ast.walk(tree):
            hidden = isinstance(node, ast.Attribute) and node.attr == "__dict__"
            if hidden or isinstance(node, ast.Name) and node.id in WEAK_TABLES:
                found.append(_where(path, node))
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and _memoized(node):
                if (str(path.relative_to(ROOT)), node.name) not in ALLOWED_MEMOS:
                    found.append(_where(path, node))
    assert found == [], "keep per-file answers in SemanticIndex.remember"


def _memoized(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return any(
        ast.unparse(decorator.func if isinstance(decorator, ast.Call) else decorator) in CACHE_DECORATORS
        for decorator in function.decorator_list
    )


def test_the_checks_see_what_they_forbid():
    sample = ast.parse(
        "class _LoopFacts: pass\nclass ScopeFacts: pass\nfor n in ast.walk(ctx.tree): pass\n"
        "cache = self.__dict__.setdefault('x', {})\n@lru_cache\ndef f(): pass\n"
    )
    classes = [n.name for n in ast.walk(sample) if isinstance(n, ast.ClassDef) and FACT_CLASS.search(n.name)]
    walks = [n for n in ast.walk(sample) if isinstance(n, ast.Call) and ast.unparse(n.func) == "ast.walk"]
    assert classes == ["_LoopFacts", "ScopeFacts"]
    assert [ast.unparse(w.args[0]) for w in walks] == ["ctx.tree"]
    assert any(isinstance(n, ast.Attribute) and n.attr == "__dict__" for n in ast.walk(sample))
    assert [n.name for n in ast.walk(sample) if isinstance(n, ast.FunctionDef) and _memoized(n)] == ["f"]


#: What a rule module may import of gpulint: the rule API, the library specs, and its own
#: family's shared modules.
SPECS = frozenset(
    {
        "gpulint.rule_api",
        "gpulint.pandas_api",
        "gpulint.numpy_api",
        "gpulint.torch_api",
        "gpulint.accelerate_api",
        "gpulint.dask_api",
        "gpulint.datasets_api",
        "gpulint.display_api",
        "gpulint.networkx_api",
        "gpulint.estimators",
    }
)


def test_rules_import_only_the_rule_api_and_the_library_specs(trees):
    found = []
    for path, tree in trees.items():
        if path.parts[len(ROOT.parts)] != "rules":
            continue
        for node in ast.walk(tree):
            modules = []
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                modules = [node.module]
            elif isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            for module in modules:
                allowed = module in SPECS or module.startswith(("gpulint.rules.", "gpulint.plans."))
                if module.startswith("gpulint") and not allowed:
                    found.append(f"{_where(path, node)} imports {module}")
    assert found == [], "rules reach the core through gpulint.rule_api"


def _imported(tree: ast.Module, package: str = "") -> list[tuple[ast.stmt, str]]:
    """Each import of the module (at any depth), with the module it names; a relative one
    resolved against `package` (the importing module's package)."""
    found: list[tuple[ast.stmt, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node, node.module))
        elif isinstance(node, ast.ImportFrom) and node.level and package:
            base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
            found.append((node, f"{base}.{node.module}" if node.module else base))
        elif isinstance(node, ast.Import):
            found.extend((node, alias.name) for alias in node.names)
    return found


def test_fixers_import_no_rule_internals(trees):
    """A fixer reads what its rule decided from the rule's plan (`gpulint.plans`), never
    from the rule's module: the rule can change how it finds without touching the fixer."""
    found = [
        f"{_where(path, node)} imports {module}"
        for path, tree in trees.items()
        if path.parts[len(ROOT.parts)] == "fixers"
        for node, module in _imported(tree)
        if module == "gpulint.rules" or module.startswith("gpulint.rules.")
    ]
    assert found == [], "move what the fixer needs into the rule's plan module (gpulint.plans)"


def test_plans_import_no_rule_or_fixer():
    """The plans are the contract between both sides: they depend on neither."""
    found = [
        f"{path.relative_to(ROOT)} imports {module}"
        for path in sorted((ROOT / "linter" / "plans").glob("*.py"))
        for _, module in _imported(_tree(path), "gpulint.plans")
        if module.startswith(("gpulint.rules", "gpulint.fixers"))
    ]
    assert found == []
