"""The edits behind the editor's code actions, in gpulint's own positions.

`server.py` turns them into protocol edits; nothing here knows about the protocol:
- `noqa_edit`: "Disable GPUxxx for this line" adds `# noqa: GPUxxx` where gpulint reads it,
  merged into the code list of a `# noqa: CODES` comment already on that line (its free
  text kept after the list);
- `replacement_edit`: the one edit that turns a document into its fixed text (fix-all).
"""

from __future__ import annotations

import bisect

from ..diagnostic import Diagnostic, Edit, Position
from ..add_noqa import noqa_edits
from ..source import Source


def noqa_edit(text: str, diagnostic: Diagnostic) -> Edit | None:
    """The edit that silences `diagnostic` with a `# noqa` comment (as `--add-noqa` adds
    it), or None where no comment can go (the finding's lines end inside a string or a
    backslash continuation, or the file does not tokenize)."""
    edits, _ = noqa_edits(text, [diagnostic])
    return edits[0] if edits else None


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
    return Edit(_position(source, prefix), _position(source, len(old) - suffix), new[prefix : len(new) - suffix])


def _position(source: Source, offset: int) -> Position:
    starts = source.line_starts
    line = bisect.bisect_right(starts, offset)
    return Position(line, offset - starts[line - 1])
