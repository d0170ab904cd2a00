"""gpulint inside another linter (the flake8 and pylint plugins): what it reports for one file.

The host tool finds the files and reads them; gpulint adds exactly what `gpulint check`
reports for the same file under that file's own `[tool.gpulint]` configuration (`select`,
`ignore`, `per-file-ignores`, and `exclude`, which is honoured as `--force-exclude` does),
with gpulint's `# noqa` applied. The host's own selection and suppression apply on top.

Syntax errors are the host's: flake8 (E999) and pylint (E0001) report them in their own
terms and never hand an unparsable file to a plugin, so `syntax-error` is not reported here.
"""

from __future__ import annotations

from pathlib import Path

from .config import ConfigError, ConfigResolver, Overrides
from .diagnostic import Diagnostic
from .engine import SYNTAX_ERROR_CODE
from .files import existing_file
from .pipeline import check
from .registry import Rule, all_rules
from .source import Source

#: Codes the host tools report themselves.
HOST_REPORTED = frozenset({SYNTAX_ERROR_CODE})


def hosted_rules() -> tuple[type[Rule], ...]:
    """Every rule a plugin can report (the registry, less what the host reports itself)."""
    return tuple(rule for rule in all_rules() if rule.code not in HOST_REPORTED)


def findings(text: str, filename: str) -> tuple[list[Diagnostic], str | None]:
    """What `gpulint check` reports for `filename` whose source is `text` (sorted by
    position), and why gpulint could not check the file, if it could not: a broken
    configuration, or an internal error (which `gpulint check` reports as `error:` and which
    `lint_source` leaves out, hence the pipeline's `check` here).

    Nothing is kept between calls, so a long-lived host (or its worker processes) sees edits."""
    path = Path(filename)
    try:
        config = ConfigResolver(Overrides()).for_path(path)
    except ConfigError as error:
        return [], f"configuration error: {error}"
    if config.is_excluded(path):
        return [], None
    rules = tuple(rule for rule in config.rules_for(path) if rule.code not in HOST_REPORTED)
    if not rules:
        return [], None
    analysis = check(Source.from_text(text), rules, filename, fixes=False, path=existing_file(filename))
    return analysis.diagnostics, analysis.error
