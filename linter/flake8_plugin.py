"""The flake8 plugin: `flake8` reports gpulint's findings under the `GPU` prefix.

Registered as a `flake8.extension` entry point. For each file flake8 checks, the plugin
reports what `gpulint check` reports for it (see `gpulint.hosted`): the rules the file's
`[tool.gpulint]` table enables, minus its `exclude`d files. flake8's own selection
(`--select`, `--ignore`, `--extend-ignore`, `--per-file-ignores`) and its `# noqa` then
filter those findings like any plugin's, so a finding is shown when both allow it.

Columns are 0-based character offsets (flake8 adds 1 when it prints), so flake8 and
`gpulint check` print the same `line:column` for a finding. A file gpulint could not check
(a broken `[tool.gpulint]` table, an internal error) gets one `GPU000` finding on line 1
saying why, so the problem is visible without stopping flake8's other plugins. The plugin
keeps no state between files, so `flake8 --jobs N` gives the same result as one process.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from . import __version__
from .hosted import findings

#: Reported on line 1 of a file gpulint could not check, with the reason.
NOT_CHECKED_CODE = "GPU000"


class GpulintChecker:
    """flake8 makes one instance per file. `tree` is asked for because flake8 runs only
    plugins that take a tree or a line; gpulint parses the file's text itself."""

    name = "gpulint"
    version = __version__

    def __init__(self, tree: ast.AST, filename: str, lines: list[str]) -> None:
        self.filename = filename
        self.lines = lines

    def run(self) -> Iterator[tuple[int, int, str, type]]:
        diagnostics, problem = findings("".join(self.lines), self.filename)
        if problem is not None:
            yield 1, 0, f"{NOT_CHECKED_CODE} gpulint could not check this file: {problem}", type(self)
        for diagnostic in diagnostics:
            yield diagnostic.start.line, diagnostic.start.col, f"{diagnostic.code} {diagnostic.message}", type(self)
