"""Whole-column and whole-array expressions written with libcst, for the vectorizing fixers.

`ElementwiseLogic` rewrites an expression's logic for whole columns or arrays (`and`/`or`/
`not` become `&`/`|`/`~`, `x if c else y` becomes `np.where`); `to_columns` turns a checked
row expression into a column expression; the rest keep parentheses and comments right.
What qualifies is decided on `ast` by the planners (`fixers._vectorize`).
"""

from __future__ import annotations

import ast

import libcst as cst

from gpulint.diagnostic import Edit
from gpulint.fixing import FixContext


def parenthesize(node: cst.BaseExpression) -> cst.BaseExpression:
    """`node` in parentheses unless it is atomic or already parenthesized."""
    if (
        isinstance(node, (cst.Name, cst.Subscript, cst.Call, cst.Attribute, cst.Integer, cst.Float, cst.SimpleString))
        or node.lpar
    ):
        return node
    return node.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


class ElementwiseLogic(cst.CSTTransformer):
    """Rewrites a per-element expression's logic for whole columns or arrays: `and`/`or`/`not`
    become `&`/`|`/`~` and `x if cond else y` becomes `np.where(cond, x, y)` (`numpy` is the
    name NumPy goes by). Subclasses say what an element reference becomes."""

    def __init__(self, numpy: str) -> None:
        self.numpy = numpy

    def is_element(self, node: cst.CSTNode) -> bool:
        """Whether `node` is an element reference, which the rewrite turns into a whole one."""
        raise NotImplementedError

    def _involves(self, node: cst.CSTNode) -> bool:
        return self.is_element(node) or any(self._involves(child) for child in node.children)

    def leave_BooleanOperation(
        self, original: cst.BooleanOperation, updated: cst.BooleanOperation
    ) -> cst.BaseExpression:
        if not self._involves(original):
            return updated  # on Python values, `not True` is False where `~True` is -2
        operator = cst.BitAnd() if isinstance(updated.operator, cst.And) else cst.BitOr()
        return cst.BinaryOperation(
            left=parenthesize(updated.left),
            operator=operator.with_changes(
                whitespace_before=updated.operator.whitespace_before,
                whitespace_after=updated.operator.whitespace_after,
            ),
            right=parenthesize(updated.right),
            lpar=updated.lpar,
            rpar=updated.rpar,
        )

    def leave_UnaryOperation(self, original: cst.UnaryOperation, updated: cst.UnaryOperation) -> cst.BaseExpression:
        if isinstance(updated.operator, cst.Not) and self._involves(original):
            return updated.with_changes(operator=cst.BitInvert(), expression=parenthesize(updated.expression))
        return updated

    def leave_IfExp(self, original: cst.IfExp, updated: cst.IfExp) -> cst.BaseExpression:
        if not self._involves(original):
            return updated
        where = cst.Attribute(value=cst.Name(self.numpy), attr=cst.Name("where"))
        return cst.Call(
            func=where,
            args=[
                cst.Arg(_strip_parens(updated.test), comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
                cst.Arg(_strip_parens(updated.body), comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
                cst.Arg(_strip_parens(updated.orelse)),
            ],
            lpar=updated.lpar,
            rpar=updated.rpar,
        )


def _strip_parens(node: cst.BaseExpression) -> cst.BaseExpression:
    return node.with_changes(lpar=[], rpar=[]) if node.lpar else node


class _ToColumns(ElementwiseLogic):
    def __init__(self, row: str, frame: cst.BaseExpression, numpy: str) -> None:
        super().__init__(numpy)
        self.row = row
        self.frame = frame

    def is_element(self, node: cst.CSTNode) -> bool:
        return isinstance(node, cst.Subscript) and isinstance(node.value, cst.Name) and node.value.value == self.row

    def leave_Subscript(self, original: cst.Subscript, updated: cst.Subscript) -> cst.BaseExpression:
        if isinstance(updated.value, cst.Name) and updated.value.value == self.row:
            return updated.with_changes(value=self.frame)
        return updated


def to_columns(expression: cst.BaseExpression, row: str, frame: str, numpy: str = "np") -> cst.BaseExpression:
    """Rewrite a (checked) row expression over `row` into one over the columns of `frame`."""
    frame_node = cst.parse_expression(frame)
    return expression.visit(_ToColumns(row, frame_node, numpy))  # type: ignore[return-value]


def with_method(expression: cst.BaseExpression, method: str) -> cst.BaseExpression:
    """`expression.method()`, parenthesizing the receiver where needed."""
    return cst.Call(func=cst.Attribute(value=parenthesize(expression), attr=cst.Name(method)))


def parse_list_comprehension(node: ast.expr, ctx: FixContext) -> cst.ListComp | None:
    """The comprehension's code parsed by libcst, unless it holds comments (a one-expression
    rewrite would lose them)."""
    try:
        parsed = cst.parse_expression(ctx.segment(node))
    except cst.ParserSyntaxError:
        return None
    if comments_in(parsed) or not isinstance(parsed, cst.ListComp):
        return None
    return parsed


def lines_to_carry(statement: cst.BaseCompoundStatement) -> list[cst.EmptyLine]:
    """What the code replacing a statement keeps above itself: the lines above the statement
    and every comment inside it."""
    return list(statement.leading_lines) + comments_in(statement.with_changes(leading_lines=[]))


def comments_in(node: cst.CSTNode) -> list[cst.EmptyLine]:
    """Every comment inside `node`, as lines to carry over to the code that replaces it.
    Each line holds the original `cst.Comment` node (`line.comment`)."""
    found: list[cst.EmptyLine] = []

    class Collect(cst.CSTVisitor):
        def visit_Comment(self, comment: cst.Comment) -> None:
            found.append(cst.EmptyLine(comment=comment))

    node.visit(Collect())
    return found


def code_of(node: cst.CSTNode) -> str:
    return cst.Module(body=[]).code_for_node(node)


def list_built_once(
    init: ast.stmt,
    loop: ast.stmt,
    init_cst: cst.SimpleStatementLine,
    loop_cst: cst.BaseCompoundStatement,
    vectorized: cst.BaseExpression,
    ctx: FixContext,
) -> Edit:
    """The edit replacing an empty list and the loop appending to it with `name = (column
    expression).tolist()`; the loop's comments move above it."""
    assign = init_cst.body[0].with_changes(value=with_method(vectorized, "tolist"))  # type: ignore[attr-defined]
    new = init_cst.with_changes(body=[assign], leading_lines=[*init_cst.leading_lines, *lines_to_carry(loop_cst)])
    return ctx.replace_statements(init, loop, [new])


def column_assigned(
    loop: ast.stmt, loop_cst: cst.BaseCompoundStatement, target: str, vectorized: cst.BaseExpression, ctx: FixContext
) -> Edit:
    """The edit replacing a loop that fills a column cell by cell with `target = column
    expression`; the loop's comments move above it."""
    new = cst.parse_statement(f"{target} = {code_of(vectorized)}")
    return ctx.replace_statements(loop, loop, [new.with_changes(leading_lines=lines_to_carry(loop_cst))])
