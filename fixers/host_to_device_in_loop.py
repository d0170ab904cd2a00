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

from gpulint.diagnostic import Applicability, Diagnostic, Edit, Fix, Position
from gpulint.fixing import FixContext
from gpulint.rules.transfers.host_to_device_in_loop import LoopCopy

MESSAGE = "copy the loop-invariant data to the device once, before the loop"


def fix(diagnostic: Diagnostic, ctx: FixContext) -> Fix | None:
    found: LoopCopy = diagnostic.context  # type: ignore[assignment]
    hoist, move = found.hoist, found.move
    if found.applicability is Applicability.DISPLAY or hoist is None:
        return None
    loop = hoist.loop
    indent = ctx.indent_of(loop)
    if indent is None:
        return None
    newline = ctx.source.newline
    at_loop = Position(loop.lineno, 0)
    if hoist.shape == "statement":
        lines = _reindented(hoist.statement, indent, ctx)
        if lines is None:
            return None
        removal = Edit(Position(hoist.statement.lineno, 0), _after_line(hoist.statement.end_lineno, ctx), "")
        return Fix(found.applicability, MESSAGE, (Edit(at_loop, at_loop, lines), removal))
    copy = ctx.segment(move.call)
    if "\n" in copy or "\r" in copy:
        return None
    base = move.moved.id if isinstance(move.moved, ast.Name) else "moved"
    name = ctx.fresh_name(f"{base}_device")
    hoisted = Edit(at_loop, at_loop, f"{indent}{name} = {copy}{newline}")
    return Fix(found.applicability, MESSAGE, (hoisted, ctx.replace_node(move.call, name)))


def _after_line(line: int, ctx: FixContext) -> Position:
    if line < len(ctx.source.line_starts):
        return Position(line + 1, 0)
    return Position(line, len(ctx.source.line(line)))


def _reindented(statement: ast.stmt, indent: str, ctx: FixContext) -> str | None:
    """The statement's lines (its comment included) at the loop's indentation."""
    own = ctx.indent_of(statement)
    if own is None or not ctx.owns_lines(statement, statement):
        return None
    if statement.end_lineno != statement.lineno and any(
        isinstance(n, ast.Constant) and isinstance(n.value, (str, bytes)) and n.lineno != n.end_lineno
        for n in ast.walk(statement)
    ):
        return None  # a string spanning lines must not be re-indented
    newline = ctx.source.newline
    lines = []
    for number in range(statement.lineno, statement.end_lineno + 1):  # type: ignore[operator]
        line = ctx.source.line(number)
        if not line.startswith(own):
            return None
        lines.append(indent + line[len(own) :] + newline)
    return "".join(lines)
