"""The registry: every rule, collected without a central list, imported only when a run needs it.

A rule is a subclass of `gpulint.rule_api.Rule` in a module under `gpulint.rules.<family>`.
Defining the class registers it. A rule's fixer, if it has one, lives in
`gpulint.fixers.<same module stem>`. The rule author's names (`Rule`, `Example`,
`Applicability`, `Tier`, the docs URL) are defined in `gpulint.rule_api` and also
importable from here.

Importing every rule costs more than checking a small file, so a run chooses its rules from
the catalog (`rule_catalog`: each rule's code, name, tier, module and trigger words, written
from the classes by `python -m gpulint.registry`) and `load` imports only the modules of the
rules it runs. A rule class already imported is the truth over its catalog entry (its tier
may be changed at run time); `tests/test_registry.py` holds the two equal.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from functools import lru_cache
from typing import NamedTuple

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
from .rule_catalog import RULES as _CATALOG

_RULES_PACKAGE = f"{__package__}.rules"  # the rules/ folder, mapped by pyproject.toml


class RuleEntry(NamedTuple):
    """What choosing a rule needs to know of it, without importing it."""

    code: str
    name: str
    tier: Tier
    #: The rule's module, relative to `gpulint.rules` (`dataframe.iterrows_loop`).
    module: str
    #: Words that make a file worth walking beyond the data libraries' names (`Rule.triggers`).
    triggers: tuple[bytes, ...]
    #: Words of which a file must contain one for the rule to run on it (`Rule.libraries`).
    libraries: tuple[bytes, ...]
    split_from: str | None


def _entry(rule: type[Rule]) -> RuleEntry:
    module = rule.__module__.removeprefix(_RULES_PACKAGE + ".")
    return RuleEntry(rule.code, rule.name, rule.tier, module, rule.triggers, rule.libraries, rule.split_from)


def entries() -> tuple[RuleEntry, ...]:
    """Every rule by code: the catalog's entries, each replaced by its class's own when the
    class is imported, and the rules registered outside the catalog. Asked several times a
    file, so made once for each state of the registry (its rules and their tiers)."""
    return _entries(tuple((code, rule.tier) for code, rule in _REGISTRY.items()))


@lru_cache(maxsize=1)
def _entries(registered: tuple[tuple[str, Tier], ...]) -> tuple[RuleEntry, ...]:
    """`entries()` for the registry as `registered` describes it."""
    found = {
        code: RuleEntry(code, name, Tier(tier), module, triggers, libraries, former)
        for code, name, tier, module, triggers, libraries, former in _CATALOG
    }
    for code, rule in _REGISTRY.items():
        found[code] = _entry(rule)
    return tuple(found[code] for code in sorted(found))


def load(codes: Iterable[str]) -> tuple[type[Rule], ...]:
    """The rules of `codes`, sorted by code; their modules are imported once, when first
    asked for (a code neither catalogued nor registered is left out)."""
    modules = {entry[0]: entry[3] for entry in _CATALOG}
    wanted = sorted(set(codes))
    for code in wanted:
        if code not in _REGISTRY and code in modules:
            importlib.import_module(f"{_RULES_PACKAGE}.{modules[code]}")
    return tuple(_REGISTRY[code] for code in wanted if code in _REGISTRY)


@lru_cache(maxsize=1)
def _import_every_rule() -> None:
    import pkgutil

    package = importlib.import_module(_RULES_PACKAGE)
    for info in pkgutil.walk_packages(package.__path__, prefix=package.__name__ + "."):
        importlib.import_module(info.name)


def all_rules() -> tuple[type[Rule], ...]:
    """Every registered rule, sorted by code (imports every rule module, once)."""
    _import_every_rule()
    return tuple(_REGISTRY[code] for code in sorted(_REGISTRY))


def rule_by_key(key: str) -> type[Rule] | None:
    """Look a rule up by code (`GPU102`) or name (`iterrows-loop`)."""
    key = key.strip()
    for entry in entries():
        if entry.code == key.upper() or entry.name == key.lower():
            return load([entry.code])[0]
    return None


def catalog_text() -> str:
    """The source of `rule_catalog` for the rules as they are defined now (as `ruff format`
    writes it)."""
    _import_every_rule()
    rows = []
    for code in sorted(_REGISTRY):
        entry = _entry(_REGISTRY[code])
        if entry.module == _REGISTRY[code].__module__:
            continue  # defined outside the rules package (a test's probe)
        former = f'"{entry.split_from}"' if entry.split_from else "None"
        fields = [f'"{entry.code}"', f'"{entry.name}"', f'"{entry.tier.value}"', f'"{entry.module}"']
        fields += [_words(entry.triggers), _words(entry.libraries), former]
        rows.append("    (\n" + "".join(f"        {field},\n" for field in fields) + "    ),\n")
    return (
        '"""Every rule\'s code, name, tier, module, trigger and library words and former code, so\n'
        "that a run imports only the rules it needs (see `gpulint.registry`). Written from the rule\n"
        'classes by `python -m gpulint.docs README.md`; do not edit."""\n\n'
        "RULES: tuple[tuple[str, str, str, str, tuple[bytes, ...], tuple[bytes, ...], str | None], ...] = (\n"
        f"{''.join(rows)})\n"
    )


def _words(words: tuple[bytes, ...]) -> str:
    """A tuple of byte strings as `ruff format` writes it."""
    written = [f'b"{word.decode()}"' for word in words]
    return f"({written[0]},)" if len(written) == 1 else f"({', '.join(written)})"
