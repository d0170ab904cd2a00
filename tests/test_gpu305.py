"""GPU305 dataloader-without-workers: only loaders in code that feeds a device."""

from __future__ import annotations

import textwrap

import pytest

from gpulint import Applicability, fix_text, lint_source

HEAD = "import torch\nfrom torch.utils.data import DataLoader\n\n"
FEED = "\nfor x in loader:\n    x = x.to(device)\n"


def _found(source: str):
    return [d for d in lint_source(source) if d.code == "GPU305"]


@pytest.mark.parametrize(("device", "flagged"), [
    ('device = "cuda"\n', True),
    ('device = torch.device("cuda" if torch.cuda.is_available() else "cpu")\n', True),
    ('device = "cpu"\n', False),
    ("device = torch.float16\n", False),  # a dtype conversion, not a device
])
def test_only_a_loop_that_feeds_a_device_counts(device, flagged):
    source = HEAD + device + "loader = DataLoader(range(10), batch_size=2)\n" + FEED
    assert bool(_found(source)) is flagged


def test_cuda_and_non_blocking_copies_feed_a_device():
    for move in ("x.cuda()", "x.to(dev, non_blocking=True)", "x['a'].to(device=dev)"):
        source = HEAD + f"loader = DataLoader(range(10))\nfor x in loader:\n    y = {move}\n"
        assert len(_found(source)) == 1, move


def test_a_device_parameter_annotated_as_such_counts():
    source = HEAD + textwrap.dedent("""\
        def train(dataset, device: torch.device):
            loader = DataLoader(dataset, batch_size=8)
            for x, y in loader:
                x, y = x.to(device), y.to(device)
        """)
    assert len(_found(source)) == 1


def test_zero_workers_are_replaced_and_pin_memory_kept():
    source = HEAD + 'device = "cuda"\nloader = DataLoader(range(10), num_workers=0, pin_memory=False)\n' + FEED
    [diagnostic] = _found(source)
    assert diagnostic.fix.applicability is Applicability.UNSAFE
    assert fix_text(source) == source
    assert "DataLoader(range(10), num_workers=4, pin_memory=False)" in fix_text(source, unsafe_fixes=True)


@pytest.mark.parametrize("call", [
    "DataLoader(range(10), 2, False, None, None, 3)",  # workers by position
    "DataLoader(range(10), num_workers=n)",  # decided at run time
    "DataLoader(*args)",
])
def test_loaders_that_may_have_workers_are_silent(call):
    assert _found(HEAD + f'device = "cuda"\nn = 2\nloader = {call}\n' + FEED) == []
