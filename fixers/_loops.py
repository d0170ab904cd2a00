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
What a scope reads is gathered in one walk and kept while its tree lives.
"""

from __future__ import annotations

import ast
from bisect import bisect_left
from dataclasses import dataclass, field
from weakref import WeakKeyDictionary

from gpulint.astutil import NESTED_SCOPES, bound_names, evaluated_outside, free_names

#: A loop's site: (statement, the block holding it) pairs, outermost first, the loop last.
Site = tuple[tuple[ast.stmt, list[ast.stmt]], ...]
Position = tuple[int, int]

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)
#: Statements from inside which an exception may reach the code after them, skipping the rest.
_GUARDS = (ast.Try, ast.With, ast.AsyncWith, *((ast.TryStar,) if hasattr(ast, "TryStar") else ()))
#: Builtins that read a scope's names without naming them.
DYNAMIC_READERS = frozenset({"locals", "vars", "dir", "eval", "exec"})


def names_read_after(site: Site, tree: ast.Module, kept: frozenset[str] = frozenset()) -> set[str]:
    """The names the loop at the end of `site` binds, other than `kept` (those its rewrite
    still binds), that code after the loop may read."""
    loop = site[-1][0]
    parts = [loop.test] if isinstance(loop, ast.While) else [loop.target]  # type: ignore[attr-defined]
    names = bound_names([*parts, *loop.body, *loop.orelse]) - kept  # type: ignore[attr-defined]
    if not names:
        return set()
    depth = max((i for i, (statement, _) in enumerate(site[:-1]) if isinstance(statement, _SCOPES)), default=-1)
    scope = site[depth][0] if depth >= 0 else tree
    if isinstance(scope, ast.ClassDef):
        return names
    facts = _facts(scope)
    if facts.dynamic:
        return names
    return {name for name in names
            if name in facts.declared or name in facts.free or _read_later(site[depth + 1:], name, facts)}


@dataclass
class _ScopeFacts:
    """Where a scope reads each name (`Load`, `del`, augmented assignment), sorted by
    position; the names its nested scopes may see; its `global`/`nonlocal` names; whether
    it calls one of `DYNAMIC_READERS`."""

    reads: dict[str, list[Position]] = field(default_factory=dict)
    free: set[str] = field(default_factory=set)
    declared: set[str] = field(default_factory=set)
    dynamic: bool = False


_CACHE: "WeakKeyDictionary[ast.AST, _ScopeFacts]" = WeakKeyDictionary()


def _facts(scope: ast.AST) -> _ScopeFacts:
    facts = _CACHE.get(scope)
    if facts is None:
        facts = _CACHE[scope] = _gather(scope)
    return facts


def _gather(scope: ast.AST) -> _ScopeFacts:
    facts = _ScopeFacts()
    # (node, names a comprehension around it binds for itself)
    stack: list[tuple[ast.AST, frozenset[str]]] = [(s, frozenset()) for s in scope.body]  # type: ignore[attr-defined]
    while stack:
        node, own = stack.pop()
        if isinstance(node, NESTED_SCOPES):
            facts.free |= free_names(node)
            stack.extend((part, own) for part in evaluated_outside(node))
            continue
        if isinstance(node, _COMPREHENSIONS):
            first, *rest = node.generators
            stack.append((first.iter, own))  # evaluated in the enclosing scope
            inner = own | bound_names(g.target for g in node.generators)
            elements = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
            stack.extend((part, inner) for part in [*elements, first.target, *first.ifs, *rest])
            continue
        if isinstance(node, ast.Name) and node.id not in own and not isinstance(node.ctx, ast.Store):
            facts.reads.setdefault(node.id, []).append((node.lineno, node.col_offset))
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) and node.target.id not in own:
            facts.reads.setdefault(node.target.id, []).append((node.lineno, node.col_offset))
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            facts.declared.update(node.names)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in DYNAMIC_READERS:
            facts.dynamic = True
        stack.extend((child, own) for child in ast.iter_child_nodes(node))
    for positions in facts.reads.values():
        positions.sort()
    return facts


def _start(node: ast.AST) -> Position:
    return node.lineno, node.col_offset  # type: ignore[attr-defined]


def _end(node: ast.AST) -> Position:
    return node.end_lineno, node.end_col_offset  # type: ignore[attr-defined]


class _Reads:
    """Whether `name` is read inside a node, by position, leaving out the body of the loop
    being rewritten (which goes away with it)."""

    def __init__(self, name: str, facts: _ScopeFacts, loop: ast.stmt) -> None:
        self.positions = facts.reads.get(name, [])
        body = [*loop.body, *loop.orelse]  # type: ignore[attr-defined]
        self.skip = (_start(body[0]), _end(body[-1]))

    def within(self, *nodes: ast.AST) -> bool:
        for node in nodes:
            start, end = _start(node), _end(node)
            index = bisect_left(self.positions, start)
            while index < len(self.positions) and self.positions[index] < end:
                if not self.skip[0] <= self.positions[index] < self.skip[1]:
                    return True
                index += 1
        return False


def _read_later(path: Site, name: str, facts: _ScopeFacts) -> bool:
    """Whether code that may run after the loop (the last statement of `path`, which
    starts at the scope's top level) reads `name` before rebinding it."""
    reads = _Reads(name, facts, path[-1][0])
    state = _State()
    for level in range(len(path) - 1, -1, -1):
        statement, block = path[level]
        position = next(i for i, s in enumerate(block) if s is statement)
        if _scan_block(block[position + 1:], name, reads, state):
            return True
        if level == 0:
            return False
        outer = path[level - 1][0]
        if isinstance(outer, _GUARDS):
            # an exception may skip a rebinding and land in a handler, or after a `with`
            state.rebound = False
            if not isinstance(outer, (ast.With, ast.AsyncWith)) and reads.within(
                    *outer.handlers, *outer.orelse, *outer.finalbody):  # type: ignore[attr-defined]
                return True
        if isinstance(outer, _LOOPS) and not state.rebound:
            head = [outer.test] if isinstance(outer, ast.While) else []
            if reads.within(*head, *outer.body, *outer.orelse):
                return True  # the next iteration
        if state.rebound:
            return False
    return False


@dataclass
class _State:
    """`rebound`: every path from the loop has rebound the name; `jumped`: a `break` or
    `continue` between the loop and here may have skipped a rebinding."""

    rebound: bool = False
    jumped: bool = False


def _scan_block(statements: list[ast.stmt], name: str, reads: _Reads, state: _State) -> bool:
    """Whether the statements read `name` before every path rebinds it; records in `state`
    whether they rebind it."""
    for statement in statements:
        read, rebinds = _scan(statement, name, reads, state)
        if read:
            return True
        state.jumped |= any(isinstance(node, (ast.Break, ast.Continue)) for node in ast.walk(statement))
        if rebinds and not state.jumped:
            state.rebound = True
            return False
    return False


def _scan(statement: ast.stmt, name: str, reads: _Reads, state: _State) -> tuple[bool, bool]:
    """(reads `name` before rebinding it, rebinds it on every path) for one statement."""
    if isinstance(statement, (ast.Assign, ast.AnnAssign)):
        targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
        rebinds = statement.value is not None and any(isinstance(t, ast.Name) and t.id == name for t in targets)
        return reads.within(statement), rebinds
    if isinstance(statement, (ast.For, ast.AsyncFor)) and name in bound_names([statement.target]):
        # the body reads the loop's own value; the `else` may run with the old one
        return reads.within(statement.iter, *statement.orelse), False
    if isinstance(statement, ast.If):
        if reads.within(statement.test):
            return True, False
        branches = []
        for block in (statement.body, statement.orelse):
            branch = _State(jumped=state.jumped)
            if _scan_block(block, name, reads, branch):
                return True, False
            branches.append(branch.rebound)
        return False, all(branches)
    return reads.within(statement), False
