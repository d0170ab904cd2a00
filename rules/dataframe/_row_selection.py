"""Recognising the pieces of a pandas `concat` growth (GPU101) as row selections of one
DataFrame, and proving that frame unchanged while the pieces are taken.

One `concat` of [start, *pieces] and the chain of pairwise ones agree on values, index and
dtypes as long as each column has a single dtype across the pieces (measured with pandas
3.1, any start; see the docs page on fix safety). The evidence gathered here: every piece is
a row selection of one pandas DataFrame that keeps all its columns and their dtypes, even
when it selects nothing (`row_selection`, at the growth statement), and that frame is
provably the same object with the same columns and dtypes whenever a piece is taken
(`selection_unchanged`, over the whole function, once the file has been walked). Special
methods (operators, `__len__`, `__format__`) are taken to leave frames alone.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from bisect import bisect_left
from collections.abc import Callable
from dataclasses import dataclass, field

from gpulint.rule_api import (
    start_of,
    within,
    ARITHMETIC_OPERATORS,
    COMPARISON_OPERATORS,
    OTHER,
    Binding,
    LocalScope,
    mentions,
    RuleContext,
    SemanticIndex,
    Ty,
)
from gpulint.pandas_api import (
    CALLBACK_METHODS,
    COLUMN_REDUCTIONS,
    FRAME_ATTRIBUTES,
    IN_PLACE_METHODS,
    NULL_TESTS,
    ROW_TAKING_METHODS,
)

from ._growth import Growth, added_pieces

_MASK_OPERATORS = (ast.BitAnd, ast.BitOr, ast.BitXor)
_BACKTICKED = re.compile(r"`[^`]*`")
_LOCAL = "__gpulint_local__"
#: Builtins that run no code of the objects given to them beyond their special methods.
_PURE_BUILTINS = frozenset({"len", "str", "repr", "print", "isinstance", "type", "id", "range"})


@dataclass(frozen=True)
class Selection:
    """Every new piece of a pandas `concat` growth is a row selection of the pandas DataFrame
    held by `root` (see `_selection_root`): taken as it is or through head/tail/sample/...,
    `.iloc[a:b]`, `.loc[a:b]`, `.loc[<row mask>]` or `.query(<comparisons>)`. Each such piece
    keeps every column and its dtype, so the pieces share one dtype per column as long as
    nothing changes the frame while they are taken (`selection_unchanged`)."""

    root: str
    pieces: tuple[ast.expr, ...]
    #: The enclosing `for key, root in frame.groupby(...)` loop that binds `root`, if any:
    #: `frame` (`grouped`) is known to hold a pandas DataFrame and `grouping` is the call.
    group_loop: ast.For | None = None
    grouped: str = ""
    grouping: ast.Call | None = None


def row_selection(growth: Growth, ctx: RuleContext) -> Selection | None:
    """The row selections a pandas `concat` growth adds, when they all come from one frame:
    the group variable of an enclosing `for key, group in frame.groupby(...)`, or a name
    known here to hold a pandas DataFrame."""
    if growth.kind != "concat" or growth.lib != "pandas" or growth.call is None:
        return None
    pieces = added_pieces(growth)
    if pieces is None or any(isinstance(e, ast.Starred) for e in pieces):
        return None
    roots = {_selection_root(piece, ctx) for piece in pieces}
    if len(roots) != 1 or None in roots:
        return None
    root = roots.pop()
    assert root is not None
    for loop in reversed(ctx.loops):
        target = getattr(loop, "target", None)
        if not (
            isinstance(loop, ast.For)
            and isinstance(target, ast.Tuple)
            and len(target.elts) == 2
            and isinstance(target.elts[1], ast.Name)
            and target.elts[1].id == root
        ) or mentions(target.elts[0], root):
            continue
        grouping = loop.iter
        if (
            isinstance(grouping, ast.Call)
            and isinstance(grouping.func, ast.Attribute)
            and grouping.func.attr == "groupby"
            and isinstance(grouping.func.value, ast.Name)
            and grouping.func.value.id != root
            and _pandas_frame(ctx.type_of(grouping.func.value))
            and all(k.arg not in (None, "axis") for k in grouping.keywords)
            and not any(isinstance(a, ast.Starred) for a in grouping.args)
        ):
            return Selection(root, tuple(pieces), loop, grouping.func.value.id, grouping)
        return None
    return Selection(root, tuple(pieces)) if _pandas_frame(ctx.env.lookup(root)) else None


def vet(growth: Growth, selection: Selection, vetted: set[int]) -> None:
    """Note the growth's calls that run none of the program's code: the `concat`, the row
    selections and masks of its pieces, and the `groupby` of the group loop when it takes
    only constants (a callable would be called)."""
    vetted.add(id(growth.call))
    vetted.update(id(node) for piece in selection.pieces for node in ast.walk(piece) if isinstance(node, ast.Call))
    grouping = selection.grouping
    if grouping is not None and all(_constants(a) for a in (*grouping.args, *(k.value for k in grouping.keywords))):
        vetted.add(id(grouping))


def _constants(node: ast.expr) -> bool:
    if isinstance(node, (ast.List, ast.Tuple)):
        return all(isinstance(e, ast.Constant) for e in node.elts)
    return isinstance(node, ast.Constant)


def _pandas_frame(ty: Ty | None) -> bool:
    return ty is not None and ty.kind == "frame" and ty.lib == "pandas"


# -- the shape of one piece


def _selection_root(piece: ast.expr, ctx: RuleContext) -> str | None:
    """The name `piece` selects rows of, through head/tail/sample/nlargest/nsmallest/query/
    drop_duplicates/dropna/copy, `.iloc[a:b]` and `.loc[a:b]` / `.loc[<row mask>]`; else None.

    `frame[<mask>]` is not accepted: where the columns are a MultiIndex, `frame["a"]` is a
    frame, and indexing with a frame blanks values (`where`) instead of selecting rows.
    `.loc` with a frame raises instead."""
    node = piece
    masks: list[ast.expr] = []
    queries: list[str] = []
    while not isinstance(node, ast.Name):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            method = node.func.attr
            if any(isinstance(a, ast.Starred) for a in node.args):
                return None
            if method == "query":
                if (
                    len(node.args) != 1
                    or node.keywords
                    or not (isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str))
                ):
                    return None
                queries.append(node.args[0].value)
            elif method in ROW_TAKING_METHODS:
                positional, keywords = ROW_TAKING_METHODS[method]
                if len(node.args) > positional or any(k.arg not in keywords for k in node.keywords):
                    return None
            else:
                return None
            node = node.func.value
        elif (
            isinstance(node, ast.Subscript)
            and isinstance(node.value, ast.Attribute)
            and node.value.attr in ("loc", "iloc")
        ):
            if not isinstance(node.slice, ast.Slice):
                if node.value.attr == "iloc":
                    return None
                masks.append(node.slice)
            node = node.value.value
        else:
            return None
    root = node.id
    if all(_row_mask(mask, root, ctx) for mask in masks) and all(_query_mask(q, ctx) for q in queries):
        return root
    return None


def _column(node: ast.expr, root: str, ctx: RuleContext) -> bool:
    """`root["label"]` or `root.label` (label not a DataFrame attribute), also of another name
    known to hold a pandas DataFrame."""
    if isinstance(node, ast.Subscript):
        base, ok = node.value, isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str)
    elif isinstance(node, ast.Attribute):
        base, ok = node.value, node.attr not in FRAME_ATTRIBUTES and not node.attr.startswith("_")
    else:
        return False
    if not ok or not isinstance(base, ast.Name):
        return False
    return base.id == root or _pandas_frame(ctx.type_of(base))


def _row_mask(node: ast.expr, root: str, ctx: RuleContext) -> bool:
    """An expression that is a boolean Series over rows (a frame where a column label selects
    several columns, which `.loc` refuses), or raises."""
    if _column(node, root, ctx):
        return True  # a boolean column, or labels: `.loc` selects rows with any Series
    if isinstance(node, ast.BinOp) and isinstance(node.op, _MASK_OPERATORS):
        return _row_mask(node.left, root, ctx) and _row_mask(node.right, root, ctx)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Invert):
        return _row_mask(node.operand, root, ctx)
    if isinstance(node, ast.Compare):
        if len(node.ops) != 1 or not isinstance(node.ops[0], COMPARISON_OPERATORS):
            return False
        kinds = (_operand(node.left, root, ctx), _operand(node.comparators[0], root, ctx))
        return None not in kinds and "column" in kinds
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and _column(node.func.value, root, ctx)
        and not any(isinstance(a, ast.Starred) for a in node.args)
    ):
        method = node.func.attr
        if method == "isin":
            return len(node.args) == 1 and not node.keywords
        if method == "between":
            return (
                len(node.args) == 2
                and all(_operand(a, root, ctx) == "scalar" for a in node.args)
                and all(k.arg == "inclusive" and isinstance(k.value, ast.Constant) for k in node.keywords)
            )
        return method in NULL_TESTS and not node.args and not node.keywords
    if isinstance(node, ast.Name):
        ty = ctx.type_of(node)
        return ty is not None and (ty.kind, ty.lib) in (("series", "pandas"), ("array", "numpy"))
    return False


def _operand(node: ast.expr, root: str, ctx: RuleContext) -> str | None:
    """ "column" (a Series of the frame), "scalar" (not a frame), or None (unknown)."""
    if _column(node, root, ctx):
        return "column"
    if isinstance(node, ast.BinOp) and isinstance(node.op, ARITHMETIC_OPERATORS):
        kinds = (_operand(node.left, root, ctx), _operand(node.right, root, ctx))
        if None in kinds:
            return None
        return "column" if "column" in kinds else "scalar"
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        return _operand(node.operand, root, ctx)
    if isinstance(node, ast.Constant):
        return "scalar" if node.value is None or isinstance(node.value, (int, float, str)) else None
    if isinstance(node, ast.Name):
        return "scalar" if _plain_name(node.id, ctx) else None
    if isinstance(node, ast.Call) and not node.keywords:
        func = node.func
        if isinstance(func, ast.Name) and func.id == "len" and len(node.args) == 1 and ctx.env.lookup("len") is OTHER:
            return "scalar"
        if (
            isinstance(func, ast.Attribute)
            and _column(func.value, root, ctx)
            and (
                (func.attr in COLUMN_REDUCTIONS and not node.args)
                or (
                    func.attr == "quantile"
                    and len(node.args) == 1
                    and isinstance(node.args[0], ast.Constant)
                    and isinstance(node.args[0].value, float)
                )
            )
        ):
            return "scalar"
    return None


def _plain_name(name: str, ctx: RuleContext) -> bool:
    """The name holds a pandas Series, a NumPy array, or is the variable of an enclosing
    `for` over `range(...)` or a literal of numbers and strings that the loop does not rebind."""
    ty = ctx.env.lookup(name)
    if ty is not None and (ty.kind, ty.lib) in (("series", "pandas"), ("array", "numpy")):
        return True
    for loop in reversed(ctx.loops):
        if not isinstance(loop, ast.For) or not (isinstance(loop.target, ast.Name) and loop.target.id == name):
            continue
        if name in ctx.loop_effects(loop).writes:
            return False
        iterable = loop.iter
        if isinstance(iterable, (ast.List, ast.Tuple, ast.Set)):
            return all(_operand(e, "", ctx) == "scalar" and not isinstance(e, ast.Name) for e in iterable.elts)
        return (
            isinstance(iterable, ast.Call)
            and isinstance(iterable.func, ast.Name)
            and iterable.func.id == "range"
            and ctx.env.lookup("range") is OTHER
        )
    return False


def _query_mask(text: str, ctx: RuleContext) -> bool:
    """`frame.query(text)` selects rows: the expression (pandas' syntax, where `&`/`|` are
    `and`/`or`) is a comparison or a boolean combination of comparisons of columns with
    constants, other columns or `@names` holding plain values."""
    source = _BACKTICKED.sub(" __gpulint_column__ ", text)
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError):
        return False
    spelled: list[tuple[int, str]] = []
    local = False
    for token in tokens:
        if token.type == tokenize.OP and token.string == "@":
            local = True
            continue
        if local:
            if token.type != tokenize.NAME:
                return False
            spelled.append((tokenize.NAME, _LOCAL + token.string))
            local = False
        elif token.type == tokenize.OP and token.string in ("&", "|"):
            spelled.append((tokenize.NAME, "and" if token.string == "&" else "or"))
        elif token.type not in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.ENDMARKER):
            spelled.append((token.type, token.string))
    try:
        tree = ast.parse(tokenize.untokenize(spelled).strip(), mode="eval")
    except (SyntaxError, ValueError):
        return False
    return _query_condition(tree.body, ctx)


def _query_condition(node: ast.expr, ctx: RuleContext) -> bool:
    if isinstance(node, ast.BoolOp):
        return all(_query_condition(value, ctx) for value in node.values)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.Not, ast.Invert)):
        return _query_condition(node.operand, ctx)
    if not isinstance(node, ast.Compare):
        return False
    operands = [node.left, *node.comparators]
    for op, left, right in zip(node.ops, operands, operands[1:], strict=False):
        if isinstance(op, (ast.In, ast.NotIn)):
            if _query_operand(left, ctx) != "column":
                return False
            if not (
                _query_operand(right, ctx) is not None
                or (isinstance(right, ast.Name) and right.id.startswith(_LOCAL))
                or (
                    isinstance(right, (ast.List, ast.Tuple))
                    and all(_query_operand(e, ctx) == "scalar" for e in right.elts)
                )
            ):
                return False
        elif isinstance(op, COMPARISON_OPERATORS):
            kinds = (_query_operand(left, ctx), _query_operand(right, ctx))
            if None in kinds or "column" not in kinds:
                return False
        else:
            return False
    return True


def _query_operand(node: ast.expr, ctx: RuleContext) -> str | None:
    if isinstance(node, ast.Name):
        if node.id.startswith(_LOCAL):
            return "scalar" if _plain_name(node.id[len(_LOCAL) :], ctx) else None
        return "column"  # a column or an index level; anything else is an error in pandas
    if isinstance(node, ast.Constant):
        return "scalar" if isinstance(node.value, (int, float, str)) else None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        return _query_operand(node.operand, ctx)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ARITHMETIC_OPERATORS):
        kinds = (_query_operand(node.left, ctx), _query_operand(node.right, ctx))
        if None in kinds:
            return None
        return "column" if "column" in kinds else "scalar"
    return None


# -- is the frame the same whenever a piece is taken? ------------------------------------------


@dataclass
class FileFacts:
    """What the proof gathers about one file, shared by the file's growth statements."""

    #: Whether a name is one of the pure builtins and the file leaves it alone (`pure_builtins`).
    pure: Callable[[str], bool]
    #: The file's semantic index: its parent map, and its cache of answers per loop and name.
    index: SemanticIndex
    #: Ids of the calls known to run none of the program's code (`vet`): pandas `concat`,
    #: row selections and masks of pandas frames, a `groupby` taking only constants.
    vetted: set[int] = field(default_factory=set)


@dataclass
class _Reads:
    """The reads of one name in one scope, in source order, each judged once."""

    at: list[tuple[int, int]]
    nodes: list[ast.Name]
    calm: list[bool]  # harmless while a loop runs (`_harmless_use`)
    first_escape: tuple[int, int] | None  # the first read that hands the frame on even before a loop


def pure_builtins(bound_names: Callable[[], frozenset[str]]) -> Callable[[str], bool]:
    """Whether a name is one of the pure builtins and the file leaves it alone: binds it
    nowhere (`bound_names`: what the file binds, "*" for a star import; asked once)."""
    bound: list[frozenset[str]] = []

    def pure(name: str) -> bool:
        if name not in _PURE_BUILTINS:
            return False
        if not bound:
            bound.append(bound_names())
        return name not in bound[0] and "*" not in bound[0]

    return pure


def selection_unchanged(
    selection: Selection, outer: ast.stmt, scope: ast.AST, facts: LocalScope, file: FileFacts
) -> bool:
    """Each column has one dtype across the pieces: the frame they are selected from is the
    same, with the same columns and dtypes, whenever a piece is taken while `outer` (the
    outermost loop around the growth statement, in `scope`) runs."""
    if selection.group_loop is not None:
        return _group_unchanged(selection, outer, scope, facts, file)
    entries = {id(piece) for piece in selection.pieces}
    return _private_frame(selection.root, outer, scope, facts, file, entries)


def _group_unchanged(selection: Selection, outer: ast.stmt, scope: ast.AST, facts: LocalScope, file: FileFacts) -> bool:
    """The pieces come from the group of `for key, group in frame.groupby(...)`: a new frame
    each iteration that only the loop can reach. It stays as it is if the loop does not
    rebind, change or hand it on and no function or lambda outside the loop mentions it. The
    groups are those of `frame` when the loop starts; where that loop sits in another one,
    `frame` must stay the same across the outer iterations too."""
    loop = selection.group_loop
    assert loop is not None
    root = selection.root
    effects = file.index.loop_effects(loop)
    inside = effects.summary
    if root in facts.uses.declared or root in effects.writes:
        return False
    if any(not within(start_of(nested), loop) for nested in facts.uses.free_in.get(root, ())):
        return False
    entries = {id(piece) for piece in selection.pieces}
    own = loop.target.elts[1]  # type: ignore[attr-defined]
    if not all(
        use is own or _harmless_use(use, file.index.parent, entries, file.pure) for use in inside.names.get(root, ())
    ):
        return False
    if loop is outer:
        return not any(within(start_of(binding.node), loop) for binding in facts.bindings.get(selection.grouped, ()))
    return _private_frame(selection.grouped, outer, scope, facts, file, set())


def _private_frame(
    name: str, outer: ast.stmt, scope: ast.AST, facts: LocalScope, file: FileFacts, entries: set[int]
) -> bool:
    """`name` holds a frame that the function (or module) builds itself and keeps to itself,
    which nothing changes while the outermost loop runs, and that loop runs no code that could
    reach it: bound only to calls (the detector found it holds a pandas DataFrame), not a
    parameter, mentioned by no nested function, never handed on (`entries` are its uses as a
    piece), and the loop calm (see `_calm`)."""
    if (
        isinstance(scope, ast.ClassDef)
        or name in facts.params
        or name in facts.uses.declared
        or name in facts.uses.free_in
        or facts.uses.star_import
    ):
        return False
    bindings = facts.bindings.get(name)
    if not bindings or any(how_bound(b) != "call" or within(start_of(b.node), outer) for b in bindings):
        return False
    start, end = (outer.lineno, outer.col_offset), (outer.end_lineno, outer.end_col_offset)
    uses = _reads(name, scope, facts, file)
    if uses.first_escape is not None and uses.first_escape < start:
        return False
    for index in range(bisect_left(uses.at, start), bisect_left(uses.at, end)):
        if not (uses.calm[index] or id(uses.nodes[index]) in entries):
            return False
    return _calm(outer, facts, file)


def _reads(name: str, scope: ast.AST, facts: LocalScope, file: FileFacts) -> _Reads:
    return file.index.remember("reads of a frame", (scope, name), lambda: _judge_reads(name, facts, file))


def _judge_reads(name: str, facts: LocalScope, file: FileFacts) -> _Reads:
    pure = file.pure
    nodes = facts.uses.loads.get(name, [])
    at = [(n.lineno, n.col_offset) for n in nodes]
    escape = next(
        (
            a
            for a, n in zip(at, nodes, strict=False)
            if not _harmless_use(n, file.index.parent, set(), pure, before=True)
        ),
        None,
    )
    calm = [_harmless_use(n, file.index.parent, set(), pure) for n in nodes]
    return _Reads(at, nodes, calm, escape)


def _calm(loop: ast.stmt, facts: LocalScope, file: FileFacts) -> bool:
    """Nothing in `loop` can change a frame in place or run code of the program's: it calls
    only pure builtins and the calls vetted (`FileFacts.vetted`), iterates only over `range(...)`,
    literals or a vetted `groupby`, stores into no item or attribute, uses no `with`,
    `await` or `import`, augments (`+=`) only counters bound to numbers, and appends only to
    local lists."""
    inside = file.index.loop_effects(loop).summary
    pure, vetted = file.pure, file.vetted
    if inside.disturbs:
        return False
    if not all(id(call) in vetted or _pure_call(call, pure) or _list_call(call, facts) for call in inside.calls):
        return False
    iterables = [*inside.iterables, *([loop.iter] if isinstance(loop, ast.For) else [])]
    if not all(_inert(iterable, vetted, pure) for iterable in iterables):
        return False
    return all(facts.only_bound(name, _bound_to("number", "augmented")) for name in inside.augmented)


def how_bound(binding: Binding) -> str:
    """What a binding gives its name, as the proofs here tell bindings apart: "augmented"
    (`name += ...`), "call" (`name = f(...)`), "number" (`name = 0`), "list" (`name = [...]`)
    or "other"."""
    value = binding.value
    if binding.kind == "augmented":
        return "augmented"
    if isinstance(value, ast.Call):
        return "call"
    if isinstance(value, ast.Constant) and type(value.value) in (int, float):
        return "number"
    if isinstance(value, (ast.List, ast.ListComp)):
        return "list"
    return "other"


def _bound_to(*kinds: str) -> Callable[[Binding], bool]:
    return lambda binding: how_bound(binding) in kinds


def _pure_call(call: ast.Call, pure: Callable[[str], bool]) -> bool:
    return isinstance(call.func, ast.Name) and pure(call.func.id)


def _list_call(call: ast.Call, facts: LocalScope) -> bool:
    """`pieces.append(x)` or `pieces.extend([x, y])` on a local only ever bound to lists."""
    func = call.func
    if not (
        isinstance(func, ast.Attribute)
        and isinstance(func.value, ast.Name)
        and len(call.args) == 1
        and not call.keywords
        and func.attr in ("append", "extend")
    ):
        return False
    if func.attr == "extend" and not isinstance(call.args[0], (ast.List, ast.Tuple)):
        return False  # iterating anything else may run the program's code
    return facts.only_bound(func.value.id, _bound_to("list"))


def _inert(iterable: ast.expr, vetted: set[int], pure: Callable[[str], bool]) -> bool:
    """Iterating it runs none of the program's code."""
    if isinstance(iterable, (ast.List, ast.Tuple, ast.Set)):
        return True
    if isinstance(iterable, ast.Constant):
        return isinstance(iterable.value, (str, bytes))
    return isinstance(iterable, ast.Call) and (
        id(iterable) in vetted or (_pure_call(iterable, pure) and iterable.func.id == "range")  # type: ignore[attr-defined]
    )


def _harmless_use(
    node: ast.Name,
    parent_of: Callable[[ast.AST], ast.AST | None],
    entries: set[int],
    pure: Callable[[str], bool],
    before: bool = False,
) -> bool:
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
            if method in CALLBACK_METHODS or any(isinstance(a, ast.Lambda) for a in arguments):
                return False
            if not before and (
                method in IN_PLACE_METHODS
                or method.startswith("_")
                or any(k.arg in (None, "inplace") for k in parent.keywords)
            ):
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
    return (
        isinstance(parent, ast.Call)
        and isinstance(parent.func, ast.Name)
        and pure(parent.func.id)
        and any(a is current for a in parent.args)
    )
