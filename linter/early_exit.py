"""How many times a loop runs when its body ends it by counting (`if i > 2: break`), and
what in a loop runs once per loop (`if i == 0:`).

A preview loop reads a loader or a list for a look at a few items and leaves:

    for i, batch in enumerate(loader):
        show(batch.to(device))
        if i == 2:
            break

    shown = 0
    for graph in test_loader:
        explain(graph.to(device))
        shown += 1
        if shown > 2:
            break

Whatever the loop iterates, it runs at most three times: a copy or a sync per iteration,
or workers started for it, cost nothing worth a finding. `counted_iterations` answers with
that bound, from the code only:

- the counter is the index `enumerate` hands out (its `start` a literal, 0 by default) and
  neither the loop body nor the rest of the loop's target rebinds it; or a name bound to a literal integer by the last
  statement before the loop that binds it, that the body adds a positive literal to
  (`n += 1`) once, as a statement of its own, and binds nowhere else (the loop's target
  included), in a loop with no `continue` (which could skip the increment);
- the body ends the loop with an `if` among its own statements (not under another `if`,
  `with` or `try`) whose body ends with `break` and whose test is a comparison of the
  counter with a literal integer (`i > 2`, `i >= 3`, `i == 2`, `2 < i`), or an `or` one
  of whose operands is; no `continue` comes before that `if` or inside it (it could skip
  the test or the `break`);
- no nested function, lambda or class reads or rebinds the counter, and the scope does not
  declare it `global` or `nonlocal`.

A body that ends its first run with a `break` of its own (a statement of the body, no
`continue` before it) runs once: `for batch in loader: show(batch); break`.

Anything else is not counted (None): a bound from a variable (`if step >= args.max_steps`),
a test under a branch, a counter that moves another way.

`once_per_loop` answers the same kind of question for a statement: one in the body of an
`if` that tests the loop's index for equality with a literal (`for i in range(n): if i ==
0: ...`) runs at most once per run of the loop, since `range`'s and `enumerate`'s index
take each value once (when the body never rebinds it); so does one in the body of a lazy
start, `if features is None:` whose body binds `features`, which nothing else in the loop
binds.
"""

from __future__ import annotations

import ast
import math
from typing import TYPE_CHECKING

from .astutil import NESTED_SCOPES, STATEMENT_LOOPS, bound_here, bound_names, signed_int, walk_local

if TYPE_CHECKING:
    from .rule_base import RuleContext


def counted_iterations(loop: ast.AST, ctx: RuleContext) -> int | None:
    """At most how many times the `for` statement `loop` runs its body, when the body breaks
    out of it by a counter compared with a literal (see the module docstring), or once when
    a `break` of its own ends the body (no `continue` before it skips that); None when
    nothing in the code counts it. Answers are kept per loop (`SemanticIndex.remember`):
    every copy in a loop asks about the loops around it."""
    if not isinstance(loop, (ast.For, ast.AsyncFor)):
        return None
    return ctx.semantic.remember("counted_iterations", loop, lambda: _counted(loop, ctx))


def breaks_off_within(loop: ast.AST, ctx: RuleContext, most: int) -> bool:
    """The body of `loop` breaks out of it by a counter after at most `most` iterations."""
    counted = counted_iterations(loop, ctx)
    return counted is not None and counted <= most


def _counted(loop: ast.For | ast.AsyncFor, ctx: RuleContext) -> int | None:
    for index, statement in enumerate(loop.body):
        if isinstance(statement, ast.Break) and not _continues(loop.body[:index]):
            return 1  # `for batch in loader: ...; break`: a look at the first item
        limit = _break_test(statement)
        if limit is None:
            continue
        name, op, bound = limit
        if _continues(loop.body[: index + 1]):
            return None  # a `continue` before the test, or in it, skips the `break`
        counter = _counter(loop, name, ctx)
        if counter is None:
            return None
        start, step, exact = counter
        return _first_breaking_iteration(op, bound, start, step, exact)
    return None


def _break_test(statement: ast.stmt) -> tuple[str, type[ast.cmpop], int] | None:
    """`if <counter> <op> <literal>: ... break` (or the mirrored comparison, or an `or` with
    such an operand): the counter's name, the operator read as `counter op literal`, the
    literal."""
    if not (isinstance(statement, ast.If) and statement.body and isinstance(statement.body[-1], ast.Break)):
        return None
    tests = (
        statement.test.values
        if isinstance(statement.test, ast.BoolOp) and isinstance(statement.test.op, ast.Or)
        else [statement.test]
    )
    for test in tests:
        found = _counter_comparison(test)
        if found is not None:
            return found
    return None


_MIRRORED = {ast.Lt: ast.Gt, ast.LtE: ast.GtE, ast.Eq: ast.Eq}


def _counter_comparison(test: ast.expr) -> tuple[str, type[ast.cmpop], int] | None:
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return None
    left, op, right = test.left, type(test.ops[0]), test.comparators[0]
    if isinstance(left, ast.Name) and signed_int(right) is not None and op in (ast.Gt, ast.GtE, ast.Eq):
        return left.id, op, signed_int(right)  # type: ignore[return-value]
    if isinstance(right, ast.Name) and signed_int(left) is not None and op in _MIRRORED:
        return right.id, _MIRRORED[op], signed_int(left)  # type: ignore[return-value]
    return None


def _counter(loop: ast.For | ast.AsyncFor, name: str, ctx: RuleContext) -> tuple[int, int, bool] | None:
    """How `name` counts the iterations of `loop`: its value at the first test, the step,
    and whether the value at the n-th test is exactly start + step * (n - 1) (enumerate's
    index) or at least that (a name the body increments before or after the test)."""
    if ctx.seen_elsewhere(name, ctx.statement_scope):
        return None
    if name in bound_names(loop.body):
        increment = next((s for s in loop.body if _increment_of(s, name) is not None), None)
        if (
            increment is None
            or name in bound_names([loop.target, *(s for s in loop.body if s is not increment)])
            or _continues(loop.body)
        ):
            return None
        start = _start_before(loop, name, ctx)
        return None if start is None else (start, _increment_of(increment, name), False)  # type: ignore[return-value]
    iterable = loop.iter
    if ctx.env.enumerated(iterable) is None or _distinct_index(loop, ctx) != name:
        return None
    assert isinstance(iterable, ast.Call)  # `enumerate(...)`, as `enumerated` said
    given = (
        iterable.args[1]
        if len(iterable.args) > 1
        else next((k.value for k in iterable.keywords if k.arg == "start"), None)
    )
    start = 0 if given is None else signed_int(given)
    return None if start is None else (start, 1, True)


def _first_breaking_iteration(op: type[ast.cmpop], bound: int, start: int, step: int, exact: bool) -> int | None:
    """The last iteration that can run before `counter op bound` holds at the test, when the
    counter's value at the n-th test is start + step * (n - 1) (at least that, unless
    `exact`)."""
    if op is ast.Gt:
        return 1 if start > bound else (bound - start) // step + 2
    if op is ast.GtE:
        return 1 if start >= bound else math.ceil((bound - start) / step) + 1
    # `==` holds only if the counter lands on the bound: it does when it starts there (and
    # is tested before it moves) or reaches it in whole steps
    if (bound - start) % step or bound < start or (bound == start and not exact):
        return None
    return (bound - start) // step + 1


def _increment_of(statement: ast.stmt, name: str) -> int | None:
    if (
        isinstance(statement, ast.AugAssign)
        and isinstance(statement.op, ast.Add)
        and isinstance(statement.target, ast.Name)
        and statement.target.id == name
    ):
        step = signed_int(statement.value)
        return step if step is not None and step > 0 else None
    return None


def _start_before(loop: ast.stmt, name: str, ctx: RuleContext) -> int | None:
    """The literal the last statement before `loop` (in its block) that binds `name` binds it
    to, when that statement is `name = <int>`."""
    parent = ctx.parent(loop)
    block = next(
        (getattr(parent, field) for field in ("body", "orelse", "finalbody") if loop in getattr(parent, field, ())),
        None,
    )
    if block is None:
        return None
    for statement in reversed(block[: block.index(loop)]):
        if name not in bound_names([statement]):
            continue
        if (
            isinstance(statement, ast.Assign)
            and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name)
            and statement.targets[0].id == name
        ):
            return signed_int(statement.value)
        return None
    return None


def _continues(statements: list[ast.stmt]) -> bool:
    """A `continue` of the loop these statements belong to (not one of a nested loop)."""
    stack: list[ast.AST] = list(statements)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Continue):
            return True
        if isinstance(node, (*STATEMENT_LOOPS, *NESTED_SCOPES)):
            stack.extend(getattr(node, "orelse", ()))  # a loop's `else` runs in the outer loop
            continue
        stack.extend(ast.iter_child_nodes(node))
    return False


def once_per_loop(ctx: RuleContext) -> bool:
    """The current statement runs at most once per run of the innermost loop: it is in the
    body of an `if` (of that loop, at any depth) whose test is the loop's index compared
    for equality with a literal (`if i == 0:`, or an `and` with such an operand), or a lazy
    start: `if features is None:` whose body binds `features`, which nothing else in the
    loop binds (the buffer is made on the first iteration, then kept)."""
    if not ctx.loops:
        return False
    loop = ctx.loops[-1]
    level = ctx.innermost_loop_level()
    if not isinstance(loop, STATEMENT_LOOPS) or level is None:
        return False
    index = _distinct_index(loop, ctx) if isinstance(loop, (ast.For, ast.AsyncFor)) else None
    for position in range(level + 1, len(ctx.statements) - 1):
        statement = ctx.statements[position]
        if not (isinstance(statement, ast.If) and ctx.blocks[position + 1] is statement.body):
            continue
        if index is not None and _equals_literal(statement.test, index):
            return True
        if _started_lazily(statement, loop):
            return True
    return False


def _started_lazily(statement: ast.If, loop: ast.For | ast.AsyncFor | ast.While) -> bool:
    """`if name is None:` (or an `and` with that operand) whose body binds `name`, bound
    nowhere else in the loop."""
    test = statement.test
    tests = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) else [test]
    names = [name for name in map(_none_test, tests) if name is not None]
    return any(_set_only_there(name, statement, loop) for name in names)


def _none_test(test: ast.expr) -> str | None:
    """`name` of a test `name is None`."""
    if (
        isinstance(test, ast.Compare)
        and isinstance(test.left, ast.Name)
        and len(test.ops) == 1
        and isinstance(test.ops[0], ast.Is)
        and isinstance(test.comparators[0], ast.Constant)
        and test.comparators[0].value is None
    ):
        return test.left.id
    return None


def _set_only_there(name: str, statement: ast.If, loop: ast.For | ast.AsyncFor | ast.While) -> bool:
    """The body of `statement` binds `name`, and nothing else in `loop` (its target included)."""
    if name not in bound_names(statement.body):
        return False
    inside = {id(node) for node in walk_local(statement.body)}
    targets = [loop.target] if isinstance(loop, (ast.For, ast.AsyncFor)) else []
    others = (node for node in walk_local([*targets, *loop.body]) if id(node) not in inside)
    return not any(name in bound_here(node) for node in others)


def _distinct_index(loop: ast.For | ast.AsyncFor, ctx: RuleContext) -> str | None:
    """The name that takes a different value on every iteration of `loop`: the target of
    `for i in range(...)`, or the index of `for i, x in enumerate(...)`, which nothing
    else in the loop (its body, the rest of its target, another scope) rebinds."""
    target, iterable = loop.target, loop.iter
    if (
        isinstance(target, ast.Name)
        and isinstance(iterable, ast.Call)
        and isinstance(iterable.func, ast.Name)
        and iterable.func.id == "range"
        and ctx.env.is_builtin("range")
    ):
        name, others = target.id, []
    elif (
        ctx.env.enumerated(iterable) is not None
        and isinstance(target, (ast.Tuple, ast.List))
        and target.elts
        and isinstance(target.elts[0], ast.Name)
    ):
        name, others = target.elts[0].id, target.elts[1:]
    else:
        return None
    if name in bound_names([*others, *loop.body]) or ctx.seen_elsewhere(name, ctx.statement_scope):
        return None
    return name


def _equals_literal(test: ast.expr, name: str) -> bool:
    tests = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) else [test]
    return any(
        found is not None and found[0] == name and found[1] is ast.Eq for found in map(_counter_comparison, tests)
    )
