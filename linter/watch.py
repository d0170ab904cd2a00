"""`gpulint check --watch`: lint, then lint again whenever a file that can change the result
changes (a Python file, a stub, a notebook, a `pyproject.toml`), as `ruff check --watch`.

The watching is `watchfiles`' (the `watch` extra): native change notifications where the
system has them, batched (a burst of saves is one re-run), with version-control and cache
folders ignored. The screen is cleared before each run on a terminal. Ctrl-C ends the
watch with exit code 0.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any
from collections.abc import Callable, Iterable, Iterator, Sequence

#: What `--watch` needs and how to get it, for the error message when it is missing.
MISSING = (
    "--watch needs the `watchfiles` package: pip install 'watchfiles>=0.21' (or install gpulint with its `watch` extra)"
)

SUFFIXES = (".py", ".pyi", ".ipynb")
CONFIG_NAMES = ("pyproject.toml",)

Changes = Iterable[set[tuple[object, str]]]


def relevant(path: str) -> bool:
    """Whether a change to `path` can change what gpulint reports."""
    name = os.path.basename(path)
    return name.endswith(SUFFIXES) or name in CONFIG_NAMES


def available() -> bool:
    import importlib.util

    return importlib.util.find_spec("watchfiles") is not None


def file_changes(paths: Sequence[str]) -> Iterator[set[tuple[Any, str]]]:
    """Batches of (change, path) under `paths` from `watchfiles` (the change a
    `watchfiles.Change`), for relevant files only; it stops on Ctrl-C."""
    from watchfiles import DefaultFilter, watch

    class _Filter(DefaultFilter):
        def __call__(self, change: object, path: str) -> bool:
            return super().__call__(change, path) and relevant(path)  # type: ignore[arg-type]

    return watch(*paths, watch_filter=_Filter(), raise_interrupt=False)


def _say(line: str) -> None:
    print(line, flush=True)


def _clear() -> None:
    """Clear a terminal's screen and put the cursor top left; nothing when standard output is
    no terminal."""
    if sys.stdout.isatty():
        sys.stdout.write("\033[2J\033[1;1H")
        sys.stdout.flush()


def watch(
    run_once: Callable[[], object],
    changes: Changes,
    echo: Callable[[str], None] = _say,
    clear: Callable[[], None] = _clear,
) -> int:
    """Run `run_once`, then again after each batch of `changes` that holds a relevant
    file; the exit code (0) once the changes end or the user presses Ctrl-C. What it says
    goes to standard output (`echo`), which is cleared before each run on a terminal (`clear`)."""
    try:
        clear()
        echo("Starting linter in watch mode...")
        run_once()
        for batch in changes:
            if not any(relevant(str(path)) for _, path in batch):
                continue
            clear()
            echo("File change detected...")
            run_once()
    except KeyboardInterrupt:
        pass
    return 0


def watched_paths(paths: Sequence[str], config_file: Path | None) -> list[str]:
    """The paths to watch: those linted, and the configuration file named with `--config`."""
    return [*paths, *([str(config_file)] if config_file is not None else [])]
