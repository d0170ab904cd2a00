"""`# noqa` suppressions.

`# noqa` on a finding's first or last line suppresses every finding there; `# noqa: GPU101, GPU102`
only those codes (codes of other tools may sit in the same list). A directive whose code
list is malformed is reported as a warning and suppresses only the well-formed codes in
it, never everything: a typo must not silently switch a blanket suppression on.

The code list is read as flake8 reads it: codes separated by commas or whitespace, then
free text, which starts at a word after whitespace that does not look like a code, or
at punctuation right after a code (`# noqa: E501 (URL too long)`, `# noqa: E501 some
reason`). Malformed are: a code-like word that is not a code (`GPU10x`), a word where a
code must be (first in the list, or after a comma), and a colon followed by no code. Where
flake8 reads those leniently (`# noqa: ,` as a blanket `# noqa`, `GPU10x` as the prefix
`GPU10`), gpulint warns and suppresses only the well-formed codes.

`# gpulint: noqa` on a line of its own, anywhere in the file, suppresses every finding in
the file; `# gpulint: noqa: GPU101, GPU102` only those codes (ruff's `# ruff: noqa`). Its
code list is read as a line directive's. Written after code on a line, it suppresses
nothing and is warned about (a line is silenced with `# noqa`).
"""

from __future__ import annotations

import io
import re
import tokenize
from typing import NamedTuple
from collections.abc import Iterable

from .diagnostic import Diagnostic
from .registry import entries
from .source import Source

_DIRECTIVE = re.compile(r"#\s*noqa(?![\w-])(?P<rest>[^#]*)", re.IGNORECASE)
_FILE_DIRECTIVE = re.compile(r"#\s*gpulint\s*:\s*noqa(?![\w-])(?P<rest>[^#]*)", re.IGNORECASE)
# Other tools' codes share the list: flake8's E501, ruff's PLR0913, FURB101, PERF401...
_CODE = re.compile(r"^[A-Z]{1,10}[0-9]{1,6}$")
_SEPARATORS = re.compile(r"[,\s]*")
_WORD = re.compile(r"[^,\s]+")
#: The start of a word that is meant as a code: capitals, then a digit.
_CODE_LIKE = re.compile(r"[A-Z]+[0-9]+")


def _read_codes(text: str) -> tuple[list[tuple[str, bool]], int]:
    """The codes listed at the start of `text` (a directive after its colon), each with
    whether it is well-formed, and where the list ends in `text`; what follows the list is
    free text (see the module's docstring)."""
    listed: list[tuple[str, bool]] = []
    position = end = 0
    while True:
        separator = _SEPARATORS.match(text, position)
        assert separator is not None
        position = separator.end()
        word = _WORD.match(text, position)
        if word is None:
            return listed, end
        token = word.group()
        code = _CODE_LIKE.match(token)
        if code is not None:
            rest = token[code.end() :]
            if rest[:1].isalnum() or rest[:1] == "_":
                listed.append((token, False))  # `GPU10x`: a code with a typo in it
                end = word.end()
            else:
                listed.append((code.group(), _CODE.match(code.group()) is not None))
                end = position + code.end()
                if rest:  # `E501)`, `E501.`: the text after the code is free text
                    return listed, end
        elif not listed or "," in separator.group():
            listed.append((token, False))  # where a code must be
            end = word.end()
        else:
            return listed, end  # free text after the codes
        position = word.end()


def _split_directive(rest: str) -> tuple[bool, list[tuple[str, bool]], int]:
    """What follows `noqa` in a directive: whether a colon comes first, the codes listed,
    and where the list ends in `rest`."""
    stripped = rest.lstrip()
    colon = stripped.startswith(":")
    listed, end = _read_codes(stripped[1:] if colon else stripped)
    return colon, listed, len(rest) - len(stripped) + colon + end


def listed_codes(comment: str) -> tuple[int, int, list[str]] | None:
    """Where the `# noqa` directive in `comment` (one comment token) lists codes: the span
    from its `#` through its last listed code, and the codes as written (malformed ones
    included); None when the comment holds no directive, or a blanket one."""
    match = _DIRECTIVE.search(comment)
    if match is None or not match.group("rest").strip():
        return None
    colon, listed, end = _split_directive(match.group("rest"))
    if not colon and not any(ok for _, ok in listed):
        return None  # `# noqa because ...`: blanket
    return match.start(), match.start("rest") + end, [token for token, _ in listed]


class Directive(NamedTuple):
    """A `# noqa` comment (a NamedTuple: start-up)."""

    line: int
    codes: frozenset[str] | None  # None: blanket `# noqa`

    def suppresses(self, code: str) -> bool:
        return self.codes is None or code in self.codes


def silences(directive: Directive, code: str) -> bool:
    """`directive` silences findings of `code`: it names the code, or the one the code's rule
    was split from (`Rule.split_from`: a `# noqa: GPU301` from before GPU307 had a code of
    its own still silences the GPU307 finding on its line)."""
    if directive.suppresses(code):
        return True
    former = next((rule.split_from for rule in entries() if rule.code == code), None)
    return former is not None and directive.suppresses(former)


def _comments(source: Source) -> list[tuple[int, int, str]]:
    """(line, column, text) of every comment mentioning noqa; falls back to a line scan
    when the file does not tokenize (a syntax error)."""
    found = []
    try:
        # newline=None: `\r` and `\r\n` end lines here as they do for the interpreter.
        for token in tokenize.generate_tokens(io.StringIO(source.text, newline=None).readline):
            if token.type == tokenize.COMMENT and "noqa" in token.string.lower():
                found.append((token.start[0], token.start[1], token.string))
    except (tokenize.TokenError, SyntaxError):
        found = []
        for index in range(1, len(source.line_starts) + 1):
            line = source.line(index)
            position = line.find("#")
            if position != -1 and "noqa" in line[position:].lower():
                found.append((index, position, line[position:]))
    return found


def _read_directive(
    rest: str, line: int, known_codes: frozenset[str], written: str, warnings: list[str]
) -> frozenset[str] | None:
    """The codes a directive suppresses (None: all) from what follows its `noqa`; what is
    wrong with it goes to `warnings`. `written` is the directive as the user writes it."""
    rest = rest.strip()
    if not rest:
        return None
    colon, listed, _ = _split_directive(rest)
    good = [token for token, ok in listed if ok]
    bad = [token for token, ok in listed if not ok]
    if not good and not bad:
        warnings.append(f"{line}: `{written}:` without codes; nothing suppressed (write `{written}` or list codes)")
        return frozenset()
    if not colon and not good:
        return None  # `# noqa some explanation`: flake8 treats it as a blanket noqa.
    if not colon:
        warnings.append(f"{line}: `{written}` codes need a colon: write `{written}: {', '.join(good)}`")
    if bad:
        warnings.append(
            f"{line}: malformed code(s) in noqa directive: {', '.join(bad)} (only the well-formed codes are suppressed)"
        )
    unknown = [code for code in good if code.startswith("GPU") and code not in known_codes]
    if unknown:
        warnings.append(f"{line}: unknown gpulint code(s) in noqa directive: {', '.join(unknown)}")
    return frozenset(good)


def file_exemption(texts: Iterable[str]) -> Directive | None:
    """The `# gpulint: noqa` directive that `texts` (the cells of one notebook) hold
    together, or None: in a notebook it applies to every cell, whichever cell holds it.
    Warnings about it are those `apply_noqa` gives for the cell it is in."""
    found: Directive | None = None
    for text in texts:
        if "noqa" not in text.lower():
            continue
        _, directive, _ = _parse_all(Source.from_text(text), frozenset())
        if directive is not None:
            found = directive if found is None else _combined(found, directive)
    return found


def _combined(first: Directive, second: Directive) -> Directive:
    if first.codes is None or second.codes is None:
        return Directive(first.line, None)
    return Directive(first.line, first.codes | second.codes)


def parse_directives(source: Source, known_codes: frozenset[str]) -> tuple[dict[int, Directive], list[str]]:
    directives, _, warnings = _parse_all(source, known_codes)
    return directives, warnings


def _parse_all(
    source: Source,
    known_codes: frozenset[str],
) -> tuple[dict[int, Directive], Directive | None, list[str]]:
    """The line directives by line, the file's directive (None: there is none; several
    in one file add up) and the warnings about both."""
    directives: dict[int, Directive] = {}
    whole_file: Directive | None = None
    warnings: list[str] = []
    if "noqa" not in source.text.lower():
        return directives, whole_file, warnings
    for line, column, comment in _comments(source):
        file_match = _FILE_DIRECTIVE.match(comment)
        if file_match is not None:
            if source.line(line)[:column].strip():
                warnings.append(
                    f"{line}: `# gpulint: noqa` after code suppresses nothing: it applies to the "
                    "whole file on a line of its own; write `# noqa` to silence this line"
                )
                continue
            directive = Directive(
                line, _read_directive(file_match.group("rest"), line, known_codes, "# gpulint: noqa", warnings)
            )
            whole_file = directive if whole_file is None else _combined(whole_file, directive)
            continue
        match = _DIRECTIVE.search(comment)
        if match is None:
            continue
        directives[line] = Directive(line, _read_directive(match.group("rest"), line, known_codes, "# noqa", warnings))
    return directives, whole_file, warnings


def apply_noqa(source: Source, diagnostics: list[Diagnostic]) -> tuple[list[Diagnostic], list[str]]:
    """Drop suppressed findings; return the rest and warnings about malformed directives."""
    if not diagnostics:
        return [], []  # directives only matter on lines with findings; skip tokenizing
    known = frozenset(rule.code for rule in entries())
    directives, whole_file, warnings = _parse_all(source, known)
    if whole_file is not None:
        diagnostics = [d for d in diagnostics if not silences(whole_file, d.code)]
    if not directives:
        return list(diagnostics), warnings
    kept = []
    for diagnostic in diagnostics:
        # A finding spanning several lines (a formatted call) can be silenced on its first
        # line or on its last one, where formatters leave trailing comments.
        lines = {diagnostic.noqa_line or diagnostic.start.line, diagnostic.end.line}
        if any(line in directives and silences(directives[line], diagnostic.code) for line in lines):
            continue
        kept.append(diagnostic)
    return kept, warnings
