"""The `gpulint` command. A thin front-end: it parses options, runs the engine through
`runner`, and prints. Exit codes: 0 clean, 1 findings remain, 2 usage/config/internal error,
130 interrupted (Ctrl-C)."""

from __future__ import annotations

import io
import itertools
import json
import sys
import traceback
import warnings
from contextlib import closing, contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any
from collections.abc import Callable, Iterator, Sequence

import click

from . import __version__, cache, progress
from .cache import Cache
from .config import (
    OUTPUT_FORMATS,
    TARGET_VERSIONS,
    ConfigError,
    ConfigResolver,
    Overrides,
    PreviewSelectionWarning,
    describe,
)
from .files import describe_error, is_notebook
from .output import HUMAN, full, renderer, text
from .output.style import Style, wants_color
from .output.terminal import printable
from .registry import all_rules, rule_by_key
from .jobs import available_cores
from .progress import Progress
from .runner import (
    FileResult,
    Stream,
    decode_source,
    lint_paths,
    plan,
    process_notebook,
    process_source,
    without_sources,
)
from .source import SourceError

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
#: As a shell reports a command that SIGINT ended (128 + 2): not 1, which says findings remain.
EXIT_INTERRUPTED = 130

#: Where the report goes instead of standard output or error (`--output-file`).
_REPORT_TO: ContextVar[IO[str] | None] = ContextVar("report_to", default=None)


def _split(values: Sequence[str]) -> tuple[str, ...]:
    return tuple(item.strip() for value in values for item in value.split(",") if item.strip())


def _err(message: str) -> None:
    """A line on standard error; what it quotes (a path, a configuration key) is printed
    without terminal controls."""
    click.echo(printable(message), err=True)


class _Commands(click.Group):
    """gpulint's commands; Ctrl-C ends any of them with exit code 130 and one line, where
    click would print "Aborted!" and exit 1. Files are written atomically and worker
    processes finish the file they hold, so an interrupted `--fix` leaves none half-written.
    (`--watch` handles Ctrl-C itself: it is how the watch is stopped.)"""

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            _err("interrupted")
            sys.exit(EXIT_INTERRUPTED)


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "-V", "--version", prog_name="gpulint")
def main() -> None:
    """gpulint: find, explain and fix hardware-hostile idioms in data-science Python."""


@main.command()
# readable=False: an unreadable file is reported by the run like any bad path (one line, the
# other files still linted), not refused up front as a usage error.
@click.argument("paths", nargs=-1, type=click.Path(readable=False))
@click.option("--fix/--no-fix", default=False, help="Apply safe fixes (and unsafe ones with --unsafe-fixes).")
@click.option(
    "--unsafe-fixes/--no-unsafe-fixes", default=None, help="Also apply fixes that may change dtypes or index."
)
@click.option("--diff", is_flag=True, help="Print the fixes as a unified diff on standard output; write nothing.")
@click.option("--select", multiple=True, help="Rule codes, prefixes or names to enable (replaces the config's).")
@click.option("--extend-select", multiple=True, help="Rules to enable on top of the selection.")
@click.option("--ignore", multiple=True, help="Rules to disable.")
@click.option(
    "--preview/--no-preview",
    default=None,
    help="Run preview rules too (those the selection picks); default: `preview` in the configuration.",
)
@click.option(
    "--target-version",
    type=click.Choice(list(TARGET_VERSIONS)),
    default=None,
    help="The oldest Python the code must run on: newer syntax is reported (GPU001). "
    "Default: `target-version` in the configuration, else any.",
)
@click.option("--extend-ignore", multiple=True, help="Rules to disable, on top of --ignore (as ruff's).")
@click.option(
    "--exclude",
    multiple=True,
    metavar="PATTERN",
    help="Files and folders not to lint, gitignore-style, relative to the current folder "
    "(replaces the configured `exclude` and `extend-exclude`).",
)
@click.option(
    "--extend-exclude",
    multiple=True,
    metavar="PATTERN",
    help="Files and folders not to lint, on top of the configured ones.",
)
@click.option(
    "--output-file",
    "-o",
    type=click.Path(path_type=Path, dir_okay=False, writable=False),
    help="Write the report to this file instead of standard output.",
)
@click.option("--add-noqa", is_flag=True, help="Add `# noqa: CODE` comments to every line with a finding.")
@click.option(
    "--show-settings",
    is_flag=True,
    help="Print the settings used for the given file (or the first file in a folder) and exit.",
)
@click.option("--watch", "-w", is_flag=True, help="Lint again whenever a file changes (Ctrl-C to stop).")
@click.option(
    "--output-format",
    type=click.Choice(OUTPUT_FORMATS),
    envvar="GPULINT_OUTPUT_FORMAT",
    help="full (the default: source lines, carets, suggestions), concise (one line a finding; "
    "`text` is its former name), json, github or sarif. Default: $GPULINT_OUTPUT_FORMAT, "
    "else `output-format` in the configuration, else full.",
)
@click.option(
    "--show-fixes/--no-show-fixes",
    default=False,
    help="Show each fix as a diff (full output), and what --fix fixed, per file and rule.",
)
@click.option("--statistics", is_flag=True, help="Count findings per rule instead of listing them.")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when findings remain.")
@click.option("-q", "--quiet", is_flag=True, help="Print findings only: no summary, no warnings.")
@click.option(
    "--stdin-filename", type=click.Path(path_type=Path, readable=False), help="File name for source read from `-`."
)
@click.option(
    "--config",
    "config_file",
    type=click.Path(path_type=Path, dir_okay=False, readable=False),
    help="Use this pyproject.toml instead of searching for one.",
)
@click.option(
    "--force-exclude",
    is_flag=True,
    help="Apply `exclude` to files named on the command line (and --stdin-filename) too.",
)
@click.option("--debug", is_flag=True, help="On an internal error, print its traceback (for a bug report).")
@click.option(
    "--jobs",
    "-j",
    type=click.IntRange(min=1),
    default=None,
    help="Worker processes (default: `jobs` in the configuration, else one per available core).",
)
@click.option("--no-cache", is_flag=True, help="Neither read nor write the result cache.")
def check(
    paths: tuple[str, ...],
    fix: bool,
    unsafe_fixes: bool | None,
    diff: bool,
    select: tuple[str, ...],
    extend_select: tuple[str, ...],
    ignore: tuple[str, ...],
    output_format: str | None,
    show_fixes: bool,
    statistics: bool,
    exit_zero: bool,
    quiet: bool,
    stdin_filename: Path | None,
    config_file: Path | None,
    force_exclude: bool,
    debug: bool,
    jobs: int | None,
    no_cache: bool,
    extend_ignore: tuple[str, ...],
    exclude: tuple[str, ...],
    extend_exclude: tuple[str, ...],
    output_file: Path | None,
    add_noqa: bool,
    show_settings: bool,
    watch: bool,
    preview: bool | None,
    target_version: str | None,
) -> None:
    """Lint PATHS (files or folders; `-` reads standard input). Default: the current folder."""
    _refuse_conflicts(paths, fix, diff, add_noqa, show_settings, watch)
    if watch:
        context = click.get_current_context()
        sys.exit(
            _watch(
                list(paths) or ["."], config_file, lambda: context.invoke(check, **{**context.params, "watch": False})
            )
        )
    if output_file is not None and not show_settings:
        context = click.get_current_context()
        sys.exit(_to_file(output_file, lambda: context.invoke(check, **{**context.params, "output_file": None})))
    if diff and output_format not in (None, *HUMAN):
        raise click.UsageError(f"--diff prints a diff; it cannot be combined with --output-format {output_format}")
    overrides = Overrides(
        select=_split(select) or None,
        extend_select=_split(extend_select),
        ignore=_split(ignore),
        unsafe_fixes=unsafe_fixes,
        extend_ignore=_split(extend_ignore),
        exclude=_split(exclude) if exclude else None,
        extend_exclude=_split(extend_exclude),
        preview=preview,
        target_version=target_version,
    )
    try:
        with _selection_warnings(quiet):
            if show_settings:
                sys.exit(_show_settings(list(paths) or ["."], overrides, config_file, force_exclude, output_file))
            if add_noqa:
                sys.exit(_add_noqa(list(paths) or ["."], overrides, config_file, force_exclude, quiet))
            output_format = output_format or _configured_format(overrides, config_file, diff)
            code = _check(
                list(paths) or ["."],
                overrides,
                fix,
                diff,
                output_format,
                statistics,
                quiet,
                stdin_filename,
                config_file,
                force_exclude,
                show_fixes,
                jobs,
                no_cache,
            )
    except ConfigError as error:
        _err(f"error: {error}")
        sys.exit(EXIT_ERROR)
    except BrokenPipeError:  # the reader stopped reading (`gpulint check | head`): nothing to report
        _quiet_exit()
    except Exception as error:  # pragma: no cover - last line of defence
        _err(f"error: internal error: {type(error).__name__}: {error}")
        if debug:
            traceback.print_exc()
            _err("Please report this with the traceback above and the file that caused it.")
        else:
            _err("Please report this with the file that caused it (`--debug` prints the traceback).")
        sys.exit(EXIT_ERROR)
    sys.exit(EXIT_CLEAN if exit_zero and code == EXIT_FINDINGS else code)


@contextmanager
def _selection_warnings(quiet: bool) -> Iterator[None]:
    """A selection that has no effect (preview rules outside preview mode) is warned about
    on standard error, once however many configurations repeat it, as ruff warns; not with
    --quiet. Other Python warnings are shown as usual."""
    shown: set[str] = set()
    show = warnings.showwarning

    def show_once(message: Warning | str, category: type[Warning], *args: object, **kwargs: object) -> None:
        if not issubclass(category, PreviewSelectionWarning):
            show(message, category, *args, **kwargs)  # type: ignore[arg-type]
        elif not quiet and str(message) not in shown:
            shown.add(str(message))
            _err(f"warning: {message}")

    with warnings.catch_warnings():
        warnings.simplefilter("always", PreviewSelectionWarning)
        warnings.showwarning = show_once
        yield


def _quiet_exit() -> None:
    """Exit 1 without writing again to a pipe whose reader has gone (Python's advice for
    EPIPE: standard output is pointed at the null device so that flushing it at exit
    cannot fail a second time)."""
    import os

    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError):  # standard output is no file (an embedding application's)
        pass
    sys.exit(EXIT_FINDINGS)


def _configured_format(overrides: Overrides, config_file: Path | None, diff: bool) -> str:
    """`output-format` from the configuration of the current folder (or --config), as ruff
    reads its own; `full` where none is set, or where a machine format is set but --diff
    asks for the diff."""
    try:
        configured = ConfigResolver(overrides, config_file).for_path(Path.cwd()).output_format or "full"
    except ConfigError:  # reported with each file it governs; the rest are still checked
        configured = "full"
    return "full" if diff and configured not in HUMAN else configured


def _check(
    paths: list[str],
    overrides: Overrides,
    fix: bool,
    diff: bool,
    output_format: str,
    statistics: bool,
    quiet: bool,
    stdin_filename: Path | None,
    config_file: Path | None,
    force_exclude: bool,
    show_fixes: bool = False,
    jobs: int | None = None,
    no_cache: bool = False,
) -> int:
    """Run the check and print; the exit code. With --diff, standard output carries the diff
    and nothing else (so it can be piped to `git apply`); standard error one line saying
    what it would fix (errors and warnings about files too), as ruff's.
    With --fix on standard input, standard output carries the fixed code, likewise."""
    fixing = fix or diff
    file_paths = [p for p in paths if p != "-"]
    resolver = ConfigResolver(overrides, config_file)
    first: list[FileResult] = []
    stdin_out: bytes | None = None
    if len(file_paths) != len(paths):
        result, excluded, stdin_out = _check_stdin_input(resolver, stdin_filename, fix, diff, force_exclude)
        if not excluded:
            first.append(result)

    report = _REPORT_TO.get() or (sys.stderr if (stdin_out is not None or diff) else sys.stdout)
    if stdin_out is not None:
        sys.stdout.flush()
        sys.stdout.buffer.write(stdin_out)
        sys.stdout.buffer.flush()
    # Each file's output is written as soon as it (and every file before it) is done, then
    # only what the summary and the machine formats need of it is kept.
    listed = output_format in HUMAN and not statistics and not diff  # --diff: the diff and one line
    color = wants_color(report)
    machine_on_stdout = output_format in ("json", "sarif") and report is sys.stdout
    listing = _Listing(output_format, color, show_fixes) if listed else None
    stream = lint_paths(
        file_paths,
        overrides,
        fix=fixing,
        write=not diff,
        config_file=config_file,
        force_exclude=force_exclude,
        jobs=jobs or _configured_jobs(resolver) or available_cores(),
        cache=None if no_cache else Cache(__version__),
        keep_sources=diff,
        render=listing,
    )
    results, checked = _stream(first, stream, listing, report, color, diff, quiet, machine_on_stdout)
    sys.stdout.flush()

    if not checked and not quiet:
        _err("warning: no Python files found under the given paths")
    _summarise(results, report, color, output_format, statistics, fix, diff, quiet, show_fixes)
    if any(r.error is not None for r in results):
        return EXIT_ERROR
    if diff:  # as ruff's: 1 when there is something to change, whatever findings remain
        return EXIT_FINDINGS if any(r.fixed is not None for r in results) else EXIT_CLEAN
    return EXIT_FINDINGS if any(r.diagnostics for r in results) else EXIT_CLEAN


def _check_stdin_input(
    resolver: ConfigResolver, stdin_filename: Path | None, fix: bool, diff: bool, force_exclude: bool
) -> tuple[FileResult, bool, bytes | None]:
    """Standard input checked (or fixed): its result, whether it was excluded, and with
    --fix alone what standard output carries (the code, fixed where a fix applies and can be
    encoded)."""
    data = sys.stdin.buffer.read()
    result, excluded = _check_stdin(data, resolver, stdin_filename, fix or diff, force_exclude)
    if not fix or diff:
        return result, excluded, None
    stdin_out = data
    if result.fixed is not None:
        try:
            stdin_out = result.fixed.to_bytes()
        except SourceError as error:
            assert result.original is not None  # a result that was fixed keeps its source
            result = process_source(
                result.original, result.display, resolver.for_path(_stdin_path(stdin_filename)), stdin_filename, False
            )
            result.error = f"not fixed: {error}"
    return result, excluded, stdin_out


def _stream(
    first: list[FileResult],
    stream: Stream,
    listing: _Listing | None,
    report: IO[str],
    color: bool,
    diff: bool,
    quiet: bool,
    machine_on_stdout: bool,
) -> tuple[list[FileResult], int]:
    """Print each file's output as it comes; the results the summary needs (a clean file is
    only counted: memory stays flat), and how many files were checked."""
    results: list[FileResult] = []
    checked = 0
    # `closing`: on Ctrl-C, the run's worker processes are shut down before the exit.
    with (
        closing(stream),
        Progress(len(first) + stream.total, progress.wanted(sys.stderr, quiet, machine_on_stdout)) as bar,
    ):
        for result in itertools.chain(first, stream):
            checked += 1
            bar.advance(len(result.diagnostics))
            bar.echo(_messages(result, quiet), sys.stderr)
            if diff and result.fixed is not None and result.original is not None:
                bar.echo([_unified_diff(result)], sys.stdout, newline=False)
            if listing is not None:
                bar.echo(result.rendered if result.rendered is not None else listing(result), report, color)
            if result.diagnostics or result.error is not None or result.fixed is not None or result.warnings:
                results.append(without_sources(result))
    return results, checked


def _summarise(
    results: list[FileResult],
    report: IO[str],
    color: bool,
    output_format: str,
    statistics: bool,
    fix: bool,
    diff: bool,
    quiet: bool,
    show_fixes: bool,
) -> None:
    """The run's closing output: a machine format's document, the statistics, the diff's
    one line, or the summary."""
    if output_format not in HUMAN:
        report.write(renderer(output_format)(results))
    elif statistics:
        for line in text.statistics(results):
            click.echo(line, file=report)
    elif diff:
        if not quiet:
            click.echo(text.diff_summary(results), file=report, color=color)
    elif not quiet:
        for line in text.summary(results, "fix" if fix else "check", show_fixes):
            click.echo(line, file=report, color=color)


@dataclass(frozen=True)
class _Listing:
    """How the report lists a file's findings (`full` or `concise`); run where the file is
    checked, in a worker when there are workers, so the sources never travel back."""

    output_format: str
    color: bool
    show_fixes: bool

    @property
    def needs_sources(self) -> bool:
        """Only `full` shows source lines."""
        return self.output_format == "full"

    def __call__(self, result: FileResult) -> list[str]:
        style = Style(self.color)
        if self.output_format == "full":
            return full.findings([result], style, self.show_fixes)
        return text.findings([result], style)


def _configured_jobs(resolver: ConfigResolver) -> int | None:
    """`jobs` in the configuration of the current folder (a broken one is reported with
    the files it governs)."""
    try:
        return resolver.for_path(Path.cwd()).jobs
    except ConfigError:
        return None


def _messages(result: FileResult, quiet: bool) -> list[str]:
    """The `error:` and `warning:` lines about a file, for standard error (without the
    terminal controls a file name or a noqa comment may hold)."""
    lines = [f"error: {result.display}: {result.error}"] if result.error is not None else []
    if not quiet:
        for warning in result.warnings:  # "LINE: message", or a message about the whole file
            separator = ":" if warning[:1].isdigit() or warning.startswith("cell ") else ": "
            lines.append(f"warning: {result.display}{separator}{warning}")
    return [printable(line) for line in lines]


def _refuse_conflicts(
    paths: tuple[str, ...], fix: bool, diff: bool, add_noqa: bool, show_settings: bool, watch: bool
) -> None:
    """Usage errors (exit code 2) for options that do not go together, as ruff refuses them."""
    modes = [
        name
        for name, given in (("--add-noqa", add_noqa), ("--show-settings", show_settings), ("--watch", watch))
        if given
    ]
    if len(modes) > 1:
        raise click.UsageError(f"{modes[0]} cannot be combined with {modes[1]}")
    if add_noqa and (fix or diff):
        raise click.UsageError(f"--add-noqa cannot be combined with {'--fix' if fix else '--diff'}")
    if modes and "-" in paths:
        raise click.UsageError(f"{modes[0]} works on files, not on standard input (`-`)")
    if show_settings and len(paths) > 1:
        raise click.UsageError("--show-settings expects a single path")


def _to_file(path: Path, run: Callable[[], object]) -> int:
    """Run the check with its report going to `path`; the check's exit code (2 when the
    file cannot be written)."""
    buffer = io.StringIO()
    token = _REPORT_TO.set(buffer)
    try:
        run()
        code = EXIT_CLEAN
    except SystemExit as exit_:
        code = exit_.code if isinstance(exit_.code, int) else EXIT_ERROR
    finally:
        _REPORT_TO.reset(token)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(buffer.getvalue().encode("utf-8"))
    except OSError as error:
        _err(f"error: --output-file {path}: cannot write: {describe_error(error)}")
        return EXIT_ERROR
    return code


def _show_settings(
    paths: list[str], overrides: Overrides, config_file: Path | None, force_exclude: bool, output_file: Path | None
) -> int:
    """Print the settings gpulint uses for the file named (for a folder, its first file),
    as `ruff check --show-settings` does."""
    resolver = ConfigResolver(overrides, config_file)
    target = Path(paths[0])
    if _is_folder(target):
        found = next(
            (work for work in plan([str(target)], resolver, force_exclude) if not isinstance(work, FileResult)), None
        )
        if found is None:
            _err(f"error: --show-settings: no Python file found under {target}")
            return EXIT_ERROR
        target = found[0].path
    lines = "\n".join(describe(resolver.for_path(target), target)) + "\n"
    if output_file is None:
        click.echo(lines, nl=False)
        return EXIT_CLEAN
    return _to_file(output_file, lambda: click.echo(lines, nl=False, file=_REPORT_TO.get()))


def _is_folder(path: Path) -> bool:
    try:
        return path.is_dir()
    except OSError:
        return False


def _add_noqa(
    paths: list[str], overrides: Overrides, config_file: Path | None, force_exclude: bool, quiet: bool
) -> int:
    """`--add-noqa`: exit code 0, as ruff's, unless a file could not be read or written (2)."""
    from .add_noqa import add_noqa as add_noqa_comments

    added = add_noqa_comments(paths, overrides, config_file, force_exclude)
    for result in added.errors:
        _err(f"error: {result.display}: {result.error}")
    if not quiet:
        for warning in added.warnings:
            _err(f"warning: {warning}")
        plural = "" if added.directives == 1 else "s"
        _err(f"Added {added.directives} noqa directive{plural}.")
    return EXIT_ERROR if added.errors else EXIT_CLEAN


def _watch(paths: list[str], config_file: Path | None, run: Callable[[], object]) -> int:
    """`--watch`: each run's exit code is shown by its report; the watch itself exits 0."""
    from . import watch as watching

    if not watching.available():
        _err(f"error: {watching.MISSING}")
        return EXIT_ERROR
    watched = watching.watched_paths(paths, config_file)
    missing = [path for path in watched if not Path(path).exists()]
    if missing:
        _err(f"error: --watch: no such file or folder: {missing[0]}")
        return EXIT_ERROR

    def run_once() -> None:
        try:
            run()
        except SystemExit:
            pass

    return watching.watch(run_once, watching.file_changes(watched))


def _stdin_path(stdin_filename: Path | None) -> Path:
    return stdin_filename.absolute() if stdin_filename else Path.cwd() / "stdin.py"


def _check_stdin(
    data: bytes, resolver: ConfigResolver, stdin_filename: Path | None, fix: bool, force_exclude: bool
) -> tuple[FileResult, bool]:
    """Lint standard input; the result and whether --force-exclude excluded it."""
    display = str(stdin_filename) if stdin_filename else "-"
    path = _stdin_path(stdin_filename)
    config = resolver.for_path(path)
    notebook = is_notebook(stdin_filename)
    try:
        source = decode_source(data, notebook)
    except SourceError as error:  # a notebook's NotebookError is one
        return FileResult(display=display, error=str(error)), False
    if force_exclude and stdin_filename is not None and config.is_excluded(path):
        return FileResult(display=display, original=source), True
    process = process_notebook if notebook else process_source
    return process(source, display, config, stdin_filename, fix), False


def _unified_diff(result: FileResult) -> str:
    import difflib

    assert result.original is not None and result.fixed is not None
    before = result.original.text.splitlines(keepends=True)
    after = result.fixed.text.splitlines(keepends=True)
    lines = difflib.unified_diff(before, after, f"a/{result.display}", f"b/{result.display}")
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)


@main.command()
def clean() -> None:
    """Remove the result cache: the current project's, and any `.gpulint_cache` below the
    current folder. Only what gpulint wrote is removed; a file it did not write stays, with
    the folder holding it."""
    try:
        config = ConfigResolver(Overrides()).for_path(Path.cwd())
    except ConfigError as error:
        _err(f"error: {error}")
        sys.exit(EXIT_ERROR)
    for directory in cache.clean([*cache.directories_for(config), *cache.found_below(Path.cwd())]):
        if directory.exists():
            _err(f"Removed the cache files in: {directory} (the folder holds other files, left in place)")
        else:
            _err(f"Removed cache at: {directory}")


@main.command()
@click.argument("key", required=False)
@click.option("--all", "show_all", is_flag=True, help="Document every rule.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def rule(key: str | None, show_all: bool, fmt: str) -> None:
    """Explain a rule, by code (GPU102) or name (iterrows-loop)."""
    from .docs import render_markdown, rule_json

    if show_all:
        rules = list(all_rules())
    elif key is None:
        _err("error: give a rule code or name, or --all")
        sys.exit(EXIT_ERROR)
    else:
        found = rule_by_key(key)
        if found is None:
            _err(f"error: unknown rule {key!r} (see `gpulint rule --all`)")
            sys.exit(EXIT_ERROR)
        rules = [found]
    if fmt == "json":
        payload = [rule_json(r) for r in rules]
        click.echo(json.dumps(payload if show_all else payload[0], indent=2, ensure_ascii=False))
    else:
        click.echo("\n".join(render_markdown(r) for r in rules), nl=False)


@main.command()
def server() -> None:
    """Run the language server (LSP) on standard input/output, for editors."""
    from .lsp import MISSING_EXTRA, lsp_available, serve

    if not lsp_available():
        _err(f"error: {MISSING_EXTRA}")
        sys.exit(EXIT_ERROR)
    serve()


@main.command()
@click.option(
    "--rule",
    "rules",
    multiple=True,
    metavar="CODE",
    help="Rule code or name to benchmark (repeatable; default: every rule with a benchmark).",
)
@click.option(
    "--backend",
    "backends",
    multiple=True,
    metavar="NAME",
    help="pandas, numpy, torch, sklearn, dask, cudf, cupy, torch-cuda, or cpu/gpu for all of "
    "either (repeatable; default: every backend that applies to each rule).",
)
@click.option("--max-n", type=click.IntRange(min=1), help="Largest size N to measure.")
@click.option("--quick", is_flag=True, help="Tiny N, one run each: checks that before and after agree.")
@click.option(
    "--budget",
    type=click.FloatRange(min=0, min_open=True),
    default=1.0,
    show_default=True,
    help="Seconds per run; a version slower than this is not run at larger N (a run is interrupted after 10x this).",
)
@click.option(
    "--output",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("gpulint-bench"),
    show_default=True,
    help="Folder for the results: cpu.json/gpu.json, .md and .png.",
)
def bench(
    rules: tuple[str, ...], backends: tuple[str, ...], max_n: int | None, quick: bool, budget: float, output: Path
) -> None:
    """Measure each rule's rewrite against the code it flags, on CPU and (where present) GPU.

    Exit codes: 0 every before/after pair agreed, 1 some disagreed (or failed on the CPU),
    2 bad options."""
    from .benchmarks.command import run as run_bench

    sys.exit(run_bench(_split(rules), _split(backends), max_n, quick, budget, output))


@main.command()
@click.argument("paths", nargs=-1, type=click.Path(readable=False))
@click.option(
    "--output-format",
    "report_format",
    type=click.Choice(["text", "json", "markdown"]),
    default="text",
    show_default=True,
    help="text (per file, then the summary), json, or markdown (a pull-request comment).",
)
@click.option(
    "--library",
    "libraries",
    multiple=True,
    type=click.Choice(["cudf", "cuml", "networkx"]),
    help="Report only cudf.pandas (pandas operations), cuml.accel (estimators) or nx-cugraph (NetworkX "
    "functions); repeatable. Default: all three.",
)
@click.option(
    "--fail-under",
    type=click.FloatRange(0, 100),
    metavar="PERCENT",
    help="Exit 1 when less than PERCENT of the counted operations run on the GPU.",
)
def readiness(
    paths: tuple[str, ...], report_format: str, libraries: tuple[str, ...], fail_under: float | None, **shared: Any
) -> None:
    """Report what of PATHS would run on the GPU under cudf.pandas, cuml.accel and nx-cugraph,
    what falls back and why, and the lint findings in the GPU's way. Default: the current folder.

    Exit codes: 0 report written (also when things fall back), 1 the GPU share is under
    --fail-under, 2 usage or internal error, or a file that could not be read."""
    from .output.readiness_report import write_report

    output_file = shared.pop("output_file")
    if output_file is not None:
        context = click.get_current_context()
        sys.exit(_to_file(output_file, lambda: context.invoke(readiness, **{**context.params, "output_file": None})))
    overrides = Overrides(
        select=_split(shared["select"]) or None,
        extend_select=_split(shared["extend_select"]),
        ignore=_split(shared["ignore"]),
        extend_ignore=_split(shared["extend_ignore"]),
        exclude=_split(shared["exclude"]) if shared["exclude"] else None,
        extend_exclude=_split(shared["extend_exclude"]),
        preview=shared["preview"],
    )
    try:
        with _selection_warnings(False):
            resolver = ConfigResolver(overrides, shared["config_file"])
            jobs = shared["jobs"] or _configured_jobs(resolver) or available_cores()
            code = write_report(
                list(paths) or ["."],
                overrides,
                shared["config_file"],
                bool(shared["force_exclude"]),
                int(jobs),
                report_format,
                libraries,
                fail_under,
                _REPORT_TO.get() or sys.stdout,
                None if shared["no_cache"] else Cache(__version__),
            )
    except ConfigError as error:
        _err(f"error: {error}")
        sys.exit(EXIT_ERROR)
    except BrokenPipeError:
        _quiet_exit()
    except Exception as error:  # pragma: no cover - last line of defence
        _err(f"error: internal error: {type(error).__name__}: {error}")
        if shared["debug"]:
            traceback.print_exc()
        sys.exit(EXIT_ERROR)
    sys.exit(code)


# `readiness` takes `check`'s options for finding files and choosing the lint rules whose
# findings it lists as blockers: the same option objects, defined once.
readiness.params.extend(
    p
    for p in check.params
    if p.name
    in (
        "select",
        "extend_select",
        "ignore",
        "extend_ignore",
        "preview",
        "exclude",
        "extend_exclude",
        "output_file",
        "config_file",
        "force_exclude",
        "jobs",
        "debug",
        "no_cache",
    )
)
