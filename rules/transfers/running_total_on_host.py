"""GPU308 running-total-on-host: a running total kept on the host, fed from the device every iteration."""

from __future__ import annotations

import ast

from gpulint.rule_api import DEVICE_TRIGGERS, Applicability, Example, RuleContext, Tier

from ._common import trains
from ._host_copies import BATCHES_SETUP, HostCopyInLoop, Idiom


class RunningTotalOnHost(HostCopyInLoop):
    """
    ## What it does
    Flags a running total kept on the host and fed from the device on every iteration of a
    loop: `total += loss.item()`, `correct += (pred == y).sum().item()`,
    `total = total + float(loss)`, `seen += mask.sum().cpu().numpy()`, on a torch tensor
    that lives on a device or a CuPy array. Outside preview mode, only in a loop that trains
    (its iteration runs a backward pass).

    ## Evidence
    Arithmetic on the copied value (`total += loss.item() * len(batch)`) is part of the sum,
    and so are `math`'s functions, `round` and `abs` of it (`total += round(loss.item(), 4)`;
    text formatted or joined, `log += "loss %.4f" % loss.item()`, is no sum)
    and comparisons and reductions of a copied tensor (`correct += (pred.cpu() ==
    y.cpu()).sum()`): the copy is made for the total, reported once per statement.
    A number read into a name first (`loss_t = loss.item()`, also through such arithmetic:
    `psnr = 10 * log10(1 / mse.item())`) feeds a total when every use
    of the name in the loop adds it to one, in the same block after the read
    (`running += (loss_t - running) / (step + 1)`, a running mean); the finding is then on
    the total, where the rewrite goes. A name also shown, compared or passed on is a number
    read each step (GPU307).
    A total the loop itself reads on every iteration (`print(total / (step + 1))`,
    `if total > limit: break`) is a number read each step, GPU307 `scalar-read-in-loop`, as
    are other numbers read in a loop. Values extended into a list
    (`preds += out.cpu().tolist()`) and copies of whole tensors are GPU301
    `device-to-host-in-loop`, whose docs say which values live on a device and which loops
    count: not one run under an `if` in the loop, an epoch loop around a batch loop, a loop
    over one item's parts or over a model's parameters, a loop the file shows runs a few
    times (unless it steps back on every run inside another hot loop: `for _ in
    range(TRAIN_ROUNDS)` in a loop over games is the step loop), nor an iteration that draws
    the value or waits for the device anyway.

    Outside preview mode, only in a loop that trains: one whose iteration runs a backward
    pass (`loss.backward()`, `accelerator.backward(loss)`, under an `if` too, or in a
    function of the file it calls, `train_step(batch)`). An evaluation loop's total
    (`correct += (pred == y).sum().item()` over a test loader) is reported in preview mode
    only: on real code half of those findings were over test sets of a few batches, which
    the code does not show.

    ## Why is this bad?
    A GPU runs ahead of Python: kernels are queued and Python moves on. Each `.item()` must
    wait until every queued kernel has finished, so a total summed on the host turns an
    asynchronous pipeline into a lock-step one, once per batch, for a number nobody reads
    until the loop ends. A total kept on the device (`total += loss.detach()`) costs one
    small kernel per batch and one read after the loop.

    A copy to the device without `non_blocking=True` (`x.to(device)`) waits for the device
    too, so the loop stops running in lock-step only once both are gone (GPU301's docs say
    how).

    ## Fix safety
    No automatic fix: the total becomes a tensor, and code that reads it in the loop or
    passes it to a library that wants a Python number changes meaning. The suggestion
    shows the usual rewrite: add the tensor itself (`total += loss.detach()`, with
    `total = torch.zeros((), device=device)` before the loop) and read it once after the
    loop (`total.item()`).

    ## On a CPU
    The wait is a GPU's. PyTorch queues CUDA kernels on a stream and returns to Python at
    once; each `.item()` that feeds the total copies a number to the host and synchronises:
    it waits until the queue has drained, and the GPU idles from then until Python queues
    the next kernel. A CPU has no such queue: PyTorch runs CPU operations eagerly, one after
    the other, so an `.item()` there finds its value computed and waits for nothing. The
    timings under "Measured speedup" are the CPU's: the same work arranged two ways, with
    nothing to wait for in either, so they say nothing about the wait this rule is about,
    whether they show the rewrite faster or slower. On a GPU,
    `torch.cuda.set_sync_debug_mode("warn")` warns at each synchronising call (an
    experimental mode: it does not catch every one), and
    `gpulint bench --rule GPU308 --backend torch-cuda` times the rule's example and its
    rewrite there.
    """

    code = "GPU308"
    libraries = DEVICE_TRIGGERS
    name = "running-total-on-host"
    tier = Tier.PREVIEW
    tier_reason = (
        "Never-used code: 66 of 100 sampled findings useful (66%, below the bar), whose noise is training "
        "runs of a few batches per epoch; the blind sets' labels: 101 of 114"
    )
    preview_behaviour = "reports totals in loops that only evaluate (no backward pass in the iteration)"
    message = "running total fed from the device inside a loop: each step waits for the device; keep the total on the device and read it once after the loop"
    idiom = Idiom.TOTAL
    advice = (
        "feeds a running total on the host inside a loop: each step waits for the device; "
        "keep the total on the device (`total += loss.detach()`, `total += a.sum()`) and read it once after the loop"
    )
    split_from = "GPU301"  # a `# noqa: GPU301` from before the split still silences it
    fix = Applicability.DISPLAY

    #: A suggestion only: the total becomes a tensor.
    suggestion = (
        "keep the total on the device (`total = torch.zeros((), device=device)` before the loop and "
        "`total += loss.detach()` in it; with CuPy, `total = cupy.zeros(())` and `total += a.sum()`) and read it "
        "once after the loop (`total.item()`)"
    )

    flagged = (
        Example(
            source="""\
import torch

device = "cuda" if torch.cuda.is_available() else "cpu"
torch.manual_seed(0)
model = torch.nn.Linear(8, 1, dtype=torch.float64).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)


def train(batches):
    total = 0.0
    for batch in batches:
        loss = model(batch.to(device)).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += loss.item()
    return total
""",
            idiom="""\
import torch

device = "cuda" if torch.cuda.is_available() else "cpu"
torch.manual_seed(0)
model = torch.nn.Linear(8, 1, dtype=torch.float64).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)


def train(batches):
    total = torch.zeros((), dtype=torch.float64, device=device)
    for batch in batches:
        loss = model(batch.to(device)).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += loss.detach()
    return total.item()
""",
            requires=("torch",),
            setup=BATCHES_SETUP,
            call="train(batches)",
        ),
        Example(
            # the plot shows the batch sizes, not the total: the copy is not what is drawn
            source="""\
import matplotlib.pyplot as plt
import torch

device = torch.device("cuda")
model = torch.nn.Linear(8, 1).to(device)


def train(batches, optimizer):
    total = 0.0
    for step, batch in enumerate(batches):
        loss = model(batch.to(device)).pow(2).mean()
        loss.backward()
        optimizer.step()
        total += loss.item() * len(batch)
        plt.scatter(step, len(batch))
    return total
""",
        ),
        Example(
            source="""\
import torch

model = torch.nn.Linear(4, 3).cuda()


def train_step(x, y, optimizer):
    loss = torch.nn.functional.cross_entropy(model(x.cuda()), y.cuda())
    loss.backward()
    optimizer.step()
    return loss


def train(loader, optimizer):
    total = 0.0
    for x, y in loader:
        total = total + float(train_step(x, y, optimizer))
    return total / len(loader)
""",
        ),
        Example(
            source="""\
import torch

device = torch.device("cuda")
model = torch.nn.Linear(4, 1).to(device)


def train(batches, optimizer):
    running_loss = 0.0
    for step, batch in enumerate(batches):
        loss = model(batch.to(device)).pow(2).mean()
        loss.backward()
        optimizer.step()
        loss_t = loss.item()
        running_loss += (loss_t - running_loss) / (step + 1)
    return running_loss
""",
        ),
    )
    ok = (
        Example(
            """\
import torch

device = torch.device("cuda")
model = torch.nn.Linear(4, 1).to(device)


def train(batches, optimizer):
    running_loss = 0.0
    for step, batch in enumerate(batches):
        loss = model(batch.to(device)).pow(2).mean()
        loss.backward()
        optimizer.step()
        loss_t = loss.item()
        running_loss += loss_t
        print(f"step {step}: {loss_t:.3f}")
    return running_loss
""",
            reason="The number read is also printed every step: a number read each step, GPU307's.",
        ),
        Example(
            """\
import torch

model = torch.nn.Linear(4, 3).cuda()


def accuracy(loader):  # evaluates only: reported in preview mode
    correct = seen = 0
    for x, y in loader:
        pred = model(x.cuda()).argmax(dim=1)
        correct = correct + float((pred == y.cuda()).sum())
        seen += len(y)
    return correct / seen
""",
            reason="An evaluation loop (no backward pass): reported in preview mode only.",
        ),
        Example(
            """\
import torch

device = "cuda" if torch.cuda.is_available() else "cpu"


def count_positive(batches):
    hits = torch.zeros((), device=device)
    for batch in batches:
        hits += (batch.to(device) > 0).sum()
    return hits.item()
""",
            reason="A total kept on the device and read once after the loop.",
        ),
        Example(
            """\
import torch

device = torch.device("cuda")
model = torch.nn.Linear(4, 1).to(device)
outputs = []
for batch in range(10_000):
    out = model(torch.randn(2, 4, device=device))
    outputs += [out.detach().cpu()]  # collected in a list, not summed: GPU301
""",
            reason="Copies collected in a list, not summed: GPU301's business.",
        ),
        Example(
            """\
import torch

device = torch.device("cuda")
model = torch.nn.Linear(4, 1).to(device)
total = 0.0
for step in range(1000):
    loss = model(torch.randn(2, 4, device=device)).mean()
    if step % 100 == 0:
        total += loss.item()
""",
            reason="A total fed under an `if` (every hundredth step).",
        ),
        Example(
            """\
import numpy as np

values = np.arange(10.0)
total = 0.0
for i in range(len(values)):
    total += values[i].item()
""",
            reason="A total of NumPy values, not device tensors.",
        ),
    )

    def reports_in(self, loop: ast.AST, ctx: RuleContext) -> bool:
        return self.preview_mode or trains(loop, ctx)
