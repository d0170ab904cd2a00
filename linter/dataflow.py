"""Straight-line data flow within one function: which statement last bound a name.

The type evidence says what kind of value a name holds; some rules also need to know
*how* it got it (`Xs = scaler.fit_transform(X)`, `X_train, X_test = train_test_split(...)`)
to follow data from a fitted transformer to a split or an estimator. These helpers look
backwards from the engine's current position through the enclosing statement lists, never
past the enclosing function, and answer "unknown" (None) whenever control flow could have
bound the name some other way.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING
from weakref import WeakKeyDictionary

from .astutil import walk_local

if TYPE_CHECKING:
    from .engine import RuleContext

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_LOOPS = (ast.For, ast.AsyncFor, ast.While)


def binds(node: ast.AST, name: str) -> bool:
    """`node` binds `name` in the scope it runs in (nested functions' insides excluded)."""
    return name in bound_names(node)


def bound_names(node: ast.AST) -> frozenset[str]:
    """Every name `node` binds in the scope it runs in, worked out once per node: rules ask
    about the same statements for many names as they look back from each call."""
    found = _BOUND.get(node)
    if found is None:
        names = set()
        for sub in walk_local([node]):
            if isinstance(sub, ast.Name) and not isinstance(sub.ctx, ast.Load):
                names.add(sub.id)
            elif isinstance(sub, _SCOPES):
                names.add(sub.name)
            elif isinstance(sub, ast.alias):
                names.add(sub.asname or sub.name.split(".", 1)[0])
        found = _BOUND[node] = frozenset(names)
    return found


#: Per node, the names it binds. Dies with the tree.
_BOUND: "WeakKeyDictionary[ast.AST, frozenset[str]]" = WeakKeyDictionary()


def assigned_value(statement: ast.stmt, name: str) -> ast.expr | None:
    """The value of `name = value` (or `name: T = value`), else None."""
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
        target = statement.targets[0]
        if isinstance(target, ast.Name) and target.id == name:
            return statement.value
    if isinstance(statement, ast.AnnAssign) and statement.value is not None:
        if isinstance(statement.target, ast.Name) and statement.target.id == name:
            return statement.value
    return None


def _plain_assignment(statement: ast.stmt, name: str) -> bool:
    """An assignment statement that binds `name` as a whole target or one element of an
    unpacked tuple (`a, b = ...`), and nothing inside its value does."""
    if isinstance(statement, ast.AnnAssign):
        targets = [statement.target] if statement.value is not None else []
    elif isinstance(statement, ast.Assign):
        targets = statement.targets
    else:
        return False
    for target in targets:
        elements = target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]
        if any(isinstance(e, ast.Name) and e.id == name for e in elements):
            return not binds(statement.value, name)  # type: ignore[arg-type]
    return False


def position_in(block: list[ast.stmt], statement: ast.stmt) -> int | None:
    for index, candidate in enumerate(block):
        if candidate is statement:
            return index
    return None


def binding_before(ctx: "RuleContext", name: str) -> tuple[list[ast.stmt], int] | None:
    """The assignment statement that last bound `name` before the current statement, as
    (its block, its index there), looking back through the enclosing blocks of the current
    function. None when that is not a plain assignment (a loop target, an import, a
    parameter, a branch that may or may not have run, a loop that may rebind it later)."""
    for depth in range(len(ctx.statements) - 1, -1, -1):
        block = ctx.blocks[depth]
        index = position_in(block, ctx.statements[depth])
        if index is None:
            return None
        for earlier in range(index - 1, -1, -1):
            statement = block[earlier]
            if binds(statement, name):
                return (block, earlier) if _plain_assignment(statement, name) else None
        if depth == 0:
            return None
        outer = ctx.statements[depth - 1]
        if isinstance(outer, _SCOPES) or binds(outer, name):
            return None
    return None


def last_assignment(block: list[ast.stmt], before: int, name: str) -> tuple[int, ast.expr] | None:
    """Within one block: the index and value of the last `name = value` before index
    `before`, when no statement in between binds `name` any other way."""
    for index in range(before - 1, -1, -1):
        statement = block[index]
        if binds(statement, name):
            value = assigned_value(statement, name)
            return (index, value) if value is not None and not binds(value, name) else None
    return None
