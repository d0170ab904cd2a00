"""GPU301 device-to-host-in-loop."""

from __future__ import annotations

import ast

from gpulint.rule_api import Applicability, Example, Rule, RuleContext, Tier

from ._common import (
    ROUND_TRIP_METHODS,
    TO_HOST_METHODS,
    round_trip,
    runs_another_loop,
    small_loop,
    to_host,
    under_host_autocast,
)

_STATEMENT_LOOPS = (ast.For, ast.AsyncFor, ast.While)

_SETUP = """\
import torch
batches = [torch.from_numpy(rng.standard_normal(8)) for _ in range(N)]
"""


class DeviceToHostInLoop(Rule):
    """
    ## What it does
    Flags copies from the device to the host inside a loop (comprehensions included):
    `.item()`, `.cpu()`, `.numpy()`, `.tolist()`, `.to("cpu")` and `float(t)` on a torch
    tensor that lives on a device; `cupy.asnumpy(a)`, `a.get()`, `a.item()`, `a.tolist()` on
    a CuPy array; `.to_pandas()`, `.to_numpy()`, `.to_arrow()`, `.tolist()` and
    `.values_host` on a cuDF object.

    A tensor lives on a device when it was created or moved with a device that is not a
    literal `"cpu"` (`.to(device)`, `.cuda()`, `device=device`, including
    `device = "cuda" if torch.cuda.is_available() else "cpu"`), or computed from one, or
    returned by a model moved to one. A device is also `torch.accelerator.current_accelerator()`,
    `x.device`, `next(model.parameters()).device`, an integer index (`x.to(0)`, a rank read
    with `int(os.environ["LOCAL_RANK"])` or `dist.get_rank()`) or `f"cuda:{rank}"`. Libraries
    place values too: accelerate's `accelerator.prepare(model, loader)` (the model, and the
    batches the loader yields), transformers' `from_pretrained(..., device_map=...)` and
    `pipeline(..., device=...)`. `.to(x)` with an `x` of unknown type (a parameter
    that may hold a device or a dtype) says nothing about where the result lives. NumPy's `.item()` and `.tolist()` are not transfers,
    nor is cuDF's `.values` (a CuPy array, still on the device).

    Not flagged: copies after the loop; copies under an `if` in the loop (logging every N
    steps syncs only then); copies in a loop that runs another loop over other data per
    iteration, in its body or in a function of the file it calls (an epoch loop around a
    batch loop, or around `train_one_epoch()`, copies once per epoch, after the real work;
    a loop over chunks of this iteration's own tensor does not count). A small loop
    over the parts of one item (a literal tuple or list, a mapping's `.keys()`, `.values()`
    or `.items()`, a call naming its fields like `data("train_mask", "test_mask")`,
    `for k in batch: batch[k] = ...`) is not the loop that counts: the loop around it is,
    so such a loop in a batch loop neither hides the batch loop's copies nor turns an epoch
    loop's once-per-epoch copy into a per-iteration one; with no loop around it, its few
    copies are not flagged.

    ## Why is this bad?
    A GPU runs ahead of Python: kernels are queued and Python moves on. A copy to the host
    must wait until every queued kernel has finished, so one `.item()` per batch turns an
    asynchronous pipeline into a lock-step one, and the GPU idles while Python prepares the
    next step. Summing on the device and copying once after the loop keeps the queue full.

    ## Fix safety
    No automatic fix: where the value is needed on the host (a condition, a print) the copy
    is the point, and only the author knows whether it can move after the loop. The
    suggestion shows the usual rewrite: accumulate on the device (`total += loss.detach()`)
    and call `.item()` once after the loop.
    """

    code = "GPU301"
    name = "device-to-host-in-loop"
    tier = Tier.DEFAULT  # real code: 14 of 15 sampled findings useful
    message = "copy from the device to the host inside a loop: each one waits for the device; keep values on the device and copy once after the loop"
    nodes = (ast.Call, ast.Attribute)
    calls = ROUND_TRIP_METHODS | TO_HOST_METHODS
    fix = Applicability.DISPLAY
    #: A suggestion only: the copy may be the point.
    suggestion = (
        "keep the per-iteration values on the device (`total += loss.detach()`, or append the tensors to a "
        "list and `torch.cat`/`cupy.concatenate` them after the loop) and copy to the host once, after the loop "
        "(`total.item()`)"
    )

    flagged = (
        Example(
            source='''\
import torch

device = "cuda" if torch.cuda.is_available() else "cpu"


def count_positive(batches):
    hits = 0
    for batch in batches:
        scores = batch.to(device)
        hits += (scores > 0).sum().item()
    return hits
''',
            idiom='''\
import torch

device = "cuda" if torch.cuda.is_available() else "cpu"


def count_positive(batches):
    hits = torch.zeros((), dtype=torch.int64, device=device)
    for batch in batches:
        scores = batch.to(device)
        hits += (scores > 0).sum()
    return hits.item()
''',
            requires=("torch",),
            setup=_SETUP,
            call="count_positive(batches)",
        ),
        Example(
            source='''\
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def predictions(model, batches):
    model = model.to(device)
    labels = []
    for batch in batches:
        labels.append(model(batch.to(device)).argmax(dim=1).cpu())
    return torch.cat(labels).tolist()
''',
            idiom='''\
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def predictions(model, batches):
    model = model.to(device)
    labels = []
    for batch in batches:
        labels.append(model(batch.to(device)).argmax(dim=1))
    return torch.cat(labels).cpu().tolist()
''',
            requires=("torch",),
            setup=(
                "import torch\n"
                "torch.manual_seed(0)\n"
                "net = torch.nn.Linear(4, 3)\n"
                "batches = [torch.from_numpy(rng.standard_normal((5, 4))).float() for _ in range(N)]\n"
                "def predictions_or_empty(model, batches):\n"
                "    return predictions(model, batches) if batches else []\n"
            ),
            call="predictions_or_empty(net, batches)",
        ),
        Example(
            source='''\
import cupy as cp


def norms(rows):
    return [float(cp.linalg.norm(row)) for row in cp.asarray(rows)]
''',
        ),
        Example(
            source='''\
import cudf


def daily_totals(days):
    totals = []
    for day in days:
        frame = cudf.read_parquet(day)
        totals.append(frame["amount"].sum())
        frame.to_pandas().to_csv(day + ".csv")
    return totals
''',
        ),
        Example(
            source='''\
import torch


def mean_losses(model, loader):
    model = model.cuda()
    losses = [float(model(x.cuda()).mean()) for x in loader]
    return losses
''',
        ),
        Example(
            source='''\
import torch

device = torch.device("cuda")
model = torch.nn.Linear(4, 1).to(device)


def train(loader, optimizer):
    losses = []
    for batch in loader:
        for key in batch:
            batch[key] = batch[key].to(device)
        loss = model(batch["x"]).mean()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses
''',
        ),
        Example(
            # the inner loop encodes one batch in chunks: the step loop is still the one
            # that computes `loss`, so the copy runs once per step
            source='''\
import torch

device = torch.device("cuda")
encoder = torch.nn.Linear(8, 4).to(device)
head = torch.nn.Linear(4, 1).to(device)


def train(batches, optimizer):
    logged = []
    for batch in batches:
        pieces = []
        for start in range(0, len(batch), 4):
            pieces.append(encoder(batch[start:start + 4].to(device)))
        loss = head(torch.cat(pieces)).mean()
        loss.backward()
        optimizer.step()
        logged.append(loss.detach().item())
    return logged
''',
        ),
    )
    ok = (
        Example('''\
import torch

device = "cuda" if torch.cuda.is_available() else "cpu"


def train_on_cpu(model, optimizer, batches):
    losses = []
    for batch in batches:
        with torch.autocast("cpu", dtype=torch.bfloat16):  # a CPU-only training loop
            loss = model(batch.to(device)).mean()
            losses.append(loss.item())
    return losses
'''),
        Example('''\
import torch

for epoch in range(3):
    total = torch.zeros((), device="cuda")
    for step in range(10):
        total += torch.rand((), device="cuda")
    for name in ("total", "mean"):
        print(epoch, name, total.item())
'''),
        Example('''\
import torch

device = "cuda" if torch.cuda.is_available() else "cpu"


def count_positive(batches):
    hits = torch.zeros((), device=device)
    for batch in batches:
        hits += (batch.to(device) > 0).sum()
    return hits.item()
'''),
        Example('''\
import numpy as np

values = np.arange(10)
for i in range(3):
    print(values[i].item(), values.tolist())
'''),
        Example('''\
import torch

weights = torch.ones(3)
for step in range(10):
    print(weights.sum().item())
'''),
        Example('''\
import torch

device = torch.device("cuda")
model = torch.nn.Linear(4, 1).to(device)
for step, batch in enumerate(range(100)):
    loss = model(torch.randn(2, 4, device=device)).mean()
    if step % 10 == 0:
        print(step, loss.item())
'''),
        Example('''\
import torch

for epoch in range(3):
    total = torch.zeros((), device="cuda")
    for batch in range(5):
        total += torch.rand((), device="cuda")
    print(epoch, total.item())
'''),
        Example('''\
import cudf

frame = cudf.read_csv("events.csv")
for column in ["a", "b"]:
    frame[column] = frame[column].values * 2
print(frame.to_pandas())
'''),
    )

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        if not ctx.loops:
            return
        covered = self.__dict__.setdefault("covered", set())
        trip = round_trip(node, ctx.env)
        if trip is not None:  # GPU303 reports the whole round trip
            covered.update(id(n) for n in trip.chain)
            return
        if id(node) in covered:
            return
        what = to_host(node, ctx.env)
        if what is None or not _every_iteration(node, ctx) or under_host_autocast(ctx):
            return
        ctx.report(node, f"{what} copies from the device to the host inside a loop: each copy waits for the device; "
                         f"keep the values on the device and copy once after the loop")


def _every_iteration(node: ast.AST, ctx: RuleContext) -> bool:
    """The copy runs on every iteration of a hot loop: not under an `if` in the loop's body,
    and not in an outer loop around a batch loop (see `runs_another_loop`). A small loop
    over the parts of one item is no loop of its own: the loop around it is the one the
    copy runs in."""
    real = [loop for loop in ctx.loops if not small_loop(loop, ctx.statement, ctx.env)]
    if not real:
        return False  # a few copies, one per part of one item: no hot loop around them
    loop = real[-1]
    if not isinstance(loop, _STATEMENT_LOOPS):
        return True  # a comprehension's element or condition
    try:
        index = next(i for i, s in enumerate(ctx.statements) if s is loop)
    except StopIteration:  # the test of a `while` loop
        return True
    # the innermost statement holds the copy; an `if` further out runs it only sometimes
    if any(isinstance(s, (ast.If, ast.Try)) for s in ctx.statements[index + 1 : -1]):
        return False
    return not runs_another_loop(loop, ctx)
