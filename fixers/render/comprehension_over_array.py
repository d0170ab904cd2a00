"""Renderer for GPU205 comprehension-over-array: the planned whole-array expression, written with libcst."""

from __future__ import annotations

import libcst as cst

from gpulint.diagnostic import Edit
from gpulint.fixing import Decline, FixContext
from gpulint.plans.comprehension_over_array import ElementComprehension

from .._vectorize import numpy_import
from .columns import code_of, with_method
from .elements import to_whole


def rewrite(found: ElementComprehension, finish: str | None, ctx: FixContext) -> tuple[Edit, ...] | Decline:
    """The edits replacing the comprehension with its whole-array form, finished with
    `.tolist()` or `list(...)` (`finish`) or left bare inside its array call (None)."""
    node = found.comprehension
    try:
        parsed = cst.parse_expression(ctx.segment(node))
    except cst.ParserSyntaxError:
        return Decline("libcst does not read the comprehension as an expression")
    if not isinstance(parsed, cst.ListComp):
        return Decline("libcst does not read the comprehension as a list comprehension")
    element, array = found.element, ctx.segment(found.iterable)
    numpy_name, import_edits = numpy_import(ctx, found.needs_numpy)

    def replace(original: cst.BaseExpression) -> str | None:
        return array if isinstance(original, cst.Name) and original.value == element else None

    whole = to_whole(parsed.elt, replace, numpy_name)
    if finish == "tolist":
        whole = with_method(whole, "tolist")
    elif finish == "list":
        whole = cst.Call(func=cst.Name("list"), args=[cst.Arg(whole)])
    return (*import_edits, ctx.replace_node(node, code_of(whole)))
