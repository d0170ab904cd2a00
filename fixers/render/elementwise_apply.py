"""Renderer for GPU105 elementwise-apply: the planned lambda's vectorized form, written with libcst."""

from __future__ import annotations

import libcst as cst

from gpulint.fixing import Decline

from .columns import code_of, parenthesize


def vectorized(body: str, parameter: str, receiver: str, casts: tuple[str, ...]) -> str | Decline:
    """The lambda's `body` with `receiver` in place of `parameter`, and the `casts` (and
    `len`) of what reads it in their Series forms."""
    try:
        parsed = cst.parse_expression(body)
    except cst.ParserSyntaxError:
        return Decline("libcst does not read the lambda's body as an expression")
    return code_of(parsed.visit(_Vectorize(parameter, cst.parse_expression(receiver), casts)))


class _Vectorize(cst.CSTTransformer):
    """The lambda's parameter becomes the receiver; casts, `len` and `str` methods applied to
    something that reads the parameter become their Series forms (`abs`/`round` and
    operators work on a Series as they are). What does not read the parameter stays as it
    is: `float(total)` is one Python call, as it was for each element."""

    def __init__(self, parameter: str, receiver: cst.BaseExpression, casts: tuple[str, ...]) -> None:
        self.parameter = parameter
        self.receiver = receiver
        self.casts = casts

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
        return self.receiver if updated.value == self.parameter else updated

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.BaseExpression:
        return updated.with_changes(attr=original.attr)  # an attribute's name is no parameter

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        if not _reads(original, self.parameter):
            return updated
        func = updated.func
        if isinstance(func, cst.Name) and func.value in (*self.casts, "len"):
            argument = parenthesize(updated.args[0].value)
            if func.value == "len":
                accessor = cst.Attribute(value=argument, attr=cst.Name("str"))
                return cst.Call(
                    func=cst.Attribute(value=accessor, attr=cst.Name("len")), lpar=updated.lpar, rpar=updated.rpar
                )
            return cst.Call(
                func=cst.Attribute(value=argument, attr=cst.Name("astype")),
                args=[cst.Arg(cst.Name(func.value))],
                lpar=updated.lpar,
                rpar=updated.rpar,
            )
        if isinstance(func, cst.Attribute):
            accessor = cst.Attribute(value=parenthesize(func.value), attr=cst.Name("str"))
            return updated.with_changes(func=func.with_changes(value=accessor))
        return updated


def _reads(node: cst.CSTNode, name: str) -> bool:
    """Whether `name` occurs in `node` as a variable (not as an attribute's name)."""
    found: list[cst.Name] = []

    class Find(cst.CSTVisitor):
        def visit_Attribute(self, attribute: cst.Attribute) -> bool:
            attribute.value.visit(self)
            return False

        def visit_Name(self, node: cst.Name) -> None:
            if node.value == name:
                found.append(node)

    node.visit(Find())
    return bool(found)
