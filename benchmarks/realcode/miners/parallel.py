"""Candidate miners for the parallel family (GPU501-GPU502), stdlib `ast` only.

Generous on purpose: any `.compute()` in a loop, whatever the receiver, and any `delayed`
whose result is computed at once or fed a computed value. The candidates are labelled by
hand (`benchmarks/realcode/labels/parallel.csv`). A miner takes a parsed module and yields
`(line, note)` pairs, the line being where the rule would report.

GPU502 knows a name bound to `delayed(f)` (or a `@delayed` function) anywhere in the module,
and in a notebook that binding is often in another cell: its candidates come from the
pipelines family's `mine_joined`, which hands it each notebook as one program (`JOINED`).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Iterator

_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def _is_compute(call: ast.AST) -> bool:
    """`x.compute(...)`, `dask.compute(...)` or a bare `compute(...)`."""
    if not isinstance(call, ast.Call):
        return False
    func = call.func
    return (
        isinstance(func, ast.Attribute)
        and func.attr == "compute"
        or isinstance(func, ast.Name)
        and func.id == "compute"
    )


def _is_delayed(node: ast.AST) -> bool:
    """`delayed` or `dask.delayed` itself."""
    return (
        isinstance(node, ast.Attribute)
        and node.attr == "delayed"
        or isinstance(node, ast.Name)
        and node.id == "delayed"
    )


def _delayed_names(tree: ast.Module) -> set[str]:
    """Names bound to a delayed function anywhere in the module: `g = delayed(f)`, or a
    function decorated with `@delayed` / `@dask.delayed` (with or without arguments)."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and _is_delayed(node.value.func):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(
            _is_delayed(d.func if isinstance(d, ast.Call) else d) for d in node.decorator_list
        ):
            names.add(node.name)
    return names


def _is_delayed_call(call: ast.AST, bound: frozenset[str] | set[str] = frozenset()) -> bool:
    """`delayed(f)(...)`, `dask.delayed(f)(...)`, or `g(...)` of a name in `bound`."""
    if not isinstance(call, ast.Call):
        return False
    if isinstance(call.func, ast.Name) and call.func.id in bound:
        return True
    return isinstance(call.func, ast.Call) and _is_delayed(call.func.func)


def _in_loops(tree: ast.Module) -> Iterator[tuple[ast.AST, ast.AST]]:
    """(node, innermost loop) for every node inside a loop body or a comprehension's element,
    within the same function (a function defined in a loop starts afresh)."""

    def visit(node: ast.AST, loop: ast.AST | None) -> Iterator[tuple[ast.AST, ast.AST]]:
        for field, value in ast.iter_fields(node):
            children = value if isinstance(value, list) else [value]
            for child in children:
                if not isinstance(child, ast.AST):
                    continue
                inner = loop
                if (
                    isinstance(node, _LOOPS)
                    and field in ("body", "orelse")
                    or isinstance(node, _COMPREHENSIONS)
                    and field in ("elt", "key", "value")
                ):
                    inner = node
                elif isinstance(node, ast.comprehension) and field == "ifs":
                    inner = loop
                if isinstance(child, _SCOPES):
                    inner = None
                if inner is not None:
                    yield child, inner
                yield from visit(child, inner)

    yield from visit(tree, None)


# -- GPU501: .compute() inside a loop --------------------------------------------------------


def mine_compute_in_loop(tree: ast.Module) -> Iterator[tuple[int, str]]:
    """Any `.compute()` / `dask.compute(...)` in a `for`/`while` body or a comprehension."""
    for node, loop in _in_loops(tree):
        if _is_compute(node):
            kind = type(loop).__name__
            yield node.lineno, f"compute inside {kind} (line {loop.lineno})"


# -- GPU502: delayed called eagerly -----------------------------------------------------------


def mine_delayed_called_eagerly(tree: ast.Module) -> Iterator[tuple[int, str]]:
    """`delayed(f)(x).compute()`, `compute(delayed(f)(x))`, and `delayed(f)(...)` in a loop
    fed a `.compute()` or a name assigned from one in the same loop body. A name bound to
    `delayed(f)` (or a `@delayed` function) counts as `delayed(f)`."""
    bound = _delayed_names(tree)
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr == "compute" and _is_delayed_call(func.value, bound):
            yield node.lineno, "delayed(f)(...).compute()"
        elif _is_compute(node) and any(_is_delayed_call(a, bound) for a in node.args):
            yield node.lineno, "compute(delayed(f)(...))"
    for node, loop in _in_loops(tree):
        if not _is_delayed_call(node, bound):
            continue
        computed = set()
        for statement in ast.walk(loop):
            if isinstance(statement, ast.Assign) and any(_is_compute(c) for c in ast.walk(statement.value)):
                for target in statement.targets:
                    computed |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
        arguments = [*node.args, *(k.value for k in node.keywords)]
        if any(_is_compute(c) for a in arguments for c in ast.walk(a)) or any(
            isinstance(a, ast.Name) and a.id in computed for a in arguments
        ):
            yield node.lineno, "delayed(f)(...) fed a value computed in the loop"


#: The miners to run over whole notebooks.
JOINED = ("GPU502",)

MINERS: dict[str, Callable[[ast.Module], Iterable[tuple[int, str]]]] = {
    "GPU501": mine_compute_in_loop,
    "GPU502": mine_delayed_called_eagerly,
}
