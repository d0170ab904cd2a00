"""The one way from a source to its findings and fixes, shared by every front-end.

- `check`: analyse the source (the engine runs the selected rules and applies `# noqa`),
  then ask each finding's fixer for its fix.
- `fix_source`: apply the applicable fixes, re-checking after each pass, until the source
  is stable.
- `run`: either of them, by the front-end's `fix` flag, with one shape of result.

`lint_source`/`lint_paths` and the CLI (`runner.py`), notebooks (`notebook.py`), the
flake8 and pylint plugins (`hosted.py`) and the language server all go through these
functions. A front-end whose program is pieced together from parts (a notebook's cells)
adapts the fix loop with its own `FixHooks`: which fixes are only shown, which fixed
texts it can take, and what it learns from each text it takes.
"""

from __future__ import annotations

import ast
from pathlib import Path
from collections.abc import Sequence

from .config import Config
from .diagnostic import Diagnostic, Edit, Record
from .engine import Analysis, analyze, parse
from .fixing import apply_edits, attach_fixes, display_fix, select_non_overlapping
from .noqa import apply_noqa
from .project import ImportedFile
from .registry import Rule, all_rules
from .source import Source

MAX_PASSES = 10


def selected_rules(
    rules: Sequence[type[Rule]] | None, config: Config | None, path: Path | None, text: str | None = None
) -> Sequence[type[Rule]]:
    """`rules` when given, else those `config` selects for the file at `path` (None: a
    source that is no file) whose source is `text` (`Config.rules_for`), else every rule,
    whatever its tier: a library caller that names neither checks everything. Selection by
    tier is the configuration's (`Config()` runs the default tier), which the command line,
    the plugins and the editor pass."""
    if rules is not None:
        return rules
    return config.rules_for(path, text) if config is not None else all_rules()


def check(
    source: Source,
    rules: Sequence[type[Rule]],
    filename: str = "<string>",
    *,
    fixes: bool = True,
    unsafe_fixes: bool = False,
    tree: ast.Module | None = None,
    edits: bool = True,
    path: Path | None = None,
) -> Analysis:
    """The findings of the selected `rules` in `source`, `# noqa` applied, each with its fix
    (unless `fixes=False`: front-ends that only report skip computing them), its edits
    written unless `edits=False` (planned only: a run that neither applies nor shows them).
    `unsafe_fixes` says which fixes will be applied: only those keep the names they take. The warnings
    are the engine's followed by those of fixers that failed. `tree`: the source already
    parsed (by the engine's `parse`), when the front-end parsed it. `path`: the file the
    source is, whose imports of its project's modules are followed (`project`)."""
    analysis = analyze(source, rules, filename, tree, path)
    analysis.diagnostics, messages = apply_noqa(source, analysis.diagnostics)
    analysis.warnings = analysis.warnings + messages
    if fixes:
        analysis.diagnostics, failed = attach_fixes(
            source, analysis.tree, analysis.diagnostics, rules, unsafe_fixes, analysis.semantic, render=edits
        )
        analysis.warnings = analysis.warnings + failed
    return analysis


class FixHooks:
    """How a front-end adapts the fix loop; these defaults are those of a plain source."""

    #: Says why a fix that `accepts` refused (on its own) was not applied.
    rejection = "produced invalid code; not applied"

    def shown_only(self, diagnostic: Diagnostic) -> bool:
        """Whether the finding's fix is shown but never applied (it becomes display-only)."""
        return False

    def __init__(self) -> None:
        self._parsed: tuple[str, ast.Module] | None = None

    def accepts(self, text: str, filename: str) -> bool:
        """Whether the loop may take `text`, the source with some fixes applied. Its tree
        is kept for the next pass (`tree_for`): one parse a pass."""
        try:
            tree = parse(Source.from_text(text), filename)  # compact for a large file, like the next pass
        except (SyntaxError, ValueError, RecursionError):  # what `analyze` reports as GPU001
            return False
        self._parsed = (text, tree)
        return True

    def tree_for(self, text: str) -> ast.Module | None:
        """The tree `accepts` made of `text`, handed over once (None for other text)."""
        parsed, self._parsed = self._parsed, None
        return parsed[1] if parsed is not None and parsed[0] == text else None

    def taken(self, text: str) -> None:
        """The loop took `text` (which `accepts` accepted) as the source of the next pass."""


class Outcome:
    """What checking or fixing a source produced. A slots class rather than a dataclass
    (start-up)."""

    __slots__ = ("source", "applied", "diagnostics", "warnings", "error", "records", "imported")

    def __init__(
        self,
        source: Source,
        applied: list[Diagnostic] | None = None,
        diagnostics: list[Diagnostic] | None = None,
        warnings: list[str] | None = None,
        error: str | None = None,
        records: list[Record] | None = None,
        imported: tuple[ImportedFile, ...] = (),
    ) -> None:
        #: The source as fixed (as given when nothing was fixed).
        self.source = source
        #: The fixes applied, as the findings they fixed.
        self.applied: list[Diagnostic] = [] if applied is None else applied
        #: The findings in `source`, each with its fix.
        self.diagnostics: list[Diagnostic] = [] if diagnostics is None else diagnostics
        self.warnings: list[str] = [] if warnings is None else warnings
        #: An internal error: the result is incomplete, and a fixed source must not be written.
        self.error = error
        #: What collectors noted in `source` (`RuleContext.record`).
        self.records: list[Record] = [] if records is None else records
        #: The project modules the last check followed (`project.ImportedFile`), for the cache.
        self.imported = imported

    @property
    def changed(self) -> bool:
        return bool(self.applied)


def run(
    source: Source,
    rules: Sequence[type[Rule]],
    filename: str = "<string>",
    *,
    fix: bool = False,
    unsafe_fixes: bool = False,
    fixes: bool = True,
    hooks: FixHooks | None = None,
    tree: ast.Module | None = None,
    edits: bool = True,
    path: Path | None = None,
) -> Outcome:
    """`fix_source` when `fix`, else `check` (`fixes`, `hooks`, `tree`, `edits` and `path`
    as they say)."""
    if fix:
        return fix_source(source, rules, unsafe_fixes, filename, hooks, path)
    analysis = check(source, rules, filename, fixes=fixes, unsafe_fixes=unsafe_fixes, tree=tree, edits=edits, path=path)
    return Outcome(
        source,
        diagnostics=analysis.diagnostics,
        warnings=analysis.warnings,
        error=analysis.error,
        records=analysis.records,
        imported=analysis.imported,
    )


def fix_source(
    source: Source,
    rules: Sequence[type[Rule]],
    unsafe_fixes: bool,
    filename: str = "<string>",
    hooks: FixHooks | None = None,
    path: Path | None = None,
) -> Outcome:
    """Apply the applicable fixes, re-checking after each pass, until nothing changes.

    Each pass applies the fixes whose edits do not overlap. When `hooks` refuses the
    result, the fixes it refuses on their own are left out for good (with a warning) and
    the pass is done again; when each is fine alone but not all together, the first is
    applied now and the others in the next passes."""
    hooks = hooks or FixHooks()
    outcome = Outcome(source)
    skipped: set[tuple[str, int, int]] = set()
    rejected: list[str] = []
    for _ in range(MAX_PASSES):
        # the tree `accepts` made of this text, when a fix was accepted: one parse a pass
        analysis = check(
            outcome.source,
            rules,
            filename,
            unsafe_fixes=unsafe_fixes,
            tree=hooks.tree_for(outcome.source.text),
            path=path,
        )
        if analysis.error is not None:
            outcome.error, outcome.diagnostics = analysis.error, []
            break
        diagnostics = [_demoted(d) if d.fix is not None and hooks.shown_only(d) else d for d in analysis.diagnostics]
        outcome.warnings = analysis.warnings + rejected
        outcome.imported = analysis.imported
        # Let this pass's tree go before the next one is built: the analysis holds it, and
        # so do the findings' detector facts (`context`), which no one reads once fixed.
        analysis = None  # type: ignore[assignment]
        diagnostics = [diagnostic._replace(context=None) for diagnostic in diagnostics]
        outcome.diagnostics = diagnostics
        candidates = [
            d for d in diagnostics if d.fixable(unsafe_fixes) and (d.code, d.start.line, d.start.col) not in skipped
        ]
        if not candidates:
            break
        chosen, edits = select_non_overlapping(outcome.source, candidates)
        text = apply_edits(outcome.source, edits)
        if not hooks.accepts(text, filename):
            broken = [d for d in chosen if not hooks.accepts(apply_edits(outcome.source, _edits(d)), filename)]
            for diagnostic in broken:
                skipped.add((diagnostic.code, diagnostic.start.line, diagnostic.start.col))
                rejected.append(f"{diagnostic.start.line}: fix for {diagnostic.code} {hooks.rejection}")
            if broken:
                continue
            chosen = chosen[:1]  # each is fine alone, not all together: one now, the others next pass
            text = apply_edits(outcome.source, _edits(chosen[0]))
        hooks.taken(text)
        outcome.applied.extend(chosen)
        outcome.source = outcome.source.with_text(text)
    else:
        outcome.warnings.append(f"fixes did not converge after {MAX_PASSES} passes")
    return outcome


def _demoted(diagnostic: Diagnostic) -> Diagnostic:
    assert diagnostic.fix is not None
    return diagnostic.with_fix(display_fix(diagnostic.fix.message))


def _edits(diagnostic: Diagnostic) -> tuple[Edit, ...]:
    return diagnostic.fix.edits if diagnostic.fix is not None else ()
