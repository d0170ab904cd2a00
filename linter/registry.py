"""What a rule is, and the registry that collects rules without a central list.

A rule is a subclass of `Rule` in a module under `gpulint.rules.<family>`. Defining the
class registers it; `all_rules()` imports every module under `gpulint.rules` once. A
rule's fixer, if it has one, lives in `gpulint.fixers.<same module stem>`.
"""

from __future__ import annotations

import ast
import enum
import importlib
import pkgutil
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Callable, ClassVar

if TYPE_CHECKING:
    from .rule_api import RuleContext
    from .fixing import FixContext
    from .diagnostic import Diagnostic, Fix

#: The docs site (built from `mkdocs.yml`), and the one pattern every rule URL follows, in
#: findings, JSON, SARIF, pylint's help and the language server. A rule's page is built at
#: the path of its URL (`gpulint.docs.site_path`), so changing the pattern moves the pages.
DOCS_HOME = "https://gpulint.dev/"
DOCS_URL = DOCS_HOME + "rules/{name}/"
CODE_PATTERN = re.compile(r"^GPU\d{3}$")
NAME_PATTERN = re.compile(r"^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$")
DOC_SECTIONS = ("What it does", "Why is this bad?", "Fix safety")


class FixAvailability(enum.Enum):
    """The best a rule's fixer can offer (a fixer may still decline an occurrence)."""

    NONE = "none"
    DISPLAY = "display-only"
    UNSAFE = "unsafe"
    SAFE = "safe"


@dataclass(frozen=True)
class Example:
    """A piece of code a rule must flag (with `fixed`, its expected rewrite) or leave alone.

    `setup` builds the example's inputs for the execution tests and benchmarks (it may use
    `pd`, `np`, `rng` and the size `N`); `call` is the expression whose value is compared
    before and after the fix. `new_columns_when_empty` marks an unsafe fix whose rewrite
    creates a column even on a frame with no rows, where the original loop never ran (the
    rule's "Fix safety" says so); the tests check that this is the only difference.
    `frame_when_empty` marks an unsafe fix whose original returns an empty DataFrame on a
    frame with no rows where the rewrite returns an empty Series with the same index (pandas'
    `apply(axis=1)` probes its function with a row of NaN and, when that call fails, returns
    an empty copy of the frame; the rule's "Fix safety" says so); the tests check that this
    is the only difference.
    `requires` names the modules beyond pandas and NumPy the example runs with (torch,
    sklearn, dask...): the execution tests skip cleanly where one is not installed.
    `idiom` is the documented rewrite of a flagged example whose rule cannot apply one
    (display-only or explanation-only rules): the docs show it as "Use instead", the tests
    execute it against `source` like a fix, and the benchmark harness times it.
    `intended` marks a fix that changes behaviour on purpose (a chained assignment whose
    write pandas' copy-on-write discards, made to take effect): an expression, evaluated
    after `setup` alone, computing what the flagged code means to compute. The tests compare
    the fixed code's `call` with it instead of with the original's, and check that the
    original's result differs from it.
    """

    source: str
    fixed: str | None = None
    idiom: str | None = None
    requires: tuple[str, ...] = ()
    setup: str = ""
    call: str | None = None
    new_columns_when_empty: bool = False
    frame_when_empty: bool = False
    intended: str | None = None

    @property
    def runnable(self) -> bool:
        return self.call is not None

    @property
    def rewrite(self) -> str | None:
        """The code that replaces `source`: the fixer's output, else the documented idiom."""
        return self.fixed if self.fixed is not None else self.idiom


class Rule:
    code: ClassVar[str]
    name: ClassVar[str]
    #: One-line message shown for every finding; `check` may pass a more specific one.
    message: ClassVar[str]
    #: The `ast` node types `check` wants to see.
    nodes: ClassVar[tuple[type[ast.AST], ...]]
    fix: ClassVar[FixAvailability] = FixAvailability.NONE
    flagged: ClassVar[tuple[Example, ...]] = ()
    ok: ClassVar[tuple[Example, ...]] = ()
    #: How serious a finding is for tools that grade them (SARIF, editors): "warning" for
    #: the hardware-hostile idioms, "error" for a file that cannot be analysed at all.
    level: ClassVar[str] = "warning"
    #: Extra byte strings that make a file worth analysing even when it imports no
    #: data library (e.g. b"iterrows", which is evidence on its own).
    triggers: ClassVar[tuple[bytes, ...]] = ()

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        if "code" in cls.__dict__:
            _register(cls)

    def check(self, node: ast.AST, ctx: "RuleContext") -> None:  # pragma: no cover - interface
        raise NotImplementedError

    # -- derived facts -----------------------------------------------------
    @classmethod
    def url(cls) -> str:
        return DOCS_URL.format(name=cls.name, code=cls.code)

    @classmethod
    def stem(cls) -> str:
        return cls.__module__.rsplit(".", 1)[-1]

    @classmethod
    def family(cls) -> str:
        parts = cls.__module__.split(".")
        return parts[-2] if len(parts) >= 4 else ""

    @classmethod
    def fixer(cls) -> "Callable[[Diagnostic, FixContext], Fix | None] | None":
        if cls.fix is FixAvailability.NONE:
            return None
        try:
            module = importlib.import_module(f"gpulint.fixers.{cls.stem()}")
        except ModuleNotFoundError:
            return None
        return getattr(module, "fix", None)

    @classmethod
    def doc_sections(cls) -> dict[str, str]:
        """The rule docstring split into its `## Section` parts."""
        return split_sections(cls.__doc__ or "")


_REGISTRY: dict[str, type[Rule]] = {}


def _register(rule: type[Rule]) -> None:
    for attribute in ("name", "message", "nodes"):
        if not hasattr(rule, attribute):
            raise TypeError(f"rule {rule.__qualname__} lacks `{attribute}`")
    if not CODE_PATTERN.match(rule.code):
        raise TypeError(f"rule code {rule.code!r} must look like GPU123")
    if not NAME_PATTERN.match(rule.name):
        raise TypeError(f"rule name {rule.name!r} must be kebab-case")
    existing = _REGISTRY.get(rule.code)
    if existing is not None and existing.__qualname__ != rule.__qualname__:
        raise TypeError(f"rule code {rule.code} used twice: {existing.__qualname__}, {rule.__qualname__}")
    _REGISTRY[rule.code] = rule


@lru_cache(maxsize=1)
def all_rules() -> tuple[type[Rule], ...]:
    """Every registered rule, sorted by code (imports the rule modules once)."""
    from . import rules as package

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


_SECTION = re.compile(r"^##\s+(.+?)\s*$", re.MULTILINE)


def split_sections(doc: str) -> dict[str, str]:
    import inspect

    text = inspect.cleandoc(doc)
    parts = _SECTION.split(text)
    sections = {"": parts[0].strip()}
    for title, body in zip(parts[1::2], parts[2::2]):
        sections[title] = body.strip()
    return sections
