"""Fixer for GPU302 host-to-device-in-loop: copy loop-invariant data once, before the loop.

    for batch in batches:                     w_device = w.to(device)
        w_device = w.to(device)        ->     for batch in batches:
        use(batch, w_device)                      use(batch, w_device)

    for x in xs:                              weights_device = weights.to(device)
        f(x, weight=weights.to(device)) ->    for x in xs:
                                                  f(x, weight=weights_device)

The rule decides where this is the same computation (`LoopCopy.hoist`); the fixer only writes it.
"""

from __future__ import annotations

import ast

from gpulint.diagnostic import Applicability, Diagnostic, Edit, Position
from gpulint.fixing import Decline, FixContext, Plan, ready
from gpulint.plans.host_to_device_in_loop import LoopCopy

MESSAGE = "copy the loop-invariant data to the device once, before the loop"


def plan(diagnostic: Diagnostic, ctx: FixContext) -> Plan | Decline:
    found: LoopCopy = diagnostic.context  # type: ignore[assignment]
    hoist, move = found.hoist, found.move
    if found.applicability is Applicability.DISPLAY or hoist is None:
        return Decline("the rule found the copy not to be the same computation above the loop")
    loop = hoist.loop
    indent = ctx.indent_of(loop)
    if indent is None:
        return Decline("the loop shares its first line with other code")
    newline = ctx.source.newline
    at_loop = Position(loop.lineno, 0)
    if hoist.shape == "statement":
        lines = _reindented(hoist.statement, indent, ctx)
        if isinstance(lines, Decline):
            return lines
        removal = Edit(Position(hoist.statement.lineno, 0), _after_line(hoist.statement.end_lineno, ctx), "")
        return ready(found.applicability, MESSAGE, (Edit(at_loop, at_loop, lines), removal))
    copy = ctx.segment(move.call)
    if "\n" in copy or "\r" in copy:
        return Decline("the copy spans lines")
    base = move.moved.id if isinstance(move.moved, ast.Name) else "moved"
    name = ctx.fresh_name(f"{base}_device")
    hoisted = Edit(at_loop, at_loop, f"{indent}{name} = {copy}{newline}")
    return ready(found.applicability, MESSAGE, (hoisted, ctx.replace_node(move.call, name)))


def _after_line(line: int, ctx: FixContext) -> Position:
    if line < len(ctx.source.line_starts):
        return Position(line + 1, 0)
    return Position(line, len(ctx.source.line(line)))


def _reindented(statement: ast.stmt, indent: str, ctx: FixContext) -> str | Decline:
    """The statement's lines (its comment included) at the loop's indentation."""
    own = ctx.indent_of(statement)
    if own is None or not ctx.owns_lines(statement, statement):
        return Decline("the copy's statement shares its lines with other code")
    if statement.end_lineno != statement.lineno and any(
        isinstance(n, ast.Constant) and isinstance(n.value, (str, bytes)) and n.lineno != n.end_lineno
        for n in ast.walk(statement)
    ):
        return Decline("the statement holds a string spanning lines, which re-indenting would change")
    newline = ctx.source.newline
    lines = []
    for number in range(statement.lineno, statement.end_lineno + 1):  # type: ignore[operator]
        line = ctx.source.line(number)
        if not line.startswith(own):
            return Decline("the statement's lines are indented less than its first")
        lines.append(indent + line[len(own) :] + newline)
    return "".join(lines)
