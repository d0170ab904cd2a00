"""Turning a per-element expression into a whole-array expression (libcst side).

The detectors decide what qualifies (`gpulint.elementwise`); this module
only rewrites: each element reference becomes the array it reads, `and`/`or`/`not`
become `&`/`|`/`~`, and `x if cond else y` becomes `np.where(cond, x, y)`.
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from .columns import ElementwiseLogic, parenthesize


class _ToWhole(ElementwiseLogic):
    def __init__(self, replace: Callable[[cst.BaseExpression], str | None], numpy: str) -> None:
        super().__init__(numpy)
        self.replace = replace

    def is_element(self, node: cst.CSTNode) -> bool:
        return isinstance(node, (cst.Name, cst.Subscript)) and self.replace(node) is not None

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


def to_whole(
    expression: cst.BaseExpression, replace: Callable[[cst.BaseExpression], str | None], numpy: str = "np"
) -> cst.BaseExpression:
    """Rewrite a (checked) per-element expression: `replace` gives the whole-array code for
    an element reference (a `Name` or `Subscript` node), None for anything else."""
    return expression.visit(_ToWhole(replace, numpy))  # type: ignore[return-value]
