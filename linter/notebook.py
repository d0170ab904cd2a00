"""Jupyter notebooks: lint the code cells as one program, report positions per cell.

A notebook's code cells run in one namespace, so they are linted as one program: the
cells are joined (each after a marker comment line) and the engine sees ordinary Python,
with evidence flowing from cell to cell. Every position is then mapped back to its cell.

IPython syntax that is not Python (magics, shell escapes, help) is masked line for line
first (`ipython.py`), so line numbers stay the same and nothing is reported on it; the
lines are put back before a fixed cell is written. Cells run by a cell magic whose body is
not Python (`%%bash`, `%%writefile`, ...) are skipped. A cell that does not parse is
reported (GPU001) at its own position and left out of the program.

Fixing rewrites the joined program and splits it at the markers again. A fix whose edits
would cross a cell boundary (move code from one cell into another) is never applied: it is
shown as display-only, in `check` as in `--fix`, and the notebook's other fixes still
apply. A fix may still edit several cells, each edit within one (an import added to an
earlier cell). A fix that would write over an IPython line or a marker is left out the same
way, with a warning. A fixed notebook changes only the code of the changed cells (`source`;
`input` in format 3), written in the style the file already uses (list of lines or one
string, indentation, escaping); every other byte of the file (outputs, metadata, ids, key
order, final newline) stays as it was.

Format 3 notebooks (IPython 1 and 2) keep their cells in worksheets, numbered on across
them as converting the file to format 4 numbers them.

API for front-ends that hold a notebook's cells (the LSP server):

- `lint_cells(cells, ...) -> list[list[Diagnostic]]`: one list per cell, positions relative
  to that cell; `Diagnostic.cell` and every fix `Edit.cell` are 1-based indexes into `cells`.
- `fix_cells(cells, ...) -> list[str]`: the cell sources with every applicable fix applied.
"""

from __future__ import annotations

import ast
import bisect
import codecs
import json
import re
from dataclasses import dataclass, field, replace
from functools import cached_property
from json.decoder import scanstring  # type: ignore[attr-defined]  # public in the module, absent from its stub
from pathlib import Path
from collections.abc import Callable, Sequence

from .config import Config
from .diagnostic import Diagnostic, Edit, Fix, Position, Record
from .engine import parse as parse_program
from .fixing import display_fix
from .ipython import (
    Masked,
    line_body,
    mask_cell_magic,
    mask_lines,
    may_hold_ipython,
    parses,
    split_lines,
    unmask_ipython,
)
from .noqa import file_exemption, silences
from .pipeline import FixHooks, check, run, selected_rules
from .project import ImportedFile
from .registry import Rule
from .files import NOTEBOOK_SUFFIX as SUFFIX, is_notebook  # noqa: F401  (re-exported)
from .source import Source, SourceError, detect_newline, refusal

_MARKER = "# gpulint: notebook cell {}\n"
_MARKER_LINE = re.compile(r"^# gpulint: notebook cell (\d+)$", re.MULTILINE)


class NotebookError(SourceError):
    """A file that is not a notebook gpulint can read; one line for the user."""


# -- the cells as one program ----------------------------------------------------------------


@dataclass(frozen=True)
class _Cell:
    number: int  # how the user counts it: "cell 3"
    text: str
    masked: Masked
    #: Whether `masked.text` parses on its own (a cell that does not is left out of the program).
    parses: bool = True

    @property
    def newline_added(self) -> bool:
        """The program ends this cell with a line break its source lacks."""
        return bool(self.masked.text) and not self.masked.text.endswith("\n")


@dataclass(frozen=True)
class _Spot:
    cell: int
    position: Position
    #: Just past the line break the program added after the cell's last line.
    past_end: bool


class _Layout:
    """Where each cell sits in a program: the marker line before it and its line count."""

    def __init__(self, cells: Sequence[_Cell], markers: list[int], counts: list[int]) -> None:
        self.cells = {cell.number: cell for cell in cells}
        self.numbers = [cell.number for cell in cells]
        self.markers = markers
        self.counts = counts

    @classmethod
    def of_cells(cls, cells: Sequence[_Cell]) -> _Layout:
        """The layout `_program(cells)` has."""
        markers, counts, line = [], [], 1
        for cell in cells:
            markers.append(line)
            counts.append(len(split_lines(cell.masked.text)))
            line += 1 + counts[-1]
        return cls(cells, markers, counts)

    @classmethod
    def of_text(cls, text: str, cells: Sequence[_Cell]) -> _Layout | None:
        """The layout of a program after fixes, from its markers; None when a fix moved,
        dropped or wrote over one."""
        matches = list(_MARKER_LINE.finditer(text))
        if [int(m.group(1)) for m in matches] != [cell.number for cell in cells]:
            return None
        if matches and matches[0].start() != 0 or not matches and text:
            return None
        starts = Source.from_text(text).line_starts
        markers = [bisect.bisect_right(starts, m.start()) for m in matches]
        following = markers[1:] + [len(starts)]
        return cls(cells, markers, [after - marker - 1 for marker, after in zip(markers, following, strict=False)])

    def spot(self, position: Position) -> _Spot | None:
        index = bisect.bisect_right(self.markers, position.line) - 1
        if index < 0:
            return None
        line = position.line - self.markers[index]
        if line == 0:  # the start of a marker: just past the end of the cell before it
            if position.col != 0 or index == 0:
                return None
            index -= 1
            line = position.line - self.markers[index]
        number = self.numbers[index]
        past_end = line == self.counts[index] + 1 and position.col == 0
        return _Spot(number, Position(line, position.col), past_end and self.cells[number].newline_added)

    def index_of(self, line: int) -> int:
        """The index of the cell that holds program line `line`; a marker line counts as
        the end of the cell before it."""
        index = bisect.bisect_right(self.markers, line) - 1
        if index > 0 and line == self.markers[index]:
            index -= 1
        return max(index, 0)

    def cell_of(self, line: int) -> tuple[int, int] | None:
        spot = self.spot(Position(line, 1))
        return (spot.cell, spot.position.line) if spot is not None else None

    def split(self, text: str) -> dict[int, str] | None:
        """The cells' (masked) texts, as the program `text` (of this layout) holds them."""
        source = Source.from_text(text)
        pieces: dict[int, str] = {}
        for index, number in enumerate(self.numbers):
            begin = source.offset(self.markers[index] + 1, 0)
            end = source.offset(self.markers[index + 1], 0) if index + 1 < len(self.markers) else len(text)
            piece = text[begin:end]
            if self.cells[number].newline_added and piece:  # "": a fix took the whole cell away
                if not piece.endswith("\n"):
                    return None
                piece = piece[:-1]
            pieces[number] = piece
        return pieces


def _program(cells: Sequence[_Cell]) -> str:
    return "".join(
        _MARKER.format(cell.number) + cell.masked.text + ("\n" if cell.newline_added else "") for cell in cells
    )


def _map_edit(edit: Edit, layout: _Layout) -> Edit | None:
    start, end = layout.spot(edit.start), layout.spot(edit.end)
    if start is None or end is None or start.cell != end.cell:
        return None
    content = edit.content
    begin, finish = start.position, end.position
    if end.past_end:  # the edit reaches over the line break the program added
        lines = split_lines(layout.cells[end.cell].masked.text)
        last = Position(len(lines), len(line_body(lines[-1])))
        content = content[:-1] if content.endswith("\n") else content
        if start.past_end:  # an insertion after the cell's last line
            content = "\n" + content
            begin = last
        finish = last
    return Edit(begin, finish, content, cell=start.cell)


def _crosses_cells(fix: Fix | None, layout: _Layout) -> bool:
    """Whether one of the fix's edits reaches from one cell into another (or onto a marker)."""
    return fix is not None and any(_map_edit(edit, layout) is None for edit in fix.edits)


def _map_diagnostic(diagnostic: Diagnostic, layout: _Layout) -> Diagnostic | None:
    start, end = layout.spot(diagnostic.start), layout.spot(diagnostic.end)
    if start is None or end is None:
        return None
    if end.cell != start.cell:
        lines = split_lines(layout.cells[start.cell].masked.text)
        end = _Spot(start.cell, Position(len(lines), len(line_body(lines[-1]))) if lines else start.position, False)
    noqa_line = None
    if diagnostic.noqa_line is not None:
        where = layout.cell_of(diagnostic.noqa_line)
        noqa_line = where[1] if where is not None and where[0] == start.cell else None
    fix = diagnostic.fix
    if fix is not None and fix.edits:
        if _crosses_cells(fix, layout):
            fix = display_fix(fix.message)  # it spans cells: shown, never applied
        else:
            fix = fix._replace(edits=tuple(e for e in (_map_edit(edit, layout) for edit in fix.edits) if e is not None))
    return diagnostic._replace(start=start.position, end=end.position, noqa_line=noqa_line, fix=fix, cell=start.cell)


def _map_record(record: Record, layout: _Layout) -> Record | None:
    start, end = layout.spot(record.start), layout.spot(record.end)
    if start is None or end is None:
        return None
    return record._replace(
        start=start.position, end=end.position if end.cell == start.cell else start.position, cell=start.cell
    )


def _map_warning(warning: str, layout: _Layout) -> str:
    """ "LINE: message" in program lines -> "cell N:LINE: message"."""
    line, colon, message = warning.partition(": ")
    if colon and line.isdigit():
        where = layout.cell_of(int(line))
        if where is not None:
            return f"cell {where[0]}:{where[1]}: {message}"
    return warning


def _map_error(error: str, layout: _Layout) -> str:
    """An internal error's "near line N", in program lines -> "near cell C line L"."""
    match = re.search(r"near line (\d+)", error)
    where = layout.cell_of(int(match.group(1))) if match else None
    if match is None or where is None:
        return error
    return error[: match.start()] + f"near cell {where[0]} line {where[1]}" + error[match.end() :]


@dataclass
class _Outcome:
    diagnostics: list[Diagnostic] = field(default_factory=list)
    records: list[Record] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    error: str | None = None
    #: Fixed cell texts (only the cells that changed), by cell number.
    fixed: dict[int, str] = field(default_factory=dict)
    applied: list[Diagnostic] = field(default_factory=list)
    #: The project modules the check followed (`project.ImportedFile`), for the cache.
    imported: tuple[ImportedFile, ...] = ()


def _lint_alone(cell: _Cell, rules: Sequence[type[Rule]], filename: str, outcome: _Outcome) -> None:
    """A cell that does not parse: its syntax error, at its position."""
    analysis = check(Source.from_text(cell.masked.text), rules, filename, fixes=False)
    outcome.diagnostics.extend(d._replace(cell=cell.number) for d in analysis.diagnostics)
    outcome.warnings.extend(f"cell {cell.number}:{w}" if w[:1].isdigit() else w for w in analysis.warnings)


def _run(
    cells: Sequence[_Cell],
    rules: Sequence[type[Rule]],
    unsafe_fixes: bool,
    filename: str,
    fix: bool,
    fixes: bool = True,
    tree: ast.Module | None = None,
    path: Path | None = None,
) -> _Outcome:
    """Lint (or fix) the cells that parse as one program; `tree`: that program, parsed
    already (`_prepare`); `path`: the notebook's file, whose project modules its imports
    may name."""
    outcome = _Outcome()
    # `# gpulint: noqa` in any cell exempts the whole notebook, cells linted alone included.
    exemption = file_exemption(cell.masked.text for cell in cells if not cell.masked.skipped)
    if exemption is not None:
        rules = [rule for rule in rules if not silences(exemption, rule.code)]
    included = []
    for cell in cells:
        if cell.masked.skipped:
            continue
        if cell.parses:
            included.append(cell)
        else:
            _lint_alone(cell, rules, filename, outcome)
    program = Source.from_text(_program(included))
    hooks = _CellHooks(included)
    result = run(
        program, rules, filename, fix=fix, unsafe_fixes=unsafe_fixes, fixes=fixes, hooks=hooks, tree=tree, path=path
    )
    outcome.imported = result.imported
    layout = hooks.layout
    if result.error is not None:
        outcome.error = _map_error(result.error, layout)
        return outcome
    pieces = _unmask(result.source.text, layout) if result.changed else None
    if pieces is not None:
        outcome.fixed = {number: text for number, text in pieces.items() if text != layout.cells[number].text}
        outcome.applied = list(result.applied)
    _collect(result.diagnostics, result.warnings, layout, outcome)
    outcome.records = [mapped for mapped in (_map_record(r, layout) for r in result.records) if mapped is not None]
    return outcome


# -- which cells parse ------------------------------------------------------------------------

#: Syntax errors located in the program before the cells left are parsed one by one.
_MAX_LOCATED = 3


def _cells(texts: Sequence[str], numbers: Sequence[int] | None = None) -> list[_Cell]:
    """The cells, masked, each knowing whether it parses on its own; `numbers` are theirs
    (default: 1, 2, ...)."""
    return _prepare(texts, numbers)[0]


def _prepare(texts: Sequence[str], numbers: Sequence[int] | None = None) -> tuple[list[_Cell], ast.Module | None]:
    """`_cells`, and the program of the cells that parse, parsed (None when it was not).

    The cells' program is parsed once instead of every cell on its own. When it parses, a
    cell parses alone unless a statement reaches from it into another cell (an open
    bracket or string, a block or a decorator continued in the next cell) or it ends with a
    backslash continuation: only such cells are parsed alone. When the program does not
    parse, its error's line names a cell: that cell, or the nearest one before it that does
    not parse alone, is left out and the program parsed again. A cell that may hold IPython
    syntax is parsed alone first, as masking it depends on whether it is Python already.
    Cells over gpulint's bounds together (`refusal`) are not parsed at all: the engine
    refuses their program with a warning.
    """
    numbers = numbers or range(1, len(texts) + 1)
    if refusal("\n".join(texts)) is not None:
        return [
            _Cell(number, text, mask_cell_magic(text), parses=True)
            for number, text in zip(numbers, texts, strict=False)
        ], None
    cells, verdicts = [], {}
    for number, text in zip(numbers, texts, strict=False):
        masked = mask_cell_magic(text)
        if not masked.skipped and may_hold_ipython(masked.text):
            if parses(masked.text):
                verdicts[number] = True
            else:
                masked, plain = mask_lines(masked), masked
                verdicts[number] = masked.text != plain.text and parses(masked.text)
        cells.append(_Cell(number, text, masked))
    tree = _locate_broken([cell for cell in cells if not cell.masked.skipped], verdicts)
    return [replace(cell, parses=verdicts.get(cell.number, False)) for cell in cells], tree


def _locate_broken(cells: Sequence[_Cell], verdicts: dict[int, bool]) -> ast.Module | None:
    """Add to `verdicts` (cell number -> parses alone) every cell of `cells` it lacks;
    return the program of the cells that parse when it was parsed on the way."""
    for _ in range(_MAX_LOCATED + 1):
        candidates = [cell for cell in cells if verdicts.get(cell.number, True)]
        unknown = [cell for cell in candidates if cell.number not in verdicts]
        if not unknown:
            return None
        layout = _Layout.of_cells(candidates)
        try:
            tree = parse_program(Source.from_text(_program(candidates)), "<notebook>")
        except SyntaxError as error:
            if error.lineno is None:
                break
            before = reversed(candidates[: layout.index_of(error.lineno) + 1])
            if all(_parses_alone(cell, verdicts) for cell in before):
                break  # no one cell is to blame (cells that only fail together)
            continue
        except (ValueError, RecursionError, MemoryError):
            break
        suspects = _spanning(tree, layout) | {
            i for i, cell in enumerate(candidates) if cell.masked.text.rstrip().endswith("\\")
        }
        if all([_parses_alone(candidates[i], verdicts) for i in sorted(suspects)]):
            verdicts.update((cell.number, True) for cell in unknown if cell.number not in verdicts)
            return tree
    for cell in cells:
        _parses_alone(cell, verdicts)
    return None


def _parses_alone(cell: _Cell, verdicts: dict[int, bool]) -> bool:
    if cell.number not in verdicts:
        verdicts[cell.number] = parses(cell.masked.text)
    return verdicts[cell.number]


def _spanning(tree: ast.Module, layout: _Layout) -> set[int]:
    """The indexes of the cells that a top-level statement of the program reaches across."""
    found: set[int] = set()
    for statement in tree.body:
        decorators = getattr(statement, "decorator_list", ())
        first = min([statement.lineno, *(decorator.lineno for decorator in decorators)])
        begin, end = layout.index_of(first), layout.index_of(statement.end_lineno or statement.lineno)
        if begin != end:
            found.update(range(begin, end + 1))
    return found


class _CellHooks(FixHooks):
    """The fix loop over the cells' program: a fix that crosses a cell boundary is
    display-only, and a fixed program is taken only when it still parses and splits back
    into the cells, IPython lines intact. `layout` follows the program as fixed."""

    rejection = "not applied: it would produce invalid code or write over an IPython line"

    def __init__(self, cells: Sequence[_Cell]) -> None:
        super().__init__()
        self.cells = cells
        self.layout = _Layout.of_cells(cells)

    def shown_only(self, diagnostic: Diagnostic) -> bool:
        return _crosses_cells(diagnostic.fix, self.layout)

    def accepts(self, text: str, filename: str) -> bool:
        return _fits(text, self.cells)

    def taken(self, text: str) -> None:
        layout = _Layout.of_text(text, self.cells)
        assert layout is not None  # `accepts` checked it
        self.layout = layout


def _fits(text: str, cells: Sequence[_Cell]) -> bool:
    """Whether the program `text` parses and splits back into `cells`, IPython lines intact."""
    layout = _Layout.of_text(text, cells)
    return layout is not None and parses(text) and _unmask(text, layout) is not None


def _unmask(text: str, layout: _Layout) -> dict[int, str] | None:
    pieces = layout.split(text)
    if pieces is None:
        return None
    restored = {}
    for number, piece in pieces.items():
        unmasked = unmask_ipython(piece, layout.cells[number].masked)
        if unmasked is None:
            return None
        restored[number] = unmasked
    return restored


def _collect(diagnostics: Sequence[Diagnostic], messages: Sequence[str], layout: _Layout, outcome: _Outcome) -> None:
    for diagnostic in diagnostics:
        mapped = _map_diagnostic(diagnostic, layout)
        if mapped is not None:
            outcome.diagnostics.append(mapped)
    outcome.diagnostics.sort(key=lambda d: (d.cell or 0, d.start, d.code))
    outcome.warnings.extend(_map_warning(message, layout) for message in messages)


def _rules_for(
    rules: Sequence[type[Rule]] | None, config: Config | None, filename: str, cells: Sequence[str]
) -> Sequence[type[Rule]]:
    return selected_rules(rules, config, Path(filename) if filename != "<notebook>" else None, "\n".join(cells))


def lint_cells(
    cells: Sequence[str],
    filename: str = "<notebook>",
    rules: Sequence[type[Rule]] | None = None,
    config: Config | None = None,
    fixes: bool = True,
) -> list[list[Diagnostic]]:
    """Lint a notebook's code cells (in order, markdown cells left out) as one program.

    Evidence flows from cell to cell (`import pandas as pd` in cell 1 is known in cell 5).
    The result has one list per cell, in the order of `cells`: its diagnostics with
    positions relative to the cell (1-based lines, 0-based character columns, as
    `lint_source`), `Diagnostic.cell` set to the cell's 1-based index in `cells`, and fix
    edits carrying `Edit.cell` likewise (a fix may add an import to an earlier cell).
    IPython magics, shell escapes and help syntax are tolerated, never reported; cells
    run by a non-Python cell magic (`%%bash`, `%%writefile`, ...) get no diagnostics; a
    cell that does not parse gets GPU001 at its position. `filename`, `rules`, `config`
    and `fixes` mean what they mean for `lint_source`.
    """
    prepared, tree = _prepare(cells)
    outcome = _run(
        prepared,
        _rules_for(rules, config, filename, cells),
        (config or Config()).unsafe_fixes,
        filename,
        fix=False,
        fixes=fixes,
        tree=tree,
    )
    found: list[list[Diagnostic]] = [[] for _ in cells]
    for diagnostic in outcome.diagnostics:
        assert diagnostic.cell is not None
        found[diagnostic.cell - 1].append(diagnostic)
    return found


def fix_cells(
    cells: Sequence[str],
    filename: str = "<notebook>",
    rules: Sequence[type[Rule]] | None = None,
    unsafe_fixes: bool = False,
    config: Config | None = None,
) -> list[str]:
    """The cell sources with every applicable fix applied (like `fix_text`, per cell).

    Always as many strings as `cells`; unchanged cells are returned as given. When a fix
    cannot be split back into the cells it came from, nothing is changed.
    """
    outcome = _run(_cells(cells), _rules_for(rules, config, filename, cells), unsafe_fixes, filename, fix=True)
    return [outcome.fixed.get(index, text) for index, text in enumerate(cells, 1)]


# -- the notebook file ------------------------------------------------------------------------

_WHITESPACE = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()


@dataclass(frozen=True)
class _Found:
    """Where each cell's code sits in the text, by the cell's index: `cells` for format 4,
    `worksheets` for format 3 (the two formats keep their cells in different places)."""

    cells: dict[int, tuple[int, int]]
    worksheets: dict[int, tuple[int, int]]


def _skip(text: str, index: int) -> int:
    return _WHITESPACE.match(text, index).end()  # type: ignore[union-attr]


def _members(text: str, index: int) -> dict[str, tuple[int, int]]:
    """Key -> span of its value, for the JSON object starting at `index` (already known to
    be valid JSON). A repeated key keeps its last value, as `json.loads` does."""
    members: dict[str, tuple[int, int]] = {}
    index = _skip(text, index + 1)
    while text[index] != "}":
        key, index = scanstring(text, index + 1)
        index = _skip(text, _skip(text, index) + 1)  # past the colon
        _, end = _DECODER.raw_decode(text, index)
        members[key] = (index, end)
        index = _skip(text, end)
        if text[index] == ",":
            index = _skip(text, index + 1)
    return members


def _elements(text: str, index: int) -> list[tuple[int, int]]:
    """Spans of the values of the JSON array starting at `index`."""
    elements = []
    index = _skip(text, index + 1)
    while text[index] != "]":
        _, end = _DECODER.raw_decode(text, index)
        elements.append((index, end))
        index = _skip(text, end)
        if text[index] == ",":
            index = _skip(text, index + 1)
    return elements


def _decode(text: str) -> tuple[object, _Found | None]:
    """The notebook's JSON decoded, and where the code of each cell sits, found in the same
    pass: the `source` of each cell of `cells` (format 4) and the `input` of each cell of
    `worksheets` (format 3, its cells counted on across worksheets), by the cell's index.
    For JSON this pass does not take (invalid, or not an object) `json.loads` decides, and
    the spans are left to be found later."""
    found = _Found(cells={}, worksheets={})

    def cells_into(spans: dict[int, tuple[int, int]], member: str) -> Callable[[int, int], tuple[object, int]]:
        def cell_at(index: int, at: int) -> tuple[object, int]:
            if text[at] != "{":
                return _DECODER.raw_decode(text, at)
            cell, members, end = _walk_object(text, at, lambda key, i: _DECODER.raw_decode(text, i))
            if member in members:
                spans[index] = members[member]
            return cell, end

        return cell_at

    def worksheet_at(index: int, at: int) -> tuple[object, int]:
        if text[at] != "{":
            return _DECODER.raw_decode(text, at)
        spans: dict[int, tuple[int, int]] = {}

        def member_at(key: str, at: int) -> tuple[object, int]:
            if key != "cells" or text[at] != "[":
                return _DECODER.raw_decode(text, at)
            spans.clear()  # a repeated key: the last one counts
            return _walk_array(text, at, cells_into(spans, "input"))

        sheet, _, end = _walk_object(text, at, member_at)
        cells = sheet.get("cells")
        if isinstance(cells, list):
            first = sum(len(s) for s in counted)
            found.worksheets.update({first + i: span for i, span in spans.items()})
            counted.append(cells)
        return sheet, end

    counted: list[list] = []

    def member_at(key: str, at: int) -> tuple[object, int]:
        if key == "cells" and text[at] == "[":
            found.cells.clear()  # a repeated key: the last one counts
            return _walk_array(text, at, cells_into(found.cells, "source"))
        if key == "worksheets" and text[at] == "[":
            found.worksheets.clear()
            counted.clear()
            return _walk_array(text, at, worksheet_at)
        return _DECODER.raw_decode(text, at)

    try:
        start = _skip(text, 0)
        if text[start] == "{":
            data, _, end = _walk_object(text, start, member_at)
            if _skip(text, end) == len(text):
                return data, found
    except (ValueError, IndexError, RecursionError):
        pass
    return json.loads(text), None


def _walk_object(
    text: str, index: int, value_at: Callable[[str, int], tuple[object, int]]
) -> tuple[dict[str, object], dict[str, tuple[int, int]], int]:
    """The JSON object at `index`: its members, the span of each value and its end. Each
    value is decoded by `value_at(key, start)`. ValueError where the text is not JSON."""
    values: dict[str, object] = {}
    spans: dict[str, tuple[int, int]] = {}
    index = _skip(text, index + 1)
    if text[index] == "}":
        return values, spans, index + 1
    while True:
        if text[index] != '"':
            raise ValueError("a key was expected")
        key, index = scanstring(text, index + 1)
        index = _skip(text, index)
        if text[index] != ":":
            raise ValueError("a colon was expected")
        index = _skip(text, index + 1)
        values[key], end = value_at(key, index)
        spans[key] = (index, end)
        index = _skip(text, end)
        if text[index] == "}":
            return values, spans, index + 1
        if text[index] != ",":
            raise ValueError("a comma was expected")
        index = _skip(text, index + 1)


def _walk_array(text: str, index: int, value_at: Callable[[int, int], tuple[object, int]]) -> tuple[list, int]:
    """The JSON array at `index` and its end, each element decoded by `value_at(position,
    start)`. ValueError where the text is not JSON."""
    values: list = []
    index = _skip(text, index + 1)
    if text[index] == "]":
        return values, index + 1
    while True:
        value, end = value_at(len(values), index)
        values.append(value)
        index = _skip(text, end)
        if text[index] == "]":
            return values, index + 1
        if text[index] != ",":
            raise ValueError("a comma was expected")
        index = _skip(text, index + 1)


@dataclass(frozen=True)
class CodeCell:
    number: int  # 1-based position among all the notebook's cells, as Jupyter shows them
    text: str
    first_lines: tuple[int, ...] | None  # the cell line each string of a list starts; None for a string


@dataclass(frozen=True)
class _SourceSpan:
    """Where a code cell's `source` value sits in the file's text."""

    span: tuple[int, int]
    elements: tuple[tuple[int, int], ...] | None  # the list's strings; None for a string


def decode(data: bytes) -> Source:
    """A notebook's bytes as text: UTF-8 (JSON's encoding), a byte order mark tolerated."""
    bom = data.startswith(codecs.BOM_UTF8)
    try:
        text = data[len(codecs.BOM_UTF8) :].decode("utf-8") if bom else data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise NotebookError(
            f"not a notebook: not UTF-8 (byte 0x{data[error.start : error.start + 1].hex()} at offset {error.start})"
        ) from None
    return Source(text=text, encoding="utf-8", bom=bom, newline=detect_newline(text))


class Notebook:
    """A notebook file's text and its code cells, with where each source sits in the text.

    Where the sources sit is only worked out when asked (writing fixed cells back, a line of
    the file for an annotation): it takes decoding the JSON again, outputs included."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._found: dict[int, _SourceSpan] = {}
        try:
            data, self._source_spans = _decode(text)
        except json.JSONDecodeError as error:
            raise NotebookError(
                f"not a notebook: invalid JSON ({error.msg} at line {error.lineno}, column {error.colno})"
            ) from None
        except RecursionError:
            raise NotebookError("not a notebook: JSON nested too deeply") from None
        if not isinstance(data, dict):
            raise NotebookError("not a notebook: the JSON is not an object")
        version = data.get("nbformat")
        if isinstance(version, int) and not isinstance(version, bool) and version < 3:
            raise NotebookError(
                f"notebook format {version} is not supported (3 and 4 are); convert it with `jupyter nbconvert --to notebook`"
            )
        #: Format 3 (IPython 1 and 2) keeps the cells in worksheets, a code cell's code in `input`.
        self._format3 = version == 3
        self._member = "input" if self._format3 else "source"
        cells = self._cells_of(data)
        self.language = _language(data.get("metadata"))
        self.cells: list[CodeCell] = []
        for number, cell in enumerate(cells, 1):
            if not isinstance(cell, dict):
                raise NotebookError(f"not a notebook: cell {number} is not an object")
            if not isinstance(cell.get("cell_type"), str):
                raise NotebookError(f"not a notebook: cell {number} has no `cell_type`")
            if cell["cell_type"] != "code":
                continue
            if self._format3 and self.language is None and isinstance(cell.get("language"), str):
                self.language = cell["language"].lower()
            source = cell.get(self._member)
            if not (isinstance(source, str) or isinstance(source, list) and all(isinstance(s, str) for s in source)):
                raise NotebookError(
                    f"not a notebook: the `{self._member}` of cell {number} is not text (a string or a list of strings)"
                )
            if isinstance(source, str):
                self.cells.append(CodeCell(number, source, None))
                continue
            first_lines, line = [], 1
            for piece in source:
                first_lines.append(line)
                line += piece.count("\n")
            self.cells.append(CodeCell(number, "".join(source), tuple(first_lines)))

    def _cells_of(self, data: dict) -> list:
        """The notebook's cells in the order Jupyter shows them: format 3's worksheets one
        after another, as converting the file to format 4 joins them."""
        if not self._format3:
            cells = data.get("cells")
            if not isinstance(cells, list):
                raise NotebookError(
                    "not a notebook: no `cells` list" if cells is None else "not a notebook: `cells` is not a list"
                )
            return cells
        worksheets = data.get("worksheets")
        if not isinstance(worksheets, list):
            raise NotebookError(
                "not a notebook: no `worksheets` list"
                if worksheets is None
                else "not a notebook: `worksheets` is not a list"
            )
        cells = []
        for number, worksheet in enumerate(worksheets, 1):
            found = worksheet.get("cells") if isinstance(worksheet, dict) else None
            if not isinstance(found, list):
                raise NotebookError(f"not a notebook: worksheet {number} has no `cells` list")
            cells.extend(found)
        return cells

    @cached_property
    def _sources(self) -> dict[int, tuple[int, int]]:
        """Cell index -> span of its code: from the decoding pass, or found by decoding the
        file again where that pass could not tell."""
        if self._source_spans is not None:
            return self._source_spans.worksheets if self._format3 else self._source_spans.cells
        text = self.text
        root = _members(text, _skip(text, 0))
        if self._format3:
            sheets = _elements(text, root["worksheets"][0])
            cell_spans = [cell for sheet in sheets for cell in _elements(text, _members(text, sheet[0])["cells"][0])]
        else:
            cell_spans = _elements(text, root["cells"][0])
        return {cell.number - 1: _members(text, cell_spans[cell.number - 1][0])[self._member] for cell in self.cells}

    def _span(self, cell: CodeCell) -> _SourceSpan:
        """Where the code cell's `source` sits, its list's strings found on first use."""
        found = self._found.get(cell.number)
        if found is None:
            span = self._sources[cell.number - 1]
            elements = None if cell.first_lines is None else tuple(_elements(self.text, span[0]))
            found = self._found[cell.number] = _SourceSpan(span, elements)
        return found

    def file_line(self, cell: int, line: int) -> int:
        """The line of the file that holds `line` of code cell `cell` (for annotations on the
        raw file: GitHub, SARIF)."""
        found = next((c for c in self.cells if c.number == cell), None)
        if found is None:
            return 1
        where = self._span(found)
        offset = where.span[0]
        if where.elements and found.first_lines:
            index = max(bisect.bisect_right(found.first_lines, line) - 1, 0)
            offset = where.elements[index][0]
        return _line_at(self.text, offset)

    def with_sources(self, sources: dict[int, str]) -> str:
        """The file's text with the `source` of the cells in `sources` replaced, written the
        way the file writes it; every other byte unchanged."""
        text = self.text
        for cell in sorted(self.cells, key=lambda c: self._span(c).span, reverse=True):
            new = sources.get(cell.number)
            if new is None or new == cell.text:
                continue
            begin, end = self._span(cell).span
            text = text[:begin] + self._render(cell, new) + text[end:]
        return text

    def _render(self, cell: CodeCell, new: str) -> str:
        ascii_only = _escapes_non_ascii(self.text)
        if cell.first_lines is None:
            return json.dumps(new, ensure_ascii=ascii_only)
        pieces = re.findall(r"[^\n]*\n|[^\n]+", new)
        if not pieces:
            return "[]"
        lead, separator, trail = self._list_style(cell)
        return "[" + lead + separator.join(json.dumps(p, ensure_ascii=ascii_only) for p in pieces) + trail + "]"

    def _list_style(self, cell: CodeCell) -> tuple[str, str, str]:
        """The whitespace the file puts around and between a list's items."""
        (begin, end), elements = self._span(cell).span, self._span(cell).elements or ()
        if elements:
            lead = self.text[begin + 1 : elements[0][0]]
            trail = self.text[elements[-1][1] : end - 1]
            separator = self.text[elements[0][1] : elements[1][0]] if len(elements) > 1 else "," + lead
            return lead, separator, trail
        if "\n" not in self.text.rstrip():
            return "", ", ", ""  # a notebook written on one line
        line_start = self.text.rfind("\n", 0, begin) + 1
        indent = self.text[line_start : _skip(self.text, line_start)].strip("\r\n")
        second_line = self.text.split("\n", 2)[1] if self.text.count("\n") >= 2 else " "
        unit = (len(second_line) - len(second_line.lstrip(" "))) or 1
        lead = "\n" + indent + " " * unit
        return lead, "," + lead, "\n" + indent


def _line_at(text: str, offset: int) -> int:
    """The line of `text` that holds `offset` (`\r\n`, `\r` and `\n` end a line, as in
    `Source.line_starts`), counted without a table of every line of a large file."""
    breaks = text.count("\n", 0, offset)
    if "\r" in text:
        breaks += text.count("\r", 0, offset) - text.count("\r\n", 0, offset)
    return breaks + 1


#: A `\uXXXX` escape of a character outside ASCII (U+0080 and up).
_NON_ASCII_ESCAPE = re.compile(r"\\u(?:00[89a-fA-F][0-9a-fA-F]|0[1-9a-fA-F][0-9a-fA-F]{2}|[1-9a-fA-F][0-9a-fA-F]{3})")


def _escapes_non_ascii(text: str) -> bool:
    """Whether the file was written with `ensure_ascii` (non-ASCII text as `\\uXXXX` escapes)."""
    return text.isascii() and _NON_ASCII_ESCAPE.search(text) is not None


def _language(metadata: object) -> str | None:
    if not isinstance(metadata, dict):
        return None
    for key, field_name in (("kernelspec", "language"), ("language_info", "name")):
        table = metadata.get(key)
        if isinstance(table, dict) and isinstance(table.get(field_name), str):
            return table[field_name].lower()
    if isinstance(metadata.get("language"), str):
        return metadata["language"].lower()  # format 3 (IJulia writes it there; its cells say "python")
    return None


@dataclass
class NotebookResult:
    """What checking (or fixing) a notebook file produced; positions are per cell."""

    diagnostics: list[Diagnostic]
    warnings: list[str]
    error: str | None
    notebook: Notebook  # the notebook as fixed (or as read, when nothing changed)
    applied: list[Diagnostic]
    #: What collectors noted, positions per cell (`RuleContext.record`).
    records: list[Record] = field(default_factory=list)
    #: The project modules the check followed (`project.ImportedFile`), for the cache.
    imported: tuple[ImportedFile, ...] = ()

    @property
    def text(self) -> str:
        return self.notebook.text


def check_notebook(
    text: str, rules: Sequence[type[Rule]], unsafe_fixes: bool, filename: str, fix: bool, path: Path | None = None
) -> NotebookResult:
    """Lint (or fix) the notebook whose JSON text is `text` (the file at `path`, when it is
    one). Raises NotebookError when it is not a notebook."""
    notebook = Notebook(text)
    if notebook.language is not None and "python" not in notebook.language:
        return NotebookResult(
            [], [f"not a Python notebook (language: {notebook.language}); skipped"], None, notebook, []
        )
    cells, tree = _prepare([cell.text for cell in notebook.cells], [cell.number for cell in notebook.cells])
    outcome = _run(cells, rules, unsafe_fixes, filename, fix, tree=tree, path=path)
    if outcome.fixed:
        fixed = Notebook(notebook.with_sources(outcome.fixed))
        written = {cell.number: cell.text for cell in fixed.cells}
        if all(written[number] == new for number, new in outcome.fixed.items()):
            return NotebookResult(
                outcome.diagnostics,
                outcome.warnings,
                outcome.error,
                fixed,
                outcome.applied,
                outcome.records,
                outcome.imported,
            )
        outcome = _run(cells, rules, unsafe_fixes, filename, fix=False, path=path)
        outcome.warnings.append("fixes not applied: the fixed cells could not be written back")
    return NotebookResult(
        outcome.diagnostics, outcome.warnings, outcome.error, notebook, [], outcome.records, outcome.imported
    )
