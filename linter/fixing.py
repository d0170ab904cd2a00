"""Fixes: planning and rendering them (the fixers' toolbox), attaching them to findings,
applying edits.

The loop that applies fixes until the source is stable is `pipeline.fix_source`.

A fixer plans on `ast` (`plan(diagnostic, ctx)`): a `Plan` with the fix's applicability,
message and renderer, or a `Decline` with its reason. The renderer writes the edits and
runs only when the run applies or shows them, so a check that prints findings for people
never imports libcst. Rendering uses libcst on the statements a fix rewrites only (parsed as
a small snippet inside an `if True:` wrapper so its indentation, comments and formatting
survive).
"""

from __future__ import annotations

import ast
import bisect
import io
import tokenize

from typing import TYPE_CHECKING, NamedTuple, Protocol
from collections.abc import Callable, Sequence

from .diagnostic import Applicability, Diagnostic, Edit, Facts, Fix, Position
from .semantic import SemanticIndex
from .source import Source

if TYPE_CHECKING:
    import libcst as cst

_WRAPPER = "if True:"


class Decline(NamedTuple):
    """A fixer's refusal to rewrite one finding, and why (`--show-fixes`, the fix audit):
    the finding keeps its rule's display-only suggestion."""

    reason: str


#: Writes a planned fix's edits (it may use libcst), or declines after all.
Renderer = Callable[[], "tuple[Edit, ...] | Decline"]


class Plan(NamedTuple):
    """What a fixer decided on `ast` for one finding: the fix's applicability and message,
    and how to write its edits (None: a suggestion with none; `declined`: why it is one,
    where the fixer's own suggestion stands in for a rewrite it declined)."""

    applicability: Applicability
    message: str
    render: Renderer | None = None
    declined: str | None = None


#: A fixer module's `plan` function.
Planner = Callable[[Diagnostic, "FixContext"], "Plan | Decline"]


def suggestion(message: str, declined: str | None = None) -> Plan:
    """A display-only plan: `message`, shown to the user, with no edits (`declined`: the
    reason, where it stands in for a rewrite the fixer declined)."""
    return Plan(Applicability.DISPLAY, message, declined=declined)


def ready(applicability: Applicability, message: str, edits: tuple[Edit, ...]) -> Plan:
    """A plan whose edits were cheap enough to write while planning (no libcst)."""
    return Plan(applicability, message, lambda: edits)


class FixContext:
    """Everything a fixer needs to turn one diagnostic into edits."""

    def __init__(self, source: Source, tree: ast.Module, index: SemanticIndex | None = None) -> None:
        self.source = source
        self.tree = tree
        self._semantic = index
        self._names: set[str] | None = None
        self._bound: frozenset[str] | None = None
        self._bindings: dict[str, list[tuple[str, ...]]] = {}
        self._starts: list[Position] | None = None
        self._imports: list[tuple[int, ast.Import | ast.ImportFrom]] | None = None
        self._comments: list[Position] | None = None
        self._untokenized = False
        #: Names handed out to the fixes built so far that will be applied, and to the
        #: fix being built; two fixes applied in one pass never share a new name.
        self._reserved: set[str] = set()
        self.begin_fix()

    @property
    def semantic(self) -> SemanticIndex:
        """The file's semantic index (the analysis' own when it built one)."""
        if self._semantic is None:
            self._semantic = SemanticIndex(self.tree)
        return self._semantic

    # -- reading ---------------------------------------------------------------------
    def segment(self, node: ast.AST) -> str:
        return self.source.segment(node)

    def start(self, node: ast.AST) -> Position:
        return Position(node.lineno, self.source.char_col(node.lineno, node.col_offset))  # type: ignore[attr-defined]

    def end(self, node: ast.AST) -> Position:
        line = node.end_lineno  # type: ignore[attr-defined]
        return Position(line, self.source.char_col(line, node.end_col_offset))  # type: ignore[attr-defined]

    def indent_of(self, statement: ast.stmt) -> str | None:
        """The statement's indentation, or None if something else precedes it on its line."""
        line = self.source.line(statement.lineno)
        indent = line[: len(line) - len(line.lstrip(" \t"))]
        return indent if self.source.char_col(statement.lineno, statement.col_offset) == len(indent) else None

    def owns_lines(self, first: ast.stmt, last: ast.stmt) -> bool:
        """True when the lines from `first` to `last` hold those statements and nothing else."""
        if self.indent_of(first) is None:
            return False
        tail = self.source.line(last.end_lineno)[self.end(last).col :].strip()  # type: ignore[arg-type]
        return tail == "" or tail.startswith("#")

    # -- names and imports -------------------------------------------------------------
    # A fix may reuse an import only where it provably runs before the rewritten code: a
    # module-level `import` earlier in the module body than the top-level statement that
    # holds the fix (the *anchor*), for a name that nothing in the file binds to anything
    # else. Otherwise the fix adds its own import, placed before the anchor.

    def begin_fix(self, at: Position | None = None) -> None:
        """Start building the fix of the finding at `at` (its anchor statement is the
        module-level statement holding `at`; None: the end of the module)."""
        self._current: set[str] = set()
        self._anchor = self._statement_at(at) if at is not None else len(self.tree.body)
        self._import_edits: list[Edit] = []
        self._asked_imports = False

    def introduced(self) -> frozenset[str]:
        return frozenset(self._current)

    def release(self, names: frozenset[str]) -> None:
        """Give back the names of a fix that will not be applied."""
        self._reserved -= names

    def earlier_than_anchor(self, fix: Fix) -> Position | None:
        """Where `fix` edits code before its anchor statement, when it also asked for an
        import (placed or reused for the anchor): the fix must be built again from there."""
        if not self._asked_imports or self._anchor >= len(self.tree.body):
            return None
        edits = [edit.start for edit in fix.edits if not any(edit is own for own in self._import_edits)]
        first = min(edits, default=None)
        return first if first is not None and first < self._statement_start(self._anchor) else None

    def _statement_start(self, index: int) -> Position:
        """Where module-level statement `index` begins (its first decorator included)."""
        if self._starts is None:
            self._starts = []
            for statement in self.tree.body:
                decorators = getattr(statement, "decorator_list", None)
                self._starts.append(
                    Position(min(d.lineno for d in decorators), 0) if decorators else self.start(statement)
                )
        return self._starts[index]

    def _statement_at(self, at: Position) -> int:
        """Index of the module-level statement holding `at` (0 before the first one)."""
        if not self.tree.body:
            return 0
        self._statement_start(0)
        assert self._starts is not None
        return max(bisect.bisect_right(self._starts, at) - 1, 0)

    def _scan_names(self) -> None:
        self._names, self._bindings = self.semantic.file_names()
        self._bound = frozenset(self._bindings)

    def bound_names(self) -> frozenset[str]:
        """Names the file binds anywhere (assignment, parameter, def, class, import);
        "*" when it has a star import."""
        if self._bound is None:
            self._scan_names()
        assert self._bound is not None
        return self._bound

    def fresh_name(self, base: str) -> str:
        """A name not used anywhere in the file nor by another fix that will be applied."""
        used = self._names_in_file()
        candidate, counter = base, 1
        while candidate in used or candidate in self._reserved:
            counter += 1
            candidate = f"{base}_{counter}"
        self._reserved.add(candidate)
        self._current.add(candidate)
        return candidate

    def _only_bound_as(self, name: str, what: tuple[str, ...]) -> bool:
        """Every binding of `name` in the file (any scope) is `what`, and there is one."""
        self._names_in_file()
        found = self._bindings.get(name, [])
        return bool(found) and all(binding == what for binding in found)

    def _free(self, name: str, what: tuple[str, ...]) -> bool:
        """A new import may bind `name` to `what`: the file uses the name for nothing else."""
        if name in self._reserved:
            return False
        return name not in self._names_in_file() or self._only_bound_as(name, what)

    def _imports_before_anchor(self) -> list[ast.Import | ast.ImportFrom]:
        """The module-level import statements that come before the fix's anchor."""
        if self._imports is None:
            self._imports = [
                (index, node)
                for index, node in enumerate(self.tree.body)
                if isinstance(node, (ast.Import, ast.ImportFrom))
            ]
        return [node for index, node in self._imports if index < self._anchor]

    def module_alias(self, module: str) -> str | None:
        """The name under which a module-level `import module [as alias]` that runs before
        the fix's anchor statement binds `module`, where nothing rebinds that name."""
        for node in self._imports_before_anchor():
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name != module:
                        continue
                    if alias.asname and self._only_bound_as(alias.asname, ("module", module)):
                        return alias.asname
                    top = module.split(".")[0]
                    if not alias.asname and self._only_bound_as(top, ("module", top)):
                        return module
        return None

    def ensure_import(self, module: str, alias: str) -> tuple[str, tuple[Edit, ...]]:
        """The name to use for `module`, and the edit adding `import module as alias` (or
        `import module`, or a fresh alias, whichever the file leaves free) before the fix's
        anchor statement when no earlier import can be reused."""
        self._asked_imports = True
        existing = self.module_alias(module)
        if existing is not None:
            return existing, ()
        top = module.split(".")[0]
        if self._free(alias, ("module", module)):
            name, statement = alias, f"import {module} as {alias}"
        elif self._free(top, ("module", top)):
            name, statement = module, f"import {module}"
        else:
            name = self.fresh_name(alias)
            statement = f"import {module} as {name}"
        return name, (self._insert_import(statement),)

    def ensure_from_import(self, module: str, name: str) -> tuple[str, tuple[Edit, ...]] | None:
        """The name to use for `module.name`, and the edit adding `from module import name`
        before the fix's anchor statement when no earlier import can be reused; None when
        the file uses `name` for something else."""
        self._asked_imports = True
        what = ("from", module, name)
        for node in self._imports_before_anchor():
            if isinstance(node, ast.ImportFrom) and node.module == module and not node.level:
                for alias in node.names:
                    if alias.name == name and self._only_bound_as(alias.asname or name, what):
                        return alias.asname or name, ()
        if not self._free(name, what) or "*" in self.bound_names():
            return None
        return name, (self._insert_import(f"from {module} import {name}"),)

    def _insert_import(self, statement: str) -> Edit:
        """An edit adding `statement` after the file's first block of imports, or at its
        head when that block comes after the anchor statement."""
        newline = self.source.newline
        anchor = (
            self._statement_start(self._anchor)
            if self._anchor < len(self.tree.body)
            else Position(len(self.source.line_starts) + 1, 0)
        )
        for line in (self._import_line(), self._head_line()):
            if Position(line, 0) <= anchor:
                edit = Edit(Position(line, 0), Position(line, 0), statement + newline)
                break
        else:  # the anchor follows a docstring or `__future__` import on its own line
            edit = Edit(anchor, anchor, statement + "; ")
        self._import_edits.append(edit)
        return edit

    def _names_in_file(self) -> set[str]:
        if self._names is None:
            self._scan_names()
        assert self._names is not None
        return self._names

    def _import_line(self) -> int:
        """Line after the file's first block of module-level imports (its head if none)."""
        body = self.tree.body
        last_import = None
        for node in body:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                last_import = node
            elif last_import is not None:
                break
        if last_import is not None:
            return last_import.end_lineno + 1  # type: ignore[operator]
        return self._head_line()

    def _head_line(self) -> int:
        """First line after the docstring, `__future__` imports and leading comments."""
        line = 0
        for node in self.tree.body:
            if (
                _is_docstring(node)
                and node is self.tree.body[0]
                or (isinstance(node, ast.ImportFrom) and node.module == "__future__")
            ):
                line = node.end_lineno  # type: ignore[assignment]
            else:
                break
        if line:
            return line + 1
        line = 1
        while self.source.line(line).startswith("#"):
            line += 1
        return line

    def has_comments(self, start: Position, end: Position) -> bool:
        """Whether a comment begins between `start` and `end` (a planner's question whose
        answer decides whether a rewrite could keep the comments, asked without libcst).
        The file parses, so it tokenizes; were it not to, every span would hold one."""
        if self._comments is None:
            try:
                self._comments = [
                    Position(*token.start)
                    for token in tokenize.generate_tokens(io.StringIO(self.source.text).readline)
                    if token.type == tokenize.COMMENT
                ]
            except (tokenize.TokenError, SyntaxError):
                self._comments = []
                self._untokenized = True
        if self._untokenized:
            return True
        at = bisect.bisect_left(self._comments, start)
        return at < len(self._comments) and self._comments[at] < end

    # -- rewriting with libcst -----------------------------------------------------------
    def parse_statements(self, first: ast.stmt, last: ast.stmt) -> list[cst.BaseStatement] | None:
        """The statements from `first` to `last` (siblings) as libcst nodes."""
        import libcst as cst

        if not self.owns_lines(first, last):
            return None
        snippet = self._lines(first.lineno, _end_line(last))
        indent = self.indent_of(first)
        try:
            if indent:
                module = cst.parse_module(_WRAPPER + self.source.newline + snippet)
                wrapper = module.body[0]
                assert isinstance(wrapper, cst.If) and isinstance(wrapper.body, cst.IndentedBlock)
                return list(wrapper.body.body)
            return list(cst.parse_module(snippet).body)
        except cst.ParserSyntaxError:
            return None

    def replace_statements(self, first: ast.stmt, last: ast.stmt, statements: Sequence[cst.BaseStatement]) -> Edit:
        """An edit replacing the lines of `first`..`last` with `statements`, re-indented."""
        import libcst as cst

        indent = self.indent_of(first) or ""
        newline = self.source.newline
        if indent:
            wrapper = cst.parse_module(_WRAPPER + newline + indent + "pass" + newline)
            outer = wrapper.body[0]
            assert isinstance(outer, cst.If) and isinstance(outer.body, cst.IndentedBlock)
            new_if = outer.with_changes(body=outer.body.with_changes(body=list(statements)))
            code = wrapper.with_changes(body=[new_if]).code
            code = code[len(_WRAPPER + newline) :]
        else:
            code = cst.Module(body=list(statements), default_newline=newline).code  # type: ignore[arg-type]
        end_line = _end_line(last)
        # The replaced lines end with a line break unless they end the file; the generated
        # code must too (libcst drops a final lone "\r", so normalise rather than trust it).
        ends_with_break = self._lines(end_line, end_line).endswith(("\n", "\r"))
        code = code.rstrip("\r\n") + (newline if ends_with_break else "")
        return Edit(Position(first.lineno, 0), self._line_end(end_line), code)

    def replace_node(self, node: ast.AST, code: str) -> Edit:
        return Edit(self.start(node), self.end(node), code)

    def _lines(self, first: int, last: int) -> str:
        starts = self.source.line_starts
        begin = starts[first - 1]
        end = starts[last] if last < len(starts) else len(self.source.text)
        return self.source.text[begin:end]

    def _line_end(self, line: int) -> Position:
        """Position just past `line` including its line break."""
        if line < len(self.source.line_starts):
            return Position(line + 1, 0)
        return Position(line, len(self.source.line(line)))


def _end_line(node: ast.stmt) -> int:
    """A parsed statement's last line (`end_lineno` is only None on nodes built by hand)."""
    return node.end_lineno if node.end_lineno is not None else node.lineno


def _is_docstring(node: ast.stmt) -> bool:
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)


# -- attaching fixes to diagnostics ------------------------------------------------------


class Fixable(Protocol):
    """What `attach_fixes` needs of a rule (every `gpulint.registry.Rule` is one); the
    registry builds on this module, so this module names no rule class."""

    code: str
    fix: Applicability | None
    suggestion: str | None

    def fixer(self) -> Planner | None: ...


def decided_applicability(rule: Fixable, diagnostic: Diagnostic) -> Applicability | None:
    """How the finding's fix may be applied at most: what the rule decided for it (its facts),
    else what the rule declares."""
    facts = diagnostic.context
    return facts.applicability if isinstance(facts, Facts) else rule.fix


def attach_fixes(
    source: Source,
    tree: ast.Module | None,
    diagnostics: list[Diagnostic],
    rules: Sequence[Fixable],
    unsafe_fixes: bool = False,
    index: SemanticIndex | None = None,
    render: bool = True,
) -> tuple[list[Diagnostic], list[str]]:
    """Give each finding its fix: its fixer's plan of what the rule decided, or, where the
    rule has no fixer or the fixer declines, the rule's display-only suggestion. A fixer
    that fails, or offers more than the rule decided, never stops the run (a warning says so).
    `render`: write the planned fixes' edits (else they stay planned: `Fix.rendered`).
    `unsafe_fixes` says which fixes will be applied: only those keep the names they take."""
    by_code = {rule.code: rule for rule in rules}
    warnings: list[str] = []
    if tree is None:
        return diagnostics, warnings
    context: FixContext | None = None
    result = []
    for diagnostic in diagnostics:
        rule = by_code.get(diagnostic.code)
        decided = decided_applicability(rule, diagnostic) if rule is not None else None
        if rule is None or decided is None:
            result.append(diagnostic)
            continue
        planner = rule.fixer()
        fix: Fix | None = None
        declined: str | None = None
        failed = False
        if planner is not None:
            if context is None:
                context = FixContext(source, tree, index)
            try:
                outcome = _fix_of(planner, diagnostic, context, render)
            except Exception as error:  # a fixer bug must not take the linter down
                warnings.append(
                    f"{diagnostic.start.line}: fixer for {diagnostic.code} failed ({type(error).__name__}: {error})"
                )
                outcome, failed = None, True
            if isinstance(outcome, Decline):
                declined = outcome.reason
            else:
                fix = outcome
            if fix is not None and not fix.applicability.within(decided):
                warnings.append(
                    f"{diagnostic.start.line}: fixer for {diagnostic.code} offered a "
                    f"{fix.applicability.value} fix where the rule decided {decided.value}; not offered"
                )
                fix = None
            if fix is None or not fix.applies(unsafe_fixes):
                context.release(context.introduced())
        if fix is None and not failed and rule.suggestion:
            fix = display_fix(rule.suggestion)._replace(declined=declined)
        result.append(diagnostic.with_fix(fix) if fix is not None else diagnostic)
    return result, warnings


def _fix_of(planner: Planner, diagnostic: Diagnostic, context: FixContext, render: bool) -> Fix | Decline:
    """The finding's fix as its fixer plans it, rendered when `render`; planned and rendered
    again from its first edit when that comes before the finding's own statement and the
    fix asked for an import (its imports must run before its first edit)."""
    context.begin_fix(diagnostic.start)
    fix = _rendered(planner(diagnostic, context), render)
    earlier = context.earlier_than_anchor(fix) if isinstance(fix, Fix) else None
    if earlier is not None:
        context.release(context.introduced())
        context.begin_fix(earlier)
        fix = _rendered(planner(diagnostic, context), render)
    if isinstance(fix, Fix) and context.introduced():
        fix = fix._replace(introduces=context.introduced())
    return fix


def _rendered(plan: Plan | Decline, render: bool) -> Fix | Decline:
    if isinstance(plan, Decline):
        return plan
    if plan.render is None:
        return Fix(plan.applicability, plan.message, declined=plan.declined)
    if not render:
        return Fix(plan.applicability, plan.message, rendered=False)
    edits = plan.render()
    if isinstance(edits, Decline):
        return edits
    return Fix(plan.applicability, plan.message, edits)


# -- applying fixes ------------------------------------------------------------------------


def apply_edits(source: Source, edits: Sequence[Edit]) -> str:
    """The text with `edits` applied; insertions at the same place keep their order."""
    text = source.text
    spans = sorted(
        (
            (source.offset(e.start.line, e.start.col), source.offset(e.end.line, e.end.col), index, e.content)
            for index, e in enumerate(edits)
        ),
        reverse=True,
    )
    for begin, end, _, content in spans:
        text = text[:begin] + content + text[end:]
    return text


def select_non_overlapping(source: Source, diagnostics: list[Diagnostic]) -> tuple[list[Diagnostic], list[Edit]]:
    chosen: list[Diagnostic] = []
    edits: list[Edit] = []
    taken: list[tuple[int, int, str]] = []
    names: set[str] = set()
    for diagnostic in diagnostics:
        assert diagnostic.fix is not None
        if diagnostic.fix.introduces & names:
            continue  # the next pass, re-linted, gives this fix a name of its own
        spans = [
            (source.offset(e.start.line, e.start.col), source.offset(e.end.line, e.end.col), e.content)
            for e in diagnostic.fix.edits
        ]
        new_edits = []
        clash = False
        for (begin, end, content), edit in zip(spans, diagnostic.fix.edits, strict=False):
            if any(begin == b and end == e and content == c for b, e, c in taken):
                continue  # the same edit (an import) already chosen
            if any(begin < e and b < end or (begin == end == b == e) for b, e, _ in taken):
                clash = True
                break
            new_edits.append((begin, end, content, edit))
        if clash:
            continue
        chosen.append(diagnostic)
        names |= diagnostic.fix.introduces
        for begin, end, content, edit in new_edits:
            taken.append((begin, end, content))
            edits.append(edit)
    return chosen, edits


def display_fix(message: str) -> Fix:
    """A suggestion with no edits, shown to the user but never applied."""
    return Fix(Applicability.DISPLAY, message, ())
