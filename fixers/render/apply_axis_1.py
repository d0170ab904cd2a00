"""Renderer for GPU104 apply-axis-1: the planned column expression, written with libcst."""

from __future__ import annotations

import ast

import libcst as cst

from gpulint.diagnostic import Edit, Position
from gpulint.fixing import Decline, FixContext
from gpulint.plans.apply_axis_1 import RowApply

from .columns import code_of, comments_in, parenthesize, to_columns
from .._vectorize import needs_parentheses


def rewrite(apply: RowApply, row: str, needs_numpy: bool, wrap: bool, ctx: FixContext) -> tuple[Edit, ...] | Decline:
    """The edits replacing the call (`wrap`: in a `pd.Series` with the frame's index)."""
    call, stored = apply.call, apply.stored_in_column
    frame_code = ctx.segment(apply.frame)
    parsed = _parse_call(ctx.segment(call))
    lambda_cst = _function_arg(parsed) if parsed is not None else None
    if parsed is None or not isinstance(lambda_cst, cst.Lambda):
        return Decline("libcst does not read the call as `apply` of a lambda")
    edits: list[Edit] = []
    numpy_name = "np"
    if needs_numpy:
        numpy_name, import_edits = ctx.ensure_import("numpy", "np")
        edits.extend(import_edits)
    vectorized = to_columns(lambda_cst.body, row, frame_code, numpy_name)
    if wrap:
        pandas_name, import_edits = ctx.ensure_import("pandas", "pd")
        edits.extend(import_edits)
        code = f"{pandas_name}.Series({code_of(_without_plain_parens(vectorized))}, index={frame_code}.index)"
    else:
        if stored:
            vectorized = _without_plain_parens(vectorized)
        if "\n" in code_of(vectorized) or needs_parentheses(call, apply.statement):
            vectorized = parenthesize(vectorized)
        code = code_of(vectorized)
    moved = _comments_outside(parsed, lambda_cst.body)
    if moved:
        edits.append(_with_comments_above(call, apply.statement, code, moved, ctx))
    else:
        edits.append(ctx.replace_node(call, code))
    return tuple(edits)


def _parse_call(segment: str) -> cst.Call | None:
    try:
        parsed = cst.parse_expression(segment)
    except (cst.ParserSyntaxError, ValueError):
        return None
    return parsed if isinstance(parsed, cst.Call) else None


def _function_arg(call: cst.Call) -> cst.BaseExpression | None:
    for index, arg in enumerate(call.args):
        if arg.keyword is None and index == 0 or arg.keyword is not None and arg.keyword.value == "func":
            return arg.value
    return None


def _without_plain_parens(node: cst.BaseExpression) -> cst.BaseExpression:
    """Drop parentheses around a call (`(np.where(...))`) when they hold no comment."""
    if (
        isinstance(node, cst.Call)
        and len(node.lpar) == 1
        and code_of(node.lpar[0]) == "("
        and code_of(node.rpar[0]) == ")"
    ):
        return node.with_changes(lpar=[], rpar=[])
    return node


def _comments_outside(call: cst.Call, body: cst.BaseExpression) -> list[cst.Comment]:
    """Comments in the call but not in the lambda's body (those stay where they are)."""
    inside = {id(line.comment) for line in comments_in(body)}
    return [line.comment for line in comments_in(call) if id(line.comment) not in inside]


def _with_comments_above(
    call: ast.Call, statement: ast.stmt | None, code: str, comments: list[cst.Comment], ctx: FixContext
) -> Edit:
    """One edit from the start of the statement's first line to the end of the call: the
    comments of the replaced call go on their own lines above the statement."""
    line = min(statement.lineno, call.lineno) if statement is not None else call.lineno  # decorators come first
    text = ctx.source.line(line)
    indent = text[: len(text) - len(text.lstrip(" \t"))]
    source = ctx.source
    start = ctx.start(call)
    before = source.text[source.offset(line, 0) : source.offset(start.line, start.col)]
    lines = "".join(f"{indent}{comment.value}{source.newline}" for comment in comments)
    return Edit(Position(line, 0), ctx.end(call), lines + before + code)
