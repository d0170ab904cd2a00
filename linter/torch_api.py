"""What gpulint knows about torch: which calls make tensors and modules, and where they live.

A torch value's `place` is DEVICE when it was created or moved with a device that is not a
literal "cpu" (`"cuda"`, `torch.device(d)`, `"cuda" if torch.cuda.is_available() else
"cpu"`), HOST when it is known to be on the CPU, "" when unknown. Calls that copy to the
host (`.cpu()`, `.numpy()`) give host values. Nothing here imports torch.
"""

from __future__ import annotations

import ast
from typing import NamedTuple

from .values import (
    DEVICE,
    HOST,
    LIBRARY_JOINS,
    OTHER,
    TORCH_VALUES,
    Env,
    Kind,
    Ty,
    argument,
    sequence_of,
)

#: `x.to(dtype)`: the value stays where it is.
KEEP = "keep"
#: Device types a string may name (`"cuda"`, `"cuda:1"`, `"mps"`); "cpu" is the host.
_DEVICE_TYPES = frozenset({"cuda", "mps", "xpu", "hip"})
#: The first four characters of such strings: a cheap test before parsing one.
DEVICE_PREFIXES = frozenset({"cpu", "cpu:", "cuda", "mps", "mps:", "xpu", "xpu:", "hip", "hip:"})


class Factory(NamedTuple):
    """What a torch function that creates a tensor does: whether it fills the tensor itself
    (`torch.zeros`) or copies data it is given (`torch.tensor(data)`), draws random numbers,
    takes another tensor's shape and device (`*_like`), and, where the dimensions may be
    given as separate arguments (`torch.zeros(4, 3)`), says so (`shape="*"`). A NamedTuple
    (start-up)."""

    fills: bool
    random: bool = False
    like: bool = False
    shape: str | None = None


#: Elementwise math that torch has both as a function (`torch.sin(x)`) and as a tensor
#: method (`x.sin()`): computed where the tensor is.
ELEMENTWISE_MATH = (
    "sin",
    "cos",
    "tan",
    "atan",
    "sinh",
    "cosh",
    "log1p",
    "expm1",
    "log2",
    "log10",
    "reciprocal",
    "rsqrt",
    "erf",
    "maximum",
    "minimum",
)

_FILLS = Factory(fills=True)
_DIMENSIONS = Factory(fills=True, shape="*")
_DRAWS = Factory(fills=True, random=True)
#: torch functions that create a tensor: on `device=` if given, else on the host (the
#: `*_like` ones and `as_tensor` on their argument's device). The type evidence, size
#: evidence and the transfer rules read this one table.
FACTORIES: dict[str, Factory] = {
    "tensor": Factory(fills=False),
    "as_tensor": Factory(fills=False),
    "from_numpy": Factory(fills=False),
    "zeros": _DIMENSIONS,
    "ones": _DIMENSIONS,
    "empty": _DIMENSIONS,
    "full": _FILLS,
    "rand": Factory(fills=True, random=True, shape="*"),
    "randn": Factory(fills=True, random=True, shape="*"),
    "randint": _DRAWS,
    "randperm": _DRAWS,
    "arange": _FILLS,
    "linspace": _FILLS,
    "logspace": _FILLS,
    "eye": _FILLS,
    "zeros_like": Factory(fills=True, like=True),
    "ones_like": Factory(fills=True, like=True),
    "empty_like": Factory(fills=True, like=True),
    "full_like": Factory(fills=True, like=True),
    "rand_like": Factory(fills=True, random=True, like=True),
    "randn_like": Factory(fills=True, random=True, like=True),
    "randint_like": Factory(fills=True, random=True, like=True),
}
TORCH_FACTORIES = frozenset(FACTORIES)
#: Factories that allocate and fill the tensor themselves given a shape, and take `device=`:
#: given it, they fill on the device with no copy (`rand*` with the device's generator).
#: Not the constructors from data, which build on the host and copy, `device=` or not.
FILLING_FACTORIES = frozenset(name for name, f in FACTORIES.items() if f.fills and not f.like)
RANDOM_FACTORIES = frozenset(name for name, f in FACTORIES.items() if f.random and not f.like)
#: The constructors that build a tensor from data they are given (on the host, then copied).
DATA_CONSTRUCTORS = frozenset(name for name, f in FACTORIES.items() if not f.fills)
#: Factory keywords whose meaning changes when the tensor is made on the device instead of
#: moved there (`requires_grad=True` makes the device tensor the leaf, not the host one).
HOST_ONLY_KEYWORDS = frozenset({"requires_grad", "out", "pin_memory"})
#: Factories that make a tensor in C with no data given: one allocation, filled (the
#: `*_like` ones included).
SYNTHESIZING_FACTORIES = frozenset(name for name, f in FACTORIES.items() if f.fills)
#: torch functions that return one tensor on the device of their tensor arguments (not the
#: ones that return tuples, like `max(x, dim)` or `sort`, nor Python values like `equal`).
TORCH_TENSOR_FUNCTIONS = frozenset(
    [
        "cat",
        "concat",
        "stack",
        "hstack",
        "vstack",
        "matmul",
        "mm",
        "bmm",
        "einsum",
        "sum",
        "mean",
        "prod",
        "std",
        "var",
        "abs",
        "exp",
        "log",
        "sqrt",
        "sigmoid",
        "tanh",
        "relu",
        "softmax",
        "log_softmax",
        "where",
        "clamp",
        "clip",
        "argmax",
        "argmin",
        "any",
        "all",
        "isnan",
        "isinf",
        "isfinite",
        "eq",
        "ne",
        "gt",
        "lt",
        "ge",
        "le",
        "maximum",
        "minimum",
        "cumsum",
        "cumprod",
        "flatten",
        "reshape",
        "squeeze",
        "unsqueeze",
        "transpose",
        "permute",
        "outer",
        "dot",
        "square",
        "pow",
        "round",
        "floor",
        "ceil",
        "sign",
        "neg",
        "logical_and",
        "logical_or",
        "logical_not",
        "count_nonzero",
        "multinomial",
        "histc",
        *ELEMENTWISE_MATH,
    ]
)
#: Tensor methods that return a tensor on the same device (tuple-returning forms excluded).
TENSOR_TO_TENSOR = frozenset(
    [
        "sum",
        "mean",
        "prod",
        "std",
        "var",
        "abs",
        "exp",
        "log",
        "sqrt",
        "pow",
        "sigmoid",
        "tanh",
        "relu",
        "softmax",
        "log_softmax",
        "argmax",
        "argmin",
        "any",
        "all",
        "float",
        "double",
        "half",
        "bfloat16",
        "long",
        "int",
        "short",
        "bool",
        "byte",
        "detach",
        "clone",
        "contiguous",
        "pin_memory",
        "view",
        "view_as",
        "reshape",
        "reshape_as",
        "flatten",
        "squeeze",
        "unsqueeze",
        "t",
        "transpose",
        "permute",
        "expand",
        "expand_as",
        "repeat",
        "flip",
        "eq",
        "ne",
        "gt",
        "lt",
        "ge",
        "le",
        "isnan",
        "isinf",
        "isfinite",
        "norm",
        "round",
        "floor",
        "ceil",
        "clamp",
        "clip",
        "add",
        "sub",
        "mul",
        "div",
        "matmul",
        "mm",
        "bmm",
        "masked_fill",
        "gather",
        "index_select",
        "cumsum",
        "cumprod",
        "diff",
        "neg",
        "sign",
        "logical_not",
        "logical_and",
        "logical_or",
        "nonzero",
        "count_nonzero",
        "square",
        "multinomial",
        "histc",
        *ELEMENTWISE_MATH,
    ]
)
#: Tensor methods and torch functions that return several tensors on the same device: a tuple
#: or a named tuple (`w, v = t.chunk(2)`, `values, indices = t.max(dim=1)`). With arguments,
#: `max`/`min`/`median` may return either one tensor or such a pair: an "output" either way;
#: the others are "placed" (a container of tensors on that device, not a tensor).
TENSOR_TO_TENSORS = frozenset(
    [
        "chunk",
        "split",
        "tensor_split",
        "unbind",
        "hsplit",
        "vsplit",
        "dsplit",
        "topk",
        "sort",
        "kthvalue",
        "mode",
        "aminmax",
    ]
)
_REDUCTIONS_WITH_INDICES = frozenset({"max", "min", "median"})
#: Module methods that return the module itself.
MODEL_TO_MODEL = frozenset(["eval", "train", "float", "double", "half", "bfloat16", "requires_grad_", "zero_grad"])
#: Tensor attributes that are tensors on the same device, and ones that are plain values.
_TENSOR_ATTRIBUTES = frozenset(["T", "mT", "H", "mH", "data", "grad", "real", "imag"])
_PLAIN_ATTRIBUTES = frozenset(
    [
        "shape",
        "dtype",
        "ndim",
        "is_cuda",
        "requires_grad",
        "layout",
        "itemsize",
        "nbytes",
        "training",
        "is_leaf",
        "names",
    ]
)
#: The legacy tensor classes: `torch.FloatTensor(data)` makes a tensor on the host (and
#: refuses any other device), `torch.cuda.FloatTensor(data)` one on the current device.
LEGACY_TENSOR_TYPES = frozenset(
    [
        "Tensor",
        "FloatTensor",
        "DoubleTensor",
        "HalfTensor",
        "BFloat16Tensor",
        "ByteTensor",
        "CharTensor",
        "ShortTensor",
        "IntTensor",
        "LongTensor",
        "BoolTensor",
    ]
)
#: torch functions that return the current device, or an integer device index (a process's
#: rank, which distributed code passes as its device: `x.to(rank)`).
#: The legacy autograd wrapper (`torch.autograd.Variable`): since torch 0.4, `Variable(t)`
#: returns a tensor like `t`, on its device, so evidence passes through it.
LEGACY_WRAPPERS = frozenset({"autograd.Variable", "autograd.variable.Variable"})


def unwrapped(call: ast.Call, qualname: str | None) -> ast.expr | None:
    """The tensor a legacy `Variable(t)` call wraps (`qualname` is the call's function's),
    None for any other call."""
    if qualname is None or not qualname.startswith("torch.") or qualname[len("torch.") :] not in LEGACY_WRAPPERS:
        return None
    if len(call.args) != 1 or isinstance(call.args[0], ast.Starred):
        return None
    return call.args[0]


DEVICE_FUNCTIONS = frozenset(
    [
        "accelerator.current_accelerator",
        "accelerator.current_device_index",
        "cuda.current_device",
        "xpu.current_device",
        "distributed.get_rank",
        "distributed.get_node_local_rank",
    ]
)
#: Module methods that iterate over the module's tensors (`next(m.parameters()).device`).
_MODEL_TENSORS = frozenset({"parameters", "buffers"})
#: Helpers of teaching libraries that pick the devices to use (`from d2l import torch as
#: d2l`): a GPU when there is one, like `torch.device("cuda" if ... else "cpu")`.
DEVICE_HELPERS = {
    "d2l.torch.try_gpu": Ty(Kind.DEVICE, "torch", DEVICE),
    "d2l.torch.try_all_gpus": sequence_of(Ty(Kind.DEVICE, "torch", DEVICE)),
}
#: Module methods that iterate over (name, tensor) pairs.
_NAMED_MODEL_TENSORS = frozenset({"named_parameters", "named_buffers"})
#: Module methods that iterate over the module's own tensors, named or not.
MODULE_TENSOR_METHODS = _MODEL_TENSORS | _NAMED_MODEL_TENSORS
#: Methods torch or Lightning calls once per batch: a module's `forward`, Lightning's steps.
PER_BATCH_METHODS = frozenset({"forward", "training_step", "validation_step", "test_step", "predict_step"})
#: Where Lightning's classes come from (a LightningModule's bases, its Trainer).
LIGHTNING_MODULES = ("lightning.", "pytorch_lightning.")
#: The base of a custom autograd operation, whose `forward` and `backward` run on every call
#: of its `apply` (in a model's `forward`: per batch).
AUTOGRAD_FUNCTIONS = frozenset({"torch.autograd.Function", "torch.autograd.function.Function"})
#: Lightning's `Trainer`, by its qualified names.
LIGHTNING_TRAINERS = frozenset({"lightning.Trainer", "lightning.pytorch.Trainer", "pytorch_lightning.Trainer"})
#: PyTorch-Ignite's engines that move each batch to their `device=`, by their qualified
#: names, with the position of `device` among their parameters.
IGNITE_SUPERVISED_ENGINES = {
    "ignite.engine.create_supervised_trainer": 3,
    "ignite.engine.create_supervised_evaluator": 2,
}
#: A `Trainer`'s methods that take loaders, and its keywords for them.
LIGHTNING_TRAINER_METHODS = frozenset({"fit", "validate", "test", "predict"})
LIGHTNING_LOADER_KEYWORDS = frozenset({"train_dataloaders", "val_dataloaders", "dataloaders", "datamodule"})
#: A LightningModule's (or LightningDataModule's) hooks that hand the trainer its loaders.
LIGHTNING_LOADER_HOOKS = frozenset({"train_dataloader", "val_dataloader", "test_dataloader", "predict_dataloader"})
#: Methods that fill a tensor in place with drawn or constant values.
FILLING_METHODS = frozenset(
    {
        "normal_", "uniform_", "fill_", "zero_", "random_", "bernoulli_", "exponential_",
        "geometric_", "log_normal_", "cauchy_",
    }
)  # fmt: skip
#: Tensor methods that change a tensor in place and return it, where it is
#: (`x_hat.requires_grad_(True)`, `t.add_(1)`, the fills).
IN_PLACE_METHODS = FILLING_METHODS | frozenset(
    {
        "requires_grad_", "add_", "sub_", "mul_", "div_", "pow_", "abs_", "neg_", "exp_", "sqrt_",
        "clamp_", "copy_", "masked_fill_", "detach_", "sigmoid_", "tanh_", "relu_", "squeeze_",
        "unsqueeze_", "t_", "transpose_",
    }
)  # fmt: skip
#: Tensor methods that change a tensor's dtype, shape or layout, or fill it in place, and
#: leave it where it is: `torch.zeros(n).float().to(d)` is still made on the host.
KEEPING_PLACE_METHODS = frozenset(
    {
        "float", "double", "half", "bfloat16", "long", "int", "short", "bool", "byte", "char",
        "reshape", "view", "unsqueeze", "squeeze", "repeat", "expand", "permute", "transpose",
        "t", "contiguous", "flatten", "flip", "triu", "tril", "clone", "detach",
        "requires_grad_", "clamp", "clamp_",
    }
    | FILLING_METHODS  # filled in place (`torch.FloatTensor(n).normal_()`)
)  # fmt: skip
#: Methods called once per item (a dataset's, by a loader or by indexing).
PER_ITEM_METHODS = frozenset({"__getitem__", "__getitems__", "__iter__", "__next__"})
#: Methods that copy a tensor to the host (or hand back a Python value, which needs the
#: device to finish first).
HOST_COPY_METHODS = frozenset({"item", "cpu", "numpy", "tolist"})
TORCH_DTYPES = frozenset(
    [
        "float",
        "float16",
        "float32",
        "float64",
        "bfloat16",
        "half",
        "double",
        "int",
        "int8",
        "int16",
        "int32",
        "int64",
        "long",
        "short",
        "uint8",
        "bool",
        "complex64",
        "complex128",
        "cfloat",
        "cdouble",
    ]
)


def names_the_host(node: ast.expr) -> bool:
    """A string constant naming the host: `"cpu"`, `"cpu:0"`."""
    return isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.split(":")[0] == "cpu"


def device_string_place(text: str) -> str | None:
    """`"cuda:1"` -> DEVICE, `"cpu"` -> HOST, anything else -> None."""
    kind, _, index = text.partition(":")
    if index and not index.isdigit():
        return None
    if kind == "cpu":
        return HOST
    return DEVICE if kind in _DEVICE_TYPES else None


def constant_type(text: str) -> Ty | None:
    """A string constant that names a device (`"cuda:0"`, `"cpu"`) is a device specification."""
    if text[:4] in DEVICE_PREFIXES:
        place = device_string_place(text)
        if place:
            return Ty(Kind.DEVICE, "torch", place)
    return None


def formatted_type(node: ast.JoinedStr) -> Ty | None:
    """`f"cuda:{rank}"` names a device and `f"cpu:{i}"` the host; an f-string that starts
    with anything else (`f"{kind}:{rank}"`) is not known to name either."""
    first = node.values[0] if node.values else None
    if not (isinstance(first, ast.Constant) and isinstance(first.value, str)):
        return None
    if len(node.values) == 1:
        return constant_type(first.value)
    kind, colon, rest = first.value.partition(":")
    if not colon or rest:
        return None
    if kind == "cpu":
        return Ty(Kind.DEVICE, "torch", HOST)
    return Ty(Kind.DEVICE, "torch", DEVICE) if kind in _DEVICE_TYPES else None


def device_index(call: ast.Call, env: Env) -> Ty | None:
    """`int(os.environ["LOCAL_RANK"])` (or of `os.environ.get(...)`, `os.getenv(...)`): an
    integer from the launcher, which distributed code passes as its device index. Typed as a
    device, which matters only where the integer is passed as one (`x.to(local_rank)`): torch
    reads an integer there as an accelerator's index, never as the host."""
    if len(call.args) != 1 or call.keywords:
        return None
    value = call.args[0]
    if isinstance(value, ast.Subscript):
        source = env.qualname(value.value)
    elif isinstance(value, ast.Call):
        source = env.qualname(value.func)
    else:
        return None
    if source in ("os.environ", "os.environ.get", "os.getenv"):
        return Ty(Kind.DEVICE, "torch", DEVICE)
    return None


def _is_index(node: ast.expr) -> bool:
    """A literal device index (`x.to(0)`): an accelerator, never the host."""
    return isinstance(node, ast.Constant) and type(node.value) is int and node.value >= 0


def device_place(node: ast.expr, env: Env) -> str | None:
    """Where a device specification (`"cuda"`, `torch.device(...)`, a name bound to one) points."""
    ty = env.type_of(node)
    return ty.place if ty is not None and ty.kind == "device" else None


#: Autocast context managers whose device type is fixed by their name.
_FIXED_AUTOCASTS = {"torch.cpu.amp.autocast": HOST, "torch.cuda.amp.autocast": DEVICE}
#: Autocast context managers that take the device type as their first argument.
_AUTOCASTS = frozenset({"torch.autocast", "torch.amp.autocast"})


def autocast_place(call: ast.Call, env: Env) -> str | None:
    """Where the code under `with <call>:` runs, when `call` is a torch autocast context:
    `torch.cpu.amp.autocast(...)` and `torch.autocast("cpu")` run it on the host (HOST),
    a CUDA autocast on the device; None for anything else or a device type not written
    out."""
    name = env.qualname(call.func)
    if name in _FIXED_AUTOCASTS:
        return _FIXED_AUTOCASTS[name]
    if name not in _AUTOCASTS:
        return None
    kind = argument(call, "device_type", 0)
    if isinstance(kind, ast.Constant) and isinstance(kind.value, str):
        return device_string_place(kind.value)
    return None


def dtype_symbol(name: str) -> Ty:
    """A torch dtype (`float16`), or any dtype (`dtype`: what a `torch.dtype` annotation promises)."""
    return Ty(Kind.SYMBOL, f"torch.{name}")


def is_dtype(node: ast.expr, env: Env) -> bool:
    """`torch.float16` (however imported), a name bound to one, or `x.dtype`."""
    name = env.qualname(node)
    if name is None:
        ty = env.type_of(node)
        name = ty.lib if ty is not None and ty.kind == "symbol" else None
    if name is not None:
        return name.startswith("torch.") and (name[6:] in TORCH_DTYPES or name == "torch.dtype")
    return isinstance(node, ast.Attribute) and node.attr == "dtype"


def move_target(call: ast.Call, env: Env) -> str | None:
    """Where `x.to(...)` puts `x`: DEVICE or HOST, "keep" (only a dtype or `copy=`), or None.

    A name, attribute or item whose value the file does not show (`x.to(device)` with
    `device` a parameter, `x.to(self.device)`, `x.to(args.device)`) is taken for a device:
    code that moves its values to a device it is given is written for a device, whatever
    the caller picks (the host is its fallback), and dtypes are passed by name far more
    rarely (`x.to(dtype)` with `dtype` bound to `torch.float16` is a dtype: known)."""
    if any(k.arg is None for k in call.keywords) or any(isinstance(a, ast.Starred) for a in call.args):
        return None
    device = argument(call, "device")
    if device is not None:
        return device_place(device, env) or DEVICE  # a device, and not a literal "cpu"
    if not call.args:
        return KEEP
    first = call.args[0]
    place = device_place(first, env)
    if place:
        return place
    if _is_index(first):
        return DEVICE
    ty = env.type_of(first)
    if is_torch_value(ty):  # `x.to(other)`: other's device and dtype
        return ty.place or None  # type: ignore[union-attr]
    if is_dtype(first, env):
        return KEEP
    if ty is None and isinstance(first, (ast.Name, ast.Attribute, ast.Subscript)):
        return DEVICE  # `x.to(device)` of a device the file does not show: see `move_target`
    return None


def moves_to_device(call: ast.Call, env: Env, *, shown: bool = False) -> bool:
    """`call` takes its tensor to the device: `.cuda()`, `.type(cuda class)`, `.to(d)` where
    `move_target` puts it there. With `shown`, `.to(d)` only where the file shows `d` is a
    device: an unknown `d`, which `move_target` takes for one, may be a dtype."""
    method = call.func.attr if isinstance(call.func, ast.Attribute) else None
    if method == "cuda":
        return True
    if method == "type":
        return type_conversion_place(call, env) == DEVICE
    if method != "to":
        return False
    if not shown:
        return move_target(call, env) == DEVICE
    given = argument(call, "device") or (call.args[0] if call.args else None)
    return given is not None and device_place(given, env) == DEVICE


def is_torch_value(ty: Ty | None) -> bool:
    """A tensor, a module's output or something moved to a device."""
    return ty is not None and ty.lib == "torch" and ty.kind in TORCH_VALUES


def on_the_device(ty: Ty | None) -> bool:
    """A torch value (`is_torch_value`) on the device."""
    return is_torch_value(ty) and ty.place == DEVICE  # type: ignore[union-attr]


def given_the_device(call: ast.Call, env: Env) -> bool:
    """One of the call's arguments (or an item of a list or tuple it is given) is a torch
    value on the device: torch computes where its inputs are."""
    return any(on_the_device(ty) for ty in argument_types(call, env))


def _combined_place(types: list[Ty | None]) -> str:
    """Torch computes on the device of its tensor operands."""
    places = [
        ty.place for ty in types if ty is not None and (is_torch_value(ty) or ty.kind == "model" and ty.lib == "torch")
    ]
    if DEVICE in places:
        return DEVICE
    return HOST if places and all(place == HOST for place in places) else ""


def arith(left: Ty | None, right: Ty | None, comparison: bool = False) -> Ty:
    """An operator on a tensor gives a tensor on its device. Between placed values only (the
    fields of a placed batch, which may hold Python tuples or numbers) it gives a placed
    value: `size + crop` of two tuples is a tuple; a comparison is taken for a tensor's
    (`labels[j] == 1` on a batch moved to the device)."""
    tensor = comparison or any(ty is not None and ty.kind in ("tensor", "output") for ty in (left, right))
    return Ty(Kind.TENSOR if tensor else Kind.PLACED, "torch", _combined_place([left, right]))


def element_type(ty: Ty) -> Ty | None:
    """Iterating a tensor (or a module's output) yields rows on the same device; iterating
    something placed (a batch, a loader that places its batches, a module's parameters)
    yields placed values on the same device."""
    return ty if ty.kind in TORCH_VALUES else None


def argument_types(call: ast.Call, env: Env) -> list[Ty | None]:
    """The types of a call's arguments, and of the items of lists and tuples passed to it
    (`torch.stack(xs)` of a list filled with tensors: of its elements)."""
    types: list[Ty | None] = []
    for value in [*call.args, *(k.value for k in call.keywords)]:
        if isinstance(value, ast.Starred):
            value = value.value
        if isinstance(value, (ast.List, ast.Tuple)):
            types.extend(env.type_of(e) for e in value.elts if not isinstance(e, ast.Starred))
        else:
            ty = env.type_of(value)
            types.append(ty.items[0] if ty is not None and ty.kind == "sequence" else ty)
    return types


#: The attributes of a torchtext batch that are not its fields.
_BATCH_PLAIN_ATTRIBUTES = frozenset({"batch_size", "dataset", "fields", "input_fields", "target_fields"})
#: torchtext's legacy batch iterators (`torchtext.data`, later `torchtext.legacy.data`):
#: given `device=`, every field of every batch they yield is a tensor made there.
_TORCHTEXT_ITERATORS = frozenset(
    f"torchtext.{package}.{name}"
    for package in ("data", "data.iterator", "legacy.data", "legacy.data.iterator")
    for name in ("Iterator", "BucketIterator", "BPTTIterator")
)


def torchtext_iterator_type(qualname: str, call: ast.Call | None, env: Env | None) -> Ty | None:
    """`BucketIterator(data, batch_size=64, device=device)` and `BucketIterator.splits((train,
    valid, test), ..., device=device)`: batches whose fields (`batch.src`, `batch.text`) are
    on that device. A batch is typed as a module's output is: its fields are tensors where it
    is. Without `device=`, or with one that is not a device, nothing is known."""
    splits = qualname.endswith(".splits")
    if (qualname.rsplit(".", 1)[0] if splits else qualname) not in _TORCHTEXT_ITERATORS:
        return None
    given = argument(call, "device") if call is not None else None
    if given is None or env is None or device_place(given, env) != DEVICE:
        return None
    batches = sequence_of(Ty(Kind.OUTPUT, "torch", DEVICE))
    if not splits:
        return batches
    datasets = call.args[0] if call is not None and call.args else None
    if not isinstance(datasets, (ast.Tuple, ast.List)) or any(isinstance(e, ast.Starred) for e in datasets.elts):
        return None
    return Ty(Kind.TUPLE, items=tuple(batches for _ in datasets.elts))


def constructed_type(attr: str, call: ast.Call | None, env: Env | None) -> Ty | None:
    """`torch.<attr>(...)` (or the annotation `torch.<attr>` when `call` is None)."""
    if attr == "device":
        if call is None or env is None or not call.args:
            return Ty(Kind.DEVICE, "torch", DEVICE)
        first = call.args[0]
        return Ty(Kind.DEVICE, "torch", device_place(first, env) or DEVICE)
    if attr in DEVICE_FUNCTIONS and call is not None:
        return Ty(Kind.DEVICE, "torch", DEVICE)
    if (attr in LEGACY_TENSOR_TYPES or attr in ("nn.Module", "nn.Parameter")) and call is None:
        return Ty(Kind.MODEL if attr == "nn.Module" else Kind.TENSOR, "torch")
    if attr.startswith("nn.functional."):
        return Ty(Kind.TENSOR, "torch", _combined_place(argument_types(call, env)) if call and env else "")
    if attr.startswith("nn.") and attr.rsplit(".", 1)[-1][:1].isupper():
        return Ty(Kind.MODEL, "torch") if attr != "nn.Parameter" else Ty(Kind.TENSOR, "torch")
    if call is None or env is None:
        return None
    if attr in LEGACY_WRAPPERS:
        wrapped = unwrapped(call, f"torch.{attr}")
        source = env.type_of(wrapped) if wrapped is not None else None
        return Ty(Kind.TENSOR, "torch", source.place if is_torch_value(source) else "")  # type: ignore[union-attr]
    if attr in LEGACY_TENSOR_TYPES:
        return Ty(Kind.TENSOR, "torch", _legacy_place(call, env))
    if attr.startswith("cuda.") and attr[5:] in LEGACY_TENSOR_TYPES:
        return Ty(Kind.TENSOR, "torch", DEVICE)
    if attr in TORCH_FACTORIES:
        if any(k.arg is None for k in call.keywords):
            return Ty(Kind.TENSOR, "torch")
        device = argument(call, "device")
        if device is not None:
            return Ty(Kind.TENSOR, "torch", device_place(device, env) or DEVICE)
        if attr.endswith("_like") or attr == "as_tensor":
            source = env.type_of(call.args[0]) if call.args and not isinstance(call.args[0], ast.Starred) else None
            if is_torch_value(source):
                return Ty(Kind.TENSOR, "torch", source.place)  # type: ignore[union-attr]
            return Ty(Kind.TENSOR, "torch", HOST if attr == "as_tensor" and source is not None else "")
        return Ty(Kind.TENSOR, "torch", HOST)
    if attr in TORCH_TENSOR_FUNCTIONS or attr in ("max", "min") and len(call.args) == 1 and not call.keywords:
        return Ty(Kind.TENSOR, "torch", _combined_place(argument_types(call, env)))
    if attr in TENSOR_TO_TENSORS:  # a tuple of tensors: iterating it yields whole tensors
        return Ty(Kind.PLACED, "torch", _combined_place(argument_types(call, env)))
    if attr == "autograd.grad":
        return _gradients_type(call, env)
    if attr in _REDUCTIONS_WITH_INDICES:
        return Ty(Kind.OUTPUT, "torch", _combined_place(argument_types(call, env)))
    return None


def _gradients_type(call: ast.Call, env: Env) -> Ty:
    """`torch.autograd.grad(outputs, inputs, ...)`: the gradients, one per input, where the
    inputs are."""
    inputs = argument(call, "inputs") or (call.args[1] if len(call.args) > 1 else None)
    if inputs is None or isinstance(inputs, ast.Starred):
        return Ty(Kind.PLACED, "torch")
    elements = inputs.elts if isinstance(inputs, (ast.List, ast.Tuple)) else [inputs]
    return Ty(Kind.PLACED, "torch", _combined_place([env.type_of(e) for e in elements]))


def legacy_class(qualname: str | None) -> Ty | None:
    """`torch.cuda.FloatTensor` or `torch.FloatTensor` named, not called: the class, as a
    symbol (`Tensor = torch.cuda.FloatTensor if cuda else torch.FloatTensor`)."""
    if qualname is None or not qualname.startswith("torch."):
        return None
    attr = qualname[len("torch.") :]
    if attr.removeprefix("cuda.") in LEGACY_TENSOR_TYPES:
        return Ty(Kind.SYMBOL, qualname)
    return None


def legacy_class_place(ty: Ty | None) -> str | None:
    """Where a legacy tensor class puts what it makes: the device for `torch.cuda.*`, the
    host for `torch.*`; None for anything else."""
    if ty is None or ty.kind != "symbol" or legacy_class(ty.lib) is None:
        return None
    return DEVICE if ty.lib.startswith("torch.cuda.") else HOST


def _join_legacy_classes(a: Ty, b: Ty) -> Ty | None:
    """Two branches bound legacy tensor classes (`torch.cuda.FloatTensor if cuda else
    torch.FloatTensor`): the device one, as two branches that place a value do."""
    places = (legacy_class_place(a), legacy_class_place(b))
    if None in places:
        return None
    return a if places[0] == DEVICE else b


LIBRARY_JOINS.append(_join_legacy_classes)


#: The methods that move a tensor to a device: `.to(d)`, `.cuda()`, a conversion to a
#: legacy device class (`.type(torch.cuda.FloatTensor)`), and `.type_as(other)`, which takes
#: `other`'s dtype and device (`torch.zeros(n).type_as(x)` follows `x` to the device).
MOVING_METHODS = frozenset({"to", "cuda", "type", "type_as"})
#: In-place methods that write values at given places of a tensor and leave it where it is
#: (`torch.zeros(n, k).scatter_(1, labels, 1)`: a one-hot block built on the host).
SCATTERING_METHODS = frozenset({"scatter_", "scatter_add_", "index_fill_", "masked_fill_", "index_add_", "index_put_"})


def type_conversion_place(call: ast.Call, env: Env) -> str | None:
    """`x.type(torch.cuda.FloatTensor)` (or a name bound to one, or the class's name as a
    string): where the tensor is converted and placed, where that class makes tensors; None
    when the argument is not a legacy class. The class may be given as `dtype=`, and the
    copy may be asked not to block (`non_blocking=True`): the place is the same."""
    keywords = {k.arg: k.value for k in call.keywords}
    if None in keywords or not set(keywords) <= {"dtype", "non_blocking"}:
        return None
    given_as = [*call.args, *([keywords["dtype"]] if "dtype" in keywords else [])]
    if len(given_as) != 1 or isinstance(given_as[0], ast.Starred):
        return None
    given = given_as[0]
    if isinstance(given, ast.Constant) and isinstance(given.value, str):
        return legacy_class_place(legacy_class(given.value))
    return legacy_class_place(env.type_of(given))


def _legacy_place(call: ast.Call, env: Env) -> str:
    """`torch.FloatTensor([1, 2])` or `torch.Tensor(2, 3)` is made on the host; given a
    tensor, a legacy class wraps it where it is, so one argument of unknown type may be
    either (unless another library's function made it: `Tensor(to_rgba("C0"))`)."""
    if len(call.args) == 1 and not isinstance(call.args[0], ast.Starred):
        given = call.args[0]
        ty = env.type_of(given)
        if is_torch_value(ty):
            return ""
        if ty is None:
            maker = env.qualname(given.func) if isinstance(given, ast.Call) else None
            return HOST if maker is not None and not maker.startswith("torch.") else ""
    return HOST


def call_type(callee: Ty, call: ast.Call, env: Env) -> Ty:
    """Calling a module (or a class of the file that subclasses `nn.Module`)."""
    if callee.kind == "class":
        return Ty(Kind.MODEL, "torch")
    return Ty(Kind.OUTPUT, "torch", DEVICE if callee.place == DEVICE else _combined_place(argument_types(call, env)))


def moved_type(method: str, call: ast.Call, env: Env) -> Ty | None:
    """`x.to(device)` / `x.cuda()` on a value of unknown type: a tensor, a module or a batch
    of them, now on that device. `x.parameters()` (which only a module has): its tensors,
    wherever the module is. `x.eq(y)` of a tensor `y` on the device: a tensor there."""
    if method in _MODEL_TENSORS and not call.args and not call.keywords:
        return Ty(Kind.PLACED, "torch")
    if method in _NAMED_MODEL_TENSORS:
        return _named_tensors("")
    if method == "cuda" and not call.keywords and len(call.args) <= 1:
        return Ty(Kind.PLACED, "torch", DEVICE)
    if method == "type":
        place = type_conversion_place(call, env)
        return Ty(Kind.TENSOR, "torch", place) if place is not None else None
    if method == "to":
        target = move_target(call, env)
        if target in (DEVICE, HOST):
            return Ty(Kind.PLACED, "torch", target)
    if method == "type_as" and len(call.args) == 1 and not call.keywords:
        target = move_target(call, env)
        if target in (DEVICE, HOST):
            return Ty(Kind.TENSOR, "torch", target)
    if (
        method in _WITH_A_TENSOR
        and len(call.args) == 1
        and not call.keywords
        and on_the_device(env.type_of(call.args[0]))
    ):
        return Ty(Kind.TENSOR, "torch", DEVICE)
    return None


#: Tensor methods of two tensors (`p.argmax(1).eq(y)`): given a tensor on the device, the
#: receiver is a tensor there too (or a number's 0-dim tensor) and so is the result.
_WITH_A_TENSOR = frozenset({"eq", "ne", "gt", "lt", "ge", "le", "mul", "div", "sub", "matmul", "mm", "bmm", "dot"})


def _named_tensors(place: str) -> Ty:
    """What `m.named_parameters()` iterates over: (name, tensor) pairs, the tensors where the
    module is."""
    return sequence_of(Ty(Kind.TUPLE, items=(OTHER, Ty(Kind.PLACED, "torch", place))))


def method_type(receiver: Ty, method: str, call: ast.Call, env: Env) -> Ty | None:
    """`receiver.<method>(...)` on a torch value."""
    kind, place = receiver.kind, receiver.place
    if kind not in ("tensor", "placed", "output", "model"):
        return None
    if method == "to":
        target = move_target(call, env)
        return Ty(kind, "torch", place if target == KEEP else target or "")
    if method == "type_as" and kind != "model" and len(call.args) == 1 and not call.keywords:
        return Ty(Kind.TENSOR, "torch", move_target(call, env) or place)  # where `other` is
    if method in ("cuda", "cpu"):
        return Ty(kind, "torch", DEVICE if method == "cuda" else HOST)
    if method == "type" and kind != "model":
        converted_to = type_conversion_place(call, env)
        if converted_to is not None:
            return Ty(Kind.TENSOR, "torch", converted_to)
        if len(call.args) == 1 and not call.keywords and is_dtype(call.args[0], env):
            return Ty(Kind.TENSOR, "torch", place)  # `pe.type(dtype)`: converted where it is
    if method in _MODEL_TENSORS and kind in ("model", "placed"):
        return Ty(Kind.PLACED, "torch", place)  # the module's tensors: iterating yields them
    if method in _NAMED_MODEL_TENSORS and kind in ("model", "placed"):
        return _named_tensors(place)
    part = _part_of_module(receiver, method, call, env)
    if part is not None:
        return part
    if kind == "model":
        if method == "generate":  # a transformers model's: token ids (or an output with `.sequences`)
            # computed where the inputs are: a module made on the host and given device
            # tensors was moved by code the file does not show (a trainer of the project)
            return Ty(Kind.OUTPUT, "torch", _combined_place([receiver, *argument_types(call, env)]) or place)
        return receiver if method in MODEL_TO_MODEL else None
    if method in ("item", "tolist"):
        return OTHER
    if method == "numpy":
        return Ty(Kind.ARRAY, "numpy")
    if method in IN_PLACE_METHODS:
        return receiver  # changed in place and returned as it was: a tensor, or what may be a module
    if method in TENSOR_TO_TENSOR or method in ("max", "min") and not call.args and not call.keywords:
        return Ty(Kind.TENSOR, "torch", place)
    if method in TENSOR_TO_TENSORS:  # a tuple of tensors: iterating it yields whole tensors
        return Ty(Kind.PLACED, "torch", place)
    if method in _REDUCTIONS_WITH_INDICES:
        return Ty(Kind.OUTPUT, "torch", place)
    return None


#: Methods a tensor given another tensor answers with a Python bool, not a tensor.
_TENSOR_PREDICATES = frozenset(["equal", "allclose", "is_set_to", "is_same_size"])
#: Methods whose results the other branches of `method_type` know, and module methods that
#: give no computed tensor (`load_state_dict`, `register_buffer`).
_KNOWN_METHODS = (
    TENSOR_TO_TENSOR
    | IN_PLACE_METHODS
    | TENSOR_TO_TENSORS
    | MODEL_TO_MODEL
    | _MODEL_TENSORS
    | _NAMED_MODEL_TENSORS
    | _REDUCTIONS_WITH_INDICES
    | _TENSOR_PREDICATES
    | {"to", "cuda", "cpu", "type", "item", "tolist", "numpy", "generate", "backward", "register_hook"}
    | {"load_state_dict", "state_dict", "apply", "register_buffer", "register_parameter", "add_module"}
)


def part_of_module_call(receiver: Ty, method: str) -> bool:
    """`receiver.<method>(...)` may call a part of a module: a name no tensor or module
    method has, on a module or on something placed on a device."""
    return receiver.lib == "torch" and receiver.kind in ("model", "placed") and method not in _KNOWN_METHODS


def _part_of_module(receiver: Ty, method: str, call: ast.Call, env: Env) -> Ty | None:
    """`self.model.D(images)`, `vae.encode(x)`: a sub-module or a method of a module (or of a
    value moved to a device, which may be one) called with tensors computes where they and
    the module are. Only a name no tensor or module method has, and only given a tensor: a
    tensor's own `x.numel()` or `x.size(0)` is a number."""
    if not part_of_module_call(receiver, method):
        return None
    arguments = argument_types(call, env)
    if not any(is_torch_value(ty) for ty in arguments):
        return None
    return Ty(Kind.OUTPUT, "torch", _combined_place([receiver, *arguments]))


def attribute_type(receiver: Ty, attr: str) -> Ty | None:
    """`receiver.<attr>` on a torch value; `torch.float16` is the dtype's symbol, so a name
    bound to it (`dtype = torch.float16`) is known for one."""
    kind, place = receiver.kind, receiver.place
    if kind == "module" and receiver.lib == "torch" and attr in TORCH_DTYPES:
        return dtype_symbol(attr)
    if kind == "device" and attr == "type":
        return receiver  # `device.type`: "cuda", "mps" or "cpu", naming the same kind of device
    if kind not in ("tensor", "placed", "output", "model"):
        return None
    if attr == "device":
        # where the value lives (a transformers model has `.device` too): a device that is
        # not known to be the host is, like `torch.device(name)`, not a literal "cpu"
        return Ty(Kind.DEVICE, "torch", place or DEVICE)
    if attr in _PLAIN_ATTRIBUTES:
        return OTHER
    if attr in _TENSOR_ATTRIBUTES and kind != "model" or kind == "model" and attr in ("weight", "bias"):
        return Ty(Kind.TENSOR, "torch", place)
    if kind == "output" and attr in _BATCH_PLAIN_ATTRIBUTES:
        return OTHER  # a torchtext batch's size and dataset, not tensors
    # a field of what a module returned (`outputs.loss`, `outputs.logits`) is on its device
    return Ty(Kind.OUTPUT, "torch", place) if kind == "output" else None


def subscript_type(receiver: Ty) -> Ty | None:
    """An element, a slice or a field of a tensor is on the same device."""
    return receiver if receiver.kind in TORCH_VALUES else None


def is_module_class(qualname: str | None, base: Ty | None) -> bool:
    """A class base that makes a class an `nn.Module`: `torch.nn.<X>`, or a class of the
    file that already is one."""
    return qualname is not None and qualname.startswith("torch.nn.") or base == Ty(Kind.CLASS, "torch")


TENSOR_GROWERS = frozenset(["cat", "concat", "concatenate", "stack", "vstack", "hstack"])

#: Methods that neither change their receiver nor keep their arguments (tensors, arrays,
#: frames and Python containers alike).
PURE_METHODS = frozenset(
    [
        "to",
        "cuda",
        "cpu",
        "float",
        "double",
        "half",
        "bfloat16",
        "long",
        "int",
        "short",
        "bool",
        "byte",
        "sum",
        "mean",
        "prod",
        "std",
        "var",
        "max",
        "min",
        "argmax",
        "argmin",
        "abs",
        "exp",
        "log",
        "sqrt",
        "pow",
        "matmul",
        "mm",
        "bmm",
        "dot",
        "t",
        "transpose",
        "permute",
        "reshape",
        "view",
        "view_as",
        "flatten",
        "squeeze",
        "unsqueeze",
        "clone",
        "detach",
        "item",
        "tolist",
        "numpy",
        "size",
        "dim",
        "numel",
        "contiguous",
        "softmax",
        "log_softmax",
        "sigmoid",
        "tanh",
        "relu",
        "eq",
        "ne",
        "gt",
        "lt",
        "ge",
        "le",
        "any",
        "all",
        "norm",
        "round",
        "clamp",
        "clip",
        "astype",
        "copy",
        "get",
        "keys",
        "values",
        "items",
        "to_numpy",
        "to_pandas",
        "equal",
        "allclose",
        "isnan",
        "isinf",
        "isfinite",
        "cumsum",
        "cumprod",
        "diff",
        "type",
        "type_as",
        "expand",
        "expand_as",
        "repeat",
        "index_select",
        "gather",
        "add",
        "sub",
        "mul",
        "div",
        "neg",
        "sign",
        "square",
        "count_nonzero",
        "nonzero",
        "count",
        "index",
        "startswith",
        "endswith",
        "format",
    ]
)

#: Of those, the ones whose result never shares memory with the receiver.
FRESH_METHODS = frozenset(
    [
        "sum",
        "mean",
        "prod",
        "std",
        "var",
        "max",
        "min",
        "argmax",
        "argmin",
        "abs",
        "exp",
        "log",
        "sqrt",
        "pow",
        "matmul",
        "mm",
        "bmm",
        "dot",
        "item",
        "tolist",
        "softmax",
        "log_softmax",
        "sigmoid",
        "tanh",
        "relu",
        "eq",
        "ne",
        "gt",
        "lt",
        "ge",
        "le",
        "any",
        "all",
        "norm",
        "round",
        "clamp",
        "clip",
        "equal",
        "allclose",
        "isnan",
        "isinf",
        "isfinite",
        "cumsum",
        "cumprod",
        "diff",
        "add",
        "sub",
        "mul",
        "div",
        "neg",
        "sign",
        "square",
        "count_nonzero",
        "gather",
        "index_select",
    ]
)

#: Functions that wait for every queued kernel.
SYNCHRONISING_FUNCTIONS = frozenset(
    {
        "torch.cuda.synchronize",
        "torch.accelerator.synchronize",
        "torch.mps.synchronize",
        "torch.xpu.synchronize",
    }
)

#: Methods that run a backward pass: `loss.backward()`, `scaler.scale(loss).backward()`,
#: `accelerator.backward(loss)`, Lightning's `self.manual_backward(loss)`.
BACKWARD_METHODS = frozenset({"backward", "manual_backward"})
