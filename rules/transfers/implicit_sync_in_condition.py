"""GPU306 implicit-sync-in-condition."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from gpulint.evidence import Ty, is_device_resident
from gpulint.rule_api import Example, Rule, RuleContext, Tier

from ._common import runs_another_loop, small_loop, under_host_autocast


def _device_condition(ty: Ty | None) -> bool:
    """A tensor on a device or a CuPy array: its truth value must be copied to the host."""
    return is_device_resident(ty) and ty is not None and (ty.kind == "tensor" or ty.lib == "cupy")


class ImplicitSyncInCondition(Rule):
    """
    ## What it does
    Flags a condition that tests a torch tensor on a device or a CuPy array inside a loop:
    `if t:`, `if loss < best:`, `if torch.isnan(x).any():`, `a if cp.any(m) else b`, and the
    condition of a `while` loop (evaluated on every iteration, so it counts on its own).

    Conditions on host values are not flagged, nor conditions outside loops, nor conditions
    in an epoch loop: one that runs a loop over other data on every iteration, in its body
    or in a function of the file it calls (`train_one_epoch()`), so it tests once per epoch.
    Explicit copies (`if loss.item() < best:`) are GPU301 `device-to-host-in-loop`.

    ## Why is this bad?
    Python needs a `bool`, so the value is copied to the host, which waits for every kernel
    queued before it: a hidden synchronisation per iteration, invisible in the source.
    Keeping the decision on the device (`torch.where`, masking) or checking every N steps
    keeps the device busy.

    ## Fix safety
    There is no automatic fix: the branch needs the value on the host, and how often it
    must be checked is the author's decision.
    """

    code = "GPU306"
    name = "implicit-sync-in-condition"
    tier = Tier.DEFAULT  # real code: 22 of 22 checked findings useful
    message = "condition on a device value inside a loop: Python waits for the device and copies it to the host on every iteration"
    nodes = (ast.If, ast.While, ast.IfExp)

    flagged = (
        Example('''\
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
'''),
        Example('''\
import torch


def refine(x: torch.Tensor, tolerance: float):
    x = x.cuda()
    error = torch.ones((), device="cuda")
    while error > tolerance:
        x = x / 2
        error = x.abs().max()
    return x
'''),
        Example('''\
import cupy as cp


def clipped(chunks):
    out = []
    for chunk in chunks:
        values = cp.asarray(chunk)
        out.append(values if cp.all(values >= 0) else cp.clip(values, 0, None))
    return out
'''),
        Example('''\
import torch

device = torch.device("cuda")
model = torch.nn.Linear(4, 1).to(device)
for step in range(100):
    loss = model(torch.randn(8, 4, device=device)).pow(2).mean()
    if torch.isnan(loss).any():
        raise FloatingPointError(step)
'''),
    )
    ok = (
        Example('''\
import torch

weights = torch.ones(3)
for step in range(10):
    if weights.sum() > 2:
        weights = weights / 2
'''),
        Example('''\
import torch

device = "cuda"
loss = torch.ones((), device=device)
if loss > 0:
    print("positive")
'''),
        Example('''\
import numpy as np

values = np.arange(10)
for step in range(3):
    if values.sum() > 5:
        print(step)
'''),
        Example('''\
import torch

device = "cuda"
model = torch.nn.Linear(4, 1).to(device)
for step in range(10):
    output = model(torch.zeros(1, 4, device=device))
    if output is not None and step:
        print(step)
'''),
    )

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        if not ctx.loops and not isinstance(node, ast.While):
            return
        test = node.test  # type: ignore[attr-defined]
        tested = next((t for t in _truth_tested(test) if _device_condition(ctx.type_of(t))), None)
        if tested is None or under_host_autocast(ctx):
            return
        real = [loop for loop in ctx.loops if not small_loop(loop, ctx.statement, ctx.env)]
        if real and isinstance(real[-1], (ast.For, ast.AsyncFor, ast.While)) and runs_another_loop(real[-1], ctx):
            return  # an epoch loop around its batch loop tests once per epoch
        ctx.report(tested)  # one finding per condition


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
