"""What the transfer rules share: which calls copy between host and device, and what a
loop changes. Not a rule itself (it defines no `Rule`), so it registers nothing.

The precedence between the rules (GPU303 over GPU304 over GPU302, and a round trip's own
copy to the host is not a GPU301/GPU307/GPU308 of its own) is decided here, in one place, by giving
every rule the same recognisers.
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Callable, Iterator
from dataclasses import replace

from gpulint.rule_api import (
    STATEMENT_LOOPS,
    names_for,
    TRY_STATEMENTS,
    assigned_value,
    bare_method_call,
    DEVICE,
    HOST,
    NESTED_SCOPES,
    base_name,
    device_place,
    FunctionFacts,
    FunctionNode,
    is_device_resident,
    keyword_value,
    literal_int,
    mentions,
    move_target,
    names_bound_by,
    once_per_loop,
    repeated_functions,
    RuleContext,
    Ty,
    TypeEnv,
    walk_local,
    bound_here,
)
from gpulint.numpy_api import CUPY_HOST_COPY_METHODS
from gpulint.pandas_api import CUDF_HOST_COPY_METHODS
from gpulint.torch_api import (
    DATA_CONSTRUCTORS,
    FILLING_FACTORIES,
    HOST_COPY_METHODS,
    KEEP,
    LEGACY_TENSOR_TYPES,
    MODEL_TO_MODEL,
    MODULE_TENSOR_METHODS,
    PER_BATCH_METHODS,
    PER_ITEM_METHODS,
    autocast_place,
    moved_type,
    names_the_host,
    unwrapped,
)
from gpulint.torch_api import (
    BACKWARD_METHODS,
    FILLING_METHODS,
    KEEPING_PLACE_METHODS,
    AUTOGRAD_FUNCTIONS,
    ELEMENTWISE_MATH,
    LIGHTNING_MODULES,
    MOVING_METHODS,
    PURE_METHODS,
    SCATTERING_METHODS,
    SYNCHRONISING_FUNCTIONS,
    moves_to_device,
    type_conversion_place,
)
from gpulint.accelerate_api import TRAINER, TRAINER_STEPS
from gpulint.plans.transfers import FactoryMove, HostToDevice, RoundTrip


def runs_repeatedly(ctx: RuleContext) -> bool:
    """The current node runs over and over: in a loop or a comprehension, in a lambda (a
    callback), or in a function the file shows is run repeatedly (`gpulint.repetition`),
    with a torch module's `forward`/steps, a custom autograd operation's `forward` and
    `backward`, a transformers `Trainer`'s step hooks (`compute_loss`, `training_step`,
    `prediction_step`), and a class's `__getitem__` run per batch or item.
    Code a loop runs only on one of its iterations (`if i == 0:`) runs once per run of that
    loop (`gpulint.early_exit.once_per_loop`)."""
    looping = len(ctx.loops) - (1 if once_per_loop(ctx) else 0)
    if looping or any(isinstance(scope, ast.Lambda) for scope in ctx.scopes):
        return True
    function = ctx.enclosing_function
    if function is None:
        return False

    def library_run(facts: FunctionFacts) -> bool:
        name = facts.node.name
        if _backpropagates(facts.node, ctx) or run_by_importers(facts, ctx) or _autograd_step(facts, ctx):
            return True
        if facts.owner is None:
            return False
        if name in PER_ITEM_METHODS:
            return True
        if any((ctx.env.qualname(base) or "").startswith(LIGHTNING_MODULES) for base in facts.owner.bases):
            return name in PER_BATCH_METHODS
        kind = ctx.env.class_type(facts.owner).lib
        if kind == TRAINER:
            return name in TRAINER_STEPS
        if kind != "torch":
            return False
        return name in PER_BATCH_METHODS or _runs_the_module(facts)

    return function in ctx.semantic.remember(
        "functions run repeatedly", ctx.tree, lambda: repeated_functions(ctx.tree, ctx.semantic, library_run)
    )


def _autograd_step(facts: FunctionFacts, ctx: RuleContext) -> bool:
    """`forward` or `backward` of a custom autograd operation (a class deriving from
    `torch.autograd.Function`, whose methods are static): they run on every call of its
    `apply`, which a model's `forward` makes per batch."""
    owner = ctx.semantic.parent(facts.node)
    return (
        facts.node.name in ("forward", "backward")
        and isinstance(owner, ast.ClassDef)
        and any(ctx.env.qualname(base) in AUTOGRAD_FUNCTIONS for base in owner.bases)
    )


def run_by_importers(facts: FunctionFacts, ctx: RuleContext, every_iteration: bool = False) -> bool:
    """A function or class of the module's top level that a project file importing it runs
    repeatedly (`gpulint.callers`): the function (also handed on as a callback), the
    class's `__init__` when it is built there, or the method called on its instance. With
    `every_iteration`, only a call on every run of what repeats it (`Callers.steady`), not
    one under an `if`."""
    found = ctx.callers
    if not found.repeated and not found.handed:
        return False
    names = names_for(facts, ctx.tree, ctx.semantic)
    if any(name in (found.steady if every_iteration else found.repeated) for name in names):
        return True
    return facts.owner is None and bool(names) and names[0] in found.handed  # a callback


def _runs_the_module(facts: FunctionFacts) -> bool:
    """A method of a torch module that runs the module on an input (`self(state)`,
    `self.forward(state)`) outside any loop of its own: a step's helper around the forward
    pass (an agent's action or evaluation), run once per step by whatever loop calls it."""
    instance = facts.self_name

    def runs_it(call: ast.Call) -> bool:
        func = call.func.value if isinstance(call.func, ast.Attribute) and call.func.attr == "forward" else call.func
        return bool(call.args) and isinstance(func, ast.Name) and func.id == instance

    return _calls_once_per_run(facts.node, runs_it)


def _backpropagates(function: FunctionNode, ctx: RuleContext) -> bool:
    """`function` runs one backward pass per call, outside any loop of its own: it is a
    training step, run once per batch by whatever loop calls it, in this file or another (an
    algorithm's `update`, a trainer's `train_step`); nobody backpropagates once per run of a
    program. A function whose own loop backpropagates is the training loop, and may run once."""
    return _calls_once_per_run(function, lambda call: _backward_call(call, ctx))


def _calls_once_per_run(function: FunctionNode, matches: Callable[[ast.Call], bool]) -> bool:
    """Some call `matches` in `function`'s body outside any loop, comprehension or nested
    scope of its own: it runs once per call of the function."""
    pending: list[ast.AST] = list(function.body)
    while pending:
        node = pending.pop()
        if isinstance(node, (*NESTED_SCOPES, *STATEMENT_LOOPS, ast.comprehension)):
            continue
        if isinstance(node, ast.Call) and matches(node):
            return True
        pending.extend(ast.iter_child_nodes(node))
    return False


def _backward_call(call: ast.Call, ctx: RuleContext) -> bool:
    """`loss.backward()` (or `accelerator.backward(loss)`, Lightning's `manual_backward`) or
    `torch.autograd.backward(...)`: a backward pass."""
    func = call.func
    return (
        isinstance(func, ast.Attribute)
        and func.attr in BACKWARD_METHODS
        or (ctx.qualname(func) == "torch.autograd.backward")
    )


def under_host_autocast(ctx: RuleContext) -> bool:
    """The current statement runs under a CPU autocast (`with torch.cpu.amp.autocast():`,
    `with torch.autocast("cpu"):`) within its own function: the script computes on the
    host there, so its tensors are not on a device whatever else the evidence says. The
    innermost autocast decides."""
    for statement in reversed(ctx.statements):
        if isinstance(statement, NESTED_SCOPES):
            return False
        place = opened_autocast(statement, ctx.env)
        if place is not None:
            return place == HOST
    return False


def opened_autocast(statement: ast.stmt | None, env: TypeEnv) -> str | None:
    """Where the body of `statement` runs when it is a `with` opening a torch autocast
    (HOST for a CPU one); its last such item is the innermost. None for anything else."""
    if not isinstance(statement, (ast.With, ast.AsyncWith)):
        return None
    places = [
        autocast_place(item.context_expr, env) for item in statement.items if isinstance(item.context_expr, ast.Call)
    ]
    return next((place for place in reversed(places) if place is not None), None)


# -- device -> host ----------------------------------------------------------------------

#: Builtins that turn a one-element tensor or array into a Python number.
SCALAR_BUILTINS = frozenset({"float", "int", "bool", "complex"})
#: The methods a copy to the host (`to_host`) can be a call of: the rules' `calls`.
TO_HOST_METHODS = (
    HOST_COPY_METHODS | CUPY_HOST_COPY_METHODS | CUDF_HOST_COPY_METHODS | {"to", "type", "asnumpy", "add_scalar"}
)


def _is_torch(ty: Ty | None) -> bool:
    return ty is not None and ty.lib == "torch"


def to_host(node: ast.AST, env: TypeEnv) -> str | None:
    """If `node` copies a device value to the host, how (`.item()`, `cupy.asnumpy`...).
    Formatting a tensor or a CuPy array into a string reads it too: `f"{loss:.4f}"` calls
    `Tensor.__format__`, which reads a one-element tensor's number (`.item()`) and copies
    any other to the host to print it."""
    if isinstance(node, ast.FormattedValue):
        return _formatted(node, env)
    if isinstance(node, ast.Attribute):
        if node.attr == "values_host" and isinstance(node.ctx, ast.Load):
            receiver = env.type_of(node.value)
            if receiver is not None and receiver.lib == "cudf" and is_device_resident(receiver):
                return "`.values_host`"
        return None
    if not isinstance(node, ast.Call):
        return None
    func = node.func
    if (not isinstance(func, ast.Attribute) or func.attr == "asnumpy") and env.qualname(func) == "cupy.asnumpy":
        return "`cupy.asnumpy()`"
    if isinstance(func, ast.Attribute):
        receiver = env.type_of(func.value)
        if func.attr == "add_scalar" and receiver is not None and receiver.kind == "logger":
            return _logged_scalar(node, env)
        if not is_device_resident(receiver):
            return None
        assert receiver is not None
        method = func.attr
        if receiver.lib == "torch":
            if method in HOST_COPY_METHODS and receiver.kind != "model":
                return f"`.{method}()`"
            if method == "to" and move_target(node, env) == HOST:
                return '`.to("cpu")`'
            if method == "type" and (moved_type(method, node, env) or receiver).place == HOST:
                return f"`.type({ast.unparse(node.args[0])})`"  # a host class: `.type(torch.FloatTensor)`
        elif (
            receiver.lib == "cupy"
            and method in CUPY_HOST_COPY_METHODS
            or receiver.lib == "cudf"
            and method in CUDF_HOST_COPY_METHODS
        ):
            return f"`.{method}()`"
        return None
    if isinstance(func, ast.Name) and func.id in SCALAR_BUILTINS and env.is_builtin(func.id):
        if len(node.args) == 1 and not node.keywords:
            ty = env.type_of(node.args[0])
            if is_device_resident(ty) and ty is not None and (ty.lib == "cupy" or ty.kind in ("tensor", "output")):
                return f"`{func.id}()`"
    return None


def _formatted(node: ast.FormattedValue, env: TypeEnv) -> str | None:
    """`{loss:.4f}` of a device tensor (or a model's output, or a CuPy array) in an f-string."""
    ty = env.type_of(node.value)
    if not is_device_resident(ty) or ty is None or not (ty.lib == "cupy" or ty.kind in ("tensor", "output")):
        return None
    spec = f":{ast.unparse(node.format_spec)[2:-1]}" if node.format_spec is not None else ""
    return f"`{{{ast.unparse(node.value)}{spec}}}` in an f-string"


def _logged_scalar(call: ast.Call, env: TypeEnv) -> str | None:
    """`writer.add_scalar(tag, value)` of a TensorBoard writer given a tensor on the device:
    the writer reads it to the host (`.item()`) before it logs it."""
    value = call.args[1] if len(call.args) > 1 else keyword_value(call, "scalar_value")
    if value is None or isinstance(value, ast.Starred):
        return None
    ty = env.type_of(value)
    if is_device_resident(ty) and ty is not None and ty.lib == "torch" and ty.kind in ("tensor", "output", "placed"):
        return "`add_scalar()` of a tensor"
    return None


# -- round trips (GPU303) ------------------------------------------------------------------


_HOST_CHAIN = frozenset({"cpu", "numpy", "tolist", "detach", "to"})


#: Walked through from a copy to the tensor it copies (`t.detach().cpu()`).
_DETACH = frozenset({"detach"})


def _torch_host_copy(node: ast.expr, env: TypeEnv) -> tuple[ast.expr, tuple[ast.AST, ...], bool] | None:
    """`t.cpu().numpy()`, `t.detach().cpu().numpy()`, `t.tolist()`...: the device tensor `t`,
    the chain's calls, and whether it goes through a list."""
    chain: list[ast.AST] = []
    via_list = False
    current = node
    while isinstance(current, ast.Call) and isinstance(current.func, ast.Attribute):
        method = current.func.attr
        if method not in _HOST_CHAIN:
            return None
        if method == "to":
            if move_target(current, env) != HOST:
                return None
        elif current.args or current.keywords:
            return None
        via_list = via_list or method == "tolist"
        chain.append(current)
        receiver = current.func.value
        ty = env.type_of(receiver)
        if is_device_resident(ty) and _is_torch(ty) and method != "detach":
            if ty is not None and ty.kind in ("tensor", "placed", "output"):
                # keep walking through `.detach()` to the tensor itself
                while bare_method_call(receiver, _DETACH):
                    chain.append(receiver)
                    receiver = receiver.func.value  # type: ignore[attr-defined]
                return receiver, tuple(chain), via_list
        current = receiver
    return None


def _under_reshaping(call: ast.Call) -> tuple[ast.Call, bool]:
    """The call under reshapes and dtype changes (`torch.tensor(x).view(-1, 1)`), and
    whether there were any."""
    reshaped = False
    while (
        isinstance(call.func, ast.Attribute)
        and call.func.attr in KEEPING_PLACE_METHODS
        and isinstance(call.func.value, ast.Call)
    ):
        call, reshaped = call.func.value, True
    return call, reshaped


def _device_elements(
    node: ast.expr, env: TypeEnv, bound: Callable[[str], ast.expr | None] | None
) -> tuple[ast.expr, tuple[ast.AST, ...], bool] | None:
    """A list of torch tensors on the device (a literal, a list comprehension, a name whose
    type is a list of them, or, given `bound`, a name it says is bound to a list
    comprehension of them): a constructor reads each element to the host, one at a time, as
    Python numbers."""
    value = bound(node.id) if bound is not None and isinstance(node, ast.Name) else None
    if isinstance(value, ast.ListComp) and _device_results(value, env):
        return node, (), True
    if isinstance(node, (ast.List, ast.Tuple)):
        elements = [env.type_of(element) for element in node.elts]
        on_device = bool(elements) and all(_device_tensor(ty) for ty in elements)
    elif isinstance(node, ast.ListComp):
        on_device = _device_results(node, env)
    else:
        ty = env.type_of(node)
        on_device = ty is not None and ty.kind == "sequence" and bool(ty.items) and _device_tensor(ty.items[0])
    return (node, (), True) if on_device else None


def _device_results(comprehension: ast.ListComp, env: TypeEnv) -> bool:
    """Every element of the list comprehension is a torch tensor computed on the device
    (`[torch.sum(rewards[j:]) for j in range(n)]`), typed where the list is used: an element
    that is the comprehension's own item is unknown there."""
    own = {n.id for g in comprehension.generators for n in ast.walk(g.target) if isinstance(n, ast.Name)}
    if isinstance(comprehension.elt, ast.Name) and comprehension.elt.id in own:
        return False
    return _device_tensor(env.type_of(comprehension.elt))


def _device_tensor(ty: Ty | None) -> bool:
    return is_device_resident(ty) and ty is not None and ty.lib == "torch" and ty.kind in ("tensor", "output")


#: The last parts of the names of the calls that make device data from host data.
_MADE_FROM_HOST_DATA = frozenset({"tensor", "as_tensor", "asarray", "array", "from_pandas"})
#: The methods a round trip (`round_trip`) can be a call of: the rules' `calls`.
ROUND_TRIP_METHODS = frozenset({"to", "cuda"}) | _MADE_FROM_HOST_DATA


def round_trip(node: ast.AST, env: TypeEnv, bound: Callable[[str], ast.expr | None] | None = None) -> RoundTrip | None:
    """How `node` copies a device value to the host and straight back, or None. `bound`
    (optional) gives the value a name is bound to where `node` is, to follow a list
    comprehension handed to a constructor by name (`torch.FloatTensor(sums).to(d)`)."""
    if not isinstance(node, ast.Call):
        return None
    func = node.func
    # torch: constructor(host copy)[.to(d) | .cuda()]  or  constructor(host copy, device=d)
    constructor_call: ast.Call | None = None
    move, destination, plain = "", None, False
    if isinstance(func, ast.Attribute) and func.attr in ("to", "cuda") and isinstance(func.value, ast.Call):
        inner_call, reshaped = _under_reshaping(func.value)
        if func.attr == "cuda":
            moves_back = not node.keywords and len(node.args) <= 1
            plain = not node.args
        else:
            moves_back = move_target(node, env) == DEVICE
            plain = _single_destination(node) is not None
            destination = destination_node(node)
        name = env.qualname(inner_call.func) or ""
        if (
            moves_back
            and name.startswith("torch.")
            and (name[6:] in DATA_CONSTRUCTORS or name[6:] in LEGACY_TENSOR_TYPES)
            and keyword_value(inner_call, "device") is None
        ):
            constructor_call = inner_call
            move = func.attr
            plain = plain and not inner_call.keywords and not reshaped and name[6:] in DATA_CONSTRUCTORS
    if constructor_call is None:
        if isinstance(func, ast.Attribute) and func.attr not in _MADE_FROM_HOST_DATA:
            return None  # (a qualified name ends with the attribute: no need to work it out)
        name = env.qualname(func) or ""
        if name.startswith("torch.") and name[6:] in ("tensor", "as_tensor"):
            device = keyword_value(node, "device")
            if device is not None and (device_place(device, env) or DEVICE) == DEVICE:
                constructor_call, move, destination = node, "device", device
                plain = len(node.keywords) == 1
        elif name in ("cupy.asarray", "cupy.array") and len(node.args) == 1 and not node.keywords:
            return _cupy_round_trip(node, env)
        elif (
            name in ("cudf.from_pandas", "cudf.DataFrame.from_pandas", "cudf.Series.from_pandas")
            and len(node.args) == 1
            and not node.keywords
        ):
            return _cudf_round_trip(node, env)
        if constructor_call is None:
            return None
    if len(constructor_call.args) != 1 or isinstance(constructor_call.args[0], ast.Starred):
        return None
    host = _torch_host_copy(constructor_call.args[0], env) or _device_elements(constructor_call.args[0], env, bound)
    if host is None:
        return None
    value, chain, via_list = host
    constructor = (env.qualname(constructor_call.func) or "")[6:]
    return RoundTrip(
        "torch", node, value, constructor_call.args[0], constructor, move, destination, plain, via_list, chain
    )


def _single_destination(call: ast.Call) -> ast.expr | None:
    """The device of `.to(d)` / `.to(device=d)` when nothing else is passed."""
    if len(call.args) == 1 and not call.keywords and not isinstance(call.args[0], ast.Starred):
        return call.args[0]
    if not call.args and len(call.keywords) == 1 and call.keywords[0].arg == "device":
        return call.keywords[0].value
    return None


def destination_node(call: ast.Call) -> ast.expr | None:
    """The device expression of `.to(d)`, `.to(device=d)` or a `device=d` keyword."""
    for keyword in call.keywords:
        if keyword.arg == "device":
            return keyword.value
    if isinstance(call.func, ast.Attribute) and call.func.attr == "to" and call.args:
        return call.args[0]
    return None


def _cupy_round_trip(node: ast.Call, env: TypeEnv) -> RoundTrip | None:
    inner = node.args[0]
    if not isinstance(inner, ast.Call) or inner.keywords:
        return None
    if env.qualname(inner.func) == "cupy.asnumpy" and len(inner.args) == 1:
        value = inner.args[0]
    elif isinstance(inner.func, ast.Attribute) and inner.func.attr == "get" and not inner.args:
        value = inner.func.value
    else:
        return None
    ty = env.type_of(value)
    if ty is None or ty.lib != "cupy" or ty.kind != "array":
        return None
    return RoundTrip("cupy", node, value, inner, chain=(inner,))


def _cudf_round_trip(node: ast.Call, env: TypeEnv) -> RoundTrip | None:
    inner = node.args[0]
    if not (
        isinstance(inner, ast.Call)
        and isinstance(inner.func, ast.Attribute)
        and inner.func.attr == "to_pandas"
        and not inner.args
        and not inner.keywords
    ):
        return None
    ty = env.type_of(inner.func.value)
    if ty is None or ty.lib != "cudf" or not ty.is_pandas_like:
        return None
    return RoundTrip("cudf", node, inner.func.value, inner, chain=(inner,))


# -- created on the host, then moved (GPU304) ------------------------------------------------


def moved_call(node: ast.AST) -> ast.Call | None:
    """`f(...)` of `f(...).to(d)`, `f(...).cuda()` or `f(...).type(cls)`: the call whose
    result `node` moves."""
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in MOVING_METHODS
        and isinstance(node.func.value, ast.Call)
    ):
        return node.func.value
    return None


def factory_move(node: ast.AST, env: TypeEnv) -> FactoryMove | None:
    """`node` (`.to(d)`, `.cuda()`, `.type(cuda class)`) moves what a torch factory made on the host: directly
    (`torch.zeros(n).to(d)`) or through dtype and layout changes on the way
    (`torch.zeros(n).float().to(d)`, `torch.arange(n).to(torch.long).to(d)`,
    `torch.tril(torch.ones(n, n)).bool().to(d)`). Through such a
    chain (or a legacy `Variable(...)` around the factory) the rewrite is shown, not written:
    the chain stays, and `device=` goes to the factory."""
    made, computed = moved_call(node), False
    if made is None:  # `(torch.ones(n) * 0.5).to(d)`: arithmetic with numbers, then the move
        receiver = node.func.value if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) else None
        if not isinstance(receiver, (ast.BinOp, ast.UnaryOp)) or node.func.attr not in MOVING_METHODS:  # type: ignore[union-attr]
            return None
        made, computed = under_arithmetic(receiver, env), True
        if made is None:
            return None
    made, chained = _through_changes(made, env)
    found = _moved_factory(node, made, env)  # type: ignore[arg-type]
    return replace(found, plain=False) if found is not None and (chained or computed) else found


def _through_changes(made: ast.Call, env: TypeEnv, numbers: frozenset[str] = frozenset()) -> tuple[ast.Call, bool]:
    """The call under the dtype and layout changes, in-place fills, `Variable(...)` and
    arithmetic with numbers (`numbers`: names known to hold one) on the way from it to
    `made`, and whether there were any."""
    chained = False
    while True:
        inner = unwrapped(made, env.qualname(made.func))
        if isinstance(inner, ast.Call):
            made, chained = inner, True
        elif (
            isinstance(made.func, ast.Attribute)
            and isinstance(made.func.value, ast.Call)
            and (
                made.func.attr in KEEPING_PLACE_METHODS | SCATTERING_METHODS
                or made.func.attr == "to"
                and move_target(made, env) == KEEP
            )
        ):
            made, chained = made.func.value, True
        elif _torch_function_on_the_way(made, env):  # `torch.tril(torch.ones(n, n))`
            made, chained = made.args[0], True  # type: ignore[assignment]
        elif (under := _math_on_the_way(made, env, numbers)) is not None:
            made, chained = under, True
        elif (first := _joined_factories(made, env)) is not None:  # `torch.cat([torch.ones(n), ...])`
            made, chained = first, True
        else:
            break
    return made, chained


#: torch functions that join a sequence of tensors into one, made where they are.
_JOINING = frozenset({"torch.cat", "torch.concat", "torch.concatenate", "torch.stack", "torch.hstack", "torch.vstack"})


def _joined_factories(call: ast.Call, env: TypeEnv) -> ast.Call | None:
    """The first of the factories a join of factories only is made of (`torch.cat([torch.ones(b),
    torch.zeros(2 * b)], dim=0)`): every element is a filling factory with no device,
    through the changes on the way (`torch.ones(b).long()`), so the joined tensor is made on
    the host. None when any element is something else (a tensor that may be anywhere)."""
    if env.qualname(call.func) not in _JOINING or not call.args or not isinstance(call.args[0], (ast.List, ast.Tuple)):
        return None
    if not all(_number_like(other, env) for other in (*call.args[1:], *(k.value for k in call.keywords))):
        return None  # `out=`, or a dimension the code computes from a tensor
    elements = call.args[0].elts
    factories = [_through_changes(e, env)[0] if isinstance(e, ast.Call) else None for e in elements]
    if not factories or not all(f is not None and _host_factory(f, env) for f in factories):
        return None
    return factories[0]


def _host_factory(call: ast.Call, env: TypeEnv) -> bool:
    """A torch factory that fills its tensor itself, given no device, generator or options."""
    name = env.qualname(call.func) or ""
    return (
        name.startswith("torch.")
        and name[len("torch.") :] in FILLING_FACTORIES
        and not any(k.arg is None or k.arg in ("device", "generator") for k in call.keywords)
    )


#: torch's elementwise math, as functions (`torch.exp(x)`) and tensor methods
#: (`x.exp()`): computed where `x` is.
_ELEMENTWISE = frozenset(
    {"exp", "log", "sqrt", "abs", "sigmoid", "tanh", "floor", "ceil", "neg", "sign", "pow", *ELEMENTWISE_MATH}
)


def _math_on_the_way(call: ast.Call, env: TypeEnv, numbers: frozenset[str]) -> ast.Call | None:
    """The call under elementwise math with numbers on the way from it to `call`: a torch
    function or tensor method of it (`torch.exp(...)`, `(...).float()`), whose tensor is
    arithmetic with numbers around that call (`torch.exp(-math.log(period) *
    torch.arange(half) / half)`: a timestep embedding's frequencies). The whole expression
    is computed where the call's tensor is."""
    func = call.func
    name = env.qualname(func) or ""
    if name.startswith("torch.") and name[len("torch.") :] in _ELEMENTWISE and call.args:
        tensor, others = call.args[0], [*call.args[1:], *(k.value for k in call.keywords)]
    elif (
        isinstance(func, ast.Attribute)
        and isinstance(func.value, (ast.BinOp, ast.UnaryOp))
        and (func.attr in _ELEMENTWISE | KEEPING_PLACE_METHODS)
    ):
        tensor, others = func.value, [*call.args, *(k.value for k in call.keywords)]
    else:
        return None
    if not all(_number_like(other, env, numbers) for other in others):
        return None  # `torch.pow(t, w)` of another tensor: not a factory's alone
    return under_arithmetic(tensor, env, numbers)


def under_arithmetic(expression: ast.expr, env: TypeEnv, numbers: frozenset[str] = frozenset()) -> ast.Call | None:
    """The one call that arithmetic with numbers is computed around (`-k * torch.arange(n) /
    n`: the `arange`); None when two sides hold tensors or none is a call."""
    while isinstance(expression, (ast.BinOp, ast.UnaryOp)):
        if isinstance(expression, ast.UnaryOp):
            expression = expression.operand
            continue
        tensors = [side for side in (expression.left, expression.right) if not _number_like(side, env, numbers)]
        if len(tensors) != 1:
            return None
        expression = tensors[0]
    return expression if isinstance(expression, ast.Call) else None


def _number_like(node: ast.expr, env: TypeEnv, numbers: frozenset[str] = frozenset()) -> bool:
    """`node` is a number as far as the code shows: a literal, arithmetic of such, a call of
    `math` or of a numeric builtin, or a name, attribute or item of no known tensor or array
    type (`half`, `self.scale`: a tensor the file does not show would fail to mix with a
    tensor moved to the device anyway)."""
    if isinstance(node, ast.Constant):
        return type(node.value) in (int, float)
    if isinstance(node, ast.UnaryOp):
        return _number_like(node.operand, env, numbers)
    if isinstance(node, ast.BinOp):
        return _number_like(node.left, env, numbers) and _number_like(node.right, env, numbers)
    if isinstance(node, ast.Call):
        name = env.qualname(node.func) or ""
        numeric = (
            name.startswith("math.") or isinstance(node.func, ast.Name) and node.func.id in ("int", "float", "len")
        )
        return numeric and all(_number_like(a, env, numbers) for a in node.args)
    if isinstance(node, ast.Name) and node.id in numbers:
        return True
    if isinstance(node, (ast.Name, ast.Attribute, ast.Subscript)):
        ty = env.type_of(node)
        return ty is None or ty.kind in ("other", "number")
    return False


#: The methods of a `torch.distributions` distribution that draw from it.
DRAWING_METHODS = frozenset({"sample", "rsample"})


def distribution_draw_move(node: ast.AST, ctx: RuleContext) -> FactoryMove | None:
    """`node` (`.to(d)`/`.cuda()`) moves a draw from a `torch.distributions` distribution
    whose parameters are numbers (`Normal(0, 1).sample(shape).cuda()`, also through a name
    bound to the distribution): its parameters are tensors on the host, so it draws there.
    The rewrite is shown, not written (`name` starts with "distributions.")."""
    draw = moved_call(node)
    return _moved_draw(node, draw, ctx) if draw is not None else None  # type: ignore[arg-type]


def _moved_draw(node: ast.Call, draw: ast.Call, ctx: RuleContext) -> FactoryMove | None:
    """`node` moves to the device what `draw` drew on the host (`_number_distribution_draw`)."""
    distribution = _number_distribution_draw(draw, ctx)
    if distribution is None or node.func.attr != "cuda" and move_target(node, ctx.env) != DEVICE:  # type: ignore[attr-defined]
        return None
    return FactoryMove(node, draw, "distributions." + distribution, destination_node(node), plain=False)


def _number_distribution_draw(draw: ast.Call, ctx: RuleContext) -> str | None:
    """The class name of the distribution `draw` samples (`Normal(0, 1).sample(shape)`),
    when it is a `torch.distributions` distribution given numbers only (also through a name
    bound to it): its parameters are tensors on the host, so it draws there."""
    if not (isinstance(draw.func, ast.Attribute) and draw.func.attr in DRAWING_METHODS):
        return None
    made = draw.func.value
    if isinstance(made, ast.Name):
        statement = ctx.reaching_assignment(made.id)
        made = assigned_value(statement, made.id) if statement is not None else None  # type: ignore[assignment]
    if not isinstance(made, ast.Call):
        return None
    name = ctx.qualname(made.func) or ""
    parameters = [*made.args, *(k.value for k in made.keywords)]
    if not name.startswith("torch.distributions.") or not parameters or not all(map(_a_number, parameters)):
        return None
    return name.rsplit(".", 1)[1]


def factory_only_moved(node: ast.AST, ctx: RuleContext) -> FactoryMove | None:
    """`node` moves a name bound to a tensor made on the host (a torch factory, also
    through the changes `factory_move` follows, or a draw from a distribution given numbers)
    and that move is the only read of the name in its scope (`z = normal.sample(shape)`,
    then `mean + std * z.to(device)`): the host tensor is never used as it is, so it could
    be made on the device, where the move then returns it as it is. Not a name moved twice:
    the two copies would become one tensor. The rewrite is shown, not written."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in MOVING_METHODS):
        return None
    moved = moved_name(node, ctx.env)
    if moved is None:
        return None
    statement = ctx.reaching_assignment(moved.id)
    made = bound_call(statement, moved.id) if isinstance(statement, ast.Assign) else None
    if made is None:
        return None
    local = ctx.semantic.local(ctx.scope)
    reads, masked = local.reads_reached(moved.id, statement)  # type: ignore[arg-type]
    loads = local.uses.loads.get(moved.id, [])
    if not reads or masked or reads[0] is not moved or local.uses.dynamic or moved.id in local.uses.declared:
        return None
    if len(loads) != 1 or not _to_device(_moved_by(loads[0], ctx), ctx.env):
        return None  # read as it is somewhere (the host tensor is used), or moved twice (two copies)
    if _conditional_on_the_way(node, ctx):
        return None  # `t.cuda() if gpu else other`: moved on one path only
    if not _repeaters(moved, ctx) <= _repeaters(statement, ctx):  # type: ignore[arg-type]
        return None  # moved on every run of a loop the factory is not in: one copy each time
    drawn = _moved_draw(node, made, ctx)
    if drawn is not None:
        return drawn
    factory, _ = _through_changes(made, ctx.env)
    found = _moved_factory(node, factory, ctx.env)
    return replace(found, plain=False, made=statement) if found is not None else None


def _repeaters(node: ast.AST, ctx: RuleContext) -> set[int]:
    """The loops, comprehensions and lambdas of its scope that run `node` over and over (a
    `for` loop's iterable, computed once, is outside the loop)."""
    found: set[int] = set()
    child, parent = node, ctx.parent(node)
    while parent is not None and not isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        if (
            isinstance(parent, (ast.For, ast.AsyncFor))
            and child is not parent.iter
            or isinstance(parent, (ast.While, ast.Lambda, *_COMPREHENSIONS))
        ):
            found.add(id(parent))
        child, parent = parent, ctx.parent(parent)
    return found


_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)


def _conditional_on_the_way(node: ast.AST, ctx: RuleContext) -> bool:
    """`node` is evaluated on some paths of its statement only: in a branch of a
    conditional expression, or after `and`/`or`."""
    child, parent = node, ctx.parent(node)
    while parent is not None and not isinstance(parent, ast.stmt):
        if isinstance(parent, ast.BoolOp) or isinstance(parent, ast.IfExp) and child is not parent.test:
            return True
        child, parent = parent, ctx.parent(parent)
    return False


def _unwrapped_name(value: ast.expr, env: TypeEnv) -> ast.Name | None:
    """The name `value` is, or the legacy `Variable(name)` wraps."""
    if isinstance(value, ast.Call):
        value = unwrapped(value, env.qualname(value.func))  # type: ignore[assignment]
    return value if isinstance(value, ast.Name) else None


def moved_name(move: ast.Call, env: TypeEnv) -> ast.Name | None:
    """The name a move takes to the device: `label` of `label.to(d)`, of `Variable(label).cuda()`
    and of `label.float().to(d)`."""
    return _unwrapped_name(_under_changes(move.func.value, env), env)  # type: ignore[attr-defined]


def _under_changes(value: ast.expr, env: TypeEnv) -> ast.expr:
    """What `value` changes the dtype or layout of on its way to a move (`label` of
    `label.float()`, also through several: `label.long().view(-1, 1)`)."""
    while _a_change(value, env):
        value = value.func.value  # type: ignore[union-attr]
    return value


def _a_change(value: ast.expr, env: TypeEnv) -> bool:
    """`value` is `x.float()`, `x.view(...)` or `x.to(torch.long)`: the tensor `x`, where it is.
    Not an in-place fill on the way (`z.normal_(generator=g)`, `keep.bernoulli_(probs)`): what
    it is given may tie it to the host."""
    return (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Attribute)
        and not value.func.attr.endswith("_")
        and (value.func.attr in KEEPING_PLACE_METHODS or value.func.attr == "to" and move_target(value, env) == KEEP)
    )


def _to_device(move: ast.Call | None, env: TypeEnv) -> bool:
    """`move` takes its tensor to the device: `.cuda()`, `.to(device)`, `.type(cuda class)`."""
    return move is not None and moves_to_device(move, env)


def _moved_by(load: ast.Name, ctx: RuleContext) -> ast.Call | None:
    """The move (`.to(...)`, `.cuda()`, `.type(...)`) whose tensor `load` is, directly or
    in a legacy `Variable(...)`."""
    parent = ctx.parent(load)
    while isinstance(parent, ast.Attribute) and isinstance(changed := ctx.parent(parent), ast.Call):
        if changed.func is not parent or not _a_change(changed, ctx.env):
            break
        load, parent = changed, ctx.parent(changed)  # type: ignore[assignment]  # `label.float()` on its way
    if isinstance(parent, ast.Call) and unwrapped(parent, ctx.qualname(parent.func)) is load:
        load, parent = parent, ctx.parent(parent)  # type: ignore[assignment]
    if not (isinstance(parent, ast.Attribute) and parent.value is load and parent.attr in MOVING_METHODS):
        return None
    call = ctx.parent(parent)
    return call if isinstance(call, ast.Call) and call.func is parent else None


def _a_number(node: ast.expr) -> bool:
    """A literal number (`0`, `1.0`, `-1`)."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        node = node.operand
    return isinstance(node, ast.Constant) and type(node.value) in (int, float)


#: torch functions that draw from the distribution their first argument's tensor gives,
#: on that tensor's device (`torch.normal(torch.zeros(n), std)` draws on the host).
DRAWN_WHERE_GIVEN = frozenset({"normal", "bernoulli", "poisson", "multinomial"})


def _torch_function_on_the_way(call: ast.Call, env: TypeEnv) -> bool:
    """`torch.tril(x)`, the function form of a layout change on the way, an initialiser
    of `torch.nn.init` filling it in place (`init.normal(torch.Tensor(n, 100))`), or a draw
    where its parameters are (`torch.normal(torch.zeros(n), std)`), applied to a call."""
    name = env.qualname(call.func) or ""
    if name.startswith("torch.") and name[len("torch.") :] in DRAWN_WHERE_GIVEN:
        # from a given generator (a CPU one: reproducible draws) the draw is meant on the host;
        # with a second tensor parameter made on the host, `device=` on one factory is not enough
        if any(k.arg == "generator" for k in call.keywords) or any(isinstance(a, ast.Call) for a in call.args[1:]):
            return False
    return (
        (
            name.startswith("torch.nn.init.")
            or name.startswith("torch.")
            and name[len("torch.") :] in KEEPING_PLACE_METHODS | DRAWN_WHERE_GIVEN
        )
        and bool(call.args)
        and isinstance(call.args[0], ast.Call)
    )


def factory_moved_later(
    node: ast.AST,
    statements: list[ast.stmt],
    blocks: list[list[ast.stmt]],
    env: TypeEnv,
    touched: dict[int, frozenset[str]],
) -> FactoryMove | None:
    """`t = torch.zeros(n)` and then `t = t.to(d)` (or `t = t.cuda()`) later in the same
    block, with no statement in between that reads, binds or declares `t`: the same idiom as
    `torch.zeros(n).to(d)`, since the host tensor is never seen by anything but the move.
    Also, with the rewrite shown rather than written: the move as one element of a tuple
    assignment (`x, t = x.cuda(), t.cuda()`), the move in an `if` without `else` after the
    factory whose test does not touch `t` (`if gpu: t = t.cuda()`: the other path is the
    program's CPU fallback), and a factory wrapped in a legacy `Variable(...)`. `statements`
    and `blocks` are the enclosing statements and their blocks, innermost last; `touched`
    caches, per statement, the names it touches (one walk of each statement per file)."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in MOVING_METHODS):
        return None
    moved = node.func.value
    if isinstance(moved, ast.Call):  # `eps = Variable(eps).cuda()`
        moved = unwrapped(moved, env.qualname(moved.func))  # type: ignore[assignment]
    if not (isinstance(moved, ast.Name) and statements and blocks):
        return None
    name = moved.id
    statement = statements[-1]
    alone = _moves_alone(statement, node, name, env)
    if alone is None:
        return None
    block = blocks[-1]
    index = next((i for i, s in enumerate(block) if s is statement), None)
    if index is None:
        return None
    earlier = _last_touching(block, index, name, touched)
    conditional = False
    if earlier is None and len(blocks) >= 2 and len(statements) >= 2:
        branch = statements[-2]
        if not (
            isinstance(branch, ast.If)
            and block is branch.body
            and not branch.orelse
            and all(not (isinstance(n, ast.Name) and n.id == name) for n in ast.walk(branch.test))
        ):
            return None
        block, conditional = blocks[-2], True
        index = next((i for i, s in enumerate(block) if s is branch), None)
        if index is None:
            return None
        earlier = _last_touching(block, index, name, touched)
    if earlier is None:
        return None
    filled = False  # `t.normal_(0, 1)` on a line of its own
    while _fills_in_place(block[earlier], name):
        filled = True
        earlier = _last_touching(block, earlier, name, touched)  # type: ignore[assignment]
        if earlier is None:
            return None
    made = block[earlier]
    factory = bound_call(made, name)  # `t = torch.zeros(n)`, or one element of a tuple assignment
    if factory is None:
        return None
    tupled = factory is not made.value  # type: ignore[attr-defined]
    inner = unwrapped(factory, env.qualname(factory.func))
    if isinstance(inner, ast.Call):
        factory = inner
    # `eps = torch.FloatTensor(n).normal_()`, `mask = torch.triu(torch.ones(k, k)).bool()`:
    # filled in place or changed on the way
    under, changed = _through_changes(factory, env, _number_before(block, earlier, name, env, touched))
    if changed:
        factory, filled = under, True
    found = _moved_factory(node, factory, env)
    if found is None:
        return None
    return FactoryMove(
        found.move,
        found.factory,
        found.name,
        found.destination,
        found.plain
        and alone
        and not conditional
        and not tupled
        and inner is None
        and not filled
        and moved is node.func.value,
        made,  # type: ignore[arg-type]
        statement,
        adjacent=earlier == index - 1,
    )


def _number_before(
    block: list[ast.stmt], index: int, name: str, env: TypeEnv, touched: dict[int, frozenset[str]]
) -> frozenset[str]:
    """`{name}` when the statement before `block[index]` that touches `name` binds it to a
    number (`emb = math.log(10000) / (half - 1)`, then `emb = torch.exp(torch.arange(half) *
    -emb)`): the factory's statement reads that number. The evidence, asked at the move,
    types the name as what it holds there, the tensor."""
    before = _last_touching(block, index, name, touched)
    statement = block[before] if before is not None else None
    if (
        isinstance(statement, ast.Assign)
        and len(statement.targets) == 1
        and isinstance(statement.targets[0], ast.Name)
        and statement.targets[0].id == name
        and _number_like(statement.value, env)
    ):
        return frozenset({name})
    return frozenset()


def bound_call(statement: ast.stmt, name: str) -> ast.Call | None:
    """The call `statement` binds `name` to: `name = f(...)`, or the matching element of a
    tuple assignment (`x, name = x.view(-1), f(...)`) whose other parts do not mention it."""
    if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1):
        return None
    target, value = statement.targets[0], statement.value
    if isinstance(target, ast.Name):
        return value if target.id == name and isinstance(value, ast.Call) else None
    if not (isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple) and len(target.elts) == len(value.elts)):
        return None
    for index, (part, element) in enumerate(zip(target.elts, value.elts, strict=True)):
        if isinstance(part, ast.Name) and part.id == name:
            others = [*value.elts[:index], *value.elts[index + 1 :]]
            mentioned = any(isinstance(n, ast.Name) and n.id == name for other in others for n in ast.walk(other))
            return element if isinstance(element, ast.Call) and not mentioned else None
    return None


def _last_touching(block: list[ast.stmt], before: int, name: str, touched: dict[int, frozenset[str]]) -> int | None:
    """The index of the last statement of `block` before `before` that touches `name`."""
    return next((i for i in range(before - 1, -1, -1) if name in _touched(block[i], touched)), None)


def _fills_in_place(statement: ast.stmt, name: str) -> bool:
    """`t.normal_(0, 1)` (or `zero_`, `fill_(0.5)`, ...) as a statement of its own, given
    literal numbers only (no generator, no tensor of probabilities), or a number written at
    places (`t[rows, cols] = 1`): filled on the device the same way once the factory is
    given `device=`."""
    if (
        isinstance(statement, ast.Assign)
        and len(statement.targets) == 1
        and isinstance(target := statement.targets[0], ast.Subscript)
        and isinstance(target.value, ast.Name)
        and target.value.id == name
        and not mentions(target.slice, name)
        and _a_number(statement.value)
    ):
        return True  # `mask[rows, cols] = 1`: values written at places (the indices go along)
    call = statement.value if isinstance(statement, ast.Expr) else None
    return (
        isinstance(call, ast.Call)
        and isinstance(call.func, ast.Attribute)
        and call.func.attr in FILLING_METHODS
        and isinstance(call.func.value, ast.Name)
        and call.func.value.id == name
        and not call.keywords
        and all(_a_number(argument) for argument in call.args)
    )


def _moves_alone(statement: ast.stmt, node: ast.Call, name: str, env: TypeEnv) -> bool | None:
    """Whether `statement` binds `name` to `node` alone (`t = t.cuda()`: True) or as one
    element of a tuple assignment that touches `name` nowhere else, or moves it in one branch
    of a conditional whose other branch is `name` itself, the program's CPU fallback
    (`return t.cuda() if USE_CUDA else t`, `t = t.cuda() if gpu else t`) (False); None
    otherwise."""
    if isinstance(statement, ast.Return) and _moved_or_kept(statement.value, node, name):
        return False
    if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1):
        return None
    target, value = statement.targets[0], statement.value
    if isinstance(target, ast.Name) and target.id == name and _moved_or_kept(value, node, name):
        return False
    if value is node:
        return True if isinstance(target, ast.Name) and target.id == name else None
    if isinstance(target, ast.Name) and target.id == name and _is_or_wraps(value, node, env):
        return False  # `z = Variable(z.cuda())`
    if not (isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple) and len(target.elts) == len(value.elts)):
        return None
    position = next((i for i, element in enumerate(value.elts) if _is_or_wraps(element, node, env)), None)
    if position is None or not (isinstance(target.elts[position], ast.Name) and target.elts[position].id == name):
        return None
    others = [
        *value.elts[:position],
        *value.elts[position + 1 :],
        *target.elts[:position],
        *target.elts[position + 1 :],
    ]
    if any(isinstance(n, ast.Name) and n.id == name for other in others for n in ast.walk(other)):
        return None
    return False


def _is_or_wraps(element: ast.expr, node: ast.Call, env: TypeEnv) -> bool:
    """`element` is `node`, or the legacy `Variable(...)` around it."""
    return element is node or isinstance(element, ast.Call) and unwrapped(element, env.qualname(element.func)) is node


def _moved_or_kept(value: ast.expr | None, node: ast.Call, name: str) -> bool:
    """`node if test else name` (or the mirror), the test free of `name`."""
    if not isinstance(value, ast.IfExp) or mentions(value.test, name):
        return False
    branches = (value.body, value.orelse)
    return any(
        branch is node and isinstance(other, ast.Name) and other.id == name
        for branch, other in (branches, branches[::-1])
    )


def _touched(statement: ast.stmt, cache: dict[int, frozenset[str]]) -> frozenset[str]:
    """The names `statement` reads, binds, deletes or declares (nested functions included)."""
    if id(statement) not in cache:
        names: set[str] = set()
        for sub in ast.walk(statement):
            if isinstance(sub, ast.Name):
                names.add(sub.id)
            elif isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(sub.name)
            elif isinstance(sub, (ast.Global, ast.Nonlocal)):
                names.update(sub.names)
            else:
                names.update(names_bound_by(sub))
        cache[id(statement)] = frozenset(names)
    return cache[id(statement)]


def _moved_factory(node: ast.Call, factory: ast.Call, env: TypeEnv) -> FactoryMove | None:
    """`node` (`.to(d)`, `.cuda()` or `.type(cuda class)`) moves the result of `factory`, a
    torch factory with no device."""
    name = env.qualname(factory.func) or ""
    # a legacy class given a shape (`torch.FloatTensor(4, 256)`) allocates on the host too,
    # but refuses an accelerator's `device=`: reported, with the rewrite only shown
    legacy = name.startswith("torch.") and name[6:] in LEGACY_TENSOR_TYPES and _given_a_shape(factory)
    if not name.startswith("torch.") or name[6:] not in FILLING_FACTORIES and not legacy:
        return None
    if any(k.arg is None or k.arg == "device" for k in factory.keywords):
        return None  # already given a device (or maybe, through `**options`)
    if any(k.arg == "generator" for k in factory.keywords):
        return None  # drawn from a given generator (a CPU one, for reproducible draws): meant
    if node.func.attr == "cuda":  # type: ignore[attr-defined]
        return FactoryMove(node, factory, name[6:], None, plain=not (legacy or node.keywords or node.args))
    if node.func.attr == "type":  # type: ignore[attr-defined]
        placed = type_conversion_place(node, env) == DEVICE
        return FactoryMove(node, factory, name[6:], None, plain=False) if placed else None
    if move_target(node, env) != DEVICE:
        return None
    destination = _single_destination(node)
    # `.to(other)` of a tensor takes its device and its dtype: not a `device=` for the factory
    plain = destination is not None and (bool(node.keywords) or device_place(destination, env) is not None)
    plain = plain and not legacy
    return FactoryMove(node, factory, name[6:], destination_node(node), plain)


def placed_argument(call: ast.Call, ctx: RuleContext) -> ast.expr | None:
    """The argument that `call`, of a helper called by name, returns placed on the device:
    a helper of a project module the file imports (`to_cuda(x)`, `project.Exported.places`),
    or a function of the file that returns one of its parameters moved (`def to_var(x): if
    cuda: x = x.cuda(); return Variable(x)`, also through another such function: `return
    to_var(x.view(n, -1))`) and whose result the evidence puts on the device here."""
    if not isinstance(call.func, ast.Name):
        return None
    if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return None
    helper = ctx.project_function(call)
    if helper is not None:
        if helper.places is None or helper.places >= len(call.args):
            return None
        placed = helper.returned(call.args, ctx.type_of)
        return call.args[helper.places] if placed is not None and placed.place == DEVICE else None
    function = ctx.function_named(call.func.id)
    position = _returned_parameter(function, ctx) if function is not None else None
    if position is None or position >= len(call.args):
        return None
    placed = ctx.type_of(call)
    if placed is None or placed.lib != "torch" or placed.place != DEVICE:
        return None  # a destination that is not known to be the device
    if any(_given_the_host(call, function, name, ctx) for name in _destination_parameters(function)):  # type: ignore[arg-type]
        return None  # `to_dev(x)` of `def to_dev(x, dev="cpu")`
    return call.args[position]


def _destination_parameters(function: FunctionNode) -> set[str]:
    """The parameters `function` hands to `.to(...)` as the place to move to."""
    arguments = function.args
    names = {a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)}
    return {
        given.id
        for node in walk_local(function.body)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "to"
        for given in (*node.args, *(k.value for k in node.keywords if k.arg == "device"))
        if isinstance(given, ast.Name) and given.id in names
    }


def _given_the_host(call: ast.Call, function: FunctionNode, parameter: str, ctx: RuleContext) -> bool:
    """`call` gives `function`'s `parameter` the host, or leaves it to a default that is
    not known to be a device (`dev="cpu"`, `device=None`)."""
    arguments = function.args
    positional = [a.arg for a in (*arguments.posonlyargs, *arguments.args)]
    given = next((k.value for k in call.keywords if k.arg == parameter), None)
    if given is None and parameter in positional and positional.index(parameter) < len(call.args):
        given = call.args[positional.index(parameter)]
    if given is not None:
        return names_the_host(given) or device_place(given, ctx.env) == HOST
    defaults = dict(zip(reversed(positional), reversed(arguments.defaults), strict=False))
    defaults.update(
        (a.arg, d) for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True) if d is not None
    )
    default = defaults.get(parameter)
    return default is not None and device_place(default, ctx.env) != DEVICE


def _returned_parameter(function: FunctionNode, ctx: RuleContext, depth: int = 0) -> int | None:
    """The position of the parameter `function` returns moved (`.cuda()`, `.to(...)`, in
    `Variable(...)`, through layout changes or another such function of the file), on every
    `return` (or rebound to such a move), the parameter only ever rebound to such a move of
    itself; None otherwise. Worked out once per function, depth and scopes the helpers it
    calls are looked up from: every call of a function of the file asks."""
    key = (function, depth, tuple(map(id, ctx.scopes)))
    return ctx.semantic.remember("returned parameter", key, lambda: _find_returned_parameter(function, ctx, depth))


def _find_returned_parameter(function: FunctionNode, ctx: RuleContext, depth: int) -> int | None:
    arguments = function.args
    names = [a.arg for a in (*arguments.posonlyargs, *arguments.args)]
    nodes = list(walk_local(function.body))
    returns = [node.value for node in nodes if isinstance(node, ast.Return)]
    if not returns or any(value is None for value in returns):
        return None
    found = [_moved_parameter(value, ctx, depth) for value in returns]  # type: ignore[arg-type]
    name = found[0][0]
    if name is None or name not in names or any(other != name for other, _ in found):
        return None
    returned_moved = all(was_moved for _, was_moved in found)
    moved = False
    stores = sum(1 for node in nodes for bound in bound_here(node) if bound == name)
    rebinds = [
        node
        for node in nodes
        if isinstance(node, ast.Assign)
        and len(node.targets) == 1
        and isinstance(node.targets[0], ast.Name)
        and node.targets[0].id == name
    ]
    if stores != len(rebinds):
        return None  # bound some other way too (a loop, a tuple, `del`)
    for statement in rebinds:
        again, was_moved = _moved_parameter(statement.value, ctx, depth)
        if again != name:
            return None
        moved = moved or was_moved
    # moved on every `return`, or rebound to its move (`if cuda: x = x.cuda()`, the other path
    # the program's CPU fallback); not `if flag: return x.cuda()` then `return x`
    return names.index(name) if returned_moved or moved else None


def _moved_parameter(value: ast.expr, ctx: RuleContext, depth: int) -> tuple[str | None, bool]:
    """The name under the moves, `Variable(...)`, layout changes and placing functions of
    the file around `value`, and whether one of them moves it."""
    moved = False
    while isinstance(value, ast.Call):
        func = value.func
        inner = unwrapped(value, ctx.qualname(func))
        if inner is not None:
            value = inner
        elif isinstance(func, ast.Attribute) and func.attr in MOVING_METHODS | KEEPING_PLACE_METHODS:
            value, moved = func.value, moved or func.attr in MOVING_METHODS
        elif isinstance(func, ast.Name) and depth < MAX_HELPER_DEPTH:
            function = ctx.function_named(func.id)
            position = _returned_parameter(function, ctx, depth + 1) if function is not None else None
            if position is None or position >= len(value.args) or isinstance(value.args[position], ast.Starred):
                break
            value, moved = value.args[position], True
        else:
            break
    return (value.id if isinstance(value, ast.Name) else None), moved


#: How many placing functions of the file are followed into one another (`flatten` calling
#: `to_var`).
MAX_HELPER_DEPTH = 2


def helper_placed_factory(node: ast.AST, ctx: RuleContext) -> FactoryMove | None:
    """`node` calls, by name, a helper that returns its argument placed on the device
    (`placed_argument`: a project module's `to_cuda(torch.randn(n, k))`, or a function of
    the file), and that argument is a torch factory made on the host (also in a legacy
    `Variable(...)`): the same idiom as `torch.randn(n, k).cuda()`, with the rewrite shown
    (the helper stays)."""
    if not isinstance(node, ast.Call):
        return None
    made = placed_argument(node, ctx)
    if isinstance(made, ast.Call):
        inner = unwrapped(made, ctx.qualname(made.func))
        made = inner if inner is not None else made
    if not isinstance(made, ast.Call):
        return None
    name = ctx.qualname(made.func) or ""
    legacy = name.startswith("torch.") and name[6:] in LEGACY_TENSOR_TYPES and _given_a_shape(made)
    if not name.startswith("torch.") or name[6:] not in FILLING_FACTORIES and not legacy:
        return None
    if any(k.arg is None or k.arg in ("device", "generator") for k in made.keywords):
        return None
    return FactoryMove(node, made, name[6:], None, plain=False)


def _given_a_shape(call: ast.Call) -> bool:
    """A legacy tensor class called with its sizes (`torch.FloatTensor(4, 256)`, `torch.Tensor(3)`),
    not with data: two or more positional sizes (some perhaps unpacked, `(n, k, *shape)`),
    or one literal integer."""
    if call.keywords or any(isinstance(a, (ast.List, ast.Tuple, ast.Set)) for a in call.args):
        return False
    if any(isinstance(a, ast.Starred) for a in call.args):
        return len(call.args) >= 2 and not all(isinstance(a, ast.Starred) for a in call.args)
    if len(call.args) == 1 and _a_size(call.args[0]):
        return True  # `torch.FloatTensor(std.size())`: a `torch.Size`
    return len(call.args) >= 2 or (len(call.args) == 1 and literal_int(call.args[0]) is not None)


def _a_size(node: ast.expr) -> bool:
    """`x.size()` or `x.shape`: a tensor's sizes, never its data."""
    if isinstance(node, ast.Attribute):
        return node.attr == "shape"
    return bare_method_call(node, _SIZE)


_SIZE = frozenset({"size"})


# -- host -> device (GPU302) -------------------------------------------------------------------


#: The methods a copy to the device (`host_to_device`) can be a call of: the rules' `calls`.
TO_DEVICE_METHODS = frozenset(
    {"to", "cuda", "tensor", "as_tensor", "asarray", "array", "from_pandas", "DataFrame", "Series"}
)


def host_to_device(node: ast.AST, env: TypeEnv) -> HostToDevice | None:
    if not isinstance(node, ast.Call):
        return None
    func = node.func
    if isinstance(func, ast.Attribute) and func.attr in ("to", "cuda"):
        if func.attr == "cuda" and (node.keywords or len(node.args) > 1):
            return None
        if func.attr == "to" and move_target(node, env) != DEVICE:
            return None
        if is_device_resident(env.type_of(func.value)):
            return None
        return HostToDevice(node, func.value, "torch")
    name = env.qualname(func) or ""
    if not node.args or isinstance(node.args[0], ast.Starred) or any(k.arg is None for k in node.keywords):
        return None
    moved = node.args[0]
    if name in ("torch.tensor", "torch.as_tensor"):
        device = keyword_value(node, "device")
        if device is None or (device_place(device, env) or DEVICE) != DEVICE or is_device_resident(env.type_of(moved)):
            return None
        return HostToDevice(node, moved, "torch")
    if name in ("cupy.asarray", "cupy.array"):
        ty = env.type_of(moved)
        return None if is_device_resident(ty) else HostToDevice(node, moved, "cupy")
    if name in (
        "cudf.from_pandas",
        "cudf.DataFrame.from_pandas",
        "cudf.Series.from_pandas",
        "cudf.DataFrame",
        "cudf.Series",
    ):
        ty = env.type_of(moved)
        if ty is not None and ty.lib == "pandas" and ty.is_pandas_like:
            return HostToDevice(node, moved, "cudf")
        return None
    return None


# -- what a loop changes -------------------------------------------------------------------------

#: Builtins that never change their arguments.
PURE_BUILTINS = frozenset(
    [
        "len",
        "print",
        "float",
        "int",
        "str",
        "repr",
        "bool",
        "isinstance",
        "range",
        "enumerate",
        "zip",
        "min",
        "max",
        "sum",
        "abs",
        "round",
        "sorted",
        "any",
        "all",
        "tuple",
        "list",
        "dict",
        "set",
        "format",
        "hash",
        "id",
        "type",
        "reversed",
    ]
)
#: Modules whose functions never change their arguments (in-place ones end in `_`, `out=` aside).
PURE_MODULES = ("torch.", "numpy.", "cupy.", "math.", "cudf.", "pandas.")


def call_is_pure(call: ast.Call, env: TypeEnv) -> bool:
    """The callee changes none of its arguments (nor keeps them)."""
    func = call.func
    if any(k.arg == "out" for k in call.keywords):
        return False
    if isinstance(func, ast.Name) and func.id in PURE_BUILTINS and env.is_builtin(func.id):
        return True
    name = env.qualname(func)
    if name is not None:
        return name.startswith(PURE_MODULES) and not name.endswith("_") and ".init." not in name
    if isinstance(func, ast.Attribute):
        return func.attr in PURE_METHODS and not any(
            k.arg == "inplace" and not (isinstance(k.value, ast.Constant) and k.value.value is False)
            for k in call.keywords
        )
    return False


def loop_parts(loop: ast.AST, statement: ast.stmt | None) -> list[ast.AST]:
    """The parts of a loop that run on every iteration (the iterable too: evaluated just
    before the first, it is where a hoisted copy would go)."""
    if isinstance(loop, (ast.For, ast.AsyncFor)):
        return [loop.target, loop.iter, *loop.body, *loop.orelse]
    if isinstance(loop, ast.While):
        return [loop.test, *loop.body, *loop.orelse]
    # a comprehension's generator: the whole comprehension it belongs to
    if statement is not None:
        for node in ast.walk(statement):
            if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)) and any(
                g is loop for g in node.generators
            ):
                return [node]
    return [loop]


#: Methods of a mapping that iterate over its keys, values or entries.
_MAPPING_VIEWS = frozenset({"keys", "values", "items"})
#: Builtins that iterate over what they are given, item by item.
_WRAPPERS = frozenset({"enumerate", "sorted", "reversed", "list", "tuple"})
#: Kinds whose `.items()`/`.values()` run over data, not over a handful of entries.
_DATA_KINDS = frozenset({"frame", "series", "ndframe", "array", "tensor", "output", "groupby", "collection", "reader"})


def small_loop(loop: ast.AST, statement: ast.stmt | None, env: TypeEnv) -> bool:
    """`loop` (a `for` statement or a comprehension's generator) runs over a small fixed
    container, not over data: a literal tuple/list/set/dict, a mapping's `.keys()`,
    `.values()` or `.items()`, a call naming the fields it yields (`data("train_mask",
    "test_mask")`), or the keys of a container it subscripts with them
    (`for k in batch: batch[k] = batch[k].to(d)`). Such a loop handles the parts of one
    item (the tensors of a batch, the entries of a log, the parameters of a model:
    `model.named_parameters()`), so the loop around it is the one that runs per item."""
    iterable = getattr(loop, "iter", None)
    if iterable is None:
        return False
    while (
        isinstance(iterable, ast.Call)
        and isinstance(iterable.func, ast.Name)
        and iterable.func.id in _WRAPPERS
        and env.is_builtin(iterable.func.id)
        and len(iterable.args) == 1
        and not iterable.keywords
    ):
        iterable = iterable.args[0]
    if isinstance(iterable, (ast.Tuple, ast.List, ast.Set)):
        return not any(isinstance(e, ast.Starred) for e in iterable.elts)
    if isinstance(iterable, ast.Dict):
        return None not in iterable.keys
    if bare_method_call(iterable, _MAPPING_VIEWS):
        return not _holds_data(iterable.func.value, env)  # type: ignore[attr-defined]
    if _named_parts(iterable) or _module_tensors(iterable, env):
        return True
    if _zipped_module_tensors(iterable, env):
        return True
    target = getattr(loop, "target", None)
    if isinstance(iterable, ast.Name) and isinstance(target, ast.Name) and not _holds_data(iterable, env):
        # `for k in batch: ... batch[k] ...`: the loop runs over the keys of a mapping
        return any(
            isinstance(sub, ast.Subscript)
            and isinstance(sub.value, ast.Name)
            and sub.value.id == iterable.id
            and isinstance(sub.slice, ast.Name)
            and sub.slice.id == target.id
            for sub in walk_local(loop_parts(loop, statement))
        )
    return False


def _zipped_module_tensors(iterable: ast.expr, env: TypeEnv) -> bool:
    """`zip(net.parameters(), target.parameters())`: two modules' tensors side by side (a
    target network's soft update), not data."""
    return (
        isinstance(iterable, ast.Call)
        and isinstance(iterable.func, ast.Name)
        and iterable.func.id == "zip"
        and env.is_builtin("zip")
        and len(iterable.args) >= 2
        and not iterable.keywords
        and all(_module_tensors(argument, env) for argument in iterable.args)
    )


def _module_tensors(iterable: ast.expr, env: TypeEnv) -> bool:
    """`model.parameters()`, `model.named_parameters()`, `model.buffers()`: the tensors of
    one torch module (a weight or gradient histogram per layer), not data."""
    if not (
        isinstance(iterable, ast.Call)
        and isinstance(iterable.func, ast.Attribute)
        and iterable.func.attr in MODULE_TENSOR_METHODS
        and not iterable.args
    ):
        return False
    receiver = env.type_of(iterable.func.value)
    return receiver is not None and receiver.lib == "torch" and receiver.kind in ("model", "placed")


def _named_parts(iterable: ast.expr) -> bool:
    """A call that names the parts it yields with string literals, and nothing else: PyTorch
    Geometric's `data("train_mask", "val_mask", "test_mask")` yields those three fields."""
    return (
        isinstance(iterable, ast.Call)
        and not iterable.keywords
        and 0 < len(iterable.args) <= _FEW
        and all(isinstance(a, ast.Constant) and isinstance(a.value, str) for a in iterable.args)
    )


#: At most this many named parts make a small loop.
_FEW = 8


def _holds_data(node: ast.expr, env: TypeEnv) -> bool:
    ty = env.type_of(node)
    return ty is not None and ty.kind in _DATA_KINDS


#: Calls a loop-invariant value may be made with: conversions that give the same value
#: every time (`torch.randn` does not, nor does anything unknown).
_CONVERSIONS = frozenset(
    {
        "torch.tensor",
        "torch.as_tensor",
        "torch.from_numpy",
        "numpy.asarray",
        "numpy.array",
        "numpy.ascontiguousarray",
        "cupy.asarray",
        "cupy.array",
        "cudf.from_pandas",
        "cudf.DataFrame.from_pandas",
        "cudf.Series.from_pandas",
        "cudf.DataFrame",
        "cudf.Series",
        "torch.device",
    }
)


def _given_a_list(call: ast.Call) -> bool:
    """`torch.LongTensor([[SOS_token]])`, `torch.Tensor([token] * n)`: a legacy class given a
    list written out, data (a name may hold a size: `torch.FloatTensor(n)` allocates)."""
    first = call.args[0] if len(call.args) == 1 and not call.keywords else None
    if isinstance(first, ast.BinOp) and isinstance(first.op, ast.Mult):
        first = first.left
    return isinstance(first, (ast.List, ast.Tuple))


#: The legacy autograd wrapper, which hands on the tensor it is given.
_VARIABLE = "torch.autograd.Variable"
_CONVERSION_METHODS = frozenset(
    {"to", "cuda", "float", "double", "half", "long", "int", "bool", "contiguous", "astype", "to_numpy"}
)


def reads_only(node: ast.AST, env: TypeEnv) -> set[str] | None:
    """The names `node` reads when it only reads (names, attributes, subscripts, constants)
    and converts (`torch.tensor`, a legacy class given data, `Variable(...)`, `.to(...)`);
    None when it computes or calls anything else."""
    names: set[str] = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name):
            ty = env.lookup(sub.id)
            is_import = ty is not None and ty.kind in ("module", "symbol")
            if not is_import and not (sub.id in PURE_BUILTINS and env.is_builtin(sub.id)):
                names.add(sub.id)
        elif isinstance(sub, ast.Call):
            name = env.qualname(sub.func)
            if name in _CONVERSIONS or name == _VARIABLE:
                continue
            if name and name[:6] == "torch." and name[6:] in LEGACY_TENSOR_TYPES and _given_a_list(sub):
                continue  # `torch.LongTensor([[SOS_token]])`: the data given, as a tensor
            if name is None and isinstance(sub.func, ast.Attribute) and sub.func.attr in _CONVERSION_METHODS:
                continue
            return None
        elif isinstance(
            sub,
            (
                ast.Lambda,
                ast.NamedExpr,
                ast.Await,
                ast.Yield,
                ast.YieldFrom,
                ast.ListComp,
                ast.SetComp,
                ast.DictComp,
                ast.GeneratorExp,
            ),
        ):
            return None
    return names


def runs_another_loop(loop: ast.stmt, ctx: RuleContext) -> bool:
    """`loop` is an outer loop: on every iteration it runs a loop over data the iteration
    did not compute (an epoch loop around its batch loop), written in its body or in a
    function of the file it calls (`train_one_epoch()`). An inner loop over the parts of
    the current item (`for k in batch`, chunks of this iteration's tensor), a small loop,
    or a loop that brings in no data of its own (`_no_data_of_its_own`: an optimizer's
    parameter groups, metric functions) does not count, nor does a loop under an `if`
    (pruning old checkpoints every N steps) or one that ends on its first item (`for x in
    target_loader: ...; break`). Nor does a counted loop (`for _ in
    range(n_critic):`) when `loop` takes a training step of its own on every iteration
    (`_steps_itself`: a GAN's generator step after its critic steps, or an optimizer step
    after gradients accumulated over `for _ in range(accumulate):`): each of its iterations
    is a step. A pass over a loader stays an inner batch loop, whatever follows it (an
    epoch-end regulariser's or full-batch backward)."""
    return _runs_a_data_loop(loop.body, loop, _steps_itself(loop, ctx), bound_by_loop(loop, ctx), ctx)  # type: ignore[attr-defined]


def _runs_a_data_loop(body: list[ast.stmt], loop: ast.stmt, steps: bool, computed: set[str], ctx: RuleContext) -> bool:
    """`runs_another_loop` for the statements `body` of `loop`, or of a small loop in it
    (`for phase in ("train", "val"):` around each phase's batch loop)."""
    for statement in _unconditional_statements(body):
        if isinstance(statement, STATEMENT_LOOPS):
            if small_loop(statement, statement, ctx.env):
                # its labels (`for phase in ("train", "val")`) pick other data (`loaders[phase]`)
                if _runs_a_data_loop(statement.body, loop, steps, computed - _labels(statement, computed), ctx):
                    return True
                continue
            if not (
                _ends_on_its_first_item(statement)
                or _over_this_iteration(statement, computed)
                or _no_data_of_its_own(statement, loop, computed, ctx)
                or steps
                and _counted(statement, ctx)
            ):
                return True
            continue
        for node in walk_local(_own_expressions(statement)):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and _loops_inside(node.func.id, ctx):
                return True
    return False


def _ends_on_its_first_item(inner: ast.stmt) -> bool:
    """`for x, y in target_loader: ...; break`: the loop takes one item, as `next(iter(...))`
    does, and brings no batch loop (a `break` its body always reaches ends the first pass)."""
    body = inner.body  # type: ignore[attr-defined]
    return any(isinstance(statement, ast.Break) for statement in body) and not any(
        isinstance(node, (ast.Continue, *STATEMENT_LOOPS)) for node in walk_local(body)
    )  # not a retry loop around a pass over the data, nor one a `continue` keeps going


def _counted(inner: ast.stmt, ctx: RuleContext) -> bool:
    """`for _ in range(n):`, a loop that repeats its body a number of times (over `range`, the
    builtin), rather than one over a loader or a dataset."""
    return isinstance(inner, (ast.For, ast.AsyncFor)) and _range_call(inner.iter, ctx)


def _steps_itself(loop: ast.stmt, ctx: RuleContext) -> bool:
    """A statement of `loop`'s body that runs on every iteration, outside its inner loops,
    runs a backward pass (`g_loss.backward()`) or steps an optimizer (`_optimizer_step`).
    Kept per loop: every copy in it asks."""

    def steps() -> bool:
        calls = [
            node
            for statement in _unconditional_statements(loop.body)  # type: ignore[attr-defined]
            if not isinstance(statement, STATEMENT_LOOPS)
            for node in walk_local(_own_expressions(statement))
            if isinstance(node, ast.Call)
        ]
        return any(_backward_call(call, ctx) for call in calls) or _optimizer_step(calls)

    return ctx.semantic.remember("steps itself", loop, steps)


def _optimizer_step(calls: list[ast.Call]) -> bool:
    """Among `calls`, an optimizer's step: `step()` and `zero_grad()` on the same receiver
    (`optim.step()`, `optim.zero_grad()`), also through a gradient scaler
    (`scaler.step(optim)`). A loop that steps an optimizer on every iteration around a
    counted loop of backward passes accumulates gradients: each iteration is one step."""
    stepped: set[str] = set()
    cleared: set[str] = set()
    for call in calls:
        func = call.func
        if not isinstance(func, ast.Attribute):
            continue
        if func.attr == "zero_grad":
            cleared.add(ast.unparse(func.value))
        elif func.attr == "step" and not call.keywords and len(call.args) <= 1:
            stepped.add(ast.unparse(call.args[0] if call.args else func.value))
    return not stepped.isdisjoint(cleared)


def _own_expressions(statement: ast.stmt) -> list[ast.AST]:
    """The expressions a statement evaluates itself, not those of the blocks it holds."""
    if isinstance(statement, (ast.With, ast.AsyncWith)):
        return [item.context_expr for item in statement.items]
    if isinstance(statement, ast.If):
        return [statement.test]
    if isinstance(statement, (*TRY_STATEMENTS, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return []
    return [statement]


def _loops_inside(name: str, ctx: RuleContext) -> bool:
    """`name` is a function of the file that loops over data it neither receives nor makes:
    a `for` loop, run whenever it is called, over a name of the module (`for x, y in
    train_loader` in `train_one_epoch()`). A loop over its parameters (`update_ema(params)`,
    `accuracy(output, topk)`) may be over anything, a few parts of one item included. A loop
    over positions (`for i in range(0, size, batch_size)`) counts when its body draws an
    item of a module name at the position (`x = data.get_batch(i)`, `x = dataset[i]`)."""
    function = ctx.function_named(name)
    if function is None:
        return False
    scope = ctx.semantic.scope(function)
    local = set(scope.bindings) if scope is not None else set()
    for statement in _unconditional_statements(function.body):
        if isinstance(statement, (ast.For, ast.AsyncFor)):
            names = _data_names(statement.iter)
            if names and not names & local and not names & _BUILTINS:
                return True
            if _draws_at_position(statement, local | _BUILTINS):
                return True
    return False


def _draws_at_position(loop: ast.For | ast.AsyncFor, local: set[str] | frozenset[str]) -> bool:
    """`loop` runs over a `range` and its body takes an item of a name that is neither local
    nor a builtin at the loop's position: `data.get_batch(i)` or `dataset[i]`."""
    iterable = loop.iter
    while (
        isinstance(iterable, ast.Call)
        and isinstance(iterable.func, ast.Name)
        and iterable.func.id != "range"
        and iterable.args
    ):
        iterable = iterable.args[0]  # `tqdm(range(...))`, `enumerate(range(...))`
    if not (isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) and iterable.func.id == "range"):
        return False
    if not isinstance(loop.target, ast.Name):
        return False
    position = loop.target.id
    for node in walk_local(_unconditional_statements(loop.body)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            source, given = node.func.value, node.args
        elif isinstance(node, ast.Subscript):
            source, given = node.value, [node.slice]
        else:
            continue
        if (
            isinstance(source, ast.Name)
            and source.id not in local
            and any(isinstance(arg, ast.Name) and arg.id == position for arg in given)
        ):
            return True
    return False


def _data_names(iterable: ast.expr) -> set[str]:
    """The names an iterable reads its data from: `loader` in `enumerate(tqdm(loader))`, not
    the functions it calls."""
    names = set()
    stack = [iterable]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Call):
            stack.extend([*node.args, *(k.value for k in node.keywords)])
            if isinstance(node.func, ast.Attribute):
                stack.append(node.func.value)
        elif isinstance(node, ast.Name):
            names.add(node.id)
        else:
            stack.extend(ast.iter_child_nodes(node))
    return names


_BUILTINS = frozenset(dir(builtins))


def _over_this_iteration(inner: ast.stmt, computed: frozenset[str] | set[str]) -> bool:
    """An inner `for` loop over what the current iteration computed (`range(0, len(batch),
    4)`, `t.split(2)`, `batch.items()`): a loop over parts of the item, not over new data."""
    if not isinstance(inner, (ast.For, ast.AsyncFor)):
        return False
    return any(isinstance(n, ast.Name) and n.id in computed for n in ast.walk(inner.iter))


def _labels(loop: ast.For | ast.AsyncFor, computed: set[str]) -> set[str]:
    """The targets of a small loop that take values this iteration did not compute: `phase`
    of `for phase in ("train", "val")` (also `(TRAIN, VAL)`, a dict's keys, through
    `enumerate` or `reversed`), `loader` of `for name, loader in (("train", train_loader), ...)`.
    They pick other data (`loaders[phase]`); targets holding this iteration's values
    (`values` of `for name, values in (("out", out), ...)`) are parts of the item."""
    iterable, target = loop.iter, loop.target
    labels: set[str] = set()
    while isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) and iterable.args:
        if iterable.func.id == "enumerate" and isinstance(target, ast.Tuple) and len(target.elts) == 2:
            labels |= {target.elts[0].id} if isinstance(target.elts[0], ast.Name) else set()
            target = target.elts[1]
        elif iterable.func.id not in _WRAPPERS - {"enumerate"}:
            return labels
        iterable = iterable.args[0]
    rows: list[ast.expr]
    if isinstance(iterable, ast.Dict):
        rows = [key for key in iterable.keys if key is not None]
    elif isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Attribute) and not iterable.args:
        mapping = iterable.func.value
        if not isinstance(mapping, ast.Dict) or iterable.func.attr not in ("keys", "items"):
            return labels
        pairs = [(key, value) for key, value in zip(mapping.keys, mapping.values, strict=True) if key is not None]
        rows = [key if iterable.func.attr == "keys" else ast.Tuple([key, value]) for key, value in pairs]
    elif isinstance(iterable, (ast.Tuple, ast.List, ast.Set)):
        rows = list(iterable.elts)
    else:
        return labels
    if not rows:
        return labels

    def picked(row: ast.expr) -> bool:
        return not any(isinstance(n, ast.Name) and n.id in computed for n in ast.walk(row))

    if isinstance(target, ast.Name):
        return labels | ({target.id} if all(picked(row) for row in rows) else set())
    if isinstance(target, ast.Tuple):
        for position, part in enumerate(target.elts):
            if isinstance(part, ast.Name) and all(
                isinstance(row, ast.Tuple) and len(row.elts) == len(target.elts) and picked(row.elts[position])
                for row in rows
            ):
                labels.add(part.id)
    return labels


def _no_data_of_its_own(inner: ast.stmt, outer: ast.stmt, computed: set[str], ctx: RuleContext) -> bool:
    """An inner `for` loop that brings no new data into the iteration of `outer`, so
    `outer` stays the loop that runs per item:

    - over an optimizer's parameter groups (`for g in optimizer.param_groups: g["lr"] = lr`),
      a handful of dicts of settings;
    - over callables (`for met in self.metric_ftns: update(met.__name__, met(out, y))`):
      every item is called at least once, and otherwise only has attributes read, is a key
      or value of a dict, or has its position used to store into a container
      (`for i, m in enumerate(fns): totals[i] += m(out, y)`); data items are never called;
    - over keys (`for m in metrics: row[m] = log[m][-1]`): every item is used only as a
      key of containers bound to dicts (`{}`, `dict()`, `defaultdict(...)`,
      `OrderedDict()`) or as a key or value of a dict display;
    - `for i in range(n)` whose `i` only indexes what the current iteration of `outer`
      holds, one of them its own item (`for i in range(batch_size): label = target[i]` in
      `for data, target in loader`): the parts of this iteration's batch."""
    if not isinstance(inner, (ast.For, ast.AsyncFor)):
        return False
    iterable, target = inner.iter, inner.target
    if isinstance(iterable, ast.Attribute) and iterable.attr == "param_groups":
        return True
    counter: str | None = None
    if (
        isinstance(target, ast.Tuple)
        and len(target.elts) == 2
        and all(isinstance(e, ast.Name) for e in target.elts)
        and isinstance(iterable, ast.Call)
        and isinstance(iterable.func, ast.Name)
        and iterable.func.id == "enumerate"
        and ctx.env.is_builtin("enumerate")
    ):
        counter, target = target.elts[0].id, target.elts[1]  # type: ignore[attr-defined]
    if not isinstance(target, ast.Name):
        return False
    uses = _uses(inner, target.id)
    counted = _uses(inner, counter) if counter is not None else []
    if not uses or not all(_stores_at(use, ctx) for use in counted):
        return False
    if _range_call(iterable, ctx):
        own = _target_names(outer)
        indexed = [_indexed(use, ctx) for use in uses]
        return all(name is not None and name in computed for name in indexed) and any(name in own for name in indexed)
    called = [use for use in uses if _called(use, ctx)]
    return all(use in called or _keyed(use, ctx) or (bool(called) and _attribute_read(use, ctx)) for use in uses)


def _uses(loop: ast.For | ast.AsyncFor, name: str) -> list[ast.Name]:
    """The reads of `name` in the body of `loop` (nested scopes left out)."""
    return [
        node
        for node in walk_local([*loop.body, *loop.orelse])
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load)
    ]


def _range_call(node: ast.expr, ctx: RuleContext) -> bool:
    """`range(...)`, the builtin."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "range"
        and ctx.env.is_builtin("range")
    )


def _target_names(loop: ast.stmt) -> set[str]:
    """The names a loop's own target binds (none for a `while` loop)."""
    target = getattr(loop, "target", None)
    return {n.id for n in ast.walk(target) if isinstance(n, ast.Name)} if target is not None else set()


def _indexed(use: ast.Name, ctx: RuleContext) -> str | None:
    """The name of what `use` indexes (`target` in `target.data[i]`), or None when `use`
    is not a whole index."""
    parent = ctx.parent(use)
    if isinstance(parent, ast.Subscript) and parent.slice is use:
        return base_name(parent.value)
    return None


def _stores_at(use: ast.Name, ctx: RuleContext) -> bool:
    """`use` is the index of an item stored into (`totals[i] += x`, `out[i] = x`)."""
    parent = ctx.parent(use)
    return isinstance(parent, ast.Subscript) and parent.slice is use and isinstance(parent.ctx, ast.Store)


def _called(use: ast.Name, ctx: RuleContext) -> bool:
    """`use(...)`: the name is called."""
    parent = ctx.parent(use)
    return isinstance(parent, ast.Call) and parent.func is use


def _attribute_read(use: ast.Name, ctx: RuleContext) -> bool:
    """`use.attr` read, not called (`met.__name__`)."""
    parent = ctx.parent(use)
    if not (isinstance(parent, ast.Attribute) and isinstance(parent.ctx, ast.Load)):
        return False
    grand = ctx.parent(parent)
    return not (isinstance(grand, ast.Call) and grand.func is parent)


def _keyed(use: ast.Name, ctx: RuleContext) -> bool:
    """`use` is a key or value of a dict display, or the key of a container bound to a dict."""
    parent = ctx.parent(use)
    if isinstance(parent, ast.Dict):
        return True
    if not (isinstance(parent, ast.Subscript) and parent.slice is use and isinstance(parent.value, ast.Name)):
        return False
    bindings = ctx.bindings(parent.value.id)
    return bool(bindings) and all(_makes_dict(binding, ctx) for binding in bindings)


#: The calls that make an empty or filled dict.
_DICTS = frozenset({"dict", "collections.defaultdict", "collections.OrderedDict"})


def _makes_dict(binding: ast.AST, ctx: RuleContext) -> bool:
    """`binding` assigns a dict display or a dict made by one of `_DICTS`."""
    value = binding.value if isinstance(binding, (ast.Assign, ast.AnnAssign)) else None
    if isinstance(value, (ast.Dict, ast.DictComp)):
        return True
    if not isinstance(value, ast.Call):
        return False
    if isinstance(value.func, ast.Name) and value.func.id == "dict" and ctx.env.is_builtin("dict"):
        return True
    return ctx.qualname(value.func) in _DICTS


def bound_by_loop(loop: ast.AST, ctx: RuleContext) -> set[str]:
    """Names a loop (or a comprehension's generator) binds: its target, and what its body binds."""
    target = loop.target if isinstance(loop, (ast.For, ast.AsyncFor, ast.comprehension)) else None
    # the names and attributes it stores to: `self.step` of `for self.step in range(n)`, not `self`
    stored = (
        n.id if isinstance(n, ast.Name) else ast.unparse(n)
        for n in ast.walk(target)
        if isinstance(n, (ast.Name, ast.Attribute)) and isinstance(n.ctx, ast.Store)
    )
    names = set(stored) if target is not None else set()
    if isinstance(loop, STATEMENT_LOOPS):
        names |= ctx.loop_effects(loop).writes
    return names


def _unconditional_statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements of a body that run whenever it runs: nested `with` and `try` blocks
    included, what an `if`, a `match` or an `except` decides, and nested functions and
    classes, not. A loop there runs on every iteration of the loop around it (an epoch loop
    around its batch loop); a loop under an `if` (pruning old checkpoints every N steps)
    does not make its loop an epoch loop."""
    stack = list(body)
    while stack:
        statement = stack.pop()
        yield statement
        if isinstance(statement, (ast.With, ast.AsyncWith)):
            stack.extend(statement.body)
        elif isinstance(statement, TRY_STATEMENTS):
            stack.extend([*statement.body, *statement.orelse, *statement.finalbody])


# -- an iteration that waits for the device anyway (GPU301, GPU306, GPU307, GPU308) -------


def synchronises(node: ast.AST, ctx: RuleContext) -> bool:
    """`node` is a call that waits for the device: `torch.cuda.synchronize()`, or a torch
    model's `.generate(...)` (transformers' generation tests after each new token whether
    every sequence has stopped, on the host, so it waits for the device once per token).
    The time-series heads' `generate` (`InformerForPrediction`, made in the file) samples
    a fixed number of steps without such a test, so it is not one; nor is the `generate` of
    a module class of the project's own (`GPT(config)`, its class in the file or in a
    project module): the code it runs is the project's, not transformers'."""
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    if isinstance(func, ast.Attribute) and func.attr == "generate":
        receiver = ctx.type_of(func.value)
        return (
            receiver is not None
            and receiver.lib == "torch"
            and receiver.kind in ("model", "placed")
            and not _forecaster(func.value, ctx)
            and not _instance_of_own_class(func.value, ctx)
        )
    return ctx.qualname(func) in SYNCHRONISING_FUNCTIONS


def _instance_of_own_class(model: ast.expr, ctx: RuleContext) -> bool:
    """`model` is bound in the current scope to an instance of a torch module class of the
    project (`model = GPT(config)`, `GPT` a class of the file or of a project module)."""
    if not isinstance(model, ast.Name):
        return False
    bindings = next((found for scope in reversed(ctx.scopes) if (found := ctx.bindings(model.id, scope))), [])
    for binding in bindings:
        value = getattr(binding, "value", None)
        while (  # `GPT(config).to(device)`, `.cuda()`, `.eval()`: the same module
            isinstance(value, ast.Call)
            and isinstance(value.func, ast.Attribute)
            and (value.func.attr in MODEL_TO_MODEL or value.func.attr in ("to", "cuda"))
            and isinstance(value.func.value, ast.Call)
        ):
            value = value.func.value
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Name):
            made = ctx.env.lookup(value.func.id)
            if made is not None and made.kind == "class" and made.lib == "torch":
                return True  # an `nn.Module` subclass of the project's (not a transformers model's)
    return False


def _forecaster(model: ast.expr, ctx: RuleContext) -> bool:
    """`model` is bound in the current scope to a transformers time-series head
    (`InformerForPrediction(config)`, `TimeSeriesTransformerForPrediction.from_pretrained(...)`)."""
    if not isinstance(model, ast.Name):
        return False
    for binding in ctx.bindings(model.id):
        value = getattr(binding, "value", None)
        while isinstance(value, ast.Call):  # `Cls(config)`, `Cls.from_pretrained(...).to(device)`
            name = ctx.qualname(value.func) or ""
            if name.startswith("transformers.") and name.rsplit(".from_pretrained", 1)[0].endswith("ForPrediction"):
                return True
            value = value.func.value if isinstance(value.func, ast.Attribute) else None
    return False


def host_copy_of(node: ast.AST, names: set[str] | frozenset[str]) -> bool:
    """`node` copies a value read from one of `names` to the host: `.item()`, `.tolist()`,
    `.cpu()`, `.numpy()`, or `int()`/`float()`/`bool()`/`complex()` of it."""
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    if isinstance(func, ast.Attribute) and func.attr in HOST_COPY_METHODS:
        return base_name(func.value) in names
    if isinstance(func, ast.Name) and func.id in SCALAR_BUILTINS and len(node.args) == 1:
        return base_name(node.args[0]) in names
    return False


def waits_anyway(
    iteration: ast.AST,
    ctx: RuleContext,
    copied: set[str] | frozenset[str] = frozenset(),
    before: tuple[int, int] | None = None,
) -> bool:
    """One run of `iteration` (a loop, or a comprehension's generator) waits for the device
    anyway, so one more wait in it costs next to nothing:

    - on every iteration it calls something that synchronises (`synchronises`: a model's
      `.generate(...)`, `torch.cuda.synchronize()`), anywhere in its body but under an `if`
      (the generation waits for everything queued before it, and everything after it
      waits for the generation);
    - or, for the values read from `copied`, it has already copied one of them to the host
      (`host_copy_of`) before position `before` (a copy later in the iteration, after
      more work is queued, does not count: the earlier wait stops the host from queuing
      that work while the device catches up)."""
    if isinstance(iteration, STATEMENT_LOOPS) and any(
        synchronises(node, ctx) for node in walk_local(unconditional_expressions(iteration))
    ):
        return True
    if not copied or before is None:
        return False
    return any(
        host_copy_of(node, copied) and (node.end_lineno, node.end_col_offset) <= before  # type: ignore[attr-defined]
        for node in walk_local(loop_parts(iteration, ctx.statement))
    )


def unconditional_expressions(loop: ast.For | ast.AsyncFor | ast.While) -> list[ast.AST]:
    """What a loop evaluates on every iteration, in source order: a `while` loop's test and
    the expressions of the statements of its body that run whenever it runs (in `with` and
    `try` blocks too; what an `if`, a `match` or an `except` decides, not)."""
    own: list[ast.AST] = [loop.test] if isinstance(loop, ast.While) else []
    return own + unconditional_body_expressions(loop.body)


def unconditional_body_expressions(body: list[ast.stmt]) -> list[ast.AST]:
    """The expressions of the statements of `body` that run whenever it runs, in source order."""
    own: list[ast.AST] = []
    for statement in sorted(_unconditional_statements(body), key=lambda s: (s.lineno, s.col_offset)):
        own.extend(_own_expressions(statement))
    return own


#: How many calls deep `trains` follows the file's own functions (`train_step(batch)`).
_TRAINING_DEPTH = 2


def trains(loop: ast.AST, ctx: RuleContext) -> bool:
    """One run of `loop` (a statement loop) runs a backward pass: a `.backward(...)` call
    or `torch.autograd.backward(...)` in its body (under an `if` too: gradient
    accumulation steps back only every N batches), or in a function of the file the body
    calls by name or as a method of the same instance (`loss = train_step(batch)`,
    `self.update(batch)`), followed `_TRAINING_DEPTH` calls deep. A comprehension never does.
    Kept per loop: every copy in a loop asks."""
    if not isinstance(loop, STATEMENT_LOOPS):
        return False
    here = ctx.enclosing_function
    facts = ctx.semantic.functions.get(here) if here is not None else None
    return bool(
        ctx.semantic.remember("trains", loop, lambda: _backward_in(loop.body, ctx, facts, _TRAINING_DEPTH, set()))
    )


def _backward_in(
    body: list[ast.stmt], ctx: RuleContext, facts: FunctionFacts | None, depth: int, seen: set[FunctionNode]
) -> bool:
    callees: list[FunctionNode] = []
    for node in walk_local(body):
        if not isinstance(node, ast.Call):
            continue
        if _backward_call(node, ctx):
            return True
        func = node.func
        if depth and isinstance(func, ast.Name):
            callee = ctx.function_named(func.id)
            if callee is not None:
                callees.append(callee)
        elif (
            depth
            and facts is not None
            and facts.owner is not None
            and isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Name)
            and func.value.id == facts.self_name
        ):
            method = ctx.semantic.method(facts.owner, func.attr)
            if method is not None:
                callees.append(method.node)
    for callee in callees:
        if callee not in seen:
            seen.add(callee)
            if _backward_in(callee.body, ctx, ctx.semantic.functions.get(callee), depth - 1, seen):
                return True
    return False
