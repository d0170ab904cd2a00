"""What gpulint knows about libraries that place data on a device for you: Hugging Face
accelerate's `Accelerator`, Lightning's `Fabric`, and transformers' models and pipelines.

An `Accelerator` and a `pipeline` are `Kind.PLACER` values: `lib` names which one, `place`
where it puts what it is given. For an `Accelerator`, DEVICE unless it was made with
`cpu=True` (HOST; a `cpu=` option the file does not show is the program's fallback, and
the device its run) or may not place anything (`device_placement=False` or an option that
is not a literal: ""); its `.device` is the host only for `cpu=True`. For a pipeline, the place its
`device=`/`device_map=` names ("" when it names none the code shows).

A `Fabric` is a placer too (`lib` FABRIC): on the device unless made with
`accelerator="cpu"`; `setup` and `setup_module` return the module (and optimizers) moved
there, `setup_dataloaders` loaders whose batches it moves, `to_device` what it is given,
moved. An `Accelerator` or a `Fabric` a function is given (an annotated parameter) places on
the device: code written for the device it is handed is device code, the host its fallback.

A transformers model is a torch `Kind.MODEL`: `from_pretrained(..., device_map=...)` places
it (any device map but a literal "cpu"), `from_pretrained(...)` without one loads it on the
host. A diffusers pipeline (`StableDiffusionPipeline.from_pretrained(...)`) is a placer too:
`.to(device)` moves its models, but calling it returns images or arrays on the host unless
`output_type` asks for tensors, so it is never a torch module whose outputs stay on the
device. Nothing here imports accelerate, transformers or diffusers.
"""

from __future__ import annotations

import ast

from . import torch_api
from .values import DEVICE, HOST, OTHER, Env, Kind, Ty, argument, has_unpacking

#: Qualified-name prefixes this module knows something about.
PREFIXES = ("accelerate.", "transformers.", "diffusers.", "lightning.", "lightning_fabric.")

ACCELERATOR = "accelerate.Accelerator"
FABRIC = "lightning.Fabric"
_FABRICS = frozenset({"lightning.Fabric", "lightning.fabric.Fabric", "lightning_fabric.Fabric"})
#: Fabric methods that return their arguments moved to its device (one, or a tuple of them).
_FABRIC_SETUPS = frozenset({"setup", "setup_module", "setup_dataloaders", "to_device"})
PIPELINE = "transformers.pipeline"
DIFFUSION_PIPELINE = "diffusers.DiffusionPipeline"
#: How a diffusers pipeline is loaded.
_PIPELINE_LOADERS = frozenset({"from_pretrained", "from_pipe", "from_single_file"})
#: `PartialState` is the process state an `Accelerator` keeps (`state.device`); it prepares nothing.
_ACCELERATORS = frozenset(
    {
        "accelerate.Accelerator",
        "accelerate.accelerator.Accelerator",
        "accelerate.PartialState",
        "accelerate.state.PartialState",
    }
)
_PIPELINES = frozenset({"transformers.pipeline", "transformers.pipelines.pipeline"})
#: Accelerator methods that return their (tensor) argument gathered or reduced across
#: processes, on the accelerator's device (`gather_object` returns Python objects).
_GATHERS = frozenset({"gather", "gather_for_metrics", "reduce", "pad_across_processes"})
#: Device maps that keep every weight off the accelerators.
_HOST_MAP_VALUES = frozenset({"cpu", "disk"})

#: A transformers `Trainer` (or a subclass of trl's, all of which derive from it): its
#: `__init__` makes an `Accelerator` (`self.accelerator`) and moves the model to its device.
TRAINER = "transformers.Trainer"
_TRAINERS = frozenset(
    {
        "transformers.Trainer",
        "transformers.Seq2SeqTrainer",
        "transformers.trainer.Trainer",
        "transformers.trainer_seq2seq.Seq2SeqTrainer",
    }
)
#: The hooks a `Trainer` calls once per training or evaluation step, with the model and the
#: step's batch (already moved to the device) as the two parameters after the instance.
TRAINER_STEPS = frozenset({"compute_loss", "training_step", "prediction_step"})


def is_trainer(qualname: str) -> bool:
    """A transformers `Trainer` class, or one of trl's (`trl.SFTTrainer`, `trl.DPOTrainer`)."""
    return qualname in _TRAINERS or qualname.startswith("trl.") and qualname.endswith("Trainer")


def overrides_compute_loss(node: ast.ClassDef) -> bool:
    """The class defines the `Trainer` hook `compute_loss(self, model, inputs,
    return_outputs=False, ...)`: the signature transformers calls it with, which a class
    derived from a trainer of the project (`class KTOTrainer(_BaseTrainer)`) shows."""
    for method in node.body:
        if isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)) and method.name == "compute_loss":
            names = [a.arg for a in (*method.args.posonlyargs, *method.args.args, *method.args.kwonlyargs)]
            return "return_outputs" in names[3:]
    return False


def trainer_attribute_type(attribute: str) -> Ty | None:
    """What a `Trainer` sets up in its `__init__` for its subclasses' methods: its
    `Accelerator` (on the device unless the run says otherwise) and the model moved there."""
    if attribute == "accelerator":
        return Ty(Kind.PLACER, ACCELERATOR, DEVICE)
    if attribute == "model":
        return Ty(Kind.MODEL, "torch", DEVICE)
    return None


def trainer_step_parameters(positional: list[str]) -> dict[str, Ty]:
    """The model and the batch a `Trainer` hands each step hook (`compute_loss(self, model,
    inputs, ...)`), by position: both on the device."""
    types = (Ty(Kind.MODEL, "torch", DEVICE), Ty(Kind.PLACED, "torch", DEVICE))
    return dict(zip(positional[:2], types, strict=False))


def constructed_type(qualname: str, call: ast.Call | None, env: Env | None) -> Ty | None:
    """`Accelerator(...)`, `pipeline(...)`, `AutoModel*.from_pretrained(...)`, or (with no
    call) the annotation `PreTrainedModel`, `Accelerator`."""
    if qualname in _ACCELERATORS:
        place = _accelerator_place(call, qualname.endswith("PartialState")) if call is not None else DEVICE
        return Ty(Kind.PLACER, ACCELERATOR, place)
    if qualname in _FABRICS:
        return Ty(Kind.PLACER, FABRIC, _fabric_place(call) if call is not None else DEVICE)
    if call is not None and env is not None and qualname in _PIPELINES:
        return Ty(Kind.PLACER, PIPELINE, _pipeline_place(call, env))
    if qualname.startswith("diffusers."):
        owner, _, method = qualname.rpartition(".")
        if method in _PIPELINE_LOADERS and "Pipeline" in owner.rpartition(".")[2]:
            return Ty(Kind.PLACER, DIFFUSION_PIPELINE, "")
        return None
    if not qualname.startswith("transformers."):
        return None
    owner, _, method = qualname.rpartition(".")
    if (
        method in ("from_pretrained", "from_config")
        and call is not None
        and env is not None
        and is_model_class(owner.rpartition(".")[2])
    ):
        return Ty(Kind.MODEL, "torch", _loaded_place(call, env) if method == "from_pretrained" else HOST)
    if is_model_class(method):  # the class itself: an annotation, or a model built from a config
        return Ty(Kind.MODEL, "torch", HOST if call is not None else "")
    return None


def is_model_class(name: str) -> bool:
    """A transformers class whose instances are torch modules (`AutoModelForCausalLM`,
    `BertForSequenceClassification`, `GPT2LMHeadModel`, `PreTrainedModel`): not a tokenizer,
    a configuration, a collator (`DataCollatorForSeq2Seq`) or a model's output class, nor a
    TensorFlow or Flax model."""
    if not name[:1].isupper() or name.startswith(("TF", "Flax", "DataCollator")) or name.endswith(("Output", "Config")):
        return False
    return name.startswith("AutoModel") or name.endswith("Model") or "For" in name[1:]


def method_type(receiver: Ty, method: str, call: ast.Call, env: Env) -> Ty | None:
    """`accelerator.prepare(...)`, `accelerator.gather(...)`, `accelerator.unwrap_model(m)`;
    `pipe.model(...)` runs the pipeline's model."""
    if receiver.lib == PIPELINE:
        model = attribute_type(receiver, method)
        return torch_api.call_type(model, call, env) if model is not None and model.kind == "model" else None
    if receiver.lib == FABRIC:
        if method not in _FABRIC_SETUPS or has_unpacking(call) or not call.args:
            return None
        if method == "to_device":
            return _moved(env.type_of(call.args[0]), receiver.place) if len(call.args) == 1 else None
        prepared = tuple(_prepared(env.type_of(a), receiver.place) for a in call.args)
        return prepared[0] if len(prepared) == 1 else Ty(Kind.TUPLE, items=prepared)
    if receiver.lib != ACCELERATOR:
        return None
    if method in ("prepare", "prepare_model", "prepare_data_loader"):
        if has_unpacking(call) or not call.args:
            return None
        places = receiver.place if not call.keywords else ""  # `device_placement=[...]`
        prepared = tuple(_prepared(env.type_of(a), places) for a in call.args)
        return prepared[0] if len(prepared) == 1 else Ty(Kind.TUPLE, items=prepared)
    if method in _GATHERS and call.args and not isinstance(call.args[0], ast.Starred):
        value = env.type_of(call.args[0])
        if torch_api.is_torch_value(value) and value.place:  # type: ignore[union-attr]
            return value
        return Ty(Kind.PLACED, "torch", receiver.place) if receiver.place else None
    if method == "unwrap_model" and len(call.args) == 1:
        model = env.type_of(call.args[0])
        if model is not None and model.lib == "torch" and model.kind in ("model", "placed"):
            return Ty(Kind.MODEL, "torch", model.place)
        return None
    if method == "gather_object":
        return OTHER
    return None


def attribute_type(receiver: Ty, attr: str) -> Ty | None:
    """`accelerator.device`, `pipe.device`, `pipe.model`."""
    if attr == "device":
        if receiver.lib in (ACCELERATOR, FABRIC):
            return Ty(Kind.DEVICE, "torch", HOST if receiver.place == HOST else DEVICE)
        return Ty(Kind.DEVICE, "torch", receiver.place) if receiver.place else None
    if attr == "model" and receiver.lib == PIPELINE:
        return Ty(Kind.MODEL, "torch", receiver.place)
    return None


#: An `Accelerator`'s flags that hold on every optimizer step: `sync_gradients` is True on
#: every step without gradient accumulation, and on the step that updates with it.
EVERY_STEP_FLAGS = frozenset({"sync_gradients"})


def tests_every_step(test: ast.expr, receiver_type: Ty | None) -> bool:
    """`if accelerator.sync_gradients:`: a test that holds on every optimizer step of a
    training loop (`receiver_type` is the type of the attribute's receiver)."""
    return (
        isinstance(test, ast.Attribute)
        and test.attr in EVERY_STEP_FLAGS
        and receiver_type is not None
        and receiver_type.kind == Kind.PLACER
        and receiver_type.lib == ACCELERATOR
    )


def _prepared(ty: Ty | None, place: str) -> Ty | None:
    """What `prepare` returns for one argument: a module, moved to where the accelerator
    places; a value of unknown type (a module, a loader whose batches it will place, an
    optimizer) or a loader whose batches are known (a sequence) as a placed value, which
    iterating yields placed batches from; anything else (a tensor, a value of another
    library) as it was."""
    if ty is not None and not (ty.lib == "torch" and ty.kind in ("model", "placed")) and ty.kind != "sequence":
        return ty
    if not place:
        return None
    return Ty(Kind.MODEL if ty is not None and ty.kind == "model" else Kind.PLACED, "torch", place)


def _moved(ty: Ty | None, place: str) -> Ty | None:
    """What `fabric.to_device(x)` returns: torch values (a tuple of them item by item) on
    the fabric's device; a value of unknown type as a placed one."""
    if ty is not None and ty.kind == "tuple":
        return Ty(Kind.TUPLE, items=tuple(_moved(item, place) for item in ty.items))
    if ty is None or ty.lib == "torch" and ty.kind in ("tensor", "placed", "output", "model"):
        kind = ty.kind if ty is not None else Kind.PLACED
        return Ty(kind, "torch", place) if place else None
    return ty


def _literal(call: ast.Call, name: str, position: int | None = None) -> object:
    """The literal passed as `name=` (or at `position`); `...` when something else is."""
    value = argument(call, name, position)
    if value is None:
        return None
    return value.value if isinstance(value, ast.Constant) else ...


def _accelerator_place(call: ast.Call, state: bool) -> str:
    """`Accelerator(device_placement, ..., cpu, ...)`; `PartialState(cpu, ...)` takes `cpu` first.
    A `cpu=` the file does not spell out (`cpu=args.cpu`, a script's option, or options
    passed as `**kwargs`) places on the device: the host is the same program's fallback, as
    in a branch on a flag."""
    if state and call.args:
        return ""
    if has_unpacking(call):
        return DEVICE if not any(keyword.arg == "device_placement" for keyword in call.keywords) else ""
    cpu, placement = _literal(call, "cpu", 4), _literal(call, "device_placement", 0)
    if cpu is True:
        return HOST
    if placement not in (None, True):
        return ""
    return DEVICE


def _fabric_place(call: ast.Call) -> str:
    """`Fabric(accelerator="cpu")` keeps everything on the host; any other accelerator, none
    (the best one present) or one the file does not show (a script's option, "auto" by
    default) places on the device."""
    return HOST if _literal(call, "accelerator", 0) == "cpu" else DEVICE


def _pipeline_place(call: ast.Call, env: Env) -> str:
    """`device=0`, `device="cuda"`, `device=torch.device(...)` or any `device_map=` but a
    literal "cpu" place the pipeline on an accelerator; `device=-1` and "cpu" keep it on the
    host; anything else is not known."""
    if has_unpacking(call):
        return ""
    device = argument(call, "device")
    if device is not None:
        if isinstance(device, ast.Constant) and type(device.value) is int:
            return DEVICE if device.value >= 0 else HOST
        if (
            isinstance(device, ast.UnaryOp)
            and isinstance(device.op, ast.USub)
            and isinstance(device.operand, ast.Constant)
        ):
            return HOST  # `device=-1`
        return torch_api.device_place(device, env) or ""
    device_map = argument(call, "device_map")
    return _map_place(device_map, env) if device_map is not None else ""


def _loaded_place(call: ast.Call, env: Env) -> str:
    """Where `from_pretrained` puts the weights: on the host without `device_map=`."""
    device_map = argument(call, "device_map")
    if device_map is not None:
        return _map_place(device_map, env)
    if _literal(call, "load_in_8bit") is True or _literal(call, "load_in_4bit") is True:
        return DEVICE  # bitsandbytes loads quantized weights onto the current accelerator
    return "" if has_unpacking(call) else HOST


def _map_place(device_map: ast.expr, env: Env) -> str:
    """A `device_map`: "auto", "cuda:0", `0` or a dict that sends weights to an accelerator
    place the model there; "cpu", `None` or a dict of "cpu"/"disk" keep it on the host."""
    if isinstance(device_map, ast.Constant):
        if device_map.value is None or device_map.value in _HOST_MAP_VALUES:
            return HOST
        return DEVICE if isinstance(device_map.value, (str, int)) and not isinstance(device_map.value, bool) else ""
    if isinstance(device_map, ast.Dict):
        values = [v.value if isinstance(v, ast.Constant) else ... for v in device_map.values]
        if None in device_map.keys:  # `{**other}`
            return ""
        return HOST if values and all(v in _HOST_MAP_VALUES for v in values) else DEVICE
    return torch_api.device_place(device_map, env) or ""
