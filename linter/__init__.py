"""gpulint: a linter for hardware-hostile idioms in data-science Python.

Public API (what every front-end uses): `lint_source`, `fix_text`, `lint_paths`,
`all_rules`, `rule_by_key`, and the `Diagnostic` shape.
"""

__version__ = "0.1.0"

from .diagnostic import Applicability, Diagnostic, Edit, Fix, Position  # noqa: E402
from .registry import Example, Facts, Rule, all_rules, rule_by_key  # noqa: E402
from .runner import FileResult, fix_text, lint_paths, lint_source  # noqa: E402

__all__ = [
    "Applicability",
    "Diagnostic",
    "Edit",
    "Example",
    "Facts",
    "FileResult",
    "Fix",
    "Position",
    "Rule",
    "__version__",
    "all_rules",
    "fix_text",
    "lint_paths",
    "lint_source",
    "rule_by_key",
]
