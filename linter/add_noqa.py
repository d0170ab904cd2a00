"""`gpulint check --add-noqa`: a `# noqa: CODE` comment on every line with a finding.

A finding is silenced where `apply_noqa` reads a directive: its first line (or `noqa_line`)
or its last one. The comment goes on the first of those where Python's tokenizer lets a
comment be, i.e. a line whose end is not inside a string or a backslash continuation (a
finding that starts on a line opening a multi-line string gets it on its last line). The
codes join a `# noqa: CODES` list already on that line (its free text kept after the list);
a line without one gets `  # noqa: CODES` after its code and any comment. Syntax errors
(GPU001) are never suppressed this way: they need fixing.

The same edits serve the editor's "Disable GPUxxx for this line" code action.
"""

from __future__ import annotations

import io
import os
import tokenize
from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Iterable, Sequence

from .config import Config, ConfigError, ConfigResolver, Overrides
from .diagnostic import Diagnostic, Edit, Position
from .engine import SYNTAX_ERROR_CODE
from .fixing import apply_edits
from .files import GivenPaths, PathError, read_bytes, write_atomically
from .ipython import mask_ipython, unmask_ipython
from .noqa import listed_codes
from .notebook import Notebook, NotebookError, decode, is_notebook
from .runner import FileResult, lint_paths, process_notebook, process_source
from .source import Source, SourceError


def noqa_edits(text: str, diagnostics: Iterable[Diagnostic]) -> tuple[list[Edit], list[Diagnostic]]:
    """The edits that silence `diagnostics` in `text` (one per line, with every code that
    line needs), and the findings no comment can silence (the file does not tokenize, or
    each line the finding could be silenced on ends inside a string or a continuation)."""
    line_ends, comments = _line_facts(text)
    codes_by_line: dict[int, list[str]] = {}
    unplaced: list[Diagnostic] = []
    for diagnostic in diagnostics:
        candidates = [
            line
            for line in dict.fromkeys((diagnostic.noqa_line or diagnostic.start.line, diagnostic.end.line))
            if line in line_ends
        ]
        if not candidates:
            unplaced.append(diagnostic)
            continue
        # A line that already lists codes takes the new one too, so one line keeps one list.
        listing = [line for line in candidates if line in comments and listed_codes(comments[line][1]) is not None]
        codes = codes_by_line.setdefault((listing or candidates)[0], [])
        if diagnostic.code not in codes:
            codes.append(diagnostic.code)
    source = Source(text)
    edits = []
    for line, codes in sorted(codes_by_line.items()):
        comment = comments.get(line)
        listed = listed_codes(comment[1]) if comment is not None else None
        if comment is not None and listed is not None:
            start, end, present = listed
            merged = present + sorted(code for code in codes if code not in present)
            column = comment[0]
            edits.append(
                Edit(Position(line, column + start), Position(line, column + end), "# noqa: " + ", ".join(merged))
            )
            continue
        code_line = source.line(line)
        end = len(code_line.rstrip(" \t"))
        edits.append(Edit(Position(line, end), Position(line, len(code_line)), "  # noqa: " + ", ".join(sorted(codes))))
    return edits, unplaced


def _line_facts(text: str) -> tuple[set[int], dict[int, tuple[int, str]]]:
    """Lines whose end is the end of a physical line of code (a comment may follow), and
    each line's comment as (column, text); nothing when the text does not tokenize."""
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


@dataclass
class Added:
    """What `add_noqa` did: directives added (one per line changed), the files it changed,
    the results of the files it could not read, lint or write, and warnings."""

    directives: int = 0
    files: list[str] = field(default_factory=list)
    errors: list[FileResult] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def add_noqa(
    paths: Sequence[str], overrides: Overrides, config_file: Path | None = None, force_exclude: bool = False
) -> Added:
    """Add `# noqa: CODES` for every finding in the files under `paths`. Each file is read
    and linted again right before it is changed, and written atomically (left alone when it
    changed meanwhile), keeping its encoding, byte order mark and line endings. A symbolic
    link to a file outside the given paths is left alone, with a warning (as `--fix` does)."""
    added = Added()
    resolver = ConfigResolver(overrides, config_file)
    given = GivenPaths(paths)
    for result in lint_paths(
        paths, overrides, config_file=config_file, force_exclude=force_exclude, keep_sources=False
    ):
        if result.error is not None:
            added.errors.append(result)
        elif result.path is not None and any(d.code != SYNTAX_ERROR_CODE for d in result.diagnostics):
            outside = given.escape(result.path) if os.path.islink(result.path) else None
            if outside is not None:
                added.warnings.append(f"{result.display}: not written: symlink to a file outside {outside}")
            else:
                _add_to_file(result.path, result.display, resolver, added)
    return added


def _add_to_file(path: Path, display: str, resolver: ConfigResolver, added: Added) -> None:
    try:
        config = resolver.for_path(path)
        data = read_bytes(path)
        notebook = is_notebook(path)
        source = decode(data) if notebook else Source.from_bytes(data)
        text, count, unplaced = (_notebook_text if notebook else _source_text)(source, display, config, path)
        if count:
            write_atomically(path, source.with_text(text).to_bytes(), data)
    except (ConfigError, PathError, SourceError, NotebookError, OSError) as error:
        added.errors.append(FileResult(display=display, path=path, error=f"no noqa added: {error}"))
        return
    added.warnings.extend(
        f"{display}:{where}: cannot add a noqa comment for {code} (no comment can follow its lines)"
        for where, code in unplaced
    )
    if count:
        added.directives += count
        added.files.append(display)


def _findings(result: FileResult) -> list[Diagnostic]:
    return [d for d in result.diagnostics if d.code != SYNTAX_ERROR_CODE]


def _source_text(source: Source, display: str, config: Config, path: Path) -> tuple[str, int, list[tuple[str, str]]]:
    """The file's text with the comments added, how many lines got one, and (where, code)
    of the findings no comment can silence."""
    result = process_source(source, display, config, path, False)
    edits, unplaced = noqa_edits(source.text, _findings(result))
    return apply_edits(source, edits), len(edits), [(str(d.start.line), d.code) for d in unplaced]


def _notebook_text(source: Source, display: str, config: Config, path: Path) -> tuple[str, int, list[tuple[str, str]]]:
    """As `_source_text`, for a notebook: each cell gets the comments its findings need;
    IPython lines stay as they are."""
    result = process_notebook(source, display, config, path, False)
    if result.error is not None:
        raise NotebookError(result.error)
    notebook = Notebook(source.text)
    count = 0
    unplaced: list[tuple[str, str]] = []
    sources: dict[int, str] = {}
    for cell in notebook.cells:
        findings = [d for d in _findings(result) if d.cell == cell.number]
        if not findings:
            continue
        masked = mask_ipython(cell.text)  # the cell as the findings' positions see it
        edits, missed = noqa_edits(masked.text, findings)
        restored = unmask_ipython(apply_edits(Source(masked.text), edits), masked) if edits else cell.text
        if restored is None:
            missed = findings
            edits = []
        unplaced.extend((f"cell {cell.number}:{d.start.line}", d.code) for d in missed)
        if edits and restored is not None:
            sources[cell.number] = restored
            count += len(edits)
    return (notebook.with_sources(sources) if sources else source.text), count, unplaced
