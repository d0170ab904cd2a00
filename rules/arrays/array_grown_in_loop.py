"""GPU202 array-grown-in-loop."""

from __future__ import annotations

import ast
from dataclasses import replace

from gpulint.rule_api import (
    NESTED_SCOPES,
    Applicability,
    carried_over,
    Example,
    few_iterations,
    innermost_loop,
    keyword_value,
    mentions,
    recurrence_in,
    Rule,
    RuleContext,
    Tier,
    value_bound_to,
    walk_local,
)
from gpulint.numpy_api import ARRAY_GROWERS
from gpulint.torch_api import TENSOR_GROWERS
from gpulint.plans.array_grown_in_loop import Growth

#: Index expressions that build a new array of their items (`np.r_[a, x]`, `np.c_[a, x]`).
_INDEX_GROWERS = frozenset({"r_", "c_"})
#: Growers the fixer can turn into one call on a list.
_REWRITTEN = frozenset({"append", "concatenate", "vstack", "hstack", "cat", "concat", "r_", "c_"})
_LOOPS = (ast.For, ast.While)
_GUARDS = (ast.Try, ast.With, ast.AsyncWith, *((ast.TryStar,) if hasattr(ast, "TryStar") else ()))


def grower(qualname: str | None, index: bool = False) -> tuple[str, str] | None:
    """("numpy"|"cupy"|"torch", function) for an array-growing function's qualified name
    (with `index`, for the object indexed: `np.r_`, `np.c_`)."""
    if qualname is None or "." not in qualname:
        return None
    module, function = qualname.rsplit(".", 1)
    if index:
        return (module, function) if module in ("numpy", "cupy") and function in _INDEX_GROWERS else None
    if module in ("numpy", "cupy") and function in ARRAY_GROWERS:
        return module, function
    if module == "torch" and function in TENSOR_GROWERS:
        return module, function
    return None


class ArrayGrownInLoop(Rule):
    """
    ## What it does
    Flags an array grown inside a loop by a function that copies it: `a = np.append(a, x)`,
    `a = np.concatenate([a, x])`, `np.vstack`, `np.hstack`, `np.stack` and the like (NumPy
    or CuPy), `a = np.r_[a, x]` and `a = np.c_[a, x]`, and `t = torch.cat([t, x])`. The call
    itself, assigned back to a name it receives, is the evidence.

    ## Evidence
    A list's `append` in a loop and one concatenation after the loop are the recommended
    form.

    A recurrence is left alone: where the loop computes what it adds from the array itself
    (`x = np.append(x, f(x[-1]))`, or autoregressive decoding,
    `ids = torch.cat([ids, next_id], dim=1)` with `next_id` computed from `model(ids)`), or
    decides from what it holds whether to add (`if distance(p, kept).min() < r: continue`),
    each iteration needs the array grown so far, and collecting the pieces would break the
    loop. Code that only looks at the array (`print(x)`) or tests its size or kind
    (`while x.size < n`, `if x is None`) does not make it a recurrence. A name that each
    iteration binds afresh before growing it (`neg, emb = encode(p)` then
    `emb = torch.cat([neg, emb])`) accumulates nothing.

    Growth that happens only a few times is left alone: in loops known to run a few times
    (over a short literal, `range(5)`, a small literal array; see the size evidence), or
    once per class or group (`for c in np.unique(y):` or a loop whose body selects
    `y == c`), where each iteration scans the data anyway and the copies cost no more than
    that scan. So is decoding one step at a time, where each iteration feeds the new piece
    to a call whose result gives the next piece (`next_id = logits[:, -1].argmax(...)`,
    `ids = torch.cat([ids, next_id], dim=1)`, `logits = model(next_id, cache=cache)`): the
    call, a model's forward pass, costs far more than copying a row of ids.

    ## Why is this bad?
    Each call allocates a new array and copies every element gathered so far, so `n`
    iterations copy `n²/2` elements: quadratic time, and on a GPU one allocation and copy
    kernel per iteration. Appending to a Python list is amortised constant time; one
    concatenation after the loop copies each element once: growing a float array with
    `np.append` one value at a time is about {speedup:1000} slower at 1,000 values and
    {speedup:100000} at 100,000 (the measured speedups below), and the gap keeps growing
    with the length.

    ## Fix safety
    The fix collects the pieces in a list that starts with the initial array, and makes one
    call after the loop: `np.append` becomes `np.concatenate(parts, axis=None)` (it
    flattens like `np.append`), the others keep their function and options, and
    `np.r_[a, x]`/`np.c_[a, x]` become `np.r_[tuple(parts)]`/`np.c_[tuple(parts)]`, the
    same as spelling the items out (pieces written as ranges, `a:b`, or as text, which
    `np.r_` reads as a directive, get a suggestion only).

    It is offered when the name starts as a fresh array just before the loop (NumPy's
    `np.array([])`, `np.empty/zeros/ones(shape)` with a literal or `len(...)` shape, or
    torch's `torch.empty/zeros/ones(...)`, `torch.tensor([])`), the loop uses the name
    only in the growth statement, does not leave early (`return`, `raise`, `yield`), is
    not inside `try` or `with` in its function, and no nested function or `global` reaches
    the name. A loop that runs zero times then leaves an equal array (a fresh copy of the
    start), which needs a start with enough dimensions: 1-D for `np.append`, 2-D for
    `np.vstack` and `np.c_` (which turns a 1-D array into a column), at least 1-D for
    `np.r_`, more than the `axis` for `np.concatenate`.

    The fix is unsafe, because the chain copied each piece at the moment it joined it and
    the list keeps the piece itself, joined only after the loop. Three things differ:

    - a piece changed after it was collected (a row buffer filled again in the next
      iteration, `p += 1`, `p.fill(...)`, a list that grows, a view of an array changed
      later, `b.fill_(i)` on a tensor) shows its last value in every place it was added:
      the chain kept a copy of each value;
    - dtype promotion happens once over all the pieces instead of pair by pair: pieces
      mixing text and numbers, Python ints beyond 64 bits (an exact object array in the
      chain, rounded floats at once), or object and text pieces can promote to another
      dtype or raise where the chain did not;
    - a piece the chain could not join fails at the end instead: the loop goes on past it,
      running the rest of its body for the later pieces, and the join after the loop
      raises, possibly with another error.

    The values, shape and dtype are the same when every piece is a fresh number or array
    of numbers nothing changes later (a test checks every combination of numeric piece
    dtypes). Check that, and that the loop neither reuses a buffer nor stops on a bad
    piece, before applying it with `--unsafe-fixes`. A start with an explicit `dtype=` adds
    one more: promoting all pieces at once can pick another dtype than pairwise.

    Other shapes (`np.stack`, prepending, a start of unknown shape, CuPy) get a
    display-only suggestion.
    """

    code = "GPU202"
    name = "array-grown-in-loop"
    tier = Tier.PREVIEW
    tier_reason = "Real code: 1 of 7 sampled findings useful (growth a few times per run)"
    message = "array grown inside a loop: each step copies every element so far; collect the pieces in a list and concatenate once after the loop"
    nodes = (ast.Assign,)
    fix = Applicability.UNSAFE
    suggestion = (
        "append each piece to a Python list inside the loop and concatenate once after it "
        "(`np.concatenate(pieces)`, `np.vstack(pieces)`, `torch.cat(pieces)`)"
    )

    flagged = (
        Example(
            source="""\
import numpy as np


def peaks(windows: list) -> np.ndarray:
    found = np.array([])
    for window in windows:
        found = np.append(found, window.max())
    return found
""",
            fixed="""\
import numpy as np


def peaks(windows: list) -> np.ndarray:
    found = np.array([])
    parts = [found]
    for window in windows:
        parts.append(window.max())
    found = np.concatenate(parts, axis=None)
    return found
""",
            setup="windows = [rng.normal(size=5) for _ in range(N)]",
            call="peaks(windows)",
        ),
        Example(
            source="""\
import numpy as np


def scaled(sizes: list) -> np.ndarray:
    ends = np.array([])
    for size in sizes:
        ends = np.r_[ends, size * 2.5]
    return ends
""",
            fixed="""\
import numpy as np


def scaled(sizes: list) -> np.ndarray:
    ends = np.array([])
    parts = [ends]
    for size in sizes:
        parts.append(size * 2.5)
    ends = np.r_[tuple(parts)]
    return ends
""",
            setup="sizes = list(rng.integers(0, 10, N))",
            call="scaled(sizes)",
        ),
        Example(
            source="""\
import numpy as np


def stack_features(samples: list) -> np.ndarray:
    features = np.empty((0, 3))
    for sample in samples:
        # one row per sample
        features = np.vstack([features, [sample.mean(), sample.std(), sample.max()]])
    return features
""",
            fixed="""\
import numpy as np


def stack_features(samples: list) -> np.ndarray:
    features = np.empty((0, 3))
    parts = [features]
    for sample in samples:
        # one row per sample
        parts.append([sample.mean(), sample.std(), sample.max()])
    features = np.vstack(parts)
    return features
""",
            setup="samples = [rng.normal(size=8) for _ in range(N)]",
            call="stack_features(samples)",
        ),
        Example(
            source="""\
import torch


def embed_all(batches, model):
    out = torch.empty(0, 16)
    for batch in batches:
        out = torch.cat([out, model(batch)], dim=0)
    return out
""",
            fixed="""\
import torch


def embed_all(batches, model):
    out = torch.empty(0, 16)
    parts = [out]
    for batch in batches:
        parts.append(model(batch))
    out = torch.cat(parts, dim=0)
    return out
""",
            requires=("torch",),
            setup="import torch\ntorch.manual_seed(0)\nbatches = [torch.randn(4, 8) for _ in range(N)]\nmodel = torch.nn.Linear(8, 16)",
            call="embed_all(batches, model).detach().numpy()",
        ),
        Example(
            source="""\
import numpy as np


def history(values, start):
    seen = np.asarray(start)
    for value in values:
        seen = np.concatenate([seen, [value]])
        print(len(seen))
    return seen
""",
        ),
        # distinct values, but nothing selects each one's elements: as many as the data holds
        Example(
            source="""\
import numpy as np


def label_names(y, names):
    found = np.array([])
    for label in np.unique(y):
        found = np.append(found, names[label])
    return found
""",
            fixed="""\
import numpy as np


def label_names(y, names):
    found = np.array([])
    parts = [found]
    for label in np.unique(y):
        parts.append(names[label])
    found = np.concatenate(parts, axis=None)
    return found
""",
            setup="y = rng.integers(0, N, N)\nnames = rng.normal(size=N)",
            call="label_names(y, names)",
        ),
    )
    ok = (
        # grown a few times: a literal list of corners, once per class (each iteration
        # selects that class's rows anyway)
        Example(
            """\
import numpy as np

corners = np.empty((0, 2))
for x, y in [(0, 0), (0, 1), (1, 0), (1, 1)]:
    corners = np.vstack([corners, [x, y]])
""",
            reason="A loop over a short literal: the array grows a few times.",
        ),
        Example(
            """\
import numpy as np


def undersample(X, y, keep):
    picked = np.empty((0,), dtype=int)
    for label in np.unique(y):
        rows = np.flatnonzero(y == label)[:keep]
        picked = np.concatenate((picked, rows))
    return X[picked]
""",
            reason="Growth once per class (`for label in np.unique(y)`): each iteration scans the data anyway.",
        ),
        # decoding with a cache: each step's forward pass takes the new token only
        Example(
            """\
import torch


def generate(model, ids, steps, cache):
    logits = model(ids, cache=cache)
    for _ in range(steps):
        next_id = logits[:, -1].argmax(dim=-1, keepdim=True)
        ids = torch.cat([ids, next_id], dim=1)
        logits = model(next_id, cache=cache)
    return ids
""",
            reason="Decoding one step at a time: each new piece feeds the model call that gives the next.",
        ),
        Example(
            """\
import numpy as np

pieces = []
for chunk in range(10):
    pieces.append(np.full(3, chunk))
combined = np.concatenate(pieces)
""",
            reason="Pieces collected in a list and concatenated once.",
        ),
        Example(
            """\
import numpy as np

left = np.zeros(3)
right = np.ones(3)
for _ in range(2):
    both = np.concatenate([left, right])
""",
            reason="A concat whose result the loop does not carry to its next iteration.",
        ),
        Example(
            """\
import numpy as np

scores = []
for value in range(10):
    scores.append(value * 2.0)
scores = np.array(scores)
""",
            reason="Values collected in a list, turned into an array once.",
        ),
        Example(
            """\
import numpy as np

base = np.arange(6)
grown = np.append(base, [6, 7])
""",
            reason="An `np.append` outside any loop.",
        ),
        # each iteration starts its own array: padded once, nothing carried over
        Example(
            """\
import numpy as np

for row in rows:
    pos = np.array([row[0], row[1]])
    pos = np.concatenate([[np.nan], pos, [np.nan]])
    draw(pos)
""",
            reason="A fresh small array padded in each iteration: nothing accumulates.",
        ),
        # recurrences: each new piece is computed from the array grown so far
        Example(
            """\
import torch


def generate(model, ids, steps):
    for _ in range(steps):
        logits = model(ids)[:, -1, :]
        next_id = logits.argmax(dim=-1, keepdim=True)
        ids = torch.cat([ids, next_id], dim=1)
    return ids
""",
            reason="The next piece is computed from the grown tensor (`model(ids)`): a recurrence.",
        ),
        Example(
            """\
import numpy as np

path = np.array([1.0])
for _ in range(10):
    path = np.append(path, path[-1] * 1.05)
""",
            reason="Each new value is computed from the last one (`path[-1]`): a recurrence.",
        ),
        Example(
            """\
import numpy as np

orbit = np.zeros(1)
for step in range(100):
    last = orbit[-1]
    orbit = np.r_[orbit, np.cos(last)]
""",
            reason="Each new value is computed from the last one (`orbit[-1]`) with `np.r_`: a recurrence.",
        ),
        # `np.r_` outside a loop, and of two other arrays in a loop
        Example(
            """\
import numpy as np

head = np.arange(3)
joined = np.r_[head, 10, 11]
""",
            reason="An `np.r_` outside any loop.",
        ),
        Example(
            """\
import numpy as np

left = np.zeros(3)
for step in range(4):
    right = np.full(2, step)
    both = np.r_[left, right]
    edges = np.c_[left, left]
""",
            reason="`np.r_`/`np.c_` whose results the loop does not carry to its next iteration.",
        ),
        Example(
            """\
import numpy as np


def spread_out(points, radius):
    kept = np.empty((0, 2))
    for p in points:
        if len(kept) and np.linalg.norm(kept - p, axis=1).min() < radius:
            continue
        kept = np.vstack([kept, p])
    return kept
""",
            reason="The loop decides from what it holds whether to add a point: a recurrence.",
        ),
    )

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        assert isinstance(node, ast.Assign)
        if not ctx.loops or len(node.targets) != 1 or not isinstance(node.targets[0], ast.Name):
            return
        call = node.value
        if isinstance(call, ast.Call):
            found = grower(ctx.qualname(call.func))
        elif isinstance(call, ast.Subscript):
            found = grower(ctx.qualname(call.value), index=True)
        else:
            return
        if found is None:
            return
        name = node.targets[0].id
        pieces = _pieces(call, found[1], name)
        if pieces is None or not carried_over(ctx.loops, name, ctx.loop_effects):
            return  # bound afresh before it is grown: each iteration starts over
        if recurrence_in(ctx.loops, name, ctx.loop_effects):
            return  # a recurrence (the loop computes the next piece from it) is not collectable
        if _grown_a_few_times(name, ctx) or _decoding_step(pieces, name, ctx):
            return  # the copies cost nothing next to what the loop does
        growth = Growth(node, call, name, found[0], found[1], pieces, applicability=Applicability.DISPLAY)
        ctx.report(node, context=_plan(growth, ctx) or growth)


def _pieces(call: ast.Call | ast.Subscript, function: str, name: str) -> list[ast.expr] | None:
    """The new pieces when the call takes `name` as its first input, [] when it takes it
    elsewhere, None when it does not take it at all."""
    if isinstance(call, ast.Subscript):
        inputs = call.slice.elts if isinstance(call.slice, ast.Tuple) else []
    elif any(isinstance(a, ast.Starred) for a in call.args):
        return None
    elif function == "append":
        inputs = call.args[:2]
    elif call.args and isinstance(call.args[0], (ast.List, ast.Tuple)):
        inputs = call.args[0].elts
    else:
        return None
    if any(isinstance(e, ast.Starred) for e in inputs):
        return None
    positions = [i for i, e in enumerate(inputs) if isinstance(e, ast.Name) and e.id == name]
    if not positions:
        return None
    if positions != [0] or len(inputs) < 2:
        return []
    return list(inputs[1:])


def _grown_a_few_times(name: str, ctx: RuleContext) -> bool:
    """Every loop that hands `name` on from one iteration to the next (the innermost, and
    the enclosing ones that do not start it afresh) is known to run only a few times."""
    checked = False
    for loop in reversed(ctx.loops):
        if not isinstance(loop, _LOOPS):
            continue
        if name not in ctx.loop_effects(loop).carried:
            break  # started afresh in each iteration of this loop: the loops around it add nothing
        if not few_iterations(loop, ctx):
            return False
        checked = True
    return checked


def _decoding_step(pieces: list[ast.expr], name: str, ctx: RuleContext) -> bool:
    """A piece computed from a value that the loop hands on, when the loop rebinds that
    value from a call on the piece (`next_id = logits[:, -1].argmax(...)`, then
    `logits = model(next_id)`): a step of autoregressive decoding. The callee is not a
    known library function (a model, a function given to the code)."""
    loop = innermost_loop(ctx.loops)
    if loop is None:
        return False
    effects = ctx.loop_effects(loop)
    handed_on = effects.carried - {name}
    assignments = [node for node in walk_local(loop.body) if isinstance(node, (ast.Assign, ast.AnnAssign))]
    for piece in pieces:
        if not isinstance(piece, ast.Name):
            continue
        sources = {
            sub.id
            for node in assignments
            if (value := value_bound_to(node, piece.id)) is not None
            for sub in ast.walk(value)
            if isinstance(sub, ast.Name) and sub.id in handed_on
        }
        for source in sources:
            for node in assignments:
                value = value_bound_to(node, source)
                if value is not None and any(_call_on(call, piece.id, ctx) for call in ast.walk(value)):
                    return True
    return False


def _call_on(node: ast.AST, name: str, ctx: RuleContext) -> bool:
    """`node` calls something other than a known library function with `name` as an argument."""
    return (
        isinstance(node, ast.Call)
        and ctx.qualname(node.func) is None
        and any(isinstance(a, ast.Name) and a.id == name for a in node.args)
    )


# -- can the fixer collect the pieces? -------------------------------------------------------


def _plan(growth: Growth, ctx: RuleContext) -> Growth | None:
    """The growth with the loop to collect over and the fresh array the name starts as, as
    an unsafe rewrite (the list keeps each piece itself, not the copy the chain made; see
    "Fix safety"); None where the pieces cannot be collected."""
    if not growth.pieces or growth.function not in _REWRITTEN or growth.lib == "cupy":
        return None
    if any(mentions(piece, growth.name) for piece in growth.pieces) or not _options_ok(growth):
        return None
    site = _choose_loop(growth, ctx)
    if site is None:
        return None
    position, loop, block = site
    outside = ctx.statements[:position]
    scope_start = max((i + 1 for i, s in enumerate(outside) if isinstance(s, NESTED_SCOPES)), default=0)
    if any(isinstance(s, _GUARDS) for s in outside[scope_start:]) or ctx.seen_elsewhere(growth.name):
        return None
    init = _init_before(loop, block, growth.name)
    if init is None:
        return None
    ndim = _fresh_start(init.value, growth.lib, ctx)
    if ndim is None or not _same_when_empty(growth, ndim):
        return None
    return replace(growth, loop=loop, block=block, init=init, applicability=Applicability.UNSAFE)


def _options_ok(growth: Growth) -> bool:
    """Only the axis (`axis=`/`dim=`) as a constant, and no extra positional arguments;
    for `np.r_`/`np.c_`, pieces that a list can hold as they are (no `a:b` ranges, no text,
    which would be a directive)."""
    call = growth.call
    if isinstance(call, ast.Subscript):
        return not any(
            isinstance(p, ast.Slice) or (isinstance(p, ast.Constant) and isinstance(p.value, str))
            for p in growth.pieces
        )
    allowed = "dim" if growth.lib == "torch" else "axis"
    positional = 2 if growth.function == "append" else 1
    if len(call.args) != positional:
        return False
    for keyword in call.keywords:
        value = keyword.value
        if keyword.arg != allowed or not (
            isinstance(value, ast.Constant) and (value.value is None or type(value.value) is int)
        ):
            return False
    return True


def _axis(growth: Growth) -> int | None | str:
    assert isinstance(growth.call, ast.Call)
    value = keyword_value(growth.call, "dim" if growth.lib == "torch" else "axis")
    if value is None:
        return None if growth.function == "append" else 0
    return value.value  # type: ignore[attr-defined]


def _same_when_empty(growth: Growth, ndim: int) -> bool:
    """Does one call on `[start]` give back an array equal to the start?"""
    if growth.function == "r_":
        return ndim >= 1  # joined along the first axis
    if growth.function == "c_":
        return ndim == 2  # a 1-D start would come back as a column
    axis = _axis(growth)
    if growth.function == "vstack":
        return ndim == 2
    if growth.function == "hstack":
        return ndim >= 1
    if axis is None:
        return ndim == 1  # flattened
    if growth.lib == "torch":
        return axis == 0 and ndim >= 1
    return isinstance(axis, int) and 0 <= axis < ndim


def _choose_loop(growth: Growth, ctx: RuleContext) -> tuple[int, ast.stmt, list[ast.stmt]] | None:
    """The outermost enclosing loop (of the current function) whose only use of the name is
    the growth statement and which always reaches the code after it: its position in
    `ctx.statements`, the loop and its block."""
    chosen = None
    for position in range(len(ctx.statements) - 2, -1, -1):
        statement = ctx.statements[position]
        if isinstance(statement, NESTED_SCOPES):
            break
        if not isinstance(statement, _LOOPS):
            if isinstance(statement, ast.AsyncFor):
                break
            continue
        effects = ctx.loop_effects(statement)
        if effects.uses[growth.name] != 2 or effects.leaves:
            break  # the growth statement binds it once and reads it once
        chosen = (position, statement, ctx.blocks[position])
    return chosen


def _init_before(loop: ast.stmt, block: list[ast.stmt], name: str) -> ast.Assign | None:
    """The statement right before the loop (ignoring ones that do not mention `name`), if
    it is `name = <call>`."""
    position = next((i for i, s in enumerate(block) if s is loop), None)
    if position is None:
        return None
    for statement in reversed(block[:position]):
        if not mentions(statement, name):
            continue
        if (
            isinstance(statement, ast.Assign)
            and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name)
            and statement.targets[0].id == name
            and isinstance(statement.value, ast.Call)
            and not mentions(statement.value, name)
        ):
            return statement
        return None
    return None


def _shape_size(node: ast.expr) -> bool:
    """A literal non-negative int or a `len(...)` call: one dimension's size."""
    if isinstance(node, ast.Constant):
        return type(node.value) is int and node.value >= 0
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "len"
        and len(node.args) == 1
        and not node.keywords
    )


def _fresh_start(call: ast.Call, lib: str, ctx: RuleContext) -> int | None:
    """The number of dimensions of a freshly made array of known shape."""
    qualname = ctx.qualname(call.func) or ""
    module, _, function = qualname.rpartition(".")
    if module != lib or any(isinstance(a, ast.Starred) for a in call.args):
        return None
    keywords = {k.arg for k in call.keywords}
    allowed = {"dtype", "device"} if lib == "torch" else {"dtype"}
    if None in keywords or not keywords <= allowed:
        return None
    args = call.args
    if function in ("array", "tensor"):
        if len(args) == 1 and isinstance(args[0], ast.List) and not args[0].elts:
            return 1
        return None
    if function not in ("empty", "zeros", "ones"):
        return None
    if lib == "torch" and len(args) > 1:
        dims = args  # torch.zeros(0, 16)
    elif len(args) == 1:
        dims = args[0].elts if isinstance(args[0], (ast.Tuple, ast.List)) else [args[0]]
    else:
        return None
    if not dims or not all(_shape_size(d) for d in dims):
        return None
    return len(dims)
