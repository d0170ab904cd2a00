"""The rule author's API: what a rule declares (`Rule`, `Example`, `Applicability`) and
what it sees while the engine walks (`RuleContext`). Rules import from here only; what is
not here is the engine's business and may change.
"""

from __future__ import annotations

import ast
import enum
import functools
import importlib
import importlib.util
import re
from typing import TYPE_CHECKING, ClassVar, NamedTuple
from collections.abc import Iterator

from . import accelerate_api
from .callers import NO_CALLERS, Callers
from .astutil import assigned_value, mentions, paired_value, value_bound_to
from .diagnostic import Applicability, Diagnostic, Facts, Position, Record
from .evidence import TypeEnv
from .loop_effects import LoopEffects
from .project import Exported
from .semantic import SemanticIndex
from .source import Source
from .values import Kind, Ty


if TYPE_CHECKING:
    from .fixing import Planner

__all__ = [
    "Applicability",
    "Example",
    "Facts",
    "Kind",
    "LoopEffects",
    "Rule",
    "RuleContext",
    "Tier",
    "Ty",
    "assigned_value",
]


#: The docs site (built from `mkdocs.yml`), and the one pattern every rule URL follows, in
#: findings, JSON, SARIF, pylint's help and the language server. A rule's page is built at
#: the path of its URL (`gpulint.docs.site_path`), so changing the pattern moves the pages.
DOCS_HOME = "https://gpulint.dev/"
#: What a memo holds for a question not asked yet (None is an answer).
_UNASKED = object()
DOCS_URL = DOCS_HOME + "rules/{name}/"
CODE_PATTERN = re.compile(r"^GPU\d{3}$")
NAME_PATTERN = re.compile(r"^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$")
DOC_SECTIONS = ("What it does", "Why is this bad?", "Fix safety")
#: The sections a rule's docstring may add: the evidence it goes by (the constructors,
#: readers, annotations that make a value what the rule needs), a device rule's "On a CPU",
#: and an "Example"/"Use instead" of its own instead of its first flagged example. What a
#: rule leaves alone ("Not flagged") is never written: it is made from its near-misses.
OPTIONAL_SECTIONS = ("Evidence", "Example", "Use instead", "On a CPU")
#: The docs' list of what a rule leaves alone, generated from its `ok` examples' reasons.
NOT_FLAGGED = "Not flagged"


class Tier(str, enum.Enum):
    """Which selections run a rule, as ruff's rule stability does.

    - `DEFAULT`: its findings on real code are useful (the real-code check: hand-labelled
      findings on the pinned repositories, `benchmarks/realcode/labels`, and the ecosystem
      report). It runs when nothing is selected, and with any selector that matches it.
    - `PREVIEW`: still being tuned (too many of its real-code findings are not useful yet).
      It runs only in preview mode (`--preview`, `preview = true`), then with the default
      selection and any selector that matches it; without preview mode even its exact
      code selects nothing (with a warning).
    - `OPT_IN`: useful only where the user says so. It runs only when selected by its exact
      code or name, or by `ALL`; a prefix (`GPU4`) and the default selection leave it out.
    """

    DEFAULT = "default"
    PREVIEW = "preview"
    OPT_IN = "opt-in"

    def __str__(self) -> str:
        return self.value


class Example(NamedTuple):
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
    `reason`, for a near-miss (an `ok` example), is what makes it not the idiom, in one
    short sentence: the docs list the reasons under "Not flagged".
    A NamedTuple (start-up: every rule loaded makes its examples).
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
    reason: str = ""

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
    #: For a rule that checks `ast.Call` nodes: the method names it can act on when the
    #: callee is an attribute (`x.item()`, `np.vectorize(...)`: a qualified name ends with
    #: the attribute, so aliases cannot hide one). The engine then skips the rule for calls
    #: of any other attribute; calls of a plain name or of anything else always reach it.
    #: None: every call.
    calls: ClassVar[frozenset[str] | None] = None
    #: The most permissive fix the rule offers (None: it explains, never suggests a rewrite).
    #: Each finding's fix is at most this; a fixer may still decline an occurrence.
    fix: ClassVar[Applicability | None] = None
    #: The display-only advice shown for a finding that gets no rewrite: the rule has no
    #: fixer, or its fixer declines the occurrence. A DISPLAY rule has this or a fixer.
    suggestion: ClassVar[str | None] = None
    flagged: ClassVar[tuple[Example, ...]] = ()
    ok: ClassVar[tuple[Example, ...]] = ()
    #: How serious a finding is for tools that grade them (SARIF, editors): "warning" for
    #: the hardware-hostile idioms, "error" for a file that cannot be analysed at all.
    level: ClassVar[str] = "warning"
    #: Extra byte strings that make a file worth analysing even when it imports no
    #: data library (e.g. b"iterrows", which is evidence on its own).
    triggers: ClassVar[tuple[bytes, ...]] = ()
    #: The words of which a file must contain one for the rule to find anything in it (the
    #: libraries its values come from: `evidence.DEVICE_TRIGGERS` for the transfer rules);
    #: () for any data library. A run imports and runs the rule only on such files
    #: (`Config.rules_for`).
    libraries: ClassVar[tuple[bytes, ...]] = ()
    #: Which selections run the rule (see `Tier`); a rule that states none starts in
    #: preview, as a new ruff rule does.
    tier: ClassVar[Tier] = Tier.PREVIEW
    #: Why the rule is in its tier: the real-code evidence (how many of its checked findings
    #: were useful) or what else decided it. Every rule of gpulint's rules package states it;
    #: the docs show it beside the tier.
    tier_reason: ClassVar[str] = ""
    #: The code that reported this rule's idiom before the rule had one of its own (GPU307
    #: and GPU308 were GPU301 findings): a `# noqa` naming that code, written before the
    #: split, still silences this rule's findings on its line.
    split_from: ClassVar[str | None] = None
    #: What the rule reports beyond its tier's findings in preview mode only ("preview
    #: behaviour", as ruff has it for stable rules): one sentence for the docs, or None.
    #: The real-code check judged the rule's findings useful without these ones yet.
    preview_behaviour: ClassVar[str | None] = None
    #: True in the class `in_preview_mode()` returns: `check` reports the preview behaviour too.
    preview_mode: ClassVar[bool] = False

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        if "code" in cls.__dict__:
            _register(cls)

    def check(self, node: ast.AST, ctx: RuleContext) -> None:  # pragma: no cover - interface
        raise NotImplementedError

    def finish(self, ctx: RuleContext) -> None:
        """Called once after the walk, for a rule whose findings depend on what comes later
        in the file (a loader reported only if some loop feeds a device). `ctx.report` still
        works; the walk-position attributes (`statement`, `loops`) are empty here. One rule
        instance sees one file: what `check` recorded on `self` is this file's."""

    # -- derived facts -----------------------------------------------------
    @classmethod
    def in_preview_mode(cls) -> type[Rule]:
        """The rule as preview mode runs it: itself, or, for a rule with a
        `preview_behaviour`, its subclass with `preview_mode` set (same code, docs and
        fixer; not registered)."""
        return _preview_variant(cls) if cls.preview_behaviour and not cls.preview_mode else cls  # type: ignore[arg-type]  # classes hash by identity

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
    def fix_label(cls) -> str:
        """How the rule's fix is named in its docs, `gpulint rule` and SARIF ("none" for none)."""
        return cls.fix.value if cls.fix is not None else "none"

    @classmethod
    def fixer(cls) -> Planner | None:
        """The `plan` function of the rule's fixer module (`gpulint.fixers.<stem>`), if any."""
        if cls.fix is None:
            return None
        try:
            module = importlib.import_module(f"gpulint.fixers.{cls.stem()}")
        except ModuleNotFoundError:
            return None
        planner: Planner | None = getattr(module, "plan", None)
        return planner

    @classmethod
    def doc_sections(cls) -> dict[str, str]:
        """The rule docstring split into its `## Section` parts."""
        return split_sections(cls.__doc__ or "")

    @classmethod
    def not_flagged(cls) -> list[str]:
        """What the rule leaves alone: the reasons of its near-misses that give one, in order
        (each once)."""
        return list(dict.fromkeys(example.reason for example in cls.ok if example.reason))


#: Every rule class defined so far, by code (the registry discovers and reads them).
REGISTERED: dict[str, type[Rule]] = {}


@functools.cache
def _preview_variant(rule: type[Rule]) -> type[Rule]:
    """`rule` with `preview_mode` set: made once, so that every preview run gets the same
    class. Its own `__module__` and docs are the rule's (the fixer is found by module)."""
    return type(
        rule.__name__,
        (rule,),
        {
            "preview_mode": True,
            "__module__": rule.__module__,
            "__doc__": rule.__doc__,
            "__qualname__": rule.__qualname__,
        },
    )


def _register(rule: type[Rule]) -> None:
    for attribute in ("name", "message", "nodes"):
        if not hasattr(rule, attribute):
            raise TypeError(f"rule {rule.__qualname__} lacks `{attribute}`")
    if not CODE_PATTERN.match(rule.code):
        raise TypeError(f"rule code {rule.code!r} must look like GPU123")
    if not NAME_PATTERN.match(rule.name):
        raise TypeError(f"rule name {rule.name!r} must be kebab-case")
    if not isinstance(rule.tier, Tier):
        raise TypeError(
            f"rule {rule.__qualname__}: `tier` must be a Tier ({', '.join(t.value for t in Tier)}), got {rule.tier!r}"
        )
    if not isinstance(rule.tier_reason, str):
        raise TypeError(f"rule {rule.__qualname__}: `tier_reason` is a sentence, got {rule.tier_reason!r}")
    if not rule.tier_reason and rule.__module__.startswith(f"{__package__}.rules."):
        raise TypeError(f"rule {rule.__qualname__}: say why it is {rule.tier.value} in `tier_reason`")
    if rule.fix is not None and not isinstance(rule.fix, Applicability):
        raise TypeError(
            f"rule {rule.__qualname__}: `fix` is an Applicability "
            f"({', '.join(a.name for a in Applicability)}) or None, got {rule.fix!r}"
        )
    if rule.fix is Applicability.DISPLAY and not rule.suggestion and not _has_fixer_module(rule):
        raise TypeError(
            f"rule {rule.__qualname__} offers a display-only fix: give it a `suggestion` "
            f"(or a fixer, gpulint.fixers.{rule.stem()})"
        )
    if rule.calls is not None and not (isinstance(rule.calls, frozenset) and ast.Call in rule.nodes):
        raise TypeError(
            f"rule {rule.__qualname__}: `calls` is a frozenset of method names, for a rule of ast.Call nodes"
        )
    existing = REGISTERED.get(rule.code)
    if existing is not None and existing.__qualname__ != rule.__qualname__:
        raise TypeError(f"rule code {rule.code} used twice: {existing.__qualname__}, {rule.__qualname__}")
    REGISTERED[rule.code] = rule


def _has_fixer_module(rule: type[Rule]) -> bool:
    """A module `gpulint.fixers.<rule's stem>` exists (found, not imported: a fixer may import
    its rule's module, which is being defined)."""
    try:
        return importlib.util.find_spec(f"gpulint.fixers.{rule.stem()}") is not None
    except ModuleNotFoundError:
        return False


_SECTION = re.compile(r"^##\s+(.+?)\s*$", re.MULTILINE)


def split_sections(doc: str) -> dict[str, str]:
    import inspect

    text = inspect.cleandoc(doc)
    parts = _SECTION.split(text)
    sections = {"": parts[0].strip()}
    for title, body in zip(parts[1::2], parts[2::2], strict=False):
        sections[title] = body.strip()
    return sections


class RuleContext:
    """What a rule sees while the engine walks: evidence, enclosing loops, statements and
    scopes, and the file's semantic index. Everything here holds at the node the rule is
    called on."""

    def __init__(self, source: Source, tree: ast.Module, index: SemanticIndex | None = None) -> None:
        self.source = source
        self.tree = tree
        self.env = TypeEnv()
        self._semantic = index
        #: Scope nodes (the module, functions, classes, lambdas) enclosing the current node,
        #: innermost last.
        self.scopes: list[ast.AST] = [tree]
        #: Loops (For/AsyncFor/While nodes, or comprehension generators) enclosing the
        #: current node within the current function; reset inside nested defs/lambdas.
        self.loops: list[ast.AST] = []
        #: Statements enclosing the current node, innermost last.
        self.statements: list[ast.stmt] = []
        #: Statement lists (bodies) enclosing the current node, parallel to `statements`.
        self.blocks: list[list[ast.stmt]] = []
        self.diagnostics: list[Diagnostic] = []
        self.records: list[Record] = []
        self._rule: type[Rule] | None = None
        #: While the rules look at one node, the types and names they ask for: every rule
        #: checking a call asks for its callee's, and nothing changes until the walk moves on.
        #: Keyed by `id(node)` for a type, `-id(node)` for a qualified name.
        self._answers: dict[int, object] | None = None
        #: What the project files importing this one do with its functions (`callers`).
        self.callers: Callers = NO_CALLERS

    # -- evidence helpers ----------------------------------------------------------
    def type_of(self, node: ast.expr) -> Ty | None:
        answers = self._answers
        if answers is None:
            return self.env.type_of(node)
        key = id(node)
        found = answers.get(key, _UNASKED)
        if found is _UNASKED:
            found = answers[key] = self.env.type_of(node)
        return found  # type: ignore[return-value]

    def qualname(self, node: ast.expr) -> str | None:
        answers = self._answers
        if answers is None:
            return self.env.qualname(node)
        key = -id(node)
        found = answers.get(key, _UNASKED)
        if found is _UNASKED:
            found = answers[key] = self.env.qualname(node)
        return found  # type: ignore[return-value]

    def derives_a_trainer(self, owner: ast.ClassDef) -> bool:
        """`owner` derives from a transformers or trl `Trainer` (`TypeEnv.class_type`), worked
        out once per class: its methods ask it of every attribute of `self` they read."""
        return self.semantic.remember(
            "derives a trainer", owner, lambda: self.env.class_type(owner).lib == accelerate_api.TRAINER
        )

    def project_function(self, call: ast.Call) -> Exported | None:
        """What a project module the file imports says of the function `call` calls
        (`utils.train(net, loader)`), when it is one of theirs (`gpulint.project`)."""
        name = self.qualname(call.func)
        exported = self.env.project.get(name) if name is not None else None
        return exported if exported is not None and exported.function else None

    @property
    def statement(self) -> ast.stmt | None:
        return self.statements[-1] if self.statements else None

    # -- scopes and bindings -------------------------------------------------------
    @property
    def semantic(self) -> SemanticIndex:
        """File-wide facts: the file's functions and classes, bindings per scope, call
        sites, usage evidence, parents."""
        if self._semantic is None:
            self._semantic = SemanticIndex(self.tree)
        return self._semantic

    @property
    def enclosing_function(self) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        """The innermost `def` around the current node (lambdas and classes skipped)."""
        for scope in reversed(self.scopes):
            if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
                return scope
        return None

    @property
    def scope(self) -> ast.AST:
        """The innermost function (or the module) whose local names the current node sees:
        the body to search for a name's bindings."""
        return self.enclosing_function or self.tree

    def bindings(self, name: str, scope: ast.AST | None = None) -> list[ast.AST]:
        """The nodes that bind `name` in `scope` (default: `self.scope`), in source order:
        assignment and loop statements, imports, defs, parameters (`ast.arg`)."""
        facts = self.semantic.scope(scope if scope is not None else self.scope)
        return facts.bindings.get(name, []) if facts is not None else []

    def seen_elsewhere(self, name: str, scope: ast.AST | None = None) -> bool:
        """`name` is declared `global`/`nonlocal` in `scope`, or mentioned by a function,
        lambda or class nested in it: code the walk does not see at this point may read or
        rebind it."""
        facts = self.semantic.scope(scope if scope is not None else self.scope)
        return facts is not None and (name in facts.nested_names or name in facts.declared)

    def function_named(self, name: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        """The one `def` of the file that `name` refers to here (None when it names no def,
        several, or is also bound some other way in the scope that binds it)."""
        found = self.semantic.resolve(self.scopes, name)
        functions = found[0] if found else []
        return functions[0].node if len(functions) == 1 else None

    def parent(self, node: ast.AST) -> ast.AST | None:
        return self.semantic.parent(node)

    # -- which binding reaches the current statement ------------------------------
    @property
    def statement_scope(self) -> ast.AST:
        """The scope whose code the current statement is: the innermost function, class
        body or module (a lambda holds no statements). Its bindings are the ones the
        straight-line questions below look at."""
        for scope in reversed(self.scopes):
            if not isinstance(scope, ast.Lambda):
                return scope
        return self.tree

    def binds(self, node: ast.AST, name: str) -> bool:
        """`node`, a statement or expression of the current statement's scope, binds `name`
        there (as an assignment, loop or `with` target, walrus, import, def, class, `except
        ... as`, match capture or `del`); what nested scopes and comprehensions bind is theirs."""
        return self.semantic.binds(self.statement_scope, name, node)

    def position(self) -> tuple[list[ast.stmt], int] | None:
        """The current statement's block and its index there."""
        if not self.statements:
            return None
        block, statement = self.blocks[-1], self.statements[-1]
        index = _index_in(block, statement)
        return None if index is None else (block, index)

    def last_assignment(
        self, block: list[ast.stmt], before: int, name: str, *, paired: bool = False
    ) -> tuple[int, ast.expr] | None:
        """Within one block of the current statement's scope: the index and value of the
        last `name = value` (or `name: T = value`) among its first `before` statements, when
        no statement after it there binds `name` any other way and its value does not either.
        With `paired`, `a, name = x, y` gives `y` too (check the statement before rewriting it)."""
        found = self.semantic.last_binding(self.statement_scope, name, block, before)
        if found is None:
            return None
        index, node = found
        if node is not block[index]:
            return None
        value = assigned_value(node, name)
        if value is None and paired:
            value = paired_value(node, name)
        return None if value is None else (index, value)

    def reaching_binding(self, name: str) -> ast.stmt | None:
        """The statement whose binding of `name` holds at the current statement on every
        path through the current scope: the last earlier statement of an enclosing block
        that binds it, when that statement binds it itself (an assignment of any form, an
        import, a def, a `for` or `with` whose target it is: check which), or the `for` loop
        whose body holds the current statement and whose target binds it (each iteration
        starts by binding it; `statement in ctx.statements` tells it from an earlier loop).

        None when nothing earlier binds it in this scope (a parameter, a global); when the
        last statement that does binds it only somewhere inside (in a branch or a loop body,
        in a walrus of its value); and when an enclosing compound statement binds it where
        it may or may not have run first (the other branch, later in a loop, a `with`, a
        `for`'s `else:`). Comprehension variables and what nested scopes bind are theirs."""
        index, scope = self.semantic, self.statement_scope
        statements, blocks = self.statements, self.blocks
        for depth in range(len(statements) - 1, -1, -1):
            block = blocks[depth]
            position = _index_in(block, statements[depth])
            if position is None:
                return None
            found = index.last_binding(scope, name, block, position)
            if found is not None:
                at, node = found
                return block[at] if node is block[at] else None
            if depth == 0:
                return None
            outer = statements[depth - 1]
            if isinstance(outer, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                return None
            if isinstance(outer, (ast.For, ast.AsyncFor)) and block is outer.body and _binds_target(outer.target, name):
                return outer
            if index.binds(scope, name, outer):
                return None
        return None

    def reaching_assignment(self, name: str) -> ast.Assign | ast.AnnAssign | None:
        """The assignment statement that last bound `name` before the current statement, on
        every path (see `reaching_binding`), when it binds it as a whole target or as one
        element of an unpacked tuple (`a, b = split(...)`) and nothing in its value binds it
        too; None otherwise."""
        statement = self.reaching_binding(name)
        targets: list[ast.expr]
        if isinstance(statement, ast.AnnAssign):
            targets = [statement.target] if statement.value is not None else []
        elif isinstance(statement, ast.Assign):
            targets = statement.targets
        else:
            return None
        for target in targets:
            elements = target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]
            if any(isinstance(element, ast.Name) and element.id == name for element in elements):
                return statement
        return None

    def statements_before(self) -> Iterator[tuple[list[ast.stmt], int, ast.stmt | None]]:
        """The statements that ran before the current one in its scope, latest first, as
        (block, index, None), through the enclosing blocks; on leaving a compound statement,
        (its block, -1, that statement), for the caller to judge what it may have bound."""
        for depth in range(len(self.statements) - 1, -1, -1):
            block = self.blocks[depth]
            index = _index_in(block, self.statements[depth])
            if index is None:
                return
            for earlier in range(index - 1, -1, -1):
                yield block, earlier, None
            if depth == 0:
                return
            outer = self.statements[depth - 1]
            if isinstance(outer, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                return
            yield block, -1, outer

    def loop_effects(self, loop: ast.stmt) -> LoopEffects:
        """What a `for`/`while` loop reads, binds, carries to its next iteration and grows."""
        return self.semantic.loop_effects(loop)

    def segment(self, node: ast.AST) -> str:
        return self.source.segment(node)

    def innermost_loop_level(self) -> int | None:
        """Where the innermost loop stands in `statements` (the enclosing statements, outermost
        first); None outside a loop, or in a comprehension's (which is no statement)."""
        if not self.loops:
            return None
        innermost = self.loops[-1]
        return next(
            (level for level in range(len(self.statements) - 1, -1, -1) if self.statements[level] is innermost), None
        )

    def earlier_in_iteration(self) -> Iterator[ast.stmt]:
        """The statements that run before the current one in the same iteration of the
        innermost loop, in order: in each enclosing block from the loop's body inwards, those
        before the statement that holds the current one."""
        level = self.innermost_loop_level()
        if level is None:
            return
        for index in range(level + 1, len(self.statements)):
            for statement in self.blocks[index]:
                if statement is self.statements[index]:
                    break
                yield statement

    def rebound_each_iteration(self, name: str) -> bool:
        """`name` is bound afresh (from a value that does not read it) earlier in the same
        iteration, as in `x = start()` before `x = grow(x, piece)`: the loop then does not
        carry the value from one iteration to the next, so nothing accumulates."""
        return any(_binds_afresh(statement, name) for statement in self.earlier_in_iteration())

    # -- reporting -----------------------------------------------------------------
    def report(self, node: ast.AST, message: str | None = None, context: Facts | None = None) -> None:
        """Record a finding at `node`; `context` is what the rule's fixer needs of it."""
        rule = self._rule
        assert rule is not None
        if context is not None:
            _check_facts(rule, context)
        start, end = self._span(node)
        self.diagnostics.append(
            Diagnostic(
                code=rule.code,
                name=rule.name,
                message=message or rule.message,
                start=start,
                end=end,
                url=rule.url(),
                context=context,
            )
        )

    def record(self, node: ast.AST, payload: object) -> None:
        """Note `payload` at `node` for a collector (not a finding: `# noqa` leaves it)."""
        start, end = self._span(node)
        self.records.append(Record(start, end, payload))

    def _span(self, node: ast.AST) -> tuple[Position, Position]:
        start = Position(node.lineno, self.source.char_col(node.lineno, node.col_offset))  # type: ignore[attr-defined]
        end_line = getattr(node, "end_lineno", None) or node.lineno  # type: ignore[attr-defined]
        end_col = getattr(node, "end_col_offset", None)
        return start, Position(end_line, self.source.char_col(end_line, end_col) if end_col is not None else start.col)


def _check_facts(rule: type[Rule], facts: object) -> None:
    """A rule's facts are a `Facts` that decides no more than its declared `fix` allows."""
    if not isinstance(facts, Facts):
        raise TypeError(f"{rule.code} hands its fixer a {type(facts).__name__}: pass a Facts")
    if rule.fix is None or not facts.applicability.within(rule.fix):
        declared = rule.fix.value if rule.fix is not None else "no"
        raise ValueError(
            f"{rule.code} decided a {facts.applicability.value} fix, more than its declared {declared} fix"
        )


def _index_in(block: list[ast.stmt], statement: ast.stmt) -> int | None:
    try:
        return block.index(statement)  # AST nodes compare by identity
    except ValueError:
        return None


def _binds_target(target: ast.expr, name: str) -> bool:
    """A loop target binds `name` (`for name in`, `for i, name in`, `for (a, *name) in`)."""
    if isinstance(target, ast.Name):
        return target.id == name
    if isinstance(target, (ast.Tuple, ast.List)):
        return any(_binds_target(element, name) for element in target.elts)
    if isinstance(target, ast.Starred):
        return _binds_target(target.value, name)
    return False


def _binds_afresh(statement: ast.stmt, name: str) -> bool:
    value = value_bound_to(statement, name)
    return value is not None and not mentions(value, name)
