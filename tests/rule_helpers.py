"""What the tests of single rules share: one rule's findings in a source, and a source
fixed the way `gpulint check --fix --unsafe-fixes` fixes it, checked to parse and to stay
the same when fixed again."""

from __future__ import annotations

import ast

from gpulint import Diagnostic, fix_text, lint_source
from gpulint.registry import all_rules


#: The rules of the one detector of copies from the device to the host in a loop, one per
#: idiom (a tensor copied, a number read, a running total fed): tests of which copies and
#: loops the detector sees accept any of them.
HOST_COPIES = frozenset({"GPU301", "GPU307", "GPU308"})


def lint_in_preview_mode(source: str) -> list[Diagnostic]:
    """Every rule's findings in `source`, each rule with its preview behaviour (what
    `--preview` adds to a rule's tier findings: GPU305's loaders read on one pass)."""
    return lint_source(source, rules=_in_preview_mode())


def fix_in_preview_mode(source: str, unsafe_fixes: bool = False) -> str:
    """`source` fixed by every rule with its preview behaviour."""
    return fix_text(source, rules=_in_preview_mode(), unsafe_fixes=unsafe_fixes)


def _in_preview_mode() -> list:
    return [rule.in_preview_mode() for rule in all_rules()]


def findings(source: str, code: str) -> list[Diagnostic]:
    return [d for d in lint_source(source) if d.code == code]


def only_finding(source: str, code: str) -> Diagnostic:
    found = findings(source, code)
    assert len(found) == 1, found
    return found[0]


def idempotent_fix(source: str, unsafe: bool = True) -> str:
    fixed = fix_text(source, unsafe_fixes=unsafe)
    ast.parse(fixed)
    assert fix_text(fixed, unsafe_fixes=unsafe) == fixed, "fixing twice must equal fixing once"
    return fixed
