"""GPU303 device-round-trip."""

from __future__ import annotations

import ast

from gpulint.rule_api import DEVICE_TRIGGERS, Applicability, Example, Rule, RuleContext, Tier, assigned_value

from ._common import ROUND_TRIP_METHODS, RoundTrip, round_trip
from gpulint.plans.device_round_trip import Trip


def _applicability(trip: RoundTrip) -> Applicability:
    """A copy on the device instead (see "Fix safety"): safe for CuPy; unsafe for cuDF (the
    host trip changes the dtype of integer or boolean columns with nulls, the copy keeps it)
    and for torch (the host trip raises for tensors NumPy cannot hold, the copy does not;
    from `as_tensor`/`from_numpy` the original also shares memory with the value on the
    CPU), display-only where the host copy goes through a list (dtypes inferred again) or
    the constructor or the move is given anything else."""
    if trip.library == "cupy":
        return Applicability.SAFE
    if trip.library == "cudf":
        return Applicability.UNSAFE
    if trip.via_list or not trip.plain:
        return Applicability.DISPLAY
    return Applicability.UNSAFE


_SETUP = """\
import torch
scores = torch.from_numpy(rng.standard_normal(N))
"""


class DeviceRoundTrip(Rule):
    """
    ## What it does
    Flags a value copied from the device to the host and straight back in one expression:
    `torch.tensor(t.cpu().numpy()).cuda()` (also `.to(device)`, `device=device`,
    `torch.as_tensor`, `torch.from_numpy`, `.tolist()`), `cupy.asarray(cupy.asnumpy(a))`,
    `cupy.asarray(a.get())`, `cudf.from_pandas(g.to_pandas())`.

    This rule wins over GPU304 (the constructor is made on the host) and GPU302 (it is
    copied to the device in a loop), and the copy to the host inside it is not reported as a
    GPU301, GPU307 or GPU308 of its own: one finding per expression.

    ## Evidence
    Reshapes on the way back count (`torch.tensor(t.tolist()).view(-1, 1).to(d)`), and so
    does a list of device tensors handed to a constructor or a legacy class
    (`torch.tensor([loss_a, loss_b]).to(d)`, `torch.FloatTensor([a, b]).cuda()`, a list
    comprehension of device results written inline or bound to a name first:
    `sums = [torch.sum(r[j:]) for j in range(n)]`, then `torch.FloatTensor(sums).to(d)`):
    each element is read to the host on its own; `torch.stack` keeps them on the device
    (shown, not written).

    ## Why is this bad?
    Both copies cross the bus and each waits for the device to finish its queued work, only
    to produce what a copy on the device gives directly (a device-to-device copy runs at the
    device's memory bandwidth, an order of magnitude above the bus).

    ## Fix safety
    The fix drops the host hop and keeps the copy. For torch,
    `torch.tensor(t.cpu().numpy()).to(d)` becomes `t.detach().to(d, copy=True)`: a new tensor
    with the same values and dtype on the same device, detached from the graph like the
    original. The fix is unsafe because of the tensors the host hop cannot carry: where
    `.numpy()` raises (a `bfloat16` tensor, one that requires grad, one with its conjugate
    bit set) the rewrite returns a copy, and for a sparse tensor it raises another error.
    Through `torch.as_tensor`/`torch.from_numpy` one more thing differs: when the "device"
    is the CPU the original shares memory with `t` and the rewrite copies.
    Through `.tolist()` the dtype is inferred again from Python numbers (an `int32` tensor
    comes back `int64`, a `float64` one `float32`), so only a suggestion is shown.
    For CuPy, `cupy.asarray(cupy.asnumpy(a))` becomes `a.copy()` (safe: same values and
    dtype, a new array on the current device). For cuDF, `cudf.from_pandas(g.to_pandas())`
    becomes `g.copy()`, which is unsafe: the round trip turns an integer or boolean column
    with nulls into a float or object one, the copy keeps its dtype.
    """

    code = "GPU303"
    libraries = DEVICE_TRIGGERS
    name = "device-round-trip"
    tier = Tier.DEFAULT
    tier_reason = "No real-code finding; flags only a device-host-device copy in one expression"
    message = "value copied from the device to the host and back; copy it on the device instead"
    nodes = (ast.Call,)
    calls = ROUND_TRIP_METHODS
    fix = Applicability.SAFE
    suggestion = (
        "keep the value on the device: copy it there (`t.detach().clone()`, `a.copy()`) instead of through the host"
    )

    flagged = (
        Example(
            source="""\
import torch

device = "cuda" if torch.cuda.is_available() else "cpu"


def normalised(scores):
    scores = scores.to(device)
    copy = torch.tensor(scores.cpu().numpy()).to(device)
    return (copy / copy.abs().sum()).tolist()
""",
            fixed="""\
import torch

device = "cuda" if torch.cuda.is_available() else "cpu"


def normalised(scores):
    scores = scores.to(device)
    copy = scores.detach().to(device, copy=True)
    return (copy / copy.abs().sum()).tolist()
""",
            requires=("torch",),
            setup=_SETUP,
            call="normalised(scores)",
        ),
        Example(
            source="""\
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def doubled(values):
    on_device = torch.as_tensor(values, device=device)
    twice = torch.from_numpy((on_device * 2).cpu().numpy()).to(device)
    return twice.tolist()
""",
            fixed="""\
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def doubled(values):
    on_device = torch.as_tensor(values, device=device)
    twice = (on_device * 2).detach().to(device, copy=True)
    return twice.tolist()
""",
            requires=("torch",),
            setup="values = rng.standard_normal(N)",
            call="doubled(values)",
        ),
        Example(
            source="""\
import torch


def snapshot(model, batch):
    model = model.cuda()
    return torch.tensor(model(batch.cuda()).tolist(), device="cuda")
""",
        ),
    )
    ok = (
        Example(
            """\
import torch

device = "cuda" if torch.cuda.is_available() else "cpu"
host = torch.tensor([1.0, 2.0])
on_device = torch.tensor(host.numpy()).to(device)
""",
            reason="A host tensor copied to the device once.",
        ),
        Example(
            """\
import numpy as np
import cupy as cp

host = np.arange(10)
on_device = cp.asarray(host)
back = cp.asnumpy(on_device)
""",
            reason="A host-device-host copy, not device-host-device.",
        ),
        Example(
            """\
import torch

device = "cuda"
t = torch.ones(3, device=device)
kept = t.cpu().numpy()
""",
            reason="A device tensor copied to the host once and kept there.",
        ),
    )

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        trip = round_trip(node, ctx.env, lambda name: _assigned(name, ctx))
        if trip is None:
            return
        message = None
        if trip.library == "torch" and not trip.chain:  # a list of device tensors, element by element
            message = (
                f"`torch.{trip.constructor}` reads each device tensor of the list to the host, one at a time, "
                "and the result is copied back: `torch.stack` them on the device instead"
            )
        ctx.report(node, message, context=Trip(applicability=_applicability(trip), trip=trip))


def _assigned(name: str, ctx: RuleContext) -> ast.expr | None:
    """The value `name` was last bound to in the current scope (`sums = [...]`), if known."""
    statement = ctx.reaching_assignment(name)
    return assigned_value(statement, name) if statement is not None else None
