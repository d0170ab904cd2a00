"""IPython syntax in notebook cells: replaced, line for line, by Python the engine can parse.

Line magics (`%matplotlib inline`, `x = %timeit f()`), shell escapes (`!ls`, `files = !ls`),
help (`obj?`, `?obj`), autocall escapes, automagic commands without their `%` (`pip install
x`), pasted prompts (`>>> x = 1`, `... y`; indented ones too in a cell with a `>>>`, as
IPython 9 strips doctests) and the first line of a cell magic (`%%time`) are
not Python; nor is a cell indented as a whole, which IPython dedents (it is skipped). Each such line becomes a placeholder name (keeping its indentation, and the
assigned names of `x = %magic`), so the cell keeps its lines and columns and nothing is
reported on it; `%time stmt` keeps its statement, which IPython runs as written.
`unmask_ipython` puts the lines back into a fixed cell. A cell that already
parses as Python is never changed: IPython syntax is only looked for where Python fails.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

from . import newer_syntax
from .source import CODE_PLACEHOLDER_PREFIX

#: Cell magics that run their body as Python in the kernel's namespace. The body of any
#: other cell magic (`%%bash`, `%%writefile`, `%%html`, `%%sql`, `%%script`, ...) is not
#: Python run here, so those cells are skipped.
PYTHON_CELL_MAGICS = frozenset({"time", "timeit", "capture", "prun", "debug", "memit"})

#: Characters that start an IPython escape at the beginning of a statement: magics,
#: shell escapes, help, and the autocall escapes. None of them can start Python code.
_ESCAPES = ("%", "!", "?", "/", ",", ";")
_CELL_MAGIC = re.compile(r"[ \t]*%%[ \t]*([\w.-]*)")
_NAMES = r"[A-Za-z_][\w.]*(?:[ \t]*,[ \t]*[A-Za-z_][\w.]*)*"
#: `x = %timeit f()`, `files = !ls`, `a, b = %who_ls`: the names are kept, the rest masked.
_MAGIC_ASSIGNMENT = re.compile(rf"([ \t]*{_NAMES}[ \t]*=[ \t]*)[%!]")
#: `obj?`, `np.mean??`, `np.*load*?`: IPython's help, asked at the end of a line. Nothing may
#: follow the question marks, not even a space: IPython leaves `obj? ` as it is, a syntax error.
_HELP_END = re.compile(r"[ \t]*%{0,2}[A-Za-z_*][\w*]*(?:\.[A-Za-z_*][\w*]*)*\?{1,2}")
#: Line magics IPython runs without their `%` (automagic, on by default: `pip install x`),
#: and the shell aliases it defines on every platform (`ls`, `mkdir`...): such a line is
#: the name, a space, and something that cannot follow a name in Python. A name bound as
#: a variable would win in IPython, but then the line would be Python and not masked.
_AUTOMAGIC = re.compile(
    r"[ \t]*(?:pip|conda|mamba|cd|env|load_ext|reload_ext|matplotlib|run|time|timeit|pwd|who|whos|reset|"
    r"autoreload|aimport|config|pdb|debug|prun|ls|ll|mkdir|rmdir|rm|mv|cp|cat)"
    r"[ \t]+(?![=(\[,:;+*/%&|^<>@!~)\]}\s]|-=|\.\w|in\b|is\b|and\b|or\b|not\b|if\b|else\b|for\b)\S"
)
#: `%load_ext cuml.accel` (or without its `%`): masked as the call IPython makes for it.
_LOAD_EXTENSION = re.compile(r"([ \t]*)%?(load_ext|reload_ext)[ \t]+([\w.]+)[ \t]*")
#: A line pasted with the interpreter's prompt (`>>> x = 1`, `... y`): IPython strips it.
_PROMPT = re.compile(r"(?:>>>|\.\.\.)(?:[ \t]|$)")
#: The same prompt indented (`  >>> x = 1`, a doctest pasted from a docstring): IPython
#: strips it with its indentation in a cell that has a `>>>` prompt (its `classic_prompt`
#: in doctest mode, IPython 9).
_INDENTED_PROMPT = re.compile(r"[ \t]+(?:>>>|\.\.\.)(?:[ \t]|$)")
_DOCTEST = re.compile(r"[ \t]*>>>")
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+")
#: What a masked line becomes: a name no program uses.
_PLACEHOLDER = "__gpulint_ipython_{}__"
#: What a masked line magic that runs Python code becomes (`%time train(loader)`): what that
#: code reads is out of view, and rules that ask whether a name is ever read must know.
_CODE_PLACEHOLDER = CODE_PLACEHOLDER_PREFIX + "{}__"
#: Line magics that run the Python code that follows them.
_CODE_MAGIC = re.compile(r"%(?:time|timeit|prun|debug|memit)[ \t]+\S")
#: `%time model.fit(X, y)`: IPython runs the statement once, in the cell's namespace, as if
#: `%time` were not there (`%timeit` runs it in a namespace of its own, many times). Its
#: magic becomes `0;` and spaces, so the statement is seen where it stands.
_TIMED_STATEMENT = re.compile(r"([ \t]*)(%time[ \t]+)([^-\s].*)")
#: What stands for `%time` and its spaces: an expression statement, then the timed one.
_TIMED_PREFIX = "0;"
#: A masked timed line, perhaps written into: indentation, the statement, the placeholder
#: that names the line, and what a fix appended after it (a noqa comment).
_TIMED_LINE = re.compile(r"([ \t]*)0;[ \t]*(.*?)  # (__gpulint_ipython_code_\d+__)(.*)")
#: The indentation of a cell's first line, which IPython removes (its `leading_indent`).
_LEADING_INDENT = re.compile(r"[ \t]+")
#: A line copied from an IPython session with its prompt: `In [3]: ` on the first line of an
#: input, `   ...: ` (as many dots as the first prompt is wide) on the lines that continue it.
_SESSION_FIRST = re.compile(r"(?:(?:\[nav\]|\[ins\])? )?In \[\d+\]: ")
_SESSION_PROMPT = re.compile(rf"{_SESSION_FIRST.pattern}|\s*\.{{3,}}: ?")


def split_lines(text: str) -> list[str]:
    """The lines of `text` with their line breaks, split where Python splits them."""
    return _LINE.findall(text)


def line_body(line: str) -> str:
    return line.rstrip("\r\n")


def parse(text: str) -> ast.Module:
    """`ast.parse`, its warnings (invalid escape sequences) silenced: they are not ours to
    report; syntax of a newer Python lowered in place (`newer_syntax`)."""
    return newer_syntax.parse(text)


def parses(text: str) -> bool:
    try:
        parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


@dataclass(frozen=True)
class Masked:
    """A cell as Python: IPython lines replaced, line for line, by placeholder names."""

    text: str
    #: masked line (stripped) -> (the masked line's indentation, the original line without
    #: its line break)
    restore: dict[str, tuple[str, str]] = field(default_factory=dict)
    #: A cell magic whose body is not Python: the cell is not linted.
    skipped: bool = False


class _Scanner:
    """Just enough of Python's tokenizer to know where statements start: brackets, strings,
    comments and backslash continuations (the cell may not parse, so `tokenize` can't)."""

    def __init__(self) -> None:
        self.depth = 0
        self.quote: str | None = None
        self.continued = False

    def at_statement_start(self) -> bool:
        return self.depth == 0 and self.quote is None and not self.continued

    def feed(self, line: str) -> None:
        body = line_body(line)
        code_end = len(body)
        i = 0
        while i < len(body):
            char = body[i]
            if self.quote is not None:
                if char == "\\":
                    i += 2
                    continue
                if body.startswith(self.quote, i):
                    i += len(self.quote)
                    self.quote = None
                    continue
            elif char == "#":
                code_end = i
                break
            elif char in "([{":
                self.depth += 1
            elif char in ")]}":
                self.depth = max(0, self.depth - 1)
            elif char in "'\"":
                self.quote = body[i : i + 3] if body[i : i + 3] in ("'''", '"""') else char
                i += len(self.quote)
                continue
            i += 1
        self.continued = body[:code_end].endswith("\\")
        if self.quote in ("'", '"') and not self.continued:
            self.quote = None  # an unterminated string ends with its line


#: A line that may be IPython syntax: any line `mask_lines` could replace, wherever it is
#: (a superset, found without scanning the cell's strings and brackets).
_MAY_BE_IPYTHON = re.compile(
    rf"(?:\A|(?<=[\r\n]))(?:[^\S\r\n]*[%!?/,;]|{_MAGIC_ASSIGNMENT.pattern}|{_HELP_END.pattern}(?:[\r\n]|\Z)"
    rf"|{_AUTOMAGIC.pattern}|{_PROMPT.pattern}|{_INDENTED_PROMPT.pattern})"
)


def mask_ipython(text: str) -> Masked:
    """The cell's source as Python the engine can parse, with the same lines and columns."""
    masked = mask_cell_magic(text)
    if masked.skipped or not may_hold_ipython(masked.text) or parses(masked.text):
        return masked
    return mask_lines(masked)


def may_hold_ipython(text: str) -> bool:
    """Whether `mask_lines` could change `text`. When it cannot, the cell is Python or
    broken as it stands, and only parsing it can tell which."""
    return _MAY_BE_IPYTHON.search(text) is not None


def mask_cell_magic(text: str) -> Masked:
    """The cell with only its cell magic line (`%%time`) masked; skipped when the magic's
    body is not Python, or when the cell is indented as a whole (`_dedented`). This is the
    cell as Python sees it when it parses."""
    lines = split_lines(text)
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    cell_magic = _CELL_MAGIC.match(lines[first]) if first is not None else None
    if first is None or cell_magic is None:
        return Masked(text, skipped=_indented_as_a_whole(lines) or _pasted_from_a_session(lines))
    if cell_magic.group(1) not in PYTHON_CELL_MAGICS:
        return Masked(text, skipped=True)
    return _Masker(lines).replace_line(first).done()


def _indented_as_a_whole(lines: list[str]) -> bool:
    """IPython removes the indentation of a cell's first line from every line that starts
    with it, so a cell pasted with its indentation runs. Such a cell is valid, but its
    columns are not Python's: it is skipped (neither a syntax error nor linted) when it
    does not parse as it stands and does once dedented (its IPython lines masked)."""
    indent = _LEADING_INDENT.match(lines[0]) if lines else None
    if indent is None:
        return False
    space = indent.group(0)
    return _runs_once_cleaned(lines, [line[len(space) :] if line.startswith(space) else line for line in lines])


def _pasted_from_a_session(lines: list[str]) -> bool:
    """IPython strips an IPython session's prompts (`In [3]: `, `...: `) from every line of
    a cell whose first line starts with the first prompt or whose second line starts with
    a continuation prompt, so a cell pasted from a session runs. Like a cell indented as a
    whole, it is skipped when it does not parse as it stands and does once stripped."""
    if not (lines and _SESSION_FIRST.match(lines[0]) or len(lines) > 1 and _SESSION_PROMPT.match(lines[1])):
        return False
    return _runs_once_cleaned(lines, [_SESSION_PROMPT.sub("", line, count=1) for line in lines])


def _runs_once_cleaned(lines: list[str], cleaned: list[str]) -> bool:
    """The cell (`lines`) does not parse as it stands, and does once IPython has cleaned it
    up (`cleaned`), its IPython lines masked."""
    if parses("".join(lines)):
        return False
    text = Masked("".join(cleaned))
    return parses(text.text) or may_hold_ipython(text.text) and parses(mask_lines(text).text)


def mask_lines(cell: Masked) -> Masked:
    """`cell` (from `mask_cell_magic`, known not to parse) with every line that starts a
    statement with IPython syntax masked too."""
    lines = split_lines(cell.text)
    masker = _Masker(lines, dict(cell.restore))
    scanner = _Scanner()
    # The scan starts after the cell magic's line, if any.
    index = next((i + 1 for i, line in enumerate(lines) if line_body(line).strip() in cell.restore), 0)
    doctest = any(_DOCTEST.match(line) for line in lines)
    while index < len(lines):
        body = line_body(lines[index])
        if scanner.at_statement_start():
            stripped = body.lstrip()
            assignment = _MAGIC_ASSIGNMENT.match(body)
            indented_prompt = doctest and _INDENTED_PROMPT.match(body) is not None
            if (
                stripped.startswith(_ESCAPES)
                or assignment
                or _HELP_END.fullmatch(body)
                or _AUTOMAGIC.match(body)
                or _PROMPT.match(body)
                or indented_prompt
            ):
                # an indented prompt goes with its indentation
                indent = "" if indented_prompt else body[: len(body) - len(stripped)]
                masker.replace_line(index, assignment.group(1) if assignment else indent)
                # A magic continues over lines that end with a backslash.
                while line_body(lines[index]).endswith("\\") and index + 1 < len(lines):
                    index += 1
                    masker.replace_line(index, indent)
                index += 1
                continue
        scanner.feed(lines[index])
        index += 1
    return masker.done()


class _Masker:
    """Lines replaced by placeholders, and what each placeholder stands for."""

    def __init__(self, lines: list[str], restore: dict[str, tuple[str, str]] | None = None) -> None:
        self.lines = lines
        self.masked = list(lines)
        self.restore = restore or {}

    def replace_line(self, index: int, prefix: str | None = None) -> _Masker:
        body = line_body(self.lines[index])
        if prefix is None:
            prefix = body[: len(body) - len(body.lstrip())]
        form = _CODE_PLACEHOLDER if _CODE_MAGIC.search(body) else _PLACEHOLDER
        placeholder = prefix + form.format(len(self.restore) + 1)
        timed = _timed_statement(body, prefix)
        if timed is not None:
            # the placeholder in a comment keeps the masked line unique among the cell's
            placeholder = f"{timed}  # {placeholder.strip()}"
        extension = _LOAD_EXTENSION.fullmatch(body)
        if extension is not None and prefix == extension.group(1):
            # what IPython runs for it, so rules see which extension is loaded (`cuml.accel`)
            placeholder = (
                f"{prefix}get_ipython().run_line_magic({extension.group(2)!r}, {extension.group(3)!r})"
                f"  # {placeholder.strip()}"
            )
        self.restore[placeholder.strip()] = (placeholder[: len(placeholder) - len(placeholder.lstrip())], body)
        self.masked[index] = placeholder + self.lines[index][len(body) :]
        return self

    def done(self) -> Masked:
        return Masked("".join(self.masked), self.restore)


def _timed_statement(body: str, prefix: str) -> str | None:
    """`%time x = f()` as `0;    x = f()`, the statement in its columns; None when the line
    is no such magic, or what follows `%time` is not one line of simple statements."""
    timed = _TIMED_STATEMENT.fullmatch(body)
    if timed is None or timed.group(1) != prefix:
        return None
    line = _TIMED_PREFIX + " " * (len(timed.group(2)) - len(_TIMED_PREFIX)) + timed.group(3)
    if line.endswith("\\") or not parses(line):
        return None
    return prefix + line


def unmask_ipython(text: str, masked: Masked) -> str | None:
    """Put the IPython lines back into a (fixed) cell; None when a fix moved, dropped or
    copied one of them, or wrote into its line. A statement timed with `%time` may be
    written into (a fix of its own, a `# noqa` comment): it goes back behind its `%time`."""
    if not masked.restore:
        return text
    lines = split_lines(text)
    found: set[str] = set()
    timed = {match.group(3): key for key in masked.restore if (match := _TIMED_LINE.fullmatch(key))}
    for index, line in enumerate(lines):
        body = line_body(line)
        key = body.strip()
        if key in masked.restore:
            indent, original = masked.restore[key]
            new_indent = body[: len(body) - len(body.lstrip())]
            restored = original if new_indent == indent else new_indent + original.lstrip()
        else:
            edited = _TIMED_LINE.fullmatch(body)
            key = timed.get(edited.group(3), "") if edited is not None else ""
            if not key:
                continue
            magic = _TIMED_STATEMENT.fullmatch(masked.restore[key][1])
            assert edited is not None and magic is not None  # a timed line's original is such a line
            restored = edited.group(1) + magic.group(2) + edited.group(2) + edited.group(4)
        if key in found:
            return None
        found.add(key)
        lines[index] = restored + line[len(body) :]
    if len(found) != len(masked.restore):
        return None
    result = "".join(lines)
    names = sum(
        result.count(form.format(n))
        for n in range(1, len(masked.restore) + 1)
        for form in (_PLACEHOLDER, _CODE_PLACEHOLDER)
    )
    return result if names == 0 else None
