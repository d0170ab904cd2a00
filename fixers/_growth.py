"""What the growth fixers (GPU101, GPU202) read of the source and write after the loop,
on `ast` and tokens: shared by their planners, which decide, and their renderers, which write."""

from __future__ import annotations

import ast
import io
import keyword
import tokenize

from gpulint.diagnostic import Position
from gpulint.fixing import FixContext
from gpulint.plans.array_grown_in_loop import Growth
from gpulint.plans.dataframe_grown_in_loop import CollectPlan, GrowthFacts


#: Module to import for `concat`/`DataFrame` when the source only calls a method.
MODULES = {
    "pandas": ("pandas", "pd"),
    "cudf": ("cudf", "cudf"),
    "modin": ("modin.pandas", "mpd"),
    "dask": ("dask.dataframe", "dd"),
}


def before_and_after(collect: CollectPlan, collected: str, function: str, ctx: FixContext) -> tuple[str, str]:
    """The statement creating the list before the loop and the one building the frame after it."""
    name = collect.name
    keywords = "".join(f", {ctx.segment(k)}" for k in collect.keywords)
    if collect.mode == "parts":
        order = "[::-1]" if collect.prepend else ""
        return f"{collected} = [{name}]", f"{name} = {function}({collected}{order}{keywords})"
    if collect.mode == "rows":
        frame = function[: -len("concat")] + "DataFrame"
        return f"{collected} = []", f"{name} = {function}([{name}, {frame}({collected})]{keywords})"
    if collect.mode == "records":
        labels: dict[str, str] = {}
        for piece in collect.rows:
            for column in piece.columns:
                labels.setdefault(column.value, ctx.segment(column))  # type: ignore[attr-defined]
        frame = ctx.segment(collect.rows[0].literal.func)
        columns = ", ".join(labels.values())
        return (
            f"{collected} = []",
            f"{name} = {function}([{name}, {frame}({collected}, columns=[{columns}])]{keywords})",
        )
    return f"{collected} = []", f"{name} = {function}({collected}, columns={name}.columns)"


def frame_callee(facts: GrowthFacts, collect: CollectPlan, ctx: FixContext, library: str | None = None) -> str:
    """The function building the frame after the loop (`library`: the name of the module to
    import where the source only calls a method; its usual alias when None)."""
    growth = facts.growth
    if growth.kind == "concat":
        return ctx.segment(growth.call.func)  # type: ignore[union-attr]
    if collect.mode == "loc":
        return ctx.segment(collect.site.init.value.func)  # type: ignore[union-attr]
    if library is None:
        library = MODULES.get(growth.lib, MODULES["pandas"])[1]
    return f"{library}.concat"


def array_callee(growth: Growth, ctx: FixContext, numpy_name: str = "np") -> str:
    """The function called after the loop (`numpy_name`: NumPy's name where a bare
    `append(...)` is replaced)."""
    if isinstance(growth.call, ast.Subscript):
        return ctx.segment(growth.call.value)
    func = growth.call.func
    if growth.function != "append":
        return ctx.segment(func)
    if isinstance(func, ast.Attribute):
        return f"{ctx.segment(func.value)}.concatenate"
    return f"{numpy_name}.concatenate"


def joined(growth: Growth, collected: str, function: str, ctx: FixContext) -> str:
    """The one concatenation of `collected` with `function` and the call's options."""
    if isinstance(growth.call, ast.Subscript):
        return f"{function}[tuple({collected})]"
    keywords = "".join(f", {ctx.segment(k)}" for k in growth.call.keywords)
    if growth.function == "append" and not growth.call.keywords:
        keywords = ", axis=None"
    return f"{function}({collected}{keywords})"


# -- reading the source as the rewrite writes it ---------------------------------------------


def call_arguments(call: ast.Call) -> list[ast.expr]:
    """The call's argument values in source order, positional and keyword alike (`*a` and
    `**k` as `a` and `k`)."""
    found = [(a.value if isinstance(a, ast.Starred) else a, a) for a in call.args]
    found += [(k.value, k) for k in call.keywords]
    found.sort(key=lambda pair: (pair[1].lineno, pair[1].col_offset))
    return [value for value, _ in found]


def subscript_items(node: ast.Subscript, statement: ast.stmt, ctx: FixContext) -> list[ast.expr]:
    """The items between the brackets: those of a tuple written without parentheses
    (`np.r_[a, b]`), else the one index (`np.r_[(a, b)]` holds one tuple)."""
    index = node.slice
    if isinstance(index, ast.Tuple) and not _tuple_in_parentheses(index, statement, ctx):
        return list(index.elts)
    return [index]


def _tuple_in_parentheses(node: ast.Tuple, statement: ast.stmt, ctx: FixContext) -> bool:
    first = statement.lineno
    tokens = _tokens(ctx, first, statement.end_lineno)  # type: ignore[arg-type]
    if tokens is None:
        return False
    start, end = ctx.start(node), ctx.end(node)
    inside = [t for t in tokens if t.type not in _NOT_CODE and start <= _at(t, first) and _past(t, first) <= end]
    if len(inside) < 2 or inside[0].string != "(" or inside[-1].string != ")":
        return False
    depth = 0
    for token in inside[:-1]:
        if token.type == tokenize.OP and token.string in _OPENING:
            depth += 1
        elif token.type == tokenize.OP and token.string in _CLOSING:
            depth -= 1
        if depth == 0:
            return False  # the first parenthesis closes before the end: `(a), (b)`
    return True


def comment_outside(statement: ast.stmt, pieces: list[ast.expr], ctx: FixContext) -> bool:
    """Whether a comment lies in `statement` outside every piece (a piece reaching over the
    parentheses around it). Lines that do not read as tokens count as holding one."""
    first = statement.lineno
    tokens = _tokens(ctx, first, statement.end_lineno)  # type: ignore[arg-type]
    if tokens is None:
        return True
    code = [t for t in tokens if t.type not in _NOT_CODE]
    spans = [_span_in_parentheses(piece, code, first, ctx) for piece in pieces]
    start, end = ctx.start(statement), ctx.end(statement)
    return any(
        start <= (at := _at(t, first)) < end and not any(a <= at < b for a, b in spans)
        for t in tokens
        if t.type == tokenize.COMMENT
    )


def comment_within(statement: ast.stmt, node: ast.expr, ctx: FixContext) -> bool:
    """Whether a comment lies in `node`, part of `statement` (whose lines are read as
    tokens; lines that do not read as tokens count as holding one)."""
    first = statement.lineno
    tokens = _tokens(ctx, first, statement.end_lineno)  # type: ignore[arg-type]
    if tokens is None:
        return True
    start, end = ctx.start(node), ctx.end(node)
    return any(t.type == tokenize.COMMENT and start <= _at(t, first) < end for t in tokens)


def _span_in_parentheses(
    node: ast.expr, code: list[tokenize.TokenInfo], first: int, ctx: FixContext
) -> tuple[Position, Position]:
    start, end = ctx.start(node), ctx.end(node)
    before = [i for i, t in enumerate(code) if _at(t, first) < start]
    after = [i for i, t in enumerate(code) if _past(t, first) > end]
    i, j = (before[-1] if before else -1), (after[0] if after else len(code))
    while (
        i >= 0
        and j < len(code)
        and code[i].string == "("
        and code[j].string == ")"
        and not _calls(code[i - 1] if i > 0 else None)
    ):
        start, end = _at(code[i], first), _past(code[j], first)
        i, j = i - 1, j + 1
    return start, end


def _calls(token: tokenize.TokenInfo | None) -> bool:
    """A parenthesis after `token` opens a call's arguments."""
    if token is None:
        return False
    if token.type == tokenize.NAME:
        return not keyword.iskeyword(token.string)
    return token.type == tokenize.STRING or token.string in _CLOSING


_OPENING = frozenset("([{")
_CLOSING = frozenset(")]}")
_NOT_CODE = (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER)


def _tokens(ctx: FixContext, first: int, last: int) -> list[tokenize.TokenInfo] | None:
    """The tokens of lines `first`..`last`; None where they do not read as tokens."""
    text = "\n".join(ctx.source.line(number) for number in range(first, last + 1)) + "\n"
    try:
        return list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError):
        return None


def _at(token: tokenize.TokenInfo, first: int) -> Position:
    return Position(first + token.start[0] - 1, token.start[1])


def _past(token: tokenize.TokenInfo, first: int) -> Position:
    return Position(first + token.end[0] - 1, token.end[1])
