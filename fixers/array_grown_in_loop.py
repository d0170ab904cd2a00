"""Fixer for GPU202 array-grown-in-loop: collect the pieces in a list, concatenate once.

    found = np.array([])                  found = np.array([])
    for x in xs:                          parts = [found]
        found = np.append(found, f(x)) -> for x in xs:
                                              parts.append(f(x))
                                          found = np.concatenate(parts, axis=None)

`np.concatenate`, `np.vstack`, `np.hstack` and `torch.cat` keep their function and
options; `np.r_[found, x]` and `np.c_[found, x]` keep their index object
(`np.r_[tuple(parts)]`, the same as spelling the items out); several new pieces
(`[a, x, y]`) become `parts.extend([x, y])`. The rule decided whether the shape
qualifies (`Growth.applicability`); otherwise the rule's suggestion is shown.
"""

from __future__ import annotations

import ast

import libcst as cst

from gpulint.diagnostic import Applicability, Diagnostic, Fix
from gpulint.fixing import FixContext
from gpulint.rules.arrays.array_grown_in_loop import Growth

from ._vectorize import comments_in

MESSAGE = "collect the pieces in a list and concatenate once after the loop"


def fix(diagnostic: Diagnostic, ctx: FixContext) -> Fix | None:
    growth: Growth = diagnostic.context  # type: ignore[assignment]
    if growth.applicability is Applicability.DISPLAY:
        return None
    return _rewrite(growth, ctx)


def _callee(growth: Growth, ctx: FixContext) -> tuple[str, tuple]:
    """The one call after the loop, and the edits an import for it needs."""
    if isinstance(growth.call, ast.Subscript):
        return ctx.segment(growth.call.value), ()
    func = growth.call.func
    if growth.function != "append":
        return ctx.segment(func), ()
    if isinstance(func, ast.Attribute):
        return f"{ctx.segment(func.value)}.concatenate", ()
    numpy_name, edits = ctx.ensure_import("numpy", "np")
    return f"{numpy_name}.concatenate", edits


def _rewrite(growth: Growth, ctx: FixContext) -> Fix | None:
    loop = growth.loop
    assert loop is not None
    statements = ctx.parse_statements(loop, loop)
    if statements is None or len(statements) != 1:
        return None
    collected = ctx.fresh_name("parts")
    replacer = _ReplaceGrowth(growth.name, len(growth.pieces), collected)
    new_loop = statements[0].visit(replacer)
    if replacer.replaced != 1 or replacer.failed:
        return None
    callee, import_edits = _callee(growth, ctx)
    if isinstance(growth.call, ast.Subscript):
        joined = f"{callee}[tuple({collected})]"
    else:
        keywords = "".join(f", {ctx.segment(k)}" for k in growth.call.keywords)
        if growth.function == "append" and not growth.call.keywords:
            keywords = ", axis=None"
        joined = f"{callee}({collected}{keywords})"
    try:
        first = cst.parse_statement(f"{collected} = [{growth.name}]").with_changes(
            leading_lines=statements[0].leading_lines
        )
        last = cst.parse_statement(f"{growth.name} = {joined}")
    except cst.ParserSyntaxError:
        return None
    edit = ctx.replace_statements(loop, loop, [first, new_loop.with_changes(leading_lines=[]), last])
    return Fix(growth.applicability, MESSAGE, (*import_edits, edit))


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
