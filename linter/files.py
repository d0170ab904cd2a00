"""Finding the files to lint, reading them, and writing fixes back safely.

Directories are walked honouring `.gitignore` files (from the repository root down),
the configuration's `exclude`, and a fixed list of folders no one wants linted. Files
named explicitly are always linted. Writes are atomic (temporary file + rename), keep the
file's mode, and are refused when the file changed on disk since it was read.
"""

from __future__ import annotations

import errno
import os
import re
import stat
import time
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple
from collections.abc import Callable, Iterator, Sequence

if TYPE_CHECKING:  # imported where patterns are first compiled: a run over named files may need none
    import pathspec

try:
    import fcntl
except ImportError:  # pragma: no cover - not on Windows
    fcntl = None  # type: ignore[assignment]

SUFFIXES = (".py", ".pyi", ".ipynb")
NOTEBOOK_SUFFIX = ".ipynb"


def is_notebook(path: str | os.PathLike[str] | None) -> bool:
    """Whether `path` names a Jupyter notebook (by its suffix, as everywhere in gpulint)."""
    return path is not None and str(path).endswith(NOTEBOOK_SUFFIX)


SKIPPED_DIRECTORIES = frozenset(
    [
        ".git",
        ".hg",
        ".svn",
        ".bzr",
        ".venv",
        "venv",
        ".tox",
        ".nox",
        "__pycache__",
        "build",
        "dist",
        "node_modules",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".eggs",
        "site-packages",
        "__pypackages__",
        ".ipynb_checkpoints",
        ".direnv",
    ]
)


class PathError(Exception):
    """A path that cannot be linted (missing, unreadable); one line for the user."""


class Target(NamedTuple):
    """A file to check (a NamedTuple: start-up)."""

    path: Path
    explicit: bool  # named on the command line
    #: For a symbolic link found in a folder whose file lies outside every path given: the
    #: given path it was found under. Such a file is linted, never written.
    outside: str | None = None


class TooLarge(PathError):
    """A file larger than gpulint reads (`read_bytes`'s `limit`)."""


def describe_error(error: OSError) -> str:
    """An operating-system error in a few words, for an `error:` line."""
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
    import pathspec

    try:
        pathspec.GitIgnoreSpec.from_lines([line])
    except (ValueError, re.error):  # e.g. a lone "!" or a reversed range "[z-a]"
        return False
    return True


class _GitIgnore:
    """Hierarchical .gitignore matching: each file governs the folder it sits in. What
    governs a folder (its repository, the .gitignore files from it up to the repository's
    root) is worked out once per folder."""

    def __init__(self) -> None:
        self._specs: dict[Path, pathspec.PathSpec | None] = {}
        self._repositories: dict[Path, Path | None] = {}
        self._chains: dict[Path, list[tuple[Path, pathspec.PathSpec]]] = {}

    def _spec(self, directory: Path) -> pathspec.PathSpec | None:
        if directory not in self._specs:
            spec = None
            ignore_file = directory / ".gitignore"
            try:
                if ignore_file.is_file():
                    lines = ignore_file.read_text(encoding="utf-8", errors="replace").splitlines()
                    import pathspec

                    spec = pathspec.GitIgnoreSpec.from_lines(line for line in lines if _valid_pattern(line))
            except OSError:
                spec = None
            self._specs[directory] = spec
        return self._specs[directory]

    def _repository(self, directory: Path) -> Path | None:
        """`repository_root(directory)`, remembered for it and the folders above it."""
        visited = []
        found: Path | None = None
        for candidate in (directory, *directory.parents):
            if candidate in self._repositories:
                found = self._repositories[candidate]
                break
            visited.append(candidate)
            try:
                if (candidate / ".git").exists():
                    found = candidate
                    break
            except OSError:
                continue
        for folder in visited:
            self._repositories[folder] = found
        return found

    def _chain(self, directory: Path) -> list[tuple[Path, pathspec.PathSpec]]:
        """The .gitignore files governing entries of `directory`, innermost first."""
        chain = self._chains.get(directory)
        if chain is None:
            chain = []
            repo = self._repository(directory)
            if repo is not None:
                for folder in (directory, *directory.parents):
                    spec = self._spec(folder)
                    if spec is not None:
                        chain.append((folder, spec))
                    if folder == repo:
                        break
            self._chains[directory] = chain
        return chain

    def ignored(self, path: Path, is_dir: bool, resolved: Path | None = None) -> bool:
        """Whether git ignores `path`; `resolved`: `_resolve(path)`, when already known."""
        path = _resolve(path) if resolved is None else resolved
        for folder, spec in self._chain(path.parent):  # innermost first: the closest .gitignore decides
            relative = path.relative_to(folder).as_posix() + ("/" if is_dir else "")
            result = spec.check_file(relative)
            if result.include is not None:
                return bool(result.include)
        return False


def existing_file(filename: str) -> Path | None:
    """The file `filename` names, when there is one (not `<stdin>`, not a buffer's name)."""
    try:
        path = Path(filename)
        return path if path.is_file() else None
    except (OSError, ValueError):
        return None


def repository_root(directory: Path) -> Path | None:
    """The nearest folder at or above `directory` that holds a `.git` (folder or file)."""
    for candidate in (directory, *directory.parents):
        try:
            if (candidate / ".git").exists():
                return candidate
        except OSError:  # a folder that cannot be searched holds no visible repository
            continue
    return None


def _resolve(path: Path) -> Path:
    """The absolute path with symbolic links resolved, as far as they resolve (a link loop
    or a folder that cannot be searched stops the resolution; it never raises)."""
    try:
        return path.resolve()
    except (OSError, RuntimeError):  # RuntimeError: a symlink loop, before Python 3.13
        return path.absolute()


def resolve_folder(directory: Path, cache: dict[Path, Path]) -> Path:
    """`_resolve(directory)`, remembered in `cache`: a folder that is no symbolic link is its
    resolved parent plus its name, so resolving the folders of a tree costs one `lstat` per
    folder, not one per component of each folder's path."""
    below: list[tuple[Path, str]] = []  # the folders passed on the way up, innermost first
    current = directory
    found = cache.get(current)
    while found is None:  # a loop, not recursion: a path may have thousands of components
        absolute = Path(os.path.abspath(current))
        if absolute.parent == absolute or absolute.name in ("", ".", "..") or os.path.islink(absolute):
            found = _resolve(absolute)
            cache[current] = found
            break
        below.append((current, absolute.name))
        current = absolute.parent
        found = cache.get(current)
    for folder, name in reversed(below):
        found = found / name
        cache[folder] = found
    return found


class _Resolver:
    """`_resolve` for many paths: each folder is resolved once; a file that is not a symbolic
    link is its resolved folder plus its name."""

    def __init__(self) -> None:
        self._folders: dict[Path, Path] = {}

    def folder(self, directory: Path) -> Path:
        return resolve_folder(directory, self._folders)

    def know(self, directory: Path, resolved: Path) -> None:
        """Record that `directory` (no symbolic link) resolves to `resolved`."""
        self._folders[directory] = resolved

    def file(self, path: Path, is_link: bool) -> Path:
        if is_link or path.name in ("", ".", ".."):
            return _resolve(path)
        return self.folder(path.parent) / path.name


class GivenPaths:
    """The paths given on the command line, as named and resolved: where a run may write.
    A file is within them when its real path is one of theirs or lies under one of theirs;
    a symbolic link found in a folder may lead out of them, to a file that is only linted."""

    def __init__(self, paths: Sequence[str | os.PathLike[str]]) -> None:
        self.named = [os.fspath(path) for path in paths]

    @cached_property
    def _real(self) -> list[Path]:
        """Resolved on first use: a run that meets no symbolic link never resolves them."""
        return [_resolve(Path(name)) for name in self.named]

    def escape(self, path: Path, resolved: Path | None = None) -> str | None:
        """The given path that `path` was found under, when its real path (`resolved`, if
        known) lies outside every given path; else None."""
        resolved = _resolve(path) if resolved is None else resolved
        if not self.named or any(resolved.is_relative_to(real) for real in self._real):
            return None
        absolute = Path(os.path.abspath(path))
        return next((name for name in self.named if absolute.is_relative_to(os.path.abspath(name))), self.named[0])


def discover(
    paths: list[str | os.PathLike[str]],
    is_excluded: Callable[[Path, bool, Path], bool],
    respect_gitignore: Callable[[Path, bool], bool],
    on_error: Callable[[str, str], None],
    included: Callable[[Path], bool] | None = None,
) -> Iterator[Target]:
    """Yield the files to lint, in a stable order; report bad paths (as named) and what is
    wrong with them through `on_error`. Only regular files are linted: one named on the
    command line that is not (a named pipe, a device) is an error; one found in a folder is
    skipped, as git skips them, since it is never source code.

    `is_excluded(path, is_dir, resolved)` and `respect_gitignore(path, is_dir)` are asked
    about each file and folder found in a folder (`resolved`: the path with symbolic links
    resolved); an excluded or ignored folder is not entered. Folders are walked as
    `os.walk` walks them: symbolic links to folders are not followed; a symbolic link to a
    file outside every given path is yielded with `outside` set (see `GivenPaths`).

    Files are Python sources and notebooks (`SUFFIXES`), and those `included(path)` adds
    (the `extend-include` setting): a file of another kind is skipped, named on the command
    line or found in a folder, as ruff skips it (a README, a pyproject.toml); a file named
    on the command line without any suffix is taken for a script."""
    gitignore = _GitIgnore()
    resolver = _Resolver()
    given = GivenPaths(paths)
    seen: set[Path] = set()

    def skip(path: Path, is_dir: bool, resolved: Path) -> bool:
        if is_dir and path.name in SKIPPED_DIRECTORIES:
            return True
        if is_excluded(path, is_dir, resolved):
            return True
        return respect_gitignore(path, is_dir) and gitignore.ignored(path, is_dir, resolved)

    for raw in paths:
        # Stat the name as given: `Path("file.py/")` would drop the trailing separator
        # that makes the operating system answer "not a directory".
        name = os.fspath(raw)
        root = Path(name)
        try:
            info = os.stat(name)
        except OSError as error:
            on_error(name, describe_error(error))
            continue
        if not stat.S_ISDIR(info.st_mode):
            if name.endswith(("/", os.sep)):
                on_error(name, "not a directory")
                continue
            if not stat.S_ISREG(info.st_mode):  # a named pipe would block the run forever
                on_error(name, _not_regular(info.st_mode))
                continue
            if root.suffix and not name.endswith(SUFFIXES) and not (included is not None and included(root)):
                continue
            key = resolver.file(root, os.path.islink(name))
            if key not in seen:
                seen.add(key)
                yield Target(root, explicit=True)
            continue

        def walk_error(error: OSError, name: str = name) -> None:  # bound to this path, not the loop's last
            on_error(error.filename or name, describe_error(error))

        for path, is_link in _walk(root, resolver, skip, walk_error):
            if not path.name.endswith(SUFFIXES) and not (included is not None and included(path)):
                continue
            resolved = resolver.file(path, is_link)
            if skip(path, False, resolved):
                continue
            if is_link and _is_regular(path) is False:
                continue  # a named pipe, socket or device found in a folder is never source
            if resolved not in seen:
                seen.add(resolved)
                yield Target(path, explicit=False, outside=given.escape(path, resolved) if is_link else None)


def _walk(
    root: Path, resolver: _Resolver, skip: Callable[[Path, bool, Path], bool], on_error: Callable[[OSError], None]
) -> Iterator[tuple[Path, bool]]:
    """The files under `root` (and whether each is a symbolic link), folder by folder in
    sorted order, each folder's files before its subfolders, as `os.walk` lists them (a
    symbolic link to a folder is not entered); folders `skip` names are left out whole.
    Files that are neither regular files nor symbolic links (pipes, sockets, devices) are
    left out here, without a system call per file where the folder listing tells."""
    stack = [root]
    while stack:
        directory = stack.pop()
        try:
            with os.scandir(directory) as listing:
                entries = list(listing)
        except OSError as error:
            on_error(error)
            continue
        folders: list[os.DirEntry[str]] = []
        files: list[os.DirEntry[str]] = []
        for entry in entries:
            try:
                is_dir = entry.is_dir()
            except OSError:
                is_dir = False
            (folders if is_dir else files).append(entry)
        real = resolver.folder(directory)
        for entry in sorted(files, key=lambda e: e.name):
            is_link = _is_link(entry)
            if not is_link and not _is_file(entry):
                continue
            yield directory / entry.name, is_link
        children = []
        for entry in sorted(folders, key=lambda e: e.name):
            path = directory / entry.name
            if _is_link(entry) or skip(path, True, real / entry.name):
                continue
            resolver.know(path, real / entry.name)
            children.append(path)
        stack.extend(reversed(children))


def _is_link(entry: os.DirEntry) -> bool:
    try:
        return entry.is_symlink()
    except OSError:
        return False


def _is_file(entry: os.DirEntry) -> bool:
    """Whether a folder entry that is no symbolic link is a regular file (one whose type
    cannot be told is kept: reading it reports what is wrong)."""
    try:
        return entry.is_file(follow_symlinks=False)
    except OSError:
        return True


#: Read without ever blocking: a named pipe opened like this returns at once instead of
#: waiting for a writer (only regular files are read, but a name can change type between
#: the check and the open).
_READ_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
_CHANGED = "the file changed on disk while it was being fixed"
#: How long a write that lost a race with another program keeps trying to put its content back.
_RESTORE_TIMEOUT = 10.0
_NOT_RESTORED = (
    "the file changed on disk while it was being fixed, and the program writing to it did not"
    " pause for {seconds:g} seconds: some of what it wrote may be missing"
)
#: How long to wait for programs still writing to a file that a rename took away.
_WRITERS_TIMEOUT = 2.0


class _Replaced(PathError):
    """The name now refers to another file than the one read (another program saved it)."""


class _Changed(PathError):
    """The file's content is no longer what was read."""


def _not_regular(mode: int) -> str:
    """Why a file that is not a regular file is not read, e.g. 'not a regular file (a named pipe)'."""
    if stat.S_ISDIR(mode):
        return "is a directory"
    for is_kind, kind in (
        (stat.S_ISFIFO, "a named pipe"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
    ):
        if is_kind(mode):
            return f"not a regular file ({kind})"
    return "not a regular file"


def _is_regular(path: Path) -> bool | None:
    """Whether `path` (symbolic links followed) is a regular file; None when it cannot be told."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return None


def _open_regular(path: str | os.PathLike[str]) -> int:
    """A read-only descriptor on a regular file. The type is checked before opening (opening
    a device can have effects of its own) and again on the descriptor."""
    mode = os.stat(path).st_mode
    if not stat.S_ISREG(mode):
        raise PathError(_not_regular(mode))
    handle = os.open(path, _READ_FLAGS)
    try:
        mode = os.fstat(handle).st_mode
        if not stat.S_ISREG(mode):
            raise PathError(_not_regular(mode))
    except BaseException:
        os.close(handle)
        raise
    return handle


def _read_all(handle: int) -> bytes:
    """Everything in the file behind `handle`, from its first byte."""
    os.lseek(handle, 0, os.SEEK_SET)
    chunks = []
    while chunk := os.read(handle, 1 << 20):
        chunks.append(chunk)
    return b"".join(chunks)


def read_bytes(path: Path, limit: int | None = None) -> bytes:
    """The content of a regular file; anything else (a named pipe, a device) is refused
    without being read, so a run never waits on one. A file over `limit` bytes is refused
    (`TooLarge`) before any of it is read."""
    try:
        handle = _open_regular(path)
        try:
            if limit is not None and os.fstat(handle).st_size > limit:
                raise TooLarge(f"larger than {limit} bytes")
            return _read_all(handle)
        finally:
            os.close(handle)
    except OSError as error:
        raise PathError(describe_error(error)) from None


def write_atomically(path: Path, data: bytes, expected: bytes) -> None:
    """Replace `path` with `data` unless its content is no longer `expected`.

    The new content goes to a temporary file next to it, which is renamed over it: a reader
    sees the old file or the new one, never half of one. The file keeps its mode (and, where
    permitted, its owner); a symbolic link is written through and kept. A read-only file is
    refused. Another program may write to the file at any time, so the content is compared
    again right before the rename, and once more afterwards through a descriptor on the old
    file: a write that landed on it in between is not lost, its content is put back.
    Every failure is a `PathError` starting with "not written:"."""
    try:
        _replace(path, data, expected)
    except PathError as error:
        raise PathError(f"not written: {error}") from None
    except OSError as error:
        raise PathError(f"not written: {describe_error(error)}") from None


def _replace(path: Path, data: bytes, expected: bytes) -> None:
    try:
        target = path.resolve(strict=True)  # write through symlinks, keeping the link itself
    except RuntimeError:  # a symlink loop, on Pythons that do not raise OSError for it
        raise PathError("too many levels of symbolic links") from None
    original = _open_regular(target)
    held: list[tuple[int, bytes]] = []  # our own files that were at the path, and what we wrote
    try:
        info = os.fstat(original)
        if not info.st_mode & 0o222 or not os.access(target, os.W_OK):
            raise PathError("file is read-only")
        if _read_all(original) != expected:
            raise PathError(_CHANGED)
        held.append(_swap(target, data, original, expected))
        _wait_for_writers(original)
        if _read_all(original) != expected:
            _put_back(target, original, held)
            raise PathError(_CHANGED)
    finally:
        for handle in [original, *(handle for handle, _ in held)]:
            os.close(handle)


def _swap(target: Path, data: bytes, current: int, current_data: bytes, additions: bool = False) -> tuple[int, bytes]:
    """Rename a new file holding `data` over `target`, provided the file there is still the
    one open as `current` and still holds `current_data` (or, with `additions`, that plus
    lines added at its end, which the new file then gets too). A read-only descriptor on
    the new file, and what was written into it."""
    import tempfile  # only when a file is written

    info = os.fstat(current)
    try:
        handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".gpulint", dir=target.parent)
    except OSError as error:
        raise PathError(f"cannot create a temporary file next to it: {describe_error(error)}") from None
    fresh = None
    try:
        _write_all(handle, data)
        if hasattr(os, "fchown") and (info.st_uid, info.st_gid) != (os.geteuid(), os.getegid()):
            try:
                os.fchown(handle, info.st_uid, info.st_gid)
            except OSError:
                pass  # not permitted: the file becomes ours, as with any editor's save
        os.chmod(temporary, stat.S_IMODE(info.st_mode))
        os.fsync(handle)
        fresh = _open_regular(temporary)
        # The last look before the rename: still the same file, with the same content.
        now = os.stat(target)
        if (now.st_dev, now.st_ino) != (info.st_dev, info.st_ino):
            raise _Replaced(_CHANGED)
        content = _read_all(current)
        if content != current_data:
            if not (additions and content.startswith(current_data)):
                raise _Changed(_CHANGED)
            _write_all(handle, content[len(current_data) :])
            data += content[len(current_data) :]
        os.replace(temporary, target)
    except BaseException:
        if fresh is not None:
            os.close(fresh)
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise
    finally:
        os.close(handle)
    return fresh, data


def _write_all(handle: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(handle, view) :]


def _put_back(target: Path, original: int, held: list[tuple[int, bytes]]) -> None:
    """Another program wrote to the original file after the last look and before the rename
    (so into the file that the rename took away), and maybe also into the new file since.
    Write back the original's content with whatever was added to the new files, until no
    file taken away by a rename has changed since. A program that keeps writing can win
    every round; after `_RESTORE_TIMEOUT` seconds of that the write is reported as unsafe
    rather than given up in silence."""
    deadline = time.monotonic() + _RESTORE_TIMEOUT
    while True:
        if time.monotonic() > deadline:
            raise PathError(_NOT_RESTORED.format(seconds=_RESTORE_TIMEOUT))
        for handle, _ in held[:-1]:
            _wait_for_writers(handle)
        content = _read_all(original)
        for handle, written in held:
            # The file at the path (the last one) is read once: what it holds now is both
            # what is carried over from it and what the next swap checks it still holds.
            now = _read_all(handle)
            if not now.startswith(written):
                return  # rewritten by someone else since: that version stands
            content += now[len(written) :]
        current, _ = held[-1]  # the file at the path now, holding `now`
        if now == content:
            return
        try:
            held.append(_swap(target, content, current, now, additions=True))
        except _Changed:
            continue  # written to again just now: gather once more
        except _Replaced:
            return  # saved by someone else just now: that version stands


def _wait_for_writers(handle: int) -> None:
    """Wait until no program has the file behind `handle` open for writing, when the system
    can tell: a program that opened the file just before a rename took it away may still
    write to it, and only then does comparing its content mean anything. Linux tells through
    leases: a read lease is granted only on a file nobody has open for writing (it is let go
    at once; the file has no name any more, so no one can open it and break the lease)."""
    if fcntl is None or not hasattr(fcntl, "F_SETLEASE"):
        return
    deadline = time.monotonic() + _WRITERS_TIMEOUT
    while True:
        try:
            fcntl.fcntl(handle, fcntl.F_SETLEASE, fcntl.F_RDLCK)
        except OSError as error:
            if error.errno in (errno.EAGAIN, errno.EBUSY) and time.monotonic() < deadline:
                time.sleep(0.001)
                continue
            return  # leases unsupported here, not permitted, or a writer that stays: compare as is
        fcntl.fcntl(handle, fcntl.F_SETLEASE, fcntl.F_UNLCK)
        return
