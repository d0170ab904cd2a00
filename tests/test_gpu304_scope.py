"""GPU304 leaves alone a tensor made once, at a module's (a notebook cell's) top level
outside any loop (a warm-up, a test input, a permutation made when a script starts), or once
per call of a function the file never runs repeatedly (a pipeline's prompt encoding). In a
loop, a comprehension, a callback, a torch module's `forward`, a dataset's `__getitem__`, or a
function the file calls in a loop it is made again and again, and flagged."""

from __future__ import annotations

import textwrap

import pytest

from gpulint import lint_source
from gpulint.notebook import lint_cells

HEAD = 'import torch\n\ndevice = torch.device("cuda")\n'


def _lines(source: str) -> list[int]:
    return [d.start.line for d in lint_source(source) if d.code == "GPU304"]


ONCE = {
    "top-level": "torch.zeros((2, 2)).cuda()\n",
    "assigned": "test_input = torch.tensor([[1, 2, 3]]).to(device)\n",
    "two-statements": "perm = torch.randperm(100)\nperm = perm.to(device)\n",
    "main-guard": 'if __name__ == "__main__":\n    ids = torch.randint(0, 50257, (1, 8)).to(device)\n',
    "with-block": "with torch.no_grad():\n    probe = torch.ones(1, 3).to(device)\n",
    "class-body": "class Config:\n    scale = torch.ones(3).to(device)\n",
    "function-never-called": "def make(n):\n    return torch.arange(n).to(device)\n",
    "function-called-once": "def make(n):\n    return torch.arange(n).to(device)\n\n\nramp = make(10)\n",
    "method-called-once-per-call": "class Pipeline:\n    def encode(self, n):\n        return torch.ones(n).cuda()\n\n"
    "    def __call__(self, n, steps):\n        ids = self.encode(n)\n"
    "        for t in range(steps):\n            ids = ids * t\n        return ids\n",
    "forward-of-a-plain-class": "class Net:\n    def forward(self, x):\n        return torch.ones(3).to(device)\n",
    "first-iteration-of-a-range": "for i in range(10):\n    if i == 0:\n        ramp = torch.arange(5).to(device)\n",
    "a-buffer-started-lazily": "features = None\nfor batch in loader:\n    if features is None:\n"
    "        features = torch.zeros(10000, 512)\n        features = features.to(device)\n"
    "    features[:2] = batch\n",
    "a-buffer-started-lazily-on-the-first-rank": "features = None\nfor batch in loader:\n"
    "    if rank == 0 and features is None:\n        features = torch.zeros(10000, 512).cuda()\n",
    "one-iteration-of-enumerate": "for i, n in enumerate([3, 4]):\n    if i == 1 and n:\n"
    "        ramp = torch.arange(n).to(device)\n",
}

REPEATED = {
    "function-called-in-a-loop": "def make(n):\n    return torch.arange(n).to(device)\n\n\n"
    "ramps = [make(n) for n in range(10)]\n",
    "method-called-in-a-loop": "class Model:\n    def step(self, n):\n        return torch.ones(n).cuda()\n\n"
    "    def run(self, sizes):\n        for n in sizes:\n            self.step(n)\n",
    "called-by-a-repeated-function": "def inner(n):\n    return torch.ones(n).cuda()\n\n\n"
    "def outer(n):\n    return inner(n) * 2\n\n\n"
    "for n in range(10):\n    outer(n)\n",
    "callback": "def collate(items):\n    return torch.zeros(len(items)).to(device)\n\n\n"
    "loader = torch.utils.data.DataLoader(range(100), batch_size=10, collate_fn=collate)\n",
    "forward": "class Net(torch.nn.Module):\n    def forward(self, x):\n"
    "        return x + torch.ones(x.shape[0]).to(x.device)\n",
    "getitem": "class Items:\n    def __getitem__(self, i):\n        return torch.full((1,), i).to(device)\n",
    "lambda": "make = lambda n: torch.zeros(n).to(device)\n",
    "top-level-loop": "for n in range(10):\n    ramp = torch.arange(n).to(device)\n",
    "top-level-while": "n = 0\nwhile n < 10:\n    ramp = torch.arange(n).to(device)\n    n += 1\n",
    "comprehension": "boxes = [torch.zeros(4).to(device) for box in [[0, 0, 1, 1], [1, 1, 2, 2]]]\n",
    "guard-on-a-range-of-values": "for i in range(10):\n    if i < 2:\n        ramp = torch.arange(5).to(device)\n",
    "guard-on-a-value-not-an-index": "for n in [0, 0, 1]:\n    if n == 0:\n        ramp = torch.arange(5).to(device)\n",
    "guard-in-an-else": "for i in range(10):\n    if i == 0:\n        pass\n    else:\n"
    "        ramp = torch.arange(5).to(device)\n",
    "index-rebound": "for i in range(10):\n    i = i % 2\n    if i == 0:\n        ramp = torch.arange(5).to(device)\n",
    "a-buffer-started-again-each-time": "features = None\nfor batch in loader:\n    if features is None:\n"
    "        features = torch.zeros(10000, 512).to(device)\n    features = None\n",
    "first-iteration-of-an-inner-loop": "for epoch in range(3):\n    for i in range(10):\n        if i == 0:\n"
    "            ramp = torch.arange(5).to(device)\n",
}


@pytest.mark.parametrize("body", list(ONCE.values()), ids=list(ONCE))
def test_a_tensor_made_once_is_left_alone(body):
    assert _lines(HEAD + body) == []


@pytest.mark.parametrize("body", list(REPEATED.values()), ids=list(REPEATED))
def test_a_tensor_made_again_and_again_is_flagged(body):
    assert len(_lines(HEAD + body)) == 1


def test_a_notebook_cells_top_level_counts_as_once():
    cells = [HEAD, "torch.zeros((2, 2)).cuda()\n", "for step in range(3):\n    noise = torch.randn(4).to(device)\n"]
    found = [d for cell in lint_cells(cells) for d in cell if d.code == "GPU304"]
    assert [(d.cell, d.start.line) for d in found] == [(3, 2)]


def test_nesting_inside_a_top_level_loop_counts():
    source = HEAD + textwrap.dedent("""\
        for epoch in range(3):
            if epoch:
                with torch.no_grad():
                    noise = torch.randn(4).to(device)
        """)
    assert _lines(source) == [7]


DRAW_HEAD = (
    HEAD + "from torch.distributions import Normal, Uniform\n\n\ndef act(mean, steps):\n    for _ in range(steps):\n"
)


@pytest.mark.parametrize(
    "draw",
    [
        "        z = Normal(0, 1).sample(mean.shape).to(device)\n",
        "        normal = Normal(0, 1)\n        z = normal.sample(mean.shape).cuda()\n",
        "        z = 0.1 * Uniform(-1.0, 1.0).rsample((4,)).to(device)\n",
    ],
)
def test_a_draw_from_a_distribution_of_numbers_moved_to_the_device_is_flagged_with_a_suggestion(draw):
    [finding] = [d for d in lint_source(DRAW_HEAD + draw) if d.code == "GPU304"]
    assert "draws on the host" in finding.message
    assert finding.fix is not None and finding.fix.edits == () and "device=d" in finding.fix.message


@pytest.mark.parametrize(
    "draw",
    [
        "        z = Normal(mean, 1.0).sample().to(device)\n",  # a tensor parameter: drawn where it is
        "        z = Normal(0, 1).sample(mean.shape).to('cpu')\n",  # moved to the host
        "        z = Normal(0, 1).sample(mean.shape)\n",  # not moved
        "        normal = make()\n        z = normal.sample(mean.shape).cuda()\n",  # what it is, unknown
    ],
)
def test_a_draw_not_made_on_the_host_and_moved_is_left_alone(draw):
    assert _lines(DRAW_HEAD + draw) == []


def test_a_draw_made_once_is_left_alone():
    source = HEAD + "from torch.distributions import Normal\n\nz = Normal(0, 1).sample((4,)).to(device)\n"
    assert _lines(source) == []


FILL_HEAD = HEAD + "\n\ndef train(batches, net, n_actions, shape):\n    for batch in batches:\n"


@pytest.mark.parametrize(
    "body",
    [
        # a legacy class given a shape, filled in place on a line of its own, then moved
        "        noise = torch.FloatTensor(64, 100, 1, 1)\n        noise.normal_(0, 1)\n"
        "        noise = noise.to(device)\n",
        # sizes partly unpacked, zeroed, then moved
        "        planes = torch.FloatTensor(64, n_actions, *shape)\n        planes.zero_()\n"
        "        planes = planes.to(device)\n",
        # a factory filled twice before the move
        "        eps = torch.empty(64, 1)\n        eps.zero_()\n        eps.uniform_()\n        eps = eps.cuda()\n",
    ],
    ids=["legacy-filled", "unpacked-sizes", "factory-filled"],
)
def test_a_host_tensor_filled_in_place_before_its_move_is_flagged_with_the_rewrite_shown(body):
    [finding] = [d for d in lint_source(FILL_HEAD + body) if d.code == "GPU304"]
    assert finding.start.line == 8 and finding.fix is not None and finding.fix.edits == ()


@pytest.mark.parametrize(
    "body",
    [
        # the fill reads the tensor it fills
        "        noise = torch.FloatTensor(64, 100)\n        noise.normal_(0, noise.size(0))\n"
        "        noise = noise.to(device)\n",
        # the host tensor is used between the fill and the move
        "        noise = torch.FloatTensor(64, 100)\n        noise.normal_(0, 1)\n        print(noise)\n"
        "        noise = noise.to(device)\n",
        # a legacy class given data unpacked from a list: data, not sizes
        "        rows = torch.FloatTensor(*shape)\n        rows.zero_()\n        rows = rows.to(device)\n",
    ],
    ids=["fill-reads-the-tensor", "used-in-between", "only-unpacked"],
)
def test_fills_that_are_not_the_host_idiom_are_left_alone(body):
    assert _lines(FILL_HEAD + body) == []


STEP_HELPER = HEAD + textwrap.dedent("""\
    import torch.nn as nn
    from torch.distributions import Normal


    class Policy(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 2)

        def forward(self, state):
            return self.fc(state)

        def get_action(self, state):
            {body}
    """)


@pytest.mark.parametrize(
    "body",
    [
        "action = self.forward(state)\n        noise = Normal(0, 1).sample(action.shape).cuda()\n        return action + noise",
        "action = self(state)\n        return action + torch.randn(2).to(device)",
    ],
    ids=["self-forward", "self-call"],
)
def test_a_module_method_that_runs_the_module_runs_per_step(body):
    assert _lines(STEP_HELPER.format(body=body)) == [18]


@pytest.mark.parametrize(
    "body",
    [
        # runs no forward pass: set-up, perhaps once
        "return torch.randn(2).to(device)",
        # runs the forward pass in its own loop: the loop is what repeats, and it is here
        "for _ in range(1):\n            action = self(state)\n        return torch.randn(2).to(device)",
    ],
    ids=["no-forward", "forward-in-its-own-loop"],
)
def test_a_module_method_that_does_not_run_the_module_per_call_is_not_known_to_repeat(body):
    assert _lines(STEP_HELPER.format(body=body)) == []


FALLBACK = HEAD + textwrap.dedent("""\
    USE_CUDA = torch.cuda.is_available()


    def step(batches):
        for batch in batches:
            hidden = torch.zeros(1, 8)
            {move}
    """)


@pytest.mark.parametrize(
    "move",
    ["hidden = hidden.cuda() if USE_CUDA else hidden", "hidden = hidden if not USE_CUDA else hidden.to(device)"],
    ids=["moved-first", "kept-first"],
)
def test_a_factory_moved_in_one_branch_of_a_conditional_keeping_it_otherwise_is_flagged_with_the_rewrite_shown(move):
    [finding] = [d for d in lint_source(FALLBACK.format(move=move)) if d.code == "GPU304"]
    assert finding.start.line == 9 and finding.fix is not None and finding.fix.edits == ()


@pytest.mark.parametrize(
    "move",
    [
        # the test reads the tensor
        "hidden = hidden.cuda() if hidden.numel() > 4 else hidden",
        # the other branch is something else
        "hidden = hidden.cuda() if USE_CUDA else batch",
    ],
    ids=["test-reads-it", "other-branch"],
)
def test_conditionals_that_are_no_cpu_fallback_are_left_alone(move):
    assert _lines(FALLBACK.format(move=move)) == []


def test_a_factory_returned_moved_in_one_branch_by_a_method_forward_calls_is_flagged():
    source = HEAD + textwrap.dedent("""\
        import torch.nn as nn

        USE_CUDA = torch.cuda.is_available()


        class Encoder(nn.Module):
            def init_hidden(self, inputs):
                hidden = torch.zeros(1, inputs.size(0), 8)
                return hidden.cuda() if USE_CUDA else hidden

            def forward(self, inputs):
                return inputs + self.init_hidden(inputs)
        """)
    assert _lines(source) == [11]
