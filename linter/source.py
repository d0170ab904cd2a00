"""Source text: decoding bytes the way Python does, and converting positions.

The engine works on text decoded exactly as the interpreter would decode the file
(PEP 263 coding cookie, UTF-8 BOM), keeps the original line endings untouched, and
re-encodes the same way when a fix is written back.
"""

from __future__ import annotations

import codecs
import re
from array import array
from itertools import accumulate
from collections.abc import Sequence

#: How the name that stands for a masked notebook line magic that runs Python code starts
#: (`%time train(loader)`, see `ipython`): what that code reads is out of view.
CODE_PLACEHOLDER_PREFIX = "__gpulint_ipython_code_"

_COOKIE = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)")
_BLANK_OR_COMMENT = re.compile(rb"^[ \t\f]*(?:[#\r\n]|$)")
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


#: The most gpulint checks (docs/cli.md, "Limits"): a source of up to 10 MiB (of
#: text; for a file on disk, of bytes) whose lines are each up to 1 Mi characters. Python's
#: parser takes time and memory by the token: about 330 bytes of memory per character of a
#: literal such as `[1, 1, ...]`, so one machine-made file past these bounds would take
#: seconds and gigabytes, in every worker at once. Real sources stay well within them: one
#: of the largest, google-cloud-compute's generated `types/compute.py`, is about 3 MB.
MAX_SOURCE = 10 * 1024 * 1024
MAX_LINE = 1024 * 1024
TOO_LARGE = "not checked: larger than 10 MiB, gpulint's bound on a file"
LINE_TOO_LONG = "not checked: a line longer than 1,048,576 characters, gpulint's bound on a line"


class SourceError(Exception):
    """A file that cannot be turned into Python source text (binary, undecodable)."""


def refusal(text: str) -> str | None:
    """Why gpulint does not check `text` (a warning naming the bound it is over), or None."""
    if len(text) > MAX_SOURCE:
        return TOO_LARGE
    if len(text) > MAX_LINE and max(map(len, _LINE_BREAK.split(text))) > MAX_LINE:
        return LINE_TOO_LONG
    return None


def _declared_encoding(data: bytes) -> str | None:
    """The PEP 263 encoding declared on line 1 or 2, if any."""
    lines = data.split(b"\n", 2)[:2]
    for index, line in enumerate(lines):
        match = _COOKIE.match(line)
        if match:
            name = match.group(1).decode("ascii", "replace")
            try:
                return codecs.lookup(name).name
            except LookupError:
                raise SourceError(f"unknown encoding {name!r} declared on line {index + 1}") from None
        if index == 0 and not _BLANK_OR_COMMENT.match(line):
            break  # PEP 263: line 2 counts only when line 1 is blank or a comment
    return None


class Source:
    """Decoded text plus what is needed to write it back byte-for-byte compatible. A slots
    class rather than a dataclass (start-up)."""

    __slots__ = ("text", "encoding", "bom", "newline", "_line_starts")

    def __init__(self, text: str, encoding: str = "utf-8", bom: bool = False, newline: str = "\n") -> None:
        self.text = text
        self.encoding = encoding
        self.bom = bom
        self.newline = newline
        self._line_starts: Sequence[int] | None = None

    @classmethod
    def from_bytes(cls, data: bytes) -> Source:
        if b"\x00" in data:
            raise SourceError("binary file (contains NUL bytes), not Python source")
        bom = data.startswith(codecs.BOM_UTF8)
        body = data[len(codecs.BOM_UTF8) :] if bom else data
        declared = _declared_encoding(body)
        if bom and declared not in (None, "utf-8"):
            raise SourceError(f"UTF-8 byte order mark but {declared!r} declared")
        encoding = declared or "utf-8"
        try:
            text = body.decode(encoding)
        except UnicodeDecodeError as exc:
            line = body[: exc.start].count(b"\n") + 1
            bad = body[exc.start : exc.start + 1].hex()
            hint = "" if declared else "; declare the file's encoding (PEP 263) or save it as UTF-8"
            raise SourceError(f"cannot decode as {encoding} (byte 0x{bad} on line {line}){hint}") from None
        return cls(text=text, encoding=encoding, bom=bom, newline=detect_newline(text))

    @classmethod
    def from_text(cls, text: str) -> Source:
        """Source from text already decoded; a leading U+FEFF (a byte order mark that was
        decoded along with the text) is set aside like the BOM of a file, and kept by `to_text`."""
        bom = text.startswith("\ufeff")
        text = text[1:] if bom else text
        return cls(text=text, bom=bom, newline=detect_newline(text))

    def to_text(self) -> str:
        """The text as handed to `from_text`: with its byte order mark, if it had one."""
        return "\ufeff" + self.text if self.bom else self.text

    def with_text(self, text: str) -> Source:
        return Source(text=text, encoding=self.encoding, bom=self.bom, newline=self.newline)

    def to_bytes(self) -> bytes:
        try:
            data = self.text.encode(self.encoding)
        except UnicodeEncodeError as exc:
            raise SourceError(
                f"the fixed code has {exc.object[exc.start]!r}, which {self.encoding} cannot encode"
            ) from None
        return codecs.BOM_UTF8 + data if self.bom else data

    # -- positions -------------------------------------------------------
    @property
    def line_starts(self) -> Sequence[int]:
        """Offsets where lines start; like the interpreter, `\r\n`, `\r` and `\n` end a line.
        (An array, not a list: eight bytes a line rather than about forty.)"""
        if self._line_starts is None:
            text = self.text
            if "\r" in text:
                starts = array("q", [0])
                starts.extend(match.end() for match in _LINE_BREAK.finditer(text))
            else:
                # each line's length plus its "\n", summed at C speed; the last sum is
                # past the end of the text
                starts = array("q", accumulate(map((1).__add__, map(len, text.split("\n"))), initial=0))
                starts.pop()
            self._line_starts = starts
        return self._line_starts

    def line(self, lineno: int) -> str:
        """Line `lineno` (1-based) without its line ending."""
        starts = self.line_starts
        if lineno < 1 or lineno > len(starts):
            return ""
        end = starts[lineno] if lineno < len(starts) else len(self.text)
        return self.text[starts[lineno - 1] : end].rstrip("\r\n")

    def char_col(self, lineno: int, byte_col: int) -> int:
        """Convert an `ast` column (UTF-8 byte offset) to a character offset."""
        line = self.line(lineno)
        if line.isascii():
            return byte_col
        return len(line.encode("utf-8")[:byte_col].decode("utf-8", "replace"))

    def segment(self, node: object) -> str:
        """The source text of an `ast` node (like `ast.get_source_segment`, without
        re-splitting the whole file on every call)."""
        line, end_line = getattr(node, "lineno", None), getattr(node, "end_lineno", None)
        if line is None or end_line is None:
            return ""
        begin = self.offset(line, self.char_col(line, node.col_offset))  # type: ignore[attr-defined]
        end = self.offset(end_line, self.char_col(end_line, node.end_col_offset))  # type: ignore[attr-defined]
        return self.text[begin:end]

    def offset(self, lineno: int, col: int) -> int:
        """Absolute character offset of (1-based line, 0-based character column)."""
        starts = self.line_starts
        if lineno > len(starts):
            return len(self.text)
        return starts[lineno - 1] + col


def detect_newline(text: str) -> str:
    """The file's line ending, taken from its first line break."""
    index = text.find("\n")
    if index > 0 and text[index - 1] == "\r":
        return "\r\n"
    if index == -1 and "\r" in text:
        return "\r"
    return "\n"
