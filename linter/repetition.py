"""Which of a file's functions run over and over: the code a per-call cost multiplies.

A function runs repeatedly when the file shows it does:

- it is called inside a loop or a comprehension somewhere in the file: by name, as
  `self.method()` in a method of its class, or, for a method, as `obj.method()` on any
  other object (`self.scheduler.step(...)` in a denoising loop: the receiver's class is
  not known, so every method of that name counts);
- it is handed to another call as a value (`DataLoader(ds, collate_fn=collate)`,
  `frame.apply(score)`, `dataset.map(tokenize)`, a method as `self.hook` in
  `module.register_forward_hook(self.hook)`): a callback, called once per batch, row or
  item by the library;
- it is one of the `seeds` the caller knows are run per batch or per item by a library
  (a torch module's `forward`, a dataset's `__getitem__`);
- it is called by a function that runs repeatedly (by name, on its instance, or as a method
  of any other object, every method of that name).

A function nothing in the file calls in a loop (a pipeline's `encode_prompt`, called once
per generation by its `__call__`; a helper run once when a script starts) does not.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable

from .astutil import range_arguments, walk_local
from .semantic import FunctionFacts, FunctionNode, SemanticIndex

#: Nodes whose body runs once per item: loops and comprehensions.
LOOP_NODES = (ast.For, ast.AsyncFor, ast.While, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
#: A loop its literals show runs at most this many times (`for i in range(6)`, `for split in
#: ("train", "test")`) is no hot loop: what it calls runs a few times.
FEW_RUNS = 16
#: Nodes that open a scope of their own.
SCOPE_NODES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def repeated_functions(
    tree: ast.Module, index: SemanticIndex, seeds: Callable[[FunctionFacts], bool]
) -> frozenset[FunctionNode]:
    """The defs of `tree` that run repeatedly (see the module's docstring)."""
    found: set[FunctionNode] = set()
    by_method_name = _methods_by_name(index)
    pending = [facts for facts in index.functions.values() if seeds(facts)]
    pending += _called_in_loops_or_passed(tree, index, by_method_name)
    while pending:
        facts = pending.pop()
        if facts.node in found:
            continue
        found.add(facts.node)
        pending.extend(_callees(facts, index, by_method_name))
    return frozenset(found)


def _methods_by_name(index: SemanticIndex) -> dict[str, list[FunctionFacts]]:
    found: dict[str, list[FunctionFacts]] = {}
    for facts in index.functions.values():
        if facts.owner is not None:
            found.setdefault(facts.node.name, []).append(facts)
    return found


def _callees(
    facts: FunctionFacts, index: SemanticIndex, by_method_name: dict[str, list[FunctionFacts]]
) -> Iterable[FunctionFacts]:
    """The file's defs `facts` calls: by name, on its instance, or as a method of some other
    object (`self.sampler.sample(...)`: every method of that name)."""
    scopes = _scopes_of(facts, index)
    for name in facts.calls:
        yield from _named(index, scopes, name)
    if facts.owner is not None:
        for name in facts.self_calls:
            method = index.method(facts.owner, name)
            if method is not None:
                yield method
    for node in walk_local(facts.node.body):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and not (isinstance(node.func.value, ast.Name) and node.func.value.id == facts.self_name)
        ):
            yield from by_method_name.get(node.func.attr, ())


def _scopes_of(facts: FunctionFacts, index: SemanticIndex) -> list[ast.AST]:
    """The scopes a def's body sees, outermost first, the def itself last."""
    chain: list[ast.AST] = [facts.node]
    node: ast.AST | None = facts.node
    while node is not None:
        node = index.parent(node)
        if isinstance(node, (ast.Module, *SCOPE_NODES)):
            chain.append(node)
    return chain[::-1]


def _called_in_loops_or_passed(
    tree: ast.Module, index: SemanticIndex, by_method_name: dict[str, list[FunctionFacts]]
) -> list[FunctionFacts]:
    """Defs called inside a loop or comprehension, or passed as an argument to a call."""
    found: list[FunctionFacts] = []

    def visit_node(
        node: ast.AST, scopes: list[ast.AST], owner: ast.ClassDef | None, self_name: str | None, in_loop: bool
    ) -> None:
        if isinstance(node, ast.Call):
            func = node.func
            if in_loop and isinstance(func, ast.Name):
                found.extend(_named(index, scopes, func.id))
            elif in_loop and isinstance(func, ast.Attribute):
                method = None
                if owner is not None and isinstance(func.value, ast.Name) and func.value.id == self_name:
                    method = index.method(owner, func.attr)
                # `self.scheduler.step(...)`, or a method a base class defines: any method of
                # that name of the file's classes
                found.extend([method] if method is not None else by_method_name.get(func.attr, ()))
            for argument in (*node.args, *(k.value for k in node.keywords)):
                if isinstance(argument, ast.Name):
                    found.extend(_named(index, scopes, argument.id))
                elif (  # `module.register_forward_hook(self._save_input)`: a bound method
                    owner is not None
                    and isinstance(argument, ast.Attribute)
                    and isinstance(argument.value, ast.Name)
                    and argument.value.id == self_name
                ):
                    method = index.method(owner, argument.attr)
                    found.extend([method] if method is not None else [])

    def enter(function: ast.FunctionDef | ast.AsyncFunctionDef, scopes: list[ast.AST]) -> None:
        facts = index.function(function)
        for part in ast.iter_child_nodes(function):
            visit(
                part,
                [*scopes, function],
                facts.owner if facts else None,
                facts.self_name if facts else None,
                False,
            )

    def visit(
        node: ast.AST, scopes: list[ast.AST], owner: ast.ClassDef | None, self_name: str | None, in_loop: bool
    ) -> None:
        visit_node(node, scopes, owner, self_name, in_loop)
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                enter(child, scopes)
            elif isinstance(child, (ast.ClassDef, ast.Lambda)):
                for part in ast.iter_child_nodes(child):
                    if isinstance(part, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        enter(part, [*scopes, child])  # a method: its instance is known
                    else:
                        visit(part, [*scopes, child], None, None, False)
            else:
                visit(
                    child,
                    scopes,
                    owner,
                    self_name,
                    in_loop or isinstance(node, LOOP_NODES) and child is not _iterable(node),
                )

    visit(tree, [tree], None, None, False)
    return found


def _iterable(loop: ast.AST) -> ast.AST | None:
    """What a `for` loop iterates, evaluated once, not per iteration."""
    return loop.iter if isinstance(loop, (ast.For, ast.AsyncFor)) else None


def _named(index: SemanticIndex, scopes: list[ast.AST], name: str) -> list[FunctionFacts]:
    resolved = index.resolve(scopes, name)
    return list(resolved[0]) if resolved else []


def runs_once(node: ast.AST, index: SemanticIndex) -> bool:
    """The code at `node` runs once per run of the program, by what the file shows: no loop
    or comprehension around it in its scope, other than loops of one iteration
    (`for epoch in range(1)`, or over `range(n)` with `n` bound to 1 and nothing else),
    and its scope is the module, or a function (not a method) the file calls by name only
    from code that runs once itself. A function nobody in the file calls, or one handed on
    as a value, may be run by anyone, any number of times: not once."""
    seen: set[ast.AST] = set()
    pending = [node]
    while pending:
        here = pending.pop()
        scope = scope_outside_loops(here, index)
        if scope is None:
            return False
        if isinstance(scope, ast.Module) or scope in seen:
            continue
        seen.add(scope)
        facts = index.function(scope)
        if facts is None or facts.owner is not None or isinstance(index.parent(scope), ast.ClassDef):
            return False
        sites = index.call_sites(scope.name)  # type: ignore[attr-defined]
        if not sites or index.resolve([facts.scope], scope.name) != ([facts], []):  # type: ignore[attr-defined]
            return False
        pending.extend(call for call, _ in sites)
    return True


def scope_outside_loops(node: ast.AST, index: SemanticIndex) -> ast.AST | None:
    """The scope whose own code holds `node` (the module or a def), when no loop of more
    than one iteration and no comprehension of that scope runs it; None otherwise, and for a
    lambda or a class body."""
    child, parent = node, index.parent(node)
    while parent is not None and not isinstance(parent, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef)):
        if isinstance(parent, (ast.Lambda, ast.ClassDef)):
            return None
        if isinstance(parent, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            if child is not parent.generators[0].iter:  # the first iterable is evaluated once
                return None
        elif isinstance(parent, ast.While) or (
            isinstance(parent, (ast.For, ast.AsyncFor))
            and child is not parent.iter
            and not _one_iteration(parent, index)
        ):
            if child not in parent.orelse:
                return None
        child, parent = parent, index.parent(parent)
    return parent


def _one_iteration(loop: ast.For | ast.AsyncFor, index: SemanticIndex) -> bool:
    """`for ... in range(1)`, `range(1, n + 1)` with `n` bound to 1: a loop of one iteration
    at most (`literal_iterations`)."""
    iterations = literal_iterations(loop, index)
    return iterations is not None and iterations <= 1


def _integer(node: ast.expr, index: SemanticIndex, depth: int = 0) -> int | None:
    """The integer `node` always is: a literal, a module name bound to one expression of
    these and nothing else, or a sum or difference of them."""
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if depth > 3:
        return None
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
        left, right = _integer(node.left, index, depth + 1), _integer(node.right, index, depth + 1)
        if left is None or right is None:
            return None
        return left + right if isinstance(node.op, ast.Add) else left - right
    if isinstance(node, ast.Name):
        bindings = index.bindings(index.tree, node.id)
        if len(bindings) != 1:
            return None
        [binding] = bindings
        if isinstance(binding, ast.Assign) and len(binding.targets) == 1 and isinstance(binding.targets[0], ast.Name):
            return _integer(binding.value, index, depth + 1)
    return None


def literal_iterations(loop: ast.AST, index: SemanticIndex) -> int | None:
    """How many times a `for` loop runs its body when its iterable says so in literals:
    `range(10)`, `range(1, n + 1)` with `n` a module name bound to one integer, a literal
    tuple or list. None otherwise (a comprehension's generator: its `iter` the same way)."""
    iterable = getattr(loop, "iter", None)
    if isinstance(iterable, (ast.Tuple, ast.List)) and not any(isinstance(e, ast.Starred) for e in iterable.elts):
        return len(iterable.elts)
    arguments = range_arguments(iterable)
    if arguments is None:
        return None
    bounds = [_integer(argument, index) for argument in arguments]
    if None in bounds:
        return None
    start, stop = (0, bounds[0]) if len(bounds) == 1 else bounds
    return max(0, stop - start)  # type: ignore[operator]
