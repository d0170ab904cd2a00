"""GPU305 dataloader-without-workers."""

from __future__ import annotations

import ast

from gpulint.engine import RuleContext
from gpulint.registry import Example, FixAvailability, Rule

from ._common import base_name

_LOADERS = frozenset({"torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader"})
_LOOPS = (ast.For, ast.AsyncFor, ast.While, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)

_SETUP = """\
import torch
from torch.utils.data import TensorDataset
dataset = TensorDataset(torch.from_numpy(rng.standard_normal((N, 3))))
"""


class DataloaderWithoutWorkers(Rule):
    """
    ## What it does
    Flags a `torch.utils.data.DataLoader(...)` with no `num_workers` (or `num_workers=0`)
    in a file that moves the batches of a loop to a device (`x.to(device)`, `x.cuda()`
    inside a loop, with a device that is not a literal `"cpu"`).

    A loader given workers is not flagged, with or without `pin_memory`; nor is a loader
    whose options come from `**kwargs`, nor one in a file that never feeds a device.

    ## Why is this bad?
    Without workers the main process loads, decodes and collates every batch itself, while
    the GPU waits; then the copy to the device comes from pageable memory, which cannot
    overlap with compute. Worker processes prepare the next batches while the GPU runs this
    one, and `pin_memory=True` lets `.to(device, non_blocking=True)` copy asynchronously.

    ## Fix safety
    The fix adds `num_workers=4` (or replaces `num_workers=0`) and `pin_memory=True`
    (unless `pin_memory` is given). It is unsafe: worker processes need a dataset that can
    be pickled where processes are spawned (Windows, macOS) and an
    `if __name__ == "__main__":` guard there; an `IterableDataset` that does not split its
    data by worker yields every item once per worker; random augmentations draw from each
    worker's own seed; state the dataset records while it loads items (counters, caches)
    stays in the workers. Choose the number of workers for the machine (4 is a common start).
    """

    code = "GPU305"
    name = "dataloader-without-workers"
    message = "`DataLoader` without `num_workers` feeding a device: batches are prepared in the main process while the device waits"
    nodes = (ast.Call,)
    fix = FixAvailability.UNSAFE

    flagged = (
        Example(
            source='''\
import torch
from torch.utils.data import DataLoader

device = "cuda" if torch.cuda.is_available() else "cpu"


def column_sums(dataset):
    loader = DataLoader(dataset, batch_size=16)
    sums = []
    for (features,) in loader:
        sums.append(features.to(device).sum(dim=0))
    return [s.tolist() for s in sums]
''',
            fixed='''\
import torch
from torch.utils.data import DataLoader

device = "cuda" if torch.cuda.is_available() else "cpu"


def column_sums(dataset):
    loader = DataLoader(dataset, batch_size=16, num_workers=4, pin_memory=True)
    sums = []
    for (features,) in loader:
        sums.append(features.to(device).sum(dim=0))
    return [s.tolist() for s in sums]
''',
            requires=("torch",),
            setup=_SETUP,
            call="column_sums(dataset)",
        ),
    )
    ok = (
        Example('''\
import torch
from torch.utils.data import DataLoader

device = "cuda"


def batches(dataset):
    loader = DataLoader(dataset, batch_size=16, num_workers=4)
    for x in loader:
        yield x.to(device, non_blocking=True)
'''),
        Example('''\
from torch.utils.data import DataLoader


def mean_length(dataset):
    loader = DataLoader(dataset, batch_size=16)
    return sum(len(batch) for batch in loader) / len(dataset)
'''),
        Example('''\
import torch
from torch.utils.data import DataLoader


def evaluate(dataset, options):
    loader = DataLoader(dataset, **options)
    for x in loader:
        x = x.to("cuda")
'''),
        Example('''\
import torch
from torch.utils.data import DataLoader


def on_cpu(dataset):
    loader = DataLoader(dataset, batch_size=8)
    for x in loader:
        x = x.to("cpu")
'''),
    )

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        assert isinstance(node, ast.Call)
        if ctx.qualname(node.func) not in _LOADERS:
            return
        if any(k.arg is None for k in node.keywords) or any(isinstance(a, ast.Starred) for a in node.args):
            return
        workers = next((k.value for k in node.keywords if k.arg == "num_workers"), None)
        if workers is None and len(node.args) > 5:
            workers = node.args[5]
        if workers is not None and not (isinstance(workers, ast.Constant) and workers.value == 0):
            return
        if not self._feeds_device(ctx):
            return
        ctx.report(node, context={"call": node})

    def _feeds_device(self, ctx: RuleContext) -> bool:
        if "feeds" not in self.__dict__:
            self.__dict__["feeds"] = _moves_batches_to_device(ctx.tree)
        return self.__dict__["feeds"]


def _moves_batches_to_device(tree: ast.Module) -> bool:
    """Some loop of the file moves a value it binds (a batch) to a device: `.cuda()`, or
    `.to(d)` where `d` is a device string other than "cpu", a `device=` argument, a
    `non_blocking=` copy, or a name the file binds to a device (`torch.device(...)`, a device
    string, `"cuda" if ... else "cpu"`, `x.device`) or annotates as `torch.device`."""
    device_names = _device_names(tree)
    for loop in ast.walk(tree):
        if not isinstance(loop, _LOOPS):
            continue
        bound = {n.id for n in ast.walk(loop) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        for call in ast.walk(loop):
            if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
                    and call.func.attr in ("to", "cuda")):
                continue
            if base_name(call.func.value) not in bound:
                continue
            if call.func.attr == "cuda" or _device_argument(call, device_names):
                return True
    return False


def _device_argument(call: ast.Call, device_names: set[str]) -> bool:
    if any(k.arg in ("device", "non_blocking") for k in call.keywords):
        return not any(k.arg == "device" and _is_cpu(k.value) for k in call.keywords)
    if not call.args:
        return False
    first = call.args[0]
    if isinstance(first, ast.Constant):
        return isinstance(first.value, str) and not _is_cpu(first) and first.value.split(":")[0] in (
            "cuda", "mps", "xpu", "hip")
    return isinstance(first, ast.Name) and first.id in device_names


def _is_cpu(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.split(":")[0] == "cpu"


def _device_names(tree: ast.Module) -> set[str]:
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and _is_device_expression(node.value):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.arg) and node.annotation is not None and ast.unparse(node.annotation) in (
                "torch.device", "device"):
            names.add(node.arg)
    return names


def _is_device_expression(node: ast.expr) -> bool:
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str) and node.value.split(":")[0] in ("cuda", "mps", "xpu", "hip")
    if isinstance(node, ast.IfExp):
        return _is_device_expression(node.body) or _is_device_expression(node.orelse)
    if isinstance(node, ast.Call):
        func = node.func
        return isinstance(func, ast.Attribute) and func.attr == "device" or isinstance(func, ast.Name) and \
            func.id == "device"
    return isinstance(node, ast.Attribute) and node.attr == "device"
