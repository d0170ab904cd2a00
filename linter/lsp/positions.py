"""The one place where positions cross between gpulint and the editor.

gpulint counts lines from 1 and columns in characters (code points) from 0; the Language
Server Protocol counts both from 0, with columns in the code units of the encoding agreed
at initialization: UTF-16 unless the client offers UTF-8 or UTF-32. A character outside
the Basic Multilingual Plane (an emoji) is one code point, two UTF-16 units and four UTF-8
bytes, so the conversion needs the text of the line.
"""

from __future__ import annotations

from ..source import Source

UTF8, UTF16, UTF32 = "utf-8", "utf-16", "utf-32"


def _units(char: str, encoding: str) -> int:
    if encoding == UTF32:
        return 1
    code = ord(char)
    if encoding == UTF8:
        return 1 if code < 0x80 else 2 if code < 0x800 else 3 if code < 0x10000 else 4
    return 2 if code > 0xFFFF else 1


def to_client_column(line: str, column: int, encoding: str) -> int:
    """Code units before character `column` of `line` (past the end counts as the end)."""
    prefix = line[:column]
    if encoding == UTF32 or prefix.isascii():
        return len(prefix)
    return sum(_units(char, encoding) for char in prefix)


def from_client_column(line: str, units: int, encoding: str) -> int:
    """The character column at `units` code units into `line`; a position inside a
    character (half of a surrogate pair) rounds down, and past the end means the end."""
    if encoding == UTF32 or line.isascii():
        return max(0, min(units, len(line)))
    seen = 0
    for index, char in enumerate(line):
        seen += _units(char, encoding)
        if seen > units:
            return index
    return len(line)


class DocumentPositions:
    """Converts positions for one document text, in the encoding agreed with the client.

    Lines end at `\\r\\n`, `\\r` or `\\n`, for the protocol as for the interpreter; a
    position past the last line is the end of the document."""

    def __init__(self, text: str, encoding: str) -> None:
        self._source = Source(text)
        self._lines = len(self._source.line_starts)
        self.encoding = encoding

    def to_client(self, line: int, column: int) -> tuple[int, int]:
        """gpulint's (1-based line, character column) as the protocol's (line, character)."""
        if line > self._lines:
            line, column = self._lines, len(self._source.line(self._lines))
        line = max(line, 1)
        return line - 1, to_client_column(self._source.line(line), column, self.encoding)

    def from_client(self, line: int, character: int) -> tuple[int, int]:
        """The protocol's (0-based line, code units) as gpulint's (line, character column)."""
        if line >= self._lines:
            last = self._lines
            return last, len(self._source.line(last))
        line = max(line, 0) + 1
        return line, from_client_column(self._source.line(line), character, self.encoding)
