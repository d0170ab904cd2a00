"""A loop whose body breaks out of it by a counter runs a few times (`gpulint.early_exit`):
a sync per iteration of a preview loop (GPU301, GPU307, GPU308) and workers for a loader read
for a look at a few batches (GPU305) are left alone; any shape the code does not bound stays flagged."""

from __future__ import annotations

import textwrap

import pytest

from gpulint import lint_source

from .rule_helpers import HOST_COPIES, lint_in_preview_mode

LOOP = """\
import torch

device = torch.device("cuda")


def show(loader, flag):
{before}    for {target} in {iterable}:
        x = batch.to(device)
        print(x.sum().item())
{after}"""


def _synced(before: str, target: str, iterable: str, after: str) -> bool:
    source = LOOP.format(before=before, target=target, iterable=iterable, after=textwrap.indent(after, " " * 8))
    return any(d.code in HOST_COPIES for d in lint_source(source))


#: The two ways a loop is counted: over enumerate's index, or by a name the body increments.
INDEX = ("", "i, batch", "enumerate(loader)")
COUNTER = ("    shown = 0\n", "batch", "loader")

#: case: (the loop's setup, what its body ends with, whether it runs at most 16 times)
CASES = {
    "enumerate-equal": (INDEX, "if i == 2:\n    break\n", True),
    "enumerate-start": (("", "i, batch", "enumerate(loader, start=1)"), "if i >= 3:\n    break\n", True),
    "mirrored-in-an-or": (INDEX, "if 2 < i or flag:\n    break\n", True),
    "break-after-a-print": (INDEX, "if i > 1:\n    print('done')\n    break\n", True),
    "counter": (COUNTER, "shown += 1\nif shown > 2:\n    break\n", True),
    "counter-by-twos": (COUNTER, "shown += 2\nif shown == 6:\n    break\n", True),
    "sixteen": (INDEX, "if i == 15:\n    break\n", True),
    "too-many": (INDEX, "if i == 16:\n    break\n", False),
    "bound-from-a-variable": (INDEX, "if i == flag:\n    break\n", False),
    "test-under-a-branch": (INDEX, "if flag:\n    if i == 2:\n        break\n", False),
    "and": (INDEX, "if i == 2 and flag:\n    break\n", False),
    "no-break": (INDEX, "if i == 2:\n    print(i)\n", False),
    "counter-rebound": (INDEX, "i = 0\nif i == 2:\n    break\n", False),
    "continue-before-the-test": (INDEX, "if flag:\n    continue\nif i == 2:\n    break\n", False),
    "continue-in-the-test": (INDEX, "if i >= 2:\n    if flag:\n        continue\n    break\n", False),
    "index-rebound-by-the-target": (("", "i, (batch, i)", "enumerate(loader)"), "if i == 2:\n    break\n", False),
    "continue-skips-the-increment": (COUNTER, "if flag:\n    continue\nshown += 1\nif shown > 2:\n    break\n", False),
    "counter-from-a-parameter": (("", "batch", "loader"), "flag += 1\nif flag > 2:\n    break\n", False),
    "counter-never-lands": (COUNTER, "shown += 2\nif shown == 3:\n    break\n", False),
    "counter-counts-down": (COUNTER, "shown -= 1\nif shown > 2:\n    break\n", False),
    "counter-moved-twice": (COUNTER, "shown += 1\nshown = shown * 2\nif shown > 2:\n    break\n", False),
    "counter-started-in-a-branch": (
        ("    if flag:\n        shown = 0\n", "batch", "loader"),
        "shown += 1\nif shown > 2:\n    break\n",
        False,
    ),
    "break-ending-the-body": (INDEX, "break\n", True),
    "break-after-a-continue": (INDEX, "if flag:\n    continue\nbreak\n", False),
    "break-in-a-nested-loop": (INDEX, "for part in batch:\n    break\n", False),
    "counter-read-by-a-closure": (
        ("    shown = 0\n    bump = lambda: shown\n", "batch", "loader"),
        "shown += 1\nif shown > 2:\n    break\n",
        False,
    ),
}


@pytest.mark.parametrize(("setup", "after", "few"), CASES.values(), ids=CASES.keys())
def test_a_loop_broken_off_by_a_counter_is_a_few_iterations_and_nothing_else_is(setup, after, few):
    assert _synced(*setup, after) is not few


PREVIEW = """\
import torch
from torch.utils.data import DataLoader
from torchvision import datasets

device = torch.device("cuda")
loader = DataLoader(datasets.MNIST("data", train=True, transform=to_tensor), batch_size=1)

if __name__ == "__main__":
    shown = 0
    for images, labels in loader:
        model(images.to(device))
        shown += 1
        if shown > 2:
            break
"""


def test_gpu305_leaves_a_loader_read_for_a_few_batches_then_left():
    assert [d.code for d in lint_source(PREVIEW)] == []


@pytest.mark.parametrize(
    "other_use",
    [
        "for images, labels in loader:\n    model(images.to(device))\n",  # a loop reads every batch
        "fit(model, loader)\n",  # handed on: read out of view
        "def train():\n    for images, labels in loader:\n        break\n",  # read by a function: not followed
        "for (images, labels), step in zip(loader, range(1000)):\n    model(images.to(device))\n",
        "for i, (images, labels) in enumerate(loader):\n    model(images.to(device))\n    if i > 100:\n        break\n",
    ],
)
def test_gpu305_flags_a_previewed_loader_read_another_way_too(other_use):
    source = PREVIEW.replace("    shown = 0\n", textwrap.indent(other_use, "    ") + "    shown = 0\n")
    assert [d.code for d in lint_in_preview_mode(source)] == ["GPU305"]


def test_gpu306_leaves_a_condition_in_a_loop_broken_off_by_a_counter():
    source = textwrap.dedent("""\
        import torch

        device = torch.device("cuda")


        def show(loader):
            for i, batch in enumerate(loader):
                x = batch.to(device)
                if x.sum() > 0:
                    print(i)
        """)
    assert [d.code for d in lint_source(source)] == ["GPU306"]
    assert [d.code for d in lint_source(source + "        if i == 2:\n            break\n")] == []
