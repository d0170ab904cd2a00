"""Fixer for GPU103 index-loop-over-dataframe: a per-row computation becomes one column expression.

Rewritten shapes (anything else gets the display-only suggestion):

    out = []                                     out = (frame["a"] - frame["b"]).tolist()
    for i in range(len(frame)):            ->
        out.append(frame.loc[i, "a"] - frame.loc[i, "b"])

    for i in frame.index:                  ->    frame["c"] = frame["a"] * 2
        frame.at[i, "c"] = frame.at[i, "a"] * 2

Each cell read (`frame.loc[i, "a"]`, `frame["a"][i]`, `frame["a"].iloc[i]`, ...) is first
spelled as a row field (`row["a"]`), so the row-expression rules shared with the other
row-wise fixers decide what vectorizes and how.
"""

from __future__ import annotations

import ast

import libcst as cst

from gpulint.astutil import same_reference
from gpulint.diagnostic import Applicability, Diagnostic, Fix
from gpulint.fixing import FixContext
from gpulint.rules.dataframe.index_loop_over_dataframe import IndexLoop

from ._loops import names_read_after
from ._vectorize import (
    analyse,
    code_of,
    empty_list_before,
    lines_to_carry,
    numpy_import,
    repeatable_frame,
    to_columns,
    with_method,
)

MESSAGE = "replace the index loop with a vectorized column expression"
#: Stands for the row while a cell expression is checked and rewritten; never in the output.
ROW = "__gpulint_row__"


def fix(diagnostic: Diagnostic, ctx: FixContext) -> Fix | None:
    found: IndexLoop = diagnostic.context  # type: ignore[assignment]
    if found.applicability is Applicability.DISPLAY:
        return None
    return _fix_loop(found, ctx)


def _fix_loop(found: IndexLoop, ctx: FixContext) -> Fix | None:
    loop, frame = found.loop, found.frame
    if isinstance(loop, ast.AsyncFor) or loop.orelse or len(loop.body) != 1 or not repeatable_frame(frame):
        return None
    if names_read_after(found.site, ctx.semantic):
        return None  # the rewrite would drop names the code after the loop reads
    statement = loop.body[0]
    forbidden = {loop.target.id} | set(found.collections)
    if isinstance(statement, ast.Expr):
        return _fix_append(found, statement, forbidden, ctx)
    if isinstance(statement, ast.Assign):
        return _fix_column(found, statement, forbidden, ctx)
    return None


def _row_expression(
    expression: ast.expr, found: IndexLoop, forbidden: set[str], ctx: FixContext
) -> tuple[cst.BaseExpression, bool] | None:
    """The expression with each cell spelled `ROW["column"]`, parsed by libcst, and whether
    its rewrite needs NumPy; None when it does not vectorize."""
    text = ctx.segment(expression)
    if "#" in text:
        return None
    base = ctx.source.offset(*_pair(ctx.start(expression)))
    replacements = []
    for cell in found.cells:
        if not any(sub is cell.node for sub in ast.walk(expression)):
            continue
        if not _readable(cell, found.walk):
            return None
        begin = ctx.source.offset(*_pair(ctx.start(cell.node))) - base
        end = ctx.source.offset(*_pair(ctx.end(cell.node))) - base
        replacements.append((begin, end, f"{ROW}[{ctx.segment(cell.column)}]"))
    for begin, end, spelled in sorted(replacements, reverse=True):
        text = text[:begin] + spelled + text[end:]
    wrapped = text if "\n" not in text else f"({text})"
    try:
        parsed = ast.parse(wrapped, mode="eval").body
        tree = cst.parse_expression(wrapped)
    except (SyntaxError, ValueError, cst.ParserSyntaxError):
        return None
    good, needs_numpy = analyse(parsed, ROW, forbidden)
    return (tree, needs_numpy) if good else None


def _pair(position) -> tuple[int, int]:
    return position.line, position.col


def _readable(cell, walk: str) -> bool:
    """A cell the rewrite can read as a whole column in the loop's order: a column named by
    a string; by position only in a loop over positions."""
    return (
        isinstance(cell.column, ast.Constant)
        and isinstance(cell.column.value, str)
        and not cell.column_position
        and (walk == "positions" or not cell.by_position)
    )


def _fix_append(found: IndexLoop, statement: ast.Expr, forbidden: set[str], ctx: FixContext) -> Fix | None:
    loop, block = found.loop, found.block
    call = statement.value
    if not (
        isinstance(call, ast.Call)
        and isinstance(call.func, ast.Attribute)
        and call.func.attr == "append"
        and isinstance(call.func.value, ast.Name)
        and len(call.args) == 1
        and not call.keywords
        and not isinstance(call.args[0], ast.Starred)
    ):
        return None
    target = call.func.value.id
    init = empty_list_before(loop, block, target)
    if init is None:
        return None
    row = _row_expression(call.args[0], found, forbidden | {target}, ctx)
    statements = ctx.parse_statements(init, loop)
    if row is None or statements is None or len(statements) != 2:
        return None
    expression, needs_numpy = row
    init_cst, loop_cst = statements
    numpy_name, import_edits = numpy_import(ctx, needs_numpy)
    vectorized = with_method(to_columns(expression, ROW, ctx.segment(found.frame), numpy_name), "tolist")
    assign = init_cst.body[0].with_changes(value=vectorized)  # type: ignore[attr-defined]
    new = init_cst.with_changes(body=[assign], leading_lines=[*init_cst.leading_lines, *lines_to_carry(loop_cst)])
    return Fix(found.applicability, MESSAGE, (*import_edits, ctx.replace_statements(init, loop, [new])))


def _fix_column(found: IndexLoop, statement: ast.Assign, forbidden: set[str], ctx: FixContext) -> Fix | None:
    loop, frame = found.loop, found.frame
    if len(statement.targets) != 1:
        return None
    target = statement.targets[0]
    if not (
        isinstance(target, ast.Subscript)
        and isinstance(target.value, ast.Attribute)
        and target.value.attr in ("loc", "at")
        and same_reference(target.value.value, frame)
        and isinstance(target.slice, ast.Tuple)
        and len(target.slice.elts) == 2
    ):
        return None
    label, column = target.slice.elts
    if not (
        isinstance(label, ast.Name)
        and label.id == loop.target.id
        and isinstance(column, ast.Constant)
        and isinstance(column.value, str)
    ):
        return None
    row = _row_expression(statement.value, found, forbidden, ctx)
    statements = ctx.parse_statements(loop, loop)
    if row is None or statements is None:
        return None
    expression, needs_numpy = row
    numpy_name, import_edits = numpy_import(ctx, needs_numpy)
    vectorized = to_columns(expression, ROW, ctx.segment(frame), numpy_name)
    new = cst.parse_statement(f"{ctx.segment(frame)}[{ctx.segment(column)}] = {code_of(vectorized)}")
    loop_cst = statements[0]
    new = new.with_changes(leading_lines=lines_to_carry(loop_cst))
    return Fix(found.applicability, MESSAGE, (*import_edits, ctx.replace_statements(loop, loop, [new])))
