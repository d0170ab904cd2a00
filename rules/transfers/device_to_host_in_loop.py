"""GPU301 device-to-host-in-loop."""

from __future__ import annotations

import ast

from gpulint.astutil import walk_local
from gpulint.rule_api import Applicability, Example, Rule, RuleContext, Tier
from gpulint.size_evidence import few_iterations

from ._common import (
    ROUND_TRIP_METHODS,
    TO_HOST_METHODS,
    base_name,
    round_trip,
    runs_another_loop,
    small_loop,
    to_host,
    unconditional_expressions,
    under_host_autocast,
    waits_anyway,
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
    copies are not flagged. The same holds for a loop over one model's own tensors
    (`model.named_parameters()`, `.parameters()`, `.buffers()`: a weight or gradient
    histogram per layer) and for a loop the file shows runs a few times (at most 100
    iterations: `for j in range(10, 20)`, a literal list; or a loader of at most 16 batches
    over a dataset whose size its library documents, with a literal `batch_size`: PyTorch
    Geometric's two-graph PPI test split, MNIST's test set in batches of 1,000, or a
    GraphSAINT sampler of `num_steps=5`, followed into a function through the arguments
    every call of it passes; or a loop its body
    breaks off after at most 16 iterations by a counter, `if i == 2: break` over
    `enumerate`'s index or a name it adds one to: a preview of a few batches; see
    `gpulint.size_evidence` and `gpulint.early_exit`).

    Not flagged either where the copy is the point or costs nothing more:
    - the copied value is drawn or logged as an image in the same iteration: it is an
      argument of a matplotlib or seaborn call, of a method of an `Axes` or `Figure` they
      made (`fig, axes = plt.subplots()`, then `axes[i].imshow(x.cpu())`), of
      `PIL.Image.fromarray`, `wandb.Image`/`wandb.Histogram`, a TensorBoard writer's
      `add_image`/`add_histogram`/`add_figure`, or `d2l.show_images`; or the statement stores
      it in names (`forecast = out.cpu().numpy()`, `losses.append(loss.item())`) that such a
      call reads later in every run of the iteration. Accumulating on the device would not
      spare that work. A copy stored in a name nothing drawn reads (a running total next to
      a plot of something else), or drawn only under an `if` or after the loop, is flagged;
      decoding text (`tokenizer.batch_decode(ids.cpu())`) is not drawing: the ids can be
      kept on the device and decoded once;
    - the iteration waits for the device anyway, on every run: it calls a model's
      `.generate(...)` (transformers' generation tests each new token on the host) or
      `torch.cuda.synchronize()` outside any `if`. A time-series head's `generate`
      (`InformerForPrediction`) samples a fixed number of steps without such a test and
      does not count.

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
    tier = Tier.DEFAULT  # real code: 124 of the 139 sampled findings still reported are useful (89%)
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
        Example(
            # the plot shows the batch sizes, not the total: the copy is not what is drawn
            source='''\
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
        total += loss.item()
        plt.scatter(step, len(batch))
    return total
''',
        ),
    )
    ok = (
        Example('''\
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
'''),
        Example('''\
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
'''),
        Example('''\
import torch

model = torch.nn.Linear(8, 8).to("cuda")


def weight_histograms(net):
    weights = {}
    for name, param in net.named_parameters():  # one model's tensors, once per call
        weights[name] = param.detach().view(-1).cpu().numpy()
    return weights


histograms = weight_histograms(model)
'''),
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
        if what is None or under_host_autocast(ctx):
            return
        loop = _counting_loop(node, ctx)
        if loop is None or waits_anyway(loop, ctx) or _feeds_display(node, loop, ctx):
            return
        ctx.report(node, f"{what} copies from the device to the host inside a loop: each copy waits for the device; "
                         f"keep the values on the device and copy once after the loop")


def _counting_loop(node: ast.AST, ctx: RuleContext) -> ast.AST | None:
    """The hot loop the copy runs on every iteration of, or None: not under an `if` in the
    loop's body, and not in an outer loop around a batch loop (see `runs_another_loop`).
    A small loop over the parts of one item, or a loop known to run a few times
    (`few_iterations`: four test images to plot), is no loop of its own: the loop around
    it is the one the copy runs in."""
    real = [loop for loop in ctx.loops
            if not small_loop(loop, ctx.statement, ctx.env) and not few_iterations(loop, ctx)]
    if not real:
        return None  # a few copies, one per part of one item: no hot loop around them
    loop = real[-1]
    if not isinstance(loop, _STATEMENT_LOOPS):
        return loop  # a comprehension's element or condition
    try:
        index = next(i for i, s in enumerate(ctx.statements) if s is loop)
    except StopIteration:  # the test of a `while` loop
        return loop
    # the innermost statement holds the copy; an `if` further out runs it only sometimes
    if any(isinstance(s, (ast.If, ast.Try)) for s in ctx.statements[index + 1 : -1]):
        return None
    return None if runs_another_loop(loop, ctx) else loop


# -- the copy is the point: it feeds a plot or an image logged in the same iteration ---------

#: Libraries whose every call draws (`plt.plot`, `sns.histplot`).
_PLOTTING = ("matplotlib.", "seaborn.")
#: Calls that make an image, a histogram or a figure from host values, to show or log.
_DISPLAY_CALLS = frozenset({
    "PIL.Image.fromarray", "wandb.Image", "wandb.Histogram", "wandb.Video", "wandb.Audio",
    "torchvision.utils.save_image", "IPython.display.display",
})
#: Teaching libraries' plotting helpers (`d2l.show_images`), by the last part of their name.
_DISPLAY_HELPERS = ("d2l.", frozenset({"show_images", "show_heatmaps", "show_bboxes", "plot", "show_trace_2d"}))
#: TensorBoard's `SummaryWriter` methods that log an image, a histogram or a figure.
_WRITER_METHODS = frozenset({
    "add_image", "add_images", "add_image_with_boxes", "add_histogram", "add_figure", "add_video", "add_audio",
    "add_mesh", "add_embedding", "add_pr_curve",
})
#: Methods that store their argument in their receiver.
_STORING_METHODS = frozenset({"append", "extend", "insert", "add", "update", "setdefault"})
#: How many assignments a plotting object is followed through (`ax = axes[i]` after `fig, axes = plt.subplots()`).
_DEPTH = 4


def _feeds_display(node: ast.AST, loop: ast.AST, ctx: RuleContext) -> bool:
    """The copied value is drawn or logged as an image in the same iteration: the copy is
    an argument of a plotting call (matplotlib, seaborn, a matplotlib `Axes` or `Figure`
    made by one: `ax.imshow(x.cpu())`), of an image or histogram maker (`PIL.Image.fromarray`,
    `wandb.Image`, a TensorBoard writer's `add_image`/`add_histogram`), or of a teaching
    library's plotting helper (`d2l.show_images`); or the statement stores it in names
    (`forecast = out.cpu().numpy()`, `losses.append(loss.item())`) that such a call reads
    later in every run of the iteration. A copy stored in a name nothing drawn reads (a
    running total next to a plot of something else) is not the point of the plot."""
    statement = ctx.statement
    current: ast.AST | None = node
    while current is not None and current is not statement:
        parent = ctx.parent(current)
        if isinstance(parent, ast.Call) and current is not parent.func and _displays(parent, ctx):
            return True
        current = parent
    if statement is None or not isinstance(loop, _STATEMENT_LOOPS):
        return False
    flowing = _stored_in(node, statement, ctx)
    if not flowing:
        return False
    end = (statement.end_lineno, statement.end_col_offset)
    for expression in unconditional_expressions(loop):  # type: ignore[arg-type]
        if (expression.lineno, expression.col_offset) < end:  # type: ignore[attr-defined]
            continue
        for sub in walk_local([expression]):
            if isinstance(sub, ast.Call) and _displays(sub, ctx) and _reads(sub, flowing, skip_func=True):
                return True
        if isinstance(expression, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and _reads(expression, flowing):
            flowing |= _stored_names(expression)
    return False


def _stored_in(node: ast.AST, statement: ast.stmt, ctx: RuleContext) -> set[str]:
    """The names the current statement stores the copy's value in: the targets of an
    assignment, or the receiver of `name.append(...)`-like calls the copy is passed to."""
    if isinstance(statement, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
        return _stored_names(statement)
    names: set[str] = set()
    current: ast.AST | None = node
    while current is not None and current is not statement:
        parent = ctx.parent(current)
        if (isinstance(parent, ast.Call) and current is not parent.func and isinstance(parent.func, ast.Attribute)
                and parent.func.attr in _STORING_METHODS):
            name = base_name(parent.func.value)
            if name is not None:
                names.add(name)
        current = parent
    return names


def _stored_names(statement: ast.stmt) -> set[str]:
    """The names an assignment stores into: its targets (`a, b = ...`, `total += ...`), and
    the containers of item targets (`weights` in `weights[key] = value`)."""
    targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]  # type: ignore[attr-defined]
    names: set[str] = set()
    for target in targets:
        for element in (target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]):
            name = element.id if isinstance(element, ast.Name) else base_name(element)
            if name is not None:
                names.add(name)
    return names


def _reads(node: ast.AST, names: set[str], skip_func: bool = False) -> bool:
    """`node` reads one of `names` (a call's arguments only, with `skip_func`)."""
    parts: list[ast.AST] = [node]
    if skip_func and isinstance(node, ast.Call):
        parts = [*node.args, *node.keywords]
    elif isinstance(node, (ast.Assign, ast.AnnAssign)):
        parts = [node.value] if node.value is not None else []
    return any(isinstance(sub, ast.Name) and sub.id in names for sub in walk_local(parts))


def _displays(call: ast.Call, ctx: RuleContext) -> bool:
    """`call` draws or makes an image or histogram of its arguments (see `_feeds_display`)."""
    name = ctx.qualname(call.func) or ""
    if name.startswith(_PLOTTING) or name in _DISPLAY_CALLS:
        return True
    prefix, helpers = _DISPLAY_HELPERS
    if name.startswith(prefix) and name.rsplit(".", 1)[-1] in helpers:
        return True
    func = call.func
    if not isinstance(func, ast.Attribute):
        return False
    return func.attr in _WRITER_METHODS or _plotting_object(func.value, ctx, _DEPTH, set())


def _plotting_object(node: ast.expr, ctx: RuleContext, depth: int, visiting: set[str]) -> bool:
    """`node` is a matplotlib (or seaborn) object: the result of one of their calls, of a
    method of such an object (`fig.add_subplot(...)`, `axes.flatten()`), a part of one
    (`axes[i]`, `ax.title`), or a name every binding of which in the current scope is one
    (`fig, axes = plt.subplots(...)`, `for ax in axes.flat`)."""
    if depth <= 0:
        return False
    if isinstance(node, (ast.Subscript, ast.Attribute)):
        return _plotting_object(node.value, ctx, depth, visiting)
    if isinstance(node, ast.Call):
        if (ctx.qualname(node.func) or "").startswith(_PLOTTING):
            return True
        return isinstance(node.func, ast.Attribute) and _plotting_object(node.func.value, ctx, depth - 1, visiting)
    if not isinstance(node, ast.Name) or ctx.qualname(node) is not None:
        return False
    if node.id in visiting:
        return True  # `axes = axes.flatten()`: what the other bindings say
    bindings = ctx.bindings(node.id)
    if not bindings:
        return False
    visiting = visiting | {node.id}
    for binding in bindings:
        if isinstance(binding, ast.Assign):
            value: ast.expr | None = binding.value
        elif isinstance(binding, (ast.For, ast.AsyncFor)):
            value = _iterated(binding.target, binding.iter, node.id, ctx)
        else:
            return False
        if value is None or not _plotting_object(value, ctx, depth - 1, visiting):
            return False
    return True


def _iterated(target: ast.expr, iterable: ast.expr, name: str, ctx: RuleContext) -> ast.expr | None:
    """What the loop variable `name` takes its items from: `axes.flat` in `for ax in axes.flat`,
    `for i, ax in enumerate(axes.flat)` and `for ax, image in zip(axes.flat, images)`."""
    if isinstance(target, ast.Name):
        return iterable if target.id == name else None
    if not (isinstance(target, ast.Tuple) and isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name)
            and ctx.env.is_builtin(iterable.func.id) and not iterable.keywords):
        return None
    if iterable.func.id == "enumerate" and len(iterable.args) == 1 and len(target.elts) == 2:
        return _iterated(target.elts[1], iterable.args[0], name, ctx)
    if iterable.func.id == "zip" and len(iterable.args) == len(target.elts):
        found = [_iterated(t, a, name, ctx) for t, a in zip(target.elts, iterable.args)]
        return next((f for f in found if f is not None), None)
    return None
