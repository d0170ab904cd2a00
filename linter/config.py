"""`[tool.gpulint]` in the nearest `pyproject.toml`, and how CLI flags override it.

Selectors are `ALL`, a code prefix that matches at least one rule (`GPU`, `GPU1`, `GPU102`)
or a rule name (`iterrows-loop`). Enabled rules are (select + extend-select) - (ignore +
extend-ignore); a file matched by a `per-file-ignores` pattern also loses the codes listed
for it. Each rule's tier (`gpulint.rule_api.Tier`) limits what selects it, as ruff's rule
stability does: with no `select`, the default tier runs; preview rules run only in preview
mode (`preview = true`, `--preview`), where the default selection and every selector that
matches them pick them; an opt-in rule is picked only by its exact code or name, or by
`ALL` (never by a prefix, nor by default). `ignore` matches every rule of any tier.

Patterns are gitignore-style globs relative to the directory of the `pyproject.toml`;
those given on the command line (`--exclude`, `--extend-exclude`) are relative to the
current directory, as ruff reads them.
"""

from __future__ import annotations

import os
import re
import sys
import warnings
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple
from collections.abc import Iterable

if TYPE_CHECKING:  # imported where patterns are first compiled: a run over named files may need none
    import pathspec

from .files import PathError, read_bytes, resolve_folder
from .diagnostic import SYNTAX_ERROR_CODE
from .evidence import LIBRARY_TRIGGERS
from .slots_record import SlotsRecord
from .registry import Rule, RuleEntry, Tier, entries, load

KEYS = (
    "select",
    "extend-select",
    "ignore",
    "extend-ignore",
    "per-file-ignores",
    "exclude",
    "extend-exclude",
    "unsafe-fixes",
    "respect-gitignore",
    "jobs",
    "cache-dir",
    "output-format",
    "preview",
    "target-version",
    "extend-include",
)
#: The values of `target-version`: the oldest Python the code must run on.
TARGET_VERSIONS = {f"py3{minor}": (3, minor) for minor in range(8, 15)}

#: The values of `output-format` (and `--output-format`): `full` (the default, as ruff's),
#: `concise` (one line a finding), `text` (the former name of `concise`, still accepted),
#: and the machine-readable ones. `linter.output` has a renderer for each.
OUTPUT_FORMATS = ("full", "concise", "text", "json", "github", "sarif")


class ConfigError(Exception):
    """A configuration problem the user must fix; reported in one line, exit code 2."""


class PreviewSelectionWarning(UserWarning):
    """A selection that picks only preview rules, outside preview mode: it has no effect."""


def expand(selectors: Iterable[str], where: str, selecting: bool = True) -> frozenset[str]:
    """Rule codes matched by selectors; an unknown selector is an error, never ignored.

    `selecting` (for `select` and `extend-select`): a prefix leaves opt-in rules out.
    Preview rules are matched like any other; `Config.codes_for` drops them outside preview
    mode. For `ignore` (`selecting=False`) a prefix matches every rule it names."""
    codes: set[str] = set()
    for raw in selectors:
        matched = _matched(raw, where, selecting)
        if not matched and not _matched(raw, where, False):  # a prefix of opt-in rules is known
            raise ConfigError(f"{where}: unknown rule selector {raw!r} (see `gpulint rule --all`)")
        codes.update(rule.code for rule in matched)
    return frozenset(codes)


def _matched(raw: object, where: str, selecting: bool) -> list[RuleEntry]:
    """The rules one selector matches."""
    if not isinstance(raw, str):
        raise ConfigError(f"{where}: expected rule codes as strings, got {raw!r}")
    selector = raw.strip()
    if selector.upper() == "ALL":
        return list(entries())
    exact = [rule for rule in entries() if rule.code == selector.upper() or rule.name == selector.lower()]
    if exact:
        return exact
    prefix = [rule for rule in entries() if rule.code.startswith(selector.upper()) and selector[:3].upper() == "GPU"]
    return [rule for rule in prefix if not selecting or rule.tier is not Tier.OPT_IN] if prefix else []


def preview_only(selectors: Iterable[str]) -> tuple[str, ...]:
    """The selectors that select preview rules and nothing else (a preview rule's code, or a
    prefix of preview rules only): outside preview mode they select nothing, which is
    warned about, as ruff does."""
    return tuple(
        selector.strip()
        for selector in selectors
        if (matched := _matched(selector, "", True)) and all(rule.tier is Tier.PREVIEW for rule in matched)
    )


def tier_codes(*tiers: Tier) -> frozenset[str]:
    """The codes of the rules in `tiers`."""
    return frozenset(rule.code for rule in entries() if rule.tier in tiers)


def default_selection() -> frozenset[str]:
    """What runs when nothing is selected: the default tier, and in preview mode the
    preview tier too (`codes_for` drops the preview rules outside it)."""
    return tier_codes(Tier.DEFAULT, Tier.PREVIEW)


def _worth_running(codes: frozenset[str], text: str) -> frozenset[str]:
    """The rules of `codes` that can find something in `text` (see `Config.rules_for`). Each
    word is looked for once: a notebook's text runs to megabytes."""
    selected = [rule for rule in entries() if rule.code in codes]
    words = {*LIBRARY_TRIGGERS, *(word for rule in selected for word in (*rule.triggers, *rule.libraries))}
    data = text.encode("utf-8", "ignore")
    named = {word for word in words if word in data}
    if not named:  # parsed, never walked (`engine.mentions_libraries`)
        return codes & {SYNTAX_ERROR_CODE}
    return frozenset(rule.code for rule in selected if not rule.libraries or named.intersection(rule.libraries))


def _spec(patterns: Iterable[str]) -> pathspec.PathSpec:
    import pathspec

    return pathspec.GitIgnoreSpec.from_lines(patterns)


class Config(SlotsRecord):
    """Settings for the files under one project root.

    A slots record rather than a dataclass (start-up: every check makes one) or a NamedTuple
    (`select`'s default is computed when a Config is made). `FIELDS` lists the settings in
    order; `_replace` makes a changed copy."""

    FIELDS = (
        "root",
        "source",
        "select",
        "extend_select",
        "ignore",
        "per_file_ignores",
        "exclude",
        "extend_include",
        "unsafe_fixes",
        "respect_gitignore",
        "target_version",
        "jobs",
        "cache_dir",
        "command_line_exclude",
        "command_line_root",
        "output_format",
        "preview",
        "preview_selectors",
        "fix_edits",
    )
    __slots__ = FIELDS
    COMPARED = SHOWN = FIELDS

    def __init__(
        self,
        root: Path | None = None,
        source: str = "defaults",
        select: frozenset[str] | None = None,
        extend_select: frozenset[str] = frozenset(),
        ignore: frozenset[str] = frozenset(),
        per_file_ignores: tuple[tuple[str, frozenset[str]], ...] = (),
        exclude: tuple[str, ...] = (),
        extend_include: tuple[str, ...] = (),
        unsafe_fixes: bool = False,
        respect_gitignore: bool = True,
        target_version: tuple[int, int] | None = None,
        jobs: int | None = None,
        cache_dir: Path | None = None,
        command_line_exclude: tuple[str, ...] = (),
        command_line_root: Path | None = None,
        output_format: str | None = None,
        preview: bool = False,
        preview_selectors: tuple[str, ...] = (),
        fix_edits: bool = True,
    ) -> None:
        self.root = root
        self.source = source
        #: None: the default selection.
        self.select: frozenset[str] = default_selection() if select is None else select
        self.extend_select = extend_select
        self.ignore = ignore
        self.per_file_ignores = per_file_ignores
        self.exclude = exclude
        #: Patterns of files to check besides Python sources and notebooks (`extend-include`),
        #: read as Python: `*.pyw`, `scripts/*.cgi`.
        self.extend_include = extend_include
        self.unsafe_fixes = unsafe_fixes
        self.respect_gitignore = respect_gitignore
        #: The oldest Python the code must run on (`target-version`); None: any. Syntax newer
        #: than it is reported (GPU001).
        self.target_version = target_version
        #: Worker processes for a run (`jobs`); None: as many as the cores available.
        self.jobs = jobs
        #: Where results are cached (`cache-dir`, relative to the pyproject.toml); None: the default.
        self.cache_dir = cache_dir
        #: `--exclude`/`--extend-exclude` patterns and the folder they are relative to.
        self.command_line_exclude = command_line_exclude
        self.command_line_root = command_line_root
        #: `output-format`: how `gpulint check` reports (read from the configuration of the
        #: current folder, as ruff does); None: the default, `full`.
        self.output_format = output_format
        #: `preview`: preview rules run (those the selection picks).
        self.preview = preview
        #: The selectors of the selection that pick only preview rules (see `preview_only`).
        self.preview_selectors = preview_selectors
        #: Whether the run writes the fixes' edits (it applies them, shows a diff, or puts
        #: them in a machine-readable report); a check that prints findings for people only
        #: plans the fixes (`Fix.rendered`), which takes no libcst.
        self.fix_edits = fix_edits

    def codes_for(self, path: Path | None) -> frozenset[str]:
        codes = (self.select | self.extend_select) - self.ignore
        if not self.preview:
            codes -= tier_codes(Tier.PREVIEW)
        relative = self.relative(path)
        if relative is not None:
            for pattern, ignored in self.per_file_ignores:
                if _exclude_spec((pattern,)).match_file(relative):
                    codes -= ignored
        return codes

    def rules_for(self, path: Path | None, text: str | None = None) -> tuple[type[Rule], ...]:
        """The rules that run on the file at `path`; in preview mode, each as preview mode
        runs it (with its preview behaviour, `Rule.in_preview_mode`). `text`, the file's
        source when known, leaves out (and never imports) the rules that cannot find
        anything in it: all but the syntax check where it names no data library nor any
        rule's trigger word (it is parsed but not walked: `engine.mentions_libraries`), and
        each rule whose `libraries` it names none of."""
        codes = self.codes_for(path)
        if text is not None:
            codes = _worth_running(codes, text)
        return tuple(self._as_run(rule) for rule in load(codes))

    def _as_run(self, rule: type[Rule]) -> type[Rule]:
        """The rule as these settings run it: in preview mode, or checking `target-version`."""
        rule = rule.in_preview_mode() if self.preview else rule
        for_target = getattr(rule, "for_target", None)
        return for_target(self.target_version) if for_target is not None else rule

    def relative(self, path: Path | None) -> str | None:
        return _relative_to(path, self.root)

    def includes(self, path: Path) -> bool:
        """Whether `extend-include` adds the file at `path` to the files checked."""
        return bool(self.extend_include) and _matches(self.extend_include, _relative_to(path, self.root))

    def is_excluded(self, path: Path, resolved: Path | None = None) -> bool:
        """Whether `exclude` or the command line's patterns match `path` (`resolved`: the
        path with symbolic links resolved, when the caller already knows it)."""
        return (bool(self.exclude) and _matches(self.exclude, _relative_to(path, self.root, resolved))) or (
            bool(self.command_line_exclude)
            and _matches(self.command_line_exclude, _relative_to(path, self.command_line_root, resolved))
        )

    def with_overrides(self, overrides: Overrides) -> Config:
        """Apply command-line selections: `--select` replaces the configured selection and
        its ignores; `--extend-select` adds rules, lifting configured ignores of them;
        `--ignore` adds ignores. So a rule named on the command line is enforced."""
        changes: dict[str, Any] = {}
        ignore = self.ignore
        if overrides.select is not None:
            changes["select"] = expand(overrides.select, "--select")
            changes["extend_select"] = frozenset()
            changes["preview_selectors"] = preview_only(overrides.select)
            ignore = frozenset()
        if overrides.extend_select:
            extra = expand(overrides.extend_select, "--extend-select")
            changes["extend_select"] = changes.get("extend_select", self.extend_select) | extra
            changes["preview_selectors"] = changes.get("preview_selectors", self.preview_selectors) + preview_only(
                overrides.extend_select
            )
            ignore = ignore - extra
        changes["ignore"] = (
            ignore
            | expand(overrides.ignore, "--ignore", selecting=False)
            | expand(overrides.extend_ignore, "--extend-ignore", selecting=False)
        )
        if overrides.preview is not None:
            changes["preview"] = overrides.preview
        if overrides.target_version is not None:
            changes["target_version"] = target_version(overrides.target_version, "--target-version")
        if overrides.unsafe_fixes is not None:
            changes["unsafe_fixes"] = overrides.unsafe_fixes
        if overrides.fix_edits is not None:
            changes["fix_edits"] = overrides.fix_edits
        if overrides.exclude is not None:
            changes["exclude"] = ()  # `--exclude` replaces the configured `exclude` and `extend-exclude`
        for option, patterns in (
            ("--exclude", overrides.exclude or ()),
            ("--extend-exclude", overrides.extend_exclude),
        ):
            for pattern in patterns:
                _check_pattern(pattern, option)
        command_line = (*(overrides.exclude or ()), *overrides.extend_exclude)
        if command_line:
            changes["command_line_exclude"] = command_line
            changes["command_line_root"] = overrides.root or Path.cwd().resolve()
        return self._replace(**changes)


def _relative_to(path: Path | None, root: Path | None, resolved: Path | None = None) -> str | None:
    """`path` relative to `root`, in POSIX form; its name alone when it is not under `root`.
    `resolved`: `path` with symbolic links resolved, when already known."""
    if path is None:
        return None
    try:
        absolute = path.resolve() if resolved is None else resolved
    except (OSError, RuntimeError):  # RuntimeError: a symlink loop, before Python 3.13
        absolute = path.absolute()
    if root is not None:
        try:
            return absolute.relative_to(root).as_posix()
        except ValueError:
            pass
    return path.name


def _matches(patterns: tuple[str, ...], relative: str | None) -> bool:
    if not patterns or relative is None:
        return False
    spec = _exclude_spec(patterns)
    return spec.match_file(relative) or spec.match_file(relative + "/")


@lru_cache(maxsize=64)
def _exclude_spec(patterns: tuple[str, ...]) -> pathspec.PathSpec:
    return _spec(patterns)


class Overrides(NamedTuple):
    """Settings given on the command line; they beat the configuration file. A NamedTuple
    (start-up)."""

    select: tuple[str, ...] | None = None
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    extend_ignore: tuple[str, ...] = ()
    unsafe_fixes: bool | None = None
    #: `--exclude` (None: not given; it replaces the configured patterns) and `--extend-exclude`.
    exclude: tuple[str, ...] | None = None
    extend_exclude: tuple[str, ...] = ()
    #: The folder command-line patterns are relative to (default: the current directory).
    root: Path | None = None
    #: `--preview` / `--no-preview` (None: as configured).
    preview: bool | None = None
    #: `--target-version py311` (None: as configured).
    target_version: str | None = None
    #: Whether the run writes fixes' edits (`Config.fix_edits`; None: it does).
    fix_edits: bool | None = None


def _string_list(table: dict[str, Any], key: str, where: str) -> list[str]:
    value = table.get(key, [])
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ConfigError(f"{where}: `{key}` must be a list of strings")
    return value


def _boolean(table: dict[str, Any], key: str, where: str, default: bool) -> bool:
    value = table.get(key, default)
    if not isinstance(value, bool):
        raise ConfigError(f"{where}: `{key}` must be true or false")
    return value


def parse_table(table: Any, root: Path | None, where: str) -> Config:
    if not isinstance(table, dict):
        raise ConfigError(f"{where}: [tool.gpulint] must be a table")
    unknown = sorted(set(table) - set(KEYS))
    if unknown:
        raise ConfigError(f"{where}: unknown key(s) in [tool.gpulint]: {', '.join(unknown)} (known: {', '.join(KEYS)})")
    per_file = table.get("per-file-ignores", {})
    if not isinstance(per_file, dict):
        raise ConfigError(f"{where}: `per-file-ignores` must be a table of pattern = [codes]")
    per_file_ignores = []
    for pattern, codes in per_file.items():
        if not isinstance(codes, list):
            raise ConfigError(f"{where}: per-file-ignores for {pattern!r} must be a list of codes")
        per_file_ignores.append((pattern, expand(codes, f"{where}: per-file-ignores[{pattern!r}]", selecting=False)))
    exclude = _string_list(table, "exclude", where) + _string_list(table, "extend-exclude", where)
    extend_include = _string_list(table, "extend-include", where)
    for pattern in [*exclude, *per_file, *extend_include]:
        _check_pattern(pattern, where)
    select = table.get("select")
    selectors = [*_string_list(table, "select", where), *_string_list(table, "extend-select", where)]
    return Config(
        root=root,
        source=where,
        select=expand(_string_list(table, "select", where), f"{where}: select")
        if select is not None
        else default_selection(),
        extend_select=expand(_string_list(table, "extend-select", where), f"{where}: extend-select"),
        ignore=expand(_string_list(table, "ignore", where), f"{where}: ignore", selecting=False)
        | expand(_string_list(table, "extend-ignore", where), f"{where}: extend-ignore", selecting=False),
        per_file_ignores=tuple(per_file_ignores),
        exclude=tuple(exclude),
        extend_include=tuple(extend_include),
        unsafe_fixes=_boolean(table, "unsafe-fixes", where, False),
        respect_gitignore=_boolean(table, "respect-gitignore", where, True),
        jobs=_jobs(table, where),
        cache_dir=_cache_dir(table, root, where),
        output_format=_output_format(table, where),
        preview=_boolean(table, "preview", where, False),
        preview_selectors=preview_only(selectors),
        target_version=target_version(table.get("target-version"), f"{where}: `target-version`"),
    )


def target_version(value: object, where: str) -> tuple[int, int] | None:
    """`py311` as (3, 11); None for no value; anything else a `ConfigError`."""
    if value is None:
        return None
    if value not in TARGET_VERSIONS:
        raise ConfigError(f"{where} must be one of {', '.join(TARGET_VERSIONS)}, got {value!r}")
    return TARGET_VERSIONS[value]


def _output_format(table: dict[str, Any], where: str) -> str | None:
    value = table.get("output-format")
    if value is not None and value not in OUTPUT_FORMATS:
        raise ConfigError(f"{where}: `output-format` must be one of {', '.join(OUTPUT_FORMATS)}, got {value!r}")
    return value


def _jobs(table: dict[str, Any], where: str) -> int | None:
    value = table.get("jobs")
    if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 1):
        raise ConfigError(f"{where}: `jobs` must be a whole number of at least 1")
    return value


def _cache_dir(table: dict[str, Any], root: Path | None, where: str) -> Path | None:
    value = table.get("cache-dir")
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f"{where}: `cache-dir` must be a folder name (a string)")
    path = Path(value).expanduser()
    return path if path.is_absolute() or root is None else root / path


def _check_pattern(pattern: str, where: str) -> None:
    try:
        _spec([pattern])
    except (ValueError, re.error) as error:
        raise ConfigError(f"{where}: invalid path pattern {pattern!r}: {error}") from None


def read_pyproject(path: Path) -> dict[str, Any]:
    try:
        data = read_bytes(path)  # a regular file only: never blocks on a named pipe
    except PathError as error:
        raise ConfigError(f"{path}: cannot read: {error}") from None
    if sys.version_info >= (3, 11):  # imported here: a run with no pyproject.toml never needs it
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    try:
        return tomllib.loads(data.decode("utf-8"))
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: invalid TOML: {error}") from None
    except UnicodeDecodeError as error:
        raise ConfigError(
            f"{path}: invalid TOML: not UTF-8 (byte 0x{error.object[error.start]:02x} at offset {error.start})"
        ) from None


def load_config(path: Path) -> Config:
    """Read `[tool.gpulint]` from a pyproject.toml (an empty table when absent)."""
    data = read_pyproject(path)
    table = data.get("tool", {}).get("gpulint", {}) if isinstance(data.get("tool"), dict) else {}
    return parse_table(table, path.parent.resolve(), str(path))


def _may_configure_gpulint(path: Path) -> bool:
    """A pyproject.toml that never says `gpulint` is another project's business: it is
    not parsed at all, so a broken one belonging to a vendored package cannot stop a run."""
    try:
        return b"gpulint" in path.read_bytes()
    except OSError:
        return True  # let read_pyproject report it


def _is_dir(path: Path) -> bool:
    try:
        return path.is_dir()
    except OSError:
        return False


def _is_file(path: Path) -> bool:
    """Whether `path` is a file; False for one in a folder that cannot be searched (nothing
    in such a folder can be linted either: the walk reports it once)."""
    try:
        return path.is_file()
    except OSError:
        return False


def find_pyproject(
    directory: Path, cache: dict[Path, Path | None] | None = None, resolved: dict[Path, Path] | None = None
) -> Path | None:
    """The nearest pyproject.toml with a [tool.gpulint] table, from `directory` upwards.

    `cache` remembers answers per directory for one run (`resolved`: the folders' resolved
    paths); nothing is remembered across runs, so a long-lived process (an editor
    integration) sees configuration edits."""
    cache = {} if cache is None else cache
    visited: list[Path] = []
    directory = resolve_folder(directory, {} if resolved is None else resolved)
    found: Path | None = None
    while True:
        if directory in cache:
            found = cache[directory]
            break
        visited.append(directory)
        candidate = directory / "pyproject.toml"
        if _is_file(candidate) and _may_configure_gpulint(candidate):
            tool = read_pyproject(candidate).get("tool")
            if isinstance(tool, dict) and "gpulint" in tool:
                found = candidate
                break
        if directory.parent == directory:
            break
        directory = directory.parent
    for folder in visited:
        cache[folder] = found
    return found


class ConfigResolver:
    """Finds and caches the configuration governing each file. A configuration whose
    selection names preview rules only, outside preview mode, is warned about when it is
    made (a `PreviewSelectionWarning`; the command line prints each once)."""

    def __init__(self, overrides: Overrides, explicit: Path | None = None) -> None:
        self.overrides = overrides
        self._explicit = _warned(load_config(explicit).with_overrides(overrides)) if explicit else None
        self._by_file: dict[Path, Config] = {}
        self._defaults: dict[str, Config] = {}
        self._locations: dict[Path, Path | None] = {}
        self._by_directory: dict[Path, Path | None] = {}
        self._resolved: dict[Path, Path] = {}
        # Validate CLI selectors even when no file is ever linted.
        Config().with_overrides(overrides)

    def for_path(self, path: Path, is_dir: bool | None = None) -> Config:
        """The configuration governing `path` (`is_dir`: whether it is a folder, when the
        caller knows). The pyproject.toml governing a folder is looked for once per folder."""
        if self._explicit is not None:
            return self._explicit
        directory = path if (_is_dir(path) if is_dir is None else is_dir) else path.parent
        if directory in self._by_directory:
            pyproject = self._by_directory[directory]
        else:
            pyproject = find_pyproject(directory if str(directory) else Path("."), self._locations, self._resolved)
            self._by_directory[directory] = pyproject
        if pyproject is None:  # the defaults, made once per current folder
            cwd = os.getcwd()
            if cwd not in self._defaults:
                self._defaults[cwd] = _warned(Config(root=Path(cwd).resolve()).with_overrides(self.overrides))
            return self._defaults[cwd]
        if pyproject not in self._by_file:
            self._by_file[pyproject] = _warned(load_config(pyproject).with_overrides(self.overrides))
        return self._by_file[pyproject]


def _warned(config: Config) -> Config:
    """`config`, once its selections that have no effect are warned about."""
    if not config.preview:
        for selector in config.preview_selectors:
            warnings.warn(
                f"Selection `{selector}` has no effect because preview is not enabled.",
                PreviewSelectionWarning,
                stacklevel=3,
            )
    return config


def describe(config: Config, path: Path) -> list[str]:
    """The resolved settings for the file at `path` (`gpulint check --show-settings`), one
    `key = value` a line in TOML's notation: every setting, then what they make of this
    file (the per-file ignores that match it, the rules that run on it, whether it is
    excluded)."""
    settings = "none (gpulint's defaults)" if config.source == "defaults" else _toml(Path(config.source).absolute())
    lines = [f'Resolved settings for: "{path}"', f"Settings path: {settings}", ""]
    for name in Config.FIELDS:
        if name in ("source", "preview_selectors"):
            continue
        value = getattr(config, name)
        if name == "per_file_ignores":
            value = dict(value)
        lines.append(f"{name.replace('_', '-')} = {_toml(value)}")
    relative = config.relative(path)
    applied = {
        pattern: codes
        for pattern, codes in config.per_file_ignores
        if relative is not None and _exclude_spec((pattern,)).match_file(relative)
    }
    lines += [
        "",
        f"# for {relative}",
        f"per-file-ignores-applied = {_toml(applied)}",
        f"rules = {_toml([f'{rule.code} {rule.name}' for rule in config.rules_for(path)])}",
        f"excluded = {_toml(config.is_excluded(path))}",
    ]
    return lines


def _toml(value: Any) -> str:
    """`value` in TOML's notation (sets sorted; None, which TOML lacks, as `(default)`)."""
    if value is None:
        return "(default)"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, (str, Path)):
        return '"' + str(value).replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, dict):
        pairs = ", ".join(f"{_toml(key)} = {_toml(codes)}" for key, codes in value.items())
        return "{ " + pairs + " }" if value else "{}"
    items = sorted(value) if isinstance(value, (set, frozenset)) else list(value)
    return "[" + ", ".join(_toml(item) for item in items) + "]"
