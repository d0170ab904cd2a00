"""Candidate miners for the transfers family (GPU301-GPU308), stdlib `ast` only.

Generous on purpose: every miner looks at the syntax alone (no types, no devices), so a
person decides from the surrounding code whether a candidate is the rule's idiom.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Iterator

#: Method calls that copy a torch tensor / CuPy array / cuDF object to the host.
TO_HOST_METHODS = frozenset({"item", "cpu", "numpy", "tolist", "to_pandas", "to_numpy", "to_arrow"})
#: Module-level functions that copy to the host.
TO_HOST_FUNCTIONS = frozenset({"asnumpy"})
#: torch factories GPU304 is about, plus the legacy typed constructors.
FACTORIES = frozenset(
    [
        "zeros",
        "ones",
        "empty",
        "full",
        "arange",
        "linspace",
        "logspace",
        "eye",
        "tensor",
        "as_tensor",
        "rand",
        "randn",
        "randint",
        "randperm",
        "zeros_like",
        "ones_like",
        "empty_like",
        "full_like",
        "rand_like",
        "randn_like",
        "Tensor",
        "LongTensor",
        "FloatTensor",
        "DoubleTensor",
        "IntTensor",
        "BoolTensor",
        "ByteTensor",
        "HalfTensor",
    ]
)
#: Calls that create a device value from host data (the second half of a round trip).
TO_DEVICE_FUNCTIONS = frozenset({"tensor", "as_tensor", "from_numpy", "asarray", "from_pandas", "array"})
REDUCTIONS = frozenset(
    {"any", "all", "sum", "max", "min", "mean", "isnan", "isinf", "isfinite", "equal", "allclose", "norm"}
)

LOOPS = (ast.For, ast.AsyncFor, ast.While)
COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _method(node: ast.AST) -> str | None:
    """The method name of `x.name(...)`, else None."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        return node.func.attr
    return None


def _func_name(node: ast.Call) -> str | None:
    """`f` for `f(...)` and `mod.f(...)`."""
    if isinstance(node.func, ast.Name):
        return node.func.id
    if isinstance(node.func, ast.Attribute):
        return node.func.attr
    return None


def _is_cpu_literal(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.startswith("cpu")


def _is_move(node: ast.AST) -> bool:
    """`x.cuda(...)` or `x.to(<something that is not a literal "cpu">)`."""
    name = _method(node)
    if name == "cuda":
        return True
    if name == "to" and isinstance(node, ast.Call):
        first = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "device"), None)
        return first is not None and not _is_cpu_literal(first)
    return False


def _is_to_host(node: ast.AST) -> str | None:
    """The copy's name when `node` is a call that copies to the host (syntactically)."""
    if not isinstance(node, ast.Call):
        return None
    name = _method(node)
    if name in TO_HOST_METHODS and not node.args:
        return f".{name}()"
    if name == "to" and node.args and _is_cpu_literal(node.args[0]):
        return '.to("cpu")'
    if _func_name(node) in TO_HOST_FUNCTIONS:
        return "asnumpy()"
    if isinstance(node, ast.Attribute) and node.attr == "values_host":
        return ".values_host"
    return None


def _loop_bodies(tree: ast.AST) -> Iterator[tuple[ast.AST, list[ast.AST]]]:
    """(loop, the nodes it repeats): a for/while body (not its else) and a comprehension's
    element and conditions (not its first iterable, evaluated once)."""
    for node in ast.walk(tree):
        if isinstance(node, LOOPS):
            repeated: list[ast.AST] = list(node.body)
            if isinstance(node, ast.While):
                repeated.append(node.test)
            yield node, repeated
        elif isinstance(node, COMPREHENSIONS):
            parts: list[ast.AST] = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
            for index, generator in enumerate(node.generators):
                parts.extend(generator.ifs)
                if index:
                    parts.append(generator.iter)
            yield node, parts


def _in_loops(tree: ast.AST) -> dict[int, ast.AST]:
    """id(node) -> the innermost loop repeating it, for every node inside a loop body."""
    inner: dict[int, ast.AST] = {}
    for loop, repeated in _loop_bodies(tree):
        for part in repeated:
            for node in ast.walk(part):
                # ast.walk is breadth-first from the outermost loop, so later loops are inner.
                inner[id(node)] = loop
    return inner


def _loop_kind(loop: ast.AST) -> str:
    return "comprehension" if isinstance(loop, COMPREHENSIONS) else type(loop).__name__.lower()


def _assigned_names(nodes: Iterable[ast.AST]) -> set[str]:
    names: set[str] = set()
    for part in nodes:
        for node in ast.walk(part):
            if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
                names.add(node.id)
    return names


def _imports_cupy(tree: ast.Module) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, ast.Import) and any(a.name.split(".")[0] == "cupy" for a in node.names):
            return True
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "cupy":
            return True
    return False


#: Builtins that make a Python number of their one argument.
_NUMBER_BUILTINS = frozenset({"float", "int", "bool", "complex"})


def _host_copies(tree: ast.Module) -> Iterator[tuple[ast.AST, str]]:
    """Any host copy (`.item()`, `.cpu()`, `.numpy()`, `.tolist()`, `.to("cpu")`,
    `asnumpy`, `.to_pandas()`..., and `.get()` in a file that imports CuPy) or `float(...)`
    of a call, inside a loop body: (node, note)."""
    loops = _in_loops(tree)
    cupy = _imports_cupy(tree)
    for node in ast.walk(tree):
        if id(node) not in loops:
            continue
        copy = _is_to_host(node)
        if copy is None and cupy and _method(node) == "get" and not node.args and not node.keywords:
            copy = ".get()"
        if copy is None and isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            if (
                node.func.id in _NUMBER_BUILTINS
                and len(node.args) == 1
                and isinstance(node.args[0], (ast.Call, ast.Subscript, ast.BinOp))
            ):
                copy = f"{node.func.id}(...)"
        if copy:
            yield node, f"{copy} in {_loop_kind(loops[id(node)])}"


def _copy_idiom(node: ast.AST, parents: dict[int, ast.AST]) -> str:
    """Which rule a host copy's idiom belongs to, from the syntax around it: GPU308 when the
    value is added to a running total through arithmetic only (`total += x.item() * n`,
    `total = total + float(x)`, not `x - total`) that the loop does not read elsewhere on
    every iteration, GPU307 when the chain of calls and attributes it is part of makes a
    Python number (`.item()`, `float(...)`), GPU301 otherwise (a list made with `.tolist()`
    or `list(...)` included)."""

    def is_number(call: ast.AST) -> bool:
        return _method(call) == "item" or (
            isinstance(call, ast.Call)
            and isinstance(call.func, ast.Name)
            and call.func.id in _NUMBER_BUILTINS
            and len(call.args) == 1
        )

    def is_list(call: ast.AST) -> bool:
        return _method(call) == "tolist" or (
            isinstance(call, ast.Call)
            and isinstance(call.func, ast.Name)
            and call.func.id == "list"
            and len(call.args) == 1
        )

    scalar, listed, current = is_number(node), is_list(node), node
    while True:
        parent = parents.get(id(current))
        if isinstance(parent, (ast.Attribute, ast.Subscript)) and parent.value is current:
            current = parent
        elif isinstance(parent, ast.Call) and (
            parent.func is current or (parent.args == [current] and (is_number(parent) or is_list(parent)))
        ):
            scalar, listed = scalar or is_number(parent), listed or is_list(parent)
            current = parent
        else:
            break
    parent = parents.get(id(current))
    while _arithmetic(parent) or _number_function(parent, current):
        current, parent = parent, parents.get(id(parent))
    total = None
    if isinstance(parent, ast.AugAssign) and parent.value is current and isinstance(parent.op, (ast.Add, ast.Sub)):
        total = parent.target
    elif (
        isinstance(parent, ast.Assign)
        and parent.value is current
        and len(parent.targets) == 1
        and _adds_to(current, ast.unparse(parent.targets[0]))
    ):
        total = parent.targets[0]
    if total is not None and not listed and not _read_in_loop_body(parent, ast.unparse(total), parents):
        return "GPU308"
    return "GPU307" if scalar else "GPU301"


def _arithmetic(node: ast.AST | None) -> bool:
    """An operator on numbers, not text formatted or joined (`"loss %.4f" % x`)."""
    if isinstance(node, ast.UnaryOp):
        return True
    if not isinstance(node, ast.BinOp):
        return False
    return not any(
        isinstance(side, ast.JoinedStr) or isinstance(side, ast.Constant) and isinstance(side.value, (str, bytes))
        for side in (node.left, node.right)
    )


def _number_function(parent: ast.AST | None, current: ast.AST) -> bool:
    """`round(x, 3)`, `abs(x)` or a `math` function (`math.sqrt(x)`, `log10(x)` imported from
    `math` is not told apart syntactically: only the `math.` spelling counts) of `current`."""
    if not (isinstance(parent, ast.Call) and any(argument is current for argument in parent.args)):
        return False
    func = parent.func
    if isinstance(func, ast.Name):
        return func.id in ("round", "abs")
    return isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "math"


def _adds_to(expression: ast.AST, total: str) -> bool:
    """A sum of terms one of which is `total`, not subtracted (`total + x`, `x + total - y`)."""
    if not isinstance(expression, ast.BinOp):
        return False
    terms = [expression.left] + ([expression.right] if isinstance(expression.op, ast.Add) else [])
    if not isinstance(expression.op, (ast.Add, ast.Sub)):
        return False
    return any(ast.unparse(term) == total or _adds_to(term, total) for term in terms)


def _read_in_loop_body(statement: ast.AST, total: str, parents: dict[int, ast.AST]) -> bool:
    """`total` is read by another statement of the body of the loop `statement` is in,
    outside any `if` (`print(total / n)` beside `total += x.item()`)."""
    loop = parents.get(id(statement))
    while loop is not None and not isinstance(loop, LOOPS):
        loop = parents.get(id(loop))
    if loop is None:
        return False
    for other in loop.body:
        if other is statement or isinstance(other, (ast.If, ast.Try, *LOOPS)):
            continue
        if any(
            isinstance(n, (ast.Name, ast.Attribute, ast.Subscript))
            and isinstance(n.ctx, ast.Load)
            and ast.unparse(n) == total
            for n in ast.walk(other)
        ):
            return True
    return False


def _copies_of(code: str) -> Callable[[ast.Module], Iterator[tuple[int, str]]]:
    """The miner of the host copies in loops whose idiom is `code`'s (see `_copy_idiom`)."""

    def miner(tree: ast.Module) -> Iterator[tuple[int, str]]:
        parents = {id(child): node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
        for node, note in _host_copies(tree):
            if _copy_idiom(node, parents) == code:
                yield node.lineno, note

    miner.__name__ = code.lower()
    return miner


gpu301 = _copies_of("GPU301")
gpu307 = _copies_of("GPU307")
gpu308 = _copies_of("GPU308")


def gpu302(tree: ast.Module) -> Iterator[tuple[int, str]]:
    """A move to a device inside a loop whose receiver reads no name assigned in the loop."""
    for loop, repeated in _loop_bodies(tree):
        if not isinstance(loop, LOOPS):
            continue
        changed = _assigned_names([loop.target] if isinstance(loop, (ast.For, ast.AsyncFor)) else [])
        changed |= _assigned_names(repeated)
        for part in repeated:
            for node in ast.walk(part):
                if not _is_move(node):
                    continue
                receiver = node.func.value
                read = {n.id for n in ast.walk(receiver) if isinstance(n, ast.Name)}
                if read and not read & changed and not any(isinstance(n, ast.Call) for n in ast.walk(receiver)):
                    yield node.lineno, f"move of {ast.unparse(receiver)[:40]} in loop; receiver not assigned in it"


def gpu303(tree: ast.Module) -> Iterator[tuple[int, str]]:
    """A host copy nested inside a move or a device constructor."""
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        outer = None
        if _is_move(node):
            outer = "move"
        elif _func_name(node) in TO_DEVICE_FUNCTIONS:
            outer = _func_name(node)
        if outer and any(_is_to_host(inner) for inner in ast.walk(node) if inner is not node):
            yield node.lineno, f"host copy inside {outer}"


def _is_factory(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in FACTORIES
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id in ("torch", "th")
        and not any(k.arg == "device" for k in node.keywords)
    )


def gpu304(tree: ast.Module) -> Iterator[tuple[int, str]]:
    """A torch factory without `device=` moved straight away (`torch.zeros(n).cuda()`), or
    bound to a name that the next statements move (`t = torch.zeros(n)`; `t = t.to(d)`)."""
    for node in ast.walk(tree):
        if _is_move(node) and _is_factory(node.func.value):
            yield node.lineno, f"torch.{node.func.value.func.attr}(...) then .{node.func.attr}()"
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if not isinstance(body, list):
            continue
        for index, stmt in enumerate(body):
            if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)):
                continue
            if not _is_factory(stmt.value):
                continue
            name = stmt.targets[0].id
            for later in body[index + 1 : index + 4]:
                moved = [
                    n
                    for n in ast.walk(later)
                    if _is_move(n) and isinstance(n.func.value, ast.Name) and n.func.value.id == name
                ]
                if moved:
                    yield stmt.lineno, f"{name} = torch.{stmt.value.func.attr}(...) moved at line {moved[0].lineno}"
                    break
                if name in _assigned_names([later]):
                    break


def gpu305(tree: ast.Module) -> Iterator[tuple[int, str]]:
    """A `DataLoader(...)` call with no `num_workers` or `num_workers=0` (any receiver)."""
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or _func_name(node) != "DataLoader":
            continue
        workers = next((k.value for k in node.keywords if k.arg == "num_workers"), None)
        if any(k.arg is None for k in node.keywords):
            note = "**kwargs"
        elif workers is None:
            note = "no num_workers"
        elif isinstance(workers, ast.Constant) and workers.value == 0:
            note = "num_workers=0"
        else:
            continue
        yield node.lineno, note


def gpu306(tree: ast.Module) -> Iterator[tuple[int, str]]:
    """An `if`/`while`/conditional expression inside a loop (or a `while` condition) whose
    test calls a torch/CuPy function or a reduction method, or compares a call's result."""
    loops = _in_loops(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.While):
            test, where = node.test, "while condition"
        elif isinstance(node, (ast.If, ast.IfExp)) and id(node) in loops:
            test, where = node.test, "condition in loop"
        else:
            continue
        calls = [n for n in ast.walk(test) if isinstance(n, ast.Call)]
        if any(_is_to_host(c) or _func_name(c) in ("float", "int", "bool", "len", "isinstance") for c in calls):
            continue
        interesting = [
            c
            for c in calls
            if _func_name(c) in REDUCTIONS
            or (
                isinstance(c.func, ast.Attribute)
                and isinstance(c.func.value, ast.Name)
                and c.func.value.id in ("torch", "cp", "cupy")
            )
        ]
        if interesting:
            yield node.lineno, f"{where}: {ast.unparse(test)[:50]}"


MINERS = {
    "GPU301": gpu301,
    "GPU302": gpu302,
    "GPU303": gpu303,
    "GPU304": gpu304,
    "GPU305": gpu305,
    "GPU306": gpu306,
    "GPU307": gpu307,
    "GPU308": gpu308,
}
