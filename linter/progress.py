"""A progress bar on standard error while a long run works: files done of all, findings so far.

Shown only on a terminal, only once a run has taken `DELAY` seconds (a short run prints
nothing extra), never with `--quiet` or with JSON/SARIF on standard output. Lines the run
prints meanwhile go through `echo`, which takes the bar away while they are written.
"""

from __future__ import annotations

import os
import sys
import time
from typing import IO, Any
from collections.abc import Iterable

#: Seconds before the bar appears.
DELAY = 1.0


def is_terminal(stream: IO[Any]) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError, OSError):
        return False


def wanted(stream: IO[Any], quiet: bool, machine_output_on_stdout: bool) -> bool:
    """Whether a run should show a bar on `stream` (standard error)."""
    return not quiet and not machine_output_on_stdout and is_terminal(stream) and os.environ.get("TERM") != "dumb"


class Progress:
    """Counts finished files; draws the bar when `enabled`."""

    def __init__(self, total: int, enabled: bool, stream: IO[Any] | None = None, delay: float | None = None) -> None:
        self.findings = 0
        self._bar = None
        self._shown_from = time.monotonic() + (DELAY if delay is None else delay)
        if enabled and total:
            from tqdm import tqdm

            # No monitor thread: worker processes are forked from this one, which needs it to
            # have no other thread.
            tqdm.monitor_interval = 0
            self._bar = tqdm(
                total=total,
                file=stream or sys.stderr,
                delay=DELAY if delay is None else delay,
                unit="file",
                leave=False,
                dynamic_ncols=True,
                bar_format="{l_bar}{bar}| {n_fmt}/{total_fmt} files{postfix} [{elapsed}<{remaining}]",
            )
            self._bar.set_postfix_str("0 findings", refresh=False)

    def advance(self, findings: int) -> None:
        """One more file done, with `findings` findings."""
        self.findings += findings
        if self._bar is not None:
            self._bar.set_postfix_str(f"{self.findings} finding{'' if self.findings == 1 else 's'}", refresh=False)
            self._bar.update(1)

    def echo(self, lines: Iterable[str], file: IO[Any], newline: bool = True) -> None:
        """Print `lines` to `file` (the bar, if shown, is redrawn below them)."""
        lines = list(lines)
        if not lines:
            return
        if self._bar is None or time.monotonic() < self._shown_from:  # no bar drawn to take away
            write_lines(lines, file, newline)
            return
        with self._bar.external_write_mode(file=file):
            write_lines(lines, file, newline)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def write_lines(lines: Iterable[str], file: IO[Any], newline: bool = True) -> None:
    """Write `lines` to `file`, each ended by a newline unless `newline` is false, and flush
    them: what goes to standard output and standard error shows in the order it was written."""
    end = "\n" if newline else ""
    file.write("".join(f"{line}{end}" for line in lines))
    file.flush()
