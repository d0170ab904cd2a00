"""Fixer for GPU101 dataframe-grown-in-loop: collect the pieces in a list, build once.

Rewritten shapes (anything else gets the display-only suggestion):

    frame = pd.DataFrame()                       frame = pd.DataFrame()
    for x in xs:                                 parts = [frame]
        frame = pd.concat([frame, f(x)], ...) -> for x in xs:
                                                     parts.append(f(x))
                                                 frame = pd.concat(parts, ...)

    `[f(x), frame]` (prepending) becomes `pd.concat(parts[::-1], ...)`; several new
    pieces (`[frame, a, b]`) become `parts.extend([a, b])`. Safe with pandas where every
    piece is a row selection of one frame (`Growth.selection`) that provably stays the same
    while the pieces are taken (see "is the one concat the same as the chain?" below):
    then each column has one dtype across the pieces. Unsafe otherwise.

    frame = pd.DataFrame()                       frame = pd.DataFrame()
    for x in xs:                                 rows = []
        piece = pd.DataFrame({"a": [x]})     ->  for x in xs:
        frame = pd.concat([frame, piece],            rows.append({"a": x})
                          ignore_index=True)     if rows:
                                                     frame = pd.concat([frame, pd.DataFrame(rows, columns=["a"])],
                                                                       ignore_index=True)  (unsafe)

    where every new piece is a one-row frame literal (`Growth.rows`: inline, or a name used
    nowhere else, bound earlier in the same block) and the concat renumbers the rows
    (`ignore_index=True`): the rows are collected as dicts and the frame built once. The
    `if rows:` guard (left out where the loop always runs) keeps a loop that runs zero
    times from adding the columns. Without `ignore_index=True` the pieces keep index 0
    each, which records would renumber: the list-of-pieces rewrite applies instead.

    frame = frame.append(other_frame)        ->  as above, with `pd.concat` (unsafe)
    frame = frame.append({...}, ignore_index=True)
                                             ->  rows.append({...}) in the loop, then
                                                 frame = pd.concat([frame, pd.DataFrame(rows)],
                                                                   ignore_index=True) (unsafe)

    frame = pd.DataFrame(columns=cols)           frame = pd.DataFrame(columns=cols)
    for x in xs:                             ->  rows = []
        frame.loc[len(frame)] = [x, g(x)]        for x in xs:
                                                     rows.append([x, g(x)])
                                                 frame = pd.DataFrame(rows, columns=frame.columns)  (unsafe)

The list is created just before the outermost enclosing loop (of the current function) in
which the grown name is used by nothing but the growth statement, so nested loops are
collected into one list.

What the function (or module) does with its names is gathered once per scope, and what a
loop does once per loop, in `Growth.notes` (shared by the findings of one file), so a file
with many findings is walked a bounded number of times.
"""

from __future__ import annotations

import ast
from bisect import bisect_left
from collections.abc import Callable
from dataclasses import dataclass, field

import libcst as cst

from gpulint.astutil import all_args, mentions, walk_local
from gpulint.diagnostic import Applicability, Diagnostic, Edit, Fix
from gpulint.fixing import FixContext, display_fix
from gpulint.loop_effects import loop_effects
from gpulint.rules.dataframe.dataframe_grown_in_loop import VETTED, Growth, LoopSite, RowPiece, Selection
from gpulint.semantic import SemanticIndex

from ._loops import DYNAMIC_READERS
from ._vectorize import comments_in

SUGGESTION = (
    "append each piece to a list inside the loop and call `pd.concat(pieces)` once after it "
    "(start the list with the initial frame to keep its columns and dtypes)"
)
ROW_SUGGESTION = (
    "append each row to a list inside the loop and build the frame once after it: "
    "`pd.DataFrame(rows, columns=...)`"
)
MESSAGE = "collect the pieces in a list and concatenate once after the loop"
ROW_MESSAGE = "collect the rows in a list and build the frame once after the loop"

#: Module to import for `concat`/`DataFrame` when the source only calls a method.
_MODULES = {"pandas": ("pandas", "pd"), "cudf": ("cudf", "cudf"), "modin": ("modin.pandas", "mpd"),
            "dask": ("dask.dataframe", "dd")}
_AXIS_ROWS = (0, "index", "rows")
_CONCAT_KEYWORDS = frozenset({"ignore_index", "sort", "axis", "join"})
_APPEND_KEYWORDS = frozenset({"ignore_index", "sort"})


def fix(diagnostic: Diagnostic, ctx: FixContext) -> Fix | None:
    growth = diagnostic.context
    if not isinstance(growth, Growth):
        return None
    plan = _plan(growth, ctx)
    result = _rewrite(growth, plan, ctx) if plan is not None else None
    if result is None and plan is not None and plan.mode == "records":
        plan.mode = "parts"  # the records could not be written out: collect the pieces instead
        result = _rewrite(growth, plan, ctx)
    if result is not None:
        return result
    return display_fix(ROW_SUGGESTION if growth.kind == "loc" or (plan and plan.mode == "rows") else SUGGESTION)


# -- deciding what to write ------------------------------------------------------------------


class _Plan:
    """How one growth statement becomes list building."""

    def __init__(self, mode: str, name: str) -> None:
        #: "parts" (concat of pieces), "rows" (DataFrame of dict rows), "loc", or "records"
        #: (one-row frame literals collected as dict rows)
        self.mode = mode
        self.name = name  # the grown name
        self.pieces: list[ast.expr] = []  # what the loop appends ("parts": frames; else rows)
        self.prepend = False
        self.keywords: list[ast.keyword] = []  # kept for the call after the loop
        self.ignore_index = False
        self.sort = False
        self.site: LoopSite | None = None
        self.applicability = Applicability.UNSAFE


def _constant(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) or (
        isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant)
    )


def _keywords(call: ast.Call, allowed: frozenset[str], plan: _Plan) -> bool:
    """Check the call's options: only known ones, only constants, rows stacked (not columns)."""
    for keyword in call.keywords:
        if keyword.arg not in allowed or not _constant(keyword.value):
            return False
        value = keyword.value.value if isinstance(keyword.value, ast.Constant) else None
        if keyword.arg == "axis" and value not in _AXIS_ROWS:
            return False
        if keyword.arg == "join" and value != "outer":
            return False
        if keyword.arg == "ignore_index":
            if not isinstance(value, bool):
                return False
            plan.ignore_index = value
        if keyword.arg == "sort":
            if not isinstance(value, bool):
                return False
            plan.sort = value
    plan.keywords = list(call.keywords)
    return True


def _plan(growth: Growth, ctx: FixContext) -> _Plan | None:
    statement = growth.statement
    if not isinstance(growth.target, ast.Name) or not isinstance(statement, ast.Assign) or growth.in_try:
        return None
    plan = _Plan("parts", growth.target.id)
    call = growth.call
    if growth.kind == "concat":
        assert call is not None
        if len(call.args) != 1 or not isinstance(call.args[0], (ast.List, ast.Tuple)):
            return None
        if not _keywords(call, _CONCAT_KEYWORDS, plan):
            return None
        elements = call.args[0].elts
        if any(isinstance(e, ast.Starred) for e in elements):
            return None
        positions = [i for i, e in enumerate(elements) if isinstance(e, ast.Name) and e.id == plan.name]
        if positions == [0] and len(elements) >= 2:
            plan.pieces = elements[1:]
        elif positions == [1] and len(elements) == 2:
            plan.pieces, plan.prepend = [elements[0]], True
        else:
            return None
    elif growth.kind == "append":
        assert call is not None
        if not _keywords(call, _APPEND_KEYWORDS, plan):
            return None
        piece = call.args[0]
        target_kind = growth.target_type.kind if growth.target_type else ""
        piece_kind = growth.piece_type.kind if growth.piece_type else ""
        if target_kind in ("frame", "series") and piece_kind == target_kind:
            plan.pieces = [piece]
        elif target_kind == "frame" and isinstance(piece, ast.Dict) and plan.ignore_index \
                and None not in piece.keys:
            plan.mode = "rows"
            plan.pieces = [piece]
        else:
            return None
    else:
        row = statement.value
        if not (isinstance(row, (ast.List, ast.Tuple)) and row.elts
                and not any(isinstance(e, ast.Starred) for e in row.elts)):
            return None
        if growth.target_type is None or growth.target_type.kind != "frame":
            return None
        plan.mode = "loc"
        plan.pieces = [row]
    # Whatever the loop appends must not read the grown name itself.
    if any(mentions(piece, plan.name) for piece in plan.pieces):
        return None
    plan.site = _choose_loop(growth, plan.name)
    if plan.site is None or not _same_when_empty(growth, plan, plan.site):
        return None
    facts = _scope_facts(growth, ctx)
    if plan.name in facts.declared or plan.name in facts.outer_refs:
        return None  # a function or lambda could read or rebind it while the loop runs
    # Safe only where each column provably has one dtype across the pieces: then one concat
    # and the chain of pairwise ones agree (pandas only; see the rule's docs).
    if growth.kind == "concat" and _pieces_uniform(growth, facts, ctx):
        plan.applicability = Applicability.SAFE
    elif growth.kind == "concat" and _records_apply(growth, plan, facts):
        plan.mode = "records"
    return plan


def _records_apply(growth: Growth, plan: _Plan, facts: _ScopeFacts) -> bool:
    """Every new piece is a one-row frame literal (`Growth.rows`) and the concat renumbers
    the rows, so the rows can be collected as records and the frame built once. A named
    piece must be the only one, bound once in the scope and read only by the concat, with
    no jump between its binding and the growth statement."""
    rows = growth.rows
    if rows is None or not plan.ignore_index or plan.prepend:
        return False
    site = plan.site
    if (growth.target_type is not None and growth.target_type.kind == "series") or (
            site is not None and site.init_fresh and site.init_kind == "Series"):
        return False
    named = [piece for piece in rows if piece.binding is not None]
    if not named:
        return True
    if len(rows) != 1:
        return False
    piece = named[0]
    binding = piece.binding
    assert binding is not None
    target = binding.targets[0]
    name = target.id  # type: ignore[attr-defined]
    if name == plan.name or name in facts.params or name in facts.declared or name in facts.outer_refs \
            or any(reader in facts.loads for reader in DYNAMIC_READERS):  # `locals()` would miss it
        return False
    if [node for node, _ in facts.bindings.get(name, ())] != [binding] or len(facts.loads.get(name, ())) != 1:
        return False
    jumps = (ast.Break, ast.Continue, ast.Return, ast.Raise, ast.Yield, ast.YieldFrom, ast.Await)
    return not any(isinstance(node, jumps) for node in walk_local(piece.between))


def _choose_loop(growth: Growth, name: str) -> LoopSite | None:
    """The outermost enclosing loop whose only use of `name` is the growth statement and
    which always reaches the code after it (no `return`, `yield` or `raise` inside)."""
    own = sum(1 for node in ast.walk(growth.statement) if isinstance(node, ast.Name) and node.id == name)
    for site in growth.loops:
        effects = loop_effects(site.loop)
        if effects.uses[name] != own or effects.leaves:
            continue  # an inner loop may still qualify
        return site
    return None


def _same_when_empty(growth: Growth, plan: _Plan, site: LoopSite) -> bool:
    """Would a loop that runs zero times leave the same value as the rewrite computes?"""
    if plan.mode == "loc":
        # `.loc[len(df)]` appends only while the index is 0..n-1: a fresh, empty frame.
        init = site.init
        return (site.init_fresh and site.init_kind == "DataFrame" and init is not None
                and [k.arg for k in init.value.keywords] == ["columns"])  # type: ignore[attr-defined]
    if plan.mode == "rows":
        return site.init_fresh and site.init_kind == "DataFrame" or site.runs_once
    if site.runs_once:
        return True
    ty = growth.target_type
    if plan.ignore_index and not site.init_fresh:
        return False  # concat([start], ignore_index=True) resets any other index
    series = (ty is not None and ty.kind == "series") or (site.init_fresh and site.init_kind == "Series")
    columns = site.init_columns
    if plan.sort and not series and not (columns is not None and list(columns) == sorted(columns)):
        return False  # concat([start], sort=True) sorts the start's columns
    if site.init_fresh:
        return True
    return ty is not None and ty.kind in ("frame", "series", "ndframe")  # concat([None]) raises


# -- is the one concat the same as the chain? (fix safety) ----------------------------------
#
# It is where each column has one dtype across the pieces: every piece is a row selection of
# one pandas DataFrame (the detector's `Growth.selection`), and that frame is provably the same
# object with the same columns and dtypes whenever a piece is taken. Special methods
# (operators, `__len__`, `__format__`) are taken to leave frames alone.

#: Builtins that run no code of the objects given to them beyond their special methods.
_PURE_BUILTINS = frozenset({"len", "str", "repr", "print", "isinstance", "type", "id", "range"})
#: Methods that change their receiver in place (on a frame, a column, an index or `attrs`).
_MUTATORS = frozenset(
    "insert pop update clear setdefault popitem append extend remove discard add sort fill put resize "
    "itemset setfield set_names isetitem".split()
)
#: pandas methods that hand the frame (or its columns) to a function they are given.
_CALLBACK_METHODS = frozenset("pipe apply applymap map agg aggregate transform assign where mask".split())
#: What lets other code run, or changes an object in place, inside a loop (besides calls,
#: and stores into items and attributes).
_DISTURBING = (ast.With, ast.AsyncWith, ast.AsyncFor, ast.Await, ast.Import, ast.ImportFrom, ast.Global,
               ast.Nonlocal, ast.Yield, ast.YieldFrom)


@dataclass
class _ScopeFacts:
    """What one function (or class body, or the module) does with its names, as the
    semantic index records it: its own code, outside nested functions, lambdas and classes
    but with their decorators, defaults and annotations, which run in this scope."""

    #: The parent of a node (the index's parent map).
    parent: Callable[[ast.AST], ast.AST | None]
    params: frozenset[str] = frozenset()
    declared: set[str] = field(default_factory=set)  # `global`/`nonlocal` here
    #: name -> the nested functions, lambdas and classes that may read or rebind it
    outer_refs: dict[str, list[ast.AST]] = field(default_factory=dict)
    #: name -> (node, how) per binding; how: "call" (`name = f(...)`), "number" (`name = 0`),
    #: "list" (`name = [...]`), "augmented" (`name += ...`) or "other"
    bindings: dict[str, list[tuple[ast.AST, str]]] = field(default_factory=dict)
    star_import: bool = False  # `from m import *` may bind any name
    loads: dict[str, list[ast.Name]] = field(default_factory=dict)  # in source order
    reads: dict[str, _Reads] = field(default_factory=dict)  # judged on demand


@dataclass
class _Reads:
    """The reads of one name in one scope, in source order, each judged once."""

    at: list[tuple[int, int]]
    nodes: list[ast.Name]
    calm: list[bool]  # harmless while a loop runs (`_harmless_use`)
    first_escape: tuple[int, int] | None  # the first read that hands the frame on even before a loop


@dataclass
class _LoopFacts:
    """What one loop runs: its target (or test), body and `else:`, nested functions included."""

    names: dict[str, list[ast.Name]] = field(default_factory=dict)
    calls: list[ast.Call] = field(default_factory=list)
    iterables: list[ast.expr] = field(default_factory=list)  # of the loops and comprehensions in it
    augmented: set[str] = field(default_factory=set)  # names given `+=` and the like
    disturbs: bool = False  # a store into an item or attribute, `with`, `await`, `import` ...


def _pieces_uniform(growth: Growth, facts: _ScopeFacts, ctx: FixContext) -> bool:
    selection = growth.selection
    if selection is None:
        return False
    pure = _pure_builtins(ctx)
    vetted = growth.notes.get(VETTED, set())
    if selection.group_loop is not None:
        return _group_unchanged(growth, selection, facts, pure, vetted)
    entries = {id(piece) for piece in selection.pieces}
    return _private_frame(selection.root, growth, facts, pure, entries, vetted)


def _group_unchanged(growth: Growth, selection: Selection, facts: _ScopeFacts, pure: Callable[[str], bool],
                     vetted: set[int]) -> bool:
    """The pieces come from the group of `for key, group in frame.groupby(...)`: a new frame
    each iteration that only the loop can reach. It stays as it is if the loop does not
    rebind, change or hand it on and no function or lambda outside the loop mentions it. The
    groups are those of `frame` when the loop starts; where that loop sits in another one,
    `frame` must stay the same across the outer iterations too."""
    loop = selection.group_loop
    assert loop is not None
    root = selection.root
    inside = _loop_facts(loop, growth.notes)
    if root in facts.declared or root in loop_effects(loop).writes:
        return False
    if any(not _within(nested, loop) for nested in facts.outer_refs.get(root, ())):
        return False
    entries = {id(piece) for piece in selection.pieces}
    own = loop.target.elts[1]  # type: ignore[attr-defined]
    if not all(use is own or _harmless_use(use, facts.parent, entries, pure) for use in inside.names.get(root, ())):
        return False
    if loop is growth.loops[0].loop:
        return not any(_within(node, loop) for node, _ in facts.bindings.get(selection.grouped, ()))
    return _private_frame(selection.grouped, growth, facts, pure, set(), vetted)


def _private_frame(name: str, growth: Growth, facts: _ScopeFacts, pure: Callable[[str], bool], entries: set[int],
                   vetted: set[int]) -> bool:
    """`name` holds a frame that the function (or module) builds itself and keeps to itself,
    which nothing changes while the outermost loop runs, and that loop runs no code that could
    reach it: bound only to calls (the detector found it holds a pandas DataFrame), not a
    parameter, mentioned by no nested function, never handed on (`entries` are its uses as a
    piece), and the loop calm (see `_calm`)."""
    outer = growth.loops[0].loop
    if isinstance(growth.scope, ast.ClassDef) or name in facts.params or name in facts.declared \
            or name in facts.outer_refs or facts.star_import:
        return False
    bindings = facts.bindings.get(name)
    if not bindings or any(how != "call" or _within(node, outer) for node, how in bindings):
        return False
    start, end = (outer.lineno, outer.col_offset), (outer.end_lineno, outer.end_col_offset)
    uses = _reads(name, facts, pure)
    if uses.first_escape is not None and uses.first_escape < start:
        return False
    for index in range(bisect_left(uses.at, start), bisect_left(uses.at, end)):
        if not (uses.calm[index] or id(uses.nodes[index]) in entries):
            return False
    return _calm(outer, growth, facts, pure, vetted)


def _reads(name: str, facts: _ScopeFacts, pure: Callable[[str], bool]) -> _Reads:
    reads = facts.reads.get(name)
    if reads is None:
        nodes = facts.loads.get(name, [])
        at = [(n.lineno, n.col_offset) for n in nodes]
        escape = next((a for a, n in zip(at, nodes) if not _harmless_use(n, facts.parent, set(), pure, before=True)),
                      None)
        calm = [_harmless_use(n, facts.parent, set(), pure) for n in nodes]
        reads = facts.reads[name] = _Reads(at, nodes, calm, escape)
    return reads


def _calm(loop: ast.stmt, growth: Growth, facts: _ScopeFacts, pure: Callable[[str], bool], vetted: set[int]) -> bool:
    """Nothing in `loop` can change a frame in place or run code of the program's: it calls
    only pure builtins and the calls the detector vetted (`VETTED`), iterates only over `range(...)`,
    literals or a vetted `groupby`, stores into no item or attribute, uses no `with`,
    `await` or `import`, augments (`+=`) only counters bound to numbers, and appends only to
    local lists."""
    inside = _loop_facts(loop, growth.notes)
    if inside.disturbs:
        return False
    if not all(id(call) in vetted or _pure_call(call, pure) or _list_call(call, facts) for call in inside.calls):
        return False
    iterables = [*inside.iterables, *([loop.iter] if isinstance(loop, ast.For) else [])]
    if not all(_inert(iterable, vetted, pure) for iterable in iterables):
        return False
    return all(_only(name, ("number", "augmented"), facts) for name in inside.augmented)


def _pure_call(call: ast.Call, pure: Callable[[str], bool]) -> bool:
    return isinstance(call.func, ast.Name) and pure(call.func.id)


def _list_call(call: ast.Call, facts: _ScopeFacts) -> bool:
    """`pieces.append(x)` or `pieces.extend([x, y])` on a local only ever bound to lists."""
    func = call.func
    if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and len(call.args) == 1
            and not call.keywords and func.attr in ("append", "extend")):
        return False
    if func.attr == "extend" and not isinstance(call.args[0], (ast.List, ast.Tuple)):
        return False  # iterating anything else may run the program's code
    return _only(func.value.id, ("list",), facts)


def _inert(iterable: ast.expr, vetted: set[int], pure: Callable[[str], bool]) -> bool:
    """Iterating it runs none of the program's code."""
    if isinstance(iterable, (ast.List, ast.Tuple, ast.Set)):
        return True
    if isinstance(iterable, ast.Constant):
        return isinstance(iterable.value, (str, bytes))
    return isinstance(iterable, ast.Call) and (
        id(iterable) in vetted or (_pure_call(iterable, pure) and iterable.func.id == "range")  # type: ignore[attr-defined]
    )


def _only(name: str, kinds: tuple[str, ...], facts: _ScopeFacts) -> bool:
    """Every binding of the local `name` is of one of these kinds (see `_ScopeFacts.bindings`)."""
    bindings = facts.bindings.get(name)
    return bool(bindings) and name not in facts.params and name not in facts.declared \
        and name not in facts.outer_refs and all(how in kinds for _, how in bindings)  # type: ignore[union-attr]


def _within(node: ast.AST, loop: ast.AST) -> bool:
    return (loop.lineno, loop.col_offset) <= (node.lineno, node.col_offset) and (  # type: ignore[attr-defined]
        node.end_lineno, node.end_col_offset) <= (loop.end_lineno, loop.end_col_offset)  # type: ignore[attr-defined]


def _harmless_use(node: ast.Name, parent_of: Callable[[ast.AST], ast.AST | None], entries: set[int],
                  pure: Callable[[str], bool], before: bool = False) -> bool:
    """This read of the frame's name neither hands the frame to other code nor keeps it
    under another name (in a variable, a container or an attribute), and changes it only
    `before` the loop. Values derived through a subscript or a method call are new objects
    (copy-on-write); a method that takes a callback hands the frame on. Being one of the
    concat's `entries`, an operand, a condition, an iterable or an argument of a pure
    builtin is harmless."""
    if not isinstance(node.ctx, ast.Load):
        return False
    current: ast.AST = node
    derived = False
    while True:
        parent = parent_of(current)
        if isinstance(parent, ast.Attribute) and parent.value is current:
            current = parent
        elif isinstance(parent, ast.Subscript) and parent.value is current:
            if isinstance(parent.slice, ast.Lambda):
                return False  # `frame[lambda f: ...]` calls it with the frame
            current, derived = parent, True
        elif isinstance(parent, ast.Call) and parent.func is current and isinstance(current, ast.Attribute):
            method = current.attr
            arguments = [*parent.args, *(k.value for k in parent.keywords)]
            if method in _CALLBACK_METHODS or any(isinstance(a, ast.Lambda) for a in arguments):
                return False
            if not before and (method in _MUTATORS or method.startswith("_")
                               or any(k.arg in (None, "inplace") for k in parent.keywords)):
                return False
            current, derived = parent, True
        else:
            break
    if not isinstance(getattr(current, "ctx", ast.Load()), ast.Load):
        return before and current is not node  # `frame["c"] = ...` before the loop changes, keeps
    if derived or id(current) in entries:
        return True
    parent = parent_of(current)
    while isinstance(parent, ast.BoolOp):  # `a or frame` may be the frame itself
        current, parent = parent, parent_of(parent)
    if isinstance(parent, (ast.Compare, ast.BinOp, ast.UnaryOp, ast.FormattedValue, ast.Expr)):
        return True
    if isinstance(parent, (ast.If, ast.While, ast.IfExp, ast.Assert)) and parent.test is current:
        return True
    if isinstance(parent, (ast.For, ast.AsyncFor, ast.comprehension)) and parent.iter is current:
        return True
    if isinstance(parent, ast.Return):
        return before  # the loop does not run after it
    return (isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and pure(parent.func.id)
            and any(a is current for a in parent.args))


# -- facts gathered once per scope, loop and file ----------------------------------------------


def _scope_facts(growth: Growth, ctx: FixContext) -> _ScopeFacts:
    key = ("scope", id(growth.scope))
    facts = growth.notes.get(key)
    if facts is None:
        facts = growth.notes[key] = _gather_scope(growth.scope, ctx.semantic)  # type: ignore[arg-type]
    return facts


def _gather_scope(scope: ast.AST, index: SemanticIndex) -> _ScopeFacts:
    """The scope's facts from the semantic index: its bindings, classified by what they
    bind (`_how_bound`), and its own code's reads and nested scopes' free names."""
    facts = _ScopeFacts(index.parent)
    own = index.scope(scope)
    if own is None:
        return facts  # binds nothing known: every question about a name answers no
    if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
        facts.params = frozenset(a.arg for a in all_args(scope.args))
    uses = index.uses(scope)
    facts.declared, facts.outer_refs, facts.loads, facts.star_import = \
        own.declared, uses.free_in, uses.loads, uses.star_import
    for name, nodes in own.bindings.items():
        found = [(node.pattern if isinstance(node, ast.match_case) else node, _how_bound(node, name))
                 for node in nodes if not isinstance(node, ast.arg)]
        if found:
            facts.bindings[name] = found
    return facts


def _how_bound(binding: ast.AST, name: str) -> str:
    """How a binding node of the index binds `name`: "augmented", or by the value a plain
    `name = value` assigns, else "other"."""
    if isinstance(binding, ast.AugAssign):
        return "augmented"
    value = None
    if isinstance(binding, ast.Assign) and len(binding.targets) == 1 and isinstance(binding.targets[0], ast.Name) \
            and binding.targets[0].id == name:
        value = binding.value
    elif isinstance(binding, ast.AnnAssign) and isinstance(binding.target, ast.Name) and binding.target.id == name:
        value = binding.value
    if isinstance(value, ast.Call):
        return "call"
    if isinstance(value, ast.Constant) and type(value.value) in (int, float):
        return "number"
    if isinstance(value, (ast.List, ast.ListComp)):
        return "list"
    return "other"


def _loop_facts(loop: ast.stmt, notes: dict) -> _LoopFacts:
    key = ("loop", id(loop))
    facts = notes.get(key)
    if facts is None:
        facts = notes[key] = _gather_loop(loop)
    return facts


def _gather_loop(loop: ast.stmt) -> _LoopFacts:
    facts = _LoopFacts(disturbs=isinstance(loop, ast.AsyncFor))
    head = loop.test if isinstance(loop, ast.While) else loop.target  # type: ignore[attr-defined]
    stack: list[ast.AST] = [head, *loop.body, *loop.orelse]  # type: ignore[attr-defined]
    while stack:
        node = stack.pop()
        stack.extend(ast.iter_child_nodes(node))
        if isinstance(node, ast.Name):
            facts.names.setdefault(node.id, []).append(node)
        elif isinstance(node, ast.Call):
            facts.calls.append(node)
        elif isinstance(node, (ast.For, ast.comprehension)):
            facts.iterables.append(node.iter)
            facts.disturbs |= bool(getattr(node, "is_async", False))
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            facts.augmented.add(node.target.id)
        elif isinstance(node, (ast.Subscript, ast.Attribute)) and not isinstance(node.ctx, ast.Load):
            facts.disturbs = True
        elif isinstance(node, _DISTURBING):
            facts.disturbs = True
    return facts


def _pure_builtins(ctx: FixContext) -> Callable[[str], bool]:
    """Whether a name is one of the pure builtins and the file leaves it alone: binds it
    nowhere and has no `import *`."""

    def pure(name: str) -> bool:
        if name not in _PURE_BUILTINS:
            return False
        bound = ctx.bound_names()
        return name not in bound and "*" not in bound

    return pure


# -- writing it ----------------------------------------------------------------------------------


def _rewrite(growth: Growth, plan: _Plan, ctx: FixContext) -> Fix | None:
    site = plan.site
    assert site is not None
    loop = site.loop
    statements = ctx.parse_statements(loop, loop)
    if statements is None or len(statements) != 1:
        return None
    loop_cst = statements[0]
    name = plan.name
    collected = ctx.fresh_name("parts" if plan.mode == "parts" else "rows")
    records = _records(growth.rows, ctx) if plan.mode == "records" else None
    if plan.mode == "records" and records is None:
        return None
    replacer: _ReplaceGrowth | _ReplaceNamedPiece
    if records is not None and growth.rows[0].binding is not None:  # type: ignore[index]
        replacer = _ReplaceNamedPiece(plan.name, growth.rows[0].binding, collected, records[0])  # type: ignore[index]
    else:
        replacer = _ReplaceGrowth(plan, growth.kind, collected, records)
    new_loop = loop_cst.visit(replacer)
    if replacer.replaced != 1 or replacer.failed:
        return None

    import_edits: tuple[Edit, ...] = ()
    if growth.kind == "concat":
        callee = ctx.segment(growth.call.func)  # type: ignore[union-attr]
    elif plan.mode == "loc":
        callee = ctx.segment(site.init.value.func)  # type: ignore[union-attr]
    else:
        module, alias = _MODULES.get(growth.lib, _MODULES["pandas"])
        library, import_edits = ctx.ensure_import(module, alias)
        callee = f"{library}.concat"
    keywords = "".join(f", {ctx.segment(k)}" for k in plan.keywords)

    if plan.mode == "parts":
        before = f"{collected} = [{name}]"
        order = "[::-1]" if plan.prepend else ""
        after = f"{name} = {callee}({collected}{order}{keywords})"
    elif plan.mode == "rows":
        before = f"{collected} = []"
        frame = callee[: -len("concat")] + "DataFrame"
        after = f"{name} = {callee}([{name}, {frame}({collected})]{keywords})"
    elif plan.mode == "records":
        rows = growth.rows
        assert rows is not None
        labels: dict[str, str] = {}
        for piece in rows:
            for column in piece.columns:
                labels.setdefault(column.value, ctx.segment(column))  # type: ignore[attr-defined]
        before = f"{collected} = []"
        frame = ctx.segment(rows[0].literal.func)
        after = f"{name} = {callee}([{name}, {frame}({collected}, columns=[{', '.join(labels.values())}])]{keywords})"
    else:
        before = f"{collected} = []"
        after = f"{name} = {callee}({collected}, columns={name}.columns)"
    try:
        first = cst.parse_statement(before).with_changes(leading_lines=loop_cst.leading_lines)
        last = cst.parse_statement(after)
    except cst.ParserSyntaxError:
        return None
    if plan.mode == "records" and not site.runs_once:
        # Build the frame only if the loop added rows: as the original, which then never
        # calls `concat`, an empty loop leaves the start as it is.
        body = loop_cst.body
        if isinstance(body, cst.IndentedBlock):
            block = body.with_changes(body=[last], header=cst.TrailingWhitespace(), footer=[])
        else:
            block = cst.IndentedBlock(body=[last])
        last = cst.If(test=cst.Name(collected), body=block)
    new_loop = new_loop.with_changes(leading_lines=[])
    edit = ctx.replace_statements(loop, loop, [first, new_loop, last])
    message = ROW_MESSAGE if plan.mode in ("rows", "loc", "records") else MESSAGE
    return Fix(plan.applicability, message, (*import_edits, edit))


def _records(rows: list[RowPiece] | None, ctx: FixContext) -> list[str] | None:
    """Each one-row literal written as a dict row (`{"a": x, "b": y}`), from the source of
    its labels and values; None where a literal holds a comment (it would be lost)."""
    if rows is None:
        return None
    written = []
    for piece in rows:
        try:
            literal = cst.parse_expression(ctx.segment(piece.literal))
        except cst.ParserSyntaxError:
            return None
        if comments_in(literal):
            return None
        entries = ", ".join(f"{ctx.segment(c)}: {ctx.segment(v)}" for c, v in zip(piece.columns, piece.values))
        text = "{" + entries + "}"
        try:
            cst.parse_expression(text)
        except cst.ParserSyntaxError:
            return None
        written.append(text)
    return written


class _ReplaceGrowth(cst.CSTTransformer):
    """Swap the (only) growth statement in the loop for `<collected>.append(piece)` (with
    `records`: the dict rows written for its one-row frame literals, in order)."""

    def __init__(self, plan: _Plan, kind: str, collected: str, records: list[str] | None = None) -> None:
        self.plan = plan
        self.kind = kind
        self.collected = collected
        self.records = records
        self.replaced = 0
        self.failed = False
        self._carry: list[cst.Comment] = []

    def _is_growth(self, node: cst.Assign) -> bool:
        if len(node.targets) != 1:
            return False
        target = node.targets[0].target
        if self.kind == "loc":
            return (isinstance(target, cst.Subscript) and isinstance(target.value, cst.Attribute)
                    and isinstance(target.value.value, cst.Name) and target.value.value.value == self.plan.name
                    and target.value.attr.value == "loc")
        return isinstance(target, cst.Name) and target.value == self.plan.name

    def _pieces(self, node: cst.Assign) -> list[cst.BaseExpression] | None:
        if self.kind == "loc":
            return [node.value]
        call = node.value
        if not isinstance(call, cst.Call):
            return None
        first = call.args[0].value
        if self.kind == "append":
            return [first]
        if not isinstance(first, (cst.List, cst.Tuple)):
            return None
        values = [element.value for element in first.elements]
        return [v for v in values if not (isinstance(v, cst.Name) and v.value == self.plan.name)]

    def leave_Assign(self, original: cst.Assign, updated: cst.Assign) -> cst.BaseSmallStatement:
        if not self._is_growth(updated):
            return updated
        pieces = self._pieces(updated)
        if pieces is None or len(pieces) != len(self.plan.pieces):
            self.failed = True
            return updated
        self.replaced += 1
        kept = {id(line.comment) for piece in pieces for line in comments_in(piece)}
        if self.records is not None:  # the literals hold no comment (see `_records`)
            pieces = [cst.parse_expression(text) for text in self.records]
        self._carry.extend(line.comment for line in comments_in(updated) if id(line.comment) not in kept)
        collected = cst.Name(self.collected)
        if len(pieces) == 1:
            call = cst.Call(func=cst.Attribute(value=collected, attr=cst.Name("append")),
                            args=[cst.Arg(pieces[0])])
        else:
            comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
            elements = [cst.Element(p, comma=comma if i < len(pieces) - 1 else cst.MaybeSentinel.DEFAULT)
                        for i, p in enumerate(pieces)]
            call = cst.Call(func=cst.Attribute(value=collected, attr=cst.Name("extend")),
                            args=[cst.Arg(cst.List(elements))])
        return cst.Expr(call)

    def leave_SimpleStatementLine(self, original: cst.SimpleStatementLine,
                                  updated: cst.SimpleStatementLine) -> cst.SimpleStatementLine:
        if not self._carry:
            return updated
        carried = [cst.EmptyLine(comment=c) for c in self._carry]
        self._carry = []
        return updated.with_changes(leading_lines=[*updated.leading_lines, *carried])

    def leave_SimpleStatementSuite(self, original: cst.SimpleStatementSuite,
                                   updated: cst.SimpleStatementSuite) -> cst.SimpleStatementSuite:
        if self._carry:  # no line of its own to carry comments to
            self.failed = True
        return updated



class _ReplaceNamedPiece(cst.CSTTransformer):
    """Where the growth statement concatenates a one-row literal bound earlier in its block
    (`piece = pd.DataFrame(...)`), write `<collected>.append(<record>)` in place of the
    binding and drop the growth statement; its comments move above the new line."""

    def __init__(self, name: str, binding: ast.Assign, collected: str, record: str) -> None:
        self.name = name
        self.piece = binding.targets[0].id  # type: ignore[attr-defined]
        self.collected = collected
        self.record = record
        self.replaced = 0
        self.failed = False

    @staticmethod
    def _assigns_one(small: cst.BaseSmallStatement, names: tuple[str, ...]) -> bool:
        """`small` is `name = ...` with one plain-name target among `names`."""
        return (isinstance(small, cst.Assign) and len(small.targets) == 1
                and isinstance(small.targets[0].target, cst.Name) and small.targets[0].target.value in names)

    def _assigns(self, line: cst.BaseStatement, name: str) -> bool:
        return isinstance(line, cst.SimpleStatementLine) and any(self._assigns_one(small, (name,)) for small in line.body)

    def leave_SimpleStatementSuite(self, original: cst.SimpleStatementSuite,
                                   updated: cst.SimpleStatementSuite) -> cst.SimpleStatementSuite:
        if any(self._assigns_one(small, (self.name, self.piece)) for small in updated.body):
            self.failed = True  # `for ...: piece = ...; frame = ...` has no lines to keep comments on
        return updated

    def leave_IndentedBlock(self, original: cst.IndentedBlock, updated: cst.IndentedBlock) -> cst.IndentedBlock:
        body = list(updated.body)
        binding = [i for i, line in enumerate(body) if self._assigns(line, self.piece)]
        growth = [i for i, line in enumerate(body) if self._assigns(line, self.name)]
        if not binding and not growth:
            return updated
        if len(binding) != 1 or len(growth) != 1 or binding[0] >= growth[0] \
                or any(len(body[i].body) != 1 for i in (*binding, *growth)):  # type: ignore[attr-defined]
            self.failed = True
            return updated
        old = body[binding[0]]
        moved = comments_in(body[growth[0]])
        append = cst.Expr(cst.Call(func=cst.Attribute(value=cst.Name(self.collected), attr=cst.Name("append")),
                                   args=[cst.Arg(cst.parse_expression(self.record))]))
        body[binding[0]] = old.with_changes(body=[append], leading_lines=[*old.leading_lines, *moved])  # type: ignore[attr-defined]
        del body[growth[0]]
        self.replaced += 1
        return updated.with_changes(body=body)
