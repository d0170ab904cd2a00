"""GPU301 device-to-host-in-loop: a tensor, array or frame copied to the host in a loop."""

from __future__ import annotations

from gpulint.rule_api import DEVICE_TRIGGERS, Applicability, Example, Tier

from ._host_copies import HostCopyInLoop, Idiom


class DeviceToHostInLoop(HostCopyInLoop):
    """
    ## What it does
    Flags copies of a tensor, an array or a frame from the device to the host inside a loop
    (comprehensions included): `.cpu()`, `.numpy()`, `.tolist()` and `.to("cpu")` on a torch
    tensor that lives on a device; `cupy.asnumpy(a)`, `a.get()`, `a.tolist()` on a CuPy
    array; `.to_pandas()`, `.to_numpy()`, `.to_arrow()`, `.tolist()` and `.values_host` on a
    cuDF object. A number read is GPU307 `scalar-read-in-loop`, a copy added to a running
    total GPU308 `running-total-on-host`.

    ## Evidence
    Two idioms of the same copy have rules of their own, with their own advice: a Python
    number read from the device (`.item()`, `float(t)`, `t.cpu().item()`) is GPU307
    `scalar-read-in-loop`, and a copied value added to a running total
    (`total += loss.item()`, `correct += (pred == y).sum().cpu().numpy()`) is GPU308
    `running-total-on-host`. The three share what follows: which values live on a device,
    and which loops count.

    A tensor lives on a device when it was created or moved with a device that is not a
    literal `"cpu"` (`.to(device)`, `.cuda()`, `device=device`, including
    `device = "cuda" if torch.cuda.is_available() else "cpu"`), or computed from one, or
    returned by a model moved to one. A device is also
    `torch.accelerator.current_accelerator()`, `x.device`,
    `next(model.parameters()).device`, an integer index (`x.to(0)`, a rank read with
    `int(os.environ["LOCAL_RANK"])` or `dist.get_rank()`) or `f"cuda:{rank}"`. Libraries
    place values too: accelerate's `accelerator.prepare(model, loader)` (the model, and the
    batches the loader yields), Lightning Fabric's `setup`, `setup_dataloaders` and
    `to_device`, torchtext's legacy iterators given `device=` (`BucketIterator`, its
    `.splits`: every field of their batches), transformers' `from_pretrained(..., device_map=...)` and
    `pipeline(..., device=...)`. `.to(x)` with an `x` the file does not show (a parameter,
    `self.device`, `args.device`) is taken for a device: code written for the device it is
    handed is device code, the host its fallback; a name bound to a dtype, a parameter whose
    default is one and a `torch.dtype` annotation are dtypes. A model or loss handed in (a
    parameter, an attribute of `self` no method defines) computes where its inputs are; a
    device value copied to the host in one branch (`if on_gpu: p = p.cpu()`) is on the host
    after it. A conversion to a legacy host class (`t.type(torch.FloatTensor)`) is a copy
    too. NumPy's `.item()` and `.tolist()` are not transfers, nor is cuDF's `.values`
    (a CuPy array, still on the device).

    A copy in a module-level function of the file counts as one in the loop that calls it
    on every iteration (`accuracy(scores, y)` in the batch loop, with the `.item()` inside
    `accuracy`), when it runs on every call (no `if`, `try` or loop around it there) and the
    call runs on every iteration of a loop that counts (below) and that the code does not
    show runs at most 16 times (`for i in range(6)`). Not when the function returns what it read
    (`return loss.item()`, or a name bound to such a read): its caller needs the value on
    every call, so every call waits anyway. A method its class calls on the instance in
    such a loop (`self.compute_td_loss(batch)` in the agent's `train`) counts the same way;
    a module's `forward` is not followed to the loop that runs the module (its copies are
    mostly lengths for `pack_padded_sequence` and other host-side steps the model needs).
    Where no loop of the file calls the function, a file of the project importing the module
    may, in a loop that its literals do not show runs at most 16 times (`class_weight(y,
    logits)` in `train.py`'s batch loop, or a method called there on an instance held in a
    name: `meter.add(loss)`; `docs/evidence.md`): the function's body is then one iteration,
    and a copy drawn there counts as drawn in the loop.

    Left alone: copies after the loop; copies under an `if` in the loop (logging every N
    steps syncs only then), but not under `if accelerator.sync_gradients:`, which holds on
    every optimizer step, nor under a test that holds on every iteration after a warm-up
    (`if len(replay_buffer) > batch_size:`, a buffer the branch does not empty and the loop
    does not bind again, filled by the loop or by a method of the class the loop calls on
    the instance (`self.step(action)` running `self.memory.store(...)`); `if frame_idx >
    learning_starts:`, a counter the loop counts with: its `range` or `enumerate`
    variable, `for self.total_step in range(n)` too, or a name it adds one to), nor under a test
    of whether a device is there
    (`if torch.cuda.is_available():`, on its device side: the GPU run takes it on every
    iteration), nor under a flag the loop never changes that switches the device
    on (`if use_cuda:`, where the file moves values with `.cuda()`) or has a copy on both
    sides (`if use_amp: ... else: ...`), nor under a run's mode compared with string
    literals that no loop around the copy changes (`if args.grad_sample_mode == "no_op":
    ... else: ...cpu().numpy()`: each side is a mode the program runs in, not an opt-in);
    copies in a loop that runs another loop over other
    data per iteration, in its body or in a function of the file it calls (an epoch loop
    around a batch loop, or around `train_one_epoch()`, copies once per epoch, after the
    real work; a loop over chunks of this iteration's own tensor does not count, nor does
    one that brings in no data: an optimizer's `param_groups`, functions it calls
    (`for met in metric_fns`), keys of dicts, `range(n)` indexing this batch; and no inner
    loop makes an outer one that takes a training step of its own on every iteration: a GAN's
    generator step after `for _ in range(n_critic):` critic steps, or an optimizer's step
    (`optim.step()` and `optim.zero_grad()`) after gradients accumulated over `for _ in
    range(accumulate):`). A small
    loop over the parts of one item (a literal tuple or list, a mapping's `.keys()`,
    `.values()` or `.items()`, a call naming its fields like `data("train_mask",
    "test_mask")`, `for k in batch: batch[k] = ...`) is not the loop that counts: the loop around it is, so
    such a loop in a batch loop neither hides the batch loop's copies nor turns an epoch
    loop's once-per-epoch copy into a per-iteration one; with no loop around it, its few
    copies are not flagged. The same holds for a loop over one model's own tensors
    (`model.named_parameters()`, `.parameters()`, `.buffers()`: a weight or gradient
    histogram per layer; two modules' side by side, `zip(net.parameters(),
    target.parameters())`: a target network's soft update) and for a loop the file shows runs a few times (at most 100
    iterations: `for j in range(10, 20)`, a literal list; or a loader of at most 16 batches
    over a dataset whose size its library documents, with a `batch_size` the file shows (a
    literal, a name or parameter holding one, a script option's literal default): PyTorch
    Geometric's two-graph PPI test split, MNIST's test set in batches of 1,000, or a
    GraphSAINT sampler of `num_steps=5`, followed into a function through the arguments
    every call of it passes; or a loop its body breaks off after at most 16 iterations by a
    counter, `if i == 2: break` over `enumerate`'s index or a name it adds one to, or by a
    `break` of its own that ends the first run: a preview of a few batches; see
    `gpulint.size_evidence` and `gpulint.early_exit`). But a loop of a few runs that steps
    back on every run (`loss.backward()`) inside another hot loop is the step loop: a few
    training rounds per game are training steps.

    Left alone too where the copy is the point or costs nothing more:
    - the copied value is drawn or logged as an image in the same iteration: it is an
      argument of a matplotlib or seaborn call, of a method of an `Axes` or `Figure` they
      made (`fig, axes = plt.subplots()`, then `axes[i].imshow(x.cpu())`), of
      `PIL.Image.fromarray`, `wandb.Image`/`wandb.Histogram`, a TensorBoard writer's
      `add_image`/`add_histogram`/`add_figure`, or `d2l.show_images`; or the statement
      stores it in names (`forecast = out.cpu().numpy()`, `losses.append(loss.item())`) that
      such a call reads later in every run of the iteration. Accumulating on the device
      would not spare that work. A copy stored in a name nothing drawn reads (a running
      total next to a plot of something else), or drawn only under an `if` or after the
      loop, is flagged; decoding text (`tokenizer.batch_decode(ids.cpu())`) is not drawing:
      the ids can be kept on the device and decoded once;
    - the copied value is the action an environment steps with, in the same iteration
      (`obs, reward, done, info = env.step(action)`: a `.step` given one argument whose four
      or five results are unpacked, the Gym API), also through names computed from it
      (`action = np.clip(action, -1, 1)`): the environment runs on the host;
    - the iteration waits for the device anyway, on every run: it calls a model's
      `.generate(...)` (transformers' generation tests each new token on the host) or
      `torch.cuda.synchronize()` outside any `if`. A time-series head's `generate`
      (`InformerForPrediction`) samples a fixed number of steps without such a test and does
      not count;
    - the loop needs the value to know whether to go on: the copy is read by the test of an
      `if` whose body leaves the loop (`if token.item() in stop_ids: break`, a `return` or a
      `raise`), as in token-by-token generation.

    ## Why is this bad?
    A GPU runs ahead of Python: kernels are queued and Python moves on. A copy to the host
    must wait until every queued kernel has finished, so one `.cpu()` per batch turns an
    asynchronous pipeline into a lock-step one, and the GPU idles while Python prepares the
    next step. Collecting the tensors on the device and copying them once after the loop
    keeps the queue full.

    A copy to the device without `non_blocking=True` (`x.to(device)`) waits for the device
    as well: torch synchronises the stream after such a copy. In a loop that makes one per
    batch, removing the copy to the host only lets the host fetch the next batch while the
    device works; the loop stops running in lock-step once batches come from pinned memory
    (`DataLoader(..., pin_memory=True)`, see GPU305) and are copied with
    `non_blocking=True`.

    ## Fix safety
    No automatic fix: where the values are needed on the host in the loop (a file written
    per item, a metric library that takes NumPy arrays) the copy is the point, and only the
    author knows whether it can move after the loop. The suggestion shows the usual rewrite:
    append the tensors themselves and `torch.cat` them, then copy once after the loop.

    ## On a CPU
    The wait is a GPU's. PyTorch queues CUDA kernels on a stream and returns to Python at
    once; a copy of a device tensor to the host (`.cpu()`, `.numpy()`, `.tolist()`)
    synchronises: it waits until the queue has drained, and the GPU idles from then until
    Python queues the next kernel. A CPU has no such queue: PyTorch runs CPU operations
    eagerly, one after the other, so a `.cpu()` there finds its value computed and waits for
    nothing. The timings under "Measured speedup" are the CPU's: the same work arranged two
    ways, with nothing to wait for in either, so they say nothing about the wait this rule
    is about, whether they show the rewrite faster or slower. On a GPU,
    `torch.cuda.set_sync_debug_mode("warn")` warns at each synchronising call (an
    experimental mode: it does not catch every one), and
    `gpulint bench --rule GPU301 --backend torch-cuda` times the rule's example and its
    rewrite there.
    """

    code = "GPU301"
    libraries = DEVICE_TRIGGERS
    name = "device-to-host-in-loop"
    tier = Tier.PREVIEW
    tier_reason = (
        "Never-used code: 10 of 25 sampled findings useful (40%, below the bar: evaluation loops of a few "
        "batches); the blind sets' labels: 49 of 89"
    )
    message = "tensor copied from the device to the host inside a loop: each copy waits for the device; keep the tensors on the device and copy once after the loop"
    idiom = Idiom.COPY
    advice = (
        "copies from the device to the host inside a loop: each copy waits for the device; "
        "keep the tensors on the device and copy once after the loop"
    )
    fix = Applicability.DISPLAY
    #: A suggestion only: the copy may be the point.
    suggestion = (
        "keep the per-iteration tensors on the device (append them to a list and `torch.cat`/`cupy.concatenate` "
        "them after the loop) and copy to the host once, after the loop (`torch.cat(outputs).cpu()`)"
    )

    flagged = (
        Example(
            source="""\
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def predictions(model, batches):
    model = model.to(device)
    labels = []
    for batch in batches:
        labels.append(model(batch.to(device)).argmax(dim=1).cpu())
    return torch.cat(labels).tolist()
""",
            idiom="""\
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def predictions(model, batches):
    model = model.to(device)
    labels = []
    for batch in batches:
        labels.append(model(batch.to(device)).argmax(dim=1))
    return torch.cat(labels).cpu().tolist()
""",
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
            source="""\
import cudf


def daily_totals(days):
    totals = []
    for day in days:
        frame = cudf.read_parquet(day)
        totals.append(frame["amount"].sum())
        frame.to_pandas().to_csv(day + ".csv")
    return totals
""",
        ),
        Example(
            source="""\
import cupy as cp


def host_rows(rows):
    return [cp.asnumpy(row * 2) for row in cp.asarray(rows)]
""",
        ),
        Example(
            # the inner loop encodes one batch in chunks: the batch loop is still the one
            # that computes `features`, so the copy runs once per batch
            source="""\
import torch

device = torch.device("cuda")
encoder = torch.nn.Linear(8, 4).to(device)


def embed(batches):
    stored = []
    for batch in batches:
        pieces = []
        for start in range(0, len(batch), 4):
            pieces.append(encoder(batch[start:start + 4].to(device)))
        features = torch.cat(pieces)
        stored.append(features.detach().cpu().numpy())
    return stored
""",
        ),
    )
    ok = (
        Example(
            """\
import matplotlib.pyplot as plt
import torch

device = torch.device("cuda")
model = torch.nn.Linear(8, 8).to(device)


def plot_forecasts(batches):
    fig, axes = plt.subplots(1, len(batches))
    for ax, batch in zip(axes.flat, batches):
        forecast = model(batch.to(device)).cpu().numpy()  # drawn right away: the copy is the point
        ax.plot(forecast.mean(axis=0))
    return fig
""",
            reason="A copy drawn right away (a plot per batch): the copy is the point.",
        ),
        Example(
            """\
import torch
from transformers import AutoModelForSeq2SeqLM

device = torch.device("cuda")
model = AutoModelForSeq2SeqLM.from_pretrained("t5-small").to(device)


def summaries(loader, tokenizer):
    texts = []
    for batch in loader:
        generated = model.generate(batch["input_ids"].to(device))  # waits for the device per token
        texts.extend(tokenizer.batch_decode(generated.cpu().numpy(), skip_special_tokens=True))
    return texts
""",
            reason="Generated tokens decoded per batch: generation already waits for the device.",
        ),
        Example(
            """\
import torch

model = torch.nn.Linear(8, 8).to("cuda")


def weight_histograms(net):
    weights = {}
    for name, param in net.named_parameters():  # one model's tensors, once per call
        weights[name] = param.detach().view(-1).cpu().numpy()
    return weights


histograms = weight_histograms(model)
""",
            reason="A loop over one model's parameters, once per call.",
        ),
        Example(
            """\
import torch

device = torch.device("cuda")
model = torch.nn.Linear(4, 1).to(device)
snapshots = []
for step in range(1000):
    out = model(torch.randn(2, 4, device=device))
    if step % 100 == 0:
        snapshots.append(out.detach().cpu())
""",
            reason="A copy on every hundredth step only.",
        ),
        Example(
            """\
import torch

model = torch.nn.Linear(4, 4).to("cuda")


def epoch_outputs(loader, epochs):
    for epoch in range(epochs):
        outputs = []
        for batch in loader:  # the batch loop: the copy below runs once per epoch
            outputs.append(model(batch.to("cuda")))
        yield torch.cat(outputs).cpu()
""",
            reason="A copy after the batch loop, once per epoch.",
        ),
        Example(
            """\
import torch

device = "cuda" if torch.cuda.is_available() else "cpu"


def predictions(model, batches):
    labels = [model(batch.to(device)).argmax(dim=1) for batch in batches]
    return torch.cat(labels).cpu().tolist()
""",
            reason="Labels kept on the device in the comprehension and copied once after it.",
        ),
        Example(
            """\
import torch

device = torch.device("cuda")
model = torch.nn.Linear(4, 1).to(device)
losses = []
for batch in range(10_000):
    loss = model(torch.randn(2, 4, device=device)).mean()
    losses.append(loss.item())  # a number read from the device: GPU307
""",
            reason="A number read with `.item()`: GPU307's business.",
        ),
        Example(
            """\
import cudf

frame = cudf.read_csv("events.csv")
for column in ["a", "b"]:
    frame[column] = frame[column].values * 2
print(frame.to_pandas())
""",
            reason="A cuDF column's `.values` stays on the device (a CuPy array).",
        ),
    )
