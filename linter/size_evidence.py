"""Size evidence: whether a value is known to hold only a few rows or elements.

Rules whose advice is "do this in one vectorised call" (GPU102-GPU105, GPU202, GPU204,
GPU205) gain nothing on toy-sized data: a three-row demo frame, the five neighbours a
nearest-neighbour lookup returns, a two-element array written out by hand. `known_small`
answers, for an expression at the node a rule is looking at, "this value holds at most
`SMALL` items along its first axis" (rows of a frame or Series, elements of a 1-D array,
rows of a 2-D one, items of a list), and `few_iterations` the same for the number of
times a loop runs (or that it runs once per class of an array, selecting that class's
elements: `for c in np.unique(y): ... y == c`).

The evidence comes from the code, never from names:

- literals: `[1, 2, 3]`, `pd.DataFrame({"a": [1, 2, 3]})`, `np.array([2, 5])`,
  `range(4)`;
- constructors and random factories with a literal shape: `np.zeros(4)`,
  `np.random.standard_normal((4, 3))`, `rng.random(100)`, `torch.rand(2, 3)`,
  `np.linspace(0, 1)` (50 points);
- a literal number of rows taken: `.head(n)`, `.tail(n)`, `.sample(n)`, `.nlargest(n, ...)`,
  `.nsmallest(n, ...)`, `.most_common(n)`, `x[:n]`, `x.iloc[:n]`;
- library knowledge: `Dataset.get_nearest_examples(..., k=5)` (Hugging Face datasets)
  returns the scores and the columns of `k` examples;
- what keeps or shrinks the rows of a small value: a column (`frame["a"]`), a filter
  (`frame[mask]`), `.copy()`, `.sort_values()`, `.to_numpy()`, `.values`, a ufunc
  (`np.cos(a)`), arithmetic between small values and constants, `list()`, `sorted()`...;
- a name, followed to the assignment that reaches the current statement on every path
  (`RuleContext.reaching_assignment`; an unpacked tuple included), when nothing between
  that assignment and the current statement (or in a loop around it) may add rows to it
  in place (`.append()`, `.extend()`, `.loc[...] = `, an item assignment other than a
  frame's column), and no nested function or `global` statement can rebind it.

Anything else is not known to be small (a parameter, a file read, a value computed by a
call this module does not know), so a rule that asks stays as it was.
"""

from __future__ import annotations

import ast
import bisect
import math
from typing import TYPE_CHECKING
from collections.abc import Callable

from .astutil import (
    STATEMENT_LOOPS,
    keyword_value,
    literal_int,
    same_reference,
    signed_int,
    end_of,
    start_of,
    unpacked_element,
    value_bound_to,
    walk_local,
    within,
)
from .datasets_api import BATCHING_LOADERS, DATASET_SIZES, STEPPED_LOADERS
from .early_exit import breaks_off_within
from .evidence import PROGRESS_BARS
from .numpy_api import is_numpy_ufunc
from . import numpy_api, torch_api
from .numpy_api import Shape

if TYPE_CHECKING:
    from .rule_base import RuleContext
    from .semantic import SemanticIndex

#: At most this many rows or elements: a Python loop over them costs microseconds, so the
#: vectorised form saves nothing worth a finding.
SMALL = 100
#: At most this many batches: a loop over a loader that hands out so few runs a few times
#: per pass (an evaluation over a benchmark's two-graph test split), whatever each batch holds.
FEW_BATCHES = 16
#: How many assignments a question may follow, name to name (`b = a.copy()` after `a = np.array(...)`).
_DEPTH = 6

#: Functions and classes whose result has as many rows as their first argument.
_SAME_ROWS = frozenset(
    {
        "numpy.array",
        "numpy.asarray",
        "numpy.asanyarray",
        "numpy.ascontiguousarray",
        "numpy.copy",
        "numpy.sort",
        "numpy.unique",
        "numpy.abs",
        "numpy.round",
        "numpy.around",
        "numpy.nan_to_num",
        "numpy.clip",
        "cupy.array",
        "cupy.asarray",
        "pandas.Series",
        "pandas.Index",
        "pandas.Categorical",
        "pandas.DataFrame.from_records",
        *(f"torch.{name}" for name, factory in torch_api.FACTORIES.items() if not factory.fills),
    }
)
#: Frame constructors whose rows are their data's: a list of rows, or a dict of columns.
_FRAMES = frozenset({"pandas.DataFrame", "pandas.DataFrame.from_dict", "modin.pandas.DataFrame"})
#: Builtins whose result has at most as many items as their (first) argument.
_SAME_ITEMS_BUILTINS = frozenset({"list", "tuple", "set", "frozenset", "sorted", "reversed", "enumerate"})
#: Kinds of value whose arithmetic is element-wise (a list's `*` repeats it instead).
_ELEMENTWISE_KINDS = frozenset({"array", "series", "frame", "tensor"})
#: Methods whose result has at most as many rows as their receiver.
_ROW_KEEPING_METHODS = frozenset(
    {
        "copy",
        "to_numpy",
        "tolist",
        "to_list",
        "to_frame",
        "sort_values",
        "sort_index",
        "reset_index",
        "set_index",
        "dropna",
        "drop_duplicates",
        "fillna",
        "astype",
        "round",
        "abs",
        "rename",
        "query",
        "unique",
        "drop",
        "filter",
        "iterrows",
        "itertuples",
        "cpu",
        "numpy",
        "detach",
        "clone",
        "float",
        "int",
        "argsort",
        "cumsum",
        "diff",
        "isna",
        "notna",
        "replace",
        "clip",
        "value_counts",
    }
)
#: Attributes that keep the rows of their value.
_ROW_KEEPING_ATTRIBUTES = frozenset({"values", "index", "array", "real", "imag", "str", "dt", "cat"})
#: Methods that take a literal number of rows: the position and keyword of that number,
#: and the number when it is not given.
_TAKES_ROWS = {
    "head": (0, "n", 5),
    "tail": (0, "n", 5),
    "nlargest": (0, "n", None),
    "nsmallest": (0, "n", None),
    "most_common": (0, "n", None),
    "sample": (0, "n", None),
}
#: Factories and the position and keyword of their shape (or size), from the library specs
#: (`numpy_api.SHAPES`, `torch_api.FACTORIES`).
_FACTORIES: dict[str, Shape] = {
    **{f"numpy.{name}": shape for name, shape in numpy_api.SHAPES.items()},
    **{f"torch.{name}": ("*", None, None) for name, factory in torch_api.FACTORIES.items() if factory.shape == "*"},
}
_GENERATOR_METHODS = numpy_api.GENERATOR_SHAPES
#: Methods that add items to their receiver in place.
_GROWING_METHODS = frozenset({"append", "extend", "insert", "update", "resize", "setdefault", "add", "__setitem__"})


def known_small(node: ast.expr, ctx: RuleContext) -> bool:
    """`node`, an expression of the current statement, holds at most `SMALL` rows or
    elements along its first axis, by the evidence the module docstring lists."""
    bound = _Sizer(ctx).bound(node, _DEPTH, None)
    return bound is not None and bound <= SMALL


def few_iterations(loop: ast.AST, ctx: RuleContext) -> bool:
    """A `for` loop (or comprehension generator) of the current statement runs only a few
    times: its body breaks out of it after at most `FEW_BATCHES` iterations by a counter
    or a `break` of its own (`gpulint.early_exit`: `if i == 2: break`), it iterates a loader known to hand out at most `FEW_BATCHES` batches
    (`loader_batches`), a value `known_small` holds small (at most `SMALL` items), or it
    walks groups (`selects_by_label`): once per class, and each iteration scans the whole
    array anyway, so what the loop does once per iteration costs no more than that scan."""
    iterable = getattr(loop, "iter", None)
    if iterable is None:
        return False
    if breaks_off_within(loop, ctx, FEW_BATCHES):
        return True
    batches = loader_batches(iterable, ctx)
    if batches is not None:
        return batches <= FEW_BATCHES
    return known_small(iterable, ctx) or selects_by_label(loop, ctx)


def loader_batches(iterable: ast.expr, ctx: RuleContext) -> int | None:
    """How many batches a loop over `iterable` gets, when it is a loader (or `enumerate`, a
    progress bar around one) over a dataset of known size (`DATASET_SIZES`, or a slice of
    one) with a `batch_size` known to be at least some number (`_Loaders.at_least`: a
    literal, names and parameters holding one, a script option's literal default), or one whose literal arguments say how many batches it
    hands out per pass (`STEPPED_LOADERS`: a GraphSAINT sampler's `num_steps=5`): a loader
    made in the loop's scope, bound once at the module's top level, or handed to the loop's
    function as an argument at every call of it in the file. None when any of that is not
    known."""
    return ctx.semantic.remember(
        "loader_batches", iterable, lambda: _Loaders(ctx).batches(iterable, ctx.statement_scope, _LOADER_DEPTH)
    )


def selects_by_label(loop: ast.AST, ctx: RuleContext) -> bool:
    """`loop` (a `for` statement) walks groups: its body selects the elements of an array
    equal to its variable, `np.flatnonzero(y == c)`, `x[y == c]`, `mask = y == c` (the
    comparison used as a mask or passed to a NumPy function), or its iterable is the
    distinct values of an array its body compares with its variable
    (`for c in np.unique(y): ... y == c`)."""
    if not isinstance(loop, (ast.For, ast.AsyncFor)):
        return False
    iterable, target = loop.iter, loop.target
    if (
        isinstance(iterable, ast.Call)
        and isinstance(iterable.func, ast.Name)
        and iterable.func.id == "enumerate"
        and iterable.args
        and isinstance(target, ast.Tuple)
        and len(target.elts) == 2
    ):
        iterable, target = iterable.args[0], target.elts[1]  # `for i, c in enumerate(np.unique(y))`
    variable = _loop_variable(target)
    if variable is None:
        return False
    labels = _distinct_values_of(iterable, ctx)
    for node in walk_local(loop.body):
        if not (isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], ast.Eq)):
            continue
        left, right = node.left, node.comparators[0]
        if _is_name(right, variable):
            other = left
        elif _is_name(left, variable):
            other = right
        else:
            continue
        if labels is not None and same_reference(other, labels):
            return True
        if _used_as_mask(node, ctx):
            return True
    return False


# -- loaders --------------------------------------------------------------------------------


class _Loaders:
    """`loader_batches`: names are followed to the one value they can hold (see there)."""

    def __init__(self, ctx: RuleContext) -> None:
        self.ctx = ctx

    def batches(self, node: ast.expr, scope: ast.AST, depth: int) -> int | None:
        if depth <= 0:
            return None
        if isinstance(node, ast.Name):
            return self._largest(node, scope, depth, self.batches)
        if not isinstance(node, ast.Call):
            return None
        ctx = self.ctx
        counted = ctx.env.enumerated(node)
        if counted is not None:
            return self.batches(counted, scope, depth - 1)
        qualname = ctx.qualname(node.func)
        if qualname in PROGRESS_BARS:
            return self.batches(node.args[0], scope, depth - 1) if node.args else None
        if qualname in STEPPED_LOADERS:
            if any(k.arg is None for k in node.keywords) or any(isinstance(a, ast.Starred) for a in node.args):
                return None  # the count may come from `**options`
            position, keyword, default = STEPPED_LOADERS[qualname]
            steps = node.args[position] if len(node.args) > position else keyword_value(node, keyword)
            return default if steps is None else literal_int(steps)
        if qualname not in BATCHING_LOADERS or any(keyword_value(node, k) is not None for k in _DRAWN_BY):
            return None
        dataset = node.args[0] if node.args else keyword_value(node, "dataset")
        size = node.args[1] if len(node.args) > 1 else keyword_value(node, "batch_size")
        per_batch = 1 if size is None else self.at_least(size, scope, depth - 1)
        items = self.items(dataset, scope, depth - 1) if dataset is not None else None
        return None if items is None or not per_batch else -(-items // per_batch)

    def items(self, node: ast.expr, scope: ast.AST, depth: int) -> int | None:
        """Items of a dataset: a known one, a slice of one, or one shuffled or copied."""
        if depth <= 0:
            return None
        if isinstance(node, ast.Name):
            part = self._split_part(node, scope, depth)
            return part if part is not None else self._largest(node, scope, depth, self.items)
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice):
            return _smallest(self._slice_items(node.slice, scope, depth - 1), self.items(node.value, scope, depth - 1))
        if not isinstance(node, ast.Call):
            return None
        if isinstance(node.func, ast.Attribute) and node.func.attr in _SAME_ITEMS_METHODS and not node.args:
            return self.items(node.func.value, scope, depth - 1)
        qualname = self.ctx.qualname(node.func)
        return _dataset_items(DATASET_SIZES[qualname], node) if qualname in DATASET_SIZES else None

    def _split_part(self, name: ast.Name, scope: ast.AST, depth: int) -> int | None:
        """Items of one part of `random_split`, when the name's one binding (in `scope`, or
        at the module's top level) unpacks it with literal lengths, `train, val =
        random_split(ds, [50000, 10000])`; or with literal fractions of a dataset of known
        size (torch gives each part its floor and the remainder one by one, so at most the
        ceiling)."""
        index = self.ctx.semantic
        nodes = index.bindings(scope, name.id) or index.bindings(self.ctx.tree, name.id)
        if len(nodes) != 1 or not isinstance(nodes[0], ast.Assign) or len(nodes[0].targets) != 1:
            return None
        value = nodes[0].value
        if (
            not isinstance(value, ast.Call)
            or self.ctx.qualname(value.func) not in _RANDOM_SPLITS
            or len(value.args) != 2
            or value.keywords
        ):
            return None
        length = unpacked_element(nodes[0].targets[0], name.id, value.args[1])
        given = length.value if isinstance(length, ast.Constant) else None
        if type(given) is int:
            return given
        if type(given) is float and 0 <= given <= 1:
            whole = self.items(value.args[0], scope, depth - 1)
            return None if whole is None else math.ceil(given * whole)
        return None

    def _slice_items(self, key: ast.Slice, scope: ast.AST, depth: int) -> int | None:
        """At most how many items `x[key]` takes: `x[:n]` and `x[m:n]` at most `n`, when
        `n` is known to be at most some number (`n = (len(dataset) + 9) // 10`)."""
        taken = _slice_length(key)
        if taken is not None or key.step is not None or key.upper is None:
            return taken
        return self.at_most(key.upper, scope, depth)  # whatever the start: a bound here is not negative

    def at_most(self, node: ast.expr, scope: ast.AST, depth: int) -> int | None:
        """An upper bound on a non-negative integer: a literal, `len()` of a dataset of known
        size, or sums, products and floor divisions of such (each grows with its operands,
        so bounds in give a bound out); None for anything else, a difference included."""
        if depth <= 0:
            return None
        if isinstance(node, ast.Constant):
            return literal_int(node)
        if isinstance(node, ast.Name):
            return self._largest(node, scope, depth, self.at_most)
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "len"
            and len(node.args) == 1
            and not node.keywords
            and self.ctx.env.is_builtin("len")
        ):
            return self.items(node.args[0], scope, depth - 1)
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mult, ast.FloorDiv)):
            left, right = self.at_most(node.left, scope, depth - 1), self.at_most(node.right, scope, depth - 1)
            if left is None or right is None:
                return None
            if isinstance(node.op, ast.FloorDiv):
                divisor = literal_int(node.right)  # a literal: a bound on a divisor bounds nothing
                return left // divisor if divisor else None
            total = left + right if isinstance(node.op, ast.Add) else left * right
            return total if total <= _LARGEST_COUNT else None  # no count worth a product of huge numbers
        return None

    def at_least(self, node: ast.expr, scope: ast.AST, depth: int) -> int | None:
        """A lower bound on a batch size: a literal, a name or parameter whose every value is
        one (`batch_size=val_batch_size`, each call of the function passing a literal or an
        option), or a script option's literal default (`args.val_batch_size` with
        `parser.add_argument("--val_batch_size", type=int, default=1000)`: what the script
        runs with unless told otherwise). None for anything else."""
        if depth <= 0:
            return None
        if isinstance(node, ast.Constant):
            return literal_int(node)
        if isinstance(node, ast.Name):
            return _every(
                [self.at_least(value, where, depth - 1) for value, where in self._values(node, scope, depth)], min
            )
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            return self._option_default(node.value, node.attr, scope, depth)
        return None

    def _option_default(self, options: ast.Name, option: str, scope: ast.AST, depth: int) -> int | None:
        """The literal default of `options.option` where `options` is the module's parsed
        options: read as the global, or a parameter every call of whose function passes the
        global (`main(args)`)."""
        ctx = self.ctx
        defaults = ctx.semantic.remember("option defaults", ctx.tree, lambda: _option_defaults(ctx))
        if not defaults:
            return None
        if scope is not ctx.tree and ctx.semantic.bindings(scope, options.id):
            passed = self._values(options, scope, depth)
            names = [value for value, where in passed if isinstance(value, ast.Name) and where is ctx.tree]
            if not passed or len(names) != len(passed):
                return None
            return _every([defaults.get((name.id, option)) for name in names], min)
        return defaults.get((options.id, option))

    def _largest(
        self, name: ast.Name, scope: ast.AST, depth: int, measure: Callable[[ast.expr, ast.AST, int], int | None]
    ) -> int | None:
        """The largest `measure` of the values the name may hold; None when one is unknown."""
        return _every([measure(value, where, depth - 1) for value, where in self._values(name, scope, depth)], max)

    def _values(self, name: ast.Name, scope: ast.AST, depth: int) -> list[tuple[ast.expr, ast.AST]]:
        """The values the name may hold where `scope`'s code reads it, each with the scope it
        is read in: the assignment that reaches the current statement (in its own scope);
        the assignment of the name in `scope` or, where `scope` does not bind it, at the
        module's top level: its one assignment, or the last one before the read when every
        one is a statement of that scope's own body, none in a branch or a loop
        (`dataset = dataset.shuffle()`); for a parameter, what every call of its function
        in the file passes. Empty when not known."""
        ctx, index = self.ctx, self.ctx.semantic
        if scope is ctx.statement_scope and ctx.statement is not None and within(start_of(name), ctx.statement):
            statement = ctx.reaching_assignment(name.id)
            value = value_bound_to(statement, name.id) if statement is not None else None
            if value is not None:
                return [(value, scope)]
        nodes = index.bindings(scope, name.id)
        before: tuple[int, int] | None = start_of(name)
        if not nodes and scope is not ctx.tree and not _declared_elsewhere(index, scope, name.id):
            # a global the function reads: what the module's top level leaves it holding
            scope, nodes, before = ctx.tree, index.bindings(ctx.tree, name.id), None
        if len(nodes) == 1 and isinstance(nodes[0], ast.arg):
            return self._arguments(nodes[0], scope)
        if len(nodes) > 1:
            body = index.remember(
                "statements of the body", scope, lambda: frozenset(map(id, getattr(scope, "body", [])))
            )
            if not all(id(node) in body for node in nodes):
                return []  # a branch or a loop may bind it: which value holds depends on the path
        # bound before the read: an assignment whose value reads the name sees the one before
        earlier = [node for node in nodes if before is None or end_of(node) <= before]
        value = value_bound_to(earlier[-1], name.id) if earlier and isinstance(earlier[-1], ast.stmt) else None
        return [] if value is None else [(value, scope)]

    def _arguments(self, parameter: ast.arg, function: ast.AST) -> list[tuple[ast.expr, ast.AST]]:
        """What every call of `function` (a plain function of the module's top level, never
        handed on as a value) passes for `parameter`; empty when any call is not clear."""
        index = self.ctx.semantic
        facts = index.function(function)
        if facts is None or facts.owner is not None or facts.scope is not self.ctx.tree:
            return []
        resolved = index.resolve([self.ctx.tree], facts.node.name)
        sites = index.call_sites(facts.node.name)
        if resolved is None or resolved[0] != [facts] or not sites:
            return []
        positional = facts.positional()
        position = positional.index(parameter.arg) if parameter.arg in positional else None
        args = facts.node.args
        defaults = dict(zip([a.arg for a in (*args.posonlyargs, *args.args)][::-1], args.defaults[::-1], strict=False))
        defaults.update((a.arg, d) for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=False) if d is not None)
        found = []
        for call, scope in sites:
            if scope is not self.ctx.tree and (
                index.bindings(scope, facts.node.name) or _declared_elsewhere(index, scope, facts.node.name)
            ):
                return []  # the name means something else there
            if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
                return []
            given = (
                call.args[position]
                if position is not None and position < len(call.args)
                else keyword_value(call, parameter.arg)
            )
            if given is None:
                default = defaults.get(parameter.arg)
                if default is None:
                    return []
                given, scope = default, self.ctx.tree
            found.append((given, scope))
        return found


def _declared_elsewhere(index: SemanticIndex, scope: ast.AST, name: str) -> bool:
    """`scope` declares `name` `global` or `nonlocal`: other code binds it."""
    facts = index.scope(scope)
    return facts is not None and name in facts.declared


def _dataset_items(spec: tuple, call: ast.Call) -> int | None:
    """Items of the known dataset `call` makes (`DATASET_SIZES`): of the part its arguments
    choose; of the largest part an argument not written as a literal may choose; unknown
    when a dataset's name is not a literal, or not one the table has."""
    arguments, sizes = spec
    chosen: list[object] = []
    for position, keyword, default in arguments:
        given = call.args[position] if len(call.args) > position else keyword_value(call, keyword)
        if given is None:
            chosen.append(default)
        elif isinstance(given, ast.Constant):
            chosen.append(given.value)
        elif default is None:
            return None  # a dataset by name: any one, of any size
        else:
            chosen.append(_ANY)
    if len(arguments) == 1:
        return sizes.get(chosen[0]) if chosen[0] is not _ANY else max(sizes.values())
    matching = [
        items
        for key, items in sizes.items()
        if all(want is _ANY or want == part for want, part in zip(chosen, key, strict=False))
    ]
    return max(matching) if matching else None


_ANY = object()
#: Bounds above this are of no use to any question here (and products of them grow fast).
_LARGEST_COUNT = 10**12
#: How many steps a loader question may take: name to value, loader to dataset, a slice to
#: what it slices, a parameter to what a call passes.
_LOADER_DEPTH = 24

#: `argparse`'s parser, by its qualified names.
_ARGUMENT_PARSERS = frozenset({"argparse.ArgumentParser"})


def _option_defaults(ctx: RuleContext) -> dict[tuple[str, str], int]:
    """(name, option) -> the literal integer default of each option of the module's one
    `argparse` parser, for the name the module's top level binds once to its
    `parse_args()`: `args = parser.parse_args()` gives `("args", "val_batch_size")` for
    `parser.add_argument("--val-batch-size", type=int, default=1000)` (its `dest`, or the
    long option with dashes made underscores). Empty when the file has no such parser, or
    binds the name more than once."""
    index, tree = ctx.semantic, ctx.tree
    parsers = [
        name
        for name, nodes in index.scope(tree).bindings.items()  # type: ignore[union-attr]
        if len(nodes) == 1
        and isinstance(nodes[0], ast.Assign)
        and isinstance(nodes[0].value, ast.Call)
        and ctx.qualname(nodes[0].value.func) in _ARGUMENT_PARSERS
    ]
    if len(parsers) != 1:
        return {}
    parser = parsers[0]
    options: dict[str, int] = {}
    parsed: list[str] = []
    for node in walk_local(tree.body):  # the module's own code: a function's `parser` is its own
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        receiver = node.func.value
        if not (isinstance(receiver, ast.Name) and receiver.id == parser):
            continue
        if node.func.attr == "add_argument":
            dest = _option_dest(node)
            default = literal_int(keyword_value(node, "default"))
            if dest is not None and default is not None:
                options[dest] = default
    for name, nodes in index.scope(tree).bindings.items():  # type: ignore[union-attr]
        if len(nodes) != 1 or not isinstance(nodes[0], ast.Assign):
            continue
        value = nodes[0].value
        if (
            isinstance(value, ast.Call)
            and isinstance(value.func, ast.Attribute)
            and value.func.attr == "parse_args"
            and isinstance(value.func.value, ast.Name)
            and value.func.value.id == parser
        ):
            parsed.append(name)
    return {(name, option): default for name in parsed for option, default in options.items()}


def _option_dest(call: ast.Call) -> str | None:
    """Where `add_argument` stores its option: `dest=`, else its first long option
    (`--val-batch-size` stores `val_batch_size`)."""
    dest = keyword_value(call, "dest")
    if dest is not None:
        return dest.value if isinstance(dest, ast.Constant) and isinstance(dest.value, str) else None
    for flag in call.args:
        if isinstance(flag, ast.Constant) and isinstance(flag.value, str) and flag.value.startswith("--"):
            return flag.value[2:].replace("-", "_")
    return None


#: Keywords that make a loader draw its batches some other way than `batch_size` at a time.
_DRAWN_BY = ("sampler", "batch_sampler")
#: torch's `random_split(dataset, lengths)`: parts of the lengths given.
_RANDOM_SPLITS = frozenset({"torch.utils.data.random_split", "torch.utils.data.dataset.random_split"})
#: Dataset methods that return one with the same items (PyTorch Geometric's `shuffle`).
_SAME_ITEMS_METHODS = frozenset({"shuffle", "copy"})


# -- the sizes -------------------------------------------------------------------------------


class _Sizer:
    def __init__(self, ctx: RuleContext) -> None:
        self.ctx = ctx

    def bound(self, node: ast.AST | None, depth: int, before: tuple[int, int] | None) -> int | None:
        """An upper bound on the rows or items of `node`, or None when not known.
        `before`: the start of the assignment whose value `node` is part of (the names
        it reads must be bound before it)."""
        if node is None or depth <= 0:
            return None
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            return None if any(isinstance(e, ast.Starred) for e in node.elts) else len(node.elts)
        if isinstance(node, ast.Constant):
            return 1 if isinstance(node.value, (int, float, complex, bool)) else None
        if isinstance(node, ast.Name):
            return self._name(node.id, depth, before)
        if isinstance(node, ast.Call):
            return self._call(node, depth, before)
        if isinstance(node, ast.Subscript):
            return self._subscript(node, depth, before)
        if isinstance(node, ast.Attribute):
            if node.attr in _ROW_KEEPING_ATTRIBUTES:
                return self.bound(node.value, depth, before)
            return None
        if isinstance(node, ast.BinOp):
            return self._arithmetic(node, depth, before)
        if isinstance(node, ast.UnaryOp):
            return self.bound(node.operand, depth, before)
        if isinstance(node, ast.Compare):
            return _largest(*(self.bound(n, depth, before) for n in (node.left, *node.comparators)))
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp)) and len(node.generators) == 1:
            return self.bound(node.generators[0].iter, depth, before)
        return None

    def _arithmetic(self, node: ast.BinOp, depth: int, before: tuple[int, int] | None) -> int | None:
        """Element-wise arithmetic broadcasts (the result's first axis is one of its
        operands'); on lists and tuples `+` joins them and `*` repeats them."""
        left, right = node.left, node.right
        if isinstance(node.op, ast.MatMult):
            return None  # a vector times a matrix has the matrix's columns
        if isinstance(node.op, ast.Add):
            bounds = (self.bound(left, depth, before), self.bound(right, depth, before))
            return None if None in bounds else bounds[0] + bounds[1]  # type: ignore[operator]
        if isinstance(node.op, ast.Mult):
            for number, other in ((left, right), (right, left)):
                if isinstance(number, ast.Constant) and type(number.value) in (int, float):
                    bound = self.bound(other, depth, before)
                    factor = max(int(number.value), 1) if type(number.value) is int else 1
                    return None if bound is None else bound * factor
            if not all(self._elementwise(side) for side in (left, right)):
                return None  # `items * n`: as many repetitions as `n` holds
        return _largest(self.bound(left, depth, before), self.bound(right, depth, before))

    def _range_length(self, call: ast.Call, depth: int, before: tuple[int, int] | None) -> int | None:
        """`range(4)`, or `range(n)` where `n` holds a literal integer (`n, imgs = 4, []`)."""
        if call.keywords or not 1 <= len(call.args) <= 3:
            return None
        values = [self._integer(a, depth, before) for a in call.args]
        if None in values or (len(values) == 3 and values[2] == 0):
            return None
        return range_count(*values)  # type: ignore[arg-type]

    def _integer(self, node: ast.expr, depth: int, before: tuple[int, int] | None) -> int | None:
        """The literal integer `node` is, or a name holds (followed as `_name` follows it)."""
        value = signed_int(node)
        if value is not None or not isinstance(node, ast.Name) or depth <= 0:
            return value
        statement = self._binding(node.id, before)
        if statement is None:
            return None
        bound = value_bound_to(statement, node.id)
        if bound is None and isinstance(statement, ast.Assign):
            bound = next(
                (
                    e
                    for e in (unpacked_element(t, node.id, statement.value) for t in statement.targets)
                    if e is not None
                ),
                None,
            )  # `n, imgs = 4, []`
        return None if bound is None else self._integer(bound, depth - 1, start_of(statement))

    def _elementwise(self, node: ast.expr) -> bool:
        ty = self.ctx.type_of(node)
        return ty is not None and ty.kind in _ELEMENTWISE_KINDS

    # -- names ---------------------------------------------------------------------------------

    def _name(self, name: str, depth: int, before: tuple[int, int] | None) -> int | None:
        statement = self._binding(name, before)
        if statement is None:
            return None
        value = value_bound_to(statement, name)
        if value is not None:
            return self.bound(value, depth - 1, start_of(statement))
        targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
        for target in targets:
            if isinstance(target, (ast.Tuple, ast.List)):
                return self._unpacked(target, name, statement.value, depth - 1, start_of(statement))
        return None

    def _binding(self, name: str, before: tuple[int, int] | None) -> ast.Assign | ast.AnnAssign | None:
        """The assignment of `name` that reaches the current statement, when it comes
        before `before`, nothing adds rows to the name in place after it, and no other
        scope can rebind it."""
        ctx = self.ctx
        if ctx.seen_elsewhere(name, ctx.statement_scope):
            return None
        statement = ctx.reaching_assignment(name)
        if statement is None or (before is not None and start_of(statement) >= before):
            return None
        return None if self._grown_in_place(name, statement) else statement

    def _unpacked(
        self, target: ast.Tuple | ast.List, name: str, value: ast.expr | None, depth: int, before: tuple[int, int]
    ) -> int | None:
        """The size of `name` unpacked from `value` (`a, b = [1, 2], [3]`, or the scores
        and examples of `get_nearest_examples`)."""
        if any(isinstance(e, ast.Starred) for e in target.elts) or not any(_is_name(e, name) for e in target.elts):
            return None
        element = unpacked_element(target, name, value)
        if element is not None:
            return self.bound(element, depth, before)
        if isinstance(value, ast.Call) and len(target.elts) == 2:
            return _nearest_examples(value)
        return None

    def _grown_in_place(self, name: str, statement: ast.stmt) -> bool:
        """Something between `statement` and the current statement (or in a loop around
        the current statement) may add rows to `name` without rebinding it."""
        ctx = self.ctx
        loads = ctx.semantic.uses(ctx.statement_scope).loads.get(name, [])
        start = start_of(statement)
        current = ctx.statement
        end = end_of(current) if current is not None else None
        for loop in ctx.loops:
            if isinstance(loop, STATEMENT_LOOPS):
                end = _later(end, end_of(loop))
                break
        frame = self._is_frame(name)
        # the loads are in source order: only those between `statement` and `end` are read
        first = bisect.bisect_right(loads, start, key=start_of)
        last = len(loads) if end is None else bisect.bisect_left(loads, end, key=start_of)
        for load in loads[first:last]:
            parent = ctx.parent(load)
            if isinstance(parent, ast.Attribute):
                if parent.attr in _GROWING_METHODS:
                    return True
                if parent.attr in ("loc", "at"):
                    outer = ctx.parent(parent)
                    if isinstance(outer, ast.Subscript) and not isinstance(outer.ctx, ast.Load):
                        return True
            elif isinstance(parent, ast.Subscript) and parent.value is load and not isinstance(parent.ctx, ast.Load):
                if not frame:  # a frame's item assignment sets a column; a list's or dict's may add items
                    return True
            elif isinstance(parent, ast.AugAssign) and parent.target is load:
                return True
        return False

    def _is_frame(self, name: str) -> bool:
        ty = self.ctx.env.type_of(ast.Name(id=name, ctx=ast.Load()))
        return ty is not None and ty.kind == "frame"

    # -- calls ---------------------------------------------------------------------------------

    def _call(self, call: ast.Call, depth: int, before: tuple[int, int] | None) -> int | None:
        ctx = self.ctx
        func = call.func
        if isinstance(func, ast.Name) and ctx.env.is_builtin(func.id):
            if func.id == "range":
                return self._range_length(call, depth, before)
            if func.id in _SAME_ITEMS_BUILTINS and len(call.args) == 1:
                return self.bound(call.args[0], depth, before)
            if func.id == "zip" and call.args:
                bounds = [b for b in (self.bound(a, depth, before) for a in call.args) if b is not None]
                return min(bounds) if bounds else None
            return None
        qualname = ctx.qualname(func)
        if qualname is not None:
            if qualname in _FRAMES:
                return self._frame_rows(call, depth, before)
            if qualname in _SAME_ROWS or is_numpy_ufunc(qualname):
                # every input (a ufunc broadcasts them), and the index a Series is given
                inputs = [*call.args[: 1 if qualname in _SAME_ROWS else None], keyword_value(call, "index")]
                inputs = [i for i in inputs if i is not None]
                return _largest(*(self.bound(i, depth, before) for i in inputs)) if call.args else None
            if qualname in ("numpy.arange", "torch.arange", "cupy.arange"):
                return _arange_length(call)
            if qualname in ("numpy.linspace", "torch.linspace", "numpy.logspace", "numpy.geomspace"):
                steps = (
                    call.args[2] if len(call.args) > 2 else keyword_value(call, "num") or keyword_value(call, "steps")
                )
                return 50 if steps is None and qualname.startswith("numpy") else literal_int(steps)
            factory = _FACTORIES.get(qualname) or _FACTORIES.get(qualname.replace("cupy.", "numpy.", 1))
            if factory is not None:
                return _shape_rows(call, factory)
            return None
        if not isinstance(func, ast.Attribute):
            return None
        method = func.attr
        taken = _TAKES_ROWS.get(method)
        if taken is not None:
            position, keyword, default = taken
            given = call.args[position] if len(call.args) > position else keyword_value(call, keyword)
            if method == "sample" and given is None:
                return 1 if keyword_value(call, "frac") is None else None
            return default if given is None else literal_int(given)
        if method in _GENERATOR_METHODS:
            owner = ctx.type_of(func.value)
            if owner is not None and owner.kind == "generator":
                return _shape_rows(call, _GENERATOR_METHODS[method])
        if method == "get_nearest_examples":
            return 2
        if method in _ROW_KEEPING_METHODS:
            return self.bound(func.value, depth, before)
        return None

    def _frame_rows(self, call: ast.Call, depth: int, before: tuple[int, int] | None) -> int | None:
        """Rows of `pd.DataFrame(data)`: a list of rows, or a dict of columns (the longest
        column; a scalar column has the index's length)."""
        data = call.args[0] if call.args else keyword_value(call, "data")
        if data is None:
            return None
        if isinstance(data, ast.Name):
            # a dict of columns held by a name: its columns' lengths, not its keys
            statement = self._binding(data.id, before)
            value = value_bound_to(statement, data.id) if statement is not None else None
            if isinstance(value, ast.Dict):
                data = value
        index = keyword_value(call, "index")
        if isinstance(data, ast.Dict):
            if None in data.keys:
                return None
            columns = [self.bound(v, depth, before) for v in data.values]
            if index is not None:
                columns.append(self.bound(index, depth, before))
            return None if not columns or None in columns else max(columns)  # type: ignore[type-var]
        if index is not None:
            return _largest(self.bound(data, depth, before), self.bound(index, depth, before))
        return self.bound(data, depth, before)

    # -- subscripts ----------------------------------------------------------------------------

    def _subscript(self, node: ast.Subscript, depth: int, before: tuple[int, int] | None) -> int | None:
        key = node.slice
        base = node.value
        indexer = base.attr if isinstance(base, ast.Attribute) and base.attr in ("iloc", "loc") else ""
        if indexer:
            base = base.value  # type: ignore[attr-defined]
        if isinstance(key, ast.Tuple) and key.elts:
            key = key.elts[0]  # the rows' part of `x[rows, columns]`
        if isinstance(key, ast.Slice):
            taken = None if indexer == "loc" else _slice_length(key)  # `.loc` slices by label
            return _smallest(taken, self.bound(base, depth, before))
        if indexer == "iloc":
            return None
        if not self._elementwise(base):
            return None  # a list's or a dict's item: anything
        receiver = self.bound(base, depth, before)
        if receiver is None:
            return None
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            return receiver  # a column of the frame: its rows
        if isinstance(key, ast.List) and all(
            isinstance(e, ast.Constant) and isinstance(e.value, str) for e in key.elts
        ):
            return receiver  # columns of the frame
        if isinstance(key, (ast.Compare, ast.BoolOp)) or (
            isinstance(key, ast.UnaryOp) and isinstance(key.op, ast.Invert)
        ):
            return receiver  # a mask keeps some of the rows
        return None


# -- helpers ---------------------------------------------------------------------------------


def _nearest_examples(call: ast.Call) -> int | None:
    """`dataset.get_nearest_examples(index_name, query, k=10)` (Hugging Face datasets)
    returns the scores and the examples (a dict of columns) of at most `k` neighbours."""
    if not (isinstance(call.func, ast.Attribute) and call.func.attr == "get_nearest_examples"):
        return None
    given = call.args[2] if len(call.args) > 2 else keyword_value(call, "k")
    return 10 if given is None else literal_int(given)


def range_count(start: int, stop: int | None = None, step: int = 1) -> int:
    """`len(range(...))` for any integers, however large (`len` of a range longer than a
    C `ssize_t` holds raises `OverflowError`)."""
    if stop is None:
        start, stop = 0, start
    if step > 0:
        return max(0, -(-(stop - start) // step))
    return max(0, -(-(start - stop) // -step))


def _arange_length(call: ast.Call) -> int | None:
    if call.keywords and any(k.arg not in ("dtype", "device") for k in call.keywords):
        return None
    values = [signed_int(a) for a in call.args]
    if not 1 <= len(values) <= 3 or None in values or (len(values) == 3 and values[2] == 0):
        return None
    return range_count(*values)  # type: ignore[arg-type]


def _slice_length(key: ast.Slice) -> int | None:
    """Items `x[a:b:s]` takes at most, when its bounds are literal: `[:5]`, `[-5:]`, `[2:7]`."""
    lower, upper, step = signed_int(key.lower), signed_int(key.upper), signed_int(key.step)
    if key.step is not None and (step is None or step <= 0):
        return None
    step = step or 1
    if key.lower is None and upper is not None and upper >= 0:
        return -(-upper // step)
    if key.upper is None and lower is not None and lower < 0:
        count = -lower  # the items from `lower` to the end: ceil(count / step) of them taken
        return -(-count // step)
    if lower is not None and upper is not None and (lower >= 0) == (upper >= 0):
        return max(0, -(-(upper - lower) // step))
    return None


def _shape_rows(call: ast.Call, factory: tuple) -> int | None:
    """The first axis of an array factory's result: its shape argument's first entry."""
    position, keyword, default = factory
    if position == "*":
        if not call.args:
            return None if default is None else 1
        first = call.args[0]
        return (
            literal_int(first.elts[0])
            if isinstance(first, (ast.Tuple, ast.List)) and first.elts
            else literal_int(first)
        )
    shape = call.args[position] if len(call.args) > position else (keyword_value(call, keyword) if keyword else None)
    if shape is None or isinstance(shape, ast.Constant) and shape.value is None:
        return 1 if default == () else None  # no size: one value
    if isinstance(shape, (ast.Tuple, ast.List)):
        return literal_int(shape.elts[0]) if shape.elts else 1
    return literal_int(shape)


def _largest(*bounds: int | None) -> int | None:
    """The largest bound, counting a missing one as unknown; a scalar constant is 1."""
    return None if None in bounds else max(bounds)  # type: ignore[type-var]


def _every(found: list[int | None], choose: Callable[[list[int]], int]) -> int | None:
    """`choose` (`max` or `min`) of what was found, when something was and all of it is
    known."""
    return None if not found or None in found else choose(found)  # type: ignore[arg-type]


def _smallest(*bounds: int | None) -> int | None:
    known = [b for b in bounds if b is not None]
    return min(known) if known else None


def _later(a: tuple[int, int] | None, b: tuple[int, int]) -> tuple[int, int]:
    return b if a is None or b > a else a


def _is_name(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _loop_variable(target: ast.expr) -> str | None:
    """The loop's variable, or the first name of an unpacked one (`for label, count in ...`)."""
    if isinstance(target, (ast.Tuple, ast.List)) and target.elts:
        target = target.elts[0]
    return target.id if isinstance(target, ast.Name) else None


def _distinct_values_of(iterable: ast.expr, ctx: RuleContext) -> ast.expr | None:
    """`y` when the loop iterates the distinct values of `y`: `np.unique(y)`, possibly
    wrapped in `sorted()`, `list()` or `tuple()`."""
    while (
        isinstance(iterable, ast.Call)
        and isinstance(iterable.func, ast.Name)
        and iterable.func.id in ("sorted", "list", "tuple")
        and len(iterable.args) == 1
    ):
        iterable = iterable.args[0]
    if (
        isinstance(iterable, ast.Call)
        and len(iterable.args) == 1
        and ctx.qualname(iterable.func) in ("numpy.unique", "cupy.unique", "torch.unique")
    ):
        return iterable.args[0]
    return None


def _used_as_mask(compare: ast.Compare, ctx: RuleContext) -> bool:
    """An element-wise comparison whose result selects elements: a subscript's key, or the
    argument of a NumPy function (`np.flatnonzero(y == c)`, `np.where(y == c)`)."""
    parent = ctx.parent(compare)
    if isinstance(parent, ast.Subscript) and parent.slice is compare:
        return True
    if isinstance(parent, ast.Call) and compare in parent.args:
        qualname = ctx.qualname(parent.func)
        return qualname is not None and qualname.split(".")[0] in ("numpy", "cupy", "torch")
    return False
