"""Adding keyword arguments to a call without disturbing its layout.

    f(a, b)               ->  f(a, b, k=v)
    f(                    ->  f(
        a,                        a,
        b,  # note                b,  # note
    )                             k=v,
                              )
    f(a,                  ->  f(a,
      b)                        b,
                                k=v)

On one line the keywords follow the last argument. When the call puts arguments at the
start of their own lines, each keyword gets a line of its own with the indentation of the
last such argument; a trailing comma stays the last thing before the closing parenthesis
when the call had one, comments stay where they were and the closing parenthesis too.
"""

from __future__ import annotations

import ast
import io
import tokenize
from collections.abc import Sequence

from gpulint.diagnostic import Edit, Position
from gpulint.fixing import Decline, FixContext

#: Tokens that are layout, not code.
_LAYOUT = (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT)


def add_keywords(ctx: FixContext, call: ast.Call, keywords: Sequence[tuple[str, str]]) -> tuple[Edit, ...] | Decline:
    """Edits appending `name=value` for each of `keywords` to `call`; declined when the call's
    text does not tokenize as expected, or its one argument is a bare generator."""
    if not keywords:
        return ()
    arguments = sorted([*call.args, *call.keywords], key=lambda node: (node.lineno, node.col_offset))
    if len(arguments) == 1 and isinstance(arguments[0], ast.GeneratorExp):
        return Decline("the call's one argument is a bare generator, which takes no keyword beside it")
    tokens = _tokens(ctx, call)
    if tokens is None or len(tokens) < 2 or tokens[-1].string != ")":
        return Decline("the call's text does not read as a call closed by its parenthesis")
    index = _before(tokens, len(tokens) - 1)
    if not arguments:
        if tokens[index].string != "(":
            return Decline("the call's text does not read as a call closed by its parenthesis")
        same_line = tokens[index].start[0] == tokens[-1].start[0]
        at = _position(ctx, call, tokens[-1].start if same_line else tokens[index].end)
        return (Edit(at, at, ", ".join(f"{name}={value}" for name, value in keywords)),)
    # The last argument ends at the last token before its trailing comma (a parenthesized
    # argument ends after its closing parenthesis, which `ast` leaves out).
    comma = tokens[index] if tokens[index].string == "," else None
    if comma is not None:
        index = _before(tokens, index)
    end = _position(ctx, call, tokens[index].end)
    indent = _indent(ctx, arguments)
    if indent is None:  # every argument follows something else on its line: stay on that line
        return (Edit(end, end, "".join(f", {name}={value}" for name, value in keywords)),)
    newline = ctx.source.newline
    after = _position(ctx, call, comma.end) if comma is not None else end
    close = _position(ctx, call, tokens[-1].start)
    if close.line == after.line:  # `f(a,\n  b)`: the closing parenthesis stays after the keywords
        lines = "".join(f",{newline}{indent}{name}={value}" for name, value in keywords)
        if comma is not None:
            return (Edit(after, after, lines[1:] + ","),)
        return (Edit(end, end, lines),)
    # The closing parenthesis comes on a later line: a new line per keyword before that line.
    lines = f",{newline}".join(f"{indent}{name}={value}" for name, value in keywords)
    at = Position(after.line + 1, 0)
    added = Edit(at, at, lines + ("," if comma is not None else "") + newline)
    return (added,) if comma is not None else (Edit(end, end, ","), added)


def _tokens(ctx: FixContext, call: ast.Call) -> list[tokenize.TokenInfo] | None:
    """The call's tokens without the end markers; positions relative to its text."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(ctx.segment(call), newline=None).readline))
    except (tokenize.TokenError, SyntaxError):
        return None
    while tokens and tokens[-1].type in (tokenize.ENDMARKER, tokenize.NEWLINE, tokenize.NL, tokenize.DEDENT):
        tokens.pop()
    return tokens


def _before(tokens: list[tokenize.TokenInfo], index: int) -> int:
    """The index of the last token before `index` that is no comment or line break."""
    index -= 1
    while index > 0 and tokens[index].type in _LAYOUT:
        index -= 1
    return index


def _position(ctx: FixContext, call: ast.Call, point: tuple[int, int]) -> Position:
    """A (row, col) in the call's text as a position in the file."""
    start = ctx.start(call)
    row, col = point
    return Position(start.line + row - 1, start.col + col if row == 1 else col)


def _indent(ctx: FixContext, arguments: list[ast.expr | ast.keyword]) -> str | None:
    """The indentation of the last argument that starts its line (after nothing but
    whitespace and opening parentheses), or None if none does."""
    for argument in reversed(arguments):
        start = ctx.start(argument)
        line = ctx.source.line(start.line)
        if not line[: start.col].strip(" \t("):
            return line[: len(line) - len(line.lstrip(" \t"))]
    return None
