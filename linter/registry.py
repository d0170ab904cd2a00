"""The registry: every rule, collected without a central list.

A rule is a subclass of `gpulint.rule_api.Rule` in a module under `gpulint.rules.<family>`.
Defining the class registers it; `all_rules()` imports every module under `gpulint.rules`
once. A rule's fixer, if it has one, lives in `gpulint.fixers.<same module stem>`. The
rule author's names (`Rule`, `Example`, `Applicability`, `Tier`, the docs URL) are defined in
`gpulint.rule_api` and also importable from here.
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import lru_cache

from .rule_base import (  # noqa: F401  (re-exported: the registry's public names)
    CODE_PATTERN,
    DOC_SECTIONS,
    DOCS_HOME,
    DOCS_URL,
    NAME_PATTERN,
    REGISTERED as _REGISTRY,
    Applicability,
    Example,
    Facts,
    Rule,
    Tier,
    split_sections,
)


@lru_cache(maxsize=1)
def all_rules() -> tuple[type[Rule], ...]:
    """Every registered rule, sorted by code (imports the rule modules once)."""
    package = importlib.import_module(f"{__package__}.rules")  # the rules/ folder, mapped by pyproject.toml
    for info in pkgutil.walk_packages(package.__path__, prefix=package.__name__ + "."):
        importlib.import_module(info.name)
    return tuple(_REGISTRY[code] for code in sorted(_REGISTRY))


def rule_by_key(key: str) -> type[Rule] | None:
    """Look a rule up by code (`GPU102`) or name (`iterrows-loop`)."""
    key = key.strip()
    for rule in all_rules():
        if rule.code == key.upper() or rule.name == key.lower():
            return rule
    return None
