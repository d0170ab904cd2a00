"""Code written for a newer Python than the one gpulint runs on, read all the same.

`ast` parses only its own interpreter's grammar: on Python 3.11, a `type X = ...` statement
(PEP 695, Python 3.12), a function or class with type parameters (`def f[T](x: T)`), an
f-string that reuses its quotes or holds a comment or backslash (PEP 701, 3.12) and a
t-string (PEP 750, 3.14) are syntax errors. libcst parses every version's grammar, so a
file `ast` rejects is read with libcst, and the newer constructs are rewritten in place to
code of the same length that this interpreter parses, every other character left where it
was: the tree `ast` then gives has the positions of the file itself.

- `type X[T] = V` becomes `0;   X    = V`: the keyword gives way to an expression statement
  and the type parameters to spaces, so `X` is bound to `V` where it stood;
- type parameters of a function or class become spaces (`def f   (x: T)`);
- a t-string becomes the f-string with the same text (`t"{x}"` reads as `f"{x}"`);
- an f-string (or t-string) this interpreter still cannot read becomes an empty string of
  the same shape (across lines, joined by backslash continuations): what its fields
  compute goes unchecked.

Anything else this interpreter rejects is left to be reported as a syntax error.

Each construct is also a `Feature`, with the Python version that introduced it: under a
`target-version` older than that, GPU001 reports it (`features` finds them in any tree,
lowered or parsed natively by a newer interpreter; natively, an f-string of PEP 701's
forms cannot be told from an older one and is not found).
"""

from __future__ import annotations

import ast
import sys
import warnings
from collections.abc import Callable
from typing import Any, NamedTuple


class Feature(NamedTuple):
    """A construct of a newer Python: where it starts (line from 1, column from 0), what
    it is, and the version that introduced it."""

    line: int
    column: int
    what: str
    version: tuple[int, int]


TYPE_STATEMENT = ("`type` statement", (3, 12))
TYPE_PARAMETERS = ("type parameters", (3, 12))
FSTRING = ("f-string reusing its quotes or holding a backslash or comment", (3, 12))
TSTRING = ("t-string", (3, 14))
#: Syntax errors that are the parser's own limits, not syntax of a newer Python: lowering
#: cannot help, and the concrete-syntax parser that would try crashes on such input.
_PARSER_LIMITS = frozenset({"too many nested parentheses"})
#: The attribute of a lowered module that lists its features.
_FEATURES = "gpulint_newer_syntax"


class _Replacement(NamedTuple):
    start: tuple[int, int]  # line (from 1) and column (in characters) where it starts
    end: tuple[int, int]
    text: str  # the same length as the range, newlines where it has them


def parse(text: str, filename: str = "<unknown>") -> ast.Module:
    """`ast.parse` of `text`; where this interpreter rejects syntax of a newer Python that
    can be lowered (see the module docstring), the tree of the lowered text. Raises the
    original `SyntaxError` otherwise."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # invalid escape sequences etc. are not ours to report
        try:
            return ast.parse(text, filename=filename, type_comments=False)
        except SyntaxError as error:
            if error.msg in _PARSER_LIMITS:
                raise error from None  # no newer syntax to lower: a limit of the parser itself
            found = lowered(text)
            if found is None:
                raise error from None
            try:
                tree = ast.parse(found[0], filename=filename, type_comments=False)
            except SyntaxError:
                raise error from None
            setattr(tree, _FEATURES, found[1])
            return tree


def features(tree: ast.Module, char_col: Callable[[int, int], int]) -> list[Feature]:
    """The constructs of a newer Python in `tree`: those its text was lowered for, and
    those this interpreter parsed natively (a `type` statement, type parameters, a
    t-string); `char_col(line, byte_col)` turns an `ast` column into characters."""
    found = list(getattr(tree, _FEATURES, ()))
    if sys.version_info >= (3, 12):
        for node in ast.walk(tree):
            if type(node).__name__ == "TypeAlias":
                kind = TYPE_STATEMENT
            elif getattr(node, "type_params", None):
                kind = TYPE_PARAMETERS
            elif type(node).__name__ == "TemplateStr":
                kind = TSTRING
            else:
                continue
            line = node.lineno  # type: ignore[attr-defined]
            found.append(Feature(line, char_col(line, node.col_offset), *kind))  # type: ignore[attr-defined]
    return sorted(set(found))


def lowered(text: str) -> tuple[str, list[Feature]] | None:
    """`text` with the newer constructs rewritten in place, and those constructs; None when
    libcst cannot parse it either (a real syntax error), there is nothing to rewrite, or a
    construct cannot be rewritten in place."""
    import libcst as cst  # only for files this interpreter cannot parse: start-up stays light
    from libcst.metadata import MetadataWrapper, PositionProvider

    try:
        module = cst.parse_module(text)
        positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    except (cst.ParserSyntaxError, RecursionError, ValueError):
        return None
    lines = text.splitlines(keepends=True)
    replacements: list[_Replacement] = []
    found: list[Feature] = []
    strings: list[tuple[tuple[int, int], tuple[int, int], str]] = []
    for node, where in positions.items():
        start, end = (where.start.line, where.start.column), (where.end.line, where.end.column)
        if isinstance(node, cst.TypeAlias):
            replacements.append(_Replacement(start, (start[0], start[1] + 4), "0;  "))
            found.append(Feature(*start, *TYPE_STATEMENT))
        if isinstance(node, (cst.TypeAlias, cst.FunctionDef, cst.ClassDef)) and node.type_parameters is not None:
            blank = _blank_span(positions[node.type_parameters])
            if blank is None:
                return None
            replacements.append(blank)
            found.append(Feature(*blank.start, *TYPE_PARAMETERS))
        elif type(node).__name__ in ("FormattedString", "TemplatedString"):
            strings.append((start, end, getattr(node, "prefix", "")))
    outer_end = (0, 0)
    for start, end, prefix in sorted(strings):
        if start < outer_end:
            continue  # inside a string already decided
        outer_end = end
        segment = _segment(lines, start, end)
        replacement = _string(segment, prefix)
        if replacement is None:
            return None
        if "t" in prefix.lower():
            found.append(Feature(*start, *TSTRING))
        elif replacement != segment:
            found.append(Feature(*start, *FSTRING))
        if replacement != segment:
            replacements.append(_Replacement(start, end, replacement))
    return (_apply(lines, replacements), found) if replacements else None


def _segment(lines: list[str], start: tuple[int, int], end: tuple[int, int]) -> str:
    if start[0] == end[0]:
        return lines[start[0] - 1][start[1] : end[1]]
    return "".join([lines[start[0] - 1][start[1] :], *lines[start[0] : end[0] - 1], lines[end[0] - 1][: end[1]]])


def _blank_span(where: Any) -> _Replacement | None:
    """Spaces over a span on one line (over several, they would end the statement early)."""
    if where.start.line != where.end.line:
        return None
    return _Replacement(
        (where.start.line, where.start.column),
        (where.end.line, where.end.column),
        " " * (where.end.column - where.start.column),
    )


def _string(segment: str, prefix: str) -> str | None:
    """What an f-string or t-string becomes: itself where this interpreter reads it, a
    t-string the f-string with its text, a blank string where neither reads (None where
    none fits in place)."""
    as_fstring = segment.replace(prefix, prefix.replace("t", "f").replace("T", "F"), 1) if prefix else segment
    return as_fstring if _reads(as_fstring) else _blank_string(segment)


def _reads(expression: str) -> bool:
    """Whether this interpreter parses `expression` (a string literal) on its own."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(f"(\n{expression}\n)", mode="eval")
    except SyntaxError:
        return False
    return True


def _blank_string(segment: str) -> str | None:
    """Empty string literals of the lines and line lengths of `segment`: on one line,
    `"   "`; across lines, `""` on the first and last, joined by backslash continuations
    (`""   \\`, `      \\`, `  ""`), which hold inside brackets and out."""
    lines = segment.split("\n")
    if len(lines) == 1:
        return '"' + " " * (len(segment) - 2) + '"' if len(segment) >= 2 else None
    bodies = [line[:-1] if line.endswith("\r") else line for line in lines]
    if len(bodies[0]) < 3 or len(bodies[-1]) < 2 or not all(bodies[1:-1]):
        return None
    ends = ["\r" if line.endswith("\r") else "" for line in lines]
    first = '""' + " " * (len(bodies[0]) - 3) + "\\" + ends[0]
    middle = [" " * (len(body) - 1) + "\\" + end for body, end in zip(bodies[1:-1], ends[1:-1], strict=True)]
    last = " " * (len(bodies[-1]) - 2) + '""'
    return "\n".join([first, *middle, last])


def _apply(lines: list[str], replacements: list[_Replacement]) -> str:
    lines = list(lines)
    for replacement in sorted(replacements, reverse=True):
        (line, column), (end_line, end_column) = replacement.start, replacement.end
        joined = lines[line - 1][:column] + replacement.text + lines[end_line - 1][end_column:]
        lines[line - 1 : end_line] = joined.splitlines(keepends=True)
    return "".join(lines)
