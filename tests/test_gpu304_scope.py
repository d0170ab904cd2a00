"""GPU304 leaves alone a tensor made once, at a module's (a notebook cell's) top level
outside any loop: a warm-up, a test input, a permutation made when a script starts. Inside
a function, a loop or a comprehension it is made again and again, and flagged."""

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
}

REPEATED = {
    "function": "def make(n):\n    return torch.arange(n).to(device)\n",
    "method": "class Model:\n    def step(self, n):\n        return torch.ones(n).cuda()\n",
    "lambda": "make = lambda n: torch.zeros(n).to(device)\n",
    "top-level-loop": "for n in range(10):\n    ramp = torch.arange(n).to(device)\n",
    "top-level-while": "n = 0\nwhile n < 10:\n    ramp = torch.arange(n).to(device)\n    n += 1\n",
    "comprehension": "boxes = [torch.tensor(box).to(device) for box in [[0, 0, 1, 1], [1, 1, 2, 2]]]\n",
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
