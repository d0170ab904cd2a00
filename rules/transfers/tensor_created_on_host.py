"""GPU304 tensor-created-on-host."""

from __future__ import annotations

import ast

from gpulint.rule_api import DEVICE_TRIGGERS, Applicability, Example, Rule, RuleContext, Tier
from gpulint.torch_api import HOST_ONLY_KEYWORDS, MOVING_METHODS, RANDOM_FACTORIES

from ._common import (
    bound_call,
    distribution_draw_move,
    factory_only_moved,
    moved_name,
    FactoryMove,
    factory_move,
    factory_moved_later,
    helper_placed_factory,
    round_trip,
    runs_repeatedly,
    under_host_autocast,
)
from gpulint.plans.tensor_created_on_host import HostFactory


def _applicability(move: FactoryMove) -> Applicability:
    """Passing `device=` to the factory makes the same tensor (safe), with other random
    numbers for a random factory (unsafe: the device's generator draws them); display-only
    for a legacy class, a move with options, one to a device the code does not spell out,
    and a factory given an argument that means something else on the device."""
    if not move.plain or any(k.arg in HOST_ONLY_KEYWORDS for k in move.factory.keywords):
        return Applicability.DISPLAY
    if move.move.func.attr != "cuda" and move.destination is None:  # type: ignore[attr-defined]
        return Applicability.DISPLAY
    return Applicability.UNSAFE if move.name in RANDOM_FACTORIES else Applicability.SAFE


class TensorCreatedOnHost(Rule):
    """
    ## What it does
    Flags a torch tensor made on the host by a factory that fills it itself and moved to a
    device straight away: `torch.zeros/ones/empty/full/arange/linspace/logspace/eye(...)`
    and `torch.rand/randn/randint/randperm(...)` followed by `.cuda()` or `.to(device)`, and
    a legacy class given a shape (`torch.FloatTensor(4, 256).cuda()`: uninitialised memory
    allocated on the host and copied).

    ## Evidence
    Not a tensor made from data: `torch.tensor(data)`, `torch.as_tensor(data)` and the
    legacy classes given data (`torch.LongTensor([[1]])`) build the tensor on the host from
    the Python or NumPy values and then copy it to the device, even when given `device=`:
    the copy is the data's only way there, and `device=` would save nothing. Copying the
    same `torch.tensor`/`as_tensor` data on every iteration of a loop is GPU302
    `host-to-device-in-loop` (copy it once, before the loop).

    The same idiom in two statements is flagged too, at the factory: `t = torch.zeros(n)` and
    later, in the same block, `t = t.to(device)` (or `t = t.cuda()`), with no statement in
    between that reads, binds or declares `t`. With the rewrite shown, not written: the move
    or the factory as one element of a tuple assignment (`x, t = x.cuda(), t.cuda()`, also
    wrapped in `Variable(...)`), the move in an `if`
    after the factory (`if gpu: t = t.cuda()`: the other path is the program's CPU fallback)
    or in one branch of a conditional that keeps `t` in the other (`return t.cuda() if
    USE_CUDA else t`),
    a factory in the legacy `Variable(...)` wrapper (`Variable(torch.zeros(n)).cuda()`), and
    one filled in place on lines of its own before the move (`t = torch.FloatTensor(n, k)`,
    `t.normal_(0, 1)`, `t = t.to(device)`: the fill's arguments must not read `t`).
    Not when `t` is read in between or by the `if`'s test, or moved in an `if` that has an
    `else`.

    A name bound to a factory (or to a draw, below) whose one read in its scope is a move to
    the device is flagged too, at the factory, with the rewrite shown: `z = torch.randn(n)`
    and then `mean + std * z.to(device)`, or `w = Variable(z.cuda())`. Not when the name is
    read anywhere else (the host tensor is used, or returned), moved twice or in a loop the
    factory is not in (two copies would become one tensor), or moved on one path of a
    conditional expression only.

    A draw from a `torch.distributions` distribution whose parameters are numbers is made on
    the host too (`Normal(0, 1).sample(shape).to(device)`, also through a name bound to the
    distribution, and `rsample`): it is flagged with the rewrite shown (parameters on the
    device, or a factory given `device=`). A distribution given tensors draws where they are.

    A factory handed, by name, to a helper that returns its argument placed on the device is
    flagged too, with the rewrite shown: a helper of a project module the file imports
    (`to_cuda(torch.randn(n, k))`, `to_cuda` in the project's `utils.py`), or a function of
    the file that returns its parameter moved (`def to_var(x): if cuda: x = x.cuda(); return
    Variable(x)`, also through another such function), whose result the evidence puts on the
    device (`docs/evidence.md`).

    A factory on its way through dtype and layout changes (`torch.zeros(n).float().to(d)`),
    `requires_grad_()`, values written at places (`torch.zeros(n, k).scatter_(1, labels,
    1).cuda()`: a one-hot block; its index must be moved too) or a draw from the tensor it
    makes (`torch.normal(torch.zeros(n), std).to(d)`: the draw is made where its mean is; not
    from a given `generator=`) or elementwise math with numbers
    (`torch.exp(-math.log(period) * torch.arange(half) / half).to(d)`, a timestep embedding's
    frequencies; `(torch.ones(n) * 0.5).to(d)`; not arithmetic with another tensor), or
    joined with other such factories only (`torch.cat([torch.ones(b), torch.zeros(2 * b)],
    dim=0).to(d)`: labels made on the host; not with a part that may be on the device) is
    flagged with a suggestion, not a rewrite: `device=` goes to the factory, the chain stays.
    So is a move by a conversion to a legacy device class
    (`torch.zeros(n).type(torch.cuda.FloatTensor)`, or a name bound to it, also given as
    `dtype=` or with `non_blocking=True`), by `.type_as(x)` of a tensor on the device, or of
    one the file does not show (`torch.zeros(x.size()).type_as(x)` follows `x`'s dtype and
    device: written to follow a batch to the device), and a move
    wrapped in `Variable(...)` in the two-statement shape (`z = Variable(z.cuda())`).

    A factory already given `device=` is not flagged, nor is a move to a literal `"cpu"`.
    Only code that runs over and over is flagged: a loop or a comprehension, a lambda, and a
    function the file shows runs repeatedly: one it calls in a loop or a comprehension (by
    name, or as `self.method()`), hands to another call as a callback (`collate_fn=collate`,
    `frame.apply(f)`), a torch module's `forward` (and Lightning's `training_step` and the
    other steps, and a custom autograd operation's `forward` and `backward`, run on every
    call of its `apply`) and its methods that run the module on an input (`self(state)`,
    `self.forward(state)`, outside a loop of their own: an agent's action or evaluation
    step), a class's `__getitem__`, and any function these call; and a function or class
    that a file of the project importing the module runs so (a loss helper called in a
    training script's batch loop, a mask class built in a model's `forward` in another
    module: `docs/evidence.md`). A tensor made once
    is not flagged: at the top level of a module or a notebook cell, such as a CUDA warm-up
    (`torch.zeros((2, 2)).cuda()`), a test input or a random permutation made when a script
    starts, nor in a function nothing in the file or its importers runs repeatedly (a pipeline's prompt
    encoding, run once per generation; a helper called once when a script starts), nor on
    one iteration of a loop only (`if i == 0:` over the index of `range` or `enumerate`,
    which takes each value once; or a buffer started lazily, `if features is None:` whose
    body binds `features`, which nothing else in the loop binds: the tensor is made once
    per run of the loop). When the data
    came from the device (`torch.tensor(t.cpu().numpy()).cuda()`), GPU303
    `device-round-trip` reports the round trip.

    ## Why is this bad?
    The tensor is allocated and filled by the CPU, then copied over the bus, then the host
    copy is thrown away: two allocations and a transfer where one allocation on the device,
    filled by the device, would do. In a loop this is a host-to-device copy per iteration,
    and in a function run per batch one per batch. Made once per run, or once per call of a
    function called once per generation, it is a single copy next to much more work: on the
    real-code corpus such findings were one-offs (a warm-up, a test input, the text ids of a
    pipeline's prompt encoding) that nobody would change.

    ## Fix safety
    The fix passes the device to the factory: `torch.zeros(n).to(device)` becomes
    `torch.zeros(n, device=device)`, `.cuda()` becomes `device="cuda"`. For deterministic
    factories the result is the same tensor (same values, dtype and device), so the fix is
    safe. It is unsafe for the random factories (`rand`, `randn`, `randint`, `randperm`):
    on a GPU they draw from the device's generator instead of the CPU's, so the numbers
    differ for the same seed and the CPU generator is no longer advanced. The fixer leaves
    alone calls that pass more than the device to `.to()` (a dtype, `non_blocking=`),
    `.cuda(index)`, and factories given `requires_grad=`, `out=` or `pin_memory=` (a
    tensor made on the device is a leaf, one moved there is not). A factory given
    `generator=` is not reported at all: drawing from a given (usually CPU) generator and
    then moving the result is how code keeps random draws the same on every device, and a
    CPU generator cannot draw a device tensor.

    In the two-statement shape the fix adds `device=` to the factory and deletes the
    `t = t.to(device)` line, only when that line directly follows the factory's statement
    (nothing can have seen the host tensor, and the name ends up bound to the same values,
    dtype and device) and holds no comment. With statements in between, the suggestion is
    display-only. So it is for the legacy classes, which refuse an accelerator's `device=`:
    the suggestion shows `torch.empty(shape, dtype=..., device=...)`.
    """

    code = "GPU304"
    libraries = DEVICE_TRIGGERS
    name = "tensor-created-on-host"
    tier = Tier.PREVIEW
    tier_reason = (
        "Never-used code: 23 of 33 sampled findings useful (70%, below the bar; setup code run once); the "
        "blind sets' labels: 127 of 137"
    )
    message = "tensor created on the host and then copied to the device; pass `device=` to the factory"
    nodes = (ast.Call,)
    calls = MOVING_METHODS  # the move of `torch.zeros(n).to(d)` or `t = t.to(d)`
    fix = Applicability.SAFE
    suggestion = "create the tensor on the device: pass `device=` to the factory instead of moving it afterwards"

    flagged = (
        Example(
            source="""\
import torch

device = "cuda" if torch.cuda.is_available() else "cpu"


def positions(n):
    return torch.arange(n).to(device) * 2


def encode(lengths):
    return [positions(n) for n in lengths]  # once per sequence
""",
            fixed="""\
import torch

device = "cuda" if torch.cuda.is_available() else "cpu"


def positions(n):
    return torch.arange(n, device=device) * 2


def encode(lengths):
    return [positions(n) for n in lengths]  # once per sequence
""",
            requires=("torch",),
            setup="import torch",
            call="positions(N).tolist()",
        ),
        Example(
            source="""\
import torch


def noise(shape, device):
    return torch.randn(*shape).to(device=device)


def sample(shapes, device):
    return [noise(shape, device) for shape in shapes]  # once per shape
""",
            fixed="""\
import torch


def noise(shape, device):
    return torch.randn(*shape, device=device)


def sample(shapes, device):
    return [noise(shape, device) for shape in shapes]  # once per shape
""",
            requires=("torch",),
            setup="import torch\nshape = (N, 3)",
            call="(torch.manual_seed(0), noise(shape, 'cpu').tolist())[1]",
        ),
        Example(
            source="""\
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def causal_mask(n):
    mask = torch.ones(n, n, dtype=torch.bool)
    mask = mask.to(device)
    return torch.tril(mask).sum().item()


def masks(lengths):
    return [causal_mask(n) for n in lengths]  # once per sequence
""",
            fixed="""\
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def causal_mask(n):
    mask = torch.ones(n, n, dtype=torch.bool, device=device)
    return torch.tril(mask).sum().item()


def masks(lengths):
    return [causal_mask(n) for n in lengths]  # once per sequence
""",
            requires=("torch",),
            setup="import torch",
            call="causal_mask(N)",
        ),
        Example(
            source="""\
import torch


def shifted(latents, steps):
    with torch.autocast("cuda", enabled=torch.cuda.is_available()):
        for t in steps:
            offset = torch.full(latents.shape, float(t)).to(latents.device)
            latents = latents + offset
    return latents
""",
            fixed="""\
import torch


def shifted(latents, steps):
    with torch.autocast("cuda", enabled=torch.cuda.is_available()):
        for t in steps:
            offset = torch.full(latents.shape, float(t), device=latents.device)
            latents = latents + offset
    return latents
""",
            requires=("torch",),
            setup="import torch\nlatents = torch.zeros(N, 3)",
            call="shifted(latents, range(3)).tolist()",
        ),
        Example(
            source="""\
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
ramps = []
for n in range(1, 5):  # one copy per iteration, even at the top level
    ramps.append(torch.arange(n).to(device) * 2)
""",
            fixed="""\
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
ramps = []
for n in range(1, 5):  # one copy per iteration, even at the top level
    ramps.append(torch.arange(n, device=device) * 2)
""",
            requires=("torch",),
            setup="import torch",
            call="[ramp.tolist() for ramp in ramps]",
        ),
    )
    ok = (
        Example(
            """\
import torch

device = "cuda" if torch.cuda.is_available() else "cpu"
zeros = torch.zeros(3, device=device)
""",
            reason="A tensor created on the device with `device=`.",
        ),
        Example(
            """\
import torch

torch.zeros((2, 2)).cuda()  # made once, to warm up CUDA before a timing
test_input = torch.tensor([[1, 2, 3]]).to("cuda")
""",
            reason="Tensors made once at module level (a warm-up, a test input).",
        ),
        Example(
            """\
import torch

device = "cuda" if torch.cuda.is_available() else "cpu"


def buffers(n, on_device):
    counts = torch.zeros(n)
    total = counts.sum()  # the host tensor is used before the move
    counts = counts.to(device)
    weights = torch.ones(n)
    if on_device:
        weights = weights.to(device)  # moved on one branch only
    bias = torch.zeros(n)
    moved = bias.to(device)  # `bias` stays on the host
    return counts, total, weights, bias, moved
""",
            reason="The host tensor is used before the move, moved on one branch only, or kept too.",
        ),
        Example(
            """\
import torch

on_host = torch.zeros(3).to("cpu")
half = torch.zeros(3).to(torch.float16)
""",
            reason="Moved to the CPU or converted to a dtype, not to a device.",
        ),
        Example(
            """\
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def class_weights(counts):
    # made from data: torch builds it on the host and copies it, `device=` or not
    weights = torch.tensor(counts, dtype=torch.float64).to(device)
    return (weights.sum() / weights).tolist()


def weigh_folds(folds):
    return [class_weights(counts) for counts in folds]


def moved(t):
    return [torch.as_tensor(t).to(device=device), torch.LongTensor(t).cuda()]
""",
            reason="A tensor made from data (`torch.tensor(counts)`): it is built on the host anyway.",
        ),
        Example(
            """\
import torch

buffer = torch.empty(1024, pin_memory=True)
""",
            reason="A pinned host buffer, meant for the host.",
        ),
        Example(
            """\
import torch


def denoise(unet, latents, steps):
    with torch.cpu.amp.autocast(dtype=torch.bfloat16):  # the script computes on the host
        for t in steps:
            noise = torch.randn(latents.shape).to(latents.device)
            latents = unet(latents + noise, t)
    return latents
""",
            reason="Code that computes on the CPU (`torch.cpu.amp.autocast`).",
        ),
        Example(
            """\
import torch

device = "cuda"


def make_mask(n):
    return torch.ones(n, n).to(device)


mask = make_mask(64)
""",
            reason="A factory in a function the file calls once: the tensor is made once.",
        ),
    )

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        move = factory_move(node, ctx.env)
        if move is None and ctx.blocks:
            move = factory_moved_later(
                node, ctx.statements, ctx.blocks, ctx.env, ctx.semantic.remember("factories touched", ctx.tree, dict)
            )
        if move is None:
            move = distribution_draw_move(node, ctx)
        if move is None:
            move = factory_only_moved(node, ctx)
        if move is None:
            move = helper_placed_factory(node, ctx)
        if move is None or round_trip(node, ctx.env) is not None or under_host_autocast(ctx):
            return
        if not runs_repeatedly(ctx):
            return  # made once per run of the program, or per call of a function called once
        message, spot = None, node
        if move.name.startswith("distributions."):
            message = (
                f"`{move.name.split('.')[1]}` with number parameters draws on the host and the draw is copied to "
                "the device: give the distribution parameters on the device"
            )
        if move.made is not None:  # reported at the factory, where `device=` goes
            moved = node.func.value  # type: ignore[attr-defined]
            named = moved_name(node, ctx.env)  # type: ignore[arg-type]
            name = (
                named.id
                if named is not None
                else ast.unparse(moved.args[0] if isinstance(moved, ast.Call) and moved.args else moved)
            )
            message = (
                f"`{name}` is created on the host and then copied to the device by `{ast.unparse(node)}`; "
                "pass `device=` to the factory"
            )
            spot = bound_call(move.made, name) or move.made.value
        ctx.report(spot, message, context=HostFactory(applicability=_applicability(move), move=move))
