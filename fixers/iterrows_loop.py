"""Fixer for GPU102 iterrows-loop: a per-row computation becomes one column expression.

Rewritten shapes (anything else gets the display-only suggestion):

    out = []                                   out = (frame["a"] - frame["b"]).tolist()
    for _, row in frame.iterrows():      ->
        out.append(row["a"] - row["b"])

    for idx, row in frame.iterrows():    ->    frame["c"] = frame["a"] * 2
        frame.loc[idx, "c"] = row["a"] * 2

    [row["a"] * 2 for _, row in frame.iterrows()]   ->   (frame["a"] * 2).tolist()
"""

from __future__ import annotations

import ast

import libcst as cst

from gpulint.diagnostic import Applicability, Diagnostic, Edit, Fix
from gpulint.fixing import FixContext, display_fix
from gpulint.rules.dataframe.iterrows_loop import RowIteration

from ._loops import names_read_after
from ._vectorize import (
    analyse,
    code_of,
    empty_list_before,
    lines_to_carry,
    numpy_import,
    parse_list_comprehension,
    repeatable_frame,
    to_columns,
    with_method,
)

SUGGESTIONS = {
    "dask": (
        'compute the result with column expressions on the Dask frame (`frame["a"] - frame["b"]`) '
        "and `.compute()` it once; iterating rows computes every partition and loops over it in Python"
    ),
    "cudf": (
        'cuDF does not iterate rows: compute the result with column expressions (`frame["a"] - frame["b"]`), '
        "which run on the GPU, and keep it there; copy to the host (`.to_pandas()`) only once, if at all"
    ),
}
MESSAGE = "replace the row loop with a vectorized column expression"


def fix(diagnostic: Diagnostic, ctx: FixContext) -> Fix | None:
    rows: RowIteration = diagnostic.context  # type: ignore[assignment]
    if rows.applicability is Applicability.DISPLAY:
        return display_fix(SUGGESTIONS[rows.lib]) if rows.lib in SUGGESTIONS else None
    collections = set(rows.collections)
    if rows.comprehension is not None:
        edits = _fix_comprehension(rows.comprehension, collections, ctx)
    elif names_read_after(rows.site, ctx.semantic):
        edits = None  # the rewrite would drop names the code after the loop reads
    else:
        assert rows.loop is not None and rows.block is not None
        edits = _fix_loop(rows.loop, rows.block, collections, ctx)
    return Fix(rows.applicability, MESSAGE, edits) if edits is not None else None


def _row_target(target: ast.expr) -> tuple[str, str] | None:
    if isinstance(target, ast.Tuple) and len(target.elts) == 2 and all(isinstance(e, ast.Name) for e in target.elts):
        index, row = target.elts
        return index.id, row.id  # type: ignore[union-attr]
    return None


def _frame(iterable: ast.expr) -> ast.expr | None:
    frame = iterable.func.value  # type: ignore[attr-defined]
    return frame if repeatable_frame(frame) else None


def _fix_loop(
    loop: ast.For | ast.AsyncFor, block: list[ast.stmt], collections: set[str], ctx: FixContext
) -> tuple[Edit, ...] | None:
    names = _row_target(loop.target)
    frame = _frame(loop.iter)
    if isinstance(loop, ast.AsyncFor) or loop.orelse or len(loop.body) != 1 or names is None or frame is None:
        return None
    index, row = names
    statement = loop.body[0]
    frame_code = ctx.segment(frame)
    if isinstance(statement, ast.Expr):
        return _fix_append(loop, block, statement, index, row, frame_code, collections, ctx)
    if isinstance(statement, ast.Assign):
        return _fix_column(loop, statement, index, row, frame, frame_code, collections, ctx)
    return None


def _fix_append(
    loop: ast.For,
    block: list[ast.stmt],
    statement: ast.Expr,
    index: str,
    row: str,
    frame_code: str,
    collections: set[str],
    ctx: FixContext,
) -> tuple[Edit, ...] | None:
    call = statement.value
    if not (
        isinstance(call, ast.Call)
        and isinstance(call.func, ast.Attribute)
        and call.func.attr == "append"
        and isinstance(call.func.value, ast.Name)
        and len(call.args) == 1
        and not call.keywords
    ):
        return None
    target = call.func.value.id
    init = empty_list_before(loop, block, target)
    if init is None:
        return None
    good, needs_numpy = analyse(call.args[0], row, {index, target} | collections)
    if not good or target in (index, row):
        return None
    statements = ctx.parse_statements(init, loop)
    if statements is None or len(statements) != 2:
        return None
    init_cst, loop_cst = statements
    numpy_name, import_edits = numpy_import(ctx, needs_numpy)
    element = loop_cst.body.body[0].body[0].value.args[0].value  # type: ignore[attr-defined]
    vectorized = with_method(to_columns(element, row, frame_code, numpy_name), "tolist")
    assign = init_cst.body[0].with_changes(value=vectorized)  # type: ignore[attr-defined]
    new = init_cst.with_changes(body=[assign], leading_lines=[*init_cst.leading_lines, *lines_to_carry(loop_cst)])
    return (*import_edits, ctx.replace_statements(init, loop, [new]))


def _fix_column(
    loop: ast.For,
    statement: ast.Assign,
    index: str,
    row: str,
    frame: ast.expr,
    frame_code: str,
    collections: set[str],
    ctx: FixContext,
) -> tuple[Edit, ...] | None:
    if len(statement.targets) != 1 or index == "_":
        return None
    target = statement.targets[0]
    if not (
        isinstance(target, ast.Subscript)
        and isinstance(target.value, ast.Attribute)
        and target.value.attr in ("loc", "at")
        and ast.dump(target.value.value) == ast.dump(frame)
        and isinstance(target.slice, ast.Tuple)
        and len(target.slice.elts) == 2
    ):
        return None
    label, column = target.slice.elts
    if not (
        isinstance(label, ast.Name)
        and label.id == index
        and isinstance(column, ast.Constant)
        and isinstance(column.value, str)
    ):
        return None
    good, needs_numpy = analyse(statement.value, row, {index} | collections)
    if not good:
        return None
    statements = ctx.parse_statements(loop, loop)
    if statements is None:
        return None
    loop_cst = statements[0]
    numpy_name, import_edits = numpy_import(ctx, needs_numpy)
    value = loop_cst.body.body[0].body[0].value  # type: ignore[attr-defined]
    vectorized = to_columns(value, row, frame_code, numpy_name)
    new = cst.parse_statement(f"{frame_code}[{ctx.segment(column)}] = {code_of(vectorized)}")
    new = new.with_changes(leading_lines=lines_to_carry(loop_cst))
    return (*import_edits, ctx.replace_statements(loop, loop, [new]))


def _fix_comprehension(node: ast.expr, collections: set[str], ctx: FixContext) -> tuple[Edit, ...] | None:
    if not isinstance(node, ast.ListComp) or len(node.generators) != 1:
        return None
    generator = node.generators[0]
    names = _row_target(generator.target)
    frame = _frame(generator.iter)
    if generator.ifs or generator.is_async or names is None or frame is None:
        return None
    index, row = names
    good, needs_numpy = analyse(node.elt, row, {index} | collections)
    if not good:
        return None
    parsed = parse_list_comprehension(node, ctx)
    if parsed is None:
        return None
    numpy_name, import_edits = numpy_import(ctx, needs_numpy)
    vectorized = with_method(to_columns(parsed.elt, row, ctx.segment(frame), numpy_name), "tolist")
    return (*import_edits, ctx.replace_node(node, code_of(vectorized)))
