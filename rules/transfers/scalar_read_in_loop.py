"""GPU307 scalar-read-in-loop: a Python number read from the device on every iteration."""

from __future__ import annotations

from gpulint.rule_api import DEVICE_TRIGGERS, Applicability, Example, Tier

from ._host_copies import BATCHES_SETUP, HostCopyInLoop, Idiom


class ScalarReadInLoop(HostCopyInLoop):
    """
    ## What it does
    Flags a Python number read from a value on the device inside a loop (comprehensions
    included): `t.item()`, `float(t)`, `int(t)`, `bool(t)`, `t.cpu().item()` on a torch
    tensor that lives on a device, `a.item()` or `float(a)` on a CuPy array. A number added
    to a running total (`total += loss.item()`) is GPU308 `running-total-on-host`; copies of
    whole tensors are GPU301 `device-to-host-in-loop`.

    ## Evidence
    A number added to a running total is GPU308's unless the loop reads that total on every
    iteration (`print(total / (step + 1))`): then it is a number read each step, flagged
    here. GPU301's docs say which values live on a device and which loops count: not one run
    under an `if` in the loop (logging every N steps), an epoch loop around a batch loop, a
    loop over one item's parts or over a model's parameters, a loop the file shows runs a
    few times (unless it steps back on every run inside another hot loop: a few training
    rounds per game are training steps), nor an iteration that draws the number or waits for
    the device anyway, nor a number the loop tests to decide whether to stop (`if
    token.item() == eos_id: break`, also through a name the next test reads: `kl =
    ....item()`, then `if kl > limit: break`), nor the action an environment steps with (`obs, reward,
    done, info = env.step(action)`).
    NumPy's `.item()` is not a copy. A TensorBoard writer (`torch.utils.tensorboard` or
    `tensorboardX`'s `SummaryWriter`, also held on `self`) given a device tensor to
    `add_scalar` reads it to the host itself: that is a number read too. So is formatting a
    device tensor or a CuPy array into an f-string (`print(f"loss {loss:.4f}")`): its
    `__format__` reads a one-element tensor's number, and copies any other to the host to
    print it.

    ## Why is this bad?
    A GPU runs ahead of Python: kernels are queued and Python moves on. A number read from
    the device must wait until every queued kernel has finished, so one `.item()` per batch
    (a loss kept for a progress bar, a metric stored in a dict) turns an asynchronous
    pipeline into a lock-step one, and the GPU idles while Python prepares the next step.

    A copy to the device without `non_blocking=True` (`x.to(device)`) waits for the device
    too, so the loop stops running in lock-step only once both are gone (GPU301's docs say
    how).

    ## Fix safety
    No automatic fix: where the number is needed on the host in the loop (a condition, an
    early stop) the read is the point, and only the author knows whether it can wait. The
    suggestion shows the usual rewrites: keep the tensors (`losses.append(loss.detach())`)
    and read them all at once after the loop (`torch.stack(losses).tolist()`), or read the
    number only every N steps.

    ## On a CPU
    The wait is a GPU's. PyTorch queues CUDA kernels on a stream and returns to Python at
    once; reading a number from a device tensor (`.item()`, `float(t)`) copies it to the
    host and synchronises: it waits until the queue has drained, and the GPU idles from then
    until Python queues the next kernel. A CPU has no such queue: PyTorch runs CPU
    operations eagerly, one after the other, so an `.item()` there finds its value computed
    and waits for nothing. The timings under "Measured speedup" are the CPU's: the same work
    arranged two ways, with nothing to wait for in either, so they say nothing about the
    wait this rule is about, whether they show the rewrite faster or slower. On a GPU,
    `torch.cuda.set_sync_debug_mode("warn")` warns at each synchronising call (an
    experimental mode: it does not catch every one), and
    `gpulint bench --rule GPU307 --backend torch-cuda` times the rule's example and its
    rewrite there.
    """

    code = "GPU307"
    libraries = DEVICE_TRIGGERS
    name = "scalar-read-in-loop"
    tier = Tier.PREVIEW
    tier_reason = (
        "Never-used code: 85 of 117 sampled findings useful (73%, below the bar), whose noise is demos on a "
        "few batches and reads in a step that waits anyway; the blind sets' labels: 98 of 116"
    )
    message = "number read from the device inside a loop: each read waits for the device; keep the tensors and read them once after the loop, or every N steps"
    idiom = Idiom.SCALAR
    advice = (
        "reads a number from the device inside a loop: each read waits for the device; "
        "keep the tensors and read them once after the loop, or every N steps"
    )
    split_from = "GPU301"  # a `# noqa: GPU301` from before the split still silences it
    fix = Applicability.DISPLAY
    #: A suggestion only: the number may be needed in the loop.
    suggestion = (
        "keep the tensors or arrays on the device (`losses.append(loss.detach())`) and read them at once after "
        "the loop (`torch.stack(losses).tolist()`, `cupy.stack(values).tolist()`), or read the number only every "
        "N steps (`if step % 100 == 0:`)"
    )

    flagged = (
        Example(
            source="""\
import torch

device = "cuda" if torch.cuda.is_available() else "cpu"


def batch_means(batches):
    means = []
    for batch in batches:
        means.append(batch.to(device).mean().item())
    return means
""",
            idiom="""\
import torch

device = "cuda" if torch.cuda.is_available() else "cpu"


def batch_means(batches):
    means = []
    for batch in batches:
        means.append(batch.to(device).mean())
    return torch.stack(means).tolist() if means else []
""",
            requires=("torch",),
            setup=BATCHES_SETUP,
            call="batch_means(batches)",
        ),
        Example(
            source="""\
import cupy as cp


def norms(rows):
    return [float(cp.linalg.norm(row)) for row in cp.asarray(rows)]
""",
        ),
        Example(
            source="""\
import torch


def mean_losses(model, loader):
    model = model.cuda()
    losses = [float(model(x.cuda()).mean()) for x in loader]
    return losses
""",
        ),
        Example(
            source="""\
import torch

device = torch.device("cuda")
model = torch.nn.Linear(4, 1).to(device)


def train(loader, optimizer, progress):
    for batch in loader:
        for key in batch:
            batch[key] = batch[key].to(device)
        loss = model(batch["x"]).mean()
        loss.backward()
        optimizer.step()
        progress.set_postfix(loss=loss.detach().cpu().item())
""",
        ),
        Example(
            # the inner loop encodes one batch in chunks: the step loop is still the one
            # that computes `loss`, so the read runs once per step
            source="""\
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
        logged.append({"loss": loss.detach().item()})
    return logged
""",
        ),
    )
    ok = (
        Example(
            """\
import torch

device = torch.device("cuda")
model = torch.nn.Embedding(100, 100).to(device)


def generate(ids, eos_id, steps=50):
    for _ in range(steps):
        token = model(ids)[:, -1].argmax(dim=-1, keepdim=True)
        if token.item() == eos_id:  # the loop needs it to know whether to go on
            break
        ids = torch.cat([ids, token], dim=1)
    return ids
""",
            reason="A token read to decide whether generation goes on: the loop needs it.",
        ),
        Example(
            """\
import torch

device = "cuda" if torch.cuda.is_available() else "cpu"


def train_on_cpu(model, optimizer, batches):
    losses = []
    for batch in batches:
        with torch.autocast("cpu", dtype=torch.bfloat16):  # a CPU-only training loop
            loss = model(batch.to(device)).mean()
            losses.append(loss.item())
    return losses
""",
            reason='A training loop that runs on the CPU (`torch.autocast("cpu")`).',
        ),
        Example(
            """\
import torch

for epoch in range(3):
    total = torch.zeros((), device="cuda")
    for step in range(10):
        total += torch.rand((), device="cuda")
    for name in ("total", "mean"):
        print(epoch, name, total.item())
""",
            reason="A read in a loop over a literal tuple, inside an epoch loop: once per epoch.",
        ),
        Example(
            """\
import numpy as np

values = np.arange(10)
for i in range(3):
    print(values[i].item(), values.tolist())
""",
            reason="`.item()` on a NumPy array.",
        ),
        Example(
            """\
import torch

weights = torch.ones(3)
for step in range(10):
    print(weights.sum().item())
""",
            reason="`.item()` on a host tensor.",
        ),
        Example(
            """\
import torch

device = torch.device("cuda")
model = torch.nn.Linear(4, 1).to(device)
for step, batch in enumerate(range(100)):
    loss = model(torch.randn(2, 4, device=device)).mean()
    if step % 10 == 0:
        print(step, loss.item())
""",
            reason="A read on every tenth step only.",
        ),
        Example(
            """\
import torch

for epoch in range(3):
    total = torch.zeros((), device="cuda")
    for batch in range(5):
        total += torch.rand((), device="cuda")
    print(epoch, total.item())
""",
            reason="A read once per epoch, after the batch loop.",
        ),
        Example(
            """\
import torch

device = torch.device("cuda")
model = torch.nn.Linear(4, 1).to(device)
total = 0.0
for batch in range(10_000):
    loss = model(torch.randn(2, 4, device=device)).mean()
    total += loss.item()  # added to a running total: GPU308
""",
            reason="A read added to a running total: GPU308's business.",
        ),
    )
