"""The result cache: a file's findings, kept until its content or what governs it changes.

One entry per file (named by a hash of its resolved path and displayed name) holds the
findings, warnings and notebook line map of the last lint, with a check value: a hash of
the file's bytes, the rules selected for it and every setting that changes its findings,
and the code of gpulint itself (its version and, for a source checkout, its files' sizes
and times). An entry whose check value differs is a miss and is overwritten, so the cache
holds at most one entry per file and setting.

Entries are written atomically (a temporary file renamed over the old one): concurrent
runs never see half an entry. An entry that cannot be read or decoded is a miss. The
folder holds a `CACHEDIR.TAG` (backup tools skip it) and a `.gitignore` ignoring all of it;
`gpulint clean` removes only folders that hold that tag.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from dataclasses import dataclass, fields
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable, Sequence

from .config import Config
from .diagnostic import Applicability, Diagnostic, Edit, Fix, Position
from .files import repository_root

ENV = "GPULINT_CACHE_DIR"
DIRNAME = ".gpulint_cache"
#: The shape of an entry; a new shape lives in a new subfolder.
FORMAT = "v1"
TAG = ("Signature: 8a477f597d28d172789f06886806bc55\n"
       "# This file is a cache directory tag created by gpulint.\n"
       "# For information about cache directory tags see https://bford.info/cachedir/\n")
#: Configuration fields that never change a file's findings (the selection is hashed as
#: the codes it selects for the file). Any other field is part of the check value.
_NEUTRAL = frozenset({"root", "source", "select", "extend_select", "ignore", "per_file_ignores", "exclude",
                      "respect_gitignore", "jobs", "cache_dir", "command_line_exclude", "command_line_root",
                      "output_format"})


class LineMap:
    """The lines of a notebook file that hold given cell lines: what the GitHub and SARIF
    outputs ask `Notebook.file_line`, kept without the notebook's text."""

    def __init__(self, lines: dict[tuple[int, int], int]) -> None:
        self.lines = lines

    @classmethod
    def of(cls, notebook: Any, diagnostics: Iterable[Diagnostic]) -> "LineMap":
        wanted = {(d.cell, line) for d in diagnostics if d.cell is not None
                  for line in (d.start.line, d.end.line, d.noqa_line) if line is not None}
        return cls({key: notebook.file_line(*key) for key in wanted})

    def file_line(self, cell: int, line: int) -> int:
        return self.lines.get((cell, line), 1)


@lru_cache(maxsize=4)
def code_version(version: str) -> str:
    """gpulint's `version` plus, for a source checkout, the size and time of each of its
    files: editing a rule invalidates what it found."""
    digest = hashlib.sha256(version.encode())
    package = Path(__file__).resolve().parent
    for folder in sorted({package, package.parent / "rules", package.parent / "fixers"}):
        for directory, dirnames, filenames in os.walk(folder):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith((".", "__")))  # no caches, no data
            for name in sorted(filenames):
                if name.endswith(".py"):
                    try:
                        info = os.stat(os.path.join(directory, name))
                    except OSError:
                        continue
                    where = os.path.relpath(os.path.join(directory, name), folder)
                    digest.update(f"{where}\0{info.st_size}\0{info.st_mtime_ns}\n".encode())
    return f"{version}+{digest.hexdigest()[:16]}"


def _plain(value: Any) -> Any:
    """A JSON value for a setting, the same in every process (sets sorted)."""
    if isinstance(value, (frozenset, set)):
        return sorted(_plain(item) for item in value)
    if isinstance(value, (tuple, list)):
        return [_plain(item) for item in value]
    if isinstance(value, Path):
        return str(value)
    return value if isinstance(value, (str, int, float, bool, type(None))) else repr(value)


def settings(config: Config, path: Path | None) -> str:
    """What in `config` governs the findings in the file at `path`, as one string."""
    other = {f.name: _plain(getattr(config, f.name)) for f in fields(config) if f.name not in _NEUTRAL}
    return json.dumps({"codes": sorted(config.codes_for(path)), **other}, sort_keys=True)


def directory_for(config: Config) -> Path:
    """Where the files `config` governs keep their cache: `GPULINT_CACHE_DIR`, else the
    configured `cache-dir`, else `.gpulint_cache` in the project root (the folder of the
    pyproject.toml; without one, the repository holding the current folder, or that folder)."""
    if os.environ.get(ENV):
        return Path(os.environ[ENV]).absolute()
    if config.cache_dir is not None:
        return config.cache_dir
    if config.source != "defaults" and config.root is not None:
        return config.root / DIRNAME
    cwd = Path.cwd()
    return (repository_root(cwd) or cwd) / DIRNAME


@dataclass(frozen=True)
class Hit:
    diagnostics: list[Diagnostic]
    warnings: list[str]
    lines: LineMap | None


class Cache:
    """Reads and writes entries; a folder that cannot be written just caches nothing."""

    def __init__(self, version: str) -> None:
        """`version`: gpulint's (`gpulint.__version__`)."""
        self.version = code_version(version)
        self._ready: set[Path] = set()
        # Per configuration (kept alive here, so its id stays its own): its cache folder,
        # and its settings when they are the same for every file (no per-file ignores).
        self._known: dict[int, tuple[Config, Path, str | None]] = {}

    def __getstate__(self) -> dict[str, Any]:
        return {"version": self.version, "_ready": set(), "_known": {}}  # a worker learns its own

    def _about(self, config: Config) -> tuple[Config, Path, str | None]:
        known = self._known.get(id(config))
        if known is None:
            shared = None if config.per_file_ignores else settings(config, None)
            known = self._known[id(config)] = (config, directory_for(config), shared)
        return known

    def _entry(self, config: Config, path: Path, display: str) -> Path:
        name = hashlib.sha256(f"{os.path.abspath(path)}\0{display}".encode()).hexdigest()
        return self._about(config)[1] / FORMAT / name[:2] / name

    def _check(self, config: Config, path: Path, data: bytes) -> str:
        digest = hashlib.sha256(self.version.encode())
        shared = self._about(config)[2]
        digest.update((settings(config, path) if shared is None else shared).encode())
        digest.update(b"\0notebook" if path.suffix == ".ipynb" else b"\0source")
        digest.update(hashlib.sha256(data).digest())
        return digest.hexdigest()

    def lookup(self, config: Config, path: Path, display: str, data: bytes) -> Hit | None:
        try:
            raw = self._entry(config, path, display).read_bytes()
            entry = json.loads(raw)
            if entry["check"] != self._check(config, path, data):
                return None
            lines = entry["lines"]
            return Hit([_diagnostic(item) for item in entry["diagnostics"]], [str(w) for w in entry["warnings"]],
                       None if lines is None else LineMap({(c, l): f for c, l, f in lines}))
        except (OSError, ValueError, KeyError, TypeError, IndexError, AttributeError):
            return None  # missing, unreadable, truncated or of another shape: a miss

    def store(self, config: Config, path: Path, display: str, data: bytes, diagnostics: Sequence[Diagnostic],
              warnings: Sequence[str], lines: LineMap | None) -> None:
        entry = {
            "check": self._check(config, path, data),
            "diagnostics": [_encode(d) for d in diagnostics],
            "warnings": list(warnings),
            "lines": None if lines is None else [[c, l, f] for (c, l), f in sorted(lines.lines.items())],
        }
        target = self._entry(config, path, display)
        try:
            self._prepare(target.parents[2])
            target.parent.mkdir(parents=True, exist_ok=True)
            _write(target, json.dumps(entry, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))
        except OSError:
            pass  # a read-only project, a full disk: the run goes on uncached

    def _prepare(self, directory: Path) -> None:
        """Create the cache folder with its tag and .gitignore (once per run and folder)."""
        if directory in self._ready:
            return
        directory.mkdir(parents=True, exist_ok=True)
        for name, content in (("CACHEDIR.TAG", TAG), (".gitignore", "# Created by gpulint.\n*\n")):
            if not (directory / name).exists():
                _write(directory / name, content.encode())
        self._ready.add(directory)


def _write(target: Path, data: bytes) -> None:
    handle, temporary = tempfile.mkstemp(prefix=".tmp-", dir=target.parent)
    try:
        if hasattr(os, "fchmod"):
            os.fchmod(handle, 0o644)  # as any file the user writes, not mkstemp's owner-only
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
        os.replace(temporary, target)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise


def clean(directories: Iterable[Path]) -> list[Path]:
    """Remove the given cache folders (only those holding gpulint's `CACHEDIR.TAG`); the
    ones removed."""
    removed = []
    for directory in directories:
        try:
            if TAG.splitlines()[1] not in (directory / "CACHEDIR.TAG").read_text(encoding="utf-8"):
                continue
        except (OSError, UnicodeDecodeError):
            continue
        shutil.rmtree(directory, ignore_errors=True)
        removed.append(directory)
    return removed


# -- entries as JSON: a diagnostic is a list, its fix a list, each edit a list ---------------


def _encode(d: Diagnostic) -> list[Any]:
    fix = None
    if d.fix is not None:
        fix = [d.fix.applicability.value, d.fix.message, sorted(d.fix.introduces),
               [[e.start.line, e.start.col, e.end.line, e.end.col, e.content, e.cell] for e in d.fix.edits]]
    return [d.code, d.name, d.message, d.start.line, d.start.col, d.end.line, d.end.col, fix, d.url,
            d.noqa_line, d.cell]


def _diagnostic(item: list[Any]) -> Diagnostic:
    code, name, message, line, col, end_line, end_col, fix, url, noqa_line, cell = item
    return Diagnostic(code, name, message, Position(line, col), Position(end_line, end_col),
                      None if fix is None else _fix(fix), url, noqa_line, cell=cell)


def _fix(item: list[Any]) -> Fix:
    applicability, message, introduces, edits = item
    return Fix(Applicability(applicability), message,
               tuple(Edit(Position(a, b), Position(c, d), content, cell) for a, b, c, d, content, cell in edits),
               frozenset(introduces))


def found_below(folder: Path) -> list[Path]:
    """The `.gpulint_cache` folders under `folder` (not searching folders no one lints)."""
    from .files import SKIPPED_DIRECTORIES

    found = []
    for directory, dirnames, _ in os.walk(folder):
        if DIRNAME in dirnames:
            found.append(Path(directory) / DIRNAME)
        dirnames[:] = [d for d in dirnames if d != DIRNAME and d not in SKIPPED_DIRECTORIES]
    return found
