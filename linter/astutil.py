"""Small helpers over the standard library's `ast`, shared by rules and fixers.

Dependency-free on purpose: detectors run on `ast` only (libcst is for fixers).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator

#: Binary operators that work the same elementwise on columns and arrays as on scalars.
ARITHMETIC_OPERATORS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow)
#: Comparison operators that compare elementwise (not `is`, `in` and their negations).
COMPARISON_OPERATORS = (ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE)


def is_reference(node: ast.AST) -> bool:
    """A name or an attribute chain over a name (`frame`, `self.frame`): an expression
    that can be written twice without calling anything."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name)


def same_reference(a: ast.AST, b: ast.AST) -> bool:
    """Two spellings of the same name or attribute chain (`df`, `self.frame`)."""
    if isinstance(a, ast.Name) and isinstance(b, ast.Name):
        return a.id == b.id
    if isinstance(a, ast.Attribute) and isinstance(b, ast.Attribute):
        return a.attr == b.attr and same_reference(a.value, b.value)
    return False


def mentions(node: ast.AST, name: str) -> bool:
    """`name` occurs as a `Name` anywhere under `node` (read, written or deleted, nested
    functions and lambdas included)."""
    return any(isinstance(sub, ast.Name) and sub.id == name for sub in ast.walk(node))


def mentions_any(nodes: ast.AST | list[ast.expr], names: set[str] | frozenset[str]) -> bool:
    """One of `names` occurs as a `Name` anywhere under `nodes` (one node or a list)."""
    roots = nodes if isinstance(nodes, list) else [nodes]
    return any(isinstance(sub, ast.Name) and sub.id in names for root in roots for sub in ast.walk(root))


def value_bound_to(statement: ast.stmt, name: str) -> ast.expr | None:
    """The value of an assignment statement with `name` as one of its whole targets
    (`name = v`, `a = name = v`, `name: T = v`), else None."""
    if isinstance(statement, ast.Assign):
        targets = statement.targets
    elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
        targets = [statement.target]
    else:
        return None
    return statement.value if any(isinstance(t, ast.Name) and t.id == name for t in targets) else None


def assigned_value(statement: ast.stmt, name: str) -> ast.expr | None:
    """The value of `name = value` (or `name: T = value`) with `name` its only target, else None."""
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
        target = statement.targets[0]
        if isinstance(target, ast.Name) and target.id == name:
            return statement.value
    if isinstance(statement, ast.AnnAssign) and statement.value is not None:
        if isinstance(statement.target, ast.Name) and statement.target.id == name:
            return statement.value
    return None


def paired_value(statement: ast.stmt, name: str) -> ast.expr | None:
    """The value `name` takes in `a, name = x, y` (see `unpacked_element`), else None."""
    if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1):
        return None
    return unpacked_element(statement.targets[0], name, statement.value)


def unpacked_element(target: ast.expr, name: str, value: ast.expr | None) -> ast.expr | None:
    """The element of `value`, a literal tuple or list as long as `target`, that unpacking
    it into `target` binds to `name` (`b` in `a, b = [1, 2], [3]`); None for anything else
    (a starred element on either side included)."""
    if not (
        isinstance(target, (ast.Tuple, ast.List))
        and isinstance(value, (ast.Tuple, ast.List))
        and len(target.elts) == len(value.elts)
        and not any(isinstance(e, ast.Starred) for e in (*target.elts, *value.elts))
    ):
        return None
    return next(
        (v for t, v in zip(target.elts, value.elts, strict=True) if isinstance(t, ast.Name) and t.id == name), None
    )


def keyword_value(call: ast.Call, name: str) -> ast.expr | None:
    """The value passed to the call as `name=...`, if any."""
    return next((k.value for k in call.keywords if k.arg == name), None)


def all_args(args: ast.arguments) -> list[ast.arg]:
    """Every parameter: positional-only, positional, keyword-only, then `*args`, `**kwargs`."""
    every = [*args.posonlyargs, *args.args, *args.kwonlyargs]
    if args.vararg:
        every.append(args.vararg)
    if args.kwarg:
        every.append(args.kwarg)
    return every


#: Nodes whose body is a scope of its own (comprehensions aside).
NESTED_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
#: Loops written as statements (comprehensions aside).
STATEMENT_LOOPS = (ast.For, ast.AsyncFor, ast.While)
#: `try` statements, `except*` ones too where the Python running gpulint has them.
TRY_STATEMENTS = (ast.Try, *((ast.TryStar,) if hasattr(ast, "TryStar") else ()))
#: Builtins that read a scope's names without naming them.
DYNAMIC_READERS = frozenset({"locals", "vars", "dir", "eval", "exec"})


def walk_local(nodes: Iterable[ast.AST]) -> Iterator[ast.AST]:
    """Every node under `nodes` (themselves included), in no particular order, without
    descending into nested functions, lambdas or classes: those nodes are yielded, their
    insides (decorators and defaults included) are not."""
    stack = list(nodes)
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, NESTED_SCOPES):
            stack.extend(ast.iter_child_nodes(node))


_MATCH_CAPTURES = tuple(getattr(ast, name) for name in ("MatchAs", "MatchStar") if hasattr(ast, name))
_MATCH_MAPPING = getattr(ast, "MatchMapping", ())


def names_bound_by(node: ast.AST) -> list[str]:
    """Names bound by an import alias, `except ... as`, or a match pattern ("*" for a star
    import); names bound as `Name` targets and by `def`/`class` are left to the caller."""
    if isinstance(node, ast.alias):
        return [node.asname or node.name.split(".")[0]]
    if isinstance(node, (ast.ExceptHandler, *_MATCH_CAPTURES)):
        return [node.name] if node.name else []  # type: ignore[attr-defined]
    if _MATCH_MAPPING and isinstance(node, _MATCH_MAPPING):
        return [node.rest] if node.rest else []
    return []


def bound_names(nodes: Iterable[ast.AST]) -> set[str]:
    """Every name `nodes` bind in the scope they run in: assignment, loop, `with` and `del`
    targets, walrus, imports, `def`/`class`, `except ... as`, match captures (comprehension
    variables included, which is more than Python binds; nested scopes' insides not)."""
    found: set[str] = set()
    for node in walk_local(nodes):
        found.update(bound_here(node))
    return found


def bound_here(node: ast.AST) -> list[str]:
    """The names `node` itself binds (not its children): a `Name` target, a `def` or
    `class`, and what `names_bound_by` names."""
    if isinstance(node, ast.Name):
        return [] if isinstance(node.ctx, ast.Load) else [node.id]
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    return names_bound_by(node)


def range_arguments(node: ast.AST | None) -> list[ast.expr] | None:
    """The arguments of `range(stop)` or `range(start, stop)` called by name, with no step,
    keyword or `*`; None for anything else. Whether `range` is the builtin is the caller's
    question."""
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "range"
        and len(node.args) in (1, 2)
        and not node.keywords
        and not any(isinstance(a, ast.Starred) for a in node.args)
    ):
        return list(node.args)
    return None


def literal_int(node: ast.expr | None) -> int | None:
    """The value of a literal non-negative integer (`3`; not `True`)."""
    if isinstance(node, ast.Constant) and type(node.value) is int and node.value >= 0:
        return node.value
    return None


def signed_int(node: ast.expr | None) -> int | None:
    """The value of a literal integer, negative ones (`-3`) included."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        value = literal_int(node.operand)
        return -value if value is not None else None
    return literal_int(node)


def evaluated_outside(node: ast.AST) -> list[ast.AST]:
    """The parts of a nested function, lambda or class that run in the enclosing scope:
    decorators, defaults, annotations, base classes and class keywords."""
    if isinstance(node, ast.ClassDef):
        return [*node.decorator_list, *node.bases, *node.keywords]
    arguments = node.args  # type: ignore[attr-defined]
    parts: list[ast.AST] = [*arguments.defaults, *(d for d in arguments.kw_defaults if d is not None)]
    if not isinstance(node, ast.Lambda):
        parts += [*node.decorator_list, *(a.annotation for a in all_args(arguments) if a.annotation)]  # type: ignore[attr-defined]
        if node.returns is not None:  # type: ignore[attr-defined]
            parts.append(node.returns)  # type: ignore[attr-defined]
    return parts


def free_names(node: ast.AST) -> set[str]:
    """Names of the enclosing scope that a nested function, lambda or class may read or
    rebind (a function's parameters and its own locals are its own)."""
    body = node.body if isinstance(node.body, list) else [node.body]  # type: ignore[attr-defined]
    referenced: set[str] = set()
    assigned: set[str] = set()
    declared: set[str] = set()
    for sub in walk_local(body):
        if isinstance(sub, ast.Name):
            referenced.add(sub.id)
            if not isinstance(sub.ctx, ast.Load):
                assigned.add(sub.id)
        elif isinstance(sub, (ast.Global, ast.Nonlocal)):
            referenced.update(sub.names)
            declared.update(sub.names)
        elif isinstance(sub, ast.alias):
            assigned.add(sub.asname or sub.name.split(".")[0])
        elif isinstance(sub, NESTED_SCOPES):
            referenced |= free_names(sub)
            referenced.update(
                n.id for part in evaluated_outside(sub) for n in ast.walk(part) if isinstance(n, ast.Name)
            )
            if not isinstance(sub, ast.Lambda):
                assigned.add(sub.name)
    if isinstance(node, ast.ClassDef):
        return referenced
    return referenced - (assigned - declared) - {a.arg for a in all_args(node.args)}  # type: ignore[attr-defined]


def base_name(node: ast.AST) -> str | None:
    """The name an attribute/subscript/method chain starts from: `w` in `w.data[0].view(-1)`."""
    while True:
        if isinstance(node, (ast.Attribute, ast.Subscript, ast.Starred)):
            node = node.value
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            node = node.func.value
        else:
            break
    return node.id if isinstance(node, ast.Name) else None


def start_of(node: ast.AST) -> tuple[int, int]:
    """Where a node starts (a match case where its pattern does)."""
    if isinstance(node, ast.match_case):
        node = node.pattern
    return node.lineno, node.col_offset  # type: ignore[attr-defined]


def end_of(node: ast.AST) -> tuple[int, int]:
    """Where a node ends ((0, 0) for one without end positions)."""
    return getattr(node, "end_lineno", None) or 0, getattr(node, "end_col_offset", None) or 0


def within(place: tuple[int, int], outer: ast.AST) -> bool:
    """`place` (a line and column) lies inside `outer`'s span, its ends included."""
    return (outer.lineno, outer.col_offset) <= place <= end_of(outer)  # type: ignore[attr-defined]


def bare_method_call(node: ast.AST, names: frozenset[str] | set[str]) -> bool:
    """`node` calls one of the methods `names` with no argument (`x.keys()`, `df.describe()`)."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in names
        and not node.args
        and not node.keywords
    )


def parses(code: str, mode: str = "exec") -> bool:
    """Whether `ast` reads `code` (`mode`: "exec" for statements, "eval" for an expression):
    what a fix writes, or a snippet it rewrites, read alone."""
    try:
        ast.parse(code, mode=mode)
    except (SyntaxError, ValueError):
        return False
    return True
