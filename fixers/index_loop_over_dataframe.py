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

from gpulint.astutil import same_reference
from gpulint.diagnostic import Applicability, Diagnostic, Edit, Position
from gpulint.fixing import Decline, FixContext, Plan
from gpulint.plans.index_loop_over_dataframe import Cell, IndexLoop

from ._loops import names_read_after, plain_loop
from ._vectorize import ROW, analyse, empty_list_before, frame_written_once, repeatable_frame

MESSAGE = "replace the index loop with a vectorized column expression"


def plan(diagnostic: Diagnostic, ctx: FixContext) -> Plan | Decline:
    found: IndexLoop = diagnostic.context  # type: ignore[assignment]
    if found.applicability is Applicability.DISPLAY:
        return Decline("the frame is not known to be a pandas or Modin frame")
    return _plan_loop(found, ctx)


def _plan_loop(found: IndexLoop, ctx: FixContext) -> Plan | Decline:
    loop, frame = found.loop, found.frame
    shape = plain_loop(loop)
    if shape is not None:
        return shape
    if not repeatable_frame(frame):
        return Decline("the frame is an expression that cannot be written once per column")
    read_after = names_read_after(found.site, ctx.semantic)
    if read_after:
        return Decline(f"the code after the loop reads {_listed(read_after)}, which the loop binds")
    statement = loop.body[0]
    forbidden = {loop.target.id} | set(found.collections)  # type: ignore[union-attr]
    if isinstance(statement, ast.Expr):
        return _plan_append(found, statement, forbidden, ctx)
    if isinstance(statement, ast.Assign):
        return _plan_column(found, statement, forbidden, ctx)
    return Decline("the loop's body neither appends to a list nor assigns a cell")


def _listed(names: set[str]) -> str:
    return ", ".join(f"`{name}`" for name in sorted(names))


def _row_text(expression: ast.expr, found: IndexLoop, what: str, ctx: FixContext) -> str | Decline:
    """The expression's code with each cell spelled `ROW["column"]` (in parentheses when it
    spans lines; `what`: the value's role)."""
    text = ctx.segment(expression)
    if "#" in text:
        return Decline(f"the {what} value holds a comment")
    base = ctx.source.offset(*_pair(ctx.start(expression)))
    replacements = []
    for cell in found.cells:
        if not any(sub is cell.node for sub in ast.walk(expression)):
            continue
        if not _named_column(cell):
            return Decline("a cell's column is not named by a string")
        if cell.by_position and found.walk != "positions":
            return Decline("a cell is read by position in a loop over labels")
        begin = ctx.source.offset(*_pair(ctx.start(cell.node))) - base
        end = ctx.source.offset(*_pair(ctx.end(cell.node))) - base
        replacements.append((begin, end, f"{ROW}[{ctx.segment(cell.column)}]"))  # type: ignore[arg-type]
    for begin, end, spelled in sorted(replacements, reverse=True):
        text = text[:begin] + spelled + text[end:]
    return text if "\n" not in text else f"({text})"


def _row_expression(
    expression: ast.expr, found: IndexLoop, forbidden: set[str], what: str, ctx: FixContext
) -> tuple[str, bool] | Decline:
    """The expression's code with each cell spelled `ROW["column"]`, and whether its rewrite
    needs NumPy; a decline when it does not vectorize (`what`: the value's role)."""
    text = _row_text(expression, found, what, ctx)
    if isinstance(text, Decline):
        return text
    try:
        parsed = ast.parse(text, mode="eval").body
    except (SyntaxError, ValueError):
        return Decline(f"the {what} value does not parse with its cells spelled as row fields")
    good, needs_numpy = analyse(parsed, ROW, forbidden)
    if not good:
        return Decline(f"the {what} value has no column form")
    return text, needs_numpy


def _pair(position: Position) -> tuple[int, int]:
    return position.line, position.col


def _named_column(cell: Cell) -> bool:
    """A cell whose column the rewrite can read as a whole column: one named by a string."""
    return isinstance(cell.column, ast.Constant) and isinstance(cell.column.value, str) and not cell.column_position


def _plan_append(found: IndexLoop, statement: ast.Expr, forbidden: set[str], ctx: FixContext) -> Plan | Decline:
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
        return Decline("the loop's body is not one `name.append(value)` call")
    target = call.func.value.id
    init = empty_list_before(loop, block, target)
    if init is None:
        return Decline(f"`{target}` is not set to an empty list right before the loop")
    row = _row_expression(call.args[0], found, forbidden | {target}, "appended", ctx)
    if isinstance(row, Decline):
        return row
    if not ctx.owns_lines(init, loop):
        return Decline("other code shares the lines of the empty list or the loop")
    frame_code = frame_written_once(found.frame, ctx)
    if isinstance(frame_code, Decline):
        return frame_code
    text, needs_numpy = row

    def render() -> tuple[Edit, ...] | Decline:
        from .render.index_loop_over_dataframe import rewrite_append

        return rewrite_append(init, loop, text, frame_code, needs_numpy, ctx)  # type: ignore[arg-type]

    return Plan(found.applicability, MESSAGE, render)


def _plan_column(found: IndexLoop, statement: ast.Assign, forbidden: set[str], ctx: FixContext) -> Plan | Decline:
    loop, frame = found.loop, found.frame
    if len(statement.targets) != 1:
        return Decline("the assignment has more than one target")
    target = statement.targets[0]
    if not (
        isinstance(target, ast.Subscript)
        and isinstance(target.value, ast.Attribute)
        and target.value.attr in ("loc", "at")
        and same_reference(target.value.value, frame)
        and isinstance(target.slice, ast.Tuple)
        and len(target.slice.elts) == 2
    ):
        return Decline("the assignment does not store a `.loc` or `.at` cell of the looped frame")
    label, column = target.slice.elts
    if not (isinstance(label, ast.Name) and label.id == loop.target.id):  # type: ignore[union-attr]
        return Decline("the cell stored is not in the loop's row")
    if not (isinstance(column, ast.Constant) and isinstance(column.value, str)):
        return Decline("the column stored is not named by a string")
    row = _row_expression(statement.value, found, forbidden, "assigned", ctx)
    if isinstance(row, Decline):
        return row
    if not ctx.owns_lines(loop, loop):
        return Decline("other code shares the loop's lines")
    frame_code = frame_written_once(frame, ctx)
    if isinstance(frame_code, Decline):
        return frame_code
    text, needs_numpy = row
    column_code = ctx.segment(column)

    def render() -> tuple[Edit, ...] | Decline:
        from .render.index_loop_over_dataframe import rewrite_column

        return rewrite_column(loop, text, frame_code, column_code, needs_numpy, ctx)  # type: ignore[arg-type]

    return Plan(found.applicability, MESSAGE, render)
