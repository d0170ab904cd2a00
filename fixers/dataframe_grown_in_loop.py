"""Fixer for GPU101 dataframe-grown-in-loop: writes the list building the rule decided on
(`GrowthFacts.plan`, with its applicability); where it has none, or the rewrite cannot be
written out, the suggestion is shown.

Rewritten shapes:

    frame = pd.DataFrame()                       frame = pd.DataFrame()
    for x in xs:                                 parts = [frame]
        frame = pd.concat([frame, f(x)], ...) -> for x in xs:
                                                     parts.append(f(x))
                                                 frame = pd.concat(parts, ...)

    `[f(x), frame]` (prepending) becomes `pd.concat(parts[::-1], ...)`; several new
    pieces (`[frame, a, b]`) become `parts.extend([a, b])`.

    frame = pd.DataFrame()                       frame = pd.DataFrame()
    for x in xs:                                 rows = []
        piece = pd.DataFrame({"a": [x]})     ->  for x in xs:
        frame = pd.concat([frame, piece],            rows.append({"a": x})
                          ignore_index=True)     if rows:
                                                     frame = pd.concat([frame, pd.DataFrame(rows, columns=["a"])],
                                                                       ignore_index=True)

    ("records": one-row frame literals collected as dict rows; the `if rows:` guard, left out
    where the loop always runs, keeps a loop that runs zero times from adding the columns.
    Where a literal holds a comment, the pieces are collected instead.)

    frame = frame.append(other_frame)        ->  as above, with `pd.concat`
    frame = frame.append({...}, ignore_index=True)
                                             ->  rows.append({...}) in the loop, then
                                                 frame = pd.concat([frame, pd.DataFrame(rows)],
                                                                   ignore_index=True)

    frame = pd.DataFrame(columns=cols)           frame = pd.DataFrame(columns=cols)
    for x in xs:                             ->  rows = []
        frame.loc[len(frame)] = [x, g(x)]        for x in xs:
                                                     rows.append([x, g(x)])
                                                 frame = pd.DataFrame(rows, columns=frame.columns)
"""

from __future__ import annotations

import ast
from dataclasses import replace

import libcst as cst

from gpulint.diagnostic import Diagnostic, Edit, Fix
from gpulint.fixing import FixContext, display_fix
from gpulint.rules.dataframe.dataframe_grown_in_loop import CollectPlan, GrowthFacts, RowPiece

from ._vectorize import comments_in

MESSAGE = "collect the pieces in a list and concatenate once after the loop"
ROW_MESSAGE = "collect the rows in a list and build the frame once after the loop"

#: Module to import for `concat`/`DataFrame` when the source only calls a method.
_MODULES = {
    "pandas": ("pandas", "pd"),
    "cudf": ("cudf", "cudf"),
    "modin": ("modin.pandas", "mpd"),
    "dask": ("dask.dataframe", "dd"),
}


def fix(diagnostic: Diagnostic, ctx: FixContext) -> Fix | None:
    facts = diagnostic.context
    if not isinstance(facts, GrowthFacts):
        return None
    plan = facts.plan
    result = None
    if plan is not None:  # the rule found a rewrite that applies (SAFE or UNSAFE)
        result = _rewrite(facts, plan, ctx)
        if result is None and plan.mode == "records":
            # The records could not be written out: collect the pieces instead.
            result = _rewrite(facts, replace(plan, mode="parts", rows=()), ctx)
    return result if result is not None else display_fix(facts.suggestion)


# -- writing it ----------------------------------------------------------------------------------


def _rewrite(facts: GrowthFacts, plan: CollectPlan, ctx: FixContext) -> Fix | None:
    growth = facts.growth
    site = plan.site
    assert site is not None
    loop = site.loop
    statements = ctx.parse_statements(loop, loop)
    if statements is None or len(statements) != 1:
        return None
    loop_cst = statements[0]
    name = plan.name
    collected = ctx.fresh_name("parts" if plan.mode == "parts" else "rows")
    records = _records(plan.rows, ctx) if plan.mode == "records" else None
    if plan.mode == "records" and records is None:
        return None
    replacer: _ReplaceGrowth | _ReplaceNamedPiece
    binding = plan.rows[0].binding if records is not None else None
    if records is not None and binding is not None:
        replacer = _ReplaceNamedPiece(plan.name, binding, collected, records[0])
    else:
        replacer = _ReplaceGrowth(plan, growth.kind, collected, records)
    new_loop = loop_cst.visit(replacer)
    if replacer.replaced != 1 or replacer.failed:
        return None

    import_edits: tuple[Edit, ...] = ()
    if growth.kind == "concat":
        callee = ctx.segment(growth.call.func)  # type: ignore[union-attr]
    elif plan.mode == "loc":
        callee = ctx.segment(site.init.value.func)  # type: ignore[union-attr]
    else:
        module, alias = _MODULES.get(growth.lib, _MODULES["pandas"])
        library, import_edits = ctx.ensure_import(module, alias)
        callee = f"{library}.concat"
    keywords = "".join(f", {ctx.segment(k)}" for k in plan.keywords)

    if plan.mode == "parts":
        before = f"{collected} = [{name}]"
        order = "[::-1]" if plan.prepend else ""
        after = f"{name} = {callee}({collected}{order}{keywords})"
    elif plan.mode == "rows":
        before = f"{collected} = []"
        frame = callee[: -len("concat")] + "DataFrame"
        after = f"{name} = {callee}([{name}, {frame}({collected})]{keywords})"
    elif plan.mode == "records":
        rows = plan.rows
        labels: dict[str, str] = {}
        for piece in rows:
            for column in piece.columns:
                labels.setdefault(column.value, ctx.segment(column))  # type: ignore[attr-defined]
        before = f"{collected} = []"
        frame = ctx.segment(rows[0].literal.func)
        after = f"{name} = {callee}([{name}, {frame}({collected}, columns=[{', '.join(labels.values())}])]{keywords})"
    else:
        before = f"{collected} = []"
        after = f"{name} = {callee}({collected}, columns={name}.columns)"
    try:
        first = cst.parse_statement(before).with_changes(leading_lines=loop_cst.leading_lines)
        last = cst.parse_statement(after)
    except cst.ParserSyntaxError:
        return None
    if plan.mode == "records" and not site.runs_once:
        # Build the frame only if the loop added rows: as the original, which then never
        # calls `concat`, an empty loop leaves the start as it is.
        body = loop_cst.body
        if isinstance(body, cst.IndentedBlock):
            block = body.with_changes(body=[last], header=cst.TrailingWhitespace(), footer=[])
        else:
            block = cst.IndentedBlock(body=[last])
        last = cst.If(test=cst.Name(collected), body=block)
    new_loop = new_loop.with_changes(leading_lines=[])
    edit = ctx.replace_statements(loop, loop, [first, new_loop, last])
    message = ROW_MESSAGE if plan.mode in ("rows", "loc", "records") else MESSAGE
    return Fix(facts.applicability, message, (*import_edits, edit))


def _records(rows: tuple[RowPiece, ...], ctx: FixContext) -> list[str] | None:
    """Each one-row literal written as a dict row (`{"a": x, "b": y}`), from the source of
    its labels and values; None where a literal holds a comment (it would be lost)."""
    if not rows:
        return None
    written = []
    for piece in rows:
        try:
            literal = cst.parse_expression(ctx.segment(piece.literal))
        except cst.ParserSyntaxError:
            return None
        if comments_in(literal):
            return None
        entries = ", ".join(
            f"{ctx.segment(c)}: {ctx.segment(v)}" for c, v in zip(piece.columns, piece.values, strict=False)
        )
        text = "{" + entries + "}"
        try:
            cst.parse_expression(text)
        except cst.ParserSyntaxError:
            return None
        written.append(text)
    return written


class _ReplaceGrowth(cst.CSTTransformer):
    """Swap the (only) growth statement in the loop for `<collected>.append(piece)` (with
    `records`: the dict rows written for its one-row frame literals, in order)."""

    def __init__(self, plan: CollectPlan, kind: str, collected: str, records: list[str] | None = None) -> None:
        self.plan = plan
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
                and target.value.value.value == self.plan.name
                and target.value.attr.value == "loc"
            )
        return isinstance(target, cst.Name) and target.value == self.plan.name

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
        return [v for v in values if not (isinstance(v, cst.Name) and v.value == self.plan.name)]

    def leave_Assign(self, original: cst.Assign, updated: cst.Assign) -> cst.BaseSmallStatement:
        if not self._is_growth(updated):
            return updated
        pieces = self._pieces(updated)
        if pieces is None or len(pieces) != len(self.plan.pieces):
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
