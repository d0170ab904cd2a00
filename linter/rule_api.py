"""The rule author's API: what a rule declares (`Rule`, `Example`, `FixAvailability`) and
what it sees while the engine walks (`RuleContext`). Rules import from here only; what is
not here is the engine's business and may change.
"""

from __future__ import annotations

import ast
from typing import Iterator

from .astutil import mentions, value_bound_to
from .diagnostic import Diagnostic, Position
from .evidence import TypeEnv
from .loop_effects import LoopEffects, loop_effects
from .registry import Example, FixAvailability, Rule
from .semantic import SemanticIndex
from .source import Source
from .values import Kind, Ty

__all__ = ["Example", "FixAvailability", "Kind", "LoopEffects", "Rule", "RuleContext", "Ty"]


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
        self._rule: type[Rule] | None = None

    # -- evidence helpers ----------------------------------------------------------
    def type_of(self, node: ast.expr) -> Ty | None:
        return self.env.type_of(node)

    def qualname(self, node: ast.expr) -> str | None:
        return self.env.qualname(node)

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

    def parent(self, node: ast.AST) -> ast.AST | None:
        return self.semantic.parent(node)

    def loop_effects(self, loop: ast.stmt) -> LoopEffects:
        """What a `for`/`while` loop reads, binds, carries to its next iteration and grows."""
        return loop_effects(loop)

    def segment(self, node: ast.AST) -> str:
        return self.source.segment(node)

    def earlier_in_iteration(self) -> Iterator[ast.stmt]:
        """The statements that run before the current one in the same iteration of the
        innermost loop, in order: in each enclosing block from the loop's body inwards, those
        before the statement that holds the current one."""
        if not self.loops:
            return
        innermost = self.loops[-1]
        levels = [i for i, statement in enumerate(self.statements) if statement is innermost]
        if not levels:
            return
        for index in range(levels[-1] + 1, len(self.statements)):
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
    def report(self, node: ast.AST, message: str | None = None, context: object = None) -> None:
        rule = self._rule
        assert rule is not None
        start = Position(node.lineno, self.source.char_col(node.lineno, node.col_offset))  # type: ignore[attr-defined]
        end_line = getattr(node, "end_lineno", None) or node.lineno  # type: ignore[attr-defined]
        end_col = getattr(node, "end_col_offset", None)
        end = Position(end_line, self.source.char_col(end_line, end_col) if end_col is not None else start.col)
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


def _binds_afresh(statement: ast.stmt, name: str) -> bool:
    value = value_bound_to(statement, name)
    return value is not None and not mentions(value, name)
