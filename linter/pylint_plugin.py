"""The pylint plugin: `pylint --load-plugins=gpulint.pylint_plugin` reports gpulint's findings.

Every rule in the registry becomes a pylint message whose symbol is the rule's name (so
`# pylint: disable=iterrows-loop` works) and whose id is derived from the rule's code in
the range pylint reserves for external checkers (checker ids 51-99): `GPU` + three digits
becomes `W9` (`E9` for an error-level rule) + the same digits, so GPU102 is W9102 and the
hundreds digit picks the checker id (GPU1xx → 91, GPU5xx → 95). pylint wants one checker
per checker id, so each code family gets a checker named `gpulint` (`--disable=gpulint`
silences them all); the file is linted once and each checker emits its family's findings.
Syntax errors are pylint's own (E0001 `syntax-error`), so GPU001 has no message here.

The findings are what `gpulint check` reports for the file (see `gpulint.hosted`); pylint's
own enable/disable then applies on top. Columns are 0-based, as pylint prints them. A file
gpulint could not check (a broken `[tool.gpulint]` table, an internal error) gets one
`gpulint-not-checked` (E9000) message on line 1 saying why.
`pylint --help-msg=iterrows-loop` shows the rule's documentation.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pylint.checkers import BaseRawFileChecker

from .diagnostic import Diagnostic
from .docs import doc_sections
from .hosted import findings, hosted_rules
from .registry import Rule
from .source import Source, SourceError

if TYPE_CHECKING:
    from astroid import nodes
    from pylint.lint import PyLinter

CHECKER_NAME = "gpulint"
NOT_CHECKED_ID = "E9000"
NOT_CHECKED_SYMBOL = "gpulint-not-checked"
_CATEGORY = {"warning": "W", "error": "E"}


def message_id(rule: type[Rule]) -> str:
    """The pylint message id of a rule: GPU102 -> W9102."""
    return f"{_CATEGORY.get(rule.level, 'W')}9{rule.code[3:]}"


def describe(rule: type[Rule]) -> str:
    """The rule's documentation as pylint shows it for `--help-msg` (one paragraph: pylint
    joins the description's whitespace)."""
    sections = doc_sections(rule)
    parts = [sections.get("What it does", rule.message), sections.get("Why is this bad?", "")]
    if sections.get("Fix safety"):
        parts.append(f"Fix safety: {sections['Fix safety']}")
    parts.append(
        f"gpulint code {rule.code}; `gpulint rule {rule.code}` shows an example and its rewrite; docs: {rule.url()}"
    )
    return " ".join(part for part in parts if part)


class _FileFindings:
    """Lints each module once for all the family checkers (pylint runs them one after the
    other on the same module)."""

    def __init__(self) -> None:
        self._module: Any = None
        self._result: tuple[list[Diagnostic], str | None] = ([], None)

    def of(self, module: nodes.Module) -> tuple[list[Diagnostic], str | None]:
        """The module's findings, and why gpulint could not check it (if it could not)."""
        if module is not self._module:
            self._module, self._result = module, self._lint(module)
        return self._result

    @staticmethod
    def _lint(module: nodes.Module) -> tuple[list[Diagnostic], str | None]:
        with module.stream() as stream:
            data = stream.read()
        try:
            text = Source.from_bytes(data).text
        except SourceError as error:  # pylint decoded it, so this should not happen
            return [], str(error)
        return findings(text, module.file or module.name)


class GpulintFamilyChecker(BaseRawFileChecker):
    """Emits the findings of one code family (one pylint checker id)."""

    name = CHECKER_NAME

    def __init__(
        self, linter: PyLinter, rules: list[type[Rule]], shared: _FileFindings, reports_problems: bool = False
    ) -> None:
        # Message definitions are per instance: the family's rules, from the registry.
        self.msgs = {message_id(rule): ("%s", rule.name, describe(rule)) for rule in rules}
        if reports_problems:
            self.msgs[NOT_CHECKED_ID] = (
                "gpulint could not check this file: %s",
                NOT_CHECKED_SYMBOL,
                "gpulint checked nothing in this file: the [tool.gpulint] table governing it cannot be "
                "used, or gpulint failed on it (the message says which).",
            )
        self._symbols = {rule.code: rule.name for rule in rules}
        self._shared = shared
        self._reports_problems = reports_problems
        super().__init__(linter)

    def process_module(self, node: nodes.Module) -> None:
        diagnostics, problem = self._shared.of(node)
        if problem is not None and self._reports_problems:
            self.add_message(NOT_CHECKED_SYMBOL, line=1, col_offset=0, args=(problem,))
        for diagnostic in diagnostics:
            symbol = self._symbols.get(diagnostic.code)
            if symbol is not None:
                self.add_message(
                    symbol,
                    line=diagnostic.start.line,
                    col_offset=diagnostic.start.col,
                    end_lineno=diagnostic.end.line,
                    end_col_offset=diagnostic.end.col,
                    args=(diagnostic.message,),
                )


def register(linter: PyLinter) -> None:
    """pylint's plugin hook: one checker per code family, all sharing one lint per file."""
    families: dict[str, list[type[Rule]]] = {"0": []}  # family 0 also reports files not checked
    for rule in hosted_rules():
        families.setdefault(rule.code[3], []).append(rule)
    shared = _FileFindings()
    for family, rules in sorted(families.items()):
        linter.register_checker(GpulintFamilyChecker(linter, rules, shared, reports_problems=family == "0"))
