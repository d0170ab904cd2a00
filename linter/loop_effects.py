"""What one `for`/`while` loop does with its names, and which of the values it grows feed
its own next iteration.

`loop_effects(loop)` answers, for the loop statement alone (standard `ast`, no types):

- `reads`: the names the loop reads (its `while` test, body and `else:`; a `for` loop's
  iterable runs once, before the loop, and is left out);
- `writes`: the names its body and `else:` bind in the loop's scope (a `for` target is
  bound by the loop itself and left out; comprehension variables and nested functions'
  locals are not the loop's; a name a nested `global`/`nonlocal` declares is);
- `carried`: the references (names, or attribute chains such as `self.frame`) that an
  iteration reads before it binds them and that the loop binds (or grows in place through
  `.loc`): the values one iteration hands to the next;
- `grown`: every reference the loop *grows*, that is rebinds to a call or an index
  expression that takes the reference itself as one input among others
  (`x = np.append(x, v)`, `df = pd.concat([df, piece])`, `t = torch.cat([t, v], dim=1)`,
  `x = np.r_[x, v]`, `df = df.append(row)`) or extends through `df.loc[len(df)] = row`,
  and that the loop carries; each is an **accumulation** or a **recurrence**.

A grown value is an *accumulation* when what the loop adds to it, and whether it adds
anything, never depends on what it holds: the value after the loop is the start followed
by pieces computed without it, so the pieces can be collected in a list and joined once.
It is a *recurrence* when the loop computes from it what it adds next
(`ids = torch.cat([ids, next_id], dim=1)` where `next_id` comes from `model(ids)`;
`x = np.append(x, f(x[-1]))`; `df = pd.concat([df, step(df)])`), rebinds it otherwise
(`x = x[-10:]`, `x += 1`), or tests what it holds to decide whether to grow it or to go on
(`if distance(p, kept).min() < r: continue`): joining once after the loop would change what
the loop computes. Code that only looks at the grown value (`print(x)`) or tests only its
size or kind (`while x.size < n`, `if len(df) > 100: break`, `if x is None:`,
`if sparse.issparse(x):`) leaves it an accumulation.

Approximations, all on the side of calling a loop a recurrence rather than missing one:

- Dependence is followed through the whole loop at once, in no order (flow-insensitive):
  a name bound from the grown value anywhere in the loop counts as depending on it
  everywhere, even where an earlier statement of the same iteration rebinds it.
- A value depends on its inputs; an assignment into an item or attribute (`buf[i] = v`,
  `self.last = v`) and a method called as a statement (`buf.append(v)`, `knn.fit(X, y)`)
  make the receiver depend on the values given (a call inside an expression is taken to
  return a new value, as `np.append(a, v)` does); other calls are assumed to change
  nothing.
- A test decides whether the grown value grows when it governs (in its `if`/`while`
  body or `else:`) a growth statement or a `break`, `continue`, `return` or `raise`. Reads inside a nested function or lambda count as reads of the
  statement that defines it.
- `carried` follows statement order, but takes no branch of an `if`, `try`, `match` or
  inner loop as certain to run: a name bound on one path only is read "before written".
- Attribute chains are compared by spelling: `self.frame` and `self.model` are distinct,
  a read of `self` as a whole touches both.
"""

from __future__ import annotations

import ast
from collections import Counter
from functools import cached_property
from typing import NamedTuple

from collections.abc import Callable

from .astutil import NESTED_SCOPES, STATEMENT_LOOPS, TRY_STATEMENTS, base_name, names_bound_by, walk_local

ACCUMULATION = "accumulation"
RECURRENCE = "recurrence"

#: What a test of a value's size or kind reads of it: `x.size`, `x.shape[0]`, `x.numel()`.
_SIZES = frozenset({"size", "shape", "ndim", "empty", "numel", "dtype", "dtypes"})
#: Functions that test the size or the kind of their first argument.
_KIND_TESTS = frozenset({"len", "isinstance", "type", "hasattr", "issparse", "isspmatrix", "is_tensor"})
#: Methods that return their receiver grown by their arguments (`df.append(row)`).
_GROWING_METHODS = frozenset({"append", "_append"})
_EXITS = (ast.Return, ast.Yield, ast.YieldFrom, ast.Raise)
_JUMPS = (ast.Break, ast.Continue, ast.Return, ast.Raise)
_MATCH = getattr(ast, "Match", ())


class Growth(NamedTuple):
    """One reference the loop grows: its growth statements, and their kind. A NamedTuple
    (start-up)."""

    name: str
    statements: tuple[ast.stmt, ...]
    kind: str  # ACCUMULATION or RECURRENCE


class LoopEffects:
    """What one loop reads, binds, carries and grows (see the module's docstring). Each
    part is worked out when first asked for."""

    def __init__(self, loop: ast.stmt) -> None:
        self.loop = loop
        self._head: ast.AST = loop.test if isinstance(loop, ast.While) else loop.target  # type: ignore[attr-defined]
        self._inside: list[ast.AST] = [*loop.body, *loop.orelse]  # type: ignore[attr-defined]

    @cached_property
    def reads(self) -> frozenset[str]:
        """Names the loop reads (its `while` test, body and `else:`)."""
        return self._names[0]

    @cached_property
    def uses(self) -> Counter:
        """How often each name occurs in the loop (every `Name`, nested functions included,
        and every `global`/`nonlocal` that declares it)."""
        return self._names[1]

    @cached_property
    def writes(self) -> frozenset[str]:
        """Names the body and `else:` bind in the loop's scope."""
        return frozenset(_local_writes(self._inside))

    @cached_property
    def leaves(self) -> bool:
        """The loop can end its function or raise from inside (`return`, `yield`, `raise`)."""
        return any(isinstance(node, _EXITS) for node in walk_local([self._head, *self._inside]))

    @cached_property
    def carried(self) -> frozenset[str]:
        """References an iteration reads before binding them and the loop binds (or grows
        in place through `.loc`)."""
        _, growths, bound = self._body
        bound = set(bound)
        if not isinstance(self.loop, ast.While):
            bound |= _stored(self.loop.target)[0]  # type: ignore[attr-defined]
        # A frame grown in place (`df.loc[len(df)] = row`) is handed on like a rebound one.
        bound |= {ref for statement, (ref, _) in growths if not _binds(statement)}
        exposed = _exposed(self.loop)
        return frozenset(ref for ref in bound if _touches({ref}, exposed))

    @cached_property
    def grown(self) -> dict[str, Growth]:
        """Every reference the loop grows and carries, with its kind."""
        flows, growths, _ = self._body
        by_name: dict[str, list[tuple[ast.stmt, list[ast.AST]]]] = {}
        for statement, (ref, pieces) in growths:
            if ref in self.carried:  # else bound afresh before it is grown: nothing accumulates
                by_name.setdefault(ref, []).append((statement, pieces))
        guards = _guards(self.loop, self.loop.body) if by_name else []  # type: ignore[attr-defined]
        grown: dict[str, Growth] = {}
        for ref, found in by_name.items():
            kind = RECURRENCE if _recurrent(ref, found, flows, guards) else ACCUMULATION
            grown[ref] = Growth(ref, tuple(statement for statement, _ in found), kind)
        return grown

    @cached_property
    def summary(self) -> LoopSummary:
        """Every name, call and iterable the loop runs, listed once (see `LoopSummary`)."""
        return _summary(self.loop)

    def kind(self, name: str) -> str | None:
        """ACCUMULATION or RECURRENCE for a reference the loop grows, else None."""
        growth = self.grown.get(name)
        return growth.kind if growth is not None else None

    @cached_property
    def _names(self) -> tuple[frozenset[str], Counter]:
        uses: Counter = Counter()
        reads: set[str] = set()
        for top in (self._head, *self._inside):
            for node in ast.walk(top):
                if isinstance(node, ast.Name):
                    uses[node.id] += 1
                    if isinstance(node.ctx, ast.Load):
                        reads.add(node.id)
                elif isinstance(node, (ast.Global, ast.Nonlocal)):
                    uses.update(node.names)
        return frozenset(reads), uses

    @cached_property
    def _body(self) -> tuple[list[_Flow], list, set[str]]:
        return _flows(self.loop.body)  # type: ignore[attr-defined]


def loop_effects(loop: ast.stmt) -> LoopEffects:
    """The effects of a `for`, `async for` or `while` loop, each part worked out when first
    asked for. The file's semantic index keeps one per loop (`SemanticIndex.loop_effects`):
    rules ask it, through `RuleContext.loop_effects`."""
    if not isinstance(loop, STATEMENT_LOOPS):
        raise TypeError(f"loop_effects needs a for or while loop, not {type(loop).__name__}")
    return LoopEffects(loop)


# -- references ------------------------------------------------------------------------------


def reference(node: ast.AST) -> str | None:
    """`a` or `a.b.c` for a name or an attribute chain over a name, else None."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def _related(a: str, b: str) -> bool:
    """One reference is the other or a part of it (`self` and `self.frame`)."""
    return a == b or a.startswith(b + ".") or b.startswith(a + ".")


def _touches(refs: set[str] | frozenset[str], others: set[str] | frozenset[str]) -> bool:
    return any(_related(a, b) for a in refs for b in others)


def _reads(node: ast.AST | None, skip: ast.AST | None = None, sizes_of: str | None = None) -> set[str]:
    """The longest references `node` reads (`self.model` in `self.model(x)`, not `self`),
    nested functions and lambdas included; `skip` (a node under it) is left out, and so
    are reads of only the size of `sizes_of` (`len(x)`, `x.shape[0]`, `x.size`)."""
    found: set[str] = set()
    stack = [node] if node is not None else []
    while stack:
        current = stack.pop()
        if current is skip:
            continue
        if sizes_of is not None and _size_of(current, sizes_of):
            continue
        if isinstance(current, (ast.Name, ast.Attribute)) and isinstance(current.ctx, ast.Load):
            ref = reference(current)
            if ref is not None:
                found.add(ref)
                continue
        stack.extend(ast.iter_child_nodes(current))
    return found


def _size_of(node: ast.AST, ref: str) -> bool:
    """`node` reads only the size or kind of `ref`, not what it holds: `ref.size`,
    `ref.shape`, `ref.ndim`, `ref.dtype`, `len(ref)`, `len(ref.index)`, `isinstance(ref, T)`,
    `sparse.issparse(ref)`, `ref is None`."""
    if isinstance(node, ast.Attribute) and node.attr in _SIZES:
        return reference(node.value) == ref
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.Is, ast.IsNot)):
        sides = (node.left, node.comparators[0])
        return any(
            reference(a) == ref and isinstance(b, ast.Constant) and b.value is None for a, b in (sides, sides[::-1])
        )
    if isinstance(node, ast.Call) and node.args and not any(isinstance(a, ast.Starred) for a in node.args):
        func = node.func
        called = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
        if called not in _KIND_TESTS:
            return False
        argument = node.args[0]
        if called == "len" and isinstance(argument, ast.Attribute) and argument.attr == "index":
            argument = argument.value
        return reference(argument) == ref
    return False


def _stored(target: ast.expr) -> tuple[set[str], set[str], set[str]]:
    """(bound, mutated, read) references of an assignment target: `a` and `self.a` are
    bound, `a[i]` mutates `a` (and reads `i`)."""
    bound: set[str] = set()
    mutated: set[str] = set()
    read: set[str] = set()
    stack = [target]
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Tuple, ast.List)):
            stack.extend(node.elts)
        elif isinstance(node, ast.Starred):
            stack.append(node.value)
        elif isinstance(node, (ast.Name, ast.Attribute)) and reference(node) is not None:
            bound.add(reference(node))  # type: ignore[arg-type]
        elif isinstance(node, ast.Subscript):
            base = node.value
            while isinstance(base, ast.Subscript):
                read |= _reads(base.slice)
                base = base.value
            ref = reference(base)
            if ref is not None:
                mutated.add(ref)
            else:
                read |= _reads(base)
            read |= _reads(node.slice)
        else:
            read |= _reads(node)
    return bound, mutated, read


# -- growth statements -----------------------------------------------------------------------


def growth_of(statement: ast.stmt) -> tuple[str, list[ast.AST]] | None:
    """(grown reference, the parts that compute what it grows by) when `statement` grows a
    reference: `r = f(..., r, ...)` / `r = f([..., r, ...])` with other inputs besides
    `r`, `r = r.append(x)`, `r = np.r_[r, x]`, or `r.loc[len(r)] = x`."""
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
        target, value = statement.targets[0], statement.value
    elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
        target, value = statement.target, statement.value
    else:
        return None
    if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Attribute) and target.value.attr == "loc":
        ref = reference(target.value.value)
        return (ref, [value]) if ref is not None else None
    ref = reference(target)
    if ref is None:
        return None
    if isinstance(value, ast.Call):
        func = value.func
        if isinstance(func, ast.Attribute) and func.attr in _GROWING_METHODS and reference(func.value) == ref:
            pieces: list[ast.AST] = [*value.args, *(k.value for k in value.keywords)]
            return (ref, pieces) if pieces else None
        inputs: list[ast.AST] = [*value.args, *(k.value for k in value.keywords)]
    elif isinstance(value, ast.Subscript) and isinstance(value.slice, ast.Tuple):
        inputs = list(value.slice.elts)
    else:
        return None
    spread: list[ast.AST] = []
    for item in inputs:
        spread.extend(item.elts if isinstance(item, (ast.List, ast.Tuple)) else [item])
    own = [item for item in spread if reference(item) == ref]
    if len(own) != 1 or len(spread) < 2:
        return None
    return ref, [item for item in spread if item is not own[0]]


# -- the analysis ----------------------------------------------------------------------------


class _Flow:
    """A statement's bindings: `targets` take values computed from the expressions `parts`
    and from the references `extra` (the indices of a target, or the target of `+=`). A slots
    class (start-up)."""

    __slots__ = ("targets", "parts", "extra", "statement", "_sources")

    def __init__(self, targets: set[str], parts: list[ast.AST], extra: set[str], statement: ast.AST) -> None:
        self.targets = targets
        self.parts = parts
        self.extra = extra
        self.statement = statement
        self._sources: dict = {}

    def sources(self, sizes_of: str | None = None) -> set[str]:
        found = self._sources.get(sizes_of)
        if found is None:
            found = set(self.extra)
            for part in self.parts:
                found |= _reads(part, sizes_of=sizes_of)
            self._sources[sizes_of] = found
        return found


def _binds(statement: ast.stmt) -> bool:
    """The growth statement rebinds its reference (all but the `.loc` form)."""
    target = statement.targets[0] if isinstance(statement, ast.Assign) else statement.target  # type: ignore[attr-defined]
    return not isinstance(target, ast.Subscript)


def _local_writes(nodes: list[ast.AST]) -> set[str]:
    """Names bound in the loop's own scope (comprehension variables and nested functions'
    locals excluded), and names a nested `global`/`nonlocal` lets other code rebind."""
    found: set[str] = set()
    comprehension_targets = {
        id(n) for node in walk_local(nodes) if isinstance(node, ast.comprehension) for n in ast.walk(node.target)
    }
    for node in walk_local(nodes):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load) and id(node) not in comprehension_targets:
            found.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.add(node.name)
        else:
            found.update(names_bound_by(node))
        if isinstance(node, NESTED_SCOPES):
            found.update(
                name for sub in ast.walk(node) if isinstance(sub, (ast.Global, ast.Nonlocal)) for name in sub.names
            )
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            found.update(node.names)
    return found


def _flows(body: list[ast.stmt]) -> tuple[list[_Flow], list, set[str]]:
    """Every binding in the loop's body as a flow, the growth statements, and every
    reference the body binds."""
    flows: list[_Flow] = []
    growths: list[tuple[ast.stmt, tuple[str, list[ast.AST]]]] = []
    bound: set[str] = set()

    def add(targets: set[str], parts: list, node: ast.AST, extra: set[str] | None = None) -> None:
        if targets:
            flows.append(_Flow(targets, [p for p in parts if p is not None], extra or set(), node))

    for node in walk_local(body):
        if isinstance(node, ast.stmt):
            found = growth_of(node)
            if found is not None:
                growths.append((node, found))
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if node.value is None:
                continue
            names: set[str] = set()
            extra: set[str] = set()
            for target in targets:
                stored, mutated, read = _stored(target)
                bound |= stored
                names |= stored | mutated
                extra |= read
            if isinstance(node, ast.AugAssign):
                extra |= _reads(node.target) | names
            add(names, [node.value], node, extra)
        elif isinstance(node, ast.NamedExpr):
            bound.add(node.target.id)
            add({node.target.id}, [node.value], node)
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            stored, mutated, read = _stored(node.target)
            bound |= stored
            add(stored | mutated, [node.iter], node, read)
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                if item.optional_vars is not None:
                    stored, mutated, read = _stored(item.optional_vars)
                    bound |= stored
                    add(stored | mutated, [item.context_expr], node, read)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
            add({node.name}, [node], node)
        elif (
            isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Call)
            and isinstance(node.value.func, ast.Attribute)
        ):
            # `buf.append(v)`, `knn.fit(X, y)` as a statement: run for what they do to their
            # receiver (`np.append(a, v)` in an expression returns a new array instead)
            call = node.value
            receiver = _base(call.func.value)  # type: ignore[attr-defined]
            if receiver is not None:
                add({receiver}, [*call.args, *call.keywords], node)
        elif isinstance(node, ast.Delete):
            for target in node.targets:
                bound |= _stored(target)[0]
        else:
            names = set(names_bound_by(node))
            bound |= names
            add(names, [], node)
    return flows, growths, bound


def _base(node: ast.AST) -> str | None:
    """The reference an item of which `node` is (`self.models` for `self.models[-1]`)."""
    while isinstance(node, ast.Subscript):
        node = node.value
    return reference(node)


def _guards(loop: ast.stmt, body: list[ast.stmt]) -> list[tuple[ast.expr, list[ast.stmt]]]:
    """The tests in the loop that decide whether statements run: each `if` and `while`
    test with the statements it governs, the loop's own `while` test with its body."""
    found: list[tuple[ast.expr, list[ast.stmt]]] = []
    if isinstance(loop, ast.While):
        found.append((loop.test, body))
    for node in walk_local(body):
        if isinstance(node, (ast.If, ast.While)):
            found.append((node.test, [*node.body, *node.orelse]))
    return found


def _recurrent(
    ref: str,
    growths: list[tuple[ast.stmt, list[ast.AST]]],
    flows: list[_Flow],
    guards: list[tuple[ast.expr, list[ast.stmt]]],
) -> bool:
    """Does what the loop grows `ref` by, whether it grows it, or another binding of it,
    depend on it?"""
    tainted = _closure(ref, flows)
    own = {id(statement) for statement, _ in growths}
    for _, pieces in growths:
        if any(_touches(_reads(piece), tainted) for piece in pieces):
            return True
    for flow in flows:
        if id(flow.statement) not in own and ref in flow.targets and _touches(flow.sources(), tainted):
            return True  # rebound from itself other than by growing: `x = x[-10:]`, `x += 1`
    # A test on what it holds (not only on its size) that decides whether it grows or
    # whether the iteration goes on: `if min(distance(p, kept)) < r: continue`.
    by_contents = _closure(ref, flows, sizes_of=ref)
    for test, governed in guards:
        if not _touches(_reads(test, sizes_of=ref), by_contents):
            continue
        if any(id(node) in own or isinstance(node, _JUMPS) for node in walk_local(governed)):
            return True
    return False


def _closure(ref: str, flows: list[_Flow], sizes_of: str | None = None) -> set[str]:
    """The references computed from `ref` in the loop (`sizes_of`: not counting what only
    its size decides)."""
    tainted = {ref}
    changed = True
    while changed:
        changed = False
        for flow in flows:
            if not flow.targets <= tainted and _touches(flow.sources(sizes_of), tainted):
                tainted |= flow.targets
                changed = True
    return tainted


# -- what an iteration reads before it binds ---------------------------------------------------


def _exposed(loop: ast.stmt) -> set[str]:
    """References an iteration may read before binding them in that iteration."""
    exposed: set[str] = set()
    if isinstance(loop, ast.While):
        _read(_reads(loop.test), set(), exposed)
        defined: set[str] = set()
    else:
        defined = _stored(loop.target)[0]  # type: ignore[attr-defined]
    _block(loop.body, defined, exposed)  # type: ignore[attr-defined]
    return exposed


def _read(refs: set[str], defined: set[str], exposed: set[str]) -> None:
    for ref in refs:
        if not any(ref == d or ref.startswith(d + ".") for d in defined):
            exposed.add(ref)


def _block(statements: list[ast.stmt], defined: set[str], exposed: set[str]) -> set[str]:
    """Walk a block in order; return the references certainly bound after it."""
    defined = set(defined)
    for statement in statements:
        defined = _statement(statement, defined, exposed)
    return defined


def _statement(node: ast.stmt, defined: set[str], exposed: set[str]) -> set[str]:
    if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        if isinstance(node, ast.AugAssign):
            _read(_reads(node.target) | _stored(node.target)[1], defined, exposed)
        _read(_reads(node.value), defined, exposed)
        if node.value is None:
            return defined
        bound: set[str] = set()
        for target in targets:
            stored, _, read = _stored(target)
            _read(read, defined, exposed)
            bound |= stored
        return defined | bound | _walrus(node)
    if isinstance(node, ast.If):
        _read(_reads(node.test), defined, exposed)
        defined = defined | _walrus(node.test)
        return _block(node.body, defined, exposed) & _block(node.orelse, defined, exposed)
    if isinstance(node, (ast.For, ast.AsyncFor)):
        _read(_reads(node.iter), defined, exposed)
        _block(node.body, defined | _stored(node.target)[0], exposed)
        _block(node.orelse, defined, exposed)
        return defined
    if isinstance(node, ast.While):
        _read(_reads(node.test), defined, exposed)
        defined = defined | _walrus(node.test)
        _block(node.body, defined, exposed)
        _block(node.orelse, defined, exposed)
        return defined
    if isinstance(node, (ast.With, ast.AsyncWith)):
        for item in node.items:
            _read(_reads(item.context_expr), defined, exposed)
            if item.optional_vars is not None:
                defined = defined | _stored(item.optional_vars)[0]
        return _block(node.body, defined, exposed)
    if isinstance(node, TRY_STATEMENTS):
        _block(node.body, defined, exposed)
        for handler in node.handlers:
            _read(_reads(handler.type), defined, exposed)
            _block(handler.body, defined | ({handler.name} if handler.name else set()), exposed)
        _block(node.orelse, defined, exposed)
        return _block(node.finalbody, defined, exposed)
    if _MATCH and isinstance(node, _MATCH):
        _read(_reads(node.subject), defined, exposed)
        for case in node.cases:
            _read(_reads(case.guard), defined, exposed)
            _block(case.body, defined, exposed)
        return defined
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        _read(_reads(node), defined, exposed)
        return defined | {node.name}
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return defined | {name for alias in node.names for name in names_bound_by(alias)}
    _read(_reads(node), defined, exposed)
    return defined | _walrus(node)


def _walrus(node: ast.AST | None) -> set[str]:
    """Names an `:=` in `node` binds (outside nested functions)."""
    if node is None:
        return set()
    return {sub.target.id for sub in walk_local([node]) if isinstance(sub, ast.NamedExpr)}


def recurrence_in(loops: list[ast.AST], name: str, effects: Callable[[ast.stmt], LoopEffects]) -> bool:
    """One of `loops` (the loops enclosing a growth statement; comprehensions are skipped)
    grows `name` as a recurrence (`effects`: the file's loop effects, `ctx.loop_effects`)."""
    return any(isinstance(loop, STATEMENT_LOOPS) and effects(loop).kind(name) == RECURRENCE for loop in loops)


def innermost_loop(loops: list[ast.AST]) -> ast.stmt | None:
    """The innermost `for`/`while` statement of `loops` (enclosing loops, outermost first;
    comprehensions are skipped)."""
    return next((loop for loop in reversed(loops) if isinstance(loop, STATEMENT_LOOPS)), None)


def carried_over(loops: list[ast.AST], name: str, effects: Callable[[ast.stmt], LoopEffects]) -> bool:
    """The innermost loop of `loops` hands `name` from one iteration to the next: it is not
    bound afresh (`x = start()`, `a, x = pair()`, a `for` target) before every read of it."""
    loop = innermost_loop(loops)
    return loop is not None and name in effects(loop).carried


# -- what a loop's code may change ----------------------------------------------------------


class LoopChanges:
    """Names a loop's code (re)binds, with how many bindings each, and names whose objects it
    may change in place. A slots class (start-up)."""

    __slots__ = ("bound", "mutated")

    def __init__(self, bound: Counter | None = None, mutated: set[str] | None = None) -> None:
        self.bound: Counter = Counter() if bound is None else bound
        self.mutated: set[str] = set() if mutated is None else mutated

    @property
    def varying(self) -> set[str]:
        return set(self.bound) | self.mutated


def loop_changes(parts: list[ast.AST], is_pure: Callable[[ast.Call], bool]) -> LoopChanges:  # noqa: C901
    """What the code of a loop (`parts`: its target, iterable or test, body and else; or a
    whole comprehension) may change. `is_pure(call)` says a call changes none of its
    arguments nor its receiver (the library knowledge is the caller's).

    Conservative: a name passed to a call that may keep or change it, a receiver of a method
    not known to leave it alone, a name used inside a function or lambda defined in the loop,
    all count as changed; so does whatever a changed alias (`v = w[0]`) points into."""
    changes = LoopChanges()
    aliases: dict[str, set[str]] = {}

    def mark(name: str | None) -> None:
        if name is not None:
            changes.mutated.add(name)

    for node in walk_local(parts):
        if isinstance(node, NESTED_SCOPES):
            if not isinstance(node, ast.Lambda):
                changes.bound[node.name] += 1
            inner = node.body if isinstance(node, ast.Lambda) else node
            changes.mutated.update(sub.id for sub in ast.walk(inner) if isinstance(sub, ast.Name))
            continue
        if isinstance(node, ast.Name):
            if not isinstance(node.ctx, ast.Load):
                changes.bound[node.id] += 1
        elif isinstance(node, (ast.Subscript, ast.Attribute)) and not isinstance(node.ctx, ast.Load):
            mark(base_name(node))
        elif isinstance(node, ast.AugAssign):
            mark(base_name(node.target))  # `t += 1` changes a tensor in place
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                changes.bound[(alias.asname or alias.name).split(".")[0]] += 1
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            changes.bound.update(node.names)
        elif (
            isinstance(node, ast.ExceptHandler)
            and node.name
            or hasattr(ast, "MatchAs")
            and isinstance(node, (ast.MatchAs, ast.MatchStar))
            and node.name
        ):
            changes.bound[node.name] += 1
        elif isinstance(node, ast.Call):
            pure = is_pure(node)
            if isinstance(node.func, ast.Attribute) and not pure:
                mark(base_name(node.func.value))
            if not pure:
                for argument in [*node.args, *(k.value for k in node.keywords)]:
                    mark(base_name(argument))
            for keyword in node.keywords:
                if keyword.arg == "out":
                    mark(base_name(keyword.value))
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            source = base_name(node.value)  # `v = w[0]`, `v = w.view(-1)`: v may share w's memory
            if source is not None:
                aliases.setdefault(node.targets[0].id, set()).add(source)
    # a changed alias changes what it points into
    grown = True
    while grown:
        grown = False
        for copy, sources in aliases.items():
            if copy in changes.mutated and not sources <= changes.mutated:
                changes.mutated |= sources
                grown = True
    return changes


# -- what a loop runs --------------------------------------------------------------------------

#: What lets other code run, or changes an object in place, inside a loop (besides calls,
#: and stores into items and attributes).
_DISTURBING = (
    ast.With,
    ast.AsyncWith,
    ast.AsyncFor,
    ast.Await,
    ast.Import,
    ast.ImportFrom,
    ast.Global,
    ast.Nonlocal,
    ast.Yield,
    ast.YieldFrom,
)


class LoopSummary:
    """What one loop runs: its target (or test), body and `else:`, nested functions and
    lambdas included. A slots class (start-up)."""

    __slots__ = ("names", "calls", "iterables", "augmented", "disturbs")

    def __init__(
        self,
        names: dict[str, list[ast.Name]] | None = None,
        calls: list[ast.Call] | None = None,
        iterables: list[ast.expr] | None = None,
        augmented: set[str] | None = None,
        disturbs: bool = False,
    ) -> None:
        #: name -> every occurrence of it, read or bound.
        self.names: dict[str, list[ast.Name]] = {} if names is None else names
        self.calls: list[ast.Call] = [] if calls is None else calls
        #: The iterables of the loops and comprehensions inside it.
        self.iterables: list[ast.expr] = [] if iterables is None else iterables
        #: Names given `+=` and the like.
        self.augmented: set[str] = set() if augmented is None else augmented
        #: It may let other code run or change an object in place besides its calls: a store into
        #: an item or attribute, `with`, `await`, async iteration, `import`, `global`, `yield`.
        self.disturbs = disturbs


def _summary(loop: ast.stmt) -> LoopSummary:
    summary = LoopSummary(disturbs=isinstance(loop, ast.AsyncFor))
    head = loop.test if isinstance(loop, ast.While) else loop.target  # type: ignore[attr-defined]
    stack: list[ast.AST] = [head, *loop.body, *loop.orelse]  # type: ignore[attr-defined]
    while stack:
        node = stack.pop()
        stack.extend(ast.iter_child_nodes(node))
        if isinstance(node, ast.Name):
            summary.names.setdefault(node.id, []).append(node)
        elif isinstance(node, ast.Call):
            summary.calls.append(node)
        elif isinstance(node, (ast.For, ast.comprehension)):
            summary.iterables.append(node.iter)
            summary.disturbs |= bool(getattr(node, "is_async", False))
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            summary.augmented.add(node.target.id)
        elif (
            isinstance(node, (ast.Subscript, ast.Attribute))
            and not isinstance(node.ctx, ast.Load)
            or isinstance(node, _DISTURBING)
        ):
            summary.disturbs = True
    return summary
