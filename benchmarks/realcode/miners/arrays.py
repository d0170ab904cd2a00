"""Candidate finders for the array rules (GPU201-GPU205), independent of gpulint.

Same contract as `dataframe.py`: each miner yields (line, note) for every syntactic
candidate, without checking what the values are; the labeller decides.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Iterator

from .dataframe import Candidate, call_name, loop_range_target, loop_statements, text, uses, walk_no_defs

#: Functions that return a new array holding all of their inputs.
GROWERS = frozenset(
    {"append", "concatenate", "vstack", "hstack", "stack", "dstack", "column_stack", "row_stack", "cat", "concat"}
)

#: Builtins that iterate their argument element by element (GPU204).
ITERATING_BUILTINS = frozenset({"sum", "max", "min", "any", "all", "sorted", "list"})

#: Arguments that are plainly not arrays: literals, comprehensions and iterator builtins.
NOT_ARRAY_CALLS = frozenset(
    {
        "range",
        "zip",
        "map",
        "filter",
        "enumerate",
        "reversed",
        "keys",
        "values",
        "items",
        "split",
        "glob",
        "listdir",
        "iterdir",
        "parameters",
        "named_parameters",
        "children",
        "modules",
        "set",
        "dict",
        "list",
        "tuple",
        "str",
    }
)


def element_loop(tree: ast.Module) -> Iterator[Candidate]:
    """GPU201: `for i in range(len(a))` (or `range(a.shape[0])`, `range(a.size)`) whose body
    computes with an element `x[i]`: an operand of arithmetic or a comparison, or a
    value assigned to/from an element."""
    for loop in ast.walk(tree):
        if not isinstance(loop, ast.For):
            continue
        found = loop_range_target(loop)
        if found is None:
            continue
        var, sized = found
        for node in walk_no_defs(loop.body):
            operands: list[ast.expr] = []
            if isinstance(node, ast.BinOp):
                operands = [node.left, node.right]
            elif isinstance(node, ast.Compare):
                operands = [node.left, *node.comparators]
            elif isinstance(node, (ast.Assign, ast.AugAssign)):
                operands = [*(node.targets if isinstance(node, ast.Assign) else [node.target]), node.value]
            hit = next(
                (
                    o
                    for o in operands
                    if isinstance(o, ast.Subscript) and isinstance(o.slice, ast.Name) and o.slice.id == var
                ),
                None,
            )
            if hit is not None:
                yield loop.iter.lineno, f"for {var} in range(len {text(sized)[:30]}): {text(hit)[:40]}"
                break


def _grows(call: ast.Call, target: str) -> bool:
    """Whether `call` is a growing function receiving `target` (first argument or an
    element of its first list/tuple argument)."""
    name = call_name(call)
    if name not in GROWERS or not call.args:
        return False
    if isinstance(call.func, ast.Attribute) and text(call.func.value) == target:
        return False  # x.append(...) is a list's or a frame's own method
    if name == "concat" and not (isinstance(call.func, ast.Attribute) and text(call.func.value) == "torch"):
        return False  # pd.concat is GPU101
    first = call.args[0]
    if name == "append":
        return text(first) == target  # np.append(a, x)
    # `a = np.concatenate(a)` joins a list once; growth names `a` among the pieces
    return isinstance(first, (ast.List, ast.Tuple)) and any(text(e) == target for e in first.elts)


def grown_in_loop(tree: ast.Module) -> Iterator[Candidate]:
    """GPU202: `a = np.append(a, x)`, `a = np.concatenate([a, x])`, `np.vstack`, ...,
    `t = torch.cat([t, x])` and `a = np.r_[a, x]` inside a loop body."""
    for _loop, node in loop_statements(tree):
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1):
            continue
        target = text(node.targets[0])
        value = node.value
        if isinstance(value, ast.Call) and _grows(value, target):
            yield node.lineno, f"{target} = {call_name(value)}(... {target} ...)"
        elif (
            isinstance(value, ast.Subscript)
            and isinstance(value.value, ast.Attribute)
            and value.value.attr in ("r_", "c_")
            and isinstance(value.slice, ast.Tuple)
            and any(text(e) == target for e in value.slice.elts)
        ):
            yield node.lineno, f"{target} = np.{value.value.attr}[... {target} ...]"


def vectorize(tree: ast.Module) -> Iterator[Candidate]:
    """GPU203: every `vectorize` called or used as a decorator, any module."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for dec in node.decorator_list:
                base = dec.func if isinstance(dec, ast.Call) else dec
                if isinstance(base, (ast.Name, ast.Attribute)) and text(base).endswith("vectorize"):
                    yield dec.lineno, f"@{text(dec)[:60]}"
        elif isinstance(node, ast.Call) and call_name(node) == "vectorize":
            yield node.lineno, text(node)[:70]


def builtin_on_value(tree: ast.Module) -> Iterator[Candidate]:
    """GPU204: `sum(x)`, `max(x)`, `min`, `any`, `all`, `sorted`, `list` with one argument
    that is not a literal, a comprehension or a call that plainly returns no array."""
    shadowed = {t.id for n in ast.walk(tree) if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
            continue
        name = node.func.id
        if name not in ITERATING_BUILTINS or name in shadowed or len(node.args) != 1:
            continue
        arg = node.args[0]
        if isinstance(
            arg,
            (
                ast.List,
                ast.Tuple,
                ast.Set,
                ast.Dict,
                ast.ListComp,
                ast.SetComp,
                ast.DictComp,
                ast.GeneratorExp,
                ast.Constant,
                ast.JoinedStr,
                ast.Starred,
            ),
        ):
            continue
        if isinstance(arg, ast.Call) and call_name(arg) in NOT_ARRAY_CALLS:
            continue
        yield node.lineno, f"{name}({text(arg)[:60]})"


#: Names of calls a comprehension item may use and still have a whole-array form.
ELEMENTWISE_CALLS = frozenset({"abs"})


def _elementwise(expr: ast.expr, var: str) -> bool:
    """Whether `expr` computes from `var` only through arithmetic, comparisons, boolean
    logic, conditionals, `abs()` and `np.*` calls, and is more than `var` itself."""
    if isinstance(expr, ast.Name):
        return False
    if not uses(expr, var):
        return False
    for node in ast.walk(expr):
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name) and func.id in ELEMENTWISE_CALLS:
                continue
            if (
                isinstance(func, ast.Attribute)
                and isinstance(func.value, ast.Name)
                and func.value.id in ("np", "numpy", "math")
            ):
                continue
            return False
        if isinstance(
            node,
            (
                ast.Subscript,
                ast.Attribute,
                ast.Lambda,
                ast.JoinedStr,
                ast.ListComp,
                ast.GeneratorExp,
                ast.Dict,
                ast.List,
                ast.Tuple,
            ),
        ):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in ("np", "numpy", "math")
            ):
                continue
            return False
    return True


def comprehension(tree: ast.Module) -> Iterator[Candidate]:
    """GPU205: a list/set/generator comprehension with one `for` over a name, attribute,
    subscript or call (not range/zip/enumerate/...) whose item computes elementwise from
    the loop variable."""
    for node in ast.walk(tree):
        if not isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp)) or len(node.generators) != 1:
            continue
        gen = node.generators[0]
        if not isinstance(gen.target, ast.Name):
            continue
        it = gen.iter
        if isinstance(it, (ast.List, ast.Tuple, ast.Set, ast.Constant)):
            continue
        if isinstance(it, ast.Call) and call_name(it) in NOT_ARRAY_CALLS:
            continue
        var = gen.target.id
        if (
            _elementwise(node.elt, var)
            or any(_elementwise(cond, var) for cond in gen.ifs)
            and isinstance(node.elt, ast.Name)
        ):
            yield node.lineno, f"[{text(node.elt)[:40]} for {var} in {text(it)[:30]}]"


MINERS: dict[str, Callable[[ast.Module], Iterable[Candidate]]] = {
    "GPU201": element_loop,
    "GPU202": grown_in_loop,
    "GPU203": vectorize,
    "GPU204": builtin_on_value,
    "GPU205": comprehension,
}
