"""Renderer for GPU103 index-loop-over-dataframe: the planned column expression, written with libcst."""

from __future__ import annotations

import ast

import libcst as cst

from gpulint.diagnostic import Edit
from gpulint.fixing import Decline, FixContext

from .columns import column_assigned, list_built_once, to_columns
from .._vectorize import ROW, numpy_import


def rewrite_append(
    init: ast.Assign, loop: ast.For, text: str, frame_code: str, needs_numpy: bool, ctx: FixContext
) -> tuple[Edit, ...] | Decline:
    """The edits replacing the empty list and the loop with `name = (column expression).tolist()`;
    `text`: the appended value with its cells spelled as fields of `ROW`."""
    expression = _parse(text)
    statements = ctx.parse_statements(init, loop)
    if expression is None or statements is None or len(statements) != 2:
        return Decline("libcst does not read the appended value, the empty list or the loop")
    init_cst, loop_cst = statements
    numpy_name, import_edits = numpy_import(ctx, needs_numpy)
    vectorized = to_columns(expression, ROW, frame_code, numpy_name)
    return (*import_edits, list_built_once(init, loop, init_cst, loop_cst, vectorized, ctx))


def rewrite_column(
    loop: ast.For, text: str, frame_code: str, column_code: str, needs_numpy: bool, ctx: FixContext
) -> tuple[Edit, ...] | Decline:
    """The edits replacing the loop with `frame[column] = column expression`; `text`: the
    assigned value with its cells spelled as fields of `ROW`."""
    expression = _parse(text)
    statements = ctx.parse_statements(loop, loop)
    if expression is None or statements is None:
        return Decline("libcst does not read the assigned value or the loop")
    numpy_name, import_edits = numpy_import(ctx, needs_numpy)
    vectorized = to_columns(expression, ROW, frame_code, numpy_name)
    return (*import_edits, column_assigned(loop, statements[0], f"{frame_code}[{column_code}]", vectorized, ctx))


def _parse(text: str) -> cst.BaseExpression | None:
    try:
        return cst.parse_expression(text)
    except (cst.ParserSyntaxError, ValueError):
        return None
