"""Small helpers over the standard library's `ast`, shared by rules and fixers.

Dependency-free on purpose: detectors run on `ast` only (libcst is for fixers).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator

#: Binary operators that work the same elementwise on columns and arrays as on scalars.
ARITHMETIC_OPERATORS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow)
#: Comparison operators that compare elementwise (not `is`, `in` and their negations).
COMPARISON_OPERATORS = (ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE)


def is_reference(node: ast.AST) -> bool:
    """A name or an attribute chain over a name (`frame`, `self.frame`): an expression
    that can be written twice without calling anything."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name)


def same_reference(a: ast.AST, b: ast.AST) -> bool:
    """Two spellings of the same name or attribute chain (`df`, `self.frame`)."""
    if isinstance(a, ast.Name) and isinstance(b, ast.Name):
        return a.id == b.id
    if isinstance(a, ast.Attribute) and isinstance(b, ast.Attribute):
        return a.attr == b.attr and same_reference(a.value, b.value)
    return False


def mentions(node: ast.AST, name: str) -> bool:
    """`name` occurs as a `Name` anywhere under `node` (read, written or deleted, nested
    functions and lambdas included)."""
    return any(isinstance(sub, ast.Name) and sub.id == name for sub in ast.walk(node))


def mentions_any(nodes: "ast.AST | list[ast.expr]", names: "set[str] | frozenset[str]") -> bool:
    """One of `names` occurs as a `Name` anywhere under `nodes` (one node or a list)."""
    roots = nodes if isinstance(nodes, list) else [nodes]
    return any(isinstance(sub, ast.Name) and sub.id in names for root in roots for sub in ast.walk(root))


def value_bound_to(statement: ast.stmt, name: str) -> ast.expr | None:
    """The value of an assignment statement with `name` as one of its whole targets
    (`name = v`, `a = name = v`, `name: T = v`), else None."""
    if isinstance(statement, ast.Assign):
        targets = statement.targets
    elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
        targets = [statement.target]
    else:
        return None
    return statement.value if any(isinstance(t, ast.Name) and t.id == name for t in targets) else None


def keyword_value(call: ast.Call, name: str) -> ast.expr | None:
    """The value passed to the call as `name=...`, if any."""
    return next((k.value for k in call.keywords if k.arg == name), None)


def all_args(args: ast.arguments) -> list[ast.arg]:
    """Every parameter: positional-only, positional, keyword-only, then `*args`, `**kwargs`."""
    every = [*args.posonlyargs, *args.args, *args.kwonlyargs]
    if args.vararg:
        every.append(args.vararg)
    if args.kwarg:
        every.append(args.kwarg)
    return every


#: Nodes whose body is a scope of its own (comprehensions aside).
NESTED_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def walk_local(nodes: Iterable[ast.AST]) -> Iterator[ast.AST]:
    """Every node under `nodes` (themselves included), in no particular order, without
    descending into nested functions, lambdas or classes: those nodes are yielded, their
    insides (decorators and defaults included) are not."""
    stack = list(nodes)
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, NESTED_SCOPES):
            stack.extend(ast.iter_child_nodes(node))
