"""What one function (or class body, or the module) does with its names, as GPU101's fix
decision needs it: gathered once per scope from the file's semantic index and kept in the
rule's per-file memo, so a file with many findings is walked a bounded number of times."""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass, field

from gpulint.astutil import all_args
from gpulint.semantic import SemanticIndex


@dataclass
class ScopeFacts:
    """The scope's own code, outside nested functions, lambdas and classes but with their
    decorators, defaults and annotations, which run in this scope."""

    #: The parent of a node (the index's parent map).
    parent: Callable[[ast.AST], ast.AST | None]
    params: frozenset[str] = frozenset()
    declared: set[str] = field(default_factory=set)  # `global`/`nonlocal` here
    #: name -> the nested functions, lambdas and classes that may read or rebind it
    outer_refs: dict[str, list[ast.AST]] = field(default_factory=dict)
    #: name -> (node, how) per binding; how: "call" (`name = f(...)`), "number" (`name = 0`),
    #: "list" (`name = [...]`), "augmented" (`name += ...`) or "other"
    bindings: dict[str, list[tuple[ast.AST, str]]] = field(default_factory=dict)
    star_import: bool = False  # `from m import *` may bind any name
    loads: dict[str, list[ast.Name]] = field(default_factory=dict)  # in source order


def scope_facts(scope: ast.AST, index: SemanticIndex, memo: dict) -> ScopeFacts:
    """The scope's facts, gathered on the first question about it (`memo` is per file)."""
    key = ("scope", id(scope))
    facts = memo.get(key)
    if facts is None:
        facts = memo[key] = _gather_scope(scope, index)
    return facts


def only_bound_as(name: str, kinds: tuple[str, ...], facts: ScopeFacts) -> bool:
    """Every binding of the local `name` is of one of these kinds (see `ScopeFacts.bindings`)."""
    bindings = facts.bindings.get(name)
    return (
        bool(bindings)
        and name not in facts.params
        and name not in facts.declared
        and name not in facts.outer_refs
        and all(how in kinds for _, how in bindings)
    )  # type: ignore[union-attr]


def _gather_scope(scope: ast.AST, index: SemanticIndex) -> ScopeFacts:
    """The scope's facts from the semantic index: its bindings, classified by what they
    bind (`_how_bound`), and its own code's reads and nested scopes' free names."""
    facts = ScopeFacts(index.parent)
    own = index.scope(scope)
    if own is None:
        return facts  # binds nothing known: every question about a name answers no
    if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
        facts.params = frozenset(a.arg for a in all_args(scope.args))
    uses = index.uses(scope)
    facts.declared, facts.outer_refs, facts.loads, facts.star_import = (
        own.declared,
        uses.free_in,
        uses.loads,
        uses.star_import,
    )
    for name, nodes in own.bindings.items():
        found = [
            (node.pattern if isinstance(node, ast.match_case) else node, _how_bound(node, name))
            for node in nodes
            if not isinstance(node, ast.arg)
        ]
        if found:
            facts.bindings[name] = found
    return facts


def _how_bound(binding: ast.AST, name: str) -> str:
    """How a binding node of the index binds `name`: "augmented", or by the value a plain
    `name = value` assigns, else "other"."""
    if isinstance(binding, ast.AugAssign):
        return "augmented"
    value = None
    if (
        isinstance(binding, ast.Assign)
        and len(binding.targets) == 1
        and isinstance(binding.targets[0], ast.Name)
        and binding.targets[0].id == name
        or isinstance(binding, ast.AnnAssign)
        and isinstance(binding.target, ast.Name)
        and binding.target.id == name
    ):
        value = binding.value
    if isinstance(value, ast.Call):
        return "call"
    if isinstance(value, ast.Constant) and type(value.value) in (int, float):
        return "number"
    if isinstance(value, (ast.List, ast.ListComp)):
        return "list"
    return "other"
