"""From paths (or text) to results: read, decode, pick the rules, lint or fix, write back.

This is the public entry point the front-ends use: `lint_source`, `fix_text`, `lint_paths`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator, Sequence

from .config import Config, ConfigError, ConfigResolver, Overrides
from .diagnostic import Diagnostic
from .files import PathError, Target, describe_error, discover, read_bytes, write_atomically
from .notebook import Notebook, NotebookError, check_notebook, decode, is_notebook
from .pipeline import check, fix_source, run, selected_rules
from .registry import Rule
from .source import Source, SourceError


@dataclass
class FileResult:
    display: str
    path: Path | None = None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    error: str | None = None
    original: Source | None = None
    fixed: Source | None = None  # the fixed source, when fixing changed something
    applied: list[Diagnostic] = field(default_factory=list)
    #: Whether unsafe fixes count as applicable for this file (its configuration says).
    unsafe_fixes: bool = False
    #: For a notebook: its cells (diagnostics carry a `cell`; `original`/`fixed` are its JSON).
    notebook: Notebook | None = None


def lint_source(text: str, filename: str = "<stdin>", rules: Sequence[type[Rule]] | None = None,
                config: Config | None = None, fixes: bool = True) -> list[Diagnostic]:
    """Lint Python source text; the diagnostics carry their fixes (unless `fixes=False`:
    front-ends that only report, like the flake8 and pylint plugins, skip computing them)."""
    rules = selected_rules(rules, config, _path(filename))
    return check(Source.from_text(text), rules, filename, fixes=fixes,
                 unsafe_fixes=(config or Config()).unsafe_fixes).diagnostics


def fix_text(text: str, filename: str = "<stdin>", rules: Sequence[type[Rule]] | None = None,
             unsafe_fixes: bool = False, config: Config | None = None) -> str:
    """The source with every applicable fix applied."""
    rules = selected_rules(rules, config, _path(filename))
    return fix_source(Source.from_text(text), rules, unsafe_fixes, filename).source.to_text()


def _path(filename: str) -> Path | None:
    return Path(filename) if filename != "<stdin>" else None


def process_source(source: Source, display: str, config: Config, path: Path | None, fix: bool) -> FileResult:
    outcome = run(source, config.rules_for(path), display, fix=fix, unsafe_fixes=config.unsafe_fixes)
    result = FileResult(display=display, path=path, original=source, unsafe_fixes=config.unsafe_fixes,
                        diagnostics=outcome.diagnostics, warnings=outcome.warnings, error=outcome.error)
    if outcome.error is None:  # an internal error leaves the file as it is
        result.applied = outcome.applied
        if outcome.changed and outcome.source.text != source.text:
            result.fixed = outcome.source
    return result


def process_notebook(source: Source, display: str, config: Config, path: Path | None, fix: bool) -> FileResult:
    """Lint or fix a Jupyter notebook, `source` being its JSON text."""
    result = FileResult(display=display, path=path, original=source, unsafe_fixes=config.unsafe_fixes)
    try:
        outcome = check_notebook(source.text, config.rules_for(path), config.unsafe_fixes, display, fix)
    except NotebookError as error:
        result.error = str(error)
        return result
    result.diagnostics, result.warnings, result.error = outcome.diagnostics, outcome.warnings, outcome.error
    result.notebook = outcome.notebook
    if outcome.applied and outcome.text != source.text:
        result.applied = outcome.applied
        result.fixed = source.with_text(outcome.text)
    return result


def process_file(target: Target, config: Config, fix: bool, write: bool) -> FileResult:
    """Lint (or fix) one file; whatever the operating system refuses on the way (reading,
    writing, a folder that cannot be searched) becomes the file's `error`, never an exception."""
    try:
        return _process_file(target, config, fix, write)
    except OSError as error:
        return FileResult(display=str(target.path), path=target.path, error=describe_error(error))


def _process_file(target: Target, config: Config, fix: bool, write: bool) -> FileResult:
    path = target.path
    display = str(path)
    notebook = is_notebook(path)
    process = process_notebook if notebook else process_source
    try:
        data = read_bytes(path)
        source = decode(data) if notebook else Source.from_bytes(data)
    except (PathError, SourceError, NotebookError) as error:
        return FileResult(display=display, path=path, error=str(error))
    if not (fix and write):
        del data  # only a write compares against the bytes read: no need to hold them meanwhile
        return process(source, display, config, path, fix)
    result = process(source, display, config, path, fix)
    if result.fixed is not None:
        try:
            write_atomically(path, result.fixed.to_bytes(), data)
        except (PathError, SourceError) as error:
            # Nothing was written: report the file as it still is on disk.
            result = process(source, display, config, path, False)
            result.error = str(error) if str(error).startswith("not written") else f"not written: {error}"
    return result


def lint_paths(paths: "Sequence[str | os.PathLike[str]]", overrides: Overrides | None = None, *, fix: bool = False,
               write: bool = True, config_file: Path | None = None, force_exclude: bool = False,
               ) -> Iterator[FileResult]:
    """Lint (or fix) every file under `paths`. Bad paths become results with an `error`."""
    resolver = ConfigResolver(overrides or Overrides(), config_file)
    errors: list[FileResult] = []

    def on_error(name: str, message: str) -> None:
        errors.append(FileResult(display=name, path=Path(name), error=message))

    def config_for(path: Path) -> Config | None:
        try:
            return resolver.for_path(path)
        except ConfigError:
            return None  # reported once per file below

    def excluded(path: Path) -> bool:
        config = config_for(path)
        return config is not None and config.is_excluded(path)

    def gitignore(path: Path) -> bool:
        config = config_for(path)
        return config is None or config.respect_gitignore

    broken: set[str] = set()
    for target in discover(list(paths), excluded, gitignore, on_error):
        yield from _drain(errors)
        try:
            config = resolver.for_path(target.path)
        except OSError as error:
            yield FileResult(display=str(target.path), path=target.path, error=describe_error(error))
            continue
        except ConfigError as error:
            # A broken configuration stops the files it governs, not the whole run; it is
            # reported once, as "path/pyproject.toml: what is wrong".
            if str(error) not in broken:
                broken.add(str(error))
                where, _, message = str(error).partition(": ")
                yield FileResult(display=where, error=message)
            continue
        if target.explicit and force_exclude and config.is_excluded(target.path):
            continue
        yield process_file(target, config, fix, write)
    yield from _drain(errors)


def _drain(errors: list[FileResult]) -> Iterator[FileResult]:
    while errors:
        yield errors.pop(0)
