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
import re

from gpulint.diagnostic import Applicability, Diagnostic, Edit
from gpulint.fixing import Decline, FixContext, Plan, suggestion
from gpulint.plans.iterrows_loop import RowIteration

from ._loops import names_read_after, plain_loop
from ._vectorize import analyse, empty_list_before, frame_written_once, repeatable_frame

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


def plan(diagnostic: Diagnostic, ctx: FixContext) -> Plan | Decline:
    rows: RowIteration = diagnostic.context  # type: ignore[assignment]
    if rows.applicability is Applicability.DISPLAY:
        if rows.lib in SUGGESTIONS:
            return suggestion(SUGGESTIONS[rows.lib])
        if rows.loop is None and rows.comprehension is None:
            return Decline("the rows are numbered by `enumerate`, a count with no column form")
        return Decline("the frame is not known to be a pandas or Modin frame")
    collections = set(rows.collections)
    if rows.comprehension is not None:
        return _plan_comprehension(rows, rows.comprehension, collections, ctx)
    read_after = names_read_after(rows.site, ctx.semantic)
    if read_after:
        return Decline(f"the code after the loop reads {_listed(read_after)}, which the loop binds")
    assert rows.loop is not None and rows.block is not None
    return _plan_loop(rows, rows.loop, rows.block, collections, ctx)


def _listed(names: set[str]) -> str:
    return ", ".join(f"`{name}`" for name in sorted(names))


def _row_target(target: ast.expr) -> tuple[str, str] | None:
    if isinstance(target, ast.Tuple) and len(target.elts) == 2 and all(isinstance(e, ast.Name) for e in target.elts):
        index, row = target.elts
        return index.id, row.id  # type: ignore[union-attr]
    return None


def _frame(iterable: ast.expr) -> ast.expr | None:
    frame = iterable.func.value  # type: ignore[attr-defined]
    return frame if repeatable_frame(frame) else None


def _plan_loop(
    rows: RowIteration, loop: ast.For | ast.AsyncFor, block: list[ast.stmt], collections: set[str], ctx: FixContext
) -> Plan | Decline:
    shape = plain_loop(loop)
    if shape is not None:
        return shape
    names = _row_target(loop.target)
    if names is None:
        return Decline("the loop's target is not a pair of plain names")
    frame = _frame(loop.iter)
    if frame is None:
        return Decline("the frame is an expression that cannot be written once per column")
    index, row = names
    statement = loop.body[0]
    if isinstance(statement, ast.Expr):
        return _plan_append(rows, loop, block, statement, index, row, frame, collections, ctx)
    if isinstance(statement, ast.Assign):
        return _plan_column(rows, loop, statement, index, row, frame, collections, ctx)
    return Decline("the loop's body neither appends to a list nor assigns a cell")


def _plan_append(
    rows: RowIteration,
    loop: ast.For,
    block: list[ast.stmt],
    statement: ast.Expr,
    index: str,
    row: str,
    frame: ast.expr,
    collections: set[str],
    ctx: FixContext,
) -> Plan | Decline:
    call = statement.value
    if not (
        isinstance(call, ast.Call)
        and isinstance(call.func, ast.Attribute)
        and call.func.attr == "append"
        and isinstance(call.func.value, ast.Name)
        and len(call.args) == 1
        and not call.keywords
    ):
        return Decline("the loop's body is not one `name.append(value)` call")
    target = call.func.value.id
    init = empty_list_before(loop, block, target)
    if init is None:
        return Decline(f"`{target}` is not set to an empty list right before the loop")
    good, needs_numpy = analyse(call.args[0], row, {index, target} | collections)
    if not good:
        return Decline("the appended value has no column form")
    if target in (index, row):
        return Decline("the list has the name of a loop variable")
    if not ctx.owns_lines(init, loop):
        return Decline("other code shares the lines of the empty list or the loop")
    if _body_follows_colon(loop, ctx):
        return Decline("the loop's body is on the line of its `for`")
    frame_code = frame_written_once(frame, ctx)
    if isinstance(frame_code, Decline):
        return frame_code

    def render() -> tuple[Edit, ...] | Decline:
        from .render.iterrows_loop import rewrite_append

        return rewrite_append(init, loop, row, frame_code, needs_numpy, ctx)

    return Plan(rows.applicability, MESSAGE, render)


def _plan_column(
    rows: RowIteration,
    loop: ast.For,
    statement: ast.Assign,
    index: str,
    row: str,
    frame: ast.expr,
    collections: set[str],
    ctx: FixContext,
) -> Plan | Decline:
    if len(statement.targets) != 1:
        return Decline("the assignment has more than one target")
    if index == "_":
        return Decline("the loop names the row label `_`")
    target = statement.targets[0]
    if not (
        isinstance(target, ast.Subscript)
        and isinstance(target.value, ast.Attribute)
        and target.value.attr in ("loc", "at")
        and ast.dump(target.value.value) == ast.dump(frame)
        and isinstance(target.slice, ast.Tuple)
        and len(target.slice.elts) == 2
    ):
        return Decline("the assignment does not store a `.loc` or `.at` cell of the looped frame")
    label, column = target.slice.elts
    if not (isinstance(label, ast.Name) and label.id == index):
        return Decline("the cell stored is not in the loop's row")
    if not (isinstance(column, ast.Constant) and isinstance(column.value, str)):
        return Decline("the column stored is not named by a string")
    good, needs_numpy = analyse(statement.value, row, {index} | collections)
    if not good:
        return Decline("the assigned value has no column form")
    if not ctx.owns_lines(loop, loop):
        return Decline("other code shares the loop's lines")
    if _body_follows_colon(loop, ctx):
        return Decline("the loop's body is on the line of its `for`")
    frame_code = frame_written_once(frame, ctx)
    if isinstance(frame_code, Decline):
        return frame_code
    column_code = ctx.segment(column)

    def render() -> tuple[Edit, ...] | Decline:
        from .render.iterrows_loop import rewrite_column

        return rewrite_column(loop, row, frame_code, column_code, needs_numpy, ctx)

    return Plan(rows.applicability, MESSAGE, render)


def _plan_comprehension(rows: RowIteration, node: ast.expr, collections: set[str], ctx: FixContext) -> Plan | Decline:
    if not isinstance(node, ast.ListComp):
        return Decline("the comprehension builds a set, dict or generator, not a list")
    if len(node.generators) != 1:
        return Decline("the comprehension has more than one `for`")
    generator = node.generators[0]
    if generator.ifs:
        return Decline("the comprehension filters rows with `if`")
    if generator.is_async:
        return Decline("the comprehension is asynchronous")
    names = _row_target(generator.target)
    if names is None:
        return Decline("the comprehension's target is not a pair of plain names")
    frame = _frame(generator.iter)
    if frame is None:
        return Decline("the frame is an expression that cannot be written once per column")
    index, row = names
    good, needs_numpy = analyse(node.elt, row, {index} | collections)
    if not good:
        return Decline("the comprehension's element has no column form")
    if ctx.has_comments(ctx.start(node), ctx.end(node)):
        return Decline("the comprehension holds comments that one expression would lose")
    frame_code = frame_written_once(frame, ctx)
    if isinstance(frame_code, Decline):
        return frame_code

    def render() -> tuple[Edit, ...] | Decline:
        from .render.iterrows_loop import rewrite_comprehension

        return rewrite_comprehension(node, row, frame_code, needs_numpy, ctx)

    return Plan(rows.applicability, MESSAGE, render)


def _body_follows_colon(loop: ast.For, ctx: FixContext) -> bool:
    """Whether the loop's body is written after the colon of its `for` line
    (`for _, row in frame.iterrows(): out.append(...)`) rather than as an indented block."""
    source = ctx.source
    end, start = ctx.end(loop.iter), ctx.start(loop.body[0])
    # Between the iterable and the body: closing parentheses, the colon, spaces, comments
    # and line breaks; only a line break after the colon (a comment's included) opens a block.
    gap = re.sub(r"#[^\r\n]*", "", source.text[source.offset(end.line, end.col) : source.offset(start.line, start.col)])
    after_colon = gap[gap.index(":") + 1 :]
    return not re.sub(r"\\(\r\n|\r|\n)", "", after_colon).strip(" \t\f")
