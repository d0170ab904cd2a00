"""What the graph rules share: the loop around a call, the names it changes, and whether a
call's inputs stay the same from one iteration to the next."""

from __future__ import annotations

import ast

from gpulint.rule_api import STATEMENT_LOOPS, RuleContext, walk_local
from gpulint.networkx_api import MUTATING_FUNCTIONS, MUTATING_METHODS, function_name


def innermost_loop(ctx: RuleContext) -> ast.AST | None:
    """The innermost loop around the current node: a `for`/`while` statement or a
    comprehension's generator."""
    return ctx.loops[-1] if ctx.loops else None


def loop_inside(loop: ast.AST, ctx: RuleContext) -> list[ast.AST]:
    """The code that runs once per iteration of `loop`: a statement's body, or, for a
    comprehension's generator, its conditions, the generators after it and the element."""
    if isinstance(loop, STATEMENT_LOOPS):
        return list(loop.body)
    comprehension = ctx.parent(loop)
    assert isinstance(loop, ast.comprehension) and comprehension is not None
    generators: list[ast.comprehension] = comprehension.generators  # type: ignore[attr-defined]
    later = generators[generators.index(loop) :]
    parts: list[ast.AST] = [*loop.ifs]
    for generator in later[1:]:
        parts += [generator.iter, generator.target, *generator.ifs]
    if isinstance(comprehension, ast.DictComp):
        return [*parts, comprehension.key, comprehension.value]
    return [*parts, comprehension.elt]  # type: ignore[attr-defined]


def loop_iterable(loop: ast.AST) -> ast.expr | None:
    return loop.iter if isinstance(loop, (ast.For, ast.AsyncFor, ast.comprehension)) else None


def changed_names(loop: ast.AST, ctx: RuleContext) -> set[str]:
    """Names whose value may differ from one iteration to the next: what the loop binds
    (its target, assignments in its body), and what it changes in place: an item or
    attribute stored into, a method called as a statement (`edges.append(e)`), a graph's
    own mutating methods, NetworkX functions that change the graph they are given."""
    changed = mutated_names(loop, ctx)
    if isinstance(loop, STATEMENT_LOOPS):
        changed |= ctx.loop_effects(loop).writes  # type: ignore[arg-type]
    if isinstance(loop, (ast.For, ast.AsyncFor, ast.comprehension)):
        changed |= {sub.id for sub in ast.walk(loop.target) if isinstance(sub, ast.Name)}
    for node in walk_local(loop_inside(loop, ctx)):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            changed.add(node.id)
    return changed


def mutated_names(loop: ast.AST, ctx: RuleContext) -> set[str]:
    """Names whose value the loop changes in place (see `changed_names`)."""
    changed: set[str] = set()
    for node in walk_local(loop_inside(loop, ctx)):
        if isinstance(node, (ast.Subscript, ast.Attribute)) and not isinstance(node.ctx, ast.Load):
            changed |= _root(node)
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            func = node.value.func
            if isinstance(func, ast.Attribute) and ctx.qualname(func) is None:
                changed |= _root(func.value)
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr in MUTATING_METHODS and ctx.qualname(func) is None:
                changed |= _root(func.value)  # a method, not a module's function
            elif (
                isinstance(func, (ast.Name, ast.Attribute))
                and function_name(ctx.qualname(func)) in MUTATING_FUNCTIONS
                and node.args
            ):
                changed |= _root(node.args[0])
    return changed


def _root(node: ast.AST) -> set[str]:
    """The name an attribute chain or index expression starts from (`self` of `self.g[k]`)."""
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return {node.id} if isinstance(node, ast.Name) else set()


def reads(node: ast.AST) -> set[str]:
    return {sub.id for sub in ast.walk(node) if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load)}


def call_inputs(call: ast.Call) -> list[ast.expr]:
    return [*call.args, *(keyword.value for keyword in call.keywords)]


def few_literal_items(iterable: ast.expr | None) -> bool:
    """A literal tuple, list or set of at most 3 items, or `range` of a literal at most 3."""
    if isinstance(iterable, (ast.Tuple, ast.List, ast.Set)):
        return len(iterable.elts) <= 3 and not any(isinstance(e, ast.Starred) for e in iterable.elts)
    if (
        isinstance(iterable, ast.Call)
        and isinstance(iterable.func, ast.Name)
        and iterable.func.id == "range"
        and len(iterable.args) == 1
    ):
        count = iterable.args[0]
        return isinstance(count, ast.Constant) and type(count.value) is int and count.value <= 3
    return False
