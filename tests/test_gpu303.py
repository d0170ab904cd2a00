"""GPU303 device-round-trip: which round trips are rewritten, and how safely."""

from __future__ import annotations

import pytest

from gpulint import Applicability, fix_text, lint_source

from .execution import assert_same_result, run_example


def _only(source: str):
    found = [d for d in lint_source(source) if d.code == "GPU303"]
    assert len(found) == 1, found
    return found[0]


CUPY = "import cupy as cp\nvalues = cp.arange(10)\n"


@pytest.mark.parametrize(
    ("line", "fixed"),
    [
        ("copy = cp.asarray(cp.asnumpy(values))\n", "copy = values.copy()\n"),
        ("copy = cp.array(values.get())\n", "copy = values.copy()\n"),
        ("copy = cp.asarray(cp.asnumpy(values * 2))\n", "copy = (values * 2).copy()\n"),
    ],
)
def test_cupy_round_trips_become_a_device_copy(line, fixed):
    assert _only(CUPY + line).fix.applicability is Applicability.SAFE
    assert fix_text(CUPY + line) == CUPY + fixed


def test_cupy_copy_is_equal_on_a_gpu():
    pytest.importorskip("cupy")
    source = "import cupy as cp\n\ndef f(a):\n    d = cp.asarray(a)\n    return cp.asarray(cp.asnumpy(d * 2)).get()\n"
    fixed = fix_text(source)
    assert "(d * 2).copy()" in fixed
    for n in (0, 5):
        assert_same_result(
            run_example("", source, "f(rng.standard_normal(N))", n=n),
            run_example("", fixed, "f(rng.standard_normal(N))", n=n),
            strict=True,
        )


def test_cudf_round_trip_is_unsafe():
    source = "import cudf\nframe = cudf.read_csv('a.csv')\nagain = cudf.from_pandas(frame.to_pandas())\n"
    assert _only(source).fix.applicability is Applicability.UNSAFE
    assert fix_text(source) == source
    assert fix_text(source, unsafe_fixes=True).endswith("again = frame.copy()\n")


TORCH = 'import torch\nd = "cuda"\nt = torch.ones(3, device=d)\n'


@pytest.mark.parametrize(
    ("line", "applicability", "fixed"),
    [
        ("u = torch.tensor(t.cpu().numpy()).cuda()\n", Applicability.UNSAFE, 'u = t.detach().to("cuda", copy=True)\n'),
        (
            "u = torch.tensor(t.detach().cpu().numpy(), device=d)\n",
            Applicability.UNSAFE,
            "u = t.detach().to(d, copy=True)\n",
        ),
        ("u = torch.from_numpy(t.numpy()).to(device=d)\n", Applicability.UNSAFE, "u = t.detach().to(d, copy=True)\n"),
        # dtypes are inferred again from Python numbers: a suggestion only
        ("u = torch.tensor(t.tolist()).to(d)\n", Applicability.DISPLAY, None),
        # something besides the device: a suggestion only
        ("u = torch.tensor(t.cpu().numpy(), dtype=torch.float16).to(d)\n", Applicability.DISPLAY, None),
    ],
)
def test_torch_round_trips(line, applicability, fixed):
    source = TORCH + line
    assert _only(source).fix.applicability is applicability
    expected = source if fixed is None else TORCH + fixed
    assert fix_text(source, unsafe_fixes=True) == expected


def test_host_data_is_not_a_round_trip():
    """Made from host data and copied: neither a round trip nor GPU304 (torch builds a
    tensor made from data on the host and copies it, `device=` or not)."""
    source = (
        "import torch\n\n\ndef f():\n    host = torch.ones(3)\n    return torch.tensor(host.numpy()).to('cuda')\n"
        "\n\nbatches = [f() for _ in range(100)]\n"
    )
    assert [d.code for d in lint_source(source)] == []


STEP = """\
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(4, 2).to(device)


def step(batch):
    out = model(batch.to(device))
    a, b = out.sum(), out.mean()
    return {line}
"""


@pytest.mark.parametrize(
    "line",
    [
        "torch.tensor([a, b]).to(device)",
        "torch.FloatTensor([a, b]).view(-1, 1).cuda()",  # a legacy class, reshaped on the way back
        "torch.tensor(out.tolist()).view(-1).to(device)",
    ],
)
def test_lists_and_reshaped_round_trips_get_a_suggestion(line):
    found = _only(STEP.format(line=line))
    assert found.fix.applicability is Applicability.DISPLAY
    source = STEP.format(line=line)
    assert fix_text(source, unsafe_fixes=True) == source


@pytest.mark.parametrize(
    "line",
    [
        "torch.stack([a, b])",  # stays on the device
        "torch.tensor([1.0, 2.0]).to(device)",  # host numbers
        "torch.tensor([a.item(), 2.0]).to(device)",  # not every element a device tensor
    ],
)
def test_lists_that_are_no_round_trip(line):
    assert [d for d in lint_source(STEP.format(line=line)) if d.code == "GPU303"] == []


@pytest.mark.parametrize(
    ("bound", "flagged"),
    [
        # a list comprehension of device results, bound to a name first
        ("sums = [torch.sum(out[j:]) for j in range(4)]", True),
        ("sums = [out[j].mean() * 2 for j in range(4)]", True),
        # near-misses: host numbers, the comprehension's own items (unknown), a device list stacked
        ("sums = [float(j) for j in range(4)]", False),
        ("sums = [t for t in out]", False),
        ("sums = [j * 2 for j in range(4)]", False),
    ],
)
def test_a_name_bound_to_a_list_of_device_results(bound, flagged):
    source = STEP.format(line="torch.FloatTensor(sums).view(-1, 1).to(device)").replace(
        "    return torch.FloatTensor", f"    {bound}\n    return torch.FloatTensor"
    )
    found = [d for d in lint_source(source) if d.code == "GPU303"]
    assert len(found) == (1 if flagged else 0)


@pytest.mark.parametrize(
    ("line", "flagged"),
    [
        ("torch.tensor([out[j].sum() for j in range(4)]).to(device)", True),
        ("torch.tensor([float(j) for j in range(4)]).to(device)", False),  # host numbers
        ("torch.tensor([t for t in out]).to(device)", False),  # the comprehension's own items: unknown
    ],
)
def test_a_list_comprehension_of_device_results_handed_to_a_constructor(line, flagged):
    found = [d for d in lint_source(STEP.format(line=line)) if d.code == "GPU303"]
    assert len(found) == (1 if flagged else 0)
