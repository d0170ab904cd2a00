"""Renderer for GPU101 dataframe-grown-in-loop: the list building the planner decided on, written with libcst."""

from __future__ import annotations

import ast

import libcst as cst

from gpulint.diagnostic import Edit
from gpulint.fixing import Decline, FixContext
from gpulint.plans.dataframe_grown_in_loop import CollectPlan, GrowthFacts

from .._growth import MODULES, before_and_after, frame_callee
from .columns import comments_in


def rewrite(
    facts: GrowthFacts, collect: CollectPlan, records: tuple[str, ...] | None, after_records: bool, ctx: FixContext
) -> tuple[Edit, ...] | Decline:
    """The edits creating the list before the loop, appending to it in the loop and building
    the frame once after the loop (`records`: the dict rows replacing the one-row literals;
    `after_records`: the pieces are collected where records could not be, and the name the
    records would have taken stays taken)."""
    growth = facts.growth
    site = collect.site
    loop = site.loop
    statements = ctx.parse_statements(loop, loop)
    if statements is None or len(statements) != 1:
        return Decline("libcst does not read the loop as one statement")
    loop_cst = statements[0]
    if after_records:
        ctx.fresh_name("rows")
    collected = ctx.fresh_name("parts" if collect.mode == "parts" else "rows")
    replacer: _ReplaceGrowth | _ReplaceNamedPiece
    binding = collect.rows[0].binding if records is not None else None
    if records is not None and binding is not None:
        replacer = _ReplaceNamedPiece(collect.name, binding, collected, records[0])
    else:
        replacer = _ReplaceGrowth(collect, growth.kind, collected, records)
    try:
        new_loop = loop_cst.visit(replacer)
    except cst.ParserSyntaxError:
        return Decline("libcst does not parse a dict row")
    if replacer.replaced != 1 or replacer.failed:
        return Decline("libcst reads the growth statement otherwise than the planner")

    import_edits: tuple[Edit, ...] = ()
    library = None
    if growth.kind != "concat" and collect.mode != "loc":
        module, alias = MODULES.get(growth.lib, MODULES["pandas"])
        library, import_edits = ctx.ensure_import(module, alias)
    before, after = before_and_after(collect, collected, frame_callee(facts, collect, ctx, library), ctx)
    try:
        first = cst.parse_statement(before).with_changes(leading_lines=loop_cst.leading_lines)
        last = cst.parse_statement(after)
    except cst.ParserSyntaxError:
        return Decline("libcst does not parse the statements around the loop")
    if collect.mode == "records" and not site.runs_once:
        # Build the frame only if the loop added rows: as the original, which then never
        # calls `concat`, an empty loop leaves the start as it is.
        body = loop_cst.body
        if isinstance(body, cst.IndentedBlock):
            block = body.with_changes(body=[last], header=cst.TrailingWhitespace(), footer=[])
        else:
            block = cst.IndentedBlock(body=[last])
        last = cst.If(test=cst.Name(collected), body=block)
    new_loop = new_loop.with_changes(leading_lines=[])
    return (*import_edits, ctx.replace_statements(loop, loop, [first, new_loop, last]))


class _ReplaceGrowth(cst.CSTTransformer):
    """Swap the (only) growth statement in the loop for `<collected>.append(piece)` (with
    `records`: the dict rows written for its one-row frame literals, in order)."""

    def __init__(self, collect: CollectPlan, kind: str, collected: str, records: tuple[str, ...] | None = None) -> None:
        self.collect = collect
        self.kind = kind
        self.collected = collected
        self.records = records
        self.replaced = 0
        self.failed = False
        self._carry: list[cst.Comment] = []

    def _is_growth(self, node: cst.Assign) -> bool:
        if len(node.targets) != 1:
            return False
        target = node.targets[0].target
        if self.kind == "loc":
            return (
                isinstance(target, cst.Subscript)
                and isinstance(target.value, cst.Attribute)
                and isinstance(target.value.value, cst.Name)
                and target.value.value.value == self.collect.name
                and target.value.attr.value == "loc"
            )
        return isinstance(target, cst.Name) and target.value == self.collect.name

    def _pieces(self, node: cst.Assign) -> list[cst.BaseExpression] | None:
        if self.kind == "loc":
            return [node.value]
        call = node.value
        if not isinstance(call, cst.Call):
            return None
        first = call.args[0].value
        if self.kind == "append":
            return [first]
        if not isinstance(first, (cst.List, cst.Tuple)):
            return None
        values = [element.value for element in first.elements]
        return [v for v in values if not (isinstance(v, cst.Name) and v.value == self.collect.name)]

    def leave_Assign(self, original: cst.Assign, updated: cst.Assign) -> cst.BaseSmallStatement:
        if not self._is_growth(updated):
            return updated
        pieces = self._pieces(updated)
        if pieces is None or len(pieces) != len(self.collect.pieces):
            self.failed = True
            return updated
        self.replaced += 1
        kept = {id(line.comment) for piece in pieces for line in comments_in(piece)}
        if self.records is not None:  # the literals hold no comment (see `_records`)
            pieces = [cst.parse_expression(text) for text in self.records]
        self._carry.extend(line.comment for line in comments_in(updated) if id(line.comment) not in kept)
        collected = cst.Name(self.collected)
        if len(pieces) == 1:
            call = cst.Call(func=cst.Attribute(value=collected, attr=cst.Name("append")), args=[cst.Arg(pieces[0])])
        else:
            comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
            elements = [
                cst.Element(p, comma=comma if i < len(pieces) - 1 else cst.MaybeSentinel.DEFAULT)
                for i, p in enumerate(pieces)
            ]
            call = cst.Call(
                func=cst.Attribute(value=collected, attr=cst.Name("extend")), args=[cst.Arg(cst.List(elements))]
            )
        return cst.Expr(call)

    def leave_SimpleStatementLine(
        self, original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine
    ) -> cst.SimpleStatementLine:
        if not self._carry:
            return updated
        carried = [cst.EmptyLine(comment=c) for c in self._carry]
        self._carry = []
        return updated.with_changes(leading_lines=[*updated.leading_lines, *carried])

    def leave_SimpleStatementSuite(
        self, original: cst.SimpleStatementSuite, updated: cst.SimpleStatementSuite
    ) -> cst.SimpleStatementSuite:
        if self._carry:  # no line of its own to carry comments to
            self.failed = True
        return updated


class _ReplaceNamedPiece(cst.CSTTransformer):
    """Where the growth statement concatenates a one-row literal bound earlier in its block
    (`piece = pd.DataFrame(...)`), write `<collected>.append(<record>)` in place of the
    binding and drop the growth statement; its comments move above the new line."""

    def __init__(self, name: str, binding: ast.Assign, collected: str, record: str) -> None:
        self.name = name
        self.piece = binding.targets[0].id  # type: ignore[attr-defined]
        self.collected = collected
        self.record = record
        self.replaced = 0
        self.failed = False

    @staticmethod
    def _assigns_one(small: cst.BaseSmallStatement, names: tuple[str, ...]) -> bool:
        """`small` is `name = ...` with one plain-name target among `names`."""
        return (
            isinstance(small, cst.Assign)
            and len(small.targets) == 1
            and isinstance(small.targets[0].target, cst.Name)
            and small.targets[0].target.value in names
        )

    def _assigns(self, line: cst.BaseStatement, name: str) -> bool:
        return isinstance(line, cst.SimpleStatementLine) and any(
            self._assigns_one(small, (name,)) for small in line.body
        )

    def leave_SimpleStatementSuite(
        self, original: cst.SimpleStatementSuite, updated: cst.SimpleStatementSuite
    ) -> cst.SimpleStatementSuite:
        if any(self._assigns_one(small, (self.name, self.piece)) for small in updated.body):
            self.failed = True  # `for ...: piece = ...; frame = ...` has no lines to keep comments on
        return updated

    def leave_IndentedBlock(self, original: cst.IndentedBlock, updated: cst.IndentedBlock) -> cst.IndentedBlock:
        body = list(updated.body)
        binding = [i for i, line in enumerate(body) if self._assigns(line, self.piece)]
        growth = [i for i, line in enumerate(body) if self._assigns(line, self.name)]
        if not binding and not growth:
            return updated
        if (
            len(binding) != 1
            or len(growth) != 1
            or binding[0] >= growth[0]
            or any(len(body[i].body) != 1 for i in (*binding, *growth))
        ):  # type: ignore[attr-defined]
            self.failed = True
            return updated
        old = body[binding[0]]
        moved = comments_in(body[growth[0]])
        append = cst.Expr(
            cst.Call(
                func=cst.Attribute(value=cst.Name(self.collected), attr=cst.Name("append")),
                args=[cst.Arg(cst.parse_expression(self.record))],
            )
        )
        body[binding[0]] = old.with_changes(body=[append], leading_lines=[*old.leading_lines, *moved])  # type: ignore[attr-defined]
        del body[growth[0]]
        self.replaced += 1
        return updated.with_changes(body=body)
