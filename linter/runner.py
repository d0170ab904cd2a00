"""From paths (or text) to results: read, decode, pick the rules, lint or fix, write back.

This is the public entry point the front-ends use: `lint_source`, `fix_text`, `lint_paths`.
`lint_paths` finds the files first (`plan`), then works on them (`process`): in one process
or a pool of workers (`jobs`), served from the result cache where it can (`cache`).
"""

from __future__ import annotations

import os
from pathlib import Path
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from .cache import Cache, Hit, LineMap, observe
from .config import Config, ConfigError, ConfigResolver, Overrides
from .diagnostic import Diagnostic
from .files import (
    PathError,
    Target,
    TooLarge,
    describe_error,
    discover,
    existing_file,
    is_notebook,
    read_bytes,
    write_atomically,
)
from . import callers
from .jobs import ordered_map
from .pipeline import check, fix_source, run, selected_rules
from .project import ImportedFile
from .registry import Rule, all_rules
from .source import MAX_SOURCE, TOO_LARGE, Source, SourceError

if TYPE_CHECKING:
    from .notebook import Notebook


class FileResult:
    """What checking one file produced. A slots class rather than a dataclass (start-up), and
    not a NamedTuple: a run's work items are either a result or a tuple."""

    __slots__ = (
        "display",
        "path",
        "diagnostics",
        "warnings",
        "error",
        "original",
        "fixed",
        "applied",
        "unsafe_fixes",
        "notebook",
        "rendered",
        "imported",
    )

    def __init__(
        self,
        display: str,
        path: Path | None = None,
        diagnostics: list[Diagnostic] | None = None,
        warnings: list[str] | None = None,
        error: str | None = None,
        original: Source | None = None,
        fixed: Source | None = None,
        applied: list[Diagnostic] | None = None,
        unsafe_fixes: bool = False,
        notebook: Notebook | LineMap | None = None,
        rendered: list[str] | None = None,
        imported: tuple[ImportedFile, ...] = (),
    ) -> None:
        self.display = display
        self.path = path
        self.diagnostics: list[Diagnostic] = [] if diagnostics is None else diagnostics
        self.warnings: list[str] = [] if warnings is None else warnings
        self.error = error
        self.original = original
        self.fixed = fixed  # the fixed source, when fixing changed something
        self.applied: list[Diagnostic] = [] if applied is None else applied
        #: Whether unsafe fixes count as applicable for this file (its configuration says).
        self.unsafe_fixes = unsafe_fixes
        #: For a notebook: its cells (diagnostics carry a `cell`; `original`/`fixed` are its JSON).
        #: In a result without its sources (`without_sources`), only the file lines of its findings.
        self.notebook = notebook
        #: The file's findings as the report lists them, when the run listed them where it
        #: checked the file (in a worker, which has the sources at hand); else None.
        self.rendered = rendered
        #: The project modules the check followed (`project.ImportedFile`), for the cache.
        self.imported = imported

    def _replace(self, **changes: Any) -> FileResult:
        """A copy with `changes` made, as a NamedTuple's `_replace`."""
        return FileResult(**{**{name: getattr(self, name) for name in FileResult.__slots__}, **changes})


#: Stands for the fixed text in a result that no longer carries it: `fixed is not None`
#: still says that fixing changed the file.
DROPPED = Source("")


def without_sources(result: FileResult) -> FileResult:
    """`result` holding only what reports print: no source text, no notebook JSON, no
    detector facts. What a run keeps of a file once its output is written."""
    diagnostics = [d._replace(context=None) if d.context is not None else d for d in result.diagnostics]
    notebook = result.notebook
    if notebook is not None and not isinstance(notebook, LineMap):
        notebook = LineMap.of(notebook, diagnostics)
    return result._replace(
        diagnostics=diagnostics,
        notebook=notebook,
        original=None,
        rendered=None,
        fixed=None if result.fixed is None else DROPPED,
        applied=[d._replace(context=None) if d.context is not None else d for d in result.applied],
    )


def lint_source(
    text: str,
    filename: str = "<stdin>",
    rules: Sequence[type[Rule]] | None = None,
    config: Config | None = None,
    fixes: bool = True,
) -> list[Diagnostic]:
    """Lint Python source text; the diagnostics carry their fixes (unless `fixes=False`:
    front-ends that only report, like the flake8 and pylint plugins, skip computing them).
    When `filename` names an existing file (an editor's open document), its imports of the
    project's modules are followed as for that file on disk."""
    rules = selected_rules(rules, config, _path(filename), text)
    return check(
        Source.from_text(text),
        rules,
        filename,
        fixes=fixes,
        unsafe_fixes=(config or Config()).unsafe_fixes,
        path=existing_file(filename),
    ).diagnostics


def fix_text(
    text: str,
    filename: str = "<stdin>",
    rules: Sequence[type[Rule]] | None = None,
    unsafe_fixes: bool = False,
    config: Config | None = None,
) -> str:
    """The source with every applicable fix applied."""
    rules = selected_rules(rules, config, _path(filename), text)
    fixed = fix_source(Source.from_text(text), rules, unsafe_fixes, filename, path=existing_file(filename))
    return fixed.source.to_text()


def _path(filename: str) -> Path | None:
    return Path(filename) if filename != "<stdin>" else None


def process_source(source: Source, display: str, config: Config, path: Path | None, fix: bool) -> FileResult:
    rules = config.rules_for(path, source.text)
    outcome = run(source, rules, display, fix=fix, unsafe_fixes=config.unsafe_fixes, edits=config.fix_edits, path=path)
    result = FileResult(
        display=display,
        path=path,
        original=source,
        unsafe_fixes=config.unsafe_fixes,
        diagnostics=outcome.diagnostics,
        warnings=outcome.warnings,
        error=outcome.error,
        imported=outcome.imported,
    )
    if outcome.error is None:  # an internal error leaves the file as it is
        result.applied = outcome.applied
        if outcome.changed and outcome.source.text != source.text:
            result.fixed = outcome.source
    return result


def process_notebook(source: Source, display: str, config: Config, path: Path | None, fix: bool) -> FileResult:
    """Lint or fix a Jupyter notebook, `source` being its JSON text."""
    from .notebook import NotebookError, check_notebook  # a run without notebooks never loads them

    result = FileResult(display=display, path=path, original=source, unsafe_fixes=config.unsafe_fixes)
    try:
        # Every selected rule, not only those the text names: a notebook's JSON carries its
        # outputs (images, tables, megabytes), longer to search for each library's name than
        # the rules it would leave out take to run.
        outcome = check_notebook(source.text, config.rules_for(path), config.unsafe_fixes, display, fix, path)
    except NotebookError as error:
        result.error = str(error)
        return result
    result.diagnostics, result.warnings, result.error = outcome.diagnostics, outcome.warnings, outcome.error
    result.imported = outcome.imported
    result.notebook = outcome.notebook
    if outcome.applied and outcome.text != source.text:
        result.applied = outcome.applied
        result.fixed = source.with_text(outcome.text)
    return result


def process_file(
    target: Target,
    config: Config,
    fix: bool,
    write: bool,
    cache: Cache | None = None,
    sources: bool = True,
    render: Callable[[FileResult], list[str]] | None = None,
) -> FileResult:
    """Lint (or fix) one file; whatever the operating system refuses on the way (reading,
    writing, a folder that cannot be searched) becomes the file's `error`, never an exception.
    A result served from `cache` carries the file's source (and notebook) only if `sources`.
    `render`: how the report lists the file's findings, into `rendered` (see `lint_paths`),
    from the findings, whether they were found now or served from the cache."""
    try:
        return _process_file(target, config, fix, write, cache, sources, render)
    except OSError as error:
        return FileResult(display=str(target.path), path=target.path, error=describe_error(error))


class _Reader:
    """A file's bytes, read on first use only; one over `limit` bytes is never read (`TooLarge`)."""

    def __init__(self, path: Path, limit: int | None = None) -> None:
        self.path = path
        self.limit = limit
        self.data: bytes | None = None

    def __call__(self) -> bytes:
        if self.data is None:
            self.data = read_bytes(self.path, self.limit)
        return self.data


def _process_file(
    target: Target,
    config: Config,
    fix: bool,
    write: bool,
    cache: Cache | None,
    sources: bool,
    render: Callable[[FileResult], list[str]] | None,
) -> FileResult:
    path = target.path
    display = str(path)
    notebook = is_notebook(path)
    process = process_notebook if notebook else process_source
    # A notebook's JSON holds its outputs too: the bound is on its code (`notebook.py`).
    read = _Reader(path, None if notebook else MAX_SOURCE)
    seen = observe(path) if cache is not None else None
    try:
        served = _from_cache(target, config, fix, cache, sources, render, read, seen) if cache is not None else None
        if served is not None:
            return served
        data = read()
        source = decode_source(data, notebook)
    except TooLarge:  # a warning, as the engine gives for a source over its bounds
        return _rendered(FileResult(display=display, path=path, warnings=[TOO_LARGE]), render)
    except (PathError, SourceError) as error:  # a notebook's NotebookError is a SourceError
        return _rendered(FileResult(display=display, path=path, error=str(error)), render)
    result = _rendered(process(source, display, config, path, fix), render)
    if fix and write and result.fixed is not None and target.outside is not None:
        # A symbolic link out of the paths given: the file it leads to is linted, not changed.
        result = _rendered(process(source, display, config, path, False), render)
        result.warnings.append(f"not written: symlink to a file outside {target.outside}")
    elif fix and write and result.fixed is not None:
        try:
            written = result.fixed.to_bytes()
            write_atomically(path, written, data)
        except (PathError, SourceError) as error:
            # Nothing was written: report the file as it still is on disk.
            result = _rendered(process(source, display, config, path, False), render)
            result.error = str(error) if str(error).startswith("not written") else f"not written: {error}"
        else:
            if cache is not None:  # the entry describes the file as written (its stat is new: none kept)
                written_source = decode_source(written, notebook)
                _store(cache, config, path, display, written, process(written_source, display, config, path, False))
    elif not fix or (
        result.fixed is None and not result.applied and not _fix_would_run(result.diagnostics, config, notebook)
    ):
        # What a check of this content reports.
        _store(cache, config, path, display, data, result, seen)
    return result


def _from_cache(
    target: Target,
    config: Config,
    fix: bool,
    cache: Cache,
    sources: bool,
    render: Callable[[FileResult], list[str]] | None,
    read: _Reader,
    seen: list[int] | None,
) -> FileResult | None:
    """The file's result served from `cache` (see `process_file`), or None: no entry for
    it as it is, or fixing could change what it reports. May raise what reading raises."""
    notebook = is_notebook(target.path)
    hit = cache.lookup(config, target.path, str(target.path), seen, read)
    if hit is None or (fix and _fix_would_run(hit.diagnostics, config, notebook)):
        return None
    if (fix or config.fix_edits) and any(d.fix is not None and not d.fix.rendered for d in hit.diagnostics):
        return None  # its fixes were only planned, and this run writes their edits
    return _served(hit, target, config, read, sources, render)


def cached_result(
    target: Target,
    config: Config,
    fix: bool,
    cache: Cache,
    sources: bool = True,
    render: Callable[[FileResult], list[str]] | None = None,
) -> FileResult | None:
    """`process_file`'s result when the cache has it; None when the file must be linted
    (or read: whatever reading it or its entry refuses is left to `process_file`)."""
    try:
        return _from_cache(target, config, fix, cache, sources, render, _Reader(target.path), observe(target.path))
    except (OSError, PathError, SourceError):
        return None


def decode_source(data: bytes, notebook: bool) -> Source:
    """The text of a file's bytes: a notebook's JSON (checked to be one), else Python source."""
    if notebook:
        from .notebook import decode

        return decode(data)
    return Source.from_bytes(data)


def _rendered(result: FileResult, render: Callable[[FileResult], list[str]] | None) -> FileResult:
    if render is not None:
        result.rendered = render(result)
    return result


def _needs_text(hit: Hit, notebook: bool) -> bool:
    """Whether listing the findings of `hit` with their source lines takes the file's text: a
    file without findings shows none; a notebook's cells are in the entry (unless a finding
    is about no cell)."""
    if not hit.diagnostics:
        return False
    return not notebook or hit.lines is None or hit.lines.cells is None or any(d.cell is None for d in hit.diagnostics)


def _served(
    hit: Hit,
    target: Target,
    config: Config,
    read: _Reader,
    sources: bool,
    render: Callable[[FileResult], list[str]] | None,
) -> FileResult:
    """The result of a cache hit: with the file's text (read now, unless it was for the
    content check) when `sources`, or when `render` lists source lines of it."""
    path = target.path
    notebook = is_notebook(path)
    result = FileResult(
        display=str(path),
        path=path,
        diagnostics=hit.diagnostics,
        warnings=hit.warnings,
        unsafe_fixes=config.unsafe_fixes,
        notebook=hit.lines,
    )
    if render is not None and getattr(render, "needs_sources", True):
        sources = sources or _needs_text(hit, notebook)
    if sources:  # as a check would have returned it
        if notebook:
            from .notebook import Notebook, decode

            result.original = decode(read())
            result.notebook = Notebook(result.original.text)
        else:
            result.original = Source.from_bytes(read())
    return _rendered(result, render)


def _fix_would_run(diagnostics: Sequence[Diagnostic], config: Config, notebook: bool) -> bool:
    """Whether fixing could report something else than checking: a fix would apply, or (in a
    notebook, where a fix spanning cells is only shown when fixing) a fix has edits at all."""
    if notebook:
        return any(d.fix is not None and d.fix.edits for d in diagnostics)
    return any(d.fixable(config.unsafe_fixes) for d in diagnostics)


def _store(
    cache: Cache | None,
    config: Config,
    path: Path,
    display: str,
    data: bytes,
    result: FileResult,
    seen: list[int] | None = None,
) -> None:
    """Cache a check's result (never one with an error: an internal error is retried);
    `seen`: what `observe` gave for the file before `data` was read."""
    if cache is None or result.error is not None:
        return
    lines = None
    if result.notebook is not None and not isinstance(result.notebook, LineMap):
        lines = LineMap.of(result.notebook, result.diagnostics, with_cells=True)
    cache.store(config, path, display, data, result.diagnostics, result.warnings, lines, seen, result.imported)


#: What `plan` finds: a file to work on with its configuration, or a result already
#: (a bad path, a broken configuration).
Work = tuple[Target, Config] | FileResult


class _Task:
    """How every file of a run is worked on (sent to each worker with the file). A slots
    class (start-up)."""

    __slots__ = ("fix", "write", "cache", "keep_sources", "render")

    def __init__(
        self,
        fix: bool,
        write: bool,
        cache: Cache | None,
        keep_sources: bool,
        render: Callable[[FileResult], list[str]] | None = None,
    ) -> None:
        self.fix = fix
        self.write = write
        self.cache = cache
        self.keep_sources = keep_sources
        self.render = render

    def __call__(self, work: Work) -> FileResult:
        if isinstance(work, FileResult):
            return work
        return self._kept(
            process_file(work[0], work[1], self.fix, self.write, self.cache, self.keep_sources, self.render)
        )

    def quick(self, work: Work) -> FileResult | None:
        """The result when it needs no linting (served from the cache), else None."""
        if isinstance(work, FileResult):
            return work
        if self.cache is None:
            return None
        result = cached_result(work[0], work[1], self.fix, self.cache, self.keep_sources, self.render)
        return None if result is None else self._kept(result)

    def _kept(self, result: FileResult) -> FileResult:
        if not self.keep_sources:
            rendered = result.rendered
            result = without_sources(result)
            result.rendered = rendered
        return result


def _failed(work: Work, why: str) -> FileResult:
    if isinstance(work, FileResult):
        return work
    path = work[0].path
    return FileResult(display=str(path), path=path, error=f"internal error: {why}")


def lint_paths(
    paths: Sequence[str | os.PathLike[str]],
    overrides: Overrides | None = None,
    *,
    fix: bool = False,
    write: bool = True,
    config_file: Path | None = None,
    force_exclude: bool = False,
    jobs: int = 1,
    cache: Cache | None = None,
    keep_sources: bool = True,
    render: Callable[[FileResult], list[str]] | None = None,
) -> Stream:
    """Lint (or fix) every file under `paths`. Bad paths become results with an `error`.

    `jobs`: worker processes (results come in the same order with any number); `cache`:
    serve and store results there; `keep_sources=False`: results `without_sources`;
    `render`: how the report lists a result's findings, done where the file is checked
    (a picklable callable), into `FileResult.rendered`; one whose `needs_sources` is false
    is given results served from the cache without their sources (they are not read again)."""
    work = plan(paths, ConfigResolver(overrides or Overrides(), config_file), force_exclude)
    return process(work, fix=fix, write=write, jobs=jobs, cache=cache, keep_sources=keep_sources, render=render)


class Stream(Iterator[FileResult]):
    """A run's results as they come, and how many there are (`total`)."""

    def __init__(self, results: Iterator[FileResult], total: int) -> None:
        self._results = results
        self.total = total

    def __next__(self) -> FileResult:
        return next(self._results)

    def close(self) -> None:
        """Stop the run (Ctrl-C): its worker processes finish the files they hold, none
        half-written, and end."""
        close = getattr(self._results, "close", None)
        if close is not None:
            close()


def process(
    work: Sequence[Work],
    *,
    fix: bool = False,
    write: bool = True,
    jobs: int = 1,
    cache: Cache | None = None,
    keep_sources: bool = True,
    render: Callable[[FileResult], list[str]] | None = None,
) -> Stream:
    """The results of `plan`'s work, in its order, on up to `jobs` processes."""
    callers.forget()  # a new run: the files importing each module are looked for again
    task = _Task(fix, write, cache, keep_sources, render)
    return Stream(ordered_map(task, work, jobs, _failed, warm_up=all_rules, quick=task.quick), len(work))


def plan(
    paths: Sequence[str | os.PathLike[str]],
    resolver: ConfigResolver,
    force_exclude: bool = False,
) -> list[Work]:
    """The files under `paths`, each with the configuration governing it, in the order they
    are reported; bad paths and broken configurations as results with an `error`."""
    errors: list[FileResult] = []
    work: list[Work] = []

    def on_error(name: str, message: str) -> None:
        errors.append(FileResult(display=name, path=Path(name), error=message))

    def config_for(path: Path, is_dir: bool) -> Config | None:
        try:
            return resolver.for_path(path, is_dir)
        except ConfigError:
            return None  # reported once per file below

    def excluded(path: Path, is_dir: bool, resolved: Path) -> bool:
        config = config_for(path, is_dir)
        return config is not None and config.is_excluded(path, resolved)

    def gitignore(path: Path, is_dir: bool) -> bool:
        config = config_for(path, is_dir)
        return config is None or config.respect_gitignore

    def included(path: Path) -> bool:
        config = config_for(path, False)
        return config is not None and config.includes(path)

    broken: set[str] = set()
    for target in discover(list(paths), excluded, gitignore, on_error, included):
        work.extend(errors)
        errors.clear()
        try:
            config = resolver.for_path(target.path, is_dir=False)  # a target is a regular file
        except OSError as error:
            work.append(FileResult(display=str(target.path), path=target.path, error=describe_error(error)))
            continue
        except ConfigError as error:
            # A broken configuration stops the files it governs, not the whole run; it is
            # reported once, as "path/pyproject.toml: what is wrong".
            if str(error) not in broken:
                broken.add(str(error))
                where, _, message = str(error).partition(": ")
                work.append(FileResult(display=where, error=message))
            continue
        if target.explicit and force_exclude and config.is_excluded(target.path):
            continue
        work.append((target, config))
    work.extend(errors)
    return work
