"""GPU304 tensor-created-on-host: the factory gets `device=`."""

from __future__ import annotations

import textwrap

import pytest

from gpulint import Applicability, fix_text, lint_source

from .execution import assert_same_result, run_example

#: The code under test runs in a function: a tensor made once at a module's top level is
#: left alone, and so is one made once per call of a function nothing runs repeatedly (see
#: test_gpu304_scope.py): here it is a torch module's `forward`, run once per batch.
HEAD = "import torch\nfrom torch.autograd import Variable\nd = 'cuda'\n\n\nclass Net(torch.nn.Module):\n    def forward(self, flag):\n"


def _body(code: str) -> str:
    return textwrap.indent(code, "        ")


def _only(source: str):
    found = [d for d in lint_source(source) if d.code == "GPU304"]
    assert len(found) == 1, found
    return found[0]


@pytest.mark.parametrize(
    ("line", "fixed"),
    [
        ("m = torch.ones(8, 8).cuda()\n", 'm = torch.ones(8, 8, device="cuda")\n'),
        ("m = torch.zeros(3,).to(d)\n", "m = torch.zeros(3, device=d,)\n"),
        (
            "m = torch.full((2, 2), 7.0, dtype=torch.float64).to(device=d)\n",
            "m = torch.full((2, 2), 7.0, dtype=torch.float64, device=d)\n",
        ),
        ("m = torch.eye(\n    3,  # identity\n).to(d)\n", "m = torch.eye(\n    3,  # identity\n    device=d,\n)\n"),
        ("m = torch.zeros(\n    3,\n    4\n).to(d)\n", "m = torch.zeros(\n    3,\n    4,\n    device=d\n)\n"),
        (
            "m = torch.zeros(3,\n                4).to(d)\n",
            "m = torch.zeros(3,\n                4,\n                device=d)\n",
        ),
        ("m = (torch.zeros(3)\n     .to(d))\n", "m = (torch.zeros(3, device=d))\n"),
    ],
)
def test_safe_rewrites(line, fixed):
    assert _only(HEAD + _body(line)).fix.applicability is Applicability.SAFE
    assert fix_text(HEAD + _body(line)) == HEAD + _body(fixed)
    assert fix_text(HEAD + _body(fixed)) == HEAD + _body(fixed)


@pytest.mark.parametrize(
    "line",
    [
        "m = torch.zeros(3, requires_grad=True).to(d)\n",  # a leaf on the host, not on the device
        "m = torch.zeros(3).to(d, torch.float16)\n",  # a dtype too
        "m = torch.zeros(3).cuda(1)\n",
        "m = torch.zeros(3).to(d, non_blocking=True)\n",
        "m = (torch.zeros(3)  # on the host first\n     .to(d))\n",  # the comment would go with `.to(d)`
    ],
)
def test_other_shapes_only_get_a_suggestion(line):
    assert _only(HEAD + _body(line)).fix.applicability is Applicability.DISPLAY
    assert fix_text(HEAD + _body(line), unsafe_fixes=True) == HEAD + _body(line)


def test_random_factories_are_unsafe():
    source = HEAD + _body("noise = torch.randn(4).cuda()\n")
    assert _only(source).fix.applicability is Applicability.UNSAFE
    assert fix_text(source) == source
    assert fix_text(source, unsafe_fixes=True) == HEAD + _body('noise = torch.randn(4, device="cuda")\n')


def test_cuda_rewrite_is_equal_on_a_gpu():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("needs CUDA")
    source = "import torch\n\ndef f(n):\n    return (torch.arange(n).cuda() * 2).cpu().tolist()\n"
    fixed = fix_text(source)
    assert 'torch.arange(n, device="cuda")' in fixed
    for n in (0, 7):
        assert_same_result(run_example("", source, f"f({n})"), run_example("", fixed, f"f({n})"), strict=True)


def test_a_move_to_another_tensor_is_not_passed_as_a_device():
    # `.to(other)` takes other's device and dtype; `device=other` raises TypeError.
    source = (
        "import torch\n\n\ndef step(query):\n"
        "    value = torch.eye(2, dtype=torch.float64, device=query.device)\n"
        "    return torch.zeros(2, 2).to(value)\n"
    )
    assert fix_text(source, unsafe_fixes=True) == source


# -- made and moved in two statements -------------------------------------------------------


@pytest.mark.parametrize(
    ("lines", "fixed"),
    [
        ("m = torch.zeros(3, 4)\nm = m.to(d)\n", "m = torch.zeros(3, 4, device=d)\n"),
        ("m = torch.ones(3)\nm = m.cuda()\n", 'm = torch.ones(3, device="cuda")\n'),
        ("m = torch.eye(3)\n# on the device\nm = m.to(device=d)\n", "m = torch.eye(3, device=d)\n# on the device\n"),
        (
            "def f(n):\n    m = torch.full((n,), 2.0)\n    m = m.to(d)\n    return m\nout = f(3)\n",
            "def f(n):\n    m = torch.full((n,), 2.0, device=d)\n    return m\nout = f(3)\n",
        ),
        ("m = torch.zeros(3)\nm = m.to(d)", "m = torch.zeros(3, device=d)\n"),  # no line break at the end
    ],
)
def test_two_statements_are_merged(lines, fixed):
    assert _only(HEAD + _body(lines)).fix.applicability is Applicability.SAFE
    assert fix_text(HEAD + _body(lines)) == HEAD + _body(fixed)
    assert fix_text(HEAD + _body(fixed)) == HEAD + _body(fixed)


@pytest.mark.parametrize(
    "lines",
    [
        "m = torch.zeros(3)\nsize = 3\nm = m.to(d)\n",  # a statement in between
        "m = torch.zeros(3)\nm = m.to(d)  # moved\n",  # the comment would be lost
        "m = torch.zeros(3); m = m.to(d)\n",
        "m = torch.zeros(3)\nm = m.to(d, torch.float16)\n",
        "m = torch.zeros(3)\nm = m.to(d if m.numel() else d)\n",  # the device reads the tensor
        "m = torch.zeros(3)\nif flag:\n    m = m.to(d)\n",  # moved where a test holds: the CPU fallback otherwise
        "m = torch.rand(3)\nif flag:\n    x, m = x.cuda(), m.cuda()\n",  # one element of a tuple assignment
        "m = torch.rand(3)\nx, m = x.cuda(), m.cuda()\n",
        "m = Variable(torch.zeros(3))\nm = m.cuda()\n",  # the legacy autograd wrapper
        "m = Variable(torch.zeros(3)).cuda()\n",
        # changed by a torch function and a dtype change on the way (a causal mask)
        "m = torch.triu(torch.ones((3, 3)), diagonal=1).bool()\nm = m.to(flag.device)\n",
        # a number written at places on a line of its own, then moved where a flag says
        "m = Variable(torch.zeros(3, 4))\nrows = [0, 1]\nm[rows, [2, 3]] = 1\nif flag:\n    m = m.cuda()\n",
        # a timestep embedding: the name first holds a number the factory's arithmetic reads
        "m = 9.2 / (half - 1)\nm = torch.exp(torch.arange(half, dtype=torch.float32) * -m)\nm = m.to(flag.device)\n",
    ],
)
def test_two_statements_otherwise_get_a_suggestion(lines):
    assert _only(HEAD + _body(lines)).fix.applicability is Applicability.DISPLAY
    assert fix_text(HEAD + _body(lines), unsafe_fixes=True) == HEAD + _body(lines)


@pytest.mark.parametrize(
    "lines",
    [
        "m = torch.zeros(3)\nprint(m)\nm = m.to(d)\n",  # read in between
        "m = torch.zeros(3)\nif m.sum() > 0:\n    m = m.to(d)\n",  # the branch's test reads the tensor
        "m = torch.zeros(3)\nif flag:\n    m = m.to(d)\nelse:\n    m = m.double()\n",  # two branches
        "m = torch.rand(3)\nx, m = m.cuda(), m.cuda()\n",  # the tuple reads it twice
        "m = Variable(torch.tensor(data))\nm = m.cuda()\n",  # data, not a factory
        "m = torch.zeros(3)\nn = m.to(d)\nprint(m)\n",  # a different name, and the host tensor read after
        "m = torch.zeros(3)\ndef g():\n    return m\nm = m.to(d)\n",  # a function that reads it
        "m = torch.zeros(3, device=d)\nm = m.to(d)\n",  # already on the device
        "m = torch.zeros(3)\nm = m.to('cpu')\n",
        "for i in range(3):\n    m = m.to(d)\n    m = torch.zeros(3)\n",  # the factory comes after the move
        "m = torch.triu(torch.tensor(data)).bool()\nm = m.to(d)\n",  # data under the change
        "m = torch.zeros(3, 4)\nm[0] = flag\nm = m.to(d)\n",  # a value written, not a number
        "m = torch.zeros(3, 4)\nm[m > 0] = 1\nm = m.to(d)\n",  # the places read the tensor
        # the name first holds a tensor on the device: arithmetic with it is no factory's alone
        "m = flag.cuda()\nm = torch.exp(torch.arange(4) * -m)\nm = m.to(d)\n",
    ],
)
def test_two_statement_near_misses(lines):
    assert [x for x in lint_source(HEAD + _body(lines)) if x.code == "GPU304"] == []


@pytest.mark.parametrize(
    "body",
    [
        "m = torch.randn(3, generator=torch.Generator()).to(d)\n",
        "g = torch.Generator()\nm = torch.randn(3, generator=g)\nm = m.to(d)\n",
    ],
)
def test_draws_from_a_given_generator_are_left_alone(body):
    # a CPU generator keeps the draws the same on every device, and cannot draw on one
    source = (
        'import torch\nd = torch.device("cuda")\n\n\nclass Net(torch.nn.Module):\n    def forward(self):\n'
        + _body(body)
    )
    assert [x for x in lint_source(source) if x.code == "GPU304"] == []


@pytest.mark.parametrize(
    "line",
    [
        "m = torch.tensor([1.0, 2.0]).to(d)\n",
        "m = torch.tensor(float('-inf')).to(d)\n",
        "m = torch.as_tensor(flag).cuda()\n",
        "m = torch.LongTensor([[1]]).to(d)\n",
        "m = torch.Tensor([flag]).to(device=d)\n",
        "m = torch.tensor([flag])\nm = m.to(d)\n",
    ],
)
def test_a_tensor_made_from_data_is_left_alone(line):
    """torch builds a tensor from Python or NumPy data on the host and copies it to the
    device, given `device=` or not: `device=` would save no copy."""
    assert [d.code for d in lint_source(HEAD + _body(line))] == []


def test_constant_data_copied_in_a_loop_is_host_to_device_in_loop():
    """The copy constant data made into a tensor costs on every iteration is GPU302's: copy
    it once, before the loop."""
    source = textwrap.dedent("""\
        import torch


        def scaled(batches):
            out = []
            for x in batches:
                weights = torch.tensor([0.5, 2.0]).to("cuda")
                out.append(x * weights)
            return out
        """)
    assert [d.code for d in lint_source(source)] == ["GPU302"]


@pytest.mark.parametrize(
    "line",
    [
        "m = torch.FloatTensor(4, 256).cuda()\n",
        "m = torch.Tensor(flag, 10).to(d)\n",
        "m = torch.LongTensor(8).to(device=d)\n",
    ],
)
def test_a_legacy_class_given_a_shape_gets_a_suggestion(line):
    """A legacy class given a shape allocates on the host, then copies: `torch.empty(...,
    device=...)` would not; the class itself refuses an accelerator's `device=`."""
    finding = _only(HEAD + _body(line))
    assert finding.fix.applicability is Applicability.DISPLAY
    assert "torch.empty(shape" in finding.fix.message
    assert fix_text(HEAD + _body(line), unsafe_fixes=True) == HEAD + _body(line)


@pytest.mark.parametrize(
    "line",
    [
        "m = torch.zeros(8, 4).float().to(d)\n",
        "m = torch.arange(16).to(torch.long).to(d)\n",
        "m = torch.ones(16, 16).triu(1).bool().to(d)\n",
        "m = torch.zeros(4).unsqueeze(0).repeat(8, 1).cuda()\n",
    ],
    ids=["dtype", "to-dtype", "layout-and-dtype", "layout-then-cuda"],
)
def test_a_factory_moved_after_dtype_or_layout_changes_gets_a_suggestion(line):
    # the changes run on the host before the copy: `device=` belongs to the factory, the
    # chain stays as it is, so the rewrite is shown, not written
    assert _only(HEAD + _body(line)).fix.applicability is Applicability.DISPLAY
    assert fix_text(HEAD + _body(line), unsafe_fixes=True) == HEAD + _body(line)


@pytest.mark.parametrize(
    "line",
    [
        "m = torch.zeros(flag.size()).type_as(flag)\n",  # follows the batch, a parameter, to the device
        "m = torch.ones(4).type_as(other)\n",
        "m = torch.ones(4).type_as(flag.cuda())\n",
    ],
    ids=["batch-parameter", "device-tensor", "device-expression"],
)
def test_a_factory_following_a_device_tensor_with_type_as_gets_a_suggestion(line):
    # `.type_as(x)` takes `x`'s dtype and device: the factory's `device=` would need its dtype too
    source = HEAD + _body("other = torch.ones(1, device=d)\n" + line)
    assert _only(source).fix.applicability is Applicability.DISPLAY


@pytest.mark.parametrize(
    "line",
    [
        "m = torch.exp(-9.2 * torch.arange(4, dtype=torch.float32) / half).to(d)\n",  # a timestep embedding
        "m = (torch.ones(8) * 0.5).to(d)\n",
        "m = (1 - torch.rand(8)).float().cuda()\n",
        "m = torch.pow(torch.arange(4), 2).to(d)\n",
    ],
    ids=["exp-of-arithmetic", "scaled", "cast-of-arithmetic", "pow"],
)
def test_a_factory_under_arithmetic_with_numbers_gets_a_suggestion(line):
    # the arithmetic runs on the host before the copy; made on the device, it runs there
    source = HEAD + _body("half = 2\n" + line)
    assert _only(source).fix.applicability is Applicability.DISPLAY


@pytest.mark.parametrize(
    "line",
    [
        "m = (torch.arange(8) * flag.cuda()).to(d)\n",  # a tensor on the device on the other side
        "m = torch.pow(torch.arange(4), weights).to(d)\n",  # an exponent on the device
        "m = (torch.arange(8) * torch.ones(8)).to(d)\n",  # two factories: which one would move?
    ],
)
def test_arithmetic_with_other_tensors_is_not_a_factory_alone(line):
    source = HEAD + _body("weights = torch.ones(4, device=d)\n" + line)
    assert [x for x in lint_source(source) if x.code == "GPU304"] == []


@pytest.mark.parametrize(
    "line",
    [
        "m = torch.cat([torch.ones(4, dtype=torch.long), torch.zeros(8, dtype=torch.long)], dim=0).to(d)\n",
        "m = torch.stack((torch.zeros(3), torch.arange(3).float())).cuda()\n",
    ],
    ids=["cat-of-labels", "stack-through-a-cast"],
)
def test_a_join_of_host_factories_gets_a_suggestion(line):
    # every part is made on the host, so the joined tensor is too: each factory needs `device=`
    assert _only(HEAD + _body(line)).fix.applicability is Applicability.DISPLAY
    assert fix_text(HEAD + _body(line), unsafe_fixes=True) == HEAD + _body(line)


@pytest.mark.parametrize(
    "line",
    [
        "m = torch.cat([torch.ones(4), flag.sum(1)]).to(d)\n",  # a part that may be on the device
        "m = torch.cat([torch.ones(4, device=d), torch.zeros(4)]).to(d)\n",  # a part made there
        "m = torch.cat([torch.ones(4), torch.zeros(4)], dim=flag.dim()).to(d)\n",  # a dimension read from a tensor
        "m = torch.cat(parts).to(d)\n",  # parts the code does not show
    ],
    ids=["other-tensor", "part-on-the-device", "computed-dimension", "sequence"],
)
def test_a_join_with_other_parts_is_left_alone(line):
    source = HEAD + _body("parts = [torch.ones(2)]\n" + line)
    assert [x for x in lint_source(source) if x.code == "GPU304"] == []


def test_a_factory_following_a_host_tensor_with_type_as_is_left_alone():
    source = HEAD + _body("m = torch.ones(4).type_as(torch.zeros(4, dtype=torch.half))\n")
    assert [x for x in lint_source(source) if x.code == "GPU304"] == []


AUTOGRAD = """\
import torch


class GuidedRelu(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * torch.ones(x.size()).type_as(x)

    @staticmethod
    def backward(ctx, grad):
        return torch.zeros(grad.size()).type_as(grad) + grad

    @staticmethod
    def describe(x):
        return torch.zeros(3).cuda()
"""


def test_a_custom_autograd_operation_runs_forward_and_backward_per_call():
    # run on every call of `apply`, in a model's forward; another static method is not
    assert [x.start.line for x in lint_source(AUTOGRAD) if x.code == "GPU304"] == [7, 11]


@pytest.mark.parametrize(
    "line",
    [
        "m = torch.zeros(3).sum().to(d)\n",  # a reduction: one number is copied, not the tensor
        "m = torch.zeros(3).tolist()\n",  # no move at all
        "m = weights.float().to(d)\n",  # no factory at the root
    ],
)
def test_chains_that_are_not_a_factory_made_on_the_host(line):
    source = HEAD + _body("other = torch.ones(1, device=d)\nweights = torch.load('w.pt')\n" + line)
    assert [x for x in lint_source(source) if x.code == "GPU304"] == []


@pytest.mark.parametrize(
    "line",
    [
        "h = torch.zeros(2, 4).requires_grad_().to(d)\n",  # a leaf on the host, moved: not a leaf
        "n = torch.normal(torch.zeros(8, 2), 0.2).clamp(-0.5, 0.5).to(d)\n",  # drawn where its mean is
        "n = torch.bernoulli(torch.full((8,), 0.5)).cuda()\n",
    ],
    ids=["requires-grad", "normal-of-host-mean", "bernoulli-of-host-probabilities"],
)
def test_a_factory_under_a_draw_or_grad_switch_gets_a_suggestion(line):
    assert _only(HEAD + _body(line)).fix.applicability is Applicability.DISPLAY


@pytest.mark.parametrize(
    "line",
    [
        "n = torch.normal(torch.zeros(8, 2, device=d), 0.2).to(d)\n",  # the mean is on the device
        "n = torch.normal(flag, 0.2).to(d)\n",  # a given tensor: no factory at the root
    ],
)
def test_draws_from_a_tensor_not_made_on_the_host(line):
    assert [x for x in lint_source(HEAD + _body(line)) if x.code == "GPU304"] == []


def test_a_factory_made_in_a_tuple_assignment_and_moved_in_another_gets_a_suggestion():
    body = (
        "x_real, y_real = flag.view(-1, 4), torch.ones(8, 1)\n"
        "x_real, y_real = Variable(x_real.to(d)), Variable(y_real.to(d))\n"
        "return x_real, y_real\n"
    )
    found = _only(HEAD + _body(body))
    assert found.fix.applicability is Applicability.DISPLAY
    assert "`y_real` is created on the host and then copied to the device by `y_real.to(d)`" in found.message


def test_a_tuple_element_that_also_reads_the_name_is_not_the_factory():
    body = "a, y = torch.ones(8, 1), torch.ones(8, 1)\na, y = a + y, y.to(d)\nreturn a, y\n"
    assert [x for x in lint_source(HEAD + _body(body)) if x.code == "GPU304"] == []


@pytest.mark.parametrize(
    "lines",
    [
        "h = torch.zeros(8, 4).scatter_(1, flag.view(-1, 1), 1).cuda()\n",  # a one-hot block built on the host
        "h = Variable(torch.zeros(8, 4).scatter_(1, flag.view(-1, 1), 1)).cuda(0)\n",
        "h = torch.zeros(8).type(torch.cuda.FloatTensor)\n",  # a conversion to a device class moves it
        "T = torch.cuda.FloatTensor\nh = torch.zeros(8).type(T)\n",
        "h = torch.zeros(8).type(torch.cuda.FloatTensor, non_blocking=True)\n",
        "h = torch.zeros(8).type(dtype=torch.cuda.FloatTensor)\n",
        "z = torch.randn(8, 100).view(-1, 100, 1, 1)\nz = Variable(z.cuda())\n",  # the move wrapped
    ],
    ids=[
        "scatter",
        "scatter-in-variable",
        "type-cuda-class",
        "type-through-a-name",
        "type-non-blocking",
        "type-dtype-keyword",
        "variable-around-move",
    ],
)
def test_legacy_and_scattered_factories_get_a_suggestion(lines):
    found = _only(HEAD + _body(lines))
    assert found.fix.applicability is Applicability.DISPLAY
    if "scatter_" in lines:  # the index has to be on the device too
        assert "labels.to(d)" in found.fix.message


@pytest.mark.parametrize(
    "lines",
    [
        "h = torch.zeros(8).type(torch.FloatTensor)\n",  # near-miss: the host class, no move
        "h = torch.zeros(8).type(torch.float16)\n",  # near-miss: a dtype, not a class
        "h = torch.zeros(8).type(dtype=torch.FloatTensor, non_blocking=True)\n",  # near-miss: the host class
        "h = torch.zeros(8, 4).scatter_(1, flag.view(-1, 1), 1)\n",  # near-miss: never moved
        "z = torch.randn(8, 100)\nw = Variable(z.cuda())\nprint(z)\n",  # near-miss: moved into another name, kept
    ],
)
def test_conversions_and_scatters_that_move_nothing_are_left_alone(lines):
    assert [x for x in lint_source(HEAD + _body(lines)) if x.code == "GPU304"] == []


@pytest.mark.parametrize(
    ("lines", "suggested"),
    [
        ("z = torch.randn(8, 4)\nreturn flag + z.cuda()\n", "every read"),  # moved where it is read
        ("m = torch.zeros(3)\nn = m.to(d)\nreturn n\n", "every read"),  # into another name, never read again
        ("noise = torch.rand(8, 10)\nreturn Variable(noise).cuda()\n", "every read"),
        (
            "outs = []\nfor i in range(3):\n    z = torch.zeros(8)\n    outs.append(z.cuda())\nreturn outs\n",
            "every read",
        ),
        ("eps = torch.FloatTensor(8, 4).normal_()\nreturn flag * eps.cuda()\n", "legacy tensor classes"),
        (
            "from torch.distributions import Normal\nz = Normal(0, 1).sample((8,))\nreturn flag * z.to(d)\n",
            "distribution parameters",
        ),
        # a dtype change on its way to the move (`label.float().to(device)`)
        ("label = torch.ones(8, 1).long()\nreturn flag + label.float().view(-1).to(d)\n", "every read"),
    ],
    ids=["inline", "other-name", "variable", "made-in-the-loop", "filled", "draw", "changed-on-the-way"],
)
def test_a_factory_moved_where_it_is_read_gets_a_suggestion(lines, suggested):
    found = _only(HEAD + _body(lines))
    assert found.fix.applicability is Applicability.DISPLAY
    assert suggested in found.fix.message or suggested in found.message
    assert fix_text(HEAD + _body(lines), unsafe_fixes=True) == HEAD + _body(lines)


@pytest.mark.parametrize(
    "lines",
    [
        "z = torch.randn(8)\na = z.cuda()\nb = z.cuda()\nreturn a, b\n",  # two copies, not one tensor
        "z = torch.randn(8)\ny = z.cuda()\nreturn y, z\n",  # the host tensor is returned too
        "z = torch.randn(8)\nreturn flag + z.to(torch.float16)\n",  # a dtype, not a device
        "z = torch.randn(8)\nreturn flag + z.to('cpu')\n",
        "z = torch.randn(8)\nreturn flag + (z.cuda() if flag else 0)\n",  # moved on one path only
        "z = torch.zeros(8)\nouts = []\nfor i in range(3):\n    outs.append(z.cuda().add_(i))\nreturn outs\n",
        "z = torch.zeros(8)\nreturn [z.cuda() for _ in range(3)]\n",  # three copies, not one tensor
        "z = torch.randn(8, device=d)\nreturn flag + z.to(d)\n",  # already there
        "z = torch.tensor([1.0, 2.0])\nreturn flag + z.cuda()\n",  # data, not a factory
        "from torch.distributions import Normal\nz = Normal(flag, 1).sample()\nreturn z.to(d)\n",
        # changed, then read as it is: the host tensor is used
        "label = torch.ones(8).long()\nreturn flag + label.float().sum(), label.to(d)\n",
        "label = torch.ones(8).long()\nreturn flag + label.float().to(torch.half)\n",
        # filled on the way with what may tie it to the host: a CPU generator, host probabilities
        "z = torch.empty(8)\nreturn flag + z.normal_(generator=g).to(d)\n",
        "keep = torch.empty(8)\nreturn flag + keep.bernoulli_(probs).to(d)\n",
    ],
    ids=[
        "twice",
        "returned",
        "dtype",
        "cpu",
        "one-path",
        "loop",
        "comprehension",
        "on-device",
        "data",
        "tensor-parameter",
        "changed-and-read",
        "changed-to-a-dtype",
        "filled-with-a-generator",
        "filled-with-probabilities",
    ],
)
def test_a_factory_read_otherwise_is_left_alone(lines):
    assert [x for x in lint_source(HEAD + _body(lines)) if x.code == "GPU304"] == []
