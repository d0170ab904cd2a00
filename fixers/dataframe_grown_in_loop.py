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

from gpulint.astutil import parses
from gpulint.diagnostic import Diagnostic, Edit
from gpulint.fixing import Decline, FixContext, Plan, suggestion
from gpulint.plans.dataframe_grown_in_loop import CollectPlan, GrowthFacts

from ._growth import before_and_after, call_arguments, comment_outside, comment_within, frame_callee

MESSAGE = "collect the pieces in a list and concatenate once after the loop"
ROW_MESSAGE = "collect the rows in a list and build the frame once after the loop"


def plan(diagnostic: Diagnostic, ctx: FixContext) -> Plan | Decline:
    facts = diagnostic.context
    if not isinstance(facts, GrowthFacts):
        return Decline("the rule handed over no growth to rewrite")
    collect = facts.plan
    if collect is None:
        return suggestion(facts.suggestion, "the rule found no loop to collect the pieces over")
    if not ctx.owns_lines(collect.site.loop, collect.site.loop):
        return suggestion(facts.suggestion, "the loop shares its lines with other code")
    records = _records(facts, collect, ctx) if collect.mode == "records" else None
    after_records = collect.mode == "records" and (records is None or not _written(facts, collect, records, ctx))
    if after_records:
        # The records cannot be written out: collect the pieces instead.
        collect, records = replace(collect, mode="parts", rows=()), None
    if records is None and not _written(facts, collect, None, ctx):
        return suggestion(
            facts.suggestion, "the loop does not hold one growth statement that an append to a list can replace"
        )
    message = ROW_MESSAGE if collect.mode in ("rows", "loc", "records") else MESSAGE

    def render() -> tuple[Edit, ...] | Decline:
        from .render.dataframe_grown_in_loop import rewrite

        return rewrite(facts, collect, records, after_records, ctx)

    return Plan(facts.applicability, message, render)


def _written(facts: GrowthFacts, collect: CollectPlan, records: tuple[str, ...] | None, ctx: FixContext) -> bool:
    """Whether the growth statement becomes an append (`records`: the dict rows written in
    place of the one-row literals) and the statements around the loop parse."""
    if not _growth_replaced(facts, collect, records is not None, ctx):
        return False
    before, after = before_and_after(collect, "parts", frame_callee(facts, collect, ctx), ctx)
    return parses(before) and parses(after)


# -- what the rewrite writes -------------------------------------------------------------------


def _records(facts: GrowthFacts, collect: CollectPlan, ctx: FixContext) -> tuple[str, ...] | None:
    """Each one-row literal written as a dict row (`{"a": x, "b": y}`), from the source of
    its labels and values; None where a literal holds a comment (it would be lost)."""
    if not collect.rows:
        return None
    written = []
    for piece in collect.rows:
        if comment_within(piece.binding or facts.growth.statement, piece.literal, ctx):
            return None
        entries = ", ".join(
            f"{ctx.segment(c)}: {ctx.segment(v)}" for c, v in zip(piece.columns, piece.values, strict=False)
        )
        text = "{" + entries + "}"
        if not parses(text, "eval"):
            return None
        written.append(text)
    return tuple(written)


# -- the growth statement, as the rewrite replaces it -----------------------------------------


def _growth_replaced(facts: GrowthFacts, collect: CollectPlan, records: bool, ctx: FixContext) -> bool:
    """Whether exactly one statement of the loop is the growth, and it can become an append
    to the list (with `records` and a named piece: the piece's binding becomes it)."""
    loop = collect.site.loop
    if records and collect.rows[0].binding is not None:
        return _named_piece_replaced(collect, collect.rows[0].binding, ctx)
    kind = facts.growth.kind
    matches = [node for node in ast.walk(loop) if isinstance(node, ast.Assign) and _is_growth(node, kind, collect.name)]
    if len(matches) != 1:
        return False
    statement = matches[0]
    pieces = _pieces(statement, kind, collect.name)
    if pieces is None or len(pieces) != len(collect.pieces):
        return False
    # Comments outside the pieces move to a line of their own above the append, which a
    # block written on its header's line does not have.
    return not (_in_one_line_block(statement, loop, ctx) and comment_outside(statement, pieces, ctx))


def _is_growth(node: ast.Assign, kind: str, name: str) -> bool:
    if len(node.targets) != 1:
        return False
    target = node.targets[0]
    if kind == "loc":
        return (
            isinstance(target, ast.Subscript)
            and isinstance(target.value, ast.Attribute)
            and isinstance(target.value.value, ast.Name)
            and target.value.value.id == name
            and target.value.attr == "loc"
        )
    return isinstance(target, ast.Name) and target.id == name


def _pieces(node: ast.Assign, kind: str, name: str) -> list[ast.expr] | None:
    """What the append adds: the `.loc` row, the appended value, or the new frames of the
    `concat` list."""
    if kind == "loc":
        return [node.value]
    call = node.value
    if not isinstance(call, ast.Call):
        return None
    arguments = call_arguments(call)
    if not arguments:
        return None
    first = arguments[0]
    if kind == "append":
        return [first]
    if not isinstance(first, (ast.List, ast.Tuple)):
        return None
    values = [e.value if isinstance(e, ast.Starred) else e for e in first.elts]
    return [v for v in values if not (isinstance(v, ast.Name) and v.id == name)]


def _named_piece_replaced(collect: CollectPlan, binding: ast.Assign, ctx: FixContext) -> bool:
    """Whether the piece's binding and the growth statement are, in one block only, each
    alone on its line, the binding first."""
    piece = binding.targets[0].id  # type: ignore[attr-defined]
    names = (collect.name, piece)
    replaced = 0
    for block in _blocks(collect.site.loop):
        if ctx.indent_of(block[0]) is None:  # `for ...: piece = ...; frame = ...`
            if any(_assigns_one(statement, names) for statement in block):
                return False
            continue
        lines = _lines(block)
        bound = [i for i, line in enumerate(lines) if any(_assigns_one(s, (piece,)) for s in line)]
        grown = [i for i, line in enumerate(lines) if any(_assigns_one(s, (collect.name,)) for s in line)]
        if not bound and not grown:
            continue
        if (
            len(bound) != 1
            or len(grown) != 1
            or bound[0] >= grown[0]
            or any(len(lines[i]) != 1 for i in (*bound, *grown))
        ):
            return False
        replaced += 1
    return replaced == 1


def _assigns_one(statement: ast.stmt, names: tuple[str, ...]) -> bool:
    """`name = ...` with one plain-name target among `names`."""
    return (
        isinstance(statement, ast.Assign)
        and len(statement.targets) == 1
        and isinstance(statement.targets[0], ast.Name)
        and statement.targets[0].id in names
    )


def _blocks(loop: ast.stmt) -> list[list[ast.stmt]]:
    """Every block of statements in `loop`, its own included."""
    found = []
    for node in ast.walk(loop):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if not isinstance(block, list) or not block or not isinstance(block[0], ast.stmt):
                continue
            found.append(block)
    return found


def _lines(block: list[ast.stmt]) -> list[list[ast.stmt]]:
    """The block's statements, grouped by the line they share (`a = 1; b = 2`)."""
    lines: list[list[ast.stmt]] = []
    for statement in block:
        previous = lines[-1][-1] if lines else None
        if previous is not None and statement.lineno == previous.end_lineno:
            lines[-1].append(statement)
        else:
            lines.append([statement])
    return lines


def _in_one_line_block(statement: ast.stmt, loop: ast.stmt, ctx: FixContext) -> bool:
    """`statement` is in a block written on its header's line (`for x in xs: a; b`)."""
    for block in _blocks(loop):
        if any(s is statement for s in block):
            return ctx.indent_of(block[0]) is None
    return False
