"""The result cache: a file's findings, kept until its content or what governs it changes.

One entry per file (named by a hash of its resolved path and displayed name) holds the
findings, warnings and notebook line map of the last lint (with the text of the notebook
cells the findings point into, so showing them takes no parsing), and:

- a key: a hash of the rules selected for the file, every setting that changes its
  findings, and the code of gpulint itself (its version and, for a source checkout, its
  files' sizes and times); an entry with another key is a miss;
- the SHA-256 of the file's bytes: an entry made for other content is a miss;
- what each import of the file resolved to among its project's modules, with that
  module's state: its SHA-256, or too large or unreadable (`project.ImportedFile`). A
  file's findings depend on the modules it imports, so an entry is a miss when one of
  them changed, moved or went, or when an import that found no project module now finds
  one;
- for a module, a hash of the project files importing it, their contents and those of
  the project files they import (`callers.Callers.state`): how often its functions run and
  what they are given depend on them, so an entry is a miss when a file importing it came,
  changed or went;
- the file's `stat` when it was read (size, modification and status-change times in
  nanoseconds, inode, device). When the file's stat is still that one, the file is not even
  read: the stat shortcut. Unlike ruff's (modification time alone), it also compares the
  status-change time, which no program can set back (`touch`, `cp -p` or `rsync -t` restore
  a modification time, never that one), so content that changed within the same size and
  modification time is still seen. Its limits: a file written twice within one tick of the
  file system's clock with the same size could keep its stat, so a file that changed less
  than `RACY_NS` before it was looked at gets no stat recorded (its content is hashed next
  time, as git does with "racily clean" files); and a clock set back, or a file system that
  reports no status-change time (on Windows it is the creation time), weakens it as it
  weakens every tool that trusts file times. Anything else than the recorded stat, or no
  stat, falls back to hashing the content, which then records the stat for the next run.

An entry is overwritten when it misses, so the cache holds at most one entry per file and
displayed name. Entries are written atomically (a temporary file renamed over the old one):
concurrent runs never see half an entry. An entry that cannot be read or decoded, or holds
a value of another type than gpulint writes, is a miss. An entry keeps findings, never how
a report printed them: every report is rendered from the findings, so what an entry says
is shown the way a fresh lint's findings are (without terminal controls, on a terminal).

The cache folder is one gpulint made, and it says so: it holds gpulint's `CACHEDIR.TAG`
(backup tools skip the folder) and a `.gitignore` ignoring all of it, both in it from the
moment it appears (it is made under a temporary name beside it and renamed into place).
gpulint writes only into a folder that holds that tag and nothing else than what gpulint
writes. When the configured folder (`cache-dir`, `GPULINT_CACHE_DIR`, or the default)
already exists and is not such a folder (the project folder, a data folder, a folder made
empty ahead of time), the cache goes in a `.gpulint_cache` folder gpulint makes inside it,
and the configured folder gets nothing else; should that one exist and not be gpulint's
either, nothing is cached. An empty folder is not taken over: files put in it later would
be hidden from git by gpulint's `.gitignore`.

`gpulint clean` removes, from a folder holding gpulint's tag, only what gpulint writes
there: the entries (`<folder>/v<N>/<2 hex>/<64 hex>`, with their `.tmp-*` temporaries),
then the `.gitignore` and the tag when they are gpulint's own text, then the folders that
left empty. Any other file stays, and so does the folder holding it. So a project folder
that an earlier gpulint tagged (it wrote into any folder it was given) is no longer written
into, and `gpulint clean` takes gpulint's entries, tag and `.gitignore` out of it and
leaves the project's files.
"""

from __future__ import annotations

import json
import os
import re
import stat
import time
from functools import lru_cache
from pathlib import Path
from typing import Any, NamedTuple
from collections.abc import Callable, Iterable, Sequence

from .config import Config
from .diagnostic import Applicability, Diagnostic, Edit, Fix, Position
from .callers import CALLERS_SPEC, current_state
from .files import repository_root
from .project import still_current


def _sha256(data: bytes) -> Any:
    """A SHA-256 hash object (hashlib is imported on the first one: a run without the cache
    never needs it)."""
    import hashlib

    return hashlib.sha256(data)


ENV = "GPULINT_CACHE_DIR"
DIRNAME = ".gpulint_cache"
#: The shape of an entry; a new shape lives in a new subfolder.
FORMAT = "v4"
TAG_FILE = "CACHEDIR.TAG"
TAG = (
    "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# This file is a cache directory tag created by gpulint.\n"
    "# For information about cache directory tags see https://bford.info/cachedir/\n"
)
GITIGNORE = "# Created by gpulint.\n*\n"
#: What `clean` removes of a cache folder: entry folders of any format (`v1`, `v2`, ...),
#: their buckets, and in those the entries and the temporaries they are written through.
_FORMAT_NAME = re.compile(r"v[0-9]+")
_BUCKET_NAME = re.compile(r"[0-9a-f]{2}")
_ENTRY_NAME = re.compile(r"[0-9a-f]{64}|\.tmp-[A-Za-z0-9_]+")
#: Configuration fields that never change a file's findings (the selection is hashed as
#: the codes it selects for the file). Any other field is part of the check value.
_NEUTRAL = frozenset(
    {
        "root",
        "source",
        "select",
        "extend_select",
        "ignore",
        "per_file_ignores",
        "exclude",
        "respect_gitignore",
        "jobs",
        "cache_dir",
        "command_line_exclude",
        "command_line_root",
        "output_format",
        "fix_edits",  # an entry says whether its fixes were rendered (`Fix.rendered`)
    }
)


class Cell(NamedTuple):
    """A notebook code cell's number and text: what showing a finding in it takes."""

    number: int
    text: str


class LineMap:
    """The lines of a notebook file that hold given cell lines: what the GitHub and SARIF
    outputs ask `Notebook.file_line`, kept without the notebook's text; and, when known,
    the code cells the findings point into (`cells`), which is all the full output shows."""

    def __init__(self, lines: dict[tuple[int, int], int], cells: list[Cell] | None = None) -> None:
        self.lines = lines
        self.cells = cells

    @classmethod
    def of(cls, notebook: Any, diagnostics: Iterable[Diagnostic], with_cells: bool = False) -> LineMap:
        """The map for `diagnostics` in `notebook`; `with_cells`: with the cells they (and
        their fixes' edits) point into."""
        diagnostics = list(diagnostics)
        wanted = {
            (d.cell, line)
            for d in diagnostics
            if d.cell is not None
            for line in (d.start.line, d.end.line, d.noqa_line)
            if line is not None
        }
        cells = None
        if with_cells:
            numbers = {d.cell for d in diagnostics} | {e.cell for d in diagnostics if d.fix for e in d.fix.edits}
            cells = [Cell(c.number, c.text) for c in notebook.cells if c.number in numbers]
        return cls({key: notebook.file_line(*key) for key in wanted}, cells)

    def file_line(self, cell: int, line: int) -> int:
        return self.lines.get((cell, line), 1)


@lru_cache(maxsize=4)
def code_version(version: str) -> str:
    """gpulint's `version` plus, for a source checkout, the size and time of each of its
    files: editing a rule invalidates what it found."""
    digest = _sha256(version.encode())
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
    other = {name: _plain(getattr(config, name)) for name in Config.FIELDS if name not in _NEUTRAL}
    return json.dumps({"codes": sorted(config.codes_for(path)), **other}, sort_keys=True)


def directory_for(config: Config) -> Path:
    """Where the files `config` governs keep their cache: `GPULINT_CACHE_DIR`, else the
    configured `cache-dir`, else `.gpulint_cache` in the project root (the folder of the
    pyproject.toml; without one, the repository holding the current folder, or that folder).
    When that folder exists and is not gpulint's to use, a `.gpulint_cache` folder inside it."""
    chosen = _chosen(config)
    return chosen if _usable(chosen) else chosen / DIRNAME


def directories_for(config: Config) -> list[Path]:
    """The folders `gpulint clean` looks at for `config`: the configured (or default) one,
    which an earlier gpulint may have tagged, and the one `directory_for` gives."""
    return list(dict.fromkeys([_chosen(config), directory_for(config)]))


def _chosen(config: Config) -> Path:
    if os.environ.get(ENV):
        return Path(os.environ[ENV]).absolute()
    if config.cache_dir is not None:
        return config.cache_dir
    if config.source != "defaults" and config.root is not None:
        return config.root / DIRNAME
    cwd = Path.cwd()
    return (repository_root(cwd) or cwd) / DIRNAME


def owned(directory: Path) -> bool:
    """Whether gpulint tagged `directory` as a cache folder of its own (holds its `CACHEDIR.TAG`)."""
    return _holds(directory / TAG_FILE, TAG)


def _usable(directory: Path) -> bool:
    """Whether gpulint may keep its cache in `directory`: nothing is there yet, or it is
    gpulint's and holds nothing else than what gpulint writes (a project folder that an
    earlier gpulint tagged, its files around the tag, is not)."""
    if not os.path.lexists(directory):
        return True
    return owned(directory) and all(
        item.name in (TAG_FILE, ".gitignore") or item.name.startswith(".tmp-") or _FORMAT_NAME.fullmatch(item.name)
        for item in _listed(directory)
    )


def _holds(path: Path, text: str) -> bool:
    try:
        return path.read_bytes() == text.encode()
    except OSError:
        return False


#: A file whose modification or status-change time is this close to the moment it was
#: looked at may still change within the same tick of the file system's clock without its
#: times changing: its entry records no `stat`, so its content is hashed the next time.
RACY_NS = 2_000_000_000


def observe(path: Path) -> list[int] | None:
    """What the stat shortcut compares of the file at `path` (its size, modification and
    status-change times in nanoseconds, inode and device), or None when the file changed
    too recently for that to tell a later change (see `RACY_NS`) or cannot be looked at."""
    now = time.time_ns()
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return None
    if not stat.S_ISREG(info.st_mode) or max(info.st_mtime_ns, info.st_ctime_ns) >= now - RACY_NS:
        return None
    return [info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino, info.st_dev]


class Hit(NamedTuple):
    """A file's findings served from the cache (a NamedTuple: start-up)."""

    diagnostics: list[Diagnostic]
    warnings: list[str]
    lines: LineMap | None


class Cache:
    """Reads and writes entries; a folder that cannot be written just caches nothing."""

    def __init__(self, version: str) -> None:
        """`version`: gpulint's (`gpulint.__version__`)."""
        self.version = code_version(version)
        self._ready: set[Path] = set()
        # Per configuration (kept alive here, so its id stays its own): its cache folder
        # (None: a folder gpulint may not write into, so nothing is cached), and its key
        # when it is the same for every file of a kind (no per-file ignores).
        self._known: dict[int, tuple[Config, str | None, dict[bool, str] | None]] = {}
        #: Where each import of the files looked up resolved, by (import, folder): once per run.
        self._resolved: dict[tuple[str, Path], Path | None] = {}

    def __getstate__(self) -> dict[str, Any]:
        return {"version": self.version, "_ready": set(), "_known": {}, "_resolved": {}}  # a worker learns its own

    def _about(self, config: Config) -> tuple[Config, str | None, dict[bool, str] | None]:
        known = self._known.get(id(config))
        if known is None:
            shared = None
            if not config.per_file_ignores:
                shared = {kind: self._digest(settings(config, None), kind) for kind in (False, True)}
            directory = directory_for(config)
            known = self._known[id(config)] = (config, str(directory) if _usable(directory) else None, shared)
        return known

    def _entry(self, config: Config, path: Path, display: str) -> str:
        """The entry file of the file; OSError when the configuration's cache folder is
        one gpulint may not use."""
        directory = self._about(config)[1]
        if directory is None:
            raise NotADirectoryError("the cache folder is not gpulint's")
        name = _sha256(f"{os.path.abspath(path)}\0{display}".encode()).hexdigest()
        return os.path.join(directory, FORMAT, name[:2], name)

    def _digest(self, governing: str, notebook: bool) -> str:
        digest = _sha256(self.version.encode())
        digest.update(governing.encode())
        digest.update(b"\0notebook" if notebook else b"\0source")
        return digest.hexdigest()

    def _key(self, config: Config, path: Path) -> str:
        """What governs the file's findings, hashed: gpulint's code, the settings and
        selection for it, and whether it is read as a notebook."""
        notebook = path.suffix == ".ipynb"
        shared = self._about(config)[2]
        return shared[notebook] if shared is not None else self._digest(settings(config, path), notebook)

    def lookup(
        self, config: Config, path: Path, display: str, seen: list[int] | None, read: Callable[[], bytes]
    ) -> Hit | None:
        """The entry for the file, if it was made with what governs the file now and for its
        content. `seen`: what `observe` gave for the file before it was read; when that is
        what the entry recorded, the file is not read at all; otherwise `read()` gives its
        bytes, which are hashed (and `seen` recorded for the next run)."""
        try:
            found = self._read(config, path, display, self._key(config, path), seen, read)
            if found is None:
                return None
            target, entry = found
            if seen is not None and entry["stat"] != seen:
                entry["stat"] = seen
                try:
                    _write(target, _dump(entry))
                except OSError:
                    pass  # a cache that cannot be written still serves
            lines, cells = entry["lines"], entry["cells"]
            line_map = None
            if lines is not None:
                line_map = LineMap(
                    {(cell, line): file_line for cell, line, file_line in lines},
                    None if cells is None else [Cell(n, t) for n, t in cells],
                )
            return Hit(
                [_diagnostic(item) for item in entry["diagnostics"]], [str(w) for w in entry["warnings"]], line_map
            )
        except (OSError, ValueError, KeyError, TypeError, IndexError, AttributeError):
            return None  # missing, unreadable, truncated or of another shape: a miss

    def store(
        self,
        config: Config,
        path: Path,
        display: str,
        data: bytes,
        diagnostics: Sequence[Diagnostic],
        warnings: Sequence[str],
        lines: LineMap | None,
        seen: list[int] | None = None,
        imported: Sequence[Sequence[str]] = (),
    ) -> None:
        """Keep the findings for the file whose bytes are `data`; `seen`: what `observe`
        gave for it before `data` was read; `imported`: the project modules the check
        followed (`project.ImportedFile`: the import, the file, its state)."""
        entry = {
            "key": self._key(config, path),
            "content": _sha256(data).hexdigest(),
            "stat": seen,
            "diagnostics": [_encode(d) for d in diagnostics],
            "warnings": list(warnings),
            "lines": None
            if lines is None
            else [[cell, line, file_line] for (cell, line), file_line in sorted(lines.lines.items())],
            "cells": None if lines is None or lines.cells is None else [[c.number, c.text] for c in lines.cells],
            "imported": [list(file) for file in imported],
        }
        self._put(config, path, display, entry)

    def _read(
        self,
        config: Config,
        path: Path,
        display: str,
        key: str,
        seen: list[int] | None,
        read: Callable[[], bytes],
    ) -> tuple[str, dict[str, Any]] | None:
        """The entry file and its entry, when it was made under `key` for the file's content
        (its `seen` stat the same, or else its bytes); OSError, ValueError, KeyError or
        TypeError for an entry that is missing or of another shape."""
        target = self._entry(config, path, display)
        with open(target, "rb") as stream:
            entry = json.loads(stream.read())
        if entry["key"] != key:
            return None
        if (seen is None or entry["stat"] != seen) and entry["content"] != _sha256(read()).hexdigest():
            return None
        imported = entry.get("imported") or []
        modules = [source for source in imported if source[0] != CALLERS_SPEC]
        if modules and not still_current(path, modules, self._resolved):
            return None  # a project module it imports changed, moved or went
        if any(source[0] == CALLERS_SPEC and source[2] != current_state(path) for source in imported):
            return None  # a file importing it came, went or changed
        return target, entry

    def _put(self, config: Config, path: Path, display: str, entry: dict[str, Any]) -> None:
        try:
            target = self._entry(config, path, display)
            self._prepare(Path(target).parents[2])
            os.makedirs(os.path.dirname(target), exist_ok=True)
            _write(target, _dump(entry))
        except OSError:
            pass  # a read-only project, a full disk, a folder not gpulint's: the run goes on uncached

    def lookup_payload(
        self,
        kind: str,
        extra: str,
        config: Config,
        path: Path,
        display: str,
        seen: list[int] | None,
        read: Callable[[], bytes],
    ) -> Any:
        """What another command (`kind`: "readiness") kept for the file, as `store_payload`
        was given it, when it was made with what governs the file now, `extra` (that
        command's own data, hashed: its tables) and the file's content; None otherwise."""
        try:
            found = self._read(
                config, path, f"{display}\0{kind}", self._payload_key(kind, extra, config, path), seen, read
            )
            return None if found is None else found[1]["payload"]
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def store_payload(
        self,
        kind: str,
        extra: str,
        config: Config,
        path: Path,
        display: str,
        data: bytes,
        payload: Any,
        seen: list[int] | None = None,
        imported: Sequence[Sequence[str]] = (),
    ) -> None:
        """Keep another command's JSON `payload` for the file whose bytes are `data`
        (`imported` as `store` takes it)."""
        entry = {
            "key": self._payload_key(kind, extra, config, path),
            "content": _sha256(data).hexdigest(),
            "stat": seen,
            "payload": payload,
            "imported": [list(file) for file in imported],
        }
        self._put(config, path, f"{display}\0{kind}", entry)

    def _payload_key(self, kind: str, extra: str, config: Config, path: Path) -> str:
        digest = _sha256(self._key(config, path).encode())
        digest.update(f"\0{kind}\0{extra}".encode())
        return digest.hexdigest()

    def _prepare(self, directory: Path) -> None:
        """Make sure the cache folder is gpulint's, making it if it is not there yet (once
        per run and folder); OSError when it cannot be made or is not gpulint's."""
        if directory in self._ready:
            return
        if not owned(directory):
            _create(directory)
        self._ready.add(directory)


def _create(directory: Path) -> None:
    """Make the cache folder with its tag and .gitignore already in it: made under a
    temporary name beside it and renamed into place, so no run ever sees it untagged (and
    takes it for a folder gpulint did not make). OSError when it cannot be made, or when
    `directory` exists and is not gpulint's."""
    directory.parent.mkdir(parents=True, exist_ok=True)
    import secrets  # only when a cache is written

    staging = directory.with_name(f".{directory.name.lstrip('.')}.tmp-{os.getpid()}-{secrets.token_hex(4)}")
    staging.mkdir()
    try:
        (staging / TAG_FILE).write_bytes(TAG.encode())
        (staging / ".gitignore").write_bytes(GITIGNORE.encode())
        if os.path.lexists(directory):  # a rename would replace an empty folder
            raise FileExistsError(f"exists: {directory}")
        os.rename(staging, directory)
    except OSError:
        for name in (TAG_FILE, ".gitignore"):
            _unlink(staging / name)
        _rmdir(staging)
        if not owned(directory):  # another run made it first: the same folder, as it should be
            raise


def _dump(entry: dict[str, Any]) -> bytes:
    return json.dumps(entry, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def _write(target: Path | str, data: bytes) -> None:
    import tempfile  # only when a cache entry is written

    handle, temporary = tempfile.mkstemp(prefix=".tmp-", dir=os.path.dirname(target))
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
    """Remove what gpulint wrote in those of `directories` that are gpulint's (see the
    module's docstring); the folders cleaned. A folder left holding other files stays."""
    cleaned, seen = [], set()
    for directory in directories:
        if os.path.realpath(directory) not in seen and owned(directory):
            seen.add(os.path.realpath(directory))
            _remove_own(directory)
            cleaned.append(directory)
    return cleaned


def _remove_own(directory: Path) -> None:
    """The entries first, the tag last (but for the folders): a clean that stops half-way
    leaves a folder that the next one still knows for gpulint's."""
    for layout in _subfolders(directory, _FORMAT_NAME):
        for bucket in _subfolders(layout, _BUCKET_NAME):
            for item in _listed(bucket):
                if _ENTRY_NAME.fullmatch(item.name) and item.is_file(follow_symlinks=False):
                    _unlink(Path(item.path))
            _rmdir(bucket)
        _rmdir(layout)
    for name, content in ((".gitignore", GITIGNORE), (TAG_FILE, TAG)):
        if _holds(directory / name, content):
            _unlink(directory / name)
    _rmdir(directory)


def _listed(directory: Path) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(directory) as items:
            return list(items)
    except OSError:
        return []


def _subfolders(directory: Path, names: re.Pattern[str]) -> list[Path]:
    """The folders (not links to folders) in `directory` whose names `names` matches whole."""
    return [
        Path(item.path)
        for item in _listed(directory)
        if names.fullmatch(item.name) and item.is_dir(follow_symlinks=False)
    ]


def _unlink(path: Path) -> None:
    try:
        path.unlink()
    except OSError:
        pass


def _rmdir(path: Path) -> None:
    """Remove the folder if it is empty (one that is not stays, with what it holds)."""
    try:
        path.rmdir()
    except OSError:
        pass


# -- entries as JSON: a diagnostic is a list, its fix a list, each edit a list ---------------


def _encode(d: Diagnostic) -> list[Any]:
    fix = None
    if d.fix is not None:
        fix = [
            d.fix.applicability.value,
            d.fix.message,
            sorted(d.fix.introduces),
            [[e.start.line, e.start.col, e.end.line, e.end.col, e.content, e.cell] for e in d.fix.edits],
            d.fix.rendered,
            d.fix.declined,
        ]
    return [
        d.code,
        d.name,
        d.message,
        d.start.line,
        d.start.col,
        d.end.line,
        d.end.col,
        fix,
        d.url,
        d.noqa_line,
        d.cell,
    ]


def encode_diagnostic(d: Diagnostic) -> list[Any]:
    """A finding as the cache keeps it (JSON)."""
    return _encode(d)


def decode_diagnostic(item: list[Any]) -> Diagnostic:
    """A finding the cache kept; TypeError or ValueError for anything else."""
    return _diagnostic(item)


def _typed(kind: type, *values: Any, optional: bool = False) -> None:
    """TypeError unless each of `values` is a `kind` (or None, when `optional`): an entry
    holding anything else than gpulint writes is a miss, never shown."""
    for value in values:
        if not (isinstance(value, kind) or (optional and value is None)):
            raise TypeError(f"{type(value).__name__} where a {kind.__name__} was kept")


def _diagnostic(item: list[Any]) -> Diagnostic:
    code, name, message, line, col, end_line, end_col, fix, url, noqa_line, cell = item
    _typed(str, code, name, message)
    _typed(str, url, optional=True)
    _typed(int, line, col, end_line, end_col)
    _typed(int, noqa_line, cell, optional=True)
    return Diagnostic(
        code,
        name,
        message,
        Position(line, col),
        Position(end_line, end_col),
        None if fix is None else _fix(fix),
        url,
        noqa_line,
        cell=cell,
    )


def _fix(item: list[Any]) -> Fix:
    applicability, message, introduces, edits, rendered, declined = item
    _typed(str, message, optional=True)
    _typed(bool, rendered)
    _typed(str, declined, optional=True)
    _typed(str, *introduces)
    for a, b, c, d, content, cell in edits:
        _typed(int, a, b, c, d)
        _typed(str, content)
        _typed(int, cell, optional=True)
    return Fix(
        Applicability(applicability),
        message,
        tuple(Edit(Position(a, b), Position(c, d), content, cell) for a, b, c, d, content, cell in edits),
        frozenset(introduces),
        rendered,
        declined,
    )


def found_below(folder: Path) -> list[Path]:
    """The `.gpulint_cache` folders under `folder` (not searching folders no one lints)."""
    from .files import SKIPPED_DIRECTORIES

    found = []
    for directory, dirnames, _ in os.walk(folder):
        if DIRNAME in dirnames:
            found.append(Path(directory) / DIRNAME)
        dirnames[:] = [d for d in dirnames if d != DIRNAME and d not in SKIPPED_DIRECTORIES]
    return found
