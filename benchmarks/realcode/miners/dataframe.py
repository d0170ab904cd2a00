"""Candidate finders for the dataframe rules (GPU101-GPU107), independent of gpulint.

Each miner takes a parsed module (a file, or one notebook cell) and yields
(line, note) for every syntactic candidate of its idiom, generously: the receiver's
type is never checked here, since deciding whether a candidate is really the idiom
is the hand-labeller's job. The line is the one gpulint reports: the call for a
call idiom, the loop's iterable for a loop idiom, the assignment for growth.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Iterator

Candidate = tuple[int, str]

#: Indexers that read or write single values or rows of a frame.
INDEXERS = frozenset({"loc", "iloc", "at", "iat"})


def text(node: ast.AST) -> str:
    """Source text of `node`, for comparing receivers and for notes."""
    return ast.unparse(node)


def walk_no_defs(nodes: Iterable[ast.AST]) -> Iterator[ast.AST]:
    """Every node under `nodes`, not entering nested functions, lambdas or classes."""
    stack = list(nodes)
    while stack:
        node = stack.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
                stack.append(child)


def loop_statements(tree: ast.Module) -> Iterator[tuple[ast.For | ast.AsyncFor | ast.While, ast.AST]]:
    """(loop, node) for every node in the body of a `for`/`while` loop (not its `else`)."""
    for loop in ast.walk(tree):
        if isinstance(loop, (ast.For, ast.AsyncFor, ast.While)):
            for node in walk_no_defs(loop.body):
                yield loop, node


def call_name(call: ast.Call) -> str:
    """The called attribute or name: `concat` for `pd.concat(...)`, `sum` for `sum(...)`."""
    func = call.func
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, ast.Name):
        return func.id
    return ""


def keyword(call: ast.Call, name: str) -> ast.expr | None:
    """The value passed as keyword `name`, or None."""
    for kw in call.keywords:
        if kw.arg == name:
            return kw.value
    return None


def loop_range_target(loop: ast.For) -> tuple[str, ast.expr] | None:
    """(loop variable, sized object) for `for i in range(len(x))`, `range(x.shape[0])`,
    `range(x.size)` or `range(0, len(x))`; None for any other loop."""
    if not isinstance(loop.target, ast.Name):
        return None
    it = loop.iter
    if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range"):
        return None
    if not it.args or len(it.args) > 2:
        return None
    if len(it.args) == 2 and not (isinstance(it.args[0], ast.Constant) and it.args[0].value == 0):
        return None
    bound = it.args[-1]
    if (
        isinstance(bound, ast.Call)
        and isinstance(bound.func, ast.Name)
        and bound.func.id == "len"
        and len(bound.args) == 1
    ):
        sized = bound.args[0]
        if isinstance(sized, ast.Attribute) and sized.attr == "index":
            sized = sized.value
        return loop.target.id, sized
    if isinstance(bound, ast.Subscript) and isinstance(bound.value, ast.Attribute) and bound.value.attr == "shape":
        return loop.target.id, bound.value.value
    if isinstance(bound, ast.Attribute) and bound.attr == "size":
        return loop.target.id, bound.value
    return None


def uses(node: ast.AST, name: str) -> bool:
    """Whether the name `name` is read anywhere in `node`."""
    return any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(node))


def grown_in_loop(tree: ast.Module) -> Iterator[Candidate]:
    """GPU101: `x = <any>.concat([... x ...])`, `x = x.append(...)`/`x._append(...)` and
    `x.loc[len(x)] = row` inside a loop body."""
    for _loop, node in loop_statements(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.value, ast.Call):
            target = text(node.targets[0])
            call = node.value
            name = call_name(call)
            if name == "concat" and call.args and isinstance(call.args[0], (ast.List, ast.Tuple)):
                if any(text(e) == target for e in call.args[0].elts):
                    yield node.lineno, f"{target} = concat([... {target} ...])"
            elif (
                name in ("append", "_append")
                and isinstance(call.func, ast.Attribute)
                and text(call.func.value) == target
            ):
                yield node.lineno, f"{target} = {target}.{name}(...)"
        if isinstance(node, ast.Assign):
            for t in node.targets:
                if (
                    isinstance(t, ast.Subscript)
                    and isinstance(t.value, ast.Attribute)
                    and t.value.attr == "loc"
                    and isinstance(t.slice, ast.Call)
                    and call_name(t.slice) == "len"
                    and t.slice.args
                    and text(t.slice.args[0]) == text(t.value.value)
                ):
                    yield node.lineno, f"{text(t.value.value)}.loc[len(...)] = row"


def iterrows(tree: ast.Module) -> Iterator[Candidate]:
    """GPU102: every `.iterrows()` call, wherever it is iterated."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "iterrows":
            yield node.lineno, f"{text(node.func.value)}.iterrows()"


def index_loop(tree: ast.Module) -> Iterator[Candidate]:
    """GPU103: `for i in x.index` / `range(len(x))` / `range(x.shape[0])` whose body indexes
    `x` through an indexer or a column with the loop variable."""
    for loop in ast.walk(tree):
        if not isinstance(loop, ast.For) or not isinstance(loop.target, ast.Name):
            continue
        it = loop.iter
        if isinstance(it, ast.Attribute) and it.attr == "index":
            var, sized = loop.target.id, it.value
        else:
            found = loop_range_target(loop)
            if found is None:
                continue
            var, sized = found
        frame = text(sized)
        for node in walk_no_defs(loop.body):
            if not isinstance(node, ast.Subscript) or not uses(node.slice, var):
                continue
            base = node.value
            if isinstance(base, ast.Attribute) and base.attr in INDEXERS:
                base = base.value
            elif isinstance(base, ast.Subscript):
                base = base.value
                if isinstance(base, ast.Attribute) and base.attr in INDEXERS:
                    base = base.value
            else:
                continue
            if text(base) == frame:
                yield it.lineno, f"for {var} over {frame}: {text(node)[:60]}"
                break


def _axis_columns(call: ast.Call) -> bool:
    axis = keyword(call, "axis")
    if axis is None and len(call.args) >= 2:
        axis = call.args[1]
    return isinstance(axis, ast.Constant) and axis.value in (1, "columns")


def apply_axis_1(tree: ast.Module) -> Iterator[Candidate]:
    """GPU104: every `.apply(..., axis=1)` or `axis="columns"` call, any receiver."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and call_name(node) == "apply" and isinstance(node.func, ast.Attribute):
            if _axis_columns(node):
                f = text(node.args[0])[:50] if node.args else "?"
                yield node.lineno, f"{text(node.func.value)[:40]}.apply({f}, axis=1)"


#: Builtins with a vectorized form, as GPU105 lists them.
VECTORIZABLE_BUILTINS = frozenset({"abs", "float", "int", "bool", "round", "len", "str"})


def _simple_lambda(fn: ast.Lambda) -> bool:
    """Whether a lambda only combines its argument with constants and names through
    arithmetic, single comparisons, conditionals, the builtins above and `str` methods."""
    for node in ast.walk(fn.body):
        if isinstance(node, ast.Call):
            name = call_name(node)
            if isinstance(node.func, ast.Name) and name not in VECTORIZABLE_BUILTINS:
                return False
            if isinstance(node.func, ast.Attribute) and not hasattr(str, name):
                return False
        elif (
            isinstance(node, ast.Compare)
            and len(node.ops) > 1
            or isinstance(node, (ast.Subscript, ast.Lambda, ast.comprehension, ast.Dict))
        ):
            return False
    return True


def elementwise_apply(tree: ast.Module) -> Iterator[Candidate]:
    """GPU105: `.apply(f)`, `.map(f)`, `.applymap(f)` with one positional argument that is a
    vectorizable builtin, a `str.method` or a one-parameter lambda (the note says whether
    its body has only vectorizable operations)."""
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        if node.func.attr not in ("apply", "map", "applymap") or len(node.args) != 1:
            continue
        if keyword(node, "axis") is not None:
            continue
        receiver = node.func.value
        if isinstance(receiver, ast.Call) and call_name(receiver) == "groupby":
            continue
        f = node.args[0]
        if isinstance(f, ast.Name) and f.id in VECTORIZABLE_BUILTINS:
            kind = "builtin"
        elif isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "str":
            kind = "str method"
        elif isinstance(f, ast.Lambda) and len(f.args.args) == 1:
            kind = "simple lambda" if _simple_lambda(f) else "complex lambda"
        else:
            continue
        yield node.lineno, f"{kind}: {text(node)[:70]}"


def _groupby_receiver(node: ast.expr) -> bool:
    """Whether a method chain passes through `.groupby(...)` (or `.rolling`/`.resample`
    are not groupbys and do not count)."""
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        if isinstance(node, ast.Call):
            if call_name(node) == "groupby":
                return True
            node = node.func
        else:
            node = node.value
    return False


def groupby_lambda(tree: ast.Module) -> Iterator[Candidate]:
    """GPU106: `.apply/.transform/.agg/.aggregate(lambda ...)` or `(len)` on a chain that
    goes through `.groupby(...)`."""
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        if node.func.attr not in ("apply", "transform", "agg", "aggregate") or not node.args:
            continue
        f = node.args[0]
        if not (isinstance(f, ast.Lambda) or (isinstance(f, ast.Name) and f.id == "len")):
            continue
        if _groupby_receiver(node.func.value):
            yield node.lineno, f"groupby ... .{node.func.attr}({text(f)[:60]})"


def chained_assignment(tree: ast.Module) -> Iterator[Candidate]:
    """GPU107: an assignment through two indexing steps: `x[a][b] = v`,
    `x[a].loc[b] = v` (also at/iloc/iat), `x.loc[a][b] = v` (also iloc)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AugAssign):
            targets = [node.target]
        else:
            continue
        for t in targets:
            if not isinstance(t, ast.Subscript):
                continue
            inner = t.value
            if isinstance(inner, ast.Attribute) and inner.attr in INDEXERS:
                inner = inner.value
            if isinstance(inner, ast.Subscript):
                yield node.lineno, f"{text(t)[:70]} = ..."
                break


MINERS: dict[str, Callable[[ast.Module], Iterable[Candidate]]] = {
    "GPU101": grown_in_loop,
    "GPU102": iterrows,
    "GPU103": index_loop,
    "GPU104": apply_axis_1,
    "GPU105": elementwise_apply,
    "GPU106": groupby_lambda,
    "GPU107": chained_assignment,
}
