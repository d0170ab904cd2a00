"""Renderer for GPU102 iterrows-loop: the planned column expression, written with libcst."""

from __future__ import annotations

import ast


from gpulint.diagnostic import Edit
from gpulint.fixing import Decline, FixContext

from .columns import code_of, column_assigned, list_built_once, parse_list_comprehension, to_columns, with_method
from .._vectorize import numpy_import


def rewrite_append(
    init: ast.Assign, loop: ast.For, row: str, frame_code: str, needs_numpy: bool, ctx: FixContext
) -> tuple[Edit, ...] | Decline:
    """The edits replacing the empty list and the loop with `name = (column expression).tolist()`."""
    statements = ctx.parse_statements(init, loop)
    if statements is None or len(statements) != 2:
        return Decline("libcst does not read the empty list and the loop")
    init_cst, loop_cst = statements
    numpy_name, import_edits = numpy_import(ctx, needs_numpy)
    element = loop_cst.body.body[0].body[0].value.args[0].value  # type: ignore[attr-defined]
    vectorized = to_columns(element, row, frame_code, numpy_name)
    return (*import_edits, list_built_once(init, loop, init_cst, loop_cst, vectorized, ctx))


def rewrite_column(
    loop: ast.For, row: str, frame_code: str, column_code: str, needs_numpy: bool, ctx: FixContext
) -> tuple[Edit, ...] | Decline:
    """The edits replacing the loop with `frame[column] = column expression`."""
    statements = ctx.parse_statements(loop, loop)
    if statements is None:
        return Decline("libcst does not read the loop")
    loop_cst = statements[0]
    numpy_name, import_edits = numpy_import(ctx, needs_numpy)
    value = loop_cst.body.body[0].body[0].value  # type: ignore[attr-defined]
    vectorized = to_columns(value, row, frame_code, numpy_name)
    return (*import_edits, column_assigned(loop, loop_cst, f"{frame_code}[{column_code}]", vectorized, ctx))


def rewrite_comprehension(
    node: ast.ListComp, row: str, frame_code: str, needs_numpy: bool, ctx: FixContext
) -> tuple[Edit, ...] | Decline:
    """The edits replacing the comprehension with `(column expression).tolist()`."""
    parsed = parse_list_comprehension(node, ctx)
    if parsed is None:
        return Decline("libcst does not read the comprehension")
    numpy_name, import_edits = numpy_import(ctx, needs_numpy)
    vectorized = with_method(to_columns(parsed.elt, row, frame_code, numpy_name), "tolist")
    return (*import_edits, ctx.replace_node(node, code_of(vectorized)))
