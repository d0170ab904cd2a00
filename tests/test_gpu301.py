"""The copies from the device to the host in a loop (GPU301, GPU307, GPU308: one detector, a
rule per idiom), and the evidence of where torch/CuPy/cuDF values live."""

from __future__ import annotations

import textwrap

import pytest

from gpulint import Applicability, fix_text, lint_source
from gpulint.evidence import Ty

from .test_evidence import probe
from .rule_helpers import HOST_COPIES

TORCH = "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n\n"


def _codes(source: str, code: str | None = None) -> list[int]:
    """The lines of `code`'s findings; with no code, of any host-copy rule's (`HOST_COPIES`)."""
    codes = HOST_COPIES if code is None else {code}
    return [d.start.line for d in lint_source(textwrap.dedent(source)) if d.code in codes]


# -- evidence: where a value lives ---------------------------------------------------------


@pytest.mark.parametrize(
    ("setup", "expression", "expected"),
    [
        ('d = "cuda" if torch.cuda.is_available() else "cpu"', "d", Ty("device", "torch", "device")),
        ('d = torch.device("cpu")', "d", Ty("device", "torch", "host")),
        ('d = "cpu"', "torch.zeros(2).to(d)", Ty("tensor", "torch", "host")),
        ("", 'torch.zeros(2, device="cuda:1")', Ty("tensor", "torch", "device")),
        ("", "torch.zeros(2)", Ty("tensor", "torch", "host")),
        ("", "torch.zeros(2).cuda().cpu()", Ty("tensor", "torch", "host")),
        ("t = torch.ones(2).cuda()", "t.to(torch.float16)", Ty("tensor", "torch", "device")),
        ("t = torch.ones(2)", "t.to(target)", Ty("tensor", "torch", "device")),  # a device the file does not show
        ("t = torch.ones(2).cuda()\ndtype = torch.half", "t.to(dtype)", Ty("tensor", "torch", "device")),
        ("t = torch.ones(2)\ndtype = torch.half", "t.to(dtype)", Ty("tensor", "torch", "host")),
        ("t = torch.ones(2).cuda()", "(t * 2 + 1).sum()", Ty("tensor", "torch", "device")),
        ("t = torch.ones(2).cuda()", "t.numpy()", Ty("array", "numpy")),
        ("", "batch.to('cuda')", Ty("placed", "torch", "device")),
        ("", "batch.to(unknown)", Ty("placed", "torch", "device")),
        ("", "batch.to(torch.float16)", None),
        ("class Net(nn.Module):\n    pass\nm = Net().to('cuda')", "m(x)", Ty("output", "torch", "device")),
        ("class Net(nn.Module):\n    pass\nm = Net()", "m", Ty("model", "torch", "")),
        ("class Plain:\n    pass\nm = Plain()", "m", Ty("other")),
        ("loss_fn = nn.MSELoss()", "loss_fn(batch.cuda(), y)", Ty("output", "torch", "device")),
        ("out = batch.cuda()", "F.relu(out)", Ty("tensor", "torch", "device")),
        ("m = nn.Linear(2, 2).cuda()", "m(x).logits", Ty("output", "torch", "device")),
        ("m = nn.Linear(2, 2).cuda()", "m.training", Ty("other")),
        ("def f(t: torch.Tensor):\n    return t", "torch.as_tensor(t)", Ty("tensor", "torch", "")),
    ],
)
def test_torch_placement(setup, expression, expected):
    source = TORCH + setup + f"\nprobe({expression})\n"
    assert probe(source)[-1] == expected


@pytest.mark.parametrize(
    ("setup", "expression", "expected"),
    [
        ("import cupy as cp\na = cp.arange(3)", "a.sum()", Ty("array", "cupy")),
        ("import cupy as cp\na = cp.arange(3)", "a[0]", Ty("array", "cupy")),
        ("import cupy as cp\na = cp.arange(3)", "cp.asnumpy(a)", Ty("array", "numpy")),
        ("import cupy as cp\na = cp.arange(3)", "a.get()", Ty("array", "numpy")),
        ("import cudf\ng = cudf.read_csv('a')", "g.to_numpy()", Ty("array", "numpy")),
        ("import cudf\ng = cudf.read_csv('a')", "g.values", Ty("array", "cupy")),
        ("import cudf\ng = cudf.read_csv('a')", "g['a'].values_host", Ty("array", "numpy")),
        ("import cudf\ng = cudf.read_csv('a')", "g.to_cupy()", Ty("array", "cupy")),
    ],
)
def test_cupy_and_cudf_evidence(setup, expression, expected):
    assert probe(setup + f"\nprobe({expression})\n")[-1] == expected


def test_iterating_a_device_tensor_yields_device_rows_and_branches_join():
    seen = probe(
        TORCH
        + textwrap.dedent("""\
        for row in torch.ones(3, 2, device="cuda"):
            probe(row)
        if flag:
            d = "cuda"
        else:
            d = "cpu"
        probe(d)
        t = torch.zeros(2)
        t += 1
        probe(t)
        """)
    )
    assert seen == [Ty("tensor", "torch", "device"), Ty("device", "torch", "device"), Ty("tensor", "torch", "host")]


# -- the rule --------------------------------------------------------------------------------

LOOP = TORCH + 'device = "cuda"\nfor batch in batches:\n    t = batch.to(device)\n'


@pytest.mark.parametrize(
    ("line", "code"),
    [
        ("    print(t.sum().item())", "GPU307"),
        ("    values = t.cpu()", "GPU301"),
        ("    values = t.tolist()", "GPU301"),
        ("    values = float(t.mean())", "GPU307"),
        ('    values = t.to("cpu")', "GPU301"),
        ("    values = [x.item() for x in t.float()]", "GPU307"),  # rows of a tensor (not of a batch: `t` may be one)
    ],
)
def test_copies_in_a_loop_are_flagged(line, code):
    assert [(d.code, d.start.line) for d in lint_source(LOOP + line + "\n") if d.code in HOST_COPIES] == [(code, 8)]


@pytest.mark.parametrize(
    "line",
    [
        "    values = t.sum()",  # stays on the device
        "    values = t.shape",
        "    if t.numel() > 3:\n        print(t.cpu())",  # under an `if`
        "    for part in names:\n        pass\n    print(t.cpu())",  # an outer loop (over other data)
        '    values = torch.ones(3).to("cpu").item()',  # host tensor
        '    t.to("cpu")',  # the result dropped: what moves in place is a module (`pipe.to("cpu")`)
    ],
)
def test_copies_that_are_not_per_iteration_or_not_from_the_device(line):
    assert _codes(LOOP + line + "\n") == []


def test_a_device_the_file_does_not_show_counts_and_numpy_stays_silent():
    source = """\
        import numpy as np
        import torch

        def f(batches, device, dtype=torch.float16):
            for b in batches:
                x = b.to(device)          # code written for the device it is given
                h = b.to(dtype)           # a dtype: where `b` was
                print(x.item(), h.item(), np.ones(3).tolist())
        """
    assert _codes(source) == [8]


def test_a_round_trip_is_one_gpu303_not_a_gpu301():
    source = (
        TORCH
        + 'd = "cuda"\nt = torch.ones(3, device=d)\nfor _ in range(3):\n    u = torch.tensor(t.cpu().numpy()).to(d)\n'
    )
    codes = [d.code for d in lint_source(source)]
    assert codes == ["GPU303"]


@pytest.mark.parametrize(("line", "code"), [("    print(t.item())", "GPU307"), ("    kept = t.cpu()", "GPU301")])
def test_the_finding_is_display_only(line, code):
    source = LOOP + line + "\n"
    [diagnostic] = [d for d in lint_source(source) if d.code in HOST_COPIES]
    assert diagnostic.code == code
    assert diagnostic.fix.applicability is Applicability.DISPLAY
    assert "after the loop" in diagnostic.fix.message
    assert fix_text(source, unsafe_fixes=True) == source


# -- small loops over the parts of one item ------------------------------------------------


@pytest.mark.parametrize(
    "small",
    [
        "    for key in parts:\n        parts[key] = parts[key] * 2\n",  # the keys of a mapping it subscripts
        "    for key, value in parts.items():\n        print(key, value)\n",
        "    for name in sorted(parts.keys()):\n        print(name)\n",
        '    for name in ("loss", "accuracy"):\n        print(name)\n',
        '    for i, name in enumerate(["a", "b"]):\n        print(i, name)\n',
    ],
)
def test_a_small_loop_inside_the_batch_loop_does_not_hide_the_copy(small):
    source = LOOP + "    parts = {'t': t}\n" + small + "    print(t.sum().item())\n"
    lines = source.count("\n")
    assert _codes(source) == [lines]


@pytest.mark.parametrize(
    "small",
    [
        '    for name in ("total", "mean"):\n        print(name, total.item())\n',
        "    print({name: total.item() for name in ('total', 'mean')})\n",
        "    logs = {'total': 0}\n    for name in logs:\n        logs[name] = total.item()\n",
    ],
)
def test_a_small_loop_in_an_epoch_loop_runs_once_per_epoch(small):
    source = (
        TORCH
        + textwrap.dedent("""\
        for epoch in range(3):
            total = torch.zeros((), device="cuda")
            for step in range(10):
                total += torch.ones((), device="cuda")
        """)
        + small
    )
    assert _codes(source) == []


def test_a_copy_inside_a_small_loop_inside_the_batch_loop_is_flagged():
    source = LOOP + '    for name in ("a", "b"):\n        print(name, t.sum().item())\n'
    assert _codes(source) == [9]
    comprehension = LOOP + "    print({name: t.sum().item() for name in ('a', 'b')})\n"
    assert _codes(comprehension) == [8]


@pytest.mark.parametrize(
    "inner",
    [
        "    for name in names:\n        print(name)\n",  # a container of unknown size
        "    for row in table:\n        print(row)\n",  # the rows of other data
        "    for key in lookup:\n        print(key)\n",  # never subscripted with its keys
        "    for k, v in torch.ones(3).float().items():\n        pass\n",  # `.items()` of a tensor is not a mapping's
    ],
)
def test_a_loop_over_other_data_inside_the_batch_loop_still_makes_it_an_outer_loop(inner):
    source = LOOP + "    parts = {'t': t}\n" + inner + "    print(t.sum().item())\n"
    assert _codes(source) == []


@pytest.mark.parametrize(
    "inner",
    [
        "    for row in t:\n        print(row)\n",  # the rows of this batch's tensor
        "    for key in parts:\n        print(key)\n",  # a container this iteration built
        "    for part in t.split(2):\n        pass\n",  # chunks of this batch
        "    for start in range(0, len(t), 2):\n        print(t[start])\n",  # the same, by index
    ],
)
def test_a_loop_over_parts_of_this_iteration_keeps_the_batch_loop_the_hot_loop(inner):
    source = LOOP + "    parts = {'t': t}\n" + inner + "    print(t.sum().item())\n"
    assert _codes(source) == [len(source.splitlines())]


def test_a_loop_over_a_small_container_alone_is_no_hot_loop():
    # two copies, one per named part: nothing runs them per item of the data
    source = TORCH + 't = torch.ones(3, device="cuda")\nfor name in ("a", "b"):\n    print(t.sum().item())\n'
    assert _codes(source) == []


def test_a_loop_over_fields_named_by_literals_is_a_small_loop():
    # PyTorch Geometric: `data("train_mask", "test_mask")` yields those fields of one graph
    source = LOOP + "    for _, mask in batch('train_mask', 'val_mask'):\n        pass\n    print(t.sum().item())\n"
    assert _codes(source) == [len(source.splitlines())]
    alone = (
        TORCH + 't = torch.ones(3, device="cuda")\nfor _, mask in data("train_mask", "test_mask"):\n'
        "    print(t[mask].sum().item())\n"
    )
    assert _codes(alone) == []


def test_an_epoch_loop_calling_the_functions_that_loop_over_batches_copies_once_per_epoch():
    source = TORCH + textwrap.dedent("""\
        device = torch.device("cuda")
        model = nn.Linear(4, 1).to(device)

        def evaluate():
            total = torch.zeros((), device=device)
            for x in loader:
                total += model(x.to(device)).sum()
            return total

        best = torch.tensor(float("inf"), device=device)
        for epoch in range(10):
            loss = evaluate()
            print(loss.item())
            if loss < best:
                best = loss
        """)
    assert _codes(source) == []
    assert _codes(source, "GPU306") == []
    # a function that does not loop leaves the loop a hot one
    hot = source.replace(
        "    for x in loader:\n        total += model(x.to(device)).sum()\n",
        "    total += model(torch.ones(4, device=device)).sum()\n",
    ).replace("range(10)", "range(epochs)")
    assert _codes(hot) == [len(hot.splitlines()) - 2]
