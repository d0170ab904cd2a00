"""Renderer for GPU202 array-grown-in-loop: the list building the planner decided on, written with libcst."""

from __future__ import annotations

import ast

import libcst as cst

from gpulint.diagnostic import Edit
from gpulint.fixing import Decline, FixContext
from gpulint.plans.array_grown_in_loop import Growth

from .._growth import array_callee, joined
from .columns import comments_in


def rewrite(growth: Growth, ctx: FixContext) -> tuple[Edit, ...] | Decline:
    """The edits creating the list before the loop, appending to it in the loop and
    concatenating it once after the loop."""
    loop = growth.loop
    assert loop is not None
    statements = ctx.parse_statements(loop, loop)
    if statements is None or len(statements) != 1:
        return Decline("libcst does not read the loop as one statement")
    collected = ctx.fresh_name("parts")
    replacer = _ReplaceGrowth(growth.name, len(growth.pieces), collected)
    new_loop = statements[0].visit(replacer)
    if replacer.replaced != 1 or replacer.failed:
        return Decline("libcst reads the growth statement otherwise than the planner")
    function, import_edits = _callee(growth, ctx)
    try:
        first = cst.parse_statement(f"{collected} = [{growth.name}]").with_changes(
            leading_lines=statements[0].leading_lines
        )
        last = cst.parse_statement(f"{growth.name} = {joined(growth, collected, function, ctx)}")
    except cst.ParserSyntaxError:
        return Decline("libcst does not parse the concatenation after the loop")
    edit = ctx.replace_statements(loop, loop, [first, new_loop.with_changes(leading_lines=[]), last])
    return (*import_edits, edit)


def _callee(growth: Growth, ctx: FixContext) -> tuple[str, tuple[Edit, ...]]:
    """The one call after the loop, and the edits an import for it needs."""
    call = growth.call
    if growth.function == "append" and isinstance(call, ast.Call) and not isinstance(call.func, ast.Attribute):
        numpy_name, edits = ctx.ensure_import("numpy", "np")
        return array_callee(growth, ctx, numpy_name), edits
    return array_callee(growth, ctx), ()


class _ReplaceGrowth(cst.CSTTransformer):
    """Swap the growth statement for `<collected>.append(piece)` (or `.extend([...])`)."""

    def __init__(self, name: str, count: int, collected: str) -> None:
        self.name = name
        self.count = count
        self.collected = collected
        self.replaced = 0
        self.failed = False

    def leave_Assign(self, original: cst.Assign, updated: cst.Assign) -> cst.BaseSmallStatement:
        if not (
            len(updated.targets) == 1
            and isinstance(updated.targets[0].target, cst.Name)
            and updated.targets[0].target.value == self.name
        ):
            return updated
        call = updated.value
        if isinstance(call, cst.Subscript):  # np.r_[name, x, y]
            pieces = [e.slice.value for e in call.slice if isinstance(e.slice, cst.Index)]
            if len(pieces) != len(call.slice):
                self.failed = True
                return updated
        elif isinstance(call, cst.Call):
            first = call.args[0].value if call.args else None
            if isinstance(first, (cst.List, cst.Tuple)):
                pieces = [e.value for e in first.elements]
            else:
                pieces = [a.value for a in call.args]
        else:
            return updated
        pieces = [p for p in pieces if not (isinstance(p, cst.Name) and p.value == self.name)]
        kept = {id(line.comment) for piece in pieces for line in comments_in(piece)}
        if len(pieces) != self.count or any(id(line.comment) not in kept for line in comments_in(updated)):
            self.failed = True
            return updated
        self.replaced += 1
        collected = cst.Name(self.collected)
        if len(pieces) == 1:
            return cst.Expr(
                cst.Call(func=cst.Attribute(value=collected, attr=cst.Name("append")), args=[cst.Arg(pieces[0])])
            )
        comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
        elements = [
            cst.Element(p, comma=comma if i < len(pieces) - 1 else cst.MaybeSentinel.DEFAULT)
            for i, p in enumerate(pieces)
        ]
        return cst.Expr(
            cst.Call(func=cst.Attribute(value=collected, attr=cst.Name("extend")), args=[cst.Arg(cst.List(elements))])
        )
