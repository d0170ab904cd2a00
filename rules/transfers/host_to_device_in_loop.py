"""GPU302 host-to-device-in-loop."""

from __future__ import annotations

import ast

from gpulint.rule_api import (
    STATEMENT_LOOPS,
    DEVICE_TRIGGERS,
    HOST,
    within,
    TORCH_FACTORIES,
    Applicability,
    Example,
    loop_changes,
    LoopChanges,
    Rule,
    RuleContext,
    Tier,
    Ty,
    walk_local,
)

from gpulint.torch_api import FILLING_METHODS, FRESH_METHODS, KEEPING_PLACE_METHODS, LEGACY_TENSOR_TYPES, unwrapped

from ._common import (
    HostToDevice,
    TO_DEVICE_METHODS,
    call_is_pure,
    factory_move,
    host_to_device,
    loop_parts,
    reads_only,
    round_trip,
    runs_repeatedly,
)
from gpulint.plans.host_to_device_in_loop import Hoist, LoopCopy

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)

_SETUP = """\
import torch
batches = [torch.from_numpy(rng.standard_normal(3)) for _ in range(N)]
weights = [0.5, 1.0, 2.0]
"""


class HostToDeviceInLoop(Rule):
    """
    ## What it does
    Flags a copy of loop-invariant data to the device inside a loop: `.to(device)` and
    `.cuda()` (torch), `torch.tensor(x, device=device)`, `cupy.asarray(x)`,
    `cudf.from_pandas(frame)`, where nothing the copied expression reads is assigned or
    changed in the loop, and it computes nothing new (`torch.randn(...)` is not invariant).

    A training loop's per-batch `x.to(device)` is what loops are for and is never flagged:
    `x` changes every iteration. A factory moved to the device (`torch.zeros(n).to(device)`)
    is GPU304 `tensor-created-on-host`, a round trip is GPU303 `device-round-trip`.

    ## Evidence
    A torch module's `forward` (or another method run per batch) that copies a host tensor
    the instance holds, set only in `__init__` by a factory or constructor without `device=`
    (`self.mask = torch.ones(n, n).tril()`, then `self.mask.to(x.device)`, also reshaped or
    through `Variable(...)`) or to a host tensor a function of the file returns (`self.pos =
    posemb_sincos_2d(h, w, dim)`, also one item of a tuple: `self.mask, self.size =
    get_mask(n)`), copies the same bytes on every call, also by following the batch
    (`self.kernel.type_as(x)`, unless `x` is a tensor the code shows on the host): the
    rewrite is shown, registering it as a buffer, which moves with the module once. Not an
    `nn.Parameter`, which the module registers and moves itself, nor an attribute the method
    sets again (`self.mean = self.mean.type_as(x)` copies once and keeps the copy).

    Data is what the copied expression only reads and converts: names, attributes and
    subscripts, `torch.tensor(...)`, a legacy class given a list written out
    (`torch.LongTensor([[SOS_token]])`; given a name, it may be a size) and the legacy
    `Variable(...)` wrapper.

    ## Why is this bad?
    Every iteration copies the same bytes over the bus again (and allocates device memory for
    them), although the first copy could be reused: the loop pays a transfer per step for
    nothing, and a synchronous copy stalls the device's queue.

    ## Fix safety
    The fix moves the copy above the loop, as a statement of its own (`w_dev = w.to(device)`
    moves as a whole; a copy inside an expression gets a new name). It applies only where
    the loop visibly reuses the same value: the names the copy reads are neither assigned
    nor changed in place in the loop (nor passed to anything that may change them); the
    copy's result is only read (an operand, an argument of a torch function), never changed
    in place or stored; the copy is not conditional (under an `if`, `with` or `try` in the
    loop); and, for torch, the copied tensor is known not to require grad (a `.to()` of a
    tensor that requires grad is part of each iteration's autograd graph).

    The fix is unsafe: what the loop can change is more than what it names. The source
    can change through another name for it (an alias or a view, `view = w[:]` then
    `view += 1`), through a function the loop calls that changes a global, or, in a
    generator, through the code that consumes it between two `yield`s; the hoisted copy
    then keeps the first value where the loop copied the new one each time. And the copy
    is made once even when the loop body runs zero times, where it can raise (data torch
    cannot convert, such as a text array, or a device that is not there) although the
    loop never ran it. Other occurrences get a suggestion.
    """

    code = "GPU302"
    libraries = DEVICE_TRIGGERS
    name = "host-to-device-in-loop"
    tier = Tier.PREVIEW
    tier_reason = (
        "Never-used code: 2 of 9 sampled findings useful (the receive buffers of an all_gather, which must "
        "be separate tensors; a few points copied once per epoch); the blind sets' labels: 9 of 9"
    )
    message = "loop-invariant data copied to the device on every iteration; copy it once before the loop"
    nodes = (ast.Call,)
    calls = TO_DEVICE_METHODS | {"type_as"}
    fix = Applicability.UNSAFE
    suggestion = (
        "copy this data to the device once, before the loop, and reuse the copy inside it "
        "(not rewritten automatically: the loop may change the data, or the copy, or run it only sometimes)"
    )

    flagged = (
        Example(
            source="""\
import torch

device = "cuda" if torch.cuda.is_available() else "cpu"


def weighted_sums(batches, weights):
    w = torch.as_tensor(weights, dtype=torch.float64)
    sums = []
    for batch in batches:
        w_device = w.to(device)
        sums.append((batch.to(device) * w_device).sum())
    return [s.item() for s in sums]
""",
            fixed="""\
import torch

device = "cuda" if torch.cuda.is_available() else "cpu"


def weighted_sums(batches, weights):
    w = torch.as_tensor(weights, dtype=torch.float64)
    sums = []
    w_device = w.to(device)
    for batch in batches:
        sums.append((batch.to(device) * w_device).sum())
    return [s.item() for s in sums]
""",
            requires=("torch",),
            setup=_SETUP,
            call="weighted_sums(batches, weights)",
        ),
        Example(
            source="""\
import torch
import torch.nn.functional as F

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def batch_losses(logits, targets):
    class_weights = torch.tensor([1.0, 2.0, 0.5], dtype=torch.float64)
    losses = []
    for scores, labels in zip(logits, targets):
        # rare classes count more
        loss = F.cross_entropy(scores.to(device), labels.to(device), weight=class_weights.to(device))
        losses.append(loss)
    return [loss.item() for loss in losses]
""",
            fixed="""\
import torch
import torch.nn.functional as F

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def batch_losses(logits, targets):
    class_weights = torch.tensor([1.0, 2.0, 0.5], dtype=torch.float64)
    losses = []
    class_weights_device = class_weights.to(device)
    for scores, labels in zip(logits, targets):
        # rare classes count more
        loss = F.cross_entropy(scores.to(device), labels.to(device), weight=class_weights_device)
        losses.append(loss)
    return [loss.item() for loss in losses]
""",
            requires=("torch",),
            setup=(
                "import torch\n"
                "logits = [torch.from_numpy(rng.standard_normal((4, 3))) for _ in range(N)]\n"
                "targets = [torch.from_numpy(rng.integers(0, 3, 4)) for _ in range(N)]\n"
            ),
            call="batch_losses(logits, targets)",
        ),
        Example(
            source="""\
import cupy as cp
import numpy as np


def scaled(chunks, scale: np.ndarray):
    out = []
    for chunk in chunks:
        out.append(cp.asarray(chunk) * cp.asarray(scale))
    return out
""",
            fixed="""\
import cupy as cp
import numpy as np


def scaled(chunks, scale: np.ndarray):
    out = []
    scale_device = cp.asarray(scale)
    for chunk in chunks:
        out.append(cp.asarray(chunk) * scale_device)
    return out
""",
            requires=("cupy",),
            setup="chunks = [rng.standard_normal(4) for _ in range(N)]\nscale = rng.standard_normal(4)",
            call="[c.get().tolist() for c in scaled(chunks, scale)]",
        ),
        Example(
            source="""\
import torch


def train(model, loader, optimizer, mean):
    for x, y in loader:
        x = (x - mean.cuda()).cuda()
        loss = model(x).sub(y.cuda()).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
""",
        ),
    )
    ok = (
        Example(
            """\
import torch

device = "cuda" if torch.cuda.is_available() else "cpu"


def train(model, loader, optimizer):
    model = model.to(device)
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        loss = torch.nn.functional.mse_loss(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
""",
            reason="Each batch from a loader moved once: the inputs have to reach the device.",
        ),
        Example(
            """\
import torch

device = "cuda"
for step in range(10):
    noise = torch.randn(3).to(device)
""",
            reason="A tensor made on the host each step: GPU304's business.",
        ),
        Example(
            """\
import torch

device = "cuda"
buffer = torch.zeros(8)
for step in range(10):
    buffer.add_(1)
    on_device = buffer.to(device)
""",
            reason="A buffer changed in the loop before each copy: the copy is needed.",
        ),
        Example(
            """\
import torch

device = "cuda"
weights = torch.ones(3)
weights_device = weights.to(device)
for step in range(10):
    print(weights_device.sum())
""",
            reason="A copy made once, before the loop.",
        ),
        Example(
            """\
import numpy as np
import cupy as cp

frames = [np.ones(4) for _ in range(3)]
stacked = [cp.asarray(frame) for frame in frames]
""",
            reason="Each iteration copies a different array (`frame` changes).",
        ),
    )

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        if not ctx.loops:
            self._check_held_constant(node, ctx)
            return
        move = host_to_device(node, ctx.env)
        if move is None or round_trip(node, ctx.env) is not None or factory_move(node, ctx.env) is not None:
            return
        if _each_an_element(node, ctx):
            return
        names = reads_only(node, ctx.env)
        if names is None:
            return
        if names & self._facts(ctx.loops[-1], ctx).varying:
            return
        hoist = self._hoist(node, move, names, ctx)
        ctx.report(
            node,
            context=LoopCopy(
                applicability=Applicability.UNSAFE if hoist else Applicability.DISPLAY, move=move, hoist=hoist
            ),
        )

    def _check_held_constant(self, node: ast.AST, ctx: RuleContext) -> None:
        """A host tensor the instance holds (`self.mask`, set only in `__init__`) copied to the
        device in a method run per batch (a torch module's `forward`), also by following the
        batch (`self.kernel.type_as(x)`): the same bytes cross the bus on every call.
        Registered as a buffer, it would move with the module once."""
        move = host_to_device(node, ctx.env) or _following_a_tensor(node, ctx)
        if move is None or move.library != "torch" or round_trip(node, ctx.env) is not None:
            return
        if factory_move(node, ctx.env) is not None:
            return
        attribute = _held_constant(move.moved, ctx)
        if attribute is None or not runs_repeatedly(ctx):
            return
        ctx.report(
            node,
            f"`self.{attribute}` holds a host tensor set once in `__init__`, copied to the device on every "
            "call: register it as a buffer (`self.register_buffer(...)`), which moves with the module once",
            context=LoopCopy(applicability=Applicability.DISPLAY, move=move, hoist=None),
        )

    def _facts(self, loop: ast.AST, ctx: RuleContext) -> LoopChanges:
        return ctx.semantic.remember(
            "what a loop changes",
            loop,
            lambda: loop_changes(loop_parts(loop, ctx.statement), lambda call: call_is_pure(call, ctx.env)),
        )

    # -- what the fixer may do ----------------------------------------------------------
    def _hoist(self, node: ast.Call, move: HostToDevice, names: set[str], ctx: RuleContext) -> Hoist | None:
        loop = next((outer for outer in reversed(ctx.loops) if isinstance(outer, STATEMENT_LOOPS)), None)
        if loop is None:
            return None
        index = next((i for i, s in enumerate(ctx.statements) if s is loop), None)
        if index is None or index == len(ctx.statements) - 1:
            return None  # in the loop's own header
        inner = ctx.statements[index + 1 :]
        if any(
            isinstance(s, (ast.If, ast.With, ast.AsyncWith, ast.Try)) or type(s).__name__ in ("Match", "TryStar")
            for s in inner[:-1]
        ):
            return None  # runs only sometimes, or in a context the loop sets up
        scope = next((s for s in reversed(ctx.statements[:index]) if isinstance(s, _SCOPES)), None)
        if isinstance(scope, ast.ClassDef):
            return None
        facts = self._facts(loop, ctx)
        if names & facts.varying or names & ctx.env.volatile:
            return None
        if move.library == "torch" and _is_move_method(node) and not _no_grad(move.moved, scope, ctx, 3):
            return None
        statement = inner[-1]
        if len(inner) == 1 and _moves_whole_statement(statement, node, loop, facts, scope, ctx):
            return Hoist(loop, "statement", statement)
        if _only_read(node, statement, ctx):
            return Hoist(loop, "expression")
        return None


#: Methods that hand on a tensor's values reshaped or converted, computing nothing new from
#: other data (not the in-place fills).
_RESHAPING = KEEPING_PLACE_METHODS - FILLING_METHODS


def _each_an_element(node: ast.AST, ctx: RuleContext) -> bool:
    """The copy is what a comprehension collects (`[torch.IntTensor([0]).to("cuda") for _ in
    range(world_size)]`): one tensor per element, written into later (`all_gather`), not the
    same data copied again: made once, every element would be the same tensor."""
    parent = ctx.parent(node)
    if isinstance(parent, (ast.ListComp, ast.SetComp, ast.GeneratorExp)):
        return parent.elt is node
    return isinstance(parent, ast.DictComp) and parent.value is node


def _following_a_tensor(node: ast.AST, ctx: RuleContext) -> HostToDevice | None:
    """`self.kernel.type_as(x)`: the held tensor takes `x`'s dtype and device, a copy to the
    device where `x` is there; written to follow the batch a method is given, so `x` may be
    anything but a tensor the code shows on the host."""
    if not (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "type_as"
        and len(node.args) == 1
        and not node.keywords
    ):
        return None
    followed = ctx.type_of(node.args[0])
    if followed is not None and followed.place == HOST:
        return None
    return HostToDevice(node, node.func.value, "torch")


def _held_constant(moved: ast.expr, ctx: RuleContext) -> str | None:
    """The attribute `moved` reads, when it is `self.<attr>` of the current method's
    instance (also reshaped, `self.mask.repeat(n, 1)`, wrapped in `Variable(...)`, or
    through a local name bound to such a value) and only the class's `__init__` binds it,
    to a torch tensor made on the host (a factory or constructor without `device=`, or what
    the evidence says is one: a host tensor a function of the file returns)."""
    value = _through_reshaping(moved, ctx)
    if isinstance(value, ast.Name):
        bound = _assigned_before(value.id, ctx)
        value = _through_reshaping(bound, ctx) if bound is not None else None
    function = ctx.enclosing_function
    facts = ctx.semantic.function(function) if function is not None else None
    if not (
        facts is not None
        and facts.owner is not None
        and facts.self_name is not None
        and isinstance(value, ast.Attribute)
        and isinstance(value.value, ast.Name)
        and value.value.id == facts.self_name
    ):
        return None
    attribute = value.attr
    init = None
    for method in facts.owner.body:
        if not isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        method_facts = ctx.semantic.function(method)
        if method_facts is None or attribute not in method_facts.writes:
            continue
        if method.name != "__init__":
            return None  # set again elsewhere: not one constant
        init = method_facts
    if init is None or init.self_name is None or _changed_in_place(facts.owner, attribute, ctx):
        return None
    recorded = ctx.semantic.attribute_type(facts.owner, attribute)
    if recorded is not None and recorded.lib == "torch" and recorded.kind == "tensor" and recorded.place == HOST:
        return attribute  # what `__init__` bound it to is a host tensor (`self.mask, n = get_mask(k)`)
    made = [
        node.value
        for node in walk_local(init.node.body)
        if isinstance(node, ast.Assign)
        and len(node.targets) == 1
        and isinstance(node.targets[0], ast.Attribute)
        and node.targets[0].attr == attribute
        and isinstance(node.targets[0].value, ast.Name)
        and node.targets[0].value.id == init.self_name
    ]
    return attribute if made and all(_made_on_the_host(value, ctx) for value in made) else None


def _changed_in_place(owner: ast.ClassDef, attribute: str, ctx: RuleContext) -> bool:
    """A method of the class changes `self.<attribute>` in place (`self.state.copy_(h)`,
    `self.mask[i] = 0`): not the same bytes on every call."""
    for method in owner.body:
        facts = ctx.semantic.function(method) if isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)) else None
        if facts is None or facts.self_name is None:
            continue
        for node in walk_local(method.body):  # type: ignore[union-attr]
            held: ast.expr | None = None
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr.endswith("_"):
                held = node.func.value
            elif isinstance(node, (ast.Assign, ast.AugAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                held = next((t.value for t in targets if isinstance(t, ast.Subscript)), None)
            if (
                isinstance(held, ast.Attribute)
                and held.attr == attribute
                and isinstance(held.value, ast.Name)
                and held.value.id == facts.self_name
            ):
                return True
    return False


def _assigned_before(name: str, ctx: RuleContext) -> ast.expr | None:
    """The value of the last `name = value` before the current statement, in its block or
    an enclosing one of the same function (`v = Variable(self.v)`, then `if gpu: v = v.cuda()`),
    not looking past a loop, a def or a class."""
    for depth in range(len(ctx.statements) - 1, -1, -1):
        block, statement = ctx.blocks[depth], ctx.statements[depth]
        index = next((i for i, s in enumerate(block) if s is statement), None)
        if index is None:
            return None
        found = ctx.last_assignment(block, index, name)
        if found is not None:
            return found[1]
        if depth == 0 or isinstance(ctx.statements[depth - 1], (*STATEMENT_LOOPS, *_SCOPES)):
            return None
    return None


def _through_reshaping(node: ast.expr, ctx: RuleContext) -> ast.expr:
    """`x` in `x.repeat(n, 1).unsqueeze(0)` or `Variable(x)`."""
    while isinstance(node, ast.Call):
        inner = unwrapped(node, ctx.qualname(node.func))
        if inner is not None:
            node = inner
        elif isinstance(node.func, ast.Attribute) and node.func.attr in _RESHAPING:
            node = node.func.value
        else:
            break
    return node


def _made_on_the_host(value: ast.expr, ctx: RuleContext) -> bool:
    """A torch factory or constructor call with no `device=` (`torch.LongTensor(n).fill_(0)`,
    `torch.tensor(points)`), reshaped or filled on the way."""
    while (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Attribute)
        and value.func.attr in KEEPING_PLACE_METHODS
    ):
        value = value.func.value
    if not isinstance(value, ast.Call) or any(k.arg in (None, "device") for k in value.keywords):
        return False
    name = ctx.qualname(value.func) or ""
    made = name[6:] if name.startswith("torch.") else ""
    # not a `*_like` factory: it makes the tensor where its argument is
    if (made in TORCH_FACTORIES and not made.endswith("_like")) or made in LEGACY_TENSOR_TYPES:
        return True
    # a torch function computes where its input is: `torch.sqrt(torch.FloatTensor([d]))`; not
    # `nn.Parameter(torch.randn(n))`, which the module registers and moves with itself
    return bool(made) and not made.startswith("nn.") and bool(value.args) and _made_on_the_host(value.args[0], ctx)


def _is_move_method(node: ast.Call) -> bool:
    return isinstance(node.func, ast.Attribute) and node.func.attr in ("to", "cuda")


def _moves_whole_statement(
    statement: ast.stmt, node: ast.Call, loop: ast.stmt, facts: LoopChanges, scope: ast.AST | None, ctx: RuleContext
) -> bool:
    """`name = copy` directly in the loop's body, `name` bound nowhere else in the loop,
    never changed, not read before it in the loop nor anywhere outside the loop."""
    if not (
        isinstance(statement, ast.Assign)
        and statement.value is node
        and len(statement.targets) == 1
        and isinstance(statement.targets[0], ast.Name)
    ):
        return False
    name = statement.targets[0].id
    if facts.bound.get(name) != 1 or name in facts.mutated or name in ctx.env.volatile:
        return False
    if len(loop.body) < 2:  # type: ignore[attr-defined]
        return False
    start = (statement.lineno, statement.col_offset)
    for sub in ast.walk(loop):
        if isinstance(sub, ast.Name) and sub.id == name and (sub.lineno, sub.col_offset) < start:
            return False
    local = ctx.semantic.local(scope if scope is not None else ctx.tree)
    if name in local.uses.free_in or name in local.uses.declared:
        return False  # a nested function, lambda or class mentions it
    places = [*local.uses.reads.get(name, ()), *(b.position for b in local.bindings.get(name, ()))]
    return all(within(place, loop) for place in places)


def _only_read(node: ast.Call, statement: ast.stmt, ctx: RuleContext) -> bool:
    """The copy's value is only read where it stands: an operand, an argument of a call that
    changes nothing, the receiver of a method that makes a new value."""
    parent = ctx.parent(node)
    ancestor = parent
    while ancestor is not None and ancestor is not statement:
        if isinstance(ancestor, (ast.IfExp, ast.BoolOp, ast.Lambda)):
            return False  # evaluated only sometimes
        ancestor = ctx.parent(ancestor)
    if isinstance(parent, (ast.BinOp, ast.Compare, ast.UnaryOp)):
        return not isinstance(parent, ast.UnaryOp) or not isinstance(parent.op, ast.Not)
    if isinstance(parent, ast.keyword):
        if parent.arg is None or parent.arg == "out":
            return False
        parent = ctx.parent(parent)
    if isinstance(parent, ast.Call):
        return parent.func is not node and call_is_pure(parent, ctx.env)
    if isinstance(parent, ast.Attribute):
        call = ctx.parent(parent)
        return isinstance(call, ast.Call) and call.func is parent and parent.attr in FRESH_METHODS
    return False


def _no_grad(value: ast.expr, scope: ast.AST | None, ctx: RuleContext, depth: int) -> bool:
    """The value is known not to require grad: data from NumPy or literals, a torch factory
    not asked for `requires_grad`, `.detach()`, or a name bound only to such values."""
    if depth < 0:
        return False
    env = ctx.env
    if isinstance(value, ast.Constant):
        return True
    if isinstance(value, (ast.List, ast.Tuple)):
        return all(_no_grad(e, scope, ctx, depth - 1) for e in value.elts)
    if isinstance(value, ast.Call):
        name = env.qualname(value.func) or ""
        if name.startswith("numpy."):
            return True
        if name.startswith("torch.") and name[6:] in TORCH_FACTORIES:
            return not any(k.arg is None or k.arg == "requires_grad" for k in value.keywords)
        if isinstance(value.func, ast.Attribute):
            method = value.func.attr
            if method == "detach":
                return True
            if method in ("to", "cuda", "float", "double", "half", "long", "int", "bool", "contiguous"):
                return _no_grad(value.func.value, scope, ctx, depth - 1)
        return False
    if not isinstance(value, ast.Name):
        return False
    ty = env.type_of(value)
    if ty is not None and (ty == Ty("array", "numpy") or ty.lib == "pandas"):
        return True
    name = value.id
    if name in env.volatile:
        return False
    facts = ctx.semantic.scope(scope) if scope is not None else None
    if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)) and facts is not None:
        if name in facts.nested_names:
            return False  # a nested function or lambda may rebind it
        if name not in facts.bindings:
            scope, facts = None, None  # a module-level name
    if facts is None:
        scope, facts = None, ctx.semantic.scope(ctx.tree)
    if facts is None or name in facts.declared or facts.attributes.get(name, set()) & _GRAD_ATTRIBUTES:
        return False
    assigned = facts.bindings.get(name, [])
    if not assigned or not all(_assigns_whole(statement, name) for statement in assigned):
        return False  # bound some other way too (a loop, `with`, unpacking...)
    return all(_no_grad(s.value, scope, ctx, depth - 1) for s in assigned)  # type: ignore[attr-defined]


#: Attributes that ask torch to track a tensor's gradient.
_GRAD_ATTRIBUTES = frozenset({"requires_grad", "requires_grad_"})


def _assigns_whole(statement: ast.AST, name: str) -> bool:
    """`name = value` (among other whole targets) or `name: T = value`."""
    if isinstance(statement, ast.Assign):
        return any(isinstance(t, ast.Name) and t.id == name for t in statement.targets)
    return (
        isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name) and statement.value is not None
    )
