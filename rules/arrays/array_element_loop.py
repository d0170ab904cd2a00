"""GPU201 array-element-loop."""

from __future__ import annotations

import ast

from gpulint.rule_api import (
    elementwise,
    Applicability,
    Example,
    is_numpy_ufunc,
    literal_int,
    range_arguments,
    Rule,
    RuleContext,
    Tier,
    Ty,
    walk_local,
)

from gpulint.plans.array_element_loop import ElementLoop, ElementPlan

#: Where an element read `a[i]` is a scalar computation: operands and the builtins and
#: `math` functions that take one number.
_SCALAR_PARENTS = (ast.BinOp, ast.Compare, ast.UnaryOp, ast.BoolOp, ast.IfExp, ast.AugAssign, ast.Assign, ast.AnnAssign)
_SCALAR_BUILTINS = frozenset({"abs", "float", "int", "round", "bool", "min", "max"})
#: Augmented assignments to an element that mean the same on a slice, in place.
_ELEMENT_OPERATORS = (ast.Add, ast.Sub, ast.Mult, ast.Div)


def _bound_array(bound: ast.expr) -> tuple[ast.expr, str] | None:
    """`len(a)`, `a.shape[0]` or `a.size`: the array expression and the form."""
    if (
        isinstance(bound, ast.Call)
        and isinstance(bound.func, ast.Name)
        and bound.func.id == "len"
        and len(bound.args) == 1
        and not bound.keywords
        and not isinstance(bound.args[0], ast.Starred)
    ):
        return bound.args[0], "len"
    if (
        isinstance(bound, ast.Subscript)
        and isinstance(bound.value, ast.Attribute)
        and bound.value.attr == "shape"
        and isinstance(bound.slice, ast.Constant)
        and bound.slice.value == 0
        and not isinstance(bound.slice.value, bool)
    ):
        return bound.value.value, "shape"
    if isinstance(bound, ast.Attribute) and bound.attr == "size":
        return bound.value, "size"
    return None


def _range_bound(iterable: ast.expr, ctx: RuleContext) -> ast.expr | None:
    """`n` of `range(n)` or `range(0, n)` (the builtin): the same indices from 0 to n - 1."""
    arguments = range_arguments(iterable)
    if arguments is None or not ctx.env.is_builtin("range"):
        return None
    if len(arguments) == 2 and literal_int(arguments[0]) != 0:
        return None
    return arguments[-1]


def range_over_array(loop: ast.For, ctx: RuleContext) -> tuple[str, ast.expr, ast.expr, str, Ty] | None:
    """`for i in range(len(a))` (or `a.shape[0]`, `a.size`; `range(0, len(a))` alike) over
    a known array: the index name, the bound, the array expression, the bound's form and
    the array's type."""
    bound = _range_bound(loop.iter, ctx)
    if bound is None or not isinstance(loop.target, ast.Name):
        return None
    found = _bound_array(bound)
    if found is None or (found[1] == "len" and not ctx.env.is_builtin("len")):
        return None
    array, form = found
    ty = ctx.type_of(array)
    if ty is None or ty.kind != "array":
        return None
    return loop.target.id, bound, array, form, ty


class ArrayElementLoop(Rule):
    """
    ## What it does
    Flags `for i in range(len(a))` (or `range(a.shape[0])`, `range(a.size)`) over a NumPy or
    CuPy array whose body computes with single elements, `a[i]` or `b[i]` of another known
    array: as operands of arithmetic or comparisons, in assignments, or in `abs()`,
    `float()`, `math` functions and NumPy ufuncs. Loops over lists (`range(len(items))`), and
    loops that only hand each element to another function (`model.fit(batches[i])`), are
    not flagged. Loops over the rows of a DataFrame are GPU103.

    ## Evidence
    With the rewrite shown, not written, wider shapes of the same loop: over an array's
    extent through a name (`n = len(x)`, `n = x.shape[1]`, `n, d = X.shape`, then
    `for i in range(n)`), or over every element (`for (i, j), v in np.ndenumerate(Z)`),
    whose body computes with single elements of known arrays indexed by the loop's index
    (`out[k]`, `Z[i, j]`, `x[n + k]`); one finding per nest of such loops, at the outermost.
    Not a slice among the indices (`out[:, i]`: a whole column, computed at once), nor an
    element that stores what other code computes (`Z[i, j] = cross_val_score(...).mean()`,
    `out[i] = self.score(X, i)`: the work is that call).
    A name indexed with a slice in a tuple (`X[i, :]`) is known for a NumPy array in a file
    that imports NumPy and no other library whose values take such an index (torch, CuPy,
    JAX, TensorFlow, Dask, xarray, SciPy). `range(0, n)` is read as `range(n)`, and
    `n, d = np.shape(X)` as an extent.

    ## Why is this bad?
    Each `a[i]` boxes one element into a NumPy scalar and each operation on it runs through
    the interpreter and NumPy's dispatch: about {speedup:1000000} slower than the same
    arithmetic on the whole array at a million elements on a CPU (the measured speedups
    below). On a GPU (CuPy) every element read is also a
    copy to the host and a synchronisation, which makes the loop slower still.

    ## Fix safety
    The fix is unsafe. It applies to a loop over a NumPy array whose body is one statement
    computing with `x[i]` elements of known NumPy arrays, constants and names that are not
    arrays:

    - `out[i] = expr` becomes `out[:n] = expr` over slices `x[:n]` (`n` being the loop's
      bound; the array the bound measures is used whole, and so is `out` when it is that
      array: `out[:] = ...`);
    - `total += expr` (or `-=`) becomes `total += (expr).sum(axis=0)`.

    A loop whose index the code after it reads (later in the function, in a nested
    function, or in the next pass of an enclosing loop) keeps it: that loop gets a
    suggestion. The slices make the rewrite read and write exactly the elements the loop does. It
    computes the same values, except that a sum is added pairwise instead of left to right
    (the last digits of a float total can differ; a loop that runs zero times leaves an
    integer total an `int`, the rewrite adds a float `0.0`), except for the dtype of an
    integer total (over arrays of an integer dtype narrower than 64 bits the loop's running
    total keeps that dtype and wraps around when it overflows, `int8` 100 + 100 + 100 giving
    44, while `.sum()` adds in 64 bits and gives 300; they agree whenever the loop's total
    does not overflow), except for a conditional between an element of a narrow integer
    array and a Python integer it cannot hold (`a[i] if c else 10**9` over `uint8`):
    `np.where` casts the constant to the array's dtype and wraps it around, where the loop
    stores the integer as it is, and where the loop would
    fail part way (an array shorter than the bound) or depends on its own earlier
    iterations through arrays that overlap in memory (views of one another at an offset).
    An array with no rows and more than one dimension, where the loop runs zero times, is
    the one input on which the rewrite still computes: a total becomes a row of zeros, and
    a store that could not succeed on any row (rows of a 2-D array into a 1-D one) raises.
    On empty arrays the rewrite still evaluates the expression once, so one that fails on
    every element of that dtype fails there too, where the loop never ran it. Where the loop
    raises part way (an element its expression fails on), the rewrite raises another error
    or returns the whole-array result.
    Other bodies, and loops over CuPy arrays, get a display-only suggestion.
    """

    code = "GPU201"
    name = "array-element-loop"
    tier = Tier.PREVIEW
    tier_reason = "Real code: 2 of 10 sampled findings useful (per-item plotting)"
    message = "loop computes one array element per iteration in Python; use a whole-array expression"
    nodes = (ast.For,)
    fix = Applicability.UNSAFE
    suggestion = (
        "compute the whole array at once: arithmetic, comparisons and `np.where` on the arrays "
        "(`out[:] = a * b`), reductions with `.sum()`/`.max()`, selections with boolean masks"
    )

    flagged = (
        Example(
            source="""\
import numpy as np


def revenue(prices: np.ndarray, quantities: np.ndarray) -> np.ndarray:
    out = np.zeros(len(prices))
    for i in range(len(prices)):
        out[i] = prices[i] * quantities[i] * 1.2
    return out
""",
            fixed="""\
import numpy as np


def revenue(prices: np.ndarray, quantities: np.ndarray) -> np.ndarray:
    out = np.zeros(len(prices))
    out[:len(prices)] = prices * quantities[:len(prices)] * 1.2
    return out
""",
            setup="prices = rng.uniform(1, 100, N)\nquantities = rng.integers(1, 20, N)",
            call="revenue(prices, quantities)",
        ),
        Example(
            source="""\
import numpy as np


def dot(weights: np.ndarray, features: np.ndarray) -> int:
    total = 0
    for k in range(weights.shape[0]):
        # one product per feature
        total += weights[k] * features[k]
    return total
""",
            fixed="""\
import numpy as np


def dot(weights: np.ndarray, features: np.ndarray) -> int:
    total = 0
    # one product per feature
    total += (weights * features[:weights.shape[0]]).sum(axis=0)
    return total
""",
            setup="weights = rng.integers(-5, 5, N)\nfeatures = rng.integers(0, 100, N)",
            call="dot(weights, features)",
        ),
        Example(
            source="""\
import numpy as np


def rectify(signal: np.ndarray) -> np.ndarray:
    for i in range(signal.size):
        signal[i] = signal[i] - 1.0 if signal[i] > 1.0 else 0.0
    return signal
""",
            fixed="""\
import numpy as np


def rectify(signal: np.ndarray) -> np.ndarray:
    signal[:signal.size] = np.where(signal[:signal.size] > 1.0, signal[:signal.size] - 1.0, 0.0)
    return signal
""",
            setup="signal = rng.normal(1, 1, N)",
            call="rectify(signal.copy())",
        ),
        Example(
            source="""\
import numpy as np

readings = np.asarray(raw)
alerts = []
for i in range(len(readings)):
    if readings[i] > 80:
        alerts.append(i)
""",
        ),
    )
    ok = (
        Example(
            """\
import numpy as np

weights = [0.2, 0.3, 0.5]
for i in range(len(weights)):
    weights[i] = weights[i] * 2
vector = np.array(weights)
""",
            reason="A loop over a Python list, before it becomes an array.",
        ),
        Example(
            """\
import numpy as np

batches = np.asarray(loaded_batches)
for i in range(len(batches)):
    model.fit(batches[i])
""",
            reason="Each element is handed to a model call: the loop's work is the call.",
        ),
        Example(
            """\
import numpy as np

values = np.arange(10.0)
for value in values.tolist():
    print(value)
""",
            reason="A loop over `.tolist()`: Python numbers, already converted once.",
        ),
        Example(
            """\
import numpy as np

grid = np.zeros((3, 3))
for i in range(3):
    grid[i, i] = 1.0
""",
            reason="A loop over a literal `range(3)`, not over an array's length.",
        ),
    )

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        assert isinstance(node, ast.For)
        found = range_over_array(node, ctx)
        if found is None:
            self._check_extent(node, ctx)
            return
        index, bound, array, form, ty = found
        if not any(self._scalar_use(sub, index, ctx, parent) for sub, parent in _subscripts(node.body)):
            return
        plan = _plan(node, index, ctx)
        rewritable = plan is not None and ty.lib == "numpy" and isinstance(array, ast.Name)
        ctx.report(
            node.iter,
            context=ElementLoop(
                applicability=Applicability.UNSAFE if rewritable else Applicability.DISPLAY,
                loop=node,
                index=index,
                bound=bound,
                array=array,
                form=form,
                plan=plan,
                site=tuple(zip(ctx.statements, ctx.blocks, strict=False)),
            ),
        )

    def _check_extent(self, node: ast.For, ctx: RuleContext) -> None:
        """The wider shapes, with the rewrite shown only: a loop over an array's extent
        through a name (`n = len(x)` or `n, d = X.shape`, then `range(n)`) or over every
        element (`np.ndenumerate(Z)`), whose body computes with elements of known arrays
        indexed by the loop's index (`out[k]`, `Z[i, j]`)."""
        covered: set[ast.For] = ctx.semantic.remember("loops in a reported element loop", ctx.tree, set)
        found = _extent_loop(node, ctx)
        if found is None or node in covered:
            return
        indices, array, form = found
        if not any(self._scalar_use(sub, indices, ctx, parent) for sub, parent in _subscripts(node.body)):
            return
        covered.update(inner for inner in walk_local(node.body) if isinstance(inner, ast.For))  # one finding per nest
        ctx.report(
            node.iter,
            context=ElementLoop(
                applicability=Applicability.DISPLAY,
                loop=node,
                index=sorted(indices)[0],
                bound=node.iter,
                array=array,
                form=form,
                plan=None,
                site=tuple(zip(ctx.statements, ctx.blocks, strict=False)),
            ),
        )

    @staticmethod
    def _scalar_use(sub: ast.Subscript, index: str | frozenset[str], ctx: RuleContext, parent: ast.AST | None) -> bool:
        if isinstance(index, str):
            if not _element_of_array(sub, index, ctx):
                return False
        elif not _indexed_element(sub, index, ctx) or _stores_work(sub, parent, ctx):
            return False
        if isinstance(parent, _SCALAR_PARENTS):
            return True
        if isinstance(parent, ast.Call) and any(a is sub for a in parent.args):
            func = parent.func
            if isinstance(func, ast.Name) and func.id in _SCALAR_BUILTINS and ctx.env.is_builtin(func.id):
                return True
            name = ctx.qualname(func) or ""
            return name.startswith("math.") or is_numpy_ufunc(name)
        return False


def _subscripts(body: list[ast.stmt]):
    """Every subscript in the loop body (nested functions left out), with its parent."""
    for statement in body:
        for parent in walk_local([statement]):
            for child in ast.iter_child_nodes(parent):
                if isinstance(child, ast.Subscript):
                    yield child, parent


def _element_of_array(node: ast.AST, index: str, ctx: RuleContext, lib: str | None = None) -> bool:
    """`name[index]` where `name` holds a known array (of library `lib`, if given)."""
    if not (
        isinstance(node, ast.Subscript)
        and isinstance(node.value, ast.Name)
        and isinstance(node.slice, ast.Name)
        and node.slice.id == index
    ):
        return False
    ty = ctx.env.lookup(node.value.id)
    return ty is not None and ty.kind == "array" and (lib is None or ty.lib == lib)


def _extent_loop(loop: ast.For, ctx: RuleContext) -> tuple[frozenset[str], ast.expr, str] | None:
    """`for i in range(n)` (or `range(0, n)`) with `n` an array's extent through a name
    (`n = len(x)`, `n = x.shape[1]`, `n, d = X.shape`, `n, d = np.shape(X)`), or `for (i, j), v in np.ndenumerate(Z)`: the
    index names, the array whose extent or elements the loop goes over, and the form."""
    iterable = loop.iter
    if not isinstance(iterable, ast.Call) or iterable.keywords or not iterable.args:
        return None
    if (
        len(iterable.args) == 1
        and ctx.qualname(iterable.func) == "numpy.ndenumerate"
        and isinstance(loop.target, ast.Tuple)
    ):
        first = loop.target.elts[0] if loop.target.elts else None
        names = first.elts if isinstance(first, ast.Tuple) else [first]
        indices = frozenset(n.id for n in names if isinstance(n, ast.Name))
        return (indices, iterable.args[0], "ndenumerate") if indices else None
    argument = _range_bound(iterable, ctx)
    if not (isinstance(loop.target, ast.Name) and isinstance(argument, ast.Name)):
        return None
    statement = ctx.reaching_assignment(argument.id)
    if statement is None or not isinstance(statement, ast.Assign) or len(statement.targets) != 1:
        return None
    target, value = statement.targets[0], statement.value
    if isinstance(target, ast.Name):
        found = _bound_array(value) or _any_axis(value, ctx)
        return (frozenset({loop.target.id}), found[0], found[1]) if found is not None else None
    if isinstance(target, ast.Tuple):
        if isinstance(value, ast.Attribute) and value.attr == "shape":
            return frozenset({loop.target.id}), value.value, "shape"  # `n, d = X.shape`
        shaped = _numpy_shape_of(value, ctx)
        if shaped is not None:
            return frozenset({loop.target.id}), shaped, "shape"  # `n, d = np.shape(X)`
    return None


def _numpy_shape_of(value: ast.expr, ctx: RuleContext) -> ast.expr | None:
    """`X` of `np.shape(X)`."""
    if (
        isinstance(value, ast.Call)
        and len(value.args) == 1
        and not value.keywords
        and not isinstance(value.args[0], ast.Starred)
        and ctx.qualname(value.func) == "numpy.shape"
    ):
        return value.args[0]
    return None


def _any_axis(bound: ast.expr, ctx: RuleContext) -> tuple[ast.expr, str] | None:
    """`x.shape[k]` or `np.shape(x)[k]` for any literal axis."""
    if not (isinstance(bound, ast.Subscript) and literal_int(bound.slice) is not None):
        return None
    if isinstance(bound.value, ast.Attribute) and bound.value.attr == "shape":
        return bound.value.value, "shape"
    shaped = _numpy_shape_of(bound.value, ctx)
    return (shaped, "shape") if shaped is not None else None


def _indexed_element(node: ast.AST, indices: frozenset[str], ctx: RuleContext) -> bool:
    """`a[i]`, `a[i, j]` or `a[i + 1, j]` with `i` one of the loop's `indices` and `a` a
    known array: one element per iteration. A slice among the indices (`a[:, i]`) is a whole
    column, already computed at once, and a mask is many elements."""
    if not (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name)):
        return False
    parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    if any(isinstance(part, ast.Slice) for part in parts):
        return False
    if any(isinstance(sub, (ast.Compare, ast.Slice)) for part in parts for sub in ast.walk(part)):
        return False  # a mask or an array of indices (`p[X[:, j] < t]`): many elements at once
    if not any(isinstance(name, ast.Name) and name.id in indices for part in parts for name in ast.walk(part)):
        return False
    ty = ctx.env.lookup(node.value.id)
    return ty is not None and ty.kind == "array"


def _stores_work(sub: ast.Subscript, parent: ast.AST | None, ctx: RuleContext) -> bool:
    """`Z[i, j] = cross_val_score(...).mean()`: the element stores what a call of other code
    computes (a model fitted per grid point): the loop's work is that call, not the element."""
    if not (isinstance(parent, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and parent.value is not None):
        return False
    if sub is not getattr(parent, "target", None) and not any(sub is t for t in getattr(parent, "targets", ())):
        return False
    for node in walk_local([parent.value]):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = ctx.qualname(func)
        if name is not None:  # a library's function: NumPy's and `math`'s compute elements
            if not name.startswith(("numpy.", "math.")):
                return True
        elif (
            isinstance(func, ast.Attribute)
            and isinstance(func.value, (ast.Name, ast.Attribute))
            and not _known_array(func.value, ctx)
        ):
            return True  # `self.posterior(X, i)`, `model.predict(x)`: other code's work
    return False


def _known_array(node: ast.expr, ctx: RuleContext) -> bool:
    ty = ctx.type_of(node)
    return ty is not None and ty.kind == "array"


def _plan(loop: ast.For, index: str, ctx: RuleContext) -> ElementPlan | None:
    """What the fixer may rewrite: a one-statement body over NumPy arrays, checked here
    where the evidence is at hand."""
    if loop.orelse or len(loop.body) != 1:
        return None
    statement = loop.body[0]
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
        target, value, kind = statement.targets[0], statement.value, "store"
        if not _element_of_array(target, index, ctx, "numpy"):
            return None
    elif isinstance(statement, ast.AugAssign):
        target, value = statement.target, statement.value
        if _element_of_array(target, index, ctx, "numpy") and isinstance(statement.op, _ELEMENT_OPERATORS):
            kind = "store"
        elif isinstance(target, ast.Name) and isinstance(statement.op, (ast.Add, ast.Sub)) and target.id != index:
            kind = "accumulate"
        else:
            return None
    else:
        return None
    forbidden = {index} | set(ctx.env.data_names(value))
    if kind == "accumulate":
        forbidden.add(target.id)  # type: ignore[union-attr]
    verdict = elementwise(value, lambda n: _element_of_array(n, index, ctx, "numpy"), forbidden, ctx.env)
    if verdict is None:
        return None
    arrays = {sub.value.id for sub in ast.walk(value) if _element_of_array(sub, index, ctx, "numpy")}  # type: ignore[attr-defined]
    return ElementPlan(kind, statement, verdict.needs_numpy, frozenset(arrays))
