"""GPU302 host-to-device-in-loop: only loop-invariant copies, hoisted only where provably the same."""

from __future__ import annotations

import textwrap

import pytest

from gpulint import Applicability, fix_text, lint_source

from .execution import assert_same_result, run_example

HEAD = 'import numpy as np\nimport torch\n\ndevice = "cuda" if torch.cuda.is_available() else "cpu"\n\n\n'


def _found(source: str):
    return [d for d in lint_source(source) if d.code == "GPU302"]


@pytest.mark.parametrize(
    "body",
    [
        # per-batch data: the loop's own target
        "def f(xs):\n    for x in xs:\n        y = x.to(device)\n",
        # changed in place in the loop
        "def f(xs):\n    w = torch.zeros(3)\n    for x in xs:\n        w.add_(x)\n        y = w.to(device)\n",
        # changed through an alias
        "def f(xs):\n    w = torch.zeros(3)\n    for x in xs:\n        v = w[0:2]\n        v += 1\n        y = w.to(device)\n",
        # handed to something that may change it
        "def f(xs, fill):\n    buf = np.zeros(3)\n    for x in xs:\n        fill(buf)\n        y = torch.from_numpy(buf).to(device)\n",
        # the copy is changed in place, and `.to()` returns `w` itself when it is already there
        "def f(xs):\n    w = torch.ones(3)\n    for x in xs:\n        v = w.to(device)\n        v.mul_(2)\n",
        # handed to a model, which may change its input in place (or keep it)
        "def f(xs, model):\n    w = torch.ones(3)\n    for x in xs:\n        model(w.to(device))\n",
        # reassigned in the loop
        "def f(xs):\n    w = torch.zeros(3)\n    for x in xs:\n        y = w.to(device)\n        w = x\n",
        # a new random value every time: not invariant (and GPU304 anyway)
        "def f(xs):\n    for x in xs:\n        y = torch.randn(3).to(device)\n",
        # something unknown is called
        "def f(xs, load):\n    for x in xs:\n        y = load().to(device)\n",
        # a literal "cpu" is not a device
        "def f(xs, w):\n    for x in xs:\n        y = w.to('cpu')\n",
    ],
)
def test_not_flagged(body):
    assert _found(HEAD + body) == []


@pytest.mark.parametrize(
    ("body", "why"),
    [
        # a parameter may require grad: each iteration's graph needs its own copy
        (
            "def f(xs, w):\n    out = []\n    for x in xs:\n        out.append(x * w.to(device))\n    return out\n",
            "grad",
        ),
        # the copy's name is read after the loop (the loop may run zero times)
        (
            "def f(xs):\n    w = torch.ones(3)\n    for x in xs:\n        v = w.to(device)\n        print(x)\n"
            "    return v\n",
            "after",
        ),
        # only under a condition
        (
            "def f(xs, ok):\n    w = torch.ones(3)\n    for x in xs:\n        if ok:\n            print(x * w.to(device))\n",
            "conditional",
        ),
        # inside `with`: maybe `torch.no_grad()`
        (
            "def f(xs):\n    w = torch.ones(3)\n    for x in xs:\n        with torch.no_grad():\n"
            "            print(x * w.to(device))\n",
            "with",
        ),
    ],
)
def test_flagged_but_only_suggested(body, why):
    source = HEAD + body
    [diagnostic] = _found(source)
    assert diagnostic.fix.applicability is Applicability.DISPLAY, why
    assert fix_text(source, unsafe_fixes=True) == source


def test_a_copy_a_comprehension_collects_is_one_tensor_per_element():
    source = HEAD + (
        "def gather_sizes(world_size):\n"
        "    size_list = [torch.IntTensor([0]).to('cuda') for _ in range(world_size)]\n"
        "    both = [torch.tensor([0]).to(device) for _ in range(world_size)]\n"
        "    return size_list, both\n"
    )
    assert _found(source) == []


@pytest.mark.parametrize(
    "made",
    [
        "torch.Tensor([[SOS]]).long()",  # a legacy class given data
        "torch.LongTensor([[SOS] * 2])",
        "Variable(torch.LongTensor([[SOS]]))",  # through the legacy wrapper
    ],
)
def test_constant_data_through_a_legacy_class_is_loop_invariant(made):
    source = HEAD + (
        "from torch.autograd import Variable\nSOS = 0\n\n\n"
        f"def f(xs, decode):\n    for x in xs:\n        start = {made}.to(device)\n        decode(start, x)\n"
    )
    assert [d.code for d in _found(source)] == ["GPU302"]
    # given a shape, the class allocates: a factory (GPU304), not data
    assert _found(source.replace(made, "torch.LongTensor(1, 1)")) == []


def test_nested_loops_hoist_one_loop_per_pass_until_outside_both():
    source = HEAD + textwrap.dedent("""\
        def f(epochs, xs):
            w = torch.tensor([1.0, 2.0, 3.0])
            out = []
            for epoch in range(epochs):
                for x in xs:
                    out.append((x * w.to(device)).sum().item() + epoch)
            return out
        """)
    assert fix_text(source) == source  # unsafe: see the rule's "Fix safety"
    fixed = fix_text(source, unsafe_fixes=True)
    assert "    w_device = w.to(device)\n    for epoch in range(epochs):\n" in fixed
    assert "out.append((x * w_device).sum().item() + epoch)" in fixed
    assert _found(fixed) == []
    torch = pytest.importorskip("torch")
    setup = "import torch\nxs = [torch.from_numpy(rng.standard_normal(3)).float() for _ in range(N)]"
    for n in (0, 1, 5):
        assert_same_result(
            run_example(setup, source, "f(2, xs)", n=n), run_example(setup, fixed, "f(2, xs)", n=n), strict=True
        )
    assert torch is not None


def test_a_module_level_constant_used_in_a_function_loop_is_hoisted_in_the_function():
    source = HEAD + textwrap.dedent("""\
        scale = np.array([1.0, 2.0])


        def f(xs):
            for x in xs:
                print(x * torch.as_tensor(scale, device=device))
        """)
    fixed = fix_text(source, unsafe_fixes=True)
    assert "    scale_device = torch.as_tensor(scale, device=device)\n    for x in xs:\n" in fixed
    assert "print(x * scale_device)" in fixed


def test_name_clashes_get_a_fresh_name():
    source = HEAD + textwrap.dedent("""\
        def f(xs, w_device):
            w = torch.ones(3)
            for x in xs:
                print(x * w.to(device), w_device)
        """)
    assert "w_device_2 = w.to(device)" in fix_text(source, unsafe_fixes=True)


# -- a host tensor the module holds, copied in every forward --------------------------------

MODULE = HEAD + textwrap.dedent("""\
    import torch.nn as nn
    from torch.autograd import Variable


    class Head(nn.Module):
        def __init__(self, n):
            super().__init__()
            self.fc = nn.Linear(n, n)
            {made}

        def forward(self, x):
            {used}
            return self.fc(x)
    """)


@pytest.mark.parametrize(
    ("made", "used"),
    [
        ("self.mask = torch.ones(4, 4).tril()", "mask = self.mask.repeat(len(x), 1, 1).to(x.device)"),
        ("self.v_ind = torch.LongTensor(4).fill_(0).unsqueeze(0)", "v = Variable(self.v_ind)\n        v = v.cuda()"),
        ("self.scale = torch.sqrt(torch.FloatTensor([4]))", "x = x / self.scale.to(device)"),
        # what a function of the file returns, a host tensor, also one item of a tuple
        ("self.mask, self.size = make_mask(n)", "mask = self.mask.repeat(len(x), 1, 1).to(x.device)"),
        ("self.points = refer_points(n)", "points = self.points.to(x.device)"),
        # sines and cosines of a host range, converted to a dtype: still on the host
        ("self.pos = posemb(n)", "x = x + self.pos.to(x.device, dtype=x.dtype)"),
        # following the batch: `type_as` takes its device (and dtype)
        ("self.kernel = torch.ones(4, 4) / 16", "x = x * self.kernel.type_as(x)"),
    ],
    ids=[
        "repeated",
        "through-variable-and-a-name",
        "torch-function-of-a-constructor",
        "returned-in-a-tuple",
        "returned",
        "sines-converted",
        "type-as-the-batch",
    ],
)
def test_a_host_tensor_held_from_init_and_moved_in_forward_is_shown_as_a_buffer(made, used):
    helpers = (
        "def make_mask(n):\n    mask = torch.zeros(n, n)\n    return (1 - mask).bool(), n\n\n\n"
        "def refer_points(n):\n    return torch.arange(n).view(1, -1)\n\n\n"
        "def posemb(n, dtype=torch.float32):\n    y = torch.arange(n)[:, None] / n\n"
        "    pe = torch.cat((y.sin(), y.cos()), dim=1)\n    return pe.type(dtype)\n\n\n"
    )
    [finding] = _found(MODULE.format(made=made, used=used).replace("class Head", helpers + "class Head"))
    assert "register_buffer" in finding.message and finding.fix.applicability is Applicability.DISPLAY


@pytest.mark.parametrize(
    ("made", "used"),
    [
        # made on the device already
        ("self.mask = torch.ones(4, 4, device=device)", "mask = self.mask.to(x.device)"),
        # made like another tensor: where that tensor is
        ("self.mask = torch.ones_like(self.fc.weight)", "mask = self.mask.to(x.device)"),
        # set again in forward: not one constant
        ("self.mask = torch.ones(4)", "self.mask = self.mask + 1\n        mask = self.mask.to(x.device)"),
        # a registered buffer moves with the module
        ('self.register_buffer("mask", torch.ones(4))', "mask = self.mask.to(x.device)"),
        # data handed in, not held
        ("self.mask = None", "mask = x.to(device)"),
        # a parameter is registered, and moves with the module
        ("self.w = nn.Parameter(torch.randn(4))", "w = self.w.to(x.device)"),
        # an item of a tuple the evidence does not know
        ("self.mask, self.size = unknown(n)", "mask = self.mask.to(x.device)"),
        # changed in place by a method: not the same bytes on every call
        ("self.state = torch.zeros(1, 4)", "h = self.state.to(x.device)\n        self.state.copy_(h.detach().cpu())"),
        ("self.state = torch.zeros(1, 4)", "h = self.state.to(x.device)\n        self.state[0] = 1"),
        # following a tensor the code shows on the host: a dtype cast, no copy
        ("self.kernel = torch.ones(4, 4)", "k = self.kernel.type_as(torch.zeros(1, dtype=torch.half))"),
        # moved once and kept (`self.mean = self.mean.type_as(x)`): not one constant
        ("self.mean = torch.ones(4)", "self.mean = self.mean.type_as(x)\n        x = x - self.mean"),
    ],
    ids=[
        "device-made",
        "like-factory",
        "set-in-forward",
        "buffer",
        "not-held",
        "parameter",
        "unknown-tuple",
        "copied-into",
        "written-at-places",
        "type-as-a-host-tensor",
        "type-as-kept",
    ],
)
def test_tensors_that_are_no_held_host_constant_are_left_alone(made, used):
    assert _found(MODULE.format(made=made, used=used)) == []


def test_a_plain_class_forward_is_not_known_to_run_per_batch():
    source = (
        MODULE.format(made="self.mask = torch.ones(4)", used="mask = self.mask.to(x.device)")
        .replace("class Head(nn.Module):", "class Head:")
        .replace("        super().__init__()\n", "")
    )
    assert _found(source) == []


ELSEWHERE = HEAD + textwrap.dedent("""\
    import torch.nn as nn
    from torch.autograd import Variable
    from core.model import Model


    class Head(Model):
        def __init__(self, args):
            super().__init__(args)
            {layers}
            self.v_ind = torch.LongTensor(4).fill_(0).unsqueeze(0)

        def {method}(self, x):
            v = Variable(self.v_ind)
            if self.use_cuda:
                v = v.cuda()
            return x.gather(1, v)
    """)


def test_a_class_on_a_base_from_another_module_that_holds_layers_and_defines_forward_is_a_module():
    [finding] = _found(ELSEWHERE.format(layers="self.fc = nn.Linear(4, 4)", method="forward"))
    assert "self.v_ind" in finding.message


@pytest.mark.parametrize(
    ("layers", "method"),
    [("self.size = 4", "forward"), ("self.fc = nn.Linear(4, 4)", "select")],
    ids=["no-layers", "no-forward"],
)
def test_a_class_on_a_base_from_elsewhere_is_no_module_without_layers_and_forward(layers, method):
    assert _found(ELSEWHERE.format(layers=layers, method=method)) == []
