"""Which names a loop leaves behind for the code after it.

A fixer that replaces a loop with one statement drops the names the loop binds: its target
(`i` of `for i in ...`) and whatever its body assigns. Code that reads one of them after
the loop would then see the value bound before the loop, or raise `NameError`.
`names_read_after` finds those names; a fixer declines its rewrite when there are any.

Read after the loop means, within the loop's scope:

- later in the order statements run: a plain reassignment (`i = 0`) that every path
  reaches ends the search, a later `for i in ...` reads its own `i` inside its body, and a
  `break`, `continue`, `try` or `with` on the way may skip a reassignment;
- anywhere in a loop that encloses it (the next iteration), the rewritten loop's own body
  aside;
- in a nested function, lambda or class that may see the name, or through
  `global`/`nonlocal`, or through `locals()`, `vars()`, `dir()`, `eval()`, `exec()`.

A loop in a class body binds class attributes: all of its names count as read.

A loop's site is what the engine's `RuleContext.statements` and `.blocks` hold at the loop,
zipped: the enclosing statements, outermost first, each with the block that holds it.
What a scope reads comes from the file's semantic index (`LocalUses`).
"""

from __future__ import annotations

import ast
from bisect import bisect_left
from dataclasses import dataclass, field

from gpulint.astutil import bound_names
from gpulint.fixing import Decline
from gpulint.semantic import LocalUses, SemanticIndex

#: A loop's site: (statement, the block holding it) pairs, outermost first, the loop last.
Site = tuple[tuple[ast.stmt, list[ast.stmt]], ...]
Position = tuple[int, int]

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_LOOPS = (ast.For, ast.AsyncFor, ast.While)
#: Statements from inside which an exception may reach the code after them, skipping the rest.
_GUARDS = (ast.Try, ast.With, ast.AsyncWith, *((ast.TryStar,) if hasattr(ast, "TryStar") else ()))

#: What running a statement (or the rest of a block) does to a name: (reads it before
#: rebinding it, rebinds it on every path, may have jumped past a rebinding with
#: `break`/`continue`).
_Outcome = tuple[bool, bool, bool]


def names_read_after(site: Site, index: SemanticIndex, kept: frozenset[str] = frozenset()) -> set[str]:
    """The names the loop at the end of `site` binds, other than `kept` (those its rewrite
    still binds), that code after the loop may read."""
    loop = site[-1][0]
    parts = [loop.test] if isinstance(loop, ast.While) else [loop.target]  # type: ignore[attr-defined]
    names = bound_names([*parts, *loop.body, *loop.orelse]) - kept  # type: ignore[attr-defined]
    if not names:
        return set()
    depth = max((i for i, (statement, _) in enumerate(site[:-1]) if isinstance(statement, _SCOPES)), default=-1)
    scope = site[depth][0] if depth >= 0 else index.tree
    if isinstance(scope, ast.ClassDef):
        return names
    facts = index.remember("names read after a loop", scope, lambda: _Facts(index.uses(scope)))
    uses = facts.uses
    if uses.dynamic:
        return names
    return {
        name
        for name in names
        if name in uses.declared or name in uses.free_in or _read_later(site[depth + 1 :], name, facts)
    }


@dataclass
class _Facts:
    """A scope's reads, jumps and declarations (the semantic index's `LocalUses`), and the
    answers worked out from them per block, kept in the file's index as queries need them
    (see `_suffixes`)."""

    uses: LocalUses
    suffixes: dict[tuple[int, str], list[tuple[_Outcome, _Outcome]]] = field(default_factory=dict)
    positions: dict[int, dict[int, int]] = field(default_factory=dict)


def _start(node: ast.AST) -> Position:
    return node.lineno, node.col_offset  # type: ignore[attr-defined]


def _end(node: ast.AST) -> Position:
    return node.end_lineno, node.end_col_offset  # type: ignore[attr-defined]


def _any_within(
    positions: list[Position], nodes: tuple[ast.AST, ...] | list[ast.AST], skip: tuple[Position, Position] | None = None
) -> bool:
    """One of the sorted `positions` lies inside one of `nodes` (and outside `skip`)."""
    for node in nodes:
        end = _end(node)
        index = bisect_left(positions, _start(node))
        while index < len(positions) and positions[index] < end:
            if skip is None or not skip[0] <= positions[index] < skip[1]:
                return True
            index += 1
    return False


def _read_later(path: Site, name: str, facts: _Facts) -> bool:
    """Whether code that may run after the loop (the last statement of `path`, which
    starts at the scope's top level) reads `name` before rebinding it."""
    reads = facts.uses.reads.get(name, [])
    loop = path[-1][0]
    body = [*loop.body, *loop.orelse]  # type: ignore[attr-defined]
    skip = (_start(body[0]), _end(body[-1]))  # the loop's own body goes away with it
    rebound = jumped = False
    for level in range(len(path) - 1, -1, -1):
        statement, block = path[level]
        places = facts.positions.get(id(block))
        if places is None:
            places = facts.positions[id(block)] = {id(s): i for i, s in enumerate(block)}
        index = places[id(statement)]
        read, rebound, jumped = _rest_of_block(block, index + 1, name, jumped, facts)
        if read:
            return True
        if level == 0:
            return False
        outer = path[level - 1][0]
        if isinstance(outer, _GUARDS):
            # an exception may skip a rebinding and land in a handler, or after a `with`
            rebound = False
            if not isinstance(outer, (ast.With, ast.AsyncWith)) and _any_within(
                reads, [*outer.handlers, *outer.orelse, *outer.finalbody], skip
            ):  # type: ignore[attr-defined]
                return True
        if isinstance(outer, _LOOPS) and not rebound:
            head = [outer.test] if isinstance(outer, ast.While) else []
            if _any_within(reads, [*head, *outer.body, *outer.orelse], skip):
                return True  # the next iteration
        if rebound:
            return False
    return False


def _rest_of_block(block: list[ast.stmt], start: int, name: str, jumped: bool, facts: _Facts) -> _Outcome:
    """What `block[start:]` does to `name`, having jumped already or not. Worked out once
    per block and name, from the end, so that many loops in one block cost one pass."""
    table = facts.suffixes.get((id(block), name))
    if table is None:
        table = facts.suffixes[(id(block), name)] = _suffixes(block, name, facts)
    return table[start][jumped]


def _suffixes(block: list[ast.stmt], name: str, facts: _Facts) -> list[tuple[_Outcome, _Outcome]]:
    table: list[tuple[_Outcome, _Outcome]] = [((False, False, False), (False, False, True))]
    for statement in reversed(block):
        jumps = _any_within(facts.uses.jumps, [statement])
        row = []
        for jumped in (False, True):
            read, rebinds = _scan(statement, name, jumped, facts)
            after = jumped or jumps
            if read:
                row.append((True, False, after))
            elif rebinds and not after:
                row.append((False, True, after))
            else:
                row.append(table[-1][after])
        table.append((row[0], row[1]))
    table.reverse()
    return table


def _scan(statement: ast.stmt, name: str, jumped: bool, facts: _Facts) -> tuple[bool, bool]:
    """(reads `name` before rebinding it, rebinds it on every path) for one statement that
    runs after the loop."""
    reads = facts.uses.reads.get(name, [])
    if isinstance(statement, (ast.Assign, ast.AnnAssign)):
        targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
        rebinds = statement.value is not None and any(isinstance(t, ast.Name) and t.id == name for t in targets)
        return _any_within(reads, [statement]), rebinds
    if isinstance(statement, (ast.For, ast.AsyncFor)) and name in bound_names([statement.target]):
        # the body reads the loop's own value; the `else` may run with the old one
        return _any_within(reads, [statement.iter, *statement.orelse]), False
    if isinstance(statement, ast.If):
        if _any_within(reads, [statement.test]):
            return True, False
        body = _rest_of_block(statement.body, 0, name, jumped, facts)
        orelse = _rest_of_block(statement.orelse, 0, name, jumped, facts)
        return body[0] or orelse[0], body[1] and orelse[1]
    return _any_within(reads, [statement]), False


def plain_loop(loop: ast.For | ast.AsyncFor) -> Decline | None:
    """Why `loop` is not a plain `for` whose body is one statement, the shape the loop
    rewrites replace; None when it is one."""
    if isinstance(loop, ast.AsyncFor):
        return Decline("the loop is an `async for`")
    if loop.orelse:
        return Decline("the loop has an else clause")
    if len(loop.body) != 1:
        return Decline("the loop's body is more than one statement")
    return None
