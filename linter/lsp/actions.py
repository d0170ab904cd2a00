"""The edits behind the editor's code actions, in gpulint's own positions.

`server.py` turns them into protocol edits; nothing here knows about the protocol:
- `noqa_edit`: "Disable GPUxxx for this line" adds `# noqa: GPUxxx` where gpulint reads it,
  merged into the code list of a `# noqa: CODES` comment already on that line (its free
  text kept after the list);
- `replacement_edit`: the one edit that turns a document into its fixed text (fix-all).
"""

from __future__ import annotations

import bisect
import io
import tokenize

from ..diagnostic import Diagnostic, Edit, Position
from ..noqa import listed_codes
from ..source import Source


def noqa_edit(text: str, diagnostic: Diagnostic) -> Edit | None:
    """The edit that silences `diagnostic` with a `# noqa` comment, or None where no
    comment can go (the finding's lines end inside a string or a backslash continuation,
    or the file does not tokenize)."""
    line_ends, comments = _line_facts(text)
    source = Source(text)
    for line in dict.fromkeys((diagnostic.noqa_line or diagnostic.start.line, diagnostic.end.line)):
        if line not in line_ends:
            continue
        comment = comments.get(line)
        listed = listed_codes(comment[1]) if comment is not None else None
        if comment is not None and listed is not None:
            start, end, codes = listed
            if diagnostic.code not in codes:
                codes.append(diagnostic.code)
            column = comment[0]
            return Edit(Position(line, column + start), Position(line, column + end), "# noqa: " + ", ".join(codes))
        code_line = source.line(line)
        end = len(code_line.rstrip(" \t"))
        return Edit(Position(line, end), Position(line, len(code_line)), f"  # noqa: {diagnostic.code}")
    return None


def _line_facts(text: str) -> tuple[set[int], dict[int, tuple[int, str]]]:
    """Lines whose end is the end of a physical line of code (a comment may follow), and
    each line's comment as (column, text)."""
    ends: set[int] = set()
    comments: dict[int, tuple[int, str]] = {}
    try:
        # newline=None: `\r` and `\r\n` end lines as they do for the interpreter.
        for token in tokenize.generate_tokens(io.StringIO(text, newline=None).readline):
            if token.type in (tokenize.NEWLINE, tokenize.NL):
                ends.add(token.start[0])
            elif token.type == tokenize.COMMENT:
                comments[token.start[0]] = (token.start[1], token.string)
    except (tokenize.TokenError, SyntaxError):
        return set(), {}
    return ends, comments


def replacement_edit(old: str, new: str) -> Edit | None:
    """One edit turning `old` into `new`, spanning only the part that differs (so the
    editor keeps its cursor and folds elsewhere); None when they are equal."""
    if old == new:
        return None
    prefix = 0
    limit = min(len(old), len(new))
    while prefix < limit and old[prefix] == new[prefix]:
        prefix += 1
    suffix = 0
    while suffix < limit - prefix and old[-1 - suffix] == new[-1 - suffix]:
        suffix += 1
    # Never split a "\r\n" pair: a position between them is not a position in the document.
    if 0 < prefix < len(old) and old[prefix - 1] == "\r" and old[prefix] == "\n":
        prefix -= 1
    if suffix and len(old) - suffix > 0 and old[len(old) - suffix - 1] == "\r" and old[len(old) - suffix] == "\n":
        suffix -= 1
    source = Source(old)
    return Edit(_position(source, prefix), _position(source, len(old) - suffix), new[prefix:len(new) - suffix])


def _position(source: Source, offset: int) -> Position:
    starts = source.line_starts
    line = bisect.bisect_right(starts, offset)
    return Position(line, offset - starts[line - 1])
