"""The `full` output: each finding with the source lines it is on, carets under its span,
the rule's suggestion as `help:` and, with `--show-fixes`, its fix as a diff.

Shaped like ruff's default output, so a reader of one reads the other:

    GPU102 [*] `iterrows()` builds a Series per row; use a vectorized column expression
     --> sales.py:5:19
      |
    4 |     out = []
    5 |     for _, row in sales.iterrows():
      |                   ^^^^^^^^^^^^^^^^
    6 |         out.append(row["price"] - row["cost"])
      |
    help: replace the row loop with a vectorized column expression

In a notebook the lines are the cell's, numbered as in the cell. Columns are counted as a
terminal shows them: a tab is four columns, a wide (East Asian) character two. Text from
outside gpulint (source lines, messages, file names) is printed without its terminal
controls (`terminal.printable`).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator, Sequence

from ..diagnostic import Applicability, Diagnostic, Edit
from ..fixing import apply_edits
from ..runner import FileResult
from ..source import Source
from .style import PLAIN, Style
from .terminal import printable
from .text import location

#: Lines shown before and after a finding's span.
CONTEXT = 1
#: A longer span shows its first and last lines with `...` between them.
MAX_SPAN_LINES = 6
#: Characters shown of one line; a longer one (minified or generated code) shows this many
#: around the span, with `...` where it is cut.
MAX_LINE = 200
TAB = "    "


def findings(results: Sequence[FileResult], style: Style = PLAIN, show_fixes: bool = False) -> list[str]:
    """Every finding of `results`, each followed by a blank line."""
    lines: list[str] = []
    for result in results:
        sources: dict[int | None, Source | None] = {}
        for d in result.diagnostics:
            if d.cell not in sources:
                sources[d.cell] = source_of(result, d.cell)
            lines.extend(finding(result, d, sources[d.cell], style, show_fixes))
            lines.append("")
    return lines


def source_of(result: FileResult, cell: int | None) -> Source | None:
    """The text a finding's positions refer to: the notebook cell, or the file as linted
    last (the fixed text after `--fix` or `--diff`); None when it is not at hand."""
    if cell is not None:
        cells = getattr(result.notebook, "cells", None) or ()  # none once the run has dropped the text
        found = next((c for c in cells if c.number == cell), None)
        return Source(found.text) if found is not None else None
    source = result.fixed if result.fixed is not None else result.original
    return Source(source.text) if source is not None and source.text else None  # "": the text was dropped


def finding(
    result: FileResult, d: Diagnostic, source: Source | None, style: Style = PLAIN, show_fixes: bool = False
) -> list[str]:
    marker = " " + style.paint("[*]", "cyan") if d.fixable(result.unsafe_fixes) else ""
    lines = [
        f"{style.paint(printable(d.code), 'bold', 'red')}{marker} {style.paint(printable(d.message), 'bold')}",
        f" {style.paint('-->', 'blue')} {printable(result.display)}:{location(d)}",
    ]
    if source is not None:
        lines.extend(snippet(source, d, style))
    if d.suggestion is not None:
        lines.append(f"{style.paint('help', 'bold', 'cyan')}: {printable(d.suggestion)}")
    if show_fixes and d.fix is not None and d.fix.edits and source is not None:
        lines.extend(fix_diff(result, d, source, style))
    return lines


# -- the source lines and carets -------------------------------------------------------------


def _display(text: str) -> str:
    """The text as printed: tabs expanded, terminal controls and line breaks left out (so
    the terminal never moves the cursor; the carets are placed by `width` of the same)."""
    return printable(text).replace("\n", "").replace("\t", TAB)


def width(text: str) -> int:
    """Terminal columns `text` takes once printed by `_display`."""
    shown = _display(text)
    if shown.isascii():  # no controls are left: one column a character
        return len(shown)
    total = 0
    for ch in shown:
        if unicodedata.combining(ch) or unicodedata.category(ch) in ("Mn", "Me", "Cf"):
            continue
        total += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return total


def _shown_lines(first: int, last: int, count: int) -> Iterator[int | None]:
    """The line numbers to print (None for the `...` of a long span)."""
    yield from range(max(1, first - CONTEXT), first)
    if last - first + 1 > MAX_SPAN_LINES:
        yield from range(first, first + MAX_SPAN_LINES // 2)
        yield None
        yield from range(last - MAX_SPAN_LINES // 2 + 1, last + 1)
    else:
        yield from range(first, last + 1)
    yield from range(last + 1, min(count, last + CONTEXT) + 1)


def snippet(source: Source, d: Diagnostic, style: Style = PLAIN) -> list[str]:
    """The gutter, the lines around the span and carets under it."""
    count = len(source.line_starts)
    if not 1 <= d.start.line <= count:
        return []
    first = d.start.line
    last = d.end.line - 1 if d.end.line > first and d.end.col == 0 else d.end.line  # a span up to a line break
    last = min(max(last, first), count)
    shown = list(_shown_lines(first, last, count))
    # Context after the span that is only blank lines at the end of the text says nothing.
    while shown and shown[-1] is not None and shown[-1] > last and not source.line(shown[-1]).strip():
        shown.pop()
    gutter = len(str(max(line for line in shown if line is not None)))
    bar = style.paint(f"{'':>{gutter}} |", "blue")
    lines = [bar]
    for line in shown:
        if line is None:
            lines.append(style.paint(f"{'...':>{gutter}}", "blue"))
            continue
        text = source.line(line)
        span = _span(text, line, first, last, d)
        begin = _window(text, span[0] if span is not None else 0)
        part = text[begin : begin + MAX_LINE]
        before = "..." if begin else ""
        after = "..." if begin + MAX_LINE < len(text) else ""
        lines.append(f"{style.paint(f'{line:>{gutter}} |', 'blue')} {before}{_display(part)}{after}".rstrip())
        if span is not None:
            start, end = (min(max(index - begin, 0), len(part)) for index in span)
            pad, length = width(before + part[:start]), max(1, width(part[start:end]))
            lines.append(f"{bar} {' ' * pad}{style.paint('^' * length, 'bold', 'red')}")
    lines.append(bar)
    return lines


def _window(text: str, focus: int) -> int:
    """Where the shown part of a line starts: 0, or a little before `focus` on a line
    longer than `MAX_LINE`."""
    if len(text) <= MAX_LINE:
        return 0
    return max(0, min(focus - MAX_LINE // 4, len(text) - MAX_LINE))


def _span(text: str, line: int, first: int, last: int, d: Diagnostic) -> tuple[int, int] | None:
    """The characters of `line` to put carets under: the whole span on a one-line span;
    from the start to the line's end on its first line and from the code's start to the
    end on its last line otherwise; None on the lines between and around."""
    if line == first:
        start = min(d.start.col, len(text))
        end = min(d.end.col, len(text)) if last == first and d.end.line == first else len(text.rstrip())
    elif line == last:
        start = len(text) - len(text.lstrip())
        end = min(d.end.col, len(text)) if d.end.line == last else len(text.rstrip())
    else:
        return None
    return start, end


# -- the fix as a diff -------------------------------------------------------------------------


def _fix_title(result: FileResult, d: Diagnostic) -> str:
    assert d.fix is not None
    if d.fix.applicability is Applicability.SAFE:
        return "Safe fix (`--fix` applies it)"
    if d.fix.applicability is Applicability.UNSAFE:
        applied = "`--fix` applies it" if result.unsafe_fixes else "`--fix --unsafe-fixes` applies it"
        return f"Unsafe fix ({applied}; review the result: it may differ as the rule's Fix safety says)"
    return "Suggested rewrite (never applied)"


def fix_diff(result: FileResult, d: Diagnostic, source: Source, style: Style = PLAIN) -> list[str]:
    """The fix of `d`, applied on its own to the text it refers to, as the changed lines
    with one line of context, numbered before and after (one part per notebook cell it
    changes):

        4   |-model = RandomForestClassifier()
          4 |+model = RandomForestClassifier(n_jobs=-1)
        5 5 | values = np.array([])
    """
    assert d.fix is not None
    lines = [style.paint(_fix_title(result, d), "bold")]
    by_cell: dict[int | None, list[Edit]] = {}
    for edit in d.fix.edits:
        by_cell.setdefault(edit.cell if d.cell is not None else None, []).append(edit)
    for cell, edits in by_cell.items():
        before = source if cell is None or cell == d.cell else source_of(result, cell)
        if before is None:
            continue
        if cell is not None and len(by_cell) > 1:
            lines.append(f"cell {cell}:")
        lines.extend(_numbered_diff(before.text.splitlines(), apply_edits(before, edits).splitlines(), style))
    return lines


def _numbered_diff(old: list[str], new: list[str], style: Style) -> list[str]:
    import difflib  # only when a fix is shown

    groups = list(difflib.SequenceMatcher(None, old, new, autojunk=False).get_grouped_opcodes(1))
    digits = len(str(max(len(old), len(new), 1)))
    lines: list[str] = []

    def row(before: int | None, after: int | None, marker: str, text: str) -> None:
        numbers = style.paint(f"{before or '':>{digits}} {after or '':>{digits}} |", "blue")
        body = f"{marker}{_display(text)}".rstrip()
        colour = {"-": "red", "+": "green"}.get(marker)
        lines.append(f"{numbers}{style.paint(body, colour) if colour else body}".rstrip())

    for index, group in enumerate(groups):
        if index:
            lines.append(style.paint(f"{'':>{digits}} {'...':>{digits}}", "blue"))
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                for k in range(i2 - i1):
                    row(i1 + k + 1, j1 + k + 1, " ", old[i1 + k])
                continue
            for k in range(i1, i2):
                row(k + 1, None, "-", old[k])
            for k in range(j1, j2):
                row(None, k + 1, "+", new[k])
    return lines
