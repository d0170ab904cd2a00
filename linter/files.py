"""Finding the files to lint, reading them, and writing fixes back safely.

Directories are walked honouring `.gitignore` files (from the repository root down),
the configuration's `exclude`, and a fixed list of folders no one wants linted. Files
named explicitly are always linted. Writes are atomic (temporary file + rename), keep the
file's mode, and are refused when the file changed on disk since it was read.
"""

from __future__ import annotations

import os
import re
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

import pathspec

SUFFIXES = (".py", ".pyi", ".ipynb")
SKIPPED_DIRECTORIES = frozenset(
    """.git .hg .svn .bzr .venv venv .tox .nox __pycache__ build dist node_modules .mypy_cache
    .pytest_cache .ruff_cache .eggs site-packages __pypackages__ .ipynb_checkpoints .direnv""".split()
)


class PathError(Exception):
    """A path that cannot be linted (missing, unreadable); one line for the user."""


@dataclass(frozen=True)
class Target:
    path: Path
    explicit: bool  # named on the command line


def _describe(error: OSError) -> str:
    if isinstance(error, FileNotFoundError):
        return "no such file or directory"
    if isinstance(error, PermissionError):
        return "permission denied"
    if isinstance(error, IsADirectoryError):
        return "is a directory"
    if isinstance(error, NotADirectoryError):
        return "not a directory"
    return error.strerror or str(error)


def _valid_pattern(line: str) -> bool:
    """git skips .gitignore lines it cannot read as patterns; so does gpulint."""
    try:
        pathspec.GitIgnoreSpec.from_lines([line])
    except (ValueError, re.error):  # e.g. a lone "!" or a reversed range "[z-a]"
        return False
    return True


class _GitIgnore:
    """Hierarchical .gitignore matching: each file governs the folder it sits in."""

    def __init__(self) -> None:
        self._specs: dict[Path, pathspec.PathSpec | None] = {}

    def _spec(self, directory: Path) -> pathspec.PathSpec | None:
        if directory not in self._specs:
            spec = None
            ignore_file = directory / ".gitignore"
            try:
                if ignore_file.is_file():
                    lines = ignore_file.read_text(encoding="utf-8", errors="replace").splitlines()
                    spec = pathspec.GitIgnoreSpec.from_lines(line for line in lines if _valid_pattern(line))
            except OSError:
                spec = None
            self._specs[directory] = spec
        return self._specs[directory]

    def ignored(self, path: Path, is_dir: bool) -> bool:
        path = path.resolve()
        repo = repository_root(path.parent)
        if repo is None:
            return False
        directory = path.parent
        chain = []
        while True:
            chain.append(directory)
            if directory == repo or directory.parent == directory:
                break
            directory = directory.parent
        for folder in chain:  # innermost first: the closest .gitignore decides
            spec = self._spec(folder)
            if spec is None:
                continue
            relative = path.relative_to(folder).as_posix() + ("/" if is_dir else "")
            result = spec.check_file(relative)
            if result.include is not None:
                return bool(result.include)
        return False


def repository_root(directory: Path) -> Path | None:
    """The nearest folder at or above `directory` that holds a `.git` (folder or file)."""
    for candidate in (directory, *directory.parents):
        if (candidate / ".git").exists():
            return candidate
    return None


def discover(
    paths: "list[str | os.PathLike[str]]",
    is_excluded: Callable[[Path], bool],
    respect_gitignore: Callable[[Path], bool],
    on_error: Callable[[str, str], None],
) -> Iterator[Target]:
    """Yield the files to lint, in a stable order; report bad paths (as named) and what is
    wrong with them through `on_error`."""
    gitignore = _GitIgnore()
    seen: set[Path] = set()

    def skip(path: Path, is_dir: bool) -> bool:
        if is_dir and path.name in SKIPPED_DIRECTORIES:
            return True
        if is_excluded(path):
            return True
        return respect_gitignore(path) and gitignore.ignored(path, is_dir)

    for raw in paths:
        # Stat the name as given: `Path("file.py/")` would drop the trailing separator
        # that makes the operating system answer "not a directory".
        name = os.fspath(raw)
        root = Path(name)
        try:
            info = os.stat(name)
        except OSError as error:
            on_error(name, _describe(error))
            continue
        if not stat.S_ISDIR(info.st_mode):
            if name.endswith(("/", os.sep)):
                on_error(name, "not a directory")
                continue
            key = root.resolve()
            if key not in seen:
                seen.add(key)
                yield Target(root, explicit=True)
            continue
        for directory, dirnames, filenames in os.walk(root, onerror=lambda e: on_error(e.filename or name, _describe(e))):
            base = Path(directory)
            dirnames[:] = sorted(d for d in dirnames if not skip(base / d, True))
            for filename in sorted(filenames):
                path = base / filename
                if not filename.endswith(SUFFIXES) or skip(path, False):
                    continue
                key = path.resolve()
                if key not in seen:
                    seen.add(key)
                    yield Target(path, explicit=False)


def read_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as error:
        raise PathError(_describe(error)) from None


def write_atomically(path: Path, data: bytes, expected: bytes) -> None:
    """Replace `path` with `data` unless its content is no longer `expected`."""
    try:
        current = path.read_bytes()
    except OSError as error:
        raise PathError(f"not written: {_describe(error)}") from None
    if current != expected:
        raise PathError("not written: the file changed on disk while it was being fixed")
    mode = stat.S_IMODE(path.stat().st_mode)
    target = path.resolve()  # write through symlinks, keeping the link itself
    handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".gpulint", dir=target.parent)
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, target)
    except OSError as error:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise PathError(f"not written: {_describe(error)}") from None
