"""Turning a per-element expression into a whole-array expression (libcst side).

The detectors decide what qualifies (`gpulint.rules.arrays._elementwise`); this module
only rewrites: each element reference becomes the array it reads, `and`/`or`/`not`
become `&`/`|`/`~`, and `x if cond else y` becomes `np.where(cond, x, y)`.
"""

from __future__ import annotations

from typing import Callable

import libcst as cst

from ._vectorize import parenthesize


def _strip_parens(node: cst.BaseExpression) -> cst.BaseExpression:
    return node.with_changes(lpar=[], rpar=[]) if node.lpar else node


class _ToWhole(cst.CSTTransformer):
    def __init__(self, replace: Callable[[cst.BaseExpression], str | None], numpy: str) -> None:
        self.replace = replace
        self.numpy = numpy

    def _swap(self, original: cst.BaseExpression, updated: cst.BaseExpression) -> cst.BaseExpression:
        code = self.replace(original)
        if code is None:
            return updated
        return parenthesize(cst.parse_expression(code))

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        return False  # only named constants (`np.pi`): nothing inside to replace

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
        return self._swap(original, updated)

    def leave_Subscript(self, original: cst.Subscript, updated: cst.Subscript) -> cst.BaseExpression:
        return self._swap(original, updated)

    def leave_BooleanOperation(self, original: cst.BooleanOperation,
                               updated: cst.BooleanOperation) -> cst.BaseExpression:
        operator = cst.BitAnd() if isinstance(updated.operator, cst.And) else cst.BitOr()
        return cst.BinaryOperation(
            left=parenthesize(updated.left),
            operator=operator.with_changes(whitespace_before=updated.operator.whitespace_before,
                                           whitespace_after=updated.operator.whitespace_after),
            right=parenthesize(updated.right), lpar=updated.lpar, rpar=updated.rpar)

    def leave_UnaryOperation(self, original: cst.UnaryOperation,
                             updated: cst.UnaryOperation) -> cst.BaseExpression:
        if isinstance(updated.operator, cst.Not):
            return updated.with_changes(operator=cst.BitInvert(), expression=parenthesize(updated.expression))
        return updated

    def leave_IfExp(self, original: cst.IfExp, updated: cst.IfExp) -> cst.BaseExpression:
        where = cst.Attribute(value=cst.Name(self.numpy), attr=cst.Name("where"))
        comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
        return cst.Call(func=where, args=[
            cst.Arg(_strip_parens(updated.test), comma=comma),
            cst.Arg(_strip_parens(updated.body), comma=comma),
            cst.Arg(_strip_parens(updated.orelse)),
        ], lpar=updated.lpar, rpar=updated.rpar)


def to_whole(expression: cst.BaseExpression, replace: Callable[[cst.BaseExpression], str | None],
             numpy: str = "np") -> cst.BaseExpression:
    """Rewrite a (checked) per-element expression: `replace` gives the whole-array code for
    an element reference (a `Name` or `Subscript` node), None for anything else."""
    return expression.visit(_ToWhole(replace, numpy))  # type: ignore[return-value]
