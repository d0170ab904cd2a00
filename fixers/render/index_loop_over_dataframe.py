"""Renderer for GPU103 index-loop-over-dataframe: the planned column expression, written with libcst."""

from __future__ import annotations

import ast

import libcst as cst

from gpulint.diagnostic import Edit
from gpulint.fixing import Decline, FixContext

from .columns import code_of, lines_to_carry, to_columns, with_method
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
    vectorized = with_method(to_columns(expression, ROW, frame_code, numpy_name), "tolist")
    assign = init_cst.body[0].with_changes(value=vectorized)  # type: ignore[attr-defined]
    new = init_cst.with_changes(body=[assign], leading_lines=[*init_cst.leading_lines, *lines_to_carry(loop_cst)])
    return (*import_edits, ctx.replace_statements(init, loop, [new]))


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
    new = cst.parse_statement(f"{frame_code}[{column_code}] = {code_of(vectorized)}")
    new = new.with_changes(leading_lines=lines_to_carry(statements[0]))
    return (*import_edits, ctx.replace_statements(loop, loop, [new]))


def _parse(text: str) -> cst.BaseExpression | None:
    try:
        return cst.parse_expression(text)
    except (cst.ParserSyntaxError, ValueError):
        return None
