"""The `gpulint` command. A thin front-end: it parses options, runs the engine through
`runner`, and prints. Exit codes: 0 clean, 1 findings remain, 2 usage/config/internal error,
130 interrupted (Ctrl-C).

What only some commands use (the language server, the benchmarks, the readiness report,
the watcher, noqa insertion, rule documentation) is imported by those commands, so that
`gpulint check` of a few files starts fast."""

from __future__ import annotations

import argparse
import gc
import io
import itertools
import os
import sys
import warnings
from contextlib import closing, contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import IO, NoReturn
from collections.abc import Callable, Iterator, Sequence

from . import __version__, progress
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
from .diagnostic import DEBUG_VARIABLE
from .files import describe_error, is_notebook
from .output import HUMAN, full, renderer, text
from .output.style import Style, wants_color
from .output.terminal import printable
from .jobs import available_cores
from .progress import Progress, write_lines
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


class UsageError(Exception):
    """Options that do not go together: reported by the command's parser (its usage, then
    one `error:` line), exit code 2."""


def main(argv: Sequence[str] | None = None) -> int:
    """Run `gpulint ARGV` (default: the process's arguments); the exit code. Ctrl-C ends any
    command with exit code 130 and one line. Files are written atomically and worker
    processes finish the file they hold, so an interrupted `--fix` leaves none half-written.
    (`--watch` handles Ctrl-C itself: it is how the watch is stopped.)"""
    parser = _parser()
    try:
        options = parser.parse_args(argv)
        if options.command is None:
            parser.print_help(sys.stderr)
            return EXIT_ERROR
        try:
            code: int = options.run(options)
        except UsageError as error:
            command_parser: argparse.ArgumentParser = options.command_parser
            command_parser.error(str(error))
        return code
    except SystemExit as exit_:  # from argparse: --help, --version, a usage error
        return exit_.code if isinstance(exit_.code, int) else EXIT_CLEAN if exit_.code is None else EXIT_ERROR
    except KeyboardInterrupt:
        _err("interrupted")
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # the reader stopped reading (`gpulint rule --all | head`)
        return _quiet_exit()


def run() -> NoReturn:
    """The `gpulint` program: `main`, then the process ends with its exit code. What the
    run made is freed with the process: `gc.freeze()` spares the interpreter the last pass
    of its cycle collector over it at exit (about a tenth of checking a small file)."""
    code = main()
    gc.freeze()
    sys.exit(code)


def _split(values: Sequence[str] | None) -> tuple[str, ...]:
    return tuple(item.strip() for value in values or () for item in value.split(",") if item.strip())


def _err(message: str) -> None:
    """A line on standard error; what it quotes (a path, a configuration key) is printed
    without terminal controls."""
    write_lines([printable(message)], sys.stderr)


# -- the command line ------------------------------------------------------------------------


class _CommandParser(argparse.ArgumentParser):
    """A command's parser: options and paths in any order (`check a.py --fix b.py`), and an
    unknown option refused by the command it was given to."""

    _parsing = False

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        if self._parsing:  # the intermixed parse's own passes
            return super().parse_known_args(args, namespace)
        self._parsing = True
        try:
            parsed, extras = self.parse_known_intermixed_args(args, namespace)
        finally:
            self._parsing = False
        if extras:
            self.error(f"unrecognized arguments: {' '.join(extras)}")
        return parsed, extras


class _HelpFormatter(argparse.HelpFormatter):
    """argparse's formatter, measuring the terminal itself: argparse makes one for every
    option added, and measures with `shutil`, whose import (with the compression modules
    it imports) costs a check of a small file a few percent of its time."""

    def __init__(
        self, prog: str, indent_increment: int = 2, max_help_position: int = 24, width: int | None = None
    ) -> None:
        super().__init__(prog, indent_increment, max_help_position, _columns() - 2 if width is None else width)


def _columns() -> int:
    """The terminal's width as `shutil.get_terminal_size` gives it: `COLUMNS`, else the
    width of the terminal of standard output, else 80."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gpulint",
        description="gpulint: find, explain and fix hardware-hostile idioms in data-science Python.",
        formatter_class=_HelpFormatter,
        allow_abbrev=False,
    )
    parser.add_argument("-V", "--version", action="version", version=f"gpulint, version {__version__}")
    commands = parser.add_subparsers(title="commands", dest="command", parser_class=_CommandParser)

    def command(
        name: str, run: Callable[[argparse.Namespace], int], summary: str, details: str = "", usage: str = ""
    ) -> argparse.ArgumentParser:
        sub = commands.add_parser(
            name,
            help=summary,
            description=f"{summary} {details}".strip(),
            usage=usage or None,
            formatter_class=_HelpFormatter,
            allow_abbrev=False,
        )
        sub.set_defaults(run=run, command_parser=sub)
        return sub

    _check_options(
        command(
            "check",
            _run_check,
            "Lint PATHS (files or folders; `-` reads standard input).",
            "Default: the current folder.",
            "%(prog)s [options] [PATHS ...]",
        )
    )
    command(
        "clean",
        _run_clean,
        "Remove the result cache.",
        "The current project's, and any `.gpulint_cache` below the current folder. Only what "
        "gpulint wrote is removed; a file it did not write stays, with the folder holding it.",
    )
    rule = command("rule", _run_rule, "Explain a rule, by code (GPU102) or name (iterrows-loop).")
    rule.add_argument("key", nargs="?", metavar="KEY", help="a rule code or name")
    rule.add_argument("--all", dest="show_all", action="store_true", help="Document every rule.")
    rule.add_argument(
        "--format", dest="fmt", choices=["text", "json"], default="text", help="text or json (default: %(default)s)."
    )
    command("server", _run_server, "Run the language server (LSP) on standard input/output, for editors.")
    _bench_options(
        command(
            "bench",
            _run_bench,
            "Measure each rule's rewrite against the code it flags, on CPU and (where present) GPU.",
            "Exit codes: 0 every before/after pair agreed, 1 some disagreed (or failed on the CPU), 2 bad options.",
        )
    )
    _readiness_options(
        command(
            "readiness",
            _run_readiness,
            "Report what of PATHS would run on the GPU under cudf.pandas, cuml.accel and nx-cugraph.",
            "Also what falls back and why, and the lint findings in the GPU's way. Default: the current "
            "folder. Exit codes: 0 report written (also when things fall back), 1 the GPU share is under "
            "--fail-under, 2 usage or internal error, or a file that could not be read.",
            "%(prog)s [options] [PATHS ...]",
        )
    )
    return parser


def _check_options(parser: argparse.ArgumentParser) -> None:
    # An unreadable file is reported by the run like any bad path (one line, the other files
    # still linted), not refused up front as a usage error.
    parser.add_argument("paths", nargs="*", metavar="PATHS", help="files or folders to lint; `-` reads standard input")
    parser.add_argument(
        "--fix",
        action=argparse.BooleanOptionalAction,
        help="Apply safe fixes (and unsafe ones with --unsafe-fixes).",
    )
    parser.add_argument(
        "--unsafe-fixes",
        action=argparse.BooleanOptionalAction,
        help="Also apply fixes that may change dtypes or index.",
    )
    parser.add_argument(
        "--diff", action="store_true", help="Print the fixes as a unified diff on standard output; write nothing."
    )
    _selection_options(parser)
    parser.add_argument(
        "--target-version",
        choices=list(TARGET_VERSIONS),
        help="The oldest Python the code must run on: newer syntax is reported (GPU001). "
        "Default: `target-version` in the configuration, else any.",
    )
    _file_options(parser)
    parser.add_argument(
        "--add-noqa", action="store_true", help="Add `# noqa: CODE` comments to every line with a finding."
    )
    parser.add_argument(
        "--show-settings",
        action="store_true",
        help="Print the settings used for the given file (or the first file in a folder) and exit.",
    )
    parser.add_argument(
        "--watch", "-w", action="store_true", help="Lint again whenever a file changes (Ctrl-C to stop)."
    )
    parser.add_argument(
        "--output-format",
        choices=OUTPUT_FORMATS,
        type=_output_format,
        default=os.environ.get("GPULINT_OUTPUT_FORMAT") or None,
        help="full (the default: source lines, carets, suggestions), concise (one line a finding; "
        "`text` is its former name), json, github or sarif. Default: $GPULINT_OUTPUT_FORMAT, "
        "else `output-format` in the configuration, else full.",
    )
    parser.add_argument(
        "--show-fixes",
        action=argparse.BooleanOptionalAction,
        help="Show each fix as a diff (full output), and what --fix fixed, per file and rule.",
    )
    parser.add_argument("--statistics", action="store_true", help="Count findings per rule instead of listing them.")
    parser.add_argument("--exit-zero", action="store_true", help="Exit 0 even when findings remain.")
    parser.add_argument("-q", "--quiet", action="store_true", help="Print findings only: no summary, no warnings.")
    parser.add_argument("--stdin-filename", type=Path, metavar="NAME", help="File name for source read from `-`.")
    _run_options(parser)
    # Set here, not on the options: Python 3.10 would add "(default: False)" to their help.
    parser.set_defaults(fix=False, show_fixes=False)


def _selection_options(parser: argparse.ArgumentParser) -> None:
    """The options that choose the rules (`check`'s and `readiness`')."""
    for name, help_ in (
        ("--select", "Rule codes, prefixes or names to enable (replaces the config's)."),
        ("--extend-select", "Rules to enable on top of the selection."),
        ("--ignore", "Rules to disable."),
        ("--extend-ignore", "Rules to disable, on top of --ignore (as ruff's)."),
    ):
        parser.add_argument(name, action="append", metavar="RULES", help=help_)
    parser.add_argument(
        "--preview",
        action=argparse.BooleanOptionalAction,
        help="Run preview rules too (those the selection picks); default: `preview` in the configuration.",
    )


def _file_options(parser: argparse.ArgumentParser) -> None:
    """The options that choose the files and where the report goes (`check`'s and `readiness`')."""
    parser.add_argument(
        "--exclude",
        action="append",
        metavar="PATTERN",
        help="Files and folders not to lint, gitignore-style, relative to the current folder "
        "(replaces the configured `exclude` and `extend-exclude`).",
    )
    parser.add_argument(
        "--extend-exclude",
        action="append",
        metavar="PATTERN",
        help="Files and folders not to lint, on top of the configured ones.",
    )
    parser.add_argument(
        "--output-file",
        "-o",
        type=_file,
        metavar="FILE",
        help="Write the report to this file instead of standard output.",
    )


def _run_options(parser: argparse.ArgumentParser) -> None:
    """How the run goes (`check`'s and `readiness`')."""
    parser.add_argument(
        "--config",
        dest="config_file",
        type=_file,
        metavar="FILE",
        help="Use this pyproject.toml instead of searching for one.",
    )
    parser.add_argument(
        "--force-exclude",
        action="store_true",
        help="Apply `exclude` to files named on the command line (and --stdin-filename) too.",
    )
    parser.add_argument(
        "--debug", action="store_true", help="On an internal error, print its traceback (for a bug report)."
    )
    parser.add_argument(
        "--jobs",
        "-j",
        type=_at_least_one,
        metavar="N",
        help="Worker processes (default: `jobs` in the configuration, else one per available core).",
    )
    parser.add_argument("--no-cache", action="store_true", help="Neither read nor write the result cache.")


def _bench_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--rule",
        dest="rules",
        action="append",
        metavar="CODE",
        help="Rule code or name to benchmark (repeatable; default: every rule with a benchmark).",
    )
    parser.add_argument(
        "--backend",
        dest="backends",
        action="append",
        metavar="NAME",
        help="pandas, numpy, torch, sklearn, dask, cudf, cupy, torch-cuda, or cpu/gpu for all of "
        "either (repeatable; default: every backend that applies to each rule).",
    )
    parser.add_argument("--max-n", type=_at_least_one, metavar="N", help="Largest size N to measure.")
    parser.add_argument(
        "--quick", action="store_true", help="Tiny N, one run each: checks that before and after agree."
    )
    parser.add_argument(
        "--budget",
        type=_seconds,
        default=1.0,
        metavar="SECONDS",
        help="Seconds per run; a version slower than this is not run at larger N (a run is interrupted "
        "after 10x this). Default: %(default)s.",
    )
    parser.add_argument(
        "--output",
        type=_folder,
        default=Path("gpulint-bench"),
        metavar="DIR",
        help="Folder for the results: cpu.json/gpu.json, .md and .png. Default: %(default)s.",
    )


def _readiness_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="*", metavar="PATHS", help="files or folders to report on")
    parser.add_argument(
        "--output-format",
        dest="report_format",
        choices=["text", "json", "markdown"],
        default="text",
        help="text (per file, then the summary), json, or markdown (a pull-request comment). Default: %(default)s.",
    )
    parser.add_argument(
        "--library",
        dest="libraries",
        action="append",
        choices=["cudf", "cuml", "networkx"],
        help="Report only cudf.pandas (pandas operations), cuml.accel (estimators) or nx-cugraph (NetworkX "
        "functions); repeatable. Default: all three.",
    )
    parser.add_argument(
        "--fail-under",
        type=_percent,
        metavar="PERCENT",
        help="Exit 1 when less than PERCENT of the counted operations run on the GPU.",
    )
    # The options for finding files and choosing the lint rules whose findings it lists as
    # blockers are `check`'s.
    _selection_options(parser)
    _file_options(parser)
    _run_options(parser)


# Option values: each checked as it is parsed, a bad one refused as a usage error (exit 2).


def _output_format(value: str) -> str:
    # argparse checks `choices` on the command line only; this checks the default from
    # $GPULINT_OUTPUT_FORMAT too.
    if value not in OUTPUT_FORMATS:
        raise argparse.ArgumentTypeError(
            f"invalid choice: {value!r} (choose from {', '.join(map(repr, OUTPUT_FORMATS))})"
        )
    return value


def _at_least_one(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not an integer") from None
    if number < 1:
        raise argparse.ArgumentTypeError(f"{number} is not 1 or more")
    return number


def _number(value: str) -> float:
    try:
        return float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a number") from None


def _seconds(value: str) -> float:
    number = _number(value)
    if not number > 0:
        raise argparse.ArgumentTypeError(f"{value} is not more than 0")
    return number


def _percent(value: str) -> float:
    number = _number(value)
    if not 0 <= number <= 100:
        raise argparse.ArgumentTypeError(f"{value} is not between 0 and 100")
    return number


def _file(value: str) -> Path:
    """A file to read or write; a folder is refused."""
    if os.path.isdir(value):
        raise argparse.ArgumentTypeError(f"{value!r} is a folder, not a file")
    return Path(value)


def _folder(value: str) -> Path:
    """A folder to write into; a file, or a folder that cannot be read, is refused."""
    if os.path.isfile(value):
        raise argparse.ArgumentTypeError(f"{value!r} is a file, not a folder")
    if os.path.isdir(value) and not os.access(value, os.R_OK):
        raise argparse.ArgumentTypeError(f"{value!r} is not readable")
    return Path(value)


# -- check -----------------------------------------------------------------------------------


def _with(options: argparse.Namespace, **changes: object) -> argparse.Namespace:
    return argparse.Namespace(**{**vars(options), **changes})


def _run_check(options: argparse.Namespace) -> int:
    """`gpulint check`."""
    paths: list[str] = options.paths
    _refuse_conflicts(paths, options.fix, options.diff, options.add_noqa, options.show_settings, options.watch)
    if options.watch:
        return _watch(paths or ["."], options.config_file, lambda: _run_check(_with(options, watch=False)))
    if options.output_file is not None and not options.show_settings:
        return _to_file(options.output_file, lambda: _run_check(_with(options, output_file=None)))
    output_format: str | None = options.output_format
    if options.diff and output_format not in (None, *HUMAN):
        raise UsageError(f"--diff prints a diff; it cannot be combined with --output-format {output_format}")
    overrides = _overrides(options, unsafe_fixes=options.unsafe_fixes, target_version=options.target_version)
    config_file: Path | None = options.config_file
    with _debugging(options.debug):
        return _run_check_with(options, paths, overrides, config_file, output_format)


@contextmanager
def _debugging(debug: bool) -> Iterator[None]:
    """With `--debug`, a rule's internal error carries its traceback, also from the job
    processes (they inherit the variable); the variable is restored after the run."""
    previous = os.environ.get(DEBUG_VARIABLE)
    if debug:
        os.environ[DEBUG_VARIABLE] = "1"
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop(DEBUG_VARIABLE, None)
        else:
            os.environ[DEBUG_VARIABLE] = previous


def _run_check_with(
    options: argparse.Namespace,
    paths: list[str],
    overrides: Overrides,
    config_file: Path | None,
    output_format: str | None,
) -> int:
    """`gpulint check`, its options read."""
    try:
        with _selection_warnings(options.quiet):
            if options.show_settings:
                return _show_settings(
                    paths or ["."], overrides, config_file, options.force_exclude, options.output_file
                )
            if options.add_noqa:
                return _add_noqa(paths or ["."], overrides, config_file, options.force_exclude, options.quiet)
            code = _check(
                paths or ["."],
                overrides,
                options.fix,
                options.diff,
                output_format or _configured_format(overrides, config_file, options.diff),
                options.statistics,
                options.quiet,
                options.stdin_filename,
                config_file,
                options.force_exclude,
                options.show_fixes,
                options.jobs,
                options.no_cache,
            )
    except ConfigError as error:
        _err(f"error: {error}")
        return EXIT_ERROR
    except BrokenPipeError:  # the reader stopped reading (`gpulint check | head`): nothing to report
        return _quiet_exit()
    except Exception as error:  # pragma: no cover - last line of defence
        return _internal_error(error, options.debug, advise=True)
    return EXIT_CLEAN if options.exit_zero and code == EXIT_FINDINGS else code


def _overrides(options: argparse.Namespace, **more: object) -> Overrides:
    """The rule and file selection given on the command line."""
    return Overrides(
        select=_split(options.select) or None,
        extend_select=_split(options.extend_select),
        ignore=_split(options.ignore),
        extend_ignore=_split(options.extend_ignore),
        exclude=_split(options.exclude) if options.exclude else None,
        extend_exclude=_split(options.extend_exclude),
        preview=options.preview,
        **more,  # type: ignore[arg-type]
    )


def _internal_error(error: Exception, debug: bool, advise: bool) -> int:
    """Report a failure of gpulint itself (not of a file or a rule): one line, with --debug
    the traceback, and with `advise` what to send in a bug report."""
    _err(f"error: internal error: {type(error).__name__}: {error}")
    if debug:
        import traceback

        traceback.print_exc()
        if advise:
            _err("Please report this with the traceback above and the file that caused it.")
    elif advise:
        _err("Please report this with the file that caused it (`--debug` prints the traceback).")
    return EXIT_ERROR


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


def _quiet_exit() -> int:
    """Exit code 1, after pointing standard output at the null device so that flushing it at
    exit cannot fail a second time (Python's advice for EPIPE: its reader has gone)."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError):  # standard output is no file (an embedding application's)
        pass
    return EXIT_FINDINGS


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
    # Findings printed for people need only each fix's plan; anything else writes the edits.
    overrides = overrides._replace(fix_edits=fixing or show_fixes or output_format not in HUMAN)
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
    results, checked = _stream(first, stream, listing, report, diff, quiet, machine_on_stdout)
    sys.stdout.flush()

    if not checked and not quiet:
        _err("warning: no Python files found under the given paths")
    _summarise(results, report, output_format, statistics, fix, diff, quiet, show_fixes)
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
                bar.echo(result.rendered if result.rendered is not None else listing(result), report)
            if result.diagnostics or result.error is not None or result.fixed is not None or result.warnings:
                results.append(without_sources(result))
    return results, checked


def _summarise(
    results: list[FileResult],
    report: IO[str],
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
        write_lines(text.statistics(results), report)
    elif diff:
        if not quiet:
            write_lines([text.diff_summary(results)], report)
    elif not quiet:
        write_lines(text.summary(results, "fix" if fix else "check", show_fixes), report)


class _Listing:
    """How the report lists a file's findings (`full` or `concise`); run where the file is
    checked, in a worker when there are workers, so the sources never travel back. A slots
    class (start-up)."""

    __slots__ = ("output_format", "color", "show_fixes")

    def __init__(self, output_format: str, color: bool, show_fixes: bool) -> None:
        self.output_format = output_format
        self.color = color
        self.show_fixes = show_fixes

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
    paths: list[str], fix: bool, diff: bool, add_noqa: bool, show_settings: bool, watch: bool
) -> None:
    """Usage errors (exit code 2) for options that do not go together, as ruff refuses them."""
    modes = [
        name
        for name, given in (("--add-noqa", add_noqa), ("--show-settings", show_settings), ("--watch", watch))
        if given
    ]
    if len(modes) > 1:
        raise UsageError(f"{modes[0]} cannot be combined with {modes[1]}")
    if add_noqa and (fix or diff):
        raise UsageError(f"--add-noqa cannot be combined with {'--fix' if fix else '--diff'}")
    if modes and "-" in paths:
        raise UsageError(f"{modes[0]} works on files, not on standard input (`-`)")
    if show_settings and len(paths) > 1:
        raise UsageError("--show-settings expects a single path")


def _to_file(path: Path, run: Callable[[], int]) -> int:
    """Run the command with its report going to `path`; the command's exit code (2 when the
    file cannot be written)."""
    buffer = io.StringIO()
    token = _REPORT_TO.set(buffer)
    try:
        code = run()
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
        sys.stdout.write(lines)
        return EXIT_CLEAN

    def write() -> int:
        (_REPORT_TO.get() or sys.stdout).write(lines)
        return EXIT_CLEAN

    return _to_file(output_file, write)


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


def _watch(paths: list[str], config_file: Path | None, run: Callable[[], int]) -> int:
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

    return watching.watch(run, watching.file_changes(watched))


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


# -- the other commands ----------------------------------------------------------------------


def _run_clean(options: argparse.Namespace) -> int:
    """`gpulint clean`: remove the result cache, the current project's and any
    `.gpulint_cache` below the current folder. Only what gpulint wrote is removed; a file it
    did not write stays, with the folder holding it."""
    from . import cache

    try:
        config = ConfigResolver(Overrides()).for_path(Path.cwd())
    except ConfigError as error:
        _err(f"error: {error}")
        return EXIT_ERROR
    for directory in cache.clean([*cache.directories_for(config), *cache.found_below(Path.cwd())]):
        if directory.exists():
            _err(f"Removed the cache files in: {directory} (the folder holds other files, left in place)")
        else:
            _err(f"Removed cache at: {directory}")
    return EXIT_CLEAN


def _run_rule(options: argparse.Namespace) -> int:
    """`gpulint rule`: explain a rule, by code (GPU102) or name (iterrows-loop)."""
    from .docs import render_markdown, rule_json
    from .registry import all_rules, rule_by_key

    key: str | None = options.key
    if options.show_all:
        rules = list(all_rules())
    elif key is None:
        _err("error: give a rule code or name, or --all")
        return EXIT_ERROR
    else:
        found = rule_by_key(key)
        if found is None:
            _err(f"error: unknown rule {key!r} (see `gpulint rule --all`)")
            return EXIT_ERROR
        rules = [found]
    if options.fmt == "json":
        import json

        payload = [rule_json(r) for r in rules]
        write_lines([json.dumps(payload if options.show_all else payload[0], indent=2, ensure_ascii=False)], sys.stdout)
    else:
        write_lines(["\n".join(render_markdown(r) for r in rules)], sys.stdout, newline=False)
    return EXIT_CLEAN


def _run_server(options: argparse.Namespace) -> int:
    """`gpulint server`: the language server (LSP) on standard input/output, for editors."""
    from .lsp import MISSING_EXTRA, lsp_available, serve

    if not lsp_available():
        _err(f"error: {MISSING_EXTRA}")
        return EXIT_ERROR
    serve()
    return EXIT_CLEAN


def _run_bench(options: argparse.Namespace) -> int:
    """`gpulint bench`: measure each rule's rewrite against the code it flags."""
    from .benchmarks.command import run as run_bench

    return run_bench(
        _split(options.rules), _split(options.backends), options.max_n, options.quick, options.budget, options.output
    )


def _run_readiness(options: argparse.Namespace) -> int:
    """`gpulint readiness`: what of PATHS would run on the GPU under cudf.pandas, cuml.accel
    and nx-cugraph, what falls back and why, and the lint findings in the GPU's way."""
    from .output.readiness_report import write_report

    if options.output_file is not None:
        return _to_file(options.output_file, lambda: _run_readiness(_with(options, output_file=None)))
    overrides = _overrides(options)
    try:
        with _selection_warnings(False):
            resolver = ConfigResolver(overrides, options.config_file)
            jobs = options.jobs or _configured_jobs(resolver) or available_cores()
            return write_report(
                list(options.paths) or ["."],
                overrides,
                options.config_file,
                bool(options.force_exclude),
                int(jobs),
                options.report_format,
                tuple(options.libraries or ()),
                options.fail_under,
                _REPORT_TO.get() or sys.stdout,
                None if options.no_cache else Cache(__version__),
            )
    except ConfigError as error:
        _err(f"error: {error}")
        return EXIT_ERROR
    except BrokenPipeError:
        return _quiet_exit()
    except Exception as error:  # pragma: no cover - last line of defence
        return _internal_error(error, options.debug, advise=False)
