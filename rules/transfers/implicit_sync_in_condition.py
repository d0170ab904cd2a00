"""GPU306 implicit-sync-in-condition."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from gpulint.rule_api import (
    STATEMENT_LOOPS,
    DEVICE_TRIGGERS,
    breaks_off_within,
    Example,
    is_device_resident,
    range_count,
    Rule,
    RuleContext,
    Tier,
    Ty,
    walk_local,
)

from ._host_copies import trainer_step
from ._common import (
    host_copy_of,
    runs_another_loop,
    small_loop,
    under_host_autocast,
    waits_anyway,
)


def _device_condition(ty: Ty | None) -> bool:
    """A tensor on a device or a CuPy array: its truth value must be copied to the host."""
    return is_device_resident(ty) and ty is not None and (ty.kind == "tensor" or ty.lib == "cupy")


class ImplicitSyncInCondition(Rule):
    """
    ## What it does
    Flags a condition that tests a torch tensor on a device or a CuPy array inside a loop:
    `if t:`, `if loss < best:`, `if torch.isnan(x).any():`, `a if cp.any(m) else b`, and the
    condition of a `while` loop (evaluated on every iteration, so it counts on its own).

    ## Evidence
    A step hook of a transformers `Trainer`'s subclass (`compute_loss`, and the methods it
    calls on the instance on every step) runs once per training step: a condition in it
    counts as one in the trainer's loop (`if (labels != -100).any():` in `compute_loss`).

    Conditions on host values are not flagged, nor conditions outside loops, nor conditions
    in an epoch loop: one that runs a loop over other data on every iteration, in its body
    or in a function of the file it calls (`train_one_epoch()`), so it tests once per epoch;
    nor in a loop over a literal `range` of a few steps (`for j in range(10):` over images
    to plot) or one its body breaks off after a few iterations by a counter
    (`if i == 2: break`). Explicit reads (`if loss.item() < best:`) are GPU307
    `scalar-read-in-loop`.

    Nor when the iteration has already copied the tested value to the host (`.item()`,
    `.tolist()`, `.cpu()`, `.numpy()`, `int()`/`float()` of it before the condition), or, in
    a generator, yields it in the very next statement to consumers that all copy each item
    (streaming generation: `if torch.all(next_token == eos): break`, then
    `yield next_token`, and the file's `for token in generate(...)` loops call
    `token.tolist()` to decode it), or when the iteration waits for the device anyway on
    every run, through a call outside any `if` that synchronises (a model's
    `.generate(...)`, which tests each new token on the host; `torch.cuda.synchronize()`).
    The condition then waits for nothing the copy would not wait for. A copy later in the
    iteration, after more work is queued (`loss.backward()`, then `loss.item()`), does not
    make the condition free. A loop over one model's tensors (`model.parameters()`) is, like
    a loop over the parts of one item, not the loop that counts.

    ## Why is this bad?
    Python needs a `bool`, so the value is copied to the host, which waits for every kernel
    queued before it: a hidden synchronisation per iteration, invisible in the source.
    Keeping the decision on the device (`torch.where`, masking) or checking every N steps
    keeps the device busy.

    ## Fix safety
    There is no automatic fix: the branch needs the value on the host, and how often it
    must be checked is the author's decision.

    ## On a CPU
    The wait is a GPU's. PyTorch queues CUDA kernels on a stream and returns to Python at
    once; a condition on a device tensor calls `bool()` on it, which copies the value to the
    host and synchronises: it waits until the queue has drained, and the GPU idles from then
    until Python queues the next kernel. A CPU has no such queue: PyTorch runs CPU
    operations eagerly, one after the other, so the same condition on a CPU tensor finds its
    value computed and waits for nothing: timing the rule there would measure nothing it is
    about. On a GPU, `torch.cuda.set_sync_debug_mode("warn")` warns at each synchronising
    call (an experimental mode: it does not catch every one), conditions on device tensors
    included. `gpulint bench` has no benchmark of this rule: it has no single rewrite to
    time.
    """

    code = "GPU306"
    libraries = DEVICE_TRIGGERS
    name = "implicit-sync-in-condition"
    tier = Tier.PREVIEW
    tier_reason = (
        "Never-used code, the tier samples pooled: 3 of 13 findings useful, below the bar (a few sequences "
        "decoded for display, tests in a step that waits for the device anyway)"
    )
    message = "condition on a device value inside a loop: Python waits for the device and copies it to the host on every iteration"
    nodes = (ast.If, ast.While, ast.IfExp)

    flagged = (
        Example("""\
import torch


def generate(model, token_ids, max_new_tokens, eos_token_id):
    for _ in range(max_new_tokens):
        next_token = torch.argmax(model(token_ids)[:, -1], dim=-1, keepdim=True)
        if torch.all(next_token == eos_token_id):
            break
        yield next_token
        token_ids = torch.cat([token_ids, next_token], dim=1)


model = torch.nn.Embedding(100, 100).to("cuda")
token_ids = torch.tensor([[1, 2, 3]], device="cuda")
tokens = torch.cat(list(generate(model, token_ids, 100, eos_token_id=0)), dim=1)  # kept on the device
"""),
        Example("""\
import torch

device = "cuda"


def losses(batches):
    history = []
    for batch in batches:
        loss = (batch.to(device) ** 2).mean()
        if torch.isfinite(loss):
            history.append(loss.detach())  # stays on the device
    return torch.stack(history)
"""),
        Example("""\
import torch

device = "cuda" if torch.cuda.is_available() else "cpu"


def steps_until(batches, threshold):
    steps = 0
    for batch in batches:
        loss = (batch.to(device) ** 2).mean()
        if loss < threshold:
            break
        steps += 1
    return steps
"""),
        Example("""\
import torch


def refine(x: torch.Tensor, tolerance: float):
    x = x.cuda()
    error = torch.ones((), device="cuda")
    while error > tolerance:
        x = x / 2
        error = x.abs().max()
    return x
"""),
        Example("""\
import cupy as cp


def clipped(chunks):
    out = []
    for chunk in chunks:
        values = cp.asarray(chunk)
        out.append(values if cp.all(values >= 0) else cp.clip(values, 0, None))
    return out
"""),
        Example("""\
import torch

device = torch.device("cuda")
model = torch.nn.Linear(4, 1).to(device)
for step in range(100):
    loss = model(torch.randn(8, 4, device=device)).pow(2).mean()
    if torch.isnan(loss).any():
        raise FloatingPointError(step)
"""),
    )
    ok = (
        Example(
            """\
import torch


def stream(model, token_ids, max_new_tokens, eos_token_id):
    for _ in range(max_new_tokens):
        next_token = torch.argmax(model(token_ids)[:, -1], dim=-1, keepdim=True)
        if torch.all(next_token == eos_token_id):  # the consumer decodes the token anyway
            break
        yield next_token
        token_ids = torch.cat([token_ids, next_token], dim=1)


model = torch.nn.Embedding(100, 100).to("cuda")
token_ids = torch.tensor([[1, 2, 3]], device="cuda")
for token in stream(model, token_ids, 100, eos_token_id=0):
    print(tokenizer.decode(token.squeeze(0).tolist()), end="")
""",
            reason="A generator's stop test whose consumer reads the token on the host anyway.",
        ),
        Example(
            """\
import torch

device = "cuda"


def losses(batches):
    history = []
    for batch in batches:
        loss = (batch.to(device) ** 2).mean()
        history.append(loss.item())  # copied to the host every step anyway
        if not torch.isfinite(loss):
            break
    return history
""",
            reason="A condition on a value the loop copies to the host anyway (`loss.item()`).",
        ),
        Example(
            """\
import matplotlib.pyplot as plt
import torch

labels = torch.randint(0, 2, (64,), device="cuda")
for j in range(10):  # ten images to plot
    plt.subplot(2, 5, j + 1)
    plt.title("smile" if labels[j] == 1 else "no smile")
""",
            reason="A loop over a literal `range` of a few steps (ten images to plot).",
        ),
        Example(
            """\
import torch

weights = torch.ones(3)
for step in range(10):
    if weights.sum() > 2:
        weights = weights / 2
""",
            reason="A condition on a host tensor.",
        ),
        Example(
            """\
import torch

device = "cuda"
loss = torch.ones((), device=device)
if loss > 0:
    print("positive")
""",
            reason="A condition outside any loop.",
        ),
        Example(
            """\
import numpy as np

values = np.arange(10)
for step in range(3):
    if values.sum() > 5:
        print(step)
""",
            reason="A condition on a NumPy array.",
        ),
        Example(
            """\
import torch

device = "cuda"
model = torch.nn.Linear(4, 1).to(device)
for step in range(10):
    output = model(torch.zeros(1, 4, device=device))
    if output is not None and step:
        print(step)
""",
            reason="An `is not None` test and a Python int: no tensor's truth value.",
        ),
        Example(
            """\
import torch

device = "cuda"
model = torch.nn.Linear(4, 1).to(device)


def train(epochs, loader, best):
    for epoch in range(epochs):
        for x in loader:
            loss = model(x.to(device)).mean()
            loss.backward()
        if loss < best:
            best = loss
    return best
""",
            reason="A condition in an epoch loop, after its batch loop: tested once per epoch.",
        ),
    )

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        # outside loops, a `Trainer` step hook (or a method it calls on every step) is the
        # body of the trainer's loop
        step = ctx.enclosing_function if not ctx.loops and trainer_step(ctx.enclosing_function, ctx) else None
        if not ctx.loops and not isinstance(node, ast.While) and step is None:
            return
        test = node.test  # type: ignore[attr-defined]
        tested = next((t for t in _truth_tested(test) if _device_condition(ctx.type_of(t))), None)
        if tested is None or under_host_autocast(ctx):
            return
        real = [
            loop
            for loop in ctx.loops
            if not small_loop(loop, ctx.statement, ctx.env) and not _few_iterations(loop, ctx)
        ]
        if not real and not isinstance(node, ast.While) and step is None:
            return  # a loop over a few parts, or a handful of iterations
        if real and isinstance(real[-1], STATEMENT_LOOPS) and runs_another_loop(real[-1], ctx):
            return  # an epoch loop around its batch loop tests once per epoch
        iteration = real[-1] if real else step or node
        if _copied_anyway(tested, iteration, ctx):
            return
        if real or step is None:
            ctx.report(tested)  # one finding per condition
        else:
            ctx.report(
                tested,
                f"condition on a device value in `{step.name}`, which the `Trainer` calls on every step: "  # type: ignore[attr-defined]
                "Python waits for the device and copies it to the host on every step",
            )


def _truth_tested(test: ast.expr) -> Iterator[ast.expr]:
    """The expressions whose truth value Python asks for: `a and not b` tests `a` and `b`."""
    if isinstance(test, ast.BoolOp):
        for value in test.values:
            yield from _truth_tested(value)
    elif isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        yield from _truth_tested(test.operand)
    elif not (isinstance(test, ast.Compare) and any(isinstance(op, _IDENTITY) for op in test.ops)):
        yield test  # `x is None`, `k in batch`: a Python bool, no copy


_IDENTITY = (ast.Is, ast.IsNot, ast.In, ast.NotIn)


#: A loop over a literal `range` of at most this many steps runs a handful of times.
_FEW_ITERATIONS = 16


def _few_iterations(loop: ast.AST, ctx: RuleContext) -> bool:
    """`for j in range(10, 20):`: a literal range of a few steps (a plotting loop over ten
    images), or a loop its body breaks off after a few by a counter (`if i == 2: break`,
    `gpulint.early_exit`), so the condition syncs a few times in all."""
    if breaks_off_within(loop, ctx, _FEW_ITERATIONS):
        return True
    iterable = getattr(loop, "iter", None)
    if not (
        isinstance(iterable, ast.Call)
        and isinstance(iterable.func, ast.Name)
        and iterable.func.id == "range"
        and ctx.env.is_builtin("range")
        and not iterable.keywords
        and 1 <= len(iterable.args) <= 3
    ):
        return False
    bounds = [a.value for a in iterable.args if isinstance(a, ast.Constant) and type(a.value) is int]
    return len(bounds) == len(iterable.args) and bounds[-1:] != [0] and range_count(*bounds) <= _FEW_ITERATIONS


def _copied_anyway(tested: ast.expr, iteration: ast.AST, ctx: RuleContext) -> bool:
    """The iteration waits for the device anyway when the condition runs, or hands the
    tested value straight to code that copies it, so the condition's sync waits for
    nothing the copy does not: it calls something that synchronises or has already copied
    the tested value to the host (`waits_anyway`), or, in a generator, the statement right
    after the condition yields it to consumers that all copy each item (streaming
    generation: `if torch.all(next_token == eos): break`, `yield next_token`, and
    `for token in generate(...): token.tolist()`)."""
    names = {n.id for n in ast.walk(tested) if isinstance(n, ast.Name) and is_device_resident(ctx.type_of(n))}
    if waits_anyway(iteration, ctx, names, (tested.lineno, tested.col_offset)):
        return True
    if not names:
        return False
    position = ctx.position()
    if position is None or position[1] + 1 >= len(position[0]):
        return False
    after = position[0][position[1] + 1]
    yields = (
        isinstance(after, ast.Expr)
        and isinstance(after.value, ast.Yield)
        and after.value.value is not None
        and any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(after.value.value))
    )
    function = ctx.enclosing_function
    return yields and function is not None and _consumers_copy(function, ctx)


def _consumers_copy(function: ast.FunctionDef | ast.AsyncFunctionDef, ctx: RuleContext) -> bool:
    """The file iterates the generator `function` at least once, and every such loop
    (`for item in function(...)`) copies each item to the host."""
    consumers = [
        loop
        for call, _ in ctx.semantic.calls_by_name(function.name)
        if isinstance(loop := ctx.parent(call), (ast.For, ast.AsyncFor)) and loop.iter is call
    ]
    if not consumers or ctx.semantic.resolve([ctx.tree], function.name) != ([ctx.semantic.function(function)], []):
        return False
    for loop in consumers:
        if not isinstance(loop.target, ast.Name):
            return False
        if not any(host_copy_of(node, {loop.target.id}) for node in walk_local(loop.body)):
            return False
    return True
